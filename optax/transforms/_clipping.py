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
"""Transformations that bound the size of the updates.

Element-wise clipping, clipping by the norm of the whole tree, of each leaf
or of each unit (row / filter) of each leaf, and the per-example clipping of
differentially private training.

Every transformation returns updates of the dtype of the incoming updates:
norms and scale factors are computed in at least the precision of the
hyperparameters (float32, float64 under x64), so bfloat16 updates are scaled
with a float32 factor and rounded once.
"""

from collections.abc import Callable
import math
from typing import Any, Union

import jax
from jax import lax
import jax.numpy as jnp
import numpy as np

from optax import tree_utils as otu
from optax._src import arguments
from optax._src import base
from optax._src import dtypes
from optax._src import hyperparameters
from optax._src import numerics
from optax._src import validation

Axis = Union[int, tuple[int, ...], None]


def _is_none(x: Any) -> bool:
  return x is None


def _compute_dtype(dtype: Any) -> np.dtype:
  """The dtype in which a leaf of ``dtype`` is combined with scalars."""
  with jax.numpy_dtype_promotion('standard'):
    return jnp.promote_types(dtype, hyperparameters.hyperparameter_dtype())


def _upcast(x: jax.Array) -> jax.Array:
  x = jnp.asarray(x)
  return x.astype(_compute_dtype(x.dtype))


def _map_leaves(
    prepare: Callable[[base.Updates], Any],
    clip_leaf: Callable[[jax.Array, Any], jax.Array],
) -> base.GradientTransformation:
  """A stateless transformation clipping each leaf of the updates.

  Args:
    prepare: computes, from the whole tree of updates, what every leaf's
      clipping reads (a hyperparameter as an array, a global norm).
    clip_leaf: ``clip_leaf(u, prepared)``, the clipped leaf ``u``.

  Returns:
    The transformation (its state is ``base.EmptyState()``).
  """

  def update_fn(updates, state, params=None):
    del params
    prepared = prepare(updates)
    return jax.tree.map(lambda u: clip_leaf(u, prepared), updates), state

  return base.GradientTransformation(base.init_empty_state, update_fn)


@arguments.declare(max_delta=arguments.non_negative)
def clip(max_delta: base.Numeric) -> base.GradientTransformation:
  r"""Clips each entry of the updates to ``[-max_delta, max_delta]``.

  .. math::

    u_i \leftarrow \min(\max(u_i, -\delta), \delta)

  Args:
    max_delta: the bound :math:`\delta \geq 0` on the absolute value of each
      entry.

  Returns:
    A GradientTransformation without state (``ClipState()``).

  Raises:
    ValueError: for a negative Python number ``max_delta``.

  Examples:
    >>> import jax.numpy as jnp
    >>> import optax
    >>> tx = optax.clip(max_delta=1.0)  # entries beyond 1 in size are cut
    >>> tx.update(jnp.array([0.5, -3.0, 2.0]), tx.init(None))[0]
    Array([ 0.5, -1. ,  1. ], dtype=float32)

  .. seealso:: :func:`clip_by_global_norm`, :func:`clip_by_block_rms`
  """
  def clip_leaf(u, delta):
    x = _upcast(u)
    bound = delta.astype(x.real.dtype)
    return jnp.clip(x, -bound, bound).astype(u.dtype)

  return _map_leaves(
      lambda _: hyperparameters.as_hyperparameter(max_delta), clip_leaf)


class _GlobalNormScalars:
  """The scalars of :func:`clip_by_global_norm` for one tree of updates.

  The global norm is computed in at least the hyperparameters' dtype and
  compared with ``max_norm`` once; each leaf gets the scalars cast to its
  dtype and broadcast once per leaf shape (``dtypes.ScalarsByDtype``). The
  divisor is 1 where the norm is within ``max_norm``, so that ``0 / 0`` is
  never computed, not even in the branch not taken, and the Python number
  ``max_norm=1`` is no factor at all (no product by one per leaf).
  """

  def __init__(self, updates: base.Updates, max_norm: base.Numeric):
    factor = hyperparameters.as_hyperparameter_unless(max_norm, 1)
    c = (hyperparameters.as_hyperparameter(max_norm) if factor is None
         else factor)
    norm = otu.tree_norm(jax.tree.map(_upcast, updates))
    norm = norm.astype(jnp.promote_types(norm.dtype, c.dtype))
    within = norm <= c.astype(norm.dtype)
    self._within = dtypes.ScalarsByDtype(within)
    divisor = jnp.where(within, jnp.ones_like(norm), norm)
    self._divisors = dtypes.ScalarsByDtype(
        *((divisor,) if factor is None else (divisor, factor)))

  def like(self, u: jax.Array) -> tuple[jax.Array, jax.Array, Any]:
    """``u`` in its compute dtype, the norm and ``max_norm`` (None for 1)."""
    g = _upcast(u)
    norm, *c = self._divisors.get(g.real.dtype, g)
    return g, norm, (c[0] if c else None)

  def within(self, g: jax.Array) -> jax.Array:
    """Whether the norm is at most ``max_norm``, broadcast like ``g``."""
    return self._within.get(jnp.dtype(jnp.bool_), g)[0]


