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
"""Tests for smooth_labels."""

from absl.testing import absltest
from absl.testing import parameterized
import jax
import jax.numpy as jnp
import numpy as np
from numpy.testing import assert_allclose

from optax.losses import _smoothing


class SmoothLabelsTest(parameterized.TestCase):

  def setUp(self):
    super().setUp()
    self.labels = jax.nn.one_hot(jnp.array([0, 3, 1]), 4)

  @parameterized.parameters(
      (0.0, True), (0.1, False), (0.3, True), (1.0, False))
  def test_mixes_with_uniform(self, alpha, jit):
    fn = jax.jit(_smoothing.smooth_labels) if jit else (
        _smoothing.smooth_labels)
    expected = (1 - alpha) * np.asarray(self.labels) + alpha / 4
    assert_allclose(fn(self.labels, alpha), expected, rtol=1e-6)
    # Still distributions.
    assert_allclose(np.sum(fn(self.labels, alpha), -1), 1.0, rtol=1e-6)

  def test_axis(self):
    assert_allclose(_smoothing.smooth_labels(self.labels.T, 0.2, axis=0),
                    (0.8 * np.asarray(self.labels) + 0.05).T, rtol=1e-6)
    labels3 = np.asarray(self.labels).reshape(3, 2, 2)
    assert_allclose(
        _smoothing.smooth_labels(labels3, 0.2, axis=(1, 2)),
        0.8 * labels3 + 0.05, rtol=1e-6)

  def test_where_counts_only_valid_classes(self):
    where = np.array([[True, True, False, True],
                      [True, False, False, True],
                      [True, True, True, True]])
    expected = (0.8 * np.asarray(self.labels)
                + 0.2 / where.sum(-1, keepdims=True))
    assert_allclose(_smoothing.smooth_labels(self.labels, 0.2, where=where),
                    expected, rtol=1e-6)
    assert_allclose(
        _smoothing.smooth_labels(self.labels, 0.2, where=where[0]),
        0.8 * np.asarray(self.labels) + 0.2 / 3, rtol=1e-6)

  def test_dtype_and_errors(self):
    out = _smoothing.smooth_labels(self.labels.astype(jnp.bfloat16), 0.1)
    self.assertEqual(out.dtype, jnp.bfloat16)
    out = _smoothing.smooth_labels(self.labels.astype(jnp.bfloat16), 0.1,
                                   where=np.ones(4, bool))
    self.assertEqual(out.dtype, jnp.bfloat16)
    with self.assertRaisesRegex(TypeError, 'floating dtype'):
      _smoothing.smooth_labels(jnp.array([[1, 0]]), 0.1)


if __name__ == '__main__':
  absltest.main()
