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
"""contrib.normalize leaves an all-zero gradient at zero.

Upstream's ``normalize`` (0.2.8, main at 2edbcbe2; pull request #1743) divided
every leaf by the global norm, so an all-zero gradient gave ``0 / 0 = nan`` in
every entry, and ``sam``, whose adversarial optimizer is ``chain(normalize(),
sgd(rho))``, then moved the params to NaN. A zero gradient has no direction:
the normalized update is zero, and nonzero gradients are divided by their norm
as before.
"""

from absl.testing import absltest
from absl.testing import parameterized
import jax.numpy as jnp
import numpy as np
from optax._src import alias
from optax._src import combine
from optax._src import update
from optax.contrib import _sam


class NormalizeZeroGradientTest(parameterized.TestCase):

  def test_normalize_zero_gradient_stays_zero(self):
    tx = _sam.normalize()
    grads = {'a': jnp.zeros(3), 'b': jnp.zeros((2, 2))}
    updates, _ = tx.update(grads, tx.init(grads))
    np.testing.assert_array_equal(updates['a'], np.zeros(3))
    np.testing.assert_array_equal(updates['b'], np.zeros((2, 2)))
    # A nonzero gradient is divided by its global norm, 5.
    updates, _ = tx.update(
        {'a': jnp.array([3.0, 0.0]), 'b': jnp.array([0.0, -4.0])}, tx.init(None)
    )
    np.testing.assert_allclose(updates['a'], [0.6, 0.0], rtol=1e-6)
    np.testing.assert_allclose(updates['b'], [0.0, -0.8], rtol=1e-6)

  def test_sam_zero_gradient_keeps_params(self):
    params = jnp.array([1.0, -2.0, 3.0])
    opt = _sam.sam(
        alias.sgd(0.1),
        combine.chain(_sam.normalize(), alias.sgd(0.05)),
        sync_period=2,
    )
    state = opt.init(params)
    # The adversarial step, then the outer step, both with a zero gradient.
    for _ in range(2):
      updates, state = opt.update(jnp.zeros(3), state, params)
      params = update.apply_updates(params, updates)
    np.testing.assert_array_equal(params, [1.0, -2.0, 3.0])


if __name__ == '__main__':
  absltest.main()
