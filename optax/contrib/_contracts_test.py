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
"""Oracle tests of the contrib optimizers (issue 41).

Each optimizer runs four steps beside its float64 NumPy reference
(``optax._src.testing.reference_optimizers``, written from the paper's
algorithm and, where the docstring follows it, the authors' reference code),
in float64 (x64, restored afterwards) on random gradients, zeros and sign
flips, and in float32 on random gradients.

The other contrib names are checked against
``optax._src.testing.reference_contrib``, float64 NumPy written from their
docstrings and papers: normalize, the DP-SGD aggregation (noise off, and
re-derived from the documented key splits), Muon's Newton-Schulz iteration
and its scalings, SAM's cycles, the schedule-free averaging, Sophia's
clipped step, GaLore's projections, reduce_on_plateau's scale, and the
real/imaginary split as an identity.
"""


import functools

from absl.testing import absltest
from absl.testing import parameterized
import jax
import jax.numpy as jnp
import numpy as np

import optax
from optax import contrib
from optax._src import utils
from optax._src.testing import reference_contrib as ref_contrib
from optax._src.testing import reference_optimizers as ref

_SHAPE = (6,)


def _grads(kind):
  rng = np.random.default_rng(0)
  normal = [rng.normal(size=_SHAPE) for _ in range(4)]
  if kind == 'zeros':
    return [np.zeros(_SHAPE)] * 4
  if kind == 'flips':
    base = np.array([1.0, -1.0, 0.0, 2.0, -0.5, 0.0])
    return [base * (-1.0) ** t for t in range(4)]
  return normal


def _run(tx, grads, dtype, follow_params=False):
  params = jnp.asarray(np.linspace(-1.0, 1.0, _SHAPE[0]), dtype)
  state = tx.init(params)
  out = []
  for g in grads:
    u, state = tx.update(jnp.asarray(g, dtype), state, params)
    assert u.dtype == jnp.dtype(dtype), (u.dtype, dtype)
    out.append(np.asarray(u, np.float64))
    if follow_params:  # MADGRAD reads the params it moved.
      params = params + u
  return out


def _x0():
  return np.linspace(-1.0, 1.0, _SHAPE[0])


CASES = {
    'adopt': (lambda: contrib.scale_by_adopt(b2=0.9),
              lambda g: ref.adopt(g, b2=0.9), False),
    'adopt_nesterov_no_clip': (
        lambda: contrib.scale_by_adopt(b2=0.9, nesterov=True,
                                       use_clipping=False),
        lambda g: ref.adopt(g, b2=0.9, nesterov=True, use_clipping=False),
        False),
    'ademamix': (lambda: contrib.scale_by_ademamix(b3=0.9, alpha=2.0),
                 lambda g: ref.ademamix(g, b3=0.9, alpha=2.0), False),
    'simplified_ademamix': (
        lambda: contrib.scale_by_simplified_ademamix(alpha=1.5),
        lambda g: ref.simplified_ademamix(g, alpha=1.5), False),
    'acprop': (lambda: contrib.scale_by_acprop(b2=0.5),
               lambda g: ref.acprop(g, b2=0.5), False),
    'madgrad': (lambda: contrib.scale_by_madgrad(0.1),
                lambda g: ref.madgrad(g, _x0(), 0.1), True),
}


def _assert_close(got, want, rtol):
  for t, (x, y) in enumerate(zip(got, want)):
    np.testing.assert_allclose(x, y, rtol=rtol,
                               atol=rtol * np.max(np.abs(y)),
                               err_msg=f'step {t + 1}')


class ContribOracleTest(parameterized.TestCase):

  @parameterized.named_parameters(*[(n, n) for n in sorted(CASES)])
  def test_float64(self, name):
    make, oracle, follow = CASES[name]
    with utils.x64_precision(True):
      tx = make()
      for kind in ('random', 'zeros', 'flips'):
        grads = _grads(kind)
        with self.subTest(kind):
          _assert_close(_run(tx, grads, jnp.float64, follow), oracle(grads),
                        rtol=1e-9)

  @parameterized.named_parameters(*[(n, n) for n in sorted(CASES)])
  def test_float32(self, name):
    make, oracle, follow = CASES[name]
    grads = _grads('random')
    _assert_close(_run(make(), grads, jnp.float32, follow), oracle(grads),
                  rtol=2e-5)



