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
"""Tests for `add_decayed_weights` and `add_noise`."""

import warnings

from absl.testing import absltest
from absl.testing import parameterized
import jax
import jax.numpy as jnp
import numpy as np

from optax._src import base
from optax.transforms import _adding
from optax.transforms import _masking


def _params():
  rng = np.random.RandomState(0)
  return {
      'w': jnp.asarray(rng.randn(2, 3), jnp.float32),
      'b': jnp.asarray(rng.randn(3), jnp.float32),
  }


def _grads():
  rng = np.random.RandomState(1)
  return {
      'w': jnp.asarray(rng.randn(2, 3), jnp.float32),
      'b': jnp.asarray(rng.randn(3), jnp.float32),
  }


class AddDecayedWeightsTest(parameterized.TestCase):
  """Tests for add_decayed_weights."""

  def test_python_number_param(self):
    # A Python float in the params raised AttributeError ('float' object
    # has no attribute 'dtype'); it is a float32 scalar param.
    tx = _adding.add_decayed_weights(0.5)
    params = {'w': jnp.ones(2), 'f': 2.0}
    updates, _ = tx.update({'w': jnp.zeros(2), 'f': jnp.float32(1.0)},
                           tx.init(params), params)
    self.assertEqual(updates['f'].dtype, jnp.float32)
    self.assertEqual(float(updates['f']), 2.0)
    np.testing.assert_array_equal(updates['w'], [0.5, 0.5])

  @parameterized.parameters(False, True)
  def test_values(self, use_jit):
    params, grads = _params(), _grads()
    tx = _adding.add_decayed_weights(0.1)
    state = tx.init(params)
    self.assertEqual(state, base.EmptyState())
    update = jax.jit(tx.update) if use_jit else tx.update
    updates, _ = update(grads, state, params)
    for k in params:
      expected = (np.asarray(grads[k], np.float64)
                  + 0.1 * np.asarray(params[k], np.float64))
      np.testing.assert_allclose(updates[k], expected, rtol=1e-6)

  def test_schedule(self):
    params, grads = _params(), _grads()
    tx = _adding.add_decayed_weights(lambda count: 0.01 * (count + 1))
    state = tx.init(params)
    self.assertEqual(state.count.dtype, jnp.int32)
    update = jax.jit(tx.update)
    for step in range(3):
      updates, state = update(grads, state, params)
      decay = 0.01 * (step + 1)
      np.testing.assert_allclose(
          updates['b'],
          np.asarray(grads['b']) + decay * np.asarray(params['b']),
          rtol=1e-6)
      self.assertEqual(int(state.count), step + 1)

  @parameterized.parameters(False, True)
  def test_mask(self, use_fn):
    params, grads = _params(), _grads()
    mask = {'w': True, 'b': False}
    tx = _adding.add_decayed_weights(
        0.5, mask=(lambda p: jax.tree.map(lambda x: x.ndim > 1, p))
        if use_fn else mask)
    state = tx.init(params)
    self.assertIsInstance(state, _masking.MaskedState)
    updates, _ = tx.update(grads, state, params)
    np.testing.assert_allclose(
        updates['w'],
        np.asarray(grads['w']) + 0.5 * np.asarray(params['w']), rtol=1e-6)
    np.testing.assert_array_equal(updates['b'], grads['b'])

  @parameterized.parameters(0.1, lambda c: 0.1)
  def test_params_required(self, weight_decay):
    tx = _adding.add_decayed_weights(weight_decay)
    with self.assertRaisesRegex(ValueError, 'add_decayed_weights: params'):
      tx.update(_grads(), tx.init(_params()))

  def test_dtype_kept(self):
    params = {'a': jnp.ones(3, jnp.bfloat16), 'b': jnp.ones(2, jnp.float16)}
    tx = _adding.add_decayed_weights(0.25)
    updates, _ = tx.update(params, tx.init(params), params)
    self.assertEqual(updates['a'].dtype, jnp.bfloat16)
    self.assertEqual(updates['b'].dtype, jnp.float16)
    np.testing.assert_array_equal(np.asarray(updates['a'], np.float32),
                                  1.25 * np.ones(3))

  def test_traced_weight_decay_same_bits(self):
    params, grads = _params(), _grads()
    plain, _ = _adding.add_decayed_weights(0.1).update(
        grads, base.EmptyState(), params)

    @jax.jit
    def traced(wd):
      return _adding.add_decayed_weights(wd).update(
          grads, base.EmptyState(), params)[0]

    injected = traced(jnp.asarray(0.1, jnp.float32))
    for k in params:
      np.testing.assert_array_equal(plain[k], injected[k])

  def test_strict_promotion_mixed_dtypes(self):
    params = {'a': jnp.ones(3, jnp.float32), 'b': jnp.ones(2, jnp.bfloat16)}
    grads = {'a': jnp.ones(3, jnp.bfloat16), 'b': jnp.ones(2, jnp.float32)}
    with jax.numpy_dtype_promotion('strict'):
      for tx in [_adding.add_decayed_weights(0.5),
                 _adding.add_decayed_weights(lambda c: 0.5),
                 _adding.add_noise(0.1, 0.5, key=0)]:
        updates, _ = jax.jit(tx.update)(grads, tx.init(params), params)
        for k, g in grads.items():
          self.assertEqual(updates[k].dtype, g.dtype)

  def test_none_leaves(self):
    params = {'a': jnp.ones(2), 'b': None}
    tx = _adding.add_decayed_weights(1.0)
    updates, _ = tx.update(params, tx.init(params), params)
    self.assertIsNone(updates['b'])
    np.testing.assert_array_equal(updates['a'], 2.0 * np.ones(2))


