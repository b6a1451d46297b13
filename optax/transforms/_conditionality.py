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
"""Wrappers that apply a transformation only when a condition holds.

The condition is a traced boolean, so the choice is made with ``lax.cond``:
the inner update is only computed when it is used. Both branches return the
same tree of shapes, dtypes and shardings by construction (the skipping
branch builds its outputs from the abstract result of the inner update).
"""

from typing import Any, NamedTuple, Protocol

import jax
import jax.numpy as jnp

from optax._src import arguments
from optax._src import base
from optax._src import numerics
from optax._src import prepared_inputs


class ConditionFn(Protocol):
  """A condition on the step count (and possibly the extra arguments)."""

  def __call__(self, step: jax.Array, **extra_args: Any) -> jax.Array:
    """Returns a scalar boolean: whether to apply the inner update.

    Args:
      step: the number of updates done so far (int32 scalar).
      **extra_args: the extra arguments of ``update``, when the wrapper was
        built with ``forward_extra_args=True``.

    Returns:
      A scalar boolean array (or Python bool).
    """


def _cond_update(pred, inner, updates, inner_state, params, extra_args,
                 skip_updates_fn):
  """Runs ``inner.update`` if ``pred``, else a skipping branch.

  Args:
    pred: a scalar boolean.
    inner: a GradientTransformationExtraArgs.
    updates: the incoming updates.
    inner_state: the state of ``inner``.
    params: the params, or None.
    extra_args: the extra arguments for ``inner.update``.
    skip_updates_fn: maps ``(updates, abstract_new_updates)`` to the updates
      returned when skipping; it must give the abstract shapes and dtypes.

  Returns:
    ``(new_updates, new_inner_state)``; when skipping, the inner state is
    returned unchanged (cast to the dtypes the inner update would give).
  """

  def apply(_):
    return inner.update(updates, inner_state, params, **extra_args)

  out_updates_spec, out_state_spec = jax.eval_shape(apply, None)

  def skip(_):
    same_state = jax.tree.map(
        lambda s, spec: s if getattr(s, 'dtype', None) == spec.dtype
        else jnp.asarray(s, spec.dtype),
        inner_state, out_state_spec)
    return skip_updates_fn(updates, out_updates_spec), same_state

  return jax.lax.cond(pred, apply, skip, None)


def _zeros_like_spec(updates, spec):
  del updates
  # zeros_like of the abstract value keeps its sharding (under an explicit
  # mesh it is part of the type, and lax.cond needs both branches to agree).
  return jax.tree.map(jnp.zeros_like, spec)


def _same_updates_like_spec(updates, spec):
  return jax.tree.map(
      lambda u, s: jnp.asarray(u).astype(s.dtype), updates, spec)


class ConditionallyMaskState(NamedTuple):
  """State of :func:`conditionally_mask`.

  Attributes:
    step: number of updates done so far, shape ``()``, int32.
    inner_state: the state of the inner transformation.
  """

  step: jax.Array
  inner_state: base.OptState


def _condition(should_transform_fn, step, forward_extra_args, extra_args):
  if forward_extra_args:
    return should_transform_fn(step, **extra_args)
  return should_transform_fn(step)


def _on_condition(
    fn: str, state_type: Any, inner: base.GradientTransformation,
    should_transform_fn: ConditionFn, forward_extra_args: bool,
    skip_updates_fn: Any,
) -> base.GradientTransformationExtraArgs:
  """``inner`` at the steps where the condition holds, else a skip.

  Args:
    fn: the public name, for error messages.
    state_type: the state's class, with fields ``step`` and ``inner_state``.
    inner: the transformation to apply conditionally.
    should_transform_fn: the condition on the step count.
    forward_extra_args: whether the condition takes the extra arguments.
    skip_updates_fn: the updates of a skipped step (see
      :func:`_cond_update`).

  Returns:
    The wrapper; its step counter advances at every step.
  """
  inner = base.with_extra_args_support(inner)

  def init_fn(params):
    return state_type(step=jnp.zeros([], jnp.int32),
                      inner_state=inner.init(params))

  def update_fn(updates, state, params=None, **extra_args):
    pred = _condition(should_transform_fn, state.step, forward_extra_args,
                      extra_args)
    new_updates, inner_state = _cond_update(
        jnp.asarray(pred, jnp.bool_), inner, updates, state.inner_state,
        params, extra_args, skip_updates_fn)
    return new_updates, state_type(
        step=numerics.safe_increment(state.step), inner_state=inner_state)

  # Shapes unchecked: the inner transformation may take per-example
  # gradients (dpsgd) and checks the shapes it needs itself.
  return prepared_inputs.with_prepared_inputs(
      fn, base.GradientTransformationExtraArgs(init_fn, update_fn),
      check_shapes=False)


