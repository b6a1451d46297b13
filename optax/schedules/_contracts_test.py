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
"""The schedules against their docstrings' formulas, at every step.

Each schedule is evaluated on every integer step of its transition and
beyond (the endpoints, the boundaries and the steps on either side of them
included), eagerly and under one ``jit`` of a vector of steps, and compared
with the float64 formula of ``reference_math``.
"""

import functools

from absl.testing import absltest
from absl.testing import parameterized
import jax
import jax.numpy as jnp
import numpy as np

from optax import schedules
from optax._src.testing import reference_math as ref

_STEPS = np.arange(0, 40)


def _check(schedule, oracle, steps=_STEPS, rtol=2e-6, atol=1e-7):
  want = np.array([oracle(int(t)) for t in steps])
  got = jax.jit(jax.vmap(schedule))(jnp.asarray(steps))
  np.testing.assert_allclose(got, want, rtol=rtol, atol=atol)
  # Python ints (the eager path) give the same values.
  for t in (0, 1, 17, 39):
    np.testing.assert_allclose(
        schedule(t), oracle(t), rtol=rtol, atol=atol, err_msg=f'step {t}')


class ConstantAndLinearTest(parameterized.TestCase):

  def test_constant(self):
    _check(schedules.constant_schedule(0.3), lambda t: 0.3)

  @parameterized.parameters((0, 10), (5, 10), (-3, 10), (0, 1), (5, 0))
  def test_linear(self, begin, steps):
    # The docstring clamps the step to the transition: negative steps too.
    _check(schedules.linear_schedule(1.0, 0.1, steps, begin),
           functools.partial(ref.polynomial_schedule, init_value=1.0,
                             end_value=0.1, power=1, transition_steps=steps,
                             transition_begin=begin),
           steps=np.arange(-3, 40))

  @parameterized.parameters((0.5, 0), (1.0, 7), (2.0, 0), (3.0, 7))
  def test_polynomial(self, power, begin):
    _check(schedules.polynomial_schedule(2.0, 0.5, power, 20, begin),
           functools.partial(ref.polynomial_schedule, init_value=2.0,
                             end_value=0.5, power=power, transition_steps=20,
                             transition_begin=begin))

  def test_polynomial_fractional_power_at_the_end_is_finite(self):
    got = jax.jit(schedules.polynomial_schedule(1.0, 0.0, 0.5, 10))(10)
    self.assertEqual(float(got), 0.0)


class ExponentialTest(parameterized.TestCase):

  @parameterized.parameters(
      (0.5, False, 0, None), (0.5, True, 6, None), (0.5, False, 6, 0.3),
      (0.5, True, 0, 0.3), (2.0, False, 0, None), (2.0, True, 6, 3.0),
      (2.0, False, 6, 3.0), (0.5, False, 0, 3.0))
  def test_exponential_decay(self, rate, staircase, begin, end_value):
    _check(schedules.exponential_decay(
        1.0, 5, rate, begin, staircase, end_value),
           functools.partial(
               ref.exponential_decay, init_value=1.0, transition_steps=5,
               decay_rate=rate, transition_begin=begin, staircase=staircase,
               end_value=end_value), rtol=1e-5)

  @parameterized.product(staircase=(False, True), end_value=(None, 0.2))
  def test_warmup_exponential_decay(self, staircase, end_value):
    _check(schedules.warmup_exponential_decay_schedule(
        0.1, 1.0, 8, 5, 0.5, 3, staircase, end_value),
           functools.partial(
               ref.warmup_exponential_decay_schedule, init_value=0.1,
               peak_value=1.0, warmup_steps=8, transition_steps=5,
               decay_rate=0.5, transition_begin=3, staircase=staircase,
               end_value=end_value), rtol=1e-5)


