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
"""Tests for Muon (``optax.contrib._muon``).

Values are checked against NumPy (float64) implementations of the
Newton-Schulz iterations, of the Muon momentum and of the Adam fallback,
written here from the papers.
"""

import math

from absl.testing import absltest
from absl.testing import parameterized
import jax
import jax.numpy as jnp
from jax.sharding import PartitionSpec as P
import numpy as np

from optax._src import test_utils
from optax._src.testing import host_devices
from optax._src.testing import optimizer_checks
from optax._src.testing import probes
from optax.contrib import _muon
from optax.schedules import _inject
from optax.transforms import _masking

D = _muon.MuonDimensionNumbers
_COEFFS = (3.4445, -4.775, 2.0315)
_DION = (
    (4.0848, -6.8946, 2.9270),
    (3.9505, -6.3029, 2.6377),
    (3.7418, -5.5913, 2.3037),
    (2.8769, -3.1427, 1.2046),
    (2.8366, -3.0525, 1.2012),
)


def _np_newton_schulz(g, coeffs=_COEFFS, steps=5, preconditioning='frobenius',
                      eps=1e-8):
  """Reference Newton-Schulz orthogonalization of one matrix (float64).

  A complex matrix (complex128) uses the Hermitian Gram matrix X X^H.
  """
  x = np.asarray(g, np.complex128 if np.iscomplexobj(g) else np.float64)
  transposed = x.shape[0] > x.shape[1]
  if transposed:
    x = x.T
  coeffs = np.asarray(coeffs, np.float64)
  rows = coeffs if coeffs.ndim == 2 else np.tile(coeffs, (steps, 1))
  gram = x @ x.conj().T
  if preconditioning == 'frobenius':
    x = x / (np.linalg.norm(x) + eps)
  elif preconditioning == 'spectral':
    x = x / (np.linalg.norm(x, 2) + eps)
  elif preconditioning == 'aol':
    x = x / np.sqrt(np.maximum(np.abs(gram).sum(axis=1), eps))[:, None]
  else:  # Schatten-4 norm.
    x = x / np.sqrt(max(np.linalg.norm(gram), eps))
  for a, b, c in rows:
    gram = x @ x.conj().T
    x = a * x + (b * gram + c * gram @ gram) @ x
  return x.T if transposed else x


def _np_momentum(g, m, t, beta, nesterov):
  """Muon's momentum and its (Nesterov) bias-corrected estimate."""
  m = beta * m + (1 - beta) * g
  if nesterov:
    m_hat = beta * m / (1 - beta**(t + 1)) + (1 - beta) * g / (1 - beta**t)
  else:
    m_hat = m / (1 - beta**t)
  return m, m_hat


def _np_adam(g, m, v, t, b1=0.9, b2=0.999, eps=1e-8, nesterov=True):
  """NAdam (or Adam) direction, float64."""
  m = b1 * m + (1 - b1) * g
  v = b2 * v + (1 - b2) * g * g
  if nesterov:
    m_hat = b1 * m / (1 - b1**(t + 1)) + (1 - b1) * g / (1 - b1**t)
  else:
    m_hat = m / (1 - b1**t)
  return m, v, m_hat / (np.sqrt(v / (1 - b2**t)) + eps)


def _f32(tree):
  return jax.tree.map(lambda x: jnp.asarray(x, jnp.float32), tree)


def _maybe_jit(fn, use_jit):
  return jax.jit(fn) if use_jit else fn


class _AgainstFloat64(parameterized.TestCase):
  """Compares with the float64 references at float32's full precision.

  On every backend the float32 (and complex64) matrix products run at
  ``'highest'`` precision, the precision the references mean: XLA:GPU's
  default runs them in TF32 on recent GPUs (10-bit mantissas; up to 7.6%
  off after the Newton-Schulz iterations on an H200). XLA:CPU computes them
  in full float32 either way: the same bits there.
  """

  def setUp(self):
    super().setUp()
    self.enter_context(jax.default_matmul_precision('highest'))


