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
"""Apply a transformation to a subset of the parameters only.

``masked`` hides the leaves whose mask is ``False`` from an inner
transformation by replacing them with :class:`MaskedNode`, an empty pytree
node; the inner transformation sees (and keeps state for) the selected leaves
only, and the hidden leaves come out of ``update`` unchanged.
"""

from collections.abc import Callable
from typing import Any, NamedTuple, Union

import jax

from optax._src import base
from optax._src import params_placeholder
from optax._src import prepared_inputs
from optax._src import tree_or_function
from optax._src import tree_structure


class MaskedNode(NamedTuple):
  """A placeholder for a leaf hidden from a masked transformation.

  It is a pytree node without children, so ``jax.tree.map`` and the other
  tree utilities skip it: transformations that map over the leaves of their
  input keep it where it is without looking at it.
  """


class MaskedState(NamedTuple):
  """State of :func:`masked`.

  Attributes:
    inner_state: the state of the inner transformation, built on the
      parameters with the unselected leaves replaced by ``MaskedNode()``.
  """

  inner_state: Any


def _mask_callable(mask: base.MaskOrFn) -> bool:
  """Whether ``mask`` is a function of the params (else a tree of booleans).

  Kept for code that imports this private name; the decision is
  :func:`optax._src.tree_or_function.is_function`'s, made without the
  params at hand (a callable pytree with data leaves, such as an Equinox
  module of booleans, is then a tree).

  Args:
    mask: a tree of booleans, or a function returning one.

  Returns:
    True if ``mask`` is to be called on the params.
  """
  return tree_or_function.is_function(mask)


def _structure_error(
    fn_name: str, arg_name: str, prefix: Any, full: Any, error: Exception
) -> ValueError:
  """Builds the error raised when a mask does not match the params."""
  found = tree_structure.find_difference(prefix, full, prefix=True)
  if found is None:
    detail = str(error)
  else:
    where = found.where(root='(the root)')
    detail = (
        f'at key path {where}, {arg_name} has {found.first} where the'
        f' params have {found.second}'
    )
  return ValueError(
      f'{fn_name}: {arg_name} must have the tree structure of the params, or'
      f' of a prefix of it (one leaf standing for a whole subtree); {detail}.'
      f' Remedy: build {arg_name} from the params, for instance with'
      ' jax.tree.map, or pass a function of the params instead.'
  )


def _resolve_mask(
    mask: Any, tree: Any, fn_name: str = 'masked', arg_name: str = 'mask'
) -> Any:
  """Returns the mask tree for ``tree``, calling ``mask`` if it is a function.

  Args:
    mask: a tree of booleans (a prefix of ``tree``), or a function of
      ``tree`` returning one, told apart by
      :func:`optax._src.tree_or_function.is_function`.
    tree: the params or updates the mask applies to.
    fn_name: the name of the public function, for error messages.
    arg_name: the name of the mask argument, for error messages.

  Returns:
    The mask tree.

  Raises:
    TypeError: if ``mask`` is not callable and all its leaves are
      functions (a tree of mask functions, which is neither form; upstream
      0.2.8 raises a TypeError too, calling the tree).
    ValueError: if ``mask`` is a callable pytree of data (an Equinox
      module) that does not match ``tree`` and fails when called on it
      (naming the key path where the structures differ).
  """
  leaves = jax.tree.leaves(mask)
  if (not callable(mask) and leaves
      and all(callable(leaf) for leaf in leaves)):
    raise TypeError(
        f'{fn_name}: {arg_name} must be a tree of booleans or one function'
        ' returning such a tree, got a tree whose leaves are functions.'
        f' Remedy: pass a single function of the params as {arg_name}.'
    )
  try:
    return tree_or_function.resolve(
        mask, tree, fn_name=fn_name, arg_name=arg_name)
  except Exception as error:  # pylint: disable=broad-exception-caught
    if not tree_or_function.is_callable_pytree(mask):
      raise
    # A callable pytree of data that does not match the params was called,
    # and failed: most likely a mask tree built from other params. Report it
    # as the structure mismatch it is (a ValueError, as for any mask tree).
    raise _structure_error(fn_name, arg_name, mask, tree, error) from error


