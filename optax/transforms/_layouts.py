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
"""Change the layout of the tree seen by a transformation."""

import jax
import jax.numpy as jnp
import numpy as np

from optax._src import base
from optax._src import dtypes
from optax._src import prepared_inputs
from optax._src import sharding


def _ravel(tree):
  """Concatenates the raveled leaves of ``tree`` into one vector.

  Args:
    tree: a tree of arrays; None leaves are skipped.

  Returns:
    ``(vector, unravel)`` where ``vector`` has the promoted dtype of the
    leaves and ``unravel`` maps such a vector back to a tree with the
    structure, shapes, dtypes (and explicit shardings) of ``tree``.
  """
  leaves, treedef = jax.tree.flatten(tree)
  leaves = [jnp.asarray(x) for x in leaves]
  specs = [sharding.explicit_spec(x) for x in leaves]
  shapes = [np.shape(x) for x in leaves]
  leaf_dtypes = [
      jnp.asarray(x).dtype if not hasattr(x, 'dtype') else x.dtype
      for x in leaves]
  sizes = [int(np.prod(s)) for s in shapes]
  dtype = (dtypes.promote_dtypes(*leaf_dtypes) if leaf_dtypes
           else jnp.dtype(jnp.float32))
  if leaves:
    pieces = [jnp.ravel(x).astype(dtype) for x in leaves]
    if any(spec is not None for spec in specs):
      pieces = [jax.sharding.reshard(x, jax.sharding.PartitionSpec(None))
                for x in pieces]
    vector = jnp.concatenate(pieces)
  else:
    vector = jnp.zeros([0], dtype)
  offsets = np.cumsum([0] + sizes)

  def unravel(flat):
    pieces = [
        flat[offsets[i]:offsets[i + 1]].reshape(shapes[i])
        .astype(leaf_dtypes[i])
        for i in range(len(leaves))
    ]
    pieces = [x if spec is None else jax.sharding.reshard(x, spec)
              for x, spec in zip(pieces, specs)]
    return jax.tree.unflatten(treedef, pieces)

  return vector, unravel


def flatten(
    inner: base.GradientTransformation,
) -> base.GradientTransformationExtraArgs:
  """Makes ``inner`` see all the leaves as one flat vector.

  The updates (and the params, when given) are raveled and concatenated into
  a single vector before reaching ``inner``, and its output is split and
  reshaped back into the original tree, each leaf in its own dtype. This
  turns many small per-leaf operations into one large one, which can be
  faster for trees with many small leaves. The vector has the promoted dtype
  of the leaves. Extra arguments of ``update`` are forwarded to ``inner`` as
  they are.

  Args:
    inner: the transformation to apply to the flat vector.

  Returns:
    A GradientTransformationExtraArgs whose state is the state of ``inner``
    for the flat vector.

  Examples:
    >>> import jax.numpy as jnp
    >>> import optax
    >>> params = {'w': jnp.ones((2, 2)), 'b': jnp.ones(3)}
    >>> tx = optax.flatten(optax.scale(-1.0))
    >>> updates, _ = tx.update(params, tx.init(params))
    >>> updates['w'].shape, updates['b'].dtype
    ((2, 2), dtype('float32'))
  """
  inner = base.with_extra_args_support(inner)

  def init_fn(params):
    flat_params, _ = _ravel(params)
    return inner.init(flat_params)

  def update_fn(updates, state, params=None, **extra_args):
    flat_updates, unravel = _ravel(updates)
    flat_params = None if params is None else _ravel(params)[0]
    new_flat, state = inner.update(
        flat_updates, state, flat_params, **extra_args)
    return unravel(new_flat), state

  return prepared_inputs.with_prepared_inputs(
      'flatten', base.GradientTransformationExtraArgs(init_fn, update_fn))
