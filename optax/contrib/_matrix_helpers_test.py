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
"""Tests for `optax.contrib._matrix_helpers`."""

from typing import NamedTuple, Sequence, Union

from absl.testing import absltest
from absl.testing import parameterized
import jax
import jax.numpy as jnp
import numpy as np

from optax.contrib import _matrix_helpers


class _Dims(NamedTuple):
  """A dimension-numbers class of the kind Muon and GaLore define."""

  reduction_axis: Union[int, Sequence[int]] = 0
  output_axis: Union[int, Sequence[int]] = 1


class AxesTest(parameterized.TestCase):
  """Tests of normalize_axes and fan_in_out."""

  def test_negative_axes_and_groups(self):
    x = jnp.zeros((2, 3, 4, 5))
    self.assertEqual(
        _matrix_helpers.normalize_axes(x, _Dims((-1, 1), 0)),
        ((3, 1), (0,)))
    self.assertEqual(_matrix_helpers.fan_in_out(x, _Dims((-1, 1), 0)),
                     (15, 2))

  @parameterized.named_parameters(
      ('empty', _Dims((), 1), r'_Dims: reduction_axis must name at least'),
      ('out_of_range', _Dims(0, 2),
       r'_Dims: output_axis 2 is out of range for a tensor of shape \(2, 3\)'),
      ('overlap', _Dims(0, -2), r'_Dims: reduction_axis and output_axis must'
       ' be distinct'),
  )
  def test_invalid_axes(self, dims, message):
    with self.assertRaisesRegex(ValueError, message):
      _matrix_helpers.normalize_axes(jnp.zeros((2, 3)), dims)


class MatrixReshapeTest(absltest.TestCase):
  """Tests of matrix_reshape."""

  def test_against_numpy_transpose(self):
    x = jnp.arange(2 * 3 * 4 * 5, dtype=jnp.float32).reshape(2, 3, 4, 5)
    to_matrices, back = _matrix_helpers.matrix_reshape(x, _Dims((3, 1), 2))
    want = np.transpose(np.asarray(x), (0, 3, 1, 2)).reshape(2, 15, 4)
    np.testing.assert_array_equal(to_matrices(x), want)
    np.testing.assert_array_equal(back(to_matrices(x)), x)

  def test_matrix_is_a_batch_of_one(self):
    x = jnp.arange(6.0).reshape(2, 3)
    to_matrices, _ = _matrix_helpers.matrix_reshape(x, _Dims(1, 0))
    np.testing.assert_array_equal(to_matrices(x), np.asarray(x).T[None])


class LeafwiseDimNumsTest(absltest.TestCase):
  """Tests of leafwise_dim_nums."""

  def setUp(self):
    super().setUp()
    self.params = {'b': jnp.zeros(3), 'w': [jnp.zeros((2, 3)),
                                            jnp.zeros((3, 4))]}

  def test_none_gives_default(self):
    self.assertEqual(
        _matrix_helpers.leafwise_dim_nums('f', None, self.params, _Dims),
        [_Dims()] * 3)
    by_rank = _matrix_helpers.leafwise_dim_nums(
        'f', None, self.params, _Dims,
        default=lambda x: _Dims() if x.ndim == 2 else None)
    self.assertEqual(by_rank, [None, _Dims(), _Dims()])

  def test_prefix_tree_and_function(self):
    spec = {'b': None, 'w': _Dims(1, 0)}
    want = [None, _Dims(1, 0), _Dims(1, 0)]
    self.assertEqual(
        _matrix_helpers.leafwise_dim_nums('f', spec, self.params, _Dims),
        want)
    self.assertEqual(
        _matrix_helpers.leafwise_dim_nums(
            'f', lambda p: spec, self.params, _Dims), want)

  def test_list_of_dims_follows_a_list_of_params(self):
    # A list of dimension numbers is a tree node, not one entry.
    spec = {'b': None, 'w': [_Dims(), _Dims(1, 0)]}
    self.assertEqual(
        _matrix_helpers.leafwise_dim_nums('f', spec, self.params, _Dims),
        [None, _Dims(), _Dims(1, 0)])

  def test_mismatch_names_function(self):
    with self.assertRaisesRegex(
        ValueError, 'f: the weight dimension numbers must be a _Dims'):
      _matrix_helpers.leafwise_dim_nums(
          'f', {'b': None}, self.params, _Dims)


class GatherScatterTest(absltest.TestCase):
  """Tests of gather and scatter on arrays without explicit sharding."""

  def test_unsharded_round_trip(self):
    x = jnp.arange(4.0)
    y, sharding = _matrix_helpers.gather(x)
    self.assertIsNone(sharding)
    self.assertIs(y, x)
    self.assertIs(_matrix_helpers.scatter(y, sharding), y)

  def test_under_jit(self):
    @jax.jit
    def f(x):
      y, sharding = _matrix_helpers.gather(x)
      return _matrix_helpers.scatter(2 * y, sharding)
    np.testing.assert_array_equal(f(jnp.ones(3)), 2 * np.ones(3))


if __name__ == '__main__':
  absltest.main()
