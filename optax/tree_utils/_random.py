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
"""Random pytrees: one key per leaf, random trees shaped like a target."""

from collections.abc import Callable
from typing import Any, Optional

import jax
import jax.numpy as jnp

from optax._src import base


def tree_split_key_like(rng_key: base.PRNGKey, target_tree: Any) -> Any:
  """Splits a key into one key per leaf of ``target_tree``.

  The keys are ``jax.random.split(rng_key, n)`` for ``n`` leaves, in leaf
  order; typed keys give typed keys and raw ``uint32`` keys give raw keys.

  Examples:
    >>> import jax
    >>> import jax.numpy as jnp
    >>> import optax.tree_utils as otu
    >>> keys = otu.tree_split_key_like(
    ...     jax.random.key(0), {'a': jnp.ones(2), 'b': jnp.ones(3)})
    >>> sorted(keys)
    ['a', 'b']

  Args:
    rng_key: a PRNG key.
    target_tree: a pytree; only its structure is used.

  Returns:
    A pytree with the structure of ``target_tree`` whose leaves are keys.
  """
  treedef = jax.tree.structure(target_tree)
  keys = jax.random.split(rng_key, treedef.num_leaves)
  return jax.tree.unflatten(treedef, list(keys))


def tree_random_like(
    rng_key: base.PRNGKey,
    target_tree: Any,
    sampler: Callable[..., jax.Array] = jax.random.normal,
    dtype: Optional[Any] = None,
) -> Any:
  """A random pytree with the shapes (and dtypes) of ``target_tree``.

  Each leaf is ``sampler(key, leaf.shape, dtype or leaf.dtype)`` with its
  own key from :func:`tree_split_key_like`.

  Examples:
    >>> import jax
    >>> import jax.numpy as jnp
    >>> import optax.tree_utils as otu
    >>> tree = {'a': jnp.ones((2, 3), jnp.bfloat16)}
    >>> noise = otu.tree_random_like(jax.random.key(0), tree)
    >>> noise['a'].shape, noise['a'].dtype
    ((2, 3), dtype(bfloat16))

  Args:
    rng_key: a PRNG key.
    target_tree: a pytree of arrays or ``jax.ShapeDtypeStruct``.
    sampler: a function ``(key, shape, dtype) -> array`` such as
      ``jax.random.normal`` or ``jax.random.uniform``.
    dtype: the dtype of every leaf, or None for the dtype of each target
      leaf.

  Returns:
    A pytree of random arrays with the structure of ``target_tree``.
  """
  keys = tree_split_key_like(rng_key, target_tree)

  def sample(leaf, key):
    leaf_dtype = dtype if dtype is not None else jnp.result_type(
        getattr(leaf, 'dtype', leaf))
    shape = getattr(leaf, 'shape', None)
    shape = jnp.shape(leaf) if shape is None else tuple(shape)
    return sampler(key, shape, leaf_dtype)

  return jax.tree.map(sample, target_tree, keys)


def _is_typed_key(x: Any) -> bool:
  dtype = getattr(x, 'dtype', None)
  return dtype is not None and jax.dtypes.issubdtype(
      dtype, jax.dtypes.prng_key)


def tree_unwrap_random_key_data(input_tree: Any) -> Any:
  """Replaces typed PRNG keys in a pytree by their raw ``uint32`` data.

  Useful before saving a state with a library that does not know typed keys.
  Other leaves are unchanged.

  Examples:
    >>> import jax
    >>> import optax.tree_utils as otu
    >>> otu.tree_unwrap_random_key_data({'key': jax.random.key(0)})['key']
    Array([0, 0], dtype=uint32)

  Args:
    input_tree: a pytree.

  Returns:
    The pytree with every typed key leaf replaced by
    ``jax.random.key_data(leaf)``.
  """
  return jax.tree.map(
      lambda x: jax.random.key_data(x) if _is_typed_key(x) else x,
      input_tree)
