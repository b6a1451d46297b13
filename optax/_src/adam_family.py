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
"""The Adam family: first and second moments with bias correction.

Adam (:func:`scale_by_adam`, NAdam with ``nesterov=True``) and its variants:
Adamax, AMSGrad, Adan, AdaBelief, NovoGrad (layer-wise second moments), RAdam
and Yogi, re-exported by :mod:`optax._src.transform` under upstream's names.
Their bodies are written with the leaf formulas of :mod:`optax._src.moments`
(moving averages, bias corrections, the Adam ratio, NAdam's look-ahead).
"""

from typing import Any, NamedTuple, Optional

import jax
import jax.numpy as jnp

from optax import tree_utils as otu
from optax._src import arguments
from optax._src import base
from optax._src import dtypes
from optax._src import hyperparameters
from optax._src import leaf_kernels
from optax._src import leaf_moments
from optax._src import moments
from optax._src import numerics
from optax._src import prepared_inputs
from optax._src import tree_structure
from optax._src import utils
from optax._src import validation

_hp = hyperparameters.as_hyperparameter  # Shorthand.

# Adam's four hyperparameters follow the same rules in each member that has
# them (see arguments.declare).
_ADAM_RULES = {'b1': arguments.decay_scalar, 'b2': arguments.decay_scalar,
               'eps': arguments.non_negative_scalar,
               'eps_root': arguments.non_negative_scalar}


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


def _zero_moments(state_type: Any, mu_dtype: Optional[Any] = None) -> Any:
  """The ``init`` of a state of fields count, mu and nu: all zeros."""

  def init_fn(params):
    return state_type(count=jnp.zeros([], jnp.int32),
                      mu=otu.tree_zeros_like(params, dtype=mu_dtype),
                      nu=otu.tree_zeros_like(params))

  return init_fn


@arguments.declare(**_ADAM_RULES)
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
    TypeError: if ``b1``, ``b2``, ``eps`` or ``eps_root`` is neither a
      scalar nor a schedule.
    ValueError: if a Python-number decay rate is outside [0, 1) or an
      epsilon is negative.

  Examples:
    The first step divides each coordinate by its own scale, whatever the
    gradient's magnitude:

    >>> import jax.numpy as jnp
    >>> from optax._src import transform
    >>> tx = transform.scale_by_adam(eps=0.0)
    >>> g = jnp.array([4.0, -1e-2])
    >>> print(tx.update(g, tx.init(g))[0])
    [ 1. -1.]

  References:
    Kingma and Ba, `Adam: A Method for Stochastic Optimization
    <https://arxiv.org/abs/1412.6980>`_, 2014.

    Dozat, `Incorporating Nesterov Momentum into Adam
    <https://openreview.net/pdf?id=OM0jvwB8jIp57ZJjtNEZ>`_, 2016.
  """
  fn = 'scale_by_adam'
  mu_dtype = utils.canonicalize_dtype(mu_dtype)

  init_fn = _zero_moments(ScaleByAdamState, mu_dtype)

  def update_fn(updates, state, params=None):
    del params
    tree_structure.check_like_updates(fn, updates, state.mu)
    tree_structure.check_like_updates(fn, updates, state.nu)
    count = numerics.safe_increment(state.count)
    updates, mu, nu = _adam_leaf.map(
        (updates, state.mu, state.nu), *_step_scalars(b1, b2, count, nesterov),
        _hp(eps), hyperparameters.as_hyperparameter_unless(eps_root, 0))
    return updates, ScaleByAdamState(count=count, mu=mu, nu=nu)

  return prepared_inputs.with_prepared_inputs(
      fn, base.GradientTransformation(init_fn, update_fn))


def _step_scalars(b1: Any, b2: Any, count: jax.Array,
                  nesterov: bool) -> tuple[Any, ...]:
  """The decays of a step, their corrections and NAdam's next correction.

  Args:
    b1: the first moment's decay rate (a number or a scalar array).
    b2: the second moment's decay rate.
    count: the step count :math:`t` (1 at the first update).
    nesterov: whether the look-ahead correction is wanted.

  Returns:
    ``Decay`` of ``b1`` and of ``b2``, :math:`1 - \\beta_1^t`,
    :math:`1 - \\beta_2^t`, and :math:`1 - \\beta_1^{t+1}` (``None``
    without ``nesterov``): the scalars a kernel of moments takes.
  """
  beta1, beta2 = moments.Decay.of(b1), moments.Decay.of(b2)
  bc1_next = (beta1.correction(numerics.safe_increment(count))
              if nesterov else None)
  return (beta1, beta2, beta1.correction(count), beta2.correction(count),
          bc1_next)


@leaf_kernels.per_leaf(results_like=(0, 1, 2))
def _adam_leaf(g, mu, nu, b1, b2, bc1, bc2, bc1_next, eps, eps_root):
  """One leaf of :func:`scale_by_adam`: the update and the new moments."""
  m = moments.first_moment(g, mu, b1)
  v = moments.second_moment(g, nu, b2)
  m_hat = moments.debiased_first(g, m, b1, bc1, bc1_next)
  v_hat = moments.debiased(v, bc2)
  return moments.adam_ratio(m_hat, v_hat, eps, eps_root), m, v


@arguments.declare(b1=arguments.decay_scalar, b2=arguments.closed_decay_scalar,
                   eps=arguments.non_negative_scalar)
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
    TypeError: if ``b1``, ``b2`` or ``eps`` is neither a scalar nor a
      schedule.
    ValueError: if a Python-number ``b1`` is outside [0, 1), ``b2`` outside
      [0, 1] or ``eps`` below 0.

  Examples:
    The infinity norm forgets a large gradient only at the rate ``b2``:

    >>> import jax.numpy as jnp
    >>> from optax._src import transform
    >>> tx = transform.scale_by_adamax(b2=0.5, eps=0.0)
    >>> state = tx.init(jnp.zeros(2))
    >>> for g in ([4.0, -1.0], [1.0, 1.0]):
    ...   updates, state = tx.update(jnp.array(g), state)
    >>> state.nu
    Array([2., 1.], dtype=float32)

  References:
    Kingma and Ba, `Adam: A Method for Stochastic Optimization
    <https://arxiv.org/abs/1412.6980>`_, 2014 (section 7.1).
  """

  fn = 'scale_by_adamax'
  init_fn = _zero_moments(ScaleByAdamState)

  def update_fn(updates, state, params=None):
    del params
    tree_structure.check_like_updates(fn, updates, state.mu)
    beta1 = moments.Decay.of(b1)
    count = numerics.safe_increment(state.count)
    updates, mu, nu = _adamax_leaf.map(
        (updates, state.mu, state.nu), beta1, _hp(b2),
        beta1.correction(count), _hp(eps))
    return updates, ScaleByAdamState(count=count, mu=mu, nu=nu)

  return prepared_inputs.with_prepared_inputs(
      fn, base.GradientTransformation(init_fn, update_fn))


