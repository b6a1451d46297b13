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
"""Classification losses.

Cross-entropies (softmax, sigmoid, focal, poly), margin losses (hinge,
perceptron, sparsemax), Kullback-Leibler divergences and the connectionist
temporal classification (CTC) loss. None of them averages over the batch.

Conventions for numerical safety: a class whose label (or target
probability) is exactly zero contributes nothing, even where its logit is
``-inf`` or its log-probability is ``-inf``; such entries get zero gradient.
"""

import functools
import math
from typing import Optional, Union

import jax
from jax.custom_derivatives import SymbolicZero
import jax.numpy as jnp
import numpy as np

from optax._src import deprecations
from optax._src import validation

Axis = Union[int, tuple[int, ...]]



def _check_integer(fn_name: str, arg_name: str, x: jax.Array) -> None:
  """Raises a TypeError unless ``x`` has an integer dtype."""
  if not jnp.issubdtype(x.dtype, jnp.integer):
    raise TypeError(
        f'{fn_name}: {arg_name} must have an integer dtype (class indices),'
        f' got {x.dtype}. Cast it with {arg_name}.astype(jnp.int32), or use'
        ' the one-hot variant of this loss for probability labels.')


def _masked_log_probs(
    log_probs: jax.Array,
    labels: jax.Array,
    where: Optional[jax.Array],
) -> jax.Array:
  """``log_probs`` with 0 where a zero label meets a non-finite entry."""
  ignore = (labels == 0) & ~jnp.isfinite(log_probs)
  if where is not None:
    ignore = ignore | ~where
  return jnp.where(ignore, 0.0, log_probs)


def _labelled(
    labels: jax.Array, where: Optional[jax.Array]
) -> jax.Array:
  """The entries whose label is nonzero (and that ``where`` keeps)."""
  keep = labels != 0
  if where is not None:
    keep = keep & where
  return keep


@jax.custom_jvp
def _weighted_log_probs(
    log_probs: jax.Array,
    labels: jax.Array,
    where: Optional[jax.Array],
) -> jax.Array:
  """``labels * log_probs`` where classes with zero label contribute 0.

  A zero label times a ``-inf`` (or NaN, for a row of ``-inf`` logits)
  log-probability would give NaN; the product is selected only where the
  label is nonzero, so those entries contribute 0. Entries masked out by
  ``where`` are zeroed as well. The select costs what upstream's
  ``safe_softmax_cross_entropy`` pays: a comparison with 0 and a select.

  The derivative is the product rule with the log-probabilities replaced
  by 0 where a zero label meets a non-finite one: the tangent of the labels
  is weighted by them, the tangent of the log-probabilities by the labels,
  and a class with a zero label contributes 0 (not ``0 * nan`` where the
  tangent of its log-probability is not finite). The mask of the second
  term is computed from the labels alone, so reverse mode does not
  recompute the log-probabilities: the cotangent of the logits costs what
  upstream's plain product costs.

  Args:
    log_probs: log-probabilities.
    labels: label weights broadcastable against ``log_probs``.
    where: optional mask of the entries taking part.

  Returns:
    The elementwise product, with the broadcast shape.
  """
  return labels * jnp.where(_labelled(labels, where), log_probs, 0.0)


def _weighted_log_probs_jvp(primals, tangents):
  """The product rule of ``_weighted_log_probs``, zero tangents skipped."""
  log_probs, labels, where = primals
  log_probs_dot, labels_dot, _ = tangents
  keep = _labelled(labels, where)
  out = labels * jnp.where(keep, log_probs, 0.0)
  terms = []
  if not isinstance(labels_dot, SymbolicZero):
    terms.append(labels_dot * _masked_log_probs(log_probs, labels, where))
  if not isinstance(log_probs_dot, SymbolicZero):
    terms.append(labels * jnp.where(labels == 0, 0.0, log_probs_dot))
  if not terms:
    return out, jnp.zeros_like(out)
  # jax's own rule for a product adds the left factor's term first.
  return out, terms[0] if len(terms) == 1 else terms[0] + terms[1]


_weighted_log_probs.defjvp(_weighted_log_probs_jvp, symbolic_zeros=True)


def _reduction_axes(axis: Axis, ndim: int) -> tuple[int, ...]:
  """``axis`` as a tuple of nonnegative axes."""
  axes = (axis,) if isinstance(axis, int) else axis
  return tuple(a % ndim for a in axes)


@functools.partial(jax.custom_jvp, nondiff_argnums=(2,))
def _labelled_complement(
    logits: jax.Array, labels: jax.Array, axis: Axis
) -> jax.Array:
  """``labels * (1 - softmax(logits))``, elementwise.

  The forward pass computes the softmax as ``jax.nn.log_softmax`` does, so
  that XLA shares it with the cross-entropy's; the derivative computes it
  as the cross-entropy's derivative does (finite on a row of ``-inf``
  logits), so that a gradient computes it once.

  Args:
    logits: unnormalized log-probabilities.
    labels: label weights broadcastable against ``logits``.
    axis: the class axis or axes.

  Returns:
    The elementwise product, with the broadcast shape.
  """
  return labels * (1.0 - jax.nn.softmax(logits, axis=axis))


def _labelled_complement_jvp(axis, primals, tangents):
  """Tangents of ``labels * (1 - softmax(logits))``."""
  logits, labels = primals
  logits_dot, labels_dot = tangents
  axes = _reduction_axes(axis, logits.ndim)
  exps, total = _softmax_parts(logits, axes)
  probs = exps / total
  out = labels * (1.0 - probs)
  terms = []
  if not isinstance(logits_dot, SymbolicZero):
    # d softmax = softmax * (d logits - sum(softmax * d logits)).
    weighted = labels * probs
    mean_dot = jnp.sum(probs * logits_dot, axis=axes, keepdims=True)
    terms.append(weighted * (mean_dot - logits_dot))
  if not (isinstance(labels_dot, SymbolicZero)
          or labels_dot.dtype == jax.dtypes.float0):
    terms.append(labels_dot * (1.0 - probs))
  if not terms:
    return out, jnp.zeros_like(out)
  tangent = terms[0] if len(terms) == 1 else terms[0] + terms[1]
  return out, tangent.astype(out.dtype)


_labelled_complement.defjvp(_labelled_complement_jvp, symbolic_zeros=True)


@functools.partial(jax.custom_jvp, nondiff_argnums=(2,))
def _cross_entropy(
    logits: jax.Array, labels: jax.Array, axis: Axis
) -> jax.Array:
  """``-sum(labels * log_softmax(logits))`` where zero labels add 0.

  The term of a class whose label is 0 is selected away, so that a ``-inf``
  logit (or a row of them) with a zero label adds 0 instead of
  ``0 * -inf = NaN``.

  The derivative is that of the cross-entropy itself, not of the product:
  along the logits it is ``sum(labels) * softmax(logits) - labels``, which
  has no logarithm and no guard, so that reverse mode keeps the softmax of
  the forward pass as its only residual. Along the labels it is
  ``-log_softmax(logits)``, 0 where a zero label meets a non-finite
  log-probability.

  The forward pass computes ``-log_softmax(logits)`` as
  ``log(sum(exp(shifted))) - shifted``, with the logits shifted by their
  maximum as ``jax.nn.log_softmax`` does (the same bits): the terms are then
  the cross-entropy's own, and their sum needs no negation. On XLA:CPU a
  negation after the sum is a kernel of its own, compiled like the select's;
  without it the program compiles as fast as the unguarded one.

  Args:
    logits: unnormalized log-probabilities.
    labels: label weights broadcastable against ``logits``.
    axis: the class axis or axes.

  Returns:
    The cross-entropy, with ``axis`` reduced away.
  """
  axes = _reduction_axes(axis, logits.ndim)
  # The select after the product: the reduction then reads one array.
  terms = jnp.where(labels != 0, labels * _neg_log_softmax(logits, axes), 0.0)
  return jnp.sum(terms, axis=axes)


