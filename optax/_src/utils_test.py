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
"""Tests for `optax._src.utils`."""

import math

from absl.testing import absltest
from absl.testing import parameterized
import jax
import jax.numpy as jnp
import numpy as np

from optax._src import utils


class CanonicalizeTest(parameterized.TestCase):
  """Tests of canonicalize_dtype and canonicalize_key."""

  @parameterized.parameters(
      (None, None),
      ('bfloat16', jnp.bfloat16),
      (jnp.float64, jnp.float32),
      (np.int64, jnp.int32),
      (float, jnp.float32),
  )
  def test_canonicalize_dtype(self, dtype, expected):
    self.assertEqual(utils.canonicalize_dtype(dtype), expected)

  def test_canonicalize_dtype_x64(self):
    with utils.x64_precision():
      self.assertEqual(utils.canonicalize_dtype(jnp.float64), jnp.float64)

  def test_canonicalize_dtype_bad_name(self):
    with self.assertRaises(TypeError):
      utils.canonicalize_dtype('not_a_dtype')

  def test_canonicalize_key(self):
    from_seed = utils.canonicalize_key(3)
    np.testing.assert_array_equal(
        jax.random.key_data(from_seed),
        jax.random.key_data(jax.random.key(3)))
    key = jax.random.key(5)
    self.assertIs(utils.canonicalize_key(key), key)
    from_raw = utils.canonicalize_key(jax.random.PRNGKey(5))
    np.testing.assert_array_equal(jax.random.key_data(from_raw),
                                  jax.random.key_data(key))


class ChecksTest(absltest.TestCase):
  """Tests of check_rank, check_shapes_equal and check_subdtype."""

  def test_check_rank(self):
    utils.check_rank(jnp.ones((2, 3)), 2)
    utils.check_rank(jnp.ones((2, 3)), [1, 2])
    with self.assertRaisesRegex(ValueError, 'rank 1, got 2'):
      utils.check_rank(jnp.ones((2, 3)), 1)

  def test_check_shapes_equal(self):
    utils.check_shapes_equal(jnp.ones((2, 3)), np.zeros((2, 3)))
    with self.assertRaisesRegex(ValueError, r'\(2, 3\) and \(3, 3\)'):
      utils.check_shapes_equal(jnp.ones((2, 3)), jnp.ones((3, 3)))

  def test_check_subdtype(self):
    utils.check_subdtype(jnp.ones(2), jnp.floating)
    with self.assertRaisesRegex(TypeError, 'int32'):
      utils.check_subdtype(jnp.ones(2, jnp.int32), jnp.floating)


class ZerosLikeReducedTest(parameterized.TestCase):

  @parameterized.parameters(
      (0, (3, 4)), (2, (2, 3)), ((0, 2), (3,)), ((), (2, 3, 4)))
  def test_shape_dtype_values(self, axis, shape):
    x = jnp.ones((2, 3, 4), jnp.bfloat16)
    result = utils.zeros_like_reduced(x, axis)
    self.assertEqual(result.shape, shape)
    self.assertEqual(result.dtype, jnp.bfloat16)
    np.testing.assert_array_equal(np.asarray(result, np.float32), 0.0)

  def test_dtype_argument(self):
    result = utils.zeros_like_reduced(jnp.ones((2, 3)), 1, jnp.int32)
    self.assertEqual((result.shape, result.dtype), ((2,), jnp.int32))