def _where(condition: jax.Array, x: jax.Array, y: jax.Array) -> jax.Array:
  """``jnp.where`` of operands of one shape, without its nested jit."""
  return jax.lax.select_n(condition, y, x)


@arguments.declare(max_norm=arguments.non_negative)
def clip_by_global_norm(max_norm: base.Numeric) -> base.GradientTransformation:
  r"""Rescales the updates so that their global norm is at most ``max_norm``.

  .. math::

    u \leftarrow u \cdot \min\left(1, \frac{c}{\|u\|}\right)

  with :math:`\|u\|` the Euclidean norm of all the entries of all the
  leaves. Updates whose norm is at most :math:`c` pass unchanged, so with
  ``max_norm=0`` zero updates stay zero (upstream Optax returns NaN, 0 / 0).

  Args:
    max_norm: the largest global norm :math:`c \geq 0` the updates may have.

  Returns:
    A stateless GradientTransformation (state ``ClipByGlobalNormState()``).

  Raises:
    ValueError: if ``max_norm`` is a negative Python number.

  Examples:
    >>> import jax.numpy as jnp
    >>> import optax
    >>> tx = optax.clip_by_global_norm(1.0)
    >>> updates = {'a': jnp.array([3.0]), 'b': jnp.array([-4.0])}
    >>> tx.update(updates, tx.init(None))[0]
    {'a': Array([0.6], dtype=float32), 'b': Array([-0.8], dtype=float32)}

  References:
    Pascanu et al., `On the difficulty of training Recurrent Neural Networks
    <https://arxiv.org/abs/1211.5063>`_, 2013.

  .. seealso:: :func:`clip`, :func:`clip_by_block_rms`,
    :func:`adaptive_grad_clip`
  """
  def clip_leaf(u, scalars):
    g, norm, c = scalars.like(u)
    clipped = g / norm if c is None else g / norm * c
    return _where(scalars.within(g), g, clipped).astype(u.dtype)

  return _map_leaves(lambda u: _GlobalNormScalars(u, max_norm), clip_leaf)


@arguments.declare(threshold=arguments.non_negative)
def clip_by_block_rms(threshold: float) -> base.GradientTransformation:
  r"""Rescales each leaf so that its root mean square is at most ``threshold``.

  For each leaf :math:`u` with :math:`n` entries,

  .. math::

    u \leftarrow \frac{u}{\max\!\left(1, \mathrm{rms}(u) / \tau\right)},
    \quad \mathrm{rms}(u) = \sqrt{\tfrac{1}{n} \textstyle\sum_i |u_i|^2}.

  Args:
    threshold: the largest root mean square :math:`\tau \geq 0` of a leaf.

  Returns:
    A GradientTransformation that keeps no state.

  Raises:
    ValueError: when ``threshold`` is given as a negative Python number.

  Examples:
    >>> import jax.numpy as jnp
    >>> import optax
    >>> tx = optax.clip_by_block_rms(1.0)
    >>> # Each leaf on its own: rms 3.5355 is scaled to 1, rms 0.5 is kept.
    >>> leaves = (jnp.array([3.0, -4.0]), jnp.array([0.5, -0.5]))
    >>> scaled, kept = tx.update(leaves, tx.init(None))[0]
    >>> scaled
    Array([ 0.84852815, -1.1313709 ], dtype=float32)
    >>> kept
    Array([ 0.5, -0.5], dtype=float32)

  .. seealso:: :func:`clip_by_global_norm`
  """
  def clip_leaf(u, tau):
    x = _upcast(u)
    rms = jnp.sqrt(jnp.mean(numerics.abs_sq(x)))
    divisor = jnp.maximum(1.0, rms / tau.astype(rms.dtype))
    return (x / divisor).astype(u.dtype)

  return _map_leaves(
      lambda _: hyperparameters.as_hyperparameter(threshold), clip_leaf)


