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
"""Tests of the schedules in `optax.schedules._schedule`.

Expected values come from plain NumPy / Python transcriptions of the
formulas, written below.
"""

import math

from absl.testing import absltest
from absl.testing import parameterized
import jax
import jax.numpy as jnp
import numpy as np

from optax.schedules import _schedule

STEPS = (0, 1, 2, 3, 5, 7, 9, 10, 11, 15, 20, 29, 30, 31, 50, 100, 1000)


# Reference formulas, one step at a time, in double precision.


def np_polynomial(init, end, power, transition_steps, begin, t):
  """Polynomial transition, clamped to [begin, begin + steps]."""
  elapsed = min(max(t - begin, 0), transition_steps)
  return (init - end) * (1 - elapsed / transition_steps) ** power + end


def np_exponential(init, transition_steps, rate, begin, staircase, end, t):
  """Exponential decay with optional staircase and end-value clip."""
  if t <= begin:
    value = init
  else:
    exponent = (t - begin) / transition_steps
    if staircase:
      exponent = math.floor(exponent)
    # The rate is a float32 number: large exponents amplify its rounding.
    value = init * float(np.float32(rate)) ** exponent
  if end is not None:
    value = max(value, end) if rate < 1 else min(value, end)
  return value


def np_cosine(init, decay_steps, alpha, exponent, t):
  """Cosine decay towards alpha * init."""
  t = min(t, decay_steps)
  factor = 0.5 * (1 + math.cos(math.pi * t / decay_steps))
  return init * ((1 - alpha) * factor ** exponent + alpha)


def np_piecewise_constant(init, boundaries_and_scales, t):
  """Product of the scales of the boundaries already passed."""
  value = init
  for boundary, scale in boundaries_and_scales.items():
    if t >= boundary:
      value *= scale
  return value


def np_piecewise_interpolate(kind, init, boundaries_and_scales, t):
  """Walks the sorted knots (0, v0), (b1, v1), ... and interpolates."""
  knots = [(0, init)]
  for boundary in sorted(boundaries_and_scales):
    knots.append((boundary, knots[-1][1] * boundaries_and_scales[boundary]))
  if t >= knots[-1][0]:
    return knots[-1][1]
  for (lo, v_lo), (hi, v_hi) in zip(knots[:-1], knots[1:]):
    if lo <= t < hi:
      frac = (t - lo) / (hi - lo)
      if kind == 'linear':
        return v_lo + frac * (v_hi - v_lo)
      return v_hi + (v_lo - v_hi) * 0.5 * (1 + math.cos(math.pi * frac))
  return init


def evaluate(schedule, steps, mode):
  """Evaluates a schedule on Python ints, int32 arrays or under jit."""
  if mode == 'python':
    return np.array([float(schedule(t)) for t in steps])
  if mode == 'int32':
    return np.array(
        [float(schedule(jnp.asarray(t, jnp.int32))) for t in steps])
  jitted = jax.jit(schedule)
  return np.array(
      [float(jitted(jnp.asarray(t, jnp.int32))) for t in steps])


MODES = (('python', 'python'), ('int32', 'int32'), ('jit', 'jit'))


class ConstantScheduleTest(parameterized.TestCase):
  """Tests of constant schedule."""

  def test_returns_value_unchanged(self):
    schedule = _schedule.constant_schedule(0.3)
    for t in (0, 5, 10**6):
      self.assertEqual(schedule(t), 0.3)
    self.assertEqual(float(jax.jit(schedule)(jnp.asarray(7))), np.float32(0.3))


