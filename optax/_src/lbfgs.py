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
"""L-BFGS preconditioning: the circular memory and the two-loop recursion.

Upstream Optax defines :func:`scale_by_lbfgs`, its state and
:func:`_precondition_by_lbfgs` in ``optax._src.transform``, which re-exports
them and gives the public ones that ``__module__`` so that pickles name the
same module.
"""

from typing import NamedTuple

import jax
import jax.numpy as jnp

from optax import tree_utils as otu
from optax._src import base
from optax._src import dtypes
from optax._src import hyperparameters
from optax._src import numerics
from optax._src import prepared_inputs
from optax._src import tree_structure
from optax._src import validation
from optax.tree_utils import _tree_math


class ScaleByLBFGSState(NamedTuple):
  """State of :func:`scale_by_lbfgs`.

  Attributes:
    count: int32 scalar, the number of updates done so far.
    params: the params at the previous update, shaped like the params.
    updates: the (unpreconditioned) updates of the previous call, shaped
      like the params.
    diff_params_memory: for each leaf, an array of shape
      ``(memory_size, *leaf.shape)``: the circular buffer of the last param
      differences :math:`s_k = x_{k+1} - x_k`.
    diff_updates_memory: like ``diff_params_memory`` for the update
      (gradient) differences :math:`y_k = g_{k+1} - g_k`.
    weights_memory: shape ``(memory_size,)``, the weights
      :math:`\\rho_k = 1 / \\langle s_k, y_k \\rangle` (0 for empty slots).
  """

  count: jax.Array
  params: base.Params
  updates: base.Params
  diff_params_memory: base.Params
  diff_updates_memory: base.Params
  weights_memory: jax.Array


def _precondition_by_lbfgs(
    updates: base.Updates,
    diff_params_memory: base.Params,
    diff_updates_memory: base.Params,
    weights_memory: jax.Array,
    identity_scale: base.Numeric,
    memory_idx: base.Numeric,
) -> base.Updates:
  r"""Multiplies updates by the L-BFGS inverse-Hessian approximation.

  The classic two-loop recursion (Nocedal and Wright, Algorithm 7.4) over a
  circular memory: entry ``memory_idx`` is the oldest pair, then
  ``memory_idx + 1``, ... (modulo the memory size) up to the newest. The
  implicit matrix is built from :math:`H_0 = \gamma I` (:math:`\gamma` =
  ``identity_scale``) by the BFGS updates
  :math:`H \leftarrow (I - \rho s y^\top) H (I - \rho y s^\top)
  + \rho s s^\top`, applied from the oldest to the newest pair. Empty slots
  (zero weight and zero vectors) leave it unchanged.

  Args:
    updates: the tree :math:`g` to precondition.
    diff_params_memory: tree of stacked param differences :math:`s_i`
      (leading axis of size ``memory_size``).
    diff_updates_memory: tree of stacked update differences :math:`y_i`.
    weights_memory: the weights :math:`\rho_i`, shape ``(memory_size,)``.
    identity_scale: the scale :math:`\gamma` of the initial matrix.
    memory_idx: the index of the oldest pair in the circular memory.

  Returns:
    The tree :math:`H g`, with the dtypes of ``updates``.
  """
  memory_size = weights_memory.shape[0]
  order = (memory_idx + jnp.arange(memory_size)) % memory_size

  def pair(idx):
    s = jax.tree.map(lambda x: x[idx], diff_params_memory)
    y = jax.tree.map(lambda x: x[idx], diff_updates_memory)
    return s, y

  def axpy(vec, a, x):
    def leaf(v, xi):
      v_, a_, xi = dtypes.lift(v, a, xi)
      return (v_ + a_ * xi).astype(v.dtype)
    return jax.tree.map(leaf, vec, x)

  def weighted_dot(idx, a, b):
    dot = _tree_math.real_vdot(a, b, weights_memory.dtype)
    return weights_memory[idx] * dot

  def backward(vec, idx):
    s, y = pair(idx)
    alpha = weighted_dot(idx, s, vec).astype(weights_memory.dtype)
    return axpy(vec, -alpha, y), alpha

  vec, alphas = jax.lax.scan(backward, updates, order, reverse=True)
  gamma = jnp.asarray(identity_scale)
  vec = jax.tree.map(
      lambda v: jnp.multiply(*dtypes.lift(gamma, v)).astype(v.dtype), vec)

  def forward(vec, idx_alpha):
    idx, alpha = idx_alpha
    s, y = pair(idx)
    beta = weighted_dot(idx, y, vec).astype(weights_memory.dtype)
    return axpy(vec, alpha - beta, s), None

  vec, _ = jax.lax.scan(forward, vec, (order, alphas))
  return vec


