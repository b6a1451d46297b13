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
"""projection_simplex is differentiable for float16 and bfloat16 inputs.

On the simplex's support S the projection is ``x - tau`` with ``tau`` the
mean of ``x_S`` minus ``1 / |S|``, so its Jacobian there is
``I - 1 1^T / |S|`` (zero outside S). Upstream (0.2.8, main at 2edbcbe2)
computed the projection of a half-precision vector in float32 (its
threshold divides by an integer count), so the forward result was float32
while its custom JVP rule returned a tangent in the input's dtype: jax.grad
and jax.jvp raised TypeError for float16 and bfloat16 inputs, and so did
the gradient of multiclass_sparsemax_loss, which projects its scores.
"""

from absl.testing import absltest
from absl.testing import parameterized
import jax
import jax.numpy as jnp
import numpy as np
from optax import projections as proj


class ProjectionSimplexHalfPrecisionTest(parameterized.TestCase):

  @parameterized.product(
      dtype=(jnp.float16, jnp.bfloat16), use_jit=(False, True)
  )
  def test_projection_simplex_gradient_in_half_precision(self, dtype, use_jit):
    # x = (0.3, 1.2, -0.5): the support is {0, 1}, tau = (1.5 - 1) / 2, so
    # the projection is (0.05, 0.95, 0) and the gradient of its second entry
    # is e_1 - (1, 1, 0) / 2.
    x = jnp.array([0.3, 1.2, -0.5], dtype)

    def second_entry(x):
      return proj.projection_simplex(x)[1]

    fn = jax.grad(second_entry)
    if use_jit:
      fn = jax.jit(fn)
    grad = fn(x)
    self.assertEqual(grad.dtype, dtype)
    np.testing.assert_allclose(
        np.asarray(grad, np.float32), [-0.5, 0.5, 0.0], atol=1e-3
    )

  @parameterized.parameters(jnp.float16, jnp.bfloat16)
  def test_projection_simplex_jvp_in_half_precision(self, dtype):
    x = jnp.array([0.3, 1.2, -0.5], dtype)
    direction = jnp.array([1.0, 0.0, 0.0], dtype)
    primal, tangent = jax.jvp(proj.projection_simplex, (x,), (direction,))
    self.assertEqual(primal.dtype, dtype)
    self.assertEqual(tangent.dtype, dtype)
    tolerance = 1e-2 if dtype == jnp.bfloat16 else 1e-3
    np.testing.assert_allclose(
        np.asarray(primal, np.float32), [0.05, 0.95, 0.0], atol=tolerance
    )
    # (I - 1 1^T / 2) on the support, applied to e_0.
    np.testing.assert_allclose(
        np.asarray(tangent, np.float32), [0.5, -0.5, 0.0], atol=1e-3
    )


if __name__ == '__main__':
  absltest.main()
