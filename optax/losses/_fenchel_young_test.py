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
"""Tests for make_fenchel_young_loss."""

from absl.testing import absltest
from absl.testing import parameterized
import jax
import jax.numpy as jnp
from jax.scipy.special import logsumexp
import numpy as np
from numpy.testing import assert_allclose
from scipy import special

from optax.losses import _fenchel_young


class FenchelYoungTest(parameterized.TestCase):

  def setUp(self):
    super().setUp()
    rng = np.random.RandomState(0)
    self.scores = rng.randn(4, 5).astype(np.float32)
    targets = rng.rand(4, 5)
    self.targets = (targets / targets.sum(-1, keepdims=True)).astype(
        np.float32)

  @parameterized.parameters(True, False)
  def test_logsumexp_gives_cross_entropy_up_to_entropy(self, jit):
    loss_fn = _fenchel_young.make_fenchel_young_loss(logsumexp)
    loss_fn = jax.jit(loss_fn) if jit else loss_fn
    scores = self.scores.astype(np.float64)
    expected = (special.logsumexp(scores, -1)
                - np.sum(self.targets * scores, -1))
    assert_allclose(loss_fn(self.scores, self.targets), expected, rtol=1e-6)

  def test_gradient_is_prediction_minus_target(self):
    loss_fn = _fenchel_young.make_fenchel_young_loss(logsumexp)
    grad = jax.grad(lambda s: jnp.sum(loss_fn(s, self.targets)))(self.scores)
    expected = special.softmax(self.scores.astype(np.float64), -1) - (
        self.targets)
    assert_allclose(grad, expected, rtol=1e-5, atol=1e-6)

  def test_batch_axes_broadcast(self):
    loss_fn = _fenchel_young.make_fenchel_young_loss(logsumexp)
    scores3 = np.stack([self.scores, 2 * self.scores])
    out = loss_fn(scores3, self.targets)
    self.assertEqual(out.shape, (2, 4))
    assert_allclose(out[1], loss_fn(2 * self.scores, self.targets),
                    rtol=1e-6)
    self.assertEqual(loss_fn(self.scores[0], self.targets[0]).shape, ())

  def test_max_fun_sees_vectors_and_gets_extra_arguments(self):
    shapes = []

    def smoothed_max(s, temperature, *, scale=1.0):
      shapes.append(s.shape)
      return scale * temperature * logsumexp(s / temperature)

    loss_fn = _fenchel_young.make_fenchel_young_loss(smoothed_max)
    out = loss_fn(self.scores, self.targets, 0.5, scale=2.0)
    scores = self.scores.astype(np.float64)
    expected = (2.0 * 0.5 * special.logsumexp(scores / 0.5, -1)
                - np.sum(self.targets * scores, -1))
    assert_allclose(out, expected, rtol=1e-6)
    self.assertIn((5,), shapes)

  def test_core_dimension_mismatch_raises(self):
    loss_fn = _fenchel_young.make_fenchel_young_loss(logsumexp)
    with self.assertRaisesRegex(ValueError, 'last'):
      loss_fn(self.scores, np.ones((4, 6), np.float32))


if __name__ == '__main__':
  absltest.main()
