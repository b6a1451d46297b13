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

Upstream's names only (``assert_trees_all_close`` and the other assertions
on pytrees, ``log_compilations``), which upstream's own tests import. Every
assertion raises ``AssertionError`` whose message names the key path
(``jax.tree_util.keystr``) of the first offending leaf or node. The rest of
the tests' machinery (steps of an optimizer and the checks made on them,
host devices, registries, case factories, probes, toy transformations) is
in ``optax._src.testing``.
"""

from collections.abc import Iterator
import contextlib
import logging
import threading
from typing import Any, Optional

import jax
import jax.numpy as jnp
import numpy as np

from optax._src import tree_structure


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
    actual: the pytree whose leaves must equal those of ``desired``.
    desired: the pytree of exact expected values.
    err_msg: a text added at the end of the failure message, if any.

  Raises:
    AssertionError: where a structure, a shape or an entry first differs,
      with its key path.
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


def _assert_leaves_agree(what: str, get: Any, name: str, actual: Any,
                         desired: Any, err_msg: Optional[str]) -> None:
  """Asserts ``get`` gives the same for each pair of leaves of two trees."""
  for path, a, d in _paired_leaves(what, actual, desired, err_msg):
    got, want = get(a), get(d)
    if got != want:
      raise AssertionError(_message(
          what, path, f'{name} differ: {got} != {want}', err_msg))


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
    actual: the pytree whose leaves' dtypes are checked.
    desired: a pytree of leaves of the expected dtypes (values ignored).
    err_msg: extra text for the failure message, if any.

  Raises:
    AssertionError: at the first leaf of another dtype (or node of another
      structure), naming both dtypes and the key path.
  """
  _assert_leaves_agree('assert_trees_all_equal_dtypes', _dtype, 'dtypes',
                       actual, desired, err_msg)


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
    actual: a pytree of arrays, numbers or shape structs.
    desired: a pytree giving each leaf's expected shape by its own.
    err_msg: a text for the end of the failure message.

  Raises:
    AssertionError: for the first two leaves whose shapes differ (both
      shapes and the key path are in the message), or trees that differ in
      structure.
  """
  _assert_leaves_agree('assert_trees_all_equal_shapes', np.shape, 'shapes',
                       actual, desired, err_msg)


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
    actual: a pytree.
    desired: the pytree whose structure ``actual`` must have.

  Raises:
    AssertionError: naming the key path of the first node that differs.
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

