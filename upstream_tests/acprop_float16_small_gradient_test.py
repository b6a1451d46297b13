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
"""contrib.acprop with float16 params: finite updates for small gradients.

ACProp (Zhuang et al., 2021, Algorithm 2) divides the gradient by
``sqrt(s_{t-1} / (1 - b2 ** (t - 1))) + eps``, where every step adds
``eps_root`` to ``s``, so ``s >= eps_root = 1e-16`` and the update of a
gradient of 1e-7 is at most ``1e-7 / sqrt(1e-16 / 0.001) = 0.32``. Upstream
(0.2.8, main at 2edbcbe2) stored ``s`` in the params' dtype: ``eps_root``
and the squared residuals round to 0 in float16, and the second update was
``1e-7 / 0``, inf, for ``scale_by_acprop`` and ``acprop`` alike.
"""

from absl.testing import absltest
from absl.testing import parameterized
import jax
import jax.numpy as jnp
from optax import contrib
from optax._src import test_utils


class AcpropFloat16Test(parameterized.TestCase):

  @parameterized.named_parameters(('jit', True), ('no_jit', False))
  def test_acprop_float16_small_gradients_are_finite(self, use_jit):
    tx = contrib.scale_by_acprop()
    update_fn = jax.jit(tx.update) if use_jit else tx.update
    params = jnp.zeros(3, jnp.float16)
    state = tx.init(params)
    grads = jnp.array([1e-7, -1e-7, 0.0], jnp.float16)
    for _ in range(3):
      updates, state = update_fn(grads, state, params)
      self.assertEqual(updates.dtype, jnp.float16)
      test_utils.assert_tree_all_finite(updates)
      self.assertLessEqual(float(jnp.max(jnp.abs(updates))), 1.0)


if __name__ == '__main__':
  absltest.main()
