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
"""Differentially private gradient aggregation (DP-SGD).

The random key of the noise is made in ``init`` from the seed (or the key)
given when the transformation is built, and carried in the state: building
the transformation creates no array, so it may be built inside a ``jax.jit``
trace and used outside it.
"""

from typing import Any, NamedTuple, Optional, Union
import warnings

import jax
import jax.numpy as jnp
import numpy as np

from optax._src import arguments
from optax._src import base
from optax._src import hyperparameters
from optax._src import prepared_inputs
from optax._src import transform
from optax.transforms import _accumulation
from optax.transforms import _clipping


class DifferentiallyPrivateAggregateState(NamedTuple):
  """State of :func:`differentially_private_aggregate`.

  Attributes:
    rng_key: the typed PRNG key (shape ``()``) of the next noise draw.
  """

  rng_key: jax.Array


# Upstream's warnings, word for word (code may match on their text): main's
# dpsgd words its seed warning otherwise than the aggregate (0.2.8's text).
_SEED_DEPRECATED = (
    '"seed" is deprecated and will be removed in optax 0.2.7, use "key".')
_DPSGD_SEED_DEPRECATED = (
    '"seed" is deprecated and will be removed in a future version. Use "key"'
    ' instead.')
_KEY_REQUIRED = 'Specifying a key will be required in optax 0.2.7.'


def _key_maker(fn: str, key: Any, seed: Any):
  """Returns a function making the typed key, checking the arguments.

  Builds no array: the key is made when the returned function is called
  (in ``init``).

  Args:
    fn: the public function's name, for the messages.
    key: an int seed, a typed key, a raw ``uint32`` key or None.
    seed: the deprecated int seed, or None.

  Returns:
    A function of no argument returning the typed key.
  """
  if seed is not None:
    warnings.warn(
        _DPSGD_SEED_DEPRECATED if fn == 'dpsgd' else _SEED_DEPRECATED,
        DeprecationWarning, stacklevel=4)  # The declaration's caller.
    if key is not None:
      raise ValueError(
          f'{fn}: got key={key!r} and seed={seed!r}. Only one of seed or key'
          ' can be specified (seed is deprecated: pass key= alone).')
  if key is None and seed is None:
    warnings.warn(
        f'{_KEY_REQUIRED} {fn}: no key was given, key 0 is used. Pass key='
        ' (an int or a jax.random.key) to choose the noise.',
        stacklevel=4)  # The caller of the declaration's wrapper.
    seed = 0
  source = seed if key is None else key
  if hyperparameters.is_number(source, integral=True):
    seed_value = int(source)
    return lambda: jax.random.key(seed_value)
  if isinstance(source, (jax.Array, np.ndarray)):
    if jnp.issubdtype(source.dtype, jax.dtypes.prng_key):
      if source.shape:
        raise ValueError(
            f'{fn}: key must be a single key (shape ()), got shape'
            f' {source.shape}.')
      return lambda: source
    if source.shape == (2,) and source.dtype == np.uint32:
      # A raw key of jax.random.PRNGKey: wrapped in init.
      return lambda: jax.random.wrap_key_data(source)
    if source.shape == () and jnp.issubdtype(source.dtype, jnp.integer):
      # An integer seed held in an array (a traced one included).
      return lambda: jax.random.key(source)
  raise ValueError(
      f'{fn}: key must be an int seed or a jax.random.key, got'
      f' {source!r}.')


