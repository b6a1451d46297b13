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
"""Tests for the classification losses, against NumPy/SciPy references."""

import functools
import itertools
import re

from absl.testing import absltest
from absl.testing import parameterized
import jax
import jax.numpy as jnp
import numpy as np
from numpy.testing import assert_allclose
from scipy import special

from optax.losses import _classification

RTOL = 2e-6
ATOL = 2e-6


def _maybe_jit(fn, jit):
  return jax.jit(fn) if jit else fn


def _all_finite(tree):
  return all(bool(jnp.all(jnp.isfinite(x))) for x in jax.tree.leaves(tree))


def _np_softmax_ce(logits, labels, axis=-1, where=None):
  """Masked softmax cross-entropy in float64."""
  logits = np.asarray(logits, np.float64)
  labels = np.broadcast_to(np.asarray(labels, np.float64), logits.shape)
  if where is None:
    where = np.ones(logits.shape, bool)
  where = np.broadcast_to(where, logits.shape)
  masked = np.where(where, logits, -np.inf)
  log_probs = special.log_softmax(masked, axis=axis)
  terms = np.where(where & (labels != 0), labels * log_probs, 0.0)
  return -np.sum(terms, axis=axis)


class SoftmaxCrossEntropyTest(parameterized.TestCase):

  def setUp(self):
    super().setUp()
    rng = np.random.RandomState(0)
    self.logits = rng.randn(4, 6).astype(np.float32) * 3
    labels = rng.rand(4, 6)
    self.labels = (labels / labels.sum(-1, keepdims=True)).astype(np.float32)

  @parameterized.parameters(True, False)
  def test_matches_scipy(self, jit):
    fn = _maybe_jit(_classification.softmax_cross_entropy, jit)
    assert_allclose(fn(self.logits, self.labels),
                    _np_softmax_ce(self.logits, self.labels),
                    rtol=RTOL, atol=ATOL)

  @parameterized.parameters(True, False)
  def test_gradient_is_softmax_minus_labels(self, jit):
    grad = _maybe_jit(jax.grad(
        lambda z: jnp.sum(_classification.softmax_cross_entropy(
            z, self.labels))), jit)(self.logits)
    expected = (special.softmax(self.logits.astype(np.float64), axis=-1)
                * self.labels.sum(-1, keepdims=True) - self.labels)
    assert_allclose(grad, expected, rtol=1e-5, atol=1e-6)

  @parameterized.parameters(((256, 1000),), ((7, 3, 5),))
  def test_eager_and_jit_give_the_same_bits(self, shape):
    # An eager call computes the log-normalizer as one compiled program, as
    # a jitted call does, so both round alike on CPU, where the bits are
    # checked; other backends fuse the sums their own way and are held to
    # float32 rounding. Zero labels, -inf logits with zero labels and a row
    # of zero labels take part.
    rng = np.random.RandomState(5)
    logits = (rng.randn(*shape) * 30).astype(np.float32)
    labels = rng.rand(*shape).astype(np.float32)
    labels[rng.rand(*shape) < 0.3] = 0.0
    logits[(rng.rand(*shape) < 0.05) & (labels == 0)] = -np.inf
    labels[0] = 0.0
    eager = _classification.softmax_cross_entropy(logits, labels)
    jitted = jax.jit(_classification.softmax_cross_entropy)(logits, labels)
    self.assertEqual(eager.dtype, jnp.float32)
    if jax.default_backend() == 'cpu':
      np.testing.assert_array_equal(eager, jitted)
    else:
      assert_allclose(eager, jitted, rtol=1e-6)
    assert_allclose(eager, _np_softmax_ce(logits, labels), rtol=1e-5)
    assert_allclose(eager[0], 0.0)

  @parameterized.parameters(0, 1, 2, -1, ((1, 2),), ((0, 2),))
  def test_axis(self, axis):
    rng = np.random.RandomState(1)
    logits = rng.randn(2, 3, 4).astype(np.float32)
    labels = rng.rand(2, 3, 4).astype(np.float32)
    fn = jax.jit(functools.partial(
        _classification.softmax_cross_entropy, axis=axis))
    assert_allclose(fn(logits, labels),
                    _np_softmax_ce(logits, labels, axis=axis),
                    rtol=RTOL, atol=ATOL)

  @parameterized.parameters(True, False)
  def test_where(self, jit):
    where = np.random.RandomState(2).rand(4, 6) < 0.6
    where[:, 0] = True
    fn = _maybe_jit(functools.partial(
        _classification.softmax_cross_entropy, where=where), jit)
    assert_allclose(fn(self.logits, self.labels),
                    _np_softmax_ce(self.logits, self.labels, where=where),
                    rtol=RTOL, atol=ATOL)
    grad = jax.grad(lambda z: jnp.sum(fn(z, self.labels)))(self.logits)
    self.assertTrue(_all_finite(grad))
    assert_allclose(np.where(where, 0.0, grad), 0.0)

  @parameterized.parameters(-1, 0)
  def test_where_of_examples_masks_whole_rows(self, axis):
    # A mask shaped like the loss (upstream 0.2.8 accepts it) selects
    # examples: masked ones give zero and zero gradient.
    logits = np.moveaxis(self.logits, -1, axis)
    labels = np.moveaxis(self.labels, -1, axis)
    rows = np.array([True, False, True, False])
    fn = functools.partial(_classification.softmax_cross_entropy, axis=axis,
                           where=rows)
    expected = np.where(rows, _np_softmax_ce(self.logits, self.labels), 0.0)
    assert_allclose(fn(logits, labels), expected, rtol=RTOL, atol=ATOL)
    grad = jax.grad(lambda z: jnp.sum(fn(z, labels)))(logits)
    self.assertTrue(_all_finite(grad))
    assert_allclose(np.moveaxis(grad, axis, -1)[~rows], 0.0)

  def test_where_all_false_gives_zero_and_zero_gradient(self):
    where = np.zeros((4, 6), bool)
    fn = functools.partial(_classification.softmax_cross_entropy, where=where)
    assert_allclose(fn(self.logits, self.labels), 0.0)
    grad = jax.grad(lambda z: jnp.sum(fn(z, self.labels)))(self.logits)
    assert_allclose(grad, 0.0)

  @parameterized.parameters(
      _classification.softmax_cross_entropy,
      _classification.safe_softmax_cross_entropy)
  def test_neg_inf_logits_with_zero_labels_are_masked(self, loss_fn):
    logits = jnp.array([[1.0, -jnp.inf, 2.0], [-jnp.inf, 0.5, -jnp.inf]])
    labels = jnp.array([[0.5, 0.0, 0.5], [0.0, 1.0, 0.0]])
    loss = loss_fn(logits, labels)
    expected0 = -0.5 * (special.log_softmax([1.0, 2.0])).sum()
    assert_allclose(loss, [expected0, 0.0], rtol=RTOL, atol=ATOL)
    grad = jax.grad(lambda z: jnp.sum(loss_fn(z, labels)))(logits)
    self.assertTrue(_all_finite(grad))
    p = special.softmax([1.0, 2.0])
    assert_allclose(grad[0], [p[0] - 0.5, 0.0, p[1] - 0.5], atol=ATOL)
    assert_allclose(grad[1], 0.0, atol=ATOL)

  def test_neg_inf_logit_with_nonzero_label_is_inf(self):
    loss = _classification.softmax_cross_entropy(
        jnp.array([[0.0, -jnp.inf]]), jnp.array([[0.5, 0.5]]))
    self.assertEqual(float(loss[0]), np.inf)

  def test_safe_row_of_neg_inf_logits_with_zero_labels(self):
    loss = _classification.safe_softmax_cross_entropy(
        jnp.full((1, 3), -jnp.inf), jnp.zeros((1, 3)))
    assert_allclose(loss, [0.0])

  @parameterized.parameters(1e4, -1e4, 3e4)
  def test_extreme_logits(self, scale):
    logits = np.array([[1.0, -1.0, 0.0], [-1.0, 1.0, 0.3]], np.float32) * scale
    labels = np.array([[0.5, 0.5, 0.0], [0.0, 0.2, 0.8]], np.float32)
    fn = _classification.softmax_cross_entropy
    assert_allclose(fn(logits, labels), _np_softmax_ce(logits, labels),
                    rtol=RTOL)
    grad = jax.grad(lambda z: jnp.sum(fn(z, labels)))(logits)
    self.assertTrue(_all_finite(grad))

  def test_label_broadcasting(self):
    assert_allclose(
        _classification.softmax_cross_entropy(self.logits, self.labels[0]),
        _np_softmax_ce(self.logits, self.labels[0]), rtol=RTOL, atol=ATOL)

  @parameterized.parameters(jnp.float32, jnp.bfloat16, jnp.float16)
  def test_dtype(self, dtype):
    loss = _classification.softmax_cross_entropy(
        jnp.asarray(self.logits, dtype), jnp.asarray(self.labels, dtype))
    self.assertEqual(loss.dtype, dtype)

  @parameterized.parameters(
      _classification.softmax_cross_entropy,
      _classification.safe_softmax_cross_entropy)
  def test_integer_logits_raise(self, loss_fn):
    with self.assertRaisesRegex(TypeError, 'floating dtype'):
      loss_fn(jnp.array([[1, 2]]), jnp.array([[0.0, 1.0]]))

  @parameterized.parameters(
      _classification.softmax_cross_entropy,
      _classification.safe_softmax_cross_entropy)
  def test_neg_inf_logits_with_zero_labels_forward_mode(self, loss_fn):
    # Row 0: a class masked out by a -inf logit and a zero label; row 1:
    # one finite logit carrying the whole label; row 2: every logit -inf and
    # every label zero (a padded example).
    logits = jnp.array([[1.0, -jnp.inf, 2.0], [-jnp.inf, 0.5, -jnp.inf],
                        [-jnp.inf, -jnp.inf, -jnp.inf]])
    labels = jnp.array([[0.5, 0.0, 0.5], [0.0, 1.0, 0.0], [0.0, 0.0, 0.0]])
    p = special.softmax([1.0, 2.0])
    # d loss / d logits = softmax * sum(labels) - labels, 0 where masked.
    dlogits = np.array([[p[0] - 0.5, 0.0, p[1] - 0.5], [0.0] * 3])
    # d loss / d labels = -log softmax, 0 where a zero label is masked.
    dlabels = np.array([[-np.log(p[0]), 0.0, -np.log(p[1])], [0.0] * 3])

    def of_logits(z):
      return loss_fn(z, labels)

    def of_labels(y):
      return loss_fn(logits, y)

    jac = jax.jacfwd(of_logits)(logits)
    self.assertTrue(_all_finite(jac))
    for row in range(2):
      assert_allclose(jac[row, row], dlogits[row], rtol=1e-6, atol=1e-7)
    assert_allclose(jac[2], 0.0)
    jac = jax.jacfwd(of_labels)(labels)
    for row in range(2):
      assert_allclose(jac[row, row], dlabels[row], rtol=1e-6, atol=1e-7)
    assert_allclose(jac[2], 0.0)
    # Along a tangent of both arguments, eagerly and under jit.
    tangent_logits = jnp.array([[0.3, 2.0, -1.0], [1.0, -2.0, 5.0],
                                [1.0, 2.0, 3.0]])
    tangent_labels = jnp.array([[0.1, 0.4, -0.1], [0.2, 0.3, 0.5],
                                [1.0, 1.0, 1.0]])
    expected = (np.sum(dlogits * tangent_logits[:2], -1)
                + np.sum(dlabels * tangent_labels[:2], -1))
    for jvp in (jax.jvp, jax.jit(jax.jvp, static_argnums=0)):
      value, tangent = jvp(
          loss_fn, (logits, labels), (tangent_logits, tangent_labels))
      assert_allclose(value, [-0.5 * np.log(p).sum(), 0.0, 0.0],
                      rtol=RTOL, atol=ATOL)
      assert_allclose(tangent[:2], expected, rtol=1e-6, atol=1e-7)
      self.assertEqual(float(tangent[2]), 0.0)
    # Reverse mode agrees, also on the padded example.
    grad = jax.grad(lambda z: jnp.sum(of_logits(z)))(logits)
    assert_allclose(grad[:2], dlogits, rtol=1e-6, atol=1e-7)
    self.assertTrue(_all_finite(grad))
    assert_allclose(grad[2], 0.0)
    grad = jax.grad(lambda y: jnp.sum(of_labels(y)))(labels)
    assert_allclose(grad[:2], dlabels, rtol=1e-6, atol=1e-7)
    assert_allclose(grad[2], 0.0)

  def test_forward_mode_matches_reverse_mode(self):
    labels = self.labels.copy()
    labels[:, 0] = 0.0
    logits = jnp.asarray(self.logits).at[:, 0].set(-jnp.inf)
    fn = _classification.softmax_cross_entropy
    for argnum in (0, 1):
      rev = jax.jacrev(fn, argnums=argnum)(logits, labels)
      fwd = jax.jacfwd(fn, argnums=argnum)(logits, labels)
      self.assertTrue(_all_finite(fwd))
      assert_allclose(fwd, rev, rtol=1e-6, atol=1e-7)

  def test_hessian_matches_reference(self):
    # The custom derivative is itself differentiable: per row,
    # d2 loss / dz2 = sum(y) (diag(p) - p p^T).
    hessian = jax.hessian(lambda z: jnp.sum(
        _classification.softmax_cross_entropy(z, self.labels)))(self.logits)
    probs = special.softmax(self.logits.astype(np.float64), axis=-1)
    for row in range(4):
      p = probs[row]
      expected = self.labels[row].sum() * (np.diag(p) - np.outer(p, p))
      assert_allclose(hessian[row, :, row, :], expected, rtol=1e-5,
                      atol=1e-6)

  def test_where_gradient_of_labels_is_zero_where_masked(self):
    where = np.ones((4, 6), bool)
    where[:, 1] = False
    fn = functools.partial(_classification.softmax_cross_entropy, where=where)
    grad = jax.grad(lambda y: jnp.sum(fn(self.logits, y)))(self.labels)
    log_probs = special.log_softmax(
        np.where(where, self.logits.astype(np.float64), -np.inf), axis=-1)
    assert_allclose(grad, np.where(where, -log_probs, 0.0), rtol=1e-6)


