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
# # Schedule-free AdamW and its evaluation parameters
#
# Schedule-free optimizers need no decaying learning-rate schedule: they
# keep an average of the iterates instead. The parameters the optimizer
# hands back are the points where gradients are taken; the parameters to
# *evaluate* are another interpolation, which
# `optax.contrib.schedule_free_eval_params(state, params)` computes. This
# script trains an MLP with `optax.contrib.schedule_free_adamw` and plots the
# test loss of both sets of parameters, next to AdamW with a cosine
# schedule.
"""Schedule-free AdamW: training parameters vs evaluation parameters.

Run ``python examples/schedule_free.py`` (``--quick``: a few steps).
"""

# %%
import sys

import jax
import example_utils as eu
import optax

# %%


def train(tx, params, data, steps, eval_every, eval_params_fn=None):
  """Trains; returns the test losses of the params (and of eval params)."""
  x, y, x_test, y_test = data
  state = tx.init(params)

  @jax.jit
  def step(params, state, xb, yb):
    grads = jax.grad(eu.loss_fn)(params, xb, yb)
    updates, state = tx.update(grads, state, params)
    return optax.apply_updates(params, updates), state

  test_loss = jax.jit(eu.loss_fn)
  curve, eval_curve = [], []
  for i, idx in enumerate(eu.batches(len(x), 64, steps, seed=0), start=1):
    params, state = step(params, state, x[idx], y[idx])
    if i % eval_every == 0:
      curve.append((i, float(test_loss(params, x_test, y_test))))
      if eval_params_fn is not None:
        evaluated = eval_params_fn(state, params)
        eval_curve.append((i, float(test_loss(evaluated, x_test, y_test))))
  return curve, eval_curve


# %%
def main(argv=None) -> int:
  """Trains schedule-free AdamW and cosine AdamW; plots test losses."""
  args = eu.parse_args(eu.parser(__doc__, 'schedule_free.png'), argv)
  steps = 20 if args.quick else 600
  eval_every = 5 if args.quick else 20
  x_train, x_test, y_train, y_test = eu.load_digits()
  params = eu.init_mlp(jax.random.key(0), [64, 128, 10])
  data = (x_train, y_train, x_test, y_test)
  sf_train, sf_eval = train(
      optax.contrib.schedule_free_adamw(3e-3, warmup_steps=steps // 10),
      params, data, steps, eval_every,
      optax.contrib.schedule_free_eval_params)
  cosine = optax.warmup_cosine_decay_schedule(
      0.0, 3e-3, warmup_steps=steps // 10, decay_steps=steps)
  adamw, _ = train(optax.adamw(cosine), params, data, steps, eval_every)
  print(f'test loss after {steps} steps: schedule-free eval params '
        f'{sf_eval[-1][1]:.4f}, schedule-free train params '
        f'{sf_train[-1][1]:.4f}, adamw + cosine {adamw[-1][1]:.4f}')

  fig, axes = eu.figure()
  ax = axes[0, 0]
  for curve, label in [(sf_eval, 'schedule_free_adamw, eval params'),
                       (sf_train, 'schedule_free_adamw, train params'),
                       (adamw, 'adamw + warmup cosine')]:
    ax.plot(*zip(*curve), label=label)
  ax.set_xlabel('step')
  ax.set_ylabel('test loss')
  ax.set_yscale('log')
  ax.legend()
  ax.set_title('Schedule-free AdamW needs its eval params')
  eu.save(fig, args.out)
  return 0


if __name__ == '__main__':
  sys.exit(main())
