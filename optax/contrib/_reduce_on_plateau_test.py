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
"""Tests for ``optax.contrib._reduce_on_plateau``."""

import math

from absl.testing import absltest
from absl.testing import parameterized
import jax
import jax.numpy as jnp
import numpy as np

from optax._src import test_utils
from optax._src import utils
from optax._src.testing import probes
from optax.contrib import _reduce_on_plateau


def _py_reduce_on_plateau(values, factor=0.1, patience=10, rtol=1e-4,
                          atol=0.0, cooldown=0, accumulation_size=1,
                          min_scale=0.0):
  """Reference: the scale after each value, in plain Python."""
  scale, best, plateau, cool, count, avg = 1.0, math.inf, 0, 0, 0, 0.0
  scales = []
  for v in values:
    count += 1
    avg += (v - avg) / count
    if count >= accumulation_size:
      # A margin of rtol * |best| below the best value (at best = inf, any
      # finite value improves).
      margin = rtol * abs(best) if best < math.inf else 0.0
      improved = avg < best - margin - atol
      if improved:
        best = avg
      if cool > 0:  # Plateaus are not counted during a cooldown.
        plateau, cool = 0, cool - 1
      else:
        plateau = 0 if improved else plateau + 1
        if plateau >= patience:
          scale = max(scale * factor, min_scale)
          plateau, cool = 0, cooldown
      count, avg = 0, 0.0
    scales.append(scale)
  return scales


_SEQUENCES = {
    'noisy': list(np.cumsum(np.random.default_rng(0).normal(0, 0.3, 40))
                  + 10),
    'decrease_then_flat': list(np.linspace(10, 5, 10)) + [5.0] * 20,
    'zigzag': [3.0, 2.0, 2.5, 2.4, 2.6, 1.9, 2.0, 2.1, 2.2, 1.8, 1.85, 1.84,
               1.83, 3.0, 3.0, 3.0, 1.0, 1.0, 1.0, 1.0],
    # Negative values, and values crossing zero (upstream #1767).
    'negative_then_flat': list(np.linspace(-5, -10, 10)) + [-10.0] * 20,
    'crossing_zero': [2.0, 1.0, 0.5, 0.0, 0.0, -0.5, -0.5, -0.5, -2.0, -2.0,
                      -1.9, -2.0, -2.0002, -2.0002, -2.0002],
}


