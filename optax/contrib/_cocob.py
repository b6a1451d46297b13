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
"""COCOB: learning-rate-free training by coin betting."""

from typing import NamedTuple

import jax
import jax.numpy as jnp

from optax import tree_utils as otu
from optax._src import arguments
from optax._src import base
from optax._src import dtypes
from optax._src import hyperparameters
from optax._src import prepared_inputs
from optax._src import transform
from optax._src import validation
from optax.transforms import _adding
from optax.transforms import _combining


class COCOBState(NamedTuple):
  r"""State of :func:`scale_by_cocob`.

  Every field is shaped and typed like the params.

  Attributes:
    init_particles: the initial params :math:`w_1` (a copy, so that the
      state can be donated).
    cumulative_gradients: the sum of the negated gradients, :math:`\theta`.
    scale: the largest gradient magnitude seen so far, :math:`L` (starts at
      ``eps``).
    subgradients: the sum of the gradient magnitudes, :math:`G`.
    reward: the gambler's wealth gained so far, :math:`R`.
  """

  init_particles: base.Updates
  cumulative_gradients: base.Updates
  scale: base.Updates
  subgradients: base.Updates
  reward: base.Updates


@arguments.declare(alpha=arguments.non_negative_scalar,
                   eps=arguments.non_negative_scalar)
def scale_by_cocob(
    alpha: float = 100.0,
    eps: float = 1e-8,
) -> base.GradientTransformation:
  r"""Turns gradients into COCOB-Backprop steps (coin betting, no step size).

  Each coordinate bets a fraction of its wealth on the sign of the negated
  gradient. With :math:`w_t` the current params, :math:`w_1` the initial
  ones and :math:`g_t` the gradient:

  .. math::

    L_t &= \max(L_{t-1}, |g_t|), \quad L_0 = \epsilon, \\
    G_t &= G_{t-1} + |g_t|, \\
    R_t &= \max(R_{t-1} - g_t (w_t - w_1), 0), \\
    \theta_t &= \theta_{t-1} - g_t, \\
    w_{t+1} &= w_1 + \frac{\theta_t}{L_t \max(G_t + L_t, \alpha L_t)}
      (L_t + R_t),

  and the update is :math:`w_{t+1} - w_t`. The update needs the params.

  Args:
    alpha: the bound :math:`\alpha` on the growth of the bet fraction at the
      start (the paper uses 100).
    eps: the initial scale :math:`L_0`; it keeps the first bets finite for
      coordinates whose gradient is still zero.

  Returns:
    A ``GradientTransformation`` whose state is a :class:`COCOBState`.

  Raises:
    TypeError: for a hyperparameter that is not a scalar (a vector, a
      string).
    ValueError: if a Python-number ``alpha`` or ``eps`` is negative, or, in
      ``update``, if ``params`` is None.

  Examples:
    >>> import jax.numpy as jnp
    >>> from optax.contrib import _cocob
    >>> tx = _cocob.scale_by_cocob(alpha=2.0)
    >>> params = jnp.array([1.0, -1.0])
    >>> u, state = tx.update(jnp.array([2.0, -0.5]), tx.init(params), params)
    >>> u
    Array([-0.5,  0.5], dtype=float32)

  References:
    Orabona and Tommasi, `Training Deep Networks without Learning Rates
    Through Coin Betting <https://arxiv.org/abs/1705.07795>`_, 2017.

  .. seealso:: :func:`cocob`
  """
  fn = 'scale_by_cocob'

  def init_fn(params):
    epsilon = hyperparameters.as_hyperparameter(eps)
    return COCOBState(
        init_particles=jax.tree.map(lambda p: jnp.array(p, copy=True), params),
        cumulative_gradients=otu.tree_zeros_like(params),
        scale=jax.tree.map(
            lambda p: jnp.full_like(p, epsilon.astype(p.dtype)), params),
        subgradients=otu.tree_zeros_like(params),
        reward=otu.tree_zeros_like(params))

  def update_fn(updates, state, params=None):
    validation.require_params(
        fn, params, 'COCOB bets relative to the initial params')
    bound = hyperparameters.as_hyperparameter(alpha)
    epsilon = hyperparameters.as_hyperparameter(eps)

    def leaf_update(g, p, w1, theta, lmax, gsum, reward):
      dtype = dtypes.promote_dtypes(g.dtype, p.dtype, w1.dtype, bound.dtype)
      g32, p32, w132 = g.astype(dtype), p.astype(dtype), w1.astype(dtype)
      abs_g = jnp.abs(g32)
      # L is a running maximum from L_0 = eps, so L >= eps; a float16 state
      # loses eps (1e-8 is 0 there) and a zero gradient gave 0 / 0. The
      # bound changes nothing where the stored L keeps eps.
      new_l = dtypes.at_least(jnp.maximum(lmax.astype(dtype), abs_g),
                              epsilon)
      new_gsum = gsum.astype(dtype) + abs_g
      new_reward = jnp.maximum(reward.astype(dtype) - g32 * (p32 - w132), 0)
      new_theta = theta.astype(dtype) - g32
      denom = new_l * jnp.maximum(new_gsum + new_l, bound.astype(dtype) * new_l)
      new_p = w132 + new_theta / denom * (new_l + new_reward)
      return ((new_p - p32).astype(g.dtype),
              new_theta.astype(theta.dtype), new_l.astype(lmax.dtype),
              new_gsum.astype(gsum.dtype), new_reward.astype(reward.dtype))

    out = jax.tree.map(
        leaf_update, updates, params, state.init_particles,
        state.cumulative_gradients, state.scale, state.subgradients,
        state.reward)

    def pick(i):
      return jax.tree.map(lambda _, t: t[i], updates, out)

    return pick(0), COCOBState(
        init_particles=state.init_particles,
        cumulative_gradients=pick(1),
        scale=pick(2),
        subgradients=pick(3),
        reward=pick(4))

  return prepared_inputs.with_prepared_inputs(
      'scale_by_cocob', base.GradientTransformation(init_fn, update_fn))