def unitwise_norm(x: jax.Array, axis: Axis = None) -> jax.Array:
  """The Euclidean norm of each unit of ``x``, broadcast to the shape of ``x``.

  A unit is the slice of the parameter that feeds one output: without
  ``axis``, the reduction is over

  * every axis when ``x`` has at most one axis of size other than 1 (a
    scalar, a bias, or a vector stored as ``(1, n)`` or ``(n, 1)``),
  * axis 0 for a matrix or a 3-d array (a dense layer ``(in, out)``, or a
    multi-head dense layer),
  * every axis but the last for 4 or 5 axes (a convolution kernel ``HWIO``
    or ``DHWIO``, whose output channels come last).

  Other shapes need an explicit ``axis``.

  Args:
    x: a real or complex array.
    axis: the axis or axes to reduce, overriding the rule above.

  Returns:
    An array of the shape of ``x`` (real-valued, float for integer input)
    holding, at each entry, the norm of the unit it belongs to.

  Raises:
    ValueError: if ``axis`` is None and ``x`` has more than 5 axes, more
      than one of them of size other than 1.

  Examples:
    >>> import jax.numpy as jnp
    >>> import optax
    >>> optax.transforms.unitwise_norm(jnp.array([[3.0, 0.0], [4.0, 1.0]]))
    Array([[5., 1.],
           [5., 1.]], dtype=float32)
  """
  x = jnp.asarray(x)
  if axis is None:
    if sum(d != 1 for d in x.shape) <= 1:
      axis = tuple(range(x.ndim))
    elif x.ndim <= 3:
      axis = 0
    elif x.ndim <= 5:
      axis = tuple(range(x.ndim - 1))
    else:
      raise ValueError(
          f'unitwise_norm: without axis, x must have at most 5 axes, got'
          f' shape {x.shape}. Remedy: pass axis, the axes that make up one'
          ' unit, e.g. axis=tuple(range(x.ndim - 1)).'
      )
  squared = jnp.sum(numerics.abs_sq(x), axis=axis, keepdims=True)
  norms = jnp.sqrt(squared)
  return jnp.broadcast_to(norms, x.shape)


def unitwise_clip(
    g_norm: jax.Array,
    max_norm: jax.Array,
    grad: jax.Array,
    div_eps: float = 1e-6,
) -> jax.Array:
  r"""Rescales each unit of ``grad`` whose norm exceeds its ``max_norm``.

  .. math::

    g \leftarrow \begin{cases}
      g & \text{if } \|g\| < m, \\
      g \, \dfrac{m}{\max(\|g\|, \epsilon)} & \text{otherwise.}
    \end{cases}

  Args:
    g_norm: the norm of the unit of each entry, shaped like ``grad`` (see
      :func:`unitwise_norm`).
    max_norm: the largest norm :math:`m` allowed, broadcastable to ``grad``.
    grad: the gradient to clip.
    div_eps: the floor :math:`\epsilon` of the divisor, guarding against a
      division by zero.

  Returns:
    The clipped gradient, of the dtype of ``grad``.

  Examples:
    >>> import jax.numpy as jnp
    >>> import optax
    >>> g = jnp.array([1.0, 5.0])
    >>> optax.transforms.unitwise_clip(g, jnp.array([2.0, 2.0]), g)
    Array([1., 2.], dtype=float32)
  """
  grad = jnp.asarray(grad)
  keep = g_norm < max_norm
  clipped = grad * (max_norm / jnp.maximum(g_norm, div_eps))
  return jnp.where(keep, grad, clipped).astype(grad.dtype)


@arguments.declare(clipping=arguments.non_negative,
                   eps=arguments.non_negative)
