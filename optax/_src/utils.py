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
"""Small utilities shared across the library.

Dtype canonicalization, argument checks, a diagonal Gaussian used by the
stochastic-gradient code, gradient scaling, a context manager for 64-bit
precision and version parsing.
"""

from collections.abc import Iterator, Sequence
import contextlib
import math
import re
from typing import Any, Optional, Union

import jax
import jax.numpy as jnp
import numpy as np

from optax._src import base
from optax._src import numerics

# Re-exported for code that looks for them here (upstream's names); they live
# in numerics.
safe_norm = numerics.safe_norm
safe_int32_increment = numerics.safe_int32_increment


def canonicalize_dtype(dtype: Optional[Any]) -> Optional[np.dtype]:
  """Turns a dtype-like into the dtype JAX will actually use, or keeps None.

  64-bit dtypes become 32-bit ones unless ``jax_enable_x64`` is on.

  Examples:
    >>> import jax.numpy as jnp
    >>> from optax._src import utils
    >>> utils.canonicalize_dtype('bfloat16')
    dtype(bfloat16)
    >>> utils.canonicalize_dtype(None) is None
    True

  Args:
    dtype: None, a NumPy/JAX dtype, a scalar type or a dtype name.

  Returns:
    None if ``dtype`` is None, else the canonical ``np.dtype``.
  """
  if dtype is None:
    return None
  return jax.dtypes.canonicalize_dtype(dtype)


def canonicalize_key(key_or_seed: Union[jax.Array, int]) -> jax.Array:
  """Turns an integer seed or a raw key into a typed PRNG key.

  Args:
    key_or_seed: a typed key (returned as is), a raw ``uint32`` key (wrapped
      with ``jax.random.wrap_key_data``) or an integer seed.

  Returns:
    A typed PRNG key.
  """
  dtype = getattr(key_or_seed, 'dtype', None)
  if dtype is not None and jax.dtypes.issubdtype(dtype, jax.dtypes.prng_key):
    return key_or_seed
  if dtype is not None and jnp.shape(key_or_seed) != ():
    return jax.random.wrap_key_data(key_or_seed)
  return jax.random.key(key_or_seed)


def check_rank(array: Any, rank: Union[int, Sequence[int]]) -> None:
  """Raises a ValueError if ``array`` does not have the given rank(s).

  Args:
    array: an array.
    rank: the expected rank, or a sequence of accepted ranks.

  Raises:
    ValueError: if the rank of ``array`` is not accepted.
  """
  ranks = (rank,) if isinstance(rank, int) else tuple(rank)
  if jnp.ndim(array) not in ranks:
    expected = rank if isinstance(rank, int) else f'one of {list(ranks)}'
    raise ValueError(
        f'Expected the input to have rank {expected}, got {jnp.ndim(array)}'
        ' instead')


def check_shapes_equal(a: Any, b: Any) -> None:
  """Raises a ValueError if ``a`` and ``b`` have different shapes.

  Args:
    a: an array.
    b: an array.

  Raises:
    ValueError: if the shapes differ.
  """
  if jnp.shape(a) != jnp.shape(b):
    raise ValueError(
        f'Shape mismatch: got {jnp.shape(a)} and {jnp.shape(b)}.')


def check_subdtype(array: Any, subdtype: Any) -> None:
  """Raises a TypeError unless the dtype of ``array`` is a subdtype.

  Args:
    array: an array.
    subdtype: e.g. ``jnp.floating`` or ``jnp.integer``.

  Raises:
    TypeError: if ``jnp.issubdtype(array.dtype, subdtype)`` is False.
  """
  dtype = jnp.result_type(array)
  if not jnp.issubdtype(dtype, subdtype):
    raise TypeError(
        'Expected the input to have a dtype that is a subdtype of'
        f' {subdtype}, got {dtype} instead')


def zeros_like_reduced(
    array: Any, axis: Union[int, Sequence[int]], dtype: Any = None
) -> jax.Array:
  """Zeros shaped like ``array`` with the axes ``axis`` removed.

  Factored optimizer statistics (row and column accumulators) are
  reductions of a parameter-shaped quantity. Building their initial value by
  the same reduction gives it the sharding that the update step produces,
  e.g. ``P('data')`` for the row statistics of a ``P('data', 'model')``
  parameter, so the state's sharding never changes between steps. Under
  ``jit`` XLA folds the reduction of zeros away.

  Args:
    array: the array whose shape (and sharding) the result follows.
    axis: the axis or axes removed.
    dtype: the dtype of the result (default: that of ``array``).

  Returns:
    An array of zeros.
  """
  if isinstance(axis, int):
    axis = (axis,)
  return jnp.sum(jnp.zeros_like(array, dtype=dtype), axis=tuple(axis))


