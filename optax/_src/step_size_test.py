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
"""Tests for ``optax._src.step_size``: the inputs its transformations take.

Used on its own, each transformation takes gradients and params as
``optax.chain`` gives them: the checks of
``cases.prepared_inputs_test_case``, and vector hyperparameters.
"""

from absl.testing import absltest
import jax.numpy as jnp

from optax._src import step_size
from optax._src.testing import cases

# name -> (factory, extra keyword arguments of update).
_TRANSFORMS = {
    'scale': (lambda: step_size.scale(-0.5), {}),
    'scale_by_schedule': (
        lambda: step_size.scale_by_schedule(lambda c: 0.5 / (c + 1)), {}),
    'scale_by_learning_rate': (
        lambda: step_size.scale_by_learning_rate(0.1), {}),
    'scale_by_learning_rate(schedule)': (
        lambda: step_size.scale_by_learning_rate(lambda c: 0.1 * (c + 1)),
        {}),
    'scale_by_learning_rate(None)': (
        lambda: step_size.scale_by_learning_rate(None), {}),
    'scale_by_polyak': (
        lambda: step_size.scale_by_polyak(),
        {'value': jnp.asarray(2.0)}),
    'scale_by_distance_over_gradients': (
        step_size.scale_by_distance_over_gradients, {}),
}


class PreparedInputsTest(
    cases.prepared_inputs_test_case(_TRANSFORMS)):
  """Inputs the transformations of the module take as a chain gives them."""


class VectorHyperparametersTest(cases.vector_arguments_test_case((
    (step_size.scale, 'step_size', {}),
    (step_size.scale_by_polyak, 'f_min', {}),
    (step_size.scale_by_polyak, 'eps', {}),
    (step_size.scale_by_distance_over_gradients, 'reps_rel', {}),
    (step_size.scale_by_distance_over_gradients, 'eps', {}),
    (step_size.scale_by_distance_over_gradients, 'global_scale', {}),
))):
  """A vector hyperparameter is a TypeError naming it when built."""


if __name__ == '__main__':
  absltest.main()
