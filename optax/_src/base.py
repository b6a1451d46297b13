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
"""The core contract of the library: gradient transformations and their types.

A gradient transformation is a pair of pure functions, ``init`` and
``update``. ``init`` builds the optimizer state from the parameters (it only
looks at their shapes and dtypes) and ``update`` maps updates (usually
gradients) and the state to new updates and a new state.
"""

from collections.abc import Callable
from typing import Any, NamedTuple, Optional, Protocol, Union

import jax
import jax.numpy as jnp
import numpy as np

# Type aliases. They document intent; JAX does not check them at run time.
ArrayTree = Union[
    jax.Array, np.ndarray, np.generic, float, int, bool,
    'ArrayTree', Any,
]
"""A pytree whose leaves are arrays or numbers (params, updates, states)."""
Numeric = Union[jax.Array, np.ndarray, np.generic, float, int]
Shape = tuple[int, ...]
PRNGKey = jax.Array

Params = ArrayTree
"""A pytree of parameters."""

Updates = ArrayTree
"""A pytree of updates (gradients or transformed gradients), shaped like the
parameters."""

OptState = ArrayTree
"""The state of a gradient transformation: a pytree, usually NamedTuples."""

Schedule = Callable[[Numeric], Numeric]
"""A function mapping a step count to a value (a learning rate, a decay)."""

ScheduleState = Any
"""The state of a stateful schedule."""

ScalarOrSchedule = Union[float, jax.Array, Schedule]
"""A hyperparameter given either as a number or as a schedule."""

MaskOrFn = Optional[Union[Any, Callable[[Params], Any]]]
"""A tree of booleans shaped like the params, or a function building one."""


class StatefulSchedule(Protocol):
  """A schedule whose value depends on a state it carries between steps."""

  def init(self) -> ScheduleState:
    """Returns the initial state of the schedule."""

  def update(self, state: ScheduleState, **extra_args) -> ScheduleState:
    """Returns the state of the schedule for the next step."""

  def __call__(self, state: ScheduleState, **extra_args) -> Numeric:
    """Returns the value of the schedule for the current state."""


class TransformInitFn(Protocol):
  """The ``init`` function of a gradient transformation."""

  def __call__(self, params: Params) -> OptState:
    """Builds the initial state from the parameters.

    Args:
      params: the model parameters (only shapes and dtypes are used by the
        transformations of this library).

    Returns:
      The initial state of the transformation.
    """


class TransformUpdateFn(Protocol):
  """The ``update`` function of a gradient transformation."""

  def __call__(
      self,
      updates: Updates,
      state: OptState,
      params: Optional[Params] = None,
  ) -> tuple[Updates, OptState]:
    """Transforms updates and advances the state.

    Args:
      updates: a tree of updates (gradients, or the output of a previous
        transformation), shaped like the parameters.
      state: the current state of the transformation.
      params: the current parameters, for transformations that need them.

    Returns:
      The transformed updates and the new state.
    """


class TransformUpdateExtraArgsFn(Protocol):
  """An ``update`` function that also accepts extra keyword arguments.

  The ``update`` of a :class:`GradientTransformationExtraArgs`: a line
  search, for instance, reads the objective's ``value``, ``grad`` and
  ``value_fn`` from them.
  """

  def __call__(self, updates: Updates, state: OptState,
               params: Optional[Params] = None,
               **extra_args: Any) -> tuple[Updates, OptState]:
    """As :class:`TransformUpdateFn`, given keyword arguments besides.

    Args:
      updates: the updates to transform, shaped like the parameters.
      state: the transformation's state before this step.
      params: the parameters, for a transformation that reads them.
      **extra_args: keyword arguments such as ``value``, ``grad`` or
        ``value_fn``; a transformation reads those it knows and ignores the
        others.

    Returns:
      The new updates and the state after this step.
    """


class GradientTransformation(NamedTuple):
  """A pair of pure functions that together transform gradients.

  Attributes:
    init: builds the initial state from the parameters.
    update: maps ``(updates, state, params)`` to ``(new_updates, new_state)``.
  """

  init: TransformInitFn
  update: TransformUpdateFn


class GradientTransformationExtraArgs(GradientTransformation):
  """A gradient transformation whose ``update`` accepts extra keyword args.

  Attributes:
    init: builds the initial state from the parameters.
    update: maps ``(updates, state, params, **extra_args)`` to
      ``(new_updates, new_state)``.
  """

  update: TransformUpdateExtraArgsFn


class EmptyState(NamedTuple):
  """The state of a transformation that keeps no state."""


