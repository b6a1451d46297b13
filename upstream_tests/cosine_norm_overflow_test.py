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
"""cosine_similarity gives the cosine of float16 vectors of any magnitude.

The cosine of the angle between two vectors does not depend on their
lengths. Upstream (0.2.8, main at 2edbcbe2) summed the squares of float16
components in float16: for components of 300 the squared norm overflowed to
inf and the cosine of two parallel vectors was 0; for components of 1e-4 it
underflowed to 0 and the cosine was inf.
"""

from absl.testing import absltest
from absl.testing import parameterized
import jax
import jax.numpy as jnp
import numpy as np
from optax import losses


class CosineNormOverflowTest(parameterized.TestCase):

  @parameterized.parameters(300.0, 1e-4, 1.0)
  def test_cosine_similarity_of_float16_vectors(self, scale):
    a = jnp.asarray(np.array([[1.0, 1.0], [1.0, 1.0]]) * scale, jnp.float16)
    b = jnp.asarray(np.array([[2.0, 2.0], [1.0, 0.0]]) * scale, jnp.float16)
    similarity = losses.cosine_similarity(a, b)
    distance = losses.cosine_distance(a, b)
    self.assertEqual(similarity.dtype, jnp.float16)
    np.testing.assert_allclose(
        np.asarray(similarity, np.float32), [1.0, np.sqrt(0.5)], rtol=1e-3
    )
    np.testing.assert_allclose(
        np.asarray(distance, np.float32),
        [0.0, 1.0 - np.sqrt(0.5)],
        rtol=1e-3,
        atol=1e-3,
    )

  def test_cosine_similarity_gradient_of_large_float16_vector(self):
    a = jnp.array([300.0, 400.0], jnp.float16)
    b = jnp.array([1.0, 0.0], jnp.float16)
    grad = jax.grad(lambda x: losses.cosine_similarity(x, b))(a)
    # d cos / da = (b - cos a / |a|) / |a| with |a| = 500 and cos = 0.6.
    np.testing.assert_allclose(
        np.asarray(grad, np.float32), [0.64 / 500, -0.48 / 500], rtol=2e-3
    )


if __name__ == '__main__':
  absltest.main()
