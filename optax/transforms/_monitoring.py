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
"""Record measurements of the updates in the optimizer state.

The transformations here leave the updates unchanged (except
``measure_with_ema``, which is meant to be used inside ``monitor``); they
store measurements (norms, statistics) in the state, where training code can
read them.
"""

from collections.abc import Callable, Mapping
from typing import Any, NamedTuple, Optional, Union

import jax
import jax.numpy as jnp

from optax import tree_utils as otu
from optax._src import base
from optax._src import hyperparameters
from optax._src import utils
from optax.transforms import _accumulation

Measure = Callable[[base.Updates], Any]


class SnapshotState(NamedTuple):
  """State of :func:`snapshot`.

  Attributes:
    measurement: a dict with one entry, the measure's name, holding the
      measurement of the last updates (of the params after ``init``).
  """

  measurement: dict[str, Any]


def snapshot(
    measure_name: str,
    measure: Measure,
) -> base.GradientTransformation:
  """Stores ``measure(updates)`` in the state; the updates are unchanged.

  ``init`` stores ``measure(params)``, so the measurement has its shape and
  dtype from the start; each ``update`` replaces it by the measurement of
  the incoming updates, cast to the same dtypes.

  Args:
    measure_name: the key of the measurement in the state.
    measure: a function of the updates returning an array or a tree.

  Returns:
    A GradientTransformation whose state is a :class:`SnapshotState`.

  Examples:
    >>> import jax.numpy as jnp
    >>> import optax
    >>> tx = optax.snapshot('max', lambda u: jnp.max(u))
    >>> state = tx.init(jnp.zeros(3))
    >>> updates, state = tx.update(jnp.array([1.0, 5.0, 2.0]), state)
    >>> state.measurement['max']
    Array(5., dtype=float32)

  .. seealso:: :func:`monitor`
  """

  def init_fn(params):
    return SnapshotState(measurement={measure_name: measure(params)})

  def update_fn(updates, state, params=None):
    del params
    value = otu.tree_cast_like(
        measure(updates), state.measurement[measure_name])
    return updates, SnapshotState(measurement={measure_name: value})

  return base.GradientTransformation(init_fn, update_fn)


def measure_with_ema(
    measure: Measure,
    decay: float,
    debias: bool = True,
    accumulator_dtype: Optional[Any] = None,
) -> base.GradientTransformationExtraArgs:
  r"""Turns the updates into an exponential moving average of a measure.

  .. math::

    m_t = \beta \, m_{t-1} + (1 - \beta) \, \mathrm{measure}(u_t)

  returned debiased by :math:`1 - \beta^t` if ``debias``. The output
  *replaces* the updates: this transformation is meant to be given to
  :func:`monitor`, which stores its output and passes the updates on.

  A boolean or integer measure is averaged as a float (the fraction of steps
  where a boolean measure held): in ``accumulator_dtype`` if that is a
  floating dtype, else in the default float dtype (float32, or float64 with
  ``jax_enable_x64``).

  Args:
    measure: a function of the updates returning an array or a tree.
    decay: the decay rate :math:`\beta` of the average.
    debias: whether to divide the average by :math:`1 - \beta^t`.
    accumulator_dtype: the dtype of the average in the state; None keeps
      the dtype of the measure (a float dtype for a boolean or integer
      measure).

  Returns:
    A GradientTransformationExtraArgs whose state is ``(EmptyState(),
    EmaState)``, the average being shaped like ``measure(params)``.

  Examples:
    >>> import jax.numpy as jnp
    >>> import optax
    >>> tx = optax.measure_with_ema(jnp.max, decay=0.5)
    >>> state = tx.init(jnp.zeros(2))
    >>> value, state = tx.update(jnp.array([1.0, 4.0]), state)
    >>> value
    Array(4., dtype=float32)

  .. seealso:: :func:`monitor`, :func:`optax.ema`
  """
  accumulator_dtype = utils.canonicalize_dtype(accumulator_dtype)
  average = _accumulation.ema(
      decay, debias=debias, accumulator_dtype=accumulator_dtype)
  if accumulator_dtype is not None and jnp.issubdtype(
      accumulator_dtype, jnp.inexact):
    float_dtype = accumulator_dtype
  else:
    float_dtype = None  # The default float dtype, read when tracing.

  def measure_as_float(tree):
    def leaf(x):
      x = jnp.asarray(x)
      if jnp.issubdtype(x.dtype, jnp.inexact):
        return x
      if float_dtype is None:
        return x.astype(hyperparameters.hyperparameter_dtype())
      return x.astype(float_dtype)
    return jax.tree.map(leaf, measure(tree))

  def init_fn(params):
    return (base.EmptyState(), average.init(measure_as_float(params)))

  def update_fn(updates, state, params=None, **extra_args):
    del params, extra_args
    measure_state, average_state = state
    value, average_state = average.update(
        measure_as_float(updates), average_state)
    return value, (measure_state, average_state)

  return base.GradientTransformationExtraArgs(init_fn, update_fn)


