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
"""Float64 NumPy references of L-BFGS and the line searches (issue 41).

Written from Nocedal and Wright, Numerical Optimization (2nd ed., 2006):
the two-loop recursion of Algorithm 7.4 with the initial matrix of eq.
(7.20), the dense BFGS inverse update of eq. (6.17) that the recursion
applies implicitly, the backtracking of Algorithm 3.1 (Armijo condition,
eq. 3.4), the bracketing phase of Algorithm 3.5 and the strong Wolfe
conditions (3.7); and from the docstrings of ``optax.scale_by_lbfgs``,
``optax.lbfgs``, ``optax.scale_by_backtracking_linesearch`` and
``optax.scale_by_zoom_linesearch`` for their options (the first step's
scale, the tolerances, the initial guess, what is kept when nothing is
found). Never from an implementation. Everything is float64 NumPy; one
array is the whole parameter vector. ``linesearch_contracts_test.py``
compares the library with these.
"""

from collections.abc import Callable, Sequence
from typing import NamedTuple, Optional

import numpy as np

Arrays = Sequence[np.ndarray]


def _f64(x) -> np.ndarray:
  return np.asarray(x, np.float64)


# ------------------------------------------------------------------ L-BFGS


def two_loop(g: np.ndarray, s_hist: Arrays, y_hist: Arrays,
             gamma: float) -> np.ndarray:
  """``H g`` by the two-loop recursion (Algorithm 7.4), pairs oldest first.

  A pair with ``s^T y = 0`` (a zero gradient difference) has no defined
  weight ``rho = 1 / s^T y``; it is left out, as an empty slot of the
  memory is.

  Args:
    g: the vector to multiply.
    s_hist: the param differences ``s_i``, oldest first.
    y_hist: the gradient differences ``y_i``, oldest first.
    gamma: the scale of the initial matrix ``H_0 = gamma I``.

  Returns:
    The product ``H g``.
  """
  pairs = [(_f64(s), _f64(y)) for s, y in zip(s_hist, y_hist)
           if float(np.dot(s, y)) != 0.0]
  q = _f64(g).copy()
  alphas = []
  for s, y in reversed(pairs):
    alpha = np.dot(s, q) / np.dot(s, y)
    q = q - alpha * y
    alphas.append(alpha)
  r = gamma * q
  for (s, y), alpha in zip(pairs, reversed(alphas)):
    beta = np.dot(y, r) / np.dot(s, y)
    r = r + (alpha - beta) * s
  return r


def bfgs_inverse(s_hist: Arrays, y_hist: Arrays, gamma: float,
                 n: int) -> np.ndarray:
  """The dense inverse-Hessian approximation of eq. (6.17) from gamma I.

  ``H <- (I - rho s y^T) H (I - rho y s^T) + rho s s^T`` for each pair,
  oldest first (pairs with ``s^T y = 0`` left out, as in ``two_loop``).

  Args:
    s_hist: the param differences, oldest first.
    y_hist: the gradient differences, oldest first.
    gamma: the scale of the initial matrix.
    n: the dimension.

  Returns:
    The ``(n, n)`` matrix ``H``.
  """
  h = gamma * np.eye(n)
  for s, y in zip(map(_f64, s_hist), map(_f64, y_hist)):
    sy = float(np.dot(s, y))
    if sy == 0.0:
      continue
    v = np.eye(n) - np.outer(y, s) / sy
    h = v.T @ h @ v + np.outer(s, s) / sy
  return h


