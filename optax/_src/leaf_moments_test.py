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
"""Tests of the per-leaf moment formulas against float64 NumPy."""

from absl.testing import absltest
from absl.testing import parameterized
import jax
import jax.numpy as jnp
import numpy as np

from optax._src import leaf_moments

_G = np.array([0.5, -2.0, 3.0], np.float64)
_M = np.array([1.0, 0.25, -4.0], np.float64)


class LeafMomentsTest(parameterized.TestCase):

  @parameterized.product(order=(1, 2, 3), use_jit=(False, True))
  def test_update_moment(self, order, use_jit):
    factors = leaf_moments.decay_factors(0.75)
    fn = lambda g, m: leaf_moments.update_moment(g, m, factors, order)
    fn = jax.jit(fn) if use_jit else fn
    result = fn(jnp.asarray(_G, jnp.float32), jnp.asarray(_M, jnp.float32))
    self.assertEqual(result.dtype, jnp.float32)
    np.testing.assert_allclose(result, 0.25 * _G ** order + 0.75 * _M,
                               rtol=1e-6)

  def test_update_moment_per_elem_norm_of_complex_updates(self):
    g = np.array([3 + 4j, -1j])
    factors = leaf_moments.decay_factors(0.5)
    result = leaf_moments.update_moment_per_elem_norm(
        jnp.asarray(g, jnp.complex64), jnp.zeros(2), factors, 2)
    self.assertEqual(result.dtype, jnp.float32)
    np.testing.assert_allclose(result, 0.5 * np.abs(g) ** 2, rtol=1e-6)

  def test_odd_order_of_real_updates_keeps_the_sign(self):
    factors = leaf_moments.decay_factors(0.5)
    result = leaf_moments.update_moment_per_elem_norm(
        jnp.asarray(_G, jnp.float32), jnp.zeros(3), factors, 3)
    np.testing.assert_allclose(result, 0.5 * _G ** 3, rtol=1e-6)

  def test_narrow_moment_is_computed_wide_and_kept_narrow(self):
    factors = leaf_moments.decay_factors(0.9)
    m = jnp.asarray(_M, jnp.bfloat16)
    result = leaf_moments.update_moment(jnp.asarray(_G, jnp.float32), m,
                                        factors, 1)
    self.assertEqual(result.dtype, jnp.bfloat16)
    expected = 0.1 * _G + 0.9 * np.asarray(m, np.float64)
    np.testing.assert_allclose(np.asarray(result, np.float64), expected,
                               rtol=2 ** -8)

  def test_update_infinity_moment(self):
    decay, eps = leaf_moments.infinity_factors(0.5, 0.125)
    result = leaf_moments.update_infinity_moment(
        jnp.asarray(_G, jnp.float32), jnp.asarray(_M, jnp.float32), decay,
        eps)
    np.testing.assert_allclose(
        result, np.maximum(np.abs(_G) + 0.125, 0.5 * _M), rtol=1e-6)

  @parameterized.parameters(1, 3, 10)
  def test_bias_corrected(self, count):
    corrections = leaf_moments.bias_corrections(0.9, count)
    result = leaf_moments.bias_corrected(jnp.asarray(_M, jnp.float32),
                                         corrections)
    np.testing.assert_allclose(result, _M / (1 - 0.9 ** count), rtol=1e-5)
    self.assertEqual(leaf_moments.bias_correction(
        jnp.float32(0.5), jnp.int32(2)), 0.75)


if __name__ == '__main__':
  absltest.main()
