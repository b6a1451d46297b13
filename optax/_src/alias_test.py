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
"""Tests for the optimizers of ``optax._src.alias``.

Every alias of the registry (``testing/registry.py``) goes through the same
checks: it minimizes a quadratic and the Rosenbrock function, gives the same
steps with and without ``jax.jit``, keeps the dtype of float32 and bfloat16
params in its updates and state, compiles its step once, creates no array
when built, and rejects invalid Python-number hyperparameters. A few
optimizers are also checked against NumPy implementations of their update
rules (float64).
"""

import functools
import inspect

from absl.testing import absltest
from absl.testing import parameterized
import jax
import jax.numpy as jnp
import numpy as np
import scipy.optimize

from optax._src import alias
from optax._src import base
from optax._src import linesearch
from optax._src import update as optax_update
from optax._src.testing import registry
from optax.schedules import _inject


def _decay(lr, rate):
  """An exponentially decaying learning rate, as a schedule."""
  return lambda count: lr * rate**count


# For each alias of the registry: the hyperparameters used on the quadratic
# and on the Rosenbrock function. Optimizers whose steps do not shrink near
# the optimum (sign-based, trust-ratio) get a decaying schedule.
_HYPERS = {
    'adabelief': ({'learning_rate': 0.05}, {'learning_rate': 0.05}),
    'adadelta': ({'learning_rate': 10.0},
                 {'learning_rate': _decay(3.0, 0.9997), 'eps': 1e-4}),
    'adafactor': ({'learning_rate': 0.05},
                  {'learning_rate': 0.05, 'momentum': 0.9,
                   'multiply_by_parameter_scale': False}),
    'adagrad': ({'learning_rate': 0.5}, {'learning_rate': 0.5}),
    'adam': ({'learning_rate': 0.05}, {'learning_rate': 0.05}),
    'adamax': ({'learning_rate': 0.05}, {'learning_rate': 0.05}),
    'adamaxw': ({'learning_rate': 0.05, 'weight_decay': 0.0},
                {'learning_rate': 0.05, 'weight_decay': 0.0}),
    'adamw': ({'learning_rate': 0.05, 'weight_decay': 0.0},
              {'learning_rate': 0.05, 'weight_decay': 0.0}),
    'adan': ({'learning_rate': 0.05}, {'learning_rate': 0.05}),
    'amsgrad': ({'learning_rate': 0.05}, {'learning_rate': 0.05}),
    'fromage': ({'learning_rate': _decay(0.05, 0.997)},
                {'learning_rate': _decay(0.05, 0.9997)}),
    'lamb': ({'learning_rate': _decay(0.05, 0.997)},
             {'learning_rate': _decay(0.05, 0.9997)}),
    'lars': ({'learning_rate': _decay(0.1, 0.997), 'trust_coefficient': 1.0},
             {'learning_rate': _decay(0.01, 0.9997),
              'trust_coefficient': 1.0}),
    'lbfgs': ({'learning_rate': 0.1, 'linesearch': None},
              {'learning_rate': 0.001, 'linesearch': None}),
    'lion': ({'learning_rate': _decay(0.01, 0.999), 'weight_decay': 0.0},
             {'learning_rate': _decay(0.01, 0.9997), 'weight_decay': 0.0}),
    'nadam': ({'learning_rate': 0.05}, {'learning_rate': 0.05}),
    'nadamw': ({'learning_rate': 0.05, 'weight_decay': 0.0},
               {'learning_rate': 0.05, 'weight_decay': 0.0}),
    'noisy_sgd': ({'learning_rate': 0.1, 'eta': 1e-6, 'key': 0},
                  {'learning_rate': 0.001, 'eta': 1e-6, 'key': 0}),
    'novograd': ({'learning_rate': _decay(0.05, 0.999)},
                 {'learning_rate': _decay(0.05, 0.9997)}),
    'optimistic_adam': ({'learning_rate': 0.01}, {'learning_rate': 0.01}),
    'optimistic_adam_v2': ({'learning_rate': 0.01}, {'learning_rate': 0.01}),
    'optimistic_gradient_descent': (
        {'learning_rate': 0.1}, {'learning_rate': 0.001, 'beta': 0.5}),
    'polyak_sgd': ({'max_learning_rate': 0.01}, {'max_learning_rate': 0.01}),
    'radam': ({'learning_rate': 0.05}, {'learning_rate': 0.01}),
    'rmsprop': ({'learning_rate': 0.003}, {'learning_rate': 0.003}),
    'rprop': ({'learning_rate': 0.01}, {'learning_rate': 0.01}),
    'sgd': ({'learning_rate': 0.001, 'momentum': 0.9},
            {'learning_rate': 0.001, 'momentum': 0.9}),
    'sign_sgd': ({'learning_rate': _decay(0.01, 0.999)},
                 {'learning_rate': _decay(0.01, 0.9997)}),
    'signum': ({'learning_rate': _decay(0.01, 0.999)},
               {'learning_rate': _decay(0.01, 0.9997)}),
    'sm3': ({'learning_rate': 0.5}, {'learning_rate': 0.1}),
    'yogi': ({'learning_rate': 0.05}, {'learning_rate': 0.05}),
}
_NAMES = sorted(entry.name for entry in registry.ALIASES)

# Stated tolerances on max |x - x*| after the runs below.
_QUADRATIC_STEPS, _QUADRATIC_TOL = 2000, 1e-2
_ROSENBROCK_STEPS, _ROSENBROCK_TOL = 20000, 5e-2

_QUADRATIC_CURVATURE = np.array([1.0, 2.0, 3.0, 4.0])
_QUADRATIC_MINIMUM = np.array([1.0, -2.0, 3.0, 0.5])


def _quadratic(params):
  x = params['x']
  return 0.5 * jnp.sum(
      _QUADRATIC_CURVATURE * (x - _QUADRATIC_MINIMUM) ** 2)


def _rosenbrock(params):
  x, y = params['x'][0], params['x'][1]
  return (1 - x) ** 2 + 100 * (y - x**2) ** 2