# The size of a compiled program: the instructions of the optimized HLO.
_HLO_INSTRUCTION = re.compile(r'\s*(?:ROOT )?%?[\w.\-]+ = ')


def _instructions(fn, *args):
  hlo = jax.jit(fn).lower(*args).compile().as_text()
  return sum(bool(_HLO_INSTRUCTION.match(line)) for line in hlo.splitlines())


def _textbook_softmax_ce(logits, labels):
  """The formula of the docstring, with no guard for zero labels."""
  return -jnp.sum(labels * jax.nn.log_softmax(logits, axis=-1), axis=-1)


class ProgramSizeTest(parameterized.TestCase):
  """The guard for zero labels costs the gradient nothing.

  Upstream 0.2.8 computes the cross-entropy with no guard; the numbers in
  the comments are the instructions of its compiled programs, measured with
  jax 0.10.2 on CPU for (64, 100) logits with labels passed as an argument.
  A mask of the log-probabilities in the backward pass recomputed them and
  gave 60 instructions for softmax_cross_entropy's gradient (upstream 47);
  the derivative of the product labels * log_probs with a mask of its
  tangent gave 48; the cross-entropy's own derivative gives 42.
  """

  def setUp(self):
    super().setUp()
    rng = np.random.RandomState(4)
    self.logits = jnp.asarray(rng.randn(64, 100), jnp.float32)
    labels = rng.rand(64, 100)
    self.labels = jnp.asarray(labels / labels.sum(-1, keepdims=True),
                              jnp.float32)

  def _grad_instructions(self, loss_fn):
    return _instructions(
        jax.grad(lambda z, y: jnp.sum(loss_fn(z, y))), self.logits,
        self.labels)

  @parameterized.named_parameters(
      # Upstream 0.2.8: 47 (softmax_cross_entropy), 42 (its custom rule).
      ('softmax', _classification.softmax_cross_entropy),
      ('safe', _classification.safe_softmax_cross_entropy),
  )
  def test_gradient_no_larger_than_unguarded_formula(self, loss_fn):
    # sum(labels) * softmax - labels, with no guard: 42 instructions here
    # with jax 0.10.2, against the textbook formula's 47.
    self.assertLessEqual(self._grad_instructions(loss_fn),
                         self._grad_instructions(_textbook_softmax_ce))

  def test_poly_loss_gradient(self):
    # Upstream 0.2.8: 89; the fork 55 with jax 0.10.2 (104 with the mask of
    # the log-probabilities, 91 with the derivative of the product): both
    # terms' derivatives share one softmax.
    def textbook_poly(logits, labels):
      probs = jax.nn.softmax(logits, axis=-1)
      return (_textbook_softmax_ce(logits, labels)
              + 2.0 * jnp.sum(labels * (1.0 - probs), axis=-1))

    self.assertLessEqual(
        self._grad_instructions(_classification.poly_loss_cross_entropy),
        self._grad_instructions(textbook_poly))

  @parameterized.named_parameters(
      ('softmax', _classification.softmax_cross_entropy),
      ('safe', _classification.safe_softmax_cross_entropy),
  )
  def test_forward_guard_is_one_compare_and_select(self, loss_fn):
    # The guard adds a zero constant, a comparison of the labels with it and
    # a select, fused into the pass of the product: three instructions (41
    # against 38 for (4, 5) logits, upstream's safe_softmax_cross_entropy
    # 41). A test of finiteness of the log-probabilities made it six.
    # XLA fuses (64, 100) logits differently (45 against 38).
    logits, labels = self.logits[:4, :5], self.labels[:4, :5]
    self.assertLessEqual(
        _instructions(loss_fn, logits, labels),
        _instructions(_textbook_softmax_ce, logits, labels) + 3)

  def test_backward_pass_reads_no_log_probabilities(self):
    # The backward pass of the guarded loss has no logarithm and no test of
    # finiteness: only the forward value needs them.
    grad = jax.grad(lambda z, y: jnp.sum(
        _classification.softmax_cross_entropy(z, y)))
    hlo = jax.jit(grad).lower(self.logits, self.labels).compile().as_text()
    self.assertNotIn('is-finite(', hlo)
    self.assertNotIn(' log(', hlo)


