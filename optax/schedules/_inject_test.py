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
"""Tests of `optax.schedules._inject` (semantics and upstream regressions).

The sweep over every optimizer alias (bit-identity, issue 1532) lives in
`_inject_alias_test.py`.
"""

import functools
import inspect
from collections.abc import Callable
from typing import Optional

from absl.testing import absltest
from absl.testing import parameterized
import jax
import jax.numpy as jnp
import numpy as np

from optax import contrib
from optax._src import alias
from optax._src import base
from optax._src import hyperparameters
from optax._src import test_utils
from optax._src import transform
from optax._src import utils
from optax.schedules import _inject
from optax.schedules import _schedule
from optax.transforms import _combining
from optax.transforms import _masking


def _params():
  return {'w': jnp.array([[0.5, -1.0, 2.0], [1.5, 0.25, -0.75]]),
          'b': jnp.array([0.1, -0.2, 0.3])}


def _grads(scale=1.0):
  return {'w': scale * jnp.array([[1.0, 2.0, -1.0], [0.5, -0.5, 3.0]]),
          'b': scale * jnp.array([-1.0, 0.5, 2.0])}


def _step_size_sgd(learning_rate: base.ScalarOrSchedule):
  """Plain SGD without momentum: updates are -learning_rate * grads."""
  return transform.scale_by_learning_rate(learning_rate)


