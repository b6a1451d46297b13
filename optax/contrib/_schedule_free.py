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
"""Schedule-free optimization (Defazio et al., 2024).

A schedule-free optimizer keeps three sequences: the base iterate :math:`z`
moved by a base optimizer, the average :math:`x` of the :math:`z`'s (the
point to evaluate the model at), and their interpolation :math:`y`, where
the gradients are computed and which the parameters hold during training.
Only :math:`z` is stored; :math:`x` is recovered from the parameters with
:func:`schedule_free_eval_params`.

Every leaf of :class:`ScheduleFreeState` keeps its dtype from step to step
(``state_dtype`` when given, else the params' dtypes, for :math:`z`; float32,
or float64 under x64, for the floating scalars), and updates come back in the
params' dtypes, so that the optimizer works inside :class:`optax.MultiSteps`'
conditional with bfloat16 params (upstream #1038). The scalars are never
narrower than float32: in bfloat16 the weight sum stops growing once the
weights fall below half of its unit in the last place.
"""

from typing import Any, NamedTuple, Optional

import jax
import jax.numpy as jnp

from optax._src import alias
from optax._src import arguments
from optax._src import base
from optax._src import hyperparameters
from optax._src import numerics
from optax._src import prepared_inputs
from optax._src import transform
from optax._src import utils
from optax._src import validation
from optax.schedules import _schedule
from optax.transforms import _adding
from optax.transforms import _combining


class ScheduleFreeState(NamedTuple):
  """State of :func:`schedule_free`.

  Attributes:
    b1: scalar, the interpolation coefficient :math:`\\beta_1` with which the
      current params :math:`y` were formed.
    weight_sum: scalar, the sum of the averaging weights so far.
    step_count: int32 scalar, the index of the next step (starts at 1).
    max_lr: scalar, the largest learning rate seen so far.
    base_optimizer_state: the state of the base optimizer.
    z: the base iterate, shaped like the params, in ``state_dtype`` or the
      params' dtypes.

  The scalars ``b1``, ``weight_sum`` and ``max_lr`` are float32 (float64
  under x64), whatever the dtypes of the params and ``state_dtype``.
  """

  b1: jax.Array
  weight_sum: jax.Array
  step_count: jax.Array
  max_lr: jax.Array
  base_optimizer_state: base.OptState
  z: base.Params


def _find_state(state: Any) -> ScheduleFreeState:
  """The ScheduleFreeState in ``state`` (itself, or nested once in it)."""
  if isinstance(state, ScheduleFreeState):
    return state
  found = [s for s in jax.tree.leaves(
      state, is_leaf=lambda x: isinstance(x, ScheduleFreeState))
           if isinstance(s, ScheduleFreeState)]
  if len(found) != 1:
    raise ValueError(
        'schedule_free_eval_params: state must be a ScheduleFreeState or'
        f' contain exactly one, found {len(found)} in a'
        f' {type(state).__name__}.')
  return found[0]


def schedule_free_eval_params(state: base.OptState,
                              params: base.Params) -> base.Params:
  r"""The parameters at which to evaluate a schedule-free model.

  During training the params hold :math:`y = (1 - \beta_1) z + \beta_1 x`;
  this returns the average :math:`x = (y - (1 - \beta_1) z) / \beta_1`.

  Examples:
    >>> import jax.numpy as jnp
    >>> import optax
    >>> tx = optax.contrib.schedule_free_sgd(learning_rate=1.0)
    >>> params = jnp.array([1.0, 2.0])
    >>> state = tx.init(params)
    >>> for _ in range(2):
    ...   updates, state = tx.update(jnp.array([1.0, 1.0]), state, params)
    ...   params = params + updates
    >>> print(params, optax.contrib.schedule_free_eval_params(state, params))
    [-0.55  0.45] [-0.5  0.5]

  Args:
    state: the state of :func:`schedule_free` (or a state containing exactly
      one, e.g. that of a chain or of :class:`optax.MultiSteps`).
    params: the current params :math:`y`.

  Returns:
    The params :math:`x`, with the dtypes of ``params``.
  """
  state = _find_state(state)

  def leaf(y, z):
    dtype = jnp.promote_types(jnp.promote_types(y.dtype, z.dtype),
                              state.b1.dtype)
    b1 = state.b1.astype(dtype)
    x = (y.astype(dtype) - (1 - b1) * z.astype(dtype)) / b1
    return x.astype(y.dtype)

  return jax.tree.map(leaf, params, state.z)


