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
"""Tests for the clipping transformations, against NumPy references."""

import math

from absl.testing import absltest
from absl.testing import parameterized
import jax
import jax.numpy as jnp
import numpy as np

from optax._src import base
from optax._src import test_utils
from optax.transforms import _clipping


def _tree(seed, scale=1.0, dtype=np.float32):
  rng = np.random.RandomState(seed)
  shapes = {'bias': (5,), 'dense': (3, 4), 'heads': (2, 3, 4),
            'conv': (2, 2, 3, 4)}
  return {k: jnp.asarray(scale * rng.randn(*s), dtype)
          for k, s in shapes.items()}


def _np(tree):
  return jax.tree.map(lambda x: np.asarray(x, np.float64), tree)


def _update(tx, updates, params=None, jit=False):
  def f(u, p):
    return tx.update(u, tx.init(p if p is not None else u), p)[0]
  return (jax.jit(f) if jit else f)(updates, params)


# NumPy references, written from the definitions.


def _ref_global_norm_clip(tree, c):
  norm = math.sqrt(sum(np.sum(np.abs(x) ** 2) for x in tree.values()))
  return {k: x if norm <= c else x / norm * c for k, x in tree.items()}


def _ref_block_rms_clip(tree, tau):
  out = {}
  for k, x in tree.items():
    rms = np.sqrt(np.mean(np.abs(x) ** 2))
    with np.errstate(divide='ignore'):
      out[k] = x / max(1.0, rms / np.float64(tau))
  return out


def _ref_unitwise_norm(x, axis=None):
  if axis is None:
    if np.squeeze(x).ndim <= 1:
      axis = tuple(range(x.ndim))
    elif x.ndim <= 3:
      axis = 0
    else:
      assert x.ndim <= 5, x.shape
      axis = tuple(range(x.ndim - 1))
  norms = np.sqrt(np.sum(np.abs(x) ** 2, axis=axis, keepdims=True))
  return np.broadcast_to(norms, x.shape)


def _ref_agc(grads, params, clipping, eps, axis=None):
  out = {}
  for k in grads:
    g, p = grads[k], params[k]
    g_norm = _ref_unitwise_norm(g, axis)
    max_norm = np.maximum(_ref_unitwise_norm(p, axis), eps) * clipping
    clipped = g * max_norm / np.maximum(g_norm, 1e-6)
    out[k] = np.where(g_norm < max_norm, g, clipped)
  return out


def _ref_per_example(leaves, clip_norms):
  """Clips each example of each group of leaves and sums the examples."""
  sums, counts = [], []
  for group, c in zip(leaves, clip_norms):
    n = group[0].shape[0]
    total = [np.zeros(g.shape[1:]) for g in group]
    count = 0
    for i in range(n):
      norm = math.sqrt(sum(np.sum(np.abs(g[i]) ** 2) for g in group))
      factor = min(1.0, c / norm) if norm > 0 else 1.0
      count += norm > c
      for t, g in zip(total, group):
        t += factor * g[i]
    sums.append(total)
    counts.append(count)
  return sums, counts


class ClipTest(parameterized.TestCase):

  @parameterized.product(max_delta=[0.0, 0.3, 1.0, 5.0], jit=[False, True])
  def test_values(self, max_delta, jit):
    updates = _tree(0)
    got = _update(_clipping.clip(max_delta), updates, jit=jit)
    want = jax.tree.map(
        lambda x: np.clip(x, -max_delta, max_delta), _np(updates))
    test_utils.assert_trees_all_close(got, want)

  def test_keeps_dtype(self):
    updates = _tree(0, dtype=jnp.bfloat16)
    got = _update(_clipping.clip(0.5), updates)
    test_utils.assert_trees_all_equal_dtypes(got, updates)
    want = jax.tree.map(lambda x: np.clip(x, -0.5, 0.5), _np(updates))
    test_utils.assert_trees_all_close(got, want, rtol=1e-2)

  def test_state_is_empty(self):
    tx = _clipping.clip(1.0)
    self.assertEqual(tx.init(_tree(0)), base.ClipState())


