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
"""Tests for `optax._src.prepared_inputs`."""

from absl.testing import absltest
from absl.testing import parameterized
import jax
import jax.numpy as jnp
import numpy as np

from optax._src import base
from optax._src import hyperparameters
from optax._src import prepared_inputs


class AsUpdatesTest(parameterized.TestCase):
  """prepared_inputs.as_updates: gradients in the params' floating dtype."""

  @parameterized.parameters('int32', 'int8', 'bool', 'bfloat16', 'float16')
  def test_narrow_gradients_take_the_params_dtype(self, dtype):
    grads = {'a': jnp.array([1, 0], dtype), 'b': None}
    params = {'a': jnp.zeros(2, jnp.float32), 'b': None}
    out, *_ = prepared_inputs.as_updates(grads, params)
    self.assertIsNone(out['b'])
    self.assertEqual(out['a'].dtype, jnp.float32)
    np.testing.assert_array_equal(out['a'], [1.0, 0.0])

  def test_ordinary_gradients_are_returned_as_they_are(self):
    grads = {'a': jnp.ones(2), 'b': jnp.ones(3, jnp.bfloat16)}
    params = {'a': jnp.zeros(2), 'b': jnp.zeros(3, jnp.bfloat16)}
    out, out_params, _ = prepared_inputs.as_updates(grads, params)
    self.assertIs(out, grads)
    self.assertIs(out_params, params)
    self.assertIs(prepared_inputs.as_updates(grads)[0], grads)

  def test_wider_gradients_are_kept(self):
    grads = jnp.ones(2, jnp.float32)
    self.assertIs(
        prepared_inputs.as_updates(grads, jnp.zeros(2, jnp.bfloat16))[0], grads)

  def test_integer_gradients_without_floating_params(self):
    for params in (None, jnp.zeros(2, jnp.int32)):
      out, *_ = prepared_inputs.as_updates(jnp.array([2, -1]), params)
      self.assertEqual(out.dtype, hyperparameters.hyperparameter_dtype())

  def test_mismatched_trees_leave_errors_to_the_transformations(self):
    grads = {'a': jnp.array([1, 2])}
    out, *_ = prepared_inputs.as_updates(
        grads, {'b': jnp.zeros(2, jnp.bfloat16)})
    self.assertEqual(out['a'].dtype, jnp.float32)

  def test_under_jit(self):
    out, *_ = jax.jit(prepared_inputs.as_updates)(
        jnp.array([1, 2], jnp.int8), jnp.zeros(2, jnp.float16))
    self.assertEqual(out.dtype, jnp.float16)

  def test_python_number_leaves_become_arrays(self):
    # Python numbers in the params (a scale kept with the weights) and in
    # the gradients: arrays, the gradient in its param's dtype.
    params = {'w': jnp.ones(2, jnp.bfloat16), 'f': 1.5, 'i': 2}
    grads = {'w': jnp.ones(2, jnp.bfloat16), 'f': 0.5, 'i': 1}
    out, out_params, _ = prepared_inputs.as_updates(grads, params)
    self.assertIs(out['w'], grads['w'])
    self.assertIs(out_params['w'], params['w'])
    self.assertEqual(out_params['f'].dtype, jnp.float32)
    self.assertEqual(out['f'].dtype, jnp.float32)
    self.assertEqual(float(out['f']), 0.5)
    self.assertEqual(out['i'].dtype, hyperparameters.hyperparameter_dtype())
    self.assertEqual(float(out['i']), 1.0)

  def test_float0_gradients_become_zeros(self):
    params = {'i': jnp.array([1, 2]), 'w': jnp.ones(2), 'n': None}
    grads = jax.grad(lambda p: jnp.sum(p['w'] ** 2), allow_int=True)(params)
    self.assertEqual(grads['i'].dtype, jax.dtypes.float0)
    out, _, float0 = prepared_inputs.as_updates(grads, params)
    self.assertIs(out['w'], grads['w'])
    self.assertEqual(out['i'].dtype, hyperparameters.hyperparameter_dtype())
    np.testing.assert_array_equal(out['i'], [0.0, 0.0])
    # The final updates of those leaves are zeroed (a weight decay of an
    # integer param would not be zero), the others kept.
    final = float0.zero({'i': jnp.array([0.5, 1.0]), 'w': out['w'],
                         'n': None})
    np.testing.assert_array_equal(final['i'], [0, 0])
    # In the integer param's dtype: apply_updates leaves it an int32 array.
    self.assertEqual(final['i'].dtype, params['i'].dtype)
    self.assertIs(final['w'], out['w'])
    self.assertIsNone(prepared_inputs.as_updates(out, params)[2])

  def test_float0_without_params_gives_float_zeros(self):
    grads = {'i': np.zeros(2, jax.dtypes.float0), 'w': jnp.ones(2)}
    out, _, float0 = prepared_inputs.as_updates(grads)
    final = float0.zero({'i': out['i'] + 0.5, 'w': out['w']})
    self.assertEqual(final['i'].dtype, hyperparameters.hyperparameter_dtype())
    np.testing.assert_array_equal(final['i'], [0.0, 0.0])

  def test_with_prepared_inputs_on_a_transformation_alone(self):
    tx = prepared_inputs.with_prepared_inputs(
        'scale', base.GradientTransformation(
            lambda params: base.EmptyState(),
            lambda updates, state, params=None: (
                jax.tree.map(lambda g: 0.5 * g, updates), state)))
    params = {'w': jnp.array([1.0, 2.0]), 'f': 1.5, 'i': jnp.array([3, 4])}
    grads = jax.grad(lambda p: jnp.sum(p['w'] * p['f']), allow_int=True)(
        params)
    grads['w'] = jnp.array([4, -2])  # Integer gradients.
    updates, _ = tx.update(grads, tx.init(params), params)
    np.testing.assert_array_equal(updates['w'], [2.0, -1.0])
    self.assertEqual(updates['w'].dtype, jnp.float32)
    self.assertEqual(updates['i'].dtype, jnp.int32)
    np.testing.assert_array_equal(updates['i'], [0, 0])
    self.assertEqual(updates['f'].dtype, jnp.float32)
    with self.assertRaisesRegex(
        ValueError, r"scale: at \['w'\] the gradient has shape \(1, 2\) but"
        r' the param has shape \(2,\)'):
      tx.update(dict(grads, w=jnp.ones((1, 2))), tx.init(params), params)
    self.assertIsInstance(tx, base.GradientTransformation)
    self.assertNotIsInstance(tx, base.GradientTransformationExtraArgs)


