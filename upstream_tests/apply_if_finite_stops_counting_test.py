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
"""apply_if_finite stops counting once it has given up (upstream #1746).

Upstream's ``notfinite_count`` keeps growing after the wrapper has reached
``max_consecutive_errors`` and lets non-finite updates through.
"""

from absl.testing import absltest
from absl.testing import parameterized
import jax.numpy as jnp
import numpy as np
import optax


class ApplyIfFiniteStopsCountingTest(parameterized.TestCase):

  def test_stops_counting_once_given_up_issue_1746(self):
    params = {'w': jnp.ones(2)}
    tx = optax.apply_if_finite(optax.sgd(1.0), max_consecutive_errors=2)
    state = tx.init(params)
    counts, totals, updates = [], [], []
    for _ in range(5):
      u, state = tx.update({'w': jnp.array([jnp.nan, 1.0])}, state, params)
      counts.append(int(state.notfinite_count))
      totals.append(int(state.total_notfinite))
      updates.append(np.asarray(u['w']))
    self.assertEqual(totals, [1, 2, 3, 4, 5])
    self.assertEqual(counts, [1, 2, 3, 3, 3])
    # Skipped twice, then the non-finite updates go through.
    np.testing.assert_array_equal(updates[1], [0.0, 0.0])
    np.testing.assert_array_equal(updates[4], [np.nan, -1.0])


if __name__ == '__main__':
  absltest.main()
