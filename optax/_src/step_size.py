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
"""Step sizes: constant, scheduled, learning rate, Polyak and DoG.

Transformations that multiply the updates by one step size, fixed
(:func:`scale`), a function of the step count (:func:`scale_by_schedule`,
:func:`scale_by_learning_rate`), or adapted from the objective value
(:func:`scale_by_polyak`) or the distance travelled from the initial params
(:func:`scale_by_distance_over_gradients`, one step size per leaf).

Upstream Optax defines these in ``optax._src.transform``, which re-exports
them and gives them that ``__module__`` so that pickles name the same module.
"""

from typing import Any, NamedTuple, Optional

import jax
import jax.numpy as jnp
import numpy as np

from optax import tree_utils as otu
from optax._src import arguments
from optax._src import base
from optax._src import dtypes
from optax._src import hyperparameters
from optax._src import moments
from optax._src import numerics
from optax._src import prepared_inputs
from optax._src import utils
from optax._src import validation

_hp = hyperparameters.as_hyperparameter  # Shorthand.


@arguments.declare(step_size=arguments.scalar_or_schedule)
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
    return moments.scale_leaves(_hp(step_size), updates), state

  return prepared_inputs.with_prepared_inputs(
      'scale', base.GradientTransformation(base.init_empty_state, update_fn))


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
  return prepared_inputs.with_prepared_inputs(
      'scale_by_schedule', _scale_by_schedule(step_size_fn))


def _scale_by_schedule(
    step_size_fn: base.Schedule,
) -> base.GradientTransformation:
  """:func:`scale_by_schedule` without its input preparation."""

  def init_fn(params):
    del params
    return ScaleByScheduleState(count=jnp.zeros([], jnp.int32))

  def update_fn(updates, state, params=None):
    del params
    updates = moments.scale_leaves(_hp(step_size_fn(state.count)), updates)
    return updates, ScaleByScheduleState(
        count=numerics.safe_increment(state.count))

  return base.GradientTransformation(init_fn, update_fn)


@arguments.declare(learning_rate=arguments.learning_rate)
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
    return prepared_inputs.with_prepared_inputs('scale_by_learning_rate',
                                                base.identity())
  sign = -1 if flip_sign else 1
  if callable(learning_rate):
    schedule = learning_rate

    def signed_schedule(count):
      return sign * _hp(schedule(count))

    return prepared_inputs.with_prepared_inputs(
        'scale_by_learning_rate', _scale_by_schedule(signed_schedule))

  def update_fn(updates, state, params=None):
    del params
    # A Python number is negated before it becomes an array (exactly: the
    # bits are those of the negated array), so XLA sees one constant rather
    # than a product it would recompute in every leaf's fused computation.
    factor = (_hp(sign * learning_rate)
              if hyperparameters.is_number(learning_rate)
              else sign * _hp(learning_rate))
    return moments.scale_leaves(factor, updates), state

  return prepared_inputs.with_prepared_inputs(
      'scale_by_learning_rate',
      base.GradientTransformation(base.init_empty_state, update_fn))


# The Polyak step is set to zero where the squared gradient norm (plus eps)
# falls below the float64 machine epsilon: the gradient is numerically zero.
_POLYAK_TINY = float(np.finfo(np.float64).eps)


@arguments.declare(
    variant=arguments.one_of('sps', 'sps+'),
    max_learning_rate=arguments.non_negative,
    eps=arguments.non_negative_scalar, f_min=arguments.scalar_or_schedule)
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

  def update_fn(updates, state, params=None, *, value, **extra_args):
    del params, extra_args
    sq_norm = otu.tree_norm(updates, squared=True)
    denominator = (sq_norm.astype(hyperparameters.hyperparameter_dtype())
                   + _hp(eps))
    gap = _hp(value) - _hp(f_min)
    if variant == 'sps+':
      gap = jnp.maximum(gap, 0)
    step = jnp.minimum(gap / denominator, _hp(max_learning_rate))
    step = jnp.where(denominator <= _POLYAK_TINY, 0, step)
    return moments.scale_leaves(step, updates), state

  return prepared_inputs.with_prepared_inputs(
      fn, base.GradientTransformationExtraArgs(
          base.init_empty_state, update_fn))


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


@arguments.declare(reps_rel=arguments.positive_scalar,
                   eps=arguments.non_negative_scalar,
                   global_scale=arguments.scalar_or_schedule)
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
  param_dtype = utils.canonicalize_dtype(param_dtype)

  def init_fn(params):
    def first_dist(p):
      norm, r = dtypes.lift(
          jnp.linalg.norm(p.astype(param_dtype)), _hp(reps_rel))
      return (r * (1 + norm)).astype(param_dtype)

    return ScaleByDistanceOverGradientsState(
        max_dist=jax.tree.map(first_dist, params),
        grad_sum_of_squares=jax.tree.map(
            lambda _: jnp.zeros([1], param_dtype), params),
        init_params=jax.tree.map(lambda p: p.astype(param_dtype), params))

  def update_fn(updates, state, params=None):
    validation.require_params(fn, params)
    scale_, epsilon = _hp(global_scale), _hp(eps)
    max_dist = jax.tree.map(
        lambda d, p, p0: jnp.maximum(
            d, jnp.linalg.norm(p.astype(param_dtype) - p0)).astype(d.dtype),
        state.max_dist, params, state.init_params)
    sums = jax.tree.map(
        lambda s, g: jnp.add(
            *dtypes.lift(s, jnp.sum(numerics.abs_sq(g)))).astype(s.dtype),
        state.grad_sum_of_squares, updates)

    def leaf(g, d, s):
      x, d, s, c, e = dtypes.lift(g, d, s[0], scale_, epsilon)
      return (c * d / jnp.sqrt(s + e) * x).astype(g.dtype)

    new_updates = jax.tree.map(leaf, updates, max_dist, sums)
    return new_updates, ScaleByDistanceOverGradientsState(
        max_dist=max_dist, grad_sum_of_squares=sums,
        init_params=state.init_params)

  return prepared_inputs.with_prepared_inputs(
      fn, base.GradientTransformation(init_fn, update_fn))
