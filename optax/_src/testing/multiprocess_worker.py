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
"""One process of the multi-process lane (``multiprocess_test.py``).

Run as ``python -m optax._src.testing.multiprocess_worker OUT PROCESS_ID
NUM_PROCESSES PORT``. With ``NUM_PROCESSES`` 2, it joins JAX's
multi-controller runtime (``jax.distributed``, a coordinator on
``localhost:PORT``, gloo collectives, two CPU devices per process); with 1 it
runs alone on four CPU devices, the reference. Either way the four devices
form one global mesh with an explicit ``data`` axis, params and the batch are
sharded over it (built with ``jax.make_array_from_callback``, each process
filling only its own shards), and every case of :data:`CASES` trains for a
few jitted steps.

The process writes ``OUT`` (JSON): for each case the losses and the squared
norms of the params after each step (replicated scalars, the only values it
reads), and the defects found (a per-parameter state leaf sharded unlike its
parameter, a scalar not replicated, shardings that change between steps,
eager ``init`` sharding otherwise than jitted ``init``), or the error the case
raised.
"""

import json
import os
import sys
import traceback

GLOBAL_DEVICES = 4
NUM_STEPS = 3

# Each optimizer alone, chosen for what could break across processes: plain
# moments, factored statistics (adafactor), a line search in a while loop
# (lbfgs), Newton-Schulz on matrices (muon), global scalar statistics
# (prodigy, dadapt), a schedule-free average, a loss-driven plateau rule,
# and sam's inner loop. Then adam inside every wrapper of the composition
# suite but ``alone``.
OPTIMIZERS = (
    'sgd', 'adam', 'adafactor', 'lbfgs', 'contrib.muon', 'contrib.prodigy',
    'contrib.dadapt_adamw', 'contrib.schedule_free_adamw',
    'contrib.reduce_on_plateau',
)
WRAPPED = 'adam'


def case_names(wrappers) -> list[str]:
  """The names of the cases: ``entry`` alone, or ``entry in wrapper``.

  Args:
    wrappers: the wrapper names of the composition suite.

  Returns:
    The case names, in the order the worker runs them.
  """
  return list(OPTIMIZERS) + [
      f'{WRAPPED} in {w}' for w in wrappers if w != 'alone']