class PolynomialScheduleTest(parameterized.TestCase):
  """Tests of polynomial schedule."""

  @parameterized.named_parameters(*MODES)
  def test_values(self, mode):
    for init, end, power, steps, begin in [
        (1.0, 0.0, 2, 10, 0), (0.5, 2.0, 0.5, 30, 5), (-1.0, 1.0, 3, 7, 2),
        (2.0, 0.1, 1.7, 20, 0)]:
      schedule = _schedule.polynomial_schedule(init, end, power, steps,
                                               begin)
      expected = [np_polynomial(init, end, power, steps, begin, t)
                  for t in STEPS]
      np.testing.assert_allclose(
          evaluate(schedule, STEPS, mode), expected, rtol=1e-6, atol=1e-7)

  def test_endpoints(self):
    schedule = _schedule.polynomial_schedule(1.0, 0.25, 2, 8, 3)
    self.assertEqual(float(schedule(0)), 1.0)
    self.assertEqual(float(schedule(3)), 1.0)
    self.assertEqual(float(schedule(11)), 0.25)
    self.assertEqual(float(schedule(10**6)), 0.25)

  def test_non_positive_transition_steps_is_constant_and_logged(self):
    for steps in (0, -3):
      with self.assertLogs('absl', level='INFO') as logs:
        schedule = _schedule.polynomial_schedule(0.7, 0.0, 1, steps)
      self.assertIn('transition_steps', logs.output[0])
      for t in (0, 1, 100):
        self.assertEqual(schedule(t), 0.7)

  def test_negative_transition_begin_falls_back_to_zero(self):
    with self.assertLogs('absl', level='INFO') as logs:
      schedule = _schedule.polynomial_schedule(1.0, 0.0, 2, 4, -2)
    self.assertIn('transition_begin', logs.output[0])
    expected = [np_polynomial(1.0, 0.0, 2, 4, 0, t) for t in range(7)]
    np.testing.assert_allclose(
        evaluate(schedule, range(7), 'python'), expected, rtol=1e-6)

  @parameterized.parameters(3, 7, 13, 333, 1000)
  def test_fractional_power_under_jit_ends_at_end_value(self, steps):
    # Under jit the division by transition_steps may become a product by
    # its reciprocal, and steps * (1 / steps) rounds above 1 for these
    # step counts: a remaining fraction clipped before the division went
    # slightly negative and 0.5 ** that was NaN.
    schedule = _schedule.polynomial_schedule(1.0, 0.1, 0.5, steps, 5)
    counts = jnp.arange(steps + 20, dtype=jnp.int32)
    values = np.asarray(jax.jit(jax.vmap(schedule))(counts))
    expected = 0.9 * np.sqrt(
        1.0 - np.clip((np.arange(steps + 20) - 5) / steps, 0.0, 1.0)) + 0.1
    np.testing.assert_allclose(values, expected, rtol=1e-5)
    np.testing.assert_array_equal(values[steps + 5:], np.float32(0.1))

  def test_negative_power_raises(self):
    with self.assertRaisesRegex(ValueError, 'polynomial_schedule: power'):
      _schedule.polynomial_schedule(1.0, 0.0, -1.0, 10)


class LinearScheduleTest(parameterized.TestCase):
  """Tests of linear schedule."""

  @parameterized.named_parameters(*MODES)
  def test_values(self, mode):
    for init, end, steps, begin in [(1.0, 0.0, 10, 0), (0.1, 0.9, 30, 7),
                                    (1, 0, 10, 0)]:
      schedule = _schedule.linear_schedule(init, end, steps, begin)
      expected = [np_polynomial(init, end, 1, steps, begin, t)
                  for t in STEPS]
      np.testing.assert_allclose(
          evaluate(schedule, STEPS, mode), expected, rtol=1e-6, atol=1e-7)

  def test_float_steps(self):
    schedule = _schedule.linear_schedule(1.0, 0.0, 10)
    self.assertAlmostEqual(float(schedule(2.5)), 0.75, places=6)
    self.assertAlmostEqual(float(schedule(jnp.float32(2.5))), 0.75, places=6)


