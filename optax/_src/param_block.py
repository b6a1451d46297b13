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
"""Per-leaf (parameter block) scaling by norms of the params.

Each leaf of the updates is rescaled by a statistic of the matching leaf of
the params: the trust ratio of LARS/LAMB (:func:`scale_by_trust_ratio`), the
norm (:func:`scale_by_param_block_norm`) or the root mean square
(:func:`scale_by_param_block_rms`). All need ``params`` in ``update``.

Upstream Optax defines these in ``optax._src.transform``, which re-exports
them and gives them that ``__module__`` so that pickles name the same module.
"""


import jax
import jax.numpy as jnp

from optax._src import arguments
from optax._src import base
from optax._src import dtypes
from optax._src import hyperparameters
from optax._src import numerics
from optax._src import prepared_inputs
from optax._src import tree_structure
from optax._src import validation

_hp = hyperparameters.as_hyperparameter  # Shorthand.


def _check_params_like_updates(fn: str, updates, params) -> None:
  """Raises a ValueError naming the key path where the two trees differ."""
  difference = tree_structure.structure_difference(
      updates, params, is_leaf=lambda x: x is None)
  if difference is not None:
    raise ValueError(
        f'{fn}: the updates and the params differ in structure {difference}'
        ' (updates != params). Remedy: give gradients structured as the'
        ' params.')


def _scaled_by_params(fn: str, leaf, *hyperparameters_: base.ScalarOrSchedule
                      ) -> base.GradientTransformation:
  """A stateless transformation scaling each leaf by a statistic of params.

  Args:
    fn: the public name, for the error messages.
    leaf: ``leaf(u, p, *h)``, the new update of an update leaf ``u`` and its
      param ``p``, given the hyperparameters ``h`` as arrays.
    *hyperparameters_: the hyperparameters passed to ``leaf``.

  Returns:
    The transformation; its ``update`` needs ``params`` structured as the
    updates.
  """

  def update_fn(updates, state, params=None):
    validation.require_params(fn, params)
    values = [_hp(h) for h in hyperparameters_]
    _check_params_like_updates(fn, updates, params)
    return jax.tree.map(lambda u, p: leaf(u, p, *values), updates,
                        params), state

  return prepared_inputs.with_prepared_inputs(
      fn, base.GradientTransformation(base.init_empty_state, update_fn))


def scale_by_trust_ratio(
    min_norm: float = 0.0,
    trust_coefficient: float = 1.0,
    eps: float = 0.0,
) -> base.GradientTransformation:
  r"""Rescales each leaf's update by its layer-wise trust ratio (LARS/LAMB).

  .. math::

    u^l_t = \begin{cases}
      \eta \frac{\|\theta^l\|}{\|g^l_t\| + \epsilon} g^l_t
        & \|\theta^l\| > 0 \text{ and } \|g^l_t\| > 0, \\
      g^l_t & \text{otherwise},
    \end{cases}

  where :math:`\eta` is ``trust_coefficient`` and both norms are floored at
  ``min_norm``.

  Args:
    min_norm: the lower bound of the norms.
    trust_coefficient: the factor :math:`\eta`.
    eps: term added to the update norm.

  Returns:
    A stateless ``GradientTransformation`` (state
    ``ScaleByTrustRatioState()``); ``update`` needs ``params``.

  Raises:
    ValueError: for Python-number negative ``min_norm`` or ``eps``, and in
      ``update`` when ``params`` is None.

  Examples:
    >>> import jax.numpy as jnp
    >>> from optax._src import transform
    >>> tx = transform.scale_by_trust_ratio()
    >>> params = jnp.array([3.0, 4.0])
    >>> updates, _ = tx.update(jnp.array([0.0, 0.5]), tx.init(params), params)
    >>> updates
    Array([0., 5.], dtype=float32)

  References:
    You, Gitman and Ginsburg, `Large Batch Training of Convolutional
    Networks <https://arxiv.org/abs/1708.03888>`_, 2017.

    You, Li, Reddi, Hseu, Kumar, Bhojanapalli, Song, Demmel, Keutzer and
    Hsieh, `Large Batch Optimization for Deep Learning: Training BERT in 76
    minutes <https://arxiv.org/abs/1904.00962>`_, 2020.
  """
  fn = 'scale_by_trust_ratio'
  validation.check_non_negative(fn, 'min_norm', min_norm)
  validation.check_non_negative(fn, 'eps', eps)
  validation.check_scalars_or_schedules(
      fn, min_norm=min_norm, trust_coefficient=trust_coefficient, eps=eps)

  def leaf(u, p, floor, coefficient, epsilon):
    x, p, floor, coefficient, epsilon = dtypes.lift(
        u, p, floor, coefficient, epsilon)
    param_norm = numerics.safe_norm(p, floor)
    update_norm = numerics.safe_norm(x, floor)
    ratio = coefficient * param_norm / (update_norm + epsilon)
    zero = jnp.logical_or(param_norm == 0, update_norm == 0)
    ratio = jnp.where(zero, jnp.ones_like(ratio), ratio)
    return (x * ratio).astype(u.dtype)

  return _scaled_by_params(fn, leaf, min_norm, trust_coefficient, eps)