def _main(out_path: str, process_id: int, num_processes: int,
          port: int) -> None:
  """Trains every case and writes the results to ``out_path``."""
  # The device count must be set before jax starts its backend (importing
  # optax imports jax but starts no backend; the test sets it too).
  os.environ['XLA_FLAGS'] = (
      '--xla_force_host_platform_device_count='
      f'{GLOBAL_DEVICES // num_processes}')
  os.environ['JAX_PLATFORMS'] = 'cpu'
  import jax  # pylint: disable=import-outside-toplevel
  if num_processes > 1:
    jax.config.update('jax_cpu_collectives_implementation', 'gloo')
    jax.distributed.initialize(
        coordinator_address=f'localhost:{port}',
        num_processes=num_processes, process_id=process_id)
  import jax.numpy as jnp
  import numpy as np
  from jax.sharding import NamedSharding
  from jax.sharding import PartitionSpec as P
  from optax._src import lookahead as lookahead_lib
  from optax._src.testing import composition
  from optax._src.testing import registry

  mesh = jax.make_mesh((GLOBAL_DEVICES,), ('data',))
  specs = {'w': P('data', None), 'b': P('data')}
  values = {
      'w': np.linspace(-1.0, 1.0, 32, dtype=np.float32).reshape(8, 4),
      'b': np.linspace(0.5, -0.5, 4, dtype=np.float32),
  }
  batch_values = np.arange(8, dtype=np.float32)

  def global_array(value, spec):
    return jax.make_array_from_callback(
        value.shape, NamedSharding(mesh, spec), lambda index: value[index])

  def loss(params, batch):
    target = jnp.mean(batch)
    return sum(0.5 * jnp.sum(jnp.square(p - target))
               for p in jax.tree.leaves(params))

  def spec_of(x):
    spec = tuple(x.sharding.spec)
    return spec + (None,) * (x.ndim - len(spec))

  def check_state(state, params, where, defects):
    by_shape = {p.shape: spec_of(p) for p in params.values()}
    for path, leaf in jax.tree.leaves_with_path(state):
      if not isinstance(leaf, jax.Array) or jnp.issubdtype(
          leaf.dtype, jax.dtypes.prng_key):
        continue
      name = f'{where} {jax.tree_util.keystr(path)}'
      if leaf.ndim == 0 and not leaf.sharding.is_fully_replicated:
        defects.append(f'{name}: scalar not replicated')
      elif leaf.shape in by_shape and spec_of(leaf) != by_shape[leaf.shape]:
        defects.append(f'{name}: sharded {spec_of(leaf)}, its parameter '
                       f'{by_shape[leaf.shape]}')

  def state_specs(state):
    return [spec_of(x) for x in jax.tree.leaves(state)
            if isinstance(x, jax.Array)]

  def run_case(name):
    entry_name, _, wrapper_name = name.partition(' in ')
    entry = registry.BY_NAME[entry_name]
    wrapper = composition.WRAPPERS[wrapper_name or 'alone']
    defects = []
    with jax.set_mesh(mesh):
      params = {k: global_array(v, specs[k]) for k, v in values.items()}
      batch = global_array(batch_values, P('data'))
      tx = wrapper.build(entry)
      opt_params = params
      if wrapper.lookahead_params:
        opt_params = lookahead_lib.LookaheadParams.init_synced(params)
      state = jax.jit(tx.init)(opt_params)
      check_state(state, params, 'init', defects)
      init_specs = state_specs(state)
      if state_specs(tx.init(opt_params)) != init_specs:
        defects.append('eager init shards its state unlike jitted init')

      @jax.jit
      def step(opt_params, state, batch, inject_nan):
        fast = opt_params.fast if wrapper.lookahead_params else opt_params
        value_fn = lambda p: loss(p, batch)  # pylint: disable=cell-var-from-loop
        value, grads = jax.value_and_grad(value_fn)(fast)
        if wrapper.inject_nan:
          grads = jax.tree.map(
              lambda g: jnp.where(inject_nan, jnp.full_like(g, jnp.nan), g),
              grads)
        extra = composition.extra_args_for(entry, value, grads, value_fn)
        updates, state = tx.update(grads, state, opt_params, **extra)
        opt_params = jax.tree.map(jnp.add, opt_params, updates)
        fast = opt_params.fast if wrapper.lookahead_params else opt_params
        norms = [jnp.sum(jnp.square(p)) for p in jax.tree.leaves(fast)]
        return opt_params, state, value, norms

      losses, norms = [], []
      for i in range(NUM_STEPS):
        opt_params, state, value, step_norms = step(
            opt_params, state, batch,
            jnp.asarray(i == composition.NAN_STEP))
        check_state(state, params, f'step {i}', defects)
        if state_specs(state) != init_specs:
          defects.append(f'step {i}: state shardings changed')
        # Replicated scalars: each process reads its own copy.
        losses.append(float(value))
        norms.append([float(n) for n in step_norms])
    return {'losses': losses, 'norms': norms, 'defects': defects}

  results = {}
  for name in case_names(composition.WRAPPERS):
    try:
      results[name] = run_case(name)
    except Exception as e:  # pylint: disable=broad-exception-caught
      results[name] = {
          'error': f'{type(e).__name__}: {e}'[:2000],
          'traceback': traceback.format_exc()[-4000:],
      }
  with open(out_path, 'w', encoding='utf-8') as f:
    json.dump({'process_index': jax.process_index(),
               'process_count': jax.process_count(),
               'device_count': jax.device_count(),
               'local_device_count': jax.local_device_count(),
               'results': results}, f)
  if num_processes > 1:
    jax.distributed.shutdown()


if __name__ == '__main__':
  _main(sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4]))
