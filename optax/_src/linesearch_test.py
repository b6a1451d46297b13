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
"""Tests for ``optax._src.linesearch``.

The accepted step sizes are checked against the Armijo and strong Wolfe
conditions evaluated in NumPy (float64) on the returned step; small 1-D
problems whose searches can be followed by hand check the trial sequence;
failures (non-descent directions, capped step sizes) are checked through
their flags and verbose messages; ``lbfgs`` with the default line search is
checked against SciPy's L-BFGS-B on convex problems.
"""

import contextlib
import functools
import io
import re

from absl.testing import absltest
from absl.testing import parameterized
import jax
import jax.numpy as jnp
import numpy as np
import scipy.optimize
from sklearn import datasets

from optax._src import alias
from optax._src import base
from optax._src import linesearch
from optax._src import test_utils
from optax._src.testing import cases
from optax.schedules import _inject
from optax.transforms import _combining


# ------------------------------------------------------------------------------
# Problems, each with a JAX objective and a NumPy (float64) value/gradient.
# ------------------------------------------------------------------------------


def _quadratic(seed, n=5):
  """0.5 x^T A x - b^T x with a random SPD matrix A.

  Returns (fun, data, np_fun, np_grad, x0): ``fun(x, **data)`` is the JAX
  objective (its data passed as extra arguments, so that one compiled search
  serves every seed), ``np_fun`` and ``np_grad`` its float64 NumPy value and
  gradient.
  """
  rng = np.random.RandomState(seed)
  m = rng.randn(n, n)
  a = m @ m.T / n + np.eye(n)
  b = rng.randn(n)

  def np_fun(x):
    return 0.5 * x @ a @ x - b @ x

  def np_grad(x):
    return a @ x - b

  return _quadratic_fun, _as_data(a=a, b=b), np_fun, np_grad, rng.randn(n)


def _quadratic_fun(x, a, b):
  return 0.5 * x @ a @ x - b @ x


def _rosenbrock(seed, n=4):
  rng = np.random.RandomState(seed)

  def np_fun(x):
    return np.sum(100.0 * (x[1:] - x[:-1] ** 2) ** 2 + (1.0 - x[:-1]) ** 2)

  def np_grad(x):
    g = np.zeros_like(x)
    r = x[1:] - x[:-1] ** 2
    g[:-1] += -400.0 * r * x[:-1] - 2.0 * (1.0 - x[:-1])
    g[1:] += 200.0 * r
    return g

  return _rosenbrock_fun, {}, np_fun, np_grad, rng.uniform(-1.5, 1.5, n)


def _rosenbrock_fun(x):
  return jnp.sum(100.0 * (x[1:] - x[:-1] ** 2) ** 2 + (1.0 - x[:-1]) ** 2)


def _logcosh(seed, n=4):
  """sum(log cosh(A x - b)): smooth, convex, flat far from the optimum."""
  rng = np.random.RandomState(seed)
  a = rng.randn(2 * n, n)
  b = rng.randn(2 * n)

  def np_fun(x):
    r = a @ x - b
    return np.sum(np.logaddexp(r, -r))

  def np_grad(x):
    return a.T @ np.tanh(a @ x - b)

  return _logcosh_fun, _as_data(a=a, b=b), np_fun, np_grad, 3.0 * rng.randn(n)


def _logcosh_fun(x, a, b):
  r = a @ x - b
  return jnp.sum(jnp.logaddexp(r, -r))


def _as_data(**arrays):
  return {k: jnp.asarray(v, jnp.float32) for k, v in arrays.items()}


_PROBLEMS = {'quadratic': _quadratic, 'rosenbrock': _rosenbrock,
             'logcosh': _logcosh}


def _phi(np_fun, np_grad, x, d, eta):
  """Value and slope of the objective along d, in float64."""
  y = x + eta * d
  return np_fun(y), np_grad(y) @ d


def _search(tx, fun, x, d, state=None, **extra):
  """One line search step from x along d; returns (updates, state).

  ``extra`` holds the data of ``fun`` (forwarded to it by the search).
  """
  x = jnp.asarray(x, jnp.float32)
  d = jnp.asarray(d, jnp.float32)
  if state is None:
    state = tx.init(x)
  value, grad = jax.value_and_grad(fun)(x, **extra)
  return tx.update(d, state, x, value=value, grad=grad, value_fn=fun, **extra)


_jitted_search = jax.jit(_search, static_argnums=(0, 1))


def _as_float64(x):
  """The float32 rounding of x, in float64 (what the search saw)."""
  return np.asarray(jnp.asarray(x, jnp.float32), np.float64)


def _printed(fn):
  """Runs fn() and returns what it printed (verbose messages included)."""
  buffer = io.StringIO()
  with contextlib.redirect_stdout(buffer):
    out = fn()
    jax.effects_barrier()
  return out, buffer.getvalue()


def _counting(fun):
  """Wraps fun so that each call appends its argument to a list."""
  calls = []

  def wrapped(x):
    jax.debug.callback(lambda y: calls.append(np.asarray(y)), x)
    return fun(x)

  return wrapped, calls


# ------------------------------------------------------------------------------
# Zoom line search.
# ------------------------------------------------------------------------------


