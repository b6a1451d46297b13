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
"""The losses against float64 oracles written from their contracts.

Each loss is evaluated in float16, bfloat16, float32 and float64 (under x64)
on ordinary and on edge inputs (zero logits, ties, tiny and huge
magnitudes) and compared with ``reference_math`` evaluated in float64 on
the same (rounded) inputs. The tolerance is a few units in the last place
of the dtype, relative to the oracle's magnitude.
"""

import functools
from typing import Any, Callable, NamedTuple
import warnings

from absl.testing import absltest
from absl.testing import parameterized
import jax
import jax.numpy as jnp
import numpy as np

from optax import losses
from optax._src import utils
from optax._src.testing import reference_math as ref

_DTYPES = ('float16', 'bfloat16', 'float32', 'float64')


def _eps(dtype: Any) -> float:
  return float(jnp.finfo(dtype).eps)


def _round(x: np.ndarray, dtype: Any) -> np.ndarray:
  """``x`` rounded to ``dtype`` and back to float64 (the oracle's input)."""
  return np.asarray(jnp.asarray(x, dtype)).astype(np.float64)


class _Case(NamedTuple):
  """A loss, its oracle, its inputs and its tolerance in ulps."""
  fun: Callable[..., Any]
  oracle: Callable[..., Any]
  inputs: Callable[[np.random.RandomState], tuple[np.ndarray, ...]]
  ulps: float = 16.0
  # Which inputs are floating (cast to the dtype); others stay as given.
  floating: tuple[bool, ...] = (True, True)
  # The result's dtype: the inputs' (True) or their promotion with float32
  # (False: the multiclass losses build float32 one-hot labels, as Optax
  # 0.2.8 does, so half-precision scores give a float32 loss).
  keeps_dtype: bool = True


def _logits_labels(rng, shape=(3, 5)):
  logits = 2 * rng.randn(*shape)
  labels = rng.dirichlet(np.ones(shape[-1]), shape[:-1])
  return logits, labels


def _logits_int(rng, shape=(3, 5)):
  return 2 * rng.randn(*shape), rng.randint(0, shape[-1], shape[:-1])


def _logits_binary(rng, shape=(4, 3)):
  return 2 * rng.randn(*shape), (rng.rand(*shape) > 0.5).astype(float)


def _pm1(rng, shape=(4, 3)):
  return 2 * rng.randn(*shape), np.where(rng.rand(*shape) > 0.5, 1.0, -1.0)


def _log_probs(rng, shape=(3, 5)):
  q = rng.dirichlet(np.ones(shape[-1]), shape[:-1])
  t = rng.dirichlet(np.ones(shape[-1]), shape[:-1])
  t[0, 0] = 0.0
  return np.log(q), t


def _positive_measures(rng, shape=(3, 5)):
  return np.log(rng.rand(*shape) + 0.1), 2 * rng.rand(*shape)


def _regression(rng, shape=(4, 3)):
  return 3 * rng.randn(*shape), rng.randn(*shape)


def _vectors(rng, shape=(4, 3)):
  return rng.randn(*shape), rng.randn(*shape)


def _fy_softmax(logits, labels):
  return losses.make_fenchel_young_loss(jax.scipy.special.logsumexp)(
      logits, labels)


def _fy_oracle(logits, labels):
  z, y = np.asarray(logits), np.asarray(labels)
  top = np.max(z, axis=-1)
  lse = top + np.log(np.sum(np.exp(z - top[..., None]), axis=-1))
  return lse - np.sum(z * y, axis=-1)


