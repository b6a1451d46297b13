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
"""Gradients and params as the transformations of this library take them.

The rule (see :func:`as_updates`): updates are in the params' floating dtype
whatever the gradients' dtype; ``float0`` gradients give zero updates
(:class:`Float0Leaves`); Python-number leaves are made arrays
(:func:`as_params`); a gradient shaped otherwise than its param is an error
naming its key path (:func:`check_shapes_like_params`). ``optax.chain``
applies the rule to its inputs; :func:`with_prepared_inputs` applies it to a
transformation used on its own.
"""

import functools
from typing import Any, NamedTuple, Optional

import jax
import jax.numpy as jnp
import numpy as np

from optax._src import base
from optax._src import dtypes
from optax._src import hyperparameters


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
  del x64  # Part of the cache key: it decides the hyperparameter dtype.
  p_floating = p_dtype is not None and jnp.issubdtype(p_dtype, jnp.inexact)
  if (g_dtype == jax.dtypes.float0
      or not jnp.issubdtype(g_dtype, jnp.inexact)):
    # Integer, boolean or float0 gradients: no transformation can return
    # meaningful updates in such a dtype (0.9 * 3 would truncate to 2).
    return p_dtype if p_floating else hyperparameters.hyperparameter_dtype()
  if p_floating and g_dtype != p_dtype and dtypes.promote_dtypes(
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
  (none given, or an integer param) becomes the hyperparameters' dtype
  (:func:`optax._src.hyperparameters.hyperparameter_dtype`).
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
    >>> from optax._src import prepared_inputs
    >>> prepared_inputs.as_updates(jnp.array([3, -2]), jnp.ones(2))[0]
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
    elif any(hyperparameters.is_python_scalar(p) for p in p_leaves):
      p_leaves = [jnp.asarray(p) if hyperparameters.is_python_scalar(p) else p
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
    if hyperparameters.is_python_scalar(g):
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
      new_leaves[i] = dtypes.cast(dtypes.as_array(g), target)
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
  if not any(hyperparameters.is_python_scalar(p) for p in leaves):
    return params
  return treedef.unflatten(
      [jnp.asarray(p) if hyperparameters.is_python_scalar(p) else p
       for p in leaves])


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
    >>> from optax._src import prepared_inputs
    >>> params = {'w': jnp.zeros((4, 3))}
    >>> prepared_inputs.check_shapes_like_params(
    ...     'f', {'w': jnp.ones((8, 4, 3))}, params, per_example=True)
    >>> prepared_inputs.check_shapes_like_params(  # doctest: +ELLIPSIS
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


def with_prepared_inputs(
    fn: str, tx: base.GradientTransformation, *, check_shapes: bool = True,
    per_example: bool = False,
) -> base.GradientTransformation:
  """``tx``, taking its gradients and params as ``optax.chain`` gives them.

  The same rule as inside ``optax.chain`` (see :func:`as_updates`), for a
  transformation used on its own: integer, boolean and narrower floating
  gradients are cast to the params' floating dtype (or the
  hyperparameters' dtype when there are no params), ``float0`` gradients
  give zero updates, Python-number leaves are made arrays (in
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
