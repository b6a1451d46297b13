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
"""Tests for the pytree arithmetic of `optax.tree_utils._tree_math`."""

from absl.testing import absltest
from absl.testing import parameterized
import jax
import jax.numpy as jnp
import numpy as np

from optax._src import test_utils
from optax.tree_utils import _tree_math as tm


def _np_tree(seed=0):
  """A small tree of NumPy float32 arrays (the reference values)."""
  rng = np.random.RandomState(seed)
  return {
      'a': rng.randn(3).astype(np.float32),
      'b': (rng.randn(2, 2).astype(np.float32),
            np.float32(rng.randn())),
  }


def _flat(tree):
  return np.concatenate([np.ravel(x) for x in jax.tree.leaves(tree)])


def _to_jnp(tree):
  return jax.tree.map(jnp.asarray, tree)


class ElementwiseTest(parameterized.TestCase):
  """Element-wise operations against NumPy."""

  def setUp(self):
    super().setUp()
    self.x_np, self.y_np = _np_tree(0), _np_tree(1)
    self.z_np = _np_tree(2)
    self.x, self.y, self.z = map(_to_jnp, (self.x_np, self.y_np, self.z_np))

  @parameterized.parameters(True, False)
  def test_binary_ops(self, use_jit):
    cases = [
        (tm.tree_sub, np.subtract),
        (tm.tree_mul, np.multiply),
        (tm.tree_div, np.divide),
    ]
    for fn, np_fn in cases:
      op = jax.jit(fn) if use_jit else fn
      expected = jax.tree.map(np_fn, self.x_np, self.y_np)
      test_utils.assert_trees_all_close(op(self.x, self.y), expected)

  @parameterized.parameters(True, False)
  def test_add_several_trees(self, use_jit):
    add = jax.jit(tm.tree_add) if use_jit else tm.tree_add
    expected = jax.tree.map(lambda a, b, c: a + b + c,
                            self.x_np, self.y_np, self.z_np)
    test_utils.assert_trees_all_close(add(self.x, self.y, self.z), expected)
    test_utils.assert_trees_all_close(
        add(self.x, self.y), jax.tree.map(np.add, self.x_np, self.y_np))

  def test_scale_and_add_scale(self):
    test_utils.assert_trees_all_close(
        tm.tree_scale(0.5, self.x), jax.tree.map(lambda a: 0.5 * a, self.x_np))
    expected = jax.tree.map(lambda a, b: a - 2.0 * b, self.x_np, self.y_np)
    test_utils.assert_trees_all_close(
        tm.tree_add_scale(self.x, -2.0, self.y), expected)
    jitted = jax.jit(tm.tree_add_scale)(self.x, jnp.float32(-2.0), self.y)
    test_utils.assert_trees_all_close(jitted, expected)

  def test_python_scalar_keeps_bfloat16(self):
    x = {'a': jnp.array([1.0, 2.0], jnp.bfloat16)}
    self.assertEqual(tm.tree_scale(0.5, x)['a'].dtype, jnp.bfloat16)
    self.assertEqual(tm.tree_add_scale(x, 0.5, x)['a'].dtype, jnp.bfloat16)

  def test_none_leaves_pass_through(self):
    x = {'a': jnp.ones(2), 'n': None}
    self.assertIsNone(tm.tree_add(x, x)['n'])
    self.assertIsNone(tm.tree_scale(2.0, x)['n'])
    self.assertIsNone(tm.tree_add_scale(x, 2.0, x)['n'])
    # A None in the first tree of add_scale ignores the second tree's leaf.
    self.assertIsNone(tm.tree_add_scale({'n': None}, 1.0, {'n': 1.0})['n'])

  def test_structure_mismatch_raises(self):
    with self.assertRaises(ValueError):
      tm.tree_add({'a': jnp.ones(2)}, {'b': jnp.ones(2)})

  def test_conj_real_clip(self):
    c = {'a': jnp.array([1 + 2j, -3j]), 'b': jnp.array([1.0, -1.0])}
    conj = tm.tree_conj(c)
    np.testing.assert_array_equal(conj['a'], np.array([1 - 2j, 3j]))
    real = tm.tree_real(c)
    np.testing.assert_array_equal(real['a'], np.array([1.0, 0.0]))
    self.assertEqual(real['a'].dtype, jnp.float32)
    clipped = tm.tree_clip(self.x, -0.5, 0.25)
    test_utils.assert_trees_all_close(
        clipped, jax.tree.map(lambda a: np.clip(a, -0.5, 0.25), self.x_np))
    only_max = tm.tree_clip(self.x, max_value=0.0)
    test_utils.assert_trees_all_close(
        only_max, jax.tree.map(lambda a: np.minimum(a, 0.0), self.x_np))

  def test_where_scalar_condition(self):
    for cond, expected in ((True, self.x_np), (False, self.y_np)):
      test_utils.assert_trees_all_close(
          tm.tree_where(jnp.asarray(cond), self.x, self.y), expected)
      jitted = jax.jit(tm.tree_where)(jnp.asarray(cond), self.x, self.y)
      test_utils.assert_trees_all_close(jitted, expected)

  def test_where_tree_condition(self):
    cond = {'a': jnp.array([True, False, True]), 'b': (False, True)}
    expected = {
        'a': np.where([True, False, True], self.x_np['a'], self.y_np['a']),
        'b': (self.y_np['b'][0], self.x_np['b'][1]),
    }
    test_utils.assert_trees_all_close(
        tm.tree_where(cond, self.x, self.y), expected)

  def test_zeros_ones_full_like(self):
    tree = {'a': jnp.ones((2, 3), jnp.bfloat16), 'b': jnp.arange(3)}
    zeros = tm.tree_zeros_like(tree)
    test_utils.assert_trees_all_equal_dtypes(zeros, tree)
    test_utils.assert_trees_all_equal(
        zeros, {'a': np.zeros((2, 3)), 'b': np.zeros(3)})
    ones = tm.tree_ones_like(tree, dtype=jnp.float32)
    self.assertEqual(ones['b'].dtype, jnp.float32)
    test_utils.assert_trees_all_equal(
        ones, {'a': np.ones((2, 3)), 'b': np.ones(3)})
    full = tm.tree_full_like(tree, 2.5)
    np.testing.assert_array_equal(full['a'], np.full((2, 3), 2.5))
    np.testing.assert_array_equal(full['b'], np.full(3, 2))  # int leaf.

  def test_zeros_like_shape_dtype_struct(self):
    tree = {'a': jax.ShapeDtypeStruct((2,), jnp.bfloat16)}
    zeros = tm.tree_zeros_like(tree)
    self.assertEqual(zeros['a'].shape, (2,))
    self.assertEqual(zeros['a'].dtype, jnp.bfloat16)

  def test_batch_shape(self):
    tree = {'a': jnp.arange(3.0), 'b': 1.0, 'n': None}
    batched = tm.tree_batch_shape(tree, (4, 2))
    self.assertEqual(batched['a'].shape, (4, 2, 3))
    self.assertEqual(batched['b'].shape, (4, 2))
    self.assertIsNone(batched['n'])
    np.testing.assert_array_equal(batched['a'][3, 1], np.arange(3.0))

  def test_allclose(self):
    self.assertTrue(tm.tree_allclose(self.x, self.x))
    self.assertFalse(tm.tree_allclose(self.x, self.y))
    shifted = jax.tree.map(lambda a: a + 1e-3, self.x)
    self.assertFalse(tm.tree_allclose(self.x, shifted))
    self.assertTrue(tm.tree_allclose(self.x, shifted, atol=1e-2))
    nan = {'a': jnp.array([jnp.nan])}
    self.assertFalse(tm.tree_allclose(nan, nan))
    self.assertTrue(tm.tree_allclose(nan, nan, equal_nan=True))
    self.assertTrue(tm.tree_allclose({}, {}))


