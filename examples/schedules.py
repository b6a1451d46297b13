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
# %% [markdown]
# # Learning-rate schedules side by side
#
# A schedule is a function from the step count to a value. Every optimizer
# that takes a `learning_rate` accepts one in place of a number, and
# `optax.inject_hyperparams` accepts one for any numeric hyperparameter.
# This script draws the schedules of `optax.schedules` over 1,000 steps,
# with the same peak value, in one grid of plots.
"""The learning-rate schedules of optax.schedules, drawn side by side.

Run ``python examples/schedules.py`` (``--quick``: coarser curves).
"""

# %%
import sys

import jax
import jax.numpy as jnp
import example_utils as eu
import optax

# %%
TOTAL = 1000
PEAK = 1e-2


def schedules():
  """Name -> schedule, each reaching (about) PEAK within TOTAL steps."""
  return {
      'constant_schedule': optax.constant_schedule(PEAK),
      'linear_schedule': optax.linear_schedule(PEAK, 0.0, TOTAL),
      'polynomial_schedule (power 2)': optax.polynomial_schedule(
          PEAK, 0.0, power=2, transition_steps=TOTAL),
      'exponential_decay': optax.exponential_decay(
          PEAK, transition_steps=100, decay_rate=0.7),
      'exponential_decay (staircase)': optax.exponential_decay(
          PEAK, transition_steps=100, decay_rate=0.7, staircase=True),
      'cosine_decay_schedule': optax.cosine_decay_schedule(PEAK, TOTAL),
      'warmup_cosine_decay_schedule': optax.warmup_cosine_decay_schedule(
          0.0, PEAK, warmup_steps=100, decay_steps=TOTAL),
      'warmup_exponential_decay_schedule':
          optax.warmup_exponential_decay_schedule(
              0.0, PEAK, warmup_steps=100, transition_steps=100,
              decay_rate=0.7),
      'warmup_constant_schedule': optax.schedules.warmup_constant_schedule(
          0.0, PEAK, warmup_steps=100),
      'piecewise_constant_schedule': optax.piecewise_constant_schedule(
          PEAK, {300: 0.5, 600: 0.2}),
      'piecewise_interpolate_schedule':
          optax.piecewise_interpolate_schedule(
              'cosine', PEAK, {300: 0.5, 600: 0.2}),
      'linear_onecycle_schedule': optax.linear_onecycle_schedule(
          TOTAL, PEAK),
      'cosine_onecycle_schedule': optax.cosine_onecycle_schedule(
          TOTAL, PEAK),
      'sgdr_schedule': optax.sgdr_schedule([
          dict(init_value=0.0, peak_value=PEAK, warmup_steps=50,
               decay_steps=TOTAL // 4)] * 4),
      'join_schedules (linear, then cosine)': optax.join_schedules(
          [optax.linear_schedule(0.0, PEAK, 200),
           optax.cosine_decay_schedule(PEAK, TOTAL - 200)], [200]),
  }


# %%
def main(argv=None) -> int:
  """Evaluates every schedule on a grid of steps and draws them."""
  args = eu.parse_args(eu.parser(__doc__, 'schedules.png'), argv)
  steps = jnp.arange(0, TOTAL + 1, 25 if args.quick else 1)
  curves = {name: jax.vmap(fn)(steps) for name, fn in schedules().items()}
  for name, values in curves.items():
    print(f'{name:40s} start {float(values[0]):.2e}  max '
          f'{float(values.max()):.2e}  end {float(values[-1]):.2e}')

  ncols = 5
  nrows = -(-len(curves) // ncols)
  fig, axes = eu.figure(ncols, nrows, width=3.2, height=2.4)
  for ax, (name, values) in zip(axes.flat, curves.items()):
    ax.plot(steps, values)
    ax.set_title(name, fontsize=8)
    ax.set_ylim(-0.05 * PEAK, 1.1 * PEAK)
    ax.tick_params(labelsize=7)
  for ax in list(axes.flat)[len(curves):]:
    ax.axis('off')
  eu.save(fig, args.out)
  return 0


if __name__ == '__main__':
  sys.exit(main())
