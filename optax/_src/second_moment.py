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
"""Rescaling by accumulated squared updates, without a first moment.

RMSProp (:func:`scale_by_rms`) and its centered form (:func:`scale_by_stddev`),
Adagrad (:func:`scale_by_rss`), its memory-efficient cover SM3
(:func:`scale_by_sm3`), and Adadelta (:func:`scale_by_adadelta`): in
upstream's ``optax._src.transform``, where they are re-exported.
"""

from typing import NamedTuple

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

# RMSProp and its centered form take the same hyperparameters, with the same
# rules (see arguments.declare; ``decay``'s interval depends on
# ``bias_correction`` and is checked in the factory).
_RMS_RULES = {'decay': (arguments.scalar_or_schedule,
                        arguments.bias_corrected_decay('bias_correction')),
              'eps': arguments.non_negative_scalar,
              'initial_scale': arguments.non_negative_scalar}


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
  x, v, epsilon = dtypes.lift(g, v, epsilon)
  if eps_in_sqrt:
    out = x * jax.lax.rsqrt(v + epsilon)
  else:
    out = x / (jnp.sqrt(v) + epsilon)
  return out.astype(g.dtype)


@arguments.declare(**_RMS_RULES)
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
    TypeError: if ``decay``, ``eps`` or ``initial_scale`` is neither a
      scalar nor a schedule.
    ValueError: if a Python-number ``decay`` is outside [0, 1] (outside
      [0, 1) with ``bias_correction``), or ``eps`` or ``initial_scale`` is
      negative.

  Examples:
    The PyTorch (``initial_scale=0``) and TensorFlow (``1``) first steps:

    >>> import jax.numpy as jnp
    >>> from optax._src import transform
    >>> g = jnp.array([2.0, -0.5])
    >>> for s in (0.0, 1.0):
    ...   tx = transform.scale_by_rms(decay=0.75, eps=0.0, initial_scale=s)
    ...   print(s, tx.update(g, tx.init(g))[0])
    0.0 [ 2. -2.]
    1.0 [ 1.5118579 -0.5547002]

  References:
    Hinton, Srivastava and Swersky, `Lecture 6e: rmsprop
    <https://www.cs.toronto.edu/~tijmen/csc321/slides/lecture_slides_lec6.pdf>`_,
    2012.
  """
  fn = 'scale_by_rms'

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

  return prepared_inputs.with_prepared_inputs(
      fn, base.GradientTransformation(init_fn, update_fn))


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


@arguments.declare(**_RMS_RULES)
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
    decay: the rate :math:`\rho` shared by the mean and the second moment,
      in [0, 1] ([0, 1) when ``bias_correction`` is true).
    eps: the :math:`\epsilon` of the formula's denominator.
    initial_scale: :math:`s`, the second moment's value before the first
      step (the mean starts at 0).
    eps_in_sqrt: true for the first form of :math:`u_t` above, false for
      the second.
    bias_correction: whether both EMAs are divided by
      :math:`1 - \rho^t`.

  Returns:
    A ``GradientTransformation`` whose state is a ``ScaleByRStdDevState``
    (``ScaleByRStdDevWithCountState`` with bias correction).

  Raises:
    TypeError: for a ``decay``, ``eps`` or ``initial_scale`` that is not a
      scalar (or a schedule).
    ValueError: for a Python-number ``decay`` out of its interval (which
      ``bias_correction`` sets), or a negative ``eps`` or ``initial_scale``.

  Examples:
    A constant gradient has no variance: only ``eps`` is left under the
    root.

    >>> import jax.numpy as jnp
    >>> from optax._src import transform
    >>> tx = transform.scale_by_stddev(decay=0.5, eps=1.0,
    ...                                bias_correction=True)
    >>> g = jnp.array([2.0])
    >>> state = tx.init(g)
    >>> for _ in range(3):
    ...   updates, state = tx.update(g, state)
    >>> updates
    Array([2.], dtype=float32)

  References:
    Graves, `Generating Sequences With Recurrent Neural Networks
    <https://arxiv.org/abs/1308.0850>`_, 2013.
  """
  fn = 'scale_by_stddev'

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

  return prepared_inputs.with_prepared_inputs(
      fn, base.GradientTransformation(init_fn, update_fn))


