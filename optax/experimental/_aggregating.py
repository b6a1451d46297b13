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
r"""Aggregators: from per-element updates to one update (experimental).

Some algorithms need the updates of every element of a batch (per-example
gradients, e.g. from ``jax.vmap(jax.grad(loss))``), not only their mean: to
clip them one by one, or to track their variance. An :class:`Aggregator` is a
gradient transformation whose ``update`` takes such per-element updates,
stacked along ``per_elt_axis``, and returns one aggregated update. With
:func:`process` a pre-processor (on the per-element updates), an aggregator
and a post-processor (an optimizer, on the aggregated update) make a single
transformation. Aggregators may accumulate over several micro-batches and
only emit every ``accumulation_steps`` steps: their state then has a
``ready`` flag and the post-processor only runs when it is set.
"""

import math
from collections.abc import Sequence
from typing import Any, NamedTuple, Optional, Protocol, Union

import jax
import jax.numpy as jnp
import numpy as np

from optax import tree
from optax._src import base
from optax._src import hyperparameters
from optax._src import numerics
from optax._src import tree_structure
# Unused here: upstream 0.2.8's module has `utils` in its namespace
# (optax.experimental.aggregating.utils), and code may reach it there.
from optax._src import utils  # noqa: F401  pylint: disable=unused-import
from optax._src import validation
from optax.transforms import _combining

PerElementUpdates = base.ArrayTree
"""Updates of every element of a batch, stacked along the element axis."""

AggregatedUpdates = base.ArrayTree
"""Updates aggregated over the elements of a batch, shaped like params."""

MaybeAxis = Optional[Union[int, Sequence[int]]]
"""An axis, several axes, or None (every axis)."""


class AggregatorUpdateFn(Protocol):
  """The ``update`` function of an :class:`Aggregator`."""

  def __call__(
      self,
      per_elt_updates: PerElementUpdates,
      state: base.OptState,
      params: Optional[base.Params] = None,
      **extra_args: Any,
  ) -> tuple[AggregatedUpdates, base.OptState]:
    """Aggregates per-element updates and advances the state.

    Args:
      per_elt_updates: the updates of each element of the batch, stacked
        along the element axis.
      state: the state of the aggregator.
      params: the current parameters, if needed.
      **extra_args: further keyword arguments, ignored unless used.

    Returns:
      The aggregated updates (or ``(updates, aux)`` for an aggregator with
      auxiliary outputs) and the new state.
    """


class Aggregator(base.GradientTransformationExtraArgs):
  """A transformation from per-element updates to aggregated updates.

  Attributes:
    init: builds the state from the parameters.
    update: maps ``(per_elt_updates, state, params, **extra_args)`` to
      ``(aggregated_updates, new_state)``.
  """

  update: AggregatorUpdateFn


def _axis_tuple(per_elt_axis: MaybeAxis) -> Optional[tuple[int, ...]]:
  if per_elt_axis is None:
    return None
  if isinstance(per_elt_axis, (int, np.integer)):
    return (int(per_elt_axis),)
  return tuple(int(a) for a in per_elt_axis)


def _check_accumulation_steps(fn_name: str, accumulation_steps: int) -> None:
  validation.check_in_interval(
      fn_name, 'accumulation_steps', accumulation_steps, 1, math.inf)


def get_batch_size_from_per_elt_updates(
    per_elt_updates: PerElementUpdates, per_elt_axis: MaybeAxis
) -> int:
  """The number of elements in a batch of per-element updates.

  Examples:
    >>> import jax.numpy as jnp
    >>> from optax.experimental import aggregating
    >>> updates = {'w': jnp.zeros((8, 3)), 'b': jnp.zeros((8,))}
    >>> aggregating.get_batch_size_from_per_elt_updates(updates, 0)
    8

  Args:
    per_elt_updates: the per-element updates.
    per_elt_axis: the element axis, or several axes (their sizes multiply),
      or None (every axis).

  Returns:
    The batch size, a Python int.

  Raises:
    ValueError: if the leaves disagree on the batch size, or there are none.
  """
  axes = _axis_tuple(per_elt_axis)
  sizes = []
  for leaf in jax.tree.leaves(per_elt_updates):
    shape = jnp.shape(leaf)
    if axes is None:
      sizes.append(math.prod(shape))
    else:
      sizes.append(math.prod(shape[a] for a in axes))
  if not sizes:
    raise ValueError(
        'get_batch_size_from_per_elt_updates: per_elt_updates has no leaves.')
  if any(s != sizes[0] for s in sizes):
    raise ValueError(
        'Per-element updates must have the same batch size. Got:'
        f' {sizes} (per_elt_axis={per_elt_axis}).')
  return sizes[0]