@arguments.declare(min_scale=arguments.non_negative_scalar)
def scale_by_param_block_norm(
    min_scale: float = 1e-3,
) -> base.GradientTransformation:
  r"""Scales each leaf's update by the norm of that leaf of the params.

  .. math::

    u^l_t = \max(\|\theta^l\|, s_{\min}) \, g^l_t.

  Args:
    min_scale: the floor :math:`s_{\min}` of the norms.

  Returns:
    A stateless ``GradientTransformation``; ``update`` needs ``params``.

  Raises:
    ValueError: for a Python-number negative ``min_scale``, and in
      ``update`` when ``params`` is None.

  Examples:
    >>> import jax
    >>> import jax.numpy as jnp
    >>> from optax._src import transform
    >>> tx = transform.scale_by_param_block_norm(min_scale=0.1)
    >>> params = {'w': jnp.array([3.0, 4.0]), 'b': jnp.zeros(1)}
    >>> grads = jax.tree.map(jnp.ones_like, params)
    >>> tx.update(grads, tx.init(params), params)[0]  # b's norm is floored
    {'b': Array([0.1], dtype=float32), 'w': Array([5., 5.], dtype=float32)}

  .. seealso:: :func:`scale_by_param_block_rms`
  """

  def leaf(u, p, floor):
    x, p, floor = dtypes.lift(u, p, floor)
    return (x * numerics.safe_norm(p, floor)).astype(u.dtype)

  return _scaled_by_params('scale_by_param_block_norm', leaf, min_scale)


@arguments.declare(min_scale=arguments.non_negative_scalar)
def scale_by_param_block_rms(
    min_scale: float = 1e-3,
) -> base.GradientTransformation:
  r"""Multiplies each update leaf by the root mean square of its param leaf.

  .. math::

    u^l_t = \max\left(\sqrt{\operatorname{mean}((\theta^l)^2)},
      s_{\min}\right) g^l_t.

  A leaf of zeros (or of a root mean square below :math:`s_{\min}`) gets
  the factor :math:`s_{\min}`.

  Args:
    min_scale: the smallest factor :math:`s_{\min}` (not negative).

  Returns:
    A ``GradientTransformation`` without state, whose ``update`` must be
    given the params (a ValueError otherwise).

  Raises:
    ValueError: when ``min_scale`` is a negative Python number.

  Examples:
    >>> import jax.numpy as jnp
    >>> from optax._src import transform
    >>> tx = transform.scale_by_param_block_rms(min_scale=0.5)
    >>> params = (jnp.array([3.0, -3.0]), jnp.zeros(2))
    >>> grads = (jnp.array([1.0, 2.0]), jnp.array([1.0, 2.0]))
    >>> tx.update(grads, tx.init(params), params)[0]
    (Array([3., 6.], dtype=float32), Array([0.5, 1. ], dtype=float32))

  .. seealso:: :func:`scale_by_param_block_norm`
  """

  def leaf(u, p, floor):
    x, p, floor = dtypes.lift(u, p, floor)
    # The RMS of a complex parameter is real: the floor stays real too.
    rms = numerics.safe_root_mean_squares(p, floor.real).astype(x.dtype)
    return (x * rms).astype(u.dtype)

  return _scaled_by_params('scale_by_param_block_rms', leaf, min_scale)
