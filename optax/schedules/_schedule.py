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
"""Schedules: functions mapping a step count to a hyperparameter value.

Every schedule of this module is built from Python configuration only (no JAX
array exists before the schedule is called), and the returned function is
jit-safe: it accepts a Python integer or a (possibly traced) JAX integer
scalar and returns a scalar.
"""

from collections.abc import Callable, Iterable, Mapping
from typing import Any, Optional

from absl import logging
import jax.numpy as jnp

from optax._src import arguments
from optax._src import base
from optax._src import hyperparameters
from optax.schedules import _join


def _sorted_boundaries_and_scales(
    fn_name: str, boundaries_and_scales: Optional[Mapping[int, float]],
) -> tuple[tuple[Any, ...], tuple[Any, ...]]:
  """Splits and sorts a ``{boundary: scale}`` mapping; checks the scales."""
  if boundaries_and_scales is None:
    return (), ()
  items = sorted(boundaries_and_scales.items(), key=lambda kv: kv[0])
  for boundary, scale in items:
    if hyperparameters.is_number(scale) and scale < 0:
      raise ValueError(
          f'{fn_name}: the scales of boundaries_and_scales must be '
          f'non-negative, got scale {scale} at boundary {boundary}.')
  return tuple(b for b, _ in items), tuple(s for _, s in items)


def constant_schedule(value: base.Numeric) -> base.Schedule:
  """A schedule that returns the same value at every step.

  Args:
    value: the value to return; it is returned as given (a Python number stays
      a Python number).

  Returns:
    A schedule ``f`` with ``f(step) = value``.

  Examples:
    >>> import optax
    >>> schedule = optax.constant_schedule(0.1)
    >>> schedule(0), schedule(1000)
    (0.1, 0.1)
  """

  def schedule(count: base.Numeric) -> base.Numeric:
    del count
    return value

  return schedule


def polynomial_schedule(
    init_value: base.Numeric,
    end_value: base.Numeric,
    power: base.Numeric,
    transition_steps: int,
    transition_begin: int = 0,
) -> base.Schedule:
  r"""A polynomial transition from ``init_value`` to ``end_value``.

  With :math:`T` = ``transition_steps``, :math:`t_0` = ``transition_begin`` and
  :math:`\tau = \min(\max(t - t_0, 0), T)`:

  .. math::

    f(t) = (v_{\text{init}} - v_{\text{end}})
      \left(1 - \frac{\tau}{T}\right)^{p} + v_{\text{end}}.

  The value is ``init_value`` up to step ``transition_begin`` and
  ``end_value`` from step ``transition_begin + transition_steps`` on.

  Degenerate settings (kept from upstream Optax, logged at INFO level):
  ``transition_steps <= 0`` gives the constant schedule ``init_value``, and a
  negative ``transition_begin`` is replaced by ``0``. The fraction
  :math:`1 - \tau / T` is floored at 0, so a fractional ``power`` never gives
  NaN at the end of the transition under jit.

  Args:
    init_value: the value at the start of the transition.
    end_value: the value at the end of the transition and after it.
    power: the exponent :math:`p` of the polynomial; must be non-negative.
    transition_steps: the number of steps of the transition.
    transition_begin: the number of steps during which the value stays at
      ``init_value`` before the transition starts.

  Returns:
    A schedule (a function of the step).

  Raises:
    ValueError: if ``power`` is negative (the schedule would diverge to
      infinity at the end of the transition).

  Examples:
    >>> import optax
    >>> schedule = optax.polynomial_schedule(
    ...     init_value=1.0, end_value=0.0, power=2, transition_steps=4)
    >>> [float(schedule(t)) for t in range(6)]
    [1.0, 0.5625, 0.25, 0.0625, 0.0, 0.0]
  """
  if hyperparameters.is_number(power) and power < 0:
    raise ValueError(
        f'polynomial_schedule: power must be non-negative, got {power}; a '
        'negative power diverges to infinity at the end of the transition.')
  if hyperparameters.is_number(transition_steps) and transition_steps <= 0:
    logging.info(
        'polynomial_schedule: transition_steps=%s is not positive, so the '
        'schedule is the constant init_value=%s.', transition_steps,
        init_value)
    return constant_schedule(init_value)
  if hyperparameters.is_number(transition_begin) and transition_begin < 0:
    logging.info(
        'polynomial_schedule: transition_begin=%s is negative and is replaced '
        'by 0.', transition_begin)
    transition_begin = 0

  def schedule(count: base.Numeric) -> base.Numeric:
    # The fraction done is clipped to [0, 1] after the division, not the
    # steps before it: under jit, XLA may turn the division into a product
    # by the reciprocal, and T * (1 / T) can exceed 1, leaving a tiny
    # negative remainder whose fractional power is NaN (upstream Optax
    # returns NaN there). As many operations as clipping the steps to
    # [0, T], and the same bits where the division is exact (eagerly).
    elapsed = jnp.asarray(count) - transition_begin
    remaining = 1 - jnp.clip(elapsed / transition_steps, 0, 1)
    return (init_value - end_value) * (remaining ** power) + end_value

  return schedule


