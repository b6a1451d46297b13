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
"""Runtime scalars read by each fused kernel of a jitted optimizer step.

Run

  python -m benchmarks.kernel_scalars [--upstream-python PATH |
                                       --upstream-tree DIR]

from the repository's root: the script reads both sides' programs with the
checkout's parser (``optax._src.testing.hlo``).

A hyperparameter that XLA sees as a constant is folded into the fused
kernel of every leaf; one hidden behind an optimization barrier is computed
once and read by every kernel as a runtime scalar operand. XLA:CPU removes
the barriers before fusion and XLA:GPU after it, so on CPU the step is
compiled here with ``--xla_disable_hlo_passes=cse_barrier_expander``, which
keeps the barriers through fusion as the GPU pipeline does. For each
program (adamw, lion, sgd with momentum, chain(clip_by_global_norm,
adamw), on a float32 matrix and a bfloat16 vector), the script lists, per
fused kernel over a leaf, the scalar operands that are not constants, for
this interpreter's optax and, with ``--upstream-python`` or
``--upstream-tree``, for upstream's in its own process. Only the public API
is used, so that the same script runs under both.

Counts are reported, never asserted here.
"""

import argparse
import json
import os
import subprocess
import sys
import tempfile
from typing import Any, Callable

_REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
_FLAG = '--xla_disable_hlo_passes=cse_barrier_expander'
_REPLY = '@@kernel_scalars@@ '
def _programs() -> dict[str, Any]:
  import optax  # pylint: disable=import-outside-toplevel

  return {
      'adamw': optax.adamw(1e-3),
      'lion': optax.lion(1e-4),
      'sgd_momentum': optax.sgd(1e-2, momentum=0.9),
      'clip_adamw': optax.chain(optax.clip_by_global_norm(1.0),
                                optax.adamw(1e-3)),
  }


def _worker() -> None:
  """Compiles every program and prints its optimized HLO as JSON."""
  os.environ['XLA_FLAGS'] = f'{os.environ.get("XLA_FLAGS", "")} {_FLAG}'
  import jax  # pylint: disable=import-outside-toplevel
  import jax.numpy as jnp  # pylint: disable=import-outside-toplevel
  import optax  # pylint: disable=import-outside-toplevel

  params = {'w': jnp.ones((256, 512), jnp.float32),
            'b': jnp.ones((512,), jnp.bfloat16)}
  grads = jax.tree.map(jnp.ones_like, params)
  programs = {}
  for name, tx in _programs().items():

    def step(p, s, g, tx=tx):
      updates, s = tx.update(g, s, p)
      return optax.apply_updates(p, updates), s

    compiled = jax.jit(step, donate_argnums=(0, 1)).lower(
        params, tx.init(params), grads).compile()
    programs[name] = compiled.as_text()
  print(_REPLY + json.dumps({
      'optax': optax.__version__, 'optax_file': optax.__file__,
      'jax': jax.__version__, 'backend': jax.default_backend(),
      'hlo': programs}), flush=True)


def _run(python: str, env: dict[str, str],
         parse: Callable[[str], Any]) -> dict[str, Any]:
  result = subprocess.run(
      [python, os.path.abspath(__file__), '--worker'], env=env,
      cwd=tempfile.gettempdir(), capture_output=True, text=True, check=True)
  for line in result.stdout.splitlines():
    if line.startswith(_REPLY):
      side = json.loads(line[len(_REPLY):])
      side['counts'] = {name: parse(hlo)
                        for name, hlo in side.pop('hlo').items()}
      return side
  raise RuntimeError(f'kernel_scalars: no answer from {python}:\n'
                     f'{result.stderr}')


def main() -> None:
  """Counts for this interpreter's optax and, if given, upstream's."""
  parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
  parser.add_argument('--upstream-python',
                      help='an interpreter with upstream optax installed')
  parser.add_argument('--upstream-tree',
                      help='a source tree of upstream optax, run under this '
                      'interpreter with the tree on PYTHONPATH')
  parser.add_argument('--json', action='store_true')
  parser.add_argument('--worker', action='store_true', help=argparse.SUPPRESS)
  args = parser.parse_args()
  if args.worker:
    _worker()
    return
  env = {k: v for k, v in os.environ.items() if k != 'PYTHONPATH'}
  # Both sides' programs are read by this repository's parser (imported
  # here, not at the top: a worker sets XLA_FLAGS before importing jax;
  # the checkout's, as `python -m` runs from the repository's root).
  from optax._src.testing import hlo  # pylint: disable=import-outside-toplevel
  if not os.path.abspath(hlo.__file__).startswith(_REPO + os.sep):
    raise SystemExit(f'kernel_scalars: optax comes from {hlo.__file__}, '
                     f'not the checkout {_REPO}: run python -m '
                     'benchmarks.kernel_scalars from the repository\'s root')
  parse = hlo.fused_kernel_scalars
  sides = {'fork': _run(sys.executable, dict(env, PYTHONPATH=_REPO), parse)}
  if args.upstream_tree:
    sides['upstream'] = _run(sys.executable, dict(
        env, PYTHONPATH=os.path.abspath(args.upstream_tree)), parse)
  elif args.upstream_python:
    sides['upstream'] = _run(args.upstream_python, env, parse)
  if args.json:
    print(json.dumps(sides, indent=1))
    return
  for label, side in sides.items():
    print(f'# {label}: optax {side["optax"]} ({side["optax_file"]}), jax '
          f'{side["jax"]}, backend {side["backend"]}, {_FLAG}')
  for name in sides['fork']['counts']:
    for label, side in sides.items():
      kernels = side['counts'][name]
      total = sum(count for _, count in kernels)
      listed = ', '.join(f'{shape.split("{")[0]}:{count}'
                         for shape, count in sorted(kernels))
      print(f'{name:<14} {label:<9} {total:3d} runtime scalars  [{listed}]')


if __name__ == '__main__':
  main()
