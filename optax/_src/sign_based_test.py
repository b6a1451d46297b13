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
takes odd hyperparameters.
"""

import functools
import inspect

from absl.testing import absltest
from absl.testing import parameterized
import jax.numpy as jnp

from optax._src import sign_based
from optax.schedules import _inject

# Every public transformation of sign_based.py, by the name its errors use
# (rprop's update is one step behind: its first updates are zero).
_TRANSFORMATIONS = (
    ('scale_by_sign', sign_based.scale_by_sign),
    ('scale_by_lion', sign_based.scale_by_lion),
    ('scale_by_rprop',
     functools.partial(sign_based.scale_by_rprop, learning_rate=0.1)),
)


def _float_hyperparameters(transformations):
  """Each transformation with each of its float-valued arguments."""
  return [dict(testcase_name=f'{name}_{arg}', name=name, factory=factory,
               arg=arg)
          for name, factory in transformations
          for arg, p in inspect.signature(factory).parameters.items()
          if isinstance(p.default, float)]


class HyperparameterTypeTest(parameterized.TestCase):
  """A vector hyperparameter is a TypeError naming it when built.

  At e2abe64 it was accepted, and the update broadcast it against the
  leaves or failed inside jax.
  """

  @parameterized.named_parameters(
      _float_hyperparameters(_TRANSFORMATIONS))
  def test_vector_hyperparameter_type_error(self, name, factory, arg):
    with self.assertRaisesRegex(
        TypeError, rf'^{name}: {arg} must be a scalar number .* got an'
        r' array of shape \(2,\)'):
      factory(**{arg: jnp.full(2, 0.5)})
    # A 0-d array, as inject_hyperparams gives, is a scalar.
    factory(**{arg: jnp.asarray(0.5)})

  def test_vector_under_inject_hyperparams(self):
    # inject_hyperparams builds the inner transformation with its arrays.
    with self.assertRaisesRegex(TypeError, '^scale_by_lion: b1 '):
      _inject.inject_hyperparams(sign_based.scale_by_lion)(
          b1=jnp.ones(2))


if __name__ == '__main__':
  absltest.main()
