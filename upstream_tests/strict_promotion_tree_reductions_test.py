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
"""Tree reductions on mixed float32/bfloat16 trees under strict promotion.

Upstream 0.2.8's ``tree_sum``, ``tree_norm``, ``tree_max``, ``tree_min`` and
``tree_vdot`` combine the per-leaf results of different dtypes: under
``jax.numpy_dtype_promotion('strict')`` they raise ``TypePromotionError``.
Standard promotion gives float32, and so should strict mode.
"""

from absl.testing import absltest
from absl.testing import parameterized
import jax
import jax.numpy as jnp
import numpy as np
from optax import tree_utils as tu


class StrictPromotionTreeReductionsTest(parameterized.TestCase):

  @parameterized.named_parameters(
      ('sum', tu.tree_sum, 6.0 + 9.0),
      ('norm', tu.tree_norm, np.sqrt(12.0 + 27.0)),
      ('max', tu.tree_max, 3.0),
      ('min', tu.tree_min, 2.0),
      ('vdot', lambda t: tu.tree_vdot(t, t), 12.0 + 27.0),
  )
  def test_mixed_tree_under_strict_promotion(self, reduce, expected):
    tree = {
        'a': jnp.full(3, 2.0, jnp.float32),
        'b': jnp.full(3, 3.0, jnp.bfloat16),
    }
    with jax.numpy_dtype_promotion('strict'):
      got = reduce(tree)
    self.assertEqual(got.dtype, jnp.float32)
    np.testing.assert_allclose(got, expected, rtol=1e-6)


if __name__ == '__main__':
  absltest.main()