class SoftmaxCrossEntropyWithIntegerLabelsTest(parameterized.TestCase):

  def setUp(self):
    super().setUp()
    rng = np.random.RandomState(3)
    self.logits = rng.randn(5, 7).astype(np.float32) * 2
    self.labels = rng.randint(0, 7, 5)

  def _reference(self, logits, labels):
    log_probs = special.log_softmax(logits.astype(np.float64), axis=-1)
    return -np.take_along_axis(log_probs, labels[..., None], -1)[..., 0]

  @parameterized.parameters(True, False)
  def test_matches_scipy(self, jit):
    fn = _maybe_jit(
        _classification.softmax_cross_entropy_with_integer_labels, jit)
    assert_allclose(fn(self.logits, self.labels),
                    self._reference(self.logits, self.labels),
                    rtol=RTOL, atol=ATOL)

  def test_matches_one_hot_version(self):
    one_hot = jax.nn.one_hot(self.labels, 7)
    assert_allclose(
        _classification.softmax_cross_entropy_with_integer_labels(
            self.logits, self.labels),
        _classification.softmax_cross_entropy(self.logits, one_hot),
        rtol=RTOL, atol=ATOL)

  def test_gradient(self):
    grad = jax.grad(lambda z: jnp.sum(
        _classification.softmax_cross_entropy_with_integer_labels(
            z, self.labels)))(self.logits)
    expected = (special.softmax(self.logits.astype(np.float64), -1)
                - np.eye(7)[self.labels])
    assert_allclose(grad, expected, rtol=1e-5, atol=1e-6)

  @parameterized.parameters(0, 1, 2, -2)
  def test_int_axis(self, axis):
    rng = np.random.RandomState(4)
    logits = rng.randn(2, 3, 4).astype(np.float32)
    labels_shape = list(logits.shape)
    num_classes = labels_shape.pop(axis)
    labels = rng.randint(0, num_classes, labels_shape)
    fn = jax.jit(functools.partial(
        _classification.softmax_cross_entropy_with_integer_labels,
        axis=axis))
    moved = np.moveaxis(logits, axis, -1)
    assert_allclose(fn(logits, labels), self._reference(moved, labels),
                    rtol=RTOL, atol=ATOL)

  @parameterized.parameters(((1, 2),), ((2, 1),), ((0, 2),), ((2, 0),),
                            ((-2, -1),))
  def test_tuple_axis_flattens_in_given_order(self, axis):
    rng = np.random.RandomState(5)
    logits = rng.randn(2, 3, 4).astype(np.float32)
    axis_pos = tuple(a % 3 for a in axis)
    batch_axis = [a for a in range(3) if a not in axis_pos]
    # Classes enumerate the class axes in the order given, first slowest.
    flat = np.transpose(logits, batch_axis + list(axis_pos)).reshape(
        logits.shape[batch_axis[0]], -1)
    labels = rng.randint(0, flat.shape[1], flat.shape[0])
    loss = _classification.softmax_cross_entropy_with_integer_labels(
        logits, labels, axis=axis)
    assert_allclose(loss, self._reference(flat, labels), rtol=RTOL,
                    atol=ATOL)

  def test_where_of_examples_masks_whole_rows(self):
    rows = np.array([True, False, True, True, False])
    fn = functools.partial(
        _classification.softmax_cross_entropy_with_integer_labels,
        where=rows)
    expected = np.where(rows, self._reference(self.logits, self.labels), 0.0)
    assert_allclose(fn(self.logits, self.labels), expected, rtol=RTOL,
                    atol=ATOL)
    grad = jax.grad(lambda z: jnp.sum(fn(z, self.labels)))(self.logits)
    self.assertTrue(_all_finite(grad))
    assert_allclose(grad[~rows], 0.0)

  def test_where(self):
    where = np.random.RandomState(6).rand(5, 7) < 0.5
    where[np.arange(5), self.labels] = True
    where[3] = False
    loss = _classification.softmax_cross_entropy_with_integer_labels(
        self.logits, self.labels, where=where)
    masked = np.where(where, self.logits, -np.inf)
    masked[3] = 0.0  # Row 3 has no valid class: its loss is zero.
    expected = self._reference(masked, self.labels)
    expected[3] = 0.0
    assert_allclose(loss, expected, rtol=RTOL, atol=ATOL)
    grad = jax.grad(lambda z: jnp.sum(
        _classification.softmax_cross_entropy_with_integer_labels(
            z, self.labels, where=where)))(self.logits)
    self.assertTrue(_all_finite(grad))
    assert_allclose(grad[3], 0.0)

  def test_negative_labels_count_from_the_end_and_out_of_range_is_nan(self):
    loss = _classification.softmax_cross_entropy_with_integer_labels(
        self.logits[:4], np.array([-1, -7, 7, -8]))
    expected = self._reference(self.logits[:2], np.array([6, 0]))
    assert_allclose(loss[:2], expected, rtol=RTOL, atol=ATOL)
    self.assertTrue(np.all(np.isnan(loss[2:])))

  def test_out_of_range_label_gradient_is_the_softmax(self):
    # As upstream 0.2.8: the label picks no logit, so the gradient of
    # logsumexp(z) - z[label] along z is the softmax alone.
    fn = _classification.softmax_cross_entropy_with_integer_labels
    labels = np.array([7, -8, 2])
    grad = jax.grad(lambda z: jnp.sum(fn(z, labels)))(self.logits[:3])
    probs = special.softmax(self.logits[:3].astype(np.float64), -1)
    assert_allclose(grad[:2], probs[:2], rtol=1e-5, atol=1e-7)
    assert_allclose(grad[2], probs[2] - np.eye(7)[2], rtol=1e-5, atol=1e-7)

  def test_extreme_and_neg_inf_logits(self):
    logits = jnp.array([[1e4, -1e4, 0.0], [-jnp.inf, 2.0, 1.0]])
    labels = jnp.array([1, 2])
    fn = _classification.softmax_cross_entropy_with_integer_labels
    assert_allclose(fn(logits, labels),
                    [2e4, special.logsumexp([2.0, 1.0]) - 1.0], rtol=RTOL)
    grad = jax.grad(lambda z: jnp.sum(fn(z, labels)))(logits)
    self.assertTrue(_all_finite(grad))

  @parameterized.parameters(jnp.float32, jnp.bfloat16)
  def test_dtype(self, dtype):
    loss = _classification.softmax_cross_entropy_with_integer_labels(
        jnp.asarray(self.logits, dtype), self.labels)
    self.assertEqual(loss.dtype, dtype)

  def test_errors(self):
    fn = _classification.softmax_cross_entropy_with_integer_labels
    with self.assertRaisesRegex(TypeError, 'integer dtype'):
      fn(self.logits, self.labels.astype(np.float32))
    with self.assertRaisesRegex(TypeError, 'floating dtype'):
      fn(self.logits.astype(np.int32), self.labels)
    with self.assertRaisesRegex(ValueError, 'axis'):
      fn(self.logits, self.labels, axis=[0])


