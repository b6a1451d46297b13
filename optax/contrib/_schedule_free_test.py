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
"""Tests for schedule-free optimizers (``optax.contrib._schedule_free``).

Values are checked against a NumPy (float64) implementation of Algorithm 1
of Defazio et al. (2024), written here.
"""


from absl.testing import absltest
from absl.testing import parameterized
import jax
import jax.numpy as jnp
import numpy as np

from optax._src import alias
from optax._src import test_utils
from optax._src import utils
from optax._src.testing import optimizer_checks
from optax._src.testing import probes
from optax.contrib import _schedule_free
from optax.schedules import _inject
from optax.transforms import _accumulation
from optax.transforms import _clipping
from optax.transforms import _combining


def _warmup(peak, steps):
  if steps is None:
    return lambda t: peak
  return lambda t: peak * min(t / steps, 1.0)


def _np_schedule_free(y0, grads, *, lr, b1, power, direction):
  """Reference schedule-free iterates (y, x) after each step, float64.

  ``lr(t)`` is the learning rate at step count ``t`` (from 1) and
  ``direction(g, y, t)`` the base optimizer's update at step ``t``.
  """
  y = z = x = np.asarray(y0, np.float64)
  weight_sum, max_lr = 0.0, 0.0
  history = []
  for t, g in enumerate(grads, start=1):
    d = direction(g, y, t)
    max_lr = max(max_lr, lr(t))
    weight = max_lr**power
    weight_sum += weight
    c = weight / weight_sum if weight_sum > 0 else 0.0
    z = z + d
    x = (1 - c) * x + c * z
    y = (1 - b1) * z + b1 * x
    history.append((y, x))
  return history


def _sgd_direction(lr, wd):
  # Step t (from 1) moves z with the rate of step t, which also weighs it.
  return lambda g, y, t: -lr(t) * (g + wd * y)


def _adamw_direction(lr, b2, eps, wd):
  v = [0.0]

  def direction(g, y, t):
    v[0] = b2 * v[0] + (1 - b2) * g * g
    return -lr(t) * (g / (np.sqrt(v[0] / (1 - b2**t)) + eps) + wd * y)

  return direction


def _run(tx, y0, grads, use_jit=False):
  y = jnp.asarray(y0, jnp.float32)
  state = tx.init(y)
  update = jax.jit(tx.update) if use_jit else tx.update
  history = []
  for g in grads:
    updates, state = update(jnp.asarray(g, jnp.float32), state, y)
    y = y + updates
    history.append((y, _schedule_free.schedule_free_eval_params(state, y)))
  return history, state