def scale_by_lbfgs(
    memory_size: int = 10,
    scale_init_precond: bool = True,
) -> base.GradientTransformation:
  r"""Preconditions updates by the L-BFGS approximation of the inverse Hessian.

  The transformation keeps the last ``memory_size`` pairs
  :math:`s_k = x_{k+1} - x_k`, :math:`y_k = g_{k+1} - g_k` and returns
  :math:`H_k g_k` computed by the two-loop recursion (see
  :func:`_precondition_by_lbfgs`). The initial matrix is :math:`\gamma I`
  with, when ``scale_init_precond`` is true,
  :math:`\gamma = \langle s, y \rangle / \|y\|^2` for the newest pair, and
  :math:`\gamma = \min(1, 1 / \|g_0\|)` at the first step (1 when the
  option is off).

  Chain it with ``scale_by_learning_rate`` and, usually, a line search
  (``optax.lbfgs`` does both).

  Args:
    memory_size: the number of pairs kept (at least 1).
    scale_init_precond: whether to scale the initial matrix as above.

  Returns:
    A ``GradientTransformation`` whose state is a ``ScaleByLBFGSState``;
    ``update`` needs ``params``.

  Raises:
    ValueError: if ``memory_size < 1``, and in ``update`` when ``params`` is
      None.

  Examples:
    >>> import jax.numpy as jnp
    >>> from optax._src import transform
    >>> tx = transform.scale_by_lbfgs(scale_init_precond=False)
    >>> params = jnp.array([1.0, 2.0])
    >>> updates, _ = tx.update(jnp.array([0.5, -1.0]), tx.init(params), params)
    >>> updates
    Array([ 0.5, -1. ], dtype=float32)

  References:
    Nocedal and Wright, `Numerical Optimization
    <https://doi.org/10.1007/978-0-387-40065-5>`_, 2nd edition, 2006
    (Algorithms 7.4 and 7.5).

    Liu and Nocedal, `On the limited memory BFGS method for large scale
    optimization <https://doi.org/10.1007/BF01589116>`_, 1989.
  """
  fn = 'scale_by_lbfgs'
  if (not hyperparameters.is_number(memory_size, integral=True)
      or memory_size < 1):
    raise ValueError(
        f'{fn}: memory_size must be an integer >= 1, got {memory_size!r}')

  def init_fn(params):
    def stacked():  # A fresh buffer each: the state can be donated.
      return jax.tree.map(
          lambda p: jnp.broadcast_to(jnp.zeros_like(p),
                                     (memory_size,) + tuple(p.shape)), params)

    return ScaleByLBFGSState(
        count=jnp.zeros([], jnp.int32),
        params=otu.tree_zeros_like(params),
        updates=otu.tree_zeros_like(params),
        diff_params_memory=stacked(),
        diff_updates_memory=stacked(),
        weights_memory=jnp.zeros([memory_size],
                                 hyperparameters.hyperparameter_dtype()))

  def update_fn(updates, state, params=None):
    tree_structure.check_like_updates(fn, updates, state.updates)
    validation.require_params(fn, params)
    count = state.count
    started = count > 0
    memory_idx = count % memory_size
    prev_idx = (count - 1) % memory_size
    diff_params = jax.tree.map(
        lambda p, q: jnp.where(started, p - q.astype(p.dtype),
                               jnp.zeros_like(p)),
        params, state.params)
    diff_updates = jax.tree.map(
        lambda g, h: jnp.where(started, g - h.astype(g.dtype),
                               jnp.zeros_like(g)),
        updates, state.updates)
    w_dtype = state.weights_memory.dtype
    curvature = _tree_math.real_vdot(diff_updates, diff_params, w_dtype)
    safe_curvature = jnp.where(curvature == 0, 1, curvature)
    weight = jnp.where(curvature == 0, 0, 1 / safe_curvature)
    diff_params_memory = jax.tree.map(
        lambda mem, d: mem.at[prev_idx].set(d.astype(mem.dtype)),
        state.diff_params_memory, diff_params)
    diff_updates_memory = jax.tree.map(
        lambda mem, d: mem.at[prev_idx].set(d.astype(mem.dtype)),
        state.diff_updates_memory, diff_updates)
    weights_memory = state.weights_memory.at[prev_idx].set(weight)
    if scale_init_precond:
      sq_norm = otu.tree_norm(diff_updates, squared=True).astype(w_dtype)
      ratio = curvature / jnp.where(sq_norm > 0, sq_norm, 1)
      later = jnp.where(sq_norm > 0, ratio, 1)
      grad_norm = otu.tree_norm(updates).astype(w_dtype)
      first = jnp.minimum(1, 1 / grad_norm)
      identity_scale = jnp.where(started, later, first)
    else:
      identity_scale = jnp.ones([], w_dtype)
    new_updates = _precondition_by_lbfgs(
        updates, diff_params_memory, diff_updates_memory, weights_memory,
        identity_scale, memory_idx)
    new_state = ScaleByLBFGSState(
        count=numerics.safe_increment(count),
        params=jax.tree.map(lambda p, q: p.astype(q.dtype), params,
                            state.params),
        updates=jax.tree.map(lambda g, h: g.astype(h.dtype), updates,
                             state.updates),
        diff_params_memory=diff_params_memory,
        diff_updates_memory=diff_updates_memory,
        weights_memory=weights_memory)
    return new_updates, new_state

  return prepared_inputs.with_prepared_inputs(
      fn, base.GradientTransformation(init_fn, update_fn))
