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
"""Tests for ACProp, against a NumPy implementation of the update rule."""

from absl.testing import absltest
from absl.testing import parameterized
import jax
import jax.numpy as jnp
import numpy as np

from optax._src import transform
from optax._src.testing import optimizer_checks
from optax.contrib import _acprop

_GRADS = np.array([[1.0, -2.0, 0.5], [0.3, 1.0, -1.5], [-0.7, 0.2, 2.0]])
_PARAMS = np.array([0.5, -0.5, 1.0])


def _numpy_acprop(grads, b1, b2, eps, eps_root):
  """ACProp directions: g_t over the root of the previous centred moment.

  The residual g_t - m_t is taken against the first moment just updated, as
  in Zhuang et al. (2021) and the authors' reference implementation.
  """
  m = np.zeros_like(grads[0])
  s = np.zeros_like(grads[0])
  out = []
  for t, g in enumerate(grads, start=1):
    if t == 1:
      out.append(g / (1.0 + eps))
    else:
      out.append(g / (np.sqrt(s / (1.0 - b2 ** (t - 1))) + eps))
    m = b1 * m + (1.0 - b1) * g
    s = b2 * s + (1.0 - b2) * (g - m) ** 2 + eps_root
  return out, m, s


def _run(tx, grads, params, use_jit):
  return optimizer_checks.run_float32_steps(tx, params, grads, use_jit=use_jit)


class ACPropTest(parameterized.TestCase):

  @parameterized.product(use_jit=(False, True),
                         hypers=((0.75, 0.875, 0.125, 0.01),
                                 (0.5, 0.5, 0.0, 0.0)))
  def test_scale_by_acprop_matches_numpy(self, use_jit, hypers):
    b1, b2, eps, eps_root = hypers
    tx = _acprop.scale_by_acprop(b1=b1, b2=b2, eps=eps, eps_root=eps_root)
    got, state = _run(tx, _GRADS, _PARAMS, use_jit)
    want, m, s = _numpy_acprop(_GRADS, b1, b2, eps, eps_root)
    for step, (g, w) in enumerate(zip(got, want)):
      np.testing.assert_allclose(g, w, rtol=2e-6, err_msg=f'step {step}')
    np.testing.assert_allclose(state.mu, m, rtol=2e-6)
    np.testing.assert_allclose(state.nu, s, rtol=2e-6)
    self.assertEqual(int(state.count), len(_GRADS))

  @parameterized.parameters(False, True)
  def test_residual_uses_the_new_first_moment_pull_1716(self, use_jit):
    # b1 = b2 = 0.5, eps = eps_root = 0, gradients 2, 1, 4, by hand:
    #   t=1: m = 1,   s = 0.5 * (2 - 1)**2 = 0.5,            u = 2 / 1 = 2
    #   t=2: m = 1,   s = 0.25 + 0.5 * (1 - 1)**2 = 0.25,
    #        u = 1 / sqrt(0.5 / (1 - 0.5)) = 1
    #   t=3: m = 2.5, s = 0.125 + 0.5 * (4 - 2.5)**2 = 1.25,
    #        u = 4 / sqrt(0.25 / (1 - 0.25)) = 4 * sqrt(3).
    # The residual against the previous moment (g_t - m_{t-1}) gives
    # s = 2, 1, 5 and u = 2, 0.5, 2 * sqrt(3).
    tx = _acprop.scale_by_acprop(b1=0.5, b2=0.5, eps=0.0, eps_root=0.0)
    grads = [np.array([2.0]), np.array([1.0]), np.array([4.0])]
    got, state = _run(tx, grads, np.zeros(1), use_jit)
    np.testing.assert_allclose(np.concatenate(got), [2.0, 1.0, 4 * np.sqrt(3)],
                               rtol=1e-6)
    np.testing.assert_allclose(state.mu, [2.5], rtol=1e-6)
    np.testing.assert_allclose(state.nu, [1.25], rtol=1e-6)

  @parameterized.parameters(True, False)
  def test_small_float16_gradients_give_finite_updates(self, use_jit):
    # s_t >= eps_root = 1e-16 at every step, so the update g / (sqrt(s /
    # (1 - b2^(t-1))) + eps) is finite; in float16 s rounded to 0 and
    # 1e-7 / 1e-16 overflowed to inf. With s = eps_root the second update
    # is 1e-7 / sqrt(1e-16 / 0.001) = 0.316 at most.
    tx = _acprop.scale_by_acprop()
    update = jax.jit(tx.update) if use_jit else tx.update
    state = tx.init(jnp.zeros(3, jnp.float16))
    g = jnp.array([1e-7, -1e-7, 0.0], jnp.float16)
    for _ in range(3):
      updates, state = update(g, state)
      self.assertEqual(updates.dtype, jnp.float16)
      self.assertTrue(np.all(np.isfinite(np.asarray(updates, np.float32))))
      self.assertLessEqual(float(jnp.max(jnp.abs(updates))), 1.0)

  def test_default_hyperparameters(self):
    tx = _acprop.scale_by_acprop()
    got, _ = _run(tx, _GRADS, _PARAMS, use_jit=False)
    want, _, _ = _numpy_acprop(_GRADS, 0.9, 0.999, 1e-16, 1e-16)
    for g, w in zip(got, want):
      # 1 - b2 is derived from float32 b2 (see
      # hyperparameters.as_hyperparameter).
      np.testing.assert_allclose(g, w, rtol=3e-5)

  def test_state_is_a_belief_state(self):
    state = _acprop.scale_by_acprop().init(jnp.zeros(3))
    self.assertIsInstance(state, transform.ScaleByBeliefState)

  def test_alias_adds_decoupled_weight_decay(self):
    lr, wd = 0.1, 0.5
    tx = _acprop.acprop(lr, b1=0.75, b2=0.875, eps=0.125, eps_root=0.0,
                        weight_decay=wd)
    want, _, _ = _numpy_acprop(_GRADS, 0.75, 0.875, 0.125, 0.0)
    optimizer_checks.assert_decoupled_weight_decay(tx, _PARAMS, _GRADS, want,
                                                   lr, wd)

  def test_alias_mask(self):
    tx = _acprop.acprop(0.1, weight_decay=0.5, mask={'a': True, 'b': False})
    params = {'a': jnp.ones(2), 'b': jnp.ones(2)}
    grads = {'a': jnp.zeros(2), 'b': jnp.zeros(2)}
    u, _ = tx.update(grads, tx.init(params), params)
    np.testing.assert_allclose(u['a'], -0.05 * np.ones(2), rtol=1e-6)
    np.testing.assert_array_equal(u['b'], np.zeros(2))

  def test_bfloat16_dtypes_are_stable(self):
    tx = _acprop.acprop(0.1)
    params = {'w': jnp.ones((2, 3), jnp.bfloat16), 'b': jnp.ones(3)}
    optimizer_checks.assert_dtypes_stable_over_steps(tx, params)

  @parameterized.parameters(('b1', 1.0), ('b2', -0.1), ('eps', -1.0),
                            ('eps_root', -1e-3))
  def test_rejects_invalid_hyperparameters(self, name, value):
    with self.assertRaisesRegex(ValueError, f'scale_by_acprop: {name}'):
      _acprop.scale_by_acprop(**{name: value})


if __name__ == '__main__':
  absltest.main()
