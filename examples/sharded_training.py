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
# # Data- and model-parallel training with sharded optimizer state
#
# On a CPU, XLA can pretend to have 8 devices (the flag must be set before
# JAX starts). The mesh below has a `data` axis of 2 and a `model` axis of 4:
# batches are split over `data`, weight matrices over `model`. Optax builds
# each piece of optimizer state with the sharding of its parameter, so
# `tx.init` of sharded params gives sharded Adam moments, without any
# annotation. The script prints the shardings after `init` and after
# training, checks that they never change, and plots the loss next to the
# same training run on one device.
"""Sharded training on 8 host devices: optimizer state follows the params.

Run ``python examples/sharded_training.py`` (``--quick``: a few steps).
"""

# %%
import os
import sys

os.environ['XLA_FLAGS'] = (os.environ.get('XLA_FLAGS', '') +
                           ' --xla_force_host_platform_device_count=8')

# pylint: disable=wrong-import-position
import jax  # noqa: E402
from jax.sharding import NamedSharding  # noqa: E402
from jax.sharding import PartitionSpec as P  # noqa: E402
import numpy as np  # noqa: E402
import example_utils as eu  # noqa: E402
import optax  # noqa: E402
# pylint: enable=wrong-import-position

# %%


def param_specs(params):
  """Weight matrices split over 'model' columns; biases likewise."""
  return [{'w': P(None, 'model'), 'b': P('model')} if i < len(params) - 1
          else {'w': P('model', None), 'b': P()}
          for i in range(len(params))]


def train(tx, params, data, steps, mesh=None):
  """Trains; on a mesh, batches are split over 'data'. Returns losses."""
  x, y = data
  state = tx.init(params)
  shardings = jax.tree.map(lambda a: a.sharding, state)

  @jax.jit
  def step(params, state, xb, yb):
    loss, grads = jax.value_and_grad(eu.loss_fn)(params, xb, yb)
    updates, state = tx.update(grads, state, params)
    return optax.apply_updates(params, updates), state, loss

  losses = []
  for idx in eu.batches(len(x), 64, steps, seed=0):
    xb, yb = x[idx], y[idx]
    if mesh is not None:
      xb = jax.device_put(xb, NamedSharding(mesh, P('data')))
      yb = jax.device_put(yb, NamedSharding(mesh, P('data')))
    params, state, loss = step(params, state, xb, yb)
    losses.append(float(loss))
  if mesh is not None:
    # Every per-parameter state leaf keeps the sharding init gave it (the
    # step counter, a scalar, may move from one device to all of them).
    after = jax.tree.map(lambda a: a.sharding, state)
    for before_leaf, after_leaf, leaf in zip(
        jax.tree.leaves(shardings), jax.tree.leaves(after),
        jax.tree.leaves(state)):
      if leaf.ndim:
        assert after_leaf.is_equivalent_to(before_leaf, leaf.ndim), (
            before_leaf, after_leaf)
  return params, state, losses


# %%
def main(argv=None) -> int:
  """Trains on the mesh and on one device; prints shardings, plots."""
  args = eu.parse_args(eu.parser(__doc__, 'sharded_training.png'), argv)
  steps = 10 if args.quick else 300
  x_train, x_test, y_train, y_test = eu.load_digits()
  n = (len(x_train) // 8) * 8
  data = (x_train[:n], y_train[:n])
  params = eu.init_mlp(jax.random.key(0), [64, 128, 10])
  tx = optax.adamw(1e-3, weight_decay=1e-4)

  # Auto axes: XLA's sharding propagation decides the layout of each
  # intermediate (with Explicit axes, the last layer's contraction over the
  # sharded 'model' axis would need an out_sharding). With fewer than 8
  # accelerators (one GPU, say) the mesh is made of the 8 host devices.
  devices = jax.devices()
  if len(devices) < 8:
    devices = jax.devices('cpu')
  mesh = jax.make_mesh((2, 4), ('data', 'model'),
                       axis_types=(jax.sharding.AxisType.Auto,) * 2,
                       devices=devices[:8])
  sharded = jax.tree.map(
      lambda p, spec: jax.device_put(p, NamedSharding(mesh, spec)),
      params, param_specs(params))
  state = tx.init(sharded)
  mu = state[0].mu
  print('first-layer weights:', sharded[0]['w'].sharding.spec,
        ' adam mu:', mu[0]['w'].sharding.spec,
        ' adam nu:', state[0].nu[0]['w'].sharding.spec)

  p_mesh, _, on_mesh = train(tx, sharded, data, steps, mesh)
  # The reference run on one device of the same kind as the mesh's.
  p_one, _, one_device = train(tx, jax.device_put(params, devices[0]), data,
                               steps)
  gap = max(float(np.max(np.abs(np.asarray(a) - np.asarray(b))))
            for a, b in zip(jax.tree.leaves(p_mesh), jax.tree.leaves(p_one)))
  print(f'{steps} steps on a 2x4 mesh: loss {on_mesh[-1]:.4f}, test '
        f'accuracy {eu.accuracy(p_mesh, x_test, y_test):.2%}; one device: '
        f'loss {one_device[-1]:.4f}; largest parameter difference {gap:.1e}')

  fig, axes = eu.figure()
  ax = axes[0, 0]
  ax.plot(on_mesh, label='2 x 4 mesh (data x model)', linewidth=2)
  ax.plot(one_device, '--', label='one device')
  ax.set_xlabel('step')
  ax.set_ylabel('training loss')
  ax.set_yscale('log')
  ax.legend()
  ax.set_title('adamw with sharded params and state')
  eu.save(fig, args.out)
  return 0


if __name__ == '__main__':
  sys.exit(main())
