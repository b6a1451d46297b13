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
"""Tests for `optax.tree_utils._state_utils`."""

import dataclasses
from typing import Any, NamedTuple

from absl.testing import absltest
import jax
import jax.numpy as jnp
import numpy as np

from optax._src import base
from optax._src import test_utils
from optax.tree_utils import _state_utils as su

DictKey = jax.tree_util.DictKey
SequenceKey = jax.tree_util.SequenceKey
Key = su.NamedTupleKey


class Moments(NamedTuple):
  """A state shaped like ScaleByAdamState."""
  count: Any
  mu: Any
  nu: Any


class Wrapper(NamedTuple):
  """A state wrapping an inner state, like inject_hyperparams."""
  count: Any
  hyperparams: Any
  inner_state: Any


class Pair(NamedTuple):
  """A NamedTuple with two fields."""
  a: Any
  b: Any


class _Moments:
  """An initable building a Moments state, like scale_by_adam."""

  def init(self, params):
    return Moments(jnp.zeros([], jnp.int32),
                   jax.tree.map(jnp.zeros_like, params),
                   jax.tree.map(jnp.zeros_like, params))


class _Wrapped:
  """An initable wrapping another one, like inject_hyperparams."""

  def __init__(self, inner):
    self.inner = inner

  def init(self, params):
    return Wrapper(jnp.zeros([], jnp.int32),
                   {'learning_rate': jnp.asarray(0.1), 'b1': jnp.asarray(0.9)},
                   (self.inner.init(params), base.EmptyState()))


class _Chain:
  """An initable chaining others, like optax.chain."""

  def __init__(self, *inner):
    self.inner = inner

  def init(self, params):
    return tuple(t.init(params) for t in self.inner)


def _params():
  return {'w': jnp.ones(2), 'b': jnp.zeros(())}


def _opt():
  return _Chain(base.identity(), _Wrapped(_Moments()), _Moments())


def _state():
  return _opt().init(_params())


class NamedTupleKeyTest(absltest.TestCase):
  """Tests of the NamedTupleKey dataclass."""

  def test_fields_str_and_hash(self):
    key = su.NamedTupleKey('ScaleByAdamState', 'mu')
    self.assertEqual([f.name for f in dataclasses.fields(key)],
                     ['tuple_name', 'name'])
    self.assertEqual(str(key), 'ScaleByAdamState.mu')
    self.assertEqual(key, su.NamedTupleKey('ScaleByAdamState', 'mu'))
    self.assertEqual(len({key, su.NamedTupleKey('ScaleByAdamState', 'mu')}), 1)
    with self.assertRaises(dataclasses.FrozenInstanceError):
      key.name = 'nu'  # pytype: disable=attribute-error


class GetAllWithPathTest(absltest.TestCase):
  """Tests of tree_get_all_with_path."""

  def test_order_and_paths(self):
    found = su.tree_get_all_with_path(_state(), 'count')
    self.assertEqual([path for path, _ in found], [
        (SequenceKey(1), Key('Wrapper', 'count')),
        (SequenceKey(2), Key('Moments', 'count')),
        (SequenceKey(1), Key('Wrapper', 'inner_state'), SequenceKey(0),
         Key('Moments', 'count')),
    ])

  def test_matches_inside_unmatched_nodes_come_in_flatten_order(self):
    found = su.tree_get_all_with_path(_state(), 'mu')
    self.assertEqual([path for path, _ in found], [
        (SequenceKey(1), Key('Wrapper', 'inner_state'), SequenceKey(0),
         Key('Moments', 'mu')),
        (SequenceKey(2), Key('Moments', 'mu')),
    ])
    test_utils.assert_trees_all_equal(
        found[0][1], {'w': np.zeros(2), 'b': np.zeros(())})

  def test_dict_keys_and_class_names(self):
    state = _state()
    (path, value), = su.tree_get_all_with_path(state, 'learning_rate')
    self.assertEqual(path, (SequenceKey(1), Key('Wrapper', 'hyperparams'),
                            DictKey('learning_rate')))
    np.testing.assert_allclose(value, 0.1)
    by_name = su.tree_get_all_with_path(state, 'Moments')
    self.assertEqual([p for p, _ in by_name], [
        (SequenceKey(1), Key('Wrapper', 'inner_state'), SequenceKey(0)),
        (SequenceKey(2),),
    ])
    self.assertIsInstance(by_name[1][1], Moments)

  def test_nested_matches(self):
    tree = Pair(Pair(1, 2), Pair(3, 4))
    found = su.tree_get_all_with_path(tree, 'a')
    self.assertEqual(found, [
        ((Key('Pair', 'a'),), Pair(1, 2)),
        ((Key('Pair', 'a'), Key('Pair', 'a')), 1),
        ((Key('Pair', 'b'), Key('Pair', 'a')), 3),
    ])
    self.assertEqual([p for p, _ in su.tree_get_all_with_path(tree, 'Pair')],
                     [(), (Key('Pair', 'a'),), (Key('Pair', 'b'),)])

  def test_none_values_are_found(self):
    self.assertEqual(su.tree_get_all_with_path(Pair(None, 1), 'a'),
                     [((Key('Pair', 'a'),), None)])

  def test_lists_and_dataclasses_are_not_keyed(self):
    self.assertEqual(su.tree_get_all_with_path([1, 2], 0), [])

    @jax.tree_util.register_dataclass
    @dataclasses.dataclass
    class Data:
      """A registered dataclass."""
      x: Any

    self.assertEqual(su.tree_get_all_with_path({'d': Data(1)}, 'x'), [])

  def test_filtering_sees_path_and_value(self):
    calls = []

    def keep_moments(path, value):
      calls.append((path, value))
      return path[-1].tuple_name == 'Moments'

    found = su.tree_get_all_with_path(_state(), 'count', keep_moments)
    self.assertLen(calls, 3)
    self.assertLen(found, 2)
    self.assertTrue(all(p[-1] == Key('Moments', 'count') for p, _ in found))