_PROBLEMS = {
    'quadratic': (_quadratic, np.full(4, 0.5), _QUADRATIC_MINIMUM,
                  _QUADRATIC_STEPS, _QUADRATIC_TOL, 0),
    'rosenbrock': (_rosenbrock, np.array([-1.0, 1.0]), np.array([1.0, 1.0]),
                   _ROSENBROCK_STEPS, _ROSENBROCK_TOL, 1),
}


def _build(name, problem='quadratic'):
  return getattr(alias, name)(**_HYPERS[name][_PROBLEMS[problem][5]])


def _step_fn(opt, fun):
  """One optimization step; passes every extra argument an alias may use."""

  def step(params, state):
    value, grad = jax.value_and_grad(fun)(params)
    updates, state = opt.update(
        grad, state, params, value=value, grad=grad, value_fn=fun)
    return jax.tree.map(lambda p, u: p + u, params, updates), state

  return step


def _minimize(opt, fun, x0, steps):
  step = _step_fn(opt, fun)

  @jax.jit
  def run(params):
    def body(carry, _):
      return step(*carry), None
    (params, _), _ = jax.lax.scan(
        body, (params, opt.init(params)), length=steps)
    return params

  return run({'x': jnp.asarray(x0, jnp.float32)})['x']


class ConvergenceTest(parameterized.TestCase):
  """Every optimizer minimizes a quadratic and the Rosenbrock function."""

  def test_every_alias_is_covered(self):
    public = {
        name for name, value in vars(alias).items()
        if not name.startswith('_') and (
            isinstance(value, functools.partial)
            or (inspect.isfunction(value)
                and value.__module__ == alias.__name__))}
    self.assertEqual(public, set(_NAMES))

  def test_every_alias_has_hyperparameters(self):
    self.assertEqual(set(_HYPERS), set(_NAMES))

  @parameterized.product(name=_NAMES, problem=tuple(_PROBLEMS))
  def test_minimizes(self, name, problem):
    fun, x0, solution, steps, tol, _ = _PROBLEMS[problem]
    x = _minimize(_build(name, problem), fun, x0, steps)
    np.testing.assert_allclose(x, solution, atol=tol)

  @parameterized.parameters(*_NAMES)
  def test_jit_and_eager_agree(self, name):
    fun, x0, _, _, _, _ = _PROBLEMS['rosenbrock']
    opt = _build(name, 'rosenbrock')
    eager = _step_fn(opt, fun)
    jitted = jax.jit(eager)
    params = {'x': jnp.asarray(x0, jnp.float32)}
    state = opt.init(params)
    p_eager, s_eager, p_jit, s_jit = params, state, params, state
    for _ in range(2):
      p_eager, s_eager = eager(p_eager, s_eager)
      p_jit, s_jit = jitted(p_jit, s_jit)
    np.testing.assert_allclose(p_eager['x'], p_jit['x'], rtol=1e-5,
                               atol=1e-6)


def _tree_params(dtype):
  return {
      'w': jnp.asarray(np.linspace(-1, 1, 6).reshape(2, 3), dtype),
      'b': jnp.asarray([0.5, -0.25], dtype),
  }


def _loss(params):
  return sum(jnp.sum(jnp.square(x.astype(jnp.float32) - 0.3))
             for x in jax.tree.leaves(params))


def _dtype_signature(tree):
  return jax.tree.map(lambda x: (jnp.shape(x), jnp.result_type(x)), tree)


class DtypeAndStabilityTest(parameterized.TestCase):
  """Updates keep the params' dtype; the state is type-stable."""

  @parameterized.product(name=_NAMES, dtype=('float32', 'bfloat16'))
  def test_updates_keep_dtype_and_compile_once(self, name, dtype):
    dtype = jnp.dtype(dtype)
    opt = _build(name)
    params = _tree_params(dtype)
    state = opt.init(params)

    @jax.jit
    def step(params, state):
      value, grad = jax.value_and_grad(_loss)(params)
      grad = jax.tree.map(lambda g, p: g.astype(p.dtype), grad, params)
      return opt.update(grad, state, params, value=value, grad=grad,
                        value_fn=_loss)

    signature = _dtype_signature(state)
    for _ in range(2):
      updates, state = step(params, state)
      for leaf in jax.tree.leaves(updates):
        self.assertEqual(leaf.dtype, dtype)
      self.assertEqual(_dtype_signature(state), signature)
      params = jax.tree.map(lambda p, u: p + u, params, updates)
    self.assertEqual(step._cache_size(), 1)  # pylint: disable=protected-access

  @parameterized.parameters(*_NAMES)
  def test_init_on_shape_dtype_structs(self, name):
    opt = _build(name)
    params = _tree_params(jnp.float32)
    abstract = jax.eval_shape(
        opt.init, jax.tree.map(
            lambda x: jax.ShapeDtypeStruct(x.shape, x.dtype), params))
    self.assertEqual(
        jax.tree.map(lambda x: (x.shape, x.dtype), abstract),
        jax.tree.map(lambda x: (x.shape, jnp.result_type(x)),
                     opt.init(params)))

  @parameterized.parameters(*_NAMES)
  def test_building_creates_no_array(self, name):
    before = len(jax.live_arrays())
    opt = _build(name)
    self.assertEqual(len(jax.live_arrays()), before)
    self.assertIsInstance(opt, base.GradientTransformation)