class ReductionTest(parameterized.TestCase):
  """Sums, extrema, sizes, inner products and norms against NumPy."""

  def setUp(self):
    super().setUp()
    self.x_np, self.y_np = _np_tree(0), _np_tree(1)
    self.x, self.y = _to_jnp(self.x_np), _to_jnp(self.y_np)

  @parameterized.parameters(True, False)
  def test_sum_max_min(self, use_jit):
    flat = _flat(self.x_np)
    maybe_jit = jax.jit if use_jit else (lambda f: f)
    np.testing.assert_allclose(maybe_jit(tm.tree_sum)(self.x), flat.sum(),
                               rtol=1e-6)
    np.testing.assert_allclose(maybe_jit(tm.tree_max)(self.x), flat.max())
    np.testing.assert_allclose(maybe_jit(tm.tree_min)(self.x), flat.min())

  def test_empty_tree_reductions(self):
    self.assertEqual(tm.tree_sum({}), 0)
    self.assertEqual(tm.tree_max({}), -np.inf)
    self.assertEqual(tm.tree_min({}), np.inf)
    self.assertEqual(tm.tree_size({}), 0)
    self.assertEqual(tm.tree_vdot({}, {}), 0)
    self.assertEqual(float(tm.tree_norm({})), 0.0)

  @parameterized.parameters(True, False)
  def test_max_min_skip_leaves_without_entries(self, use_jit):
    maybe_jit = jax.jit if use_jit else (lambda f: f)
    tree = {'a': jnp.array([[2.0, -1.0]]), 'e': jnp.zeros((4, 0, 5)),
            'i': jnp.zeros((0,), jnp.int8)}
    for fn, expected in ((tm.tree_max, 2.0), (tm.tree_min, -1.0)):
      result = maybe_jit(fn)(tree)
      self.assertEqual(float(result), expected)
      self.assertEqual(result.dtype, jnp.float32)

  @parameterized.parameters(np.int8, np.uint8, np.float32, jnp.bfloat16)
  def test_max_min_of_only_empty_leaves_are_infinite(self, dtype):
    tree = [jnp.zeros((0,), dtype), jnp.zeros((3, 0), dtype)]
    self.assertEqual(tm.tree_max(tree), -np.inf)
    self.assertEqual(tm.tree_min(tree), np.inf)

  def test_max_min_of_int_leaves_are_float32(self):
    # -inf and inf take part in the reduction, as for a tree of floats.
    tree = [jnp.array([3, -7], jnp.int8), jnp.zeros((0,), jnp.uint8)]
    self.assertEqual(tm.tree_max(tree).dtype, jnp.float32)
    self.assertEqual(float(tm.tree_max(tree)), 3.0)
    self.assertEqual(float(tm.tree_min(tree)), -7.0)

  def test_associative_sum_is_pairwise(self):
    # In float32, 1e8 + 1 == 1e8: the order of the additions shows.
    tree = [jnp.float32(1e8), jnp.float32(1.0), jnp.float32(-1e8),
            jnp.float32(1.0)]
    self.assertEqual(float(tm.tree_sum(tree)), 1.0)  # ((a + b) + c) + d
    self.assertEqual(  # (a + b) + (c + d)
        float(tm.tree_sum(tree, associative_reduction=True)), 0.0)
    np.testing.assert_allclose(
        tm.tree_sum(self.x, associative_reduction=True), _flat(self.x_np).sum(),
        rtol=1e-6)

  def test_size(self):
    tree = {'a': jnp.ones((2, 3)), 'b': 1.0, 'n': None,
            's': jax.ShapeDtypeStruct((4, 5), jnp.float32)}
    self.assertEqual(tm.tree_size(tree), 6 + 1 + 20)
    self.assertIsInstance(tm.tree_size(tree), int)

  @parameterized.parameters(True, False)
  def test_vdot(self, use_jit):
    vdot = jax.jit(tm.tree_vdot) if use_jit else tm.tree_vdot
    expected = np.dot(_flat(self.x_np), _flat(self.y_np))
    np.testing.assert_allclose(vdot(self.x, self.y), expected, rtol=1e-6)

  def test_vdot_complex_conjugates_first_argument(self):
    a = np.array([1 + 2j, 3j], np.complex64)
    b = np.array([2 - 1j, 1 + 1j], np.complex64)
    result = tm.tree_vdot({'a': jnp.asarray(a)}, {'a': jnp.asarray(b)})
    np.testing.assert_allclose(result, np.sum(np.conj(a) * b), rtol=1e-6)
    self.assertEqual(result.dtype, jnp.complex64)

  @parameterized.product(
      ord=(None, 2, 'fro', 1, jnp.inf, 'inf'),
      squared=(False, True),
      use_jit=(False, True))
  def test_norm(self, ord, squared, use_jit):  # pylint: disable=redefined-builtin
    flat = _flat(self.x_np).astype(np.float64)
    if ord in (None, 2, 'fro'):
      expected = np.sqrt(np.sum(flat ** 2))
    elif ord == 1:
      expected = np.sum(np.abs(flat))
    else:
      expected = np.max(np.abs(flat))
    if squared:
      expected = expected ** 2
    def norm(t):
      return tm.tree_norm(t, ord=ord, squared=squared)
    norm = jax.jit(norm) if use_jit else norm
    np.testing.assert_allclose(norm(self.x), expected, rtol=1e-6)

  @parameterized.parameters('infinity', 'inf', np.inf, float('inf'))
  def test_norm_infinity_spellings(self, ord):  # pylint: disable=redefined-builtin
    # Regression: ord='infinity' was rejected; upstream 0.2.8 accepts it.
    tree = {'a': jnp.array([3.0, -4.0]), 'b': jnp.array([[0.5]])}
    self.assertEqual(float(tm.tree_norm(tree, ord=ord)), 4.0)
    self.assertEqual(float(tm.tree_norm(tree, ord=ord, squared=True)), 16.0)

  @parameterized.parameters(-1, 3, 'nuc', 'infinite')
  def test_norm_rejects_other_ords(self, ord):  # pylint: disable=redefined-builtin
    with self.assertRaisesRegex(ValueError, 'tree_norm: ord must be'):
      tm.tree_norm({'a': jnp.ones(2)}, ord=ord)

  def test_vdot_matches_jnp_vdot_bits(self):
    # A complex contraction rounds like jnp.vdot, with or without jit.
    a = jax.random.normal(jax.random.key(0), (7,), jnp.complex64)
    b = jax.random.normal(jax.random.key(1), (7,), jnp.complex64)
    expected = np.asarray(jnp.vdot(a, b))
    np.testing.assert_array_equal(tm.tree_vdot(a, b), expected)
    np.testing.assert_array_equal(jax.jit(tm.tree_vdot)(a, b), expected)
    m = jnp.arange(6.0).reshape(2, 3)
    self.assertEqual(float(tm.tree_vdot(m, m)), 55.0)

  def test_norm_of_complex_uses_modulus(self):
    tree = {'a': jnp.array([3 + 4j]), 'b': jnp.array([-12.0])}
    np.testing.assert_allclose(tm.tree_norm(tree), 13.0, rtol=1e-6)
    np.testing.assert_allclose(tm.tree_norm(tree, ord=1), 17.0, rtol=1e-6)
    np.testing.assert_allclose(tm.tree_norm(tree, ord=jnp.inf), 12.0)
    self.assertEqual(tm.tree_norm(tree).dtype, jnp.float32)

  def test_mixed_dtype_reductions_under_strict_promotion(self):
    tree = {'a': jnp.array([3.0, -4.0], jnp.float32),
            'b': jnp.array([12.0], jnp.bfloat16)}
    with jax.numpy_dtype_promotion('strict'):
      results = {
          'sum': (tm.tree_sum(tree), 11.0),
          'vdot': (tm.tree_vdot(tree, tree), 169.0),
          'norm': (tm.tree_norm(tree), 13.0),
          'max': (tm.tree_max(tree), 12.0),
          'min': (tm.tree_min(tree), -4.0),
      }
    for name, (result, expected) in results.items():
      self.assertEqual(result.dtype, jnp.float32, name)
      np.testing.assert_allclose(result, expected, rtol=1e-6, err_msg=name)

  def test_norm_ignores_none(self):
    tree = {'a': jnp.array([3.0, 4.0]), 'n': None}
    np.testing.assert_allclose(tm.tree_norm(tree), 5.0)

  def test_norm_unsupported_ord(self):
    with self.assertRaisesRegex(ValueError, 'tree_norm: ord'):
      tm.tree_norm(self.x, ord=3)


