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
"""Tests for ``optax._src.linear_algebra``.

References are computed with NumPy/SciPy in float64: ``np.linalg.eigh`` for
eigenpairs and inverse roots, ``scipy.optimize.nnls`` and a plain NumPy
FISTA for non-negative least squares.
"""

import functools

from absl.testing import absltest
from absl.testing import parameterized
import jax
import jax.numpy as jnp
import numpy as np
import scipy.optimize

from optax._src import linear_algebra


def _spd(size, seed, spread=1.0):
  """A random symmetric positive definite matrix with a dominant eigenvalue.
  """
  rng = np.random.RandomState(seed)
  q, _ = np.linalg.qr(rng.randn(size, size))
  eigvals = np.linspace(1.0, 2.0, size) * spread
  eigvals[-1] = 4.0 * spread
  return (q * eigvals) @ q.T


class GlobalNormTest(parameterized.TestCase):
  """Tests of global_norm."""

  @parameterized.parameters(True, False)
  def test_matches_numpy(self, use_jit):
    rng = np.random.RandomState(0)
    tree = {'a': rng.randn(3, 2), 'b': [rng.randn(4), rng.randn()]}
    expected = np.sqrt(sum(np.sum(x**2) for x in jax.tree.leaves(tree)))
    fn = jax.jit(linear_algebra.global_norm) if use_jit else (
        linear_algebra.global_norm)
    got = fn(jax.tree.map(jnp.asarray, tree))
    np.testing.assert_allclose(got, expected, rtol=1e-6)
    self.assertEqual(got.dtype, jnp.float32)

  def test_complex_leaves_use_modulus(self):
    tree = {'a': jnp.array([3.0, 4.0]), 'c': jnp.array([1.0 + 1.0j])}
    np.testing.assert_allclose(
        linear_algebra.global_norm(tree), np.sqrt(9 + 16 + 2), rtol=1e-6)

  def test_empty_tree_is_zero(self):
    self.assertEqual(float(linear_algebra.global_norm({})), 0.0)

  def test_is_deprecated_as_upstream(self):
    # Upstream 0.2.8 warns on every call, with this message, word for word.
    with self.assertWarns(DeprecationWarning) as caught:
      got = linear_algebra.global_norm({'a': jnp.array([3.0, 4.0])})
    self.assertEqual(
        str(caught.warning),
        'optax.global_norm is deprecated in favor of optax.tree.norm')
    self.assertEqual(caught.filename, __file__)
    self.assertEqual(float(got), 5.0)


class PowerIterationTest(parameterized.TestCase):
  """Tests of power_iteration against np.linalg.eigh."""

  @parameterized.product(size=(2, 5, 8), use_jit=(True, False))
  def test_dominant_eigenpair_matches_eigh(self, size, use_jit):
    matrix = _spd(size, seed=size)
    eigvals, eigvecs = np.linalg.eigh(matrix)
    fn = linear_algebra.power_iteration
    if use_jit:
      fn = jax.jit(fn)
    eigval, eigvec = fn(jnp.asarray(matrix, jnp.float32))
    np.testing.assert_allclose(eigval, eigvals[-1], rtol=1e-4)
    ref = eigvecs[:, -1]
    sign = np.sign(np.dot(ref, np.asarray(eigvec)))
    np.testing.assert_allclose(sign * np.asarray(eigvec), ref, atol=1e-3)
    np.testing.assert_allclose(np.linalg.norm(eigvec), 1.0, rtol=1e-5)

  def test_matvec_on_a_pytree(self):
    matrix = _spd(4, seed=1)
    eigvals, _ = np.linalg.eigh(matrix)
    m = jnp.asarray(matrix, jnp.float32)

    def matvec(tree):
      flat = jnp.concatenate([tree['x'], tree['y']])
      out = m @ flat
      return {'x': out[:2], 'y': out[2:]}

    v0 = {'x': jnp.ones(2), 'y': jnp.ones(2)}
    eigval, eigvec = linear_algebra.power_iteration(matvec, v0=v0)
    np.testing.assert_allclose(eigval, eigvals[-1], rtol=1e-4)
    self.assertEqual(jax.tree.structure(eigvec), jax.tree.structure(v0))

  def test_callable_without_v0_raises(self):
    with self.assertRaisesRegex(ValueError, 'v0'):
      linear_algebra.power_iteration(lambda v: v)

  def test_num_iters_limits_the_work(self):
    matrix = jnp.asarray(_spd(5, seed=3), jnp.float32)
    v0 = jnp.ones(5)
    # After zero iterations the eigenvector is the normalized image of v0
    # and the eigenvalue estimate is still the initial 0.
    eigval, eigvec = linear_algebra.power_iteration(
        matrix, v0=v0, num_iters=0)
    self.assertEqual(float(eigval), 0.0)
    image = np.asarray(matrix) @ (np.ones(5) / np.sqrt(5))
    np.testing.assert_allclose(
        eigvec, image / np.linalg.norm(image), rtol=1e-5)

  def test_key_changes_the_start_only(self):
    matrix = jnp.asarray(_spd(4, seed=4), jnp.float32)
    a = linear_algebra.power_iteration(matrix, key=jax.random.PRNGKey(1))
    b = linear_algebra.power_iteration(matrix, key=jax.random.PRNGKey(2))
    np.testing.assert_allclose(a[0], b[0], rtol=1e-4)