def lbfgs_initial_scale(k: int, g: np.ndarray, s_hist: Arrays,
                        y_hist: Arrays, scale_init_precond: bool) -> float:
  """The scale gamma of ``H_0`` at step ``k`` (docstrings and eq. 7.20).

  ``s^T y / y^T y`` of the newest pair (eq. 7.20); at the first step, with
  no pair yet, ``min(1, 1 / ||g_0||)`` as the docstring of
  ``scale_by_lbfgs`` says; 1 without ``scale_init_precond``. Where ``y = 0``
  eq. (7.20) is undefined; the inputs of the tests have ``g = 0`` there,
  where the scale does not matter, and 1 is used.

  Args:
    k: the step, from 0.
    g: the gradient of the step.
    s_hist: the param differences kept, oldest first.
    y_hist: the gradient differences kept, oldest first.
    scale_init_precond: the option of the same name.

  Returns:
    The scale.
  """
  if not scale_init_precond:
    return 1.0
  if k == 0:
    norm = float(np.linalg.norm(g))
    return 1.0 if norm == 0.0 else min(1.0, 1.0 / norm)
  s, y = _f64(s_hist[-1]), _f64(y_hist[-1])
  yy = float(np.dot(y, y))
  return 1.0 if yy == 0.0 else float(np.dot(s, y)) / yy


def scale_by_lbfgs(grads: Arrays, params: Arrays, memory_size: int = 10,
                   scale_init_precond: bool = True) -> list[np.ndarray]:
  """The outputs ``H_k g_k`` of ``scale_by_lbfgs`` over the steps.

  The pairs are ``s_j = x_{j+1} - x_j`` and ``y_j = g_{j+1} - g_j`` of the
  params and gradients the transformation saw, the last ``memory_size`` of
  them kept (Algorithm 7.5's memory).

  Args:
    grads: the gradients (updates) of the steps.
    params: the params of the steps.
    memory_size: the number of pairs kept.
    scale_init_precond: the option of the same name.

  Returns:
    The preconditioned updates of the steps.
  """
  grads, params = list(map(_f64, grads)), list(map(_f64, params))
  out = []
  for k, g in enumerate(grads):
    lo = max(0, k - memory_size)
    s_hist = [params[j + 1] - params[j] for j in range(lo, k)]
    y_hist = [grads[j + 1] - grads[j] for j in range(lo, k)]
    gamma = lbfgs_initial_scale(k, g, s_hist, y_hist, scale_init_precond)
    out.append(two_loop(g, s_hist, y_hist, gamma))
  return out


# ----------------------------------------------------------- line searches


class Trial(NamedTuple):
  """The outcome of a line search along one direction."""
  stepsize: float
  value: float
  evaluations: int
  accepted: bool


def armijo_holds(value: float, value0: float, slope0: float,
                 stepsize: float, c: float, atol: float = 0.0,
                 rtol: float = 0.0) -> bool:
  """The sufficient decrease (3.4) with the tolerances of the docstring."""
  bound = (1.0 + rtol) * value0 + c * stepsize * slope0 + atol
  return bool(value <= bound)


def backtracking(phi: Callable[[float], float], value0: float, slope0: float,
                 guess: float, decrease_factor: float, slope_rtol: float,
                 max_backtracking_steps: int, atol: float = 0.0,
                 rtol: float = 0.0) -> Trial:
  """Algorithm 3.1 from ``guess``: ``alpha <- rho alpha`` until (3.4) holds.

  At most ``max_backtracking_steps`` reductions (so one value more). When
  none holds, the last step size tried is returned (the docstring's unsafe
  step), unless its value is not finite: then no step is made (step size 0,
  the value at the start), as the state's docstring says.

  Args:
    phi: ``alpha -> f(w + alpha u)``.
    value0: ``f(w)``.
    slope0: ``<u, grad f(w)>``.
    guess: the first step size tried.
    decrease_factor: the factor ``rho`` in (0, 1).
    slope_rtol: the constant ``c`` of (3.4).
    max_backtracking_steps: the largest number of reductions.
    atol: absolute tolerance of the condition.
    rtol: relative tolerance of the condition.

  Returns:
    The step size, the value there, the number of values computed and
    whether the condition holds.
  """
  alpha = guess
  for i in range(max_backtracking_steps + 1):
    if i:
      alpha *= decrease_factor
    value = float(phi(alpha))
    if armijo_holds(value, value0, slope0, alpha, slope_rtol, atol, rtol):
      return Trial(alpha, value, i + 1, True)
  if not np.isfinite(value):
    return Trial(0.0, value0, max_backtracking_steps + 1, False)
  return Trial(alpha, value, max_backtracking_steps + 1, False)


