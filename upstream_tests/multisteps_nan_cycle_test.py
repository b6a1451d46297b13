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

Upstream resets the accumulator by multiplying it by zero, and
``0 * nan`` is NaN: one bad mini-batch poisons every later update.
"""

from absl.testing import absltest
from absl.testing import parameterized
import jax.numpy as jnp
import numpy as np
import optax


class MultiStepsNanCycleTest(parameterized.TestCase):

  def test_later_cycles_are_clean(self):
    params = {'w': jnp.zeros(2)}
    ms = optax.MultiSteps(optax.sgd(1.0), every_k_schedule=2)
    state = ms.init(params)
    grads = [jnp.array([jnp.nan, 1.0])] + [jnp.array([1.0, 1.0])] * 5
    emitted = []
    for i, g in enumerate(grads):
      updates, state = ms.update({'w': g}, state, params)
      if i % 2 == 1:
        emitted.append(np.asarray(updates['w']))
    np.testing.assert_array_equal(emitted[0], [np.nan, -1.0])
    np.testing.assert_array_equal(emitted[1], [-1.0, -1.0])
    np.testing.assert_array_equal(emitted[2], [-1.0, -1.0])


if __name__ == '__main__':
  absltest.main()
