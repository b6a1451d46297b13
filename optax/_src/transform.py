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
"""Gradient transformations that rescale updates.

Each factory of this module returns a ``GradientTransformation`` that maps
updates (usually gradients) to rescaled updates: by a constant or a schedule
(``scale``, ``scale_by_learning_rate``), or by statistics of past updates
(``scale_by_adam``, ``scale_by_rms``, ...). Optimizers in ``optax`` are
chains of these building blocks.

All factories follow the same conventions: nothing but Python configuration
is captured when a transformation is built, numeric hyperparameters are
turned into arrays of ``numerics.hyperparameter_dtype()`` inside ``update``
before anything is derived from them, state leaves keep their dtype from
step to step and update leaves keep the dtype of the incoming updates.
"""

from typing import Any, NamedTuple, Optional, Union

import jax
import jax.numpy as jnp
import numpy as np

from optax import tree_utils as otu
from optax._src import base
from optax._src import moments
from optax._src import numerics
from optax._src import utils
from optax.tree_utils import _tree_math
from optax.transforms import _accumulation
from optax.transforms import _adding

# Transformations that moved to ``optax.transforms``, re-exported under the
# names users import from this module.
add_decayed_weights = _adding.add_decayed_weights
AddDecayedWeightsState = base.AddDecayedWeightsState
add_noise = _adding.add_noise
AddNoiseState = _adding.AddNoiseState
ema = _accumulation.ema
EmaState = _accumulation.EmaState
trace = _accumulation.trace
TraceState = _accumulation.TraceState
ScaleByTrustRatioState = base.ScaleByTrustRatioState

_Hyper = Union[float, jax.Array]


# ------------------------------------------------------------------------------
# Helpers shared by the factories below.
# ------------------------------------------------------------------------------


def _check_decay(fn: str, name: str, value: Any, *,
                 allow_one: bool = False) -> None:
  """Raises if a Python-number decay rate is outside [0, 1) (or [0, 1])."""
  if not numerics.is_number(value):
    return
  if allow_one:
    if not 0.0 <= value <= 1.0:
      raise ValueError(f'{fn}: {name} must be in [0, 1], got {value}')
  elif not 0.0 <= value < 1.0:
    raise ValueError(f'{fn}: {name} must be in [0, 1), got {value}')


def _check_non_negative(fn: str, name: str, value: Any) -> None:
  """Raises if a Python-number hyperparameter is negative."""
  if numerics.is_number(value) and value < 0:
    raise ValueError(f'{fn}: {name} must be non-negative, got {value}')


def _check_positive(fn: str, name: str, value: Any) -> None:
  """Raises if a Python-number hyperparameter is not strictly positive."""
  if numerics.is_number(value) and value <= 0:
    raise ValueError(f'{fn}: {name} must be positive, got {value}')


def _hp(value: Any) -> jax.Array:
  """Shorthand for ``numerics.as_hyperparameter``."""
  return numerics.as_hyperparameter(value)


def _missing_params_error(fn: str) -> ValueError:
  return ValueError(
      f'{fn}: params must be given to update (got None); this'
      ' transformation needs the current parameters. Remedy: call'
      ' tx.update(updates, state, params).')


# The shared helpers live in ``moments``; short aliases for this module.
_bias_correction = moments.bias_correction
_lift = moments.lift
_scale_leaves = moments.scale_leaves
_adam_ratio = moments.adam_ratio
_unzip = moments.unzip
_widen = moments.widen_moments
_cast_like = moments.cast_like
_nesterov_first_moment = moments.nesterov_first_moment


# ------------------------------------------------------------------------------
# Scaling by a constant or a schedule.
# ------------------------------------------------------------------------------


ScaleState = base.ScaleState


def scale(step_size: float) -> base.GradientTransformation:
  r"""Multiplies every update by a constant.

  .. math::

    u_t \leftarrow \alpha \, g_t

  Args:
    step_size: the factor :math:`\alpha` (a Python number or a scalar array,
      possibly traced under ``inject_hyperparams``).

  Returns:
    A stateless ``GradientTransformation`` (its state is ``ScaleState()``).

  Examples:
    >>> import jax.numpy as jnp
    >>> from optax._src import transform
    >>> tx = transform.scale(-0.5)
    >>> updates, _ = tx.update(jnp.array([1.0, 2.0]), tx.init(None))
    >>> updates
    Array([-0.5, -1. ], dtype=float32)

  .. seealso:: :func:`scale_by_learning_rate`, :func:`scale_by_schedule`
  """

  def update_fn(updates, state, params=None):
    del params
    return _scale_leaves(_hp(step_size), updates), state

  return base.GradientTransformation(base.init_empty_state, update_fn)


class ScaleByScheduleState(NamedTuple):
  """State of :func:`scale_by_schedule`.

  Attributes:
    count: int32 scalar, the number of updates done so far (the argument of
      the schedule at the next update).
  """

  count: jax.Array


def scale_by_schedule(
    step_size_fn: base.Schedule,
) -> base.GradientTransformation:
  r"""Multiplies updates by a schedule of the step count.

  .. math::

    u_t \leftarrow \alpha(t) \, g_t, \qquad t = 0, 1, 2, \ldots

  Args:
    step_size_fn: a function of the int32 step count (starting at 0)
      returning the factor :math:`\alpha(t)`.

  Returns:
    A ``GradientTransformation`` whose state is a ``ScaleByScheduleState``.

  Examples:
    >>> import jax.numpy as jnp
    >>> from optax._src import transform
    >>> tx = transform.scale_by_schedule(lambda count: 1.0 / (count + 1))
    >>> state = tx.init(jnp.zeros(2))
    >>> u, state = tx.update(jnp.array([1.0, 2.0]), state)
    >>> u, state = tx.update(jnp.array([1.0, 2.0]), state)
    >>> u
    Array([0.5, 1. ], dtype=float32)

  .. seealso:: :func:`scale`, :func:`scale_by_learning_rate`
  """
  if not callable(step_size_fn):
    raise ValueError(
        'scale_by_schedule: step_size_fn must be a callable of the step'
        f' count, got {type(step_size_fn).__name__}; use scale() for a'
        ' constant factor')

  def init_fn(params):
    del params
    return ScaleByScheduleState(count=jnp.zeros([], jnp.int32))

  def update_fn(updates, state, params=None):
    del params
    updates = _scale_leaves(_hp(step_size_fn(state.count)), updates)
    return updates, ScaleByScheduleState(
        count=numerics.safe_increment(state.count))

  return base.GradientTransformation(init_fn, update_fn)


def scale_by_learning_rate(
    learning_rate: Optional[base.ScalarOrSchedule] = None,
    *,
    flip_sign: bool = True,
) -> base.GradientTransformation:
  r"""Scales updates by a learning rate, by default with a minus sign.

  .. math::

    u_t \leftarrow -\eta_t \, g_t \quad (\text{or } +\eta_t \, g_t
    \text{ when } \texttt{flip\_sign=False})

  Gradient descent moves against the gradient, hence the default sign flip.

  Args:
    learning_rate: a number, a scalar array or a schedule (a function of the
      step count). ``None`` gives the identity (no scaling, no sign flip).
    flip_sign: whether to multiply by :math:`-\eta` rather than :math:`\eta`.

  Returns:
    A ``GradientTransformation``: stateless for a constant learning rate
    (``ScaleState``), with a ``ScaleByScheduleState`` for a schedule.

  Examples:
    >>> import jax.numpy as jnp
    >>> from optax._src import transform
    >>> tx = transform.scale_by_learning_rate(0.1)
    >>> updates, _ = tx.update(jnp.array([1.0, -2.0]), tx.init(None))
    >>> updates
    Array([-0.1,  0.2], dtype=float32)

  .. seealso:: :func:`scale`, :func:`scale_by_schedule`
  """
  if learning_rate is None:
    return base.identity()
  sign = -1 if flip_sign else 1
  if callable(learning_rate):
    schedule = learning_rate

    def signed_schedule(count):
      return sign * _hp(schedule(count))

    return scale_by_schedule(signed_schedule)

  def update_fn(updates, state, params=None):
    del params
    return _scale_leaves(sign * _hp(learning_rate), updates), state

  return base.GradientTransformation(base.init_empty_state, update_fn)


# ------------------------------------------------------------------------------
# Adam.
# ------------------------------------------------------------------------------


class ScaleByAdamState(NamedTuple):
  """State of :func:`scale_by_adam` (and of other Adam-like transforms).

  Attributes:
    count: int32 scalar, the number of updates done so far.
    mu: first moment (EMA of the updates), shaped like the params, in
      ``mu_dtype`` or the params' dtype.
    nu: second moment (EMA of the squared moduli of the updates), shaped
      like the params, in the params' (real) dtype.
  """

  count: jax.Array
  mu: base.Updates
  nu: base.Updates


def scale_by_adam(
    b1: float = 0.9,
    b2: float = 0.999,
    eps: float = 1e-8,
    eps_root: float = 0.0,
    mu_dtype: Optional[Any] = None,
    *,
    nesterov: bool = False,
) -> base.GradientTransformation:
  r"""Rescales updates by the Adam rule.

  With :math:`g_t` the incoming updates and :math:`t \geq 1` the step count,

  .. math::

    m_t &= \beta_1 m_{t-1} + (1 - \beta_1) g_t, \\
    v_t &= \beta_2 v_{t-1} + (1 - \beta_2) |g_t|^2, \\
    \hat m_t &= m_t / (1 - \beta_1^t), \qquad
    \hat v_t = v_t / (1 - \beta_2^t), \\
    u_t &= \hat m_t / \left(\sqrt{\hat v_t + \epsilon_{\text{root}}}
      + \epsilon\right).

  With ``nesterov=True`` (NAdam), :math:`\hat m_t` is replaced by
  :math:`\beta_1 m_t / (1 - \beta_1^{t+1}) + (1 - \beta_1) g_t /
  (1 - \beta_1^t)`.

  Args:
    b1: decay rate :math:`\beta_1` of the first moment, in [0, 1).
    b2: decay rate :math:`\beta_2` of the second moment, in [0, 1).
    eps: term :math:`\epsilon` added to the denominator outside the root.
    eps_root: term :math:`\epsilon_{\text{root}}` added inside the root (a
      positive value keeps gradients finite when differentiating through
      the update, e.g. in meta-learning).
    mu_dtype: dtype of the first moment; ``None`` uses the params' dtype.
    nesterov: whether to use the Nesterov momentum of NAdam.

  Returns:
    A ``GradientTransformation`` whose state is a ``ScaleByAdamState``.

  Raises:
    ValueError: if a Python-number ``b1`` or ``b2`` is outside [0, 1) or
      ``eps`` or ``eps_root`` is negative.

  Examples:
    >>> import jax.numpy as jnp
    >>> from optax._src import transform
    >>> tx = transform.scale_by_adam()
    >>> state = tx.init(jnp.zeros(2))
    >>> updates, state = tx.update(jnp.array([2.0, -0.5]), state)
    >>> updates
    Array([ 1., -1.], dtype=float32)

  References:
    Kingma and Ba, `Adam: A Method for Stochastic Optimization
    <https://arxiv.org/abs/1412.6980>`_, 2014.

    Dozat, `Incorporating Nesterov Momentum into Adam
    <https://openreview.net/pdf?id=OM0jvwB8jIp57ZJjtNEZ>`_, 2016.
  """
  fn = 'scale_by_adam'
  _check_decay(fn, 'b1', b1)
  _check_decay(fn, 'b2', b2)
  _check_non_negative(fn, 'eps', eps)
  _check_non_negative(fn, 'eps_root', eps_root)
  mu_dtype = utils.canonicalize_dtype(mu_dtype)

  def init_fn(params):
    mu = otu.tree_zeros_like(params, dtype=mu_dtype)
    nu = otu.tree_zeros_like(params)
    return ScaleByAdamState(count=jnp.zeros([], jnp.int32), mu=mu, nu=nu)

  def update_fn(updates, state, params=None):
    del params
    beta1, beta2 = _hp(b1), _hp(b2)
    epsilon, epsilon_root = _hp(eps), _hp(eps_root)
    mu = otu.tree_update_moment(
        updates, _widen(state.mu, updates), beta1, 1)
    nu = otu.tree_update_moment_per_elem_norm(updates, state.nu, beta2, 2)
    count = numerics.safe_increment(state.count)
    if nesterov:
      mu_hat = _nesterov_first_moment(updates, mu, beta1, count)
    else:
      mu_hat = otu.tree_bias_correction(mu, beta1, count)
    nu_hat = otu.tree_bias_correction(nu, beta2, count)
    updates = jax.tree.map(
        lambda g, m, v: _adam_ratio(g, m, v, epsilon_root, epsilon),
        updates, mu_hat, nu_hat)
    mu = _cast_like(mu, state.mu)
    return updates, ScaleByAdamState(count=count, mu=mu, nu=nu)

  return base.GradientTransformation(init_fn, update_fn)