def _aggregate(l2_norm_clip, noise_multiplier, make_key):
  """The aggregation, its key made by ``make_key`` (inputs as prepared)."""

  def init_fn(params):
    del params
    return DifferentiallyPrivateAggregateState(rng_key=make_key())

  def update_fn(updates, state, params=None):
    del params
    leaves, treedef = jax.tree.flatten(updates)
    summed, _ = _clipping.per_example_global_norm_clip(leaves, l2_norm_clip)
    batch_size = leaves[0].shape[0]
    new_key, *leaf_keys = jax.random.split(state.rng_key, len(leaves) + 1)
    std = (hyperparameters.as_hyperparameter(l2_norm_clip)
           * hyperparameters.as_hyperparameter(noise_multiplier))

    def noisy_mean(g, k):
      dtype = jnp.promote_types(g.dtype, std.dtype)
      noise = jax.random.normal(k, g.shape, dtype)
      return ((g.astype(dtype) + std.astype(dtype) * noise)
              / batch_size).astype(g.dtype)

    new_leaves = [noisy_mean(g, k) for g, k in zip(summed, leaf_keys)]
    return (jax.tree.unflatten(treedef, new_leaves),
            DifferentiallyPrivateAggregateState(rng_key=new_key))

  return base.GradientTransformation(init_fn, update_fn)


# The rules of the aggregation's arguments, which both factories declare.
_CLIP_AND_NOISE = dict(l2_norm_clip=arguments.non_negative_scalar,
                       noise_multiplier=arguments.non_negative_scalar)


@arguments.declare(**_CLIP_AND_NOISE)
def differentially_private_aggregate(
    l2_norm_clip: float,
    noise_multiplier: float,
    key: Optional[Union[jax.Array, int]] = None,
    *,
    seed: Optional[int] = None,
) -> base.GradientTransformation:
  r"""Clips per-example gradients, sums them, adds noise and averages.

  The updates are per-example gradients (each leaf has the batch on axis
  0). With :math:`g^{(i)}` the gradient of example :math:`i` (all leaves
  together), :math:`B` the batch size, :math:`C` = ``l2_norm_clip`` and
  :math:`\sigma` = ``noise_multiplier``,

  .. math::

    u = \frac{1}{B}\left(\sum_{i=1}^{B} g^{(i)} \min\left(1,
      \frac{C}{\|g^{(i)}\|_2}\right) + \mathcal{N}(0, \sigma^2 C^2 I)\right).

  The key is split into a new key and one key per leaf (in the order of
  ``jax.tree.leaves``) at each step.

  Args:
    l2_norm_clip: :math:`C`, the largest norm of an example's gradient.
    noise_multiplier: :math:`\sigma`, the ratio of the noise's standard
      deviation to :math:`C`.
    key: an int seed or a ``jax.random.key`` (a raw ``PRNGKey`` is accepted
      too) for the noise.
    seed: deprecated, use ``key``: an int seed.

  Returns:
    A ``GradientTransformation`` whose state is a
    :class:`DifferentiallyPrivateAggregateState`.

  Raises:
    TypeError: for a hyperparameter that is not a scalar (a vector, a
      string).
    ValueError: if both ``key`` and ``seed`` are given, if the key is
      neither an int nor a key, or if a Python-number ``l2_norm_clip`` or
      ``noise_multiplier`` is negative.

  Warns:
    DeprecationWarning: if ``seed`` is given (as upstream 0.2.8 does).
    UserWarning: if neither ``key`` nor ``seed`` is given (key 0 is used).

  Examples:
    >>> import jax.numpy as jnp
    >>> import optax
    >>> tx = optax.contrib.differentially_private_aggregate(
    ...     l2_norm_clip=1.0, noise_multiplier=0.0, key=0)
    >>> per_example_grads = jnp.array([[3.0, 4.0], [0.3, 0.4]])
    >>> updates, _ = tx.update(per_example_grads, tx.init(jnp.zeros(2)))
    >>> [round(float(u), 4) for u in updates]  # ([.6, .8] + [.3, .4]) / 2
    [0.45, 0.6]

  References:
    Abadi et al., `Deep Learning with Differential Privacy
    <https://arxiv.org/abs/1607.00133>`_, 2016.
  """
  fn = 'differentially_private_aggregate'
  return prepared_inputs.with_prepared_inputs(
      fn, _aggregate(
          l2_norm_clip, noise_multiplier, _key_maker(fn, key, seed)),
      per_example=True)


