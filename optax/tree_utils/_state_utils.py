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
"""Reading and writing entries of optimizer states by name.

Optimizer states are nested NamedTuples, dicts and tuples. The functions here
find entries by name (a NamedTuple field, a dict key, or the class name of a
NamedTuple) wherever they sit in the state, and map functions over the parts
of a state that mirror the parameters.
"""

from collections.abc import Callable
import copy
import dataclasses
from typing import Any, Optional

import jax

from optax._src import params_placeholder

_KeyPath = tuple[Any, ...]
_Filter = Callable[[_KeyPath, Any], bool]


@dataclasses.dataclass(frozen=True)
class NamedTupleKey:
  """A key-path entry for a field of a NamedTuple.

  JAX describes a NamedTuple field with ``GetAttrKey(name)``; the functions
  of this module use this richer entry, which also records the name of the
  NamedTuple class, so that a ``filtering`` function can tell, e.g., the
  ``count`` of a ``ScaleByAdamState`` from the ``count`` of another state.

  Attributes:
    tuple_name: the class name of the NamedTuple (``type(t).__name__``).
    name: the name of the field.
  """

  tuple_name: str
  name: str

  def __str__(self) -> str:
    return f'{self.tuple_name}.{self.name}'


def _is_namedtuple(x: Any) -> bool:
  return isinstance(x, tuple) and hasattr(type(x), '_fields')


def _path_str(path: _KeyPath) -> str:
  """Renders a key path, e.g. ``[1].ScaleByAdamState.count['w']``."""
  parts = []
  for entry in path:
    if isinstance(entry, NamedTupleKey):
      parts.append(f'.{entry}')
    else:
      parts.append(jax.tree_util.keystr((entry,)))
  return ''.join(parts) or '<root>'


def _children(node: Any) -> Optional[tuple[list[tuple[Any, Any]], Any]]:
  """One level of a pytree node: ``([(key_entry, child), ...], treedef)``.

  NamedTuple fields get :class:`NamedTupleKey` entries. Returns None for a
  leaf or for a node without children.
  """
  flat, treedef = jax.tree_util.tree_flatten_with_path(
      node, is_leaf=lambda x: x is not node)
  if jax.tree_util.treedef_is_leaf(treedef):
    return None
  entries = []
  for (entry,), child in flat:
    if _is_namedtuple(node) and isinstance(entry, jax.tree_util.GetAttrKey):
      entry = NamedTupleKey(type(node).__name__, entry.name)
    entries.append((entry, child))
  return entries, treedef


def _field_entry(node: Any, key: Any) -> Optional[Any]:
  """The key-path entry of the child of ``node`` named ``key``, if any."""
  if _is_namedtuple(node):
    if isinstance(key, str) and key in node._fields:
      return NamedTupleKey(type(node).__name__, key)
    return None
  if isinstance(node, dict):
    try:
      if key in node:
        return jax.tree_util.DictKey(key)
    except TypeError:  # An unhashable key cannot be in a dict.
      return None
  return None


def _child_value(node: Any, entry: Any) -> Any:
  if isinstance(entry, NamedTupleKey):
    return getattr(node, entry.name)
  return node[entry.key]


def _name_matches(node: Any, key: Any) -> bool:
  return _is_namedtuple(node) and type(node).__name__ == key


