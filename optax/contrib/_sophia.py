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
"""Sophia: a clipped second-order optimizer with a diagonal Hessian estimate.

``sophia`` evaluates a diagonal Hessian estimate every few steps, which needs
the objective: call ``update(grads, state, params, obj_fn=loss_fn)``.
"""

from typing import Any, Callable, NamedTuple, Optional, Union

import jax
import jax.numpy as jnp
import numpy as np

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
from optax.transforms import _adding
from optax.transforms import _combining


def _check_obj_fn(fn: str, obj_fn: Any) -> None:
  if obj_fn is None:
    raise ValueError(
        f'{fn}: update needs the objective as the keyword argument obj_fn'
        ' (a function of the params returning a scalar). Remedy: call'
        ' tx.update(grads, state, params, obj_fn=loss_fn).')


class HutchinsonState(NamedTuple):
  """State of :func:`hutchinson_estimator_diag_hessian`.

  Attributes:
    key: the PRNG key of the next probe (a raw ``uint32[2]`` key, or a typed
      key when one was given as ``random_seed``).
  """

  key: base.PRNGKey


def _is_inexact(x: Any) -> bool:
  return jnp.issubdtype(jnp.result_type(x), jnp.inexact)


def hutchinson_estimator_diag_hessian(
    random_seed: Optional[Union[int, base.PRNGKey]] = None,
) -> base.GradientTransformationExtraArgs:
  r"""Estimates the diagonal of the Hessian with Hutchinson's method.

  With :math:`v` a Rademacher vector (entries :math:`\pm 1` with equal
  probability) drawn afresh at each call,

  .. math::

    \widehat{\mathrm{diag}(H)} = v \odot (H v),

  an unbiased estimate of the diagonal of the Hessian :math:`H` of
  ``obj_fn`` at the params; :math:`Hv` is a Hessian-vector product (forward
  over reverse differentiation), so :math:`H` is never formed. The incoming
  updates are ignored and replaced by the estimate.

  Args:
    random_seed: an integer seed or a PRNG key; ``None`` uses seed 0. The key
      is made in ``init``.

  Returns:
    A ``GradientTransformationExtraArgs`` whose state is a
    :class:`HutchinsonState`; its ``update`` requires ``params`` and the
    keyword argument ``obj_fn``.

  Raises:
    ValueError: in ``update``, if ``params`` or ``obj_fn`` is missing.

  Examples:
    >>> import jax.numpy as jnp
    >>> from optax.contrib import _sophia
    >>> estimator = _sophia.hutchinson_estimator_diag_hessian(random_seed=0)
    >>> obj_fn = lambda x: jnp.sum(jnp.array([1.0, 3.0]) * x ** 2)
    >>> params = jnp.array([1.0, 2.0])
    >>> diag, _ = estimator.update(
    ...     None, estimator.init(params), params, obj_fn=obj_fn)
    >>> diag
    Array([2., 6.], dtype=float32)

  References:
    Hutchinson, `A Stochastic Estimator of the Trace of the Influence Matrix
    for Laplacian Smoothing Splines
    <https://doi.org/10.1080/03610919008812866>`_, 1990.

    Bekas, Kokiopoulou and Saad, `An estimator for the diagonal of a matrix
    <https://doi.org/10.1016/j.apnum.2007.01.003>`_, 2007.
  """
  fn = 'hutchinson_estimator_diag_hessian'
  if not (random_seed is None
          or hyperparameters.is_number(random_seed, integral=True)
          or hasattr(random_seed, 'dtype')):
    raise ValueError(
        f'{fn}: random_seed must be None, an integer or a PRNG key, got'
        f' {type(random_seed).__name__}')

  def init_fn(params):
    del params
    if random_seed is None:
      return HutchinsonState(key=jax.random.PRNGKey(0))
    if hyperparameters.is_number(random_seed, integral=True):
      return HutchinsonState(key=jax.random.PRNGKey(random_seed))
    return HutchinsonState(key=jnp.asarray(random_seed))

  def update_fn(updates, state, params=None, *, obj_fn=None, **extra_args):
    del updates, extra_args
    validation.require_params(
        fn, params, 'the Hessian is taken at the params',
        'tx.update(updates, state, params, obj_fn=loss_fn)')
    _check_obj_fn(fn, obj_fn)
    key, subkey = jax.random.split(state.key)
    probe = otu.tree_random_like(subkey, params, jax.random.rademacher)
    # An integer param (a step counter, say) is held constant: its tangent
    # is float0, as jax.grad(..., allow_int=True) takes it, and its
    # estimate is zero.
    probe = jax.tree.map(
        lambda p, v: v if _is_inexact(p) else np.zeros(
            jnp.shape(p), jax.dtypes.float0), params, probe)
    _, hvp = jax.jvp(jax.grad(obj_fn, allow_int=True), (params,), (probe,))
    estimate = jax.tree.map(
        lambda p, v, hv: v * hv if _is_inexact(p) else jnp.zeros(
            jnp.shape(p), hyperparameters.hyperparameter_dtype()),
        params, probe, hvp)
    return estimate, HutchinsonState(key=key)

  return prepared_inputs.with_prepared_inputs(
      fn, base.GradientTransformationExtraArgs(init_fn, update_fn))