class ScheduleFreeTest(parameterized.TestCase):

  def setUp(self):
    super().setUp()
    rng = np.random.default_rng(0)
    self.y0 = rng.standard_normal(4)
    self.grads = [rng.standard_normal(4) for _ in range(6)]

  def _check(self, got, want):
    for (y, x), (want_y, want_x) in zip(got, want):
      np.testing.assert_allclose(y, want_y, rtol=2e-5, atol=1e-6)
      np.testing.assert_allclose(x, want_x, rtol=2e-5, atol=1e-6)

  @parameterized.parameters(
      (dict(learning_rate=0.1), False),
      (dict(learning_rate=0.2, b1=0.5, weight_decay=0.1), True),
      (dict(learning_rate=0.3, warmup_steps=3, weight_lr_power=1.0), True),
      (dict(learning_rate=0.1, b1=1.0), False),
  )
  def test_sgd_matches_reference(self, kwargs, use_jit):
    got, _ = _run(_schedule_free.schedule_free_sgd(**kwargs), self.y0,
                  self.grads, use_jit)
    lr = _warmup(kwargs['learning_rate'], kwargs.get('warmup_steps'))
    want = _np_schedule_free(
        self.y0, self.grads, lr=lr, b1=kwargs.get('b1', 0.9),
        power=kwargs.get('weight_lr_power', 2.0),
        direction=_sgd_direction(lr, kwargs.get('weight_decay') or 0.0))
    self._check(got, want)

  @parameterized.parameters(
      (dict(), False),
      (dict(learning_rate=0.1, weight_decay=0.1, b2=0.99, eps=1e-4), True),
      (dict(learning_rate=0.1, warmup_steps=3, b1=0.5), True),
  )
  def test_adamw_matches_reference(self, kwargs, use_jit):
    got, _ = _run(_schedule_free.schedule_free_adamw(**kwargs), self.y0,
                  self.grads, use_jit)
    lr = _warmup(kwargs.get('learning_rate', 0.0025),
                 kwargs.get('warmup_steps'))
    want = _np_schedule_free(
        self.y0, self.grads, lr=lr, b1=kwargs.get('b1', 0.9), power=2.0,
        direction=_adamw_direction(lr, kwargs.get('b2', 0.999),
                                   kwargs.get('eps', 1e-8),
                                   kwargs.get('weight_decay', 0.0)))
    self._check(got, want)

  def test_wrapper_with_momentum_and_schedule(self):
    schedule = lambda count: 0.1 / (1.0 + count)
    tx = _schedule_free.schedule_free(
        alias.sgd(0.1, momentum=0.5), learning_rate=schedule)
    got, state = _run(tx, self.y0, self.grads, use_jit=True)
    trace = [np.zeros(4)]

    def direction(g, y, t):
      del y, t
      trace[0] = 0.5 * trace[0] + g
      return -0.1 * trace[0]

    want = _np_schedule_free(self.y0, self.grads, lr=schedule, b1=0.9,
                             power=2.0, direction=direction)
    self._check(got, want)
    np.testing.assert_allclose(
        state.weight_sum, sum(schedule(1)**2 for _ in range(6)), rtol=1e-6)
    np.testing.assert_allclose(state.max_lr, schedule(1), rtol=1e-6)
    self.assertEqual(int(state.step_count), 7)

  def test_zero_learning_rate_gives_no_nan(self):
    tx = _schedule_free.schedule_free(alias.sgd(0.1),
                                      learning_rate=lambda count: 0.0 * count)
    params = jnp.ones(2)
    updates, state = tx.update(jnp.ones(2), tx.init(params), params)
    # z moves by the base step, x stays: y moves by (1 - b1) of the step.
    np.testing.assert_allclose(updates, [-0.01, -0.01], rtol=1e-6)
    self.assertEqual(float(state.weight_sum), 0.0)

  @parameterized.named_parameters(
      ('sgd', _schedule_free.schedule_free_sgd, 1e-6),
      ('adamw', _schedule_free.schedule_free_adamw, 1e-4),
  )
  def test_learning_rate_whose_square_overflows_regression(self, make, rtol):
    # Regression (issue 31): lr ** 2 = inf in float32 made the weight sum
    # infinite and the average's share inf / inf = NaN. The share is taken
    # as 0, as upstream 0.2.8 does: x stays at the first params, z moves by
    # the base step -lr * g (adam's direction is ~1 for a constant
    # gradient), and y = b1 x + (1 - b1) z moves by -(1 - b1) * lr per step.
    lr, b1 = 1e20, 0.9
    tx = make(learning_rate=lr, b1=b1)
    params = jnp.ones(4)
    state = tx.init(params)
    for _ in range(2):
      updates, state = tx.update(jnp.ones(4), state, params)
      np.testing.assert_allclose(updates, np.full(4, -(1 - b1) * lr),
                                 rtol=rtol)
      params = params + updates
    self.assertEqual(float(state.weight_sum), np.inf)

  def test_converges(self):
    tx = _schedule_free.schedule_free_adamw(learning_rate=0.1)
    params = {'w': jnp.array([2.0, -3.0])}
    loss = lambda p: jnp.sum(jnp.square(p['w'] - 1.0))
    params, state = optimizer_checks.minimize(tx, loss, params, 300)
    evaluated = _schedule_free.schedule_free_eval_params(state, params)
    self.assertLess(float(loss(evaluated)), 1e-3)

  def test_eval_params_of_nested_state(self):
    inner = _schedule_free.schedule_free_sgd(0.1)
    params = jnp.array([1.0, 2.0])
    for tx in (_combining.chain(_clipping.clip(1.0), inner),
               _accumulation.MultiSteps(inner, 2).gradient_transformation()):
      state = tx.init(params)
      np.testing.assert_array_equal(
          _schedule_free.schedule_free_eval_params(state, params), params)
    with self.assertRaisesRegex(ValueError, 'contain exactly one'):
      _schedule_free.schedule_free_eval_params(
          alias.sgd(0.1).init(params), params)

  def test_errors(self):
    with self.assertRaisesRegex(ValueError, r'b1 must be in \(0, 1\]'):
      _schedule_free.schedule_free_sgd(b1=0.0)
    with self.assertRaisesRegex(ValueError, r'b1 must be in \(0, 1\]'):
      _schedule_free.schedule_free(alias.sgd(0.1), 0.1, b1=1.5)
    with self.assertRaisesRegex(ValueError, 'base optimizer alone'):
      _schedule_free.schedule_free(alias.sgd(0.1), 0.1, b1=0)
    tx = _schedule_free.schedule_free_adamw()
    with self.assertRaisesRegex(
        ValueError, r'^schedule_free: params must be given to update'
        r' \(got None\); the update is computed from the current params\.'
        r' Remedy: call tx\.update\(grads, state, params\)\.$'):
      tx.update(jnp.ones(2), tx.init(jnp.ones(2)))

  def test_nan_hyperparameters_are_rejected(self):
    # The old non-negativity check (`value < 0`) let NaN through.
    nan = float('nan')
    with self.assertRaisesRegex(
        ValueError, 'schedule_free: weight_lr_power must be non-negative,'
        ' got nan'):
      _schedule_free.schedule_free(alias.sgd(0.1), 0.1, weight_lr_power=nan)
    with self.assertRaisesRegex(
        ValueError, 'schedule_free_sgd: learning_rate must be non-negative'):
      _schedule_free.schedule_free_sgd(learning_rate=nan)
    with self.assertRaisesRegex(
        ValueError, 'schedule_free_adamw: weight_decay must be non-negative'):
      _schedule_free.schedule_free_adamw(weight_decay=nan)
    with self.assertRaisesRegex(ValueError, r'b1 must be in \(0, 1\]'):
      _schedule_free.schedule_free_sgd(b1=nan)

  def test_inject_hyperparams_identical(self):
    plain = _schedule_free.schedule_free_adamw(learning_rate=0.1, b1=0.8)
    injected = _inject.inject_hyperparams(
        _schedule_free.schedule_free_adamw)(learning_rate=0.1, b1=0.8)
    params = jnp.asarray(self.y0, jnp.float32)
    s1, s2 = plain.init(params), injected.init(params)
    for g in self.grads[:3]:
      g = jnp.asarray(g, jnp.float32)
      u1, s1 = plain.update(g, s1, params)
      u2, s2 = injected.update(g, s2, params)
      test_utils.assert_trees_all_equal(u1, u2)

  @parameterized.named_parameters(
      ('sgd', _schedule_free.schedule_free_sgd),
      ('adamw', _schedule_free.schedule_free_adamw),
      ('wrapper',
       lambda: _schedule_free.schedule_free(alias.sgd(0.1), 0.1)),
  )
  def test_builds_without_arrays(self, make):
    _, new = probes.arrays_created_by(make)
    self.assertEqual(new, [])

  def test_init_on_shape_dtype_struct(self):
    tx = _schedule_free.schedule_free_adamw()
    state = jax.eval_shape(
        tx.init, {'w': jax.ShapeDtypeStruct((2, 3), jnp.bfloat16)})
    self.assertEqual(state.z['w'].dtype, jnp.bfloat16)
    self.assertEqual(state.weight_sum.dtype, jnp.float32)