class ZoomLinesearchTest(parameterized.TestCase):

  @parameterized.product(problem=tuple(_PROBLEMS), jit=(True, False))
  def test_accepted_stepsize_satisfies_strong_wolfe(self, problem, jit):
    c1, c2 = 1e-4, 0.9
    tx = linesearch.scale_by_zoom_linesearch(
        max_linesearch_steps=40, slope_rtol=c1, curv_rtol=c2)
    # Without jit each search compiles anew: fewer cases.
    seeds, scales = ((0, 1, 2), (1.0, 30.0, 1e-3)) if jit else ((0,), (30.0,))
    for seed in seeds:
      fun, data, np_fun, np_grad, x = _PROBLEMS[problem](seed)
      for scale in scales:
        d = -scale * np_grad(x)
        search = _jitted_search if jit else _search
        updates, state = search(tx, fun, x, d, **data)
        eta = float(state.learning_rate)
        x32, d32 = _as_float64(x), _as_float64(d)
        value0, slope0 = _phi(np_fun, np_grad, x32, d32, 0.0)
        value, slope = _phi(np_fun, np_grad, x32, d32, eta)
        msg = f'seed {seed}, scale {scale}'
        self.assertGreater(eta, 0.0, msg)
        self.assertLess(slope0, 0.0, msg)
        slack = 1e-5 * (abs(value0) + 1.0)
        self.assertLessEqual(value, value0 + c1 * eta * slope0 + slack, msg)
        self.assertLessEqual(abs(slope), c2 * abs(slope0) * (1 + 1e-4), msg)
        self.assertLess(value, value0, msg)
        self.assertEqual(float(state.info.decrease_error), 0.0, msg)
        self.assertEqual(float(state.info.curvature_error), 0.0, msg)
        np.testing.assert_allclose(updates, eta * d32, rtol=1e-6,
                                   atol=1e-30, err_msg=msg)
        # The state holds the value and gradient at the new point.
        np.testing.assert_allclose(state.value, value, rtol=1e-4,
                                   atol=1e-5 * abs(value0), err_msg=msg)
        grad_scale = np.abs(np_grad(x32)).max()
        np.testing.assert_allclose(state.grad, np_grad(x32 + eta * d32),
                                   rtol=1e-3, atol=1e-4 * grad_scale,
                                   err_msg=msg)

  def test_quadratic_interpolation_finds_the_minimizer(self):
    # phi(eta) = (4 eta - 1)^2: eta = 1 fails the decrease; the quadratic
    # through phi(0), phi'(0), phi(1) is phi itself, minimized at 1/4,
    # which lies inside the safeguards [0.1, 0.9].
    fun, calls = _counting(lambda x: jnp.sum((x - 1.0) ** 2))
    tx = linesearch.scale_by_zoom_linesearch(max_linesearch_steps=10)
    updates, state = _search(tx, fun, np.zeros(1), np.array([4.0]))
    calls = calls[1:]  # The first call computes the initial value.
    np.testing.assert_allclose(np.concatenate(calls), [4.0, 1.0])
    self.assertEqual(int(state.info.num_linesearch_steps), 2)
    np.testing.assert_allclose(state.learning_rate, 0.25)
    np.testing.assert_allclose(updates, [1.0])
    np.testing.assert_allclose(state.value, 0.0, atol=1e-12)

  def test_minimizer_too_close_to_an_end_is_replaced_by_bisection(self):
    # phi(eta) = (100 eta - 1)^2, minimized at 0.01 < 0.1: the quadratic
    # interpolation is rejected, the interval is halved until 0.01 is more
    # than a tenth of its length away from its ends (the interval [0, 1/16]
    # after four halvings) and then found exactly.
    fun, calls = _counting(lambda x: jnp.sum((x - 1.0) ** 2))
    tx = linesearch.scale_by_zoom_linesearch(max_linesearch_steps=10)
    _, state = _search(tx, fun, np.zeros(1), np.array([100.0]))
    trials = np.concatenate(calls[1:]) / 100.0
    np.testing.assert_allclose(
        trials, [1.0, 0.5, 0.25, 0.125, 0.0625, 0.01], rtol=1e-6)
    self.assertEqual(int(state.info.num_linesearch_steps), 6)
    np.testing.assert_allclose(state.learning_rate, 0.01, rtol=1e-6)

  @parameterized.parameters(2.0, 3.0)
  def test_stepsize_grows_until_the_curvature_condition_holds(
      self, increase_factor):
    # phi(eta) = (c eta - 1)^2 with a small c: phi'(eta) = 2c(c eta - 1), the
    # curvature condition |phi'(eta)| <= 0.9 * 2c holds once c eta >= 0.1.
    c = 0.003
    fun, calls = _counting(lambda x: jnp.sum((x - 1.0) ** 2))
    tx = linesearch.scale_by_zoom_linesearch(
        max_linesearch_steps=20, increase_factor=increase_factor)
    _, state = _search(tx, fun, np.zeros(1), np.array([c]))
    expected = [1.0]
    while c * expected[-1] < 0.1:
      expected.append(expected[-1] * increase_factor)
    trials = np.concatenate(calls[1:]) / c
    np.testing.assert_allclose(trials, expected, rtol=1e-5)
    np.testing.assert_allclose(state.learning_rate, expected[-1], rtol=1e-6)
    self.assertEqual(float(state.info.curvature_error), 0.0)

  def test_max_learning_rate_caps_the_stepsize(self):
    c = 0.003
    tx = linesearch.scale_by_zoom_linesearch(
        max_linesearch_steps=20, max_learning_rate=5.0, verbose=True)
    (updates, state), out = _printed(lambda: _search(
        tx, lambda x: jnp.sum((x - 1.0) ** 2), np.zeros(1), np.array([c])))
    # Trials 1, 2, 4, 5: the last one meets the decrease condition only.
    self.assertEqual(int(state.info.num_linesearch_steps), 4)
    np.testing.assert_allclose(state.learning_rate, 5.0)
    np.testing.assert_allclose(updates, [5.0 * c], rtol=1e-6)
    self.assertEqual(float(state.info.decrease_error), 0.0)
    # |phi'(5)| - 0.9 |phi'(0)| with phi'(eta) = 2c (c eta - 1).
    np.testing.assert_allclose(
        state.info.curvature_error, 2 * c * (1 - 5 * c) - 0.9 * 2 * c,
        rtol=1e-4)
    self.assertIn(linesearch.FLAG_INTERVAL_NOT_FOUND, out)
    self.assertIn(linesearch.FLAG_CURVATURE_COND_NOT_SATISFIED, out)
    self.assertNotIn(linesearch.FLAG_NO_STEPSIZE_FOUND, out)

  def test_first_guess_is_capped(self):
    tx = linesearch.scale_by_zoom_linesearch(
        max_linesearch_steps=1, max_learning_rate=0.5)
    _, state = _search(tx, lambda x: jnp.sum((x - 1.0) ** 2),
                       np.zeros(1), np.array([0.003]))
    np.testing.assert_allclose(state.learning_rate, 0.5)

  @parameterized.parameters(False, True)
  def test_non_descent_direction(self, jit):
    fun = lambda x: jnp.sum((x - 1.0) ** 2)
    num_steps = 12
    tx = linesearch.scale_by_zoom_linesearch(
        max_linesearch_steps=num_steps, verbose=True)
    search = _jitted_search if jit else _search
    # The slope at 0 is +4: every trial increases the objective; the search
    # halves the step size until it runs out of steps.
    (updates, state), out = _printed(
        lambda: search(tx, fun, np.zeros(2), -np.ones(2)))
    self.assertEqual(int(state.info.num_linesearch_steps), num_steps)
    eta = 0.5 ** (num_steps - 1)
    np.testing.assert_allclose(state.learning_rate, eta)
    np.testing.assert_allclose(updates, [-eta, -eta])
    self.assertGreater(float(state.info.decrease_error), 0.0)
    np.testing.assert_allclose(state.value, 2 * (1 + eta) ** 2, rtol=1e-6)
    self.assertIn(linesearch.FLAG_NO_STEPSIZE_FOUND, out)
    self.assertIn(linesearch.FLAG_NOT_A_DESCENT_DIRECTION, out)
    self.assertNotIn(linesearch.FLAG_CURVATURE_COND_NOT_SATISFIED, out)

  def test_no_message_when_the_search_succeeds(self):
    tx = linesearch.scale_by_zoom_linesearch(
        max_linesearch_steps=10, verbose=True)
    _, out = _printed(lambda: _search(
        tx, lambda x: jnp.sum((x - 1.0) ** 2), np.zeros(2), np.ones(2)))
    self.assertEqual(out, '')

  def test_too_short_interval_returns_a_safe_stepsize(self):
    # |3 eta - 1| has slopes of +-3 only: the curvature condition never
    # holds; the search stops when the interval around 1/3 gets shorter
    # than stepsize_precision and returns its best point.
    tx = linesearch.scale_by_zoom_linesearch(
        max_linesearch_steps=50, stepsize_precision=1e-3, verbose=True)
    (updates, state), out = _printed(lambda: _search(
        tx, lambda x: jnp.sum(jnp.abs(x - 1.0)), np.zeros(1), np.array([3.0])))
    eta = float(state.learning_rate)
    self.assertLess(int(state.info.num_linesearch_steps), 50)
    self.assertLess(abs(eta - 1 / 3), 1e-3)
    self.assertLess(float(state.value), 1.0 - 1e-4 * 3 * eta)
    np.testing.assert_allclose(updates, [3 * eta], rtol=1e-6)
    self.assertEqual(float(state.info.decrease_error), 0.0)
    self.assertGreater(float(state.info.curvature_error), 0.0)
    self.assertIn(linesearch.FLAG_INTERVAL_TOO_SMALL, out)
    self.assertIn(linesearch.FLAG_CURVATURE_COND_NOT_SATISFIED, out)

  @parameterized.parameters(False, True)
  def test_zero_gradient_gives_zero_update(self, jit):
    fun = lambda x: jnp.sum((x - 1.0) ** 2)
    tx = linesearch.scale_by_zoom_linesearch(max_linesearch_steps=10)
    search = _jitted_search if jit else _search
    updates, state = search(tx, fun, np.ones(3), np.zeros(3))
    np.testing.assert_array_equal(updates, np.zeros(3))
    test_utils.assert_tree_all_finite(state)
    self.assertEqual(int(state.info.num_linesearch_steps), 1)
    np.testing.assert_array_equal(state.value, 0.0)

  def test_flat_region_stays_finite(self):
    # Zero value and gradient on x < 0, a ridge at 0: no NaN anywhere.
    fun = lambda x: jnp.sum(jnp.maximum(x, 0.0) ** 2)
    tx = linesearch.scale_by_zoom_linesearch(max_linesearch_steps=15)
    for d in (np.ones(2), -np.ones(2), np.array([3.0, -1.0])):
      updates, state = _search(tx, fun, -np.ones(2), d)
      test_utils.assert_tree_all_finite((updates, state))

  @parameterized.parameters(1.99986, 1.99995)
  def test_approximate_wolfe_near_flat_decrease(self, d):
    # phi(eta) = (d eta - 1)^4 at eta = 1 with d slightly below 2: the value
    # decreases by about 4(d - 2), less than the 8e-4 asked by the exact
    # decrease condition. The approximate condition of Hager and Zhang,
    # phi'(1) <= (1 - 2e-4) |phi'(0)|, holds for d = 1.99986, not for
    # 1.99995; its error then counts when smaller than the exact one.
    fun = lambda x: jnp.sum((x - 1.0) ** 4)
    value0, slope0 = 1.0, -4 * d
    value1, slope1 = (d - 1) ** 4, 4 * d * (d - 1) ** 3
    exact_error = value1 - value0 - 1e-4 * slope0
    approx_error = slope1 - (2e-4 - 1) * slope0
    self.assertGreater(exact_error, 0.0)
    tx = linesearch.scale_by_zoom_linesearch(max_linesearch_steps=1)
    _, state = _search(tx, fun, np.zeros(1), np.array([d]))
    expected = max(min(exact_error, approx_error), 0.0)
    np.testing.assert_allclose(state.info.decrease_error, expected,
                               atol=2e-5)
    if d < 1.9999:
      self.assertLessEqual(approx_error, 0.0)
      self.assertEqual(float(state.info.decrease_error), 0.0)
    else:
      self.assertGreater(approx_error, 0.0)
      self.assertLess(approx_error, exact_error)

  def test_approx_dec_rtol_none_uses_only_the_exact_decrease(self):
    # The first problem of the test above (d = 1.99986), where only the
    # approximate condition holds at eta = 1. With approx_dec_rtol=None the
    # error is the exact one, (d - 1)^4 - 1 + 4e-4 d. The numbers are those
    # upstream optax 0.2.8 gives for the same calls.
    fun = lambda x: jnp.sum((x - 1.0) ** 4)
    d = np.array([1.99986])
    tx = linesearch.scale_by_zoom_linesearch(
        max_linesearch_steps=1, approx_dec_rtol=None)
    updates, state = _search(tx, fun, np.zeros(1), d)
    np.testing.assert_allclose(updates, d.astype(np.float32))
    # A float32 difference of values near 1 (an ulp of 1 is 5e-4 of it).
    np.testing.assert_allclose(state.info.decrease_error,
                               0.00024021552235353738, rtol=1e-3)
    np.testing.assert_allclose(state.info.decrease_error,
                               (d[0] - 1) ** 4 - 1 + 4e-4 * d[0], rtol=5e-3)
    tx = linesearch.scale_by_zoom_linesearch(
        max_linesearch_steps=10, approx_dec_rtol=None)
    updates, state = _search(tx, fun, np.zeros(1), d)
    np.testing.assert_allclose(state.learning_rate, 0.5000349879264832,
                               rtol=1e-6)
    np.testing.assert_allclose(updates, [1.0], rtol=1e-6)
    self.assertEqual(float(state.info.decrease_error), 0.0)
    self.assertEqual(float(state.info.curvature_error), 0.0)
    self.assertEqual(int(state.info.num_linesearch_steps), 2)

  def test_tolerance_accepts_small_errors(self):
    # phi(eta) = (d eta - 1)^2 with d = 0.05: at eta = 1 the decrease
    # condition holds and the curvature condition fails by
    # |phi'(1)| - 0.9 |phi'(0)| = 2d(1 - d) - 1.8d = 0.005; a tolerance
    # above that accepts eta = 1 at once.
    fun = lambda x: jnp.sum((x - 1.0) ** 2)
    d = 0.05
    curvature_error = 2 * d * (1 - d) - 0.9 * 2 * d
    tx = linesearch.scale_by_zoom_linesearch(max_linesearch_steps=1)
    _, state = _search(tx, fun, np.zeros(1), np.array([d]))
    np.testing.assert_allclose(state.info.curvature_error, curvature_error,
                               rtol=1e-4)
    tx = linesearch.scale_by_zoom_linesearch(
        max_linesearch_steps=5, tol=2 * curvature_error)
    _, state = _search(tx, fun, np.zeros(1), np.array([d]))
    self.assertEqual(int(state.info.num_linesearch_steps), 1)
    np.testing.assert_allclose(state.learning_rate, 1.0)

  def test_initial_guess_strategies(self):
    fun = lambda x: jnp.sum((x - 1.0) ** 2)
    for strategy, second_count in (('keep', 1), ('one', 3)):
      tx = linesearch.scale_by_zoom_linesearch(
          max_linesearch_steps=10, initial_guess_strategy=strategy)
      _, state = _search(tx, fun, np.zeros(1), np.array([10.0]))
      self.assertEqual(int(state.info.num_linesearch_steps), 3)
      np.testing.assert_allclose(state.learning_rate, 0.1, rtol=1e-6)
      # Same search again: 'keep' starts from 0.1 and accepts it at once.
      _, state = _search(tx, fun, np.zeros(1), np.array([10.0]), state)
      self.assertEqual(int(state.info.num_linesearch_steps), second_count)

  def test_extra_args_are_forwarded_to_value_fn(self):
    def fun(x, target, *, scale=1.0):
      return scale * jnp.sum((x - target) ** 2)

    tx = linesearch.scale_by_zoom_linesearch(max_linesearch_steps=10)
    x = jnp.zeros(2)
    target = jnp.array([1.0, -1.0])
    value, grad = jax.value_and_grad(fun)(x, target, scale=2.0)
    updates, state = tx.update(-grad, tx.init(x), x, value=value, grad=grad,
                               value_fn=fun, target=target, scale=2.0)
    # The exact minimizer along -grad of this quadratic is 1/4.
    np.testing.assert_allclose(updates, target, rtol=1e-6)
    np.testing.assert_allclose(state.value, 0.0, atol=1e-12)

  @parameterized.parameters('zoom', 'backtracking')
  def test_extra_args_unknown_to_value_fn_raise(self, which):
    # As upstream 0.2.8: an extra argument value_fn does not take would be
    # silently dropped (e.g. a misspelt batch name), so it is an error.
    def fun(x, target):
      return jnp.sum((x - target) ** 2)

    if which == 'zoom':
      tx = linesearch.scale_by_zoom_linesearch(max_linesearch_steps=3)
    else:
      tx = linesearch.scale_by_backtracking_linesearch(
          max_backtracking_steps=3)
    x = jnp.zeros(2)
    target = jnp.ones(2)
    value, grad = jax.value_and_grad(fun)(x, target)
    with self.assertRaisesRegex(
        TypeError, r"Unexpected keyword arguments passed to update: \['batch',"
        r" 'unrelated'\]"):
      tx.update(-grad, tx.init(x), x, value=value, grad=grad, value_fn=fun,
                target=target, unrelated=3, batch=x)

  @parameterized.parameters('zoom', 'backtracking')
  def test_learning_rate_set_to_a_python_float(self, which):
    # tree_set(state, learning_rate=1.0) puts a Python float in the state;
    # update returns it as an array of init's dtype.
    if which == 'zoom':
      tx = linesearch.scale_by_zoom_linesearch(max_linesearch_steps=10)
    else:
      tx = linesearch.scale_by_backtracking_linesearch(
          max_backtracking_steps=10, increase_factor=1.0)
    x = jnp.array([2.0, -1.0])
    state = tx.init(x)
    lr_dtype = state.learning_rate.dtype
    state = state._replace(learning_rate=0.5)
    fun = lambda p: jnp.vdot(p, p)
    value, grad = jax.value_and_grad(fun)(x)
    updates, state = tx.update(-grad, state, x, value=value, grad=grad,
                               value_fn=fun)
    self.assertEqual(state.learning_rate.dtype, lr_dtype)
    self.assertEqual(updates.dtype, x.dtype)
    # The minimum of |x|^2 along -2x is at step size 1/2.
    np.testing.assert_allclose(updates, -x, rtol=1e-6)

  def test_needs_params(self):
    tx = linesearch.scale_by_zoom_linesearch(max_linesearch_steps=3)
    with self.assertRaisesRegex(ValueError, 'scale_by_zoom_linesearch'):
      tx.update(jnp.ones(2), tx.init(jnp.ones(2)), value=1.0,
                grad=jnp.ones(2), value_fn=jnp.sum)

  @parameterized.parameters(
      ({'initial_guess_strategy': 'max'}, 'initial_guess_strategy'),
      ({'max_learning_rate': -1.0}, 'max_learning_rate'),
      ({'tol': -1e-3}, 'tol'),
      ({'increase_factor': 0.0}, 'increase_factor'),
      ({'stepsize_precision': -1.0}, 'stepsize_precision'),
  )
  def test_invalid_arguments(self, kwargs, name):
    with self.assertRaisesRegex(ValueError,
                                f'scale_by_zoom_linesearch: {name}'):
      linesearch.scale_by_zoom_linesearch(max_linesearch_steps=3, **kwargs)
    with self.assertRaisesRegex(ValueError, 'max_linesearch_steps'):
      linesearch.scale_by_zoom_linesearch(max_linesearch_steps=-1)