@functools.partial(jax.jit, static_argnums=1)
def _neg_log_softmax(logits: jax.Array, axes: tuple[int, ...]) -> jax.Array:
  """``-jax.nn.log_softmax(logits, axes)``, bit for bit, without a negation.

  The logits are shifted by their maximum and the logarithm of the sum of
  the exponentials is subtracted from the shifted logits' negation, as
  ``jax.nn.log_softmax`` computes them (compiled as one program, so that an
  eager call rounds as it does).

  Args:
    logits: the logits.
    axes: the class axes.

  Returns:
    The negated log-probabilities, with the shape of ``logits``.
  """
  shifted = logits - jnp.max(
      logits, axis=axes, keepdims=True, initial=-jnp.inf)
  return jnp.log(jnp.sum(jnp.exp(shifted), axis=axes, keepdims=True)) - shifted


def _softmax_parts(
    logits: jax.Array, axes: tuple[int, ...]
) -> tuple[jax.Array, jax.Array]:
  """``exp(logits - max)`` and its sum, finite on a row of ``-inf`` logits.

  The maximum is taken from the lowest finite value up and the sum is
  raised by the smallest normal number, which leaves both unchanged on a
  row with a finite logit (the sum is then at least 1), so that a row of
  ``-inf`` logits gives a zero softmax instead of NaN.

  Args:
    logits: the logits.
    axes: the class axes.

  Returns:
    The shifted exponentials and their sum over ``axes`` (kept as size-1
    axes).
  """
  finfo = jnp.finfo(logits.dtype)
  lowest = np.array(finfo.min, logits.dtype)
  shift = jax.lax.reduce(
      jax.lax.stop_gradient(logits), lowest, jax.lax.max, axes)
  exps = jnp.exp(logits - jnp.expand_dims(shift, axes))
  total = jnp.sum(exps, axis=axes, keepdims=True) + finfo.tiny
  return exps, total


def _cross_entropy_jvp(axis, primals, tangents):
  """Tangents of the cross-entropy, zero tangents skipped."""
  logits, labels = primals
  logits_dot, labels_dot = tangents
  out = _cross_entropy(logits, labels, axis)
  axes = _reduction_axes(axis, logits.ndim)
  terms = []
  if not isinstance(logits_dot, SymbolicZero):
    exps, total = _softmax_parts(logits, axes)
    label_sums = jnp.sum(labels, axis=axes, keepdims=True)
    slopes = exps / total * label_sums - labels
    terms.append(jnp.sum(slopes * logits_dot, axis=axes))
  if not (isinstance(labels_dot, SymbolicZero)
          or labels_dot.dtype == jax.dtypes.float0):
    log_probs = jax.nn.log_softmax(logits, axis=axis)
    masked = jnp.where((labels == 0) & ~jnp.isfinite(log_probs), 0.0,
                       log_probs)
    terms.append(-jnp.sum(labels_dot * masked, axis=axes))
  if not terms:
    return out, jnp.zeros_like(out)
  tangent = terms[0] if len(terms) == 1 else terms[0] + terms[1]
  return out, tangent.astype(out.dtype)


_cross_entropy.defjvp(_cross_entropy_jvp, symbolic_zeros=True)


def _class_mask(
    where: Optional[jax.typing.ArrayLike], logits: jax.Array, axis: Axis
) -> Optional[jax.Array]:
  """A ``where`` mask as a mask of the logits.

  A mask with fewer dimensions than ``logits`` is a mask of the examples
  (shaped like the loss): it gets size-1 class axes at ``axis``, so that it
  selects whole rows.

  Args:
    where: None, a mask of the logits, or a mask of the examples.
    logits: the logits.
    axis: the class axis or axes.

  Returns:
    None or a boolean array broadcastable against ``logits``.
  """
  if where is None:
    return None
  where = jnp.asarray(where)
  if where.ndim != logits.ndim:
    where = jnp.expand_dims(where, axis)
  return where


def softmax_cross_entropy(
    logits: jax.typing.ArrayLike,
    labels: jax.typing.ArrayLike,
    axis: Axis = -1,
    where: Optional[jax.typing.ArrayLike] = None,
) -> jax.Array:
  r"""Cross-entropy between a softmax distribution and label probabilities.

  .. math::
    \ell(z, y) = -\sum_i y_i \log \operatorname{softmax}(z)_i

  Classes with a zero label contribute nothing, so ``-inf`` logits can mask
  classes out: the loss and its gradient stay finite as long as those
  classes have zero label.

  Args:
    logits: unnormalized log-probabilities, classes along ``axis``.
    labels: label probabilities (each row usually sums to one), broadcastable
      against ``logits``.
    axis: the class axis or axes.
    where: optional boolean mask broadcastable against ``logits``; only the
      classes where it is ``True`` take part in the softmax and the sum. A
      mask with fewer dimensions than ``logits`` masks whole examples (it is
      shaped like the loss); a masked example gives zero.

  Returns:
    The cross-entropy, with ``axis`` reduced away.

  Raises:
    TypeError: if ``logits`` is not floating.

  Examples:
    >>> import jax.numpy as jnp
    >>> from optax import losses
    >>> logits = jnp.array([[1.0, 2.0, -jnp.inf]])
    >>> labels = jnp.array([[0.5, 0.5, 0.0]])
    >>> losses.softmax_cross_entropy(logits, labels)
    Array([0.8132616], dtype=float32)

  References:
    Goodfellow et al., `Deep Learning, section 6.2.2.3
    <https://www.deeplearningbook.org/contents/mlp.html>`_, 2016.

  .. seealso:: :func:`softmax_cross_entropy_with_integer_labels`,
    :func:`safe_softmax_cross_entropy`
  """
  logits = jnp.asarray(logits)
  labels = jnp.asarray(labels)
  validation.check_floating_dtype('softmax_cross_entropy', 'logits', logits)
  where = _class_mask(where, logits, axis)
  if where is not None:
    # A class masked out is a class with a -inf logit and a zero label.
    logits = jnp.where(where, logits, -jnp.inf)
    labels = jnp.where(where, labels, 0)
  if labels.shape != logits.shape:
    shape = jnp.broadcast_shapes(logits.shape, labels.shape)
    logits = jnp.broadcast_to(logits, shape)
    labels = jnp.broadcast_to(labels, shape)
  return _cross_entropy(logits, labels, axis)


def safe_softmax_cross_entropy(
    logits: jax.typing.ArrayLike,
    labels: jax.typing.ArrayLike,
) -> jax.Array:
  r"""Softmax cross-entropy along the last axis, safe with ``-inf`` logits.

  .. math::
    \ell(z, y) = -\sum_i y_i \log \operatorname{softmax}(z)_i

  Classes whose label is zero contribute nothing even where their logit is
  ``-inf``, and a row whose logits are all ``-inf`` and whose labels are all
  zero gives a zero loss. A nonzero label on a ``-inf`` logit gives ``inf``.

  Args:
    logits: unnormalized log-probabilities, classes along the last axis.
    labels: label probabilities broadcastable against ``logits``.

  Returns:
    The cross-entropy, with the last axis reduced away.

  Raises:
    TypeError: if ``logits`` is not floating.

  Examples:
    >>> import jax.numpy as jnp
    >>> from optax import losses
    >>> logits = jnp.array([[-jnp.inf, 0.0, 0.0]])
    >>> losses.safe_softmax_cross_entropy(logits, jnp.array([[0.0, 1.0, 0.0]]))
    Array([0.6931472], dtype=float32)

  .. seealso:: :func:`softmax_cross_entropy`
  """
  logits = jnp.asarray(logits)
  validation.check_floating_dtype(
      'safe_softmax_cross_entropy', 'logits', logits)
  return softmax_cross_entropy(logits, labels)


