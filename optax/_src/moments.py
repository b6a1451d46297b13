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

* over trees: :func:`scale_leaves` (a scalar times every leaf, each in its
  dtype) and :func:`nesterov_first_moment` (NAdam's look-ahead moment);
* the formulas of one leaf that an optimizer's per-leaf body is written
  with (see ``leaf_kernels.per_leaf``): :func:`first_moment`,
  :func:`second_moment`, :func:`debiased`, :func:`debiased_first`,
  :func:`adam_ratio`, with the hyperparameters as scalars and decay rates as
  :class:`Decay` (rate and complement); they lift the leaves to the
  promotion of their dtypes, so that the body itself holds no cast. The
  moving averages and bias corrections themselves are those of
  :mod:`optax._src.leaf_moments`, which ``optax.tree_utils`` maps.
"""

from typing import Any, Optional

import jax
import jax.numpy as jnp

from optax._src import base
from optax._src import dtypes
from optax._src import hyperparameters
from optax._src import leaf_moments
from optax._src import numerics


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



def _ratio(m: Any, v: Any, scalars: dtypes.ScalarsByDtype) -> jax.Array:
  """Adam's ratio in the promoted dtype; ``scalars`` are eps[, eps_root]."""
  m, v, epsilon, *epsilon_root = scalars.lift(dtypes.as_array(m),
                                              dtypes.as_array(v))
  if jnp.issubdtype(m.dtype, jnp.inexact):
    # What the operators below trace to, without their per-call checks.
    radicand = jax.lax.add(v, *epsilon_root) if epsilon_root else v
    return jax.lax.div(m, jax.lax.add(jax.lax.sqrt(radicand), epsilon))
  radicand = v + epsilon_root[0] if epsilon_root else v
  return m / (jnp.sqrt(radicand) + epsilon)


def _widened(m: Any, g: Any) -> jax.Array:
  """``m`` cast to the promotion of its dtype and the dtype of ``g``."""
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
  bc_now = leaf_moments.bias_correction(beta1, count)
  bc_next = leaf_moments.bias_correction(beta1,
                                         numerics.safe_increment(count))
  return jax.tree.map(
      lambda g, m: nesterov_first_moment_leaf(g, m, beta1, bc_next, bc_now),
      updates, mu)


def nesterov_first_moment_leaf(g: jax.Array, m: jax.Array, beta1: jax.Array,
                               bc_next: jax.Array,
                               bc_now: jax.Array) -> jax.Array:
  """One leaf of :func:`nesterov_first_moment`."""
  b, b_next, b_now, x, y = dtypes.lift(beta1, bc_next, bc_now, g, m)
  return (b * (y / b_next) + (1 - b) * (x / b_now)).astype(m.dtype)


@jax.tree_util.register_pytree_node_class
class Decay:
  r"""A decay rate :math:`\beta` and its complement :math:`1 - \beta`.

  Both are hyperparameter arrays (see
  :func:`optax._src.hyperparameters.hyperparameter_and_complement`): the
  complement is derived once per step from the rounded rate, not once per
  leaf, so a Python float and an injected value give the same bits. A
  pytree, so that a per-leaf kernel takes it as an argument.

  Attributes:
    rate: :math:`\beta`.
    complement: :math:`1 - \beta`.
  """

  def __init__(self, rate: jax.Array, complement: jax.Array):
    self.rate = rate
    self.complement = complement

  @classmethod
  def of(cls, value: base.Numeric) -> 'Decay':
    """The rate ``value`` (a number or a scalar array) and ``1 - value``."""
    return cls(*hyperparameters.hyperparameter_and_complement(value))

  def factors(self) -> dtypes.ScalarsByDtype:
    """The complement and the rate, as ``leaf_moments``' averages take them."""
    return dtypes.ScalarsByDtype(self.complement, self.rate)

  def correction(self, count: jax.Array) -> jax.Array:
    """The bias correction ``1 - rate ** count``, one scalar per step."""
    return leaf_moments.bias_correction(self.rate, count)

  def tree_flatten(self) -> tuple[tuple[jax.Array, jax.Array], None]:
    """The children (rate, complement) and no auxiliary data."""
    return (self.rate, self.complement), None

  @classmethod
  def tree_unflatten(cls, aux: None, children: Any) -> 'Decay':
    """A decay from the children of :meth:`tree_flatten`."""
    del aux
    return cls(*children)


# The formulas of one leaf, for the bodies of per-leaf kernels. Each takes
# the leaves as they come (of any dtypes) and hyperparameter scalars, computes
# in the promotion of their dtypes and returns its result in the dtype named.


def first_moment(g: Any, m: Any, b: Decay, order: int = 1) -> jax.Array:
  r""":math:`\beta m + (1 - \beta) g^k`, in ``m``'s dtype widened to ``g``'s.

  A first moment of a narrower ``mu_dtype`` is used at the updates' dtype
  within the step, and rounded to its own when stored.

  Args:
    g: the update leaf.
    m: the moment leaf.
    b: the decay rate.
    order: the power :math:`k` of the update.

  Returns:
    The new moment.
  """
  return leaf_moments.update_moment(g, _widened(m, g), b.factors(), order)


def second_moment(g: Any, v: Any, b: Decay, order: int = 2) -> jax.Array:
  r""":math:`\beta v + (1 - \beta) |g|^k`, in ``v``'s dtype.

  The modulus makes a complex ``g`` give a real moment; ``order=2`` (the
  default) is Adam's and RMSProp's :math:`|g|^2`.

  Args:
    g: the update leaf, real or complex.
    v: the moment leaf, of a real dtype.
    b: :math:`\beta`, with its complement.
    order: the exponent :math:`k`.

  Returns:
    :math:`\beta v + (1 - \beta) |g|^k`, stored in ``v``'s dtype.
  """
  return leaf_moments.update_moment_per_elem_norm(g, v, b.factors(), order)


def debiased(m: Any, correction: jax.Array) -> jax.Array:
  r""":math:`m / (1 - \beta^t)` in ``m``'s dtype.

  Args:
    m: the moment leaf.
    correction: the bias correction :math:`1 - \beta^t` (see
      :meth:`Decay.correction`).

  Returns:
    The corrected moment.
  """
  return leaf_moments.bias_corrected(m, dtypes.ScalarsByDtype(correction))


def debiased_first(g: Any, m: Any, b: Decay, correction: jax.Array,
                   next_correction: Optional[jax.Array]) -> jax.Array:
  r"""The bias-corrected first moment, or NAdam's look-ahead moment.

  :math:`m / (1 - \beta_1^t)`, or with ``next_correction`` given
  :math:`\beta_1 m / (1 - \beta_1^{t+1}) + (1 - \beta_1) g /
  (1 - \beta_1^t)` (see :func:`nesterov_first_moment`).

  Args:
    g: the update leaf.
    m: the first moment leaf after this step's update.
    b: the decay rate :math:`\beta_1`.
    correction: :math:`1 - \beta_1^t`.
    next_correction: :math:`1 - \beta_1^{t+1}`, or ``None`` for the plain
      correction.

  Returns:
    The corrected moment in ``m``'s dtype.
  """
  if next_correction is None:
    return debiased(m, correction)
  return nesterov_first_moment_leaf(g, m, b.rate, next_correction,
                                    correction)


def adam_ratio(m: Any, v: Any, eps: jax.Array,
               eps_root: Optional[jax.Array]) -> jax.Array:
  r""":math:`m / (\sqrt{v + \epsilon_{\text{root}}} + \epsilon)` for a leaf.

  Args:
    m: the (bias-corrected) first moment leaf.
    v: the (bias-corrected) second moment leaf.
    eps: the term added outside the root.
    eps_root: the term added inside the root, or ``None`` for none.

  Returns:
    The ratio in the promotion of the dtypes of ``m``, ``v`` and the
    epsilons.
  """
  scalars = (eps,) if eps_root is None else (eps, eps_root)
  return _ratio(m, v, dtypes.ScalarsByDtype(*scalars))
