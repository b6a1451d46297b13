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
"""Tests for Mechanic (``optax.contrib._mechanic``)."""


from absl.testing import absltest
from absl.testing import parameterized
import jax
import jax.numpy as jnp
import numpy as np

from optax._src import alias
from optax._src.testing import optimizer_checks
from optax._src.testing import probes
from optax.contrib import _mechanic

_CURVATURE = np.array([1.0, 2.0, 3.0, 4.0, 5.0])
_TARGET = np.array([0.5, -1.0, 0.2, 0.3, -0.4])


def _loss(x):
  return 0.5 * jnp.sum(jnp.asarray(_CURVATURE, jnp.float32)
                       * (x - jnp.asarray(_TARGET, jnp.float32))**2)


def _np_grad(x):
  return _CURVATURE * (x - _TARGET)


def _np_mechanic(x, steps, base_step, weight_decay=0.01, eps=1e-8,
                 s_init=1e-6, num_betas=6):
  """Reference Mechanic (Algorithm 1 of the paper, with the memory-saving
  recomputation of Delta and the clipped wealth update), float64."""
  betas = 1.0 - 0.1 ** np.arange(1, num_betas + 1)
  x = np.asarray(x, np.float64)
  x_ref = x.copy()
  r, m, v, s = (np.zeros(num_betas) for _ in range(4))
  history = []
  for t in range(steps):
    g = _np_grad(x)
    s_sum = s.sum()
    delta = (x - x_ref) / (s_sum + eps)
    g_decayed = g + (weight_decay * s_sum * np.linalg.norm(g)
                     / (np.linalg.norm(x) + eps) * x)
    h = g_decayed @ delta
    clipped = np.clip(h, -m, m)
    m = np.maximum(betas * m, abs(h) + eps)
    v = betas**2 * v + h**2
    r = betas * r - s * clipped
    s = (s_init / num_betas * m + np.maximum(r, 0)) / (np.sqrt(v) + eps)
    x = x_ref + s.sum() * (delta + base_step(g, t))
    history.append((x, s))
  return history


class MechanizeTest(parameterized.TestCase):

  @parameterized.parameters(
      (dict(), False),
      (dict(weight_decay=0.3), True),
      (dict(num_betas=3, s_init=1e-4, eps=1e-6), True),
  )
  def test_matches_reference_with_sgd(self, kwargs, use_jit):
    tx = _mechanic.mechanize(alias.sgd(0.01), **kwargs)
    x = jnp.zeros(5)
    state = tx.init(x)
    update = jax.jit(tx.update) if use_jit else tx.update
    want = _np_mechanic(np.zeros(5), 30, lambda g, t: -0.01 * g, **kwargs)
    for want_x, want_s in want:
      updates, state = update(jax.grad(_loss)(x), state, x)
      x = x + updates
      np.testing.assert_allclose(x, want_x, rtol=1e-4, atol=1e-6)
      np.testing.assert_allclose(state.s, want_s, rtol=1e-4, atol=1e-9)
    self.assertEqual(int(state.count), 30)

  def test_matches_reference_with_momentum(self):
    tx = _mechanic.mechanize(alias.sgd(0.02, momentum=0.5))
    trace = [np.zeros(5)]

    def base_step(g, t):
      del t
      trace[0] = 0.5 * trace[0] + g
      return -0.02 * trace[0]

    x = jnp.zeros(5)
    state = tx.init(x)
    step = jax.jit(tx.update)
    for want_x, _ in _np_mechanic(np.zeros(5), 25, base_step):
      updates, state = step(jax.grad(_loss)(x), state, x)
      x = x + updates
      np.testing.assert_allclose(x, want_x, rtol=1e-4, atol=1e-6)

  def test_learns_a_scale_and_converges(self):
    tx = _mechanic.mechanize(alias.adam(1e-3))
    x = jnp.zeros(5)
    x, state = optimizer_checks.minimize(tx, _loss, x, 300)
    # Adam alone moves each coordinate by at most 0.3 in 300 steps here.
    self.assertGreater(float(jnp.sum(state.s)), 5.0)
    self.assertLess(float(_loss(x)), 1e-3 * float(_loss(jnp.zeros(5))))

  def test_reference_point_is_first_update_params(self):
    tx = _mechanic.mechanize(alias.sgd(0.1))
    state = tx.init(jnp.zeros(3))
    params = jnp.array([1.0, 2.0, 3.0])  # e.g. pre-trained weights.
    _, state = tx.update(jnp.ones(3), state, params)
    np.testing.assert_array_equal(state.x0, params)
    _, state = tx.update(jnp.ones(3), state, params + 1)
    np.testing.assert_array_equal(state.x0, params)

  @parameterized.parameters(jnp.float32, jnp.bfloat16)
  def test_dtypes_state_stable_single_trace(self, dtype):
    tx = _mechanic.mechanize(alias.adam(0.01))
    params = {'w': jnp.ones((2, 3), dtype), 'b': jnp.zeros(3, jnp.float32)}
    state = tx.init(params)
    self.assertEqual(state.s.dtype, dtype)  # The lowest params dtype.
    optimizer_checks.assert_dtypes_stable_over_steps(
        tx, params, grad_fn=lambda p: jax.tree.map(lambda x: x - 0.5, p))

  def test_errors(self):
    with self.assertRaisesRegex(ValueError, 'num_betas must be a positive'):
      _mechanic.mechanize(alias.sgd(0.1), num_betas=0)
    with self.assertRaisesRegex(ValueError, 's_init must be non-negative'):
      _mechanic.mechanize(alias.sgd(0.1), s_init=-1.0)
    with self.assertRaisesRegex(
        ValueError, 'mechanize: num_betas must be a positive integer, got'
        ' 2.0'):
      _mechanic.mechanize(alias.sgd(0.1), num_betas=2.0)
    tx = _mechanic.mechanize(alias.sgd(0.1))
    with self.assertRaisesRegex(ValueError, 'params must be given'):
      tx.update(jnp.ones(2), tx.init(jnp.ones(2)))

  def test_nan_hyperparameters_are_rejected(self):
    # The old check (`value < 0`) let NaN through.
    for name in ('weight_decay', 'eps', 's_init'):
      with self.assertRaisesRegex(
          ValueError, f'mechanize: {name} must be non-negative, got nan'):
        _mechanic.mechanize(alias.sgd(0.1), **{name: float('nan')})

  def test_numpy_integer_num_betas(self):
    tx = _mechanic.mechanize(alias.sgd(0.1), num_betas=np.int32(3))
    self.assertEqual(tx.init(jnp.ones(2)).s.shape, (3,))

  def test_builds_without_arrays(self):
    _, new = probes.arrays_created_by(
        lambda: _mechanic.mechanize(alias.sgd(0.1), num_betas=4))
    self.assertEqual(new, [])


if __name__ == '__main__':
  absltest.main()
