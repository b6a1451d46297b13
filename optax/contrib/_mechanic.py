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
"""Mechanic: a learning-rate tuner wrapped around any optimizer.

Mechanic (Cutkosky, Defazio and Mehta, 2023) scales the total displacement
of a base optimizer from the initial params by a factor :math:`s` learned
online with a few coin-betting (parameter-free) learners, one per decay
:math:`\\beta`.
"""

from typing import NamedTuple

import jax
import jax.numpy as jnp
import numpy as np

from optax import tree_utils as otu
from optax._src import arguments
from optax._src import base
from optax._src import hyperparameters
from optax._src import numerics
from optax._src import prepared_inputs
from optax._src import validation


class MechanicState(NamedTuple):
  """State of :func:`mechanize`.

  Attributes:
    base_optimizer_state: the state of the base optimizer.
    count: int32 scalar, the number of updates done so far.
    r: shape ``(num_betas,)``, the wealth of each learner (may be negative).
    m: shape ``(num_betas,)``, the decayed maximum of :math:`|h|`.
    v: shape ``(num_betas,)``, the decayed sum of :math:`h^2`.
    s: shape ``(num_betas,)``, the scales; the displacement is multiplied
      by their sum.
    x0: the reference params (those of the first update), shaped like the
      params.

  ``r``, ``m``, ``v`` and ``s`` have the lowest-precision dtype of the
  params.
  """

  base_optimizer_state: base.OptState
  count: jax.Array
  r: jax.Array
  m: jax.Array
  v: jax.Array
  s: jax.Array
  x0: base.Params


@arguments.declare(
    num_betas=arguments.positive_int,
    weight_decay=arguments.non_negative_scalar,
    eps=arguments.non_negative_scalar, s_init=arguments.non_negative_scalar)
