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
"""Tests for Prodigy, against a NumPy implementation of the paper's rule."""

from absl.testing import absltest
from absl.testing import parameterized
import jax
import jax.numpy as jnp
import numpy as np

from optax._src import test_utils
from optax._src.testing import optimizer_checks
from optax.contrib import _prodigy
from optax.schedules import _inject

_PARAMS = np.array([0.5, -0.5, 1.0, 2.0])


def _grad(x, t):
  """A gradient with a persistent direction, so that d grows."""
  return 0.5 + 0.1 * x + 0.05 * t


def _numpy_prodigy(x0, steps, lr, b1, b2, b3, eps, d0, coef, wd, safeguard):
  """Runs Prodigy (Adam version); returns the updates and the estimates."""
  x = x0.copy()
  m, v, s = (np.zeros_like(x) for _ in range(3))
  d, r = d0, 0.0
  b3 = np.sqrt(b2) if b3 is None else b3
  updates, estimates = [], []
  for k in range(steps):
    g = _grad(x, k)
    dlr = d * lr * np.sqrt(1 - b2 ** (k + 1)) / (1 - b1 ** (k + 1))
    r = b3 * r + (d / d0) * dlr * np.sum(g * (x0 - x))
    s = b3 * s + (d / d0) * (d if safeguard else dlr) * g
    m = b1 * m + (1 - b1) * d * g
    v = b2 * v + (1 - b2) * d * d * g * g
    new_d = max(d, coef * r / np.sum(np.abs(s)))
    u = -dlr * (m / (np.sqrt(v) + new_d * eps) + wd * x)
    d = new_d
    updates.append(u)
    estimates.append(d)
    x = x + u
  return updates, estimates


