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
"""Tests for optax.assignment._hungarian_algorithm."""

import contextlib
import itertools

from absl.testing import absltest
from absl.testing import parameterized
import jax
import jax.numpy as jnp
import numpy as np
from scipy import optimize

from optax.assignment import _hungarian_algorithm

_SOLVERS = (
    ('fast', _hungarian_algorithm.hungarian_algorithm),
    ('base', _hungarian_algorithm.base_hungarian_algorithm),
)

# Jitted once for the module, so that tests sharing a shape compile once.
_JITTED_SOLVERS = tuple((name, jax.jit(fn)) for name, fn in _SOLVERS)


_TRACE_EVENT = '/jax/core/compile/jaxpr_trace_duration'
_COMPILE_EVENT = '/jax/core/compile/backend_compile_duration'


@contextlib.contextmanager
def _count_events():
  """Counts JAX's tracing and XLA compilation events in the block."""
  counts = {_TRACE_EVENT: 0, _COMPILE_EVENT: 0}

  def listener(event, duration_secs, **kwargs):
    del duration_secs, kwargs
    if event in counts:
      counts[event] += 1

  jax.monitoring.register_event_duration_secs_listener(listener)
  try:
    yield counts
  finally:
    jax.monitoring.unregister_event_duration_listener(listener)


def _random_costs(rng, shape, kind):
  """A float32 cost matrix with a finite optimum (for kind 'inf' too)."""
  if kind == 'normal':  # Ties have probability 0.
    cost = rng.normal(size=shape)
  elif kind == 'ties':  # Few distinct values: many optimal solutions.
    cost = rng.integers(0, 3, size=shape).astype(float)
  else:  # 'inf': forbidden pairs, but never on a random full matching.
    cost = rng.normal(size=shape)
    cost[rng.uniform(size=shape) < 0.4] = np.inf
    k = min(shape)
    cost[rng.permutation(shape[0])[:k], rng.permutation(shape[1])[:k]] = (
        rng.normal(size=k))
  return cost.astype(np.float32)


def _brute_force(cost):
  """Optimal cost by enumerating every injection of the short side."""
  n, m = cost.shape
  if n <= m:
    return min(cost[np.arange(n), list(p)].sum()
               for p in itertools.permutations(range(m), n))
  return _brute_force(cost.T)


