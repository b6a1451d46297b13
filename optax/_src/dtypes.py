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
"""Dtype policy: in which dtype values are combined, and the casts to it.

* :func:`promote_dtypes`, JAX's standard promotion, also under
  ``jax_numpy_dtype_promotion='strict'``;
* :func:`cast`, :func:`as_array` and :func:`dtype_of`, the cheap forms of
  ``astype``, ``jnp.asarray`` and ``jnp.result_type`` used per leaf;
* :func:`lift` (values cast to their common dtype), :func:`cast_like` and
  :func:`cast_leaf_like` (values cast back to a stored dtype), the one cast
  mechanism of the transformations, and :class:`ScalarsByDtype`, which casts
  (and broadcasts) scalar hyperparameters once per tree;
* :func:`at_least`, a statistic stored narrow read back above the bound
  that its arithmetic keeps (and its narrow dtype may lose);
* :func:`scalar_state_dtype`, the dtype of an optimizer's scalar statistics.
"""

from collections.abc import Sequence
import functools
from typing import Any, Optional

import jax
import jax.numpy as jnp
import numpy as np

from optax._src import hyperparameters
from optax._src import sharding


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


def dtype_of(x: Any) -> Any:
  """``jnp.result_type(x)``, read directly from a JAX array's dtype.

  Args:
    x: an array, tracer, NumPy array or Python number.

  Returns:
    Its dtype (JAX's default one for a Python number).
  """
  if isinstance(x, jax.Array):
    return x.dtype
  return jnp.result_type(x)


def lift(*xs: Any, promote_with: Sequence[Any] = ()
         ) -> tuple[jax.Array, ...]:
  """Casts arrays explicitly to their common dtype.

  A bfloat16 leaf combined with a float32 hyperparameter is computed in
  float32; explicit casts keep the arithmetic valid under
  ``jax_numpy_dtype_promotion='strict'``.

  Args:
    *xs: arrays (leaves, hyperparameters, scalars derived from them) or
      Python numbers.
    promote_with: further dtypes that take part in the promotion (those of
      scalars cast on their own, see :meth:`ScalarsByDtype.lift`).

  Returns:
    The arrays cast to the promotion of their dtypes (and ``promote_with``).

  Examples:
    >>> import jax.numpy as jnp
    >>> from optax._src import dtypes
    >>> a, b = dtypes.lift(jnp.ones(2, jnp.bfloat16), jnp.float32(0.5))
    >>> a.dtype, b.dtype
    (dtype('float32'), dtype('float32'))
  """
  # Python numbers too; a traced or concrete array is used as it is.
  arrays = tuple(as_array(x) for x in xs)
  dtype = promote_dtypes(*(x.dtype for x in arrays), *promote_with)
  return tuple(cast(x, dtype) for x in arrays)


def at_least(x: Any, bound: Any) -> jax.Array:
  """A stored statistic read in the wide dtype, raised to its lower bound.

  A statistic that the arithmetic keeps at or above ``bound`` (a running
  maximum started at ``eps``, a sum to which each step adds
  ``eps_root`` or :math:`(1 - \\beta) g^2`) can lose the bound when it is
  stored in a dtype of a narrower exponent range (float16: ``1e-8`` is 0
  there), and a division by it then gives ``0 / 0`` or an overflow. Read
  through this, it gets the bound back; where the stored value keeps it,
  nothing changes.

  Args:
    x: the statistic, as stored (or already in the wide dtype).
    bound: its lower bound, computed in the wide dtype (or a
      hyperparameter).

  Returns:
    ``max(x, bound)`` in the promotion of their dtypes.

  Examples:
    >>> import jax.numpy as jnp
    >>> from optax._src import dtypes
    >>> v = jnp.float32(1e-8).astype(jnp.float16)  # Rounds to 0.
    >>> dtypes.at_least(v, jnp.float32(1e-8))
    Array(1.e-08, dtype=float32)
  """
  x, bound = as_array(x), as_array(bound)
  wide = promote_dtypes(x.dtype, bound.dtype)
  return jnp.maximum(cast(x, wide), cast(bound, wide))


def cast_like(tree: Any, like: Any) -> Any:
  """Casts each leaf of ``tree`` to the dtype of the matching leaf.

  Unlike ``optax.tree_utils.tree_cast_like``, the target dtype is read with
  ``jnp.result_type``: a Python-number leaf of ``like`` gives JAX's default
  float (or int) dtype, and a NumPy float64 leaf gives float32 when x64 is
  off, without a truncation warning.

  Args:
    tree: the tree to cast.
    like: a tree with the structure of ``tree`` giving the dtypes.

  Returns:
    The cast tree (JAX arrays).
  """
  return jax.tree.map(cast_leaf_like, tree, like)


def cast_leaf_like(x: Any, y: Any) -> jax.Array:
  """One leaf of :func:`cast_like`: ``x`` in the dtype of ``y``."""
  return cast(as_array(x), dtype_of(y))


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
  (float16 with bfloat16), and the hyperparameters' dtype (see
  :func:`optax._src.hyperparameters.hyperparameter_dtype`) when no leaf is
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
    return hyperparameters.hyperparameter_dtype()
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
    >>> from optax._src import dtypes
    >>> scalars = dtypes.ScalarsByDtype(jnp.float32(0.5))
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
        or sharding.explicit_spec(like)):
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
    lifted = lift(*arrays, promote_with=self.dtypes)
    return lifted + self.get(lifted[0].dtype, lifted[0])