_CASES = {
    'softmax_cross_entropy': _Case(
        losses.softmax_cross_entropy, ref.softmax_cross_entropy,
        _logits_labels),
    'softmax_cross_entropy_with_integer_labels': _Case(
        losses.softmax_cross_entropy_with_integer_labels,
        ref.softmax_cross_entropy_int, _logits_int,
        floating=(True, False)),
    'safe_softmax_cross_entropy': _Case(
        losses.safe_softmax_cross_entropy, ref.softmax_cross_entropy,
        _logits_labels),
    'sigmoid_binary_cross_entropy': _Case(
        losses.sigmoid_binary_cross_entropy,
        ref.sigmoid_binary_cross_entropy, _logits_binary),
    'sigmoid_focal_loss': _Case(
        functools.partial(losses.sigmoid_focal_loss, alpha=0.25, gamma=2.0),
        functools.partial(ref.sigmoid_focal_loss, alpha=0.25, gamma=2.0),
        _logits_binary, ulps=32),
    'poly_loss_cross_entropy': _Case(
        functools.partial(losses.poly_loss_cross_entropy, epsilon=2.0),
        functools.partial(ref.poly_loss_cross_entropy, epsilon=2.0),
        _logits_labels, ulps=32),
    'hinge_loss': _Case(losses.hinge_loss, ref.hinge_loss, _pm1),
    'perceptron_loss': _Case(losses.perceptron_loss, ref.perceptron_loss,
                             _pm1),
    'multiclass_hinge_loss': _Case(
        losses.multiclass_hinge_loss, ref.multiclass_hinge_loss, _logits_int,
        floating=(True, False), keeps_dtype=False),
    'multiclass_perceptron_loss': _Case(
        losses.multiclass_perceptron_loss, ref.multiclass_perceptron_loss,
        _logits_int, floating=(True, False), keeps_dtype=False),
    'multiclass_sparsemax_loss': _Case(
        losses.multiclass_sparsemax_loss, ref.multiclass_sparsemax_loss,
        _logits_int, ulps=32, floating=(True, False), keeps_dtype=False),
    'sparsemax_loss': _Case(
        losses.sparsemax_loss, ref.binary_sparsemax_loss, _logits_binary),
    'kl_divergence': _Case(
        losses.kl_divergence, ref.kl_divergence, _log_probs, ulps=32),
    'kl_divergence_with_log_targets': _Case(
        lambda q, t: losses.kl_divergence_with_log_targets(
            q, jnp.log(t)), ref.kl_divergence, _log_probs, ulps=32),
    'generalized_kl_divergence': _Case(
        losses.generalized_kl_divergence, ref.generalized_kl_divergence,
        _positive_measures, ulps=32),
    'l2_loss': _Case(
        losses.l2_loss,
        lambda p, t: 0.5 * (np.asarray(p) - np.asarray(t)) ** 2,
        _regression),
    'squared_error': _Case(
        losses.squared_error,
        lambda p, t: (np.asarray(p) - np.asarray(t)) ** 2, _regression),
    'huber_loss': _Case(
        functools.partial(losses.huber_loss, delta=1.5),
        functools.partial(ref.huber_loss, delta=1.5), _regression),
    'log_cosh': _Case(losses.log_cosh, ref.log_cosh, _regression),
    'cosine_similarity': _Case(
        losses.cosine_similarity, ref.cosine_similarity, _vectors),
    'cosine_distance': _Case(
        losses.cosine_distance,
        lambda p, t: 1 - ref.cosine_similarity(p, t), _vectors),
    'smooth_labels': _Case(
        lambda y: losses.smooth_labels(y, 0.1),
        lambda y: ref.smooth_labels(y, 0.1),
        lambda rng: _logits_labels(rng)[1:], floating=(True,)),
    'make_fenchel_young_loss': _Case(
        _fy_softmax, _fy_oracle, _logits_labels),
}


def _check(test, got, want, dtype, ulps, scale=None):
  got = np.asarray(got).astype(np.float64)
  want = np.asarray(want, np.float64)
  test.assertEqual(got.shape, want.shape)
  # Finite where the exact value is representable in the dtype.
  finite = np.isfinite(np.asarray(jnp.asarray(want, dtype)).astype(float))
  np.testing.assert_array_equal(np.isfinite(got), finite)
  if scale is None:
    scale = np.max(np.abs(want[finite]), initial=1.0)
  tol = ulps * _eps(dtype) * max(scale, 1.0)
  np.testing.assert_allclose(got[finite], want[finite], rtol=0, atol=tol)


