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
"""Parameter tensors seen as matrices, for Muon and GaLore.

Both optimizers work on matrices: a parameter tensor is viewed as a batch of
matrices whose rows are its *reduction* (fan-in) axes and whose columns are
its *output* (fan-out) axes, named by a dimension-numbers NamedTuple with the
fields ``reduction_axis`` and ``output_axis`` (``MuonDimensionNumbers``,
``GaLoreDimensionNumbers``). This module holds what they share:

* :func:`normalize_axes`, :func:`fan_in_out`: the axes, checked, and the
  matrix sizes;
* :func:`matrix_reshape`: to ``(batch, fan_in, fan_out)`` and back;
* :func:`leafwise_dim_nums`: one dimension-numbers entry per leaf of the
  params, from a single entry, a tree of them or a function;
* :func:`gather` / :func:`scatter`: a whole (replicated) matrix from an
  explicitly sharded array, and the sharding back.
"""

import math
from typing import Any, Callable, Optional, Sequence, Union

import jax
import jax.numpy as jnp
import numpy as np

from optax._src import sharding as sharding_lib
from optax._src import tree_or_function


def _as_axes(axes: Union[Sequence[int], int]) -> tuple[int, ...]:
  if isinstance(axes, (int, np.integer)):
    return (int(axes),)
  return tuple(int(a) for a in axes)


def normalize_axes(
    x: Any, dim_nums: Any
) -> tuple[tuple[int, ...], tuple[int, ...]]:
  """The reduction and output axes of ``x``, non-negative and checked.

  Examples:
    >>> import jax.numpy as jnp
    >>> from optax.contrib import _matrix_helpers
    >>> from optax.contrib import _muon
    >>> _matrix_helpers.normalize_axes(
    ...     jnp.zeros((2, 3, 4)), _muon.MuonDimensionNumbers(-2, (0, 2)))
    ((1,), (0, 2))

  Args:
    x: an array (or anything with a ``shape``).
    dim_nums: a NamedTuple with fields ``reduction_axis`` and
      ``output_axis``, each an axis or a sequence of axes (negative axes
      count from the end).

  Returns:
    ``(reduction, output)``, tuples of axes in ``range(x.ndim)``.

  Raises:
    ValueError: naming the dimension-numbers class, if a group is empty, an
      axis is out of range, or an axis is in both groups.
  """
  ndim = len(x.shape)
  reduction, output = (_as_axes(dim_nums.reduction_axis),
                       _as_axes(dim_nums.output_axis))
  for name, axes in (('reduction_axis', reduction), ('output_axis', output)):
    if not axes:
      raise ValueError(
          f'{type(dim_nums).__name__}: {name} must name at least one axis,'
          f' got {dim_nums}')
    for a in axes:
      if not -ndim <= a < ndim:
        raise ValueError(
            f'{type(dim_nums).__name__}: {name} {a} is out of range for a'
            f' tensor of shape {tuple(x.shape)}')
  reduction = tuple(a % ndim for a in reduction)
  output = tuple(a % ndim for a in output)
  if len(set(reduction + output)) != len(reduction + output):
    raise ValueError(
        f'{type(dim_nums).__name__}: reduction_axis and output_axis must be'
        f' distinct axes, got {dim_nums} for a tensor of shape'
        f' {tuple(x.shape)}')
  return reduction, output


def fan_in_out(x: Any, dim_nums: Any) -> tuple[int, int]:
  """The sizes of the reduction (fan-in) and output (fan-out) dimensions.

  Args:
    x: an array (or anything with a ``shape``).
    dim_nums: the dimension numbers (see :func:`normalize_axes`).

  Returns:
    ``(fan_in, fan_out)``: the products of the sizes of the reduction axes
    and of the output axes.
  """
  reduction, output = normalize_axes(x, dim_nums)
  return (math.prod(x.shape[a] for a in reduction),
          math.prod(x.shape[a] for a in output))