def conditionally_mask(
    inner: base.GradientTransformation,
    should_transform_fn: ConditionFn,
    forward_extra_args: bool = False,
) -> base.GradientTransformationExtraArgs:
  """Applies ``inner`` when a condition on the step holds, else zeros.

  At each step, ``should_transform_fn(step)`` (``step`` counts the updates
  done so far, starting at 0) decides: if true, the updates and the state of
  ``inner`` are updated; if false, the updates are replaced by zeros and the
  inner state is left as it is. The step counter advances either way.

  Args:
    inner: the transformation to apply conditionally.
    should_transform_fn: maps the step count to a scalar boolean.
    forward_extra_args: if True, the extra arguments of ``update`` are also
      passed to ``should_transform_fn`` as keyword arguments. They are
      always passed to ``inner`` (if it accepts them).

  Returns:
    A GradientTransformationExtraArgs whose state is a
    :class:`ConditionallyMaskState`.

  Examples:
    >>> import jax.numpy as jnp
    >>> import optax
    >>> tx = optax.conditionally_mask(optax.scale(-1.0), lambda s: s >= 1)
    >>> state = tx.init(jnp.zeros(2))
    >>> updates, state = tx.update(jnp.array([1.0, 2.0]), state)
    >>> updates
    Array([0., 0.], dtype=float32)
    >>> updates, state = tx.update(jnp.array([1.0, 2.0]), state)
    >>> updates
    Array([-1., -2.], dtype=float32)

  .. seealso:: :func:`conditionally_transform`, :func:`apply_if_finite`
  """
  return _on_condition('conditionally_mask', ConditionallyMaskState, inner,
                       should_transform_fn, forward_extra_args,
                       _zeros_like_spec)


class ConditionallyTransformState(NamedTuple):
  """State of :func:`conditionally_transform`.

  Attributes:
    inner_state: the state of the inner transformation.
    step: number of updates done so far, shape ``()``, int32.
  """

  inner_state: base.OptState
  step: jax.Array


def conditionally_transform(
    inner: base.GradientTransformation,
    should_transform_fn: ConditionFn,
    forward_extra_args: bool = False,
) -> base.GradientTransformationExtraArgs:
  """Transforms the updates by ``inner`` only at the steps a condition picks.

  ``should_transform_fn`` receives the number of updates made so far (0 at
  the first call of ``update``). Where it returns True, ``inner`` transforms
  the updates and its state moves on; where it returns False, the updates
  come back as given and ``inner``'s state is kept. The wrapper's own step
  counter moves on at every step.

  Args:
    inner: the transformation applied at the steps the condition selects.
    should_transform_fn: the condition, a function of the step count
      returning a scalar boolean.
    forward_extra_args: whether ``should_transform_fn`` also receives the
      keyword arguments given to ``update`` (``inner`` receives them in
      any case, when it takes extra arguments).

  Returns:
    A GradientTransformationExtraArgs; its state is a
    :class:`ConditionallyTransformState`.

  Examples:
    >>> import jax.numpy as jnp
    >>> import optax
    >>> tx = optax.conditionally_transform(
    ...     optax.scale(-1.0), lambda s: s % 2 == 1)
    >>> state = tx.init(jnp.zeros(2))
    >>> for step in range(3):  # inner at the odd steps only
    ...   updates, state = tx.update(jnp.array([1.0, 2.0]), state)
    ...   print(step, updates)
    0 [1. 2.]
    1 [-1. -2.]
    2 [1. 2.]

  .. seealso:: :func:`conditionally_mask`
  """
  return _on_condition('conditionally_transform', ConditionallyTransformState,
                       inner, should_transform_fn, forward_extra_args,
                       _same_updates_like_spec)