class ExponentialDecayTest(parameterized.TestCase):
  """Tests of exponential decay."""

  @parameterized.named_parameters(*MODES)
  def test_values(self, mode):
    for args in [
        (1.0, 10, 0.5, 0, False, None),
        (2.0, 3, 0.9, 4, True, None),
        (1.0, 5, 0.5, 0, False, 0.3),   # Decay, clipped from below.
        (0.1, 2, 2.0, 1, False, 1.0),   # Growth, clipped from above.
        (1.0, 4, 1.5, 0, True, None),
    ]:
      schedule = _schedule.exponential_decay(*args)
      # Rounded to float32, where a long growth overflows to inf.
      with np.errstate(over='ignore'):
        expected = np.float32([np_exponential(*args, t) for t in STEPS])
      np.testing.assert_allclose(
          evaluate(schedule, STEPS, mode), expected, rtol=1e-6, atol=1e-30)

  def test_staircase_is_flat_between_transitions(self):
    schedule = _schedule.exponential_decay(1.0, 4, 0.5, staircase=True)
    values = evaluate(schedule, range(12), 'python')
    np.testing.assert_array_equal(
        values, [1.0] * 4 + [0.5] * 4 + [0.25] * 4)

  def test_degenerate_settings_are_constant_and_logged(self):
    for kwargs in (dict(transition_steps=0, decay_rate=0.5),
                   dict(transition_steps=-1, decay_rate=0.5),
                   dict(transition_steps=5, decay_rate=0.0)):
      with self.assertLogs('absl', level='INFO'):
        schedule = _schedule.exponential_decay(init_value=0.4, **kwargs)
      for t in (0, 3, 100):
        self.assertEqual(schedule(t), 0.4)

  def test_negative_transition_begin_falls_back_to_zero(self):
    with self.assertLogs('absl', level='INFO'):
      schedule = _schedule.exponential_decay(1.0, 3, 0.5, transition_begin=-2)
    expected = [np_exponential(1.0, 3, 0.5, 0, False, None, t)
                for t in range(8)]
    np.testing.assert_allclose(
        evaluate(schedule, range(8), 'python'), expected, rtol=1e-6)

  def test_negative_decay_rate_raises(self):
    with self.assertRaisesRegex(ValueError,
                                'exponential_decay: decay_rate must be'):
      _schedule.exponential_decay(1.0, 3, -0.5)


class CosineDecayScheduleTest(parameterized.TestCase):
  """Tests of cosine decay schedule."""

  @parameterized.named_parameters(*MODES)
  def test_values(self, mode):
    for args in [(1.0, 10, 0.0, 1.0), (0.5, 30, 0.1, 1.0),
                 (2.0, 7, 0.2, 2.0), (1.0, 20, 0.0, 0.5)]:
      schedule = _schedule.cosine_decay_schedule(*args)
      expected = [np_cosine(*args, t) for t in STEPS]
      np.testing.assert_allclose(
          evaluate(schedule, STEPS, mode), expected, rtol=1e-6, atol=1e-7)

  def test_end_value(self):
    schedule = _schedule.cosine_decay_schedule(2.0, 10, alpha=0.25)
    np.testing.assert_allclose(float(schedule(10)), 0.5, rtol=1e-6)
    np.testing.assert_allclose(float(schedule(10**5)), 0.5, rtol=1e-6)

  @parameterized.parameters(True, False)
  def test_decay_steps_beyond_int32(self, jit):
    # decay_steps=1e10 does not fit in int32; the Python int is used as a
    # float (as upstream 0.2.8), so neither it nor a large Python-int step
    # overflows.
    schedule = _schedule.cosine_decay_schedule(1000.0, decay_steps=10**10)
    maybe_jit = jax.jit(schedule) if jit else schedule
    expected = 1000.0 * 0.5 * (1 + np.cos(np.pi * 0.1))
    np.testing.assert_allclose(maybe_jit(10**9), expected, rtol=1e-6)
    np.testing.assert_allclose(
        maybe_jit(jnp.asarray(10**9, jnp.int32)), expected, rtol=1e-6)
    # (jit itself cannot take a Python int beyond int32 as an argument.)
    np.testing.assert_allclose(schedule(3 * 10**10), 0.0, atol=1e-6)

  @parameterized.parameters(0, -5)
  def test_non_positive_decay_steps_raises(self, decay_steps):
    with self.assertRaisesRegex(
        ValueError, 'cosine_decay_schedule: decay_steps must be positive'):
      _schedule.cosine_decay_schedule(1.0, decay_steps)

  def test_negative_exponent_raises(self):
    with self.assertRaisesRegex(ValueError,
                                'cosine_decay_schedule: exponent'):
      _schedule.cosine_decay_schedule(1.0, 10, exponent=-1.0)


