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
"""Tests for MoMo and MoMo-Adam, against NumPy implementations."""

from absl.testing import absltest
from absl.testing import parameterized
import jax
import jax.numpy as jnp
import numpy as np

from optax._src import test_utils
from optax._src import utils
from optax._src.testing import optimizer_checks
from optax.contrib import _momo

_PARAMS = np.array([0.5, -0.5, 1.0])
_VALUES = (3.0, 0.5, 2.0, -1.0, 1.0, 0.25)


def _grad(x, t):
  return (x - 0.3) * (1.0 + 0.2 * t) + np.array([0.1, -0.2, 0.3])


def _lower_bound(lb, h, floor, adapt):
  if not adapt:
    return floor
  return max(floor, h / 2) if lb > h else lb


def _numpy_momo(steps, lr, beta, floor, wd, adapt):
  x = _PARAMS.copy()
  d = np.zeros_like(x)
  barf = gamma = 0.0
  lb = floor
  out = []
  for k in range(steps):
    g, f = _grad(x, k), _VALUES[k]
    rho = 0.0 if k == 0 else beta
    d = rho * d + (1 - rho) * g
    barf = rho * barf + (1 - rho) * f
    gamma = rho * gamma + (1 - rho) * np.dot(g, x)
    h = barf + np.dot(d, x) - gamma
    lb_k = _lower_bound(lb, barf - gamma + np.dot(d, x) / (1 + lr * wd),
                        floor, adapt)
    nom = np.dot(d, x) + (1 + lr * wd) * (barf - gamma - lb_k)
    tau = min(lr, max(nom, 0.0) / np.dot(d, d))
    new_x = (x - tau * d) / (1 + lr * wd)  # The proximal step.
    if adapt:
      lb = max(floor, h - 0.5 * tau * np.dot(d, d))
    out.append(new_x - x)
    x = new_x
  return out, lb


def _numpy_momo_adam(steps, lr, b1, b2, eps, floor, wd, adapt):
  x = _PARAMS.copy()
  m = np.zeros_like(x)
  v = np.zeros_like(x)
  barf = gamma = 0.0
  lb = floor
  out = []
  for k in range(steps):
    g, f = _grad(x, k), _VALUES[k]
    m = b1 * m + (1 - b1) * g
    v = b2 * v + (1 - b2) * g ** 2
    barf = b1 * barf + (1 - b1) * f
    gamma = b1 * gamma + (1 - b1) * np.dot(g, x)
    c1, c2 = 1 - b1 ** (k + 1), 1 - b2 ** (k + 1)
    diag = eps + np.sqrt(v / c2)
    m_hat = m / c1
    h = barf / c1 + np.dot(m_hat, x) - gamma / c1
    lb_k = _lower_bound(
        lb, (barf - gamma) / c1 + np.dot(m_hat, x) / (1 + lr * wd), floor,
        adapt)
    nom = np.dot(m_hat, x) + (1 + lr * wd) * (barf / c1 - gamma / c1 - lb_k)
    sq_norm = np.sum(m_hat ** 2 / diag)
    tau = min(lr, max(nom, 0.0) / sq_norm)
    new_x = (x - tau * m_hat / diag) / (1 + lr * wd)  # The proximal step.
    if adapt:
      lb = max(floor, h - 0.5 * tau * sq_norm)
    out.append(new_x - x)
    x = new_x
  return out, lb


def _run(tx, steps, use_jit):
  return optimizer_checks.run_float32_steps(
      tx, _PARAMS, _grad, num_steps=steps, use_jit=use_jit,
      extra_args=lambda t: {'value': jnp.float32(_VALUES[t])})


_MOMO_CASES = (
    dict(lr=0.5, beta=0.75, floor=0.0, wd=0.0, adapt=False),
    dict(lr=5.0, beta=0.75, floor=-0.5, wd=0.25, adapt=False),
    dict(lr=5.0, beta=0.5, floor=-1.0, wd=0.0, adapt=True),
    dict(lr=5.0, beta=0.5, floor=-1.0, wd=0.25, adapt=True),
)
_MOMO_ADAM_CASES = (
    dict(lr=5.0, b1=0.75, b2=0.875, eps=0.125, floor=0.0, wd=0.0,
         adapt=False),
    dict(lr=5.0, b1=0.75, b2=0.875, eps=0.125, floor=-0.5, wd=0.25,
         adapt=False),
    dict(lr=5.0, b1=0.75, b2=0.875, eps=0.125, floor=-1.0, wd=0.25,
         adapt=True),
)