def tree_get_all_with_path(
    tree: Any,
    key: Any,
    filtering: Optional[_Filter] = None,
) -> list[tuple[_KeyPath, Any]]:
  r"""Finds every entry named ``key`` in a pytree, with its key path.

  An entry matches when it is a field of a NamedTuple called ``key``, the
  value of a dict under the key ``key``, or a NamedTuple whose class name is
  ``key``. The search goes level by level: first the matches reachable
  without going through another match, then the matches inside those, and
  so on.

  Examples:
    >>> import jax.numpy as jnp
    >>> import optax
    >>> import optax.tree_utils as otu
    >>> params = {'w': jnp.ones(2)}
    >>> opt = optax.inject_hyperparams(optax.adam)(learning_rate=0.1)
    >>> state = opt.init(params)
    >>> [otu.tree_get_all_with_path(state, 'learning_rate')[0][1]]
    [Array(0.1, dtype=float32)]

  Args:
    tree: a pytree (typically an optimizer state).
    key: the name to look for.
    filtering: optional ``filtering(path, value) -> bool``; only the matches
      for which it returns True are kept. ``path`` is the key path of the
      match (with :class:`NamedTupleKey` entries for NamedTuple fields) and
      ``value`` the matched entry.

  Returns:
    A list of ``(key_path, value)`` pairs, possibly empty.
  """
  found = []
  frontier = [((), tree)]

  def search(path, node, next_frontier):
    entry = _field_entry(node, key)
    name_match = _name_matches(node, key)
    children = _children(node)
    if name_match or entry is not None:
      if name_match:
        found.append((path, node))
      if entry is not None:
        found.append((path + (entry,), _child_value(node, entry)))
      if children is not None:
        next_frontier.extend(
            (path + (child_entry,), child)
            for child_entry, child in children[0])
    elif children is not None:
      for child_entry, child in children[0]:
        search(path + (child_entry,), child, next_frontier)

  while frontier:
    next_frontier = []
    for path, node in frontier:
      search(path, node, next_frontier)
    frontier = next_frontier

  if filtering is not None:
    found = [(path, value) for path, value in found if filtering(path, value)]
  return found


def tree_get(
    tree: Any,
    key: Any,
    default: Optional[Any] = None,
    filtering: Optional[_Filter] = None,
) -> Any:
  """Returns the entry named ``key`` of a pytree, which must be unique.

  Matching follows :func:`tree_get_all_with_path`.

  Examples:
    >>> import jax.numpy as jnp
    >>> import optax
    >>> import optax.tree_utils as otu
    >>> opt = optax.inject_hyperparams(optax.adam)(learning_rate=0.1)
    >>> state = opt.init({'w': jnp.ones(2)})
    >>> otu.tree_get(state, 'learning_rate')
    Array(0.1, dtype=float32)
    >>> otu.tree_get(state, 'not_there', default=0.0)
    0.0

  Args:
    tree: a pytree (typically an optimizer state).
    key: the name to look for.
    default: what to return when nothing matches.
    filtering: optional ``filtering(path, value) -> bool`` restricting the
      matches, as in :func:`tree_get_all_with_path`.

  Returns:
    The matching entry, or ``default``.

  Raises:
    KeyError: if several entries match; use ``filtering`` to select one.
  """
  found = tree_get_all_with_path(tree, key, filtering)
  if len(found) > 1:
    paths = ', '.join(_path_str(path) for path, _ in found)
    raise KeyError(
        f'tree_get: found {len(found)} values for {key!r} (at {paths}).'
        ' Pass filtering=lambda path, value: ... to select one, or use'
        ' tree_get_all_with_path to get them all.')
  if not found:
    return default
  return found[0][1]


