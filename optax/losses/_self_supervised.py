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
"""Self-supervised and metric-learning losses: NT-Xent and triplet margin."""

import jax
import jax.numpy as jnp

from optax._src import validation


def ntxent(
    embeddings: jax.typing.ArrayLike,
    labels: jax.typing.ArrayLike,
    temperature: jax.typing.ArrayLike = 0.07,
) -> jax.Array:
  r"""Normalized temperature-scaled cross-entropy (NT-Xent) loss.

  The contrastive loss of SimCLR, generalized to any number of views per
  label. With :math:`s_{ij}` the cosine similarity of embeddings :math:`i`
  and :math:`j` divided by the temperature :math:`\tau`, every positive pair
  (:math:`i \ne j` with the same label) is scored against the negatives of
  :math:`i` (the embeddings with another label):

  .. math::
    \ell_{ij} = -\log \frac{e^{s_{ij}}}
      {e^{s_{ij}} + \sum_{k:\, y_k \ne y_i} e^{s_{ik}}}

  and the loss is the mean of :math:`\ell_{ij}` over the positive pairs. It
  is NaN if there is no positive pair. Norms are floored at
  :math:`\sqrt{\varepsilon}` (the machine epsilon of the embeddings' dtype),
  so a zero embedding has a finite gradient.

  Args:
    embeddings: ``[batch, dim]`` floating embeddings.
    labels: ``[batch]`` labels; embeddings with equal labels are positives.
    temperature: the temperature :math:`\tau > 0`.

  Returns:
    The scalar loss.

  Raises:
    TypeError: if ``embeddings`` is not floating.
    ValueError: if ``labels`` and ``embeddings`` have different leading
      dimensions.

  Examples:
    >>> import jax.numpy as jnp
    >>> from optax import losses
    >>> embeddings = jnp.array([[1.0, 0.0], [1.0, 0.1], [0.0, 1.0]])
    >>> losses.ntxent(embeddings, jnp.array([0, 0, 1]), temperature=1.0)
    Array(0.32852292, dtype=float32)

  References:
    Chen et al., `A Simple Framework for Contrastive Learning of Visual
    Representations <https://arxiv.org/abs/2002.05709>`_, 2020.
  """
  embeddings = jnp.asarray(embeddings)
  labels = jnp.asarray(labels)
  validation.check_floating_dtype(
      'ntxent', 'embeddings', embeddings)
  if labels.ndim < 1 or embeddings.ndim < 1 or (
      labels.shape[0] != embeddings.shape[0]):
    raise ValueError(
        'ntxent: labels and embeddings must have the same leading dimension,'
        f' got shapes {labels.shape} for labels and {embeddings.shape} for'
        ' embeddings.')
  epsilon = jnp.finfo(embeddings.dtype).eps
  # Each embedding is normalized once (the squared norm floored at epsilon,
  # as cosine_similarity does); the similarities are their Gram matrix, one
  # matrix product at full precision. (Summing broadcast products instead
  # is slower, and jaxlib 0.10.2's CPU compiler returns wrong sums for it
  # from 256 embeddings on.)
  units = embeddings / jnp.sqrt(jnp.maximum(
      jnp.sum(jnp.square(embeddings), axis=-1, keepdims=True), epsilon))
  similarity = jnp.matmul(units, units.T, precision=jax.lax.Precision.HIGHEST)
  similarity = similarity / temperature

  n = embeddings.shape[0]
  same = labels[:, None] == labels[None, :]
  positives = same & ~jnp.eye(n, dtype=bool)
  # log-sum-exp over the negatives of each anchor, shifted by their largest
  # similarity. The other entries are -inf before the exponential (masking
  # after it could give 0 * inf = NaN in the gradient). The shift starts
  # from the lowest finite number, so that an anchor without negatives gets
  # log(0) = -inf and finite gradients.
  negatives = jnp.where(same, -jnp.inf, similarity)
  shift = jax.lax.stop_gradient(jnp.max(
      negatives, axis=1, keepdims=True,
      initial=jnp.finfo(similarity.dtype).min))
  negative_lse = shift + jnp.log(jnp.sum(
      jnp.exp(negatives - shift), axis=1, keepdims=True))
  # l_ij = log(e^{s_ij} + e^{lse_i}) - s_ij = softplus(lse_i - s_ij), with
  # x = -inf (l = 0) off the positive pairs, and softplus spelled out as
  # max(x, 0) + log1p(e^{-|x|}): arithmetic only, which XLA:CPU fuses with
  # the sum into one vectorized kernel (jax.nn.softplus's NaN select made it
  # a slower generated loop).
  x = jnp.where(positives, negative_lse - similarity, -jnp.inf)
  pair_losses = jnp.maximum(x, 0.0) + jnp.log1p(jnp.exp(-jnp.abs(x)))
  total = jnp.sum(pair_losses)
  return total / jnp.sum(positives).astype(total.dtype)


