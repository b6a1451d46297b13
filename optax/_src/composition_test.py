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
"""The composition guarantee, checked for every optimizer inside every wrapper.

Upstream bugs in MultiSteps, inject_hyperparams, masked, zero_nans,
schedule_free and Muon share one shape: two pieces that each work alone break
when composed, because a state leaf changes dtype, a branch returns another
type, an array is created when the optimizer is built, or a buffer survives a
step. This suite runs every entry of ``testing/registry.py`` alone and inside
every wrapper of ``testing/composition.py``, with float32, bfloat16 and mixed
float32/bfloat16 params, and checks for each combination that

* it runs jitted for two full MultiSteps cycles (six steps);
* the state's structure, shapes, dtypes and weak types never change and the
  jitted step is traced exactly once;
* updates come back with each param's dtype and shape, and are finite;
* the optimizer can be built inside a ``jax.jit`` trace and used outside it,
  and its ``init`` and a whole step trace under ``jax.checking_leaks()``
  (``SuiteCatchesDefectsTest`` shows both checks failing on faulty
  optimizers);
* every state leaf owns its buffer (the state can be donated to ``jit``);
* the state round-trips through ``numpy.savez`` and training resumes with
  bit-identical results.

A lighter test checks that ``len(jax.live_arrays())`` does not grow between
step 20 and step 200 for each entry alone and inside MultiSteps.

Combinations that are meaningless are listed in ``composition.MEANINGLESS``
with the reason; those listed because they cannot run are run once and must
fail. The default lane runs each optimizer alone with float32 and bfloat16
params, mixed params through the wrappers that combine dtypes and float32
params through the others but ``masked_fn`` and ``named_chain``;
``OPTAX_TEST_FULL=1`` runs every dtype through every wrapper.
"""

import gc
import json
import os
import subprocess
from typing import Optional
from unittest import mock

from absl.testing import absltest
from absl.testing import parameterized
import jax
import jax.numpy as jnp
import pytest

from optax._src import base
from optax._src.testing import composition
from optax._src.testing import probes
from optax._src.testing import registry
from optax._src.testing import upstream_api


def _test_name(combination):
  return '_'.join(combination).replace('.', '_')


class CompositionTest(parameterized.TestCase):

  @parameterized.named_parameters(
      (_test_name(c), *c) for c in composition.DEFAULT_COMBINATIONS)
  def test_combination(self, entry_name, wrapper_name, dtype_name):
    composition.run_combination(self, entry_name, wrapper_name, dtype_name)


if composition.FULL_LANE_ONLY:

  @pytest.mark.slow
  class FullLaneCompositionTest(parameterized.TestCase):
    """The dtypes that only OPTAX_TEST_FULL=1 runs through each wrapper."""

    @parameterized.named_parameters(
        (_test_name(c), *c) for c in composition.FULL_LANE_ONLY)
    def test_combination(self, entry_name, wrapper_name, dtype_name):
      composition.run_combination(self, entry_name, wrapper_name, dtype_name)


@pytest.mark.slow
class LiveBuffersTest(parameterized.TestCase):
  """Live device buffers stay flat over a long jitted loop."""

  @parameterized.named_parameters(
      (_test_name((e.name, w)), e.name, w)
      for e in registry.ENTRIES for w in ('alone', 'multisteps')
      if registry.meaningless_reason(e, w) is None)
  def test_live_buffers_do_not_grow(self, entry_name, wrapper_name):
    entry = registry.BY_NAME[entry_name]
    wrapper = composition.WRAPPERS[wrapper_name]
    tx = wrapper.build(entry)
    params = composition.make_params('float32', entry.matrices_only)
    state = tx.init(params)
    step, _ = composition.make_step(tx, entry, wrapper)
    no_nan = jnp.asarray(False)
    counts = {}
    for i in range(1, 201):
      updates, state = step(params, state, no_nan)
      params = composition.apply_updates(params, updates)
      if i in (20, 200):
        jax.block_until_ready((params, state))
        del updates
        counts[i] = len(jax.live_arrays())
    self.assertLessEqual(counts[200], counts[20],
                         f'{entry_name} in {wrapper_name}: live arrays grew')


