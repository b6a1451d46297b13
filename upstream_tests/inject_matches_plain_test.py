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
"""inject_hyperparams gives the plain optimizer's updates.

Upstream's plain Adam (0.2.8, main at 2edbcbe2; issue #1532) derived
``1 - b2`` from the Python double while the injected one derived it from a
float32 array: after five steps the two drifted apart (3.6e-7 in this
test).
"""

from absl.testing import absltest
from absl.testing import parameterized
import jax.numpy as jnp
import numpy as np
from optax import schedules
from optax._src import alias


class InjectMatchesPlainTest(parameterized.TestCase):

  @parameterized.parameters(
      ('adam', {'learning_rate': 1e-2}),
      ('adamw', {'learning_rate': 1e-2}),
      ('sgd', {'learning_rate': 1e-2, 'momentum': 0.9}),
  )
  def test_injected_gives_the_same_updates_as_plain(self, name, kwargs):

    def run(tx):
      params = jnp.linspace(-1.0, 1.0, 5)
      state = tx.init(params)
      for _ in range(5):
        grads = jnp.sin(3.0 * params) + params
        updates, state = tx.update(grads, state, params)
        params = params + updates
      return params

    factory = getattr(alias, name)
    plain = run(factory(**kwargs))
    injected = run(schedules.inject_hyperparams(factory)(**kwargs))
    np.testing.assert_array_equal(injected, plain)


if __name__ == '__main__':
  absltest.main()
