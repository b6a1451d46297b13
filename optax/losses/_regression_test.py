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
"""Tests for the regression losses, against NumPy references."""

import functools

from absl.testing import absltest
from absl.testing import parameterized
import jax
import jax.numpy as jnp
import numpy as np
from numpy.testing import assert_allclose

from optax.losses import _regression


def _maybe_jit(fn, jit):
  return jax.jit(fn) if jit else fn


class SquaredErrorTest(parameterized.TestCase):

  def setUp(self):
    super().setUp()
    rng = np.random.RandomState(0)
    self.predictions = rng.randn(5, 4).astype(np.float32)
    self.targets = rng.randn(5, 4).astype(np.float32)

  @parameterized.parameters(True, False)
  def test_squared_error_and_l2(self, jit):
    diff = self.predictions.astype(np.float64) - self.targets
    squared = _maybe_jit(_regression.squared_error, jit)
    l2 = _maybe_jit(_regression.l2_loss, jit)
    assert_allclose(squared(self.predictions, self.targets), diff ** 2,
                    rtol=1e-6)
    assert_allclose(l2(self.predictions, self.targets), 0.5 * diff ** 2,
                    rtol=1e-6)
    assert_allclose(squared(self.predictions), self.predictions ** 2,
                    rtol=1e-6)
    grad = jax.grad(lambda p: jnp.sum(l2(p, self.targets)))(self.predictions)
    assert_allclose(grad, diff, rtol=1e-6, atol=1e-6)

  def test_shape_mismatch_raises(self):
    for fn in (_regression.squared_error, _regression.l2_loss):
      with self.assertRaisesRegex(ValueError, 'Shape mismatch'):
        fn(self.predictions, self.targets[0])

  def test_integer_predictions_raise_but_integer_targets_are_fine(self):
    with self.assertRaisesRegex(TypeError, 'floating dtype'):
      _regression.squared_error(np.ones(3, np.int32), np.ones(3))
    assert_allclose(
        _regression.squared_error(np.full(3, 1.5, np.float32),
                                  np.ones(3, np.int32)), 0.25)

  @parameterized.parameters(jnp.float32, jnp.bfloat16, jnp.float16)
  def test_dtype(self, dtype):
    p = jnp.asarray(self.predictions, dtype)
    t = jnp.asarray(self.targets, dtype)
    for fn in (_regression.squared_error, _regression.l2_loss,
               _regression.huber_loss, _regression.log_cosh):
      self.assertEqual(fn(p, t).dtype, dtype)
      self.assertEqual(fn(p).dtype, dtype)


class HuberLossTest(parameterized.TestCase):

  def _reference(self, errors, delta):
    a = np.abs(np.asarray(errors, np.float64))
    return np.where(a <= delta, 0.5 * a ** 2, delta * (a - 0.5 * delta))

  @parameterized.parameters(
      (0.5, True), (1.0, False), (2.0, True), (0.0, False))
  def test_matches_piecewise_definition(self, delta, jit):
    rng = np.random.RandomState(1)
    predictions = (rng.randn(50) * 3).astype(np.float32)
    targets = rng.randn(50).astype(np.float32)
    fn = _maybe_jit(functools.partial(_regression.huber_loss, delta=delta),
                    jit)
    assert_allclose(fn(predictions, targets),
                    self._reference(predictions - targets, delta),
                    rtol=1e-6, atol=1e-6)

  def test_gradient_is_clipped_residual(self):
    errors = np.array([-5.0, -1.0, -0.3, 0.0, 0.3, 1.0, 5.0], np.float32)
    grad = jax.grad(lambda e: jnp.sum(_regression.huber_loss(e, delta=1.0)))(
        errors)
    assert_allclose(grad, np.clip(errors, -1.0, 1.0))

  def test_large_errors_are_finite(self):
    errors = np.array([1e4, -1e4, 1e30], np.float32)
    assert_allclose(_regression.huber_loss(errors),
                    np.abs(errors.astype(np.float64)) - 0.5, rtol=1e-6)

  def test_traced_delta(self):
    fn = jax.jit(lambda d: _regression.huber_loss(jnp.array([3.0]), delta=d))
    assert_allclose(fn(2.0), [4.0])

  def test_broadcasting(self):
    assert_allclose(
        _regression.huber_loss(np.zeros((2, 3), np.float32),
                               np.array([0.5, 2.0, -3.0], np.float32)),
        np.tile(self._reference([0.5, 2.0, 3.0], 1.0), (2, 1)), rtol=1e-6)


