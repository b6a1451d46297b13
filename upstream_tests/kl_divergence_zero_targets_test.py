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
"""KL divergence with zero target probabilities.

KL(t || q) = sum_i t_i (log t_i - log q_i), with 0 log 0 = 0: an entry of
zero target probability adds nothing, also where its log-prediction is
-inf (a class ruled out). Upstream (0.2.8, main at 2edbcbe2; pull request
#1786) returned NaN there (0 * inf), and so did
kl_divergence_with_log_targets at a -inf log-target.
"""

from absl.testing import absltest
from absl.testing import parameterized
import jax
import jax.numpy as jnp
import numpy as np
from optax import losses


class KlDivergenceZeroTargetsTest(parameterized.TestCase):

  def setUp(self):
    super().setUp()
    self.targets = jnp.array([0.0, 0.5, 0.5])
    self.log_predictions = jnp.array([-jnp.inf, np.log(0.25), np.log(0.75)])
    # 0.5 log(0.5 / 0.25) + 0.5 log(0.5 / 0.75), the zero entry adding 0.
    self.expected = 0.5 * np.log(2.0) + 0.5 * np.log(2.0 / 3.0)

  @parameterized.parameters(True, False)
  def test_zero_target_at_minus_inf_log_prediction(self, use_jit):
    fn = jax.jit(losses.kl_divergence) if use_jit else losses.kl_divergence
    got = fn(self.log_predictions, self.targets)
    np.testing.assert_allclose(got, self.expected, rtol=1e-6)

  def test_minus_inf_log_target(self):
    got = losses.kl_divergence_with_log_targets(
        self.log_predictions, jnp.log(self.targets))
    np.testing.assert_allclose(got, self.expected, rtol=1e-6)


if __name__ == '__main__':
  absltest.main()
