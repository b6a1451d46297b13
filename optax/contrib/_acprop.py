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
"""ACProp: an adaptive method with a centred, asynchronous second moment."""

import jax
import jax.numpy as jnp

from optax import tree_utils as otu
from optax._src import arguments
from optax._src import base
from optax._src import dtypes
from optax._src import hyperparameters
from optax._src import numerics
from optax._src import prepared_inputs
from optax._src import transform
from optax.transforms import _adding
from optax.transforms import _combining


@arguments.declare(
    b1=arguments.decay_scalar, b2=arguments.decay_scalar,
    eps=arguments.non_negative_scalar, eps_root=arguments.non_negative_scalar)
def scale_by_acprop(
    b1: float = 0.9,
    b2: float = 0.999,
    eps: float = 1e-16,
    eps_root: float = 1e-16,
) -> base.GradientTransformation:
  r"""Rescales updates by the ACProp rule.

  ACProp centres the second moment on the first one, as AdaBelief does, and
  divides the current gradient by the second moment of the *previous* step
  (the asynchronous update, which decouples the step size from the current
  gradient):

  .. math::

    m_t &= \beta_1 m_{t-1} + (1 - \beta_1) g_t, \\
    s_t &= \beta_2 s_{t-1} + (1 - \beta_2) |g_t - m_t|^2
      + \epsilon_{\text{root}}, \\
    u_t &= g_t / \left(\sqrt{s_{t-1} / (1 - \beta_2^{t-1})} + \epsilon
      \right),

  for :math:`t \geq 2`; at the first step, where no second moment exists
  yet, :math:`u_1 = g_1 / (1 + \epsilon)`. The first moment is only used to
  centre the second one: the residual :math:`g_t - m_t` is taken against the
  first moment just updated, as in the authors' reference implementation
  (AdaBelief measures it the same way).

  Args:
    b1: decay rate :math:`\beta_1` of the first moment, in [0, 1).
    b2: decay rate :math:`\beta_2` of the centred second moment, in [0, 1).
    eps: term :math:`\epsilon` added to the denominator outside the root.
    eps_root: term :math:`\epsilon_{\text{root}}` added to the second moment
      at every step (it is part of the state).

  Returns:
    A ``GradientTransformation`` whose state is a
    :class:`optax.ScaleByBeliefState`.

  Raises:
    TypeError: for a hyperparameter that is not a scalar (a vector, a
      string).
    ValueError: if a Python-number ``b1`` or ``b2`` is outside [0, 1) or
      ``eps`` or ``eps_root`` is negative.

  Examples:
    >>> import jax.numpy as jnp
    >>> from optax.contrib import _acprop
    >>> tx = _acprop.scale_by_acprop(b1=0.5)
    >>> state = tx.init(jnp.zeros(2))
    >>> u, state = tx.update(jnp.array([2.0, -0.5]), state)
    >>> u, state = tx.update(jnp.array([1.0, 1.0]), state)
    >>> u
    Array([1., 4.], dtype=float32)

  References:
    Zhuang, Ding, Tang, Dvornek, Tatikonda and Duncan, `Momentum Centering
    and Asynchronous Update for Adaptive Gradient Methods
    <https://arxiv.org/abs/2110.05454>`_, 2021.

  .. seealso:: :func:`acprop`, :func:`optax.scale_by_belief`
  """

  def init_fn(params):
    return transform.ScaleByBeliefState(
        count=jnp.zeros([], jnp.int32),
        mu=otu.tree_zeros_like(params),
        nu=otu.tree_zeros_like(params))

  def update_fn(updates, state, params=None):
    del params
    beta1 = hyperparameters.as_hyperparameter(b1)
    beta2 = hyperparameters.as_hyperparameter(b2)
    epsilon = hyperparameters.as_hyperparameter(eps)
    epsilon_root = hyperparameters.as_hyperparameter(eps_root)
    first = state.count == 0
    # Bias correction of the previous second moment; none exists at step 1.
    correction = 1 - beta2 ** state.count.astype(beta2.dtype)
    correction = jnp.where(first, jnp.ones_like(correction), correction)

    def leaf_error(g, m):
      dtype = dtypes.promote_dtypes(g.dtype, m.dtype)
      return g.astype(dtype) - m.astype(dtype)

    mu = otu.tree_update_moment(updates, state.mu, beta1, 1)
    # The residual is measured against the moment just updated, m_t.
    errors = jax.tree.map(leaf_error, updates, mu)
    nu = otu.tree_update_moment_per_elem_norm(errors, state.nu, beta2, 2)
    nu = jax.tree.map(
        lambda v: (
            v.astype(dtypes.promote_dtypes(v.dtype, epsilon_root.dtype))
            + epsilon_root).astype(v.dtype), nu)

    def leaf_scale(g, v_prev):
      dtype = dtypes.promote_dtypes(g.dtype, v_prev.dtype, epsilon.dtype)
      # s_{t-1} >= eps_root: each step adds it. A float16 state loses it
      # (1e-16 is 0 there) and a small gradient over sqrt(0) + eps
      # overflowed; the bound changes nothing where s keeps eps_root.
      v_prev = dtypes.at_least(v_prev.astype(dtype), epsilon_root)
      v_hat = v_prev / correction.astype(dtype)
      root = jnp.where(first, jnp.ones_like(v_hat), jnp.sqrt(v_hat))
      return (g.astype(dtype) / (root + epsilon.astype(dtype))).astype(
          g.dtype)

    new_updates = jax.tree.map(leaf_scale, updates, state.nu)
    return new_updates, transform.ScaleByBeliefState(
        count=numerics.safe_increment(state.count), mu=mu, nu=nu)

  return prepared_inputs.with_prepared_inputs(
      'scale_by_acprop', base.GradientTransformation(init_fn, update_fn))


