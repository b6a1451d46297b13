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
"""float0 gradients of integer params give zero updates for those leaves.

``jax.grad(..., allow_int=True)`` returns float0 gradients for integer
params. Upstream 0.2.8 raises on them (numpy's ``ufunc 'power' not
supported`` in adam, ``ufunc 'multiply'`` in sgd).
"""

from absl.testing import absltest
from absl.testing import parameterized
import jax
import jax.numpy as jnp
import numpy as np
from optax._src import alias
from optax._src import update


def _loss(params):
  return jnp.sum(params['w'] ** 2) * params['n']


class Float0GradientsTest(parameterized.TestCase):

  @parameterized.named_parameters(
      # First steps on w = [1, 2], gradient 2 * n * w = [6, 12].
      ('sgd', lambda: alias.sgd(0.1), [1.0 - 0.6, 2.0 - 1.2]),
      ('adam', lambda: alias.adam(0.1), [0.9, 1.9]),
      (
          'adamw',
          lambda: alias.adamw(0.1, weight_decay=0.1),
          [1.0 - 0.1 * 1.1, 2.0 - 0.1 * 1.2],
      ),
  )
  def test_integer_params_unchanged(self, make, expected_w):
    params = {'w': jnp.array([1.0, 2.0]), 'n': jnp.array(3, jnp.int32)}
    grads = jax.grad(_loss, allow_int=True)(params)
    self.assertEqual(grads['n'].dtype, jax.dtypes.float0)
    tx = make()
    updates, _ = tx.update(grads, tx.init(params), params)
    new_params = update.apply_updates(params, updates)
    self.assertEqual(new_params['n'].dtype, jnp.int32)
    self.assertEqual(int(new_params['n']), 3)
    np.testing.assert_allclose(new_params['w'], expected_w, rtol=1e-5)


if __name__ == '__main__':
  absltest.main()
