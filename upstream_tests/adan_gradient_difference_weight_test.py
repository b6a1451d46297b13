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
"""scale_by_adan weights the gradient difference by b2.

Algorithm 1 of the Adan paper (Xie et al., 2022) writes its moments with
the weight of the new term, ``m_k = (1 - beta1) m_{k-1} + beta1 g_k``, and
weights the gradient difference ``d_k = g_k - g_{k-1}`` by ``1 - beta2`` in
``n_k`` (``(g_k + (1 - beta2) d_k) ** 2``) and in the step (``m_k +
(1 - beta2) v_k``). Optax's decay rates are the complements, ``b = 1 - beta``
(``v_t = b2 v_{t-1} + (1 - b2) d_t``; defaults 0.98, 0.92, 0.99, as the
authors' code, whose look-ahead is ``grad + beta2 * diff``), so that weight
is ``b2``. Upstream (0.2.8, main at 2edbcbe2) weighted it by ``1 - b2``
(pull request #1715).

By hand, with ``b1 = 0.5``, ``b2 = 0.75``, ``b3 = 0`` (so ``sqrt(n_hat)`` is
``|g_t + b2 d_t|``), ``eps = eps_root = 0`` and gradients 1 then 3: the first
step has ``d = 0`` and gives 1; the second has ``d = 2``, ``m_hat = 1.75 /
0.75 = 7/3``, ``v_hat = 0.5 / 0.4375 = 8/7`` and ``|3 + 0.75 * 2| = 4.5``,
so ``u = (7/3 + 0.75 * 8/7) / 4.5 = 134/189``. That weight gave ``(7/3 +
0.25 * 8/7) / 3.5 = 110/147``.
"""

from absl.testing import absltest
from absl.testing import parameterized
import jax
import jax.numpy as jnp
from optax._src import test_utils
from optax._src import transform


class ScaleByAdanTest(parameterized.TestCase):

  @parameterized.named_parameters(('nojit', False), ('jit', True))
  def test_adan_gradient_difference_weighted_by_b2(self, use_jit):
    # Adan's weight of the difference d is 1 - beta2 of the paper, which is
    # b2 here. With b3 = 0, sqrt(n_hat) = |g + b2 * d|. Step 1: d = 0, u = 1.
    # Step 2: d = 2, m_hat = 1.75 / 0.75 = 7/3, v_hat = 0.5 / 0.4375 = 8/7,
    # u = (7/3 + 0.75 * 8/7) / (3 + 0.75 * 2) = 134/189.
    tx = transform.scale_by_adan(b1=0.5, b2=0.75, b3=0.0, eps=0.0, eps_root=0.0)
    update = jax.jit(tx.update) if use_jit else tx.update
    state = tx.init(jnp.zeros(2))
    first, state = update(jnp.array([1.0, -1.0]), state)
    second, state = update(jnp.array([3.0, -3.0]), state)
    test_utils.assert_trees_all_close(first, jnp.array([1.0, -1.0]))
    test_utils.assert_trees_all_close(
        second, jnp.array([134 / 189, -134 / 189])
    )
    test_utils.assert_trees_all_close(state.n, jnp.full(2, 4.5**2))


if __name__ == '__main__':
  absltest.main()
