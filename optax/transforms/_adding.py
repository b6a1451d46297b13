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
"""Transformations that add a term to the updates: weight decay, noise."""

from typing import Any, NamedTuple, Optional, Union
import warnings

import jax
import jax.numpy as jnp
import numpy as np

from optax._src import arguments
from optax._src import base
from optax._src import dtypes
from optax._src import hyperparameters
from optax._src import numerics
from optax._src import prepared_inputs
from optax._src import validation
from optax.transforms import _masking


def _is_none(x: Any) -> bool:
  return x is None


class WeightDecaySchedule(NamedTuple):
  """State of :func:`add_decayed_weights` when the decay is a schedule.

  Attributes:
    count: number of updates done so far, shape ``()``, int32; the schedule
      is evaluated at it.
  """

  count: jax.Array


@arguments.declare(weight_decay=arguments.scalar_schedule_or_none)
def add_decayed_weights(
    weight_decay: Union[float, jax.Array, base.Schedule] = 0.0,
    mask: base.MaskOrFn = None,
) -> base.GradientTransformation:
  r"""Adds the parameters, scaled by ``weight_decay``, to the updates.

  .. math::

    u_t \leftarrow u_t + \lambda_t \, \theta_t

  Placed before the learning-rate scaling this is decoupled weight decay
  (as in AdamW). A Python-number zero (the default) returns the updates as
  given, without reading the params.

  Args:
    weight_decay: the coefficient :math:`\lambda`, a number or a schedule of
      the step count (then the state counts the steps).
    mask: a tree of booleans with the structure of the params (or a prefix
      of it), or a function of the params returning one, selecting the
      leaves to decay; ``None`` decays every leaf.

  Returns:
    A GradientTransformation (a GradientTransformationExtraArgs whose state
    is a ``MaskedState`` when ``mask`` is given). Its ``update`` requires
    ``params``.

  Raises:
    ValueError: in ``update``, if ``params`` is None.

  Examples:
    >>> import jax.numpy as jnp
    >>> import optax
    >>> params = jnp.array([1.0, -2.0])
    >>> tx = optax.add_decayed_weights(0.1)
    >>> updates, _ = tx.update(jnp.zeros(2), tx.init(params), params)
    >>> updates
    Array([ 0.1, -0.2], dtype=float32)

  References:
    Loshchilov and Hutter, `Decoupled Weight Decay Regularization
    <https://arxiv.org/abs/1711.05101>`_, 2019.
  """
  is_schedule = callable(weight_decay)

  def add_leaf(g, p, decay, decays):
    if g is None:
      return None
    # Python-number leaves (a scalar kept with the weights) are arrays here.
    g, p = dtypes.as_array(g), dtypes.as_array(p)
    dtype = dtypes.promote_dtypes(g.dtype, p.dtype, decay.dtype)
    g_d, p_d = dtypes.cast(g, dtype), dtypes.cast(p, dtype)
    decay_d, = decays.get(dtype, p_d)
    if jnp.issubdtype(dtype, jnp.inexact):
      # What ``g + decay * p`` traces to, without the operators' checks.
      new_g = jax.lax.add(g_d, jax.lax.mul(decay_d, p_d))
    else:
      new_g = g_d + decay_d * p_d
    return dtypes.cast(new_g, g.dtype)

  def add(updates, params, decay):
    # A gradient shaped otherwise (a (1, n) row for an (m, n) param) would
    # broadcast against its param here, and every later transformation of a
    # chain would take the (m, n) result for a gradient.
    prepared_inputs.check_shapes_like_params('add_decayed_weights', updates,
                                             params)
    decays = dtypes.ScalarsByDtype(decay)
    return jax.tree.map(
        lambda g, p: add_leaf(g, p, decay, decays), updates, params,
        is_leaf=_is_none)

  if is_schedule:

    def init_fn(params):
      del params
      return WeightDecaySchedule(count=jnp.zeros([], jnp.int32))

    def update_fn(updates, state, params=None):
      validation.require_params(
          'add_decayed_weights', params,
          'this transformation needs the current parameters')
      decay = hyperparameters.as_hyperparameter(weight_decay(state.count))
      new_updates = add(updates, params, decay)
      return new_updates, WeightDecaySchedule(
          count=numerics.safe_increment(state.count)
      )

  else:
    init_fn = base.init_empty_state
    # A Python zero (int or float, as upstream tests it) adds nothing: the
    # updates are returned as given, without reading the params, so that an
    # inf param or a -0.0 update stays as it was (0 * inf would be nan).
    adds_nothing = (isinstance(weight_decay, (int, float))
                    and weight_decay == 0)

    def update_fn(updates, state, params=None):
      validation.require_params(
          'add_decayed_weights', params,
          'this transformation needs the current parameters')
      if adds_nothing:
        return updates, state
      decay = hyperparameters.as_hyperparameter(weight_decay)
      return add(updates, params, decay), state

  tx = base.GradientTransformation(init_fn, update_fn)
  if mask is not None:
    return _masking.masked(tx, mask)
  return tx


def _is_floating(x: Any) -> bool:
  """Whether a leaf (an array or a Python number) has a floating dtype."""
  dtype = x.dtype if hasattr(x, 'dtype') else jnp.result_type(x)
  return dtype != jax.dtypes.float0 and jnp.issubdtype(dtype, jnp.inexact)