class ClipByGlobalNormTest(parameterized.TestCase):

  @parameterized.product(
      scale=[0.01, 10.0], max_norm=[0.0, 0.5, 100.0], jit=[False, True])
  def test_values(self, scale, max_norm, jit):
    updates = _tree(1, scale)
    got = _update(_clipping.clip_by_global_norm(max_norm), updates, jit=jit)
    test_utils.assert_trees_all_close(
        got, _ref_global_norm_clip(_np(updates), max_norm), atol=1e-7)

  def test_result_has_the_max_norm(self):
    updates = _tree(2, 10.0)
    got = _update(_clipping.clip_by_global_norm(2.0), updates)
    norm = math.sqrt(sum(np.sum(x ** 2) for x in _np(got).values()))
    self.assertAlmostEqual(norm, 2.0, places=5)

  def test_zero_updates_stay_finite(self):
    got = _update(_clipping.clip_by_global_norm(1.0), {'a': jnp.zeros(3)})
    np.testing.assert_array_equal(got['a'], np.zeros(3))

  @parameterized.product(
      max_norm=[0.0, 0, 37.0], jit=[False, True])
  def test_norm_at_max_norm_passes_unchanged_pull_1752(self, max_norm, jit):
    # An update whose global norm equals max_norm is not clipped: zeros
    # under max_norm 0 stay zeros (upstream divides 0 by 0: NaN), and
    # (12, 35), of norm 37, under 37 is returned as given (rescaled by
    # 37 / 37 its first entry would be float32(12 / 37) * 37 = 11.999999).
    updates = ({'a': jnp.zeros(3), 'b': jnp.zeros((2, 2))} if max_norm == 0
               else {'a': jnp.array([12.0]), 'b': jnp.array([[35.0]])})
    got = _update(_clipping.clip_by_global_norm(max_norm), updates, jit=jit)
    test_utils.assert_trees_all_equal(got, updates)

  @parameterized.parameters(False, True)
  def test_zero_max_norm_clips_nonzero_updates_to_zero(self, jit):
    # Norm 5 > 0: u / 5 * 0.
    got = _update(_clipping.clip_by_global_norm(0.0),
                  {'a': jnp.array([3.0, -4.0]), 'b': jnp.zeros(2)}, jit=jit)
    np.testing.assert_array_equal(got['a'], [0.0, -0.0])
    np.testing.assert_array_equal(got['b'], [0.0, 0.0])

  @parameterized.parameters(jnp.bfloat16, jnp.float16)
  def test_low_precision_keeps_dtype(self, dtype):
    updates = _tree(3, 10.0, dtype)
    got = _update(_clipping.clip_by_global_norm(1.0), updates)
    test_utils.assert_trees_all_equal_dtypes(got, updates)
    # The factor is computed in float32 and the result rounded once.
    want = _ref_global_norm_clip(_np(updates), 1.0)
    test_utils.assert_trees_all_close(got, want, rtol=4e-3)

  def test_complex(self):
    updates = {'z': jnp.array([1 + 1j, 3.0 - 2j], jnp.complex64)}
    got = _update(_clipping.clip_by_global_norm(1.0), updates)
    self.assertEqual(got['z'].dtype, jnp.complex64)
    want = _ref_global_norm_clip(
        {'z': np.array([1 + 1j, 3.0 - 2j])}, 1.0)
    test_utils.assert_trees_all_close(got, want)

  def test_none_leaves_pass_through(self):
    updates = {'a': jnp.array([3.0, 4.0]), 'b': None}
    got = _update(_clipping.clip_by_global_norm(1.0), updates)
    self.assertIsNone(got['b'])
    np.testing.assert_allclose(got['a'], [0.6, 0.8], rtol=1e-6)

  def test_negative_max_norm_raises(self):
    with self.assertRaisesRegex(
        ValueError, r'clip_by_global_norm: max_norm .* got -1\.0'):
      _clipping.clip_by_global_norm(-1.0)

  def test_traced_max_norm(self):
    updates = _tree(4, 10.0)

    @jax.jit
    def f(c):
      return _update(_clipping.clip_by_global_norm(c), updates)

    test_utils.assert_trees_all_close(
        f(jnp.asarray(2.0)), _ref_global_norm_clip(_np(updates), 2.0))


