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
"""Tests for trace, ema, the skip functions and MultiSteps."""

import functools

from absl.testing import absltest
from absl.testing import parameterized
import jax
import jax.numpy as jnp
from jax.sharding import AxisType
from jax.sharding import NamedSharding
from jax.sharding import PartitionSpec as P
import numpy as np

from optax import contrib
from optax._src import alias
from optax._src import base
from optax._src import test_utils
from optax._src.testing import host_devices
from optax._src.testing import probes
from optax.transforms import _accumulation
from optax.transforms import _clipping
from optax.transforms import _combining
from optax.transforms import _conditionality
from optax.transforms import _constraining

_LR = 0.1


def _params(dtype=jnp.float32):
  return {'w': jnp.linspace(-1.0, 1.0, 12, dtype=jnp.float32)
                 .reshape(4, 3).astype(dtype),
          'b': jnp.linspace(0.5, -0.5, 3, dtype=jnp.float32).astype(dtype)}


def _grads(n, seed=0, dtype=jnp.float32):
  rng = np.random.RandomState(seed)
  return [{'w': jnp.asarray(rng.randn(4, 3), dtype),
           'b': jnp.asarray(rng.randn(3), dtype)} for _ in range(n)]


def _np(tree):
  return jax.tree.map(lambda x: np.asarray(x, np.float64), tree)


def _run(tx, grads, params, jit):
  """Applies ``tx`` to a sequence of gradients; returns (updates, states)."""
  update = jax.jit(tx.update) if jit else tx.update
  state = tx.init(params)
  all_updates, states = [], []
  for g in grads:
    updates, state = update(g, state, params)
    all_updates.append(updates)
    states.append(state)
  return all_updates, states


def _dtypes(tree):
  return [jnp.result_type(x) for x in jax.tree.leaves(tree)]


class _SgdRef:
  """Plain SGD in NumPy: ``u = -lr * g``."""

  def __init__(self, lr=_LR):
    self.lr = lr

  def __call__(self, g):
    return {k: -self.lr * v for k, v in g.items()}


class _AdamRef:
  """Adam in NumPy, from Kingma and Ba (2014), Algorithm 1."""

  def __init__(self, lr=_LR, b1=0.9, b2=0.999, eps=1e-8):
    self.lr, self.b1, self.b2, self.eps = lr, b1, b2, eps
    self.m = self.v = None
    self.t = 0

  def __call__(self, g):
    if self.m is None:
      self.m = {k: np.zeros_like(v) for k, v in g.items()}
      self.v = {k: np.zeros_like(v) for k, v in g.items()}
    self.t += 1
    out = {}
    for k, x in g.items():
      self.m[k] = self.b1 * self.m[k] + (1 - self.b1) * x
      self.v[k] = self.b2 * self.v[k] + (1 - self.b2) * x ** 2
      m_hat = self.m[k] / (1 - self.b1 ** self.t)
      v_hat = self.v[k] / (1 - self.b2 ** self.t)
      out[k] = -self.lr * m_hat / (np.sqrt(v_hat) + self.eps)
    return out


def _ref_multisteps(grads, inner, every_k, use_mean=True, skip=None):
  """Gradient accumulation in NumPy.

  Returns the updates of every step, ``(mini_step, gradient_step)`` after
  every step and whether the inner optimizer ran.
  """
  acc, n, step = None, 0, 0
  zeros = {k: np.zeros_like(v) for k, v in grads[0].items()}
  updates, counters, emitted = [], [], []
  for g in grads:
    if skip is not None and skip(g):
      updates.append(zeros)
      counters.append((n, step))
      emitted.append(False)
      continue
    acc = g if n == 0 else {k: acc[k] + g[k] for k in g}
    n += 1
    k = every_k(step) if callable(every_k) else every_k
    if n >= k:
      total = {key: v / n if use_mean else v for key, v in acc.items()}
      updates.append(inner(total))
      n, step = 0, step + 1
      emitted.append(True)
    else:
      updates.append(zeros)
      emitted.append(False)
    counters.append((n, step))
  return updates, counters, emitted


