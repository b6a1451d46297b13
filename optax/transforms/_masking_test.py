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
"""Tests for `masked` in `optax.transforms._masking`."""

from typing import Callable

from absl.testing import absltest
from absl.testing import parameterized
import equinox as eqx
import jax
import jax.numpy as jnp
import numpy as np

from optax import tree_utils as otu
from optax._src import alias
from optax._src import base
from optax._src import numerics
from optax._src.testing import cases
from optax._src.testing import toy_transforms
from optax.transforms import _adding
from optax.transforms import _combining
from optax.transforms import _masking


def _scale(factor):
  return base.stateless_with_tree_map(lambda g, p: factor * g)


def _params():
  return {
      'w': jnp.array([[1.0, 2.0], [3.0, 4.0]]),
      'b': jnp.array([0.5, -0.5]),
      'nested': {'u': jnp.array([2.0]), 'v': jnp.array([-3.0, 1.0, 0.0])},
  }


_MASK = {'w': True, 'b': False, 'nested': {'u': False, 'v': True}}


class _Net(eqx.Module):
  """A callable pytree: an Equinox model, used as a mask of itself."""

  w: jax.Array
  b: jax.Array

  def __call__(self, x):
    return self.w @ x + self.b


def _net():
  return _Net(w=jnp.array([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]),
              b=jnp.array([0.5, -0.5]))


def _np_masked_sum(steps, grads, mask):
  """Running sum on selected leaves, identity on the others (NumPy)."""
  out = {}
  flat_mask = {
      'w': mask['w'], 'b': mask['b'],
      'u': mask['nested']['u'], 'v': mask['nested']['v']}
  flat = {'w': grads['w'], 'b': grads['b'], 'u': grads['nested']['u'],
          'v': grads['nested']['v']}
  for k, g in flat.items():
    g = np.asarray(g)
    out[k] = g * steps if flat_mask[k] else g
  return out