def average_per_element_updates(per_elt_axis: MaybeAxis = 0) -> Aggregator:
  r"""Averages the per-element updates.

  .. math::

    u = \frac{1}{B} \sum_{b=1}^{B} u_b .

  Examples:
    >>> import jax.numpy as jnp
    >>> from optax.experimental import aggregating
    >>> agg = aggregating.average_per_element_updates()
    >>> per_elt = {'w': jnp.array([[1.0, 2.0], [3.0, 6.0]])}
    >>> mean, _ = agg.update(per_elt, agg.init(None))
    >>> mean['w']
    Array([2., 4.], dtype=float32)

  Args:
    per_elt_axis: the element axis (or axes; None for every axis).

  Returns:
    A stateless :class:`Aggregator`.
  """
  axes = _axis_tuple(per_elt_axis)

  def update_fn(per_elt_updates, state, params=None, **extra_args):
    del params, extra_args
    mean = jax.tree.map(lambda u: jnp.mean(u, axis=axes), per_elt_updates)
    return mean, state

  return Aggregator(base.init_empty_state, update_fn)


class AccumulateAvgUpdatesState(NamedTuple):
  """State of :func:`accumulate_avg_updates`.

  Attributes:
    micro_step: number of updates averaged since the last emission, shape
      ``()``, int32.
    ready: whether the last update emitted the average, shape ``()``, bool.
    avg_grad: the running average, shaped and typed like the params.
  """

  micro_step: jax.Array
  ready: jax.Array
  avg_grad: base.Updates


def accumulate_avg_updates(
    accumulation_steps: int,
) -> base.GradientTransformation:
  r"""Averages updates over ``accumulation_steps`` calls.

  With :math:`k` = ``accumulation_steps``, the running average
  :math:`a_i = a_{i-1} + (u_i - a_{i-1}) / i` is kept; the call that
  completes :math:`k` updates returns :math:`a_k` and resets it, the others
  return zeros. ``ready`` in the state says which call emitted.

  Examples:
    >>> import jax.numpy as jnp
    >>> from optax.experimental import aggregating
    >>> tx = aggregating.accumulate_avg_updates(2)
    >>> state = tx.init(jnp.zeros(2))
    >>> out, state = tx.update(jnp.array([1.0, 2.0]), state)
    >>> out, state.ready
    (Array([0., 0.], dtype=float32), Array(False, dtype=bool))
    >>> out, state = tx.update(jnp.array([3.0, 6.0]), state)
    >>> out, state.ready
    (Array([2., 4.], dtype=float32), Array(True, dtype=bool))

  Args:
    accumulation_steps: the number :math:`k \ge 1` of updates to average
      (with 1, the identity).

  Returns:
    A GradientTransformation.
  """
  _check_accumulation_steps('accumulate_avg_updates', accumulation_steps)
  if accumulation_steps == 1:
    return base.identity()

  def init_fn(params):
    return AccumulateAvgUpdatesState(
        micro_step=jnp.zeros([], jnp.int32),
        ready=jnp.zeros([], bool),
        avg_grad=tree.zeros_like(params),
    )

  def update_fn(updates, state, params=None):
    del params
    difference = tree_structure.structure_difference(updates, state.avg_grad)
    if difference is not None:
      raise ValueError(
          'accumulate_avg_updates: the updates do not have the structure of'
          f' the params given to init ({difference}).')
    count = state.micro_step + 1
    ready = count == accumulation_steps
    average = jax.tree.map(lambda u, a: a + (u - a) / count,
                           updates, state.avg_grad)
    emitted = jax.tree.map(
        lambda avg, u: jnp.where(ready, avg, 0).astype(jnp.result_type(u)),
        average, updates)
    kept = jax.tree.map(
        lambda avg, a: jnp.where(ready, 0, avg).astype(jnp.result_type(a)),
        average, state.avg_grad)
    new_state = AccumulateAvgUpdatesState(
        micro_step=jnp.where(ready, 0, count).astype(jnp.int32),
        ready=ready,
        avg_grad=kept,
    )
    return emitted, new_state

  return base.GradientTransformation(init_fn, update_fn)