# Stateless transformations of the library share the empty state; the aliases
# keep the names users pattern-match on.
AdaptiveGradClipState = EmptyState
AddDecayedWeightsState = EmptyState
ClipState = EmptyState
ClipByGlobalNormState = EmptyState
NonNegativeParamsState = EmptyState
ScaleByTrustRatioState = EmptyState
ScaleState = EmptyState
NormalizeState = EmptyState


def init_empty_state(params: Params) -> EmptyState:
  """An ``init`` function that ignores the params and returns EmptyState.

  Args:
    params: ignored.

  Returns:
    ``EmptyState()``.
  """
  del params
  return EmptyState()


def identity() -> GradientTransformation:
  """A transformation that returns the updates unchanged.

  Examples:
    >>> import jax.numpy as jnp
    >>> import optax
    >>> tx = optax.identity()
    >>> updates, _ = tx.update(jnp.array([1.0, -2.0]), tx.init(None))
    >>> updates
    Array([ 1., -2.], dtype=float32)

  Returns:
    A stateless GradientTransformation.
  """

  def update_fn(updates, state, params=None):
    del params
    return updates, state

  return GradientTransformation(init_empty_state, update_fn)


def set_to_zero() -> GradientTransformation:
  """A transformation that replaces every update by zeros.

  Used with ``partition`` / ``multi_transform`` to freeze parameters: their
  updates become zero, so ``apply_updates`` leaves them where they are.

  Examples:
    >>> import jax.numpy as jnp
    >>> import optax
    >>> params = {'a': jnp.array([1.0, -2.0]), 'b': jnp.ones(1)}
    >>> tx = optax.partition(  # a is frozen, b trained
    ...     {'frozen': optax.set_to_zero(), 'trained': optax.sgd(0.5)},
    ...     {'a': 'frozen', 'b': 'trained'})
    >>> updates, _ = tx.update(params, tx.init(params))
    >>> optax.apply_updates(params, updates)
    {'a': Array([ 1., -2.], dtype=float32), 'b': Array([0.5], dtype=float32)}

  Returns:
    A stateless GradientTransformation.
  """

  def update_fn(updates, state, params=None):
    del params
    return jax.tree.map(jnp.zeros_like, updates), state

  return GradientTransformation(init_empty_state, update_fn)


def stateless(
    f: Callable[[Updates, Optional[Params]], Updates],
) -> GradientTransformation:
  """Builds a stateless transformation from a function of the whole tree.

  Args:
    f: maps ``(updates, params)`` to new updates; ``params`` may be None.

  Examples:
    >>> import jax
    >>> import jax.numpy as jnp
    >>> import optax
    >>> halve = optax.stateless(
    ...     lambda g, p: jax.tree.map(lambda x: x / 2, g))
    >>> updates, _ = halve.update({'w': jnp.array(3.0)}, halve.init(None))
    >>> updates['w']
    Array(1.5, dtype=float32, weak_type=True)

  Returns:
    A GradientTransformation whose state is ``EmptyState()``.
  """

  def update_fn(updates, state, params=None):
    del state
    return f(updates, params), EmptyState()

  return GradientTransformation(init_empty_state, update_fn)


def stateless_with_tree_map(
    f: Callable[[jax.Array, Optional[jax.Array]], jax.Array],
) -> GradientTransformation:
  """Builds a stateless transformation from a function of one leaf.

  Args:
    f: maps ``(update_leaf, param_leaf)`` to a new update leaf; the param
      leaf is None when no params are passed to ``update``.

  Examples:
    >>> import jax.numpy as jnp
    >>> import optax
    >>> neg = optax.stateless_with_tree_map(lambda g, p: -g)
    >>> updates, _ = neg.update({'w': jnp.array(3.0)}, neg.init(None))
    >>> updates['w']
    Array(-3., dtype=float32, weak_type=True)

  Returns:
    A GradientTransformation whose state is ``EmptyState()``.
  """

  def update_fn(updates, state, params=None):
    del state
    if params is None:
      new_updates = jax.tree.map(lambda g: f(g, None), updates)
    else:
      new_updates = jax.tree.map(f, updates, params)
    return new_updates, EmptyState()

  return GradientTransformation(init_empty_state, update_fn)


def with_extra_args_support(
    tx: GradientTransformation,
) -> GradientTransformationExtraArgs:
  """Makes ``tx.update`` accept (and ignore) extra keyword arguments.

  A transformation that is already a ``GradientTransformationExtraArgs`` is
  returned as it is.

  Args:
    tx: a gradient transformation.

  Returns:
    A GradientTransformationExtraArgs with the same init and behaviour.
  """
  if isinstance(tx, GradientTransformationExtraArgs):
    return tx

  def update_fn(updates, state, params=None, **extra_args):
    del extra_args
    return tx.update(updates, state, params)

  return GradientTransformationExtraArgs(tx.init, update_fn)
