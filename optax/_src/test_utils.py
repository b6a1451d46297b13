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
"""Assertions on pytrees for the tests of this library (no chex needed).

Every assertion raises ``AssertionError`` whose message names the key path
(``jax.tree_util.keystr``) of the first offending leaf or node.
"""

from collections.abc import Callable, Iterator, Sequence
import contextlib
import functools
import gc
import inspect
import logging
import re
import threading
from typing import Any, NamedTuple, Optional, Union
import unittest

from absl.testing import parameterized
import jax
import jax.extend
import jax.numpy as jnp
import numpy as np

from optax._src import base
from optax._src import tree_structure
from optax._src import utils


def _to_numpy(x: Any) -> np.ndarray:
  """A NumPy array comparable by ``np.testing`` (bfloat16 -> float32...)."""
  dtype = getattr(x, 'dtype', None)
  if dtype is not None and jax.dtypes.issubdtype(dtype, jax.dtypes.prng_key):
    x = jax.random.key_data(x)
  x = np.asarray(x)
  if x.dtype.kind not in 'biufc':  # bfloat16, float8... are of kind 'V'.
    x = x.astype(np.float32)
  return x


def _is_abstract(x: Any) -> bool:
  """Whether ``x`` describes an array without holding values.

  ``jax.ShapeDtypeStruct`` (from ``jax.eval_shape``) and the abstract values
  of ``jax.typeof`` or ``Array.aval`` (``jax.core.ShapedArray``) are such
  leaves.
  """
  return isinstance(x, (jax.ShapeDtypeStruct, jax.core.AbstractValue))


def _describe_abstract(x: Any) -> str:
  """``ShapedArray(float32[2,3])``-like text naming type, shape and dtype."""
  weak = ', weak_type=True' if getattr(x, 'weak_type', False) else ''
  return (f'{type(x).__name__}(shape={tuple(x.shape)}, dtype={x.dtype}'
          f'{weak})')


def _abstract_difference(a: Any, d: Any) -> Optional[str]:
  """Why two leaves, one of them abstract, differ; ``None`` if they do not.

  An abstract leaf equals only a leaf of the same type that compares equal
  to it (same shape, dtype, weak type and, for ``ShapedArray``, the other
  fields of its ``==``); it never equals a concrete array, whose values it
  cannot describe.
  """
  if not (_is_abstract(a) and _is_abstract(d)):
    return (f'an abstract leaf is compared with a concrete one (actual '
            f'{type(a).__name__}, desired {type(d).__name__}); to compare '
            f'only shapes and dtypes, pass jax.typeof(x) of the concrete '
            f'array')
  if type(a) is not type(d):
    return (f'leaf types differ: {_describe_abstract(a)} (actual) != '
            f'{_describe_abstract(d)} (desired)')
  if a != d:
    return (f'abstract leaves differ: {_describe_abstract(a)} (actual) != '
            f'{_describe_abstract(d)} (desired)')
  return None


def _message(what: str, path: Any, detail: str, err_msg: Optional[str]) -> str:
  where = jax.tree_util.keystr(path) or '<root>'
  text = f'{what}: at {where}: {detail}'
  if err_msg:
    text += f'\n{err_msg}'
  return text


def _assert_same_structure(
    what: str, actual: Any, desired: Any, err_msg: Optional[str] = None
) -> None:
  difference = tree_structure.structure_difference(actual, desired)
  if difference is not None:
    text = (f'{what}: the trees have different structures, {difference}'
            ' (actual != desired)')
    if err_msg:
      text += f'\n{err_msg}'
    raise AssertionError(text)


def _leaves_with_path(tree: Any) -> list[tuple[Any, Any]]:
  return jax.tree_util.tree_leaves_with_path(tree)


def _paired_leaves(
    what: str, actual: Any, desired: Any, err_msg: Optional[str]
) -> list[tuple[Any, Any, Any]]:
  _assert_same_structure(what, actual, desired, err_msg)
  return [(path, a, d) for (path, a), (_, d) in
          zip(_leaves_with_path(actual), _leaves_with_path(desired))]


def assert_trees_all_close(
    actual: Any,
    desired: Any,
    rtol: float = 1e-06,
    atol: float = 0.0,
    err_msg: Optional[str] = None,
) -> None:
  """Asserts two pytrees have the same structure and close leaves.

  Leaves are compared with ``np.testing.assert_allclose`` (same shapes, NaNs
  equal, dtypes not compared; bfloat16 is compared as float32).

  Examples:
    >>> import jax.numpy as jnp
    >>> from optax._src import test_utils
    >>> test_utils.assert_trees_all_close(
    ...     {'a': jnp.array([1.0])}, {'a': jnp.array([1.0 + 1e-7])})

  Args:
    actual: the pytree computed.
    desired: the expected pytree.
    rtol: the relative tolerance.
    atol: the absolute tolerance.
    err_msg: an optional text appended to the failure message.

  Raises:
    AssertionError: naming the key path of the first mismatch.
  """
  what = 'assert_trees_all_close'
  for path, a, d in _paired_leaves(what, actual, desired, err_msg):
    try:
      np.testing.assert_allclose(
          _to_numpy(a), _to_numpy(d), rtol=rtol, atol=atol, equal_nan=True)
    except AssertionError as e:
      raise AssertionError(
          _message(what, path, f'leaves differ:{e}', err_msg)) from None


def assert_trees_all_equal(
    actual: Any, desired: Any, err_msg: Optional[str] = None
) -> None:
  """Asserts two pytrees have the same structure and equal leaves.

  Leaves are compared with ``np.testing.assert_array_equal`` (NaNs equal,
  dtypes not compared). Abstract leaves, ``jax.ShapeDtypeStruct`` or
  ``jax.core.ShapedArray`` (``jax.typeof(x)``, ``x.aval``), are equal when
  they are of the same type and compare equal (shape, dtype, weak type); an
  abstract leaf never equals a concrete array.

  Examples:
    >>> import jax.numpy as jnp
    >>> from optax._src import test_utils
    >>> test_utils.assert_trees_all_equal({'a': jnp.ones(2)}, {'a': [1, 1]})
    Traceback (most recent call last):
    ...
    AssertionError: assert_trees_all_equal: the trees have different ...

  Args:
    actual: the pytree computed.
    desired: the expected pytree.
    err_msg: an optional text appended to the failure message.

  Raises:
    AssertionError: naming the key path of the first mismatch.
  """
  what = 'assert_trees_all_equal'
  for path, a, d in _paired_leaves(what, actual, desired, err_msg):
    if _is_abstract(a) or _is_abstract(d):
      detail = _abstract_difference(a, d)
      if detail is not None:
        raise AssertionError(_message(what, path, detail, err_msg))
      continue
    try:
      np.testing.assert_array_equal(_to_numpy(a), _to_numpy(d))
    except AssertionError as e:
      raise AssertionError(
          _message(what, path, f'leaves differ:{e}', err_msg)) from None