def _hide(
    mask_tree: Any, tree: Any, fn_name: str = 'masked',
    arg_name: str = 'mask',
) -> Any:
  """Replaces the subtrees of ``tree`` whose mask leaf is falsy by MaskedNode.

  Args:
    mask_tree: a tree of booleans, a prefix of ``tree``.
    tree: the tree to mask.
    fn_name: the name of the public function, for error messages.
    arg_name: the name of the mask argument, for error messages.

  Returns:
    ``tree`` with unselected subtrees replaced by ``MaskedNode()``.

  Raises:
    ValueError: naming the key path, when ``mask_tree`` is not a prefix of
      ``tree``.
  """
  try:
    return jax.tree.map(
        lambda m, x: x if m else MaskedNode(), mask_tree, tree
    )
  except ValueError as error:
    raise _structure_error(
        fn_name, arg_name, mask_tree, tree, error) from error


def _unhide(mask_tree: Any, new_tree: Any, old_tree: Any) -> Any:
  """Takes the selected subtrees of ``new_tree`` and the others of ``old``."""
  return jax.tree.map(
      lambda m, new, old: new if m else old, mask_tree, new_tree, old_tree
  )


def masked(
    inner: base.GradientTransformation,
    mask: Union[Any, Callable[[base.Params], Any]],
    *,
    mask_compatible_extra_args: bool = False,
) -> base.GradientTransformationExtraArgs:
  """Applies ``inner`` only to the leaves selected by ``mask``.

  The leaves whose mask is ``False`` are replaced by :class:`MaskedNode`
  before the updates and params reach ``inner``, so ``inner`` keeps no state
  for them, and they are returned unchanged by ``update``. The mask may be a
  prefix of the params: a single boolean then stands for a whole subtree.

  Masks can be nested: the inner transformation of a ``masked`` may itself be
  (or contain) a ``masked``, whose mask then sees ``MaskedNode`` leaves where
  the outer mask was ``False``; those stay hidden whatever the inner mask
  says.

  Args:
    inner: the transformation to apply to the selected leaves.
    mask: a tree of booleans with the structure of the params (or a prefix
      of it), or a function mapping the params (in ``init``) or the updates
      (in ``update``) to such a tree. ``True`` selects a leaf. A callable
      pytree with data leaves (an Equinox module of booleans, say) shaped
      like the params is a tree, not a function (the rule is
      :func:`optax._src.tree_or_function.is_function`'s).
    mask_compatible_extra_args: if True, each extra keyword argument of
      ``update`` whose tree structure is that of the updates is masked like
      them before it reaches ``inner``; other extra arguments are passed as
      they are. If False, all extra arguments are passed as they are.

  Returns:
    A GradientTransformationExtraArgs whose state is a :class:`MaskedState`.

  Raises:
    ValueError: in ``init``/``update``, naming the key path, if the mask
      does not match the structure of the params.

  Examples:
    >>> import jax.numpy as jnp
    >>> import optax
    >>> params = {'w': jnp.array([1.0, 2.0]), 'b': jnp.array([3.0])}
    >>> tx = optax.masked(optax.scale(-1.0), {'w': True, 'b': False})
    >>> state = tx.init(params)
    >>> updates, state = tx.update(params, state)
    >>> updates['w'], updates['b']
    (Array([-1., -2.], dtype=float32), Array([3.], dtype=float32))
  """
  inner = base.with_extra_args_support(inner)

  def init_fn(params):
    if params_placeholder.is_params_placeholder(params):
      # tree_map_params asks where the params sit in the state: they sit
      # wherever the inner state holds them, whatever the mask.
      return MaskedState(inner_state=inner.init(params))
    mask_tree = _resolve_mask(mask, params)
    return MaskedState(inner_state=inner.init(_hide(mask_tree, params)))

  def update_fn(updates, state, params=None, **extra_args):
    mask_tree = _resolve_mask(mask, updates)
    hidden_updates = _hide(mask_tree, updates)
    hidden_params = None if params is None else _hide(mask_tree, params)
    if mask_compatible_extra_args:
      updates_def = jax.tree.structure(updates)
      extra_args = {
          name: (
              _hide(mask_tree, arg)
              if jax.tree.structure(arg) == updates_def
              else arg
          )
          for name, arg in extra_args.items()
      }
    new_hidden, inner_state = inner.update(
        hidden_updates, state.inner_state, hidden_params, **extra_args
    )
    new_updates = _unhide(mask_tree, new_hidden, updates)
    return new_updates, MaskedState(inner_state=inner_state)

  # Shapes unchecked: the inner transformation may take per-example
  # gradients (dpsgd) and checks the shapes it needs itself.
  return prepared_inputs.with_prepared_inputs(
      'masked', base.GradientTransformationExtraArgs(init_fn, update_fn),
      check_shapes=False)