def adaptive_grad_clip(
    clipping: float,
    eps: float = 1e-3,
    axis: Axis = None,
) -> base.GradientTransformation:
  r"""Clips each unit of the updates relative to the norm of its parameters.

  Adaptive gradient clipping (AGC): for each unit (see
  :func:`unitwise_norm`) of a gradient :math:`g` and of its parameter
  :math:`\theta`,

  .. math::

    g \leftarrow \begin{cases}
      g & \text{if } \|g\| < \lambda \max(\|\theta\|, \epsilon), \\
      g \, \dfrac{\lambda \max(\|\theta\|, \epsilon)}{\|g\|}
        & \text{otherwise.}
    \end{cases}

  Args:
    clipping: the largest ratio :math:`\lambda \geq 0` of the norm of a
      unit of the gradient to that of the parameter.
    eps: the floor :math:`\epsilon \geq 0` of the parameter norms, so that
      units initialised at zero still move.
    axis: the axis or axes over which the unit norms are computed; by
      default chosen by the number of dimensions (see
      :func:`unitwise_norm`).

  Returns:
    A stateless GradientTransformation (its state is
    ``AdaptiveGradClipState()``); its ``update`` requires ``params``.

  Raises:
    ValueError: if ``clipping`` or ``eps`` is a negative Python number, and
      in ``update`` if ``params`` is None.

  Examples:
    >>> import jax.numpy as jnp
    >>> import optax
    >>> tx = optax.adaptive_grad_clip(0.5)
    >>> params = jnp.array([3.0, 4.0])
    >>> updates, _ = tx.update(jnp.array([6.0, 8.0]), tx.init(params), params)
    >>> updates
    Array([1.5, 2. ], dtype=float32)

  References:
    Brock et al., `High-Performance Large-Scale Image Recognition Without
    Normalization <https://arxiv.org/abs/2102.06171>`_, 2021.
  """
  def update_fn(updates, state, params=None):
    validation.require_params(
        'adaptive_grad_clip', params,
        'this transformation needs the current parameters')
    lam = hyperparameters.as_hyperparameter(clipping)
    floor = hyperparameters.as_hyperparameter(eps)

    def clip_leaf(g, p):
      if g is None:
        return None
      x = _upcast(g)
      real = x.real.dtype
      g_norm = unitwise_norm(x, axis=axis)
      p_norm = unitwise_norm(_upcast(p), axis=axis).astype(real)
      max_norm = jnp.maximum(p_norm, floor.astype(real)) * lam.astype(real)
      return unitwise_clip(g_norm, max_norm, x).astype(g.dtype)

    new_updates = jax.tree.map(clip_leaf, updates, params, is_leaf=_is_none)
    return new_updates, state

  return base.GradientTransformation(base.init_empty_state, update_fn)


def _check_batched(fn_name: str, grads: Any) -> list[jax.Array]:
  """Returns the leaves of ``grads`` after checking their batch axis."""
  leaves = jax.tree.leaves(grads)
  if not leaves:
    raise ValueError(f'{fn_name}: grads must have at least one leaf, got'
                     f' {grads!r}')
  shapes = [jnp.shape(g) for g in leaves]
  if any(len(s) == 0 for s in shapes) or len({s[0] for s in shapes}) != 1:
    raise ValueError(
        f'{fn_name}: every leaf of grads must have the same batch size on'
        f' axis 0 (one row per example), got shapes {shapes}. Remedy:'
        ' compute per-example gradients, e.g. with jax.vmap(jax.grad(loss)).'
    )
  return leaves


def _clip_examples(
    leaves: list[jax.Array], clip_norm: jax.Array
) -> tuple[list[jax.Array], jax.Array]:
  """Clips each example of the leaves jointly and sums over the examples."""
  up = [_upcast(g) for g in leaves]
  sq = [jnp.sum(numerics.abs_sq(g), axis=tuple(range(1, g.ndim))) for g in up]
  norms = jnp.sqrt(sum(sq[1:], sq[0]))
  clip_norm = clip_norm.astype(norms.dtype)
  # nan_to_num turns the 0 / 0 and c / 0 of all-zero examples into finite
  # factors, which multiply zeros.
  factors = jnp.nan_to_num(jnp.minimum(clip_norm / norms, 1.0))
  num_clipped = jnp.sum(norms > clip_norm, dtype=jnp.int32)
  # Floating leaves keep their dtype; integer ones (whose clipped sums are
  # fractional) come back in the float dtype they were computed in.
  sums = [
      jnp.tensordot(factors.astype(x.real.dtype), x, axes=1,
                    precision=lax.Precision.HIGHEST).astype(
                        g.dtype if jnp.issubdtype(g.dtype, jnp.inexact)
                        else x.dtype)
      for x, g in zip(up, leaves)
  ]
  return sums, num_clipped


