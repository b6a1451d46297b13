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
"""Combine gradient transformations: in sequence, or by parameter group.

``chain`` and ``named_chain`` apply transformations one after the other;
``partition`` applies a different transformation to each group of
parameters.
"""

import collections
from collections.abc import Callable, Hashable, Mapping
from typing import Any, NamedTuple, Union

import jax

from optax._src import base
from optax._src import params_placeholder
from optax._src import prepared_inputs
from optax._src import tree_or_function
from optax.transforms import _masking


def _check_transformation(
    fn_name: str, where: str, tx: Any, remedy: str = ''
) -> None:
  if not (hasattr(tx, 'init') and hasattr(tx, 'update')):
    raise ValueError(
        f'{fn_name}: {where} must be a GradientTransformation, got'
        f' {type(tx).__name__}.{remedy}'
    )


def chain(
    *args: base.GradientTransformation,
) -> base.GradientTransformationExtraArgs:
  """Applies transformations one after the other.

  The updates returned by each transformation are the input of the next.
  Every member is given the extra keyword arguments of ``update``
  (``value``, ``grad``, ...) if it accepts them; plain
  ``GradientTransformation`` members are called without them. ``chain()``
  with no member is the identity. The gradients are first brought to the
  params' floating dtype (integer, and narrower floating, gradients are
  cast; see :func:`optax._src.prepared_inputs.as_updates`), so that the updates
  are in the params' floating dtype whatever the gradients' dtype.

  Args:
    *args: the transformations, in the order they are applied.

  Returns:
    A GradientTransformationExtraArgs whose state is the tuple of the
    members' states.

  Examples:
    >>> import jax.numpy as jnp
    >>> import optax
    >>> tx = optax.chain(optax.scale(2.0), optax.scale(-0.5))
    >>> updates, _ = tx.update(jnp.array([1.0, 3.0]), tx.init(None))
    >>> updates
    Array([-1., -3.], dtype=float32)
  """
  for i, t in enumerate(args):
    _check_transformation(
        'chain', f'argument {i}', t,
        ' Remedy: pass the transformations as separate arguments,'
        ' chain(a, b), not as a list.')
  transforms = tuple(base.with_extra_args_support(t) for t in args)

  def init_fn(params):
    params = prepared_inputs.as_params(params)
    return tuple(t.init(params) for t in transforms)

  def update_fn(updates, state, params=None, **extra_args):
    if len(state) != len(transforms):
      raise ValueError(
          f'chain: state has {len(state)} entries but the chain has'
          f' {len(transforms)} transformations. Remedy: build the state'
          ' with the init of this same chain.'
      )
    updates, params, float0 = prepared_inputs.as_updates(updates, params)
    new_state = []
    for member, member_state in zip(transforms, state):
      updates, member_state = member.update(
          updates, member_state, params, **extra_args
      )
      new_state.append(member_state)
    if float0 is not None:
      updates = float0.zero(updates)
    return updates, tuple(new_state)

  return base.GradientTransformationExtraArgs(init_fn, update_fn)


def named_chain(
    *args: tuple[str, base.GradientTransformation],
) -> base.GradientTransformationExtraArgs:
  """Applies named transformations one after the other.

  Like :func:`chain`, but the state is an ordered mapping from each name to
  the state of its transformation, which makes the state easy to inspect.

  Args:
    *args: ``(name, transformation)`` pairs, in the order they are applied;
      names must be distinct.

  Returns:
    A GradientTransformationExtraArgs whose state is a
    ``collections.OrderedDict`` from name to state.

  Raises:
    ValueError: if two transformations have the same name.

  Examples:
    >>> import jax.numpy as jnp
    >>> import optax
    >>> tx = optax.named_chain(('double', optax.scale(2.0)),
    ...                        ('negate', optax.scale(-1.0)))
    >>> state = tx.init(None)
    >>> list(state)
    ['double', 'negate']
    >>> updates, _ = tx.update(jnp.array([1.0, 3.0]), state)
    >>> updates
    Array([-2., -6.], dtype=float32)
  """
  for i, pair in enumerate(args):
    if not (isinstance(pair, tuple) and len(pair) == 2
            and isinstance(pair[0], str)):
      raise ValueError(
          f'named_chain: argument {i} must be a (name, transformation) pair'
          f' with a str name, got {type(pair).__name__}.'
      )
    _check_transformation('named_chain', f'the transformation {pair[0]!r}',
                          pair[1])
  names = [name for name, _ in args]
  duplicates = sorted({n for n in names if names.count(n) > 1}, key=str)
  if duplicates:
    raise ValueError(
        f'named_chain: names must be distinct, got {duplicates} more than'
        ' once.'
    )
  transforms = [
      (name, base.with_extra_args_support(t)) for name, t in args
  ]

  def init_fn(params):
    params = prepared_inputs.as_params(params)
    return collections.OrderedDict(
        (name, t.init(params)) for name, t in transforms
    )

  def update_fn(updates, state, params=None, **extra_args):
    updates, params, float0 = prepared_inputs.as_updates(updates, params)
    new_state = collections.OrderedDict()
    for name, t in transforms:
      updates, new_state[name] = t.update(
          updates, state[name], params, **extra_args
      )
    if float0 is not None:
      updates = float0.zero(updates)
    return updates, new_state

  return base.GradientTransformationExtraArgs(init_fn, update_fn)