class InjectHyperparamsStateTest(parameterized.TestCase):
  """The state holds every numeric hyperparameter and the step count."""

  def test_state_holds_numbers_and_defaults(self):
    tx = _inject.inject_hyperparams(alias.adam)(learning_rate=0.1, b1=0.8)
    state = tx.init(_params())
    # Upstream 0.2.8's class and fields, so checkpoints move between the two.
    self.assertIsInstance(state, _inject.InjectStatefulHyperparamsState)
    self.assertEqual(state._fields, ('count', 'hyperparams',
                                     'hyperparams_states', 'inner_state'))
    self.assertEqual(state.hyperparams_states, {})
    self.assertEqual(state.count.dtype, jnp.int32)
    self.assertEqual(int(state.count), 0)
    self.assertEqual(set(state.hyperparams),
                     {'learning_rate', 'b1', 'b2', 'eps', 'eps_root'})
    expected = {'learning_rate': 0.1, 'b1': 0.8, 'b2': 0.999, 'eps': 1e-8,
                'eps_root': 0.0}
    for name, value in expected.items():
      self.assertEqual(state.hyperparams[name].dtype,
                       hyperparameters.hyperparameter_dtype())
      self.assertEqual(state.hyperparams[name].shape, ())
      self.assertEqual(float(state.hyperparams[name]), np.float32(value))
    test_utils.assert_trees_all_equal_structs(
        state.inner_state, alias.adam(0.1).init(_params()))

  def test_returns_extra_args_transformation_and_keeps_signature(self):
    factory = _inject.inject_hyperparams(alias.adam)
    self.assertEqual(inspect.signature(factory),
                     inspect.signature(alias.adam))
    self.assertIsInstance(factory(0.1), base.GradientTransformationExtraArgs)

  @parameterized.named_parameters(('eager', False), ('jit', True))
  def test_schedule_evaluated_at_count(self, use_jit):
    schedule = _schedule.piecewise_constant_schedule(1.0, {2: 0.5, 4: 0.1})
    tx = _inject.inject_hyperparams(_step_size_sgd)(learning_rate=schedule)
    update = jax.jit(tx.update) if use_jit else tx.update
    state = tx.init(_params())
    grads = _grads()
    lrs = [1.0, 1.0, 0.5, 0.5, 0.05, 0.05]   # Hand evaluation, steps 0..5.
    for t, lr in enumerate(lrs):
      updates, state = update(grads, state)
      test_utils.assert_trees_all_close(
          updates, jax.tree.map(lambda g, lr=lr: -lr * g, grads))
      # The state shows the value this update used and the next count.
      np.testing.assert_allclose(state.hyperparams['learning_rate'], lr,
                                 rtol=1e-6)
      self.assertEqual(int(state.count), t + 1)

  @parameterized.named_parameters(('eager', False), ('jit', True))
  def test_overwrite_between_steps(self, use_jit):
    tx = _inject.inject_hyperparams(_step_size_sgd)(learning_rate=0.1)
    update = jax.jit(tx.update) if use_jit else tx.update
    state = tx.init(_params())
    grads = _grads()
    _, state = update(grads, state)
    state.hyperparams['learning_rate'] = 0.5   # A Python float...
    updates, state = update(grads, state)
    test_utils.assert_trees_all_close(
        updates, jax.tree.map(lambda g: -0.5 * g, grads))
    # ... is stored back with the hyperparameter dtype.
    self.assertEqual(state.hyperparams['learning_rate'].dtype, jnp.float32)
    state.hyperparams['learning_rate'] = jnp.asarray(0.25, jnp.bfloat16)
    updates, state = update(grads, state)
    test_utils.assert_trees_all_close(
        updates, jax.tree.map(lambda g: -0.25 * g, grads))
    self.assertEqual(state.hyperparams['learning_rate'].dtype, jnp.float32)

  def test_overwrite_inside_jit(self):
    tx = _inject.inject_hyperparams(alias.sgd)(learning_rate=0.2,
                                               momentum=0.0)

    @jax.jit
    def step(state, grads):
      state.hyperparams['learning_rate'] = (
          state.hyperparams['learning_rate'] / 2)
      return tx.update(grads, state)

    state = tx.init(_params())
    updates, state = step(state, _grads())
    test_utils.assert_trees_all_close(
        updates, jax.tree.map(lambda g: -0.1 * g, _grads()))
    np.testing.assert_allclose(state.hyperparams['learning_rate'], 0.1,
                               rtol=1e-7)

  def test_state_type_stable_and_compiles_once(self):
    tx = _inject.inject_hyperparams(alias.adamw)(
        learning_rate=_schedule.cosine_decay_schedule(0.1, 10),
        weight_decay=1e-2)
    traces = []

    @jax.jit
    def step(params, state):
      traces.append(None)
      updates, state = tx.update(_grads(), state, params)
      return jax.tree.map(jnp.add, params, updates), state

    params = _params()
    state = tx.init(params)
    first = jax.tree.map(lambda x: (x.shape, x.dtype, x.weak_type), state)
    for _ in range(4):
      params, state = step(params, state)
    self.assertLen(traces, 1)
    self.assertEqual(
        jax.tree.map(lambda x: (x.shape, x.dtype, x.weak_type), state), first)

  def test_extra_args_are_forwarded(self):
    seen = []

    def needs_value(scale: float):
      def update_fn(updates, state, params=None, *, value, **extra_args):
        del params, extra_args
        seen.append(value)
        return jax.tree.map(lambda g: scale * value * g, updates), state
      return base.GradientTransformationExtraArgs(base.init_empty_state,
                                                  update_fn)

    tx = _inject.inject_hyperparams(needs_value)(scale=2.0)
    state = tx.init(_params())
    updates, _ = tx.update(_grads(), state, value=jnp.asarray(3.0),
                           unused=1)
    test_utils.assert_trees_all_close(
        updates, jax.tree.map(lambda g: 6.0 * g, _grads()))
    self.assertLen(seen, 1)

  def test_init_on_shape_dtype_structs(self):
    tx = _inject.inject_hyperparams(alias.adam)(
        learning_rate=_schedule.linear_schedule(0.1, 0.0, 5))
    shapes = jax.tree.map(lambda x: jax.ShapeDtypeStruct(x.shape, x.dtype),
                          _params())
    abstract = jax.eval_shape(tx.init, shapes)
    self.assertEqual(abstract.hyperparams['learning_rate'].dtype, jnp.float32)
    test_utils.assert_trees_all_equal_structs(
        jax.tree.map(lambda x: jax.ShapeDtypeStruct(x.shape, x.dtype),
                     tx.init(_params())),
        abstract)

  def test_builders_create_no_array(self):
    with jax.transfer_guard('disallow'):
      factory = _inject.inject_hyperparams(alias.adamw)
      factory(learning_rate=_schedule.warmup_cosine_decay_schedule(
          0.0, 1.0, 2, 10), b1=0.8, weight_decay=1e-3,
              mask=lambda p: jax.tree.map(lambda x: x.ndim > 1, p))
      _inject.inject_hyperparams(alias.sgd)(
          learning_rate=_inject.WrappedSchedule(
              _schedule.constant_schedule(0.1)), momentum=0.9)