def _flatten_class_axes(
    x: jax.Array, axis: Axis
) -> tuple[jax.Array, int]:
  """Moves the class axes to the end (in the given order) and merges them."""
  if isinstance(axis, int):
    return jnp.moveaxis(x, axis, -1), x.shape[axis]
  n = len(axis)
  moved = jnp.moveaxis(x, axis, tuple(range(-n, 0)))
  num_classes = math.prod(moved.shape[-n:])
  return moved.reshape(moved.shape[:-n] + (num_classes,)), num_classes


def softmax_cross_entropy_with_integer_labels(
    logits: jax.typing.ArrayLike,
    labels: jax.typing.ArrayLike,
    axis: Axis = -1,
    where: Optional[jax.typing.ArrayLike] = None,
) -> jax.Array:
  r"""Softmax cross-entropy with integer class labels.

  .. math::
    \ell(z, k) = \log \sum_i e^{z_i} - z_k

  Equivalent to :func:`softmax_cross_entropy` with one-hot labels, without
  building them. Negative labels count from the end, as in indexing; a label
  outside ``[-num_classes, num_classes)`` gives NaN. When
  ``axis`` is a tuple, the class axes are flattened in the order given (the
  first one varies slowest) and the label indexes the flattened classes.

  Args:
    logits: unnormalized log-probabilities, classes along ``axis``.
    labels: integer class indices, shaped like ``logits`` without ``axis``.
    axis: the class axis, or a tuple of axes that together index the classes.
    where: optional boolean mask broadcastable against ``logits``; only the
      classes where it is ``True`` take part in the normalization. A row
      with no such class gives zero. A mask with fewer dimensions than
      ``logits`` masks whole examples (it is shaped like ``labels``).

  Returns:
    The cross-entropy, shaped like ``labels``.

  Raises:
    TypeError: if ``logits`` is not floating or ``labels`` is not integer.
    ValueError: if ``axis`` is neither an int nor a tuple of ints.

  Examples:
    >>> import jax.numpy as jnp
    >>> from optax import losses
    >>> logits = jnp.array([[1.0, 2.0, 3.0], [0.0, 0.0, 0.0]])
    >>> losses.softmax_cross_entropy_with_integer_labels(
    ...     logits, jnp.array([2, 0]))
    Array([0.4076059, 1.0986123], dtype=float32)

  .. seealso:: :func:`softmax_cross_entropy`
  """
  fn = 'softmax_cross_entropy_with_integer_labels'
  logits = jnp.asarray(logits)
  labels = jnp.asarray(labels)
  validation.check_floating_dtype(fn, 'logits', logits)
  _check_integer(fn, 'labels', labels)
  if not (isinstance(axis, int) or (
      isinstance(axis, tuple) and all(isinstance(a, int) for a in axis))):
    raise ValueError(
        f'{fn}: axis must be an int or a tuple of ints, got {axis!r}.')
  where = _class_mask(where, logits, axis)
  if where is not None:
    where = jnp.broadcast_to(where, logits.shape)
    where, _ = _flatten_class_axes(where, axis)
  logits, _ = _flatten_class_axes(logits, axis)

  if where is not None:
    # A row with no valid class would make logsumexp -inf and its gradient
    # NaN: compute such rows over all classes and zero them at the end.
    has_class = jnp.any(where, axis=-1)
    where = where | ~has_class[..., None]
  log_normalizers = jax.nn.logsumexp(logits, axis=-1, where=where)

  # take_along_axis counts negative labels from the end and gives NaN for a
  # label out of range.
  label_logits = jnp.take_along_axis(
      logits, labels[..., None], axis=-1)[..., 0]
  loss = log_normalizers - label_logits
  if where is not None:
    loss = jnp.where(has_class, loss, 0.0)
  return loss


def sigmoid_binary_cross_entropy(
    logits: jax.typing.ArrayLike,
    labels: jax.typing.ArrayLike,
) -> jax.Array:
  r"""Elementwise binary cross-entropy of sigmoid probabilities.

  With :math:`\sigma` the logistic sigmoid,

  .. math::
    \ell(z, y) = -y \log \sigma(z) - (1 - y) \log \sigma(-z)

  computed from log-sigmoids, so it is finite and accurate for any logit.
  Soft labels in :math:`[0, 1]` are allowed.

  Args:
    logits: floating logits, any shape.
    labels: labels (0/1 or probabilities) broadcastable against ``logits``;
      they are cast to the dtype of ``logits``.

  Returns:
    The cross-entropy, with the broadcast shape and the dtype of ``logits``.

  Raises:
    TypeError: if ``logits`` is not floating.

  Examples:
    >>> import jax.numpy as jnp
    >>> from optax import losses
    >>> losses.sigmoid_binary_cross_entropy(
    ...     jnp.array([0.0, 2.0, -30.0]), jnp.array([1.0, 0.0, 1.0]))
    Array([ 0.6931472,  2.126928 , 30.       ], dtype=float32)

  .. seealso:: :func:`sigmoid_focal_loss`
  """
  logits = jnp.asarray(logits)
  labels = jnp.asarray(labels)
  validation.check_floating_dtype(
      'sigmoid_binary_cross_entropy', 'logits', logits)
  labels = labels.astype(logits.dtype)
  log_p = jax.nn.log_sigmoid(logits)
  log_not_p = jax.nn.log_sigmoid(-logits)
  return -labels * log_p - (1.0 - labels) * log_not_p


def _safe_log(x: jax.Array) -> jax.Array:
  """``log(x)``, ``-inf`` where ``x <= 0``, with zero gradient there."""
  positive = x > 0
  return jnp.where(positive, jnp.log(jnp.where(positive, x, 1.0)), -jnp.inf)


