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
r"""Moving averages of one leaf, and their bias correction.

The per-leaf formulas of ``optax.tree_utils``' moment functions (and of the
optimizers' per-leaf kernels that fuse them):

.. math::
  m_t = (1 - \beta)\, g^k + \beta\, m_{t-1}, \qquad
  u_t = \max(|g| + \epsilon,\ \beta\, u_{t-1}), \qquad
  \hat{m}_t = m_t / (1 - \beta^t).

The scalars are prepared once per tree (:func:`decay_factors`,
:func:`bias_corrections`: a hyperparameter held in
:func:`optax._src.hyperparameters.hyperparameter_dtype`, cast and broadcast
once per leaf dtype and shape); each leaf is combined with them in the
promotion of their dtypes and returned in the moment's own dtype.

This module is on the ground floor of ``optax._src``: it imports only
``dtypes``, ``hyperparameters`` and ``numerics``, never an optimizer's
module, so that ``optax.tree_utils`` can build on it
(``optax/_src/testing/layering_test.py``).
"""

from typing import Any

import jax
import jax.numpy as jnp

from optax._src import base
from optax._src import dtypes
from optax._src import hyperparameters
from optax._src import numerics


def decay_factors(decay: base.Numeric) -> dtypes.ScalarsByDtype:
  r"""``1 - decay`` and ``decay``, for :func:`update_moment` and relatives.

  Args:
    decay: the decay rate :math:`\beta` (a number or a scalar array).

  Returns:
    The two scalars, in that order, as hyperparameter arrays (the
    complement computed from the rounded ``decay``).
  """
  decay, complement = hyperparameters.hyperparameter_and_complement(decay)
  return dtypes.ScalarsByDtype(complement, decay)


def update_moment(g: Any, m: Any, factors: dtypes.ScalarsByDtype,
                  order: int) -> jax.Array:
  r""":math:`(1 - \beta) g^k + \beta m` for one leaf, in ``m``'s dtype.

  Args:
    g: the update leaf.
    m: the moment leaf.
    factors: :func:`decay_factors`.
    order: the power :math:`k` of the update.

  Returns:
    The new moment.
  """
  g, m = dtypes.as_array(g), dtypes.as_array(m)
  dtype = dtypes.promote_dtypes(g.dtype, m.dtype, factors.dtypes[1])
  complement, decay = factors.get(dtype, g)
  power = dtypes.cast(g, dtype)
  if order != 1:  # Traced per leaf otherwise, for no change.
    power = power ** order
  return _average(complement, power, decay, m)


def update_moment_per_elem_norm(g: Any, m: Any,
                                factors: dtypes.ScalarsByDtype,
                                order: int) -> jax.Array:
  r""":math:`(1 - \beta) |g|^k + \beta m` for one leaf, in ``m``'s dtype.

  The modulus is taken for complex updates only: a real ``g`` gives
  :math:`g^k`, so odd orders keep the sign; ``order == 2`` is the squared
  modulus, real also for complex updates.

  Args:
    g: the update leaf.
    m: the moment leaf.
    factors: :func:`decay_factors`.
    order: the power :math:`k`.

  Returns:
    The new moment.
  """
  g, m = dtypes.as_array(g), dtypes.as_array(m)
  g = dtypes.cast(g, dtypes.promote_dtypes(g.dtype, factors.dtypes[1]))
  complex_g = jnp.iscomplexobj(g)
  if order == 2:
    # abs_sq of a real leaf is its square: one product, traced directly.
    power = numerics.abs_sq(g) if complex_g else jax.lax.mul(g, g)
  else:
    power = (jnp.abs(g) if complex_g else g) ** order
  dtype = dtypes.promote_dtypes(power.dtype, m.dtype)
  complement, decay = factors.get(dtype, power)
  return _average(complement, dtypes.cast(power, dtype), decay, m)


def _average(a: jax.Array, x: jax.Array, b: jax.Array,
             m: jax.Array) -> jax.Array:
  """``a * x + b * m`` in the dtype of ``x``, cast to the dtype of ``m``."""
  # jax.lax: what the operators trace to, without their checks per leaf.
  first = jax.lax.mul(a, x)
  second = jax.lax.mul(b, dtypes.cast(m, x.dtype))
  return dtypes.cast(jax.lax.add(first, second), m.dtype)


def infinity_factors(decay: base.Numeric,
                     eps: base.Numeric) -> tuple[jax.Array, jax.Array]:
  """``decay`` and ``eps`` as hyperparameter arrays, for one tree."""
  return (hyperparameters.as_hyperparameter(decay),
          hyperparameters.as_hyperparameter(eps))


def update_infinity_moment(g: Any, m: Any, decay: jax.Array,
                           eps: jax.Array) -> jax.Array:
  r""":math:`\max(|g| + \epsilon, \beta u)` for one leaf, in ``m``'s dtype.

  Args:
    g: the update leaf.
    m: the moment leaf :math:`u`.
    decay: the decay rate, an array (:func:`infinity_factors`).
    eps: the term added to :math:`|g|`, an array.

  Returns:
    The new moment.
  """
  g, m = jnp.asarray(g), jnp.asarray(m)
  abs_g = jnp.abs(g.astype(dtypes.promote_dtypes(g.dtype, decay.dtype)))
  dtype = dtypes.promote_dtypes(abs_g.dtype, m.dtype)
  new_m = jnp.maximum(abs_g.astype(dtype) + eps.astype(dtype),
                      decay.astype(dtype) * m.astype(dtype))
  return new_m.astype(m.dtype)


def bias_correction(decay: jax.Array, count: jax.Array) -> jax.Array:
  r""":math:`1 - \beta^t` in the dtype of ``decay``, one scalar per step.

  Args:
    decay: the decay rate :math:`\beta`, a floating scalar array.
    count: the integer step count :math:`t` (1 at the first update).

  Returns:
    A scalar array.
  """
  return 1 - decay ** count.astype(decay.dtype)


def bias_corrections(decay: base.Numeric,
                     count: base.Numeric) -> dtypes.ScalarsByDtype:
  """:func:`bias_correction` of a hyperparameter, for :func:`bias_corrected`.

  Args:
    decay: the decay rate (a number or a scalar array).
    count: the step count (an int or an integer array).

  Returns:
    The correction, held once per leaf dtype and shape.
  """
  decay = hyperparameters.as_hyperparameter(decay)
  return dtypes.ScalarsByDtype(bias_correction(decay, jnp.asarray(count)))


def bias_corrected(m: Any, corrections: dtypes.ScalarsByDtype) -> jax.Array:
  r""":math:`m / (1 - \beta^t)` for one leaf, in ``m``'s dtype.

  Args:
    m: the moment leaf.
    corrections: :func:`bias_corrections`.

  Returns:
    The corrected moment.
  """
  m = dtypes.as_array(m)
  wide, correction = corrections.lift(m)
  return dtypes.cast(jax.lax.div(wide, correction), m.dtype)
