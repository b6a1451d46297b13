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
# # Muon on the weight matrices, Adam on the rest
#
# Muon orthogonalises the momentum of a weight matrix with a few
# Newton-Schulz iterations before applying it. It is meant for 2-D weights;
# biases and other vectors keep an Adam update. `optax.contrib.muon` does
# both: by default every 2-D leaf gets Muon and every other leaf Adam (a
# `muon_weight_dimension_numbers` tree chooses otherwise, e.g. for stacked
# or convolution weights). The split can also be written by hand with
# `optax.partition`, which is the way to go when the other leaves need
# another optimizer or learning rate; this script does both (the hand-made
# one uses `optax.adam`'s defaults, which differ from the Adam settings
# inside `contrib.muon`, so the curves are close but not identical). The
# plot compares the loss curves with plain Adam.
"""Muon on 2-D weights and Adam on the other parameters.

Run ``python examples/muon.py`` (``--quick``: a few steps).
"""

# %%
import sys

import jax
import example_utils as eu
import optax

# %%


def train(tx, params, data, steps):
  """Plain training loop; returns the final params and the losses."""
  x, y = data
  state = tx.init(params)

  @jax.jit
  def step(params, state, xb, yb):
    loss, grads = jax.value_and_grad(eu.loss_fn)(params, xb, yb)
    updates, state = tx.update(grads, state, params)
    return optax.apply_updates(params, updates), state, loss

  losses = []
  for idx in eu.batches(len(x), 64, steps, seed=0):
    params, state, loss = step(params, state, x[idx], y[idx])
    losses.append(float(loss))
  return params, losses


def muon_by_hand(learning_rate):
  """Muon for matrices and Adam for vectors, with optax.partition."""
  matrices = optax.contrib.muon(learning_rate)
  vectors = optax.adam(learning_rate)
  return optax.partition(
      {'matrix': matrices, 'vector': vectors},
      lambda params: jax.tree.map(
          lambda p: 'matrix' if p.ndim == 2 else 'vector', params))


# %%
def main(argv=None) -> int:
  """Trains with Muon (two ways) and with Adam; plots the loss curves."""
  args = eu.parse_args(eu.parser(__doc__, 'muon.png'), argv)
  steps = 20 if args.quick else 300
  x_train, x_test, y_train, y_test = eu.load_digits()
  params = eu.init_mlp(jax.random.key(0), [64, 128, 128, 10])
  data = (x_train, y_train)
  runs = {
      'contrib.muon (Adam for the biases)': optax.contrib.muon(0.02),
      'partition(muon, adam) by hand': muon_by_hand(0.02),
      'adam': optax.adam(3e-3),
  }
  curves, finals = {}, {}
  for name, tx in runs.items():
    finals[name], curves[name] = train(tx, params, data, steps)
    print(f'{name:40s} final loss {curves[name][-1]:.4f}  test accuracy '
          f'{eu.accuracy(finals[name], x_test, y_test):.2%}')

  fig, axes = eu.figure()
  ax = axes[0, 0]
  for (name, curve), style in zip(curves.items(), ['-', '--', '-']):
    ax.plot(curve, style, label=name)
  ax.set_xlabel('step')
  ax.set_ylabel('training loss')
  ax.set_yscale('log')
  ax.legend()
  ax.set_title('Muon on weight matrices vs Adam, MLP on digits')
  eu.save(fig, args.out)
  return 0


if __name__ == '__main__':
  sys.exit(main())
