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
"""The state keeps the dtypes of ``init`` after a step.

On mixed float32/bfloat16 params, upstream 0.2.8's ``init`` makes some
scalar statistics bfloat16 (the lowest dtype) and its update returns them
float32: the state changes type after the first step, so a jitted step
compiles twice and a ``lax.scan`` over steps fails on the carry's type.
"""

from absl.testing import absltest
from absl.testing import parameterized
import jax
import jax.numpy as jnp
from optax import contrib
from optax._src import alias
from optax._src import update
from optax.schedules import _inject


def _dtypes(tree):
  return jax.tree.map(lambda x: jnp.asarray(x).dtype, tree)


class StateDtypeStabilityTest(parameterized.TestCase):

  @parameterized.named_parameters(
      ('prodigy', contrib.prodigy, False),
      ('dadapt_adamw', contrib.dadapt_adamw, False),
      ('dog', contrib.dog, False),
      ('dowg', contrib.dowg, False),
      ('momo', contrib.momo, True),
      ('momo_adam', contrib.momo_adam, True),
      (
          'inject_adam',
          lambda: _inject.inject_hyperparams(alias.adam)(0.1),
          False,
      ),
  )
  def test_state_dtypes_after_a_step(self, make, needs_value):
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
    state = tx.init(params)
    _, new_state = tx.update(grads, state, params, **extra)
    self.assertEqual(_dtypes(new_state), _dtypes(state))

  def test_scan_over_steps(self):
    params = {'w': jnp.ones(3, jnp.float32), 'b': jnp.ones(3, jnp.bfloat16)}
    tx = contrib.prodigy()

    def body(carry, _):
      params, state = carry
      updates, state = tx.update(params, state, params)
      return (update.apply_updates(params, updates), state), None

    (params, _), _ = jax.lax.scan(body, (params, tx.init(params)), length=3)
    self.assertEqual(params['b'].dtype, jnp.bfloat16)


if __name__ == '__main__':
  absltest.main()
