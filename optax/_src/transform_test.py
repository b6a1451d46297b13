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
"""Tests for the rescaling transformations of ``optax._src.transform``.

Expected values come from small NumPy implementations of the update rules
(written from the papers) in float64.
"""

import functools
import gc

from absl.testing import absltest
from absl.testing import parameterized
import jax
import jax.numpy as jnp
import numpy as np
import pytest

from optax._src import alias
from optax._src import base
from optax._src import transform
from optax._src.testing import probes


def _grads_seq(shapes, steps, seed=0):
  """A list of ``steps`` dicts of float64 NumPy gradients."""
  rng = np.random.RandomState(seed)
  return [
      {f'p{i}': rng.randn(*s) for i, s in enumerate(shapes)}
      for _ in range(steps)
  ]


def _params(shapes, seed=1):
  rng = np.random.RandomState(seed)
  return {f'p{i}': rng.randn(*s) for i, s in enumerate(shapes)}


_SHAPES = ((3,), (2, 2))


def _to_jnp(tree, dtype=jnp.float32):
  return jax.tree.map(lambda x: jnp.asarray(x, dtype), tree)


def _run(tx, grads_seq, params=None, *, use_jit, dtype=jnp.float32,
         extra_seq=None):
  """Applies ``tx`` to a sequence of gradients; returns updates and states."""
  update = jax.jit(tx.update) if use_jit else tx.update
  jparams = None if params is None else _to_jnp(params, dtype)
  state = tx.init(
      _to_jnp(params if params is not None else grads_seq[0], dtype))
  outs, states = [], []
  for t, grads in enumerate(grads_seq):
    extra = {} if extra_seq is None else extra_seq[t]
    updates, state = update(_to_jnp(grads, dtype), state, jparams, **extra)
    outs.append(updates)
    states.append(state)
  return outs, states


def _assert_close(test, actual, expected, rtol=2e-5, atol=1e-6):
  actual = jax.tree.map(lambda x: np.asarray(x, np.float64), actual)
  test.assertEqual(
      jax.tree.structure(actual), jax.tree.structure(expected))
  for a, e in zip(jax.tree.leaves(actual), jax.tree.leaves(expected)):
    np.testing.assert_allclose(a, e, rtol=rtol, atol=atol)


def _dtypes(tree):
  return [x.dtype for x in jax.tree.leaves(tree)]


# ------------------------------------------------------------------------------
# NumPy references.
# ------------------------------------------------------------------------------


def _np_adam(grads_seq, b1=0.9, b2=0.999, eps=1e-8, eps_root=0.0,
             nesterov=False):
  """Adam / NAdam (Kingma & Ba 2014; Dozat 2016), per leaf, in float64."""
  outs = []
  mu = nu = None
  for t, grads in enumerate(grads_seq, start=1):
    if mu is None:
      mu = {k: np.zeros_like(g) for k, g in grads.items()}
      nu = {k: np.zeros_like(g) for k, g in grads.items()}
    out = {}
    for k, g in grads.items():
      mu[k] = b1 * mu[k] + (1 - b1) * g
      nu[k] = b2 * nu[k] + (1 - b2) * g * g
      if nesterov:
        m_hat = (b1 * mu[k] / (1 - b1 ** (t + 1))
                 + (1 - b1) * g / (1 - b1 ** t))
      else:
        m_hat = mu[k] / (1 - b1 ** t)
      v_hat = nu[k] / (1 - b2 ** t)
      out[k] = m_hat / (np.sqrt(v_hat + eps_root) + eps)
    outs.append(out)
  return outs


def _per_leaf(grads_seq, step_fn, init_fn):
  """Runs a per-leaf NumPy recursion ``step_fn(state, g, t) -> (u, state)``."""
  states = {k: init_fn(g) for k, g in grads_seq[0].items()}
  outs = []
  for t, grads in enumerate(grads_seq, start=1):
    out = {}
    for k, g in grads.items():
      out[k], states[k] = step_fn(states[k], g, t)
    outs.append(out)
  return outs


def _np_adamax(grads_seq, b1=0.9, b2=0.999, eps=1e-8):
  def step(st, g, t):
    m, v = st
    m = b1 * m + (1 - b1) * g
    v = np.maximum(b2 * v, np.abs(g) + eps)
    return m / (1 - b1 ** t) / v, (m, v)
  return _per_leaf(grads_seq, step, lambda g: (0 * g, 0 * g))


def _np_amsgrad(grads_seq, b1=0.9, b2=0.999, eps=1e-8, eps_root=0.0,
                bias_correction_mu=True, bias_correction_nu=True):
  def step(st, g, t):
    m, v, vmax = st
    m = b1 * m + (1 - b1) * g
    v = b2 * v + (1 - b2) * g * g
    m_hat = m / (1 - b1 ** t) if bias_correction_mu else m
    v_hat = v / (1 - b2 ** t) if bias_correction_nu else v
    vmax = np.maximum(vmax, v_hat)
    return m_hat / (np.sqrt(vmax + eps_root) + eps), (m, v, vmax)
  return _per_leaf(grads_seq, step, lambda g: (0 * g, 0 * g, 0 * g))


def _np_adan(grads_seq, b1=0.98, b2=0.92, b3=0.99, eps=1e-8, eps_root=0.0):
  # Algorithm 1 of Xie et al. 2022 with Optax's decay rates, the complements
  # of the paper's betas: the paper's weight 1 - beta2 of the gradient
  # difference is b2 (as in the authors' code, `grad + beta2 * diff`).
  def step(st, g, t):
    m, v, n, prev = st
    d = 0 * g if t == 1 else g - prev
    m = b1 * m + (1 - b1) * g
    v = b2 * v + (1 - b2) * d
    n = b3 * n + (1 - b3) * (g + b2 * d) ** 2
    m_hat, v_hat = m / (1 - b1 ** t), v / (1 - b2 ** t)
    n_hat = n / (1 - b3 ** t)
    u = (m_hat + b2 * v_hat) / (np.sqrt(n_hat + eps_root) + eps)
    return u, (m, v, n, g)
  return _per_leaf(grads_seq, step, lambda g: (0 * g, 0 * g, 0 * g, 0 * g))


def _np_belief(grads_seq, b1=0.9, b2=0.999, eps=1e-16, eps_root=1e-16,
               nesterov=False):
  def step(st, g, t):
    m, s = st
    m = b1 * m + (1 - b1) * g
    s = b2 * s + (1 - b2) * (g - m) ** 2 + eps_root
    if nesterov:
      m_hat = b1 * m / (1 - b1 ** (t + 1)) + (1 - b1) * g / (1 - b1 ** t)
    else:
      m_hat = m / (1 - b1 ** t)
    return m_hat / (np.sqrt(s / (1 - b2 ** t)) + eps), (m, s)
  return _per_leaf(grads_seq, step, lambda g: (0 * g, 0 * g))


def _np_lion(grads_seq, b1=0.9, b2=0.99, mode='hard', smooth_beta=1.0):
  phi = {'hard': np.sign, 'smooth': lambda c: np.tanh(smooth_beta * c),
         'refined': lambda c: np.clip(c, -1, 1)}[mode]
  def step(m, g, t):
    del t
    u = phi((1 - b1) * g + b1 * m)
    return u, b2 * m + (1 - b2) * g
  return _per_leaf(grads_seq, step, lambda g: 0 * g)


def _np_novograd(grads_seq, params, b1=0.9, b2=0.25, eps=1e-8, eps_root=0.0,
                 weight_decay=0.0):
  outs, m, v = [], {}, {}
  for t, grads in enumerate(grads_seq, start=1):
    out = {}
    for k, g in grads.items():
      sq = np.sum(g * g)
      v[k] = sq if t == 1 else b2 * v[k] + (1 - b2) * sq
      step = g / (np.sqrt(v[k] + eps_root) + eps)
      if weight_decay:
        step = step + weight_decay * params[k]
      m[k] = step if t == 1 else b1 * m[k] + step
      out[k] = m[k]
    outs.append(out)
  return outs


def _np_optimistic(grads_seq, alpha=1.0, beta=1.0):
  def step(prev, g, t):
    prev = g if t == 1 else prev
    return alpha * g + beta * (g - prev), g
  return _per_leaf(grads_seq, step, lambda g: 0 * g)


