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
"""Label smoothing."""

import math
from typing import Optional, Union

import jax
import jax.numpy as jnp

from optax._src import validation

Axis = Union[int, tuple[int, ...]]


def smooth_labels(
    labels: jax.typing.ArrayLike,
    alpha: float,
    *,
    axis: Axis = -1,
    where: Optional[jax.typing.ArrayLike] = None,
) -> jax.Array:
  r"""Mixes label distributions with the uniform distribution.

  With :math:`K` the number of classes,

  .. math::
    \tilde y = (1 - \alpha)\, y + \frac{\alpha}{K}

  Args:
    labels: floating label distributions, classes along ``axis``.
    alpha: the smoothing weight, in :math:`[0, 1]`.
    axis: the class axis or axes.
    where: optional boolean mask broadcastable against ``labels``; ``K`` is
      then the number of ``True`` entries along ``axis`` (every entry is
      still smoothed).

  Returns:
    The smoothed labels, shaped like ``labels``.

  Raises:
    TypeError: if ``labels`` is not floating.

  Examples:
    >>> import jax.numpy as jnp
    >>> from optax import losses
    >>> losses.smooth_labels(jnp.array([1.0, 0.0, 0.0, 0.0]), 0.2)
    Array([0.85, 0.05, 0.05, 0.05], dtype=float32)

  References:
    Szegedy et al., `Rethinking the Inception Architecture for Computer Vision
    <https://arxiv.org/abs/1512.00567>`_, 2016.
  """
  labels = jnp.asarray(labels)
  validation.check_floating_dtype(
      'smooth_labels', 'labels', labels)
  if where is None:
    axes = (axis,) if isinstance(axis, int) else axis
    num_categories = math.prod(labels.shape[a] for a in axes)
  else:
    where = jnp.broadcast_to(jnp.asarray(where), labels.shape)
    num_categories = jnp.sum(
        where, axis=axis, keepdims=True).astype(labels.dtype)
  return (1.0 - alpha) * labels + alpha / num_categories
