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
"""Factored second-moment estimates: the preconditioner of Adafactor."""

from collections.abc import Callable
from typing import Any, NamedTuple, Optional

import jax
import jax.numpy as jnp
import numpy as np

from optax._src import arguments
from optax._src import base
from optax._src import dtypes
from optax._src import hyperparameters
from optax._src import numerics
from optax._src import prepared_inputs
from optax._src import tree_structure
from optax._src import utils


def _decay_rate_pow(i: jax.Array, exponent: base.Numeric = 0.8) -> jax.Array:
  """The default decay schedule of Adafactor, ``1 - (i + 1) ** -exponent``."""
  dtype = hyperparameters.hyperparameter_dtype()
  t = jnp.asarray(i, dtype) + 1.0
  return 1.0 - t ** (-jnp.asarray(exponent, dtype))


def _factored_dims(
    shape: base.Shape, factored: bool, min_dim_size_to_factor: int
) -> Optional[tuple[int, int]]:
  """The two axes along which a leaf of this shape is factored, if any.

  Args:
    shape: the shape of the leaf.
    factored: whether factoring is enabled at all.
    min_dim_size_to_factor: the second largest axis must be at least this
      long for the leaf to be factored.

  Returns:
    ``None`` if the leaf keeps a full second moment, else ``(d1, d0)``: the
    second largest and the largest axis (the last such one on ties).
  """
  if not factored or len(shape) < 2:
    return None
  order = np.argsort(shape, kind='stable')
  if shape[order[-2]] < min_dim_size_to_factor:
    return None
  return int(order[-2]), int(order[-1])


class FactoredState(NamedTuple):
  """State of :func:`scale_by_factored_rms`.

  Attributes:
    count: the number of updates taken, an int32 scalar.
    v_row: for each factored leaf, the running mean of the squared gradient
      over its largest axis (that axis removed from the shape); a
      placeholder of shape ``(1,)`` for the other leaves.
    v_col: for each factored leaf, the running mean over its second largest
      axis (that axis removed); a ``(1,)`` placeholder otherwise.
    v: for each leaf that is not factored, the running mean of the squared
      gradient (the shape of the leaf); a ``(1,)`` placeholder otherwise.
  """
  count: jax.Array
  v_row: base.Updates
  v_col: base.Updates
  v: base.Updates


def _check_state_matches(init_fn: Any, updates: Any, state: Any) -> None:
  """Raises a ValueError if ``state`` was not built for updates like these.

  Compares (at trace time) the state's structure and shapes with those that
  ``init`` gives for params shaped like ``updates``.

  Args:
    init_fn: the transformation's init function.
    updates: the updates given to ``update``.
    state: the state given to ``update``.

  Raises:
    ValueError: naming the key path of the first state leaf that differs.
  """
  fn = 'scale_by_factored_rms'
  remedy = ('The optimizer state was built by init for other params; build'
            ' it with params shaped like the gradients.')
  expected = jax.eval_shape(init_fn, updates)
  difference = tree_structure.structure_difference(state, expected)
  if difference is not None:
    raise ValueError(f'{fn}: the optimizer state does not match the updates:'
                     f' {difference} (state != expected). {remedy}')
  for (path, leaf), want in zip(jax.tree_util.tree_leaves_with_path(state),
                                jax.tree.leaves(expected)):
    if jnp.shape(leaf) != want.shape:
      raise ValueError(
          f'{fn}: the state leaf at {jax.tree_util.keystr(path)} has shape'
          f' {jnp.shape(leaf)}, but updates like these need {want.shape}.'
          f' {remedy}')


@arguments.declare(
    min_dim_size_to_factor=arguments.non_negative,
    epsilon=(arguments.non_negative, arguments.scalar_or_schedule),
    decay_rate=arguments.scalar_or_schedule)
