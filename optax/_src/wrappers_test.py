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
"""Tests for the re-export module ``wrappers``."""

from absl.testing import absltest

from optax._src import wrappers
from optax.transforms import _accumulation
from optax.transforms import _conditionality
from optax.transforms import _layouts
from optax.transforms import _masking


class ReexportTest(absltest.TestCase):
  """optax._src.wrappers exposes the objects of optax.transforms."""

  def test_names(self):
    expected = {
        'apply_if_finite': _conditionality,
        'ApplyIfFiniteState': _conditionality,
        'ConditionFn': _conditionality,
        'conditionally_mask': _conditionality,
        'conditionally_transform': _conditionality,
        'ConditionallyMaskState': _conditionality,
        'ConditionallyTransformState': _conditionality,
        'flatten': _layouts,
        'masked': _masking,
        'MaskedNode': _masking,
        'MaskedState': _masking,
        'MultiSteps': _accumulation,
        'MultiStepsState': _accumulation,
        'ShouldSkipUpdateFunction': _accumulation,
        'skip_large_updates': _accumulation,
        'skip_not_finite': _accumulation,
    }
    for name, module in expected.items():
      with self.subTest(name):
        self.assertIs(getattr(wrappers, name), getattr(module, name))


if __name__ == '__main__':
  absltest.main()
