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
"""Tests for `chain`, `named_chain` and `partition`."""

import collections

from absl.testing import absltest
from absl.testing import parameterized
import equinox as eqx
import jax
import jax.numpy as jnp
import numpy as np

from optax import tree_utils as otu
from optax._src import base
from optax._src.testing import toy_transforms
from optax.transforms import _combining
from optax.transforms import _masking


def _scale(factor):
  return base.stateless_with_tree_map(lambda g, p: factor * g)


def _shift(offset):
  return base.stateless_with_tree_map(lambda g, p: g + offset)


def _params():
  return {
      'w': jnp.array([[1.0, 2.0], [3.0, 4.0]]),
      'b': jnp.array([0.5, -0.5]),
      'emb': {'table': jnp.array([2.0, -1.0, 0.0])},
  }


class ChainTest(parameterized.TestCase):
  """Tests for chain."""

  @parameterized.parameters(False, True)
  def test_applies_in_order(self, use_jit):
    tx = _combining.chain(_scale(2.0), _shift(1.0),
                          toy_transforms.running_sum())
    params = _params()
    state = tx.init(params)
    self.assertIsInstance(state, tuple)
    self.assertLen(state, 3)
    update = jax.jit(tx.update) if use_jit else tx.update
    for step in range(1, 4):
      updates, state = update(params, state)
      expected = step * (2.0 * np.asarray(params['w']) + 1.0)
      np.testing.assert_allclose(updates['w'], expected)

  @parameterized.parameters('chain', 'named_chain')
  def test_integer_gradients_become_params_dtype(self, kind):
    # Without the cast at the chain's entry the members compute in the
    # default float dtype (0.5 * int32 is float32), not the params' float16.
    members = (_scale(0.5), _scale(-1.0))
    if kind == 'named_chain':
      tx = _combining.named_chain(*zip('ab', members))
    else:
      tx = _combining.chain(*members)
    params = {'w': jnp.zeros(2, jnp.float16)}
    updates, _ = tx.update({'w': jnp.array([3, -1], jnp.int32)},
                           tx.init(params), params)
    self.assertEqual(updates['w'].dtype, jnp.float16)
    np.testing.assert_array_equal(updates['w'], [-1.5, 0.5])

  def test_empty_chain_is_identity(self):
    tx = _combining.chain()
    params = _params()
    state = tx.init(params)
    self.assertEqual(state, ())
    updates, new_state = jax.jit(tx.update)(params, state)
    np.testing.assert_array_equal(updates['w'], params['w'])
    self.assertEqual(new_state, ())

  def test_forwards_extra_args(self):
    tx = _combining.chain(_scale(2.0), toy_transforms.scale_by_value())
    self.assertIsInstance(tx, base.GradientTransformationExtraArgs)
    params = _params()
    updates, _ = tx.update(params, tx.init(params), value=3.0, other=1)
    np.testing.assert_allclose(updates['b'], 6.0 * np.asarray(params['b']))

  def test_state_length_mismatch(self):
    tx = _combining.chain(_scale(2.0), _scale(3.0))
    with self.assertRaisesRegex(ValueError, 'chain: state has 1 entries'):
      tx.update(_params(), (base.EmptyState(),))

  def test_list_argument_rejected(self):
    with self.assertRaisesRegex(ValueError, 'chain: argument 0 .* list'):
      _combining.chain([_scale(1.0), _scale(2.0)])

  def test_state_stable_and_init_on_shapes(self):
    tx = _combining.chain(_scale(2.0), toy_transforms.running_sum())
    params = _params()
    state0 = tx.init(params)
    _, state1 = jax.jit(tx.update)(params, state0)
    self.assertEqual(jax.tree.structure(state0), jax.tree.structure(state1))
    shapes = jax.eval_shape(
        tx.init,
        jax.tree.map(lambda x: jax.ShapeDtypeStruct(x.shape, x.dtype),
                     params))
    self.assertEqual(shapes[1].total['w'].shape, (2, 2))


