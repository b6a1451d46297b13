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
"""Tests for differentially private aggregation (``_privacy``)."""

import warnings

from absl.testing import absltest
from absl.testing import parameterized
import jax
import jax.numpy as jnp
import numpy as np

from optax._src import test_utils
from optax._src import transform
from optax._src.testing import probes
from optax.contrib import _privacy
from optax.schedules import _inject
from optax.transforms import _accumulation
from optax.transforms import _combining


def _np_clipped_mean(per_example, clip):
  """Per-example global-norm clipping, summed and averaged (float64)."""
  leaves = [np.asarray(g, np.float64) for g in per_example]
  batch = leaves[0].shape[0]
  norms = np.sqrt(sum(np.sum(g.reshape(batch, -1)**2, axis=1)
                      for g in leaves))
  factors = np.minimum(1.0, clip / np.maximum(norms, 1e-30))
  return [np.tensordot(factors, g, axes=1) / batch for g in leaves]


def _expected_noise(key, shapes, std, batch):
  """The noise of one step: the key is split into a new key and one key per
  leaf (in leaf order), each leaf gets N(0, std^2) / batch."""
  new_key, *keys = jax.random.split(key, len(shapes) + 1)
  return new_key, [np.asarray(jax.random.normal(k, s), np.float64) * std
                   / batch for k, s in zip(keys, shapes)]