class LossDtypeSweepTest(parameterized.TestCase):
  """Every elementwise or per-row loss in four dtypes on random inputs."""

  @parameterized.named_parameters(
      (f'{name}_{dtype}', name, dtype)
      for name in sorted(_CASES) for dtype in _DTYPES)
  def test_matches_float64_oracle(self, name, dtype):
    case = _CASES[name]
    rng = np.random.RandomState(len(name))
    raw = case.inputs(rng)
    with utils.x64_precision(dtype == 'float64'):
      args = [jnp.asarray(x, dtype) if fl else jnp.asarray(x)
              for x, fl in zip(raw, case.floating)]
      oracle_args = [_round(x, dtype) if fl else x
                     for x, fl in zip(raw, case.floating)]
      got = case.fun(*args)
      want_dtype = (jnp.dtype(dtype) if case.keeps_dtype
                    else jnp.promote_types(dtype, jnp.float32))
      self.assertEqual(jnp.result_type(got), want_dtype)
      _check(self, got, case.oracle(*oracle_args), dtype, case.ulps)


# Edge inputs: zero logits (ties), one-hot labels, tiny and huge logits.
_EDGE_LOGITS = {
    'zeros': np.zeros((2, 4)),
    'ties': np.array([[3.0, 3.0, -1.0, 3.0], [0.5, 0.5, 0.5, 0.5]]),
    'tiny': np.array([[1e-4, -2e-4, 3e-5, 0.0], [-1e-5, 1e-5, 0.0, 0.0]]),
    'huge': np.array([[60.0, -60.0, 30.0, 0.0], [-50.0, 50.0, 49.0, 0.0]]),
}
_EDGE_LABELS = np.array([[0.0, 1.0, 0.0, 0.0], [0.25, 0.25, 0.0, 0.5]])


class LossEdgeInputsTest(parameterized.TestCase):
  """Finite wherever the maths is, within the dtype's ulps of the oracle."""

  @parameterized.named_parameters(
      (f'{edge}_{dtype}', edge, dtype)
      for edge in sorted(_EDGE_LOGITS) for dtype in _DTYPES)
  def test_classification_losses(self, edge, dtype):
    logits = _EDGE_LOGITS[edge]
    int_labels = np.array([1, 3])
    with utils.x64_precision(dtype == 'float64'):
      z = jnp.asarray(logits, dtype)
      zr = _round(logits, dtype)
      y = jnp.asarray(_EDGE_LABELS, dtype)
      yr = _round(_EDGE_LABELS, dtype)
      pairs = [
          (losses.softmax_cross_entropy(z, y),
           ref.softmax_cross_entropy(zr, yr)),
          (losses.safe_softmax_cross_entropy(z, y),
           ref.softmax_cross_entropy(zr, yr)),
          (losses.softmax_cross_entropy_with_integer_labels(z, int_labels),
           ref.softmax_cross_entropy_int(zr, int_labels)),
          (losses.poly_loss_cross_entropy(z, y, epsilon=1.0),
           ref.poly_loss_cross_entropy(zr, yr, 1.0)),
          (losses.sigmoid_binary_cross_entropy(z, y),
           ref.sigmoid_binary_cross_entropy(zr, yr)),
          (losses.sigmoid_focal_loss(z, y, gamma=2.0),
           ref.sigmoid_focal_loss(zr, yr, None, 2.0)),
          (losses.multiclass_hinge_loss(z, int_labels),
           ref.multiclass_hinge_loss(zr, int_labels)),
          (losses.multiclass_perceptron_loss(z, int_labels),
           ref.multiclass_perceptron_loss(zr, int_labels)),
          (losses.multiclass_sparsemax_loss(z, int_labels),
           ref.multiclass_sparsemax_loss(zr, int_labels)),
          (losses.sparsemax_loss(z, y), ref.binary_sparsemax_loss(zr, yr)),
          (losses.hinge_loss(z, 2 * y - 1), ref.hinge_loss(zr, 2 * yr - 1)),
      ]
      for i, (got, want) in enumerate(pairs):
        with self.subTest(i=i):
          _check(self, got, want, dtype, 32)

  @parameterized.named_parameters(
      (f'{scale:g}_{dtype}', scale, dtype)
      for scale in (1e-3, 1.0, 1e3) for dtype in _DTYPES)
  def test_regression_losses_small_and_large(self, scale, dtype):
    rng = np.random.RandomState(7)
    p, t = scale * rng.randn(6), scale * rng.randn(6)
    with utils.x64_precision(dtype == 'float64'):
      pj, tj = jnp.asarray(p, dtype), jnp.asarray(t, dtype)
      pr, tr = _round(p, dtype), _round(t, dtype)
      _check(self, losses.log_cosh(pj, tj), ref.log_cosh(pr, tr), dtype, 16)
      _check(self, losses.huber_loss(pj, tj, delta=scale),
             ref.huber_loss(pr, tr, scale), dtype, 16)
      _check(self, losses.squared_error(pj, tj), (pr - tr) ** 2, dtype, 16)