def _np_log_sigmoid(x):
  return -np.logaddexp(0.0, -np.asarray(x, np.float64))


class SigmoidLossesTest(parameterized.TestCase):

  def setUp(self):
    super().setUp()
    rng = np.random.RandomState(7)
    self.logits = np.concatenate([
        rng.randn(20) * 4, [-1e4, 1e4, -30.0, 30.0, 0.0]]).astype(np.float32)
    self.soft = np.concatenate(
        [rng.rand(20), [0.0, 1.0, 1.0, 0.0, 1.0]]).astype(np.float32)
    self.hard = np.concatenate(
        [rng.rand(20) < 0.5, [0, 1, 1, 0, 1]]).astype(np.float32)

  def _bce(self, x, y):
    y = np.asarray(y, np.float64)
    return -y * _np_log_sigmoid(x) - (1 - y) * _np_log_sigmoid(-x)

  @parameterized.parameters(True, False)
  def test_bce(self, jit):
    fn = _maybe_jit(_classification.sigmoid_binary_cross_entropy, jit)
    assert_allclose(fn(self.logits, self.soft),
                    self._bce(self.logits, self.soft), rtol=RTOL, atol=ATOL)
    grad = jax.grad(lambda z: jnp.sum(fn(z, self.soft)))(self.logits)
    assert_allclose(grad, special.expit(self.logits.astype(np.float64))
                    - self.soft, atol=ATOL)

  def test_bce_dtype_follows_logits(self):
    loss = _classification.sigmoid_binary_cross_entropy(
        jnp.asarray(self.logits, jnp.bfloat16), self.hard.astype(np.int32))
    self.assertEqual(loss.dtype, jnp.bfloat16)

  def _focal(self, x, y, alpha, gamma):
    x = np.asarray(x, np.float64)
    y = np.asarray(y, np.float64)
    p = special.expit(x)
    one_minus_p_t = y * special.expit(-x) + (1 - y) * p
    loss = self._bce(x, y) * one_minus_p_t ** gamma
    if alpha is not None:
      loss *= alpha * y + (1 - alpha) * (1 - y)
    return loss

  @parameterized.parameters(
      (None, 2.0, False), (None, 0.5, True), (0.25, 0.0, True),
      (0.25, 2.0, False), (1.0, 3.5, True), (0.75, 1.0, True))
  def test_focal(self, alpha, gamma, jit):
    fn = _maybe_jit(functools.partial(
        _classification.sigmoid_focal_loss, alpha=alpha, gamma=gamma), jit)
    for labels in (self.soft, self.hard):
      assert_allclose(fn(self.logits, labels),
                      self._focal(self.logits, labels, alpha, gamma),
                      rtol=1e-5, atol=ATOL)
      grad = jax.grad(lambda z, y=labels: jnp.sum(fn(z, y)))(self.logits)
      self.assertTrue(_all_finite(grad))

  def test_focal_gamma_zero_is_bce(self):
    assert_allclose(
        _classification.sigmoid_focal_loss(self.logits, self.soft, gamma=0.0),
        _classification.sigmoid_binary_cross_entropy(self.logits, self.soft),
        rtol=RTOL, atol=ATOL)

  def test_focal_traced_hyperparameters(self):
    fn = jax.jit(lambda a, g: _classification.sigmoid_focal_loss(
        self.logits, self.hard, alpha=a, gamma=g))
    assert_allclose(fn(0.3, 1.5), self._focal(self.logits, self.hard, 0.3,
                                              1.5), rtol=1e-5, atol=ATOL)

  def test_focal_gradient_matches_finite_differences(self):
    x = np.array([-3.0, -0.5, 0.2, 2.5])
    y = np.array([1.0, 0.0, 0.3, 1.0])
    grad = jax.grad(lambda z: jnp.sum(_classification.sigmoid_focal_loss(
        z, y, gamma=1.5)))(x.astype(np.float32))
    h = 1e-6
    numeric = (self._focal(x + h, y, None, 1.5)
               - self._focal(x - h, y, None, 1.5)) / (2 * h)
    assert_allclose(grad, numeric, rtol=1e-4, atol=1e-6)

  def test_integer_logits_raise(self):
    with self.assertRaisesRegex(TypeError, 'floating dtype'):
      _classification.sigmoid_binary_cross_entropy(
          jnp.array([1, 2]), jnp.array([0.0, 1.0]))
    with self.assertRaisesRegex(TypeError, 'floating dtype'):
      _classification.sigmoid_focal_loss(
          jnp.array([1, 2]), jnp.array([0.0, 1.0]))