# One invalid Python-number hyperparameter per optimizer, and its name.
_INVALID = (
    ('adabelief', {'learning_rate': 0.1, 'b1': 1.5}, 'b1'),
    ('adadelta', {'rho': 1.5}, 'rho'),
    ('adafactor', {'decay_rate': -0.5}, 'decay_rate'),
    ('adagrad', {'learning_rate': 0.1, 'eps': -1.0}, 'eps'),
    ('adam', {'learning_rate': 0.1, 'b2': -0.1}, 'b2'),
    ('adamax', {'learning_rate': 0.1, 'b1': 2.0}, 'b1'),
    ('adamaxw', {'learning_rate': 0.1, 'weight_decay': float('nan')},
     'weight_decay'),
    ('adamw', {'learning_rate': 0.1, 'b1': 1.0}, 'b1'),
    ('adan', {'learning_rate': 0.1, 'b3': 1.5}, 'b3'),
    ('amsgrad', {'learning_rate': 0.1, 'b2': 1.2}, 'b2'),
    ('fromage', {'learning_rate': 0.1, 'min_norm': -1.0}, 'min_norm'),
    ('lamb', {'learning_rate': 0.1, 'b1': -0.5}, 'b1'),
    ('lars', {'learning_rate': 0.1, 'momentum': 1.5}, 'momentum'),
    ('lbfgs', {'memory_size': 0}, 'memory_size'),
    ('lion', {'learning_rate': 0.1, 'b2': 1.5}, 'b2'),
    ('nadam', {'learning_rate': 0.1, 'b1': 1.5}, 'b1'),
    ('nadamw', {'learning_rate': 0.1, 'b2': 1.5}, 'b2'),
    ('noisy_sgd', {'learning_rate': 0.1, 'eta': -1.0, 'key': 0}, 'eta'),
    ('novograd', {'learning_rate': 0.1, 'b1': 1.5}, 'b1'),
    ('optimistic_adam', {'learning_rate': 0.1, 'b1': 1.5}, 'b1'),
    ('optimistic_adam_v2', {'learning_rate': 0.1, 'b2': 1.5}, 'b2'),
    ('optimistic_gradient_descent', {'learning_rate': float('nan')},
     'learning_rate'),
    ('polyak_sgd', {'variant': 'sps-'}, 'variant'),
    ('radam', {'learning_rate': 0.1, 'b1': 1.5}, 'b1'),
    ('rmsprop', {'learning_rate': 0.1, 'decay': 1.5}, 'decay'),
    ('rprop', {'learning_rate': 0.1, 'eta_minus': 1.5}, 'eta_minus'),
    ('sgd', {'learning_rate': 0.1, 'momentum': -0.5}, 'momentum'),
    ('sign_sgd', {'learning_rate': float('inf')}, 'learning_rate'),
    ('signum', {'learning_rate': 0.1, 'beta': 1.5}, 'beta'),
    ('sm3', {'learning_rate': 0.1, 'momentum': 1.5}, 'momentum'),
    ('yogi', {'learning_rate': 0.1, 'b1': 1.5}, 'b1'),
)


class ValidationTest(parameterized.TestCase):
  """Invalid Python-number hyperparameters are rejected when building."""

  def test_every_alias_has_a_case(self):
    self.assertEqual({case[0] for case in _INVALID}, set(_NAMES))

  @parameterized.parameters(*_INVALID)
  def test_invalid_hyperparameter_raises(self, name, kwargs, argument):
    with self.assertRaisesRegex(ValueError, argument):
      getattr(alias, name)(**kwargs)

  def test_optimistic_adam_is_deprecated(self):
    # As upstream 0.2.8: each call warns, pointing at optimistic_adam_v2.
    with self.assertWarns(DeprecationWarning) as caught:
      alias.optimistic_adam(0.1)
    self.assertEqual(caught.filename, __file__)
    self.assertEqual(
        str(caught.warning), '`optimistic_adam` is deprecated, please use'
        ' `optimistic_adam_v2` instead.')

  def test_optimistic_adam_rejects_schedules(self):
    with self.assertRaisesRegex(ValueError, 'optimistic_adam_v2'):
      alias.optimistic_adam(lambda count: 0.1)

  def test_traced_hyperparameters_are_not_validated(self):
    # Under jit a hyperparameter may be a tracer: no Python comparison.
    @jax.jit
    def step(b1, lr):
      opt = alias.adam(lr, b1=b1)
      params = jnp.ones(2)
      return opt.update(params, opt.init(params))[0]

    self.assertEqual(step(0.9, 0.1).shape, (2,))


class MismatchedGradientsTest(parameterized.TestCase):
  """Gradients that do not match the state name the key path (jit or not)."""

  @parameterized.product(
      name=('adam', 'adamw', 'nadam', 'amsgrad', 'sgd', 'rmsprop', 'adagrad',
            'adamax', 'lamb', 'yogi', 'adafactor', 'adan', 'lion', 'novograd',
            'optimistic_gradient_descent', 'rprop', 'sm3'),
      use_jit=(False, True))
  def test_mismatch_names_the_key_path(self, name, use_jit):
    kwargs = {'momentum': 0.9} if name == 'sgd' else {}
    opt = getattr(alias, name)(0.1, **kwargs)
    params = {'a': jnp.ones(3), 'b': jnp.ones(2)}
    state = opt.init(params)
    update = jax.jit(opt.update) if use_jit else opt.update
    # Both shapes and the key path are named (factored optimizers name the
    # state leaf, whose shape follows from the update's): against the state
    # when no params are given, against the params when they are.
    with self.assertRaisesRegex(
        ValueError, r"(at \['a'\] the update has shape \(4,\) but the"
        r' optimizer state has shape \(3,\))|(state leaf at \S*\[\'a\'\] has'
        r' shape \(3,\), but updates like these need \(4,\))'):
      update({'a': jnp.ones(4), 'b': jnp.ones(2)}, state)
    with self.assertRaisesRegex(
        ValueError, r"(at \['a'\] the gradient has shape \(4,\) but the param"
        r" has shape \(3,\))|(at \['a'\] the update has shape \(4,\) but the"
        r' optimizer state has shape \(3,\))|(state leaf at \S*\[\'a\'\] has'
        r' shape \(3,\), but updates like these need \(4,\))'):
      update({'a': jnp.ones(4), 'b': jnp.ones(2)}, state, params)
    with self.assertRaisesRegex(
        ValueError, r"a dict with keys \['a', '[bc]'\] != a dict with keys"
        r" \['a', '[bc]'\]"):
      update({'a': jnp.ones(3), 'c': jnp.ones(2)}, state, params)