class StaticArgsAndDtypeTest(parameterized.TestCase):
  """static_args and hyperparam_dtype."""

  @parameterized.named_parameters(
      ('string', 'b1'), ('tuple', ('b1',)), ('list', ['b1', 'eps']),
      ('set', {'b1'}))
  def test_static_args_pass_through(self, static_args):
    received = {}

    def spy_adam(learning_rate, b1=0.9, eps=1e-8):
      received['b1'], received['eps'] = b1, eps
      return alias.adam(learning_rate, b1=b1, eps=eps)

    tx = _inject.inject_hyperparams(spy_adam, static_args=static_args)(
        0.1, b1=0.5)
    state = tx.init(_params())
    names = {static_args} if isinstance(static_args, str) else set(
        static_args)
    self.assertEqual(set(state.hyperparams),
                     {'learning_rate', 'b1', 'eps'} - names)
    self.assertIsInstance(received['b1'], float)
    self.assertEqual(received['b1'], 0.5)

  def test_unknown_static_arg_raises(self):
    with self.assertRaisesRegex(
        ValueError, r"inject_hyperparams: static_args must name parameters"
        r".*\['beta1'\]"):
      _inject.inject_hyperparams(alias.adam, static_args='beta1')

  @parameterized.parameters(jnp.bfloat16, jnp.float16, 'float32')
  def test_hyperparam_dtype_override(self, dtype):
    tx = _inject.inject_hyperparams(alias.adam, hyperparam_dtype=dtype)(
        learning_rate=_schedule.linear_schedule(0.1, 0.0, 4))
    state = tx.init(_params())
    for value in state.hyperparams.values():
      self.assertEqual(value.dtype, jnp.dtype(dtype))
    _, state = jax.jit(tx.update)(_grads(), state, _params())
    for value in state.hyperparams.values():
      self.assertEqual(value.dtype, jnp.dtype(dtype))

  @parameterized.named_parameters(('eager', False), ('jit', True))
  def test_given_array_dtypes(self, use_jit):
    # As upstream: an array of a non-weak floating dtype keeps its dtype; a
    # weak one (jnp.asarray of a Python float) and a NumPy array take the
    # hyperparameter dtype.
    tx = _inject.inject_hyperparams(alias.adam)(
        learning_rate=np.asarray(0.1, np.float64), b1=jnp.asarray(0.9),
        b2=jnp.asarray(0.95, jnp.bfloat16), eps=jnp.asarray(1e-8,
                                                            jnp.float32))
    expected = {'learning_rate': jnp.float32, 'b1': jnp.float32,
                'b2': jnp.bfloat16, 'eps': jnp.float32,
                'eps_root': jnp.float32}
    update = jax.jit(tx.update) if use_jit else tx.update
    state = tx.init(_params())
    for _ in range(2):
      self.assertEqual(
          {k: v.dtype for k, v in state.hyperparams.items()}, expected)
      self.assertEqual(float(state.hyperparams['b2']),
                       float(jnp.bfloat16(0.95)))
      _, state = update(_grads(), state, _params())

  def test_integer_hyperparam_dtype_raises(self):
    with self.assertRaisesRegex(
        ValueError, 'inject_hyperparams: hyperparam_dtype must be a floating'):
      _inject.inject_hyperparams(alias.adam, hyperparam_dtype=jnp.int32)

  def test_x64_hyperparameters_are_float64(self):
    with utils.x64_precision(True):
      tx = _inject.inject_hyperparams(alias.adam)(learning_rate=0.1)
      state = tx.init({'w': jnp.ones(3, jnp.float32)})
      self.assertEqual(state.hyperparams['b2'].dtype, jnp.float64)
      self.assertEqual(float(state.hyperparams['b2']), 0.999)
      plain = alias.adam(learning_rate=0.1)
      grads = {'w': jnp.array([0.3, -1.0, 2.0], jnp.float32)}
      params = {'w': jnp.ones(3, jnp.float32)}
      expected, _ = plain.update(grads, plain.init(params), params)
      updates, _ = tx.update(grads, state, params)
      test_utils.assert_trees_all_equal(updates, expected)
      self.assertEqual(updates['w'].dtype, jnp.float32)