class MaskedTest(parameterized.TestCase):
  """Tests for masked."""

  @parameterized.product(use_fn=[False, True], use_jit=[False, True])
  def test_selected_leaves_transformed_others_unchanged(self, use_fn, use_jit):
    params = _params()
    mask = (lambda p: jax.tree.map(lambda x: x.ndim == 2 or x.size == 3, p)
            ) if use_fn else _MASK
    tx = _masking.masked(toy_transforms.running_sum(), mask)
    state = tx.init(params)
    update = jax.jit(tx.update) if use_jit else tx.update
    grads = jax.tree.map(lambda x: 2.0 * x + 1.0, params)
    for step in range(1, 4):
      updates, state = update(grads, state)
      expected = _np_masked_sum(step, grads, _MASK)
      np.testing.assert_allclose(updates['w'], expected['w'])
      np.testing.assert_allclose(updates['b'], expected['b'])
      np.testing.assert_allclose(updates['nested']['u'], expected['u'])
      np.testing.assert_allclose(updates['nested']['v'], expected['v'])

  def test_state_only_holds_selected_leaves(self):
    tx = _masking.masked(toy_transforms.running_sum(), _MASK)
    state = tx.init(_params())
    self.assertIsInstance(state, _masking.MaskedState)
    total = state.inner_state.total
    self.assertIsInstance(total['b'], _masking.MaskedNode)
    self.assertIsInstance(total['nested']['u'], _masking.MaskedNode)
    self.assertEqual(total['w'].shape, (2, 2))
    self.assertLen(jax.tree.leaves(state), 2)

  def test_prefix_mask(self):
    params = _params()
    tx = _masking.masked(_scale(-1.0), {'w': False, 'b': True,
                                        'nested': True})
    updates, _ = tx.update(params, tx.init(params))
    np.testing.assert_array_equal(updates['w'], params['w'])
    np.testing.assert_array_equal(updates['b'], -params['b'])
    np.testing.assert_array_equal(updates['nested']['v'],
                                  -params['nested']['v'])

  def test_state_structure_dtype_stable_under_jit(self):
    params = _params()
    tx = _masking.masked(toy_transforms.running_sum(), _MASK)
    state0 = tx.init(params)
    _, state1 = jax.jit(tx.update)(params, state0)
    self.assertEqual(jax.tree.structure(state0), jax.tree.structure(state1))
    for a, b in zip(jax.tree.leaves(state0), jax.tree.leaves(state1)):
      self.assertEqual((a.shape, a.dtype), (b.shape, b.dtype))

  def test_init_on_shape_dtype_structs(self):
    params = jax.tree.map(
        lambda x: jax.ShapeDtypeStruct(x.shape, x.dtype), _params())
    tx = _masking.masked(toy_transforms.running_sum(), _MASK)
    state = jax.eval_shape(tx.init, params)
    self.assertEqual(state.inner_state.total['w'].shape, (2, 2))

  def test_nested_masked_issue_271(self):
    params = _params()
    inner_mask = {'w': True, 'b': True, 'nested': {'u': True, 'v': False}}
    outer_mask = {'w': False, 'b': True, 'nested': {'u': True, 'v': True}}
    tx = _masking.masked(_masking.masked(_scale(3.0), inner_mask), outer_mask)
    state = tx.init(params)
    updates, _ = jax.jit(tx.update)(params, state)
    # Only leaves selected by both masks are scaled.
    np.testing.assert_array_equal(updates['w'], params['w'])
    np.testing.assert_array_equal(updates['b'], 3.0 * params['b'])
    np.testing.assert_array_equal(updates['nested']['u'],
                                  3.0 * params['nested']['u'])
    np.testing.assert_array_equal(updates['nested']['v'],
                                  params['nested']['v'])

  def test_masked_lamb_like_chain_issue_271(self):
    # An optimizer that itself contains a masked weight decay (as lamb does),
    # applied through an outer mask and with mask functions at both levels.
    params = _params()

    def decay(g, p):
      return g + 0.1 * p

    inner = _combining.chain(
        _scale(2.0),
        _masking.masked(
            base.stateless_with_tree_map(decay),
            lambda p: jax.tree.map(lambda x: x.ndim == 2, p)),
        toy_transforms.running_sum(),
    )
    tx = _masking.masked(
        inner, lambda p: jax.tree.map(lambda x: x.size > 1, p))
    state = tx.init(params)
    grads = jax.tree.map(jnp.ones_like, params)
    updates, state = jax.jit(tx.update)(grads, state, params)
    np.testing.assert_allclose(updates['w'], 2.0 + 0.1 * params['w'])
    np.testing.assert_allclose(updates['b'], 2.0 * np.ones(2))
    np.testing.assert_array_equal(updates['nested']['u'], np.ones(1))
    np.testing.assert_allclose(updates['nested']['v'], 2.0 * np.ones(3))

  def test_forwards_extra_args_issue_1649(self):
    params = _params()
    tx = _masking.masked(toy_transforms.scale_by_value(), _MASK)
    state = tx.init(params)
    self.assertIsInstance(tx, base.GradientTransformationExtraArgs)
    updates, _ = tx.update(params, state, value=jnp.asarray(4.0))
    np.testing.assert_array_equal(updates['w'], 4.0 * params['w'])
    np.testing.assert_array_equal(updates['b'], params['b'])

  @parameterized.parameters(False, True)
  def test_mask_compatible_extra_args(self, compatible):
    seen = {}
    spy = toy_transforms.record_extra_args(seen)
    params = _params()
    tx = _masking.masked(spy, _MASK, mask_compatible_extra_args=compatible)
    tx.update(params, tx.init(params), grad=params, value=1.0,
              other={'x': 1})
    self.assertEqual(seen['value'], 1.0)
    self.assertEqual(seen['other'], {'x': 1})
    if compatible:
      self.assertIsInstance(seen['grad']['b'], _masking.MaskedNode)
      np.testing.assert_array_equal(seen['grad']['w'], params['w'])
    else:
      np.testing.assert_array_equal(seen['grad']['b'], params['b'])

  def test_plain_inner_transform_ignores_extra_args(self):
    params = _params()
    tx = _masking.masked(_scale(2.0), _MASK)
    updates, _ = tx.update(params, tx.init(params), value=3.0)
    np.testing.assert_array_equal(updates['w'], 2.0 * params['w'])

  def test_params_are_masked_too(self):
    params = _params()
    tx = _masking.masked(
        base.stateless_with_tree_map(lambda g, p: g + p), _MASK)
    grads = jax.tree.map(jnp.ones_like, params)
    updates, _ = tx.update(grads, tx.init(params), params)
    np.testing.assert_array_equal(updates['w'], 1.0 + params['w'])
    np.testing.assert_array_equal(updates['b'], np.ones(2))

  def test_none_leaves_pass_through(self):
    params = {'a': jnp.ones(2), 'b': None}
    tx = _masking.masked(_scale(2.0), {'a': True, 'b': None})
    updates, _ = tx.update(params, tx.init(params))
    self.assertIsNone(updates['b'])
    np.testing.assert_array_equal(updates['a'], 2.0 * np.ones(2))

  def test_dtype_kept(self):
    params = {'a': jnp.ones(2, jnp.bfloat16), 'b': jnp.ones(2, jnp.float16)}
    tx = _masking.masked(toy_transforms.running_sum(), {'a': True, 'b': False})
    updates, state = tx.update(params, tx.init(params))
    self.assertEqual(updates['a'].dtype, jnp.bfloat16)
    self.assertEqual(updates['b'].dtype, jnp.float16)
    self.assertEqual(state.inner_state.total['a'].dtype, jnp.bfloat16)

  def test_counter_state_in_masked(self):
    def init_fn(params):
      del params
      return jnp.zeros([], jnp.int32)

    def update_fn(updates, state, params=None):
      del params
      return updates, numerics.safe_increment(state)

    tx = _masking.masked(base.GradientTransformation(init_fn, update_fn),
                         _MASK)
    state = tx.init(_params())
    for _ in range(3):
      _, state = tx.update(_params(), state)
    self.assertEqual(int(state.inner_state), 3)

  def test_structure_mismatch_names_key_path(self):
    params = _params()
    bad_mask = {'w': True, 'b': False, 'nested': {'u': False, 'x': True}}
    tx = _masking.masked(_scale(2.0), bad_mask)
    with self.assertRaisesRegex(ValueError, r"masked: .*\['nested'\]"):
      tx.init(params)
    with self.assertRaisesRegex(ValueError, r"masked: .*\['nested'\]"):
      tx.update(params, _masking.MaskedState(base.EmptyState()))

  def test_tree_of_functions_is_rejected(self):
    tx = _masking.masked(_scale(2.0), {'w': lambda x: True})
    # A TypeError, as upstream 0.2.8's (which calls the tree).
    with self.assertRaisesRegex(TypeError, 'single function'):
      tx.init({'w': jnp.ones(1)})
    adamw = alias.adamw(1.0, mask={'w': lambda x: True})
    with self.assertRaisesRegex(TypeError, 'single function'):
      adamw.init({'w': jnp.ones(1)})

  @parameterized.named_parameters(
      ('function', lambda p: p, True),
      ('tree_of_functions', {'a': lambda p: p}, False),
      ('tree_of_bools', {'a': True, 'b': False}, False),
      ('bool', True, False),
      ('empty', {}, False),
      ('none', None, False),
  )
  def test_mask_callable(self, mask, expected):
    self.assertEqual(_masking._mask_callable(mask), expected)

  @parameterized.parameters(False, True)
  def test_callable_pytree_mask_is_a_tree(self, use_jit):
    # Regression: a callable pytree of booleans (an Equinox model mapped to
    # x.ndim > 1) was called on the params as if it were a mask function,
    # raising TypeError from the model's __call__.
    net = _net()
    mask = jax.tree.map(lambda x: x.ndim > 1, net)
    self.assertFalse(_masking._mask_callable(mask))
    tx = _masking.masked(_scale(-2.0), mask)
    state = tx.init(net)
    update = jax.jit(tx.update) if use_jit else tx.update
    updates, _ = update(net, state)
    self.assertIsInstance(updates, _Net)
    np.testing.assert_array_equal(updates.w, -2.0 * np.asarray(net.w))
    np.testing.assert_array_equal(updates.b, np.asarray(net.b))

  def test_callable_pytree_mask_in_add_decayed_weights(self):
    # The mask= path of adamw and its relatives goes through masked.
    net = _net()
    mask = jax.tree.map(lambda x: x.ndim > 1, net)
    tx = _adding.add_decayed_weights(0.1, mask=mask)
    zeros = jax.tree.map(jnp.zeros_like, net)
    updates, _ = tx.update(zeros, tx.init(net), net)
    np.testing.assert_allclose(updates.w, 0.1 * np.asarray(net.w), rtol=1e-6)
    np.testing.assert_array_equal(updates.b, np.zeros(2))

  def test_callable_pytree_of_functions_is_called(self):
    # A callable whose leaves are all callable is a mask function, as a
    # plain function is.
    class _MaskFn(eqx.Module):
      select: Callable[[jax.Array], bool]

      def __call__(self, params):
        return jax.tree.map(self.select, params)

    net = _net()
    tx = _masking.masked(_scale(-2.0), _MaskFn(lambda x: x.ndim == 1))
    updates, _ = tx.update(net, tx.init(net))
    np.testing.assert_array_equal(updates.w, np.asarray(net.w))
    np.testing.assert_array_equal(updates.b, -2.0 * np.asarray(net.b))

  def test_masked_node_is_empty_pytree(self):
    self.assertEqual(jax.tree.leaves(_masking.MaskedNode()), [])
    tree = {'a': _masking.MaskedNode(), 'b': jnp.ones(1)}
    doubled = jax.tree.map(lambda x: 2 * x, tree)
    self.assertIsInstance(doubled['a'], _masking.MaskedNode)