class TraceTest(parameterized.TestCase):

  @parameterized.product(
      decay=[0.0, 0.5, 0.9], nesterov=[False, True], jit=[False, True])
  def test_values(self, decay, nesterov, jit):
    grads = _grads(5)
    tx = _accumulation.trace(decay, nesterov)
    got, states = _run(tx, grads, _params(), jit)
    m = {k: np.zeros_like(v) for k, v in _np(grads[0]).items()}
    for g, u, s in zip(_np(grads), got, states):
      m = {k: g[k] + decay * m[k] for k in g}
      want = {k: g[k] + decay * m[k] for k in g} if nesterov else m
      test_utils.assert_trees_all_close(u, want, rtol=1e-6, atol=1e-7)
      test_utils.assert_trees_all_close(s.trace, m, rtol=1e-6, atol=1e-7)

  def test_accumulator_dtype(self):
    params = _params(jnp.bfloat16)
    grads = _grads(3, dtype=jnp.bfloat16)
    for acc_dtype, want in ((None, jnp.bfloat16), (jnp.float32, jnp.float32),
                            ('bfloat16', jnp.bfloat16)):
      tx = _accumulation.trace(0.9, accumulator_dtype=acc_dtype)
      updates, states = _run(tx, grads, params, jit=True)
      for u, s in zip(updates, states):
        self.assertEqual(set(_dtypes(s.trace)), {jnp.dtype(want)})
        self.assertEqual(set(_dtypes(u)), {jnp.dtype(jnp.bfloat16)})

  def test_bfloat16_trace_of_float32_updates(self):
    tx = _accumulation.trace(0.5, accumulator_dtype=jnp.bfloat16)
    updates, states = _run(tx, _grads(2), _params(), jit=False)
    self.assertEqual(set(_dtypes(updates[-1])), {jnp.dtype(jnp.float32)})
    self.assertEqual(set(_dtypes(states[-1])), {jnp.dtype(jnp.bfloat16)})

  def test_none_leaves(self):
    tx = _accumulation.trace(0.9)
    params = {'a': jnp.ones(2), 'b': None}
    state = tx.init(params)
    self.assertIsNone(state.trace['b'])
    updates, _ = tx.update({'a': jnp.ones(2), 'b': None}, state)
    self.assertIsNone(updates['b'])


class EmaTest(parameterized.TestCase):

  @parameterized.product(
      decay=[0.0, 0.5, 0.9, 0.999], debias=[False, True], jit=[False, True])
  def test_values(self, decay, debias, jit):
    grads = _grads(5, seed=1)
    tx = _accumulation.ema(decay, debias)
    got, states = _run(tx, grads, _params(), jit)
    # The decay is a float32 hyperparameter: 1 - decay is derived from it.
    d = float(np.float32(decay))
    # 1 - decay ** t cancels in float32 when decay is close to 1.
    rtol = 3e-5 if decay > 0.99 else 2e-6
    m = {k: np.zeros_like(v) for k, v in _np(grads[0]).items()}
    for t, (g, u, s) in enumerate(zip(_np(grads), got, states), start=1):
      m = {k: (1 - d) * g[k] + d * m[k] for k in g}
      want = {k: v / (1 - d ** t) for k, v in m.items()} if debias else m
      test_utils.assert_trees_all_close(u, want, rtol=rtol, atol=1e-7)
      test_utils.assert_trees_all_close(s.ema, m, rtol=2e-6, atol=1e-7)
      self.assertEqual(int(s.count), t)
      self.assertEqual(s.count.dtype, jnp.int32)

  def test_dtypes(self):
    params = _params(jnp.bfloat16)
    tx = _accumulation.ema(0.9, accumulator_dtype=jnp.float32)
    updates, states = _run(tx, _grads(3, dtype=jnp.bfloat16), params, True)
    self.assertEqual(set(_dtypes(states[-1].ema)), {jnp.dtype(jnp.float32)})
    self.assertEqual(set(_dtypes(updates[-1])), {jnp.dtype(jnp.bfloat16)})

  @parameterized.parameters(-0.1, 1.5, float('nan'))
  def test_decay_validation(self, decay):
    with self.assertRaisesRegex(ValueError, r'ema: decay must be in \[0, 1\]'):
      _accumulation.ema(decay)


class SkipFunctionsTest(parameterized.TestCase):

  def test_skip_not_finite(self):
    step = jnp.zeros([], jnp.int32)
    finite = {'a': jnp.ones(3), 'b': jnp.zeros((2, 2))}
    skip, info = _accumulation.skip_not_finite(finite, step, None)
    self.assertFalse(bool(skip))
    self.assertEqual(int(info['num_not_finite']), 0)
    bad = {'a': jnp.array([1.0, jnp.nan, jnp.inf]),
           'b': jnp.array([[-jnp.inf, 0.0], [0.0, 0.0]])}
    skip, info = _accumulation.skip_not_finite(bad, step, None)
    self.assertTrue(bool(skip))
    self.assertTrue(bool(info['should_skip']))
    self.assertEqual(int(info['num_not_finite']), 3)
    self.assertEqual(info['num_not_finite'].dtype, jnp.int32)

  @parameterized.parameters((24.0, True), (25.0, True), (25.5, False))
  def test_skip_large_updates(self, max_sq, want_skip):
    updates = {'a': jnp.array([3.0, 0.0]), 'b': jnp.array([[4.0]])}
    skip, info = _accumulation.skip_large_updates(
        updates, jnp.zeros([], jnp.int32), None, max_sq)
    self.assertEqual(bool(skip), want_skip)
    self.assertEqual(bool(info['should_skip']), want_skip)
    self.assertAlmostEqual(float(info['norm_squared']), 25.0)

  def test_skip_large_updates_skips_nan(self):
    skip, _ = _accumulation.skip_large_updates(
        jnp.array([jnp.nan]), jnp.zeros([], jnp.int32), None, 1e9)
    self.assertTrue(bool(skip))


