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
and Yogi. The helpers they share (bias corrections, the Adam ratio, NAdam's
look-ahead moment, dtype lifting) live in :mod:`optax._src.moments`.

Each transformation, used on its own, takes its gradients and params as
``optax.chain`` gives them
(:func:`optax._src.prepared_inputs.with_prepared_inputs`); the rules of its
hyperparameters are declared once (:func:`optax._src.arguments.declare`)
and checked when it is built.

Upstream Optax defines these in ``optax._src.transform``, which re-exports
them and gives them that ``__module__`` so that pickles name the same module.
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
from optax._src import moments
from optax._src import numerics
from optax._src import prepared_inputs
from optax._src import tree_structure
from optax._src import utils
from optax._src import validation

_hp = hyperparameters.as_hyperparameter  # Shorthand.

# The rules of the hyperparameters (see arguments.declare): a value rule,
# then the type rule (a number, a scalar array or a schedule).
_DECAY = (arguments.decay, arguments.scalar_or_schedule)
_CLOSED_DECAY = (arguments.closed_decay, arguments.scalar_or_schedule)
_NON_NEGATIVE = (arguments.non_negative, arguments.scalar_or_schedule)


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


@arguments.declare(
    b1=_DECAY,
    b2=_DECAY,
    eps=_NON_NEGATIVE,
    eps_root=_NON_NEGATIVE)
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
    TypeError: for a hyperparameter that is not a scalar (a vector, a
      string).
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
  mu_dtype = utils.canonicalize_dtype(mu_dtype)

  def init_fn(params):
    mu = otu.tree_zeros_like(params, dtype=mu_dtype)
    nu = otu.tree_zeros_like(params)
    return ScaleByAdamState(count=jnp.zeros([], jnp.int32), mu=mu, nu=nu)

  def update_fn(updates, state, params=None):
    del params
    tree_structure.check_like_updates(fn, updates, state.mu)
    tree_structure.check_like_updates(fn, updates, state.nu)
    beta1, beta2 = moments.Decay.of(b1), moments.Decay.of(b2)
    count = numerics.safe_increment(state.count)
    bc1_next = (beta1.correction(numerics.safe_increment(count))
                if nesterov else None)
    updates, mu, nu = _adam_leaf.map(
        (updates, state.mu, state.nu), beta1, beta2, beta1.correction(count),
        beta2.correction(count), bc1_next, _hp(eps),
        hyperparameters.as_hyperparameter_unless(eps_root, 0))
    return updates, ScaleByAdamState(count=count, mu=mu, nu=nu)

  return prepared_inputs.with_prepared_inputs(
      fn, base.GradientTransformation(init_fn, update_fn))


@leaf_kernels.per_leaf(results_like=(0, 1, 2))
def _adam_leaf(g, mu, nu, b1, b2, bc1, bc2, bc1_next, eps, eps_root):
  """One leaf of :func:`scale_by_adam`: the update and the new moments."""
  m = moments.first_moment(g, mu, b1)
  v = moments.second_moment(g, nu, b2)
  if bc1_next is None:
    m_hat = moments.debiased(m, bc1)
  else:  # NAdam's look-ahead.
    m_hat = moments.nesterov_debiased(g, m, b1, bc1, bc1_next)
  v_hat = moments.debiased(v, bc2)
  return moments.adam_ratio(m_hat, v_hat, eps, eps_root), m, v


