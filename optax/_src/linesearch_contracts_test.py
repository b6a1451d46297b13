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
"""Oracle tests of L-BFGS and the line searches (issue 41).

The references (``optax._src.testing.reference_linesearch``) are float64
NumPy, written from Nocedal and Wright's algorithms and the docstrings:

* ``scale_by_lbfgs``: its output against the two-loop recursion (Algorithm
  7.4, initial scale of eq. 7.20) on the pairs of the params and gradients it
  saw, and against the dense BFGS matrix of eq. (6.17); memory wrap-around,
  both values of ``scale_init_precond``, zero, tiny and huge gradients;
* ``lbfgs``: without a line search, ``-lr H g``; with the backtracking
  search, the whole run of the NumPy algorithm; with the default zoom
  search, each step is ``alpha (-H g)`` for the history it walked, meets the
  strong Wolfe conditions, keeps ``f`` and ``grad f`` of the new params, and
  on a quadratic with an exact line search it ends in ``n`` steps;
* ``scale_by_backtracking_linesearch``: Algorithm 3.1 step by step (the
  step size, the value kept, the number of values, the gradient kept), for
  each option, with the edges (accepted at once, the steps exhausted,
  non-finite values, a zero gradient);
* ``scale_by_zoom_linesearch``: the accepted step meets the conditions its
  docstring states, with the values and gradients kept; where Algorithm
  3.5's bracketing phase ends the search, the exact step size and number of
  trials; the same edges.

The float64 checks run under x64 (restored afterwards); float32 runs are
checked against the float64 references with float32 tolerances.
"""

from absl.testing import absltest
from absl.testing import parameterized
import jax
import jax.numpy as jnp
import numpy as np

from optax._src import alias
from optax._src import linesearch
from optax._src import transform
from optax._src import utils
from optax._src.testing import reference_linesearch as ref

_N = 4


def _random(seed: int, steps: int, scale: float = 1.0) -> list[np.ndarray]:
  rng = np.random.default_rng(seed)
  return [scale * rng.normal(size=_N) for _ in range(steps)]


# Objectives written once for NumPy and jax.numpy (``xp``), with their
# gradients in NumPy.


def _rosenbrock(x, xp=jnp):
  return xp.sum(100.0 * (x[1:] - x[:-1] ** 2) ** 2 + (1.0 - x[:-1]) ** 2)


def _rosenbrock_grad(x):
  x = np.asarray(x, np.float64)
  g = np.zeros_like(x)
  d = x[1:] - x[:-1] ** 2
  g[:-1] += -400.0 * x[:-1] * d - 2.0 * (1.0 - x[:-1])
  g[1:] += 200.0 * d
  return g


_A = np.array([[4.0, 1.0, 0.5, 0.0], [1.0, 3.0, 0.2, 0.1],
               [0.5, 0.2, 2.0, 0.3], [0.0, 0.1, 0.3, 1.0]])
_B = np.array([1.0, -2.0, 0.5, 3.0])


def _quadratic(x, xp=jnp):
  # Elementwise products: no matrix product whose precision a backend picks.
  a = xp.asarray(_A, x.dtype)
  return 0.5 * xp.sum(x[:, None] * a * x[None, :]) - xp.sum(
      xp.asarray(_B, x.dtype) * x)


def _quadratic_grad(x):
  return _A @ np.asarray(x, np.float64) - _B


_PROBLEMS = {
    'rosenbrock': (_rosenbrock, _rosenbrock_grad,
                   np.array([-1.2, 1.0, -0.5, 0.8])),
    'quadratic': (_quadratic, _quadratic_grad,
                  np.array([1.0, -1.0, 2.0, 0.5])),
}


def _np_value(fun, x):
  return float(fun(np.asarray(x, np.float64), np))


def _jitted_update(tx, fun):
  """``tx.update`` with the line search's extra arguments, jitted once."""

  def step(u, state, params, value, grad):
    return tx.update(u, state, params, value=value, grad=grad, value_fn=fun)

  return jax.jit(step)


# --------------------------------------------------------------- L-BFGS


