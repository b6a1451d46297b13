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
"""warmup_cosine_decay_schedule with peak_value 0 ends at end_value.

The cosine part of ``warmup_cosine_decay_schedule`` is
``peak * ((1 - end / peak) * c ** exponent + end / peak)``, that is
``(peak - end) * c ** exponent + end``, with ``c = (1 + cos(pi * tau / T)) /
2`` falling from 1 to 0 over the ``T = decay_steps - warmup_steps`` steps
after the warmup; ``end_value`` is the "End value of the scalar to be
annealed". Upstream (0.2.8, main at 2edbcbe2; pull request #884) replaced
the ratio ``end / peak`` by 0 when ``peak_value`` was 0, so the schedule
stayed at 0 instead of ending at ``end_value``. The form
without the ratio gives ``end * (1 - c ** exponent)`` for a zero peak: with
warmup 2, decay 10 and end 0.5 the values are 0 during the warmup, then
``0.5 * (1 - cos(pi / 4)) / 2 = 0.0732233`` at step 4, ``0.25`` at step 6,
``0.5 * (1 + cos(pi / 4)) / 2 = 0.4267767`` at step 8 and ``0.5`` from step
10 on.
"""

import math

from absl.testing import absltest
from absl.testing import parameterized
import jax
import jax.numpy as jnp
import numpy as np
from optax.schedules import _schedule


class WarmupCosineDecayZeroPeakTest(parameterized.TestCase):

  @parameterized.parameters(False, True)
  def test_zero_peak_ends_at_end_value(self, jit):
    schedule = _schedule.warmup_cosine_decay_schedule(
        init_value=0.0,
        peak_value=0.0,
        warmup_steps=2,
        decay_steps=10,
        end_value=0.5,
    )
    if jit:
      schedule = jax.jit(schedule)
    steps = (0, 1, 2, 4, 6, 8, 10, 11, 100)
    values = [float(schedule(jnp.asarray(t))) for t in steps]
    quarter = 0.5 * (1 - math.sqrt(0.5)) / 2
    np.testing.assert_allclose(
        values,
        [0.0, 0.0, 0.0, quarter, 0.25, 0.5 - quarter, 0.5, 0.5, 0.5],
        rtol=1e-6,
        atol=1e-7,
    )

  def test_zero_peak_with_exponent_ends_at_end_value(self):
    # exponent 2, no warmup, 8 decay steps: step 4 gives 0.5 * (1 - 0.5**2).
    schedule = _schedule.warmup_cosine_decay_schedule(
        init_value=0.0,
        peak_value=0.0,
        warmup_steps=0,
        decay_steps=8,
        end_value=0.5,
        exponent=2.0,
    )
    values = [float(schedule(t)) for t in (0, 4, 8, 9)]
    np.testing.assert_allclose(
        values, [0.0, 0.375, 0.5, 0.5], rtol=1e-6, atol=1e-7
    )


if __name__ == '__main__':
  absltest.main()
