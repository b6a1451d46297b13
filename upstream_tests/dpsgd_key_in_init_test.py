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
"""dpsgd creates no array when built: no tracer leak when built in jit.

Upstream (0.2.8, main at 2edbcbe2) made the random key when ``dpsgd`` was
built; built inside a ``jax.jit`` trace, the transformation closed over a
tracer and using it outside raised ``UnexpectedTracerError`` (``Leaked trace``
under ``jax.checking_leaks``).
"""

from absl.testing import absltest
from absl.testing import parameterized
import jax
import jax.numpy as jnp
from optax.contrib import _privacy


class DpsgdKeyInInitTest(parameterized.TestCase):

  def test_built_in_jit_used_outside(self):
    built = []

    @jax.jit
    def build(x):
      built.append(_privacy.dpsgd(0.1, 1.0, 0.1, 0))
      return x

    with jax.checking_leaks():
      build(jnp.zeros([]))
    params = {"w": jnp.ones(3)}
    tx = built[0]
    state = tx.init(params)
    updates, _ = jax.jit(tx.update)({"w": jnp.ones((2, 3))}, state, params)
    self.assertEqual(updates["w"].shape, (3,))
    self.assertTrue(bool(jnp.all(jnp.isfinite(updates["w"]))))


if __name__ == "__main__":
  absltest.main()
