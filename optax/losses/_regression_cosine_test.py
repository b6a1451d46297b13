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
"""The cosine losses against their docstring, in every dtype.

The contract: the cosine of the angle between the vectors along ``axis``,
each vector divided by ``max(|v|, sqrt(epsilon))``, only the components
where ``where`` is true taking part. The oracle computes the norms with
``math.hypot`` in float64, which neither overflows nor underflows. float16
inputs are computed in float32, so float16 vectors of every magnitude are
checked; float32, bfloat16 and float64 vectors are checked up to the edges
of the range the docstring promises (norms to about 1.8e19 and 1.3e154,
components down to about 1.1e-19 and 1.5e-154), two decades inside them.
"""

import math

from absl.testing import absltest
from absl.testing import parameterized
import jax
import jax.numpy as jnp
import numpy as np

from optax.losses import _regression
from optax._src import utils

_DTYPES = ('float16', 'bfloat16', 'float32', 'float64')
# float16 magnitudes whose squares overflow and underflow float16; for the
# other dtypes, two decades inside the range their docstring promises.
_HUGE = {'float16': 1e4, 'bfloat16': 1e17, 'float32': 1e17,
         'float64': 1e150}
_SMALL = {'float16': 1e-4, 'bfloat16': 1e-17, 'float32': 1e-17,
          'float64': 1e-150}
# Magnitudes well below sqrt(epsilon) for the floor of epsilon.
_TINY = {'float16': 1e-4, 'bfloat16': 1e-30, 'float32': 1e-30,
         'float64': 1e-300}
_RTOL = {'float16': 4e-3, 'bfloat16': 3e-2, 'float32': 2e-6,
         'float64': 1e-13}


def _oracle(a, b, epsilon=0.0, axis=-1, where=None):
  """The docstring's cosine, one vector at a time, in float64."""
  a = np.asarray(a, np.float64)
  b = np.asarray(b, np.float64)
  where = np.ones(np.broadcast_shapes(a.shape, b.shape), bool) if (
      where is None) else np.asarray(where)
  a, b, where = np.broadcast_arrays(a, b, where)
  a = np.moveaxis(a, axis, -1)
  b = np.moveaxis(b, axis, -1)
  where = np.moveaxis(where, axis, -1)
  out = np.empty(a.shape[:-1])
  for index in np.ndindex(out.shape):
    u = a[index][where[index]]
    v = b[index][where[index]]
    nu = max(math.hypot(*u), math.sqrt(epsilon))
    nv = max(math.hypot(*v), math.sqrt(epsilon))
    with np.errstate(invalid='ignore', divide='ignore'):
      out[index] = math.fsum(u / nu * (v / nv))
  return out


def _inputs(dtype, magnitude):
  """Random vectors of the magnitude, rounded to the dtype."""
  rng = np.random.RandomState(7)
  a = rng.randn(5, 6) * magnitude
  b = rng.randn(5, 6) * magnitude
  a[1] = 0.5 * b[1]  # Parallel.
  a[2] = -b[2]  # Opposite.
  with utils.x64_precision(dtype == 'float64'):
    return (np.array(jnp.asarray(a, dtype), np.float64),
            np.array(jnp.asarray(b, dtype), np.float64))