@arguments.declare(l2_norm_clip=arguments.non_negative)
def per_example_global_norm_clip(
    grads: base.Updates, l2_norm_clip: float
) -> tuple[base.Updates, jax.Array]:
  r"""Clips each example's gradient by its global norm and sums the examples.

  Each leaf of ``grads`` holds one gradient per example along axis 0. With
  :math:`g^{(i)}` the gradient of example :math:`i` (all leaves together),

  .. math::

    \sum_i g^{(i)} \min\!\left(1, \frac{c}{\|g^{(i)}\|}\right).

  This is the clipping step of DP-SGD.

  Args:
    grads: a pytree (typically a list) of per-example gradients, every leaf
      with the same batch size on axis 0.
    l2_norm_clip: the largest norm :math:`c \geq 0` of an example's
      gradient.

  Returns:
    A tuple ``(summed, num_clipped)``: the tree of clipped gradients summed
    over the examples (leaves without the batch axis, of the dtype of the
    input leaves, float32 or wider for integer ones) and the number of
    examples whose norm exceeded ``c`` (an int32 scalar).

  Raises:
    ValueError: if ``l2_norm_clip`` is a negative Python number, if
      ``grads`` has no leaf or its leaves disagree on the batch size.

  Examples:
    >>> import jax.numpy as jnp
    >>> import optax
    >>> grads = [jnp.array([[3.0, 4.0], [0.3, 0.4]])]
    >>> summed, num_clipped = optax.transforms.per_example_global_norm_clip(
    ...     grads, 1.0)
    >>> summed[0], num_clipped
    (Array([0.90000004, 1.2       ], dtype=float32), Array(1, dtype=int32))

  References:
    Abadi et al., `Deep Learning with Differential Privacy
    <https://arxiv.org/abs/1607.00133>`_, 2016.

  .. seealso:: :func:`per_example_layer_norm_clip`
  """
  leaves = _check_batched('per_example_global_norm_clip', grads)
  sums, num_clipped = _clip_examples(
      leaves, hyperparameters.as_hyperparameter(l2_norm_clip))
  return jax.tree.unflatten(jax.tree.structure(grads), sums), num_clipped


@arguments.declare(global_l2_norm_clip=arguments.non_negative)
def per_example_layer_norm_clip(
    grads: base.Updates,
    global_l2_norm_clip: float,
    uniform: bool = True,
) -> tuple[base.Updates, base.Updates]:
  r"""Clips each example's gradient layer by layer and sums the examples.

  Each leaf (layer) of ``grads`` holds one gradient per example along axis
  0, and gets its own clipping norm :math:`c_l`, chosen so that
  :math:`\sum_l c_l^2 = c^2`: the clipped gradient of an example has a
  global norm of at most :math:`c`. With :math:`L` layers of :math:`n_l`
  entries per example,

  .. math::

    c_l = \frac{c}{\sqrt{L}} \ \text{(uniform)}, \qquad
    c_l = c \sqrt{\frac{n_l}{\sum_k n_k}} \ \text{(otherwise)}.

  Args:
    grads: a pytree (typically a list) of per-example gradients, every leaf
      with the same batch size on axis 0.
    global_l2_norm_clip: the overall clipping norm :math:`c \geq 0`.
    uniform: whether every layer gets the same clipping norm, or one
      proportional to the square root of its size.

  Returns:
    A tuple ``(summed, num_clipped)`` of two trees with the structure of
    ``grads``: the clipped gradients summed over the examples (of the dtype
    of the input leaves, float32 or wider for integer ones), and, per layer,
    the number of examples whose norm exceeded :math:`c_l` (int32 scalars).

  Raises:
    ValueError: for a negative Python number ``global_l2_norm_clip``, for
      ``grads`` without leaves, and for leaves of different batch sizes.

  Examples:
    >>> import jax.numpy as jnp
    >>> import optax
    >>> grads = [jnp.array([[-3.0]]), jnp.array([[0.0, 0.1, 0.0]])]
    >>> summed, num_clipped = optax.transforms.per_example_layer_norm_clip(
    ...     grads, 2.0, uniform=False)
    >>> summed
    [Array([-1.], dtype=float32), Array([0. , 0.1, 0. ], dtype=float32)]
    >>> num_clipped
    [Array(1, dtype=int32), Array(0, dtype=int32)]

  References:
    McMahan et al., `A General Approach to Adding Differential Privacy to
    Iterative Training Procedures <https://arxiv.org/abs/1812.06210>`_,
    2018.

  .. seealso:: :func:`per_example_global_norm_clip`
  """
  leaves = _check_batched('per_example_layer_norm_clip', grads)
  c = hyperparameters.as_hyperparameter(global_l2_norm_clip)
  if uniform:
    fractions = [1.0 / len(leaves)] * len(leaves)
  else:
    sizes = [math.prod(jnp.shape(g)[1:]) for g in leaves]
    fractions = [n / sum(sizes) for n in sizes]
  sums, counts = [], []
  for g, fraction in zip(leaves, fractions):
    # The square root of the static fraction is taken in double precision.
    clip_norm = c * math.sqrt(fraction)
    (summed,), num_clipped = _clip_examples([g], clip_norm)
    sums.append(summed)
    counts.append(num_clipped)
  treedef = jax.tree.structure(grads)
  return jax.tree.unflatten(treedef, sums), jax.tree.unflatten(treedef, counts)
