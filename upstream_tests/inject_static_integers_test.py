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
"""Integer hyperparameters of inject_hyperparams stay static.

Upstream (0.2.8, main at 2edbcbe2; issue #412) traced ``adafactor``'s
``min_dim_size_to_factor`` and ``lbfgs``'s ``memory_size``, which are used in
Python control flow and shapes: under ``jax.jit`` both raised
``TracerBoolConversionError``.
"""

from absl.testing import absltest
from absl.testing import parameterized
import jax
import jax.numpy as jnp
import numpy as np
from optax import schedules
from optax._src import alias
from optax._src import update


def _loss(params):
  return jnp.sum((params['w'] - 2.0) ** 2)


class InjectStaticIntegersTest(parameterized.TestCase):

  def test_adafactor_min_dim_size_to_factor_stays_an_int(self):
    params = {'w': jnp.arange(12.0).reshape(4, 3) / 10}
    grads = jax.grad(_loss)(params)
    injected = schedules.inject_hyperparams(alias.adafactor)(
        learning_rate=0.1, min_dim_size_to_factor=2
    )
    plain = alias.adafactor(learning_rate=0.1, min_dim_size_to_factor=2)
    state = injected.init(params)
    self.assertEqual(int(state.hyperparams['min_dim_size_to_factor']), 2)
    updates, _ = jax.jit(injected.update)(grads, state, params)
    expected, _ = plain.update(grads, plain.init(params), params)
    np.testing.assert_allclose(updates['w'], expected['w'], rtol=1e-5)

  def test_lbfgs_memory_size_under_jit(self):
    params = {'w': jnp.zeros(3)}
    tx = schedules.inject_hyperparams(alias.lbfgs)(
        learning_rate=1.0, memory_size=3
    )

    @jax.jit
    def step(params, state):
      value, grad = jax.value_and_grad(_loss)(params)
      updates, state = tx.update(
          grad, state, params, value=value, grad=grad, value_fn=_loss
      )
      return update.apply_updates(params, updates), state

    state = tx.init(params)
    for _ in range(3):
      params, state = step(params, state)
    # A quadratic: L-BFGS with a line search reaches the minimum 2.0.
    np.testing.assert_allclose(params['w'], 2.0, rtol=1e-5)


if __name__ == '__main__':
  absltest.main()
