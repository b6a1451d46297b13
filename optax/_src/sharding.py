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
"""The explicit-sharding rule: when a sharding is part of an array's type.

Under a mesh with explicit axes (``jax.sharding.AxisType.Explicit``) an
array's type carries its sharding, and an array is *sharded in its type*
when its partition spec names one of those axes (:func:`explicit_spec`).
Every place that must treat such arrays apart asks here:

* elementwise arithmetic keeps a sharded leaf in its own sharding (a scalar
  is not broadcast to it replicated: ``dtypes.ScalarsByDtype``,
  ``transforms/_layouts.py``);
* a reduction to a scalar asks for it replicated on the mesh, and a
  computation that needs a whole matrix (Muon's and GaLore's) gathers it
  replicated and shards the result back (:func:`replicated`).
"""

from typing import Any, Optional

import jax


def explicit_spec(x: Any) -> Optional[jax.sharding.PartitionSpec]:
  """The partition spec of ``x`` when it is sharded in its type, else None.

  Under a mesh with explicit axes a sharding is part of an array's type, and
  operands of an elementwise operation must agree on it.

  Args:
    x: an array or tracer.

  Returns:
    The spec of an array sharded over an explicit mesh axis; None for a
    replicated array, or where shardings are not part of types.
  """
  spec = getattr(getattr(jax.typeof(x), 'sharding', None), 'spec', None)
  if spec is None or all(axis is None for axis in spec):
    return None
  return spec


def replicated(*xs: Any) -> Optional[jax.sharding.NamedSharding]:
  """The replicated sharding on the mesh of the first ``x`` sharded in type.

  The sharding a scalar reduced from such arrays (a contraction over their
  sharded axes) is asked for, or a whole matrix gathered to; None when no
  ``x`` is sharded in its type, where the result needs no sharding given.

  Args:
    *xs: arrays or tracers.

  Returns:
    ``NamedSharding(mesh, PartitionSpec())`` on that array's mesh, or None.
  """
  for x in xs:
    if explicit_spec(x) is not None:
      return jax.sharding.NamedSharding(jax.typeof(x).sharding.mesh,
                                        jax.sharding.PartitionSpec())
  return None