# ------------------------------------------------------------------------------
# Backtracking line search.
# ------------------------------------------------------------------------------


class BacktrackingLinesearchTest(parameterized.TestCase):

  @parameterized.product(problem=tuple(_PROBLEMS), jit=(True, False))
  def test_accepted_stepsize_is_the_first_armijo_one(self, problem, jit):
    c, beta = 1e-4, 0.8
    tx = linesearch.scale_by_backtracking_linesearch(
        max_backtracking_steps=60, slope_rtol=c, decrease_factor=beta,
        store_grad=True)
    seeds, scales = ((0, 1), (1.0, 30.0)) if jit else ((1,), (30.0,))
    for seed in seeds:
      fun, data, np_fun, np_grad, x = _PROBLEMS[problem](seed)
      for scale in scales:
        d = -scale * np_grad(x)
        search = _jitted_search if jit else _search
        updates, state = search(tx, fun, x, d, **data)
        x32, d32 = _as_float64(x), _as_float64(d)
        eta = float(state.learning_rate)
        k = int(state.info.num_linesearch_steps) - 1
        msg = f'seed {seed}, scale {scale}'
        # The first guess is min(1.5 * 1, 1) = 1, reduced k times.
        np.testing.assert_allclose(eta, beta ** k, rtol=1e-5, err_msg=msg)
        value0, slope0 = _phi(np_fun, np_grad, x32, d32, 0.0)
        slack = 1e-5 * (abs(value0) + 1.0)

        def armijo(eta, x32=x32, d32=d32, value0=value0, slope0=slope0,
                   np_fun=np_fun, np_grad=np_grad):
          return _phi(np_fun, np_grad, x32, d32, eta)[0] - (
              value0 + c * eta * slope0)

        self.assertLessEqual(armijo(eta), slack, msg)
        if k > 0:
          self.assertGreater(armijo(eta / beta), -slack, msg)
        self.assertEqual(float(state.info.decrease_error), 0.0, msg)
        np.testing.assert_allclose(updates, eta * d32, rtol=1e-6,
                                   atol=1e-30, err_msg=msg)
        np.testing.assert_allclose(state.value, np_fun(x32 + eta * d32),
                                   rtol=1e-4, atol=1e-5 * abs(value0),
                                   err_msg=msg)
        grad_scale = np.abs(np_grad(x32)).max()
        np.testing.assert_allclose(state.grad, np_grad(x32 + eta * d32),
                                   rtol=1e-3, atol=1e-4 * grad_scale,
                                   err_msg=msg)

  def test_next_guess_grows_up_to_max_learning_rate(self):
    fun, calls = _counting(lambda x: jnp.sum((x - 1.0) ** 2))
    tx = linesearch.scale_by_backtracking_linesearch(
        max_backtracking_steps=10, increase_factor=1.5, max_learning_rate=2.0)
    # phi(eta) = (0.1 eta - 1)^2 decreases enough up to eta = 10: each guess
    # is accepted: 1.5, then 2.25 capped to 2.
    state = None
    for expected in (1.5, 2.0, 2.0):
      del calls[:]
      _, state = _search(tx, fun, np.zeros(1), np.array([0.1]), state)
      np.testing.assert_allclose(state.learning_rate, expected)
      self.assertLen(calls, 2)  # The initial value and one trial.

  def test_decrease_factor_and_tolerances(self):
    # phi(eta) = (10 eta - 1)^2: phi(0) = 1, phi'(0) = -20.
    def phi(eta):
      return (10 * eta - 1) ** 2

    fun = lambda x: jnp.sum((x - 1.0) ** 2)
    for kwargs in ({}, {'decrease_factor': 0.5}, {'atol': 0.3},
                   {'rtol': 0.2}, {'rtol': 0.2, 'atol': 0.3}):
      tx = linesearch.scale_by_backtracking_linesearch(
          max_backtracking_steps=30, **kwargs)
      _, state = _search(tx, fun, np.zeros(1), np.array([10.0]))
      beta = kwargs.get('decrease_factor', 0.8)
      atol, rtol = kwargs.get('atol', 0.0), kwargs.get('rtol', 0.0)
      eta = 1.0
      while phi(eta) > (1 + rtol) * 1.0 - 1e-4 * eta * 20 + atol:
        eta *= beta
      np.testing.assert_allclose(state.learning_rate, eta, rtol=1e-5,
                                 err_msg=str(kwargs))

  def test_failure_makes_the_last_step_and_says_so(self):
    fun = lambda x: jnp.sum((x - 1.0) ** 2)
    tx = linesearch.scale_by_backtracking_linesearch(
        max_backtracking_steps=5, verbose=True)
    (updates, state), out = _printed(
        lambda: _search(tx, fun, np.zeros(1), -np.ones(1)))
    eta = 0.8 ** 5
    self.assertEqual(int(state.info.num_linesearch_steps), 6)
    np.testing.assert_allclose(state.learning_rate, eta, rtol=1e-6)
    np.testing.assert_allclose(updates, [-eta], rtol=1e-6)
    np.testing.assert_allclose(
        state.info.decrease_error, (1 + eta) ** 2 - 1 - 1e-4 * eta * 2,
        rtol=1e-5)
    self.assertIn('INFO: optax.scale_by_backtracking_linesearch', out)
    self.assertIn('failed', out)

  def test_zero_gradient_gives_zero_update(self):
    fun = lambda x: jnp.sum((x - 1.0) ** 2)
    tx = linesearch.scale_by_backtracking_linesearch(
        max_backtracking_steps=10, store_grad=True)
    updates, state = _search(tx, fun, np.ones(3), np.zeros(3))
    np.testing.assert_array_equal(updates, np.zeros(3))
    test_utils.assert_tree_all_finite(state)

  def test_gradient_is_computed_once_outside_the_search_loop(self):
    # The derivative of sin is cos: a cos in the program is a gradient.
    fun = lambda x: jnp.sum(jnp.sin(x))
    tx = linesearch.scale_by_backtracking_linesearch(
        max_backtracking_steps=10, store_grad=True)
    x = jnp.linspace(0.0, 1.0, 4)
    value, grad = jax.value_and_grad(fun)(x)

    def update(x, state):
      return tx.update(-grad, state, x, value=value, grad=grad,
                       value_fn=fun)

    jaxpr = jax.make_jaxpr(update)(x, tx.init(x)).jaxpr

    def count(name, jaxpr):  # Equations of this primitive, nested ones too.
      return len(re.findall(rf'= {name} ', str(jaxpr)))

    (loop,) = [e for e in jaxpr.eqns if e.primitive.name == 'while']
    self.assertEqual(count('sin', loop.params['body_jaxpr']), 1)
    self.assertEqual(count('cos', loop.params['body_jaxpr']), 0)
    self.assertEqual(count('cos', jaxpr), 1)
    _, state = jax.jit(update)(x, tx.init(x))
    x_new = x + state.learning_rate * -grad
    np.testing.assert_allclose(state.grad, jnp.cos(x_new), rtol=1e-6)
    np.testing.assert_allclose(state.value, fun(x_new), rtol=1e-6)

  def test_grad_is_stored_only_on_request(self):
    params = {'w': jnp.ones(3), 'b': jnp.ones([], jnp.bfloat16)}
    state = linesearch.scale_by_backtracking_linesearch(3).init(params)
    self.assertIsNone(state.grad)
    state = linesearch.scale_by_backtracking_linesearch(
        3, store_grad=True).init(params)
    test_utils.assert_trees_all_equal_dtypes(state.grad, params)

  @parameterized.parameters(
      ({'decrease_factor': 1.0}, 'decrease_factor'),
      ({'decrease_factor': 0.0}, 'decrease_factor'),
      ({'max_learning_rate': 0.0}, 'max_learning_rate'),
      ({'atol': -1.0}, 'atol'),
      ({'rtol': -1.0}, 'rtol'),
  )
  def test_invalid_arguments(self, kwargs, name):
    with self.assertRaisesRegex(
        ValueError, f'scale_by_backtracking_linesearch: {name}'):
      linesearch.scale_by_backtracking_linesearch(3, **kwargs)

  @parameterized.parameters(
      (linesearch.scale_by_backtracking_linesearch,
       'scale_by_backtracking_linesearch'),
      (linesearch.scale_by_zoom_linesearch, 'scale_by_zoom_linesearch'))
  def test_missing_params_and_nan_steps(self, factory, name):
    def fun(x):
      return jnp.sum(x ** 2)

    tx = factory(3)
    x = jnp.ones(2)
    value, grad = jax.value_and_grad(fun)(x)
    with self.assertRaisesRegex(
        ValueError, f'^{name}: params must be given to update \\(got None\\);'
        ' the search starts from the current parameters. Remedy: call'):
      tx.update(-grad, tx.init(x), None, value=value, grad=grad,
                value_fn=fun)
    with self.assertRaisesRegex(
        ValueError, f'^{name}: max_[a-z]+_steps must be non-negative, got'
        ' nan$'):
      factory(float('nan'))