class PolyLossTest(parameterized.TestCase):

  def setUp(self):
    super().setUp()
    rng = np.random.RandomState(8)
    self.logits = rng.randn(4, 5).astype(np.float32) * 2
    self.labels = rng.rand(4, 5).astype(np.float32)

  def _reference(self, logits, labels, epsilon, where=None):
    if where is None:
      where = np.ones(logits.shape, bool)
    probs = special.softmax(
        np.where(where, logits.astype(np.float64), -np.inf), -1)
    poly = np.sum(np.where(where, labels * (1 - probs), 0.0), -1)
    return _np_softmax_ce(logits, labels, where=where) + epsilon * poly

  @parameterized.parameters(
      itertools.product([-1.0, 0.0, 2.0, 5.0], [True, False]))
  def test_matches_reference(self, epsilon, jit):
    fn = _maybe_jit(functools.partial(
        _classification.poly_loss_cross_entropy, epsilon=epsilon), jit)
    assert_allclose(fn(self.logits, self.labels),
                    self._reference(self.logits, self.labels, epsilon),
                    rtol=RTOL, atol=ATOL)

  def test_where_and_axis(self):
    where = np.random.RandomState(9).rand(4, 5) < 0.6
    where[:, 1] = True
    assert_allclose(
        _classification.poly_loss_cross_entropy(
            self.logits, self.labels, where=where),
        self._reference(self.logits, self.labels, 2.0, where),
        rtol=RTOL, atol=ATOL)
    assert_allclose(
        _classification.poly_loss_cross_entropy(
            self.logits.T, self.labels.T, axis=0),
        self._reference(self.logits, self.labels, 2.0), rtol=RTOL,
        atol=ATOL)

  def test_neg_inf_logits_finite(self):
    logits = jnp.array([[1.0, -jnp.inf, 2.0]])
    labels = jnp.array([[0.5, 0.0, 0.5]])
    fn = _classification.poly_loss_cross_entropy
    self.assertTrue(_all_finite(fn(logits, labels)))
    self.assertTrue(_all_finite(
        jax.grad(lambda z: jnp.sum(fn(z, labels)))(logits)))

  def test_integer_labels_raise(self):
    with self.assertRaisesRegex(TypeError, 'labels'):
      _classification.poly_loss_cross_entropy(self.logits, np.ones((4, 5),
                                                                   int))

  def _reference_gradients(self, logits, labels, epsilon):
    # The derivatives of the docstring's formula, in float64: along the
    # logits, sum(y) p - y for the cross-entropy and, for
    # sum(y (1 - p)), p sum(y p) - y p; along the labels, -log p and 1 - p.
    logits = np.asarray(logits, np.float64)
    labels = np.asarray(labels, np.float64)
    probs = special.softmax(logits, -1)
    log_probs = special.log_softmax(logits, -1)
    weighted = labels * probs
    dlogits = (probs * labels.sum(-1, keepdims=True) - labels
               + epsilon * (probs * weighted.sum(-1, keepdims=True)
                            - weighted))
    # A zero label on a -inf logit: 0 log 0 = 0 takes no part.
    masked = np.where(np.isneginf(log_probs) & (labels == 0), 0.0, log_probs)
    dlabels = -masked + epsilon * (1 - probs)
    return dlogits, dlabels

  @parameterized.parameters(-1.0, 0.0, 2.0)
  def test_gradients_match_reference_in_both_modes(self, epsilon):
    labels = self.labels.copy()
    labels[0, 1] = 0.0
    logits = jnp.asarray(self.logits).at[0, 1].set(-jnp.inf)
    fn = functools.partial(_classification.poly_loss_cross_entropy,
                           epsilon=epsilon)
    dlogits, dlabels = self._reference_gradients(logits, labels, epsilon)
    for jit in (False, True):
      grad = _maybe_jit(jax.grad(lambda z: jnp.sum(fn(z, labels))), jit)
      assert_allclose(grad(logits), dlogits, rtol=1e-5, atol=1e-6)
      grad = _maybe_jit(jax.grad(lambda y: jnp.sum(fn(logits, y))), jit)
      assert_allclose(grad(labels), dlabels, rtol=1e-5, atol=1e-6)
    for argnum, expected in ((0, dlogits), (1, dlabels)):
      fwd = jax.jacfwd(fn, argnums=argnum)(logits, labels)
      rows = np.arange(4)
      assert_allclose(fwd[rows, rows], expected, rtol=1e-5, atol=1e-6)

  def test_neg_inf_logit_with_zero_label_jacobians_agree(self):
    logits = jnp.array([[1.0, -jnp.inf, 2.0], [-jnp.inf, 0.5, 0.0]])
    labels = jnp.array([[0.5, 0.0, 0.5], [0.0, 1.0, 0.0]])
    fn = _classification.poly_loss_cross_entropy
    for argnum in (0, 1):
      fwd = jax.jacfwd(fn, argnums=argnum)(logits, labels)
      rev = jax.jacrev(fn, argnums=argnum)(logits, labels)
      self.assertTrue(_all_finite(fwd))
      assert_allclose(fwd, rev, rtol=1e-6, atol=1e-7)

  def test_where_gradient_is_zero_where_masked(self):
    where = np.ones((4, 5), bool)
    where[:, 2] = False
    where[3] = False
    fn = functools.partial(_classification.poly_loss_cross_entropy,
                           where=where)
    grad = jax.grad(lambda z: jnp.sum(fn(z, self.labels)))(self.logits)
    self.assertTrue(_all_finite(grad))
    assert_allclose(grad[~where], 0.0)
    dlogits, _ = self._reference_gradients(
        np.where(where, self.logits, -np.inf)[:3], self.labels[:3]
        * where[:3], 2.0)
    assert_allclose(grad[:3], np.where(where[:3], dlogits, 0.0), rtol=1e-5,
                    atol=1e-6)