def _np_radam(grads_seq, b1=0.9, b2=0.999, eps=1e-8, eps_root=0.0,
              threshold=5.0, nesterov=False):
  rho_inf = 2 / (1 - b2) - 1
  def step(st, g, t):
    m, v = st
    m = b1 * m + (1 - b1) * g
    v = b2 * v + (1 - b2) * g * g
    if nesterov:
      m_hat = b1 * m / (1 - b1 ** (t + 1)) + (1 - b1) * g / (1 - b1 ** t)
    else:
      m_hat = m / (1 - b1 ** t)
    rho = rho_inf - 2 * t * b2 ** t / (1 - b2 ** t)
    if rho < threshold:
      return m_hat, (m, v)
    r = np.sqrt((rho - 4) * (rho - 2) * rho_inf
                / ((rho_inf - 4) * (rho_inf - 2) * rho))
    v_hat = v / (1 - b2 ** t)
    return r * m_hat / (np.sqrt(v_hat + eps_root) + eps), (m, v)
  return _per_leaf(grads_seq, step, lambda g: (0 * g, 0 * g))


def _np_rms(grads_seq, decay=0.9, eps=1e-8, initial_scale=0.0,
            eps_in_sqrt=True, bias_correction=False, centered=False):
  def step(st, g, t):
    m, v = st
    m = decay * m + (1 - decay) * g
    v = decay * v + (1 - decay) * g * g
    corr = (1 - decay ** t) if bias_correction else 1.0
    var = v / corr - (m / corr) ** 2 if centered else v / corr
    if eps_in_sqrt:
      return g / np.sqrt(var + eps), (m, v)
    return g / (np.sqrt(var) + eps), (m, v)
  return _per_leaf(
      grads_seq, step, lambda g: (0 * g, 0 * g + initial_scale))


def _np_rprop(grads_seq, learning_rate, eta_minus=0.5, eta_plus=1.2,
              min_step_size=1e-6, max_step_size=50.0):
  # iRprop- (Igel and Hüsken 2000): the step computed at a call is its
  # update, zero where the gradient's sign flipped; the sign test is against
  # the previous update (the previous gradient's sign, zero after a flip).
  def step(st, g, t):
    del t
    size, prev = st
    s = np.sign(g * prev)
    size = np.where(
        s > 0, np.clip(size * eta_plus, min_step_size, max_step_size),
        np.where(s < 0,
                 np.clip(size * eta_minus, min_step_size, max_step_size),
                 size))
    out = np.where(s < 0, 0.0, np.sign(g) * size)
    return out, (size, out)
  return _per_leaf(
      grads_seq, step, lambda g: (0 * g + learning_rate, 0 * g))


def _np_rss(grads_seq, initial_accumulator_value=0.1, eps=1e-7):
  def step(s, g, t):
    del t
    s = s + g * g
    return np.where(s > 0, g / np.sqrt(s + eps), 0.0), s
  return _per_leaf(grads_seq, step, lambda g: 0 * g + initial_accumulator_value)


def _np_sm3(grads_seq, b1=0.9, b2=1.0, eps=1e-8):
  """SM3 with the cover of rows / columns / ... of each array."""
  c = 1.0 if b2 == 1.0 else 1 - b2
  def step(st, g, t):
    del t
    accs, nu = st
    if g.ndim < 2:
      prev = accs[0]
    else:
      prev = np.full(g.shape, np.inf)
      for idx in np.ndindex(*g.shape):
        prev[idx] = min(accs[ax][i] for ax, i in enumerate(idx))
    a = c * g * g + b2 * prev
    scaled = np.where(a > 0, g / np.sqrt(a + eps), 0.0)
    nu = b1 * nu + (1 - b1) * scaled
    if g.ndim < 2:
      accs = [a]
    else:
      accs = [np.max(np.moveaxis(a, ax, 0).reshape(g.shape[ax], -1), axis=1)
              for ax in range(g.ndim)]
    return nu, (accs, nu)
  def init(g):
    if g.ndim < 2:
      return [0 * g], 0 * g
    return [np.zeros(n) for n in g.shape], 0 * g
  return _per_leaf(grads_seq, step, init)


def _np_yogi(grads_seq, b1=0.9, b2=0.999, eps=1e-3, eps_root=0.0,
             initial_accumulator_value=1e-6):
  def step(st, g, t):
    m, v = st
    m = b1 * m + (1 - b1) * g
    v = v - (1 - b2) * np.sign(v - g * g) * g * g
    m_hat, v_hat = m / (1 - b1 ** t), v / (1 - b2 ** t)
    return m_hat / (np.sqrt(v_hat + eps_root) + eps), (m, v)
  a = initial_accumulator_value
  return _per_leaf(grads_seq, step, lambda g: (0 * g + a, 0 * g + a))


def _np_adadelta(grads_seq, rho=0.9, eps=1e-6):
  def step(st, g, t):
    del t
    eg, ex = st
    eg = rho * eg + (1 - rho) * g * g
    u = np.sqrt(ex + eps) / np.sqrt(eg + eps) * g
    ex = rho * ex + (1 - rho) * u * u
    return u, (eg, ex)
  return _per_leaf(grads_seq, step, lambda g: (0 * g, 0 * g))


def _np_trust_ratio(grads, params, min_norm=0.0, trust_coefficient=1.0,
                    eps=0.0):
  out = {}
  for k, g in grads.items():
    pn = max(np.linalg.norm(params[k]), min_norm)
    gn = max(np.linalg.norm(g), min_norm)
    ratio = 1.0 if pn == 0 or gn == 0 else trust_coefficient * pn / (gn + eps)
    out[k] = ratio * g
  return out


def _np_bfgs_inverse(pairs, gamma, dim):
  """Dense BFGS inverse-Hessian built from ``gamma * I`` and (s, y) pairs."""
  h = gamma * np.eye(dim)
  for s, y in pairs:
    rho = 1.0 / np.dot(s, y)
    left = np.eye(dim) - rho * np.outer(s, y)
    h = left @ h @ left.T + rho * np.outer(s, s)
  return h


# ------------------------------------------------------------------------------
# scale, scale_by_schedule, scale_by_learning_rate.
# ------------------------------------------------------------------------------


class ScaleTest(parameterized.TestCase):
  """scale, scale_by_schedule and scale_by_learning_rate."""

  @parameterized.parameters(False, True)
  def test_scale(self, use_jit):
    grads = _grads_seq(_SHAPES, 2)
    outs, states = _run(transform.scale(-0.25), grads, use_jit=use_jit)
    for out, g in zip(outs, grads):
      _assert_close(self, out, {k: -0.25 * v for k, v in g.items()})
    self.assertEqual(states[-1], base.ScaleState())

  @parameterized.parameters(False, True)
  def test_scale_by_schedule(self, use_jit):
    grads = _grads_seq(_SHAPES, 3)
    tx = transform.scale_by_schedule(lambda count: 0.5 / (count + 1))
    outs, states = _run(tx, grads, use_jit=use_jit)
    for t, (out, g) in enumerate(zip(outs, grads)):
      _assert_close(self, out, {k: 0.5 / (t + 1) * v for k, v in g.items()})
      self.assertEqual(states[t].count.dtype, jnp.int32)
      self.assertEqual(int(states[t].count), t + 1)

  @parameterized.product(use_jit=(False, True), flip_sign=(False, True))
  def test_scale_by_learning_rate_constant(self, use_jit, flip_sign):
    grads = _grads_seq(_SHAPES, 2)
    tx = transform.scale_by_learning_rate(0.1, flip_sign=flip_sign)
    outs, states = _run(tx, grads, use_jit=use_jit)
    sign = -1.0 if flip_sign else 1.0
    for out, g in zip(outs, grads):
      _assert_close(self, out, {k: sign * 0.1 * v for k, v in g.items()})
    self.assertEqual(states[-1], base.ScaleState())

  @parameterized.parameters(False, True)
  def test_scale_by_learning_rate_schedule(self, use_jit):
    grads = _grads_seq(_SHAPES, 3)
    tx = transform.scale_by_learning_rate(lambda count: 0.1 * (count + 1))
    outs, states = _run(tx, grads, use_jit=use_jit)
    for t, (out, g) in enumerate(zip(outs, grads)):
      _assert_close(self, out, {k: -0.1 * (t + 1) * v for k, v in g.items()})
    self.assertIsInstance(states[-1], transform.ScaleByScheduleState)

  def test_scale_by_learning_rate_none_is_identity(self):
    grads = _grads_seq(_SHAPES, 1)
    outs, _ = _run(transform.scale_by_learning_rate(), grads, use_jit=False)
    _assert_close(self, outs[0], grads[0], rtol=1e-7, atol=0)

  @parameterized.parameters(
      (lambda: transform.scale(0.5),),
      (lambda: transform.scale_by_learning_rate(0.5),),
      (lambda: transform.scale_by_schedule(lambda c: 0.5 + c),),
  )
  def test_bfloat16_updates_keep_dtype(self, make):
    tx = make()
    g = {'a': jnp.array([1.0, -3.0], jnp.bfloat16)}
    updates, _ = tx.update(g, tx.init(g))
    self.assertEqual(updates['a'].dtype, jnp.bfloat16)

  def test_scale_by_schedule_rejects_a_number(self):
    with self.assertRaisesRegex(ValueError, 'scale_by_schedule: step_size_fn'):
      transform.scale_by_schedule(0.1)