# ------------------------------------------------------------------------------
# Properties shared by both searches.
# ------------------------------------------------------------------------------


_FACTORIES = {
    'zoom': lambda: linesearch.scale_by_zoom_linesearch(
        max_linesearch_steps=8),
    'backtracking': lambda: linesearch.scale_by_backtracking_linesearch(
        max_backtracking_steps=8, store_grad=True),
}


def _tree_loss(params):
  return (jnp.sum((params['w'].astype(jnp.float32) - 0.3) ** 2)
          + jnp.sum((params['b'].astype(jnp.float32) + 0.2) ** 4))


class SharedTest(parameterized.TestCase):

  @parameterized.product(name=tuple(_FACTORIES),
                         dtype=(jnp.float32, jnp.bfloat16))
  def test_state_is_type_stable_under_jit(self, name, dtype):
    tx = _FACTORIES[name]()
    params = {'w': jnp.linspace(-1.0, 1.0, 6).reshape(2, 3).astype(dtype),
              'b': jnp.ones(3, dtype)}
    state = tx.init(params)
    @jax.jit
    def step(params, state):
      value, grad = jax.value_and_grad(_tree_loss)(params)
      updates, state = tx.update(
          jax.tree.map(jnp.negative, grad), state, params, value=value,
          grad=grad, value_fn=_tree_loss)
      params = jax.tree.map(lambda p, u: p + u, params, updates)
      return params, updates, state

    for leaf in jax.tree.leaves(state):
      self.assertFalse(jax.typeof(leaf).weak_type)
    values = [float(_tree_loss(params))]
    with test_utils.log_compilations() as compilations:
      for _ in range(4):
        new_params, updates, new_state = step(params, state)
        test_utils.assert_trees_all_equal_structs(new_state, state)
        test_utils.assert_trees_all_equal_dtypes(new_state, state)
        test_utils.assert_trees_all_equal_shapes(new_state, state)
        test_utils.assert_trees_all_equal_dtypes(updates, params)
        params, state = new_params, new_state
        values.append(float(_tree_loss(params)))
    self.assertLen(compilations, 1)
    # The objective decreases.
    self.assertLess(values[-1], values[0])
    self.assertTrue(all(b <= a for a, b in zip(values, values[1:])))

  @parameterized.parameters(*_FACTORIES)
  def test_strict_dtype_promotion(self, name):
    tx = _FACTORIES[name]()
    params = {'w': jnp.ones((2, 3), jnp.float32),
              'b': jnp.ones(3, jnp.bfloat16)}
    with (jax.numpy_dtype_promotion('strict'),
          jax.numpy_rank_promotion('raise')):
      value, grad = jax.value_and_grad(_tree_loss)(params)
      updates, state = tx.update(
          jax.tree.map(jnp.negative, grad), tx.init(params), params,
          value=value, grad=grad, value_fn=_tree_loss)
    test_utils.assert_trees_all_equal_dtypes(updates, params)
    self.assertLess(float(state.value), float(value))

  @parameterized.parameters(*_FACTORIES)
  def test_jit_and_no_jit_agree(self, name):
    tx = _FACTORIES[name]()
    fun, _, _, np_grad, x = _rosenbrock(0)
    d = -np_grad(x)
    eager = _search(tx, fun, x, d)
    jitted = _jitted_search(tx, fun, x, d)
    test_utils.assert_trees_all_close(eager, jitted, rtol=1e-6)

  @parameterized.parameters(*_FACTORIES)
  def test_building_creates_no_array(self, name):
    before = len(jax.live_arrays())
    _FACTORIES[name]()
    linesearch.scale_by_zoom_linesearch(
        max_linesearch_steps=20, initial_guess_strategy='one')
    self.assertLen(jax.live_arrays(), before)

  @parameterized.parameters(*_FACTORIES)
  def test_init_on_shape_dtype_structs(self, name):
    tx = _FACTORIES[name]()
    params = {'w': jax.ShapeDtypeStruct((2, 3), jnp.float32),
              'b': jax.ShapeDtypeStruct((3,), jnp.bfloat16)}
    state = jax.eval_shape(tx.init, params)
    test_utils.assert_trees_all_equal_dtypes(state.grad, params)

  @parameterized.parameters(*_FACTORIES)
  def test_inject_hyperparams_gives_the_same_steps(self, name):
    factory = {'zoom': linesearch.scale_by_zoom_linesearch,
               'backtracking': linesearch.scale_by_backtracking_linesearch}
    kwargs = ({'max_linesearch_steps': 8, 'slope_rtol': 0.01,
               'increase_factor': 3.0} if name == 'zoom' else
              {'max_backtracking_steps': 8, 'decrease_factor': 0.6,
               'slope_rtol': 0.01})
    plain = factory[name](**kwargs)
    injected = _inject.inject_hyperparams(factory[name])(**kwargs)
    fun, _, _, np_grad, x = _rosenbrock(1)
    d = -np_grad(x)
    expected, _ = _search(plain, fun, x, d)
    got, _ = _search(injected, fun, x, d)
    test_utils.assert_trees_all_equal(got, expected)