class DifferentiallyPrivateAggregateTest(parameterized.TestCase):

  def setUp(self):
    super().setUp()
    rng = np.random.default_rng(0)
    self.params = {'a': jnp.zeros(3), 'b': jnp.zeros((2, 2))}
    self.grads = [
        {'a': jnp.asarray(rng.standard_normal((4, 3)), jnp.float32),
         'b': jnp.asarray(3 * rng.standard_normal((4, 2, 2)), jnp.float32)}
        for _ in range(3)]

  @parameterized.parameters(False, True)
  def test_without_noise_matches_reference(self, use_jit):
    tx = _privacy.differentially_private_aggregate(1.0, 0.0, key=0)
    state = tx.init(self.params)
    update = jax.jit(tx.update) if use_jit else tx.update
    for g in self.grads:
      updates, state = update(g, state)
      want = _np_clipped_mean([g['a'], g['b']], 1.0)
      np.testing.assert_allclose(updates['a'], want[0], rtol=1e-5, atol=1e-7)
      np.testing.assert_allclose(updates['b'], want[1], rtol=1e-5, atol=1e-7)

  def test_noise_matches_key_derivation(self):
    clip, multiplier = 2.0, 1.5
    tx = _privacy.differentially_private_aggregate(clip, multiplier, key=7)
    state = tx.init(self.params)
    key = jax.random.key(7)
    for g in self.grads:
      updates, state = tx.update(g, state)
      key, noise = _expected_noise(key, [(3,), (2, 2)], clip * multiplier, 4)
      want = _np_clipped_mean([g['a'], g['b']], clip)
      np.testing.assert_allclose(updates['a'], want[0] + noise[0],
                                 rtol=1e-5, atol=1e-6)
      np.testing.assert_allclose(updates['b'], want[1] + noise[1],
                                 rtol=1e-5, atol=1e-6)
      np.testing.assert_array_equal(jax.random.key_data(state.rng_key),
                                    jax.random.key_data(key))

  def test_noise_scale(self):
    tx = _privacy.differentially_private_aggregate(0.5, 2.0, key=1)
    grads = {'w': jnp.zeros((5, 20000))}
    updates, _ = tx.update(grads, tx.init({'w': jnp.zeros(20000)}))
    # Zero gradients: the mean is pure noise of std C * sigma / B = 0.2.
    self.assertAlmostEqual(float(jnp.std(updates['w'])), 0.2, delta=0.005)
    self.assertAlmostEqual(float(jnp.mean(updates['w'])), 0.0, delta=0.005)

  def test_key_forms(self):
    def first_update(**kwargs):
      tx = _privacy.differentially_private_aggregate(1.0, 1.0, **kwargs)
      return tx.update(self.grads[0], tx.init(self.params))[0]

    reference = first_update(key=5)
    for kwargs in ({'key': jax.random.key(5)}, {'key': jax.random.PRNGKey(5)},
                   {'key': np.int64(5)}, {'key': jnp.asarray(5)}):
      test_utils.assert_trees_all_equal(first_update(**kwargs), reference)
    with warnings.catch_warnings(record=True) as caught:
      warnings.simplefilter('always')
      test_utils.assert_trees_all_equal(first_update(), first_update(key=0))
    self.assertEqual([(w.category, str(w.message).split('.')[0])
                      for w in caught],
                     [(UserWarning, 'Specifying a key will be required in'
                       ' optax 0')])

  def test_seed_is_deprecated_as_upstream_issue_20(self):
    # Upstream 0.2.8 warns with this class and text; the fork was silent.
    with warnings.catch_warnings(record=True) as caught:
      warnings.simplefilter('always')
      tx = _privacy.differentially_private_aggregate(1.0, 1.0, seed=5)
    self.assertEqual(
        [(w.category, str(w.message)) for w in caught],
        [(DeprecationWarning, '"seed" is deprecated and will be removed in'
          ' optax 0.2.7, use "key".')])
    # The warning points at the caller, not at optax.
    self.assertEqual(caught[0].filename, __file__)
    with_seed = tx.update(self.grads[0], tx.init(self.params))[0]
    tx = _privacy.differentially_private_aggregate(1.0, 1.0, key=5)
    test_utils.assert_trees_all_equal(
        with_seed, tx.update(self.grads[0], tx.init(self.params))[0])

  def test_errors(self):
    make = _privacy.differentially_private_aggregate
    with self.assertWarns(DeprecationWarning):
      with self.assertRaisesRegex(
          ValueError, r'differentially_private_aggregate: got key=1 and'
          r' seed=2\. Only one of seed or key can be specified'):
        make(1.0, 1.0, key=1, seed=2)
    with self.assertRaisesRegex(ValueError, 'int seed or a jax.random.key'):
      make(1.0, 1.0, key='seed')
    with self.assertRaisesRegex(ValueError, 'single key'):
      make(1.0, 1.0, key=jax.random.split(jax.random.key(0)))
    with self.assertRaisesRegex(ValueError, 'l2_norm_clip must be non-neg'):
      make(-1.0, 1.0, key=0)

  def test_nan_hyperparameters_are_rejected(self):
    # The old check (`value < 0`) let NaN through.
    make = _privacy.differentially_private_aggregate
    nan = float('nan')
    with self.assertRaisesRegex(
        ValueError, 'differentially_private_aggregate: l2_norm_clip must be'
        ' non-negative, got nan'):
      make(nan, 1.0, key=0)
    with self.assertRaisesRegex(
        ValueError, 'noise_multiplier must be non-negative, got nan'):
      make(1.0, nan, key=0)

  def test_bfloat16_and_state_type(self):
    tx = _privacy.differentially_private_aggregate(1.0, 0.5, key=0)
    grads = {'w': jnp.ones((2, 3), jnp.bfloat16)}
    state = tx.init({'w': jnp.zeros(3, jnp.bfloat16)})
    traces = []

    @jax.jit
    def step(state):
      traces.append(None)
      return tx.update(grads, state)

    for _ in range(3):
      updates, new_state = step(state)
      test_utils.assert_trees_all_equal_structs(new_state, state)
      state = new_state
    self.assertLen(traces, 1)
    self.assertEqual(updates['w'].dtype, jnp.bfloat16)

  @parameterized.named_parameters(
      ('aggregate',
       lambda: _privacy.differentially_private_aggregate(1.0, 0.1, key=0)),
      ('aggregate_key',
       lambda: _privacy.differentially_private_aggregate(1.0, 0.1, key=3)),
      ('dpsgd', lambda: _privacy.dpsgd(0.1, 1.0, 0.1, 0, momentum=0.9)),
  )
  def test_builds_without_arrays(self, make):
    _, new = probes.arrays_created_by(make)
    self.assertEqual(new, [])

  def test_built_in_jit_used_outside_without_leak(self):
    # Upstream made the key from the seed when the transformation was
    # built: built inside a trace, it closed over a tracer.
    built = []
    with jax.checking_leaks():

      @jax.jit
      def make(x):
        built.append(_privacy.dpsgd(0.1, 1.0, 0.5, key=4, momentum=0.5))
        return x

      make(jnp.zeros([]))
      tx = built[0]
      state = tx.init(self.params)
      step = jax.jit(tx.update)
      for g in self.grads:
        updates, state = step(g, state, self.params)
    self.assertTrue(all(bool(jnp.all(jnp.isfinite(u)))
                        for u in jax.tree.leaves(updates)))


