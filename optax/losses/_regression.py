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
"""Regression losses: squared error, Huber, log-cosh and cosine losses.

Every loss here is elementwise (or reduces along ``axis`` for the cosine
losses) and does not average over the batch: reduce the result yourself,
e.g. with ``jnp.mean``.
"""

import math
from typing import Optional, Union

import jax
import jax.numpy as jnp

from optax._src import validation

Axis = Union[int, tuple[int, ...]]


def squared_error(
    predictions: jax.typing.ArrayLike,
    targets: Optional[jax.typing.ArrayLike] = None,
) -> jax.Array:
  r"""Elementwise squared error.

  .. math::
    \ell(\hat y, y) = (\hat y - y)^2

  Args:
    predictions: floating predictions, any shape.
    targets: targets with exactly the shape of ``predictions``; ``None``
      means zeros (the loss is then the square of ``predictions``).

  Returns:
    The squared error, shaped like ``predictions``.

  Raises:
    TypeError: if ``predictions`` is not floating.
    ValueError: if ``targets`` does not have the shape of ``predictions``.

  Examples:
    >>> import jax.numpy as jnp
    >>> from optax import losses
    >>> losses.squared_error(jnp.array([1.0, -2.0]), jnp.array([0.5, 1.0]))
    Array([0.25, 9.  ], dtype=float32)

  .. seealso:: :func:`l2_loss`, :func:`huber_loss`
  """
  predictions = jnp.asarray(predictions)
  validation.check_floating_dtype('squared_error', 'predictions', predictions)
  errors = predictions
  if targets is not None:
    targets = jnp.asarray(targets)
    validation.check_same_shape(
        'squared_error', 'predictions', predictions, 'targets', targets)
    errors = predictions - targets
  return jnp.square(errors)


def l2_loss(
    predictions: jax.typing.ArrayLike,
    targets: Optional[jax.typing.ArrayLike] = None,
) -> jax.Array:
  r"""Half the elementwise squared error.

  .. math::
    \ell(\hat y, y) = \tfrac{1}{2} (\hat y - y)^2

  The factor one half makes the gradient the plain residual
  :math:`\hat y - y`.

  Args:
    predictions: floating predictions, any shape.
    targets: targets with exactly the shape of ``predictions``; ``None``
      means zeros.

  Returns:
    Half the squared error, shaped like ``predictions``.

  Raises:
    TypeError: if ``predictions`` is not floating.
    ValueError: if ``targets`` does not have the shape of ``predictions``.

  Examples:
    >>> import jax.numpy as jnp
    >>> from optax import losses
    >>> losses.l2_loss(jnp.array([1.0, -2.0]), jnp.array([0.5, 1.0]))
    Array([0.125, 4.5  ], dtype=float32)

  .. seealso:: :func:`squared_error`
  """
  return 0.5 * squared_error(predictions, targets)


def huber_loss(
    predictions: jax.typing.ArrayLike,
    targets: Optional[jax.typing.ArrayLike] = None,
    *,
    delta: float = 1.0,
) -> jax.Array:
  r"""Elementwise Huber loss: quadratic near zero, linear in the tails.

  With :math:`e = \hat y - y`,

  .. math::
    \ell_\delta(e) = \begin{cases}
      \tfrac{1}{2} e^2 & |e| \le \delta \\
      \delta \left(|e| - \tfrac{1}{2} \delta\right) & |e| > \delta
    \end{cases}

  The gradient is the residual clipped to :math:`[-\delta, \delta]`, which
  makes the loss robust to outliers.

  Args:
    predictions: floating predictions, any shape.
    targets: targets broadcastable against ``predictions``; ``None`` means
      zeros.
    delta: where the loss switches from quadratic to linear (non-negative).

  Returns:
    The Huber loss, with the broadcast shape of the inputs.

  Raises:
    TypeError: if ``predictions`` is not floating.

  Examples:
    >>> import jax.numpy as jnp
    >>> from optax import losses
    >>> losses.huber_loss(jnp.array([0.5, 3.0]), delta=1.0)
    Array([0.125, 2.5  ], dtype=float32)

  References:
    Huber, `Robust Estimation of a Location Parameter
    <https://doi.org/10.1214/aoms/1177703732>`_, 1964.

  .. seealso:: :func:`log_cosh`, :func:`l2_loss`
  """
  predictions = jnp.asarray(predictions)
  validation.check_floating_dtype('huber_loss', 'predictions', predictions)
  errors = predictions if targets is None else predictions - targets
  abs_errors = jnp.abs(errors)
  # Split |e| into a part below delta (quadratic) and the excess (linear), so
  # both pieces stay finite and the kink has the average slope.
  quadratic = jnp.minimum(abs_errors, delta)
  linear = abs_errors - quadratic
  return 0.5 * jnp.square(quadratic) + delta * linear


