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
r"""Euclidean projections onto convex sets (and two spheres).

Each function maps a point :math:`x` (a pytree, seen as one flat vector) to

.. math::

  \mathrm{proj}_C(x) = \arg\min_{y \in C} \tfrac{1}{2} \|y - x\|_2^2 ,

the closest point of the set :math:`C`. They are the building block of
projected gradient descent: ``params = projection(optax.apply_updates(params,
updates))``.

The leaves keep their dtype (integer leaves become floating when the
projection needs it). Everything is jit-able and differentiable (almost
everywhere).
"""

from typing import Any

import jax
import jax.flatten_util
import jax.numpy as jnp

from optax._src import base
from optax import tree_utils as otu


def _is_leaf_value(value: Any) -> bool:
  """Whether ``value`` is a single number or array, not a container."""
  return jax.tree_util.treedef_is_leaf(jax.tree.structure(value))


def _like_tree(value: Any, tree: Any) -> Any:
  """Broadcasts a scalar bound over ``tree``; a pytree bound is kept."""
  if _is_leaf_value(value):
    return jax.tree.map(lambda _: value, tree)
  return value


def _out_dtype(x: Any) -> jnp.dtype:
  """The dtype of a projected leaf: its own, or a float for integers."""
  dtype = jnp.result_type(x)
  if jnp.issubdtype(dtype, jnp.inexact):
    return dtype
  return jnp.result_type(float)


def _compute_dtype(x: Any) -> jnp.dtype:
  """At least float32 (float64 and complex stay as they are)."""
  return jnp.promote_types(_out_dtype(x), jnp.float32)


def _cast_to_out_dtype(new_tree: Any, tree: Any) -> Any:
  """Casts each leaf of ``new_tree`` to :func:`_out_dtype` of ``tree``'s leaf.

  Not ``otu.tree_cast_like``: an integer leaf of ``tree`` gives a float
  result, since these projections (onto simplices, spheres, balls and affine
  sets) are not integer-valued.
  """
  return jax.tree.map(
      lambda y, x: jnp.asarray(y).astype(_out_dtype(x)), new_tree, tree)


def projection_non_negative(tree: base.Params) -> base.Params:
  r"""Projection onto the non-negative orthant.

  .. math::

    \mathrm{proj}(x) = \max(x, 0) \quad \text{(elementwise)}.

  Examples:
    >>> import jax.numpy as jnp
    >>> from optax import projections
    >>> projections.projection_non_negative(jnp.array([1.0, -2.0, 0.5]))
    Array([1. , 0. , 0.5], dtype=float32)

  Args:
    tree: the pytree to project.

  Returns:
    A pytree like ``tree`` (same structure and dtypes).
  """
  return jax.tree.map(jax.nn.relu, tree)


def projection_box(tree: base.Params, lower: Any, upper: Any) -> base.Params:
  r"""Projection onto the box :math:`\{y : l \le y \le u\}`.

  .. math::

    \mathrm{proj}(x) = \min(\max(x, l), u) \quad \text{(elementwise)}.

  Examples:
    >>> import jax.numpy as jnp
    >>> from optax import projections
    >>> projections.projection_box(jnp.array([-2.0, 0.5, 3.0]), 0.0, 1.0)
    Array([0. , 0.5, 1. ], dtype=float32)

  Args:
    tree: the pytree to project.
    lower: the lower bound, a scalar or a pytree like ``tree`` (each leaf
      broadcastable to the matching leaf of ``tree``).
    upper: the upper bound, a scalar or a pytree like ``tree``.

  Returns:
    A pytree like ``tree`` (same structure and dtypes).
  """
  lower = _like_tree(lower, tree)
  upper = _like_tree(upper, tree)
  return jax.tree.map(
      lambda x, l, u: jnp.clip(x, l, u).astype(jnp.result_type(x)),
      tree, lower, upper)


def projection_hypercube(tree: base.Params, scale: Any = 1) -> base.Params:
  r"""Projection onto the hypercube :math:`\{y : 0 \le y \le s\}`.

  Examples:
    >>> import jax.numpy as jnp
    >>> from optax import projections
    >>> projections.projection_hypercube(jnp.array([-2.0, 0.5, 3.0]))
    Array([0. , 0.5, 1. ], dtype=float32)

  Args:
    tree: the pytree to project.
    scale: the side :math:`s` of the cube, a scalar or a pytree like
      ``tree``.

  Returns:
    A pytree like ``tree`` (same structure and dtypes).

  .. seealso:: :func:`projection_box`
  """
  return projection_box(tree, lower=0, upper=scale)