class IdentityTest(absltest.TestCase):

  def test_hutchinson_is_exact_for_a_diagonal_hessian(self):
    # E[z * (H z)] = diag(H) (Bekas et al. 2007); for a diagonal H and
    # Rademacher z, z * (H z) = z ** 2 diag(H) = diag(H) for every draw.
    h = np.array([1.0, -3.0, 0.5, 4.0])
    obj_fn = lambda x: 0.5 * jnp.sum(jnp.asarray(h, jnp.float32) * x ** 2)
    params = jnp.asarray([0.3, -1.0, 2.0, 0.0], jnp.float32)
    for seed in (0, 1, 2):
      est = contrib.hutchinson_estimator_diag_hessian(random_seed=seed)
      diag, _ = est.update(None, est.init(params), params, obj_fn=obj_fn)
      np.testing.assert_allclose(diag, h, rtol=1e-6)

  def test_schedule_free_eval_params_inverts_the_interpolation(self):
    # y = (1 - b1) z + b1 x, so x = (y - (1 - b1) z) / b1 (Defazio et al.
    # 2024, eq. (1)); b1 = 0.9 and the state's z after three steps.
    tx = contrib.schedule_free_sgd(learning_rate=0.5, b1=0.9)
    params = jnp.asarray([1.0, -2.0, 0.5], jnp.float32)
    state = tx.init(params)
    rng = np.random.default_rng(3)
    for _ in range(3):
      g = jnp.asarray(rng.normal(size=3), jnp.float32)
      updates, state = tx.update(g, state, params)
      params = params + updates
    z = np.asarray(state.z, np.float64)
    y = np.asarray(params, np.float64)
    want = (y - 0.1 * z) / 0.9
    np.testing.assert_allclose(
        contrib.schedule_free_eval_params(state, params), want, rtol=1e-5,
        atol=1e-6)


def _close(got, want, rtol, err_msg=''):
  want = np.asarray(want, np.float64)
  np.testing.assert_allclose(
      np.asarray(got, np.float64), want, rtol=rtol,
      atol=rtol * max(np.max(np.abs(want), initial=0.0), 1e-30),
      err_msg=err_msg)


class NormalizeTest(parameterized.TestCase):
  """``u / ||u||`` over the whole tree (the docstring); zeros stay zero."""

  @parameterized.named_parameters(
      ('random', 1.0), ('small', 1e-15), ('large', 1e15), ('tiny', 1e-25),
      ('huge', 1e25), ('near_max', 1e37))
  def test_matches_the_global_norm(self, magnitude):
    # From 1e-25 up, the squares of float32 entries under- or overflow; the
    # unit vector u / ||u|| is still representable, and the float64 oracle
    # gives it.
    rng = np.random.default_rng(1)
    tree = {'a': magnitude * rng.normal(size=(3, 2)),
            'b': magnitude * rng.normal(size=4)}
    want = ref_contrib.global_normalize([tree['a'], tree['b']])
    tx = contrib.normalize()
    for dtype, rtol in ((jnp.float32, 1e-6), (jnp.float64, 1e-13)):
      with utils.x64_precision(dtype == jnp.float64):
        cast = functools.partial(jnp.asarray, dtype=dtype)
        got, _ = jax.jit(tx.update)(jax.tree.map(cast, tree), tx.init(None))
        self.assertEqual(got['a'].dtype, jnp.dtype(dtype))
        _close(got['a'], want[0], rtol)
        _close(got['b'], want[1], rtol)

  def test_zeros_and_ties(self):
    tx = contrib.normalize()
    got, _ = jax.jit(tx.update)({'a': jnp.zeros(3), 'b': jnp.zeros((2, 2))},
                                tx.init(None))
    np.testing.assert_array_equal(got['a'], np.zeros(3))
    np.testing.assert_array_equal(got['b'], np.zeros((2, 2)))
    # Four equal entries: each is 1 / 2.
    got, _ = jax.jit(tx.update)({'a': -jnp.ones(2), 'b': jnp.ones(2)},
                                tx.init(None))
    np.testing.assert_allclose(got['a'], [-0.5, -0.5], rtol=1e-7)
    np.testing.assert_allclose(got['b'], [0.5, 0.5], rtol=1e-7)


def _per_example(seed, batch=5):
  """A tree of per-example gradients: norms above, below, at C = 1, zero."""
  rng = np.random.default_rng(seed)
  a = rng.normal(size=(batch, 3))
  b = rng.normal(size=(batch, 2, 2))
  norms = np.sqrt(np.sum(a ** 2, 1) + np.sum(b ** 2, (1, 2)))
  target = np.array([3.0, 0.25, 1.0, 0.0, 10.0])[:batch]
  a, b = (a * (target / norms)[:, None],
          b * (target / norms)[:, None, None])
  return {'a': a, 'b': b}


def _documented_noise(key, tree, dtype):
  """The noise of one step as the docstring says the key is used."""
  leaves = jax.tree.leaves(tree)
  new_key, *keys = jax.random.split(key, len(leaves) + 1)
  noise = [np.asarray(jax.random.normal(k, x.shape[1:], dtype), np.float64)
           for k, x in zip(keys, leaves)]
  return new_key, noise