class SoftmaxCrossEntropyTest(parameterized.TestCase):
  """Where-masks and -inf logits as the docstring documents them."""

  def test_where_over_classes(self):
    rng = np.random.RandomState(0)
    z, y = _logits_labels(rng)
    where = rng.rand(*z.shape) > 0.3
    where[:, 0] = True
    y = np.where(where, y, 0.0)
    got = losses.softmax_cross_entropy(z, y, where=where)
    np.testing.assert_allclose(
        got, ref.softmax_cross_entropy(z, y, where=where), rtol=1e-5)

  def test_minus_inf_logit_with_zero_label_is_finite(self):
    z = jnp.array([[0.0, -jnp.inf, 1.0]])
    y = jnp.array([[0.5, 0.0, 0.5]])
    got = losses.softmax_cross_entropy(z, y)
    want = ref.softmax_cross_entropy(np.asarray(z), np.asarray(y))
    np.testing.assert_allclose(got, want, rtol=1e-6)
    grad = jax.grad(lambda z: losses.softmax_cross_entropy(z, y).sum())(z)
    self.assertTrue(np.all(np.isfinite(grad)))

  def test_safe_all_minus_inf_row_with_zero_labels_is_zero(self):
    z = jnp.full((1, 3), -jnp.inf)
    self.assertEqual(
        float(losses.safe_softmax_cross_entropy(z, jnp.zeros((1, 3)))[0]),
        0.0)

  def test_integer_labels_negative_index_from_end(self):
    z = np.array([[1.0, 2.0, 0.5]])
    np.testing.assert_allclose(
        losses.softmax_cross_entropy_with_integer_labels(z, np.array([-1])),
        ref.softmax_cross_entropy_int(z, np.array([2])), rtol=1e-6)


class PolyLossTest(parameterized.TestCase):

  @parameterized.parameters(-1.0, 0.0, 2.0, 10.0)
  def test_epsilon_scales_the_polynomial_term(self, epsilon):
    z, y = _logits_labels(np.random.RandomState(3))
    np.testing.assert_allclose(
        losses.poly_loss_cross_entropy(z, y, epsilon=epsilon),
        ref.poly_loss_cross_entropy(z, y, epsilon), rtol=1e-5, atol=1e-6)