@leaf_kernels.per_leaf(results_like=(0, 1, 2))
def _adamax_leaf(g, mu, nu, b1, b2, bc1, eps):
  """One leaf of :func:`scale_by_adamax`: the update and the new moments."""
  m = moments.first_moment(g, mu, b1)
  u = leaf_moments.update_infinity_moment(g, nu, b2, eps)
  # u >= |g| + eps, but a float16 u loses eps.
  m_wide, bc, u_floor = dtypes.lift(m, bc1, dtypes.at_least(u, eps))
  return m_wide / bc / u_floor, m, u


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


@arguments.declare(
    b1=(arguments.scalar_or_schedule,
        arguments.bias_corrected_decay('bias_correction_mu')),
    b2=(arguments.scalar_or_schedule,
        arguments.bias_corrected_decay('bias_correction_nu')),
    eps=arguments.non_negative_scalar,
    eps_root=arguments.non_negative_scalar)
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
    TypeError: if one of the four hyperparameters is neither a scalar nor
      a schedule.
    ValueError: if a Python-number ``b1`` (``b2``) is outside [0, 1), or
      outside [0, 1] where ``bias_correction_mu`` (``bias_correction_nu``) is
      off; or if ``eps`` or ``eps_root`` is negative.

  Examples:
    After a large gradient, the denominator keeps its maximum:

    >>> import jax.numpy as jnp
    >>> from optax._src import transform
    >>> tx = transform.scale_by_amsgrad(b2=0.5, bias_correction_nu=False)
    >>> state = tx.init(jnp.zeros(1))
    >>> for g in (4.0, 0.0, 0.0):
    ...   updates, state = tx.update(jnp.array([g]), state)
    >>> state.nu, state.nu_max
    (Array([2.], dtype=float32), Array([8.], dtype=float32))

  References:
    Reddi, Kale and Kumar, `On the Convergence of Adam and Beyond
    <https://openreview.net/forum?id=ryQu7f-RZ>`_, 2018.
  """
  fn = 'scale_by_amsgrad'
  mu_dtype = utils.canonicalize_dtype(mu_dtype)

  def init_fn(params):
    return ScaleByAmsgradState(
        count=jnp.zeros([], jnp.int32),
        mu=otu.tree_zeros_like(params, dtype=mu_dtype),
        nu=otu.tree_zeros_like(params),
        nu_max=otu.tree_zeros_like(params))

  def update_fn(updates, state, params=None):
    del params
    tree_structure.check_like_updates(fn, updates, state.mu)
    beta1, beta2 = moments.Decay.of(b1), moments.Decay.of(b2)
    count = numerics.safe_increment(state.count)
    updates, mu, nu, nu_max = _amsgrad_leaf.map(
        (updates, state.mu, state.nu, state.nu_max), beta1, beta2,
        beta1.correction(count) if bias_correction_mu else None,
        beta2.correction(count) if bias_correction_nu else None, _hp(eps),
        hyperparameters.as_hyperparameter_unless(eps_root, 0))
    return updates, ScaleByAmsgradState(
        count=count, mu=mu, nu=nu, nu_max=nu_max)

  return prepared_inputs.with_prepared_inputs(
      fn, base.GradientTransformation(init_fn, update_fn))



@leaf_kernels.per_leaf(results_like=(0, 1, 2, 3))
def _amsgrad_leaf(g, mu, nu, nu_max, b1, b2, bc1, bc2, eps, eps_root):
  """One leaf of :func:`scale_by_amsgrad` (no bias correction for a None)."""
  m = moments.first_moment(g, mu, b1)
  v = moments.second_moment(g, nu, b2)
  m_hat = m if bc1 is None else moments.debiased(m, bc1)
  v_hat = v if bc2 is None else moments.debiased(v, bc2)
  # The maximum taken in the epsilon's (float32) dtype and rounded to the
  # state's: the same bits as in a bfloat16 state's own dtype (rounding
  # keeps order), but XLA:CPU then reads the stored maximum for the update
  # instead of taking it again from a copy of the state.
  v_max_wide, v_hat, _ = dtypes.lift(nu_max, v_hat, eps)
  v_max = dtypes.cast_leaf_like(jnp.maximum(v_max_wide, v_hat), nu_max)
  return moments.adam_ratio(m_hat, v_max, eps, eps_root), m, v, v_max


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


@arguments.declare(**_ADAM_RULES, b3=arguments.decay_scalar)
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
    n_t &= \beta_3 n_{t-1} + (1 - \beta_3) |g_t + \beta_2 \Delta_t|^2, \\
    u_t &= \frac{\hat m_t + \beta_2 \hat v_t}
      {\sqrt{\hat n_t + \epsilon_{\text{root}}} + \epsilon},

  where the hats denote bias-corrected moments
  (:math:`\hat m_t = m_t / (1 - \beta_1^t)` and likewise with
  :math:`\beta_2`, :math:`\beta_3`). The decay rates are the complements of
  the paper's :math:`\beta`'s (``b1 = 1 - beta1_paper``), so the weight
  :math:`1 - \beta_2^{\text{paper}}` of the gradient difference in the
  look-ahead gradient and in the update (Algorithm 1) is ``b2``, as in the
  authors' code (Optax 0.2.8 weighted it by ``1 - b2``).

  Args:
    b1: decay rate of the gradient EMA, in [0, 1).
    b2: decay rate of the gradient-difference EMA, in [0, 1).
    b3: decay rate of the squared look-ahead gradient EMA, in [0, 1).
    eps: term added to the denominator outside the root.
    eps_root: term added inside the root.

  Returns:
    A ``GradientTransformation`` whose state is a ``ScaleByAdanState``.

  Raises:
    TypeError: if ``b1``, ``b2``, ``b3``, ``eps`` or ``eps_root`` is a
      vector, a string or another value that is not a scalar.
    ValueError: if one of the three Python-number decay rates is outside
      [0, 1), or one of the two epsilons is negative.

  Examples:
    The state keeps the gradient, for the next step's difference:

    >>> import jax.numpy as jnp
    >>> from optax._src import transform
    >>> tx = transform.scale_by_adan(eps=0.0)
    >>> state = tx.init({'w': jnp.zeros(2)})
    >>> updates, state = tx.update({'w': jnp.array([2.0, -0.5])}, state)
    >>> updates['w'], state.g['w']
    (Array([ 1., -1.], dtype=float32), Array([ 2. , -0.5], dtype=float32))

  References:
    Xie, Zhou, Li, Lin and Yan, `Adan: Adaptive Nesterov Momentum Algorithm
    for Faster Optimizing Deep Models <https://arxiv.org/abs/2208.06677>`_,
    2022.
  """
  fn = 'scale_by_adan'

  def init_fn(params):
    return ScaleByAdanState(
        m=otu.tree_zeros_like(params),
        v=otu.tree_zeros_like(params),
        n=otu.tree_zeros_like(params),
        g=otu.tree_zeros_like(params),
        t=jnp.zeros([], jnp.int32))

  def update_fn(updates, state, params=None):
    del params
    tree_structure.check_like_updates(fn, updates, state.m)
    betas = moments.Decay.of(b1), moments.Decay.of(b2), moments.Decay.of(b3)
    t = numerics.safe_increment(state.t)
    updates, m, v, n, prev = _adan_leaf.map(
        (updates, state.m, state.v, state.n, state.g), *betas,
        *(b.correction(t) for b in betas), state.t == 0, _hp(eps),
        hyperparameters.as_hyperparameter_unless(eps_root, 0))
    return updates, ScaleByAdanState(m=m, v=v, n=n, g=prev, t=t)

  return prepared_inputs.with_prepared_inputs(
      fn, base.GradientTransformation(init_fn, update_fn))