class DpsgdTest(parameterized.TestCase):

  @parameterized.parameters((None, False), (0.9, False), (0.9, True))
  def test_matches_reference(self, momentum, nesterov):
    rng = np.random.default_rng(1)
    grads = [{'w': jnp.asarray(rng.standard_normal((3, 4)), jnp.float32)}
             for _ in range(3)]
    lr, clip, multiplier = 0.1, 1.0, 0.5
    tx = _privacy.dpsgd(lr, clip, multiplier, 3, momentum=momentum,
                        nesterov=nesterov)
    state = tx.init({'w': jnp.zeros(4)})
    key = jax.random.key(3)
    trace = np.zeros(4)
    for g in grads:
      updates, state = tx.update(g, state)
      key, noise = _expected_noise(key, [(4,)], clip * multiplier, 3)
      direction = _np_clipped_mean([g['w']], clip)[0] + noise[0]
      if momentum is not None:
        trace = momentum * trace + direction
        direction = momentum * trace + direction if nesterov else trace
      np.testing.assert_allclose(updates['w'], -lr * direction, rtol=1e-5,
                                 atol=1e-7)

  @parameterized.parameters(False, True)
  def test_with_params_is_the_chain_of_its_parts(self, use_jit):
    # Given the params, dpsgd is chain(aggregate, trace, scale): the same
    # updates and state, the per-example gradients checked without their
    # batch axis.
    rng = np.random.default_rng(2)
    params = {'w': jnp.zeros((2, 3)), 'b': jnp.zeros(3)}
    tx = _privacy.dpsgd(0.1, 1.0, 0.5, key=4, momentum=0.9)
    reference = _combining.chain(
        _privacy.differentially_private_aggregate(1.0, 0.5, key=4),
        _accumulation.trace(decay=0.9),
        transform.scale_by_learning_rate(0.1))
    update = jax.jit(tx.update) if use_jit else tx.update
    state, ref_state = tx.init(params), reference.init(params)
    self.assertEqual(jax.tree.structure(state), jax.tree.structure(ref_state))
    for _ in range(3):
      grads = jax.tree.map(
          lambda p: jnp.asarray(rng.standard_normal((4,) + p.shape),
                                jnp.float32), params)
      updates, state = update(grads, state, params)
      want, ref_state = reference.update(grads, ref_state, params)
      for key in params:
        np.testing.assert_allclose(updates[key], want[key], rtol=1e-6,
                                   atol=1e-8)
    with self.assertRaisesRegex(
        ValueError, r"dpsgd: at \['w'\] the per-example gradient has shape"
        r' \(4, 1, 3\) but the param has shape \(2, 3\)\. Remedy: give one'
        r' gradient per example, shaped \(batch_size, 2, 3\)'):
      update(dict(grads, w=grads['w'][:, :1]), state, params)

  @parameterized.parameters(False, True)
  def test_integer_and_float0_per_example_gradients(self, use_jit):
    params = {'w': jnp.zeros(3), 'i': jnp.arange(2, dtype=jnp.int32)}
    int_grads = {'w': jnp.asarray([[3, 4, 0], [0, -1, 2]], jnp.int32),
                 'i': np.zeros((2, 2), jax.dtypes.float0)}
    float_grads = {'w': int_grads['w'].astype(jnp.float32),
                   'i': np.zeros((2, 2), jax.dtypes.float0)}
    tx = _privacy.dpsgd(0.1, 1.0, 0.0, key=0)
    update = jax.jit(tx.update) if use_jit else tx.update
    state = tx.init(params)
    got, _ = update(int_grads, state, params)
    want, _ = update(float_grads, state, params)
    self.assertEqual(got['w'].dtype, jnp.float32)
    np.testing.assert_array_equal(got['w'], want['w'])
    # Clipped to norm 1: ([0.6, 0.8, 0] + [0, -1, 2] / sqrt(5)) / 2 * -0.1.
    np.testing.assert_allclose(
        got['w'], -0.05 * (np.array([0.6, 0.8, 0.0])
                           + np.array([0.0, -1.0, 2.0]) / np.sqrt(5.0)),
        rtol=1e-6)
    np.testing.assert_array_equal(got['i'], np.zeros(2))
    self.assertEqual(got['i'].dtype, jnp.int32)  # apply_updates keeps it.

  def _first_update(self, *args, **kwargs):
    grads = {'w': jnp.asarray([[3.0, 4.0], [0.3, 0.4]])}
    tx = _privacy.dpsgd(0.1, 1.0, 0.5, *args, **kwargs)
    return tx.update(grads, tx.init({'w': jnp.zeros(2)}))[0]['w']

  def test_key_is_the_fourth_argument_issue_1671(self):
    # Noise of seed 3: the key is split into (new key, leaf key).
    _, leaf_key = jax.random.split(jax.random.key(3))
    noise = np.asarray(jax.random.normal(leaf_key, (2,)))
    # Clipped sum: [0.6, 0.8] + [0.3, 0.4]; mean over 2; times -0.1.
    expected = -0.1 * (np.array([0.9, 1.2]) + 0.5 * noise) / 2
    with warnings.catch_warnings(record=True) as caught:
      warnings.simplefilter('always')
      for args, kwargs in (((3,), {}), ((), {'key': 3}),
                           ((), {'key': jax.random.key(3)}),
                           ((), {'key': jax.random.PRNGKey(3)})):
        np.testing.assert_allclose(self._first_update(*args, **kwargs),
                                   expected, rtol=1e-5)
    self.assertEqual(caught, [])

  def test_seed_is_keyword_only_and_deprecated(self):
    # Upstream main's dpsgd words it so (0.2.8's dpsgd, the aggregate's).
    with warnings.catch_warnings(record=True) as caught:
      warnings.simplefilter('always')
      with_seed = self._first_update(seed=3)
    self.assertEqual(
        [(w.category, str(w.message)) for w in caught],
        [(DeprecationWarning, '"seed" is deprecated and will be removed in a'
          ' future version. Use "key" instead.')])
    np.testing.assert_array_equal(with_seed, self._first_update(3))
    with self.assertWarns(DeprecationWarning):
      with self.assertRaisesRegex(
          ValueError, r'dpsgd: got key=3 and seed=3\. Only one of seed or'
          ' key can be specified'):
        _privacy.dpsgd(0.1, 1.0, 0.5, 3, seed=3)

  def test_no_key_warns_and_uses_key_0(self):
    with self.assertWarnsRegex(
        UserWarning, '^Specifying a key will be required in optax 0.2.7. '
        'dpsgd: no key was given, key 0 is used'):
      without = self._first_update()
    np.testing.assert_array_equal(without, self._first_update(0))

  def test_inject_hyperparams_lists_the_seed_or_key(self):
    # Upstream 0.2.8's `seed=0` lists an int32 'seed'; the key, given as an
    # int, is an integer hyperparameter too.
    for kwargs in ({'seed': 0}, {'key': 0}):
      with warnings.catch_warnings():
        warnings.simplefilter('ignore', DeprecationWarning)
        tx = _inject.inject_hyperparams(_privacy.dpsgd)(
            learning_rate=0.1, l2_norm_clip=1.0, noise_multiplier=0.5,
            **kwargs)
        state = tx.init({'w': jnp.zeros(2)})
      name = next(iter(kwargs))
      self.assertEqual(state.hyperparams[name].dtype, jnp.int32)
      self.assertEqual(int(state.hyperparams[name]), 0)


if __name__ == '__main__':
  absltest.main()
