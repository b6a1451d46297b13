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
"""D-Adaptation for AdamW: a learning-rate-free Adam."""

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
from optax._src import scalar_statistics
from optax._src import tree_structure
from optax._src import validation


class DAdaptAdamWState(NamedTuple):
  """State of :func:`dadapt_adamw`.

  Attributes:
    exp_avg: EMA of the updates scaled by the step size, shaped and typed
      like the params.
    exp_avg_sq: EMA of the squared updates, shaped and typed like the params.
    grad_sum: weighted sum :math:`s` of the updates used in the distance
      estimate, shaped and typed like the params.
    estim_lr: scalar, the current estimate :math:`d` of the distance to the
      solution (the learning-rate scale), float32 (float64 under x64)
      whatever the params' dtypes.
    numerator_weighted: scalar, the weighted numerator of the distance
      estimate, typed like ``estim_lr``.
    count: int32 scalar, the number of updates done so far.
  """

  exp_avg: base.Updates
  exp_avg_sq: base.Updates
  grad_sum: base.Updates
  estim_lr: jax.Array
  numerator_weighted: jax.Array
  count: jax.Array


def initial_fields(params: base.Params, estim_lr0: Any) -> dict[str, Any]:
  """The state at step 0 of the fields D-Adaptation and Prodigy share.

  Args:
    params: the params (their shapes and dtypes).
    estim_lr0: the initial distance estimate :math:`d_0`.

  Returns:
    ``exp_avg``, ``exp_avg_sq`` and ``grad_sum`` (zeros like the params),
    ``estim_lr`` and ``numerator_weighted`` (scalars in the statistics'
    dtype) and ``count`` (int32 zero), by name.
  """
  dtype = scalar_statistics.statistics_dtype(params)
  return dict(
      exp_avg=otu.tree_zeros_like(params),
      exp_avg_sq=otu.tree_zeros_like(params),
      grad_sum=otu.tree_zeros_like(params),
      estim_lr=hyperparameters.as_hyperparameter(estim_lr0).astype(dtype),
      numerator_weighted=jnp.zeros([], dtype),
      count=jnp.zeros([], jnp.int32))


@arguments.declare(
    learning_rate=arguments.required_learning_rate,
    betas=arguments.pair(arguments.decay_scalar,
                         arguments.decay_scalar,
                         what='(b1, b2)'),
    eps=arguments.non_negative_scalar,
    estim_lr0=arguments.positive_scalar,
    weight_decay=arguments.scalar_or_schedule)