class MultiStepsTest(parameterized.TestCase):

  @parameterized.product(
      every_k=[1, 3], use_mean=[True, False], jit=[False, True])
  def test_sgd_matches_reference(self, every_k, use_mean, jit):
    grads = _grads(7, seed=2)
    ms = _accumulation.MultiSteps(alias.sgd(_LR), every_k, use_mean)
    got, states = _run(ms, grads, _params(), jit)
    want, counters, emitted = _ref_multisteps(
        _np(grads), _SgdRef(), every_k, use_mean)
    for i, (u, s) in enumerate(zip(got, states)):
      test_utils.assert_trees_all_close(u, want[i], rtol=1e-6, atol=1e-8,
                                        err_msg=f'step {i}')
      self.assertEqual((int(s.mini_step), int(s.gradient_step)), counters[i])
      self.assertEqual(bool(ms.has_updated(s)), emitted[i])

  @parameterized.parameters(False, True)
  def test_adam_and_schedule_of_k(self, jit):
    every_k = lambda step: jnp.where(step < 2, 2, 3)
    grads = _grads(11, seed=3)
    ms = _accumulation.MultiSteps(alias.adam(_LR), every_k)
    got, states = _run(ms, grads, _params(), jit)
    want, counters, emitted = _ref_multisteps(
        _np(grads), _AdamRef(), lambda step: 2 if step < 2 else 3)
    self.assertEqual(emitted, [False, True, False, True, False, False, True,
                               False, False, True, False])
    for i, (u, s) in enumerate(zip(got, states)):
      test_utils.assert_trees_all_close(u, want[i], rtol=1e-5, atol=1e-7,
                                        err_msg=f'step {i}')
      self.assertEqual((int(s.mini_step), int(s.gradient_step)), counters[i])

  def test_inner_state_advances_only_when_emitting(self):
    ms = _accumulation.MultiSteps(alias.adam(_LR), 3)
    _, states = _run(ms, _grads(7), _params(), jit=True)
    counts = [int(jax.tree.leaves(s.inner_opt_state)[0]) for s in states]
    self.assertEqual(counts, [0, 0, 1, 1, 1, 2, 2])

  def test_gradient_transformation_in_chain(self):
    ms = _accumulation.MultiSteps(alias.sgd(_LR), 2)
    tx = ms.gradient_transformation()
    self.assertIsInstance(tx, base.GradientTransformationExtraArgs)
    double = base.stateless(lambda g, p: jax.tree.map(lambda x: 2 * x, g))
    chained = _combining.chain(double, tx)
    grads = _grads(4, seed=4)
    got, _ = _run(chained, grads, _params(), jit=True)
    doubled = [{k: 2 * v for k, v in g.items()} for g in _np(grads)]
    want, _, _ = _ref_multisteps(doubled, _SgdRef(), 2)
    test_utils.assert_trees_all_close(got, want, rtol=1e-6, atol=1e-8)

  @parameterized.parameters(False, True)
  def test_skip_not_finite(self, jit):
    grads = _grads(8, seed=5)
    grads[1] = {'w': grads[1]['w'].at[0, 0].set(jnp.nan), 'b': grads[1]['b']}
    grads[4] = {'w': grads[4]['w'], 'b': grads[4]['b'].at[2].set(-jnp.inf)}
    ms = _accumulation.MultiSteps(
        alias.sgd(_LR), 2, should_skip_update_fn=_accumulation.skip_not_finite)
    self.assertEqual(
        jax.tree.map(lambda x: (x.shape, x.dtype),
                     ms.init(_params()).skip_state),
        {'should_skip': ((), jnp.bool_), 'num_not_finite': ((), jnp.int32)})
    got, states = _run(ms, grads, _params(), jit)
    not_finite = lambda g: not all(np.isfinite(v).all() for v in g.values())
    want, counters, _ = _ref_multisteps(
        _np(grads), _SgdRef(), 2, skip=not_finite)
    for i, (u, s) in enumerate(zip(got, states)):
      test_utils.assert_trees_all_close(u, want[i], rtol=1e-6, atol=1e-8,
                                        err_msg=f'step {i}')
      self.assertEqual((int(s.mini_step), int(s.gradient_step)), counters[i])
      self.assertEqual(bool(s.skip_state['should_skip']), i in (1, 4))
      self.assertEqual(int(s.skip_state['num_not_finite']), int(i in (1, 4)))

  def test_skip_large_updates(self):
    grads = _grads(7, seed=6)
    grads[2] = jax.tree.map(lambda x: 100.0 * x, grads[2])
    skip_fn = functools.partial(
        _accumulation.skip_large_updates, max_squared_norm=1000.0)
    ms = _accumulation.MultiSteps(
        alias.sgd(_LR), 3, should_skip_update_fn=skip_fn)
    got, states = _run(ms, grads, _params(), jit=True)
    too_large = lambda g: sum(np.sum(v ** 2) for v in g.values()) >= 1000.0
    want, counters, _ = _ref_multisteps(
        _np(grads), _SgdRef(), 3, skip=too_large)
    test_utils.assert_trees_all_close(got, want, rtol=1e-6, atol=1e-8)
    self.assertEqual(
        [(int(s.mini_step), int(s.gradient_step)) for s in states], counters)
    sq_norms = [float(s.skip_state['norm_squared']) for s in states]
    np.testing.assert_allclose(
        sq_norms, [sum(np.sum(v ** 2) for v in g.values())
                   for g in _np(grads)], rtol=1e-5)

  def test_extra_args_and_params_are_forwarded(self):
    seen = []

    def update_fn(updates, state, params=None, **extra_args):
      seen.append((params is not None, sorted(extra_args)))
      return updates, state

    inner = base.GradientTransformationExtraArgs(
        base.init_empty_state, update_fn)
    ms = _accumulation.MultiSteps(inner, 2)
    params = _params()
    state = ms.init(params)
    ms.update(_grads(1)[0], state, params, value=jnp.ones([]))
    self.assertIn((True, ['value']), seen)

  def test_plain_inner_ignores_extra_args(self):
    ms = _accumulation.MultiSteps(alias.sgd(_LR), 1)
    self.assertIsInstance(ms.inner_opt, base.GradientTransformationExtraArgs)
    params = _params()
    updates, _ = ms.update(_grads(1)[0], ms.init(params), params,
                           unknown=jnp.ones([]))
    test_utils.assert_trees_all_close(
        updates, _SgdRef()(_np(_grads(1)[0])), rtol=1e-6)

  def test_init_on_shapes(self):
    ms = _accumulation.MultiSteps(
        alias.adam(_LR), 2, should_skip_update_fn=_accumulation.skip_not_finite)
    params = _params(jnp.bfloat16)
    shapes = jax.tree.map(
        lambda x: jax.ShapeDtypeStruct(x.shape, x.dtype), params)
    got = jax.eval_shape(ms.init, shapes)
    want = jax.eval_shape(ms.init, params)
    self.assertEqual(jax.tree.structure(got), jax.tree.structure(want))
    self.assertEqual(_dtypes(got), _dtypes(ms.init(params)))

  @parameterized.parameters(
      (None, jnp.bfloat16), (jnp.float32, jnp.float32),
      (jnp.bfloat16, jnp.bfloat16), ('float32', jnp.float32))
  def test_accumulator_dtype(self, acc_dtype, want):
    params = _params(jnp.bfloat16)
    ms = _accumulation.MultiSteps(alias.sgd(_LR), 2,
                                  accumulator_dtype=acc_dtype)
    _, states = _run(ms, _grads(3, dtype=jnp.bfloat16), params, jit=True)
    for s in (ms.init(params), *states):
      self.assertEqual(set(_dtypes(s.acc_grads)), {jnp.dtype(want)})

  def test_default_accumulator_is_float32(self):
    ms = _accumulation.MultiSteps(base.identity(), 2)
    state = ms.init(_params(jnp.bfloat16))
    self.assertEqual(set(_dtypes(state.acc_grads)), {jnp.dtype(jnp.float32)})

  def test_complex_gradients_keep_their_imaginary_part(self):
    ms = _accumulation.MultiSteps(alias.sgd(1.0), 2)
    params = jnp.zeros(2, jnp.complex64)
    state = ms.init(params)
    self.assertEqual(state.acc_grads.dtype, jnp.complex64)
    _, state = ms.update(jnp.array([1 + 1j, 2.0]), state, params)
    updates, _ = ms.update(jnp.array([1 - 3j, 4.0]), state, params)
    np.testing.assert_allclose(updates, [-1 + 1j, -3.0], rtol=1e-6)

  def test_per_example_gradients_raise(self):
    ms = _accumulation.MultiSteps(alias.sgd(_LR), 2)
    params = _params()
    batched = jax.tree.map(lambda x: jnp.stack([x, x]), params)
    with self.assertRaisesRegex(
        ValueError,
        r"^MultiSteps: at \['b'\] the update has shape \(2, 3\) but the"
        r" accumulator has shape \(3,\)\. .*per-example gradients"):
      ms.update(batched, ms.init(params), params)

  def test_inner_state_dtype_change_cast_back_with_warning_regression(self):
    # Regression: a user optimizer whose state drifts from bfloat16 to
    # float32 raised TypeError; upstream 0.2.8 casts the state back to the
    # dtypes of init. So does the fork now, and it warns at trace time.
    def init(params):
      return {'m': jax.tree.map(jnp.zeros_like, params)}

    def update(updates, state, params=None):
      del params
      m = jax.tree.map(lambda m, g: m + g.astype(jnp.float32), state['m'],
                       updates)
      return updates, {'m': m}

    ms = _accumulation.MultiSteps(base.GradientTransformation(init, update), 2)
    params = _params(jnp.bfloat16)
    update_fn = jax.jit(ms.update)
    state = ms.init(params)
    grads = [jax.tree.map(lambda p, c=c: jnp.full_like(p, c), params)
             for c in (1.0, 3.0, 2.0, 6.0)]
    with self.assertWarnsRegex(
        UserWarning, r"MultiSteps: .*\['m'\]\['b'\] from bfloat16 to float32"
    ) as caught:
      updates, state = update_fn(grads[0], state, params)
    self.assertIn("['m']['w'] from bfloat16 to float32", str(caught.warning))
    sums = []
    for g in grads[1:]:
      updates, state = update_fn(g, state, params)
      sums.append(state.inner_opt_state['m'])
    # The inner state holds the running sum of the emitted means, 2 then 6.
    for leaf in jax.tree.leaves(sums[0]):
      self.assertEqual(leaf.dtype, jnp.bfloat16)
      np.testing.assert_array_equal(np.asarray(leaf, np.float32), 2.0)
    for leaf in jax.tree.leaves(sums[2]):
      self.assertEqual(leaf.dtype, jnp.bfloat16)
      np.testing.assert_array_equal(np.asarray(leaf, np.float32), 6.0)
    for leaf in jax.tree.leaves(updates):
      np.testing.assert_array_equal(np.asarray(leaf, np.float32), 4.0)

  def test_inner_optimizer_changing_a_state_shape_raises(self):
    def update(updates, state, params=None):
      del params
      return updates, {'m': jnp.concatenate([state['m'], state['m']])}

    ms = _accumulation.MultiSteps(
        base.GradientTransformation(lambda p: {'m': jnp.zeros(2)}, update), 2)
    params = _params()
    with self.assertRaisesRegex(
        TypeError, r"shape of its state leaf at \['m'\] from float32\[2\] to"
        r' float32\[4\]'):
      ms.update(params, ms.init(params), params)

  def test_inner_optimizer_changing_its_state_structure_raises(self):
    def update(updates, state, params=None):
      del state, params
      return updates, {'extra': jnp.zeros([])}

    ms = _accumulation.MultiSteps(
        base.GradientTransformation(lambda p: {}, update), 2)
    params = _params()
    with self.assertRaisesRegex(TypeError, 'another tree structure'):
      ms.update(params, ms.init(params), params)

  @parameterized.parameters(0, -1, 2.5, '3', True)
  def test_every_k_validation(self, every_k):
    with self.assertRaisesRegex(ValueError, 'MultiSteps: every_k_schedule'):
      _accumulation.MultiSteps(base.identity(), every_k)

  def test_built_inside_jit_used_outside(self):
    box = []

    @jax.jit
    def build(x):
      box.append(_accumulation.MultiSteps(alias.adam(_LR), 2))
      return x

    build(jnp.zeros([]))
    params = _params()
    with jax.checking_leaks():
      ms = box[0]
      _run(ms, _grads(3), params, jit=True)

  @parameterized.product(
      grad_dtype=(jnp.float32, jnp.float16, jnp.bfloat16, jnp.int32),
      param_dtype=(jnp.float32, jnp.float16, jnp.bfloat16),
      jit=(False, True))
  def test_updates_have_the_inner_optimizers_dtypes(
      self, grad_dtype, param_dtype, jit):
    # MultiSteps returns, on every mini-step, updates of the dtypes that its
    # inner optimizer alone returns for the same gradients and params (as
    # upstream main's test_multi_steps_mixed_precision asks): float16 or
    # int32 gradients on float32 params give float32 updates both ways.
    params = {'w': jnp.ones((3, 2), param_dtype), 'b': jnp.ones(2, param_dtype)}
    grads = jax.tree.map(lambda p: (2 * jnp.ones_like(p)).astype(grad_dtype),
                         params)
    inner = alias.adam(_LR)
    ms = _accumulation.MultiSteps(alias.adam(_LR), 2)
    inner_update = jax.jit(inner.update) if jit else inner.update
    ms_update = jax.jit(ms.update) if jit else ms.update
    want, _ = inner_update(grads, inner.init(params), params)
    state = ms.init(params)
    for _ in range(3):  # Accumulating, emitting, accumulating.
      got, state = ms_update(grads, state, params)
      for name in params:
        self.assertEqual(got[name].dtype, want[name].dtype, msg=name)

  def test_float0_gradients_give_zero_updates(self):
    # jax.grad(..., allow_int=True) gives float0 gradients for integer
    # params: those leaves get zero updates, the others those of adam.
    params = {'w': jnp.array([1.0, -2.0]), 'n': jnp.array([3, 4])}

    def loss(p):
      return jnp.sum(p['w'] ** 2) + 0.0 * jnp.sum(p['n'])

    grads = jax.grad(loss, allow_int=True)(params)
    self.assertEqual(grads['n'].dtype, jax.dtypes.float0)
    ms = _accumulation.MultiSteps(alias.adam(_LR), 1)
    updates, _ = ms.update(grads, ms.init(params), params)
    np.testing.assert_array_equal(updates['n'], np.zeros(2))
    # Adam's first step: -lr * sign(g) for g = 2 w = (2, -4).
    np.testing.assert_allclose(updates['w'], [-_LR, _LR], rtol=1e-5)


