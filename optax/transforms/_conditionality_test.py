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
"""Tests for `apply_if_finite`, `conditionally_mask` and `..._transform`."""

from typing import NamedTuple

from absl.testing import absltest
from absl.testing import parameterized
import jax
import jax.numpy as jnp
import numpy as np

from optax._src import alias
from optax._src import base
from optax._src import numerics
from optax._src.testing import cases
from optax._src.testing import probes
from optax._src.testing import toy_transforms
from optax.transforms import _conditionality


class _MomentumState(NamedTuple):
  count: jax.Array
  trace: base.Updates


def _momentum(decay=0.5) -> base.GradientTransformation:
  """Test transformation: heavy-ball trace with a step counter."""

  def init_fn(params):
    return _MomentumState(jnp.zeros([], jnp.int32),
                          jax.tree.map(jnp.zeros_like, params))

  def update_fn(updates, state, params=None):
    del params
    trace = jax.tree.map(lambda t, g: decay * t + g, state.trace, updates)
    return trace, _MomentumState(numerics.safe_increment(state.count), trace)

  return base.GradientTransformation(init_fn, update_fn)


def _assert_same_types(test, tree_a, tree_b):
  test.assertEqual(jax.tree.structure(tree_a), jax.tree.structure(tree_b))
  for a, b in zip(jax.tree.leaves(tree_a), jax.tree.leaves(tree_b)):
    test.assertEqual((a.shape, a.dtype), (b.shape, b.dtype))


_GOOD = np.array([1.0, 2.0, 3.0], np.float32)
_NAN = np.array([np.nan, 1.0, 1.0], np.float32)
_INF = np.array([1.0, np.inf, 1.0], np.float32)


