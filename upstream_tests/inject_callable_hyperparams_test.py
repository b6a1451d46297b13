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
"""inject_hyperparams passes a mask function through.

Upstream (0.2.8, main at 2edbcbe2; issue #1373) treated every callable
argument as a schedule of the step count, so ``adamw``'s ``mask`` was called
with the count, was stored in ``state.hyperparams`` and decayed no
parameter.
"""

from absl.testing import absltest
from absl.testing import parameterized
import jax
import jax.numpy as jnp
import numpy as np
from optax import schedules
from optax._src import alias


class InjectCallableHyperparamsTest(parameterized.TestCase):

  def test_weight_decay_mask_function_is_passed_through(self):
    params = {'w': jnp.ones((2, 2)), 'b': jnp.ones(2)}
    mask_fn = lambda p: jax.tree.map(lambda x: x.ndim > 1, p)
    tx = schedules.inject_hyperparams(alias.adamw)(
        learning_rate=0.1, weight_decay=0.1, mask=mask_fn
    )
    state = tx.init(params)
    self.assertNotIn('mask', state.hyperparams)
    updates, _ = tx.update(params, state, params)
    # First Adam step: g / (|g| + eps) = 1; decay 0.1 * p = 0.1 on `w` only.
    np.testing.assert_allclose(updates['w'], -0.1 * (1.0 + 0.1), rtol=1e-6)
    np.testing.assert_allclose(updates['b'], -0.1, rtol=1e-6)


if __name__ == '__main__':
  absltest.main()
