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
"""Time of a jitted optimizer step, alone and inside wrappers.

Speed is measured here, never asserted in tests. Run

  python benchmarks/step_time.py [--size 1024] [--leaves 8] [--repeats 50]

and compare the table between revisions (on the same machine). Each row is
the median wall time of a jitted ``update`` followed by ``apply_updates``,
with the state donated, after a warm-up call that compiles the step.
"""

import argparse
import statistics
import time
from typing import Callable

import jax
import jax.numpy as jnp
import optax

_OPTIMIZERS: dict[str, Callable[[], optax.GradientTransformation]] = {
    'sgd': lambda: optax.sgd(1e-2, momentum=0.9),
    'adam': lambda: optax.adam(1e-3),
    'adamw': lambda: optax.adamw(1e-3),
    'adafactor': lambda: optax.adafactor(1e-3),
    'lion': lambda: optax.lion(1e-4),
    'muon': lambda: optax.contrib.muon(1e-3),
}

_WRAPPERS: dict[str, Callable[[optax.GradientTransformation],
                              optax.GradientTransformation]] = {
    'alone': lambda tx: tx,
    'multisteps(4)': lambda tx: optax.MultiSteps(
        tx, 4).gradient_transformation(),
    'chain(clip)': lambda tx: optax.chain(optax.clip_by_global_norm(1.0), tx),
    'apply_if_finite': lambda tx: optax.apply_if_finite(tx, 3),
}


def _params(size: int, leaves: int) -> dict[str, jax.Array]:
  keys = jax.random.split(jax.random.key(0), leaves)
  return {f'w{i}': jax.random.normal(k, (size, size)) / size
          for i, k in enumerate(keys)}


def time_step(tx: optax.GradientTransformation, params, repeats: int) -> float:
  """Median seconds of one jitted step (update and apply_updates)."""

  def step(params, state, grads):
    updates, state = tx.update(grads, state, params)
    return optax.apply_updates(params, updates), state

  step = jax.jit(step, donate_argnums=(0, 1))
  grads = jax.tree.map(lambda p: 1e-3 * jnp.ones_like(p), params)
  params = jax.tree.map(jnp.copy, params)
  state = tx.init(params)
  params, state = jax.block_until_ready(step(params, state, grads))
  times = []
  for _ in range(repeats):
    start = time.perf_counter()
    params, state = jax.block_until_ready(step(params, state, grads))
    times.append(time.perf_counter() - start)
  return statistics.median(times)


def main() -> None:
  """Prints the step time of each optimizer in each wrapper."""
  parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
  parser.add_argument('--size', type=int, default=512,
                      help='each parameter is a size x size matrix')
  parser.add_argument('--leaves', type=int, default=8,
                      help='number of parameter matrices')
  parser.add_argument('--repeats', type=int, default=30)
  args = parser.parse_args()
  params = _params(args.size, args.leaves)
  print(f'jax {jax.__version__} on {jax.devices()[0].platform}; '
        f'{args.leaves} params of {args.size}x{args.size}')
  header = f'{"optimizer":<12}' + ''.join(f'{w:>18}' for w in _WRAPPERS)
  print(header)
  for name, make in _OPTIMIZERS.items():
    row = f'{name:<12}'
    for wrap in _WRAPPERS.values():
      seconds = time_step(wrap(make()), params, args.repeats)
      row += f'{seconds * 1e3:>16.3f}ms'
    print(row)


if __name__ == '__main__':
  main()
