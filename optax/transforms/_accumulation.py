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
"""Transformations that accumulate updates over steps.

Momentum (:func:`trace`), exponential moving averages (:func:`ema`) and
gradient accumulation over several mini-batches (:class:`MultiSteps`).
"""

from typing import Any, Callable, NamedTuple, Optional, Protocol, Union
import warnings

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
from optax._src import tree_structure
from optax._src import utils


def _is_none(x: Any) -> bool:
  return x is None


class TraceState(NamedTuple):
  """State of :func:`trace`.

  Attributes:
    trace: the momentum, a tree shaped like the params, of dtype
      ``accumulator_dtype`` (the params' dtype by default).
  """

  trace: base.Params


def trace(
    decay: float,
    nesterov: bool = False,
    accumulator_dtype: Optional[Any] = None,
) -> base.GradientTransformation:
  r"""Momentum: accumulates a decaying sum of the past updates.

  With :math:`\beta` = ``decay`` and :math:`g_t` the incoming updates,

  .. math::

    m_t = g_t + \beta \, m_{t-1}, \qquad
    u_t = \begin{cases}
      g_t + \beta \, m_t & \text{(Nesterov)}, \\
      m_t & \text{otherwise.}
    \end{cases}

  Args:
    decay: the decay rate :math:`\beta` of the trace.
    nesterov: whether to use Nesterov momentum.
    accumulator_dtype: the dtype of the trace; None for the params' dtype.

  Returns:
    A GradientTransformation whose state is a :class:`TraceState`. Updates
    keep the dtype of the incoming updates.

  Examples:
    >>> import jax.numpy as jnp
    >>> import optax
    >>> tx = optax.trace(decay=0.5)
    >>> state = tx.init(jnp.zeros(2))
    >>> updates, state = tx.update(jnp.array([1.0, 2.0]), state)
    >>> updates, state = tx.update(jnp.array([1.0, 2.0]), state)
    >>> updates
    Array([1.5, 3. ], dtype=float32)

  References:
    Polyak, `Some methods of speeding up the convergence of iteration methods
    <https://doi.org/10.1016/0041-5553(64)90137-5>`_, 1964.

    Sutskever et al., `On the importance of initialization and momentum in
    deep learning <http://proceedings.mlr.press/v28/sutskever13.html>`_,
    2013.

  .. seealso:: :func:`ema`
  """
  accumulator_dtype = utils.canonicalize_dtype(accumulator_dtype)

  def init_fn(params):
    return TraceState(
        trace=otu.tree_zeros_like(params, dtype=accumulator_dtype))

  def update_fn(updates, state, params=None):
    del params
    tree_structure.check_like_updates('trace', updates, state.trace)
    beta = hyperparameters.as_hyperparameter(decay)

    def leaf_update(g, t):
      if g is None:
        return None
      g, t = jnp.asarray(g), jnp.asarray(t)
      dtype = dtypes.promote_dtypes(g.dtype, t.dtype, beta.dtype)
      b, x = beta.astype(dtype), g.astype(dtype)
      new_t = x + b * t.astype(dtype)
      u = x + b * new_t if nesterov else new_t
      return u.astype(g.dtype), new_t.astype(t.dtype)

    pairs = jax.tree.map(leaf_update, updates, state.trace, is_leaf=_is_none)
    new_updates, new_trace = tree_structure.unzip(updates, pairs, 2)
    return new_updates, TraceState(trace=new_trace)

  return base.GradientTransformation(init_fn, update_fn)


class EmaState(NamedTuple):
  """State of :func:`ema`.

  Attributes:
    count: number of updates done so far, shape ``()``, int32 (for the bias
      correction).
    ema: the moving average, not bias-corrected, a tree shaped like the
      params, of dtype ``accumulator_dtype`` (the params' dtype by default).
  """

  count: jax.Array
  ema: base.Params


