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
"""Tests for the projections of optax.projections._projections.

Every projection is checked for feasibility and optimality against an
independent reference: a closed form or a root-finding solution written here
in NumPy/SciPy, a generic constrained solver (SciPy's SLSQP), and the
variational inequality that characterises a projection onto a convex set,
<x - p, y - p> <= 0 for every feasible y.
"""

import functools

from absl.testing import absltest
from absl.testing import parameterized
import jax
import jax.flatten_util
import jax.numpy as jnp
import numpy as np
from scipy import optimize

from optax.projections import _projections as proj


def _flat(tree):
  return np.asarray(jax.flatten_util.ravel_pytree(tree)[0], np.float64)


# NumPy references ------------------------------------------------------------


def _np_simplex(x, s):
  """Projection on {y >= 0, sum y = s}: y = max(x - tau, 0), tau by brentq."""
  x = np.asarray(x, np.float64)
  mass = lambda tau: np.maximum(x - tau, 0).sum() - s
  tau = optimize.brentq(mass, x.min() - s - 1, x.max() + 1, xtol=1e-14)
  return np.maximum(x - tau, 0)


def _np_l1_ball(x, s):
  x = np.asarray(x, np.float64)
  if np.abs(x).sum() <= s:
    return x
  return np.sign(x) * _np_simplex(np.abs(x), s)


def _np_l2_ball(x, s):
  x = np.asarray(x, np.float64)
  n = np.linalg.norm(x)
  return x if n <= s else x * s / n


def _slsqp(x, constraints, bounds=None):
  """Solves min ||y - x||^2 under `constraints` with a generic solver."""
  x = np.asarray(x, np.float64)
  res = optimize.minimize(
      lambda y: 0.5 * np.sum((y - x) ** 2), x0=np.zeros_like(x),
      jac=lambda y: y - x, constraints=constraints, bounds=bounds,
      method='SLSQP', options={'ftol': 1e-14, 'maxiter': 500})
  return res.x


def _random_tree(rng, scale=1.0):
  return {
      'w': jnp.asarray(rng.normal(size=(2, 3)) * scale, jnp.float32),
      'b': jnp.asarray(rng.normal(size=(4,)) * scale, jnp.float32),
      'c': jnp.asarray(rng.normal() * scale, jnp.float32),
  }


class SimplexTest(parameterized.TestCase):
  """Projection onto the simplex."""

  @parameterized.product(seed=[0, 1], scale=[1.0, 0.3, 4.0],
                         magnitude=[0.1, 10.0], use_jit=[False, True])
  def test_matches_root_finding_reference(self, seed, scale, magnitude,
                                          use_jit):
    rng = np.random.default_rng(seed)
    x = jnp.asarray(rng.normal(size=17) * magnitude, jnp.float32)
    fn = proj.projection_simplex
    if use_jit:
      fn = jax.jit(fn)
    p = np.asarray(fn(x, scale), np.float64)
    np.testing.assert_allclose(p, _np_simplex(x, scale), atol=1e-5 * scale)
    # Feasibility.
    self.assertGreaterEqual(p.min(), 0.0)
    np.testing.assert_allclose(p.sum(), scale, rtol=1e-5)

  def test_matches_generic_solver(self):
    rng = np.random.default_rng(3)
    x = rng.normal(size=6)
    expected = _slsqp(
        x, [{'type': 'eq', 'fun': lambda y: y.sum() - 2.0}],
        bounds=[(0, None)] * 6)
    p = proj.projection_simplex(jnp.asarray(x, jnp.float32), 2.0)
    np.testing.assert_allclose(p, expected, atol=1e-5)

  def test_kkt_conditions(self):
    # p = max(x - tau, 0): on the support x - p is the constant tau, off the
    # support x <= tau.
    rng = np.random.default_rng(4)
    x = rng.normal(size=30)
    p = np.asarray(proj.projection_simplex(jnp.asarray(x, jnp.float32)))
    support = p > 0
    tau = (x - p)[support]
    np.testing.assert_allclose(tau, tau.mean(), atol=1e-5)
    self.assertTrue(np.all(x[~support] <= tau.mean() + 1e-5))

  def test_pytree_is_projected_as_one_vector(self):
    tree = _random_tree(np.random.default_rng(5))
    p = proj.projection_simplex(tree, 3.0)
    self.assertEqual(jax.tree.structure(p), jax.tree.structure(tree))
    np.testing.assert_allclose(
        _flat(p), _np_simplex(_flat(tree), 3.0), atol=1e-5)

  def test_already_on_simplex_is_fixed_point(self):
    x = jnp.array([0.2, 0.0, 0.5, 0.3])
    np.testing.assert_allclose(proj.projection_simplex(x), x, atol=1e-7)

  def test_jacobian(self):
    # On the support S the projection is x - (sum_S x - s) / |S|, so its
    # Jacobian is diag(1_S) - 1_S 1_S^T / |S|.
    x = jnp.array([0.5, 0.4, -1.0, 0.45])
    jac = jax.jacobian(proj.projection_simplex)(x)
    support = np.array([1.0, 1.0, 0.0, 1.0])
    expected = np.diag(support) - np.outer(support, support) / support.sum()
    np.testing.assert_allclose(jac, expected, atol=1e-6)

  def test_dtypes(self):
    x = jnp.array([0.5, 2.0, -1.0], jnp.bfloat16)
    self.assertEqual(proj.projection_simplex(x).dtype, jnp.bfloat16)
    self.assertEqual(
        proj.projection_simplex(jnp.array([1, 2])).dtype, jnp.float32)
    np.testing.assert_allclose(
        proj.projection_simplex(jnp.array([1, 2])), [0.0, 1.0])