@arguments.declare(
    learning_rate=arguments.required_learning_rate,
    b1=(arguments.in_interval(
        0, 1, include_low=False,
        hint='with b1 = 0 the averaged iterate could not be recovered from'
        ' the params (use the base optimizer alone instead).'),
        arguments.scalar_or_schedule),
    weight_lr_power=arguments.non_negative_scalar)
def schedule_free(
    base_optimizer: base.GradientTransformation,
    learning_rate: base.ScalarOrSchedule,
    b1: float = 0.9,
    weight_lr_power: float = 2.0,
    state_dtype: Optional[Any] = None,
) -> base.GradientTransformationExtraArgs:
  r"""Turns a base optimizer into a schedule-free one.

  The base optimizer moves :math:`z` (its updates include the learning rate
  :math:`\gamma_t`, so it is typically ``chain(..., scale_by_learning_rate(
  learning_rate))``); :math:`x` is a weighted average of the :math:`z`'s and
  the params :math:`y` interpolate:

  .. math::

    z_{t+1} &= z_t + \mathrm{base}(\nabla f(y_t)), \\
    c_{t+1} &= \frac{w_t}{\sum_{i \le t} w_i}, \qquad
      w_t = \left(\max_{i \le t} \gamma_i\right)^{r}, \\
    x_{t+1} &= (1 - c_{t+1}) x_t + c_{t+1} z_{t+1}, \\
    y_{t+1} &= (1 - \beta_1) z_{t+1} + \beta_1 x_{t+1},

  with :math:`r` = ``weight_lr_power`` and :math:`\gamma_t` the learning
  rate at step :math:`t \ge 1` (schedules are evaluated at the step count,
  starting at one). The update returned is :math:`y_{t+1} - y_t`; the
  params must be passed to ``update``. Evaluate the model at
  :func:`schedule_free_eval_params`.

  Args:
    base_optimizer: the optimizer moving :math:`z` (including its learning
      rate).
    learning_rate: the learning rate :math:`\gamma`, a number or a schedule,
      used for the averaging weights.
    b1: the interpolation :math:`\beta_1 \in (0, 1]` of :math:`y`.
    weight_lr_power: the power :math:`r` of the learning rate in the
      averaging weights.
    state_dtype: the dtype of :math:`z`; ``None`` keeps the params' dtypes.
      The scalars of the state are float32 (float64 under x64) either way.

  Returns:
    A ``GradientTransformationExtraArgs`` whose state is a
    :class:`ScheduleFreeState`; extra arguments of ``update`` are passed to
    the base optimizer.

  Raises:
    ValueError: if a Python-number ``b1`` is outside (0, 1],
      ``weight_lr_power`` is negative or ``learning_rate`` is not finite;
      in ``update``, without params.
    TypeError: if ``learning_rate`` is not a number, a 0-d array or a
      schedule (None included), or another hyperparameter is not a scalar.

  Examples:
    Any optimizer can be the base one, here Adam, whose learning rate is
    also the one given to ``schedule_free``; the params :math:`y` are
    trained, the average :math:`x` is the one to evaluate:

    >>> import jax
    >>> import jax.numpy as jnp
    >>> import optax
    >>> tx = optax.contrib.schedule_free(optax.adam(0.1), learning_rate=0.1)
    >>> params = {'w': jnp.array([2.0, -1.0])}
    >>> state = tx.init(params)
    >>> loss = lambda p: jnp.sum(p['w'] ** 2)
    >>> for _ in range(3):
    ...   updates, state = tx.update(jax.grad(loss)(params), state, params)
    ...   params = optax.apply_updates(params, updates)
    >>> x = optax.contrib.schedule_free_eval_params(state, params)
    >>> print(params['w'], x['w'])
    [ 1.7902507 -0.7906195] [ 1.8002228  -0.80055064]

  References:
    Defazio et al., `The Road Less Scheduled
    <https://arxiv.org/abs/2405.15682>`_, 2024.

  .. seealso:: :func:`schedule_free_adamw`, :func:`schedule_free_sgd`
  """
  fn = 'schedule_free'
  state_dtype = utils.canonicalize_dtype(state_dtype)
  base_optimizer = base.with_extra_args_support(base_optimizer)

  def init_fn(params):
    # Scalar statistics in the hyperparameter dtype: a bfloat16 weight_sum
    # would stop growing once lr ** weight_lr_power is below half its ulp.
    scalar_dtype = hyperparameters.hyperparameter_dtype()
    z = jax.tree.map(
        lambda p: jnp.array(p, dtype=state_dtype or p.dtype, copy=True),
        params)
    return ScheduleFreeState(
        b1=jnp.asarray(b1, dtype=scalar_dtype),
        weight_sum=jnp.zeros([], scalar_dtype),
        step_count=jnp.ones([], jnp.int32),
        max_lr=jnp.zeros([], scalar_dtype),
        base_optimizer_state=base_optimizer.init(params),
        z=z,
    )

  def update_fn(updates, state, params=None, **extra_args):
    validation.require_params(
        fn, params, 'the update is computed from the current params',
        'tx.update(grads, state, params)')
    # Scalars, once per step, in at least the hyperparameter precision.
    if callable(learning_rate):
      lr = hyperparameters.as_hyperparameter(learning_rate(state.step_count))
    else:
      lr = hyperparameters.as_hyperparameter(learning_rate)
    dtype = jnp.promote_types(lr.dtype, state.max_lr.dtype)
    max_lr = jnp.maximum(state.max_lr.astype(dtype), lr.astype(dtype))
    weight = max_lr ** hyperparameters.as_hyperparameter(
        weight_lr_power).astype(dtype)
    weight_sum = state.weight_sum.astype(dtype) + weight
    # An infinite weight (max_lr ** r overflows, e.g. lr = 1e20 in float32)
    # makes the sum infinite too: its share is taken as 0, as upstream 0.2.8
    # takes a NaN share, rather than inf / inf = NaN.
    ck = jnp.where((weight_sum > 0) & ~jnp.isinf(weight),
                   weight / jnp.where(weight_sum > 0, weight_sum, 1), 0)
    old_b1 = state.b1.astype(dtype)
    new_b1 = hyperparameters.as_hyperparameter(b1).astype(dtype)

    base_updates, base_state = base_optimizer.update(
        updates, state.base_optimizer_state, params, **extra_args)

    def leaf(y, z, u):
      leaf_dtype = jnp.promote_types(
          jnp.promote_types(y.dtype, z.dtype), dtype)
      y_, z_ = y.astype(leaf_dtype), z.astype(leaf_dtype)
      c, b_old, b_new = (s.astype(leaf_dtype) for s in (ck, old_b1, new_b1))
      new_z = z_ + u.astype(leaf_dtype)
      x = (y_ - (1 - b_old) * z_) / b_old
      new_x = (1 - c) * x + c * new_z
      new_y = (1 - b_new) * new_z + b_new * new_x
      return (new_y - y_).astype(y.dtype), new_z.astype(z.dtype)

    y_leaves, treedef = jax.tree.flatten(params)
    pairs = [leaf(y, z, u) for y, z, u in zip(
        y_leaves, treedef.flatten_up_to(state.z),
        treedef.flatten_up_to(base_updates))]
    new_updates = jax.tree.unflatten(treedef, [pair[0] for pair in pairs])
    new_z = jax.tree.unflatten(treedef, [pair[1] for pair in pairs])
    scalar_dtype = state.max_lr.dtype
    return new_updates, ScheduleFreeState(
        b1=new_b1.astype(state.b1.dtype),
        weight_sum=weight_sum.astype(scalar_dtype),
        step_count=numerics.safe_increment(state.step_count),
        max_lr=max_lr.astype(scalar_dtype),
        base_optimizer_state=base_state,
        z=new_z,
    )

  return prepared_inputs.with_prepared_inputs(
      fn, base.GradientTransformationExtraArgs(init_fn, update_fn))