def sigmoid_focal_loss(
    logits: jax.typing.ArrayLike,
    labels: jax.typing.ArrayLike,
    *,
    alpha: Optional[float] = None,
    gamma: float = 2.0,
) -> jax.Array:
  r"""Elementwise focal loss: binary cross-entropy down-weighting easy cases.

  With :math:`p = \sigma(z)` and :math:`p_t = p y + (1 - p)(1 - y)` the
  probability given to the label,

  .. math::
    \ell(z, y) = \alpha_t (1 - p_t)^\gamma \, \mathrm{BCE}(z, y),
    \qquad \alpha_t = \alpha y + (1 - \alpha)(1 - y)

  and :math:`\alpha_t = 1` when ``alpha`` is ``None``. The factor
  :math:`(1 - p_t)^\gamma` is evaluated in log space from
  :math:`1 - p_t = y\,\sigma(-z) + (1 - y)\,\sigma(z)`, so it keeps full
  relative precision for confident predictions and has a finite gradient
  for any :math:`\gamma \ge 0`.

  Args:
    logits: floating logits, any shape.
    labels: labels (0/1 or probabilities) broadcastable against ``logits``;
      they are cast to the dtype of ``logits``.
    alpha: optional weight of the positive class, in :math:`[0, 1]`.
    gamma: focusing exponent, non-negative; ``0`` gives the (weighted)
      binary cross-entropy.

  Returns:
    The focal loss, with the broadcast shape.

  Raises:
    TypeError: if ``logits`` is not floating.

  Examples:
    >>> import jax.numpy as jnp
    >>> from optax import losses
    >>> losses.sigmoid_focal_loss(jnp.array([0.0, 2.0]), jnp.array([1.0, 1.0]))
    Array([0.1732868 , 0.00180356], dtype=float32)

  References:
    Lin et al., `Focal Loss for Dense Object Detection
    <https://arxiv.org/abs/1708.02002>`_, 2017.

  .. seealso:: :func:`sigmoid_binary_cross_entropy`
  """
  logits = jnp.asarray(logits)
  labels = jnp.asarray(labels)
  validation.check_floating_dtype('sigmoid_focal_loss', 'logits', logits)
  labels = labels.astype(logits.dtype)
  ce = sigmoid_binary_cross_entropy(logits, labels)
  # log(1 - p_t) = log(y sigmoid(-z) + (1 - y) sigmoid(z)), in log space so
  # that confident predictions keep full relative precision and the power
  # has a finite gradient for any gamma.
  log_one_minus_p_t = jnp.logaddexp(
      _safe_log(labels) + jax.nn.log_sigmoid(-logits),
      _safe_log(1.0 - labels) + jax.nn.log_sigmoid(logits))
  modulator = jnp.exp(gamma * log_one_minus_p_t)
  loss = modulator * ce
  if alpha is not None:
    loss = (alpha * labels + (1.0 - alpha) * (1.0 - labels)) * loss
  return loss


def poly_loss_cross_entropy(
    logits: jax.typing.ArrayLike,
    labels: jax.typing.ArrayLike,
    *,
    epsilon: float = 2.0,
    axis: Axis = -1,
    where: Optional[jax.typing.ArrayLike] = None,
) -> jax.Array:
  r"""Poly-1 loss: softmax cross-entropy plus a linear polynomial term.

  With :math:`p = \operatorname{softmax}(z)`,

  .. math::
    \ell(z, y) = -\sum_i y_i \log p_i + \epsilon \sum_i y_i (1 - p_i)

  For one-hot labels the second term is :math:`\epsilon (1 - p_t)`, the
  first term of the Taylor expansion of the cross-entropy in
  :math:`1 - p_t`.

  Args:
    logits: unnormalized log-probabilities, classes along ``axis``.
    labels: label probabilities broadcastable against ``logits``.
    epsilon: coefficient of the polynomial term; ``0`` gives the
      cross-entropy. The paper recommends values in :math:`[-1, \infty)`.
    axis: the class axis or axes.
    where: optional boolean mask broadcastable against ``logits``; only the
      classes where it is ``True`` take part.

  Returns:
    The loss, with ``axis`` reduced away.

  Raises:
    TypeError: if ``logits`` or ``labels`` is not floating.

  Examples:
    >>> import jax.numpy as jnp
    >>> from optax import losses
    >>> losses.poly_loss_cross_entropy(
    ...     jnp.array([[0.0, 0.0]]), jnp.array([[1.0, 0.0]]), epsilon=2.0)
    Array([1.6931472], dtype=float32)

  References:
    Leng et al., `PolyLoss: A Polynomial Expansion Perspective of
    Classification Loss Functions <https://arxiv.org/abs/2204.12511>`_, 2022.

  .. seealso:: :func:`softmax_cross_entropy`
  """
  logits = jnp.asarray(logits)
  labels = jnp.asarray(labels)
  validation.check_floating_dtype('poly_loss_cross_entropy', 'logits', logits)
  validation.check_floating_dtype('poly_loss_cross_entropy', 'labels', labels)
  if where is not None:
    where = jnp.asarray(where)
    masked_logits = jnp.where(where, logits, -jnp.inf)
  else:
    masked_logits = logits
  terms = _labelled_complement(masked_logits, labels, axis)
  one_minus_p_t = jnp.sum(terms, axis=axis, where=where)
  cross_entropy = softmax_cross_entropy(logits, labels, axis, where)
  return cross_entropy + epsilon * one_minus_p_t


def hinge_loss(
    predictor_outputs: jax.typing.ArrayLike,
    targets: jax.typing.ArrayLike,
) -> jax.Array:
  r"""Elementwise binary hinge loss.

  .. math::
    \ell(s, t) = \max(0, 1 - s t)

  Args:
    predictor_outputs: scores of the binary classifier.
    targets: targets in :math:`\{-1, 1\}`, broadcastable against the scores.

  Returns:
    The hinge loss, with the broadcast shape.

  Examples:
    >>> import jax.numpy as jnp
    >>> from optax import losses
    >>> losses.hinge_loss(jnp.array([2.0, 0.5, -1.0]), jnp.ones(3))
    Array([0. , 0.5, 2. ], dtype=float32)

  .. seealso:: :func:`multiclass_hinge_loss`, :func:`perceptron_loss`
  """
  predictor_outputs = jnp.asarray(predictor_outputs)
  targets = jnp.asarray(targets)
  return jnp.maximum(0, 1 - predictor_outputs * targets)


def _one_hot(labels: jax.Array, num_classes: int) -> jax.Array:
  """One-hot vectors in the default float dtype; no class for bad labels.

  Unlike ``jax.nn.one_hot`` it accepts (and does not warn about) non-integer
  labels: a label that is not one of ``0, ..., num_classes - 1`` (including a
  negative or fractional one) gives a row of zeros.

  Args:
    labels: class labels.
    num_classes: the number of classes.

  Returns:
    An array of shape ``labels.shape + (num_classes,)``.
  """
  classes = jnp.arange(num_classes)
  return (jnp.asarray(labels)[..., None] == classes).astype(
      jax.dtypes.canonicalize_dtype(jnp.float64))


def multiclass_hinge_loss(
    scores: jax.typing.ArrayLike,
    labels: jax.typing.ArrayLike,
) -> jax.Array:
  r"""Multiclass hinge loss (Crammer-Singer).

  .. math::
    \ell(s, k) = \max_i \left(s_i + [i \ne k]\right) - s_k

  Args:
    scores: scores of each class, classes along the last axis.
    labels: integer labels, shaped like ``scores`` without its last axis. A
      label outside the classes matches no class.

  Returns:
    The loss, shaped like ``labels``.

  Examples:
    >>> import jax.numpy as jnp
    >>> from optax import losses
    >>> losses.multiclass_hinge_loss(jnp.array([[1.0, 2.0, 0.5]]),
    ...                              jnp.array([0]))
    Array([2.], dtype=float32)

  References:
    Crammer and Singer, `On the Algorithmic Implementation of Multiclass
    Kernel-based Vector Machines
    <https://www.jmlr.org/papers/v2/crammer01a.html>`_, 2001.

  .. seealso:: :func:`hinge_loss`
  """
  scores = jnp.asarray(scores)
  one_hot = _one_hot(labels, scores.shape[-1])
  return (jnp.max(scores + 1.0 - one_hot, axis=-1)
          - jnp.sum(scores * one_hot, axis=-1))


