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
"""Tests for `optax._src.numerics`."""

from absl.testing import absltest
from absl.testing import parameterized
import jax
import jax.numpy as jnp
import numpy as np

from optax._src import base
from optax._src import numerics
from optax._src import utils


class AbsSqTest(parameterized.TestCase):
  """Tests of abs_sq."""

  @parameterized.parameters(np.float32, np.complex64)
  def test_matches_numpy(self, dtype):
    if np.issubdtype(dtype, np.complexfloating):
      x = np.array([3 + 4j, -1.5, 2j, 0.0], dtype)
    else:
      x = np.array([3.0, -1.5, 2.0, 0.0], dtype)
    expected = np.abs(x) ** 2
    for fn in (numerics.abs_sq, jax.jit(numerics.abs_sq)):
      result = fn(jnp.asarray(x))
      np.testing.assert_allclose(result, expected, rtol=1e-6)
      self.assertEqual(result.dtype, jnp.float32)

  def test_numpy_input(self):
    np.testing.assert_allclose(numerics.abs_sq(np.array([-3.0])), [9.0])

  def test_rejects_non_arrays(self):
    with self.assertRaisesRegex(ValueError, 'abs_sq'):
      numerics.abs_sq(3.0)


class SafeNormTest(parameterized.TestCase):
  """Tests of safe_norm."""

  def setUp(self):
    super().setUp()
    self.x = np.array([[3.0, 4.0], [0.0, 0.0], [1e-4, 0.0]], np.float32)

  @parameterized.parameters(None, 1, 2, np.inf)
  def test_values_along_axis(self, ord):  # pylint: disable=redefined-builtin
    min_norm = 1e-3
    expected = np.maximum(
        np.linalg.norm(self.x, ord=ord, axis=1), min_norm)
    for fn in (numerics.safe_norm, jax.jit(
        numerics.safe_norm, static_argnames=('ord', 'axis', 'keepdims'))):
      np.testing.assert_allclose(
          fn(jnp.asarray(self.x), min_norm, ord=ord, axis=1), expected,
          rtol=1e-6)

  def test_keepdims_and_full_reduction(self):
    out = numerics.safe_norm(jnp.asarray(self.x), 1e-3, axis=1, keepdims=True)
    self.assertEqual(out.shape, (3, 1))
    np.testing.assert_allclose(
        numerics.safe_norm(jnp.asarray(self.x), 1e-3),
        np.linalg.norm(self.x), rtol=1e-6)

  def test_gradient_is_finite_and_zero_below_floor(self):
    def total(x):
      return jnp.sum(numerics.safe_norm(x, 1e-3, axis=1))
    grad = jax.grad(total)(jnp.asarray(self.x))
    np.testing.assert_allclose(grad[0], [0.6, 0.8], rtol=1e-6)
    np.testing.assert_array_equal(grad[1:], np.zeros((2, 2)))

  def test_gradient_at_zero_with_zero_floor(self):
    grad = jax.grad(lambda x: numerics.safe_norm(x, 0.0))(jnp.zeros(3))
    np.testing.assert_array_equal(grad, np.zeros(3))

  def test_array_floor(self):
    out = numerics.safe_norm(jnp.zeros(2), jnp.asarray(0.5, jnp.float32))
    np.testing.assert_allclose(out, 0.5)


class SafeRootMeanSquaresTest(absltest.TestCase):
  """Tests of safe_root_mean_squares."""

  def test_values(self):
    x = np.array([1.0, -2.0, 3.0], np.float32)
    np.testing.assert_allclose(
        numerics.safe_root_mean_squares(jnp.asarray(x), 1e-3),
        np.sqrt(np.mean(x ** 2)), rtol=1e-6)
    np.testing.assert_allclose(
        numerics.safe_root_mean_squares(jnp.zeros(3), 1e-3), 1e-3)

  def test_gradients(self):
    x = jnp.array([3.0, 4.0])
    grad = jax.grad(lambda v: numerics.safe_root_mean_squares(v, 1e-3))(x)
    # d/dx sqrt(mean(x^2)) = x / (n * rms).
    rms = np.sqrt(12.5)
    np.testing.assert_allclose(grad, np.array([3.0, 4.0]) / (2 * rms),
                               rtol=1e-6)
    zero_grad = jax.grad(
        lambda v: numerics.safe_root_mean_squares(v, 0.0))(jnp.zeros(3))
    np.testing.assert_array_equal(zero_grad, np.zeros(3))


