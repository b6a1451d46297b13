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
"""Tests for the segmentation losses, against NumPy references."""

import functools

from absl.testing import absltest
from absl.testing import parameterized
import jax
import jax.numpy as jnp
import numpy as np
from numpy.testing import assert_allclose
from scipy import special

from optax.losses import _segmentation


def _np_tversky(probs, targets, axes, smooth=1.0, alpha=0.5, beta=0.5):
  p = np.asarray(probs, np.float64)
  t = np.asarray(targets, np.float64)
  tp = np.sum(p * t, axis=axes)
  fp = np.sum(p * (1 - t), axis=axes)
  fn = np.sum((1 - p) * t, axis=axes)
  return 1 - (tp + smooth) / (tp + alpha * fp + beta * fn + smooth)


def _np_generalized_dice(probs, targets, smooth=1.0, ignore_background=False):
  p = np.asarray(probs, np.float64)
  t = np.asarray(targets, np.float64)
  num_classes = p.shape[-1]
  volumes = t.reshape(-1, num_classes).sum(0)
  weights = 1 / (volumes ** 2 + 1e-7)
  weights /= weights.sum()
  losses = _np_tversky(p, t, tuple(range(1, p.ndim - 1)), smooth)
  terms = num_classes * weights * losses
  if ignore_background:
    terms = terms[..., 1:]
  return terms.mean()


