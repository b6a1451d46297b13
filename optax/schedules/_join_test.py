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
"""Tests of `optax.schedules._join`."""

from absl.testing import absltest
from absl.testing import parameterized
import jax
import jax.numpy as jnp
import numpy as np

from optax.schedules import _join
from optax.schedules import _schedule


def reference_join(schedules, boundaries, t):
  """The schedule in force at step t, fed the steps since its start."""
  start = 0
  current = schedules[0]
  for boundary, schedule in zip(boundaries, schedules[1:]):
    if t >= boundary:
      start, current = boundary, schedule
  return current(t - start)


class JoinSchedulesTest(parameterized.TestCase):
  """Tests of join schedules."""

  @parameterized.named_parameters(('python', False), ('jit', True))
  def test_each_schedule_restarts_at_its_boundary(self, use_jit):
    # Python references of the pieces: f(t) = t, 10 + t, 100 - t.
    pieces = [lambda t: 1.0 * t, lambda t: 10.0 + t, lambda t: 100.0 - t]
    schedule = _join.join_schedules(pieces, [3, 7])
    if use_jit:
      schedule = jax.jit(schedule)
    steps = range(12)
    values = [float(schedule(jnp.asarray(t, jnp.int32))) for t in steps]
    expected = [reference_join(pieces, [3, 7], t) for t in steps]
    np.testing.assert_array_equal(values, expected)
    # Explicitly: at a boundary the new schedule starts from its step 0.
    self.assertEqual(values[3], 10.0)
    self.assertEqual(values[7], 100.0)

  def test_with_library_schedules(self):
    warmup = _schedule.linear_schedule(0.0, 1.0, 4)
    decay = _schedule.exponential_decay(1.0, 2, 0.5)
    schedule = _join.join_schedules([warmup, decay], [4])
    expected = [0.0, 0.25, 0.5, 0.75, 1.0, 2 ** -0.5, 0.5, 2 ** -1.5, 0.25]
    np.testing.assert_allclose(
        [float(schedule(t)) for t in range(9)], expected, rtol=1e-6)

  def test_single_schedule_is_unchanged(self):
    schedule = _join.join_schedules([_schedule.constant_schedule(0.5)], [])
    self.assertEqual(schedule(0), 0.5)
    self.assertEqual(schedule(100), 0.5)

  def test_vmap(self):
    pieces = [lambda t: 2.0 * t, lambda t: -1.0 * t]
    schedule = _join.join_schedules(pieces, [5])
    steps = jnp.arange(10)
    np.testing.assert_array_equal(
        jax.vmap(schedule)(steps),
        [reference_join(pieces, [5], int(t)) for t in steps])

  def test_construction_creates_no_array(self):
    with jax.transfer_guard('disallow'):
      _join.join_schedules(
          [_schedule.constant_schedule(1.0),
           _schedule.cosine_decay_schedule(1.0, 10)], [5])

  def test_empty_raises(self):
    with self.assertRaisesRegex(ValueError,
                                'join_schedules: schedules must hold'):
      _join.join_schedules([], [])

  @parameterized.parameters(([],), ([2, 4],))
  def test_wrong_number_of_boundaries_raises(self, boundaries):
    with self.assertRaisesRegex(
        ValueError,
        r'join_schedules: expected len\(boundaries\) == len\(schedules\) - 1'):
      _join.join_schedules([_schedule.constant_schedule(1.0)] * 2, boundaries)


if __name__ == '__main__':
  absltest.main()
