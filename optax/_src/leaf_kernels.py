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
"""Per-leaf arithmetic traced once per leaf signature.

An optimizer's update on a tree of thousands of leaves runs the same Python,
and records the same equations, for every leaf; lowering then repeats the
work per equation. A :class:`LeafKernel` maps one function over the leaves
of several trees. When a leaf's inputs are being staged into a program (the
tracers of ``jit``, ``scan``, ``cond``, ``shard_map``...) it calls the
function as a nested ``jax.jit``: jax traces and lowers it once per distinct
leaf signature (shapes, dtypes, shardings) and each further leaf costs one
call. XLA inlines those calls before it optimizes the program, so the
compiled program is the one the plain function gives. Otherwise (concrete
arrays, and the tracers of an eager ``vmap`` or ``grad``, which run each
operation as it comes) the function runs as it is: a nested ``jit`` would
compile and fuse the leaf's operations and round differently. (A program
staged and then run operation by operation, as the branches of a ``cond``
under an eager ``vmap`` with a batched predicate are, runs each call
compiled: with the rounding of ``jit``.)

A kernel's function gets every array it uses as an argument: it makes no
hyperparameter itself (those are made once per step, outside, and may be
tracers of the enclosing program), so that its cached trace holds nothing
of the program it was first traced in.
"""

import contextlib
import functools
import threading
from typing import Any, Callable, Iterator, Optional, Sequence

import jax
from jax.interpreters import partial_eval

from optax._src import dtypes


class _Inlining(threading.local):
  """Per thread: whether kernels are traced inline (see :func:`inlined`)."""

  def __init__(self):
    super().__init__()
    self.depth = 0


_INLINING = _Inlining()


@contextlib.contextmanager
def inlined() -> Iterator[None]:
  """Within this context, kernels trace their function inline, per leaf.

  The program then holds every leaf's equations rather than one call per
  leaf: what the kernels are compared with in tests.

  Yields:
    Nothing.
  """
  _INLINING.depth += 1
  try:
    yield
  finally:
    _INLINING.depth -= 1


# The tracer type of a trace that stages operations into a jaxpr.
_STAGING_TRACER = getattr(partial_eval, 'DynamicJaxprTracer', ())


def _is_staged(xs: Sequence[Any]) -> bool:
  return any(isinstance(x, _STAGING_TRACER) for x in xs)


class LeafKernel:
  """A function of leaves, mapped over trees, traced once per signature.

  Examples:
    >>> import jax
    >>> import jax.numpy as jnp
    >>> from optax._src import leaf_kernels
    >>> axpy = leaf_kernels.LeafKernel(lambda x, y, a: a * x + y)
    >>> xs = {'u': jnp.ones(2), 'v': jnp.ones(3)}
    >>> out, = axpy.map((xs, xs), jnp.float32(2.0))
    >>> out['v']
    Array([3., 3., 3.], dtype=float32)
    >>> jaxpr = jax.make_jaxpr(lambda t: axpy.map((t, t), 2.0))(xs)
    >>> [e.primitive.name for e in jaxpr.eqns]
    ['jit', 'jit']
  """

  def __init__(self, fn: Callable[..., Any], *, num_results: int = 1,
               static_argnames: Sequence[str] = (),
               results_like: Optional[Sequence[int]] = None):
    """Wraps a per-leaf function.

    Args:
      fn: ``fn(*leaves, *args, **static)``, returning one array, or a tuple
        of ``num_results`` arrays; a module-level function (jax caches its
        traces by the function's identity).
      num_results: 1 for a function returning an array, else the length of
        the tuple it returns.
      static_argnames: keyword arguments of ``fn`` that are Python values
        (part of the signature, not traced).
      results_like: for each result, the position of the leaf (among the
        function's leaf arguments) whose dtype it is stored in: the one
        rounding of a result computed in a wider dtype (a bfloat16 moment
        updated in float32). ``None`` keeps the results as they are; when
        given, its length is the number of results.
    """
    if results_like is not None:
      num_results = len(results_like)
      fn = _stored_like(fn, tuple(results_like))
    self._fn = fn
    self._num_results = num_results
    self._jitted = jax.jit(fn, static_argnames=tuple(static_argnames))

  def map(self, trees: Sequence[Any], *args: Any,
          **static: Any) -> tuple[Any, ...]:
    """Calls the function on the matching leaves of ``trees``.

    Args:
      trees: trees of the structure of ``trees[0]`` (checked by the caller,
        whose message names the key path); their leaves are the function's
        first arguments, in order.
      *args: further arguments, the same for every leaf (scalars).
      **static: the static keyword arguments.

    Returns:
      A tuple of trees shaped like ``trees[0]``: one per result of the
      function (one for a function returning a single array).
    """
    leaves, treedef = jax.tree.flatten(trees[0])
    columns = [leaves] + [treedef.flatten_up_to(t) for t in trees[1:]]
    inline = bool(_INLINING.depth)
    args_staged = _is_staged(jax.tree.leaves(args))
    results = []
    for row in zip(*columns):
      if inline or not (args_staged or _is_staged(row)):
        results.append(self._fn(*row, *args, **static))
      else:
        results.append(self._jitted(*row, *args, **static))
    if self._num_results == 1:
      return (treedef.unflatten(results),)
    if not results:
      return (treedef.unflatten([]),) * self._num_results
    return tuple(treedef.unflatten(list(column))
                 for column in zip(*results))


def per_leaf(*, results_like: Sequence[int],
             static_argnames: Sequence[str] = ()
             ) -> Callable[[Callable[..., Any]], LeafKernel]:
  """Decorates a function of leaves as a :class:`LeafKernel`.

  The function is written as the formula of one leaf, in plain arithmetic;
  its results are rounded to the dtypes of the leaves named by
  ``results_like`` (see :class:`LeafKernel`), and ``.map`` calls it over
  trees.

  Args:
    results_like: for each result, the position of the leaf argument whose
      dtype it is stored in.
    static_argnames: keyword arguments that are Python values.

  Returns:
    A decorator turning a module-level function into a :class:`LeafKernel`.

  Examples:
    >>> import jax.numpy as jnp
    >>> from optax._src import leaf_kernels
    >>> @leaf_kernels.per_leaf(results_like=(0,))
    ... def halved(x):
    ...   return x.astype(jnp.float32) / 2
    >>> out, = halved.map(({'w': jnp.ones(2, jnp.bfloat16)},))
    >>> out['w']
    Array([0.5, 0.5], dtype=bfloat16)
  """

  def decorate(fn: Callable[..., Any]) -> LeafKernel:
    return LeafKernel(fn, results_like=results_like,
                      static_argnames=static_argnames)

  return decorate


def _stored_like(fn: Callable[..., Any],
                 positions: tuple[int, ...]) -> Callable[..., Any]:
  """``fn`` whose results are cast to the dtypes of its leaves ``positions``."""

  @functools.wraps(fn)
  def stored(*args: Any, **kwargs: Any) -> Any:
    results = fn(*args, **kwargs)
    if len(positions) == 1:
      results = (results,)
    stored_results = tuple(
        dtypes.cast(dtypes.as_array(x), dtypes.dtype_of(args[i]))
        for x, i in zip(results, positions))
    return stored_results[0] if len(positions) == 1 else stored_results

  return stored
