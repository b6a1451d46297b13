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
"""Transformations driven by the signs of the updates.

:func:`scale_by_sign` (signSGD), :func:`scale_by_lion` (the sign of an
interpolated momentum) and :func:`scale_by_rprop` (per-coordinate step sizes
that grow or shrink with sign agreement), which upstream defines in
``optax._src.transform`` (see that module for their pickled names).
"""

from typing import Any, NamedTuple, Optional

import jax
import jax.numpy as jnp

from optax import tree_utils as otu
from optax._src import arguments
from optax._src import base
from optax._src import dtypes
from optax._src import hyperparameters
from optax._src import numerics
from optax._src import prepared_inputs
from optax._src import tree_structure
from optax._src import utils

_hp = hyperparameters.as_hyperparameter  # Shorthand.


def scale_by_sign() -> base.GradientTransformation:
  r"""Replaces each update entry by its sign.

  .. math::

    u_t = \operatorname{sign}(g_t)

  (0 where :math:`g_t = 0`; :math:`g_t / |g_t|` for complex entries). This
  is signSGD once chained with a learning rate.

  Returns:
    A stateless ``GradientTransformation``.

  Examples:
    A complex entry keeps its phase, on the unit circle:

    >>> import jax.numpy as jnp
    >>> from optax._src import transform
    >>> g = jnp.array([2.0, 0.0, -0.5, 3.0 + 4.0j])
    >>> signs, _ = transform.scale_by_sign().update(g, None)
    >>> print(signs)
    [ 1. +0.j   0. +0.j  -1. +0.j   0.6+0.8j]

  References:
    Bernstein, Wang, Azizzadenesheli and Anandkumar, `signSGD: Compressed
    Optimisation for Non-Convex Problems <https://arxiv.org/abs/1802.04434>`_,
    2018.
  """

  def update_fn(updates, state, params=None):
    del params
    return jax.tree.map(jnp.sign, updates), state

  return prepared_inputs.with_prepared_inputs(
      'scale_by_sign',
      base.GradientTransformation(base.init_empty_state, update_fn))


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


