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
"""Numerically safe helpers: norms with finite gradients, saturating counters.
"""

import functools
import numbers
from typing import Any, NamedTuple, Optional, Union

import jax
import jax.numpy as jnp
import numpy as np

from optax._src import base


def is_number(x: Any) -> bool:
  """Whether ``x`` is a Python or NumPy real number (bools excluded).

  Such hyperparameters are known when an optimizer is built, so they can be
  validated then; arrays and schedules are checked, if at all, when used.

  Args:
    x: any value.

  Returns:
    True for ``3``, ``0.5``, ``np.float32(0.5)``; False for ``True``, arrays
    and callables.
  """
  return isinstance(x, numbers.Real) and not isinstance(x, (bool, np.bool_))


def promote_dtypes(*dtypes: Any) -> np.dtype:
  """The standard JAX promotion of ``dtypes``, also under strict promotion.

  The result picks the precision in which values are combined after explicit
  casts, so code using it runs whatever ``jax_numpy_dtype_promotion`` says.

  Args:
    *dtypes: one or more dtypes.

  Returns:
    The dtype that ``jnp.promote_types`` gives for all of them.
  """
  try:
    return _promote_cached(dtypes, bool(jax.config.jax_enable_x64))
  except TypeError:  # An unhashable dtype-like: compute it directly.
    return _promote(dtypes)


def _promote(dtypes: tuple[Any, ...]) -> np.dtype:
  with jax.numpy_dtype_promotion('standard'):
    return functools.reduce(jnp.promote_types, dtypes)


@functools.lru_cache(maxsize=512)
def _promote_cached(dtypes: tuple[Any, ...], x64: bool) -> np.dtype:
  # Called once per leaf and per transformation while tracing: entering the
  # promotion context and walking the lattice each time costs more than the
  # arithmetic it is for. The x64 flag is part of the key as a precaution.
  del x64
  return _promote(dtypes)


def cast(x: jax.Array, dtype: Any) -> jax.Array:
  """``x.astype(dtype)``, returning ``x`` itself when that cast is a no-op.

  ``astype`` to the dtype an array already has emits nothing, but the call
  still goes through ``jnp``'s argument checks; on a tree of thousands of
  leaves those calls dominate the time to trace an optimizer step. A weakly
  typed ``x`` is still cast, so the result is never weakly typed.

  Args:
    x: a JAX array or tracer.
    dtype: the target dtype.

  Returns:
    ``x`` in ``dtype``.
  """
  if x.dtype == dtype and getattr(x, 'weak_type', True) is False:
    return x
  if isinstance(x, jax.Array) and _is_real_float_cast(
      x.dtype, dtype, bool(jax.config.jax_enable_x64)):
    # Exactly what ``astype`` does for these dtypes, minus its checks.
    return jax.lax.convert_element_type(x, dtype)
  return x.astype(dtype)


def as_array(x: Any) -> jax.Array:
  """``x`` itself if it is a JAX array or tracer, else ``jnp.asarray(x)``.

  ``jnp.asarray`` of an array returns it unchanged too, after argument
  checks that cost time per leaf when tracing a large tree.

  Args:
    x: an array, tracer, NumPy array or Python number.

  Returns:
    A JAX array (or tracer).
  """
  return x if isinstance(x, jax.Array) else jnp.asarray(x)


@functools.lru_cache(maxsize=256)
def _is_real_float_cast(src: Any, dst: Any, x64: bool) -> bool:
  del x64  # Part of the cache key: it decides which dtypes are canonical.
  try:
    dst = np.dtype(dst)
  except TypeError:
    return False
  return (jnp.issubdtype(src, jnp.floating)
          and jnp.issubdtype(dst, jnp.floating)
          and jax.dtypes.canonicalize_dtype(dst) == dst)


