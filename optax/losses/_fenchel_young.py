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
"""Fenchel-Young losses built from a regularized max function."""

from collections.abc import Callable
from typing import Any

import jax
import jax.numpy as jnp

MaxFun = Callable[..., jax.typing.ArrayLike]


def make_fenchel_young_loss(
    max_fun: MaxFun,
) -> Callable[..., jax.Array]:
  r"""Builds the Fenchel-Young loss of a regularized max function.

  Given a convex "max" function :math:`\Omega^*` (the convex conjugate of a
  regularizer :math:`\Omega`), the Fenchel-Young loss is

  .. math::
    \ell(\theta, y) = \Omega^*(\theta) + \Omega(y) - \langle \theta, y \rangle

  This returns it up to the term :math:`\Omega(y)`, which does not depend on
  the scores: :math:`\Omega^*(\theta) - \langle \theta, y \rangle`. Its
  gradient in :math:`\theta` is :math:`\nabla \Omega^*(\theta) - y`, the
  regularized prediction minus the target. For instance ``logsumexp`` gives
  the softmax cross-entropy (minus the entropy of ``y``).

  Args:
    max_fun: a function mapping a score vector (1-D) to a scalar; further
      positional and keyword arguments given to the loss are passed to it.

  Returns:
    A function ``fenchel_young_loss(scores, targets, *args, **kwargs)`` that
    applies ``max_fun`` along the last axis of ``scores`` (leading axes are
    batch axes, broadcast against those of ``targets``) and returns one loss
    per vector.

  Examples:
    >>> import jax.numpy as jnp
    >>> from jax.scipy.special import logsumexp
    >>> from optax import losses
    >>> fy_loss = losses.make_fenchel_young_loss(logsumexp)
    >>> fy_loss(jnp.array([[0.0, 0.0], [2.0, 0.0]]),
    ...         jnp.array([[1.0, 0.0], [1.0, 0.0]]))
    Array([0.6931472 , 0.12692809], dtype=float32)

  References:
    Blondel et al., `Learning with Fenchel-Young Losses
    <https://arxiv.org/abs/1901.02324>`_, 2020.
  """
  vdot_last_axis = jnp.vectorize(jnp.vdot, signature='(n),(n)->()')

  def fenchel_young_loss(
      scores: jax.typing.ArrayLike,
      targets: jax.typing.ArrayLike,
      *args: Any,
      **kwargs: Any,
  ) -> jax.Array:
    """Fenchel-Young loss of ``max_fun`` along the last axis of ``scores``.

    Args:
      scores: scores, the vectors lying along the last axis.
      targets: targets shaped like ``scores`` (batch axes broadcast).
      *args: extra positional arguments of ``max_fun``.
      **kwargs: extra keyword arguments of ``max_fun``.

    Returns:
      The loss of each vector.

    Raises:
      ValueError: if the last dimensions of ``scores`` and ``targets``
        differ.
    """
    scores = jnp.asarray(scores)
    targets = jnp.asarray(targets)
    if scores.ndim < 1 or targets.ndim < 1 or (
        scores.shape[-1] != targets.shape[-1]):
      raise ValueError(
          'fenchel_young_loss: scores and targets must have the same last'
          f' (class) dimension, got shapes {scores.shape} and'
          f' {targets.shape}.')
    max_last_axis = jnp.vectorize(
        lambda s: max_fun(s, *args, **kwargs), signature='(n)->()')
    return max_last_axis(scores) - vdot_last_axis(targets, scores)

  return fenchel_young_loss
