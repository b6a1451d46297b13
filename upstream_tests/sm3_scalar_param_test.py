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
"""scale_by_sm3 accepts a 0-d parameter (upstream #1736).

Upstream keeps one accumulator per axis of each leaf, so a 0-d leaf (a
temperature, a scalar gain) gets none: ``init`` succeeds and the first
``update`` raises ``IndexError: list index out of range``. In SM3 a scalar
is covered by a single set, itself, so it gets one accumulator and its
update is Adagrad's, the same as that of a one-element vector.
"""

from absl.testing import absltest
from absl.testing import parameterized
import jax
import jax.numpy as jnp
import numpy as np
from optax._src import transform


class ScaleBySm3ScalarParamTest(parameterized.TestCase):

  def test_sm3_scalar_param_issue_1736(self):
    tx = transform.scale_by_sm3(b1=0.0, eps=0.0)
    params = {'w': jnp.ones((2, 3)), 's': jnp.asarray(1.0)}
    state = tx.init(params)
    step = jax.jit(tx.update)
    # b2 = 1: the accumulator sums the squared gradients, 4 then 4 + 1.
    updates, new_state = step(
        {'w': jnp.full((2, 3), 2.0), 's': jnp.asarray(2.0)}, state)
    self.assertEqual(updates['s'].shape, ())
    np.testing.assert_allclose(updates['s'], 1.0, rtol=1e-6)
    np.testing.assert_allclose(updates['w'], np.ones((2, 3)), rtol=1e-6)
    self.assertEqual(
        jax.tree.structure(new_state), jax.tree.structure(state))
    updates, _ = step(
        {'w': jnp.full((2, 3), -1.0), 's': jnp.asarray(-1.0)}, new_state)
    self.assertEqual(updates['s'].shape, ())
    np.testing.assert_allclose(updates['s'], -1.0 / np.sqrt(5.0), rtol=1e-6)
    np.testing.assert_allclose(
        updates['w'], np.full((2, 3), -1.0 / np.sqrt(5.0)), rtol=1e-6)


if __name__ == '__main__':
  absltest.main()