def _np_moment(g, m, decay, order):
  return (1 - decay) * g ** order + decay * m


class MomentsTest(parameterized.TestCase):
  """Moving averages and bias correction: values, dtypes, conventions."""

  def setUp(self):
    super().setUp()
    rng = np.random.RandomState(3)
    self.g_np = {'w': rng.randn(4).astype(np.float32),
                 'b': rng.randn(2, 3).astype(np.float32)}
    self.m_np = jax.tree.map(lambda a: np.abs(a) * 0.3, self.g_np)
    self.g, self.m = _to_jnp(self.g_np), _to_jnp(self.m_np)

  @parameterized.product(order=(1, 2, 3), use_jit=(False, True))
  def test_update_moment(self, order, use_jit):
    fn = jax.jit(tm.tree_update_moment, static_argnums=3) if use_jit else (
        tm.tree_update_moment)
    result = fn(self.g, self.m, 0.9, order)
    expected = jax.tree.map(lambda g, m: _np_moment(g, m, 0.9, order),
                            self.g_np, self.m_np)
    test_utils.assert_trees_all_close(result, expected, rtol=2e-6, atol=1e-7)

  @parameterized.parameters(1, 2)
  def test_update_moment_per_elem_norm_real(self, order):
    result = tm.tree_update_moment_per_elem_norm(self.g, self.m, 0.99, order)
    # Order 2 uses |g|^2; other orders of real updates use g ** order.
    expected = jax.tree.map(lambda g, m: _np_moment(g, m, 0.99, order),
                            self.g_np, self.m_np)
    test_utils.assert_trees_all_close(result, expected, rtol=2e-6, atol=1e-7)

  @parameterized.parameters(1, 2, 3)
  def test_update_moment_per_elem_norm_complex(self, order):
    g = np.array([1 + 1j, -2j, 3.0], np.complex64)
    m = np.array([0.5, 1.0, 2.0], np.float32)
    result = tm.tree_update_moment_per_elem_norm(
        {'a': jnp.asarray(g)}, {'a': jnp.asarray(m)}, 0.5, order)
    expected = 0.5 * np.abs(g) ** order + 0.5 * m
    self.assertEqual(result['a'].dtype, jnp.float32)
    np.testing.assert_allclose(result['a'], expected, rtol=1e-6)

  def test_update_moment_complex_order_2_is_not_modulus(self):
    g = np.array([1 + 1j], np.complex64)
    result = tm.tree_update_moment(
        {'a': jnp.asarray(g)}, {'a': jnp.zeros(1, jnp.complex64)}, 0.5, 2)
    np.testing.assert_allclose(result['a'], 0.5 * g ** 2, rtol=1e-6)

  def test_update_infinity_moment(self):
    result = tm.tree_update_infinity_moment(self.g, self.m, 0.9, 1e-3)
    expected = jax.tree.map(
        lambda g, m: np.maximum(np.abs(g) + 1e-3, 0.9 * m),
        self.g_np, self.m_np)
    test_utils.assert_trees_all_close(result, expected, rtol=1e-6)

  @parameterized.product(count=(1, 2, 10), use_jit=(False, True))
  def test_bias_correction(self, count, use_jit):
    fn = jax.jit(tm.tree_bias_correction) if use_jit else (
        tm.tree_bias_correction)
    result = fn(self.m, 0.9, jnp.asarray(count, jnp.int32))
    expected = jax.tree.map(lambda m: m / (1 - 0.9 ** count), self.m_np)
    test_utils.assert_trees_all_close(result, expected, rtol=2e-6)

  def test_bias_correction_saturated_count_is_finite(self):
    result = tm.tree_bias_correction(
        self.m, 0.999, jnp.asarray(np.iinfo(np.int32).max, jnp.int32))
    test_utils.assert_trees_all_close(result, self.m_np)

  @parameterized.parameters(
      'tree_update_moment', 'tree_update_moment_per_elem_norm')
  def test_moments_keep_their_dtype(self, name):
    fn = getattr(tm, name)
    g = {'a': jnp.array([1.0, -2.0], jnp.float32)}
    m = {'a': jnp.array([0.5, 0.5], jnp.bfloat16)}
    result = fn(g, m, 0.9, 2)
    self.assertEqual(result['a'].dtype, jnp.bfloat16)
    # Computed in float32 and rounded once to bfloat16.
    expected = (0.1 * np.array([1.0, 4.0]) + 0.9 * 0.5).astype(jnp.bfloat16)
    np.testing.assert_array_equal(result['a'], expected)

  def test_infinity_moment_and_bias_correction_keep_dtype(self):
    m = {'a': jnp.array([0.5, 0.5], jnp.bfloat16)}
    g = {'a': jnp.array([1.0, -2.0], jnp.float32)}
    self.assertEqual(
        tm.tree_update_infinity_moment(g, m, 0.9, 1e-8)['a'].dtype,
        jnp.bfloat16)
    corrected = tm.tree_bias_correction(m, 0.9, jnp.asarray(3))
    self.assertEqual(corrected['a'].dtype, jnp.bfloat16)
    np.testing.assert_array_equal(
        corrected['a'],
        np.full(2, 0.5 / (1 - np.float32(0.9) ** 3)).astype(jnp.bfloat16))

  @parameterized.parameters(
      'tree_update_moment', 'tree_update_moment_per_elem_norm',
      'tree_update_infinity_moment')
  def test_python_and_array_decay_give_identical_bits(self, name):
    # Hyperparameter convention: a Python float and an injected float32
    # array must give the same bits (upstream issue #1532).
    fn = getattr(tm, name)
    from_python = fn(self.g, self.m, 0.9, 2)
    from_array = fn(self.g, self.m, jnp.asarray(0.9, jnp.float32), 2)
    jitted = jax.jit(fn, static_argnums=3)(
        self.g, self.m, jnp.asarray(0.9, jnp.float32), 2)
    test_utils.assert_trees_all_equal(from_python, from_array)
    test_utils.assert_trees_all_close(from_python, jitted, rtol=1e-6)

  def test_bias_correction_python_and_array_decay_identical(self):
    count = jnp.asarray(7, jnp.int32)
    test_utils.assert_trees_all_equal(
        tm.tree_bias_correction(self.m, 0.999, count),
        tm.tree_bias_correction(self.m, jnp.float32(0.999), count))

  @parameterized.parameters(
      ('tree_update_moment', (0.9, 2)),
      ('tree_update_moment_per_elem_norm', (0.9, 2)),
      ('tree_update_infinity_moment', (0.9, 0.0)))
  def test_mismatch_names_the_key_path(self, name, args):
    fn = getattr(tm, name)
    moments = {'a': jnp.zeros(3), 'b': {'c': jnp.zeros(2)}}
    with self.assertRaisesRegex(
        ValueError, name + r": at \['b'\]\['c'\] the update has shape \(4,\)"
        r' but the optimizer state has shape \(2,\)'):
      fn({'a': jnp.ones(3), 'b': {'c': jnp.ones(4)}}, moments, *args)
    with self.assertRaisesRegex(
        ValueError, name + r": the updates and the optimizer state differ in"
        r" structure at \['b'\]: a dict with keys \['d'\] != a dict with"
        r" keys \['c'\]"):
      fn({'a': jnp.ones(3), 'b': {'d': jnp.ones(2)}}, moments, *args)

  def test_none_update_leaves_give_none(self):
    g = {'a': jnp.ones(2), 'n': None}
    m = {'a': jnp.zeros(2), 'n': None}
    for fn in (tm.tree_update_moment, tm.tree_update_moment_per_elem_norm):
      self.assertIsNone(fn(g, m, 0.9, 2)['n'])
    self.assertIsNone(tm.tree_update_infinity_moment(g, m, 0.9, 0.0)['n'])
    self.assertIsNone(tm.tree_bias_correction(m, 0.9, 1)['n'])

  def test_strict_dtype_promotion(self):
    g = {'a': jnp.ones(2, jnp.bfloat16), 'b': jnp.ones(2, jnp.float32)}
    m = {'a': jnp.zeros(2, jnp.float32), 'b': jnp.zeros(2, jnp.bfloat16)}
    with jax.numpy_dtype_promotion('strict'):
      out = tm.tree_update_moment(g, m, 0.9, 2)
      out = tm.tree_update_moment_per_elem_norm(g, out, 0.9, 2)
      out = tm.tree_update_infinity_moment(g, out, 0.9, 1e-8)
      out = tm.tree_bias_correction(out, 0.9, jnp.asarray(1))
    test_utils.assert_trees_all_equal_dtypes(out, m)