class ApplyIfFiniteTest(parameterized.TestCase):
  """Tests for apply_if_finite."""

  @parameterized.parameters(False, True)
  def test_against_reference(self, use_jit):
    max_errors = 2
    tx = _conditionality.apply_if_finite(_momentum(), max_errors)
    params = {'a': jnp.zeros(3)}
    state = tx.init(params)
    update = jax.jit(tx.update) if use_jit else tx.update
    # Reference bookkeeping, in plain Python / NumPy.
    trace = np.zeros(3)
    count, total, inner_count = 0, 0, 0
    for g in [_GOOD, _NAN, _INF, _NAN, _NAN, _GOOD, _NAN, _GOOD]:
      finite = bool(np.all(np.isfinite(g)))
      if finite:
        count = 0
      else:
        total += 1
        count += 1
      if finite or count > max_errors:
        trace = 0.5 * trace + g
        inner_count += 1
        expected = trace
      else:
        expected = np.zeros(3)
      new_state_before = state
      updates, state = update({'a': jnp.asarray(g)}, state)
      np.testing.assert_allclose(updates['a'], expected)
      self.assertEqual(int(state.notfinite_count), count)
      self.assertEqual(int(state.total_notfinite), total)
      self.assertEqual(bool(state.last_finite), finite)
      self.assertEqual(int(state.inner_state.count), inner_count)
      np.testing.assert_allclose(state.inner_state.trace['a'], trace)
      _assert_same_types(self, new_state_before, state)

  def test_skipped_step_leaves_inner_state_untouched(self):
    tx = _conditionality.apply_if_finite(_momentum(), 3)
    state = tx.init({'a': jnp.zeros(3)})
    _, state = tx.update({'a': jnp.asarray(_GOOD)}, state)
    updates, new_state = jax.jit(tx.update)({'a': jnp.asarray(_NAN)}, state)
    np.testing.assert_array_equal(updates['a'], np.zeros(3))
    np.testing.assert_array_equal(new_state.inner_state.trace['a'],
                                  state.inner_state.trace['a'])
    self.assertEqual(int(new_state.inner_state.count), 1)

  def test_counts_consecutive_bad_steps_after_giving_up(self):
    # notfinite_count is documented as the number of consecutive non-finite
    # updates, reset by a finite one; upstream's count, kept (the open pull
    # request #1746 would reset it to 0 when the wrapper gives up).
    max_errors = 1
    tx = _conditionality.apply_if_finite(_momentum(), max_errors)
    state = tx.init({'a': jnp.zeros(3)})
    update = jax.jit(tx.update)
    counts, totals = [], []
    for _ in range(5):
      updates, state = update({'a': jnp.asarray(_NAN)}, state)
      counts.append(int(state.notfinite_count))
      totals.append(int(state.total_notfinite))
    # Skipped once, then given up: the (non-finite) updates are applied.
    self.assertEqual(counts, [1, 2, 3, 4, 5])
    self.assertEqual(totals, [1, 2, 3, 4, 5])
    self.assertTrue(np.isnan(updates['a'][0]))
    self.assertEqual(int(state.inner_state.count), 4)
    _, state = update({'a': jnp.asarray(_GOOD)}, state)
    self.assertEqual(int(state.notfinite_count), 0)

  def test_zero_max_errors_applies_everything(self):
    tx = _conditionality.apply_if_finite(_momentum(), 0)
    state = tx.init({'a': jnp.zeros(3)})
    updates, state = tx.update({'a': jnp.asarray(_INF)}, state)
    self.assertTrue(np.isinf(updates['a'][1]))
    self.assertEqual(int(state.notfinite_count), 1)

  def test_state_dtypes(self):
    tx = _conditionality.apply_if_finite(_momentum(), 2)
    state = tx.init({'a': jnp.zeros(3, jnp.bfloat16)})
    self.assertEqual(state.notfinite_count.dtype, jnp.int32)
    self.assertEqual(state.total_notfinite.dtype, jnp.int32)
    self.assertEqual(state.last_finite.dtype, jnp.bool_)
    updates, new_state = jax.jit(tx.update)(
        {'a': jnp.asarray(_NAN, jnp.bfloat16)}, state)
    self.assertEqual(updates['a'].dtype, jnp.bfloat16)
    _assert_same_types(self, state, new_state)

  def test_forwards_extra_args(self):
    tx = _conditionality.apply_if_finite(toy_transforms.scale_by_value(), 1)
    self.assertIsInstance(tx, base.GradientTransformationExtraArgs)
    updates, _ = tx.update({'a': jnp.asarray(_GOOD)}, tx.init(None),
                           value=2.0)
    np.testing.assert_allclose(updates['a'], 2.0 * _GOOD)

  def test_negative_max_errors(self):
    with self.assertRaisesRegex(ValueError,
                                'apply_if_finite: max_consecutive_errors'):
      _conditionality.apply_if_finite(_momentum(), -1)

  def test_nan_max_errors_is_rejected(self):
    # The old check (`max_consecutive_errors < 0`) let NaN through.
    with self.assertRaisesRegex(
        ValueError, 'apply_if_finite: max_consecutive_errors must be'
        ' non-negative, got nan'):
      _conditionality.apply_if_finite(_momentum(), float('nan'))

  def test_init_on_shape_dtype_structs(self):
    tx = _conditionality.apply_if_finite(_momentum(), 2)
    shapes = jax.eval_shape(
        tx.init, {'a': jax.ShapeDtypeStruct((3,), jnp.float32)})
    self.assertEqual(shapes.inner_state.trace['a'].shape, (3,))