# ------------------------------------------------------------------------------
# Adam.
# ------------------------------------------------------------------------------


class AdamTest(parameterized.TestCase):
  """scale_by_adam against a NumPy Adam / NAdam."""

  @parameterized.product(
      use_jit=(False, True),
      hyper=(
          {},
          {'nesterov': True},
          {'b1': 0.5, 'b2': 0.8, 'eps': 1e-3, 'eps_root': 1e-2},
          {'b1': 0.5, 'b2': 0.8, 'eps_root': 1e-2, 'nesterov': True},
          {'b1': 0.0, 'eps': 0.0, 'eps_root': 1e-8},
      ),
  )
  def test_values_against_numpy(self, use_jit, hyper):
    grads = _grads_seq(_SHAPES, 3)
    outs, states = _run(
        transform.scale_by_adam(**hyper), grads, use_jit=use_jit)
    for out, expected in zip(outs, _np_adam(grads, **hyper)):
      _assert_close(self, out, expected)
    self.assertEqual(int(states[-1].count), 3)

  @parameterized.parameters(
      (jnp.float32, None, jnp.float32),
      (jnp.bfloat16, None, jnp.bfloat16),
      (jnp.bfloat16, jnp.float32, jnp.float32),
      (jnp.float32, jnp.bfloat16, jnp.bfloat16),
  )
  def test_dtypes(self, param_dtype, mu_dtype, expected_mu_dtype):
    tx = transform.scale_by_adam(mu_dtype=mu_dtype)
    params = {'w': jnp.zeros((2, 3), param_dtype), 'b': jnp.zeros(3,
                                                                   param_dtype)}
    state = tx.init(params)
    grads = jax.tree.map(lambda p: jnp.ones_like(p) * 0.5, params)
    for _ in range(2):
      updates, new_state = tx.update(grads, state)
      self.assertEqual(
          jax.tree.structure(new_state), jax.tree.structure(state))
      self.assertEqual(_dtypes(new_state), _dtypes(state))
      state = new_state
    self.assertEqual(set(_dtypes(updates)), {jnp.dtype(param_dtype)})
    self.assertEqual(set(_dtypes(state.mu)), {jnp.dtype(expected_mu_dtype)})
    self.assertEqual(set(_dtypes(state.nu)), {jnp.dtype(param_dtype)})
    self.assertEqual(state.count.dtype, jnp.int32)

  @parameterized.parameters(
      (transform.scale_by_adam,), (transform.scale_by_amsgrad,))
  def test_narrow_mu_dtype_rounds_only_the_stored_moment(self, make):
    # The update of a step uses the first moment before it is rounded to
    # mu_dtype: with b1 = 0 it is exactly the float32 Adam step g / |g|.
    tx = make(b1=0.0, eps=0.0, mu_dtype=jnp.bfloat16)
    g = jnp.array([0.1234567, -3.3333333, 7.7777777])
    updates, state = tx.update(g, tx.init(g))
    np.testing.assert_allclose(updates, np.sign(g), rtol=1e-6)
    self.assertEqual(state.mu.dtype, jnp.bfloat16)
    np.testing.assert_array_equal(state.mu, g.astype(jnp.bfloat16))

  def test_injected_array_hyperparameters_give_same_bits(self):
    grads = _to_jnp(_grads_seq(_SHAPES, 1)[0])
    tx_py = transform.scale_by_adam(b1=0.8, b2=0.95, eps=1e-6)
    tx_arr = transform.scale_by_adam(
        b1=jnp.asarray(0.8), b2=jnp.asarray(0.95), eps=jnp.asarray(1e-6))
    u_py, s_py = tx_py.update(grads, tx_py.init(grads))
    u_arr, s_arr = tx_arr.update(grads, tx_arr.init(grads))
    for a, b in zip(jax.tree.leaves((u_py, s_py)), jax.tree.leaves((u_arr,
                                                                      s_arr))):
      np.testing.assert_array_equal(a, b)

  def test_init_on_shape_dtype_structs(self):
    tx = transform.scale_by_adam(mu_dtype=jnp.bfloat16)
    params = {'w': jax.ShapeDtypeStruct((4, 2), jnp.float32)}
    state = jax.eval_shape(tx.init, params)
    self.assertEqual(state.mu['w'].shape, (4, 2))
    self.assertEqual(state.mu['w'].dtype, jnp.bfloat16)
    self.assertEqual(state.nu['w'].dtype, jnp.float32)

  @parameterized.parameters(
      ({'b1': 1.0}, 'scale_by_adam: b1 must be in \\[0, 1\\), got 1.0'),
      ({'b1': -0.1}, 'scale_by_adam: b1'),
      ({'b2': 1.5}, 'scale_by_adam: b2 must be in \\[0, 1\\), got 1.5'),
      ({'eps': -1e-8}, 'scale_by_adam: eps must be non-negative'),
      ({'eps_root': -1.0}, 'scale_by_adam: eps_root must be non-negative'),
  )
  def test_invalid_hyperparameters(self, hyper, message):
    with self.assertRaisesRegex(ValueError, message):
      transform.scale_by_adam(**hyper)

  def test_none_leaves_pass_through(self):
    tx = transform.scale_by_adam()
    params = {'a': jnp.ones(2), 'b': None}
    state = tx.init(params)
    updates, _ = tx.update({'a': jnp.ones(2), 'b': None}, state)
    self.assertIsNone(updates['b'])


# ------------------------------------------------------------------------------
# Other moment-based transformations against NumPy.
# ------------------------------------------------------------------------------


_VALUE_CASES = (
    ('adamax', transform.scale_by_adamax, _np_adamax, {}),
    ('adamax_custom', transform.scale_by_adamax, _np_adamax,
     {'b1': 0.5, 'b2': 0.6, 'eps': 0.1}),
    ('amsgrad', transform.scale_by_amsgrad, _np_amsgrad, {}),
    ('amsgrad_custom', transform.scale_by_amsgrad, _np_amsgrad,
     {'b1': 0.5, 'b2': 0.6, 'eps': 1e-3, 'eps_root': 0.1}),
    ('amsgrad_no_bias_correction', transform.scale_by_amsgrad, _np_amsgrad,
     {'b1': 0.5, 'b2': 0.6, 'eps_root': 0.01, 'bias_correction_mu': False,
      'bias_correction_nu': False}),
    ('adan', transform.scale_by_adan, _np_adan, {}),
    ('adan_custom', transform.scale_by_adan, _np_adan,
     {'b1': 0.5, 'b2': 0.6, 'b3': 0.7, 'eps': 0.01, 'eps_root': 0.1}),
    ('belief', transform.scale_by_belief, _np_belief, {}),
    ('belief_custom', transform.scale_by_belief, _np_belief,
     {'b1': 0.5, 'b2': 0.6, 'eps': 1e-3, 'eps_root': 0.1}),
    ('belief_nesterov', transform.scale_by_belief, _np_belief,
     {'b1': 0.5, 'b2': 0.6, 'eps': 1e-3, 'eps_root': 0.1, 'nesterov': True}),
    ('lion', transform.scale_by_lion, _np_lion, {}),
    ('lion_smooth', transform.scale_by_lion, _np_lion,
     {'b1': 0.5, 'b2': 0.8, 'mode': 'smooth', 'smooth_beta': 2.0}),
    ('lion_refined', transform.scale_by_lion, _np_lion,
     {'b1': 0.5, 'b2': 0.8, 'mode': 'refined'}),
    ('optimistic', transform.scale_by_optimistic_gradient, _np_optimistic, {}),
    ('optimistic_custom', transform.scale_by_optimistic_gradient,
     _np_optimistic, {'alpha': 0.3, 'beta': 2.0}),
    ('radam', transform.scale_by_radam, _np_radam, {}),
    # With b2 = 0.8, rho_t reaches the threshold 4 at the fifth step.
    ('radam_rectified', transform.scale_by_radam, _np_radam,
     {'b1': 0.5, 'b2': 0.8, 'eps': 0.1, 'eps_root': 0.1, 'threshold': 4.0}),
    ('radam_nesterov', transform.scale_by_radam, _np_radam,
     {'b1': 0.5, 'b2': 0.8, 'threshold': 4.0, 'nesterov': True}),
    ('rms', transform.scale_by_rms, _np_rms, {}),
    ('rms_custom', transform.scale_by_rms, _np_rms,
     {'decay': 0.5, 'eps': 0.1, 'initial_scale': 0.2, 'eps_in_sqrt': False}),
    ('rms_bias_correction', transform.scale_by_rms, _np_rms,
     {'decay': 0.5, 'eps': 0.1, 'initial_scale': 0.2,
      'bias_correction': True}),
    ('stddev', transform.scale_by_stddev,
     functools.partial(_np_rms, centered=True), {'initial_scale': 1.0}),
    ('stddev_custom', transform.scale_by_stddev,
     functools.partial(_np_rms, centered=True),
     {'decay': 0.5, 'eps': 0.1, 'initial_scale': 2.0, 'eps_in_sqrt': False}),
    ('stddev_bias_correction', transform.scale_by_stddev,
     functools.partial(_np_rms, centered=True),
     {'decay': 0.5, 'eps': 0.1, 'initial_scale': 0.2,
      'bias_correction': True}),
    ('rprop', transform.scale_by_rprop, _np_rprop, {'learning_rate': 0.1}),
    ('rprop_clipped', transform.scale_by_rprop, _np_rprop,
     {'learning_rate': 0.01, 'eta_minus': 0.5, 'eta_plus': 1.5,
      'min_step_size': 0.04, 'max_step_size': 0.2}),
    ('rss', transform.scale_by_rss, _np_rss, {}),
    ('rss_custom', transform.scale_by_rss, _np_rss,
     {'initial_accumulator_value': 0.0, 'eps': 0.1}),
    ('sm3', transform.scale_by_sm3, _np_sm3, {}),
    ('sm3_custom', transform.scale_by_sm3, _np_sm3,
     {'b1': 0.5, 'b2': 0.6, 'eps': 0.1}),
    ('yogi', transform.scale_by_yogi, _np_yogi, {}),
    ('yogi_custom', transform.scale_by_yogi, _np_yogi,
     {'b1': 0.5, 'b2': 0.6, 'eps': 1e-3, 'eps_root': 0.1,
      'initial_accumulator_value': 0.2}),
    ('adadelta', transform.scale_by_adadelta, _np_adadelta, {}),
    ('adadelta_custom', transform.scale_by_adadelta, _np_adadelta,
     {'rho': 0.5, 'eps': 0.1}),
)

