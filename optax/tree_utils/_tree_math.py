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
"""Arithmetic on pytrees: element-wise operations, reductions and moments.

Every function here treats a pytree of arrays as one vector: binary
operations pair up leaves of identically structured trees, reductions (sum,
norm, vdot) combine the per-leaf results into a scalar.
"""

import functools
import math
import operator
from typing import Any, Optional, Union

import jax
import jax.numpy as jnp
import numpy as np

from optax._src import base
from optax._src import dtypes
from optax._src import leaf_moments
from optax._src import numerics
from optax._src import sharding
from optax._src import tree_structure


def _is_none(x: Any) -> bool:
  return x is None


def _map_moments(fn: str, leaf_update: Any, updates: Any, moments: Any,
                 *args: Any) -> Any:
  """``leaf_update(g, m, *args)`` over the leaves, after checking the trees.

  Args:
    fn: the public function's name, for the structure check's error.
    leaf_update: the per-leaf moment update.
    updates: the pytree of updates; its None leaves give None.
    moments: the pytree of moments, structured like ``updates``.
    *args: the update's factors, passed to every leaf.

  Returns:
    The pytree of new moments.
  """
  tree_structure.check_like_updates(fn, updates, moments)
  return jax.tree.map(
      lambda g, m: None if g is None else leaf_update(g, m, *args),
      updates, moments, is_leaf=_is_none)


def tree_add(tree_x: Any, tree_y: Any, *other_trees: Any) -> Any:
  r"""Adds two or more pytrees leaf by leaf.

  Examples:
    >>> import jax.numpy as jnp
    >>> import optax.tree_utils as otu
    >>> x, y, z = jnp.array([1.0, 2.0]), jnp.array([3.0, 4.0]), jnp.ones(2)
    >>> otu.tree_add({'a': x}, {'a': y}, {'a': z})
    {'a': Array([5., 7.], dtype=float32)}

  Args:
    tree_x: a pytree.
    tree_y: a pytree with the same structure as ``tree_x``.
    *other_trees: further pytrees with the same structure.

  Returns:
    The pytree :math:`x + y + \ldots` (usual JAX dtype promotion).
  """
  trees = (tree_x, tree_y, *other_trees)
  return jax.tree.map(lambda *leaves: functools.reduce(operator.add, leaves),
                      *trees)


def tree_sub(tree_x: Any, tree_y: Any) -> Any:
  """Subtracts two pytrees leaf by leaf.

  Examples:
    >>> import jax.numpy as jnp
    >>> import optax.tree_utils as otu
    >>> new = {'w': jnp.array([1.5, 2.0])}
    >>> old = {'w': jnp.array([1.0, 2.5])}
    >>> otu.tree_sub(new, old)
    {'w': Array([ 0.5, -0.5], dtype=float32)}

  Args:
    tree_x: the pytree subtracted from.
    tree_y: the pytree subtracted, structured as ``tree_x``.

  Returns:
    The pytree ``x - y``.
  """
  return jax.tree.map(operator.sub, tree_x, tree_y)


def tree_mul(tree_x: Any, tree_y: Any) -> Any:
  """Multiplies two pytrees leaf by leaf.

  Each pair of leaves is multiplied with NumPy broadcasting, so a tree of
  scalars can weight a tree of arrays.

  Examples:
    >>> import jax.numpy as jnp
    >>> import optax.tree_utils as otu
    >>> grads = (jnp.array([1.0, 2.0]), jnp.array([3.0, 4.0]))
    >>> otu.tree_mul(grads, (jnp.array(0.5), jnp.array(-1.0)))
    (Array([0.5, 1. ], dtype=float32), Array([-3., -4.], dtype=float32))

  Args:
    tree_x: a pytree.
    tree_y: a pytree of the structure of ``tree_x`` whose leaves broadcast
      against the leaves of ``tree_x``.

  Returns:
    The pytree ``x * y``.
  """
  return jax.tree.map(operator.mul, tree_x, tree_y)