class CosineTest(parameterized.TestCase):

  @parameterized.parameters((0.0, 1.0), (0.3, 2.0), (0.3, 0.5))
  def test_cosine_decay(self, alpha, exponent):
    _check(schedules.cosine_decay_schedule(2.0, 25, alpha, exponent),
           functools.partial(ref.cosine_decay_schedule, init_value=2.0,
                             decay_steps=25, alpha=alpha, exponent=exponent))

  @parameterized.parameters(
      (0.0, 0.0, 0, 1.0), (0.1, 0.05, 5, 1.0), (0.0, 2.0, 5, 2.0),
      (0.1, 0.0, 0, 2.0), (0.1, 0.05, 5, 0.5))
  def test_warmup_cosine_decay(self, init, end, warmup, exponent):
    _check(schedules.warmup_cosine_decay_schedule(
        init, 1.0, warmup, 30, end, exponent),
           functools.partial(
               ref.warmup_cosine_decay_schedule, init_value=init,
               peak_value=1.0, warmup_steps=warmup, decay_steps=30,
               end_value=end, exponent=exponent))

  def test_warmup_cosine_zero_peak_reaches_end_value(self):
    _check(schedules.warmup_cosine_decay_schedule(0.0, 0.0, 2, 10, 0.5),
           functools.partial(
               ref.warmup_cosine_decay_schedule, init_value=0.0,
               peak_value=0.0, warmup_steps=2, decay_steps=10,
               end_value=0.5))

  def test_warmup_constant(self):
    _check(schedules.warmup_constant_schedule(0.1, 1.0, 8),
           lambda t: ref.polynomial_schedule(t, 0.1, 1.0, 1, 8))

  def test_sgdr_plays_each_cycle_from_its_step_zero(self):
    kwargs = [dict(init_value=0.0, peak_value=1.0, warmup_steps=3,
                   decay_steps=10, end_value=0.1),
              dict(init_value=0.1, peak_value=0.5, warmup_steps=0,
                   decay_steps=12, end_value=0.0)]

    def oracle(t):
      if t < 10:
        return ref.warmup_cosine_decay_schedule(max(t, 0), **kwargs[0])
      return ref.warmup_cosine_decay_schedule(t - 10, **kwargs[1])

    _check(schedules.sgdr_schedule(kwargs), oracle, steps=np.arange(0, 40))


class PiecewiseTest(parameterized.TestCase):

  _BOUNDS = {5: 0.5, 12: 0.1, 13: 3.0, 30: 1.0}

  def test_piecewise_constant_boundary_sees_the_new_value(self):
    _check(schedules.piecewise_constant_schedule(2.0, self._BOUNDS),
           functools.partial(ref.piecewise_constant_schedule,
                             init_value=2.0,
                             boundaries_and_scales=self._BOUNDS))

  @parameterized.parameters('linear', 'cosine')
  def test_piecewise_interpolate(self, kind):
    _check(schedules.piecewise_interpolate_schedule(kind, 2.0, self._BOUNDS),
           functools.partial(ref.piecewise_interpolate_schedule,
                             interpolate_type=kind, init_value=2.0,
                             boundaries_and_scales=self._BOUNDS))

  @parameterized.named_parameters(('none', None), ('empty', {}))
  def test_piecewise_without_boundaries_is_constant(self, bounds):
    _check(schedules.piecewise_constant_schedule(0.7, bounds),
           lambda t: 0.7)
    _check(schedules.piecewise_interpolate_schedule('linear', 0.7, bounds),
           lambda t: 0.7)


class OneCycleTest(parameterized.TestCase):

  @parameterized.parameters((0.3, 0.85), (0.0, 0.5), (0.25, 1.0), (0.5, 0.5))
  def test_linear_onecycle(self, pct_start, pct_final):
    # Phases of zero steps (the last two) jump to the value they end at.
    peak, div, final_div, steps = 2.0, 25.0, 1e4, 32
    v0 = peak / div
    points = [(0, v0), (int(pct_start * steps), peak),
              (int(pct_final * steps), v0), (steps, v0 / final_div)]

    def oracle(t):
      if t <= 0:
        return v0 if points[1][0] > 0 else peak
      for (b0, y0), (b1, y1) in zip(points[:-1], points[1:]):
        if b0 <= t < b1:
          return y0 + (y1 - y0) * (t - b0) / (b1 - b0)
      return points[-1][1]

    _check(schedules.linear_onecycle_schedule(
        steps, peak, pct_start, pct_final, div, final_div), oracle,
           steps=np.arange(0, 40), rtol=1e-5)

  @parameterized.parameters(0.3, 0.5, 0.0, 1.0)
  def test_cosine_onecycle(self, pct_start):
    peak, div, final_div, steps = 2.0, 25.0, 1e4, 32
    v0 = peak / div
    knots = [(int(pct_start * steps), peak / v0),
             (steps, v0 / final_div / peak)]

    def oracle(t):
      return ref.piecewise_interpolate_schedule(t, 'cosine', v0, knots)

    _check(schedules.cosine_onecycle_schedule(
        steps, peak, pct_start, div, final_div), oracle,
           steps=np.arange(0, 40), rtol=1e-5)


class JoinSchedulesTest(parameterized.TestCase):

  def test_each_schedule_starts_from_its_step_zero(self):
    parts = [schedules.linear_schedule(0.0, 1.0, 10),
             schedules.constant_schedule(0.5),
             schedules.cosine_decay_schedule(1.0, 10)]
    oracles = [lambda t: ref.polynomial_schedule(t, 0.0, 1.0, 1, 10),
               lambda t: 0.5,
               lambda t: ref.cosine_decay_schedule(t, 1.0, 10)]
    _check(schedules.join_schedules(parts, [10, 15]),
           lambda t: ref.join_schedules(t, oracles, [10, 15]),
           steps=np.arange(0, 40))


if __name__ == '__main__':
  absltest.main()