_SHAPES_3D = ((3,), (2, 3), (2, 2, 2))


class ValuesTest(parameterized.TestCase):
  """Three to six steps of each transformation against NumPy."""

  @parameterized.named_parameters(
      (f'{name}_{"jit" if use_jit else "nojit"}', make, ref, hyper, use_jit)
      for name, make, ref, hyper in _VALUE_CASES
      for use_jit in (False, True))
  def test_values(self, make, ref, hyper, use_jit):
    # rho_t of RAdam is a difference of two numbers of order 2 / (1 - b2):
    # the rectified cases use a small b2 (well conditioned in float32) and
    # run until the rectification is on.
    steps = 6 if 'threshold' in hyper else 3
    grads = _grads_seq(_SHAPES_3D, steps)
    outs, _ = _run(make(**hyper), grads, use_jit=use_jit)
    for t, (out, expected) in enumerate(zip(outs, ref(grads, **hyper))):
      with self.subTest(step=t):
        _assert_close(self, out, expected, rtol=5e-5, atol=1e-6)

  def test_rprop_sign_flip_skips_the_step(self):
    tx = transform.scale_by_rprop(learning_rate=0.1)
    g = jnp.array([1.0, -1.0])
    state = tx.init(g)
    _, state = tx.update(g, state)
    updates, state = tx.update(-g, state)
    np.testing.assert_array_equal(updates, jnp.zeros(2))
    np.testing.assert_allclose(state.step_sizes, [0.05, 0.05])
    np.testing.assert_array_equal(state.prev_updates, jnp.zeros(2))

  @parameterized.named_parameters(('nojit', False), ('jit', True))
  def test_rprop_sign_of_a_product_that_underflows(self, use_jit):
    # g * prev = 1e-30 * 1e-20 is 0 in float32: the signs decide, so the
    # step grows while the sign is kept (1e-20 * 1.2) and shrinks when it
    # flips (1.2e-20 * 0.5, no step), as for ordinary magnitudes.
    tx = transform.scale_by_rprop(learning_rate=1e-20, min_step_size=0.0)
    update = jax.jit(tx.update) if use_jit else tx.update
    state = tx.init(jnp.zeros(2, jnp.float32))
    got = []
    for g in (1e-30, 1e-30, -1e-30):
      updates, state = update(jnp.array([g, -g], jnp.float32), state)
      got.append(np.asarray(updates, np.float64))
    want = np.array([1e-20, 1.2e-20, 0.0])
    np.testing.assert_allclose(np.stack(got), np.stack([want, -want], 1),
                               rtol=1e-6)
    np.testing.assert_allclose(state.step_sizes, [6e-21, 6e-21], rtol=1e-6)

  @parameterized.named_parameters(('nojit', False), ('jit', True))
  def test_rprop_update_is_this_steps_step_pull_1725(self, use_jit):
    # iRprop- by hand, learning_rate 0.1, eta_plus 1.2, eta_minus 0.5:
    # the sign is kept twice (0.1 -> 0.12 -> 0.144), flips (0.144 * 0.5 =
    # 0.072, no step), then is compared with the forgotten gradient (0.072
    # kept, stepped). Upstream returned each step one call late: 0, 0.1,
    # 0.12, 0, 0.
    tx = transform.scale_by_rprop(learning_rate=0.1, eta_minus=0.5,
                                  eta_plus=1.2)
    update = jax.jit(tx.update) if use_jit else tx.update
    state = tx.init(jnp.zeros(2))
    got = []
    for g in (1.0, 1.0, 1.0, -1.0, 1.0):
      updates, state = update(jnp.array([g, -g]), state)
      got.append(updates)
    want = np.array([0.1, 0.12, 0.144, 0.0, 0.072])
    np.testing.assert_allclose(np.stack(got), np.stack([want, -want], 1),
                               rtol=1e-6)
    np.testing.assert_allclose(state.step_sizes, [0.072, 0.072], rtol=1e-6)
    np.testing.assert_allclose(state.prev_updates, [0.072, -0.072],
                               rtol=1e-6)

  @parameterized.named_parameters(('nojit', False), ('jit', True))
  def test_adan_gradient_difference_weight_pull_1715(self, use_jit):
    # Algorithm 1 of the Adan paper weights the gradient difference d by
    # 1 - beta2_paper = b2 (authors' code: grad + beta2 * diff). By hand with
    # b1 = 0.5, b2 = 0.75, b3 = 0 (so sqrt(n_hat) = |g + b2 d|), eps = 0 and
    # gradients 1, 3: step 1 has d = 0 and gives 1. Step 2: d = 2,
    # m = 1.75, m_hat = 1.75 / 0.75 = 7/3, v = 0.25 * 2 = 0.5,
    # v_hat = 0.5 / 0.4375 = 8/7, sqrt(n_hat) = 3 + 0.75 * 2 = 4.5, and
    # u = (7/3 + 0.75 * 8/7) / 4.5 = 134/189. Weighting d by 1 - b2 = 0.25
    # (Optax 0.2.8) gives (7/3 + 2/7) / 3.5 = 110/147.
    tx = transform.scale_by_adan(b1=0.5, b2=0.75, b3=0.0, eps=0.0)
    update = jax.jit(tx.update) if use_jit else tx.update
    state = tx.init(jnp.zeros(2))
    first, state = update(jnp.array([1.0, -1.0]), state)
    second, state = update(jnp.array([3.0, -3.0]), state)
    np.testing.assert_allclose(first, [1.0, -1.0], rtol=1e-6)
    np.testing.assert_allclose(second, [134 / 189, -134 / 189], rtol=1e-6)
    np.testing.assert_allclose(state.n, [4.5 ** 2, 4.5 ** 2], rtol=1e-6)

  @parameterized.parameters(False, True)
  def test_rms_and_stddev_state_types(self, bias_correction):
    params = jnp.zeros(2)
    rms = transform.scale_by_rms(bias_correction=bias_correction)
    stddev = transform.scale_by_stddev(bias_correction=bias_correction)
    if bias_correction:
      self.assertIsInstance(rms.init(params),
                            transform.ScaleByRmsWithCountState)
      self.assertIsInstance(stddev.init(params),
                            transform.ScaleByRStdDevWithCountState)
    else:
      self.assertIsInstance(rms.init(params), transform.ScaleByRmsState)
      self.assertIsInstance(stddev.init(params),
                            transform.ScaleByRStdDevState)

  def test_sm3_state_shapes_and_scalar_leaves(self):
    tx = transform.scale_by_sm3(b1=0.0, eps=0.0)
    params = {'w': jnp.zeros((2, 3, 4)), 'b': jnp.zeros(3), 's': jnp.zeros(())}
    state = tx.init(params)
    self.assertEqual([a.shape for a in state.mu['w']], [(2,), (3,), (4,)])
    self.assertEqual([a.shape for a in state.mu['b']], [(3,)])
    self.assertEqual([a.shape for a in state.mu['s']], [()])
    grads = {'w': jnp.ones((2, 3, 4)), 'b': jnp.ones(3),
             's': jnp.asarray(-2.0)}
    updates, _ = tx.update(grads, state)
    _assert_close(self, updates, {'w': np.ones((2, 3, 4)), 'b': np.ones(3),
                                  's': np.asarray(-1.0)})

  def test_sm3_rejects_complex_params(self):
    tx = transform.scale_by_sm3()
    with self.assertRaisesRegex(ValueError, 'scale_by_sm3: complex'):
      tx.init({'a': jnp.ones(2, jnp.complex64)})

  @parameterized.parameters(False, True)
  def test_novograd_with_weight_decay(self, use_jit):
    grads = _grads_seq(_SHAPES_3D, 3)
    params = _params(_SHAPES_3D)
    hyper = {'b1': 0.5, 'b2': 0.6, 'eps': 0.1, 'eps_root': 0.2,
             'weight_decay': 0.1}
    outs, states = _run(transform.scale_by_novograd(**hyper), grads, params,
                        use_jit=use_jit)
    for out, expected in zip(outs, _np_novograd(grads, params, **hyper)):
      _assert_close(self, out, expected)
    self.assertEqual(jax.tree.map(jnp.shape, states[-1].nu),
                     {k: () for k in params})

  def test_novograd_default_needs_no_params(self):
    grads = _grads_seq(_SHAPES_3D, 2)
    outs, _ = _run(transform.scale_by_novograd(), grads, use_jit=False)
    for out, expected in zip(outs, _np_novograd(grads, None)):
      _assert_close(self, out, expected)

  def test_novograd_weight_decay_needs_params(self):
    tx = transform.scale_by_novograd(weight_decay=0.1)
    g = jnp.ones(2)
    with self.assertRaisesRegex(ValueError, 'scale_by_novograd: params'):
      tx.update(g, tx.init(g))


