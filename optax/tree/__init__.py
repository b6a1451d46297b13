# Copyright 2026 The optax fork authors. All Rights Reserved.
#
# Licensed under the Apache License, Version 2.0 (the "License");
# you may not use this file except in compliance with the License.
# You may obtain a copy of the License at
#
#     http://www.apache.org/licenses/LICENSE-2.0
#
# Unless required by applicable law or agreed to in writing, software
# distributed under the License is distributed on an "AS IS" BASIS,
# WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
# See the License for the specific language governing permissions and
# limitations under the License.
# ==============================================================================
"""Short names for the pytree utilities of :mod:`optax.tree_utils`.

For example ``optax.tree.add`` is :func:`optax.tree_utils.tree_add`.
"""

from optax.tree_utils._tree_math import tree_add as add
from optax.tree_utils._tree_math import tree_add_scale as add_scale
from optax.tree_utils._tree_math import tree_allclose as allclose
from optax.tree_utils._tree_math import tree_batch_shape as batch_shape
from optax.tree_utils._tree_math import tree_bias_correction as bias_correction
from optax.tree_utils._casting import tree_cast as cast
from optax.tree_utils._casting import tree_cast_like as cast_like
from optax.tree_utils._tree_math import tree_clip as clip
from optax.tree_utils._tree_math import tree_conj as conj
from optax.tree_utils._tree_math import tree_div as div
from optax.tree_utils._casting import tree_dtype as dtype
from optax.tree_utils._tree_math import tree_full_like as full_like
from optax.tree_utils._state_utils import tree_get as get
from optax.tree_utils._state_utils import (
    tree_get_all_with_path as get_all_with_path,
)
from optax.tree_utils._state_utils import tree_map_params as map_params
from optax.tree_utils._tree_math import tree_max as max
from optax.tree_utils._tree_math import tree_min as min
from optax.tree_utils._tree_math import tree_mul as mul
from optax.tree_utils._tree_math import tree_norm as norm
from optax.tree_utils._tree_math import tree_ones_like as ones_like
from optax.tree_utils._random import tree_random_like as random_like
from optax.tree_utils._tree_math import tree_real as real
from optax.tree_utils._tree_math import tree_scale as scale
from optax.tree_utils._state_utils import tree_set as set
from optax.tree_utils._tree_math import tree_size as size
from optax.tree_utils._random import tree_split_key_like as split_key_like
from optax.tree_utils._tree_math import tree_sub as sub
from optax.tree_utils._tree_math import tree_sum as sum
from optax.tree_utils._random import (
    tree_unwrap_random_key_data as unwrap_random_key_data,
)
from optax.tree_utils._tree_math import (
    tree_update_infinity_moment as update_infinity_moment,
)
from optax.tree_utils._tree_math import tree_update_moment as update_moment
from optax.tree_utils._tree_math import (
    tree_update_moment_per_elem_norm as update_moment_per_elem_norm,
)
from optax.tree_utils._tree_math import tree_vdot as vdot
from optax.tree_utils._tree_math import tree_where as where
from optax.tree_utils._tree_math import tree_zeros_like as zeros_like
