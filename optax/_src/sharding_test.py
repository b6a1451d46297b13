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
"""Tests for `optax._src.sharding`."""

from absl.testing import absltest
import jax
import jax.numpy as jnp

from optax._src import sharding


class ExplicitSpecTest(absltest.TestCase):

  def test_spec_of_a_leaf_sharded_in_its_type(self):
    devices = jax.devices()
    mesh = jax.make_mesh((len(devices),), ('x',), devices=devices)
    leaf = jax.device_put(
        jnp.ones((2 * len(devices), 3)),
        jax.sharding.NamedSharding(mesh, jax.sharding.PartitionSpec('x')))
    self.assertEqual(sharding.explicit_spec(leaf)[0], 'x')

  def test_none_for_a_replicated_or_unsharded_leaf(self):
    self.assertIsNone(sharding.explicit_spec(jnp.ones((2, 3))))
    devices = jax.devices()
    mesh = jax.make_mesh((len(devices),), ('x',), devices=devices)
    leaf = jax.device_put(
        jnp.ones((2, 3)),
        jax.sharding.NamedSharding(mesh, jax.sharding.PartitionSpec()))
    self.assertIsNone(sharding.explicit_spec(leaf))


class ReplicatedTest(absltest.TestCase):

  def test_replicated_on_the_mesh_of_the_first_sharded_array(self):
    devices = jax.devices()
    mesh = jax.make_mesh((len(devices),), ('x',), devices=devices)
    leaf = jax.device_put(
        jnp.ones((2 * len(devices), 3)),
        jax.sharding.NamedSharding(mesh, jax.sharding.PartitionSpec('x')))
    result = sharding.replicated(jnp.ones(3), leaf)
    self.assertEqual(result.spec, jax.sharding.PartitionSpec())
    self.assertEqual(result.mesh, mesh.abstract_mesh)

  def test_none_without_an_array_sharded_in_its_type(self):
    self.assertIsNone(sharding.replicated())
    self.assertIsNone(sharding.replicated(jnp.ones(3), jnp.ones((2, 2))))
    seen = []
    jax.jit(lambda x: seen.append(sharding.replicated(x)) or x)(jnp.ones(2))
    self.assertEqual(seen, [None])  # A tracer of an unsharded leaf.


if __name__ == '__main__':
  absltest.main()