def dadapt_adamw(
    learning_rate: base.ScalarOrSchedule = 1.0,
    betas: tuple[float, float] = (0.9, 0.999),
    eps: float = 1e-8,
    estim_lr0: float = 1e-6,
    weight_decay: float = 0.0,
) -> base.GradientTransformationExtraArgs:
  r"""AdamW whose learning-rate scale is found by D-Adaptation.

  D-Adaptation keeps a lower bound :math:`d_k` on the distance from the
  initial point to the solution and uses it as the step size of Adam. With
  :math:`\gamma_k` the learning rate (a multiplier, 1 by default) and
  :math:`k` the number of updates done before this one:

  .. math::

    \lambda_k &= d_k \gamma_k \sqrt{1 - \beta_2^{k+1}} / (1 - \beta_1^{k+1}),
      \\
    r_k &= \sqrt{\beta_2}\, r_{k-1} + (1 - \sqrt{\beta_2})\, \lambda_k
      \langle g_k, s_{k-1} / (\sqrt{v_{k-1}} + \epsilon) \rangle, \\
    m_k &= \beta_1 m_{k-1} + (1 - \beta_1) \lambda_k g_k, \\
    v_k &= \beta_2 v_{k-1} + (1 - \beta_2) g_k^2, \\
    s_k &= \sqrt{\beta_2}\, s_{k-1} + (1 - \sqrt{\beta_2}) \lambda_k g_k, \\
    d_{k+1} &= \max\left(d_k, \frac{r_k}{(1 - \sqrt{\beta_2})
      \|s_k\|_1}\right), \\
    u_k &= -\frac{m_k}{\sqrt{v_k} + \epsilon} - w \lambda_k \theta_k,

  with :math:`w` the decoupled weight decay. While :math:`\|s_k\|_1` is zero
  (all gradients so far zero) :math:`d` is kept.

  Args:
    learning_rate: a multiplier :math:`\gamma` of the adapted step size, a
      number or a schedule (1 is the intended value).
    betas: the decay rates :math:`(\beta_1, \beta_2)` of the moments.
    eps: term added to the denominator.
    estim_lr0: the initial distance estimate :math:`d_0`, small and positive.
    weight_decay: the coefficient :math:`w` of the decoupled weight decay.

  Returns:
    A ``GradientTransformationExtraArgs`` whose state is a
    :class:`DAdaptAdamWState`; its ``update`` requires ``params``.

  Raises:
    ValueError: if Python-number ``betas`` are outside [0, 1), ``eps`` is
      negative, ``estim_lr0`` is not positive or ``learning_rate`` is not
      finite; in ``update``, if ``params`` is None or the updates are
      shaped unlike the state.
    TypeError: if ``learning_rate`` is not a number, a 0-d array or a
      schedule (None included), or another hyperparameter is not a scalar.

  Examples:
    The estimate of the step (``estim_lr``, the distance to the solution
    :math:`d`) starts at ``estim_lr0`` and grows while the gradients keep
    pointing the same way:

    >>> import jax.numpy as jnp
    >>> import optax
    >>> opt = optax.contrib.dadapt_adamw(estim_lr0=0.1)
    >>> params = jnp.array([1.0, -2.0])
    >>> state = opt.init(params)
    >>> estimates = []
    >>> for _ in range(3):
    ...   updates, state = opt.update(2 * params, state, params)
    ...   params = params + updates
    ...   estimates.append(round(float(state.estim_lr), 4))
    >>> estimates
    [0.1, 0.41, 0.882]

  References:
    Defazio and Mishchenko, `Learning-Rate-Free Learning by D-Adaptation
    <https://arxiv.org/abs/2301.07733>`_, 2023.

  .. seealso:: :func:`prodigy`
  """
  fn = 'dadapt_adamw'
  b1, b2 = betas

  def init_fn(params):
    return DAdaptAdamWState(**initial_fields(params, estim_lr0))

  def update_fn(updates, state, params=None, **extra_args):
    del extra_args
    validation.require_params(
        fn, params, 'the decoupled weight decay needs them')
    tree_structure.check_like_updates(fn, updates, state.exp_avg)
    beta1 = hyperparameters.as_hyperparameter(b1)
    beta2 = hyperparameters.as_hyperparameter(b2)
    epsilon = hyperparameters.as_hyperparameter(eps)
    decay = hyperparameters.as_hyperparameter(weight_decay)
    count = state.count
    lr = hyperparameters.at_step(learning_rate, count)
    hp = beta1.dtype
    d = state.estim_lr.astype(hp)
    steps = numerics.safe_increment(count).astype(hp)
    sqrt_beta2 = jnp.sqrt(beta2)
    # 1 - sqrt(b2) without cancellation (b2 is close to 1).
    one_minus_sqrt_beta2 = (1 - beta2) / (1 + sqrt_beta2)
    dlr = d * lr * jnp.sqrt(1 - beta2 ** steps) / (1 - beta1 ** steps)

    def leaf_step(g, m, v, s, p):
      out_dtype = g.dtype
      dtype = dtypes.promote_dtypes(g.dtype, m.dtype, v.dtype, s.dtype, hp)
      g, p = g.astype(dtype), p.astype(dtype)
      m_old, v_old, s_old = m.astype(dtype), v.astype(dtype), s.astype(dtype)
      dlr_, eps_ = dlr.astype(dtype), epsilon.astype(dtype)
      # s / (sqrt(v) + eps) first: once g * g overflows, v is inf and the
      # ratio is 0, where g * s could be inf and inf / inf a NaN.
      inner = jnp.sum(g * (s_old / (jnp.sqrt(v_old) + eps_)))
      m_new = beta1.astype(dtype) * m_old + dlr_ * (1 - beta1).astype(
          dtype) * g
      v_new = beta2.astype(dtype) * v_old + (1 - beta2).astype(dtype) * g * g
      s_new = sqrt_beta2.astype(dtype) * s_old + dlr_ * (
          one_minus_sqrt_beta2.astype(dtype) * g)
      u = -m_new / (jnp.sqrt(v_new) + eps_) - decay.astype(dtype) * dlr_ * p
      return (u.astype(out_dtype), m_new.astype(m.dtype), v_new.astype(v.dtype),
              s_new.astype(s.dtype), inner.astype(hp),
              jnp.sum(jnp.abs(s_new)).astype(hp))

    out = jax.tree.map(
        leaf_step, updates, state.exp_avg, state.exp_avg_sq, state.grad_sum,
        params)

    def pick(i):
      return jax.tree.map(lambda _, t: t[i], updates, out)

    numerator_acum = dlr * otu.tree_sum(pick(4))
    sk_l1 = otu.tree_sum(pick(5))
    numerator = (sqrt_beta2 * state.numerator_weighted.astype(hp)
                 + one_minus_sqrt_beta2 * numerator_acum)
    safe_l1 = jnp.where(sk_l1 > 0, sk_l1, jnp.ones_like(sk_l1))
    d_hat = numerator / (one_minus_sqrt_beta2 * safe_l1)
    new_d = jnp.where(sk_l1 > 0, jnp.maximum(d, d_hat), d)
    return pick(0), DAdaptAdamWState(
        exp_avg=pick(1),
        exp_avg_sq=pick(2),
        grad_sum=pick(3),
        estim_lr=new_d.astype(state.estim_lr.dtype),
        numerator_weighted=numerator.astype(state.numerator_weighted.dtype),
        count=numerics.safe_increment(count))

  return prepared_inputs.with_prepared_inputs(
      'dadapt_adamw', base.GradientTransformationExtraArgs(init_fn, update_fn))
