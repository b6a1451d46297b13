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
"""GaLore: gradient low-rank projection (Zhao et al., 2024).

The gradient of each weight matrix is projected on a subspace of rank
:math:`r` spanned by its top singular vectors (recomputed every
``update_proj_gap`` steps), a base optimizer runs in that subspace (so its
state is small), and its update is projected back.
"""

from typing import Any, Callable, NamedTuple, Optional, Sequence, Union

import jax
from jax import lax
import jax.numpy as jnp

from optax._src import arguments
from optax._src import base
from optax._src import hyperparameters
from optax._src import numerics
from optax._src import prepared_inputs
from optax._src import transform
from optax._src import validation
from optax.contrib import _matrix_helpers
from optax.transforms import _adding
from optax.transforms import _combining


class GaLoreDimensionNumbers(NamedTuple):
  """How a tensor is viewed as a matrix by GaLore.

  The axes of ``reduction_axis`` are flattened into the rows, those of
  ``output_axis`` into the columns; together they must name every axis.

  Attributes:
    reduction_axis: an axis, or a sequence of axes, forming the rows.
    output_axis: an axis, or a sequence of axes, forming the columns.
  """

  reduction_axis: Union[Sequence[int], int] = 0
  output_axis: Union[Sequence[int], int] = 1


class GaLoreState(NamedTuple):
  """State of :func:`scale_by_galore`.

  Attributes:
    count: int32 scalar, the number of updates done so far.
    base_optimizer_state: the state of the base optimizer, for the projected
      gradients (shape ``(m, r)`` or ``(r, n)`` for an ``(m, n)`` matrix) and
      the other leaves (their own shape).
    projector: for each matrix, the ``(max(m, n), r)`` matrix of singular
      vectors projecting its larger dimension, in the params' dtype; for the
      other leaves an empty ``(0, 0)`` array.
  """

  count: jax.Array
  base_optimizer_state: base.OptState
  projector: base.Params


DimNums = Union[GaLoreDimensionNumbers, Any, Callable[[base.Params], Any],
                None]


def _default_dim_nums(x: Any) -> Optional[GaLoreDimensionNumbers]:
  return GaLoreDimensionNumbers() if len(x.shape) == 2 else None


def _compute_galore_reshape(
    x: jax.Array, dim_nums: GaLoreDimensionNumbers
) -> tuple[Callable[[jax.Array], jax.Array], Callable[[jax.Array],
                                                     jax.Array]]:
  """Functions viewing ``x`` as a matrix ``(fan_in, fan_out)``, and back.

  Args:
    x: an array (or anything with a ``shape``).
    dim_nums: which axes form the rows and the columns; every axis of ``x``
      must be named.

  Returns:
    ``(reshape_fn, inverse_fn)``.

  Raises:
    ValueError: if the axes are invalid or do not cover every axis.
  """
  reduction, output = _matrix_helpers.normalize_axes(x, dim_nums)
  if len(reduction) + len(output) != len(x.shape):
    raise ValueError(
        f'GaLoreDimensionNumbers: every axis must be a reduction or an'
        f' output axis, got {dim_nums} for a tensor of shape'
        f' {tuple(x.shape)}')
  to_matrices, from_matrices = _matrix_helpers.matrix_reshape(x, dim_nums)
  return (lambda y: to_matrices(y)[0],
          lambda y: from_matrices(y[None]))


class _Plan(NamedTuple):
  """How one leaf is projected (``rank`` 0 for a leaf left alone)."""

  dim_nums: Optional[GaLoreDimensionNumbers]
  rows: int
  cols: int
  rank: int

  @property
  def right(self) -> bool:
    """Whether the columns (rather than the rows) are projected."""
    return self.rows < self.cols

  @property
  def projector_shape(self) -> tuple[int, int]:
    """The shape of the projector (empty for a leaf left alone)."""
    if self.dim_nums is None:
      return (0, 0)
    return (max(self.rows, self.cols), self.rank)

  @property
  def low_rank_shape(self) -> tuple[int, int]:
    """The shape of the projected gradient."""
    return ((self.rows, self.rank) if self.right
            else (self.rank, self.cols))


