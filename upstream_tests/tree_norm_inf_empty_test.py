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
"""tree_norm with ord=inf is 0 for a tree without entries.

The infinity norm is the largest absolute entry; a vector without entries
has norm 0, as ``jnp.linalg.norm(jnp.zeros(0), ord=jnp.inf)`` gives and as
``tree_norm`` gives for the other orders. Upstream (0.2.8, main at 2edbcbe2)
took ``tree_max`` of the absolute values, whose empty maximum is ``-inf``:
``tree_norm({}, ord=jnp.inf)`` and the norm of a tree of zero-size leaves
were ``-inf`` (``inf`` when squared).
"""

from absl.testing import absltest
from absl.testing import parameterized
import jax.numpy as jnp
import numpy as np
from optax import tree_utils as tu


class TreeNormInfEmptyTest(parameterized.TestCase):

  @parameterized.product(
      tree=[{}, {'a': jnp.zeros((0,))}, {'a': jnp.zeros((2, 0))}],
      squared=[False, True],
  )
  def test_tree_norm_inf_of_tree_without_entries_is_zero(self, tree, squared):
    self.assertEqual(
        float(tu.tree_norm(tree, ord=jnp.inf, squared=squared)), 0.0
    )

  def test_tree_norm_inf_ignores_zero_size_leaves(self):
    tree = {'a': jnp.zeros((0,)), 'b': jnp.array([-3.0, 2.0])}
    np.testing.assert_allclose(tu.tree_norm(tree, ord=jnp.inf), 3.0)


if __name__ == '__main__':
  absltest.main()
