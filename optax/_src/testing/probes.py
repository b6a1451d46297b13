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
"""Probes of what a step keeps alive, plans in memory and traces.

For the tests only (see ``optax._src.testing``): the arrays a build leaves
alive, XLA's memory analysis of a donated training step, and the
optimization barriers inside the conditionals of a jaxpr.
"""

from collections.abc import Callable
import gc
from typing import Any, Optional

import jax
import jax.extend

from optax._src import base


def arrays_created_by(fn: Callable[[], Any]) -> tuple[Any, list[Any]]:
  """Calls ``fn`` and lists the JAX arrays it leaves alive.

  An array counts when it is alive after the call, was not alive before it,
  and survives a garbage collection (arrays that only reference cycles hold
  are not kept by ``fn``'s result). The collection runs only when the first
  count is not empty, so checking many builds stays cheap. Keep the result
  alive while the arrays are counted: it is returned for that reason.

  Examples:
    >>> import jax.numpy as jnp
    >>> from optax._src.testing import probes
    >>> _, new = probes.arrays_created_by(lambda: 1.0)
    >>> new
    []
    >>> x, new = probes.arrays_created_by(lambda: jnp.zeros(2))
    >>> new
    [((2,), dtype('float32'))]

  Args:
    fn: a function of no arguments (e.g. an optimizer factory with its
      hyperparameters bound).

  Returns:
    ``fn()``'s result and the ``(shape, dtype)`` of each array it created
    and left alive.
  """
  before = jax.live_arrays()
  known = {id(a) for a in before}
  result = fn()
  if any(id(a) not in known for a in jax.live_arrays()):
    gc.collect()
  new = [(a.shape, a.dtype) for a in jax.live_arrays() if id(a) not in known]
  del before
  return result, new


def donated_step_memory(
    tx: base.GradientTransformation,
    params: Any,
    compiler_options: Optional[dict[str, str]] = None,
) -> Any:
  """XLA's memory analysis of a jitted training step of ``tx``.

  The step is ``tx.update`` then ``params + updates``, with the params and
  the state donated, as in a training loop.

  Args:
    tx: the transformation.
    params: the params (arrays or ``jax.ShapeDtypeStruct``); the gradients
      are shaped like them.
    compiler_options: XLA options for this compilation only (for instance
      ``MEMORY_OPTIMIZED_CPU_SCHEDULER``).

  Returns:
    The compiled step's ``memory_analysis()``: None on a backend without
    one.
  """
  def step(params, state, grads):
    updates, state = tx.update(grads, state, params)
    return jax.tree.map(lambda p, u: p + u, params, updates), state

  state = jax.eval_shape(tx.init, params)
  lowered = jax.jit(step, donate_argnums=(0, 1)).lower(params, state, params)
  return lowered.compile(compiler_options).memory_analysis()


# XLA:CPU's default scheduler orders independent loops for concurrency,
# which can keep many temporaries alive at once; this one minimizes the
# memory in use, so a test can check what a program needs at the least.
MEMORY_OPTIMIZED_CPU_SCHEDULER = {
    'xla_cpu_scheduler_type': 'CPU_SCHEDULER_TYPE_MEMORY_OPTIMIZED'}


def barriers_in_conditionals(jaxpr: Any) -> list[int]:
  """Counts the optimization barriers inside each conditional of ``jaxpr``.

  XLA:GPU turns a conditional whose branches are elementwise into a select
  fused with its consumers, but not one whose branch holds an optimization
  barrier.

  Args:
    jaxpr: a ``jax.extend.core.Jaxpr`` (``jax.make_jaxpr(f)(...).jaxpr``).

  Returns:
    One count per ``cond`` equation, nested ones included, in the order
    found (outer before inner).
  """
  def barriers(inner):
    found = 0
    for eqn in inner.eqns:
      found += eqn.primitive.name == 'optimization_barrier'
      for sub in jax.extend.core.jaxprs_in_params(eqn.params):
        found += barriers(sub)
    return found

  counts = []

  def visit(inner):
    for eqn in inner.eqns:
      if eqn.primitive.name == 'cond':
        counts.append(sum(barriers(b.jaxpr) for b in eqn.params['branches']))
      for sub in jax.extend.core.jaxprs_in_params(eqn.params):
        visit(sub)

  visit(jaxpr)
  return counts