def matrix_reshape(
    x: Any, dim_nums: Any
) -> tuple[Callable[[jax.Array], jax.Array], Callable[[jax.Array],
                                                     jax.Array]]:
  """Functions viewing ``x`` as a batch of matrices, and back.

  Examples:
    >>> import jax.numpy as jnp
    >>> from optax.contrib import _matrix_helpers
    >>> from optax.contrib import _muon
    >>> x = jnp.zeros((2, 3, 4))
    >>> to_matrices, back = _matrix_helpers.matrix_reshape(
    ...     x, _muon.MuonDimensionNumbers(reduction_axis=2, output_axis=1))
    >>> to_matrices(x).shape, back(to_matrices(x)).shape
    ((2, 4, 3), (2, 3, 4))

  Args:
    x: an array (or anything with a ``shape``).
    dim_nums: which axes form the rows and the columns of the matrices (see
      :func:`normalize_axes`).

  Returns:
    ``(reshape_fn, inverse_fn)``: ``reshape_fn`` maps an array shaped like
    ``x`` to shape ``(batch, fan_in, fan_out)`` (batch axes in their order,
    then the reduction axes, then the output axes, each group in the order
    given); ``inverse_fn`` undoes it.
  """
  reduction, output = normalize_axes(x, dim_nums)
  shape = tuple(x.shape)
  batch = tuple(a for a in range(len(shape)) if a not in reduction + output)
  perm = batch + reduction + output
  inverse_perm = tuple(int(i) for i in np.argsort(perm))
  permuted_shape = tuple(shape[a] for a in perm)
  matrices_shape = (math.prod(shape[a] for a in batch),
                    math.prod(shape[a] for a in reduction),
                    math.prod(shape[a] for a in output))

  def reshape_fn(y: jax.Array) -> jax.Array:
    return jnp.transpose(y, perm).reshape(matrices_shape)

  def inverse_fn(y: jax.Array) -> jax.Array:
    return jnp.transpose(y.reshape(permuted_shape), inverse_perm)

  return reshape_fn, inverse_fn


class _Box:
  """Holds a value as a pytree leaf."""

  def __init__(self, value: Any):
    self.value = value


def leafwise_dim_nums(
    fn: str,
    spec: Any,
    tree: Any,
    dims_type: type[Any],
    default: Optional[Callable[[Any], Any]] = None,
) -> list[Any]:
  """One dimension-numbers entry (or None) per array leaf of ``tree``.

  Examples:
    >>> import jax.numpy as jnp
    >>> from optax.contrib import _matrix_helpers
    >>> from optax.contrib import _muon
    >>> dims = _muon.MuonDimensionNumbers
    >>> params = {'b': jnp.zeros(2), 'w': jnp.zeros((2, 3))}
    >>> _matrix_helpers.leafwise_dim_nums(
    ...     'muon', {'b': None, 'w': dims(1, 0)}, params, dims)
    [None, MuonDimensionNumbers(reduction_axis=1, output_axis=0)]

  Args:
    fn: the name of the calling function, for error messages.
    spec: None (each leaf gets ``default(leaf)``, by default
      ``dims_type()``), a tree (a prefix of ``tree``) of ``dims_type`` and
      None, or a function of ``tree`` returning one of these (a callable
      pytree shaped like ``tree``, an Equinox module, is a tree: see
      :func:`optax._src.tree_or_function.is_function`).
    tree: the params or updates.
    dims_type: the NamedTuple class of the dimension numbers.
    default: the dimension numbers of a leaf when ``spec`` is None.

  Returns:
    A list with an entry per leaf of ``jax.tree.leaves(tree)``.

  Raises:
    ValueError: naming ``fn``, if ``spec`` is not a prefix of ``tree``.
  """
  is_dims_leaf = lambda x: x is None or isinstance(x, dims_type)
  spec = tree_or_function.resolve(
      spec, tree, fn_name=fn, arg_name='the weight dimension numbers',
      is_leaf=is_dims_leaf)
  if spec is None:
    if default is None:
      return [dims_type()] * len(jax.tree.leaves(tree))
    return [default(x) for x in jax.tree.leaves(tree)]
  try:
    # Each leaf of the params becomes an opaque box (a pytree leaf) holding
    # the entry of its subtree: a list would be confused with a list node
    # of the params, and None or a NamedTuple would not stay leaves.
    boxed = jax.tree.map(
        lambda d, sub: jax.tree.map(lambda _: _Box(d), sub), spec, tree,
        is_leaf=is_dims_leaf)
  except ValueError as e:
    raise ValueError(
        f'{fn}: the weight dimension numbers must be a'
        f' {dims_type.__name__}, or a tree of them (and None) with the'
        ' structure of the params (or a prefix of it); they do not match'
        f' the params: {e}') from e
  return [box.value for box in jax.tree.leaves(boxed)]


def gather(x: jax.Array) -> tuple[jax.Array, Any]:
  """Replicates an array whose type carries an explicit sharding.

  Matrix products and decompositions of such an array would contract or
  split sharded axes (an error under explicit sharding); Muon and GaLore
  need each matrix whole anyway.

  Args:
    x: an array.

  Returns:
    ``(x, None)`` when ``x`` is not sharded in its type (see
    :mod:`optax._src.sharding`), else ``x`` replicated and its original
    sharding (for :func:`scatter`).
  """
  whole = sharding_lib.replicated(x)
  if whole is None:
    return x, None
  return jax.sharding.reshard(x, whole), jax.typeof(x).sharding


def scatter(x: jax.Array, sharding: Any) -> jax.Array:
  """Gives ``x`` back the sharding removed by :func:`gather`.

  Args:
    x: an array.
    sharding: the second output of :func:`gather` (None: no sharding).

  Returns:
    ``x``, resharded to ``sharding`` unless it is None.
  """
  return x if sharding is None else jax.sharding.reshard(x, sharding)
