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
"""Small linear-algebra routines used by optimizers.

Norms of pytrees, the dominant eigenpair by power iteration, inverse p-th
roots of symmetric positive definite matrices (Shampoo-style
preconditioners) and non-negative least squares.
"""

import functools
import numbers
from collections.abc import Callable
from typing import Any, Optional, Union
import warnings

import jax
from jax import lax
import jax.numpy as jnp

from optax._src import base
from optax._src import numerics


def _tree_sq_norm(tree: Any) -> jax.Array:
  """Sum over all leaves of the squared moduli of their entries."""
  total = 0.0
  for leaf in jax.tree.leaves(tree):
    total = total + jnp.sum(numerics.abs_sq(jnp.asarray(leaf)))
  return total


def _tree_l2_norm(tree: Any) -> jax.Array:
  return jnp.sqrt(_tree_sq_norm(tree))


def _tree_normalize(tree: Any) -> Any:
  """Divides every leaf of ``tree`` by the l2 norm of the whole tree."""
  inv_norm = 1.0 / _tree_l2_norm(tree)
  return jax.tree.map(lambda x: inv_norm * x, tree)


def _tree_vdot(
    tree_x: Any, tree_y: Any, precision: Optional[lax.Precision]
) -> jax.Array:
  """Inner product of two trees, conjugating the first one."""
  total = 0.0
  for x, y in zip(jax.tree.leaves(tree_x), jax.tree.leaves(tree_y)):
    total = total + jnp.vdot(x, y, precision=precision)
  return total


def global_norm(updates: base.ArrayTree) -> jax.Array:
  r"""The l2 norm of a pytree, taken over all its leaves at once.

  .. math::

    \|u\| = \sqrt{\textstyle\sum_{\ell} \sum_i |u_{\ell, i}|^2}

  Complex entries contribute their squared modulus.

  Examples:
    >>> import jax.numpy as jnp
    >>> from optax._src import linear_algebra
    >>> linear_algebra.global_norm({'a': jnp.array([3.0]), 'b': 4.0})
    Array(5., dtype=float32)

  Args:
    updates: a pytree of arrays (typically gradients or updates).

  Returns:
    A scalar array, the l2 norm of the concatenation of all leaves.

  .. deprecated::
    Emits a ``DeprecationWarning`` (as upstream 0.2.8 does); use
    :func:`optax.tree.norm`.
  """
  warnings.warn(
      'optax.global_norm is deprecated in favor of optax.tree.norm',
      DeprecationWarning, stacklevel=2)
  return _tree_l2_norm(updates)


def _power_iteration_cond_fun(
    error_tolerance: float,
    num_iters: int,
    loop_vars: tuple[Any, Any, jax.Array, jax.Array],
) -> jax.Array:
  """Whether :func:`power_iteration` should take another step.

  Args:
    error_tolerance: the iteration stops once the relative residual
      ``|| M v - lambda v || / |lambda|`` falls below this value.
    num_iters: the largest number of iterations.
    loop_vars: the tuple ``(v, M v, lambda, i)`` of the loop: the current
      normalized vector, its image by the matrix, the Rayleigh quotient and
      the iteration count.

  Returns:
    A boolean scalar, true while not converged and ``i < num_iters``.
  """
  eigvec, image, eigval, iter_num = loop_vars
  residual = jax.tree.map(lambda z, v: z - eigval * v, image, eigvec)
  relative_error = jnp.abs(_tree_l2_norm(residual) / eigval)
  converged = relative_error < error_tolerance
  return jnp.logical_and(jnp.logical_not(converged), iter_num < num_iters)