# ------------------------------------------------------------------------------
# Transformations that use params or extra arguments.
# ------------------------------------------------------------------------------


class ParamsAndExtraArgsTest(parameterized.TestCase):
  """Polyak, trust ratio, param-block scalings, DoG and L-BFGS."""

  @parameterized.product(
      use_jit=(False, True),
      hyper=({}, {'f_min': 1.0, 'max_learning_rate': 0.3, 'eps': 0.1},
             {'f_min': 5.0}, {'f_min': 5.0, 'variant': 'sps+'}),
  )
  def test_polyak(self, use_jit, hyper):
    grads = _grads_seq(_SHAPES, 3)
    values = [3.0, 2.0, 1.0]
    tx = transform.scale_by_polyak(**hyper)
    self.assertIsInstance(tx, base.GradientTransformationExtraArgs)
    outs, _ = _run(tx, grads, use_jit=use_jit,
                   extra_seq=[{'value': jnp.asarray(v)} for v in values])
    f_min = hyper.get('f_min', 0.0)
    max_lr = hyper.get('max_learning_rate', 1.0)
    eps = hyper.get('eps', 0.0)
    for out, g, value in zip(outs, grads, values):
      sq = sum(np.sum(x * x) for x in g.values())
      gap = value - f_min
      if hyper.get('variant') == 'sps+':
        gap = max(gap, 0.0)
      step = min(gap / (sq + eps), max_lr)
      _assert_close(self, out, {k: step * x for k, x in g.items()})

  def test_polyak_zero_gradient_gives_zero_step(self):
    tx = transform.scale_by_polyak(f_min=5.0)
    g = {'a': jnp.zeros(3)}
    updates, _ = tx.update(g, tx.init(g), value=jnp.asarray(1.0))
    np.testing.assert_array_equal(updates['a'], np.zeros(3))

  def test_polyak_requires_value(self):
    tx = transform.scale_by_polyak()
    g = jnp.ones(2)
    with self.assertRaises(TypeError):
      tx.update(g, tx.init(g))

  @parameterized.product(
      use_jit=(False, True),
      hyper=({}, {'min_norm': 0.1, 'trust_coefficient': 0.5, 'eps': 0.1}),
  )
  def test_trust_ratio(self, use_jit, hyper):
    grads = _grads_seq(_SHAPES_3D, 1)
    params = _params(_SHAPES_3D)
    params['p0'] = np.zeros(3)  # zero norm: ratio 1.
    outs, states = _run(transform.scale_by_trust_ratio(**hyper), grads,
                        params, use_jit=use_jit)
    _assert_close(self, outs[0], _np_trust_ratio(grads[0], params, **hyper))
    self.assertEqual(states[0], base.ScaleByTrustRatioState())

  @parameterized.parameters(
      transform.scale_by_trust_ratio, transform.scale_by_param_block_norm,
      transform.scale_by_param_block_rms,
      transform.scale_by_distance_over_gradients, transform.scale_by_lbfgs)
  def test_params_are_required(self, make):
    tx = make()
    g = jnp.ones(2)
    with self.assertRaisesRegex(ValueError, f'{make.__name__}: params'):
      tx.update(g, tx.init(g))

  @parameterized.parameters(False, True)
  def test_param_block_scalings(self, use_jit):
    grads = _grads_seq(_SHAPES_3D, 1)
    params = _params(_SHAPES_3D)
    params['p0'] = np.full(3, 1e-5)  # below the floor.
    norm_outs, _ = _run(transform.scale_by_param_block_norm(min_scale=0.1),
                        grads, params, use_jit=use_jit)
    rms_outs, _ = _run(transform.scale_by_param_block_rms(min_scale=0.1),
                       grads, params, use_jit=use_jit)
    _assert_close(self, norm_outs[0], {
        k: max(np.linalg.norm(params[k]), 0.1) * g
        for k, g in grads[0].items()})
    _assert_close(self, rms_outs[0], {
        k: max(np.sqrt(np.mean(params[k] ** 2)), 0.1) * g
        for k, g in grads[0].items()})

  @parameterized.parameters(False, True)
  def test_param_block_rms_complex_params(self, use_jit):
    # The RMS of a complex parameter is sqrt(mean |p|^2), a real scale (as
    # upstream 0.2.8); mean(p ** 2) would rotate the update (adafactor then
    # diverged on complex params).
    p = np.array([3.0 + 4.0j, 0.0 + 1.0j], np.complex64)
    g = np.array([1.0 - 1.0j, 2.0 + 0.5j], np.complex64)
    tx = transform.scale_by_param_block_rms(min_scale=1e-3)
    update = jax.jit(tx.update) if use_jit else tx.update
    out, _ = update(jnp.asarray(g), tx.init(jnp.asarray(p)), jnp.asarray(p))
    self.assertEqual(out.dtype, jnp.complex64)
    np.testing.assert_allclose(out, np.sqrt(13.0) * g, rtol=1e-6)

  @parameterized.parameters(False, True)
  def test_distance_over_gradients(self, use_jit):
    grads = _grads_seq(_SHAPES_3D, 3)
    params_seq = [_params(_SHAPES_3D, seed=s) for s in (1, 2, 3)]
    reps_rel, eps, scale = 0.1, 0.01, 2.0
    tx = transform.scale_by_distance_over_gradients(
        reps_rel=reps_rel, eps=eps, global_scale=scale)
    update = jax.jit(tx.update) if use_jit else tx.update
    state = tx.init(_to_jnp(params_seq[0]))
    x0 = params_seq[0]
    dist = {k: reps_rel * (1 + np.linalg.norm(p)) for k, p in x0.items()}
    sums = {k: 0.0 for k in x0}
    for g, p in zip(grads, params_seq):
      updates, state = update(_to_jnp(g), state, _to_jnp(p))
      expected = {}
      for k in g:
        dist[k] = max(dist[k], np.linalg.norm(p[k] - x0[k]))
        sums[k] += np.sum(g[k] ** 2)
        expected[k] = scale * dist[k] / np.sqrt(sums[k] + eps) * g[k]
      _assert_close(self, updates, expected)
    self.assertEqual(state.grad_sum_of_squares['p0'].shape, (1,))
    self.assertEqual(state.max_dist['p0'].shape, ())

  def test_distance_over_gradients_dtypes(self):
    tx = transform.scale_by_distance_over_gradients()
    params = {'a': jnp.ones(3, jnp.bfloat16), 's': jnp.ones((), jnp.bfloat16)}
    state = tx.init(params)
    self.assertEqual(set(_dtypes(state)), {jnp.dtype(jnp.float32)})
    updates, new_state = tx.update(params, state, params)
    self.assertEqual(_dtypes(updates), _dtypes(params))
    self.assertEqual(updates['s'].shape, ())
    self.assertEqual(_dtypes(new_state), _dtypes(state))

  def test_precondition_by_lbfgs_matches_dense_bfgs(self):
    rng = np.random.RandomState(0)
    dim, memory_size = 5, 4
    a = rng.randn(dim, dim)
    hessian = a @ a.T + dim * np.eye(dim)
    pairs = []
    for _ in range(memory_size):
      s = rng.randn(dim)
      pairs.append((s, hessian @ s))  # Positive curvature.
    g = rng.randn(dim)
    gamma = 0.7
    for memory_idx in range(memory_size):
      # Slot (memory_idx + j) % memory_size holds the j-th oldest pair.
      s_mem = np.zeros((memory_size, dim))
      y_mem = np.zeros((memory_size, dim))
      w_mem = np.zeros(memory_size)
      for j, (s, y) in enumerate(pairs):
        slot = (memory_idx + j) % memory_size
        s_mem[slot], y_mem[slot], w_mem[slot] = s, y, 1 / np.dot(s, y)
      out = transform._precondition_by_lbfgs(
          {'x': jnp.asarray(g, jnp.float32)},
          {'x': jnp.asarray(s_mem, jnp.float32)},
          {'x': jnp.asarray(y_mem, jnp.float32)},
          jnp.asarray(w_mem, jnp.float32), gamma, memory_idx)
      expected = _np_bfgs_inverse(pairs, gamma, dim) @ g
      np.testing.assert_allclose(out['x'], expected, rtol=1e-4, atol=1e-5)

  def test_precondition_by_lbfgs_ignores_empty_slots(self):
    g = {'x': jnp.array([1.0, -2.0, 3.0])}
    zeros = {'x': jnp.zeros((3, 3))}
    out = transform._precondition_by_lbfgs(
        g, zeros, zeros, jnp.zeros(3), 0.5, 1)
    np.testing.assert_allclose(out['x'], 0.5 * np.array([1.0, -2.0, 3.0]))

  @parameterized.parameters(False, True)
  def test_scale_by_lbfgs_on_a_quadratic(self, use_jit):
    rng = np.random.RandomState(0)
    dim = 4
    a = rng.randn(dim, dim)
    hessian = a @ a.T + np.eye(dim)
    tx = transform.scale_by_lbfgs(memory_size=2)
    update = jax.jit(tx.update) if use_jit else tx.update
    x = rng.randn(dim)
    state = tx.init({'x': jnp.asarray(x, jnp.float32)})
    pairs, prev = [], None
    for t in range(4):
      g = hessian @ x
      updates, state = update({'x': jnp.asarray(g, jnp.float32)}, state,
                              {'x': jnp.asarray(x, jnp.float32)})
      if t == 0:
        expected = min(1.0, 1.0 / np.linalg.norm(g)) * g
      else:
        s, y = x - prev[0], g - prev[1]
        pairs = (pairs + [(s, y)])[-2:]
        gamma = np.dot(s, y) / np.dot(y, y)
        expected = _np_bfgs_inverse(pairs, gamma, dim) @ g
      np.testing.assert_allclose(updates['x'], expected, rtol=1e-4,
                                 atol=1e-5)
      prev = (x, g)
      x = x - 0.5 * np.asarray(updates['x'], np.float64)
    self.assertEqual(int(state.count), 4)
    self.assertEqual(state.diff_params_memory['x'].shape, (2, dim))
    self.assertEqual(state.weights_memory.shape, (2,))