def tree_set(
    tree: Any,
    filtering: Optional[_Filter] = None,
    /,
    **kwargs: Any,
) -> Any:
  """Returns a copy of a pytree with entries replaced by name.

  For each ``name=value`` argument, the NamedTuple fields and dict entries
  called ``name`` (and the NamedTuples whose class is called ``name``) are
  replaced by ``value``. Once a node holding a match is found, the search
  only goes on inside those of its entries that are not replaced (a match
  that ``filtering`` rejects, or a sibling of a match) and themselves hold a
  match, as in upstream Optax: a match deeper inside a node holding a match
  is left as is.

  Examples:
    >>> import optax.tree_utils as otu
    >>> state = {'count': 3, 'hyperparams': {'learning_rate': 0.1}}
    >>> otu.tree_set(state, learning_rate=0.01, count=0)
    {'count': 0, 'hyperparams': {'learning_rate': 0.01}}

  Args:
    tree: a pytree (typically an optimizer state).
    filtering: optional ``filtering(path, value) -> bool`` (positional only);
      an entry is replaced only if it returns True for the entry's key path
      and current value.
    **kwargs: the names to replace and their new values.

  Returns:
    The updated pytree.

  Raises:
    KeyError: if some name matches no entry (after filtering).
  """
  for key in kwargs:
    if not tree_get_all_with_path(tree, key, filtering):
      where = ' given the filtering function' if filtering else ''
      raise KeyError(
          f'tree_set: found no entry named {key!r}{where}. Names are fields'
          ' of NamedTuples, keys of dicts, or NamedTuple class names of the'
          ' state.')

  def keep(path, value):
    return filtering is None or filtering(path, value)

  def is_target(node):
    if _is_namedtuple(node):
      return (type(node).__name__ in kwargs
              or any(name in kwargs for name in node._fields))
    if isinstance(node, dict):
      return any(_field_entry(node, key) is not None for key in kwargs)
    return False

  def set_entry(path, name, child):
    if name in kwargs and keep(path, child):
      return kwargs[name]
    return replace(path, child) if is_target(child) else child

  def replace(path, node):
    if _is_namedtuple(node):
      tuple_name = type(node).__name__
      if tuple_name in kwargs and keep(path, node):
        return kwargs[tuple_name]
      return node._replace(**{
          name: set_entry(path + (NamedTupleKey(tuple_name, name),), name,
                          getattr(node, name))
          for name in node._fields})
    new_node = copy.copy(node)
    for key, child in node.items():
      new_node[key] = set_entry(
          path + (jax.tree_util.DictKey(key),), key, child)
    return new_node

  def visit(path, node):
    if is_target(node):
      return replace(path, node)
    children = _children(node)
    if children is None:
      return node
    entries, treedef = children
    return jax.tree.unflatten(
        treedef, [visit(path + (entry,), child) for entry, child in entries])

  return visit((), tree)


# Upstream's private name, kept for code that reaches for it here.
_ParamsPlaceholder = params_placeholder.ParamsPlaceholder


def tree_map_params(
    initable: Any,
    f: Callable[..., Any],
    state: Any,
    /,
    *rest: Any,
    transform_non_params: Optional[Callable[..., Any]] = None,
    is_leaf: Optional[Callable[[Any], bool]] = None,
) -> Any:
  """Maps ``f`` over the parts of an optimizer state that mirror the params.

  The params-shaped parts (e.g. ``mu`` and ``nu`` of Adam) are found by
  calling ``initable.init`` on a placeholder: wherever the state built that
  way holds the placeholder, the real ``state`` holds a copy of the params
  tree, and ``f`` is mapped over its leaves. Every other leaf (counters,
  hyperparameters) is passed to ``transform_non_params``, or kept.

  Examples:
    >>> import jax
    >>> import jax.numpy as jnp
    >>> import optax
    >>> import optax.tree_utils as otu
    >>> opt = optax.adam(1e-3)
    >>> state = opt.init({'w': jnp.zeros((2, 3))})
    >>> shapes = otu.tree_map_params(
    ...     opt, lambda p: p.shape, state,
    ...     transform_non_params=lambda _: None)
    >>> shapes[0].mu
    {'w': (2, 3)}

  Args:
    initable: anything with an ``init(params)`` method, e.g. a
      GradientTransformation, or such an init function itself.
    f: the function mapped over the param leaves of the state; it receives
      the leaf of the state and the matching leaves of ``rest``.
    state: the state to transform, built by ``initable.init``.
    *rest: further trees shaped like the params, mapped together with each
      params-shaped part of the state.
    transform_non_params: the function applied to every other leaf of the
      state; None keeps them unchanged.
    is_leaf: passed to ``jax.tree.map`` when mapping ``f`` over each
      params-shaped part.

  Returns:
    The transformed state.
  """
  init_fn = getattr(initable, 'init', initable)
  template = init_fn(params_placeholder.ParamsPlaceholder())

  def map_part(template_part, state_part):
    if params_placeholder.is_params_placeholder(template_part):
      return jax.tree.map(f, state_part, *rest, is_leaf=is_leaf)
    if transform_non_params is None:
      return state_part
    return jax.tree.map(transform_non_params, state_part)

  try:
    return jax.tree.map(map_part, template, state,
                        is_leaf=params_placeholder.is_params_placeholder)
  except ValueError as e:
    if hasattr(e, 'add_note'):
      e.add_note(
          'tree_map_params: the state does not have the structure of'
          ' initable.init(params); was it built by this initable?')
    raise
