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
"""Helpers shared by the moment-based gradient transformations.

The rescaling transformations (Adam and its relatives, RMSProp, Lion, ...)
combine update leaves with moment leaves and scalar hyperparameters that may
all have different dtypes. The helpers here keep that arithmetic explicit:

* dtype handling: :func:`lift` (cast to the common dtype), :func:`widen_moments`
  (moments widened to the updates' dtype within a step), :func:`cast_like`
  (moments rounded back to their stored dtype), :func:`scale_leaves`;
* moment formulas: :func:`bias_correction`, :func:`tree_adam_ratio`,
  :func:`nesterov_first_moment`.
"""

from typing import Any, Optional

import jax
import jax.numpy as jnp

from optax._src import base
from optax._src import numerics
from optax._src import tree_structure


def _as_array(x: Any) -> jax.Array:
  """``x`` itself if it is a JAX array or tracer, else ``jnp.asarray(x)``."""
  return x if isinstance(x, jax.Array) else jnp.asarray(x)


def _dtype_of(x: Any) -> Any:
  """``jnp.result_type(x)``, read directly from a JAX array's dtype."""
  if isinstance(x, jax.Array):
    return x.dtype
  return jnp.result_type(x)


def lift(*xs: Any) -> tuple[jax.Array, ...]:
  """Casts arrays explicitly to their common dtype.

  A bfloat16 leaf combined with a float32 hyperparameter is computed in
  float32; explicit casts keep the arithmetic valid under
  ``jax_numpy_dtype_promotion='strict'``.

  Args:
    *xs: arrays (leaves, hyperparameters, scalars derived from them) or
      Python numbers.

  Returns:
    The arrays cast to the promotion of their dtypes.

  Examples:
    >>> import jax.numpy as jnp
    >>> from optax._src import moments
    >>> a, b = moments.lift(jnp.ones(2, jnp.bfloat16), jnp.float32(0.5))
    >>> a.dtype, b.dtype
    (dtype('float32'), dtype('float32'))
  """
  # Python numbers too; a traced or concrete array is used as it is.
  arrays = tuple(_as_array(x) for x in xs)
  dtype = numerics.promote_dtypes(*(x.dtype for x in arrays))
  return tuple(numerics.cast(x, dtype) for x in arrays)


def scale_leaves(factor: jax.Array, updates: base.Updates) -> base.Updates:
  """Multiplies every leaf by a scalar, keeping each leaf's dtype.

  Args:
    factor: a scalar (array or Python number).
    updates: a tree of arrays.

  Returns:
    The tree ``factor * updates``, each leaf in its original dtype.
  """

  factor = _as_array(factor)
  factors = numerics.ScalarsByDtype(factor)

  def leaf(g):
    g_dtype = _dtype_of(g)
    dtype = numerics.promote_dtypes(factor.dtype, g_dtype)
    x = numerics.cast(_as_array(g), dtype)
    f, = factors.get(dtype, x)
    if jnp.issubdtype(dtype, jnp.inexact):
      return numerics.cast(jax.lax.mul(f, x), g_dtype)  # What * traces to.
    return numerics.cast(f * x, g_dtype)

  return jax.tree.map(leaf, updates)


def bias_correction(decay: jax.Array, count: jax.Array) -> jax.Array:
  """The Adam bias correction ``1 - decay ** count``, one scalar per step.

  Args:
    decay: the decay rate of the moment, a floating scalar array.
    count: the (integer) step count, starting at 1 for the first update.

  Returns:
    ``1 - decay ** count`` in the dtype of ``decay``.
  """
  return 1 - decay ** count.astype(decay.dtype)