class ScaleByLbfgsTest(parameterized.TestCase):
  """``scale_by_lbfgs``: Algorithm 7.4 on the pairs it saw."""

  def _run(self, tx, grads, params, dtype):
    update = jax.jit(tx.update)
    state = tx.init(jnp.asarray(params[0], dtype))
    out = []
    for g, p in zip(grads, params):
      u, state = update(jnp.asarray(g, dtype), state, jnp.asarray(p, dtype))
      self.assertEqual(u.dtype, jnp.dtype(dtype))
      out.append(np.asarray(u, np.float64))
    return out

  @parameterized.parameters((1, True), (2, False), (10, True))
  def test_matches_two_loop_float32(self, memory_size, scale_init_precond):
    grads, params = _random(0, 5), _random(1, 5)
    tx = transform.scale_by_lbfgs(memory_size, scale_init_precond)
    got = self._run(tx, grads, params, jnp.float32)
    want = ref.scale_by_lbfgs(grads, params, memory_size, scale_init_precond)
    for t, (x, y) in enumerate(zip(got, want)):
      np.testing.assert_allclose(x, y, rtol=1e-4, atol=1e-4 * np.abs(y).max(),
                                 err_msg=f'step {t + 1}')

  @parameterized.product(memory_size=(2, 10),
                         scale_init_precond=(True, False))
  def test_matches_two_loop_float64(self, memory_size, scale_init_precond):
    # Random gradients, zeros, a zero first gradient, gradients of 1e-30 and
    # 1e30 in size; five steps wrap a memory of 2 around twice.
    steps = 5
    params = _random(1, steps)
    with utils.x64_precision(True):
      tx = transform.scale_by_lbfgs(memory_size, scale_init_precond)
      for kind in ('random', 'zeros', 'zero_then_random', 'tiny', 'huge'):
        scale = {'tiny': 1e-30, 'huge': 1e30}.get(kind, 1.0)
        grads = _random(0, steps, scale)
        if kind == 'zeros':
          grads = [np.zeros(_N)] * steps
        elif kind == 'zero_then_random':
          grads[0] = np.zeros(_N)
        want = ref.scale_by_lbfgs(grads, params, memory_size,
                                  scale_init_precond)
        got = self._run(tx, grads, params, jnp.float64)
        for t, (x, y) in enumerate(zip(got, want)):
          self.assertTrue(np.all(np.isfinite(y)))
          np.testing.assert_allclose(x, y, rtol=1e-10,
                                     atol=1e-10 * np.abs(y).max(),
                                     err_msg=f'{kind}, step {t + 1}')

  def test_direction_is_the_dense_bfgs_matrix_times_g(self):
    # -H g for H built by eq. (6.17) from gamma I with every pair (memory
    # larger than the history), gamma of eq. (7.20).
    steps = 5
    grads, params = _random(2, steps), _random(3, steps)
    with utils.x64_precision(True):
      got = self._run(transform.scale_by_lbfgs(), grads, params,
                      jnp.float64)
    for k in range(1, steps):
      s_hist = [params[j + 1] - params[j] for j in range(k)]
      y_hist = [grads[j + 1] - grads[j] for j in range(k)]
      gamma = np.dot(s_hist[-1], y_hist[-1]) / np.dot(y_hist[-1], y_hist[-1])
      h = ref.bfgs_inverse(s_hist, y_hist, gamma, _N)
      np.testing.assert_allclose(got[k], h @ grads[k], rtol=1e-10,
                                 err_msg=f'step {k + 1}')
      # The secant equation of the newest pair: H y = s.
      np.testing.assert_allclose(h @ y_hist[-1], s_hist[-1], rtol=1e-10)

  def test_first_step_scale(self):
    # min(1, 1 / ||g_0||) g_0: ||g|| = 5 gives g / 5, ||g|| = 0.5 gives g.
    tx = transform.scale_by_lbfgs()
    for g, want in (([3.0, 4.0], [0.6, 0.8]), ([0.3, 0.4], [0.3, 0.4])):
      got, = self._run(tx, [np.asarray(g)], [np.zeros(2)], jnp.float32)
      np.testing.assert_allclose(got, want, rtol=1e-6)


