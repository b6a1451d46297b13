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
"""Tests for optax.experimental._aggregating."""

from absl.testing import absltest
from absl.testing import parameterized
import jax
import jax.numpy as jnp
import numpy as np

from optax._src import alias
from optax._src import base
from optax._src import utils
from optax._src.testing import probes
from optax.experimental import _aggregating as agg


def _batches(seed, num, batch_size=4):
  rng = np.random.default_rng(seed)
  return [{'w': rng.normal(size=(batch_size, 3)).astype(np.float32) + 2,
           'b': rng.normal(size=(batch_size,)).astype(np.float32)}
          for _ in range(num)]


_PARAMS = {'w': jnp.zeros(3), 'b': jnp.zeros(())}


def _maybe_jit(fn, use_jit):
  return jax.jit(fn) if use_jit else fn


class NamespaceTest(absltest.TestCase):

  def test_utils_reachable_as_upstream(self):
    # Upstream 0.2.8 exposes optax.experimental.aggregating.utils.
    import optax.experimental  # pylint: disable=import-outside-toplevel
    self.assertIs(optax.experimental.aggregating.utils, utils)


class BatchSizeTest(absltest.TestCase):
  """get_batch_size_from_per_elt_updates."""

  def test_sizes(self):
    tree = {'a': jnp.zeros((3, 4, 5)), 'b': jnp.zeros((3, 4))}
    self.assertEqual(agg.get_batch_size_from_per_elt_updates(tree, 0), 3)
    self.assertEqual(agg.get_batch_size_from_per_elt_updates(tree, [0, 1]),
                     12)
    self.assertEqual(
        agg.get_batch_size_from_per_elt_updates({'a': jnp.zeros((2, 3))},
                                                None), 6)

  def test_errors(self):
    tree = {'a': jnp.zeros((3, 4)), 'b': jnp.zeros((2, 4))}
    with self.assertRaisesRegex(ValueError, r'same batch size.*\[3, 2\]'):
      agg.get_batch_size_from_per_elt_updates(tree, 0)
    with self.assertRaisesRegex(ValueError, 'no leaves'):
      agg.get_batch_size_from_per_elt_updates({}, 0)


class AverageTest(parameterized.TestCase):
  """average_per_element_updates, accumulate_avg_updates and their chain."""

  @parameterized.parameters((0,), (1,), ((0, 1),), (None,))
  def test_average_per_element_updates(self, axis):
    x = np.random.default_rng(0).normal(size=(2, 3, 4)).astype(np.float32)
    aggregator = agg.average_per_element_updates(axis)
    self.assertIsInstance(aggregator, agg.Aggregator)
    self.assertIsInstance(aggregator, base.GradientTransformationExtraArgs)
    out, state = aggregator.update({'x': jnp.asarray(x)},
                                   aggregator.init(None), foo='ignored')
    np.testing.assert_allclose(out['x'], x.mean(axis=axis), rtol=1e-6)
    self.assertEqual(state, base.EmptyState())

  @parameterized.parameters(False, True)
  def test_accumulate_avg_updates(self, use_jit):
    steps = 3
    tx = agg.accumulate_avg_updates(steps)
    update = _maybe_jit(tx.update, use_jit)
    state = tx.init(_PARAMS)
    batches = _batches(0, 2 * steps, batch_size=1)
    for i, batch in enumerate(batches):
      updates = jax.tree.map(lambda x: jnp.asarray(x[0]), batch)
      out, state = update(updates, state)
      ready = (i + 1) % steps == 0
      self.assertEqual(bool(state.ready), ready)
      self.assertEqual(int(state.micro_step), (i + 1) % steps)
      self.assertEqual(state.micro_step.dtype, jnp.int32)
      for name in ('w', 'b'):
        if ready:
          window = [b[name][0] for b in batches[i + 1 - steps:i + 1]]
          np.testing.assert_allclose(out[name], np.mean(window, axis=0),
                                     rtol=1e-6)
        else:
          np.testing.assert_array_equal(out[name], 0.0)

  def test_accumulate_avg_updates_edge_cases(self):
    self.assertEqual(agg.accumulate_avg_updates(1).init(_PARAMS),
                     base.EmptyState())
    with self.assertRaisesRegex(ValueError, 'accumulation_steps.*got 0'):
      agg.accumulate_avg_updates(0)
    with self.assertRaisesRegex(ValueError, 'accumulation_steps.*got nan'):
      agg.accumulate_avg_updates(float('nan'))
    tx = agg.accumulate_avg_updates(2)
    with self.assertRaisesRegex(ValueError, 'structure of the params'):
      tx.update({'w': jnp.zeros(3)}, tx.init(_PARAMS))

  def test_accumulate_avg_updates_dtypes_and_shapes(self):
    tx = agg.accumulate_avg_updates(2)
    params = {'w': jnp.zeros(3, jnp.bfloat16)}
    shapes = jax.eval_shape(
        tx.init, {'w': jax.ShapeDtypeStruct((3,), jnp.bfloat16)})
    self.assertEqual(shapes.avg_grad['w'].dtype, jnp.bfloat16)
    state = tx.init(params)
    out, state = tx.update({'w': jnp.ones(3, jnp.float32)}, state)
    self.assertEqual(out['w'].dtype, jnp.float32)  # The updates' dtype.
    self.assertEqual(state.avg_grad['w'].dtype, jnp.bfloat16)  # No drift.

  @parameterized.parameters(1, 3)
  def test_average_incrementally_updates(self, steps):
    aggregator = agg.average_incrementally_updates(0, steps)
    self.assertIsInstance(aggregator, agg.Aggregator)
    state = aggregator.init(_PARAMS)
    batches = _batches(1, steps)
    for batch in batches:
      out, state = aggregator.update(jax.tree.map(jnp.asarray, batch), state)
    for name in ('w', 'b'):
      pooled = np.concatenate([b[name] for b in batches])
      np.testing.assert_allclose(out[name], pooled.mean(axis=0), rtol=1e-5)


  def test_average_incrementally_updates_without_element_axis(self):
    # per_elt_axis=None: the updates are already means (as upstream 0.2.8),
    # they are only averaged over the batches, not over their own axes.
    tx = agg.average_incrementally_updates(None, 2)
    self.assertNotIsInstance(tx, agg.Aggregator)
    state = tx.init(_PARAMS)
    first = {'w': jnp.array([1.0, 2.0, 3.0]), 'b': jnp.array(4.0)}
    second = {'w': jnp.array([3.0, 0.0, -1.0]), 'b': jnp.array(0.0)}
    _, state = tx.update(first, state)
    out, state = tx.update(second, state)
    np.testing.assert_allclose(out['w'], [2.0, 1.0, 1.0])
    np.testing.assert_allclose(out['b'], 2.0)
    self.assertTrue(bool(state.ready))
    one_step = agg.average_incrementally_updates(None, 1)
    out, _ = one_step.update(first, one_step.init(_PARAMS))
    np.testing.assert_array_equal(out['w'], first['w'])

