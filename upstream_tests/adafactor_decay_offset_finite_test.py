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
"""Adafactor's decay before its step offset.

Adafactor's second-moment decay is ``1 - (t + 1) ** -0.8`` for the local step
``t = count - step_offset`` (Shazeer and Stern, 2018), defined from ``t =
0``, where it is 0; ``step_offset`` (``decay_offset`` of ``adafactor``) is
the starting step of fine-tuning. On a fresh state the first
``step_offset`` steps have a negative ``t``: upstream (0.2.8, main at
2edbcbe2; pull request #1791) raised ``t + 1 <= 0`` to the power ``-0.8``,
the decay was NaN (or ``-inf`` for ``t = -1``) and the statistics stayed
NaN for good. Steps before the offset take the decay of
local step 0. With ``step_offset = 2`` and gradients ``0.1 * (k + 1)`` at
step ``k`` on a 4 x 3 matrix, the row and column statistics are
``g ** 2`` (0.01, 0.04, 0.09) for steps 0 to 2, then ``d * 0.09 + (1 - d) *
0.16`` with ``d = 1 - 2 ** -0.8``, and the updates ``g / sqrt(v)`` are 1, 1,
1 and ``0.4 / sqrt(v)``.
"""

from absl.testing import absltest
from absl.testing import parameterized
import jax
import jax.numpy as jnp
import numpy as np
from optax._src import alias
from optax._src import factorized


class AdafactorDecayOffsetTest(parameterized.TestCase):

  @parameterized.parameters(False, True)
  def test_steps_before_step_offset_use_the_first_decay_rate(self, jit):
    transform = factorized.scale_by_factored_rms(
        step_offset=2, min_dim_size_to_factor=2
    )
    update = jax.jit(transform.update) if jit else transform.update
    params = jnp.zeros((4, 3))
    state = transform.init(params)
    updates = []
    for step in range(4):
      grad = jnp.full((4, 3), 0.1 * (step + 1), jnp.float32)
      u, state = update(grad, state, params)
      updates.append(np.asarray(u))
    decay = 1.0 - 2.0**-0.8
    v = decay * 0.09 + (1.0 - decay) * 0.16
    for stats in (state.v_row, state.v_col):
      np.testing.assert_allclose(stats, np.full(stats.shape, v), rtol=1e-6)
    for got, want in zip(updates, [1.0, 1.0, 1.0, 0.4 / np.sqrt(v)]):
      np.testing.assert_allclose(got, np.full((4, 3), want), rtol=1e-6)

  @parameterized.parameters(False, True)
  def test_adafactor_decay_offset_updates_are_finite(self, jit):
    # Constant gradients 0.1: the statistics are 0.01 at every step, and the
    # update is -learning_rate * g / |g| times the params' RMS, 1.
    transform = alias.adafactor(learning_rate=1e-3, decay_offset=3)
    params = {'w': jnp.ones((4, 3))}
    update = jax.jit(transform.update) if jit else transform.update
    state = transform.init(params)
    for _ in range(5):
      updates, state = update({'w': jnp.full((4, 3), 0.1)}, state, params)
      np.testing.assert_allclose(updates['w'], -1e-3, rtol=1e-6)


if __name__ == '__main__':
  absltest.main()
