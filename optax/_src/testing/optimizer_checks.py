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
"""Steps of an optimizer that the fork's tests run, and checks made on them.

* :func:`minimize` and :func:`run_float32_steps`: jitted steps on a loss,
  and float32 steps for a comparison with a NumPy reference;
* :func:`assert_dtypes_stable_over_steps`,
  :func:`assert_wide_scalar_statistics`, :func:`assert_state_donatable`
  and :func:`assert_decoupled_weight_decay`: the dtypes of the state and
  the params over steps, float32 scalar statistics, donation of the state,
  and AdamW's decoupled weight decay.

Each check raises ``AssertionError`` naming the key path of the first
offending leaf (the assertions on trees are ``optax._src.test_utils``').
"""

from collections.abc import Callable, Sequence
from typing import Any, Optional, Union

import jax
import jax.numpy as jnp
import numpy as np

from optax._src import base
from optax._src import test_utils
from optax._src import utils


def _dtype(x: Any) -> Any:
  dtype = getattr(x, 'dtype', None)
  return jnp.result_type(x) if dtype is None else dtype


def _at(what: str, path: Any, detail: str, err_msg: Optional[str]) -> str:
  """The message of a failed check at the leaf ``path``."""
  text = f'{what}: at {jax.tree_util.keystr(path) or "<root>"}: {detail}'
  return f'{text}\n{err_msg}' if err_msg else text


def assert_dtypes_stable_over_steps(
    tx: base.GradientTransformation,
    params: Any,
    num_steps: int = 3,
    grad_fn: Optional[Callable[[Any], Any]] = None,
    extra_args: Optional[dict[str, Any]] = None,
) -> tuple[Any, Any]:
  """Asserts a few jitted steps keep the state's dtypes and the params'.

  Runs ``num_steps`` steps of one jitted function that computes the
  gradients with ``grad_fn``, calls ``tx.update(grads, state, params,
  **extra_args)`` and adds the updates to the params (cast back to each
  param's dtype). After each step the state has the structure and the leaf
  dtypes of ``tx.init(params)`` and the updates have the params' dtypes
  (checked on the updates themselves, before any cast), and the step is
  traced only once (the state is type-stable).

  Examples:
    >>> import jax.numpy as jnp
    >>> import optax
    >>> from optax._src.testing import optimizer_checks
    >>> params = {'w': jnp.ones(2, jnp.bfloat16), 'b': jnp.ones(2)}
    >>> params, state = optimizer_checks.assert_dtypes_stable_over_steps(
    ...     optax.adam(0.1), params)
    >>> params['w'].dtype, params['b'].dtype
    (dtype(bfloat16), dtype('float32'))

  Args:
    tx: the transformation.
    params: the initial params (e.g. a tree mixing bfloat16 and float32).
    num_steps: the number of steps.
    grad_fn: the gradients as a function of the params; ``0.3 * params`` if
      ``None``.
    extra_args: keyword arguments passed to every ``tx.update`` (closed over
      by the jitted step, so a function such as an objective is allowed).

  Returns:
    The params and the state after the last step.

  Raises:
    AssertionError: naming the step and the key path of the first leaf
      whose dtype changed, or if the step was traced more than once.
  """
  if grad_fn is None:
    grad_fn = lambda p: jax.tree.map(lambda x: 0.3 * x, p)
  extra_args = {} if extra_args is None else extra_args
  traces = []

  @jax.jit
  def step(params, state):
    traces.append(None)
    updates, state = tx.update(grad_fn(params), state, params, **extra_args)
    new_params = jax.tree.map(
        lambda p, u: (p + u).astype(_dtype(p)), params, updates)
    return updates, new_params, state

  initial_state = state = tx.init(params)
  for i in range(num_steps):
    previous_params = params
    updates, params, state = step(params, state)
    test_utils.assert_trees_all_equal_dtypes(
        state, initial_state, f'the state after step {i}')
    test_utils.assert_trees_all_equal_dtypes(
        updates, previous_params, f'the updates of step {i}')
  if len(traces) != 1:
    raise AssertionError(
        f'assert_dtypes_stable_over_steps: the step was traced {len(traces)}'
        ' times, expected once (the state changes type between steps)')
  return params, state