class L1Test(parameterized.TestCase):
  """Projections onto the l1 ball and sphere."""

  @parameterized.product(seed=[0, 1, 2], scale=[0.5, 1.0, 30.0],
                         use_jit=[False, True])
  def test_ball_matches_reference(self, seed, scale, use_jit):
    tree = _random_tree(np.random.default_rng(seed))
    fn = proj.projection_l1_ball
    if use_jit:
      fn = jax.jit(fn)
    p = fn(tree, scale)
    expected = _np_l1_ball(_flat(tree), scale)
    np.testing.assert_allclose(_flat(p), expected, atol=1e-5)
    self.assertLessEqual(np.abs(_flat(p)).sum(), scale * (1 + 1e-5))

  @parameterized.parameters(0, 1, 2)
  def test_ball_variational_inequality(self, seed):
    rng = np.random.default_rng(seed)
    x = rng.normal(size=8) * 2
    p = np.asarray(proj.projection_l1_ball(jnp.asarray(x, jnp.float32)),
                   np.float64)
    for _ in range(200):  # Random feasible points, some on the boundary.
      y = rng.normal(size=8)
      y *= rng.uniform(0.5, 1.0) / np.abs(y).sum()
      self.assertLessEqual(np.dot(x - p, y - p), 1e-5)

  def test_ball_matches_generic_solver(self):
    x = np.array([0.8, -1.5, 0.3, 0.05])
    # |y|_1 <= 1 as a smooth problem: y = u - v, u, v >= 0, sum(u + v) <= 1.
    res = optimize.minimize(
        lambda z: 0.5 * np.sum((z[:4] - z[4:] - x) ** 2), np.zeros(8),
        constraints=[{'type': 'ineq', 'fun': lambda z: 1 - z.sum()}],
        bounds=[(0, None)] * 8, method='SLSQP',
        options={'ftol': 1e-14, 'maxiter': 500})
    expected = res.x[:4] - res.x[4:]
    p = proj.projection_l1_ball(jnp.asarray(x, jnp.float32))
    np.testing.assert_allclose(p, expected, atol=1e-5)

  def test_ball_inside_is_unchanged(self):
    x = {'a': jnp.array([0.1, -0.2]), 'b': jnp.array(0.3)}
    p = proj.projection_l1_ball(x)
    np.testing.assert_array_equal(p['a'], x['a'])
    np.testing.assert_array_equal(p['b'], x['b'])

  @parameterized.parameters(0.5, 1.0, 2.0)
  def test_sphere(self, scale):
    x = np.array([0.1, -0.2, 0.05, 3.0, -0.02])
    p = np.asarray(proj.projection_l1_sphere(jnp.asarray(x, jnp.float32),
                                             scale))
    np.testing.assert_allclose(np.abs(p).sum(), scale, rtol=1e-6)
    np.testing.assert_allclose(
        p, np.sign(x) * _np_simplex(np.abs(x), scale), atol=1e-6)
    # Points inside the ball are pushed out to the sphere as well.
    small = jnp.array([0.1, -0.1])
    np.testing.assert_allclose(
        proj.projection_l1_sphere(small, scale), [scale / 2, -scale / 2],
        rtol=1e-6)

  def test_signs_and_dtype(self):
    x = jnp.array([2.0, -3.0, 0.0], jnp.bfloat16)
    p = proj.projection_l1_ball(x)
    self.assertEqual(p.dtype, jnp.bfloat16)
    np.testing.assert_allclose(np.asarray(p, np.float32), [0.0, -1.0, 0.0])