class LbfgsTest(parameterized.TestCase):
  """``lbfgs``: the direction -H g, times the learning rate or line search."""

  def setUp(self):
    super().setUp()
    self.enter_context(jax.default_matmul_precision('highest'))

  @parameterized.parameters(
      (0.5, 3, True), (0.5, 2, False), ('schedule', 10, True))
  def test_without_linesearch_is_minus_lr_h_g(self, lr, memory_size,
                                              scale_init_precond):
    steps = 5
    grads, params = _random(4, steps), _random(5, steps)
    if lr == 'schedule':
      lrs = [0.1 * (t + 1) for t in range(steps)]
      learning_rate = lambda count: 0.1 * (count + 1)
    else:
      lrs, learning_rate = [lr] * steps, lr
    want = ref.scale_by_lbfgs(grads, params, memory_size, scale_init_precond)
    with utils.x64_precision(True):
      tx = alias.lbfgs(learning_rate, memory_size, scale_init_precond,
                       linesearch=None)
      update = jax.jit(tx.update)
      state = tx.init(jnp.asarray(params[0]))
      for t in range(steps):
        u, state = update(jnp.asarray(grads[t]), state,
                          jnp.asarray(params[t]))
        np.testing.assert_allclose(u, -lrs[t] * want[t], rtol=1e-10,
                                   err_msg=f'step {t + 1}')

  @parameterized.parameters('rosenbrock', 'quadratic')
  def test_with_backtracking_matches_algorithm_3_1(self, problem):
    # x_{k+1} = x_k + alpha_k d_k, d_k = -H_k g_k (Algorithm 7.5), alpha_k
    # by Algorithm 3.1 from min(1.5 alpha_{k-1}, 1).
    fun, grad_fn, x0 = _PROBLEMS[problem]
    steps, memory_size = 6, 3
    xs, gs, alpha = [x0], [grad_fn(x0)], 1.0
    for k in range(steps):
      d = -ref.scale_by_lbfgs(gs, xs, memory_size)[k]
      x, v = xs[-1], _np_value(fun, xs[-1])
      trial = ref.backtracking(lambda a, x=x, d=d: _np_value(fun, x + a * d),
                               v, float(np.dot(d, gs[-1])),
                               min(1.5 * alpha, 1.0), 0.8, 1e-4, 20)
      self.assertTrue(trial.accepted)
      alpha = trial.stepsize
      xs.append(x + alpha * d)
      gs.append(grad_fn(xs[-1]))
    with utils.x64_precision(True):
      tx = alias.lbfgs(
          memory_size=memory_size,
          linesearch=linesearch.scale_by_backtracking_linesearch(20))
      update = _jitted_update(tx, fun)
      params = jnp.asarray(x0)
      state = tx.init(params)
      for k in range(steps):
        value, grad = jax.value_and_grad(fun)(params)
        u, state = update(grad, state, params, value, grad)
        params = params + u
        np.testing.assert_allclose(params, xs[k + 1], rtol=1e-9, atol=1e-12,
                                   err_msg=f'step {k + 1}')

  @parameterized.parameters('rosenbrock', 'quadratic')
  def test_default_linesearch_steps_along_minus_h_g(self, problem):
    # Each update is alpha (-H g) for the pairs the run made, with alpha
    # meeting the strong Wolfe conditions (c1 = 1e-4, c2 = 0.9), and the
    # state keeps f and grad f of the new params.
    fun, grad_fn, x0 = _PROBLEMS[problem]
    steps = 6
    with utils.x64_precision(True):
      tx = alias.lbfgs()
      update = _jitted_update(tx, fun)
      params = jnp.asarray(x0)
      state = tx.init(params)
      xs, gs, updates, states = [x0], [], [], []
      for _ in range(steps):
        value, grad = jax.value_and_grad(fun)(params)
        gs.append(np.asarray(grad))
        u, state = update(grad, state, params, value, grad)
        params = params + u
        xs.append(np.asarray(params))
        updates.append(np.asarray(u))
        states.append(state[2])
    for k in range(steps):
      np.testing.assert_allclose(gs[k], grad_fn(xs[k]), rtol=1e-12)
      d = -ref.scale_by_lbfgs(gs[:k + 1], xs[:k + 1], 10)[k]
      alpha = float(states[k].learning_rate)
      np.testing.assert_allclose(updates[k], alpha * d, rtol=1e-10,
                                 atol=1e-14, err_msg=f'step {k + 1}')
      _assert_wolfe(self, fun, grad_fn, xs[k], d, alpha, 1e-4, 0.9)
      np.testing.assert_allclose(float(states[k].value),
                                 _np_value(fun, xs[k + 1]), rtol=1e-12)
      np.testing.assert_allclose(states[k].grad, grad_fn(xs[k + 1]),
                                 rtol=1e-10, atol=1e-12)

  def test_default_linesearch_float32(self):
    # The same identities on float32 params, to float32 rounding: float32
    # updates, alpha (-H g) for the float64 two-loop of the history walked,
    # strong Wolfe in float64 at the float32 step.
    fun, grad_fn, x0 = _PROBLEMS['quadratic']
    tx = alias.lbfgs()
    update = _jitted_update(tx, fun)
    params = jnp.asarray(x0, jnp.float32)
    state = tx.init(params)
    xs, gs = [np.asarray(params, np.float64)], []
    for k in range(3):
      value, grad = jax.value_and_grad(fun)(params)
      gs.append(np.asarray(grad, np.float64))
      u, state = update(grad, state, params, value, grad)
      self.assertEqual(u.dtype, jnp.float32)
      params = params + u
      xs.append(np.asarray(params, np.float64))
      d = -ref.scale_by_lbfgs(gs, xs[:-1], 10)[k]
      alpha = float(state[2].learning_rate)
      np.testing.assert_allclose(u, alpha * d, rtol=1e-4,
                                 atol=1e-4 * np.abs(d).max(),
                                 err_msg=f'step {k + 1}')
      _assert_wolfe(self, fun, grad_fn, xs[k], d, alpha, 1e-4, 0.9,
                    rtol=1e-5)

  def test_quadratic_ends_in_n_steps_with_exact_linesearch(self):
    # BFGS with exact line searches on a strictly convex quadratic has the
    # hereditary property H_k y_j = s_j for j < k whatever the scale of H_0
    # (each update V^T H V + rho s s^T leaves H y_j = s_j unchanged when
    # s^T A s_j = 0), so the directions are A-conjugate and L-BFGS with
    # memory >= n reaches the minimizer in n steps; curv_rtol = 1e-10 makes
    # the zoom search exact.
    x_star = np.linalg.solve(_A, _B)
    x0 = _PROBLEMS['quadratic'][2]
    with utils.x64_precision(True):
      tx = alias.lbfgs(linesearch=linesearch.scale_by_zoom_linesearch(
          40, curv_rtol=1e-10, initial_guess_strategy='one'))
      update = _jitted_update(tx, _quadratic)
      params = jnp.asarray(x0)
      state = tx.init(params)
      errors = []
      for _ in range(_N):
        value, grad = jax.value_and_grad(_quadratic)(params)
        u, state = update(grad, state, params, value, grad)
        params = params + u
        errors.append(np.linalg.norm(np.asarray(params) - x_star))
    initial = np.linalg.norm(x0 - x_star)
    self.assertGreater(errors[_N - 2], 1e-6 * initial)
    self.assertLess(errors[_N - 1], 1e-9 * initial)