def scalar_state_dtype(params: Any, *, widest: bool = False) -> np.dtype:
  """The dtype of an optimizer's scalar statistics for ``params``.

  By default the lowest floating dtype of the params' leaves (the one every
  other leaf dtype promotes to), their promotion when there is no lowest one
  (float16 with bfloat16), and :func:`hyperparameter_dtype` when no leaf is
  floating. With ``widest=True``, the dtype all floating leaf dtypes promote
  to: float32 for float32 and bfloat16 params, the dtype in which a
  statistic summed over every leaf (a loss, a distance, a learning-rate
  estimate) is computed.

  Args:
    params: a pytree of arrays or ``jax.ShapeDtypeStruct``.
    widest: whether to return the promotion of the floating dtypes instead
      of the lowest one.

  Returns:
    A floating (or complex) dtype.
  """
  floats = {jnp.result_type(x) for x in jax.tree.leaves(params)}
  floats = sorted((d for d in floats if jnp.issubdtype(d, jnp.inexact)),
                  key=str)
  if not floats:
    return hyperparameter_dtype()
  if widest:
    return promote_dtypes(*floats)
  for candidate in floats:
    if all(promote_dtypes(candidate, d) == d for d in floats):
      return candidate
  return promote_dtypes(*floats)


class ScalarsByDtype:
  """Scalars cast (and broadcast) once per tree, not once per leaf.

  Casting the same hyperparameter again for every leaf adds an equation per
  leaf to the traced program (and Python work to trace it); this keeps one
  cast per distinct dtype. Given a traced leaf, it also keeps one broadcast
  per distinct ``(dtype, shape)``: a scalar that is not a compile-time
  constant (an injected hyperparameter, a bias correction) is otherwise
  broadcast again in every leaf's arithmetic, and XLA has to compile, then
  merge, one broadcast per leaf and per scalar. Use it within one trace
  only.

  Examples:
    >>> import jax
    >>> import jax.numpy as jnp
    >>> from optax._src import numerics
    >>> scalars = numerics.ScalarsByDtype(jnp.float32(0.5))
    >>> scalars.get(jnp.bfloat16)
    (Array(0.5, dtype=bfloat16),)
    >>> jax.jit(lambda x: scalars.get(jnp.float32, x))(jnp.zeros(2))
    (Array([0.5, 0.5], dtype=float32),)
  """

  def __init__(self, *scalars: jax.Array):
    self._scalars = scalars
    self._by_dtype: dict[Any, tuple[jax.Array, ...]] = {}

  @property
  def dtypes(self) -> tuple[Any, ...]:
    """The scalars' own dtypes."""
    return tuple(x.dtype for x in self._scalars)

  def get(self, dtype: Any, like: Optional[Any] = None
          ) -> tuple[jax.Array, ...]:
    """The scalars, each cast to ``dtype`` (and broadcast like ``like``).

    Args:
      dtype: the dtype of the results.
      like: a leaf; when it is traced (under ``jit``) the scalars are
        broadcast to its shape. They stay scalars for a concrete leaf (run
        op by op, XLA computes ``x / s`` with a scalar ``s`` otherwise than
        with a broadcast one, and the bits are kept as they were) and for a
        leaf sharded in its type (an explicit mesh axis), which a
        replicated broadcast would not match.

    Returns:
      The scalars, in the order given to the constructor.
    """
    if (like is None or not isinstance(like, jax.core.Tracer)
        or explicit_spec(like)):
      shape = ()
    else:
      shape = tuple(like.shape)
    key = (dtype, shape)
    if key not in self._by_dtype:
      if shape:
        self._by_dtype[key] = tuple(
            jax.lax.broadcast_in_dim(x, shape, ()) for x in self.get(dtype))
      else:
        self._by_dtype[key] = tuple(cast(x, dtype) for x in self._scalars)
    return self._by_dtype[key]

  def lift(self, *arrays: jax.Array) -> tuple[jax.Array, ...]:
    """``arrays`` in their common dtype with the scalars, then the scalars.

    Args:
      *arrays: one or more leaves (the first one shapes the broadcasts, as
        ``like`` of :meth:`get`).

    Returns:
      The arrays cast to the promotion of their dtypes and the scalars',
      followed by the scalars in that dtype (see :meth:`get`).
    """
    dtype = promote_dtypes(*(x.dtype for x in arrays), *self.dtypes)
    lifted = tuple(cast(x, dtype) for x in arrays)
    return lifted + self.get(dtype, lifted[0])


