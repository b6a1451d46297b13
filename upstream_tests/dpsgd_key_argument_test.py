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
"""dpsgd's fourth argument is ``key``, as on upstream main.

In upstream 0.2.8 it is ``seed``, which ``differentially_private_aggregate``
deprecates: every call warns, and ``inject_hyperparams`` lists ``seed``.
"""

import warnings

from absl.testing import absltest
from absl.testing import parameterized
import jax
import jax.numpy as jnp
import numpy as np
import optax


class DpsgdKeyArgumentTest(parameterized.TestCase):

  def test_key_is_the_fourth_argument(self):
    with warnings.catch_warnings(record=True) as caught:
      warnings.simplefilter('always')
      tx = optax.contrib.dpsgd(0.1, 1.0, 0.5, 3)
    self.assertEqual(
        [
            str(w.message)
            for w in caught
            if issubclass(w.category, DeprecationWarning)
        ],
        [],
    )
    by_key = optax.contrib.dpsgd(0.1, 1.0, 0.5, jax.random.key(3))
    params = {'w': jnp.zeros(4)}
    grads = {'w': jnp.ones((2, 4))}
    a, _ = tx.update(grads, tx.init(params), params)
    b, _ = by_key.update(grads, by_key.init(params), params)
    np.testing.assert_array_equal(a['w'], b['w'])

  def test_inject_hyperparams_lists_key(self):
    tx = optax.inject_hyperparams(optax.contrib.dpsgd)(0.1, 1.0, 0.5, 0)
    state = tx.init({'w': jnp.zeros(4)})
    self.assertIn('key', state.hyperparams)
    self.assertNotIn('seed', state.hyperparams)


if __name__ == '__main__':
  absltest.main()