class ScheduleTest(parameterized.TestCase):
  """A constant schedule gives the same steps as the constant itself."""

  @parameterized.parameters(
      n for n in _NAMES
      if n not in ('optimistic_adam', 'polyak_sgd', 'rprop', 'lbfgs'))
  def test_constant_schedule_matches_constant(self, name):
    kwargs = {k: v for k, v in _HYPERS[name][0].items()
              if k != 'learning_rate'}
    constant = getattr(alias, name)(learning_rate=0.01, **kwargs)
    scheduled = getattr(alias, name)(
        learning_rate=lambda count: 0.01, **kwargs)
    step_c = _step_fn(constant, _quadratic)
    step_s = _step_fn(scheduled, _quadratic)

    @jax.jit
    def run(params):
      pc, sc = params, constant.init(params)
      ps, ss = params, scheduled.init(params)
      for _ in range(3):
        pc, sc = step_c(pc, sc)
        ps, ss = step_s(ps, ss)
      return pc['x'], ps['x']

    xc, xs = run({'x': jnp.full(4, 0.5)})
    np.testing.assert_allclose(xc, xs, rtol=1e-6)


class InjectHyperparamsTest(parameterized.TestCase):
  """Numbers and injected hyperparameters give the same steps."""

  @parameterized.parameters(*_NAMES)
  def test_same_steps_under_inject_hyperparams(self, name):
    kwargs = {k: v for k, v in _HYPERS[name][0].items() if not callable(v)}
    if name not in ('polyak_sgd',):
      kwargs['learning_rate'] = kwargs.get('learning_rate') or 0.01
    factory = getattr(alias, name)
    plain = factory(**kwargs)
    injected = _inject.inject_hyperparams(factory)(**kwargs)
    params = {'x': jnp.array([0.5, -0.3, 1.2, 2.0])}
    results = []
    for opt in (plain, injected):
      step = _step_fn(opt, _quadratic)
      p, s = params, opt.init(params)
      for _ in range(2):
        p, s = step(p, s)
      results.append(p['x'])
    np.testing.assert_allclose(results[0], results[1], rtol=1e-6,
                               atol=1e-7)


# Optimizers with decoupled weight decay, their weight-decay and mask
# arguments.
_MASKED = (
    ('adabelief', 'weight_decay', 'weight_decay_mask'),
    ('adadelta', 'weight_decay', 'weight_decay_mask'),
    ('adafactor', 'weight_decay_rate', 'weight_decay_mask'),
    ('adamaxw', 'weight_decay', 'mask'),
    ('adamw', 'weight_decay', 'mask'),
    ('adan', 'weight_decay', 'mask'),
    ('lamb', 'weight_decay', 'mask'),
    ('lars', 'weight_decay', 'weight_decay_mask'),
    ('lion', 'weight_decay', 'mask'),
    ('nadamw', 'weight_decay', 'mask'),
)


class WeightDecayMaskTest(parameterized.TestCase):
  """Masked-out leaves get the updates of the optimizer without decay."""

  @parameterized.parameters(*_MASKED)
  def test_mask_selects_decayed_leaves(self, name, decay_arg, mask_arg):
    factory = getattr(alias, name)
    lr = {'learning_rate': 0.1}
    params = {'w': jnp.array([[1.0, -2.0], [0.5, 3.0]]),
              'b': jnp.array([2.0, -1.0])}
    grads = {'w': jnp.array([[0.3, -0.1], [0.2, 0.4]]),
             'b': jnp.array([0.5, 0.25])}
    results = {}
    for key, kwargs in (
        ('masked', {decay_arg: 0.5, mask_arg: {'w': True, 'b': False}}),
        ('masked_fn', {decay_arg: 0.5,
                       mask_arg: lambda p: {'w': True, 'b': False}}),
        ('decayed', {decay_arg: 0.5}),
        ('plain', {decay_arg: 0.0})):
      opt = factory(**lr, **kwargs)
      results[key], _ = opt.update(grads, opt.init(params), params)
    for key in ('masked', 'masked_fn'):
      np.testing.assert_allclose(results[key]['b'], results['plain']['b'],
                                 rtol=1e-6)
      np.testing.assert_allclose(results[key]['w'], results['decayed']['w'],
                                 rtol=1e-6)
    self.assertFalse(np.allclose(results['decayed']['b'],
                                 results['plain']['b']))


def _run_numpy_comparison(opt, ref_step, steps=4, mask=None):
  """Runs ``opt`` and a NumPy float64 ``ref_step(g, p, t, state)``."""
  rng = np.random.RandomState(0)
  params = {'w': rng.randn(2, 3), 'b': rng.randn(3)}
  targets = {'w': rng.randn(2, 3), 'b': rng.randn(3)}
  jparams = jax.tree.map(lambda x: jnp.asarray(x, jnp.float32), params)
  state = opt.init(jparams)
  ref_state = {}
  for t in range(1, steps + 1):
    grads = {k: 2 * (params[k] - targets[k]) for k in params}
    jgrads = jax.tree.map(lambda x: jnp.asarray(x, jnp.float32), grads)
    updates, state = opt.update(jgrads, state, jparams)
    ref_updates = {
        k: ref_step(grads[k], params[k], t, ref_state.setdefault(k, {}),
                    True if mask is None else mask[k])
        for k in params}
    for k in params:
      np.testing.assert_allclose(updates[k], ref_updates[k], rtol=1e-4,
                                 atol=1e-6, err_msg=f'step {t}, leaf {k}')
    params = {k: params[k] + ref_updates[k] for k in params}
    jparams = jax.tree.map(lambda x: jnp.asarray(x, jnp.float32), params)


def _adam_ref(lr, b1, b2, eps, nesterov=False, weight_decay=0.0):
  def step(g, p, t, st, decay):
    m = st['m'] = b1 * st.get('m', 0.0) + (1 - b1) * g
    v = st['v'] = b2 * st.get('v', 0.0) + (1 - b2) * g * g
    if nesterov:
      m_hat = b1 * m / (1 - b1 ** (t + 1)) + (1 - b1) * g / (1 - b1**t)
    else:
      m_hat = m / (1 - b1**t)
    direction = m_hat / (np.sqrt(v / (1 - b2**t)) + eps)
    if decay:
      direction = direction + weight_decay * p
    return -lr * direction
  return step