class DtypeTest(parameterized.TestCase):
  """Upstream #1038: bfloat16 params with MultiSteps."""

  def _params(self):
    return {'w': jnp.linspace(-1.0, 1.0, 6, dtype=jnp.bfloat16).reshape(2, 3),
            'b': jnp.array([0.5, -0.5], jnp.float32)}

  @parameterized.parameters(None, jnp.float32, jnp.bfloat16)
  def test_state_dtypes_fixed_issue_1038(self, state_dtype):
    params = self._params()
    tx = _schedule_free.schedule_free_adamw(learning_rate=0.1,
                                            warmup_steps=2,
                                            state_dtype=state_dtype)
    state = tx.init(params)
    # The scalars are float32 whatever state_dtype and the params' dtypes.
    for name in ('b1', 'weight_sum', 'max_lr'):
      self.assertEqual(getattr(state, name).dtype, jnp.float32, name)
    for k, p in params.items():
      self.assertEqual(state.z[k].dtype, state_dtype or p.dtype)
    traces = []

    @jax.jit
    def step(params, state, grads):
      traces.append(None)
      updates, state = tx.update(grads, state, params)
      return updates, state

    for i in range(4):
      grads = jax.tree.map(lambda p, i=i: jnp.full_like(p, i - 1.5), params)
      updates, new_state = step(params, state, grads)
      test_utils.assert_trees_all_equal_dtypes(new_state, state)
      test_utils.assert_trees_all_equal_structs(new_state, state)
      # Updates come back in the params' dtypes (checked before applying).
      test_utils.assert_trees_all_equal_dtypes(updates, params)
      params = jax.tree.map(lambda p, u: p + u, params, updates)
      state = new_state
    self.assertLen(traces, 1)

  @parameterized.parameters(None, jnp.float32, jnp.bfloat16)
  def test_float32_grads_give_params_dtype_updates(self, state_dtype):
    # Reported as a regression from upstream 0.2.8: bfloat16 params with
    # float32 gradients must give bfloat16 updates, whatever state_dtype
    # (upstream itself returns float32 ones with state_dtype=float32).
    params = {'w': jnp.ones((2, 3), jnp.bfloat16)}
    grads = {'w': jnp.full((2, 3), 0.5, jnp.float32)}
    tx = _schedule_free.schedule_free_adamw(learning_rate=0.1,
                                            state_dtype=state_dtype)
    state = tx.init(params)
    for update in (tx.update, jax.jit(tx.update)):
      updates, new_state = update(grads, state, params)
      test_utils.assert_trees_all_equal_dtypes(updates, params)
      test_utils.assert_trees_all_equal_dtypes(new_state, state)
      state = new_state

  def test_multisteps_compiles_once_issue_1038(self):
    params = self._params()
    tx = _accumulation.MultiSteps(
        _schedule_free.schedule_free_adamw(learning_rate=0.1), 3)
    state = tx.init(params)
    traces = []

    @jax.jit
    def step(params, state, grads):
      traces.append(None)
      updates, state = tx.update(grads, state, params)
      return jax.tree.map(lambda p, u: p + u, params, updates), state

    for i in range(9):  # Three accumulation cycles.
      grads = jax.tree.map(lambda p, i=i: jnp.full_like(p, 1.0 - 0.25 * i),
                           params)
      new_params, new_state = step(params, state, grads)
      test_utils.assert_trees_all_equal_dtypes(new_state, state)
      test_utils.assert_trees_all_equal_dtypes(new_params, params)
      params, state = new_params, new_state
    self.assertLen(traces, 1)
    inner = state.inner_opt_state
    self.assertEqual(int(inner.step_count), 4)
    self.assertTrue(all(bool(jnp.all(jnp.isfinite(x.astype(jnp.float32))))
                        for x in jax.tree.leaves(params)))


