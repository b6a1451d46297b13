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
"""Differential-privacy noise is drawn in float32 on bfloat16 gradients.

Upstream 0.2.8 draws the Gaussian noise in the gradients' dtype: on
bfloat16 the sampler's output takes 256 values per octave, and the noise
differs from the float32 draw of the same key by far more than a rounding.
Drawn in float32 and rounded once, the bfloat16 update is the float32
update rounded.
"""

from absl.testing import absltest
from absl.testing import parameterized
import jax.numpy as jnp
import numpy as np
from optax import contrib


class DpNoiseFloat32Test(parameterized.TestCase):

  def test_bfloat16_noise_is_the_float32_draw_rounded(self):
    # One example of zero gradients: the update is the noise itself.
    def noise(dtype):
      tx = contrib.differentially_private_aggregate(1.0, 1.0, 0)
      params = {"w": jnp.zeros(64, dtype)}
      updates, _ = tx.update(
          {"w": jnp.zeros((1, 64), dtype)}, tx.init(params), params
      )
      return updates["w"]

    wide = noise(jnp.float32)
    narrow = noise(jnp.bfloat16)
    self.assertEqual(narrow.dtype, jnp.bfloat16)
    np.testing.assert_array_equal(
        np.asarray(narrow, np.float32),
        np.asarray(wide.astype(jnp.bfloat16), np.float32),
    )


if __name__ == "__main__":
  absltest.main()