class DifferentiallyPrivateTest(parameterized.TestCase):
  """Abadi et al. 2016, Algorithm 1: clip per example, sum, noise, average."""

  @parameterized.named_parameters(('float32', jnp.float32, 1e-6),
                                  ('float64', jnp.float64, 1e-13))
  def test_clipping_and_averaging_without_noise(self, dtype, rtol):
    with utils.x64_precision(dtype == jnp.float64):
      tx = contrib.differentially_private_aggregate(
          l2_norm_clip=1.0, noise_multiplier=0.0, key=0)
      state, update = tx.init(None), jax.jit(tx.update)
      for step in range(3):
        grads = _per_example(step)
        want = ref_contrib.dp_aggregate(
            [grads['a'], grads['b']], 1.0, 0.0, [0.0, 0.0])
        got, state = update(
            jax.tree.map(lambda x: jnp.asarray(x, dtype), grads), state)
        self.assertEqual(got['a'].dtype, jnp.dtype(dtype))
        _close(got['a'], want[0], rtol, f'step {step}')
        _close(got['b'], want[1], rtol, f'step {step}')

  @parameterized.named_parameters(('int_key', 7), ('typed_key', None))
  def test_noise_is_the_documented_draw(self, seed):
    key = jax.random.key(7) if seed is None else seed
    clip, sigma = 0.5, 1.3
    tx = contrib.differentially_private_aggregate(
        l2_norm_clip=clip, noise_multiplier=sigma, key=key)
    state, update = tx.init(None), jax.jit(tx.update)
    oracle_key = jax.random.key(7)
    for step in range(3):
      grads = _per_example(10 + step)
      oracle_key, noise = _documented_noise(oracle_key, grads, jnp.float32)
      want = ref_contrib.dp_aggregate(
          [grads['a'], grads['b']], clip, sigma * clip, noise)
      got, state = update(
          jax.tree.map(lambda x: jnp.asarray(x, jnp.float32), grads), state)
      _close(got['a'], want[0], 1e-6, f'step {step}')
      _close(got['b'], want[1], 1e-6, f'step {step}')

  def test_noise_has_the_documented_scale(self):
    # Zero gradients: the update is N(0, (sigma C / B)^2) in every entry.
    clip, sigma, batch = 2.0, 0.75, 4
    tx = contrib.differentially_private_aggregate(
        l2_norm_clip=clip, noise_multiplier=sigma, key=3)
    state, update = tx.init(None), jax.jit(tx.update)
    samples = []
    for _ in range(3):
      got, state = update({'w': jnp.zeros((batch, 20_000))}, state)
      samples.append(np.asarray(got['w'], np.float64))
    samples = np.concatenate(samples)
    std = sigma * clip / batch
    # 60000 draws: the sample std is within 1% (about 3.5 standard errors).
    np.testing.assert_allclose(np.std(samples), std, rtol=0.01)
    self.assertLess(abs(np.mean(samples)), 4 * std / np.sqrt(samples.size))
    # Three different draws: the key advances.
    self.assertFalse(np.allclose(samples[:20_000], samples[20_000:40_000]))

  @parameterized.named_parameters(
      ('plain', None, False), ('momentum', 0.9, False),
      ('nesterov', 0.9, True))
  def test_dpsgd(self, momentum, nesterov):
    clip, sigma, lr = 1.0, 0.5, 0.1
    tx = contrib.dpsgd(learning_rate=lr, l2_norm_clip=clip,
                       noise_multiplier=sigma, key=5, momentum=momentum,
                       nesterov=nesterov)
    state = tx.init({'a': jnp.zeros(3), 'b': jnp.zeros((2, 2))})
    update = jax.jit(tx.update)
    oracle_key = jax.random.key(5)
    aggregated, got = [], []
    for step in range(3):
      grads = _per_example(20 + step)
      oracle_key, noise = _documented_noise(oracle_key, grads, jnp.float32)
      aggregated.append(ref_contrib.dp_aggregate(
          [grads['a'], grads['b']], clip, sigma * clip, noise))
      u, state = update(
          jax.tree.map(lambda x: jnp.asarray(x, jnp.float32), grads), state)
      got.append(u)
    for i, name in enumerate(('a', 'b')):
      want = ref.sgd([agg[i] for agg in aggregated], lr, momentum, nesterov)
      for step in range(3):
        _close(got[step][name], want[step], 1e-6, f'{name} step {step}')


def _matrices(shape, steps=3, seed=0):
  rng = np.random.default_rng(seed)
  return [rng.normal(size=shape) for _ in range(steps)]


