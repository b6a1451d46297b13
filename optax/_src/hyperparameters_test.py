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
"""Tests for `optax._src.hyperparameters`."""

from absl.testing import absltest
from absl.testing import parameterized
import jax
import jax.numpy as jnp
import numpy as np

from optax._src import hyperparameters
from optax._src import utils


class IsNumberTest(parameterized.TestCase):
  """Tests of is_number and is_python_scalar."""

  @parameterized.parameters(
      (3, True), (0.5, True), (np.float32(0.5), True), (np.int64(2), True),
      (True, False), (np.bool_(True), False), (None, False), ('1', False),
      (jnp.asarray(1.0), False), (abs, False), (1j, False),
      (np.complex64(1), False))
  def test_is_number(self, value, expected):
    self.assertIs(hyperparameters.is_number(value), expected)

  @parameterized.parameters(
      (3, True), (0.5, True), (1j, True), (np.complex64(1), True),
      (True, False), (np.bool_(True), False), (jnp.asarray(1.0), False))
  def test_is_number_allowing_complex(self, value, expected):
    self.assertIs(hyperparameters.is_number(value, allow_complex=True),
                  expected)

  @parameterized.parameters(
      (3, True), (0, True), (np.int32(-2), True), (np.uint8(1), True),
      (2.5, False), (2.0, False), (np.float32(1), False), (True, False),
      (np.bool_(True), False), (jnp.asarray(3), False), ('3', False))
  def test_is_number_integral(self, value, expected):
    self.assertIs(hyperparameters.is_number(value, integral=True), expected)

  @parameterized.parameters(
      (True, True), (3, True), (0.5, True), (1j, True),
      (np.float32(0.5), False), (np.bool_(True), False), (None, False),
      (jnp.asarray(1.0), False), ('1', False))
  def test_is_python_scalar(self, value, expected):
    self.assertIs(hyperparameters.is_python_scalar(value), expected)


class HyperparameterTest(absltest.TestCase):
  """Tests of hyperparameter_dtype and as_hyperparameter."""

  def test_dtype_follows_x64(self):
    self.assertEqual(hyperparameters.hyperparameter_dtype(), jnp.float32)
    self.assertEqual(hyperparameters.as_hyperparameter(0.9).dtype, jnp.float32)
    with utils.x64_precision():
      self.assertEqual(hyperparameters.hyperparameter_dtype(), jnp.float64)
      self.assertEqual(hyperparameters.as_hyperparameter(0.9).dtype,
                       jnp.float64)

  def test_python_and_array_values_agree(self):
    self.assertEqual(
        hyperparameters.as_hyperparameter(0.9),
        hyperparameters.as_hyperparameter(jnp.asarray(0.9, jnp.float32)))
    self.assertFalse(hyperparameters.as_hyperparameter(0.9).weak_type)


class HyperparameterUnlessTest(absltest.TestCase):
  """Tests of as_hyperparameter_unless."""

  def test_neutral_python_number_gives_none(self):
    self.assertIsNone(hyperparameters.as_hyperparameter_unless(0.0, 0))
    self.assertIsNone(hyperparameters.as_hyperparameter_unless(0, 0))
    self.assertIsNone(hyperparameters.as_hyperparameter_unless(1.0, 1))

  def test_other_values_give_the_hyperparameter(self):
    for value, neutral in ((1e-8, 0), (2.0, 1), (0.0, 1)):
      got = hyperparameters.as_hyperparameter_unless(value, neutral)
      self.assertEqual(got.dtype, jnp.float32)
      self.assertEqual(float(got), np.float32(value))

  def test_arrays_are_never_left_out(self):
    # An array (an injected hyperparameter) may change at run time.
    for value in (jnp.float32(0.0), jnp.zeros((), jnp.float32)):
      got = hyperparameters.as_hyperparameter_unless(value, 0)
      self.assertIsNotNone(got)
      self.assertEqual(float(got), 0.0)
    seen = []
    jax.jit(lambda x: seen.append(
        hyperparameters.as_hyperparameter_unless(x, 0)))(0.0)
    self.assertIsInstance(seen[0], jax.core.Tracer)


class ComplementTest(absltest.TestCase):
  """Tests of hyperparameter_and_complement."""

  def test_python_number_and_array_give_the_same_bits(self):
    for value in (0.9, 0.999, 0.1, 1e-8):
      from_number = hyperparameters.hyperparameter_and_complement(value)
      from_array = hyperparameters.hyperparameter_and_complement(
          jnp.asarray(value, jnp.float32))
      expected = np.float32(1) - np.float32(value)  # IEEE float32.
      for got in (from_number, from_array):
        self.assertEqual([x.dtype for x in got], [jnp.float32] * 2)
        self.assertEqual(np.asarray(got[0]).tobytes(),
                         np.float32(value).tobytes())
        self.assertEqual(np.asarray(got[1]).tobytes(), expected.tobytes())

  def test_number_gives_constants_and_no_equation(self):
    jaxpr = jax.make_jaxpr(
        lambda: hyperparameters.hyperparameter_and_complement(0.9))()
    # Both values are computed in NumPy while tracing: the program holds
    # two float32 constants, nothing for XLA to copy into each leaf.
    self.assertEqual(jaxpr.eqns, [])
    self.assertEqual(
        [np.asarray(c).tobytes() for c in jaxpr.consts] or
        [np.asarray(v.val).tobytes() for v in jaxpr.jaxpr.outvars],
        [np.float32(0.9).tobytes(),
         (np.float32(1) - np.float32(0.9)).tobytes()])

  def test_traced_value_is_derived_in_the_program(self):
    jaxpr = jax.make_jaxpr(hyperparameters.hyperparameter_and_complement)(
        jnp.float32(0.9))
    self.assertEqual([e.primitive.name for e in jaxpr.eqns], ['sub'])

  def test_dtype_follows_x64(self):
    with utils.x64_precision():
      got = hyperparameters.hyperparameter_and_complement(0.5)
      self.assertEqual([x.dtype for x in got], [jnp.float64] * 2)


class ConstantHyperparameterTest(parameterized.TestCase):
  """A Python-number hyperparameter is a constant that XLA folds."""

  @parameterized.parameters('value', 'complement')
  def test_compiled_kernel_reads_no_runtime_scalar(self, kind):
    def step(x):
      if kind == 'value':
        b = hyperparameters.as_hyperparameter(0.9)
        return x * b + x * x
      b, c = hyperparameters.hyperparameter_and_complement(0.9)
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
      b, c = hyperparameters.hyperparameter_and_complement(value)
      rb, rc = hyperparameters.hyperparameter_and_complement(
          jnp.asarray(value, jnp.float32))
      self.assertEqual(np.asarray(b * x + c * x * x).tobytes(),
                       np.asarray(rb * x + rc * x * x).tobytes())


if __name__ == '__main__':
  absltest.main()