_LEAKED = []


def _array_at_build(learning_rate: float) -> base.GradientTransformation:
  """A faulty optimizer: its build creates an array (a tracer under jit)."""
  factor = jnp.asarray(-learning_rate)
  return base.GradientTransformation(
      base.init_empty_state,
      lambda u, s, p=None: (jax.tree.map(lambda x: factor * x, u), s))


def _tracer_escapes_update(learning_rate: float) -> base.GradientTransformation:
  """A faulty optimizer: its update keeps a reference to a traced value."""

  def update(updates, state, params=None):
    del params
    _LEAKED.append(updates)
    return jax.tree.map(lambda x: -learning_rate * x, updates), state

  return base.GradientTransformation(base.init_empty_state, update)


class SuiteCatchesDefectsTest(parameterized.TestCase):
  """The suite's checks fail on optimizers with the defects they target."""

  @parameterized.parameters('_array_at_build', '_tracer_escapes_update')
  def test_tracer_leaks_are_caught(self, attr):
    entry = registry.Entry(name='faulty', module=__name__, attr=attr,
                           kwargs={'learning_rate': 0.1}, injectable=False)
    # jax explains a leak by walking gc.get_referrers from the tracer, a scan
    # of the whole heap per link: tens of seconds in a worker that has run
    # hundreds of tests. Frozen objects are not scanned, so the walk sees
    # only what this test creates (a fresh list holds the leaked values and
    # ends the walk); the leak is found all the same.
    gc.freeze()
    try:
      with mock.patch.dict(registry.BY_NAME, {'faulty': entry}), \
          mock.patch(f'{__name__}._LEAKED', []):
        with self.assertRaisesRegex(Exception, '[Tt]racer'):
          composition.run_combination(self, 'faulty', 'alone', 'float32')
    finally:
      gc.unfreeze()


def _configured_upstream_version() -> Optional[str]:
  """The upstream release the lanes compare against, where it is given.

  ``OPTAX_UPSTREAM_VERSION`` (set by test.sh and the workflow); None
  without it. The tests run from an installed wheel and read no
  ``pyproject.toml``: from a source checkout, tools/fork_config_test.py
  checks the manifest against ``[tool.optax-fork]``.
  """
  return os.environ.get('OPTAX_UPSTREAM_VERSION') or None


# Run by another interpreter (one with upstream's optax installed): prints
# its version and the defining module of every public function of ``optax``
# and ``optax.contrib``, as tools/upstream_api.py records them.
_LIST_NAMESPACES = """
import importlib, json
import optax
out = {'version': optax.__version__, 'functions': {}}
for ns in ('optax', 'optax.contrib'):
  mod = importlib.import_module(ns)
  out['functions'][ns] = {
      name: getattr(getattr(mod, name), '__module__', '') or ''
      for name in sorted(dir(mod))
      if not name.startswith('_') and callable(getattr(mod, name))
      and not isinstance(getattr(mod, name), type)}
print(json.dumps(out))
"""


def _namespace_of_interpreter(
    python: str) -> tuple[str, dict[str, dict[str, str]]]:
  """The optax release and public functions of another interpreter.

  Args:
    python: path of a Python interpreter with upstream Optax installed
      (``OPTAX_UPSTREAM_PYTHON``, test.sh's upstream virtualenv).

  Returns:
    ``(optax.__version__, {namespace: {public function: defining module}})``
    for ``optax`` and ``optax.contrib``, the format of
    ``optax/_src/testing/upstream_api.py``.
  """
  # Outside any checkout (cwd) and without PYTHONPATH, which may point at
  # the fork: the interpreter must import its own optax.
  env = {k: v for k, v in os.environ.items() if k != 'PYTHONPATH'}
  out = subprocess.run(
      [python, '-c', _LIST_NAMESPACES], check=True, capture_output=True,
      text=True, cwd='/', env={**env, 'JAX_PLATFORMS': 'cpu'},
  ).stdout
  listing = json.loads(out)
  return listing['version'], listing['functions']