class MuonTest(parameterized.TestCase):
  """Jordan et al. 2024 and the docstring of scale_by_muon."""

  @parameterized.named_parameters(
      ('wide', (4, 6), {}), ('tall', (6, 4), {}),
      ('square_no_nesterov', (5, 5), {'nesterov': False}),
      ('adaptive', (4, 6), {'adaptive': True}),
      ('spectral', (6, 4), {'preconditioning': 'spectral'}),
      ('schatten', (4, 6), {'preconditioning': 'schatten'}),
      ('aol', (6, 4), {'preconditioning': 'aol'}),
      ('three_steps_beta', (4, 6), {'ns_steps': 3, 'beta': 0.8}),
      ('dion', (4, 6), {'ns_coeffs': 'dion'}))
  def test_scale_by_muon(self, shape, kwargs):
    grads = _matrices(shape)
    coeffs = {'dion': contrib._muon._DION_NS_COEFFS}.get(  # pylint: disable=protected-access
        kwargs.get('ns_coeffs'), (3.4445, -4.775, 2.0315))
    oracle_kwargs = dict(kwargs, ns_coeffs=None)
    del oracle_kwargs['ns_coeffs']
    beta = oracle_kwargs.pop('beta', 0.95)
    want = ref_contrib.scale_by_muon(
        grads, beta=beta, nesterov=oracle_kwargs.pop('nesterov', True),
        adaptive=oracle_kwargs.pop('adaptive', False), coeffs=coeffs,
        **oracle_kwargs)
    for dtype, rtol in ((jnp.float64, 1e-9), (jnp.float32, 2e-5)):
      with utils.x64_precision(dtype == jnp.float64):
        tx = contrib.scale_by_muon(**kwargs)
        state, update = tx.init(jnp.zeros(shape, dtype)), jax.jit(tx.update)
        for step, g in enumerate(grads):
          u, state = update(jnp.asarray(g, dtype), state)
          self.assertEqual(u.dtype, jnp.dtype(dtype))
          _close(u, want[step], rtol, f'{dtype} step {step}')

  def test_batch_of_matrices(self):
    # Axis 1 is a batch axis: each (4, 6) slice is its own matrix.
    grads = _matrices((4, 2, 6), seed=13)
    per_slice = [ref_contrib.scale_by_muon(
        [g[:, j, :] for g in grads], coeffs=(3.4445, -4.775, 2.0315))
                 for j in range(2)]
    tx = contrib.scale_by_muon(
        weight_dimension_numbers=contrib.MuonDimensionNumbers(0, 2))
    state, update = tx.init(jnp.zeros((4, 2, 6))), jax.jit(tx.update)
    for step, g in enumerate(grads):
      u, state = update(jnp.asarray(g, jnp.float32), state)
      want = np.stack([per_slice[j][step] for j in range(2)], axis=1)
      _close(u, want, 2e-5, f'step {step}')

  def test_zero_gradient_gives_zero_update(self):
    tx = contrib.scale_by_muon()
    u, _ = jax.jit(tx.update)(jnp.zeros((3, 4)), tx.init(jnp.zeros((3, 4))))
    np.testing.assert_array_equal(u, np.zeros((3, 4)))

  def test_singular_values_approach_one(self):
    # With the coefficients of 15/8 x - 10/8 x^3 + 3/8 x^5, a polynomial
    # with fixed point 1 and f'(1) = 0, the iteration converges to U V^T
    # of the SVD (the closest semi-orthogonal matrix).
    g = np.random.default_rng(4).normal(size=(5, 3))
    u, _, vt = np.linalg.svd(g, full_matrices=False)
    with utils.x64_precision(True):
      tx = contrib.scale_by_muon(ns_coeffs=(1.875, -1.25, 0.375),
                                 ns_steps=40, nesterov=False, eps=0.0)
      out, _ = jax.jit(tx.update)(jnp.asarray(g), tx.init(jnp.zeros((5, 3))))
    np.testing.assert_allclose(np.linalg.svd(out, compute_uv=False),
                               np.ones(3), atol=1e-10)
    np.testing.assert_allclose(out, u @ vt, atol=1e-10)

  @parameterized.named_parameters(('fan_ratio', None), ('consistent', 0.2))
  def test_muon_alias(self, consistent_rms):
    shapes = {'w': (4, 6), 'k': (6, 4), 'b': (4,)}
    rng = np.random.default_rng(5)
    grads = [{n: rng.normal(size=s) for n, s in shapes.items()}
             for _ in range(3)]
    params = {n: rng.normal(size=s) for n, s in shapes.items()}
    lr, wd, adam_lr, adam_wd = 0.1, 0.05, 0.02, 0.01
    tx = contrib.muon(lr, weight_decay=wd, adam_learning_rate=adam_lr,
                      adam_weight_decay=adam_wd,
                      consistent_rms=consistent_rms)
    p32 = jax.tree.map(lambda x: jnp.asarray(x, jnp.float32), params)
    state, update = tx.init(p32), jax.jit(tx.update)
    got = []
    for g in grads:
      u, state = update(
          jax.tree.map(lambda x: jnp.asarray(x, jnp.float32), g), state, p32)
      got.append(u)
    for name in ('w', 'k'):
      fan_in, fan_out = shapes[name]
      s = ref_contrib.muon_shape_factor(fan_in, fan_out, consistent_rms)
      ns = ref_contrib.scale_by_muon([g[name] for g in grads],
                                     coeffs=(3.4445, -4.775, 2.0315))
      for step in range(3):
        want = -lr * (s * ns[step] + wd * params[name])
        _close(got[step][name], want, 2e-5, f'{name} step {step}')
    want = ref.adam([g['b'] for g in grads], lr=adam_lr, nesterov=True,
                    weight_decay=adam_wd, params=[params['b']] * 3)
    for step in range(3):
      _close(got[step]['b'], want[step], 2e-5, f'b step {step}')


