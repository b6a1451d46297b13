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
"""Tests for D-Adapt AdamW, against a NumPy implementation of the paper."""

from absl.testing import absltest
from absl.testing import parameterized
import jax
import jax.numpy as jnp
import numpy as np

from optax._src.testing import optimizer_checks
from optax.contrib import _dadapt_adamw

_PARAMS = np.array([0.5, -0.5, 1.0, 2.0])


def _grad(x, t):
  """A gradient with a persistent direction, so that d grows."""
  return 0.5 + 0.1 * x + 0.05 * t


def _numpy_dadapt(x0, steps, lr, b1, b2, eps, d0, wd):
  """Runs D-Adapt Adam (decoupled decay); returns updates and estimates."""
  x = x0.copy()
  m, v, s = (np.zeros_like(x) for _ in range(3))
  d, r = d0, 0.0
  sb2 = np.sqrt(b2)
  updates, estimates = [], []
  for k in range(steps):
    g = _grad(x, k)
    dlr = d * lr * np.sqrt(1 - b2 ** (k + 1)) / (1 - b1 ** (k + 1))
    acc = dlr * np.sum(g * s / (np.sqrt(v) + eps))
    m = b1 * m + dlr * (1 - b1) * g
    v = b2 * v + (1 - b2) * g * g
    s = sb2 * s + dlr * (1 - sb2) * g
    r = sb2 * r + (1 - sb2) * acc
    d = max(d, r / ((1 - sb2) * np.sum(np.abs(s))))
    u = -m / (np.sqrt(v) + eps) - wd * dlr * x
    updates.append(u)
    estimates.append(d)
    x = x + u
  return updates, estimates


