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
"""Tests for `keep_params_nonnegative` and `zero_nans`."""

from absl.testing import absltest
from absl.testing import parameterized
import jax
import jax.numpy as jnp
import numpy as np

from optax._src import base
from optax.transforms import _constraining


class KeepParamsNonnegativeTest(parameterized.TestCase):
  """Tests for keep_params_nonnegative."""

  @parameterized.parameters(False, True)
  def test_values(self, use_jit):
    params = {'a': jnp.array([1.0, -1.0, 0.5, 2.0]),
              'b': jnp.array([[3, 2]], jnp.int32)}
    updates = {'a': jnp.array([-2.0, 1.0, jnp.nan, -2.0]),
               'b': jnp.array([[-5, 1]], jnp.int32)}
    tx = _constraining.keep_params_nonnegative()
    state = tx.init(params)
    self.assertEqual(state, base.EmptyState())
    update = jax.jit(tx.update) if use_jit else tx.update
    new, _ = update(updates, state, params)
    for k, param in params.items():
      p, u = np.asarray(param), np.asarray(updates[k])
      expected = np.where(p + u < 0, -p, u)
      np.testing.assert_array_equal(new[k], expected)
      self.assertEqual(new[k].dtype, updates[k].dtype)
    applied = np.asarray(params['a']) + np.asarray(new['a'])
    self.assertTrue(np.all(applied[~np.isnan(applied)] >= 0))

  def test_updates_keep_their_dtype(self):
    params = jnp.array([1.0, -1.0], jnp.float32)
    updates = jnp.array([-3.0, 0.5], jnp.bfloat16)
    tx = _constraining.keep_params_nonnegative()
    new, _ = tx.update(updates, tx.init(params), params)
    self.assertEqual(new.dtype, jnp.bfloat16)
    np.testing.assert_array_equal(np.asarray(new, np.float32), [-1.0, 1.0])

  def test_strict_promotion(self):
    params = jnp.array([1.0, -1.0], jnp.float32)
    updates = jnp.array([-3.0, 0.5], jnp.bfloat16)
    tx = _constraining.keep_params_nonnegative()
    with jax.numpy_dtype_promotion('strict'):
      new, _ = jax.jit(tx.update)(updates, tx.init(params), params)
    self.assertEqual(new.dtype, jnp.bfloat16)

  def test_params_required(self):
    tx = _constraining.keep_params_nonnegative()
    with self.assertRaisesRegex(ValueError,
                                'keep_params_nonnegative: params'):
      tx.update(jnp.ones(2), tx.init(jnp.ones(2)))

  def test_state_alias(self):
    self.assertIs(_constraining.NonNegativeParamsState, base.EmptyState)


class ZeroNansTest(parameterized.TestCase):
  """Tests for zero_nans."""

  @parameterized.parameters(False, True)
  def test_values_and_state(self, use_jit):
    params = {'a': jnp.zeros(3), 'b': jnp.zeros((2, 2), jnp.bfloat16),
              'c': jnp.zeros(2, jnp.int32)}
    tx = _constraining.zero_nans()
    state = tx.init(params)
    for leaf in jax.tree.leaves(state.found_nan):
      self.assertEqual((leaf.shape, leaf.dtype), ((), jnp.bool_))
      self.assertFalse(leaf)
    update = jax.jit(tx.update) if use_jit else tx.update
    updates = {'a': jnp.array([jnp.nan, jnp.inf, 1.0]),
               'b': jnp.array([[1.0, 2.0], [3.0, 4.0]], jnp.bfloat16),
               'c': jnp.array([1, -5], jnp.int32)}
    new, state = update(updates, state)
    for k, update_k in updates.items():
      u = np.asarray(update_k, np.float64)
      np.testing.assert_array_equal(
          np.asarray(new[k], np.float64), np.where(np.isnan(u), 0.0, u))
      self.assertEqual(new[k].dtype, update_k.dtype)
    self.assertEqual(
        jax.tree.map(bool, state.found_nan), {'a': True, 'b': False,
                                              'c': False})
    # found_nan reflects the last step only, and keeps its dtype.
    new, state = update(jax.tree.map(jnp.zeros_like, updates), state)
    self.assertFalse(any(jax.tree.leaves(jax.tree.map(bool,
                                                      state.found_nan))))
    for leaf in jax.tree.leaves(state.found_nan):
      self.assertEqual(leaf.dtype, jnp.bool_)

  def test_init_on_shape_dtype_structs(self):
    tx = _constraining.zero_nans()
    shapes = jax.eval_shape(
        tx.init, {'a': jax.ShapeDtypeStruct((4, 5), jnp.float32)})
    self.assertEqual(shapes.found_nan['a'].shape, ())
    self.assertEqual(shapes.found_nan['a'].dtype, jnp.bool_)

  def test_state_stable_in_scan(self):
    tx = _constraining.zero_nans()
    params = {'a': jnp.zeros(3)}

    def step(state, g):
      _, state = tx.update({'a': g}, state)
      return state, None

    grads = jnp.array([[1.0, jnp.nan, 0.0], [1.0, 1.0, 1.0]])
    state, _ = jax.lax.scan(step, tx.init(params), grads)
    self.assertFalse(bool(state.found_nan['a']))


if __name__ == '__main__':
  absltest.main()
