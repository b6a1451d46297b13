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
"""AdEMAMix: Adam with a mixture of a fast and a slow momentum, and its
simplified (single-momentum) variant."""

from typing import Any, NamedTuple, Optional

import jax
import jax.numpy as jnp

from optax import tree_utils as otu
from optax._src import arguments
from optax._src import base
from optax._src import dtypes
from optax._src import hyperparameters
from optax._src import numerics
from optax._src import prepared_inputs
from optax._src import transform
from optax._src import utils
from optax.transforms import _adding
from optax.transforms import _combining


def _correction(decay: jax.Array, count: jax.Array) -> jax.Array:
  """``1 - decay ** count``, once per step."""
  return 1 - decay ** count.astype(decay.dtype)


class ScaleByAdemamixState(NamedTuple):
  """State of :func:`scale_by_ademamix`.

  Attributes:
    count: int32 scalar, the number of updates done so far (drives the bias
      corrections of ``m1`` and ``nu``).
    count_m2: int32 scalar, the number of updates of the slow momentum (the
      argument of the ``b3`` and ``alpha`` schedules).
    m1: fast EMA of the updates, shaped like the params, in ``mu_dtype`` or
      the params' dtype.
    m2: slow EMA of the updates, shaped and typed like ``m1``.
    nu: EMA of the squared moduli of the updates, shaped and typed like
      ``m1``.
  """

  count: jax.Array
  count_m2: jax.Array
  m1: base.Updates
  m2: base.Updates
  nu: base.Updates


@arguments.declare(
    b1=arguments.decay_scalar, b2=arguments.decay_scalar,
    b3=arguments.closed_decay_scalar, alpha=arguments.scalar_or_schedule,
    eps=arguments.non_negative_scalar, eps_root=arguments.non_negative_scalar)