def linear_schedule(
    init_value: base.Numeric,
    end_value: base.Numeric,
    transition_steps: int,
    transition_begin: int = 0,
) -> base.Schedule:
  r"""A linear transition from ``init_value`` to ``end_value``.

  The value stays at ``init_value`` for the first ``transition_begin``
  steps, moves in equal increments to ``end_value`` over the next
  ``transition_steps`` steps and stays there. This is
  :func:`polynomial_schedule` with ``power=1``, degenerate settings
  included (``transition_steps <= 0`` gives the constant ``init_value``; a
  negative ``transition_begin`` is replaced by ``0``).

  Args:
    init_value: the value before and at the start of the line.
    end_value: the value the line reaches, kept afterwards.
    transition_steps: how many steps the line takes.
    transition_begin: the step at which the line starts.

  Returns:
    A schedule: a function of the step count.

  Examples:
    >>> import optax
    >>> schedule = optax.linear_schedule(1.0, 0.5, transition_steps=4,
    ...                                  transition_begin=1)
    >>> [float(schedule(t)) for t in range(7)]
    [1.0, 1.0, 0.875, 0.75, 0.625, 0.5, 0.5]
  """
  return polynomial_schedule(
      init_value=init_value,
      end_value=end_value,
      power=1,
      transition_steps=transition_steps,
      transition_begin=transition_begin,
  )


def piecewise_constant_schedule(
    init_value: float,
    boundaries_and_scales: Optional[dict[int, float]] = None,
) -> base.Schedule:
  r"""A piecewise-constant schedule: the value is rescaled at given steps.

  For boundaries :math:`b_1 < \dots < b_n` with scales :math:`s_i`,

  .. math::

    f(t) = v_{\text{init}} \prod_{i \,:\, b_i \le t} s_i,

  so the value is multiplied by ``s_i`` from step ``b_i`` on (the step equal to
  a boundary already sees the new value).

  Args:
    init_value: the value before the first boundary.
    boundaries_and_scales: a mapping from steps to the non-negative factor by
      which the value is multiplied from that step on. ``None`` or an empty
      mapping gives the constant ``init_value``.

  Returns:
    A schedule (a function of the step).

  Raises:
    ValueError: if a scale is negative.

  Examples:
    >>> import optax
    >>> schedule = optax.piecewise_constant_schedule(
    ...     1.0, boundaries_and_scales={2: 0.5, 4: 0.5})
    >>> [float(schedule(t)) for t in range(6)]
    [1.0, 1.0, 0.5, 0.5, 0.25, 0.25]
  """
  boundaries, scales = _sorted_boundaries_and_scales(
      'piecewise_constant_schedule', boundaries_and_scales)

  def schedule(count: base.Numeric) -> base.Numeric:
    value = init_value
    for boundary, scale in zip(boundaries, scales):
      # The product is taken in the floating dtype (not in Python double
      # precision), as upstream Optax does.
      value = jnp.where(count < boundary, value, jnp.asarray(scale) * value)
    return value

  return schedule


