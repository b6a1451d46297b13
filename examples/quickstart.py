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
"""Quickstart: train a small MLP on scikit-learn's digits with optax.adamw.

Run it with ``python examples/quickstart.py`` (about half a minute on a laptop
CPU; ``--quick`` runs two epochs in a few seconds). It prints the loss and test
accuracy after each epoch and saves the loss curve as a PNG.

What it shows:

* building an optimizer: ``optax.adamw`` driven by a warmup-cosine schedule;
* the training step: ``tx.update`` then ``optax.apply_updates``, under
  ``jax.jit``;
* reading the current learning rate from the step count.
"""

import argparse
import pathlib
import sys

import jax
import numpy as np
import example_utils as eu
import optax


def train(epochs: int, batch_size: int, seed: int):
  """Trains the MLP; returns (params, per-step losses, final test accuracy)."""
  x_train, x_test, y_train, y_test = eu.load_digits(seed)
  steps_per_epoch = len(x_train) // batch_size
  total_steps = epochs * steps_per_epoch
  schedule = optax.warmup_cosine_decay_schedule(
      init_value=0.0,
      peak_value=3e-3,
      warmup_steps=max(1, total_steps // 10),
      decay_steps=total_steps,
      end_value=3e-5,
  )
  tx = optax.adamw(learning_rate=schedule, weight_decay=1e-4)
  params = eu.init_mlp(jax.random.key(seed), [64, 128, 10])
  opt_state = tx.init(params)

  @jax.jit
  def step(params, opt_state, x, y):
    loss, grads = jax.value_and_grad(eu.loss_fn)(params, x, y)
    updates, opt_state = tx.update(grads, opt_state, params)
    return optax.apply_updates(params, updates), opt_state, loss

  rng = np.random.default_rng(seed)
  losses = []
  test_acc = 0.0
  for epoch in range(1, epochs + 1):
    order = rng.permutation(len(x_train))
    epoch_losses = []
    for i in range(steps_per_epoch):
      idx = order[i * batch_size:(i + 1) * batch_size]
      params, opt_state, loss = step(
          params, opt_state, x_train[idx], y_train[idx])
      epoch_losses.append(float(loss))
    losses.extend(epoch_losses)
    test_acc = eu.accuracy(params, x_test, y_test)
    lr = float(schedule(epoch * steps_per_epoch))
    print(f'epoch {epoch:3d}/{epochs}  loss {np.mean(epoch_losses):.4f}  '
          f'test accuracy {test_acc:.2%}  learning rate {lr:.2e}',
          flush=True)
  return params, losses, test_acc


def save_loss_curve(losses, path: pathlib.Path) -> None:
  """Saves the per-step training loss as a PNG."""
  import matplotlib
  matplotlib.use('Agg')
  from matplotlib import pyplot as plt
  fig, ax = plt.subplots(figsize=(6, 4))
  ax.plot(np.arange(1, len(losses) + 1), losses, linewidth=1)
  ax.set_xlabel('step')
  ax.set_ylabel('training loss')
  ax.set_yscale('log')
  ax.set_title('MLP on digits, optax.adamw + warmup cosine')
  fig.tight_layout()
  fig.savefig(path, dpi=100)
  plt.close(fig)


def main(argv=None) -> int:
  """Parses the command line, trains, and saves the loss curve."""
  parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
  parser.add_argument('--quick', action='store_true',
                      help='two epochs, for a smoke test')
  parser.add_argument('--epochs', type=int, default=40)
  parser.add_argument('--batch-size', type=int, default=64)
  parser.add_argument('--seed', type=int, default=0)
  parser.add_argument('--out', type=pathlib.Path,
                      default=pathlib.Path(__file__).with_name(
                          'quickstart_loss.png'),
                      help='where to save the loss curve')
  args = parser.parse_args(argv)
  epochs = 2 if args.quick else args.epochs
  _, losses, test_acc = train(epochs, args.batch_size, args.seed)
  save_loss_curve(losses, args.out)
  print(f'final test accuracy {test_acc:.2%}; loss curve saved to {args.out}')
  return 0


if __name__ == '__main__':
  sys.exit(main())
