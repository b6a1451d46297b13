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
"""optax.tree against the same maths on the raveled tree.

A pytree is one vector: its norm, sum, max, inner product and elementwise
arithmetic equal those of ``np.concatenate`` of its raveled leaves, in
float64. Empty trees, zero-size leaves, integer and complex leaves and the
moment updates' formulas (their docstrings') are swept.
"""

import warnings

from absl.testing import absltest
from absl.testing import parameterized
import jax
import jax.flatten_util
import jax.numpy as jnp
import numpy as np

import optax
from optax import tree as otree
from optax._src.testing import reference_math as ref


def _tree(seed=0, scale=1.0):
  rng = np.random.RandomState(seed)
  return {'a': jnp.asarray(scale * rng.randn(3), jnp.float32),
          'b': (jnp.asarray(scale * rng.randn(2, 2), jnp.float32),
                jnp.zeros((0,), jnp.float32)),
          'c': jnp.asarray(scale * rng.randn(), jnp.float32)}


def _flat(tree):
  return ref.leaves_f64(jax.tree.leaves(tree))


class ReductionsTest(parameterized.TestCase):

  @parameterized.parameters(
      (None, False, 1.0), (None, True, 1.0), (1, False, 1.0),
      (1, True, 1e-15), (2, False, 1e-30), (np.inf, False, 1.0),
      (np.inf, True, 1e15), ('fro', False, 1e30), (np.inf, False, 1e-30))
  def test_norm_is_norm_of_raveled_tree(self, ord_, squared, scale):
    tree = _tree(1, scale)
    flat = _flat(tree)
    np_ord = 2 if ord_ in (None, 'fro') else ord_
    want = np.linalg.norm(flat, np_ord)
    if squared:
      want = want ** 2
    got = float(otree.norm(tree, ord=ord_, squared=squared))
    sum_sq = np.float32(np.sum(flat ** 2))
    if not np.isfinite(np.float32(want)) or np.float32(want) == 0:
      return  # Not representable in float32: nothing to compare.
    if np_ord == 2 and (not np.isfinite(sum_sq) or sum_sq == 0):
      # The squares leave float32's range: the result is then that of
      # jnp.linalg.norm of the raveled tree (0 or inf), not the exact norm.
      raveled = jax.flatten_util.ravel_pytree(tree)[0]
      want = float(jnp.linalg.norm(raveled)) ** (2 if squared else 1)
      self.assertEqual(got, want)
      return
    np.testing.assert_allclose(got, want, rtol=1e-5)

  def test_norm_of_empty_and_zero_trees(self):
    # The norm of a vector without entries is 0, that of zeros 0.
    for ord_ in (None, 1, np.inf):
      for squared in (False, True):
        for tree in ({}, {'a': jnp.zeros((0,))}, {'a': jnp.zeros(3)}):
          self.assertEqual(
              float(otree.norm(tree, ord=ord_, squared=squared)), 0.0)
    self.assertTrue(np.isnan(float(
        otree.norm({'a': jnp.array([1.0, jnp.nan])}, ord=np.inf))))

  def test_sum_vdot_max_min_size(self):
    x, y = _tree(2), _tree(3)
    fx, fy = _flat(x), _flat(y)
    np.testing.assert_allclose(float(otree.sum(x)), fx.sum(), rtol=1e-5)
    np.testing.assert_allclose(float(otree.vdot(x, y)), fx @ fy, rtol=1e-5)
    self.assertEqual(float(otree.max(x)), np.float32(fx.max()))
    self.assertEqual(float(otree.min(x)), np.float32(fx.min()))
    self.assertEqual(otree.size(x), fx.size)

  def test_complex_vdot_conjugates_the_first(self):
    x = {'a': jnp.array([1 + 2j, 3j], jnp.complex64)}
    y = {'a': jnp.array([2 - 1j, 1 + 1j], jnp.complex64)}
    np.testing.assert_allclose(
        complex(otree.vdot(x, y)), np.vdot(_flat(x), _flat(y)), rtol=1e-6)
    np.testing.assert_allclose(
        float(otree.norm(x)), np.linalg.norm(_flat(x)), rtol=1e-6)

  def test_empty_tree_reductions(self):
    self.assertEqual(float(otree.sum({})), 0.0)
    self.assertEqual(otree.size({}), 0)
    self.assertEqual(float(otree.vdot({}, {})), 0.0)
    # The max of no number is -inf (the identity of max), the min +inf.
    self.assertEqual(float(otree.max({})), -np.inf)
    self.assertEqual(float(otree.min({})), np.inf)