class L2Test(parameterized.TestCase):
  """Projections onto the l2 ball and sphere."""

  @parameterized.product(seed=[0, 1], scale=[0.5, 1.0, 100.0],
                         use_jit=[False, True])
  def test_ball(self, seed, scale, use_jit):
    tree = _random_tree(np.random.default_rng(seed))
    fn = proj.projection_l2_ball
    if use_jit:
      fn = jax.jit(fn)
    p = fn(tree, scale)
    np.testing.assert_allclose(
        _flat(p), _np_l2_ball(_flat(tree), scale), rtol=1e-6, atol=1e-7)
    self.assertLessEqual(np.linalg.norm(_flat(p)), scale * (1 + 1e-6))

  def test_ball_matches_generic_solver(self):
    x = np.array([1.0, -2.0, 0.5])
    expected = _slsqp(
        x, [{'type': 'ineq', 'fun': lambda y: 1.5 ** 2 - np.sum(y ** 2)}])
    p = proj.projection_l2_ball(jnp.asarray(x, jnp.float32), 1.5)
    np.testing.assert_allclose(p, expected, atol=1e-5)

  def test_ball_gradient_is_finite_at_origin(self):
    grad = jax.grad(lambda x: proj.projection_l2_ball(x)[0])(jnp.zeros(3))
    np.testing.assert_array_equal(grad, [1.0, 0.0, 0.0])
    grads = jax.vmap(jax.grad(lambda x: proj.projection_l2_ball(x)[0]))(
        jnp.zeros((2, 3)))
    np.testing.assert_array_equal(grads, [[1.0, 0.0, 0.0]] * 2)

  def test_ball_jacobian_outside(self):
    # For |x| > s the projection is s x / |x|, of Jacobian
    # s / |x| (I - x x^T / |x|^2).
    x = np.array([1.0, -0.2, 0.1])
    n = np.linalg.norm(x)
    expected = (np.eye(3) - np.outer(x, x) / n ** 2) / n
    jac = jax.jacobian(proj.projection_l2_ball)(jnp.asarray(x, jnp.float32))
    np.testing.assert_allclose(jac, expected, rtol=1e-5, atol=1e-6)

  def test_sphere(self):
    tree = _random_tree(np.random.default_rng(2), scale=0.01)
    p = proj.projection_l2_sphere(tree, 2.0)
    flat = _flat(tree)
    np.testing.assert_allclose(_flat(p), 2.0 * flat / np.linalg.norm(flat),
                               rtol=1e-6)

  def test_dtype_is_kept(self):
    x = jnp.array([3.0, 4.0], jnp.bfloat16)
    self.assertEqual(proj.projection_l2_ball(x).dtype, jnp.bfloat16)
    self.assertEqual(proj.projection_l2_sphere(x).dtype, jnp.bfloat16)
    np.testing.assert_allclose(
        np.asarray(proj.projection_l2_ball(x), np.float32), [0.6, 0.8],
        rtol=1e-2)


