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
"""Line searches that find no finite value keep their step size for the next.

When every value a line search computes is NaN or infinite, it makes no step
(a step size of 0). Upstream (0.2.8, main at 2edbcbe2) also stored that 0 as
the state's learning rate, from which the next search starts (times
``increase_factor`` for scale_by_backtracking_linesearch, as it is for
scale_by_zoom_linesearch's default ``initial_guess_strategy='keep'``): every
later step size was 0 and the optimizer never moved again, even where the
objective was finite. scale_by_backtracking_linesearch also stored a NaN
value and a zero gradient in its state, where no step was made from a point
whose value and gradient are known.

The searches now keep the previous learning rate, and the value and
gradient at the start. With ``f`` finite only at ``x = 0`` (where ``f = 900``
and ``f' = -60``), a search along ``u = 1`` makes no step; a second search on
``(x - 30) ** 2`` then steps by 1 (backtracking from ``min(2 * 1, 1)``, value
841) or by 4 (zoom trials 1, 2, 4, value 676).
"""

from absl.testing import absltest
from absl.testing import parameterized
import jax
import jax.numpy as jnp
from optax._src import linesearch as _linesearch


class LinesearchNonFiniteTest(parameterized.TestCase):

  def _two_searches(self, tx):
    def finite_at_zero_only(x):
      return jnp.where(jnp.all(x == 0.0), jnp.sum((x - 30.0) ** 2), jnp.nan)

    def parabola(x):
      return jnp.sum((x - 30.0) ** 2)

    params = jnp.zeros(1)

    def search(fn, state):
      value, grad = jax.value_and_grad(fn)(params)
      updates, state = tx.update(
          jnp.ones(1), state, params, value=value, grad=grad, value_fn=fn
      )
      return float(updates[0]), state

    first = search(finite_at_zero_only, tx.init(params))
    second = search(parabola, first[1])
    return first, second

  def test_backtracking_linesearch_keeps_step_size_without_finite_value(self):
    tx = _linesearch.scale_by_backtracking_linesearch(
        max_backtracking_steps=4, store_grad=True
    )
    (first, stuck), (second, state) = self._two_searches(tx)
    self.assertEqual(first, 0.0)
    self.assertEqual(float(stuck.learning_rate), 1.0)
    self.assertEqual(float(stuck.value), 900.0)
    self.assertEqual(float(stuck.grad[0]), -60.0)
    self.assertEqual(second, 1.0)
    self.assertEqual(float(state.value), 841.0)

  def test_zoom_linesearch_keeps_step_size_without_finite_value(self):
    tx = _linesearch.scale_by_zoom_linesearch(max_linesearch_steps=5)
    (first, stuck), (second, state) = self._two_searches(tx)
    self.assertEqual(first, 0.0)
    self.assertEqual(float(stuck.learning_rate), 1.0)
    self.assertEqual(float(stuck.value), 900.0)
    self.assertEqual(float(stuck.grad[0]), -60.0)
    self.assertEqual(second, 4.0)
    self.assertEqual(float(state.value), 676.0)


if __name__ == '__main__':
  absltest.main()
