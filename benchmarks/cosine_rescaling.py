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
"""What an overflow-proof float32 cosine similarity would cost.

Run

  python -m benchmarks.cosine_rescaling [--pairs N]

from the repository's root. ``losses.cosine_similarity`` of float32 (and
bfloat16, float64) vectors runs upstream's program: each norm is the square
root of a sum of squares in the inputs' dtype, which overflows beyond a
norm of about 1.8e19 and underflows when every component is below about
1.1e-19 (ledger entry ``cosine-norm-overflow``). Each design below gives
the cosine of every finite nonzero float32 vector; the script times its
forward program and its gradient, jitted, against ``upstream_program``
(the function's current body, which is upstream's), in alternating pairs
with CPU time, and reports the median ratio of each design's time to
upstream_program's. The control row times upstream_program against itself
and reads 1.00.

- ``three_sums``: one pass summing the squares of ``x``, ``x * 2**-76``
  and ``x * 2**64`` (LAPACK's three accumulators), the sum whose range
  holds the vector chosen per vector; the dot product as before.
- ``max_scaled``: the largest component's power of two divides each
  vector first (a max reduction, then the sums of squares and the dot).
- ``gram``: the scaled vectors' dot products as one batched matmul.
- ``cond``: upstream's program where every sum of squares is a normal
  number, else ``max_scaled``, chosen by ``lax.cond``.

Timings are reported, never asserted.
"""

import argparse
import statistics
import time
from typing import Callable

import jax
from jax import lax
import jax.numpy as jnp
import numpy as np


def _squared_norms(x):
  return jnp.sum(jnp.square(x), axis=-1, keepdims=True)


def upstream_program(a, b):
  """The cosine as upstream (and the fork, for float32) computes it."""
  unit_a = a / jnp.sqrt(_squared_norms(a))
  unit_b = b / jnp.sqrt(_squared_norms(b))
  return jnp.sum(unit_a * unit_b, axis=-1)


def _power_of_two_scale(x):
  """``2**-e`` with ``2**(e-1) <= max|x| < 2**e``; 1 for 0 or non-finite."""
  largest = jnp.max(jnp.abs(x), axis=-1, keepdims=True)
  _, exponent = jnp.frexp(largest)
  usable = (largest > 0) & jnp.isfinite(largest)
  return jnp.where(usable, jnp.ldexp(jnp.ones_like(largest), -exponent), 1.0)


def _max_scaled_units(x):
  scaled = x * _power_of_two_scale(x)
  return scaled / jnp.sqrt(_squared_norms(scaled))


def max_scaled(a, b):
  """Each vector divided by its largest component's power of two first."""
  return jnp.sum(_max_scaled_units(a) * _max_scaled_units(b), axis=-1)


def _three_sums_units(x):
  down, up = 2.0 ** -76, 2.0 ** 64
  plain = _squared_norms(x)
  shrunk = _squared_norms(x * down)
  grown = _squared_norms(x * up)
  finfo = jnp.finfo(x.dtype)
  lowest = x.shape[-1] * float(finfo.tiny) / float(finfo.eps)
  big = plain == jnp.inf
  small = plain < lowest
  scale = jnp.where(big, down, jnp.where(small, up, 1.0)).astype(x.dtype)
  chosen = jnp.where(big, shrunk, jnp.where(small, grown, plain))
  return x * scale / jnp.sqrt(chosen)


def three_sums(a, b):
  """Three sums of squares per vector; the one in range is used."""
  return jnp.sum(_three_sums_units(a) * _three_sums_units(b), axis=-1)


def gram(a, b):
  """The scaled vectors' three dot products as one batched matmul."""
  stacked = jnp.stack(
      [a * _power_of_two_scale(a), b * _power_of_two_scale(b)], axis=-2)
  products = jnp.einsum('...in,...jn->...ij', stacked, stacked,
                        precision=lax.Precision.HIGHEST)
  return products[..., 0, 1] / (
      jnp.sqrt(products[..., 0, 0]) * jnp.sqrt(products[..., 1, 1]))