_NUM_DEVICES = 8

def _sharded(mesh, tree):
  """Places every leaf of ``tree`` on ``mesh``, split over both axes."""
  return jax.device_put(tree, NamedSharding(mesh, P('data', 'model')))


class ShardingTest(parameterized.TestCase):
  """MultiSteps on params sharded over a ('data', 'model') mesh.

  The 8 host devices come from ``optax/conftest.py``, which sets XLA_FLAGS
  before JAX starts.
  """

  def setUp(self):
    super().setUp()
    self._devices = host_devices.use_host_devices(self, _NUM_DEVICES)

  def _mesh(self, axis_type):
    return jax.make_mesh((2, 4), ('data', 'model'),
                         axis_types=(axis_type,) * 2, devices=self._devices)

  @parameterized.parameters(False, True)
  def test_jitted_update_on_explicit_mesh_regression(self, use_adam):
    # Regression: under an explicit mesh, the accumulator (built with
    # jnp.zeros, hence replicated) was selected against the sharded new
    # accumulator: ShardingTypeError 'select cases must have the same
    # shardings'.
    mesh = self._mesh(AxisType.Explicit)
    with jax.set_mesh(mesh):
      params = _sharded(mesh, {'w': jnp.linspace(-1.0, 1.0, 32).reshape(8, 4)})
      grads = [_sharded(mesh, {'w': jnp.full((8, 4), v)}) for v in (1.0, 3.0)]
      inner = alias.adam(_LR) if use_adam else alias.sgd(_LR)
      ms = _accumulation.MultiSteps(inner, 2)
      update = jax.jit(ms.update)
      state = ms.init(params)
      updates, state = update(grads[0], state, params)
      np.testing.assert_array_equal(updates['w'], np.zeros((8, 4)))
      updates, state = update(grads[1], state, params)
    # The mean gradient is 2 everywhere: sgd gives -0.2, adam -lr * sign.
    want = -_LR if use_adam else -2.0 * _LR
    np.testing.assert_allclose(updates['w'], np.full((8, 4), want), rtol=1e-5)
    self.assertEqual(updates['w'].sharding.spec, P('data', 'model'))

  @parameterized.product(
      axis_type=[AxisType.Explicit, AxisType.Auto], jit_init=[False, True])
  def test_accumulator_sharded_like_params_regression(
      self, axis_type, jit_init):
    # Regression: the accumulator was jnp.zeros(shape), a single-device (or
    # replicated) array whatever the params' sharding, so an eager init put
    # all of it on one device and a jitted step resharded it.
    mesh = self._mesh(axis_type)
    with jax.set_mesh(mesh):
      params = _sharded(mesh, {'w': jnp.ones((8, 4)), 'b': jnp.ones((2, 4))})
      ms = _accumulation.MultiSteps(alias.adam(_LR), 2)
      state = (jax.jit(ms.init) if jit_init else ms.init)(params)
      mu = state.inner_opt_state[0].mu
      if jit_init and axis_type == AxisType.Auto:
        # Under jit on an Auto mesh XLA chooses the sharding of constants:
        # the accumulator is placed as the inner optimizer's moments are.
        for name in params:
          self.assertEqual(state.acc_grads[name].sharding, mu[name].sharding)
        return
      for name, p in params.items():
        self.assertEqual(state.acc_grads[name].sharding, p.sharding)
      update = jax.jit(ms.update)
      for _ in range(3):  # Accumulate, emit, accumulate.
        _, state = update(params, state, params)
        for name, p in params.items():
          self.assertEqual(state.acc_grads[name].sharding, p.sharding)
          self.assertEqual(
              state.inner_opt_state[0].mu[name].sharding, p.sharding)


