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
"""Microbatching: evaluate a function on a batch one slice at a time.

A batch of size :math:`B` is cut into :math:`n = B / m` microbatches of size
:math:`m`; the function runs on each in turn (a ``lax.fori_loop``, so only
one microbatch is live in memory) and the results are combined by an
accumulator (sum, mean, running mean or concatenation). This trades time for
memory, e.g. to compute the gradient of a batch too large for the device.

Microbatch :math:`i` holds the elements :math:`i, i + n, i + 2n, \\dots` of
the batch (a strided split, see :func:`reshape_batch_axis`): with a batch
sharded across devices, every microbatch is then spread over all of them.
Concatenated results are put back in the original order.

The batched arguments may be given by position or by keyword: each call is
matched to the function's signature (``inspect.signature(fun).bind``), so
``argnums`` finds an argument passed by keyword and ``argnames`` one passed
by position. A batch of size 0 gives the accumulation of no microbatch:
zeros for SUM and RUNNING_MEAN, an empty concatenation for CONCAT, and NaN
for MEAN (the sum of nothing divided by zero microbatches), as upstream
Optax. A batch axis sharded over an explicit mesh axis keeps its sharding in
every microbatch and in concatenated results.

Profiles show each call as nested ``jax.named_call`` spans, named as
upstream Optax names them: ``microbatch_size_{m}`` around a microbatched
call and ``{n}_microbatches`` around the loop's body; ``micro_vmap_size_{m}``
and ``micro_grad_size_{m}`` around the calls of :func:`micro_vmap` and
:func:`micro_grad` (``m`` may be None), ``micro_vmap_step`` around the
vectorised evaluation of one microbatch and ``micro_grad_step`` around one
element's gradient.
"""

from collections.abc import Callable, Sequence
import dataclasses
import enum
import functools
import inspect
from typing import Any, NamedTuple, Optional, Union

import jax
import jax.numpy as jnp

from optax._src import base

ArrayTree = base.ArrayTree


class AccumulationType(enum.Enum):
  """How the results of the microbatches are combined.

  Attributes:
    MEAN: the sum divided by the number of microbatches.
    SUM: the sum.
    RUNNING_MEAN: the mean, updated after each microbatch,
      :math:`r_{i+1} = \\frac{i}{i + 1} r_i + \\frac{1}{i + 1} v_i`; with
      ``num_real_microbatches`` it is the mean over the real ones.
    CONCAT: the results concatenated along their first axis, in the order of
      the original batch.
  """

  MEAN = 1
  SUM = 2
  RUNNING_MEAN = 3
  CONCAT = 4


@dataclasses.dataclass(frozen=True)
class Accumulator:
  """How to combine the results of the microbatches.

  Attributes:
    init: maps the shapes and dtypes of one microbatch's result (a pytree of
      ``jax.ShapeDtypeStruct``) to the initial accumulator state.
    update: maps ``(state, value, index)`` to the new state, where ``value``
      is the result of microbatch ``index`` (an int32 scalar).
    finalize: maps the final state to the combined result.
    aggregate: reduces per-element results (stacked on axis 0) to the result
      of one microbatch; used by :func:`micro_vmap` and :func:`micro_grad`.
  """

  init: Callable[[ArrayTree], ArrayTree]
  update: Callable[[ArrayTree, ArrayTree, int], ArrayTree]
  finalize: Callable[[ArrayTree], ArrayTree]
  aggregate: Callable[[ArrayTree], ArrayTree]


AccumulatorTree = Union[Accumulator, AccumulationType, Any]
"""An accumulator, or a pytree of them, a prefix of the result's pytree."""


class Aux(NamedTuple):
  """Per-element outputs of a function made by :func:`micro_grad`.

  Attributes:
    values: the value of the function for each element, shape ``(B,)``.
    metrics: ``metrics_fn`` of each element's gradient, stacked.
    aux: the auxiliary output of each element (``has_aux=True``), stacked;
      else None.
  """

  values: Any
  metrics: Any
  aux: Any