def _expected_noise(key, grads, eta, gamma, steps):
  """Reference: the documented key schedule and variance eta / t**gamma."""
  out = []
  for t in range(1, steps + 1):
    key, sample_key = jax.random.split(key)
    leaves, treedef = jax.tree.flatten(grads)
    keys = jax.random.split(sample_key, len(leaves))
    std = np.sqrt(eta / t ** gamma)
    noisy = [np.asarray(g, np.float64)
             + std * np.asarray(jax.random.normal(k, g.shape, g.dtype),
                                np.float64)
             for g, k in zip(leaves, keys)]
    out.append(jax.tree.unflatten(treedef, noisy))
  return out


class AddDecayedWeightsZeroTest(parameterized.TestCase):
  """A Python-number zero leaves the updates as given (as upstream does)."""

  @parameterized.product(weight_decay=(0, 0.0), use_jit=(False, True))
  def test_updates_pass_through_bit_for_bit(self, weight_decay, use_jit):
    # 0 * inf is nan and -0.0 + 0 * 1 is +0.0: computing g + 0 * p would
    # change both leaves below.
    tx = _adding.add_decayed_weights(weight_decay)
    params = {'w': jnp.array([jnp.inf, -jnp.inf, jnp.nan, 1.0])}
    grads = {'w': jnp.array([1.5, -0.0, 2.0, -0.0])}
    update = jax.jit(tx.update) if use_jit else tx.update
    updates, state = update(grads, tx.init(params), params)
    self.assertEqual(state, base.EmptyState())
    self.assertEqual(np.asarray(updates['w']).tobytes(),
                     np.asarray(grads['w']).tobytes())

  def test_params_are_not_read(self):
    tx = _adding.add_decayed_weights(0.0)
    params = {'w': jnp.ones(3)}
    jaxpr = jax.make_jaxpr(tx.update)(params, tx.init(params), params)
    self.assertEmpty(jaxpr.eqns)

  def test_params_still_required(self):
    tx = _adding.add_decayed_weights(0.0)
    with self.assertRaises(ValueError):
      tx.update(jnp.ones(2), tx.init(jnp.ones(2)))