def exponential_decay(
    init_value: float,
    transition_steps: int,
    decay_rate: float,
    transition_begin: int = 0,
    staircase: bool = False,
    end_value: Optional[float] = None,
) -> base.Schedule:
  r"""An exponential decay (or growth) of the value.

  With :math:`T` = ``transition_steps``, :math:`t_0` = ``transition_begin`` and
  :math:`r` = ``decay_rate``:

  .. math::

    f(t) = \begin{cases}
      v_{\text{init}} & t \le t_0, \\
      v_{\text{init}} \, r^{(t - t_0) / T} & t > t_0,
    \end{cases}

  where the exponent is rounded down to an integer when ``staircase`` is true.
  If ``end_value`` is given, the value is clipped so that it never goes past
  it: from below when ``decay_rate < 1`` (a decay), from above otherwise.

  Degenerate settings (kept from upstream Optax, logged at INFO level):
  ``transition_steps <= 0`` or ``decay_rate == 0`` gives the constant schedule
  ``init_value``, and a negative ``transition_begin`` is replaced by ``0``.

  Args:
    init_value: the value up to step ``transition_begin``.
    transition_steps: the number of steps over which the value is multiplied
      by ``decay_rate``.
    decay_rate: the factor applied every ``transition_steps`` steps; must be
      non-negative. A rate above 1 makes the value grow.
    transition_begin: the number of steps during which the value stays at
      ``init_value``.
    staircase: whether to decay in discrete jumps every ``transition_steps``
      steps instead of continuously.
    end_value: an optional bound the value never crosses.

  Returns:
    A schedule (a function of the step).

  Raises:
    ValueError: if ``decay_rate`` is negative (a negative number raised to a
      fractional power is NaN).

  Examples:
    >>> import optax
    >>> schedule = optax.exponential_decay(
    ...     init_value=1.0, transition_steps=2, decay_rate=0.5,
    ...     staircase=True, end_value=0.3)
    >>> [round(float(schedule(t)), 4) for t in range(6)]
    [1.0, 1.0, 0.5, 0.5, 0.3, 0.3]
  """
  if hyperparameters.is_number(decay_rate) and decay_rate < 0:
    raise ValueError(
        f'exponential_decay: decay_rate must be non-negative, got '
        f'{decay_rate}; a negative rate raised to a fractional power is NaN.')
  if hyperparameters.is_number(transition_steps) and transition_steps <= 0:
    logging.info(
        'exponential_decay: transition_steps=%s is not positive, so the '
        'schedule is the constant init_value=%s.', transition_steps,
        init_value)
    return constant_schedule(init_value)
  if hyperparameters.is_number(decay_rate) and decay_rate == 0:
    logging.info(
        'exponential_decay: decay_rate is 0, so the schedule is the constant '
        'init_value=%s.', init_value)
    return constant_schedule(init_value)
  if hyperparameters.is_number(transition_begin) and transition_begin < 0:
    logging.info(
        'exponential_decay: transition_begin=%s is negative and is replaced '
        'by 0.', transition_begin)
    transition_begin = 0
  # Bound in every case: a closure cell left empty breaks libraries that
  # turn a schedule's closure into a pytree (optimistix.OptaxMinimiser).
  clip_fn = None
  if end_value is not None:
    clip_fn = jnp.maximum if decay_rate < 1.0 else jnp.minimum

  def schedule(count: base.Numeric) -> base.Numeric:
    elapsed = count - transition_begin
    exponent = elapsed / transition_steps
    if staircase:
      exponent = jnp.floor(exponent)
    value = jnp.where(
        elapsed <= 0, init_value,
        init_value * jnp.power(decay_rate, exponent))
    if clip_fn is not None:
      value = clip_fn(value, end_value)
    return value

  return schedule


def cosine_decay_schedule(
    init_value: float,
    decay_steps: int,
    alpha: float = 0.0,
    exponent: float = 1.0,
) -> base.Schedule:
  r"""A cosine decay from ``init_value`` to ``alpha * init_value``.

  With :math:`T` = ``decay_steps``, :math:`\alpha` = ``alpha``, :math:`p` =
  ``exponent`` and :math:`\tau = \min(t, T)`:

  .. math::

    f(t) = v_{\text{init}} \left((1 - \alpha)
      \left(\tfrac{1}{2}\left(1 + \cos\frac{\pi \tau}{T}\right)\right)^{p}
      + \alpha\right).

  The value stays at ``alpha * init_value`` after ``decay_steps`` steps.

  Args:
    init_value: the value at step 0.
    decay_steps: the number of steps of the decay; must be positive.
    alpha: the final value as a fraction of ``init_value``.
    exponent: the power :math:`p` applied to the cosine factor; must be
      non-negative.

  Returns:
    A schedule (a function of the step).

  Raises:
    ValueError: if ``decay_steps`` is not positive or ``exponent`` is
      negative.

  Examples:
    >>> import optax
    >>> schedule = optax.cosine_decay_schedule(1.0, decay_steps=4, alpha=0.2)
    >>> [round(float(schedule(t)), 4) for t in range(6)]
    [1.0, 0.8828, 0.6, 0.3172, 0.2, 0.2]

  References:
    Loshchilov and Hutter, `SGDR: Stochastic Gradient Descent with Warm
    Restarts <https://arxiv.org/abs/1608.03983>`_, 2017.
  """
  if hyperparameters.is_number(decay_steps) and decay_steps <= 0:
    raise ValueError(
        f'cosine_decay_schedule: decay_steps must be positive, got '
        f'{decay_steps}.')
  if hyperparameters.is_number(exponent) and exponent < 0:
    raise ValueError(
        f'cosine_decay_schedule: exponent must be non-negative, got '
        f'{exponent}; a negative exponent diverges at the end of the decay.')

  # Python ints are taken as floats: a number of steps beyond the int32
  # range (e.g. 1e10) would otherwise overflow when turned into an array.
  steps = (float(decay_steps)
           if hyperparameters.is_number(decay_steps, integral=True)
           else decay_steps)

  def schedule(count: base.Numeric) -> base.Numeric:
    if hyperparameters.is_number(count, integral=True):
      count = float(count)
    count = jnp.minimum(count, steps)
    cosine = 0.5 * (1 + jnp.cos(jnp.pi * count / steps))
    decayed = (1 - alpha) * cosine ** exponent + alpha
    return init_value * decayed

  return schedule


