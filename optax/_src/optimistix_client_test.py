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
"""Optax optimizers as Optimistix minimisers (``optx.OptaxMinimiser``).

``optx.minimise`` runs the optimizer in its own jitted loop, turns the
optimizer into a pytree (``eqxi.closure_to_pytree``, which walks the
closures of the transformation and its schedules), and passes ``value``,
``grad`` and ``value_fn`` as extra arguments to every update. The tests check
convergence to the known minimum of a quadratic and of Rosenbrock's function,
a fixed number of Adam steps against a NumPy Adam, that injected and
chained optimizers follow the plain one, and that the optimizers which read
the extra arguments (L-BFGS with its line search, Polyak SGD) work there, in
float32 and float64.

Only the public ``optax`` namespace is used.
"""

from absl.testing import absltest
from absl.testing import parameterized
import jax
import jax.numpy as jnp
import numpy as np
import optimistix as optx

import optax

_CURVATURE = {'a': np.array([1.0, 4.0, 9.0]), 'b': np.array([[2.0, 0.5],
                                                             [3.0, 1.0]])}
_CENTER = {'a': np.array([1.0, -2.0, 0.5]), 'b': np.array([[0.3, -0.7],
                                                           [1.5, 0.0]])}


def _quadratic(y, args):
  """Sum of ``0.5 * h * (y - c)**2`` over a two-leaf tree; minimum 0 at c."""
  curvature, center = args
  terms = jax.tree.map(lambda h, v, c: 0.5 * jnp.sum(h * (v - c) ** 2),
                       curvature, y, center)
  return sum(jax.tree.leaves(terms))


def _quadratic_args(dtype=jnp.float32):
  cast = lambda t: jax.tree.map(lambda x: jnp.asarray(x, dtype), t)
  return cast(_CURVATURE), cast(_CENTER)


def _zeros_like_center(dtype=jnp.float32):
  return jax.tree.map(lambda c: jnp.zeros(c.shape, dtype), _CENTER)


def _rosenbrock(y, args):
  """Rosenbrock's function; minimum 0 at ``x = z = a``."""
  a, b = args
  return (a - y['x']) ** 2 + b * (y['z'] - y['x'] ** 2) ** 2


def _rosenbrock_start(dtype=jnp.float32):
  return {'x': jnp.asarray(-1.2, dtype), 'z': jnp.asarray(1.0, dtype)}


def _numpy_adam_on_quadratic(lr, steps, b1=0.9, b2=0.999, eps=1e-8):
  """Adam from zero on ``_quadratic``, in float64 NumPy (Kingma & Ba 2015).

  Args:
    lr: the learning rate, or a function of the step index (from 0).
    steps: the number of updates.
    b1: the first moment's decay.
    b2: the second moment's decay.
    eps: added to the root of the second moment.

  Returns:
    The point reached, as a dict like ``_CENTER``.
  """
  y = {k: np.zeros_like(c) for k, c in _CENTER.items()}
  mu = {k: np.zeros_like(c) for k, c in _CENTER.items()}
  nu = {k: np.zeros_like(c) for k, c in _CENTER.items()}
  for t in range(1, steps + 1):
    for k, center in _CENTER.items():
      g = _CURVATURE[k] * (y[k] - center)
      mu[k] = b1 * mu[k] + (1 - b1) * g
      nu[k] = b2 * nu[k] + (1 - b2) * g * g
      mhat = mu[k] / (1 - b1 ** t)
      vhat = nu[k] / (1 - b2 ** t)
      rate = lr(t - 1) if callable(lr) else lr
      y[k] = y[k] - rate * mhat / (np.sqrt(vhat) + eps)
  return y


def _fixed_steps(tx, steps, y0=None, args=None):
  """``steps`` updates of ``tx`` through ``optx.minimise``, never stopping."""
  solver = optx.OptaxMinimiser(tx, rtol=0.0, atol=0.0)
  return optx.minimise(
      _quadratic, solver, _zeros_like_center() if y0 is None else y0,
      _quadratic_args() if args is None else args, max_steps=steps,
      throw=False)


def _assert_tree_close(got, want, atol):
  jax.tree.map(lambda a, b: np.testing.assert_allclose(a, b, atol=atol),
               got, want)


