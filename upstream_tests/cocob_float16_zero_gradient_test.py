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
"""contrib.cocob with float16 params: a zero gradient, a zero update.

COCOB-Backprop (Orabona and Tommasi, 2017, Algorithm 2) starts each
coordinate's scale at ``L_0 = eps`` and keeps the running maximum of
``|g|``, so ``L >= eps > 0`` and a zero gradient bets nothing. Upstream
(0.2.8, main at 2edbcbe2) stored ``L`` in the params' dtype: ``eps = 1e-8``
rounds to 0 in float16, and a zero gradient gave ``0 / 0``, NaN updates
for ``scale_by_cocob`` and ``cocob`` alike.
"""

from absl.testing import absltest
from absl.testing import parameterized
import jax
import jax.numpy as jnp
from optax import contrib
from optax._src import test_utils


class CocobFloat16Test(parameterized.TestCase):

  @parameterized.named_parameters(('jit', True), ('no_jit', False))
  def test_cocob_float16_zero_gradient_gives_zero_update(self, use_jit):
    tx = contrib.scale_by_cocob()
    update_fn = jax.jit(tx.update) if use_jit else tx.update
    params = jnp.zeros(3, jnp.float16)
    state = tx.init(params)
    updates, state = update_fn(jnp.zeros(3, jnp.float16), state, params)
    self.assertEqual(updates.dtype, jnp.float16)
    test_utils.assert_tree_all_finite(updates)
    test_utils.assert_trees_all_equal(updates, jnp.zeros(3, jnp.float16))
    # Then g = [0.5, -1, 0]: L = G = |g| and the bet is
    # -g / (|g| * max(2 |g|, 100 |g|)) * |g| = -0.01 * sign(g).
    grads = jnp.array([0.5, -1.0, 0.0], jnp.float16)
    updates, _ = update_fn(grads, state, params)
    test_utils.assert_tree_all_finite(updates)
    test_utils.assert_trees_all_close(
        updates.astype(jnp.float32),
        jnp.array([-0.01, 0.01, 0.0]),
        rtol=1e-3,
        atol=0.0,
    )


if __name__ == '__main__':
  absltest.main()
