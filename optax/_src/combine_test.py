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
"""Tests for the re-export modules ``combine`` and ``constrain``."""

from absl.testing import absltest
import jax.numpy as jnp
import numpy as np

from optax._src import base
from optax._src import combine
from optax._src import constrain
from optax.transforms import _combining
from optax.transforms import _constraining


class ReexportTest(absltest.TestCase):
  """The old module paths expose the same objects as optax.transforms."""

  def test_combine_names(self):
    self.assertIs(combine.chain, _combining.chain)
    self.assertIs(combine.named_chain, _combining.named_chain)
    self.assertIs(combine.partition, _combining.partition)
    self.assertIs(combine.multi_transform, _combining.partition)
    self.assertIs(combine.MultiTransformState, _combining.PartitionState)

  def test_constrain_names(self):
    self.assertIs(constrain.keep_params_nonnegative,
                  _constraining.keep_params_nonnegative)
    self.assertIs(constrain.zero_nans, _constraining.zero_nans)
    self.assertIs(constrain.ZeroNansState, _constraining.ZeroNansState)
    self.assertIs(constrain.NonNegativeParamsState, base.EmptyState)

  def test_multi_transform_works(self):
    params = {'a': jnp.ones(2), 'b': jnp.ones(1)}
    tx = combine.multi_transform(
        {'x': base.identity(), 'y': base.set_to_zero()}, {'a': 'x', 'b': 'y'})
    state = tx.init(params)
    self.assertIsInstance(state, combine.MultiTransformState)
    updates, _ = tx.update(params, state)
    np.testing.assert_array_equal(updates['a'], np.ones(2))
    np.testing.assert_array_equal(updates['b'], np.zeros(1))


if __name__ == '__main__':
  absltest.main()
