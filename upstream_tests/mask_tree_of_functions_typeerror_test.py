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
"""A tree of mask functions: TypeError, with a message saying what to pass.

Upstream 0.2.8 calls the tree and raises ``TypeError: 'dict' object is not
callable``, which names neither the argument nor the remedy. The exception
type stays upstream's; only the message differs.
"""

from absl.testing import absltest
from absl.testing import parameterized
import jax.numpy as jnp
from optax._src import alias
from optax.transforms import _masking


class MaskTreeOfFunctionsTypeErrorTest(parameterized.TestCase):

  def test_tree_of_mask_functions_raises_type_error(self):
    params = {'w': jnp.ones(2), 'b': jnp.ones(2)}
    tx = _masking.masked(
        alias.sgd(1.0), {'w': lambda x: True, 'b': lambda x: False}
    )
    with self.assertRaisesRegex(TypeError, r'mask.*one function'):
      tx.init(params)


if __name__ == '__main__':
  absltest.main()
