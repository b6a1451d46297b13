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
"""projection_box takes a scalar bound on a tree.

``projection_box`` documents ``lower`` and ``upper`` as "a scalar or tree
with the same structure as tree"; upstream (0.2.8, main at 2edbcbe2; pull
request #1724) mapped ``jnp.clip`` over ``tree``, ``lower`` and ``upper`` as
trees of one structure, so a scalar bound on any tree that is not a single
array raised a pytree structure ``ValueError``; ``projection_hypercube``
with its default ``scale=1`` called it with the scalar bounds 0 and 1 and
raised too. A scalar bound applies to every entry
of every leaf.
"""

from absl.testing import absltest
from absl.testing import parameterized
import jax
import jax.numpy as jnp
import numpy as np
from optax import projections as proj


def _scalar_bounds_tree():
  return {
      'w': jnp.array([2.0, -1.0, 0.5]),
      'b': jnp.array(5.0),
      'c': (jnp.array([[-3.0, 0.25]]),),
  }


class ProjectionBoxScalarBoundsTest(parameterized.TestCase):

  @parameterized.named_parameters(('eager', False), ('jit', True))
  def test_projection_box_scalar_bounds_on_a_tree(self, use_jit):
    fn = jax.jit(proj.projection_box) if use_jit else proj.projection_box
    tree = _scalar_bounds_tree()
    # Each entry clipped to [0, 1]: 2 -> 1, -1 -> 0, 5 -> 1, -3 -> 0; the
    # entries inside the box (0.5, 0.25) are kept.
    got = fn(tree, 0.0, 1.0)
    np.testing.assert_array_equal(got['w'], [1.0, 0.0, 0.5])
    np.testing.assert_array_equal(got['b'], 1.0)
    np.testing.assert_array_equal(got['c'][0], [[0.0, 0.25]])
    # 0-d array bounds are scalars too: each entry clipped to [-0.5, 0.5].
    got = fn(tree, jnp.float32(-0.5), jnp.float32(0.5))
    np.testing.assert_array_equal(got['w'], [0.5, -0.5, 0.5])
    np.testing.assert_array_equal(got['b'], 0.5)
    np.testing.assert_array_equal(got['c'][0], [[-0.5, 0.25]])

  @parameterized.named_parameters(('eager', False), ('jit', True))
  def test_projection_hypercube_scalar_scale_on_a_tree(self, use_jit):
    fn = (
        jax.jit(proj.projection_hypercube)
        if use_jit
        else proj.projection_hypercube
    )
    tree = _scalar_bounds_tree()
    # The default scale=1: each entry clipped to [0, 1].
    got = fn(tree)
    np.testing.assert_array_equal(got['w'], [1.0, 0.0, 0.5])
    np.testing.assert_array_equal(got['b'], 1.0)
    np.testing.assert_array_equal(got['c'][0], [[0.0, 0.25]])
    # scale=0.5: each entry clipped to [0, 0.5].
    got = fn(tree, 0.5)
    np.testing.assert_array_equal(got['w'], [0.5, 0.0, 0.5])
    np.testing.assert_array_equal(got['b'], 0.5)
    np.testing.assert_array_equal(got['c'][0], [[0.0, 0.25]])


if __name__ == '__main__':
  absltest.main()
