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
"""scale_by_sm3 accepts a 0-d parameter.

Upstream (0.2.8, main at 2edbcbe2; pull request #1736) kept one accumulator per
axis of each leaf, so a 0-d leaf (a temperature, a scalar gain) got none:
``init`` succeeded and the first ``update`` raised ``IndexError: list index out
of range``. In SM3 a scalar is covered by a single set, itself, so it gets one
accumulator and its update is Adagrad's, the same as that of a one-element
vector.
"""

from absl.testing import absltest
from absl.testing import parameterized
import jax
import jax.numpy as jnp
from optax._src import test_utils
from optax._src import transform


class ScaleBySm3ScalarParamTest(parameterized.TestCase):

  def test_sm3_scalar_param(self):
    tx = transform.scale_by_sm3(b1=0.0, eps=0.0)
    params = {'w': jnp.ones((2, 3)), 's': jnp.asarray(1.0)}
    state = tx.init(params)
    step = jax.jit(tx.update)
    # b2 = 1: the accumulator sums the squared gradients, 4 then 4 + 1.
    updates, new_state = step(
        {'w': jnp.full((2, 3), 2.0), 's': jnp.asarray(2.0)}, state
    )
    self.assertEqual(updates['s'].shape, ())
    test_utils.assert_trees_all_close(
        updates, {'w': jnp.ones((2, 3)), 's': jnp.asarray(1.0)}
    )
    self.assertEqual(jax.tree.structure(new_state), jax.tree.structure(state))
    updates, _ = step(
        {'w': jnp.full((2, 3), -1.0), 's': jnp.asarray(-1.0)}, new_state
    )
    self.assertEqual(updates['s'].shape, ())
    test_utils.assert_trees_all_close(
        updates,
        {'w': jnp.full((2, 3), -(5.0**-0.5)), 's': jnp.asarray(-(5.0**-0.5))},
    )


if __name__ == '__main__':
  absltest.main()