def power_iteration(
    matrix: Union[jax.Array, Callable[[Any], Any]],
    *,
    v0: Optional[Any] = None,
    num_iters: int = 100,
    error_tolerance: float = 1e-6,
    precision: lax.Precision = lax.Precision.HIGHEST,
    key: Optional[base.PRNGKey] = None,
) -> tuple[jax.Array, Any]:
  r"""The dominant eigenpair of a symmetric matrix by power iteration.

  Repeats :math:`v \leftarrow M v / \|M v\|` and estimates the eigenvalue by
  the Rayleigh quotient :math:`\lambda = v^\top M v`, until
  :math:`\|M v - \lambda v\| / |\lambda|` is below ``error_tolerance`` or
  ``num_iters`` steps were taken. The eigenvalue found is the one of largest
  modulus.

  ``matrix`` may be an array or a function computing the product of the
  matrix with a vector; the vector may then be any pytree (for example a
  Hessian-vector product over model parameters), and ``v0`` is required.

  Examples:
    >>> import jax.numpy as jnp
    >>> from optax._src import linear_algebra
    >>> m = jnp.array([[2.0, 0.0], [0.0, 1.0]])
    >>> eigval, eigvec = linear_algebra.power_iteration(m)
    >>> print(f'{eigval:.4f}', abs(eigvec).round(4))
    2.0000 [1. 0.]

  Args:
    matrix: a square array, or a function ``v -> M v``.
    v0: the starting vector (a pytree when ``matrix`` is a function). If
      ``None``, drawn uniformly in ``[-1, 1]`` from ``key``.
    num_iters: the largest number of iterations.
    error_tolerance: the tolerance on the relative residual.
    precision: the precision of the matrix-vector and inner products.
    key: a PRNG key used to draw ``v0`` when it is not given; defaults to
      ``jax.random.PRNGKey(0)``.

  Returns:
    A pair ``(eigenvalue, eigenvector)``, the eigenvector normalized to unit
    l2 norm and shaped like ``v0``.

  Raises:
    ValueError: if ``matrix`` is a function and ``v0`` is not given.
  """
  if callable(matrix):
    matvec = matrix
    if v0 is None:
      raise ValueError('v0 must be provided when `matrix` is a callable.')
  else:
    matrix = jnp.asarray(matrix)
    matvec = functools.partial(jnp.matmul, matrix, precision=precision)
    if v0 is None:
      if key is None:
        key = jax.random.PRNGKey(0)
      v0 = jax.random.uniform(
          key, matrix.shape[-1:], dtype=matrix.dtype, minval=-1.0,
          maxval=1.0)

  v0 = _tree_normalize(v0)

  def body_fun(loop_vars):
    _, image, _, iter_num = loop_vars
    eigvec = _tree_normalize(image)
    image = matvec(eigvec)
    eigval = _tree_vdot(eigvec, image, precision)
    return eigvec, image, eigval, iter_num + 1

  image0 = matvec(v0)
  eigval0 = jnp.zeros([], jnp.result_type(*jax.tree.leaves(image0)))
  init_vars = (v0, image0, eigval0, jnp.zeros([], jnp.int32))
  cond_fun = functools.partial(
      _power_iteration_cond_fun, error_tolerance, num_iters)
  _, image, eigval, _ = lax.while_loop(cond_fun, body_fun, init_vars)
  return eigval, _tree_normalize(image)


def _matrix_power(
    mat: jax.Array, p: Union[int, jax.Array], precision: lax.Precision
) -> jax.Array:
  """``mat ** p`` for an integer ``p >= 1`` by repeated squaring.

  A Python int is unrolled; an int32 array (a ``p`` traced under ``jit`` or
  ``vmap``) runs the same products in a ``lax.while_loop``, one bit of ``p``
  per iteration, so both give the same matrix for the same ``p``.

  Args:
    mat: a square matrix.
    p: the power, a positive Python int or an int32 scalar array.
    precision: the precision of the matrix products.

  Returns:
    ``mat ** p``.
  """
  if isinstance(p, int):
    result = None
    square = mat
    while True:
      if p & 1:
        result = square if result is None else jnp.matmul(
            result, square, precision=precision)
      p >>= 1
      if not p:
        return result
      square = jnp.matmul(square, square, precision=precision)

  def cond_fun(state):
    bits, _, _, _ = state
    return bits > 0

  def body_fun(state):
    bits, result, square, started = state
    odd = (bits & 1) == 1
    product = jnp.where(
        started, jnp.matmul(result, square, precision=precision), square)
    result = jnp.where(odd, product, result)
    started = jnp.logical_or(started, odd)
    bits = bits >> 1
    # The square is not needed once the last bit is used (the unrolled
    # version does not compute it).
    square = jnp.where(
        bits > 0, jnp.matmul(square, square, precision=precision), square)
    return bits, result, square, started

  _, result, _, _ = lax.while_loop(
      cond_fun, body_fun, (p, mat, mat, jnp.zeros([], jnp.bool_)))
  return result


