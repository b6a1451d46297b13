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
"""inject_hyperparams(opt)(**kw) versus opt(**kw) for every optimizer alias.

Two properties, for every public alias of ``optax._src.alias`` (discovered
at import time, so a new alias is covered automatically) and the contrib
optimizers:

* The injected hyperparameters (names, dtypes, shapes) are upstream Optax
  0.2.8's, listed by hand below from upstream's own output, so that states
  and checkpoints move between the two.
* Wrapping an optimizer does not change its updates (upstream issue 1532):
  eagerly they are bit-identical; under ``jax.jit`` XLA compiles the plain
  and the injected programs separately and may fuse them differently, so
  each step (from the same state) agrees to a few ulps.
"""

import functools
import inspect

from absl.testing import absltest
from absl.testing import parameterized
import jax
import jax.numpy as jnp
import numpy as np

from optax import contrib
from optax._src import alias
from optax._src import test_utils
from optax.schedules import _inject
from optax.schedules import _schedule

# Arguments of the aliases that need more than a learning rate, or that are
# worth running in a non-default configuration.
_KWARGS = {
    'adafactor': dict(learning_rate=1e-2, min_dim_size_to_factor=2,
                      momentum=0.9, weight_decay_rate=1e-3),
    'lbfgs': dict(learning_rate=0.1, memory_size=3, linesearch=None),
    'noisy_sgd': dict(learning_rate=1e-2, seed=3),
    'optimistic_adam': dict(learning_rate=1e-2, optimism=0.5),
    'polyak_sgd': dict(max_learning_rate=0.1, f_min=-1.0),
    'rmsprop': dict(learning_rate=1e-2, momentum=0.9, centered=True,
                    nesterov=True, bias_correction=True),
    'sgd': dict(learning_rate=1e-2, momentum=0.9, nesterov=True),
    'sm3': dict(learning_rate=1e-2, momentum=0.5),
}

# Extra configurations on top of one run per alias.
_VARIANTS = {
    'adam_schedule': ('adam', dict(
        learning_rate=_schedule.warmup_cosine_decay_schedule(
            0.0, 1e-2, 20, 200), b1=0.8, eps_root=1e-12)),
    'adamw_mask_fn': ('adamw', dict(
        learning_rate=1e-2, weight_decay=0.1,
        mask=lambda p: jax.tree.map(lambda x: x.ndim > 1, p))),
    # Upstream #1634: the weight decay is injected when it is given.
    'adabelief_weight_decay_mask': ('adabelief', dict(
        learning_rate=1e-2, weight_decay=0.1,
        weight_decay_mask=lambda p: jax.tree.map(lambda x: x.ndim > 1, p))),
    'adam_bf16_moment': ('adam', dict(learning_rate=1e-2,
                                      mu_dtype=jnp.bfloat16)),
    'sgd_plain': ('sgd', dict(learning_rate=1e-2)),
    'rmsprop_plain': ('rmsprop', dict(learning_rate=1e-2)),
    'adafactor_defaults': ('adafactor', dict(learning_rate=1e-2)),
    # Reported to differ by an ulp under jit on some machines.
    'adadelta_lr1': ('adadelta', dict(learning_rate=1.0)),
    'adabelief_lr1': ('adabelief', dict(learning_rate=1.0)),
    'adabelief_lr03': ('adabelief', dict(learning_rate=0.3)),
}

# Under jit, from the same state, an element of the injected optimizer's
# update may differ from the plain one's by this many ulps of the largest of
# |update| (either) and |param|. The parameter's scale matters where an
# update is a difference of parameter-sized terms (fromage shrinks the
# parameter: u = (m - 1) p - ...), and is the rounding that ``apply_updates``
# does anyway. Measured: at most 2 (CPU, jax 0.10.2, learning rates 1e-2,
# 0.3 and 1, 150 steps; most aliases 0); in ulps of |update| alone, at most
# 2 for every alias but fromage.
_ULPS = 4

# Cases whose update cancels terms larger than itself, by that ratio: the
# bound above applies in ulps of those terms. optimistic_adam's update is
# (lr + o) r_t - o r_{t-1}, with r Adam's direction; at lr=1e-2, o=0.5 the
# two terms are up to (lr + 2 o) / lr = 101 times its size, so a 1-ulp
# difference in r (which XLA's code generation can give when the plain and
# injected programs fuse differently: the plain one leaves out eps_root=0's
# addition) comes out ~100 ulps of the update. Measured: 8.2 ulps of
# max(|update|, |param|), i.e. 0.08 of the terms (CPU, jax 0.10.2).
_CANCELLATION = {'optimistic_adam': (1e-2 + 2 * 0.5) / 1e-2}

