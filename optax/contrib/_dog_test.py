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
"""Tests for DoG and DoWG, against NumPy implementations of the papers."""

from absl.testing import absltest
from absl.testing import parameterized
import jax
import jax.numpy as jnp
import numpy as np

from optax._src import test_utils
from optax._src import utils
from optax._src.testing import optimizer_checks
from optax.contrib import _dog
from optax.schedules import _inject

_PARAMS = {'a': np.array([0.5, -0.5, 1.0]), 'b': np.array([2.0])}


def _grad(x, t):
  return {k: (v - 0.3) * (1.0 + 0.2 * t) for k, v in x.items()}


def _flat(tree):
  return np.concatenate([np.ravel(tree[k]) for k in sorted(tree)])


def _numpy_dog(steps, lr, init_step, eps, wd):
  """Runs DoG on the flattened params; returns the flat updates."""
  x0 = _flat(_PARAMS)
  x = x0.copy()
  kind, value = init_step
  if kind == 'heuristic':
    rbar = value * (1 + np.linalg.norm(x0))
  elif kind == 'distance':
    rbar = value
  else:
    rbar = 0.0
  total = 0.0
  out = []
  for t in range(steps):
    tree = {'a': x[:3], 'b': x[3:]}
    g = _flat(_grad(tree, t)) + wd * x
    rbar = max(rbar, np.linalg.norm(x - x0))
    total += np.sum(g ** 2)
    eta = rbar / np.sqrt(total + eps)
    if kind == 'learning_rate' and t == 0:
      eta = value
    u = -lr * eta * g
    out.append(u)
    x = x + u
  return out


def _numpy_dowg(steps, lr, init_sq, eps, wd):
  x0 = _flat(_PARAMS)
  x = x0.copy()
  rbar_sq = eps if init_sq is None else init_sq
  total = 0.0
  out = []
  for t in range(steps):
    tree = {'a': x[:3], 'b': x[3:]}
    g = _flat(_grad(tree, t)) + wd * x
    rbar_sq = max(rbar_sq, np.sum((x - x0) ** 2))
    total += rbar_sq * np.sum(g ** 2)
    u = -lr * rbar_sq / (np.sqrt(total) + eps) * g
    out.append(u)
    x = x + u
  return out


def _run(tx, steps, use_jit):
  history, state = optimizer_checks.run_float32_steps(
      tx, _PARAMS, _grad, num_steps=steps, use_jit=use_jit)
  return [_flat(u) for u in history], state