class GetTest(absltest.TestCase):
  """Tests of tree_get."""

  def test_unique_value(self):
    np.testing.assert_allclose(su.tree_get(_state(), 'learning_rate'), 0.1)

  def test_default(self):
    self.assertIsNone(su.tree_get(_state(), 'not_there'))
    self.assertEqual(su.tree_get(_state(), 'not_there', default=3), 3)

  def test_several_values_raise_with_paths(self):
    with self.assertRaisesRegex(
        KeyError, r"3 values for 'count'.*\[2\]\.Moments\.count"):
      su.tree_get(_state(), 'count')

  def test_filtering_selects_one(self):
    count = su.tree_get(
        _state(), 'count',
        filtering=lambda path, _: path == (SequenceKey(1),
                                           Key('Wrapper', 'count')))
    self.assertEqual(int(count), 0)


class SetTest(absltest.TestCase):
  """Tests of tree_set."""

  def test_set_dict_entry(self):
    state = su.tree_set(_state(), learning_rate=jnp.asarray(0.5))
    np.testing.assert_allclose(su.tree_get(state, 'learning_rate'), 0.5)
    np.testing.assert_allclose(su.tree_get(state, 'b1'), 0.9)

  def test_set_does_not_descend_into_a_match(self):
    state = su.tree_set(_state(), count=jnp.asarray(5))
    self.assertEqual(int(state[1].count), 5)
    self.assertEqual(int(state[2].count), 5)
    # The Moments inside the Wrapper (which holds `count` itself) is kept.
    self.assertEqual(int(state[1].inner_state[0].count), 0)

  def test_set_searches_a_match_rejected_by_filtering(self):
    # The entry named `learning_rate` at the top is not a float: the search
    # goes on in its sibling, which holds a `learning_rate` itself.
    tree = {'hparams': {'learning_rate': 1.0}, 'learning_rate': 'foo'}
    new = su.tree_set(tree, lambda _, v: isinstance(v, float),
                      learning_rate=0.5)
    self.assertEqual(new, {'hparams': {'learning_rate': 0.5},
                           'learning_rate': 'foo'})
    tree = {'a': {'a': 1.0}, 'b': {'a': 1}}
    new = su.tree_set(tree, lambda _, v: isinstance(v, float), a=2.0)
    self.assertEqual(new, {'a': {'a': 2.0}, 'b': {'a': 1}})

  def test_set_a_subtree_selected_by_filtering(self):
    tree = {'a': {'a': 1.0}, 'b': {'a': 1}}
    new = su.tree_set(tree, lambda _, v: isinstance(v, dict), a={'c': 0.0})
    self.assertEqual(new, {'a': {'c': 0.0}, 'b': {'a': 1}})

  def test_filtering_is_positional_only(self):
    state = su.tree_set(
        _state(), lambda path, _: path[-1].tuple_name == 'Moments', count=7)
    self.assertEqual(int(state[1].count), 0)
    self.assertEqual(state[2].count, 7)
    # `filtering` given by keyword is a name to set, not the filter.
    tree = {'filtering': 1}
    self.assertEqual(su.tree_set(tree, filtering=2), {'filtering': 2})

  def test_set_several_names_and_class_name(self):
    self.assertEqual(su.tree_set(Pair(1, 2), a=3, b=4), Pair(3, 4))
    self.assertEqual(su.tree_set(Pair(Pair(1, 2), 5), a=7), Pair(7, 5))
    self.assertEqual(su.tree_set(Pair(1, 2), Pair=0), 0)
    self.assertEqual(su.tree_set([{'a': 1}, Pair(2, 3)], a=0),
                     [{'a': 0}, Pair(0, 3)])
    self.assertEqual(su.tree_set(Pair(None, 1), a=3), Pair(3, 1))

  def test_missing_name_raises(self):
    with self.assertRaisesRegex(KeyError, "no entry named 'foo'"):
      su.tree_set(_state(), foo=1)
    with self.assertRaisesRegex(KeyError, 'given the filtering function'):
      su.tree_set(_state(), lambda *_: False, count=1)

  def test_input_is_not_modified(self):
    tree = {'a': {'b': 1}}
    su.tree_set(tree, b=2)
    self.assertEqual(tree, {'a': {'b': 1}})


