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
"""The dtype of an optimizer's floating scalar statistics.

Learning-rate estimates, distances, weight and loss sums, averages of the
loss and line-search step sizes are float32 or wider from ``init`` on:
float32, float64 under ``jax_enable_x64`` (the hyperparameters' dtype), and
never the params' narrower dtype, in which a running sum stops growing
once its increments fall below half its last unit (bfloat16 keeps 8 bits).
A statistic of the params' own values (DoG's distances, Prodigy's and
D-Adaptation's estimates) is complex where a param is.
"""

from typing import Any, Optional

import jax
import jax.numpy as jnp
import numpy as np

from optax._src import dtypes
from optax._src import hyperparameters


def statistics_dtype(params: Optional[Any] = None) -> np.dtype:
  """The dtype in which an optimizer keeps its floating scalar statistics.

  Examples:
    >>> import jax.numpy as jnp
    >>> from optax._src import scalar_statistics
    >>> scalar_statistics.statistics_dtype({'w': jnp.ones(2, jnp.bfloat16)})
    dtype('float32')
    >>> scalar_statistics.statistics_dtype({'w': jnp.ones(2, jnp.complex64)})
    dtype('complex64')

  Args:
    params: the params whose values the statistics are made of (arrays or
      ``jax.ShapeDtypeStruct``), or None for statistics of other values (a
      loss, a step size).

  Returns:
    :func:`optax._src.hyperparameters.hyperparameter_dtype`, promoted with
    the floating and complex dtypes of ``params``' leaves.
  """
  leaf_dtypes = {jnp.result_type(x) for x in jax.tree.leaves(params)}
  return dtypes.promote_dtypes(
      hyperparameters.hyperparameter_dtype(),
      *sorted((d for d in leaf_dtypes if jnp.issubdtype(d, jnp.inexact)),
              key=str))
