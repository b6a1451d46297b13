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
"""Compiled memory of a jitted training step under ``optax.MultiSteps``.

Run

  python benchmarks/multisteps_memory.py [--size 512] [--leaves 2] [--k 4]

Each row compiles ``step(params, state, grads)`` (``MultiSteps.update``
followed by ``apply_updates``) for one inner optimizer, with the params and
the state donated and without donation, and reports the memory XLA plans for
it: temporaries + arguments + outputs - the outputs that alias a donated
argument, in units of the params' total size. Nothing is run, so the numbers
do not depend on the machine's speed. The script uses the public optax API
only: run it under another optax installation to compare the two.
"""

import argparse
from typing import Callable

import jax
import jax.numpy as jnp
import optax

_OPTIMIZERS: dict[str, Callable[[], optax.GradientTransformation]] = {
    'sgd': lambda: optax.sgd(1e-2),
    'sgd(momentum)': lambda: optax.sgd(1e-2, momentum=0.9),
    'adam': lambda: optax.adam(1e-3),
    'chain(clip_by_global_norm, adam)': lambda: optax.chain(
        optax.clip_by_global_norm(1.0), optax.adam(1e-3)),
    'adamw': lambda: optax.adamw(1e-3),
}


def _params(size: int, leaves: int) -> dict[str, jax.Array]:
  return {f'w{i}': jnp.full((size, size), 0.5, jnp.float32)
          for i in range(leaves)}


def step_memory(
    tx: optax.GradientTransformation, params, k: int, donate: bool
) -> int:
  """Bytes XLA plans for one jitted MultiSteps step (compiled, not run)."""
  ms = optax.MultiSteps(tx, every_k_schedule=k)

  def step(params, state, grads):
    updates, state = ms.update(grads, state, params)
    return optax.apply_updates(params, updates), state

  state = jax.eval_shape(ms.init, params)
  donate_argnums = (0, 1) if donate else ()
  compiled = jax.jit(step, donate_argnums=donate_argnums).lower(
      params, state, params).compile()
  stats = compiled.memory_analysis()
  return (stats.temp_size_in_bytes + stats.argument_size_in_bytes
          + stats.output_size_in_bytes - stats.alias_size_in_bytes)


def main() -> None:
  """Prints the table."""
  parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
  parser.add_argument('--size', type=int, default=512,
                      help='each param is a float32 (size, size) matrix')
  parser.add_argument('--leaves', type=int, default=2)
  parser.add_argument('--k', type=int, default=4,
                      help='mini-batches per update (every_k_schedule)')
  args = parser.parse_args()
  params = _params(args.size, args.leaves)
  params_bytes = sum(p.nbytes for p in jax.tree.leaves(params))
  print(f'optax {optax.__version__}, jax {jax.__version__},'
        f' {jax.devices()[0].platform}; {args.leaves} params of'
        f' {params_bytes / args.leaves / 2**20:g} MiB, k={args.k}')
  print('memory in units of the params\' size'
        ' (temp + argument + output - alias)')
  header = f'{"inner optimizer":<34} {"donated":>8} {"not donated":>12}'
  print(header)
  print('-' * len(header))
  for name, make in _OPTIMIZERS.items():
    donated = step_memory(make(), params, args.k, donate=True)
    kept = step_memory(make(), params, args.k, donate=False)
    print(f'{name:<34} {donated / params_bytes:>8.2f}'
          f' {kept / params_bytes:>12.2f}')


if __name__ == '__main__':
  main()
