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
"""contrib.adopt without clipping: the first step leaves the momentum at 0.

ADOPT (Taniguchi et al. 2024, Algorithm 1, and the authors' adopt.py) only
sets the second moment to g_0 ** 2 at the first step; the momentum starts at
0 and the first update is 0. Upstream (0.2.8, main at 2edbcbe2) still
computed the normalized gradient g_0 / max(sqrt(v), eps) with v = 0 and
weighted it by 1 - b1 = 0 there: with use_clipping=False the quotient
overflowed to inf wherever |g_0| > eps * the largest float (float16: above
0.0655 with the default eps; float32: above 3.4e32), and 0 * inf made the
momentum NaN, and every later update with it.
"""

from absl.testing import absltest
from absl.testing import parameterized
import jax
import jax.numpy as jnp
import numpy as np
from optax import contrib


class AdoptFirstStepTest(parameterized.TestCase):

  @parameterized.product(
      # The second step normalizes g by sqrt(v_0) = |g| to sign(g), except
      # in float32 at 1e33, where v_0 = g ** 2 overflows to inf (g / inf = 0).
      dtype_grad_sign=(('float16', 1.0, 1.0), ('float32', 1e33, 0.0)),
      nesterov=(False, True),
      use_jit=(False, True),
  )
  def test_adopt_first_step_keeps_momentum_zero_for_large_gradients(
      self, dtype_grad_sign, nesterov, use_jit
  ):
    dtype, grad, sign = dtype_grad_sign
    tx = contrib.scale_by_adopt(use_clipping=False, nesterov=nesterov)
    update_fn = jax.jit(tx.update) if use_jit else tx.update
    grads = jnp.array([grad, -grad], dtype)
    state = tx.init(jnp.zeros(2, dtype))
    updates, state = update_fn(grads, state)
    np.testing.assert_array_equal(np.asarray(state.mu, np.float32), [0, 0])
    np.testing.assert_array_equal(np.asarray(updates, np.float32), [0, 0])
    # The momentum is (1 - b1) * sign, Nesterov's update b1 m + (1 - b1) sign.
    updates, state = update_fn(grads, state)
    expected = 0.1 * sign * (0.9 + 1.0 if nesterov else 1.0)
    np.testing.assert_allclose(
        np.asarray(updates, np.float32), [expected, -expected], rtol=2e-3
    )


if __name__ == '__main__':
  absltest.main()