def perceptron_loss(
    predictor_outputs: jax.typing.ArrayLike,
    targets: jax.typing.ArrayLike,
) -> jax.Array:
  r"""Elementwise binary perceptron loss.

  .. math::
    \ell(s, t) = \max(0, -s t)

  Args:
    predictor_outputs: scores of the binary classifier.
    targets: targets in :math:`\{-1, 1\}`, with exactly the shape of the
      scores.

  Returns:
    The perceptron loss, shaped like the inputs.

  Raises:
    ValueError: if the two inputs have different shapes.

  Examples:
    A score of the target's sign costs nothing, whatever its size; a wrong
    sign costs the score's magnitude:

    >>> import jax.numpy as jnp
    >>> from optax import losses
    >>> scores = jnp.array([2.0, -1.0, 0.5])
    >>> losses.perceptron_loss(scores, jnp.array([1.0, 1.0, -1.0]))
    Array([0. , 1. , 0.5], dtype=float32)

  .. seealso:: :func:`multiclass_perceptron_loss`, :func:`hinge_loss`
  """
  predictor_outputs = jnp.asarray(predictor_outputs)
  targets = jnp.asarray(targets)
  validation.check_same_shape(
      'perceptron_loss', 'predictor_outputs', predictor_outputs,
      'targets', targets)
  return jnp.maximum(0, -predictor_outputs * targets)


def _check_label_batch(
    fn_name: str, scores: jax.Array, labels: jax.Array
) -> None:
  """Checks that ``labels`` broadcasts against ``scores.shape[:-1]``."""
  if scores.ndim < 1:
    raise ValueError(
        f'{fn_name}: scores must have at least one axis (the classes), got a'
        ' scalar.')
  try:
    np.broadcast_shapes(scores.shape[:-1], labels.shape)
  except ValueError:
    raise ValueError(
        f'{fn_name}: labels of shape {labels.shape} do not match scores of'
        f' shape {scores.shape}: labels must have the shape of scores without'
        ' its last (class) axis.') from None


def multiclass_perceptron_loss(
    scores: jax.typing.ArrayLike,
    labels: jax.typing.ArrayLike,
) -> jax.Array:
  r"""Multiclass perceptron loss.

  .. math::
    \ell(s, k) = \max_i s_i - s_k

  Args:
    scores: scores of each class, classes along the last axis.
    labels: integer labels, shaped like ``scores`` without its last axis. A
      label outside the classes matches no class.

  Returns:
    The loss, shaped like ``labels``.

  Raises:
    ValueError: if ``labels`` does not match ``scores.shape[:-1]``.

  Examples:
    >>> import jax.numpy as jnp
    >>> from optax import losses
    >>> losses.multiclass_perceptron_loss(jnp.array([[1.0, 2.0, 0.5]]),
    ...                                   jnp.array([0]))
    Array([1.], dtype=float32)

  .. seealso:: :func:`perceptron_loss`
  """
  scores = jnp.asarray(scores)
  labels = jnp.asarray(labels)
  _check_label_batch('multiclass_perceptron_loss', scores, labels)
  one_hot = _one_hot(labels, scores.shape[-1])
  return jnp.max(scores, axis=-1) - jnp.sum(scores * one_hot, axis=-1)


def sparsemax_loss(
    logits: jax.typing.ArrayLike,
    labels: jax.typing.ArrayLike,
) -> jax.Array:
  r"""Elementwise binary sparsemax loss.

  The Fenchel-Young loss of the binary sparsemax, a piecewise quadratic
  version of the logistic loss that is exactly zero for confident correct
  predictions. With :math:`u = -z` if the label is set and :math:`u = z`
  otherwise,

  .. math::
    \ell(z, y) = \begin{cases}
      0 & u \le -1 \\
      (u + 1)^2 / 4 & -1 < u < 1 \\
      u & u \ge 1
    \end{cases}

  Args:
    logits: scores of the binary classifier.
    labels: binary labels broadcastable against ``logits``; any nonzero
      value counts as the positive class.

  Returns:
    The loss, with the broadcast shape.

  Examples:
    >>> import jax.numpy as jnp
    >>> from optax import losses
    >>> losses.sparsemax_loss(jnp.array([-2.0, 0.0, 2.0]), jnp.array([1, 1, 1]))
    Array([2.  , 0.25, 0.  ], dtype=float32)

  References:
    Martins and Astudillo, `From Softmax to Sparsemax: A Sparse Model of
    Attention and Multi-Label Classification
    <https://arxiv.org/abs/1602.02068>`_, 2016.

  .. seealso:: :func:`multiclass_sparsemax_loss`
  """
  logits = jnp.asarray(logits)
  labels = jnp.asarray(labels)
  return jax.nn.sparse_plus(jnp.where(labels, -logits, logits))


def _sparsemax(scores: jax.Array) -> jax.Array:
  """Euclidean projection of ``scores`` onto the simplex, on the last axis."""
  num_classes = scores.shape[-1]
  sorted_desc = -jnp.sort(-scores, axis=-1)
  cumulative = jnp.cumsum(sorted_desc, axis=-1)
  ranks = jnp.arange(1, num_classes + 1, dtype=scores.dtype)
  # Class k (by decreasing score) is in the support iff
  # 1 + k * s_(k) > sum_{j <= k} s_(j); the support is a prefix.
  in_support = 1.0 + ranks * sorted_desc > cumulative
  support_size = jnp.sum(in_support, axis=-1, keepdims=True)
  support_sum = jnp.take_along_axis(cumulative, support_size - 1, axis=-1)
  threshold = (support_sum - 1.0) / support_size.astype(scores.dtype)
  return jnp.maximum(scores - threshold, 0.0)


def multiclass_sparsemax_loss(
    scores: jax.typing.ArrayLike,
    labels: jax.typing.ArrayLike,
) -> jax.Array:
  r"""Multiclass sparsemax loss.

  The Fenchel-Young loss generated by :math:`\frac12 \|p\|^2` on the
  simplex. With :math:`p = \operatorname{sparsemax}(s)`, the Euclidean
  projection of the scores onto the simplex,

  .. math::
    \ell(s, k) = \langle s - s_k, p \rangle - \tfrac12 \|p\|^2 + \tfrac12

  It is zero once the right class leads every other by at least one, and its
  gradient is :math:`p - e_k`.

  Args:
    scores: scores of each class, classes along the last axis.
    labels: integer labels, shaped like ``scores`` without its last axis
      (negative labels count from the end, as in indexing).

  Returns:
    The loss, shaped like ``labels``.

  Raises:
    TypeError: if ``labels`` is not integer.
    ValueError: if ``labels`` does not match ``scores.shape[:-1]``.

  Examples:
    >>> import jax.numpy as jnp
    >>> from optax import losses
    >>> losses.multiclass_sparsemax_loss(
    ...     jnp.array([[1.0, 2.0, 0.5], [1.0, 1.0, 1.0]]), jnp.array([0, 2]))
    Array([1.       , 0.3333333], dtype=float32)

  References:
    Martins and Astudillo, `From Softmax to Sparsemax: A Sparse Model of
    Attention and Multi-Label Classification
    <https://arxiv.org/abs/1602.02068>`_, 2016.

  .. seealso:: :func:`sparsemax_loss`,
    :func:`optax.losses.make_fenchel_young_loss`
  """
  fn = 'multiclass_sparsemax_loss'
  scores = jnp.asarray(scores)
  labels = jnp.asarray(labels)
  _check_integer(fn, 'labels', labels)
  _check_label_batch(fn, scores, labels)
  # Computed in at least float32 (as the one-hot based multiclass losses).
  scores = scores.astype(jnp.promote_types(
      scores.dtype, jax.dtypes.canonicalize_dtype(jnp.float64)))
  num_classes = scores.shape[-1]
  labels = jnp.where(labels < 0, labels + num_classes, labels)
  batch_shape = np.broadcast_shapes(scores.shape[:-1], labels.shape)
  scores = jnp.broadcast_to(scores, batch_shape + (num_classes,))
  labels = jnp.broadcast_to(labels, batch_shape)
  label_scores = jnp.take_along_axis(
      scores, labels[..., None], axis=-1, mode='clip')
  shifted = scores - label_scores
  # The projection is shift invariant; by Danskin's theorem it can be held
  # constant when differentiating, which gives the gradient p - e_k.
  proba = jax.lax.stop_gradient(_sparsemax(shifted))
  return (jnp.sum(shifted * proba, axis=-1)
          - 0.5 * jnp.sum(jnp.square(proba), axis=-1) + 0.5)


