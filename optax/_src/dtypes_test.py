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
"""Tests for `optax._src.dtypes`."""

import warnings

from absl.testing import absltest
from absl.testing import parameterized
import jax
import jax.numpy as jnp
import numpy as np

from optax._src import dtypes
from optax._src import utils


class PromoteDtypesTest(parameterized.TestCase):
  """Tests of promote_dtypes and scalar_state_dtype."""

  def test_promote_dtypes_under_strict_promotion(self):
    with jax.numpy_dtype_promotion('strict'):
      self.assertEqual(
          dtypes.promote_dtypes(jnp.bfloat16, jnp.float16), jnp.float32)
      self.assertEqual(
          dtypes.promote_dtypes(jnp.bfloat16, jnp.float32, jnp.int32),
          jnp.float32)
      self.assertEqual(dtypes.promote_dtypes(jnp.int8), jnp.int8)

  @parameterized.parameters(
      ((jnp.float32, jnp.bfloat16), jnp.bfloat16),
      ((jnp.float32,), jnp.float32),
      ((jnp.float32, jnp.int32), jnp.float32),
      ((jnp.complex64, jnp.float32), jnp.float32),
      ((jnp.float16, jnp.bfloat16), jnp.float32),
      ((jnp.int32,), jnp.float32))
  def test_scalar_state_dtype(self, leaf_dtypes, expected):
    params = [jnp.zeros(2, d) for d in leaf_dtypes]
    self.assertEqual(dtypes.scalar_state_dtype(params), expected)
    structs = [jax.ShapeDtypeStruct((2,), d) for d in leaf_dtypes]
    self.assertEqual(dtypes.scalar_state_dtype(structs), expected)

  def test_promote_dtypes_cache_follows_x64(self):
    self.assertEqual(dtypes.promote_dtypes(jnp.float32, float), jnp.float32)
    self.assertEqual(
        dtypes.promote_dtypes(jnp.bfloat16, jnp.float16), jnp.float32)
    # An unhashable dtype-like is still promoted.
    self.assertEqual(
        dtypes.promote_dtypes(np.dtype('float32'), jnp.bfloat16),
        jnp.float32)