class DiceLossTest(parameterized.TestCase):

  def setUp(self):
    super().setUp()
    rng = np.random.RandomState(0)
    self.logits = rng.randn(3, 4, 5, 3).astype(np.float32)
    self.targets = np.eye(3, dtype=np.float32)[rng.randint(0, 3, (3, 4, 5))]
    self.probs = special.softmax(self.logits.astype(np.float64), -1)

  @parameterized.parameters(True, False)
  def test_per_class_losses(self, jit):
    fn = functools.partial(_segmentation.dice_loss, reduction='none')
    fn = jax.jit(fn) if jit else fn
    assert_allclose(fn(self.logits, self.targets),
                    _np_tversky(self.probs, self.targets, (1, 2)),
                    rtol=1e-5, atol=1e-6)

  @parameterized.parameters(
      (0.5, 0.5, 0.0), (0.3, 0.7, 1.0), (1.0, 1.0, 1e-5), (0.5, 0.5, 2.0))
  def test_tversky_parameters(self, alpha, beta, smooth):
    loss = _segmentation.dice_loss(self.logits, self.targets, alpha=alpha,
                                   beta=beta, smooth=smooth, reduction='none')
    assert_allclose(
        loss, _np_tversky(self.probs, self.targets, (1, 2), smooth, alpha,
                          beta), rtol=1e-5, atol=1e-6)

  def test_dice_form(self):
    # alpha = beta = 1/2 is 1 - (2 TP + 2s) / (sum p + sum t + 2s).
    p, t = self.probs, self.targets
    expected = 1 - (2 * (p * t).sum((1, 2)) + 2) / (
        p.sum((1, 2)) + t.sum((1, 2)) + 2)
    assert_allclose(_segmentation.dice_loss(self.logits, self.targets,
                                            reduction='none'),
                    expected, rtol=1e-5, atol=1e-6)

  def test_reductions_weights_and_background(self):
    per_class = _np_tversky(self.probs, self.targets, (1, 2))
    weights = np.array([0.2, 1.0, 3.0])
    fn = functools.partial(_segmentation.dice_loss, self.logits,
                           self.targets)
    assert_allclose(fn(), per_class.mean(-1), rtol=1e-5)
    assert_allclose(fn(reduction='sum'), per_class.sum(-1), rtol=1e-5)
    assert_allclose(fn(class_weights=weights), (per_class * weights).mean(-1),
                    rtol=1e-5)
    assert_allclose(fn(ignore_background=True), per_class[:, 1:].mean(-1),
                    rtol=1e-5)
    assert_allclose(
        fn(class_weights=weights, ignore_background=True, reduction='none'),
        (per_class * weights)[:, 1:], rtol=1e-5)

  def test_axis(self):
    fn = functools.partial(_segmentation.dice_loss, self.logits,
                           self.targets, reduction='none')
    assert_allclose(fn(axis=1), _np_tversky(self.probs, self.targets, (1,)),
                    rtol=1e-5, atol=1e-6)
    assert_allclose(fn(axis=(0, 1, 2)),
                    _np_tversky(self.probs, self.targets, (0, 1, 2)),
                    rtol=1e-5, atol=1e-6)

  def test_probabilities_input(self):
    probs = self.probs.astype(np.float32)
    assert_allclose(
        _segmentation.dice_loss(probs, self.targets, apply_softmax=False),
        _segmentation.dice_loss(self.logits, self.targets), rtol=1e-5)
    # Not checked under jit, where the values are not known.
    fn = jax.jit(functools.partial(_segmentation.dice_loss,
                                   apply_softmax=False))
    assert_allclose(fn(probs, self.targets),
                    _np_tversky(probs, self.targets, (1, 2)).mean(-1),
                    rtol=1e-5)
    with self.assertRaisesRegex(
        ValueError, 'valid probability distributions that sum to 1'):
      _segmentation.dice_loss(probs * 1.3, self.targets, apply_softmax=False)

  def test_single_class_uses_sigmoid(self):
    logits = self.logits[..., :1]
    targets = self.targets[..., :1]
    expected = _np_tversky(special.expit(logits.astype(np.float64)), targets,
                           (1, 2))
    assert_allclose(
        _segmentation.dice_loss(logits, targets, reduction='none'), expected,
        rtol=1e-5)
    # The class axis of the targets, or of the predictions (as upstream
    # 0.2.8), may be left out.
    assert_allclose(
        _segmentation.dice_loss(logits, targets[..., 0], reduction='none'),
        expected, rtol=1e-5)
    assert_allclose(
        _segmentation.dice_loss(logits[..., 0], targets, reduction='none'),
        expected, rtol=1e-5)
    with self.assertRaisesRegex(ValueError, 'Shape mismatch'):
      _segmentation.dice_loss(logits[..., 0], self.targets)

  def test_gradient_finite(self):
    grad = jax.grad(lambda z: jnp.sum(_segmentation.dice_loss(
        z, np.zeros_like(self.targets), smooth=1.0)))(self.logits)
    self.assertTrue(np.all(np.isfinite(grad)))

  def test_errors(self):
    with self.assertRaisesRegex(ValueError, 'Unsupported reduction: max'):
      _segmentation.dice_loss(self.logits, self.targets, reduction='max')
    with self.assertRaisesRegex(ValueError, 'one_hot'):
      _segmentation.dice_loss(self.logits, self.targets.argmax(-1))
    with self.assertRaisesRegex(ValueError, 'Shape mismatch'):
      _segmentation.dice_loss(self.logits, self.targets[..., :2])
    with self.assertRaisesRegex(ValueError, 'class_weights'):
      _segmentation.dice_loss(self.logits, self.targets,
                              class_weights=np.ones(2))

  def test_dtype(self):
    loss = _segmentation.dice_loss(jnp.asarray(self.logits, jnp.bfloat16),
                                   jnp.asarray(self.targets, jnp.bfloat16))
    self.assertEqual(loss.dtype, jnp.bfloat16)