class PowerIterationCondFunTest(absltest.TestCase):
  """Tests of the stopping rule of power_iteration."""

  def test_stops_on_an_eigenpair(self):
    matrix = _spd(6, seed=0)
    eigvals, eigvecs = np.linalg.eigh(matrix)
    vec = jnp.asarray(eigvecs[:, -1], jnp.float32)
    val = jnp.asarray(eigvals[-1], jnp.float32)
    loop_vars = (vec, vec * val, val, 10)
    self.assertFalse(
        bool(linear_algebra._power_iteration_cond_fun(1e-3, 100, loop_vars)))

  def test_continues_away_from_an_eigenpair(self):
    vec = jnp.ones(3) / jnp.sqrt(3.0)
    loop_vars = (vec, vec * 2.1 + jnp.array([0.0, 0.1, 0.0]), 2.0, 10)
    self.assertTrue(
        bool(linear_algebra._power_iteration_cond_fun(1e-3, 100, loop_vars)))

  def test_stops_at_num_iters(self):
    vec = jnp.ones(3) / jnp.sqrt(3.0)
    loop_vars = (vec, vec * 2.1 + jnp.array([0.0, 0.1, 0.0]), 2.0, 100)
    self.assertFalse(
        bool(linear_algebra._power_iteration_cond_fun(1e-3, 100, loop_vars)))


def _inverse_pth_root_ref(matrix, p, ridge_epsilon=1e-6):
  eigvals, eigvecs = np.linalg.eigh(matrix)
  ridge = ridge_epsilon * max(eigvals[-1], 1e-16)
  return (eigvecs * (eigvals + ridge) ** (-1.0 / p)) @ eigvecs.T


class MatrixInversePthRootTest(parameterized.TestCase):
  """Tests of matrix_inverse_pth_root against an eigh reference."""

  @parameterized.product(p=(1, 2, 3, 4, 8), use_jit=(True, False))
  def test_matches_eigh(self, p, use_jit):
    matrix = _spd(5, seed=p)
    fn = linear_algebra.matrix_inverse_pth_root
    if use_jit:
      fn = jax.jit(fn, static_argnames=('p',))
    root, error = fn(jnp.asarray(matrix, jnp.float32), p=p)
    np.testing.assert_allclose(
        root, _inverse_pth_root_ref(matrix, p), rtol=2e-4, atol=2e-5)
    self.assertLess(float(error), 1e-4)
    self.assertEqual(root.dtype, jnp.float32)

  def test_one_by_one(self):
    root, error = linear_algebra.matrix_inverse_pth_root(
        jnp.array([[4.0]]), 2)
    np.testing.assert_allclose(root, [[(4.0 * (1 + 1e-6)) ** -0.5]],
                               rtol=1e-6)
    self.assertEqual(float(error), 0.0)

  def test_keeps_bfloat16(self):
    matrix = _spd(4, seed=7)
    root, _ = linear_algebra.matrix_inverse_pth_root(
        jnp.asarray(matrix, jnp.bfloat16), 2)
    self.assertEqual(root.dtype, jnp.bfloat16)
    np.testing.assert_allclose(
        np.asarray(root, np.float32), _inverse_pth_root_ref(matrix, 2),
        rtol=3e-2, atol=3e-2)

  def test_early_stop_returns_a_partial_root(self):
    matrix = _spd(4, seed=8, spread=10.0)
    root, error = linear_algebra.matrix_inverse_pth_root(
        jnp.asarray(matrix, jnp.float32), 2, num_iters=1)
    self.assertGreater(float(error), 1e-4)
    self.assertTrue(np.all(np.isfinite(root)))

  @parameterized.parameters(1, 2, 3, 5, 6, 8, 12)
  def test_traced_p_matches_python_int(self, p):
    # p an argument of the jitted function (traced, int32): the same
    # products as for the Python int, so the same bits.
    matrix = jnp.asarray(_spd(5, seed=p), jnp.float32)
    want_root, want_error = linear_algebra.matrix_inverse_pth_root(matrix, p)
    root, error = jax.jit(linear_algebra.matrix_inverse_pth_root)(
        matrix, jnp.asarray(p, jnp.int32))
    np.testing.assert_array_equal(root, want_root)
    np.testing.assert_array_equal(error, want_error)
    self.assertEqual(root.dtype, jnp.float32)

  def test_traced_p_hand_checked_root(self):
    # q = I - 2/3 * ones(3, 3) is a symmetric reflection (q @ q = I), so
    # m = q diag(1, 1.5**p, 2**p) q has the inverse p-th root
    # q diag(1, 1 / 1.5, 1 / 2) q for every p; no ridge. p = 3 and 6 under
    # jit with p traced, and under vmap over p = 1..6.
    q = np.eye(3) - 2.0 / 3.0 * np.ones((3, 3))
    want = q @ np.diag([1.0, 1.0 / 1.5, 0.5]) @ q

    def matrix(p):
      return jnp.asarray(q @ np.diag([1.0, 1.5**p, 2.0**p]) @ q, jnp.float32)

    fn = jax.jit(functools.partial(
        linear_algebra.matrix_inverse_pth_root, ridge_epsilon=0.0))
    for p in (3, 6):
      root, error = fn(matrix(p), jnp.asarray(p))
      np.testing.assert_allclose(root, want, atol=1e-6)
      self.assertLess(float(error), 1e-5)
    ps = np.arange(1, 7)
    roots, _ = jax.vmap(fn)(jnp.stack([matrix(p) for p in ps]),
                            jnp.asarray(ps))
    np.testing.assert_allclose(roots, np.broadcast_to(want, (6, 3, 3)),
                               atol=1e-6)

  @parameterized.parameters(0, -2, 2.5)
  def test_invalid_p_raises(self, p):
    with self.assertRaisesRegex(ValueError, 'p must be a positive integer'):
      linear_algebra.matrix_inverse_pth_root(jnp.eye(2), p)