@arguments.declare(
    b1=arguments.closed_decay_scalar,
    b2=arguments.closed_decay_scalar,
    smooth_beta=arguments.scalar_or_schedule)
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
    TypeError: if ``b1``, ``b2`` or ``smooth_beta`` is neither a scalar nor
      a schedule.
    ValueError: if a Python-number ``b1`` or ``b2`` is outside [0, 1]; in
      ``update``, for a ``mode`` other than the three above.

  Examples:
    The three modes on the first step (the momentum is still zero):

    >>> import jax.numpy as jnp
    >>> from optax._src import transform
    >>> g = jnp.array([2.0, -0.5])
    >>> for mode in ('hard', 'smooth', 'refined'):
    ...   tx = transform.scale_by_lion(b1=0.0, mode=mode)
    ...   print(mode, tx.update(g, tx.init(g))[0])
    hard [ 1. -1.]
    smooth [ 0.9640276  -0.46211717]
    refined [ 1.  -0.5]

  References:
    Chen, Liang, Huang, Real, Wang, Liu, Pham, Dong, Luong, Hsieh, Lu and
    Le, `Symbolic Discovery of Optimization Algorithms
    <https://arxiv.org/abs/2302.06675>`_, 2023.
  """
  fn = 'scale_by_lion'
  # As upstream, an unknown mode is reported by update, not here: building
  # the transformation and init succeed.
  mu_dtype = utils.canonicalize_dtype(mu_dtype)

  def init_fn(params):
    return ScaleByLionState(
        count=jnp.zeros([], jnp.int32),
        mu=otu.tree_zeros_like(params, dtype=mu_dtype))

  def update_fn(updates, state, params=None):
    if mode not in _LION_MODES:
      raise ValueError(
          f'{fn}: mode must be one of {_LION_MODES}, got {mode!r}')
    tree_structure.check_like_updates(fn, updates, state.mu)
    del params
    # 1 - b1 is derived before XLA sees it (one constant for a number),
    # and every scalar is broadcast once per leaf shape.
    beta1, one_minus_beta1 = hyperparameters.hyperparameter_and_complement(b1)
    gamma = _hp(smooth_beta)
    scalars = dtypes.ScalarsByDtype(one_minus_beta1, beta1, gamma)

    def direction(g, m):
      x, y, one_minus_b, b, sharp = scalars.lift(g, m)
      c = one_minus_b * x + b * y
      if mode == 'hard':
        out = jnp.sign(c)
      elif mode == 'smooth':
        out = jnp.tanh(sharp * c)
      else:
        out = jnp.clip(c, -1, 1)
      return out.astype(g.dtype)

    new_updates = jax.tree.map(direction, updates, state.mu)
    mu = otu.tree_update_moment(updates, state.mu, b2, 1)
    return new_updates, ScaleByLionState(
        count=numerics.safe_increment(state.count), mu=mu)

  return prepared_inputs.with_prepared_inputs(
      fn, base.GradientTransformation(init_fn, update_fn))


class ScaleByRpropState(NamedTuple):
  """State of :func:`scale_by_rprop`.

  Attributes:
    step_sizes: the per-coordinate step sizes, shaped and typed like the
      params.
    prev_updates: the updates returned by the previous call, the signed
      steps (zero where the gradient changed sign), shaped and typed like
      the params; their signs are those of the previous gradients.
  """

  step_sizes: base.Updates
  prev_updates: base.Updates


@arguments.declare(
    learning_rate=arguments.non_negative_scalar,
    eta_minus=arguments.non_negative_scalar,
    eta_plus=arguments.non_negative_scalar,
    min_step_size=arguments.non_negative_scalar,
    max_step_size=(arguments.scalar_or_schedule,
                   arguments.at_least_argument('min_step_size')))
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
  max_step_size]``); where the sign flips the step is skipped and the
  gradient forgotten, so that the next step neither grows nor shrinks. With
  :math:`s = g_t \cdot u_{t-1}` (:math:`u_{t-1}` the previous step, whose
  sign is that of the previous gradient, and zero after a flip),

  .. math::

    \Delta_t &= \begin{cases}
      \operatorname{clip}(\eta^+ \Delta_{t-1}) & s > 0, \\
      \operatorname{clip}(\eta^- \Delta_{t-1}) & s < 0, \\
      \Delta_{t-1} & s = 0,
    \end{cases} \qquad
    u_t = \begin{cases} 0 & s < 0, \\
      \operatorname{sign}(g_t) \Delta_t & \text{otherwise}. \end{cases}

  The step computed on a call is the update it returns (Optax 0.2.8
  returned the previous call's step: one step behind, zero at the first
  step). With ``learning_rate=0.1`` and the defaults, gradients 1, 1, 1,
  -1, 1 give the updates 0.1, 0.12, 0.144, 0, 0.072.

  Args:
    learning_rate: the initial step size :math:`\Delta_0`.
    eta_minus: the factor applied to the step size after a sign flip.
    eta_plus: the factor applied to the step size while the sign is kept.
    min_step_size: the lower bound of the step sizes.
    max_step_size: the upper bound of the step sizes.

  Returns:
    A ``GradientTransformation`` whose state is a ``ScaleByRpropState``.

  Raises:
    TypeError: if a step-size argument is neither a scalar nor a schedule.
    ValueError: if a Python-number ``learning_rate``, ``eta_minus``,
      ``eta_plus`` or ``min_step_size`` is negative, or ``min_step_size``
      exceeds ``max_step_size``.

  Examples:
    The step grows by ``eta_plus`` while the sign holds; a sign flip
    shrinks it by ``eta_minus`` and skips that update:

    >>> import jax.numpy as jnp
    >>> from optax._src import transform
    >>> tx = transform.scale_by_rprop(learning_rate=0.1)
    >>> state = tx.init(jnp.zeros(1))
    >>> for g in (2.0, 1.0, -1.0, -1.0):
    ...   updates, state = tx.update(jnp.array([g]), state)
    ...   print(updates, state.step_sizes)
    [0.1] [0.1]
    [0.12] [0.12]
    [0.] [0.06]
    [-0.06] [0.06]

  References:
    Riedmiller and Braun, `A Direct Adaptive Method for Faster
    Backpropagation Learning: The RPROP Algorithm
    <https://doi.org/10.1109/ICNN.1993.298623>`_, 1993.

    Igel and Hüsken, `Improving the Rprop Learning Algorithm
    <https://citeseerx.ist.psu.edu/document?doi=10.1.1.17.1332>`_, 2000.
  """
  fn = 'scale_by_rprop'

  def init_fn(params):
    return ScaleByRpropState(
        step_sizes=otu.tree_full_like(params, learning_rate),
        prev_updates=otu.tree_zeros_like(params))

  def update_fn(updates, state, params=None):
    tree_structure.check_like_updates(
        'scale_by_rprop', updates, state.step_sizes)
    del params
    up, down = _hp(eta_plus), _hp(eta_minus)
    low, high = _hp(min_step_size), _hp(max_step_size)

    def leaf(g, step, prev):
      # The product of the signs, not the sign of the product: that of a
      # small gradient and an ordinary step (2e-6 * 0.05 in float16, or
      # 1e-30 * 1e-10 in float32) rounds to 0, which reads as no change.
      s = jnp.sign(g) * jnp.sign(prev).astype(g.dtype)
      step_, up_, down_, low_, high_ = dtypes.lift(step, up, down, low, high)
      grown = jnp.clip(step_ * up_, low_, high_)
      shrunk = jnp.clip(step_ * down_, low_, high_)
      new_step = jnp.where(s > 0, grown, jnp.where(s < 0, shrunk, step_))
      new_step = new_step.astype(step.dtype)
      signed = jnp.sign(g).astype(step.dtype) * new_step
      # iRprop-: this call's step is its update, skipped where the sign
      # flipped (and stored as zero, so the next call neither grows nor
      # shrinks the step size there).
      step_taken = jnp.where(s < 0, 0, signed)
      return (step_taken.astype(g.dtype), new_step,
              step_taken.astype(prev.dtype))

    triples = jax.tree.map(
        leaf, updates, state.step_sizes, state.prev_updates)
    out, steps, prevs = tree_structure.unzip(updates, triples, 3)
    return out, ScaleByRpropState(step_sizes=steps, prev_updates=prevs)

  return prepared_inputs.with_prepared_inputs(
      fn, base.GradientTransformation(init_fn, update_fn))