def _linear_interpolate(start, end, pct):
  """Linear interpolation, ``pct`` in [0, 1]."""
  return pct * (end - start) + start


def _cosine_interpolate(start, end, pct):
  """Half-cosine interpolation, ``pct`` in [0, 1]."""
  return end + (start - end) / 2.0 * (jnp.cos(jnp.pi * pct) + 1)


def piecewise_interpolate_schedule(
    interpolate_type: str,
    init_value: float,
    boundaries_and_scales: Optional[dict[int, float]] = None,
) -> base.Schedule:
  r"""A schedule interpolating between values set at given steps.

  For boundaries :math:`b_1 < \dots < b_n` with scales :math:`s_i`, the value
  at :math:`b_i` is :math:`v_i = v_{\text{init}} \prod_{j \le i} s_j`, with
  :math:`b_0 = 0` and :math:`v_0 = v_{\text{init}}`. Between two boundaries
  the value moves from :math:`v_{i-1}` to :math:`v_i` along a line
  (``'linear'``) or a half cosine (``'cosine'``); after :math:`b_n` it stays
  at :math:`v_n`.

  Steps before 0 (and before the first boundary when it is negative) get
  ``init_value``. Upstream Optax returns 0 there; such steps do not occur in
  training and only appear inside :func:`join_schedules`, where they are
  masked out.

  Args:
    interpolate_type: ``'linear'`` or ``'cosine'``.
    init_value: the value at step 0.
    boundaries_and_scales: a mapping from steps to non-negative factors; the
      value reached at each step is the previous one times its factor. ``None``
      or an empty mapping gives the constant ``init_value``.

  Returns:
    A schedule (a function of the step) whose values are arrays of the
    default floating dtype.

  Raises:
    ValueError: if ``interpolate_type`` is not ``'linear'`` or ``'cosine'``,
      or a scale is negative.

  Examples:
    >>> import optax
    >>> schedule = optax.piecewise_interpolate_schedule(
    ...     'linear', 1.0, boundaries_and_scales={2: 3.0, 4: 0.5})
    >>> [float(schedule(t)) for t in range(6)]
    [1.0, 2.0, 3.0, 2.25, 1.5, 1.5]
  """
  if interpolate_type == 'linear':
    interpolate = _linear_interpolate
  elif interpolate_type == 'cosine':
    interpolate = _cosine_interpolate
  else:
    raise ValueError(
        "piecewise_interpolate_schedule: interpolate_type must be 'linear' or "
        f"'cosine', got {interpolate_type!r}.")
  boundaries, scales = _sorted_boundaries_and_scales(
      'piecewise_interpolate_schedule', boundaries_and_scales)
  return _interpolate_knots(interpolate, init_value, boundaries, scales)