class PiecewiseConstantScheduleTest(parameterized.TestCase):
  """Tests of piecewise constant schedule."""

  @parameterized.named_parameters(*MODES)
  def test_values(self, mode):
    for init, bands in [(0.1, {5: 0.3, 2: 0.7, 9: 1.3}),
                        (1.0, {10: 0.5, 30: 0.5}),
                        (2.0, {-1: 0.5, 3: 0.0})]:
      schedule = _schedule.piecewise_constant_schedule(init, bands)
      expected = [np_piecewise_constant(init, bands, t) for t in STEPS]
      np.testing.assert_allclose(
          evaluate(schedule, STEPS, mode), expected, rtol=1e-6)

  def test_boundary_step_sees_new_value(self):
    schedule = _schedule.piecewise_constant_schedule(1.0, {3: 0.5})
    self.assertEqual(float(schedule(2)), 1.0)
    self.assertEqual(float(schedule(3)), 0.5)

  def test_no_boundaries_is_constant(self):
    for bands in (None, {}):
      schedule = _schedule.piecewise_constant_schedule(0.2, bands)
      self.assertEqual(schedule(0), 0.2)
      self.assertEqual(schedule(100), 0.2)

  def test_negative_scale_raises(self):
    with self.assertRaisesRegex(
        ValueError, 'piecewise_constant_schedule: the scales'):
      _schedule.piecewise_constant_schedule(1.0, {2: -0.5})


class PiecewiseInterpolateScheduleTest(parameterized.TestCase):
  """Tests of piecewise interpolate schedule."""

  @parameterized.product(kind=('linear', 'cosine'),
                         mode=('python', 'int32', 'jit'))
  def test_values(self, kind, mode):
    for init, bands in [(1.0, {2: 3.0, 4: 0.5}),
                        (0.5, {10: 2.0, 3: 0.5, 30: 0.1}),
                        (1.0, {0: 2.0, 4: 0.5})]:
      schedule = _schedule.piecewise_interpolate_schedule(kind, init, bands)
      expected = [np_piecewise_interpolate(kind, init, bands, t)
                  for t in STEPS]
      np.testing.assert_allclose(
          evaluate(schedule, STEPS, mode), expected, rtol=1e-6, atol=1e-7)

  def test_linear_matches_np_interp(self):
    schedule = _schedule.piecewise_interpolate_schedule(
        'linear', 2.0, {4: 0.5, 10: 3.0})
    steps = np.arange(15)
    expected = np.interp(steps, [0, 4, 10], [2.0, 1.0, 3.0])
    np.testing.assert_allclose(evaluate(schedule, steps, 'jit'), expected,
                               rtol=1e-6)

  def test_empty_is_constant_array(self):
    for bands in (None, {}):
      schedule = _schedule.piecewise_interpolate_schedule('cosine', 0.3, bands)
      value = schedule(5)
      self.assertEqual(value.dtype, jnp.float32)
      np.testing.assert_allclose(value, 0.3, rtol=1e-7)

  def test_negative_steps_give_init_value(self):
    schedule = _schedule.piecewise_interpolate_schedule(
        'linear', 0.3, {5: 2.0})
    np.testing.assert_allclose(float(schedule(-2)), 0.3, rtol=1e-7)

  def test_bad_interpolate_type_raises(self):
    with self.assertRaisesRegex(ValueError, "'linear' or 'cosine'"):
      _schedule.piecewise_interpolate_schedule('quadratic', 1.0, {2: 1.0})

  def test_negative_scale_raises(self):
    with self.assertRaisesRegex(
        ValueError, 'piecewise_interpolate_schedule: the scales'):
      _schedule.piecewise_interpolate_schedule('linear', 1.0, {2: -1.0})


