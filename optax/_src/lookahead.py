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
"""The Lookahead wrapper: slow weights that follow a fast optimizer."""

from typing import NamedTuple, Optional

from absl import logging
import jax
import jax.numpy as jnp

from optax._src import arguments
from optax._src import base
from optax._src import hyperparameters


class LookaheadState(NamedTuple):
  """State of :func:`lookahead`.

  Attributes:
    fast_state: the state of the fast optimizer.
    steps_since_sync: the number of steps since the last synchronization
      of the slow and fast parameters, an int32 scalar in
      ``[0, sync_period)``.
  """
  fast_state: base.OptState
  steps_since_sync: jax.Array


class LookaheadParams(NamedTuple):
  """The two copies of the parameters that :func:`lookahead` updates.

  Attributes:
    fast: the fast parameters, updated by the fast optimizer at every step
      (use these to compute gradients).
    slow: the slow parameters, moved towards the fast ones every
      ``sync_period`` steps (use these for evaluation).
  """
  fast: base.Params
  slow: base.Params

  @classmethod
  def init_synced(cls, params: base.Params) -> 'LookaheadParams':
    """Fast and slow parameters that both start at ``params``."""
    return cls(fast=params, slow=params)


@arguments.declare(sync_period=arguments.positive_int_or_array)
def lookahead(
    fast_optimizer: base.GradientTransformation,
    sync_period: int,
    slow_step_size: float,
    reset_state: bool = False,
) -> base.GradientTransformation:
  r"""Wraps an optimizer in Lookahead.

  The fast parameters :math:`\phi` follow ``fast_optimizer``. Every
  ``sync_period`` steps, the slow parameters :math:`\theta` move towards the
  fast ones, and the fast ones restart from the slow ones:

  .. math::

    \theta \leftarrow \theta + \alpha (\phi - \theta), \qquad
    \phi \leftarrow \theta

  with :math:`\alpha` = ``slow_step_size``. The parameters are a
  :class:`LookaheadParams`; gradients are computed at the fast parameters
  and given to ``update`` as a tree shaped like ``params.fast``; the updates
  returned are a :class:`LookaheadParams`, to be added to the parameters
  with ``optax.apply_updates``.

  Examples:
    >>> import jax
    >>> import jax.numpy as jnp
    >>> from optax._src import base, lookahead
    >>> sgd = base.GradientTransformation(
    ...     lambda p: base.EmptyState(),
    ...     lambda u, s, p=None: (jax.tree.map(lambda g: -0.5 * g, u), s))
    >>> tx = lookahead.lookahead(sgd, sync_period=2, slow_step_size=0.5)
    >>> params = lookahead.LookaheadParams.init_synced(jnp.array(1.0))
    >>> state = tx.init(params)
    >>> for _ in range(2):
    ...   updates, state = tx.update(params.fast, state, params)
    ...   params = jax.tree.map(lambda p, u: p + u, params, updates)
    >>> print(params.fast, params.slow)
    0.625 0.625

  Args:
    fast_optimizer: the optimizer of the fast parameters. Extra keyword
      arguments of ``update`` (``value``, ``grad``, ...) are passed on to it.
    sync_period: the number of fast steps between synchronizations, at
      least 1.
    slow_step_size: the step :math:`\alpha` of the slow parameters towards
      the fast ones.
    reset_state: whether to reset the state of the fast optimizer to its
      initial value at each synchronization.

  Returns:
    A :class:`optax.GradientTransformationExtraArgs` acting on
    :class:`LookaheadParams`.

  Raises:
    ValueError: if ``sync_period`` is not a positive integer (or an array).

  References:
    Zhang et al., `Lookahead optimizer: k steps forward, 1 step back
    <https://arxiv.org/abs/1907.08610>`_, 2019.
  """
  fast_optimizer = base.with_extra_args_support(fast_optimizer)

  def init_fn(params: base.Params) -> LookaheadState:
    fast_params = getattr(params, 'fast', None)
    if fast_params is None:
      logging.warning(
          'lookahead: `params` has no attribute `fast`; assuming that only '
          'the fast parameters were passed to init. Pass '
          '`LookaheadParams.init_synced(params)` instead.')
      fast_params = params
    return LookaheadState(
        fast_state=fast_optimizer.init(fast_params),
        steps_since_sync=jnp.zeros([], jnp.int32))

  def update_fn(
      updates: base.Updates,
      state: LookaheadState,
      params: Optional[LookaheadParams] = None,
      **extra_args,
  ) -> tuple[LookaheadParams, LookaheadState]:
    if params is None:
      raise ValueError(
          'lookahead: update needs the current `params` (a LookaheadParams);'
          ' call update(updates, state, params).')
    fast_updates, fast_state = fast_optimizer.update(
        updates, state.fast_state, params.fast, **extra_args)
    sync = state.steps_since_sync == sync_period - 1
    step = hyperparameters.as_hyperparameter(slow_step_size)

    # With d = fast + update - slow, a synchronization step moves the slow
    # parameters by alpha * d and the fast ones to the new slow ones, a move
    # of (alpha - 1) * d + update; other steps keep the fast optimizer's step.
    def split(fast, update, slow):
      diff = fast + update - slow
      slow_update = jnp.where(sync, (step * diff).astype(diff.dtype),
                              jnp.zeros_like(diff))
      fast_update = jnp.where(
          sync, ((step - 1) * diff + update).astype(update.dtype), update)
      return fast_update, slow_update

    fast_leaves, treedef = jax.tree.flatten(params.fast)
    pairs = [
        split(*leaves) for leaves in zip(
            fast_leaves,
            treedef.flatten_up_to(fast_updates),
            treedef.flatten_up_to(params.slow))
    ]
    new_fast_updates = treedef.unflatten([pair[0] for pair in pairs])
    slow_updates = treedef.unflatten([pair[1] for pair in pairs])

    if reset_state:
      initial_state = fast_optimizer.init(params.fast)
      fast_state = jax.tree.map(
          lambda current, init: jnp.where(sync, init, current),
          fast_state, initial_state)

    steps_since_sync = (state.steps_since_sync + 1) % sync_period
    return (
        LookaheadParams(fast=new_fast_updates, slow=slow_updates),
        LookaheadState(fast_state=fast_state,
                       steps_since_sync=steps_since_sync.astype(jnp.int32)),
    )

  return base.GradientTransformationExtraArgs(init_fn, update_fn)