class MomoTest(parameterized.TestCase):

  @parameterized.product(use_jit=(False, True), case=_MOMO_CASES)
  def test_momo_matches_numpy(self, use_jit, case):
    tx = _momo.momo(learning_rate=case['lr'], beta=case['beta'],
                    lower_bound=case['floor'], weight_decay=case['wd'],
                    adapt_lower_bound=case['adapt'])
    got, state = _run(tx, 6, use_jit)
    want, lb = _numpy_momo(6, **case)
    for t, (g, w) in enumerate(zip(got, want)):
      np.testing.assert_allclose(g, w, rtol=2e-5, atol=1e-6,
                                 err_msg=f'step {t}')
    np.testing.assert_allclose(state.lb, lb, rtol=2e-5, atol=1e-6)

  @parameterized.product(use_jit=(False, True), case=_MOMO_ADAM_CASES)
  def test_momo_adam_matches_numpy(self, use_jit, case):
    tx = _momo.momo_adam(learning_rate=case['lr'], b1=case['b1'],
                         b2=case['b2'], eps=case['eps'],
                         lower_bound=case['floor'], weight_decay=case['wd'],
                         adapt_lower_bound=case['adapt'])
    got, state = _run(tx, 6, use_jit)
    want, lb = _numpy_momo_adam(6, **case)
    for t, (g, w) in enumerate(zip(got, want)):
      np.testing.assert_allclose(g, w, rtol=2e-5, atol=1e-6,
                                 err_msg=f'step {t}')
    np.testing.assert_allclose(state.lb, lb, rtol=2e-5, atol=1e-6)

  def test_first_momo_step_is_a_polyak_step(self):
    params = jnp.array([1.0, -2.0])
    grad = 2 * params
    value = jnp.sum(params ** 2)
    tx = _momo.momo(learning_rate=10.0)
    u, state = tx.update(grad, tx.init(params), params, value=value)
    # tau = f / |g|^2 = 5 / 20.
    np.testing.assert_allclose(u, -0.25 * grad, rtol=1e-6)
    np.testing.assert_allclose(state.exp_avg, grad)
    self.assertEqual(float(state.barf), 5.0)

  @parameterized.parameters('momo', 'momo_adam')
  def test_zero_gradient_gives_zero_update(self, name):
    tx = getattr(_momo, name)()
    params = jnp.ones(2)
    u, _ = tx.update(jnp.zeros(2), tx.init(params), params,
                     value=jnp.float32(1.0))
    np.testing.assert_array_equal(u, np.zeros(2))

  @parameterized.parameters('momo', 'momo_adam')
  def test_requires_value_and_params(self, name):
    tx = getattr(_momo, name)()
    params = jnp.ones(2)
    with self.assertRaisesRegex(ValueError, f'{name}: .*value='):
      tx.update(jnp.ones(2), tx.init(params), params)
    with self.assertRaisesRegex(ValueError, f'{name}: params'):
      tx.update(jnp.ones(2), tx.init(params), value=1.0)

  @parameterized.parameters('momo', 'momo_adam')
  def test_bfloat16_dtypes_are_stable(self, name):
    tx = getattr(_momo, name)()
    params = {'w': jnp.ones((2, 3), jnp.bfloat16), 'b': jnp.ones(3)}
    optimizer_checks.assert_dtypes_stable_over_steps(
        tx, params, extra_args={'value': jnp.float32(2.0)})

  @parameterized.parameters(('momo', 1.0), ('momo_adam', 0.1))
  def test_gamma_float32_with_bfloat16_params_regression(self, name, weight):
    # Regression from upstream 0.2.8, whose gamma is float32 after the first
    # update: with float32 and bfloat16 params it stayed bfloat16. barf and
    # lb are float32 too (upstream keeps them in the lowest params dtype).
    tx = getattr(_momo, name)()
    params = {'w': jnp.full((2, 3), 1.5, jnp.bfloat16),
              'b': jnp.full(3, 1 + 2**-8, jnp.float32)}
    grads = jax.tree.map(jnp.ones_like, params)
    state = tx.init(params)
    self.assertEqual(state.gamma.dtype, jnp.float32)
    self.assertEqual(state.barf.dtype, jnp.float32)
    self.assertEqual(state.lb.dtype, jnp.float32)
    _, state = jax.jit(tx.update)(grads, state, params,
                                  value=jnp.float32(2.0))
    self.assertEqual(state.gamma.dtype, jnp.float32)
    self.assertEqual(state.barf.dtype, jnp.float32)
    # The first gamma is <g, x> = 12.01171875 (not a bfloat16 number), times
    # 1 - b1 for MoMo-Adam.
    np.testing.assert_allclose(state.gamma, weight * 12.01171875, rtol=1e-6)

  @parameterized.parameters('momo', 'momo_adam')
  def test_adapted_lower_bound_float32_with_bfloat16_params(self, name):
    # Upstream 0.2.8's adapted lower bound is float32 after the first update
    # with float32 and bfloat16 params (a fixed one keeps bfloat16).
    tx = getattr(_momo, name)(adapt_lower_bound=True, lower_bound=0.1)
    params = {'w': jnp.ones((2, 3), jnp.bfloat16), 'b': jnp.ones(3)}
    state = tx.init(params)
    self.assertEqual(state.lb.dtype, jnp.float32)
    self.assertEqual(state.lb, np.float32(0.1))
    grads = jax.tree.map(jnp.ones_like, params)
    _, new_state = jax.jit(tx.update)(grads, state, params,
                                      value=jnp.float32(2.0))
    test_utils.assert_trees_all_equal_dtypes(new_state, state)

  def test_rejects_invalid_hyperparameters(self):
    with self.assertRaisesRegex(ValueError, 'momo: beta'):
      _momo.momo(beta=1.5)
    with self.assertRaisesRegex(ValueError, 'momo_adam: b2'):
      _momo.momo_adam(b2=1.0)
    with self.assertRaisesRegex(ValueError, 'momo_adam: eps'):
      _momo.momo_adam(eps=-1.0)


