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
"""Integer or narrower gradients give updates in the params' dtype.

Upstream 0.2.8 returns the promotion of the gradients with the state and
hyperparameters: ``sgd(0.1)`` on bfloat16 gradients of float32 params gives
bfloat16 updates (``[-0.30078125, 0.20019531]`` for gradients ``[3, -2]``),
and ``nadam`` on int32 gradients gives infinite updates.
"""

from absl.testing import absltest
from absl.testing import parameterized
import jax.numpy as jnp
import numpy as np
from optax._src import alias


class IntGradsFloatUpdatesTest(parameterized.TestCase):

  @parameterized.named_parameters(
      ('sgd_bfloat16', lambda: alias.sgd(0.1), jnp.bfloat16, [-0.3, 0.2]),
      ('sgd_float16', lambda: alias.sgd(0.1), jnp.float16, [-0.3, 0.2]),
      (
          'sign_sgd_bfloat16',
          lambda: alias.sign_sgd(0.1),
          jnp.bfloat16,
          [-0.1, 0.1],
      ),
  )
  def test_narrow_gradients_of_float32_params(self, make, grad_dtype, expected):
    params = {'w': jnp.array([1.0, 2.0], jnp.float32)}
    grads = {'w': jnp.array([3.0, -2.0], grad_dtype)}  # exact in both
    tx = make()
    updates, _ = tx.update(grads, tx.init(params), params)
    self.assertEqual(updates['w'].dtype, jnp.float32)
    np.testing.assert_allclose(updates['w'], expected, rtol=1e-6)

  def test_nadam_int32_gradients(self):
    params = {'w': jnp.array([1.0, 2.0])}
    tx = alias.nadam(0.1)
    updates, _ = tx.update(
        {'w': jnp.array([3, -2], jnp.int32)}, tx.init(params), params
    )
    # First Nesterov Adam step: -lr * (b1 / (1 + b1) + 1) * sign(g).
    b1 = 0.9
    np.testing.assert_allclose(
        updates['w'],
        -0.1 * (b1 / (1 + b1) + 1) * np.array([1.0, -1.0]),
        rtol=1e-5,
    )


if __name__ == '__main__':
  absltest.main()