def average_incrementally_updates(
    per_elt_axis: MaybeAxis,
    accumulation_steps: int,
) -> Union[Aggregator, base.GradientTransformation]:
  """Averages per-element updates over ``accumulation_steps`` batches.

  The composition of :func:`average_per_element_updates` and
  :func:`accumulate_avg_updates`: the mean over the elements of a batch is
  averaged over ``accumulation_steps`` batches (of equal sizes), then
  emitted. With ``per_elt_axis=None`` the updates are not per-element (e.g.
  gradients of a mean loss): they are only averaged over the batches.

  Examples:
    >>> import jax.numpy as jnp
    >>> from optax.experimental import aggregating
    >>> agg = aggregating.average_incrementally_updates(0, 2)
    >>> state = agg.init(jnp.zeros(2))
    >>> _, state = agg.update(jnp.array([[1.0, 2.0], [3.0, 4.0]]), state)
    >>> out, _ = agg.update(jnp.array([[5.0, 6.0], [7.0, 8.0]]), state)
    >>> out
    Array([4., 5.], dtype=float32)

  Args:
    per_elt_axis: the element axis (or axes), or None for updates that are
      already averaged over the elements.
    accumulation_steps: the number of batches to average.

  Returns:
    An :class:`Aggregator` whose state is the pair of the states of the two
    parts; with ``per_elt_axis=None``, :func:`accumulate_avg_updates`
    (a GradientTransformation, the identity for one step).
  """
  _check_accumulation_steps('average_incrementally_updates',
                            accumulation_steps)
  if per_elt_axis is None:
    return accumulate_avg_updates(accumulation_steps)
  chained = _combining.chain(
      average_per_element_updates(per_elt_axis),
      accumulate_avg_updates(accumulation_steps),
  )
  return Aggregator(chained.init, chained.update)


class PerElementMeanAndSumSqDiffGradsState(NamedTuple):
  """State of :func:`get_per_element_mean_and_sum_sq_diff_grads`.

  Attributes:
    micro_step: number of batches accumulated since the last emission, shape
      ``()``, int32.
    ready: whether the last update emitted, shape ``()``, bool.
    mean_grads: the mean of the elements seen so far, like the params.
    sum_sq_diff_grads: the sum of their squared deviations from that mean,
      like the params.
  """

  micro_step: jax.Array
  ready: jax.Array
  mean_grads: base.Updates
  sum_sq_diff_grads: base.Updates