@arguments.declare(learning_rate=arguments.learning_rate)
def cocob(
    learning_rate: base.ScalarOrSchedule = 1.0,
    alpha: float = 100.0,
    eps: float = 1e-8,
    weight_decay: float = 0.0,
    mask: base.MaskOrFn = None,
) -> base.GradientTransformationExtraArgs:
  r"""The COCOB-Backprop optimizer, with optional weight decay.

  The gradient, plus :math:`\lambda w_t` when there is weight decay, is
  multiplied by ``learning_rate`` (1 by default: COCOB needs no step size)
  and given to :func:`scale_by_cocob`.

  Args:
    learning_rate: a factor applied to the gradients before betting, a
      number or a schedule.
    alpha: the bound on the growth of the bet fraction at the start.
    eps: the initial scale of each coordinate.
    weight_decay: :math:`\lambda`; :math:`\lambda \theta` is added to the
      gradient before the bet (coupled weight decay).
    mask: the params that get the weight decay, as a tree of booleans or a
      function of the params.

  Returns:
    A ``GradientTransformationExtraArgs``: COCOB bets relative to the
    initial params, so ``update`` needs them.

  Examples:
    No step size is tuned: on :math:`\|\theta\|^2` the bets move the
    params towards 0 at a pace set by the gradients seen.

    >>> import jax.numpy as jnp
    >>> import optax
    >>> opt = optax.contrib.cocob(alpha=2.0)
    >>> params = jnp.array([1.0, -1.0])
    >>> state = opt.init(params)
    >>> for _ in range(3):
    ...   updates, state = opt.update(2 * params, state, params)
    ...   params = optax.apply_updates(params, updates)
    >>> print(params.round(4))
    [ 0.0852 -0.0852]

  References:
    Orabona and Tommasi, `Training Deep Networks without Learning Rates
    Through Coin Betting <https://arxiv.org/abs/1705.07795>`_, 2017.

  .. seealso:: :func:`scale_by_cocob`
  """
  return _combining.chain(
      _adding.add_decayed_weights(weight_decay, mask),
      transform.scale_by_learning_rate(learning_rate, flip_sign=False),
      scale_by_cocob(alpha=alpha, eps=eps),
  )