def assert_tree_all_finite(actual: Any, err_msg: Optional[str] = None) -> None:
  """Asserts every entry of every leaf is finite (no NaN or infinity).

  Examples:
    >>> import jax.numpy as jnp
    >>> from optax._src import test_utils
    >>> test_utils.assert_tree_all_finite({'a': jnp.array([1.0, jnp.nan])})
    Traceback (most recent call last):
    ...
    AssertionError: assert_tree_all_finite: at ['a']: 1 non-finite ...

  Args:
    actual: a pytree.
    err_msg: an optional text appended to the failure message.

  Raises:
    AssertionError: naming the key path of the first non-finite leaf.
  """
  for path, leaf in _leaves_with_path(actual):
    x = _to_numpy(leaf)
    finite = np.isfinite(x)
    if not np.all(finite):
      count = int(np.size(finite) - np.count_nonzero(finite))
      raise AssertionError(_message(
          'assert_tree_all_finite', path,
          f'{count} non-finite entries in {x!r}', err_msg))


def _dtype(x: Any) -> Any:
  dtype = getattr(x, 'dtype', None)
  return jnp.result_type(x) if dtype is None else dtype


def assert_trees_all_equal_dtypes(
    actual: Any, desired: Any, err_msg: Optional[str] = None
) -> None:
  """Asserts two pytrees have the same structure and leaf dtypes.

  Weak types are not compared; Python numbers have the dtype JAX gives them.

  Examples:
    >>> import jax.numpy as jnp
    >>> from optax._src import test_utils
    >>> test_utils.assert_trees_all_equal_dtypes(
    ...     {'a': jnp.ones(2)}, {'a': jnp.zeros(3)})

  Args:
    actual: the pytree computed.
    desired: the expected pytree.
    err_msg: an optional text appended to the failure message.

  Raises:
    AssertionError: naming the key path of the first mismatch.
  """
  what = 'assert_trees_all_equal_dtypes'
  for path, a, d in _paired_leaves(what, actual, desired, err_msg):
    if _dtype(a) != _dtype(d):
      raise AssertionError(_message(
          what, path, f'dtypes differ: {_dtype(a)} != {_dtype(d)}', err_msg))


def assert_trees_all_equal_shapes(
    actual: Any, desired: Any, err_msg: Optional[str] = None
) -> None:
  """Asserts two pytrees have the same structure and leaf shapes.

  Leaves may be arrays, Python numbers or ``jax.ShapeDtypeStruct``.

  Examples:
    >>> import jax.numpy as jnp
    >>> from optax._src import test_utils
    >>> test_utils.assert_trees_all_equal_shapes(
    ...     {'a': jnp.ones(2)}, {'a': jnp.zeros(2, jnp.int32)})

  Args:
    actual: the pytree computed.
    desired: the expected pytree.
    err_msg: an optional text appended to the failure message.

  Raises:
    AssertionError: naming the key path of the first mismatch.
  """
  what = 'assert_trees_all_equal_shapes'
  for path, a, d in _paired_leaves(what, actual, desired, err_msg):
    shape_a, shape_d = np.shape(a), np.shape(d)
    if shape_a != shape_d:
      raise AssertionError(_message(
          what, path, f'shapes differ: {shape_a} != {shape_d}', err_msg))


def assert_trees_all_equal_structs(actual: Any, desired: Any) -> None:
  """Asserts two pytrees have the same structure (leaf values ignored).

  ``None`` counts as a node, so ``{'a': None}`` and ``{'a': 1.0}`` differ.

  Examples:
    >>> import jax.numpy as jnp
    >>> from optax._src import test_utils
    >>> test_utils.assert_trees_all_equal_structs({'a': (1, 2)}, {'a': (3,)})
    Traceback (most recent call last):
    ...
    AssertionError: assert_trees_all_equal_structs: the trees have ...

  Args:
    actual: the pytree computed.
    desired: the expected pytree.

  Raises:
    AssertionError: naming the key path of the first mismatch.
  """
  _assert_same_structure('assert_trees_all_equal_structs', actual, desired)


_COMPILATION_MESSAGE = 'Finished XLA compilation'
_log_compilations_lock = threading.RLock()


class _CompilationRecorder(logging.Handler):
  """A logging handler keeping the records of finished XLA compilations."""

  def __init__(self, records: list[logging.LogRecord]):
    super().__init__(level=logging.DEBUG)
    self.records = records

  def emit(self, record: logging.LogRecord) -> None:
    if record.getMessage().startswith(_COMPILATION_MESSAGE):
      self.records.append(record)


@contextlib.contextmanager
def log_compilations() -> Iterator[list[logging.LogRecord]]:
  """Records every XLA compilation made inside a ``with`` block.

  Turns on ``jax_log_compiles`` for the block (and restores it afterwards)
  and collects the ``logging.LogRecord`` of each finished compilation into
  the list it yields. Eager operations compile too (once per operation,
  shape and dtype), so build the inputs before entering the block.

  Examples:
    >>> import jax
    >>> import jax.numpy as jnp
    >>> from optax._src import test_utils
    >>> step = jax.jit(lambda x: 2.0 * x)
    >>> x, y = jnp.ones(3), jnp.zeros(3)
    >>> with test_utils.log_compilations() as compilations:
    ...   _ = step(x)
    ...   _ = step(y)  # Same shapes and dtypes: no new compilation.
    >>> len(compilations)
    1

  Yields:
    The list of records, filled while the block runs.
  """
  records = []
  handler = _CompilationRecorder(records)
  logger = logging.getLogger('jax')
  with _log_compilations_lock:
    previous_flag = jax.config.jax_log_compiles
    previous_level = logger.level
    logger.addHandler(handler)
    if logger.getEffectiveLevel() > logging.WARNING:
      logger.setLevel(logging.WARNING)
    jax.config.update('jax_log_compiles', True)
    try:
      yield records
    finally:
      jax.config.update('jax_log_compiles', previous_flag)
      logger.setLevel(previous_level)
      logger.removeHandler(handler)