@arguments.declare(decay=arguments.closed_decay)
def ema(
    decay: float,
    debias: bool = True,
    accumulator_dtype: Optional[Any] = None,
) -> base.GradientTransformation:
  r"""Exponential moving average of the updates.

  With :math:`\beta` = ``decay`` and :math:`g_t` the incoming updates at
  step :math:`t = 1, 2, \dots`,

  .. math::

    m_t = (1 - \beta)\, g_t + \beta\, m_{t-1}, \qquad
    u_t = \begin{cases}
      m_t / (1 - \beta^t) & \text{(debias)}, \\
      m_t & \text{otherwise.}
    \end{cases}

  Args:
    decay: the decay rate :math:`\beta \in [0, 1]`.
    debias: whether to divide by :math:`1 - \beta^t`, which corrects the bias
      towards zero of an average started at zero.
    accumulator_dtype: the dtype of the average; None for the params' dtype.

  Returns:
    A GradientTransformation whose state is an :class:`EmaState`. Updates
    keep the dtype of the incoming updates.

  Raises:
    ValueError: if ``decay`` is a Python number outside ``[0, 1]``.

  Examples:
    >>> import jax.numpy as jnp
    >>> import optax
    >>> tx = optax.ema(decay=0.5, debias=False)
    >>> state = tx.init(jnp.zeros(2))
    >>> updates, state = tx.update(jnp.array([1.0, 2.0]), state)
    >>> updates
    Array([0.5, 1. ], dtype=float32)

  .. seealso:: :func:`trace`
  """
  accumulator_dtype = utils.canonicalize_dtype(accumulator_dtype)

  def init_fn(params):
    return EmaState(
        count=jnp.zeros([], jnp.int32),
        ema=otu.tree_zeros_like(params, dtype=accumulator_dtype))

  def update_fn(updates, state, params=None):
    del params
    beta = hyperparameters.as_hyperparameter(decay)
    new_ema = otu.tree_update_moment(updates, state.ema, beta, 1)
    count = numerics.safe_increment(state.count)
    out = otu.tree_bias_correction(new_ema, beta, count) if debias else new_ema
    new_updates = jax.tree.map(
        lambda g, m: None if g is None else jnp.asarray(m).astype(g.dtype),
        updates, out, is_leaf=_is_none)
    return new_updates, EmaState(count=count, ema=new_ema)

  return base.GradientTransformation(init_fn, update_fn)


class ShouldSkipUpdateFunction(Protocol):
  """Decides whether :class:`MultiSteps` ignores a mini-batch's gradient."""

  def __call__(
      self,
      updates: base.Updates,
      gradient_step: jax.Array,
      params: Optional[base.Params],
  ) -> tuple[jax.Array, base.ArrayTree]:
    """Returns whether to skip these updates, and information on why.

    Args:
      updates: the gradient of the current mini-batch.
      gradient_step: the number of updates emitted so far (int32 scalar).
      params: the current parameters (may be None).

    Returns:
      A tuple ``(should_skip, skip_state)``: a boolean scalar, and a pytree
      of arrays stored in ``MultiStepsState.skip_state``. Its structure,
      shapes and dtypes must not depend on the values of the arguments.
    """


def skip_not_finite(
    updates: base.Updates,
    gradient_step: jax.Array,
    params: Optional[base.Params],
) -> tuple[jax.Array, base.ArrayTree]:
  """Skips updates that contain a NaN or an infinity.

  A :class:`ShouldSkipUpdateFunction` for :class:`MultiSteps`.

  Args:
    updates: the gradient of the current mini-batch.
    gradient_step: unused.
    params: unused.

  Returns:
    A tuple ``(should_skip, skip_state)``: whether any entry is not finite,
    and a dict with ``'should_skip'`` (bool scalar) and ``'num_not_finite'``
    (int32 scalar, the number of entries that are not finite).

  Examples:
    >>> import jax.numpy as jnp
    >>> import optax
    >>> grads = jnp.array([1.0, jnp.nan, jnp.inf])
    >>> should_skip, info = optax.skip_not_finite(grads, 0, None)
    >>> should_skip, info['num_not_finite']
    (Array(True, dtype=bool), Array(2, dtype=int32))
  """
  del gradient_step, params
  counts = [jnp.sum(~jnp.isfinite(x), dtype=jnp.int32)
            for x in jax.tree.leaves(updates)]
  num_not_finite = sum(counts[1:], counts[0]) if counts else jnp.zeros(
      [], jnp.int32)
  should_skip = num_not_finite > 0
  return should_skip, dict(
      should_skip=should_skip, num_not_finite=num_not_finite)


