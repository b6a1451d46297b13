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
"""Registry entries run step by step, and a float64 run with narrow storage.

For the dtype sweep (``dtype_sweep_test.py``). :func:`run_steps` runs an
entry of the registry for a few eager steps on given gradients.
:func:`emulated_storage_run` runs it in float64 but rounds its params once,
and its state after every step, to the dtypes a narrow run keeps them in:
everything is computed in float64, only what is stored is narrow. When that
run is not close to a plain float64 run either, the narrow state cannot
hold the statistic, whatever the arithmetic around it does.
"""

from typing import Any, Optional, Sequence

import jax
import jax.numpy as jnp
import numpy as np

from optax._src import utils
from optax._src.testing import registry


def _is_float(x: Any) -> bool:
  return hasattr(x, 'dtype') and jnp.issubdtype(x.dtype, jnp.floating)


def _round_like(tree: Any, dtypes: Any) -> Any:
  """Rounds the floating leaves of ``tree`` to ``dtypes``, keeping theirs."""

  def leaf(x, dtype):
    if not _is_float(x) or dtype is None:
      return x
    if not jnp.issubdtype(dtype, jnp.floating):
      return x
    return x.astype(dtype).astype(x.dtype)

  return jax.tree.map(leaf, tree, dtypes)


def dtypes_of(tree: Any) -> Any:
  """The dtype of each array leaf of ``tree`` (``None`` for other leaves)."""
  return jax.tree.map(lambda x: x.dtype if hasattr(x, 'dtype') else None,
                      tree)


def run_steps(entry: registry.Entry, grads: Sequence[Any], params: Any,
              dtype: str, store: Optional[Any] = None
              ) -> tuple[list[Any], Any]:
  """Eager steps of ``entry`` on params and gradients of ``dtype``.

  Args:
    entry: the registry entry.
    grads: one gradient tree per step (NumPy arrays).
    params: the params (NumPy arrays), held still across steps.
    dtype: the dtype the params and gradients are cast to.
    store: ``None``, or a tree of dtypes shaped like the state: after every
      step the state's floating leaves are rounded to them (and kept in
      their own dtype).

  Returns:
    The list of the steps' updates and the last state.
  """
  tx = entry.build()
  p = jax.tree.map(lambda x: jnp.asarray(x, dtype), params)
  state = tx.init(p)
  out = []
  for g in grads:
    g = jax.tree.map(lambda x: jnp.asarray(x, dtype), g)
    # The objective whose gradient at p is g: 0.5 ||x - (p - g)||^2.
    centre = jax.tree.map(jnp.subtract, p, g)

    def value_fn(x, centre=centre):
      return 0.5 * sum(jnp.sum(jnp.square(a - c)) for a, c in zip(
          jax.tree.leaves(x), jax.tree.leaves(centre)))

    extra = {}
    if registry.VALUE in entry.extra_args:
      extra['value'] = value_fn(p)
    if registry.GRAD in entry.extra_args:
      extra['grad'] = g
    if registry.VALUE_FN in entry.extra_args:
      extra['value_fn'] = value_fn
    if registry.OBJ_FN in entry.extra_args:
      extra['obj_fn'] = value_fn
    if entry.per_example_grads:
      g = jax.tree.map(lambda x: jnp.stack([x, 0.5 * x]), g)
    u, state = tx.update(g, state, p, **extra)
    if store is not None:
      state = _round_like(state, store)
    out.append(u)
  return out, state


def emulated_storage_run(entry: registry.Entry, grads: Sequence[Any],
                         params: Any, dtype: str, store: Any) -> list[Any]:
  """The float64 run whose stored values have a narrow run's dtypes.

  The params are rounded to ``dtype``; the state of every step is rounded
  to the dtypes the run in ``dtype`` keeps it in (float16 moments to
  float16, float32 scalar statistics to float32); everything else is
  float64 (x64 on, restored afterwards).

  Args:
    entry: the registry entry.
    grads: one gradient tree per step (NumPy arrays, exact in ``dtype``).
    params: the params (NumPy arrays).
    dtype: the narrow dtype.
    store: the dtypes of the narrow run's state (:func:`dtypes_of`).

  Returns:
    The steps' updates, as float64 NumPy trees.
  """
  rounded = jax.tree.map(
      lambda x: np.asarray(np.asarray(x, jnp.dtype(dtype)), np.float64),
      params)
  with utils.x64_precision(True):
    updates, _ = run_steps(entry, grads, rounded, 'float64', store=store)
    return [jax.tree.map(lambda x: np.asarray(x, np.float64), u)
            for u in updates]