def _sam_problem():
  a = np.array([1.0, 3.0, 0.5])

  def grad64(w):
    return 2 * a * w + np.sin(w)

  def grad32(w, i=None):
    del i
    return 2 * jnp.asarray(a, w.dtype) * w + jnp.sin(w)

  return grad64, grad32, np.array([1.0, -1.0, 2.0])


class SamTest(parameterized.TestCase):
  """Foret et al. 2021, Algorithm 1 (and its sync_period generalization)."""

  @parameterized.named_parameters(
      ('algorithm_1', 2, 0.0, 0.0, True),
      ('three_steps_reset', 3, 0.9, 0.5, True),
      ('three_steps_kept', 3, 0.9, 0.5, False))
  def test_transparent_mode(self, period, momentum, adv_momentum, reset):
    grad64, grad32, w0 = _sam_problem()
    lr, rho, cycles = 0.1, 0.05, 3
    want = ref_contrib.sam(grad64, w0, cycles, lr, rho, period, momentum,
                           adv_momentum, reset)
    tx = contrib.sam(
        optax.sgd(lr, momentum=momentum or None),
        optax.chain(contrib.normalize(),
                    optax.sgd(rho, momentum=adv_momentum or None)),
        sync_period=period, reset_state=reset)
    params = jnp.asarray(w0, jnp.float32)
    state = tx.init(params)

    @jax.jit
    def step_fn(params, state):
      u, state = tx.update(grad32(params), state, params)
      return params + u, state

    for step in range(cycles * period):
      params, state = step_fn(params, state)
      _close(params, want[step], 2e-6, f'step {step}')

  @parameterized.named_parameters(('period_2', 2), ('period_3', 3))
  def test_opaque_mode(self, period):
    grad64, grad32, w0 = _sam_problem()
    lr, rho, cycles = 0.1, 0.05, 3
    want = ref_contrib.sam(grad64, w0, cycles, lr, rho, period, 0.9, 0.5,
                           True)[period - 1::period]
    tx = contrib.sam(
        optax.sgd(lr, momentum=0.9),
        optax.chain(contrib.normalize(), optax.sgd(rho, momentum=0.5)),
        sync_period=period, opaque_mode=True)
    params = jnp.asarray(w0, jnp.float32)
    state = tx.init(params)

    @jax.jit
    def step_fn(params, state):
      u, state = tx.update(grad32(params), state, params, grad_fn=grad32)
      return params + u, state

    for cycle in range(cycles):
      params, state = step_fn(params, state)
      _close(params, want[cycle], 2e-6, f'cycle {cycle}')

  def test_zero_gradient_keeps_the_params(self):
    tx = contrib.sam(optax.sgd(0.1),
                     optax.chain(contrib.normalize(), optax.sgd(0.05)))
    params = jnp.asarray([1.0, -2.0])
    state = tx.init(params)
    for _ in range(4):
      u, state = jax.jit(tx.update)(jnp.zeros(2), state, params)
      params = params + u
    np.testing.assert_array_equal(params, [1.0, -2.0])


def _run_schedule_free(tx, grads, y0, dtype=jnp.float32):
  params = jnp.asarray(y0, dtype)
  state, update = tx.init(params), jax.jit(tx.update)
  out = []
  for g in grads:
    u, state = update(jnp.asarray(g, dtype), state, params)
    assert u.dtype == jnp.dtype(dtype), u.dtype
    out.append(u)
    params = params + u
  return out