class ClipByBlockRmsTest(parameterized.TestCase):

  @parameterized.product(
      scale=[0.01, 10.0], threshold=[0.0, 0.1, 100.0], jit=[False, True])
  def test_values(self, scale, threshold, jit):
    updates = _tree(5, scale)
    got = _update(_clipping.clip_by_block_rms(threshold), updates, jit=jit)
    test_utils.assert_trees_all_close(
        got, _ref_block_rms_clip(_np(updates), threshold), atol=1e-7)

  def test_zero_leaf_stays_zero(self):
    got = _update(_clipping.clip_by_block_rms(1.0), {'a': jnp.zeros(3)})
    np.testing.assert_array_equal(got['a'], np.zeros(3))

  def test_keeps_dtype(self):
    updates = _tree(6, 10.0, jnp.bfloat16)
    got = _update(_clipping.clip_by_block_rms(1.0), updates)
    test_utils.assert_trees_all_equal_dtypes(got, updates)
    test_utils.assert_trees_all_close(
        got, _ref_block_rms_clip(_np(updates), 1.0), rtol=4e-3)

  def test_negative_threshold_raises(self):
    with self.assertRaisesRegex(ValueError, 'clip_by_block_rms: threshold'):
      _clipping.clip_by_block_rms(-0.5)


class UnitwiseTest(parameterized.TestCase):

  def test_scalar(self):
    np.testing.assert_allclose(
        _clipping.unitwise_norm(jnp.asarray(-3.0)), 3.0)

  @parameterized.parameters(
      ((5,), None), ((3, 4), None), ((2, 3, 4), None), ((2, 2, 3, 4), None),
      ((2, 2, 2, 3, 4), None), ((2, 3, 4), 1), ((2, 3, 4), -1),
      ((2, 3, 4), (0, 1)), ((2, 3, 4), (1, 2)), ((1, 5), None),
      ((5, 1), None), ((1, 1, 5), None), ((1, 2, 3), None),
      ((1, 1, 1, 1, 1, 4), None), ((2, 2, 2, 2, 2, 3), (0, 1, 2, 3, 4)))
  def test_unitwise_norm(self, shape, axis):
    x = np.random.RandomState(7).randn(*shape).astype(np.float32)
    got = _clipping.unitwise_norm(jnp.asarray(x), axis=axis)
    self.assertEqual(got.shape, shape)
    np.testing.assert_allclose(
        got, _ref_unitwise_norm(x.astype(np.float64), axis), rtol=1e-6)

  def test_unitwise_norm_vector_with_unit_axes(self):
    # One axis of size other than 1: a single unit, whatever the rank.
    got = _clipping.unitwise_norm(jnp.array([[3.0, 4.0]]))
    np.testing.assert_allclose(got, [[5.0, 5.0]])

  def test_unitwise_norm_six_axes_needs_axis(self):
    with self.assertRaisesRegex(ValueError, r'unitwise_norm: .*\(2, 2, 2'):
      _clipping.unitwise_norm(jnp.ones((2, 2, 2, 2, 2, 3)))

  def test_unitwise_norm_dtypes(self):
    self.assertEqual(
        _clipping.unitwise_norm(jnp.ones(3, jnp.bfloat16)).dtype,
        jnp.bfloat16)
    z = _clipping.unitwise_norm(jnp.array([3 + 4j, 0j], jnp.complex64))
    self.assertEqual(z.dtype, jnp.float32)
    np.testing.assert_allclose(z, [5.0, 5.0])

  def test_unitwise_clip(self):
    g_norm = jnp.array([1.0, 5.0, 0.0, 5e-8])
    max_norm = jnp.array([2.0, 2.0, 0.0, 1e-8])
    grad = jnp.array([1.0, 5.0, 0.0, 5e-8])
    got = _clipping.unitwise_clip(g_norm, max_norm, grad)
    # 5e-8 is below div_eps: the divisor is 1e-6.
    np.testing.assert_allclose(got, [1.0, 2.0, 0.0, 5e-8 * 1e-8 / 1e-6],
                               rtol=1e-6)

  @parameterized.product(
      clipping=[0.0, 0.5, 10.0], axis=[None, (0, 1)], jit=[False, True])
  def test_adaptive_grad_clip(self, clipping, axis, jit):
    grads = _tree(8, 3.0)
    params = _tree(9)
    if axis is not None:
      grads = {k: v for k, v in grads.items() if v.ndim >= 2}
      params = {k: v for k, v in params.items() if v.ndim >= 2}
    tx = _clipping.adaptive_grad_clip(clipping, eps=0.1, axis=axis)
    got = _update(tx, grads, params, jit=jit)
    want = _ref_agc(_np(grads), _np(params), clipping, 0.1, axis)
    test_utils.assert_trees_all_close(got, want, rtol=2e-6, atol=1e-7)

  def test_adaptive_grad_clip_zero_params_use_eps(self):
    tx = _clipping.adaptive_grad_clip(2.0)
    got = _update(tx, {'z': jnp.ones(3)}, {'z': jnp.zeros(3)})
    np.testing.assert_allclose(got['z'], np.full(3, 2e-3 / math.sqrt(3)),
                               rtol=1e-6)

  def test_adaptive_grad_clip_keeps_dtype(self):
    grads = _tree(10, 3.0, jnp.bfloat16)
    params = _tree(11)
    got = _update(_clipping.adaptive_grad_clip(0.1), grads, params)
    test_utils.assert_trees_all_equal_dtypes(got, grads)
    want = _ref_agc(_np(grads), _np(params), 0.1, 1e-3)
    test_utils.assert_trees_all_close(got, want, rtol=8e-3)

  def test_adaptive_grad_clip_needs_params(self):
    tx = _clipping.adaptive_grad_clip(0.1)
    with self.assertRaisesRegex(ValueError, 'adaptive_grad_clip: params'):
      tx.update(_tree(0), tx.init(None))

  @parameterized.parameters(('clipping', (-1.0,)), ('eps', (1.0, -1e-3)))
  def test_adaptive_grad_clip_validation(self, name, args):
    with self.assertRaisesRegex(ValueError, f'adaptive_grad_clip: {name}'):
      _clipping.adaptive_grad_clip(*args)