def skip_large_updates(
    updates: base.Updates,
    gradient_step: jax.Array,
    params: Optional[base.Params],
    max_squared_norm: float,
) -> tuple[jax.Array, base.ArrayTree]:
  """Skips updates whose squared Euclidean norm is too large (or NaN).

  A :class:`ShouldSkipUpdateFunction` for :class:`MultiSteps` once
  ``max_squared_norm`` is bound, e.g. with ``functools.partial``.

  Args:
    updates: the gradient of the current mini-batch.
    gradient_step: unused.
    params: unused.
    max_squared_norm: the updates are skipped unless their squared norm is
      below this value.

  Returns:
    A tuple ``(should_skip, skip_state)``: whether the squared norm is at
    least ``max_squared_norm`` or NaN, and a dict with ``'should_skip'``
    (bool scalar) and ``'norm_squared'`` (scalar of the updates' dtype).

  Examples:
    >>> import jax.numpy as jnp
    >>> import optax
    >>> grads = jnp.array([3.0, 4.0])
    >>> should_skip, info = optax.skip_large_updates(grads, 0, None, 10.0)
    >>> should_skip, info['norm_squared']
    (Array(True, dtype=bool), Array(25., dtype=float32))
  """
  del gradient_step, params
  norm_squared = otu.tree_norm(updates, squared=True)
  # Written as a negation so that a NaN norm is skipped.
  should_skip = jnp.logical_not(norm_squared < max_squared_norm)
  return should_skip, dict(should_skip=should_skip, norm_squared=norm_squared)


_MULTI_STEPS_REMEDY = (
    'The accumulator is shaped like the params given to init: MultiSteps'
    ' accumulates gradients shaped like the params, and per-example gradients'
    ' (with a batch axis, as dpsgd expects) cannot be averaged across'
    ' mini-batches. Remedy: clip and aggregate them within each mini-batch'
    ' before accumulating, or init with params shaped like the gradients.')


def _describe(x: Any) -> str:
  return f'{jnp.result_type(x)}{list(jnp.shape(x))}'


def _cast_inner_state_like(new_state: Any, old_state: Any) -> Any:
  """Casts the inner update's new state to the dtypes of the state it got.

  The accumulate branch of ``MultiSteps`` returns the inner state as it
  was; the emit branch returns what the inner update made of it, cast here
  to the same dtypes so that both branches have the same types. An inner
  optimizer whose state changes dtype (a bfloat16 leaf promoted to float32,
  say) gets a warning at trace time naming the leaves, as the cast may lose
  precision it meant to keep.

  Args:
    new_state: the inner state returned by the inner update.
    old_state: the inner state given to it.

  Returns:
    ``new_state`` with each leaf cast to the dtype of its ``old_state`` leaf.

  Raises:
    TypeError: naming the first leaf (by key path) whose shape changed, or
      if the tree structure changed; no cast can mend those.
  """
  new_leaves, new_def = jax.tree_util.tree_flatten_with_path(new_state)
  old_leaves, old_def = jax.tree_util.tree_flatten_with_path(old_state)
  if new_def != old_def:
    raise TypeError(
        'MultiSteps: the inner optimizer returned a state of another tree'
        f' structure than it was given: {new_def} instead of {old_def}. An'
        ' optimizer state must keep its structure across steps.')
  cast, changed = [], []
  for (path, new), (_, old) in zip(new_leaves, old_leaves):
    if jnp.shape(new) != jnp.shape(old):
      raise TypeError(
          'MultiSteps: the inner optimizer changed the shape of its state'
          f' leaf at {jax.tree_util.keystr(path)} from {_describe(old)} to'
          f' {_describe(new)}. An optimizer state must keep its shapes across'
          ' steps (the steps that only accumulate return it unchanged).')
    old_dtype = jnp.result_type(old)
    if jnp.result_type(new) != old_dtype:
      changed.append(f'{jax.tree_util.keystr(path)} from {old_dtype} to'
                     f' {jnp.result_type(new)}')
      new = jnp.asarray(new).astype(old_dtype)
    cast.append(new)
  if changed:
    shown = '; '.join(changed[:3])
    if len(changed) > 3:
      shown += f'; and {len(changed) - 3} more'
    warnings.warn(
        'MultiSteps: the inner optimizer changed the dtype of its state'
        f' leaves at {shown}. They are cast back to the dtypes given by init'
        ' (the steps that only accumulate return the state unchanged).'
        ' Remedy: cast the new state to the dtypes of the old one in the'
        ' inner optimizer.', stacklevel=2)
  return old_def.unflatten(cast)