class MarginLossesTest(parameterized.TestCase):

  def setUp(self):
    super().setUp()
    rng = np.random.RandomState(10)
    self.outputs = (rng.randn(30) * 2).astype(np.float32)
    self.targets = np.sign(rng.randn(30)).astype(np.float32)
    self.scores = (rng.randn(8, 5) * 2).astype(np.float32)
    self.labels = rng.randint(0, 5, 8)

  @parameterized.parameters(True, False)
  def test_hinge_and_perceptron(self, jit):
    hinge = _maybe_jit(_classification.hinge_loss, jit)
    perceptron = _maybe_jit(_classification.perceptron_loss, jit)
    assert_allclose(hinge(self.outputs, self.targets),
                    np.maximum(0, 1 - self.outputs * self.targets))
    assert_allclose(perceptron(self.outputs, self.targets),
                    np.maximum(0, -self.outputs * self.targets))

  def test_perceptron_shape_mismatch(self):
    with self.assertRaisesRegex(ValueError, 'Shape mismatch'):
      _classification.perceptron_loss(jnp.ones(3), jnp.ones(4))

  def test_integer_inputs_stay_integer(self):
    loss = _classification.hinge_loss(jnp.array([-2, 0, 3]),
                                      jnp.array([1, -1, 1]))
    np.testing.assert_array_equal(loss, [3, 1, 0])
    self.assertTrue(jnp.issubdtype(loss.dtype, jnp.integer))

  @parameterized.parameters(True, False)
  def test_multiclass_hinge(self, jit):
    fn = _maybe_jit(_classification.multiclass_hinge_loss, jit)
    margins = self.scores + 1.0 - np.eye(5)[self.labels]
    expected = margins.max(-1) - self.scores[np.arange(8), self.labels]
    assert_allclose(fn(self.scores, self.labels), expected, rtol=RTOL)

  @parameterized.parameters(True, False)
  def test_multiclass_perceptron(self, jit):
    fn = _maybe_jit(_classification.multiclass_perceptron_loss, jit)
    expected = (self.scores.max(-1)
                - self.scores[np.arange(8), self.labels])
    assert_allclose(fn(self.scores, self.labels), expected, rtol=RTOL)

  def test_multiclass_tie_gradients_are_split(self):
    grad = jax.grad(lambda s: jnp.sum(
        _classification.multiclass_perceptron_loss(s, jnp.array([2]))))(
            jnp.ones((1, 3)))
    assert_allclose(grad, [[1 / 3, 1 / 3, -2 / 3]], rtol=1e-6)

  def test_multiclass_label_shape_mismatch(self):
    with self.assertRaisesRegex(ValueError, 'labels'):
      _classification.multiclass_perceptron_loss(jnp.ones((3, 3)),
                                                 jnp.array([0, 1]))
    with self.assertRaisesRegex(ValueError, 'labels'):
      _classification.multiclass_sparsemax_loss(jnp.ones((3, 3)),
                                                jnp.array([0, 1]))


def _np_sparsemax(z):
  """Projection onto the simplex by sorting (Michelot), float64."""
  z = np.asarray(z, np.float64)
  z_sorted = np.sort(z)[::-1]
  cumsum = np.cumsum(z_sorted)
  k = np.arange(1, z.size + 1)
  support = k[1 + k * z_sorted > cumsum].max()
  tau = (cumsum[support - 1] - 1) / support
  return np.maximum(z - tau, 0.0)


class SparsemaxLossTest(parameterized.TestCase):

  @parameterized.parameters(True, False)
  def test_binary(self, jit):
    fn = _maybe_jit(_classification.sparsemax_loss, jit)
    x = np.linspace(-3, 3, 25).astype(np.float32)
    for labels in (np.ones(25), np.zeros(25)):
      u = np.where(labels > 0, -x, x).astype(np.float64)
      expected = np.where(u <= -1, 0.0, np.where(u >= 1, u, (u + 1) ** 2 / 4))
      assert_allclose(fn(x, labels.astype(np.int32)), expected, rtol=1e-5,
                      atol=1e-6)

  def test_multiclass(self):
    rng = np.random.RandomState(11)
    scores = (rng.randn(20, 6) * rng.choice([0.05, 0.5, 3.0], (20, 1))
              ).astype(np.float32)
    labels = rng.randint(0, 6, 20)
    fn = jax.jit(_classification.multiclass_sparsemax_loss)
    expected = []
    expected_grad = []
    for s, y in zip(scores, labels):
      p = _np_sparsemax(s)
      expected.append(s @ p - 0.5 * p @ p - s[y] + 0.5)
      expected_grad.append(p - np.eye(6)[y])
    assert_allclose(fn(scores, labels), expected, rtol=1e-5, atol=1e-6)
    grad = jax.jit(jax.grad(lambda s: jnp.sum(fn(s, labels))))(scores)
    assert_allclose(grad, expected_grad, atol=1e-5)
    # Eagerly, on one row.
    assert_allclose(_classification.multiclass_sparsemax_loss(
        scores[:1], labels[:1]), expected[:1], rtol=1e-5, atol=1e-6)

  def test_multiclass_zero_beyond_unit_margin(self):
    loss = _classification.multiclass_sparsemax_loss(
        jnp.array([[3.0, 1.0, 0.5], [1e4, -1e4, 0.0]]), jnp.array([0, 0]))
    assert_allclose(loss, [0.0, 0.0], atol=1e-6)

  def test_multiclass_requires_integer_labels(self):
    with self.assertRaisesRegex(TypeError, 'integer'):
      _classification.multiclass_sparsemax_loss(jnp.ones((2, 3)),
                                                jnp.array([0.0, 1.0]))