def scale_by_ademamix(
    b1: float = 0.9,
    b2: float = 0.999,
    b3: base.ScalarOrSchedule = 0.9999,
    alpha: base.ScalarOrSchedule = 6.0,
    eps: float = 1e-8,
    eps_root: float = 0.0,
    mu_dtype: Optional[Any] = None,
) -> base.GradientTransformation:
  r"""Rescales updates by the AdEMAMix rule.

  AdEMAMix adds to Adam's (fast, bias-corrected) momentum a slow momentum,
  an EMA with a decay :math:`\beta_3` close to one, weighted by
  :math:`\alpha`:

  .. math::

    m^{(1)}_t &= \beta_1 m^{(1)}_{t-1} + (1 - \beta_1) g_t, \\
    m^{(2)}_t &= \beta_3 m^{(2)}_{t-1} + (1 - \beta_3) g_t, \\
    \nu_t &= \beta_2 \nu_{t-1} + (1 - \beta_2) |g_t|^2, \\
    u_t &= \frac{m^{(1)}_t / (1 - \beta_1^t) + \alpha\, m^{(2)}_t}
      {\sqrt{\nu_t / (1 - \beta_2^t) + \epsilon_{\text{root}}} + \epsilon}.

  ``b3`` and ``alpha`` may be schedules (the paper warms them up), evaluated
  on ``count_m2``, the number of updates done before this one.

  Args:
    b1: decay rate :math:`\beta_1` of the fast momentum, in [0, 1).
    b2: decay rate :math:`\beta_2` of the second moment, in [0, 1).
    b3: decay rate :math:`\beta_3` of the slow momentum, in [0, 1], or a
      schedule.
    alpha: weight :math:`\alpha` of the slow momentum, or a schedule.
    eps: term :math:`\epsilon` added to the denominator outside the root.
    eps_root: term :math:`\epsilon_{\text{root}}` added inside the root.
    mu_dtype: dtype of the moments ``m1``, ``m2`` and ``nu``; ``None`` uses
      the params' dtype.

  Returns:
    A ``GradientTransformation`` whose state is a
    :class:`ScaleByAdemamixState`.

  Raises:
    TypeError: for a hyperparameter that is not a scalar (a vector, a
      string).
    ValueError: if a Python-number decay rate is out of range or ``eps`` or
      ``eps_root`` is negative.

  Examples:
    >>> import jax.numpy as jnp
    >>> from optax.contrib import _ademamix
    >>> tx = _ademamix.scale_by_ademamix(b3=0.5, alpha=2.0)
    >>> state = tx.init(jnp.zeros(2))
    >>> u, state = tx.update(jnp.array([2.0, -0.5]), state)
    >>> u
    Array([ 2., -2.], dtype=float32)

  References:
    Pagliardini, Ablin and Grangier, `The AdEMAMix Optimizer: Better,
    Faster, Older <https://arxiv.org/abs/2409.03137>`_, 2024.

  .. seealso:: :func:`ademamix`, :func:`scale_by_simplified_ademamix`
  """
  mu_dtype = utils.canonicalize_dtype(mu_dtype)

  def init_fn(params):
    return ScaleByAdemamixState(
        count=jnp.zeros([], jnp.int32),
        count_m2=jnp.zeros([], jnp.int32),
        m1=otu.tree_zeros_like(params, dtype=mu_dtype),
        m2=otu.tree_zeros_like(params, dtype=mu_dtype),
        nu=otu.tree_zeros_like(params, dtype=mu_dtype))

  def update_fn(updates, state, params=None):
    del params
    beta1 = hyperparameters.as_hyperparameter(b1)
    beta2 = hyperparameters.as_hyperparameter(b2)
    beta3 = hyperparameters.as_hyperparameter(
        b3(state.count_m2) if callable(b3) else b3)
    mix = hyperparameters.as_hyperparameter(
        alpha(state.count_m2) if callable(alpha) else alpha)
    epsilon = hyperparameters.as_hyperparameter(eps)
    epsilon_root = hyperparameters.as_hyperparameter(eps_root)
    m1 = otu.tree_update_moment(updates, state.m1, beta1, 1)
    m2 = otu.tree_update_moment(updates, state.m2, beta3, 1)
    nu = otu.tree_update_moment_per_elem_norm(updates, state.nu, beta2, 2)
    count = numerics.safe_increment(state.count)
    correction1 = _correction(beta1, count)
    correction2 = _correction(beta2, count)

    def leaf_update(g, a, b, v):
      dtype = dtypes.promote_dtypes(a.dtype, v.dtype, epsilon.dtype)
      a_hat = a.astype(dtype) / correction1.astype(dtype)
      v_hat = v.astype(dtype) / correction2.astype(dtype)
      num = a_hat + mix.astype(dtype) * b.astype(dtype)
      den = jnp.sqrt(v_hat + epsilon_root.astype(dtype)) + epsilon.astype(
          dtype)
      return (num / den).astype(g.dtype)

    new_updates = jax.tree.map(leaf_update, updates, m1, m2, nu)
    return new_updates, ScaleByAdemamixState(
        count=count,
        count_m2=numerics.safe_increment(state.count_m2),
        m1=m1, m2=m2, nu=nu)

  return prepared_inputs.with_prepared_inputs(
      'scale_by_ademamix', base.GradientTransformation(init_fn, update_fn))


@arguments.declare()
def ademamix(
    learning_rate: base.ScalarOrSchedule,
    b1: float = 0.9,
    b2: float = 0.999,
    b3: base.ScalarOrSchedule = 0.9999,
    alpha: base.ScalarOrSchedule = 5.0,
    eps: float = 1e-8,
    eps_root: float = 0.0,
    mu_dtype: Optional[Any] = None,
    weight_decay: base.ScalarOrSchedule = 0.0,
    mask: base.MaskOrFn = None,
) -> base.GradientTransformationExtraArgs:
  r"""The AdEMAMix optimizer, with decoupled weight decay.

  .. math::

    \theta_t = \theta_{t-1} - \eta_t \left(u_t + \lambda \theta_{t-1}\right),

  with :math:`u_t` the direction of :func:`scale_by_ademamix`. The paper
  warms up ``alpha`` and ``b3`` with schedules over many steps; both accept
  a schedule here.

  Args:
    learning_rate: the learning rate :math:`\eta`, a number or a schedule.
    b1: decay rate of the fast momentum.
    b2: decay rate of the second moment.
    b3: decay rate of the slow momentum, or a schedule.
    alpha: weight of the slow momentum, or a schedule.
    eps: term added to the denominator outside the root.
    eps_root: term added inside the root.
    mu_dtype: dtype of the moments; ``None`` uses the params' dtype.
    weight_decay: the coefficient :math:`\lambda` of the decoupled weight
      decay, a number or a schedule.
    mask: a tree of booleans (or a function of the params returning one)
      selecting the leaves to decay.

  Returns:
    A ``GradientTransformationExtraArgs``; its ``update`` requires ``params``.

  Examples:
    >>> import jax.numpy as jnp
    >>> from optax.contrib import _ademamix
    >>> opt = _ademamix.ademamix(learning_rate=0.1, b3=0.5, alpha=2.0)
    >>> params = jnp.array([1.0, -2.0])
    >>> updates, _ = opt.update(2 * params, opt.init(params), params)
    >>> updates
    Array([-0.2,  0.2], dtype=float32)

  References:
    Pagliardini, Ablin and Grangier, `The AdEMAMix Optimizer: Better,
    Faster, Older <https://arxiv.org/abs/2409.03137>`_, 2024.

  .. seealso:: :func:`scale_by_ademamix`, :func:`simplified_ademamix`
  """
  return _combining.chain(
      scale_by_ademamix(b1=b1, b2=b2, b3=b3, alpha=alpha, eps=eps,
                        eps_root=eps_root, mu_dtype=mu_dtype),
      _adding.add_decayed_weights(weight_decay, mask),
      transform.scale_by_learning_rate(learning_rate),
  )


