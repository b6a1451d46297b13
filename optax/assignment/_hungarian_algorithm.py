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
r"""The linear assignment problem, solved in JAX (jit-able).

Given an :math:`n \times m` cost matrix :math:`C`, find the
:math:`k = \min(n, m)` pairs :math:`(i_t, j_t)`, with distinct rows and
distinct columns, that minimise :math:`\sum_t C_{i_t j_t}`.

Both solvers, :func:`hungarian_algorithm` and :func:`base_hungarian_algorithm`,
run the Hungarian method in its shortest augmenting path form (Crouse, 2016):
the rows of the shorter side are assigned one at a time, each along a
shortest path in the reduced costs :math:`C_{ij} - u_i - v_j`, found by a
Dijkstra search over the columns, after which the dual potentials
:math:`u, v` are moved so that reduced costs stay non-negative and vanish on
assigned pairs. A step of a search costs one pass over one row of :math:`C`,
:math:`O(k^2 \max(n, m))` in all. The solvers differ in the order of the
pairs they return (that of Optax 0.2.8 for each).

The solver is compiled once per shape and dtype of the cost matrix: eager
calls on a shape seen before reuse the compiled program.
"""

import functools

import jax
import jax.numpy as jnp
import numpy as np

_INDEX_DTYPE = jnp.int32


def _as_costs(fn_name: str, cost_matrix: jax.Array) -> jax.Array:
  """Checks that ``cost_matrix`` is one real matrix; returns it as an array."""
  if not isinstance(cost_matrix, (jax.Array, np.ndarray)):
    cost_matrix = jnp.asarray(cost_matrix)
  if cost_matrix.ndim != 2:
    raise ValueError(
        f'{fn_name}: cost_matrix must be a 2-D array, got shape'
        f' {cost_matrix.shape}. Remedy: use jax.vmap for a batch of'
        ' matrices.')
  if not jnp.issubdtype(jnp.promote_types(cost_matrix.dtype, jnp.float32),
                        jnp.floating):
    raise ValueError(
        f'{fn_name}: cost_matrix must be real, got dtype'
        f' {cost_matrix.dtype}.')
  return cost_matrix


def _empty() -> tuple[jax.Array, jax.Array]:
  return (jnp.zeros((0,), _INDEX_DTYPE), jnp.zeros((0,), _INDEX_DTYPE))


# The loop bodies take the arrays that stay fixed during a loop as leading
# arguments (bound with functools.partial inside the jitted solver) and the
# loop state as the last one.


def _searching(state) -> jax.Array:
  return state[3] >= 0  # The latest column was assigned to a row.


def _search_step(costs, v, row4col, weight, state):
  """Visits the unvisited column closest to the root, via the latest row."""
  unused, dist, path, row, col, length = state
  row_costs = costs[row]
  # The row's dual: 0 for the root (col is -1), else the reduced cost of its
  # pair with col, the column it was reached by, is 0.
  u_row = jnp.where(col < 0, 0, row_costs[col] - v[col])
  via_row = (row_costs - v) + (length - u_row)
  shorter = unused & (via_row < dist)
  dist = jnp.where(shorter, via_row, dist)
  path = jnp.where(shorter, row, path)
  open_dist = jnp.where(unused, dist, jnp.inf)
  length = jnp.min(open_dist)
  # The first of the closest columns, a free one (weight 2) if there is one:
  # with ties (equal costs) this keeps the pairs already made instead of
  # shuffling them. When no column can be reached (infinite or NaN costs)
  # all are at distance inf and the first free one ends the search, so that
  # the result is still an assignment.
  col = jnp.argmax(jnp.where(open_dist == length, weight, 0))
  col = col.astype(_INDEX_DTYPE)
  unused = unused.at[col].set(False)
  return unused, dist, path, row4col[col], col, length


def _augmenting(state) -> jax.Array:
  return state[-1] >= 0


def _augment_step(path, state):
  """Gives ``col`` to the row before it on the path; moves to that row's."""
  row4col, col4row, col = state
  row = path[col]
  # The root has no column yet: its -1 ends the walk.
  return (row4col.at[col].set(row), col4row.at[row].set(col), col4row[row])


def _add_row(costs, root, carry):
  """Assigns row ``root`` along a shortest augmenting path."""
  v, row4col, col4row = carry
  root = root.astype(_INDEX_DTYPE)
  m = costs.shape[1]
  minus_one = jnp.array(-1, _INDEX_DTYPE)
  # Weight of a column among the closest: 2 if free, 1 if assigned.
  weight = jnp.where(row4col < 0, jnp.int8(2), jnp.int8(1))
  state = (jnp.ones((m,), bool), jnp.full((m,), jnp.inf, v.dtype),
           jnp.full((m,), root), root, minus_one, jnp.zeros((), v.dtype))
  unused, dist, path, _, sink, length = jax.lax.while_loop(
      _searching,
      functools.partial(_search_step, costs, v, row4col, weight), state)
  # Dual update (Crouse, 2016): the columns of the search tree fall by the
  # length of the path minus their distance (and the rows' duals, implied by
  # their pairs, rise by as much).
  v = v - jnp.where(unused, 0, length - dist)
  row4col, col4row, _ = jax.lax.while_loop(
      _augmenting, functools.partial(_augment_step, path),
      (row4col, col4row, sink))
  return v, row4col, col4row


def _assign(fn_name: str, cost_matrix: jax.Array,
            order: str) -> tuple[jax.Array, jax.Array]:
  """Checks the costs and solves the problem; ``order`` as in :func:`_solve`.

  Args:
    fn_name: the public function, for the error messages.
    cost_matrix: the costs as given.
    order: 'column' or 'row'.

  Returns:
    The rows and columns of the optimal pairs (empty for an empty matrix).
  """
  costs = _as_costs(fn_name, cost_matrix)
  if 0 in costs.shape:
    return _empty()
  return _solve(costs, order=order)