class KLDivergenceTest(parameterized.TestCase):

  def setUp(self):
    super().setUp()
    rng = np.random.RandomState(12)
    self.log_predictions = special.log_softmax(rng.randn(4, 5), -1).astype(
        np.float32)
    targets = rng.rand(4, 5)
    targets[:, 1] = 0.0
    self.targets = (targets / targets.sum(-1, keepdims=True)).astype(
        np.float32)

  @parameterized.parameters(True, False)
  def test_kl(self, jit):
    fn = _maybe_jit(_classification.kl_divergence, jit)
    expected = special.rel_entr(
        self.targets.astype(np.float64),
        np.exp(self.log_predictions.astype(np.float64))).sum(-1)
    assert_allclose(fn(self.log_predictions, self.targets), expected,
                    rtol=1e-5, atol=1e-6)

  @parameterized.parameters(
      _classification.generalized_kl_divergence,
      _classification.convex_kl_divergence)
  def test_generalized_kl(self, fn):
    rng = np.random.RandomState(13)
    log_q = rng.randn(4, 5).astype(np.float32)
    t = np.abs(rng.randn(4, 5)).astype(np.float32)
    t[0, 0] = 0.0
    expected = special.kl_div(t.astype(np.float64),
                              np.exp(log_q.astype(np.float64))).sum(-1)
    assert_allclose(jax.jit(fn)(log_q, t), expected, rtol=1e-5, atol=1e-6)

  def test_with_log_targets(self):
    with np.errstate(divide='ignore'):
      log_targets = np.log(self.targets)
    expected = special.rel_entr(
        self.targets.astype(np.float64),
        np.exp(self.log_predictions.astype(np.float64))).sum(-1)
    fn = _classification.kl_divergence_with_log_targets
    loss = fn(self.log_predictions, log_targets)
    assert_allclose(loss, expected, rtol=1e-5, atol=1e-6)
    grads = jax.grad(lambda a, b: jnp.sum(fn(a, b)), argnums=(0, 1))(
        self.log_predictions, log_targets)
    self.assertTrue(_all_finite(grads))

  @parameterized.parameters(
      _classification.kl_divergence,
      _classification.generalized_kl_divergence,
      _classification.convex_kl_divergence)
  def test_zero_targets_with_neg_inf_predictions(self, fn):
    log_q = jnp.array([0.0, -jnp.inf])
    t = jnp.array([1.0, 0.0])
    assert_allclose(fn(log_q, t), 0.0)
    grads = jax.grad(fn, argnums=(0, 1))(log_q, t)
    self.assertTrue(_all_finite(grads))

  @parameterized.parameters(
      _classification.kl_divergence,
      _classification.generalized_kl_divergence,
      _classification.kl_divergence_with_log_targets)
  def test_where_and_axis(self, fn):
    where = np.random.RandomState(14).rand(4, 5) < 0.6
    with np.errstate(divide='ignore'):
      second = (np.log(self.targets)
                if fn is _classification.kl_divergence_with_log_targets
                else self.targets)
    masked = fn(self.log_predictions, second, where=where)
    summed = jnp.sum(jnp.where(
        where, jax.vmap(jax.vmap(fn))(
            self.log_predictions[..., None], second[..., None]), 0.0), -1)
    assert_allclose(masked, summed, rtol=1e-5, atol=1e-6)
    assert_allclose(fn(self.log_predictions.T, second.T, axis=0),
                    fn(self.log_predictions, second), rtol=1e-6)

  def test_convex_kl_is_deprecated_alias_of_generalized_kl(self):
    log_q = np.log(np.array([2.0, 1.0], np.float32))
    t = np.ones(2, np.float32)
    with self.assertWarns(DeprecationWarning) as caught:
      loss = _classification.convex_kl_divergence(log_q, t)
    # Upstream 0.2.8's message, word for word.
    self.assertEqual(
        str(caught.warning), 'The function convex_kl_divergence is'
        ' deprecated. Please use generalized_kl_divergence instead.')
    assert_allclose(
        loss, _classification.generalized_kl_divergence(log_q, t))

  def test_errors(self):
    with self.assertRaisesRegex(TypeError, 'targets'):
      _classification.kl_divergence(jnp.zeros(3), jnp.array([1, 0, 0]))
    with self.assertRaisesRegex(ValueError, 'Shape mismatch'):
      _classification.kl_divergence(jnp.zeros((2, 3)), jnp.ones((2, 4)))


def _np_ctc_loss(log_probs, labels, blank):
  """Textbook CTC forward algorithm on the blank-extended label sequence."""
  num_frames = log_probs.shape[0]
  extended = [blank]
  for label in labels:
    extended += [label, blank]
  num_states = len(extended)
  alpha = np.full(num_states, -np.inf)
  alpha[0] = log_probs[0, blank]
  if num_states > 1:
    alpha[1] = log_probs[0, extended[1]]
  for t in range(1, num_frames):
    new = np.full(num_states, -np.inf)
    for s in range(num_states):
      candidates = [alpha[s]]
      if s >= 1:
        candidates.append(alpha[s - 1])
      if s >= 2 and extended[s] != blank and extended[s] != extended[s - 2]:
        candidates.append(alpha[s - 2])
      new[s] = np.logaddexp.reduce(candidates) + log_probs[t, extended[s]]
    alpha = new
  final = [alpha[-1]] + ([alpha[-2]] if num_states > 1 else [])
  return -np.logaddexp.reduce(final)


def _brute_force_ctc_loss(log_probs, labels, blank):
  """Sums the probability of every frame path that collapses to labels."""
  num_frames, num_classes = log_probs.shape
  total = -np.inf
  for path in itertools.product(range(num_classes), repeat=num_frames):
    collapsed = [c for i, c in enumerate(path)
                 if c != blank and (i == 0 or path[i - 1] != c)]
    if collapsed == list(labels):
      total = np.logaddexp(
          total, sum(log_probs[t, c] for t, c in enumerate(path)))
  return -total


_ctc_jit = jax.jit(_classification.ctc_loss,
                   static_argnames=('blank_id', 'log_epsilon'))
_ctc_forward_jit = jax.jit(_classification.ctc_loss_with_forward_probs)


@jax.jit
def _ctc_grad(logits, logit_paddings, labels, label_paddings):
  return jax.grad(lambda z: jnp.sum(_classification.ctc_loss(
      z, logit_paddings, labels, label_paddings)))(logits)


