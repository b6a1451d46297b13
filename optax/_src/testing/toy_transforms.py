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
"""Minimal transformations for the tests of wrappers.

For the tests only (see ``optax._src.testing``): inner transformations that
prepare nothing themselves, keep a running sum, scale by an extra argument,
or record the extra arguments they get.
"""

from typing import Any, NamedTuple

import jax
import jax.numpy as jnp

from optax._src import base


class RunningSumState(NamedTuple):
  """The state of ``running_sum``.

  Attributes:
    total: the sum of all the updates seen so far, a tree like the params.
  """
  total: base.Updates


def doubling() -> base.GradientTransformation:
  """Doubles the updates as they come (integer ones stay integer).

  An inner transformation that prepares nothing itself, for the tests of
  wrappers that prepare their inputs.
  """

  def update_fn(updates, state, params=None):
    del params
    return jax.tree.map(lambda g: 2 * g, updates), state

  return base.GradientTransformation(base.init_empty_state, update_fn)


def running_sum() -> base.GradientTransformation:
  """A stateful transformation returning the sum of all updates so far.

  Examples:
    >>> import jax.numpy as jnp
    >>> from optax._src.testing import toy_transforms
    >>> tx = toy_transforms.running_sum()
    >>> state = tx.init(jnp.zeros(2))
    >>> _, state = tx.update(jnp.ones(2), state)
    >>> updates, state = tx.update(jnp.ones(2), state)
    >>> updates
    Array([2., 2.], dtype=float32)

  Returns:
    The transformation; its state is a ``RunningSumState``.
  """

  def init_fn(params):
    return RunningSumState(jax.tree.map(jnp.zeros_like, params))

  def update_fn(updates, state, params=None):
    del params
    total = jax.tree.map(lambda t, g: t + g, state.total, updates)
    return total, RunningSumState(total)

  return base.GradientTransformation(init_fn, update_fn)


def scale_by_value() -> base.GradientTransformationExtraArgs:
  """A stateless transformation multiplying the updates by an extra argument.

  The factor is the keyword-only extra argument ``value`` of ``update``,
  which is required; other extra arguments are ignored.

  Examples:
    >>> import jax.numpy as jnp
    >>> from optax._src.testing import toy_transforms
    >>> tx = toy_transforms.scale_by_value()
    >>> updates, _ = tx.update(jnp.ones(2), tx.init(jnp.ones(2)), value=3.0)
    >>> updates
    Array([3., 3.], dtype=float32)

  Returns:
    The transformation.
  """

  def update_fn(updates, state, params=None, *, value, **extra_args):
    del params, extra_args
    return jax.tree.map(lambda g: value * g, updates), state

  return base.GradientTransformationExtraArgs(
      base.init_empty_state, update_fn)


def record_extra_args(
    seen: dict[str, Any],
) -> base.GradientTransformationExtraArgs:
  """An identity transformation writing the extra arguments it gets to a dict.

  Examples:
    >>> import jax.numpy as jnp
    >>> from optax._src.testing import toy_transforms
    >>> seen = {}
    >>> tx = toy_transforms.record_extra_args(seen)
    >>> _ = tx.update(jnp.ones(2), tx.init(jnp.ones(2)), value=3.0)
    >>> seen
    {'value': 3.0}

  Args:
    seen: the dict updated with the keyword extra arguments of each
      ``update`` call.

  Returns:
    The transformation; its updates are the updates it receives.
  """

  def update_fn(updates, state, params=None, **extra_args):
    del params
    seen.update(extra_args)
    return updates, state

  return base.GradientTransformationExtraArgs(
      base.init_empty_state, update_fn)