class CastTest(parameterized.TestCase):
  """Tests of cast and ScalarsByDtype."""

  def test_same_dtype_returns_the_input_and_emits_nothing(self):
    x = jnp.arange(3.0)
    self.assertIs(dtypes.cast(x, jnp.float32), x)
    jaxpr = jax.make_jaxpr(lambda x: dtypes.cast(x, jnp.float32))(x)
    self.assertEmpty(jaxpr.eqns)

  def test_weak_type_is_cast_to_a_strong_type(self):
    x = jnp.asarray(0.5)  # Weakly typed float32.
    self.assertTrue(x.weak_type)
    y = dtypes.cast(x, jnp.float32)
    self.assertFalse(y.weak_type)
    self.assertEqual(y.dtype, jnp.float32)

  @parameterized.parameters(
      (jnp.float32, jnp.bfloat16), (jnp.bfloat16, jnp.float32),
      (jnp.float32, jnp.int32), (jnp.complex64, jnp.complex64),
      (jnp.int32, jnp.float32))
  def test_matches_astype(self, src, dst):
    x = jnp.asarray(np.array([-1.7, 0.0, 2.5, 3e4]), src)
    got = dtypes.cast(x, dst)
    want = x.astype(dst)
    self.assertEqual(got.dtype, want.dtype)
    self.assertFalse(got.weak_type)
    np.testing.assert_array_equal(np.asarray(got), np.asarray(want))

  def test_float64_target_follows_x64(self):
    with utils.x64_precision():
      x = jnp.ones(2, jnp.float32)
      self.assertEqual(dtypes.cast(x, jnp.float64).dtype, jnp.float64)
    x = jnp.ones(2, jnp.float32)
    with self.assertWarnsRegex(UserWarning, 'truncated to dtype float32'):
      self.assertEqual(dtypes.cast(x, jnp.float64).dtype, jnp.float32)

  def test_scalars_by_dtype_casts_once_per_dtype(self):
    a, b = jnp.float32(0.9), jnp.float32(0.1)
    scalars = dtypes.ScalarsByDtype(a, b)
    got = scalars.get(jnp.dtype(jnp.bfloat16))
    self.assertEqual([x.dtype for x in got], [jnp.bfloat16, jnp.bfloat16])
    self.assertEqual(float(got[0]), float(jnp.bfloat16(0.9)))
    self.assertIs(scalars.get(jnp.dtype(jnp.bfloat16))[0], got[0])
    same = scalars.get(jnp.dtype(jnp.float32))
    self.assertIs(same[0], a)
    self.assertIs(same[1], b)

  def test_scalars_by_dtype_broadcasts_once_per_traced_shape(self):
    scalars = dtypes.ScalarsByDtype(jnp.float32(0.5), jnp.float32(2.0))
    bf16 = jnp.dtype(jnp.bfloat16)

    def get(a, b, c):
      first = scalars.get(bf16, a)
      self.assertIs(scalars.get(bf16, b)[0], first[0])  # Same shape.
      self.assertIsNot(scalars.get(bf16, c)[0], first[0])
      return first

    half, two = jax.jit(get)(jnp.zeros((2, 3)), jnp.ones((2, 3)),
                             jnp.ones((3, 2)))
    for x, value in ((half, 0.5), (two, 2.0)):
      self.assertEqual((x.shape, x.dtype), ((2, 3), jnp.bfloat16))
      np.testing.assert_array_equal(x, np.full((2, 3), value))
    self.assertEqual(scalars.dtypes, (jnp.float32, jnp.float32))

  def test_scalars_stay_scalars_for_a_concrete_leaf(self):
    # Op by op, a division by a scalar and by its broadcast may differ in
    # the last bit; eager updates keep the scalar form.
    scalars = dtypes.ScalarsByDtype(jnp.float32(3.0))
    three, = scalars.get(jnp.dtype(jnp.float32), jnp.ones((2, 3)))
    self.assertEqual(three.shape, ())

  def test_scalars_stay_scalars_for_a_leaf_sharded_in_its_type(self):
    devices = jax.devices()
    mesh = jax.make_mesh((len(devices),), ('x',), devices=devices)
    leaf = jax.device_put(
        jnp.ones((2 * len(devices), 3)),
        jax.sharding.NamedSharding(mesh, jax.sharding.PartitionSpec('x')))
    scalars = dtypes.ScalarsByDtype(jnp.float32(0.5))
    with jax.set_mesh(mesh):
      half, = jax.jit(lambda x: scalars.get(x.dtype, x))(leaf)
      scaled = jax.jit(lambda x: x * scalars.get(x.dtype, x)[0])(leaf)
    self.assertEqual(half.shape, ())
    self.assertEqual(scaled.sharding.spec[0], 'x')
    np.testing.assert_array_equal(scaled, np.full(leaf.shape, 0.5))

  def test_scalars_by_dtype_traces_one_broadcast_per_shape(self):
    leaves = [jnp.ones((4, 2))] * 5 + [jnp.ones(3)] * 5

    def scale_all(factor, leaves):
      scalars = dtypes.ScalarsByDtype(factor)
      return [x * scalars.get(x.dtype, x)[0] for x in leaves]

    jaxpr = jax.make_jaxpr(scale_all)(jnp.float32(2.0), leaves)
    names = [e.primitive.name for e in jaxpr.eqns]
    self.assertEqual(names.count('broadcast_in_dim'), 2)
    self.assertEqual(names.count('mul'), 10)


class LiftTest(absltest.TestCase):
  """Tests of lift, cast_like and ScalarsByDtype.lift."""

  def test_common_dtype_of_arrays_and_python_numbers(self):
    a, b, c = dtypes.lift(jnp.ones(2, jnp.bfloat16), jnp.float32(2.0), 3)
    self.assertEqual((a.dtype, b.dtype, c.dtype), (jnp.float32,) * 3)
    np.testing.assert_array_equal(c, 3.0)

  def test_strict_promotion(self):
    with jax.numpy_dtype_promotion('strict'):
      a, b = dtypes.lift(jnp.ones(2, jnp.bfloat16), jnp.float32(0.5))
      self.assertEqual(float((a * b).sum()), 1.0)

  def test_promote_with_joins_the_promotion(self):
    x, = dtypes.lift(jnp.ones(2, jnp.bfloat16),
                     promote_with=(jnp.dtype(jnp.float32),))
    self.assertEqual(x.dtype, jnp.float32)

  def test_scalars_lift_casts_leaves_and_scalars_to_one_dtype(self):
    scalars = dtypes.ScalarsByDtype(jnp.float32(0.5))
    x, half = scalars.lift(jnp.ones(2, jnp.bfloat16))
    self.assertEqual((x.dtype, half.dtype), (jnp.float32, jnp.float32))
    self.assertEqual(float(half), 0.5)

  def test_cast_like_reads_result_type(self):
    tree = {'a': jnp.ones(2), 'b': jnp.ones(2), 'c': jnp.ones(2)}
    like = {'a': jnp.zeros(2, jnp.bfloat16), 'b': 0.0,
            'c': np.zeros(2, np.float64)}
    with warnings.catch_warnings():
      warnings.simplefilter('error')
      out = dtypes.cast_like(tree, like)
    self.assertEqual(out['a'].dtype, jnp.bfloat16)
    self.assertEqual(out['b'].dtype, jnp.result_type(0.0))
    self.assertEqual(out['c'].dtype, jnp.result_type(np.float64))


if __name__ == '__main__':
  absltest.main()