def log_cosh(
    predictions: jax.typing.ArrayLike,
    targets: Optional[jax.typing.ArrayLike] = None,
) -> jax.Array:
  r"""Elementwise logarithm of the hyperbolic cosine of the error.

  .. math::
    \ell(\hat y, y) = \log\cosh(\hat y - y)

  It behaves like :math:`e^2 / 2` for small errors and like
  :math:`|e| - \log 2` for large ones, with gradient :math:`\tanh(e)`. The
  evaluation is accurate for small errors (no cancellation) and does not
  overflow for large ones.

  Args:
    predictions: floating predictions, any shape.
    targets: targets broadcastable against ``predictions``; ``None`` means
      zeros.

  Returns:
    The log-cosh loss, with the broadcast shape of the inputs.

  Raises:
    TypeError: if ``predictions`` is not floating.

  Examples:
    >>> import jax.numpy as jnp
    >>> from optax import losses
    >>> losses.log_cosh(jnp.array([0.0, 1.0, 100.0]))
    Array([ 0.        ,  0.43378082, 99.306854  ], dtype=float32)

  References:
    Chen et al., `Log Hyperbolic Cosine Loss Improves Variational
    Auto-Encoder <https://openreview.net/forum?id=rkglvsC9Ym>`_, 2019.

  .. seealso:: :func:`huber_loss`
  """
  predictions = jnp.asarray(predictions)
  validation.check_floating_dtype('log_cosh', 'predictions', predictions)
  errors = predictions if targets is None else predictions - targets
  return _log_cosh(errors)


@jax.custom_jvp
def _log_cosh(errors: jax.Array) -> jax.Array:
  """``log(cosh(errors))``, elementwise; its derivative is ``tanh``."""
  abs_errors = jnp.abs(errors)
  small = abs_errors < 1.0
  # Both ranges share one exp and one log1p: log cosh e = log1p(x) with
  # x = cosh(e) - 1 for |e| < 1 (its Taylor series in e^2, free of
  # cancellation), and |e| - log 2 + log1p(x) with x = exp(-2|e|) above
  # (never overflows). The series may overflow where it is not selected;
  # no derivative passes through it (see the custom_jvp below).
  near = _cosh_minus_one(jnp.square(errors))
  log1p = jnp.log1p(jnp.where(small, near, jnp.exp(-2.0 * abs_errors)))
  return jnp.where(small, log1p, abs_errors - math.log(2.0) + log1p)


# d/de log cosh e = tanh e: one elementwise function, where the chain rule
# through the two ranges would differentiate the series, exp and log1p.
_log_cosh.defjvps(lambda errors_dot, _, errors: jnp.tanh(errors) * errors_dot)
# Traced once per shape and dtype: a program calling log_cosh again traces
# only the call.
_log_cosh = jax.jit(_log_cosh)


def _cosh_minus_one(z: jax.Array) -> jax.Array:
  """``cosh(sqrt(z)) - 1`` for ``0 <= z < 1``, by its Taylor series.

  ``sum_k z^k / (2k)!`` is truncated after the first term below an eighth
  of the dtype's epsilon (4 terms in float16, 6 in float32, 10 in float64)
  and evaluated by Horner's rule.

  Args:
    z: the squared argument, in ``[0, 1)`` where the result is used.

  Returns:
    ``cosh(sqrt(z)) - 1``, in the dtype of ``z``.
  """
  tolerance = float(jnp.finfo(z.dtype).eps) / 8
  coefficients = []
  k = 1
  while not coefficients or coefficients[-1] >= tolerance:
    coefficients.append(1.0 / math.factorial(2 * k))
    k += 1
  series = coefficients[-1]
  for coefficient in reversed(coefficients[:-1]):
    series = series * z + coefficient
  return z * series


def _unit_vectors(
    x: jax.Array,
    epsilon: float,
    axis: Axis,
    where: Optional[jax.Array],
) -> jax.Array:
  """Divides ``x`` by its norm along ``axis``, the squared norm floored."""
  sq_norm = jnp.sum(jnp.square(x), axis=axis, where=where, keepdims=True)
  return x / jnp.sqrt(jnp.maximum(sq_norm, epsilon))