class ValueAndGradFromStateTest(absltest.TestCase):

  def test_computes_then_reuses(self):
    fun, calls = _counting(lambda x: jnp.sum((x - 1.0) ** 2))
    value_and_grad = linesearch.value_and_grad_from_state(fun)
    tx = linesearch.scale_by_zoom_linesearch(max_linesearch_steps=10)
    params = jnp.zeros(2)
    state = tx.init(params)
    value, grad = value_and_grad(params, state=state)
    self.assertLen(calls, 1)
    np.testing.assert_allclose(value, 2.0)
    np.testing.assert_allclose(grad, [-2.0, -2.0])
    updates, state = tx.update(-grad, state, params, value=value, grad=grad,
                               value_fn=fun)
    params = params + updates
    del calls[:]
    value, grad = value_and_grad(params, state=state)
    self.assertEmpty(calls)
    np.testing.assert_allclose(value, 0.0, atol=1e-12)
    np.testing.assert_allclose(grad, [0.0, 0.0], atol=1e-6)

  def test_passes_arguments_and_finds_the_state_in_a_chain(self):
    def fun(x, a, b=0.0):
      return jnp.sum((x - a) ** 2) + b

    value_and_grad = linesearch.value_and_grad_from_state(fun)
    tx = _combining.chain(
        base.identity(),
        linesearch.scale_by_zoom_linesearch(max_linesearch_steps=5))
    state = tx.init(jnp.zeros(2))
    value, grad = jax.jit(value_and_grad)(jnp.zeros(2), 3.0, state=state,
                                          b=1.0)
    np.testing.assert_allclose(value, 19.0)
    np.testing.assert_allclose(grad, [-6.0, -6.0])

  def test_raises_without_stored_grad(self):
    value_and_grad = linesearch.value_and_grad_from_state(jnp.sum)
    state = linesearch.scale_by_backtracking_linesearch(3).init(jnp.zeros(2))
    with self.assertRaisesRegex(ValueError, 'value_and_grad_from_state'):
      value_and_grad(jnp.zeros(2), state=state)
    with self.assertRaisesRegex(ValueError, 'value_and_grad_from_state'):
      value_and_grad(jnp.zeros(2), state=base.EmptyState())