class RegressionTest(parameterized.TestCase):
  """Regression tests of the upstream issues this fork fixes."""

  def test_bf16_params_keep_float32_hyperparams_issue_1414(self):
    params = jax.tree.map(lambda x: x.astype(jnp.bfloat16), _params())
    grads = jax.tree.map(lambda x: x.astype(jnp.bfloat16), _grads())
    tx = _inject.inject_hyperparams(alias.adam)(learning_rate=0.1, b2=0.999)
    state = tx.init(params)
    # 0.999 would round to 1.0 in bfloat16, freezing the second moment.
    self.assertEqual(state.hyperparams['b2'].dtype, jnp.float32)
    self.assertEqual(float(state.hyperparams['b2']), np.float32(0.999))
    plain = alias.adam(learning_rate=0.1, b2=0.999)
    plain_state = plain.init(params)
    for _ in range(5):
      expected, plain_state = plain.update(grads, plain_state, params)
      updates, state = tx.update(grads, state, params)
      test_utils.assert_trees_all_equal(updates, expected)
      self.assertEqual(updates['w'].dtype, jnp.bfloat16)
    test_utils.assert_trees_all_equal_dtypes(state.inner_state, plain_state)

  def test_weight_decay_mask_function_passes_through_issue_1373(self):
    calls = []

    def mask_fn(params):
      calls.append(params)
      return jax.tree.map(lambda x: x.ndim > 1, params)

    tx = _inject.inject_hyperparams(alias.adamw)(
        learning_rate=0.1, weight_decay=0.5, mask=mask_fn)
    params = _params()
    state = tx.init(params)
    self.assertNotIn('mask', state.hyperparams)
    self.assertIn('weight_decay', state.hyperparams)
    plain = alias.adamw(learning_rate=0.1, weight_decay=0.5, mask=mask_fn)
    plain_state = plain.init(params)
    expected, _ = plain.update(_grads(), plain_state, params)
    updates, _ = tx.update(_grads(), state, params)
    test_utils.assert_trees_all_equal(updates, expected)
    # The mask only ever sees params, never the step count.
    for arg in calls:
      self.assertEqual(jax.tree.structure(arg), jax.tree.structure(params))

  def test_non_numeric_values_pass_through_issue_1373(self):
    received = {}
    inner = base.identity()

    def factory(
        learning_rate: base.ScalarOrSchedule,
        name: str = 'x',
        dtype=None,
        tree=None,
        flag: bool = False,
        transform_fn: Optional[Callable[[jax.Array], jax.Array]] = None,
        weight_decay_mask: base.MaskOrFn = None,
        labels: base.MaskOrFn = None,
        inner_tx: Optional[base.GradientTransformation] = None,
        schedule_fn: Optional[base.Schedule] = None,
    ):
      received.update(name=name, dtype=dtype, tree=tree, flag=flag,
                      transform_fn=transform_fn, labels=labels,
                      weight_decay_mask=weight_decay_mask, inner_tx=inner_tx,
                      schedule_fn=schedule_fn)
      return _step_size_sgd(learning_rate)

    to_labels = lambda p: jax.tree.map(lambda _: 'a', p)
    own_schedule = _schedule.linear_schedule(1.0, 0.0, 4)
    tx = _inject.inject_hyperparams(factory)(
        learning_rate=0.1, name='adam', dtype=jnp.bfloat16,
        tree={'a': (1, 2.0)}, flag=True, transform_fn=jnp.sign,
        weight_decay_mask=mask_all, labels=to_labels, inner_tx=inner,
        schedule_fn=own_schedule)
    state = tx.init(_params())
    # Upstream evaluates every callable on the step count.
    self.assertEqual(set(state.hyperparams), {'learning_rate'})
    self.assertEqual(state.hyperparams_states, {})
    self.assertEqual(received['name'], 'adam')
    self.assertIs(received['dtype'], jnp.bfloat16)
    self.assertEqual(received['tree'], {'a': (1, 2.0)})
    self.assertIs(received['flag'], True)
    self.assertIs(received['transform_fn'], jnp.sign)
    self.assertIs(received['weight_decay_mask'], mask_all)
    self.assertIs(received['labels'], to_labels)
    self.assertIs(received['inner_tx'], inner)
    self.assertIs(received['schedule_fn'], own_schedule)

  def test_adopt_clip_value_fn_is_not_a_schedule_issue_1373(self):
    # Upstream evaluates the default lambda on the step count, and its
    # update then fails calling an array.
    tx = _inject.inject_hyperparams(contrib.adopt)(learning_rate=0.1)
    state = tx.init(_params())
    self.assertNotIn('clip_value_fn', state.hyperparams)
    plain = contrib.adopt(learning_rate=0.1)
    plain_state = plain.init(_params())
    update = jax.jit(tx.update)
    for t in range(3):
      updates, state = update(_grads(1.0 + t), state, _params())
      expected, plain_state = plain.update(_grads(1.0 + t), plain_state,
                                           _params())
      test_utils.assert_trees_all_close(updates, expected, rtol=1e-6)

  def test_prng_key_is_injected_as_upstream(self):
    # As upstream: an array that is not floating is listed as it is, and the
    # factory receives it from the state.
    received = []

    def noise(scale: float, key: Optional[jax.Array] = None):
      received.append(key)

      def update_fn(updates, state, params=None):
        del params
        return jax.tree.map(
            lambda g: g + scale * jax.random.normal(key, g.shape),
            updates), state

      return base.GradientTransformation(base.init_empty_state, update_fn)

    key = jax.random.key(3)
    tx = _inject.inject_hyperparams(noise)(0.5, key=key)
    state = tx.init(_params())
    self.assertEqual(state.hyperparams['key'].dtype, key.dtype)
    updates, state = jax.jit(tx.update)(_grads(), state)
    np.testing.assert_array_equal(
        jax.random.key_data(state.hyperparams['key']),
        jax.random.key_data(key))
    np.testing.assert_allclose(
        updates['b'],
        _grads()['b'] + 0.5 * jax.random.normal(key, (3,)), rtol=1e-6)

  def test_mu_dtype_class_is_not_a_schedule_issue_1373(self):
    tx = _inject.inject_hyperparams(alias.adam)(learning_rate=0.1,
                                                mu_dtype=jnp.bfloat16)
    state = tx.init(_params())
    self.assertNotIn('mu_dtype', state.hyperparams)
    self.assertEqual(state.inner_state[0].mu['w'].dtype, jnp.bfloat16)

  def test_step_size_fn_is_not_evaluated_issue_1373(self):
    schedule = _schedule.linear_schedule(1.0, 0.0, 4)
    tx = _inject.inject_hyperparams(transform.scale_by_schedule)(
        step_size_fn=schedule)
    state = tx.init(_params())
    self.assertEqual(state.hyperparams, {})
    updates, _ = tx.update(_grads(), state)
    test_utils.assert_trees_all_close(updates, _grads())

  @parameterized.named_parameters(('eager', False), ('jit', True))
  def test_adafactor_int_hyperparams_stay_static_issue_1686(self, use_jit):
    params = {'m': jnp.ones((4, 3)), 'v': jnp.ones(5)}
    grads = {'m': jnp.arange(12.0).reshape(4, 3) / 10, 'v': jnp.ones(5)}
    kwargs = dict(learning_rate=0.1, min_dim_size_to_factor=2,
                  decay_offset=3)
    received = []

    @functools.wraps(alias.adafactor)
    def spy(*args, **kw):
      received.append((kw['min_dim_size_to_factor'], kw['decay_offset']))
      return alias.adafactor(*args, **kw)

    tx = _inject.inject_hyperparams(spy)(**kwargs)
    state = tx.init(params)
    # Listed with upstream's dtype (upstream traces them, and its update
    # fails under jit); the factory gets the Python integers.
    for name, value in (('min_dim_size_to_factor', 2), ('decay_offset', 3)):
      self.assertEqual(state.hyperparams[name].dtype, jnp.int32)
      self.assertEqual(state.hyperparams[name].shape, ())
      self.assertEqual(int(state.hyperparams[name]), value)
      # Not weakly typed, so a restored state does not retrace the step.
      self.assertFalse(state.hyperparams[name].weak_type)
    # dtype_momentum (a type) is not a schedule (upstream evaluates
    # jnp.float32 on the step count, issue 1373).
    self.assertNotIn('dtype_momentum', state.hyperparams)
    self.assertEqual(state.hyperparams_states, {})
    update = jax.jit(tx.update) if use_jit else tx.update
    plain = alias.adafactor(**kwargs)
    plain_state = plain.init(params)
    for _ in range(3):
      updates, state = update(grads, state, params)
      expected, plain_state = plain.update(grads, plain_state, params)
      test_utils.assert_trees_all_close(updates, expected, rtol=1e-6)
    self.assertEqual(int(state.hyperparams['min_dim_size_to_factor']), 2)
    for value in received:
      self.assertEqual(value, (2, 3))
      self.assertIsInstance(value[0], int)

  def test_int_used_for_shapes_and_control_flow_stays_static_issue_1730(self):
    received = {}

    def with_memory(learning_rate: float, memory_size: int = 4,
                    history=2, use_history: bool = True):
      received.update(memory_size=memory_size, history=history)

      def init_fn(params):
        del params
        return jnp.zeros([memory_size, history])

      def update_fn(updates, state, params=None):
        del params
        if use_history and memory_size > 2:   # Python control flow.
          state = state + 1.0
        return jax.tree.map(lambda g: -learning_rate * g, updates), state

      return base.GradientTransformation(init_fn, update_fn)

    tx = _inject.inject_hyperparams(with_memory)(0.1, memory_size=3,
                                                 history=np.int32(2))
    state = tx.init(_params())
    # Listed (as upstream lists integers), but static for the factory.
    self.assertEqual(
        {k: (v.dtype, int(v)) for k, v in state.hyperparams.items()
         if k != 'learning_rate'},
        {'memory_size': (jnp.int32, 3), 'history': (jnp.int32, 2)})
    self.assertEqual(received, dict(memory_size=3, history=2))
    self.assertIsInstance(received['memory_size'], int)
    # Overwriting a static integer has no effect: the update writes the
    # value it used back.
    state.hyperparams['memory_size'] = jnp.asarray(7)
    _, state = jax.jit(tx.update)(_grads(), state)
    self.assertEqual(state.inner_state.shape, (3, 2))
    np.testing.assert_array_equal(state.inner_state, 1.0)
    self.assertEqual(int(state.hyperparams['memory_size']), 3)
    self.assertEqual(state.hyperparams['memory_size'].dtype, jnp.int32)

  def test_lbfgs_memory_size_stays_static_issue_1730(self):
    def loss(p):
      return 0.5 * sum(jnp.sum(x ** 2) for x in jax.tree.leaves(p))

    kwargs = dict(learning_rate=0.5, memory_size=3, linesearch=None)
    tx = _inject.inject_hyperparams(alias.lbfgs)(**kwargs)
    plain = alias.lbfgs(**kwargs)
    params = _params()
    state, plain_state = tx.init(params), plain.init(params)
    self.assertEqual(state.hyperparams['memory_size'].dtype, jnp.int32)
    self.assertEqual(int(state.hyperparams['memory_size']), 3)
    update = jax.jit(tx.update)
    for _ in range(4):
      value, grads = jax.value_and_grad(loss)(params)
      extra = dict(value=value, grad=grads)
      updates, state = update(grads, state, params, **extra)
      expected, plain_state = plain.update(grads, plain_state, params,
                                           **extra)
      test_utils.assert_trees_all_close(updates, expected, rtol=1e-6)
      params = jax.tree.map(jnp.add, params, updates)

  def test_python_int_for_float_hyperparameter_is_injected(self):
    tx = _inject.inject_hyperparams(alias.sgd)(learning_rate=1, momentum=0)
    state = tx.init(_params())
    self.assertEqual(state.hyperparams['learning_rate'].dtype, jnp.float32)
    self.assertEqual(state.hyperparams['momentum'].dtype, jnp.float32)
    updates, _ = jax.jit(tx.update)(_grads(), state)
    test_utils.assert_trees_all_close(
        updates, jax.tree.map(lambda g: -g, _grads()))

  def test_bools_stay_static(self):
    received = []

    def factory(learning_rate: float, nesterov: bool = False):
      received.append(nesterov)
      return _step_size_sgd(learning_rate)

    tx = _inject.inject_hyperparams(factory)(0.1, nesterov=np.bool_(True))
    state = tx.init(_params())
    jax.jit(tx.update)(_grads(), state)
    self.assertNotIn('nesterov', state.hyperparams)
    self.assertTrue(all(r is np.bool_(True) or r is True for r in received))

  def test_unannotated_factory(self):
    def factory(lr, mask, steps=2, decay=0.5):
      del steps
      return _masking.masked(
          _combining.chain(transform.scale(decay),
                           _step_size_sgd(lr)), mask)

    # Without annotation or default nothing tells a mask from a schedule:
    # as upstream, a callable is then a schedule unless named in
    # static_args.
    tx = _inject.inject_hyperparams(factory, static_args='mask')(
        _schedule.linear_schedule(1.0, 0.0, 4), lambda p: {'w': True,
                                                           'b': False})
    state = tx.init(_params())
    self.assertEqual(set(state.hyperparams), {'lr', 'steps', 'decay'})
    self.assertEqual(set(state.hyperparams_states), {'lr'})
    self.assertEqual(state.hyperparams['steps'].dtype, jnp.int32)
    self.assertEqual(state.hyperparams['decay'].dtype, jnp.float32)
    updates, state = tx.update(_grads(), state)
    np.testing.assert_allclose(updates['w'], -0.5 * _grads()['w'],
                               rtol=1e-6)
    np.testing.assert_array_equal(updates['b'], _grads()['b'])

  def test_per_group_schedules_in_a_loop_issue_1101(self):
    params = _params()
    peaks = {'w': 0.1, 'b': 0.01}

    def schedule_for(step, peak):
      return peak * jnp.minimum(1.0, (step + 1) / 4)

    groups = []
    for name, peak in peaks.items():
      mask = {k: k == name for k in params}
      groups.append(_masking.masked(
          _inject.inject_hyperparams(alias.adam)(
              learning_rate=functools.partial(schedule_for, peak=peak)),
          mask))
    tx = _combining.chain(*groups)
    # Reference: each group's plain adam with its own schedule.
    refs = {name: alias.adam(functools.partial(schedule_for, peak=peak))
            for name, peak in peaks.items()}
    ref_states = {name: refs[name].init(params[name]) for name in peaks}
    # Both jitted, as separate programs: XLA may fuse them differently, so
    # they agree to a few ulps (see _inject_alias_test.py).
    ref_updates = {name: jax.jit(refs[name].update) for name in peaks}
    state = tx.init(params)
    update = jax.jit(tx.update)
    for t in range(6):
      grads = _grads(scale=1.0 + t)
      updates, state = update(grads, state, params)
      for i, (name, peak) in enumerate(peaks.items()):
        expected, ref_states[name] = ref_updates[name](
            grads[name], ref_states[name], params[name])
        np.testing.assert_array_max_ulp(updates[name], expected, maxulp=4)
        np.testing.assert_allclose(
            state[i].inner_state.hyperparams['learning_rate'],
            peak * min(1.0, (t + 1) / 4), rtol=1e-6)
      params = jax.tree.map(jnp.add, params, updates)