class AddNoiseTest(parameterized.TestCase):
  """Tests for add_noise."""

  @parameterized.parameters(False, True)
  def test_values_against_reference(self, use_jit):
    grads = _grads()
    tx = _adding.add_noise(0.3, 0.55, key=jax.random.key(7))
    state = tx.init(grads)
    update = jax.jit(tx.update) if use_jit else tx.update
    expected = _expected_noise(jax.random.key(7), grads, 0.3, 0.55, 3)
    for step in range(3):
      updates, state = update(grads, state)
      for k in grads:
        np.testing.assert_allclose(updates[k], expected[step][k],
                                   rtol=1e-5, atol=1e-6)
      self.assertEqual(int(state.count), step + 1)

  def test_int_seed_equals_typed_key(self):
    grads = _grads()
    a = _adding.add_noise(0.1, 0.5, key=3)
    b = _adding.add_noise(0.1, 0.5, key=jax.random.key(3))
    ua, _ = a.update(grads, a.init(grads))
    ub, _ = b.update(grads, b.init(grads))
    np.testing.assert_array_equal(ua['w'], ub['w'])

  def test_raw_key_is_kept(self):
    grads = _grads()
    raw = jax.random.key_data(jax.random.key(3))
    tx = _adding.add_noise(0.1, 0.5, key=raw)
    state = tx.init(grads)
    np.testing.assert_array_equal(state.rng_key, raw)
    updates, new_state = tx.update(grads, state)
    self.assertEqual(new_state.rng_key.dtype, raw.dtype)
    self.assertEqual(new_state.rng_key.shape, raw.shape)
    typed = _adding.add_noise(0.1, 0.5, key=3)
    expected, _ = typed.update(grads, typed.init(grads))
    np.testing.assert_array_equal(updates['b'], expected['b'])

  def test_traced_seed(self):
    grads = _grads()
    expected_tx = _adding.add_noise(0.1, 0.5, key=3)
    expected, _ = expected_tx.update(grads, expected_tx.init(grads))

    @jax.jit
    def run(eta, gamma, seed):
      tx = _adding.add_noise(eta, gamma, key=seed)
      return tx.update(grads, tx.init(grads))[0]

    updates = run(jnp.asarray(0.1), jnp.asarray(0.5), jnp.asarray(3))
    # jit may fuse the multiply-add: equal up to float32 rounding.
    np.testing.assert_allclose(updates['w'], expected['w'], rtol=1e-6)

  def test_state_stable_under_jit(self):
    grads = _grads()
    tx = _adding.add_noise(0.1, 0.5, key=0)
    state0 = tx.init(grads)
    _, state1 = jax.jit(tx.update)(grads, state0)
    self.assertEqual(jax.tree.structure(state0), jax.tree.structure(state1))
    self.assertEqual(state1.count.dtype, jnp.int32)
    self.assertEqual(state1.rng_key.dtype, state0.rng_key.dtype)

  def test_dtype_kept(self):
    grads = {'a': jnp.zeros(4, jnp.bfloat16)}
    tx = _adding.add_noise(0.1, 0.5, key=0)
    updates, _ = tx.update(grads, tx.init(grads))
    self.assertEqual(updates['a'].dtype, jnp.bfloat16)

  def test_builder_creates_no_array(self):
    before = len(jax.live_arrays())
    _adding.add_noise(0.1, 0.5, key=5)
    _adding.add_decayed_weights(0.1)
    self.assertEqual(len(jax.live_arrays()), before)

  def test_seed_deprecated(self):
    with self.assertWarns(DeprecationWarning) as caught:
      tx = _adding.add_noise(0.1, 0.5, seed=3)
    # Upstream 0.2.8's message, word for word.
    self.assertEqual(
        str(caught.warning),
        '"seed" is deprecated and will be removed in optax 0.2.7, use "key".')
    self.assertEqual(caught.filename, __file__)
    grads = _grads()
    ref = _adding.add_noise(0.1, 0.5, key=3)
    u1, _ = tx.update(grads, tx.init(grads))
    u2, _ = ref.update(grads, ref.init(grads))
    np.testing.assert_array_equal(u1['w'], u2['w'])

  def test_unusable_eta_and_gamma_raise_when_built(self):
    # A negative variance would give NaN noise; a string fails in update.
    with self.assertRaisesRegex(
        ValueError, r'^add_noise: eta must be non-negative, got -1.0$'):
      _adding.add_noise(-1.0, 0.55, key=0)
    with self.assertRaisesRegex(
        ValueError, r'^add_noise: eta must be non-negative, got nan$'):
      _adding.add_noise(float('nan'), 0.55, key=0)
    with self.assertRaisesRegex(
        TypeError, r'^add_noise: gamma must be a scalar number or a schedule'):
      _adding.add_noise(0.01, jnp.ones(2), key=0)
    # Arrays and schedules keep only their type checked.
    _adding.add_noise(jnp.asarray(-1.0), lambda count: 0.5, key=0)

  def test_key_and_seed(self):
    # As upstream 0.2.8: the seed's DeprecationWarning, then the error.
    with warnings.catch_warnings(record=True) as caught:
      warnings.simplefilter('always')
      with self.assertRaisesRegex(ValueError, 'add_noise: give only one'):
        _adding.add_noise(0.1, 0.5, key=1, seed=3)
    self.assertEqual([w.category for w in caught], [DeprecationWarning])

  def test_no_key_warns(self):
    with warnings.catch_warnings(record=True) as caught:
      warnings.simplefilter('always')
      _adding.add_noise(0.1, 0.5)
    # Upstream 0.2.8's warning, category and message.
    self.assertEqual(
        [(w.category, str(w.message)) for w in caught],
        [(UserWarning, 'Specifying a key will be required in optax 0.2.7.')])
    self.assertEqual(caught[0].filename, __file__)