class SafeIncrementTest(parameterized.TestCase):
  """Tests of safe_increment and its old name safe_int32_increment."""

  @parameterized.parameters(jnp.int32, jnp.int8, jnp.uint32, jnp.float32)
  def test_increments(self, dtype):
    for fn in (numerics.safe_increment, jax.jit(numerics.safe_increment)):
      out = fn(jnp.asarray(5, dtype))
      self.assertEqual(out.dtype, dtype)
      self.assertEqual(int(out), 6)

  @parameterized.parameters(jnp.int32, jnp.int8, jnp.uint32)
  def test_saturates_integers(self, dtype):
    top = np.iinfo(dtype).max
    for fn in (numerics.safe_increment, jax.jit(numerics.safe_increment)):
      out = fn(jnp.asarray(top, dtype))
      self.assertEqual(out.dtype, dtype)
      self.assertEqual(int(out), top)
      self.assertEqual(int(fn(jnp.asarray(top - 1, dtype))), top)

  def test_saturates_float(self):
    top = np.finfo(np.float32).max
    out = numerics.safe_increment(jnp.asarray(top, jnp.float32))
    self.assertEqual(float(out), float(top))
    self.assertTrue(np.isfinite(out))

  def test_int32_alias(self):
    top = np.iinfo(np.int32).max
    self.assertEqual(
        int(numerics.safe_int32_increment(jnp.asarray(top, jnp.int32))), top)
    self.assertEqual(
        int(numerics.safe_int32_increment(jnp.asarray(0, jnp.int32))), 1)

  def test_rejects_bool(self):
    with self.assertRaisesRegex(ValueError, 'safe_increment'):
      numerics.safe_increment(jnp.asarray(True))


class DtypeHelpersTest(parameterized.TestCase):

  @parameterized.parameters(
      (3, True), (0.5, True), (np.float32(0.5), True), (np.int64(2), True),
      (True, False), (np.bool_(True), False), (None, False), ('1', False),
      (jnp.asarray(1.0), False), (abs, False))
  def test_is_number(self, value, expected):
    self.assertIs(numerics.is_number(value), expected)

  def test_promote_dtypes_under_strict_promotion(self):
    with jax.numpy_dtype_promotion('strict'):
      self.assertEqual(
          numerics.promote_dtypes(jnp.bfloat16, jnp.float16), jnp.float32)
      self.assertEqual(
          numerics.promote_dtypes(jnp.bfloat16, jnp.float32, jnp.int32),
          jnp.float32)
      self.assertEqual(numerics.promote_dtypes(jnp.int8), jnp.int8)

  @parameterized.parameters(
      ((jnp.float32, jnp.bfloat16), jnp.bfloat16),
      ((jnp.float32,), jnp.float32),
      ((jnp.float32, jnp.int32), jnp.float32),
      ((jnp.complex64, jnp.float32), jnp.float32),
      ((jnp.float16, jnp.bfloat16), jnp.float32),
      ((jnp.int32,), jnp.float32))
  def test_scalar_state_dtype(self, dtypes, expected):
    params = [jnp.zeros(2, d) for d in dtypes]
    self.assertEqual(numerics.scalar_state_dtype(params), expected)
    structs = [jax.ShapeDtypeStruct((2,), d) for d in dtypes]
    self.assertEqual(numerics.scalar_state_dtype(structs), expected)


