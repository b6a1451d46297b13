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
"""Tests for `optax._src.update`."""

from absl.testing import absltest
from absl.testing import parameterized
import jax
import jax.numpy as jnp
import numpy as np

from optax._src import test_utils
from optax._src import update


def _np_trees(seed=0):
  rng = np.random.RandomState(seed)
  params = {'w': rng.randn(3, 2).astype(np.float32),
            'b': rng.randn(2).astype(np.float32)}
  updates = {'w': rng.randn(3, 2).astype(np.float32),
             'b': rng.randn(2).astype(np.float32)}
  return params, updates


class ApplyUpdatesTest(parameterized.TestCase):
  """Tests of apply_updates."""

  @parameterized.parameters(False, True)
  def test_adds(self, use_jit):
    params, updates = _np_trees()
    fn = jax.jit(update.apply_updates) if use_jit else update.apply_updates
    out = fn(jax.tree.map(jnp.asarray, params),
             jax.tree.map(jnp.asarray, updates))
    test_utils.assert_trees_all_close(
        out, jax.tree.map(np.add, params, updates))

  @parameterized.parameters(
      (jnp.bfloat16, jnp.float32), (jnp.float32, jnp.bfloat16),
      (jnp.float16, jnp.float32), (jnp.float32, jnp.float32))
  def test_keeps_param_dtype(self, param_dtype, update_dtype):
    params = {'w': jnp.array([1.0, 2.0], param_dtype)}
    updates = {'w': jnp.array([0.1, -0.3], update_dtype)}
    out = update.apply_updates(params, updates)
    self.assertEqual(out['w'].dtype, param_dtype)
    # The sum is computed in the promoted dtype, then rounded once.
    expected = (np.asarray(params['w'], np.float32)
                + np.asarray(updates['w'], np.float32)).astype(param_dtype)
    np.testing.assert_array_equal(out['w'], expected)

  def test_strict_promotion(self):
    params = {'w': jnp.array([1.0, 2.0], jnp.bfloat16)}
    updates = {'w': jnp.array([0.5, 0.5], jnp.float32)}
    with jax.numpy_dtype_promotion('strict'):
      out = update.apply_updates(params, updates)
    self.assertEqual(out['w'].dtype, jnp.bfloat16)

  def test_integer_params_truncate(self):
    out = update.apply_updates({'i': jnp.array([1, 2])},
                               {'i': jnp.array([0.6, 1.2])})
    self.assertEqual(out['i'].dtype, jnp.int32)
    np.testing.assert_array_equal(out['i'], [1, 3])

  def test_none_params_stay_none(self):
    params = {'w': jnp.ones(2), 'n': None}
    out = update.apply_updates(params, {'w': jnp.ones(2), 'n': None})
    self.assertIsNone(out['n'])
    out = update.apply_updates(params, {'w': jnp.ones(2), 'n': jnp.ones(3)})
    self.assertIsNone(out['n'])

  def test_none_update_for_a_param_names_key_path(self):
    with self.assertRaisesRegex(TypeError, r"update at \['b'\]\[1\] is None"):
      update.apply_updates({'b': [jnp.ones(1), jnp.ones(1)]},
                           {'b': [jnp.ones(1), None]})

  def test_structure_mismatch_names_key_path(self):
    with self.assertRaisesRegex(
        ValueError, r"different structures, at \['a'\]: a dict with keys"
        r" \['x', 'y'\] != a dict with keys \['x'\]"):
      update.apply_updates({'a': {'x': jnp.ones(1), 'y': jnp.ones(1)}},
                           {'a': {'x': jnp.ones(1)}})

  def test_shape_dtype_struct_params(self):
    out = jax.eval_shape(
        update.apply_updates,
        {'w': jax.ShapeDtypeStruct((2,), jnp.bfloat16)},
        {'w': jax.ShapeDtypeStruct((2,), jnp.float32)})
    self.assertEqual(out['w'], jax.ShapeDtypeStruct((2,), jnp.bfloat16))


class IncrementalUpdateTest(parameterized.TestCase):
  """Tests of incremental_update."""

  @parameterized.parameters(False, True)
  def test_values(self, use_jit):
    new, old = _np_trees(1)
    fn = (jax.jit(update.incremental_update) if use_jit
          else update.incremental_update)
    out = fn(jax.tree.map(jnp.asarray, new), jax.tree.map(jnp.asarray, old),
             0.25)
    expected = jax.tree.map(lambda n, o: 0.25 * n + 0.75 * o, new, old)
    test_utils.assert_trees_all_close(out, expected, rtol=1e-6, atol=1e-7)

  def test_extremes(self):
    new, old = _np_trees(2)
    new_j, old_j = jax.tree.map(jnp.asarray, new), jax.tree.map(jnp.asarray,
                                                                 old)
    test_utils.assert_trees_all_equal(
        update.incremental_update(new_j, old_j, 1.0), new)
    test_utils.assert_trees_all_equal(
        update.incremental_update(new_j, old_j, 0.0), old)

  def test_python_and_array_step_identical(self):
    new, old = jax.tree.map(jnp.asarray, _np_trees(3))
    test_utils.assert_trees_all_equal(
        update.incremental_update(new, old, 0.3),
        update.incremental_update(new, old, jnp.asarray(0.3, jnp.float32)))

  def test_keeps_old_dtype_and_none(self):
    new = {'w': jnp.array([1.0]), 'n': None}
    old = {'w': jnp.array([3.0], jnp.bfloat16), 'n': None}
    out = update.incremental_update(new, old, jnp.asarray(0.25))
    self.assertEqual(out['w'].dtype, jnp.bfloat16)
    np.testing.assert_array_equal(out['w'], [2.5])
    self.assertIsNone(out['n'])


class PeriodicUpdateTest(parameterized.TestCase):
  """Tests of periodic_update."""

  @parameterized.parameters(
      (0, True), (1, False), (2, True), (3, False), (4, True))
  def test_selects(self, step, take_new):
    new, old = jax.tree.map(jnp.asarray, _np_trees(4))
    for fn in (update.periodic_update, jax.jit(update.periodic_update,
                                               static_argnums=3)):
      out = fn(new, old, jnp.asarray(step), 2)
      test_utils.assert_trees_all_equal(out, new if take_new else old)

  def test_python_step_and_none(self):
    new = {'w': jnp.array([1.0]), 'n': None}
    old = {'w': jnp.array([3.0]), 'n': None}
    out = update.periodic_update(new, old, 6, 3)
    np.testing.assert_array_equal(out['w'], [1.0])
    self.assertIsNone(out['n'])

  def test_keeps_old_dtype(self):
    out = update.periodic_update(
        {'w': jnp.array([1.0])}, {'w': jnp.array([3.0], jnp.bfloat16)},
        jnp.asarray(0), 2)
    self.assertEqual(out['w'].dtype, jnp.bfloat16)


if __name__ == '__main__':
  absltest.main()
