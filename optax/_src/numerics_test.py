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
"""Tests for `optax._src.numerics`."""

from absl.testing import absltest
from absl.testing import parameterized
import jax
import jax.numpy as jnp
import numpy as np

from optax._src import numerics


class AbsSqTest(parameterized.TestCase):
  """Tests of abs_sq."""

  @parameterized.parameters(np.float32, np.complex64)
  def test_matches_numpy(self, dtype):
    if np.issubdtype(dtype, np.complexfloating):
      x = np.array([3 + 4j, -1.5, 2j, 0.0], dtype)
    else:
      x = np.array([3.0, -1.5, 2.0, 0.0], dtype)
    expected = np.abs(x) ** 2
    for fn in (numerics.abs_sq, jax.jit(numerics.abs_sq)):
      result = fn(jnp.asarray(x))
      np.testing.assert_allclose(result, expected, rtol=1e-6)
      self.assertEqual(result.dtype, jnp.float32)

  @parameterized.parameters(np.float32, jnp.bfloat16, np.float16)
  def test_real_gradient_is_one_product_per_entry(self, dtype):
    x = jnp.asarray([3.0, -1.5, 2.0, 0.0, 1e-3], dtype)
    grad_fn = jax.grad(lambda x: jnp.sum(numerics.abs_sq(x)))
    # d|x|^2/dx = 2 x, exact in binary floating point.
    np.testing.assert_array_equal(
        np.asarray(grad_fn(x), np.float64), 2 * np.asarray(x, np.float64))
    # The backward pass multiplies once per entry (x * g + g * x would
    # multiply twice and add).
    jaxpr = str(jax.make_jaxpr(grad_fn)(x))
    self.assertNotIn('add_any', jaxpr)

  def test_numpy_input(self):
    self.assertIsInstance(numerics.abs_sq(np.array([-3.0])), np.ndarray)
    np.testing.assert_allclose(numerics.abs_sq(np.array([-3.0])), [9.0])

  def test_rejects_non_arrays(self):
    with self.assertRaisesRegex(ValueError, 'abs_sq'):
      numerics.abs_sq(3.0)


class SafeNormTest(parameterized.TestCase):
  """Tests of safe_norm."""

  def setUp(self):
    super().setUp()
    self.x = np.array([[3.0, 4.0], [0.0, 0.0], [1e-4, 0.0]], np.float32)

  @parameterized.parameters(None, 1, 2, np.inf)
  def test_values_along_axis(self, ord):  # pylint: disable=redefined-builtin
    min_norm = 1e-3
    expected = np.maximum(
        np.linalg.norm(self.x, ord=ord, axis=1), min_norm)
    for fn in (numerics.safe_norm, jax.jit(
        numerics.safe_norm, static_argnames=('ord', 'axis', 'keepdims'))):
      np.testing.assert_allclose(
          fn(jnp.asarray(self.x), min_norm, ord=ord, axis=1), expected,
          rtol=1e-6)

  def test_keepdims_and_full_reduction(self):
    out = numerics.safe_norm(jnp.asarray(self.x), 1e-3, axis=1, keepdims=True)
    self.assertEqual(out.shape, (3, 1))
    np.testing.assert_allclose(
        numerics.safe_norm(jnp.asarray(self.x), 1e-3),
        np.linalg.norm(self.x), rtol=1e-6)

  def test_gradient_is_finite_and_zero_below_floor(self):
    def total(x):
      return jnp.sum(numerics.safe_norm(x, 1e-3, axis=1))
    grad = jax.grad(total)(jnp.asarray(self.x))
    np.testing.assert_allclose(grad[0], [0.6, 0.8], rtol=1e-6)
    np.testing.assert_array_equal(grad[1:], np.zeros((2, 2)))

  def test_gradient_at_zero_with_zero_floor(self):
    grad = jax.grad(lambda x: numerics.safe_norm(x, 0.0))(jnp.zeros(3))
    np.testing.assert_array_equal(grad, np.zeros(3))

  def test_array_floor(self):
    out = numerics.safe_norm(jnp.zeros(2), jnp.asarray(0.5, jnp.float32))
    np.testing.assert_allclose(out, 0.5)


class SafeRootMeanSquaresTest(absltest.TestCase):
  """Tests of safe_root_mean_squares."""

  def test_values(self):
    x = np.array([1.0, -2.0, 3.0], np.float32)
    np.testing.assert_allclose(
        numerics.safe_root_mean_squares(jnp.asarray(x), 1e-3),
        np.sqrt(np.mean(x ** 2)), rtol=1e-6)
    np.testing.assert_allclose(
        numerics.safe_root_mean_squares(jnp.zeros(3), 1e-3), 1e-3)

  def test_gradients(self):
    x = jnp.array([3.0, 4.0])
    grad = jax.grad(lambda v: numerics.safe_root_mean_squares(v, 1e-3))(x)
    # d/dx sqrt(mean(x^2)) = x / (n * rms).
    rms = np.sqrt(12.5)
    np.testing.assert_allclose(grad, np.array([3.0, 4.0]) / (2 * rms),
                               rtol=1e-6)
    zero_grad = jax.grad(
        lambda v: numerics.safe_root_mean_squares(v, 0.0))(jnp.zeros(3))
    np.testing.assert_array_equal(zero_grad, np.zeros(3))


class SafeIncrementTest(parameterized.TestCase):
  """Tests of safe_increment and its old name safe_int32_increment."""

  @parameterized.parameters(jnp.int32, jnp.int8, jnp.uint32, jnp.float32)
  def test_increments(self, dtype):
    for fn in (numerics.safe_increment, jax.jit(numerics.safe_increment)):
      out = fn(jnp.asarray(5, dtype))
      self.assertEqual(out.dtype, dtype)
      self.assertEqual(int(out), 6)

  @parameterized.parameters(jnp.int32, jnp.int8, jnp.uint32)
  def test_saturates_integers(self, dtype):
    top = np.iinfo(dtype).max
    for fn in (numerics.safe_increment, jax.jit(numerics.safe_increment)):
      out = fn(jnp.asarray(top, dtype))
      self.assertEqual(out.dtype, dtype)
      self.assertEqual(int(out), top)
      self.assertEqual(int(fn(jnp.asarray(top - 1, dtype))), top)

  def test_saturates_float(self):
    top = np.finfo(np.float32).max
    out = numerics.safe_increment(jnp.asarray(top, jnp.float32))
    self.assertEqual(float(out), float(top))
    self.assertTrue(np.isfinite(out))

  def test_int32_alias(self):
    top = np.iinfo(np.int32).max
    self.assertEqual(
        int(numerics.safe_int32_increment(jnp.asarray(top, jnp.int32))), top)
    self.assertEqual(
        int(numerics.safe_int32_increment(jnp.asarray(0, jnp.int32))), 1)

  def test_rejects_bool(self):
    with self.assertRaisesRegex(ValueError, 'safe_increment'):
      numerics.safe_increment(jnp.asarray(True))


if __name__ == '__main__':
  absltest.main()
