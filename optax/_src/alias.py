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
"""Ready-made optimizers: chains of the building blocks of ``optax``.

Each optimizer of this module is a :func:`optax.chain` of a preconditioner
(``scale_by_adam``, ``scale_by_rms``, ...), optional decoupled weight decay
and a final scaling by the (negated) learning rate. Learning rates may be
numbers or schedules of the step count unless said otherwise.

Each optimizer declares (:func:`optax._src.arguments.declare`) only the
rules of the arguments that the transformations it builds do not check, or
check under another name; every error names the optimizer called.
"""

import functools
from typing import Any, Optional, Union
import warnings

import jax
import jax.numpy as jnp

from optax._src import arguments
from optax._src import base
from optax._src import factorized
from optax._src import hyperparameters
from optax._src import transform
from optax._src import validation
from optax.transforms import _accumulation
from optax.transforms import _adding
from optax.transforms import _clipping
from optax.transforms import _combining
from optax.transforms import _masking

def _maybe_momentum(
    momentum: Optional[float],
    nesterov: bool,
    accumulator_dtype: Optional[Any] = None,
) -> base.GradientTransformation:
  """A trace of the updates, or the identity when ``momentum`` is None."""
  if momentum is None:
    return base.identity()
  return _accumulation.trace(
      decay=momentum, nesterov=nesterov, accumulator_dtype=accumulator_dtype)


# ------------------------------------------------------------------------------
# Optimizers.
# ------------------------------------------------------------------------------


@arguments.declare(weight_decay=arguments.finite)
def adabelief(
    learning_rate: base.ScalarOrSchedule,
    b1: float = 0.9,
    b2: float = 0.999,
    eps: float = 1e-16,
    eps_root: float = 1e-16,
    weight_decay: Optional[base.ScalarOrSchedule] = None,
    weight_decay_mask: base.MaskOrFn = None,
    *,
    nesterov: bool = False,
) -> base.GradientTransformationExtraArgs:
  r"""The AdaBelief optimizer.

  Like Adam, but the second moment tracks the squared deviation of the
  gradient from its running mean (the "belief" in the gradient):

  .. math::

    m_t &= \beta_1 m_{t-1} + (1 - \beta_1) g_t \\
    s_t &= \beta_2 s_{t-1} + (1 - \beta_2) (g_t - m_t)^2 + \epsilon_{root}
    \\
    u_t &= -\eta_t \left(\frac{m_t / (1 - \beta_1^t)}
      {\sqrt{s_t / (1 - \beta_2^t)} + \epsilon} + \lambda \theta_t\right)

  where the decoupled weight decay :math:`\lambda \theta_t` (as in
  :func:`adamw`) is only there when ``weight_decay`` is given, on the leaves
  selected by ``weight_decay_mask``.

  Examples:
    >>> import jax.numpy as jnp
    >>> import numpy as np
    >>> import optax
    >>> opt = optax.adabelief(learning_rate=0.1)
    >>> params = jnp.array([1.0, -2.0])
    >>> updates, _ = opt.update(2 * params, opt.init(params))
    >>> print(np.asarray(updates).round(4))
    [-0.1111  0.1111]

  Args:
    learning_rate: the learning rate :math:`\eta`, a number or a schedule.
    b1: the decay of the first moment.
    b2: the decay of the second moment.
    eps: added to the denominator, outside the square root.
    eps_root: added to the second moment, inside the square root.
    weight_decay: the coefficient :math:`\lambda` of the decoupled weight
      decay, a number or a schedule; ``None`` (the default) for none, with
      the state of upstream 0.2.8's adabelief. A number adds the state of
      :func:`optax.add_decayed_weights` (an empty one) to the chain, as in
      :func:`adamw`. The ``update`` then needs ``params``.
    weight_decay_mask: a tree of booleans shaped like the params (or a
      prefix of it), or a function of the params returning one, selecting
      the leaves to decay; ``None`` decays every leaf.
    nesterov: whether to use Nesterov momentum.

  Returns:
    A :class:`optax.GradientTransformationExtraArgs`.

  References:
    Zhuang et al., `AdaBelief optimizer: adapting stepsizes by the belief in
    observed gradients <https://arxiv.org/abs/2010.07468>`_, 2020.

    Loshchilov and Hutter, `Decoupled Weight Decay Regularization
    <https://arxiv.org/abs/1711.05101>`_, 2019.

  .. seealso:: :func:`adam`, :func:`adamw`
  """
  belief = transform.scale_by_belief(
      b1=b1, b2=b2, eps=eps, eps_root=eps_root, nesterov=nesterov)
  if weight_decay is None:
    # Upstream 0.2.8's chain, so its checkpoints restore unchanged.
    return _combining.chain(
        belief, transform.scale_by_learning_rate(learning_rate))
  return _combining.chain(
      belief,
      _adding.add_decayed_weights(weight_decay, weight_decay_mask),
      transform.scale_by_learning_rate(learning_rate),
  )


@arguments.declare(weight_decay=arguments.finite)
def adadelta(
    learning_rate: Optional[base.ScalarOrSchedule] = None,
    rho: float = 0.9,
    eps: float = 1e-6,
    weight_decay: float = 0.0,
    weight_decay_mask: base.MaskOrFn = None,
) -> base.GradientTransformationExtraArgs:
  r"""The AdaDelta optimizer.

  Scales the gradient by the ratio of the root mean squares of past updates
  and of past gradients, which makes the step dimensionally consistent:

  .. math::

    v_t &= \rho v_{t-1} + (1 - \rho) g_t^2 \\
    \Delta_t &= \frac{\sqrt{x_{t-1} + \epsilon}}{\sqrt{v_t + \epsilon}} g_t \\
    x_t &= \rho x_{t-1} + (1 - \rho) \Delta_t^2 \\
    u_t &= -\eta_t \, \Delta_t

  where :math:`g_t` includes the weight decay :math:`\lambda \theta_t` if
  any. With ``learning_rate=None`` the step is :math:`+\Delta_t` (no
  scaling, no sign flip).

  Examples:
    >>> import jax.numpy as jnp
    >>> import numpy as np
    >>> import optax
    >>> opt = optax.adadelta(learning_rate=10.0)
    >>> params = jnp.array([1.0, -2.0])
    >>> updates, _ = opt.update(2 * params, opt.init(params), params)
    >>> print(np.asarray(updates).round(4))
    [-0.0316  0.0316]

  Args:
    learning_rate: the learning rate :math:`\eta`, a number, a schedule or
      ``None``.
    rho: the decay :math:`\rho` of both running averages.
    eps: the :math:`\epsilon` of both square roots.
    weight_decay: the coefficient :math:`\lambda` of the weight decay added
      to the gradient.
    weight_decay_mask: a tree of booleans shaped like the params (or a
      function returning one) selecting the leaves to decay.

  Returns:
    A :class:`optax.GradientTransformationExtraArgs`.

  References:
    Zeiler, `ADADELTA: an adaptive learning rate method
    <https://arxiv.org/abs/1212.5701>`_, 2012.
  """
  return _combining.chain(
      _adding.add_decayed_weights(weight_decay, mask=weight_decay_mask),
      transform.scale_by_adadelta(rho=rho, eps=eps),
      transform.scale_by_learning_rate(learning_rate),
  )


# Declared here: the transformations built do not check these, or under
# another name (epsilon, threshold, decay, weight_decay).
@arguments.declare(
    min_dim_size_to_factor=arguments.scalar_schedule_or_none,
    decay_rate=arguments.non_negative,
    decay_offset=arguments.scalar_schedule_or_none,
    clipping_threshold=(arguments.scalar_schedule_or_none,
                        arguments.non_negative),
    momentum=(arguments.scalar_schedule_or_none, arguments.closed_decay),
    weight_decay_rate=(arguments.scalar_schedule_or_none, arguments.finite),
    eps=(arguments.scalar_schedule_or_none, arguments.non_negative))
