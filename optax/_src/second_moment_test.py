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
"""Tests for `second_moment.py` beyond those of `transform_test.py`.

The transformations' values and states are tested through their upstream
names in `transform_test.py`; this file covers how each one, used alone,
takes odd hyperparameters.
"""

import inspect

from absl.testing import absltest
from absl.testing import parameterized
import jax.numpy as jnp

from optax._src import second_moment

# Every public transformation of second_moment.py, by the name its errors
# use.
_TRANSFORMATIONS = (
    ('scale_by_rms', second_moment.scale_by_rms),
    ('scale_by_stddev', second_moment.scale_by_stddev),
    ('scale_by_rss', second_moment.scale_by_rss),
    ('scale_by_sm3', second_moment.scale_by_sm3),
    ('scale_by_adadelta', second_moment.scale_by_adadelta),
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


if __name__ == '__main__':
  absltest.main()
