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
"""scale_by_rprop returns the step it computes on the same call.

iRprop- (Igel and Hüsken, 2000; ``torch.optim.Rprop`` agrees) grows a
coordinate's step size by ``eta_plus`` while its gradient keeps its sign,
shrinks it by ``eta_minus`` and skips the step where the sign flips, and
forgets the gradient there, so that the next call compares with zero and
keeps the step size. The update of a call is ``sign(g_t) * Delta_t``. With
``learning_rate=0.1``, ``eta_plus=1.2``, ``eta_minus=0.5`` and gradients
1, 1, 1, -1, 1 the step sizes are 0.1, 0.12, 0.144, 0.072, 0.072 and the
updates 0.1, 0.12, 0.144, 0, 0.072. Upstream (0.2.8, main at 2edbcbe2;
pull request #1725) returned the step stored at the previous call: 0, 0.1,
0.12, 0, 0.
"""

from absl.testing import absltest
from absl.testing import parameterized
import jax
import jax.numpy as jnp
from optax._src import test_utils
from optax._src import transform


class ScaleByRpropTest(parameterized.TestCase):

  @parameterized.named_parameters(('nojit', False), ('jit', True))
  def test_rprop_update_not_one_step_behind(self, use_jit):
    # iRprop-: the step size grows while the sign is kept (0.1, 0.12, 0.144),
    # shrinks on the flip (0.072), where no step is taken and the gradient
    # is forgotten, so the next call keeps 0.072 and steps by it.
    tx = transform.scale_by_rprop(
        learning_rate=0.1, eta_minus=0.5, eta_plus=1.2
    )
    update = jax.jit(tx.update) if use_jit else tx.update
    state = tx.init(jnp.zeros(2))
    got = []
    for g in (1.0, 1.0, 1.0, -1.0, 1.0):
      updates, state = update(jnp.array([g, -g]), state)
      got.append(updates)
    want = jnp.array([0.1, 0.12, 0.144, 0.0, 0.072])
    test_utils.assert_trees_all_close(
        jnp.stack(got), jnp.stack([want, -want], axis=1)
    )
    test_utils.assert_trees_all_close(state.step_sizes, jnp.full(2, 0.072))


if __name__ == '__main__':
  absltest.main()