def _fista_ref(a, b, iters, lipschitz):
  """Projected FISTA for min 0.5 |Ax - b|^2, x >= 0, from t_0 = 0."""
  gram, atb = a.T @ a, a.T @ b
  x = np.zeros(a.shape[1])
  y = x.copy()
  t = 0.0
  for _ in range(iters):
    t_next = (1 + np.sqrt(1 + 4 * t * t)) / 2
    x_next = np.maximum(y - (gram @ y - atb) / lipschitz, 0)
    y = x_next + (t - 1) / t_next * (x_next - x)
    x, t = x_next, t_next
  return x


class NNLSTest(parameterized.TestCase):
  """Tests of nnls against SciPy and a NumPy FISTA."""

  def _problem(self, seed, m=8, n=4):
    rng = np.random.RandomState(seed)
    a = rng.randn(m, n)
    x_true = np.maximum(rng.randn(n), 0)
    b = a @ x_true + 0.3 * rng.randn(m)
    return a, b

  @parameterized.product(seed=(0, 1, 2), use_jit=(True, False))
  def test_converges_to_scipy(self, seed, use_jit):
    a, b = self._problem(seed)
    expected, _ = scipy.optimize.nnls(a, b)
    fn = linear_algebra.nnls
    if use_jit:
      fn = jax.jit(fn, static_argnames=('iters',))
    got = fn(jnp.asarray(a, jnp.float32), jnp.asarray(b, jnp.float32),
             iters=3000)
    np.testing.assert_allclose(got, expected, atol=1e-3)
    self.assertTrue(np.all(np.asarray(got) >= 0))

  @parameterized.parameters(1, 2, 3, 10)
  def test_iterates_match_numpy_fista(self, iters):
    a, b = self._problem(5)
    gram = a.T @ a
    lipschitz = min(np.linalg.norm(gram, 'fro'), np.linalg.norm(gram, 1))
    got = linear_algebra.nnls(
        jnp.asarray(a, jnp.float32), jnp.asarray(b, jnp.float32), iters)
    np.testing.assert_allclose(
        got, _fista_ref(a, b, iters, lipschitz), rtol=1e-4, atol=1e-5)

  def test_explicit_lipschitz_and_unroll(self):
    a, b = self._problem(6)
    got = linear_algebra.nnls(
        jnp.asarray(a, jnp.float32), jnp.asarray(b, jnp.float32), 7,
        unroll=2, L=50.0)
    np.testing.assert_allclose(
        got, _fista_ref(a, b, 7, 50.0), rtol=1e-4, atol=1e-5)

  def test_zero_matrix_gives_zero(self):
    got = linear_algebra.nnls(jnp.zeros((3, 2)), jnp.ones(3), 5)
    np.testing.assert_array_equal(got, np.zeros(2))


if __name__ == '__main__':
  absltest.main()