_STEPS_JIT = 150
_STEPS_EAGER = 4


def _alias_factories():
  """Every public optimizer of `optax._src.alias` (functions and partials)."""
  found = {}
  for name, obj in sorted(vars(alias).items()):
    if name.startswith('_'):
      continue
    if inspect.isfunction(obj) and obj.__module__ == alias.__name__:
      found[name] = obj
    elif (isinstance(obj, functools.partial)
          and getattr(obj.func, '__module__', None) == alias.__name__):
      found[name] = obj
  return found


_FACTORIES = _alias_factories()
# (test name, case name, kwargs).
_CASES = [(name, name, _KWARGS.get(name, dict(learning_rate=1e-2)))
          for name in _FACTORIES]
_CASES += [(case, case, kwargs) for case, (_, kwargs) in _VARIANTS.items()]
_CASE_ALIAS = {name: name for name in _FACTORIES}
_CASE_ALIAS.update({case: name for case, (name, _) in _VARIANTS.items()})

# The hyperparameters upstream 0.2.8 injects for `inject_hyperparams(f)(...)`
# with float32 params: (float32 scalars, int32 scalars), each sorted. Built
# with the learning rate alone where the alias requires one (with nothing
# for aliases whose every argument has a default), the other arguments left
# at their defaults; no schedule, so `hyperparams_states` is empty.
_F, _I = 'float32', 'int32'
_ADAM = ('b1', 'b2', 'eps', 'eps_root', 'learning_rate')
_UPSTREAM_HYPERPARAMS = {
    'adabelief': (_ADAM, ()),
    'adadelta': (('eps', 'rho', 'weight_decay'), ()),
    # Upstream also lists dtype_momentum (a float32 scalar, with a
    # WrappedScheduleState): it evaluates jnp.float32 on the step count as
    # if it were a schedule (issue 1373); the fork passes the dtype through.
    'adafactor': (('clipping_threshold', 'decay_rate', 'eps'),
                  ('decay_offset', 'min_dim_size_to_factor')),
    'adagrad': (('eps', 'initial_accumulator_value', 'learning_rate'), ()),
    'adam': (_ADAM, ()),
    'adamax': (('b1', 'b2', 'eps', 'learning_rate'), ()),
    'adamaxw': (('b1', 'b2', 'eps', 'learning_rate', 'weight_decay'), ()),
    'adamw': (_ADAM + ('weight_decay',), ()),
    'adan': (('b1', 'b2', 'b3', 'eps', 'eps_root', 'learning_rate',
              'weight_decay'), ()),
    'amsgrad': (_ADAM, ()),
    'fromage': (('learning_rate', 'min_norm'), ()),
    'lamb': (_ADAM + ('weight_decay',), ()),
    'lars': (('eps', 'learning_rate', 'momentum', 'trust_coefficient',
              'weight_decay'), ()),
    'lbfgs': ((), ('memory_size',)),
    'lion': (('b1', 'b2', 'learning_rate', 'weight_decay'), ()),
    'nadam': (_ADAM, ()),
    'nadamw': (_ADAM + ('weight_decay',), ()),
    'noisy_sgd': (('eta', 'gamma', 'learning_rate'), ()),
    'novograd': (_ADAM + ('weight_decay',), ()),
    'optimistic_adam': (_ADAM, ()),
    'optimistic_adam_v2': (('alpha', 'b1', 'b2', 'beta', 'eps', 'eps_root',
                            'learning_rate'), ()),
    'optimistic_gradient_descent': (('alpha', 'beta', 'learning_rate'), ()),
    'polyak_sgd': (('eps', 'f_min', 'max_learning_rate', 'scaling'), ()),
    'radam': (_ADAM + ('threshold',), ()),
    'rmsprop': (('decay', 'eps', 'initial_scale', 'learning_rate'), ()),
    'rprop': (('eta_minus', 'eta_plus', 'learning_rate', 'max_step_size',
               'min_step_size'), ()),
    'sgd': (('learning_rate',), ()),
    'sign_sgd': (('learning_rate',), ()),
    'signum': (('beta', 'learning_rate'), ()),
    'sm3': (('learning_rate', 'momentum'), ()),
    'yogi': (('b1', 'b2', 'eps', 'learning_rate'), ()),
    'contrib.acprop': (_ADAM + ('weight_decay',), ()),
    'contrib.ademamix': (('alpha', 'b1', 'b2', 'b3', 'eps', 'eps_root',
                          'learning_rate', 'weight_decay'), ()),
    # Upstream also lists clip_value_fn, its default lambda evaluated on the
    # step count (issue 1373); its update then fails calling an array.
    'contrib.adopt': (('b1', 'b2', 'eps', 'learning_rate'), ()),
    'contrib.cocob': (('alpha', 'eps', 'learning_rate', 'weight_decay'), ()),
    'contrib.dadapt_adamw': (('eps', 'estim_lr0', 'learning_rate',
                              'weight_decay'), ()),
    'contrib.dog': (('eps', 'learning_rate'), ()),
    'contrib.dowg': (('eps', 'learning_rate'), ()),
    # Upstream 0.2.8 calls the fourth argument seed (listed as 'seed', as the
    # fork still does for the deprecated seed=); upstream main and the fork
    # call it key (#1671), an int key being an integer hyperparameter too.
    'contrib.dpsgd': (('l2_norm_clip', 'learning_rate', 'noise_multiplier'),
                      ('key',)),
    # Upstream's init fails: it traces rank, which galore checks is an int
    # (issues 1686, 1730). The fork lists the integers as it does elsewhere.
    'contrib.galore': (('learning_rate', 'scale', 'weight_decay'),
                       ('rank', 'update_proj_gap')),
    'contrib.madgrad': (('eps', 'learning_rate', 'momentum', 'weight_decay'),
                        ()),
    'contrib.momo': (('beta', 'learning_rate', 'lower_bound',
                      'weight_decay'), ()),
    'contrib.momo_adam': (('b1', 'b2', 'eps', 'learning_rate', 'lower_bound',
                           'weight_decay'), ()),
    'contrib.muon': (('adam_b1', 'adam_b2', 'adam_eps_root',
                      'adam_weight_decay', 'beta', 'eps', 'learning_rate',
                      'weight_decay'), ('ns_steps',)),
    'contrib.prodigy': (('eps', 'estim_lr0', 'estim_lr_coef',
                         'learning_rate', 'weight_decay'), ()),
    'contrib.schedule_free_adamw': (('b1', 'b2', 'eps', 'learning_rate',
                                     'weight_decay', 'weight_lr_power'), ()),
    'contrib.schedule_free_sgd': (('b1', 'learning_rate', 'weight_lr_power'),
                                  ()),
    'contrib.simplified_ademamix': (('alpha', 'b1', 'b2', 'eps', 'eps_root',
                                     'learning_rate', 'weight_decay'), ()),
    'contrib.sophia': (('b1', 'b2', 'clip_threshold', 'eps', 'gamma',
                        'learning_rate', 'weight_decay'),
                       ('print_win_rate_every_n_steps', 'update_interval')),
}
_LAYOUT_KWARGS = {
    'contrib.dpsgd': dict(learning_rate=1e-2, l2_norm_clip=1.0,
                          noise_multiplier=1.0, key=0),
}