def donated_step_memory(
    tx: base.GradientTransformation,
    params: Any,
    compiler_options: Optional[dict[str, str]] = None,
) -> Any:
  """XLA's memory analysis of a jitted training step of ``tx``.

  The step is ``tx.update`` then ``params + updates``, with the params and
  the state donated, as in a training loop.

  Args:
    tx: the transformation.
    params: the params (arrays or ``jax.ShapeDtypeStruct``); the gradients
      are shaped like them.
    compiler_options: XLA options for this compilation only (for instance
      ``MEMORY_OPTIMIZED_CPU_SCHEDULER``).

  Returns:
    The compiled step's ``memory_analysis()``: None on a backend without
    one.
  """
  def step(params, state, grads):
    updates, state = tx.update(grads, state, params)
    return jax.tree.map(lambda p, u: p + u, params, updates), state

  state = jax.eval_shape(tx.init, params)
  lowered = jax.jit(step, donate_argnums=(0, 1)).lower(params, state, params)
  return lowered.compile(compiler_options).memory_analysis()


# XLA:CPU's default scheduler orders independent loops for concurrency,
# which can keep many temporaries alive at once; this one minimizes the
# memory in use, so a test can check what a program needs at the least.
MEMORY_OPTIMIZED_CPU_SCHEDULER = {
    'xla_cpu_scheduler_type': 'CPU_SCHEDULER_TYPE_MEMORY_OPTIMIZED'}


def barriers_in_conditionals(jaxpr: Any) -> list[int]:
  """Counts the optimization barriers inside each conditional of ``jaxpr``.

  XLA:GPU turns a conditional whose branches are elementwise into a select
  fused with its consumers, but not one whose branch holds an optimization
  barrier.

  Args:
    jaxpr: a ``jax.extend.core.Jaxpr`` (``jax.make_jaxpr(f)(...).jaxpr``).

  Returns:
    One count per ``cond`` equation, nested ones included, in the order
    found (outer before inner).
  """
  def barriers(inner):
    found = 0
    for eqn in inner.eqns:
      found += eqn.primitive.name == 'optimization_barrier'
      for sub in jax.extend.core.jaxprs_in_params(eqn.params):
        found += barriers(sub)
    return found

  counts = []

  def visit(inner):
    for eqn in inner.eqns:
      if eqn.primitive.name == 'cond':
        counts.append(sum(barriers(b.jaxpr) for b in eqn.params['branches']))
      for sub in jax.extend.core.jaxprs_in_params(eqn.params):
        visit(sub)

  visit(jaxpr)
  return counts


# An HLO type of rank 0 (``f32[]``), an instruction's name, result type and
# opcode, and a fusion's result type (a tuple for a multi-output fusion, as
# XLA:GPU makes of an optimizer's per-leaf kernel) and operand list.
_HLO_RANK0 = re.compile(
    r'^(pred|s8|s16|s32|s64|u8|u16|u32|u64|bf16|f16|f32|f64|c64|c128)\[\]')
_HLO_INSTRUCTION = re.compile(
    r'\s*(?:ROOT )?(%[\w.\-]+) = (\([^)]*\)|\S+) ([\w\-]+)\(')
_HLO_FUSION = re.compile(r'= (\([^)]*\)|\S+) fusion\((.*?)\), kind=')

# What a step is compiled with to see the fusions XLA:GPU makes: XLA:CPU
# removes optimization barriers before fusion, XLA:GPU only after it.
GPU_ORDER_FUSION = {'xla_disable_hlo_passes': 'cse_barrier_expander'}


def fused_kernel_scalars(hlo: str) -> list[tuple[str, int]]:
  """The runtime scalars each fused kernel over an array reads.

  A hyperparameter XLA sees as a constant is folded into every leaf's
  kernel; one it cannot see through (behind an optimization barrier, or an
  argument) is computed once and passed to every kernel as a rank-0
  operand, read at run time. Fusions whose own result is a scalar (the
  once-per-step arithmetic) are left out.

  Args:
    hlo: the text of an optimized HLO module (``compiled.as_text()``).

  Returns:
    ``(result_type, count)`` per fusion with a non-scalar result, in the
    order of the text: ``count`` is the number of its operands of rank 0
    that are not constants.
  """
  lines = hlo.splitlines()
  defined = {}
  for line in lines:
    found = _HLO_INSTRUCTION.match(line)
    if found:
      defined[found.group(1)] = (found.group(2), found.group(3))
  kernels = []
  for line in lines:
    found = _HLO_FUSION.search(line)
    if not found or _HLO_RANK0.match(found.group(1)):
      continue
    count = 0
    for operand in found.group(2).split(','):
      # An operand is printed as its name, after its type and a comment
      # in some versions of XLA ('f32[] %p', '/*index=5*/%p').
      name = operand.split('*/')[-1].split()[-1] if operand.strip() else ''
      type_, opcode = defined.get(name, ('', ''))
      count += bool(_HLO_RANK0.match(type_)) and opcode != 'constant'
    kernels.append((found.group(1), count))
  return kernels


def arrays_created_by(fn: Callable[[], Any]) -> tuple[Any, list[Any]]:
  """Calls ``fn`` and lists the JAX arrays it leaves alive.

  An array counts when it is alive after the call, was not alive before it,
  and survives a garbage collection (arrays that only reference cycles hold
  are not kept by ``fn``'s result). The collection runs only when the first
  count is not empty, so checking many builds stays cheap. Keep the result
  alive while the arrays are counted: it is returned for that reason.

  Examples:
    >>> import jax.numpy as jnp
    >>> from optax._src import test_utils
    >>> _, new = test_utils.arrays_created_by(lambda: 1.0)
    >>> new
    []
    >>> x, new = test_utils.arrays_created_by(lambda: jnp.zeros(2))
    >>> new
    [((2,), dtype('float32'))]

  Args:
    fn: a function of no arguments (e.g. an optimizer factory with its
      hyperparameters bound).

  Returns:
    ``fn()``'s result and the ``(shape, dtype)`` of each array it created
    and left alive.
  """
  before = jax.live_arrays()
  known = {id(a) for a in before}
  result = fn()
  if any(id(a) not in known for a in jax.live_arrays()):
    gc.collect()
  new = [(a.shape, a.dtype) for a in jax.live_arrays() if id(a) not in known]
  del before
  return result, new


