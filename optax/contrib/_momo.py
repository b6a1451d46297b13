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
"""MoMo: adaptive step sizes from a momentum model of the loss.

Both optimizers need the loss value at the current params: call
``update(updates, state, params, value=loss)``.
"""

from typing import Any, NamedTuple

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


def _vdot(tree_x: Any, tree_y: Any, dtype: jnp.dtype) -> jax.Array:
  """Sum of the entrywise products of two trees, accumulated in ``dtype``."""
  def leaf(x, y):
    dt = dtypes.promote_dtypes(x.dtype, y.dtype, dtype)
    return jnp.sum(x.astype(dt) * y.astype(dt)).astype(dtype)
  return otu.tree_sum(jax.tree.map(leaf, tree_x, tree_y))


def _scalar_dtype() -> jnp.dtype:
  """The dtype of the scalar statistics: float32, float64 under x64."""
  # Never the params' dtype: a bfloat16 loss average keeps 8 bits.
  return hyperparameters.hyperparameter_dtype()


def _check_value(fn: str, value: Any) -> None:
  if value is None:
    raise ValueError(
        f'{fn}: update needs the loss at the current params as the keyword'
        f' argument value. Remedy: call tx.update(grads, state, params,'
        ' value=loss).')


def _require_params(fn: str, params: Any) -> None:
  validation.require_params(
      fn, params, 'the model of the loss is built at the current params',
      'tx.update(grads, state, params, value=loss)')


def _learning_rate_at(fn: str, learning_rate: Any, count: jax.Array,
                      params: Any, value: Any) -> jax.Array:
  """The learning rate of this step, after checking update's arguments."""
  _require_params(fn, params)
  _check_value(fn, value)
  return hyperparameters.at_step(learning_rate, count)


def _initial_scalars(lower_bound: Any) -> dict[str, jax.Array]:
  """The scalar fields of the state at step 0: barf, gamma, lb and count."""
  dtype = _scalar_dtype()
  return dict(barf=jnp.zeros([], dtype), gamma=jnp.zeros([], dtype),
              lb=jnp.asarray(lower_bound, dtype),
              count=jnp.zeros([], jnp.int32))


def _next_lower_bound(adapt: bool, floor: jax.Array, h: jax.Array,
                      tau: jax.Array, sq_norm: jax.Array,
                      lb: jax.Array) -> jax.Array:
  """The lower bound of the next step: raised to the model's, if adapted."""
  if adapt:
    return jnp.maximum(floor, h - tau * sq_norm / 2)
  return lb


def _step_size(nom, sq_norm, lr):
  """``min(lr, max(nom, 0) / sq_norm)``, with ``0 / 0`` read as 0."""
  ratio = jnp.maximum(nom, 0) / jnp.where(
      sq_norm > 0, sq_norm, jnp.ones_like(sq_norm))
  ratio = jnp.where(sq_norm > 0, ratio,
                    jnp.where(nom > 0, jnp.inf, 0).astype(ratio.dtype))
  return jnp.minimum(lr, ratio)


def _lower_bound(state_lb, level, lower_bound, adapt):
  """The lower bound of the loss used at this step.

  Args:
    state_lb: the current estimate.
    level: what the estimate is compared with, ``fbar - gamma + <d, x> /
      (1 + lr wd)`` (``h`` when there is no weight decay).
    lower_bound: the floor of the estimate (the user's ``lower_bound``).
    adapt: whether the bound is estimated online.

  Returns:
    The bound to use.
  """
  if not adapt:
    return lower_bound
  # An estimate above the model value is reset (to at least half of it).
  return jnp.where(state_lb > level, jnp.maximum(lower_bound, level / 2),
                   state_lb)


class MomoState(NamedTuple):
  """State of :func:`momo`.

  Attributes:
    exp_avg: EMA :math:`d` of the gradients, shaped and typed like the
      params.
    barf: scalar, EMA :math:`\\bar f` of the loss values.
    gamma: scalar, EMA :math:`\\gamma` of :math:`\\langle g_k, x_k \\rangle`.
    lb: scalar, the lower bound of the loss (with
      ``adapt_lower_bound=True``, its current estimate).
    count: int32 scalar, the number of updates done so far.

  ``barf``, ``gamma`` and ``lb`` are float32 (float64 under x64) whatever the
  params' dtypes.
  """

  exp_avg: base.Updates
  barf: jax.Array
  gamma: jax.Array
  lb: jax.Array
  count: jax.Array