class CastTest(parameterized.TestCase):
  """Tests of cast, ScalarsByDtype and the promotion cache."""

  def test_same_dtype_returns_the_input_and_emits_nothing(self):
    x = jnp.arange(3.0)
    self.assertIs(numerics.cast(x, jnp.float32), x)
    jaxpr = jax.make_jaxpr(lambda x: numerics.cast(x, jnp.float32))(x)
    self.assertEmpty(jaxpr.eqns)

  def test_weak_type_is_cast_to_a_strong_type(self):
    x = jnp.asarray(0.5)  # Weakly typed float32.
    self.assertTrue(x.weak_type)
    y = numerics.cast(x, jnp.float32)
    self.assertFalse(y.weak_type)
    self.assertEqual(y.dtype, jnp.float32)

  @parameterized.parameters(
      (jnp.float32, jnp.bfloat16), (jnp.bfloat16, jnp.float32),
      (jnp.float32, jnp.int32), (jnp.complex64, jnp.complex64),
      (jnp.int32, jnp.float32))
  def test_matches_astype(self, src, dst):
    x = jnp.asarray(np.array([-1.7, 0.0, 2.5, 3e4]), src)
    got = numerics.cast(x, dst)
    want = x.astype(dst)
    self.assertEqual(got.dtype, want.dtype)
    self.assertFalse(got.weak_type)
    np.testing.assert_array_equal(np.asarray(got), np.asarray(want))

  def test_float64_target_follows_x64(self):
    with utils.x64_precision():
      x = jnp.ones(2, jnp.float32)
      self.assertEqual(numerics.cast(x, jnp.float64).dtype, jnp.float64)
    x = jnp.ones(2, jnp.float32)
    with self.assertWarnsRegex(UserWarning, 'truncated to dtype float32'):
      self.assertEqual(numerics.cast(x, jnp.float64).dtype, jnp.float32)

  def test_scalars_by_dtype_casts_once_per_dtype(self):
    a, b = jnp.float32(0.9), jnp.float32(0.1)
    scalars = numerics.ScalarsByDtype(a, b)
    got = scalars.get(jnp.dtype(jnp.bfloat16))
    self.assertEqual([x.dtype for x in got], [jnp.bfloat16, jnp.bfloat16])
    self.assertEqual(float(got[0]), float(jnp.bfloat16(0.9)))
    self.assertIs(scalars.get(jnp.dtype(jnp.bfloat16))[0], got[0])
    same = scalars.get(jnp.dtype(jnp.float32))
    self.assertIs(same[0], a)
    self.assertIs(same[1], b)

  def test_scalars_by_dtype_broadcasts_once_per_traced_shape(self):
    scalars = numerics.ScalarsByDtype(jnp.float32(0.5), jnp.float32(2.0))
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
    scalars = numerics.ScalarsByDtype(jnp.float32(3.0))
    three, = scalars.get(jnp.dtype(jnp.float32), jnp.ones((2, 3)))
    self.assertEqual(three.shape, ())

  def test_scalars_stay_scalars_for_a_leaf_sharded_in_its_type(self):
    devices = jax.devices()
    mesh = jax.make_mesh((len(devices),), ('x',), devices=devices)
    leaf = jax.device_put(
        jnp.ones((2 * len(devices), 3)),
        jax.sharding.NamedSharding(mesh, jax.sharding.PartitionSpec('x')))
    self.assertEqual(numerics.explicit_spec(leaf)[0], 'x')
    self.assertIsNone(numerics.explicit_spec(jnp.ones((2, 3))))
    scalars = numerics.ScalarsByDtype(jnp.float32(0.5))
    with jax.set_mesh(mesh):
      half, = jax.jit(lambda x: scalars.get(x.dtype, x))(leaf)
      scaled = jax.jit(lambda x: x * scalars.get(x.dtype, x)[0])(leaf)
    self.assertEqual(half.shape, ())
    self.assertEqual(scaled.sharding.spec[0], 'x')
    np.testing.assert_array_equal(scaled, np.full(leaf.shape, 0.5))

  def test_scalars_by_dtype_traces_one_broadcast_per_shape(self):
    leaves = [jnp.ones((4, 2))] * 5 + [jnp.ones(3)] * 5

    def scale_all(factor, leaves):
      scalars = numerics.ScalarsByDtype(factor)
      return [x * scalars.get(x.dtype, x)[0] for x in leaves]

    jaxpr = jax.make_jaxpr(scale_all)(jnp.float32(2.0), leaves)
    names = [e.primitive.name for e in jaxpr.eqns]
    self.assertEqual(names.count('broadcast_in_dim'), 2)
    self.assertEqual(names.count('mul'), 10)

  def test_promote_dtypes_cache_follows_x64(self):
    self.assertEqual(numerics.promote_dtypes(jnp.float32, float), jnp.float32)
    self.assertEqual(
        numerics.promote_dtypes(jnp.bfloat16, jnp.float16), jnp.float32)
    # An unhashable dtype-like is still promoted.
    self.assertEqual(
        numerics.promote_dtypes(np.dtype('float32'), jnp.bfloat16),
        jnp.float32)


