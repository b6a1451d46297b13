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
"""Tests for Sophia and the Hutchinson diagonal Hessian estimator."""

import contextlib
import io

from absl.testing import absltest
from absl.testing import parameterized
import jax
import jax.numpy as jnp
import numpy as np

from optax._src import base
from optax._src.testing import optimizer_checks
from optax._src.testing import probes
from optax.contrib import _sophia

_PARAMS = np.array([0.5, -0.5, 1.0])
_CURVATURE = np.array([1.0, 2.0, 3.0])


def _obj(x):
  """A separable objective: its Hessian is diagonal, so Hutchinson is exact."""
  return jnp.sum(jnp.asarray(_CURVATURE, x.dtype) * x ** 2) + jnp.sum(x ** 3)


def _np_grad(x):
  return 2 * _CURVATURE * x + 3 * x ** 2


def _np_hess_diag(x):
  return 2 * _CURVATURE + 6 * x


def _numpy_sophia(steps, lr, b1, b2, eps, gamma, rho, interval, wd):
  x = _PARAMS.copy()
  m = np.zeros_like(x)
  h = np.zeros_like(x)
  out = []
  for t in range(steps):
    g = _np_grad(x)
    m = b1 * m + (1 - b1) * g
    m_hat = m / (1 - b1 ** (t + 1))
    ratio = m_hat / np.maximum(gamma * h, eps)
    u = -lr * (np.clip(ratio, -rho, rho) + wd * x)
    if t % interval == 0:
      h = b2 * h + (1 - b2) * _np_hess_diag(x)
    out.append(u)
    x = x + u
  return out, h


class HutchinsonTest(parameterized.TestCase):

  def test_exact_on_a_diagonal_hessian(self):
    est = _sophia.hutchinson_estimator_diag_hessian(random_seed=3)
    params = jnp.asarray(_PARAMS, jnp.float32)
    state = est.init(params)
    update = jax.jit(lambda s: est.update(None, s, params, obj_fn=_obj))
    for _ in range(2):
      diag, state = update(state)
      np.testing.assert_allclose(diag, _np_hess_diag(_PARAMS), rtol=1e-6)

  def test_unbiased_on_a_dense_hessian(self):
    a = np.array([[2.0, 1.0, -0.5], [1.0, 3.0, 0.3], [-0.5, 0.3, 1.0]])
    obj = lambda x: 0.5 * x @ jnp.asarray(a, jnp.float32) @ x
    est = _sophia.hutchinson_estimator_diag_hessian(random_seed=0)
    params = jnp.zeros(3)
    update = jax.jit(lambda s: est.update(None, s, params, obj_fn=obj))
    state = est.init(params)
    total = np.zeros(3)
    n = 400
    for _ in range(n):
      diag, state = update(state)
      total += np.asarray(diag)
      # Each estimate is diag(a) plus Rademacher-weighted off-diagonals.
    np.testing.assert_allclose(total / n, np.diag(a), atol=0.15)

  def test_seed_and_key_are_made_in_init(self):
    params = jnp.zeros(2)
    default = _sophia.hutchinson_estimator_diag_hessian().init(params)
    np.testing.assert_array_equal(default.key, jax.random.PRNGKey(0))
    seeded = _sophia.hutchinson_estimator_diag_hessian(5).init(params)
    np.testing.assert_array_equal(seeded.key, jax.random.PRNGKey(5))
    key = jax.random.PRNGKey(7)
    given = _sophia.hutchinson_estimator_diag_hessian(key).init(params)
    np.testing.assert_array_equal(given.key, key)

  def test_building_creates_no_array(self):
    _, new = probes.arrays_created_by(
        lambda: (_sophia.hutchinson_estimator_diag_hessian(3),
                 _sophia.sophia(0.1)))
    self.assertEqual(new, [])

  def test_requires_obj_fn(self):
    est = _sophia.hutchinson_estimator_diag_hessian()
    params = jnp.zeros(2)
    with self.assertRaisesRegex(ValueError, 'obj_fn'):
      est.update(None, est.init(params), params)