class ScheduleFreeTest(parameterized.TestCase):
  """Defazio et al. 2024, Algorithm 1, as the docstrings write it."""

  def _check(self, got, want, rtol):
    for step, (x, y) in enumerate(zip(got, want)):
      _close(x, y, rtol, f'step {step + 1}')

  @parameterized.named_parameters(
      ('constant', 0.0, 0.9, 2.0), ('power_0', 0.0, 0.5, 0.0),
      ('power_1_b1_1', 0.0, 1.0, 1.0), ('decaying', 0.2, 0.9, 2.0))
  def test_schedule_free_sgd_base(self, decay, b1, power):
    # A schedule lr_t = 0.5 / (1 + decay t) (t from one for the weights);
    # the base sgd counts its own steps from zero.
    sched = lambda t: 0.5 / (1 + decay * t)
    grads = _matrices((5,), steps=4, seed=6)
    y0 = np.linspace(-1.0, 1.0, 5)
    want = ref_contrib.schedule_free(
        grads, y0, lambda t, g, y: -sched(t - 1) * g, sched, b1, power)
    for dtype, rtol in ((jnp.float64, 1e-12), (jnp.float32, 2e-5)):
      with utils.x64_precision(dtype == jnp.float64):
        tx = contrib.schedule_free(optax.sgd(sched), learning_rate=sched,
                                   b1=b1, weight_lr_power=power)
        self._check(_run_schedule_free(tx, grads, y0, dtype), want, rtol)

  @parameterized.named_parameters(('plain', None), ('decay', 0.1))
  def test_schedule_free_sgd(self, weight_decay):
    grads = _matrices((5,), steps=4, seed=7)
    y0 = np.linspace(-1.0, 1.0, 5)
    lr = 0.3
    want = ref_contrib.schedule_free(
        grads, y0, lambda t, g, y: -lr * (g + (weight_decay or 0.0) * y),
        lambda t: lr, 0.9)
    tx = contrib.schedule_free_sgd(lr, weight_decay=weight_decay)
    self._check(_run_schedule_free(tx, grads, y0), want, 2e-5)

  @parameterized.named_parameters(
      ('default', {}), ('decay_b2_eps', {'weight_decay': 0.1, 'b2': 0.9,
                                         'eps': 1e-3, 'b1': 0.8}))
  def test_schedule_free_adamw(self, kwargs):
    grads = _matrices((5,), steps=4, seed=8)
    grads[2] = np.zeros(5)  # A zero gradient in the middle.
    y0 = np.linspace(-1.0, 1.0, 5)
    lr = 0.05
    step = ref_contrib.schedule_free_adamw_step(
        kwargs.get('b2', 0.999), kwargs.get('eps', 1e-8),
        kwargs.get('weight_decay', 0.0), lambda t: lr)
    want = ref_contrib.schedule_free(grads, y0, step, lambda t: lr,
                                     kwargs.get('b1', 0.9))
    for dtype, rtol in ((jnp.float64, 1e-11), (jnp.float32, 2e-5)):
      with utils.x64_precision(dtype == jnp.float64):
        tx = contrib.schedule_free_adamw(lr, **kwargs)
        self._check(_run_schedule_free(tx, grads, y0, dtype), want, rtol)


class SophiaTest(parameterized.TestCase):
  """The docstring of sophia (Liu et al. 2023, Algorithm 3, as changed)."""

  @parameterized.named_parameters(
      ('defaults', {}),
      ('every_step_no_clip', {'update_interval': 1, 'clip_threshold': None}),
      ('interval_3_tight_clip', {'update_interval': 3,
                                 'clip_threshold': 0.05, 'gamma': 0.5,
                                 'weight_decay': 0.1}),
      ('interval_2', {'update_interval': 2, 'b1': 0.5, 'b2': 0.9,
                      'gamma': 2.0, 'eps': 1e-3}))
  def test_sophia(self, kwargs):
    # A separable objective: its Hessian is diagonal, a + c x^2, and the
    # Hutchinson estimate v * (H v) equals it for every Rademacher v.
    a = np.array([1.0, 4.0, 0.5, 2.0])
    c = np.array([0.5, 0.0, 3.0, 1.0])

    def obj_fn(x):
      return jnp.sum(jnp.asarray(a, x.dtype) * x ** 2 / 2
                     + jnp.asarray(c, x.dtype) * x ** 4 / 12)

    grads = _matrices((4,), steps=6, seed=9)
    grads[3] = np.zeros(4)
    theta0 = np.array([0.5, -1.0, 2.0, 0.0])
    lr = 0.1
    want = ref_contrib.sophia(grads, theta0, lambda x: a + c * x ** 2, lr,
                              **kwargs)
    tx = contrib.sophia(lr, **kwargs)
    params = jnp.asarray(theta0, jnp.float32)
    state = tx.init(params)
    update = jax.jit(functools.partial(tx.update, obj_fn=obj_fn))
    for step, g in enumerate(grads):
      u, state = update(jnp.asarray(g, jnp.float32), state, params)
      _close(u, want[step], 2e-5, f'step {step}')
      params = params + u


  def test_custom_hessian_estimator(self):
    # A stateless estimator returning theta^2 + 1 (a positive, Gauss-Newton
    # like diagonal), refreshed every second step.
    estimator = optax.GradientTransformationExtraArgs(
        lambda params: optax.EmptyState(),
        lambda updates, state, params=None, **extra: (
            jax.tree.map(lambda x: x ** 2 + 1.0, params), state))
    grads = _matrices((3,), steps=5, seed=14)
    theta0 = np.array([0.5, -2.0, 0.0])
    kwargs = {'update_interval': 2, 'gamma': 0.5, 'clip_threshold': 0.5}
    want = ref_contrib.sophia(grads, theta0, lambda x: x ** 2 + 1.0, 0.1,
                              **kwargs)
    tx = contrib.sophia(0.1, hessian_diagonal_fn=estimator, **kwargs)
    params = jnp.asarray(theta0, jnp.float32)
    state = tx.init(params)
    update = jax.jit(functools.partial(tx.update, obj_fn=jnp.sum))
    for step, g in enumerate(grads):
      u, state = update(jnp.asarray(g, jnp.float32), state, params)
      _close(u, want[step], 2e-5, f'step {step}')
      params = params + u