class MonitorState(NamedTuple):
  """State of :func:`monitor`.

  Attributes:
    measurements: a dict from each measure's name to its last measurement
      (zeros of the right shape and dtype after ``init``).
    measure_states: a tuple with the state of each measure, in the order of
      ``measures`` (``EmptyState()`` for plain functions).
  """

  measurements: dict[str, Any]
  measure_states: tuple[Any, ...]


def _as_transformation(
    measure: Union[Measure, base.GradientTransformation],
) -> base.GradientTransformationExtraArgs:
  """Turns a measure function into a stateless transformation."""
  if isinstance(measure, base.GradientTransformation):
    return base.with_extra_args_support(measure)

  def update_fn(updates, state, params=None, **extra_args):
    del params, extra_args
    return measure(updates), state

  return base.GradientTransformationExtraArgs(base.init_empty_state,
                                              update_fn)


def monitor(
    measures: Mapping[str, Union[Measure, base.GradientTransformation]],
) -> base.GradientTransformationExtraArgs:
  """Records several measurements of the updates; the updates are unchanged.

  Each measure is either a function of the updates or a transformation
  whose output is the measurement (such as :func:`measure_with_ema`); every
  measure sees the incoming updates. Transformations are given the extra
  arguments of ``update``; plain functions are not.

  Args:
    measures: a mapping from name to measure.

  Returns:
    A GradientTransformationExtraArgs whose state is a
    :class:`MonitorState`. The measurements have their shapes and dtypes
    from ``init`` on (zeros until the first update), so the state keeps its
    structure across steps.

  Raises:
    ValueError: if ``measures`` is not a mapping.

  Examples:
    >>> import jax.numpy as jnp
    >>> import optax
    >>> tx = optax.monitor({'max': jnp.max,
    ...                     'avg_max': optax.measure_with_ema(jnp.max, 0.5)})
    >>> state = tx.init(jnp.zeros(2))
    >>> updates, state = tx.update(jnp.array([1.0, 4.0]), state)
    >>> state.measurements['max'], state.measurements['avg_max']
    (Array(4., dtype=float32), Array(4., dtype=float32))

  .. seealso:: :func:`snapshot`, :func:`measure_with_ema`
  """
  if not isinstance(measures, Mapping):
    raise ValueError(
        'monitor: measures must be a mapping from name to measure, got'
        f' {type(measures).__name__}. Remedy: pass a dict such as'
        " {'norm': optax.tree.norm}.")
  names = list(measures)
  transforms = [_as_transformation(m) for m in measures.values()]

  def init_fn(params):
    measure_states = tuple(t.init(params) for t in transforms)
    measurements = {}
    for name, t, s in zip(names, transforms, measure_states):
      spec = jax.eval_shape(lambda t=t, s=s: t.update(params, s, params)[0])
      measurements[name] = jax.tree.map(jnp.zeros_like, spec)
    return MonitorState(measurements=measurements,
                        measure_states=measure_states)

  def update_fn(updates, state, params=None, **extra_args):
    measurements = {}
    measure_states = []
    for name, t, s in zip(names, transforms, state.measure_states):
      value, s = t.update(updates, s, params, **extra_args)
      measurements[name] = otu.tree_cast_like(value, state.measurements[name])
      measure_states.append(s)
    return updates, MonitorState(measurements=measurements,
                                 measure_states=tuple(measure_states))

  return base.GradientTransformationExtraArgs(init_fn, update_fn)