class ScaleBySimplifiedAdEMAMixState(NamedTuple):
  """State of :func:`scale_by_simplified_ademamix`.

  Attributes:
    t: int32 scalar, the number of updates done so far.
    m: accumulated momentum (a discounted sum, not an average), shaped and
      typed like the params.
    n: EMA of the squared moduli of the updates, shaped and typed like the
      params.
  """

  t: jax.Array
  m: base.Updates
  n: base.Updates


@arguments.declare(
    b1=arguments.closed_decay_scalar, b2=arguments.decay_scalar,
    alpha=arguments.scalar_or_schedule, eps=arguments.non_negative_scalar,
    eps_root=arguments.non_negative_scalar)
def scale_by_simplified_ademamix(
    b1: float = 0.99,
    b2: float = 0.95,
    alpha: float = 0.0,
    eps: float = 1e-8,
    eps_root: float = 0.0,
) -> base.GradientTransformation:
  r"""Rescales updates by the simplified AdEMAMix rule.

  A single momentum, a discounted *sum* of the updates, is mixed with the
  current update:

  .. math::

    m_t &= \beta_1 m_{t-1} + g_t, \\
    n_t &= \beta_2 n_{t-1} + (1 - \beta_2) |g_t|^2, \\
    u_t &= \frac{\alpha\, g_t + m_t}
      {\sqrt{n_t / (1 - \beta_2^t) + \epsilon_{\text{root}}} + \epsilon}.

  Since :math:`m_t` is not normalized, its scale grows like
  :math:`1 / (1 - \beta_1)`; the learning rate is set accordingly.

  Args:
    b1: decay rate :math:`\beta_1` of the momentum, in [0, 1].
    b2: decay rate :math:`\beta_2` of the second moment, in [0, 1).
    alpha: weight :math:`\alpha` of the current update.
    eps: term :math:`\epsilon` added to the denominator outside the root.
    eps_root: term :math:`\epsilon_{\text{root}}` added inside the root.

  Returns:
    The transformation; its state, a
    :class:`ScaleBySimplifiedAdEMAMixState`, holds :math:`m_t` and
    :math:`n_t`.

  Raises:
    ValueError: for a Python-number ``b1`` outside [0, 1], ``b2`` outside
      [0, 1), or a negative ``eps`` or ``eps_root``.
    TypeError: for a vector or a string where a scalar is expected.

  Examples:
    With a constant gradient of 1 the sum :math:`m_t` tends to
    :math:`1 / (1 - \beta_1)` = 2 here, and so does the update:

    >>> import jax.numpy as jnp
    >>> from optax.contrib import _ademamix
    >>> tx = _ademamix.scale_by_simplified_ademamix(b1=0.5)
    >>> state = tx.init(jnp.zeros(1))
    >>> for _ in range(3):
    ...   u, state = tx.update(jnp.array([1.0]), state)
    ...   print(state.m, u)
    [1.] [1.]
    [1.5] [1.5]
    [1.75] [1.75]

  References:
    Morwani, Vyas, Zhang and Kakade, `Connections between Schedule-Free
    Optimizers, AdEMAMix, and Accelerated SGD Variants
    <https://arxiv.org/abs/2502.02431>`_, 2025.

  .. seealso:: :func:`simplified_ademamix`, :func:`scale_by_ademamix`
  """
  def init_fn(params):
    return ScaleBySimplifiedAdEMAMixState(
        t=jnp.zeros([], jnp.int32),
        m=otu.tree_zeros_like(params),
        n=otu.tree_zeros_like(params))

  def update_fn(updates, state, params=None):
    del params
    beta1 = hyperparameters.as_hyperparameter(b1)
    beta2 = hyperparameters.as_hyperparameter(b2)
    mix = hyperparameters.as_hyperparameter(alpha)
    epsilon = hyperparameters.as_hyperparameter(eps)
    epsilon_root = hyperparameters.as_hyperparameter(eps_root)

    def leaf_momentum(g, m):
      dtype = dtypes.promote_dtypes(g.dtype, m.dtype, beta1.dtype)
      return (beta1.astype(dtype) * m.astype(dtype) + g.astype(dtype)).astype(
          m.dtype)

    m = jax.tree.map(leaf_momentum, updates, state.m)
    n = otu.tree_update_moment_per_elem_norm(updates, state.n, beta2, 2)
    t = numerics.safe_increment(state.t)
    correction2 = _correction(beta2, t)

    def leaf_update(g, mm, v):
      dtype = dtypes.promote_dtypes(g.dtype, mm.dtype, v.dtype, epsilon.dtype)
      v_hat = v.astype(dtype) / correction2.astype(dtype)
      num = mix.astype(dtype) * g.astype(dtype) + mm.astype(dtype)
      den = jnp.sqrt(v_hat + epsilon_root.astype(dtype)) + epsilon.astype(
          dtype)
      return (num / den).astype(g.dtype)

    new_updates = jax.tree.map(leaf_update, updates, m, n)
    return new_updates, ScaleBySimplifiedAdEMAMixState(t=t, m=m, n=n)

  return prepared_inputs.with_prepared_inputs(
      'scale_by_simplified_ademamix',
      base.GradientTransformation(init_fn, update_fn))