class ProdigyTest(parameterized.TestCase):

  @parameterized.product(
      use_jit=(False, True),
      hypers=(dict(lr=1.0, b1=0.75, b2=0.875, b3=None, eps=1e-8, d0=1e-3,
                   coef=1.0, wd=0.0, safeguard=False),
              dict(lr=0.5, b1=0.75, b2=0.875, b3=0.5, eps=0.25, d0=1e-2,
                   coef=2.0, wd=0.25, safeguard=True)))
  def test_matches_numpy(self, use_jit, hypers):
    tx = _prodigy.prodigy(
        learning_rate=hypers['lr'], betas=(hypers['b1'], hypers['b2']),
        beta3=hypers['b3'], eps=hypers['eps'], estim_lr0=hypers['d0'],
        estim_lr_coef=hypers['coef'], weight_decay=hypers['wd'],
        safeguard_warmup=hypers['safeguard'])
    update = jax.jit(tx.update) if use_jit else tx.update
    params = jnp.asarray(_PARAMS, jnp.float32)
    state = tx.init(params)
    want_u, want_d = _numpy_prodigy(_PARAMS, 6, **hypers)
    for t, (wu, wd) in enumerate(zip(want_u, want_d)):
      g = jnp.asarray(_grad(np.asarray(params, np.float64), t), jnp.float32)
      u, state = update(g, state, params)
      np.testing.assert_allclose(u, wu, rtol=1e-5, atol=1e-7,
                                 err_msg=f'step {t}')
      np.testing.assert_allclose(state.estim_lr, wd, rtol=1e-5)
      params = params + u
    self.assertGreater(float(state.estim_lr), 1.2 * hypers['d0'])
    np.testing.assert_array_equal(state.params0, _PARAMS.astype(np.float32))

  @parameterized.parameters('tree', 'prefix', 'fn', 'traced')
  def test_weight_decay_mask(self, kind):
    # The NumPy reference runs on the concatenated leaves with a weight
    # decay of 0.25 on 'w' and none on 'b': d only depends on sums over all
    # leaves, so the split does not change it.
    hypers = dict(lr=0.5, b1=0.75, b2=0.875, b3=0.5, eps=0.25, d0=1e-2,
                  coef=2.0, safeguard=False)
    wd = np.array([0.25, 0.25, 0.0, 0.0])
    want_u, want_d = _numpy_prodigy(_PARAMS, 5, wd=wd, **hypers)
    if kind == 'traced':
      mask = {'w': jnp.asarray(True), 'b': {'x': jnp.asarray(False)}}
    else:
      mask = {'w': True, 'b': False if kind == 'prefix' else {'x': False}}
    if kind == 'fn':
      mask_fn = lambda params: mask
    tx = _prodigy.prodigy(
        learning_rate=hypers['lr'], betas=(hypers['b1'], hypers['b2']),
        beta3=hypers['b3'], eps=hypers['eps'], estim_lr0=hypers['d0'],
        estim_lr_coef=hypers['coef'], weight_decay=0.25,
        weight_decay_mask=mask_fn if kind == 'fn' else mask)
    params = {'w': jnp.asarray(_PARAMS[:2], jnp.float32),
              'b': {'x': jnp.asarray(_PARAMS[2:], jnp.float32)}}
    state = tx.init(params)
    update = jax.jit(tx.update)
    for t, (wu, wd_t) in enumerate(zip(want_u, want_d)):
      x = np.concatenate([params['w'], params['b']['x']]).astype(np.float64)
      g = jnp.asarray(_grad(x, t), jnp.float32)
      u, state = update({'w': g[:2], 'b': {'x': g[2:]}}, state, params)
      np.testing.assert_allclose(
          np.concatenate([u['w'], u['b']['x']]), wu, rtol=1e-5, atol=1e-7,
          err_msg=f'step {t}')
      np.testing.assert_allclose(state.estim_lr, wd_t, rtol=1e-5)
      params = jax.tree.map(jnp.add, params, u)

  def test_weight_decay_mask_default_decays_every_leaf(self):
    params = {'w': jnp.array([1.0, -2.0]), 'b': jnp.array([3.0])}
    grads = {'w': jnp.array([0.5, 0.5]), 'b': jnp.array([0.5])}
    results = []
    for mask in (None, {'w': True, 'b': True}):
      tx = _prodigy.prodigy(weight_decay=0.5, weight_decay_mask=mask)
      results.append(tx.update(grads, tx.init(params), params)[0])
    test_utils.assert_trees_all_equal(results[0], results[1])

  def test_weight_decay_mask_structure_error(self):
    params = {'w': jnp.ones(2), 'b': jnp.ones(1)}
    tx = _prodigy.prodigy(weight_decay=0.5, weight_decay_mask={'w': True})
    with self.assertRaisesRegex(
        ValueError, 'prodigy: weight_decay_mask must have the structure of'
        ' the params'):
      tx.update(params, tx.init(params), params)

  def test_zero_gradients_keep_the_estimate(self):
    tx = _prodigy.prodigy(estim_lr0=0.25)
    params = jnp.ones(2)
    u, state = tx.update(jnp.zeros(2), tx.init(params), params)
    np.testing.assert_array_equal(u, np.zeros(2))
    self.assertEqual(float(state.estim_lr), 0.25)

  def test_estimate_float32_with_bfloat16_params_regression(self):
    # Regression from upstream 0.2.8, whose estimate is float32 after the
    # first update: with float32 and bfloat16 params it was bfloat16, so d0
    # and every later estimate were rounded to 8 bits.
    tx = _prodigy.prodigy(estim_lr0=1e-6)
    params = {'w': jnp.ones((2, 3), jnp.bfloat16), 'b': jnp.ones(3)}
    state = tx.init(params)
    self.assertEqual(state.estim_lr.dtype, jnp.float32)
    self.assertEqual(state.numerator_weighted.dtype, jnp.float32)
    self.assertEqual(state.estim_lr, np.float32(1e-6))
    optimizer_checks.assert_dtypes_stable_over_steps(tx, params)

  @parameterized.parameters(False, True)
  def test_state_can_be_donated(self, injected):
    # Regression: init stored the params' own arrays as params0, so a jitted
    # step donating params and state donated one buffer twice, and donating
    # only the state deleted the caller's params.
    if injected:
      tx = _inject.inject_hyperparams(_prodigy.prodigy)(estim_lr0=0.1)
    else:
      tx = _prodigy.prodigy(estim_lr0=0.1)
    optimizer_checks.assert_state_donatable(tx, {'w': jnp.array([1.0, -2.0])})

  def test_rejects_gradients_shaped_unlike_the_state(self):
    # A scalar gradient for a (4,) param was broadcast into a (4,) update.
    tx = _prodigy.prodigy()
    params = {'w': jnp.ones(4)}
    state = tx.init(params)
    with self.assertRaisesRegex(
        ValueError, r"prodigy: at \['w'\] the gradient has shape \(\)"
        r' but the param has shape \(4,\)'):
      tx.update({'w': jnp.ones(())}, state, params)
    # Gradients shaped as the params, a state built for other params.
    with self.assertRaisesRegex(
        ValueError, r"prodigy: at \['w'\] the update has shape \(\)"
        r' but the optimizer state has shape \(4,\)'):
      tx.update({'w': jnp.ones(())}, state, {'w': jnp.ones(())})

  def test_requires_params(self):
    tx = _prodigy.prodigy()
    with self.assertRaisesRegex(ValueError, 'prodigy: params'):
      tx.update(jnp.ones(2), tx.init(jnp.ones(2)))

  @parameterized.parameters(
      (dict(betas=(0.9, 1.0)), 'betas'), (dict(beta3=1.5), 'beta3'),
      (dict(eps=-1.0), 'eps'), (dict(estim_lr0=-1.0), 'estim_lr0'),
      (dict(estim_lr_coef=-1.0), 'estim_lr_coef'))
  def test_rejects_invalid_hyperparameters(self, kwargs, name):
    with self.assertRaisesRegex(ValueError, f'prodigy: {name}'):
      _prodigy.prodigy(**kwargs)


class PureBfloat16Test(parameterized.TestCase):
  """Scalar statistics float32 on all-bfloat16 params (issue 20)."""

  def test_estimate_wide_on_bfloat16_params(self):
    params = {'w': jnp.ones((2, 3), jnp.bfloat16),
              'b': jnp.ones(3, jnp.bfloat16)}
    state = optimizer_checks.assert_wide_scalar_statistics(
        lambda: _prodigy.prodigy(estim_lr0=1e-6),
        ['estim_lr', 'numerator_weighted'], params)
    # 1e-6 is 9.984e-7 in bfloat16.
    self.assertEqual(state.estim_lr, np.float32(1e-6))


if __name__ == '__main__':
  absltest.main()