class GaloreTest(parameterized.TestCase):
  """Zhao et al. 2024, Algorithm 2, as the docstring of scale_by_galore."""

  def _run(self, tx, grads, params=None):
    p = None if params is None else jax.tree.map(jnp.asarray, params)
    state = tx.init(jax.tree.map(jnp.zeros_like, grads[0]))
    update = jax.jit(tx.update)
    out, projectors = [], []
    for g in grads:
      u, state = update(jax.tree.map(jnp.asarray, g), state, p)
      out.append(u)
      inner = state if isinstance(state, contrib.GaLoreState) else state[0]
      projectors.append(jax.tree.map(np.asarray, inner.projector))
    return out, projectors

  @parameterized.named_parameters(
      ('rank_2_gap_2', 2, 2, 1.0), ('rank_1_gap_3_scaled', 1, 3, 0.25),
      ('rank_capped', 10, 2, 1.0))
  def test_scale_by_galore(self, rank, gap, scale):
    shapes = {'w': (4, 6), 'k': (6, 4), 'b': (3,)}
    rng = np.random.default_rng(10)
    grads = [{n: rng.normal(size=s).astype(np.float32)
              for n, s in shapes.items()} for _ in range(5)]
    got, projectors = self._run(
        contrib.scale_by_galore(rank=rank, update_proj_gap=gap, scale=scale),
        grads)
    for name in ('w', 'k'):
      fork_p = [p[name] for p in projectors]
      for t in range(0, 5, gap):  # The same subspace as the SVD's.
        oracle_p = ref_contrib.top_singular_vectors(grads[t][name], rank)
        np.testing.assert_allclose(np.abs(oracle_p.T @ fork_p[t]),
                                   np.eye(oracle_p.shape[1]), atol=1e-5)
      want = ref_contrib.galore_matrix(
          [g[name] for g in grads], rank, gap, scale, align_to=fork_p)
      for step in range(5):
        _close(got[step][name], want[step], 2e-5, f'{name} step {step}')
    want = ref.adam([g['b'] for g in grads], lr=-1.0)  # Not scaled.
    for step in range(5):
      _close(got[step]['b'], want[step], 2e-5, f'b step {step}')

  def test_tensor_viewed_as_a_matrix(self):
    # Axes (0, 1) are the rows: a (2, 3, 5) leaf is a (6, 5) matrix, whose
    # rows (the larger dimension) are projected.
    rng = np.random.default_rng(15)
    grads = [{'t': rng.normal(size=(2, 3, 5)).astype(np.float32)}
             for _ in range(4)]
    dims = contrib.GaLoreDimensionNumbers(reduction_axis=(0, 1),
                                          output_axis=2)
    got, projectors = self._run(
        contrib.scale_by_galore(rank=2, update_proj_gap=3,
                                weight_dimension_numbers={'t': dims}),
        grads)
    want = ref_contrib.galore_matrix(
        [g['t'].reshape(6, 5) for g in grads], 2, 3,
        align_to=[p['t'] for p in projectors])
    for step in range(4):
      _close(got[step]['t'], want[step].reshape(2, 3, 5), 2e-5,
             f'step {step}')

  def test_galore_alias(self):
    shapes = {'w': (4, 6), 'b': (3,)}
    rng = np.random.default_rng(11)
    grads = [{n: rng.normal(size=s).astype(np.float32)
              for n, s in shapes.items()} for _ in range(4)]
    params = {n: rng.normal(size=s).astype(np.float32)
              for n, s in shapes.items()}
    lr, wd = 0.1, 0.01
    got, projectors = self._run(
        contrib.galore(lr, rank=2, update_proj_gap=2, weight_decay=wd),
        grads, params)
    want = ref_contrib.galore_matrix(
        [g['w'] for g in grads], 2, 2,
        align_to=[p['w'] for p in projectors])
    want_b = ref.adam([g['b'] for g in grads], lr=-1.0)
    for step in range(4):
      _close(got[step]['w'], -lr * (want[step] + wd * params['w']), 2e-5)
      _close(got[step]['b'], -lr * (want_b[step] + wd * params['b']), 2e-5)


