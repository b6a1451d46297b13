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
"""Muon's Newton-Schulz iterations keep the memory flat.

Upstream 0.2.8 unrolls the iterations: XLA plans temporaries of several
times the params for a jitted, donated update (8.25x the params in all for
eight float32 512 x 512 matrices). Upstream main's fix for #1650 runs them
as a loop.
"""

from absl.testing import absltest
from absl.testing import parameterized
import jax
import jax.numpy as jnp
import optax


class MuonNewtonSchulzMemoryTest(parameterized.TestCase):

  def test_newton_schulz_memory_is_flat(self):
    n, count = 512, 8
    params = {
        f'w{i}': jax.ShapeDtypeStruct((n, n), jnp.float32) for i in range(count)
    }
    tx = optax.contrib.muon(0.1)
    state = jax.eval_shape(tx.init, params)
    stats = (
        jax.jit(tx.update, donate_argnums=1)
        .lower(params, state, params)
        .compile()
        .memory_analysis()
    )
    if stats is None:
      self.skipTest('no memory analysis on this backend')
    planned = (
        stats.temp_size_in_bytes
        + stats.output_size_in_bytes
        - stats.alias_size_in_bytes
    )
    param_bytes = count * n * n * 4
    # The updates (1x) and a few matrices of temporaries, not a copy of
    # every matrix per iteration.
    self.assertLess(
        planned, 3 * param_bytes, f'{planned / param_bytes:.2f}x the params'
    )


if __name__ == '__main__':
  absltest.main()