class ScaleByRssState(NamedTuple):
  """State of :func:`scale_by_rss`.

  Attributes:
    sum_of_squares: running sum of the squared gradients, shaped and typed
      like the params.
  """

  sum_of_squares: base.Updates


@arguments.declare(
    initial_accumulator_value=arguments.non_negative_scalar,
    eps=arguments.non_negative_scalar)
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
    TypeError: if ``initial_accumulator_value`` or ``eps`` is not a scalar
      or a schedule.
    ValueError: if either is a negative Python number.

  Examples:
    The sum grows with every step, so the same gradient is scaled down:

    >>> import jax.numpy as jnp
    >>> from optax._src import transform
    >>> tx = transform.scale_by_rss(initial_accumulator_value=0.0, eps=0.0)
    >>> g = jnp.array([2.0, -0.5])
    >>> _, state = tx.update(g, tx.init(g))
    >>> print(tx.update(g, state)[0])  # g / sqrt(2 g^2)
    [ 0.70710677 -0.70710677]

  References:
    Duchi, Hazan and Singer, `Adaptive Subgradient Methods for Online
    Learning and Stochastic Optimization
    <https://jmlr.org/papers/v12/duchi11a.html>`_, 2011.
  """
  fn = 'scale_by_rss'

  def init_fn(params):
    return ScaleByRssState(
        sum_of_squares=otu.tree_full_like(params, initial_accumulator_value))

  def update_fn(updates, state, params=None):
    del params
    tree_structure.check_like_updates(fn, updates, state.sum_of_squares)
    epsilon = _hp(eps)
    def new_sum(g, s):
      # Computed wide (with the float32 epsilon's dtype) and rounded once to
      # the state's dtype: XLA:CPU then reads the stored sums for the
      # update instead of computing them again from a copy of the state.
      g_w, s_w, _ = dtypes.lift(g, s, epsilon)
      return (s_w + numerics.abs_sq(g_w)).astype(s.dtype)

    sums = jax.tree.map(new_sum, updates, state.sum_of_squares)

    def leaf(g, s):
      x, s, e = dtypes.lift(g, s, epsilon)
      # The selection is of the factor, not of the product: a NaN gradient
      # (its sum NaN, so not > 0) still gives a NaN update, as upstream's.
      factor = jnp.where(s > 0, jax.lax.rsqrt(s + e), 0)
      return (x * factor).astype(g.dtype)

    new_updates = jax.tree.map(leaf, updates, sums)
    return new_updates, ScaleByRssState(sum_of_squares=sums)

  return prepared_inputs.with_prepared_inputs(
      fn, base.GradientTransformation(init_fn, update_fn))


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


@arguments.declare(
    b1=arguments.closed_decay_scalar,
    b2=arguments.closed_decay_scalar,
    eps=arguments.non_negative_scalar)
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
    TypeError: for a ``b1``, ``b2`` or ``eps`` that is not a scalar (or a
      schedule).
    ValueError: for a Python-number ``b1`` or ``b2`` outside [0, 1], a
      negative ``eps``, or (in ``init``) complex params.

  Examples:
    A matrix keeps one accumulator per row and one per column; an entry
    reads the smaller of its two:

    >>> import jax.numpy as jnp
    >>> from optax._src import transform
    >>> g = jnp.array([[3.0, 0.0], [0.0, 4.0]])
    >>> tx = transform.scale_by_sm3(b1=0.0, eps=0.0)
    >>> print(tx.update(g, tx.init(g))[0])
    [[1. 0.]
     [0. 1.]]

  References:
    Anil, Gupta, Koren and Singer, `Memory-Efficient Adaptive Optimization
    <https://arxiv.org/abs/1901.11150>`_, 2019.
  """
  fn = 'scale_by_sm3'

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
    tree_structure.check_like_updates('scale_by_sm3', updates, state.nu)
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
      c, b, g2, previous, x, e = dtypes.lift(
          coeff, beta2, numerics.abs_sq(g), previous, g, epsilon)
      a = c * g2 + b * previous
      # A NaN gradient makes a NaN, not > 0: selecting the factor (not the
      # product) keeps the NaN in the update, as upstream's does.
      scaled = x * jnp.where(a > 0, jax.lax.rsqrt(a + e), 0)
      if ndim < 2:
        new_acc = [a.astype(acc[0].dtype)]
      else:
        # Rounded before the maximum (the same bits: rounding keeps order),
        # so that the reductions read the accumulator in the state's dtype.
        new_acc = [
            jnp.max(a.astype(acc[axis].dtype),
                    axis=tuple(ax for ax in range(ndim) if ax != axis))
            for axis in range(ndim)
        ]
      return scaled, new_acc

    scaled, mu = tree_structure.unzip(
        updates, jax.tree.map(leaf, updates, state.mu), 2)
    nu = otu.tree_update_moment(scaled, state.nu, beta1, 1)
    new_updates = jax.tree.map(lambda g, n: n.astype(g.dtype), updates, nu)
    return new_updates, ScaleBySM3State(mu=mu, nu=nu)

  return prepared_inputs.with_prepared_inputs(
      fn, base.GradientTransformation(init_fn, update_fn))


