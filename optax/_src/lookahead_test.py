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
"""Tests for ``optax._src.lookahead`` against a NumPy Lookahead loop."""

from absl.testing import absltest
from absl.testing import parameterized
import jax
import jax.numpy as jnp
import numpy as np
import optax

from optax._src import base
from optax._src import lookahead


def _momentum_sgd(lr, decay):
  """A small stateful fast optimizer: heavy-ball momentum."""

  def init_fn(params):
    return jax.tree.map(jnp.zeros_like, params)

  def update_fn(updates, state, params=None):
    del params
    state = jax.tree.map(lambda m, g: decay * m + g, state, updates)
    return jax.tree.map(lambda m: -lr * m, state), state

  return base.GradientTransformation(init_fn, update_fn)


def _grad(x):
  """Gradient of 0.5 * sum(c * (x - 1) ** 2)."""
  return np.array([1.0, 3.0, 0.5]) * (x - 1.0)


def _ref_lookahead(x0, steps, sync_period, alpha, lr, decay, reset):
  """Lookahead as two nested loops, in float64."""
  slow = x0.copy()
  fast = x0.copy()
  mom = np.zeros_like(x0)
  history = []
  for t in range(steps):
    mom = decay * mom + _grad(fast)
    fast = fast - lr * mom
    if (t + 1) % sync_period == 0:
      slow = slow + alpha * (fast - slow)
      fast = slow.copy()
      if reset:
        mom = np.zeros_like(x0)
    history.append((fast.copy(), slow.copy()))
  return history


