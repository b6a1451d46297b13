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
"""scale_by_zoom_linesearch falls back on its best sufficient-decrease step.

When the zoom line search runs out of trials without meeting the strong
Wolfe conditions, it returns a step size satisfying the sufficient decrease.
Algorithms 3.5 and 3.6 of Nocedal and Wright (Numerical Optimization, 2006)
keep as ``alpha_lo`` the step with the lowest value among those with
sufficient decrease, and that is the step a search cut short should make.
Upstream (0.2.8, main at 2edbcbe2) returned instead the last step with
sufficient decrease tried while the step size was being enlarged, even when
an earlier one had a lower value.

Along ``u = 1`` from ``x = 0``, ``phi(a) = -a + 6 max(a - 1.5, 0) ** 2`` has
``phi(0) = 0`` and ``phi'(0) = -1``. With two trials from 1: ``phi(1) = -1``
with slope -1 (sufficient decrease, curvature not met: enlarge) and
``phi(2) = -1/2`` with slope 5 (sufficient decrease, higher value). The best
step is 1 (value -1); upstream returned 2 (value -1/2).
"""

from absl.testing import absltest
from absl.testing import parameterized
import jax
import jax.numpy as jnp
from optax._src import linesearch as _linesearch


class ZoomLinesearchTest(parameterized.TestCase):

  @parameterized.product(use_jit=[False, True])
  def test_zoom_linesearch_returns_best_step_with_sufficient_decrease(
      self, use_jit
  ):
    def fun(x):
      return jnp.sum(-x + 6.0 * jnp.maximum(x - 1.5, 0.0) ** 2)

    params = jnp.zeros(1)
    value, grad = jax.value_and_grad(fun)(params)
    tx = _linesearch.scale_by_zoom_linesearch(
        max_linesearch_steps=2, initial_guess_strategy='one'
    )
    update = tx.update
    if use_jit:
      update = jax.jit(update, static_argnames='value_fn')
    updates, state = update(
        -grad, tx.init(params), params, value=value, grad=grad, value_fn=fun
    )
    # Trials 1 (value -1) and 2 (value -1/2) both met the sufficient
    # decrease, neither the curvature condition: 1 is the best.
    self.assertEqual(float(updates[0]), 1.0)
    self.assertEqual(float(state.learning_rate), 1.0)
    self.assertEqual(float(state.value), -1.0)
    self.assertEqual(float(state.grad[0]), -1.0)
    self.assertEqual(int(state.info.num_linesearch_steps), 2)


if __name__ == '__main__':
  absltest.main()
