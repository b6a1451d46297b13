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
"""cosine_similarity gives the cosine of huge and tiny vectors.

The cosine of the angle between two vectors does not depend on their
lengths. Upstream (0.2.8, main at 2edbcbe2) summed the squares of the
components in the inputs' dtype: for float16 components of 300 (or float32
ones of 1e20) the squared norm overflowed to inf and the cosine of two
parallel vectors was 0; for float16 components of 1e-4 (float32 1e-25) it
underflowed to 0 and the cosine was inf.
"""

from absl.testing import absltest
from absl.testing import parameterized
import jax
import jax.numpy as jnp
import numpy as np
from optax import losses


class CosineNormOverflowTest(parameterized.TestCase):

  @parameterized.parameters(
      ('float16', 300.0),
      ('float16', 1e-4),
      ('bfloat16', 1e20),
      ('bfloat16', 1e-25),
      ('float32', 1e20),
      ('float32', 1e-25),
  )
  def test_cosine_similarity_of_huge_and_tiny_vectors(self, dtype, scale):
    a = jnp.asarray(np.array([[1.0, 1.0], [1.0, 1.0]]) * scale, dtype)
    b = jnp.asarray(np.array([[2.0, 2.0], [1.0, 0.0]]) * scale, dtype)
    rtol = {'float16': 1e-3, 'bfloat16': 1e-2, 'float32': 1e-6}[dtype]
    np.testing.assert_allclose(
        np.asarray(losses.cosine_similarity(a, b), np.float32),
        [1.0, np.sqrt(0.5)],
        rtol=rtol,
    )
    np.testing.assert_allclose(
        np.asarray(losses.cosine_distance(a, b), np.float32),
        [0.0, 1.0 - np.sqrt(0.5)],
        rtol=rtol,
        atol=rtol,
    )

  def test_cosine_similarity_gradient_of_huge_vectors_is_finite(self):
    a = jnp.array([3e20, 4e20], jnp.float32)
    b = jnp.array([1.0, 0.0], jnp.float32)
    grad = jax.grad(lambda x: losses.cosine_similarity(x, b))(a)
    # d cos / da = (b - cos a / |a|) / |a| with |a| = 5e20 and cos = 0.6.
    np.testing.assert_allclose(grad, [0.64 / 5e20, -0.48 / 5e20], rtol=1e-5)


if __name__ == '__main__':
  absltest.main()