class NamedChainTest(parameterized.TestCase):
  """Tests for named_chain."""

  @parameterized.parameters(False, True)
  def test_applies_in_order_with_named_state(self, use_jit):
    tx = _combining.named_chain(
        ('double', _scale(2.0)), ('sum', toy_transforms.running_sum()),
        ('shift', _shift(-1.0)))
    params = _params()
    state = tx.init(params)
    self.assertIsInstance(state, collections.OrderedDict)
    self.assertEqual(list(state), ['double', 'sum', 'shift'])
    update = jax.jit(tx.update) if use_jit else tx.update
    for step in range(1, 3):
      updates, state = update(params, state)
      expected = step * 2.0 * np.asarray(params['b']) - 1.0
      np.testing.assert_allclose(updates['b'], expected)
      np.testing.assert_allclose(
          state['sum'].total['b'], step * 2.0 * np.asarray(params['b']))

  def test_forwards_extra_args(self):
    tx = _combining.named_chain(('v', toy_transforms.scale_by_value()),
                                ('s', _scale(2.0)))
    params = _params()
    updates, _ = tx.update(params, tx.init(params), value=0.5)
    np.testing.assert_allclose(updates['w'], np.asarray(params['w']))

  def test_duplicate_names(self):
    with self.assertRaisesRegex(ValueError, r"named_chain: .*\['a'\]"):
      _combining.named_chain(('a', _scale(1.0)), ('a', _scale(2.0)))

  def test_malformed_pairs(self):
    with self.assertRaisesRegex(ValueError, 'named_chain: argument 0'):
      _combining.named_chain(_scale(1.0))
    with self.assertRaisesRegex(ValueError, "named_chain: the transformation"
                                " 'a'"):
      _combining.named_chain(('a', 3))

  def test_empty(self):
    tx = _combining.named_chain()
    updates, state = tx.update(_params(), tx.init(_params()))
    self.assertEqual(dict(state), {})
    np.testing.assert_array_equal(updates['b'], _params()['b'])


_LABELS = {'w': 'dense', 'b': 'dense', 'emb': {'table': 'frozen'}}


