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
"""Tests for ``optax._src.testing.hlo``."""

from absl.testing import absltest
import jax
import jax.numpy as jnp

from optax._src.testing import hlo


class FusedKernelScalarsTest(absltest.TestCase):
  """Tests of fused_kernel_scalars."""

  def test_counts_rank0_operands_other_than_constants(self):
    text = '\n'.join([
        'ENTRY %main (p0: f32[4], p1: f32[]) -> f32[4] {',
        '  %p0 = f32[4]{0} parameter(0)',
        '  %p1 = f32[] parameter(1)',
        '  %two = f32[] constant(2)',
        '  %s = f32[] fusion(%p1, %two), kind=kLoop, calls=%f0',
        '  ROOT %out = f32[4]{0} fusion(%p0, %s, %two, %p1), kind=kLoop,'
        ' calls=%f1',
        '}'])
    # %s (computed) and %p1 (an argument) are read at run time, %two is a
    # constant, and the scalar fusion %s is not a kernel over an array.
    self.assertEqual(hlo.fused_kernel_scalars(text), [('f32[4]{0}', 2)])
    typed = text.replace('(%p0, %s, %two, %p1)',
                         '(f32[4]{0} %p0, f32[] %s, /*index=2*/f32[] %two,'
                         ' f32[] %p1)')
    self.assertEqual(hlo.fused_kernel_scalars(typed),
                     [('f32[4]{0}', 2)])
    multi_output = text.replace('ROOT %out = f32[4]{0} fusion',
                                'ROOT %out = (f32[4]{0}, f32[4]{0}) fusion')
    self.assertEqual(hlo.fused_kernel_scalars(multi_output),
                     [('(f32[4]{0}, f32[4]{0})', 2)])

  def test_a_number_is_folded_and_an_argument_is_read(self):
    x = jnp.ones(64)

    def kernels(fn, *args):
      compiled = jax.jit(fn).lower(*args).compile(
          compiler_options=hlo.GPU_ORDER_FUSION)
      return [count for _, count in
              hlo.fused_kernel_scalars(compiled.as_text())]

    self.assertEqual(kernels(lambda x: jnp.exp(x * 3.0) + 1.0, x), [0])
    self.assertEqual(
        kernels(lambda x, s: jnp.exp(x * s) + 1.0, x, jnp.float32(3.0)), [1])


if __name__ == '__main__':
  absltest.main()