def assert_wide_scalar_statistics(
    make_tx: Callable[[], base.GradientTransformation],
    fields: Sequence[str],
    params: Any,
) -> Any:
  """Asserts scalar statistics are float32, or float64 under x64, on params.

  Builds ``make_tx()`` twice, without and then with x64, and checks that
  each named field of ``init``'s state has that dtype whatever the params'
  dtype (bfloat16 params must not narrow them), then runs
  :func:`assert_dtypes_stable_over_steps`, so the fields keep the dtype over
  jitted steps and the updates keep the params' dtypes.

  Examples:
    >>> import jax.numpy as jnp
    >>> from optax import contrib
    >>> from optax._src.testing import optimizer_checks
    >>> state = optimizer_checks.assert_wide_scalar_statistics(
    ...     contrib.prodigy, ['estim_lr'], {'w': jnp.ones(2, jnp.bfloat16)})
    >>> state.estim_lr.dtype
    dtype('float32')

  Args:
    make_tx: builds the transformation (called once per precision).
    fields: names of the state's fields holding the statistics.
    params: the params (e.g. all bfloat16).

  Returns:
    The state ``init`` gives without x64.

  Raises:
    AssertionError: naming the field, its dtype and the expected one.
  """
  states = []
  for x64, want in ((False, jnp.float32), (True, jnp.float64)):
    with utils.x64_precision(x64):
      tx = make_tx()
      state = tx.init(params)
      for field in fields:
        got = jnp.result_type(getattr(state, field))
        if got != want:
          raise AssertionError(
              f'assert_wide_scalar_statistics: {field} is {got}, expected '
              f'{jnp.dtype(want)} (x64 {"on" if x64 else "off"})')
      assert_dtypes_stable_over_steps(tx, params)
      states.append(state)
  return states[0]


def assert_state_donatable(
    tx: base.GradientTransformation, params: Any
) -> None:
  """Asserts a jitted step may donate the params and the state.

  The step is ``params + tx.update(params, state, params)`` (the params
  stand for the gradients). Two steps are run: the first donates only the
  state, and must leave the caller's params alive (the state must not hold
  the params' own buffers); the second donates both, which must not donate
  one buffer twice and must delete the params passed; the result must equal
  that of two steps without donation.

  Examples:
    >>> import jax.numpy as jnp
    >>> import optax
    >>> from optax._src.testing import optimizer_checks
    >>> optimizer_checks.assert_state_donatable(
    ...     optax.sgd(0.1, momentum=0.9), {'w': jnp.array([1.0, -2.0])})

  Args:
    tx: the transformation.
    params: the params, a tree of arrays.

  Raises:
    AssertionError: naming the key path of the first param that was wrongly
      deleted or kept, or of the first leaf that differs.
  """
  what = 'assert_state_donatable'

  def step(params, state):
    updates, state = tx.update(params, state, params)
    return jax.tree.map(jnp.add, params, updates), state

  expected = jax.jit(step)(*jax.jit(step)(params, tx.init(params)))
  state = tx.init(params)
  next_params, state = jax.jit(step, donate_argnums=1)(params, state)
  for path, leaf in jax.tree_util.tree_leaves_with_path(params):
    if leaf.is_deleted():
      raise AssertionError(_at(
          what, path, 'donating the state deleted the params', None))
  new = jax.jit(step, donate_argnums=(0, 1))(next_params, state)
  for path, leaf in jax.tree_util.tree_leaves_with_path(next_params):
    if not leaf.is_deleted():
      raise AssertionError(_at(
          what, path, 'the donated params were not deleted', None))
  test_utils.assert_trees_all_equal(new, expected, err_msg=what)


def minimize(
    tx: base.GradientTransformation,
    loss_fn: Callable[[Any], Any],
    params: Any,
    num_steps: int,
) -> tuple[Any, Any]:
  """Runs ``num_steps`` jitted steps of ``tx`` on the gradients of a loss.

  Examples:
    >>> import jax.numpy as jnp
    >>> import optax
    >>> from optax._src.testing import optimizer_checks
    >>> params, _ = optimizer_checks.minimize(
    ...     optax.sgd(0.25), lambda p: jnp.sum((p - 1.0) ** 2), jnp.zeros(2),
    ...     num_steps=3)
    >>> params
    Array([0.875, 0.875], dtype=float32)

  Args:
    tx: the transformation, whose updates are added to the params.
    loss_fn: a scalar function of the params.
    params: the initial params.
    num_steps: the number of steps.

  Returns:
    The params and the state after the last step.
  """

  @jax.jit
  def step(params, state):
    updates, state = tx.update(jax.grad(loss_fn)(params), state, params)
    return jax.tree.map(lambda p, u: p + u, params, updates), state

  state = tx.init(params)
  for _ in range(num_steps):
    params, state = step(params, state)
  return params, state


