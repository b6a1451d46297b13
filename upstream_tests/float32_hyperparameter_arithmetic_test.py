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
"""Plain optimizers derive ``1 - b2`` from float32 hyperparameters.

A deliberate difference: upstream's plain Adam takes ``1 - b2`` from the
Python double (0.001) but the bias correction ``1 - b2 ** t`` from float32
(0.0010000467), so its first step is not ``-lr * g / (|g| + eps)`` but
2.3e-5 relative smaller. Deriving both from the float32 ``b2``, as an
injected optimizer must, makes them cancel.
"""

from absl.testing import absltest
from absl.testing import parameterized
import jax.numpy as jnp
import numpy as np
import optax


class Float32HyperparameterArithmeticTest(parameterized.TestCase):

  @parameterized.parameters('adam', 'adamw', 'nadam')
  def test_first_step_bias_correction_cancels(self, name):
    lr, eps = 1e-3, 1e-8
    params = {'w': jnp.linspace(-1.0, 1.0, 5)}
    g = np.array([0.3, -1.0, 2.0, 1e-3, 5.0], np.float32)
    tx = getattr(optax, name)(lr, b2=0.999, eps=eps)
    if name == 'adamw':
      tx = optax.adamw(lr, b2=0.999, eps=eps, weight_decay=0.0)
    updates, _ = tx.update({'w': jnp.asarray(g)}, tx.init(params), params)
    if name == 'nadam':
      # Nesterov: mu_hat = b1 g (1 - b1) / (1 - b1^2) + (1 - b1) g / (1 - b1).
      b1 = 0.9
      mu_hat = b1 * (1 - b1) * g / (1 - b1**2) + g
    else:
      mu_hat = g
    expected = -lr * mu_hat / (np.abs(g) + eps)
    np.testing.assert_allclose(updates['w'], expected, rtol=2e-6)


if __name__ == '__main__':
  absltest.main()