class ApplyIfFiniteState(NamedTuple):
  """State of :func:`apply_if_finite`.

  Attributes:
    notfinite_count: number of consecutive steps with non-finite updates,
      shape ``()``, int32. It stops growing at ``max_consecutive_errors + 1``
      (the wrapper has given up then).
    last_finite: whether the updates of the last step were all finite, shape
      ``()``, bool.
    total_notfinite: total number of steps with non-finite updates, shape
      ``()``, int32 (saturating).
    inner_state: the state of the inner transformation.
  """

  notfinite_count: Any
  last_finite: Any
  total_notfinite: Any
  inner_state: Any


def _all_finite(tree) -> jax.Array:
  flags = [jnp.all(jnp.isfinite(x)) for x in jax.tree.leaves(tree)]
  if not flags:
    return jnp.ones([], jnp.bool_)
  return jnp.all(jnp.stack(flags))


@arguments.declare(max_consecutive_errors=arguments.non_negative)
def apply_if_finite(
    inner: base.GradientTransformation,
    max_consecutive_errors: int,
) -> base.GradientTransformationExtraArgs:
  """Applies ``inner`` only when the incoming updates are all finite.

  When the updates contain a NaN or an infinity, zero updates are returned
  and the inner state is left untouched (the inner update is skipped), so
  one bad batch does not corrupt the optimizer state. After more than
  ``max_consecutive_errors`` consecutive bad steps the wrapper gives up:
  the updates go through ``inner`` whatever they contain, until a finite
  step resets the count. ``notfinite_count`` is the number of consecutive
  bad steps (it saturates at the largest int32 rather than overflowing),
  ``total_notfinite`` the number of all bad steps.

  Args:
    inner: the transformation to protect.
    max_consecutive_errors: the number of consecutive non-finite steps that
      are skipped before giving up; a nonnegative integer.

  Returns:
    A GradientTransformationExtraArgs whose state is an
    :class:`ApplyIfFiniteState`.

  Raises:
    ValueError: if ``max_consecutive_errors`` is a negative integer.

  Examples:
    >>> import jax.numpy as jnp
    >>> import optax
    >>> tx = optax.apply_if_finite(optax.scale(-1.0), max_consecutive_errors=2)
    >>> state = tx.init(jnp.zeros(2))
    >>> updates, state = tx.update(jnp.array([jnp.nan, 1.0]), state)
    >>> updates, state.notfinite_count
    (Array([0., 0.], dtype=float32), Array(1, dtype=int32))
    >>> updates, state = tx.update(jnp.array([3.0, 1.0]), state)
    >>> updates, state.notfinite_count
    (Array([-3., -1.], dtype=float32), Array(0, dtype=int32))
  """
  inner = base.with_extra_args_support(inner)

  def init_fn(params):
    return ApplyIfFiniteState(
        notfinite_count=jnp.zeros([], jnp.int32),
        last_finite=jnp.ones([], jnp.bool_),
        total_notfinite=jnp.zeros([], jnp.int32),
        inner_state=inner.init(params),
    )

  def update_fn(updates, state, params=None, **extra_args):
    finite = _all_finite(updates)
    limit = jnp.asarray(max_consecutive_errors, jnp.int32)
    notfinite_count = jnp.where(
        finite, jnp.zeros([], jnp.int32),
        numerics.safe_increment(state.notfinite_count))
    total_notfinite = jnp.where(
        finite, state.total_notfinite,
        numerics.safe_increment(state.total_notfinite))
    apply = jnp.logical_or(finite, notfinite_count > limit)
    new_updates, inner_state = _cond_update(
        apply, inner, updates, state.inner_state, params, extra_args,
        _zeros_like_spec)
    return new_updates, ApplyIfFiniteState(
        notfinite_count=notfinite_count,
        last_finite=finite,
        total_notfinite=total_notfinite,
        inner_state=inner_state,
    )

  # Shapes unchecked: the inner transformation may take per-example
  # gradients (dpsgd) and checks the shapes it needs itself.
  return prepared_inputs.with_prepared_inputs(
      'apply_if_finite',
      base.GradientTransformationExtraArgs(init_fn, update_fn),
      check_shapes=False)