def _warmup(learning_rate: Any, warmup_steps: Optional[int]) -> Any:
  if warmup_steps is None:
    return learning_rate
  return _schedule.warmup_constant_schedule(0.0, learning_rate, warmup_steps)


def _from_step_one(learning_rate: Any) -> Any:
  r"""The base optimizer's rate: its count starts at 0, the step's at 1.

  :func:`schedule_free` weighs step :math:`t` (``step_count``, from 1) with
  :math:`\gamma_t`; the base optimizer's own counter starts at 0, so it
  reads the schedule one step ahead to take the same :math:`\gamma_t`.

  Args:
    learning_rate: a float or a schedule of the step.

  Returns:
    The float, or the schedule evaluated at its count plus one.
  """
  if not callable(learning_rate):
    return learning_rate
  return lambda count: learning_rate(numerics.safe_increment(count))


@arguments.declare(
    learning_rate=(arguments.non_negative, arguments.required_learning_rate),
    weight_decay=(arguments.non_negative, arguments.scalar_schedule_or_none))
def schedule_free_sgd(
    learning_rate: float = 1.0,
    warmup_steps: Optional[int] = None,
    b1: float = 0.9,
    weight_decay: Optional[float] = None,
    weight_lr_power: float = 2.0,
    state_dtype: Optional[Any] = None,
) -> base.GradientTransformationExtraArgs:
  r"""Schedule-free SGD.

  :func:`schedule_free` around SGD: :math:`z_{t+1} = z_t - \gamma_t
  (\nabla f(y_t) + \lambda y_t)`, with an optional linear warmup
  :math:`\gamma_t = \gamma \min(1, t / T)` over :math:`T` =
  ``warmup_steps`` steps (:math:`t` from 1, the rate that also weighs the
  step in the average).

  Args:
    learning_rate: the learning rate :math:`\gamma` (after warmup).
    warmup_steps: the number of warmup steps, or ``None`` for no warmup.
    b1: the interpolation :math:`\beta_1 \in (0, 1]`.
    weight_decay: the weight decay :math:`\lambda` (applied at :math:`y`),
      or ``None`` for none.
    weight_lr_power: the power of the learning rate in the averaging
      weights.
    state_dtype: the dtype of the state, see :func:`schedule_free`.

  Returns:
    A ``GradientTransformationExtraArgs`` whose state is a
    :class:`ScheduleFreeState`; its ``update`` requires ``params``.

  Examples:
    >>> import jax
    >>> import jax.numpy as jnp
    >>> import optax
    >>> tx = optax.contrib.schedule_free_sgd(learning_rate=0.1)
    >>> params = jnp.array([2.0])
    >>> state = tx.init(params)
    >>> for _ in range(3):
    ...   grads = jax.grad(lambda p: jnp.sum(p ** 2))(params)
    ...   updates, state = tx.update(grads, state, params)
    ...   params = params + updates
    >>> print(params, optax.contrib.schedule_free_eval_params(state, params))
    [1.2620798] [1.2917333]

  References:
    Defazio et al., `The Road Less Scheduled
    <https://arxiv.org/abs/2405.15682>`_, 2024.
  """
  learning_rate = _warmup(learning_rate, warmup_steps)
  optimizer = alias.sgd(_from_step_one(learning_rate))
  if weight_decay is not None:
    optimizer = _combining.chain(
        _adding.add_decayed_weights(weight_decay), optimizer)
  return schedule_free(optimizer, learning_rate=learning_rate, b1=b1,
                       weight_lr_power=weight_lr_power,
                       state_dtype=state_dtype)


