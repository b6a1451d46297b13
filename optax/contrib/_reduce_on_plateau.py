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
"""Reduce the learning rate when a monitored value stops improving."""

import math
from typing import NamedTuple

import jax
import jax.numpy as jnp

from optax._src import arguments
from optax._src import base
from optax._src import dtypes
from optax._src import hyperparameters
from optax._src import prepared_inputs


class ReduceLROnPlateauState(NamedTuple):
  """State of :func:`reduce_on_plateau`.

  Attributes:
    scale: scalar, the factor the updates are multiplied by.
    best_value: scalar, the best (lowest) averaged value so far.
    plateau_count: int32 scalar, the number of evaluations without
      improvement.
    cooldown_count: int32 scalar, the number of evaluations left before
      plateaus are counted again after a reduction.
    count: int32 scalar, the number of values accumulated in the current
      evaluation window.
    avg_value: scalar, the mean of the values of the current window.

  ``scale``, ``best_value`` and ``avg_value`` are float32 (float64 under
  x64) whatever the params' dtypes: a bfloat16 scale would round
  ``factor ** k`` at every reduction and losses would be compared to 8 bits.
  """

  scale: jax.Array
  best_value: jax.Array
  plateau_count: jax.Array
  cooldown_count: jax.Array
  count: jax.Array
  avg_value: jax.Array


@arguments.declare(
    factor=(arguments.in_interval(0, 1, include_low=False,
                                  include_high=False),
            arguments.scalar_or_schedule),
    rtol=(arguments.in_interval(0, 1), arguments.scalar_or_schedule),
    atol=arguments.non_negative_scalar,
    min_scale=arguments.non_negative_scalar)
