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
step. This suite runs every entry of ``composition_registry`` alone and inside
every wrapper, with float32, bfloat16 and mixed float32/bfloat16 params, and
checks for each combination that

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

Combinations that are meaningless are listed in ``MEANINGLESS`` with the
reason; those listed because they cannot run are run once and must fail.
The default lane runs each optimizer alone with float32 and bfloat16 params,
mixed params through the wrappers that combine dtypes and float32 params
through the others but ``masked_fn`` and ``named_chain``;
``OPTAX_TEST_FULL=1`` runs every dtype through every wrapper.
"""

import contextlib
import dataclasses
import functools
import gc
import io
import math
import os
import pathlib
import tomllib
from typing import Any, Callable, Optional
from unittest import mock

from absl.testing import absltest
from absl.testing import parameterized
import jax
import jax.numpy as jnp
import numpy as np
import pytest

from optax._src import base
from optax._src import composition_registry as registry
from optax._src import lookahead as lookahead_lib
from optax._src import test_utils
from optax._src import upstream_api
from optax.schedules import _inject
from optax.transforms import _accumulation
from optax.transforms import _clipping
from optax.transforms import _combining
from optax.transforms import _conditionality
from optax.transforms import _constraining
from optax.transforms import _layouts
from optax.transforms import _masking

FULL = os.environ.get('OPTAX_TEST_FULL', '') not in ('', '0')
NUM_STEPS = 6  # Two emissions of MultiSteps with k=3.
NAN_STEP = 1  # Step at which apply_if_finite sees a NaN gradient.
DTYPES = {
    'float32': (jnp.float32, jnp.float32),
    'bfloat16': (jnp.bfloat16, jnp.bfloat16),
    'mixed': (jnp.float32, jnp.bfloat16),
}


class Meaningless(Exception):
  """Raised when a combination has no meaning; carries the reason."""


def _sgd():
  return registry.BY_NAME['sgd'].build()


@dataclasses.dataclass(frozen=True)
class Wrapper:
  """How a wrapper builds its transformation around an entry's optimizer."""

  name: str
  build: Callable[[registry.Entry], base.GradientTransformation]
  inject_nan: bool = False
  lookahead_params: bool = False


def _alone(entry):
  return entry.build()


def _multisteps(entry):
  return _accumulation.MultiSteps(
      entry.build(), every_k_schedule=3).gradient_transformation()


def _inject_hyperparams(entry):
  return _inject.inject_hyperparams(entry.factory())(**entry.build_kwargs())


_MASK = {'w': True, 'b': False}


def _masked_tree(entry):
  return _masking.masked(entry.build(), dict(_MASK))


def _masked_fn(entry):
  return _masking.masked(entry.build(), lambda params: dict(_MASK))


def _partition(entry):
  return _combining.partition(
      {'main': entry.build(), 'other': _sgd()},
      {'w': 'main', 'b': 'other'})


def _apply_if_finite(entry):
  return _conditionality.apply_if_finite(entry.build(), 3)


def _chain_zero_nans_clip(entry):
  return _combining.chain(
      _constraining.zero_nans(), _clipping.clip_by_global_norm(1.0),
      entry.build())


def _lookahead(entry):
  return lookahead_lib.lookahead(entry.build(), sync_period=2,
                                 slow_step_size=0.5)


def _flatten(entry):
  return _layouts.flatten(entry.build())


def _named_chain(entry):
  return _combining.named_chain(
      ('clip', _clipping.clip_by_global_norm(1.0)), ('opt', entry.build()))


WRAPPERS = {
    w.name: w for w in (
        Wrapper('alone', _alone),
        Wrapper('multisteps', _multisteps),
        Wrapper('inject_hyperparams', _inject_hyperparams),
        Wrapper('masked_tree', _masked_tree),
        Wrapper('masked_fn', _masked_fn),
        Wrapper('partition', _partition),
        Wrapper('apply_if_finite', _apply_if_finite, inject_nan=True),
        Wrapper('chain_zero_nans_clip', _chain_zero_nans_clip,
                inject_nan=True),
        Wrapper('lookahead', _lookahead, lookahead_params=True),
        Wrapper('flatten', _flatten),
        Wrapper('named_chain', _named_chain),
    )
}