class HyperparameterTest(absltest.TestCase):
  """Tests of hyperparameter_dtype and as_hyperparameter."""

  def test_dtype_follows_x64(self):
    self.assertEqual(numerics.hyperparameter_dtype(), jnp.float32)
    self.assertEqual(numerics.as_hyperparameter(0.9).dtype, jnp.float32)
    with utils.x64_precision():
      self.assertEqual(numerics.hyperparameter_dtype(), jnp.float64)
      self.assertEqual(numerics.as_hyperparameter(0.9).dtype, jnp.float64)

  def test_python_and_array_values_agree(self):
    self.assertEqual(
        numerics.as_hyperparameter(0.9),
        numerics.as_hyperparameter(jnp.asarray(0.9, jnp.float32)))
    self.assertFalse(numerics.as_hyperparameter(0.9).weak_type)


class HyperparameterUnlessTest(absltest.TestCase):
  """Tests of as_hyperparameter_unless."""

  def test_neutral_python_number_gives_none(self):
    self.assertIsNone(numerics.as_hyperparameter_unless(0.0, 0))
    self.assertIsNone(numerics.as_hyperparameter_unless(0, 0))
    self.assertIsNone(numerics.as_hyperparameter_unless(1.0, 1))

  def test_other_values_give_the_hyperparameter(self):
    for value, neutral in ((1e-8, 0), (2.0, 1), (0.0, 1)):
      got = numerics.as_hyperparameter_unless(value, neutral)
      self.assertEqual(got.dtype, jnp.float32)
      self.assertEqual(float(got), np.float32(value))

  def test_arrays_are_never_left_out(self):
    # An array (an injected hyperparameter) may change at run time.
    for value in (jnp.float32(0.0), jnp.zeros((), jnp.float32)):
      got = numerics.as_hyperparameter_unless(value, 0)
      self.assertIsNotNone(got)
      self.assertEqual(float(got), 0.0)
    seen = []
    jax.jit(lambda x: seen.append(
        numerics.as_hyperparameter_unless(x, 0)))(0.0)
    self.assertIsInstance(seen[0], jax.core.Tracer)


class ComplementTest(absltest.TestCase):
  """Tests of hyperparameter_and_complement."""

  def test_python_number_and_array_give_the_same_bits(self):
    for value in (0.9, 0.999, 0.1, 1e-8):
      from_number = numerics.hyperparameter_and_complement(value)
      from_array = numerics.hyperparameter_and_complement(
          jnp.asarray(value, jnp.float32))
      expected = np.float32(1) - np.float32(value)  # IEEE float32.
      for got in (from_number, from_array):
        self.assertEqual([x.dtype for x in got], [jnp.float32] * 2)
        self.assertEqual(np.asarray(got[0]).tobytes(),
                         np.float32(value).tobytes())
        self.assertEqual(np.asarray(got[1]).tobytes(), expected.tobytes())

  def test_number_gives_constants_and_no_equation(self):
    jaxpr = jax.make_jaxpr(
        lambda: numerics.hyperparameter_and_complement(0.9))()
    # Both values are computed in NumPy while tracing: the program holds
    # two float32 constants, nothing for XLA to copy into each leaf.
    self.assertEqual(jaxpr.eqns, [])
    self.assertEqual(
        [np.asarray(c).tobytes() for c in jaxpr.consts] or
        [np.asarray(v.val).tobytes() for v in jaxpr.jaxpr.outvars],
        [np.float32(0.9).tobytes(),
         (np.float32(1) - np.float32(0.9)).tobytes()])

  def test_traced_value_is_derived_in_the_program(self):
    jaxpr = jax.make_jaxpr(numerics.hyperparameter_and_complement)(
        jnp.float32(0.9))
    self.assertEqual([e.primitive.name for e in jaxpr.eqns], ['sub'])

  def test_dtype_follows_x64(self):
    with utils.x64_precision():
      got = numerics.hyperparameter_and_complement(0.5)
      self.assertEqual([x.dtype for x in got], [jnp.float64] * 2)