class BoxTest(parameterized.TestCase):
  """Box, hypercube, linf ball and non-negative orthant."""

  @parameterized.parameters(False, True)
  def test_box_with_tree_bounds(self, use_jit):
    tree = {'a': jnp.array([-2.0, 0.5, 3.0]), 'b': jnp.array(-1.0)}
    lower = {'a': jnp.array([-1.0, 0.0, 0.0]), 'b': -0.5}
    upper = {'a': jnp.array([1.0, 0.2, 4.0]), 'b': 0.5}
    fn = proj.projection_box
    if use_jit:
      fn = jax.jit(fn)
    p = fn(tree, lower, upper)
    np.testing.assert_allclose(p['a'], [-1.0, 0.2, 3.0], rtol=1e-7)
    np.testing.assert_array_equal(p['b'], -0.5)

  @parameterized.parameters(False, True)
  def test_scalar_bounds_on_a_tree_pull_1724(self, use_jit):
    # A scalar bound applies to every entry of every leaf (the docstring's
    # "a scalar or a pytree like tree"); upstream maps over it as a tree and
    # raises ValueError on any tree that is not a single array.
    tree = {'a': jnp.array([-2.0, 0.5, 3.0]), 'b': jnp.array(-1.0),
            'c': (jnp.array([[0.25, 7.0]]),)}
    box = proj.projection_box
    cube = proj.projection_hypercube
    if use_jit:
      box, cube = jax.jit(box), jax.jit(cube)
    # Clipped to [-1, 1] by hand: -2 -> -1, 3 -> 1, 7 -> 1.
    p = box(tree, -1.0, 1.0)
    np.testing.assert_array_equal(p['a'], [-1.0, 0.5, 1.0])
    np.testing.assert_array_equal(p['b'], -1.0)
    np.testing.assert_array_equal(p['c'][0], [[0.25, 1.0]])
    # 0-d array bounds, [0, 0.5]: -2 -> 0, 3 -> 0.5, -1 -> 0, 7 -> 0.5.
    p = box(tree, jnp.float32(0.0), jnp.float32(0.5))
    np.testing.assert_array_equal(p['a'], [0.0, 0.5, 0.5])
    np.testing.assert_array_equal(p['b'], 0.0)
    np.testing.assert_array_equal(p['c'][0], [[0.25, 0.5]])
    # projection_hypercube's default scale=1: [0, 1].
    p = cube(tree)
    np.testing.assert_array_equal(p['a'], [0.0, 0.5, 1.0])
    np.testing.assert_array_equal(p['b'], 0.0)
    np.testing.assert_array_equal(p['c'][0], [[0.25, 1.0]])
    self.assertEqual(jax.tree.structure(p), jax.tree.structure(tree))

  def test_matches_generic_solver(self):
    x = np.array([-2.0, 0.3, 5.0])
    expected = _slsqp(x, [], bounds=[(-1.0, 2.0)] * 3)
    np.testing.assert_allclose(
        proj.projection_box(jnp.asarray(x, jnp.float32), -1.0, 2.0),
        expected, atol=1e-6)

  def test_hypercube_and_linf_ball(self):
    tree = {'a': jnp.array([-2.0, 0.5, 3.0]), 'b': jnp.array(1.5)}
    cube = proj.projection_hypercube(tree, 2.0)
    np.testing.assert_array_equal(cube['a'], [0.0, 0.5, 2.0])
    np.testing.assert_array_equal(cube['b'], 1.5)
    ball = proj.projection_linf_ball(tree)
    np.testing.assert_array_equal(ball['a'], [-1.0, 0.5, 1.0])
    np.testing.assert_array_equal(ball['b'], 1.0)
    ball = proj.projection_linf_ball(tree, {'a': 0.25, 'b': 2.0})
    np.testing.assert_array_equal(ball['a'], [-0.25, 0.25, 0.25])
    np.testing.assert_array_equal(ball['b'], 1.5)

  def test_non_negative(self):
    tree = {'a': jnp.array([-2.0, 0.0, 3.0]), 'b': jnp.array([-1, 2])}
    p = proj.projection_non_negative(tree)
    np.testing.assert_array_equal(p['a'], [0.0, 0.0, 3.0])
    np.testing.assert_array_equal(p['b'], [0, 2])
    self.assertEqual(p['b'].dtype, tree['b'].dtype)

  def test_dtype_is_kept(self):
    x = jnp.array([-2.0, 0.5], jnp.bfloat16)
    self.assertEqual(
        proj.projection_box(x, jnp.array(0.0), jnp.array(1.0)).dtype,
        jnp.bfloat16)