class MultiNormalTest(parameterized.TestCase):
  """Tests of multi_normal and MultiNormalDiagFromLogScale."""

  def setUp(self):
    super().setUp()
    self.loc = np.array([0.0, 1.0, -2.0], np.float32)
    self.log_scale = np.array([0.0, 0.5, -1.0], np.float32)
    self.dist = utils.multi_normal(
        jnp.asarray(self.loc), jnp.asarray(self.log_scale))

  def test_params(self):
    self.assertIsInstance(self.dist, utils.MultiNormalDiagFromLogScale)
    loc, log_scale = self.dist.params
    np.testing.assert_array_equal(loc, self.loc)
    np.testing.assert_array_equal(log_scale, self.log_scale)
    np.testing.assert_array_equal(self.dist.log_scale, self.log_scale)

  def test_log_prob_matches_gaussian_density(self):
    x = np.array([[0.5, 0.2, -1.0], [0.0, 1.0, -2.0]], np.float32)
    scale = np.exp(self.log_scale)
    expected = np.sum(
        -0.5 * ((x - self.loc) / scale) ** 2 - np.log(scale)
        - 0.5 * math.log(2 * math.pi), axis=-1)
    np.testing.assert_allclose(self.dist.log_prob(jnp.asarray(x)), expected,
                               rtol=1e-6)
    np.testing.assert_allclose(
        jax.jit(self.dist.log_prob)(jnp.asarray(x[0])), expected[0],
        rtol=1e-6)

  def test_sample_is_loc_plus_scaled_normal_noise(self):
    key = jax.random.key(0)
    samples = self.dist.sample((4,), key)
    self.assertEqual(samples.shape, (4, 3))
    noise = np.asarray(jax.random.normal(key, (4, 3)))
    np.testing.assert_allclose(
        samples, self.loc + np.exp(self.log_scale) * noise, rtol=1e-6)

  def test_sample_statistics(self):
    samples = self.dist.sample((20000,), jax.random.key(1))
    np.testing.assert_allclose(np.mean(samples, axis=0), self.loc, atol=0.05)
    np.testing.assert_allclose(
        np.std(samples, axis=0), np.exp(self.log_scale), rtol=0.05)

  def test_matrix_parameters(self):
    dist = utils.multi_normal(jnp.zeros((2, 3)), jnp.zeros((2, 3)))
    self.assertEqual(dist.sample((5,), jax.random.key(0)).shape, (5, 2, 3))
    log_prob = dist.log_prob(jnp.zeros((5, 2, 3)))
    np.testing.assert_allclose(log_prob,
                               np.full(5, -3 * math.log(2 * math.pi)),
                               rtol=1e-6)


  def test_broadcast_parameters(self):
    dist = utils.multi_normal(jnp.zeros((1, 3)), jnp.full((2, 1), 0.5))
    loc, log_scale = dist.params
    self.assertEqual((loc.shape, log_scale.shape), ((1, 3), (2, 1)))
    key = jax.random.key(0)
    samples = dist.sample((4,), key)
    self.assertEqual(samples.shape, (4, 2, 3))
    noise = np.asarray(jax.random.normal(key, (4, 2, 3)))
    np.testing.assert_allclose(samples, np.exp(0.5) * noise, rtol=1e-6)
    log_prob = dist.log_prob(jnp.zeros((4, 2, 3)))
    np.testing.assert_allclose(
        log_prob, np.full(4, 6 * (-0.5 - 0.5 * math.log(2 * math.pi))),
        rtol=1e-6)

  def test_shapes_that_do_not_broadcast_raise(self):
    with self.assertRaisesRegex(
        ValueError, r'Incompatible shapes for broadcasting: loc has shape'
        r' \(2, 3\), log_scale has shape \(3, 2\)'):
      utils.multi_normal(jnp.zeros((2, 3)), jnp.zeros((3, 2)))

class ScaleGradientTest(parameterized.TestCase):
  """Tests of scale_gradient."""

  @parameterized.parameters(0.5, 0.0, -1.0, 1.0)
  def test_forward_identity_backward_scaled(self, scale):
    x = jnp.array([1.0, -2.0])

    def f(v):
      return jnp.sum(utils.scale_gradient(v, scale) ** 2)

    np.testing.assert_allclose(f(x), 5.0)
    np.testing.assert_allclose(jax.grad(f)(x), scale * 2 * np.array([1., -2.]))

  def test_pytree_and_traced_scale(self):
    tree = {'a': jnp.array([1.0, 2.0]), 'b': jnp.array(3.0)}

    @jax.jit
    def grads(t, scale):
      return jax.grad(
          lambda u: sum(jnp.sum(v) for v in jax.tree.leaves(
              utils.scale_gradient(u, scale))))(t)

    out = grads(tree, 3.0)
    np.testing.assert_allclose(out['a'], [3.0, 3.0])
    np.testing.assert_allclose(out['b'], 3.0)

  def test_gradient_dtype_is_kept(self):
    x = jnp.ones(2, jnp.bfloat16)
    grad = jax.grad(lambda v: jnp.sum(
        utils.scale_gradient(v, jnp.float32(0.5)).astype(jnp.float32)))(x)
    self.assertEqual(grad.dtype, jnp.bfloat16)
    np.testing.assert_array_equal(grad, np.full(2, 0.5))

  @parameterized.parameters(0, 0.0, np.float32(0.0))
  def test_zero_scale_stops_the_gradient(self, scale):
    # The cotangent reaching scale_gradient is y: a product by zero would
    # give -0.0 for -2.0 and nan for inf; a stopped gradient is +0.0.
    y = jnp.array([-2.0, jnp.inf, 3.0])
    grad = jax.grad(
        lambda x: jnp.sum(utils.scale_gradient(x, scale) * y))(jnp.ones(3))
    self.assertEqual(np.asarray(grad).tobytes(),
                     np.zeros(3, np.float32).tobytes())

  def test_no_gradient_to_scale(self):
    grad = jax.grad(
        lambda s: jnp.sum(utils.scale_gradient(jnp.ones(2), s)))(2.0)
    self.assertEqual(float(grad), 0.0)


