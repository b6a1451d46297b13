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
# # Gradient accumulation with `MultiSteps`
#
# A batch that does not fit in memory can be split into `k` micro-batches:
# `optax.MultiSteps(tx, every_k_schedule=k)` averages their gradients and
# applies `tx` once every `k` calls, returning zero updates in between.
# For an optimizer whose update depends on the gradient only through its
# mean, training on micro-batches of 16 with `k = 4` follows the same path
# as training on batches of 64. This script trains the same MLP both ways
# on scikit-learn's digits and plots the two loss curves.
"""Gradient accumulation with optax.MultiSteps against one big batch.

Run ``python examples/gradient_accumulation.py`` (``--quick``: a few steps).
"""

# %%
import sys

import jax
import numpy as np
import example_utils as eu
import optax

# %%


def train_big_batch(tx, params, data, batch_size, steps, seed):
  """One optimizer step per batch of ``batch_size``; returns the losses."""
  x, y = data
  state = tx.init(params)

  @jax.jit
  def step(params, state, xb, yb):
    loss, grads = jax.value_and_grad(eu.loss_fn)(params, xb, yb)
    updates, state = tx.update(grads, state, params)
    return optax.apply_updates(params, updates), state, loss

  losses = []
  for idx in eu.batches(len(x), batch_size, steps, seed):
    params, state, loss = step(params, state, x[idx], y[idx])
    losses.append(float(loss))
  return params, losses


def train_accumulated(tx, params, data, batch_size, k, steps, seed):
  """Same batches, each fed as ``k`` micro-batches through MultiSteps."""
  x, y = data
  ms = optax.MultiSteps(tx, every_k_schedule=k)
  state = ms.init(params)

  @jax.jit
  def micro_step(params, state, xb, yb):
    loss, grads = jax.value_and_grad(eu.loss_fn)(params, xb, yb)
    updates, state = ms.update(grads, state, params)
    return optax.apply_updates(params, updates), state, loss

  losses = []
  for idx in eu.batches(len(x), batch_size, steps, seed):
    micro_losses = []
    for micro in np.split(idx, k):
      params, state, loss = micro_step(params, state, x[micro], y[micro])
      micro_losses.append(float(loss))
    # The mean of the micro-batch losses is the big batch's loss.
    losses.append(float(np.mean(micro_losses)))
  return params, losses


# %%
def main(argv=None) -> int:
  """Trains both ways and plots the loss curves."""
  args = eu.parse_args(eu.parser(__doc__, 'gradient_accumulation.png'), argv)
  steps = 20 if args.quick else 300
  x_train, _, y_train, _ = eu.load_digits()
  params = eu.init_mlp(jax.random.key(0), [64, 64, 10])
  tx = optax.adam(1e-3)
  data = (x_train, y_train)
  big_params, big = train_big_batch(tx, params, data, 64, steps, seed=1)
  acc_params, acc = train_accumulated(tx, params, data, 64, 4, steps, seed=1)
  gap = max(float(np.max(np.abs(a - b))) for a, b in zip(
      jax.tree.leaves(big_params), jax.tree.leaves(acc_params)))
  print(f'{steps} steps: final loss {big[-1]:.4f} (batch 64) vs '
        f'{acc[-1]:.4f} (4 x 16 accumulated); largest parameter '
        f'difference {gap:.2e}')

  fig, axes = eu.figure()
  ax = axes[0, 0]
  ax.plot(big, label='adam, batches of 64', linewidth=2)
  ax.plot(acc, '--', label='MultiSteps(adam, 4), micro-batches of 16')
  ax.set_xlabel('optimizer step')
  ax.set_ylabel('training loss')
  ax.set_yscale('log')
  ax.legend()
  ax.set_title('Gradient accumulation follows the big-batch path')
  eu.save(fig, args.out)
  return 0


if __name__ == '__main__':
  sys.exit(main())