class NumpyReferenceTest(parameterized.TestCase):
  """Values of a few optimizers against NumPy implementations."""

  @parameterized.parameters(False, True)
  def test_sgd(self, nesterov):
    lr, mu = 0.1, 0.9

    def ref(g, p, t, st, decay):
      del p, t, decay
      m = st['m'] = mu * st.get('m', 0.0) + g
      return -lr * (g + mu * m if nesterov else m)

    _run_numpy_comparison(
        alias.sgd(lr, momentum=mu, nesterov=nesterov), ref)

  def test_adam(self):
    _run_numpy_comparison(alias.adam(0.1, b1=0.8, b2=0.99, eps=1e-3),
                          _adam_ref(0.1, 0.8, 0.99, 1e-3))

  def test_nadam_is_adam_with_nesterov(self):
    self.assertIsInstance(alias.nadam, functools.partial)
    self.assertIs(alias.nadam.func, alias.adam)
    self.assertEqual(alias.nadam.keywords, {'nesterov': True})
    self.assertIs(alias.nadamw.func, alias.adamw)
    _run_numpy_comparison(alias.nadam(0.1, b1=0.8, b2=0.99, eps=1e-3),
                          _adam_ref(0.1, 0.8, 0.99, 1e-3, nesterov=True))

  def test_adamw_with_mask(self):
    mask = {'w': True, 'b': False}
    _run_numpy_comparison(
        alias.adamw(0.1, b1=0.8, b2=0.99, eps=1e-3, weight_decay=0.5,
                    mask=mask),
        _adam_ref(0.1, 0.8, 0.99, 1e-3, weight_decay=0.5), mask=mask)

  def test_adamw_with_mask_function(self):
    mask_fn = lambda params: {'w': True, 'b': False}
    _run_numpy_comparison(
        alias.adamw(0.1, b1=0.8, b2=0.99, eps=1e-3, weight_decay=0.5,
                    mask=mask_fn),
        _adam_ref(0.1, 0.8, 0.99, 1e-3, weight_decay=0.5),
        mask={'w': True, 'b': False})

  @parameterized.parameters((None,), ({'w': True, 'b': False},))
  def test_adabelief_with_weight_decay_issue_1634(self, mask):
    lr, b1, b2, eps, eps_root, wd = 0.1, 0.8, 0.99, 1e-3, 1e-6, 0.5

    def ref(g, p, t, st, decay):
      m = st['m'] = b1 * st.get('m', 0.0) + (1 - b1) * g
      s = st['s'] = (b2 * st.get('s', 0.0) + (1 - b2) * (g - m) ** 2
                     + eps_root)
      direction = (m / (1 - b1**t)) / (np.sqrt(s / (1 - b2**t)) + eps)
      if decay:
        direction = direction + wd * p
      return -lr * direction

    _run_numpy_comparison(
        alias.adabelief(lr, b1=b1, b2=b2, eps=eps, eps_root=eps_root,
                        weight_decay=wd, weight_decay_mask=mask),
        ref, mask=mask)

  def test_adabelief_first_step_with_weight_decay_by_hand(self):
    # Step 1: m = (1 - b1) g, s = (1 - b2) (b1 g)^2 (eps_root = 0), so the
    # bias-corrected ratio is g / (b1 |g| + eps) and, with eps = 0, sign(g)
    # / b1; the decay adds wd * p; the step is -lr times the sum.
    opt = alias.adabelief(0.1, b1=0.5, eps=0.0, eps_root=0.0,
                          weight_decay=0.25)
    params = jnp.array([2.0, -4.0])
    updates, _ = opt.update(jnp.array([3.0, 1.0]), opt.init(params), params)
    np.testing.assert_allclose(
        updates, [-0.1 * (2.0 + 0.5), -0.1 * (2.0 - 1.0)], rtol=1e-6)

  def test_adabelief_state_without_weight_decay_is_upstreams(self):
    # Upstream 0.2.8's adabelief: chain(scale_by_belief, scale_by_lr); a
    # checkpoint of it must restore into the default adabelief.
    params = {'w': jnp.ones((2, 3))}
    default = alias.adabelief(0.1).init(params)
    self.assertLen(default, 2)
    self.assertEqual(type(default[0]).__name__, 'ScaleByBeliefState')
    self.assertEqual(default[1], base.EmptyState())
    with_mask = alias.adabelief(0.1, weight_decay_mask={'w': True})
    self.assertEqual(jax.tree.structure(with_mask.init(params)),
                     jax.tree.structure(default))
    decayed = alias.adabelief(0.1, weight_decay=1e-4).init(params)
    self.assertLen(decayed, 3)
    for got, want in zip(jax.tree.leaves(decayed), jax.tree.leaves(default),
                         strict=True):
      np.testing.assert_array_equal(got, want)

  def test_adabelief_weight_decay_needs_params(self):
    opt = alias.adabelief(0.1, weight_decay=0.1)
    params = jnp.ones(2)
    with self.assertRaisesRegex(ValueError, 'add_decayed_weights'):
      opt.update(params, opt.init(params))

  def test_rmsprop_centered_with_momentum(self):
    lr, decay, eps, mu = 0.05, 0.9, 1e-3, 0.5

    def ref(g, p, t, st, unused_decay):
      del p, t
      nu = st['nu'] = decay * st.get('nu', 0.0) + (1 - decay) * g * g
      mean = st['mu'] = decay * st.get('mu', 0.0) + (1 - decay) * g
      scaled = -lr * g / np.sqrt(nu - mean**2 + eps)
      tr = st['tr'] = mu * st.get('tr', 0.0) + scaled
      return tr

    _run_numpy_comparison(
        alias.rmsprop(lr, decay=decay, eps=eps, centered=True, momentum=mu),
        ref)

  def test_lion(self):
    lr, b1, b2, wd = 0.01, 0.9, 0.99, 0.1

    def ref(g, p, t, st, decay):
      del t, decay
      m = st.get('m', 0.0)
      direction = np.sign(b1 * m + (1 - b1) * g)
      st['m'] = b2 * m + (1 - b2) * g
      return -lr * (direction + wd * p)

    _run_numpy_comparison(alias.lion(lr, b1=b1, b2=b2, weight_decay=wd), ref)

  def test_fromage(self):
    lr = 0.1

    def ref(g, p, t, st, decay):
      del t, st, decay
      mult = 1 / np.sqrt(1 + lr**2)
      step = lr * np.linalg.norm(p) / np.linalg.norm(g) * g
      return mult * (p - step) - p

    _run_numpy_comparison(alias.fromage(lr), ref)

  def test_adagrad(self):
    lr, init, eps = 0.1, 0.1, 1e-7

    def ref(g, p, t, st, decay):
      del p, t, decay
      acc = st['acc'] = st.get('acc', init) + g * g
      return -lr * g / np.sqrt(acc + eps)

    _run_numpy_comparison(alias.adagrad(lr, init, eps), ref)