def _plans(fn: str, spec: DimNums, tree: Any, rank: int) -> list[_Plan]:
  if isinstance(spec, GaLoreDimensionNumbers):
    # One for every leaf means every leaf of rank 2 or more, as upstream.
    single = spec
    spec = jax.tree.map(lambda x: single if len(x.shape) >= 2 else None, tree)
  dims = _matrix_helpers.leafwise_dim_nums(
      fn, spec, tree, dims_type=GaLoreDimensionNumbers,
      default=_default_dim_nums)
  plans = []
  for x, d in zip(jax.tree.leaves(tree), dims):
    if d is None:
      plans.append(_Plan(None, 0, 0, 0))
      continue
    _compute_galore_reshape(x, d)  # Checks the axes.
    rows, cols = _matrix_helpers.fan_in_out(x, d)
    plans.append(_Plan(d, rows, cols, min(rank, rows, cols)))
  return plans


def _positive_int(fn: str, name: str, value: Any) -> None:
  """The rule of ``rank`` and ``update_proj_gap``: they fix shapes."""
  if not hyperparameters.is_number(value, integral=True):
    # A TypeError, as upstream's for rank.
    raise TypeError(f'{validation.called(fn)}: {name} must be a positive'
                    f' integer, got {value!r} of type {type(value).__name__}')
  validation.check_positive_int(fn, name, value)


@arguments.declare(rank=_positive_int, update_proj_gap=_positive_int,
                   scale=arguments.scalar_or_schedule)