def get_per_element_mean_and_sum_sq_diff_grads(
    per_elt_axis: MaybeAxis = 0,
    accumulation_steps: int = 1,
) -> Aggregator:
  r"""Mean and sum of squared deviations of per-element updates.

  For the :math:`N` elements :math:`g_n` of one batch (or of
  ``accumulation_steps`` batches of equal size :math:`B`):

  .. math::

    \bar g = \frac{1}{N} \sum_n g_n, \qquad
    S = \sum_n (g_n - \bar g)^2 ,

  so that :math:`S / (N - 1)` is the unbiased sample variance. Batches are
  merged with the parallel formulas of Chan et al. (1979): with counts
  :math:`n_a, n_b`, :math:`n = n_a + n_b` and
  :math:`\delta = \bar g_b - \bar g_a`,

  .. math::

    \bar g = \bar g_a + \delta \frac{n_b}{n}, \qquad
    S = S_a + S_b + \delta^2 \frac{n_a n_b}{n} .

  ``update`` returns ``((mean, aux), state)`` with
  ``aux = {'sum_sq_diff_grads': S, 'sample_size': N}``; when accumulating,
  the calls that do not complete ``accumulation_steps`` batches return zeros
  and a sample size of 0. Use it in :func:`process` with
  ``aggregator_has_aux=True``: the post-processor receives ``aux`` as extra
  keyword arguments.

  Examples:
    >>> import jax.numpy as jnp
    >>> from optax.experimental import aggregating
    >>> agg = aggregating.get_per_element_mean_and_sum_sq_diff_grads()
    >>> per_elt = jnp.array([[1.0], [2.0], [6.0]])
    >>> (mean, aux), _ = agg.update(per_elt, agg.init(None))
    >>> mean, aux['sum_sq_diff_grads'], aux['sample_size']
    (Array([3.], dtype=float32), Array([14.], dtype=float32), 3)

  Args:
    per_elt_axis: the element axis (or axes; None for every axis).
    accumulation_steps: the number of batches to merge before emitting.

  Returns:
    An :class:`Aggregator` with auxiliary outputs.

  References:
    Chan et al., `Updating Formulae and a Pairwise Algorithm for Computing
    Sample Variances <http://i.stanford.edu/pub/cstr/reports/cs/tr/79/773/
    CS-TR-79-773.pdf>`_, 1979
  """
  _check_accumulation_steps('get_per_element_mean_and_sum_sq_diff_grads',
                            accumulation_steps)
  axes = _axis_tuple(per_elt_axis)

  def batch_statistics(per_elt_updates):
    def stats(u):
      mean = jnp.mean(u, axis=axes, keepdims=True)
      sum_sq = jnp.sum((u - mean) ** 2, axis=axes)
      return jnp.squeeze(mean, axis=axes), sum_sq

    pairs = jax.tree.map(stats, per_elt_updates)
    is_pair = lambda x: isinstance(x, tuple)
    means = jax.tree.map(lambda p: p[0], pairs, is_leaf=is_pair)
    sums = jax.tree.map(lambda p: p[1], pairs, is_leaf=is_pair)
    return means, sums

  if accumulation_steps == 1:

    def update_fn(per_elt_updates, state, params=None, **extra_args):
      del params, extra_args
      batch_size = get_batch_size_from_per_elt_updates(
          per_elt_updates, per_elt_axis)
      means, sums = batch_statistics(per_elt_updates)
      aux = {'sum_sq_diff_grads': sums, 'sample_size': batch_size}
      return (means, aux), state

    return Aggregator(base.init_empty_state, update_fn)

  def init_fn(params):
    return PerElementMeanAndSumSqDiffGradsState(
        micro_step=jnp.zeros([], jnp.int32),
        ready=jnp.zeros([], bool),
        mean_grads=tree.zeros_like(params),
        sum_sq_diff_grads=tree.zeros_like(params),
    )

  def update_fn(per_elt_updates, state, params=None, **extra_args):
    del params, extra_args
    batch_size = get_batch_size_from_per_elt_updates(
        per_elt_updates, per_elt_axis)
    batch_means, batch_sums = batch_statistics(per_elt_updates)
    count_before = state.micro_step * batch_size
    count = count_before + batch_size
    # Scalars of the merge, derived once.
    new_fraction = batch_size / count
    cross_weight = count_before * batch_size / count

    def merge(mean_a, sum_a, mean_b, sum_b):
      delta = mean_b - mean_a
      mean = mean_a + delta * new_fraction
      sum_sq = sum_a + sum_b + delta ** 2 * cross_weight
      return mean, sum_sq

    merged = jax.tree.map(merge, state.mean_grads, state.sum_sq_diff_grads,
                          batch_means, batch_sums)
    is_pair = lambda x: isinstance(x, tuple)
    means = jax.tree.map(lambda p: p[0], merged, is_leaf=is_pair)
    sums = jax.tree.map(lambda p: p[1], merged, is_leaf=is_pair)

    ready = state.micro_step + 1 == accumulation_steps
    emit = lambda x, like: jnp.where(ready, x, 0).astype(
        jnp.result_type(like))
    keep = lambda x, like: jnp.where(ready, 0, x).astype(
        jnp.result_type(like))
    aux = {
        'sum_sq_diff_grads': jax.tree.map(emit, sums, state.sum_sq_diff_grads),
        'sample_size': jnp.where(ready, count, 0).astype(jnp.int32),
    }
    new_state = PerElementMeanAndSumSqDiffGradsState(
        micro_step=jnp.where(ready, 0, state.micro_step + 1).astype(
            jnp.int32),
        ready=ready,
        mean_grads=jax.tree.map(keep, means, state.mean_grads),
        sum_sq_diff_grads=jax.tree.map(keep, sums, state.sum_sq_diff_grads),
    )
    return (jax.tree.map(emit, means, batch_means), aux), new_state

  return Aggregator(init_fn, update_fn)