def mask_all(params):
  """A weight-decay mask function selecting every leaf."""
  return jax.tree.map(lambda _: True, params)


class BitIdentityTest(parameterized.TestCase):
  """inject_hyperparams(opt)(**kw) updates like opt(**kw) (#1532)."""

  @parameterized.named_parameters(
      ('adam', alias.adam, dict(learning_rate=1e-2)),
      ('nadam', alias.nadam, dict(learning_rate=1e-2, b2=0.99)),
      ('adamw', alias.adamw, dict(learning_rate=1e-2, weight_decay=1e-2,
                                  mask=mask_all)),
      ('sgd_momentum', alias.sgd, dict(learning_rate=1e-2, momentum=0.9,
                                       nesterov=True)),
      ('rmsprop', alias.rmsprop, dict(learning_rate=1e-2, momentum=0.9,
                                      centered=True)),
      ('lion', alias.lion, dict(learning_rate=1e-3)),
      ('lamb', alias.lamb, dict(learning_rate=1e-2, weight_decay=1e-3)),
      ('schedule', alias.adam, dict(
          learning_rate=_schedule.warmup_cosine_decay_schedule(
              0.0, 1e-2, 10, 200))),
  )
  def test_same_updates_issue_1532(self, factory, kwargs):
    params = _params()

    def grads_at(p):
      return jax.tree.map(lambda x: jnp.sin(3.0 * x) + x, p)

    def run(tx, steps):
      p, state, history = params, tx.init(params), []
      for _ in range(steps):
        updates, state = tx.update(grads_at(p), state, p)
        p = jax.tree.map(jnp.add, p, updates)
        history.append(updates)
      return p, history

    # Eagerly both run the same operations on the same float32 values.
    test_utils.assert_trees_all_equal(
        run(_inject.inject_hyperparams(factory)(**kwargs), 8),
        run(factory(**kwargs), 8))
    # Under jit XLA compiles the two programs separately and may fuse them
    # differently: each step, from the same state, agrees to a few ulps of
    # the terms the update sums. rmsprop's momentum update is
    # momentum * trace - lr * step, and XLA:CPU may fuse either product into
    # a multiply-add: jax 0.12.0.1's rounds momentum * trace in the plain
    # program (-lr a constant) and lr * step in the injected one (-lr
    # negated in the kernel). One rounding of a term apart, that is up to
    # 173 ulps of an update that nearly cancels (jax 0.10.2: the same bits).
    # Both terms are bounded by |update| + |previous update|.
    plain = factory(**kwargs)
    injected = _inject.inject_hyperparams(factory)(**kwargs)
    plain_update, injected_update = jax.jit(plain.update), jax.jit(
        injected.update)
    p, plain_state, state = params, plain.init(params), injected.init(params)
    previous = jax.tree.map(jnp.zeros_like, params)
    for step in range(100):
      state = state._replace(inner_state=plain_state)
      actual, state = injected_update(grads_at(p), state, p)
      expected, plain_state = plain_update(grads_at(p), plain_state, p)
      for key in expected:
        got, want, before = (np.asarray(x[key])
                             for x in (actual, expected, previous))
        terms = np.abs(want) + np.abs(before)
        self.assertLessEqual(
            np.max(np.abs(got.astype(np.float64) - want)
                   / np.spacing(terms)), 4, msg=f'step {step}, leaf {key}')
      previous = expected
      p = jax.tree.map(jnp.add, p, expected)


