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
"""Accumulation of updates emitted every ``k`` steps (:func:`apply_every`).

Upstream Optax defines :func:`apply_every` and its state in
``optax._src.transform``, which re-exports them and gives them that
``__module__`` so that pickles name the same module.

.. seealso:: :class:`optax.MultiSteps`, which also skips the inner optimizer
  between emissions.
"""

from typing import NamedTuple

import jax
import jax.numpy as jnp

from optax import tree_utils as otu
from optax._src import base
from optax._src import hyperparameters


class ApplyEvery(NamedTuple):
  """State of :func:`apply_every`.

  Attributes:
    count: int32 scalar, the position in the current cycle of ``k`` steps.
    grad_acc: the sum of the updates of the current cycle, shaped and typed
      like the params.
  """

  count: jax.Array
  grad_acc: base.Updates


def apply_every(k: int = 1) -> base.GradientTransformation:
  r"""Accumulates updates and emits their sum every ``k`` steps.

  At steps :math:`k, 2k, \ldots` the update is the sum of the last ``k``
  incoming updates; at the other steps it is zero.

  Args:
    k: the length of the accumulation cycle (at least 1).

  Returns:
    A ``GradientTransformation`` whose state is an ``ApplyEvery``.

  Raises:
    ValueError: if ``k`` is not an integer >= 1.

  Examples:
    >>> import jax.numpy as jnp
    >>> from optax._src import transform
    >>> tx = transform.apply_every(k=2)
    >>> state = tx.init(jnp.zeros(2))
    >>> for g in ([1.0, 2.0], [3.0, 4.0], [5.0, 6.0]):
    ...   u, state = tx.update(jnp.array(g), state)
    ...   print(u)  # the sum every second step, zeros in between
    [0. 0.]
    [4. 6.]
    [0. 0.]

  .. seealso:: :class:`optax.MultiSteps`, which also skips the inner
    optimizer between emissions.
  """
  fn = 'apply_every'
  if not hyperparameters.is_number(k, integral=True) or k < 1:
    raise ValueError(f'{fn}: k must be an integer >= 1, got {k!r}')
  k = int(k)

  def init_fn(params):
    return ApplyEvery(
        count=jnp.zeros([], jnp.int32),
        grad_acc=otu.tree_zeros_like(params))

  def update_fn(updates, state, params=None):
    del params
    start = state.count == 0
    emit = state.count == k - 1
    grad_acc = jax.tree.map(
        lambda g, acc: jnp.where(
            start, g.astype(acc.dtype), acc + g.astype(acc.dtype)),
        updates, state.grad_acc)
    new_updates = jax.tree.map(
        lambda g, acc: jnp.where(emit, acc, jnp.zeros_like(acc)).astype(
            g.dtype),
        updates, grad_acc)
    count = jnp.where(emit, jnp.zeros_like(state.count), state.count + 1)
    return new_updates, ApplyEvery(count=count, grad_acc=grad_acc)

  return base.GradientTransformation(init_fn, update_fn)
