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
"""Tests for `optax.tree_utils._casting`."""

from absl.testing import absltest
from absl.testing import parameterized
import jax
import jax.numpy as jnp
import numpy as np

from optax._src import utils
from optax.tree_utils import _casting


class TreeCastTest(parameterized.TestCase):
  """Tests of tree_cast and tree_cast_like."""

  @parameterized.parameters(jnp.float32, jnp.bfloat16, jnp.int32, jnp.float16)
  def test_casts_every_leaf(self, dtype):
    tree = {'f': jnp.array([1.5, -2.0]), 'i': jnp.array([1, 2]),
            'b': jnp.array([True, False]), 'n': None}
    cast = _casting.tree_cast(tree, dtype)
    self.assertIsNone(cast['n'])
    for key in ('f', 'i', 'b'):
      self.assertEqual(cast[key].dtype, dtype)
      np.testing.assert_array_equal(
          np.asarray(cast[key], np.float32),
          np.asarray(tree[key]).astype(dtype).astype(np.float32))

  def test_none_dtype_is_identity(self):
    tree = {'a': jnp.asarray(1.0), 'b': jnp.ones(2, jnp.bfloat16)}
    self.assertIs(_casting.tree_cast(tree, None), tree)

  def test_works_under_jit(self):
    cast = jax.jit(lambda t: _casting.tree_cast(t, jnp.bfloat16))(
        {'a': jnp.array([1.0, 2.0])})
    self.assertEqual(cast['a'].dtype, jnp.bfloat16)

  def test_numpy_leaves_stay_numpy(self):
    cast = _casting.tree_cast({'a': np.ones(2, np.float64)}, jnp.float32)
    self.assertIsInstance(cast['a'], np.ndarray)
    self.assertEqual(cast['a'].dtype, np.float32)

  def test_shape_dtype_struct(self):
    cast = _casting.tree_cast(
        {'a': jax.ShapeDtypeStruct((2, 3), jnp.float32)}, jnp.bfloat16)
    self.assertEqual(cast['a'].shape, (2, 3))
    self.assertEqual(cast['a'].dtype, jnp.bfloat16)

  def test_cast_like(self):
    tree = {'a': jnp.array([1.5]), 'b': jnp.array([2.5]), 'n': None}
    other = {'a': jnp.zeros(1, jnp.bfloat16), 'b': jnp.zeros(1, jnp.int32),
             'n': None}
    cast = _casting.tree_cast_like(tree, other)
    self.assertEqual(cast['a'].dtype, jnp.bfloat16)
    self.assertEqual(cast['b'].dtype, jnp.int32)
    np.testing.assert_array_equal(cast['b'], [2])
    self.assertIsNone(cast['n'])

  def test_cast_like_structure_mismatch(self):
    with self.assertRaises(ValueError):
      _casting.tree_cast_like({'a': jnp.ones(1)}, {'b': jnp.ones(1)})


class TreeDtypeTest(parameterized.TestCase):
  """Tests of tree_dtype."""

  def test_single_dtype(self):
    tree = {'a': jnp.ones(2, jnp.bfloat16), 'b': (jnp.zeros(3, jnp.bfloat16),)}
    self.assertEqual(_casting.tree_dtype(tree), jnp.bfloat16)

  def test_mixed_without_handler_names_key_paths(self):
    tree = {'a': jnp.ones(2), 'b': {'c': jnp.ones(2, jnp.bfloat16)}}
    with self.assertRaisesRegex(
        ValueError, r"\['a'\] is float32 but \['b'\]\['c'\] is bfloat16"):
      _casting.tree_dtype(tree)

  @parameterized.parameters(
      ('promote', jnp.float32, jnp.bfloat16, jnp.float32),
      ('highest', jnp.float32, jnp.bfloat16, jnp.float32),
      ('lowest', jnp.float32, jnp.bfloat16, jnp.bfloat16),
      ('promote', jnp.float16, jnp.bfloat16, jnp.float32),
      ('highest', jnp.int32, jnp.bfloat16, jnp.bfloat16),
      ('lowest', jnp.int32, jnp.bfloat16, jnp.int32),
      ('highest', jnp.complex64, jnp.float32, jnp.complex64),
      ('lowest', jnp.bool_, jnp.float32, jnp.bool_),
  )
  def test_handlers(self, handler, dtype1, dtype2, expected):
    tree = [jnp.ones(1, dtype1), jnp.ones(2, dtype2), jnp.ones(3, dtype1)]
    self.assertEqual(_casting.tree_dtype(tree, handler), expected)

  @parameterized.parameters('highest', 'lowest')
  def test_unordered_dtypes_raise(self, handler):
    tree = [jnp.ones(1, jnp.float16), jnp.ones(1, jnp.bfloat16)]
    with self.assertRaisesRegex(ValueError, 'cannot order dtypes'):
      _casting.tree_dtype(tree, handler)

  def test_bad_handler(self):
    with self.assertRaisesRegex(ValueError, 'mixed_dtype_handler'):
      _casting.tree_dtype([jnp.ones(1)], 'biggest')

  def test_empty_tree_gives_default_float(self):
    self.assertEqual(_casting.tree_dtype({}), jnp.float32)
    with utils.x64_precision():
      self.assertEqual(_casting.tree_dtype({}), jnp.float64)

  def test_python_numpy_and_struct_leaves(self):
    self.assertEqual(_casting.tree_dtype({'a': 1.0}), jnp.float32)
    self.assertEqual(_casting.tree_dtype({'a': np.ones(2)}), jnp.float32)
    self.assertEqual(
        _casting.tree_dtype({'a': jax.ShapeDtypeStruct((2,), jnp.bfloat16)}),
        jnp.bfloat16)
    self.assertEqual(_casting.tree_dtype({'a': 1, 'b': jnp.ones(1)}, 'promote'),
                     jnp.float32)

  def test_weak_type_is_ignored(self):
    tree = {'a': jnp.asarray(1.0), 'b': jnp.ones(2, jnp.float32)}
    self.assertEqual(_casting.tree_dtype(tree), jnp.float32)


if __name__ == '__main__':
  absltest.main()