# The default estimator of sophia, built once at import (it holds no array:
# its key is made in init).
_DEFAULT_HESSIAN_DIAGONAL_FN = hutchinson_estimator_diag_hessian()


class SophiaState(NamedTuple):
  """State of :func:`sophia`.

  Attributes:
    count: int32 scalar, the number of updates done so far.
    mu: EMA of the gradients, shaped like the params, in ``mu_dtype`` or the
      params' dtype.
    nu: EMA of the diagonal Hessian estimates, shaped and typed like the
      params.
    hessian_fn_state: the state of ``hessian_diagonal_fn``.
  """

  count: jax.Array
  mu: base.Updates
  nu: base.Updates
  hessian_fn_state: Any


def _scale_by_sophia(
    b1: float,
    b2: float,
    eps: float,
    gamma: float,
    clip_threshold: Optional[float],
    update_interval: int,
    hessian_diagonal_fn: base.GradientTransformation,
    mu_dtype: Optional[Any],
    verbose: bool,
    print_win_rate_every_n_steps: int,
) -> base.GradientTransformationExtraArgs:
  """The preconditioned, clipped direction of :func:`sophia`."""
  fn = 'sophia'
  hessian_fn = base.with_extra_args_support(hessian_diagonal_fn)
  mu_dtype = utils.canonicalize_dtype(mu_dtype)

  def init_fn(params):
    return SophiaState(
        count=jnp.zeros([], jnp.int32),
        mu=otu.tree_zeros_like(params, dtype=mu_dtype),
        nu=otu.tree_zeros_like(params),
        hessian_fn_state=hessian_fn.init(params))

  def update_fn(updates, state, params=None, *, obj_fn=None, **extra_args):
    validation.require_params(
        fn, params, 'the Hessian estimate is taken at the params',
        'tx.update(grads, state, params, obj_fn=loss_fn)')
    _check_obj_fn(fn, obj_fn)
    beta1 = hyperparameters.as_hyperparameter(b1)
    beta2 = hyperparameters.as_hyperparameter(b2)
    epsilon = hyperparameters.as_hyperparameter(eps)
    scale = hyperparameters.as_hyperparameter(gamma)
    mu = otu.tree_update_moment(updates, state.mu, beta1, 1)
    count = numerics.safe_increment(state.count)
    mu_hat = otu.tree_bias_correction(mu, beta1, count)

    def leaf_ratio(m, h):
      dtype = dtypes.promote_dtypes(m.dtype, h.dtype, epsilon.dtype)
      denom = jnp.maximum(scale.astype(dtype) * h.astype(dtype),
                          epsilon.astype(dtype))
      return m.astype(dtype) / denom

    ratios = jax.tree.map(leaf_ratio, mu_hat, state.nu)
    if clip_threshold is None:
      new_updates = jax.tree.map(
          lambda g, r: r.astype(g.dtype), updates, ratios)
    else:
      threshold = hyperparameters.as_hyperparameter(clip_threshold)
      new_updates = jax.tree.map(
          lambda g, r: jnp.clip(r, -threshold.astype(r.dtype),
                                threshold.astype(r.dtype)).astype(g.dtype),
          updates, ratios)

    if verbose and print_win_rate_every_n_steps > 0:
      if clip_threshold is None:
        win_rate = jnp.ones([], hyperparameters.hyperparameter_dtype())
      else:
        wins = otu.tree_sum(jax.tree.map(
            lambda r: jnp.sum(jnp.abs(r) < threshold.astype(r.dtype)),
            ratios))
        win_rate = wins / otu.tree_size(updates)

      def report():
        jax.debug.print('Sophia optimizer win rate: {}', win_rate)

      jax.lax.cond(count % print_win_rate_every_n_steps == 0, report,
                   lambda: None)

    def refresh(nu, hessian_state):
      estimate, hessian_state = hessian_fn.update(
          updates, hessian_state, params, obj_fn=obj_fn, **extra_args)
      nu = otu.tree_update_moment(estimate, nu, beta2, 1)
      return nu, hessian_state

    def keep(nu, hessian_state):
      return nu, hessian_state

    nu, hessian_state = jax.lax.cond(
        state.count % update_interval == 0, refresh, keep, state.nu,
        state.hessian_fn_state)
    return new_updates, SophiaState(
        count=count, mu=mu, nu=nu, hessian_fn_state=hessian_state)

  return prepared_inputs.with_prepared_inputs(
      fn, base.GradientTransformationExtraArgs(init_fn, update_fn))