def assert_dtypes_stable_over_steps(
    tx: base.GradientTransformation,
    params: Any,
    num_steps: int = 3,
    grad_fn: Optional[Callable[[Any], Any]] = None,
    extra_args: Optional[dict[str, Any]] = None,
) -> tuple[Any, Any]:
  """Asserts a few jitted steps keep the state's dtypes and the params'.

  Runs ``num_steps`` steps of one jitted function that computes the
  gradients with ``grad_fn``, calls ``tx.update(grads, state, params,
  **extra_args)`` and adds the updates to the params (cast back to each
  param's dtype). After each step the state has the structure and the leaf
  dtypes of ``tx.init(params)`` and the updates have the params' dtypes
  (checked on the updates themselves, before any cast), and the step is
  traced only once (the state is type-stable).

  Examples:
    >>> import jax.numpy as jnp
    >>> import optax
    >>> from optax._src import test_utils
    >>> params = {'w': jnp.ones(2, jnp.bfloat16), 'b': jnp.ones(2)}
    >>> params, state = test_utils.assert_dtypes_stable_over_steps(
    ...     optax.adam(0.1), params)
    >>> params['w'].dtype, params['b'].dtype
    (dtype(bfloat16), dtype('float32'))

  Args:
    tx: the transformation.
    params: the initial params (e.g. a tree mixing bfloat16 and float32).
    num_steps: the number of steps.
    grad_fn: the gradients as a function of the params; ``0.3 * params`` if
      ``None``.
    extra_args: keyword arguments passed to every ``tx.update`` (closed over
      by the jitted step, so a function such as an objective is allowed).

  Returns:
    The params and the state after the last step.

  Raises:
    AssertionError: naming the step and the key path of the first leaf
      whose dtype changed, or if the step was traced more than once.
  """
  if grad_fn is None:
    grad_fn = lambda p: jax.tree.map(lambda x: 0.3 * x, p)
  extra_args = {} if extra_args is None else extra_args
  traces = []

  @jax.jit
  def step(params, state):
    traces.append(None)
    updates, state = tx.update(grad_fn(params), state, params, **extra_args)
    new_params = jax.tree.map(
        lambda p, u: (p + u).astype(_dtype(p)), params, updates)
    return updates, new_params, state

  initial_state = state = tx.init(params)
  for i in range(num_steps):
    previous_params = params
    updates, params, state = step(params, state)
    assert_trees_all_equal_dtypes(
        state, initial_state, f'the state after step {i}')
    assert_trees_all_equal_dtypes(
        updates, previous_params, f'the updates of step {i}')
  if len(traces) != 1:
    raise AssertionError(
        f'assert_dtypes_stable_over_steps: the step was traced {len(traces)}'
        ' times, expected once (the state changes type between steps)')
  return params, state


def assert_wide_scalar_statistics(
    make_tx: Callable[[], base.GradientTransformation],
    fields: Sequence[str],
    params: Any,
) -> Any:
  """Asserts scalar statistics are float32, or float64 under x64, on params.

  Builds ``make_tx()`` twice, without and then with x64, and checks that
  each named field of ``init``'s state has that dtype whatever the params'
  dtype (bfloat16 params must not narrow them), then runs
  :func:`assert_dtypes_stable_over_steps`, so the fields keep the dtype over
  jitted steps and the updates keep the params' dtypes.

  Examples:
    >>> import jax.numpy as jnp
    >>> from optax import contrib
    >>> from optax._src import test_utils
    >>> state = test_utils.assert_wide_scalar_statistics(
    ...     contrib.prodigy, ['estim_lr'], {'w': jnp.ones(2, jnp.bfloat16)})
    >>> state.estim_lr.dtype
    dtype('float32')

  Args:
    make_tx: builds the transformation (called once per precision).
    fields: names of the state's fields holding the statistics.
    params: the params (e.g. all bfloat16).

  Returns:
    The state ``init`` gives without x64.

  Raises:
    AssertionError: naming the field, its dtype and the expected one.
  """
  states = []
  for x64, want in ((False, jnp.float32), (True, jnp.float64)):
    with utils.x64_precision(x64):
      tx = make_tx()
      state = tx.init(params)
      for field in fields:
        got = jnp.result_type(getattr(state, field))
        if got != want:
          raise AssertionError(
              f'assert_wide_scalar_statistics: {field} is {got}, expected '
              f'{jnp.dtype(want)} (x64 {"on" if x64 else "off"})')
      assert_dtypes_stable_over_steps(tx, params)
      states.append(state)
  return states[0]


def assert_state_donatable(
    tx: base.GradientTransformation, params: Any
) -> None:
  """Asserts a jitted step may donate the params and the state.

  The step is ``params + tx.update(params, state, params)`` (the params
  stand for the gradients). Two steps are run: the first donates only the
  state, and must leave the caller's params alive (the state must not hold
  the params' own buffers); the second donates both, which must not donate
  one buffer twice and must delete the params passed; the result must equal
  that of two steps without donation.

  Examples:
    >>> import jax.numpy as jnp
    >>> import optax
    >>> from optax._src import test_utils
    >>> test_utils.assert_state_donatable(
    ...     optax.sgd(0.1, momentum=0.9), {'w': jnp.array([1.0, -2.0])})

  Args:
    tx: the transformation.
    params: the params, a tree of arrays.

  Raises:
    AssertionError: naming the key path of the first param that was wrongly
      deleted or kept, or of the first leaf that differs.
  """
  what = 'assert_state_donatable'

  def step(params, state):
    updates, state = tx.update(params, state, params)
    return jax.tree.map(jnp.add, params, updates), state

  expected = jax.jit(step)(*jax.jit(step)(params, tx.init(params)))
  state = tx.init(params)
  next_params, state = jax.jit(step, donate_argnums=1)(params, state)
  for path, leaf in _leaves_with_path(params):
    if leaf.is_deleted():
      raise AssertionError(_message(
          what, path, 'donating the state deleted the params', None))
  new = jax.jit(step, donate_argnums=(0, 1))(next_params, state)
  for path, leaf in _leaves_with_path(next_params):
    if not leaf.is_deleted():
      raise AssertionError(_message(
          what, path, 'the donated params were not deleted', None))
  assert_trees_all_equal(new, expected, err_msg=what)