class PerElementMeanAndVarianceEMAState(NamedTuple):
  """State of :func:`track_per_element_mean_and_variance_with_ema`.

  Attributes:
    count: number of updates so far, shape ``()``, int32.
    ema_decay: the decay of the moving averages, shape ``()``, float.
    mean_grads_ema: moving average of the mean updates, like the params.
    variance_grads_ema: moving average of the sample variances of the
      per-element updates, like the params.
  """

  count: jax.Array
  ema_decay: jax.Array
  mean_grads_ema: base.Updates
  variance_grads_ema: base.Updates


def track_per_element_mean_and_variance_with_ema(
    ema_decay: base.Numeric = 0.9,
) -> base.GradientTransformationExtraArgs:
  r"""Tracks moving averages of the mean and variance of per-element updates.

  With :math:`\beta` = ``ema_decay``, the mean update :math:`\bar g` and the
  sums of squared deviations :math:`S` over :math:`N` elements (the extra
  arguments ``sum_sq_diff_grads`` and ``sample_size``, as produced by
  :func:`get_per_element_mean_and_sum_sq_diff_grads`):

  .. math::

    m_t = \beta m_{t-1} + (1 - \beta) \bar g_t, \qquad
    v_t = \beta v_{t-1} + (1 - \beta) \frac{S_t}{N_t - 1} .

  The updates pass through unchanged. Read the bias-corrected estimates with
  :func:`get_unbiased_mean_and_variance_ema`.

  Examples:
    >>> import jax.numpy as jnp
    >>> from optax.experimental import aggregating
    >>> tx = aggregating.track_per_element_mean_and_variance_with_ema(0.5)
    >>> state = tx.init(jnp.zeros(1))
    >>> _, state = tx.update(jnp.array([2.0]), state,
    ...                      sum_sq_diff_grads=jnp.array([8.0]), sample_size=5)
    >>> state.mean_grads_ema, state.variance_grads_ema
    (Array([1.], dtype=float32), Array([1.], dtype=float32))

  Args:
    ema_decay: the decay :math:`\beta \in [0, 1)`.

  Returns:
    A GradientTransformationExtraArgs whose ``update`` requires the keyword
    arguments ``sum_sq_diff_grads`` and ``sample_size``.
  """
  if hyperparameters.is_number(ema_decay) and not 0 <= ema_decay < 1:
    raise ValueError(
        'track_per_element_mean_and_variance_with_ema: ema_decay must be in'
        f' [0, 1), got {ema_decay}.')

  def init_fn(params):
    return PerElementMeanAndVarianceEMAState(
        count=jnp.zeros([], jnp.int32),
        ema_decay=hyperparameters.as_hyperparameter(ema_decay),
        mean_grads_ema=tree.zeros_like(params),
        variance_grads_ema=tree.zeros_like(params),
    )

  def update_fn(updates, state, params=None, *, sum_sq_diff_grads,
                sample_size, **extra_args):
    del params, extra_args
    decay = state.ema_decay

    def ema(average, new):
      return (decay * average + (1 - decay) * new).astype(
          jnp.result_type(average))

    variances = jax.tree.map(lambda s: s / (sample_size - 1),
                             sum_sq_diff_grads)
    new_state = PerElementMeanAndVarianceEMAState(
        count=numerics.safe_increment(state.count),
        ema_decay=decay,
        mean_grads_ema=jax.tree.map(ema, state.mean_grads_ema, updates),
        variance_grads_ema=jax.tree.map(ema, state.variance_grads_ema,
                                        variances),
    )
    return updates, new_state

  return base.GradientTransformationExtraArgs(init_fn, update_fn)


