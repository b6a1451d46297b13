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
"""Every registry optimizer inside every wrapper: the composition suite.

The machinery of ``composition_test.py`` (which says what a combination is
checked for), shared with ``composition_sharding_test.py``, the
multi-process worker and ``optax/conftest.py``'s summary line: the wrappers
of :data:`WRAPPERS`, the combinations each lane runs, the problem (a
quadratic bowl over a matrix and a vector leaf), the jitted step, and
:func:`run_combination`, which runs one combination and checks it.

Combinations that are meaningless are listed in :data:`MEANINGLESS` with
the reason (``registry.meaningless_reason``). The default lane runs each
optimizer alone with float32 and bfloat16 params, mixed params through the
wrappers that combine dtypes and float32 params through the others but
``masked_fn`` and ``named_chain``; ``OPTAX_TEST_FULL=1`` runs every dtype
through every wrapper.
"""

import contextlib
import dataclasses
import functools
import io
import math
import os
from typing import Any, Callable

import jax
import jax.numpy as jnp
import numpy as np

from optax._src import base
from optax._src import lookahead as lookahead_lib
from optax._src.testing import registry
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
      if registry.meaningless_reason(entry, wrapper) is not None:
        continue
      for dtype in _dtype_lanes(wrapper, full):
        yield entry.name, wrapper, dtype


MEANINGLESS = {
    (entry.name, wrapper): registry.meaningless_reason(entry, wrapper)
    for entry in registry.ENTRIES for wrapper in WRAPPERS
    if registry.meaningless_reason(entry, wrapper) is not None
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


def apply_updates(params, updates):
  """``params + updates``, in each param's dtype."""
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
    params = apply_updates(params, updates)
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
    params = apply_updates(params, updates)
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


def summary() -> str:
  """A line saying how many combinations the suite checks."""
  return (f'composition suite: {len(COMBINATIONS)} combinations checked '
          f'({len(registry.ENTRIES)} optimizers x {len(WRAPPERS)} wrappers x '
          f'dtypes{", full lane" if FULL else ""}); {len(MEANINGLESS)} '
          'meaningless optimizer/wrapper pairs listed with their reason')