class MultiNormalDiagFromLogScale:
  r"""A Gaussian with diagonal covariance parameterized by its log scale.

  .. math::
    x \sim \mathcal{N}\big(\mu, \mathrm{diag}(e^{2 s})\big)

  with :math:`\mu` = ``loc`` and :math:`s` = ``log_scale``, whose shapes
  broadcast to the shape of the distribution; every entry is an independent
  coordinate.
  """

  def __init__(self, loc: base.Numeric, log_scale: base.Numeric):
    r"""Builds the distribution.

    Args:
      loc: the mean :math:`\mu`.
      log_scale: the log of the standard deviation, of a shape that
        broadcasts with the shape of ``loc``.

    Raises:
      ValueError: if the shapes of ``loc`` and ``log_scale`` do not
        broadcast.
    """
    self._mean = jnp.asarray(loc)
    self._log_scale = jnp.asarray(log_scale)
    self._scale = jnp.exp(self._log_scale)
    try:
      self._param_shape = jax.lax.broadcast_shapes(
          self._mean.shape, self._log_scale.shape)
    except ValueError as e:
      raise ValueError(
          'MultiNormalDiagFromLogScale: Incompatible shapes for broadcasting:'
          f' loc has shape {self._mean.shape}, log_scale has shape'
          f' {self._log_scale.shape}.') from e

  @property
  def log_scale(self) -> base.Numeric:
    """The log standard deviation :math:`s`."""
    return self._log_scale

  @property
  def params(self) -> list[base.Numeric]:
    """The parameters ``[loc, log_scale]``."""
    return [self._mean, self._log_scale]

  def sample(self, shape: Sequence[int], key: base.PRNGKey) -> jax.Array:
    r"""Draws samples of shape ``shape + loc.shape``.

    Args:
      shape: the batch shape of the samples.
      key: a PRNG key.

    Returns:
      :math:`\mu + e^{s} \epsilon` with standard normal :math:`\epsilon`.
    """
    sample_shape = tuple(shape) + self._param_shape
    noise = jax.random.normal(
        key, sample_shape, dtype=jnp.result_type(self._mean))
    return self._mean + self._scale * noise

  def log_prob(self, x: base.Numeric) -> jax.Array:
    r"""Log density, summed over the coordinates (the trailing dims).

    .. math::
      \log p(x) = \sum_i -\tfrac{1}{2}\Big(\frac{x_i - \mu_i}{e^{s_i}}\Big)^2
        - s_i - \tfrac{1}{2}\log 2\pi

    Args:
      x: points of shape ``batch_shape`` + the broadcast parameter shape.

    Returns:
      An array of shape ``batch_shape``.
    """
    z = (x - self._mean) / self._scale
    per_coordinate = (-0.5 * jnp.square(z) - self._log_scale
                      - 0.5 * math.log(2 * math.pi))
    axes = tuple(range(-len(self._param_shape), 0))
    return jnp.sum(per_coordinate, axis=axes)


def multi_normal(
    loc: base.Numeric, log_scale: base.Numeric
) -> MultiNormalDiagFromLogScale:
  """A diagonal Gaussian with mean ``loc`` and log std ``log_scale``.

  Examples:
    >>> import jax
    >>> import jax.numpy as jnp
    >>> from optax._src import utils
    >>> dist = utils.multi_normal(jnp.zeros(2), jnp.zeros(2))
    >>> dist.sample((5,), jax.random.key(0)).shape
    (5, 2)

  Args:
    loc: the mean.
    log_scale: the log standard deviation, of a shape that broadcasts with
      the shape of ``loc``.

  Returns:
    A :class:`MultiNormalDiagFromLogScale`.

  Raises:
    ValueError: if the shapes of ``loc`` and ``log_scale`` do not broadcast.
  """
  return MultiNormalDiagFromLogScale(loc=loc, log_scale=log_scale)


@jax.custom_vjp
def _scale_gradient(inputs: Any, scale: Any) -> Any:
  del scale
  return inputs


def _scale_gradient_fwd(inputs: Any, scale: Any) -> tuple[Any, Any]:
  return inputs, scale


def _scale_gradient_bwd(scale: Any, g: Any) -> tuple[Any, Any]:
  def scale_leaf(t):
    with jax.numpy_dtype_promotion('standard'):
      dtype = jnp.promote_types(t.dtype, scale.dtype)
    return (scale.astype(dtype) * t.astype(dtype)).astype(t.dtype)

  return jax.tree.map(scale_leaf, g), jnp.zeros_like(scale)


_scale_gradient.defvjp(_scale_gradient_fwd, _scale_gradient_bwd)


def scale_gradient(inputs: base.ArrayTree, scale: base.Numeric) -> Any:
  """The identity in the forward pass; multiplies gradients by ``scale``.

  ``scale=0`` stops gradients, ``scale=-1`` reverses them (as in gradient
  reversal layers).

  Examples:
    >>> import jax
    >>> import jax.numpy as jnp
    >>> from optax._src import utils
    >>> f = lambda x: jnp.sum(utils.scale_gradient(x, 0.5) ** 2)
    >>> jax.grad(f)(jnp.array([1.0, 2.0]))
    Array([1., 2.], dtype=float32)

  Args:
    inputs: a pytree of arrays.
    scale: the factor applied to the gradients (the gradient with respect to
      ``scale`` itself is zero).

  Returns:
    ``inputs``, unchanged.
  """
  if isinstance(scale, (int, float)) and scale == 1:
    return inputs
  if (not isinstance(scale, jax.core.Tracer) and np.ndim(scale) == 0
      and scale == 0):
    # As upstream: no gradient at all, so +0.0 where a product by zero
    # would give -0.0 (a negative cotangent) or nan (an infinite one).
    return jax.lax.stop_gradient(inputs)
  return _scale_gradient(inputs, jnp.asarray(scale))