class PartitionState(NamedTuple):
  """State of :func:`partition`.

  Attributes:
    inner_states: a dict from each label of ``transforms`` to the
      :class:`optax.MaskedState` of its transformation (built on the
      parameters with that label only).
  """

  inner_states: Mapping[Hashable, _masking.MaskedState]


def _check_labels(
    labels: Any, tree: Any, transform_keys: Any, fn_name: str = 'partition'
) -> None:
  """Checks that the labels match the tree and all have a transformation."""
  try:
    jax.tree.map(lambda *_: None, labels, tree)
  except ValueError as error:
    raise _masking._structure_error(  # pylint: disable=protected-access
        fn_name, 'param_labels', labels, tree, error
    ) from error
  used = set(jax.tree.leaves(labels))
  missing = used - set(transform_keys)
  if missing:
    raise ValueError(
        f'{fn_name}: some parameters have a label with no transformation:'
        f' {sorted(missing, key=repr)}. Labels used: {sorted(used, key=repr)};'
        f' keys of transforms: {sorted(transform_keys, key=repr)}. Remedy:'
        ' add a transformation for every label (optax.set_to_zero() freezes'
        ' a group).'
    )


def partition(
    transforms: Mapping[Hashable, base.GradientTransformation],
    param_labels: Union[Any, Callable[[Any], Any]],
    *,
    mask_compatible_extra_args: bool = False,
) -> base.GradientTransformationExtraArgs:
  """Applies a different transformation to each group of parameters.

  Each leaf of the params gets a label; the leaves with label ``k`` are
  transformed by ``transforms[k]`` (through :func:`optax.masked`, so each
  transformation only sees, and keeps state for, its own leaves). Extra
  keyword arguments of ``update`` are forwarded to the transformations that
  accept them.

  Args:
    transforms: a mapping from label to transformation. Labels with no
      parameter are allowed (their transformation sees no leaf).
    param_labels: a tree of labels with the structure of the params (or a
      prefix of it), or a function mapping the params (in ``init``) or the
      updates (in ``update``) to such a tree. A callable pytree of labels
      with the structure of the params (an Equinox module of labels, say)
      is a tree, not a function (the rule is
      :func:`optax._src.tree_or_function.is_function`'s).
    mask_compatible_extra_args: if True, each extra argument whose tree
      structure is that of the updates is restricted to a group's leaves
      before it reaches that group's transformation (see
      :func:`optax.masked`).

  Returns:
    A GradientTransformationExtraArgs whose state is a
    :class:`PartitionState`.

  Raises:
    ValueError: in ``init``/``update``, if a label has no transformation
      (naming it), or if the labels do not match the structure of the params
      (naming the key path).

  Examples:
    >>> import jax.numpy as jnp
    >>> import optax
    >>> params = {'w': jnp.array([1.0, 2.0]), 'b': jnp.array([3.0])}
    >>> tx = optax.partition(
    ...     {'train': optax.scale(-1.0), 'frozen': optax.set_to_zero()},
    ...     {'w': 'train', 'b': 'frozen'})
    >>> state = tx.init(params)
    >>> updates, state = tx.update(params, state)
    >>> updates['w'], updates['b']
    (Array([-1., -2.], dtype=float32), Array([0.], dtype=float32))
  """
  transforms = {
      label: base.with_extra_args_support(t)
      for label, t in transforms.items()
  }

  def group_mask(labels, group):
    return jax.tree.map(lambda label: label == group, labels)

  def get_labels(tree):
    labels = tree_or_function.resolve(
        param_labels, tree, fn_name='partition', arg_name='param_labels')
    _check_labels(labels, tree, transforms.keys())
    return labels

  def group_transform(labels, group):
    return _masking.masked(
        transforms[group],
        group_mask(labels, group),
        mask_compatible_extra_args=mask_compatible_extra_args,
    )

  def init_fn(params):
    if params_placeholder.is_params_placeholder(params):
      # tree_map_params: no labels can be read off a placeholder, and every
      # group's inner state holds the (masked) params where its transform
      # puts them.
      return PartitionState(
          inner_states={
              group: _masking.MaskedState(inner_state=t.init(params))
              for group, t in transforms.items()
          }
      )
    labels = get_labels(params)
    return PartitionState(
        inner_states={
            group: group_transform(labels, group).init(params)
            for group in transforms
        }
    )

  def update_fn(updates, state, params=None, **extra_args):
    labels = get_labels(updates)
    new_inner_states = {}
    for group in transforms:
      updates, new_inner_states[group] = group_transform(
          labels, group
      ).update(updates, state.inner_states[group], params, **extra_args)
    return updates, PartitionState(inner_states=new_inner_states)

  return base.GradientTransformationExtraArgs(init_fn, update_fn)


# The older names of partition and its state.
multi_transform = partition
MultiTransformState = PartitionState
