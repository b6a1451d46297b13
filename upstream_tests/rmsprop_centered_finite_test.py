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
"""scale_by_stddev (centered rmsprop) with bias correction: the first step.

With ``initial_scale=0`` the first bias-corrected variance estimate
``nu_hat - mu_hat ** 2`` is ``g ** 2 - g ** 2 = 0`` in exact arithmetic, so
the update is ``g / sqrt(eps)`` (``g / eps`` with ``eps`` outside the root).
In float32 the estimate is rounding noise; where it is negative the root is
NaN (``decay=0.99`` or ``0.999``: every coordinate; ``decay=0.9`` given as a
float32 array, as ``inject_hyperparams`` gives it: the coordinate 3.0), or,
between ``-eps`` and 0, the update exceeds ``g / sqrt(eps)``. A variance
that is clipped at 0 gives an update that is finite, has the sign of ``g``
and is at most ``g / sqrt(eps)`` in size.
"""

from absl.testing import absltest
from absl.testing import parameterized
import jax.numpy as jnp
from optax._src import test_utils
from optax._src import transform


class ScaleByStddevFirstStepTest(parameterized.TestCase):

  @parameterized.named_parameters(
      ('decay_0.99', 0.99, True),
      ('decay_0.99_eps_outside', 0.99, False),
      ('decay_0.999', 0.999, True),
      ('decay_0.999_eps_outside', 0.999, False),
      ('decay_0.9_array', jnp.asarray(0.9, jnp.float32), True),
      ('decay_0.9_array_eps_outside', jnp.asarray(0.9, jnp.float32), False),
  )
  def test_stddev_bias_corrected_first_step_is_bounded(
      self, decay, eps_in_sqrt
  ):
    eps = 1e-8
    g = jnp.array([0.5, -0.25, 0.125, 3.0], jnp.float32)
    tx = transform.scale_by_stddev(
        decay=decay, eps=eps, eps_in_sqrt=eps_in_sqrt, bias_correction=True
    )
    updates, _ = tx.update(g, tx.init(jnp.zeros(4)))
    # The update of a zero variance bounds the update of any other.
    bound = jnp.abs(g) / (eps**0.5 if eps_in_sqrt else eps)
    test_utils.assert_tree_all_finite(updates)
    test_utils.assert_trees_all_equal(jnp.sign(updates), jnp.sign(g))
    self.assertTrue(
        jnp.all(jnp.abs(updates) <= bound * (1 + 1e-6)), (updates, bound)
    )


if __name__ == '__main__':
  absltest.main()
