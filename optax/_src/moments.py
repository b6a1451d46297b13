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

* dtype handling: :func:`widen_moments` (moments widened to the updates'
  dtype within a step), :func:`scale_leaves`; the casts themselves
  (``lift``, ``cast_like``) are those of ``optax._src.dtypes``;
* moment formulas: :func:`bias_correction`, :func:`tree_adam_ratio`,
  :func:`nesterov_first_moment`;
* the same formulas for one leaf (``*_leaf``), shared by the tree functions
  here and in ``optax.tree_utils`` and by the per-leaf kernels of the
  optimizers (see ``leaf_kernels``).
"""

from typing import Any, Optional

import jax
import jax.numpy as jnp

from optax._src import base
from optax._src import dtypes
from optax._src import numerics
from optax._src import tree_structure


def scale_leaves(factor: jax.Array, updates: base.Updates) -> base.Updates:
  """Multiplies every leaf by a scalar, keeping each leaf's dtype.

  Args:
    factor: a scalar (array or Python number).
    updates: a tree of arrays.

  Returns:
    The tree ``factor * updates``, each leaf in its original dtype.
  """

  factor = dtypes.as_array(factor)
  factors = dtypes.ScalarsByDtype(factor)

  def leaf(g):
    g_dtype = dtypes.dtype_of(g)
    dtype = dtypes.promote_dtypes(factor.dtype, g_dtype)
    x = dtypes.cast(dtypes.as_array(g), dtype)
    f, = factors.get(dtype, x)
    if jnp.issubdtype(dtype, jnp.inexact):
      return dtypes.cast(jax.lax.mul(f, x), g_dtype)  # What * traces to.
    return dtypes.cast(f * x, g_dtype)

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
      :func:`optax._src.hyperparameters.as_hyperparameter_unless`).
    epsilon: the term added outside the root.

  Returns:
    The tree of ratios.
  """
  scalars = (epsilon,) if epsilon_root is None else (epsilon, epsilon_root)
  scalars = dtypes.ScalarsByDtype(*scalars)
  return jax.tree.map(lambda g, m, v: adam_ratio_leaf(g, m, v, scalars),
                      updates, mu, nu)


def adam_ratio_leaf(g: jax.Array, m: jax.Array, v: jax.Array,
                    scalars: dtypes.ScalarsByDtype) -> jax.Array:
  """One leaf of :func:`tree_adam_ratio`; ``scalars`` are eps[, eps_root]."""
  m, v, epsilon, *epsilon_root = scalars.lift(dtypes.as_array(m),
                                              dtypes.as_array(v))
  dtype = m.dtype
  if jnp.issubdtype(dtype, jnp.inexact):
    # What the operators below trace to, without their per-call checks.
    radicand = jax.lax.add(v, *epsilon_root) if epsilon_root else v
    ratio = jax.lax.div(m, jax.lax.add(jax.lax.sqrt(radicand), epsilon))
  else:
    radicand = v + epsilon_root[0] if epsilon_root else v
    ratio = m / (jnp.sqrt(radicand) + epsilon)
  return dtypes.cast(ratio, dtypes.dtype_of(g))


def widen_moments(moments: Any, updates: Any) -> Any:
  """Casts moments to their promotion with the updates' dtypes.

  A first moment kept in a narrow ``mu_dtype`` (bfloat16) is updated and used
  in the wider dtype of the updates within a step, and only rounded to
  ``mu_dtype`` when stored (see :func:`optax._src.dtypes.cast_like`).

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
  return jax.tree.map(widened_moment, moments, updates)


def widened_moment(m: Any, g: Any) -> jax.Array:
  """One leaf of :func:`widen_moments`."""
  m = dtypes.as_array(m)
  # jnp.result_type also reads the dtype of a Python number (params and
  # gradients may be plain ints or floats).
  return dtypes.cast(m, dtypes.promote_dtypes(m.dtype, dtypes.dtype_of(g)))


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
  bc_now, bc_next = nesterov_bias_corrections(beta1, count)
  return jax.tree.map(
      lambda g, m: nesterov_first_moment_leaf(g, m, beta1, bc_next, bc_now),
      updates, mu)


def nesterov_bias_corrections(beta1: jax.Array, count: jax.Array
                              ) -> tuple[jax.Array, jax.Array]:
  """The bias corrections of NAdam's look-ahead: at ``count`` and after."""
  return (bias_correction(beta1, count),
          bias_correction(beta1, numerics.safe_increment(count)))