def _zeros(shape_dtype: Any, leading: tuple[int, ...] = ()) -> jax.Array:
  """Zeros of ``leading + shape``; a sharding over explicit mesh axes (as
  ``jax.eval_shape`` reports it) is kept, the leading axes replicated."""
  shape = leading + tuple(shape_dtype.shape)
  sharding = getattr(shape_dtype, 'sharding', None)
  if (isinstance(sharding, jax.sharding.NamedSharding)
      and sharding.mesh.explicit_axes):
    spec = tuple(sharding.spec) + (None,) * (
        len(shape_dtype.shape) - len(sharding.spec))
    out = jax.sharding.NamedSharding(
        sharding.mesh, jax.sharding.PartitionSpec(*((None,) * len(leading)),
                                                  *spec))
    return jnp.zeros(shape, shape_dtype.dtype, out_sharding=out)
  return jnp.zeros(shape, shape_dtype.dtype)


def _sum_accumulator() -> Accumulator:
  return Accumulator(
      init=lambda shapes: jax.tree.map(_zeros, shapes),
      update=lambda state, value, index: jax.tree.map(
          jnp.add, state, value),
      finalize=lambda state: state,
      aggregate=lambda values: jax.tree.map(
          lambda v: jnp.sum(v, axis=0), values),
  )


def _check_floating(shapes: Any) -> None:
  for leaf in jax.tree.leaves(shapes):
    if not jnp.issubdtype(leaf.dtype, jnp.inexact):
      raise ValueError(
          'MEAN and RUNNING_MEAN Accumulators require floating-point values.'
          f' Got a result of dtype {leaf.dtype}; use SUM, or cast the result'
          ' of the function to a float.')


def _mean_accumulator(num_microbatches: Optional[int]) -> Accumulator:
  def init(shapes):
    _check_floating(shapes)
    return jax.tree.map(_zeros, shapes)

  return Accumulator(
      init=init,
      update=lambda state, value, index: jax.tree.map(
          jnp.add, state, value),
      # An empty batch has no microbatch: 0 / 0 is NaN, as upstream's.
      finalize=lambda state: jax.tree.map(
          lambda s: (s / num_microbatches).astype(s.dtype), state),
      aggregate=lambda values: jax.tree.map(
          lambda v: jnp.mean(v, axis=0), values),
  )


def _running_mean_accumulator() -> Accumulator:
  def init(shapes):
    _check_floating(shapes)
    return jax.tree.map(_zeros, shapes)

  def update(state, value, index):
    # r_{i+1} = r_i i / (i + 1) + v_i / (i + 1), with the weight derived once.
    decay = index / (index + 1)
    return jax.tree.map(
        lambda r, v: (r * decay + (1 - decay) * v).astype(r.dtype),
        state, value)

  return Accumulator(
      init=init,
      update=update,
      finalize=lambda state: state,
      aggregate=lambda values: jax.tree.map(
          lambda v: jnp.mean(v, axis=0), values),
  )


def _concat_accumulator(num_microbatches: Optional[int]) -> Accumulator:
  def init(shapes):
    return jax.tree.map(
        lambda s: _zeros(s, (num_microbatches,)), shapes)

  def update(state, value, index):
    return jax.tree.map(
        lambda s, v: jax.lax.dynamic_update_index_in_dim(s, v, index, 0),
        state, value)

  def finalize(state):
    # state[i, j] comes from element i + n j of the batch.
    def restore_order(s):
      if s.ndim < 2:
        return s
      return jnp.reshape(jnp.swapaxes(s, 0, 1),
                         (s.shape[0] * s.shape[1],) + s.shape[2:])

    return jax.tree.map(restore_order, state)

  return Accumulator(init=init, update=update, finalize=finalize,
                     aggregate=lambda values: values)


def _is_accumulator_leaf(x: Any) -> bool:
  return isinstance(x, (Accumulator, AccumulationType))


