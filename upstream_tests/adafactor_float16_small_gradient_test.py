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
"""scale_by_factored_rms (Adafactor) with float16 params: finite updates.

Adafactor (Shazeer and Stern, 2018, Algorithms 4 and 5) keeps running means
of ``g ** 2 + eps1`` (``epsilon=1e-30``), factored or not, and divides the
gradient by their square root; the statistics are positive, so a zero
gradient gives a zero update, and at the first step (decay 0) any gradient
much larger than ``1e-15`` in size gives ``g / |g| = +-1``. Upstream (0.2.8,
main at 2edbcbe2) stored the statistics in the params' dtype and divided
by the stored values: in float16, ``1e-30`` and ``g ** 2`` for ``|g|``
below about ``2.4e-4`` round to 0, and the update was ``0 / 0`` (NaN) for a
zero gradient and ``g / 0`` (inf) for a small one, for ``optax.adafactor``
too. The update is bounded by what the step adds to each statistic,
``(1 - decay) * mean(g ** 2 + eps1)``, which rounding to float16 does not
change.
"""

from absl.testing import absltest
from absl.testing import parameterized
import jax
import jax.numpy as jnp
from optax._src import factorized
from optax._src import test_utils


class FactoredRmsFloat16Test(parameterized.TestCase):

  @parameterized.product(
      use_jit=(True, False),
      shape=((4,), (4, 3)),
      grad_and_update=((0.0, 0.0), (1e-4, 1.0), (-3e-6, -1.0)),
  )
  def test_factored_rms_float16_small_gradients_are_finite(
      self, use_jit, shape, grad_and_update
  ):
    grad, expected = grad_and_update
    tx = factorized.scale_by_factored_rms(min_dim_size_to_factor=2)
    update_fn = jax.jit(tx.update) if use_jit else tx.update
    params = jnp.zeros(shape, jnp.float16)
    state = tx.init(params)
    updates, _ = update_fn(jnp.full(shape, grad, jnp.float16), state, params)
    self.assertEqual(updates.dtype, jnp.float16)
    test_utils.assert_tree_all_finite(updates)
    test_utils.assert_trees_all_close(
        updates.astype(jnp.float32),
        jnp.full(shape, expected),
        rtol=1e-3,
        atol=0.0,
    )


if __name__ == '__main__':
  absltest.main()