def strong_wolfe_errors(value: float, slope: float, value0: float,
                        slope0: float, stepsize: float, c1: float, c2: float,
                        approx_dec_rtol: Optional[float] = None
                        ) -> tuple[float, float]:
  """By how much a step size misses the conditions (3.7), each ``>= 0``.

  The sufficient decrease error is ``f - f0 - c1 alpha slope0``; with
  ``approx_dec_rtol`` (the zoom search's docstring, after Hager and Zhang),
  where ``f <= f0 + eps |f0|`` it is the smaller of that and the approximate
  form's ``slope - (2 c1 - 1) slope0``. The curvature error is ``|slope| -
  c2 |slope0|``.

  Args:
    value: ``phi(alpha)``.
    slope: ``phi'(alpha)``.
    value0: ``phi(0)``.
    slope0: ``phi'(0)``.
    stepsize: ``alpha``.
    c1: the sufficient decrease constant.
    c2: the curvature constant.
    approx_dec_rtol: ``eps`` of the approximate condition, or None.

  Returns:
    The two errors, 0 where a condition holds.
  """
  exact = value - value0 - c1 * stepsize * slope0
  decrease = exact
  if (approx_dec_rtol is not None
      and value <= value0 + approx_dec_rtol * abs(value0)):
    decrease = min(exact, slope - (2.0 * c1 - 1.0) * slope0)
  curvature = abs(slope) - c2 * abs(slope0)
  return max(decrease, 0.0), max(curvature, 0.0)


def bracketing(phi: Callable[[float], tuple[float, float]], value0: float,
               slope0: float, guess: float, increase_factor: float,
               c1: float, c2: float, max_steps: int,
               max_stepsize: Optional[float] = None) -> Optional[Trial]:
  """The bracketing phase of Algorithm 3.5, where it ends the search.

  Trials ``guess``, ``increase_factor`` times it, ... (capped at
  ``max_stepsize``): the first one meeting (3.7) is accepted. Returns None
  where the algorithm would call zoom (a trial misses the decrease, does
  not lower the value, or has a nonnegative slope) before that: the zoom
  phase's interpolations are a choice of the implementation that the
  contract tests check by the conditions only. When the cap is reached
  without either, the search stops (the docstring: no interval below the
  largest step size) and the capped step is returned unaccepted; likewise
  after ``max_steps`` trials, the last of them.

  Args:
    phi: ``alpha -> (f(w + alpha u), <grad f(w + alpha u), u>)``.
    value0: ``phi(0)``.
    slope0: ``phi'(0)``.
    guess: the first step size.
    increase_factor: the factor enlarging the step size.
    c1: the sufficient decrease constant.
    c2: the curvature constant.
    max_steps: the largest number of trials.
    max_stepsize: the cap, or None.

  Returns:
    The step size, value, number of trials and whether it was accepted; or
    None where the zoom phase would start.
  """
  alpha, prev_value = guess, value0
  if max_stepsize is not None:
    alpha = min(alpha, max_stepsize)
  for i in range(max_steps):
    value, slope = phi(alpha)
    dec, curv = strong_wolfe_errors(value, slope, value0, slope0, alpha, c1,
                                    c2)
    if dec > 0 or (i > 0 and value >= prev_value):
      return None
    if curv == 0:
      return Trial(alpha, value, i + 1, True)
    if slope >= 0:
      return None
    capped = max_stepsize is not None and alpha >= max_stepsize
    if capped or i == max_steps - 1:
      return Trial(alpha, value, i + 1, False)
    prev_value = value
    alpha *= increase_factor
    if max_stepsize is not None:
      alpha = min(alpha, max_stepsize)
  return None
