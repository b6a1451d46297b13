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
"""normalize returns the unit vector for tiny and huge float32 gradients.

normalize divides the updates by their global norm, so the result has norm
1 whenever the updates are nonzero and finite. Upstream (0.2.8, main at
2edbcbe2) computed the norm from the squares of the entries, which underflow
to 0 below about 1e-19 and overflow to inf above about 1e19 in float32:
[1e-20, 1e-20] gave [inf, inf] and [1e20, 1e20] gave [0, 0].
"""

from absl.testing import absltest
from absl.testing import parameterized
import jax
import jax.numpy as jnp
import numpy as np
from optax.contrib import _sam


class NormalizeMagnitudeTest(parameterized.TestCase):

  @parameterized.product(magnitude=(1e-20, 1e20), use_jit=(False, True))
  def test_normalize_tiny_and_huge_gradients_have_unit_norm(
      self, magnitude, use_jit
  ):
    opt = _sam.normalize()
    update_fn = jax.jit(opt.update) if use_jit else opt.update
    grads = {'a': jnp.full((2,), magnitude), 'b': jnp.full((2,), -magnitude)}
    updates, _ = update_fn(grads, opt.init(grads))
    np.testing.assert_allclose(updates['a'], [0.5, 0.5], rtol=1e-6)
    np.testing.assert_allclose(updates['b'], [-0.5, -0.5], rtol=1e-6)


if __name__ == '__main__':
  absltest.main()