class LbfgsTest(parameterized.TestCase):
  """L-BFGS with its default line search against SciPy."""

  @parameterized.parameters(0, 1, 2)
  def test_matches_scipy_on_convex_problems(self, seed):
    rng = np.random.RandomState(seed)
    n = 6
    a = rng.randn(2 * n, n)
    b = rng.randn(2 * n)

    # A smooth, strictly convex objective: ridge-regularized log-cosh
    # regression.
    def np_fun(x):
      r = a @ x - b
      return np.sum(np.logaddexp(r, -r) - np.log(2)) + 0.1 * x @ x

    def fun(x):
      r = a @ x - b
      return jnp.sum(jnp.logaddexp(r, -r) - jnp.log(2.0)) + 0.1 * x @ x

    expected = scipy.optimize.minimize(
        np_fun, np.zeros(n), method='L-BFGS-B',
        options={'gtol': 1e-10, 'ftol': 1e-14}).x
    opt = alias.lbfgs()
    value_and_grad = linesearch.value_and_grad_from_state(fun)

    @jax.jit
    def step(params, state):
      value, grad = value_and_grad(params, state=state)
      updates, state = opt.update(
          grad, state, params, value=value, grad=grad, value_fn=fun)
      return jax.tree.map(lambda p, u: p + u, params, updates), state

    params = jnp.zeros(n)
    state = opt.init(params)
    for _ in range(50):
      params, state = step(params, state)
    np.testing.assert_allclose(params, expected, atol=1e-4)

  def test_default_linesearch_is_zoom(self):
    state = alias.lbfgs().init(jnp.zeros(3))
    self.assertEqual(type(state[-1]).__name__, 'ScaleByZoomLinesearchState')


class LbfgsStructureTest(absltest.TestCase):
  """The parts of lbfgs that do not need the line search."""

  def test_no_linesearch_gives_identity_state(self):
    state = alias.lbfgs(0.1, linesearch=None).init(jnp.zeros(3))
    self.assertLen(state, 3)
    self.assertEqual(state[-1], base.EmptyState())

  def test_default_argument_is_a_transformation(self):
    default = alias.lbfgs.__defaults__[-1]
    self.assertIsInstance(default, base.GradientTransformationExtraArgs)


class NoisySgdTest(absltest.TestCase):
  """The key of noisy_sgd lives in the state."""

  def test_key_is_created_in_init_and_advances(self):
    opt = alias.noisy_sgd(0.1, eta=1.0, key=3)
    params = jnp.zeros(4)
    state = opt.init(params)
    updates1, state = opt.update(jnp.zeros(4), state)
    updates2, _ = opt.update(jnp.zeros(4), state)
    self.assertFalse(np.allclose(updates1, updates2))
    # Same key, same noise.
    again, _ = opt.update(jnp.zeros(4), opt.init(params))
    np.testing.assert_array_equal(updates1, again)


class GradientDtypeTest(parameterized.TestCase):
  """Updates are in the params' floating dtype whatever the gradients'."""

  @parameterized.product(name=_NAMES,
                         grad_dtype=('int32', 'bfloat16', 'float16'))
  def test_narrow_gradients_give_params_dtype(self, name, grad_dtype):
    # The integers -2..4 are exact in every one of these dtypes, so the
    # updates must be those of the same gradients given in float32.
    opt = _build(name)
    params = {'x': jnp.array([0.5, 1.5, -1.0, 2.0], jnp.float32)}
    grads = {'x': jnp.array([3, -2, 1, 4], jnp.dtype(grad_dtype))}
    wide = {'x': grads['x'].astype(jnp.float32)}
    extra = {'value': _quadratic(params), 'grad': wide,
             'value_fn': _quadratic}
    updates, _ = opt.update(grads, opt.init(params), params, **extra)
    expected, _ = opt.update(wide, opt.init(params), params, **extra)
    self.assertEqual(updates['x'].dtype, jnp.float32)
    np.testing.assert_array_equal(updates['x'], expected['x'])

  def test_integer_gradients_adam_and_sgd_regression(self):
    # The fork returned int32 zeros here (the float updates truncated to
    # the gradients' dtype); the first step of Adam is -lr * sign(g), that
    # of SGD with momentum -lr * g.
    params = jnp.array([1.0, 2.0])
    grads = jnp.array([3, -2], jnp.int32)
    for opt, expected in ((alias.adam(0.1), [-0.1, 0.1]),
                          (alias.sgd(0.1, momentum=0.9), [-0.3, 0.2])):
      updates, _ = opt.update(grads, opt.init(params), params)
      self.assertEqual(updates.dtype, jnp.float32)
      np.testing.assert_allclose(updates, expected, rtol=1e-6)

  def test_integer_gradients_without_params(self):
    opt = alias.sgd(0.5)
    updates, _ = opt.update(jnp.array([2, -1]), opt.init(jnp.zeros(2)))
    self.assertEqual(updates.dtype, jnp.float32)
    np.testing.assert_array_equal(updates, [-1.0, 0.5])

  def test_wider_gradients_are_kept(self):
    # float32 gradients on bfloat16 params are not rounded before the
    # update (apply_updates rounds the sum with the param once).
    opt = alias.sgd(0.5)
    params = jnp.zeros(2, jnp.bfloat16)
    updates, _ = opt.update(jnp.array([1 / 3, 1.0]), opt.init(params), params)
    self.assertEqual(updates.dtype, jnp.float32)
    np.testing.assert_array_equal(updates,
                                  np.float32([-1 / 6, -0.5]))