def tree_div(tree_x: Any, tree_y: Any) -> Any:
  """Divides two pytrees leaf by leaf.

  This is true division (``/``): integer leaves give floating-point
  quotients.

  Examples:
    >>> import jax.numpy as jnp
    >>> import optax.tree_utils as otu
    >>> otu.tree_div({'a': jnp.array([1, 3])}, {'a': jnp.array([2, 4])})
    {'a': Array([0.5 , 0.75], dtype=float32)}

  Args:
    tree_x: the pytree of numerators.
    tree_y: the pytree of denominators, structured as ``tree_x``.

  Returns:
    The pytree ``x / y``.
  """
  return jax.tree.map(operator.truediv, tree_x, tree_y)


def tree_scale(scalar: base.Numeric, tree: Any) -> Any:
  """Multiplies every leaf of a pytree by a scalar.

  A Python number keeps the dtype of each leaf (it is weakly typed); a JAX
  or NumPy scalar follows the usual promotion rules.

  Examples:
    >>> import jax.numpy as jnp
    >>> import optax.tree_utils as otu
    >>> otu.tree_scale(0.5, {'a': jnp.array([1.0, 2.0])})
    {'a': Array([0.5, 1. ], dtype=float32)}

  Args:
    scalar: the scale factor.
    tree: a pytree.

  Returns:
    The pytree ``scalar * tree``.
  """
  return jax.tree.map(lambda x: scalar * x, tree)


def tree_add_scale(tree_x: Any, scalar: base.Numeric, tree_y: Any) -> Any:
  r"""Adds a scaled pytree to another: :math:`x + \alpha y`.

  Leaves that are ``None`` in ``tree_x`` stay ``None``.

  Examples:
    >>> import jax.numpy as jnp
    >>> import optax.tree_utils as otu
    >>> otu.tree_add_scale(
    ...     {'a': jnp.array([1.0, 2.0])}, 2.0, {'a': jnp.array([3.0, 4.0])})
    {'a': Array([ 7., 10.], dtype=float32)}

  Args:
    tree_x: a pytree.
    scalar: the factor :math:`\alpha` applied to ``tree_y``.
    tree_y: a pytree with the same structure as ``tree_x``.

  Returns:
    The pytree ``x + scalar * y``.
  """
  return jax.tree.map(
      lambda x, y: None if x is None else x + scalar * y,
      tree_x, tree_y, is_leaf=_is_none)


def _common_dtype(values: list[Any]) -> list[Any]:
  """Casts per-leaf scalars to the standard promotion of their dtypes.

  Combining them afterwards needs no implicit promotion, so trees that mix
  e.g. float32 and bfloat16 leaves also work under
  ``jax_numpy_dtype_promotion='strict'``; the result has the dtype that
  standard promotion gives.

  Args:
    values: arrays (one per leaf).

  Returns:
    The arrays, all of one dtype.
  """
  if len({jnp.result_type(v) for v in values}) < 2:
    return values
  with jax.numpy_dtype_promotion('standard'):
    dtype = jnp.result_type(*values)
  return [jnp.asarray(v).astype(dtype) for v in values]


def tree_vdot(tree_x: Any, tree_y: Any) -> Union[jax.Array, int]:
  r"""Inner product of two pytrees, :math:`\sum_i \mathrm{vdot}(x_i, y_i)`.

  As with ``jnp.vdot``, the leaves of ``tree_x`` are conjugated and flattened;
  the result is complex when the leaves are.

  Examples:
    >>> import jax.numpy as jnp
    >>> import optax.tree_utils as otu
    >>> x = {'a': jnp.array([1.0, 2.0]), 'b': jnp.array(3.0)}
    >>> otu.tree_vdot(x, x)
    Array(14., dtype=float32)

  Args:
    tree_x: a pytree.
    tree_y: a pytree with the same structure as ``tree_x``.

  Returns:
    A scalar (the integer ``0`` for trees without leaves).
  """
  vdots = jax.tree.leaves(jax.tree.map(leaf_vdot, tree_x, tree_y))
  return sum(_common_dtype(vdots))