def _raise_not_floating(fn: str, updates: base.Updates) -> None:
  """Raises a TypeError naming the first leaf that is not floating."""
  for path, g in jax.tree_util.tree_flatten_with_path(updates)[0]:
    if not _is_floating(g):
      dtype = g.dtype if hasattr(g, 'dtype') else jnp.result_type(g)
      raise TypeError(
          f'{fn}: noise is added to floating updates, but the update at'
          f' {jax.tree_util.keystr(path)} has dtype {dtype}. Remedy: pass'
          ' floating updates (an optimizer chain casts integer gradients'
          ' to the params\' floating dtype), or mask out that leaf.')


class AddNoiseState(NamedTuple):
  """State of :func:`add_noise`.

  Attributes:
    count: number of updates done so far, shape ``()``, int32.
    rng_key: the PRNG key the next noise is drawn from, as given by the user
      (a typed key, or a raw uint32 key), or ``jax.random.key(seed)`` for an
      integer seed.
  """

  count: jax.Array
  rng_key: base.PRNGKey


def _is_seed(key: Any) -> bool:
  """Whether ``key`` is an integer seed (a Python int or an integer scalar).

  Scalar integer arrays count as seeds so that a seed traced by
  ``inject_hyperparams`` still works; typed keys and raw ``uint32`` keys of
  shape ``(2,)`` are not seeds.
  """
  if hyperparameters.is_number(key, integral=True):
    return True
  dtype = getattr(key, 'dtype', None)
  return (dtype is not None and np.shape(key) == ()
          and jnp.issubdtype(dtype, jnp.integer))


@arguments.declare(
    eta=(arguments.scalar_schedule_or_none, arguments.non_negative),
    gamma=arguments.scalar_schedule_or_none)
def add_noise(
    eta: float,
    gamma: float,
    key: Optional[Union[base.PRNGKey, int]] = None,
    *,
    seed: Optional[int] = None,
) -> base.GradientTransformation:
  r"""Adds annealed Gaussian noise to the updates.

  At step :math:`t = 1, 2, \dots`,

  .. math::

    u_t \leftarrow u_t + \sigma_t \, \xi_t, \quad
    \sigma_t^2 = \frac{\eta}{t^{\gamma}}, \quad
    \xi_t \sim \mathcal{N}(0, I).

  At every step the key is split in two: the first half becomes the key of
  the next step, the second is split again into one key per leaf.

  Args:
    eta: the initial variance :math:`\eta` of the noise.
    gamma: the decay exponent :math:`\gamma` of the variance.
    key: a PRNG key (typed or raw) or an integer seed. It is stored as given
      and turned into a key in ``init`` only.
    seed: deprecated, use ``key``.

  Returns:
    A GradientTransformation whose state is an :class:`AddNoiseState`.

  Raises:
    ValueError: if both ``key`` and ``seed`` are given, or for a negative
      (or NaN) Python-number ``eta``.
    TypeError: for an ``eta`` or ``gamma`` that is neither a scalar nor a
      schedule (a string, a vector).

  Examples:
    >>> import jax
    >>> import jax.numpy as jnp
    >>> import optax
    >>> tx = optax.add_noise(eta=0.01, gamma=0.55, key=0)
    >>> updates, state = tx.update(jnp.zeros(3), tx.init(jnp.zeros(3)))
    >>> updates.shape, updates.dtype, state.count
    ((3,), dtype('float32'), Array(1, dtype=int32))

  References:
    Neelakantan et al., `Adding Gradient Noise Improves Learning for Very
    Deep Networks <https://arxiv.org/abs/1511.06807>`_, 2015.
  """
  # The warnings are upstream 0.2.8's, word for word (and the seed one comes
  # before the error, as there): code filters warnings by their message.
  if seed is not None:
    warnings.warn(
        '"seed" is deprecated and will be removed in optax 0.2.7, use "key".',
        DeprecationWarning,
        stacklevel=3,  # The caller of the declaration's wrapper.
    )
    if key is not None:
      raise ValueError(
          'add_noise: give only one of key and seed (seed is deprecated),'
          f' got key={key!r} and seed={seed!r}.'
      )
    key = seed
  if key is None:
    warnings.warn(
        'Specifying a key will be required in optax 0.2.7.',
        UserWarning,
        stacklevel=3,  # The caller of the declaration's wrapper.
    )
    key = 0

  def init_fn(params):
    del params
    rng_key = jax.random.key(key) if _is_seed(key) else key
    return AddNoiseState(count=jnp.zeros([], jnp.int32), rng_key=rng_key)

  def update_fn(updates, state, params=None):
    del params
    leaves, treedef = jax.tree.flatten(updates)
    if not all(_is_floating(g) for g in leaves):
      _raise_not_floating('add_noise', updates)
    next_key, sample_key = jax.random.split(state.rng_key)
    keys = jax.random.split(sample_key, len(leaves))
    count = numerics.safe_increment(state.count)
    t = count.astype(hyperparameters.hyperparameter_dtype())
    std = jnp.sqrt(
        hyperparameters.as_hyperparameter(eta)
        / t ** hyperparameters.as_hyperparameter(gamma)
    )
    new_leaves = []
    for g, k in zip(leaves, keys):
      dtype = dtypes.promote_dtypes(g.dtype, std.dtype)
      noise = jax.random.normal(k, g.shape, g.dtype)
      new_leaves.append(
          (g.astype(dtype) + std.astype(dtype) * noise.astype(dtype)).astype(
              g.dtype))
    return jax.tree.unflatten(treedef, new_leaves), AddNoiseState(
        count=count, rng_key=next_key
    )

  return base.GradientTransformation(init_fn, update_fn)
