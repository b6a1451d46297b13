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

from optax._src import base
from optax._src import numerics

# Transformations that moved to ``optax.transforms`` are re-exported at the
# end of this module, under the names users import from here.

_Hyper = Union[float, jax.Array]


# ------------------------------------------------------------------------------
# Helpers shared by the factories below.
# ------------------------------------------------------------------------------


def _is_number(x: Any) -> bool:
  """Whether ``x`` is a plain Python number (so it may be validated)."""
  return isinstance(x, (int, float)) and not isinstance(x, bool)


def _check_decay(fn: str, name: str, value: Any, *,
                 allow_one: bool = False) -> None:
  """Raises if a Python-number decay rate is outside [0, 1) (or [0, 1])."""
  if not _is_number(value):
    return
  if allow_one:
    if not 0.0 <= value <= 1.0:
      raise ValueError(f'{fn}: {name} must be in [0, 1], got {value}')
  elif not 0.0 <= value < 1.0:
    raise ValueError(f'{fn}: {name} must be in [0, 1), got {value}')


def _check_non_negative(fn: str, name: str, value: Any) -> None:
  """Raises if a Python-number hyperparameter is negative."""
  if _is_number(value) and value < 0:
    raise ValueError(f'{fn}: {name} must be non-negative, got {value}')


def _check_positive(fn: str, name: str, value: Any) -> None:
  """Raises if a Python-number hyperparameter is not strictly positive."""
  if _is_number(value) and value <= 0:
    raise ValueError(f'{fn}: {name} must be positive, got {value}')


def _hp(value: Any) -> jax.Array:
  """Shorthand for ``numerics.as_hyperparameter``."""
  return numerics.as_hyperparameter(value)


def _canonicalize_dtype(dtype: Optional[Any]) -> Optional[jnp.dtype]:
  """Canonicalizes an optional dtype argument (float64 -> float32 w/o x64)."""
  if dtype is None:
    return None
  return jax.dtypes.canonicalize_dtype(dtype)


def _zeros_like(tree: Any, dtype: Optional[Any] = None) -> Any:
  """Zeros shaped like ``tree``'s leaves (only shapes/dtypes are used)."""
  return jax.tree.map(
      lambda x: jnp.zeros(x.shape, dtype or x.dtype), tree)


def _bias_correction(decay: jax.Array, count: jax.Array) -> jax.Array:
  """The Adam bias correction ``1 - decay ** count``, one scalar per step."""
  return 1 - decay ** count


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
    factor = _hp(step_size)
    updates = jax.tree.map(lambda g: (factor * g).astype(g.dtype), updates)
    return updates, state

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
    factor = _hp(step_size_fn(state.count))
    updates = jax.tree.map(lambda g: (factor * g).astype(g.dtype), updates)
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
    factor = sign * _hp(learning_rate)
    updates = jax.tree.map(lambda g: (factor * g).astype(g.dtype), updates)
    return updates, state

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
  mu_dtype = _canonicalize_dtype(mu_dtype)

  def init_fn(params):
    mu = _zeros_like(params, dtype=mu_dtype)
    nu = _zeros_like(params)
    return ScaleByAdamState(count=jnp.zeros([], jnp.int32), mu=mu, nu=nu)

  def update_fn(updates, state, params=None):
    del params
    beta1, beta2 = _hp(b1), _hp(b2)
    epsilon, epsilon_root = _hp(eps), _hp(eps_root)
    mu = jax.tree.map(
        lambda g, m: ((1 - beta1) * g + beta1 * m).astype(m.dtype),
        updates, state.mu)
    nu = jax.tree.map(
        lambda g, v: ((1 - beta2) * numerics.abs_sq(g) + beta2 * v).astype(
            v.dtype),
        updates, state.nu)
    count = numerics.safe_increment(state.count)
    bc1 = _bias_correction(beta1, count)
    bc2 = _bias_correction(beta2, count)
    if nesterov:
      bc1_next = _bias_correction(beta1, numerics.safe_increment(count))

      def first(m, g):
        return beta1 * (m / bc1_next) + (1 - beta1) * (g / bc1)
    else:

      def first(m, g):
        del g
        return m / bc1

    def direction(g, m, v):
      m_hat = first(m, g)
      v_hat = v / bc2
      return (m_hat / (jnp.sqrt(v_hat + epsilon_root) + epsilon)).astype(
          g.dtype)

    updates = jax.tree.map(direction, updates, mu, nu)
    return updates, ScaleByAdamState(count=count, mu=mu, nu=nu)

  return base.GradientTransformation(init_fn, update_fn)
