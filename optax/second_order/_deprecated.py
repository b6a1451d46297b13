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
"""Second-order quantities of a loss: Hessian-vector products, diagonals.

These functions are deprecated (as in Optax 0.2.8) and will be removed in
Optax 0.2.9: each call emits a ``DeprecationWarning``. Use JAX directly
instead, e.g. ``jax.jvp(jax.grad(f), (params,), (v,))[1]`` for a
Hessian-vector product.
"""

from collections.abc import Callable
from typing import Any
import warnings

import jax
import jax.flatten_util
import jax.numpy as jnp

LossFn = Callable[[Any, jax.Array, jax.Array], jax.Array]
"""A loss ``loss(params, inputs, targets)`` returning a scalar."""

_REMOVED_IN = '0.2.9'


def _warn_deprecated(name: str) -> None:
  # stacklevel=3: the warning points at the caller of the public function.
  warnings.warn(
      f'The function {name} is deprecated. This function will be/was removed'
      f' in optax {_REMOVED_IN}.',
      DeprecationWarning,
      stacklevel=3,
  )


def hvp(
    loss: LossFn,
    v: jax.Array,
    params: Any,
    inputs: jax.Array,
    targets: jax.Array,
) -> Any:
  r"""Hessian-vector product of a loss with respect to the parameters.

  .. math::

    H v = \nabla^2_\theta \ell(\theta; x, y) \, v ,

  computed in forward-over-reverse mode (the JVP of the gradient), without
  forming :math:`H`.

  .. warning:: Deprecated; will be removed in Optax 0.2.9.

  Examples:
    >>> import warnings
    >>> import jax.numpy as jnp
    >>> from optax import second_order
    >>> def loss(params, x, y):
    ...   scale, shift = params
    ...   return jnp.sum((x * scale + shift - y) ** 2)
    >>> v = jnp.array([1.0, 0.0])  # A direction in (scale, shift).
    >>> with warnings.catch_warnings(action='ignore'):
    ...   second_order.hvp(loss, v, (jnp.zeros(()), jnp.zeros(())),
    ...                    jnp.array([1.0, 2.0]), jnp.zeros(2))
    (Array(10., dtype=float32), Array(6., dtype=float32))

  Args:
    loss: the loss ``loss(params, inputs, targets)``, a scalar.
    v: a flat vector with as many entries as the parameters, in the order of
      ``jax.flatten_util.ravel_pytree(params)``.
    params: the parameters (a pytree).
    inputs: the inputs of the loss.
    targets: the targets of the loss.

  Returns:
    :math:`H v` as a pytree shaped like ``params``.
  """
  _warn_deprecated('hvp')
  _, unravel = jax.flatten_util.ravel_pytree(params)
  grad_fn = lambda p: jax.grad(loss)(p, inputs, targets)
  return jax.jvp(grad_fn, (params,), (unravel(v),))[1]


def hessian_diag(
    loss: LossFn,
    params: Any,
    inputs: jax.Array,
    targets: jax.Array,
) -> jax.Array:
  r"""Diagonal of the Hessian of a loss with respect to the parameters.

  .. math::

    \mathrm{diag}(H)_i = e_i^\top H e_i ,

  one Hessian-vector product per basis vector :math:`e_i` (vectorised with
  ``jax.vmap``), so the cost grows with the number of parameters: use it for
  small models only.

  .. warning:: Deprecated; will be removed in Optax 0.2.9.

  Examples:
    >>> import warnings
    >>> import jax.numpy as jnp
    >>> from optax import second_order
    >>> def loss(params, x, y):  # Raveled in key order: b, then w.
    ...   return jnp.sum((x * params['w'] + params['b'] - y) ** 2)
    >>> params = {'w': jnp.zeros(2), 'b': jnp.zeros(())}
    >>> with warnings.catch_warnings():
    ...   warnings.simplefilter('ignore')
    ...   second_order.hessian_diag(loss, params, jnp.array([1.0, 2.0]),
    ...                             jnp.zeros(2))
    Array([4., 2., 8.], dtype=float32)

  Args:
    loss: the scalar loss, called as ``loss(params, inputs, targets)``.
    params: the pytree of parameters where the Hessian is taken.
    inputs: the loss's inputs.
    targets: the loss's targets.

  Returns:
    The diagonal as a flat vector, in the order of
    ``jax.flatten_util.ravel_pytree(params)``.
  """
  _warn_deprecated('hessian_diag')
  flat_params, _ = jax.flatten_util.ravel_pytree(params)
  basis = jnp.eye(flat_params.size, dtype=flat_params.dtype)

  def diag_entry(e):
    product = hvp(loss, e, params, inputs, targets)
    return jnp.vdot(e, jax.flatten_util.ravel_pytree(product)[0])

  return jax.vmap(diag_entry)(basis)


def fisher_diag(
    negative_log_likelihood: LossFn,
    params: Any,
    inputs: jax.Array,
    targets: jax.Array,
) -> jax.Array:
  r"""Diagonal of the empirical Fisher information matrix.

  .. math::

    \mathrm{diag}(F) = \left(\nabla_\theta \, \mathrm{nll}(\theta; x, y)
    \right)^2 \quad \text{(elementwise)},

  the square of the gradient of the negative log-likelihood of the given
  batch.

  .. warning:: Deprecated; will be removed in Optax 0.2.9.

  Examples:
    >>> import warnings
    >>> import jax.numpy as jnp
    >>> from optax import second_order
    >>> nll = lambda p, x, y: jnp.sum((x * p - y) ** 2)
    >>> with warnings.catch_warnings(record=True) as caught:
    ...   warnings.simplefilter('always')
    ...   diag = second_order.fisher_diag(
    ...       nll, jnp.ones(2), jnp.array([1.0, 2.0]), jnp.zeros(2))
    >>> diag, caught[0].category.__name__
    (Array([ 4., 64.], dtype=float32), 'DeprecationWarning')

  Args:
    negative_log_likelihood: the negative log-likelihood
      ``nll(params, inputs, targets)``, a scalar.
    params: the parameters (a pytree).
    inputs: the inputs.
    targets: the targets.

  Returns:
    The diagonal as a flat vector, in the order of
    ``jax.flatten_util.ravel_pytree(params)``.
  """
  _warn_deprecated('fisher_diag')
  grads = jax.grad(negative_log_likelihood)(params, inputs, targets)
  return jnp.square(jax.flatten_util.ravel_pytree(grads)[0])
