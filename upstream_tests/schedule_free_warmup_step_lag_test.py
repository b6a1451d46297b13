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
"""Schedule-free SGD and AdamW step z with the rate that weighs the step.

Step t (counted from 1) of schedule-free learning moves z by
-gamma_t * direction and weighs the new z by gamma_t ** weight_lr_power
(Defazio et al. 2024, Algorithm 1; the authors' warmup is
lr * (k + 1) / warmup_steps at their step k from 0). Upstream (0.2.8, main
at 2edbcbe2) weighed step t with the schedule at t but let the base
optimizer, whose counter starts at 0, read it at t - 1: with a warmup the
first step did not move z at all and every warmup step lagged by one.
"""

from absl.testing import absltest
from absl.testing import parameterized
import jax.numpy as jnp
import numpy as np
from optax.contrib import _schedule_free


class ScheduleFreeWarmupTest(parameterized.TestCase):

  @parameterized.parameters('schedule_free_sgd', 'schedule_free_adamw')
  def test_warmup_steps_move_z_with_the_rate_of_the_step(self, name):
    # b1 = 1 evaluates the gradient at z; AdamW's normalised direction of a
    # constant gradient of 1 is 1, as SGD's is, so z moves by -gamma_t.
    kwargs = {'learning_rate': 0.3, 'warmup_steps': 3, 'b1': 1.0}
    if name == 'schedule_free_adamw':
      kwargs['weight_decay'] = 0.0
      kwargs['eps'] = 0.0
    opt = getattr(_schedule_free, name)(**kwargs)
    params = jnp.zeros(1)
    state = opt.init(params)
    z = []
    for _ in range(4):
      updates, state = opt.update(jnp.ones(1), state, params)
      params = params + updates
      z.append(float(state.z[0]))
    np.testing.assert_allclose(z, [-0.1, -0.3, -0.6, -0.9], rtol=1e-5)


if __name__ == '__main__':
  absltest.main()
