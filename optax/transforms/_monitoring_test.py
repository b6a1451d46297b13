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
"""Tests for `snapshot`, `measure_with_ema` and `monitor`."""

from absl.testing import absltest
from absl.testing import parameterized
import jax
import jax.numpy as jnp
import numpy as np

from optax._src import base
from optax.transforms import _monitoring


def _norm(tree):
  return jnp.sqrt(sum(jnp.sum(jnp.square(x)) for x in jax.tree.leaves(tree)))


def _np_norm(tree):
  return np.sqrt(sum(np.sum(np.square(np.asarray(x, np.float64)))
                     for x in jax.tree.leaves(tree)))


def _params():
  return {'w': jnp.array([[1.0, -2.0], [0.5, 3.0]]),
          'b': jnp.array([0.25, -1.0])}


def _grads(step):
  return jax.tree.map(lambda x: (step + 1.5) * x - 0.1, _params())


def _np_ema(values, decay, debias):
  avg, out = 0.0, []
  for t, v in enumerate(values, start=1):
    avg = decay * avg + (1 - decay) * v
    out.append(avg / (1 - decay ** t) if debias else avg)
  return out


class SnapshotTest(parameterized.TestCase):
  """Tests for snapshot."""

  @parameterized.parameters(False, True)
  def test_records_measure_and_keeps_updates(self, use_jit):
    params = _params()
    tx = _monitoring.snapshot('norm', _norm)
    state = tx.init(params)
    np.testing.assert_allclose(state.measurement['norm'], _np_norm(params),
                               rtol=1e-6)
    update = jax.jit(tx.update) if use_jit else tx.update
    for step in range(3):
      grads = _grads(step)
      updates, new_state = update(grads, state)
      np.testing.assert_array_equal(updates['w'], grads['w'])
      np.testing.assert_allclose(new_state.measurement['norm'],
                                 _np_norm(grads), rtol=1e-6)
      self.assertEqual(jax.tree.structure(state),
                       jax.tree.structure(new_state))
      state = new_state

  def test_measurement_takes_the_stored_dtype(self):
    tx = _monitoring.snapshot('sum', lambda u: jnp.sum(u['w']))
    state = tx.init({'w': jnp.zeros(2, jnp.float32)})
    _, state = tx.update({'w': jnp.ones(2, jnp.bfloat16)}, state)
    self.assertEqual(state.measurement['sum'].dtype, jnp.float32)
    self.assertEqual(float(state.measurement['sum']), 2.0)

  def test_python_number_measure_is_kept_as_is(self):
    # A measurement without a dtype has none to keep (as upstream does):
    # the state holds the Python number, at init and after each update.
    tx = _monitoring.snapshot('one', lambda u: 1.0)
    _, state = tx.update(_grads(0), tx.init(_params()))
    self.assertIsInstance(state.measurement['one'], float)


