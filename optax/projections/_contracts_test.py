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
"""The projections against their definition: the closest point of a set.

For each set the result lands in the set, is a fixed point (projecting it
again changes nothing), and is the float64 oracle's point (or, where the
closest point is not unique, as close to the input as the oracle's). Points
inside, outside and on the boundary, ties, zero entries and pytrees of
several leaves are swept.
"""

from absl.testing import absltest
from absl.testing import parameterized
import jax
import jax.flatten_util
import jax.numpy as jnp
import numpy as np

from optax import projections as proj
from optax._src.testing import reference_math as ref

_POINTS = {
    'random': np.array([0.9, -1.7, 0.3, 2.2, -0.4]),
    'inside': np.array([0.1, -0.2, 0.05, 0.0, 0.15]),
    'ties': np.array([1.0, 1.0, 1.0, -1.0, 1.0]),
    'zeros_outside': np.array([3.0, 0.0, 0.0, -2.0, 0.0]),
    'zeros_inside': np.array([0.5, 0.0, 0.0, 0.0, 0.0]),
    'boundary_l1': np.array([0.25, -0.25, 0.5, 0.0, 0.0]),
    'all_zero': np.zeros(5),
}


def _split(x):
  """A two-leaf pytree holding the entries of ``x``."""
  return {'a': jnp.asarray(x[:2], jnp.float32),
          'b': jnp.asarray(x[2:].reshape(1, -1), jnp.float32)}


def _flat(tree):
  return np.asarray(jax.flatten_util.ravel_pytree(tree)[0], np.float64)


class SimplexTest(parameterized.TestCase):

  @parameterized.product(point=sorted(_POINTS), scale=(1.0, 0.5, 3.0))
  def test_matches_bisection_oracle(self, point, scale):
    x = _POINTS[point]
    got = _flat(proj.projection_simplex(_split(x), scale))
    want = ref.projection_simplex(x, scale)
    np.testing.assert_allclose(got, want, atol=1e-6)
    self.assertTrue(np.all(got >= 0))
    np.testing.assert_allclose(got.sum(), scale, rtol=1e-6)
    again = _flat(proj.projection_simplex(_split(got), scale))
    np.testing.assert_allclose(again, got, atol=1e-6)

  def test_empty_tree(self):
    self.assertEqual(proj.projection_simplex({}), {})


class L1Test(parameterized.TestCase):

  @parameterized.product(point=sorted(_POINTS), scale=(1.0, 0.5, 3.0))
  def test_l1_ball(self, point, scale):
    x = _POINTS[point]
    got = _flat(proj.projection_l1_ball(_split(x), scale))
    np.testing.assert_allclose(
        got, ref.projection_l1_ball(x, scale), atol=1e-6)
    self.assertLessEqual(np.abs(got).sum(), scale * (1 + 1e-6))
    again = _flat(proj.projection_l1_ball(_split(got), scale))
    np.testing.assert_allclose(again, got, atol=1e-6)

  @parameterized.product(point=sorted(_POINTS), scale=(1.0, 0.5, 3.0))
  def test_l1_sphere(self, point, scale):
    # Where the closest point is not unique (a zero entry of a point inside
    # the ball), any closest point will do: compare the distances.
    x = _POINTS[point]
    got = _flat(proj.projection_l1_sphere(_split(x), scale))
    want = ref.projection_l1_sphere(x, scale)
    np.testing.assert_allclose(np.abs(got).sum(), scale, rtol=1e-6)
    np.testing.assert_allclose(
        np.linalg.norm(got - x), np.linalg.norm(want - x), atol=1e-6)
    again = _flat(proj.projection_l1_sphere(_split(got), scale))
    np.testing.assert_allclose(again, got, atol=1e-6)


