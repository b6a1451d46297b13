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

Regression test of upstream issue 1532: wrapping an optimizer in
``inject_hyperparams`` must not change its updates. Every public alias of
``optax._src.alias`` is run (discovered at import time, so a new alias is
covered automatically), eagerly and under ``jax.jit``, and the trajectories
must be bit-identical.
"""

import functools
import inspect

from absl.testing import absltest
from absl.testing import parameterized
import jax
import jax.numpy as jnp

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
    'adam_bf16_moment': ('adam', dict(learning_rate=1e-2,
                                      mu_dtype=jnp.bfloat16)),
    'sgd_plain': ('sgd', dict(learning_rate=1e-2)),
    'rmsprop_plain': ('rmsprop', dict(learning_rate=1e-2)),
    'adafactor_defaults': ('adafactor', dict(learning_rate=1e-2)),
}

# Cases whose jitted trajectories are not bit-identical. Eagerly, the plain
# and the injected optimizer run exactly the same operations on the same
# float32 values (the test above). Under jit, ``numerics.as_hyperparameter``
# puts Python-number hyperparameters behind ``lax.optimization_barrier``, so
# XLA cannot fold them as compile-time constants (reassociating products,
# specializing ``pow`` on a constant base), and nearly every alias is bit for
# bit identical to its injected version. For the few below XLA's fusion
# still orders some operations differently, and the results differ by an ulp
# here and there; the test checks every jitted step from the same state to a
# few ulps instead. The list reflects XLA's code generation for the current
# implementations (jax 0.10.2, CPU): a change in a transform can move an
# alias in or out of it.
_JIT_CONSTANT_FOLDING = frozenset({'adagrad', 'adan', 'fromage'})

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


class InjectEveryAliasTest(parameterized.TestCase):
  """Bit-identity of every alias with its injected version (issue 1532)."""

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
  def test_jit_bit_identical_issue_1532(self, name, kwargs):
    factory = _FACTORIES[_CASE_ALIAS[name]]
    plain = factory(**kwargs)
    injected = _inject.inject_hyperparams(factory)(**kwargs)
    plain_step = jax.jit(functools.partial(_step, plain))
    injected_step = jax.jit(functools.partial(_step, injected))
    if name not in _JIT_CONSTANT_FOLDING:
      test_utils.assert_trees_all_equal(
          _trajectory(injected_step, injected, _STEPS_JIT),
          _trajectory(plain_step, plain, _STEPS_JIT))
      return
    # Step by step from the same inner state: rounding-level differences
    # (relative to the size of each leaf, as some updates are differences
    # of nearly equal numbers).
    params, plain_state = _params(), plain.init(_params())
    injected_state = injected.init(_params())
    for _ in range(20):
      injected_state = injected_state._replace(inner_state=plain_state)
      _, _, actual = injected_step(params, injected_state)
      params, plain_state, expected = plain_step(params, plain_state)
      for key in expected:
        scale = float(jnp.max(jnp.abs(expected[key])))
        test_utils.assert_trees_all_close(
            actual[key], expected[key], rtol=2e-6, atol=2e-5 * scale,
            err_msg=key)

if __name__ == '__main__':
  absltest.main()
