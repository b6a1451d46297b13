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
"""Tests for AdEMAMix and simplified AdEMAMix, against NumPy references."""

from absl.testing import absltest
from absl.testing import parameterized
import jax.numpy as jnp
import numpy as np

from optax._src.testing import optimizer_checks
from optax.contrib import _ademamix

_GRADS = np.array([[1.0, -2.0, 0.5], [0.3, 1.0, -1.5], [-0.7, 0.2, 2.0]])
_PARAMS = np.array([0.5, -0.5, 1.0])


def _numpy_ademamix(grads, b1, b2, b3, alpha, eps, eps_root):
  """AdEMAMix directions; b3 and alpha may be functions of the step."""
  m1 = np.zeros_like(grads[0])
  m2 = np.zeros_like(grads[0])
  nu = np.zeros_like(grads[0])
  out = []
  for t, g in enumerate(grads, start=1):
    b3_t = b3(t - 1) if callable(b3) else b3
    alpha_t = alpha(t - 1) if callable(alpha) else alpha
    m1 = b1 * m1 + (1 - b1) * g
    m2 = b3_t * m2 + (1 - b3_t) * g
    nu = b2 * nu + (1 - b2) * g ** 2
    m1_hat = m1 / (1 - b1 ** t)
    nu_hat = nu / (1 - b2 ** t)
    out.append((m1_hat + alpha_t * m2) / (np.sqrt(nu_hat + eps_root) + eps))
  return out


def _numpy_simplified(grads, b1, b2, alpha, eps, eps_root):
  m = np.zeros_like(grads[0])
  n = np.zeros_like(grads[0])
  out = []
  for t, g in enumerate(grads, start=1):
    m = b1 * m + g
    n = b2 * n + (1 - b2) * g ** 2
    n_hat = n / (1 - b2 ** t)
    out.append((alpha * g + m) / (np.sqrt(n_hat + eps_root) + eps))
  return out


def _run(tx, grads, use_jit, params=_PARAMS):
  return optimizer_checks.run_float32_steps(tx, params, grads, use_jit=use_jit)


class AdemamixTest(parameterized.TestCase):

  @parameterized.parameters(False, True)
  def test_scale_by_ademamix_matches_numpy(self, use_jit):
    hypers = dict(b1=0.75, b2=0.875, b3=0.9375, alpha=3.0, eps=0.125,
                  eps_root=0.01)
    got, state = _run(_ademamix.scale_by_ademamix(**hypers), _GRADS, use_jit)
    want = _numpy_ademamix(_GRADS, **hypers)
    for step, (g, w) in enumerate(zip(got, want)):
      np.testing.assert_allclose(g, w, rtol=2e-6, err_msg=f'step {step}')
    self.assertEqual(int(state.count), 3)
    self.assertEqual(int(state.count_m2), 3)

  def test_schedules_are_evaluated_on_count_m2(self):
    b3 = lambda count: 0.5 + 0.125 * count
    alpha = lambda count: 1.0 + count
    tx = _ademamix.scale_by_ademamix(b1=0.75, b2=0.875, b3=b3, alpha=alpha,
                                     eps=0.125)
    got, _ = _run(tx, _GRADS, use_jit=True)
    want = _numpy_ademamix(_GRADS, 0.75, 0.875, b3, alpha, 0.125, 0.0)
    for g, w in zip(got, want):
      np.testing.assert_allclose(g, w, rtol=2e-6)

  def test_default_hyperparameters(self):
    got, _ = _run(_ademamix.scale_by_ademamix(), _GRADS, use_jit=False)
    want = _numpy_ademamix(_GRADS, 0.9, 0.999, 0.9999, 6.0, 1e-8, 0.0)
    for g, w in zip(got, want):
      # The slow EMA uses 1 - b3 with b3 rounded to float32 first: 1.7e-4
      # relative on the slow term, which is small next to the fast one.
      np.testing.assert_allclose(g, w, rtol=2e-5)

  def test_alias(self):
    lr, wd = 0.125, 0.25
    tx = _ademamix.ademamix(lr, b1=0.75, b2=0.875, b3=0.9375, alpha=2.0,
                            eps=0.125, weight_decay=wd)
    want = _numpy_ademamix(_GRADS, 0.75, 0.875, 0.9375, 2.0, 0.125, 0.0)
    optimizer_checks.assert_decoupled_weight_decay(tx, _PARAMS, _GRADS, want,
                                                   lr, wd)

  def test_mu_dtype_applies_to_every_moment(self):
    tx = _ademamix.scale_by_ademamix(mu_dtype=jnp.bfloat16)
    state = tx.init(jnp.zeros(3))
    for moment in (state.m1, state.m2, state.nu):
      self.assertEqual(moment.dtype, jnp.bfloat16)
    u, state = tx.update(jnp.ones(3), state)
    self.assertEqual(u.dtype, jnp.float32)
    for moment in (state.m1, state.m2, state.nu):
      self.assertEqual(moment.dtype, jnp.bfloat16)

  @parameterized.parameters('ademamix', 'simplified_ademamix')
  def test_bfloat16_dtypes_are_stable(self, name):
    tx = getattr(_ademamix, name)(0.1)
    params = {'w': jnp.ones((2, 3), jnp.bfloat16), 'b': jnp.ones(3)}
    optimizer_checks.assert_dtypes_stable_over_steps(tx, params)

  @parameterized.parameters(('b1', 1.0), ('b2', 1.5), ('b3', 1.01),
                            ('eps', -1.0), ('eps_root', -1.0))
  def test_rejects_invalid_hyperparameters(self, name, value):
    with self.assertRaisesRegex(ValueError, f'scale_by_ademamix: {name}'):
      _ademamix.scale_by_ademamix(**{name: value})


class SimplifiedAdemamixTest(parameterized.TestCase):

  @parameterized.product(use_jit=(False, True),
                         hypers=((0.75, 0.875, 2.0, 0.125, 0.01),
                                 (0.99, 0.95, 0.0, 1e-8, 0.0)))
  def test_matches_numpy(self, use_jit, hypers):
    b1, b2, alpha, eps, eps_root = hypers
    tx = _ademamix.scale_by_simplified_ademamix(
        b1=b1, b2=b2, alpha=alpha, eps=eps, eps_root=eps_root)
    got, state = _run(tx, _GRADS, use_jit)
    want = _numpy_simplified(_GRADS, b1, b2, alpha, eps, eps_root)
    for step, (g, w) in enumerate(zip(got, want)):
      np.testing.assert_allclose(g, w, rtol=1e-5, err_msg=f'step {step}')
    self.assertEqual(int(state.t), 3)

  def test_alias(self):
    lr, wd = 0.125, 0.25
    tx = _ademamix.simplified_ademamix(lr, b1=0.75, b2=0.875, alpha=2.0,
                                       eps=0.125, weight_decay=wd)
    want = _numpy_simplified(_GRADS, 0.75, 0.875, 2.0, 0.125, 0.0)
    optimizer_checks.assert_decoupled_weight_decay(tx, _PARAMS, _GRADS, want,
                                                   lr, wd)

  @parameterized.parameters(('b1', 1.5), ('b2', 1.0), ('eps', -1.0))
  def test_rejects_invalid_hyperparameters(self, name, value):
    with self.assertRaisesRegex(
        ValueError, f'scale_by_simplified_ademamix: {name}'):
      _ademamix.scale_by_simplified_ademamix(**{name: value})


if __name__ == '__main__':
  absltest.main()