class OneCycleTest(parameterized.TestCase):
  """Tests of one cycle."""

  @parameterized.named_parameters(*MODES)
  def test_linear_onecycle(self, mode):
    steps, peak, pct_start, pct_final, div, final_div = (
        100, 0.1, 0.3, 0.85, 25.0, 1e4)
    schedule = _schedule.linear_onecycle_schedule(
        steps, peak, pct_start, pct_final, div, final_div)
    knots_t = [0, 30, 85, 100]
    knots_v = [peak / div, peak, peak / div, peak / div / final_div]
    ts = np.array([0, 1, 15, 29, 30, 31, 50, 84, 85, 86, 99, 100, 101, 500])
    np.testing.assert_allclose(evaluate(schedule, ts, mode),
                               np.interp(ts, knots_t, knots_v), rtol=1e-5)

  @parameterized.named_parameters(*MODES)
  def test_cosine_onecycle(self, mode):
    steps, peak, pct_start, div, final_div = 50, 2.0, 0.2, 10.0, 100.0
    schedule = _schedule.cosine_onecycle_schedule(
        steps, peak, pct_start, div, final_div)
    low, end = peak / div, peak / div / final_div

    def expected(t):
      if t < 10:
        return peak + (low - peak) * 0.5 * (1 + math.cos(math.pi * t / 10))
      if t < 50:
        frac = (t - 10) / 40
        return end + (peak - end) * 0.5 * (1 + math.cos(math.pi * frac))
      return end

    ts = [0, 1, 5, 9, 10, 11, 30, 49, 50, 51, 500]
    np.testing.assert_allclose(evaluate(schedule, ts, mode),
                               [expected(t) for t in ts], rtol=1e-5)

  def test_short_cycle_has_no_nan(self):
    # int(0.3 * 3) == 0: the first interval is empty.
    schedule = _schedule.linear_onecycle_schedule(3, 1.0)
    values = evaluate(schedule, range(5), 'jit')
    self.assertTrue(np.all(np.isfinite(values)))
    np.testing.assert_allclose(values[0], 1.0, rtol=1e-6)

  @parameterized.parameters(
      ('linear_onecycle_schedule', dict(transition_steps=0),
       'transition_steps must be positive'),
      ('cosine_onecycle_schedule', dict(transition_steps=-4),
       'transition_steps must be positive'),
      ('linear_onecycle_schedule', dict(pct_start=1.5), 'pct_start'),
      ('linear_onecycle_schedule', dict(pct_start=0.9, pct_final=0.5),
       'pct_start must not exceed pct_final'),
      ('cosine_onecycle_schedule', dict(div_factor=0.0), 'div_factor'),
      ('linear_onecycle_schedule', dict(final_div_factor=-1.0),
       'final_div_factor'),
  )
  def test_invalid_arguments_raise(self, name, override, message):
    kwargs = dict(transition_steps=10, peak_value=1.0)
    kwargs.update(override)
    with self.assertRaisesRegex(ValueError, f'{name}: .*{message}'):
      getattr(_schedule, name)(**kwargs)


  @parameterized.parameters(
      ('cosine_onecycle_schedule', 'cosine onecycle schedule'),
      ('linear_onecycle_schedule', 'linear onecycle schedule'),
  )
  def test_errors_name_the_schedule_in_words(self, name, words):
    fn = getattr(_schedule, name)
    for bad in (dict(transition_steps=0), dict(pct_start=-0.5),
                dict(div_factor=-2.0)):
      kwargs = dict(transition_steps=10, peak_value=1.0)
      kwargs.update(bad)
      with self.assertRaises(ValueError) as ctx:
        fn(**kwargs)
      message = str(ctx.exception)
      self.assertTrue(message.startswith(f'{name}: '), message)
      self.assertIn(words, message)
      self.assertIn(next(iter(bad)), message)