class DoGTest(parameterized.TestCase):

  @parameterized.product(
      use_jit=(False, True),
      init_step=(('heuristic', 0.01), ('distance', 0.3),
                 ('learning_rate', 0.3)))
  def test_dog_matches_numpy(self, use_jit, init_step):
    tx = _dog.dog(learning_rate=0.5, init_step=init_step, eps=0.1,
                  weight_decay=0.25)
    got, state = _run(tx, 5, use_jit)
    want = _numpy_dog(5, 0.5, init_step, 0.1, 0.25)
    for t, (g, w) in enumerate(zip(got, want)):
      np.testing.assert_allclose(g, w, rtol=1e-5, err_msg=f'step {t}')
    self.assertFalse(bool(state[1].is_init_step))

  def test_dog_heuristic_initial_distance(self):
    params = {'a': jnp.array([3.0, 4.0])}
    state = _dog.dog(init_step=('heuristic', 0.5)).init(params)
    self.assertAlmostEqual(float(state[1].max_dist), 0.5 * (1 + 5.0))
    self.assertTrue(bool(state[1].is_init_step))

  @parameterized.product(use_jit=(False, True), init_sq=(None, 0.2))
  def test_dowg_matches_numpy(self, use_jit, init_sq):
    tx = _dog.dowg(learning_rate=0.5, init_estim_sq_dist=init_sq, eps=0.1,
                   weight_decay=0.25)
    got, _ = _run(tx, 5, use_jit)
    want = _numpy_dowg(5, 0.5, init_sq, 0.1, 0.25)
    for t, (g, w) in enumerate(zip(got, want)):
      np.testing.assert_allclose(g, w, rtol=1e-5, err_msg=f'step {t}')

  @parameterized.parameters('dog', 'dowg')
  def test_weight_decay_mask(self, name):
    tx = getattr(_dog, name)(weight_decay=1.0, mask={'a': True, 'b': False})
    params = {'a': jnp.ones(2), 'b': jnp.ones(2)}
    grads = {'a': jnp.zeros(2), 'b': jnp.ones(2)}
    u, _ = tx.update(grads, tx.init(params), params)
    # The decay only enters the 'a' gradient, which is otherwise zero.
    self.assertTrue(bool(jnp.all(u['a'] < 0)))

  @parameterized.parameters('dog', 'dowg')
  def test_bfloat16_dtypes_are_stable(self, name):
    tx = getattr(_dog, name)()
    params = {'w': jnp.ones((2, 3), jnp.bfloat16), 'b': jnp.ones(3)}
    optimizer_checks.assert_dtypes_stable_over_steps(tx, params)

  @parameterized.parameters(
      ('dog', {}, 'sum_sq_norm_grads'),
      ('dowg', {'init_estim_sq_dist': 1.0}, 'weighted_sq_norm_grads'))
  def test_sums_float32_with_bfloat16_params_regression(self, name, kwargs,
                                                        field):
    # Regression from upstream 0.2.8, whose sums are float32 after the first
    # update: with float32 and bfloat16 params they stayed bfloat16 and
    # stopped growing (909 is not a bfloat16 number).
    tx = getattr(_dog, name)(**kwargs)
    params = {'w': jnp.ones((2, 3), jnp.bfloat16), 'b': jnp.ones(3)}
    grads = jax.tree.map(jnp.ones_like, params)  # Squared norm 9.
    state = tx.init(params)
    update = jax.jit(tx.update)
    for _ in range(101):
      updates, state = update(grads, state, params)
    total = getattr(state[1], field)
    self.assertEqual(total.dtype, jnp.float32)
    self.assertEqual(total, np.float32(909.0))
    test_utils.assert_trees_all_equal_dtypes(updates, params)

  @parameterized.product(name=('dog', 'dowg'), injected=(False, True))
  def test_state_can_be_donated(self, name, injected):
    # Regression: init stored the params' own arrays as init_params, so a
    # jitted step donating params and state donated one buffer twice, and
    # donating only the state deleted the caller's params.
    factory = getattr(_dog, name)
    tx = _inject.inject_hyperparams(factory)() if injected else factory()
    optimizer_checks.assert_state_donatable(tx, {'w': jnp.array([1.0, -2.0])})

  @parameterized.parameters('dog', 'dowg')
  def test_requires_params(self, name):
    tx = getattr(_dog, name)()
    with self.assertRaisesRegex(ValueError, f'{name}: params'):
      tx.update(jnp.ones(2), tx.init(jnp.ones(2)))

  @parameterized.parameters(
      (dict(init_step=('foo', 1.0)), 'init_step'),
      (dict(init_step=('distance', 0.0)), 'init_step'),
      (dict(init_step=0.1), 'init_step'), (dict(eps=-1.0), 'eps'))
  def test_dog_rejects_invalid_hyperparameters(self, kwargs, name):
    with self.assertRaisesRegex(ValueError, f'dog: .*{name}'):
      _dog.dog(**kwargs)

  @parameterized.parameters(
      (dict(eps=-1.0), 'eps'),
      (dict(init_estim_sq_dist=-1.0), 'init_estim_sq_dist'))
  def test_dowg_rejects_invalid_hyperparameters(self, kwargs, name):
    with self.assertRaisesRegex(ValueError, f'dowg: {name}'):
      _dog.dowg(**kwargs)


class PureBfloat16Test(parameterized.TestCase):
  """Scalar statistics float32 on all-bfloat16 params (issue 20)."""

  @parameterized.parameters(
      ('dog', {}, 'sum_sq_norm_grads'),
      ('dowg', {'init_estim_sq_dist': 1.0}, 'weighted_sq_norm_grads'))
  def test_sums_float32_on_bfloat16_params(self, name, kwargs, field):
    tx = getattr(_dog, name)(**kwargs)
    params = {'w': jnp.ones((2, 3), jnp.bfloat16),
              'b': jnp.ones(3, jnp.bfloat16)}
    grads = jax.tree.map(jnp.ones_like, params)  # Squared norm 9.
    state = tx.init(params)
    update = jax.jit(tx.update)
    for _ in range(101):
      updates, new_state = update(grads, state, params)
      test_utils.assert_trees_all_equal_dtypes(new_state, state)
      state = new_state
    # 909 is not a bfloat16 number (its neighbours there are 908 and 912).
    self.assertEqual(getattr(state[1], field), np.float32(909.0))
    test_utils.assert_trees_all_equal_dtypes(updates, params)

  @parameterized.parameters('dog', 'dowg')
  def test_float64_under_x64(self, name):
    with utils.x64_precision(True):
      tx = getattr(_dog, name)()
      params = {'w': jnp.ones((2, 3), jnp.bfloat16)}
      state = tx.init(params)
      for leaf in jax.tree.leaves(state[1]):
        if jnp.issubdtype(leaf.dtype, jnp.floating) and leaf.ndim == 0:
          self.assertEqual(leaf.dtype, jnp.float64)
      _, new_state = jax.jit(tx.update)(params, state, params)
      test_utils.assert_trees_all_equal_dtypes(new_state, state)


if __name__ == '__main__':
  absltest.main()