class MultiStepsState(NamedTuple):
  """State of :class:`MultiSteps`.

  Attributes:
    mini_step: the number of mini-batch gradients accumulated in the
      current cycle, shape ``()``, int32.
    gradient_step: the number of updates of the inner optimizer done so far,
      shape ``()``, int32.
    inner_opt_state: the state of the inner optimizer.
    acc_grads: the mean (or sum) of the gradients of the current cycle, a
      tree shaped like the params, of the accumulator dtype.
    skip_state: the second output of ``should_skip_update_fn`` at the last
      step, or ``()`` without one.
  """

  mini_step: jax.Array
  gradient_step: jax.Array
  inner_opt_state: Any
  acc_grads: Any
  skip_state: base.ArrayTree = ()


class MultiSteps:
  r"""Accumulates the gradients of ``k`` mini-batches before each update.

  Gradient accumulation: each call of :meth:`update` adds the gradient of one
  mini-batch to an accumulator and returns zero updates; on every ``k``-th
  call, the inner optimizer is applied to the mean (or sum) of the ``k``
  gradients and its updates are returned, and the accumulator starts again
  from zero. Training with a batch ``k`` times larger than fits in memory
  thus takes the same steps as training on the large batch.

  .. math::

    \bar g = \frac{1}{k} \sum_{i=1}^{k} g_i, \qquad
    (u, s) \leftarrow \mathrm{opt.update}(\bar g, s, \theta).

  Memory: the state holds the inner optimizer's state once and one
  accumulator shaped like the params (of ``accumulator_dtype``). The inner
  update runs inside a single :func:`jax.lax.cond` only on the steps that
  emit; on the other steps the inner state passes through the conditional
  unchanged, so no second copy of it (nor of the inner optimizer's
  temporaries) is materialized, unlike computing both branches and selecting.
  The accumulator is updated outside the conditional, in place. The inner
  optimizer's constant hyperparameters are constants of the branch, so
  that where its update is elementwise XLA:GPU can turn the conditional
  into a select fused with the rest of the step, as it does for upstream's
  (no buffer for the updates). Donate the state to the jitted step
  (``donate_argnums``) to let XLA update it in place; the
  ``multisteps_memory`` rows of ``benchmarks/compare_upstream.py`` print the
  compiled memory of such a step beside upstream's.

  Both branches of the conditional return the same types by construction:
  the inner state keeps the dtypes given by ``init`` (an inner optimizer
  that changes them has its new state cast back, with a warning naming the
  leaves), the updates have the dtype of the incoming gradients, and
  the accumulator keeps the dtype chosen at ``init``. The accumulator is
  reset by selection, so a NaN or an infinity in one mini-batch affects at
  most its own cycle.

  Examples:
    >>> import jax.numpy as jnp
    >>> import optax
    >>> opt = optax.MultiSteps(optax.sgd(1.0), every_k_schedule=2)
    >>> params = jnp.zeros(2)
    >>> state = opt.init(params)
    >>> updates, state = opt.update(jnp.array([1.0, 2.0]), state, params)
    >>> updates
    Array([0., 0.], dtype=float32)
    >>> updates, state = opt.update(jnp.array([3.0, 4.0]), state, params)
    >>> updates
    Array([-2., -3.], dtype=float32)
    >>> opt.has_updated(state)
    Array(True, dtype=bool)

  References:
    Goyal et al., `Accurate, Large Minibatch SGD: Training ImageNet in 1 Hour
    <https://arxiv.org/abs/1706.02677>`_, 2017.
  """

  def __init__(
      self,
      opt: base.GradientTransformation,
      every_k_schedule: Union[int, Callable[[jax.Array], jax.Array]],
      use_grad_mean: bool = True,
      should_skip_update_fn: Optional[ShouldSkipUpdateFunction] = None,
      accumulator_dtype: Optional[Any] = jnp.float32,
  ):
    """Wraps an optimizer.

    Args:
      opt: the inner optimizer, applied once every ``k`` steps.
      every_k_schedule: ``k``, the number of mini-batches per update: an int
        ``>= 1``, or a function of the number of updates done so far
        (``gradient_step``, an int32 scalar) returning ``k``.
      use_grad_mean: whether the inner optimizer sees the mean of the ``k``
        gradients (True) or their sum.
      should_skip_update_fn: an optional :class:`ShouldSkipUpdateFunction`;
        a mini-batch whose gradient it flags is left out (the step returns
        zero updates and leaves the accumulator and counters unchanged).
      accumulator_dtype: the dtype of the accumulator (complex leaves use
        the complex dtype of that precision); None for the params' dtype.

    Raises:
      ValueError: if ``every_k_schedule`` is neither a callable nor an
        integer ``>= 1``.
    """
    if callable(every_k_schedule):
      self._every_k_schedule = every_k_schedule
    else:
      if (not hyperparameters.is_number(every_k_schedule, integral=True)
          or every_k_schedule < 1):
        raise ValueError(
            'MultiSteps: every_k_schedule must be an integer >= 1 or a'
            ' function of the gradient step returning one, got'
            f' {every_k_schedule!r}')
      k = int(every_k_schedule)
      self._every_k_schedule = lambda step: k
    self._opt = base.with_extra_args_support(opt)
    self._use_grad_mean = use_grad_mean
    self._should_skip_update_fn = should_skip_update_fn
    self._accumulator_dtype = utils.canonicalize_dtype(accumulator_dtype)

  @property
  def inner_opt(self) -> base.GradientTransformationExtraArgs:
    """The inner optimizer (accepting extra arguments)."""
    return self._opt

  def _acc_dtype(self, dtype: Any) -> np.dtype:
    if self._accumulator_dtype is None:
      return dtype
    if jnp.issubdtype(dtype, jnp.complexfloating):
      return dtypes.promote_dtypes(self._accumulator_dtype, jnp.complex64)
    return self._accumulator_dtype

  def init(self, params: base.Params) -> MultiStepsState:
    """Builds the initial state; only the params' shapes and dtypes are used.

    Args:
      params: the model parameters (arrays or ``jax.ShapeDtypeStruct``).

    Returns:
      A :class:`MultiStepsState` with zero counters and accumulator. The
      accumulator is built with ``zeros_like`` of each param, so it has the
      param's sharding (on a mesh) instead of living on a single device.
    """
    step = jnp.zeros([], jnp.int32)
    acc_grads = jax.tree.map(
        lambda p: jnp.zeros_like(p, self._acc_dtype(jnp.result_type(p))),
        params)
    skip_state = ()
    if self._should_skip_update_fn is not None:
      shapes = jax.eval_shape(
          lambda p: self._should_skip_update_fn(p, step, p)[1], params)
      skip_state = jax.tree.map(lambda s: jnp.zeros(s.shape, s.dtype), shapes)
    return MultiStepsState(
        mini_step=step,
        gradient_step=jnp.zeros([], jnp.int32),  # Own buffer: donatable.
        inner_opt_state=self._opt.init(params),
        acc_grads=acc_grads,
        skip_state=skip_state,
    )

  def update(
      self,
      updates: base.Updates,
      state: MultiStepsState,
      params: Optional[base.Params] = None,
      **extra_args: Any,
  ) -> tuple[base.Updates, MultiStepsState]:
    """Accumulates one mini-batch gradient; applies the inner optimizer.

    Args:
      updates: the gradient of the current mini-batch.
      state: the current state.
      params: the current parameters, forwarded to the inner optimizer and
        to ``should_skip_update_fn``.
      **extra_args: forwarded to the inner optimizer's update.

    Returns:
      The updates (zeros except on the steps where the inner optimizer
      runs), in the dtypes the inner optimizer alone returns for these
      gradients (see ``optax._src.prepared_inputs.as_updates``), and the new
      state.
    """
    # The gradients as the inner optimizer (a chain) would take them, so
    # that the updates have the dtypes the inner optimizer alone returns.
    updates, params, float0 = prepared_inputs.as_updates(updates, params)
    tree_structure.check_like_updates(
        'MultiSteps', updates, state.acc_grads, state_name='the accumulator',
        remedy=_MULTI_STEPS_REMEDY)
    mini_step, gradient_step = state.mini_step, state.gradient_step
    k = self._every_k_schedule(gradient_step)
    if self._should_skip_update_fn is None:
      skip = jnp.zeros([], bool)
      skip_state = ()
    else:
      skip, skip_state = self._should_skip_update_fn(
          updates, gradient_step, params)
      skip = jnp.asarray(skip, bool)
      # Keep the state type-stable whatever the function returns.
      skip_state = jax.tree.map(
          lambda x: jnp.asarray(x, jnp.asarray(x).dtype), skip_state)
    new_mini_step = numerics.safe_increment(mini_step)
    emit = jnp.logical_and(jnp.logical_not(skip), new_mini_step >= k)

    # The accumulator after this mini-batch, in the accumulator's dtype.
    count = hyperparameters.as_hyperparameter(new_mini_step)

    def accumulate(g, a):
      dtype = dtypes.promote_dtypes(g.dtype, a.dtype, count.dtype)
      x, y = g.astype(dtype), a.astype(dtype)
      if self._use_grad_mean:
        acc = y + (x - y) / count.astype(dtype)
      else:
        acc = y + x
      return acc.astype(a.dtype)

    def emit_fn(inner_state):
      # The mean (or sum) including this mini-batch, in the gradients' dtype.
      grads = jax.tree.map(
          lambda g, a: None if g is None else accumulate(g, a).astype(g.dtype),
          updates, state.acc_grads, is_leaf=_is_none)
      new_updates, new_inner_state = self._opt.update(
          grads, inner_state, params, **extra_args)
      new_updates = jax.tree.map(
          lambda g, u: None if g is None else jnp.asarray(u).astype(g.dtype),
          updates, new_updates, is_leaf=_is_none)
      new_inner_state = _cast_inner_state_like(new_inner_state, inner_state)
      return new_updates, new_inner_state, jnp.ones([], bool)

    def accumulate_fn(inner_state):
      zeros = jax.tree.map(
          lambda g: None if g is None else jnp.zeros_like(g),
          updates, is_leaf=_is_none)
      return zeros, inner_state, jnp.zeros([], bool)

    # Only the inner update is conditional; the accumulator is updated
    # outside, in one elementwise pass that XLA can write over the old
    # accumulator when the state is donated. It selects on ``emitted``, the
    # conditional's own copy of ``emit``: that data dependency orders the
    # pass after the conditional (which reads the old accumulator), so XLA
    # need not copy the old accumulator to keep it alive for the latter.
    new_updates, inner_opt_state, emitted = jax.lax.cond(
        emit, emit_fn, accumulate_fn, state.inner_opt_state)

    def next_acc(g, a):
      # Reset by selection, never by multiplying by zero: a NaN of this
      # cycle cannot leak into the next one.
      if g is None:
        return None
      return jnp.where(
          emitted, jnp.zeros_like(a), jnp.where(skip, a, accumulate(g, a)))

    acc_grads = jax.tree.map(
        next_acc, updates, state.acc_grads, is_leaf=_is_none)

    zero = jnp.zeros_like(mini_step)
    mini_step = jnp.where(
        emit, zero, jnp.where(skip, mini_step, new_mini_step))
    gradient_step = jnp.where(
        emit, numerics.safe_increment(gradient_step), gradient_step)
    if float0 is not None:
      new_updates = float0.zero(new_updates)
    return new_updates, MultiStepsState(
        mini_step=mini_step,
        gradient_step=gradient_step,
        inner_opt_state=inner_opt_state,
        acc_grads=acc_grads,
        skip_state=skip_state,
    )

  def has_updated(self, state: MultiStepsState) -> jax.Array:
    """Whether the last call of :meth:`update` applied the inner optimizer.

    Args:
      state: the state returned by :meth:`update`.

    Returns:
      A boolean scalar: true when the accumulator has just been emptied
      (``mini_step == 0``) after at least one update.
    """
    return jnp.logical_and(state.mini_step == 0, state.gradient_step > 0)

  def gradient_transformation(self) -> base.GradientTransformationExtraArgs:
    """This wrapper as a GradientTransformationExtraArgs, to chain it.

    Returns:
      ``GradientTransformationExtraArgs(self.init, self.update)``.
    """
    return base.GradientTransformationExtraArgs(self.init, self.update)