class SigmoidFocalLossTest(parameterized.TestCase):

  @parameterized.product(alpha=(None, 0.0, 0.25, 1.0), gamma=(0.0, 0.5, 2.0))
  def test_alpha_and_gamma(self, alpha, gamma):
    z, y = _logits_binary(np.random.RandomState(4))
    np.testing.assert_allclose(
        losses.sigmoid_focal_loss(z, y, alpha=alpha, gamma=gamma),
        ref.sigmoid_focal_loss(z, y, alpha, gamma), rtol=1e-5, atol=1e-7)


class SmoothLabelsTest(parameterized.TestCase):

  @parameterized.parameters(0.0, 0.1, 1.0)
  def test_mixes_with_uniform(self, alpha):
    y = np.eye(4)[[0, 3, 1]]
    np.testing.assert_allclose(
        losses.smooth_labels(y, alpha), ref.smooth_labels(y, alpha),
        rtol=1e-6)


class KLDivergenceTest(parameterized.TestCase):

  def test_divergence_of_a_distribution_with_itself_is_zero(self):
    p = np.array([[0.2, 0.3, 0.5], [0.0, 0.4, 0.6]])
    logp = np.log(np.where(p > 0, p, 1e-30))
    np.testing.assert_allclose(losses.kl_divergence(logp, p), 0, atol=1e-6)
    np.testing.assert_allclose(
        losses.kl_divergence_with_log_targets(logp, logp), 0, atol=1e-6)
    np.testing.assert_allclose(
        losses.generalized_kl_divergence(logp, p), 0, atol=1e-6)

  def test_zero_target_with_minus_inf_log_prediction(self):
    logq = jnp.array([[-jnp.inf, jnp.log(0.5), jnp.log(0.5)]])
    t = jnp.array([[0.0, 0.5, 0.5]])
    self.assertAlmostEqual(float(losses.kl_divergence(logq, t)[0]), 0.0,
                           places=6)
    grad = jax.grad(lambda q: losses.kl_divergence(q, t).sum())(logq)
    self.assertTrue(np.all(np.isfinite(grad)))
    log_t = jnp.log(t)
    self.assertAlmostEqual(
        float(losses.kl_divergence_with_log_targets(logq, log_t)[0]), 0.0,
        places=6)

  def test_convex_kl_divergence_equals_generalized(self):
    logq, t = _positive_measures(np.random.RandomState(5))
    with warnings.catch_warnings():
      warnings.simplefilter('ignore', DeprecationWarning)
      got = losses.convex_kl_divergence(logq, t)
    np.testing.assert_allclose(
        got, ref.generalized_kl_divergence(logq, t), rtol=1e-5)

  def test_where_mask(self):
    logq, t = _positive_measures(np.random.RandomState(6))
    where = np.array([True, False, True, True, False])
    np.testing.assert_allclose(
        losses.generalized_kl_divergence(logq, t, where=where),
        ref.generalized_kl_divergence(logq, t, where=where), rtol=1e-5)


class CosineSimilarityTest(parameterized.TestCase):

  @parameterized.parameters(0.0, 1e-6, 4.0)
  def test_epsilon_floors_the_squared_norms(self, epsilon):
    a = np.array([[3.0, 4.0], [1e-4, 0.0], [0.1, 0.2]])
    b = np.array([[1.0, 0.0], [1.0, 1.0], [0.3, -0.1]])
    np.testing.assert_allclose(
        losses.cosine_similarity(a, b, epsilon=epsilon),
        ref.cosine_similarity(a, b, epsilon), rtol=1e-5, atol=1e-7)
    np.testing.assert_allclose(
        losses.cosine_distance(a, b, epsilon=epsilon),
        1 - ref.cosine_similarity(a, b, epsilon), rtol=1e-5, atol=1e-6)


