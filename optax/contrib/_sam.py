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
"""Sharpness-aware minimization (SAM).

SAM (Foret et al., 2021) takes the gradient at an adversarial point near the
params, :math:`w + \\rho\\, g / \\|g\\|`, and applies it at the params. Here
the ascent steps are made by an ``adv_optimizer`` (typically
``chain(normalize(), sgd(rho))``) and the outer step by an ``optimizer``.
"""

from typing import Any, Callable, NamedTuple, Optional

import jax
from jax import lax
import jax.numpy as jnp

from optax import tree_utils as otu
from optax._src import arguments
from optax._src import base
from optax._src import hyperparameters
from optax._src import prepared_inputs
from optax._src import validation


class SAMState(NamedTuple):
  """State of :func:`sam`.

  Attributes:
    steps_since_sync: int32 scalar, the position in the current cycle of
      ``sync_period`` steps (always 0 in opaque mode).
    opt_state: the state of the outer optimizer.
    adv_state: the state of the adversarial optimizer.
    cache: the params at the start of the cycle (shaped like the params), or
      None in opaque mode.
  """

  steps_since_sync: jax.Array
  opt_state: base.OptState
  adv_state: base.OptState
  cache: Optional[base.Params]


def _unit(wide: Any, norm: jax.Array) -> Any:
  """``u / ||u||``, zero where the norm is zero."""
  inverse = jnp.where(norm > 0, 1 / jnp.where(norm > 0, norm, 1), 0)
  return jax.tree.map(lambda g: g * inverse.astype(g.dtype), wide)


def _unit_after_scaling(wide: Any, norm: jax.Array) -> Any:
  """``(u / m) / ||u / m||`` with ``m`` the largest ``|u|``: the same unit.

  For a norm of 0 or inf: the squares under- or overflowed, unless every
  entry is 0 (then :func:`_unit`'s zeros) or one is inf or NaN.

  Args:
    wide: the updates, in at least float32.
    norm: their norm, 0 or inf.

  Returns:
    The unit vector of ``wide``, or :func:`_unit`'s result where ``m`` is 0
    or not finite.
  """
  largest = otu.tree_max(jax.tree.map(jnp.abs, wide))
  usable = (largest > 0) & jnp.isfinite(largest)
  scale = jnp.where(usable, largest, 1)
  scaled = jax.tree.map(lambda g: g / scale.astype(g.dtype), wide)
  # Kept apart from the division below: one factor 1 / (m ||u / m||) would
  # overflow (or flush to zero) for m near the dtype's largest value.
  scaled = lax.optimization_barrier(scaled)
  scaled_norm = otu.tree_norm(scaled)
  return jax.tree.map(
      lambda g, u: jnp.where(usable, g / scaled_norm.astype(g.dtype), u),
      scaled, _unit(wide, norm))


def normalize() -> base.GradientTransformation:
  r"""Divides the updates by their global norm.

  .. math::

    u \leftarrow u / \|u\|_2

  (the norm over all leaves, computed in at least float32). All-zero
  updates stay zero; where the squares of the entries under- or overflow
  (entries below about 1e-19 or above 1e19 in float32), the updates are
  first divided by their largest absolute entry, which leaves the unit
  vector unchanged.

  Returns:
    A stateless ``GradientTransformation``.

  Examples:
    >>> import jax.numpy as jnp
    >>> import optax
    >>> tx = optax.contrib.normalize()
    >>> updates, _ = tx.update({'a': jnp.array([3.0]), 'b': jnp.array([4.0])},
    ...                        tx.init(None))
    >>> print(updates['a'], updates['b'])
    [0.6] [0.8]
  """

  def update_fn(updates, state, params=None):
    del params
    if not jax.tree.leaves(updates):
      return updates, state
    dtype = hyperparameters.hyperparameter_dtype()
    wide = jax.tree.map(
        lambda g: g.astype(jnp.promote_types(g.dtype, dtype)), updates)
    norm = otu.tree_norm(wide)
    # A norm of 0 or inf where the squares of entries below about 1e-19 or
    # above 1e19 (float32) under- or overflow: the rare branch rescales.
    units = lax.cond((norm == 0) | jnp.isinf(norm), _unit_after_scaling,
                     _unit, wide, norm)
    updates = jax.tree.map(lambda u, g: u.astype(g.dtype), units, updates)
    return updates, state

  return prepared_inputs.with_prepared_inputs(
      'normalize',
      base.GradientTransformation(base.init_empty_state, update_fn))