class ReduceOnPlateauTest(parameterized.TestCase):

  @parameterized.product(
      sequence=list(_SEQUENCES),
      config=[
          {'patience': 2, 'factor': 0.5},
          {'patience': 2, 'factor': 0.5, 'cooldown': 3},
          {'patience': 1, 'factor': 0.5, 'accumulation_size': 3},
          {'patience': 1, 'factor': 0.3, 'min_scale': 0.05},
          {'patience': 2, 'factor': 0.5, 'rtol': 0.0, 'atol': 0.2},
      ])
  def test_matches_reference(self, sequence, config):
    values = _SEQUENCES[sequence]
    tx = _reduce_on_plateau.reduce_on_plateau(**config)
    state = tx.init({'w': jnp.zeros(2)})
    step = jax.jit(tx.update)
    got = []
    for v in values:
      updates, state = step({'w': jnp.ones(2)}, state, value=v)
      got.append(float(updates['w'][0]))
    np.testing.assert_allclose(got, _py_reduce_on_plateau(values, **config),
                               rtol=1e-6)

  def test_without_jit_and_state_values(self):
    tx = _reduce_on_plateau.reduce_on_plateau(patience=1, factor=0.5,
                                              accumulation_size=2)
    state = tx.init(jnp.zeros(1))
    _, state = tx.update(jnp.ones(1), state, value=4.0)
    self.assertEqual(int(state.count), 1)
    self.assertAlmostEqual(float(state.avg_value), 4.0)
    self.assertEqual(float(state.best_value), math.inf)
    _, state = tx.update(jnp.ones(1), state, value=2.0)
    self.assertEqual(int(state.count), 0)
    self.assertEqual(float(state.avg_value), 0.0)
    self.assertAlmostEqual(float(state.best_value), 3.0)
    _, state = tx.update(jnp.ones(1), state, value=5.0)
    updates, state = tx.update(jnp.ones(1), state, value=5.0)
    self.assertEqual(float(updates[0]), 0.5)
    self.assertEqual(float(state.scale), 0.5)
    self.assertEqual(int(state.plateau_count), 0)

  @parameterized.product(value=[1.0, -1.0, 0.0], jit=[True, False])
  def test_constant_value_is_a_plateau_pull_1767(self, value, jit):
    # A constant value never improves on the best one after the first step,
    # whatever its sign: with patience 2 the scale drops to 0.1 at steps 3,
    # 5 and 7, so it is 0.1 ** 3 after 8 steps. Upstream's threshold
    # (1 - rtol) * best lies above a negative best (-0.9999 for best -1), so
    # -1.0 improved on every step and the scale stayed 1.
    tx = _reduce_on_plateau.reduce_on_plateau(patience=2, factor=0.1)
    state = tx.init(jnp.zeros(1))
    step = jax.jit(tx.update) if jit else tx.update
    scales = []
    for _ in range(8):
      _, state = step(jnp.zeros(1), state, value=jnp.float32(value))
      scales.append(float(state.scale))
    np.testing.assert_allclose(
        scales, [1.0, 1.0, 0.1, 0.1, 0.01, 0.01, 1e-3, 1e-3], rtol=1e-6)
    self.assertEqual(float(state.best_value), value)

  @parameterized.parameters(True, False)
  def test_negative_margin_is_relative_to_abs_best_pull_1767(self, jit):
    # rtol = 0.1 and best = -10: the threshold is -10 - 0.1 * 10 = -11, so
    # -10.5 does not improve and -11.5 does (-11 - 1e-6 would not be enough
    # with float32 rounding, so the values keep clear of the threshold).
    tx = _reduce_on_plateau.reduce_on_plateau(patience=5, rtol=0.1)
    step = jax.jit(tx.update) if jit else tx.update
    state = tx.init(jnp.zeros(1))
    _, state = step(jnp.zeros(1), state, value=jnp.float32(-10.0))
    _, state = step(jnp.zeros(1), state, value=jnp.float32(-10.5))
    self.assertEqual(float(state.best_value), -10.0)
    self.assertEqual(int(state.plateau_count), 1)
    _, state = step(jnp.zeros(1), state, value=jnp.float32(-11.5))
    self.assertEqual(float(state.best_value), -11.5)
    self.assertEqual(int(state.plateau_count), 0)

  def test_value_is_required(self):
    tx = _reduce_on_plateau.reduce_on_plateau()
    with self.assertRaisesRegex(TypeError, 'value'):
      tx.update(jnp.ones(1), tx.init(jnp.zeros(1)))

  @parameterized.parameters(
      ({'factor': 1.5}, r'factor must be in \(0, 1\)'),
      ({'factor': 0.0}, r'factor must be in \(0, 1\)'),
      ({'rtol': -1.0}, r'rtol must be in \[0, 1\]'),
      ({'rtol': 1.5}, r'rtol must be in \[0, 1\]'),
      ({'atol': -1.0}, 'atol must be non-negative'),
      ({'rtol': 0.0, 'atol': 0.0}, 'at least one of rtol and atol'),
      ({'patience': 0}, 'patience must be an integer >= 1'),
      ({'cooldown': -1}, 'cooldown must be an integer >= 0'),
      ({'accumulation_size': 0}, 'accumulation_size must be an integer'),
      ({'min_scale': -0.1}, 'min_scale must be non-negative'),
      # NaN: the old `value < 0` checks let it through, and int(nan) raised
      # an unrelated message.
      ({'atol': float('nan')}, 'atol must be non-negative, got nan'),
      ({'min_scale': float('nan')}, 'min_scale must be non-negative'),
      ({'factor': float('nan')}, r'factor must be in \(0, 1\)'),
      ({'patience': float('nan')}, 'patience must be an integer >= 1'),
      ({'patience': 2.5}, 'patience must be an integer >= 1'),
  )
  def test_invalid(self, kwargs, message):
    with self.assertRaisesRegex(ValueError, message):
      _reduce_on_plateau.reduce_on_plateau(**kwargs)

  def test_infinite_patience_is_accepted(self):
    # Upstream accepts patience=inf (the scale is never reduced); the
    # integer check used to fail on it with an OverflowError.
    tx = _reduce_on_plateau.reduce_on_plateau(patience=float('inf'))
    state = tx.init(jnp.zeros(1))
    for _ in range(3):
      _, state = tx.update(jnp.ones(1), state, value=1.0)
    self.assertEqual(float(state.scale), 1.0)

  @parameterized.parameters(jnp.float32, jnp.bfloat16)
  def test_dtypes_and_single_trace(self, dtype):
    tx = _reduce_on_plateau.reduce_on_plateau(patience=1, factor=0.5)
    params = {'w': jnp.ones((2, 2), dtype), 'b': jnp.ones(2, jnp.float32)}
    state = tx.init(params)
    self.assertEqual(state.scale.dtype, jnp.float32)  # Whatever the params.
    traces = []

    @jax.jit
    def step(state, value):
      traces.append(None)
      return tx.update(params, state, value=value)

    for v in (3.0, 3.0, 3.0):
      updates, new_state = step(state, jnp.asarray(v))
      test_utils.assert_trees_all_equal_dtypes(new_state, state)
      test_utils.assert_trees_all_equal_dtypes(updates, params)
      state = new_state
    self.assertLen(traces, 1)
    self.assertEqual(float(state.scale), 0.25)

  def test_losses_float32_with_bfloat16_params_regression(self):
    # Regression from upstream 0.2.8: best_value and avg_value are float32
    # with bfloat16 params (and so is scale). In bfloat16 the three values
    # below all rounded to 1.
    tx = _reduce_on_plateau.reduce_on_plateau(accumulation_size=3)
    params = {'w': jnp.ones(2, jnp.bfloat16), 'b': jnp.ones(2, jnp.float32)}
    state = tx.init(params)
    self.assertEqual(state.scale.dtype, jnp.float32)
    self.assertEqual(state.best_value.dtype, jnp.float32)
    self.assertEqual(state.avg_value.dtype, jnp.float32)
    values = np.array([1.001, 1.002, 1.004], np.float32)
    for v in values[:2]:
      _, state = tx.update(params, state, value=v)
    np.testing.assert_allclose(state.avg_value, values[:2].mean(), rtol=1e-6)
    updates, state = tx.update(params, state, value=values[2])
    np.testing.assert_allclose(state.best_value, values.mean(), rtol=1e-6)
    test_utils.assert_trees_all_equal_dtypes(updates, params)

  def test_builds_without_arrays(self):
    _, new = probes.arrays_created_by(
        lambda: _reduce_on_plateau.reduce_on_plateau(patience=3, cooldown=2))
    self.assertEqual(new, [])