class ElementwiseTest(parameterized.TestCase):

  def test_arithmetic_matches_raveled(self):
    x, y, z = _tree(4), _tree(5), _tree(6)
    fx, fy, fz = _flat(x), _flat(y), _flat(z)
    cases = [
        (otree.add(x, y, z), fx + fy + fz),
        (otree.sub(x, y), fx - fy),
        (otree.mul(x, y), fx * fy),
        (otree.div(x, y), fx / fy),
        (otree.scale(0.5, x), 0.5 * fx),
        (otree.add_scale(x, -2.0, y), fx - 2.0 * fy),
        (otree.clip(x, -0.5, 0.25), np.clip(fx, -0.5, 0.25)),
        (otree.where(otree.full_like(x, True, jnp.bool_), x, y), fx),
        (otree.zeros_like(x), np.zeros_like(fx)),
        (otree.ones_like(x), np.ones_like(fx)),
        (otree.full_like(x, 3.0), np.full_like(fx, 3.0)),
    ]
    for i, (got, want) in enumerate(cases):
      with self.subTest(i=i):
        self.assertEqual(jax.tree.structure(got), jax.tree.structure(x))
        np.testing.assert_allclose(_flat(got), want, rtol=1e-6, atol=1e-7)

  def test_where_selects_per_entry(self):
    x, y = _tree(7), _tree(8)
    cond = jax.tree.map(lambda a: a > 0, x)
    np.testing.assert_array_equal(
        _flat(otree.where(cond, x, y)),
        np.where(_flat(x) > 0, _flat(x), _flat(y)))

  def test_conj_real_cast(self):
    x = {'a': jnp.array([1 + 2j, -3j], jnp.complex64)}
    np.testing.assert_array_equal(_flat(otree.conj(x)), np.conj(_flat(x)))
    np.testing.assert_array_equal(_flat(otree.real(x)), np.real(_flat(x)))
    cast = otree.cast(_tree(), jnp.bfloat16)
    self.assertEqual({l.dtype for l in jax.tree.leaves(cast)},
                     {jnp.dtype(jnp.bfloat16)})
    like = otree.cast_like(_tree(), cast)
    self.assertEqual({l.dtype for l in jax.tree.leaves(like)},
                     {jnp.dtype(jnp.bfloat16)})

  def test_dtype(self):
    self.assertEqual(otree.dtype(_tree()), jnp.float32)
    mixed = {'a': jnp.zeros(2, jnp.float32), 'b': jnp.zeros(2, jnp.bfloat16)}
    self.assertEqual(otree.dtype(mixed, 'promote'), jnp.float32)
    self.assertEqual(otree.dtype(mixed, 'lowest'), jnp.bfloat16)
    self.assertEqual(otree.dtype(mixed, 'highest'), jnp.float32)
    with self.assertRaises(ValueError):
      otree.dtype(mixed)

  def test_allclose(self):
    x = _tree(9)
    self.assertTrue(bool(otree.allclose(x, otree.scale(1 + 1e-7, x))))
    self.assertFalse(bool(otree.allclose(x, otree.scale(1.1, x))))