def adafactor(
    learning_rate: Optional[base.ScalarOrSchedule] = None,
    min_dim_size_to_factor: int = 128,
    decay_rate: float = 0.8,
    decay_offset: int = 0,
    multiply_by_parameter_scale: bool = True,
    clipping_threshold: Optional[float] = 1.0,
    momentum: Optional[float] = None,
    dtype_momentum: Any = jnp.float32,
    weight_decay_rate: Optional[float] = None,
    eps: float = 1e-30,
    factored: bool = True,
    weight_decay_mask: base.MaskOrFn = None,
) -> base.GradientTransformationExtraArgs:
  r"""The Adafactor optimizer.

  Preconditions by a factored second moment (see
  :func:`optax.scale_by_factored_rms`): for matrices only the row and column
  means of the squared gradient are kept. Then, in order, each leaf of the
  update is clipped to a root mean square of at most
  ``clipping_threshold``, scaled by the learning rate, scaled by the root
  mean square of its parameter (``multiply_by_parameter_scale``, so the
  learning rate is relative), averaged by momentum, and the weight decay is
  added before the final sign flip:

  .. math::

    u_t = -\left(\mathrm{ema}_{\beta}\!\left[
      \eta_t \, \max(\mathrm{rms}(\theta), 10^{-3})\,
      \frac{\hat{u}_t}{\max(1, \mathrm{rms}(\hat{u}_t) / d)}\right]
      + \lambda \theta_t\right)

  with :math:`\hat{u}_t` the factored-RMS-scaled gradient and :math:`d` the
  clipping threshold. Parts whose argument is ``None`` (or ``False``) are
  left out.

  Examples:
    >>> import jax.numpy as jnp
    >>> import numpy as np
    >>> import optax
    >>> opt = optax.adafactor(learning_rate=0.1)
    >>> params = jnp.array([1.0, -2.0])
    >>> updates, _ = opt.update(2 * params, opt.init(params), params)
    >>> print(np.asarray(updates).round(4))
    [-0.1581  0.1581]

  Args:
    learning_rate: the learning rate :math:`\eta`, a number, a schedule or
      ``None`` (no scaling).
    min_dim_size_to_factor: leaves whose second largest axis is shorter than
      this keep a full second moment.
    decay_rate: the exponent of the decay of the second moment, :math:`1 -
      (t + 1)^{-\text{decay\_rate}}`.
    decay_offset: subtracted from the step count in that decay (for
      fine-tuning).
    multiply_by_parameter_scale: whether to scale each update by the root
      mean square of its parameter.
    clipping_threshold: the threshold :math:`d` of the per-leaf RMS
      clipping, or ``None`` for no clipping.
    momentum: the decay :math:`\beta` of an exponential moving average of
      the updates (not debiased), or ``None`` for no momentum.
    dtype_momentum: the dtype of that moving average.
    weight_decay_rate: the coefficient :math:`\lambda` of the weight decay,
      or ``None``.
    eps: added to the squared gradient in the second moment.
    factored: whether to factor the second moments of matrices.
    weight_decay_mask: a tree of booleans shaped like the params (or a
      function returning one) selecting the leaves to decay.

  Returns:
    A :class:`optax.GradientTransformationExtraArgs`; its ``update``
    requires ``params`` when ``multiply_by_parameter_scale`` or weight decay
    is used.

  References:
    Shazeer and Stern, `Adafactor: adaptive learning rates with sublinear
    memory cost <https://arxiv.org/abs/1804.04235>`_, 2018.
  """
  parts = [
      factorized.scale_by_factored_rms(
          factored=factored,
          decay_rate=decay_rate,
          step_offset=decay_offset,
          min_dim_size_to_factor=min_dim_size_to_factor,
          epsilon=eps,
      )
  ]
  if clipping_threshold is not None:
    parts.append(_clipping.clip_by_block_rms(clipping_threshold))
  if learning_rate is not None:
    parts.append(
        transform.scale_by_learning_rate(learning_rate, flip_sign=False))
  if multiply_by_parameter_scale:
    parts.append(transform.scale_by_param_block_rms())
  if momentum is not None:
    parts.append(
        _accumulation.ema(
            momentum, debias=False, accumulator_dtype=dtype_momentum))
  if weight_decay_rate is not None:
    parts.append(
        _adding.add_decayed_weights(
            weight_decay_rate, mask=weight_decay_mask))
  # Descent: move against the preconditioned gradient.
  parts.append(transform.scale(-1))
  return _combining.chain(*parts)


@arguments.declare()
def adagrad(
    learning_rate: base.ScalarOrSchedule,
    initial_accumulator_value: float = 0.1,
    eps: float = 1e-7,
) -> base.GradientTransformationExtraArgs:
  r"""The Adagrad optimizer.

  Divides the gradient by the root of the sum of all past squared
  gradients:

  .. math::

    G_t = G_{t-1} + g_t^2, \quad u_t = -\eta_t \, \frac{g_t}{\sqrt{G_t +
    \epsilon}}

  with :math:`G_0` = ``initial_accumulator_value``.

  Examples:
    >>> import jax.numpy as jnp
    >>> import numpy as np
    >>> import optax
    >>> opt = optax.adagrad(learning_rate=0.1)
    >>> params = jnp.array([1.0, -2.0])
    >>> updates, _ = opt.update(2 * params, opt.init(params))
    >>> print(np.asarray(updates).round(4))
    [-0.0988  0.0997]

  Args:
    learning_rate: the learning rate :math:`\eta`, a number or a schedule.
    initial_accumulator_value: the initial value :math:`G_0` of the sum.
    eps: added inside the square root.

  Returns:
    A :class:`optax.GradientTransformationExtraArgs`.

  References:
    Duchi et al., `Adaptive subgradient methods for online learning and
    stochastic optimization
    <https://jmlr.org/papers/v12/duchi11a.html>`_, 2011.
  """
  return _combining.chain(
      transform.scale_by_rss(
          initial_accumulator_value=initial_accumulator_value, eps=eps),
      transform.scale_by_learning_rate(learning_rate),
  )


@arguments.declare()
def adam(
    learning_rate: base.ScalarOrSchedule,
    b1: float = 0.9,
    b2: float = 0.999,
    eps: float = 1e-8,
    eps_root: float = 0.0,
    mu_dtype: Optional[Any] = None,
    *,
    nesterov: bool = False,
) -> base.GradientTransformationExtraArgs:
  r"""The Adam optimizer.

  .. math::

    m_t &= \beta_1 m_{t-1} + (1 - \beta_1) g_t \\
    v_t &= \beta_2 v_{t-1} + (1 - \beta_2) g_t^2 \\
    \hat{m}_t &= m_t / (1 - \beta_1^t), \quad
    \hat{v}_t = v_t / (1 - \beta_2^t) \\
    u_t &= -\eta_t \, \frac{\hat{m}_t}{\sqrt{\hat{v}_t + \epsilon_{root}} +
      \epsilon}

  With ``nesterov=True`` (NAdam), :math:`\hat{m}_t` is replaced by
  :math:`\beta_1 m_t / (1 - \beta_1^{t+1}) + (1 - \beta_1) g_t / (1 -
  \beta_1^t)`.

  Examples:
    >>> import jax.numpy as jnp
    >>> import numpy as np
    >>> import optax
    >>> opt = optax.adam(learning_rate=0.1)
    >>> params = jnp.array([1.0, -2.0])
    >>> updates, _ = opt.update(2 * params, opt.init(params))
    >>> print(np.asarray(updates).round(4))
    [-0.1  0.1]

  Args:
    learning_rate: the learning rate :math:`\eta`, a number or a schedule.
    b1: the decay :math:`\beta_1` of the first moment.
    b2: the decay :math:`\beta_2` of the second moment.
    eps: added to the denominator, outside the square root.
    eps_root: added to the second moment, inside the square root (useful
      when differentiating through the optimizer).
    mu_dtype: the dtype of the first moment; ``None`` uses the params'.
    nesterov: whether to use Nesterov momentum (NAdam).

  Returns:
    A :class:`optax.GradientTransformationExtraArgs`.

  References:
    Kingma and Ba, `Adam: a method for stochastic optimization
    <https://arxiv.org/abs/1412.6980>`_, 2014.

    Dozat, `Incorporating Nesterov momentum into Adam
    <https://openreview.net/pdf?id=OM0jvwB8jIp57ZJjtNEZ>`_, 2016.

  .. seealso:: :func:`adamw`, :func:`nadam`
  """
  return _combining.chain(
      transform.scale_by_adam(
          b1=b1, b2=b2, eps=eps, eps_root=eps_root, mu_dtype=mu_dtype,
          nesterov=nesterov),
      transform.scale_by_learning_rate(learning_rate),
  )


nadam = functools.partial(adam, nesterov=True)
nadam.__doc__ = r"""The NAdam optimizer: :func:`adam` with ``nesterov=True``.

  The first moment is replaced by a Nesterov look-ahead,
  :math:`\beta_1 m_t / (1 - \beta_1^{t+1}) + (1 - \beta_1) g_t / (1 -
  \beta_1^t)`. Takes the arguments of :func:`adam`.

  Examples:
    >>> import jax.numpy as jnp
    >>> import numpy as np
    >>> import optax
    >>> opt = optax.nadam(learning_rate=0.1)
    >>> params = jnp.array([1.0, -2.0])
    >>> updates, _ = opt.update(2 * params, opt.init(params))
    >>> print(np.asarray(updates).round(4))
    [-0.1474  0.1474]

  References:
    Dozat, `Incorporating Nesterov momentum into Adam
    <https://openreview.net/pdf?id=OM0jvwB8jIp57ZJjtNEZ>`_, 2016.
"""


