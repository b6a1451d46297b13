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
"""Segmentation losses: Dice, Tversky and generalized Dice.

Predictions and targets are ``[batch, *spatial, num_classes]`` arrays, the
classes on the last axis; the targets are one-hot (or soft) masks.
"""

from typing import Optional, Union

import jax
import jax.numpy as jnp
import numpy as np

Axis = Union[int, tuple[int, ...]]

# Added to the squared class volumes before inverting them, so that a class
# absent from the targets gets a large but finite weight.
_VOLUME_EPSILON = 1e-7


def _class_probabilities(
    fn_name: str,
    flag_name: str,
    predictions: jax.Array,
    apply_activation: bool,
) -> jax.Array:
  """Turns logits into class probabilities, or checks given probabilities.

  With one class the activation is the sigmoid (the single channel is the
  probability of the foreground), otherwise the softmax over the last axis.

  Args:
    fn_name: name of the calling loss, for error messages.
    flag_name: name of the activation flag, for error messages.
    predictions: logits or probabilities, classes on the last axis.
    apply_activation: whether ``predictions`` are logits.

  Returns:
    The class probabilities.

  Raises:
    ValueError: if ``apply_activation`` is false, there are several classes
      and the (concrete) predictions do not sum to one over them.
  """
  num_classes = predictions.shape[-1]
  if apply_activation:
    if num_classes == 1:
      return jax.nn.sigmoid(predictions)
    return jax.nn.softmax(predictions, axis=-1)
  # Only values this process holds are checked: reading a global array
  # sharded over other processes would fail (multi-controller runtime).
  if (num_classes > 1 and not isinstance(predictions, jax.core.Tracer)
      and getattr(predictions, 'is_fully_addressable', True)):
    sums = np.sum(np.asarray(predictions, dtype=np.float64), axis=-1)
    if sums.size and not np.allclose(
        sums, 1.0, rtol=0.0,
        atol=max(1e-5, 8 * float(jnp.finfo(predictions.dtype).eps))):
      raise ValueError(
          f'{fn_name}: with {flag_name}=False, predictions must be valid'
          ' probability distributions that sum to 1 along the class (last)'
          f' axis; found sums in [{sums.min():.6f}, {sums.max():.6f}]. Pass'
          f' logits with {flag_name}=True instead.')
  return predictions


def _matched_shapes(
    fn_name: str, predictions: jax.Array, targets: jax.Array
) -> tuple[jax.Array, jax.Array]:
  """Checks the shapes, adding the class axis that a single class may omit.

  Either array may leave out a trailing class axis of size 1 that the other
  one has.

  Args:
    fn_name: name of the calling loss, for error messages.
    predictions: the predictions, classes on the last axis.
    targets: the targets.

  Returns:
    ``(predictions, targets)``, of one shape.

  Raises:
    ValueError: if the shapes do not match.
  """
  if (predictions.ndim == targets.ndim - 1 and targets.ndim >= 1
      and targets.shape[-1] == 1):
    predictions = predictions[..., None]
  if (targets.ndim == predictions.ndim - 1 and predictions.ndim >= 1
      and predictions.shape[-1] == 1):
    targets = targets[..., None]
  if targets.shape != predictions.shape:
    hint = ''
    if targets.shape == predictions.shape[:-1]:
      hint = (' The targets look like class indices: one-hot encode them,'
              ' e.g. jax.nn.one_hot(targets, num_classes).')
    raise ValueError(
        f'{fn_name}: Shape mismatch: predictions have shape'
        f' {predictions.shape} but targets have shape {targets.shape}; they'
        f' must be equal.{hint}')
  return predictions, targets


def _tversky_losses(
    probs: jax.Array,
    targets: jax.Array,
    axes: tuple[int, ...],
    smooth: jax.typing.ArrayLike,
    alpha: jax.typing.ArrayLike,
    beta: jax.typing.ArrayLike,
) -> jax.Array:
  """``1 - (TP + s) / (TP + alpha FP + beta FN + s)``, summing over ``axes``."""
  true_pos = jnp.sum(probs * targets, axis=axes)
  # FP = sum p (1 - t) = sum p - TP and FN = sum (1 - p) t = sum t - TP:
  # two plain sums read the inputs once, where the products would be two
  # more passes over every pixel.
  false_pos = jnp.sum(probs, axis=axes) - true_pos
  false_neg = jnp.sum(targets, axis=axes) - true_pos
  index = (true_pos + smooth) / (
      true_pos + alpha * false_pos + beta * false_neg + smooth)
  return 1.0 - index


def _spatial_axes(ndim: int) -> tuple[int, ...]:
  """The axes between the batch axis and the class axis."""
  return tuple(range(1, ndim - 1))


