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
"""optax's top-level utilities against their docstrings, in float64.

The update helpers (``apply_updates``, ``incremental_update``,
``periodic_update``), the norms (``global_norm``, ``safe_norm``,
``safe_root_mean_squares``), the counters, ``scale_gradient`` and the
linear algebra (``power_iteration``, ``matrix_inverse_pth_root``, ``nnls``,
``multi_normal``) are compared with NumPy and SciPy references.
"""

from absl.testing import absltest
from absl.testing import parameterized
import jax
import jax.numpy as jnp
import numpy as np
from scipy import optimize

import optax
from optax._src import utils


def _tree(seed):
  rng = np.random.RandomState(seed)
  return {'a': jnp.asarray(rng.randn(3), jnp.float32),
          'b': jnp.asarray(rng.randn(2, 2), jnp.float32)}


def _flat(tree):
  return np.concatenate(
      [np.asarray(x, np.float64).ravel() for x in jax.tree.leaves(tree)])


class UpdateHelpersTest(parameterized.TestCase):

  def test_apply_updates_adds_and_keeps_dtype(self):
    params = {'a': jnp.ones(2, jnp.bfloat16), 'b': jnp.ones(2, jnp.float32)}
    updates = {'a': jnp.full(2, 0.5, jnp.float32),
               'b': jnp.full(2, -0.25, jnp.float32)}
    got = optax.apply_updates(params, updates)
    self.assertEqual(got['a'].dtype, jnp.bfloat16)
    np.testing.assert_allclose(_flat(got), [1.5, 1.5, 0.75, 0.75])

  @parameterized.parameters(0.0, 0.25, 1.0)
  def test_incremental_update(self, tau):
    new, old = _tree(0), _tree(1)
    np.testing.assert_allclose(
        _flat(optax.incremental_update(new, old, tau)),
        tau * _flat(new) + (1 - tau) * _flat(old), rtol=1e-6, atol=1e-7)

  @parameterized.parameters(0, 1, 2, 3, 4)
  def test_periodic_update(self, step):
    new, old = _tree(2), _tree(3)
    got = optax.periodic_update(new, old, jnp.asarray(step), 2)
    want = new if step % 2 == 0 else old
    np.testing.assert_array_equal(_flat(got), _flat(want))


class NormsTest(parameterized.TestCase):

  def test_global_norm_is_norm_of_raveled_tree(self):
    tree = _tree(4)
    np.testing.assert_allclose(float(optax.global_norm(tree)),
                               np.linalg.norm(_flat(tree)), rtol=1e-6)
    self.assertEqual(float(optax.global_norm({})), 0.0)

  @parameterized.product(min_norm=(0.0, 0.5, 10.0), ord_=(None, 1, np.inf))
  def test_safe_norm(self, min_norm, ord_):
    x = jnp.array([[0.3, -0.4], [0.0, 0.0]])
    got = optax.safe_norm(x, min_norm, ord=ord_, axis=-1)
    want = np.maximum(
        np.linalg.norm(np.asarray(x, np.float64), ord=ord_ or 2, axis=-1),
        min_norm)
    np.testing.assert_allclose(got, want, rtol=1e-6)
    grad = jax.grad(lambda v: optax.safe_norm(v, min_norm).sum())(
        jnp.zeros(3))
    self.assertTrue(np.all(np.isfinite(grad)))

  @parameterized.parameters(0.0, 0.1, 10.0)
  def test_safe_root_mean_squares(self, min_rms):
    x = jnp.array([0.3, -0.4, 1.2])
    xf = np.asarray(x, np.float64)
    np.testing.assert_allclose(
        optax.safe_root_mean_squares(x, min_rms),
        max(np.sqrt(np.mean(xf ** 2)), min_rms), rtol=1e-6)