class PythonNumberLeafTest(parameterized.TestCase):
  """A Python-number leaf in the params is a float32 scalar param."""

  @parameterized.parameters(
      # (factory, first update of 'f' = 1.5 and of 'w' = 1 with g = p):
      # -lr * (1 + wd * p) for adamw (Adam's first step is sign(g)) and
      # lion (whose step is sign(g) too), wd 1e-4 and 1e-3 by default.
      ('adamw', lambda: alias.adamw(0.1), -0.1 * (1 + 1.5e-4),
       -0.1 * (1 + 1e-4)),
      ('lion', lambda: alias.lion(0.1), -0.1 * (1 + 1.5e-3),
       -0.1 * (1 + 1e-3)),
      ('inject_adamw',
       lambda: _inject.inject_hyperparams(alias.adamw)(0.1),
       -0.1 * (1 + 1.5e-4), -0.1 * (1 + 1e-4)),
  )
  def test_python_float_param_regression(self, name, make, f_update,
                                         w_update):
    # The fork raised AttributeError ('float' object has no attribute
    # 'dtype'); upstream 0.2.8 accepts such a leaf.
    del name
    opt = make()
    params = {'w': jnp.ones(3), 'f': 1.5}
    updates, state = opt.update(params, opt.init(params), params)
    self.assertEqual(updates['f'].dtype, jnp.float32)
    np.testing.assert_allclose(updates['f'], f_update, rtol=1e-6)
    np.testing.assert_allclose(updates['w'], np.full(3, w_update),
                               rtol=1e-6)
    # The same as with the number given as a float32 array.
    as_array = {'w': params['w'], 'f': jnp.float32(1.5)}
    expected, _ = opt.update(as_array, opt.init(as_array), as_array)
    np.testing.assert_array_equal(updates['f'], expected['f'])
    np.testing.assert_array_equal(updates['w'], expected['w'])
    updates, _ = opt.update(params, state, params)  # A second step runs.
    self.assertTrue(np.isfinite(updates['f']))


class NoneLeafTest(parameterized.TestCase):
  """None leaves of the params (and gradients) pass through every alias."""

  @parameterized.parameters(*_NAMES)
  def test_none_leaf_passes_through(self, name):
    # novograd raised 'None is not a valid value for jnp.array'; upstream
    # 0.2.8 passes None leaves through. The other leaf's update is the one
    # it gets without the None leaf.
    opt = _build(name)
    params = {'x': jnp.array([0.5, 1.5, -1.0, 2.0]), 'n': None}
    alone = {'x': params['x']}

    def fun(p):
      return _quadratic({'x': p['x']})

    def two_steps(params):
      state = opt.init(params)
      for _ in range(2):
        value, grads = jax.value_and_grad(fun)(params)
        updates, state = opt.update(grads, state, params, value=value,
                                    grad=grads, value_fn=fun)
      return updates

    updates = two_steps(params)
    self.assertIsNone(updates['n'])
    np.testing.assert_array_equal(updates['x'], two_steps(alone)['x'])


class Float0GradientTest(parameterized.TestCase):
  """jax.grad(..., allow_int=True) gradients: integer leaves stay put."""

  @parameterized.product(
      name=('adam', 'adamw', 'sgd', 'lion', 'inject_adamw'),
      use_jit=(False, True))
  def test_float0_gradients(self, name, use_jit):
    # Run eagerly every optimizer failed with 'dtype=float0 is not a valid
    # dtype for JAX type promotion' (upstream 0.2.8 fails too, with numpy's
    # ufunc error), and adamw and lion under jit too. Now the integer leaf
    # gets zero updates (even under weight decay) and the float leaf the
    # updates it gets on its own.
    opt = {
        'adam': lambda: alias.adam(0.1),
        'adamw': lambda: alias.adamw(0.1, weight_decay=0.5),
        'sgd': lambda: alias.sgd(0.1, momentum=0.9),
        'lion': lambda: alias.lion(0.1),
        'inject_adamw': lambda: _inject.inject_hyperparams(alias.adamw)(0.1),
    }[name]()

    def loss(p):
      return jnp.sum((p['w'] - 1.0) ** 2) * p['i'].sum().astype(jnp.float32)

    params = {'w': jnp.array([0.5, 2.0]), 'i': jnp.array([1, 2], jnp.int32)}

    def step(params, state):
      grads = jax.grad(loss, allow_int=True)(params)
      updates, state = opt.update(grads, state, params)
      return optax_update.apply_updates(params, updates), updates, state

    if use_jit:
      step = jax.jit(step)
    new_params, updates, _ = step(params, opt.init(params))
    np.testing.assert_array_equal(updates['i'], [0, 0])
    np.testing.assert_array_equal(new_params['i'], params['i'])
    self.assertEqual(new_params['i'].dtype, jnp.int32)
    alone = {'w': params['w']}
    grads = {'w': jax.grad(loss, allow_int=True)(params)['w']}
    expected, _ = opt.update(grads, opt.init(alone), alone)
    np.testing.assert_allclose(updates['w'], expected['w'], rtol=1e-6)