@arguments.declare(learning_rate=arguments.learning_rate, **_CLIP_AND_NOISE)
def dpsgd(
    learning_rate: base.ScalarOrSchedule,
    l2_norm_clip: float,
    noise_multiplier: float,
    key: Optional[Union[jax.Array, int]] = None,
    momentum: Optional[float] = None,
    nesterov: bool = False,
    *,
    seed: Optional[int] = None,
) -> base.GradientTransformation:
  r"""DP-SGD: SGD on differentially private aggregated gradients.

  :func:`differentially_private_aggregate` followed by SGD (with optional
  momentum): :math:`m_t = \mu m_{t-1} + \bar g_t`, :math:`u_t = -\eta_t m_t`.
  The updates given to ``update`` are per-example gradients.

  Args:
    learning_rate: the learning rate :math:`\eta`, a number or a schedule.
    l2_norm_clip: the largest norm of an example's gradient.
    noise_multiplier: the ratio of the noise's standard deviation to
      ``l2_norm_clip``.
    key: the key of the noise: an int seed, a ``jax.random.key`` or a raw
      ``jax.random.PRNGKey`` (the typed key is made in ``init``). Fourth
      positional argument, where upstream 0.2.8 had ``seed``, so
      ``dpsgd(lr, clip, noise, 0)`` still uses seed 0.
    momentum: the momentum decay :math:`\mu`, or ``None`` for none.
    nesterov: whether to use Nesterov momentum.
    seed: deprecated, use ``key``: an int seed (keyword only).

  Returns:
    A ``GradientTransformation`` whose state is the tuple of the states of
    the aggregation, the momentum and the learning-rate scaling.

  Raises:
    TypeError: for a hyperparameter that is not a scalar (a vector, a
      string).
    ValueError: if both ``key`` and ``seed`` are given, or if the key is
      neither an int nor a key.

  Warns:
    DeprecationWarning: if ``seed`` is given.
    UserWarning: if neither ``key`` nor ``seed`` is given (key 0 is used).

  Examples:
    >>> import jax.numpy as jnp
    >>> import optax
    >>> tx = optax.contrib.dpsgd(learning_rate=0.1, l2_norm_clip=1.0,
    ...                          noise_multiplier=0.0, key=0)
    >>> per_example_grads = jnp.array([[3.0, 4.0], [0.3, 0.4]])
    >>> updates, _ = tx.update(per_example_grads, tx.init(jnp.zeros(2)))
    >>> [round(float(u), 4) for u in updates]
    [-0.045, -0.06]

  References:
    Abadi et al., `Deep Learning with Differential Privacy
    <https://arxiv.org/abs/1607.00133>`_, 2016.
  """
  make_key = _key_maker('dpsgd', key, seed)
  if momentum is None:
    momentum_tx = base.identity()
  else:
    momentum_tx = _accumulation.trace(decay=momentum, nesterov=nesterov)
  aggregate = _aggregate(l2_norm_clip, noise_multiplier, make_key)
  rest = (momentum_tx, transform.scale_by_learning_rate(learning_rate))

  # The composition and state of chain(aggregate, *rest), written out:
  # optax.chain prepares gradients shaped as the params, and per-example
  # gradients carry a batch axis. The whole is prepared per example, so
  # that a float0 gradient's zero update is the last word on its leaf.
  def init_fn(params):
    return (aggregate.init(params),) + tuple(t.init(params) for t in rest)

  def update_fn(updates, state, params=None, **extra_args):
    del extra_args  # None of the members takes any.
    if len(state) != 1 + len(rest):
      raise ValueError(
          f'dpsgd: the state has {len(state)} members, expected'
          f' {1 + len(rest)}. Remedy: pass the state made by the init of'
          ' this same dpsgd.')
    updates, new_state = aggregate.update(updates, state[0], params)
    new_state = [new_state]
    for member, member_state in zip(rest, state[1:]):
      updates, member_state = member.update(updates, member_state, params)
      new_state.append(member_state)
    return updates, tuple(new_state)

  return prepared_inputs.with_prepared_inputs(
      'dpsgd', base.GradientTransformationExtraArgs(init_fn, update_fn),
      per_example=True)