@arguments.declare(sync_period=arguments.positive_int)
def sam(
    optimizer: base.GradientTransformation,
    adv_optimizer: base.GradientTransformation,
    sync_period: int = 2,
    reset_state: bool = True,
    opaque_mode: bool = False,
    batch_axis_name: Optional[str] = None,
) -> base.GradientTransformationExtraArgs:
  r"""Sharpness-aware minimization.

  A cycle has ``sync_period`` steps. With :math:`w` the params at its
  start, the first ``sync_period - 1`` steps are adversarial (ascent) steps
  made by ``adv_optimizer`` (its updates are negated), and the last step
  applies the ``optimizer`` update of the gradient at the adversarial point
  to :math:`w`:

  .. math::

    w_{adv} \leftarrow w_{adv} - \mathrm{adv}(g(w_{adv})), \qquad
    w \leftarrow w + \mathrm{opt}(g(w_{adv})).

  With ``adv_optimizer = chain(normalize(), sgd(rho))`` and
  ``sync_period=2`` this is SAM: :math:`w_{adv} = w + \rho\, g(w) /
  \|g(w)\|`.

  In the default (transparent) mode, each call of ``update`` is one step:
  the params move to the adversarial point and back, and the caller's loop
  computes every gradient. In opaque mode, one call makes the whole cycle:
  ``update`` needs a keyword argument ``grad_fn(params, i)`` returning the
  gradient at ``params`` (``i`` counts the adversarial steps from 0), and
  returns the outer update only.

  Args:
    optimizer: the outer optimizer (its ``params`` are those at the start of
      the cycle).
    adv_optimizer: the adversarial optimizer; its updates are negated.
    sync_period: the number of steps of a cycle (one outer step).
    reset_state: whether to reset the adversarial optimizer's state at the
      end of each cycle.
    opaque_mode: whether ``update`` makes a whole cycle with ``grad_fn``.
    batch_axis_name: in opaque mode, the name of a mapped axis over which
      the gradients returned by ``grad_fn`` are averaged (``lax.pmean``),
      for data-parallel training.

  Returns:
    A ``GradientTransformationExtraArgs`` whose state is a
    :class:`SAMState`; ``update`` requires ``params`` (and ``grad_fn`` in
    opaque mode), other extra arguments go to both optimizers.

  Raises:
    ValueError: if ``sync_period`` is not a positive integer; in ``update``,
      without params, or without ``grad_fn`` in opaque mode.

  Examples:
    >>> import jax
    >>> import jax.numpy as jnp
    >>> import optax
    >>> loss = lambda w: jnp.sum(jnp.array([1.0, 3.0]) * w ** 2)
    >>> tx = optax.contrib.sam(
    ...     optax.sgd(0.1),
    ...     optax.chain(optax.contrib.normalize(), optax.sgd(0.05)))
    >>> params = jnp.array([1.0, 1.0])
    >>> state = tx.init(params)
    >>> for _ in range(2):  # An ascent step, then the SAM step.
    ...   updates, state = tx.update(jax.grad(loss)(params), state, params)
    ...   params = params + updates
    >>> print(params)
    [0.7968377  0.37153947]

  References:
    Foret et al., `Sharpness-Aware Minimization for Efficiently Improving
    Generalization <https://arxiv.org/abs/2010.01412>`_, 2021.
  """
  fn = 'sam'
  optimizer = base.with_extra_args_support(optimizer)
  adv_optimizer = base.with_extra_args_support(adv_optimizer)

  def init_fn(params):
    cache = None if opaque_mode else jax.tree.map(
        lambda p: jnp.array(p, copy=True), params)
    return SAMState(
        steps_since_sync=jnp.zeros([], jnp.int32),
        opt_state=optimizer.init(params),
        adv_state=adv_optimizer.init(params),
        cache=cache,
    )

  def transparent_update(updates, state, params, extra_args):
    first = state.steps_since_sync == 0
    last = state.steps_since_sync == sync_period - 1
    cache = otu.tree_cast_like(
        otu.tree_where(first, params, state.cache), state.cache)

    def outer_step(_):
      opt_updates, opt_state = optimizer.update(
          updates, state.opt_state, cache, **extra_args)
      # Back to the start of the cycle, then the outer step.
      new_updates = jax.tree.map(
          lambda c, u, p, g: (c + u - p).astype(g.dtype), cache, opt_updates,
          params, updates)
      if reset_state:
        adv_state = adv_optimizer.init(params)
      else:
        adv_state = state.adv_state
      return (new_updates, otu.tree_cast_like(opt_state, state.opt_state),
              otu.tree_cast_like(adv_state, state.adv_state))

    def adversarial_step(_):
      adv_updates, adv_state = adv_optimizer.update(
          updates, state.adv_state, params, **extra_args)
      new_updates = jax.tree.map(lambda u, g: (-u).astype(g.dtype),
                                 adv_updates, updates)
      return (new_updates, state.opt_state,
              otu.tree_cast_like(adv_state, state.adv_state))

    new_updates, opt_state, adv_state = lax.cond(
        last, outer_step, adversarial_step, None)
    steps = jnp.where(last, jnp.zeros_like(state.steps_since_sync),
                      state.steps_since_sync + 1)
    return new_updates, SAMState(steps_since_sync=steps, opt_state=opt_state,
                                 adv_state=adv_state, cache=cache)

  def opaque_update(updates, state, params, grad_fn, extra_args):
    adv_params, adv_state, grads = params, state.adv_state, updates
    for i in range(sync_period - 1):
      adv_updates, adv_state = adv_optimizer.update(
          grads, adv_state, adv_params, **extra_args)
      adv_params = jax.tree.map(lambda p, u: (p - u).astype(p.dtype),
                                adv_params, adv_updates)
      grads = grad_fn(adv_params, i)
      if batch_axis_name is not None:
        grads = lax.pmean(grads, axis_name=batch_axis_name)
    if reset_state:
      adv_state = adv_optimizer.init(params)
    new_updates, opt_state = optimizer.update(
        grads, state.opt_state, params, **extra_args)
    return new_updates, SAMState(
        steps_since_sync=state.steps_since_sync, opt_state=opt_state,
        adv_state=otu.tree_cast_like(adv_state, state.adv_state), cache=None)

  def update_fn(updates, state, params=None, *,
                grad_fn: Optional[Callable[[Any, int], Any]] = None,
                **extra_args):
    validation.require_params(
        fn, params, call='tx.update(grads, state, params)')
    if opaque_mode:
      if grad_fn is None:
        raise ValueError(
            f'{fn}: with opaque_mode=True, update needs the keyword argument'
            ' grad_fn, a function (params, i) -> gradients at params.')
      return opaque_update(updates, state, params, grad_fn, extra_args)
    return transparent_update(updates, state, params, extra_args)

  return prepared_inputs.with_prepared_inputs(
      'sam', base.GradientTransformationExtraArgs(init_fn, update_fn))