def mechanize(
    base_optimizer: base.GradientTransformation,
    weight_decay: float = 1e-2,
    eps: float = 1e-8,
    s_init: float = 1e-6,
    num_betas: int = 6,
) -> base.GradientTransformationExtraArgs:
  r"""Wraps an optimizer in Mechanic, which learns the scale of its steps.

  With :math:`x_{ref}` the params of the first update, :math:`S_t = \sum_i
  s_{t,i}`, :math:`\Delta_t = (x_t - x_{ref}) / (S_t + \epsilon)` the base
  optimizer's accumulated updates and :math:`g_t` the gradient, each step
  computes, for :math:`\beta_i = 1 - 10^{-i}`, :math:`i = 1, \dots, n`,

  .. math::

    \tilde g_t &= g_t + \lambda S_t \frac{\|g_t\|}{\|x_t\| + \epsilon}
      x_t, \qquad h_t = \langle \tilde g_t, \Delta_t \rangle, \\
    m_t &= \max(\beta m_{t-1}, |h_t| + \epsilon), \qquad
    v_t = \beta^2 v_{t-1} + h_t^2, \\
    r_t &= \beta r_{t-1} - s_t\, \mathrm{clip}(h_t, -m_{t-1}, m_{t-1}), \\
    s_{t+1} &= \frac{s_{init} m_t / n + \max(r_t, 0)}{\sqrt{v_t}
      + \epsilon}, \\
    x_{t+1} &= x_{ref} + S_{t+1} (\Delta_t + u_t),

  where :math:`u_t` is the base optimizer's update; the update returned is
  :math:`x_{t+1} - x_t`. (Clipping :math:`h_t` in the wealth update is not
  in the paper; it keeps the learners stable under large gradients.)

  As :math:`\Delta_t` is recomputed from the params, a first step
  :math:`s_{init} u_1` too small to change the params in their precision
  (e.g. float32 params far from zero with the default ``s_init``) leaves
  :math:`\Delta` at zero and the scale at :math:`s_{init}`; raise
  ``s_init`` then.

  Args:
    base_optimizer: the optimizer whose steps are scaled.
    weight_decay: :math:`\lambda`, the weight decay added to the gradients
      seen by the learners (not those of the base optimizer).
    eps: :math:`\epsilon`.
    s_init: :math:`s_{init}`, the initial scale.
    num_betas: :math:`n`, the number of learners (decays).

  Returns:
    A ``GradientTransformationExtraArgs`` whose state is a
    :class:`MechanicState`; its ``update`` requires ``params`` and passes
    other extra arguments to the base optimizer.

  Raises:
    TypeError: for a hyperparameter that is not a scalar (a vector, a
      string).
    ValueError: if ``num_betas`` is not a positive integer or a
      Python-number ``weight_decay``, ``eps`` or ``s_init`` is negative.

  Examples:
    >>> import jax
    >>> import jax.numpy as jnp
    >>> import optax
    >>> tx = optax.contrib.mechanize(optax.adam(1e-3))
    >>> params = jnp.zeros(2)
    >>> state = tx.init(params)
    >>> loss = lambda w: jnp.sum((w - jnp.array([1.0, -2.0])) ** 2)
    >>> for _ in range(200):
    ...   updates, state = tx.update(jax.grad(loss)(params), state, params)
    ...   params = params + updates
    >>> # Adam's steps of about 1e-3 are scaled up about 19 times.
    >>> print(round(float(jnp.sum(state.s))), jnp.round(params, 1))
    19 [ 1.  -1.9]

  References:
    Cutkosky, Defazio and Mehta, `Mechanic: A Learning Rate Tuner
    <https://arxiv.org/abs/2306.00144>`_, 2023.
  """
  fn = 'mechanize'
  base_optimizer = base.with_extra_args_support(base_optimizer)
  betas_np = 1.0 - 0.1 ** np.arange(1, num_betas + 1)

  def init_fn(params):
    dtype = otu.tree_dtype(params, 'lowest')

    def zeros():  # A fresh buffer per field: the state can be donated.
      return jnp.zeros([num_betas], dtype)

    return MechanicState(
        base_optimizer_state=base_optimizer.init(params),
        count=jnp.zeros([], jnp.int32),
        r=zeros(), m=zeros(), v=zeros(), s=zeros(),
        x0=jax.tree.map(lambda p: jnp.array(p, copy=True), params),
    )

  def update_fn(updates, state, params=None, **extra_args):
    validation.require_params(
        fn, params, call='tx.update(grads, state, params)')
    base_updates, base_state = base_optimizer.update(
        updates, state.base_optimizer_state, params, **extra_args)
    # The reference point is the params of the first update (they may have
    # been replaced, e.g. by pre-trained ones, after init).
    first = state.count == 0
    x0 = jax.tree.map(lambda p, x: jnp.where(first, p, x).astype(x.dtype),
                      params, state.x0)

    dtype = jnp.promote_types(state.s.dtype,
                              hyperparameters.hyperparameter_dtype())
    betas = jnp.asarray(betas_np, dtype)
    eps_ = hyperparameters.as_hyperparameter(eps).astype(dtype)
    s = state.s.astype(dtype)
    s_sum = jnp.sum(s)
    inv_scale = 1 / (s_sum + eps_)

    def leaf_sums(g, p, x):
      # |g|^2, |p|^2, <g, delta>, <p, delta>, with delta = (p - x0) / S.
      g, p, x = g.astype(dtype), p.astype(dtype), x.astype(dtype)
      delta = (p - x) * inv_scale
      return jnp.stack([jnp.sum(g * g), jnp.sum(p * p), jnp.sum(g * delta),
                        jnp.sum(p * delta)])

    g_leaves, treedef = jax.tree.flatten(updates)
    p_leaves = treedef.flatten_up_to(params)
    x0_leaves = treedef.flatten_up_to(x0)
    sums = sum(leaf_sums(g, p, x)
               for g, p, x in zip(g_leaves, p_leaves, x0_leaves))
    grad_norm, param_norm = jnp.sqrt(sums[0]), jnp.sqrt(sums[1])
    decay = (hyperparameters.as_hyperparameter(weight_decay).astype(dtype)
             * s_sum * grad_norm / (param_norm + eps_))
    h = sums[2] + decay * sums[3]

    m_old = state.m.astype(dtype)
    m = jnp.maximum(betas * m_old, jnp.abs(h) + eps_)
    v = betas ** 2 * state.v.astype(dtype) + h ** 2
    r = betas * state.r.astype(dtype) - s * jnp.clip(h, -m_old, m_old)
    wealth = (hyperparameters.as_hyperparameter(s_init).astype(dtype)
              / num_betas * m + jnp.maximum(r, 0))
    new_s = wealth / (jnp.sqrt(v) + eps_)
    new_s_sum = jnp.sum(new_s)

    def new_update(p, x, u):
      p_, x_ = p.astype(dtype), x.astype(dtype)
      new_p = x_ + new_s_sum * ((p_ - x_) * inv_scale + u.astype(dtype))
      return (new_p - p_).astype(p.dtype)

    new_updates = jax.tree.unflatten(treedef, [
        new_update(p, x, u) for p, x, u in zip(
            p_leaves, x0_leaves, treedef.flatten_up_to(base_updates))])
    state_dtype = state.s.dtype
    return new_updates, MechanicState(
        base_optimizer_state=base_state,
        count=numerics.safe_increment(state.count),
        r=r.astype(state_dtype), m=m.astype(state_dtype),
        v=v.astype(state_dtype), s=new_s.astype(state_dtype), x0=x0,
    )

  return prepared_inputs.with_prepared_inputs(
      'mechanize', base.GradientTransformationExtraArgs(init_fn, update_fn))
