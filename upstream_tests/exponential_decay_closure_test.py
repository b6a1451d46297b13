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
"""exponential_decay without end_value leaves no empty closure cell.

Upstream (0.2.8, main at 2edbcbe2) bound a name the schedule closes over only
when ``end_value`` was given, so the schedule's closure held an empty cell.
Tools that turn a function's closure into a pytree
(``optimistix.OptaxMinimiser`` through ``closure_to_pytree``) failed on it with
``ValueError: Cell is empty``.
"""

from absl.testing import absltest
from absl.testing import parameterized
import numpy as np
from optax.schedules import _schedule


class ExponentialDecayClosureTest(parameterized.TestCase):

  @parameterized.named_parameters(
      ('no_end_value', {}),
      ('staircase', {'staircase': True}),
      ('transition_begin', {'transition_begin': 5}),
  )
  def test_no_empty_closure_cell(self, kwargs):
    schedule = _schedule.exponential_decay(1.0, 10, 0.5, **kwargs)
    # Reading an empty cell raises ValueError('Cell is empty').
    contents = [cell.cell_contents for cell in schedule.__closure__ or ()]
    self.assertNotEmpty(contents)
    begin = kwargs.get('transition_begin', 0)
    np.testing.assert_allclose(schedule(begin + 20), 0.25, rtol=1e-6)


if __name__ == '__main__':
  absltest.main()