def _params(kind):
  """A pure bfloat16 tree, or one mixing float32 and bfloat16 leaves."""
  b_dtype = jnp.bfloat16 if kind == 'bf16' else jnp.float32
  return {'w': jnp.full((2, 3), 1.5, jnp.bfloat16),
          'b': jnp.full(3, 0.5, b_dtype)}


class ScalarStatisticsTest(parameterized.TestCase):
  """barf, gamma and lb are float32 (float64 under x64)."""

  @parameterized.product(name=('momo', 'momo_adam'), kind=('bf16', 'mixed'),
                         adapt=(False, True))
  def test_float32_on_bfloat16_params(self, name, kind, adapt):
    tx = getattr(_momo, name)(adapt_lower_bound=adapt)
    params = _params(kind)
    grads = jax.tree.map(jnp.ones_like, params)
    state = tx.init(params)
    for field in ('barf', 'gamma', 'lb'):
      self.assertEqual(getattr(state, field).dtype, jnp.float32, field)
    # 1.001 is 1.0 in bfloat16.
    updates, new_state = jax.jit(tx.update)(grads, state, params,
                                            value=jnp.float32(1.001))
    test_utils.assert_trees_all_equal_dtypes(new_state, state)
    test_utils.assert_trees_all_equal_dtypes(updates, params)
    # The first barf is the loss (MoMo), or (1 - b1) times it (MoMo-Adam).
    weight = 1.0 if name == 'momo' else 0.1
    np.testing.assert_allclose(new_state.barf, weight * np.float32(1.001),
                               rtol=1e-6)

  @parameterized.product(name=('momo', 'momo_adam'),
                         kind=('bf16', 'mixed', 'f32'))
  def test_float64_under_x64(self, name, kind):
    with utils.x64_precision(True):
      if kind == 'f32':
        params = {'w': jnp.ones((2, 3), jnp.float32)}
      else:
        params = _params(kind)
      tx = getattr(_momo, name)()
      state = tx.init(params)
      grads = jax.tree.map(jnp.ones_like, params)
      updates, new_state = jax.jit(tx.update)(grads, state, params,
                                              value=1.5)
      for field in ('barf', 'gamma', 'lb'):
        self.assertEqual(getattr(state, field).dtype, jnp.float64, field)
      test_utils.assert_trees_all_equal_dtypes(new_state, state)
      test_utils.assert_trees_all_equal_dtypes(updates, params)


if __name__ == '__main__':
  absltest.main()