@arguments.declare(weight_decay=arguments.finite)
def adamw(
    learning_rate: base.ScalarOrSchedule,
    b1: float = 0.9,
    b2: float = 0.999,
    eps: float = 1e-8,
    eps_root: float = 0.0,
    mu_dtype: Optional[Any] = None,
    weight_decay: base.ScalarOrSchedule = 1e-4,
    mask: base.MaskOrFn = None,
    *,
    nesterov: bool = False,
) -> base.GradientTransformationExtraArgs:
  r"""Adam with decoupled weight decay (AdamW).

  The weight decay is added to the Adam direction, not to the gradient, so
  it is not rescaled by the second moment:

  .. math::

    u_t = -\eta_t \left(\frac{\hat{m}_t}{\sqrt{\hat{v}_t + \epsilon_{root}}
      + \epsilon} + \lambda \theta_t\right)

  with :math:`\hat{m}_t, \hat{v}_t` as in :func:`adam`.

  Examples:
    >>> import jax.numpy as jnp
    >>> import numpy as np
    >>> import optax
    >>> opt = optax.adamw(learning_rate=0.1, weight_decay=0.5)
    >>> params = jnp.array([1.0, -2.0])
    >>> updates, _ = opt.update(2 * params, opt.init(params), params)
    >>> print(np.asarray(updates).round(4))
    [-0.15  0.2 ]

  Args:
    learning_rate: the learning rate :math:`\eta`, a number or a schedule.
    b1: the decay :math:`\beta_1` of the first moment.
    b2: the decay :math:`\beta_2` of the second moment.
    eps: added to the denominator, outside the square root.
    eps_root: added to the second moment, inside the square root.
    mu_dtype: the dtype of the first moment; ``None`` uses the params'.
    weight_decay: the coefficient :math:`\lambda` of the weight decay.
    mask: a tree of booleans shaped like the params (or a function returning
      one) selecting the leaves to decay, e.g. to leave biases and norms
      out.
    nesterov: whether to use Nesterov momentum.

  Returns:
    A :class:`optax.GradientTransformationExtraArgs`; its ``update``
    requires ``params``.

  References:
    Loshchilov and Hutter, `Decoupled weight decay regularization
    <https://arxiv.org/abs/1711.05101>`_, 2019.

  .. seealso:: :func:`adam`, :func:`nadamw`
  """
  return _combining.chain(
      transform.scale_by_adam(
          b1=b1, b2=b2, eps=eps, eps_root=eps_root, mu_dtype=mu_dtype,
          nesterov=nesterov),
      _adding.add_decayed_weights(weight_decay, mask),
      transform.scale_by_learning_rate(learning_rate),
  )


nadamw = functools.partial(adamw, nesterov=True)
nadamw.__doc__ = r"""NAdam with decoupled weight decay: :func:`adamw` with
  ``nesterov=True``.

  Takes the arguments of :func:`adamw`.

  Examples:
    >>> import jax.numpy as jnp
    >>> import numpy as np
    >>> import optax
    >>> opt = optax.nadamw(learning_rate=0.1, weight_decay=0.5)
    >>> params = jnp.array([1.0, -2.0])
    >>> updates, _ = opt.update(2 * params, opt.init(params), params)
    >>> print(np.asarray(updates).round(4))
    [-0.1974  0.2474]

  References:
    Dozat, `Incorporating Nesterov momentum into Adam
    <https://openreview.net/pdf?id=OM0jvwB8jIp57ZJjtNEZ>`_, 2016.

    Loshchilov and Hutter, `Decoupled weight decay regularization
    <https://arxiv.org/abs/1711.05101>`_, 2019.
"""


@arguments.declare()
def adamax(
    learning_rate: base.ScalarOrSchedule,
    b1: float = 0.9,
    b2: float = 0.999,
    eps: float = 1e-8,
) -> base.GradientTransformationExtraArgs:
  r"""The AdaMax optimizer, Adam with an infinity norm.

  .. math::

    m_t &= \beta_1 m_{t-1} + (1 - \beta_1) g_t \\
    v_t &= \max(\beta_2 v_{t-1}, |g_t|) \\
    u_t &= -\eta_t \, \frac{m_t / (1 - \beta_1^t)}{v_t + \epsilon}

  Examples:
    >>> import jax.numpy as jnp
    >>> import numpy as np
    >>> import optax
    >>> opt = optax.adamax(learning_rate=0.1)
    >>> params = jnp.array([1.0, -2.0])
    >>> updates, _ = opt.update(2 * params, opt.init(params))
    >>> print(np.asarray(updates).round(4))
    [-0.1  0.1]

  Args:
    learning_rate: the learning rate :math:`\eta`, a number or a schedule.
    b1: the decay :math:`\beta_1` of the first moment.
    b2: the decay :math:`\beta_2` of the infinity norm.
    eps: added to the denominator.

  Returns:
    A :class:`optax.GradientTransformationExtraArgs`.

  References:
    Kingma and Ba, `Adam: a method for stochastic optimization
    <https://arxiv.org/abs/1412.6980>`_, 2014 (section 7).

  .. seealso:: :func:`adamaxw`
  """
  return _combining.chain(
      transform.scale_by_adamax(b1=b1, b2=b2, eps=eps),
      transform.scale_by_learning_rate(learning_rate),
  )


@arguments.declare(weight_decay=arguments.finite)
def adamaxw(
    learning_rate: base.ScalarOrSchedule,
    b1: float = 0.9,
    b2: float = 0.999,
    eps: float = 1e-8,
    weight_decay: float = 1e-4,
    mask: base.MaskOrFn = None,
) -> base.GradientTransformationExtraArgs:
  r"""AdaMax with decoupled weight decay.

  .. math::

    u_t = -\eta_t \left(\frac{m_t / (1 - \beta_1^t)}{v_t + \epsilon} +
      \lambda \theta_t\right)

  with :math:`m_t, v_t` as in :func:`adamax`.

  Examples:
    >>> import jax.numpy as jnp
    >>> import numpy as np
    >>> import optax
    >>> opt = optax.adamaxw(learning_rate=0.1, weight_decay=0.5)
    >>> params = jnp.array([1.0, -2.0])
    >>> updates, _ = opt.update(2 * params, opt.init(params), params)
    >>> print(np.asarray(updates).round(4))
    [-0.15  0.2 ]

  Args:
    learning_rate: the learning rate :math:`\eta`, a number or a schedule.
    b1: the decay :math:`\beta_1` of the first moment.
    b2: the decay :math:`\beta_2` of the infinity norm.
    eps: added to the denominator.
    weight_decay: the coefficient :math:`\lambda` of the weight decay.
    mask: a tree of booleans shaped like the params (or a function returning
      one) selecting the leaves to decay.

  Returns:
    A :class:`optax.GradientTransformationExtraArgs`; its ``update``
    requires ``params``.

  References:
    Loshchilov and Hutter, `Decoupled weight decay regularization
    <https://arxiv.org/abs/1711.05101>`_, 2019.
  """
  return _combining.chain(
      transform.scale_by_adamax(b1=b1, b2=b2, eps=eps),
      _adding.add_decayed_weights(weight_decay, mask),
      transform.scale_by_learning_rate(learning_rate),
  )


@arguments.declare(weight_decay=arguments.finite)
def adan(
    learning_rate: base.ScalarOrSchedule,
    b1: float = 0.98,
    b2: float = 0.92,
    b3: float = 0.99,
    eps: float = 1e-8,
    eps_root: float = 1e-8,
    weight_decay: float = 0.0,
    mask: base.MaskOrFn = None,
) -> base.GradientTransformationExtraArgs:
  r"""The Adan optimizer (adaptive Nesterov momentum).

  Keeps moving averages of the gradient, of the gradient difference and of
  the square of a Nesterov-corrected gradient:

  .. math::

    m_t &= \beta_1 m_{t-1} + (1 - \beta_1) g_t \\
    v_t &= \beta_2 v_{t-1} + (1 - \beta_2) (g_t - g_{t-1}) \\
    n_t &= \beta_3 n_{t-1} + (1 - \beta_3) (g_t + \beta_2 (g_t -
      g_{t-1}))^2 \\
    u_t &= -\eta_t \left(\frac{\hat{m}_t + \beta_2 \hat{v}_t}
      {\sqrt{\hat{n}_t + \epsilon_{root}} + \epsilon} + \lambda
      \theta_t\right)

  where hats denote bias-corrected averages. (The ``b2`` here weights the
  gradient difference; the paper's :math:`\beta_i` are one minus these.)

  Examples:
    >>> import jax.numpy as jnp
    >>> import numpy as np
    >>> import optax
    >>> opt = optax.adan(learning_rate=0.1)
    >>> params = jnp.array([1.0, -2.0])
    >>> updates, _ = opt.update(2 * params, opt.init(params), params)
    >>> print(np.asarray(updates).round(4))
    [-0.1  0.1]

  Args:
    learning_rate: the learning rate :math:`\eta`, a number or a schedule.
    b1: the decay of the gradient average.
    b2: the decay of the gradient-difference average.
    b3: the decay of the squared-gradient average.
    eps: added to the denominator, outside the square root.
    eps_root: added inside the square root.
    weight_decay: the coefficient :math:`\lambda` of the decoupled weight
      decay.
    mask: a tree of booleans shaped like the params (or a function returning
      one) selecting the leaves to decay.

  Returns:
    A :class:`optax.GradientTransformationExtraArgs`; its ``update``
    requires ``params``.

  References:
    Xie et al., `Adan: adaptive Nesterov momentum algorithm for faster
    optimizing deep models <https://arxiv.org/abs/2208.06677>`_, 2022.
  """
  return _combining.chain(
      transform.scale_by_adan(
          b1=b1, b2=b2, b3=b3, eps=eps, eps_root=eps_root),
      _adding.add_decayed_weights(weight_decay, mask),
      transform.scale_by_learning_rate(learning_rate),
  )