@arguments.declare(
    b1=arguments.decay_scalar,
    b2=arguments.closed_decay_scalar,
    eps=arguments.non_negative_scalar,
    gamma=arguments.non_negative_scalar,
    # None is documented: no clipping.
    clip_threshold=(arguments.non_negative,
                    arguments.scalar_schedule_or_none),
    update_interval=arguments.positive_int,
    print_win_rate_every_n_steps=arguments.non_negative_int)
def sophia(
    learning_rate: base.ScalarOrSchedule,
    b1: float = 0.965,
    b2: float = 0.99,
    eps: float = 1e-8,
    weight_decay: float = 1e-4,
    weight_decay_mask: Optional[
        Union[Any, Callable[[base.Params], Any]]] = None,
    gamma: float = 0.01,
    clip_threshold: Optional[float] = 1.0,
    update_interval: int = 10,
    hessian_diagonal_fn: Union[
        base.GradientTransformation,
        base.GradientTransformationExtraArgs,
    ] = _DEFAULT_HESSIAN_DIAGONAL_FN,
    mu_dtype: Optional[Any] = None,
    verbose: bool = False,
    print_win_rate_every_n_steps: int = 0,
) -> base.GradientTransformationExtraArgs:
  r"""The Sophia optimizer (SophiaH with the default Hessian estimator).

  Sophia divides a momentum by an EMA of a diagonal Hessian estimate,
  refreshed every ``update_interval`` steps, and clips each coordinate of
  the result, which guards against bad curvature estimates. With
  :math:`\hat h` the estimate of ``hessian_diagonal_fn`` and :math:`t` the
  number of updates done before this one:

  .. math::

    m_t &= \beta_1 m_{t-1} + (1 - \beta_1) g_t, \\
    u_t &= \mathrm{clip}\left(\frac{m_t / (1 - \beta_1^{t+1})}
      {\max(\gamma\, h_{t-1}, \epsilon)}, \rho\right), \\
    h_t &= \beta_2 h_{t-1} + (1 - \beta_2) \hat h_t \quad
      \text{if } t \bmod k = 0, \text{ else } h_{t-1}, \\
    \theta_{t+1} &= \theta_t - \eta_t (u_t + \lambda \theta_t),

  where :math:`\mathrm{clip}(\cdot, \rho)` clips each entry to
  :math:`[-\rho, \rho]`, :math:`k` is ``update_interval`` and
  :math:`\lambda` the decoupled weight decay. The Hessian estimate is only
  computed on the steps that refresh :math:`h` (inside a ``lax.cond``).

  ``update`` needs the objective, a function of the params:
  ``update(grads, state, params, obj_fn=loss_fn)``.

  Args:
    learning_rate: the learning rate :math:`\eta`, a number or a schedule.
    b1: decay rate :math:`\beta_1` of the momentum, in [0, 1).
    b2: decay rate :math:`\beta_2` of the Hessian EMA, in [0, 1].
    eps: lower bound :math:`\epsilon` of the denominator.
    weight_decay: the coefficient :math:`\lambda` of the decoupled weight
      decay.
    weight_decay_mask: a tree of booleans (or a function of the params
      returning one) selecting the leaves to decay.
    gamma: the scale :math:`\gamma` of the Hessian in the denominator.
    clip_threshold: the clipping threshold :math:`\rho`; ``None`` does not
      clip.
    update_interval: the number of steps :math:`k` between two Hessian
      estimates (a positive int).
    hessian_diagonal_fn: a transformation whose ``update(updates, state,
      params, obj_fn=...)`` returns a diagonal Hessian estimate; by default
      :func:`hutchinson_estimator_diag_hessian`.
    mu_dtype: dtype of the momentum; ``None`` uses the params' dtype.
    verbose: whether to print the win rate (the fraction of coordinates that
      are not clipped).
    print_win_rate_every_n_steps: with ``verbose``, print the win rate every
      this many steps (0: never).

  Returns:
    A ``GradientTransformationExtraArgs``; its ``update`` requires ``params``
    and the keyword argument ``obj_fn``.

  Raises:
    TypeError: for a hyperparameter that is not a scalar (a vector, a
      string).
    ValueError: if a Python-number ``b1`` or ``b2`` is out of range,
      ``eps``, ``gamma`` or ``clip_threshold`` is negative,
      ``update_interval`` is not a positive int or
      ``print_win_rate_every_n_steps`` a negative one; in ``update``, if
      ``params`` or ``obj_fn`` is missing.

  Examples:
    >>> import jax
    >>> import jax.numpy as jnp
    >>> from optax.contrib import _sophia
    >>> obj_fn = lambda x: jnp.sum(x ** 2)
    >>> opt = _sophia.sophia(learning_rate=0.1, weight_decay=0.0)
    >>> params = jnp.array([1.0, -2.0])
    >>> state = opt.init(params)
    >>> grads = jax.grad(obj_fn)(params)
    >>> updates, state = opt.update(grads, state, params, obj_fn=obj_fn)
    >>> updates
    Array([-0.1,  0.1], dtype=float32)

  References:
    Liu, Li, Hall, Liang and Ma, `Sophia: A Scalable Stochastic Second-order
    Optimizer for Language Model Pre-training
    <https://arxiv.org/abs/2305.14342>`_, 2023.

  .. seealso:: :func:`hutchinson_estimator_diag_hessian`
  """
  fn = 'sophia'
  if not (hasattr(hessian_diagonal_fn, 'init')
          and hasattr(hessian_diagonal_fn, 'update')):
    raise ValueError(
        f'{fn}: hessian_diagonal_fn must be a GradientTransformation, got'
        f' {type(hessian_diagonal_fn).__name__}')
  return _combining.chain(
      _scale_by_sophia(
          b1=b1, b2=b2, eps=eps, gamma=gamma, clip_threshold=clip_threshold,
          update_interval=update_interval,
          hessian_diagonal_fn=hessian_diagonal_fn, mu_dtype=mu_dtype,
          verbose=verbose,
          print_win_rate_every_n_steps=print_win_rate_every_n_steps),
      _adding.add_decayed_weights(weight_decay, weight_decay_mask),
      transform.scale_by_learning_rate(learning_rate),
  )
