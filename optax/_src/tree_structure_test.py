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
"""Tests for `optax._src.tree_structure`."""

from typing import NamedTuple

from absl.testing import absltest
from absl.testing import parameterized
import jax
import jax.numpy as jnp
import numpy as np

from optax._src import tree_structure


class _State(NamedTuple):
  mu: object
  nu: object


def _is_none(x):
  return x is None


class DescribeTest(parameterized.TestCase):
  """Tests of describe_node."""

  @parameterized.named_parameters(
      ('dict', {'b': 1, 'a': 2}, "a dict with keys ['a', 'b']"),
      ('list', [1, 2], 'a list of length 2'),
      ('tuple', (1,), 'a tuple of length 1'),
      ('named_tuple', _State(1, 2), 'a NamedTuple _State'),
      ('none', None, 'None'),
      ('leaf', 1.0, 'a leaf of type float'),
  )
  def test_describe(self, node, expected):
    _, treedef = tree_structure.one_level(node)
    self.assertEqual(tree_structure.describe_node(node, treedef), expected)


class OneLevelTest(absltest.TestCase):
  """Tests of one_level."""

  def test_children_with_keys(self):
    children, treedef = tree_structure.one_level({'a': [1, 2], 'b': 3})
    self.assertEqual([jax.tree_util.keystr((k,)) for k, _ in children],
                     ["['a']", "['b']"])
    self.assertEqual([c for _, c in children], [[1, 2], 3])
    self.assertEqual(treedef.num_leaves, 2)

  def test_leaf(self):
    self.assertEqual(tree_structure.one_level(jnp.ones(2)), ([], None))
    self.assertEqual(
        tree_structure.one_level(None, is_leaf=_is_none), ([], None))


class FindDifferenceTest(absltest.TestCase):
  """Tests of find_difference and structure_difference."""

  def test_equal_structures(self):
    self.assertIsNone(tree_structure.structure_difference(
        {'a': [1, (2, None)]}, {'a': [3.0, (jnp.ones(2), None)]}))

  def test_names_first_difference_depth_first(self):
    self.assertEqual(
        tree_structure.structure_difference({'a': [1, 2], 'b': 1},
                                            {'a': [1], 'b': (1,)}),
        "at ['a']: a list of length 2 != a list of length 1")
    self.assertEqual(
        tree_structure.structure_difference({'a': None}, {'a': 1.0}),
        "at ['a']: None != a leaf of type float")

  def test_is_leaf(self):
    self.assertIsNone(tree_structure.structure_difference(
        {'a': None}, {'a': 1.0}, is_leaf=_is_none))

  def test_nested_named_tuple_path(self):
    found = tree_structure.find_difference(
        [_State({'w': 1}, 2)], [_State({'v': 1}, 2)])
    self.assertEqual(found.where(), '[0].mu')
    self.assertEqual(found.first, "a dict with keys ['w']")
    self.assertEqual(found.second, "a dict with keys ['v']")

  def test_root(self):
    found = tree_structure.find_difference([1], (1,))
    self.assertEqual(found.path, ())
    self.assertEqual(found.where(), '<root>')
    self.assertEqual(found.where(root='(the root)'), '(the root)')
    self.assertEqual(
        tree_structure.structure_difference([1], (1,)),
        'at <root>: a list of length 1 != a tuple of length 1')

  def test_prefix(self):
    mask = {'a': True, 'b': {'c': False}}
    params = {'a': [jnp.ones(2), jnp.ones(3)], 'b': {'c': jnp.ones(1)}}
    self.assertIsNone(
        tree_structure.find_difference(mask, params, prefix=True))
    # Without prefix=True a leaf does not match a subtree.
    found = tree_structure.find_difference(mask, params)
    self.assertEqual(found.where(), "['a']")
    self.assertEqual(found.first, 'a leaf of type bool')
    self.assertEqual(found.second, 'a list of length 2')
    # A prefix mismatch below the root names its path.
    found = tree_structure.find_difference(
        {'a': True, 'b': {'d': True}}, params, prefix=True)
    self.assertEqual(found.where(), "['b']")
    self.assertEqual(
        (found.first, found.second),
        ("a dict with keys ['d']", "a dict with keys ['c']"))
    # The full tree may not be a leaf where the prefix is a node.
    found = tree_structure.find_difference(
        {'a': [True, True], 'b': True}, {'a': 1.0, 'b': 2.0}, prefix=True)
    self.assertEqual(
        (found.where(), found.first, found.second),
        ("['a']", 'a list of length 2', 'a leaf of type float'))


