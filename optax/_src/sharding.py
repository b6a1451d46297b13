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
"""Sharding helpers: the partition spec that is part of an array's type.

Used where a transformation must keep a leaf sharded over an explicit mesh
axis (``jax.sharding.AxisType.Explicit``) in its own sharding.
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