class MeanAndVarianceTest(parameterized.TestCase):
  """Per-element means and squared deviations, and their moving averages."""

  def test_single_batch(self):
    aggregator = agg.get_per_element_mean_and_sum_sq_diff_grads()
    batch = _batches(2, 1)[0]
    (mean, aux), state = aggregator.update(jax.tree.map(jnp.asarray, batch),
                                           aggregator.init(_PARAMS))
    self.assertEqual(state, base.EmptyState())
    self.assertEqual(aux['sample_size'], 4)
    for name in ('w', 'b'):
      x = batch[name].astype(np.float64)
      np.testing.assert_allclose(mean[name], x.mean(0), rtol=1e-6)
      np.testing.assert_allclose(aux['sum_sq_diff_grads'][name],
                                 ((x - x.mean(0)) ** 2).sum(0), rtol=1e-5)

  def test_several_axes(self):
    aggregator = agg.get_per_element_mean_and_sum_sq_diff_grads((0, 1))
    x = np.arange(24.0).reshape(2, 3, 4)
    (mean, aux), _ = aggregator.update(jnp.asarray(x), aggregator.init(None))
    flat = x.reshape(6, 4)
    np.testing.assert_allclose(mean, flat.mean(0))
    np.testing.assert_allclose(aux['sum_sq_diff_grads'],
                               ((flat - flat.mean(0)) ** 2).sum(0))
    self.assertEqual(aux['sample_size'], 6)

  @parameterized.parameters(False, True)
  def test_accumulated_batches_match_pooled_statistics(self, use_jit):
    steps = 3
    aggregator = agg.get_per_element_mean_and_sum_sq_diff_grads(0, steps)
    update = _maybe_jit(aggregator.update, use_jit)
    state = aggregator.init(_PARAMS)
    batches = _batches(3, steps)
    for i, batch in enumerate(batches):
      (mean, aux), state = update(jax.tree.map(jnp.asarray, batch), state)
      if i < steps - 1:
        self.assertFalse(bool(state.ready))
        self.assertEqual(int(aux['sample_size']), 0)
        np.testing.assert_array_equal(mean['w'], 0.0)
    self.assertTrue(bool(state.ready))
    self.assertEqual(int(state.micro_step), 0)
    np.testing.assert_array_equal(state.mean_grads['w'], 0.0)
    self.assertEqual(int(aux['sample_size']), 12)
    for name in ('w', 'b'):
      pooled = np.concatenate([b[name] for b in batches]).astype(np.float64)
      np.testing.assert_allclose(mean[name], pooled.mean(0), rtol=1e-5)
      np.testing.assert_allclose(aux['sum_sq_diff_grads'][name],
                                 pooled.var(0) * len(pooled), rtol=1e-5)

  def test_ema_and_bias_correction(self):
    decay = 0.7
    tx = agg.track_per_element_mean_and_variance_with_ema(decay)
    state = tx.init({'w': jnp.zeros(3)})
    rng = np.random.default_rng(4)
    m = v = np.zeros(3)
    for t in range(1, 5):
      g = rng.normal(size=3)
      s = rng.uniform(size=3) * 4
      n = 5
      out, state = tx.update({'w': jnp.asarray(g, jnp.float32)}, state,
                             sum_sq_diff_grads={'w': jnp.asarray(s)},
                             sample_size=n, other='ignored')
      np.testing.assert_array_equal(out['w'], np.float32(g))
      m = decay * m + (1 - decay) * g
      v = decay * v + (1 - decay) * s / (n - 1)
      self.assertEqual(int(state.count), t)
      np.testing.assert_allclose(state.mean_grads_ema['w'], m, rtol=1e-5)
      np.testing.assert_allclose(state.variance_grads_ema['w'], v, rtol=1e-5)
      mean, var = agg.get_unbiased_mean_and_variance_ema(state)
      np.testing.assert_allclose(mean['w'], m / (1 - decay ** t), rtol=1e-5)
      np.testing.assert_allclose(var['w'], v / (1 - decay ** t), rtol=1e-5)

  def test_ema_of_constants_is_unbiased(self):
    tx = agg.track_per_element_mean_and_variance_with_ema(0.9)
    state = tx.init(jnp.zeros(2))
    for _ in range(3):
      _, state = tx.update(jnp.array([1.5, -2.0]), state,
                           sum_sq_diff_grads=jnp.array([3.0, 6.0]),
                           sample_size=4)
    mean, var = agg.get_unbiased_mean_and_variance_ema(state)
    np.testing.assert_allclose(mean, [1.5, -2.0], rtol=1e-5)
    np.testing.assert_allclose(var, [1.0, 2.0], rtol=1e-5)

  def test_ema_validation_and_dtypes(self):
    with self.assertRaisesRegex(ValueError, r'ema_decay.*\[0, 1\).*1.5'):
      agg.track_per_element_mean_and_variance_with_ema(1.5)
    tx = agg.track_per_element_mean_and_variance_with_ema(0.5)
    state = tx.init({'w': jnp.zeros(2, jnp.bfloat16)})
    _, state = tx.update({'w': jnp.ones(2, jnp.bfloat16)}, state,
                         sum_sq_diff_grads={'w': jnp.ones(2)}, sample_size=3)
    self.assertEqual(state.mean_grads_ema['w'].dtype, jnp.bfloat16)
    self.assertEqual(state.variance_grads_ema['w'].dtype, jnp.bfloat16)
    # Before any update the bias correction divides 0 by 0.
    fresh = tx.init({'w': jnp.zeros(2)})
    self.assertTrue(np.all(np.isnan(
        agg.get_unbiased_mean_and_variance_ema(fresh)[0]['w'])))