class ExtractFnsKwargsTest(absltest.TestCase):

  def test_split(self):
    def f(a, b=1):
      return a + b

    def g(a, *, d=2):
      return a * d

    fns_kwargs, remaining = linesearch._extract_fns_kwargs(
        (f, g), {'a': 1, 'b': 2, 'd': 3, 'e': 4})
    self.assertEqual(fns_kwargs, [{'a': 1, 'b': 2}, {'a': 1, 'd': 3}])
    self.assertEqual(remaining, {'e': 4})

  def test_nothing_to_split(self):
    fns_kwargs, remaining = linesearch._extract_fns_kwargs(
        (lambda x: x,), {})
    self.assertEqual(fns_kwargs, [{}])
    self.assertEqual(remaining, {})


# ------------------------------------------------------------------------------
# L-BFGS with the default line search, against SciPy.
# ------------------------------------------------------------------------------


def _run_lbfgs(fun, x0, num_steps):
  """Runs ``lbfgs`` from ``x0``.

  Returns:
    The last params, and the values of ``fun`` that the line search used:
    ``fun(x0)`` (evaluated here), then the value it kept in its state after
    each step (those it compared when accepting the step).
  """
  opt = alias.lbfgs()
  value_and_grad = linesearch.value_and_grad_from_state(fun)

  @jax.jit
  def step(params, state):
    value, grad = value_and_grad(params, state=state)
    updates, state = opt.update(grad, state, params, value=value, grad=grad,
                                value_fn=fun)
    return params + updates, state

  params = jnp.asarray(x0, jnp.float32)
  state = opt.init(params)
  values = [float(fun(params))]
  for _ in range(num_steps):
    params, state = step(params, state)
    values.append(float(state[-1].value))
  return params, values


