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
"""softmax_cross_entropy with a -inf logit whose label is zero.

A class ruled out by a -inf logit and given a zero label adds nothing to
the cross-entropy -sum_i y_i log softmax(x)_i (0 log 0 = 0), so the loss is
that of the other classes. Upstream (0.2.8, main at 2edbcbe2) returned NaN
(0 * -inf) and left such inputs to safe_softmax_cross_entropy.
"""

from absl.testing import absltest
from absl.testing import parameterized
import jax
import jax.numpy as jnp
import numpy as np
from optax import losses


class SoftmaxCrossEntropyMinusInfTest(parameterized.TestCase):

  @parameterized.parameters(True, False)
  def test_zero_label_on_minus_inf_logit_adds_nothing(self, use_jit):
    fn = losses.softmax_cross_entropy
    fn = jax.jit(fn) if use_jit else fn
    logits = jnp.array([[-jnp.inf, 0.0, 0.0], [-jnp.inf, 0.0, 1.0]])
    labels = jnp.array([[0.0, 1.0, 0.0], [0.0, 0.5, 0.5]])
    # Row 0: -log(1/2); row 1: -(0.5 log p1 + 0.5 log p2) over (0, 1).
    log_z = np.log(1.0 + np.e)
    expected = [np.log(2.0), 0.5 * log_z + 0.5 * (log_z - 1.0)]
    np.testing.assert_allclose(fn(logits, labels), expected, rtol=1e-6)


if __name__ == '__main__':
  absltest.main()
