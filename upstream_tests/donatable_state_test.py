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
"""Every state leaf owns its buffer, so the state can be donated to jit.

Upstream's ``init`` (0.2.8, main at 2edbcbe2) of some optimizers put one
array object in several
state fields (scale_by_lbfgs, cocob, and a hyperparameter that
inject_hyperparams keeps and the inner ``init`` stores as given), or the
params themselves in the state (mechanize, prodigy, cocob, dog, dowg,
madgrad): donating that state raised ``Attempt to donate the same buffer
twice`` (or a buffer used by the same call).
"""

from absl.testing import absltest
from absl.testing import parameterized
import jax
import jax.numpy as jnp
from optax import contrib
from optax._src import alias
from optax._src import transform
from optax.schedules import _inject


class DonatableStateTest(parameterized.TestCase):

  @parameterized.named_parameters(
      ('scale_by_lbfgs', transform.scale_by_lbfgs),
      ('mechanize', lambda: contrib.mechanize(alias.adam(1e-3))),
      ('cocob', contrib.cocob),
      ('dog', contrib.dog),
      ('dowg', contrib.dowg),
      ('madgrad', lambda: contrib.madgrad(1e-3)),
      (
          'inject_prodigy',
          lambda: _inject.inject_hyperparams(contrib.prodigy)(
              learning_rate=1.0
          ),
      ),
      (
          'inject_schedule_free_adamw',
          lambda: _inject.inject_hyperparams(contrib.schedule_free_adamw)(
              learning_rate=1.0
          ),
      ),
  )
  def test_donated_step_runs(self, make):
    params = {'w': jnp.ones((64, 64)), 'b': jnp.ones(3), 'm': jnp.ones((4, 3))}
    tx = make()
    state = tx.init(params)
    step = jax.jit(tx.update, donate_argnums=(1,))
    updates, state = step(params, state, params)
    updates, state = step(params, state, params)
    for leaf in jax.tree.leaves(updates):
      self.assertTrue(bool(jnp.all(jnp.isfinite(leaf))))


if __name__ == '__main__':
  absltest.main()
