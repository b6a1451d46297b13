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
"""Tests for `optax._src.test_utils`."""

from typing import Any, NamedTuple

from absl.testing import absltest
import jax
import jax.numpy as jnp
import numpy as np

from optax._src import test_utils


class State(NamedTuple):
  """A NamedTuple state for key-path messages."""
  count: Any
  mu: Any


def _tree():
  return {'a': jnp.array([1.0, 2.0]),
          'b': [jnp.zeros(()), State(jnp.asarray(0), {'w': jnp.ones(2)})]}


def _modified(fn):
  """_tree() with fn applied to the leaf at ['b'][1].mu['w']."""
  tree = _tree()
  state = tree['b'][1]
  tree['b'][1] = state._replace(mu={'w': fn(state.mu['w'])})
  return tree


class AllCloseTest(absltest.TestCase):
  """Tests of assert_trees_all_close and assert_trees_all_equal."""

  def test_passes(self):
    test_utils.assert_trees_all_close(_tree(), _modified(lambda w: w + 1e-7))
    test_utils.assert_trees_all_close(
        _tree(), _modified(lambda w: w + 1e-3), atol=1e-2)
    test_utils.assert_trees_all_close(
        _tree(), _modified(lambda w: w * 1.01), rtol=0.1)
    test_utils.assert_trees_all_equal(_tree(), _tree())

  def test_nan_bfloat16_python_and_none_leaves(self):
    test_utils.assert_trees_all_close({'x': jnp.array([jnp.nan])},
                                      {'x': np.array([np.nan])})
    test_utils.assert_trees_all_close({'x': jnp.ones(2, jnp.bfloat16)},
                                      {'x': np.ones(2)})
    test_utils.assert_trees_all_close({'x': 1.0, 'n': None},
                                      {'x': 1.0, 'n': None})
    test_utils.assert_trees_all_equal({'x': jnp.array([jnp.nan])},
                                      {'x': jnp.array([jnp.nan])})

  def test_value_mismatch_names_key_path(self):
    with self.assertRaisesRegex(
        AssertionError,
        r"assert_trees_all_close: at \['b'\]\[1\]\.mu\['w'\]: leaves differ"):
      test_utils.assert_trees_all_close(_tree(), _modified(lambda w: w + 1))
    with self.assertRaisesRegex(
        AssertionError, r"at \['b'\]\[1\]\.mu\['w'\]: leaves differ"):
      test_utils.assert_trees_all_equal(_tree(), _modified(lambda w: w + 1e-6))

  def test_shape_mismatch_is_not_broadcast(self):
    with self.assertRaisesRegex(AssertionError, r"at \['x'\]"):
      test_utils.assert_trees_all_close({'x': jnp.ones((2, 2))},
                                        {'x': jnp.ones(2)})

  def test_structure_mismatch_names_key_path(self):
    with self.assertRaisesRegex(
        AssertionError, r"different structures, at \['b'\]\[1\]\.mu\['w'\]:"
        r" a leaf of type ArrayImpl != None"):
      test_utils.assert_trees_all_close(_tree(), _modified(lambda w: None))
    other = _tree()
    other['b'][1] = other['b'][1]._replace(mu={'v': jnp.ones(2)})
    with self.assertRaisesRegex(
        AssertionError, r"at \['b'\]\[1\]\.mu: a dict with keys \['w'\] !="
        r" a dict with keys \['v'\]"):
      test_utils.assert_trees_all_close(_tree(), other)
    with self.assertRaisesRegex(AssertionError, r"at \['n'\]: None !="):
      test_utils.assert_trees_all_equal({'n': None}, {'n': 1.0})

  def test_err_msg_is_appended(self):
    with self.assertRaisesRegex(AssertionError, 'step 3'):
      test_utils.assert_trees_all_close({'x': 1.0}, {'x': 2.0},
                                        err_msg='step 3')


class AbstractLeavesTest(absltest.TestCase):
  """assert_trees_all_equal on ShapedArray and ShapeDtypeStruct leaves."""

  def test_equal_abstract_leaves_pass(self):
    tree = {'w': jnp.ones((2, 3)), 'c': jnp.zeros([], jnp.int32)}
    test_utils.assert_trees_all_equal(
        jax.tree.map(jax.typeof, tree),
        {'w': jax.core.ShapedArray((2, 3), jnp.float32),
         'c': jax.core.ShapedArray((), jnp.int32)})
    test_utils.assert_trees_all_equal(
        jax.eval_shape(lambda: tree),
        {'w': jax.ShapeDtypeStruct((2, 3), jnp.float32),
         'c': jax.ShapeDtypeStruct((), jnp.int32)})
    test_utils.assert_trees_all_equal(
        State(jnp.ones(2).aval, None), State(jax.typeof(jnp.zeros(2)), None))

  def test_shape_dtype_and_weak_type_mismatches_name_key_path(self):
    cases = (
        (jax.core.ShapedArray((2, 3), jnp.float32),
         jax.core.ShapedArray((3, 2), jnp.float32), r'shape=\(3, 2\)'),
        (jax.core.ShapedArray((2,), jnp.float32),
         jax.core.ShapedArray((2,), jnp.bfloat16), 'dtype=bfloat16'),
        (jax.core.ShapedArray((), jnp.float32, weak_type=True),
         jax.core.ShapedArray((), jnp.float32), 'weak_type=True'),
        (jax.ShapeDtypeStruct((2,), jnp.float32),
         jax.ShapeDtypeStruct((2,), jnp.int32), 'dtype=int32'),
    )
    for actual, desired, detail in cases:
      with self.subTest(detail=detail):
        with self.assertRaisesRegex(
            AssertionError,
            r"assert_trees_all_equal: at \['b'\]\[1\]: abstract leaves"
            r' differ: .*' + detail):
          test_utils.assert_trees_all_equal({'b': [None, actual]},
                                            {'b': [None, desired]})

  def test_abstract_leaf_types_and_concrete_leaves_differ(self):
    sds = jax.ShapeDtypeStruct((2,), jnp.float32)
    aval = jax.core.ShapedArray((2,), jnp.float32)
    with self.assertRaisesRegex(
        AssertionError, r"at \['x'\]: leaf types differ: ShapeDtypeStruct"):
      test_utils.assert_trees_all_equal({'x': sds}, {'x': aval})
    for actual, desired in ((aval, jnp.zeros(2)), (np.zeros(2), sds)):
      with self.assertRaisesRegex(
          AssertionError, r"at \['x'\]: an abstract leaf is compared with "
          r'a concrete one'):
        test_utils.assert_trees_all_equal({'x': actual}, {'x': desired})

  def test_err_msg_is_appended(self):
    with self.assertRaisesRegex(AssertionError, 'in the sharded test'):
      test_utils.assert_trees_all_equal(
          jax.core.ShapedArray((2,), jnp.float32),
          jax.core.ShapedArray((1,), jnp.float32),
          err_msg='in the sharded test')