class HungarianTest(parameterized.TestCase):
  """Both solvers against SciPy, brute force and edge cases."""

  def _check_optimal(self, cost, i, j):
    cost = np.asarray(cost, np.float64)
    i, j = np.asarray(i), np.asarray(j)
    k = min(cost.shape)
    self.assertEqual(i.shape, (k,))
    self.assertEqual(j.shape, (k,))
    self.assertEqual(i.dtype, np.int32)
    self.assertEqual(j.dtype, np.int32)
    self.assertLen(set(i.tolist()), k)  # Distinct rows.
    self.assertLen(set(j.tolist()), k)  # Distinct columns.
    rows, cols = optimize.linear_sum_assignment(cost)
    np.testing.assert_allclose(cost[i, j].sum(), cost[rows, cols].sum(),
                               rtol=1e-5, atol=1e-5)

  @parameterized.product(
      solver=_JITTED_SOLVERS,
      shape=[(1, 1), (6, 6), (3, 7), (7, 3), (1, 4)],
      kind=['normal', 'ties', 'wide_range'])
  def test_matches_scipy(self, solver, shape, kind):
    _, fn = solver
    rng = np.random.default_rng(sum(shape))
    for _ in range(4):
      if kind == 'normal':
        cost = rng.normal(size=shape)
      elif kind == 'ties':  # Few distinct values: many optimal solutions.
        cost = rng.integers(0, 3, size=shape).astype(float)
      else:
        cost = rng.integers(-1000, 1000, size=shape).astype(float)
      cost = jnp.asarray(cost, jnp.float32)
      self._check_optimal(cost, *fn(cost))

  def _check_order(self, name, shape, i, j):
    """Checks the documented order of the pairs."""
    i, j = np.asarray(i), np.asarray(j)
    if name == 'base':  # By row.
      np.testing.assert_array_equal(np.diff(i) > 0, True)
    elif shape[0] == shape[1]:  # By column.
      np.testing.assert_array_equal(j, np.arange(shape[1]))
    elif shape[0] < shape[1]:  # By decreasing index of the shorter side.
      np.testing.assert_array_equal(i, np.arange(shape[0])[::-1])
    else:
      np.testing.assert_array_equal(j, np.arange(shape[1])[::-1])

  @parameterized.product(
      solver=_SOLVERS,
      mode=['eager', 'jit', 'vmap'],
      shape=[(5, 5), (4, 9), (9, 4), (12, 12)])
  def test_optimal_on_random_matrices(self, solver, mode, shape):
    name, fn = solver
    rng = np.random.default_rng(shape)
    for kind in ('normal', 'ties', 'inf'):
      costs = np.stack([_random_costs(rng, shape, kind) for _ in range(3)])
      if mode == 'vmap':
        i, j = jax.vmap(fn)(jnp.asarray(costs))
      else:
        solve = dict(_JITTED_SOLVERS)[name] if mode == 'jit' else fn
        pairs = [solve(jnp.asarray(cost)) for cost in costs]
        i = np.stack([p[0] for p in pairs])
        j = np.stack([p[1] for p in pairs])
      for b, cost in enumerate(costs):
        self._check_optimal(cost, i[b], j[b])
        self._check_order(name, shape, i[b], j[b])
        if kind == 'normal':  # A unique optimum: the same pairs as SciPy.
          rows, cols = optimize.linear_sum_assignment(cost)
          self.assertEqual(sorted(zip(i[b].tolist(), j[b].tolist())),
                           sorted(zip(rows.tolist(), cols.tolist())))

  @parameterized.named_parameters(*_SOLVERS)
  def test_float64_against_brute_force(self, fn):
    rng = np.random.default_rng(4)
    with jax.enable_x64(True):
      for shape in [(5, 5), (4, 6), (6, 4)]:
        cost = rng.uniform(size=shape)
        i, j = fn(jnp.asarray(cost))
        self.assertEqual(i.dtype, jnp.int32)
        self.assertEqual(j.dtype, jnp.int32)
        np.testing.assert_allclose(cost[np.asarray(i), np.asarray(j)].sum(),
                                   _brute_force(cost), rtol=1e-12)

  @parameterized.named_parameters(*_SOLVERS)
  def test_eager_call_on_a_seen_shape_compiles_nothing(self, fn):
    # One trace and compilation per shape and dtype: the loop bodies are not
    # new functions on every call (issue 42).
    for shape, dtype in [((7, 13), jnp.float32), ((13, 7), jnp.float32),
                         ((7, 13), jnp.float16)]:
      cost = jnp.asarray(np.random.default_rng(5).normal(size=shape), dtype)
      with _count_events() as first:
        jax.block_until_ready(fn(cost))
      self.assertGreater(first[_TRACE_EVENT], 0)  # The counter counts.
      self.assertGreater(first[_COMPILE_EVENT], 0)
      for _ in range(2):
        with _count_events() as again:
          jax.block_until_ready(fn(cost))
        self.assertEqual(again, {_TRACE_EVENT: 0, _COMPILE_EVENT: 0})
    costs = jnp.ones((3, 6, 11))
    jax.block_until_ready(jax.vmap(fn)(costs))
    with _count_events() as again:
      jax.block_until_ready(jax.vmap(fn)(costs))
    self.assertEqual(again, {_TRACE_EVENT: 0, _COMPILE_EVENT: 0})

  @parameterized.named_parameters(*_SOLVERS)
  def test_against_brute_force(self, fn):
    rng = np.random.default_rng(0)
    for shape in [(4, 4), (3, 5), (5, 3)]:
      cost = rng.uniform(size=shape).astype(np.float32)
      i, j = fn(jnp.asarray(cost))
      np.testing.assert_allclose(cost[np.asarray(i), np.asarray(j)].sum(),
                                 _brute_force(cost.astype(np.float64)),
                                 rtol=1e-6)

  def test_pair_order_of_the_fast_solver(self):
    # Unique optima; the order follows Optax 0.2.8: by column for a square
    # matrix, by decreasing index of the shorter side otherwise.
    rng = np.random.default_rng(1)
    fn = _hungarian_algorithm.hungarian_algorithm
    for shape in [(6, 6), (4, 7), (7, 4)]:
      cost = rng.normal(size=shape).astype(np.float32)
      rows, cols = optimize.linear_sum_assignment(cost)
      pairs = sorted(zip(rows.tolist(), cols.tolist()))
      i, j = fn(jnp.asarray(cost))
      i, j = np.asarray(i).tolist(), np.asarray(j).tolist()
      self.assertEqual(sorted(zip(i, j)), pairs)
      if shape[0] == shape[1]:
        self.assertEqual(j, list(range(shape[1])))
      elif shape[0] < shape[1]:
        self.assertEqual(i, list(range(shape[0] - 1, -1, -1)))
      else:
        self.assertEqual(j, list(range(shape[1] - 1, -1, -1)))

  def test_pair_order_of_the_base_solver(self):
    rng = np.random.default_rng(2)
    fn = _hungarian_algorithm.base_hungarian_algorithm
    for shape in [(6, 6), (4, 7), (7, 4)]:
      cost = rng.normal(size=shape).astype(np.float32)
      rows, cols = optimize.linear_sum_assignment(cost)
      i, j = fn(jnp.asarray(cost))
      # Sorted by row, as scipy.
      np.testing.assert_array_equal(i, rows)
      np.testing.assert_array_equal(j, cols)

  @parameterized.named_parameters(*_SOLVERS)
  def test_equal_costs_give_the_identity(self, fn):
    i, j = fn(jnp.zeros((4, 4)))
    np.testing.assert_array_equal(i, np.arange(4))
    np.testing.assert_array_equal(j, np.arange(4))

  @parameterized.named_parameters(*_SOLVERS)
  def test_vmap(self, fn):
    rng = np.random.default_rng(3)
    costs = jnp.asarray(rng.normal(size=(3, 4, 5)), jnp.float32)
    i, j = jax.vmap(fn)(costs)
    self.assertEqual(i.shape, (3, 4))
    for b in range(3):
      self._check_optimal(costs[b], i[b], j[b])

  @parameterized.named_parameters(*_SOLVERS)
  def test_integer_negative_and_infinite_costs(self, fn):
    cost = jnp.array([[3, -1, 2], [0, 4, -2], [1, 1, 1]])
    self._check_optimal(cost, *fn(cost))
    # An infinite cost forbids a pair.
    cost = jnp.array([[1.0, jnp.inf], [3.0, 1.0]])
    i, j = fn(cost)
    self.assertEqual(sorted(zip(np.asarray(i).tolist(),
                                np.asarray(j).tolist())), [(0, 0), (1, 1)])
    cost = jnp.array([[jnp.inf, 0.0, 5.0], [jnp.inf, 2.0, 1.0],
                      [0.0, jnp.inf, jnp.inf]])
    i, j = fn(cost)
    self.assertEqual(float(cost[i, j].sum()), 1.0)

  @parameterized.named_parameters(*_SOLVERS)
  def test_empty(self, fn):
    for shape in [(0, 3), (3, 0), (0, 0)]:
      for solve in (fn, jax.jit(fn)):
        i, j = solve(jnp.zeros(shape))
        self.assertEqual(i.shape, (0,))
        self.assertEqual(j.shape, (0,))
        self.assertEqual(i.dtype, jnp.int32)
        self.assertEqual(j.dtype, jnp.int32)
      i, j = jax.vmap(fn)(jnp.zeros((2,) + shape))
      self.assertEqual(i.shape, (2, 0))
      self.assertEqual(j.shape, (2, 0))

  @parameterized.named_parameters(*_SOLVERS)
  def test_rejects_batches(self, fn):
    with self.assertRaisesRegex(
        ValueError, r'hungarian_algorithm: .*2-D.*\(2, 3, 3\).*vmap'):
      fn(jnp.ones((2, 3, 3)))

  @parameterized.named_parameters(*_SOLVERS)
  def test_nan_and_infinite_rows_still_give_an_assignment(self, fn):
    for cost in (jnp.array([[jnp.nan, 1.0], [2.0, 3.0]]),
                 jnp.array([[jnp.inf, jnp.inf], [2.0, 3.0]])):
      i, j = fn(cost)
      self.assertLen(set(np.asarray(i).tolist()), 2)
      self.assertLen(set(np.asarray(j).tolist()), 2)

  def test_accepts_numpy_and_bfloat16(self):
    cost = np.array([[1.0, 2.0], [3.0, -1.0]])
    for fn in (_hungarian_algorithm.hungarian_algorithm,
               _hungarian_algorithm.base_hungarian_algorithm):
      self._check_optimal(cost, *fn(cost))
      self._check_optimal(cost, *fn(jnp.asarray(cost, jnp.bfloat16)))


if __name__ == '__main__':
  absltest.main()