def dice_loss(
    predictions: jax.typing.ArrayLike,
    targets: jax.typing.ArrayLike,
    *,
    class_weights: Optional[jax.typing.ArrayLike] = None,
    smooth: jax.typing.ArrayLike = 1.0,
    alpha: jax.typing.ArrayLike = 0.5,
    beta: jax.typing.ArrayLike = 0.5,
    apply_softmax: bool = True,
    reduction: str = 'mean',
    ignore_background: bool = False,
    axis: Optional[Axis] = None,
) -> jax.Array:
  r"""Dice loss, or its Tversky generalization, per sample and class.

  With :math:`p` the predicted probabilities and :math:`t` the targets of a
  class, summed over the spatial axes,
  :math:`TP = \sum p t`, :math:`FP = \sum p (1 - t)`,
  :math:`FN = \sum (1 - p) t`, and

  .. math::
    \ell = 1 - \frac{TP + s}{TP + \alpha\, FP + \beta\, FN + s}

  With :math:`\alpha = \beta = \tfrac12` (the default) this is the Dice loss
  :math:`1 - (2 TP + 2s) / (\sum p + \sum t + 2s)`; other values give the
  Tversky loss, :math:`\alpha = \beta = 1` the Jaccard (IoU) loss.

  Args:
    predictions: ``[batch, *spatial, num_classes]`` logits (or
      probabilities if ``apply_softmax`` is false).
    targets: one-hot (or soft) masks shaped like ``predictions``. With a
      single class, the class axis may be omitted from either of them.
    class_weights: optional ``[num_classes]`` weights multiplying the
      per-class losses (before ``ignore_background`` drops class 0).
    smooth: additive smoothing of the numerator and denominator; keeps the
      loss defined for empty masks.
    alpha: weight of the false positives.
    beta: weight of the false negatives.
    apply_softmax: whether to turn the predictions into probabilities with a
      softmax over the classes (a sigmoid when there is a single class).
      Otherwise they must already sum to one over the classes; this is
      checked when the predictions are concrete (not under ``jit``).
    reduction: ``'mean'`` or ``'sum'`` over the classes, or ``'none'`` to
      keep the per-class losses.
    ignore_background: drop class 0 from the result (when there are several
      classes).
    axis: the axis or axes to sum over; by default every axis between the
      first (batch) and the last (classes).

  Returns:
    With ``reduction='none'``, the losses shaped like ``predictions`` with
    ``axis`` reduced away (``[batch, num_classes]`` by default); otherwise
    the class axis is reduced as well.

  Raises:
    ValueError: for an unknown ``reduction``, mismatched shapes, class
      weights that do not match the classes, or (concrete) probabilities
      that do not sum to one.

  Examples:
    >>> import jax.numpy as jnp
    >>> from optax import losses
    >>> probs = jnp.array([[[0.8, 0.2], [0.4, 0.6]]])  # 1 image, 2 pixels
    >>> masks = jnp.array([[[1.0, 0.0], [0.0, 1.0]]])
    >>> losses.dice_loss(probs, masks, apply_softmax=False, smooth=0.0,
    ...                  reduction='none')
    Array([[0.27272725, 0.3333333 ]], dtype=float32)

  References:
    Milletari et al., `V-Net: Fully Convolutional Neural Networks for
    Volumetric Medical Image Segmentation
    <https://arxiv.org/abs/1606.04797>`_, 2016;
    Salehi et al., `Tversky loss function for image segmentation using 3D
    fully convolutional deep networks <https://arxiv.org/abs/1706.05721>`_,
    2017.

  .. seealso:: :func:`binary_dice_loss`,
    :func:`multiclass_generalized_dice_loss`
  """
  fn = 'dice_loss'
  if reduction not in ('mean', 'sum', 'none'):
    raise ValueError(
        f"{fn}: Unsupported reduction: {reduction}. Expected 'mean', 'sum'"
        " or 'none'.")
  predictions = jnp.asarray(predictions)
  predictions, targets = _matched_shapes(
      fn, predictions, jnp.asarray(targets))
  probs = _class_probabilities(fn, 'apply_softmax', predictions, apply_softmax)
  num_classes = predictions.shape[-1]

  if axis is None:
    axes = _spatial_axes(predictions.ndim)
  elif isinstance(axis, int):
    axes = (axis,)
  else:
    axes = tuple(axis)
  losses = _tversky_losses(probs, targets, axes, smooth, alpha, beta)

  if class_weights is not None:
    class_weights = jnp.asarray(class_weights)
    try:
      np.broadcast_shapes(class_weights.shape, (num_classes,))
    except ValueError:
      raise ValueError(
          f'{fn}: class_weights of shape {class_weights.shape} do not match'
          f' the {num_classes} classes; give one weight per class (including'
          ' the background, also when ignore_background=True).') from None
    losses = losses * class_weights
  if ignore_background and num_classes > 1:
    losses = losses[..., 1:]

  if reduction == 'mean':
    return jnp.mean(losses, axis=-1)
  if reduction == 'sum':
    return jnp.sum(losses, axis=-1)
  return losses