class CTCLossTest(parameterized.TestCase):
  """The loss is -log of the sum over every alignment (Graves et al.)."""

  @parameterized.named_parameters(
      ('distinct', [1, 2], 5, 0),
      ('repeat_needs_blank', [1, 1], 4, 0),
      ('single', [2], 3, 0),
      ('empty', [], 3, 0),
      ('other_blank', [0, 1], 4, 2),
      ('padded_frames', [2, 1], 3, 0),
  )
  def test_sum_over_alignments(self, labels, frames, blank_id):
    rng = np.random.RandomState(len(labels) + frames)
    max_time, max_len = 5, 3
    logits = rng.randn(1, max_time, 3)
    logit_paddings = (np.arange(max_time) >= frames).astype(float)[None]
    padded = np.zeros((1, max_len), np.int32)
    padded[0, :len(labels)] = labels
    label_paddings = (np.arange(max_len) >= len(labels)).astype(float)[None]
    got = losses.ctc_loss(logits, logit_paddings, padded, label_paddings,
                          blank_id=blank_id)
    want = ref.ctc_loss(logits[0], labels, frames, blank_id)
    np.testing.assert_allclose(got, [want], rtol=1e-5)
    got2, _, _ = losses.ctc_loss_with_forward_probs(
        logits, logit_paddings, padded, label_paddings, blank_id=blank_id)
    np.testing.assert_allclose(got2, [want], rtol=1e-5)

  def test_infeasible_gives_minus_log_epsilon(self):
    logits = np.zeros((1, 2, 3))
    got = losses.ctc_loss(logits, np.zeros((1, 2)), np.array([[1, 1]]),
                          np.zeros((1, 2)))
    self.assertGreater(float(got[0]), 1e4)


class SegmentationLossTest(parameterized.TestCase):

  @parameterized.product(
      alpha_beta=((0.5, 0.5), (1.0, 1.0), (0.3, 0.7)),
      reduction=('mean', 'sum', 'none'),
      ignore_background=(False, True))
  def test_dice_loss(self, alpha_beta, reduction, ignore_background):
    alpha, beta = alpha_beta
    rng = np.random.RandomState(8)
    logits = rng.randn(2, 4, 4, 3)
    targets = np.eye(3)[rng.randint(0, 3, (2, 4, 4))]
    weights = np.array([0.5, 1.0, 2.0])
    got = losses.dice_loss(
        logits, targets, class_weights=weights, smooth=1.0, alpha=alpha,
        beta=beta, reduction=reduction, ignore_background=ignore_background)
    per_class = ref.tversky_loss(
        ref.softmax(logits), targets, 1.0, alpha, beta, (1, 2)) * weights
    if ignore_background:
      per_class = per_class[:, 1:]
    want = {'mean': per_class.mean(-1), 'sum': per_class.sum(-1),
            'none': per_class}[reduction]
    np.testing.assert_allclose(got, want, rtol=1e-5)

  def test_binary_dice_loss(self):
    rng = np.random.RandomState(9)
    logits = rng.randn(3, 5, 5)
    targets = (rng.rand(3, 5, 5) > 0.5).astype(float)
    p = ref.sigmoid(logits)
    want = 1 - (2 * np.sum(p * targets, (1, 2)) + 2) / (
        np.sum(p, (1, 2)) + np.sum(targets, (1, 2)) + 2)
    np.testing.assert_allclose(
        losses.binary_dice_loss(logits, targets), want, rtol=1e-5)

  def test_dice_of_perfect_prediction_is_zero(self):
    targets = np.eye(3)[np.random.RandomState(1).randint(0, 3, (2, 6))]
    np.testing.assert_allclose(
        losses.dice_loss(targets, targets, apply_softmax=False, smooth=1.0),
        0.0, atol=1e-6)

  @parameterized.parameters(False, True)
  def test_multiclass_generalized_dice_loss(self, ignore_background):
    rng = np.random.RandomState(10)
    logits = rng.randn(2, 4, 4, 3)
    targets = np.eye(3)[rng.randint(0, 3, (2, 4, 4))]
    per = ref.tversky_loss(ref.softmax(logits), targets, 1.0, 0.5, 0.5,
                           (1, 2))
    volume = targets.sum((0, 1, 2))
    w = 1 / (volume ** 2 + 1e-7)
    w = w / w.sum()
    kept = slice(1, None) if ignore_background else slice(None)
    num_kept = 2 if ignore_background else 3
    want = np.mean(3 / num_kept * np.sum((w * per)[:, kept], -1))
    np.testing.assert_allclose(
        losses.multiclass_generalized_dice_loss(
            logits, targets, ignore_background=ignore_background),
        want, rtol=1e-5)