class ScalarStatisticsTest(parameterized.TestCase):
  """scale, best_value and avg_value are float32 (float64 under x64)."""

  @parameterized.parameters('bf16', 'mixed')
  def test_float32_on_bfloat16_params(self, kind):
    b_dtype = jnp.bfloat16 if kind == 'bf16' else jnp.float32
    params = {'w': jnp.ones((2, 2), jnp.bfloat16), 'b': jnp.ones(2, b_dtype)}
    tx = _reduce_on_plateau.reduce_on_plateau(factor=0.3, patience=1)
    state = tx.init(params)
    for field in ('scale', 'best_value', 'avg_value'):
      self.assertEqual(getattr(state, field).dtype, jnp.float32, field)
    step = jax.jit(tx.update)
    expected = np.float32(1.0)
    for i in range(4):
      updates, new_state = step(params, state, value=jnp.float32(2.0))
      test_utils.assert_trees_all_equal_dtypes(new_state, state)
      test_utils.assert_trees_all_equal_dtypes(updates, params)
      state = new_state
      if i > 0:  # The first value improves on inf; each later one does not.
        expected = np.float32(expected * np.float32(0.3))
    # 0.3 ** 3 = 0.027 in float32; a bfloat16 scale would end at 0.0270996.
    self.assertEqual(state.scale, expected)
    # The updates (ones) are scaled, then rounded once to bfloat16.
    np.testing.assert_array_equal(
        updates['w'], np.full((2, 2), expected).astype(jnp.bfloat16))

  @parameterized.parameters('bf16', 'mixed', 'f32')
  def test_float64_under_x64(self, kind):
    with utils.x64_precision(True):
      dtypes = {'bf16': (jnp.bfloat16,) * 2, 'f32': (jnp.float32,) * 2,
                'mixed': (jnp.bfloat16, jnp.float32)}[kind]
      params = {'w': jnp.ones(2, dtypes[0]), 'b': jnp.ones(2, dtypes[1])}
      tx = _reduce_on_plateau.reduce_on_plateau(patience=1)
      state = tx.init(params)
      for field in ('scale', 'best_value', 'avg_value'):
        self.assertEqual(getattr(state, field).dtype, jnp.float64, field)
      updates, new_state = jax.jit(tx.update)(params, state, value=1.5)
      test_utils.assert_trees_all_equal_dtypes(new_state, state)
      test_utils.assert_trees_all_equal_dtypes(updates, params)


if __name__ == '__main__':
  absltest.main()