class Float0Leaves(NamedTuple):
  """Where :func:`as_updates` found ``float0`` gradients.

  Attributes:
    treedef: the structure of the updates (None leaves are leaves).
    positions: the indices of the ``float0`` leaves in the flat list.
    dtypes: the dtype of each such leaf's zero update: its param's integer
      or boolean dtype, so that ``apply_updates`` keeps the param as it is,
      or the dtype the gradient was prepared in when no param says.
  """

  treedef: Any
  positions: tuple[int, ...]
  dtypes: tuple[Any, ...]

  def zero(self, updates: Any) -> Any:
    """``updates`` with zeros (of each leaf's dtype) at the float0 places.

    Args:
      updates: the updates a transformation returned for the gradients
        that :func:`as_updates` prepared.

    Returns:
      The same tree, with those leaves zero whatever the transformation
      computed for them (weight decay, say, on an integer param).
    """
    leaves = self.treedef.flatten_up_to(updates)
    for i, dtype in zip(self.positions, self.dtypes):
      leaves[i] = jnp.zeros(jnp.shape(leaves[i]), dtype)
    return self.treedef.unflatten(leaves)


def _is_none(x: Any) -> bool:
  return x is None


# The exact types of Python-number leaves (bool is a leaf type of its own).
_PYTHON_NUMBERS = frozenset((bool, int, float, complex))


def _is_number_leaf(x: Any) -> bool:
  """Whether a leaf is a Python number (NumPy scalars have a dtype)."""
  return type(x) in _PYTHON_NUMBERS  # Exact types: no ABC check per leaf.


def _leaf_dtype(x: Any) -> Optional[np.dtype]:
  """The dtype of an array-like leaf (or ShapeDtypeStruct); else None."""
  if x is None:
    return None
  return getattr(x, 'dtype', None)


# Floating dtypes that a gradient in its param's dtype keeps (a fast path).
_FLOATING_KEEP = frozenset(np.dtype(d) for d in (
    np.float16, np.float32, np.float64, jnp.bfloat16, np.complex64,
    np.complex128))


@functools.lru_cache(maxsize=256)
def _update_dtype_cached(g_dtype: np.dtype, p_dtype: Optional[np.dtype],
                         x64: bool) -> Optional[np.dtype]:
  del x64  # Part of the cache key: it decides hyperparameter_dtype().
  p_floating = p_dtype is not None and jnp.issubdtype(p_dtype, jnp.inexact)
  if (g_dtype == jax.dtypes.float0
      or not jnp.issubdtype(g_dtype, jnp.inexact)):
    # Integer, boolean or float0 gradients: no transformation can return
    # meaningful updates in such a dtype (0.9 * 3 would truncate to 2).
    return p_dtype if p_floating else hyperparameter_dtype()
  if p_floating and g_dtype != p_dtype and promote_dtypes(
      g_dtype, p_dtype) == p_dtype:
    # A narrower floating gradient (bfloat16 on float32 params): widening
    # it is exact, and everything after is computed in the params' dtype.
    return p_dtype
  return None