def get_unbiased_mean_and_variance_ema(
    state: PerElementMeanAndVarianceEMAState,
) -> tuple[base.Updates, base.Updates]:
  r"""Bias-corrected moving averages of the mean and variance.

  .. math::

    \hat m_t = \frac{m_t}{1 - \beta^t}, \qquad
    \hat v_t = \frac{v_t}{1 - \beta^t} .

  Examples:
    >>> import jax.numpy as jnp
    >>> from optax.experimental import aggregating
    >>> tx = aggregating.track_per_element_mean_and_variance_with_ema(0.5)
    >>> state = tx.init(jnp.zeros(1))
    >>> for mean, sum_sq in [(2.0, 8.0), (4.0, 0.0)]:  # two steps, N = 5
    ...   _, state = tx.update(jnp.array([mean]), state, sample_size=5,
    ...                        sum_sq_diff_grads=jnp.array([sum_sq]))
    >>> state.mean_grads_ema, state.variance_grads_ema  # biased to zero
    (Array([2.5], dtype=float32), Array([0.5], dtype=float32))
    >>> aggregating.get_unbiased_mean_and_variance_ema(state)  # / (1 - 0.25)
    (Array([3.3333333], dtype=float32), Array([0.6666667], dtype=float32))

  Args:
    state: the state of
      :func:`track_per_element_mean_and_variance_with_ema` (possibly nested
      in the state of a bigger transformation: the unique entry of type
      :class:`PerElementMeanAndVarianceEMAState` is used).

  Returns:
    The pair ``(mean, variance)`` of bias-corrected estimates (NaN before
    the first update).
  """
  if not isinstance(state, PerElementMeanAndVarianceEMAState):
    found = [
        x for x in jax.tree.leaves(
            state,
            is_leaf=lambda x: isinstance(x, PerElementMeanAndVarianceEMAState))
        if isinstance(x, PerElementMeanAndVarianceEMAState)
    ]
    if len(found) != 1:
      raise ValueError(
          'get_unbiased_mean_and_variance_ema: expected the state of'
          ' track_per_element_mean_and_variance_with_ema, found'
          f' {len(found)} such states in a {type(state).__name__}.')
    state = found[0]
  correction = 1 - state.ema_decay ** state.count
  unbias = lambda x: (x / correction).astype(jnp.result_type(x))
  return (jax.tree.map(unbias, state.mean_grads_ema),
          jax.tree.map(unbias, state.variance_grads_ema))


