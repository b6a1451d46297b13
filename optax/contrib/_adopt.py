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
"""ADOPT: Adam with the gradient normalized before the momentum."""

from typing import Any, Callable, Optional

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
from optax._src import validation
from optax.transforms import _combining


def _default_clip_value(count: jax.Array) -> jax.Array:
  """The clipping threshold of the paper, :math:`c_t = t^{1/4}`."""
  dtype = hyperparameters.hyperparameter_dtype()
  return jnp.asarray(count).astype(dtype) ** 0.25


def _check_clip_value_fn(fn: str, name: str, clip_value_fn: Any,
                         use_clipping: bool) -> None:
  """The rule of ``clip_value_fn``: a function, where clipping is on."""
  if use_clipping and not callable(clip_value_fn):
    raise ValueError(
        f'{validation.called(fn)}: {name} must be a function of the step'
        f' count, got {type(clip_value_fn).__name__}')


@arguments.declare(
    b1=arguments.closed_decay_scalar, b2=arguments.closed_decay_scalar,
    eps=arguments.non_negative_scalar,
    clip_value_fn=arguments.given(_check_clip_value_fn, 'use_clipping'))
def scale_by_adopt(
    b1: float = 0.9,
    b2: float = 0.9999,
    eps: float = 1e-6,
    mu_dtype: Optional[Any] = None,
    *,
    nesterov: bool = False,
    use_clipping: bool = True,
    clip_value_fn: Callable[[jax.Array], base.Numeric] = _default_clip_value,
) -> base.GradientTransformation:
  r"""Rescales updates by the ADOPT rule.

  ADOPT normalizes each gradient by the second moment of the *previous*
  steps, before it enters the momentum; this removes the correlation between
  the gradient and its normalizer that breaks Adam's convergence for small
  :math:`\beta_2`. The first step only initializes the second moment
  (:math:`v_0 = |g_0|^2`) and returns a zero update. For :math:`t \geq 1`:

  .. math::

    \tilde g_t &= \mathrm{clip}\left(\frac{g_t}
      {\max(\sqrt{v_{t-1}}, \epsilon)}, c_t\right), \\
    m_t &= \beta_1 m_{t-1} + (1 - \beta_1) \tilde g_t, \\
    v_t &= \beta_2 v_{t-1} + (1 - \beta_2) |g_t|^2, \\
    u_t &= m_t \quad (\text{or } \beta_1 m_t + (1 - \beta_1) \tilde g_t
      \text{ with Nesterov momentum}),

  where :math:`\mathrm{clip}(\cdot, c)` clips each entry to
  :math:`[-c, c]` (a complex entry keeps its phase, its modulus clipped
  to :math:`c`) with :math:`c_t` = ``clip_value_fn(t)``, :math:`t`
  counting the updates done before this one (no clipping when
  ``use_clipping=False``).

  Args:
    b1: decay rate :math:`\beta_1` of the momentum, in [0, 1].
    b2: decay rate :math:`\beta_2` of the second moment, in [0, 1].
    eps: lower bound :math:`\epsilon` of the normalizer.
    mu_dtype: dtype of the momentum; ``None`` uses the params' dtype.
    nesterov: whether to use Nesterov momentum.
    use_clipping: whether to clip the normalized gradient (the paper's
      stabilized version).
    clip_value_fn: a function of the step count returning the clipping
      threshold :math:`c_t`; by default :math:`t^{1/4}`.

  Returns:
    A ``GradientTransformation`` whose state is a
    :class:`optax.ScaleByAdamState`.

  Raises:
    TypeError: for a hyperparameter that is not a scalar (a vector, a
      string).
    ValueError: if a Python-number ``b1`` or ``b2`` is outside [0, 1] or
      ``eps`` is negative.

  Examples:
    >>> import jax.numpy as jnp
    >>> from optax.contrib import _adopt
    >>> tx = _adopt.scale_by_adopt(b1=0.5)
    >>> state = tx.init(jnp.zeros(2))
    >>> u, state = tx.update(jnp.array([2.0, -0.5]), state)
    >>> u
    Array([0., 0.], dtype=float32)
    >>> u, state = tx.update(jnp.array([1.0, -0.25]), state)
    >>> u
    Array([ 0.25, -0.25], dtype=float32)

  References:
    Taniguchi, Harada, Minegishi, Oshima, Jeong, Nagahara, Iiyama, Suzuki,
    Iwasawa and Matsuo, `ADOPT: Modified Adam Can Converge with Any β2 with
    the Optimal Rate <https://arxiv.org/abs/2411.02853>`_, 2024.

  .. seealso:: :func:`adopt`, :func:`optax.scale_by_adam`
  """
  mu_dtype = utils.canonicalize_dtype(mu_dtype)

  def init_fn(params):
    return transform.ScaleByAdamState(
        count=jnp.zeros([], jnp.int32),
        mu=otu.tree_zeros_like(params, dtype=mu_dtype),
        nu=otu.tree_zeros_like(params))

  def update_fn(updates, state, params=None):
    del params
    beta1 = hyperparameters.as_hyperparameter(b1)
    beta2 = hyperparameters.as_hyperparameter(b2)
    epsilon = hyperparameters.as_hyperparameter(eps)
    first = state.count == 0
    if use_clipping:
      clip = hyperparameters.as_hyperparameter(clip_value_fn(state.count))

    def leaf_normalize(g, v):
      dtype = dtypes.promote_dtypes(g.dtype, v.dtype, epsilon.dtype)
      scale = jnp.maximum(jnp.sqrt(v.astype(dtype)), epsilon.astype(dtype))
      out = g.astype(dtype) / scale
      if use_clipping:
        c = clip.astype(dtype)
        if jnp.iscomplexobj(out):
          # Complex numbers have no order: the modulus is clipped, the
          # phase kept.
          c = c.real
          modulus = jnp.abs(out)
          out = out * jnp.where(
              modulus > c, c / jnp.where(modulus > c, modulus, 1), 1)
        else:
          out = jnp.clip(out, -c, c)
      return out

    normalized = jax.tree.map(leaf_normalize, updates, state.nu)
    mu = otu.tree_update_moment(normalized, state.mu, beta1, 1)
    # Each selection is made in float32 (the epsilon's dtype) and rounded
    # to the state's dtype once: the same bits as in a bfloat16 state's own
    # dtype, but XLA:CPU then reads the stored moments for the update
    # instead of selecting them again from copies of the old state.

    def first_or(new, first_value):
      new_w, first_w, _ = dtypes.lift(new, first_value, epsilon)
      return jnp.where(first, first_w, new_w).astype(new.dtype)

    mu = jax.tree.map(first_or, mu, state.mu)
    nu = otu.tree_update_moment_per_elem_norm(updates, state.nu, beta2, 2)
    nu = jax.tree.map(
        lambda new, g: first_or(new, numerics.abs_sq(g).astype(new.dtype)),
        nu, updates)

    def leaf_direction(g, m, n):
      dtype = dtypes.promote_dtypes(m.dtype, n.dtype)
      if nesterov:
        d = (beta1.astype(dtype) * m.astype(dtype)
             + (1 - beta1).astype(dtype) * n.astype(dtype))
      else:
        d = m.astype(dtype)
      return jnp.where(first, jnp.zeros_like(d), d).astype(g.dtype)

    new_updates = jax.tree.map(leaf_direction, updates, mu, normalized)
    return new_updates, transform.ScaleByAdamState(
        count=numerics.safe_increment(state.count), mu=mu, nu=nu)

  return prepared_inputs.with_prepared_inputs(
      'scale_by_adopt', base.GradientTransformation(init_fn, update_fn))


