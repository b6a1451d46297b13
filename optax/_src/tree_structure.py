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
"""Pytree structures: where two trees differ, and splitting trees of tuples.

The one place that compares tree structures for error messages:

* :func:`find_difference` walks two trees and returns the key path of the
  first node where they differ, with a description of each side (or, with
  ``prefix=True``, where the first stops being a prefix of the second, as
  masks and labels must be);
* :func:`structure_difference` formats it as ``"at <path>: <a> != <b>"``;
* :func:`check_like_updates` checks that a tree of moments (or accumulators)
  has the structure and the shapes of the updates, naming the key path.

And :func:`unzip`, which splits a tree of tuples (what a ``jax.tree.map``
returning several values per leaf gives) into one tree per tuple entry.
"""

from typing import Any, Callable, NamedTuple, Optional

import jax
import jax.numpy as jnp


_DEFAULT_REMEDY = ('The optimizer state was built by init for other params;'
                   ' build it with params shaped like the gradients.')


def _is_none(x: Any) -> bool:
  return x is None


def one_level(
    node: Any, is_leaf: Optional[Callable[[Any], bool]] = None
) -> tuple[list[tuple[Any, Any]], Any]:
  """The children of a pytree node, with their keys, and its own treedef.

  Works with every jax version (``jax.tree_util.flatten_one_level_with_keys``
  is recent).

  Args:
    node: a pytree node or leaf.
    is_leaf: an optional predicate marking leaves.

  Returns:
    ``([(key, child), ...], one_level_treedef)``, or ``([], None)`` for a
    leaf. Two nodes with equal one-level treedefs have the same type,
    metadata (e.g. dict keys) and number of children.
  """
  if is_leaf is not None and is_leaf(node):
    return [], None
  flat, treedef = jax.tree_util.tree_flatten_with_path(
      node, is_leaf=lambda x: x is not node)
  if treedef.num_nodes == 1 and treedef.num_leaves == 1:
    return [], None
  return [(path[0], child) for path, child in flat], treedef


def describe_node(node: Any, treedef: Any) -> str:
  """A short description of a pytree node, for error messages.

  Args:
    node: the node (or leaf).
    treedef: its one-level treedef, None for a leaf (see :func:`one_level`).

  Returns:
    For instance ``"a dict with keys ['a', 'b']"``, ``'a list of length
    2'``, ``'a NamedTuple ScaleByAdamState'``, ``'None'`` or ``'a leaf of
    type ArrayImpl'``.
  """
  if treedef is None:
    return f'a leaf of type {type(node).__name__}'
  node_type, aux = treedef.node_data()
  if node_type is type(None):
    return 'None'
  if node_type is dict and isinstance(aux, (list, tuple)):
    return f'a dict with keys {list(aux)}'
  if hasattr(node_type, '_fields'):
    return f'a NamedTuple {node_type.__name__}'
  if node_type in (list, tuple):
    return f'a {node_type.__name__} of length {treedef.num_leaves}'
  return f'a {node_type.__name__} with {treedef.num_leaves} children'


class Difference(NamedTuple):
  """Where two pytrees differ in structure.

  Attributes:
    path: the key path of the differing nodes (``()`` for the roots).
    first: a description of the node of the first tree there.
    second: a description of the node of the second tree there.
  """

  path: tuple[Any, ...]
  first: str
  second: str

  def where(self, root: str = '<root>') -> str:
    """The key path as ``jax.tree_util.keystr`` writes it, or ``root``."""
    return jax.tree_util.keystr(self.path) or root


def find_difference(
    tree_a: Any,
    tree_b: Any,
    *,
    is_leaf: Optional[Callable[[Any], bool]] = None,
    prefix: bool = False,
) -> Optional[Difference]:
  """Finds the first node (depth first) where two pytrees differ.

  Examples:
    >>> from optax._src import tree_structure
    >>> found = tree_structure.find_difference({'a': [1, 2]}, {'a': [1]})
    >>> found.where(), found.first, found.second
    ("['a']", 'a list of length 2', 'a list of length 1')
    >>> print(tree_structure.find_difference(
    ...     {'a': True}, {'a': [1, 2]}, prefix=True))
    None

  Args:
    tree_a: a pytree.
    tree_b: another pytree.
    is_leaf: an optional predicate marking extra leaves, as in
      ``jax.tree.map``, applied to both trees.
    prefix: if True, ``tree_a`` only needs to be a prefix of ``tree_b``: a
      leaf of ``tree_a`` matches a whole subtree of ``tree_b`` (as a mask or
      a tree of labels does in ``jax.tree.map(f, mask, params)``).

  Returns:
    None if the structures match, else a :class:`Difference`.
  """
  if not prefix and (jax.tree.structure(tree_a, is_leaf=is_leaf)
                     == jax.tree.structure(tree_b, is_leaf=is_leaf)):
    return None  # The walk below would find nothing (the common case).
  stack = [((), tree_a, tree_b)]
  while stack:
    path, a, b = stack.pop()
    children_a, treedef_a = one_level(a, is_leaf)
    if treedef_a is None and prefix:
      continue
    children_b, treedef_b = one_level(b, is_leaf)
    if treedef_a is None and treedef_b is None:
      continue
    if treedef_a is None or treedef_b is None or treedef_a != treedef_b:
      return Difference(path, describe_node(a, treedef_a),
                        describe_node(b, treedef_b))
    pairs = list(zip(children_a, children_b))
    for (key, child_a), (_, child_b) in reversed(pairs):
      stack.append((path + (key,), child_a, child_b))
  return None