def _layout_factory(name):
  if name.startswith('contrib.'):
    return getattr(contrib, name[len('contrib.'):])
  return _FACTORIES[name]


def _layout_kwargs(name):
  if name in _LAYOUT_KWARGS:
    return _LAYOUT_KWARGS[name]
  params = inspect.signature(_layout_factory(name)).parameters
  if params['learning_rate' if 'learning_rate' in params else
            next(iter(params))].default is inspect.Parameter.empty:
    return dict(learning_rate=1e-2)
  return {}


def _params():
  return {'w': jnp.linspace(-1.0, 1.0, 6).reshape(2, 3),
          'b': jnp.array([0.3, -0.2, 0.5]),
          'm': jnp.full((4, 3), 0.7)}


def _loss(params):
  return (0.5 * jnp.sum((params['w'] - 1.0) ** 2)
          + jnp.sum(jnp.sin(params['b']) ** 2)
          + 0.1 * jnp.sum(params['m'] ** 4))


def _step(tx, params, state):
  value, grads = jax.value_and_grad(_loss)(params)
  updates, state = tx.update(grads, state, params, value=value, grad=grads)
  return jax.tree.map(jnp.add, params, updates), state, updates


def _trajectory(step, tx, steps):
  params, state, history = _params(), tx.init(_params()), []
  for _ in range(steps):
    params, state, updates = step(params, state)
    history.append(updates)
  return params, history