# scale_by_rms checks eps, and b2 as its decay: b2 is declared here.
@arguments.declare(
    learning_rate=(arguments.non_negative, arguments.required_learning_rate),
    b2=arguments.decay_scalar, weight_decay=arguments.non_negative_scalar)
def schedule_free_adamw(
    learning_rate: float = 0.0025,
    warmup_steps: Optional[int] = None,
    b1: float = 0.9,
    b2: float = 0.999,
    eps: float = 1e-8,
    weight_decay: float = 0.0,
    weight_lr_power: float = 2.0,
    state_dtype: Optional[Any] = None,
) -> base.GradientTransformationExtraArgs:
  r"""Schedule-free AdamW.

  :func:`schedule_free` around an AdamW without momentum: with :math:`g_t
  = \nabla f(y_t)`,

  .. math::

    v_t &= \beta_2 v_{t-1} + (1 - \beta_2) g_t^2, \\
    z_{t+1} &= z_t - \gamma_t \left(\frac{g_t}{\sqrt{v_t / (1 - \beta_2^t)}
      + \epsilon} + \lambda y_t\right),

  the momentum being replaced by the schedule-free averaging, with an
  optional linear warmup :math:`\gamma_t = \gamma \min(1, t / T)` over
  :math:`T` = ``warmup_steps`` steps (:math:`t` from 1, the rate that also
  weighs the step in the average).

  Args:
    learning_rate: the learning rate :math:`\gamma` (after warmup).
    warmup_steps: the number of warmup steps, or ``None`` for no warmup.
    b1: the interpolation :math:`\beta_1 \in (0, 1]`.
    b2: the decay :math:`\beta_2` of the second moment.
    eps: :math:`\epsilon`, added to the root of the second moment.
    weight_decay: the decoupled weight decay :math:`\lambda` (at
      :math:`y`).
    weight_lr_power: :math:`r`, the averaging weights being
      :math:`\gamma_t^r` (see :func:`schedule_free`).
    state_dtype: the dtype of :math:`z`, or ``None`` for the params' dtypes;
      the RMS moment of the gradients keeps the params' dtypes.

  Returns:
    RMSProp-scaled steps on :math:`z` wrapped by :func:`schedule_free`, as
    a ``GradientTransformationExtraArgs`` (state :class:`ScheduleFreeState`)
    whose ``update`` takes the params.

  Examples:
    Its first step is the sign of the gradient times the learning rate
    (Adam's, with the bias-corrected second moment):

    >>> import jax.numpy as jnp
    >>> import optax
    >>> params = jnp.array([1.0, -1.0])
    >>> tx = optax.contrib.schedule_free_adamw(learning_rate=0.1)
    >>> updates, state = tx.update(2 * params, tx.init(params), params)
    >>> print(updates.dtype, [round(float(u), 4) for u in updates])
    float32 [-0.1, 0.1]

  References:
    Defazio et al., `The Road Less Scheduled
    <https://arxiv.org/abs/2405.15682>`_, 2024.
  """
  learning_rate = _warmup(learning_rate, warmup_steps)
  optimizer = _combining.chain(
      transform.scale_by_rms(decay=b2, eps=eps, eps_in_sqrt=False,
                             bias_correction=True),
      _adding.add_decayed_weights(weight_decay),
      transform.scale_by_learning_rate(_from_step_one(learning_rate)),
  )
  return schedule_free(optimizer, learning_rate=learning_rate, b1=b1,
                       weight_lr_power=weight_lr_power,
                       state_dtype=state_dtype)
