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
"""DoG and DoWG: parameter-free step sizes from the distance travelled."""

from typing import Any, NamedTuple, Optional

import jax
import jax.numpy as jnp

from optax._src import arguments
from optax._src import base
from optax._src import dtypes
from optax._src import hyperparameters
from optax._src import numerics
from optax._src import prepared_inputs
from optax._src import scalar_statistics
from optax._src import transform
from optax._src import validation
from optax.transforms import _adding
from optax.transforms import _combining

_INIT_STEP_TYPES = ('heuristic', 'distance', 'learning_rate')


def _sq_norm(tree: Any, dtype: jnp.dtype) -> jax.Array:
  """Squared Euclidean norm of a tree, accumulated in ``dtype`` or wider."""
  leaves = [jnp.asarray(x) for x in jax.tree.leaves(tree)]
  total = jnp.zeros([], dtype)
  for x in leaves:
    x = x.astype(dtypes.promote_dtypes(x.dtype, dtype))
    total = total + jnp.sum(numerics.abs_sq(x)).astype(dtype)
  return total


def _sq_dist(params: Any, init_params: Any, dtype: jnp.dtype) -> jax.Array:
  diff = jax.tree.map(
      lambda p, p0: p.astype(dtypes.promote_dtypes(p.dtype, dtype))
      - p0.astype(dtypes.promote_dtypes(p0.dtype, dtype)),
      params, init_params)
  return _sq_norm(diff, dtype)


def _scale_leaves(factor: jax.Array, updates: base.Updates) -> base.Updates:
  def leaf(g):
    dtype = dtypes.promote_dtypes(g.dtype, factor.dtype)
    return (factor.astype(dtype) * g.astype(dtype)).astype(g.dtype)
  return jax.tree.map(leaf, updates)


def _require_params(fn: str, params: Any) -> None:
  validation.require_params(
      fn, params,
      'the step size depends on the distance from the initial params')


class DoGState(NamedTuple):
  r"""State of :func:`dog`.

  Attributes:
    is_init_step: bool scalar, whether the next update is the first one.
    init_params: the initial params :math:`x_0` (a copy, so that the state
      can be donated).
    max_dist: scalar, the largest distance :math:`\bar r_t` from the initial
      params seen so far (starts at :math:`r_\epsilon`), float32 (float64
      under x64) whatever the params' dtypes.
    sum_sq_norm_grads: scalar, the sum of the squared norms of the
      gradients so far, typed like ``max_dist``.
  """

  is_init_step: jax.Array
  init_params: base.Params
  max_dist: jax.Array
  sum_sq_norm_grads: jax.Array


def _scale_by_dog(
    init_step: tuple[str, float], eps: float
) -> base.GradientTransformation:
  """Multiplies updates by the DoG step size (see :func:`dog`)."""
  step_type, step_value = init_step

  def init_fn(params):
    dtype = scalar_statistics.statistics_dtype(params)
    value = hyperparameters.as_hyperparameter(step_value)
    hp = value.dtype
    if step_type == 'heuristic':
      max_dist = value * (1 + jnp.sqrt(_sq_norm(params, hp)))
    elif step_type == 'distance':
      max_dist = value
    else:
      max_dist = jnp.zeros([], hp)
    return DoGState(
        is_init_step=jnp.ones([], jnp.bool_),
        init_params=jax.tree.map(lambda p: jnp.array(p, copy=True), params),
        max_dist=max_dist.astype(dtype),
        sum_sq_norm_grads=jnp.zeros([], dtype))

  def update_fn(updates, state, params=None):
    _require_params('dog', params)
    epsilon = hyperparameters.as_hyperparameter(eps)
    hp = epsilon.dtype
    dist = jnp.sqrt(_sq_dist(params, state.init_params, hp))
    max_dist = jnp.maximum(state.max_dist.astype(hp), dist)
    sum_sq = state.sum_sq_norm_grads.astype(hp) + _sq_norm(updates, hp)
    step = max_dist / jnp.sqrt(sum_sq + epsilon)
    if step_type == 'learning_rate':
      first = hyperparameters.as_hyperparameter(step_value)
      step = jnp.where(state.is_init_step, first, step)
    return _scale_leaves(step, updates), DoGState(
        is_init_step=jnp.zeros([], jnp.bool_),
        init_params=state.init_params,
        max_dist=max_dist.astype(state.max_dist.dtype),
        sum_sq_norm_grads=sum_sq.astype(state.sum_sq_norm_grads.dtype))

  return prepared_inputs.with_prepared_inputs(
      'dog', base.GradientTransformation(init_fn, update_fn))


