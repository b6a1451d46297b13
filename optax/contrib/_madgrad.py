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
"""MADGRAD: a momentumized, adaptive, dual-averaged gradient method."""

from typing import NamedTuple

import jax
import jax.numpy as jnp

from optax import tree_utils as otu
from optax._src import arguments
from optax._src import base
from optax._src import dtypes
from optax._src import hyperparameters
from optax._src import numerics
from optax._src import prepared_inputs
from optax._src import validation
from optax.transforms import _adding
from optax.transforms import _combining


class MadgradState(NamedTuple):
  r"""State of :func:`scale_by_madgrad`.

  Attributes:
    count: int32 scalar, the number of updates done so far.
    grad_sum_sq: weighted sum :math:`\nu` of the squared gradients, shaped
      and typed like the params.
    s: weighted sum of the gradients, shaped and typed like the params.
    x0: the initial params, the centre of the dual averaging (a copy, so
      that the state can be donated).
  """

  count: jax.Array
  grad_sum_sq: base.Updates
  s: base.Updates
  x0: base.Params


@arguments.declare(
    learning_rate=arguments.required_learning_rate,
    momentum=arguments.closed_decay_scalar, eps=arguments.non_negative_scalar)
def scale_by_madgrad(
    learning_rate: base.ScalarOrSchedule,
    momentum: float = 0.9,
    eps: float = 1e-6,
) -> base.GradientTransformation:
  r"""Turns gradients into MADGRAD steps (the learning rate included).

  MADGRAD is dual averaging with a cube-root adaptive scaling and a momentum
  obtained by averaging the iterates. With :math:`k` the number of updates
  done before this one, :math:`\gamma_k` the learning rate, :math:`x_0` the
  initial params, :math:`x_k` the current ones and :math:`c = 1 - `
  ``momentum``:

  .. math::

    \lambda_k &= (\gamma_k + \epsilon) \sqrt{k + 1}, \\
    s_{k+1} &= s_k + \lambda_k g_k, \\
    \nu_{k+1} &= \nu_k + \lambda_k g_k^2, \\
    z_{k+1} &= x_0 - s_{k+1} / (\nu_{k+1}^{1/3} + \epsilon), \\
    x_{k+1} &= (1 - c)\, x_k + c\, z_{k+1},

  and the update is :math:`x_{k+1} - x_k`.

  Args:
    learning_rate: the learning rate :math:`\gamma`, a number or a schedule.
    momentum: the momentum, in [0, 1] (0 gives plain dual averaging).
    eps: term added to the learning rate and to the denominator.

  Returns:
    A ``GradientTransformation`` whose state is a :class:`MadgradState`;
    its ``update`` requires ``params``.

  Raises:
    TypeError: for a hyperparameter that is not a scalar (a vector, a
      string).
    ValueError: if a Python-number ``momentum`` is outside [0, 1] or ``eps``
      is negative; in ``update``, if ``params`` is None.

  Examples:
    >>> import jax.numpy as jnp
    >>> from optax.contrib import _madgrad
    >>> tx = _madgrad.scale_by_madgrad(learning_rate=1.0, momentum=0.0,
    ...                                eps=0.0)
    >>> params = jnp.array([1.0, -8.0])
    >>> u, _ = tx.update(jnp.array([1.0, 8.0]), tx.init(params), params)
    >>> u
    Array([-1., -2.], dtype=float32)

  References:
    Defazio and Jelassi, `Adaptivity without Compromise: A Momentumized,
    Adaptive, Dual Averaged Gradient Method for Stochastic Optimization
    <https://arxiv.org/abs/2101.11075>`_, 2021.

  .. seealso:: :func:`madgrad`
  """
  fn = 'scale_by_madgrad'

  def init_fn(params):
    return MadgradState(
        count=jnp.zeros([], jnp.int32),
        grad_sum_sq=otu.tree_zeros_like(params),
        s=otu.tree_zeros_like(params),
        x0=jax.tree.map(lambda p: jnp.array(p, copy=True), params))

  def update_fn(updates, state, params=None):
    validation.require_params(fn, params, 'MADGRAD averages iterates')
    epsilon = hyperparameters.as_hyperparameter(eps)
    lr = hyperparameters.as_hyperparameter(
        learning_rate(state.count) if callable(learning_rate)
        else learning_rate)
    mom = hyperparameters.as_hyperparameter(momentum)
    hp = epsilon.dtype
    lam = (lr + epsilon) * jnp.sqrt(
        numerics.safe_increment(state.count).astype(hp))
    ck = 1 - mom

    def leaf_update(g, nu, s, x0, p):
      dtype = dtypes.promote_dtypes(
          g.dtype, nu.dtype, s.dtype, x0.dtype, p.dtype, hp)
      g32, p32 = g.astype(dtype), p.astype(dtype)
      lam_, eps_, ck_ = lam.astype(dtype), epsilon.astype(dtype), ck.astype(
          dtype)
      new_s = s.astype(dtype) + lam_ * g32
      new_nu = nu.astype(dtype) + lam_ * g32 * g32
      # The real cube root (cbrt): new_nu is negative with a negative
      # learning rate, where a fractional power would be NaN.
      root = jnp.cbrt(new_nu)
      z = x0.astype(dtype) - new_s / (root + eps_)
      new_p = (1 - ck_) * p32 + ck_ * z
      return ((new_p - p32).astype(g.dtype), new_nu.astype(nu.dtype),
              new_s.astype(s.dtype))

    out = jax.tree.map(
        leaf_update, updates, state.grad_sum_sq, state.s, state.x0, params)

    def pick(i):
      return jax.tree.map(lambda _, t: t[i], updates, out)

    return pick(0), MadgradState(
        count=numerics.safe_increment(state.count),
        grad_sum_sq=pick(1), s=pick(2), x0=state.x0)

  return prepared_inputs.with_prepared_inputs(
      'scale_by_madgrad', base.GradientTransformation(init_fn, update_fn))