@arguments.declare(learning_rate=arguments.learning_rate)
def acprop(
    learning_rate: base.ScalarOrSchedule,
    b1: float = 0.9,
    b2: float = 0.999,
    eps: float = 1e-16,
    eps_root: float = 1e-16,
    weight_decay: float = 0.0,
    mask: base.MaskOrFn = None,
) -> base.GradientTransformationExtraArgs:
  r"""The ACProp optimizer, with optional decoupled weight decay.

  .. math::

    \theta_{t} = \theta_{t-1} - \eta_t \left(u_t + \lambda \theta_{t-1}
      \right),

  where :math:`u_t` is the direction of :func:`scale_by_acprop` and
  :math:`\lambda` the weight decay.

  Args:
    learning_rate: the learning rate :math:`\eta`, a number or a schedule.
    b1: decay rate of the first moment.
    b2: decay rate of the centred second moment.
    eps: term added to the denominator outside the root.
    eps_root: term added to the second moment at every step.
    weight_decay: :math:`\lambda`, the decay of the params added to the
      direction (decoupled from the moments).
    mask: which params are decayed: booleans shaped like the params, or a
      function of the params that returns them.

  Returns:
    A ``GradientTransformationExtraArgs`` whose ``update`` takes the params
    (for the weight decay).

  Examples:
    The first step divides by :math:`1 + \epsilon` only; the second by the
    centred second moment of the first (the asynchronous update):

    >>> import jax.numpy as jnp
    >>> import optax
    >>> params = jnp.array([1.0, -2.0])
    >>> opt = optax.contrib.acprop(learning_rate=0.1, weight_decay=0.5)
    >>> state = opt.init(params)
    >>> for g in (jnp.array([2.0, -4.0]), jnp.array([1.0, 1.0])):
    ...   updates, state = opt.update(g, state, params)
    ...   print(updates.round(4))
    [-0.25  0.5 ]
    [-0.1056  0.0722]

  References:
    Zhuang, Ding, Tang, Dvornek, Tatikonda and Duncan, `Momentum Centering
    and Asynchronous Update for Adaptive Gradient Methods
    <https://arxiv.org/abs/2110.05454>`_, 2021.

  .. seealso:: :func:`scale_by_acprop`
  """
  return _combining.chain(
      scale_by_acprop(b1=b1, b2=b2, eps=eps, eps_root=eps_root),
      _adding.add_decayed_weights(weight_decay, mask),
      transform.scale_by_learning_rate(learning_rate),
  )