def scale_by_galore(
    rank: int = 128,
    update_proj_gap: int = 200,
    scale: float = 1.0,
    base_optimizer: Optional[base.GradientTransformation] = None,
    weight_dimension_numbers: DimNums = None,
) -> base.GradientTransformationExtraArgs:
  r"""Runs a base optimizer on low-rank projections of the gradients.

  For a matrix gradient :math:`G \in \mathbb{R}^{m \times n}` with
  :math:`m < n`, let :math:`Q \in \mathbb{R}^{n \times r}` hold its top
  :math:`r` right singular vectors; otherwise let :math:`P \in
  \mathbb{R}^{m \times r}` hold the left ones (:math:`r = \min(\mathrm{rank},
  m, n)`). The projector is recomputed from the gradient (by SVD) at steps
  :math:`0, T, 2T, \dots` (:math:`T` = ``update_proj_gap``) and kept in
  between. Then

  .. math::

    R = G Q \text{ or } P^T G, \qquad N = \mathrm{base}(R), \qquad
    u = \alpha\, N Q^T \text{ or } \alpha\, P N,

  with :math:`\alpha` = ``scale``. Leaves without dimension numbers (by
  default, those that are not matrices) are updated by the base optimizer
  directly (not scaled). The base optimizer gets no params, as its updates
  live in the low-rank space: use :func:`galore`'s ``weight_decay``.

  Args:
    rank: the rank :math:`r` of the projection (capped at the matrix's
      smaller dimension).
    update_proj_gap: the number of steps :math:`T` between SVDs.
    scale: the factor :math:`\alpha` of the projected-back updates.
    base_optimizer: the optimizer of the projected gradients; ``None`` uses
      :func:`optax.scale_by_adam`.
    weight_dimension_numbers: ``None`` (matrices are projected, other
      leaves are not), a :class:`GaLoreDimensionNumbers` for every leaf of
      rank two or more (the others are not projected), a tree of them and
      of ``None`` (not projected) with the structure of the params (or a
      prefix of it), or a function of the params returning one.

  Returns:
    A ``GradientTransformationExtraArgs`` whose state is a
    :class:`GaLoreState`; extra arguments of ``update`` go to the base
    optimizer.

  Raises:
    TypeError: if ``rank`` or ``update_proj_gap`` is not an integer or
      ``scale`` is not a scalar.
    ValueError: if ``rank`` or ``update_proj_gap`` is not positive; in
      ``init``, for dimension numbers that do not name every axis of their
      leaf.

  Examples:
    >>> import jax.numpy as jnp
    >>> import optax
    >>> tx = optax.contrib.scale_by_galore(rank=1)
    >>> params = {'w': jnp.zeros((2, 3)), 'b': jnp.zeros(3)}
    >>> state = tx.init(params)
    >>> state.projector['w'].shape, state.base_optimizer_state.mu['w'].shape
    ((3, 1), (2, 1))
    >>> grads = {'w': jnp.array([[1.0, 0.0, 0.0], [0.0, 0.1, 0.0]]),
    ...          'b': jnp.ones(3)}
    >>> updates, state = tx.update(grads, state)
    >>> print(jnp.abs(updates['w']).round(2))  # Rank one: the top direction.
    [[1. 0. 0.]
     [0. 0. 0.]]

  References:
    Zhao et al., `GaLore: Memory-Efficient LLM Training by Gradient
    Low-Rank Projection <https://arxiv.org/abs/2403.03507>`_, 2024.
  """
  fn = 'scale_by_galore'
  if base_optimizer is None:
    base_optimizer = transform.scale_by_adam()
  base_optimizer = base.with_extra_args_support(base_optimizer)

  def init_fn(params):
    leaves, treedef = jax.tree.flatten(params)
    plans = _plans(fn, weight_dimension_numbers, params, rank)
    low_rank = [p if plan.dim_nums is None
                else jnp.zeros(plan.low_rank_shape, p.dtype)
                for p, plan in zip(leaves, plans)]
    projector = [jnp.zeros(plan.projector_shape, p.dtype)
                 for p, plan in zip(leaves, plans)]
    return GaLoreState(
        count=jnp.zeros([], jnp.int32),
        base_optimizer_state=base_optimizer.init(
            jax.tree.unflatten(treedef, low_rank)),
        projector=jax.tree.unflatten(treedef, projector),
    )

  def update_fn(updates, state, params=None, **extra_args):
    del params
    leaves, treedef = jax.tree.flatten(updates)
    plans = _plans(fn, weight_dimension_numbers, updates, rank)
    old_projectors = treedef.flatten_up_to(state.projector)
    projected = [i for i, plan in enumerate(plans)
                 if plan.dim_nums is not None]
    # Each matrix gradient, whole (gathered if sharded) and 2-D.
    matrices, shardings = {}, {}
    for i in projected:
      g, shardings[i] = _matrix_helpers.gather(leaves[i])
      matrices[i] = _compute_galore_reshape(g, plans[i].dim_nums)[0](g)

    def fresh_projectors(_):
      fresh = []
      for i in projected:
        m, plan = matrices[i], plans[i]
        dtype = jnp.promote_types(m.dtype,
                                  hyperparameters.hyperparameter_dtype())
        u, _, vt = jnp.linalg.svd(m.astype(dtype), full_matrices=False)
        p = vt[:plan.rank].T if plan.right else u[:, :plan.rank]
        fresh.append(p.astype(old_projectors[i].dtype))
      return fresh

    def kept_projectors(_):
      return [old_projectors[i] for i in projected]

    refresh = state.count % update_proj_gap == 0
    projectors = dict(zip(projected, lax.cond(
        refresh, fresh_projectors, kept_projectors, None)))

    low_rank = list(leaves)
    for i in projected:
      m, p = matrices[i], projectors[i]
      dtype = jnp.promote_types(m.dtype, p.dtype)
      r = m.astype(dtype) @ p.astype(dtype) if plans[i].right else (
          p.astype(dtype).T @ m.astype(dtype))
      low_rank[i] = r.astype(leaves[i].dtype)
    base_updates, base_state = base_optimizer.update(
        jax.tree.unflatten(treedef, low_rank), state.base_optimizer_state,
        None, **extra_args)

    new_leaves = treedef.flatten_up_to(base_updates)
    for i in projected:
      n, p, g = new_leaves[i], projectors[i], leaves[i]
      dtype = jnp.promote_types(jnp.promote_types(n.dtype, p.dtype),
                                hyperparameters.hyperparameter_dtype())
      n, p = n.astype(dtype), p.astype(dtype)
      back = n @ p.T if plans[i].right else p @ n
      back = hyperparameters.as_hyperparameter(scale).astype(dtype) * back
      inverse_fn = _compute_galore_reshape(g, plans[i].dim_nums)[1]
      new_leaves[i] = _matrix_helpers.scatter(
          inverse_fn(back), shardings[i]).astype(g.dtype)
    new_projector = list(old_projectors)
    for i in projected:
      new_projector[i] = projectors[i]
    return jax.tree.unflatten(treedef, new_leaves), GaLoreState(
        count=numerics.safe_increment(state.count),
        base_optimizer_state=base_state,
        projector=jax.tree.unflatten(treedef, new_projector),
    )

  return prepared_inputs.with_prepared_inputs(
      'scale_by_galore',
      base.GradientTransformationExtraArgs(init_fn, update_fn))