class CountersAndGradientsTest(parameterized.TestCase):

  @parameterized.parameters('safe_increment', 'safe_int32_increment')
  def test_increment_saturates(self, name):
    fn = getattr(optax, name)
    self.assertEqual(int(fn(jnp.asarray(5, jnp.int32))), 6)
    top = np.iinfo(np.int32).max
    self.assertEqual(int(fn(jnp.asarray(top, jnp.int32))), top)

  @parameterized.parameters(0.0, 0.5, -1.0)
  def test_scale_gradient(self, scale):
    x = jnp.array([1.0, -2.0])
    np.testing.assert_array_equal(optax.scale_gradient(x, scale), x)
    grad = jax.grad(lambda v: jnp.sum(optax.scale_gradient(v, scale) ** 2))(x)
    np.testing.assert_allclose(grad, scale * 2 * np.asarray(x))

  def test_value_and_grad_from_state_computes_before_first_step(self):
    def fn(x):
      return jnp.sum((x - 1.0) ** 2)

    tx = optax.scale_by_zoom_linesearch(max_linesearch_steps=5)
    x = jnp.array([0.5, 3.0])
    state = tx.init(x)
    value, grad = optax.value_and_grad_from_state(fn)(x, state=state)
    np.testing.assert_allclose(value, 0.25 + 4.0)
    np.testing.assert_allclose(grad, [-1.0, 4.0])


class LinearAlgebraTest(parameterized.TestCase):

  def _spd(self, n, seed):
    rng = np.random.RandomState(seed)
    q, _ = np.linalg.qr(rng.randn(n, n))
    return (q * np.linspace(1.0, 4.0, n)) @ q.T

  def test_power_iteration_finds_dominant_eigenpair(self):
    m = self._spd(4, 0)
    val, vec = optax.power_iteration(jnp.asarray(m, jnp.float32),
                                     num_iters=500, error_tolerance=1e-7)
    w, v = np.linalg.eigh(m)
    np.testing.assert_allclose(float(val), w[-1], rtol=1e-4)
    np.testing.assert_allclose(abs(np.dot(np.asarray(vec), v[:, -1])), 1.0,
                               rtol=1e-3)

  @parameterized.parameters(1, 2, 4)
  def test_matrix_inverse_pth_root(self, p):
    m = self._spd(4, p)
    root, _ = optax.matrix_inverse_pth_root(
        jnp.asarray(m, jnp.float32), p, ridge_epsilon=0.0)
    w, v = np.linalg.eigh(m)
    want = (v * w ** (-1.0 / p)) @ v.T
    np.testing.assert_allclose(root, want, rtol=1e-3, atol=1e-3)

  def test_nnls_matches_scipy(self):
    rng = np.random.RandomState(5)
    a = rng.randn(6, 3)
    b = rng.randn(6)
    got = optax.nnls(jnp.asarray(a, jnp.float32), jnp.asarray(b, jnp.float32),
                     500)
    want, _ = optimize.nnls(a, b)
    np.testing.assert_allclose(got, want, atol=1e-4)
    self.assertTrue(np.all(np.asarray(got) >= 0))

  def test_multi_normal_log_prob_and_samples(self):
    loc = jnp.array([0.5, -1.0])
    log_scale = jnp.array([0.0, np.log(2.0)])
    dist = optax.multi_normal(loc, log_scale)
    x = jnp.array([1.0, 0.0])
    scale = np.exp(np.asarray(log_scale, np.float64))
    z = (np.asarray(x, np.float64) - np.asarray(loc, np.float64)) / scale
    want = np.sum(-0.5 * z ** 2 - np.log(scale) - 0.5 * np.log(2 * np.pi))
    np.testing.assert_allclose(float(dist.log_prob(x)), want, rtol=1e-5)
    with utils.x64_precision(False):
      samples = dist.sample((20000,), jax.random.key(0))
    np.testing.assert_allclose(samples.mean(0), loc, atol=0.05)
    np.testing.assert_allclose(samples.std(0), scale, rtol=0.05)


if __name__ == '__main__':
  absltest.main()