class ConstantHyperparameterTest(parameterized.TestCase):
  """A Python-number hyperparameter is a constant that XLA folds."""

  @parameterized.parameters('value', 'complement')
  def test_compiled_kernel_reads_no_runtime_scalar(self, kind):
    def step(x):
      if kind == 'value':
        b = numerics.as_hyperparameter(0.9)
        return x * b + x * x
      b, c = numerics.hyperparameter_and_complement(0.9)
      return b * x + c * x * x

    x = jnp.linspace(-1.0, 1.0, 64, dtype=jnp.float32)
    # Compiled as XLA:GPU compiles (barriers kept through fusion): any
    # barrier left around the number would make it a runtime operand.
    hlo = jax.jit(step).lower(x).compile(compiler_options={
        'xla_disable_hlo_passes': 'cse_barrier_expander'}).as_text()
    self.assertNotIn('opt-barrier', hlo)
    fused_operands = [
        line for line in hlo.splitlines()
        if ' fusion(' in line and 'f32[]' in line.split('fusion(')[1]]
    self.assertEqual(fused_operands, [])
    want = (np.float32(0.9) * np.asarray(x) + np.asarray(x) ** 2
            if kind == 'value' else
            np.float32(0.9) * np.asarray(x)
            + (np.float32(1) - np.float32(0.9)) * np.asarray(x) ** 2)
    np.testing.assert_allclose(jax.jit(step)(x), want, rtol=1e-6)

  def test_eager_number_and_array_give_the_same_bits(self):
    x = jnp.linspace(-1.0, 1.0, 16, dtype=jnp.float32)
    for value in (0.9, 0.999, 1e-8):
      b, c = numerics.hyperparameter_and_complement(value)
      rb, rc = numerics.hyperparameter_and_complement(
          jnp.asarray(value, jnp.float32))
      self.assertEqual(np.asarray(b * x + c * x * x).tobytes(),
                       np.asarray(rb * x + rc * x * x).tobytes())


class RealVdotTest(absltest.TestCase):

  def test_real_vdot_accumulates_in_the_given_dtype(self):
    x = {'a': jnp.array([1 + 2j, 3j], jnp.complex64),
         'b': jnp.array([256.0, 1.0], jnp.bfloat16)}
    y = {'a': jnp.array([2 - 1j, 1 + 1j], jnp.complex64),
         'b': jnp.array([1.0, 1.0], jnp.bfloat16)}
    with jax.numpy_dtype_promotion('strict'):
      result = numerics.real_vdot(x, y, jnp.float32)
    self.assertEqual(result.dtype, jnp.float32)
    # Re(conj(1+2j)(2-1j) + conj(3j)(1+1j)) = 0 + 3; 256 + 1 is exact in
    # float32 (in bfloat16 it would round to 256).
    np.testing.assert_allclose(result, 3.0 + 257.0, rtol=1e-6)

  def test_leaf_vdot_conjugates_the_first_argument(self):
    a = jnp.array([[1 + 1j, 2j]], jnp.complex64)
    b = jnp.array([[1.0, 1.0]], jnp.complex64)
    # conj(1+1j) + conj(2j) = 1 - 3j; the (1, 2) shape is kept, not raveled.
    np.testing.assert_allclose(numerics.leaf_vdot(a, b), 1 - 3j)


