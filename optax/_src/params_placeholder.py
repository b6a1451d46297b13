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
"""The stand-in for the params that ``tree_map_params`` passes to ``init``.

``optax.tree_utils.tree_map_params`` finds the params-shaped parts of a state
by calling the optimizer's ``init`` on a :class:`ParamsPlaceholder`. Wrappers
whose ``init`` reads the params' structure (masks, partition labels) ask
:func:`is_params_placeholder` first and pass the placeholder on unchanged.
"""

from typing import Any

import jax


class ParamsPlaceholder:
  """A pytree node without children standing for the params.

  ``jax.tree.map(fn, placeholder)`` returns a placeholder, so every
  params-shaped part of a state built from it is a placeholder.

  Examples:
    >>> import jax
    >>> from optax._src import params_placeholder
    >>> jax.tree.map(lambda x: x + 1, params_placeholder.ParamsPlaceholder())
    ParamsPlaceholder()
  """

  def __repr__(self) -> str:
    return 'ParamsPlaceholder()'


jax.tree_util.register_pytree_node(
    ParamsPlaceholder,
    lambda _: ((), None),
    lambda _aux, _children: ParamsPlaceholder(),
)


def is_params_placeholder(x: Any) -> bool:
  """Whether ``x`` is the placeholder ``tree_map_params`` passes to ``init``.

  Args:
    x: anything.

  Returns:
    True for a :class:`ParamsPlaceholder`.
  """
  return isinstance(x, ParamsPlaceholder)