class MaskedTreeMapParamsTest(parameterized.TestCase):

  @parameterized.parameters(True, False)
  def test_tree_map_params_finds_masked_params(self, mask_as_fn):
    params = {'w': jnp.ones((2, 3)), 'b': jnp.ones((3,))}
    mask = {'w': True, 'b': False}
    inner = _combining.chain(_scale(2.0), toy_transforms.running_sum())
    tx = _masking.masked(inner, (lambda p: mask) if mask_as_fn else mask)
    state = tx.init(params)
    shapes = otu.tree_map_params(tx, lambda x: x.shape, state)
    self.assertEqual(shapes.inner_state[1].total['w'], (2, 3))
    self.assertIsInstance(
        shapes.inner_state[1].total['b'], _masking.MaskedNode)


# name -> (factory, extra keyword arguments of update), for
# PreparedInputsTest.
_PREP_TRANSFORMS = {
    'masked': (
        lambda: _masking.masked(
            toy_transforms.doubling(), lambda p: jax.tree.map(
                lambda x: x.ndim != 1 or x.shape[0] != 3, p)), {}),
}


class PreparedInputsTest(
    cases.prepared_inputs_test_case(
        _PREP_TRANSFORMS, shapes_checked=False)):
  """Inputs the transformations of the module take as a chain gives them."""


if __name__ == '__main__':
  absltest.main()