def kl_divergence(
    log_predictions: jax.typing.ArrayLike,
    targets: jax.typing.ArrayLike,
    axis: Axis = -1,
    where: Optional[jax.typing.ArrayLike] = None,
) -> jax.Array:
  r"""Kullback-Leibler divergence of predictions from targets.

  .. math::
    D_{KL}(t \,\|\, q) = \sum_i t_i (\log t_i - \log q_i)

  Entries with zero target contribute zero (with zero gradient), even where
  the log-prediction is ``-inf``.

  Args:
    log_predictions: log-probabilities of the predicted distribution.
    targets: probabilities of the target distribution, broadcastable against
      ``log_predictions``.
    axis: the axis or axes holding the distribution.
    where: optional boolean mask of the entries taking part.

  Returns:
    The divergence, with ``axis`` reduced away.

  Raises:
    TypeError: if either input is not floating.

  Examples:
    >>> import jax.numpy as jnp
    >>> from optax import losses
    >>> losses.kl_divergence(jnp.log(jnp.array([0.5, 0.5, 0.0])),
    ...                      jnp.array([1.0, 0.0, 0.0]))
    Array(0.6931472, dtype=float32)

  References:
    Kullback and Leibler, `On Information and Sufficiency
    <https://doi.org/10.1214/aoms/1177729694>`_, 1951.

  .. seealso:: :func:`kl_divergence_with_log_targets`,
    :func:`convex_kl_divergence`
  """
  log_predictions, targets = _kl_inputs(
      'kl_divergence', log_predictions, 'targets', targets)
  if where is not None:
    where = jnp.asarray(where)
  return jnp.sum(
      _kl_terms(log_predictions, targets, where), axis=axis, where=where)


def _check_broadcastable(
    fn_name: str, name_a: str, a: jax.Array, name_b: str, b: jax.Array
) -> None:
  """Raises a ValueError unless the shapes of ``a`` and ``b`` broadcast."""
  try:
    np.broadcast_shapes(a.shape, b.shape)
  except ValueError:
    raise ValueError(
        f'{fn_name}: Shape mismatch: {name_a} of shape {a.shape} and'
        f' {name_b} of shape {b.shape} do not broadcast together.') from None


def _kl_inputs(
    fn_name: str,
    log_predictions: jax.typing.ArrayLike,
    targets_name: str,
    targets: jax.typing.ArrayLike,
) -> tuple[jax.Array, jax.Array]:
  """The two inputs of a divergence, checked: floating and broadcastable.

  Args:
    fn_name: the public function, named by the errors.
    log_predictions: the log-predictions.
    targets_name: the name of the second argument.
    targets: the targets (or log-targets).

  Returns:
    Both inputs as arrays.

  Raises:
    TypeError: if either input is not floating.
    ValueError: if their shapes do not broadcast together.
  """
  log_predictions = jnp.asarray(log_predictions)
  targets = jnp.asarray(targets)
  validation.check_floating_dtype(fn_name, 'log_predictions', log_predictions)
  validation.check_floating_dtype(fn_name, targets_name, targets)
  _check_broadcastable(fn_name, 'log_predictions', log_predictions,
                       targets_name, targets)
  return log_predictions, targets


def _kl_terms(
    log_predictions: jax.Array,
    targets: jax.Array,
    where: Optional[jax.Array],
) -> jax.Array:
  """``t * (log t - log q)`` with zero for zero (or masked) targets."""
  ignore = targets == 0
  if where is not None:
    ignore = ignore | ~where
  safe_targets = jnp.where(ignore, 1.0, targets)
  safe_log_predictions = jnp.where(ignore, 0.0, log_predictions)
  return jnp.where(
      ignore, 0.0,
      safe_targets * (jnp.log(safe_targets) - safe_log_predictions))


def kl_divergence_with_log_targets(
    log_predictions: jax.typing.ArrayLike,
    log_targets: jax.typing.ArrayLike,
    axis: Axis = -1,
    where: Optional[jax.typing.ArrayLike] = None,
) -> jax.Array:
  r"""Kullback-Leibler divergence, with the targets given as log-probabilities.

  .. math::
    D_{KL}(t \,\|\, q) = \sum_i e^{\log t_i} (\log t_i - \log q_i)

  Entries whose log-target is ``-inf`` (zero probability) contribute zero,
  with zero gradient.

  Args:
    log_predictions: log-probabilities of the predicted distribution.
    log_targets: log-probabilities of the target distribution,
      broadcastable against ``log_predictions``.
    axis: the axis or axes holding the distribution.
    where: optional boolean mask of the entries taking part.

  Returns:
    The divergence, with ``axis`` reduced away.

  Raises:
    TypeError: if either input is not floating.

  Examples:
    >>> import jax.numpy as jnp
    >>> from optax import losses
    >>> losses.kl_divergence_with_log_targets(
    ...     jnp.log(jnp.array([0.5, 0.5])), jnp.log(jnp.array([1.0, 0.0])))
    Array(0.6931472, dtype=float32)

  .. seealso:: :func:`kl_divergence`
  """
  log_predictions, log_targets = _kl_inputs(
      'kl_divergence_with_log_targets', log_predictions,
      'log_targets', log_targets)
  ignore = jnp.isneginf(log_targets)
  if where is not None:
    where = jnp.asarray(where)
    ignore = ignore | ~where
  safe_log_targets = jnp.where(ignore, 0.0, log_targets)
  safe_log_predictions = jnp.where(ignore, 0.0, log_predictions)
  terms = jnp.where(
      ignore, 0.0,
      jnp.exp(safe_log_targets) * (safe_log_targets - safe_log_predictions))
  return jnp.sum(terms, axis=axis, where=where)


def generalized_kl_divergence(
    log_predictions: jax.typing.ArrayLike,
    targets: jax.typing.ArrayLike,
    axis: Axis = -1,
    where: Optional[jax.typing.ArrayLike] = None,
) -> jax.Array:
  r"""Generalized Kullback-Leibler divergence, for unnormalized measures.

  .. math::
    D(t \,\|\, q) = \sum_i t_i (\log t_i - \log q_i) - t_i + q_i

  It is the Bregman divergence of :math:`\sum_i x_i \log x_i - x_i`: it is
  non-negative for any non-negative vectors, zero iff they are equal, and
  convex in :math:`q`. Entries with zero target contribute :math:`q_i`.

  Args:
    log_predictions: logarithms of the predicted (possibly unnormalized)
      measure.
    targets: the target measure, broadcastable against ``log_predictions``.
    axis: the axis or axes holding the measure.
    where: optional boolean mask of the entries taking part.

  Returns:
    The divergence, with ``axis`` reduced away.

  Raises:
    TypeError: if either input is not floating.

  Examples:
    >>> import jax.numpy as jnp
    >>> from optax import losses
    >>> losses.generalized_kl_divergence(jnp.log(jnp.array([2.0, 1.0])),
    ...                                  jnp.array([1.0, 1.0]))
    Array(0.30685282, dtype=float32)

  .. seealso:: :func:`convex_kl_divergence`, :func:`kl_divergence`
  """
  log_predictions, targets = _kl_inputs(
      'generalized_kl_divergence', log_predictions, 'targets', targets)
  if where is not None:
    where = jnp.asarray(where)
  kl = jnp.sum(
      _kl_terms(log_predictions, targets, where), axis=axis, where=where)
  mass = jnp.sum(
      jnp.exp(log_predictions) - targets, axis=axis, where=where)
  return kl + mass