def matrix_inverse_pth_root(
    matrix: jax.Array,
    p: int,
    num_iters: int = 100,
    ridge_epsilon: float = 1e-6,
    error_tolerance: float = 1e-6,
    precision: lax.Precision = lax.Precision.HIGHEST,
) -> tuple[jax.Array, jax.Array]:
  r"""The inverse p-th root of a symmetric positive semi-definite matrix.

  Computes :math:`(A + \epsilon \lambda_{\max} I)^{-1/p}` with the coupled
  Newton iteration: with :math:`\alpha = -1/p`, starting from
  :math:`M_0 = z A` and :math:`H_0 = z^{1/p} I` where
  :math:`z = (1 + p) / (2 \|A\|_F)`,

  .. math::

    T_k &= (1 - \alpha) I + \alpha M_k \\
    M_{k+1} &= T_k^p M_k, \quad H_{k+1} = H_k T_k

  so that :math:`M_k \to I` and :math:`H_k \to A^{-1/p}`. The iteration
  stops after ``num_iters`` steps, once :math:`\max |M_k - I|` is below
  ``error_tolerance``, or when that error grew by more than 20% in a step
  (then the previous :math:`H` is returned). The computation is done in
  float32 (or wider) and the result is cast to the dtype of ``matrix``.

  Examples:
    >>> import jax.numpy as jnp
    >>> from optax._src import linear_algebra
    >>> root, error = linear_algebra.matrix_inverse_pth_root(
    ...     jnp.diag(jnp.array([4.0, 16.0])), 2)
    >>> print(jnp.diag(root).round(4))
    [0.5  0.25]

  Args:
    matrix: a symmetric positive semi-definite matrix of shape ``(n, n)``.
    p: a positive integer, the root to take: a Python int, or an integer
      scalar array (e.g. traced under ``jit`` or ``vmap``; a floating one is
      rounded), which gives the same result as the same Python int.
    num_iters: the largest number of Newton iterations.
    ridge_epsilon: the damping :math:`\epsilon`, relative to the largest
      eigenvalue of ``matrix`` (estimated by :func:`power_iteration`).
    error_tolerance: the tolerance on :math:`\max |M_k - I|`.
    precision: the precision of the matrix products.

  Returns:
    A pair ``(root, error)``: the inverse p-th root, with the dtype of
    ``matrix``, and the final error :math:`\max |M - I|` (zero for a 1x1
    matrix, where the root is computed directly).

  References:
    Guo and Higham, `A Schur-Newton method for the matrix p-th root and its
    inverse <https://doi.org/10.1137/050643374>`_, 2006.

    Anil et al., `Scalable second order optimization for deep learning
    <https://arxiv.org/abs/2002.09018>`_, 2020.
  """
  if isinstance(p, numbers.Number) and (
      not float(p).is_integer() or p < 1):
    raise ValueError(
        f'matrix_inverse_pth_root: p must be a positive integer, got {p}')
  matrix = jnp.asarray(matrix)
  compute_dtype = jnp.promote_types(matrix.dtype, jnp.float32)
  if isinstance(p, numbers.Number):
    p = int(p)
    p_value = p
  else:
    # An array p (traced under jit or vmap): rounded to an int32, which must
    # be positive (it cannot be checked here). The products and the scalars
    # derived from it are those of the same Python int.
    p = jnp.asarray(p)
    if not jnp.issubdtype(p.dtype, jnp.integer):
      p = jnp.round(p)
    p = p.astype(jnp.int32)
    p_value = p.astype(compute_dtype)
  size = matrix.shape[0]
  alpha = jnp.asarray(-1.0 / p_value, compute_dtype)
  identity = jnp.eye(size, dtype=compute_dtype)

  max_ev, _ = power_iteration(
      matrix, num_iters=100, error_tolerance=1e-6, precision=precision)
  ridge = ridge_epsilon * jnp.maximum(max_ev, 1e-16)

  if size == 1:
    root = (matrix + ridge) ** alpha
    return root.astype(matrix.dtype), jnp.zeros([], compute_dtype)

  def cond_fun(state):
    i, _, _, _, error, improving = state
    keep_going = jnp.logical_and(error > error_tolerance, improving)
    return jnp.logical_and(i < num_iters, keep_going)

  def body_fun(state):
    i, mat_m, mat_h, _, error, _ = state
    mat_t = (1 - alpha) * identity + alpha * mat_m
    new_mat_m = jnp.matmul(
        _matrix_power(mat_t, p, precision), mat_m, precision=precision)
    new_mat_h = jnp.matmul(mat_h, mat_t, precision=precision)
    new_error = jnp.max(jnp.abs(new_mat_m - identity))
    # The error may rise for a step before it falls; a rise of more than
    # 20% means the iteration diverges, and the previous H is kept.
    return (i + 1, new_mat_m, new_mat_h, mat_h, new_error,
            new_error < error * 1.2)

  damped = matrix + ridge * identity
  z = (1 + p_value) / (2 * jnp.linalg.norm(damped))
  mat_m0 = damped * z
  error0 = jnp.max(jnp.abs(mat_m0 - identity))
  mat_h0 = identity * jnp.power(z, 1.0 / p_value)
  init_state = (jnp.zeros([], jnp.int32), mat_m0, mat_h0, mat_h0, error0,
                jnp.ones([], jnp.bool_))
  _, mat_m, mat_h, old_mat_h, _, improving = lax.while_loop(
      cond_fun, body_fun, init_state)
  error = jnp.max(jnp.abs(mat_m - identity))
  root = jnp.where(improving, mat_h, old_mat_h)
  return root.astype(matrix.dtype), error