def scale_by_factored_rms(
    factored: bool = True,
    decay_rate: float = 0.8,
    step_offset: int = 0,
    min_dim_size_to_factor: int = 128,
    epsilon: float = 1e-30,
    decay_rate_fn: Callable[[int, float], base.Numeric] = _decay_rate_pow,
) -> base.GradientTransformation:
  r"""Scales updates by a factored estimate of their root mean square.

  For a matrix gradient :math:`G_t` of shape :math:`(n, m)`, with
  :math:`\beta_t` = ``decay_rate_fn(max(t - step_offset, 0), decay_rate)``
  (by default :math:`1 - (t + 1)^{-0.8}`, which is 0 at the first step) and
  :math:`S_t = G_t^2 + \epsilon`,

  .. math::

    R_t &= \beta_t R_{t-1} + (1 - \beta_t)\, \mathrm{mean}_{\text{cols}}
      S_t \\
    C_t &= \beta_t C_{t-1} + (1 - \beta_t)\, \mathrm{mean}_{\text{rows}}
      S_t \\
    U_t &= G_t \,/\, \sqrt{(R_t / \mathrm{mean}(R_t)) \otimes C_t}

  so only :math:`n + m` statistics are kept instead of :math:`n m`. For
  higher-rank leaves the two largest axes play the role of rows and
  columns. Leaves of rank below 2, or whose second largest axis is shorter
  than ``min_dim_size_to_factor``, keep a full running mean
  :math:`V_t = \beta_t V_{t-1} + (1 - \beta_t) S_t` and get
  :math:`U_t = G_t / \sqrt{V_t}`.

  Examples:
    >>> import jax.numpy as jnp
    >>> from optax._src import factorized
    >>> tx = factorized.scale_by_factored_rms()
    >>> params = jnp.array([1.0, -2.0])
    >>> updates, _ = tx.update(params, tx.init(params))
    >>> print(updates)
    [ 1. -1.]

  Args:
    factored: whether to factor the second moment of eligible leaves.
    decay_rate: the exponent passed to ``decay_rate_fn``.
    step_offset: subtracted from the step count before computing the decay
      (the starting step of fine-tuning, to restart the schedule there);
      steps before it use the decay rate of step 0.
    min_dim_size_to_factor: leaves whose second largest axis is shorter than
      this keep a full second moment.
    epsilon: added to the squared gradient.
    decay_rate_fn: maps ``(step, decay_rate)`` to the decay
      :math:`\beta_t`.

  Returns:
    A :class:`optax.GradientTransformation`.

  References:
    Shazeer and Stern, `Adafactor: adaptive learning rates with sublinear
    memory cost <https://arxiv.org/abs/1804.04235>`_, 2018.
  """
  def dims_of(leaf):
    return _factored_dims(leaf.shape, factored, min_dim_size_to_factor)

  def init_fn(params):
    def init_leaf(leaf):
      dims = dims_of(leaf)
      dtype = leaf.dtype

      def placeholder():  # A fresh buffer each: the state can be donated.
        return jnp.zeros((1,), dtype)

      if dims is None:
        return placeholder(), placeholder(), jnp.zeros_like(leaf, dtype)
      d1, d0 = dims
      return (utils.zeros_like_reduced(leaf, d0, dtype),
              utils.zeros_like_reduced(leaf, d1, dtype),
              placeholder())

    leaves, treedef = jax.tree.flatten(params)
    inits = [init_leaf(leaf) for leaf in leaves]
    return FactoredState(
        count=jnp.zeros([], jnp.int32),
        v_row=treedef.unflatten([x[0] for x in inits]),
        v_col=treedef.unflatten([x[1] for x in inits]),
        v=treedef.unflatten([x[2] for x in inits]))

  def update_fn(updates, state, params=None):
    del params
    _check_state_matches(init_fn, updates, state)
    hp_dtype = hyperparameters.hyperparameter_dtype()
    # Steps before the offset use the decay rate of local step 0: a negative
    # step raised to -decay_rate would give a decay of -inf or NaN, and NaN
    # statistics for good.
    step = jnp.maximum(state.count - jnp.asarray(step_offset, jnp.int32), 0)
    decay_t = jnp.asarray(decay_rate_fn(step, decay_rate), hp_dtype)
    mixing = 1.0 - decay_t
    eps = hyperparameters.as_hyperparameter(epsilon)

    def update_leaf(grad, v_row, v_col, v):
      dims = dims_of(grad)
      compute_dtype = jnp.promote_types(grad.dtype, hp_dtype)
      # The statistics are real (|g|^2 for complex gradients): a complex
      # state, of the params' dtype, holds them with a zero imaginary part.
      real_dtype = jnp.finfo(compute_dtype).dtype
      g = grad.astype(compute_dtype)
      grad_sq = numerics.abs_sq(g) + eps.astype(real_dtype)
      decay = decay_t.astype(real_dtype)
      mix = mixing.astype(real_dtype)

      def stat(x):
        return x.real.astype(real_dtype)

      # The statistics are computed wide and rounded once when stored; the
      # update reads the stored values, as upstream's does. (Reading the
      # wide ones instead would make XLA:CPU copy a donated bfloat16 ``v``:
      # the update's pass and the in-place write of ``v`` would both read
      # the old ``v``, in no fixed order.)
      # What this step adds, (1 - decay) S, bounds each new statistic from
      # below. A float16 statistic loses it when stored (1e-30, or g ** 2
      # under 6e-8, is 0 there) and g / sqrt(0) is NaN or inf; the update
      # reads the stored value raised back to the bound, which changes
      # nothing where the stored value keeps it (rounding keeps order).
      if dims is None:
        added = mix * grad_sq
        new_v = (decay * stat(v) + added).astype(v.dtype)
        update = g * (dtypes.at_least(stat(new_v), added) ** -0.5).astype(
            compute_dtype)
        # Fresh placeholders rather than the old ones: a jitted step then
        # does not take them as arguments (as upstream's does not).
        return (update.astype(grad.dtype), jnp.zeros_like(v_row),
                jnp.zeros_like(v_col), new_v)
      d1, d0 = dims
      added_row = mix * jnp.mean(grad_sq, axis=d0)
      added_col = mix * jnp.mean(grad_sq, axis=d1)
      new_row = (decay * stat(v_row) + added_row).astype(v_row.dtype)
      new_col = (decay * stat(v_col) + added_col).astype(v_col.dtype)
      # Axis d1 of the leaf, counted in v_row, whose axis d0 is gone.
      row_axis = d1 - 1 if d1 > d0 else d1
      wide_row = dtypes.at_least(stat(new_row), added_row)
      wide_col = dtypes.at_least(stat(new_col), added_col)
      row_mean = jnp.mean(wide_row, axis=row_axis, keepdims=True)
      row_factor = (wide_row / row_mean) ** -0.5
      col_factor = wide_col ** -0.5
      # (g * row) * col, in this order: the rounding of upstream's, and
      # XLA then recomputes the product inside the parameter's pass rather
      # than keep a second leaf-sized temporary alive.
      row_factor = jnp.expand_dims(row_factor, axis=d0).astype(compute_dtype)
      col_factor = jnp.expand_dims(col_factor, axis=d1).astype(compute_dtype)
      update = g * row_factor * col_factor
      return update.astype(grad.dtype), new_row, new_col, jnp.zeros_like(v)

    leaves, treedef = jax.tree.flatten(updates)
    v_rows = treedef.flatten_up_to(state.v_row)
    v_cols = treedef.flatten_up_to(state.v_col)
    vs = treedef.flatten_up_to(state.v)
    results = [update_leaf(*args) for args in zip(leaves, v_rows, v_cols, vs)]
    new_updates = treedef.unflatten([r[0] for r in results])
    new_state = FactoredState(
        count=numerics.safe_increment(state.count),
        v_row=treedef.unflatten([r[1] for r in results]),
        v_col=treedef.unflatten([r[2] for r in results]),
        v=treedef.unflatten([r[3] for r in results]))
    return new_updates, new_state

  return prepared_inputs.with_prepared_inputs(
      'scale_by_factored_rms',
      base.GradientTransformation(init_fn, update_fn))
