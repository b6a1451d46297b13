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
"""Transformations that constrain the updates: keep params >= 0, drop NaNs."""

from typing import NamedTuple

import jax
import jax.numpy as jnp

from optax._src import base
from optax._src import dtypes
from optax._src import validation

NonNegativeParamsState = base.EmptyState


def _is_none(x) -> bool:
  return x is None


def _nonnegative_leaf(u, p):
  if u is None:
    return None
  dtype = dtypes.promote_dtypes(u.dtype, p.dtype)
  u_wide, p_wide = u.astype(dtype), p.astype(dtype)
  return jnp.where(p_wide + u_wide < 0, -p_wide, u_wide).astype(u.dtype)


def keep_params_nonnegative() -> base.GradientTransformation:
  r"""Modifies the updates so that the updated parameters are nonnegative.

  Where the update would make a parameter negative, the update is replaced
  by minus the parameter, so that the parameter becomes zero:

  .. math::

    u \leftarrow \begin{cases} -\theta & \text{if } \theta + u < 0 \\
    u & \text{otherwise.} \end{cases}

  Returns:
    A stateless GradientTransformation; its ``update`` requires ``params``.

  Raises:
    ValueError: in ``update``, if ``params`` is None.

  Examples:
    >>> import jax.numpy as jnp
    >>> import optax
    >>> params = jnp.array([1.0, 0.5])
    >>> tx = optax.keep_params_nonnegative()
    >>> updates, _ = tx.update(jnp.array([-2.0, 0.25]), tx.init(params),
    ...                        params)
    >>> updates
    Array([-1.  ,  0.25], dtype=float32)
  """

  def update_fn(updates, state, params=None):
    validation.require_params(
        'keep_params_nonnegative', params,
        'this transformation needs the current parameters')
    new_updates = jax.tree.map(
        _nonnegative_leaf, updates, params, is_leaf=_is_none)
    return new_updates, state

  return base.GradientTransformation(base.init_empty_state, update_fn)


class ZeroNansState(NamedTuple):
  """State of :func:`zero_nans`.

  Attributes:
    found_nan: a tree shaped like the params with one scalar bool per leaf
      (shape ``()``, dtype bool): whether the last updates of that leaf had a
      NaN.
  """

  found_nan: base.Updates


def zero_nans() -> base.GradientTransformation:
  """Replaces NaNs in the updates by zeros and records where they were.

  Infinities are left as they are.

  Returns:
    A GradientTransformation whose state is a :class:`ZeroNansState`.

  Examples:
    >>> import jax.numpy as jnp
    >>> import optax
    >>> tx = optax.zero_nans()
    >>> params = {'w': jnp.zeros(2)}
    >>> updates, state = tx.update({'w': jnp.array([jnp.nan, 1.0])},
    ...                            tx.init(params))
    >>> updates['w'], state.found_nan['w']
    (Array([0., 1.], dtype=float32), Array(True, dtype=bool))
  """

  def init_fn(params):
    return ZeroNansState(
        found_nan=jax.tree.map(lambda _: jnp.zeros([], jnp.bool_), params))

  def update_fn(updates, state, params=None):
    del params, state
    found_nan = jax.tree.map(lambda u: jnp.any(jnp.isnan(u)), updates)
    new_updates = jax.tree.map(
        lambda u: jnp.where(jnp.isnan(u), jnp.zeros_like(u), u), updates)
    return new_updates, ZeroNansState(found_nan=found_nan)

  return base.GradientTransformation(init_fn, update_fn)