def cond(a, b):
  """Upstream's program, or max_scaled where a sum of squares leaves range."""
  square_a, square_b = _squared_norms(a), _squared_norms(b)
  finfo = jnp.finfo(a.dtype)
  lowest = a.shape[-1] * float(finfo.tiny) / float(finfo.eps)

  def normal(s):
    return (s < jnp.inf) & (s >= lowest) | jnp.isnan(s)

  def plain(a, b, square_a, square_b):
    return jnp.sum(a / jnp.sqrt(square_a) * (b / jnp.sqrt(square_b)),
                   axis=-1)

  def rescaled(a, b, square_a, square_b):
    del square_a, square_b
    return max_scaled(a, b)

  both_normal = jnp.all(normal(square_a)) & jnp.all(normal(square_b))
  return lax.cond(both_normal, plain, rescaled, a, b, square_a, square_b)


DESIGNS = {'control': upstream_program, 'three_sums': three_sums,
           'max_scaled': max_scaled, 'gram': gram, 'cond': cond}
SHAPES = ((4, 5), (256, 1000), (8, 128, 128))


def _cpu_seconds(fn: Callable[..., jax.Array], operands: tuple[jax.Array, ...],
                 repeats: int) -> float:
  fn(*operands).block_until_ready()
  start = time.process_time()
  for _ in range(repeats):
    fn(*operands).block_until_ready()
  return (time.process_time() - start) / repeats


def _compile_seconds(fn, *args) -> float:
  # A new function each time, so that none of jax's caches answers.
  fresh = jax.jit(lambda *operands: fn(*operands))
  start = time.process_time()
  fresh.lower(*args).compile()
  return time.process_time() - start


def _gradient(fn):
  return jax.grad(lambda a, b: jnp.sum(fn(a, b)))


def main() -> None:
  """Prints the table of median ratios."""
  parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
  parser.add_argument('--pairs', type=int, default=5)
  args = parser.parse_args()
  rng = np.random.default_rng(0)
  print(f'jax {jax.__version__}, {jax.default_backend()}; median of '
        f'{args.pairs} alternating pairs, design / upstream_program')
  print('| design | shape | forward | gradient | compile fwd | compile grad |'
        ' worst error, 1e20 and 1e-20 vectors |')
  print('|---|---|---|---|---|---|---|')
  for shape in SHAPES:
    a = jnp.asarray(rng.normal(size=shape), jnp.float32)
    b = jnp.asarray(rng.normal(size=shape), jnp.float32)
    repeats = max(50, int(2e7 // (a.size + 1000)))
    base_forward = jax.jit(upstream_program)
    base_gradient = jax.jit(_gradient(upstream_program))
    for name, design in DESIGNS.items():
      forward = jax.jit(design)
      gradient = jax.jit(_gradient(design))
      ratios = {'forward': [], 'gradient': [], 'compile': [],
                'compile_gradient': []}
      for _ in range(args.pairs):
        ratios['forward'].append(
            _cpu_seconds(forward, (a, b), repeats)
            / _cpu_seconds(base_forward, (a, b), repeats))
        ratios['gradient'].append(
            _cpu_seconds(gradient, (a, b), repeats)
            / _cpu_seconds(base_gradient, (a, b), repeats))
        ratios['compile'].append(
            _compile_seconds(design, a, b)
            / _compile_seconds(upstream_program, a, b))
        ratios['compile_gradient'].append(
            _compile_seconds(_gradient(design), a, b)
            / _compile_seconds(_gradient(upstream_program), a, b))
      errors = []
      for magnitude in (1e20, 1e-20):
        parallel = jnp.asarray(rng.normal(size=shape), jnp.float32)
        got = forward(parallel * magnitude, parallel * (2 * magnitude))
        errors.append(float(jnp.max(jnp.abs(got - 1.0))))
      cells = ' | '.join(f'{statistics.median(r):.2f}'
                         for r in ratios.values())
      print(f'| {name} | {shape} | {cells} | '
            f'{errors[0]:.2g}, {errors[1]:.2g} |')


if __name__ == '__main__':
  main()
