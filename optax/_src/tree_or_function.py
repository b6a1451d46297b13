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
"""Is an argument a tree shaped like the params, or a function of them?

Masks (:func:`optax.masked`, every ``weight_decay_mask``/``mask``,
:func:`optax.freeze`, :func:`optax.selective_transform`), the labels of
:func:`optax.partition` and the dimension numbers of Muon and GaLore can each
be given either as a tree with the structure of the params (or a prefix of
it) or as a function returning such a tree from the params. ``callable`` alone
cannot tell them apart: an Equinox module is callable and is also a pytree
whose leaves are data, so a mask or a set of labels built from a model with
``jax.tree.map`` is an Equinox module. This module makes that decision, for
all of these arguments, with one rule (:func:`is_function`):

1. An argument that is not callable is a tree: a dict, list, tuple, a Flax
   ``nnx.State``, an array, a single ``bool`` or ``None``.
2. A ``functools.partial`` (``jax.tree_util.Partial`` included) is a
   function, whatever its bound arguments.
3. A callable that JAX flattens to itself (a plain function, a lambda, a
   jitted function, a bound method, a callable object that is not a
   registered pytree) is a function.
4. A callable pytree node (an Equinox module, a registered dataclass with a
   ``__call__``) whose leaves are all callable, and at least one, is a
   function: it wraps functions, it holds no data.
5. Any other callable pytree node (its leaves are data, or it has none) is a
   tree when its structure is that of the params or a prefix of it (a leaf
   standing for a whole subtree), and a function otherwise.

Rule 5 is what makes an Equinox module of booleans, labels or dimension
numbers built from the model a tree, while a callable module written to
compute labels from the params is still called. Where the params are not at
hand (``tree=None``), such a node is a tree.
"""

import functools
from typing import Any, Callable, Optional

import jax

from optax._src import tree_structure

IsLeaf = Optional[Callable[[Any], bool]]


def _is_prefix(prefix: Any, tree: Any, is_leaf: IsLeaf) -> bool:
  """Whether ``prefix`` has the structure of ``tree`` or of a prefix of it."""
  try:
    jax.tree.map(lambda *_: None, prefix, tree, is_leaf=is_leaf)
  except (ValueError, TypeError):
    return False
  return True


def _is_opaque(arg: Any) -> bool:
  """Whether JAX flattens ``arg`` to the single leaf ``arg`` itself."""
  leaves = jax.tree.leaves(arg)
  return len(leaves) == 1 and leaves[0] is arg


def is_function(arg: Any, tree: Any = None, *, is_leaf: IsLeaf = None
                ) -> bool:
  """Whether ``arg`` is a function of the params rather than a tree of values.

  The rule is the one in this module's docstring: non-callables are trees;
  partials and opaque callables are functions; a callable pytree node is a
  function when its leaves are all callable, and otherwise a tree exactly
  when it is a prefix of ``tree``.

  Examples:
    >>> import jax.numpy as jnp
    >>> from optax._src import tree_or_function
    >>> params = {'w': jnp.ones((2, 3)), 'b': jnp.zeros(3)}
    >>> tree_or_function.is_function({'w': True, 'b': False}, params)
    False
    >>> tree_or_function.is_function(True, params)
    False
    >>> tree_or_function.is_function(lambda p: {'w': True, 'b': False})
    True

  Args:
    arg: a mask, labels or dimension numbers argument.
    tree: the params (or updates) the argument applies to; ``None`` when
      they are not at hand, in which case a callable pytree node with data
      leaves is a tree.
    is_leaf: the leaves of ``arg`` when it is a tree, for the prefix check
      (for instance ``None`` and dimension-number NamedTuples); by default
      JAX's leaves.

  Returns:
    True if ``arg`` is to be called on the params, False if it is the tree.
  """
  if not callable(arg):
    return False
  if isinstance(arg, functools.partial):
    return True
  if _is_opaque(arg):
    return True
  flags = [callable(leaf) for leaf in jax.tree.leaves(arg)]
  if flags and all(flags):
    return True
  if tree is None:
    return False
  return not _is_prefix(arg, tree, is_leaf)


def resolve(
    arg: Any,
    tree: Any,
    *,
    fn_name: str,
    arg_name: str,
    is_leaf: IsLeaf = None,
) -> Any:
  """Returns the tree ``arg`` stands for: ``arg(tree)`` or ``arg`` itself.

  Examples:
    >>> import jax
    >>> import jax.numpy as jnp
    >>> from optax._src import tree_or_function
    >>> params = {'w': jnp.ones((2, 3)), 'b': jnp.zeros(3)}
    >>> tree_or_function.resolve(
    ...     lambda p: jax.tree.map(lambda x: x.ndim == 2, p), params,
    ...     fn_name='masked', arg_name='mask')
    {'b': False, 'w': True}

  Args:
    arg: a tree shaped like ``tree`` (or a prefix of it), or a function of
      ``tree`` returning one; decided by :func:`is_function`.
    tree: the params or updates.
    fn_name: the public function taking ``arg``, for error messages.
    arg_name: the name of the argument, for error messages.
    is_leaf: the leaves of ``arg`` when it is a tree, see
      :func:`is_function`.

  Returns:
    ``arg(tree)`` if ``arg`` is a function, else ``arg``.

  Raises:
    Exception: whatever calling ``arg`` raises. When ``arg`` is a callable
      pytree node with data leaves (called because it does not match
      ``tree``), the error carries a note saying so, with the key path
      where the structures first differ.
  """
  if not is_function(arg, tree, is_leaf=is_leaf):
    return arg
  if not is_callable_pytree(arg):
    return arg(tree)
  try:
    return arg(tree)
  except Exception as error:  # pylint: disable=broad-exception-caught
    error.add_note(_called_node_note(arg, tree, fn_name, arg_name, is_leaf))
    raise


def is_callable_pytree(arg: Any) -> bool:
  """Whether ``arg`` falls under rule 5: a callable pytree node of data.

  Such an argument (an Equinox module of booleans, labels or dimension
  numbers, or an Equinox module computing them from data fields) is a tree
  when it is shaped like the params and is called otherwise.

  Examples:
    >>> from optax._src import tree_or_function
    >>> tree_or_function.is_callable_pytree(lambda p: p)
    False
    >>> tree_or_function.is_callable_pytree({'w': True})
    False

  Args:
    arg: a mask, labels or dimension numbers argument.

  Returns:
    True if ``arg`` is callable, is not a partial, is not a single leaf,
    and has a leaf that is not callable (or no leaf).
  """
  if (not callable(arg) or isinstance(arg, functools.partial)
      or _is_opaque(arg)):
    return False
  leaves = jax.tree.leaves(arg)
  return not (leaves and all(callable(leaf) for leaf in leaves))


def _called_node_note(
    arg: Any, tree: Any, fn_name: str, arg_name: str, is_leaf: IsLeaf
) -> str:
  """Explains why a callable pytree of data was called, and how not to."""
  found = tree_structure.find_difference(
      arg, tree, is_leaf=is_leaf, prefix=True)
  if found is None:
    where = ''
  else:
    where = (f': at key path {found.where(root="(the root)")} it has'
             f' {found.first} where the params have {found.second}')
  return (
      f'{fn_name}: {arg_name} is a callable pytree ({type(arg).__name__})'
      ' with data leaves that is not shaped like the params (nor like a'
      f' prefix of them{where}), so it was called as a function of the'
      f' params, and that call failed. Remedy: if {arg_name} is meant as a'
      ' tree, build it from the same (filtered) params, for instance with'
      ' jax.tree.map, so that the structures match.'
  )