@arguments.declare()
def madgrad(
    learning_rate: base.ScalarOrSchedule,
    momentum: float = 0.9,
    weight_decay: float = 0.0,
    eps: float = 1e-6,
) -> base.GradientTransformationExtraArgs:
  r"""The MADGRAD optimizer, with optional weight decay.

  The weight decay :math:`\lambda x_k` is added to the gradient before
  :func:`scale_by_madgrad` (as in the paper's implementation, it is not
  decoupled).

  Args:
    learning_rate: the learning rate, a number or a schedule.
    momentum: the momentum, in [0, 1].
    weight_decay: the coefficient :math:`\lambda` of the weight decay.
    eps: term added to the learning rate and to the denominator.

  Returns:
    A ``GradientTransformationExtraArgs`` whose ``update`` takes the params
    (the step is computed from them and from the first ones, the centre of
    the dual averaging).

  Examples:
    The weight decay joins the gradient, so it changes the first step too:

    >>> import jax.numpy as jnp
    >>> import optax
    >>> params = jnp.array([1.0, -2.0])
    >>> for weight_decay in (0.0, 0.5):
    ...   opt = optax.contrib.madgrad(learning_rate=0.1,
    ...                              weight_decay=weight_decay)
    ...   updates, _ = opt.update(2 * params, opt.init(params), params)
    ...   print([round(float(u), 4) for u in updates])
    [-0.0271, 0.0342]
    [-0.0292, 0.0368]

  References:
    Defazio and Jelassi, `Adaptivity without Compromise: A Momentumized,
    Adaptive, Dual Averaged Gradient Method for Stochastic Optimization
    <https://arxiv.org/abs/2101.11075>`_, 2021.

  .. seealso:: :func:`scale_by_madgrad`
  """
  return _combining.chain(
      _adding.add_decayed_weights(weight_decay),
      scale_by_madgrad(learning_rate, momentum=momentum, eps=eps),
  )
