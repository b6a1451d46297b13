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
"""Tests for ``optax._src.lbfgs``: the inputs its transformation takes.

Used on its own, each transformation takes gradients and params as
``optax.chain`` gives them: the checks of
``cases.prepared_inputs_test_case``.
"""

from absl.testing import absltest

from optax._src import lbfgs
from optax._src.testing import cases

# name -> (factory, extra keyword arguments of update).
_TRANSFORMS = {
    'scale_by_lbfgs': (lbfgs.scale_by_lbfgs, {}),
    'scale_by_lbfgs(memory_size=1)': (
        lambda: lbfgs.scale_by_lbfgs(memory_size=1,
                                     scale_init_precond=False), {}),
}


class PreparedInputsTest(
    cases.prepared_inputs_test_case(_TRANSFORMS)):
  """Inputs the transformations of the module take as a chain gives them."""


if __name__ == '__main__':
  absltest.main()
