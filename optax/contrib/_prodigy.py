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
"""Prodigy: a learning-rate-free Adam that estimates the distance to the
solution."""

from typing import Any, NamedTuple, Optional

import jax
import jax.numpy as jnp
import numpy as np

from optax import tree_utils as otu
from optax._src import arguments
from optax._src import base
from optax._src import dtypes
from optax._src import hyperparameters
from optax._src import numerics
from optax._src import prepared_inputs
from optax._src import tree_or_function
from optax._src import tree_structure
from optax._src import validation
from optax.contrib import _dadapt_adamw


class ProdigyState(NamedTuple):
  """State of :func:`prodigy`.

  Attributes:
    exp_avg: EMA of the updates scaled by the distance estimate, shaped and
      typed like the params.
    exp_avg_sq: EMA of the squared scaled updates, shaped and typed like the
      params.
    grad_sum: weighted sum :math:`s` of the updates, the denominator of the
      distance estimate, shaped and typed like the params.
    params0: the initial params :math:`x_0` (a copy, so that the state can be
      donated).
    estim_lr: scalar, the current distance estimate :math:`d`, float32
      (float64 under x64) whatever the params' dtypes.
    numerator_weighted: scalar, the numerator :math:`r` of the distance
      estimate, typed like ``estim_lr``.
    count: int32 scalar, the number of updates done so far.
  """

  exp_avg: base.Updates
  exp_avg_sq: base.Updates
  grad_sum: base.Updates
  params0: base.Updates
  estim_lr: jax.Array
  numerator_weighted: jax.Array
  count: jax.Array


def _decay_mask(fn: str, mask: base.MaskOrFn, params: base.Params) -> Any:
  """The weight-decay mask as one bool per leaf of ``params``.

  Python and NumPy bools become Python bools (so that a masked-out leaf
  costs nothing); array leaves (a traced mask) are kept.

  Args:
    fn: the public function's name, for the messages.
    mask: None, a tree of bools (a prefix of the params' structure) or a
      function of the params returning one.
    params: the params.

  Returns:
    A tree with the structure of ``params`` and a bool (or bool array) at
    each leaf.
  """
  if mask is None:
    return jax.tree.map(lambda _: True, params)
  mask = tree_or_function.resolve(
      mask, params, fn_name=fn, arg_name='weight_decay_mask')

  def spread(decayed, subtree):
    if isinstance(decayed, (bool, np.bool_)):
      decayed = bool(decayed)
    return jax.tree.map(lambda _: decayed, subtree)

  try:
    return jax.tree.map(spread, mask, params)
  except ValueError as e:
    raise ValueError(
        f'{fn}: weight_decay_mask must have the structure of the params (or'
        f' a prefix of it), got {jax.tree.structure(mask)} for params'
        f' {jax.tree.structure(params)}.') from e


@arguments.declare(
    learning_rate=arguments.required_learning_rate,
    betas=arguments.pair(arguments.decay_scalar,
                         arguments.decay_scalar,
                         what='(b1, b2)'),
    # None: sqrt(b2).
    beta3=(arguments.closed_decay, arguments.scalar_schedule_or_none),
    eps=arguments.non_negative_scalar,
    estim_lr_coef=arguments.non_negative_scalar,
    estim_lr0=arguments.positive_scalar,
    weight_decay=arguments.scalar_or_schedule)