def _decayed_weights(weight_decay: Any,
                     mask: base.MaskOrFn) -> base.GradientTransformation:
  """The weight decay added to the gradients; none for ``None``."""
  if weight_decay is None:
    return base.identity()
  return _adding.add_decayed_weights(weight_decay, mask)


@arguments.declare(eps=arguments.non_negative_scalar)
def dog(
    learning_rate: base.ScalarOrSchedule = 1.0,
    init_step: tuple[str, float] = ('heuristic', 1e-6),
    eps: float = 1e-8,
    weight_decay: Optional[float] = None,
    mask: base.MaskOrFn = None,
) -> base.GradientTransformationExtraArgs:
  r"""Distance over Gradients (DoG): SGD with a parameter-free step size.

  The step size is the largest distance travelled from the initial point
  divided by the root of the sum of the squared gradient norms:

  .. math::

    \bar r_t &= \max(\bar r_{t-1}, \|x_t - x_0\|), \quad
      \bar r_{-1} = r_\epsilon, \\
    G_t &= G_{t-1} + \|g_t\|^2, \\
    \eta_t &= \bar r_t / \sqrt{G_t + \epsilon}, \\
    x_{t+1} &= x_t - \gamma\, \eta_t\, g_t,

  where :math:`g_t` includes the weight decay :math:`\lambda x_t` when
  ``weight_decay`` is given and :math:`\gamma` is ``learning_rate`` (1 is
  the intended value). ``init_step`` sets the first step:

  * ``('heuristic', c)``: :math:`r_\epsilon = c\,(1 + \|x_0\|)`;
  * ``('distance', r)``: :math:`r_\epsilon = r`;
  * ``('learning_rate', eta)``: the first step size is :math:`\eta_0 = `
    ``eta``, and :math:`r_\epsilon = 0`.

  Args:
    learning_rate: a multiplier :math:`\gamma` of the step size, a number or
      a schedule.
    init_step: a pair ``(kind, value)`` with kind one of ``'heuristic'``,
      ``'distance'`` or ``'learning_rate'``, setting the first step as above.
    eps: term added to the sum of squared gradient norms.
    weight_decay: the coefficient :math:`\lambda` of the weight decay added
      to the gradients, or ``None`` for none.
    mask: a tree of booleans (or a function of the params returning one)
      selecting the leaves to decay.

  Returns:
    A ``GradientTransformationExtraArgs``; its ``update`` requires ``params``.

  Raises:
    TypeError: for a hyperparameter that is not a scalar (a vector, a
      string).
    ValueError: if ``init_step`` is not a known ``(kind, value)`` pair with a
      positive Python-number value, or ``eps`` is negative.

  Examples:
    >>> import jax.numpy as jnp
    >>> from optax.contrib import _dog
    >>> opt = _dog.dog(init_step=('distance', 1.0), eps=0.0)
    >>> params = jnp.array([3.0, -4.0])
    >>> updates, _ = opt.update(params, opt.init(params), params)
    >>> updates
    Array([-0.6,  0.8], dtype=float32)

  References:
    Ivgi, Hinder and Carmon, `DoG is SGD's Best Friend: A Parameter-Free
    Dynamic Step Size Schedule <https://arxiv.org/abs/2302.12022>`_, 2023.

  .. seealso:: :func:`dowg`
  """
  fn = 'dog'
  if (not isinstance(init_step, (tuple, list)) or len(init_step) != 2
      or init_step[0] not in _INIT_STEP_TYPES):
    raise ValueError(
        f'{fn}: init_step must be a pair (kind, value) with kind one of'
        f' {_INIT_STEP_TYPES}, got {init_step!r}')
  validation.check_positive(fn, 'init_step[1]', init_step[1])
  return _combining.chain(
      _decayed_weights(weight_decay, mask),
      _scale_by_dog(tuple(init_step), eps),
      transform.scale_by_learning_rate(learning_rate),
  )


class DoWGState(NamedTuple):
  r"""State of :func:`dowg`.

  Attributes:
    init_params: the initial params :math:`x_0` (a copy, so that the state
      can be donated).
    weighted_sq_norm_grads: scalar, the sum of the squared gradient norms
      weighted by the squared distance estimates, float32 (float64 under
      x64) whatever the params' dtypes.
    estim_sq_dist: scalar, the estimate :math:`\bar r_t^2` of the squared
      distance to the solution, typed like ``weighted_sq_norm_grads``.
  """

  init_params: base.Params
  weighted_sq_norm_grads: jax.Array
  estim_sq_dist: jax.Array


