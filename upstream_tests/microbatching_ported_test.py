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
"""Microbatching fixes ported from upstream main.

Upstream 0.2.8's ``microbatch`` raises ``IndexError`` on a batch of size 0
and on a batched argument passed by keyword, and ``ShardingTypeError`` on a
batch axis sharded over an explicit mesh axis. Upstream main handles all
three.
"""

from absl.testing import absltest
from absl.testing import parameterized
import jax
import jax.numpy as jnp
import numpy as np
import optax.microbatching._microbatching as microbatching

try:
  # Before JAX starts its backend: the sharded test needs 4 CPU devices.
  jax.config.update('jax_num_cpu_devices', 8)
except RuntimeError:
  pass  # Backend already started (another test file): the test may skip.


class MicrobatchingPortedTest(parameterized.TestCase):

  def test_empty_batch_sums_to_zero(self):
    fn = microbatching.microbatch(jnp.sum, argnums=0, microbatch_size=2)
    self.assertEqual(float(fn(jnp.zeros((0,)))), 0.0)

  def test_batched_argument_passed_by_keyword(self):
    fn = microbatching.microbatch(
        lambda w, x: jnp.sum(x * w), argnums=1, microbatch_size=2
    )
    self.assertEqual(float(fn(1.0, x=jnp.ones(4))), 4.0)

  def test_batch_sharded_over_explicit_axis(self):
    devices = jax.devices('cpu')
    if len(devices) < 4:
      self.skipTest(f'needs 4 CPU devices, has {len(devices)}')
    mesh = jax.make_mesh(
        (4,),
        ('x',),
        axis_types=(jax.sharding.AxisType.Explicit,),
        devices=devices[:4],
    )
    spec = jax.sharding.PartitionSpec('x')
    x = jax.device_put(
        jnp.arange(16.0).reshape(8, 2), jax.sharding.NamedSharding(mesh, spec)
    )
    fn = microbatching.microbatch(
        lambda x: 2 * x,
        argnums=0,
        microbatch_size=4,
        accumulator=microbatching.AccumulationType.CONCAT,
    )
    with jax.set_mesh(mesh):
      out = jax.jit(fn)(x)
    np.testing.assert_array_equal(out, 2 * np.arange(16.0).reshape(8, 2))
    self.assertEqual(out.sharding.spec[0], 'x')


if __name__ == '__main__':
  absltest.main()
