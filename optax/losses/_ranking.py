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
"""Learning-to-rank losses."""

from collections.abc import Callable
from typing import Optional

import jax
import jax.numpy as jnp

from optax._src import validation
from optax.losses import _classification


def ranking_softmax_loss(
    logits: jax.typing.ArrayLike,
    labels: jax.typing.ArrayLike,
    *,
    where: Optional[jax.typing.ArrayLike] = None,
    weights: Optional[jax.typing.ArrayLike] = None,
    reduce_fn: Optional[Callable[..., jax.Array]] = jnp.mean,
) -> jax.Array:
  r"""Listwise softmax loss for learning to rank.

  Each list (the last axis) holds the scores of its items. With :math:`s`
  the scores and :math:`y` the relevance labels of one list (times the
  optional ``weights``),

  .. math::
    \ell(s, y) = -\sum_i y_i \log \frac{e^{s_i}}{\sum_j e^{s_j}}

  The labels are not normalized, so a list with more relevance weighs more;
  a list without relevant items has zero loss. Items masked out by ``where``
  take no part in the softmax and have no label.

  Args:
    logits: floating scores, items along the last axis; leading axes index
      the lists.
    labels: relevance labels (graded or binary), broadcastable against
      ``logits``; they are cast to the dtype of ``logits``.
    where: optional boolean mask of the valid items, broadcastable against
      ``logits``. A list with no valid item is invalid.
    weights: optional per-item weights multiplying the labels.
    reduce_fn: how to reduce the per-list losses, called as
      ``reduce_fn(losses, where=valid_lists)`` (``valid_lists`` is ``None``
      when ``where`` is); the default ``jnp.mean`` averages over the valid
      lists, and gives 0 if there is none. ``None`` returns the per-list
      losses, zero for invalid lists.

  Returns:
    The reduced loss, or the per-list losses if ``reduce_fn`` is ``None``.

  Raises:
    TypeError: if ``logits`` is not floating.

  Examples:
    >>> import jax.numpy as jnp
    >>> from optax import losses
    >>> logits = jnp.array([[2.0, 1.0, 0.0], [0.0, 0.0, 0.0]])
    >>> labels = jnp.array([[1.0, 0.0, 0.0], [0.0, 1.0, 0.0]])
    >>> losses.ranking_softmax_loss(logits, labels, reduce_fn=None)
    Array([0.40760595, 1.0986123 ], dtype=float32)

  References:
    Cao et al., `Learning to Rank: From Pairwise Approach to Listwise
    Approach <https://dl.acm.org/doi/10.1145/1273496.1273513>`_, 2007;
    Jagerman et al., `Rax: Composable Learning-to-Rank using JAX
    <https://arxiv.org/abs/2208.07393>`_, 2022.
  """
  logits = jnp.asarray(logits)
  validation.check_floating_dtype(
      'ranking_softmax_loss', 'logits', logits)
  labels = jnp.asarray(labels).astype(logits.dtype)
  if weights is not None:
    labels = labels * jnp.asarray(weights)

  valid_lists = None
  softmax_where = None
  if where is not None:
    where = jnp.asarray(where)
    valid_lists = jnp.any(where, axis=-1)
    labels = jnp.where(where, labels, 0.0)
    # A list without valid items is normalized over all its items instead
    # (its labels are all zero), which keeps its loss and gradient at zero.
    softmax_where = where | ~valid_lists[..., None]

  log_probs = jax.nn.log_softmax(logits, axis=-1, where=softmax_where)
  terms = _classification._weighted_log_probs(  # pylint: disable=protected-access
      log_probs, labels, softmax_where)
  loss = -jnp.sum(terms, axis=-1)

  if reduce_fn is None:
    if valid_lists is None:
      return loss
    return jnp.where(valid_lists, loss, 0.0)
  if reduce_fn is jnp.mean and valid_lists is not None:
    valid_lists = jnp.broadcast_to(valid_lists, loss.shape)
    count = jnp.sum(valid_lists)
    total = jnp.sum(loss, where=valid_lists)
    return total / jnp.maximum(count, 1).astype(total.dtype)
  return reduce_fn(loss, where=valid_lists)