class NewtonSchulzTest(_AgainstFloat64):

  @parameterized.product(
      shape=[(3, 5), (5, 3), (4, 4)],
      preconditioning=['frobenius', 'spectral', 'aol', 'schatten'])
  def test_matches_reference(self, shape, preconditioning):
    g = np.random.default_rng(0).standard_normal(shape)
    got = _muon.orthogonalize_via_newton_schulz(
        jnp.asarray(g, jnp.float32), jnp.asarray(_COEFFS),
        preconditioning=preconditioning)
    want = _np_newton_schulz(g, preconditioning=preconditioning)
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-5)

  @parameterized.product(
      shape=[(3, 5), (5, 3)],
      preconditioning=['frobenius', 'spectral', 'aol', 'schatten'])
  def test_complex_matches_reference(self, shape, preconditioning):
    # Upstream 0.2.8 supports complex params (its complex mixed-target
    # test): the Gram matrix is X X^H and the scalings are real.
    rng = np.random.default_rng(1)
    g = rng.standard_normal(shape) + 1j * rng.standard_normal(shape)
    got = _muon.orthogonalize_via_newton_schulz(
        jnp.asarray(g, jnp.complex64), jnp.asarray(_COEFFS),
        preconditioning=preconditioning)
    self.assertEqual(got.dtype, jnp.complex64)
    want = _np_newton_schulz(g, preconditioning=preconditioning)
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-5)

  def test_complex_converges_to_the_polar_factor(self):
    # With the cubic iteration (1.5, -0.5, 0), X converges to U V^H.
    rng = np.random.default_rng(2)
    g = rng.standard_normal((3, 4)) + 1j * rng.standard_normal((3, 4))
    got = _muon.orthogonalize_via_newton_schulz(
        jnp.asarray(g, jnp.complex64), jnp.asarray([1.5, -0.5, 0.0]),
        ns_steps=60)
    u, _, vh = np.linalg.svd(g, full_matrices=False)
    np.testing.assert_allclose(got, u @ vh, atol=1e-5)

  def test_singular_values_near_one(self):
    g = np.random.default_rng(1).standard_normal((16, 8))
    o = _muon.orthogonalize_via_newton_schulz(
        jnp.asarray(g, jnp.float32), jnp.asarray(_COEFFS))
    singular_values = np.linalg.svd(np.asarray(o), compute_uv=False)
    self.assertTrue(np.all(singular_values > 0.6), singular_values)
    self.assertTrue(np.all(singular_values < 1.25), singular_values)
    # Same singular vectors as the input: o ~ U V^T.
    u, _, vt = np.linalg.svd(g, full_matrices=False)
    np.testing.assert_allclose(np.sum(np.asarray(o) * (u @ vt)),
                               np.sum(singular_values), rtol=1e-3)

  def test_per_step_coefficients_ignore_ns_steps(self):
    g = np.random.default_rng(2).standard_normal((3, 6))
    want = _np_newton_schulz(g, coeffs=_DION)
    for steps in (1, 5, 9):
      got = _muon.orthogonalize_via_newton_schulz(
          jnp.asarray(g, jnp.float32), jnp.asarray(_DION), ns_steps=steps)
      np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-5)

  def test_ns_steps(self):
    g = np.random.default_rng(3).standard_normal((3, 4))
    for steps in (0, 1, 3):
      got = _muon.orthogonalize_via_newton_schulz(
          jnp.asarray(g, jnp.float32), jnp.asarray(_COEFFS), ns_steps=steps)
      np.testing.assert_allclose(got, _np_newton_schulz(g, steps=steps),
                                 rtol=1e-4, atol=1e-5)

  def test_zero_matrix_stays_zero(self):
    for preconditioning in ('frobenius', 'spectral', 'aol', 'schatten'):
      o = _muon.orthogonalize_via_newton_schulz(
          jnp.zeros((3, 4)), jnp.asarray(_COEFFS),
          preconditioning=preconditioning)
      np.testing.assert_array_equal(o, np.zeros((3, 4)))

  def test_dimension_numbers_batch(self):
    g = np.random.default_rng(4).standard_normal((2, 3, 5))
    got = _muon.orthogonalize_via_newton_schulz(
        jnp.asarray(g, jnp.float32), jnp.asarray(_COEFFS),
        dimension_numbers=D(reduction_axis=1, output_axis=2))
    want = np.stack([_np_newton_schulz(g[i]) for i in range(2)])
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-5)

  def test_rejects_non_matrix_without_dimension_numbers(self):
    with self.assertRaisesRegex(ValueError, 'must be a matrix'):
      _muon.orthogonalize_via_newton_schulz(jnp.ones((2, 3, 4)),
                                            jnp.asarray(_COEFFS))

  def test_runs_in_a_loop_not_unrolled(self):
    # The iterations are a loop: the traced program does not grow with
    # the number of steps.
    x = jnp.ones((4, 6))
    sizes = [
        len(jax.make_jaxpr(
            lambda y, s=steps: _muon.orthogonalize_via_newton_schulz(
                y, jnp.asarray(_COEFFS), ns_steps=s))(x).eqns)
        for steps in (2, 20)]
    self.assertEqual(sizes[0], sizes[1])


