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
"""Hyperparameters of the wrong type raise TypeError when built.

Upstream 0.2.8 builds ``sgd('0.01')``, ``sgd(jnp.ones(3))`` or
``contrib.prodigy(learning_rate=None)`` and fails (or, for a vector
learning rate on params of its shape, broadcasts one rate per entry) only
in the first update, far from the mistake.
"""

from absl.testing import absltest
from absl.testing import parameterized
import jax.numpy as jnp
from optax._src import alias
from optax.contrib import _prodigy
from optax.contrib import _schedule_free


class HyperparameterTypeErrorsTest(parameterized.TestCase):

  @parameterized.named_parameters(
      ('sgd_string', lambda: alias.sgd('0.01'), 'learning_rate'),
      ('adam_string_b1', lambda: alias.adam(1e-3, b1='0.9'), 'b1'),
      ('sgd_vector', lambda: alias.sgd(jnp.ones(3)), 'learning_rate'),
      ('sgd_list', lambda: alias.sgd([0.1, 0.2]), 'learning_rate'),
      (
          'prodigy_none',
          lambda: _prodigy.prodigy(learning_rate=None),
          'learning_rate',
      ),
      (
          'schedule_free_adamw_none',
          lambda: _schedule_free.schedule_free_adamw(learning_rate=None),
          'learning_rate',
      ),
  )
  def test_raises_type_error_naming_the_argument(self, build, argument):
    with self.assertRaisesRegex(TypeError, argument):
      build()


if __name__ == '__main__':
  absltest.main()