# -------------------------------------------------------- line searches


def _assert_wolfe(test, fun, grad_fn, x, d, alpha, c1, c2, rtol=1e-9,
                  approx_dec_rtol=1e-6):
  """The step ``alpha`` along ``d`` from ``x`` meets (3.7), up to rounding.

  The sufficient decrease may hold in its approximate form (the zoom
  search's docstring); ``rtol`` allows the rounding of the values compared.
  """
  value0, slope0 = _np_value(fun, x), float(np.dot(grad_fn(x), d))
  x_new = x + alpha * d
  value, slope = _np_value(fun, x_new), float(np.dot(grad_fn(x_new), d))
  dec, curv = ref.strong_wolfe_errors(value, slope, value0, slope0, alpha,
                                      c1, c2, approx_dec_rtol)
  slack = rtol * (abs(value0) + abs(slope0) * max(alpha, 1.0))
  test.assertLessEqual(dec, slack, f'sufficient decrease, alpha={alpha}')
  test.assertLessEqual(curv, rtol * abs(slope0) + slack,
                       f'curvature, alpha={alpha}')


class BacktrackingTest(parameterized.TestCase):
  """``scale_by_backtracking_linesearch`` against Algorithm 3.1."""

  def _run(self, tx, fun, grad_fn, x0, steps, dtype, direction=None):
    """Steps along -grad (or ``direction(g)``); the records of each."""
    update = _jitted_update(tx, fun)
    params = jnp.asarray(x0, dtype)
    state = tx.init(params)
    out = []
    for _ in range(steps):
      value, grad = fun(params), jnp.asarray(grad_fn(params), dtype)
      u = -grad if direction is None else direction(grad)
      new_u, state = update(u, state, params, value, grad)
      self.assertEqual(new_u.dtype, jnp.dtype(dtype))
      out.append((np.asarray(params, np.float64), np.asarray(u, np.float64),
                  np.asarray(new_u, np.float64), state))
      params = params + new_u
    return out

  def _reference(self, fun, grad_fn, x0, steps, opts, direction=None):
    """Algorithm 3.1 over the steps, guess min(gamma alpha_prev, max)."""
    x, alpha, out = np.asarray(x0, np.float64), 1.0, []
    for _ in range(steps):
      g = grad_fn(x)
      d = -g if direction is None else direction(g)
      guess = min(opts.get('increase_factor', 1.5) * alpha,
                  opts.get('max_learning_rate', 1.0))
      value0 = _np_value(fun, x)
      trial = ref.backtracking(
          lambda a, x=x, d=d: _np_value(fun, x + a * d), value0,
          float(np.dot(d, g)), guess, opts.get('decrease_factor', 0.8),
          opts.get('slope_rtol', 1e-4), opts['max_backtracking_steps'],
          opts.get('atol', 0.0), opts.get('rtol', 0.0))
      out.append(trial)
      if trial.stepsize > 0 or trial.accepted:
        alpha = trial.stepsize
      x = x + trial.stepsize * d
    return out

  def _check(self, got, want, fun, grad_fn, store_grad, rtol):
    for k, ((x, u, new_u, state), trial) in enumerate(zip(got, want)):
      msg = f'step {k + 1}'
      np.testing.assert_allclose(float(state.learning_rate) if trial.stepsize
                                 else trial.stepsize,
                                 trial.stepsize, rtol=rtol, err_msg=msg)
      np.testing.assert_allclose(new_u, trial.stepsize * u, rtol=rtol,
                                 atol=rtol * np.abs(u).max(), err_msg=msg)
      self.assertEqual(int(state.info.num_linesearch_steps),
                       trial.evaluations, msg)
      x_new = x + new_u
      np.testing.assert_allclose(float(state.value), _np_value(fun, x_new),
                                 rtol=rtol, atol=rtol, err_msg=msg)
      if store_grad:
        np.testing.assert_allclose(state.grad, grad_fn(x_new), rtol=rtol,
                                   atol=rtol * 10, err_msg=msg)
      else:
        self.assertIsNone(state.grad)

  @parameterized.named_parameters(
      ('default', 'rosenbrock', {}),
      ('store_grad', 'rosenbrock', {'store_grad': True}),
      ('decrease_factor', 'rosenbrock', {'decrease_factor': 0.3}),
      ('slope_rtol', 'rosenbrock', {'slope_rtol': 0.5}),
      ('increase_factor', 'quadratic', {'increase_factor': 1.0}),
      ('max_learning_rate', 'rosenbrock', {'max_learning_rate': 1e-3}),
      ('atol_rtol', 'rosenbrock', {'atol': 1.0, 'rtol': 0.5}),
      # One reduction from 1.5: 1.2 is too long a step on the quadratic
      # (largest curvature 4.7), the last step size tried is taken.
      ('steps_exhausted', 'quadratic', {'max_backtracking_steps': 1,
                                        'max_learning_rate': 2.0}),
  )
  def test_matches_algorithm_3_1_float64(self, problem, opts):
    fun, grad_fn, x0 = _PROBLEMS[problem]
    opts = {'max_backtracking_steps': 60, **opts}
    steps = 4
    want = self._reference(fun, grad_fn, x0, steps, opts)
    self.assertEqual(all(t.accepted for t in want),
                     opts['max_backtracking_steps'] > 1)
    with utils.x64_precision(True):
      tx = linesearch.scale_by_backtracking_linesearch(**opts)
      got = self._run(tx, fun, grad_fn, x0, steps, jnp.float64)
    self._check(got, want, fun, grad_fn, opts.get('store_grad', False),
                1e-9)

  def test_matches_algorithm_3_1_float32(self):
    fun, grad_fn, x0 = _PROBLEMS['quadratic']
    opts = {'max_backtracking_steps': 30, 'store_grad': True}
    want = self._reference(fun, grad_fn, x0, 4, opts)
    tx = linesearch.scale_by_backtracking_linesearch(**opts)
    got = self._run(tx, fun, grad_fn, x0, 4, jnp.float32)
    self._check(got, want, fun, grad_fn, True, 2e-5)

  def test_accepted_at_once_and_exhausted(self):
    # On f = ||x||^2 / 2 the step 1 along -g lands on the minimizer (one
    # value); along +g nothing decreases: 1 + max reductions, the last step
    # size tried is used (the docstring's unsafe step).
    fun = lambda x, xp=jnp: 0.5 * xp.sum(x ** 2)
    grad_fn = lambda x: np.asarray(x, np.float64)
    x0 = np.array([1.0, -2.0, 0.5, 3.0])
    with utils.x64_precision(True):
      tx = linesearch.scale_by_backtracking_linesearch(
          5, increase_factor=1.0)
      (_, u, new_u, state), = self._run(tx, fun, grad_fn, x0, 1,
                                        jnp.float64)
      np.testing.assert_array_equal(new_u, u)
      self.assertEqual(int(state.info.num_linesearch_steps), 1)
      self.assertEqual(float(state.value), 0.0)
      (_, u, new_u, state), = self._run(tx, fun, grad_fn, x0, 1,
                                        jnp.float64, direction=lambda g: g)
    self.assertEqual(int(state.info.num_linesearch_steps), 6)
    np.testing.assert_allclose(new_u, 0.8 ** 5 * u, rtol=1e-12)
    np.testing.assert_allclose(float(state.learning_rate), 0.8 ** 5,
                               rtol=1e-12)

  def test_non_finite_values(self):
    # inf outside the ball of radius 2: the search backs off into it; NaN
    # everywhere but at the start: no step, the start's value kept and the
    # previous step size too (the state's docstring).
    def walled(x, xp=jnp):
      q = 0.5 * xp.sum((x - 3.0) ** 2)
      return xp.where(xp.sum(x ** 2) < 4.0, q, xp.inf)

    grad_fn = lambda x: np.asarray(x, np.float64) - 3.0
    x0 = np.zeros(_N)
    opts = {'max_backtracking_steps': 30, 'store_grad': True}
    want = self._reference(walled, grad_fn, x0, 3, opts)
    self.assertTrue(all(t.accepted for t in want))
    with utils.x64_precision(True):
      tx = linesearch.scale_by_backtracking_linesearch(**opts)
      got = self._run(tx, walled, grad_fn, x0, 3, jnp.float64)
    self._check(got, want, walled, grad_fn, True, 1e-9)

    def nowhere(x, xp=jnp):
      return xp.where(xp.all(x == 0.0), 1.0, xp.nan)

    with utils.x64_precision(True):
      tx = linesearch.scale_by_backtracking_linesearch(4, store_grad=True)
      (_, _, new_u, state), = self._run(tx, nowhere, grad_fn, x0, 1,
                                        jnp.float64)
    np.testing.assert_array_equal(new_u, np.zeros(_N))
    self.assertEqual(float(state.value), 1.0)
    np.testing.assert_array_equal(state.grad, grad_fn(x0))
    self.assertEqual(float(state.learning_rate), 1.0)
    self.assertEqual(int(state.info.num_linesearch_steps), 5)

  def test_zero_gradient(self):
    # Slope 0: the first guess meets f <= f, the update is 0.
    fun, grad_fn = _PROBLEMS['quadratic'][:2]
    x_star = np.linalg.solve(_A, _B)
    with utils.x64_precision(True):
      tx = linesearch.scale_by_backtracking_linesearch(5, store_grad=True)
      (_, _, new_u, state), = self._run(
          tx, fun, grad_fn, x_star, 1, jnp.float64,
          direction=lambda g: jnp.zeros_like(g))
    np.testing.assert_array_equal(new_u, np.zeros(_N))
    self.assertEqual(int(state.info.num_linesearch_steps), 1)
    np.testing.assert_allclose(float(state.value), _np_value(fun, x_star),
                               rtol=1e-14)