def cosine_similarity(
    predictions: jax.typing.ArrayLike,
    targets: jax.typing.ArrayLike,
    *,
    epsilon: float = 0.0,
    axis: Axis = -1,
    where: Optional[jax.typing.ArrayLike] = None,
) -> jax.Array:
  r"""Cosine of the angle between predictions and targets along ``axis``.

  .. math::
    \cos(\hat y, y) = \left\langle \frac{\hat y}{\|\hat y\|},
      \frac{y}{\|y\|} \right\rangle

  Each vector is normalized first, and the normalized vectors are then
  multiplied. float16 and bfloat16 inputs are computed in float32 and the
  result rounded once, so float16 vectors whose squares overflow or
  underflow float16 (components above 256 or below about 1e-4) still give
  their cosine. float32 and float64 inputs are computed in their own dtype,
  as upstream computes them, and bfloat16 has float32's range, so the sums
  of squares bound the vectors served: a vector whose norm exceeds about
  1.8e19 (float64: 1.3e154) gives 0, and one whose components are all below
  about 1.1e-19 (float64: 1.5e-154), whose squares leave the normal range,
  gives inf or NaN without an ``epsilon``. Rescale such vectors first (the
  cosine does not depend on their lengths): a rescaling inside would cost
  every call another pass over both inputs.
  ``epsilon`` floors each *squared* norm: a vector whose norm
  is below :math:`\sqrt{\epsilon}` is divided by :math:`\sqrt{\epsilon}`
  instead.
  With the default ``epsilon=0`` a zero vector gives NaN.

  Args:
    predictions: floating predictions, the vectors lying along ``axis``.
    targets: targets broadcastable against ``predictions``.
    epsilon: lower bound of the squared norms in the denominator.
    axis: the axis or axes holding the vector components.
    where: optional boolean mask broadcastable against the inputs; only the
      components where it is ``True`` take part.

  Returns:
    The cosine similarity, with ``axis`` reduced away.

  Raises:
    TypeError: if ``predictions`` or ``targets`` is not floating.

  Examples:
    >>> import jax.numpy as jnp
    >>> from optax import losses
    >>> losses.cosine_similarity(jnp.array([[1.0, 0.0], [1.0, 1.0]]),
    ...                          jnp.array([[1.0, 1.0], [2.0, 2.0]]))
    Array([0.70710677, 0.99999994], dtype=float32)

  .. seealso:: :func:`cosine_distance`
  """
  predictions = jnp.asarray(predictions)
  targets = jnp.asarray(targets)
  validation.check_floating_dtype(
      'cosine_similarity', 'predictions', predictions)
  validation.check_floating_dtype('cosine_similarity', 'targets', targets)
  if where is not None:
    where = jnp.asarray(where)
  dtype = jnp.result_type(predictions, targets)
  compute_dtype = jnp.promote_types(dtype, jnp.float32)
  unit_predictions = _unit_vectors(
      predictions.astype(compute_dtype), epsilon, axis, where)
  unit_targets = _unit_vectors(
      targets.astype(compute_dtype), epsilon, axis, where)
  cosine = jnp.sum(unit_predictions * unit_targets, axis=axis, where=where)
  return cosine.astype(dtype)


def cosine_distance(
    predictions: jax.typing.ArrayLike,
    targets: jax.typing.ArrayLike,
    *,
    epsilon: float = 0.0,
    axis: Axis = -1,
    where: Optional[jax.typing.ArrayLike] = None,
) -> jax.Array:
  r"""One minus the cosine similarity, in :math:`[0, 2]`.

  .. math::
    d(\hat y, y) = 1 - \cos(\hat y, y)

  Args:
    predictions: floating predictions, the vectors lying along ``axis``.
    targets: targets broadcastable against ``predictions``.
    epsilon: lower bound of the squared norms in the denominator, see
      :func:`cosine_similarity`.
    axis: the axis or axes holding the vector components.
    where: optional boolean mask broadcastable against the inputs.

  Returns:
    The cosine distance, with ``axis`` reduced away.

  Raises:
    TypeError: if ``predictions`` or ``targets`` is not floating.

  Examples:
    >>> import jax.numpy as jnp
    >>> from optax import losses
    >>> losses.cosine_distance(jnp.array([[1.0, 0.0], [0.0, 2.0]]),
    ...                        jnp.array([[1.0, 0.0], [3.0, 0.0]]))
    Array([0., 1.], dtype=float32)

  .. seealso:: :func:`cosine_similarity`
  """
  return 1.0 - cosine_similarity(
      predictions, targets, epsilon=epsilon, axis=axis, where=where)