class ReshapeTest(parameterized.TestCase):

  @parameterized.parameters(
      ((2, 3, 4, 5), D(), (20, 2, 3), (2, 3, 0, 1)),
      ((2, 3, 4, 5), D(1, 2), (10, 3, 4), (0, 3, 1, 2)),
      ((2, 3, 4, 5), D((0, 1), 2), (5, 6, 4), (3, 0, 1, 2)),
      ((2, 3, 4, 5), D(-1, -2), (6, 5, 4), (0, 1, 3, 2)),
      ((2, 3, 4, 5), D(1, (3, 0)), (4, 3, 10), (2, 1, 3, 0)),
      ((3, 4), D(1, 0), (1, 4, 3), (1, 0)),
  )
  def test_reshape_and_inverse(self, shape, dim_nums, matrices_shape, perm):
    x = np.arange(math.prod(shape), dtype=np.float32).reshape(shape)
    reshape_fn, inverse_fn = _muon._compute_muon_reshape(x, dim_nums)
    y = reshape_fn(jnp.asarray(x))
    self.assertEqual(y.shape, matrices_shape)
    np.testing.assert_array_equal(
        y, np.transpose(x, perm).reshape(matrices_shape))
    np.testing.assert_array_equal(inverse_fn(y), x)

  @parameterized.parameters(
      (D(0, 0), 'distinct'), (D(3, 1), 'out of range'),
      (D((), 1), 'at least one axis'))
  def test_invalid(self, dim_nums, message):
    with self.assertRaisesRegex(ValueError, message):
      _muon._compute_muon_reshape(jnp.ones((2, 3)), dim_nums)