class OptaxMinimiserTest(parameterized.TestCase):

  @parameterized.named_parameters(
      ('adam', lambda: optax.adam(0.1)),
      ('adam_cosine', lambda: optax.adam(
          optax.cosine_decay_schedule(0.2, 400, alpha=0.01))),
      ('adamw_inject', lambda: optax.inject_hyperparams(optax.adamw)(
          learning_rate=0.1, weight_decay=0.0)),
      ('clip_adam', lambda: optax.chain(
          optax.clip_by_global_norm(1.0), optax.adam(0.1))),
  )
  def test_adam_converges_on_quadratic(self, make_tx):
    solver = optx.OptaxMinimiser(make_tx(), rtol=1e-6, atol=1e-6)
    sol = optx.minimise(_quadratic, solver, _zeros_like_center(),
                        _quadratic_args(), max_steps=3000)
    self.assertEqual(sol.result, optx.RESULTS.successful)
    self.assertLess(int(sol.stats['num_steps']), 3000)
    _assert_tree_close(sol.value, _CENTER, atol=2e-3)
    for leaf in jax.tree.leaves(sol.value):
      self.assertEqual(leaf.dtype, jnp.float32)

  def test_adam_converges_on_rosenbrock(self):
    solver = optx.OptaxMinimiser(optax.adam(0.02), rtol=1e-6, atol=1e-6)
    sol = optx.minimise(_rosenbrock, solver, _rosenbrock_start(),
                        (1.0, 100.0), max_steps=10_000)
    self.assertEqual(sol.result, optx.RESULTS.successful)
    np.testing.assert_allclose(sol.value['x'], 1.0, atol=2e-3)
    np.testing.assert_allclose(sol.value['z'], 1.0, atol=4e-3)
    self.assertLess(float(_rosenbrock(sol.value, (1.0, 100.0))), 1e-6)

  def test_adam_steps_match_numpy_adam(self):
    steps = 25
    sol = _fixed_steps(optax.adam(0.05), steps)
    # rtol = atol = 0: the solver never meets its tolerance and stops at
    # max_steps, after exactly ``steps`` updates.
    self.assertEqual(sol.result, optx.RESULTS.nonlinear_max_steps_reached)
    self.assertEqual(int(sol.stats['num_steps']), steps)
    want = _numpy_adam_on_quadratic(0.05, steps)
    jax.tree.map(
        lambda a, b: np.testing.assert_allclose(a, b, rtol=2e-5, atol=1e-6),
        sol.value, want)

  def test_injected_adam_is_plain_adam_issue_1532(self):
    # Bit for bit: an injected learning rate gives the plain optimizer's
    # updates (upstream 0.2.8 differs in the last bits, issue #1532).
    plain = _fixed_steps(optax.adam(0.05), 20)
    injected = _fixed_steps(
        optax.inject_hyperparams(optax.adam)(learning_rate=0.05), 20)
    jax.tree.map(np.testing.assert_array_equal, injected.value, plain.value)

  @parameterized.named_parameters(
      ('chain_inactive_clip', lambda: optax.chain(
          optax.clip_by_global_norm(1e6), optax.adam(0.05))),
      ('multisteps_every_1', lambda: optax.MultiSteps(
          optax.adam(0.05), every_k_schedule=1)),
  )
  def test_wrapped_adam_follows_plain_adam(self, make_tx):
    plain = _fixed_steps(optax.adam(0.05), 20)
    wrapped = _fixed_steps(make_tx(), 20)
    jax.tree.map(
        lambda a, b: np.testing.assert_allclose(a, b, rtol=1e-6, atol=1e-7),
        wrapped.value, plain.value)

  def test_multisteps_halves_the_number_of_updates(self):
    # Every other call accumulates; the quadratic's gradient does not change
    # while y stands still, so 2n calls give n Adam steps.
    tx = optax.MultiSteps(optax.adam(0.05), every_k_schedule=2)
    sol = _fixed_steps(tx, 20)
    want = _numpy_adam_on_quadratic(0.05, 10)
    jax.tree.map(
        lambda a, b: np.testing.assert_allclose(a, b, rtol=2e-5, atol=1e-6),
        sol.value, want)

  def test_lbfgs_converges_on_rosenbrock(self):
    # L-BFGS's line search reads the value, grad and value_fn extra
    # arguments that OptaxMinimiser passes to every update.
    solver = optx.OptaxMinimiser(optax.lbfgs(), rtol=1e-6, atol=1e-6)
    sol = optx.minimise(_rosenbrock, solver, _rosenbrock_start(),
                        (1.0, 100.0), max_steps=200)
    self.assertEqual(sol.result, optx.RESULTS.successful)
    self.assertLess(int(sol.stats['num_steps']), 100)
    np.testing.assert_allclose(sol.value['x'], 1.0, atol=1e-4)
    np.testing.assert_allclose(sol.value['z'], 1.0, atol=2e-4)

  def test_lbfgs_float64(self):
    with jax.enable_x64(True):
      solver = optx.OptaxMinimiser(optax.lbfgs(), rtol=1e-12, atol=1e-12)
      sol = optx.minimise(_rosenbrock, solver,
                          _rosenbrock_start(jnp.float64), (1.0, 100.0),
                          max_steps=200, throw=False)
      self.assertIn(sol.result, (optx.RESULTS.successful,
                                 optx.RESULTS.nonlinear_max_steps_reached))
      self.assertEqual(sol.value['x'].dtype, jnp.float64)
      self.assertEqual(sol.value['z'].dtype, jnp.float64)
      np.testing.assert_allclose(sol.value['x'], 1.0, atol=1e-9)
      np.testing.assert_allclose(sol.value['z'], 1.0, atol=1e-9)

  def test_polyak_sgd_reads_the_value(self):
    # Polyak's step size (f - f*) / |g|^2 needs the value: f* = 0 here.
    solver = optx.OptaxMinimiser(optax.polyak_sgd(max_learning_rate=1.0),
                                 rtol=1e-6, atol=1e-6)
    sol = optx.minimise(_quadratic, solver, _zeros_like_center(),
                        _quadratic_args(), max_steps=2000)
    self.assertEqual(sol.result, optx.RESULTS.successful)
    _assert_tree_close(sol.value, _CENTER, atol=1e-4)

  def test_exponential_decay_without_end_value_in_optax_minimiser(self):
    # OptaxMinimiser converts the optimizer's closures into a pytree, which
    # fails on an unbound closure variable ("Cell is empty") such as an
    # end-value clipping function that only exists when end_value is set.
    # Upstream 0.2.8 fails this way.
    schedule = optax.exponential_decay(0.1, transition_steps=50,
                                       decay_rate=0.5)
    sol = _fixed_steps(optax.adam(schedule), 10)
    want = _numpy_adam_on_quadratic(lambda t: 0.1 * 0.5 ** (t / 50), 10)
    jax.tree.map(
        lambda a, b: np.testing.assert_allclose(a, b, rtol=2e-5, atol=1e-6),
        sol.value, want)


if __name__ == '__main__':
  absltest.main()