def _counting(offset=0.0):
  """A transformation that adds `offset` and counts its calls."""

  def init_fn(params):
    del params
    return jnp.zeros([], jnp.int32)

  def update_fn(updates, state, params=None):
    del params
    return jax.tree.map(lambda u: u + offset, updates), state + 1

  return base.GradientTransformation(init_fn, update_fn)


class ProcessTest(parameterized.TestCase):
  """process and add_mean_variance_to_opt."""

  def test_pipeline(self):
    # Per-element clipping to norm 1 (on the stacked rows), then the mean,
    # then a scaling.
    def clip_rows(updates, params):
      del params
      norms = jnp.linalg.norm(updates, axis=1, keepdims=True)
      return updates / jnp.maximum(norms, 1.0)

    tx = agg.process(base.stateless(clip_rows),
                     agg.average_per_element_updates(),
                     _counting(offset=10.0))
    self.assertIsInstance(tx, agg.Aggregator)
    x = np.array([[3.0, 4.0], [0.3, 0.4], [0.0, -10.0]], np.float32)
    out, state = tx.update(jnp.asarray(x), tx.init(jnp.zeros(2)),
                           extra='ignored')
    clipped = x / np.maximum(np.linalg.norm(x, axis=1, keepdims=True), 1.0)
    np.testing.assert_allclose(out, clipped.mean(0) + 10.0, rtol=1e-6)
    self.assertEqual(int(state[2]), 1)

  def test_plain_transformation_as_aggregator(self):
    tx = agg.process(_counting(), base.identity(), _counting())
    self.assertNotIsInstance(tx, agg.Aggregator)
    self.assertIsInstance(tx, base.GradientTransformationExtraArgs)
    out, state = tx.update(jnp.ones((2, 3)), tx.init(None))
    np.testing.assert_array_equal(out, np.ones((2, 3)))
    self.assertEqual((int(state[0]), int(state[2])), (1, 1))

  @parameterized.parameters(False, True)
  def test_postprocessor_waits_for_ready(self, use_jit):
    tx = agg.process(_counting(), agg.average_incrementally_updates(0, 2),
                     _counting(offset=1.0))
    update = _maybe_jit(tx.update, use_jit)
    state = tx.init(jnp.zeros(2))
    batches = [jnp.array([[1.0, 2.0], [3.0, 4.0]]),
               jnp.array([[5.0, 6.0], [7.0, 8.0]])]
    out, state = update(batches[0], state)
    np.testing.assert_array_equal(out, [0.0, 0.0])  # Skipped: zeros.
    self.assertEqual((int(state[0]), int(state[2])), (1, 0))
    out, state = update(batches[1], state)
    np.testing.assert_array_equal(out, [5.0, 6.0])  # Mean 4, 5 plus 1.
    self.assertEqual((int(state[0]), int(state[2])), (2, 1))

  def test_conditional_holds_no_barrier(self):
    # adam's constant hyperparameters are made before the conditional that
    # skips it, so its branch stays elementwise (a fused select on GPU).
    tx = agg.process(base.identity(), agg.average_incrementally_updates(0, 2),
                     alias.adam(1e-3))
    params = jnp.zeros(2)
    jaxpr = jax.make_jaxpr(tx.update)(
        jnp.ones((2, 2)), tx.init(params), params).jaxpr
    self.assertEqual(probes.barriers_in_conditionals(jaxpr), [0])
    # adam's updates on the averaged batches, zeros in between; eager and
    # jitted.
    batches = [jnp.array([[1.0, 2.0], [3.0, 4.0]]),
               jnp.array([[5.0, 6.5], [7.0, 8.25]])] * 2
    outs = []
    for update in (tx.update, jax.jit(tx.update)):
      state = tx.init(params)
      for batch in batches:
        out, state = update(batch, state)
        outs.append(np.asarray(out))
    expected = [np.zeros(2), None, np.zeros(2), None]
    reference = alias.adam(1e-3)
    ref_state = reference.init(params)
    for i, batch in enumerate(batches):
      if i % 2:
        mean = (batches[i - 1].mean(0) + batch.mean(0)) / 2
        expected[i], ref_state = reference.update(mean, ref_state)
    for got in (outs[:4], outs[4:]):
      for g, e in zip(got, expected):
        np.testing.assert_allclose(g, e, rtol=1e-6)

  def test_aux_goes_to_the_postprocessor(self):
    seen = {}

    def init_fn(params):
      del params
      return base.EmptyState()

    def update_fn(updates, state, params=None, **extra_args):
      del params
      seen.update(extra_args)
      return updates, state

    post = base.GradientTransformationExtraArgs(init_fn, update_fn)
    tx = agg.process(base.identity(),
                     agg.get_per_element_mean_and_sum_sq_diff_grads(),
                     post, aggregator_has_aux=True)
    tx.update(jnp.array([[1.0], [3.0]]), tx.init(jnp.zeros(1)), step=3)
    self.assertEqual(sorted(seen), ['sample_size', 'step', 'sum_sq_diff_grads'])
    self.assertEqual(seen['sample_size'], 2)
    np.testing.assert_array_equal(seen['sum_sq_diff_grads'], [2.0])

  @parameterized.parameters(1, 2)
  def test_add_mean_variance_to_opt(self, steps):
    lr = 0.1
    tx = agg.add_mean_variance_to_opt(alias.sgd(lr), ema_decay=0.8,
                                      accumulation_steps=steps)
    state = tx.init(_PARAMS)
    batches = _batches(5, steps)
    for batch in batches:
      out, state = tx.update(jax.tree.map(jnp.asarray, batch), state)
    mean, var = agg.get_unbiased_mean_and_variance_ema(state)
    for name in ('w', 'b'):
      pooled = np.concatenate([b[name] for b in batches]).astype(np.float64)
      np.testing.assert_allclose(out[name], -lr * pooled.mean(0), rtol=1e-5)
      # One EMA step: the bias-corrected estimates are the sample moments.
      np.testing.assert_allclose(mean[name], pooled.mean(0), rtol=1e-5)
      np.testing.assert_allclose(var[name], pooled.var(0, ddof=1), rtol=1e-5)


if __name__ == '__main__':
  absltest.main()