class DAdaptAdamWTest(parameterized.TestCase):

  @parameterized.product(
      use_jit=(False, True),
      hypers=(dict(lr=1.0, b1=0.75, b2=0.875, eps=1e-8, d0=1e-3, wd=0.0),
              dict(lr=0.5, b1=0.75, b2=0.875, eps=0.25, d0=1e-2, wd=0.5)))
  def test_matches_numpy(self, use_jit, hypers):
    tx = _dadapt_adamw.dadapt_adamw(
        learning_rate=hypers['lr'], betas=(hypers['b1'], hypers['b2']),
        eps=hypers['eps'], estim_lr0=hypers['d0'],
        weight_decay=hypers['wd'])
    update = jax.jit(tx.update) if use_jit else tx.update
    params = jnp.asarray(_PARAMS, jnp.float32)
    state = tx.init(params)
    want_u, want_d = _numpy_dadapt(_PARAMS, 6, **hypers)
    for t, (wu, wd) in enumerate(zip(want_u, want_d)):
      g = jnp.asarray(_grad(np.asarray(params, np.float64), t), jnp.float32)
      u, state = update(g, state, params)
      np.testing.assert_allclose(u, wu, rtol=1e-5, atol=1e-7,
                                 err_msg=f'step {t}')
      np.testing.assert_allclose(state.estim_lr, wd, rtol=1e-5)
      params = params + u
    # The estimate grew from its initial value.
    self.assertGreater(float(state.estim_lr), 1.2 * hypers['d0'])

  def test_learning_rate_schedule_is_evaluated_on_the_count(self):
    seen = []

    def schedule(count):
      seen.append(count)
      return 1.0
    tx = _dadapt_adamw.dadapt_adamw(learning_rate=schedule)
    params = jnp.zeros(2)
    state = tx.init(params)
    _, state = tx.update(jnp.ones(2), state, params)
    _, state = tx.update(jnp.ones(2), state, params)
    self.assertEqual([int(c) for c in seen], [0, 1])

  def test_zero_gradients_keep_the_estimate(self):
    tx = _dadapt_adamw.dadapt_adamw(estim_lr0=0.25)
    params = jnp.ones(2)
    u, state = tx.update(jnp.zeros(2), tx.init(params), params)
    np.testing.assert_array_equal(u, np.zeros(2))
    self.assertEqual(float(state.estim_lr), 0.25)

  def test_estimate_float32_with_bfloat16_params_regression(self):
    # Regression from upstream 0.2.8, whose estimate is float32 after the
    # first update: with float32 and bfloat16 params it was bfloat16, so d0
    # and every later estimate were rounded to 8 bits.
    tx = _dadapt_adamw.dadapt_adamw(estim_lr0=1e-6)
    params = {'w': jnp.ones((2, 3), jnp.bfloat16), 'b': jnp.ones(3)}
    state = tx.init(params)
    self.assertEqual(state.estim_lr.dtype, jnp.float32)
    self.assertEqual(state.numerator_weighted.dtype, jnp.float32)
    self.assertEqual(state.estim_lr, np.float32(1e-6))
    optimizer_checks.assert_dtypes_stable_over_steps(tx, params)

  @parameterized.parameters(1e26, 1e30, 3e38)
  def test_huge_gradients_give_finite_updates_regression(self, g):
    # Regression (issue 31): g * s was formed before the division by
    # sqrt(v) + eps; once (1 - b2) * g * g overflowed (v = inf) the second
    # step took inf / inf, and the updates and the estimate became NaN.
    # With v = inf the normalized moments are 0: the updates are 0 and d
    # keeps its initial value, as upstream 0.2.8 gives.
    tx = _dadapt_adamw.dadapt_adamw()
    params = jnp.ones(4)
    state = tx.init(params)
    for _ in range(3):
      u, state = tx.update(jnp.full(4, g), state, params)
      params = params + u
    np.testing.assert_array_equal(u, np.zeros(4))
    self.assertEqual(float(state.estim_lr), np.float32(1e-6))
    self.assertEqual(float(state.numerator_weighted), 0.0)

  def test_rejects_gradients_shaped_unlike_the_state(self):
    # A scalar gradient for a (4,) param was broadcast into a (4,) update.
    tx = _dadapt_adamw.dadapt_adamw()
    params = {'w': jnp.ones(4)}
    state = tx.init(params)
    with self.assertRaisesRegex(
        ValueError, r"dadapt_adamw: at \['w'\] the gradient has shape \(\)"
        r' but the param has shape \(4,\)'):
      tx.update({'w': jnp.ones(())}, state, params)
    # Gradients shaped as the params, a state built for other params.
    with self.assertRaisesRegex(
        ValueError, r"dadapt_adamw: at \['w'\] the update has shape \(\)"
        r' but the optimizer state has shape \(4,\)'):
      tx.update({'w': jnp.ones(())}, state, {'w': jnp.ones(())})

  def test_requires_params(self):
    tx = _dadapt_adamw.dadapt_adamw()
    with self.assertRaisesRegex(ValueError, 'dadapt_adamw: params'):
      tx.update(jnp.ones(2), tx.init(jnp.ones(2)))

  @parameterized.parameters(
      (dict(betas=(1.0, 0.9)), 'betas'), (dict(betas=(0.9,)), 'betas'),
      (dict(eps=-1.0), 'eps'), (dict(estim_lr0=0.0), 'estim_lr0'))
  def test_rejects_invalid_hyperparameters(self, kwargs, name):
    with self.assertRaisesRegex(ValueError, f'dadapt_adamw: {name}'):
      _dadapt_adamw.dadapt_adamw(**kwargs)


class PureBfloat16Test(parameterized.TestCase):
  """Scalar statistics float32 on all-bfloat16 params (issue 20)."""

  def test_estimate_wide_on_bfloat16_params(self):
    params = {'w': jnp.ones((2, 3), jnp.bfloat16),
              'b': jnp.ones(3, jnp.bfloat16)}
    state = optimizer_checks.assert_wide_scalar_statistics(
        lambda: _dadapt_adamw.dadapt_adamw(estim_lr0=1e-6),
        ['estim_lr', 'numerator_weighted'], params)
    # 1e-6 is 9.984e-7 in bfloat16.
    self.assertEqual(state.estim_lr, np.float32(1e-6))


if __name__ == '__main__':
  absltest.main()