def _scale_by_dowg(
    init_estim_sq_dist: Optional[float], eps: float
) -> base.GradientTransformation:
  """Multiplies updates by the DoWG step size (see :func:`dowg`)."""

  def init_fn(params):
    dtype = scalar_statistics.statistics_dtype(params)
    first = eps if init_estim_sq_dist is None else init_estim_sq_dist
    return DoWGState(
        init_params=jax.tree.map(lambda p: jnp.array(p, copy=True), params),
        weighted_sq_norm_grads=jnp.zeros([], dtype),
        estim_sq_dist=hyperparameters.as_hyperparameter(first).astype(dtype))

  def update_fn(updates, state, params=None):
    _require_params('dowg', params)
    epsilon = hyperparameters.as_hyperparameter(eps)
    hp = epsilon.dtype
    sq_dist = _sq_dist(params, state.init_params, hp)
    estim = jnp.maximum(state.estim_sq_dist.astype(hp), sq_dist)
    weighted = (state.weighted_sq_norm_grads.astype(hp)
                + estim * _sq_norm(updates, hp))
    step = estim / (jnp.sqrt(weighted) + epsilon)
    return _scale_leaves(step, updates), DoWGState(
        init_params=state.init_params,
        weighted_sq_norm_grads=weighted.astype(
            state.weighted_sq_norm_grads.dtype),
        estim_sq_dist=estim.astype(state.estim_sq_dist.dtype))

  return prepared_inputs.with_prepared_inputs(
      'dowg', base.GradientTransformation(init_fn, update_fn))


@arguments.declare(
    eps=arguments.non_negative_scalar,
    # None: from eps.
    init_estim_sq_dist=(arguments.non_negative,
                        arguments.scalar_schedule_or_none))
def dowg(
    learning_rate: base.ScalarOrSchedule = 1.0,
    init_estim_sq_dist: Optional[float] = None,
    eps: float = 1e-4,
    weight_decay: Optional[float] = None,
    mask: base.MaskOrFn = None,
) -> base.GradientTransformationExtraArgs:
  r"""Distance over Weighted Gradients (DoWG): a parameter-free step size.

  The squared gradient norms are weighted by the squared distance estimate,
  which makes the method adapt to the smoothness of the objective:

  .. math::

    \bar r_t^2 &= \max(\bar r_{t-1}^2, \|x_t - x_0\|^2), \\
    v_t &= v_{t-1} + \bar r_t^2 \|g_t\|^2, \\
    \eta_t &= \bar r_t^2 / (\sqrt{v_t} + \epsilon), \\
    x_{t+1} &= x_t - \gamma\, \eta_t\, g_t,

  where :math:`g_t` includes the weight decay :math:`\lambda x_t` when
  ``weight_decay`` is given, :math:`\gamma` is ``learning_rate`` (1 is the
  intended value) and :math:`\bar r_{-1}^2` is ``init_estim_sq_dist``
  (``eps`` when it is None).

  Args:
    learning_rate: a multiplier :math:`\gamma` of the step size, a number or
      a schedule.
    init_estim_sq_dist: the initial estimate of the squared distance to the
      solution; ``None`` uses ``eps``.
    eps: term added to the denominator, and the default initial estimate.
    weight_decay: :math:`\lambda`; :math:`\lambda \theta` is added to the
      gradients before the DoWG step (``None``: no decay).
    mask: the params to decay, as booleans shaped like the params or a
      function of the params that returns them.

  Returns:
    A ``GradientTransformationExtraArgs``. Its ``update`` needs the params:
    the distance estimate is measured from the first ones.

  Raises:
    ValueError: if a Python-number ``eps`` or ``init_estim_sq_dist`` is
      negative.
    TypeError: for a vector or a string given as a hyperparameter.

  Examples:
    >>> import jax.numpy as jnp
    >>> from optax.contrib import _dog
    >>> opt = _dog.dowg(init_estim_sq_dist=1.0, eps=0.0)
    >>> params = jnp.array([3.0, -4.0])
    >>> updates, _ = opt.update(params, opt.init(params), params)
    >>> updates
    Array([-0.6,  0.8], dtype=float32)

  References:
    Khaled, Mishchenko and Jin, `DoWG Unleashed: An Efficient Universal
    Parameter-Free Gradient Descent Method
    <https://arxiv.org/abs/2305.16284>`_, 2023.

  .. seealso:: :func:`dog`
  """
  return _combining.chain(
      _decayed_weights(weight_decay, mask),
      _scale_by_dowg(init_estim_sq_dist, eps),
      transform.scale_by_learning_rate(learning_rate),
  )