def _canonicalize(accumulator: AccumulatorTree,
                  num_microbatches: Optional[int]) -> Accumulator:
  """Turns a pytree of accumulators into one accumulator."""
  if isinstance(accumulator, Accumulator):
    return accumulator
  if isinstance(accumulator, AccumulationType):
    if accumulator == AccumulationType.SUM:
      return _sum_accumulator()
    if accumulator == AccumulationType.MEAN:
      return _mean_accumulator(num_microbatches)
    if accumulator == AccumulationType.RUNNING_MEAN:
      return _running_mean_accumulator()
    return _concat_accumulator(num_microbatches)
  leaves, treedef = jax.tree.flatten(accumulator,
                                     is_leaf=_is_accumulator_leaf)
  for leaf in leaves:
    if not _is_accumulator_leaf(leaf):
      raise ValueError(
          'accumulator must be an Accumulator, an AccumulationType or a'
          f' pytree of them, got a leaf of type {type(leaf).__name__}.')
  members = [_canonicalize(leaf, num_microbatches) for leaf in leaves]

  def per_member(method_name):
    def apply(tree, *rest):
      parts = treedef.flatten_up_to(tree)
      return treedef.unflatten([
          getattr(member, method_name)(part, *rest)
          for member, part in zip(members, parts)
      ])
    return apply

  def update(state, value, index):
    states = treedef.flatten_up_to(state)
    values = treedef.flatten_up_to(value)
    return treedef.unflatten([
        member.update(s, v, index)
        for member, s, v in zip(members, states, values)
    ])

  return Accumulator(init=per_member('init'), update=update,
                     finalize=per_member('finalize'),
                     aggregate=per_member('aggregate'))


