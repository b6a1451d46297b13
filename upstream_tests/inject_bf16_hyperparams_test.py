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
"""inject_hyperparams keeps hyperparameters float32 on bfloat16 params.

Upstream (0.2.8, main at 2edbcbe2; issue #1414) cast them to the params'
dtype: ``b2=0.999`` became 1.0 in bfloat16 and Adam's second moment never
updated.
"""

from absl.testing import absltest
from absl.testing import parameterized
import jax
import jax.numpy as jnp
import numpy as np
from optax import schedules
from optax._src import alias


class InjectBf16HyperparamsTest(parameterized.TestCase):

  def test_bf16_params_keep_float32_hyperparams(self):
    params = {'w': jnp.ones(3, jnp.bfloat16)}
    tx = schedules.inject_hyperparams(alias.adam)(learning_rate=1e-3, b2=0.999)
    state = tx.init(params)
    b2 = state.hyperparams['b2']
    self.assertEqual(b2.dtype, jnp.float32)
    self.assertEqual(float(b2), float(np.float32(0.999)))
    # First Adam step on g = 1: -lr * g / (|g| + eps) = -1e-3, and the inner
    # state keeps the bfloat16 dtypes of init, so the step can be scanned.
    updates, new_state = tx.update(params, state, params)
    np.testing.assert_allclose(
        np.asarray(updates['w'], np.float32), -1e-3, rtol=1e-2
    )
    self.assertEqual(
        jax.tree.map(lambda x: x.dtype, new_state.inner_state),
        jax.tree.map(lambda x: x.dtype, state.inner_state),
    )


if __name__ == '__main__':
  absltest.main()