def as_updates(updates: Any, params: Optional[Any] = None
               ) -> tuple[Any, Any, Optional[Float0Leaves]]:
  """Gradients and params as the transformations of this library take them.

  The rule: updates are in the params' floating dtype whatever the
  gradients' dtype. A gradient leaf is cast to its param's dtype when it is
  an integer or boolean leaf or a narrower floating one (bfloat16 or
  float16 on float32 params); such a gradient that meets no floating param
  (none given, or an integer param) becomes :func:`hyperparameter_dtype`.
  A ``float0`` gradient (what ``jax.grad(..., allow_int=True)`` gives for
  an integer param) becomes zeros of that dtype, and the caller zeroes the
  final updates of those leaves (see :class:`Float0Leaves`).
  A gradient wider than its param (float32 on bfloat16 params) is kept, so
  that :func:`optax.apply_updates` rounds its sum with the param once.
  Python-number leaves of both trees (``{'w': w, 'scale': 1.5}``) become
  arrays, the gradients then following the same rule. Every decision is
  made in Python while tracing; ordinary gradients and params, arrays with
  the gradients in their params' dtypes, are returned as they are.

  Args:
    updates: the gradients (a pytree; None leaves pass through).
    params: the params, or None when the caller has not given them.

  Returns:
    ``(updates, params, float0_leaves)``: the gradients, cast where the
    rule says so, the params with their Python numbers made arrays, and
    None when no gradient was ``float0``, else where they were.

  Examples:
    >>> import jax.numpy as jnp
    >>> from optax._src import numerics
    >>> numerics.as_updates(jnp.array([3, -2]), jnp.ones(2))[0]
    Array([ 3., -2.], dtype=float32)
  """
  return _prepare(updates, params, None, False)


def _shapes_differ(g: Any, p: Any, per_example: bool) -> bool:
  if g is None or p is None:
    return False
  g_shape, p_shape = np.shape(g), np.shape(p)
  if per_example:
    return not g_shape or g_shape[1:] != p_shape
  return g_shape != p_shape


def _prepare(updates: Any, params: Optional[Any], shapes_for: Optional[str],
             per_example: bool
             ) -> tuple[Any, Any, Optional[Float0Leaves]]:
  """:func:`as_updates`, checking the shapes for ``shapes_for`` if named.

  One pass over the leaves does both, so that a transformation used inside
  a chain (which has prepared the inputs already) costs one flatten of
  each tree while tracing.

  Args:
    updates: the gradients.
    params: the params, or None.
    shapes_for: the public name to raise for, or None for no shape check.
    per_example: whether the gradients have a leading batch axis.

  Returns:
    What :func:`as_updates` returns.
  """
  g_leaves, treedef = jax.tree.flatten(updates, is_leaf=_is_none)
  p_leaves = None
  if params is not None:
    p_leaves, p_def = jax.tree.flatten(params, is_leaf=_is_none)
    if p_def != treedef:
      # Mismatched trees: the transformations raise their own errors
      # (naming the key path); the gradients are prepared on their own.
      p_leaves = None
    elif any(_is_number_leaf(p) for p in p_leaves):
      p_leaves = [jnp.asarray(p) if _is_number_leaf(p) else p
                  for p in p_leaves]
      params = treedef.unflatten(p_leaves)
  changed = False
  float0_positions = []
  float0_dtypes = []
  new_leaves = list(g_leaves)
  x64 = bool(jax.config.jax_enable_x64)
  for i, g in enumerate(g_leaves):
    if shapes_for is not None and p_leaves is not None and _shapes_differ(
        g, p_leaves[i], per_example):
      check_shapes_like_params(
          shapes_for, updates, params, per_example=per_example)
    if _is_number_leaf(g):
      g = jnp.asarray(g)
      new_leaves[i] = g
      changed = True
    g_dtype = _leaf_dtype(g)
    if g_dtype is None:
      continue  # None, or not an array: left to the transformations.
    p_dtype = None if p_leaves is None else _leaf_dtype(p_leaves[i])
    if g_dtype == p_dtype and g_dtype in _FLOATING_KEEP:
      continue  # The common case, decided without a call.
    target = _update_dtype_cached(g_dtype, p_dtype, x64)
    if target is None:
      continue
    changed = True
    if g_dtype == jax.dtypes.float0:
      float0_positions.append(i)
      float0_dtypes.append(
          p_dtype if p_dtype is not None and not jnp.issubdtype(
              p_dtype, jnp.inexact) else target)
      new_leaves[i] = jnp.zeros(np.shape(g), target)
    else:
      new_leaves[i] = cast(as_array(g), target)
  if changed:
    updates = treedef.unflatten(new_leaves)
  float0 = (Float0Leaves(treedef, tuple(float0_positions),
                         tuple(float0_dtypes))
            if float0_positions else None)
  return updates, params, float0


