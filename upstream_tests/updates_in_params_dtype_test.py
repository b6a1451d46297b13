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
"""Updates come back in each parameter's dtype on mixed params.

Upstream 0.2.8 returns float32 updates for bfloat16 leaves of a mixed
float32/bfloat16 tree in several optimizers (a float32 scalar statistic or
state promotes them). ``apply_updates`` casts back to the params' dtype,
which hides it; a user who accumulates or inspects the updates sees it.
"""

from absl.testing import absltest
from absl.testing import parameterized
import jax
import jax.numpy as jnp
import optax


class UpdatesInParamsDtypeTest(parameterized.TestCase):

  @parameterized.named_parameters(
      ('polyak_sgd', optax.polyak_sgd, True),
      (
          'amsgrad_mu_dtype',
          lambda: optax.amsgrad(0.1, mu_dtype=jnp.float32),
          False,
      ),
      ('flatten_adam', lambda: optax.flatten(optax.adam(0.1)), False),
      ('prodigy', optax.contrib.prodigy, False),
      ('dog', optax.contrib.dog, False),
      ('momo', optax.contrib.momo, True),
      ('inject_adam', lambda: optax.inject_hyperparams(optax.adam)(0.1), False),
  )
  def test_update_dtypes(self, make, needs_value):
    params = {
        'w': jnp.array([0.3, -0.2, 0.1], jnp.float32),
        'b': jnp.array([0.3, -0.2, 0.1], jnp.bfloat16),
    }
    grads = {
        'w': jnp.array([0.5, -0.25, 0.125], jnp.float32),
        'b': jnp.array([0.5, -0.25, 0.125], jnp.bfloat16),
    }
    tx = make()
    extra = {'value': jnp.float32(1.0)} if needs_value else {}
    updates, _ = tx.update(grads, tx.init(params), params, **extra)
    self.assertEqual(
        jax.tree.map(lambda u: u.dtype, updates),
        {'w': jnp.float32, 'b': jnp.bfloat16},
    )


if __name__ == '__main__':
  absltest.main()
