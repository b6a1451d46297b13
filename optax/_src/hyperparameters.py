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
"""Scalar hyperparameters: what counts as a number, and their dtype.

* :func:`is_number` and :func:`is_python_scalar`, the rules for "this value
  is a number": a hyperparameter known when an optimizer is built, and a
  Python-number leaf of a tree;
* :func:`hyperparameter_dtype`, the dtype in which hyperparameters are held
  and combined, and :func:`as_hyperparameter` (with
  :func:`as_hyperparameter_unless` and :func:`hyperparameter_and_complement`),
  which turn a number or a scalar array into it, so that a Python float and
  an injected array give the same bits.
"""

import numbers
from typing import Any, Optional

import jax
import jax.numpy as jnp
import numpy as np

from optax._src import base


def is_number(x: Any, *, allow_complex: bool = False,
              integral: bool = False) -> bool:
  """Whether ``x`` is a Python or NumPy number (bools excluded).

  The one rule of this library for "this value is a number of this kind".
  Such hyperparameters are known when an optimizer is built, so they can be
  validated then (an order check needs a real number); arrays and schedules
  are checked, if at all, when used. ``inject_hyperparams`` also sorts
  complex numbers, which it holds as complex arrays, with the numbers.

  Args:
    x: any value.
    allow_complex: whether complex numbers (``1j``, ``np.complex64(1)``)
      count; by default only real numbers do.
    integral: whether only integers (``3``, ``np.int32(3)``) count: a
      count, a size or a period, where ``2.5`` is not a number of the right
      kind.

  Returns:
    True for ``3``, ``0.5``, ``np.float32(0.5)`` (and, with
    ``allow_complex``, ``1j``; with ``integral``, only ``3`` and NumPy
    integers); False for ``True``, arrays and callables.

  Examples:
    >>> from optax._src import hyperparameters
    >>> hyperparameters.is_number(0.5), hyperparameters.is_number(True)
    (True, False)
    >>> hyperparameters.is_number(1j, allow_complex=True)
    True
    >>> hyperparameters.is_number(2.5, integral=True)
    False
  """
  if integral:
    kind = numbers.Integral
  else:
    kind = numbers.Number if allow_complex else numbers.Real
  return isinstance(x, kind) and not isinstance(x, (bool, np.bool_))


# The exact types of Python scalars (bool is a leaf type of its own).
_PYTHON_SCALARS = frozenset((bool, int, float, complex))


def is_python_scalar(x: Any) -> bool:
  """Whether a leaf is a Python ``bool``, ``int``, ``float`` or ``complex``.

  The rule by which a Python-number leaf of the gradients or params
  (``{'w': w, 'scale': 1.5}``) is made an array: unlike :func:`is_number`,
  bools count, and NumPy scalars do not (they have a dtype already). The
  check compares exact types, as it runs for every leaf while tracing.

  Args:
    x: a pytree leaf.

  Returns:
    True for ``True``, ``3``, ``0.5``, ``1j``; False for ``np.float32(0.5)``,
    arrays, None and subclasses of those types.
  """
  return type(x) in _PYTHON_SCALARS


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


def at_step(value: base.ScalarOrSchedule, count: jax.Array) -> jax.Array:
  """A number or a schedule at step ``count``, as a hyperparameter array.

  Args:
    value: a number, a 0-d array or a schedule (a function of the count).
    count: the step count a schedule is evaluated at.

  Returns:
    ``as_hyperparameter(value(count))`` for a schedule, else
    ``as_hyperparameter(value)``.

  Examples:
    >>> import jax.numpy as jnp
    >>> from optax._src import hyperparameters
    >>> hyperparameters.at_step(lambda count: 0.5 ** count, jnp.asarray(3))
    Array(0.125, dtype=float32)
  """
  return as_hyperparameter(value(count) if callable(value) else value)


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
