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
"""``tree_add_scalar_mul``'s deprecation warning names itself.

Upstream's warning for ``optax.tree_utils.tree_add_scalar_mul`` (0.2.8, main at
2edbcbe2) named the entry above it: ``tree_scalar_mul is deprecated: use
tree_scale``.
"""

import warnings

from absl.testing import absltest
from absl.testing import parameterized
from optax import tree_utils as tu


class DeprecationWarningTextTest(parameterized.TestCase):

  def test_tree_add_scalar_mul_warning(self):
    with warnings.catch_warnings(record=True) as caught:
      warnings.simplefilter('always')
      fn = tu.tree_add_scalar_mul
    self.assertIs(fn, tu.tree_add_scale)
    messages = [
        str(w.message)
        for w in caught
        if issubclass(w.category, DeprecationWarning)
    ]
    self.assertLen(messages, 1)
    self.assertIn('tree_add_scalar_mul is deprecated', messages[0])
    self.assertIn('tree_add_scale', messages[0])


if __name__ == '__main__':
  absltest.main()
