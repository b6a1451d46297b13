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
"""Tests for `moments.py`."""

from absl.testing import absltest
import jax
import jax.numpy as jnp
import numpy as np

from optax._src import moments


class ScaleLeavesTest(absltest.TestCase):

  def test_keeps_leaf_dtypes(self):
    tree = {'a': jnp.array([2.0, 4.0], jnp.bfloat16), 'b': jnp.ones(1)}
    out = moments.scale_leaves(jnp.float32(0.25), tree)
    self.assertEqual(out['a'].dtype, jnp.bfloat16)
    self.assertEqual(out['b'].dtype, jnp.float32)
    np.testing.assert_array_equal(out['a'].astype(np.float32), [0.5, 1.0])
    np.testing.assert_array_equal(out['b'], [0.25])


class MomentFormulasTest(absltest.TestCase):

  def test_no_eps_root_is_bitwise_eps_root_zero(self):
    m = jnp.array([1.0, -2.0, 3e-3, 0.0])
    v = jnp.array([4.0, 1e-12, 7.0, 0.0])
    without = moments.adam_ratio(m, v, jnp.float32(1e-8), None)
    with_zero = moments.adam_ratio(m, v, jnp.float32(1e-8), jnp.float32(0.0))
    self.assertEqual(np.asarray(without).tobytes(),
                     np.asarray(with_zero).tobytes())

  def test_nesterov_first_moment_matches_formula(self):
    beta1, t = 0.9, 3
    g = np.array([0.5, -1.0], np.float32)
    m = np.array([0.2, 0.1], np.float32)
    expected = (beta1 * m / (1 - beta1 ** (t + 1))
                + (1 - beta1) * g / (1 - beta1 ** t))
    out = moments.nesterov_first_moment(
        {'x': jnp.asarray(g)}, {'x': jnp.asarray(m, jnp.bfloat16)},
        jnp.float32(beta1), jnp.int32(t))
    self.assertEqual(out['x'].dtype, jnp.bfloat16)
    np.testing.assert_allclose(out['x'].astype(np.float32), expected,
                               rtol=1e-2)


class LeafFormulasTest(absltest.TestCase):

  def test_decay_complement_from_rounded_rate(self):
    b = moments.Decay.of(0.9)
    self.assertEqual(b.rate.dtype, jnp.float32)
    # 1 - float32(0.9) in float32: what an injected float32 array gives.
    self.assertEqual(np.asarray(b.complement),
                     np.float32(1) - np.float32(0.9))
    np.testing.assert_allclose(b.correction(jnp.int32(2)),
                               1 - np.float32(0.9) ** 2, rtol=1e-6)

  def test_decay_is_a_pytree(self):
    b = moments.Decay.of(jnp.float32(0.5))
    leaves, treedef = jax.tree.flatten(b)
    self.assertLen(leaves, 2)
    again = jax.tree.unflatten(treedef, leaves)
    self.assertEqual(float(again.complement), 0.5)
    doubled = jax.jit(lambda d: d.rate + d.complement)(b)
    self.assertEqual(float(doubled), 1.0)

  def test_first_moment_widens_a_narrow_moment(self):
    g = jnp.array([1.0, -2.0], jnp.float32)
    m = jnp.array([0.5, 0.25], jnp.bfloat16)
    out = moments.first_moment(g, m, moments.Decay.of(0.75))
    self.assertEqual(out.dtype, jnp.float32)
    np.testing.assert_allclose(out, 0.75 * np.array([0.5, 0.25])
                               + 0.25 * np.array([1.0, -2.0]), rtol=1e-7)

  def test_second_moment_of_complex_updates_is_real(self):
    g = jnp.array([3.0 + 4.0j], jnp.complex64)
    v = jnp.zeros(1, jnp.float32)
    out = moments.second_moment(g, v, moments.Decay.of(0.5))
    self.assertEqual(out.dtype, jnp.float32)
    np.testing.assert_allclose(out, [12.5], rtol=1e-7)

  def test_debiased_first_plain_and_look_ahead(self):
    beta1, t = 0.9, 3
    g = np.array([0.5, -1.0], np.float32)
    m = np.array([0.2, 0.1], np.float32)
    b = moments.Decay.of(beta1)
    bc, bc_next = b.correction(jnp.int32(t)), b.correction(jnp.int32(t + 1))
    plain = moments.debiased_first(g, jnp.asarray(m), b, bc, None)
    np.testing.assert_allclose(plain, m / (1 - beta1 ** t), rtol=1e-6)
    ahead = moments.debiased_first(g, jnp.asarray(m), b, bc, bc_next)
    np.testing.assert_allclose(
        ahead, beta1 * m / (1 - beta1 ** (t + 1))
        + (1 - beta1) * g / (1 - beta1 ** t), rtol=1e-6)

  def test_debiased_and_adam_ratio(self):
    m = jnp.array([0.2, -0.4], jnp.bfloat16)
    v = jnp.array([0.04, 0.16], jnp.float32)
    m_hat = moments.debiased(m, jnp.float32(0.5))
    self.assertEqual(m_hat.dtype, jnp.bfloat16)
    out = moments.adam_ratio(m_hat, v, jnp.float32(1e-8), None)
    self.assertEqual(out.dtype, jnp.float32)
    m64 = np.asarray(m_hat, np.float64)
    np.testing.assert_allclose(out, m64 / (np.sqrt([0.04, 0.16]) + 1e-8),
                               rtol=1e-6)
    rooted = moments.adam_ratio(m_hat, v, jnp.float32(0.0),
                                jnp.float32(0.05))
    np.testing.assert_allclose(rooted, m64 / np.sqrt([0.09, 0.21]),
                               rtol=1e-6)


if __name__ == '__main__':
  absltest.main()
