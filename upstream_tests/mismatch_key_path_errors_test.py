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
"""Gradients that do not match the state: a ValueError naming the key path.

Upstream (0.2.8, main at 2edbcbe2) raised a broadcasting ``TypeError`` from
inside JAX (``add got
incompatible shapes for broadcasting: (4,), (3,)``), which names neither
the parameter nor the cause.
"""

from absl.testing import absltest
from absl.testing import parameterized
import jax.numpy as jnp
from optax._src import alias


class MismatchKeyPathErrorsTest(parameterized.TestCase):

  @parameterized.named_parameters(
      ('adam', lambda: alias.adam(1e-3)),
      ('sgd_momentum', lambda: alias.sgd(1e-3, momentum=0.9)),
      ('lion', lambda: alias.lion(1e-3)),
  )
  def test_mismatch_names_the_key_path(self, make):
    tx = make()
    state = tx.init({'w': jnp.ones(3), 'b': jnp.ones(2)})
    with self.assertRaisesRegex(ValueError, r"\['w'\].*\(4,\).*\(3,\)"):
      tx.update({'w': jnp.ones(4), 'b': jnp.ones(2)}, state)


if __name__ == '__main__':
  absltest.main()