class L2Test(parameterized.TestCase):

  @parameterized.product(point=sorted(_POINTS), scale=(1.0, 0.5, 3.0))
  def test_l2_ball(self, point, scale):
    x = _POINTS[point]
    got = _flat(proj.projection_l2_ball(_split(x), scale))
    np.testing.assert_allclose(
        got, ref.projection_l2_ball(x, scale), atol=1e-6)
    self.assertLessEqual(np.linalg.norm(got), scale * (1 + 1e-6))

  @parameterized.product(
      point=sorted(set(_POINTS) - {'all_zero'}), scale=(1.0, 0.5, 3.0))
  def test_l2_sphere(self, point, scale):
    x = _POINTS[point]
    got = _flat(proj.projection_l2_sphere(_split(x), scale))
    np.testing.assert_allclose(
        got, scale * x / np.linalg.norm(x), atol=1e-6)

  def test_l2_ball_gradient_finite_at_origin(self):
    grad = jax.grad(lambda x: proj.projection_l2_ball(x).sum())(jnp.zeros(3))
    np.testing.assert_allclose(grad, np.ones(3))


class BoxTest(parameterized.TestCase):

  @parameterized.parameters(sorted(_POINTS))
  def test_box_family(self, point):
    x = _POINTS[point]
    tree = _split(x)
    np.testing.assert_allclose(
        _flat(proj.projection_non_negative(tree)), np.maximum(x, 0))
    np.testing.assert_allclose(
        _flat(proj.projection_box(tree, -0.5, 1.0)), np.clip(x, -0.5, 1.0))
    np.testing.assert_allclose(
        _flat(proj.projection_hypercube(tree, 2.0)), np.clip(x, 0, 2.0))
    np.testing.assert_allclose(
        _flat(proj.projection_linf_ball(tree, 0.7)),
        np.clip(x, -0.7, 0.7), rtol=1e-7)

  def test_box_with_pytree_bounds(self):
    x = _POINTS['random']
    lower = _split(np.full(5, -1.0))
    upper = _split(np.array([0.5, 0.5, 1.0, 1.0, 1.0]))
    np.testing.assert_allclose(
        _flat(proj.projection_box(_split(x), lower, upper)),
        np.clip(x, -1.0, [0.5, 0.5, 1.0, 1.0, 1.0]))

  def test_keeps_bfloat16(self):
    x = jnp.array([-1.0, 0.5, 2.0], jnp.bfloat16)
    for fn in (proj.projection_non_negative, proj.projection_hypercube,
               proj.projection_linf_ball, proj.projection_l2_ball):
      self.assertEqual(fn(x).dtype, jnp.bfloat16)


class AffineTest(parameterized.TestCase):

  @parameterized.product(point=('random', 'ties', 'zeros_outside'),
                         b=(-1.0, 0.0, 2.5))
  def test_hyperplane_and_halfspace(self, point, b):
    x = _POINTS[point]
    a = np.array([1.0, -2.0, 0.5, 0.0, 3.0])
    on_plane = x - (a @ x - b) / (a @ a) * a
    got = _flat(proj.projection_hyperplane(_split(x), _split(a), b))
    np.testing.assert_allclose(got, on_plane, atol=1e-5)
    np.testing.assert_allclose(a @ got, b, atol=1e-5)
    got = _flat(proj.projection_halfspace(_split(x), _split(a), b))
    want = x if a @ x <= b else on_plane
    np.testing.assert_allclose(got, want, atol=1e-5)
    self.assertLessEqual(a @ got, b + 1e-5)

  def test_halfspace_boundary_point_is_fixed(self):
    a = np.array([1.0, 1.0, 0.0, 0.0, 0.0])
    x = np.array([0.5, 0.5, 7.0, -1.0, 2.0])
    np.testing.assert_array_equal(
        _flat(proj.projection_halfspace(_split(x), _split(a), 1.0)),
        x.astype(np.float32))

  @parameterized.parameters('random', 'ties', 'all_zero')
  def test_vector(self, point):
    x = _POINTS[point]
    a = np.array([1.0, -2.0, 0.5, 0.0, 3.0])
    got = _flat(proj.projection_vector(_split(x), _split(a)))
    np.testing.assert_allclose(got, (a @ x) / (a @ a) * a, atol=1e-6)
    # The residual is orthogonal to the line.
    np.testing.assert_allclose(a @ (x - got), 0, atol=1e-5)


if __name__ == '__main__':
  absltest.main()
