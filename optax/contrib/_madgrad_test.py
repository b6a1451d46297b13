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
"""Tests for MADGRAD, against a NumPy implementation of the paper's rule."""

from absl.testing import absltest
from absl.testing import parameterized
import jax.numpy as jnp
import numpy as np

from optax._src.testing import optimizer_checks
from optax.contrib import _madgrad
from optax.schedules import _inject

_PARAMS = np.array([0.5, -0.5, 1.0])


def _grad(x, t):
  return (x - 0.3) * (1.0 + 0.2 * t) + np.array([0.1, -0.2, 0.3])


def _numpy_madgrad(steps, lr, momentum, eps, wd=0.0):
  """Runs MADGRAD (lr may be a function of the step); returns updates."""
  x0 = _PARAMS.copy()
  x = x0.copy()
  s = np.zeros_like(x)
  nu = np.zeros_like(x)
  ck = 1 - momentum
  out = []
  for k in range(steps):
    g = _grad(x, k) + wd * x
    lr_k = lr(k) if callable(lr) else lr
    lam = (lr_k + eps) * np.sqrt(k + 1)
    s = s + lam * g
    nu = nu + lam * g ** 2
    z = x0 - s / (np.cbrt(nu) + eps)
    new_x = (1 - ck) * x + ck * z
    out.append(new_x - x)
    x = new_x
  return out


def _run(tx, steps, use_jit):
  return optimizer_checks.run_float32_steps(
      tx, _PARAMS, _grad, num_steps=steps, use_jit=use_jit)


class MadgradTest(parameterized.TestCase):

  @parameterized.product(use_jit=(False, True),
                         hypers=((0.5, 0.75, 0.125), (0.1, 0.0, 1e-6),
                                 (0.01, 0.9, 1e-6)))
  def test_scale_by_madgrad_matches_numpy(self, use_jit, hypers):
    lr, momentum, eps = hypers
    tx = _madgrad.scale_by_madgrad(lr, momentum=momentum, eps=eps)
    got, state = _run(tx, 4, use_jit)
    want = _numpy_madgrad(4, lr, momentum, eps)
    for t, (g, w) in enumerate(zip(got, want)):
      # The update x_{k+1} - x_k is a difference of nearby numbers.
      np.testing.assert_allclose(g, w, rtol=5e-5, atol=2e-7,
                                 err_msg=f'step {t}')
    self.assertEqual(int(state.count), 4)
    np.testing.assert_array_equal(state.x0, _PARAMS.astype(np.float32))

  @parameterized.parameters(False, True)
  def test_negative_learning_rate_takes_the_real_cube_root(self, use_jit):
    # With lr + eps < 0 the sum nu is negative; a fractional power of it was
    # NaN, where the paper's (and upstream's) cube root is real.
    tx = _madgrad.madgrad(-0.1, momentum=0.5, eps=1e-6)
    got, state = _run(tx, 3, use_jit)
    want = _numpy_madgrad(3, -0.1, 0.5, 1e-6)
    self.assertTrue(np.all(np.asarray(state[1].grad_sum_sq) < 0))
    for t, (g, w) in enumerate(zip(got, want)):
      self.assertTrue(np.all(np.isfinite(g)), f'step {t}')
      np.testing.assert_allclose(g, w, rtol=5e-5, atol=2e-7,
                                 err_msg=f'step {t}')

  def test_alias_with_schedule_and_weight_decay(self):
    lr = lambda count: 0.5 / (1.0 + count)
    tx = _madgrad.madgrad(lr, momentum=0.75, weight_decay=0.25, eps=0.125)
    got, _ = _run(tx, 4, use_jit=True)
    want = _numpy_madgrad(4, lr, 0.75, 0.125, wd=0.25)
    for g, w in zip(got, want):
      np.testing.assert_allclose(g, w, rtol=5e-5, atol=2e-7)

  def test_bfloat16_dtypes_are_stable(self):
    tx = _madgrad.madgrad(0.01)
    params = {'w': jnp.ones((2, 3), jnp.bfloat16), 'b': jnp.ones(3)}
    optimizer_checks.assert_dtypes_stable_over_steps(tx, params)

  @parameterized.parameters(False, True)
  def test_state_can_be_donated(self, injected):
    # init stored the params' own arrays as x0, so a jitted step
    # donating params and state donated one buffer twice, and donating only
    # the state deleted the caller's params.
    if injected:
      tx = _inject.inject_hyperparams(_madgrad.madgrad)(learning_rate=0.1)
    else:
      tx = _madgrad.madgrad(learning_rate=0.1)
    optimizer_checks.assert_state_donatable(tx, {'w': jnp.array([1.0, -2.0])})

  def test_requires_params(self):
    tx = _madgrad.scale_by_madgrad(0.1)
    with self.assertRaisesRegex(ValueError, 'scale_by_madgrad: params'):
      tx.update(jnp.ones(2), tx.init(jnp.ones(2)))

  @parameterized.parameters(('momentum', 1.5), ('eps', -1.0))
  def test_rejects_invalid_hyperparameters(self, name, value):
    with self.assertRaisesRegex(ValueError, f'scale_by_madgrad: {name}'):
      _madgrad.scale_by_madgrad(0.1, **{name: value})


if __name__ == '__main__':
  absltest.main()