def _interpolate_knots(
    interpolate: Callable[..., Any], init_value: Any,
    boundaries: tuple[Any, ...], scales: tuple[Any, ...],
) -> base.Schedule:
  """The schedule through the knots ``(boundaries[i], level i + 1)``.

  ``boundaries`` is sorted and may repeat a step (a mapping cannot): the
  interval between two equal boundaries is empty, so the value jumps there
  to the level of the last of them, which the one-cycle schedules need when
  two of their phases end at the same step.
  """
  bounds = (0,) + boundaries

  def schedule(count: base.Numeric) -> base.Numeric:
    # The value reached at each bound, accumulated in the floating dtype.
    arrays = [v for v in (init_value,) + scales
              if not hyperparameters.is_number(v)]
    dtype = jnp.result_type(float, *arrays)
    levels = [jnp.asarray(init_value, dtype)]
    for scale in scales:
      levels.append(levels[-1] * jnp.asarray(scale, dtype))
    count = jnp.asarray(count)
    value = levels[0]
    for i in range(len(boundaries)):
      lo, hi = bounds[i], bounds[i + 1]
      if hi <= lo:
        continue  # An empty interval is never selected.
      pct = (count - lo) / (hi - lo)
      inside = (count >= lo) & (count < hi)
      value = jnp.where(
          inside, interpolate(levels[i], levels[i + 1], pct), value)
    return jnp.where(count >= bounds[-1], levels[-1], value)

  return schedule


def _check_onecycle(fn_name, transition_steps, pct_start, pct_final,
                    div_factor, final_div_factor):
  """Validates the Python-number arguments of the one-cycle schedules.

  Errors name the function both by its name and in words ("cosine onecycle
  schedule", as upstream spells it), so a search for either finds them.
  """
  label = fn_name.replace('_', ' ')

  def fail(detail):
    raise ValueError(f'{fn_name}: {detail} (invalid {label}).')

  if hyperparameters.is_number(transition_steps) and transition_steps <= 0:
    fail(f'transition_steps must be positive, got {transition_steps}')
  for name, value in (('pct_start', pct_start), ('pct_final', pct_final)):
    if hyperparameters.is_number(value) and not 0 <= value <= 1:
      fail(f'{name} must be in [0, 1] (a fraction of transition_steps), got'
           f' {value}')
  if (hyperparameters.is_number(pct_start)
      and hyperparameters.is_number(pct_final) and pct_start > pct_final):
    fail(f'pct_start must not exceed pct_final, got pct_start={pct_start}'
         f' and pct_final={pct_final}')
  for name, value in (('div_factor', div_factor),
                      ('final_div_factor', final_div_factor)):
    if hyperparameters.is_number(value) and value <= 0:
      fail(f'{name} must be positive, got {value}')


def linear_onecycle_schedule(
    transition_steps: int,
    peak_value: float,
    pct_start: float = 0.3,
    pct_final: float = 0.85,
    div_factor: float = 25.0,
    final_div_factor: float = 1e4,
) -> base.Schedule:
  r"""The linear one-cycle schedule of Smith and Topin.

  With :math:`T` = ``transition_steps`` and :math:`v_0` = ``peak_value /
  div_factor``, the value goes linearly

  * from :math:`v_0` to ``peak_value`` over the first
    :math:`\lfloor \text{pct\_start} \cdot T \rfloor` steps,
  * back to :math:`v_0` at step :math:`\lfloor \text{pct\_final} \cdot T
    \rfloor`,
  * down to :math:`v_0 / \text{final\_div\_factor}` at step :math:`T`,

  and stays there afterwards. It is :func:`piecewise_interpolate_schedule`
  with these boundaries. A phase of zero steps (``pct_start == pct_final``,
  or ``pct_final == 1``) is a jump at its step to the value it ends at, so
  the value still reaches ``peak_value`` and ends at
  :math:`v_0 / \text{final\_div\_factor}`.

  Args:
    transition_steps: the length :math:`T` of the cycle; must be positive.
    peak_value: the largest value.
    pct_start: the fraction of the cycle spent increasing, in [0, 1].
    pct_final: the fraction of the cycle after which the final annealing
      starts, in [pct_start, 1].
    div_factor: the ratio of ``peak_value`` to the initial value; positive.
    final_div_factor: the ratio of the initial value to the final value;
      positive.

  Returns:
    A schedule (a function of the step).

  Raises:
    ValueError: if an argument is outside the range given above.

  Examples:
    >>> import optax
    >>> schedule = optax.linear_onecycle_schedule(
    ...     10, peak_value=1.0, pct_start=0.2, pct_final=0.6, div_factor=4.0,
    ...     final_div_factor=5.0)
    >>> [round(float(schedule(t)), 4) for t in (0, 1, 2, 4, 6, 8, 10)]
    [0.25, 0.625, 1.0, 0.625, 0.25, 0.15, 0.05]

  References:
    Smith and Topin, `Super-Convergence: Very Fast Training of Neural Networks
    Using Large Learning Rates <https://arxiv.org/abs/1708.07120>`_, 2017.
  """
  _check_onecycle('linear_onecycle_schedule', transition_steps, pct_start,
                  pct_final, div_factor, final_div_factor)
  # A tuple, not a mapping: phases that end at the same step (pct_start ==
  # pct_final, pct_final == 1) each keep their scale.
  return _interpolate_knots(
      _linear_interpolate, peak_value / div_factor,
      (int(pct_start * transition_steps), int(pct_final * transition_steps),
       transition_steps),
      (div_factor, 1.0 / div_factor, 1.0 / final_div_factor))