def as_params(params: Any) -> Any:
  """``params`` with its Python-number leaves made arrays (else as given).

  ``{'w': w, 'scale': 1.5}`` is a valid params tree (``apply_updates``
  adds an array update to the number); a transformation's ``init`` builds
  its state from arrays, so the numbers are made arrays first, as
  :func:`as_updates` makes them when ``update`` is called.

  Args:
    params: a pytree (None leaves pass through), or None.

  Returns:
    The same tree, with ``jnp.asarray`` of each Python-number leaf.
  """
  if params is None:
    return None
  leaves, treedef = jax.tree.flatten(params, is_leaf=_is_none)
  if not any(_is_number_leaf(p) for p in leaves):
    return params
  return treedef.unflatten(
      [jnp.asarray(p) if _is_number_leaf(p) else p for p in leaves])


def check_shapes_like_params(fn: str, updates: Any, params: Any, *,
                             per_example: bool = False) -> None:
  """Raises when an array gradient's shape differs from its param's.

  Runs while tracing (shapes are static). Trees of different structures
  are left to the transformations' own checks, which name the key path.

  Args:
    fn: the public name of the caller, for the message.
    updates: the gradients (None leaves allowed).
    params: the params (None leaves allowed).
    per_example: whether each gradient has a leading batch axis (one
      gradient per example, as ``dpsgd`` takes them), its param's shape
      after it.

  Raises:
    ValueError: naming the key path and both shapes.

  Examples:
    >>> import jax.numpy as jnp
    >>> from optax._src import numerics
    >>> params = {'w': jnp.zeros((4, 3))}
    >>> numerics.check_shapes_like_params(
    ...     'f', {'w': jnp.ones((8, 4, 3))}, params, per_example=True)
    >>> numerics.check_shapes_like_params(  # doctest: +ELLIPSIS
    ...     'f', {'w': jnp.ones((1, 3))}, params)
    Traceback (most recent call last):
    ...
    ValueError: f: at ['w'] the gradient has shape (1, 3) but the param ...
  """
  g_leaves, treedef = jax.tree.flatten(updates, is_leaf=_is_none)
  p_leaves, p_def = jax.tree.flatten(params, is_leaf=_is_none)
  if p_def != treedef:
    return  # The transformation's own structure checks say where.
  for index, (g, p) in enumerate(zip(g_leaves, p_leaves)):
    if not _shapes_differ(g, p, per_example):
      continue
    g_shape, p_shape = np.shape(g), np.shape(p)
    path, _ = jax.tree_util.tree_flatten_with_path(
        updates, is_leaf=_is_none)[0][index]
    where = jax.tree_util.keystr(path) or 'the root'
    if per_example:
      wanted = ', '.join(['batch_size', *(str(d) for d in p_shape)])
      raise ValueError(
          f'{fn}: at {where} the per-example gradient has shape {g_shape}'
          f' but the param has shape {p_shape}. Remedy: give one gradient'
          f' per example, shaped ({wanted}), e.g. with'
          ' jax.vmap(jax.grad(loss)).')
    raise ValueError(
        f'{fn}: at {where} the gradient has shape'
        f' {g_shape} but the param has shape {p_shape}. Remedy: give'
        ' gradients shaped as the params (a gradient is never broadcast'
        ' to its param).')