def nnls(
    A: jax.Array,  # pylint: disable=invalid-name
    b: jax.Array,
    iters: int,
    unroll: Union[int, bool] = 1,
    L: Optional[base.Numeric] = None,  # pylint: disable=invalid-name
) -> jax.Array:
  r"""Non-negative least squares by accelerated projected gradient (FISTA).

  Approximately solves

  .. math::

    \min_{x \geq 0} \tfrac{1}{2} \|A x - b\|_2^2

  with ``iters`` steps of FISTA on the gradient :math:`A^\top A x -
  A^\top b`, projecting onto the non-negative orthant after each step, with
  step size :math:`1 / L`. The momentum sequence starts at :math:`t_0 = 0`,
  so the first two iterates coincide.

  Examples:
    >>> import jax.numpy as jnp
    >>> from optax._src import linear_algebra
    >>> A = jnp.array([[1.0, 0.0], [0.0, 1.0]])
    >>> b = jnp.array([1.0, -1.0])
    >>> print(linear_algebra.nnls(A, b, 50))
    [1. 0.]

  Args:
    A: a matrix of shape ``(m, n)``.
    b: a vector of shape ``(m,)``.
    iters: the number of iterations.
    unroll: the unrolling factor of the underlying ``lax.scan``.
    L: a Lipschitz constant of the gradient, at least the largest
      eigenvalue of :math:`A^\top A`. Defaults to the smaller of the
      Frobenius norm and the 1-norm of :math:`A^\top A` (or 1 if that is 0).

  Returns:
    The approximate solution, a vector of shape ``(n,)``.

  References:
    Beck and Teboulle, `A fast iterative shrinkage-thresholding algorithm for
    linear inverse problems <https://doi.org/10.1137/080716542>`_, 2009.
  """
  A = jnp.asarray(A)  # pylint: disable=invalid-name
  b = jnp.asarray(b)
  gram = A.T @ A
  atb = A.T @ b
  if L is None:
    bound = jnp.minimum(jnp.linalg.norm(gram, 'fro'),
                        jnp.linalg.norm(gram, 1))
    L = jnp.where(bound == 0, 1, bound)  # pylint: disable=invalid-name

  def step(carry, _):
    x, y, t = carry
    t_next = (1 + jnp.sqrt(1 + 4 * t**2)) / 2
    momentum = (t - 1) / t_next
    x_next = jnp.maximum(y - (gram @ y - atb) / L, 0)
    y_next = x_next + momentum * (x_next - x)
    return (x_next, y_next, t_next), None

  x0 = jnp.zeros(atb.shape, atb.dtype)
  t0 = jnp.zeros([], atb.dtype)
  (x, _, _), _ = lax.scan(step, (x0, x0, t0), length=iters, unroll=unroll)
  return x