# ------------------------------------------------------------------------------
# Stateless helpers and apply_every.
# ------------------------------------------------------------------------------


class StatelessTest(parameterized.TestCase):
  """scale_by_sign, centralize, normalize_by_update_norm, apply_every."""

  @parameterized.parameters(False, True)
  def test_sign_centralize_normalize(self, use_jit):
    grads = _grads_seq(_SHAPES_3D, 1)
    grads[0]['p0'][1] = 0.0
    g = grads[0]
    sign, _ = _run(transform.scale_by_sign(), grads, use_jit=use_jit)
    _assert_close(self, sign[0], {k: np.sign(v) for k, v in g.items()})
    cen, _ = _run(transform.centralize(), grads, use_jit=use_jit)
    expected = {
        k: v if v.ndim < 2 else
        v - v.mean(axis=tuple(range(1, v.ndim)), keepdims=True)
        for k, v in g.items()}
    _assert_close(self, cen[0], expected)
    norm, _ = _run(transform.normalize_by_update_norm(2.0, eps=0.5), grads,
                   use_jit=use_jit)
    total = np.sqrt(sum(np.sum(v * v) for v in g.values()))
    _assert_close(self, norm[0], {k: 2.0 * v / (total + 0.5)
                                  for k, v in g.items()})

  @parameterized.parameters(False, True)
  def test_apply_every(self, use_jit):
    grads = _grads_seq(_SHAPES, 7)
    outs, states = _run(transform.apply_every(k=3), grads, use_jit=use_jit)
    for t, out in enumerate(outs):
      if t % 3 == 2:
        expected = {k: sum(grads[j][k] for j in range(t - 2, t + 1))
                    for k in grads[0]}
      else:
        expected = {k: np.zeros_like(v) for k, v in grads[0].items()}
      _assert_close(self, out, expected)
      self.assertEqual(int(states[t].count), (t + 1) % 3)

  def test_apply_every_one_is_identity(self):
    grads = _grads_seq(_SHAPES, 2)
    outs, _ = _run(transform.apply_every(), grads, use_jit=False)
    for out, g in zip(outs, grads):
      _assert_close(self, out, g)


# ------------------------------------------------------------------------------
# Validation.
# ------------------------------------------------------------------------------


class ValidationTest(parameterized.TestCase):
  """Python-number hyperparameters are checked when the factory is called."""

  @parameterized.parameters(
      (transform.scale_by_adamax, {'b1': 1.0}, 'scale_by_adamax: b1'),
      (transform.scale_by_adamax, {'b2': 1.5}, 'scale_by_adamax: b2'),
      (transform.scale_by_amsgrad, {'b2': 1.0}, 'scale_by_amsgrad: b2'),
      (transform.scale_by_adan, {'b3': -0.5}, 'scale_by_adan: b3'),
      (transform.scale_by_belief, {'eps': -1.0}, 'scale_by_belief: eps'),
      (transform.scale_by_lion, {'b1': 2.0}, 'scale_by_lion: b1'),
      (transform.scale_by_novograd, {'b2': 1.5}, 'scale_by_novograd: b2'),
      (transform.scale_by_polyak, {'variant': 'sps-'},
       "scale_by_polyak: variant must be 'sps' or 'sps\\+', got 'sps-'"),
      (transform.scale_by_polyak, {'max_learning_rate': -1.0},
       'scale_by_polyak: max_learning_rate'),
      (transform.scale_by_radam, {'b2': 1.0}, 'scale_by_radam: b2'),
      (transform.scale_by_rms, {'decay': 1.5}, 'scale_by_rms: decay'),
      (transform.scale_by_rms, {'decay': 1.0, 'bias_correction': True},
       'scale_by_rms: decay must be in \\[0, 1\\), got 1.0'),
      (transform.scale_by_stddev, {'eps': -1.0}, 'scale_by_stddev: eps'),
      (transform.scale_by_rss, {'initial_accumulator_value': -1.0},
       'scale_by_rss: initial_accumulator_value'),
      (transform.scale_by_sm3, {'b2': 1.5}, 'scale_by_sm3: b2'),
      (transform.scale_by_trust_ratio, {'min_norm': -1.0},
       'scale_by_trust_ratio: min_norm'),
      (transform.scale_by_yogi, {'b1': 1.0}, 'scale_by_yogi: b1'),
      (transform.scale_by_adadelta, {'rho': -0.1}, 'scale_by_adadelta: rho'),
      (transform.scale_by_distance_over_gradients, {'reps_rel': 0.0},
       'scale_by_distance_over_gradients: reps_rel must be positive'),
      (transform.scale_by_lbfgs, {'memory_size': 0},
       'scale_by_lbfgs: memory_size must be an integer >= 1, got 0'),
      (transform.apply_every, {'k': 0},
       'apply_every: k must be an integer >= 1, got 0'),
      (transform.normalize_by_update_norm, {'eps': -1.0},
       'normalize_by_update_norm: eps'),
      (transform.scale_by_param_block_norm, {'min_scale': -1.0},
       'scale_by_param_block_norm: min_scale'),
  )
  def test_invalid(self, make, hyper, message):
    with self.assertRaisesRegex(ValueError, message):
      make(**hyper)

  def test_lion_unknown_mode_raises_in_update(self):
    # As upstream 0.2.8: the factory and init accept any mode, update
    # rejects an unknown one.
    tx = transform.scale_by_lion(mode='soft')
    state = tx.init(jnp.zeros(2))
    with self.assertRaisesRegex(
        ValueError, "scale_by_lion: mode must be one of .*, got 'soft'"):
      tx.update(jnp.ones(2), state)

  def test_rprop_validation(self):
    with self.assertRaisesRegex(ValueError,
                                'scale_by_rprop: learning_rate'):
      transform.scale_by_rprop(-0.1)
    with self.assertRaisesRegex(
        ValueError,
        r'^scale_by_rprop: max_step_size must be >= min_step_size \(1.0\), '
        r'got 0.5$'):
      transform.scale_by_rprop(0.1, min_step_size=1.0, max_step_size=0.5)
    # A NaN maximum would clip every step size to NaN.
    with self.assertRaisesRegex(
        ValueError, r'^scale_by_rprop: max_step_size must be >= '):
      transform.scale_by_rprop(0.1, max_step_size=float('nan'))

  @parameterized.parameters(
      (transform.scale_by_adam, {'eps': 0.0, 'eps_root': 1e-8}),
      (transform.scale_by_adam, {'b1': 0.0}),
      (transform.scale_by_amsgrad, {'b1': 1.0, 'bias_correction_mu': False}),
      (transform.scale_by_sm3, {'b2': 1.0}),
      (transform.scale_by_lion, {'b1': 1.0, 'b2': 0.0}),
      (transform.scale_by_rms, {'decay': 1.0, 'eps': 0.0}),
      (transform.scale_by_trust_ratio, {'eps': 0.0}),
  )
  def test_boundary_values_accepted(self, make, hyper):
    make(**hyper)

  def test_traced_values_are_not_validated(self):
    # Under inject_hyperparams the factory gets arrays: no Python check.
    transform.scale_by_adam(b1=jnp.asarray(1.5))
    jax.jit(lambda b: transform.scale_by_adam(b1=b) and b)(0.9)