def run_float32_steps(
    tx: base.GradientTransformation,
    params: Any,
    grads: Union[Sequence[Any], Callable[[Any, int], Any]],
    *,
    num_steps: Optional[int] = None,
    use_jit: bool = False,
    extra_args: Optional[Callable[[int], dict[str, Any]]] = None,
) -> tuple[list[Any], Any]:
  """Runs float32 steps of a transformation, for a comparison with NumPy.

  The params and the gradients are cast to float32; each step calls
  ``tx.update(grads, state, params, **extra_args(step))`` and adds the
  updates to the params.

  Examples:
    >>> import numpy as np
    >>> import optax
    >>> from optax._src.testing import optimizer_checks
    >>> updates, _ = optimizer_checks.run_float32_steps(
    ...     optax.sgd(0.5, momentum=0.5), np.zeros(2), [np.ones(2)] * 2)
    >>> updates
    [array([-0.5, -0.5]), array([-0.75, -0.75])]

  Args:
    tx: the transformation.
    params: the initial params (leaves of any floating dtype).
    grads: the gradients of each step; or a function of the params (leaves
      cast to float64 NumPy arrays) and of the step index (from 0) returning
      them.
    num_steps: the number of steps; ``len(grads)`` if ``None``.
    use_jit: whether ``tx.update`` is jitted.
    extra_args: a function of the step index returning the keyword extra
      arguments of that step; none if ``None``.

  Returns:
    The updates of each step (leaves as float64 NumPy arrays) and the final
    state.
  """
  to_float32 = lambda tree: jax.tree.map(
      lambda x: jnp.asarray(x, jnp.float32), tree)
  to_float64 = lambda tree: jax.tree.map(
      lambda x: np.asarray(x, np.float64), tree)
  if num_steps is None:
    num_steps = len(grads)
  update = jax.jit(tx.update) if use_jit else tx.update
  params = to_float32(params)
  state = tx.init(params)
  history = []
  for step in range(num_steps):
    if callable(grads):
      step_grads = grads(to_float64(params), step)
    else:
      step_grads = grads[step]
    kwargs = {} if extra_args is None else extra_args(step)
    updates, state = update(to_float32(step_grads), state, params, **kwargs)
    history.append(to_float64(updates))
    params = jax.tree.map(lambda p, u: p + u, params, updates)
  return history, state


def assert_decoupled_weight_decay(
    tx: base.GradientTransformation,
    params: Any,
    grads: Sequence[Any],
    directions: Sequence[Any],
    learning_rate: float,
    weight_decay: float,
    rtol: float = 2e-6,
    atol: float = 1e-7,
) -> None:
  """Asserts an alias steps by ``-lr * (direction + weight_decay * params)``.

  Runs ``tx`` in float32 (see ``run_float32_steps``) and compares each
  update with ``-learning_rate * (direction + weight_decay * p)``, where the
  reference params ``p`` start at ``params`` and move by the expected
  updates (in float64).

  Examples:
    >>> import numpy as np
    >>> import optax
    >>> from optax._src.testing import optimizer_checks
    >>> tx = optax.chain(optax.add_decayed_weights(0.5), optax.sgd(0.1))
    >>> grads = [np.array([1.0, -2.0])] * 2
    >>> optimizer_checks.assert_decoupled_weight_decay(
    ...     tx, np.ones(2), grads, directions=grads, learning_rate=0.1,
    ...     weight_decay=0.5)

  Args:
    tx: the alias, built with ``learning_rate`` and ``weight_decay``.
    params: the initial params.
    grads: the gradients of each step.
    directions: the expected update directions of the transformation
      without learning rate and weight decay, one per step (e.g. from a
      NumPy reference).
    learning_rate: the learning rate of ``tx``.
    weight_decay: the weight decay of ``tx``.
    rtol: the relative tolerance.
    atol: the absolute tolerance.

  Raises:
    AssertionError: naming the first step whose update differs.
  """
  got, _ = run_float32_steps(tx, params, grads)
  reference = jax.tree.map(lambda x: np.asarray(x, np.float64), params)
  for step, (updates, direction) in enumerate(zip(got, directions)):
    expected = jax.tree.map(
        lambda d, p: -learning_rate * (d + weight_decay * p),
        direction, reference)
    test_utils.assert_trees_all_close(updates, expected, rtol=rtol, atol=atol,
                           err_msg=f'step {step}')
    reference = jax.tree.map(np.add, reference, expected)