def scale_by_adamax(
    b1: float = 0.9,
    b2: float = 0.999,
    eps: float = 1e-8,
) -> base.GradientTransformation:
  r"""Rescales updates by the Adamax rule (Adam with an infinity norm).

  .. math::

    m_t &= \beta_1 m_{t-1} + (1 - \beta_1) g_t, \\
    v_t &= \max(\beta_2 v_{t-1}, |g_t| + \epsilon), \\
    u_t &= \frac{m_t}{(1 - \beta_1^t)\, v_t}.

  Args:
    b1: decay rate :math:`\beta_1` of the first moment, in [0, 1).
    b2: decay rate :math:`\beta_2` of the infinity norm, in [0, 1].
    eps: term :math:`\epsilon` added to :math:`|g_t|` (keeps the
      denominator away from zero).

  Returns:
    A ``GradientTransformation`` whose state is a ``ScaleByAdamState`` (``nu``
    holds the infinity norm).

  Raises:
    ValueError: for a Python-number ``b1`` outside [0, 1), ``b2`` outside
      [0, 1] or a negative ``eps``.

  Examples:
    >>> import jax.numpy as jnp
    >>> from optax._src import transform
    >>> tx = transform.scale_by_adamax(eps=0.0)
    >>> state = tx.init(jnp.zeros(2))
    >>> updates, state = tx.update(jnp.array([2.0, -0.5]), state)
    >>> updates
    Array([ 1., -1.], dtype=float32)

  References:
    Kingma and Ba, `Adam: A Method for Stochastic Optimization
    <https://arxiv.org/abs/1412.6980>`_, 2014 (section 7.1).
  """
  fn = 'scale_by_adamax'
  _check_decay(fn, 'b1', b1)
  _check_decay(fn, 'b2', b2, allow_one=True)
  _check_non_negative(fn, 'eps', eps)

  def init_fn(params):
    return ScaleByAdamState(
        count=jnp.zeros([], jnp.int32),
        mu=otu.tree_zeros_like(params),
        nu=otu.tree_zeros_like(params))

  def update_fn(updates, state, params=None):
    del params
    beta1, beta2 = _hp(b1), _hp(b2)
    count = numerics.safe_increment(state.count)
    mu = otu.tree_update_moment(updates, state.mu, beta1, 1)
    nu = otu.tree_update_infinity_moment(updates, state.nu, beta2, _hp(eps))
    bc1 = _bias_correction(beta1, count)
    def direction(g, m, v):
      m, v, bc = _lift(m, v, bc1)
      return (m / bc / v).astype(g.dtype)

    updates = jax.tree.map(direction, updates, mu, nu)
    return updates, ScaleByAdamState(count=count, mu=mu, nu=nu)

  return base.GradientTransformation(init_fn, update_fn)


class ScaleByAmsgradState(NamedTuple):
  """State of :func:`scale_by_amsgrad`.

  Attributes:
    count: int32 scalar, the number of updates done so far.
    mu: first moment, shaped like the params, in ``mu_dtype`` or the params'
      dtype.
    nu: second moment, shaped and typed like the params.
    nu_max: running maximum of the (bias-corrected) second moment, shaped and
      typed like the params.
  """

  count: jax.Array
  mu: base.Updates
  nu: base.Updates
  nu_max: base.Updates


def scale_by_amsgrad(
    b1: float = 0.9,
    b2: float = 0.999,
    eps: float = 1e-8,
    eps_root: float = 0.0,
    mu_dtype: Optional[Any] = None,
    bias_correction_mu: bool = True,
    bias_correction_nu: bool = True,
) -> base.GradientTransformation:
  r"""Rescales updates by the AMSGrad rule.

  Adam whose denominator uses the running maximum of the second moment, so
  the effective step size never increases:

  .. math::

    m_t &= \beta_1 m_{t-1} + (1 - \beta_1) g_t, \qquad
    v_t = \beta_2 v_{t-1} + (1 - \beta_2) |g_t|^2, \\
    \hat v^{\max}_t &= \max(\hat v^{\max}_{t-1}, \hat v_t), \qquad
    u_t = \hat m_t / \left(\sqrt{\hat v^{\max}_t + \epsilon_{\text{root}}}
      + \epsilon\right),

  where :math:`\hat m_t = m_t / (1 - \beta_1^t)` and
  :math:`\hat v_t = v_t / (1 - \beta_2^t)` when the corresponding bias
  correction is on (otherwise the raw moments are used).

  Args:
    b1: decay rate of the first moment, in [0, 1).
    b2: decay rate of the second moment, in [0, 1).
    eps: term added to the denominator outside the root.
    eps_root: term added inside the root.
    mu_dtype: dtype of the first moment; ``None`` uses the params' dtype.
    bias_correction_mu: whether to bias-correct the first moment.
    bias_correction_nu: whether to bias-correct the second moment.

  Returns:
    A ``GradientTransformation`` whose state is a ``ScaleByAmsgradState``.

  Raises:
    ValueError: for Python-number decay rates outside [0, 1) (or [0, 1] when
      the matching bias correction is off) or negative ``eps``/``eps_root``.

  Examples:
    >>> import jax.numpy as jnp
    >>> from optax._src import transform
    >>> tx = transform.scale_by_amsgrad()
    >>> state = tx.init(jnp.zeros(2))
    >>> updates, state = tx.update(jnp.array([2.0, -0.5]), state)
    >>> updates
    Array([ 1., -1.], dtype=float32)

  References:
    Reddi, Kale and Kumar, `On the Convergence of Adam and Beyond
    <https://openreview.net/forum?id=ryQu7f-RZ>`_, 2018.
  """
  fn = 'scale_by_amsgrad'
  _check_decay(fn, 'b1', b1, allow_one=not bias_correction_mu)
  _check_decay(fn, 'b2', b2, allow_one=not bias_correction_nu)
  _check_non_negative(fn, 'eps', eps)
  _check_non_negative(fn, 'eps_root', eps_root)
  mu_dtype = utils.canonicalize_dtype(mu_dtype)

  def init_fn(params):
    return ScaleByAmsgradState(
        count=jnp.zeros([], jnp.int32),
        mu=otu.tree_zeros_like(params, dtype=mu_dtype),
        nu=otu.tree_zeros_like(params),
        nu_max=otu.tree_zeros_like(params))

  def update_fn(updates, state, params=None):
    del params
    beta1, beta2 = _hp(b1), _hp(b2)
    epsilon, epsilon_root = _hp(eps), _hp(eps_root)
    mu = otu.tree_update_moment(
        updates, _widen(state.mu, updates), beta1, 1)
    nu = otu.tree_update_moment_per_elem_norm(updates, state.nu, beta2, 2)
    count = numerics.safe_increment(state.count)
    mu_hat = (otu.tree_bias_correction(mu, beta1, count)
              if bias_correction_mu else mu)
    nu_hat = (otu.tree_bias_correction(nu, beta2, count)
              if bias_correction_nu else nu)
    nu_max = jax.tree.map(
        lambda vm, v: jnp.maximum(vm, v.astype(vm.dtype)), state.nu_max,
        nu_hat)
    updates = jax.tree.map(
        lambda g, m, v: _adam_ratio(g, m, v, epsilon_root, epsilon),
        updates, mu_hat, nu_max)
    mu = _cast_like(mu, state.mu)
    return updates, ScaleByAmsgradState(
        count=count, mu=mu, nu=nu, nu_max=nu_max)

  return base.GradientTransformation(init_fn, update_fn)


class ScaleByAdanState(NamedTuple):
  """State of :func:`scale_by_adan`.

  Attributes:
    m: EMA of the gradients, shaped and typed like the params.
    v: EMA of the gradient differences, shaped and typed like the params.
    n: EMA of the squared look-ahead gradients, shaped and typed like the
      params.
    g: the previous gradient, shaped and typed like the params.
    t: int32 scalar, the number of updates done so far.
  """

  m: base.Updates
  v: base.Updates
  n: base.Updates
  g: base.Updates
  t: jax.Array


def scale_by_adan(
    b1: float = 0.98,
    b2: float = 0.92,
    b3: float = 0.99,
    eps: float = 1e-8,
    eps_root: float = 0.0,
) -> base.GradientTransformation:
  r"""Rescales updates by the Adan (adaptive Nesterov momentum) rule.

  With :math:`\Delta_t = g_t - g_{t-1}` (zero at the first step),

  .. math::

    m_t &= \beta_1 m_{t-1} + (1 - \beta_1) g_t, \\
    v_t &= \beta_2 v_{t-1} + (1 - \beta_2) \Delta_t, \\
    n_t &= \beta_3 n_{t-1} + (1 - \beta_3) |g_t + (1 - \beta_2) \Delta_t|^2,
      \\
    u_t &= \frac{\hat m_t + (1 - \beta_2) \hat v_t}
      {\sqrt{\hat n_t + \epsilon_{\text{root}}} + \epsilon},

  where the hats denote bias-corrected moments
  (:math:`\hat m_t = m_t / (1 - \beta_1^t)` and likewise with
  :math:`\beta_2`, :math:`\beta_3`). The decay rates are the complements of
  the paper's :math:`\beta`'s (``b1 = 1 - beta1_paper``).

  Args:
    b1: decay rate of the gradient EMA, in [0, 1).
    b2: decay rate of the gradient-difference EMA, in [0, 1).
    b3: decay rate of the squared look-ahead gradient EMA, in [0, 1).
    eps: term added to the denominator outside the root.
    eps_root: term added inside the root.

  Returns:
    A ``GradientTransformation`` whose state is a ``ScaleByAdanState``.

  Raises:
    ValueError: for Python-number decay rates outside [0, 1) or negative
      ``eps``/``eps_root``.

  Examples:
    >>> import jax.numpy as jnp
    >>> from optax._src import transform
    >>> tx = transform.scale_by_adan()
    >>> state = tx.init(jnp.zeros(2))
    >>> updates, state = tx.update(jnp.array([2.0, -0.5]), state)
    >>> updates
    Array([ 1., -1.], dtype=float32)

  References:
    Xie, Zhou, Li, Lin and Yan, `Adan: Adaptive Nesterov Momentum Algorithm
    for Faster Optimizing Deep Models <https://arxiv.org/abs/2208.06677>`_,
    2022.
  """
  fn = 'scale_by_adan'
  _check_decay(fn, 'b1', b1)
  _check_decay(fn, 'b2', b2)
  _check_decay(fn, 'b3', b3)
  _check_non_negative(fn, 'eps', eps)
  _check_non_negative(fn, 'eps_root', eps_root)

  def init_fn(params):
    return ScaleByAdanState(
        m=otu.tree_zeros_like(params),
        v=otu.tree_zeros_like(params),
        n=otu.tree_zeros_like(params),
        g=otu.tree_zeros_like(params),
        t=jnp.zeros([], jnp.int32))

  def update_fn(updates, state, params=None):
    _tree_math.check_moments_like_updates('scale_by_adan', updates, state.m)
    del params
    beta1, beta2, beta3 = _hp(b1), _hp(b2), _hp(b3)
    epsilon, epsilon_root = _hp(eps), _hp(eps_root)
    one_minus_b2 = 1 - beta2
    first = state.t == 0
    diff = jax.tree.map(
        lambda g, prev: jnp.where(
            first, jnp.zeros_like(g), g - prev.astype(g.dtype)),
        updates, state.g)

    def look_ahead(g, d):
      g, d, c = _lift(g, d, one_minus_b2)
      return g + c * d

    lookahead = jax.tree.map(look_ahead, updates, diff)
    m = otu.tree_update_moment(updates, state.m, beta1, 1)
    v = otu.tree_update_moment(diff, state.v, beta2, 1)
    n = otu.tree_update_moment_per_elem_norm(lookahead, state.n, beta3, 2)
    t = numerics.safe_increment(state.t)
    m_hat = otu.tree_bias_correction(m, beta1, t)
    v_hat = otu.tree_bias_correction(v, beta2, t)
    n_hat = otu.tree_bias_correction(n, beta3, t)

    def direction(g, mh, vh, nh):
      mh, vh, c = _lift(mh, vh, one_minus_b2)
      return _adam_ratio(g, mh + c * vh, nh, epsilon_root, epsilon)

    new_updates = jax.tree.map(direction, updates, m_hat, v_hat, n_hat)
    prev = jax.tree.map(lambda g, p: g.astype(p.dtype), updates, state.g)
    return new_updates, ScaleByAdanState(m=m, v=v, n=n, g=prev, t=t)

  return base.GradientTransformation(init_fn, update_fn)