class MomentsTest(parameterized.TestCase):
  """The docstrings' moving averages, per entry, in float64."""

  @parameterized.parameters((1, 0.9), (2, 0.0), (2, 0.9), (3, 1.0))
  def test_update_moment(self, order, decay):
    g, m = _tree(10), _tree(11)
    fg, fm = _flat(g), _flat(m)
    np.testing.assert_allclose(
        _flat(otree.update_moment(g, m, decay, order)),
        (1 - decay) * fg ** order + decay * fm, rtol=1e-5, atol=1e-7)
    np.testing.assert_allclose(
        _flat(otree.update_moment_per_elem_norm(g, m, decay, order)),
        (1 - decay) * (np.abs(fg) ** 2 if order == 2 else fg ** order)
        + decay * fm, rtol=1e-5, atol=1e-7)

  def test_update_moment_per_elem_norm_complex_uses_modulus(self):
    g = {'a': jnp.array([3 + 4j, -1j], jnp.complex64)}
    m = {'a': jnp.zeros(2, jnp.float32)}
    got = otree.update_moment_per_elem_norm(g, m, 0.5, 2)
    np.testing.assert_allclose(_flat(got), 0.5 * np.array([25.0, 1.0]))
    got = otree.update_moment_per_elem_norm(g, m, 0.5, 1)
    np.testing.assert_allclose(_flat(got), 0.5 * np.array([5.0, 1.0]),
                               rtol=1e-6)

  @parameterized.parameters(0.0, 0.5, 0.99)
  def test_update_infinity_moment(self, decay):
    g, m = _tree(12), otree.full_like(_tree(), 0.3)
    np.testing.assert_allclose(
        _flat(otree.update_infinity_moment(g, m, decay, 1e-3)),
        np.maximum(np.abs(_flat(g)) + 1e-3, decay * _flat(m)), rtol=1e-6)

  @parameterized.parameters((0.5, 1), (0.9, 2), (0.999, 10), (0.999, 1000))
  def test_bias_correction(self, decay, count):
    m = _tree(13)
    decay32 = float(np.float32(decay))  # The decay as float32 holds it.
    np.testing.assert_allclose(
        _flat(otree.bias_correction(m, decay, count)),
        _flat(m) / (1 - decay32 ** count), rtol=1e-5)


class StructureAndRandomTest(parameterized.TestCase):

  def test_batch_shape(self):
    got = otree.batch_shape(_tree(), (4,))
    for leaf, orig in zip(jax.tree.leaves(got), jax.tree.leaves(_tree())):
      self.assertEqual(leaf.shape, (4,) + orig.shape)

  def test_split_key_like_and_random_like(self):
    key = jax.random.key(0)
    tree = _tree()
    keys = otree.split_key_like(key, tree)
    want = jax.random.split(key, len(jax.tree.leaves(tree)))
    for got, expected in zip(jax.tree.leaves(keys), want):
      np.testing.assert_array_equal(jax.random.key_data(got),
                                    jax.random.key_data(expected))
    sample = otree.random_like(key, tree, jax.random.uniform)
    for leaf, k, orig in zip(jax.tree.leaves(sample), want,
                             jax.tree.leaves(tree)):
      np.testing.assert_array_equal(
          leaf, jax.random.uniform(k, orig.shape, orig.dtype))
    raw = otree.unwrap_random_key_data({'k': key})
    np.testing.assert_array_equal(raw['k'], jax.random.key_data(key))

  def test_get_set_and_paths(self):
    state = optax.adam(1e-3).init({'w': jnp.ones(2)})
    count = otree.get(state, 'count')
    self.assertEqual(int(count), 0)
    new = otree.set(state, count=jnp.asarray(5, jnp.int32))
    self.assertEqual(int(otree.get(new, 'count')), 5)
    self.assertLen(otree.get_all_with_path(state, 'mu'), 1)
    self.assertIsNone(otree.get(state, 'nonexistent'))

  def test_map_params(self):
    params = {'w': jnp.ones(2)}
    tx = optax.adam(1e-3)
    state = tx.init(params)
    doubled = otree.map_params(tx, lambda p: 2 * p + 1, state)
    mu = otree.get(doubled, 'mu')
    np.testing.assert_array_equal(mu['w'], np.ones(2))


class DeprecatedNamesTest(parameterized.TestCase):

  def test_tree_utils_names_compute_the_same(self):
    # optax.tree_utils.tree_x is optax.tree.x (or a deprecated wrapper of
    # it): the same values.
    x, y = _tree(14), _tree(15)
    with warnings.catch_warnings():
      warnings.simplefilter('ignore', DeprecationWarning)
      pairs = [
          (optax.tree_utils.tree_add(x, y), otree.add(x, y)),
          (optax.tree_utils.tree_norm(x, ord=1), otree.norm(x, ord=1)),
          (optax.tree_utils.tree_vdot(x, y), otree.vdot(x, y)),
          (optax.tree_utils.tree_sum(x), otree.sum(x)),
      ]
    for got, want in pairs:
      np.testing.assert_array_equal(_flat(got), _flat(want))


if __name__ == '__main__':
  absltest.main()