class ScaleByMuonTest(_AgainstFloat64):

  @parameterized.parameters(
      (True, False, False), (True, False, True), (False, False, True),
      (True, True, True), (False, True, False))
  def test_matches_reference(self, nesterov, adaptive, use_jit):
    rng = np.random.default_rng(5)
    shape = (4, 6)
    grads = [rng.standard_normal(shape) for _ in range(3)]
    tx = _muon.scale_by_muon(beta=0.9, nesterov=nesterov, adaptive=adaptive)
    state = tx.init(jnp.zeros(shape))
    update = _maybe_jit(tx.update, use_jit)
    m = np.zeros(shape)
    for t, g in enumerate(grads, start=1):
      updates, state = update(jnp.asarray(g, jnp.float32), state)
      m, m_hat = _np_momentum(g, m, t, 0.9, nesterov)
      want = _np_newton_schulz(m_hat)
      if adaptive:
        want = want * np.sum(m_hat * want)
      np.testing.assert_allclose(updates, want, rtol=1e-4, atol=1e-5)
      np.testing.assert_allclose(state.mu, m, rtol=1e-5, atol=1e-6)
      self.assertEqual(int(state.count), t)

  @parameterized.parameters(True, False)
  def test_complex_adaptive_matches_reference(self, nesterov):
    # The adaptive scale is <m_hat, o> = sum(conj(m_hat) o), as upstream's.
    rng = np.random.default_rng(6)
    shape = (3, 4)
    grads = [rng.standard_normal(shape) + 1j * rng.standard_normal(shape)
             for _ in range(2)]
    tx = _muon.scale_by_muon(beta=0.9, nesterov=nesterov, adaptive=True)
    state = tx.init(jnp.zeros(shape, jnp.complex64))
    m = np.zeros(shape, np.complex128)
    for t, g in enumerate(grads, start=1):
      updates, state = tx.update(jnp.asarray(g, jnp.complex64), state)
      m, m_hat = _np_momentum(g, m, t, 0.9, nesterov)
      want = _np_newton_schulz(m_hat)
      want = want * np.sum(np.conj(m_hat) * want)
      self.assertEqual(updates.dtype, jnp.complex64)
      np.testing.assert_allclose(updates, want, rtol=1e-4, atol=1e-5)

  def test_tensor_with_dimension_numbers(self):
    rng = np.random.default_rng(6)
    g = rng.standard_normal((2, 3, 5))
    tx = _muon.scale_by_muon(beta=0.0, nesterov=False, adaptive=True,
                             weight_dimension_numbers=D(1, 2))
    updates, _ = tx.update(jnp.asarray(g, jnp.float32),
                           tx.init(jnp.zeros(g.shape)))
    o = np.stack([_np_newton_schulz(g[i]) for i in range(2)])
    # The adaptive scale is the inner product over the whole leaf.
    np.testing.assert_allclose(updates, o * np.sum(g * o), rtol=1e-4)

  def test_dict_params_default_dimension_numbers(self):
    rng = np.random.default_rng(7)
    params = {'a': jnp.zeros((3, 4)), 'b': jnp.zeros((5, 2))}
    grads = {k: rng.standard_normal(v.shape) for k, v in params.items()}
    tx = _muon.scale_by_muon(beta=0.0, nesterov=False)
    updates, _ = tx.update(_f32(grads), tx.init(params))
    for k in params:
      np.testing.assert_allclose(updates[k], _np_newton_schulz(grads[k]),
                                 rtol=1e-4, atol=1e-5)

  def test_preset_names(self):
    self.assertEqual(_muon.scale_by_muon('dion').init(
        jnp.zeros((2, 2))).ns_coeffs.shape, (5, 3))
    np.testing.assert_allclose(
        _muon.scale_by_muon('standard').init(jnp.zeros((2, 2))).ns_coeffs,
        _COEFFS)

  @parameterized.parameters(
      ((1.0, 2.0), r'muon: ns_coeffs must have shape \(3,\) or \(n, 3\), got '
       r'\(2,\)'),
      (((1.0, 2.0, 3.0, 4.0), (1.0, 2.0, 3.0, 4.0)),
       r'muon: ns_coeffs must have shape \(3,\) or \(n, 3\), got \(2, 4\)'),
      ([[[1.0, 2.0, 3.0]]], r'got \(1, 1, 3\)'),
      (np.ones((2, 4)), r'got \(2, 4\)'),
      (((1.0, 2.0, 3.0), (1.0, 2.0)), 'ragged'),
      ('polar', 'unknown ns_coeffs preset'),
  )
  def test_invalid_ns_coeffs(self, ns_coeffs, message):
    with self.assertRaisesRegex(ValueError, message):
      _muon.muon(0.1, ns_coeffs=ns_coeffs)
    with self.assertRaisesRegex(ValueError, message.replace('muon:', '')):
      _muon.scale_by_muon(ns_coeffs=ns_coeffs)

  def test_invalid_config(self):
    with self.assertRaisesRegex(ValueError, 'preconditioning must be one of'):
      _muon.muon(0.1, preconditioning='newton')
    with self.assertRaisesRegex(ValueError, 'ns_steps must be a non-negative'):
      _muon.scale_by_muon(ns_steps=-1)
    with self.assertRaisesRegex(ValueError, r'beta must be in \[0, 1\]'):
      _muon.scale_by_muon(beta=1.5)

  @parameterized.parameters(2.5, np.float32(3.0), '3')
  def test_ns_steps_not_an_integer_raises_when_built(self, ns_steps):
    # Issue 31: only Python and NumPy integers were checked; 2.5 built, and
    # the update failed in its loop ('lower and upper arguments to
    # fori_loop must have equal types'), as upstream 0.2.8's does.
    with self.assertRaisesRegex(
        ValueError, '^muon: ns_steps must be a non-negative integer, got'):
      _muon.muon(0.1, ns_steps=ns_steps)
    with self.assertRaisesRegex(
        ValueError,
        '^scale_by_muon: ns_steps must be a non-negative integer, got'):
      _muon.scale_by_muon(ns_steps=ns_steps)

  def test_ns_steps_array_must_be_integer(self):
    _muon.muon(0.1, ns_steps=jnp.asarray(3))
    with self.assertRaisesRegex(
        TypeError, '^muon: ns_steps must be an integer, got an array of'
        ' dtype float32$'):
      _muon.muon(0.1, ns_steps=jnp.asarray(3.0))

  @parameterized.named_parameters(
      ('beta', {'beta': float('nan')}, r'beta must be in \[0, 1\], got nan'),
      ('eps', {'eps': float('nan')}, r'eps must be non-negative, got nan'),
      ('negative_eps', {'eps': -1.0},
       r'eps must be non-negative, got -1\.0'),
  )
  def test_nan_hyperparameters_raise_when_built(self, kwargs, message):
    # Upstream 0.2.8 validates none of these: muon(eps=nan) or
    # muon(beta=nan) builds, and its updates are NaN. The old check here
    # (value < 0) let a NaN eps through as well.
    with self.assertRaisesRegex(ValueError, 'scale_by_muon: ' + message):
      _muon.scale_by_muon(**kwargs)
    with self.assertRaisesRegex(ValueError, '^muon: ' + message):
      _muon.muon(0.1, **kwargs)

  def test_consistent_rms_must_be_positive(self):
    for value in (0.0, -0.2, float('nan')):
      with self.assertRaisesRegex(
          ValueError, f'^muon: consistent_rms must be positive, got {value}'):
        _muon.muon(0.1, consistent_rms=value)
    _muon.muon(0.1, consistent_rms=None)

  def test_rejects_vectors(self):
    tx = _muon.scale_by_muon()
    with self.assertRaisesRegex(ValueError, r"\['b'\] has shape \(3,\)"):
      tx.init({'w': jnp.zeros((2, 3)), 'b': jnp.zeros(3)})
    tx = _muon.scale_by_muon(weight_dimension_numbers={'w': D(), 'b': None})
    with self.assertRaisesRegex(ValueError, "no MuonDimensionNumbers for"):
      tx.init({'w': jnp.zeros((2, 3)), 'b': jnp.zeros(3)})

  @parameterized.parameters(jnp.float32, jnp.bfloat16)
  def test_dtypes_and_state_stable(self, dtype):
    params = {'w': jnp.zeros((4, 3), dtype)}
    for mu_dtype in (None, jnp.bfloat16, jnp.float32):
      tx = _muon.scale_by_muon(mu_dtype=mu_dtype)
      state = tx.init(params)
      step = jax.jit(tx.update)
      all_grads = [{'w': jnp.full((4, 3), i + 1.0, dtype).at[0, 0].set(-1.0)}
                   for i in range(3)]
      with test_utils.log_compilations() as compilations:
        for grads in all_grads:
          updates, new_state = step(grads, state)
          test_utils.assert_trees_all_equal_structs(new_state, state)
          test_utils.assert_trees_all_equal_dtypes(new_state, state)
          state = new_state
      self.assertLen(compilations, 1)
      self.assertEqual(updates['w'].dtype, dtype)
      self.assertEqual(state.mu['w'].dtype, mu_dtype or dtype)
      self.assertEqual(state.ns_coeffs.dtype, jnp.float32)

  def test_shape_dtype_struct_init(self):
    tx = _muon.scale_by_muon()
    state = jax.eval_shape(tx.init,
                           {'w': jax.ShapeDtypeStruct((3, 2), jnp.float32)})
    self.assertEqual(state.mu['w'].shape, (3, 2))
    self.assertEqual(state.ns_coeffs.shape, (3,))