def real_vdot(tree_x: Any, tree_y: Any, dtype: Any) -> jax.Array:
  """Real part of :func:`tree_vdot`, accumulated in at least ``dtype``.

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
    ct = dtypes.promote_dtypes(x.dtype, y.dtype, dtype)
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
  When a leaf is sharded in its type, the scalar result is asked for
  replicated (the output sharding of a contraction over sharded axes is
  otherwise ambiguous; see :func:`optax._src.sharding.replicated`).
  ``HIGHEST`` precision keeps float32 products out of reduced-precision
  (TF32, bfloat16 pass) matmul units.

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
  return jnp.tensordot(a, b, a.ndim, precision=jax.lax.Precision.HIGHEST,
                       out_sharding=sharding.replicated(a, b))


def tree_sum(
    tree: Any, associative_reduction: bool = False
) -> Union[jax.Array, int]:
  """Sum of all the entries of all the leaves of a pytree.

  Examples:
    >>> import jax.numpy as jnp
    >>> import optax.tree_utils as otu
    >>> otu.tree_sum({'a': jnp.array([1.0, 2.0]), 'b': jnp.array(3.0)})
    Array(6., dtype=float32)

  Args:
    tree: a pytree.
    associative_reduction: if False, the per-leaf sums are added one after
      the other in leaf order; if True, they are added pairwise in a balanced
      tree (as ``jax.tree.reduce_associative``), which is shallower and may
      round differently.

  Returns:
    A scalar (the integer ``0`` for a tree without leaves).
  """
  sums = _common_dtype(jax.tree.leaves(jax.tree.map(jnp.sum, tree)))
  if associative_reduction:
    return _pairwise_sum(sums)
  return sum(sums)


def _pairwise_sum(values: list[Any]) -> Any:
  """``(v0 + v1) + (v2 + v3) + ...``, level by level: depth log2(n)."""
  if not values:
    return 0
  while len(values) > 1:
    pairs = [values[i] + values[i + 1] for i in range(0, len(values) - 1, 2)]
    values = pairs + values[len(pairs) * 2:]
  return values[0]


def _reduce_nonempty(tree: Any, leaf_fn: Any, combine: Any,
                     initial: float) -> Union[jax.Array, float]:
  """Folds ``combine`` over ``leaf_fn`` of the leaves that have entries.

  Leaves of size 0 have no maximum or minimum and are skipped (their size is
  static, so this is decided at trace time).

  Args:
    tree: a pytree.
    leaf_fn: the per-leaf reduction (``jnp.max`` or ``jnp.min``).
    combine: the pairwise reduction (``jnp.maximum`` or ``jnp.minimum``).
    initial: the Python float returned for a tree without entries.

  Returns:
    A scalar.
  """
  values = [leaf_fn(x) for x in jax.tree.leaves(tree) if _leaf_size(x)]
  return functools.reduce(combine, _common_dtype(values), initial)


def tree_max(tree: Any) -> Union[jax.Array, float]:
  """Largest entry over all the leaves of a pytree.

  Examples:
    >>> import jax.numpy as jnp
    >>> import optax.tree_utils as otu
    >>> otu.tree_max({'a': jnp.array([1.0, 5.0]), 'b': jnp.array(-3.0)})
    Array(5., dtype=float32)

  Args:
    tree: a pytree.

  Returns:
    A scalar: the Python float ``-inf`` for a tree without entries (no
    leaves, or only leaves of size 0); otherwise an array of at least
    float32, since the maxima are combined with ``-inf``.
  """
  return _reduce_nonempty(tree, jnp.max, jnp.maximum, -math.inf)


def tree_min(tree: Any) -> Union[jax.Array, float]:
  """Smallest entry over all the leaves of a pytree.

  Examples:
    >>> import jax.numpy as jnp
    >>> import optax.tree_utils as otu
    >>> otu.tree_min({'a': jnp.array([1.0, 5.0]), 'b': jnp.array(-3.0)})
    Array(-3., dtype=float32)

  Args:
    tree: a pytree.

  Returns:
    A scalar: the Python float ``inf`` for a tree without entries (no
    leaves, or only leaves of size 0); otherwise an array of at least
    float32, since the minima are combined with ``inf``.
  """
  return _reduce_nonempty(tree, jnp.min, jnp.minimum, math.inf)


def _leaf_size(x: Any) -> int:
  size = getattr(x, 'size', None)
  return int(size) if size is not None else int(np.size(x))


def tree_size(tree: Any) -> int:
  """Total number of entries in the leaves of a pytree.

  Works on arrays, Python scalars and ``jax.ShapeDtypeStruct`` leaves.

  Examples:
    >>> import jax.numpy as jnp
    >>> import optax.tree_utils as otu
    >>> otu.tree_size({'a': jnp.ones((2, 3)), 'b': 1.0, 'c': None})
    7

  Args:
    tree: a pytree.

  Returns:
    A Python int.
  """
  return sum(_leaf_size(x) for x in jax.tree.leaves(tree))


def tree_norm(
    tree: Any,
    ord: Union[int, float, str, None] = None,  # pylint: disable=redefined-builtin
    squared: bool = False,
) -> jax.Array:
  r"""Norm of a pytree seen as one flat vector.

  .. math::
    \|x\|_2 = \sqrt{\textstyle\sum_i |x_i|^2}, \quad
    \|x\|_1 = \textstyle\sum_i |x_i|, \quad
    \|x\|_\infty = \max_i |x_i|.

  Examples:
    >>> import jax.numpy as jnp
    >>> import optax.tree_utils as otu
    >>> tree = {'a': jnp.array([3.0, -4.0]), 'b': jnp.array(0.0)}
    >>> otu.tree_norm(tree)
    Array(5., dtype=float32)
    >>> otu.tree_norm(tree, ord=1)
    Array(7., dtype=float32)
    >>> otu.tree_norm(tree, ord=jnp.inf, squared=True)
    Array(16., dtype=float32)

  Args:
    tree: a pytree (complex leaves use their modulus).
    ord: ``None``, ``2`` or ``'fro'`` for the Euclidean norm, ``1`` for the
      sum of absolute values, ``jnp.inf`` (or ``'inf'``, ``'infinity'``) for
      the largest absolute value. Every norm of a tree without entries is 0.
    squared: whether to return the square of the norm (for the Euclidean
      norm this skips the square root).

  Returns:
    A scalar array.

  Raises:
    ValueError: for any other ``ord``.
  """
  if ord is None or ord == 'fro' or ord == 2:
    sum_sq = tree_sum(jax.tree.map(
        lambda x: jnp.sum(numerics.abs_sq(jnp.asarray(x))), tree))
    result = sum_sq if squared else jnp.sqrt(sum_sq)
  elif ord == 1:
    result = tree_sum(jax.tree.map(lambda x: jnp.sum(jnp.abs(x)), tree))
    if squared:
      result = jnp.square(result)
  elif ord in ('inf', 'infinity') or ord == math.inf:
    # At least 0: the max of no entry (an empty tree, zero-size leaves) is
    # -inf, the norm of an empty vector is 0 (NaN entries stay NaN).
    result = jnp.maximum(tree_max(jax.tree.map(jnp.abs, tree)), 0)
    if squared:
      result = jnp.square(result)
  else:
    raise ValueError(
        "tree_norm: ord must be None, 1, 2, 'fro', jnp.inf, 'inf' or "
        f"'infinity', got {ord!r}")
  return jnp.asarray(result)


def tree_conj(tree: Any) -> Any:
  """Complex conjugate of every leaf (real leaves are unchanged).

  Examples:
    >>> import jax.numpy as jnp
    >>> import optax.tree_utils as otu
    >>> otu.tree_conj({'a': jnp.array([1.0 + 2.0j])})
    {'a': Array([1.-2.j], dtype=complex64)}

  Args:
    tree: a pytree.

  Returns:
    The pytree of conjugates.
  """
  return jax.tree.map(jnp.conj, tree)


def tree_real(tree: Any) -> Any:
  """Real part of every leaf.

  Examples:
    >>> import jax.numpy as jnp
    >>> import optax.tree_utils as otu
    >>> otu.tree_real({'a': jnp.array([1.0 + 2.0j])})
    {'a': Array([1.], dtype=float32)}

  Args:
    tree: a pytree.

  Returns:
    The pytree of real parts (real dtype).
  """
  return jax.tree.map(jnp.real, tree)


def tree_clip(
    tree: Any,
    min_value: Optional[base.Numeric] = None,
    max_value: Optional[base.Numeric] = None,
) -> Any:
  """Clips every entry of every leaf to ``[min_value, max_value]``.

  Examples:
    >>> import jax.numpy as jnp
    >>> import optax.tree_utils as otu
    >>> otu.tree_clip({'a': jnp.array([-2.0, 0.5, 3.0])}, -1.0, 1.0)
    {'a': Array([-1. ,  0.5,  1. ], dtype=float32)}

  Args:
    tree: a pytree.
    min_value: the lower bound, or None for no lower bound.
    max_value: the upper bound, or None for no upper bound.

  Returns:
    The clipped pytree, with the dtypes of ``tree``.
  """
  return jax.tree.map(lambda x: jnp.clip(x, min_value, max_value), tree)


def tree_where(condition: Any, tree_x: Any, tree_y: Any) -> Any:
  """Selects leaf entries from ``tree_x`` where the condition holds, else y.

  Examples:
    >>> import jax.numpy as jnp
    >>> import optax.tree_utils as otu
    >>> x = {'a': jnp.array([1.0, 2.0])}
    >>> y = {'a': jnp.array([-1.0, -2.0])}
    >>> otu.tree_where(jnp.array(False), x, y)
    {'a': Array([-1., -2.], dtype=float32)}
    >>> otu.tree_where({'a': jnp.array([True, False])}, x, y)
    {'a': Array([ 1., -2.], dtype=float32)}

  Args:
    condition: either one boolean scalar or array, broadcast against every
      leaf, or a pytree of booleans with the structure of ``tree_x``.
    tree_x: the pytree selected where the condition is true.
    tree_y: the pytree selected elsewhere, with the structure of ``tree_x``.

  Returns:
    ``jnp.where(condition, x, y)`` leaf by leaf.
  """
  if jax.tree_util.treedef_is_leaf(jax.tree.structure(condition)):
    return jax.tree.map(lambda x, y: jnp.where(condition, x, y),
                        tree_x, tree_y)
  return jax.tree.map(jnp.where, condition, tree_x, tree_y)


def tree_zeros_like(tree: Any, dtype: Optional[Any] = None) -> Any:
  """A pytree of zeros shaped like ``tree``.

  Leaves may be arrays, Python scalars or ``jax.ShapeDtypeStruct``.

  Examples:
    >>> import jax.numpy as jnp
    >>> import optax.tree_utils as otu
    >>> otu.tree_zeros_like({'a': jnp.ones(2, jnp.bfloat16)})
    {'a': Array([0, 0], dtype=bfloat16)}

  Args:
    tree: a pytree.
    dtype: the dtype of the result, or None for the dtype of each leaf.

  Returns:
    A pytree of zeros.
  """
  return jax.tree.map(lambda x: jnp.zeros_like(x, dtype=dtype), tree)


def tree_ones_like(tree: Any, dtype: Optional[Any] = None) -> Any:
  """A pytree of ones shaped like ``tree``, as ``jnp.ones_like`` per leaf.

  Examples:
    >>> import jax.numpy as jnp
    >>> import optax.tree_utils as otu
    >>> otu.tree_ones_like((jnp.zeros(2), jnp.zeros(())), dtype=jnp.int32)
    (Array([1, 1], dtype=int32), Array(1, dtype=int32))

  Args:
    tree: a pytree whose leaves give the shapes.
    dtype: one dtype for every leaf of the result; None keeps the dtype of
      each leaf.

  Returns:
    A pytree of ones.
  """
  return jax.tree.map(lambda x: jnp.ones_like(x, dtype=dtype), tree)


def tree_full_like(
    tree: Any, fill_value: base.Numeric, dtype: Optional[Any] = None
) -> Any:
  """A pytree shaped like ``tree`` filled with ``fill_value``.

  Examples:
    >>> import jax.numpy as jnp
    >>> import optax.tree_utils as otu
    >>> otu.tree_full_like({'a': jnp.zeros(2)}, 3.0)
    {'a': Array([3., 3.], dtype=float32)}

  Args:
    tree: a pytree.
    fill_value: the value of every entry (cast to each leaf's dtype).
    dtype: the dtype of the result, or None for the dtype of each leaf.

  Returns:
    A pytree filled with ``fill_value``.
  """
  return jax.tree.map(lambda x: jnp.full_like(x, fill_value, dtype=dtype),
                      tree)


def tree_allclose(
    a: Any,
    b: Any,
    rtol: base.Numeric = 1e-05,
    atol: base.Numeric = 1e-08,
    equal_nan: bool = False,
) -> Union[jax.Array, bool]:
  """Whether two pytrees are equal leaf by leaf within a tolerance.

  Examples:
    >>> import jax.numpy as jnp
    >>> import optax.tree_utils as otu
    >>> otu.tree_allclose({'a': jnp.array(1.0)}, {'a': jnp.array(1.0 + 1e-7)})
    Array(True, dtype=bool)

  Args:
    a: a pytree.
    b: a pytree with the same structure as ``a``.
    rtol: the relative tolerance, as in ``jnp.allclose``.
    atol: the absolute tolerance, as in ``jnp.allclose``.
    equal_nan: whether NaNs in the same places compare equal.

  Returns:
    A boolean scalar (the Python ``True`` for trees without leaves).
  """
  def leaf_allclose(x, y):
    return jnp.allclose(x, y, rtol=rtol, atol=atol, equal_nan=equal_nan)

  flags = jax.tree.leaves(jax.tree.map(leaf_allclose, a, b))
  return functools.reduce(jnp.logical_and, flags, True)


def tree_batch_shape(tree: Any, shape: tuple[int, ...] = ()) -> Any:
  """Broadcasts every leaf to a leading batch ``shape``.

  Examples:
    >>> import jax.numpy as jnp
    >>> import optax.tree_utils as otu
    >>> otu.tree_batch_shape({'a': jnp.array([1.0, 2.0])}, (3,))['a'].shape
    (3, 2)

  Args:
    tree: a pytree.
    shape: the batch shape prepended to the shape of each leaf.

  Returns:
    A pytree whose leaves have shape ``shape + leaf.shape``.
  """
  shape = tuple(shape)
  return jax.tree.map(lambda x: jnp.broadcast_to(x, shape + jnp.shape(x)),
                      tree)


def tree_update_moment(
    updates: Any, moments: Any, decay: base.Numeric, order: int
) -> Any:
  r"""Exponential moving average of the ``order``-th power of the updates.

  .. math::
    m_t = (1 - \beta)\, g^k + \beta\, m_{t-1}

  with :math:`\beta` = ``decay`` and :math:`k` = ``order``. The decay is
  turned into an array of
  :func:`optax._src.hyperparameters.hyperparameter_dtype` first, the
  arithmetic is done in at least that precision, and each moment is cast
  back to its own dtype (bfloat16 moments stay bfloat16). Where an
  update leaf is None the result is None.

  Examples:
    >>> import jax.numpy as jnp
    >>> import optax.tree_utils as otu
    >>> g = {'a': jnp.array([1.0, -2.0]), 'frozen': None}
    >>> m = {'a': jnp.array([0.0, 0.0]), 'frozen': None}
    >>> otu.tree_update_moment(g, m, decay=0.5, order=2)
    {'a': Array([0.5, 2. ], dtype=float32), 'frozen': None}

  Args:
    updates: a pytree of updates :math:`g`.
    moments: a pytree of moments :math:`m_{t-1}`, structured like updates.
    decay: the decay rate :math:`\beta` (a number or a scalar array).
    order: the power :math:`k` applied to the updates (``g ** order``).

  Returns:
    The pytree of new moments.

  .. seealso:: :func:`tree_update_moment_per_elem_norm`,
    :func:`tree_bias_correction`.
  """
  return _map_moments('tree_update_moment', leaf_moments.update_moment,
                      updates, moments, leaf_moments.decay_factors(decay),
                      order)


def tree_update_moment_per_elem_norm(
    updates: Any, moments: Any, decay: base.Numeric, order: int
) -> Any:
  r"""Exponential moving average of a power of the entries' moduli.

  .. math::
    m_t = (1 - \beta)\, |g|^k + \beta\, m_{t-1}

  With ``order == 2`` the power is :math:`|g|^2` computed as
  ``abs_sq(g)`` (real for complex updates). For other orders, complex
  updates use :math:`|g|^k` and real updates use :math:`g^k` (so odd orders
  keep the sign, as in Optax 0.2.8). Precision and dtypes are handled as in
  :func:`tree_update_moment`; None update leaves give None.

  Examples:
    >>> import jax.numpy as jnp
    >>> import optax.tree_utils as otu
    >>> g = {'a': jnp.array([3.0 + 4.0j])}
    >>> nu = {'a': jnp.array([0.0])}
    >>> otu.tree_update_moment_per_elem_norm(g, nu, decay=0.5, order=2)
    {'a': Array([12.5], dtype=float32)}

  Args:
    updates: a pytree of updates :math:`g`.
    moments: a pytree of moments :math:`m_{t-1}`, structured like updates.
    decay: the decay rate :math:`\beta` (a number or a scalar array).
    order: the power :math:`k`.

  Returns:
    The pytree of new moments.
  """
  return _map_moments('tree_update_moment_per_elem_norm',
                      leaf_moments.update_moment_per_elem_norm, updates,
                      moments, leaf_moments.decay_factors(decay), order)


def tree_update_infinity_moment(
    updates: Any, moments: Any, decay: base.Numeric, eps: base.Numeric
) -> Any:
  r"""Exponentially weighted infinity norm of the updates (as in Adamax).

  .. math::
    u_t = \max(|g| + \epsilon,\ \beta\, u_{t-1})

  Precision and dtypes are handled as in :func:`tree_update_moment`; None
  update leaves give None.

  Examples:
    >>> import jax.numpy as jnp
    >>> import optax.tree_utils as otu
    >>> # The first entry keeps its decayed past, the second takes |g|.
    >>> otu.tree_update_infinity_moment(
    ...     [jnp.array([1.0, -4.0])], [jnp.array([4.0, 4.0])],
    ...     decay=0.5, eps=0.0)
    [Array([2., 4.], dtype=float32)]

  Args:
    updates: a pytree of updates :math:`g`.
    moments: a pytree of moments :math:`u_{t-1}`, structured like updates.
    decay: the decay rate :math:`\beta`.
    eps: the term :math:`\epsilon` added to :math:`|g|`.

  Returns:
    The pytree of new moments.

  References:
    Kingma and Ba, `Adam: A Method for Stochastic Optimization
    <https://arxiv.org/abs/1412.6980>`_, 2014 (section 7.1, AdaMax).
  """
  return _map_moments('tree_update_infinity_moment',
                      leaf_moments.update_infinity_moment, updates, moments,
                      *leaf_moments.infinity_factors(decay, eps))


def tree_bias_correction(
    moment: Any, decay: base.Numeric, count: base.Numeric
) -> Any:
  r"""Corrects the bias of a moving average started at zero.

  .. math::
    \hat{m}_t = \frac{m_t}{1 - \beta^t}

  ``decay`` is turned into an array of
  :func:`optax._src.hyperparameters.hyperparameter_dtype` and ``count`` is
  cast to that dtype; the correction :math:`1 - \beta^t` is computed once for
  the whole tree, and each leaf is cast back to its own dtype.

  Examples:
    >>> import jax.numpy as jnp
    >>> import optax.tree_utils as otu
    >>> m = {'a': jnp.array([0.5, 1.0])}
    >>> otu.tree_bias_correction(m, decay=0.5, count=1)
    {'a': Array([1., 2.], dtype=float32)}

  Args:
    moment: a pytree of moments :math:`m_t`.
    decay: the decay rate :math:`\beta` used to build the moments.
    count: the number of steps :math:`t` taken so far (an int).

  Returns:
    The pytree of corrected moments.

  References:
    Kingma and Ba, `Adam: A Method for Stochastic Optimization
    <https://arxiv.org/abs/1412.6980>`_, 2014 (section 3).
  """
  corrections = leaf_moments.bias_corrections(decay, count)
  return jax.tree.map(
      lambda m: leaf_moments.bias_corrected(m, corrections), moment)