def triplet_margin_loss(
    anchors: jax.typing.ArrayLike,
    positives: jax.typing.ArrayLike,
    negatives: jax.typing.ArrayLike,
    axis: int = -1,
    norm_degree: jax.typing.ArrayLike = 2,
    margin: jax.typing.ArrayLike = 1.0,
    eps: jax.typing.ArrayLike = 1e-6,
) -> jax.Array:
  r"""Triplet margin loss.

  Pushes each anchor closer to its positive than to its negative by at least
  ``margin``:

  .. math::
    \ell(a, p, n) = \max\left(d(a, p) - d(a, n) + \text{margin}, 0\right),
    \qquad d(x, y) = \Big(\varepsilon + \sum_i |x_i - y_i|^q\Big)^{1/q}

  with :math:`q` the ``norm_degree``: a smoothed :math:`q`-norm of
  :math:`x - y` (the Euclidean distance for the default :math:`q = 2`, the
  Manhattan distance for :math:`q = 1`), as in PyTorch's
  ``TripletMarginLoss``; ``eps`` keeps its gradient finite when
  :math:`x = y`. With ``eps=0`` the distance has a zero (not NaN) gradient
  where it is exactly zero.

  Args:
    anchors: floating anchor embeddings, components along ``axis``.
    positives: embeddings of the same class, broadcastable against
      ``anchors``.
    negatives: embeddings of another class, broadcastable against
      ``anchors``.
    axis: the axis holding the embedding components.
    norm_degree: the degree :math:`q` of the norm.
    margin: the required gap between the two distances.
    eps: a small constant added to the sum of powers.

  Returns:
    The loss of each triplet, with ``axis`` reduced away.

  Raises:
    TypeError: if any of the three inputs is not floating.

  Examples:
    >>> import jax.numpy as jnp
    >>> from optax import losses
    >>> losses.triplet_margin_loss(
    ...     jnp.array([[0.0, 0.0]]), jnp.array([[1.0, 0.0]]),
    ...     jnp.array([[0.0, 1.5]]), eps=0.0)
    Array([0.5], dtype=float32)

  References:
    Schroff et al., `FaceNet: A Unified Embedding for Face Recognition and
    Clustering <https://arxiv.org/abs/1503.03832>`_, 2015.
  """
  anchors = jnp.asarray(anchors)
  positives = jnp.asarray(positives)
  negatives = jnp.asarray(negatives)
  for name, x in (('anchors', anchors), ('positives', positives),
                  ('negatives', negatives)):
    validation.check_floating_dtype(
        'triplet_margin_loss', name, x)

  # An even Python integer needs no absolute value: |d|^q = d^q.
  even = isinstance(norm_degree, int) and norm_degree % 2 == 0

  def distance(x, y):
    difference = x - y if even else jnp.abs(x - y)
    total = jnp.sum(jnp.power(difference, norm_degree), axis=axis) + eps
    # The root has an infinite derivative at zero (reachable with eps=0):
    # take it on a stand-in there, where the distance is exactly zero.
    zero = total == 0
    safe_total = jnp.where(zero, 1.0, total)
    return jnp.where(zero, 0.0, jnp.power(safe_total, 1.0 / norm_degree))

  positive_distance = distance(anchors, positives)
  negative_distance = distance(anchors, negatives)
  return jnp.maximum(positive_distance - negative_distance + margin, 0.0)