def projection_linf_ball(tree: base.Params, scale: Any = 1) -> base.Params:
  r"""Projection onto the :math:`\ell_\infty` ball of radius ``scale``.

  .. math::

    \mathrm{proj}(x) = \mathrm{clip}(x, -s, s) \quad \text{(elementwise)}.

  Examples:
    >>> import jax.numpy as jnp
    >>> from optax import projections
    >>> projections.projection_linf_ball(jnp.array([-2.0, 0.5, 3.0]))
    Array([-1. ,  0.5,  1. ], dtype=float32)

  Args:
    tree: the pytree to project.
    scale: the radius :math:`s`, a scalar or a pytree like ``tree``.

  Returns:
    A pytree like ``tree`` (same structure and dtypes).

  .. seealso:: :func:`projection_box`
  """
  upper = _like_tree(scale, tree)
  lower = jax.tree.map(lambda s: -s, upper)
  return projection_box(tree, lower=lower, upper=upper)


def _unit_simplex(values: jax.Array) -> jax.Array:
  """Projects a 1-D vector onto the unit simplex (sort-based algorithm)."""
  size = values.shape[0]
  sorted_desc = jnp.sort(values)[::-1]
  cumsum = jnp.cumsum(sorted_desc)
  counts = jnp.arange(1, size + 1)
  # The support has as many entries as there are k with
  # u_k > (sum_{j<=k} u_j - 1) / k.
  in_support = 1.0 / counts + (sorted_desc - cumsum / counts) > 0
  support_size = jnp.count_nonzero(in_support)
  return jax.nn.relu(
      1.0 / support_size + (values - cumsum[support_size - 1] / support_size))


def _flat_simplex(tree: Any, scale: Any) -> Any:
  """Projects the flattened ``tree`` onto ``scale`` times the simplex."""
  compute_tree = jax.tree.map(
      lambda x: jnp.asarray(x, _compute_dtype(x)), tree)
  flat, unravel = jax.flatten_util.ravel_pytree(compute_tree)
  if flat.size == 0:
    return tree
  projected = scale * _unit_simplex(flat / scale)
  return _cast_to_out_dtype(unravel(projected.astype(flat.dtype)), tree)


def projection_simplex(tree: base.Params, scale: Any = 1) -> base.Params:
  r"""Projection onto the simplex of total mass ``scale``.

  .. math::

    \mathrm{proj}(x) = \arg\min_{y} \|y - x\|_2 \quad \text{s.t.} \quad
    y \ge 0, \ \textstyle\sum_i y_i = s .

  The solution is :math:`y = \max(x - \tau, 0)` where the threshold
  :math:`\tau` is found by sorting :math:`x` (Held et al., 1974; Michelot,
  1986; Duchi et al., 2008). All the leaves of ``tree`` together form the
  vector :math:`x`.

  Examples:
    >>> import jax.numpy as jnp
    >>> from optax import projections
    >>> projections.projection_simplex(jnp.array([0.5, 1.0, -1.0]))
    Array([0.25, 0.75, 0.  ], dtype=float32)

  Args:
    tree: the pytree to project.
    scale: the total mass :math:`s > 0` of the simplex.

  Returns:
    A pytree like ``tree`` whose entries are non-negative and sum to
    ``scale``.

  References:
    Duchi et al., `Efficient Projections onto the l1-Ball for Learning in
    High Dimensions <https://dl.acm.org/doi/10.1145/1390156.1390191>`_, 2008

    Condat, `Fast projection onto the simplex and the l1 ball
    <https://doi.org/10.1007/s10107-015-0946-6>`_, 2016
  """
  return _flat_simplex(tree, scale)