class LogCoshTest(parameterized.TestCase):

  def test_matches_float64_reference(self):
    errors = np.concatenate([
        np.linspace(-20, 20, 81), [-1e-3, 1e-4, 1e-6, 0.5, 0.999, 1.001],
    ]).astype(np.float32)
    x = errors.astype(np.float64)
    # float64 log(cosh(x)) loses relative precision for tiny x: use the
    # Taylor series there.
    expected = np.where(np.abs(x) < 1e-2,
                        x ** 2 / 2 - x ** 4 / 12 + x ** 6 / 45,
                        np.log(np.cosh(x)))
    loss = jax.jit(_regression.log_cosh)(errors)
    assert_allclose(loss, expected, rtol=2e-6, atol=0)

  def test_large_errors_do_not_overflow(self):
    errors = np.array([100.0, -1e4, 1e30], np.float32)
    assert_allclose(_regression.log_cosh(errors),
                    np.abs(errors.astype(np.float64)) - np.log(2.0),
                    rtol=1e-6)
    grad = jax.grad(lambda e: jnp.sum(_regression.log_cosh(e)))(errors)
    assert_allclose(grad, np.sign(errors))

  def test_gradient_is_tanh(self):
    errors = np.linspace(-5, 5, 41).astype(np.float32)
    grad = jax.grad(lambda e: jnp.sum(_regression.log_cosh(e, 0.0 * e)))(
        errors)
    assert_allclose(grad, np.tanh(errors.astype(np.float64)), atol=1e-6)

  def test_second_derivative_and_forward_mode(self):
    errors = np.array([0.0, 0.5, -0.999, 1.0, 2.0, -30.0], np.float32)
    curvature = jax.vmap(jax.grad(jax.grad(_regression.log_cosh)))(errors)
    expected = 1.0 - np.tanh(errors.astype(np.float64)) ** 2
    assert_allclose(curvature, expected, rtol=1e-6, atol=1e-7)
    value, tangent = jax.jvp(
        _regression.log_cosh, (errors,), (np.full(6, 2.0, np.float32),))
    assert_allclose(value, np.log(np.cosh(errors.astype(np.float64))),
                    rtol=2e-7, atol=0)
    assert_allclose(tangent, 2.0 * np.tanh(errors.astype(np.float64)),
                    rtol=1e-6, atol=1e-7)

  def test_with_targets(self):
    assert_allclose(
        _regression.log_cosh(np.array([1.0, 3.0], np.float32),
                             np.array([0.0, 1.0], np.float32)),
        np.log(np.cosh([1.0, 2.0])), rtol=1e-6)


def _np_cosine(a, b, epsilon=0.0, axis=-1, where=None):
  a = np.asarray(a, np.float64)
  b = np.asarray(b, np.float64)
  a, b = np.broadcast_arrays(a, b)
  if where is None:
    where = np.ones(a.shape, bool)
  where = np.broadcast_to(where, a.shape)
  a = np.where(where, a, 0.0)
  b = np.where(where, b, 0.0)
  norm_a = np.sqrt(np.maximum((a * a).sum(axis, keepdims=True), epsilon))
  norm_b = np.sqrt(np.maximum((b * b).sum(axis, keepdims=True), epsilon))
  return np.sum((a / norm_a) * (b / norm_b), axis)