class RealVdotTest(absltest.TestCase):
  """Tests of real_vdot and leaf_vdot."""

  def test_real_vdot_accumulates_in_the_given_dtype(self):
    x = {'a': jnp.array([1 + 2j, 3j], jnp.complex64),
         'b': jnp.array([256.0, 1.0], jnp.bfloat16)}
    y = {'a': jnp.array([2 - 1j, 1 + 1j], jnp.complex64),
         'b': jnp.array([1.0, 1.0], jnp.bfloat16)}
    with jax.numpy_dtype_promotion('strict'):
      result = tm.real_vdot(x, y, jnp.float32)
    self.assertEqual(result.dtype, jnp.float32)
    # Re(conj(1+2j)(2-1j) + conj(3j)(1+1j)) = 0 + 3; 256 + 1 is exact in
    # float32 (in bfloat16 it would round to 256).
    np.testing.assert_allclose(result, 3.0 + 257.0, rtol=1e-6)

  def test_leaf_vdot_conjugates_the_first_argument(self):
    a = jnp.array([[1 + 1j, 2j]], jnp.complex64)
    b = jnp.array([[1.0, 1.0]], jnp.complex64)
    # conj(1+1j) + conj(2j) = 1 - 3j; the (1, 2) shape is kept, not raveled.
    np.testing.assert_allclose(tm.leaf_vdot(a, b), 1 - 3j)


if __name__ == '__main__':
  absltest.main()
