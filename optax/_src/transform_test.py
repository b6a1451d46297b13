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

from absl.testing import absltest
from absl.testing import parameterized
import jax
import jax.numpy as jnp
import numpy as np

from optax._src import base
from optax._src import transform


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
}


class CommonTest(parameterized.TestCase):
  """Contract checks run on every transformation of the module."""

  @parameterized.named_parameters(*_BUILDERS.items())
  def test_no_array_created_at_build_time(self, make):
    # Building inside a trace and using the result outside would leak a
    # tracer if the factory created an array at construction.
    holder = []

    @jax.jit
    def build(x):
      holder.append(make())
      return x

    build(jnp.zeros(()))
    tx = holder[0]
    params = {'w': jnp.ones((2, 3)), 'b': jnp.ones(3)}
    state = tx.init(params)
    updates, state = tx.update(
        jax.tree.map(lambda p: 0.5 * p, params), state, params)
    jax.block_until_ready(updates)

  @parameterized.named_parameters(*_BUILDERS.items())
  def test_state_type_stable_and_dtypes(self, make):
    tx = make()
    for dtype in (jnp.float32, jnp.bfloat16):
      params = {'w': jnp.ones((2, 3), dtype), 'b': -jnp.ones(3, dtype)}
      state = tx.init(params)
      grads = jax.tree.map(lambda p: 0.5 * p, params)
      update = jax.jit(tx.update)
      for _ in range(2):
        updates, new_state = update(grads, state, params)
        self.assertEqual(
            jax.tree.structure(new_state), jax.tree.structure(state))
        self.assertEqual(_dtypes(new_state), _dtypes(state))
        state = new_state
      self.assertEqual(_dtypes(updates), _dtypes(grads))


if __name__ == '__main__':
  absltest.main()