class WarmupSchedulesTest(parameterized.TestCase):
  """Tests of warmup schedules."""

  @parameterized.product(
      name=('warmup_constant_schedule', 'warmup_cosine_decay_schedule',
            'warmup_exponential_decay_schedule'),
      warmup_steps=(-1, math.nan))
  def test_negative_or_nan_warmup_steps_raise(self, name, warmup_steps):
    kwargs = {'init_value': 0.0, 'peak_value': 1.0,
              'warmup_steps': warmup_steps}
    if name == 'warmup_cosine_decay_schedule':
      kwargs['decay_steps'] = 10
    elif name == 'warmup_exponential_decay_schedule':
      kwargs.update(transition_steps=5, decay_rate=0.5)
    with self.assertRaisesRegex(
        ValueError, f'^{name}: warmup_steps must be non-negative, got'):
      getattr(_schedule, name)(**kwargs)

  @parameterized.named_parameters(*MODES)
  def test_warmup_cosine_decay(self, mode):
    init, peak, warmup, decay, end, exponent = 0.1, 1.0, 5, 25, 0.05, 1.5

    def expected(t):
      if t < warmup:
        return init + (peak - init) * t / warmup
      return np_cosine(peak, decay - warmup, end / peak, exponent,
                       t - warmup)

    schedule = _schedule.warmup_cosine_decay_schedule(
        init, peak, warmup, decay, end, exponent)
    np.testing.assert_allclose(evaluate(schedule, STEPS, mode),
                               [expected(t) for t in STEPS], rtol=1e-6)
    np.testing.assert_allclose(float(schedule(warmup)), peak, rtol=1e-7)
    np.testing.assert_allclose(float(schedule(decay)), end, rtol=1e-6)

  @parameterized.named_parameters(*MODES)
  def test_warmup_cosine_decay_zero_peak_ends_at_end_value_pull_884(
      self, mode):
    # peak 0, end 0.5, warmup 2, decay 10: the warmup stays at 0, then
    # f = (peak - end) c + end = 0.5 (1 - c) with c = (1 + cos(pi tau / 8)) / 2
    # rises to 0.5: tau = 2 gives 0.5 (1 - cos(pi / 4)) / 2 = 0.0732233,
    # tau = 4 gives 0.25, tau = 6 gives 0.5 (1 + cos(pi / 4)) / 2 = 0.4267767,
    # and t >= 10 gives 0.5 (upstream: 0 at every step).
    schedule = _schedule.warmup_cosine_decay_schedule(0.0, 0.0, 2, 10, 0.5)
    steps = (0, 1, 2, 4, 6, 8, 10, 11, 100)
    quarter = 0.5 * (1 - math.sqrt(0.5)) / 2
    want = [0.0, 0.0, 0.0, quarter, 0.25, 0.5 - quarter, 0.5, 0.5, 0.5]
    np.testing.assert_allclose(evaluate(schedule, steps, mode), want,
                               rtol=1e-6, atol=1e-7)

  def test_warmup_cosine_decay_zero_peak_exponent_pull_884(self):
    # With exponent 2 the cosine factor is squared: tau = 4 gives
    # 0.5 (1 - 0.5 ** 2) = 0.375; warmup 0 starts at the peak, 0.
    schedule = _schedule.warmup_cosine_decay_schedule(
        0.0, 0.0, 0, 8, 0.5, exponent=2.0)
    np.testing.assert_allclose(
        evaluate(schedule, (0, 4, 8, 9), 'python'), [0.0, 0.375, 0.5, 0.5],
        rtol=1e-6, atol=1e-7)

  @parameterized.parameters(False, True)
  def test_warmup_cosine_decay_array_peak_pull_884(self, use_jit):
    # An array peak_value of 0 gives the values of the Python 0 above (0 at
    # tau = 0, 0.25 at tau = 4, 0.5 at the end); array peaks 1 and 0.3 give
    # the bits of the ratio form, a cosine decay from the peak with alpha =
    # end / peak, as upstream computes them.
    steps = jnp.asarray([2, 6, 10])
    for peak, want in ((0.0, [0.0, 0.25, 0.5]), (1.0, None), (0.3, None)):
      schedule = _schedule.warmup_cosine_decay_schedule(
          0.0, jnp.asarray(peak), 2, 10, 0.5)
      if use_jit:
        schedule = jax.jit(schedule)
      got = np.asarray(schedule(steps))
      if want is None:
        peak = jnp.asarray(peak)
        want = _schedule.cosine_decay_schedule(peak, 8, 0.5 / peak)(steps - 2)
        np.testing.assert_array_equal(got, want)
      else:
        np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-7)

  def test_warmup_cosine_decay_without_warmup_starts_at_peak(self):
    schedule = _schedule.warmup_cosine_decay_schedule(0.0, 1.0, 0, 10)
    np.testing.assert_allclose(
        evaluate(schedule, range(12), 'python'),
        [np_cosine(1.0, 10, 0.0, 1.0, t) for t in range(12)], atol=1e-7)

  @parameterized.parameters(5, 3)
  def test_warmup_cosine_decay_needs_decay_after_warmup(self, decay_steps):
    with self.assertRaisesRegex(
        ValueError, 'warmup_cosine_decay_schedule: decay_steps must be larger'
        ' than warmup_steps'):
      _schedule.warmup_cosine_decay_schedule(0.0, 1.0, 5, decay_steps)

  @parameterized.parameters('warmup_cosine_decay_schedule',
                            'warmup_constant_schedule')
  def test_negative_warmup_raises(self, name):
    kwargs = dict(init_value=0.0, peak_value=1.0, warmup_steps=-1)
    if name == 'warmup_cosine_decay_schedule':
      kwargs['decay_steps'] = 10
    with self.assertRaisesRegex(ValueError, f'{name}: warmup_steps'):
      getattr(_schedule, name)(**kwargs)

  @parameterized.named_parameters(*MODES)
  def test_warmup_exponential_decay(self, mode):
    init, peak, warmup, steps, rate, begin, staircase, end = (
        0.0, 1.0, 4, 3, 0.5, 2, True, 0.05)

    def expected(t):
      if t < warmup:
        return init + (peak - init) * t / warmup
      return np_exponential(peak, steps, rate, begin, staircase, end,
                            t - warmup)

    schedule = _schedule.warmup_exponential_decay_schedule(
        init, peak, warmup, steps, rate, begin, staircase, end)
    np.testing.assert_allclose(evaluate(schedule, STEPS, mode),
                               [expected(t) for t in STEPS], rtol=1e-6)

  @parameterized.named_parameters(*MODES)
  def test_warmup_constant(self, mode):
    schedule = _schedule.warmup_constant_schedule(0.2, 1.0, 8)
    expected = [0.2 + 0.8 * min(t, 8) / 8 for t in STEPS]
    np.testing.assert_allclose(evaluate(schedule, STEPS, mode), expected,
                               rtol=1e-6)

  def test_warmup_constant_without_warmup_is_peak(self):
    schedule = _schedule.warmup_constant_schedule(0.0, 0.5, 0)
    self.assertEqual(schedule(0), 0.5)
    self.assertEqual(schedule(10), 0.5)