class RankingSoftmaxLossTest(parameterized.TestCase):

  @parameterized.product(use_where=(False, True), use_weights=(False, True))
  def test_listwise_softmax(self, use_where, use_weights):
    rng = np.random.RandomState(11)
    logits = rng.randn(3, 5)
    labels = rng.randint(0, 3, (3, 5)).astype(float)
    where = rng.rand(3, 5) > 0.3 if use_where else None
    if where is not None:
      where[:, 0] = True
    weights = rng.rand(3, 5) if use_weights else None
    per_list = ref.ranking_softmax_loss(logits, labels, where, weights)
    got = losses.ranking_softmax_loss(
        logits, labels, where=where, weights=weights, reduce_fn=None)
    np.testing.assert_allclose(got, per_list, rtol=1e-5, atol=1e-7)
    np.testing.assert_allclose(
        losses.ranking_softmax_loss(logits, labels, where=where,
                                    weights=weights),
        per_list.mean(), rtol=1e-5)

  def test_list_without_relevant_items_is_zero(self):
    got = losses.ranking_softmax_loss(
        np.array([[1.0, 2.0, 3.0]]), np.zeros((1, 3)), reduce_fn=None)
    np.testing.assert_allclose(got, [0.0])


class NTXentTest(parameterized.TestCase):

  @parameterized.parameters(0.07, 0.5, 1.0)
  def test_simclr_loss(self, temperature):
    rng = np.random.RandomState(12)
    emb = rng.randn(6, 4)
    labels = np.array([0, 0, 1, 1, 2, 1])
    np.testing.assert_allclose(
        losses.ntxent(emb, labels, temperature),
        ref.ntxent(emb, labels, temperature), rtol=1e-5)


class TripletMarginLossTest(parameterized.TestCase):

  @parameterized.product(norm_degree=(1, 2, 4), margin=(0.0, 1.0),
                         eps=(0.0, 1e-6))
  def test_docstring_distance(self, norm_degree, margin, eps):
    rng = np.random.RandomState(13)
    # Differences of both signs: the distance is a norm of a - p.
    a, p, n = (rng.randn(4, 3) for _ in range(3))
    got = losses.triplet_margin_loss(
        a, p, n, norm_degree=norm_degree, margin=margin, eps=eps)
    np.testing.assert_allclose(
        got, ref.triplet_margin_loss(a, p, n, norm_degree, margin, eps),
        rtol=1e-5, atol=1e-6)

  @parameterized.product(norm_degree=(1, 3, 1.5, 2.0), eps=(0.0, 1e-6))
  def test_distance_is_a_norm_of_the_difference(self, norm_degree, eps):
    # The q-norm of Balntas et al. and of PyTorch's TripletMarginLoss:
    # (eps + sum |x - y|^q)^(1/q), on differences of both signs.
    rng = np.random.RandomState(14)
    a, p, n = (rng.randn(5, 4) for _ in range(3))

    def distance(x, y):
      return (eps + np.sum(np.abs(x - y) ** norm_degree, axis=-1)) ** (
          1.0 / norm_degree)

    got = losses.triplet_margin_loss(
        a, p, n, norm_degree=norm_degree, margin=1.0, eps=eps)
    np.testing.assert_allclose(
        got, np.maximum(distance(a, p) - distance(a, n) + 1.0, 0.0),
        rtol=1e-5, atol=1e-6)
    self.assertTrue(np.all(np.isfinite(got)))


if __name__ == '__main__':
  absltest.main()