class MuonTest(_AgainstFloat64):

  def _params_and_grads(self, seed=8):
    rng = np.random.default_rng(seed)
    shapes = {'w': (3, 5), 'v': (6, 4), 'b': (4,), 'k': (2, 3, 4)}
    params = {k: rng.standard_normal(s) for k, s in shapes.items()}
    grads = [{k: rng.standard_normal(s) for k, s in shapes.items()}
             for _ in range(3)]
    return params, grads

  @parameterized.parameters(
      (False, {}),
      (True, {}),
      (True, {'weight_decay': 0.3, 'adam_weight_decay': 0.2,
              'nesterov': False}),
      (True, {'consistent_rms': 0.2, 'adam_learning_rate': 0.05}),
      (True, {'muon_weight_dimension_numbers': {
          'w': D(), 'v': None, 'b': None, 'k': D(1, 2)}}),
      (True, {'muon_weight_dimension_numbers': lambda p: {
          'w': D(), 'v': D(1, 0), 'b': None, 'k': D((0, 1), 2)},
              'weight_decay': 0.1, 'weight_decay_mask': {
                  'w': True, 'v': False, 'b': True, 'k': True}}),
  )
  def test_matches_reference(self, use_jit, config):
    params, grads = self._params_and_grads()
    lr, beta = 0.1, 0.95
    config = dict(config)
    tx = _muon.muon(lr, beta=beta, **config)
    spec = config.get('muon_weight_dimension_numbers')
    if callable(spec):
      spec = spec(params)
    if spec is None:
      spec = {k: D() if np.ndim(p) == 2 else None for k, p in params.items()}
    nesterov = config.get('nesterov', True)
    wd = config.get('weight_decay', 0.0)
    mask = config.get('weight_decay_mask') or {k: True for k in params}
    adam_wd = config.get('adam_weight_decay', 0.0)
    adam_lr = config.get('adam_learning_rate', lr)
    rms = config.get('consistent_rms')

    state = tx.init(_f32(params))
    update = _maybe_jit(tx.update, use_jit)
    p = {k: np.asarray(_f32(v), np.float64) for k, v in params.items()}
    mom = {k: np.zeros_like(v) for k, v in p.items()}
    nu = {k: np.zeros_like(v) for k, v in p.items()}
    for t, g in enumerate(grads, start=1):
      updates, state = update(_f32(g), state, _f32(p))
      for k, dim_nums in spec.items():
        if dim_nums is None:
          mom[k], nu[k], direction = _np_adam(g[k], mom[k], nu[k], t,
                                              nesterov=nesterov)
          want = -adam_lr * (direction + adam_wd * p[k])
        else:
          mom[k], m_hat = _np_momentum(g[k], mom[k], t, beta, nesterov)
          reshape_fn, inverse_fn = _muon._compute_muon_reshape(
              m_hat, dim_nums)
          mats = np.asarray(reshape_fn(m_hat))
          o = np.asarray(inverse_fn(np.stack(
              [_np_newton_schulz(mm) for mm in mats])))
          fan_in, fan_out = mats.shape[1], mats.shape[2]
          if rms is None:
            scale = math.sqrt(max(1.0, fan_out / fan_in))
          else:
            scale = rms * math.sqrt(max(fan_in, fan_out))
          want = -lr * (scale * o + (wd if mask[k] else 0.0) * p[k])
        np.testing.assert_allclose(updates[k], want, rtol=1e-4, atol=1e-6,
                                   err_msg=f'{k} at step {t}')
        p[k] = p[k] + np.asarray(updates[k], np.float64)

  def test_single_dimension_numbers_rejects_vectors(self):
    tx = _muon.muon(0.1, muon_weight_dimension_numbers=D())
    with self.assertRaisesRegex(ValueError, 'rank >= 2'):
      tx.init({'w': jnp.zeros((2, 3)), 'b': jnp.zeros(3)})

  def test_state_groups(self):
    tx = _muon.muon(0.1)
    state = tx.init({'w': jnp.zeros((2, 3)), 'b': jnp.zeros(3)})
    muon_state = state.inner_states['muon'].inner_state[0]
    adam_state = state.inner_states['adam'].inner_state[0]
    self.assertIsInstance(muon_state, _muon.MuonState)
    self.assertEqual(muon_state.mu['w'].shape, (2, 3))
    self.assertEqual(adam_state.mu['b'].shape, (3,))

  def test_prefix_dimension_numbers_mask_each_leaf(self):
    # As upstream 0.2.8: a None (Adam) entry over a subtree gives the Muon
    # state a MaskedNode per leaf of that subtree, not one for the subtree.
    params = {'w1': {'a': jnp.ones((2, 3)), 'b': jnp.ones((2, 3))},
              'w2': {'a': jnp.ones((2, 3)), 'b': jnp.ones((2, 3))}}
    tx = _muon.muon(0.1, muon_weight_dimension_numbers={
        'w1': None, 'w2': {'a': D(), 'b': None}})
    state = tx.init(params)
    mu = state.inner_states['muon'].inner_state[0].mu
    is_masked = lambda x: isinstance(x, _masking.MaskedNode)
    self.assertEqual(jax.tree.structure(mu, is_leaf=is_masked),
                     jax.tree.structure(params))
    self.assertEqual(
        jax.tree.map(is_masked, mu, is_leaf=is_masked),
        {'w1': {'a': True, 'b': True}, 'w2': {'a': False, 'b': True}})
    updates, _ = tx.update(params, state, params)
    self.assertEqual(jax.tree.structure(updates), jax.tree.structure(params))

  def test_list_params(self):
    # Params that are a list: its entries were taken for lists of dimension
    # numbers, so a 3-d leaf went to Muon (and inject_hyperparams failed).
    params = [jnp.ones((2, 3)), jnp.ones((2, 5, 2))]
    for tx in (_muon.muon(0.1),
               _inject.inject_hyperparams(_muon.muon, ('ns_steps',))(0.1)):
      state = tx.init(params)
      updates, _ = tx.update(params, state, params)
      self.assertEqual([u.shape for u in updates], [(2, 3), (2, 5, 2)])
    tx = _muon.scale_by_muon(weight_dimension_numbers=[D(), D(1, 2)])
    grads = [jnp.arange(6.0).reshape(2, 3), jnp.arange(20.0).reshape(2, 5, 2)]
    updates, _ = tx.update(grads, tx.init(grads))
    np.testing.assert_allclose(
        updates[0], _np_newton_schulz(np.asarray(grads[0])), rtol=1e-4,
        atol=1e-5)
    for b in range(2):
      np.testing.assert_allclose(
          updates[1][b], _np_newton_schulz(np.asarray(grads[1][b])),
          rtol=1e-4, atol=1e-5)

  def test_vector_params_array_goes_to_adam(self):
    # A params array that is a vector is Adam's, as upstream 0.2.8's.
    tx = _muon.muon(0.1)
    params = jnp.array([1.0, -2.0])
    state = tx.init(params)
    self.assertIsInstance(state.inner_states['muon'].inner_state[0].mu,
                          _masking.MaskedNode)
    updates, _ = tx.update(params, state, params)
    # NAdam's first step: -lr (1 + b1 (1 - b1) / (1 - b1^2)) sign(g).
    step = 0.1 * (1 + 0.9 * 0.1 / (1 - 0.9**2))
    np.testing.assert_allclose(updates, [-step, step], rtol=1e-5)

  @parameterized.parameters(jnp.float32, jnp.bfloat16)
  def test_dtypes_and_single_compilation(self, dtype):
    params = {'w': jnp.ones((4, 3), dtype), 'b': jnp.ones(3, dtype)}
    tx = _muon.muon(0.1, weight_decay=0.1)
    state = tx.init(params)
    step = jax.jit(tx.update)
    all_grads = [jax.tree.map(lambda x, i=i: (i + 1.0) * x - 0.5, params)
                 for i in range(3)]
    with test_utils.log_compilations() as compilations:
      for grads in all_grads:
        updates, new_state = step(grads, state, params)
        test_utils.assert_trees_all_equal_dtypes(new_state, state)
        test_utils.assert_trees_all_equal_shapes(new_state, state)
        state = new_state
    self.assertLen(compilations, 1)
    for k in params:
      self.assertEqual(updates[k].dtype, dtype)

  def test_inject_hyperparams_identical(self):
    params, grads = self._params_and_grads(9)
    plain = _muon.muon(0.1, beta=0.9, weight_decay=0.1)
    injected = _inject.inject_hyperparams(_muon.muon)(
        learning_rate=0.1, beta=0.9, weight_decay=0.1)
    s1, s2 = plain.init(_f32(params)), injected.init(_f32(params))
    step1, step2 = jax.jit(plain.update), jax.jit(injected.update)
    for g in grads:
      u1, s1 = step1(_f32(g), s1, _f32(params))
      u2, s2 = step2(_f32(g), s2, _f32(params))
      test_utils.assert_trees_all_equal(u1, u2)

  def test_converges(self):
    target = jnp.asarray(np.random.default_rng(10).standard_normal((4, 4)),
                         jnp.float32)
    params = {'w': jnp.zeros((4, 4)), 'b': jnp.ones(4)}
    loss = lambda p: jnp.sum((p['w'] - target)**2) + jnp.sum(p['b']**2)
    tx = _muon.muon(lambda count: 0.1 * 0.97**count)
    params, _ = optimizer_checks.minimize(tx, loss, params, 200)
    self.assertLess(float(loss(params)), 1e-2)