def minimize(
    tx: base.GradientTransformation,
    loss_fn: Callable[[Any], Any],
    params: Any,
    num_steps: int,
) -> tuple[Any, Any]:
  """Runs ``num_steps`` jitted steps of ``tx`` on the gradients of a loss.

  Examples:
    >>> import jax.numpy as jnp
    >>> import optax
    >>> from optax._src import test_utils
    >>> params, _ = test_utils.minimize(
    ...     optax.sgd(0.25), lambda p: jnp.sum((p - 1.0) ** 2), jnp.zeros(2),
    ...     num_steps=3)
    >>> params
    Array([0.875, 0.875], dtype=float32)

  Args:
    tx: the transformation, whose updates are added to the params.
    loss_fn: a scalar function of the params.
    params: the initial params.
    num_steps: the number of steps.

  Returns:
    The params and the state after the last step.
  """

  @jax.jit
  def step(params, state):
    updates, state = tx.update(jax.grad(loss_fn)(params), state, params)
    return jax.tree.map(lambda p, u: p + u, params, updates), state

  state = tx.init(params)
  for _ in range(num_steps):
    params, state = step(params, state)
  return params, state


class RunningSumState(NamedTuple):
  """The state of ``running_sum``.

  Attributes:
    total: the sum of all the updates seen so far, a tree like the params.
  """
  total: base.Updates


def doubling() -> base.GradientTransformation:
  """Doubles the updates as they come (integer ones stay integer).

  An inner transformation that prepares nothing itself, for the tests of
  wrappers that prepare their inputs.
  """

  def update_fn(updates, state, params=None):
    del params
    return jax.tree.map(lambda g: 2 * g, updates), state

  return base.GradientTransformation(base.init_empty_state, update_fn)


def running_sum() -> base.GradientTransformation:
  """A stateful transformation returning the sum of all updates so far.

  Examples:
    >>> import jax.numpy as jnp
    >>> from optax._src import test_utils
    >>> tx = test_utils.running_sum()
    >>> state = tx.init(jnp.zeros(2))
    >>> _, state = tx.update(jnp.ones(2), state)
    >>> updates, state = tx.update(jnp.ones(2), state)
    >>> updates
    Array([2., 2.], dtype=float32)

  Returns:
    The transformation; its state is a ``RunningSumState``.
  """

  def init_fn(params):
    return RunningSumState(jax.tree.map(jnp.zeros_like, params))

  def update_fn(updates, state, params=None):
    del params
    total = jax.tree.map(lambda t, g: t + g, state.total, updates)
    return total, RunningSumState(total)

  return base.GradientTransformation(init_fn, update_fn)


def scale_by_value() -> base.GradientTransformationExtraArgs:
  """A stateless transformation multiplying the updates by an extra argument.

  The factor is the keyword-only extra argument ``value`` of ``update``,
  which is required; other extra arguments are ignored.

  Examples:
    >>> import jax.numpy as jnp
    >>> from optax._src import test_utils
    >>> tx = test_utils.scale_by_value()
    >>> updates, _ = tx.update(jnp.ones(2), tx.init(jnp.ones(2)), value=3.0)
    >>> updates
    Array([3., 3.], dtype=float32)

  Returns:
    The transformation.
  """

  def update_fn(updates, state, params=None, *, value, **extra_args):
    del params, extra_args
    return jax.tree.map(lambda g: value * g, updates), state

  return base.GradientTransformationExtraArgs(
      base.init_empty_state, update_fn)


def record_extra_args(
    seen: dict[str, Any],
) -> base.GradientTransformationExtraArgs:
  """An identity transformation writing the extra arguments it gets to a dict.

  Examples:
    >>> import jax.numpy as jnp
    >>> from optax._src import test_utils
    >>> seen = {}
    >>> tx = test_utils.record_extra_args(seen)
    >>> _ = tx.update(jnp.ones(2), tx.init(jnp.ones(2)), value=3.0)
    >>> seen
    {'value': 3.0}

  Args:
    seen: the dict updated with the keyword extra arguments of each
      ``update`` call.

  Returns:
    The transformation; its updates are the updates it receives.
  """

  def update_fn(updates, state, params=None, **extra_args):
    del params
    seen.update(extra_args)
    return updates, state

  return base.GradientTransformationExtraArgs(
      base.init_empty_state, update_fn)


def run_float32_steps(
    tx: base.GradientTransformation,
    params: Any,
    grads: Union[Sequence[Any], Callable[[Any, int], Any]],
    *,
    num_steps: Optional[int] = None,
    use_jit: bool = False,
    extra_args: Optional[Callable[[int], dict[str, Any]]] = None,
) -> tuple[list[Any], Any]:
  """Runs float32 steps of a transformation, for a comparison with NumPy.

  The params and the gradients are cast to float32; each step calls
  ``tx.update(grads, state, params, **extra_args(step))`` and adds the
  updates to the params.

  Examples:
    >>> import numpy as np
    >>> import optax
    >>> from optax._src import test_utils
    >>> updates, _ = test_utils.run_float32_steps(
    ...     optax.sgd(0.5, momentum=0.5), np.zeros(2), [np.ones(2)] * 2)
    >>> updates
    [array([-0.5, -0.5]), array([-0.75, -0.75])]

  Args:
    tx: the transformation.
    params: the initial params (leaves of any floating dtype).
    grads: the gradients of each step; or a function of the params (leaves
      cast to float64 NumPy arrays) and of the step index (from 0) returning
      them.
    num_steps: the number of steps; ``len(grads)`` if ``None``.
    use_jit: whether ``tx.update`` is jitted.
    extra_args: a function of the step index returning the keyword extra
      arguments of that step; none if ``None``.

  Returns:
    The updates of each step (leaves as float64 NumPy arrays) and the final
    state.
  """
  to_float32 = lambda tree: jax.tree.map(
      lambda x: jnp.asarray(x, jnp.float32), tree)
  to_float64 = lambda tree: jax.tree.map(
      lambda x: np.asarray(x, np.float64), tree)
  if num_steps is None:
    num_steps = len(grads)
  update = jax.jit(tx.update) if use_jit else tx.update
  params = to_float32(params)
  state = tx.init(params)
  history = []
  for step in range(num_steps):
    if callable(grads):
      step_grads = grads(to_float64(params), step)
    else:
      step_grads = grads[step]
    kwargs = {} if extra_args is None else extra_args(step)
    updates, state = update(to_float32(step_grads), state, params, **kwargs)
    history.append(to_float64(updates))
    params = jax.tree.map(lambda p, u: p + u, params, updates)
  return history, state