@arguments.declare()
def amsgrad(
    learning_rate: base.ScalarOrSchedule,
    b1: float = 0.9,
    b2: float = 0.999,
    eps: float = 1e-8,
    eps_root: float = 0.0,
    mu_dtype: Optional[Any] = None,
    bias_correction_mu: bool = True,
    bias_correction_nu: bool = True,
) -> base.GradientTransformationExtraArgs:
  r"""The AMSGrad optimizer: Adam with a non-decreasing second moment.

  .. math::

    \hat{v}^{\max}_t = \max(\hat{v}^{\max}_{t-1}, \hat{v}_t), \quad
    u_t = -\eta_t \, \frac{\hat{m}_t}{\sqrt{\hat{v}^{\max}_t +
      \epsilon_{root}} + \epsilon}

  with :math:`\hat{m}_t, \hat{v}_t` as in :func:`adam` (bias correction of
  each may be switched off).

  Examples:
    >>> import jax.numpy as jnp
    >>> import numpy as np
    >>> import optax
    >>> opt = optax.amsgrad(learning_rate=0.1)
    >>> params = jnp.array([1.0, -2.0])
    >>> updates, _ = opt.update(2 * params, opt.init(params))
    >>> print(np.asarray(updates).round(4))
    [-0.1  0.1]

  Args:
    learning_rate: the learning rate :math:`\eta`, a number or a schedule.
    b1: the decay of the first moment.
    b2: the decay of the second moment.
    eps: added to the denominator, outside the square root.
    eps_root: added inside the square root.
    mu_dtype: the dtype of the first moment; ``None`` uses the params'.
    bias_correction_mu: whether to bias-correct the first moment.
    bias_correction_nu: whether to bias-correct the second moment.

  Returns:
    A :class:`optax.GradientTransformationExtraArgs`.

  References:
    Reddi et al., `On the convergence of Adam and beyond
    <https://openreview.net/forum?id=ryQu7f-RZ>`_, 2018.
  """
  return _combining.chain(
      transform.scale_by_amsgrad(
          b1=b1, b2=b2, eps=eps, eps_root=eps_root, mu_dtype=mu_dtype,
          bias_correction_mu=bias_correction_mu,
          bias_correction_nu=bias_correction_nu),
      transform.scale_by_learning_rate(learning_rate),
  )


def _fromage_multiplier(learning_rate: Any) -> tuple[jax.Array, jax.Array]:
  """The learning rate and ``1 / sqrt(1 + lr ** 2)``, as arrays."""
  lr = hyperparameters.as_hyperparameter(learning_rate)
  return lr, 1 / jnp.sqrt(1 + lr * lr)


def _fromage_step(learning_rate: Any) -> base.GradientTransformation:
  """Stateless ``u -> -lr / sqrt(1 + lr ** 2) * u``, derived in ``update``."""

  def update_fn(updates, state, params=None):
    del params
    lr, mult = _fromage_multiplier(learning_rate)
    factor = -(lr * mult)
    updates = jax.tree.map(
        lambda u: None if u is None else (factor * u).astype(u.dtype),
        updates, is_leaf=lambda x: x is None)
    return updates, state

  return base.GradientTransformation(base.init_empty_state, update_fn)


def _fromage_shrink(learning_rate: Any) -> base.GradientTransformation:
  """Stateless ``u -> u + (1 / sqrt(1 + lr ** 2) - 1) * params``."""

  def update_fn(updates, state, params=None):
    validation.require_params(
        'fromage', params, 'the shrinkage is applied to the current params')
    _, mult = _fromage_multiplier(learning_rate)
    decay = mult - 1
    updates = jax.tree.map(
        lambda u, p: None if u is None else (u + decay * p).astype(u.dtype),
        updates, params, is_leaf=lambda x: x is None)
    return updates, state

  return base.GradientTransformation(base.init_empty_state, update_fn)


@arguments.declare(learning_rate=arguments.learning_rate)
def fromage(
    learning_rate: base.ScalarOrSchedule,
    min_norm: float = 1e-6,
) -> base.GradientTransformationExtraArgs:
  r"""The Frobenius matched gradient descent (Fromage) optimizer.

  Each leaf moves by a step of relative size :math:`\eta` and is then shrunk
  so that its norm does not grow:

  .. math::

    \theta_{t+1} = \frac{1}{\sqrt{1 + \eta_t^2}} \left(\theta_t - \eta_t
      \frac{\|\theta_t\|}{\|g_t\|} g_t\right)

  Examples:
    >>> import jax.numpy as jnp
    >>> import numpy as np
    >>> import optax
    >>> opt = optax.fromage(learning_rate=0.1)
    >>> params = jnp.array([1.0, -2.0])
    >>> updates, _ = opt.update(2 * params, opt.init(params), params)
    >>> print(np.asarray(updates).round(4))
    [-0.1045  0.2089]

  Args:
    learning_rate: the learning rate :math:`\eta`, a number or a schedule.
    min_norm: the smallest parameter norm used in the trust ratio.

  Returns:
    A :class:`optax.GradientTransformationExtraArgs`; its ``update``
    requires ``params``.

  References:
    Bernstein et al., `On the distance between two neural networks and the
    stability of learning <https://arxiv.org/abs/2002.03432>`_, 2020.
  """
  if callable(learning_rate):
    schedule = learning_rate

    def step_size(count):
      lr, mult = _fromage_multiplier(schedule(count))
      return lr * mult

    def weight_decay(count):
      _, mult = _fromage_multiplier(schedule(count))
      return mult - 1

    return _combining.chain(
        transform.scale_by_trust_ratio(min_norm),
        transform.scale_by_learning_rate(step_size),
        _adding.add_decayed_weights(weight_decay),
    )
  # A number (or an array injected by inject_hyperparams): the factors are
  # derived inside update, so that both give the same bits.
  return _combining.chain(
      transform.scale_by_trust_ratio(min_norm),
      _fromage_step(learning_rate),
      _fromage_shrink(learning_rate),
  )


@arguments.declare(weight_decay=arguments.finite)
def lamb(
    learning_rate: base.ScalarOrSchedule,
    b1: float = 0.9,
    b2: float = 0.999,
    eps: float = 1e-6,
    eps_root: float = 0.0,
    weight_decay: float = 0.0,
    mask: base.MaskOrFn = None,
) -> base.GradientTransformationExtraArgs:
  r"""The LAMB optimizer: layer-wise trust ratios on AdamW directions.

  .. math::

    r_t &= \frac{\hat{m}_t}{\sqrt{\hat{v}_t + \epsilon_{root}} + \epsilon}
      + \lambda \theta_t \\
    u_t &= -\eta_t \, \frac{\|\theta_t\|}{\|r_t\|} r_t

  with :math:`\hat{m}_t, \hat{v}_t` as in :func:`adam` and norms taken per
  leaf (the ratio is 1 when either norm is 0).

  Examples:
    >>> import jax.numpy as jnp
    >>> import numpy as np
    >>> import optax
    >>> opt = optax.lamb(learning_rate=0.1)
    >>> params = jnp.array([1.0, -2.0])
    >>> updates, _ = opt.update(2 * params, opt.init(params), params)
    >>> print(np.asarray(updates).round(4))
    [-0.1581  0.1581]

  Args:
    learning_rate: the learning rate :math:`\eta`, a number or a schedule.
    b1: the decay of the first moment.
    b2: the decay of the second moment.
    eps: added to the denominator, outside the square root.
    eps_root: added inside the square root.
    weight_decay: the coefficient :math:`\lambda` of the weight decay.
    mask: a tree of booleans shaped like the params (or a function returning
      one) selecting the leaves to decay.

  Returns:
    A :class:`optax.GradientTransformationExtraArgs`; its ``update``
    requires ``params``.

  References:
    You et al., `Large batch optimization for deep learning: training BERT
    in 76 minutes <https://arxiv.org/abs/1904.00962>`_, 2020.
  """
  return _combining.chain(
      transform.scale_by_adam(b1=b1, b2=b2, eps=eps, eps_root=eps_root),
      _adding.add_decayed_weights(weight_decay=weight_decay, mask=mask),
      transform.scale_by_trust_ratio(),
      transform.scale_by_learning_rate(learning_rate),
  )


@arguments.declare(weight_decay=arguments.finite,
                   momentum=(arguments.scalar_schedule_or_none,
                             arguments.closed_decay))
def lars(
    learning_rate: base.ScalarOrSchedule,
    weight_decay: float = 0.0,
    weight_decay_mask: base.MaskOrFn = True,
    trust_coefficient: float = 0.001,
    eps: float = 0.0,
    trust_ratio_mask: base.MaskOrFn = True,
    momentum: float = 0.9,
    nesterov: bool = False,
) -> base.GradientTransformationExtraArgs:
  r"""The LARS optimizer: layer-wise trust ratios with momentum.

  .. math::

    r_t &= g_t + \lambda \theta_t \\
    u_t &= \mathrm{trace}_\mu\!\left[-\eta_t \, \frac{c \|\theta_t\|}
      {\|r_t\| + \epsilon} r_t\right]

  where :math:`c` is the trust coefficient, norms are per leaf, and
  :math:`\mathrm{trace}_\mu` is heavy-ball (or Nesterov) momentum.

  Examples:
    >>> import jax.numpy as jnp
    >>> import numpy as np
    >>> import optax
    >>> opt = optax.lars(learning_rate=0.1)
    >>> params = jnp.array([1.0, -2.0])
    >>> updates, _ = opt.update(2 * params, opt.init(params), params)
    >>> print(np.asarray(updates).round(4))
    [-0.0001  0.0002]

  Args:
    learning_rate: the learning rate :math:`\eta`, a number or a schedule.
    weight_decay: the coefficient :math:`\lambda` of the weight decay.
    weight_decay_mask: a tree of booleans shaped like the params (or a
      function returning one) selecting the leaves to decay; ``True`` for
      all.
    trust_coefficient: the trust coefficient :math:`c`.
    eps: added to the norm of the update in the trust ratio.
    trust_ratio_mask: a tree of booleans (or a function returning one)
      selecting the leaves scaled by the trust ratio; ``True`` for all.
    momentum: the decay :math:`\mu` of the momentum.
    nesterov: whether to use Nesterov momentum.

  Returns:
    A :class:`optax.GradientTransformationExtraArgs`; its ``update``
    requires ``params``.

  References:
    You et al., `Large batch training of convolutional networks
    <https://arxiv.org/abs/1708.03888>`_, 2017.
  """
  return _combining.chain(
      _adding.add_decayed_weights(weight_decay, mask=weight_decay_mask),
      _masking.masked(
          inner=transform.scale_by_trust_ratio(
              trust_coefficient=trust_coefficient, eps=eps),
          mask=trust_ratio_mask),
      transform.scale_by_learning_rate(learning_rate),
      _accumulation.trace(decay=momentum, nesterov=nesterov),
  )


