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
# # Freezing parameters
#
# Fine-tuning often trains a new head on a frozen body. Two ways to say so:
#
# * `optax.chain(tx, optax.freeze(mask))` zeroes the updates of the frozen
#   leaves after `tx`; `tx` still keeps state (e.g. Adam moments) for them.
# * `optax.selective_transform(tx, freeze_mask=mask)` hands `tx` only the
#   trainable leaves, so no state is kept for the frozen ones: the state
#   holds `MaskedNode` in their place.
#
# This script first trains a whole MLP on half of the digit classes
# (0 to 4), then fine-tunes only the last layer on all ten classes. It
# checks that the frozen layers did not move, compares the size of the two
# optimizer states, and plots the fine-tuning loss.
"""Freezing parameters with optax.freeze and optax.selective_transform.

Run ``python examples/freezing.py`` (``--quick``: a few steps).
"""

# %%
import functools
import sys

import jax
import numpy as np
import example_utils as eu
import optax

# %%


def fit(tx, params, x, y, steps, seed):
  """Trains with ``tx``; returns params, final state and the losses."""
  state = tx.init(params)

  @jax.jit
  def step(params, state, xb, yb):
    loss, grads = jax.value_and_grad(eu.loss_fn)(params, xb, yb)
    updates, state = tx.update(grads, state, params)
    return optax.apply_updates(params, updates), state, loss

  losses = []
  for idx in eu.batches(len(x), 64, steps, seed):
    params, state, loss = step(params, state, x[idx], y[idx])
    losses.append(float(loss))
  return params, state, losses


def state_size(state) -> int:
  """Number of floats the optimizer state holds."""
  return sum(int(np.size(leaf)) for leaf in jax.tree.leaves(state))


# %%
def main(argv=None) -> int:
  """Pretrains, fine-tunes the head two ways, checks and plots."""
  args = eu.parse_args(eu.parser(__doc__, 'freezing.png'), argv)
  steps = 20 if args.quick else 300
  x_train, x_test, y_train, y_test = eu.load_digits()
  first_half = y_train < 5
  params = eu.init_mlp(jax.random.key(0), [64, 128, 128, 10])
  params, _, _ = fit(optax.adam(1e-3), params, x_train[first_half],
                     y_train[first_half], steps, seed=0)
  # True freezes a leaf: every layer but the last.
  last = len(params) - 1
  mask = [jax.tree.map(functools.partial(lambda frozen, _: frozen, i < last),
                       layer) for i, layer in enumerate(params)]

  curves = {}
  for name, tx in {
      'chain(adam, freeze)': optax.chain(optax.adam(1e-3),
                                         optax.freeze(mask)),
      'selective_transform(adam)': optax.selective_transform(
          optax.adam(1e-3), freeze_mask=mask),
  }.items():
    tuned, state, curves[name] = fit(tx, params, x_train, y_train, steps,
                                     seed=1)
    moved = [float(np.max(np.abs(a - b))) for a, b, m in zip(
        jax.tree.leaves(tuned), jax.tree.leaves(params),
        jax.tree.leaves(mask)) if m]
    assert max(moved) == 0.0, f'{name}: a frozen leaf moved by {moved}'
    print(f'{name:28s} frozen layers unchanged; optimizer state holds '
          f'{state_size(state):6d} floats; test accuracy '
          f'{eu.accuracy(tuned, x_test, y_test):.2%}')

  fig, axes = eu.figure()
  ax = axes[0, 0]
  for (name, curve), style in zip(curves.items(), ['-', '--']):
    ax.plot(curve, style, label=name)
  ax.set_xlabel('fine-tuning step')
  ax.set_ylabel('training loss (all ten classes)')
  ax.set_yscale('log')
  ax.legend()
  ax.set_title('Fine-tuning the head of a frozen MLP')
  eu.save(fig, args.out)
  return 0


if __name__ == '__main__':
  sys.exit(main())