@arguments.declare(
    learning_rate=arguments.required_learning_rate,
    beta=arguments.closed_decay_scalar,
    lower_bound=arguments.scalar_or_schedule,
    weight_decay=arguments.scalar_or_schedule)
def momo(
    learning_rate: base.ScalarOrSchedule = 1.0,
    beta: float = 0.9,
    lower_bound: float = 0.0,
    weight_decay: float = 0.0,
    adapt_lower_bound: bool = False,
) -> base.GradientTransformationExtraArgs:
  r"""MoMo: SGD with momentum and a Polyak-like adaptive step size.

  MoMo averages the gradients, the loss values and the inner products
  :math:`\langle g_k, x_k \rangle` into a model of the loss,
  :math:`f(x) \approx \bar f_k + \langle d_k, x - x_k \rangle + \langle d_k,
  x_k \rangle - \gamma_k`, truncated below by a lower bound :math:`f_*`,
  and takes a proximal step on that model:

  .. math::

    d_k &= \beta d_{k-1} + (1 - \beta) g_k, \\
    \bar f_k &= \beta \bar f_{k-1} + (1 - \beta) f(x_k), \\
    \gamma_k &= \beta \gamma_{k-1} + (1 - \beta) \langle g_k, x_k \rangle, \\
    \tau_k &= \min\left(\alpha_k, \frac{\left(\langle d_k, x_k \rangle +
      (1 + \alpha_k \lambda)(\bar f_k - \gamma_k - f_*)\right)_+}
      {\|d_k\|^2}\right), \\
    x_{k+1} &= \frac{x_k - \tau_k d_k}{1 + \alpha_k \lambda},

  with :math:`\alpha_k` the learning rate and :math:`\lambda` the weight
  decay. The first step uses :math:`d_0 = g_0`, :math:`\bar f_0 = f(x_0)`,
  :math:`\gamma_0 = \langle g_0, x_0 \rangle`.

  With ``adapt_lower_bound=True``, :math:`f_*` is estimated online, starting
  from ``lower_bound``: with :math:`h_k = \bar f_k + \langle d_k, x_k
  \rangle - \gamma_k` and :math:`\ell_k = \bar f_k - \gamma_k + \langle d_k,
  x_k \rangle / (1 + \alpha_k \lambda)` (:math:`h_k` when :math:`\lambda =
  0`), an estimate above :math:`\ell_k` is first reset to :math:`\max(`
  ``lower_bound`` :math:`, \ell_k / 2)`, and after the step the estimate
  becomes :math:`\max(` ``lower_bound`` :math:`, h_k - \tfrac12 \tau_k
  \|d_k\|^2)`.

  ``update`` needs the loss at the current params:
  ``update(grads, state, params, value=loss)``.

  Args:
    learning_rate: the largest step size :math:`\alpha`, a number or a
      schedule.
    beta: the momentum :math:`\beta`, in [0, 1].
    lower_bound: a lower bound :math:`f_*` of the loss (0 for non-negative
      losses).
    weight_decay: the coefficient :math:`\lambda` of the weight decay.
    adapt_lower_bound: whether to estimate the lower bound online.

  Returns:
    A ``GradientTransformationExtraArgs`` whose state is a
    :class:`MomoState`.

  Raises:
    TypeError: for a hyperparameter that is not a scalar (a vector, a
      string).
    ValueError: if a Python-number ``beta`` is outside [0, 1]; in
      ``update``, if ``params`` or ``value`` is missing.

  Examples:
    >>> import jax
    >>> import jax.numpy as jnp
    >>> from optax.contrib import _momo
    >>> loss = lambda x: jnp.sum(x ** 2)
    >>> opt = _momo.momo()
    >>> params = jnp.array([1.0, -2.0])
    >>> value, grad = jax.value_and_grad(loss)(params)
    >>> updates, _ = opt.update(grad, opt.init(params), params, value=value)
    >>> updates
    Array([-0.5,  1. ], dtype=float32)

  References:
    Schaipp, Ohana, Eickenberg, Defazio and Gower, `MoMo: Momentum Models
    for Adaptive Learning Rates <https://arxiv.org/abs/2305.07583>`_, 2023.

  .. seealso:: :func:`momo_adam`, :func:`optax.polyak_sgd`
  """
  fn = 'momo'

  def init_fn(params):
    return MomoState(exp_avg=otu.tree_zeros_like(params),
                     **_initial_scalars(lower_bound))

  def update_fn(updates, state, params=None, *, value=None, **extra_args):
    del extra_args
    count = state.count
    lr = _learning_rate_at(fn, learning_rate, count, params, value)
    hp = lr.dtype
    decay = hyperparameters.as_hyperparameter(weight_decay)
    floor = hyperparameters.as_hyperparameter(lower_bound)
    rho = jnp.where(count == 0, jnp.zeros([], hp),
                    hyperparameters.as_hyperparameter(beta))
    exp_avg = otu.tree_update_moment(updates, state.exp_avg, rho, 1)
    loss = jnp.asarray(value).astype(hp)
    barf = rho * state.barf.astype(hp) + (1 - rho) * loss
    gamma = (rho * state.gamma.astype(hp)
             + (1 - rho) * _vdot(updates, params, hp))
    dot = _vdot(exp_avg, params, hp)
    sq_norm = _vdot(exp_avg, exp_avg, hp)
    h = barf + dot - gamma
    shrink = 1 + lr * decay
    lb = _lower_bound(state.lb.astype(hp), barf - gamma + dot / shrink, floor,
                      adapt_lower_bound)
    nom = dot + shrink * (barf - gamma - lb)
    tau = _step_size(nom, sq_norm, lr)

    def leaf_update(g, p, d):
      dtype = dtypes.promote_dtypes(p.dtype, d.dtype, hp)
      p32 = p.astype(dtype)
      # The proximal step of the weight decay divides the whole step (Lemma
      # 3.1, eq. (16) of the paper), which tau was derived for.
      new_p = (p32 - tau.astype(dtype) * d.astype(dtype)) / shrink.astype(
          dtype)
      return (new_p - p32).astype(g.dtype)

    new_updates = jax.tree.map(leaf_update, updates, params, exp_avg)
    new_lb = _next_lower_bound(adapt_lower_bound, floor, h, tau, sq_norm,
                               state.lb)
    return new_updates, MomoState(
        exp_avg=exp_avg,
        barf=barf.astype(state.barf.dtype),
        gamma=gamma.astype(state.gamma.dtype),
        lb=jnp.asarray(new_lb).astype(state.lb.dtype),
        count=numerics.safe_increment(count))

  return prepared_inputs.with_prepared_inputs(
      'momo', base.GradientTransformationExtraArgs(init_fn, update_fn))