def _bf16_and_mixed_params(kind):
  """A pure bfloat16 tree, or one mixing float32 and bfloat16 leaves."""
  w = jnp.linspace(-1.0, 1.0, 6, dtype=jnp.bfloat16).reshape(2, 3)
  b_dtype = jnp.bfloat16 if kind == 'bf16' else jnp.float32
  return {'w': w, 'b': jnp.array([0.5, -0.5], b_dtype)}


class ScalarStatisticsTest(parameterized.TestCase):
  """b1, weight_sum and max_lr are float32 (float64 under x64)."""

  @parameterized.product(
      kind=('bf16', 'mixed'),
      make=(_schedule_free.schedule_free_adamw,
            _schedule_free.schedule_free_sgd))
  def test_scalars_float32_on_bfloat16_params(self, kind, make):
    params = _bf16_and_mixed_params(kind)
    tx = make(learning_rate=0.1, warmup_steps=2)
    state = tx.init(params)
    grads = jax.tree.map(lambda p: jnp.full_like(p, 0.5), params)
    for step in (tx.update, jax.jit(tx.update)):
      updates, state = step(grads, state, params)
      for name in ('b1', 'weight_sum', 'max_lr'):
        self.assertEqual(getattr(state, name).dtype, jnp.float32, name)
      test_utils.assert_trees_all_equal_dtypes(updates, params)
      test_utils.assert_trees_all_equal_dtypes(state.z, params)
    # Two steps of the warmup: weights (0.05 ** 2, 0.1 ** 2), unrounded.
    np.testing.assert_allclose(state.weight_sum, 0.05**2 + 0.1**2,
                               rtol=1e-6)
    np.testing.assert_allclose(state.b1, 0.9, rtol=1e-7)

  @parameterized.parameters('bf16', 'mixed', 'f32')
  def test_scalars_float64_under_x64(self, kind):
    with utils.x64_precision(True):
      if kind == 'f32':
        params = {'w': jnp.ones((2, 3), jnp.float32)}
      else:
        params = _bf16_and_mixed_params(kind)
      tx = _schedule_free.schedule_free_adamw(learning_rate=0.1)
      state = tx.init(params)
      grads = jax.tree.map(jnp.ones_like, params)
      updates, new_state = jax.jit(tx.update)(grads, state, params)
      for name in ('b1', 'weight_sum', 'max_lr'):
        self.assertEqual(getattr(state, name).dtype, jnp.float64, name)
      test_utils.assert_trees_all_equal_dtypes(new_state, state)
      test_utils.assert_trees_all_equal_dtypes(updates, params)

  def test_weight_sum_does_not_stall_with_bfloat16_params(self):
    # In bfloat16, a weight_sum of 2 ** -5 has an ulp of 2 ** -12 ~ 2.4e-4,
    # so the weights lr ** 2 = 1e-4 stopped adding up (upstream 0.2.8 ends
    # at 0.03125). 3,000 jitted steps on a noisy quadratic, in one scan.
    n, steps, peak, warmup = 64, 3000, 1e-2, 10
    optimum = jnp.linspace(-1.0, 1.0, n, dtype=jnp.float32)

    def run(dtype):
      tx = _schedule_free.schedule_free_adamw(peak, warmup_steps=warmup)
      params = jnp.zeros((n,), dtype)
      key = jax.random.key(0)

      def body(carry, t):
        p, state = carry
        noise = 0.1 * jax.random.normal(jax.random.fold_in(key, t), (n,))
        grads = (p.astype(jnp.float32) - optimum + noise).astype(dtype)
        updates, state = tx.update(grads, state, p)
        return (p + updates, state), None

      scan = jax.jit(lambda c: jax.lax.scan(body, c, jnp.arange(steps))[0])
      return scan((params, tx.init(params)))[1]

    state32, state16 = run(jnp.float32), run(jnp.bfloat16)
    # The weights are (max lr so far) ** 2, the warmup linear from zero.
    lrs = peak * np.minimum(np.arange(1, steps + 1) / warmup, 1.0)
    expected = np.sum(lrs**2)  # 0.299385
    self.assertEqual(state16.weight_sum.dtype, jnp.float32)
    np.testing.assert_allclose(state32.weight_sum, expected, rtol=1e-4)
    np.testing.assert_allclose(state16.weight_sum, state32.weight_sum,
                               rtol=1e-2)
    np.testing.assert_allclose(state16.max_lr, peak, rtol=1e-7)


if __name__ == '__main__':
  absltest.main()