class CTCLossTest(parameterized.TestCase):

  def _inputs(self, batch, frames, classes, max_len, seed):
    rng = np.random.RandomState(seed)
    logits = rng.randn(batch, frames, classes).astype(np.float32)
    frame_lens = rng.randint(frames // 2 + 1, frames + 1, batch)
    logit_paddings = (np.arange(frames)[None] >= frame_lens[:, None]).astype(
        np.float32)
    label_lens = rng.randint(0, max_len + 1, batch)
    label_paddings = (np.arange(max_len)[None] >= label_lens[:, None]).astype(
        np.float32)
    labels = rng.randint(1, classes, (batch, max_len))
    labels[0, :2] = labels[0, 0]  # A repeated label.
    label_lens[0] = max(label_lens[0], 2)
    label_paddings[0, :2] = 0.0
    return logits, logit_paddings, labels, label_paddings, frame_lens, (
        max_len - label_paddings.sum(1).astype(int))

  def test_brute_force_small_case(self):
    rng = np.random.RandomState(15)
    logits = rng.randn(3, 4, 3).astype(np.float32)
    labels = np.array([[1, 1], [1, 2], [2, 0]])
    label_paddings = np.array([[0, 0], [0, 0], [0, 1]], np.float32)
    loss = _ctc_jit(logits, np.zeros((3, 4)), labels, label_paddings)
    for b, length in enumerate([2, 2, 1]):
      log_probs = special.log_softmax(logits[b].astype(np.float64), -1)
      expected = _brute_force_ctc_loss(log_probs, labels[b, :length], 0)
      assert_allclose(loss[b], expected, rtol=1e-5)

  def test_forward_algorithm_reference(self):
    logits, logit_paddings, labels, label_paddings, frame_lens, label_lens = (
        self._inputs(4, 12, 5, 4, 16))
    loss = _ctc_jit(logits, logit_paddings, labels, label_paddings)
    for b in range(4):
      log_probs = special.log_softmax(
          logits[b, :frame_lens[b]].astype(np.float64), -1)
      expected = _np_ctc_loss(log_probs, labels[b, :label_lens[b]], 0)
      assert_allclose(loss[b], expected, rtol=1e-5)

  def test_other_blank_id(self):
    logits, logit_paddings, labels, label_paddings, frame_lens, label_lens = (
        self._inputs(3, 8, 4, 3, 17))
    labels = labels - 1  # Labels in [0, 3), class 3 is the blank.
    loss = _ctc_jit(logits, logit_paddings, labels, label_paddings,
                    blank_id=3)
    for b in range(3):
      log_probs = special.log_softmax(
          logits[b, :frame_lens[b]].astype(np.float64), -1)
      expected = _np_ctc_loss(log_probs, labels[b, :label_lens[b]], 3)
      assert_allclose(loss[b], expected, rtol=1e-5)

  def test_forward_probs(self):
    logits, logit_paddings, labels, label_paddings, _, label_lens = (
        self._inputs(3, 10, 5, 4, 18))
    loss, phi, emit = _ctc_forward_jit(
        logits, logit_paddings, labels, label_paddings)
    self.assertEqual(phi.shape, (10, 3, 5))
    self.assertEqual(emit.shape, (10, 3, 4))
    assert_allclose(loss, -phi[-1, np.arange(3), label_lens], rtol=1e-6)
    # Padded frames carry the state over unchanged.
    for b in range(3):
      for t in range(1, 10):
        if logit_paddings[b, t] and t < 9:
          assert_allclose(phi[t, b], phi[t - 1, b])
          assert_allclose(emit[t, b], emit[t - 1, b])

  def test_gradients_finite_and_zero_on_padded_frames(self):
    logits, logit_paddings, labels, label_paddings, _, _ = self._inputs(
        4, 12, 5, 4, 19)
    for scale in (1.0, 1e3):
      grad = _ctc_grad(logits * scale, logit_paddings, labels,
                       label_paddings)
      self.assertTrue(_all_finite(grad))
      assert_allclose(np.where(logit_paddings[..., None] > 0, grad, 0.0), 0.0)
      # Each frame's gradient is softmax minus a distribution: sums to zero.
      assert_allclose(grad.sum(-1), 0.0, atol=1e-5)

  def test_neg_inf_logits(self):
    logits = jnp.array([[[0.0, -jnp.inf, 0.0], [0.0, 0.0, -jnp.inf]]])
    args = (jnp.zeros((1, 2)), jnp.array([[1]]), jnp.zeros((1, 1)))
    loss = _ctc_jit(logits, *args)
    # Only the path (blank, 1) is possible: probability 1/2 * 1/2.
    assert_allclose(loss, [np.log(4.0)], rtol=1e-6)
    grad = _ctc_grad(logits, *args)
    self.assertTrue(_all_finite(grad))

  @parameterized.product(margin=[17.0, 18.0, 20.0, 30.0, 40.0, 100.0],
                         jit=[True, False])
  def test_confident_alignment_is_nonnegative_issue_1771(self, margin, jit):
    # Two frames, classes (blank, a), logits (0, margin) at each: the blank
    # has probability s = 1 / (1 + e^margin). The paths (a, a), (blank, a)
    # and (a, blank) give "a", together 1 - s^2, so the loss is
    # -log1p(-s^2) (1.7e-15 for margin 17), below float32's resolution of
    # the log-probabilities; upstream's recursion rounds it to -8.3e-8 for
    # margin 17 and -0 for margin 100. The loss is never below 0, nor -0.
    logits = jnp.array([[[0.0, margin], [0.0, margin]]], jnp.float32)
    args = (logits, jnp.zeros((1, 2)), jnp.array([[1]]), jnp.zeros((1, 1)))
    s = 1.0 / (1.0 + np.exp(margin))
    expected = -np.log1p(-s * s)
    loss_fn = _ctc_jit if jit else _classification.ctc_loss
    forward_fn = (_ctc_forward_jit if jit
                  else _classification.ctc_loss_with_forward_probs)
    for loss in (loss_fn(*args), forward_fn(*args)[0]):
      self.assertEqual(loss.dtype, jnp.float32)
      self.assertGreaterEqual(float(loss[0]), 0.0)
      self.assertFalse(np.signbit(loss[0]))
      assert_allclose(loss, [expected], atol=1e-7)
    self.assertTrue(_all_finite(_ctc_grad(*args)))

  def test_infeasible_is_about_minus_log_epsilon(self):
    loss = _ctc_jit(
        jnp.zeros((1, 1, 3)), jnp.zeros((1, 1)), jnp.array([[1, 2]]),
        jnp.zeros((1, 2)), log_epsilon=-1e4)
    self.assertGreater(float(loss[0]), 9e3)

  def test_dtypes(self):
    logits, logit_paddings, labels, label_paddings, _, _ = self._inputs(
        2, 5, 3, 2, 20)
    for dtype in (jnp.float32, jnp.bfloat16):
      outputs = _ctc_forward_jit(
          jnp.asarray(logits, dtype), logit_paddings, labels, label_paddings)
      for x in outputs:
        self.assertEqual(x.dtype, jnp.float32)

  def test_shape_errors(self):
    logits = jnp.zeros((2, 5, 3))
    paddings = jnp.zeros((2, 5))
    labels = jnp.ones((2, 2), int)
    label_paddings = jnp.zeros((2, 2))
    with self.assertRaisesRegex(ValueError, 'rank 3'):
      _classification.ctc_loss(logits[0], paddings, labels, label_paddings)
    with self.assertRaisesRegex(ValueError, 'batch size 2'):
      _classification.ctc_loss(logits, paddings, labels[:1],
                               label_paddings[:1])
    with self.assertRaisesRegex(ValueError, 'logit_paddings'):
      _classification.ctc_loss(logits, paddings[:, :4], labels,
                               label_paddings)
    with self.assertRaisesRegex(ValueError, 'label_paddings'):
      _classification.ctc_loss(logits, paddings, labels,
                               label_paddings[:, :1])


if __name__ == '__main__':
  absltest.main()
