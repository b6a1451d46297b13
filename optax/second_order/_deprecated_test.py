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
"""Tests for the deprecated second-order utilities of optax.second_order."""

import warnings

from absl.testing import absltest
from absl.testing import parameterized
import jax
import jax.numpy as jnp
import numpy as np

from optax._src import utils
from optax.second_order import _deprecated


def _linear_least_squares(params, inputs, targets):
  # sum_n |x_n W + b - y_n|^2
  residual = inputs @ params['w'] + params['b'] - targets
  return jnp.sum(residual ** 2)


def _problem(seed=0):
  rng = np.random.default_rng(seed)
  params = {'w': jnp.asarray(rng.normal(size=(3, 2)), jnp.float32),
            'b': jnp.asarray(rng.normal(size=(2,)), jnp.float32)}
  inputs = jnp.asarray(rng.normal(size=(5, 3)), jnp.float32)
  targets = jnp.asarray(rng.normal(size=(5, 2)), jnp.float32)
  return params, inputs, targets


def _np_hessian(inputs):
  """The Hessian of the least squares in the order of ravel_pytree.

  ravel_pytree orders the dict keys: 'b' (2 entries) then 'w' (3 x 2, row
  major). Output column k only involves b_k and w[:, k]; with
  z_k = (1, x) the Hessian block of (b_k, w[:, k]) is 2 sum_n z z^T.
  """
  x = np.asarray(inputs, np.float64)
  n_in = x.shape[1]
  z = np.concatenate([np.ones((x.shape[0], 1)), x], axis=1)
  block = 2 * z.T @ z
  h = np.zeros((2 + 2 * n_in, 2 + 2 * n_in))
  for k in range(2):
    idx = [k] + [2 + 2 * i + k for i in range(n_in)]
    h[np.ix_(idx, idx)] = block
  return h


def _flat(tree):
  return np.asarray(jax.flatten_util.ravel_pytree(tree)[0], np.float64)


class SecondOrderTest(parameterized.TestCase):
  """Values of hvp, hessian_diag and fisher_diag."""

  def setUp(self):
    super().setUp()
    # The functions are deprecated; values are tested with the warning off.
    self.enter_context(warnings.catch_warnings())
    warnings.simplefilter('ignore', DeprecationWarning)

  @parameterized.parameters(False, True)
  def test_hvp(self, use_jit):
    params, inputs, targets = _problem()
    v = np.random.default_rng(1).normal(size=8).astype(np.float32)
    fn = _deprecated.hvp
    if use_jit:
      fn = jax.jit(fn, static_argnums=0)
    out = fn(_linear_least_squares, jnp.asarray(v), params, inputs, targets)
    self.assertEqual(jax.tree.structure(out), jax.tree.structure(params))
    np.testing.assert_allclose(_flat(out), _np_hessian(inputs) @ v,
                               rtol=1e-5, atol=1e-5)

  def test_hvp_nonlinear_against_finite_differences(self):
    loss = lambda p, x, y: jnp.sum(jnp.sin(x @ p['w'] + p['b']) * y)
    params, inputs, targets = _problem(2)
    with utils.x64_precision(True):
      params64 = jax.tree.map(lambda a: jnp.asarray(a, jnp.float64), params)
      flat, unravel = jax.flatten_util.ravel_pytree(params64)
      v = np.random.default_rng(3).normal(size=flat.size)
      grad = lambda f: jax.flatten_util.ravel_pytree(
          jax.grad(loss)(unravel(f), inputs, targets))[0]
      eps = 1e-6
      expected = (np.asarray(grad(flat + eps * v))
                  - np.asarray(grad(flat - eps * v))) / (2 * eps)
    out = _deprecated.hvp(loss, jnp.asarray(v, jnp.float32), params, inputs,
                          targets)
    np.testing.assert_allclose(_flat(out), expected, rtol=1e-4, atol=1e-4)

  @parameterized.parameters(False, True)
  def test_hessian_diag(self, use_jit):
    params, inputs, targets = _problem()
    fn = _deprecated.hessian_diag
    if use_jit:
      fn = jax.jit(fn, static_argnums=0)
    out = fn(_linear_least_squares, params, inputs, targets)
    self.assertEqual(out.shape, (8,))
    np.testing.assert_allclose(out, np.diag(_np_hessian(inputs)), rtol=1e-5)

  def test_fisher_diag(self):
    params, inputs, targets = _problem()
    out = _deprecated.fisher_diag(_linear_least_squares, params, inputs,
                                  targets)
    # Gradient by hand: d/db = 2 sum_n r_n, d/dW = 2 x^T r.
    x = np.asarray(inputs, np.float64)
    r = (x @ np.asarray(params['w'], np.float64)
         + np.asarray(params['b'], np.float64) - np.asarray(targets))
    grad = np.concatenate([2 * r.sum(0), (2 * x.T @ r).ravel()])
    np.testing.assert_allclose(out, grad ** 2, rtol=1e-4)

  def test_fisher_diag_keeps_dtype(self):
    loss = lambda p, x, y: jnp.sum(jnp.sin(p * x) * y)
    out = _deprecated.fisher_diag(loss, jnp.array([1.0, 2.0], jnp.bfloat16),
                                  jnp.array([1.0, 2.0]), jnp.array([3.0, 1.0]))
    self.assertEqual(out.dtype, jnp.bfloat16)


class DeprecationTest(absltest.TestCase):
  """The deprecation warnings: text, category, location and frequency."""

  def _record(self, fn):
    with warnings.catch_warnings(record=True) as caught:
      warnings.simplefilter('always')
      fn()
    return [(w.category, str(w.message), w.filename) for w in caught]

  def test_each_call_warns_at_the_caller(self):
    params, inputs, targets = _problem()
    loss = _linear_least_squares
    for name, call in [
        ('hvp', lambda: _deprecated.hvp(loss, jnp.zeros(8), params, inputs,
                                        targets)),
        ('fisher_diag', lambda: _deprecated.fisher_diag(loss, params, inputs,
                                                        targets)),
    ]:
      caught = self._record(call)
      self.assertEqual(caught, [(
          DeprecationWarning,
          f'The function {name} is deprecated. This function will be/was'
          ' removed in optax 0.2.9.',
          __file__)])

  def test_hessian_diag_also_warns_for_hvp(self):
    # As upstream: hessian_diag warns for itself and its inner hvp calls.
    params, inputs, targets = _problem()
    caught = self._record(lambda: _deprecated.hessian_diag(
        _linear_least_squares, params, inputs, targets))
    self.assertLen(caught, 2)
    self.assertIn('hessian_diag is deprecated', caught[0][1])
    self.assertEqual(caught[0][2], __file__)
    self.assertIn('hvp is deprecated', caught[1][1])

  def test_warns_once_per_trace_under_jit(self):
    params, inputs, targets = _problem()
    fn = jax.jit(lambda v: _deprecated.hvp(
        _linear_least_squares, v, params, inputs, targets))
    self.assertLen(self._record(lambda: fn(jnp.zeros(8))), 1)
    self.assertEmpty(self._record(lambda: fn(jnp.ones(8))))


if __name__ == '__main__':
  absltest.main()