class AffineTest(parameterized.TestCase):
  """Hyperplane, halfspace and line projections."""

  @parameterized.product(seed=[0, 1, 2], use_jit=[False, True])
  def test_hyperplane(self, seed, use_jit):
    rng = np.random.default_rng(seed)
    x = _random_tree(rng)
    a = _random_tree(rng)
    b = 0.7
    fn = proj.projection_hyperplane
    if use_jit:
      fn = jax.jit(fn)
    p = _flat(fn(x, a, b))
    fx, fa = _flat(x), _flat(a)
    np.testing.assert_allclose(np.dot(fa, p), b, atol=1e-5)
    expected = _slsqp(fx, [{'type': 'eq', 'fun': lambda y: fa @ y - b}])
    np.testing.assert_allclose(p, expected, atol=1e-5)
    # x - p is normal to the hyperplane.
    residual = fx - p
    np.testing.assert_allclose(
        residual, np.dot(residual, fa) / np.dot(fa, fa) * fa, atol=1e-5)

  @parameterized.parameters(-5.0, 0.0, 5.0)
  def test_halfspace(self, b):
    rng = np.random.default_rng(7)
    fx = rng.normal(size=5)
    fa = rng.normal(size=5)
    p = np.asarray(proj.projection_halfspace(
        jnp.asarray(fx, jnp.float32), jnp.asarray(fa, jnp.float32), b))
    expected = _slsqp(fx, [{'type': 'ineq', 'fun': lambda y: b - fa @ y}])
    np.testing.assert_allclose(p, expected, atol=1e-5)
    self.assertLessEqual(np.dot(fa, p), b + 1e-5)
    if np.dot(fa, fx) <= b:
      np.testing.assert_array_equal(p, np.asarray(fx, np.float32))

  def test_vector(self):
    rng = np.random.default_rng(8)
    x = _random_tree(rng)
    a = _random_tree(rng)
    p = _flat(proj.projection_vector(x, a))
    fx, fa = _flat(x), _flat(a)
    # Closest multiple of a: minimise |t a - x|^2 over t.
    t = optimize.minimize_scalar(lambda t: np.sum((t * fa - fx) ** 2)).x
    np.testing.assert_allclose(p, t * fa, atol=1e-5)

  def test_complex_vector(self):
    # The projection on span(a) in C^n is (a^H x / a^H a) a.
    x = jnp.array([3.0 + 1.0j, 4.0])
    a = jnp.array([1.0j, 1.0])
    an, xn = np.asarray(a), np.asarray(x)
    expected = np.vdot(an, xn) / np.vdot(an, an) * an
    np.testing.assert_allclose(proj.projection_vector(x, a), expected,
                               rtol=1e-6)

  def test_dtype_is_kept(self):
    x = jnp.array([3.0, 4.0], jnp.bfloat16)
    a = jnp.array([1.0, 1.0])
    self.assertEqual(proj.projection_hyperplane(x, a, 1.0).dtype,
                     jnp.bfloat16)
    self.assertEqual(proj.projection_halfspace(x, a, 1.0).dtype,
                     jnp.bfloat16)
    self.assertEqual(proj.projection_vector(x, a).dtype, jnp.bfloat16)


class CommonTest(parameterized.TestCase):
  """Properties shared by every projection."""

  @parameterized.named_parameters(
      ('simplex', functools.partial(proj.projection_simplex, scale=2.0)),
      ('l1_ball', proj.projection_l1_ball),
      ('l1_sphere', proj.projection_l1_sphere),
      ('l2_ball', proj.projection_l2_ball),
      ('l2_sphere', proj.projection_l2_sphere),
      ('linf_ball', proj.projection_linf_ball),
      ('hypercube', proj.projection_hypercube),
      ('non_negative', proj.projection_non_negative),
  )
  def test_idempotent_and_structure(self, fn):
    tree = _random_tree(np.random.default_rng(11), scale=3.0)
    once = fn(tree)
    twice = fn(once)
    self.assertEqual(jax.tree.structure(once), jax.tree.structure(tree))
    for leaf, x in zip(jax.tree.leaves(once), jax.tree.leaves(tree)):
      self.assertEqual(leaf.shape, x.shape)
      self.assertEqual(leaf.dtype, x.dtype)
    np.testing.assert_allclose(_flat(twice), _flat(once), atol=1e-6)


if __name__ == '__main__':
  absltest.main()