class ScaleByBeliefState(NamedTuple):
  """State of :func:`scale_by_belief`.

  Attributes:
    count: int32 scalar, the number of updates done so far.
    mu: EMA of the gradients, shaped and typed like the params.
    nu: EMA of the squared prediction errors :math:`|g_t - m_t|^2` (plus
      ``eps_root``), shaped and typed like the params.
  """

  count: jax.Array
  mu: base.Updates
  nu: base.Updates


def scale_by_belief(
    b1: float = 0.9,
    b2: float = 0.999,
    eps: float = 1e-16,
    eps_root: float = 1e-16,
    *,
    nesterov: bool = False,
) -> base.GradientTransformation:
  r"""Rescales updates by the AdaBelief rule.

  The second moment tracks the "belief" in the gradient, its deviation from
  the first moment:

  .. math::

    m_t &= \beta_1 m_{t-1} + (1 - \beta_1) g_t, \\
    s_t &= \beta_2 s_{t-1} + (1 - \beta_2) |g_t - m_t|^2
      + \epsilon_{\text{root}}, \\
    u_t &= \hat m_t / (\sqrt{\hat s_t} + \epsilon),

  with :math:`\hat m_t = m_t / (1 - \beta_1^t)` (or the NAdam look-ahead
  of :func:`scale_by_adam` when ``nesterov=True``) and
  :math:`\hat s_t = s_t / (1 - \beta_2^t)`.

  Args:
    b1: decay rate of the first moment, in [0, 1).
    b2: decay rate of the second moment, in [0, 1).
    eps: term added to the denominator outside the root.
    eps_root: term added to the second moment at every step.
    nesterov: whether to use Nesterov momentum.

  Returns:
    A ``GradientTransformation`` whose state is a ``ScaleByBeliefState``.

  Raises:
    ValueError: for Python-number decay rates outside [0, 1) or negative
      ``eps``/``eps_root``.

  Examples:
    >>> import jax.numpy as jnp
    >>> from optax._src import transform
    >>> tx = transform.scale_by_belief()
    >>> state = tx.init(jnp.zeros(2))
    >>> updates, state = tx.update(jnp.array([2.0, -0.5]), state)
    >>> updates
    Array([ 1.1111112, -1.1111112], dtype=float32)

  References:
    Zhuang, Tang, Ding, Tatikonda, Dvornek, Papademetris and Duncan,
    `AdaBelief Optimizer: Adapting Stepsizes by the Belief in Observed
    Gradients <https://arxiv.org/abs/2010.07468>`_, 2020.
  """
  fn = 'scale_by_belief'
  _check_decay(fn, 'b1', b1)
  _check_decay(fn, 'b2', b2)
  _check_non_negative(fn, 'eps', eps)
  _check_non_negative(fn, 'eps_root', eps_root)

  def init_fn(params):
    return ScaleByBeliefState(
        count=jnp.zeros([], jnp.int32),
        mu=otu.tree_zeros_like(params),
        nu=otu.tree_zeros_like(params))

  def update_fn(updates, state, params=None):
    del params
    beta1, beta2 = _hp(b1), _hp(b2)
    epsilon, epsilon_root = _hp(eps), _hp(eps_root)
    mu = otu.tree_update_moment(updates, state.mu, beta1, 1)
    error = jax.tree.map(lambda g, m: g - m.astype(g.dtype), updates, mu)
    nu = otu.tree_update_moment_per_elem_norm(error, state.nu, beta2, 2)
    nu = jax.tree.map(
        lambda v: jnp.add(*_lift(v, epsilon_root)).astype(v.dtype), nu)
    count = numerics.safe_increment(state.count)
    if nesterov:
      mu_hat = _nesterov_first_moment(updates, mu, beta1, count)
    else:
      mu_hat = otu.tree_bias_correction(mu, beta1, count)
    nu_hat = otu.tree_bias_correction(nu, beta2, count)
    updates = jax.tree.map(
        lambda g, m, v: _adam_ratio(g, m, v, jnp.zeros_like(epsilon),
                                    epsilon),
        updates, mu_hat, nu_hat)
    return updates, ScaleByBeliefState(count=count, mu=mu, nu=nu)

  return base.GradientTransformation(init_fn, update_fn)


class ScaleByLionState(NamedTuple):
  """State of :func:`scale_by_lion`.

  Attributes:
    count: int32 scalar, the number of updates done so far.
    mu: EMA of the gradients (decay ``b2``), shaped like the params, in
      ``mu_dtype`` or the params' dtype.
  """

  count: jax.Array
  mu: base.Updates


_LION_MODES = ('hard', 'smooth', 'refined')


def scale_by_lion(
    b1: float = 0.9,
    b2: float = 0.99,
    mu_dtype: Optional[Any] = None,
    *,
    mode: str = 'hard',
    smooth_beta: float = 1.0,
) -> base.GradientTransformation:
  r"""Rescales updates by the Lion rule (the sign of an interpolated momentum).

  .. math::

    c_t &= (1 - \beta_1) g_t + \beta_1 m_{t-1}, \\
    u_t &= \phi(c_t), \\
    m_t &= \beta_2 m_{t-1} + (1 - \beta_2) g_t,

  where :math:`\phi` is :math:`\operatorname{sign}` (``mode='hard'``),
  :math:`\tanh(\gamma \cdot)` with :math:`\gamma` = ``smooth_beta``
  (``mode='smooth'``) or the clipping to :math:`[-1, 1]`
  (``mode='refined'``).

  Args:
    b1: interpolation rate between the momentum and the gradient, in [0, 1].
    b2: decay rate of the momentum, in [0, 1].
    mu_dtype: dtype of the momentum; ``None`` uses the params' dtype.
    mode: ``'hard'``, ``'smooth'`` or ``'refined'`` (see above).
    smooth_beta: sharpness :math:`\gamma` of the ``'smooth'`` mode.

  Returns:
    A ``GradientTransformation`` whose state is a ``ScaleByLionState``.

  Raises:
    ValueError: for Python-number decay rates outside [0, 1]; an unknown
      ``mode`` is reported by ``update``.

  Examples:
    >>> import jax.numpy as jnp
    >>> from optax._src import transform
    >>> tx = transform.scale_by_lion()
    >>> state = tx.init(jnp.zeros(2))
    >>> updates, state = tx.update(jnp.array([2.0, -0.5]), state)
    >>> updates
    Array([ 1., -1.], dtype=float32)

  References:
    Chen, Liang, Huang, Real, Wang, Liu, Pham, Dong, Luong, Hsieh, Lu and
    Le, `Symbolic Discovery of Optimization Algorithms
    <https://arxiv.org/abs/2302.06675>`_, 2023.
  """
  fn = 'scale_by_lion'
  # As upstream, an unknown mode is reported by update, not here: building
  # the transformation and init succeed.
  _check_decay(fn, 'b1', b1, allow_one=True)
  _check_decay(fn, 'b2', b2, allow_one=True)
  mu_dtype = utils.canonicalize_dtype(mu_dtype)

  def init_fn(params):
    return ScaleByLionState(
        count=jnp.zeros([], jnp.int32),
        mu=otu.tree_zeros_like(params, dtype=mu_dtype))

  def update_fn(updates, state, params=None):
    if mode not in _LION_MODES:
      raise ValueError(
          f'{fn}: mode must be one of {_LION_MODES}, got {mode!r}')
    _tree_math.check_moments_like_updates('scale_by_lion', updates, state.mu)
    del params
    beta1, beta2 = _hp(b1), _hp(b2)
    gamma = _hp(smooth_beta)

    def direction(g, m):
      x, y, b, sharp = _lift(g, m, beta1, gamma)
      c = (1 - b) * x + b * y
      if mode == 'hard':
        out = jnp.sign(c)
      elif mode == 'smooth':
        out = jnp.tanh(sharp * c)
      else:
        out = jnp.clip(c, -1, 1)
      return out.astype(g.dtype)

    new_updates = jax.tree.map(direction, updates, state.mu)
    mu = otu.tree_update_moment(updates, state.mu, beta2, 1)
    return new_updates, ScaleByLionState(
        count=numerics.safe_increment(state.count), mu=mu)

  return base.GradientTransformation(init_fn, update_fn)


class ScaleByNovogradState(NamedTuple):
  """State of :func:`scale_by_novograd`.

  Attributes:
    count: int32 scalar, the number of updates done so far.
    mu: the momentum of the normalized gradients, shaped like the params, in
      ``mu_dtype`` or the params' dtype.
    nu: one scalar per leaf, the EMA of the squared norm of that leaf's
      gradient, in the params' dtype.
  """

  count: jax.Array
  mu: base.Updates
  nu: base.Updates