class MatrixHelpersTest(absltest.TestCase):
  """Tests of set_diags and tile_second_to_last_dim."""

  def test_set_diags(self):
    a = np.arange(18, dtype=np.float32).reshape(2, 3, 3)
    diags = np.array([[-1.0, -2.0, -3.0], [-4.0, -5.0, -6.0]], np.float32)
    expected = a.copy()
    for b in range(2):
      np.fill_diagonal(expected[b], diags[b])
    np.testing.assert_array_equal(
        utils.set_diags(jnp.asarray(a), jnp.asarray(diags)), expected)
    np.testing.assert_array_equal(
        jax.jit(utils.set_diags)(jnp.asarray(a), jnp.asarray(diags)),
        expected)

  def test_set_diags_errors(self):
    with self.assertRaisesRegex(ValueError, '3D'):
      utils.set_diags(jnp.ones((3, 3)), jnp.ones((1, 3)))
    with self.assertRaisesRegex(ValueError, '2D'):
      utils.set_diags(jnp.ones((2, 3, 3)), jnp.ones(3))
    with self.assertRaisesRegex(ValueError,
                                r'Shape mismatch: expected `new_diags.shape`'
                                r' to be \(2, 3\)'):
      utils.set_diags(jnp.ones((2, 3, 3)), jnp.ones((3, 3)))
    # A non-square `a` is reported as such, whatever `new_diags` is.
    with self.assertRaisesRegex(ValueError,
                                r'Shape mismatch: expected `a.shape` to be'
                                r' \(2, 3, 3\)'):
      utils.set_diags(jnp.ones((2, 3, 4)), jnp.ones((2, 3)))

  def test_tile_second_to_last_dim(self):
    a = np.arange(6.0, dtype=np.float32).reshape(2, 3)
    out = utils.tile_second_to_last_dim(jnp.asarray(a))
    self.assertEqual(out.shape, (2, 3, 3))
    for i in range(3):
      for j in range(3):
        np.testing.assert_array_equal(out[:, i, j], a[:, i])


class X64PrecisionTest(absltest.TestCase):
  """Tests of x64_precision."""

  def test_context_manager_restores(self):
    self.assertFalse(jax.config.jax_enable_x64)
    with utils.x64_precision():
      self.assertTrue(jax.config.jax_enable_x64)
      self.assertEqual(jnp.ones(1).dtype, jnp.float64)
      with utils.x64_precision(False):
        self.assertFalse(jax.config.jax_enable_x64)
      self.assertTrue(jax.config.jax_enable_x64)
    self.assertFalse(jax.config.jax_enable_x64)

  def test_restores_after_exception(self):
    with self.assertRaises(RuntimeError):
      with utils.x64_precision():
        raise RuntimeError('boom')
    self.assertFalse(jax.config.jax_enable_x64)

  def test_decorator(self):
    @utils.x64_precision()
    def dtype():
      return jnp.ones(1).dtype

    self.assertEqual(dtype(), jnp.float64)
    self.assertFalse(jax.config.jax_enable_x64)



class ParseVersionTest(parameterized.TestCase):
  """parse_version."""

  @parameterized.parameters(
      ('0.10.2', (0, 10, 2)),
      ('0.2.8.post1', (0, 2, 8)),
      ('0.8.1.dev20250101', (0, 8, 1)),
      ('0.4.36rc1', (0, 4, 36)),
      ('1.2+cuda12', (1, 2)),
      ('v3', (3,)),
  )
  def test_release_numbers(self, version, expected):
    self.assertEqual(utils.parse_version(version), expected)

  def test_compares_numerically_where_strings_do_not(self):
    # As strings, '0.10.0' sorts before '0.9.0'.
    self.assertLess('0.10.0', '0.9.0')
    self.assertGreater(utils.parse_version('0.10.0'),
                       utils.parse_version('0.9.0'))
    self.assertGreaterEqual(utils.parse_version(jax.__version__), (0, 4))

  @parameterized.parameters('', 'dev', None, 10)
  def test_errors(self, version):
    with self.assertRaisesRegex(
        ValueError, f'parse_version: version must be .* got {version!r}'):
      utils.parse_version(version)


if __name__ == '__main__':
  absltest.main()
