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
"""Tests for COCOB, against a NumPy implementation of COCOB-Backprop."""

from absl.testing import absltest
from absl.testing import parameterized
import jax
import jax.numpy as jnp
import numpy as np

from optax._src.testing import optimizer_checks
from optax.contrib import _cocob
from optax.schedules import _inject

_PARAMS = np.array([0.5, -0.5, 1.0])


def _grad(w, t):
  """Gradient of a quadratic with a drifting centre (not param-free)."""
  return (w - 0.3) * (1.0 + 0.5 * t) + np.array([0.2, -0.1, 0.05]) * t


def _numpy_cocob(w1, steps, alpha, eps, lr=1.0, wd=0.0):
  """Runs COCOB-Backprop; returns the successive updates."""
  w = w1.copy()
  lmax = np.full_like(w, eps)
  gsum = np.zeros_like(w)
  reward = np.zeros_like(w)
  theta = np.zeros_like(w)
  out = []
  for t in range(steps):
    g = lr * (_grad(w, t) + wd * w)
    lmax = np.maximum(lmax, np.abs(g))
    gsum = gsum + np.abs(g)
    reward = np.maximum(reward - g * (w - w1), 0.0)
    theta = theta - g
    new_w = w1 + theta / (lmax * np.maximum(gsum + lmax, alpha * lmax)) * (
        lmax + reward)
    out.append(new_w - w)
    w = new_w
  return out


class CocobTest(parameterized.TestCase):

  @parameterized.product(use_jit=(False, True),
                         hypers=((2.0, 0.1), (100.0, 1e-8)))
  def test_scale_by_cocob_matches_numpy(self, use_jit, hypers):
    alpha, eps = hypers
    tx = _cocob.scale_by_cocob(alpha=alpha, eps=eps)
    update = jax.jit(tx.update) if use_jit else tx.update
    params = jnp.asarray(_PARAMS, jnp.float32)
    state = tx.init(params)
    want = _numpy_cocob(_PARAMS, 4, alpha, eps)
    for t, w in enumerate(want):
      g = jnp.asarray(_grad(np.asarray(params, np.float64), t), jnp.float32)
      u, state = update(g, state, params)
      np.testing.assert_allclose(u, w, rtol=1e-5, atol=1e-6,
                                 err_msg=f'step {t}')
      params = params + u
    np.testing.assert_array_equal(state.init_particles, _PARAMS)

  def test_alias_scales_and_decays_the_gradient(self):
    lr, wd = 0.5, 0.25
    tx = _cocob.cocob(lr, alpha=2.0, eps=0.1, weight_decay=wd)
    params = jnp.asarray(_PARAMS, jnp.float32)
    state = tx.init(params)
    want = _numpy_cocob(_PARAMS, 3, 2.0, 0.1, lr=lr, wd=wd)
    for t, w in enumerate(want):
      g = jnp.asarray(_grad(np.asarray(params, np.float64), t), jnp.float32)
      u, state = tx.update(g, state, params)
      np.testing.assert_allclose(u, w, rtol=1e-5, atol=1e-6)
      params = params + u

  def test_zero_gradient_leaves_params(self):
    tx = _cocob.scale_by_cocob()
    params = jnp.asarray(_PARAMS, jnp.float32)
    u, _ = tx.update(jnp.zeros(3), tx.init(params), params)
    np.testing.assert_array_equal(u, np.zeros(3))

  @parameterized.parameters(False, True)
  def test_state_can_be_donated(self, injected):
    # init stored the params' own arrays as init_particles, so a jitted step
    # donating params and state donated one buffer twice, and donating only
    # the state deleted the caller's params.
    if injected:
      tx = _inject.inject_hyperparams(_cocob.cocob)()
    else:
      tx = _cocob.cocob()
    optimizer_checks.assert_state_donatable(tx, {'w': jnp.array([1.0, -2.0])})

  @parameterized.product(use_jit=(True, False),
                         dtype=('float16', 'bfloat16', 'float32'))
  def test_zero_gradient_in_float16_gives_zero_update(self, use_jit, dtype):
    # COCOB-Backprop (Orabona and Tommasi 2017, Algorithm 2): L starts at
    # eps and is a running maximum, so L >= eps and a zero gradient (theta
    # = 0) bets nothing. eps = 1e-8 is 0 in float16: L was 0 and 0 / 0. Then
    # g = [0.5, -1, 0]: L = |g|, G = |g|, the bet -g / (|g| max(2 |g|,
    # 100 |g|)) |g| = -g / (100 |g|) = -0.01 sign(g).
    tx = _cocob.scale_by_cocob()
    update = jax.jit(tx.update) if use_jit else tx.update
    params = jnp.zeros(3, dtype)
    state = tx.init(params)
    updates, state = update(jnp.zeros(3, dtype), state, params)
    self.assertEqual(updates.dtype, jnp.dtype(dtype))
    np.testing.assert_array_equal(np.asarray(updates, np.float32), 0.0)
    updates, _ = update(jnp.array([0.5, -1.0, 0.0], dtype), state, params)
    tol = {'float16': 1e-3, 'bfloat16': 1e-2, 'float32': 1e-6}[dtype]
    np.testing.assert_allclose(np.asarray(updates, np.float32),
                               [-0.01, 0.01, 0.0], rtol=tol, atol=0)

  def test_requires_params(self):
    tx = _cocob.scale_by_cocob()
    with self.assertRaisesRegex(ValueError, 'scale_by_cocob: params'):
      tx.update(jnp.zeros(3), tx.init(jnp.zeros(3)))

  def test_bfloat16_dtypes_are_stable(self):
    tx = _cocob.cocob()
    params = {'w': jnp.ones((2, 3), jnp.bfloat16), 'b': jnp.ones(3)}
    optimizer_checks.assert_dtypes_stable_over_steps(tx, params)

  @parameterized.parameters(('alpha', -1.0), ('eps', -1e-3))
  def test_rejects_invalid_hyperparameters(self, name, value):
    with self.assertRaisesRegex(ValueError, f'scale_by_cocob: {name}'):
      _cocob.scale_by_cocob(**{name: value})


if __name__ == '__main__':
  absltest.main()
