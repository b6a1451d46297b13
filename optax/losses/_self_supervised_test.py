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
"""Tests for the self-supervised losses, against NumPy references."""

import functools

from absl.testing import absltest
from absl.testing import parameterized
import jax
import jax.numpy as jnp
import numpy as np
from numpy.testing import assert_allclose

from optax.losses import _self_supervised


def _np_ntxent(embeddings, labels, temperature, epsilon=0.0):
  """NT-Xent by explicit loops over the positive pairs, in float64."""
  e = np.asarray(embeddings, np.float64)
  norms = np.sqrt(np.maximum((e * e).sum(-1, keepdims=True), epsilon))
  unit = e / norms
  sim = unit @ unit.T / temperature
  losses = []
  for i, li in enumerate(labels):
    negatives = [sim[i, k] for k, lk in enumerate(labels) if lk != li]
    for j, lj in enumerate(labels):
      if i != j and li == lj:
        denominator = np.logaddexp.reduce([sim[i, j]] + negatives)
        losses.append(denominator - sim[i, j])
  return np.mean(losses)


class NTXentTest(parameterized.TestCase):

  def setUp(self):
    super().setUp()
    rng = np.random.RandomState(0)
    self.embeddings = rng.randn(8, 5).astype(np.float32)
    self.labels = np.array([0, 1, 0, 2, 1, 0, 2, 3])

  @parameterized.parameters((0.07, True), (0.5, False), (2.0, True))
  def test_matches_reference(self, temperature, jit):
    fn = jax.jit(_self_supervised.ntxent) if jit else _self_supervised.ntxent
    assert_allclose(
        fn(self.embeddings, self.labels, temperature),
        _np_ntxent(self.embeddings, self.labels, temperature), rtol=1e-5)

  def test_gradient_finite_for_zero_embedding_and_small_temperature(self):
    embeddings = self.embeddings.copy()
    embeddings[0] = 0.0
    eps = float(np.finfo(np.float32).eps)
    for temperature in (0.07, 1e-3):
      loss = _self_supervised.ntxent(embeddings, self.labels, temperature)
      assert_allclose(loss, _np_ntxent(embeddings, self.labels, temperature,
                                       epsilon=eps), rtol=1e-5)
      grad = jax.grad(_self_supervised.ntxent)(embeddings, self.labels,
                                               temperature)
      self.assertTrue(np.all(np.isfinite(grad)))

  @parameterized.parameters(True, False)
  def test_no_negatives(self, jit):
    fn = jax.jit(_self_supervised.ntxent) if jit else _self_supervised.ntxent
    labels = np.zeros(8, int)
    assert_allclose(fn(self.embeddings, labels), 0.0, atol=1e-6)
    grad = jax.grad(fn)(self.embeddings, labels)
    self.assertTrue(np.all(np.isfinite(grad)))

  def test_jit_matches_reference_for_large_batch(self):
    # From 256 embeddings on, jaxlib 0.10.2's CPU compiler summed broadcast
    # products wrongly (the loss of these inputs came out 15% too large).
    rng = np.random.RandomState(2)
    embeddings = rng.randn(256, 16).astype(np.float32)
    labels = rng.randint(0, 64, 256)
    loss = jax.jit(_self_supervised.ntxent)(embeddings, labels, 0.07)
    assert_allclose(loss, _np_ntxent(embeddings, labels, 0.07), rtol=1e-5)
    grad = jax.jit(jax.grad(_self_supervised.ntxent))(embeddings, labels, 0.07)
    # Central differences of the float64 reference at a few coordinates.
    e64 = embeddings.astype(np.float64)
    h = 1e-6
    for i, k in ((0, 0), (100, 7), (255, 15)):
      step = np.zeros_like(e64)
      step[i, k] = h
      slope = (_np_ntxent(e64 + step, labels, 0.07)
               - _np_ntxent(e64 - step, labels, 0.07)) / (2 * h)
      assert_allclose(grad[i, k], slope, rtol=1e-3, atol=1e-6)

  def test_errors(self):
    with self.assertRaisesRegex(ValueError, 'leading dimension'):
      _self_supervised.ntxent(self.embeddings, self.labels[:5])
    with self.assertRaisesRegex(TypeError, 'floating dtype'):
      _self_supervised.ntxent(np.ones((4, 2), np.int32), np.arange(4))


def _np_triplet(a, p, n, axis=-1, norm_degree=2, margin=1.0, eps=1e-6):
  a, p, n = (np.asarray(x, np.float64) for x in (a, p, n))
  d_pos = (np.sum((a - p) ** norm_degree, axis) + eps) ** (1 / norm_degree)
  d_neg = (np.sum((a - n) ** norm_degree, axis) + eps) ** (1 / norm_degree)
  return np.maximum(d_pos - d_neg + margin, 0.0)


class TripletMarginLossTest(parameterized.TestCase):

  def setUp(self):
    super().setUp()
    rng = np.random.RandomState(1)
    self.anchors, self.positives, self.negatives = (
        rng.randn(7, 4).astype(np.float32) for _ in range(3))

  @parameterized.parameters(
      (2, 1.0, 1e-6, True), (2, 0.5, 0.0, False), (4, 2.0, 1e-6, True))
  def test_matches_reference(self, norm_degree, margin, eps, jit):
    fn = functools.partial(_self_supervised.triplet_margin_loss,
                           norm_degree=norm_degree, margin=margin, eps=eps)
    fn = jax.jit(fn) if jit else fn
    assert_allclose(
        fn(self.anchors, self.positives, self.negatives),
        _np_triplet(self.anchors, self.positives, self.negatives,
                    norm_degree=norm_degree, margin=margin, eps=eps),
        rtol=1e-5, atol=1e-6)

  def test_axis(self):
    assert_allclose(
        _self_supervised.triplet_margin_loss(
            self.anchors, self.positives, self.negatives, axis=0),
        _np_triplet(self.anchors, self.positives, self.negatives, axis=0),
        rtol=1e-5, atol=1e-6)

  def test_gradient_of_euclidean_distance(self):
    grad = jax.grad(lambda a: jnp.sum(_self_supervised.triplet_margin_loss(
        a, self.positives, self.negatives, margin=10.0)))(self.anchors)
    a, p, n = (x.astype(np.float64) for x in (
        self.anchors, self.positives, self.negatives))
    d_pos = np.sqrt(((a - p) ** 2).sum(-1, keepdims=True) + 1e-6)
    d_neg = np.sqrt(((a - n) ** 2).sum(-1, keepdims=True) + 1e-6)
    assert_allclose(grad, (a - p) / d_pos - (a - n) / d_neg, rtol=1e-4,
                    atol=1e-6)

  def test_zero_distance_has_finite_gradient(self):
    for eps in (1e-6, 0.0):
      grad = jax.grad(lambda a, e=eps: jnp.sum(
          _self_supervised.triplet_margin_loss(
              a, a, self.negatives, eps=e)))(self.anchors)
      self.assertTrue(np.all(np.isfinite(grad)))

  def test_integer_inputs_raise(self):
    with self.assertRaisesRegex(TypeError, 'positives'):
      _self_supervised.triplet_margin_loss(
          self.anchors, np.ones((7, 4), np.int32), self.negatives)


if __name__ == '__main__':
  absltest.main()