def tree_adam_ratio(updates: base.Updates, mu: Any, nu: Any,
                    epsilon_root: Optional[jax.Array],
                    epsilon: jax.Array) -> base.Updates:
  """Adam's direction ``m / (sqrt(v + eps_root) + eps)`` for every leaf.

  Each leaf is computed in the common dtype of its moments and the epsilons
  and cast to the dtype of its update; under ``jit`` the epsilons are
  broadcast once per leaf shape.

  Args:
    updates: the incoming updates; each result leaf has their leaf's dtype.
    mu: the (bias-corrected) first moments, shaped like ``updates``.
    nu: the (bias-corrected) second moments, shaped like ``updates``.
    epsilon_root: the term added inside the root; ``None`` for none (see
      :func:`optax._src.numerics.as_hyperparameter_unless`).
    epsilon: the term added outside the root.

  Returns:
    The tree of ratios.
  """
  scalars = (epsilon,) if epsilon_root is None else (epsilon, epsilon_root)
  scalars = numerics.ScalarsByDtype(*scalars)
  return jax.tree.map(lambda g, m, v: _adam_ratio(g, m, v, scalars),
                      updates, mu, nu)


def _adam_ratio(g: jax.Array, m: jax.Array, v: jax.Array,
                scalars: numerics.ScalarsByDtype) -> jax.Array:
  """One leaf of :func:`tree_adam_ratio`; ``scalars`` are eps[, eps_root]."""
  m, v, epsilon, *epsilon_root = scalars.lift(_as_array(m), _as_array(v))
  dtype = m.dtype
  if jnp.issubdtype(dtype, jnp.inexact):
    # What the operators below trace to, without their per-call checks.
    radicand = jax.lax.add(v, *epsilon_root) if epsilon_root else v
    ratio = jax.lax.div(m, jax.lax.add(jax.lax.sqrt(radicand), epsilon))
  else:
    radicand = v + epsilon_root[0] if epsilon_root else v
    ratio = m / (jnp.sqrt(radicand) + epsilon)
  return numerics.cast(ratio, _dtype_of(g))


def widen_moments(moments: Any, updates: Any) -> Any:
  """Casts moments to their promotion with the updates' dtypes.

  A first moment kept in a narrow ``mu_dtype`` (bfloat16) is updated and used
  in the wider dtype of the updates within a step, and only rounded to
  ``mu_dtype`` when stored (see :func:`cast_like`).

  Args:
    moments: a tree of moment leaves, shaped like ``updates``.
    updates: the tree of incoming updates.

  Returns:
    The moments, each leaf cast to the promotion of its dtype and the dtype
    of the matching update.

  Raises:
    ValueError: when the trees do not match (the message names the key
      path).
  """
  tree_structure.check_like_updates('optimizer update', updates, moments)
  # jnp.result_type also reads the dtype of a Python number (params and
  # gradients may be plain ints or floats).
  def leaf(m, g):
    m = _as_array(m)
    return numerics.cast(m, numerics.promote_dtypes(m.dtype, _dtype_of(g)))

  return jax.tree.map(leaf, moments, updates)


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
  def leaf(x, y):
    x = _as_array(x)
    return numerics.cast(x, _dtype_of(y))

  return jax.tree.map(leaf, tree, like)


def nesterov_first_moment(updates: base.Updates, mu: base.Updates,
                          beta1: jax.Array, count: jax.Array) -> base.Updates:
  r"""NAdam's look-ahead (bias-corrected) first moment.

  .. math::

    \frac{\beta_1 m_t}{1 - \beta_1^{t+1}} + \frac{(1 - \beta_1) g_t}
      {1 - \beta_1^t}

  Args:
    updates: the incoming updates :math:`g_t`.
    mu: the first moment :math:`m_t` after this step's update.
    beta1: the decay rate :math:`\beta_1`, a floating scalar array.
    count: the step count :math:`t` (1 at the first update).

  Returns:
    The look-ahead moment, each leaf in the dtype of the matching leaf of
    ``mu``.

  Examples:
    >>> import jax.numpy as jnp
    >>> from optax._src import moments
    >>> g = jnp.array([1.0])
    >>> mu = 0.5 * g  # after one step with beta1 = 0.5
    >>> moments.nesterov_first_moment(g, mu, jnp.float32(0.5), jnp.int32(1))
    Array([1.3333334], dtype=float32)
  """
  bc_now = bias_correction(beta1, count)
  bc_next = bias_correction(beta1, numerics.safe_increment(count))

  def leaf(g, m):
    b, b_next, b_now, x, y = lift(beta1, bc_next, bc_now, g, m)
    return (b * (y / b_next) + (1 - b) * (x / b_now)).astype(m.dtype)

  return jax.tree.map(leaf, updates, mu)