class BinaryDiceLossTest(parameterized.TestCase):

  def setUp(self):
    super().setUp()
    rng = np.random.RandomState(1)
    self.logits = rng.randn(3, 4, 5).astype(np.float32)
    self.masks = (rng.rand(3, 4, 5) < 0.4).astype(np.float32)

  def _reference(self, probs, masks, smooth=1.0):
    p = np.asarray(probs, np.float64).reshape(len(probs), -1)
    t = masks.reshape(len(masks), -1)
    return 1 - (2 * (p * t).sum(1) + 2 * smooth) / (
        p.sum(1) + t.sum(1) + 2 * smooth)

  @parameterized.parameters((1.0, True), (0.3, False), (0.0, True))
  def test_matches_reference(self, smooth, jit):
    fn = functools.partial(_segmentation.binary_dice_loss, smooth=smooth)
    fn = jax.jit(fn) if jit else fn
    assert_allclose(
        fn(self.logits, self.masks),
        self._reference(special.expit(self.logits.astype(np.float64)),
                        self.masks, smooth), rtol=1e-5)

  def test_probabilities(self):
    probs = special.expit(self.logits).astype(np.float32)
    assert_allclose(
        _segmentation.binary_dice_loss(probs, self.masks,
                                       apply_sigmoid=False),
        self._reference(probs, self.masks), rtol=1e-5)

  def test_shapes(self):
    self.assertEqual(
        _segmentation.binary_dice_loss(self.logits, self.masks).shape, (3,))
    self.assertEqual(
        _segmentation.binary_dice_loss(self.logits[0, 0], self.masks[0, 0]
                                      ).shape, (5,))
    with self.assertRaisesRegex(ValueError, 'Shape mismatch'):
      _segmentation.binary_dice_loss(self.logits, self.masks[0])


class GeneralizedDiceLossTest(parameterized.TestCase):

  def setUp(self):
    super().setUp()
    rng = np.random.RandomState(2)
    self.logits = rng.randn(3, 4, 5, 3).astype(np.float32)
    self.targets = np.eye(3, dtype=np.float32)[rng.randint(0, 3, (3, 4, 5))]
    self.probs = special.softmax(self.logits.astype(np.float64), -1)

  @parameterized.parameters(
      (1.0, False, True), (0.0, False, False), (0.1, True, True),
      (1.0, True, False))
  def test_matches_reference(self, smooth, ignore_background, jit):
    fn = functools.partial(_segmentation.multiclass_generalized_dice_loss,
                           smooth=smooth, ignore_background=ignore_background)
    fn = jax.jit(fn) if jit else fn
    assert_allclose(
        fn(self.logits, self.targets),
        _np_generalized_dice(self.probs, self.targets, smooth,
                             ignore_background), rtol=1e-5)

  def test_hand_computed(self):
    # Equal class volumes: the mean of the two Dice losses.
    probs = np.array([[[0.7, 0.3], [0.4, 0.6]]], np.float32)
    masks = np.array([[[1.0, 0.0], [0.0, 1.0]]], np.float32)
    dice0 = 1 - 2 * 0.7 / (1.1 + 1.0)
    dice1 = 1 - 2 * 0.6 / (0.9 + 1.0)
    assert_allclose(
        _segmentation.multiclass_generalized_dice_loss(
            probs, masks, smooth=0.0, apply_softmax=False),
        (dice0 + dice1) / 2, rtol=1e-6)

  def test_absent_class_is_finite(self):
    targets = np.zeros_like(self.targets)
    targets[..., 0] = 1.0
    fn = _segmentation.multiclass_generalized_dice_loss
    assert_allclose(fn(self.logits, targets),
                    _np_generalized_dice(self.probs, targets), rtol=1e-5)
    grad = jax.grad(lambda z: fn(z, targets))(self.logits)
    self.assertTrue(np.all(np.isfinite(grad)))

  def test_errors(self):
    with self.assertRaisesRegex(ValueError, 'Shape mismatch'):
      _segmentation.multiclass_generalized_dice_loss(
          self.logits, self.targets[..., :2])
    with self.assertRaisesRegex(ValueError, 'sum to 1'):
      _segmentation.multiclass_generalized_dice_loss(
          self.logits, self.targets, apply_softmax=False)


if __name__ == '__main__':
  absltest.main()
