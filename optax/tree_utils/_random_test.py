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
"""Tests for `optax.tree_utils._random`."""

import functools

from absl.testing import absltest
from absl.testing import parameterized
import jax
import jax.numpy as jnp
import numpy as np

from optax.tree_utils import _random


def _target():
  return {'a': jnp.ones((2, 3), jnp.bfloat16),
          'b': (jnp.zeros(4), None),
          'c': jnp.zeros((), jnp.float32)}


class SplitKeyLikeTest(parameterized.TestCase):
  """Tests of tree_split_key_like."""

  @parameterized.parameters(jax.random.key, jax.random.PRNGKey)
  def test_one_key_per_leaf_in_leaf_order(self, make_key):
    key = make_key(0)
    keys = _random.tree_split_key_like(key, _target())
    self.assertEqual(jax.tree.structure(keys, is_leaf=lambda x: x is None),
                     jax.tree.structure(_target(), is_leaf=lambda x: x is None))
    expected = jax.random.split(key, 3)  # leaves: a, b[0], c.
    got = [keys['a'], keys['b'][0], keys['c']]
    for k, e in zip(got, expected):
      np.testing.assert_array_equal(
          jax.random.key_data(k), jax.random.key_data(e))

  def test_typed_and_raw_keys(self):
    typed = _random.tree_split_key_like(jax.random.key(1), [jnp.ones(1)])[0]
    self.assertTrue(jax.dtypes.issubdtype(typed.dtype, jax.dtypes.prng_key))
    raw = _random.tree_split_key_like(jax.random.PRNGKey(1), [jnp.ones(1)])[0]
    self.assertEqual(raw.dtype, jnp.uint32)

  def test_empty_tree(self):
    self.assertEqual(_random.tree_split_key_like(jax.random.key(0), {}), {})


class RandomLikeTest(parameterized.TestCase):
  """Tests of tree_random_like."""

  @parameterized.parameters(False, True)
  def test_normal_matches_per_leaf_sampling(self, use_jit):
    key = jax.random.key(42)
    fn = _random.tree_random_like
    if use_jit:
      fn = jax.jit(fn)
    out = fn(key, _target())
    keys = jax.random.split(key, 3)
    np.testing.assert_array_equal(
        out['a'], jax.random.normal(keys[0], (2, 3), jnp.bfloat16))
    np.testing.assert_array_equal(
        out['b'][0], jax.random.normal(keys[1], (4,), jnp.float32))
    np.testing.assert_array_equal(
        out['c'], jax.random.normal(keys[2], (), jnp.float32))
    self.assertIsNone(out['b'][1])

  def test_dtype_override_and_sampler(self):
    sampler = functools.partial(jax.random.uniform, minval=2.0, maxval=3.0)
    out = _random.tree_random_like(
        jax.random.key(0), _target(), sampler=sampler, dtype=jnp.float32)
    for leaf in jax.tree.leaves(out):
      self.assertEqual(leaf.dtype, jnp.float32)
      self.assertTrue(np.all((np.asarray(leaf) >= 2.0)
                             & (np.asarray(leaf) < 3.0)))

  def test_shape_dtype_struct_target(self):
    target = {'w': jax.ShapeDtypeStruct((3, 2), jnp.bfloat16)}
    out = _random.tree_random_like(jax.random.key(0), target)
    self.assertEqual(out['w'].shape, (3, 2))
    self.assertEqual(out['w'].dtype, jnp.bfloat16)

  def test_statistics(self):
    out = _random.tree_random_like(
        jax.random.key(3), {'a': jnp.zeros(20000)})
    self.assertAlmostEqual(float(jnp.mean(out['a'])), 0.0, delta=0.05)
    self.assertAlmostEqual(float(jnp.std(out['a'])), 1.0, delta=0.05)


class UnwrapKeyDataTest(absltest.TestCase):
  """Tests of tree_unwrap_random_key_data."""

  def test_unwraps_only_typed_keys(self):
    key = jax.random.key(7)
    tree = {'k': key, 'ks': jax.random.split(key, 2),
            'raw': jax.random.PRNGKey(7), 'x': jnp.ones(2), 'n': None}
    out = _random.tree_unwrap_random_key_data(tree)
    np.testing.assert_array_equal(out['k'], jax.random.key_data(key))
    self.assertEqual(out['ks'].shape, (2, 2))
    self.assertEqual(out['k'].dtype, jnp.uint32)
    self.assertIs(out['x'], tree['x'])
    self.assertIs(out['raw'], tree['raw'])
    self.assertIsNone(out['n'])


if __name__ == '__main__':
  absltest.main()