@functools.partial(jax.jit, static_argnames=('order',))
def _solve(cost_matrix: jax.Array, order: str) -> tuple[jax.Array, jax.Array]:
  """Solves a non-empty problem; ``order`` is 'column' or 'row'."""
  dtype = jnp.promote_types(cost_matrix.dtype, jnp.float32)
  costs = cost_matrix.astype(dtype)
  transposed = costs.shape[0] > costs.shape[1]
  if transposed:
    costs = costs.T
  n, m = costs.shape
  carry = (jnp.zeros((m,), dtype), jnp.full((m,), -1, _INDEX_DTYPE),
           jnp.full((n,), -1, _INDEX_DTYPE))
  _, row4col, col4row = jax.lax.fori_loop(
      0, n, functools.partial(_add_row, costs), carry)
  if order == 'row':  # Sorted by the row of the cost matrix.
    if not transposed:
      return jnp.arange(n, dtype=_INDEX_DTYPE), col4row
    by_row = jnp.argsort(col4row).astype(_INDEX_DTYPE)
    return col4row[by_row], by_row
  # Sorted by column for a square matrix, else by decreasing index of the
  # shorter side.
  if n == m:
    return row4col, jnp.arange(m, dtype=_INDEX_DTYPE)
  short_side = jnp.arange(n - 1, -1, -1, dtype=_INDEX_DTYPE)
  long_side = col4row[::-1]
  if transposed:
    return long_side, short_side
  return short_side, long_side


def hungarian_algorithm(cost_matrix: jax.Array
                        ) -> tuple[jax.Array, jax.Array]:
  r"""Solves the linear assignment problem.

  .. math::

    \min_{(i_t, j_t)_{t \le k}} \sum_{t=1}^{k} C_{i_t j_t}, \quad
    k = \min(n, m),

  over pairs with distinct rows and distinct columns. The rows (or columns,
  for a tall matrix) are assigned one at a time, each along a shortest
  augmenting path in the reduced costs, with dual potentials (Jonker and
  Volgenant, 1987; Crouse, 2016), in :math:`O(k^2 \max(n, m))`. Runs under
  ``jit`` and ``vmap``, and compiles once per shape and dtype when called
  eagerly.

  Pairs come sorted by column for a square matrix and by decreasing
  index along the shorter side otherwise (as in Optax 0.2.8). With ties, any
  optimal assignment may be returned. An infinite cost forbids a pair; rows
  that cannot be given a finite cost (infinite or NaN entries) still get
  distinct columns, so the result is always an assignment.

  Examples:
    >>> import jax.numpy as jnp
    >>> from optax import assignment
    >>> cost = jnp.array([[4.0, 1.0, 3.0], [2.0, 0.0, 5.0], [3.0, 2.0, 2.0]])
    >>> i, j = assignment.hungarian_algorithm(cost)
    >>> print(i, j, cost[i, j].sum())
    [1 0 2] [0 1 2] 5.0

  Args:
    cost_matrix: a real matrix of shape ``(n, m)``.

  Returns:
    ``(i, j)``: two int32 arrays of length :math:`\min(n, m)`, the rows and
    columns of the optimal pairs.

  References:
    Kuhn, `The Hungarian method for the assignment problem
    <https://doi.org/10.1002/nav.3800020109>`_, 1955

    Jonker and Volgenant, `A shortest augmenting path algorithm for dense and
    sparse linear assignment problems
    <https://doi.org/10.1007/BF02278710>`_, 1987

    Crouse, `On implementing 2D rectangular assignment algorithms
    <https://ieeexplore.ieee.org/document/7738348>`_, 2016

  .. seealso:: :func:`base_hungarian_algorithm`
  """
  return _assign('hungarian_algorithm', cost_matrix, order='column')


def base_hungarian_algorithm(cost_matrix: jax.Array
                             ) -> tuple[jax.Array, jax.Array]:
  r"""Solves the linear assignment problem, pairs sorted by row.

  The same problem and method as :func:`hungarian_algorithm`: the Hungarian
  method of Kuhn (1955) in the shortest augmenting path form of Crouse
  (2016), which handles rectangular matrices by assigning the shorter side.
  Runs under ``jit`` and ``vmap``, and compiles once per shape and dtype
  when called eagerly.

  Pairs come sorted by row. With ties, any optimal assignment may be
  returned. An infinite cost forbids a pair; rows that cannot be given a
  finite cost (infinite or NaN entries) still get distinct columns, so the
  result is always an assignment.

  Examples:
    >>> import jax.numpy as jnp
    >>> from optax import assignment
    >>> cost = jnp.array([[4.0, 1.0, 3.0], [2.0, 0.0, 5.0]])  # 2 workers
    >>> rows, cols = assignment.base_hungarian_algorithm(cost)
    >>> rows, cols  # each row gets a column; column 2 stays free
    (Array([0, 1], dtype=int32), Array([1, 0], dtype=int32))

  Args:
    cost_matrix: the costs of the pairs, real, of shape ``(n, m)`` (any
      of the two sides may be the shorter).

  Returns:
    The rows ``i`` (in increasing order) and the columns ``j`` of the
    :math:`\min(n, m)` optimal pairs, two int32 arrays.

  .. seealso:: :func:`hungarian_algorithm`

  References:
    Kuhn, `The Hungarian method for the assignment problem
    <https://doi.org/10.1002/nav.3800020109>`_, 1955

    Crouse, `On implementing 2D rectangular assignment algorithms
    <https://ieeexplore.ieee.org/document/7738348>`_, 2016
  """
  return _assign('base_hungarian_algorithm', cost_matrix, order='row')
