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
"""Dtype utilities for pytrees: casting and finding the dtype of a tree."""

import functools
from typing import Any, Optional

import jax
import jax.numpy as jnp
import numpy as np

from optax._src import dtypes

_MIXED_DTYPE_HANDLERS = (None, 'promote', 'highest', 'lowest')


def _cast_leaf(x: Any, dtype: Any) -> Any:
  if isinstance(x, jax.ShapeDtypeStruct):
    return jax.ShapeDtypeStruct(x.shape, dtype, sharding=x.sharding)
  if hasattr(x, 'astype'):
    return x.astype(dtype)
  return jnp.asarray(x, dtype=dtype)


def tree_cast(tree: Any, dtype: Optional[Any]) -> Any:
  """Casts every leaf of a pytree to ``dtype``.

  All leaves are cast, whatever their dtype (integers and booleans too), as
  with ``x.astype(dtype)``; NumPy arrays stay NumPy arrays and
  ``jax.ShapeDtypeStruct`` leaves get the new dtype.

  Examples:
    >>> import jax.numpy as jnp
    >>> import optax.tree_utils as otu
    >>> otu.tree_cast({'a': jnp.array([1.5, 2.0])}, jnp.bfloat16)
    {'a': Array([1.5, 2], dtype=bfloat16)}

  Args:
    tree: a pytree.
    dtype: the target dtype; ``None`` returns ``tree`` unchanged.

  Returns:
    The cast pytree.
  """
  if dtype is None:
    return tree
  return jax.tree.map(functools.partial(_cast_leaf, dtype=dtype), tree)


def tree_cast_like(tree: Any, other_tree: Any) -> Any:
  """Casts each leaf of ``tree`` to the dtype of the matching leaf of another.

  Leaves of ``other_tree`` without a dtype (Python numbers) leave the
  matching leaf of ``tree`` unchanged.

  Examples:
    >>> import jax.numpy as jnp
    >>> import optax.tree_utils as otu
    >>> x = {'a': jnp.array([1.5, 2.0])}
    >>> otu.tree_cast_like(x, {'a': jnp.zeros(2, jnp.bfloat16)})
    {'a': Array([1.5, 2], dtype=bfloat16)}

  Args:
    tree: a pytree.
    other_tree: a pytree with the structure of ``tree``.

  Returns:
    The cast pytree.
  """
  def cast_like(x, other):
    dtype = getattr(other, 'dtype', None)
    return x if dtype is None else _cast_leaf(x, dtype)

  return jax.tree.map(cast_like, tree, other_tree)


def _leaf_dtype(x: Any) -> np.dtype:
  """The canonical dtype of a leaf (weak types and x64 resolved by JAX)."""
  dtype = getattr(x, 'dtype', None)
  if dtype is None:
    return jnp.result_type(x)
  return jax.dtypes.canonicalize_dtype(dtype)


def _ordered(d1: np.dtype, d2: np.dtype) -> tuple[np.dtype, np.dtype]:
  """Returns ``(lower, higher)`` of two dtypes comparable by promotion."""
  joined = dtypes.promote_dtypes(d1, d2)
  if joined == d2:
    return d1, d2
  if joined == d1:
    return d2, d1
  raise ValueError(
      f'tree_dtype: cannot order dtypes {d1} and {d2}: neither promotes to'
      f' the other (they promote to {joined}); use'
      " mixed_dtype_handler='promote' instead")


def tree_dtype(tree: Any, mixed_dtype_handler: Optional[str] = None) -> Any:
  """The dtype shared by the leaves of a pytree.

  Examples:
    >>> import jax.numpy as jnp
    >>> import optax.tree_utils as otu
    >>> otu.tree_dtype({'a': jnp.ones(2), 'b': jnp.ones(3)})
    dtype('float32')
    >>> tree = {'a': jnp.ones(2), 'b': jnp.ones(3, jnp.bfloat16)}
    >>> otu.tree_dtype(tree, 'lowest')
    dtype(bfloat16)

  Args:
    tree: a pytree whose leaves are arrays, ``jax.ShapeDtypeStruct`` or
      Python numbers.
    mixed_dtype_handler: what to do when the leaves have different dtypes:
      ``None`` raises an error, ``'promote'`` returns the dtype they all
      promote to (``jnp.promote_types``), ``'highest'`` / ``'lowest'`` return
      the dtype to which all others promote / which promotes to all others
      (an error if some two dtypes cannot be ordered that way, e.g. float16
      and bfloat16).

  Returns:
    A NumPy dtype; the default floating dtype of JAX for a tree without
    leaves.

  Raises:
    ValueError: if the leaves have different dtypes and no handler is given,
      or if ``mixed_dtype_handler`` is not one of the values above.
  """
  if mixed_dtype_handler not in _MIXED_DTYPE_HANDLERS:
    raise ValueError(
        'tree_dtype: mixed_dtype_handler must be one of None, "promote",'
        f' "highest", "lowest", got {mixed_dtype_handler!r}')
  leaves = jax.tree_util.tree_leaves_with_path(tree)
  if not leaves:
    return jnp.result_type(float)
  first_path, first_leaf = leaves[0]
  dtype = _leaf_dtype(first_leaf)
  for path, leaf in leaves[1:]:
    leaf_dtype = _leaf_dtype(leaf)
    if leaf_dtype == dtype:
      continue
    if mixed_dtype_handler is None:
      raise ValueError(
          'tree_dtype: the leaves have different dtypes:'
          f' {jax.tree_util.keystr(first_path)} is {dtype} but'
          f' {jax.tree_util.keystr(path)} is {leaf_dtype}. Cast the tree'
          " first, or pass mixed_dtype_handler='promote', 'highest' or"
          " 'lowest'.")
    if mixed_dtype_handler == 'promote':
      dtype = dtypes.promote_dtypes(dtype, leaf_dtype)
    elif mixed_dtype_handler == 'highest':
      dtype = _ordered(dtype, leaf_dtype)[1]
    else:
      dtype = _ordered(dtype, leaf_dtype)[0]
  return dtype