def set_diags(a: jax.Array, new_diags: base.Numeric) -> jax.Array:
  """Replaces the diagonals of a batch of square matrices.

  Examples:
    >>> import jax.numpy as jnp
    >>> from optax._src import utils
    >>> utils.set_diags(jnp.zeros((1, 2, 2)), jnp.array([[1.0, 2.0]]))
    Array([[[1., 0.],
            [0., 2.]]], dtype=float32)

  Args:
    a: an array of shape ``(b, n, n)``.
    new_diags: an array of shape ``(b, n)``.

  Returns:
    ``a`` with ``a[i, j, j] = new_diags[i, j]``.

  Raises:
    ValueError: if the ranks or shapes do not fit.
  """
  if a.ndim != 3:
    raise ValueError(
        'set_diags: Expected `a` to be a 3D tensor of shape (n, d, d), got'
        f' {a.ndim}D instead (shape {a.shape}).')
  new_diags = jnp.asarray(new_diags)
  if new_diags.ndim != 2:
    raise ValueError(
        'set_diags: Expected `new_diags` to be a 2D array of shape (n, d), got'
        f' {new_diags.ndim}D instead (shape {new_diags.shape}).')
  batch, n, n1 = a.shape
  if n != n1:
    raise ValueError(
        'set_diags: Shape mismatch: expected `a.shape` to be'
        f' {(batch, n, n)} (square matrices), got {a.shape} instead.')
  if new_diags.shape != (batch, n):
    raise ValueError(
        'set_diags: Shape mismatch: expected `new_diags.shape` to be'
        f' {(batch, n)} for `a.shape` = {a.shape}, got {new_diags.shape}'
        ' instead.')
  idx = jnp.arange(n)
  return a.at[:, idx, idx].set(new_diags.astype(a.dtype))


def tile_second_to_last_dim(a: base.Numeric) -> jax.Array:
  """Repeats the last axis into a square: ``out[..., i, j] = a[..., i]``.

  Examples:
    >>> import jax.numpy as jnp
    >>> from optax._src import utils
    >>> utils.tile_second_to_last_dim(jnp.array([1.0, 2.0]))
    Array([[1., 1.],
           [2., 2.]], dtype=float32)

  Args:
    a: an array of shape ``(..., n)``.

  Returns:
    An array of shape ``(..., n, n)``.
  """
  a = jnp.asarray(a)
  return jnp.broadcast_to(a[..., None], a.shape + a.shape[-1:])


@contextlib.contextmanager
def x64_precision(enable_x64_precision: bool = True) -> Iterator[None]:
  """Sets ``jax_enable_x64`` inside a ``with`` block, then restores it.

  Also usable as a decorator (``@x64_precision()``).

  Examples:
    >>> import jax
    >>> import jax.numpy as jnp
    >>> from optax._src import utils
    >>> with utils.x64_precision():
    ...   print(jnp.ones(1).dtype)
    float64
    >>> print(jnp.ones(1).dtype)
    float32

  Args:
    enable_x64_precision: the value of ``jax_enable_x64`` inside the block.

  Yields:
    None.
  """
  previous = jax.config.jax_enable_x64
  jax.config.update('jax_enable_x64', enable_x64_precision)
  try:
    yield
  finally:
    jax.config.update('jax_enable_x64', previous)


_RELEASE = re.compile(r'\s*v?(\d+(?:\.\d+)*)')


def parse_version(version: str) -> tuple[int, ...]:
  """Parses the release part of a version string into a tuple of ints.

  Version strings must not be compared as strings (``'0.10.0' < '0.9.0'``
  is True); the tuples compare numerically. Only the leading release
  numbers are kept: pre-release, development and local suffixes
  (``rc1``, ``.dev2025``, ``+cuda12``) are dropped, so ``'0.8.1.dev1'``
  parses as the release it leads to.

  Examples:
    >>> from optax._src import utils
    >>> utils.parse_version('0.10.2')
    (0, 10, 2)
    >>> utils.parse_version('0.4.36rc1') < utils.parse_version('0.10.0')
    True

  Args:
    version: a version string such as ``jax.__version__``.

  Returns:
    The release numbers, e.g. ``(0, 10, 2)``.

  Raises:
    ValueError: if ``version`` does not start with a number.
  """
  match = _RELEASE.match(version) if isinstance(version, str) else None
  if match is None:
    raise ValueError(
        'parse_version: version must be a string starting with a release'
        f" number such as '0.8.1', got {version!r}.")
  return tuple(int(part) for part in match.group(1).split('.'))
