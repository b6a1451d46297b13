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
"""Freeze parameters: give them zero updates and no optimizer state."""

from collections.abc import Callable
from typing import Any, Union

import jax

from optax._src import base
from optax.transforms import _combining
from optax.transforms import _masking


def freeze(
    mask: Union[bool, Any, Callable[[base.Params], Any]],
) -> base.GradientTransformationExtraArgs:
  """Sets the updates of the selected parameters to zero.

  The other updates pass through unchanged. Typically chained after an
  optimizer, or combined with one through :func:`selective_transform`, which
  also keeps the optimizer from holding state for frozen parameters.

  Args:
    mask: a tree of booleans with the structure of the params (or a prefix
      of it; a single ``True`` freezes everything), or a function of the
      params returning one. ``True`` freezes a leaf.

  Returns:
    A GradientTransformationExtraArgs whose state is a ``MaskedState``.

  Examples:
    >>> import jax.numpy as jnp
    >>> import optax
    >>> params = {'w': jnp.array([1.0, 2.0]), 'b': jnp.array([3.0])}
    >>> tx = optax.freeze({'w': False, 'b': True})
    >>> updates, _ = tx.update(params, tx.init(params))
    >>> updates['w'], updates['b']
    (Array([1., 2.], dtype=float32), Array([0.], dtype=float32))

  .. seealso:: :func:`selective_transform`
  """
  return _masking.masked(base.set_to_zero(), mask)


def selective_transform(
    optimizer: base.GradientTransformation,
    *,
    freeze_mask: Union[bool, Any, Callable[[base.Params], Any]],
) -> base.GradientTransformationExtraArgs:
  """Applies ``optimizer`` to the unfrozen parameters, zero to the others.

  The optimizer keeps no state for the frozen parameters (it sees
  ``MaskedNode`` in their place). This is :func:`optax.partition` with the
  labels ``'train'`` and ``'freeze'``.

  Args:
    optimizer: the transformation for the trainable parameters.
    freeze_mask: a tree of booleans with the structure of the params (or a
      prefix of it), or a function of the params returning one. ``True``
      freezes a leaf.

  Returns:
    A GradientTransformationExtraArgs whose state is a ``PartitionState``
    with inner states ``'train'`` and ``'freeze'``.

  Examples:
    >>> import jax.numpy as jnp
    >>> import optax
    >>> params = {'w': jnp.array([1.0, 2.0]), 'b': jnp.array([3.0])}
    >>> tx = optax.selective_transform(
    ...     optax.scale(-0.5), freeze_mask={'w': False, 'b': True})
    >>> updates, _ = tx.update(params, tx.init(params))
    >>> updates['w'], updates['b']
    (Array([-0.5, -1. ], dtype=float32), Array([0.], dtype=float32))

  .. seealso:: :func:`freeze`, :func:`optax.partition`
  """

  def to_labels(mask_tree):
    return jax.tree.map(lambda m: 'freeze' if m else 'train', mask_tree)

  def labels(tree):
    # Tree or function is decided as for every mask (an Equinox module of
    # booleans shaped like the params is a tree).
    mask_tree = _masking._resolve_mask(  # pylint: disable=protected-access
        freeze_mask, tree, 'selective_transform', 'freeze_mask')
    return to_labels(mask_tree)

  return _combining.partition(
      {'train': optimizer, 'freeze': base.set_to_zero()}, labels)
