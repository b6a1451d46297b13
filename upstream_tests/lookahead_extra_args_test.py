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
"""lookahead forwards extra arguments to its fast optimizer.

Upstream's ``lookahead`` (0.2.8, main at 2edbcbe2) was a
``GradientTransformation`` whose update took no extra arguments: wrapping
``lbfgs`` raised ``TypeError`` on ``value=``.
"""

from absl.testing import absltest
from absl.testing import parameterized
import jax
import jax.numpy as jnp
import numpy as np
from optax._src import alias
from optax._src import lookahead


class LookaheadExtraArgsTest(parameterized.TestCase):

  def test_forwards_extra_args_to_the_fast_optimizer(self):
    params = lookahead.LookaheadParams.init_synced({'w': jnp.ones(2)})
    fn = lambda p: jnp.sum(p['w'] ** 2)
    tx = lookahead.lookahead(alias.lbfgs(), sync_period=2, slow_step_size=0.5)
    state = tx.init(params)
    value, grad = jax.value_and_grad(fn)(params.fast)
    updates, _ = tx.update(
        grad, state, params, value=value, grad=grad, value_fn=fn
    )
    # First L-BFGS step: -g / ||g|| (the line search accepts step 1), with
    # g = (2, 2).
    np.testing.assert_allclose(updates.fast['w'], -np.sqrt(0.5), rtol=1e-6)


if __name__ == '__main__':
  absltest.main()