class FiniteTest(absltest.TestCase):
  """Tests of assert_tree_all_finite."""

  def test_passes(self):
    test_utils.assert_tree_all_finite(_tree())
    test_utils.assert_tree_all_finite({'i': jnp.arange(3), 'n': None})

  def test_names_key_path(self):
    for bad in (jnp.inf, -jnp.inf, jnp.nan):
      with self.assertRaisesRegex(
          AssertionError, r"at \['b'\]\[1\]\.mu\['w'\]: 1 non-finite"):
        test_utils.assert_tree_all_finite(
            _modified(lambda w, v=bad: w.at[0].set(v)))


class DtypesShapesStructsTest(absltest.TestCase):
  """Tests of the dtype, shape and structure assertions."""

  def test_dtypes(self):
    test_utils.assert_trees_all_equal_dtypes(
        _tree(), jax.tree.map(lambda x: x + 1, _tree()))
    test_utils.assert_trees_all_equal_dtypes({'x': jnp.asarray(1.0)},
                                             {'x': jnp.float32(2.0)})
    with self.assertRaisesRegex(
        AssertionError,
        r"at \['b'\]\[1\]\.mu\['w'\]: dtypes differ: float32 != bfloat16"):
      test_utils.assert_trees_all_equal_dtypes(
          _tree(), _modified(lambda w: w.astype(jnp.bfloat16)))

  def test_shapes(self):
    test_utils.assert_trees_all_equal_shapes(
        _tree(), jax.tree.map(lambda x: x.astype(jnp.int8), _tree()))
    test_utils.assert_trees_all_equal_shapes(
        {'x': jnp.ones(2)}, {'x': jax.ShapeDtypeStruct((2,), jnp.float32)})
    with self.assertRaisesRegex(
        AssertionError, r"at \['b'\]\[1\]\.mu\['w'\]: shapes differ: \(2,\)"
        r" != \(3,\)"):
      test_utils.assert_trees_all_equal_shapes(
          _tree(), _modified(lambda w: jnp.ones(3)))

  def test_structs(self):
    test_utils.assert_trees_all_equal_structs(
        _tree(), jax.tree.map(lambda x: 0, _tree()))
    with self.assertRaisesRegex(AssertionError, r"at \['a'\]"):
      test_utils.assert_trees_all_equal_structs({'a': 1}, {'a': [1]})
    with self.assertRaisesRegex(AssertionError, 'at <root>: a tuple'):
      test_utils.assert_trees_all_equal_structs((1,), [1])
    with self.assertRaisesRegex(AssertionError, r"at \['a'\]: None"):
      test_utils.assert_trees_all_equal_structs({'a': None}, {'a': 1})


class LogCompilationsTest(absltest.TestCase):
  """Tests of log_compilations."""

  def test_counts_jit_compilations(self):
    step = jax.jit(lambda x: x * 2.0 + 1.0)
    x, y, z = jnp.ones(3), jnp.zeros(3), jnp.ones(4)
    with test_utils.log_compilations() as compilations:
      step(x)
      step(y)
    self.assertLen(compilations, 1)
    with test_utils.log_compilations() as compilations:
      step(x)
    self.assertEmpty(compilations)
    with test_utils.log_compilations() as compilations:
      step(z)  # A new shape compiles again.
    self.assertLen(compilations, 1)

  def test_restores_flag_and_is_live(self):
    self.assertFalse(jax.config.jax_log_compiles)
    step = jax.jit(lambda x: x - 1.0)
    x = jnp.ones(5)
    with test_utils.log_compilations() as compilations:
      self.assertTrue(jax.config.jax_log_compiles)
      step(x)
      self.assertLen(compilations, 1)  # Filled while the block runs.
    self.assertFalse(jax.config.jax_log_compiles)
    step(jnp.ones(6))
    self.assertLen(compilations, 1)  # Nothing recorded after the block.


if __name__ == '__main__':
  absltest.main()
