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
"""Transformations on params sharded over explicit mesh axes.

Under a mesh whose axes are explicit, an array's sharding is part of its
type. ``apply_if_finite``'s eager update built its skipped updates without
the params' sharding (``cond branches must have equal output types``), and
``flatten`` concatenated leaves sharded differently (``ShardingTypeError``,
eagerly and under ``jit``).
"""

from absl.testing import absltest
from absl.testing import parameterized
import jax
import jax.numpy as jnp
import numpy as np
import optax
from optax._src import utils

try:
  # Before JAX starts its backend: these tests need 8 CPU devices.
  jax.config.update('jax_num_cpu_devices', 8)
except RuntimeError:
  pass  # Backend already started (another test file): the tests may skip.

P = jax.sharding.PartitionSpec


class TransformsShardingTest(parameterized.TestCase):

  @parameterized.product(
      wrapper=('apply_if_finite', 'flatten'),
      jitted=(False, True),
  )
  def test_updates_sharded_like_params(self, wrapper, jitted):
    if utils.parse_version(jax.__version__) < utils.parse_version('0.7.2'):
      self.skipTest('Skipping sharding-in-types test')
    devices = jax.devices('cpu')
    if len(devices) < 8:
      self.skipTest(f'needs 8 CPU devices, has {len(devices)}')
    mesh = jax.make_mesh(
        (2, 4),
        ('data', 'model'),
        axis_types=(jax.sharding.AxisType.Explicit,) * 2,
        devices=devices[:8],
    )
    specs = {'w': P('data', 'model'), 'b': P('model')}
    if wrapper == 'apply_if_finite':
      tx = optax.apply_if_finite(optax.adam(1e-2), 3)
      fill = np.nan  # skipped: zero updates
    else:
      tx = optax.flatten(optax.adam(1e-2))
      fill = 1.0  # first Adam step: -lr * sign(g)
    wrap = jax.jit if jitted else (lambda f: f)
    with jax.set_mesh(mesh):
      params = {
          'w': jax.device_put(
              jnp.ones((8, 4)), jax.sharding.NamedSharding(mesh, specs['w'])
          ),
          'b': jax.device_put(
              jnp.ones(4), jax.sharding.NamedSharding(mesh, specs['b'])
          ),
      }
      grads = jax.tree.map(lambda p: p * fill, params)
      state = wrap(tx.init)(params)
      updates, _ = wrap(tx.update)(grads, state, params)
    expected = 0.0 if wrapper == 'apply_if_finite' else -1e-2
    for k, spec in specs.items():
      self.assertEqual(updates[k].sharding.spec, spec)
      np.testing.assert_allclose(updates[k], expected, rtol=1e-5)


if __name__ == '__main__':
  absltest.main()
