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
"""The Hungarian algorithm against the definition of an optimal assignment.

The pairs returned form an assignment (distinct rows, distinct columns,
``min(n, m)`` of them) whose cost is the least over every assignment, found
by enumerating the permutations (and checked against
``scipy.optimize.linear_sum_assignment``), on square, wide and tall matrices,
with ties, negative and integer-valued costs. Any optimal assignment passes,
so the test holds for any correct implementation.
"""

from absl.testing import absltest
from absl.testing import parameterized
import jax
import numpy as np
from scipy import optimize

from optax import assignment
from optax._src.testing import reference_math as ref


def _costs(kind, shape, seed):
  rng = np.random.RandomState(seed)
  if kind == 'random':
    return rng.randn(*shape)
  if kind == 'ties':
    return rng.randint(0, 3, shape).astype(float)
  if kind == 'constant':
    return np.ones(shape)
  return -np.abs(rng.randn(*shape)) * 1e3  # 'negative_large'


class HungarianAlgorithmTest(parameterized.TestCase):

  @parameterized.product(
      kind=('random', 'ties', 'constant', 'negative_large'),
      shape=((4, 4), (3, 5), (5, 3), (1, 4), (6, 6)),
      fn=('hungarian_algorithm', 'base_hungarian_algorithm'))
  def test_returns_an_optimal_assignment(self, kind, shape, fn):
    cost = _costs(kind, shape, sum(shape))
    rows, cols = getattr(assignment, fn)(cost.astype(np.float32))
    rows, cols = np.asarray(rows), np.asarray(cols)
    k = min(shape)
    self.assertLen(rows, k)
    self.assertLen(set(rows.tolist()), k)
    self.assertLen(set(cols.tolist()), k)
    got = cost[rows, cols].sum()
    want = ref.hungarian_optimal_cost(cost)
    scipy_rows, scipy_cols = optimize.linear_sum_assignment(cost)
    np.testing.assert_allclose(want, cost[scipy_rows, scipy_cols].sum(),
                               rtol=1e-12)
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-4)

  def test_empty_matrix(self):
    rows, cols = assignment.hungarian_algorithm(np.zeros((0, 3), np.float32))
    self.assertEqual(rows.shape, (0,))
    self.assertEqual(cols.shape, (0,))

  def test_vmap_matches_each(self):
    costs = np.random.RandomState(0).randn(3, 4, 4).astype(np.float32)
    rows, cols = jax.vmap(assignment.hungarian_algorithm)(costs)
    for c, r, k in zip(costs, np.asarray(rows), np.asarray(cols)):
      np.testing.assert_allclose(
          c[r, k].sum(), ref.hungarian_optimal_cost(c), rtol=1e-5)


if __name__ == '__main__':
  absltest.main()
