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
"""The optimistic gradient rule for min-max games.

Upstream Optax defines :func:`scale_by_optimistic_gradient` and its state in
``optax._src.transform``, which re-exports them and gives them that
``__module__`` so that pickles name the same module.
"""

from typing import NamedTuple

import jax
import jax.numpy as jnp

from optax import tree_utils as otu
from optax._src import base
from optax._src import dtypes
from optax._src import hyperparameters
from optax._src import prepared_inputs
from optax._src import tree_structure
from optax._src import validation

_hp = hyperparameters.as_hyperparameter  # Shorthand.


class ScaleByOptimisticGradientState(NamedTuple):
  """State of :func:`scale_by_optimistic_gradient`.

  Attributes:
    is_initial_step: bool scalar, true before the first update.
    previous_gradient: the last gradient seen, shaped and typed like the
      params.
  """

  is_initial_step: jax.Array
  previous_gradient: base.Updates


def scale_by_optimistic_gradient(
    alpha: float = 1.0,
    beta: float = 1.0,
) -> base.GradientTransformation:
  r"""Rescales updates by the optimistic gradient rule.

  .. math::

    u_t = (\alpha + \beta) g_t - \beta g_{t-1},

  with :math:`g_0 = g_1` (so the first update is :math:`\alpha g_1`). With
  ``alpha = beta = 1`` this is the optimistic gradient descent of
  Daskalakis et al.; it is useful for min-max games.

  Args:
    alpha: weight :math:`\alpha` of the current gradient.
    beta: weight :math:`\beta` of the gradient difference.

  Returns:
    A ``GradientTransformation`` whose state is a
    ``ScaleByOptimisticGradientState``.

  Examples:
    >>> import jax.numpy as jnp
    >>> from optax._src import transform
    >>> tx = transform.scale_by_optimistic_gradient(alpha=1.0, beta=1.0)
    >>> state = tx.init(jnp.zeros(2))
    >>> first, state = tx.update(jnp.array([1.0, 2.0]), state)  # g_1
    >>> second, _ = tx.update(jnp.array([2.0, 2.0]), state)  # 2 g_2 - g_1
    >>> first, second
    (Array([1., 2.], dtype=float32), Array([3., 2.], dtype=float32))

  References:
    Daskalakis, Ilyas, Syrgkanis and Zeng, `Training GANs with Optimism
    <https://arxiv.org/abs/1711.00141>`_, 2017.

    Mokhtari, Ozdaglar and Pattathil, `A Unified Analysis of Extra-gradient
    and Optimistic Gradient Methods for Saddle Point Problems
    <https://arxiv.org/abs/1901.08511>`_, 2019.
  """
  fn = 'scale_by_optimistic_gradient'
  validation.check_scalars_or_schedules(fn, alpha=alpha, beta=beta)

  def init_fn(params):
    return ScaleByOptimisticGradientState(
        is_initial_step=jnp.ones([], jnp.bool_),
        previous_gradient=otu.tree_zeros_like(params))

  def update_fn(updates, state, params=None):
    tree_structure.check_like_updates(fn, updates, state.previous_gradient)
    del params
    a, b = _hp(alpha), _hp(beta)
    a_plus_b = a + b

    def direction(g, prev):
      prev = jnp.where(state.is_initial_step, g, prev.astype(g.dtype))
      x, y, ab, b_ = dtypes.lift(g, prev, a_plus_b, b)
      return (ab * x - b_ * y).astype(g.dtype)

    new_updates = jax.tree.map(direction, updates, state.previous_gradient)
    prev = jax.tree.map(
        lambda g, p: g.astype(p.dtype), updates, state.previous_gradient)
    return new_updates, ScaleByOptimisticGradientState(
        is_initial_step=jnp.zeros([], jnp.bool_), previous_gradient=prev)

  return prepared_inputs.with_prepared_inputs(
      fn, base.GradientTransformation(init_fn, update_fn))
