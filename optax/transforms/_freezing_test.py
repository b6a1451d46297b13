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
"""Tests for `freeze` and `selective_transform`."""

from typing import Any

from absl.testing import absltest
from absl.testing import parameterized
import equinox as eqx
import jax
import jax.numpy as jnp
import numpy as np

from optax._src.testing import toy_transforms
from optax.transforms import _combining
from optax.transforms import _freezing
from optax.transforms import _masking


def _params():
  return {'w': jnp.array([[1.0, 2.0], [3.0, 4.0]]),
          'b': jnp.array([0.5, -0.5]),
          'head': {'k': jnp.array([2.0, -1.0, 0.0])}}


_FROZEN = {'w': False, 'b': True, 'head': {'k': True}}


def _frozen_fn(tree):
  return jax.tree.map(lambda x: x.ndim == 1, tree)


class FreezeTest(parameterized.TestCase):
  """Tests for freeze."""

  @parameterized.product(use_fn=[False, True], use_jit=[False, True])
  def test_frozen_leaves_get_zero(self, use_fn, use_jit):
    params = _params()
    tx = _freezing.freeze(_frozen_fn if use_fn else _FROZEN)
    update = jax.jit(tx.update) if use_jit else tx.update
    updates, state = update(params, tx.init(params))
    self.assertIsInstance(state, _masking.MaskedState)
    np.testing.assert_array_equal(updates['w'], params['w'])
    np.testing.assert_array_equal(updates['b'], np.zeros(2))
    np.testing.assert_array_equal(updates['head']['k'], np.zeros(3))

  def test_prefix_true_freezes_everything(self):
    params = _params()
    tx = _freezing.freeze(True)
    updates, _ = tx.update(params, tx.init(params))
    for leaf in jax.tree.leaves(updates):
      np.testing.assert_array_equal(leaf, np.zeros_like(leaf))


class SelectiveTransformTest(parameterized.TestCase):
  """Tests for selective_transform."""

  @parameterized.product(use_fn=[False, True], use_jit=[False, True])
  def test_values_and_state(self, use_fn, use_jit):
    params = _params()
    tx = _freezing.selective_transform(
        toy_transforms.running_sum(),
        freeze_mask=_frozen_fn if use_fn else _FROZEN)
    state = tx.init(params)
    self.assertIsInstance(state, _combining.PartitionState)
    self.assertEqual(set(state.inner_states), {'train', 'freeze'})
    train_total = state.inner_states['train'].inner_state.total
    self.assertIsInstance(train_total['b'], _masking.MaskedNode)
    self.assertIsInstance(train_total['head']['k'], _masking.MaskedNode)
    update = jax.jit(tx.update) if use_jit else tx.update
    for step in range(1, 3):
      updates, state = update(params, state)
      np.testing.assert_allclose(updates['w'],
                                 step * np.asarray(params['w']))
      np.testing.assert_array_equal(updates['b'], np.zeros(2))
      np.testing.assert_array_equal(updates['head']['k'], np.zeros(3))

  def test_freeze_mask_is_keyword_only(self):
    with self.assertRaises(TypeError):
      _freezing.selective_transform(toy_transforms.running_sum(), _FROZEN)  # pylint: disable=too-many-function-args

  def test_frozen_subtree_prefix(self):
    params = _params()
    tx = _freezing.selective_transform(
        toy_transforms.running_sum(),
        freeze_mask={'w': False, 'b': False, 'head': True})
    updates, _ = tx.update(params, tx.init(params))
    np.testing.assert_array_equal(updates['head']['k'], np.zeros(3))
    np.testing.assert_array_equal(updates['b'], params['b'])

  def test_callable_module_mask_is_a_tree(self):
    # An Equinox module is callable; with boolean leaves it is a mask tree
    # (as in masked and upstream 0.2.8), not a function to call.
    class Net(eqx.Module):
      """A callable module."""
      w: Any
      b: Any

      def __call__(self, x):
        return self.w * x + self.b

    params = Net(w=jnp.array([1.0, 2.0]), b=jnp.array([3.0]))
    mask = Net(w=False, b=True)
    tx = _freezing.selective_transform(
        toy_transforms.running_sum(), freeze_mask=mask)
    updates, _ = tx.update(params, tx.init(params))
    np.testing.assert_array_equal(updates.w, np.array([1.0, 2.0]))
    np.testing.assert_array_equal(updates.b, np.zeros(1))


if __name__ == '__main__':
  absltest.main()