class ScaleByAdaDeltaState(NamedTuple):
  """State of :func:`scale_by_adadelta`.

  Attributes:
    e_g: EMA of the squared gradients, shaped and typed like the params.
    e_x: EMA of the squared updates, shaped and typed like the params.
  """

  e_g: base.Updates
  e_x: base.Updates


@arguments.declare(
    rho=arguments.closed_decay_scalar,
    eps=arguments.non_negative_scalar)
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
    TypeError: if ``rho`` or ``eps`` is not a scalar or a schedule.
    ValueError: if a Python-number ``rho`` is outside [0, 1] or ``eps`` is
      negative.

  Examples:
    >>> import jax.numpy as jnp
    >>> from optax._src import transform
    >>> tx = transform.scale_by_adadelta(rho=0.0, eps=1.0)
    >>> state = tx.init(jnp.zeros(2))
    >>> updates, state = tx.update(jnp.array([0.0, 3.0]), state)
    >>> updates  # sqrt(eps) / sqrt(g^2 + eps) * g
    Array([0.        , 0.94868326], dtype=float32)

  References:
    Zeiler, `ADADELTA: An Adaptive Learning Rate Method
    <https://arxiv.org/abs/1212.5701>`_, 2012.
  """
  fn = 'scale_by_adadelta'

  def init_fn(params):
    return ScaleByAdaDeltaState(
        e_g=otu.tree_zeros_like(params), e_x=otu.tree_zeros_like(params))

  def update_fn(updates, state, params=None):
    tree_structure.check_like_updates(
        'scale_by_adadelta', updates, state.e_g)
    del params
    decay, epsilon = _hp(rho), _hp(eps)
    e_g = otu.tree_update_moment_per_elem_norm(updates, state.e_g, decay, 2)
    def direction(g, eg, ex):
      x, eg, ex, e = dtypes.lift(g, eg, ex, epsilon)
      return (jnp.sqrt(ex + e) / jnp.sqrt(eg + e) * x).astype(g.dtype)

    new_updates = jax.tree.map(direction, updates, e_g, state.e_x)
    e_x = otu.tree_update_moment_per_elem_norm(
        new_updates, state.e_x, decay, 2)
    return new_updates, ScaleByAdaDeltaState(e_g=e_g, e_x=e_x)

  return prepared_inputs.with_prepared_inputs(
      fn, base.GradientTransformation(init_fn, update_fn))
