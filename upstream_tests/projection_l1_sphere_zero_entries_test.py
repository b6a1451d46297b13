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
"""projection_l1_sphere lands on the sphere when the point has zero entries.

The closest point ``y`` of the l1 sphere ``{||y||_1 = s}`` to ``x`` takes
the signs of ``x``; with ``u = |y|`` the problem is the projection of
``|x|`` onto the simplex of mass ``s``. Inside the ball that projection
adds mass to every entry, the zero ones included, and a zero entry of ``x``
may take either sign. Upstream (0.2.8, main at 2edbcbe2) multiplied the
simplex projection by ``sign(x)``, which is 0 at a zero entry: the mass given
to it was dropped, so the result was not on the sphere (``[0.5, 0, 0]``
with ``s = 1`` gave ``[2/3, 0, 0]``, of l1 norm 2/3) and the origin went to
the origin.
"""

from absl.testing import absltest
from absl.testing import parameterized
import jax
import jax.numpy as jnp
import numpy as np
from optax import projections as proj


class ProjectionL1SphereZeroEntriesTest(parameterized.TestCase):

  @parameterized.named_parameters(('eager', False), ('jit', True))
  def test_projection_l1_sphere_with_zero_entries(self, use_jit):
    fn = (
        jax.jit(proj.projection_l1_sphere)
        if use_jit
        else proj.projection_l1_sphere
    )
    # |x| = (0.5, 0, 0) onto the unit simplex: each entry gains
    # (1 - 0.5) / 3 = 1/6.
    np.testing.assert_allclose(
        fn(jnp.array([0.5, 0.0, 0.0])), [2 / 3, 1 / 6, 1 / 6], rtol=1e-6
    )
    # A negative entry keeps its sign: (-0.5, 0) with s = 2 gains 0.75 each.
    np.testing.assert_allclose(
        fn(jnp.array([-0.5, 0.0]), 2.0), [-1.25, 0.75], rtol=1e-6
    )
    # The closest points of the sphere to the origin have equal entries.
    np.testing.assert_allclose(
        fn(jnp.zeros(4), 2.0), [0.5, 0.5, 0.5, 0.5], rtol=1e-6
    )

  def test_projection_l1_sphere_zero_leaf_of_a_tree(self):
    tree = {'a': jnp.array([0.25, -0.25]), 'b': jnp.zeros(2)}
    got = proj.projection_l1_sphere(tree, 1.0)
    # Each of the four entries gains (1 - 0.5) / 4 = 0.125 in modulus.
    np.testing.assert_allclose(got['a'], [0.375, -0.375], rtol=1e-6)
    np.testing.assert_allclose(got['b'], [0.125, 0.125], rtol=1e-6)


if __name__ == '__main__':
  absltest.main()
