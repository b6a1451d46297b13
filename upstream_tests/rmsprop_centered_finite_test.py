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
"""rmsprop(centered=True, bias_correction=True): the first step.

With ``initial_scale=0`` the first bias-corrected variance estimate
``nu_hat - mu_hat ** 2`` is ``g ** 2 - g ** 2 = 0``; its float32 value is
rounding noise, which upstream 0.2.8 divides by (about 2e3 times the
gradient, of either sign). Clamped at 0, the update is ``-lr * g /
sqrt(eps)``.
"""

from absl.testing import absltest
from absl.testing import parameterized
import jax.numpy as jnp
import numpy as np
import optax


class RmspropCenteredFiniteTest(parameterized.TestCase):

  def test_first_step_variance_is_zero(self):
    lr, eps = 1e-3, 1e-8
    g = np.array([0.5, -0.25, 0.125, 3.0], np.float32)
    params = {'w': jnp.zeros(4)}
    tx = optax.rmsprop(lr, centered=True, bias_correction=True, eps=eps)
    updates, _ = tx.update({'w': jnp.asarray(g)}, tx.init(params), params)
    np.testing.assert_allclose(updates['w'], -lr * g / np.sqrt(eps),
                               rtol=1e-5)


if __name__ == '__main__':
  absltest.main()