class AddNoiseDtypeTest(absltest.TestCase):

  def test_integer_leaf_error_names_the_key_path(self):
    # Upstream 0.2.8 and the fork raised jax.random.normal's ValueError
    # ('dtype argument to `normal` must be a float or complex dtype'),
    # which names no leaf.
    tx = _adding.add_noise(0.1, 0.5, key=0)
    updates = {'w': jnp.ones(2), 'layer': {'count': jnp.array([1, 2])}}
    with self.assertRaisesRegex(
        TypeError, r"add_noise: .*\['layer'\]\['count'\] has dtype int32"):
      tx.update(updates, tx.init(updates))


class AddDecayedWeightsInputsTest(parameterized.TestCase):

  @parameterized.product(schedule=(False, True), use_jit=(False, True))
  def test_broadcast_gradient_raises_naming_key_path(self, schedule,
                                                     use_jit):
    # A (1, 3) row for a (4, 3) param broadcast against the param, and a
    # chain after it (adadelta, lars) took the (4, 3) sum for a gradient.
    tx = _adding.add_decayed_weights(
        (lambda count: 0.1) if schedule else 0.1)
    params = {'layer': {'w': jnp.ones((4, 3))}, 'b': jnp.ones(3)}
    grads = {'layer': {'w': jnp.ones((1, 3))}, 'b': jnp.ones(3)}
    update = jax.jit(tx.update) if use_jit else tx.update
    with self.assertRaisesRegex(
        ValueError, r"add_decayed_weights: at \['layer'\]\['w'\] the"
        r' gradient has shape \(1, 3\) but the param has shape \(4, 3\)'):
      update(grads, tx.init(params), params)

  def test_vector_weight_decay_raises_type_error_when_built(self):
    with self.assertRaisesRegex(
        TypeError, r'add_decayed_weights: weight_decay must be a scalar'
        r' number or a schedule, got an array of shape \(2,\)'):
      _adding.add_decayed_weights(jnp.asarray([0.1, 0.1]))


if __name__ == '__main__':
  absltest.main()