def _zoom_linesearch() -> base.GradientTransformationExtraArgs:
  """The default line search of :func:`lbfgs`, built on first use."""
  from optax._src import linesearch as linesearch_lib
  return linesearch_lib.scale_by_zoom_linesearch(
      max_linesearch_steps=20, initial_guess_strategy='one')


def _lazy_default_linesearch_init(params):
  return _zoom_linesearch().init(params)


def _lazy_default_linesearch_update(updates, state, params=None,
                                    **extra_args):
  return _zoom_linesearch().update(updates, state, params, **extra_args)


# The default ``linesearch`` of :func:`lbfgs`: a zoom line search (at most 20
# steps, initial guess 1), built only when used so that importing this
# module creates no array and does not import the line-search module.
_DEFAULT_LINESEARCH = base.GradientTransformationExtraArgs(
    _lazy_default_linesearch_init, _lazy_default_linesearch_update)


@arguments.declare(memory_size=arguments.positive_int)
def lbfgs(
    learning_rate: Optional[base.ScalarOrSchedule] = None,
    memory_size: int = 10,
    scale_init_precond: bool = True,
    linesearch: Optional[
        base.GradientTransformationExtraArgs
    ] = _DEFAULT_LINESEARCH,
) -> base.GradientTransformationExtraArgs:
  r"""The L-BFGS optimizer, with a line search.

  The direction :math:`d_t = -H_t g_t` applies the limited-memory BFGS
  approximation :math:`H_t` of the inverse Hessian, built from the last
  ``memory_size`` differences of parameters and gradients by the two-loop
  recursion; the step along it is the learning rate times the step size of
  the line search:

  .. math::

    \theta_{t+1} = \theta_t + \eta_t \, \alpha_t \, d_t

  By default :math:`\eta_t = 1` and :math:`\alpha_t` comes from a zoom line
  search (strong Wolfe conditions, at most 20 steps, starting from 1). The
  line search needs the value and gradient of the objective: pass
  ``value``, ``grad`` and ``value_fn`` to ``update`` (see
  :func:`optax.value_and_grad_from_state`).

  Examples:
    >>> import jax
    >>> import jax.numpy as jnp
    >>> import numpy as np
    >>> import optax
    >>> def f(x):
    ...   return jnp.sum((x - 1.0) ** 2)
    >>> opt = optax.lbfgs()
    >>> params = jnp.array([3.0, -2.0])
    >>> state = opt.init(params)
    >>> value_and_grad = optax.value_and_grad_from_state(f)
    >>> for _ in range(3):
    ...   value, grad = value_and_grad(params, state=state)
    ...   updates, state = opt.update(
    ...       grad, state, params, value=value, grad=grad, value_fn=f)
    ...   params = optax.apply_updates(params, updates)
    >>> print(params)
    [1. 1.]

  Args:
    learning_rate: a number or a schedule multiplying the step, or ``None``
      (a factor of 1, the usual choice with a line search).
    memory_size: the number of past differences kept, at least 1.
    scale_init_precond: whether to scale the initial inverse Hessian by
      :math:`s^\top y / y^\top y` of the latest pair (else the identity).
    linesearch: a line search transformation, or ``None`` for none (then a
      learning rate should be given). Defaults to
      ``optax.scale_by_zoom_linesearch(max_linesearch_steps=20,
      initial_guess_strategy='one')``.

  Returns:
    A :class:`optax.GradientTransformationExtraArgs`.

  References:
    Nocedal and Wright, `Numerical Optimization
    <https://doi.org/10.1007/978-0-387-40065-5>`_, 2006 (algorithms 7.4 and
    7.5).

    Liu and Nocedal, `On the limited memory BFGS method for large scale
    optimization <https://doi.org/10.1007/BF01589116>`_, 1989.
  """
  if learning_rate is None:
    base_scaling = transform.scale(-1.0)
  else:
    base_scaling = transform.scale_by_learning_rate(learning_rate)
  if linesearch is _DEFAULT_LINESEARCH:
    linesearch = _zoom_linesearch()
  elif linesearch is None:
    linesearch = base.identity()
  return _combining.chain(
      transform.scale_by_lbfgs(
          memory_size=memory_size, scale_init_precond=scale_init_precond),
      base_scaling,
      linesearch,
  )


@arguments.declare(weight_decay=arguments.finite)
def lion(
    learning_rate: base.ScalarOrSchedule,
    b1: float = 0.9,
    b2: float = 0.99,
    mu_dtype: Optional[Any] = None,
    weight_decay: float = 1e-3,
    mask: base.MaskOrFn = None,
) -> base.GradientTransformationExtraArgs:
  r"""The Lion optimizer (evolved sign momentum).

  .. math::

    c_t &= \mathrm{sign}(\beta_1 m_{t-1} + (1 - \beta_1) g_t) \\
    m_t &= \beta_2 m_{t-1} + (1 - \beta_2) g_t \\
    u_t &= -\eta_t (c_t + \lambda \theta_t)

  Updates have unit entries, so Lion usually wants a learning rate 3 to 10
  times smaller, and a weight decay as many times larger, than AdamW.

  Examples:
    >>> import jax.numpy as jnp
    >>> import numpy as np
    >>> import optax
    >>> opt = optax.lion(learning_rate=0.1)
    >>> params = jnp.array([1.0, -2.0])
    >>> updates, _ = opt.update(2 * params, opt.init(params), params)
    >>> print(np.asarray(updates).round(4))
    [-0.1001  0.1002]

  Args:
    learning_rate: the learning rate :math:`\eta`, a number or a schedule.
    b1: the interpolation weight of the momentum in the update direction.
    b2: the decay of the momentum.
    mu_dtype: the dtype of the momentum; ``None`` uses the params'.
    weight_decay: the coefficient :math:`\lambda` of the weight decay.
    mask: a tree of booleans shaped like the params (or a function returning
      one) selecting the leaves to decay.

  Returns:
    A :class:`optax.GradientTransformationExtraArgs`; its ``update``
    requires ``params``.

  References:
    Chen et al., `Symbolic discovery of optimization algorithms
    <https://arxiv.org/abs/2302.06675>`_, 2023.
  """
  return _combining.chain(
      transform.scale_by_lion(b1=b1, b2=b2, mu_dtype=mu_dtype),
      _adding.add_decayed_weights(weight_decay, mask),
      transform.scale_by_learning_rate(learning_rate),
  )


@arguments.declare()  # add_noise checks eta and gamma.
def noisy_sgd(
    learning_rate: base.ScalarOrSchedule,
    eta: float = 0.01,
    gamma: float = 0.55,
    key: Optional[Union[base.PRNGKey, int]] = None,
    *,
    seed: Optional[int] = None,
) -> base.GradientTransformationExtraArgs:
  r"""Stochastic gradient descent with annealed Gaussian gradient noise.

  .. math::

    u_t = -\eta_t \left(g_t + \xi_t\right), \quad
    \xi_t \sim \mathcal{N}\!\left(0, \frac{\eta_{noise}}{t^{\gamma}}
      I\right)

  The key is kept as given (or as a seed) and becomes an array in ``init``,
  so building the optimizer creates no array.

  Examples:
    >>> import jax.numpy as jnp
    >>> import numpy as np
    >>> import optax
    >>> opt = optax.noisy_sgd(learning_rate=0.1, eta=0.0, key=0)
    >>> params = jnp.array([1.0, -2.0])
    >>> updates, _ = opt.update(2 * params, opt.init(params))
    >>> print(np.asarray(updates).round(4))
    [-0.2  0.4]

  Args:
    learning_rate: the learning rate :math:`\eta_t`, a number or a schedule.
    eta: the initial variance :math:`\eta_{noise}` of the noise.
    gamma: the decay exponent :math:`\gamma` of the variance.
    key: a PRNG key or an integer seed for the noise.
    seed: deprecated, use ``key``.

  Returns:
    A :class:`optax.GradientTransformationExtraArgs`.

  References:
    Neelakantan et al., `Adding gradient noise improves learning for very
    deep networks <https://arxiv.org/abs/1511.06807>`_, 2015.
  """
  return _combining.chain(
      _adding.add_noise(eta, gamma, key, seed=seed),
      transform.scale_by_learning_rate(learning_rate),
  )


