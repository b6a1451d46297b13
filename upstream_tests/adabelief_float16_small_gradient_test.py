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
"""adabelief with float16 params: finite updates for small gradients.

AdaBelief (Zhuang et al., 2020, Algorithm 2) divides the first moment by
``sqrt(s_t / (1 - b2 ** t)) + eps``, where ``s_t >= (1 - b2) (g_t - m_t) ** 2
+ eps_root > 0``: the first update of a gradient g is
``g / (sqrt(0.81 g ** 2 + eps_root / (1 - b2)) + eps)``, about 1.11 sign(g)
(and 0 for a zero gradient). Upstream (0.2.8, main at 2edbcbe2) stored
``s_t`` in the params' dtype: ``(1 - b2) (0.9 g) ** 2`` rounds to 0 in
float16 for every |g| under about 6e-3, and so does ``eps_root = 1e-16``;
the update was then ``m / eps`` (``eps = 1e-16``), far beyond float16's
range: inf for gradients of 1e-3 and 2e-6.
"""

from absl.testing import absltest
from absl.testing import parameterized
import jax
import jax.numpy as jnp
import numpy as np
import optax
from optax._src import test_utils


class AdabeliefFloat16Test(parameterized.TestCase):

  @parameterized.product(
      use_jit=(True, False), name=('scale_by_belief', 'adabelief')
  )
  def test_adabelief_float16_small_gradients_are_finite(self, use_jit, name):
    if name == 'scale_by_belief':
      tx, sign = optax.scale_by_belief(), 1.0
    else:
      tx, sign = optax.adabelief(learning_rate=1.0), -1.0
    update_fn = jax.jit(tx.update) if use_jit else tx.update
    params = jnp.zeros(4, jnp.float16)
    state = tx.init(params)
    grads = jnp.array([1e-3, -1e-3, 2e-6, 0.0], jnp.float16)
    g = np.asarray(grads, np.float64)
    first = g / (np.sqrt(0.81 * g**2 + 1e-16 / 1e-3) + 1e-16)
    for step in range(3):
      updates, state = update_fn(grads, state, params)
      self.assertEqual(updates.dtype, jnp.float16)
      test_utils.assert_tree_all_finite(updates)
      if step == 0:
        np.testing.assert_allclose(
            np.asarray(updates[:2], np.float64), sign * first[:2], rtol=1e-2
        )
        self.assertEqual(float(updates[3]), 0.0)


if __name__ == '__main__':
  absltest.main()