def binary_dice_loss(
    predictions: jax.typing.ArrayLike,
    targets: jax.typing.ArrayLike,
    *,
    smooth: jax.typing.ArrayLike = 1.0,
    apply_sigmoid: bool = True,
) -> jax.Array:
  r"""Dice loss of a binary (foreground/background) segmentation.

  With :math:`p` the foreground probabilities and :math:`t` the binary mask
  of a sample, summed over all its axes but the first,

  .. math::
    \ell = 1 - \frac{2 \sum p t + 2s}{\sum p + \sum t + 2s}

  Args:
    predictions: ``[batch, ...]`` logits of the foreground (or
      probabilities if ``apply_sigmoid`` is false).
    targets: binary masks shaped like ``predictions``.
    smooth: additive smoothing; keeps the loss defined for empty masks.
    apply_sigmoid: whether to apply a sigmoid to the predictions.

  Returns:
    The loss of each sample, shape ``[batch]``.

  Raises:
    ValueError: if the shapes do not match.

  Examples:
    >>> import jax.numpy as jnp
    >>> from optax import losses
    >>> probs = jnp.array([[0.9, 0.1, 0.8, 0.0]])
    >>> mask = jnp.array([[1.0, 0.0, 1.0, 0.0]])
    >>> losses.binary_dice_loss(probs, mask, smooth=0.0, apply_sigmoid=False)
    Array([0.10526311], dtype=float32)

  References:
    Milletari et al., `V-Net: Fully Convolutional Neural Networks for
    Volumetric Medical Image Segmentation
    <https://arxiv.org/abs/1606.04797>`_, 2016.

  .. seealso:: :func:`dice_loss`
  """
  predictions = jnp.asarray(predictions)
  targets = jnp.asarray(targets)
  if predictions.shape != targets.shape:
    raise ValueError(
        'binary_dice_loss: Shape mismatch: predictions have shape'
        f' {predictions.shape} but targets have shape {targets.shape}; they'
        ' must be equal.')
  return dice_loss(
      predictions[..., None], targets[..., None], smooth=smooth,
      apply_softmax=apply_sigmoid, reduction='mean')


def multiclass_generalized_dice_loss(
    predictions: jax.typing.ArrayLike,
    targets: jax.typing.ArrayLike,
    *,
    smooth: jax.typing.ArrayLike = 1.0,
    apply_softmax: bool = True,
    ignore_background: bool = False,
) -> jax.Array:
  r"""Generalized Dice loss: per-class Dice losses weighted by class rarity.

  Each class :math:`c` gets the weight :math:`w_c \propto 1 / (V_c^2 +
  10^{-7})`, with :math:`V_c = \sum t_c` its target volume over the whole
  batch, normalized so that :math:`\sum_c w_c = 1`; rare classes then count
  as much as frequent ones. With :math:`\ell_{bc}` the Dice loss of sample
  :math:`b` and class :math:`c` (see :func:`dice_loss`), the loss is

  .. math::
    \frac{1}{B} \sum_b \frac{C}{|K|} \sum_{c \in K} w_c\, \ell_{bc}

  where :math:`K` is the set of kept classes: all :math:`C` of them, which
  gives the weighted average :math:`\sum_c w_c \ell_{bc}`, or all but the
  background with ``ignore_background`` (the weights are still normalized
  over all classes).

  Args:
    predictions: ``[batch, *spatial, num_classes]`` logits (or
      probabilities if ``apply_softmax`` is false).
    targets: one-hot (or soft) masks shaped like ``predictions``. With a
      single class, the class axis may be omitted from either of them.
    smooth: additive smoothing of each Dice ratio.
    apply_softmax: whether to apply a softmax over the classes (a sigmoid
      for a single class). Otherwise the predictions must sum to one over
      the classes; this is checked when they are concrete.
    ignore_background: drop class 0 from the average.

  Returns:
    The scalar loss.

  Raises:
    ValueError: if the shapes do not match, or (concrete) probabilities do
      not sum to one.

  Examples:
    >>> import jax.numpy as jnp
    >>> from optax import losses
    >>> probs = jnp.array([[[0.7, 0.3], [0.4, 0.6]]])
    >>> masks = jnp.array([[[1.0, 0.0], [0.0, 1.0]]])
    >>> losses.multiclass_generalized_dice_loss(
    ...     probs, masks, smooth=0.0, apply_softmax=False)
    Array(0.35087717, dtype=float32)

  References:
    Sudre et al., `Generalised Dice overlap as a deep learning loss function
    for highly unbalanced segmentations <https://arxiv.org/abs/1707.03237>`_,
    2017.

  .. seealso:: :func:`dice_loss`
  """
  fn = 'multiclass_generalized_dice_loss'
  predictions = jnp.asarray(predictions)
  predictions, targets = _matched_shapes(
      fn, predictions, jnp.asarray(targets))
  probs = _class_probabilities(fn, 'apply_softmax', predictions, apply_softmax)
  num_classes = predictions.shape[-1]

  volumes = jnp.sum(targets, axis=tuple(range(predictions.ndim - 1)))
  weights = 1.0 / (jnp.square(volumes) + _VOLUME_EPSILON)
  weights = weights / jnp.sum(weights)
  losses = _tversky_losses(
      probs, targets, _spatial_axes(predictions.ndim), smooth, 0.5, 0.5)
  weighted = num_classes * weights * losses
  if ignore_background and num_classes > 1:
    weighted = weighted[..., 1:]
  return jnp.mean(weighted)