@arguments.declare(weight_decay=arguments.finite)
def novograd(
    learning_rate: base.ScalarOrSchedule,
    b1: float = 0.9,
    b2: float = 0.25,
    eps: float = 1e-6,
    eps_root: float = 0.0,
    weight_decay: float = 0.0,
) -> base.GradientTransformationExtraArgs:
  r"""The NovoGrad optimizer: layer-wise second moments.

  With a scalar second moment per leaf,

  .. math::

    v_t &= \beta_2 v_{t-1} + (1 - \beta_2) \|g_t\|^2 \\
    m_t &= \beta_1 m_{t-1} + \left(\frac{g_t}{\sqrt{v_t + \epsilon_{root}}
      + \epsilon} + \lambda \theta_t\right) \\
    u_t &= -\eta_t \, m_t

  where the first step sets :math:`v_1 = \|g_1\|^2`.

  Examples:
    >>> import jax.numpy as jnp
    >>> import numpy as np
    >>> import optax
    >>> opt = optax.novograd(learning_rate=0.1)
    >>> params = jnp.array([1.0, -2.0])
    >>> updates, _ = opt.update(2 * params, opt.init(params), params)
    >>> print(np.asarray(updates).round(4))
    [-0.0447  0.0894]

  Args:
    learning_rate: the learning rate :math:`\eta`, a number or a schedule.
    b1: the decay of the first moment.
    b2: the decay of the layer-wise second moment.
    eps: added to the denominator, outside the square root.
    eps_root: added inside the square root.
    weight_decay: the coefficient :math:`\lambda` of the weight decay.

  Returns:
    A :class:`optax.GradientTransformationExtraArgs`; its ``update``
    requires ``params``.

  References:
    Ginsburg et al., `Stochastic gradient methods with layer-wise adaptive
    moments for training of deep networks
    <https://arxiv.org/abs/1905.11286>`_, 2019.
  """
  return _combining.chain(
      transform.scale_by_novograd(
          b1=b1, b2=b2, eps=eps, eps_root=eps_root,
          weight_decay=weight_decay),
      transform.scale_by_learning_rate(learning_rate),
  )


@arguments.declare()
def optimistic_gradient_descent(
    learning_rate: base.ScalarOrSchedule,
    alpha: base.ScalarOrSchedule = 1.0,
    beta: base.ScalarOrSchedule = 1.0,
) -> base.GradientTransformationExtraArgs:
  r"""Optimistic gradient descent, for min-max problems.

  .. math::

    u_t = -\eta_t \left((\alpha + \beta) g_t - \beta g_{t-1}\right)

  The extrapolation :math:`\beta (g_t - g_{t-1})` anticipates the next
  gradient, which makes gradient descent-ascent converge on bilinear
  games where it would cycle.

  Examples:
    >>> import jax.numpy as jnp
    >>> import numpy as np
    >>> import optax
    >>> opt = optax.optimistic_gradient_descent(learning_rate=0.1)
    >>> params = jnp.array([1.0, -2.0])
    >>> updates, _ = opt.update(2 * params, opt.init(params))
    >>> print(np.asarray(updates).round(4))
    [-0.2  0.4]

  Args:
    learning_rate: the learning rate :math:`\eta`, a number or a schedule.
    alpha: the weight :math:`\alpha` of the current gradient.
    beta: the weight :math:`\beta` of the extrapolation.

  Returns:
    A :class:`optax.GradientTransformationExtraArgs`.

  References:
    Mokhtari et al., `A unified analysis of extra-gradient and optimistic
    gradient methods for saddle point problems
    <https://arxiv.org/abs/1901.08511>`_, 2019.
  """
  return _combining.chain(
      transform.scale_by_optimistic_gradient(alpha=alpha, beta=beta),
      transform.scale_by_learning_rate(learning_rate),
  )


@arguments.declare(learning_rate=arguments.learning_rate,
                   optimism=arguments.scalar_schedule_or_none)
def optimistic_adam(
    learning_rate: float,
    optimism: Optional[float] = None,
    b1: float = 0.9,
    b2: float = 0.999,
    eps: float = 1e-08,
    eps_root: float = 0.0,
    mu_dtype: Optional[Any] = None,
    *,
    nesterov: bool = True,
) -> base.GradientTransformationExtraArgs:
  r"""Optimistic Adam, for min-max problems.

  The optimistic extrapolation of :func:`optimistic_gradient_descent`
  applied to the Adam direction :math:`d_t`:

  .. math::

    u_t = -\left((\eta + o) d_t - o \, d_{t-1}\right)

  with :math:`o` the optimism (by default the learning rate). The learning
  rate must be a number; use :func:`optimistic_adam_v2` for schedules.

  Examples:
    >>> import jax.numpy as jnp
    >>> import numpy as np
    >>> import optax
    >>> opt = optax.optimistic_adam(learning_rate=0.1)
    >>> params = jnp.array([1.0, -2.0])
    >>> updates, _ = opt.update(2 * params, opt.init(params))
    >>> print(np.asarray(updates).round(4))
    [-0.1474  0.1474]

  Args:
    learning_rate: the learning rate :math:`\eta`, a number.
    optimism: the weight :math:`o` of the extrapolation; ``None`` uses the
      learning rate.
    b1: the decay of the first moment.
    b2: the decay of the second moment.
    eps: added to the denominator, outside the square root.
    eps_root: added inside the square root.
    mu_dtype: the dtype of the first moment; ``None`` uses the params'.
    nesterov: whether to use Nesterov momentum in Adam.

  Returns:
    A :class:`optax.GradientTransformationExtraArgs`.

  Raises:
    ValueError: if ``learning_rate`` is a schedule.

  References:
    Daskalakis et al., `Training GANs with optimism
    <https://arxiv.org/abs/1711.00141>`_, 2018.

  .. warning::
    Deprecated: calling it emits a ``DeprecationWarning``; use
    :func:`optimistic_adam_v2`.

  .. seealso:: :func:`optimistic_adam_v2`
  """
  warnings.warn(
      '`optimistic_adam` is deprecated, please use `optimistic_adam_v2`'
      ' instead.',
      DeprecationWarning,
      stacklevel=3,  # The caller of the declaration's wrapper.
  )
  if callable(learning_rate):
    raise ValueError(
        'optimistic_adam: this version of `optimistic_adam` does not support'
        ' learning rate schedules but `optimistic_adam_v2` does.')
  if optimism is None:
    optimism = learning_rate
  return _combining.chain(
      transform.scale_by_adam(
          b1=b1, b2=b2, eps=eps, eps_root=eps_root, mu_dtype=mu_dtype,
          nesterov=nesterov),
      transform.scale_by_optimistic_gradient(
          alpha=learning_rate, beta=optimism),
      transform.scale(-1.0),
  )


@arguments.declare()
def optimistic_adam_v2(
    learning_rate: base.ScalarOrSchedule,
    *,
    alpha: base.ScalarOrSchedule = 1.0,
    beta: base.ScalarOrSchedule = 1.0,
    b1: float = 0.9,
    b2: float = 0.999,
    eps: float = 1e-08,
    eps_root: float = 0.0,
    mu_dtype: Optional[Any] = None,
    nesterov: bool = True,
) -> base.GradientTransformationExtraArgs:
  r"""Optimistic Adam with a separate learning rate (schedules allowed).

  .. math::

    u_t = -\eta_t \left((\alpha + \beta) d_t - \beta d_{t-1}\right)

  with :math:`d_t` the Adam direction.

  Examples:
    >>> import jax.numpy as jnp
    >>> import numpy as np
    >>> import optax
    >>> opt = optax.optimistic_adam_v2(learning_rate=0.1)
    >>> params = jnp.array([1.0, -2.0])
    >>> updates, _ = opt.update(2 * params, opt.init(params))
    >>> print(np.asarray(updates).round(4))
    [-0.1474  0.1474]

  Args:
    learning_rate: the learning rate :math:`\eta`, a number or a schedule.
    alpha: the weight :math:`\alpha` of the current direction.
    beta: the weight :math:`\beta` of the extrapolation.
    b1: the decay of the first moment.
    b2: the decay of the second moment.
    eps: added to the denominator, outside the square root.
    eps_root: added inside the square root.
    mu_dtype: the dtype of the first moment; ``None`` uses the params'.
    nesterov: whether to use Nesterov momentum in Adam.

  Returns:
    A :class:`optax.GradientTransformationExtraArgs`.

  References:
    Daskalakis et al., `Training GANs with optimism
    <https://arxiv.org/abs/1711.00141>`_, 2018.
  """
  return _combining.chain(
      transform.scale_by_adam(
          b1=b1, b2=b2, eps=eps, eps_root=eps_root, mu_dtype=mu_dtype,
          nesterov=nesterov),
      transform.scale_by_optimistic_gradient(alpha=alpha, beta=beta),
      transform.scale_by_learning_rate(learning_rate),
  )


