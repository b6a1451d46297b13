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
"""L-BFGS, tree_vdot, prodigy, dadapt_adamw on explicitly sharded params.

On a mesh with explicit axes a sharding is part of an array's type, and a
contraction over sharded dimensions must say how its output is sharded:
upstream 0.2.8's ``tree_vdot`` (and so ``lbfgs``, ``prodigy`` and
``dadapt_adamw``) raise ``ShardingTypeError: Contracting dimensions are
sharded and it is ambiguous how the output should be sharded``.
"""

from absl.testing import absltest
from absl.testing import parameterized
import jax
import jax.numpy as jnp
import numpy as np
import optax

try:
  # Before JAX starts its backend: these tests need 8 CPU devices.
  jax.config.update('jax_num_cpu_devices', 8)
except RuntimeError:
  pass  # Backend already started (another test file): the tests may skip.

P = jax.sharding.PartitionSpec


def _loss(params):
  return jnp.sum((params['w'] - 1.0) ** 2) + jnp.sum(params['b'] ** 2)


class ExplicitMeshLbfgsVdotTest(parameterized.TestCase):

  def setUp(self):
    super().setUp()
    devices = jax.devices('cpu')
    if len(devices) < 8:
      self.skipTest(f'needs 8 CPU devices, has {len(devices)}')
    self.mesh = jax.make_mesh(
        (2, 4),
        ('data', 'model'),
        axis_types=(jax.sharding.AxisType.Explicit,) * 2,
        devices=devices[:8],
    )
    rng = np.random.default_rng(0)
    self.values = {
        'w': rng.standard_normal((8, 4)).astype(np.float32),
        'b': rng.standard_normal(4).astype(np.float32),
    }
    self.specs = {'w': P('data', 'model'), 'b': P('model')}

  def _sharded(self):
    return {
        k: jax.device_put(
            v, jax.sharding.NamedSharding(self.mesh, self.specs[k])
        )
        for k, v in self.values.items()
    }

  def test_tree_vdot(self):
    with jax.set_mesh(self.mesh):
      params = self._sharded()
      got = jax.jit(optax.tree_utils.tree_vdot)(params, params)
    expected = sum(
        np.sum(v.astype(np.float64) ** 2) for v in self.values.values()
    )
    np.testing.assert_allclose(got, expected, rtol=1e-5)

  @parameterized.named_parameters(
      ('lbfgs', optax.lbfgs, True),
      ('prodigy', lambda: optax.contrib.prodigy(0.1), False),
      ('dadapt_adamw', lambda: optax.contrib.dadapt_adamw(0.1), False),
  )
  def test_jitted_steps_match_unsharded(self, make, needs_value):
    tx = make()

    def step(params, state):
      value, grad = jax.value_and_grad(_loss)(params)
      extra = {}
      if needs_value:
        extra = {'value': value, 'grad': grad, 'value_fn': _loss}
      updates, state = tx.update(grad, state, params, **extra)
      return optax.apply_updates(params, updates), state

    def run(params):
      state = jax.jit(tx.init)(params)
      for _ in range(3):
        params, state = jax.jit(step)(params, state)
      return params

    expected = run({k: jnp.asarray(v) for k, v in self.values.items()})
    with jax.set_mesh(self.mesh):
      got = run(self._sharded())
    for k in self.values:
      self.assertEqual(got[k].sharding.spec, self.specs[k])
      np.testing.assert_allclose(got[k], expected[k], rtol=1e-5, atol=1e-6)


if __name__ == '__main__':
  absltest.main()