class StatefulScheduleTest(parameterized.TestCase):
  """Stateful schedules, WrappedSchedule, inject_stateful_hyperparams."""

  def test_wrapped_schedule(self):
    schedule = _inject.WrappedSchedule(_schedule.linear_schedule(1.0, 0.0, 4))
    state = schedule.init()
    self.assertIsInstance(state, _inject.WrappedScheduleState)
    self.assertEqual(state.count.dtype, jnp.int32)
    values = []
    for _ in range(6):
      values.append(float(schedule(state, loss=1.0)))
      state = schedule.update(state, loss=1.0)
    np.testing.assert_allclose(values, [1.0, 0.75, 0.5, 0.25, 0.0, 0.0])

  @parameterized.named_parameters(('eager', False), ('jit', True))
  def test_stateful_schedule_uses_extra_args(self, use_jit):

    class LossScaled:
      """lr = 0.1 / (1 + sum of past losses); counts its own updates."""

      def init(self):
        return {'total': jnp.zeros([]), 'n': jnp.zeros([], jnp.int32)}

      def update(self, state, **extra_args):
        return {'total': state['total'] + extra_args.get('value', 0.0),
                'n': state['n'] + 1}

      def __call__(self, state, **extra_args):
        del extra_args
        return 0.1 / (1.0 + state['total'])

    tx = _inject.inject_hyperparams(_step_size_sgd)(
        learning_rate=LossScaled())
    update = jax.jit(tx.update) if use_jit else tx.update
    state = tx.init(_params())
    self.assertIsInstance(state, _inject.InjectStatefulHyperparamsState)
    np.testing.assert_allclose(state.hyperparams['learning_rate'], 0.1)
    total = 0.0
    for loss in (1.0, 2.0, 0.5):
      updates, state = update(_grads(), state, value=jnp.asarray(loss))
      lr = 0.1 / (1.0 + total)
      total += loss
      test_utils.assert_trees_all_close(
          updates, jax.tree.map(lambda g, lr=lr: -lr * g, _grads()))
      np.testing.assert_allclose(state.hyperparams['learning_rate'], lr,
                                 rtol=1e-6)
      np.testing.assert_allclose(
          state.hyperparams_states['learning_rate']['total'], total)
    self.assertEqual(int(state.count), 3)

  def test_plain_schedules_are_wrapped(self):
    tx = _inject.inject_hyperparams(alias.sgd)(
        learning_rate=_schedule.linear_schedule(0.4, 0.0, 4), momentum=0.5)
    state = tx.init(_params())
    self.assertIsInstance(state.hyperparams_states['learning_rate'],
                          _inject.WrappedScheduleState)
    self.assertNotIn('momentum', state.hyperparams_states)
    update = jax.jit(tx.update)
    lrs = []
    for _ in range(3):
      _, state = update(_grads(), state)
      lrs.append(float(state.hyperparams['learning_rate']))
    np.testing.assert_allclose(lrs, [0.4, 0.3, 0.2], rtol=1e-6)
    self.assertEqual(int(state.hyperparams_states['learning_rate'].count), 3)

  def test_inject_stateful_hyperparams_is_deprecated(self):
    schedule = _schedule.exponential_decay(0.1, 2, 0.5)
    a = _inject.inject_hyperparams(alias.adam)(learning_rate=schedule)
    with self.assertWarns(DeprecationWarning) as caught:
      factory = _inject.inject_stateful_hyperparams(alias.adam)
    # Upstream 0.2.8's message, word for word.
    self.assertEqual(
        str(caught.warning),
        'inject_stateful_hyperparams is deprecated, use inject_hyperparams'
        ' instead')
    b = factory(learning_rate=schedule)
    params = _params()
    sa, sb = a.init(params), b.init(params)
    for _ in range(4):
      ua, sa = a.update(_grads(), sa, params)
      ub, sb = b.update(_grads(), sb, params)
      test_utils.assert_trees_all_equal(ua, ub)
      test_utils.assert_trees_all_equal(sa, sb)

  def test_upstream_state_layout(self):
    # Key paths, shapes and dtypes of upstream 0.2.8's state for SGD with a
    # scheduled learning rate (read from upstream, written out by hand).
    tx = _inject.inject_hyperparams(alias.sgd)(
        learning_rate=_schedule.linear_schedule(0.1, 0.0, 10), momentum=0.9)
    state = jax.jit(tx.init)({'w': jnp.zeros((2, 3))})
    self.assertIsInstance(state.hyperparams_states['learning_rate'],
                          _inject.WrappedScheduleState)
    leaves = jax.tree_util.tree_flatten_with_path(state)[0]
    self.assertEqual(
        [(jax.tree_util.keystr(p), x.shape, x.dtype) for p, x in leaves],
        [('.count', (), jnp.int32),
         (".hyperparams['learning_rate']", (), jnp.float32),
         (".hyperparams['momentum']", (), jnp.float32),
         (".hyperparams_states['learning_rate'].count", (), jnp.int32),
         (".inner_state[0].trace['w']", (2, 3), jnp.float32)])


if __name__ == '__main__':
  absltest.main()
