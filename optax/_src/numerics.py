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

:func:`abs_sq` (the squared modulus, real for complex input),
:func:`safe_norm` and :func:`safe_root_mean_squares` (floored, with a finite
gradient at zero) and :func:`safe_increment` (a counter that saturates
instead of wrapping around). Complex numbers are supported, see
https://gist.github.com/wdphy16/118aef6fb5f82c49790d7678cf87da29

The dtype policy is in ``dtypes``, the hyperparameters' in
``hyperparameters``, the preparation of gradients and params in
``prepared_inputs``.
"""

import functools
from typing import Optional, Union

import jax
import jax.numpy as jnp
import numpy as np

from optax._src import base


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
  if not jnp.iscomplexobj(x):
    # The same values as x * x, and a gradient of one product per entry.
    return jnp.square(x) if isinstance(x, jax.Array) else np.square(x)
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