def assert_decoupled_weight_decay(
    tx: base.GradientTransformation,
    params: Any,
    grads: Sequence[Any],
    directions: Sequence[Any],
    learning_rate: float,
    weight_decay: float,
    rtol: float = 2e-6,
    atol: float = 1e-7,
) -> None:
  """Asserts an alias steps by ``-lr * (direction + weight_decay * params)``.

  Runs ``tx`` in float32 (see ``run_float32_steps``) and compares each
  update with ``-learning_rate * (direction + weight_decay * p)``, where the
  reference params ``p`` start at ``params`` and move by the expected
  updates (in float64).

  Examples:
    >>> import numpy as np
    >>> import optax
    >>> from optax._src import test_utils
    >>> tx = optax.chain(optax.add_decayed_weights(0.5), optax.sgd(0.1))
    >>> grads = [np.array([1.0, -2.0])] * 2
    >>> test_utils.assert_decoupled_weight_decay(
    ...     tx, np.ones(2), grads, directions=grads, learning_rate=0.1,
    ...     weight_decay=0.5)

  Args:
    tx: the alias, built with ``learning_rate`` and ``weight_decay``.
    params: the initial params.
    grads: the gradients of each step.
    directions: the expected update directions of the transformation
      without learning rate and weight decay, one per step (e.g. from a
      NumPy reference).
    learning_rate: the learning rate of ``tx``.
    weight_decay: the weight decay of ``tx``.
    rtol: the relative tolerance.
    atol: the absolute tolerance.

  Raises:
    AssertionError: naming the first step whose update differs.
  """
  got, _ = run_float32_steps(tx, params, grads)
  reference = jax.tree.map(lambda x: np.asarray(x, np.float64), params)
  for step, (updates, direction) in enumerate(zip(got, directions)):
    expected = jax.tree.map(
        lambda d, p: -learning_rate * (d + weight_decay * p),
        direction, reference)
    assert_trees_all_close(updates, expected, rtol=rtol, atol=atol,
                           err_msg=f'step {step}')
    reference = jax.tree.map(np.add, reference, expected)


def use_host_devices(test: unittest.TestCase, n: int) -> list[Any]:
  """``n`` CPU devices for a sharding test, on any default backend.

  ``optax/conftest.py`` splits the host into 8 virtual CPU devices. On a GPU
  or TPU runner jax's default backend has one or a few devices, so the
  sharding tests build their meshes from these host devices instead, and
  make the first of them the default device until the test ends: arrays
  made without a sharding, and one-device reference runs, then live on the
  same backend as the mesh, so results compare at CPU precision.

  Args:
    test: the running test; skipped when jax has fewer than ``n`` CPU
      devices (``XLA_FLAGS`` set without ``optax/conftest.py``, or
      ``JAX_PLATFORMS`` without ``cpu``).
    n: how many devices the test needs.

  Returns:
    The first ``n`` CPU devices, for ``jax.make_mesh(..., devices=...)``.
  """
  try:
    devices = jax.devices('cpu')
  except RuntimeError as e:
    test.skipTest(f'needs {n} CPU devices; jax has no CPU backend ({e})')
  if len(devices) < n:
    test.skipTest(f'needs {n} CPU devices (see optax/conftest.py); jax has '
                  f'{len(devices)}')
  test.enter_context(jax.default_device(devices[0]))
  return devices[:n]


def _prepared_params() -> dict[str, jax.Array]:
  return {'w': jnp.asarray([[0.5, -1.0, 2.0], [1.5, 0.25, -0.75]]),
          'b': jnp.asarray([1.0, -2.0, 3.0])}


def _prepared_int_grads() -> dict[str, jax.Array]:
  return {'w': jnp.asarray([[1, -2, 3], [0, 4, -1]], jnp.int32),
          'b': jnp.asarray([2, 0, -3], jnp.int32)}


def transformation_steps(
    transforms: dict[str, tuple[Callable[[], base.GradientTransformation],
                                dict[str, Any]]],
    name: str, grads: Any, params: Any, use_jit: bool, count: int = 2,
) -> list[Any]:
  """The updates of ``count`` steps of ``transforms[name]`` on fixed inputs.

  Args:
    transforms: test name -> (factory, extra keyword arguments of
      ``update``), as for :func:`prepared_inputs_test_case`; the extra
      arguments may be a function of the gradients and the params, called
      inside the (jitted) step (a line search's ``value`` and
      ``value_fn``).
    name: the entry to run.
    grads: the gradients, as for :func:`update_steps`.
    params: the params, as for :func:`update_steps`.
    use_jit: whether to jit, as for :func:`update_steps`.
    count: the number of steps, as for :func:`update_steps`.

  Returns:
    The updates of each step.
  """
  factory, extra = transforms[name]
  tx = factory()
  if not callable(extra):
    return update_steps(tx, grads, params, use_jit, count, **extra)

  def update_fn(g, state, p):
    return tx.update(g, state, p, **extra(g, p))

  return update_steps(base.GradientTransformation(tx.init, update_fn), grads,
                      params, use_jit, count)


def update_steps(tx: base.GradientTransformation, grads: Any, params: Any,
                 use_jit: bool, count: int = 2, **extra_args: Any
                 ) -> list[Any]:
  """The updates of ``count`` steps of ``tx`` from ``tx.init(params)``.

  Args:
    tx: the transformation.
    grads: the gradients of every step.
    params: the params, given to ``init`` and to every ``update``.
    use_jit: whether ``update`` is jitted.
    count: the number of steps.
    **extra_args: extra keyword arguments of ``update``.

  Returns:
    The updates of each step.
  """
  update = jax.jit(tx.update) if use_jit else tx.update
  state = tx.init(params)
  out = []
  for _ in range(count):
    updates, state = update(grads, state, params, **extra_args)
    out.append(updates)
  return out


