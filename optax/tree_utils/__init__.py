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
"""Utilities for pytrees: arithmetic, casting, random trees, state access."""

import functools as _functools

from optax.tree_utils._tree_math import tree_add
from optax.tree_utils._tree_math import tree_add_scale
from optax.tree_utils._tree_math import tree_allclose
from optax.tree_utils._tree_math import tree_batch_shape
from optax.tree_utils._tree_math import tree_bias_correction
from optax.tree_utils._tree_math import tree_clip
from optax.tree_utils._tree_math import tree_conj
from optax.tree_utils._tree_math import tree_div
from optax.tree_utils._tree_math import tree_full_like
from optax.tree_utils._tree_math import tree_max
from optax.tree_utils._tree_math import tree_min
from optax.tree_utils._tree_math import tree_mul
from optax.tree_utils._tree_math import tree_norm
from optax.tree_utils._tree_math import tree_ones_like
from optax.tree_utils._tree_math import tree_real
from optax.tree_utils._tree_math import tree_scale
from optax.tree_utils._tree_math import tree_size
from optax.tree_utils._tree_math import tree_sub
from optax.tree_utils._tree_math import tree_sum
from optax.tree_utils._tree_math import tree_update_infinity_moment
from optax.tree_utils._tree_math import tree_update_moment
from optax.tree_utils._tree_math import tree_update_moment_per_elem_norm
from optax.tree_utils._tree_math import tree_vdot
from optax.tree_utils._tree_math import tree_where
from optax.tree_utils._tree_math import tree_zeros_like
from optax.tree_utils._casting import tree_cast
from optax.tree_utils._casting import tree_cast_like
from optax.tree_utils._casting import tree_dtype
from optax.tree_utils._random import tree_random_like
from optax.tree_utils._random import tree_split_key_like
from optax.tree_utils._random import tree_unwrap_random_key_data
from optax.tree_utils._state_utils import NamedTupleKey
from optax.tree_utils._state_utils import tree_get
from optax.tree_utils._state_utils import tree_get_all_with_path
from optax.tree_utils._state_utils import tree_map_params
from optax.tree_utils._state_utils import tree_set

# Names that upstream 0.2.8 still serves with a DeprecationWarning. The
# message of tree_add_scalar_mul names tree_add_scalar_mul (upstream's names
# tree_scalar_mul, a copy slip; see deviations.toml).
from optax._src import deprecations as _deprecations

# The norms served under the deprecated names: tree_norm of a fixed order.
_tree_l1_norm = _functools.partial(tree_norm, ord=1)
_tree_l2_norm = _functools.partial(tree_norm, ord=2)
_tree_linf_norm = _functools.partial(tree_norm, ord=float('inf'))

__getattr__ = _deprecations.module_getattr(__name__, {
    'tree_scalar_mul': (
        'optax.tree_utils.tree_scalar_mul is deprecated: use'
        ' optax.tree_utils.tree_scale (optax v0.2.5 or newer).',
        'optax.tree_utils._tree_math:tree_scale'),
    'tree_add_scalar_mul': (
        'optax.tree_utils.tree_add_scalar_mul is deprecated: use'
        ' optax.tree_utils.tree_add_scale (optax v0.2.5 or newer).',
        'optax.tree_utils._tree_math:tree_add_scale'),
    'tree_l1_norm': (
        'optax.tree_utils.tree_l1_norm is deprecated: use'
        ' optax.tree_utils.tree_norm(..., ord=1) (optax v0.2.5 or newer).',
        'optax.tree_utils:_tree_l1_norm'),
    'tree_l2_norm': (
        'optax.tree_utils.tree_l2_norm is deprecated: use'
        ' optax.tree_utils.tree_norm (optax v0.2.5 or newer).',
        'optax.tree_utils:_tree_l2_norm'),
    'tree_linf_norm': (
        'optax.tree_utils.tree_linf_norm is deprecated: use'
        ' optax.tree_utils.tree_norm(..., ord=jnp.inf) (optax v0.2.5 or'
        ' newer).',
        'optax.tree_utils:_tree_linf_norm'),
})
del _deprecations