def preparing_inputs(
    fn: str, tx: base.GradientTransformation, *, check_shapes: bool = True,
    per_example: bool = False,
) -> base.GradientTransformation:
  """``tx``, taking its gradients and params as :func:`chain` gives them.

  The same rule as inside ``optax.chain`` (see :func:`as_updates`), for a
  transformation used on its own: integer, boolean and narrower floating
  gradients are cast to the params' floating dtype (or
  :func:`hyperparameter_dtype` when there are no params), ``float0``
  gradients give zero updates, Python-number leaves are made arrays (in
  ``init`` too, see :func:`as_params`), and, when params are given, a
  gradient shaped otherwise than its param is an error naming its key path.
  Every decision is made in Python while tracing; gradients already in the
  params' dtypes and shapes reach ``tx`` as they are.

  Args:
    fn: the public name of the transformation, for error messages.
    tx: the transformation.
    check_shapes: whether to check the gradients' shapes against the
      params'; False for a transformation that takes per-example gradients
      (a leading batch axis) with the params and checks them itself.
    per_example: whether the gradients have a leading batch axis, checked
      by :func:`check_shapes_like_params` (``dpsgd``'s aggregation).

  Returns:
    A transformation of ``tx``'s class (a GradientTransformationExtraArgs
    forwards the extra keyword arguments of ``update``) and state.
  """

  def init_fn(params):
    return tx.init(as_params(params))

  def update_fn(updates, state, params=None, **extra_args):
    updates, params, float0 = _prepare(
        updates, params, fn if check_shapes else None, per_example)
    updates, state = tx.update(updates, state, params, **extra_args)
    if float0 is not None:
      updates = float0.zero(updates)
    return updates, state

  if isinstance(tx, base.GradientTransformationExtraArgs):
    return base.GradientTransformationExtraArgs(init_fn, update_fn)
  return base.GradientTransformation(init_fn, update_fn)


def explicit_spec(x: Any) -> Optional[jax.sharding.PartitionSpec]:
  """The partition spec of ``x`` when it is sharded in its type, else None.

  Under a mesh with explicit axes a sharding is part of an array's type, and
  operands of an elementwise operation must agree on it.

  Args:
    x: an array or tracer.

  Returns:
    The spec of an array sharded over an explicit mesh axis; None for a
    replicated array, or where shardings are not part of types.
  """
  spec = getattr(getattr(jax.typeof(x), 'sharding', None), 'spec', None)
  if spec is None or all(axis is None for axis in spec):
    return None
  return spec


def abs_sq(x: Union[jax.Array, np.ndarray]) -> jax.Array:
  r"""Squared modulus, :math:`|x|^2 = \mathrm{Re}(\bar{x} x)`, real-valued.

  For real input this is ``x ** 2``; for complex input it avoids the
  ``x ** 2`` pitfall of returning a complex number.

  Args:
    x: a real or complex array.

  Returns:
    A real array shaped like ``x``.

  Raises:
    ValueError: if ``x`` is not an array.
  """
  if not isinstance(x, (np.ndarray, jax.Array)):
    raise ValueError(
        f'abs_sq: x must be a jax or numpy array, got {type(x).__name__}')
  return (x.conj() * x).real


def safe_norm(
    x: jax.Array,
    min_norm: base.Numeric,
    ord: Optional[Union[int, float, str]] = None,  # pylint: disable=redefined-builtin
    axis: Union[None, int, tuple[int, ...]] = None,
    keepdims: bool = False,
) -> jax.Array:
  """Norm of ``x`` floored at ``min_norm``, with a finite gradient at zero.

  ``jnp.linalg.norm`` has a NaN gradient at the origin. Here, where the norm
  is at most ``min_norm``, the norm is computed on ones instead (and replaced
  by ``min_norm``), so the gradient there is exactly zero.

  Args:
    x: the input array.
    min_norm: the lower bound of the result.
    ord: the order of the norm, as in ``jnp.linalg.norm``.
    axis: the axis or axes to reduce, as in ``jnp.linalg.norm``.
    keepdims: whether to keep the reduced axes, as in ``jnp.linalg.norm``.

  Returns:
    ``max(norm(x), min_norm)`` with a gradient that is finite everywhere.
  """
  norm = jnp.linalg.norm(x, ord=ord, axis=axis, keepdims=True)
  small = norm <= min_norm
  x_safe = jnp.where(small, jnp.ones_like(x), x)
  norm_safe = jnp.linalg.norm(x_safe, ord=ord, axis=axis, keepdims=keepdims)
  if not keepdims:
    small = jnp.squeeze(small, axis=axis)
  return jnp.where(small, min_norm, norm_safe)