@arguments.declare(learning_rate=arguments.learning_rate)
def adopt(
    learning_rate: base.ScalarOrSchedule,
    b1: float = 0.9,
    b2: float = 0.9999,
    eps: float = 1e-6,
    mu_dtype: Optional[Any] = None,
    *,
    nesterov: bool = False,
    use_clipping: bool = True,
    clip_value_fn: Callable[[jax.Array], base.Numeric] = _default_clip_value,
) -> base.GradientTransformationExtraArgs:
  r"""The ADOPT optimizer.

  .. math::

    \theta_t = \theta_{t-1} - \eta_t u_t,

  with :math:`u_t` the direction of :func:`scale_by_adopt` (zero at the
  first step, which only initializes the second moment).

  Args:
    learning_rate: the learning rate :math:`\eta`, a number or a schedule.
    b1: decay rate of the momentum.
    b2: decay rate of the second moment.
    eps: lower bound of the normalizer.
    mu_dtype: dtype of the momentum; ``None`` uses the params' dtype.
    nesterov: whether to use Nesterov momentum.
    use_clipping: whether to clip the normalized gradient.
    clip_value_fn: a function of the step count returning the clipping
      threshold; by default :math:`t^{1/4}`.

  Returns:
    A ``GradientTransformationExtraArgs``.

  Examples:
    >>> import jax.numpy as jnp
    >>> from optax.contrib import _adopt
    >>> opt = _adopt.adopt(learning_rate=0.1, b1=0.5)
    >>> params = jnp.array([1.0, -2.0])
    >>> state = opt.init(params)
    >>> _, state = opt.update(2 * params, state, params)
    >>> updates, state = opt.update(params, state, params)
    >>> updates
    Array([-0.025,  0.025], dtype=float32)

  References:
    Taniguchi, Harada, Minegishi, Oshima, Jeong, Nagahara, Iiyama, Suzuki,
    Iwasawa and Matsuo, `ADOPT: Modified Adam Can Converge with Any β2 with
    the Optimal Rate <https://arxiv.org/abs/2411.02853>`_, 2024.

  .. seealso:: :func:`scale_by_adopt`
  """
  return _combining.chain(
      scale_by_adopt(b1=b1, b2=b2, eps=eps, mu_dtype=mu_dtype,
                     nesterov=nesterov, use_clipping=use_clipping,
                     clip_value_fn=clip_value_fn),
      transform.scale_by_learning_rate(learning_rate),
  )