@arguments.declare(scaling=arguments.scalar_schedule_or_none)
def polyak_sgd(
    max_learning_rate: float = 1.0,
    scaling: base.ScalarOrSchedule = 1.0,
    f_min: float = 0.0,
    eps: float = 0.0,
    variant: str = 'sps',
) -> base.GradientTransformationExtraArgs:
  r"""SGD with a Polyak step size.

  .. math::

    u_t = -\min\left(\frac{f(\theta_t) - f^\star}{\|s g_t\|^2 + \epsilon},
      \eta_{\max}\right) s \, g_t

  with :math:`s` = ``scaling`` and :math:`f^\star` = ``f_min`` a lower bound
  of the objective. The variant ``'sps+'`` clips the numerator at 0.
  ``update`` needs the current objective: ``update(grads, state, params,
  value=f(params))``.

  Examples:
    >>> import jax.numpy as jnp
    >>> import numpy as np
    >>> import optax
    >>> opt = optax.polyak_sgd()
    >>> params = jnp.array([1.0, -2.0])
    >>> updates, _ = opt.update(
    ...     2 * params, opt.init(params), value=jnp.sum(params ** 2))
    >>> print(np.asarray(updates).round(4))
    [-0.5  1. ]

  Args:
    max_learning_rate: the largest step size :math:`\eta_{\max}`.
    scaling: the factor :math:`s` applied to the gradient first, a number
      or a schedule.
    f_min: a lower bound :math:`f^\star` of the objective.
    eps: added to the squared gradient norm.
    variant: ``'sps'`` or ``'sps+'``.

  Returns:
    A :class:`optax.GradientTransformationExtraArgs` whose ``update`` takes
    a keyword argument ``value``.

  References:
    Loizou et al., `Stochastic Polyak step-size for SGD: an adaptive
    learning rate for fast convergence <https://arxiv.org/abs/2002.10542>`_,
    2021.

    Berrada et al., `Training neural networks for and by interpolation
    <https://arxiv.org/abs/1906.05661>`_, 2020.
  """
  return _combining.chain(
      sgd(learning_rate=scaling),
      transform.scale_by_polyak(
          max_learning_rate=max_learning_rate, f_min=f_min, eps=eps,
          variant=variant),
  )


@arguments.declare()
def radam(
    learning_rate: base.ScalarOrSchedule,
    b1: float = 0.9,
    b2: float = 0.999,
    eps: float = 1e-8,
    eps_root: float = 0.0,
    threshold: float = 5.0,
    *,
    nesterov: bool = False,
) -> base.GradientTransformationExtraArgs:
  r"""The Rectified Adam optimizer.

  Adam whose adaptive term is switched on only once the variance of the
  second-moment estimate is tractable, and then rectified:

  .. math::

    \rho_t &= \rho_\infty - \frac{2 t \beta_2^t}{1 - \beta_2^t}, \quad
    \rho_\infty = \frac{2}{1 - \beta_2} - 1 \\
    u_t &= -\eta_t \begin{cases}
      r_t \, \hat{m}_t / (\sqrt{\hat{v}_t + \epsilon_{root}} + \epsilon) &
      \rho_t \geq \tau \\
      \hat{m}_t & \text{otherwise}
    \end{cases}, \quad
    r_t = \sqrt{\frac{(\rho_t - 4)(\rho_t - 2) \rho_\infty}
      {(\rho_\infty - 4)(\rho_\infty - 2) \rho_t}}

  with :math:`\tau` = ``threshold``.

  Examples:
    >>> import jax.numpy as jnp
    >>> import numpy as np
    >>> import optax
    >>> opt = optax.radam(learning_rate=0.1)
    >>> params = jnp.array([1.0, -2.0])
    >>> updates, _ = opt.update(2 * params, opt.init(params))
    >>> print(np.asarray(updates).round(4))
    [-0.2  0.4]

  Args:
    learning_rate: the learning rate :math:`\eta`, a number or a schedule.
    b1: the decay of the first moment.
    b2: the decay of the second moment.
    eps: added to the denominator, outside the square root.
    eps_root: added inside the square root.
    threshold: the threshold :math:`\tau` on :math:`\rho_t`.
    nesterov: whether to use Nesterov momentum.

  Returns:
    A :class:`optax.GradientTransformationExtraArgs`.

  References:
    Liu et al., `On the variance of the adaptive learning rate and beyond
    <https://arxiv.org/abs/1908.03265>`_, 2020.
  """
  return _combining.chain(
      transform.scale_by_radam(
          b1=b1, b2=b2, eps=eps, eps_root=eps_root, threshold=threshold,
          nesterov=nesterov),
      transform.scale_by_learning_rate(learning_rate),
  )


@arguments.declare(momentum=(arguments.scalar_schedule_or_none,
                             arguments.closed_decay))
def rmsprop(
    learning_rate: base.ScalarOrSchedule,
    decay: float = 0.9,
    eps: float = 1e-8,
    initial_scale: float = 0.0,
    eps_in_sqrt: bool = True,
    centered: bool = False,
    momentum: Optional[float] = None,
    nesterov: bool = False,
    bias_correction: bool = False,
) -> base.GradientTransformationExtraArgs:
  r"""The RMSProp optimizer.

  .. math::

    v_t &= \rho v_{t-1} + (1 - \rho) g_t^2 \\
    u_t &= \mathrm{trace}_\mu\!\left[-\eta_t \, \frac{g_t}{\sqrt{v_t +
      \epsilon}}\right]

  with :math:`v_0` = ``initial_scale``. ``centered=True`` divides by the
  standard deviation, :math:`\sqrt{v_t - m_t^2 + \epsilon}` with :math:`m_t`
  the running mean of the gradient; ``eps_in_sqrt=False`` moves
  :math:`\epsilon` outside the root; ``bias_correction`` debiases the
  averages as in Adam; ``momentum`` adds heavy-ball (or Nesterov) momentum.

  Examples:
    >>> import jax.numpy as jnp
    >>> import numpy as np
    >>> import optax
    >>> opt = optax.rmsprop(learning_rate=0.1)
    >>> params = jnp.array([1.0, -2.0])
    >>> updates, _ = opt.update(2 * params, opt.init(params))
    >>> print(np.asarray(updates).round(4))
    [-0.3162  0.3162]

  Args:
    learning_rate: the learning rate :math:`\eta`, a number or a schedule.
    decay: the decay :math:`\rho` of the averages.
    eps: the :math:`\epsilon` of the denominator.
    initial_scale: the initial value of the averages of squares.
    eps_in_sqrt: whether :math:`\epsilon` goes inside the square root.
    centered: whether to divide by the standard deviation of the gradient
      rather than its root mean square.
    momentum: the decay :math:`\mu` of the momentum, or ``None``.
    nesterov: whether the momentum is Nesterov's.
    bias_correction: whether to debias the averages.

  Returns:
    A :class:`optax.GradientTransformationExtraArgs`.

  References:
    Hinton, `Overview of mini-batch gradient descent (lecture 6)
    <https://www.cs.toronto.edu/~tijmen/csc321/slides/lecture_slides_lec6.pdf>`_,
    2012.

    Graves, `Generating sequences with recurrent neural networks
    <https://arxiv.org/abs/1308.0850>`_, 2013.
  """
  scale_by = transform.scale_by_stddev if centered else transform.scale_by_rms
  return _combining.chain(
      scale_by(
          decay=decay, eps=eps, initial_scale=initial_scale,
          eps_in_sqrt=eps_in_sqrt, bias_correction=bias_correction),
      transform.scale_by_learning_rate(learning_rate),
      _maybe_momentum(momentum, nesterov),
  )


@arguments.declare(
    learning_rate=arguments.learning_rate,
    eta_minus=arguments.in_interval(0, 1, include_low=False),
    eta_plus=arguments.at_least(1),
    min_step_size=arguments.non_negative)
def rprop(
    learning_rate: float,
    eta_minus: float = 0.5,
    eta_plus: float = 1.2,
    min_step_size: float = 1e-6,
    max_step_size: float = 50.0,
) -> base.GradientTransformationExtraArgs:
  r"""The Rprop optimizer: per-coordinate steps driven by gradient signs.

  Each coordinate has its own step size, multiplied by ``eta_plus`` while
  its gradient keeps its sign and by ``eta_minus`` when the sign flips
  (then the step is skipped), within ``[min_step_size, max_step_size]``:

  .. math::

    s_t = \begin{cases}
      \min(\eta^+ s_{t-1}, s_{\max}) & g_t g_{t-1} > 0 \\
      \max(\eta^- s_{t-1}, s_{\min}) & g_t g_{t-1} < 0 \\
      s_{t-1} & \text{otherwise}
    \end{cases}, \quad
    u_t = \begin{cases}
      0 & g_t g_{t-1} < 0 \\
      -s_t \, \mathrm{sign}(g_t) & \text{otherwise}
    \end{cases}

  where :math:`g_{t-1}` is taken as 0 after a step skipped on a sign flip
  (iRprop-): each call returns the step it computes.

  Examples:
    >>> import jax.numpy as jnp
    >>> import numpy as np
    >>> import optax
    >>> opt = optax.rprop(learning_rate=0.1)
    >>> params = jnp.array([1.0, -2.0])
    >>> state = opt.init(params)
    >>> updates, state = opt.update(2 * params, state)
    >>> print(np.asarray(updates).round(4))
    [-0.1  0.1]
    >>> updates, state = opt.update(2 * params, state)
    >>> print(np.asarray(updates).round(4))
    [-0.12  0.12]

  Args:
    learning_rate: the initial step size :math:`s_0`, a number.
    eta_minus: the factor :math:`\eta^-` < 1 applied on a sign change.
    eta_plus: the factor :math:`\eta^+` > 1 applied otherwise.
    min_step_size: the smallest step size :math:`s_{\min}`.
    max_step_size: the largest step size :math:`s_{\max}`.

  Returns:
    A :class:`optax.GradientTransformationExtraArgs`.

  References:
    Riedmiller and Braun, `A direct adaptive method for faster
    backpropagation learning: the RPROP algorithm
    <https://doi.org/10.1109/ICNN.1993.298623>`_, 1993.

    Igel and Hüsken, `Empirical evaluation of the improved Rprop learning
    algorithms <https://doi.org/10.1016/S0925-2312(01)00700-7>`_, 2003.
  """
  return _combining.chain(
      transform.scale_by_rprop(
          learning_rate=learning_rate, eta_minus=eta_minus,
          eta_plus=eta_plus, min_step_size=min_step_size,
          max_step_size=max_step_size),
      transform.scale(-1.0),
  )