def safe_root_mean_squares(
    x: jax.Array, min_rms: base.Numeric
) -> jax.Array:
  """Root mean square of ``x`` floored at ``min_rms``, finite gradient at 0.

  Args:
    x: the input array.
    min_rms: the lower bound of the result.

  Returns:
    ``max(sqrt(mean(|x| ** 2)), min_rms)``, with a zero gradient wherever the
    floor is active.
  """
  rms = jnp.sqrt(jnp.mean(abs_sq(x)))
  small = rms <= min_rms
  x_safe = jnp.where(small, jnp.ones_like(x), x)
  return jnp.where(small, min_rms, jnp.sqrt(jnp.mean(abs_sq(x_safe))))


def safe_increment(count: base.Numeric) -> jax.Array:
  """Adds one to a counter, saturating at the largest value of its dtype.

  Counters of this library are int32; without saturation they would wrap to
  a negative number after 2**31 - 1 steps and corrupt bias corrections.

  Examples:
    >>> import jax.numpy as jnp
    >>> import optax
    >>> optax.safe_increment(jnp.asarray(3, jnp.int32))
    Array(4, dtype=int32)
    >>> optax.safe_increment(jnp.asarray(2**31 - 1, jnp.int32))
    Array(2147483647, dtype=int32)

  Args:
    count: an integer or floating-point counter.

  Returns:
    ``count + 1``, or ``count`` when that would overflow; same dtype.
  """
  count = jnp.asarray(count)
  dtype = count.dtype
  if jnp.issubdtype(dtype, jnp.integer):
    top = np.asarray(jnp.iinfo(dtype).max, dtype)
  elif jnp.issubdtype(dtype, jnp.floating):
    top = jnp.finfo(dtype).max
  else:
    raise ValueError(
        'safe_increment: count must be an integer or floating array, got'
        f' dtype {dtype}')
  one = jnp.ones([], dtype)
  return jnp.where(count < top, count + one, jnp.asarray(top, dtype))


# Kept for users of the older name.
safe_int32_increment = functools.partial(safe_increment)
safe_int32_increment.__doc__ = 'Deprecated alias of :func:`safe_increment`.'


def hyperparameter_dtype() -> jnp.dtype:
  """The dtype in which scalar hyperparameters are held and combined.

  float32, or float64 when ``jax_enable_x64`` is on. Plain optimizers and
  ``inject_hyperparams`` both turn hyperparameters into this dtype before
  deriving anything from them (``1 - b1``, ``1 - b1 ** t``), so the two give
  bit-identical results.

  Returns:
    The default floating dtype of JAX.
  """
  return jnp.result_type(float)


def _number_in_hyperparameter_dtype(value: Any) -> np.ndarray:
  """A Python number as a NumPy scalar of :func:`hyperparameter_dtype`."""
  return np.asarray(value, dtype=hyperparameter_dtype())


def as_hyperparameter(value: base.Numeric) -> jax.Array:
  """Turns a Python number or a scalar array into a hyperparameter array.

  A Python number is rounded to :func:`hyperparameter_dtype` in NumPy, so
  that under ``jit`` XLA sees a constant of those bits (and folds it into
  each leaf's fused computation, as it does with upstream's numbers); an
  injected value is the same float32 number, held in the state.

  Args:
    value: a Python number, a NumPy or JAX scalar (possibly traced).

  Returns:
    ``value`` as an array of :func:`hyperparameter_dtype`.
  """
  if is_number(value):
    return jnp.asarray(_number_in_hyperparameter_dtype(value))
  return jnp.asarray(value, dtype=hyperparameter_dtype())


