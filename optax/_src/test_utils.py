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

Upstream's names (``assert_trees_all_close`` and the other assertions on
pytrees, ``log_compilations``), which upstream's own tests import, and the
assertions and loops the fork's tests share. Every assertion raises
``AssertionError`` whose message names the key path
(``jax.tree_util.keystr``) of the first offending leaf or node. The rest of
the tests' machinery (registries, case factories, probes, toy
transformations) is in ``optax._src.testing``.
"""

from collections.abc import Callable, Iterator, Sequence
import contextlib
import logging
import threading
from typing import Any, Optional, Union
import unittest

import jax
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