@arguments.declare(momentum=(arguments.scalar_schedule_or_none,
                             arguments.closed_decay))
def sgd(
    learning_rate: base.ScalarOrSchedule,
    momentum: Optional[float] = None,
    nesterov: bool = False,
    accumulator_dtype: Optional[Any] = None,
) -> base.GradientTransformationExtraArgs:
  r"""Stochastic gradient descent, with optional momentum.

  .. math::

    m_t = \mu m_{t-1} + g_t, \quad u_t = -\eta_t \, m_t

  (or :math:`u_t = -\eta_t (\mu m_t + g_t)` with Nesterov momentum);
  without momentum :math:`u_t = -\eta_t g_t`.

  Examples:
    >>> import jax.numpy as jnp
    >>> import numpy as np
    >>> import optax
    >>> opt = optax.sgd(learning_rate=0.1, momentum=0.9)
    >>> params = jnp.array([1.0, -2.0])
    >>> updates, _ = opt.update(2 * params, opt.init(params))
    >>> print(np.asarray(updates).round(4))
    [-0.2  0.4]

  Args:
    learning_rate: the learning rate :math:`\eta`, a number or a schedule.
    momentum: the decay :math:`\mu` of the momentum, or ``None`` for none.
    nesterov: whether to use Nesterov momentum.
    accumulator_dtype: the dtype of the momentum; ``None`` uses the
      params'.

  Returns:
    A :class:`optax.GradientTransformationExtraArgs`.

  References:
    Sutskever et al., `On the importance of initialization and momentum in
    deep learning <http://proceedings.mlr.press/v28/sutskever13.pdf>`_,
    2013.
  """
  return _combining.chain(
      _maybe_momentum(momentum, nesterov, accumulator_dtype),
      transform.scale_by_learning_rate(learning_rate),
  )


@arguments.declare()
def sign_sgd(
    learning_rate: base.ScalarOrSchedule,
) -> base.GradientTransformationExtraArgs:
  r"""Sign SGD: steps of fixed size along the sign of the gradient.

  .. math::

    u_t = -\eta_t \, \mathrm{sign}(g_t)

  Examples:
    >>> import jax.numpy as jnp
    >>> import numpy as np
    >>> import optax
    >>> opt = optax.sign_sgd(learning_rate=0.1)
    >>> params = jnp.array([1.0, -2.0])
    >>> updates, _ = opt.update(2 * params, opt.init(params))
    >>> print(np.asarray(updates).round(4))
    [-0.1  0.1]

  Args:
    learning_rate: the learning rate :math:`\eta`, a number or a schedule.

  Returns:
    A :class:`optax.GradientTransformationExtraArgs`.

  References:
    Bernstein et al., `signSGD: compressed optimisation for non-convex
    problems <https://arxiv.org/abs/1802.04434>`_, 2018.

  .. seealso:: :func:`signum`
  """
  return _combining.chain(
      transform.scale_by_sign(),
      transform.scale_by_learning_rate(learning_rate),
  )


@arguments.declare(beta=(arguments.scalar_schedule_or_none,
                         arguments.closed_decay))
def signum(
    learning_rate: base.ScalarOrSchedule,
    beta: float = 0.9,
    accumulator_dtype: Optional[Any] = None,
) -> base.GradientTransformationExtraArgs:
  r"""Signum: sign SGD on an exponential moving average of the gradient.

  .. math::

    m_t = \beta m_{t-1} + (1 - \beta) g_t, \quad u_t = -\eta_t \,
    \mathrm{sign}(m_t)

  Examples:
    >>> import jax.numpy as jnp
    >>> import numpy as np
    >>> import optax
    >>> opt = optax.signum(learning_rate=0.1)
    >>> params = jnp.array([1.0, -2.0])
    >>> updates, _ = opt.update(2 * params, opt.init(params))
    >>> print(np.asarray(updates).round(4))
    [-0.1  0.1]

  Args:
    learning_rate: the learning rate :math:`\eta`, a number or a schedule.
    beta: the decay :math:`\beta` of the moving average.
    accumulator_dtype: the dtype of the moving average; ``None`` uses the
      params'.

  Returns:
    A :class:`optax.GradientTransformationExtraArgs`.

  References:
    Bernstein et al., `signSGD: compressed optimisation for non-convex
    problems <https://arxiv.org/abs/1802.04434>`_, 2018.

  .. seealso:: :func:`sign_sgd`
  """
  return _combining.chain(
      _accumulation.ema(
          decay=beta, debias=False, accumulator_dtype=accumulator_dtype),
      transform.scale_by_sign(),
      transform.scale_by_learning_rate(learning_rate),
  )


# scale_by_sm3 calls it b1: the declaration names the user's argument.
@arguments.declare(momentum=(arguments.scalar_schedule_or_none,
                             arguments.closed_decay))
def sm3(
    learning_rate: float,
    momentum: float = 0.9,
) -> base.GradientTransformationExtraArgs:
  r"""The SM3 optimizer: memory-efficient adaptive steps.

  The sum of squared gradients of each entry is bounded by the minimum over
  its axes of per-axis accumulators (one vector per axis instead of a full
  array); the gradient is divided by its root and averaged with momentum:

  .. math::

    \nu_t(i) &= \min_{r \ni i} \mu_{t-1}(r) + g_t(i)^2, \quad
    \mu_t(r) = \max_{i \in r} \nu_t(i) \\
    u_t &= -\eta \left(\beta u'_{t-1} + (1 - \beta)
      \frac{g_t}{\sqrt{\nu_t + \epsilon}}\right)

  with :math:`\epsilon = 10^{-8}` (the default ``eps`` of
  :func:`optax.scale_by_sm3`) and the quotient taken as 0 where
  :math:`\nu_t = 0`.

  Examples:
    >>> import jax.numpy as jnp
    >>> import numpy as np
    >>> import optax
    >>> opt = optax.sm3(learning_rate=0.1)
    >>> params = jnp.array([1.0, -2.0])
    >>> updates, _ = opt.update(2 * params, opt.init(params))
    >>> print(np.asarray(updates).round(4))
    [-0.01  0.01]

  Args:
    learning_rate: the learning rate :math:`\eta`, a number (or a
      schedule).
    momentum: the decay :math:`\beta` of the momentum.

  Returns:
    A :class:`optax.GradientTransformationExtraArgs`.

  References:
    Anil et al., `Memory-efficient adaptive optimization
    <https://arxiv.org/abs/1901.11150>`_, 2019.
  """
  return _combining.chain(
      transform.scale_by_sm3(momentum),
      transform.scale_by_learning_rate(learning_rate),
  )


@arguments.declare()
def yogi(
    learning_rate: base.ScalarOrSchedule,
    b1: float = 0.9,
    b2: float = 0.999,
    eps: float = 1e-3,
) -> base.GradientTransformationExtraArgs:
  r"""The Yogi optimizer: Adam with an additive second-moment update.

  .. math::

    v_t = v_{t-1} - (1 - \beta_2) \, \mathrm{sign}(v_{t-1} - g_t^2) \,
    g_t^2, \quad u_t = -\eta_t \, \frac{m_t}{\sqrt{v_t} + \epsilon}

  with :math:`m_t` the (not bias-corrected) first moment and :math:`v_0 =
  10^{-6}`. The second moment moves by at most :math:`(1 - \beta_2)
  g_t^2`, which makes it react slowly to large gradients.

  Examples:
    >>> import jax.numpy as jnp
    >>> import numpy as np
    >>> import optax
    >>> opt = optax.yogi(learning_rate=0.1)
    >>> params = jnp.array([1.0, -2.0])
    >>> updates, _ = opt.update(2 * params, opt.init(params))
    >>> print(np.asarray(updates).round(4))
    [-0.0999  0.1   ]

  Args:
    learning_rate: the learning rate :math:`\eta`, a number or a schedule.
    b1: the decay of the first moment.
    b2: the decay of the second moment.
    eps: added to the denominator.

  Returns:
    A :class:`optax.GradientTransformationExtraArgs`.

  References:
    Zaheer et al., `Adaptive methods for nonconvex optimization
    <https://papers.nips.cc/paper/8186-adaptive-methods-for-nonconvex-optimization>`_,
    2018.
  """
  return _combining.chain(
      transform.scale_by_yogi(b1=b1, b2=b2, eps=eps),
      transform.scale_by_learning_rate(learning_rate),
  )