class SgdrScheduleTest(parameterized.TestCase):
  """Tests of sgdr schedule."""

  @parameterized.named_parameters(*MODES)
  def test_restarts(self, mode):
    cycles = [
        dict(init_value=0.0, peak_value=1.0, warmup_steps=2, decay_steps=10),
        dict(init_value=0.1, peak_value=0.5, warmup_steps=0, decay_steps=6,
             end_value=0.05),
        dict(init_value=0.0, peak_value=0.2, warmup_steps=3, decay_steps=8),
    ]

    def one_cycle(c, t):
      w, d = c['warmup_steps'], c['decay_steps']
      if t < w:
        return c['init_value'] + (c['peak_value'] - c['init_value']) * t / w
      end = c.get('end_value', 0.0)
      return np_cosine(c['peak_value'], d - w, end / c['peak_value'], 1.0,
                       t - w)

    def expected(t):
      start = 0
      for i, c in enumerate(cycles):
        if t < start + c['decay_steps'] or i == len(cycles) - 1:
          return one_cycle(c, t - start)
        start += c['decay_steps']

    schedule = _schedule.sgdr_schedule(cycles)
    ts = list(range(30))
    np.testing.assert_allclose(evaluate(schedule, ts, mode),
                               [expected(t) for t in ts], rtol=1e-6,
                               atol=1e-7)

  def test_empty_raises(self):
    with self.assertRaisesRegex(ValueError, 'sgdr_schedule: cosine_kwargs'):
      _schedule.sgdr_schedule([])

  def test_missing_decay_steps_raises(self):
    with self.assertRaisesRegex(ValueError, 'sgdr_schedule: cycle 0'):
      _schedule.sgdr_schedule([dict(init_value=0.0, peak_value=1.0,
                                    warmup_steps=1)])


