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
"""Stateless normalizations of the updates.

Gradient Centralization (:func:`centralize`, per leaf of rank 2 or more) and
the division by the global norm (:func:`normalize_by_update_norm`).

Upstream Optax defines these in ``optax._src.transform``, which re-exports
them and gives them that ``__module__`` so that pickles name the same module.
"""


import jax
import jax.numpy as jnp

from optax import tree_utils as otu
from optax._src import base
from optax._src import hyperparameters
from optax._src import moments
from optax._src import prepared_inputs
from optax._src import validation

_hp = hyperparameters.as_hyperparameter  # Shorthand.


def centralize() -> base.GradientTransformation:
  r"""Centralizes each update of rank 2 or more (Gradient Centralization).

  For a leaf of rank at least 2, the mean over all axes but the first is
  subtracted:

  .. math::

    u_t[i, \ldots] = g_t[i, \ldots] - \operatorname{mean}(g_t[i, \ldots]).

  Leaves of rank 0 or 1 (biases, scales) are left unchanged.

  Returns:
    A stateless ``GradientTransformation``.

  Examples:
    >>> import jax.numpy as jnp
    >>> from optax._src import transform
    >>> tx = transform.centralize()
    >>> g = jnp.array([[1.0, 3.0], [0.0, 4.0]])
    >>> updates, _ = tx.update(g, tx.init(None))
    >>> updates
    Array([[-1.,  1.],
           [-2.,  2.]], dtype=float32)

  References:
    Yong, Huang, Hua and Zhang, `Gradient Centralization: A New
    Optimization Technique for Deep Neural Networks
    <https://arxiv.org/abs/2004.01461>`_, 2020.
  """

  def leaf(g):
    if g.ndim < 2:
      return g
    return g - jnp.mean(g, axis=tuple(range(1, g.ndim)), keepdims=True)

  def update_fn(updates, state, params=None):
    del params
    return jax.tree.map(leaf, updates), state

  return prepared_inputs.with_prepared_inputs(
      'centralize',
      base.GradientTransformation(base.init_empty_state, update_fn))


def normalize_by_update_norm(
    scale_factor: float = 1.0,
    eps: float = 1e-6,
) -> base.GradientTransformation:
  r"""Divides the updates by their global norm.

  .. math::

    u_t = s \, \frac{g_t}{\|g_t\| + \epsilon},

  the norm being taken over the whole tree.

  Args:
    scale_factor: the factor :math:`s` (the norm of the result, up to
      :math:`\epsilon`).
    eps: term :math:`\epsilon` added to the norm.

  Returns:
    A stateless ``GradientTransformation``.

  Raises:
    ValueError: for a Python-number negative ``eps``.

  Examples:
    >>> import jax.numpy as jnp
    >>> from optax._src import transform
    >>> tx = transform.normalize_by_update_norm(eps=0.0)
    >>> updates, _ = tx.update(jnp.array([3.0, 4.0]), tx.init(None))
    >>> updates
    Array([0.6, 0.8], dtype=float32)
  """
  fn = 'normalize_by_update_norm'
  validation.check_non_negative(fn, 'eps', eps)
  validation.check_scalars_or_schedules(fn, scale_factor=scale_factor, eps=eps)

  def update_fn(updates, state, params=None):
    del params
    norm = otu.tree_norm(updates).astype(hyperparameters.hyperparameter_dtype())
    factor = _hp(scale_factor) / (norm + _hp(eps))
    return moments.scale_leaves(factor, updates), state

  return prepared_inputs.with_prepared_inputs(
      fn, base.GradientTransformation(base.init_empty_state, update_fn))