def cosine_onecycle_schedule(
    transition_steps: int,
    peak_value: float,
    pct_start: float = 0.3,
    div_factor: float = 25.0,
    final_div_factor: float = 1e4,
) -> base.Schedule:
  r"""Smith and Topin's one-cycle schedule, in two half-cosine phases.

  The value starts at :math:`v_0` = ``peak_value / div_factor`` and, over
  the cycle of :math:`T` = ``transition_steps`` steps, follows a half cosine

  * from :math:`v_0` up to ``peak_value`` over the first
    :math:`\lfloor \text{pct\_start} \cdot T \rfloor` steps,
  * then down to :math:`v_0 / \text{final\_div\_factor}` at step :math:`T`,

  and stays there afterwards. It is :func:`piecewise_interpolate_schedule`
  with these boundaries. With ``pct_start == 1`` the value rises to
  ``peak_value`` until step :math:`T` and is
  :math:`v_0 / \text{final\_div\_factor}` from step :math:`T` on.

  Args:
    transition_steps: the number of steps :math:`T` the cycle lasts
      (positive).
    peak_value: the value at the top of the cycle.
    pct_start: the share of the cycle, in [0, 1], during which the value
      rises.
    div_factor: ``peak_value`` divided by the starting value (positive).
    final_div_factor: the starting value divided by the final one
      (positive).

  Returns:
    The schedule, a function of the step count.

  Raises:
    ValueError: for an argument out of its range.

  Examples:
    >>> import optax
    >>> import jax.numpy as jnp
    >>> schedule = optax.cosine_onecycle_schedule(
    ...     10, peak_value=1.0, pct_start=0.2, div_factor=4.0,
    ...     final_div_factor=5.0)
    >>> steps = jnp.array([0, 1, 2, 6, 10])  # Steps as one array.
    >>> schedule(steps).round(4)
    Array([0.25 , 0.625, 1.   , 0.525, 0.05 ], dtype=float32)

  References:
    Smith and Topin, `Super-Convergence: Very Fast Training of Neural Networks
    Using Large Learning Rates <https://arxiv.org/abs/1708.07120>`_, 2017.
  """
  _check_onecycle('cosine_onecycle_schedule', transition_steps, pct_start,
                  pct_start, div_factor, final_div_factor)
  # A tuple, not a mapping: with pct_start == 1 both phases end at step T
  # and each keeps its scale.
  return _interpolate_knots(
      _cosine_interpolate, peak_value / div_factor,
      (int(pct_start * transition_steps), int(transition_steps)),
      (div_factor, 1.0 / (div_factor * final_div_factor)))


@arguments.declare(warmup_steps=arguments.non_negative)
def warmup_constant_schedule(
    init_value: float,
    peak_value: float,
    warmup_steps: int,
) -> base.Schedule:
  r"""A linear warmup from ``init_value`` to ``peak_value``, then constant.

  .. math::

    f(t) = v_{\text{init}} + (v_{\text{peak}} - v_{\text{init}})
      \min(t / T_w, 1).

  With ``warmup_steps=0`` the schedule is the constant ``peak_value`` (there
  is no warmup). Upstream Optax returns the constant ``init_value`` in that
  case, which never reaches the requested value.

  Args:
    init_value: the value at step 0.
    peak_value: the value reached after ``warmup_steps`` steps and kept after.
    warmup_steps: the length :math:`T_w` of the warmup; non-negative.

  Returns:
    A schedule (a function of the step).

  Raises:
    ValueError: if ``warmup_steps`` is negative.

  Examples:
    >>> import optax
    >>> schedule = optax.warmup_constant_schedule(0.0, 1.0, warmup_steps=4)
    >>> [float(schedule(t)) for t in range(6)]
    [0.0, 0.25, 0.5, 0.75, 1.0, 1.0]
  """
  if hyperparameters.is_number(warmup_steps) and warmup_steps == 0:
    return constant_schedule(peak_value)
  return linear_schedule(
      init_value=init_value,
      end_value=peak_value,
      transition_steps=warmup_steps,
  )