class MapParamsTest(absltest.TestCase):
  """Tests of tree_map_params."""

  def test_maps_only_param_leaves(self):
    opt, state = _opt(), _state()
    new = su.tree_map_params(opt, lambda p: p + 10.0, state)
    for moments in (new[1].inner_state[0], new[2]):
      test_utils.assert_trees_all_equal(
          moments.mu, {'w': np.full(2, 10.0), 'b': np.float32(10.0)})
      self.assertEqual(int(moments.count), 0)
    np.testing.assert_allclose(new[1].hyperparams['learning_rate'], 0.1)

  def test_transform_non_params(self):
    new = su.tree_map_params(
        _opt(), lambda p: p, _state(), transform_non_params=lambda _: -1)
    self.assertEqual(new[2].count, -1)
    self.assertEqual(new[1].hyperparams, {'learning_rate': -1, 'b1': -1})
    test_utils.assert_trees_all_equal(new[2].nu, _state()[2].nu)

  def test_rest_trees_are_params_shaped(self):
    scales = {'w': jnp.array([2.0, 3.0]), 'b': jnp.asarray(4.0)}
    state = su.tree_map_params(_opt(), lambda p: p + 1.0, _state())
    new = su.tree_map_params(_opt(), lambda p, s: p * s, state, scales)
    test_utils.assert_trees_all_equal(
        new[2].mu, {'w': np.array([2.0, 3.0]), 'b': np.float32(4.0)})

  def test_is_leaf(self):
    new = su.tree_map_params(
        _opt(), lambda d: sorted(d), _state(),
        is_leaf=lambda x: isinstance(x, dict) and 'w' in x)
    self.assertEqual(new[2].mu, ['b', 'w'])

  def test_to_shape_dtype_structs(self):
    new = su.tree_map_params(
        _opt(), lambda p: jax.ShapeDtypeStruct(p.shape, jnp.bfloat16),
        _state(), transform_non_params=lambda _: None)
    self.assertEqual(new[2].mu['w'], jax.ShapeDtypeStruct((2,), jnp.bfloat16))
    self.assertIsNone(new[2].count)

  def test_none_params_pass_through(self):
    params = {'w': jnp.ones(2), 'b': None}
    opt = _Moments()
    new = su.tree_map_params(opt, lambda p: p + 1.0, opt.init(params))
    self.assertIsNone(new.mu['b'])
    np.testing.assert_array_equal(new.mu['w'], np.ones(2))

  def test_state_of_another_optimizer_raises(self):
    with self.assertRaises(ValueError):
      su.tree_map_params(_Chain(_Moments(), _Moments()), lambda p: p,
                         _state())

  def test_placeholder_is_an_empty_pytree(self):
    placeholder = su._ParamsPlaceholder()
    self.assertEqual(jax.tree.leaves(placeholder), [])
    mapped = jax.tree.map(jnp.zeros_like, placeholder)
    self.assertIsInstance(mapped, su._ParamsPlaceholder)


if __name__ == '__main__':
  absltest.main()