class CosineTest(parameterized.TestCase):

  def setUp(self):
    super().setUp()
    rng = np.random.RandomState(2)
    self.a = rng.randn(6, 4).astype(np.float32)
    self.b = rng.randn(6, 4).astype(np.float32)

  @parameterized.parameters(True, False)
  def test_similarity_and_distance(self, jit):
    sim = _maybe_jit(_regression.cosine_similarity, jit)
    dist = _maybe_jit(_regression.cosine_distance, jit)
    expected = _np_cosine(self.a, self.b)
    assert_allclose(sim(self.a, self.b), expected, rtol=1e-6, atol=1e-6)
    assert_allclose(dist(self.a, self.b), 1 - expected, rtol=1e-6, atol=1e-6)

  def test_gradient(self):
    grad = jax.grad(lambda x: jnp.sum(_regression.cosine_similarity(
        x, self.b)))(self.a)
    a = self.a.astype(np.float64)
    b = self.b.astype(np.float64)
    na = np.linalg.norm(a, axis=-1, keepdims=True)
    nb = np.linalg.norm(b, axis=-1, keepdims=True)
    cos = np.sum(a * b, -1, keepdims=True) / (na * nb)
    expected = b / (na * nb) - cos * a / na ** 2
    assert_allclose(grad, expected, rtol=1e-5, atol=1e-6)

  @parameterized.parameters(0.0, 1e-6, 0.5)
  def test_epsilon_floors_squared_norms(self, epsilon):
    a = self.a.copy()
    a[0] *= 1e-4  # Norm below sqrt(epsilon) for the larger epsilons.
    assert_allclose(
        _regression.cosine_similarity(a, self.b, epsilon=epsilon),
        _np_cosine(a, self.b, epsilon=epsilon), rtol=1e-5, atol=1e-6)

  def test_zero_vector(self):
    zero = np.zeros((1, 4), np.float32)
    self.assertTrue(np.isnan(_regression.cosine_similarity(zero, self.b[:1])))
    fn = functools.partial(_regression.cosine_similarity, epsilon=1e-6)
    assert_allclose(fn(zero, self.b[:1]), [0.0])
    grad = jax.grad(lambda x: jnp.sum(fn(x, self.b[:1])))(zero)
    b = self.b[:1].astype(np.float64)
    assert_allclose(grad, b / np.linalg.norm(b) / 1e-3, rtol=1e-5)

  def test_huge_inputs_stay_finite(self):
    loss = _regression.cosine_similarity(
        np.array([1e30, 1e30], np.float32), np.array([1e30, 0.0], np.float32))
    self.assertTrue(np.isfinite(loss))

  def test_axis_and_where(self):
    where = np.random.RandomState(3).rand(6, 4) < 0.7
    where[:, 0] = True
    assert_allclose(
        _regression.cosine_similarity(self.a, self.b, where=where),
        _np_cosine(self.a, self.b, where=where), rtol=1e-6, atol=1e-6)
    assert_allclose(
        _regression.cosine_distance(self.a, self.b, axis=0),
        1 - _np_cosine(self.a, self.b, axis=0), rtol=1e-6, atol=1e-6)
    a3 = self.a.reshape(2, 3, 4)
    b3 = self.b.reshape(2, 3, 4)
    assert_allclose(
        _regression.cosine_similarity(a3, b3, axis=(1, 2)),
        _np_cosine(a3, b3, axis=(1, 2)), rtol=1e-6, atol=1e-6)
    assert_allclose(
        _regression.cosine_similarity(self.a, self.b[0]),
        _np_cosine(self.a, self.b[0]), rtol=1e-6, atol=1e-6)

  def test_integer_inputs_raise(self):
    with self.assertRaisesRegex(TypeError, 'predictions'):
      _regression.cosine_similarity(np.ones(3, np.int32), self.b[0, :3])
    with self.assertRaisesRegex(TypeError, 'targets'):
      _regression.cosine_distance(self.a[0, :3], np.ones(3, np.int32))

  def test_dtype(self):
    loss = _regression.cosine_distance(jnp.asarray(self.a, jnp.bfloat16),
                                       jnp.asarray(self.b, jnp.bfloat16))
    self.assertEqual(loss.dtype, jnp.bfloat16)


if __name__ == '__main__':
  absltest.main()