_SEES_PART_OF_PARAMS = ('masked_tree', 'masked_fn', 'partition', 'flatten')


_NOTHING_TO_INJECT = (
    'the factory takes transformations (or nothing), not numeric '
    'hyperparameters, so there is nothing to inject')
_PER_EXAMPLE_PART = (
    'per-example gradients carry a batch axis that a mask, a partition or a '
    'flattening cannot line up with the params')
_MATRICES_ONLY = ('the optimizer only transforms matrices, and flatten hands '
                  'it one flat vector')
_PER_EXAMPLE_MULTISTEPS = (
    'per-example gradients of different mini-batches cannot be averaged '
    'example by example; accumulate the privatized gradients instead '
    '(MultiSteps raises a clear error)')
_LOSS_ON_PART = (
    'the optimizer evaluates the loss function on the params it is given, '
    'and this wrapper gives it only part of them (or a flat vector)')

# Reasons that say the combination cannot run: RegistryTest runs each pair
# listed with one of them and expects it to fail, so that a pair that starts
# working leaves the list and enters the suite. The other reasons are about
# meaning (nothing to inject; the loss of part of the params is another
# objective unless the loss is separable), not failures.
_FAILS_WHEN_RUN = (_PER_EXAMPLE_PART, _MATRICES_ONLY, _PER_EXAMPLE_MULTISTEPS)


def meaningless_reason(entry: registry.Entry, wrapper: str) -> Optional[str]:
  """Returns why a combination is meaningless, or None when it is not."""
  if wrapper == 'inject_hyperparams' and not entry.injectable:
    return _NOTHING_TO_INJECT
  if entry.per_example_grads and wrapper in _SEES_PART_OF_PARAMS:
    return _PER_EXAMPLE_PART
  if entry.matrices_only and wrapper == 'flatten':
    return _MATRICES_ONLY
  if entry.per_example_grads and wrapper == 'multisteps':
    return _PER_EXAMPLE_MULTISTEPS
  needs_full_params = {registry.VALUE_FN, registry.OBJ_FN} & entry.extra_args
  if needs_full_params and wrapper in _SEES_PART_OF_PARAMS:
    return _LOSS_ON_PART
  return None


# The default lane (sized for CI's budget; OPTAX_TEST_FULL=1 runs every
# dtype through every wrapper): each optimizer alone with float32 and with
# bfloat16 params; mixed float32/bfloat16 params, which hold a float32 leaf
# and a bfloat16 leaf, through the wrappers that combine dtypes
# (accumulation, injection, flattening); float32 through the others. Two
# wrappers run in the full lane only, because the inner optimizer sees
# exactly what another default wrapper gives it: masked_fn builds the mask
# of masked_tree from a function, and named_chain is the clip-then-optimizer
# chain of chain_zero_nans_clip with names.
_DEFAULT_LANES = {
    'alone': ('float32', 'bfloat16'),
    'multisteps': ('mixed',),
    'inject_hyperparams': ('mixed',),
    'flatten': ('mixed',),
    'masked_fn': (),
    'named_chain': (),
}


def _dtype_lanes(wrapper: str, full: bool) -> tuple[str, ...]:
  if full:
    return tuple(DTYPES)
  return _DEFAULT_LANES.get(wrapper, ('float32',))


def combinations(full: bool = FULL):
  """Yields (entry name, wrapper name, dtype name) of every combination."""
  for entry in registry.ENTRIES:
    for wrapper in WRAPPERS:
      if meaningless_reason(entry, wrapper) is not None:
        continue
      for dtype in _dtype_lanes(wrapper, full):
        yield entry.name, wrapper, dtype


MEANINGLESS = {
    (entry.name, wrapper): meaningless_reason(entry, wrapper)
    for entry in registry.ENTRIES for wrapper in WRAPPERS
    if meaningless_reason(entry, wrapper) is not None
}
COMBINATIONS = tuple(combinations())
# The default lane, and what OPTAX_TEST_FULL=1 adds to it (marked slow).
DEFAULT_COMBINATIONS = tuple(combinations(full=False))
FULL_LANE_ONLY = tuple(sorted(set(COMBINATIONS) - set(DEFAULT_COMBINATIONS)))