def reduce_on_plateau(
    factor: float = 0.1,
    patience: int = 10,
    rtol: float = 1e-4,
    atol: float = 0.0,
    cooldown: int = 0,
    accumulation_size: int = 1,
    min_scale: float = 0.0,
) -> base.GradientTransformationExtraArgs:
  r"""Scales the updates down when a monitored value reaches a plateau.

  ``update`` takes the monitored value (typically the loss) as the keyword
  argument ``value``. The values of ``accumulation_size`` consecutive calls
  are averaged into :math:`\bar v`, and each average is compared with the
  best one so far, :math:`b`: it is an improvement when

  .. math::

    \bar v < b - \mathrm{rtol}\, |b| - \mathrm{atol},

  a margin that does not depend on the sign of :math:`b`, so that a constant
  value is a plateau whether it is positive or negative.

  After ``patience`` averages in a row without improvement (and outside a
  cooldown), the scale is multiplied by ``factor`` (but kept at least
  ``min_scale``), the count of averages without improvement restarts, and
  the next ``cooldown`` averages do not count. The updates are multiplied by
  the current scale.

  Args:
    factor: the factor, in (0, 1), by which the scale is reduced.
    patience: the number of averages without improvement that trigger a
      reduction.
    rtol: the relative tolerance of the improvement test, in [0, 1].
    atol: the absolute tolerance of the improvement test.
    cooldown: the number of averages to wait after a reduction before
      counting plateaus again.
    accumulation_size: the number of values averaged before each test.
    min_scale: the smallest scale.

  Returns:
    A ``GradientTransformationExtraArgs`` whose state is a
    :class:`ReduceLROnPlateauState`; ``update`` requires the keyword
    argument ``value``.

  Raises:
    TypeError: for a hyperparameter that is not a scalar (a vector, a
      string).
    ValueError: if ``factor`` is not in (0, 1), ``rtol`` not in [0, 1],
      ``atol`` or ``min_scale`` negative, both tolerances zero,
      ``patience`` or ``accumulation_size`` not a positive integer or
      ``cooldown`` not a non-negative one (for Python numbers).

  Examples:
    >>> import jax.numpy as jnp
    >>> import optax
    >>> tx = optax.contrib.reduce_on_plateau(factor=0.5, patience=2)
    >>> state = tx.init(jnp.zeros(1))
    >>> for loss in [3.0, 2.0, 2.0, 2.0, 2.0, 2.0]:
    ...   updates, state = tx.update(jnp.ones(1), state, value=loss)
    ...   print(updates)
    [1.]
    [1.]
    [1.]
    [0.5]
    [0.5]
    [0.25]

  References:
    PyTorch's ``torch.optim.lr_scheduler.ReduceLROnPlateau``, and Keras'
    ``ReduceLROnPlateau`` callback.
  """
  fn = 'reduce_on_plateau'
  if (hyperparameters.is_number(rtol) and hyperparameters.is_number(atol)
      and rtol == 0 and atol == 0):
    raise ValueError(
        f'{fn}: at least one of rtol and atol must be positive, got rtol=0'
        ' and atol=0 (every equal value would count as an improvement).')
  for name, value, low in (('patience', patience, 1),
                           ('cooldown', cooldown, 0),
                           ('accumulation_size', accumulation_size, 1)):
    # Whole numbers, as floats too, and inf (never reduce) are accepted.
    if hyperparameters.is_number(value) and not (
        value >= low and (math.isinf(value) or value == int(value))):
      raise ValueError(
          f'{fn}: {name} must be an integer >= {low}, got {value!r}')

  def init_fn(params):
    del params  # The scalars do not depend on the params' dtypes.
    dtype = hyperparameters.hyperparameter_dtype()
    # A fresh buffer per field, so that the state can be donated.
    return ReduceLROnPlateauState(
        scale=jnp.ones([], dtype),
        best_value=jnp.full([], jnp.inf, dtype),
        plateau_count=jnp.zeros([], jnp.int32),
        cooldown_count=jnp.zeros([], jnp.int32),
        count=jnp.zeros([], jnp.int32),
        avg_value=jnp.zeros([], dtype),
    )

  def update_fn(updates, state, params=None, *, value, **extra_args):
    del params, extra_args
    dtype = dtypes.promote_dtypes(
        state.scale.dtype, state.avg_value.dtype,
        hyperparameters.hyperparameter_dtype())
    value = jnp.asarray(value).astype(dtype)
    count = state.count + 1
    avg_value = (state.avg_value.astype(dtype)
                 + (value - state.avg_value.astype(dtype))
                 / count.astype(dtype))
    evaluate = count >= accumulation_size

    best = state.best_value.astype(dtype)
    rtol_ = hyperparameters.as_hyperparameter(rtol).astype(dtype)
    # The margin is rtol * |best|: (1 - rtol) * best would lie above a
    # negative best, and a constant negative value would improve forever.
    # Written as (1 -/+ rtol) * best, which is inf at the initial best = inf
    # (best - rtol * |best| would be inf - inf = nan there).
    threshold = jnp.where(best < 0, (1 + rtol_) * best, (1 - rtol_) * best)
    improved = avg_value < (
        threshold - hyperparameters.as_hyperparameter(atol).astype(dtype))
    in_cooldown = state.cooldown_count > 0
    plateau_count = jnp.where(improved, 0, state.plateau_count + 1)
    plateau_count = jnp.where(in_cooldown, 0, plateau_count)
    reduce = jnp.logical_and(plateau_count >= patience,
                             jnp.logical_not(in_cooldown))
    scale = state.scale.astype(dtype)
    reduced = jnp.maximum(
        scale * hyperparameters.as_hyperparameter(factor).astype(dtype),
        hyperparameters.as_hyperparameter(min_scale).astype(dtype))
    new_scale = jnp.where(reduce, reduced, scale)
    cooldown_count = jnp.where(
        reduce, jnp.asarray(cooldown, jnp.int32),
        jnp.maximum(state.cooldown_count - 1, 0))
    plateau_count = jnp.where(reduce, 0, plateau_count)

    # Outside an evaluation step, only the running mean moves.
    new_state = ReduceLROnPlateauState(
        scale=jnp.where(evaluate, new_scale, scale).astype(state.scale.dtype),
        best_value=jnp.where(evaluate & improved, avg_value, best).astype(
            state.best_value.dtype),
        plateau_count=jnp.where(evaluate, plateau_count,
                                state.plateau_count).astype(jnp.int32),
        cooldown_count=jnp.where(evaluate, cooldown_count,
                                 state.cooldown_count).astype(jnp.int32),
        count=jnp.where(evaluate, 0, count).astype(jnp.int32),
        avg_value=jnp.where(evaluate, 0, avg_value).astype(
            state.avg_value.dtype),
    )
    factor_ = new_state.scale
    updates = jax.tree.map(
        lambda u: (u * factor_.astype(jnp.promote_types(u.dtype,
                                                        factor_.dtype))
                   ).astype(u.dtype), updates)
    return updates, new_state

  return prepared_inputs.with_prepared_inputs(
      'reduce_on_plateau',
      base.GradientTransformationExtraArgs(init_fn, update_fn))