class BuildTimeTest(parameterized.TestCase):

  @parameterized.named_parameters(
      ('muon', lambda: _muon.muon(0.1)),
      ('muon_dion', lambda: _muon.muon(0.1, ns_coeffs='dion')),
      ('muon_numpy', lambda: _muon.muon(0.1, ns_coeffs=np.ones((2, 3)))),
      ('scale_by_muon', _muon.scale_by_muon),
      ('scale_by_muon_aol',
       lambda: _muon.scale_by_muon(preconditioning='aol')),
  )
  def test_builds_without_arrays(self, make):
    _, new = probes.arrays_created_by(make)
    self.assertEqual(new, [])

  @parameterized.named_parameters(
      ('learning_rate', {'learning_rate': '0.1'}, TypeError,
       "learning_rate must be a scalar number or a schedule, got str '0.1'"),
      ('adam_learning_rate', {'adam_learning_rate': float('inf')},
       ValueError, 'adam_learning_rate must be finite, got inf'),
      ('adam_b1', {'adam_b1': 1.5}, ValueError,
       r'adam_b1 must be in \[0, 1\), got 1.5'),
      ('adam_weight_decay', {'adam_weight_decay': float('nan')}, ValueError,
       'adam_weight_decay must be finite, got nan'),
      ('weight_decay', {'weight_decay': jnp.ones(2)}, TypeError,
       r'weight_decay must be a scalar number or a schedule, got an array'),
      ('preconditioning', {'preconditioning': 'qr'}, ValueError,
       "preconditioning must be one of .*, got 'qr'"),
      ('ns_coeffs', {'ns_coeffs': 'nope'}, ValueError,
       "unknown ns_coeffs preset 'nope'"),
  )
  def test_errors_name_muon_and_the_argument_given(self, kwargs, error,
                                                   message):
    # The checks run inside the transformations muon builds (adamw,
    # add_decayed_weights, scale_by_learning_rate, scale_by_muon) name muon,
    # the function called, and the argument as the user spelled it.
    kwargs = {'learning_rate': 0.1} | kwargs
    with self.assertRaisesRegex(error, f'^muon: {message}'):
      _muon.muon(**kwargs)

  def test_build_in_jit_step_in_shard_map_issue_1186(self):
    devices = host_devices.use_host_devices(self, 8)
    mesh = jax.sharding.Mesh(np.array(devices), ('data',))

    def loss(params, x):
      return jnp.mean((x @ params['w'] + params['b'])**2)

    built = []
    with jax.checking_leaks():

      @jax.jit
      def make(key):
        params = {'w': jax.random.normal(key, (4, 3)), 'b': jnp.zeros(3)}
        tx = _muon.muon(0.1, ns_coeffs='dion', weight_decay=0.01)
        built.append(tx)
        return params, tx.init(params)

      params, state = make(jax.random.key(0))
      tx = built[0]

      def local_step(params, state, x):
        grads = jax.lax.pmean(jax.grad(loss)(params, x), 'data')
        updates, state = tx.update(grads, state, params)
        return jax.tree.map(lambda p, u: p + u, params, updates), state

      step = jax.jit(jax.shard_map(
          local_step, mesh=mesh, in_specs=(P(), P(), P('data')),
          out_specs=(P(), P())))
      x = jnp.arange(64.0).reshape(16, 4) / 64
      params0, state0 = params, state
      for _ in range(3):
        params, state = step(params, state, x)
    self.assertLess(float(loss(params, x)), float(loss(params0, x)))

    # The sharded step equals the step on the whole batch.
    @jax.jit
    def global_step(params, state):
      updates, _ = tx.update(jax.grad(loss)(params, x), state, params)
      return jax.tree.map(lambda p, u: p + u, params, updates)

    sharded_params, _ = step(params0, state0, x)
    test_utils.assert_trees_all_close(
        sharded_params, global_step(params0, state0), rtol=1e-5, atol=1e-6)

  def test_flax_train_state_built_in_jit_issue_1186(self):
    # flax is a test dependency; it imports the top-level optax namespace,
    # so a name missing there fails here rather than skipping.
    from flax.training import train_state
    built = []
    with jax.checking_leaks():

      @jax.jit
      def make(key):
        params = {'w': jax.random.normal(key, (4, 3)), 'b': jnp.zeros(3)}
        ts = train_state.TrainState.create(
            apply_fn=None, params=params, tx=_muon.muon(0.1))
        built.append(ts.tx)
        return ts

      ts = make(jax.random.key(1))
      grads = jax.tree.map(jnp.ones_like, ts.params)
      ts = jax.jit(lambda s, g: s.apply_gradients(grads=g))(ts, grads)
    self.assertEqual(int(ts.step), 1)

  def test_newton_schulz_memory_issue_1650(self):
    # A jitted step on 24 matrices of 512 x 512, with the state donated as
    # in a training loop: the memory it allocates (temporaries and outputs
    # not written in place of the donated state) stays within three times
    # the params. An unrolled Newton-Schulz loop keeps the temporaries of
    # every iteration alive and goes far beyond.
    params = {f'w{i}': jax.ShapeDtypeStruct((512, 512), jnp.float32)
              for i in range(24)}
    tx = _muon.muon(0.1)
    state = jax.eval_shape(tx.init, params)
    compiled = jax.jit(tx.update, donate_argnums=1).lower(
        params, state, params).compile()
    analysis = compiled.memory_analysis()
    if analysis is None:
      self.skipTest('no memory analysis on this backend')
    params_bytes = 24 * 512 * 512 * 4
    allocated = (analysis.temp_size_in_bytes + analysis.output_size_in_bytes
                 - analysis.alias_size_in_bytes)
    self.assertLess(allocated, 3 * params_bytes)


if __name__ == '__main__':
  absltest.main()