@arguments.declare(warmup_steps=arguments.non_negative)
def warmup_cosine_decay_schedule(
    init_value: float,
    peak_value: float,
    warmup_steps: int,
    decay_steps: int,
    end_value: float = 0.0,
    exponent: float = 1.0,
) -> base.Schedule:
  r"""A linear warmup followed by a cosine decay.

  The value rises linearly from ``init_value`` to ``peak_value`` over
  ``warmup_steps`` steps, then follows :func:`cosine_decay_schedule` from
  ``peak_value`` to ``end_value`` over the remaining ``decay_steps -
  warmup_steps`` steps (``decay_steps`` counts the warmup), and stays at
  ``end_value`` afterwards. With :math:`\tau = \min(t - T_w, T - T_w)` for
  :math:`t \ge T_w`:

  .. math::

    f(t) = v_{\text{peak}} \left(\left(1 - \frac{v_\text{end}}{v_\text{peak}}
      \right) \left(\tfrac{1}{2}\left(1 + \cos\frac{\pi \tau}{T - T_w}
      \right)\right)^{p} + \frac{v_\text{end}}{v_\text{peak}}\right).

  When ``peak_value`` is 0 the ratio
  :math:`v_\text{end} / v_\text{peak}` does not exist and the equivalent form
  :math:`f(t) = (v_\text{peak} - v_\text{end}) c^p + v_\text{end}`, with
  :math:`c` the cosine factor above, is used: the value rises from 0 to
  ``end_value``, which it reaches after ``decay_steps`` steps.

  Args:
    init_value: the value at step 0.
    peak_value: the value at the end of the warmup.
    warmup_steps: the length :math:`T_w` of the warmup; non-negative.
    decay_steps: the total length :math:`T` of warmup plus decay; must be
      larger than ``warmup_steps``.
    end_value: the value at the end of the decay and after it.
    exponent: the power :math:`p` of the cosine factor; non-negative.

  Returns:
    A schedule (a function of the step).

  Raises:
    ValueError: if ``warmup_steps`` is negative, ``decay_steps`` is not larger
      than ``warmup_steps`` or ``exponent`` is negative.

  Examples:
    >>> import optax
    >>> schedule = optax.warmup_cosine_decay_schedule(
    ...     init_value=0.0, peak_value=1.0, warmup_steps=2, decay_steps=6,
    ...     end_value=0.1)
    >>> [round(float(schedule(t)), 4) for t in range(8)]
    [0.0, 0.5, 1.0, 0.8682, 0.55, 0.2318, 0.1, 0.1]

  References:
    Loshchilov and Hutter, `SGDR: Stochastic Gradient Descent with Warm
    Restarts <https://arxiv.org/abs/1608.03983>`_, 2017.
  """
  if (hyperparameters.is_number(warmup_steps)
      and hyperparameters.is_number(decay_steps)
      and decay_steps <= warmup_steps):
    raise ValueError(
        'warmup_cosine_decay_schedule: decay_steps must be larger than '
        f'warmup_steps (it counts the warmup steps too), got decay_steps='
        f'{decay_steps} and warmup_steps={warmup_steps}.')
  # Without the ratio end_value / peak_value: f(t) = (v_peak - v_end) c^p +
  # v_end with v_peak = 0 is v_end (1 - c^p), which rises from 0 to end_value.
  falling = cosine_decay_schedule(
      init_value=end_value,
      decay_steps=decay_steps - warmup_steps,
      alpha=0.0,
      exponent=exponent,
  )

  def from_zero_peak(count):
    return end_value - falling(count)

  if hyperparameters.is_number(peak_value) and peak_value == 0:
    decay = from_zero_peak
  else:
    with_ratio = cosine_decay_schedule(
        init_value=peak_value,
        decay_steps=decay_steps - warmup_steps,
        alpha=end_value / peak_value,
        exponent=exponent,
    )
    if hyperparameters.is_number(peak_value):
      decay = with_ratio
    else:
      # An array peak_value may be 0 only at run time: the ratio form is
      # taken wherever it exists, so other peaks keep its bits.
      def decay(count):
        return jnp.where(jnp.asarray(peak_value) == 0, from_zero_peak(count),
                         with_ratio(count))

  return _join.join_schedules(
      [
          linear_schedule(
              init_value=init_value,
              end_value=peak_value,
              transition_steps=warmup_steps,
          ),
          decay,
      ],
      [warmup_steps],
  )