@arguments.declare()
def simplified_ademamix(
    learning_rate: base.ScalarOrSchedule,
    b1: float = 0.99,
    b2: float = 0.95,
    alpha: float = 0.0,
    eps: float = 1e-8,
    eps_root: float = 0.0,
    weight_decay: float = 0.0,
    mask: base.MaskOrFn = None,
) -> base.GradientTransformationExtraArgs:
  r"""The simplified AdEMAMix optimizer, with decoupled weight decay.

  .. math::

    \theta_t = \theta_{t-1} - \eta_t \left(u_t + \lambda \theta_{t-1}\right),

  with :math:`u_t` the direction of :func:`scale_by_simplified_ademamix`.

  Args:
    learning_rate: the learning rate :math:`\eta`, a number or a schedule.
    b1: decay rate of the momentum.
    b2: decay rate of the second moment.
    alpha: weight of the current update.
    eps: term added to the denominator outside the root.
    eps_root: term added inside the root.
    weight_decay: :math:`\lambda`; :math:`\lambda \theta` is added to the
      direction before the learning rate scales it (decoupled).
    mask: the params to decay, as booleans like the params or a function of
      the params returning them.

  Returns:
    :func:`scale_by_simplified_ademamix`, the weight decay and the learning
    rate chained, a ``GradientTransformationExtraArgs``; ``update`` takes
    the params for the decay.

  Examples:
    After a gradient that flipped sign, the sum :math:`m_t` has nearly
    cancelled in the second coordinate; ``alpha`` adds the current gradient
    back:

    >>> import jax.numpy as jnp
    >>> import optax
    >>> params = jnp.array([1.0, -2.0])
    >>> for alpha in (0.0, 5.0):
    ...   opt = optax.contrib.simplified_ademamix(learning_rate=0.1,
    ...                                           alpha=alpha)
    ...   state = opt.init(params)
    ...   for g in (jnp.array([1.0, -1.0]), jnp.array([1.0, 1.0])):
    ...     updates, state = opt.update(g, state, params)
    ...   print([round(float(u), 4) for u in updates])
    [-0.199, -0.001]
    [-0.699, -0.501]

  References:
    Morwani, Vyas, Zhang and Kakade, `Connections between Schedule-Free
    Optimizers, AdEMAMix, and Accelerated SGD Variants
    <https://arxiv.org/abs/2502.02431>`_, 2025.

  .. seealso:: :func:`scale_by_simplified_ademamix`, :func:`ademamix`
  """
  return _combining.chain(
      scale_by_simplified_ademamix(b1=b1, b2=b2, alpha=alpha, eps=eps,
                                   eps_root=eps_root),
      _adding.add_decayed_weights(weight_decay, mask),
      transform.scale_by_learning_rate(learning_rate),
  )
