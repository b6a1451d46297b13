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
"""Derivatives of the simplex projection in float16 and bfloat16.

On its support ``S`` the projection is ``x - tau(x)`` with ``tau`` the mean
of ``x_S`` less ``scale / |S|``, so its Jacobian is ``diag(1_S) - 1_S 1_S^T
/ |S|``; the multiclass sparsemax loss of scores ``s`` and label ``k`` has
gradient ``sparsemax(s) - e_k`` (Martins and Astudillo, 2016, Prop. 2).
Both are checked against those float64 formulas at points whose entries lie
away from the threshold (so rounding to the narrow dtype keeps the support),
on every backend, eagerly and under ``jit``.
"""

from absl.testing import absltest
from absl.testing import parameterized
import jax
import jax.numpy as jnp
import numpy as np
from optax import losses
from optax import projections as proj
from optax._src.testing import reference_math as ref

_TOLERANCE = {jnp.float16: 4e-3, jnp.bfloat16: 3e-2}


def _points(dtype, scale, count=5, size=6):
  """Random points, rounded to ``dtype``, with no entry near the threshold."""
  rng = np.random.default_rng(0)
  points = []
  while len(points) < count:
    x = np.asarray(jnp.asarray(rng.normal(size=size), dtype), np.float64)
    if np.min(np.abs(x - ref.simplex_threshold(x, scale))) > 0.1:
      points.append(x)
  return points


def _jacobian(x, scale):
  support = (x > ref.simplex_threshold(x, scale)).astype(np.float64)
  return np.diag(support) - np.outer(support, support) / support.sum()


class SimplexHalfPrecisionTest(parameterized.TestCase):

  @parameterized.product(
      dtype=(jnp.float16, jnp.bfloat16), scale=(1.0, 2.5), use_jit=(False, True)
  )
  def test_gradient_is_the_support_jacobian(self, dtype, scale, use_jit):
    weights = np.linspace(-1.0, 1.0, 6)

    def weighted(x):
      return jnp.vdot(jnp.asarray(weights, dtype),
                      proj.projection_simplex(x, scale))

    grad_fn = jax.jit(jax.grad(weighted)) if use_jit else jax.grad(weighted)
    for x in _points(dtype, scale):
      got = grad_fn(jnp.asarray(x, dtype))
      self.assertEqual(got.dtype, dtype)
      np.testing.assert_allclose(
          np.asarray(got, np.float64), _jacobian(x, scale) @ weights,
          atol=_TOLERANCE[dtype])

  @parameterized.parameters(jnp.float16, jnp.bfloat16)
  def test_jvp_keeps_the_dtype(self, dtype):
    for x in _points(dtype, 1.0):
      direction = np.eye(6)[0]
      primal, tangent = jax.jvp(
          proj.projection_simplex, (jnp.asarray(x, dtype),),
          (jnp.asarray(direction, dtype),))
      self.assertEqual((primal.dtype, tangent.dtype), (dtype, dtype))
      np.testing.assert_allclose(
          np.asarray(primal, np.float64), ref.projection_simplex(x),
          atol=_TOLERANCE[dtype])
      np.testing.assert_allclose(
          np.asarray(tangent, np.float64), _jacobian(x, 1.0) @ direction,
          atol=_TOLERANCE[dtype])

  @parameterized.parameters(jnp.float16, jnp.bfloat16)
  def test_multiclass_sparsemax_loss_gradient(self, dtype):
    scores = np.stack(_points(dtype, 1.0))
    labels = np.arange(len(scores)) % scores.shape[-1]

    def total(s):
      return jnp.sum(losses.multiclass_sparsemax_loss(s, labels))

    got = jax.grad(total)(jnp.asarray(scores, dtype))
    expected = ref.sparsemax(scores) - np.eye(scores.shape[-1])[labels]
    self.assertEqual(got.dtype, dtype)
    np.testing.assert_allclose(
        np.asarray(got, np.float64), expected, atol=_TOLERANCE[dtype])


if __name__ == '__main__':
  absltest.main()