@arguments.declare(
    b1=_DECAY,
    b2=_CLOSED_DECAY,
    eps=_NON_NEGATIVE)
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
    TypeError: for a hyperparameter that is not a scalar (a vector, a
      string).
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

  def init_fn(params):
    return ScaleByAdamState(
        count=jnp.zeros([], jnp.int32),
        mu=otu.tree_zeros_like(params),
        nu=otu.tree_zeros_like(params))

  def update_fn(updates, state, params=None):
    del params
    count = numerics.safe_increment(state.count)
    mu = otu.tree_update_moment(updates, state.mu, b1, 1)
    nu = otu.tree_update_infinity_moment(updates, state.nu, b2, eps)
    bc1, epsilon = moments.bias_correction(_hp(b1), count), _hp(eps)

    def direction(g, m, v):  # v >= |g| + eps: a float16 v loses eps.
      m, bc, v = dtypes.lift(m, bc1, dtypes.at_least(v, epsilon))
      return (m / bc / v).astype(g.dtype)

    updates = jax.tree.map(direction, updates, mu, nu)
    return updates, ScaleByAdamState(count=count, mu=mu, nu=nu)

  return prepared_inputs.with_prepared_inputs(
      'scale_by_adamax', base.GradientTransformation(init_fn, update_fn))


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
    b1=arguments.scalar_or_schedule,
    b2=arguments.scalar_or_schedule,
    eps=_NON_NEGATIVE,
    eps_root=_NON_NEGATIVE)
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
    TypeError: for a hyperparameter that is not a scalar (a vector, a
      string).
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
  validation.check_decay(fn, 'b1', b1, closed=not bias_correction_mu)
  validation.check_decay(fn, 'b2', b2, closed=not bias_correction_nu)
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
    epsilon = _hp(eps)
    epsilon_root = hyperparameters.as_hyperparameter_unless(eps_root, 0)
    mu = otu.tree_update_moment(
        updates, moments.widen_moments(state.mu, updates), beta1, 1)
    nu = otu.tree_update_moment_per_elem_norm(updates, state.nu, beta2, 2)
    count = numerics.safe_increment(state.count)
    mu_hat = (otu.tree_bias_correction(mu, beta1, count)
              if bias_correction_mu else mu)
    nu_hat = (otu.tree_bias_correction(nu, beta2, count)
              if bias_correction_nu else nu)
    def new_nu_max(vm, v):
      # The maximum taken in the epsilon's (float32) dtype and rounded to
      # the state's: the same bits as in a bfloat16 state's own dtype
      # (rounding keeps order), but XLA:CPU then reads the stored maximum
      # for the update instead of taking it again from a copy of the state.
      vm_w, v_w, _ = dtypes.lift(vm, v, epsilon)
      return dtypes.cast_leaf_like(jnp.maximum(vm_w, v_w), vm)

    nu_max = jax.tree.map(new_nu_max, state.nu_max, nu_hat)
    updates = moments.tree_adam_ratio(
        updates, mu_hat, nu_max, epsilon_root, epsilon)
    mu = dtypes.cast_like(mu, state.mu)
    return updates, ScaleByAmsgradState(
        count=count, mu=mu, nu=nu, nu_max=nu_max)

  return prepared_inputs.with_prepared_inputs(
      fn, base.GradientTransformation(init_fn, update_fn))


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


@arguments.declare(
    b1=_DECAY,
    b2=_DECAY,
    b3=_DECAY,
    eps=_NON_NEGATIVE,
    eps_root=_NON_NEGATIVE)
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
    TypeError: for a hyperparameter that is not a scalar (a vector, a
      string).
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

  def init_fn(params):
    return ScaleByAdanState(
        m=otu.tree_zeros_like(params),
        v=otu.tree_zeros_like(params),
        n=otu.tree_zeros_like(params),
        g=otu.tree_zeros_like(params),
        t=jnp.zeros([], jnp.int32))

  def update_fn(updates, state, params=None):
    tree_structure.check_like_updates('scale_by_adan', updates, state.m)
    del params
    beta1, beta2, beta3 = _hp(b1), _hp(b2), _hp(b3)
    epsilon = _hp(eps)
    epsilon_root = hyperparameters.as_hyperparameter_unless(eps_root, 0)
    first = dtypes.ScalarsByDtype(state.t == 0)

    def difference(g, prev):
      # jnp.where(first, 0, g - prev), the predicate broadcast once per
      # leaf shape and without jnp.where's nested jit.
      first_g, = first.get(jnp.dtype(jnp.bool_), g)
      return jax.lax.select_n(first_g, g - prev.astype(g.dtype),
                              jnp.zeros_like(g))

    diff = jax.tree.map(difference, updates, state.g)

    beta2_by_dtype = dtypes.ScalarsByDtype(beta2)

    def plus_b2_times(x, y):
      """``x + b2 y`` in the promoted dtype (Adan's look-ahead)."""
      x, y, c = beta2_by_dtype.lift(x, y)
      return x + c * y

    lookahead = jax.tree.map(plus_b2_times, updates, diff)
    m = otu.tree_update_moment(updates, state.m, beta1, 1)
    v = otu.tree_update_moment(diff, state.v, beta2, 1)
    n = otu.tree_update_moment_per_elem_norm(lookahead, state.n, beta3, 2)
    t = numerics.safe_increment(state.t)
    m_hat = otu.tree_bias_correction(m, beta1, t)
    v_hat = otu.tree_bias_correction(v, beta2, t)
    n_hat = otu.tree_bias_correction(n, beta3, t)

    new_updates = moments.tree_adam_ratio(
        updates, jax.tree.map(plus_b2_times, m_hat, v_hat), n_hat,
        epsilon_root, epsilon)
    prev = jax.tree.map(lambda g, p: g.astype(p.dtype), updates, state.g)
    return new_updates, ScaleByAdanState(m=m, v=v, n=n, g=prev, t=t)

  return prepared_inputs.with_prepared_inputs(
      fn, base.GradientTransformation(init_fn, update_fn))


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