def process(
    preprocessor: base.GradientTransformation,
    aggregator: Union[base.GradientTransformation, Aggregator],
    postprocessor: base.GradientTransformation,
    aggregator_has_aux: bool = False,
) -> Union[base.GradientTransformation, Aggregator]:
  """Pre-processes, aggregates, then post-processes per-element updates.

  ``update(per_elt_updates, state, params, **extra_args)`` applies

  1. ``preprocessor`` to the per-element updates (e.g. per-example
     clipping, written to act on the stacked updates),
  2. ``aggregator`` to reduce them (with ``aggregator_has_aux``, its output
     is ``(updates, aux)`` and the dict ``aux`` is passed to the
     post-processor as extra keyword arguments),
  3. ``postprocessor`` (typically an optimizer) to the aggregated updates,
     only when the aggregator is ready: if its state has a ``ready`` flag
     (an accumulating aggregator) that is False, the post-processor is
     skipped (a conditional), its state kept, and zeros are returned.

  Extra keyword arguments go to the three parts; those that do not accept
  them ignore them.

  Examples:
    >>> import jax.numpy as jnp
    >>> import optax
    >>> from optax.experimental import aggregating
    >>> tx = aggregating.process(
    ...     optax.identity(), aggregating.average_per_element_updates(),
    ...     optax.sgd(learning_rate=0.5))
    >>> per_elt = jnp.array([[1.0, 2.0], [3.0, 6.0]])
    >>> updates, _ = tx.update(per_elt, tx.init(jnp.zeros(2)))
    >>> updates
    Array([-1., -2.], dtype=float32)

  Args:
    preprocessor: a transformation of the per-element updates.
    aggregator: an :class:`Aggregator` (or a transformation used as one).
    postprocessor: a transformation of the aggregated updates.
    aggregator_has_aux: whether the aggregator returns ``(updates, aux)``.

  Returns:
    An :class:`Aggregator` if ``aggregator`` is one, else a
    GradientTransformationExtraArgs; its state is the triple of the states
    of the three parts.
  """
  pre = base.with_extra_args_support(preprocessor)
  agg = aggregator
  if not isinstance(aggregator, Aggregator):
    agg = base.with_extra_args_support(aggregator)
  post = base.with_extra_args_support(postprocessor)

  def init_fn(params):
    return (pre.init(params), agg.init(params), post.init(params))

  def update_fn(per_elt_updates, state, params=None, **extra_args):
    pre_state, agg_state, post_state = state
    updates, pre_state = pre.update(per_elt_updates, pre_state, params,
                                    **extra_args)
    updates, agg_state = agg.update(updates, agg_state, params, **extra_args)
    post_args = dict(extra_args)
    if aggregator_has_aux:
      updates, aux = updates
      post_args.update(aux)
    ready = tree.get(agg_state, 'ready', default=None)

    def run_post(operands):
      updates, post_state, post_args = operands
      return post.update(updates, post_state, params, **post_args)

    operands = (updates, post_state, post_args)
    if ready is None:
      updates, post_state = run_post(operands)
    else:
      shapes = jax.eval_shape(run_post, operands)[0]

      def skip_post(operands):
        return (jax.tree.map(jnp.zeros_like, shapes),
                operands[1])

      updates, post_state = jax.lax.cond(
          ready, run_post, skip_post, operands)
    return updates, (pre_state, agg_state, post_state)

  if isinstance(aggregator, Aggregator):
    return Aggregator(init_fn, update_fn)
  return base.GradientTransformationExtraArgs(init_fn, update_fn)


def add_mean_variance_to_opt(
    opt: base.GradientTransformation,
    ema_decay: base.Numeric = 0.9,
    per_elt_axis: Union[int, list[int]] = 0,
    accumulation_steps: int = 1,
) -> Aggregator:
  """Makes an optimizer of per-element updates that tracks their variance.

  The composition, by :func:`process`, of
  :func:`get_per_element_mean_and_sum_sq_diff_grads` (mean over the batch,
  optionally accumulated over ``accumulation_steps`` batches) with
  :func:`track_per_element_mean_and_variance_with_ema` followed by ``opt``
  on the mean. Read the estimates from the state with
  :func:`get_unbiased_mean_and_variance_ema`.

  Examples:
    >>> import jax.numpy as jnp
    >>> import optax
    >>> from optax.experimental import aggregating
    >>> tx = aggregating.add_mean_variance_to_opt(optax.sgd(0.1))
    >>> state = tx.init(jnp.zeros(2))
    >>> per_elt = jnp.array([[1.0, 2.0], [3.0, 2.0]])
    >>> updates, state = tx.update(per_elt, state)
    >>> updates
    Array([-0.2, -0.2], dtype=float32)
    >>> aggregating.get_unbiased_mean_and_variance_ema(state)[1]
    Array([2., 0.], dtype=float32)

  Args:
    opt: the optimizer applied to the mean updates.
    ema_decay: the decay of the moving averages.
    per_elt_axis: the element axis (or axes).
    accumulation_steps: the number of batches merged before each step of
      ``opt``.

  Returns:
    An :class:`Aggregator` whose state is
    ``(EmptyState(), aggregator_state, (ema_state, opt_state))``.
  """
  return process(
      base.identity(),
      get_per_element_mean_and_sum_sq_diff_grads(per_elt_axis,
                                                 accumulation_steps),
      _combining.chain(
          track_per_element_mean_and_variance_with_ema(ema_decay), opt),
      aggregator_has_aux=True,
  )