class CheckShapesLikeParamsTest(parameterized.TestCase):
  """prepared_inputs.check_shapes_like_params, plain and per example."""

  def test_plain_shapes_must_equal_the_params(self):
    params = {'w': jnp.zeros((4, 3)), 'b': None}
    prepared_inputs.check_shapes_like_params(
        'f', {'w': jnp.ones((4, 3)), 'b': None}, params)
    with self.assertRaisesRegex(
        ValueError, r"^f: at \['w'\] the gradient has shape \(1, 3\) but"
        r' the param has shape \(4, 3\)\. Remedy'):
      prepared_inputs.check_shapes_like_params(
          'f', {'w': jnp.ones((1, 3)), 'b': None}, params)
    # Another structure is left to the transformation's own checks.
    prepared_inputs.check_shapes_like_params(
        'f', {'w': jnp.ones((1, 3))}, params)

  @parameterized.parameters((4, 3), (8, 1, 3), (3,))
  def test_per_example_shapes_need_the_param_after_a_batch_axis(self, *shape):
    params = {'w': jnp.zeros((4, 3))}
    with self.assertRaisesRegex(
        ValueError, r"^g: at \['w'\] the per-example gradient has shape"
        rf' \({shape[0]},.*\) but the param has shape \(4, 3\)\. Remedy:'
        r' give one gradient per example, shaped \(batch_size, 4, 3\)'):
      prepared_inputs.check_shapes_like_params(
          'g', {'w': jnp.ones(shape)}, params, per_example=True)
    prepared_inputs.check_shapes_like_params(
        'g', {'w': jnp.ones((8, 4, 3))}, params, per_example=True)
    with self.assertRaisesRegex(ValueError, 'at the root the per-example'):
      prepared_inputs.check_shapes_like_params(
          'g', jnp.ones(()), jnp.ones(()), per_example=True)


if __name__ == '__main__':
  absltest.main()