class ConditionallyTest(parameterized.TestCase):
  """Tests for conditionally_mask and conditionally_transform."""

  @parameterized.product(mask=[False, True], use_jit=[False, True])
  def test_against_reference(self, mask, use_jit):
    factory = (_conditionality.conditionally_mask if mask
               else _conditionality.conditionally_transform)
    tx = factory(_momentum(), lambda step: step % 3 == 1)
    state = tx.init({'a': jnp.zeros(3)})
    update = jax.jit(tx.update) if use_jit else tx.update
    trace = np.zeros(3)
    for step in range(6):
      g = _GOOD * (step + 1)
      before = state
      updates, state = update({'a': jnp.asarray(g)}, state)
      if step % 3 == 1:
        trace = 0.5 * trace + g
        expected = trace
      else:
        expected = np.zeros(3) if mask else g
      np.testing.assert_allclose(updates['a'], expected)
      np.testing.assert_allclose(state.inner_state.trace['a'], trace)
      self.assertEqual(int(state.step), step + 1)
      _assert_same_types(self, before, state)

  def test_state_field_order(self):
    self.assertEqual(_conditionality.ConditionallyMaskState._fields,
                     ('step', 'inner_state'))
    self.assertEqual(_conditionality.ConditionallyTransformState._fields,
                     ('inner_state', 'step'))

  @parameterized.parameters(
      _conditionality.conditionally_mask,
      _conditionality.conditionally_transform)
  def test_extra_args(self, factory):
    seen = {}

    def should(step, **extra_args):
      seen.update(extra_args)
      return step >= 0

    tx = factory(toy_transforms.scale_by_value(), should,
                 forward_extra_args=True)
    updates, _ = tx.update({'a': jnp.ones(2)}, tx.init({'a': jnp.ones(2)}),
                           value=3.0)
    self.assertEqual(seen, {'value': 3.0})
    np.testing.assert_allclose(updates['a'], 3.0 * np.ones(2))
    # Without forwarding, the condition gets the step only; the inner
    # transformation still gets the extra arguments.
    tx = factory(toy_transforms.scale_by_value(), lambda step: step >= 0)
    updates, _ = tx.update({'a': jnp.ones(2)}, tx.init({'a': jnp.ones(2)}),
                           value=4.0)
    np.testing.assert_allclose(updates['a'], 4.0 * np.ones(2))

  def test_updates_keep_dtype_when_skipped(self):
    tx = _conditionality.conditionally_mask(_momentum(), lambda s: s > 0)
    params = {'a': jnp.zeros(2, jnp.bfloat16)}
    updates, _ = jax.jit(tx.update)({'a': jnp.ones(2, jnp.bfloat16)},
                                    tx.init(params))
    self.assertEqual(updates['a'].dtype, jnp.bfloat16)
    np.testing.assert_array_equal(np.asarray(updates['a'], np.float32),
                                  np.zeros(2))


class BarrierTest(parameterized.TestCase):

  @parameterized.named_parameters(
      ('apply_if_finite',
       lambda tx: _conditionality.apply_if_finite(tx, 2)),
      ('conditionally_mask',
       lambda tx: _conditionality.conditionally_mask(tx, lambda s: s > 0)),
      ('conditionally_transform',
       lambda tx: _conditionality.conditionally_transform(
           tx, lambda s: s > 0)),
  )
  def test_conditional_holds_no_barrier(self, wrap):
    # adam's constant hyperparameters sit behind optimization barriers; made
    # before the conditional, they leave its branches elementwise, which
    # XLA:GPU turns into a select fused with the rest of the step.
    tx = wrap(alias.adam(1e-3))
    params = {'w': jnp.zeros(3)}
    jaxpr = jax.make_jaxpr(tx.update)(params, tx.init(params), params).jaxpr
    self.assertEqual(probes.barriers_in_conditionals(jaxpr), [0])


# name -> (factory, extra keyword arguments of update), for
# PreparedInputsTest.
_PREP_TRANSFORMS = {
    'apply_if_finite': (
        lambda: _conditionality.apply_if_finite(
            toy_transforms.doubling(), 2), {}),
    'conditionally_mask': (
        lambda: _conditionality.conditionally_mask(
            toy_transforms.doubling(), lambda step: step % 2 == 0), {}),
    'conditionally_transform': (
        lambda: _conditionality.conditionally_transform(
            toy_transforms.doubling(), lambda step: step % 2 == 0), {}),
}


class PreparedInputsTest(
    cases.prepared_inputs_test_case(
        _PREP_TRANSFORMS, shapes_checked=False)):
  """Inputs the transformations of the module take as a chain gives them."""


if __name__ == '__main__':
  absltest.main()