class SophiaTest(parameterized.TestCase):

  @parameterized.product(
      use_jit=(False, True),
      case=(dict(lr=0.5, b1=0.5, b2=0.75, eps=0.125, gamma=0.25, rho=2.0,
                 interval=2, wd=0.0),
            dict(lr=0.1, b1=0.75, b2=0.875, eps=0.01, gamma=0.5, rho=1.0,
                 interval=3, wd=0.25)))
  def test_matches_numpy(self, use_jit, case):
    tx = _sophia.sophia(
        learning_rate=case['lr'], b1=case['b1'], b2=case['b2'],
        eps=case['eps'], gamma=case['gamma'], clip_threshold=case['rho'],
        update_interval=case['interval'], weight_decay=case['wd'])
    update = jax.jit(tx.update, static_argnames='obj_fn') if use_jit else (
        tx.update)
    # Eager steps re-trace the lax.cond around the Hessian estimate at each
    # call: fewer of them.
    steps = 6 if use_jit else 2
    params = jnp.asarray(_PARAMS, jnp.float32)
    state = tx.init(params)
    want, h = _numpy_sophia(steps, **case)
    for t, w in enumerate(want):
      g = jnp.asarray(_np_grad(np.asarray(params, np.float64)), jnp.float32)
      u, state = update(g, state, params, obj_fn=_obj)
      np.testing.assert_allclose(u, w, rtol=2e-5, atol=1e-6,
                                 err_msg=f'step {t}')
      params = params + u
    np.testing.assert_allclose(state[0].nu, h, rtol=2e-5)
    self.assertEqual(int(state[0].count), steps)

  def test_hessian_is_estimated_only_every_update_interval(self):
    calls = []

    def init_fn(params):
      del params
      return base.EmptyState()

    def update_fn(updates, state, params=None, **extra):
      del updates, extra
      calls.append(None)
      return jax.tree.map(jnp.ones_like, params), state

    counter = base.GradientTransformationExtraArgs(init_fn, update_fn)
    tx = _sophia.sophia(0.1, update_interval=3, hessian_diagonal_fn=counter)
    params = jnp.ones(2)
    state = tx.init(params)
    step = jax.jit(lambda s: tx.update(jnp.ones(2), s, params, obj_fn=jnp.sum))
    nus = []
    for _ in range(7):
      _, state = step(state)
      nus.append(float(state[0].nu[0]))
    # Traced once: the estimator ran in the traced branch only.
    self.assertLen(calls, 1)
    # Refreshed at counts 0, 3, 6; unchanged in between.
    self.assertEqual(nus[0], nus[1])
    self.assertEqual(nus[1], nus[2])
    self.assertNotEqual(nus[2], nus[3])
    self.assertEqual(nus[3], nus[5])
    self.assertNotEqual(nus[5], nus[6])

  def test_verbose_prints_the_win_rate(self):
    tx = _sophia.sophia(0.5, b1=0.5, b2=0.75, eps=0.125, gamma=0.25,
                        clip_threshold=2.0, update_interval=2,
                        weight_decay=0.0, verbose=True,
                        print_win_rate_every_n_steps=2)
    params = jnp.asarray(_PARAMS, jnp.float32)
    state = tx.init(params)
    step = jax.jit(lambda g, s, p: tx.update(g, s, p, obj_fn=_obj))
    buffer = io.StringIO()
    with contextlib.redirect_stdout(buffer):
      for _ in range(4):
        g = jnp.asarray(_np_grad(np.asarray(params)), jnp.float32)
        u, state = step(g, state, params)
        params = params + u
      jax.effects_barrier()
    lines = [l for l in buffer.getvalue().splitlines() if 'win rate' in l]
    self.assertLen(lines, 2)
    self.assertTrue(lines[0].startswith('Sophia optimizer win rate: '))

  def test_mu_dtype_and_bfloat16(self):
    tx = _sophia.sophia(0.1, mu_dtype=jnp.bfloat16, update_interval=2)
    params = {'w': jnp.ones((2, 3), jnp.bfloat16), 'b': jnp.ones(3)}
    obj = lambda p: sum(jnp.sum(x.astype(jnp.float32) ** 2)
                        for x in jax.tree.leaves(p))
    state = tx.init(params)
    self.assertEqual(state[0].mu['b'].dtype, jnp.bfloat16)
    self.assertEqual(state[0].nu['b'].dtype, jnp.float32)
    optimizer_checks.assert_dtypes_stable_over_steps(
        tx, params, extra_args={'obj_fn': obj})

  def test_requires_obj_fn(self):
    tx = _sophia.sophia(0.1)
    params = jnp.ones(2)
    with self.assertRaisesRegex(ValueError, 'sophia: .*obj_fn'):
      tx.update(jnp.ones(2), tx.init(params), params)

  @parameterized.parameters(
      (dict(b1=1.0), 'b1'), (dict(b2=1.5), 'b2'), (dict(eps=-1.0), 'eps'),
      (dict(gamma=-1.0), 'gamma'), (dict(update_interval=0), 'update_interval'),
      (dict(update_interval=2.5), 'update_interval'),
      (dict(print_win_rate_every_n_steps=-1), 'print_win_rate'),
      (dict(hessian_diagonal_fn=None), 'hessian_diagonal_fn'))
  def test_rejects_invalid_hyperparameters(self, kwargs, name):
    with self.assertRaisesRegex(ValueError, f'sophia: {name}'):
      _sophia.sophia(0.1, **kwargs)


if __name__ == '__main__':
  absltest.main()