# The numeric hyperparameters of each alias that must be scalars (or
# schedules): a vector there is a TypeError when the optimizer is built.
_SCALAR_HYPERPARAMETERS = {
    'adabelief': ('b1', 'b2', 'eps', 'eps_root', 'weight_decay'),
    'adadelta': ('rho', 'eps', 'weight_decay'),
    'adafactor': ('decay_rate', 'clipping_threshold', 'momentum',
                  'weight_decay_rate', 'eps'),
    'adagrad': ('initial_accumulator_value', 'eps'),
    'adam': ('b1', 'b2', 'eps', 'eps_root'),
    'adamw': ('b1', 'b2', 'eps', 'eps_root', 'weight_decay'),
    'adamax': ('b1', 'b2', 'eps'),
    'adamaxw': ('b1', 'b2', 'eps', 'weight_decay'),
    'adan': ('b1', 'b2', 'b3', 'eps', 'eps_root', 'weight_decay'),
    'amsgrad': ('b1', 'b2', 'eps', 'eps_root'),
    'fromage': ('min_norm',),
    'lamb': ('b1', 'b2', 'eps', 'eps_root', 'weight_decay'),
    'lars': ('weight_decay', 'trust_coefficient', 'eps', 'momentum'),
    'lion': ('b1', 'b2', 'weight_decay'),
    'noisy_sgd': ('eta', 'gamma'),
    'novograd': ('b1', 'b2', 'eps', 'eps_root', 'weight_decay'),
    'optimistic_gradient_descent': ('alpha', 'beta'),
    'optimistic_adam': ('optimism', 'b1', 'b2', 'eps', 'eps_root'),
    'optimistic_adam_v2': ('alpha', 'beta', 'b1', 'b2', 'eps', 'eps_root'),
    'polyak_sgd': ('scaling', 'f_min', 'eps'),
    'radam': ('b1', 'b2', 'eps', 'eps_root', 'threshold'),
    'rmsprop': ('decay', 'eps', 'initial_scale', 'momentum'),
    'rprop': ('eta_minus', 'eta_plus', 'min_step_size', 'max_step_size'),
    'sgd': ('momentum',),
    'signum': ('beta',),
    'sm3': ('momentum',),
    'yogi': ('b1', 'b2', 'eps'),
}


class VectorHyperparametersTest(parameterized.TestCase):
  """A vector hyperparameter is a TypeError naming the alias and argument."""

  @parameterized.parameters(*[
      (name, arg) for name, args in sorted(_SCALAR_HYPERPARAMETERS.items())
      for arg in args])
  def test_vector_raises_type_error_when_built(self, name, arg):
    factory = getattr(alias, name)
    kwargs = {arg: jnp.asarray([0.5, 0.5])}
    if 'learning_rate' in inspect.signature(factory).parameters:
      kwargs['learning_rate'] = 0.1
    if name == 'noisy_sgd':
      kwargs['key'] = 0
    with self.assertRaisesRegex(
        TypeError, f'{name}: {arg} must be a scalar number or a schedule,'
        r' got an array of shape \(2,\)'):
      factory(**kwargs)

  @parameterized.parameters('adam', 'lars', 'polyak_sgd')
  def test_scalar_arrays_and_schedules_are_accepted(self, name):
    factory = getattr(alias, name)
    arg = _SCALAR_HYPERPARAMETERS[name][-1]
    kwargs = {} if name == 'polyak_sgd' else {'learning_rate': 0.1}
    params = {'w': jnp.asarray([1.0, -2.0])}
    want_tx = factory(**kwargs, **{arg: 0.5})
    got_tx = factory(**kwargs, **{arg: jnp.asarray(0.5)})
    extra = {'value': jnp.asarray(1.0)} if name == 'polyak_sgd' else {}
    want, _ = want_tx.update(params, want_tx.init(params), params, **extra)
    got, _ = got_tx.update(params, got_tx.init(params), params, **extra)
    np.testing.assert_array_equal(got['w'], want['w'])


class DeclaredArgumentsTest(parameterized.TestCase):
  """Each error names the optimizer called and the argument as given."""

  @parameterized.named_parameters(
      # Checked by scale_by_adam, which adamw builds.
      ('adamw_b1', alias.adamw, {'b1': 1.5}, ValueError,
       r'adamw: b1 must be in \[0, 1\), got 1.5'),
      ('adamw_learning_rate', alias.adamw, {'learning_rate': '0.1'},
       TypeError, "adamw: learning_rate must be a scalar number or a"
       " schedule, got str '0.1'"),
      ('adamw_weight_decay', alias.adamw, {'weight_decay': float('inf')},
       ValueError, 'adamw: weight_decay must be finite, got inf'),
      # nadam is adam with nesterov=True.
      ('nadam_eps', alias.nadam, {'eps': -1.0}, ValueError,
       'adam: eps must be non-negative, got -1.0'),
      # Passed on under another name (scale_by_sm3's b1, ema's decay,
      # scale_by_factored_rms's epsilon).
      ('sm3_momentum', alias.sm3, {'momentum': 1.5}, ValueError,
       r'sm3: momentum must be in \[0, 1\], got 1.5'),
      ('signum_beta', alias.signum, {'beta': float('nan')}, ValueError,
       r'signum: beta must be in \[0, 1\], got nan'),
      ('adafactor_eps', alias.adafactor, {'eps': -1.0}, ValueError,
       'adafactor: eps must be non-negative, got -1.0'),
      ('polyak_sgd_variant', alias.polyak_sgd, {'variant': 'sps-'},
       ValueError, "polyak_sgd: variant must be 'sps' or 'sps\\+', got"
       " 'sps-'"),
      ('rprop_eta_plus', alias.rprop, {'eta_plus': 0.5}, ValueError,
       'rprop: eta_plus must be >= 1, got 0.5'),
      ('lbfgs_memory_size', alias.lbfgs, {'memory_size': 0}, ValueError,
       'lbfgs: memory_size must be a positive integer, got 0'),
  )
  def test_error_names_the_optimizer_and_argument(self, factory, kwargs,
                                                  error, message):
    if 'learning_rate' in inspect.signature(factory).parameters:
      kwargs = {'learning_rate': 0.1} | kwargs
    with self.assertRaisesRegex(error, f'^{message}$'):
      factory(**kwargs)

  def test_deprecation_warning_points_at_the_caller(self):
    with self.assertWarns(DeprecationWarning) as caught:
      alias.optimistic_adam(0.1)
    self.assertEqual(caught.filename, __file__)


if __name__ == '__main__':
  absltest.main()