class PartitionTest(parameterized.TestCase):
  """Tests for partition."""

  @parameterized.product(use_fn=[False, True], use_jit=[False, True])
  def test_each_group_gets_its_transform(self, use_fn, use_jit):
    params = _params()
    labels = (lambda p: jax.tree.map(
        lambda x: 'frozen' if x.size == 3 else 'dense', p)
              ) if use_fn else _LABELS
    tx = _combining.partition(
        {'dense': _combining.chain(_scale(-2.0), toy_transforms.running_sum()),
         'frozen': base.set_to_zero()},
        labels)
    state = tx.init(params)
    update = jax.jit(tx.update) if use_jit else tx.update
    for step in range(1, 4):
      updates, state = update(params, state)
      np.testing.assert_allclose(
          updates['w'], -2.0 * step * np.asarray(params['w']))
      np.testing.assert_allclose(
          updates['b'], -2.0 * step * np.asarray(params['b']))
      np.testing.assert_array_equal(updates['emb']['table'], np.zeros(3))

  def test_state_layout(self):
    tx = _combining.partition(
        {'dense': toy_transforms.running_sum(), 'frozen': base.set_to_zero(),
         'unused': toy_transforms.running_sum()},
        _LABELS)
    state = tx.init(_params())
    self.assertIsInstance(state, _combining.PartitionState)
    self.assertEqual(list(state.inner_states), ['dense', 'frozen', 'unused'])
    dense = state.inner_states['dense']
    self.assertIsInstance(dense, _masking.MaskedState)
    self.assertIsInstance(dense.inner_state.total['emb']['table'],
                          _masking.MaskedNode)
    self.assertEqual(
        jax.tree.leaves(state.inner_states['unused']), [])

  def test_prefix_labels(self):
    params = _params()
    tx = _combining.partition(
        {'a': _scale(2.0), 'b': _scale(3.0)},
        {'w': 'a', 'b': 'b', 'emb': 'a'})
    updates, _ = tx.update(params, tx.init(params))
    np.testing.assert_allclose(updates['emb']['table'],
                               2.0 * np.asarray(params['emb']['table']))
    np.testing.assert_allclose(updates['b'], 3.0 * np.asarray(params['b']))

  def test_integer_labels(self):
    params = {'x': jnp.ones(2), 'y': jnp.ones(3)}
    tx = _combining.partition({0: _scale(2.0), 1: _scale(5.0)},
                              {'x': 0, 'y': 1})
    updates, _ = tx.update(params, tx.init(params))
    np.testing.assert_allclose(updates['x'], 2.0 * np.ones(2))
    np.testing.assert_allclose(updates['y'], 5.0 * np.ones(3))

  def test_missing_transform_names_label(self):
    tx = _combining.partition({'dense': _scale(1.0)}, _LABELS)
    with self.assertRaisesRegex(ValueError, r"partition: .*\['frozen'\]"):
      tx.init(_params())

  def test_label_structure_mismatch_names_key_path(self):
    bad = {'w': 'dense', 'b': 'dense', 'emb': {'tabel': 'frozen'}}
    tx = _combining.partition(
        {'dense': _scale(1.0), 'frozen': base.set_to_zero()}, bad)
    with self.assertRaisesRegex(
        ValueError, r"partition: param_labels .*\['emb'\]"):
      tx.init(_params())

  def test_forwards_extra_args_issue_1649(self):
    params = _params()
    tx = _combining.partition(
        {'dense': toy_transforms.scale_by_value(),
         'frozen': base.set_to_zero()},
        _LABELS)
    self.assertIsInstance(tx, base.GradientTransformationExtraArgs)
    updates, _ = jax.jit(tx.update)(params, tx.init(params),
                                    value=jnp.asarray(3.0))
    np.testing.assert_allclose(updates['w'], 3.0 * np.asarray(params['w']))
    np.testing.assert_array_equal(updates['emb']['table'], np.zeros(3))

  @parameterized.parameters(False, True)
  def test_mask_compatible_extra_args(self, compatible):
    seen = {}
    spy = toy_transforms.record_extra_args(seen)
    params = _params()
    tx = _combining.partition(
        {'dense': spy, 'frozen': base.set_to_zero()}, _LABELS,
        mask_compatible_extra_args=compatible)
    tx.update(params, tx.init(params), grad=params)
    table = seen['grad']['emb']['table']
    if compatible:
      self.assertIsInstance(table, _masking.MaskedNode)
    else:
      np.testing.assert_array_equal(table, params['emb']['table'])

  def test_labels_function_called_on_updates(self):
    calls = []

    def labels_fn(tree):
      calls.append(tree)
      return jax.tree.map(lambda _: 'all', tree)

    tx = _combining.partition({'all': _scale(2.0)}, labels_fn)
    params = _params()
    grads = jax.tree.map(jnp.ones_like, params)
    state = tx.init(params)
    tx.update(grads, state, params)
    self.assertLen(calls, 2)
    np.testing.assert_array_equal(calls[1]['w'], grads['w'])

  @parameterized.parameters(False, True)
  def test_callable_pytree_labels_are_a_tree(self, use_jit):
    # Regression: a callable pytree of labels (an Equinox model mapped to a
    # label per parameter) was called on the params as if it were a labels
    # function, raising TypeError from the model's __call__.
    class Net(eqx.Module):
      """A callable pytree: an Equinox model."""

      w: jax.Array
      b: jax.Array

      def __call__(self, x):
        return self.w @ x + self.b

    net = Net(w=jnp.ones((2, 3)), b=jnp.array([0.5, -0.5]))
    labels = jax.tree.map(lambda x: 'matrix' if x.ndim > 1 else 'vector', net)
    for partition in (_combining.partition, _combining.multi_transform):
      tx = partition({'matrix': _scale(-1.0), 'vector': _scale(3.0)}, labels)
      state = tx.init(net)
      update = jax.jit(tx.update) if use_jit else tx.update
      updates, _ = update(net, state)
      self.assertIsInstance(updates, Net)
      np.testing.assert_array_equal(updates.w, -np.ones((2, 3)))
      np.testing.assert_array_equal(updates.b, [1.5, -1.5])

  def test_callable_pytree_not_shaped_like_params_is_called(self):
    # A callable module holding configuration (not a label per parameter)
    # is a labels function.
    class Labeler(eqx.Module):
      """A labels function with a data field."""

      min_ndim: int

      def __call__(self, params):
        return jax.tree.map(
            lambda x: 'matrix' if x.ndim >= self.min_ndim else 'vector',
            params)

    params = _params()
    tx = _combining.partition(
        {'matrix': _scale(-1.0), 'vector': _scale(3.0)}, Labeler(2))
    updates, _ = tx.update(params, tx.init(params))
    np.testing.assert_array_equal(updates['w'], -np.asarray(params['w']))
    np.testing.assert_array_equal(updates['b'], 3.0 * np.asarray(params['b']))

  def test_multi_transform_alias(self):
    self.assertIs(_combining.multi_transform, _combining.partition)
    self.assertIs(_combining.MultiTransformState, _combining.PartitionState)

  def test_dtypes_kept(self):
    params = {'x': jnp.ones(2, jnp.bfloat16), 'y': jnp.ones(3, jnp.float16)}
    tx = _combining.partition(
        {'a': toy_transforms.running_sum(), 'b': toy_transforms.running_sum()},
        {'x': 'a', 'y': 'b'})
    updates, state = tx.update(params, tx.init(params))
    self.assertEqual(updates['x'].dtype, jnp.bfloat16)
    self.assertEqual(updates['y'].dtype, jnp.float16)
    self.assertEqual(
        state.inner_states['b'].inner_state.total['y'].dtype, jnp.float16)


class PartitionTreeMapParamsTest(parameterized.TestCase):

  @parameterized.parameters(True, False)
  def test_tree_map_params_finds_partitioned_params(self, labels_as_fn):
    params = {'w': jnp.ones((2, 3)), 'b': jnp.ones((3,))}
    labels = {'w': 'a', 'b': 'b'}
    tx = _combining.partition(
        {'a': toy_transforms.running_sum(), 'b': toy_transforms.running_sum()},
        (lambda p: labels) if labels_as_fn else labels)
    state = tx.init(params)
    doubled = otu.tree_map_params(tx, lambda x: 2 * x + 1, state)
    self.assertEqual(
        jax.tree.structure(doubled), jax.tree.structure(state))
    np.testing.assert_array_equal(
        doubled.inner_states['a'].inner_state.total['w'], np.ones((2, 3)))
    np.testing.assert_array_equal(
        doubled.inner_states['b'].inner_state.total['b'], np.ones((3,)))


if __name__ == '__main__':
  absltest.main()
