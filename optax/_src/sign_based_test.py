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
"""Tests for `sign_based.py` beyond those of `transform_test.py`.

The transformations' values and states are tested through their upstream
names in `transform_test.py`; this file covers how each one, used alone,
takes odd gradients, params and hyperparameters.
"""

import functools

from absl.testing import absltest
import jax.numpy as jnp

from optax._src import sign_based
from optax._src.testing import cases
from optax.schedules import _inject

# Every public transformation of sign_based.py, by the name its errors use.
_TRANSFORMATIONS = (
    ('scale_by_sign', sign_based.scale_by_sign),
    ('scale_by_lion', sign_based.scale_by_lion),
    ('scale_by_rprop',
     functools.partial(sign_based.scale_by_rprop, learning_rate=0.1)),
)
_LION_MODES = (
    ('scale_by_lion_smooth',
     functools.partial(sign_based.scale_by_lion, mode='smooth')),
    ('scale_by_lion_refined',
     functools.partial(sign_based.scale_by_lion, mode='refined')),
)


class InputPreparationTest(
    cases.prepared_inputs_test_case(
        _TRANSFORMATIONS, integer_also=_LION_MODES, integer_steps=3,
        jit_rtol=1e-6)):
  """Each transformation alone takes gradients and params as chain does.

  At e2abe64 integer gradients gave integer updates, float0 gradients
  raised inside jax, and a (1, 3) gradient for a (4, 3) param was
  broadcast (scale_by_sign returned (1, 3) updates) or failed inside jax.
  """


class HyperparameterTypeTest(
    cases.vector_hyperparameters_test_case(_TRANSFORMATIONS)):
  """A vector hyperparameter is a TypeError naming it when built.

  At e2abe64 it was accepted, and the update broadcast it against the
  leaves or failed inside jax.
  """

  def test_vector_under_inject_hyperparams(self):
    # inject_hyperparams builds the inner transformation with its arrays.
    with self.assertRaisesRegex(TypeError, '^scale_by_lion: b1 '):
      _inject.inject_hyperparams(sign_based.scale_by_lion)(
          b1=jnp.ones(2))


if __name__ == '__main__':
  absltest.main()