class ReduceOnPlateauTest(parameterized.TestCase):
  """The docstring of reduce_on_plateau."""

  @parameterized.named_parameters(
      ('docstring', [3.0, 2.0, 2.0, 2.0, 2.0, 2.0],
       {'factor': 0.5, 'patience': 2}),
      ('negative_constant', [-1.0] * 7, {'factor': 0.5, 'patience': 2}),
      # rtol = 0.25 from best 2: 1.5 (the threshold) is no improvement,
      # 1.25 is.
      ('rtol_tie', [2.0, 1.5, 1.25, 1.0, 1.0, 1.0],
       {'factor': 0.5, 'patience': 2, 'rtol': 0.25}),
      # From best -2: -2 * 1.25 - 0.5 = -3 is no improvement.
      ('atol_negative_tie', [-2.0, -3.0, -3.0, -3.5, -3.5, -3.5],
       {'factor': 0.5, 'patience': 2, 'rtol': 0.25, 'atol': 0.5}),
      ('cooldown_min_scale', [1.0] * 12,
       {'factor': 0.1, 'patience': 1, 'cooldown': 2, 'min_scale': 0.005}),
      ('accumulation', [4.0, 2.0, 3.0, 3.0, 3.0, 3.0, 3.0, 3.0, 3.0, 1.0,
                        1.0, 1.0],
       {'factor': 0.5, 'patience': 1, 'accumulation_size': 3}))
  def test_scale(self, values, kwargs):
    want = ref_contrib.reduce_on_plateau(values, **kwargs)
    tx = contrib.reduce_on_plateau(**kwargs)
    state = tx.init(jnp.zeros(2))
    update = jax.jit(lambda u, s, v: tx.update(u, s, value=v))
    for step, value in enumerate(values):
      u, state = update(jnp.full(2, 3.0), state, value)
      _close(u, [3.0 * want[step]] * 2, 1e-6, f'step {step}')
      _close(state.scale, want[step], 1e-6, f'step {step}')


class SplitRealAndImaginaryTest(parameterized.TestCase):
  """Identity: the inner transformation on (x, y) as two real params."""

  @parameterized.named_parameters(('complex64', jnp.complex64, 2e-5),
                                  ('complex128', jnp.complex128, 1e-11))
  def test_adamw_on_each_part(self, dtype, rtol):
    rng = np.random.default_rng(12)
    grads = [rng.normal(size=4) + 1j * rng.normal(size=4) for _ in range(3)]
    grads[1] = grads[1].real + 0j  # Zero imaginary gradient.
    real_grads = [rng.normal(size=3) for _ in range(3)]
    params = np.array([1.0 - 1.0j, 0.5j, -2.0, 0.0])
    real_params = np.array([0.5, -0.5, 2.0])
    lr, wd = 0.1, 0.2
    with utils.x64_precision(dtype == jnp.complex128):
      real_dtype = jnp.finfo(dtype).dtype
      tx = contrib.split_real_and_imaginary(
          optax.adamw(lr, weight_decay=wd))
      p = {'z': jnp.asarray(params, dtype),
           'r': jnp.asarray(real_params, real_dtype)}
      state, update = tx.init(p), jax.jit(tx.update)
      got = []
      for g, gr in zip(grads, real_grads):
        u, state = update({'z': jnp.asarray(g, dtype),
                              'r': jnp.asarray(gr, real_dtype)}, state, p)
        self.assertEqual(u['z'].dtype, jnp.dtype(dtype))
        got.append(u)
    want_x = ref.adam([g.real for g in grads], lr=lr, weight_decay=wd,
                      params=[params.real] * 3)
    want_y = ref.adam([g.imag for g in grads], lr=lr, weight_decay=wd,
                      params=[params.imag] * 3)
    want_r = ref.adam(real_grads, lr=lr, weight_decay=wd,
                      params=[real_params] * 3)
    for step in range(3):
      _close(np.real(got[step]['z']), want_x[step], rtol)
      _close(np.imag(got[step]['z']), want_y[step], rtol)
      _close(got[step]['r'], want_r[step], rtol)


if __name__ == '__main__':
  absltest.main()