def scale_by_novograd(
    b1: float = 0.9,
    b2: float = 0.25,
    eps: float = 1e-8,
    eps_root: float = 0.0,
    weight_decay: float = 0.0,
    mu_dtype: Optional[Any] = None,
) -> base.GradientTransformation:
  r"""Rescales updates by the NovoGrad rule (layer-wise second moments).

  For each leaf (layer) :math:`l`,

  .. math::

    v^l_t &= \beta_2 v^l_{t-1} + (1 - \beta_2) \|g^l_t\|^2
      \quad (v^l_1 = \|g^l_1\|^2), \\
    m^l_t &= \beta_1 m^l_{t-1} + \frac{g^l_t}{\sqrt{v^l_t +
      \epsilon_{\text{root}}} + \epsilon} + \lambda \theta^l_t
      \quad (m^l_0 = 0), \\
    u^l_t &= m^l_t.

  Args:
    b1: decay rate of the momentum, in [0, 1].
    b2: decay rate of the layer-wise second moment, in [0, 1].
    eps: term added to the denominator outside the root.
    eps_root: term added inside the root.
    weight_decay: coefficient :math:`\lambda` of the weight decay added to
      the normalized gradient (needs ``params`` in ``update`` when non-zero).
    mu_dtype: dtype of the momentum; ``None`` uses the params' dtype.

  Returns:
    A ``GradientTransformation`` whose state is a ``ScaleByNovogradState``.

  Raises:
    ValueError: for Python-number decay rates outside [0, 1] or negative
      ``eps``/``eps_root``.

  Examples:
    >>> import jax.numpy as jnp
    >>> from optax._src import transform
    >>> tx = transform.scale_by_novograd()
    >>> state = tx.init(jnp.zeros(2))
    >>> updates, state = tx.update(jnp.array([3.0, -4.0]), state)
    >>> updates
    Array([ 0.6, -0.8], dtype=float32)

  References:
    Ginsburg, Castonguay, Hrinchuk, Kuchaiev, Lavrukhin, Leary, Li, Nguyen,
    Zhang and Cohen, `Stochastic Gradient Methods with Layer-wise Adaptive
    Moments for Training of Deep Networks
    <https://arxiv.org/abs/1905.11286>`_, 2019.
  """
  fn = 'scale_by_novograd'
  _check_decay(fn, 'b1', b1, allow_one=True)
  _check_decay(fn, 'b2', b2, allow_one=True)
  _check_non_negative(fn, 'eps', eps)
  _check_non_negative(fn, 'eps_root', eps_root)
  mu_dtype = utils.canonicalize_dtype(mu_dtype)
  no_decay = numerics.is_number(weight_decay) and weight_decay == 0

  def init_fn(params):
    return ScaleByNovogradState(
        count=jnp.zeros([], jnp.int32),
        mu=otu.tree_zeros_like(params, dtype=mu_dtype),
        nu=jax.tree.map(
            lambda p: jnp.zeros([], jnp.finfo(p.dtype).dtype), params))

  def update_fn(updates, state, params=None):
    _tree_math.check_moments_like_updates(
        'scale_by_novograd', updates, state.mu)
    beta1, beta2 = _hp(b1), _hp(b2)
    epsilon, epsilon_root = _hp(eps), _hp(eps_root)
    decay = _hp(weight_decay)
    first = state.count == 0
    if params is None:
      if not no_decay:
        raise _missing_params_error(fn)
      params = jax.tree.map(lambda _: None, updates)

    def new_nu(g, v):
      sq, v_, b = _lift(jnp.sum(numerics.abs_sq(g)), v, beta2)
      ema = (1 - b) * sq + b * v_
      return jnp.where(first, sq, ema).astype(v.dtype)

    nu = jax.tree.map(new_nu, updates, state.nu)

    def new_mu(g, m, v, p):
      x, v, e_root, e = _lift(g, v, epsilon_root, epsilon)
      step = x / (jnp.sqrt(v + e_root) + e)
      if p is not None:
        step, lam, p = _lift(step, decay, p)
        step = step + lam * p
      step, b, m_ = _lift(step, beta1, m)
      return jnp.where(first, step, b * m_ + step).astype(m.dtype)

    mu = jax.tree.map(
        new_mu, updates, state.mu, nu, params,
        is_leaf=lambda x: x is None)
    new_updates = jax.tree.map(lambda g, m: m.astype(g.dtype), updates, mu)
    return new_updates, ScaleByNovogradState(
        count=numerics.safe_increment(state.count), mu=mu, nu=nu)

  return base.GradientTransformation(init_fn, update_fn)


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
    >>> tx = transform.scale_by_optimistic_gradient()
    >>> state = tx.init(jnp.zeros(2))
    >>> u, state = tx.update(jnp.array([1.0, 2.0]), state)
    >>> u, state = tx.update(jnp.array([2.0, 2.0]), state)
    >>> u
    Array([3., 2.], dtype=float32)

  References:
    Daskalakis, Ilyas, Syrgkanis and Zeng, `Training GANs with Optimism
    <https://arxiv.org/abs/1711.00141>`_, 2017.

    Mokhtari, Ozdaglar and Pattathil, `A Unified Analysis of Extra-gradient
    and Optimistic Gradient Methods for Saddle Point Problems
    <https://arxiv.org/abs/1901.08511>`_, 2019.
  """

  def init_fn(params):
    return ScaleByOptimisticGradientState(
        is_initial_step=jnp.ones([], jnp.bool_),
        previous_gradient=otu.tree_zeros_like(params))

  def update_fn(updates, state, params=None):
    _tree_math.check_moments_like_updates(
        'scale_by_optimistic_gradient', updates, state.previous_gradient)
    del params
    a, b = _hp(alpha), _hp(beta)
    a_plus_b = a + b

    def direction(g, prev):
      prev = jnp.where(state.is_initial_step, g, prev.astype(g.dtype))
      x, y, ab, b_ = _lift(g, prev, a_plus_b, b)
      return (ab * x - b_ * y).astype(g.dtype)

    new_updates = jax.tree.map(direction, updates, state.previous_gradient)
    prev = jax.tree.map(
        lambda g, p: g.astype(p.dtype), updates, state.previous_gradient)
    return new_updates, ScaleByOptimisticGradientState(
        is_initial_step=jnp.zeros([], jnp.bool_), previous_gradient=prev)

  return base.GradientTransformation(init_fn, update_fn)


# The Polyak step is set to zero where the squared gradient norm (plus eps)
# falls below the float64 machine epsilon: the gradient is numerically zero.
_POLYAK_TINY = float(np.finfo(np.float64).eps)


def scale_by_polyak(
    f_min: float = 0.0,
    max_learning_rate: float = 1.0,
    eps: float = 0.0,
    variant: str = 'sps',
) -> base.GradientTransformationExtraArgs:
  r"""Scales updates by the Polyak step size.

  .. math::

    u_t = \min\left(\frac{f(x_t) - f^\star}{\|g_t\|^2 + \epsilon},
      \eta_{\max}\right) g_t,

  where :math:`f(x_t)` is the ``value`` passed to ``update``. With
  ``variant='sps+'`` the gap :math:`f(x_t) - f^\star` is floored at zero.
  The step is zero when :math:`\|g_t\|^2 + \epsilon` is numerically zero.

  Args:
    f_min: a lower bound :math:`f^\star` of the objective (its minimum when
      known, e.g. 0 for interpolating models).
    max_learning_rate: the cap :math:`\eta_{\max}` of the step size.
    eps: term added to the squared gradient norm.
    variant: ``'sps'`` (Loizou et al.) or ``'sps+'`` (non-negative gap, as
      in Garrigos et al.).

  Returns:
    A ``GradientTransformationExtraArgs`` whose ``update`` needs the
    keyword argument ``value`` (the objective at the current params); its
    state is ``EmptyState()``.

  Raises:
    ValueError: for an unknown ``variant``, or Python-number negative
      ``max_learning_rate`` or ``eps``.

  Examples:
    >>> import jax.numpy as jnp
    >>> from optax._src import transform
    >>> tx = transform.scale_by_polyak()
    >>> g = jnp.array([1.0, 1.0])
    >>> updates, _ = tx.update(g, tx.init(g), value=jnp.array(0.5))
    >>> updates
    Array([0.25, 0.25], dtype=float32)

  References:
    Loizou, Vaswani, Laradji and Lacoste-Julien, `Stochastic Polyak
    Step-size for SGD: An Adaptive Learning Rate for Fast Convergence
    <https://arxiv.org/abs/2002.10542>`_, 2021.

    Garrigos, Gower and Schaipp, `Function Value Learning: Adaptive Learning
    Rates Based on the Polyak Stepsize and Function Splitting in ERM
    <https://arxiv.org/abs/2307.14528>`_, 2023.
  """
  fn = 'scale_by_polyak'
  if variant not in ('sps', 'sps+'):
    raise ValueError(
        f"{fn}: variant must be 'sps' or 'sps+', got {variant!r}")
  _check_non_negative(fn, 'max_learning_rate', max_learning_rate)
  _check_non_negative(fn, 'eps', eps)

  def update_fn(updates, state, params=None, *, value, **extra_args):
    del params, extra_args
    sq_norm = otu.tree_norm(updates, squared=True)
    denominator = sq_norm.astype(numerics.hyperparameter_dtype()) + _hp(eps)
    gap = _hp(value) - _hp(f_min)
    if variant == 'sps+':
      gap = jnp.maximum(gap, 0)
    step = jnp.minimum(gap / denominator, _hp(max_learning_rate))
    step = jnp.where(denominator <= _POLYAK_TINY, 0, step)
    return _scale_leaves(step, updates), state

  return base.GradientTransformationExtraArgs(
      base.init_empty_state, update_fn)


def scale_by_radam(
    b1: float = 0.9,
    b2: float = 0.999,
    eps: float = 1e-8,
    eps_root: float = 0.0,
    threshold: float = 5.0,
    *,
    nesterov: bool = False,
) -> base.GradientTransformation:
  r"""Rescales updates by the Rectified Adam (RAdam) rule.

  With :math:`\rho_\infty = 2 / (1 - \beta_2) - 1` and
  :math:`\rho_t = \rho_\infty - 2 t \beta_2^t / (1 - \beta_2^t)` the length
  of the approximated simple moving average,

  .. math::

    u_t = \begin{cases}
      r_t \, \hat m_t / (\sqrt{\hat v_t + \epsilon_{\text{root}}} + \epsilon)
        & \text{if } \rho_t \geq \tau, \\
      \hat m_t & \text{otherwise},
    \end{cases} \qquad
    r_t = \sqrt{\frac{(\rho_t - 4)(\rho_t - 2)\rho_\infty}
      {(\rho_\infty - 4)(\rho_\infty - 2)\rho_t}},

  where :math:`\hat m_t`, :math:`\hat v_t` are Adam's bias-corrected moments
  (see :func:`scale_by_adam`, including ``nesterov``) and :math:`\tau` is
  ``threshold``. Both branches are computed and selected with ``jnp.where``
  (no ``lax.cond``, which kept extra buffers alive, upstream issue #969).

  Args:
    b1: decay rate of the first moment, in [0, 1).
    b2: decay rate of the second moment, in [0, 1).
    eps: term added to the denominator outside the root.
    eps_root: term added inside the root.
    threshold: the value :math:`\tau` of :math:`\rho_t` from which the
      adaptive (rectified) step is used.
    nesterov: whether to use Nesterov momentum.

  Returns:
    A ``GradientTransformation`` whose state is a ``ScaleByAdamState``.

  Raises:
    ValueError: for Python-number decay rates outside [0, 1) or negative
      ``eps``/``eps_root``.

  Examples:
    >>> import jax.numpy as jnp
    >>> from optax._src import transform
    >>> tx = transform.scale_by_radam()
    >>> state = tx.init(jnp.zeros(2))
    >>> updates, state = tx.update(jnp.array([2.0, -0.5]), state)
    >>> updates  # rho_1 < threshold: plain bias-corrected momentum.
    Array([ 2. , -0.5], dtype=float32)

  References:
    Liu, Jiang, He, Chen, Liu, Gao and Han, `On the Variance of the Adaptive
    Learning Rate and Beyond <https://arxiv.org/abs/1908.03265>`_, 2020.
  """
  fn = 'scale_by_radam'
  _check_decay(fn, 'b1', b1)
  _check_decay(fn, 'b2', b2)
  _check_non_negative(fn, 'eps', eps)
  _check_non_negative(fn, 'eps_root', eps_root)

  def init_fn(params):
    return ScaleByAdamState(
        count=jnp.zeros([], jnp.int32),
        mu=otu.tree_zeros_like(params),
        nu=otu.tree_zeros_like(params))

  def update_fn(updates, state, params=None):
    del params
    beta1, beta2 = _hp(b1), _hp(b2)
    epsilon, epsilon_root = _hp(eps), _hp(eps_root)
    rho_inf = 2 / (1 - beta2) - 1
    mu = otu.tree_update_moment(updates, state.mu, beta1, 1)
    nu = otu.tree_update_moment_per_elem_norm(updates, state.nu, beta2, 2)
    count = numerics.safe_increment(state.count)
    t = count.astype(beta2.dtype)
    b2t = beta2 ** t
    rho = rho_inf - 2 * t * b2t / (1 - b2t)
    rect = jnp.sqrt((rho - 4) * (rho - 2) * rho_inf
                    / ((rho_inf - 4) * (rho_inf - 2) * rho))
    use_rect = rho >= _hp(threshold)
    if nesterov:
      mu_hat = _nesterov_first_moment(updates, mu, beta1, count)
    else:
      mu_hat = otu.tree_bias_correction(mu, beta1, count)
    nu_hat = otu.tree_bias_correction(nu, beta2, count)

    def direction(g, m, v):
      m, v, r, e_root, e = _lift(m, v, rect, epsilon_root, epsilon)
      adaptive = r * m / (jnp.sqrt(v + e_root) + e)
      return jnp.where(use_rect, adaptive, m).astype(g.dtype)

    new_updates = jax.tree.map(direction, updates, mu_hat, nu_hat)
    return new_updates, ScaleByAdamState(count=count, mu=mu, nu=nu)

  return base.GradientTransformation(init_fn, update_fn)


class ScaleByRmsState(NamedTuple):
  """State of :func:`scale_by_rms` without bias correction.

  Attributes:
    nu: EMA of the squared gradients, shaped and typed like the params.
  """

  nu: base.Updates


class ScaleByRmsWithCountState(NamedTuple):
  """State of :func:`scale_by_rms` with ``bias_correction=True``.

  Attributes:
    count: int32 scalar, the number of updates done so far.
    nu: EMA of the squared gradients, shaped and typed like the params.
  """

  count: jax.Array
  nu: base.Updates


def _rescale_by_root(g, v, epsilon, eps_in_sqrt):
  """``g / sqrt(v + eps)`` or ``g / (sqrt(v) + eps)``, in ``g``'s dtype."""
  x, v, epsilon = _lift(g, v, epsilon)
  if eps_in_sqrt:
    out = x * jax.lax.rsqrt(v + epsilon)
  else:
    out = x / (jnp.sqrt(v) + epsilon)
  return out.astype(g.dtype)


def scale_by_rms(
    decay: float = 0.9,
    eps: float = 1e-8,
    initial_scale: float = 0.0,
    eps_in_sqrt: bool = True,
    bias_correction: bool = False,
) -> base.GradientTransformation:
  r"""Rescales updates by the root of an EMA of their squares (RMSProp).

  .. math::

    v_t &= \rho v_{t-1} + (1 - \rho) |g_t|^2, \qquad v_0 = s, \\
    u_t &= g_t / \sqrt{\hat v_t + \epsilon} \quad\text{or}\quad
      g_t / (\sqrt{\hat v_t} + \epsilon),

  the first form when ``eps_in_sqrt`` is true. :math:`\hat v_t` is
  :math:`v_t / (1 - \rho^t)` with ``bias_correction`` and :math:`v_t`
  otherwise.

  Args:
    decay: decay rate :math:`\rho` of the EMA, in [0, 1] ([0, 1) with bias
      correction).
    eps: term :math:`\epsilon` added to the denominator.
    initial_scale: initial value :math:`s` of the EMA (1.0 gives the
      TensorFlow RMSProp, 0.0 the PyTorch one).
    eps_in_sqrt: whether :math:`\epsilon` goes inside the root.
    bias_correction: whether to bias-correct the EMA.

  Returns:
    A ``GradientTransformation`` whose state is a ``ScaleByRmsState``
    (``ScaleByRmsWithCountState`` with bias correction).

  Raises:
    ValueError: for a Python-number ``decay`` out of range or negative
      ``eps`` or ``initial_scale``.

  Examples:
    >>> import jax.numpy as jnp
    >>> from optax._src import transform
    >>> tx = transform.scale_by_rms(decay=0.75, eps=0.0)
    >>> state = tx.init(jnp.zeros(2))
    >>> updates, state = tx.update(jnp.array([2.0, -0.5]), state)
    >>> updates
    Array([ 2., -2.], dtype=float32)

  References:
    Hinton, Srivastava and Swersky, `Lecture 6e: rmsprop
    <https://www.cs.toronto.edu/~tijmen/csc321/slides/lecture_slides_lec6.pdf>`_,
    2012.
  """
  fn = 'scale_by_rms'
  _check_decay(fn, 'decay', decay, allow_one=not bias_correction)
  _check_non_negative(fn, 'eps', eps)
  _check_non_negative(fn, 'initial_scale', initial_scale)

  def init_fn(params):
    nu = otu.tree_full_like(params, initial_scale)
    if bias_correction:
      return ScaleByRmsWithCountState(count=jnp.zeros([], jnp.int32), nu=nu)
    return ScaleByRmsState(nu=nu)

  def update_fn(updates, state, params=None):
    del params
    rho, epsilon = _hp(decay), _hp(eps)
    nu = otu.tree_update_moment_per_elem_norm(updates, state.nu, rho, 2)
    if bias_correction:
      count = numerics.safe_increment(state.count)
      nu_hat = otu.tree_bias_correction(nu, rho, count)
      new_state = ScaleByRmsWithCountState(count=count, nu=nu)
    else:
      nu_hat = nu
      new_state = ScaleByRmsState(nu=nu)
    new_updates = jax.tree.map(
        lambda g, v: _rescale_by_root(g, v, epsilon, eps_in_sqrt),
        updates, nu_hat)
    return new_updates, new_state

  return base.GradientTransformation(init_fn, update_fn)


class ScaleByRStdDevState(NamedTuple):
  """State of :func:`scale_by_stddev` without bias correction.

  Attributes:
    mu: EMA of the gradients, shaped and typed like the params.
    nu: EMA of the squared gradients, shaped and typed like the params.
  """

  mu: base.Updates
  nu: base.Updates


class ScaleByRStdDevWithCountState(NamedTuple):
  """State of :func:`scale_by_stddev` with ``bias_correction=True``.

  Attributes:
    count: int32 scalar, the number of updates done so far.
    mu: EMA of the gradients, shaped and typed like the params.
    nu: EMA of the squared gradients, shaped and typed like the params.
  """

  count: jax.Array
  mu: base.Updates
  nu: base.Updates


def scale_by_stddev(
    decay: float = 0.9,
    eps: float = 1e-8,
    initial_scale: float = 0.0,
    eps_in_sqrt: bool = True,
    bias_correction: bool = False,
) -> base.GradientTransformation:
  r"""Rescales updates by their running standard deviation (centered RMSProp).

  .. math::

    m_t &= \rho m_{t-1} + (1 - \rho) g_t, \qquad m_0 = 0, \\
    v_t &= \rho v_{t-1} + (1 - \rho) |g_t|^2, \qquad v_0 = s, \\
    u_t &= g_t / \sqrt{\hat v_t - |\hat m_t|^2 + \epsilon} \quad\text{or}
      \quad g_t / (\sqrt{\hat v_t - |\hat m_t|^2} + \epsilon),

  the first form when ``eps_in_sqrt`` is true; the hats denote
  bias-corrected EMAs when ``bias_correction`` is true.

  Args:
    decay: decay rate :math:`\rho` of the EMAs, in [0, 1] ([0, 1) with bias
      correction).
    eps: term :math:`\epsilon` added to the denominator.
    initial_scale: initial value :math:`s` of the second moment.
    eps_in_sqrt: whether :math:`\epsilon` goes inside the root.
    bias_correction: whether to bias-correct the EMAs.

  Returns:
    A ``GradientTransformation`` whose state is a ``ScaleByRStdDevState``
    (``ScaleByRStdDevWithCountState`` with bias correction).

  Raises:
    ValueError: for a Python-number ``decay`` out of range or negative
      ``eps`` or ``initial_scale``.

  Examples:
    >>> import jax.numpy as jnp
    >>> from optax._src import transform
    >>> tx = transform.scale_by_stddev(decay=0.75, eps=0.0)
    >>> state = tx.init(jnp.zeros(2))
    >>> updates, state = tx.update(jnp.array([3.0, -0.75]), state)
    >>> updates
    Array([ 2.309401, -2.309401], dtype=float32)

  References:
    Graves, `Generating Sequences With Recurrent Neural Networks
    <https://arxiv.org/abs/1308.0850>`_, 2013.
  """
  fn = 'scale_by_stddev'
  _check_decay(fn, 'decay', decay, allow_one=not bias_correction)
  _check_non_negative(fn, 'eps', eps)
  _check_non_negative(fn, 'initial_scale', initial_scale)

  def init_fn(params):
    mu = otu.tree_zeros_like(params)
    nu = otu.tree_full_like(params, initial_scale)
    if bias_correction:
      return ScaleByRStdDevWithCountState(
          count=jnp.zeros([], jnp.int32), mu=mu, nu=nu)
    return ScaleByRStdDevState(mu=mu, nu=nu)

  def update_fn(updates, state, params=None):
    del params
    rho, epsilon = _hp(decay), _hp(eps)
    mu = otu.tree_update_moment(updates, state.mu, rho, 1)
    nu = otu.tree_update_moment_per_elem_norm(updates, state.nu, rho, 2)
    if bias_correction:
      count = numerics.safe_increment(state.count)
      mu_hat = otu.tree_bias_correction(mu, rho, count)
      nu_hat = otu.tree_bias_correction(nu, rho, count)
      new_state = ScaleByRStdDevWithCountState(count=count, mu=mu, nu=nu)
    else:
      mu_hat, nu_hat = mu, nu
      new_state = ScaleByRStdDevState(mu=mu, nu=nu)
    # A variance is never negative: at the first bias-corrected step with
    # initial_scale=0 the estimate is exactly 0, and rounding makes it
    # slightly negative for about half the entries (NaN under the root).
    new_updates = jax.tree.map(
        lambda g, m, v: _rescale_by_root(
            g, jnp.maximum(v - numerics.abs_sq(m), 0), epsilon, eps_in_sqrt),
        updates, mu_hat, nu_hat)
    return new_updates, new_state

  return base.GradientTransformation(init_fn, update_fn)


class ScaleByRpropState(NamedTuple):
  """State of :func:`scale_by_rprop`.

  Attributes:
    step_sizes: the per-coordinate step sizes, shaped and typed like the
      params.
    prev_updates: the signed steps computed at the previous update (zero
      where the gradient changed sign), shaped and typed like the params.
  """

  step_sizes: base.Updates
  prev_updates: base.Updates


def scale_by_rprop(
    learning_rate: float,
    eta_minus: float = 0.5,
    eta_plus: float = 1.2,
    min_step_size: float = 1e-6,
    max_step_size: float = 50.0,
) -> base.GradientTransformation:
  r"""Rescales updates by the resilient backpropagation (iRprop-) rule.

  Each coordinate keeps its own step size :math:`\Delta`, which grows by
  ``eta_plus`` while the gradient keeps its sign and shrinks by
  ``eta_minus`` when it flips (clipped to ``[min_step_size,
  max_step_size]``); where the sign flips the step is skipped. With
  :math:`s = g_t \cdot p_{t-1}` (:math:`p` the previous signed step),

  .. math::

    \Delta_t &= \begin{cases}
      \operatorname{clip}(\eta^+ \Delta_{t-1}) & s > 0, \\
      \operatorname{clip}(\eta^- \Delta_{t-1}) & s < 0, \\
      \Delta_{t-1} & s = 0,
    \end{cases} \qquad
    p_t = \begin{cases} 0 & s < 0, \\
      \operatorname{sign}(g_t) \Delta_t & \text{otherwise}, \end{cases} \\
    u_t &= \begin{cases} 0 & s < 0, \\ p_{t-1} & \text{otherwise}.
    \end{cases}

  As in Optax 0.2.8, the emitted update is the signed step computed at the
  previous call (one step behind; zero at the first step).

  Args:
    learning_rate: the initial step size :math:`\Delta_0`.
    eta_minus: the factor applied to the step size after a sign flip.
    eta_plus: the factor applied to the step size while the sign is kept.
    min_step_size: the lower bound of the step sizes.
    max_step_size: the upper bound of the step sizes.

  Returns:
    A ``GradientTransformation`` whose state is a ``ScaleByRpropState``.

  Raises:
    ValueError: for Python-number negative ``learning_rate``, ``eta_minus``,
      ``eta_plus`` or ``min_step_size``, or ``min_step_size >
      max_step_size``.

  Examples:
    >>> import jax.numpy as jnp
    >>> from optax._src import transform
    >>> tx = transform.scale_by_rprop(learning_rate=0.1)
    >>> state = tx.init(jnp.zeros(2))
    >>> for _ in range(2):
    ...   updates, state = tx.update(jnp.array([2.0, -0.5]), state)
    >>> updates
    Array([ 0.1, -0.1], dtype=float32)

  References:
    Riedmiller and Braun, `A Direct Adaptive Method for Faster
    Backpropagation Learning: The RPROP Algorithm
    <https://doi.org/10.1109/ICNN.1993.298623>`_, 1993.

    Igel and Hüsken, `Improving the Rprop Learning Algorithm
    <https://citeseerx.ist.psu.edu/document?doi=10.1.1.17.1332>`_, 2000.
  """
  fn = 'scale_by_rprop'
  for name, value in (('learning_rate', learning_rate),
                      ('eta_minus', eta_minus), ('eta_plus', eta_plus),
                      ('min_step_size', min_step_size)):
    _check_non_negative(fn, name, value)
  if (numerics.is_number(min_step_size) and numerics.is_number(max_step_size)
      and min_step_size > max_step_size):
    raise ValueError(
        f'{fn}: min_step_size must not exceed max_step_size, got'
        f' {min_step_size} > {max_step_size}')

  def init_fn(params):
    return ScaleByRpropState(
        step_sizes=otu.tree_full_like(params, learning_rate),
        prev_updates=otu.tree_zeros_like(params))

  def update_fn(updates, state, params=None):
    _tree_math.check_moments_like_updates(
        'scale_by_rprop', updates, state.step_sizes)
    del params
    up, down = _hp(eta_plus), _hp(eta_minus)
    low, high = _hp(min_step_size), _hp(max_step_size)

    def leaf(g, step, prev):
      s = jnp.sign(g * prev.astype(g.dtype))
      step_, up_, down_, low_, high_ = _lift(step, up, down, low, high)
      grown = jnp.clip(step_ * up_, low_, high_)
      shrunk = jnp.clip(step_ * down_, low_, high_)
      new_step = jnp.where(s > 0, grown, jnp.where(s < 0, shrunk, step_))
      new_step = new_step.astype(step.dtype)
      signed = jnp.sign(g).astype(step.dtype) * new_step
      new_prev = jnp.where(s < 0, 0, signed).astype(prev.dtype)
      out = jnp.where(s < 0, 0, prev).astype(g.dtype)
      return out, new_step, new_prev

    triples = jax.tree.map(
        leaf, updates, state.step_sizes, state.prev_updates)
    out, steps, prevs = _unzip(updates, triples, 3)
    return out, ScaleByRpropState(step_sizes=steps, prev_updates=prevs)

  return base.GradientTransformation(init_fn, update_fn)


class ScaleByRssState(NamedTuple):
  """State of :func:`scale_by_rss`.

  Attributes:
    sum_of_squares: running sum of the squared gradients, shaped and typed
      like the params.
  """

  sum_of_squares: base.Updates


def scale_by_rss(
    initial_accumulator_value: float = 0.1,
    eps: float = 1e-7,
) -> base.GradientTransformation:
  r"""Rescales updates by the root of the sum of their squares (Adagrad).

  .. math::

    s_t &= s_{t-1} + |g_t|^2, \qquad s_0 = a, \\
    u_t &= \begin{cases} g_t / \sqrt{s_t + \epsilon} & s_t > 0, \\
      0 & \text{otherwise}. \end{cases}

  Args:
    initial_accumulator_value: the initial value :math:`a` of the sum.
    eps: term :math:`\epsilon` added inside the root.

  Returns:
    A ``GradientTransformation`` whose state is a ``ScaleByRssState``.

  Raises:
    ValueError: for Python-number negative ``initial_accumulator_value`` or
      ``eps``.

  Examples:
    >>> import jax.numpy as jnp
    >>> from optax._src import transform
    >>> tx = transform.scale_by_rss(initial_accumulator_value=0.0, eps=0.0)
    >>> state = tx.init(jnp.zeros(2))
    >>> updates, state = tx.update(jnp.array([2.0, -0.5]), state)
    >>> updates
    Array([ 1., -1.], dtype=float32)

  References:
    Duchi, Hazan and Singer, `Adaptive Subgradient Methods for Online
    Learning and Stochastic Optimization
    <https://jmlr.org/papers/v12/duchi11a.html>`_, 2011.
  """
  fn = 'scale_by_rss'
  _check_non_negative(fn, 'initial_accumulator_value',
                      initial_accumulator_value)
  _check_non_negative(fn, 'eps', eps)

  def init_fn(params):
    return ScaleByRssState(
        sum_of_squares=otu.tree_full_like(params, initial_accumulator_value))

  def update_fn(updates, state, params=None):
    del params
    _tree_math.check_moments_like_updates(fn, updates, state.sum_of_squares)
    epsilon = _hp(eps)
    sums = jax.tree.map(
        lambda g, s: jnp.add(*_lift(s, numerics.abs_sq(g))).astype(s.dtype),
        updates, state.sum_of_squares)

    def leaf(g, s):
      x, s, e = _lift(g, s, epsilon)
      return jnp.where(s > 0, x * jax.lax.rsqrt(s + e), 0).astype(g.dtype)

    new_updates = jax.tree.map(leaf, updates, sums)
    return new_updates, ScaleByRssState(sum_of_squares=sums)

  return base.GradientTransformation(init_fn, update_fn)


class ScaleBySM3State(NamedTuple):
  """State of :func:`scale_by_sm3`.

  Attributes:
    mu: for each leaf, a list with one accumulator vector per dimension of
      the leaf (of that dimension's size; a single scalar for 0-d leaves), in
      the params' dtype.
    nu: the momentum of the rescaled updates, shaped and typed like the
      params.
  """

  mu: base.Updates
  nu: base.Updates


def _reject_complex(fn: str, params: base.Params) -> None:
  for leaf in jax.tree.leaves(params):
    if jnp.iscomplexobj(leaf):
      raise ValueError(
          f'{fn}: complex parameters are not supported, got a leaf of dtype'
          f' {leaf.dtype}; split them into real and imaginary parts (see'
          ' optax.contrib.split_real_and_imaginary).')


def scale_by_sm3(
    b1: float = 0.9,
    b2: float = 1.0,
    eps: float = 1e-8,
) -> base.GradientTransformation:
  r"""Rescales updates by the SM3 rule (memory-efficient Adagrad).

  Instead of one accumulator per entry, SM3 keeps one accumulator vector
  per dimension of each leaf (a cover of the entries by rows, columns, ...).
  For an entry :math:`i` covered by the sets :math:`S \ni i`,

  .. math::

    a_t(i) &= c\, g_t(i)^2 + \beta_2 \min_{S \ni i} \mu_{t-1}(S), \qquad
    \mu_t(S) = \max_{j \in S} a_t(j), \\
    \tilde g_t(i) &= g_t(i) / \sqrt{a_t(i) + \epsilon} \quad
      (0 \text{ where } a_t(i) = 0), \\
    u_t &= \nu_t = \beta_1 \nu_{t-1} + (1 - \beta_1) \tilde g_t,

  with :math:`c = 1 - \beta_2`, or :math:`c = 1` when :math:`\beta_2 = 1`
  (the Adagrad-like default). For 1-d and 0-d leaves the single accumulator
  covers each entry by itself.

  Args:
    b1: decay rate :math:`\beta_1` of the momentum, in [0, 1].
    b2: decay rate :math:`\beta_2` of the accumulators, in [0, 1].
    eps: term :math:`\epsilon` added inside the root.

  Returns:
    A ``GradientTransformation`` whose state is a ``ScaleBySM3State``.

  Raises:
    ValueError: for Python-number decay rates outside [0, 1], a negative
      ``eps``, or (in ``init``) complex params.

  Examples:
    >>> import jax.numpy as jnp
    >>> from optax._src import transform
    >>> tx = transform.scale_by_sm3(b1=0.0, eps=0.0)
    >>> state = tx.init(jnp.zeros(2))
    >>> updates, state = tx.update(jnp.array([2.0, -0.5]), state)
    >>> updates
    Array([ 1., -1.], dtype=float32)

  References:
    Anil, Gupta, Koren and Singer, `Memory-Efficient Adaptive Optimization
    <https://arxiv.org/abs/1901.11150>`_, 2019.
  """
  fn = 'scale_by_sm3'
  _check_decay(fn, 'b1', b1, allow_one=True)
  _check_decay(fn, 'b2', b2, allow_one=True)
  _check_non_negative(fn, 'eps', eps)

  def accumulators(p):
    if p.ndim == 0:
      return [jnp.zeros_like(p)]
    return [
        utils.zeros_like_reduced(
            p, tuple(ax for ax in range(p.ndim) if ax != axis))
        for axis in range(p.ndim)
    ]

  def init_fn(params):
    _reject_complex(fn, params)
    return ScaleBySM3State(
        mu=jax.tree.map(accumulators, params),
        nu=otu.tree_zeros_like(params))

  def update_fn(updates, state, params=None):
    _tree_math.check_moments_like_updates('scale_by_sm3', updates, state.nu)
    del params
    beta1, beta2 = _hp(b1), _hp(b2)
    epsilon = _hp(eps)
    coeff = jnp.where(beta2 == 1, jnp.ones_like(beta2), 1 - beta2)

    def leaf(g, acc):
      ndim = g.ndim
      if ndim < 2:
        previous = acc[0]
      else:
        previous = acc[0].reshape((-1,) + (1,) * (ndim - 1))
        for axis in range(1, ndim):
          shape = [1] * ndim
          shape[axis] = -1
          previous = jnp.minimum(previous, acc[axis].reshape(shape))
      c, b, g2, previous, x, e = _lift(
          coeff, beta2, numerics.abs_sq(g), previous, g, epsilon)
      a = c * g2 + b * previous
      scaled = jnp.where(a > 0, x * jax.lax.rsqrt(a + e), 0)
      if ndim < 2:
        new_acc = [a.astype(acc[0].dtype)]
      else:
        new_acc = [
            jnp.max(a, axis=tuple(ax for ax in range(ndim) if ax != axis))
            .astype(acc[axis].dtype)
            for axis in range(ndim)
        ]
      return scaled, new_acc

    scaled, mu = _unzip(updates, jax.tree.map(leaf, updates, state.mu), 2)
    nu = otu.tree_update_moment(scaled, state.nu, beta1, 1)
    new_updates = jax.tree.map(lambda g, n: n.astype(g.dtype), updates, nu)
    return new_updates, ScaleBySM3State(mu=mu, nu=nu)

  return base.GradientTransformation(init_fn, update_fn)


def scale_by_trust_ratio(
    min_norm: float = 0.0,
    trust_coefficient: float = 1.0,
    eps: float = 0.0,
) -> base.GradientTransformation:
  r"""Rescales each leaf's update by its layer-wise trust ratio (LARS/LAMB).

  .. math::

    u^l_t = \begin{cases}
      \eta \frac{\|\theta^l\|}{\|g^l_t\| + \epsilon} g^l_t
        & \|\theta^l\| > 0 \text{ and } \|g^l_t\| > 0, \\
      g^l_t & \text{otherwise},
    \end{cases}

  where :math:`\eta` is ``trust_coefficient`` and both norms are floored at
  ``min_norm``.

  Args:
    min_norm: the lower bound of the norms.
    trust_coefficient: the factor :math:`\eta`.
    eps: term added to the update norm.

  Returns:
    A stateless ``GradientTransformation`` (state
    ``ScaleByTrustRatioState()``); ``update`` needs ``params``.

  Raises:
    ValueError: for Python-number negative ``min_norm`` or ``eps``, and in
      ``update`` when ``params`` is None.

  Examples:
    >>> import jax.numpy as jnp
    >>> from optax._src import transform
    >>> tx = transform.scale_by_trust_ratio()
    >>> params = jnp.array([3.0, 4.0])
    >>> updates, _ = tx.update(jnp.array([0.0, 0.5]), tx.init(params), params)
    >>> updates
    Array([0., 5.], dtype=float32)

  References:
    You, Gitman and Ginsburg, `Large Batch Training of Convolutional
    Networks <https://arxiv.org/abs/1708.03888>`_, 2017.

    You, Li, Reddi, Hseu, Kumar, Bhojanapalli, Song, Demmel, Keutzer and
    Hsieh, `Large Batch Optimization for Deep Learning: Training BERT in 76
    minutes <https://arxiv.org/abs/1904.00962>`_, 2020.
  """
  fn = 'scale_by_trust_ratio'
  _check_non_negative(fn, 'min_norm', min_norm)
  _check_non_negative(fn, 'eps', eps)

  def update_fn(updates, state, params=None):
    if params is None:
      raise _missing_params_error(fn)
    floor, coefficient, epsilon = _hp(min_norm), _hp(trust_coefficient), _hp(
        eps)

    def leaf(u, p):
      x, p, floor_, coefficient_, epsilon_ = _lift(
          u, p, floor, coefficient, epsilon)
      param_norm = numerics.safe_norm(p, floor_)
      update_norm = numerics.safe_norm(x, floor_)
      ratio = coefficient_ * param_norm / (update_norm + epsilon_)
      zero = jnp.logical_or(param_norm == 0, update_norm == 0)
      ratio = jnp.where(zero, jnp.ones_like(ratio), ratio)
      return (x * ratio).astype(u.dtype)

    return jax.tree.map(leaf, updates, params), state

  return base.GradientTransformation(base.init_empty_state, update_fn)


def scale_by_yogi(
    b1: float = 0.9,
    b2: float = 0.999,
    eps: float = 1e-3,
    eps_root: float = 0.0,
    initial_accumulator_value: float = 1e-6,
) -> base.GradientTransformation:
  r"""Rescales updates by the Yogi rule (additive second-moment updates).

  .. math::

    m_t &= \beta_1 m_{t-1} + (1 - \beta_1) g_t, \\
    v_t &= v_{t-1} - (1 - \beta_2) \operatorname{sign}(v_{t-1} - |g_t|^2)
      |g_t|^2, \\
    u_t &= \hat m_t / \left(\sqrt{\hat v_t + \epsilon_{\text{root}}}
      + \epsilon\right),

  with both moments started at ``initial_accumulator_value`` and
  bias-corrected as in Adam.

  Args:
    b1: decay rate of the first moment, in [0, 1).
    b2: decay rate of the second moment, in [0, 1).
    eps: term added to the denominator outside the root.
    eps_root: term added inside the root.
    initial_accumulator_value: the initial value of both moments.

  Returns:
    A ``GradientTransformation`` whose state is a ``ScaleByAdamState``.

  Raises:
    ValueError: for Python-number decay rates outside [0, 1) or negative
      ``eps``/``eps_root``.

  Examples:
    >>> import jax.numpy as jnp
    >>> from optax._src import transform
    >>> tx = transform.scale_by_yogi(eps=0.0, initial_accumulator_value=0.0)
    >>> state = tx.init(jnp.zeros(2))
    >>> updates, state = tx.update(jnp.array([2.0, -0.5]), state)
    >>> updates
    Array([ 1., -1.], dtype=float32)

  References:
    Zaheer, Reddi, Sachan, Kale and Kumar, `Adaptive Methods for Nonconvex
    Optimization
    <https://papers.nips.cc/paper/8186-adaptive-methods-for-nonconvex-optimization>`_,
    2018.
  """
  fn = 'scale_by_yogi'
  _check_decay(fn, 'b1', b1)
  _check_decay(fn, 'b2', b2)
  _check_non_negative(fn, 'eps', eps)
  _check_non_negative(fn, 'eps_root', eps_root)

  def init_fn(params):
    return ScaleByAdamState(
        count=jnp.zeros([], jnp.int32),
        mu=otu.tree_full_like(params, initial_accumulator_value),
        nu=otu.tree_full_like(params, initial_accumulator_value))

  def update_fn(updates, state, params=None):
    del params
    beta1, beta2 = _hp(b1), _hp(b2)
    epsilon, epsilon_root = _hp(eps), _hp(eps_root)
    one_minus_b2 = 1 - beta2
    mu = otu.tree_update_moment(updates, state.mu, beta1, 1)

    def new_nu(g, v):
      v_, g2, c = _lift(v, numerics.abs_sq(g), one_minus_b2)
      return (v_ - c * jnp.sign(v_ - g2) * g2).astype(v.dtype)

    nu = jax.tree.map(new_nu, updates, state.nu)
    count = numerics.safe_increment(state.count)
    mu_hat = otu.tree_bias_correction(mu, beta1, count)
    nu_hat = otu.tree_bias_correction(nu, beta2, count)
    new_updates = jax.tree.map(
        lambda g, m, v: _adam_ratio(g, m, v, epsilon_root, epsilon),
        updates, mu_hat, nu_hat)
    return new_updates, ScaleByAdamState(count=count, mu=mu, nu=nu)

  return base.GradientTransformation(init_fn, update_fn)


class ScaleByAdaDeltaState(NamedTuple):
  """State of :func:`scale_by_adadelta`.

  Attributes:
    e_g: EMA of the squared gradients, shaped and typed like the params.
    e_x: EMA of the squared updates, shaped and typed like the params.
  """

  e_g: base.Updates
  e_x: base.Updates


def scale_by_adadelta(
    rho: float = 0.9,
    eps: float = 1e-6,
) -> base.GradientTransformation:
  r"""Rescales updates by the Adadelta rule.

  .. math::

    E[g^2]_t &= \rho E[g^2]_{t-1} + (1 - \rho) |g_t|^2, \\
    u_t &= \frac{\sqrt{E[\Delta x^2]_{t-1} + \epsilon}}
      {\sqrt{E[g^2]_t + \epsilon}} g_t, \\
    E[\Delta x^2]_t &= \rho E[\Delta x^2]_{t-1} + (1 - \rho) |u_t|^2.

  Args:
    rho: decay rate :math:`\rho` of both EMAs, in [0, 1].
    eps: term :math:`\epsilon` added inside both roots.

  Returns:
    A ``GradientTransformation`` whose state is a ``ScaleByAdaDeltaState``.

  Raises:
    ValueError: for a Python-number ``rho`` outside [0, 1] or a negative
      ``eps``.

  Examples:
    >>> import jax.numpy as jnp
    >>> from optax._src import transform
    >>> tx = transform.scale_by_adadelta(rho=0.0, eps=1.0)
    >>> state = tx.init(jnp.zeros(2))
    >>> updates, state = tx.update(jnp.array([0.0, 3.0]), state)
    >>> updates
    Array([0.        , 0.94868326], dtype=float32)

  References:
    Zeiler, `ADADELTA: An Adaptive Learning Rate Method
    <https://arxiv.org/abs/1212.5701>`_, 2012.
  """
  fn = 'scale_by_adadelta'
  _check_decay(fn, 'rho', rho, allow_one=True)
  _check_non_negative(fn, 'eps', eps)

  def init_fn(params):
    return ScaleByAdaDeltaState(
        e_g=otu.tree_zeros_like(params), e_x=otu.tree_zeros_like(params))

  def update_fn(updates, state, params=None):
    _tree_math.check_moments_like_updates(
        'scale_by_adadelta', updates, state.e_g)
    del params
    decay, epsilon = _hp(rho), _hp(eps)
    e_g = otu.tree_update_moment_per_elem_norm(updates, state.e_g, decay, 2)
    def direction(g, eg, ex):
      x, eg, ex, e = _lift(g, eg, ex, epsilon)
      return (jnp.sqrt(ex + e) / jnp.sqrt(eg + e) * x).astype(g.dtype)

    new_updates = jax.tree.map(direction, updates, e_g, state.e_x)
    e_x = otu.tree_update_moment_per_elem_norm(
        new_updates, state.e_x, decay, 2)
    return new_updates, ScaleByAdaDeltaState(e_g=e_g, e_x=e_x)

  return base.GradientTransformation(init_fn, update_fn)


class ScaleByDistanceOverGradientsState(NamedTuple):
  """State of :func:`scale_by_distance_over_gradients`.

  Attributes:
    max_dist: one scalar per leaf, the largest distance of that leaf from
      its initial value seen so far (started at ``reps_rel * (1 +
      |x_0|)``), in ``param_dtype``.
    grad_sum_of_squares: one shape-``(1,)`` array per leaf, the running sum
      of the squared gradient entries of that leaf, in ``param_dtype``.
    init_params: the initial params, cast to ``param_dtype``.
  """

  max_dist: base.OptState
  grad_sum_of_squares: base.OptState
  init_params: base.OptState


def scale_by_distance_over_gradients(
    reps_rel: float = 1e-6,
    eps: float = 1e-8,
    param_dtype: Any = jnp.float32,
    global_scale: float = 1.0,
) -> base.GradientTransformation:
  r"""Rescales updates by the layer-wise Distance over Gradients (DoG) rule.

  For each leaf (layer) :math:`l`,

  .. math::

    \bar r^l_t &= \max(\bar r^l_{t-1}, \|x^l_t - x^l_0\|), \qquad
      \bar r^l_0 = r_\epsilon (1 + \|x^l_0\|), \\
    G^l_t &= G^l_{t-1} + \|g^l_t\|^2, \\
    u^l_t &= s \, \frac{\bar r^l_t}{\sqrt{G^l_t + \epsilon}} g^l_t,

  with :math:`r_\epsilon` = ``reps_rel`` and :math:`s` = ``global_scale``.
  Combine with ``scale_by_learning_rate(1.0)`` (the step size is
  parameter-free).

  Args:
    reps_rel: relative size :math:`r_\epsilon` of the initial movement.
    eps: term added to the sum of squared gradients.
    param_dtype: dtype in which the distances and sums are kept.
    global_scale: a factor :math:`s` applied to every step size.

  Returns:
    A ``GradientTransformation`` whose state is a
    ``ScaleByDistanceOverGradientsState``; ``update`` needs ``params``.

  Raises:
    ValueError: for Python-number non-positive ``reps_rel`` or negative
      ``eps``, and in ``update`` when ``params`` is None.

  Examples:
    >>> import jax.numpy as jnp
    >>> from optax._src import transform
    >>> tx = transform.scale_by_distance_over_gradients(reps_rel=0.5, eps=0.0)
    >>> params = jnp.array([0.0, 0.0])
    >>> updates, _ = tx.update(jnp.array([3.0, 4.0]), tx.init(params), params)
    >>> updates
    Array([0.3, 0.4], dtype=float32)

  References:
    Ivgi, Hinder and Carmon, `DoG is SGD's Best Friend: A Parameter-Free
    Dynamic Step Size Schedule <https://arxiv.org/abs/2302.12022>`_, 2023.
  """
  fn = 'scale_by_distance_over_gradients'
  _check_positive(fn, 'reps_rel', reps_rel)
  _check_non_negative(fn, 'eps', eps)
  param_dtype = utils.canonicalize_dtype(param_dtype)

  def init_fn(params):
    def first_dist(p):
      norm, r = _lift(jnp.linalg.norm(p.astype(param_dtype)), _hp(reps_rel))
      return (r * (1 + norm)).astype(param_dtype)

    return ScaleByDistanceOverGradientsState(
        max_dist=jax.tree.map(first_dist, params),
        grad_sum_of_squares=jax.tree.map(
            lambda _: jnp.zeros([1], param_dtype), params),
        init_params=jax.tree.map(lambda p: p.astype(param_dtype), params))

  def update_fn(updates, state, params=None):
    if params is None:
      raise _missing_params_error(fn)
    scale_, epsilon = _hp(global_scale), _hp(eps)
    max_dist = jax.tree.map(
        lambda d, p, p0: jnp.maximum(
            d, jnp.linalg.norm(p.astype(param_dtype) - p0)).astype(d.dtype),
        state.max_dist, params, state.init_params)
    sums = jax.tree.map(
        lambda s, g: jnp.add(
            *_lift(s, jnp.sum(numerics.abs_sq(g)))).astype(s.dtype),
        state.grad_sum_of_squares, updates)

    def leaf(g, d, s):
      x, d, s, c, e = _lift(g, d, s[0], scale_, epsilon)
      return (c * d / jnp.sqrt(s + e) * x).astype(g.dtype)

    new_updates = jax.tree.map(leaf, updates, max_dist, sums)
    return new_updates, ScaleByDistanceOverGradientsState(
        max_dist=max_dist, grad_sum_of_squares=sums,
        init_params=state.init_params)

  return base.GradientTransformation(init_fn, update_fn)


class ScaleByLBFGSState(NamedTuple):
  """State of :func:`scale_by_lbfgs`.

  Attributes:
    count: int32 scalar, the number of updates done so far.
    params: the params at the previous update, shaped like the params.
    updates: the (unpreconditioned) updates of the previous call, shaped
      like the params.
    diff_params_memory: for each leaf, an array of shape
      ``(memory_size, *leaf.shape)``: the circular buffer of the last param
      differences :math:`s_k = x_{k+1} - x_k`.
    diff_updates_memory: like ``diff_params_memory`` for the update
      (gradient) differences :math:`y_k = g_{k+1} - g_k`.
    weights_memory: shape ``(memory_size,)``, the weights
      :math:`\\rho_k = 1 / \\langle s_k, y_k \\rangle` (0 for empty slots).
  """

  count: jax.Array
  params: base.Params
  updates: base.Params
  diff_params_memory: base.Params
  diff_updates_memory: base.Params
  weights_memory: jax.Array


def _precondition_by_lbfgs(
    updates: base.Updates,
    diff_params_memory: base.Params,
    diff_updates_memory: base.Params,
    weights_memory: jax.Array,
    identity_scale: base.Numeric,
    memory_idx: base.Numeric,
) -> base.Updates:
  r"""Multiplies updates by the L-BFGS inverse-Hessian approximation.

  The classic two-loop recursion (Nocedal and Wright, Algorithm 7.4) over a
  circular memory: entry ``memory_idx`` is the oldest pair, then
  ``memory_idx + 1``, ... (modulo the memory size) up to the newest. The
  implicit matrix is built from :math:`H_0 = \gamma I` (:math:`\gamma` =
  ``identity_scale``) by the BFGS updates
  :math:`H \leftarrow (I - \rho s y^\top) H (I - \rho y s^\top)
  + \rho s s^\top`, applied from the oldest to the newest pair. Empty slots
  (zero weight and zero vectors) leave it unchanged.

  Args:
    updates: the tree :math:`g` to precondition.
    diff_params_memory: tree of stacked param differences :math:`s_i`
      (leading axis of size ``memory_size``).
    diff_updates_memory: tree of stacked update differences :math:`y_i`.
    weights_memory: the weights :math:`\rho_i`, shape ``(memory_size,)``.
    identity_scale: the scale :math:`\gamma` of the initial matrix.
    memory_idx: the index of the oldest pair in the circular memory.

  Returns:
    The tree :math:`H g`, with the dtypes of ``updates``.
  """
  memory_size = weights_memory.shape[0]
  order = (memory_idx + jnp.arange(memory_size)) % memory_size

  def pair(idx):
    s = jax.tree.map(lambda x: x[idx], diff_params_memory)
    y = jax.tree.map(lambda x: x[idx], diff_updates_memory)
    return s, y

  def axpy(vec, a, x):
    def leaf(v, xi):
      v_, a_, xi = _lift(v, a, xi)
      return (v_ + a_ * xi).astype(v.dtype)
    return jax.tree.map(leaf, vec, x)

  def weighted_dot(idx, a, b):
    dot = _tree_math.real_vdot(a, b, weights_memory.dtype)
    return weights_memory[idx] * dot

  def backward(vec, idx):
    s, y = pair(idx)
    alpha = weighted_dot(idx, s, vec).astype(weights_memory.dtype)
    return axpy(vec, -alpha, y), alpha

  vec, alphas = jax.lax.scan(backward, updates, order, reverse=True)
  gamma = jnp.asarray(identity_scale)
  vec = jax.tree.map(
      lambda v: jnp.multiply(*_lift(gamma, v)).astype(v.dtype), vec)

  def forward(vec, idx_alpha):
    idx, alpha = idx_alpha
    s, y = pair(idx)
    beta = weighted_dot(idx, y, vec).astype(weights_memory.dtype)
    return axpy(vec, alpha - beta, s), None

  vec, _ = jax.lax.scan(forward, vec, (order, alphas))
  return vec


def scale_by_lbfgs(
    memory_size: int = 10,
    scale_init_precond: bool = True,
) -> base.GradientTransformation:
  r"""Preconditions updates by the L-BFGS approximation of the inverse Hessian.

  The transformation keeps the last ``memory_size`` pairs
  :math:`s_k = x_{k+1} - x_k`, :math:`y_k = g_{k+1} - g_k` and returns
  :math:`H_k g_k` computed by the two-loop recursion (see
  :func:`_precondition_by_lbfgs`). The initial matrix is :math:`\gamma I`
  with, when ``scale_init_precond`` is true,
  :math:`\gamma = \langle s, y \rangle / \|y\|^2` for the newest pair, and
  :math:`\gamma = \min(1, 1 / \|g_0\|)` at the first step (1 when the
  option is off).

  Chain it with ``scale_by_learning_rate`` and, usually, a line search
  (``optax.lbfgs`` does both).

  Args:
    memory_size: the number of pairs kept (at least 1).
    scale_init_precond: whether to scale the initial matrix as above.

  Returns:
    A ``GradientTransformation`` whose state is a ``ScaleByLBFGSState``;
    ``update`` needs ``params``.

  Raises:
    ValueError: if ``memory_size < 1``, and in ``update`` when ``params`` is
      None.

  Examples:
    >>> import jax.numpy as jnp
    >>> from optax._src import transform
    >>> tx = transform.scale_by_lbfgs(scale_init_precond=False)
    >>> params = jnp.array([1.0, 2.0])
    >>> updates, _ = tx.update(jnp.array([0.5, -1.0]), tx.init(params), params)
    >>> updates
    Array([ 0.5, -1. ], dtype=float32)

  References:
    Nocedal and Wright, `Numerical Optimization
    <https://doi.org/10.1007/978-0-387-40065-5>`_, 2nd edition, 2006
    (Algorithms 7.4 and 7.5).

    Liu and Nocedal, `On the limited memory BFGS method for large scale
    optimization <https://doi.org/10.1007/BF01589116>`_, 1989.
  """
  fn = 'scale_by_lbfgs'
  if not isinstance(memory_size, int) or memory_size < 1:
    raise ValueError(
        f'{fn}: memory_size must be an integer >= 1, got {memory_size!r}')

  def init_fn(params):
    def stacked():  # A fresh buffer each: the state can be donated.
      return jax.tree.map(
          lambda p: jnp.broadcast_to(jnp.zeros_like(p),
                                     (memory_size,) + tuple(p.shape)), params)

    return ScaleByLBFGSState(
        count=jnp.zeros([], jnp.int32),
        params=otu.tree_zeros_like(params),
        updates=otu.tree_zeros_like(params),
        diff_params_memory=stacked(),
        diff_updates_memory=stacked(),
        weights_memory=jnp.zeros([memory_size],
                                 numerics.hyperparameter_dtype()))

  def update_fn(updates, state, params=None):
    _tree_math.check_moments_like_updates(
        'scale_by_lbfgs', updates, state.updates)
    if params is None:
      raise _missing_params_error(fn)
    count = state.count
    started = count > 0
    memory_idx = count % memory_size
    prev_idx = (count - 1) % memory_size
    diff_params = jax.tree.map(
        lambda p, q: jnp.where(started, p - q.astype(p.dtype),
                               jnp.zeros_like(p)),
        params, state.params)
    diff_updates = jax.tree.map(
        lambda g, h: jnp.where(started, g - h.astype(g.dtype),
                               jnp.zeros_like(g)),
        updates, state.updates)
    w_dtype = state.weights_memory.dtype
    curvature = _tree_math.real_vdot(diff_updates, diff_params, w_dtype)
    safe_curvature = jnp.where(curvature == 0, 1, curvature)
    weight = jnp.where(curvature == 0, 0, 1 / safe_curvature)
    diff_params_memory = jax.tree.map(
        lambda mem, d: mem.at[prev_idx].set(d.astype(mem.dtype)),
        state.diff_params_memory, diff_params)
    diff_updates_memory = jax.tree.map(
        lambda mem, d: mem.at[prev_idx].set(d.astype(mem.dtype)),
        state.diff_updates_memory, diff_updates)
    weights_memory = state.weights_memory.at[prev_idx].set(weight)
    if scale_init_precond:
      sq_norm = otu.tree_norm(diff_updates, squared=True).astype(w_dtype)
      ratio = curvature / jnp.where(sq_norm > 0, sq_norm, 1)
      later = jnp.where(sq_norm > 0, ratio, 1)
      grad_norm = otu.tree_norm(updates).astype(w_dtype)
      first = jnp.minimum(1, 1 / grad_norm)
      identity_scale = jnp.where(started, later, first)
    else:
      identity_scale = jnp.ones([], w_dtype)
    new_updates = _precondition_by_lbfgs(
        updates, diff_params_memory, diff_updates_memory, weights_memory,
        identity_scale, memory_idx)
    new_state = ScaleByLBFGSState(
        count=numerics.safe_increment(count),
        params=jax.tree.map(lambda p, q: p.astype(q.dtype), params,
                            state.params),
        updates=jax.tree.map(lambda g, h: g.astype(h.dtype), updates,
                             state.updates),
        diff_params_memory=diff_params_memory,
        diff_updates_memory=diff_updates_memory,
        weights_memory=weights_memory)
    return new_updates, new_state

  return base.GradientTransformation(init_fn, update_fn)


def scale_by_param_block_norm(
    min_scale: float = 1e-3,
) -> base.GradientTransformation:
  r"""Scales each leaf's update by the norm of that leaf of the params.

  .. math::

    u^l_t = \max(\|\theta^l\|, s_{\min}) \, g^l_t.

  Args:
    min_scale: the floor :math:`s_{\min}` of the norms.

  Returns:
    A stateless ``GradientTransformation``; ``update`` needs ``params``.

  Raises:
    ValueError: for a Python-number negative ``min_scale``, and in
      ``update`` when ``params`` is None.

  Examples:
    >>> import jax.numpy as jnp
    >>> from optax._src import transform
    >>> tx = transform.scale_by_param_block_norm()
    >>> params = jnp.array([3.0, 4.0])
    >>> updates, _ = tx.update(jnp.array([1.0, -1.0]), tx.init(params), params)
    >>> updates
    Array([ 5., -5.], dtype=float32)

  .. seealso:: :func:`scale_by_param_block_rms`
  """
  fn = 'scale_by_param_block_norm'
  _check_non_negative(fn, 'min_scale', min_scale)

  def update_fn(updates, state, params=None):
    if params is None:
      raise _missing_params_error(fn)
    floor = _hp(min_scale)
    def leaf(u, p):
      x, p, floor_ = _lift(u, p, floor)
      return (x * numerics.safe_norm(p, floor_)).astype(u.dtype)

    new_updates = jax.tree.map(leaf, updates, params)
    return new_updates, state

  return base.GradientTransformation(base.init_empty_state, update_fn)


def scale_by_param_block_rms(
    min_scale: float = 1e-3,
) -> base.GradientTransformation:
  r"""Scales each leaf's update by the RMS of that leaf of the params.

  .. math::

    u^l_t = \max\left(\sqrt{\operatorname{mean}((\theta^l)^2)},
      s_{\min}\right) g^l_t.

  Args:
    min_scale: the floor :math:`s_{\min}` of the root mean squares.

  Returns:
    A stateless ``GradientTransformation``; ``update`` needs ``params``.

  Raises:
    ValueError: for a Python-number negative ``min_scale``, and in
      ``update`` when ``params`` is None.

  Examples:
    >>> import jax.numpy as jnp
    >>> from optax._src import transform
    >>> tx = transform.scale_by_param_block_rms()
    >>> params = jnp.array([1.0, -1.0])
    >>> updates, _ = tx.update(jnp.array([2.0, 3.0]), tx.init(params), params)
    >>> updates
    Array([2., 3.], dtype=float32)

  .. seealso:: :func:`scale_by_param_block_norm`
  """
  fn = 'scale_by_param_block_rms'
  _check_non_negative(fn, 'min_scale', min_scale)

  def update_fn(updates, state, params=None):
    if params is None:
      raise _missing_params_error(fn)
    floor = _hp(min_scale)
    def leaf(u, p):
      x, p, floor_ = _lift(u, p, floor)
      # The RMS of a complex parameter is real: the floor stays real too.
      floor_ = floor_.real
      rms = numerics.safe_root_mean_squares(p, floor_).astype(x.dtype)
      return (x * rms).astype(u.dtype)

    new_updates = jax.tree.map(leaf, updates, params)
    return new_updates, state

  return base.GradientTransformation(base.init_empty_state, update_fn)


def scale_by_sign() -> base.GradientTransformation:
  r"""Replaces each update entry by its sign.

  .. math::

    u_t = \operatorname{sign}(g_t)

  (0 where :math:`g_t = 0`; :math:`g_t / |g_t|` for complex entries). This
  is signSGD once chained with a learning rate.

  Returns:
    A stateless ``GradientTransformation``.

  Examples:
    >>> import jax.numpy as jnp
    >>> from optax._src import transform
    >>> tx = transform.scale_by_sign()
    >>> updates, _ = tx.update(jnp.array([2.0, 0.0, -0.5]), tx.init(None))
    >>> updates
    Array([ 1.,  0., -1.], dtype=float32)

  References:
    Bernstein, Wang, Azizzadenesheli and Anandkumar, `signSGD: Compressed
    Optimisation for Non-Convex Problems <https://arxiv.org/abs/1802.04434>`_,
    2018.
  """

  def update_fn(updates, state, params=None):
    del params
    return jax.tree.map(jnp.sign, updates), state

  return base.GradientTransformation(base.init_empty_state, update_fn)


def centralize() -> base.GradientTransformation:
  r"""Centralizes each update of rank 2 or more (Gradient Centralization).

  For a leaf of rank at least 2, the mean over all axes but the first is
  subtracted:

  .. math::

    u_t[i, \ldots] = g_t[i, \ldots] - \operatorname{mean}(g_t[i, \ldots]).

  Leaves of rank 0 or 1 (biases, scales) are left unchanged.

  Returns:
    A stateless ``GradientTransformation``.

  Examples:
    >>> import jax.numpy as jnp
    >>> from optax._src import transform
    >>> tx = transform.centralize()
    >>> g = jnp.array([[1.0, 3.0], [0.0, 4.0]])
    >>> updates, _ = tx.update(g, tx.init(None))
    >>> updates
    Array([[-1.,  1.],
           [-2.,  2.]], dtype=float32)

  References:
    Yong, Huang, Hua and Zhang, `Gradient Centralization: A New
    Optimization Technique for Deep Neural Networks
    <https://arxiv.org/abs/2004.01461>`_, 2020.
  """

  def leaf(g):
    if g.ndim < 2:
      return g
    return g - jnp.mean(g, axis=tuple(range(1, g.ndim)), keepdims=True)

  def update_fn(updates, state, params=None):
    del params
    return jax.tree.map(leaf, updates), state

  return base.GradientTransformation(base.init_empty_state, update_fn)


def normalize_by_update_norm(
    scale_factor: float = 1.0,
    eps: float = 1e-6,
) -> base.GradientTransformation:
  r"""Divides the updates by their global norm.

  .. math::

    u_t = s \, \frac{g_t}{\|g_t\| + \epsilon},

  the norm being taken over the whole tree.

  Args:
    scale_factor: the factor :math:`s` (the norm of the result, up to
      :math:`\epsilon`).
    eps: term :math:`\epsilon` added to the norm.

  Returns:
    A stateless ``GradientTransformation``.

  Raises:
    ValueError: for a Python-number negative ``eps``.

  Examples:
    >>> import jax.numpy as jnp
    >>> from optax._src import transform
    >>> tx = transform.normalize_by_update_norm(eps=0.0)
    >>> updates, _ = tx.update(jnp.array([3.0, 4.0]), tx.init(None))
    >>> updates
    Array([0.6, 0.8], dtype=float32)
  """
  fn = 'normalize_by_update_norm'
  _check_non_negative(fn, 'eps', eps)

  def update_fn(updates, state, params=None):
    del params
    norm = otu.tree_norm(updates).astype(numerics.hyperparameter_dtype())
    factor = _hp(scale_factor) / (norm + _hp(eps))
    return _scale_leaves(factor, updates), state

  return base.GradientTransformation(base.init_empty_state, update_fn)


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
    >>> u, state = tx.update(jnp.array([1.0, 2.0]), state)
    >>> u, state = tx.update(jnp.array([3.0, 4.0]), state)
    >>> u
    Array([4., 6.], dtype=float32)

  .. seealso:: :class:`optax.MultiSteps`, which also skips the inner
    optimizer between emissions.
  """
  fn = 'apply_every'
  if isinstance(k, bool) or not isinstance(k, (int, np.integer)) or k < 1:
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