def convex_kl_divergence(
    log_predictions: jax.typing.ArrayLike,
    targets: jax.typing.ArrayLike,
    axis: Axis = -1,
    where: Optional[jax.typing.ArrayLike] = None,
) -> jax.Array:
  r"""Kullback-Leibler divergence extended to be convex in unnormalized inputs.

  .. math::
    D(t \,\|\, q) = \sum_i t_i (\log t_i - \log q_i) + \sum_i (q_i - t_i)

  The extra term is zero for normalized distributions; with it the
  divergence is jointly convex on the non-negative orthant. This equals
  :func:`generalized_kl_divergence`.

  .. deprecated::
    Use :func:`generalized_kl_divergence`; each call emits a
    ``DeprecationWarning``.

  Args:
    log_predictions: :math:`\log q`, entrywise; :math:`q` need not sum to 1.
    targets: :math:`t`, non-negative, broadcastable against
      ``log_predictions``.
    axis: the axes summed over.
    where: optional boolean mask; the entries where it is ``False`` are
      left out of both sums.

  Returns:
    :math:`D(t \,\|\, q)`, one value per position of the axes not summed.

  Raises:
    TypeError: if ``log_predictions`` or ``targets`` is not floating.

  Examples:
    On two distributions the extra term vanishes and this is the
    Kullback-Leibler divergence:

    >>> import jax.numpy as jnp
    >>> from optax import losses
    >>> q = jnp.array([0.25, 0.75])
    >>> losses.convex_kl_divergence(jnp.log(q), jnp.array([0.5, 0.5]))
    Array(0.14384104, dtype=float32)

  .. seealso:: :func:`kl_divergence`, :func:`generalized_kl_divergence`
  """
  log_predictions, targets = _kl_inputs(
      'convex_kl_divergence', log_predictions, 'targets', targets)
  return generalized_kl_divergence(log_predictions, targets, axis, where)


convex_kl_divergence = deprecations.warn_deprecated_function(
    convex_kl_divergence, replacement='generalized_kl_divergence')


def _check_ctc_inputs(
    logits: jax.Array,
    logit_paddings: jax.Array,
    labels: jax.Array,
    label_paddings: jax.Array,
    blank_id: int,
) -> None:
  """Validates the ranks and shapes of the CTC inputs."""
  fn = 'ctc_loss'
  for name, x, rank in (('logits', logits, 3),
                        ('logit_paddings', logit_paddings, 2),
                        ('labels', labels, 2),
                        ('label_paddings', label_paddings, 2)):
    if x.ndim != rank:
      raise ValueError(
          f'{fn}: {name} must have rank {rank}, got shape {x.shape}.')
  if logit_paddings.shape != logits.shape[:2]:
    raise ValueError(
        f'{fn}: Shape mismatch: logit_paddings has shape'
        f' {logit_paddings.shape} but logits has shape {logits.shape}; it'
        ' must be [batch, time] = logits.shape[:2].')
  if labels.shape[0] != logits.shape[0]:
    raise ValueError(
        f'{fn}: Expected `labels` to have batch size {logits.shape[0]}, got'
        f' {labels.shape[0]}.')
  if label_paddings.shape != labels.shape:
    raise ValueError(
        f'{fn}: Shape mismatch: label_paddings has shape'
        f' {label_paddings.shape} but labels has shape {labels.shape}.')
  if isinstance(blank_id, (int, np.integer)) and not (
      -logits.shape[2] <= blank_id < logits.shape[2]):
    raise ValueError(
        f'{fn}: blank_id must index one of the {logits.shape[2]} classes, got'
        f' {blank_id}.')