def prepared_inputs_test_case(
    transforms: dict[str, tuple[Callable[[], base.GradientTransformation],
                                Any]],
    *,
    float0_names: Optional[Sequence[str]] = None,
    shapes_checked: bool = True,
) -> type[parameterized.TestCase]:
  """A test case: each transformation alone takes inputs as chain gives them.

  For every entry, eager and jitted, over two steps: integer gradients give
  the float32 updates of the same float32 gradients; a ``float0`` gradient
  (of an int32 param) gives zero updates and leaves the float leaf's
  updates those of a zero float32 gradient there; a Python-float param leaf
  gives the updates of a float32 array leaf; and a (1, 3) gradient for a
  (4, 3) param is a ValueError naming the key path, or, for a wrapper that
  leaves shapes to its inner transformation, per-example gradients (a
  leading batch axis) come back with their shapes. Subclass the result in
  a test module (the base itself is not collected there).

  Args:
    transforms: test name -> (factory of the transformation, extra keyword
      arguments of ``update`` or a function of the gradients and params
      giving them, see :func:`transformation_steps`); the name up to a
      ``'('`` is the public name that the shape error begins with.
    float0_names: the entries of the float0 test (default: all).
    shapes_checked: whether a gradient shaped otherwise than its param is
      an error (False for wrappers such as ``masked``).

  Returns:
    A ``parameterized.TestCase`` subclass with those four tests.
  """
  names = sorted(transforms)
  steps = functools.partial(transformation_steps, transforms)

  class PreparedInputsCase(parameterized.TestCase):
    """Inputs the transformations take as a chain gives them."""

    @parameterized.product(name=names, use_jit=(False, True))
    def test_integer_gradients_give_float_updates(self, name, use_jit):
      params = _prepared_params()
      got = steps(name, _prepared_int_grads(), params, use_jit)
      float_grads = jax.tree.map(
          lambda g: g.astype(jnp.float32), _prepared_int_grads())
      want = steps(name, float_grads, params, use_jit)
      for got_step, want_step in zip(got, want):
        for key in params:
          self.assertEqual(got_step[key].dtype, jnp.float32, key)
          np.testing.assert_array_equal(got_step[key], want_step[key])

    @parameterized.product(
        name=names if float0_names is None else tuple(float0_names),
        use_jit=(False, True))
    def test_float0_gradients_give_zero_updates(self, name, use_jit):
      params = {'w': _prepared_params()['w'],
                'i': jnp.asarray([3, -1], jnp.int32)}

      def loss(p):
        return jnp.sum(p['w'] ** 2) + jnp.sum(p['w'] * p['i'][0])

      grads = jax.grad(loss, allow_int=True)(params)
      self.assertEqual(grads['i'].dtype, jax.dtypes.float0)
      got = steps(name, grads, params, use_jit)
      zero_grads = {'w': grads['w'], 'i': jnp.zeros(2, jnp.float32)}
      want = steps(name, zero_grads, params, use_jit)
      for got_step, want_step in zip(got, want):
        np.testing.assert_array_equal(got_step['i'], np.zeros(2))
        np.testing.assert_array_equal(got_step['w'], want_step['w'])

    @parameterized.product(name=names, use_jit=(False, True))
    def test_python_float_param_leaf_is_accepted(self, name, use_jit):
      grads = {'w': jnp.asarray([0.5, -1.0]), 'f': jnp.asarray(0.25)}
      got = steps(name, grads, {'w': jnp.asarray([1.0, 2.0]), 'f': 1.5},
                  use_jit)
      want = steps(name, grads,
                   {'w': jnp.asarray([1.0, 2.0]), 'f': jnp.asarray(1.5)},
                   use_jit)
      for got_step, want_step in zip(got, want):
        for key in ('w', 'f'):
          self.assertEqual(got_step[key].dtype, jnp.float32)
          np.testing.assert_array_equal(got_step[key], want_step[key])

    if shapes_checked:

      @parameterized.product(name=names, use_jit=(False, True))
      def test_broadcast_gradient_raises_naming_key_path(self, name,
                                                         use_jit):
        params = {'w': jnp.ones((4, 3)), 'b': jnp.ones(3)}
        grads = {'w': jnp.ones((1, 3)), 'b': jnp.ones(3)}
        label = name.split('(')[0]
        with self.assertRaisesRegex(
            ValueError, label + r": at \['w'\] the gradient has shape"
            r' \(1, 3\) but the param has shape \(4, 3\)'):
          steps(name, grads, params, use_jit, count=1)

    else:

      @parameterized.product(name=names, use_jit=(False, True))
      def test_gradient_shapes_are_left_to_the_inner_transformation(
          self, name, use_jit):
        # Per-example gradients (a leading batch axis, as dpsgd takes them)
        # reach the inner transformation as they are.
        params = {'w': jnp.ones((4, 3)), 'b': jnp.ones(3)}
        grads = {'w': jnp.ones((2, 4, 3)), 'b': jnp.ones((2, 3))}
        got = steps(name, grads, params, use_jit, count=1)[0]
        self.assertEqual(got['w'].shape, (2, 4, 3))
        self.assertEqual(got['b'].shape, (2, 3))

  return PreparedInputsCase


def _with_jit(transformations):
  """Each (name, factory) eager and jitted, for named_parameters."""
  return [dict(testcase_name=f'{name}_{"jit" if jit else "eager"}',
               name=name, factory=factory, jit=jit)
          for name, factory in transformations for jit in (False, True)]


def _assert_same_updates(got, want, jit):
  """Equal eagerly; under jit to an ulp (XLA fuses a cast differently)."""
  for step_got, step_want in zip(got, want):
    assert_trees_all_equal_dtypes(step_got, step_want)
    if jit:
      assert_trees_all_close(step_got, step_want, rtol=1e-6)
    else:
      assert_trees_all_equal(step_got, step_want)


def _family_params():
  return {'w': jnp.array([[0.5, -1.0, 2.0], [1.5, 0.25, -0.75]]),
          'b': jnp.array([0.1, -0.2, 0.3])}


def _family_int_grads():
  return {'w': jnp.array([[1, -2, 3], [0, 4, -1]], jnp.int32),
          'b': jnp.array([2, -3, 1], jnp.int32)}