def _batched(seed):
  rng = np.random.RandomState(seed)
  grads = [rng.randn(6, 3), 2.0 * rng.randn(6, 2, 5), rng.randn(6, 1)]
  for g in grads:
    g[2] = 0.0  # An example whose gradient is zero.
  grads[0][4] *= 1e-3  # A small example, left unclipped.
  return [jnp.asarray(g, jnp.float32) for g in grads]


class PerExampleTest(parameterized.TestCase):

  @parameterized.product(clip=[0.0, 0.5, 2.0, 100.0], jit=[False, True])
  def test_global_norm_clip(self, clip, jit):
    grads = _batched(12)
    fn = _clipping.per_example_global_norm_clip
    summed, num_clipped = (jax.jit(fn) if jit else fn)(grads, clip)
    (want,), (want_count,) = _ref_per_example([_np(grads)], [clip])
    test_utils.assert_trees_all_close(summed, want, rtol=2e-6, atol=1e-6)
    self.assertEqual(num_clipped.dtype, jnp.int32)
    self.assertEqual(int(num_clipped), want_count)

  def test_global_norm_clip_tree_and_dtype(self):
    grads = {'a': jnp.array([[3.0, 4.0], [0.3, 0.4]], jnp.bfloat16)}
    summed, num_clipped = _clipping.per_example_global_norm_clip(grads, 1.0)
    self.assertEqual(summed['a'].dtype, jnp.bfloat16)
    np.testing.assert_allclose(
        np.asarray(summed['a'], np.float32), [0.9, 1.2], rtol=1e-2)
    self.assertEqual(int(num_clipped), 1)

  def test_integer_grads_sum_in_float(self):
    # Clipped integer gradients are fractional: they are summed in float32,
    # not truncated back to int32.
    grads = [jnp.array([[0, 0], [3, 4]]), jnp.array([[1], [0]])]
    for fn in (_clipping.per_example_global_norm_clip,
               _clipping.per_example_layer_norm_clip):
      summed, _ = fn(grads, 1.0)
      self.assertEqual([s.dtype for s in summed], [jnp.float32] * 2)
    summed, _ = _clipping.per_example_global_norm_clip(grads, 1.0)
    np.testing.assert_allclose(summed[0], [0.6, 0.8], rtol=1e-6)
    np.testing.assert_allclose(summed[1], [1.0], rtol=1e-6)

  @parameterized.product(
      clip=[0.0, 0.5, 2.0, 100.0], uniform=[True, False], jit=[False, True])
  def test_layer_norm_clip(self, clip, uniform, jit):
    grads = _batched(13)
    fn = _clipping.per_example_layer_norm_clip
    if jit:
      fn = jax.jit(fn, static_argnums=2)
    summed, num_clipped = fn(grads, clip, uniform)
    sizes = [math.prod(g.shape[1:]) for g in grads]
    if uniform:
      clips = [clip / math.sqrt(len(grads))] * len(grads)
    else:
      clips = [clip * math.sqrt(n / sum(sizes)) for n in sizes]
    want, want_counts = _ref_per_example([[g] for g in _np(grads)], clips)
    test_utils.assert_trees_all_close(
        summed, [w[0] for w in want], rtol=2e-6, atol=1e-6)
    self.assertEqual([int(c) for c in num_clipped], want_counts)

  def test_layer_clips_bound_the_global_norm(self):
    grads = [jnp.array([[30.0, 40.0]]), jnp.array([[1.0, 2.0, 2.0]])]
    for uniform in (True, False):
      summed, _ = _clipping.per_example_layer_norm_clip(grads, 1.0, uniform)
      norm = math.sqrt(sum(float(jnp.sum(s ** 2)) for s in summed))
      self.assertAlmostEqual(norm, 1.0, places=5)

  @parameterized.parameters(
      _clipping.per_example_global_norm_clip,
      _clipping.per_example_layer_norm_clip)
  def test_validation(self, fn):
    name = fn.__name__
    with self.assertRaisesRegex(ValueError, f'{name}: .*clip'):
      fn([jnp.ones((2, 3))], -1.0)
    with self.assertRaisesRegex(ValueError, f'{name}: .*batch size'):
      fn([jnp.ones(3), jnp.ones((2, 1))], 1.0)
    with self.assertRaisesRegex(ValueError, f'{name}: grads'):
      fn([], 1.0)