# ------------------------------------------------------------------------------
# Regression tests for upstream issues.
# ------------------------------------------------------------------------------


def _radam_makers():
  return [('scale_by_radam', transform.scale_by_radam),
          ('alias_radam', functools.partial(alias.radam, 1e-3))]


class RegressionTest(parameterized.TestCase):
  """Upstream issues that must stay fixed."""

  @parameterized.parameters(
      ('scale_by_rss', lambda: transform.scale_by_rss()),
      ('scale_by_sm3', lambda: transform.scale_by_sm3()),
      ('adagrad', lambda: alias.adagrad(0.1)),
      ('sm3', lambda: alias.sm3(0.1)),
  )
  def test_nan_gradient_gives_nan_update(self, name, make):
    # The accumulator of a NaN coordinate is NaN, which is not > 0: the
    # fork selected 0 for the whole product and hid the NaN (adagrad gave
    # [-0., -0.0953]); upstream 0.2.8 gives NaN there. The other
    # coordinate is untouched: its update is finite and nonzero.
    del name
    tx = make()
    params = jnp.array([1.0, 2.0])
    grads = jnp.array([jnp.nan, 1.0])
    updates, _ = tx.update(grads, tx.init(params), params)
    self.assertTrue(np.isnan(updates[0]))
    self.assertTrue(np.isfinite(updates[1]))
    self.assertNotEqual(float(updates[1]), 0.0)

  @parameterized.parameters(transform.scale_by_rss, transform.scale_by_sm3)
  def test_zero_accumulator_still_gives_zero(self, make):
    # The guard itself stays: a coordinate whose gradients were all zero
    # (eps 0, so the root is 0) gets a zero update, not 0 / 0.
    kwargs = ({'initial_accumulator_value': 0.0, 'eps': 0.0}
              if make is transform.scale_by_rss else {'eps': 0.0, 'b1': 0.0})
    tx = make(**kwargs)
    updates, _ = tx.update(jnp.array([0.0, 2.0]), tx.init(jnp.zeros(2)))
    np.testing.assert_array_equal(updates, [0.0, 1.0])

  @parameterized.parameters(True, False)
  def test_stddev_bias_corrected_first_step_is_finite(self, eps_in_sqrt):
    # Step 1 with initial_scale=0: the bias-corrected variance is exactly 0
    # and its float32 value is rounding noise around 0; where the noise was
    # negative the fork gave NaN. Now the update is finite, has the sign of
    # g and is at most g / sqrt(eps) (g / eps) in size.
    g = jnp.asarray(np.random.default_rng(0).standard_normal(8), jnp.float32)
    eps = 1e-8
    tx = transform.scale_by_stddev(decay=0.9, eps=eps, bias_correction=True,
                                   eps_in_sqrt=eps_in_sqrt)
    updates, state = tx.update(g, tx.init(g))
    updates = np.asarray(updates)
    bound = np.abs(np.asarray(g)) / (np.sqrt(eps) if eps_in_sqrt else eps)
    self.assertTrue(np.all(np.isfinite(updates)))
    np.testing.assert_array_equal(np.sign(updates), np.sign(np.asarray(g)))
    self.assertTrue(np.all(np.abs(updates) <= bound * (1 + 1e-5)))
    updates, _ = tx.update(-g, state)
    self.assertTrue(np.all(np.isfinite(np.asarray(updates))))

  @pytest.mark.slow
  def test_radam_live_buffers_flat_issue_969(self):
    # Upstream #969: RAdam selected its rectified step with lax.cond and
    # leaked device buffers step after step. The number of live arrays must
    # stay flat over a long jitted loop (across the switch to the rectified
    # step at t = 6), and the program must contain no cond.
    params = {'w': jnp.linspace(-1.0, 1.0, 12).reshape((4, 3)),
              'b': jnp.zeros(3)}
    grads = jax.tree.map(lambda p: 0.1 * p + 0.01, params)
    for name, make in _radam_makers():
      with self.subTest(name):
        tx = make()
        jaxpr = str(jax.make_jaxpr(tx.update)(grads, tx.init(params), params))
        self.assertNotIn('cond[', jaxpr)
        step = jax.jit(tx.update)
        state = tx.init(params)
        early = None
        for i in range(2000):
          updates, state = step(grads, state, params)
          del updates
          if i == 100:
            jax.block_until_ready(state)
            gc.collect()
            early = len(jax.live_arrays())
        jax.block_until_ready(state)
        gc.collect()
        late = len(jax.live_arrays())
        self.assertLessEqual(late, early)
        self.assertEqual(int(jax.tree.leaves(state)[0]), 2000)


# ------------------------------------------------------------------------------
# Properties shared by every transformation.
# ------------------------------------------------------------------------------


_BUILDERS = {
    'scale': lambda: transform.scale(0.1),
    'scale_by_learning_rate': lambda: transform.scale_by_learning_rate(0.1),
    'scale_by_learning_rate_schedule': (
        lambda: transform.scale_by_learning_rate(lambda c: 0.1 / (c + 1))),
    'scale_by_schedule': lambda: transform.scale_by_schedule(
        lambda c: 0.1 / (c + 1)),
    'scale_by_adam': transform.scale_by_adam,
    'scale_by_adam_nesterov': lambda: transform.scale_by_adam(nesterov=True),
    'scale_by_adamax': transform.scale_by_adamax,
    'scale_by_amsgrad': transform.scale_by_amsgrad,
    'scale_by_adan': transform.scale_by_adan,
    'scale_by_belief': transform.scale_by_belief,
    'scale_by_lion': transform.scale_by_lion,
    'scale_by_novograd': lambda: transform.scale_by_novograd(
        weight_decay=0.1),
    'scale_by_optimistic_gradient': transform.scale_by_optimistic_gradient,
    'scale_by_polyak': transform.scale_by_polyak,
    'scale_by_radam': transform.scale_by_radam,
    'scale_by_rms': transform.scale_by_rms,
    'scale_by_rms_bias_correction': lambda: transform.scale_by_rms(
        bias_correction=True),
    'scale_by_stddev': transform.scale_by_stddev,
    'scale_by_rprop': lambda: transform.scale_by_rprop(0.1),
    'scale_by_rss': transform.scale_by_rss,
    'scale_by_sm3': transform.scale_by_sm3,
    'scale_by_trust_ratio': transform.scale_by_trust_ratio,
    'scale_by_yogi': transform.scale_by_yogi,
    'scale_by_adadelta': transform.scale_by_adadelta,
    'scale_by_distance_over_gradients': (
        transform.scale_by_distance_over_gradients),
    'scale_by_lbfgs': lambda: transform.scale_by_lbfgs(memory_size=3),
    'scale_by_param_block_norm': transform.scale_by_param_block_norm,
    'scale_by_param_block_rms': transform.scale_by_param_block_rms,
    'scale_by_sign': transform.scale_by_sign,
    'centralize': transform.centralize,
    'normalize_by_update_norm': transform.normalize_by_update_norm,
    'apply_every': lambda: transform.apply_every(k=2),
}