# The problem: a quadratic bowl over a matrix and a vector leaf.
_TARGET = 0.3


def make_params(dtype_name: str, matrices_only: bool = False):
  """A (4, 3) matrix and a (3,) vector (or (3, 2) matrix), in the lane's
  dtypes."""
  w_dtype, b_dtype = DTYPES[dtype_name]
  b_shape = (3, 2) if matrices_only else (3,)
  return {
      'w': jnp.linspace(-1.0, 1.0, 12).reshape(4, 3).astype(w_dtype),
      'b': jnp.linspace(0.5, -0.5, math.prod(b_shape)).reshape(
          b_shape).astype(b_dtype),
  }


def loss_fn(params):
  """A quadratic bowl centred on _TARGET, computed in float32."""
  leaves = jax.tree.leaves(params)
  return sum(0.5 * jnp.sum(jnp.square(p.astype(jnp.float32) - _TARGET))
             for p in leaves)


def _signature(tree):
  """Structure, shapes, dtypes and weak types of a tree."""
  leaves, treedef = jax.tree.flatten(tree)
  return treedef, [(jnp.shape(x), jnp.result_type(x),
                    getattr(jax.typeof(x), 'weak_type', False))
                   for x in leaves]


def extra_args_for(entry: registry.Entry, value: Any, grads: Any,
                   value_fn: Callable[..., Any] = loss_fn) -> dict[str, Any]:
  """The keyword extra arguments ``entry``'s optimizer needs in ``update``.

  Args:
    entry: the registry entry.
    value: the loss at the params.
    grads: the gradients at the params.
    value_fn: the loss function (given as ``value_fn`` and as ``obj_fn``).

  Returns:
    A dict holding the extra arguments the entry lists.
  """
  extra = {}
  if registry.VALUE in entry.extra_args:
    extra['value'] = value
  if registry.GRAD in entry.extra_args:
    extra['grad'] = grads
  if registry.VALUE_FN in entry.extra_args:
    extra['value_fn'] = value_fn
  if registry.OBJ_FN in entry.extra_args:
    extra['obj_fn'] = value_fn
  return extra


def make_step(tx, entry: registry.Entry, wrapper: Wrapper):
  """Returns (jitted step, list that grows by one item per trace)."""
  traces = []

  def step(params, state, inject_nan):
    traces.append(None)
    fast = params.fast if wrapper.lookahead_params else params
    value, grads = jax.value_and_grad(loss_fn)(fast)
    if wrapper.inject_nan:
      grads = jax.tree.map(
          lambda g: jnp.where(inject_nan, jnp.full_like(g, jnp.nan), g),
          grads)
    if entry.per_example_grads:
      grads = jax.tree.map(lambda g: jnp.stack([g, 0.5 * g]), grads)
    extra = extra_args_for(entry, value, grads)
    updates, state = tx.update(grads, state, params, **extra)
    return updates, state

  return jax.jit(step), traces


def build_inside_jit(make: Callable[[], Any]):
  """Builds a transformation inside a jit trace and returns it."""
  box = []

  def trace(x):
    box.append(make())
    return x

  # Tracing is enough (and cheaper than compiling): every array op inside
  # the trace makes a tracer. The argument is abstract: an eager array made
  # under jax.checking_leaks() would be compiled afresh on every call.
  jax.make_jaxpr(trace)(jax.ShapeDtypeStruct((), jnp.float32))
  return box[0]


def _apply(params, updates):
  return jax.tree.map(lambda p, u: (p + u).astype(p.dtype), params, updates)


def _to_bytes(tree) -> bytes:
  leaves = jax.tree.leaves(tree)
  arrays = {}
  for i, leaf in enumerate(leaves):
    if jnp.issubdtype(jnp.result_type(leaf), jax.dtypes.prng_key):
      leaf = jax.random.key_data(leaf)
    # Raw bytes: numpy has no portable bfloat16 in .npz files.
    arrays[f'leaf{i}'] = np.ascontiguousarray(np.asarray(leaf)).reshape(
        -1).view(np.uint8)
  buffer = io.BytesIO()
  np.savez(buffer, **arrays)
  return buffer.getvalue()


