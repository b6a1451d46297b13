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
"""Applying updates to parameters, and moving averages of parameters."""

from typing import Any

import jax
import jax.numpy as jnp

from optax._src import base
from optax._src import dtypes
from optax._src import hyperparameters
from optax._src import tree_structure


def _is_none(x: Any) -> bool:
  return x is None


def _result_type(*values: Any) -> Any:
  """``jnp.result_type`` computed in the standard promotion mode.

  The result is only used for explicit casts, so this also works when
  ``jax_numpy_dtype_promotion`` is ``'strict'``.
  """
  with jax.numpy_dtype_promotion('standard'):
    return jnp.result_type(*values)


def apply_updates(params: base.Params, updates: base.Updates) -> base.Params:
  """Adds updates to params, keeping the dtype of each param.

  Each new param is ``(p + u).astype(p.dtype)``, so bfloat16 params stay
  bfloat16 whatever the dtype of the updates. A param that is None stays
  None (its update is ignored).

  Examples:
    >>> import jax.numpy as jnp
    >>> import optax
    >>> params = {'w': jnp.array([1.0, 2.0], jnp.bfloat16)}
    >>> updates = {'w': jnp.array([0.5, -0.5])}
    >>> optax.apply_updates(params, updates)
    {'w': Array([1.5, 1.5], dtype=bfloat16)}

  Args:
    params: a pytree of parameters.
    updates: a pytree of updates with the structure of ``params``.

  Returns:
    The updated parameters.

  Raises:
    ValueError: if the structures differ (the message names the key path).
    TypeError: if an update is None where the param is not.
  """
  def apply_leaf(path, p, u):
    if p is None:
      return None
    if u is None:
      raise TypeError(
          f'apply_updates: the update at {jax.tree_util.keystr(path)} is'
          ' None but the param is not; updates must have the structure of'
          ' the params.')
    p, u = dtypes.as_array(p), dtypes.as_array(u)
    dtype = p.dtype if p.dtype == u.dtype else _result_type(p, u)
    p_wide, u_wide = dtypes.cast(p, dtype), dtypes.cast(u, dtype)
    if jnp.issubdtype(dtype, jnp.inexact):
      # What ``+`` traces to here, without the operator's checks (the time
      # to trace a step on a tree of thousands of leaves).
      total = jax.lax.add(p_wide, u_wide)
    else:
      total = p_wide + u_wide
    return dtypes.cast(total, p.dtype)

  try:
    return jax.tree_util.tree_map_with_path(
        apply_leaf, params, updates, is_leaf=_is_none)
  except ValueError as e:
    difference = tree_structure.structure_difference(
        params, updates, is_leaf=_is_none)
    if difference is None:
      raise
    raise ValueError(
        'apply_updates: params and updates have different structures,'
        f' {difference} (params != updates).') from e


def incremental_update(
    new_tensors: base.Params,
    old_tensors: base.Params,
    step_size: base.Numeric,
) -> base.Params:
  r"""Moves old tensors toward new ones (Polyak averaging).

  .. math::
    \theta_{\text{old}} \leftarrow \tau\, \theta_{\text{new}}
      + (1 - \tau)\, \theta_{\text{old}}

  ``step_size`` is turned into an array of
  :func:`optax._src.hyperparameters.hyperparameter_dtype` before
  ``1 - step_size`` is derived; each result has the dtype of the old tensor.

  Examples:
    >>> import jax.numpy as jnp
    >>> import optax
    >>> optax.incremental_update(
    ...     {'w': jnp.array([1.0])}, {'w': jnp.array([3.0])}, 0.25)
    {'w': Array([2.5], dtype=float32)}

  Args:
    new_tensors: the latest values, e.g. the online network's params.
    old_tensors: the averaged values, e.g. a target network's params.
    step_size: :math:`\tau \in [0, 1]`, the weight of the new values.

  Returns:
    The updated ``old_tensors``.

  References:
    Polyak and Juditsky, `Acceleration of stochastic approximation by
    averaging <https://doi.org/10.1137/0330046>`_, 1992.
  """
  step_size = hyperparameters.as_hyperparameter(step_size)
  one_minus = 1 - step_size

  def leaf_update(new, old):
    if new is None:
      return None
    new, old = jnp.asarray(new), jnp.asarray(old)
    dtype = _result_type(new.dtype, old.dtype, step_size.dtype)
    result = (step_size.astype(dtype) * new.astype(dtype)
              + one_minus.astype(dtype) * old.astype(dtype))
    return result.astype(old.dtype)

  return jax.tree.map(leaf_update, new_tensors, old_tensors, is_leaf=_is_none)


def periodic_update(
    new_tensors: base.Params,
    old_tensors: base.Params,
    steps: base.Numeric,
    update_period: int,
) -> base.Params:
  """Returns the new tensors every ``update_period`` steps, else the old.

  The new tensors are taken when ``steps % update_period == 0``; each result
  has the dtype of the old tensor.

  Examples:
    >>> import jax.numpy as jnp
    >>> import optax
    >>> new, old = {'w': jnp.array([1.0])}, {'w': jnp.array([3.0])}
    >>> optax.periodic_update(new, old, jnp.asarray(4), 2)
    {'w': Array([1.], dtype=float32)}
    >>> optax.periodic_update(new, old, jnp.asarray(5), 2)
    {'w': Array([3.], dtype=float32)}

  Args:
    new_tensors: the latest values, e.g. the online network's params.
    old_tensors: the periodically refreshed values, e.g. a target network.
    steps: the current step (an integer, possibly traced).
    update_period: the period, a positive int.

  Returns:
    ``new_tensors`` or ``old_tensors``.
  """
  take_new = jnp.mod(steps, update_period) == 0

  def leaf_select(new, old):
    if new is None:
      return None
    old = jnp.asarray(old)
    return jnp.where(take_new, jnp.asarray(new).astype(old.dtype), old)

  return jax.tree.map(leaf_select, new_tensors, old_tensors, is_leaf=_is_none)
