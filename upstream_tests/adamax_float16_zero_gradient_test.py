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
"""scale_by_adamax with float16 params: a zero gradient, a zero update.

AdaMax (Kingma and Ba, 2015, Algorithm 2) divides the first moment by the
exponentially weighted infinity norm ``u = max(b2 * u, |g| + eps)``, which
is at least ``eps``, so a zero gradient (a zero first moment) gives a zero
update. Upstream (0.2.8, main at 2edbcbe2; pull request #1768) stored ``u``
in the params' dtype and divided by the stored value: ``eps = 1e-8`` rounds
to 0 in float16, ``u`` was 0 and the update ``0 / 0`` NaN, for
``optax.adamax`` and ``optax.adamaxw`` alike.
"""

from absl.testing import absltest
from absl.testing import parameterized
import jax
import jax.numpy as jnp
from optax._src import test_utils
from optax._src import transform


class ScaleByAdamaxFloat16Test(parameterized.TestCase):

  @parameterized.named_parameters(('jit', True), ('no_jit', False))
  def test_adamax_float16_zero_gradient_gives_zero_update(self, use_jit):
    tx = transform.scale_by_adamax()
    update_fn = jax.jit(tx.update) if use_jit else tx.update
    params = jnp.zeros(4, jnp.float16)
    state = tx.init(params)
    for _ in range(3):
      updates, state = update_fn(jnp.zeros(4, jnp.float16), state)
      self.assertEqual(updates.dtype, jnp.float16)
      test_utils.assert_tree_all_finite(updates)
      test_utils.assert_trees_all_equal(updates, jnp.zeros(4, jnp.float16))

  @parameterized.named_parameters(('jit', True), ('no_jit', False))
  def test_adamax_float16_zero_then_nonzero_gradient(self, use_jit):
    # After a zero gradient, g = [0.5, -0.25, 0, 0]: m = 0.1 * g,
    # u = max(0.999 * u, |g| + eps) and the update m / (1 - 0.9 ** 2) / u is
    # +-0.1 / 0.19 where g is not 0 and 0 where it is.
    tx = transform.scale_by_adamax()
    update_fn = jax.jit(tx.update) if use_jit else tx.update
    state = tx.init(jnp.zeros(4, jnp.float16))
    _, state = update_fn(jnp.zeros(4, jnp.float16), state)
    grads = jnp.array([0.5, -0.25, 0.0, 0.0], jnp.float16)
    updates, _ = update_fn(grads, state)
    test_utils.assert_tree_all_finite(updates)
    expected = jnp.array([1.0, -1.0, 0.0, 0.0]) * (0.1 / 0.19)
    test_utils.assert_trees_all_close(
        updates.astype(jnp.float32), expected, rtol=2e-3, atol=0.0
    )


if __name__ == '__main__':
  absltest.main()