class AsUpdatesTest(parameterized.TestCase):
  """numerics.as_updates: gradients in the params' floating dtype."""

  @parameterized.parameters('int32', 'int8', 'bool', 'bfloat16', 'float16')
  def test_narrow_gradients_take_the_params_dtype(self, dtype):
    grads = {'a': jnp.array([1, 0], dtype), 'b': None}
    params = {'a': jnp.zeros(2, jnp.float32), 'b': None}
    out, *_ = numerics.as_updates(grads, params)
    self.assertIsNone(out['b'])
    self.assertEqual(out['a'].dtype, jnp.float32)
    np.testing.assert_array_equal(out['a'], [1.0, 0.0])

  def test_ordinary_gradients_are_returned_as_they_are(self):
    grads = {'a': jnp.ones(2), 'b': jnp.ones(3, jnp.bfloat16)}
    params = {'a': jnp.zeros(2), 'b': jnp.zeros(3, jnp.bfloat16)}
    out, out_params, _ = numerics.as_updates(grads, params)
    self.assertIs(out, grads)
    self.assertIs(out_params, params)
    self.assertIs(numerics.as_updates(grads)[0], grads)

  def test_wider_gradients_are_kept(self):
    grads = jnp.ones(2, jnp.float32)
    self.assertIs(
        numerics.as_updates(grads, jnp.zeros(2, jnp.bfloat16))[0], grads)

  def test_integer_gradients_without_floating_params(self):
    for params in (None, jnp.zeros(2, jnp.int32)):
      out, *_ = numerics.as_updates(jnp.array([2, -1]), params)
      self.assertEqual(out.dtype, numerics.hyperparameter_dtype())

  def test_mismatched_trees_leave_errors_to_the_transformations(self):
    grads = {'a': jnp.array([1, 2])}
    out, *_ = numerics.as_updates(grads, {'b': jnp.zeros(2, jnp.bfloat16)})
    self.assertEqual(out['a'].dtype, jnp.float32)

  def test_under_jit(self):
    out, *_ = jax.jit(numerics.as_updates)(jnp.array([1, 2], jnp.int8),
                                          jnp.zeros(2, jnp.float16))
    self.assertEqual(out.dtype, jnp.float16)


  def test_python_number_leaves_become_arrays(self):
    # Python numbers in the params (a scale kept with the weights) and in
    # the gradients: arrays, the gradient in its param's dtype.
    params = {'w': jnp.ones(2, jnp.bfloat16), 'f': 1.5, 'i': 2}
    grads = {'w': jnp.ones(2, jnp.bfloat16), 'f': 0.5, 'i': 1}
    out, out_params, _ = numerics.as_updates(grads, params)
    self.assertIs(out['w'], grads['w'])
    self.assertIs(out_params['w'], params['w'])
    self.assertEqual(out_params['f'].dtype, jnp.float32)
    self.assertEqual(out['f'].dtype, jnp.float32)
    self.assertEqual(float(out['f']), 0.5)
    self.assertEqual(out['i'].dtype, numerics.hyperparameter_dtype())
    self.assertEqual(float(out['i']), 1.0)


  def test_float0_gradients_become_zeros(self):
    params = {'i': jnp.array([1, 2]), 'w': jnp.ones(2), 'n': None}
    grads = jax.grad(lambda p: jnp.sum(p['w'] ** 2), allow_int=True)(params)
    self.assertEqual(grads['i'].dtype, jax.dtypes.float0)
    out, _, float0 = numerics.as_updates(grads, params)
    self.assertIs(out['w'], grads['w'])
    self.assertEqual(out['i'].dtype, numerics.hyperparameter_dtype())
    np.testing.assert_array_equal(out['i'], [0.0, 0.0])
    # The final updates of those leaves are zeroed (a weight decay of an
    # integer param would not be zero), the others kept.
    final = float0.zero({'i': jnp.array([0.5, 1.0]), 'w': out['w'],
                         'n': None})
    np.testing.assert_array_equal(final['i'], [0, 0])
    # In the integer param's dtype: apply_updates leaves it an int32 array.
    self.assertEqual(final['i'].dtype, params['i'].dtype)
    self.assertIs(final['w'], out['w'])
    self.assertIsNone(numerics.as_updates(out, params)[2])

  def test_float0_without_params_gives_float_zeros(self):
    grads = {'i': np.zeros(2, jax.dtypes.float0), 'w': jnp.ones(2)}
    out, _, float0 = numerics.as_updates(grads)
    final = float0.zero({'i': out['i'] + 0.5, 'w': out['w']})
    self.assertEqual(final['i'].dtype, numerics.hyperparameter_dtype())
    np.testing.assert_array_equal(final['i'], [0.0, 0.0])

  def test_preparing_inputs_on_a_transformation_alone(self):
    tx = numerics.preparing_inputs('scale', base.GradientTransformation(
        lambda params: base.EmptyState(),
        lambda updates, state, params=None: (
            jax.tree.map(lambda g: 0.5 * g, updates), state)))
    params = {'w': jnp.array([1.0, 2.0]), 'f': 1.5, 'i': jnp.array([3, 4])}
    grads = jax.grad(lambda p: jnp.sum(p['w'] * p['f']), allow_int=True)(
        params)
    grads['w'] = jnp.array([4, -2])  # Integer gradients.
    updates, _ = tx.update(grads, tx.init(params), params)
    np.testing.assert_array_equal(updates['w'], [2.0, -1.0])
    self.assertEqual(updates['w'].dtype, jnp.float32)
    self.assertEqual(updates['i'].dtype, jnp.int32)
    np.testing.assert_array_equal(updates['i'], [0, 0])
    self.assertEqual(updates['f'].dtype, jnp.float32)
    with self.assertRaisesRegex(
        ValueError, r"scale: at \['w'\] the gradient has shape \(1, 2\) but"
        r' the param has shape \(2,\)'):
      tx.update(dict(grads, w=jnp.ones((1, 2))), tx.init(params), params)
    self.assertIsInstance(tx, base.GradientTransformation)
    self.assertNotIsInstance(tx, base.GradientTransformationExtraArgs)



