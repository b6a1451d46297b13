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
"""Tests for `optax._src.base`."""

from absl.testing import absltest
from absl.testing import parameterized
import jax
import jax.numpy as jnp
import numpy as np
import optax
from optax._src import base
from optax._src import test_utils


def _updates():
  return {'a': jnp.array([1.0, -2.0], jnp.bfloat16),
          'b': (jnp.array([[0.5, 3.0]]), None)}


def _f32(x):
  return np.asarray(x, np.float32)


def _params():
  return {'a': jnp.array([3.0, 4.0], jnp.bfloat16),
          'b': (jnp.array([[2.0, -1.0]]), None)}


class EmptyStateTest(absltest.TestCase):
  """Tests of EmptyState and init_empty_state."""

  def test_empty_state_has_no_leaves(self):
    self.assertEqual(jax.tree.leaves(base.EmptyState()), [])
    self.assertEqual(base.EmptyState(), ())

  def test_init_empty_state(self):
    self.assertEqual(base.init_empty_state(_params()), base.EmptyState())
    self.assertEqual(base.init_empty_state(None), base.EmptyState())

  def test_state_aliases(self):
    for alias in (base.ScaleState, base.ClipState, base.ClipByGlobalNormState,
                  base.AddDecayedWeightsState, base.NonNegativeParamsState):
      self.assertIs(alias, base.EmptyState)


class TypeAliasExportTest(absltest.TestCase):
  """The pytree type aliases are reachable from the top-level namespace."""

  def test_array_tree_is_exported(self):
    self.assertIs(optax.ArrayTree, base.ArrayTree)
    for alias in ('Params', 'Updates', 'OptState'):
      self.assertIs(getattr(optax, alias), base.ArrayTree)


class StatelessTransformationsTest(parameterized.TestCase):
  """Tests of identity, set_to_zero, stateless, stateless_with_tree_map."""

  @parameterized.parameters(False, True)
  def test_identity(self, use_jit):
    tx = base.identity()
    update = jax.jit(tx.update) if use_jit else tx.update
    updates, state = update(_updates(), tx.init(_params()), _params())
    test_utils.assert_trees_all_equal(updates, _updates())
    test_utils.assert_trees_all_equal_dtypes(updates, _updates())
    self.assertEqual(state, base.EmptyState())

  @parameterized.parameters(False, True)
  def test_set_to_zero(self, use_jit):
    tx = base.set_to_zero()
    update = jax.jit(tx.update) if use_jit else tx.update
    updates, _ = update(_updates(), tx.init(_params()))
    test_utils.assert_trees_all_equal(
        updates, {'a': np.zeros(2), 'b': (np.zeros((1, 2)), None)})
    test_utils.assert_trees_all_equal_dtypes(updates, _updates())

  @parameterized.parameters(False, True)
  def test_stateless(self, use_jit):
    def weight_decay(updates, params):
      return jax.tree.map(lambda g, p: g + 0.5 * p, updates, params)

    tx = base.stateless(weight_decay)
    update = jax.jit(tx.update) if use_jit else tx.update
    updates, state = update(_updates(), tx.init(_params()), _params())
    expected = jax.tree.map(
        lambda g, p: _f32(g) + 0.5 * _f32(p), _updates(), _params())
    test_utils.assert_trees_all_close(updates, expected)
    self.assertEqual(state, base.EmptyState())

  def test_stateless_receives_none_params(self):
    seen = []
    tx = base.stateless(lambda g, p: seen.append(p) or g)
    tx.update(_updates(), tx.init(None))
    self.assertEqual(seen, [None])

  @parameterized.parameters(False, True)
  def test_stateless_with_tree_map(self, use_jit):
    tx = base.stateless_with_tree_map(lambda g, p: g * p)
    update = jax.jit(tx.update) if use_jit else tx.update
    updates, state = update(_updates(), tx.init(_params()), _params())
    expected = jax.tree.map(
        lambda g, p: _f32(g) * _f32(p), _updates(), _params())
    test_utils.assert_trees_all_close(updates, expected)
    self.assertIsNone(updates['b'][1])
    self.assertEqual(state, base.EmptyState())

  def test_stateless_with_tree_map_without_params(self):
    tx = base.stateless_with_tree_map(
        lambda g, p: -g if p is None else g)
    updates, _ = tx.update(_updates(), tx.init(None))
    test_utils.assert_trees_all_equal(
        updates, jax.tree.map(lambda g: -_f32(g), _updates()))


class WithExtraArgsSupportTest(absltest.TestCase):
  """Tests of with_extra_args_support and the transformation types."""

  def test_wraps_and_ignores_extra_args(self):
    tx = base.with_extra_args_support(base.identity())
    self.assertIsInstance(tx, base.GradientTransformationExtraArgs)
    updates, state = tx.update(
        _updates(), tx.init(_params()), _params(), value=1.0, grad=None)
    test_utils.assert_trees_all_equal(updates, _updates())
    self.assertEqual(state, base.EmptyState())
    jitted, _ = jax.jit(tx.update)(_updates(), base.EmptyState(), value=2.0)
    test_utils.assert_trees_all_equal(jitted, _updates())

  def test_extra_args_transformation_is_returned_as_is(self):
    def update_fn(updates, state, params=None, **extra_args):
      del params, extra_args
      return updates, state
    tx = base.GradientTransformationExtraArgs(base.init_empty_state, update_fn)
    self.assertIs(base.with_extra_args_support(tx), tx)

  def test_types(self):
    self.assertEqual(base.GradientTransformation._fields, ('init', 'update'))
    self.assertEqual(
        base.GradientTransformationExtraArgs._fields, ('init', 'update'))
    tx = base.GradientTransformationExtraArgs(base.init_empty_state, None)
    self.assertIsInstance(tx, base.GradientTransformation)


if __name__ == '__main__':
  absltest.main()