def projection_l1_sphere(tree: base.Params, scale: Any = 1) -> base.Params:
  r"""Projection onto the :math:`\ell_1` sphere of radius ``scale``.

  .. math::

    \mathrm{proj}(x) = \sigma(x) \odot
    \mathrm{proj}_{\Delta_s}(|x|),

  where :math:`\Delta_s` is the simplex of mass :math:`s` and
  :math:`\sigma(x)_i` is :math:`-1` where :math:`x_i < 0` and :math:`1`
  elsewhere: with :math:`u = |y|` the problem is the projection of
  :math:`|x|` onto :math:`\Delta_s`, and an entry :math:`x_i = 0` of a point
  inside the ball receives mass :math:`u_i > 0` (either sign is a closest
  point; the positive one is returned). The origin goes to :math:`s / n` in
  each of its :math:`n` entries.

  Examples:
    >>> import jax.numpy as jnp
    >>> from optax import projections
    >>> projections.projection_l1_sphere(jnp.array([0.5, -1.0, 0.0]))
    Array([ 0.25, -0.75,  0.  ], dtype=float32)
    >>> projections.projection_l1_sphere(jnp.array([0.5, 0.0]))
    Array([0.75, 0.25], dtype=float32)

  Args:
    tree: the pytree to project.
    scale: the radius :math:`s > 0`.

  Returns:
    A pytree like ``tree`` with :math:`\ell_1` norm ``scale``.

  .. seealso:: :func:`projection_simplex`
  """
  abs_tree = jax.tree.map(jnp.abs, tree)
  projected = _flat_simplex(abs_tree, scale)
  return _cast_to_out_dtype(
      jax.tree.map(lambda x, p: jnp.where(x < 0, -p, p), tree, projected),
      tree)


def projection_l1_ball(tree: base.Params, scale: Any = 1) -> base.Params:
  r"""Projection onto the :math:`\ell_1` ball of radius ``scale``.

  .. math::

    \mathrm{proj}(x) = \begin{cases}
      x & \text{if } \|x\|_1 \le s \\
      \mathrm{sign}(x) \odot \mathrm{proj}_{\Delta_s}(|x|)
        & \text{otherwise.}
    \end{cases}

  Examples:
    >>> import jax.numpy as jnp
    >>> from optax import projections
    >>> projections.projection_l1_ball(jnp.array([0.5, -1.0, 0.0]))
    Array([ 0.25, -0.75,  0.  ], dtype=float32)

  Args:
    tree: the pytree to project.
    scale: the radius :math:`s > 0`.

  Returns:
    A pytree like ``tree`` with :math:`\ell_1` norm at most ``scale``.

  References:
    Duchi et al., `Efficient Projections onto the l1-Ball for Learning in
    High Dimensions <https://dl.acm.org/doi/10.1145/1390156.1390191>`_, 2008

  .. seealso:: :func:`projection_l1_sphere`
  """
  inside = otu.tree_norm(tree, ord=1) <= scale
  on_sphere = projection_l1_sphere(tree, scale)
  return _cast_to_out_dtype(
      jax.tree.map(lambda x, p: jnp.where(inside, x, p), tree, on_sphere),
      tree)


def _squared_l2_norm(tree: Any) -> jax.Array:
  """The sum of the squared moduli of ``tree``'s entries.

  ``otu.tree_norm(tree, squared=True)`` with real leaves squared by
  ``jnp.square``: the same value, and a gradient of ``2 x g`` rather than
  the ``x g + g x`` of a product of ``x`` with itself (one product fewer per
  entry in the backward pass).

  Args:
    tree: a pytree.

  Returns:
    A scalar array.
  """
  def leaf_sum(x):
    x = jnp.asarray(x)
    if jnp.iscomplexobj(x):
      return jnp.sum((x.conj() * x).real)
    return jnp.sum(jnp.square(x))

  return otu.tree_sum(jax.tree.map(leaf_sum, tree))


def projection_l2_sphere(tree: base.Params, scale: Any = 1) -> base.Params:
  r"""Projection onto the :math:`\ell_2` sphere of radius ``scale``.

  .. math::

    \mathrm{proj}(x) = \frac{s}{\|x\|_2} x .

  The projection of the origin is not defined (NaN).

  Examples:
    >>> import jax.numpy as jnp
    >>> from optax import projections
    >>> projections.projection_l2_sphere(jnp.array([3.0, 4.0]))
    Array([0.6, 0.8], dtype=float32)

  Args:
    tree: the pytree to project.
    scale: the radius :math:`s`.

  Returns:
    A pytree like ``tree`` with :math:`\ell_2` norm ``scale``.
  """
  factor = scale / jnp.sqrt(_squared_l2_norm(tree))
  return _cast_to_out_dtype(jax.tree.map(lambda x: x * factor, tree), tree)


