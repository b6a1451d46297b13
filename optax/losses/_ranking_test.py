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
"""Tests for the ranking losses, against a NumPy reference."""

import functools

from absl.testing import absltest
from absl.testing import parameterized
import jax
import jax.numpy as jnp
import numpy as np
from numpy.testing import assert_allclose
from scipy import special

from optax.losses import _ranking


def _np_list_losses(logits, labels, where=None, weights=None):
  """Per-list softmax loss, one list at a time, in float64."""
  logits = np.asarray(logits, np.float64)
  labels = np.broadcast_to(np.asarray(labels, np.float64), logits.shape)
  if weights is not None:
    labels = labels * weights
  if where is None:
    where = np.ones(logits.shape, bool)
  where = np.broadcast_to(where, logits.shape)
  flat_logits = logits.reshape(-1, logits.shape[-1])
  flat_labels = labels.reshape(flat_logits.shape)
  flat_where = where.reshape(flat_logits.shape)
  out = []
  for s, y, w in zip(flat_logits, flat_labels, flat_where):
    if not w.any():
      out.append(0.0)
      continue
    log_probs = special.log_softmax(s[w])
    out.append(-np.sum(y[w] * log_probs))
  return np.array(out).reshape(logits.shape[:-1])


class RankingSoftmaxLossTest(parameterized.TestCase):

  def setUp(self):
    super().setUp()
    rng = np.random.RandomState(0)
    self.logits = rng.randn(5, 6).astype(np.float32)
    self.labels = rng.randint(0, 3, (5, 6)).astype(np.float32)
    self.labels[2] = 0.0  # A list without relevant items.
    self.where = rng.rand(5, 6) < 0.7
    self.where[4] = False  # A list without valid items.
    self.weights = np.abs(rng.randn(5, 6)).astype(np.float32)

  @parameterized.parameters(True, False)
  def test_per_list_losses(self, jit):
    fn = functools.partial(_ranking.ranking_softmax_loss, reduce_fn=None)
    fn = jax.jit(fn) if jit else fn
    assert_allclose(fn(self.logits, self.labels),
                    _np_list_losses(self.logits, self.labels),
                    rtol=1e-6, atol=1e-6)

  def test_reductions(self):
    per_list = _np_list_losses(self.logits, self.labels)
    assert_allclose(_ranking.ranking_softmax_loss(self.logits, self.labels),
                    per_list.mean(), rtol=1e-6)
    assert_allclose(
        _ranking.ranking_softmax_loss(self.logits, self.labels,
                                      reduce_fn=jnp.sum),
        per_list.sum(), rtol=1e-6)

  def test_where(self):
    per_list = _np_list_losses(self.logits, self.labels, where=self.where)
    valid = self.where.any(-1)
    fn = _ranking.ranking_softmax_loss
    assert_allclose(fn(self.logits, self.labels, where=self.where,
                       reduce_fn=None), per_list, rtol=1e-6, atol=1e-6)
    assert_allclose(fn(self.logits, self.labels, where=self.where),
                    per_list[valid].mean(), rtol=1e-6)
    assert_allclose(fn(self.logits, self.labels, where=self.where,
                       reduce_fn=jnp.sum), per_list.sum(), rtol=1e-6)

  def test_reduce_fn_receives_valid_lists(self):
    seen = {}

    def reduce_fn(losses, where=None):
      seen['where'] = where
      return jnp.sum(losses)

    _ranking.ranking_softmax_loss(self.logits, self.labels, where=self.where,
                                  reduce_fn=reduce_fn)
    np.testing.assert_array_equal(seen['where'], self.where.any(-1))
    _ranking.ranking_softmax_loss(self.logits, self.labels,
                                  reduce_fn=reduce_fn)
    self.assertIsNone(seen['where'])

  def test_weights(self):
    fn = _ranking.ranking_softmax_loss
    assert_allclose(
        fn(self.logits, self.labels, weights=self.weights, where=self.where,
           reduce_fn=None),
        _np_list_losses(self.logits, self.labels, where=self.where,
                        weights=self.weights), rtol=1e-6, atol=1e-6)

  def test_all_masked_gives_zero_and_zero_gradient(self):
    where = np.zeros((5, 6), bool)
    fn = functools.partial(_ranking.ranking_softmax_loss, where=where)
    assert_allclose(fn(self.logits, self.labels), 0.0)
    grad = jax.grad(lambda z: fn(z, self.labels))(self.logits)
    assert_allclose(grad, 0.0)

  def test_gradient(self):
    grad = jax.grad(lambda z: _ranking.ranking_softmax_loss(
        z, self.labels, reduce_fn=jnp.sum))(self.logits)
    probs = special.softmax(self.logits.astype(np.float64), -1)
    expected = probs * self.labels.sum(-1, keepdims=True) - self.labels
    assert_allclose(grad, expected, rtol=1e-5, atol=1e-6)

  def test_extreme_and_neg_inf_logits(self):
    logits = np.array([[1e4, -1e4, 0.0], [1.0, -np.inf, 2.0]], np.float32)
    labels = np.array([[1.0, 0.0, 1.0], [1.0, 0.0, 1.0]], np.float32)
    fn = functools.partial(_ranking.ranking_softmax_loss, reduce_fn=None)
    expected = [1e4, -(special.log_softmax([1.0, 2.0]).sum())]
    assert_allclose(fn(logits, labels), expected, rtol=1e-6)
    grad = jax.grad(lambda z: jnp.sum(fn(z, labels)))(logits)
    self.assertTrue(np.all(np.isfinite(grad)))

  def test_batched_and_single_lists(self):
    logits = np.stack([self.logits, 2 * self.logits])
    labels = np.stack([self.labels, self.labels])
    assert_allclose(
        _ranking.ranking_softmax_loss(logits, labels, reduce_fn=None),
        _np_list_losses(logits, labels), rtol=1e-6, atol=1e-6)
    assert_allclose(
        _ranking.ranking_softmax_loss(self.logits[0], self.labels[0]),
        _np_list_losses(self.logits[0], self.labels[0]), rtol=1e-6)

  def test_labels_cast_to_logits_dtype(self):
    loss = _ranking.ranking_softmax_loss(
        jnp.asarray(self.logits, jnp.bfloat16), self.labels > 0)
    self.assertEqual(loss.dtype, jnp.bfloat16)
    with self.assertRaisesRegex(TypeError, 'floating dtype'):
      _ranking.ranking_softmax_loss(np.ones((2, 3), np.int32), np.ones((2, 3)))


if __name__ == '__main__':
  absltest.main()