@leaf_kernels.per_leaf(results_like=(0, 1, 2, 3, 4))
def _adan_leaf(g, m, v, n, prev, b1, b2, b3, bc1, bc2, bc3, first, eps,
               eps_root):
  """One leaf of :func:`scale_by_adan`: the update, m, v, n and g."""
  # jnp.where(first, 0, g - prev) without jnp.where's nested jit; the scalar
  # predicate is broadcast by select_n, like the leaf (and its sharding).
  diff = jax.lax.select_n(first, g - prev.astype(g.dtype), jnp.zeros_like(g))
  g_wide, diff_wide, b = dtypes.lift(g, diff, b2.rate)
  m = moments.first_moment(g, m, b1)
  v = moments.first_moment(diff, v, b2)
  n = moments.second_moment(g_wide + b * diff_wide, n, b3)
  m_hat, v_hat, b = dtypes.lift(moments.debiased(m, bc1),
                                moments.debiased(v, bc2), b2.rate)
  ratio = moments.adam_ratio(m_hat + b * v_hat, moments.debiased(n, bc3),
                             eps, eps_root)
  return ratio, m, v, n, g


def _belief_step_floor(e: jax.Array, s: jax.Array, b2: jax.Array,
                       eps_root: jax.Array) -> jax.Array:
  """``s_t`` read as at least what the step adds to it.

  AdaBelief's :math:`s_t \\geq (1 - \\beta_2) |g_t - m_t|^2 +
  \\epsilon_{\\text{root}} > 0`. A leaf whose dtype has a narrower exponent
  range than its arithmetic (float16: ``eps_root = 1e-16`` and every term
  under 6e-8 round to 0 there) may store ``s_t = 0``, and the ratio would
  overflow; the bound, taken in the arithmetic's dtype, gives it back. Other
  leaves (bfloat16, float32, float64) are returned as they are.

  Args:
    e: the residual :math:`g_t - m_t`.
    s: the stored :math:`s_t`.
    b2: :math:`\\beta_2`.
    eps_root: :math:`\\epsilon_{\\text{root}}`.

  Returns:
    ``s``, or for a float16 leaf ``max(s, (1 - b2) e ** 2 + eps_root)`` in
    the arithmetic's dtype.
  """
  wide = dtypes.promote_dtypes(s.dtype, b2.dtype, eps_root.dtype)
  if (not jnp.issubdtype(s.dtype, jnp.floating)
      or jnp.finfo(s.dtype).minexp <= jnp.finfo(wide).minexp):
    return s
  one_minus_b2 = hyperparameters.hyperparameter_and_complement(b2)[1]
  one_minus_b2, eps_root, e = dtypes.lift(one_minus_b2, eps_root, e)
  return dtypes.at_least(s, one_minus_b2 * jnp.square(e) + eps_root)


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