@arguments.declare(
    b1=_DECAY,
    b2=_DECAY,
    eps=_NON_NEGATIVE,
    eps_root=_NON_NEGATIVE)
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
    TypeError: for a hyperparameter that is not a scalar (a vector, a
      string).
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
    roots = dtypes.ScalarsByDtype(epsilon_root)

    def add_root(v):
      wide, root = roots.lift(v)
      return (wide + root).astype(v.dtype)

    nu = jax.tree.map(add_root, nu)
    count = numerics.safe_increment(state.count)
    if nesterov:
      mu_hat = moments.nesterov_first_moment(updates, mu, beta1, count)
    else:
      mu_hat = otu.tree_bias_correction(mu, beta1, count)
    nu_read = jax.tree.map(
        lambda e, v: _belief_step_floor(e, v, beta2, epsilon_root), error, nu)
    nu_hat = otu.tree_bias_correction(nu_read, beta2, count)
    updates = moments.tree_adam_ratio(updates, mu_hat, nu_hat, None, epsilon)
    return updates, ScaleByBeliefState(count=count, mu=mu, nu=nu)

  return prepared_inputs.with_prepared_inputs(
      fn, base.GradientTransformation(init_fn, update_fn))


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
    b1=_CLOSED_DECAY,
    b2=_CLOSED_DECAY,
    eps=_NON_NEGATIVE,
    eps_root=_NON_NEGATIVE,
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
    TypeError: for a hyperparameter that is not a scalar (a vector, a
      string).
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


@arguments.declare(
    b1=_DECAY,
    b2=_DECAY,
    eps=_NON_NEGATIVE,
    eps_root=_NON_NEGATIVE,
    threshold=arguments.scalar_or_schedule)
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
    TypeError: for a hyperparameter that is not a scalar (a vector, a
      string).
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
      mu_hat = moments.nesterov_first_moment(updates, mu, beta1, count)
    else:
      mu_hat = otu.tree_bias_correction(mu, beta1, count)
    nu_hat = otu.tree_bias_correction(nu, beta2, count)

    def direction(g, m, v):
      m, v, r, e_root, e = dtypes.lift(m, v, rect, epsilon_root, epsilon)
      adaptive = r * m / (jnp.sqrt(v + e_root) + e)
      return jnp.where(use_rect, adaptive, m).astype(g.dtype)

    new_updates = jax.tree.map(direction, updates, mu_hat, nu_hat)
    return new_updates, ScaleByAdamState(count=count, mu=mu, nu=nu)

  return prepared_inputs.with_prepared_inputs(
      fn, base.GradientTransformation(init_fn, update_fn))


@arguments.declare(
    b1=_DECAY,
    b2=_DECAY,
    eps=_NON_NEGATIVE,
    eps_root=_NON_NEGATIVE,
    initial_accumulator_value=arguments.scalar_or_schedule)
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
    TypeError: for a hyperparameter that is not a scalar (a vector, a
      string).
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

  def init_fn(params):
    return ScaleByAdamState(
        count=jnp.zeros([], jnp.int32),
        mu=otu.tree_full_like(params, initial_accumulator_value),
        nu=otu.tree_full_like(params, initial_accumulator_value))

  def update_fn(updates, state, params=None):
    del params
    beta1, beta2 = _hp(b1), _hp(b2)
    epsilon = _hp(eps)
    epsilon_root = hyperparameters.as_hyperparameter_unless(eps_root, 0)
    one_minus_b2 = 1 - beta2
    mu = otu.tree_update_moment(updates, state.mu, beta1, 1)

    def new_nu(g, v):
      v_, g2, c = dtypes.lift(v, numerics.abs_sq(g), one_minus_b2)
      return (v_ - c * jnp.sign(v_ - g2) * g2).astype(v.dtype)

    nu = jax.tree.map(new_nu, updates, state.nu)
    count = numerics.safe_increment(state.count)
    mu_hat = otu.tree_bias_correction(mu, beta1, count)
    nu_hat = otu.tree_bias_correction(nu, beta2, count)
    new_updates = moments.tree_adam_ratio(
        updates, mu_hat, nu_hat, epsilon_root, epsilon)
    return new_updates, ScaleByAdamState(count=count, mu=mu, nu=nu)

  return prepared_inputs.with_prepared_inputs(
      fn, base.GradientTransformation(init_fn, update_fn))