class LookaheadTest(parameterized.TestCase):
  """Tests of lookahead."""

  @parameterized.product(
      sync_period=(1, 3), reset_state=(False, True), use_jit=(True, False))
  def test_matches_nested_loops(self, sync_period, reset_state, use_jit):
    x0 = np.array([3.0, -1.0, 0.5])
    tx = lookahead.lookahead(
        _momentum_sgd(0.1, 0.5), sync_period=sync_period,
        slow_step_size=0.5, reset_state=reset_state)
    params = lookahead.LookaheadParams.init_synced(
        jnp.asarray(x0, jnp.float32))
    state = tx.init(params)
    update = jax.jit(tx.update) if use_jit else tx.update
    expected = _ref_lookahead(x0, 7, sync_period, 0.5, 0.1, 0.5,
                              reset_state)
    for t in range(7):
      grads = jnp.asarray(_grad(np.asarray(params.fast)), jnp.float32)
      updates, state = update(grads, state, params)
      self.assertIsInstance(updates, lookahead.LookaheadParams)
      params = jax.tree.map(lambda p, u: p + u, params, updates)
      np.testing.assert_allclose(params.fast, expected[t][0], rtol=1e-5,
                                 atol=1e-6, err_msg=f'fast, step {t}')
      np.testing.assert_allclose(params.slow, expected[t][1], rtol=1e-5,
                                 atol=1e-6, err_msg=f'slow, step {t}')
    self.assertEqual(int(state.steps_since_sync), 7 % sync_period)

  def test_reset_state_zeroes_fast_state_at_sync(self):
    tx = lookahead.lookahead(
        _momentum_sgd(0.1, 0.5), sync_period=2, slow_step_size=0.5,
        reset_state=True)
    params = lookahead.LookaheadParams.init_synced(jnp.ones(3))
    state = tx.init(params)
    _, state = tx.update(jnp.ones(3), state, params)
    self.assertTrue(np.all(np.asarray(state.fast_state) != 0))
    _, state = tx.update(jnp.ones(3), state, params)
    np.testing.assert_array_equal(state.fast_state, np.zeros(3))

  def test_state_is_type_stable(self):
    tx = lookahead.lookahead(_momentum_sgd(0.1, 0.5), 2, 0.5)
    params = lookahead.LookaheadParams.init_synced(
        {'w': jnp.ones((2, 2), jnp.bfloat16)})
    state = tx.init(params)
    step = jax.jit(tx.update)
    for _ in range(3):
      updates, new_state = step({'w': jnp.ones((2, 2), jnp.bfloat16)},
                                state, params)
      self.assertEqual(
          jax.tree.map(lambda x: x.dtype, new_state),
          jax.tree.map(lambda x: x.dtype, state))
      self.assertEqual(updates.fast['w'].dtype, jnp.bfloat16)
      self.assertEqual(updates.slow['w'].dtype, jnp.bfloat16)
      state = new_state
    self.assertEqual(step._cache_size(), 1)  # pylint: disable=protected-access

  def test_tree_map_params_with_the_init_function(self):
    # tree_map_params takes the transformation or its bare init function.
    tx = lookahead.lookahead(_momentum_sgd(0.1, 0.5), 2, 0.5)
    params = lookahead.LookaheadParams.init_synced({'w': jnp.ones(3)})
    state = tx.init(params)
    _, state = tx.update({'w': jnp.ones(3)}, state, params)
    for initable in (tx, tx.init):
      doubled = optax.tree.map_params(initable, lambda x: 2 * x, state)
      np.testing.assert_allclose(doubled.fast_state['w'], [2.0, 2.0, 2.0])
      self.assertEqual(int(doubled.steps_since_sync), 1)

  def test_init_with_plain_params_uses_them_as_fast(self):
    tx = lookahead.lookahead(_momentum_sgd(0.1, 0.5), 2, 0.5)
    with self.assertLogs(level='WARNING'):
      state = tx.init({'w': jnp.ones(2)})
    np.testing.assert_array_equal(state.fast_state['w'], np.zeros(2))

  def test_update_without_params_raises(self):
    tx = lookahead.lookahead(_momentum_sgd(0.1, 0.5), 2, 0.5)
    params = lookahead.LookaheadParams.init_synced(jnp.ones(2))
    state = tx.init(params)
    with self.assertRaisesRegex(ValueError, 'params'):
      tx.update(jnp.ones(2), state)

  @parameterized.parameters('2', None, True)
  def test_sync_period_of_another_type_raises_type_error(self, sync_period):
    # Upstream 0.2.8's comparison with 1 raises TypeError for '2' and None.
    with self.assertRaisesRegex(
        TypeError, '^lookahead: sync_period must be a positive integer, got'):
      lookahead.lookahead(_momentum_sgd(0.1, 0.5), sync_period, 0.5)

  @parameterized.parameters(0, -1, 2.5, 2.0, np.float32(3))
  def test_invalid_sync_period_raises(self, sync_period):
    # Upstream 0.2.8 raises ValueError for 0 and -1, and builds 2.5: its
    # counter then turns float and synchronizes every fifth step.
    with self.assertRaisesRegex(
        ValueError, '^lookahead: sync_period must be a positive integer, got'):
      lookahead.lookahead(_momentum_sgd(0.1, 0.5), sync_period, 0.5)

  @parameterized.parameters(1, 3, np.int32(2), 'array')
  def test_integer_sync_periods_build(self, sync_period):
    if sync_period == 'array':
      sync_period = jnp.asarray(2)  # Left to the update, as upstream does.
    tx = lookahead.lookahead(_momentum_sgd(0.1, 0.5), sync_period, 0.5)
    state = tx.init(lookahead.LookaheadParams.init_synced(jnp.ones(2)))
    self.assertEqual(state.steps_since_sync.dtype, jnp.int32)

  def test_init_synced(self):
    params = lookahead.LookaheadParams.init_synced({'a': 1.0})
    self.assertEqual(params.fast, {'a': 1.0})
    self.assertEqual(params.slow, {'a': 1.0})


class LookaheadExtraArgsTest(absltest.TestCase):

  def test_forwards_extra_args_to_the_fast_optimizer(self):
    def update_fn(updates, state, params=None, *, value, **extra_args):
      del params, extra_args
      return jax.tree.map(lambda g: -value * g, updates), state

    fast = base.GradientTransformationExtraArgs(
        base.init_empty_state, update_fn)
    tx = lookahead.lookahead(fast, sync_period=3, slow_step_size=0.5)
    params = lookahead.LookaheadParams.init_synced({'w': jnp.ones(2)})
    state = tx.init(params)
    updates, _ = jax.jit(tx.update)(
        {'w': jnp.array([1.0, 2.0])}, state, params, value=3.0)
    # Not a synchronization step: the fast update is the fast optimizer's.
    np.testing.assert_allclose(updates.fast['w'], [-3.0, -6.0])
    np.testing.assert_allclose(updates.slow['w'], [0.0, 0.0])


if __name__ == '__main__':
  absltest.main()