@arguments.declare(**_ADAM_RULES)
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
    TypeError: for a ``b1``, ``b2``, ``eps`` or ``eps_root`` that is not a
      scalar (or a schedule).
    ValueError: for a Python-number ``b1`` or ``b2`` outside [0, 1), or a
      negative ``eps`` or ``eps_root`` (the floor of the second moment).

  Examples:
    A gradient equal to its running mean adds only ``eps_root`` to the
    second moment:

    >>> import jax.numpy as jnp
    >>> from optax._src import transform
    >>> tx = transform.scale_by_belief(b1=0.0, eps=0.0, eps_root=1e-4)
    >>> state = tx.init(jnp.zeros(2))
    >>> updates, state = tx.update(jnp.array([2.0, -0.5]), state)
    >>> print(state.nu)
    [0.0001 0.0001]

  References:
    Zhuang, Tang, Ding, Tatikonda, Dvornek, Papademetris and Duncan,
    `AdaBelief Optimizer: Adapting Stepsizes by the Belief in Observed
    Gradients <https://arxiv.org/abs/2010.07468>`_, 2020.
  """
  fn = 'scale_by_belief'

  init_fn = _zero_moments(ScaleByBeliefState)

  def update_fn(updates, state, params=None):
    del params
    tree_structure.check_like_updates(fn, updates, state.mu)
    count = numerics.safe_increment(state.count)
    updates, mu, nu = _belief_leaf.map(
        (updates, state.mu, state.nu), *_step_scalars(b1, b2, count, nesterov),
        _hp(eps), _hp(eps_root))
    return updates, ScaleByBeliefState(count=count, mu=mu, nu=nu)

  return prepared_inputs.with_prepared_inputs(
      fn, base.GradientTransformation(init_fn, update_fn))



@leaf_kernels.per_leaf(results_like=(0, 1, 2))
def _belief_leaf(g, mu, nu, b1, b2, bc1, bc2, bc1_next, eps, eps_root):
  """One leaf of :func:`scale_by_belief`: the update and the new moments."""
  m = moments.first_moment(g, mu, b1)
  e = g - m.astype(g.dtype)
  s_wide, root = dtypes.lift(moments.second_moment(e, nu, b2), eps_root)
  s = (s_wide + root).astype(nu.dtype)
  s_hat = moments.debiased(_belief_step_floor(e, s, b2.rate, eps_root), bc2)
  m_hat = moments.debiased_first(g, m, b1, bc1, bc1_next)
  return moments.adam_ratio(m_hat, s_hat, eps, None), m, s


class ScaleByNovogradState(NamedTuple):
  """State of :func:`scale_by_novograd`.

  Attributes:
    count: int32 scalar, the number of updates done so far.
    mu: the momentum of the normalized gradients, shaped like the params, in
      ``mu_dtype`` or the params' dtype.
    nu: one scalar per leaf, the EMA of the squared norm of that leaf's
      gradient, in the leaf's real dtype promoted to float32 (float64 under
      x64): never narrower than float32.
  """

  count: jax.Array
  mu: base.Updates
  nu: base.Updates


@arguments.declare(
    b1=arguments.closed_decay_scalar,
    b2=arguments.closed_decay_scalar,
    eps=arguments.non_negative_scalar,
    eps_root=arguments.non_negative_scalar,
    weight_decay=arguments.scalar_or_schedule)
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
    TypeError: if a hyperparameter, ``weight_decay`` included, is not a
      scalar or a schedule.
    ValueError: if a Python-number ``b1`` or ``b2`` is outside [0, 1] or
      ``eps`` or ``eps_root`` is negative; in ``update``, if
      ``weight_decay`` is non-zero and no ``params`` are given.

  Examples:
    One second moment per leaf, the squared norm of its gradient:

    >>> import jax.numpy as jnp
    >>> from optax._src import transform
    >>> tx = transform.scale_by_novograd()
    >>> grads = {'b': jnp.array([1.0]), 'w': jnp.array([3.0, -4.0])}
    >>> state = tx.init(grads)
    >>> updates, state = tx.update(grads, state)
    >>> state.nu
    {'b': Array(1., dtype=float32), 'w': Array(25., dtype=float32)}
    >>> updates['w']
    Array([ 0.6, -0.8], dtype=float32)

  References:
    Ginsburg, Castonguay, Hrinchuk, Kuchaiev, Lavrukhin, Leary, Li, Nguyen,
    Zhang and Cohen, `Stochastic Gradient Methods with Layer-wise Adaptive
    Moments for Training of Deep Networks
    <https://arxiv.org/abs/1905.11286>`_, 2019.
  """
  fn = 'scale_by_novograd'
  mu_dtype = utils.canonicalize_dtype(mu_dtype)
  no_decay = hyperparameters.is_number(weight_decay) and weight_decay == 0

  def zero_nu(p):
    wide = hyperparameters.hyperparameter_dtype()
    if not jnp.issubdtype(p.dtype, jnp.inexact):
      # An integer param's gradients are made float32 (float64 under x64)
      # before they get here (prepared_inputs.as_updates).
      return jnp.zeros([], wide)
    return jnp.zeros([], dtypes.promote_dtypes(jnp.finfo(p.dtype).dtype,
                                               wide))

  def init_fn(params):
    return ScaleByNovogradState(
        count=jnp.zeros([], jnp.int32),
        mu=otu.tree_zeros_like(params, dtype=mu_dtype),
        nu=jax.tree.map(zero_nu, params))

  def update_fn(updates, state, params=None):
    tree_structure.check_like_updates(
        'scale_by_novograd', updates, state.mu)
    beta1, beta2 = _hp(b1), _hp(b2)
    epsilon, epsilon_root = _hp(eps), _hp(eps_root)
    decay = _hp(weight_decay)
    first = state.count == 0
    if params is None:
      if not no_decay:
        raise validation.missing_params_error(fn)
      params = jax.tree.map(lambda _: None, updates)

    def new_nu(g, v):
      # The squared norm in nu's dtype, not in a narrower gradient dtype.
      g = g.astype(dtypes.promote_dtypes(g.dtype, v.dtype))
      sq, v_, b = dtypes.lift(jnp.sum(numerics.abs_sq(g)), v, beta2)
      ema = (1 - b) * sq + b * v_
      return jnp.where(first, sq, ema).astype(v.dtype)

    nu = jax.tree.map(new_nu, updates, state.nu)

    def new_mu(g, m, v, p):
      if g is None:  # A None leaf of the params: it passes through.
        return None
      x, v, e_root, e = dtypes.lift(g, v, epsilon_root, epsilon)
      step = x / (jnp.sqrt(v + e_root) + e)
      if p is not None:
        step, lam, p = dtypes.lift(step, decay, p)
        step = step + lam * p
      step, b, m_ = dtypes.lift(step, beta1, m)
      return jnp.where(first, step, b * m_ + step).astype(m.dtype)

    mu = jax.tree.map(
        new_mu, updates, state.mu, nu, params,
        is_leaf=lambda x: x is None)
    new_updates = jax.tree.map(lambda g, m: m.astype(g.dtype), updates, mu)
    return new_updates, ScaleByNovogradState(
        count=numerics.safe_increment(state.count), mu=mu, nu=nu)

  return prepared_inputs.with_prepared_inputs(
      fn, base.GradientTransformation(init_fn, update_fn))