class MeasureWithEmaTest(parameterized.TestCase):
  """Tests for measure_with_ema."""

  @parameterized.product(debias=[False, True], use_jit=[False, True])
  def test_against_reference(self, debias, use_jit):
    tx = _monitoring.measure_with_ema(_norm, 0.8, debias=debias)
    state = tx.init(_params())
    self.assertIsInstance(state[0], base.EmptyState)
    self.assertEqual(state[1].ema.shape, ())
    update = jax.jit(tx.update) if use_jit else tx.update
    expected = _np_ema([_np_norm(_grads(s)) for s in range(3)], 0.8, debias)
    for step in range(3):
      value, state = update(_grads(step), state)
      np.testing.assert_allclose(value, expected[step], rtol=1e-5)

  @parameterized.product(
      acc_dtype=[None, jnp.bfloat16], use_jit=[False, True])
  def test_boolean_measure_averages_a_fraction_regression(
      self, acc_dtype, use_jit):
    # Regression: the average of a boolean measure was kept as a bool (True
    # as soon as the measure held once); upstream 0.2.8 gives the fraction,
    # as a float (float32, or accumulator_dtype).
    tx = _monitoring.measure_with_ema(
        lambda u: jnp.all(u > 0), 0.5, accumulator_dtype=acc_dtype)
    want_dtype = jnp.dtype(acc_dtype or jnp.float32)
    state = tx.init(jnp.ones(2))
    self.assertEqual(state[1].ema.dtype, want_dtype)
    update = jax.jit(tx.update) if use_jit else tx.update
    held = [True, False, False, True]
    expected = _np_ema([float(h) for h in held], 0.5, True)
    for h, want in zip(held, expected):
      value, state = update(jnp.array([1.0 if h else -1.0, 2.0]), state)
      self.assertEqual(value.dtype, want_dtype)
      self.assertEqual(state[1].ema.dtype, want_dtype)
      np.testing.assert_allclose(np.asarray(value, np.float32), want,
                                 rtol=1e-2 if acc_dtype else 1e-6)

  def test_integer_measure_averages_as_float(self):
    tx = _monitoring.measure_with_ema(lambda u: jnp.sum(u > 0), 0.5)
    state = tx.init(jnp.ones(2))
    value, state = tx.update(jnp.array([1.0, 2.0]), state)
    value, state = tx.update(jnp.array([-1.0, 2.0]), state)
    self.assertEqual(value.dtype, jnp.float32)
    # (0.5 * 2 * 0.5 + 0.5 * 1) / (1 - 0.25) = 4 / 3.
    np.testing.assert_allclose(value, 4.0 / 3.0, rtol=1e-6)


class MonitorTest(parameterized.TestCase):
  """Tests for monitor."""

  @parameterized.parameters(False, True)
  def test_measurements(self, use_jit):
    params = _params()
    tx = _monitoring.monitor({
        'norm': _norm,
        'ema': _monitoring.measure_with_ema(_norm, 0.5),
        'max': lambda u: jax.tree.map(jnp.max, u),
    })
    state = tx.init(params)
    self.assertIsInstance(state, _monitoring.MonitorState)
    self.assertEqual(set(state.measurements), {'norm', 'ema', 'max'})
    self.assertLen(state.measure_states, 3)
    update = jax.jit(tx.update) if use_jit else tx.update
    norms = []
    for step in range(3):
      grads = _grads(step)
      norms.append(_np_norm(grads))
      updates, new_state = update(grads, state, params)
      np.testing.assert_array_equal(updates['b'], grads['b'])
      np.testing.assert_allclose(new_state.measurements['norm'], norms[-1],
                                 rtol=1e-6)
      np.testing.assert_allclose(new_state.measurements['ema'],
                                 _np_ema(norms, 0.5, True)[-1], rtol=1e-5)
      np.testing.assert_allclose(new_state.measurements['max']['w'],
                                 np.max(np.asarray(grads['w'])))
      self.assertEqual(jax.tree.structure(state),
                       jax.tree.structure(new_state))
      for a, b in zip(jax.tree.leaves(state), jax.tree.leaves(new_state)):
        self.assertEqual((a.shape, a.dtype), (b.shape, b.dtype))
      state = new_state

  def test_initial_measurements_are_zeros(self):
    tx = _monitoring.monitor({'norm': _norm})
    state = tx.init(_params())
    self.assertEqual(state.measurements['norm'].shape, ())
    self.assertEqual(float(state.measurements['norm']), 0.0)

  def test_in_scan(self):
    tx = _monitoring.monitor({'norm': _norm})
    params = _params()

    def step(state, scale):
      grads = jax.tree.map(lambda x: scale * x, params)
      _, state = tx.update(grads, state)
      return state, None

    state, _ = jax.lax.scan(step, tx.init(params), jnp.array([1.0, 2.0]))
    np.testing.assert_allclose(state.measurements['norm'],
                               2.0 * _np_norm(params), rtol=1e-6)

  def test_not_a_mapping(self):
    with self.assertRaisesRegex(ValueError, 'monitor: measures must be'):
      _monitoring.monitor([_norm])


if __name__ == '__main__':
  absltest.main()
