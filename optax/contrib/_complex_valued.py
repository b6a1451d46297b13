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
"""Optimizing complex parameters as pairs of real ones.

Many optimizers treat a complex number :math:`z = x + iy` as one scalar
(Adam's second moment uses :math:`|z|^2`). :func:`split_real_and_imaginary`
instead lets the inner optimizer see :math:`x` and :math:`y` as two
independent real parameters, as if the model had been written with real
parameters.
"""

from typing import Any, NamedTuple

import jax
from jax import lax
import jax.numpy as jnp

from optax._src import base
from optax._src import prepared_inputs


class SplitRealAndImaginaryArrays(NamedTuple):
  """The real and imaginary parts of a complex array (a pytree node).

  Attributes:
    real: the real part.
    imaginary: the imaginary part.
  """

  real: Any
  imaginary: Any


class SplitRealAndImaginaryState(NamedTuple):
  """State of :func:`split_real_and_imaginary`.

  Attributes:
    inner_state: the state of the inner transformation, built on the params
      with each complex leaf replaced by a
      :class:`SplitRealAndImaginaryArrays` pair.
  """

  inner_state: base.OptState


def _complex_to_real_pair(x: Any) -> Any:
  """Splits a complex leaf into a (real, imaginary) pair; others pass."""
  dtype = getattr(x, 'dtype', None)
  if dtype is None or not jnp.issubdtype(dtype, jnp.complexfloating):
    return x
  if isinstance(x, jax.ShapeDtypeStruct):
    part = jax.ShapeDtypeStruct(x.shape, jnp.finfo(dtype).dtype,
                                sharding=x.sharding)
    return SplitRealAndImaginaryArrays(part, part)
  return SplitRealAndImaginaryArrays(jnp.real(x), jnp.imag(x))


def _real_pair_to_complex(x: Any) -> Any:
  """Joins a (real, imaginary) pair into a complex array; others pass."""
  if isinstance(x, SplitRealAndImaginaryArrays):
    return lax.complex(x.real, x.imaginary)
  return x


def _split(tree: Any) -> Any:
  return jax.tree.map(_complex_to_real_pair, tree)


def _join(tree: Any) -> Any:
  return jax.tree.map(
      _real_pair_to_complex, tree,
      is_leaf=lambda x: isinstance(x, SplitRealAndImaginaryArrays))


def split_real_and_imaginary(
    inner: base.GradientTransformation,
) -> base.GradientTransformationExtraArgs:
  r"""Runs ``inner`` on the real and imaginary parts of complex leaves.

  Each complex leaf :math:`z = x + iy` of the params and updates is
  replaced by the pair :math:`(x, y)` (a :class:`SplitRealAndImaginaryArrays`
  node) before it reaches ``inner``, and the pair of updates ``inner``
  returns is joined back into :math:`u_x + i u_y`. Real leaves pass
  unchanged. For Adam, the second moments of :math:`x` and :math:`y` are
  then kept apart instead of being that of :math:`|z|`.

  Args:
    inner: the transformation to apply to the split params.

  Returns:
    A ``GradientTransformationExtraArgs`` whose state is a
    :class:`SplitRealAndImaginaryState`; extra arguments of ``update`` go to
    ``inner``.

  Examples:
    >>> import jax.numpy as jnp
    >>> import optax
    >>> tx = optax.contrib.split_real_and_imaginary(optax.adam(0.1))
    >>> params = jnp.array([1.0 + 1.0j])
    >>> updates, _ = tx.update(jnp.array([2.0 - 0.5j]), tx.init(params))
    >>> print(updates)  # Each part gets Adam's first step, -0.1 * sign.
    [-0.1+0.1j]
  """
  inner = base.with_extra_args_support(inner)

  def init_fn(params):
    return SplitRealAndImaginaryState(inner_state=inner.init(_split(params)))

  def update_fn(updates, state, params=None, **extra_args):
    split_params = None if params is None else _split(params)
    new_updates, inner_state = inner.update(
        _split(updates), state.inner_state, split_params, **extra_args)
    return _join(new_updates), SplitRealAndImaginaryState(
        inner_state=inner_state)

  return prepared_inputs.with_prepared_inputs(
      'split_real_and_imaginary',
      base.GradientTransformationExtraArgs(init_fn, update_fn))