def prodigy(
    learning_rate: base.ScalarOrSchedule = 1.0,
    betas: tuple[float, float] = (0.9, 0.999),
    beta3: Optional[float] = None,
    eps: float = 1e-8,
    estim_lr0: float = 1e-6,
    estim_lr_coef: float = 1.0,
    weight_decay: float = 0.0,
    safeguard_warmup: bool = False,
    weight_decay_mask: base.MaskOrFn = None,
) -> base.GradientTransformationExtraArgs:
  r"""Adam whose step size is the Prodigy estimate of the distance to the
  solution.

  With :math:`d_k` the distance estimate, :math:`\gamma_k` the learning rate
  (a multiplier, 1 by default), :math:`x_0` the initial params and :math:`k`
  the number of updates done before this one:

  .. math::

    \lambda_k &= d_k \gamma_k \sqrt{1 - \beta_2^{k+1}} / (1 - \beta_1^{k+1}),
      \\
    r_k &= \beta_3 r_{k-1} + (d_k / d_0) \lambda_k
      \langle g_k, x_0 - x_k \rangle, \\
    s_k &= \beta_3 s_{k-1} + (d_k / d_0)\, \mu_k\, g_k, \\
    m_k &= \beta_1 m_{k-1} + (1 - \beta_1) d_k g_k, \\
    v_k &= \beta_2 v_{k-1} + (1 - \beta_2) d_k^2 g_k^2, \\
    d_{k+1} &= \max\left(d_k, c\, \frac{r_k}{\|s_k\|_1}\right), \\
    u_k &= -\lambda_k \left(\frac{m_k}{\sqrt{v_k} + d_{k+1} \epsilon}
      + w\, x_k\right),

  with :math:`\mu_k = \lambda_k` (or :math:`d_k` with
  ``safeguard_warmup=True``), :math:`c` = ``estim_lr_coef``, :math:`w` the
  decoupled weight decay (zero on the leaves ``weight_decay_mask`` leaves
  out) and :math:`\beta_3 = \sqrt{\beta_2}` by default.
  While :math:`\|s_k\|_1` is zero (all gradients so far zero) :math:`d` is
  kept.

  Args:
    learning_rate: a multiplier :math:`\gamma` of the adapted step size, a
      number or a schedule (1 is the intended value).
    betas: the decay rates :math:`(\beta_1, \beta_2)` of the moments.
    beta3: the decay rate of :math:`r` and :math:`s`; ``None`` uses
      :math:`\sqrt{\beta_2}`.
    eps: term added to the denominator (multiplied by :math:`d_{k+1}`).
    estim_lr0: the initial distance estimate :math:`d_0`, small and positive.
    estim_lr_coef: the coefficient :math:`c` of the distance estimate.
    weight_decay: the coefficient :math:`w` of the decoupled weight decay.
    safeguard_warmup: whether to leave the learning rate out of :math:`s`,
      which avoids overestimating :math:`d` during a learning-rate warm-up.
    weight_decay_mask: a tree of booleans with the structure of the params
      (or a prefix of it), or a function of the params returning one,
      selecting the leaves to decay; ``None`` decays every leaf.

  Returns:
    A ``GradientTransformationExtraArgs`` whose state is a
    :class:`ProdigyState`; its ``update`` requires ``params``.

  Raises:
    ValueError: if Python-number ``betas`` or ``beta3`` are out of range,
      ``eps`` or ``estim_lr_coef`` is negative or ``estim_lr0`` is not
      positive, or a Python-number ``learning_rate`` is not finite; in
      ``update``, if ``params`` is None, if ``weight_decay_mask`` does not
      match the params' structure or if the updates are shaped unlike the
      state.
    TypeError: if ``learning_rate`` is not a number, a 0-d array or a
      schedule (None included), or another hyperparameter is not a scalar.

  Examples:
    >>> import jax.numpy as jnp
    >>> import numpy as np
    >>> from optax.contrib import _prodigy
    >>> opt = _prodigy.prodigy(estim_lr0=0.1)
    >>> params = jnp.array([1.0, -2.0])
    >>> state = opt.init(params)
    >>> updates, state = opt.update(2 * params, state, params)
    >>> print(np.asarray(updates).round(4), updates.dtype)
    [-0.1  0.1] float32

  References:
    Mishchenko and Defazio, `Prodigy: An Expeditiously Adaptive
    Parameter-Free Learner <https://arxiv.org/abs/2306.06101>`_, 2023.

  .. seealso:: :func:`dadapt_adamw`
  """
  fn = 'prodigy'
  b1, b2 = betas

  def init_fn(params):
    return ProdigyState(
        params0=jax.tree.map(lambda p: jnp.array(p, copy=True), params),
        **_dadapt_adamw.initial_fields(params, estim_lr0))

  def update_fn(updates, state, params=None, **extra_args):
    del extra_args
    validation.require_params(fn, params, 'the distance estimate needs them')
    tree_structure.check_like_updates(fn, updates, state.exp_avg)
    beta1 = hyperparameters.as_hyperparameter(b1)
    beta2 = hyperparameters.as_hyperparameter(b2)
    if beta3 is None:
      decay3 = jnp.sqrt(beta2)
    else:
      decay3 = hyperparameters.as_hyperparameter(beta3)
    epsilon = hyperparameters.as_hyperparameter(eps)
    decay = hyperparameters.as_hyperparameter(weight_decay)
    d0 = hyperparameters.as_hyperparameter(estim_lr0)
    coef = hyperparameters.as_hyperparameter(estim_lr_coef)
    count = state.count
    lr = hyperparameters.at_step(learning_rate, count)
    hp = beta1.dtype
    d = state.estim_lr.astype(hp)
    steps = numerics.safe_increment(count).astype(hp)
    dlr = d * lr * jnp.sqrt(1 - beta2 ** steps) / (1 - beta1 ** steps)
    ratio = d / d0
    s_weight = ratio * (d if safeguard_warmup else dlr)

    def leaf_moments(g, m, v, s, x0, p):
      dtype = dtypes.promote_dtypes(
          g.dtype, m.dtype, v.dtype, s.dtype, p.dtype, hp)
      g, p, x0 = g.astype(dtype), p.astype(dtype), x0.astype(dtype)
      d_ = d.astype(dtype)
      inner = jnp.sum(g * (x0 - p))
      m_new = beta1.astype(dtype) * m.astype(dtype) + d_ * (1 - beta1).astype(
          dtype) * g
      v_new = beta2.astype(dtype) * v.astype(dtype) + (d_ * d_) * (
          1 - beta2).astype(dtype) * g * g
      s_new = decay3.astype(dtype) * s.astype(dtype) + s_weight.astype(
          dtype) * g
      return (m_new.astype(m.dtype), v_new.astype(v.dtype),
              s_new.astype(s.dtype), inner.astype(hp),
              jnp.sum(jnp.abs(s_new)).astype(hp))

    out = jax.tree.map(
        leaf_moments, updates, state.exp_avg, state.exp_avg_sq,
        state.grad_sum, state.params0, params)

    def pick(i):
      return jax.tree.map(lambda _, t: t[i], updates, out)

    exp_avg, exp_avg_sq, grad_sum = pick(0), pick(1), pick(2)
    numerator = (decay3 * state.numerator_weighted.astype(hp)
                 + ratio * dlr * otu.tree_sum(pick(3)))
    sk_l1 = otu.tree_sum(pick(4))
    safe_l1 = jnp.where(sk_l1 > 0, sk_l1, jnp.ones_like(sk_l1))
    d_hat = coef * numerator / safe_l1
    new_d = jnp.where(sk_l1 > 0, jnp.maximum(d, d_hat), d)
    # The step uses the previous estimate in dlr, the new one next to eps.
    new_d_eps = new_d.astype(state.estim_lr.dtype).astype(hp) * epsilon

    def leaf_update(g, m, v, p, decayed):
      dtype = dtypes.promote_dtypes(g.dtype, m.dtype, v.dtype, p.dtype, hp)
      direction = m.astype(dtype) / (
          jnp.sqrt(v.astype(dtype)) + new_d_eps.astype(dtype))
      if decayed is not False:
        decay_term = decay.astype(dtype) * p.astype(dtype)
        if decayed is not True:  # A traced mask.
          decay_term = jnp.where(decayed, decay_term, jnp.zeros_like(p))
        direction = direction + decay_term
      u = -dlr.astype(dtype) * direction
      return u.astype(g.dtype)

    new_updates = jax.tree.map(
        leaf_update, updates, exp_avg, exp_avg_sq, params,
        _decay_mask(fn, weight_decay_mask, params))
    return new_updates, ProdigyState(
        exp_avg=exp_avg,
        exp_avg_sq=exp_avg_sq,
        grad_sum=grad_sum,
        params0=state.params0,
        estim_lr=new_d.astype(state.estim_lr.dtype),
        numerator_weighted=numerator.astype(state.numerator_weighted.dtype),
        count=numerics.safe_increment(count))

  return prepared_inputs.with_prepared_inputs(
      'prodigy', base.GradientTransformationExtraArgs(init_fn, update_fn))