def _ulps(actual, expected, params):
  """Largest |actual - expected| in ulps of max(|actual|, |expected|, |p|).

  Equal elements, NaNs in both included, count as 0; a NaN in one only
  gives NaN, which fails any bound.

  Args:
    actual: an update leaf.
    expected: the same leaf of the reference update.
    params: the parameter leaf.

  Returns:
    The largest distance, in ulps of the leaf's dtype.
  """
  actual, expected, params = (np.asarray(x) for x in (actual, expected,
                                                      params))
  scale = np.maximum(np.maximum(np.abs(actual), np.abs(expected)),
                     np.abs(params))
  diff = np.abs(actual.astype(np.float64) - expected.astype(np.float64))
  same = (actual == expected) | (np.isnan(actual) & np.isnan(expected))
  with np.errstate(invalid='ignore'):
    ratio = np.where(same, 0.0,
                     diff / np.spacing(scale.astype(actual.dtype)))
  return float(np.max(ratio, initial=0.0))


class InjectedHyperparamsTest(parameterized.TestCase):
  """The hyperparameters listed in the state are upstream's."""

  def test_every_alias_is_listed(self):
    listed = {n for n in _UPSTREAM_HYPERPARAMS if '.' not in n}
    self.assertEqual(set(_FACTORIES), listed)

  @parameterized.named_parameters(
      *[(name.replace('.', '_'), name) for name in _UPSTREAM_HYPERPARAMS])
  def test_upstream_hyperparams(self, name):
    factory = _layout_factory(name)
    floats, ints = _UPSTREAM_HYPERPARAMS[name]
    tx = _inject.inject_hyperparams(factory)(**_layout_kwargs(name))
    state = jax.jit(tx.init)(_params())
    self.assertIsInstance(state, _inject.InjectStatefulHyperparamsState)
    self.assertEqual(state.hyperparams_states, {})
    expected = {k: (_F, ()) for k in floats}
    expected.update({k: (_I, ()) for k in ints})
    self.assertEqual(
        {k: (str(v.dtype), v.shape) for k, v in state.hyperparams.items()},
        expected)

  def test_adabelief_weight_decay_is_injected_when_given_issue_1634(self):
    factory = _FACTORIES['adabelief']
    tx = _inject.inject_hyperparams(factory)(learning_rate=1e-2,
                                             weight_decay=0.1)
    state = jax.jit(tx.init)(_params())
    self.assertEqual(sorted(state.hyperparams),
                     sorted(_ADAM + ('weight_decay',)))
    self.assertEqual(state.hyperparams['weight_decay'].dtype, jnp.float32)
    np.testing.assert_allclose(state.hyperparams['weight_decay'], 0.1)


class InjectEveryAliasTest(parameterized.TestCase):
  """Every alias gives the updates of its injected version (issue 1532)."""

  def test_every_alias_is_covered(self):
    self.assertGreater(len(_FACTORIES), 20)
    for name in ('adam', 'adamw', 'sgd', 'rmsprop', 'lion', 'nadam', 'lamb',
                 'adafactor'):
      self.assertIn(name, _FACTORIES)

  @parameterized.named_parameters(*_CASES)
  def test_eager_bit_identical_issue_1532(self, name, kwargs):
    factory = _FACTORIES[_CASE_ALIAS[name]]
    plain = factory(**kwargs)
    injected = _inject.inject_hyperparams(factory)(**kwargs)
    test_utils.assert_trees_all_equal(
        _trajectory(functools.partial(_step, injected), injected,
                    _STEPS_EAGER),
        _trajectory(functools.partial(_step, plain), plain, _STEPS_EAGER))

  @parameterized.named_parameters(*_CASES)
  def test_jit_within_ulps_issue_1532(self, name, kwargs):
    factory = _FACTORIES[_CASE_ALIAS[name]]
    plain = factory(**kwargs)
    injected = _inject.inject_hyperparams(factory)(**kwargs)
    plain_step = jax.jit(functools.partial(_step, plain))
    injected_step = jax.jit(functools.partial(_step, injected))
    params, plain_state = _params(), plain.init(_params())
    injected_state = injected.init(_params())
    for t in range(_STEPS_JIT):
      # Each step from the plain optimizer's state, so that differences do
      # not compound.
      injected_state = injected_state._replace(inner_state=plain_state)
      _, injected_state, actual = injected_step(params, injected_state)
      new_params, plain_state, expected = plain_step(params, plain_state)
      for key in expected:
        self.assertEqual(actual[key].dtype, expected[key].dtype)
        ulps = (_ulps(actual[key], expected[key], params[key])
                / _CANCELLATION.get(name, 1.0))
        self.assertLessEqual(ulps, _ULPS, msg=f'step {t}, leaf {key}')
      params = new_params


if __name__ == '__main__':
  absltest.main()
