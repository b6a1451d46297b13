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
"""scale_by_rprop reads a sign change from the signs, not from their product.

Rprop grows a parameter's step size while its gradient keeps its sign and
shrinks it when the sign flips. Upstream (0.2.8, main at 2edbcbe2) took the
sign of the product of the gradient and the previous step: for small
magnitudes the product underflowed to 0 (1e-30 * 1e-20 in float32), which
counts as "no information", so the step size stayed where it was both while
the sign was kept and after it flipped.
"""

from absl.testing import absltest
from absl.testing import parameterized
import jax
import jax.numpy as jnp
from optax._src import test_utils
from optax._src import transform


class TransformTest(parameterized.TestCase):

  @parameterized.parameters(False, True)
  def test_rprop_step_sizes_follow_signs_of_tiny_gradients(self, use_jit):
    tx = transform.scale_by_rprop(learning_rate=1e-20, min_step_size=0.0)
    update = jax.jit(tx.update) if use_jit else tx.update
    state = tx.init(jnp.zeros(2, jnp.float32))
    step_sizes = []
    for g in (1e-30, 1e-30, -1e-30):
      _, state = update(jnp.array([g, -g], jnp.float32), state)
      step_sizes.append(state.step_sizes)
    # Kept at the first step (no previous step), grown by eta_plus = 1.2
    # while the sign is kept, shrunk by eta_minus = 0.5 when it flips.
    expected = jnp.array([[1e-20] * 2, [1.2e-20] * 2, [6e-21] * 2])
    test_utils.assert_trees_all_close(
        jnp.stack(step_sizes), expected, rtol=1e-6
    )


if __name__ == '__main__':
  absltest.main()