def reshape_batch_axis(tree: Any, microbatch_size: int, axis: int = 0) -> Any:
  """Splits a batch axis into (microbatches, microbatch elements).

  An axis of size :math:`B = n m` becomes the two axes :math:`(n, m)`,
  microbatch :math:`i` holding the elements :math:`i, i + n, \\dots,
  i + (m - 1) n` (a strided split).

  Examples:
    >>> import jax.numpy as jnp
    >>> from optax import microbatching
    >>> microbatching.reshape_batch_axis(jnp.arange(6), 2)
    Array([[0, 3],
           [1, 4],
           [2, 5]], dtype=int32)

  Args:
    tree: a pytree of arrays sharing the batch axis.
    microbatch_size: the size :math:`m` of each microbatch.
    axis: the batch axis (negative values count from the end).

  Returns:
    The pytree with the batch axis replaced by two axes.

  Raises:
    ValueError: if the batch size is not a multiple of ``microbatch_size``.
  """
  if microbatch_size is None or microbatch_size < 1:
    raise ValueError(
        'reshape_batch_axis: microbatch_size must be a positive integer, got'
        f' {microbatch_size}.')

  def reshape(x):
    x = jnp.asarray(x)
    ax = axis + x.ndim if axis < 0 else axis
    if not 0 <= ax < x.ndim:
      raise ValueError(
          f'reshape_batch_axis: axis {axis} is out of range for an array of'
          f' shape {x.shape}.')
    batch_size = x.shape[ax]
    if batch_size % microbatch_size:
      raise ValueError(
          f'batch_size={batch_size} must be divisible by'
          f' microbatch_size={microbatch_size}.')
    split = (x.shape[:ax] + (microbatch_size, batch_size // microbatch_size)
             + x.shape[ax + 1:])
    return jnp.swapaxes(jnp.reshape(x, split), ax, ax + 1)

  return jax.tree.map(reshape, tree)


def _as_tuple(x: Union[Any, Sequence[Any]], kind: type) -> tuple[Any, ...]:
  if isinstance(x, kind):
    return (x,)
  return tuple(x)


def _batch_size(trees: Sequence[Any], axes: Sequence[int]) -> int:
  sizes = []
  for tree, axis in zip(trees, axes):
    for leaf in jax.tree.leaves(tree):
      sizes.append(jnp.shape(leaf)[axis])
  if not sizes:
    raise ValueError('microbatch: the batched arguments have no arrays.')
  if any(s != sizes[0] for s in sizes):
    raise ValueError(
        f'Batch Arguments must have equal-size batch axes, found {sizes}.')
  return sizes[0]


_POSITIONAL_KINDS = (inspect.Parameter.POSITIONAL_ONLY,
                     inspect.Parameter.POSITIONAL_OR_KEYWORD)


def _named_wrapper(fun: Callable[..., Any], run: Callable[..., Any],
                   name: str) -> Callable[..., Any]:
  """``run``, with ``fun``'s name and docstring, traced as a call ``name``.

  Args:
    fun: the function being wrapped (its metadata is copied).
    run: what the wrapper calls.
    name: the name of the ``jax.named_call`` span in profiles.

  Returns:
    The wrapper.
  """

  @functools.wraps(fun)
  def wrapped(*args, **kwargs):
    return jax.named_call(run, name=name)(*args, **kwargs)

  return wrapped


def _signature(fun: Callable[..., Any]) -> Optional[inspect.Signature]:
  try:
    return inspect.signature(fun)
  except (TypeError, ValueError):  # Some builtins have none.
    return None


def _bind(signature: Optional[inspect.Signature], args: tuple[Any, ...],
          kwargs: dict[str, Any]) -> tuple[tuple[Any, ...], dict[str, Any]]:
  """The call in canonical form: what can be passed by position is."""
  if signature is None:
    return tuple(args), dict(kwargs)
  bound = signature.bind(*args, **kwargs)
  return tuple(bound.args), dict(bound.kwargs)


def _locate(
    fn: str,
    signature: Optional[inspect.Signature],
    args: tuple[Any, ...],
    kwargs: dict[str, Any],
    argnums: Sequence[int],
    argnames: Sequence[str],
) -> list[Union[int, str]]:
  """Where each batched argument is in the canonical call.

  Args:
    fn: the entry point, for the messages.
    signature: the signature of the function, or None if it has none.
    args: the positional arguments of the canonical call.
    kwargs: its keyword arguments.
    argnums: the positions of the batched arguments in the signature.
    argnames: the names of the batched arguments.

  Returns:
    For each of ``argnums + argnames``, an index into ``args`` or a key of
    ``kwargs``.
  """
  positional = [] if signature is None else [
      p.name for p in signature.parameters.values()
      if p.kind in _POSITIONAL_KINDS]
  locations = []
  for num in argnums:
    index = num + len(args) if num < 0 else num
    if 0 <= index < len(args):
      locations.append(index)
    elif 0 <= num < len(positional) and positional[num] in kwargs:
      locations.append(positional[num])
    else:
      raise ValueError(
          f'{fn}: argnums names argument {num}, which this call does not'
          f' pass ({len(args)} positional arguments, keywords'
          f' {sorted(kwargs)}).')
  for name in argnames:
    if name in kwargs:
      locations.append(name)
    elif name in positional and positional.index(name) < len(args):
      locations.append(positional.index(name))
    else:
      raise ValueError(
          f'{fn}: argnames names {name!r}, which this call does not pass'
          f' ({len(args)} positional arguments, keywords {sorted(kwargs)}).')
  if len(set(locations)) != len(locations):
    raise ValueError(
        f'{fn}: argnums {tuple(argnums)} and argnames {tuple(argnames)} name'
        ' the same argument more than once.')
  return locations


def _run_microbatches(
    microbatch_fn: Callable[..., Any],
    args: tuple[Any, ...],
    kwargs: dict[str, Any],
    locations: Sequence[Union[int, str]],
    in_axes: Sequence[int],
    microbatch_size: int,
    accumulator: AccumulatorTree,
    num_real_microbatches: Optional[Union[int, jax.Array]],
) -> Any:
  """Loops ``microbatch_fn`` over microbatches and accumulates.

  Args:
    microbatch_fn: the function of one microbatch.
    args: the positional arguments of the call.
    kwargs: its keyword arguments.
    locations: the batched arguments: indices into ``args``, keys of
      ``kwargs``.
    in_axes: the batch axis of each batched argument.
    microbatch_size: the number of elements per microbatch.
    accumulator: how the results are combined.
    num_real_microbatches: the number of microbatches evaluated, or None for
      all.

  Returns:
    The accumulated result.
  """
  args = list(args)
  kwargs = dict(kwargs)
  batched = [kwargs[loc] if isinstance(loc, str) else args[loc]
             for loc in locations]
  batch_size = _batch_size(batched, in_axes)
  if batch_size % microbatch_size:
    raise ValueError(
        f'batch_size={batch_size} must be divisible by'
        f' microbatch_size={microbatch_size}.')
  num_microbatches = batch_size // microbatch_size
  if (isinstance(num_real_microbatches, int)
      and not 0 <= num_real_microbatches <= num_microbatches):
    raise ValueError(
        f'num_real_microbatches={num_real_microbatches} must be in [0,'
        f' {num_microbatches}] (the number of microbatches).')
  reshaped = [reshape_batch_axis(tree, microbatch_size, axis)
              for tree, axis in zip(batched, in_axes)]

  def take(index, x, axis):
    if num_microbatches == 0:
      # An empty batch: a stand-in microbatch, only ever traced for shapes.
      return jnp.zeros(x.shape[:axis] + x.shape[axis + 1:], x.dtype)
    return jax.lax.dynamic_index_in_dim(x, index, axis, keepdims=False)

  def call(index):
    for loc, tree, axis in zip(locations, reshaped, in_axes):
      piece = jax.tree.map(
          functools.partial(take, index, axis=axis), tree)
      if isinstance(loc, str):
        kwargs[loc] = piece
      else:
        args[loc] = piece
    return microbatch_fn(*args, **kwargs)

  acc = _canonicalize(accumulator, num_microbatches)
  first = jnp.zeros([], jnp.int32)
  state = acc.init(jax.eval_shape(call, first))
  if num_microbatches == 0:
    return acc.finalize(state)

  @functools.partial(jax.named_call, name=f'{num_microbatches}_microbatches')
  def body(index, state):
    return acc.update(state, call(index), index)

  upper = (num_microbatches if num_real_microbatches is None
           else num_real_microbatches)
  state = jax.lax.fori_loop(0, upper, body, state)
  return acc.finalize(state)


def microbatch(
    fun: Callable[..., Any],
    argnums: Union[int, Sequence[int]],
    microbatch_size: Optional[int],
    accumulator: AccumulatorTree = AccumulationType.SUM,
    *,
    argnames: Union[str, Sequence[str]] = (),
    in_axes: Union[int, Sequence[int]] = 0,
    num_real_microbatches: Optional[Union[int, jax.Array]] = None,
) -> Callable[..., Any]:
  """Evaluates a function on a batch, one microbatch at a time.

  The arguments ``argnums`` (positions) and ``argnames`` (keywords) are
  batched along ``in_axes``; the others are passed unchanged. ``fun`` is
  called on each microbatch of ``microbatch_size`` elements in a
  ``lax.fori_loop`` and the results are combined by ``accumulator``. For
  ``fun`` that sums over the batch (e.g. a loss summed over examples, or its
  gradient), SUM gives the same result as ``fun`` on the whole batch with a
  fraction of the memory.

  Examples:
    >>> import jax.numpy as jnp
    >>> from optax import microbatching
    >>> total = microbatching.microbatch(jnp.sum, argnums=0,
    ...                                  microbatch_size=2)
    >>> total(jnp.arange(6.0))
    Array(15., dtype=float32)

  Args:
    fun: the function.
    argnums: the position(s) of the batched arguments.
    microbatch_size: the number of elements per microbatch, dividing the
      batch size; None calls ``fun`` on the whole batch.
    accumulator: an :class:`AccumulationType`, an :class:`Accumulator`, or
      a pytree of them matching (a prefix of) the output of ``fun``.
    argnames: the name(s) of batched keyword arguments.
    in_axes: the batch axis of all batched arguments, or one per batched
      argument (``argnums`` then ``argnames``).
    num_real_microbatches: only the first ``num_real_microbatches``
      microbatches are evaluated (the others are padding); an int or a traced
      scalar. MEAN still divides by the total number of microbatches;
      RUNNING_MEAN averages the real ones; CONCAT leaves zeros for the
      others.

  Returns:
    A function with the signature of ``fun``.
  """
  argnums = _as_tuple(argnums, int)
  argnames = _as_tuple(argnames, str)
  num_batched = len(argnums) + len(argnames)
  in_axes = (in_axes,) * num_batched if isinstance(in_axes, int) else tuple(
      in_axes)
  if len(in_axes) != num_batched:
    raise ValueError(
        f'microbatch: in_axes has {len(in_axes)} entries but there are'
        f' {num_batched} batched arguments (argnums={argnums},'
        f' argnames={argnames}).')
  if microbatch_size is None:
    return fun
  if microbatch_size < 1:
    raise ValueError(
        'microbatch: microbatch_size must be a positive integer or None, got'
        f' {microbatch_size}.')

  signature = _signature(fun)

  def run(*args, **kwargs):
    args, kwargs = _bind(signature, args, kwargs)
    locations = _locate('microbatch', signature, args, kwargs, argnums,
                        argnames)
    return _run_microbatches(fun, args, kwargs, locations, in_axes,
                             microbatch_size, accumulator,
                             num_real_microbatches)

  return _named_wrapper(fun, run, f'microbatch_size_{microbatch_size}')


def micro_vmap(
    fun: Callable[..., Any],
    in_axes: Union[int, Sequence[Optional[int]]] = 0,
    out_axes: Any = 0,
    *,
    microbatch_size: Optional[int] = None,
    vmap_fn: Callable[..., Callable[..., Any]] = jax.vmap,
    accumulator: AccumulatorTree = AccumulationType.CONCAT,
    num_real_microbatches: Optional[Union[int, jax.Array]] = None,
) -> Callable[..., Any]:
  """Maps a function over a batch, vectorised within microbatches.

  Each microbatch is evaluated with ``vmap_fn(fun, in_axes, 0)``; the
  per-element results are reduced by the accumulator's ``aggregate``
  (CONCAT keeps them, SUM sums, MEAN and RUNNING_MEAN average them) and the
  microbatches are combined by the accumulator. With the default CONCAT the
  result is ``jax.vmap(fun)(*args)``, computed ``microbatch_size`` elements
  at a time.

  Examples:
    >>> import jax.numpy as jnp
    >>> from optax import microbatching
    >>> square = microbatching.micro_vmap(lambda x: x ** 2,
    ...                                   microbatch_size=2)
    >>> square(jnp.arange(6.0))
    Array([ 0.,  1.,  4.,  9., 16., 25.], dtype=float32)

  Args:
    fun: the function of one element.
    in_axes: the batch axis of every positional argument, or one per
      argument (None: not batched). Keyword arguments are batched along
      axis 0, as with :func:`jax.vmap`.
    out_axes: must be 0.
    microbatch_size: the number of elements per microbatch; None vectorises
      over the whole batch at once.
    vmap_fn: the vectorising map, called as ``vmap_fn(fun, in_axes,
      out_axes)``.
    accumulator: an :class:`AccumulationType`, an :class:`Accumulator`, or
      a pytree of them matching (a prefix of) the output of ``fun``.
    num_real_microbatches: as in :func:`microbatch`.

  Returns:
    The vectorised function.

  Raises:
    NotImplementedError: if ``out_axes`` is not 0.
  """
  if out_axes != 0:
    raise NotImplementedError('out_axis != 0 is not currently supported')

  signature = _signature(fun)

  def run(*args, **kwargs):
    given = len(args)
    args, kwargs = _bind(signature, args, kwargs)
    if isinstance(in_axes, int):
      axes = (in_axes,) * len(args)
    else:
      # Arguments passed by keyword but bound by position are batched along
      # axis 0, as jax.vmap batches keyword arguments, unless in_axes has
      # an entry for their position.
      axes = tuple(in_axes) + (0,) * max(0, len(args) - max(
          given, len(in_axes)))
    vectorised = vmap_fn(fun, axes, 0)
    acc = _canonicalize(accumulator, None)
    per_microbatch = jax.named_call(
        lambda *a, **kw: acc.aggregate(vectorised(*a, **kw)),
        name='micro_vmap_step')
    if microbatch_size is None:
      return per_microbatch(*args, **kwargs)
    locations = [i for i, axis in enumerate(axes) if axis is not None]
    # As with jax.vmap, keyword arguments are batched along axis 0.
    locations += list(kwargs)
    batched_axes = [axes[i] for i in locations if isinstance(i, int)]
    batched_axes += [0] * len(kwargs)
    # Spanned as a call of microbatch, as upstream's micro_vmap makes one.
    return jax.named_call(
        _run_microbatches, name=f'microbatch_size_{microbatch_size}')(
            per_microbatch, args, kwargs, locations, batched_axes,
            microbatch_size, accumulator, num_real_microbatches)

  return _named_wrapper(fun, run, f'micro_vmap_size_{microbatch_size}')


def micro_grad(
    fun: Callable[..., Any],
    has_aux: bool = False,
    argnums: Union[int, Sequence[int]] = 0,
    *,
    batch_argnums: Union[int, Sequence[int]] = 1,
    keep_batch_dim: bool = True,
    microbatch_size: Optional[int] = None,
    accumulator: AccumulatorTree = AccumulationType.SUM,
    transform_fn: Callable[[ArrayTree], ArrayTree] = lambda g: g,
    metrics_fn: Callable[[ArrayTree], ArrayTree] = lambda g: None,
    num_real_microbatches: Optional[Union[int, jax.Array]] = None,
) -> Callable[..., tuple[Any, Aux]]:
  """Per-example gradients, transformed and accumulated by microbatches.

  For each element of the batch (the arguments ``batch_argnums``, batched
  along axis 0) the gradient of ``fun`` with respect to ``argnums`` is
  computed, passed through ``transform_fn`` (e.g. clipping, for
  differential privacy) and accumulated (SUM by default: the gradient of the
  summed loss). ``metrics_fn`` of each untransformed gradient (e.g. its
  norm), the values and the auxiliary outputs are returned per element.

  Examples:
    >>> import jax.numpy as jnp
    >>> from optax import microbatching
    >>> loss = lambda w, x: jnp.sum((x @ w) ** 2)
    >>> grad_fn = microbatching.micro_grad(loss, microbatch_size=2)
    >>> grads, aux = grad_fn(jnp.ones(2), jnp.eye(4, 2))
    >>> grads, aux.values
    (Array([2., 2.], dtype=float32), Array([1., 1., 0., 0.], dtype=float32))

  Args:
    fun: the loss ``fun(*args)``, a scalar for one element (with
      ``has_aux``, a pair ``(value, aux)``).
    has_aux: whether ``fun`` returns auxiliary data.
    argnums: the argument(s) to differentiate.
    batch_argnums: the batched argument(s), with the batch on axis 0.
    keep_batch_dim: whether ``fun`` sees each element with a batch axis of
      size 1 (True) or without it.
    microbatch_size: the number of elements per microbatch; None processes
      the whole batch at once.
    accumulator: how the transformed gradients are combined (see
      :class:`AccumulationType`; the values, metrics and aux are
      concatenated).
    transform_fn: applied to each element's gradient before accumulation.
    metrics_fn: applied to each element's gradient (before
      ``transform_fn``).
    num_real_microbatches: as in :func:`microbatch`.

  Returns:
    A function of ``*args`` returning ``(grads, Aux(values, metrics,
    aux))``.
  """
  batch_argnums = _as_tuple(batch_argnums, int)
  value_and_grad = jax.value_and_grad(fun, argnums=argnums, has_aux=has_aux)

  @functools.partial(jax.named_call, name='micro_grad_step')
  def per_element(*args, **kwargs):
    if keep_batch_dim:
      args = tuple(
          jax.tree.map(lambda x: jnp.expand_dims(x, 0), a)
          if i in batch_argnums else a for i, a in enumerate(args))
    if has_aux:
      (value, aux), grads = value_and_grad(*args, **kwargs)
    else:
      (value, grads), aux = value_and_grad(*args, **kwargs), None
    return transform_fn(grads), (value, metrics_fn(grads), aux)

  signature = _signature(fun)

  def run(*args, **kwargs):
    # jax.grad differentiates positional arguments: bind the call first.
    args, kwargs = _bind(signature, args, kwargs)
    fn = functools.partial(per_element, **kwargs) if kwargs else per_element
    positions = tuple(a + len(args) if a < 0 else a for a in batch_argnums)
    for num, position in zip(batch_argnums, positions):
      if not 0 <= position < len(args):
        raise ValueError(
            f'micro_grad: batch_argnums names argument {num}, which this'
            f' call does not pass ({len(args)} positional arguments).')
    axes = tuple(0 if i in positions else None for i in range(len(args)))
    mapped = micro_vmap(
        fn, in_axes=axes, microbatch_size=microbatch_size,
        accumulator=(accumulator, AccumulationType.CONCAT),
        num_real_microbatches=num_real_microbatches)
    grads, (values, metrics, aux) = mapped(*args)
    return grads, Aux(values, metrics, aux)

  return _named_wrapper(fun, run, f'micro_grad_size_{microbatch_size}')