@arguments.declare(**_ADAM_RULES, threshold=arguments.scalar_or_schedule)
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
    TypeError: if ``threshold`` or another hyperparameter is not a scalar
      or a schedule.
    ValueError: if a Python-number ``b1`` or ``b2`` is outside [0, 1) or
      ``eps`` or ``eps_root`` is negative (``threshold`` may be any value).

  Examples:
    Until :math:`\rho_t` reaches ``threshold`` (at the sixth step here),
    the update is the bias-corrected momentum:

    >>> import jax.numpy as jnp
    >>> from optax._src import transform
    >>> tx = transform.scale_by_radam()
    >>> state = tx.init(jnp.zeros(1))
    >>> for t in range(1, 7):
    ...   updates, state = tx.update(jnp.array([2.0]), state)
    ...   print(t, updates)
    1 [2.]
    2 [1.9999999]
    3 [1.9999998]
    4 [2.]
    5 [2.0000002]
    6 [0.02586873]

  References:
    Liu, Jiang, He, Chen, Liu, Gao and Han, `On the Variance of the Adaptive
    Learning Rate and Beyond <https://arxiv.org/abs/1908.03265>`_, 2020.
  """
  fn = 'scale_by_radam'

  init_fn = _zero_moments(ScaleByAdamState)

  def update_fn(updates, state, params=None):
    del params
    tree_structure.check_like_updates(fn, updates, state.mu)
    beta2 = _hp(b2)
    rho_inf = 2 / (1 - beta2) - 1
    count = numerics.safe_increment(state.count)
    t = count.astype(beta2.dtype)
    b2t = beta2 ** t
    rho = rho_inf - 2 * t * b2t / (1 - b2t)
    rect = jnp.sqrt((rho - 4) * (rho - 2) * rho_inf
                    / ((rho_inf - 4) * (rho_inf - 2) * rho))
    updates, mu, nu = _radam_leaf.map(
        (updates, state.mu, state.nu), *_step_scalars(b1, b2, count, nesterov),
        rect, rho >= _hp(threshold),
        _hp(eps), _hp(eps_root))
    return updates, ScaleByAdamState(count=count, mu=mu, nu=nu)

  return prepared_inputs.with_prepared_inputs(
      fn, base.GradientTransformation(init_fn, update_fn))



@leaf_kernels.per_leaf(results_like=(0, 1, 2))
def _radam_leaf(g, mu, nu, b1, b2, bc1, bc2, bc1_next, rect, use_rect, eps,
                eps_root):
  """One leaf of :func:`scale_by_radam`: the update and the new moments."""
  m = moments.first_moment(g, mu, b1)
  v = moments.second_moment(g, nu, b2)
  m_hat = moments.debiased_first(g, m, b1, bc1, bc1_next)
  m_hat, v_hat, r, e_root, e = dtypes.lift(
      m_hat, moments.debiased(v, bc2), rect, eps_root, eps)
  adaptive = r * m_hat / (jnp.sqrt(v_hat + e_root) + e)
  return jnp.where(use_rect, adaptive, m_hat), m, v


@arguments.declare(
    **_ADAM_RULES, initial_accumulator_value=arguments.scalar_or_schedule)
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
    TypeError: for ``initial_accumulator_value`` or another hyperparameter
      that is not a scalar.
    ValueError: for a Python-number decay rate outside [0, 1), or a
      negative ``eps`` or ``eps_root``.

  Examples:
    The second moment moves towards :math:`g^2` by a step of at most
    :math:`(1 - \beta_2) g^2`:

    >>> import jax.numpy as jnp
    >>> from optax._src import transform
    >>> tx = transform.scale_by_yogi(b2=0.5, initial_accumulator_value=1.0)
    >>> updates, state = tx.update(jnp.array([3.0]),
    ...                            tx.init(jnp.zeros(1)))
    >>> state.nu  # 1 + 0.5 * 9
    Array([5.5], dtype=float32)

  References:
    Zaheer, Reddi, Sachan, Kale and Kumar, `Adaptive Methods for Nonconvex
    Optimization
    <https://papers.nips.cc/paper/8186-adaptive-methods-for-nonconvex-optimization>`_,
    2018.
  """
  fn = 'scale_by_yogi'

  def init_fn(params):
    return ScaleByAdamState(
        count=jnp.zeros([], jnp.int32),
        mu=otu.tree_full_like(params, initial_accumulator_value),
        nu=otu.tree_full_like(params, initial_accumulator_value))

  def update_fn(updates, state, params=None):
    del params
    tree_structure.check_like_updates(fn, updates, state.mu)
    beta1, beta2 = moments.Decay.of(b1), moments.Decay.of(b2)
    count = numerics.safe_increment(state.count)
    updates, mu, nu = _yogi_leaf.map(
        (updates, state.mu, state.nu), beta1, beta2, beta1.correction(count),
        beta2.correction(count), _hp(eps),
        hyperparameters.as_hyperparameter_unless(eps_root, 0))
    return updates, ScaleByAdamState(count=count, mu=mu, nu=nu)

  return prepared_inputs.with_prepared_inputs(
      fn, base.GradientTransformation(init_fn, update_fn))


@leaf_kernels.per_leaf(results_like=(0, 1, 2))
def _yogi_leaf(g, mu, nu, b1, b2, bc1, bc2, eps, eps_root):
  """One leaf of :func:`scale_by_yogi`: the update and the new moments."""
  m = moments.first_moment(g, mu, b1)
  v, g2, c = dtypes.lift(nu, numerics.abs_sq(g), b2.complement)
  v = (v - c * jnp.sign(v - g2) * g2).astype(nu.dtype)
  m_hat, v_hat = moments.debiased(m, bc1), moments.debiased(v, bc2)
  return moments.adam_ratio(m_hat, v_hat, eps, eps_root), m, v
