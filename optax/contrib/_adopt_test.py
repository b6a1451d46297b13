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
"""Tests for ADOPT, against a NumPy implementation of the paper's update."""

from absl.testing import absltest
from absl.testing import parameterized
import jax
import jax.numpy as jnp
import numpy as np

from optax._src.testing import optimizer_checks
from optax._src import transform
from optax.contrib import _adopt

_GRADS = np.array([[1.0, -2.0, 0.5], [0.3, 1.0, -1.5], [-0.7, 0.2, 2.0],
                   [3.0, -0.1, 0.4]])


def _numpy_adopt(grads, b1, b2, eps, nesterov=False, clip=None):
  """ADOPT directions; ``clip`` maps the step count to the threshold."""
  m = np.zeros_like(grads[0])
  v = grads[0] ** 2
  out = [np.zeros_like(grads[0])]
  for t, g in enumerate(grads[1:], start=1):
    normalized = g / np.maximum(np.sqrt(v), eps)
    if clip is not None:
      normalized = np.clip(normalized, -clip(t), clip(t))
    m = b1 * m + (1 - b1) * normalized
    out.append(b1 * m + (1 - b1) * normalized if nesterov else m)
    v = b2 * v + (1 - b2) * g ** 2
  return out, m, v


class AdoptTest(parameterized.TestCase):

  @parameterized.product(
      use_jit=(False, True),
      options=(dict(nesterov=False, use_clipping=True),
               dict(nesterov=True, use_clipping=True),
               dict(nesterov=False, use_clipping=False)))
  def test_matches_numpy(self, use_jit, options):
    b1, b2, eps = 0.5, 0.75, 0.125
    tx = _adopt.scale_by_adopt(b1=b1, b2=b2, eps=eps, **options)
    update = jax.jit(tx.update) if use_jit else tx.update
    state = tx.init(jnp.zeros(3))
    got = []
    for g in _GRADS:
      u, state = update(jnp.asarray(g, jnp.float32), state)
      got.append(u)
    clip = (lambda t: t ** 0.25) if options['use_clipping'] else None
    want, m, v = _numpy_adopt(_GRADS, b1, b2, eps, options['nesterov'], clip)
    for step, (g, w) in enumerate(zip(got, want)):
      np.testing.assert_allclose(g, w, rtol=2e-6, atol=1e-7,
                                 err_msg=f'step {step}')
    np.testing.assert_allclose(state.mu, m, rtol=2e-6)
    np.testing.assert_allclose(state.nu, v, rtol=2e-6)

  def test_first_step_only_initializes_the_second_moment(self):
    tx = _adopt.scale_by_adopt()
    g = jnp.array([1.0, -2.0])
    u, state = tx.update(g, tx.init(jnp.zeros(2)))
    np.testing.assert_array_equal(u, np.zeros(2))
    np.testing.assert_array_equal(state.mu, np.zeros(2))
    np.testing.assert_array_equal(state.nu, np.array([1.0, 4.0]))
    self.assertIsInstance(state, transform.ScaleByAdamState)

  @parameterized.product(use_jit=(False, True), nesterov=(False, True),
                         use_clipping=(False, True))
  def test_float16_gradients_above_eps_times_max_match_numpy(
      self, use_jit, nesterov, use_clipping):
    # Algorithm 1 of the paper and the authors' adopt.py only set v_0 at the
    # first step: m stays 0, also where g_0 / eps overflows (float16: |g| >
    # 65504 * 1e-6). Upstream's 0 * inf made m NaN without clipping
    # (adopt-first-step-large-gradient).
    tx = _adopt.scale_by_adopt(nesterov=nesterov, use_clipping=use_clipping)
    update = jax.jit(tx.update) if use_jit else tx.update
    grads = np.array([[1.0, -3.0, 0.01], [0.5, 2.0, -0.02],
                      [-1.0, 1.0, 0.03]], np.float16).astype(np.float64)
    state = tx.init(jnp.zeros(3, jnp.float16))
    got = []
    for g in grads:
      u, state = update(jnp.asarray(g, jnp.float16), state)
      self.assertEqual(u.dtype, jnp.float16)
      got.append(np.asarray(u, np.float64))
    clip = (lambda t: t ** 0.25) if use_clipping else None
    want, m, _ = _numpy_adopt(grads, 0.9, 0.9999, 1e-6, nesterov, clip)
    for step, (g, w) in enumerate(zip(got, want)):
      np.testing.assert_allclose(g, w, rtol=2e-3, atol=1e-6,
                                 err_msg=f'step {step}')
    np.testing.assert_allclose(np.asarray(state.mu, np.float64), m,
                               rtol=2e-3, atol=1e-6)

  def test_float32_first_gradient_above_eps_times_max(self):
    # |g| = 1e33 > 1e-6 * 3.4e38: the first update and m are still 0.
    tx = _adopt.scale_by_adopt(use_clipping=False)
    u, state = tx.update(jnp.array([1e33, -1.0]), tx.init(jnp.zeros(2)))
    np.testing.assert_array_equal(u, np.zeros(2))
    np.testing.assert_array_equal(state.mu, np.zeros(2))
    u, state = tx.update(jnp.array([1.0, -1.0]), state)
    # v_0 = 1e66 is inf in float32: 1 / inf = 0; the second entry is -0.1.
    np.testing.assert_allclose(u, [0.0, -0.1], rtol=1e-6)

  @parameterized.parameters(False, True)
  def test_complex_updates_have_their_modulus_clipped(self, use_jit):
    # jnp.clip rejects complex numbers: the modulus is clipped, the phase
    # kept (a NaN entry stays NaN).
    b1, b2, eps = 0.5, 0.75, 0.125
    tx = _adopt.scale_by_adopt(b1=b1, b2=b2, eps=eps)
    update = jax.jit(tx.update) if use_jit else tx.update
    grads = np.array([[1 + 1j, 0.1j, 2.0], [30 - 40j, 0.2 + 0.1j, np.nan],
                      [-3 + 4j, 1.0, 1j]], np.complex64)
    state = tx.init(jnp.zeros(3, jnp.complex64))
    got = []
    for g in grads:
      u, state = update(jnp.asarray(g), state)
      self.assertEqual(u.dtype, jnp.complex64)
      got.append(np.asarray(u))
    m = np.zeros(3, np.complex128)
    v = np.abs(grads[0].astype(np.complex128)) ** 2
    for t, g in enumerate(grads[1:], start=1):
      with np.errstate(invalid='ignore'):  # The NaN entry.
        n = g.astype(np.complex128) / np.maximum(np.sqrt(v), eps)
        c = t ** 0.25
        n = np.where(np.abs(n) > c, n * c / np.abs(n), n)
      m = b1 * m + (1 - b1) * n
      np.testing.assert_allclose(got[t], m, rtol=2e-6, atol=1e-7,
                                 err_msg=f'step {t}')
      v = b2 * v + (1 - b2) * np.abs(g) ** 2
    # (30 - 40j) / sqrt(2) was clipped to modulus 1 at step 1, phase kept.
    np.testing.assert_allclose(got[1][0], 0.5 * (0.6 - 0.8j), rtol=1e-6)

  def test_custom_clip_value_fn(self):
    clip = lambda count: 0.5 + 0.0 * count
    tx = _adopt.scale_by_adopt(b1=0.5, b2=0.75, eps=0.125,
                               clip_value_fn=clip)
    state = tx.init(jnp.zeros(3))
    got = []
    for g in _GRADS:
      u, state = tx.update(jnp.asarray(g, jnp.float32), state)
      got.append(u)
    want, _, _ = _numpy_adopt(_GRADS, 0.5, 0.75, 0.125, clip=lambda t: 0.5)
    for g, w in zip(got, want):
      np.testing.assert_allclose(g, w, rtol=2e-6, atol=1e-7)

  def test_alias(self):
    tx = _adopt.adopt(0.1, b1=0.5, b2=0.75, eps=0.125)
    params = jnp.zeros(3)
    state = tx.init(params)
    want, _, _ = _numpy_adopt(_GRADS, 0.5, 0.75, 0.125,
                              clip=lambda t: t ** 0.25)
    for g, w in zip(_GRADS, want):
      u, state = tx.update(jnp.asarray(g, jnp.float32), state, params)
      np.testing.assert_allclose(u, -0.1 * w, rtol=2e-6, atol=1e-7)

  def test_bfloat16_and_mu_dtype(self):
    tx = _adopt.adopt(0.1, mu_dtype=jnp.bfloat16)
    params = {'w': jnp.ones((2, 3), jnp.bfloat16), 'b': jnp.ones(3)}
    state = tx.init(params)
    self.assertEqual(state[0].mu['b'].dtype, jnp.bfloat16)
    self.assertEqual(state[0].nu['b'].dtype, jnp.float32)
    optimizer_checks.assert_dtypes_stable_over_steps(tx, params)

  @parameterized.parameters(('b1', 1.5), ('b2', -0.5), ('eps', -1.0))
  def test_rejects_invalid_hyperparameters(self, name, value):
    with self.assertRaisesRegex(ValueError, f'scale_by_adopt: {name}'):
      _adopt.scale_by_adopt(**{name: value})

  def test_rejects_non_callable_clip_value_fn(self):
    with self.assertRaisesRegex(ValueError, 'scale_by_adopt: clip_value_fn'):
      _adopt.scale_by_adopt(clip_value_fn=1.0)


if __name__ == '__main__':
  absltest.main()