class StrictPromotionTest(parameterized.TestCase):
  """No implicit dtype or rank promotion, for float32 and bfloat16."""

  @parameterized.product(
      name=['trace', 'nesterov', 'ema', 'multisteps', 'multisteps_skip'],
      dtype=[jnp.float32, jnp.bfloat16])
  def test_strict(self, name, dtype):
    tx = {
        'trace': lambda: _accumulation.trace(0.9),
        'nesterov': lambda: _accumulation.trace(
            0.9, nesterov=True, accumulator_dtype=jnp.float32),
        'ema': lambda: _accumulation.ema(0.9, accumulator_dtype=jnp.float32),
        'multisteps': lambda: _accumulation.MultiSteps(
            _accumulation.trace(0.9), 2),
        'multisteps_skip': lambda: _accumulation.MultiSteps(
            _accumulation.ema(0.9), 2, accumulator_dtype=None,
            should_skip_update_fn=_accumulation.skip_not_finite),
    }[name]()
    params = _params(dtype)
    with jax.numpy_dtype_promotion('strict'), \
        jax.numpy_rank_promotion('raise'):
      updates, _ = _run(tx, _grads(2, dtype=dtype), params, jit=True)
    for u in updates:
      test_utils.assert_trees_all_equal_dtypes(u, params)


