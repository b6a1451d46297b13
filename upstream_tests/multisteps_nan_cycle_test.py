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
"""A NaN gradient spoils only its own MultiSteps cycle.

Upstream (0.2.8, main at 2edbcbe2) reset the accumulator by multiplying it
by zero, and ``0 * nan`` is NaN: one bad mini-batch poisoned every later
update. The updates of a step that does not emit were zeroed the same way,
so the step given the NaN returned a NaN too.
"""

from absl.testing import absltest
from absl.testing import parameterized
import jax.numpy as jnp
import numpy as np
from optax._src import alias
from optax.transforms import _accumulation


class MultiStepsNanCycleTest(parameterized.TestCase):

  def test_nan_gradient_spoils_only_its_cycle(self):
    params = {'w': jnp.zeros(2)}
    ms = _accumulation.MultiSteps(alias.sgd(1.0), every_k_schedule=2)
    state = ms.init(params)
    grads = [jnp.array([jnp.nan, 1.0])] + [jnp.array([1.0, 1.0])] * 5
    emitted, held = [], []
    for i, g in enumerate(grads):
      updates, state = ms.update({'w': g}, state, params)
      if i % 2 == 1:
        emitted.append(np.asarray(updates['w']))
      else:
        held.append(np.asarray(updates['w']))
    # A step that does not emit returns zeros, the one given the NaN too.
    for held_updates in held:
      np.testing.assert_array_equal(held_updates, [0.0, 0.0])
    # The mean of the first cycle is (nan, 1): sgd(1.0) gives (nan, -1).
    np.testing.assert_array_equal(emitted[0], [np.nan, -1.0])
    np.testing.assert_array_equal(emitted[1], [-1.0, -1.0])
    np.testing.assert_array_equal(emitted[2], [-1.0, -1.0])


if __name__ == '__main__':
  absltest.main()