class CosineContractTest(parameterized.TestCase):

  @parameterized.product(dtype=_DTYPES, magnitude=('huge', 'ordinary', 'tiny'))
  def test_matches_oracle(self, dtype, magnitude):
    scale = {'huge': _HUGE[dtype], 'ordinary': 1.0,
             'tiny': _SMALL[dtype]}[magnitude]
    a, b = _inputs(dtype, scale)
    with utils.x64_precision(dtype == 'float64'):
      got = _regression.cosine_similarity(
          jnp.asarray(a, dtype), jnp.asarray(b, dtype))
      distance = _regression.cosine_distance(
          jnp.asarray(a, dtype), jnp.asarray(b, dtype))
      self.assertEqual(got.dtype, jnp.dtype(dtype))
      want = _oracle(a, b)
      np.testing.assert_allclose(
          np.asarray(got, np.float64), want, rtol=_RTOL[dtype],
          atol=_RTOL[dtype])
      np.testing.assert_allclose(
          np.asarray(distance, np.float64), 1 - want, rtol=_RTOL[dtype],
          atol=_RTOL[dtype])
      self.assertAlmostEqual(float(got[1]), 1.0, delta=_RTOL[dtype])
      self.assertAlmostEqual(float(got[2]), -1.0, delta=_RTOL[dtype])

  @parameterized.product(dtype=_DTYPES, epsilon=(1e-6, 0.25, 4.0))
  def test_epsilon_floors_each_squared_norm(self, dtype, epsilon):
    a, b = _inputs(dtype, 1.0)
    a[0] *= 1e-2  # Below sqrt(epsilon) for the two larger epsilons.
    a[3] = 0.0  # The zero vector: the cosine is 0.
    a[4] = _TINY[dtype]  # Tiny but not zero: floored, not NaN.
    with utils.x64_precision(dtype == 'float64'):
      a = np.asarray(jnp.asarray(a, dtype), np.float64)
      got = _regression.cosine_similarity(
          jnp.asarray(a, dtype), jnp.asarray(b, dtype), epsilon=epsilon)
      np.testing.assert_allclose(
          np.asarray(got, np.float64), _oracle(a, b, epsilon),
          rtol=_RTOL[dtype], atol=_RTOL[dtype])

  @parameterized.parameters(*_DTYPES)
  def test_zero_vector_without_epsilon_is_nan(self, dtype):
    with utils.x64_precision(dtype == 'float64'):
      got = _regression.cosine_similarity(
          jnp.zeros((2, 3), dtype), jnp.ones((2, 3), dtype))
      self.assertTrue(np.all(np.isnan(np.asarray(got, np.float64))))

  def test_vectors_without_components_give_zero(self):
    # The empty sum, as upstream gives.
    got = _regression.cosine_similarity(jnp.zeros((2, 0)), jnp.zeros((2, 0)))
    np.testing.assert_array_equal(got, [0.0, 0.0])

  def test_constant_inputs_under_jit(self):
    # XLA folds the whole program when the inputs are constants; the zero
    # vector is floored, not 0 / 0.
    a = jnp.array([[3.0, 4.0], [0.0, 0.0]])
    b = jnp.array([[1.0, 0.0], [1.0, 1.0]])
    got = jax.jit(lambda: _regression.cosine_similarity(a, b, epsilon=1e-6))()
    np.testing.assert_allclose(got, [0.6, 0.0], rtol=1e-6)

  @parameterized.parameters(
      ('float16', 'huge'), ('float16', 'tiny'), ('float16', 'ordinary'),
      ('float32', 'huge'), ('float32', 'tiny'), ('float32', 'ordinary'),
      ('float64', 'huge'), ('float64', 'tiny'), ('float64', 'ordinary'))
  def test_where_and_axis(self, dtype, magnitude):
    scale = {'huge': _HUGE[dtype], 'tiny': _SMALL[dtype],
             'ordinary': 1.0}[magnitude]
    rng = np.random.RandomState(3)
    where = rng.rand(4, 3, 5) < 0.7
    where[..., 0] = True
    with utils.x64_precision(dtype == 'float64'):
      a, b = (np.asarray(jnp.asarray(rng.randn(4, 3, 5) * scale, dtype),
                         np.float64) for _ in range(2))
      ja, jb = jnp.asarray(a, dtype), jnp.asarray(b, dtype)
      np.testing.assert_allclose(
          np.asarray(_regression.cosine_similarity(ja, jb, where=where),
                     np.float64),
          _oracle(a, b, where=where), rtol=_RTOL[dtype], atol=_RTOL[dtype])
      np.testing.assert_allclose(
          np.asarray(_regression.cosine_similarity(ja, jb, axis=0),
                     np.float64),
          _oracle(a, b, axis=0), rtol=_RTOL[dtype], atol=_RTOL[dtype])
      got = _regression.cosine_similarity(ja, jb, axis=(1, 2))
      want = _oracle(a.reshape(4, 15), b.reshape(4, 15))
      np.testing.assert_allclose(
          np.asarray(got, np.float64), want, rtol=_RTOL[dtype],
          atol=_RTOL[dtype])
      # A target broadcast against the predictions.
      np.testing.assert_allclose(
          np.asarray(_regression.cosine_similarity(ja, jb[0]), np.float64),
          _oracle(a, b[0]), rtol=_RTOL[dtype], atol=_RTOL[dtype])

  @parameterized.product(
      dtype_and_magnitude=(('float32', 1.0), ('float16', 1.0),
                           ('float16', 300.0), ('float16', 1e-3)),
      epsilon=(0.0, 1e-6))
  def test_gradient_matches_analytic(self, dtype_and_magnitude, epsilon):
    # d cos / da = b / (|a| |b|) - cos a / |a|^2, written a / |a| so that
    # no square overflows.
    dtype, magnitude = dtype_and_magnitude
    rng = np.random.RandomState(5)
    a = np.asarray(jnp.asarray(rng.randn(3, 4) * magnitude, dtype),
                   np.float32)
    b = np.asarray(jnp.asarray(rng.randn(3, 4), dtype), np.float32)
    grad = jax.grad(lambda x: jnp.sum(_regression.cosine_similarity(
        x, jnp.asarray(b, dtype), epsilon=epsilon)))(jnp.asarray(a, dtype))
    self.assertEqual(grad.dtype, jnp.dtype(dtype))
    grad = np.asarray(grad, np.float64)
    a64, b64 = a.astype(np.float64), b.astype(np.float64)
    norm_a = np.array([[math.hypot(*row)] for row in a64])
    norm_b = np.array([[math.hypot(*row)] for row in b64])
    floor = math.sqrt(epsilon)
    unit_a = a64 / norm_a
    unit_b = b64 / norm_b
    cos = np.sum(unit_a * unit_b, -1, keepdims=True)
    with np.errstate(divide='ignore'):  # The floor of epsilon 0.
      want = np.where(
          norm_a < floor, unit_b / floor,
          (unit_b - cos * unit_a) / norm_a)
    self.assertTrue(np.all(np.isfinite(grad)))
    rtol = 1e-5 if dtype == 'float32' else 2e-3
    np.testing.assert_allclose(grad, want, rtol=rtol,
                               atol=rtol * np.max(np.abs(want)))

  def test_gradient_of_float64_matches_finite_differences(self):
    rng = np.random.RandomState(6)
    a = rng.randn(2, 5)
    b = rng.randn(2, 5)
    with utils.x64_precision(True):
      def loss(x):
        return jnp.sum(_regression.cosine_similarity(x, jnp.asarray(b)))
      grad = np.asarray(jax.grad(loss)(jnp.asarray(a)))
      step = 1e-6
      want = np.zeros_like(a)
      for index in np.ndindex(a.shape):
        up, down = a.copy(), a.copy()
        up[index] += step
        down[index] -= step
        want[index] = (_oracle(up, b).sum() - _oracle(down, b).sum()) / (
            2 * step)
    np.testing.assert_allclose(grad, want, rtol=1e-6)


if __name__ == '__main__':
  absltest.main()
