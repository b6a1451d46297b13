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
"""inject_hyperparams gives the plain optimizer's updates (upstream #1532).

Upstream's plain Adam derives ``1 - b2`` from the Python double while the
injected one derives it from a float32 array: after five steps the two
drift apart (3.6e-7 in this test).
"""

from absl.testing import absltest
from absl.testing import parameterized
import jax
import jax.numpy as jnp
import numpy as np
import optax


def _run(tx, steps=5):
  params = {'w': jnp.linspace(-1.0, 1.0, 5)}
  state = tx.init(params)
  for _ in range(steps):
    grads = jax.tree.map(lambda x: jnp.sin(3.0 * x) + x, params)
    updates, state = tx.update(grads, state, params)
    params = optax.apply_updates(params, updates)
  return params['w']


class InjectMatchesPlainTest(parameterized.TestCase):

  @parameterized.parameters(
      ('adam', dict(learning_rate=1e-2)),
      ('adamw', dict(learning_rate=1e-2)),
      ('sgd', dict(learning_rate=1e-2, momentum=0.9)),
  )
  def test_same_updates_issue_1532(self, name, kwargs):
    factory = getattr(optax, name)
    plain = _run(factory(**kwargs))
    injected = _run(optax.inject_hyperparams(factory)(**kwargs))
    np.testing.assert_array_equal(injected, plain)


if __name__ == '__main__':
  absltest.main()
