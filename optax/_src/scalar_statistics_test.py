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
"""Tests of the dtype of scalar statistics."""

from absl.testing import absltest
from absl.testing import parameterized
import jax
import jax.numpy as jnp

from optax._src import scalar_statistics


class StatisticsDtypeTest(parameterized.TestCase):

  @parameterized.parameters(
      ((), jnp.float32),
      ((jnp.bfloat16,), jnp.float32),
      ((jnp.float16, jnp.bfloat16), jnp.float32),
      ((jnp.float32, jnp.bfloat16), jnp.float32),
      ((jnp.int32, jnp.bool_), jnp.float32),
      ((jnp.complex64,), jnp.complex64),
      ((jnp.complex64, jnp.bfloat16), jnp.complex64),
  )
  def test_float32_or_wider(self, leaf_dtypes, expected):
    params = [jnp.zeros(2, d) for d in leaf_dtypes]
    self.assertEqual(scalar_statistics.statistics_dtype(params), expected)
    structs = [jax.ShapeDtypeStruct((2,), d) for d in leaf_dtypes]
    self.assertEqual(scalar_statistics.statistics_dtype(structs), expected)

  def test_without_params(self):
    self.assertEqual(scalar_statistics.statistics_dtype(), jnp.float32)

  def test_float64_under_x64(self):
    with jax.enable_x64(True):
      self.assertEqual(scalar_statistics.statistics_dtype(), jnp.float64)
      self.assertEqual(
          scalar_statistics.statistics_dtype([jnp.zeros(2, jnp.bfloat16)]),
          jnp.float64)
      self.assertEqual(
          scalar_statistics.statistics_dtype([jnp.zeros(2, jnp.complex64)]),
          jnp.complex128)


if __name__ == '__main__':
  absltest.main()