def projection_l2_ball(tree: base.Params, scale: Any = 1) -> base.Params:
  r"""Projection onto the :math:`\ell_2` ball of radius ``scale``.

  .. math::

    \mathrm{proj}(x) = \frac{s}{\max(\|x\|_2, s)} x .

  The gradient is finite everywhere, the origin included.

  Examples:
    >>> import jax.numpy as jnp
    >>> from optax import projections
    >>> projections.projection_l2_ball(jnp.array([3.0, 4.0]))
    Array([0.6, 0.8], dtype=float32)
    >>> projections.projection_l2_ball(  # norm 5 <= 10: kept as it is
    ...     {'w': jnp.array([3.0]), 'b': jnp.array([4.0])}, scale=10.0)
    {'b': Array([4.], dtype=float32), 'w': Array([3.], dtype=float32)}

  Args:
    tree: the pytree to project, taken as one vector of all its entries.
    scale: the ball's radius :math:`s`, positive.

  Returns:
    ``tree`` where its :math:`\ell_2` norm is at most ``scale``, else
    ``tree`` shrunk onto the sphere of that radius (same structure and
    dtypes).
  """
  squared_norm = _squared_l2_norm(tree)
  # max(|x|, s) as the root of max(|x|^2, s^2): the square root never sees
  # 0 (for s > 0), so the gradient stays finite at the origin.
  factor = scale / jnp.sqrt(jnp.maximum(squared_norm, scale ** 2))
  return _cast_to_out_dtype(jax.tree.map(lambda x: x * factor, tree), tree)


def projection_hyperplane(x: base.Params, a: base.Params, b: Any
                          ) -> base.Params:
  r"""Projection onto the hyperplane :math:`\{y : \langle a, y \rangle = b\}`.

  .. math::

    \mathrm{proj}(x) = x - \frac{\langle a, x \rangle - b}{\|a\|_2^2} a .

  Examples:
    >>> import jax.numpy as jnp
    >>> from optax import projections
    >>> projections.projection_hyperplane(
    ...     jnp.array([1.0, 2.0]), jnp.array([1.0, 1.0]), 1.0)
    Array([0., 1.], dtype=float32)

  Args:
    x: the pytree to project.
    a: the normal vector, a pytree like ``x`` (not zero).
    b: the offset, a scalar.

  Returns:
    A pytree like ``x``.
  """
  # x + c a with c = (b - <a, x>) / |a|^2: the same bits as x - (-c) a.
  coef = (b - otu.tree_vdot(a, x)) / otu.tree_vdot(a, a)
  return _cast_to_out_dtype(
      jax.tree.map(lambda xi, ai: xi + coef * ai, x, a), x)


def projection_halfspace(x: base.Params, a: base.Params, b: Any
                         ) -> base.Params:
  r"""Projection onto the halfspace :math:`\{y : \langle a, y \rangle \le b\}`.

  .. math::

    \mathrm{proj}(x) = x - \frac{\max(\langle a, x \rangle - b, 0)}
    {\|a\|_2^2} a .

  Examples:
    >>> import jax.numpy as jnp
    >>> from optax import projections
    >>> a = jnp.array([1.0, 1.0])
    >>> projections.projection_halfspace(jnp.array([1.0, 2.0]), a, 1.0)
    Array([0., 1.], dtype=float32)
    >>> projections.projection_halfspace(jnp.array([-1.0, 0.5]), a, 1.0)
    Array([-1. ,  0.5], dtype=float32)

  Args:
    x: the pytree to project; a point inside comes back as it is.
    a: the outward normal of the boundary, a nonzero pytree structured as
      ``x``.
    b: the bound on :math:`\langle a, y \rangle`, a scalar.

  Returns:
    The projection, a pytree structured and typed as ``x``.
  """
  # x + c a with c = min((b - <a, x>) / |a|^2, 0): a point of the halfspace
  # gets c = 0 and comes back unchanged (up to the sign of a zero entry).
  coef = jnp.minimum((b - otu.tree_vdot(a, x)) / otu.tree_vdot(a, a), 0)
  return _cast_to_out_dtype(
      jax.tree.map(lambda xi, ai: xi + coef * ai, x, a), x)


def projection_vector(x: base.Params, a: base.Params) -> base.Params:
  r"""Projection onto the line spanned by the vector ``a``.

  .. math::

    \mathrm{proj}(x) = \frac{\langle a, x \rangle}{\|a\|_2^2} a .

  Examples:
    >>> import jax.numpy as jnp
    >>> from optax import projections
    >>> projections.projection_vector(
    ...     jnp.array([1.0, 2.0]), jnp.array([1.0, 1.0]))
    Array([1.5, 1.5], dtype=float32)

  Args:
    x: the pytree to project.
    a: the direction, a pytree like ``x`` (not zero).

  Returns:
    A pytree like ``x``.
  """
  coef = otu.tree_vdot(a, x) / otu.tree_vdot(a, a)
  return _cast_to_out_dtype(jax.tree.map(lambda ai: coef * ai, a), x)
