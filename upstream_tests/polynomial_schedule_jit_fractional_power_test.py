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
"""polynomial_schedule with a fractional power ends at end_value under jit.

After transition_steps the schedule is end_value, whatever the power. Upstream
(0.2.8, main at 2edbcbe2) computed the remaining fraction as
1 - count / transition_steps; under jit XLA rewrote the division as a product
with 1 / transition_steps, which rounds above 1 for transition_steps of 3, 7,
13, 333 or 1000, so the fraction was a tiny negative number and its power 0.5
was NaN from the end of the transition on (eager calls gave end_value).
"""

from absl.testing import absltest
import jax
import jax.numpy as jnp
import numpy as np
from optax.schedules import _schedule


class PolynomialScheduleJitTest(absltest.TestCase):

  def test_fractional_power_under_jit_ends_at_end_value(self):
    for steps in (3, 7, 13, 333, 1000):
      schedule_fn = jax.jit(
          _schedule.polynomial_schedule(
              init_value=1.0, end_value=0.1, power=0.5, transition_steps=steps
          )
      )
      for count in (steps, steps + 5):
        np.testing.assert_allclose(
            schedule_fn(jnp.int32(count)), 0.1, rtol=1e-6
        )


if __name__ == '__main__':
  absltest.main()