class CheckLikeUpdatesTest(absltest.TestCase):
  """Tests of check_like_updates."""

  def test_matching_trees_pass(self):
    tree_structure.check_like_updates(
        'f', {'a': jnp.ones(2), 'b': None}, {'a': jnp.zeros(2), 'b': None})

  def test_structure_mismatch(self):
    with self.assertRaisesRegex(
        ValueError,
        r"^f: the updates and the optimizer state differ in structure at"
        r" \['b'\]: a list of length 1 != a list of length 2 \(updates !="
        r' state\)\. The optimizer state was built by init for other params'):
      tree_structure.check_like_updates(
          'f', {'a': jnp.ones(2), 'b': [jnp.ones(1)]},
          {'a': jnp.zeros(2), 'b': [jnp.ones(1), jnp.ones(1)]})

  def test_none_update_matches_any_moment(self):
    tree_structure.check_like_updates(
        'f', {'a': None, 'b': jnp.ones(2)}, {'a': jnp.ones(3),
                                              'b': jnp.ones(2)})

  def test_array_update_with_none_moment(self):
    with self.assertRaisesRegex(
        ValueError,
        r"^f: at \['b'\] the update has shape \(1,\) but the optimizer"
        r' state has None\.'):
      tree_structure.check_like_updates(
          'f', {'a': jnp.ones(2), 'b': jnp.ones(1)},
          {'a': jnp.zeros(2), 'b': None})

  def test_shape_mismatch_with_custom_names(self):
    with self.assertRaisesRegex(
        ValueError,
        r"^g: at \['a'\] the update has shape \(2, 3\) but the accumulator"
        r' has shape \(3,\)\. Do this\.$'):
      tree_structure.check_like_updates(
          'g', {'a': jnp.ones((2, 3))}, {'a': jnp.zeros(3)},
          state_name='the accumulator', remedy='Do this.')

  def test_under_jit(self):
    @jax.jit
    def f(u, m):
      tree_structure.check_like_updates('f', u, m)
      return u
    with self.assertRaisesRegex(ValueError, r"f: at \['a'\]"):
      f({'a': jnp.ones(2)}, {'a': jnp.ones(3)})


class UnzipTest(absltest.TestCase):
  """Tests of unzip."""

  def test_pairs(self):
    first, second = tree_structure.unzip(
        {'a': 0, 'b': [0, 0]}, {'a': (1, 2), 'b': [(3, 4), (5, 6)]}, 2)
    self.assertEqual(first, {'a': 1, 'b': [3, 5]})
    self.assertEqual(second, {'a': 2, 'b': [4, 6]})

  def test_inverse_of_tree_map_to_tuples(self):
    trees = ({'w': jnp.arange(3.0)}, {'w': jnp.ones(3, jnp.int32)},
             {'w': jnp.zeros(3, jnp.bfloat16)})
    zipped = jax.tree.map(lambda *xs: xs, *trees)
    out = tree_structure.unzip(trees[0], zipped, 3)
    for got, want in zip(out, trees):
      self.assertEqual(got['w'].dtype, want['w'].dtype)
      np.testing.assert_array_equal(got['w'], want['w'])

  def test_none_nodes_and_none_entries(self):
    like = {'a': jnp.ones(2), 'b': None}
    pairs = {'a': (jnp.ones(2), None), 'b': None}
    first, second = tree_structure.unzip(like, pairs, 2)
    self.assertIsNone(first['b'])
    self.assertIsNone(second['a'])
    self.assertIsNone(second['b'])

  def test_tuples_holding_subtrees(self):
    first, second = tree_structure.unzip(
        [0], [({'x': 1}, (2, 3))], 2)
    self.assertEqual(first, [{'x': 1}])
    self.assertEqual(second, [(2, 3)])

  def test_empty_tree(self):
    self.assertEqual(tree_structure.unzip({}, {}, 3), ({}, {}, {}))

  def test_wrong_length_raises(self):
    with self.assertRaisesRegex(ValueError, 'tuples of length 2'):
      tree_structure.unzip([0], [(1, 2, 3)], 2)


if __name__ == '__main__':
  absltest.main()
