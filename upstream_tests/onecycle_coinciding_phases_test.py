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
"""The one-cycle schedules keep every phase when two end at the same step.

``linear_onecycle_schedule`` rises from ``v0 = peak_value / div_factor`` to
``peak_value`` until step ``int(pct_start * T)``, falls back to ``v0`` at
step ``int(pct_final * T)`` and to ``v0 / final_div_factor`` at step ``T``;
``pct_start == pct_final`` and ``pct_final == 1`` are allowed.
``cosine_onecycle_schedule`` rises until ``int(pct_start * T)`` and falls to
``v0 / final_div_factor`` at ``T``; ``pct_start == 1`` is allowed. Upstream
(0.2.8, main at 2edbcbe2) built the boundaries as a dict keyed by step, so
two phases ending at the same step overwrote one scale with the other: with
``pct_final = 1`` the linear schedule ended at ``peak_value /
final_div_factor`` (``div_factor`` times too high), with ``pct_start ==
pct_final`` it never rose to ``peak_value``, and the cosine schedule with
``pct_start = 1`` never rose either. A phase of zero steps is a jump at its
step.
"""

from absl.testing import absltest
import numpy as np
from optax.schedules import _schedule


class OneCycleCoincidingPhasesTest(absltest.TestCase):

  def test_linear_onecycle_pct_final_one_ends_at_final_value(self):
    schedule = _schedule.linear_onecycle_schedule(
        transition_steps=32,
        peak_value=2.0,
        pct_start=0.25,
        pct_final=1.0,
        div_factor=25.0,
        final_div_factor=1e4,
    )
    # v0 = 0.08; up to 2.0 at step 8, down towards v0 until step 32, then
    # v0 / 1e4.
    values = [float(schedule(t)) for t in (0, 8, 20, 31, 32, 40)]
    np.testing.assert_allclose(
        values, [0.08, 2.0, 1.04, 0.16, 8e-6, 8e-6], rtol=1e-5
    )

  def test_linear_onecycle_pct_start_equal_pct_final_reaches_peak(self):
    schedule = _schedule.linear_onecycle_schedule(
        transition_steps=32,
        peak_value=2.0,
        pct_start=0.5,
        pct_final=0.5,
        div_factor=25.0,
        final_div_factor=1e4,
    )
    # Up to 2.0 until step 16, back to v0 = 0.08 there, then down to 8e-6.
    values = [float(schedule(t)) for t in (0, 8, 15, 16, 24, 32)]
    np.testing.assert_allclose(
        values, [0.08, 1.04, 1.88, 0.08, 0.040004, 8e-6], rtol=1e-5
    )

  def test_cosine_onecycle_pct_start_one_reaches_peak(self):
    schedule = _schedule.cosine_onecycle_schedule(
        transition_steps=32,
        peak_value=2.0,
        pct_start=1.0,
        div_factor=25.0,
        final_div_factor=1e4,
    )
    # Half a cosine from 0.08 towards 2.0 over 32 steps, then 8e-6.
    values = [float(schedule(t)) for t in (0, 16, 32, 40)]
    np.testing.assert_allclose(values, [0.08, 1.04, 8e-6, 8e-6], rtol=1e-5)


if __name__ == '__main__':
  absltest.main()
