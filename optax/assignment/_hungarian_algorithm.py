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

Two solvers are provided: :func:`hungarian_algorithm`, the shortest
augmenting path method with dual potentials, :math:`O(k^2 \max(n, m))`, and
:func:`base_hungarian_algorithm`, the textbook Hungarian method of Kuhn and
Munkres (starred and primed zeros, covered lines), slower but simple.
"""

import jax
import jax.numpy as jnp

_INDEX_DTYPE = jnp.int32


def _as_float_costs(fn_name: str, cost_matrix: jax.Array) -> jax.Array:
  cost_matrix = jnp.asarray(cost_matrix)
  if cost_matrix.ndim != 2:
    raise ValueError(
        f'{fn_name}: cost_matrix must be a 2-D array, got shape'
        f' {cost_matrix.shape}. Remedy: use jax.vmap for a batch of'
        ' matrices.')
  dtype = jnp.promote_types(cost_matrix.dtype, jnp.float32)
  if not jnp.issubdtype(dtype, jnp.floating):
    raise ValueError(
        f'{fn_name}: cost_matrix must be real, got dtype'
        f' {cost_matrix.dtype}.')
  return cost_matrix.astype(dtype)


def _empty() -> tuple[jax.Array, jax.Array]:
  return (jnp.zeros((0,), _INDEX_DTYPE), jnp.zeros((0,), _INDEX_DTYPE))


# Shortest augmenting paths --------------------------------------------------


def _shortest_augmenting_path(costs: jax.Array) -> jax.Array:
  """Assigns every row of a wide ``(n, m)`` matrix (n <= m).

  Rows are added one at a time; for each, a Dijkstra-like search on reduced
  costs ``C[i, j] - u[i] - v[j]`` finds the cheapest path to a free column,
  along which the assignment is flipped, and the duals ``u, v`` are updated
  so that reduced costs stay non-negative and vanish on assigned pairs.

  Args:
    costs: a float matrix of shape ``(n, m)`` with ``n <= m``.

  Returns:
    ``col_to_row`` of shape ``(m + 1,)``: ``col_to_row[j + 1] - 1`` is the
    row assigned to column ``j`` (``-1``: free). Entry 0 is a sentinel.
  """
  n, m = costs.shape
  dtype = costs.dtype
  inf = jnp.array(jnp.inf, dtype)
  # 1-based indices: row and column 0 are sentinels (the root of a search).
  padded = jnp.zeros((n + 1, m + 1), dtype).at[1:, 1:].set(costs)

  def add_row(row, carry):
    u, v, col_to_row = carry
    col_to_row = col_to_row.at[0].set(row)

    def searching(state):
      col_to_row, col, steps = state[2], state[6], state[7]
      # Stops at a free column; at most m + 1 steps even with NaN costs.
      return (col_to_row[col] != 0) & (steps <= m)

    def search_step(state):
      u, v, col_to_row, used, min_slack, came_from, col, steps = state
      used = used.at[col].set(True)
      current_row = col_to_row[col]
      slack = padded[current_row] - u[current_row] - v
      improves = ~used & (slack < min_slack)
      min_slack = jnp.where(improves, slack, min_slack)
      came_from = jnp.where(improves, col, came_from)
      masked = jnp.where(used, inf, min_slack)
      delta = jnp.min(masked)
      # Among the cheapest columns prefer a free one: with ties (e.g. equal
      # costs) this keeps existing pairs instead of shuffling them.
      cheapest = ~used & (masked == delta)
      cheapest_free = cheapest & (col_to_row == 0)
      next_col = jnp.where(jnp.any(cheapest_free),
                           jnp.argmax(cheapest_free), jnp.argmax(cheapest))
      next_col = jnp.where(jnp.any(cheapest), next_col, jnp.argmax(~used))
      # Dual update: the rows and columns of the search tree move by delta,
      # the slack of the other columns shrinks by delta.
      u = u.at[col_to_row].add(jnp.where(used, delta, 0))
      v = jnp.where(used, v - delta, v)
      min_slack = jnp.where(used, min_slack, min_slack - delta)
      return (u, v, col_to_row, used, min_slack, came_from,
              next_col.astype(_INDEX_DTYPE), steps + 1)

    state = (u, v, col_to_row, jnp.zeros((m + 1,), bool),
             jnp.full((m + 1,), inf), jnp.zeros((m + 1,), _INDEX_DTYPE),
             jnp.array(0, _INDEX_DTYPE), jnp.array(0, _INDEX_DTYPE))
    u, v, col_to_row, _, _, came_from, free_col, _ = jax.lax.while_loop(
        searching, search_step, state)

    # Flip the assignment along the path back to the sentinel column 0.
    def flip_step(state):
      col_to_row, col = state
      previous = came_from[col]
      return col_to_row.at[col].set(col_to_row[previous]), previous

    col_to_row, _ = jax.lax.while_loop(
        lambda state: state[1] != 0, flip_step, (col_to_row, free_col))
    return u, v, col_to_row

  carry = (jnp.zeros((n + 1,), dtype), jnp.zeros((m + 1,), dtype),
           jnp.zeros((m + 1,), _INDEX_DTYPE))
  _, _, col_to_row = jax.lax.fori_loop(1, n + 1, add_row, carry)
  return col_to_row


def hungarian_algorithm(cost_matrix: jax.Array
                        ) -> tuple[jax.Array, jax.Array]:
  r"""Solves the linear assignment problem (shortest augmenting paths).

  .. math::

    \min_{(i_t, j_t)_{t \le k}} \sum_{t=1}^{k} C_{i_t j_t}, \quad
    k = \min(n, m),

  over pairs with distinct rows and distinct columns. Rows (or columns, for
  a tall matrix) are added one at a time, each along a shortest augmenting
  path in the reduced costs, with dual potentials (Jonker and Volgenant,
  1987), in :math:`O(k^2 \max(n, m))`. Runs under ``jit`` and ``vmap``.

  Pairs come sorted by column for a square matrix and by decreasing
  index along the shorter side otherwise (as in Optax 0.2.8). With ties, any
  optimal assignment may be returned.

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

  .. seealso:: :func:`base_hungarian_algorithm`
  """
  costs = _as_float_costs('hungarian_algorithm', cost_matrix)
  n, m = costs.shape
  if n == 0 or m == 0:
    return _empty()
  transposed = n > m
  if transposed:
    costs = costs.T
  short, long = costs.shape
  col_to_row = _shortest_augmenting_path(costs)[1:] - 1
  if short == long:
    cols = jnp.arange(long, dtype=_INDEX_DTYPE)
    return col_to_row.astype(_INDEX_DTYPE), cols
  # Partner of each index of the short side, listed in decreasing order.
  short_side = jnp.arange(short - 1, -1, -1, dtype=_INDEX_DTYPE)
  row_to_col = jnp.zeros((short,), _INDEX_DTYPE).at[
      jnp.where(col_to_row >= 0, col_to_row, short)].set(
          jnp.arange(long, dtype=_INDEX_DTYPE), mode='drop')
  long_side = row_to_col[short_side]
  if transposed:
    return long_side, short_side
  return short_side, long_side


# Kuhn-Munkres with starred and primed zeros ---------------------------------


def _munkres(costs: jax.Array) -> jax.Array:
  """Stars one zero per row of a wide reduced matrix (n <= m).

  Args:
    costs: a float matrix of shape ``(n, m)`` with ``n <= m``.

  Returns:
    The boolean matrix of starred zeros: one per row, at most one per column,
    an optimal assignment.
  """
  n, m = costs.shape
  inf = jnp.array(jnp.inf, costs.dtype)
  # Step 1: subtract the row minima (every row will be assigned).
  costs = costs - jnp.min(costs, axis=1, keepdims=True)

  # Step 2: star zeros greedily, row by row.
  def star_row(i, starred):
    free = (costs[i] == 0) & ~jnp.any(starred, axis=0)
    j = jnp.argmax(free)
    return starred.at[i, j].set(jnp.any(free))

  starred = jax.lax.fori_loop(
      0, n, star_row, jnp.zeros((n, m), bool))

  # Every loop is bounded, so that NaN costs cannot hang the program and
  # finished problems of a vmapped batch stay put while the others run.
  max_prime_steps = 2 * (n + 1) * (m + 1)

  def find_augmenting_zero(costs, starred):
    """Steps 3, 4 and 6: primes zeros until one starts an augmenting path."""

    def searching(state):
      found, active, steps = state[-3:]
      return ~found & active & (steps < max_prime_steps)

    def step(state):
      costs, primed, row_covered, col_covered, _, _, _, steps = state
      uncovered = ~row_covered[:, None] & ~col_covered[None, :]
      zeros = uncovered & (costs == 0)
      has_zero = jnp.any(zeros)
      # Step 6 when every zero is covered: create one by shifting by the
      # smallest uncovered cost.
      shift = jnp.min(jnp.where(uncovered, costs, inf))
      active = has_zero | jnp.isfinite(shift)
      shifted = (costs + jnp.where(row_covered[:, None], shift, 0)
                 - jnp.where(col_covered[None, :], 0, shift))
      costs = jnp.where(has_zero | ~active, costs, shifted)
      # Step 4: prime the first uncovered zero; cover its row if the row has
      # a starred zero (and uncover the star's column), else a path starts.
      flat = jnp.argmax(zeros)
      r, c = flat // m, flat % m
      primed = primed.at[r, c].set(primed[r, c] | has_zero)
      star_col = jnp.argmax(starred[r])
      star_in_row = jnp.any(starred[r])
      cover = has_zero & star_in_row
      row_covered = row_covered.at[r].set(row_covered[r] | cover)
      col_covered = col_covered.at[star_col].set(
          col_covered[star_col] & ~cover)
      found = has_zero & ~star_in_row
      start = (r.astype(_INDEX_DTYPE), c.astype(_INDEX_DTYPE))
      return (costs, primed, row_covered, col_covered, start, found, active,
              steps + 1)

    state = (costs, jnp.zeros((n, m), bool), jnp.zeros((n,), bool),
             jnp.any(starred, axis=0),
             (jnp.array(0, _INDEX_DTYPE), jnp.array(0, _INDEX_DTYPE)),
             jnp.array(False), jnp.sum(starred) < n, jnp.array(0))
    costs, primed, _, _, start, found, _, _ = jax.lax.while_loop(
        searching, step, state)
    return costs, primed, start, found

  def augment(starred, primed, start, found):
    """Step 5: swaps starred and primed zeros along the alternating path."""

    def walking(state):
      return state[2] & (state[3] <= n)

    def step(state):
      starred, (r, c), _, steps = state
      column_star = starred[:, c]
      has_star = jnp.any(column_star)
      star_row = jnp.argmax(column_star).astype(_INDEX_DTYPE)
      starred = starred.at[star_row, c].set(
          starred[star_row, c] & ~has_star)
      starred = starred.at[r, c].set(True)
      next_col = jnp.argmax(primed[star_row]).astype(_INDEX_DTYPE)
      return starred, (star_row, next_col), has_star, steps + 1

    starred, _, _, _ = jax.lax.while_loop(
        walking, step, (starred, start, found, jnp.array(0)))
    return starred

  def incomplete(state):
    _, starred, progressing = state
    return progressing & (jnp.sum(starred) < n)

  def one_more_star(state):
    costs, starred, _ = state
    costs, primed, start, found = find_augmenting_zero(costs, starred)
    return costs, augment(starred, primed, start, found), found

  _, starred, _ = jax.lax.while_loop(
      incomplete, one_more_star, (costs, starred, jnp.array(True)))

  # Only with non-finite costs can rows stay unassigned: give them the free
  # columns in order, so the result is still a valid assignment.
  def complete_row(i, starred):
    missing = ~jnp.any(starred[i])
    j = jnp.argmax(~jnp.any(starred, axis=0))
    return starred.at[i, j].set(starred[i, j] | missing)

  return jax.lax.fori_loop(0, n, complete_row, starred)


def base_hungarian_algorithm(cost_matrix: jax.Array
                             ) -> tuple[jax.Array, jax.Array]:
  r"""Solves the linear assignment problem (textbook Hungarian method).

  The method of Kuhn (1955) in the form of Munkres (1957): reduce the rows,
  star independent zeros, then repeatedly cover the starred columns, prime
  uncovered zeros and either augment the starred set along an alternating
  path or shift the costs by the smallest uncovered entry. Rectangular
  matrices are handled by working on the shorter side (Bourgeois and
  Lassalle, 1971). Runs under ``jit`` and ``vmap``; slower than
  :func:`hungarian_algorithm` on large matrices.

  Pairs come sorted by row. With ties, any optimal assignment may be
  returned.

  Examples:
    >>> import jax.numpy as jnp
    >>> from optax import assignment
    >>> cost = jnp.array([[4.0, 1.0, 3.0], [2.0, 0.0, 5.0], [3.0, 2.0, 2.0]])
    >>> i, j = assignment.base_hungarian_algorithm(cost)
    >>> print(i, j, cost[i, j].sum())
    [0 1 2] [1 0 2] 5.0

  Args:
    cost_matrix: a real matrix of shape ``(n, m)``.

  Returns:
    ``(i, j)``: two int32 arrays of length :math:`\min(n, m)`, the rows
    (increasing) and columns of the optimal pairs.

  References:
    Kuhn, `The Hungarian method for the assignment problem
    <https://doi.org/10.1002/nav.3800020109>`_, 1955

    Munkres, `Algorithms for the assignment and transportation problems
    <https://doi.org/10.1137/0105003>`_, 1957

    Bourgeois and Lassalle, `An extension of the Munkres algorithm for the
    assignment problem to rectangular matrices
    <https://doi.org/10.1145/362919.362945>`_, 1971

  .. seealso:: :func:`hungarian_algorithm`
  """
  costs = _as_float_costs('base_hungarian_algorithm', cost_matrix)
  n, m = costs.shape
  if n == 0 or m == 0:
    return _empty()
  transposed = n > m
  if transposed:
    costs = costs.T
  starred = _munkres(costs)
  short_side = jnp.arange(costs.shape[0], dtype=_INDEX_DTYPE)
  long_side = jnp.argmax(starred, axis=1).astype(_INDEX_DTYPE)
  if not transposed:
    return short_side, long_side
  order = jnp.argsort(long_side)
  return long_side[order], short_side[order]