class LbfgsTest(parameterized.TestCase):
  """L-BFGS against SciPy's float64 L-BFGS-B.

  The objectives' float32 matrix products run at ``'highest'`` precision on
  every backend, the precision the references mean (XLA:GPU's default may
  use TF32); XLA:CPU computes them in full float32 either way.
  """

  def setUp(self):
    super().setUp()
    self.enter_context(jax.default_matmul_precision('highest'))

  @parameterized.parameters(0, 1, 2)
  def test_quadratic_matches_scipy(self, seed):
    # On every backend: the params match SciPy's, and the line search never
    # accepts a value above what its sufficient decrease allows. Checked on
    # the values it compared itself (kept in its state): near the minimizer
    # the approximate condition of Hager and Zhang lets a value exceed the
    # previous one by approx_dec_rtol * |value| (1e-6 relative by default),
    # plus one float32 ulp for the rounding of that threshold (XLA:GPU may
    # contract it into a fused multiply-add). The float32 values at the
    # minimizer are rounding noise of a few ulps (seed 1: 2 ulps of 4.38, on
    # CPU), so a recomputation by another program (eager rather than
    # jitted, another backend) may differ from them by that much.
    _, data, np_fun, np_grad, _ = _quadratic(seed, n=8)
    fun = functools.partial(_quadratic_fun, **data)
    x0 = np.zeros(8)
    expected = scipy.optimize.minimize(
        np_fun, x0, jac=np_grad, method='L-BFGS-B',
        options={'gtol': 1e-12, 'ftol': 1e-15}).x
    params, values = _run_lbfgs(fun, x0, 30)
    np.testing.assert_allclose(params, expected, atol=1e-4)
    values = np.asarray(values, np.float32)
    rtol = np.float32(1e-6)  # lbfgs's approx_dec_rtol.
    allowed = (values[:-1] + rtol * np.abs(values[:-1])
               + np.spacing(np.abs(values[:-1])))
    np.testing.assert_array_less(values[1:], allowed)

  def test_logistic_regression_matches_scipy(self):
    x, y = datasets.load_iris(return_X_y=True)
    x = (x - x.mean(0)) / x.std(0)
    x = np.concatenate([x, np.ones((x.shape[0], 1))], axis=1)
    y = (y == 2).astype(np.float64)
    reg = 1e-2
    x32, y32 = jnp.asarray(x, jnp.float32), jnp.asarray(y, jnp.float32)

    def fun(w):
      logits = x32 @ w
      return (jnp.mean(jnp.logaddexp(0.0, logits) - y32 * logits)
              + 0.5 * reg * w @ w)

    def np_fun(w):
      logits = x @ w
      return (np.mean(np.logaddexp(0.0, logits) - y * logits)
              + 0.5 * reg * w @ w)

    def np_grad(w):
      logits = x @ w
      return x.T @ (1 / (1 + np.exp(-logits)) - y) / len(y) + reg * w

    w0 = np.zeros(x.shape[1])
    expected = scipy.optimize.minimize(
        np_fun, w0, jac=np_grad, method='L-BFGS-B',
        options={'gtol': 1e-12, 'ftol': 1e-15}).x
    params, _ = _run_lbfgs(fun, w0, 60)
    np.testing.assert_allclose(params, expected, atol=1e-4)