class RegistryTest(absltest.TestCase):

  def test_wrappers_named_by_the_registry_are_built(self):
    # registry.meaningless_reason names wrappers by the keys of
    # composition.WRAPPERS; a misspelt name would silently match nothing.
    self.assertContainsSubset(registry.SEES_PART_OF_PARAMS,
                              composition.WRAPPERS)

  def test_every_public_optimizer_is_registered(self):
    public = registry.importable_optimizer_names()
    public |= registry.public_optimizer_names()
    # Both sources are populated: a silent empty set would check nothing.
    self.assertContainsSubset(
        {'adam', 'lbfgs', 'scale_by_adam', 'contrib.muon'}, public)
    missing = public - set(registry.BY_NAME) - set(registry.NOT_OPTIMIZERS)
    self.assertEmpty(
        sorted(missing),
        'public optimizers missing from optax/_src/testing/registry.py')

  def test_upstream_api_is_of_the_configured_release(self):
    # optax/_src/testing/upstream_api.py must describe the upstream release
    # the lanes compare against ([tool.optax-fork] in pyproject.toml).
    configured = _configured_upstream_version()
    if configured is None:
      self.skipTest('OPTAX_UPSTREAM_VERSION is not set (test.sh and the '
                    'workflow set it; from a source checkout, '
                    'tools/fork_config_test.py checks the manifest)')
    self.assertEqual(
        upstream_api.VERSION, configured,
        'optax/_src/testing/upstream_api.py is for another upstream release: '
        'regenerate it with python -m tools.upstream_api under optax=='
        f'{configured} (tools/README.md)')

  def test_upstream_api_matches_upstream_namespace(self):
    # The committed listing against upstream's own namespace, read by the
    # interpreter of test.sh's (and the workflow's) upstream virtualenv.
    upstream_python = os.environ.get('OPTAX_UPSTREAM_PYTHON')
    if not upstream_python:
      self.skipTest('OPTAX_UPSTREAM_PYTHON is not set (test.sh and the '
                    'workflow set it to a Python with upstream optax)')
    version, functions = _namespace_of_interpreter(upstream_python)
    self.assertEqual(version, upstream_api.VERSION,
                     f'{upstream_python} has optax {version}')
    for namespace in ('optax', 'optax.contrib'):
      with self.subTest(namespace):
        self.assertEqual(
            functions[namespace], upstream_api.FUNCTIONS[namespace],
            'optax/_src/testing/upstream_api.py differs from upstream: '
            'regenerate it with python -m tools.upstream_api '
            '(tools/README.md)')
    self.assertEqual(registry.public_optimizer_names(functions),
                     registry.public_optimizer_names())

  def test_every_entry_builds_without_arrays(self):
    for entry in registry.ENTRIES:
      with self.subTest(entry.name):
        _, new = probes.arrays_created_by(entry.build)
        self.assertEmpty(new, f'{entry.name}: building created arrays')

  def test_meaningless_pairs_that_cannot_run_fail(self):
    # A pair listed because it cannot run must really fail (a clear error or
    # one of the suite's checks); one that runs belongs in the suite.
    pairs = [pair for pair, reason in composition.MEANINGLESS.items()
             if reason in registry.FAILS_WHEN_RUN]
    self.assertNotEmpty(pairs)
    for entry_name, wrapper_name in pairs:
      with self.subTest(f'{entry_name} in {wrapper_name}'):
        with self.assertRaises(
            (ValueError, TypeError, IndexError, AssertionError)):
          composition.run_combination(
              self, entry_name, wrapper_name, 'float32')

  def test_meaningless_list_leaves_most_of_the_suite(self):
    # Every optimizer runs inside at least half of the wrappers and every
    # wrapper holds most optimizers.
    ran = {(e, w) for e, w, _ in composition.combinations(full=True)}
    for entry in registry.ENTRIES:
      n = sum((entry.name, w) in ran for w in composition.WRAPPERS)
      self.assertGreaterEqual(n, len(composition.WRAPPERS) // 2, entry.name)
    for wrapper in composition.WRAPPERS:
      n = sum((e.name, wrapper) in ran for e in registry.ENTRIES)
      self.assertGreaterEqual(n, len(registry.ENTRIES) * 3 // 4, wrapper)


if __name__ == '__main__':
  absltest.main()