class NanIsolationTest(parameterized.TestCase):
  """A NaN in one mini-batch must not outlive its accumulation cycle."""

  def _grads_with_nan(self):
    grads = _grads(9, seed=7)
    grads[1] = {'w': grads[1]['w'].at[1, 2].set(jnp.nan), 'b': grads[1]['b']}
    return grads

  @parameterized.parameters(False, True)
  def test_later_cycles_are_clean(self, jit):
    grads = self._grads_with_nan()
    ms = _accumulation.MultiSteps(alias.sgd(_LR), 3)
    got, states = _run(ms, grads, _params(), jit)
    # Steps that do not emit return exact zeros, NaN or not.
    for i in (0, 1, 3, 4, 6, 7):
      for leaf in jax.tree.leaves(got[i]):
        np.testing.assert_array_equal(leaf, np.zeros(leaf.shape))
    # The first cycle's update is NaN exactly where the NaN was.
    self.assertTrue(np.isnan(got[2]['w'][1, 2]))
    self.assertEqual(int(np.isnan(np.asarray(got[2]['w'])).sum()), 1)
    # The accumulator is clean after the cycle, and so are the next cycles.
    for leaf in jax.tree.leaves(states[2].acc_grads):
      np.testing.assert_array_equal(leaf, np.zeros(leaf.shape))
    want, _, _ = _ref_multisteps(_np(grads), _SgdRef(), 3)
    for i in (5, 8):
      test_utils.assert_trees_all_close(got[i], want[i], rtol=1e-6,
                                        atol=1e-8)

  def test_zero_nans_inside_cleans_the_cycle(self):
    grads = self._grads_with_nan()
    ms = _accumulation.MultiSteps(
        _combining.chain(_constraining.zero_nans(), alias.sgd(_LR)), 3)
    got, _ = _run(ms, grads, _params(), jit=True)
    want, _, _ = _ref_multisteps(_np(grads), _SgdRef(), 3)
    want[2]['w'][1, 2] = 0.0
    for i in range(len(grads)):
      test_utils.assert_trees_all_close(
          got[i], want[i], rtol=1e-6, atol=1e-8, err_msg=f'step {i}')

  def test_apply_if_finite_inside_skips_the_cycle(self):
    grads = self._grads_with_nan()
    ms = _accumulation.MultiSteps(
        _conditionality.apply_if_finite(alias.sgd(_LR), 3), 3)
    got, _ = _run(ms, grads, _params(), jit=True)
    want, _, _ = _ref_multisteps(_np(grads), _SgdRef(), 3)
    want[2] = jax.tree.map(np.zeros_like, want[2])
    for i in range(len(grads)):
      test_utils.assert_trees_all_close(
          got[i], want[i], rtol=1e-6, atol=1e-8, err_msg=f'step {i}')