def as_hyperparameter_unless(
    value: base.Numeric, neutral: float) -> Optional[jax.Array]:
  """``as_hyperparameter(value)``, or ``None`` for the number ``neutral``.

  A term that is a literal zero (``eps_root`` under a square root) or a
  factor that is a literal one (``max_norm=1.0``) changes no bit where it is
  applied, so the caller leaves the operation out, in the program as traced
  (XLA would fold such a constant too, but only after the trace has paid
  for the operation on every leaf).

  Args:
    value: a Python number, a NumPy or JAX scalar (possibly traced).
    neutral: the number for which the operation is the identity.

  Returns:
    ``None`` when ``value`` is a Python number equal to ``neutral``,
    otherwise ``as_hyperparameter(value)``.
  """
  if is_number(value) and value == neutral:
    return None
  return as_hyperparameter(value)


def hyperparameter_and_complement(
    value: base.Numeric) -> tuple[jax.Array, jax.Array]:
  """``as_hyperparameter(value)`` and ``1 - as_hyperparameter(value)``.

  The complement is computed in :func:`hyperparameter_dtype`, from the
  rounded value, so its bits are those an injected array gives. For a
  Python number both are computed in NumPy, while tracing: XLA sees two
  constants, and no subtraction is left for the fused computation of each
  leaf.

  Args:
    value: a Python number, a NumPy or JAX scalar (possibly traced).

  Returns:
    The pair ``(value, 1 - value)`` as arrays of :func:`hyperparameter_dtype`.
  """
  if is_number(value):
    number = _number_in_hyperparameter_dtype(value)
    complement = np.asarray(number.dtype.type(1) - number, number.dtype)
    return jnp.asarray(number), jnp.asarray(complement)
  array = jnp.asarray(value, dtype=hyperparameter_dtype())
  return array, 1 - array


def real_vdot(tree_x: Any, tree_y: Any, dtype: Any) -> jax.Array:
  """Real part of ``optax.tree.vdot``, accumulated in at least ``dtype``.

  Each leaf's product is computed in the promotion of the two leaves'
  dtypes and ``dtype`` and its sum cast to ``dtype`` before the leaves are
  added, so trees mixing float32 and bfloat16 leaves work under strict
  promotion.

  Args:
    tree_x: a pytree (conjugated).
    tree_y: a pytree with the structure of ``tree_x``.
    dtype: the dtype of the result.

  Returns:
    A scalar of dtype ``dtype``.
  """

  def leaf(x, y):
    ct = promote_dtypes(x.dtype, y.dtype, dtype)
    return jnp.real(leaf_vdot(x.astype(ct), y.astype(ct))).astype(dtype)

  terms = jax.tree.leaves(jax.tree.map(leaf, tree_x, tree_y))
  return sum(terms, jnp.zeros([], dtype))


@jax.jit
def leaf_vdot(a: Any, b: Any) -> jax.Array:
  """``jnp.vdot`` of two leaves of one shape, without flattening them.

  A full contraction (``tensordot`` over every axis) keeps the leaves'
  layout: no reshape, hence no resharding of sharded leaves. It is jitted,
  as ``jnp.vdot`` is, so that the conjugation fuses into the contraction
  and the result rounds as ``jnp.vdot``'s does also outside ``jax.jit``.
  Under explicit sharding the scalar result is asked for replicated (the
  output sharding of a contraction over sharded axes is otherwise
  ambiguous). ``HIGHEST`` precision keeps float32 products
  out of reduced-precision (TF32, bfloat16 pass) matmul units.

  Args:
    a: an array-like (conjugated).
    b: an array-like of the shape of ``a``.

  Returns:
    A scalar array.
  """
  a = jnp.asarray(a)
  b = jnp.asarray(b)
  if jnp.issubdtype(a.dtype, jnp.complexfloating):
    a = jnp.conj(a)
  mesh = jax.typeof(a).sharding.mesh
  out_sharding = None
  if not mesh.empty and mesh.explicit_axes:
    out_sharding = jax.sharding.NamedSharding(mesh, jax.P())
  return jnp.tensordot(a, b, a.ndim, precision=jax.lax.Precision.HIGHEST,
                       out_sharding=out_sharding)
