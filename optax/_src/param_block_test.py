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
"""Tests for ``optax._src.param_block``: the inputs its transformations take.

Used on its own, each transformation takes gradients and params as
``optax.chain`` gives them: the checks of
``cases.prepared_inputs_test_case``, and vector hyperparameters.
"""

from absl.testing import absltest
from absl.testing import parameterized
import jax.numpy as jnp

from optax._src import param_block
from optax._src.testing import cases

# name -> (factory, extra keyword arguments of update).
_TRANSFORMS = {
    'scale_by_trust_ratio': (param_block.scale_by_trust_ratio, {}),
    'scale_by_param_block_norm': (param_block.scale_by_param_block_norm, {}),
    'scale_by_param_block_rms': (param_block.scale_by_param_block_rms, {}),
}


class PreparedInputsTest(
    cases.prepared_inputs_test_case(_TRANSFORMS)):
  """Inputs the transformations of the module take as a chain gives them."""


class VectorHyperparametersTest(cases.vector_arguments_test_case((
    (param_block.scale_by_trust_ratio, 'min_norm', {}),
    (param_block.scale_by_trust_ratio, 'trust_coefficient', {}),
    (param_block.scale_by_trust_ratio, 'eps', {}),
    (param_block.scale_by_param_block_norm, 'min_scale', {}),
    (param_block.scale_by_param_block_rms, 'min_scale', {}),
))):
  """A vector hyperparameter is a TypeError naming it when built."""


class StructureTest(parameterized.TestCase):

  @parameterized.product(name=sorted(_TRANSFORMS), use_jit=(False, True))
  def test_extra_gradient_key_raises_naming_key_path(self, name, use_jit):
    params = {'layer': {'w': jnp.ones(3)}}
    grads = {'layer': {'w': jnp.ones(3), 'extra': jnp.ones(2)}}
    with self.assertRaisesRegex(
        ValueError, name + r': the updates and the params differ in'
        r" structure at \['layer'\]: a dict with keys \['extra', 'w'\]"
        r" != a dict with keys \['w'\]"):
      cases.transformation_steps(
          _TRANSFORMS, name, grads, params, use_jit, count=1)


if __name__ == '__main__':
  absltest.main()
