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
"""add_noise on an integer leaf: a TypeError naming the leaf.

Upstream 0.2.8 raises ``jax.random.normal``'s ``ValueError`` (dtype
argument must be a floating dtype), which does not say which leaf.
"""

from absl.testing import absltest
from absl.testing import parameterized
import jax.numpy as jnp
from optax.transforms import _adding


class AddNoiseIntegerLeafErrorTest(parameterized.TestCase):

  def test_integer_leaf_names_key_path(self):
    updates = {"layer": {"w": jnp.ones(3), "count": jnp.array(2, jnp.int32)}}
    tx = _adding.add_noise(0.1, 0.55, 0)
    state = tx.init(updates)
    with self.assertRaisesRegex(TypeError, r"\['layer'\]\['count'\].*int32"):
      tx.update(updates, state)


if __name__ == "__main__":
  absltest.main()