class ContractTest(parameterized.TestCase):
  """Properties shared by the clipping transformations."""

  FACTORIES = (
      ('clip', lambda: _clipping.clip(0.1)),
      ('clip_by_global_norm', lambda: _clipping.clip_by_global_norm(0.1)),
      ('clip_by_block_rms', lambda: _clipping.clip_by_block_rms(0.1)),
      ('adaptive_grad_clip', lambda: _clipping.adaptive_grad_clip(0.1)),
  )

  @parameterized.named_parameters(*FACTORIES)
  def test_built_inside_jit_used_outside(self, make):
    box = []

    @jax.jit
    def build(x):
      box.append(make())
      return x

    build(jnp.zeros([]))
    params = _tree(14)
    with jax.checking_leaks():
      tx = box[0]
      state = tx.init(params)
      got = jax.jit(tx.update)(_tree(15), state, params)[0]
    test_utils.assert_trees_all_equal_shapes(got, params)

  @parameterized.named_parameters(*FACTORIES)
  def test_init_on_shapes(self, make):
    tx = make()
    shapes = jax.tree.map(
        lambda x: jax.ShapeDtypeStruct(x.shape, x.dtype), _tree(0))
    self.assertEqual(jax.eval_shape(tx.init, shapes), base.EmptyState())

  @parameterized.product(
      [dict(name=n, make=m) for n, m in FACTORIES],
      dtype=[jnp.float32, jnp.bfloat16])
  def test_strict_promotion(self, name, make, dtype):
    del name
    tx = make()
    params = _tree(16, dtype=dtype)
    with jax.numpy_dtype_promotion('strict'), \
        jax.numpy_rank_promotion('raise'):
      got = jax.jit(tx.update)(_tree(17, dtype=dtype), tx.init(params),
                               params)[0]
    test_utils.assert_trees_all_equal_dtypes(got, params)

  def test_per_example_strict_promotion(self):
    grads = [g.astype(jnp.bfloat16) for g in _batched(18)]
    with jax.numpy_dtype_promotion('strict'), \
        jax.numpy_rank_promotion('raise'):
      summed, _ = _clipping.per_example_global_norm_clip(grads, 1.0)
      layered, _ = _clipping.per_example_layer_norm_clip(grads, 1.0, False)
    for s, l in zip(summed, layered):
      self.assertEqual(s.dtype, jnp.bfloat16)
      self.assertEqual(l.dtype, jnp.bfloat16)


if __name__ == '__main__':
  absltest.main()