def nesterov_first_moment_leaf(g: jax.Array, m: jax.Array, beta1: jax.Array,
                               bc_next: jax.Array,
                               bc_now: jax.Array) -> jax.Array:
  """One leaf of :func:`nesterov_first_moment`."""
  b, b_next, b_now, x, y = dtypes.lift(beta1, bc_next, bc_now, g, m)
  return (b * (y / b_next) + (1 - b) * (x / b_now)).astype(m.dtype)


def update_moment_leaf(g: Any, m: Any, factors: dtypes.ScalarsByDtype,
                       order: int) -> jax.Array:
  """One leaf of ``optax.tree_utils.tree_update_moment``.

  Args:
    g: the update leaf.
    m: the moment leaf.
    factors: ``1 - decay`` and ``decay``.
    order: the power of the update.

  Returns:
    The new moment, in the dtype of ``m``.
  """
  g, m = dtypes.as_array(g), dtypes.as_array(m)
  dtype = dtypes.promote_dtypes(g.dtype, m.dtype, factors.dtypes[1])
  one_minus_decay, decay = factors.get(dtype, g)
  power = dtypes.cast(g, dtype)
  if order != 1:  # x ** 1 is x: no need to trace it per leaf.
    power = power ** order
  new_m = jax.lax.add(jax.lax.mul(one_minus_decay, power),
                      jax.lax.mul(decay, dtypes.cast(m, dtype)))
  return dtypes.cast(new_m, m.dtype)


def _power_of_modulus(g: jax.Array, dtype: Any, order: int) -> jax.Array:
  """``|g| ** order`` in (at least) ``dtype``; ``g ** order`` if real."""
  g = dtypes.cast(g, dtypes.promote_dtypes(g.dtype, dtype))
  if order == 2:
    if jnp.iscomplexobj(g):
      return numerics.abs_sq(g)
    return jax.lax.mul(g, g)  # What abs_sq traces for a real leaf.
  if jnp.iscomplexobj(g):
    return jnp.abs(g) ** order
  return g ** order


def update_moment_per_elem_norm_leaf(
    g: Any, m: Any, factors: dtypes.ScalarsByDtype, order: int
) -> jax.Array:
  """One leaf of ``optax.tree_utils.tree_update_moment_per_elem_norm``.

  Args:
    g: the update leaf.
    m: the moment leaf.
    factors: ``1 - decay`` and ``decay``.
    order: the power of the updates' moduli.

  Returns:
    The new moment, in the dtype of ``m``.
  """
  g, m = dtypes.as_array(g), dtypes.as_array(m)
  power = _power_of_modulus(g, factors.dtypes[1], order)
  dtype = dtypes.promote_dtypes(power.dtype, m.dtype)
  one_minus_decay, decay = factors.get(dtype, power)
  new_m = jax.lax.add(
      jax.lax.mul(one_minus_decay, dtypes.cast(power, dtype)),
      jax.lax.mul(decay, dtypes.cast(m, dtype)))
  return dtypes.cast(new_m, m.dtype)


def bias_corrected_leaf(m: Any,
                        corrections: dtypes.ScalarsByDtype) -> jax.Array:
  """One leaf of ``optax.tree_utils.tree_bias_correction``.

  Args:
    m: the moment leaf.
    corrections: the correction ``1 - decay ** count``.

  Returns:
    ``m / (1 - decay ** count)`` in the dtype of ``m``.
  """
  m = dtypes.as_array(m)
  wide, correction = corrections.lift(m)
  return dtypes.cast(jax.lax.div(wide, correction), m.dtype)
