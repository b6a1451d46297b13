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
# # Per-group learning rates
#
# Layers often want different learning rates: a small one for a pretrained
# body, a larger one for a new head. `optax.partition` sends each group of
# parameters to its own optimizer, chosen by a tree of labels;
# `optax.inject_hyperparams` puts each group's learning rate in the
# optimizer state, where it can be read (or changed) between steps.
#
# Building the groups in a loop has one trap: a `lambda` that reads the
# loop variable sees its *last* value when it is called later. Bind it when
# the schedule is built (a default argument or `functools.partial`), as
# below. The plot shows each group's learning rate, read back from the
# state, over training; weight decay is applied to the weight matrices only,
# through a mask.
"""Per-group learning rates with partition, masked and inject_hyperparams.

Run ``python examples/per_group_learning_rates.py`` (``--quick``: few steps).
"""

# %%
import functools
import sys

import jax
import numpy as np
import example_utils as eu
import optax

# %%
# Peak learning rate and warmup (a fraction of training) of each group.
GROUPS = {'body': (3e-4, 0.2), 'head': (3e-3, 0.05)}


def group_schedule(step, peak, warmup, total):
  """Linear warmup to ``peak``, then cosine decay to zero at ``total``."""
  return optax.warmup_cosine_decay_schedule(
      0.0, peak, warmup_steps=max(1, int(warmup * total)),
      decay_steps=total)(step)


def build_optimizer(total_steps: int):
  """One injected adamw per group, weight decay on matrices only."""
  transforms = {}
  for name, (peak, warmup) in GROUPS.items():
    # functools.partial binds this iteration's values now; a bare lambda
    # would see the last group's values in every group.
    schedule = functools.partial(group_schedule, peak=peak, warmup=warmup,
                                 total=total_steps)
    transforms[name] = optax.inject_hyperparams(optax.adamw)(
        learning_rate=schedule, weight_decay=1e-4,
        mask=lambda p: jax.tree.map(lambda x: x.ndim == 2, p))
  return transforms


def labels_of(params):
  """The last layer is the head, every other layer the body."""
  last = len(params) - 1
  return [jax.tree.map(functools.partial(lambda label, _: label,
                                         'head' if i == last else 'body'),
                       layer) for i, layer in enumerate(params)]


def learning_rates(state):
  """Each group's current learning rate, read from the optimizer state.

  ``partition`` keeps each group's state inside a ``MaskedState``; inside
  it, ``inject_hyperparams`` keeps the current values in ``hyperparams``.

  Args:
    state: the state of the ``optax.partition`` built in :func:`main`.
  """
  return {name: float(masked.inner_state.hyperparams['learning_rate'])
          for name, masked in state.inner_states.items()}


# %%
def main(argv=None) -> int:
  """Trains with two groups and plots their learning rates."""
  args = eu.parse_args(eu.parser(__doc__, 'per_group_learning_rates.png'),
                       argv)
  steps = 30 if args.quick else 400
  x_train, x_test, y_train, y_test = eu.load_digits()
  params = eu.init_mlp(jax.random.key(0), [64, 64, 10])
  tx = optax.partition(build_optimizer(steps), labels_of(params))
  state = tx.init(params)

  @jax.jit
  def step(params, state, xb, yb):
    loss, grads = jax.value_and_grad(eu.loss_fn)(params, xb, yb)
    updates, state = tx.update(grads, state, params)
    return optax.apply_updates(params, updates), state, loss

  history = {name: [] for name in GROUPS}
  for idx in eu.batches(len(x_train), 64, steps, seed=0):
    params, state, _ = step(params, state, x_train[idx], y_train[idx])
    for name, lr in learning_rates(state).items():
      history[name].append(lr)
  peaks = {name: max(h) for name, h in history.items()}
  print(f'peak learning rates read from the state: {peaks}; test accuracy '
        f'{eu.accuracy(params, x_test, y_test):.2%}')
  for name, (peak, _) in GROUPS.items():
    np.testing.assert_allclose(peaks[name], peak, rtol=0.1)

  fig, axes = eu.figure()
  ax = axes[0, 0]
  for name, h in history.items():
    ax.plot(h, label=f'{name} (peak {GROUPS[name][0]:g})')
  ax.set_xlabel('step')
  ax.set_ylabel('learning rate in the state')
  ax.set_yscale('log')
  ax.legend()
  ax.set_title('optax.partition + inject_hyperparams: one schedule a group')
  eu.save(fig, args.out)
  return 0


if __name__ == '__main__':
  sys.exit(main())