def _from_bytes(template, data: bytes):
  leaves, treedef = jax.tree.flatten(template)
  loaded = np.load(io.BytesIO(data))
  restored = []
  for i, leaf in enumerate(leaves):
    raw = loaded[f'leaf{i}']
    if jnp.issubdtype(jnp.result_type(leaf), jax.dtypes.prng_key):
      data = jax.random.key_data(leaf)
      value = raw.view(data.dtype).reshape(data.shape)
      restored.append(jax.random.wrap_key_data(
          value, impl=jax.random.key_impl(leaf)))
    else:
      dtype = np.dtype(jnp.result_type(leaf))
      value = raw.view(dtype).reshape(jnp.shape(leaf))
      restored.append(jnp.asarray(value, dtype=dtype))
  return jax.tree.unflatten(treedef, restored)


def _assert_same_signature(test, expected, got, what):
  exp_def, exp_leaves = expected
  got_def, got_leaves = got
  test.assertEqual(exp_def, got_def, f'{what}: state structure changed')
  test.assertEqual(exp_leaves, got_leaves,
                   f'{what}: state shapes, dtypes or weak types changed')


def _assert_updates_like_params(test, updates, params, what):
  params_leaves, params_def = jax.tree.flatten_with_path(params)
  updates_leaves = jax.tree.leaves(updates)
  test.assertEqual(jax.tree.structure(updates), params_def, what)
  for (path, p), u in zip(params_leaves, updates_leaves):
    where = f'{what} at {jax.tree_util.keystr(path)}'
    test.assertEqual(u.dtype, p.dtype, f'{where}: update dtype')
    test.assertEqual(u.shape, p.shape, f'{where}: update shape')
    test.assertTrue(bool(jnp.all(jnp.isfinite(u.astype(jnp.float32)))),
                    f'{where}: update not finite')