def structure_difference(
    tree_a: Any, tree_b: Any,
    is_leaf: Optional[Callable[[Any], bool]] = None,
) -> Optional[str]:
  """Describes the first place where two pytrees differ in structure.

  Used for error messages that name the key path of a mismatch.

  Examples:
    >>> from optax._src import tree_structure
    >>> print(tree_structure.structure_difference({'a': [1, 2]}, {'a': [1]}))
    at ['a']: a list of length 2 != a list of length 1
    >>> print(tree_structure.structure_difference({'a': 1}, {'a': 2}))
    None

  Args:
    tree_a: the first pytree, described left of ``!=``.
    tree_b: the second pytree, described right of ``!=``.
    is_leaf: as in :func:`find_difference`.

  Returns:
    None if the structures are equal, else a message of the form
    ``"at <key path>: <node of tree_a> != <node of tree_b>"``.
  """
  found = find_difference(tree_a, tree_b, is_leaf=is_leaf)
  if found is None:
    return None
  return f'at {found.where()}: {found.first} != {found.second}'


def check_like_updates(
    fn: str,
    updates: Any,
    moments: Any,
    *,
    state_name: str = 'the optimizer state',
    remedy: str = _DEFAULT_REMEDY,
) -> None:
  """Raises if a tree of moments is not structured and shaped like updates.

  The check runs at trace time (structures and shapes are static), so it
  costs nothing in a jitted step. A ``None`` update (a frozen leaf) matches
  any moment leaf; an array update needs a moment of its shape.

  Examples:
    >>> import jax.numpy as jnp
    >>> from optax._src import tree_structure
    >>> tree_structure.check_like_updates(
    ...     'f', {'w': jnp.zeros(2)}, {'w': jnp.zeros(3)}, state_name='m',
    ...     remedy='Fix.')
    Traceback (most recent call last):
    ...
    ValueError: f: at ['w'] the update has shape (2,) but m has shape (3,). Fix.

  Args:
    fn: the calling function's name, for error messages.
    updates: a pytree of updates (None leaves allowed).
    moments: a pytree of moments that should match ``updates``.
    state_name: what ``moments`` is, for error messages.
    remedy: the last sentence of the error messages, saying how to fix it.

  Raises:
    ValueError: naming the key path where the structures or the shapes
      differ (typically, a state built by ``init`` for other params).
  """
  difference = structure_difference(updates, moments, is_leaf=_is_none)
  if difference is not None:
    raise ValueError(f'{fn}: the updates and {state_name} differ in'
                     f' structure {difference} (updates != state). {remedy}')
  leaves, treedef = jax.tree.flatten(updates, is_leaf=_is_none)
  for index, (g, m) in enumerate(zip(leaves, treedef.flatten_up_to(moments))):
    if g is None:
      continue
    if m is None or jnp.shape(g) != jnp.shape(m):
      # Key paths are only computed for the message: on a large tree they
      # cost more than the check itself.
      path, _ = jax.tree_util.tree_flatten_with_path(
          updates, is_leaf=_is_none)[0][index]
      has = 'None' if m is None else f'shape {jnp.shape(m)}'
      raise ValueError(
          f'{fn}: at {jax.tree_util.keystr(path)} the update has shape'
          f' {jnp.shape(g)} but {state_name} has {has}. {remedy}')


def unzip(like: Any, tree_of_tuples: Any, n: int) -> tuple[Any, ...]:
  """Splits a tree of n-tuples into n trees shaped like ``like``.

  The inverse of ``jax.tree.map(lambda *xs: xs, *trees)``: typically a
  per-leaf update returns ``(new_update, new_moment)`` and the two trees are
  wanted apart. Unlike ``jax.tree.transpose``, the tuples may hold ``None``
  or subtrees, and ``None`` nodes of ``like`` (with ``None`` at the same
  place in ``tree_of_tuples``) stay ``None`` in every output.

  Examples:
    >>> from optax._src import tree_structure
    >>> tree_structure.unzip(
    ...     {'a': 0, 'b': None}, {'a': (1, 2), 'b': None}, 2)
    ({'a': 1, 'b': None}, {'a': 2, 'b': None})

  Args:
    like: a tree whose leaves sit where the tuples sit in
      ``tree_of_tuples``.
    tree_of_tuples: a tree with the structure of ``like`` down to its
      leaves, where it holds tuples of length ``n``.
    n: the length of the tuples.

  Returns:
    A tuple of ``n`` trees with the structure of ``like``, the i-th holding
    the i-th entries of the tuples.

  Raises:
    ValueError: if ``tree_of_tuples`` does not have the structure of
      ``like`` above the tuples, or a tuple does not have length ``n``.
  """
  treedef = jax.tree.structure(like)
  tuples = treedef.flatten_up_to(tree_of_tuples)
  for t in tuples:
    if not isinstance(t, tuple) or len(t) != n:
      raise ValueError(
          f'unzip: expected tuples of length {n} at the leaves of the tree,'
          f' got {t!r}')
  return tuple(treedef.unflatten([t[i] for t in tuples]) for i in range(n))