def _check_type_stable(test, inner, num_steps=9, every_k=3, nan_step=None):
  """Runs MultiSteps(inner) jitted on bfloat16 params; checks every step.

  Every leaf of the state (inner state and accumulator) keeps its dtype and
  weak type, updates have the params' dtype and the step compiles once.
  """
  params = _params(jnp.bfloat16)
  ms = _accumulation.MultiSteps(inner, every_k)
  state = ms.init(params)
  traces = []

  def step(grads, state, params):
    traces.append(None)
    return ms.update(grads, state, params)

  jit_step = jax.jit(step)
  grads = _grads(num_steps, seed=8, dtype=jnp.bfloat16)
  if nan_step is not None:
    g = grads[nan_step]
    grads[nan_step] = {'w': g['w'].at[0, 0].set(jnp.nan), 'b': g['b']}

  def signature(tree):
    return [(jnp.result_type(x), getattr(jax.typeof(x), 'weak_type', False))
            for x in jax.tree.leaves(tree)]

  expected = signature(state)
  outputs = []
  with test_utils.log_compilations() as compilations:
    for g in grads:
      updates, state = jit_step(g, state, params)
      outputs.append((updates, state))
  test.assertLen(traces, 1, 'the jitted step was traced again')
  test.assertLen(compilations, 1, 'the jitted step was compiled again')
  for i, (updates, state) in enumerate(outputs):
    test.assertEqual(signature(state), expected, f'state dtypes, step {i}')
    test_utils.assert_trees_all_equal_dtypes(updates, params,
                                             f'updates, step {i}')
    test.assertEqual(jax.tree.structure(updates), jax.tree.structure(params))
  emitted = [bool(ms.has_updated(s)) for _, s in outputs]
  test.assertEqual(emitted, [(i + 1) % every_k == 0 for i in range(num_steps)])
  return outputs