class ZoomTest(parameterized.TestCase):
  """``scale_by_zoom_linesearch``: strong Wolfe, Algorithm 3.5's trials."""

  def _one_step(self, tx, fun, x0, u, dtype=jnp.float64):
    params = jnp.asarray(x0, dtype)
    value, grad = jax.value_and_grad(fun)(params)
    return tx.update(jnp.asarray(u, dtype), tx.init(params), params,
                     value=value, grad=grad, value_fn=fun)

  @parameterized.named_parameters(
      ('default', 'rosenbrock', {}),
      ('strong_curvature_one', 'rosenbrock',
       {'curv_rtol': 0.1, 'initial_guess_strategy': 'one'}),
      ('slope_rtol', 'quadratic', {'slope_rtol': 0.3}),
      ('increase_factor', 'quadratic', {'increase_factor': 5.0,
                                        'curv_rtol': 0.05}),
      # None: only the exact sufficient decrease counts.
      ('exact_decrease_only', 'rosenbrock', {'approx_dec_rtol': None}),
  )
  def test_accepted_step_meets_strong_wolfe_float64(self, problem, opts):
    fun, grad_fn, x0 = _PROBLEMS[problem]
    c1, c2 = opts.get('slope_rtol', 1e-4), opts.get('curv_rtol', 0.9)
    eps = opts.get('approx_dec_rtol', 1e-6)
    with utils.x64_precision(True):
      tx = linesearch.scale_by_zoom_linesearch(30, **opts)
      update = _jitted_update(tx, fun)
      params = jnp.asarray(x0)
      state = tx.init(params)
      for k in range(4):
        value, grad = jax.value_and_grad(fun)(params)
        u = -grad
        new_u, state = update(u, state, params, value, grad)
        x = np.asarray(params)
        alpha = float(state.learning_rate)
        msg = f'step {k + 1}'
        np.testing.assert_allclose(new_u, alpha * np.asarray(u), rtol=1e-12,
                                   err_msg=msg)
        self.assertEqual(float(state.info.decrease_error), 0.0, msg)
        self.assertEqual(float(state.info.curvature_error), 0.0, msg)
        self.assertLessEqual(int(state.info.num_linesearch_steps), 30)
        _assert_wolfe(self, fun, grad_fn, x, -grad_fn(x), alpha, c1, c2,
                      approx_dec_rtol=eps)
        params = params + new_u
        np.testing.assert_allclose(float(state.value),
                                   _np_value(fun, params), rtol=1e-12)
        np.testing.assert_allclose(state.grad, grad_fn(params), rtol=1e-10,
                                   atol=1e-12)

  def test_accepted_step_meets_strong_wolfe_float32(self):
    fun, grad_fn, x0 = _PROBLEMS['rosenbrock']
    tx = linesearch.scale_by_zoom_linesearch(30, curv_rtol=0.5)
    new_u, state = self._one_step(tx, fun, x0, -grad_fn(x0), jnp.float32)
    self.assertEqual(new_u.dtype, jnp.float32)
    alpha = float(state.learning_rate)
    np.testing.assert_allclose(new_u, -alpha * grad_fn(x0), rtol=2e-6)
    _assert_wolfe(self, fun, grad_fn, x0, -grad_fn(x0), alpha, 1e-4, 0.5,
                  rtol=1e-5)
    x_new = x0 - alpha * grad_fn(x0)
    np.testing.assert_allclose(float(state.value), _np_value(fun, x_new),
                               rtol=1e-5)
    np.testing.assert_allclose(state.grad, grad_fn(x_new), rtol=1e-4,
                               atol=1e-4)

  # phi(alpha) = (alpha - m)^2 from x = 0 along u = 1: strong Wolfe holds
  # (c2 = 0.9) on [0.1 m, 1.9 m] and sufficient decrease up to ~2 m.
  @parameterized.named_parameters(
      ('accepted_at_once', 1.0, {}),
      ('doubled_twice', 30.0, {}),
      ('tripled', 35.0, {'increase_factor': 3.0}),
      ('capped', 200.0, {'max_learning_rate': 10.0}),
      ('steps_exhausted', 300.0, {'max_linesearch_steps': 3}),
  )
  def test_bracketing_phase_matches_algorithm_3_5(self, m, opts):
    opts = {'max_linesearch_steps': 20, 'initial_guess_strategy': 'one',
            **opts}
    fun = lambda x, xp=jnp: xp.sum((x - m) ** 2)
    phi = lambda a: ((a - m) ** 2, 2.0 * (a - m))
    want = ref.bracketing(phi, m ** 2, -2.0 * m, 1.0,
                          opts.get('increase_factor', 2.0), 1e-4, 0.9,
                          opts['max_linesearch_steps'],
                          opts.get('max_learning_rate'))
    self.assertIsNotNone(want)
    with utils.x64_precision(True):
      tx = linesearch.scale_by_zoom_linesearch(**opts)
      new_u, state = self._one_step(tx, fun, np.zeros(1), np.ones(1))
    self.assertEqual(float(new_u[0]), want.stepsize)
    self.assertEqual(float(state.learning_rate), want.stepsize)
    self.assertEqual(float(state.value), want.value)
    self.assertEqual(int(state.info.num_linesearch_steps), want.evaluations)
    self.assertEqual(float(state.info.curvature_error) == 0.0, want.accepted)

  # phi(a) = -a + 6 max(a - k, 0)^2 from x = 0 along u = 1, first trial 1:
  # the values decrease up to about k, then rise. k = 1.5: trials 1, 2
  # (higher), then zoom; k = 3.2: trials 1, 2, 4 (higher), then zoom. The
  # bracketing cases end on a trial with sufficient decrease that is not
  # the best one.
  @parameterized.named_parameters(
      ('bracketing_two', 1.5, 2, True),
      ('zoom_three', 1.5, 3, False),
      ('bracketing_three', 3.2, 3, True),
      ('zoom_four', 3.2, 4, False),
  )
  def test_out_of_trials_returns_the_best_sufficient_decrease(
      self, kink, max_steps, last_is_worse):
    # When the trials run out before a strong Wolfe point, Algorithms 3.5
    # and 3.6 hold alpha_lo, the lowest value among the trials with
    # sufficient decrease: the docstring's "best step size satisfying the
    # sufficient decrease", which the search returns.
    trials = []

    def fun(x, xp=jnp):
      return xp.sum(-x + 6.0 * xp.maximum(x - kink, 0.0) ** 2)

    def recorded(x):
      jax.debug.callback(lambda a: trials.append(float(a)), x[0])
      return fun(x)

    with utils.x64_precision(True):
      tx = linesearch.scale_by_zoom_linesearch(
          max_steps, initial_guess_strategy='one')
      params = jnp.zeros(1)
      value, grad = jax.value_and_grad(fun)(params)
      new_u, state = tx.update(jnp.ones(1), tx.init(params), params,
                               value=value, grad=grad, value_fn=recorded)
    self.assertLen(trials, max_steps)
    self.assertGreater(float(state.info.curvature_error), 0.0)
    phi = lambda a: -a + 6.0 * max(a - kink, 0.0) ** 2
    decreasing = [a for a in trials
                  if ref.armijo_holds(phi(a), 0.0, -1.0, a, 1e-4)]
    best = min(decreasing, key=phi)
    self.assertEqual(phi(best) < phi(trials[-1]), last_is_worse)
    self.assertIn(trials[-1], decreasing)
    self.assertEqual(float(new_u[0]), best)
    self.assertEqual(float(state.learning_rate), best)
    self.assertEqual(float(state.value), phi(best))
    self.assertEqual(float(state.grad[0]),
                     -1.0 + 12.0 * max(best - kink, 0.0))

  def test_keep_starts_from_the_previous_step_size(self):
    # 'keep': the second search starts at the first one's step size, and
    # is accepted there when it meets the conditions (one trial).
    fun = lambda x, xp=jnp: xp.sum((x - 30.0) ** 2)
    with utils.x64_precision(True):
      tx = linesearch.scale_by_zoom_linesearch(20)
      update = _jitted_update(tx, fun)
      params = jnp.zeros(1)
      state = tx.init(params)
      rates = []
      for _ in range(2):
        value, grad = jax.value_and_grad(fun)(params)
        _, state = update(jnp.ones(1), state, params, value, grad)
        rates.append(float(state.learning_rate))
    # From 0: trials 1, 2, 4 (4 in [3, 57]); again from 0: 4 at once.
    self.assertEqual(rates, [4.0, 4.0])
    self.assertEqual(int(state.info.num_linesearch_steps), 1)

  def test_non_finite_values(self):
    # phi = (alpha - 30)^2 where alpha < 20, NaN beyond: no step size meets
    # the curvature condition where phi is finite. The search returns a
    # finite step with sufficient decrease and keeps f, grad f there.
    def walled(x, xp=jnp):
      return xp.where(xp.sum(x) < 20.0, xp.sum((x - 30.0) ** 2), xp.nan)

    with utils.x64_precision(True):
      tx = linesearch.scale_by_zoom_linesearch(
          20, curv_rtol=0.1, initial_guess_strategy='one')
      new_u, state = self._one_step(tx, walled, np.zeros(1), np.ones(1))
    alpha = float(new_u[0])
    self.assertGreater(alpha, 0.0)
    self.assertLess(alpha, 20.0)
    self.assertEqual(float(state.learning_rate), alpha)
    self.assertTrue(ref.armijo_holds((alpha - 30.0) ** 2, 900.0, -60.0,
                                     alpha, 1e-4))
    self.assertEqual(float(state.value), (alpha - 30.0) ** 2)
    self.assertEqual(float(state.grad[0]), 2.0 * (alpha - 30.0))

    def nowhere(x, xp=jnp):
      return xp.where(xp.all(x == 0.0), xp.sum((x - 30.0) ** 2), xp.nan)

    with utils.x64_precision(True):
      tx = linesearch.scale_by_zoom_linesearch(5)
      new_u, state = self._one_step(tx, nowhere, np.zeros(1), np.ones(1))
    np.testing.assert_array_equal(new_u, np.zeros(1))
    self.assertEqual(float(state.value), 900.0)
    self.assertEqual(float(state.grad[0]), -60.0)
    self.assertEqual(float(state.learning_rate), 1.0)

  def test_zero_gradient(self):
    fun, grad_fn = _PROBLEMS['quadratic'][:2]
    x_star = np.linalg.solve(_A, _B)
    with utils.x64_precision(True):
      tx = linesearch.scale_by_zoom_linesearch(10)
      new_u, state = self._one_step(tx, fun, x_star, np.zeros(_N))
    np.testing.assert_array_equal(new_u, np.zeros(_N))
    self.assertEqual(int(state.info.num_linesearch_steps), 1)
    np.testing.assert_allclose(float(state.value), _np_value(fun, x_star),
                               rtol=1e-14)
    np.testing.assert_allclose(state.grad, grad_fn(x_star), atol=1e-12)


if __name__ == '__main__':
  absltest.main()