class CheckShapesLikeParamsTest(parameterized.TestCase):
  """numerics.check_shapes_like_params, plain and per example."""

  def test_plain_shapes_must_equal_the_params(self):
    params = {'w': jnp.zeros((4, 3)), 'b': None}
    numerics.check_shapes_like_params(
        'f', {'w': jnp.ones((4, 3)), 'b': None}, params)
    with self.assertRaisesRegex(
        ValueError, r"^f: at \['w'\] the gradient has shape \(1, 3\) but"
        r' the param has shape \(4, 3\)\. Remedy'):
      numerics.check_shapes_like_params(
          'f', {'w': jnp.ones((1, 3)), 'b': None}, params)
    # Another structure is left to the transformation's own checks.
    numerics.check_shapes_like_params('f', {'w': jnp.ones((1, 3))}, params)

  @parameterized.parameters((4, 3), (8, 1, 3), (3,))
  def test_per_example_shapes_need_the_param_after_a_batch_axis(self, *shape):
    params = {'w': jnp.zeros((4, 3))}
    with self.assertRaisesRegex(
        ValueError, r"^g: at \['w'\] the per-example gradient has shape"
        rf' \({shape[0]},.*\) but the param has shape \(4, 3\)\. Remedy:'
        r' give one gradient per example, shaped \(batch_size, 4, 3\)'):
      numerics.check_shapes_like_params(
          'g', {'w': jnp.ones(shape)}, params, per_example=True)
    numerics.check_shapes_like_params(
        'g', {'w': jnp.ones((8, 4, 3))}, params, per_example=True)
    with self.assertRaisesRegex(ValueError, 'at the root the per-example'):
      numerics.check_shapes_like_params(
          'g', jnp.ones(()), jnp.ones(()), per_example=True)


if __name__ == '__main__':
  absltest.main()