ALL_SCHEDULES = (
    ('constant', lambda: _schedule.constant_schedule(0.5)),
    ('polynomial', lambda: _schedule.polynomial_schedule(1.0, 0.0, 2, 10)),
    ('linear', lambda: _schedule.linear_schedule(1.0, 0.0, 10, 2)),
    ('exponential', lambda: _schedule.exponential_decay(
        1.0, 10, 0.5, 2, True, 0.1)),
    ('cosine', lambda: _schedule.cosine_decay_schedule(1.0, 10, 0.1)),
    ('piecewise_constant', lambda: _schedule.piecewise_constant_schedule(
        1.0, {2: 0.5})),
    ('piecewise_interpolate',
     lambda: _schedule.piecewise_interpolate_schedule(
         'cosine', 1.0, {2: 0.5, 5: 2.0})),
    ('linear_onecycle', lambda: _schedule.linear_onecycle_schedule(20, 1.0)),
    ('cosine_onecycle', lambda: _schedule.cosine_onecycle_schedule(20, 1.0)),
    ('warmup_cosine', lambda: _schedule.warmup_cosine_decay_schedule(
        0.0, 1.0, 2, 10)),
    ('warmup_exponential',
     lambda: _schedule.warmup_exponential_decay_schedule(
         0.0, 1.0, 2, 3, 0.5)),
    ('warmup_constant', lambda: _schedule.warmup_constant_schedule(
        0.0, 1.0, 3)),
    ('sgdr', lambda: _schedule.sgdr_schedule(
        [dict(init_value=0.0, peak_value=1.0, warmup_steps=1,
              decay_steps=4)] * 2)),
)


class CommonPropertiesTest(parameterized.TestCase):
  """Tests of common properties."""

  @parameterized.named_parameters(*ALL_SCHEDULES)
  def test_construction_creates_no_array(self, make):
    with jax.transfer_guard('disallow'):
      make()

  @parameterized.named_parameters(*ALL_SCHEDULES)
  def test_jit_vmap_and_python_steps_agree(self, make):
    schedule = make()
    steps = np.arange(-2, 25)
    eager = np.array([float(schedule(int(t))) for t in steps])
    batched = jax.vmap(jax.jit(schedule))(jnp.asarray(steps, jnp.int32))
    self.assertEqual(np.shape(batched), (len(steps),))
    np.testing.assert_allclose(batched, eager, rtol=1e-6, atol=1e-7)

  @parameterized.named_parameters(*ALL_SCHEDULES)
  def test_scalar_float32_output(self, make):
    value = jnp.asarray(make()(jnp.asarray(3, jnp.int32)))
    self.assertEqual(value.shape, ())
    self.assertEqual(value.dtype, jnp.float32)


if __name__ == '__main__':
  absltest.main()