class MomoAdamState(NamedTuple):
  """State of :func:`momo_adam`.

  Attributes:
    exp_avg: EMA of the gradients, shaped and typed like the params.
    exp_avg_sq: EMA of the squared gradients, shaped and typed like the
      params.
    barf: scalar, EMA of the loss values.
    gamma: scalar, EMA of :math:`\\langle g_k, x_k \\rangle`.
    lb: scalar, the lower bound of the loss (with
      ``adapt_lower_bound=True``, its current estimate).
    count: int32 scalar, the number of updates done so far.

  ``barf``, ``gamma`` and ``lb`` are float32 (float64 under x64) whatever the
  params' dtypes.
  """

  exp_avg: base.Updates
  exp_avg_sq: base.Updates
  barf: jax.Array
  gamma: jax.Array
  lb: jax.Array
  count: jax.Array


@arguments.declare(
    learning_rate=arguments.required_learning_rate, b1=arguments.decay_scalar,
    b2=arguments.decay_scalar, eps=arguments.non_negative_scalar,
    lower_bound=arguments.scalar_or_schedule,
    weight_decay=arguments.scalar_or_schedule)
def momo_adam(
    learning_rate: base.ScalarOrSchedule = 1e-2,
    b1: float = 0.9,
    b2: float = 0.999,
    eps: float = 1e-8,
    lower_bound: float = 0.0,
    weight_decay: float = 0.0,
    adapt_lower_bound: bool = False,
) -> base.GradientTransformationExtraArgs:
  r"""MoMo-Adam: Adam with a MoMo adaptive step size.

  The model of :func:`momo` is built with Adam's bias-corrected moments and
  the step is preconditioned by Adam's diagonal
  :math:`D_k = \epsilon + \sqrt{v_k / (1 - \beta_2^{k+1})}`. With
  :math:`\hat{\cdot} = \cdot / (1 - \beta_1^{k+1})` and :math:`k` the
  number of updates done before this one:

  .. math::

    m_k &= \beta_1 m_{k-1} + (1 - \beta_1) g_k, \quad
    v_k = \beta_2 v_{k-1} + (1 - \beta_2) g_k^2, \\
    \bar f_k &= \beta_1 \bar f_{k-1} + (1 - \beta_1) f(x_k), \quad
    \gamma_k = \beta_1 \gamma_{k-1} + (1 - \beta_1)
      \langle g_k, x_k \rangle, \\
    \tau_k &= \min\left(\alpha_k, \frac{\left(\langle \hat m_k, x_k \rangle
      + (1 + \alpha_k \lambda)(\hat{\bar f}_k - \hat\gamma_k - f_*)
      \right)_+}{\langle \hat m_k, D_k^{-1} \hat m_k \rangle}\right), \\
    x_{k+1} &= \frac{x_k - \tau_k D_k^{-1} \hat m_k}{1 + \alpha_k \lambda},

  with :math:`\alpha_k` the learning rate and :math:`\lambda` the weight
  decay. ``adapt_lower_bound`` estimates :math:`f_*` online as in
  :func:`momo`, with :math:`h_k = \hat{\bar f}_k + \langle \hat m_k, x_k
  \rangle - \hat\gamma_k` and :math:`\ell_k = \hat{\bar f}_k - \hat\gamma_k
  + \langle \hat m_k, x_k \rangle / (1 + \alpha_k \lambda)`.

  ``update`` needs the loss at the current params:
  ``update(grads, state, params, value=loss)``.

  Args:
    learning_rate: the largest step size :math:`\alpha`, a number or a
      schedule.
    b1: decay rate :math:`\beta_1` of the first moment and of the loss
      model, in [0, 1).
    b2: decay rate :math:`\beta_2` of the second moment, in [0, 1).
    eps: term :math:`\epsilon` of the preconditioner.
    lower_bound: :math:`f_*`, known to be below the loss (0 when the loss
      cannot be negative).
    weight_decay: :math:`\lambda`, applied as a proximal step of the whole
      update (as in :func:`momo`).
    adapt_lower_bound: whether :math:`f_*` is estimated online from the
      model (never below ``lower_bound``).

  Returns:
    A ``GradientTransformationExtraArgs``; its state, a
    :class:`MomoAdamState`, adds Adam's second moment to MoMo's.

  Raises:
    ValueError: if a Python-number ``b1`` or ``b2`` is outside [0, 1) or
      ``eps`` is negative (TypeError for a vector or a string); in
      ``update``, if ``params`` or ``value`` is missing.

  Examples:
    >>> import jax
    >>> import jax.numpy as jnp
    >>> import numpy as np
    >>> from optax.contrib import _momo
    >>> loss = lambda x: jnp.sum(x ** 2)
    >>> opt = _momo.momo_adam(learning_rate=0.1, eps=0.0)
    >>> params = jnp.array([1.0, -2.0])
    >>> value, grad = jax.value_and_grad(loss)(params)
    >>> updates, _ = opt.update(grad, opt.init(params), params, value=value)
    >>> print(np.asarray(updates).round(4), updates.dtype)
    [-0.1  0.1] float32

  References:
    Schaipp, Ohana, Eickenberg, Defazio and Gower, `MoMo: Momentum Models
    for Adaptive Learning Rates <https://arxiv.org/abs/2305.07583>`_, 2023.

  .. seealso:: :func:`momo`, :func:`optax.adam`
  """
  fn = 'momo_adam'

  def init_fn(params):
    return MomoAdamState(exp_avg=otu.tree_zeros_like(params),
                         exp_avg_sq=otu.tree_zeros_like(params),
                         **_initial_scalars(lower_bound))

  def update_fn(updates, state, params=None, *, value=None, **extra_args):
    del extra_args
    count = state.count
    lr = _learning_rate_at(fn, learning_rate, count, params, value)
    hp = lr.dtype
    beta1 = hyperparameters.as_hyperparameter(b1)
    beta2 = hyperparameters.as_hyperparameter(b2)
    epsilon = hyperparameters.as_hyperparameter(eps)
    decay = hyperparameters.as_hyperparameter(weight_decay)
    floor = hyperparameters.as_hyperparameter(lower_bound)
    exp_avg = otu.tree_update_moment(updates, state.exp_avg, beta1, 1)
    exp_avg_sq = otu.tree_update_moment_per_elem_norm(
        updates, state.exp_avg_sq, beta2, 2)
    loss = jnp.asarray(value).astype(hp)
    barf = beta1 * state.barf.astype(hp) + (1 - beta1) * loss
    gamma = (beta1 * state.gamma.astype(hp)
             + (1 - beta1) * _vdot(updates, params, hp))
    steps = numerics.safe_increment(count).astype(hp)
    correction1 = 1 - beta1 ** steps
    correction2 = 1 - beta2 ** steps

    def leaf_precondition(m, v):
      dtype = dtypes.promote_dtypes(m.dtype, v.dtype, hp)
      diag = epsilon.astype(dtype) + jnp.sqrt(
          v.astype(dtype) / correction2.astype(dtype))
      m_hat = m.astype(dtype) / correction1.astype(dtype)
      return m_hat, diag

    pre = jax.tree.map(leaf_precondition, exp_avg, exp_avg_sq)
    m_hat = jax.tree.map(lambda _, t: t[0], updates, pre)
    diag = jax.tree.map(lambda _, t: t[1], updates, pre)
    dot = _vdot(m_hat, params, hp)
    sq_norm = otu.tree_sum(jax.tree.map(
        lambda m, dg: jnp.sum(m * m / dg).astype(hp), m_hat, diag))
    barf_hat = barf / correction1
    gamma_hat = gamma / correction1
    h = barf_hat + dot - gamma_hat
    shrink = 1 + lr * decay
    lb = _lower_bound(state.lb.astype(hp),
                      barf_hat - gamma_hat + dot / shrink, floor,
                      adapt_lower_bound)
    nom = dot + shrink * (barf_hat - gamma_hat - lb)
    tau = _step_size(nom, sq_norm, lr)

    def leaf_update(g, p, m, dg):
      dtype = dtypes.promote_dtypes(p.dtype, m.dtype, hp)
      p32 = p.astype(dtype)
      new_p = (p32 - tau.astype(dtype) * (
          m.astype(dtype) / dg.astype(dtype))) / shrink.astype(dtype)
      return (new_p - p32).astype(g.dtype)

    new_updates = jax.tree.map(leaf_update, updates, params, m_hat, diag)
    new_lb = _next_lower_bound(adapt_lower_bound, floor, h, tau, sq_norm,
                               state.lb)
    return new_updates, MomoAdamState(
        exp_avg=exp_avg,
        exp_avg_sq=exp_avg_sq,
        barf=barf.astype(state.barf.dtype),
        gamma=gamma.astype(state.gamma.dtype),
        lb=jnp.asarray(new_lb).astype(state.lb.dtype),
        count=numerics.safe_increment(count))

  return prepared_inputs.with_prepared_inputs(
      'momo_adam', base.GradientTransformationExtraArgs(init_fn, update_fn))