# name -> factory, for PreparedInputsTest.
_PREP_TRANSFORMS = {
    'scale_by_backtracking_linesearch': functools.partial(
        linesearch.scale_by_backtracking_linesearch,
        max_backtracking_steps=10),
    'scale_by_zoom_linesearch': functools.partial(
        linesearch.scale_by_zoom_linesearch, max_linesearch_steps=10),
}


def _prep_loss(params):
  """A sum of squares of the floating leaves (integer ones are constants)."""
  leaves = [jnp.asarray(p) for p in jax.tree.leaves(params)]
  return sum(jnp.sum(p ** 2) for p in leaves
             if jnp.issubdtype(p.dtype, jnp.floating))


def _prep_extra_args(grads, params):
  return dict(value=_prep_loss(params), grad=grads, value_fn=_prep_loss)


class PreparedInputsTest(
    cases.prepared_inputs_test_case(
        {name: (factory, _prep_extra_args)
         for name, factory in _PREP_TRANSFORMS.items()},
        # The zoom search differentiates value_fn at its trial params, which
        # jax.grad refuses for an integer leaf (upstream's too): the float0
        # test (an int32 param) runs the backtracking search only.
        float0_names=('scale_by_backtracking_linesearch',))):
  """Inputs the transformations of the module take as a chain gives them."""


class VectorHyperparametersTest(parameterized.TestCase):

  @parameterized.parameters(
      ('scale_by_backtracking_linesearch', 'slope_rtol'),
      ('scale_by_backtracking_linesearch', 'decrease_factor'),
      ('scale_by_backtracking_linesearch', 'atol'),
      ('scale_by_zoom_linesearch', 'approx_dec_rtol'),
      ('scale_by_zoom_linesearch', 'curv_rtol'),
      ('scale_by_zoom_linesearch', 'tol'),
  )
  def test_vector_raises_type_error_when_built(self, name, arg):
    with self.assertRaisesRegex(
        TypeError, f'{name}: {arg} must be a scalar number'
        r'.*got an array of shape \(2,\)'):
      _PREP_TRANSFORMS[name](**{arg: jnp.asarray([0.5, 0.5])})


if __name__ == '__main__':
  absltest.main()