# Required extra arguments of ``update``.
_EXTRA_ARGS = {'scale_by_polyak': {'value': 1.0}}

# Factories called with arrays (as inject_hyperparams does) must give the
# same bits as with the equal Python numbers.
_INJECTABLE = (
    ('scale_by_adam', transform.scale_by_adam,
     {'b1': 0.8, 'b2': 0.95, 'eps': 1e-6, 'eps_root': 1e-7}),
    ('scale_by_adamax', transform.scale_by_adamax,
     {'b1': 0.8, 'b2': 0.95, 'eps': 1e-6}),
    ('scale_by_amsgrad', transform.scale_by_amsgrad,
     {'b1': 0.8, 'b2': 0.95, 'eps': 1e-6}),
    ('scale_by_adan', transform.scale_by_adan,
     {'b1': 0.8, 'b2': 0.9, 'b3': 0.95}),
    ('scale_by_belief', transform.scale_by_belief,
     {'b1': 0.8, 'b2': 0.95, 'eps': 1e-6}),
    ('scale_by_lion', transform.scale_by_lion, {'b1': 0.8, 'b2': 0.95}),
    ('scale_by_novograd', transform.scale_by_novograd,
     {'b1': 0.8, 'b2': 0.3, 'weight_decay': 0.1}),
    ('scale_by_radam', transform.scale_by_radam,
     {'b1': 0.8, 'b2': 0.7, 'threshold': 1.0}),
    ('scale_by_rms', transform.scale_by_rms,
     {'decay': 0.8, 'eps': 1e-6, 'initial_scale': 0.3}),
    ('scale_by_stddev', transform.scale_by_stddev,
     {'decay': 0.8, 'eps': 1e-6, 'initial_scale': 1.3}),
    ('scale_by_rprop', transform.scale_by_rprop,
     {'learning_rate': 0.1, 'eta_minus': 0.3, 'eta_plus': 1.7}),
    ('scale_by_rss', transform.scale_by_rss,
     {'initial_accumulator_value': 0.3, 'eps': 1e-6}),
    ('scale_by_sm3', transform.scale_by_sm3, {'b1': 0.8, 'b2': 0.95}),
    ('scale_by_trust_ratio', transform.scale_by_trust_ratio,
     {'min_norm': 0.1, 'trust_coefficient': 0.3}),
    ('scale_by_yogi', transform.scale_by_yogi,
     {'b1': 0.8, 'b2': 0.95, 'eps': 1e-6}),
    ('scale_by_adadelta', transform.scale_by_adadelta,
     {'rho': 0.8, 'eps': 1e-6}),
    ('scale_by_optimistic_gradient', transform.scale_by_optimistic_gradient,
     {'alpha': 0.3, 'beta': 0.7}),
    ('scale_by_polyak', transform.scale_by_polyak,
     {'f_min': 0.1, 'max_learning_rate': 0.7}),
    ('normalize_by_update_norm', transform.normalize_by_update_norm,
     {'scale_factor': 0.3, 'eps': 1e-3}),
)


class CommonTest(parameterized.TestCase):
  """Contract checks run on every transformation of the module."""

  @parameterized.named_parameters(*_BUILDERS.items())
  def test_no_array_created_at_build_time(self, make):
    # Every array alive after the build was alive before it: the factory
    # (and the closures it returns) hold no new JAX array.
    tx, new = probes.arrays_created_by(make)
    self.assertEmpty(new, 'arrays created when the transformation was built')
    # Built inside a trace, the transformation must carry no tracer out of
    # it: jax.checking_leaks raises if one escapes into the closures.
    holder = []
    with jax.checking_leaks():

      @jax.jit
      def build(x):
        holder.append(make())
        return x

      build(jnp.zeros(()))
    tx = holder.pop()
    params = {'w': jnp.ones((2, 3)), 'b': jnp.ones(3)}
    state = tx.init(params)
    extra = {}
    for name, args in _EXTRA_ARGS.items():
      if self._testMethodName.endswith(name):
        extra = args
    updates, state = tx.update(
        jax.tree.map(lambda p: 0.5 * p, params), state, params, **extra)
    self.assertEqual(jax.tree.structure(updates), jax.tree.structure(params))
    for u, p in zip(jax.tree.leaves(updates), jax.tree.leaves(params)):
      self.assertEqual((u.shape, u.dtype), (p.shape, p.dtype))
      self.assertTrue(bool(jnp.all(jnp.isfinite(u))))

  @parameterized.named_parameters(*_BUILDERS.items())
  def test_state_type_stable_and_dtypes(self, make):
    tx = make()
    extra = {}
    for name, args in _EXTRA_ARGS.items():
      if self._testMethodName.endswith(name):
        extra = args
    for dtype in (jnp.float32, jnp.bfloat16):
      params = {'w': jnp.arange(1.0, 7.0, dtype=dtype).reshape((2, 3)),
                'b': -jnp.ones(3, dtype)}
      state = tx.init(params)
      update = jax.jit(functools.partial(tx.update, **extra))
      for t in range(3):
        grads = jax.tree.map(lambda p, t=t: (0.5 - t) * p, params)
        updates, new_state = update(grads, state, params)
        self.assertEqual(
            jax.tree.structure(new_state), jax.tree.structure(state))
        self.assertEqual(_dtypes(new_state), _dtypes(state))
        state = new_state
      self.assertEqual(_dtypes(updates), _dtypes(grads))
      for leaf in jax.tree.leaves(updates):
        self.assertTrue(np.all(np.isfinite(np.asarray(leaf, np.float32))))

  @parameterized.named_parameters(*_BUILDERS.items())
  def test_init_on_shape_dtype_structs(self, make):
    tx = make()
    params = {'w': jnp.ones((2, 3)), 'b': jnp.ones(3)}
    structs = jax.tree.map(
        lambda p: jax.ShapeDtypeStruct(p.shape, p.dtype), params)
    abstract = jax.eval_shape(tx.init, structs)
    concrete = tx.init(params)
    self.assertEqual(jax.tree.structure(abstract),
                     jax.tree.structure(concrete))
    for a, c in zip(jax.tree.leaves(abstract), jax.tree.leaves(concrete)):
      self.assertEqual((a.shape, a.dtype), (c.shape, c.dtype))

  # No implicit dtype or rank promotion inside the transformations; the
  # registry's schedules are user code and are kept out of this lane.
  @parameterized.named_parameters(
      *[item for item in _BUILDERS.items() if 'schedule' not in item[0]])
  def test_strict_promotion_lane(self, make):
    extra = {}
    for name, args in _EXTRA_ARGS.items():
      if self._testMethodName.endswith(name):
        extra = args
    # Params of one dtype, and a tree mixing float32 and bfloat16 leaves.
    for w_dtype, b_dtype in ((jnp.float32,) * 2, (jnp.bfloat16,) * 2,
                             (jnp.float32, jnp.bfloat16)):
      with jax.numpy_dtype_promotion('strict'), \
          jax.numpy_rank_promotion('raise'):
        tx = make()
        params = {'w': jnp.arange(1.0, 7.0, dtype=w_dtype).reshape((2, 3)),
                  'b': -jnp.ones(3, b_dtype)}
        state = tx.init(params)
        for t in range(2):
          grads = jax.tree.map(lambda p, t=t: (p * (t + 1)).astype(p.dtype),
                               params)
          updates, state = tx.update(grads, state, params, **extra)
        self.assertEqual(_dtypes(updates), _dtypes(params))

  @parameterized.named_parameters(*_INJECTABLE)
  def test_array_hyperparameters_give_same_bits(self, make, hyper):
    params = _to_jnp(_params(_SHAPES_3D))
    extra = {'value': jnp.asarray(2.0)} if 'f_min' in hyper else {}
    results = []
    for convert in (lambda v: v, jnp.asarray):
      tx = make(**{k: convert(v) for k, v in hyper.items()})
      state = tx.init(params)
      for seed in range(3):
        grads = _to_jnp(_grads_seq(_SHAPES_3D, 1, seed=seed)[0])
        updates, state = tx.update(grads, state, params, **extra)
      results.append(jax.tree.leaves((updates, state)))
    for a, b in zip(*results):
      np.testing.assert_array_equal(a, b)


if __name__ == '__main__':
  absltest.main()
