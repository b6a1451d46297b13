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
"""log_cosh keeps its relative accuracy for small errors.

For a small error e, log(cosh(e)) is about e^2 / 2 - e^4 / 12. Upstream
(0.2.8, main at 2edbcbe2) computed it as logaddexp(e, -e) - log(2): the
difference of two numbers close to log(2) loses every digit below float32's
resolution there, so that an error of 3e-8 gave 5.96e-8 (the true value is
4.5e-16) and an error of 1e-3 gave 5.36e-7 for 5.0e-7.
"""

from absl.testing import absltest
from absl.testing import parameterized
import jax
import jax.numpy as jnp
import numpy as np

from optax.losses import _regression


class LogCoshTest(parameterized.TestCase):

  @parameterized.parameters(3e-8, 1e-5, 1e-3, 0.1, 0.9)
  def test_small_errors_are_relatively_accurate(self, error):
    errors = jnp.array([error, -error], dtype=jnp.float32)
    e = np.float64(np.float32(error))
    expected = np.log(np.cosh(e)) if e > 1e-4 else e**2 / 2 - e**4 / 12
    out = jax.jit(_regression.log_cosh)(errors)
    np.testing.assert_allclose(out, [expected, expected], rtol=1e-6)

  def test_gradient_of_small_error(self):
    grad = jax.grad(_regression.log_cosh)(jnp.float32(1e-3))
    np.testing.assert_allclose(grad, np.tanh(1e-3), rtol=1e-6)


if __name__ == '__main__':
  absltest.main()