class RegressionTest(parameterized.TestCase):
  """Upstream issues about MultiSteps, each guarded by a test."""

  def test_multisteps_zero_nans_adam_bfloat16_issue_828(self):
    # zero_nans keeps a boolean state; upstream's accumulate and emit paths
    # disagreed on its dtype inside MultiSteps.
    inner = _combining.chain(_constraining.zero_nans(), alias.adam(1e-2))
    outputs = _check_type_stable(self, inner, nan_step=4)
    for updates, state in outputs:
      self.assertTrue(all(bool(jnp.all(jnp.isfinite(u)))
                          for u in jax.tree.leaves(updates)))
      found_nan = state.inner_opt_state[0].found_nan
      self.assertEqual(set(_dtypes(found_nan)), {jnp.dtype(jnp.bool_)})
    # The NaN of step 4 is reported at the emission of its cycle (step 5).
    self.assertTrue(bool(outputs[5][1].inner_opt_state[0].found_nan['w']))
    self.assertFalse(bool(outputs[8][1].inner_opt_state[0].found_nan['w']))

  def test_multisteps_adafactor_bfloat16_issue_377(self):
    _check_type_stable(self, alias.adafactor(1e-2))

  def test_multisteps_schedule_free_bfloat16_issue_1038(self):
    _check_type_stable(self, contrib.schedule_free_adamw(1e-2))

  def test_multisteps_runs_inner_update_only_when_emitting_issue_472(self):
    # Upstream computed the inner update on every step and selected the
    # result, holding both branches (and two inner states) in memory.
    calls = []

    def update_fn(updates, state, params=None):
      del params
      jax.debug.callback(lambda: calls.append(None))
      return updates, state

    inner = base.GradientTransformation(base.init_empty_state, update_fn)
    ms = _accumulation.MultiSteps(inner, 3)
    _run(ms, _grads(7), _params(), jit=True)
    jax.effects_barrier()
    self.assertLen(calls, 2)

  def test_multisteps_no_temporary_copy_issue_472(self):
    # Memory is the inner state plus one accumulator: the compiled step
    # needs no temporary buffer the size of a parameter.
    params = {'w': jnp.zeros(1 << 16)}
    ms = _accumulation.MultiSteps(alias.adam(1e-3), 4)
    state = ms.init(params)
    compiled = jax.jit(ms.update).lower(params, state, params).compile()
    analysis = compiled.memory_analysis()
    if analysis is None:
      self.skipTest('no memory analysis on this backend')
    param_bytes = params['w'].size * params['w'].dtype.itemsize
    self.assertLess(analysis.temp_size_in_bytes, param_bytes)

  @parameterized.parameters(
      lambda: alias.adam(1e-3),
      lambda: _combining.chain(_clipping.clip_by_global_norm(1.0),
                               alias.adamw(1e-3)),
  )
  def test_multisteps_conditional_holds_no_barrier(self, make):
    # XLA:GPU turns a conditional with elementwise branches into a select
    # fused with the rest of the step (MultiSteps(adam, 4) on an H100: 5
    # params' sizes, as upstream's; 6 with the barriers of adam's constant
    # hyperparameters inside the branch, which keep the conditional).
    ms = _accumulation.MultiSteps(make(), 4)
    params = {'w': jnp.zeros(3), 'b': jnp.zeros(2)}
    jaxpr = jax.make_jaxpr(ms.update)(params, ms.init(params), params).jaxpr
    self.assertEqual(probes.barriers_in_conditionals(jaxpr), [0])

  @parameterized.named_parameters(
      # Upstream 0.2.8 needs 4 and 7.5 params' sizes for these steps (the
      # multisteps_memory rows of benchmarks/compare_upstream.py); the fork
      # needed 5 and 8.
      ('sgd', lambda: alias.sgd(_LR), 4),
      ('clip_adam', lambda: _combining.chain(
          _clipping.clip_by_global_norm(1.0), alias.adam(_LR)), 7),
  )
  def test_multisteps_donated_step_memory_regression(self, make, want):
    # Regression: the conditional read the old accumulator while the new one
    # was written over it, so XLA kept a copy of the accumulator (one more
    # params' size than upstream's straight-line code).
    params = {'w0': jnp.zeros((256, 256)), 'w1': jnp.zeros((256, 256))}
    stats = probes.donated_step_memory(
        _accumulation.MultiSteps(make(), 4), params)
    if stats is None:
      self.skipTest('no memory analysis on this backend')
    total = (stats.temp_size_in_bytes + stats.argument_size_in_bytes
             + stats.output_size_in_bytes - stats.alias_size_in_bytes)
    param_bytes = 2 * 256 * 256 * 4
    # A few bytes of counters on top of the arrays.
    self.assertLessEqual(total, want * param_bytes + 1024)


if __name__ == '__main__':
  absltest.main()