@arguments.declare(warmup_steps=arguments.non_negative)
def warmup_exponential_decay_schedule(
    init_value: float,
    peak_value: float,
    warmup_steps: int,
    transition_steps: int,
    decay_rate: float,
    transition_begin: int = 0,
    staircase: bool = False,
    end_value: Optional[float] = None,
) -> base.Schedule:
  r"""A linear warmup followed by an exponential decay.

  The value rises linearly from ``init_value`` to ``peak_value`` over
  ``warmup_steps`` steps; from then on it is :func:`exponential_decay` started
  at ``peak_value`` and evaluated on the steps elapsed since the warmup:

  .. math::

    f(t) = v_{\text{peak}} \, r^{(t - T_w - t_0) / T} \quad
      \text{for } t > T_w + t_0.

  Args:
    init_value: the value at step 0.
    peak_value: the value at the end of the warmup.
    warmup_steps: the length :math:`T_w` of the warmup; non-negative.
    transition_steps: as in :func:`exponential_decay`.
    decay_rate: as in :func:`exponential_decay`.
    transition_begin: steps after the warmup during which the value stays at
      ``peak_value``.
    staircase: as in :func:`exponential_decay`.
    end_value: as in :func:`exponential_decay`.

  Returns:
    A schedule (a function of the step).

  Raises:
    ValueError: if ``warmup_steps`` or ``decay_rate`` is negative.

  Examples:
    >>> import optax
    >>> schedule = optax.warmup_exponential_decay_schedule(
    ...     init_value=0.0, peak_value=1.0, warmup_steps=2,
    ...     transition_steps=1, decay_rate=0.5)
    >>> [float(schedule(t)) for t in range(6)]
    [0.0, 0.5, 1.0, 0.5, 0.25, 0.125]
  """
  return _join.join_schedules(
      [
          linear_schedule(
              init_value=init_value,
              end_value=peak_value,
              transition_steps=warmup_steps,
          ),
          exponential_decay(
              init_value=peak_value,
              transition_steps=transition_steps,
              decay_rate=decay_rate,
              transition_begin=transition_begin,
              staircase=staircase,
              end_value=end_value,
          ),
      ],
      [warmup_steps],
  )


def sgdr_schedule(
    cosine_kwargs: Iterable[dict[str, base.Numeric]],
) -> base.Schedule:
  """Stochastic gradient descent with warm restarts (SGDR).

  Plays one :func:`warmup_cosine_decay_schedule` after the other; each cycle
  lasts its own ``decay_steps`` steps and starts again from its own step 0.

  Args:
    cosine_kwargs: one mapping per cycle with the keyword arguments of
      :func:`warmup_cosine_decay_schedule` (``init_value``, ``peak_value``,
      ``warmup_steps``, ``decay_steps`` and optionally ``end_value``,
      ``exponent``).

  Returns:
    A schedule (a function of the step).

  Raises:
    ValueError: if ``cosine_kwargs`` is empty or a cycle has no
      ``decay_steps``.

  Examples:
    >>> import optax
    >>> cycle = dict(init_value=0.0, peak_value=1.0, warmup_steps=1,
    ...              decay_steps=3)
    >>> schedule = optax.sgdr_schedule([cycle, cycle])
    >>> [round(float(schedule(t)), 4) for t in range(7)]
    [0.0, 1.0, 0.5, 0.0, 1.0, 0.5, 0.0]

  References:
    Loshchilov and Hutter, `SGDR: Stochastic Gradient Descent with Warm
    Restarts <https://arxiv.org/abs/1608.03983>`_, 2017.
  """
  cycles = list(cosine_kwargs)
  if not cycles:
    raise ValueError('sgdr_schedule: cosine_kwargs must hold at least one '
                     'cycle, got an empty sequence.')
  schedules = []
  boundaries = []
  end = 0
  for i, kwargs in enumerate(cycles):
    if 'decay_steps' not in kwargs:
      raise ValueError(
          f'sgdr_schedule: cycle {i} of cosine_kwargs has no decay_steps; '
          'each cycle needs the arguments of warmup_cosine_decay_schedule, '
          f'got keys {sorted(kwargs)}.')
    schedules.append(warmup_cosine_decay_schedule(**kwargs))
    end += kwargs['decay_steps']
    boundaries.append(end)
  return _join.join_schedules(schedules, boundaries[:-1])