def run_combination(test, entry_name: str, wrapper_name: str,
                    dtype_name: str) -> None:
  """Runs one combination and checks every property of the guarantee."""
  entry = registry.BY_NAME[entry_name]
  wrapper = WRAPPERS[wrapper_name]
  what = f'{entry_name} in {wrapper_name} with {dtype_name} params'
  params = make_params(dtype_name, entry.matrices_only)
  if wrapper.lookahead_params:
    params = lookahead_lib.LookaheadParams.init_synced(params)
  with jax.checking_leaks():
    # Built inside a jit trace: any array made at construction would be a
    # tracer, and using it below would raise. Then init is traced with the
    # leak checker on, and so is the step at its first call below (tracing
    # is where tracers can escape; under the checker every jitted call would
    # compile again, so the later steps run without it and reuse the first
    # call's executable).
    tx = build_inside_jit(functools.partial(wrapper.build, entry))
    jax.make_jaxpr(tx.init)(params)
  state = tx.init(params)
  _assert_donatable(test, state, what)
  expected = _signature(state)
  for path, leaf in jax.tree.leaves_with_path(state):
    test.assertFalse(
        getattr(jax.typeof(leaf), 'weak_type', False),
        f'{what}: state leaf {jax.tree_util.keystr(path)} is weakly typed,'
        ' so a state restored from a checkpoint would retrace the step')
  step, traces = make_step(tx, entry, wrapper)
  saved = None
  history = []
  for i in range(NUM_STEPS):
    with jax.checking_leaks() if i == 0 else contextlib.nullcontext():
      updates, state = step(params, state, jnp.asarray(i == NAN_STEP))
    _assert_same_signature(test, expected, _signature(state),
                           f'{what}, step {i}')
    _assert_updates_like_params(test, updates, params, f'{what}, step {i}')
    params = _apply(params, updates)
    if i == NUM_STEPS // 2 - 1:
      saved = (params, _to_bytes(state))
    elif i >= NUM_STEPS // 2:
      history.append((updates, state))
  test.assertLen(traces, 1, f'{what}: the jitted step was traced again')
  # Resume from the serialized state: identical results.
  params, data = saved
  state = _from_bytes(state, data)
  for i, (want_updates, want_state) in enumerate(history):
    updates, state = step(params, state,
                          jnp.asarray(i + NUM_STEPS // 2 == NAN_STEP))
    _assert_trees_identical(test, want_updates, updates,
                            f'{what}: updates after restoring')
    _assert_trees_identical(test, want_state, state,
                            f'{what}: state after restoring')
    params = _apply(params, updates)
  test.assertLen(traces, 1, f'{what}: restoring the state retraced')


def _assert_donatable(test, state, what):
  """Every state leaf owns its buffer, so the state can be donated to jit.

  A buffer shared by two leaves (one array object placed twice in the
  state) makes ``jax.jit(step, donate_argnums=...)`` fail with "Attempt to
  donate the same buffer twice".
  """
  owners = {}
  for path, leaf in jax.tree.leaves_with_path(state):
    if not isinstance(leaf, jax.Array) or jnp.issubdtype(
        leaf.dtype, jax.dtypes.prng_key):
      continue
    pointer = leaf.unsafe_buffer_pointer()
    where = jax.tree_util.keystr(path)
    test.assertNotIn(
        pointer, owners,
        f'{what}: state leaves {owners.get(pointer)} and {where} share one'
        ' buffer, so the state cannot be donated')
    owners[pointer] = where


def _assert_trees_identical(test, a, b, what):
  a_leaves = jax.tree.leaves(a)
  b_leaves = jax.tree.leaves(b)
  test.assertEqual(len(a_leaves), len(b_leaves), what)
  for x, y in zip(a_leaves, b_leaves):
    if jnp.issubdtype(jnp.result_type(x), jax.dtypes.prng_key):
      x, y = jax.random.key_data(x), jax.random.key_data(y)
    np.testing.assert_array_equal(np.asarray(x), np.asarray(y), err_msg=what)


def _test_name(combination):
  return '_'.join(combination).replace('.', '_')


class CompositionTest(parameterized.TestCase):

  @parameterized.named_parameters(
      (_test_name(c), *c) for c in DEFAULT_COMBINATIONS)
  def test_combination(self, entry_name, wrapper_name, dtype_name):
    run_combination(self, entry_name, wrapper_name, dtype_name)


if FULL_LANE_ONLY:

  @pytest.mark.slow
  class FullLaneCompositionTest(parameterized.TestCase):
    """The dtypes that only OPTAX_TEST_FULL=1 runs through each wrapper."""

    @parameterized.named_parameters(
        (_test_name(c), *c) for c in FULL_LANE_ONLY)
    def test_combination(self, entry_name, wrapper_name, dtype_name):
      run_combination(self, entry_name, wrapper_name, dtype_name)


@pytest.mark.slow
class LiveBuffersTest(parameterized.TestCase):
  """Live device buffers stay flat over a long jitted loop."""

  @parameterized.named_parameters(
      (_test_name((e.name, w)), e.name, w)
      for e in registry.ENTRIES for w in ('alone', 'multisteps')
      if meaningless_reason(e, w) is None)
  def test_live_buffers_do_not_grow(self, entry_name, wrapper_name):
    entry = registry.BY_NAME[entry_name]
    wrapper = WRAPPERS[wrapper_name]
    tx = wrapper.build(entry)
    params = make_params('float32', entry.matrices_only)
    state = tx.init(params)
    step, _ = make_step(tx, entry, wrapper)
    no_nan = jnp.asarray(False)
    counts = {}
    for i in range(1, 201):
      updates, state = step(params, state, no_nan)
      params = _apply(params, updates)
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
          run_combination(self, 'faulty', 'alone', 'float32')
    finally:
      gc.unfreeze()


def _configured_upstream_version() -> Optional[str]:
  """The upstream release the lanes compare against, where it can be known.

  ``OPTAX_UPSTREAM_VERSION`` (set by test.sh and the workflow), else
  ``[tool.optax-fork]`` of the source checkout this module lies in; None
  for an installed wheel run without the variable.
  """
  version = os.environ.get('OPTAX_UPSTREAM_VERSION')
  if version:
    return version
  pyproject = pathlib.Path(__file__).resolve().parents[2] / 'pyproject.toml'
  if not pyproject.is_file():
    return None
  with open(pyproject, 'rb') as f:
    config = tomllib.load(f)
  if config.get('project', {}).get('name') != 'optax':
    return None
  return config.get('tool', {}).get('optax-fork', {}).get('upstream')


class RegistryTest(absltest.TestCase):

  def test_every_public_optimizer_is_registered(self):
    public = registry.importable_optimizer_names()
    public |= registry.public_optimizer_names()
    # Both sources are populated: a silent empty set would check nothing.
    self.assertContainsSubset(
        {'adam', 'lbfgs', 'scale_by_adam', 'contrib.muon'}, public)
    missing = public - set(registry.BY_NAME) - set(registry.NOT_OPTIMIZERS)
    self.assertEmpty(sorted(missing),
                     'public optimizers missing from composition_registry')

  def test_upstream_api_is_of_the_configured_release(self):
    # optax/_src/upstream_api.py must describe the upstream release the
    # lanes compare against ([tool.optax-fork] in pyproject.toml).
    configured = _configured_upstream_version()
    if configured is None:
      self.skipTest('no upstream release configured: set '
                    'OPTAX_UPSTREAM_VERSION (test.sh and the workflow do) or '
                    'run from a source checkout')
    self.assertEqual(
        upstream_api.VERSION, configured,
        'optax/_src/upstream_api.py is for another upstream release: '
        'regenerate it with tools/upstream_api.py under optax=='
        f'{configured}')

  def test_upstream_api_matches_upstream_namespace(self):
    # The committed listing against upstream's own namespace, read by the
    # interpreter of test.sh's (and the workflow's) upstream virtualenv.
    upstream_python = os.environ.get('OPTAX_UPSTREAM_PYTHON')
    if not upstream_python:
      self.skipTest('OPTAX_UPSTREAM_PYTHON is not set (test.sh and the '
                    'workflow set it to a Python with upstream optax)')
    version, functions = registry.namespace_of_interpreter(upstream_python)
    self.assertEqual(version, upstream_api.VERSION,
                     f'{upstream_python} has optax {version}')
    for namespace in ('optax', 'optax.contrib'):
      with self.subTest(namespace):
        self.assertEqual(
            functions[namespace], upstream_api.FUNCTIONS[namespace],
            'optax/_src/upstream_api.py differs from upstream: regenerate '
            'it with tools/upstream_api.py')
    self.assertEqual(registry.public_optimizer_names(functions),
                     registry.public_optimizer_names())

  def test_every_entry_builds_without_arrays(self):
    for entry in registry.ENTRIES:
      with self.subTest(entry.name):
        _, new = test_utils.arrays_created_by(entry.build)
        self.assertEmpty(new, f'{entry.name}: building created arrays')

  def test_meaningless_pairs_that_cannot_run_fail(self):
    # A pair listed because it cannot run must really fail (a clear error or
    # one of the suite's checks); one that runs belongs in the suite.
    pairs = [pair for pair, reason in MEANINGLESS.items()
             if reason in _FAILS_WHEN_RUN]
    self.assertNotEmpty(pairs)
    for entry_name, wrapper_name in pairs:
      with self.subTest(f'{entry_name} in {wrapper_name}'):
        with self.assertRaises(
            (ValueError, TypeError, IndexError, AssertionError)):
          run_combination(self, entry_name, wrapper_name, 'float32')

  def test_meaningless_list_leaves_most_of_the_suite(self):
    # Every optimizer runs inside at least half of the wrappers and every
    # wrapper holds most optimizers.
    ran = {(e, w) for e, w, _ in combinations(full=True)}
    for entry in registry.ENTRIES:
      n = sum((entry.name, w) in ran for w in WRAPPERS)
      self.assertGreaterEqual(n, len(WRAPPERS) // 2, entry.name)
    for wrapper in WRAPPERS:
      n = sum((e.name, wrapper) in ran for e in registry.ENTRIES)
      self.assertGreaterEqual(n, len(registry.ENTRIES) * 3 // 4, wrapper)


def summary() -> str:
  """A line saying how many combinations the suite checks."""
  return (f'composition suite: {len(COMBINATIONS)} combinations checked '
          f'({len(registry.ENTRIES)} optimizers x {len(WRAPPERS)} wrappers x '
          f'dtypes{", full lane" if FULL else ""}); {len(MEANINGLESS)} '
          'meaningless optimizer/wrapper pairs listed with their reason')


if __name__ == '__main__':
  absltest.main()
