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
"""Tests for `flatten`."""

from typing import NamedTuple

from absl.testing import absltest
from absl.testing import parameterized
import jax
import jax.numpy as jnp
import numpy as np

from optax._src import base
from optax._src.testing import cases
from optax._src.testing import toy_transforms
from optax.transforms import _layouts


class _SeenState(NamedTuple):
  total: jax.Array


def _recorder() -> base.GradientTransformationExtraArgs:
  """Sums the updates over steps; adds params and the extra arg `value`."""

  def init_fn(params):
    return _SeenState(jnp.zeros_like(params))

  def update_fn(updates, state, params=None, *, value=0.0, **extra_args):
    del extra_args
    total = state.total + updates
    out = total + value
    if params is not None:
      out = out + params
    return out, _SeenState(total)

  return base.GradientTransformationExtraArgs(init_fn, update_fn)


class FlattenTest(parameterized.TestCase):
  """Tests for flatten."""

  @parameterized.parameters(False, True)
  def test_inner_sees_one_vector(self, use_jit):
    params = {'w': jnp.arange(6.0).reshape(2, 3), 'b': jnp.array([7.0])}
    tx = _layouts.flatten(_recorder())
    state = tx.init(params)
    # Leaves are concatenated in tree-flattening order ('b' before 'w').
    self.assertEqual(state.total.shape, (7,))
    update = jax.jit(tx.update) if use_jit else tx.update
    grads = {'w': jnp.ones((2, 3)), 'b': jnp.array([2.0])}
    for step in range(1, 3):
      updates, state = update(grads, state, params, value=10.0)
      np.testing.assert_allclose(
          updates['w'], step * np.ones((2, 3)) + 10.0 + np.asarray(
              params['w']))
      np.testing.assert_allclose(updates['b'], [step * 2.0 + 10.0 + 7.0])
    np.testing.assert_allclose(state.total,
                               [4.0, 2.0, 2.0, 2.0, 2.0, 2.0, 2.0])

  def test_dtypes_and_shapes_restored(self):
    params = {'a': jnp.ones((2, 2), jnp.bfloat16),
              'b': jnp.ones(3, jnp.float32), 'c': jnp.ones([], jnp.float16)}
    tx = _layouts.flatten(base.stateless_with_tree_map(lambda g, p: 2 * g))
    updates, _ = tx.update(params, tx.init(params))
    for k, param in params.items():
      self.assertEqual(updates[k].shape, param.shape)
      self.assertEqual(updates[k].dtype, param.dtype)
      np.testing.assert_array_equal(np.asarray(updates[k], np.float32),
                                    2 * np.ones(param.shape))

  def test_strict_promotion_mixed_dtypes(self):
    params = {'a': jnp.ones(2, jnp.bfloat16), 'b': jnp.ones(3, jnp.float16),
              'c': jnp.ones(1, jnp.float32)}
    tx = _layouts.flatten(base.stateless_with_tree_map(lambda g, p: -g))
    with jax.numpy_dtype_promotion('strict'):
      updates, _ = jax.jit(tx.update)(params, tx.init(params))
    for k, param in params.items():
      self.assertEqual(updates[k].dtype, param.dtype)

  def test_none_leaves(self):
    params = {'a': jnp.ones(2), 'b': None}
    tx = _layouts.flatten(base.stateless_with_tree_map(lambda g, p: -g))
    updates, _ = tx.update(params, tx.init(params))
    self.assertIsNone(updates['b'])
    np.testing.assert_array_equal(updates['a'], -np.ones(2))

  def test_empty_tree(self):
    tx = _layouts.flatten(base.identity())
    updates, _ = tx.update({}, tx.init({}))
    self.assertEqual(updates, {})

  def test_init_under_eval_shape(self):
    tx = _layouts.flatten(_recorder())
    shapes = jax.eval_shape(
        tx.init, {'w': jax.ShapeDtypeStruct((3, 4), jnp.float32),
                  'b': jax.ShapeDtypeStruct((2,), jnp.float32)})
    self.assertEqual(shapes.total.shape, (14,))


# name -> (factory, extra keyword arguments of update), for
# PreparedInputsTest.
_PREP_TRANSFORMS = {
    'flatten': (lambda: _layouts.flatten(toy_transforms.doubling()), {}),
}


class PreparedInputsTest(
    cases.prepared_inputs_test_case(_PREP_TRANSFORMS)):
  """Inputs the transformations of the module take as a chain gives them."""


if __name__ == '__main__':
  absltest.main()