@arguments.declare()
def galore(
    learning_rate: base.ScalarOrSchedule,
    rank: int = 128,
    update_proj_gap: int = 200,
    scale: float = 1.0,
    base_optimizer: Optional[base.GradientTransformation] = None,
    weight_decay: base.ScalarOrSchedule = 0.0,
    mask: base.MaskOrFn = None,
    weight_dimension_numbers: DimNums = None,
) -> base.GradientTransformationExtraArgs:
  r"""GaLore: a base optimizer (Adam) on low-rank gradient projections.

  :func:`scale_by_galore`, then decoupled weight decay and the learning
  rate:

  .. math::

    u_t = -\eta_t \left(\mathrm{galore}(g_t) + \lambda \theta_t\right).

  Args:
    learning_rate: the learning rate :math:`\eta`, a number or a schedule.
    rank: the rank of the projections.
    update_proj_gap: the number of steps between recomputations of the
      projectors.
    scale: the factor of the projected-back updates.
    base_optimizer: the optimizer of the projected gradients; ``None`` uses
      :func:`optax.scale_by_adam`.
    weight_decay: the decoupled weight decay :math:`\lambda`.
    mask: a tree of booleans (or a function of the params returning one)
      selecting the params to decay.
    weight_dimension_numbers: which leaves are projected and how, see
      :func:`scale_by_galore`.

  Returns:
    A ``GradientTransformationExtraArgs``; its ``update`` requires
    ``params`` when a weight decay is used.

  Examples:
    >>> import jax
    >>> import jax.numpy as jnp
    >>> import optax
    >>> params = {'w': jnp.ones((4, 3)), 'b': jnp.zeros(3)}
    >>> tx = optax.contrib.galore(learning_rate=0.1, rank=2)
    >>> state = tx.init(params)
    >>> loss = lambda p: jnp.sum(p['w'] ** 2) + jnp.sum((p['b'] - 1) ** 2)
    >>> for _ in range(100):
    ...   updates, state = tx.update(jax.grad(loss)(params), state, params)
    ...   params = jax.tree.map(lambda p, u: p + u, params, updates)
    >>> print(float(loss(params)) < 0.05)
    True

  References:
    Zhao et al., `GaLore: Memory-Efficient LLM Training by Gradient
    Low-Rank Projection <https://arxiv.org/abs/2403.03507>`_, 2024.
  """
  return _combining.chain(
      scale_by_galore(rank=rank, update_proj_gap=update_proj_gap,
                      scale=scale, base_optimizer=base_optimizer,
                      weight_dimension_numbers=weight_dimension_numbers),
      _adding.add_decayed_weights(weight_decay, mask),
      transform.scale_by_learning_rate(learning_rate),
  )