def ctc_loss_with_forward_probs(
    logits: jax.typing.ArrayLike,
    logit_paddings: jax.typing.ArrayLike,
    labels: jax.typing.ArrayLike,
    label_paddings: jax.typing.ArrayLike,
    *,
    blank_id: int = 0,
    log_epsilon: float = -1e5,
) -> tuple[jax.Array, jax.Array, jax.Array]:
  r"""CTC loss, with the forward log-probabilities of the alignment lattice.

  Connectionist temporal classification scores every alignment of the label
  sequence to the frames, where each frame emits either a label or the blank
  symbol, and a repeated label must be separated by a blank. The loss is the
  negative log of the total probability of the alignments,
  :math:`-\log p(\text{labels} \mid \text{logits})`, computed by the forward
  algorithm in log space.

  The lattice has, for a label sequence of length :math:`N`, :math:`N + 1`
  blank states (the blank before label :math:`n`, and one after the last
  label) and :math:`N` label states. At each unpadded frame

  .. math::
    \alpha^{emit}_{t}(n) &= \log\left(e^{\alpha^{emit}_{t-1}(n)} +
      e^{\alpha^{\phi}_{t-1}(n)} + [y_n \ne y_{n-1}]\,
      e^{\alpha^{emit}_{t-1}(n-1)}\right) + \log p_t(y_n) \\
    \alpha^{\phi}_{t}(n) &= \log\left(e^{\alpha^{\phi}_{t-1}(n)} +
      e^{\alpha^{emit}_{t-1}(n-1)}\right) + \log p_t(\text{blank})

  starting from :math:`\alpha^\phi_0(0) = 0`. "Impossible" is represented by
  the finite ``log_epsilon`` rather than :math:`-\infty`, which keeps every
  gradient finite. A padded frame leaves the state unchanged. An infeasible
  pair (too few frames for the labels) gives a loss of about
  ``-log_epsilon``.

  Args:
    logits: ``[batch, time, num_classes]`` unnormalized log-probabilities.
    logit_paddings: ``[batch, time]``; 1 marks a padded frame, 0 a real one.
    labels: ``[batch, max_label_length]`` integer labels.
    label_paddings: ``[batch, max_label_length]``; 1 marks padding. Padding
      must come after the real labels.
    blank_id: the class used as the blank symbol.
    log_epsilon: the log-probability standing for an impossible event.

  Returns:
    A tuple ``(loss, logalpha_phi, logalpha_emit)``: the per-sequence loss of
    shape ``[batch]``, and the forward log-probabilities of the blank states,
    ``[time, batch, max_label_length + 1]``, and of the label states,
    ``[time, batch, max_label_length]``. At the last frame ``logalpha_phi``
    also includes the paths ending on a label (the end states), so the loss
    is ``-logalpha_phi[-1, b, label_length[b]]``, or 0 where rounding leaves
    that log-probability above 0 (a near-certain alignment): the loss is
    never negative. All are at least float32.

  Raises:
    ValueError: if the ranks or shapes of the inputs do not match.

  Examples:
    >>> import jax.numpy as jnp
    >>> from optax import losses
    >>> logits = jnp.zeros((1, 3, 2))  # uniform over {blank, a}
    >>> loss, phi, emit = losses.ctc_loss_with_forward_probs(
    ...     logits, jnp.zeros((1, 3)), jnp.array([[1]]), jnp.zeros((1, 1)))
    >>> loss  # 6 alignments of "a" in 3 frames, each of probability 1/8
    Array([0.28768206], dtype=float32)
    >>> phi.shape, emit.shape
    ((3, 1, 2), (3, 1, 1))

  References:
    Graves et al., `Connectionist Temporal Classification: Labelling
    Unsegmented Sequence Data with Recurrent Neural Networks
    <https://www.cs.toronto.edu/~graves/icml_2006.pdf>`_, 2006.

  .. seealso:: :func:`ctc_loss`
  """
  logits = jnp.asarray(logits)
  logit_paddings = jnp.asarray(logit_paddings)
  labels = jnp.asarray(labels)
  label_paddings = jnp.asarray(label_paddings)
  _check_ctc_inputs(logits, logit_paddings, labels, label_paddings, blank_id)

  batch_size, _, num_classes = logits.shape
  max_label_length = labels.shape[1]
  dtype = jnp.promote_types(
      logits.dtype, jax.dtypes.canonicalize_dtype(jnp.float64))
  if not jnp.issubdtype(labels.dtype, jnp.integer):
    labels = labels.astype(jnp.int32)

  log_probs = jax.nn.log_softmax(logits.astype(dtype), axis=-1)
  # A class masked out with a -inf logit is "impossible": represent it by
  # log_epsilon like every other impossible event, so gradients stay finite.
  log_probs = jnp.where(jnp.isneginf(log_probs), log_epsilon, log_probs)
  # [time, batch] log-probability of the blank at each frame.
  blank_log_probs = jnp.moveaxis(log_probs[:, :, blank_id], 1, 0)
  # [time, batch, label] log-probability of each label at each frame; a label
  # outside the classes is given log-probability 0.
  in_range = (labels >= 0) & (labels < num_classes)
  safe_labels = jnp.where(in_range, labels, 0)
  label_log_probs = jnp.take_along_axis(
      log_probs, safe_labels[:, None, :], axis=2)
  label_log_probs = jnp.where(in_range[:, None, :], label_log_probs, 0.0)
  label_log_probs = jnp.moveaxis(label_log_probs, 1, 0)
  frame_is_padding = jnp.moveaxis(logit_paddings > 0.5, 1, 0)

  label_lengths = max_label_length - jnp.sum(
      label_paddings, axis=1).astype(jnp.int32)
  # repeats[b, n]: label n + 1 equals label n, so the direct move from label
  # state n to label state n + 1 (skipping the blank) is forbidden.
  repeats = jnp.concatenate(
      [labels[:, :-1] == labels[:, 1:],
       jnp.zeros((batch_size, 1), dtype=bool)], axis=1).astype(dtype)
  skip_penalty = log_epsilon * repeats
  no_skip_penalty = log_epsilon * (1.0 - repeats)

  def add_label_to_next_blank(phi, emit_scores):
    # Blank state n + 1 is entered from label state n.
    return phi.at[:, 1:].set(jnp.logaddexp(phi[:, 1:], emit_scores))

  def step(carry, frame):
    phi, emit = carry
    label_lp, blank_lp, is_padding = frame
    # Fold the label-to-label skip into the blank states: blank state n now
    # also holds label state n - 1 (penalized when the labels repeat), so a
    # single move from blank state n reaches label state n.
    phi_with_skip = add_label_to_next_blank(phi, emit + skip_penalty)
    next_emit = jnp.logaddexp(phi_with_skip[:, :-1] + label_lp[:, :],
                              emit + label_lp)
    next_phi = phi_with_skip + blank_lp[:, None]
    # Label state n -> blank state n + 1 where the skip above was penalized.
    next_phi = add_label_to_next_blank(
        next_phi, emit + blank_lp[:, None] + no_skip_penalty)
    next_phi = jnp.where(is_padding[:, None], phi, next_phi)
    next_emit = jnp.where(is_padding[:, None], emit, next_emit)
    return (next_phi, next_emit), (next_phi, next_emit)

  init_phi = jnp.full((batch_size, max_label_length + 1), log_epsilon, dtype)
  init_phi = init_phi.at[:, 0].set(0.0)
  init_emit = jnp.full((batch_size, max_label_length), log_epsilon, dtype)
  _, (logalpha_phi, logalpha_emit) = jax.lax.scan(
      step, (init_phi, init_emit),
      (label_log_probs, blank_log_probs, frame_is_padding))

  # The sequence may end on its last label or on the blank after it.
  final_phi = add_label_to_next_blank(logalpha_phi[-1], logalpha_emit[-1])
  logalpha_phi = logalpha_phi.at[-1].set(final_phi)
  per_seq_loss = -jnp.take_along_axis(
      final_phi, label_lengths[:, None], axis=1, mode='clip')[:, 0]
  # -log of a probability is at least 0, but for a near-certain alignment the
  # rounding of the recursion can leave the log-probability slightly above 0
  # (the loss about -8e-8 in float32). Such a loss, and -0, is 0; NaN stays.
  per_seq_loss = jnp.where(per_seq_loss <= 0, jnp.zeros_like(per_seq_loss),
                           per_seq_loss)
  return per_seq_loss, logalpha_phi, logalpha_emit


def ctc_loss(
    logits: jax.typing.ArrayLike,
    logit_paddings: jax.typing.ArrayLike,
    labels: jax.typing.ArrayLike,
    label_paddings: jax.typing.ArrayLike,
    *,
    blank_id: int = 0,
    log_epsilon: float = -1e5,
) -> jax.Array:
  r"""Connectionist temporal classification (CTC) loss.

  The negative log-probability of the label sequence, summed over all its
  alignments to the frames; see :func:`ctc_loss_with_forward_probs` for the
  recursion and conventions. The loss is never negative: where float32
  rounding of the recursion would give a value below 0 (a near-certain
  alignment), it is 0.

  Args:
    logits: ``[batch, time, num_classes]`` unnormalized log-probabilities.
    logit_paddings: ``[batch, time]``; 1 marks a padded frame, 0 a real one.
    labels: ``[batch, max_label_length]`` integer labels.
    label_paddings: ``[batch, max_label_length]``; 1 marks padding. Padding
      must come after the real labels.
    blank_id: the class used as the blank symbol.
    log_epsilon: the log-probability standing for an impossible event.

  Returns:
    The loss of each sequence, shape ``[batch]``, at least float32.

  Raises:
    ValueError: if the ranks or shapes of the inputs do not match.

  Examples:
    >>> import jax.numpy as jnp
    >>> from optax import losses
    >>> logits = jnp.zeros((1, 2, 3))
    >>> losses.ctc_loss(logits, jnp.zeros((1, 2)), jnp.array([[1, 2]]),
    ...                 jnp.zeros((1, 2)))  # one alignment, probability 1/9
    Array([2.1972246], dtype=float32)

  References:
    Graves et al., `Connectionist Temporal Classification: Labelling
    Unsegmented Sequence Data with Recurrent Neural Networks
    <https://www.cs.toronto.edu/~graves/icml_2006.pdf>`_, 2006.

  .. seealso:: :func:`ctc_loss_with_forward_probs`
  """
  per_seq_loss, _, _ = ctc_loss_with_forward_probs(
      logits, logit_paddings, labels, label_paddings,
      blank_id=blank_id, log_epsilon=log_epsilon)
  return per_seq_loss