def input_preparation_test_case(
    transformations: Sequence[tuple[str, Callable[[], Any]]],
    *,
    integer_also: Sequence[tuple[str, Callable[[], Any]]] = (),
    integer_steps: int = 2,
) -> type[parameterized.TestCase]:
  """A test case: each ``scale_by_*`` alone takes inputs as chain gives them.

  For every (name, factory), eager and jitted: int32 gradients give the
  updates of the same float32 gradients, in the params' dtype; float16
  gradients on float32 params those of their float32 values; a ``float0``
  gradient of an int32 param gives zeros there and leaves the float leaf's
  updates as without it (to an ulp); a Python-float param leaf gives the
  updates of a float32 array leaf; a (1, 3) gradient for a (4, 3) param is
  a ValueError beginning with the name and naming the key path. Equal
  eagerly, to an ulp under jit (XLA fuses a cast differently).

  Args:
    transformations: (name in the errors, factory) pairs.
    integer_also: more pairs (variants) for the integer-gradient test only.
    integer_steps: the steps that test runs (the others run two).

  Returns:
    A ``parameterized.TestCase`` subclass with those five tests.
  """

  class InputPreparationCase(parameterized.TestCase):
    """Each transformation alone takes gradients and params as chain does."""

    @parameterized.named_parameters(
        _with_jit(tuple(transformations) + tuple(integer_also)))
    def test_integer_gradients_give_float_updates(self, name, factory, jit):
      del name
      params = _family_params()
      tx = factory()
      got = update_steps(tx, _family_int_grads(), params, jit, integer_steps)
      floats = jax.tree.map(
          lambda g: g.astype(jnp.float32), _family_int_grads())
      want = update_steps(tx, floats, params, jit, integer_steps)
      for step_got in got:
        assert_trees_all_equal_dtypes(step_got, params)
      _assert_same_updates(got, want, jit)

    @parameterized.named_parameters(_with_jit(transformations))
    def test_narrow_float_gradients_give_params_dtype(self, name, factory,
                                                      jit):
      del name
      params = _family_params()
      tx = factory()
      half = jax.tree.map(
          lambda g: (g.astype(jnp.float16) / 4).astype(jnp.float16),
          _family_int_grads())
      got = update_steps(tx, half, params, jit)
      want = update_steps(
          tx, jax.tree.map(lambda g: g.astype(jnp.float32), half), params,
          jit)
      for step_got in got:
        assert_trees_all_equal_dtypes(step_got, params)
      _assert_same_updates(got, want, jit)

    @parameterized.named_parameters(_with_jit(transformations))
    def test_float0_gradients_give_zero_updates(self, name, factory, jit):
      del name
      params = {'w': _family_params()['w'],
                'i': jnp.arange(3, dtype=jnp.int32)}
      grads = jax.grad(
          lambda p: jnp.sum(p['w'] ** 2) + jnp.sum(p['i']), allow_int=True)(
              params)
      self.assertEqual(grads['i'].dtype, jax.dtypes.float0)
      tx = factory()
      got = update_steps(tx, grads, params, jit)
      alone = update_steps(tx, {'w': grads['w']}, {'w': params['w']}, jit)
      for step_got, step_alone in zip(got, alone):
        np.testing.assert_array_equal(step_got['i'], np.zeros(3))
        # The float leaf's updates are those it gets without the int leaf
        # (to an ulp: XLA fuses the two programs differently).
        np.testing.assert_allclose(step_got['w'], step_alone['w'],
                                   rtol=1e-6)
        self.assertEqual(step_got['w'].dtype, jnp.float32)

    @parameterized.named_parameters(_with_jit(transformations))
    def test_python_float_param_leaf_accepted(self, name, factory, jit):
      del name
      tx = factory()
      w = _family_params()['w']
      g = _family_int_grads()['w'].astype(jnp.float32)
      got = update_steps(tx, {'w': g, 'f': 0.5}, {'w': w, 'f': 1.5}, jit)
      want = update_steps(
          tx, {'w': g, 'f': jnp.asarray(0.5, jnp.float32)},
          {'w': w, 'f': jnp.asarray(1.5, jnp.float32)}, jit)
      for step_got, step_want in zip(got, want):
        self.assertEqual(step_got['f'].dtype, jnp.float32)
        assert_trees_all_equal(step_got, step_want)

    @parameterized.named_parameters(_with_jit(transformations))
    def test_broadcast_gradient_names_key_path(self, name, factory, jit):
      params = {'w': jnp.ones((4, 3)), 'b': jnp.ones(3)}
      grads = {'w': jnp.ones((1, 3)), 'b': jnp.ones(3)}
      tx = factory()
      update = jax.jit(tx.update) if jit else tx.update
      with self.assertRaisesRegex(
          ValueError, rf"^{name}: at \['w'\] the gradient has shape"
          r' \(1, 3\) but the param has shape \(4, 3\)'):
        update(grads, tx.init(params), params)

  return InputPreparationCase


def vector_hyperparameters_test_case(
    transformations: Sequence[tuple[str, Callable[..., Any]]],
) -> type[parameterized.TestCase]:
  """A test case: a vector float hyperparameter is a TypeError when built.

  Every argument of each factory whose default is a Python float is given a
  vector of two 0.5s, which must raise TypeError naming the factory and the
  argument, and a 0-d array (as ``inject_hyperparams`` gives), which must
  be accepted.

  Args:
    transformations: (name in the errors, factory) pairs.

  Returns:
    A ``parameterized.TestCase`` subclass with that test.
  """
  cases = [dict(testcase_name=f'{name}_{arg}', name=name, factory=factory,
                arg=arg)
           for name, factory in transformations
           for arg, p in inspect.signature(factory).parameters.items()
           if isinstance(p.default, float)]

  class VectorHyperparametersCase(parameterized.TestCase):
    """A vector hyperparameter is a TypeError naming it when built."""

    @parameterized.named_parameters(cases)
    def test_vector_hyperparameter_type_error(self, name, factory, arg):
      with self.assertRaisesRegex(
          TypeError, rf'^{name}: {arg} must be a scalar number .* got an'
          r' array of shape \(2,\)'):
        factory(**{arg: jnp.full(2, 0.5)})
      # A 0-d array, as inject_hyperparams gives, is a scalar.
      factory(**{arg: jnp.asarray(0.5)})

  return VectorHyperparametersCase


def vector_arguments_test_case(
    cases: Sequence[tuple[Callable[..., Any], str, dict[str, Any]]],
) -> type[parameterized.TestCase]:
  """A test case: each listed argument given a vector is a TypeError.

  Args:
    cases: (factory, argument, other keyword arguments of the factory); the
      factory called with the argument set to a vector of two 0.5s must
      raise TypeError naming the factory (its ``__name__``) and the
      argument.

  Returns:
    A ``parameterized.TestCase`` subclass with that test.
  """

  class VectorArgumentsCase(parameterized.TestCase):
    """A vector where a scalar is expected is a TypeError when built."""

    @parameterized.parameters(*cases)
    def test_vector_raises_type_error_when_built(self, factory, arg, kwargs):
      with self.assertRaisesRegex(
          TypeError, f'{factory.__name__}: {arg} must be a scalar number'
          r'.*got an array of shape \(2,\)'):
        factory(**kwargs, **{arg: jnp.asarray([0.5, 0.5])})

  return VectorArgumentsCase
