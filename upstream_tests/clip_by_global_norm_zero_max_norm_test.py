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
"""clip_by_global_norm(0.0) keeps zero updates zero.

Updates whose global norm does not exceed ``max_norm`` are returned unchanged.
Upstream (0.2.8, main at 2edbcbe2; pull request #1752) passed them through only
where the norm was strictly below ``max_norm``: at equality it rescaled them by
``max_norm / norm``, which for zero updates and ``max_norm = 0`` is ``0 / 0``
and made every leaf NaN. Updates of norm 37 under ``max_norm = 37`` pass
unchanged too (the rescaling gave 12 / 37 * 37 = 11.999999 in float32 for their
12), and nonzero updates under ``max_norm = 0`` are still clipped to zero.
"""

from absl.testing import absltest
from absl.testing import parameterized
import jax
import jax.numpy as jnp
import numpy as np
from optax.transforms import _clipping


class ClipByGlobalNormTest(parameterized.TestCase):

  @parameterized.named_parameters(("nojit", False), ("jit", True))
  def test_clip_by_global_norm_zero_updates_zero_max_norm(self, use_jit):
    zeros = {"w": jnp.zeros(3), "b": jnp.zeros((2, 2))}
    for max_norm in (0.0, 0):
      tx = _clipping.clip_by_global_norm(max_norm)
      update = jax.jit(tx.update) if use_jit else tx.update
      updates, _ = update(zeros, tx.init(zeros))
      for key, zero in zeros.items():
        np.testing.assert_array_equal(updates[key], zero)

  @parameterized.named_parameters(("nojit", False), ("jit", True))
  def test_clip_by_global_norm_at_max_norm_unchanged(self, use_jit):
    # (12, 35) has norm 37 exactly. Under max_norm 37 it is returned as
    # given: rescaling it by 37 / 37 would give float32(12 / 37) * 37 =
    # 11.999999 for its first entry.
    grads = {"w": jnp.array([12.0]), "b": jnp.array([[35.0]])}
    tx = _clipping.clip_by_global_norm(37.0)
    update = jax.jit(tx.update) if use_jit else tx.update
    updates, _ = update(grads, tx.init(grads))
    np.testing.assert_array_equal(updates["w"], [12.0])
    np.testing.assert_array_equal(updates["b"], [[35.0]])
    # Nonzero updates under max_norm 0 are clipped to zero.
    tx = _clipping.clip_by_global_norm(0.0)
    update = jax.jit(tx.update) if use_jit else tx.update
    updates, _ = update(grads, tx.init(grads))
    np.testing.assert_array_equal(updates["w"], [0.0])
    np.testing.assert_array_equal(updates["b"], [[0.0]])


if __name__ == "__main__":
  absltest.main()
