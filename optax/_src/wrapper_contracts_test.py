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
"""Contract tests of the wrappers and transforms (issue 41).

Each wrapper is checked against its documented semantics, as identities
(``MultiSteps`` with ``k = 1`` is its inner optimizer, masked leaves pass
unchanged, ``inject_hyperparams`` is the plain optimizer, a chain of
identities is the identity, ...) and each transform of ``optax`` and
``optax.transforms`` against a float64 NumPy reference of its docstring's
formula, on random trees and on edges (zeros, NaN, ties at a threshold).
Also ``optax.microbatching`` (a microbatched function equals the full
batch's) and ``optax.experimental.aggregating`` (the merged statistics of
several batches equal those of their concatenation).
"""


from absl.testing import absltest
from absl.testing import parameterized
import jax
import jax.numpy as jnp
import numpy as np
import optax
from optax import microbatching
from optax import transforms
from optax.experimental import aggregating

_RNG = np.random.default_rng(0)


def _tree(seed=0, scale=1.0):
  rng = np.random.default_rng(seed)
  return {'w': jnp.asarray(scale * rng.normal(size=(3, 4)), jnp.float32),
          'b': jnp.asarray(scale * rng.normal(size=(4,)), jnp.float32)}


def _np(tree):
  return jax.tree.map(lambda x: np.asarray(x, np.float64), tree)


def _steps(tx, grads_list, params, **extra):
  state = tx.init(params)
  out = []
  for g in grads_list:
    u, state = tx.update(g, state, params, **extra)
    out.append(u)
  return out, state


def _assert_trees_close(test, got, want, rtol=1e-6, atol=1e-7):
  del test
  jax.tree.map(
      lambda x, y: np.testing.assert_allclose(
          np.asarray(x, np.float64), np.asarray(y, np.float64),
          rtol=rtol, atol=atol), got, want)


class CompositionIdentitiesTest(parameterized.TestCase):

  def test_chain_of_identities_is_identity(self):
    g, p = _tree(1), _tree(2)
    for tx in (optax.chain(), optax.chain(optax.identity(), optax.identity()),
               optax.named_chain(('a', optax.identity()))):
      (u,), _ = _steps(tx, [g], p)
      _assert_trees_close(self, u, g, rtol=0, atol=0)

  def test_chain_composes_in_order(self):
    # scale(2) then add_decayed_weights(0.5): 2 g + 0.5 p, not 2 (g + 0.5 p).
    g, p = _tree(1), _tree(2)
    tx = optax.chain(optax.scale(2.0), optax.add_decayed_weights(0.5))
    (u,), _ = _steps(tx, [g], p)
    want = jax.tree.map(lambda a, b: 2 * a + 0.5 * b, _np(g), _np(p))
    _assert_trees_close(self, u, want)
    named = optax.named_chain(('s', optax.scale(2.0)),
                              ('d', optax.add_decayed_weights(0.5)))
    (u2,), _ = _steps(named, [g], p)
    _assert_trees_close(self, u2, want)

  def test_set_to_zero_and_stateless(self):
    g, p = _tree(1), _tree(2)
    (u,), _ = _steps(optax.set_to_zero(), [g], p)
    _assert_trees_close(self, u, jax.tree.map(np.zeros_like, _np(g)), 0, 0)
    tx = optax.stateless(
        lambda u, p: jax.tree.map(lambda a, b: a * b, u, p))
    (u,), _ = _steps(tx, [g], p)
    _assert_trees_close(self, u, jax.tree.map(np.multiply, _np(g), _np(p)))
    tx = optax.stateless_with_tree_map(lambda a, b: a - b)
    (u,), _ = _steps(tx, [g], p)
    _assert_trees_close(self, u, jax.tree.map(np.subtract, _np(g), _np(p)))

  @parameterized.parameters(('tree',), ('fn',))
  def test_masked_leaves_pass_unchanged(self, how):
    g, p = _tree(1), _tree(2)
    mask = {'w': True, 'b': False}
    tx = optax.masked(optax.sgd(0.1, momentum=0.9),
                      mask if how == 'tree' else (lambda _: mask))
    us, _ = _steps(tx, [g, g], p)
    plain, _ = _steps(optax.sgd(0.1, momentum=0.9), [g, g], p)
    for u, v in zip(us, plain):
      _assert_trees_close(self, u['b'], g['b'], 0, 0)
      _assert_trees_close(self, u['w'], v['w'], 0, 0)

  @parameterized.parameters((optax.partition,), (optax.multi_transform,))
  def test_partition_applies_each_label_its_transform(self, factory):
    g, p = _tree(1), _tree(2)
    tx = factory({'a': optax.sgd(0.1), 'z': optax.set_to_zero()},
                 {'w': 'a', 'b': 'z'})
    (u,), _ = _steps(tx, [g], p)
    _assert_trees_close(self, u['w'], -0.1 * _np(g)['w'])
    _assert_trees_close(self, u['b'], np.zeros(4), 0, 0)

  def test_flatten_equals_the_elementwise_inner(self):
    grads = [_tree(s) for s in range(3)]
    p = _tree(9)
    got, _ = _steps(optax.flatten(optax.adam(0.1)), grads, p)
    want, _ = _steps(optax.adam(0.1), grads, p)
    for u, v in zip(got, want):
      _assert_trees_close(self, u, v, 1e-6, 1e-7)

  @parameterized.parameters(('inject',), ('stateful',))
  def test_inject_hyperparams_equals_the_plain_optimizer(self, which):
    grads = [_tree(s) for s in range(3)]
    p = _tree(9)
    factory = (optax.inject_hyperparams if which == 'inject'
               else optax.inject_stateful_hyperparams)
    got, state = _steps(factory(optax.adamw)(learning_rate=0.1,
                                             weight_decay=0.3), grads, p)
    want, _ = _steps(optax.adamw(0.1, weight_decay=0.3), grads, p)
    for u, v in zip(got, want):
      _assert_trees_close(self, u, v, 1e-6, 1e-7)
    self.assertAlmostEqual(float(state.hyperparams['learning_rate']), 0.1,
                           places=7)

  def test_inject_hyperparams_evaluates_schedules_at_the_count(self):
    # A schedule's value at step t scales the t-th update (t = 0, 1, 2).
    sched = lambda t: 0.1 * (t + 1)
    grads = [_tree(s) for s in range(3)]
    p = _tree(9)
    got, _ = _steps(optax.inject_hyperparams(optax.sgd)(learning_rate=sched),
                    grads, p)
    for t, (u, g) in enumerate(zip(got, grads)):
      _assert_trees_close(self, u, jax.tree.map(
          lambda x, t=t: -0.1 * (t + 1) * x, _np(g)))


class AccumulationTest(parameterized.TestCase):

  def test_multisteps_with_one_step_is_the_inner_optimizer(self):
    grads = [_tree(s) for s in range(4)]
    p = _tree(9)
    got, _ = _steps(optax.MultiSteps(optax.adam(0.1), 1), grads, p)
    want, _ = _steps(optax.adam(0.1), grads, p)
    for u, v in zip(got, want):
      _assert_trees_close(self, u, v, 1e-6, 1e-7)

  @parameterized.parameters((True,), (False,))
  def test_multisteps_applies_the_mean_every_k(self, use_grad_mean):
    # k = 3: zeros twice, then sgd of the mean (or sum) of the three.
    grads = [_tree(s) for s in range(6)]
    p = _tree(9)
    tx = optax.MultiSteps(optax.sgd(1.0), 3, use_grad_mean=use_grad_mean)
    got, _ = _steps(tx, grads, p)
    for t, u in enumerate(got):
      if t % 3 != 2:
        _assert_trees_close(self, u, jax.tree.map(np.zeros_like, _np(u)),
                            0, 0)
        continue
      window = [_np(g) for g in grads[t - 2:t + 1]]
      total = jax.tree.map(lambda *xs: sum(xs), *window)
      want = jax.tree.map(
          lambda x: -x / 3 if use_grad_mean else -x, total)
      _assert_trees_close(self, u, want, 1e-6, 1e-6)

  def test_apply_every_emits_the_sum_every_k(self):
    grads = [_tree(s) for s in range(4)]
    got, _ = _steps(optax.apply_every(2), grads, _tree(9))
    for t, u in enumerate(got):
      if t % 2 == 0:
        _assert_trees_close(self, u, jax.tree.map(np.zeros_like, _np(u)),
                            0, 0)
      else:
        want = jax.tree.map(np.add, _np(grads[t - 1]), _np(grads[t]))
        _assert_trees_close(self, u, want)

  def test_skip_functions(self):
    g = {'a': jnp.array([3.0, 4.0])}
    skip, _ = optax.skip_not_finite(g, jnp.int32(0), None)
    self.assertFalse(bool(skip))
    skip, _ = optax.skip_not_finite({'a': jnp.array([jnp.nan, 1.0])},
                                    jnp.int32(0), None)
    self.assertTrue(bool(skip))
    # ||g||^2 = 25: kept under a bound above it, skipped under one below it
    # (at the bound itself the docstring's "too large" does not say).
    skip, _ = optax.skip_large_updates(g, jnp.int32(0), None, 25.1)
    self.assertFalse(bool(skip))
    skip, _ = optax.skip_large_updates(g, jnp.int32(0), None, 24.9)
    self.assertTrue(bool(skip))


class ConditionalityTest(parameterized.TestCase):

  def test_apply_if_finite_skips_non_finite_updates(self):
    p = _tree(9)
    tx = optax.apply_if_finite(optax.sgd(1.0, momentum=0.5), 3)
    bad = jax.tree.map(lambda x: x.at[(0,) * x.ndim].set(jnp.nan), _tree(1))
    grads = [_tree(0), bad, _tree(2)]
    got, state = _steps(tx, grads, p)
    want, _ = _steps(optax.sgd(1.0, momentum=0.5), [_tree(0), _tree(2)], p)
    _assert_trees_close(self, got[0], want[0])
    _assert_trees_close(self, got[1], jax.tree.map(np.zeros_like,
                                                   _np(got[1])), 0, 0)
    _assert_trees_close(self, got[2], want[1])
    self.assertEqual(int(state.total_notfinite), 1)

  @parameterized.parameters((optax.conditionally_mask, True),
                            (optax.conditionally_transform, False))
  def test_conditional_wrappers(self, factory, zeros_when_off):
    # Inner applied on even steps only; otherwise zeros (mask) or the
    # incoming updates (transform).
    grads = [_tree(s) for s in range(4)]
    tx = factory(optax.scale(3.0), lambda step: step % 2 == 0)
    got, _ = _steps(tx, grads, _tree(9))
    for t, (u, g) in enumerate(zip(got, grads)):
      if t % 2 == 0:
        want = jax.tree.map(lambda x: 3 * x, _np(g))
      elif zeros_when_off:
        want = jax.tree.map(np.zeros_like, _np(g))
      else:
        want = _np(g)
      _assert_trees_close(self, u, want)

  def test_zero_nans(self):
    g = {'a': jnp.array([1.0, jnp.nan, -jnp.inf])}
    (u,), state = _steps(optax.zero_nans(), [g], g)
    np.testing.assert_array_equal(u['a'], [1.0, 0.0, -np.inf])
    self.assertTrue(bool(state.found_nan['a']))

  def test_freeze_and_selective_transform(self):
    g, p = _tree(1), _tree(2)
    (u,), _ = _steps(optax.freeze({'w': True, 'b': False}), [g], p)
    _assert_trees_close(self, u['w'], np.zeros((3, 4)), 0, 0)
    _assert_trees_close(self, u['b'], g['b'], 0, 0)
    tx = optax.selective_transform(optax.sgd(0.1),
                                   freeze_mask={'w': False, 'b': True})
    (u,), _ = _steps(tx, [g], p)
    _assert_trees_close(self, u['w'], -0.1 * _np(g)['w'])
    _assert_trees_close(self, u['b'], np.zeros(4), 0, 0)


class LookaheadTest(absltest.TestCase):

  def test_slow_weights_follow_the_paper(self):
    # Zhang et al. 2019, Algorithm 1 with SGD(lr) inside, k = 2, alpha:
    # fast steps phi -= lr g(phi); after k of them theta += alpha (phi -
    # theta) and phi = theta.
    lr, alpha, k = 0.1, 0.5, 2
    target = np.array([1.0, -2.0, 0.5])
    grad = lambda x: x - target  # Gradient of 0.5 ||x - target||^2.
    tx = optax.lookahead(optax.sgd(lr), k, alpha)
    x0 = np.array([0.3, 0.7, -1.2])
    params = optax.LookaheadParams.init_synced(jnp.asarray(x0, jnp.float32))
    state = tx.init(params)
    theta, phi = x0.copy(), x0.copy()
    for step in range(1, 7):
      g = jnp.asarray(grad(np.asarray(params.fast, np.float64)), jnp.float32)
      updates, state = tx.update(g, state, params)
      params = optax.apply_updates(params, updates)
      phi = phi - lr * grad(phi)
      if step % k == 0:
        theta = theta + alpha * (phi - theta)
        phi = theta.copy()
      np.testing.assert_allclose(params.slow, theta, rtol=1e-5, atol=1e-6)
      np.testing.assert_allclose(params.fast, phi, rtol=1e-5, atol=1e-6)


class TransformFormulaTest(parameterized.TestCase):

  @parameterized.parameters((0.9, False), (0.9, True), (0.0, False))
  def test_trace(self, decay, nesterov):
    grads = [_tree(s) for s in range(4)]
    got, _ = _steps(optax.trace(decay, nesterov), grads, _tree(9))
    m = None
    for u, g in zip(got, grads):
      g = _np(g)
      m = g if m is None else jax.tree.map(lambda a, b: a + decay * b, g, m)
      want = (jax.tree.map(lambda a, b: a + decay * b, g, m) if nesterov
              else m)
      _assert_trees_close(self, u, want, 1e-6, 1e-6)

  @parameterized.parameters((0.9, True), (0.5, False))
  def test_ema(self, decay, debias):
    grads = [_tree(s) for s in range(4)]
    got, _ = _steps(optax.ema(decay, debias), grads, _tree(9))
    m = jax.tree.map(np.zeros_like, _np(grads[0]))
    for t, (u, g) in enumerate(zip(got, grads), start=1):
      m = jax.tree.map(lambda a, b: (1 - decay) * a + decay * b, _np(g), m)
      want = (jax.tree.map(lambda x, t=t: x / (1 - decay ** t), m)
              if debias else m)
      _assert_trees_close(self, u, want, 1e-6, 1e-6)

  def test_add_decayed_weights_with_mask(self):
    g, p = _tree(1), _tree(2)
    (u,), _ = _steps(optax.add_decayed_weights(0.3, {'w': True, 'b': False}),
                     [g], p)
    _assert_trees_close(self, u['w'], _np(g)['w'] + 0.3 * _np(p)['w'])
    _assert_trees_close(self, u['b'], g['b'], 0, 0)

  def test_scale_learning_rate_and_schedule(self):
    grads = [_tree(s) for s in range(3)]
    p = _tree(9)
    for tx, factor in ((optax.scale(-0.5), lambda t: -0.5),
                       (optax.scale_by_learning_rate(0.5), lambda t: -0.5),
                       (optax.scale_by_learning_rate(0.5, flip_sign=False),
                        lambda t: 0.5),
                       (optax.scale_by_learning_rate(lambda t: 0.1 * t),
                        lambda t: -0.1 * t),
                       (optax.scale_by_schedule(lambda t: 2.0 + t),
                        lambda t: 2.0 + t)):
      got, _ = _steps(tx, grads, p)
      for t, (u, g) in enumerate(zip(got, grads)):
        f = factor(t)
        _assert_trees_close(
            self, u, jax.tree.map(lambda x, f=f: f * x, _np(g)))

  def test_centralize(self):
    g = _tree(1)
    (u,), _ = _steps(optax.centralize(), [g], _tree(2))
    w = _np(g)['w']
    _assert_trees_close(self, u['w'], w - w.mean(axis=1, keepdims=True),
                        1e-6, 1e-6)
    _assert_trees_close(self, u['b'], g['b'], 0, 0)

  def test_keep_params_nonnegative(self):
    p = {'a': jnp.array([1.0, 0.5, 0.0, 2.0])}
    g = {'a': jnp.array([-0.5, -1.0, -0.1, 1.0])}
    (u,), _ = _steps(optax.keep_params_nonnegative(), [g], p)
    np.testing.assert_array_equal(u['a'], [-0.5, -0.5, 0.0, 1.0])

  @parameterized.parameters((1.0, 1e-6), (3.0, 0.0))
  def test_normalize_by_update_norm(self, scale, eps):
    g = _tree(1)
    (u,), _ = _steps(optax.normalize_by_update_norm(scale, eps), [g], None)
    leaves = np.concatenate([x.ravel() for x in jax.tree.leaves(_np(g))])
    norm = np.linalg.norm(leaves)
    _assert_trees_close(self, u, jax.tree.map(
        lambda x: scale * x / (norm + eps), _np(g)), 1e-6, 1e-7)

  def test_clip(self):
    g = {'a': jnp.array([-3.0, -1.0, 0.0, 1.0, 3.0])}
    (u,), _ = _steps(optax.clip(1.0), [g], None)
    np.testing.assert_array_equal(u['a'], [-1.0, -1.0, 0.0, 1.0, 1.0])

  @parameterized.parameters((0.5,), (10.0,), (0.0,))
  def test_clip_by_global_norm(self, max_norm):
    for g in (_tree(1), jax.tree.map(jnp.zeros_like, _tree(1))):
      (u,), _ = _steps(optax.clip_by_global_norm(max_norm), [g], None)
      leaves = np.concatenate([x.ravel() for x in jax.tree.leaves(_np(g))])
      norm = np.linalg.norm(leaves)
      factor = 1.0 if norm <= max_norm else max_norm / norm
      _assert_trees_close(self, u, jax.tree.map(lambda x, f=factor: f * x,
                                                _np(g)), 1e-6, 1e-7)

  def test_clip_by_global_norm_at_the_norm_is_identity(self):
    g = {'a': jnp.array([3.0, 4.0])}
    (u,), _ = _steps(optax.clip_by_global_norm(5.0), [g], None)
    np.testing.assert_array_equal(u['a'], [3.0, 4.0])

  @parameterized.parameters((0.1,), (10.0,))
  def test_clip_by_block_rms(self, threshold):
    g = _tree(1)
    (u,), _ = _steps(optax.clip_by_block_rms(threshold), [g], None)
    def want(x):
      rms = np.sqrt(np.mean(x * x))
      return x / max(1.0, rms / threshold)
    _assert_trees_close(self, u, jax.tree.map(want, _np(g)), 1e-6, 1e-7)

  def test_adaptive_grad_clip(self):
    # Unitwise norms: a vector is one unit; a matrix's units are its
    # columns' entries along all axes but the last (Brock et al. 2021).
    clipping, eps = 0.05, 1e-3
    g, p = _tree(1), _tree(2)
    (u,), _ = _steps(optax.adaptive_grad_clip(clipping, eps), [g], p)
    def want(gx, px):
      axis = None if gx.ndim <= 1 else tuple(range(gx.ndim - 1))
      gn = np.sqrt(np.sum(gx * gx, axis=axis, keepdims=axis is not None))
      pn = np.sqrt(np.sum(px * px, axis=axis, keepdims=axis is not None))
      bound = clipping * np.maximum(pn, eps)
      return np.where(gn < bound, gx, gx * bound / gn)
    _assert_trees_close(self, u, jax.tree.map(want, _np(g), _np(p)),
                        1e-5, 1e-7)
    np.testing.assert_allclose(
        transforms.unitwise_norm(jnp.asarray([3.0, 4.0])), 5.0, rtol=1e-6)

  def test_per_example_global_norm_clip(self):
    rng = np.random.default_rng(3)
    grads = [jnp.asarray(rng.normal(size=(5, 3)), jnp.float32),
             jnp.asarray(rng.normal(size=(5, 2)), jnp.float32)]
    clip = 1.5
    (sum_w, sum_b), num_clipped = optax.per_example_global_norm_clip(
        grads, clip)
    g64 = [np.asarray(g, np.float64) for g in grads]
    norms = np.sqrt(sum(np.sum(g * g, axis=1) for g in g64))
    factors = np.minimum(1.0, clip / norms)
    np.testing.assert_allclose(sum_w, (g64[0] * factors[:, None]).sum(0),
                               rtol=1e-5)
    np.testing.assert_allclose(sum_b, (g64[1] * factors[:, None]).sum(0),
                               rtol=1e-5)
    self.assertEqual(int(num_clipped), int(np.sum(norms > clip)))

  @parameterized.parameters((True,), (False,))
  def test_per_example_layer_norm_clip(self, uniform):
    rng = np.random.default_rng(7)
    grads = [jnp.asarray(rng.normal(size=(5, 3)), jnp.float32),
             jnp.asarray(rng.normal(size=(5, 6)), jnp.float32)]
    clip = 1.2
    sums, _ = optax.per_example_layer_norm_clip(grads, clip, uniform)
    sizes = np.array([3, 6])
    bounds = (clip / np.sqrt(2) * np.ones(2) if uniform
              else clip * np.sqrt(sizes / sizes.sum()))
    for got, g, c in zip(sums, grads, bounds):
      g = np.asarray(g, np.float64)
      norms = np.linalg.norm(g, axis=1, keepdims=True)
      want = (g * np.minimum(1.0, c / norms)).sum(0)
      np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)

  def test_unitwise_clip(self):
    g = jnp.array([3.0, 4.0, 0.0])
    norms = jnp.array([5.0, 5.0, 0.0])
    got = transforms.unitwise_clip(norms, jnp.array([2.5, 10.0, 1.0]), g)
    np.testing.assert_allclose(got, [1.5, 4.0, 0.0], rtol=1e-6)

  def test_add_noise_variance_follows_the_schedule(self):
    # Neelakantan et al. 2015: variance eta / (1 + t) ** gamma at step t.
    eta, gamma = 0.5, 0.55
    g = {'a': jnp.zeros((20000,))}
    tx = optax.add_noise(eta, gamma, key=0)
    got, _ = _steps(tx, [g, g, g], None)
    for t, u in enumerate(got):
      var = float(np.var(np.asarray(u['a'], np.float64)))
      self.assertAlmostEqual(var / (eta / (1 + t) ** gamma), 1.0, delta=0.05)

  def test_monitor_snapshot_and_measure_with_ema(self):
    g = {'a': jnp.array([3.0, 4.0])}
    norm = lambda u: jnp.sqrt(sum(jnp.sum(x * x) for x in jax.tree.leaves(u)))
    tx = optax.monitor({
        'norm': norm,
        'ema': optax.measure_with_ema(norm, 0.5, debias=True)})
    (u,), state = _steps(tx, [g], g)
    np.testing.assert_array_equal(u['a'], g['a'])
    self.assertAlmostEqual(float(state.measurements['norm']), 5.0, places=5)
    # One debiased step of an EMA is the measure itself.
    self.assertAlmostEqual(float(state.measurements['ema']), 5.0, places=5)
    tx = optax.snapshot('norm', norm)
    (u,), state = _steps(tx, [g], g)
    np.testing.assert_array_equal(u['a'], g['a'])
    self.assertAlmostEqual(float(state.measurement['norm']), 5.0, places=5)

  def test_scale_gradient_and_parameter_updates(self):
    f = lambda x: jnp.sum(optax.scale_gradient(x, 0.25) ** 2)
    x = jnp.array([1.0, -2.0])
    np.testing.assert_allclose(jax.grad(f)(x), 0.25 * 2 * np.array(x))
    np.testing.assert_array_equal(optax.scale_gradient(x, 0.25), x)
    new, old = {'a': jnp.array([4.0])}, {'a': jnp.array([0.0])}
    np.testing.assert_allclose(
        optax.incremental_update(new, old, 0.25)['a'], [1.0])
    for step, want in ((0, 4.0), (1, 0.0), (3, 4.0)):
      got = optax.periodic_update(new, old, jnp.int32(step), 3)['a']
      np.testing.assert_allclose(got, [want])


class MicrobatchingTest(parameterized.TestCase):

  @parameterized.parameters(
      (microbatching.AccumulationType.SUM,),
      (microbatching.AccumulationType.MEAN,),
      (microbatching.AccumulationType.RUNNING_MEAN,),
      (microbatching.AccumulationType.CONCAT,),
  )
  def test_microbatched_equals_full_batch(self, accumulation):
    rng = np.random.default_rng(4)
    x = jnp.asarray(rng.normal(size=(8, 3)), jnp.float32)
    w = jnp.asarray(rng.normal(size=(3,)), jnp.float32)
    concat = accumulation == microbatching.AccumulationType.CONCAT
    def fun(w, x):
      y = jnp.tanh(x @ w)
      return y if concat else jnp.sum(y)
    micro = microbatching.microbatch(fun, argnums=1, microbatch_size=2,
                                     accumulator=accumulation)
    got = micro(w, x)
    y = np.tanh(np.asarray(x, np.float64) @ np.asarray(w, np.float64))
    if concat:
      want = y
    else:
      sums = y.reshape(4, 2).sum(axis=1)
      want = (sums.mean() if accumulation in (
          microbatching.AccumulationType.MEAN,
          microbatching.AccumulationType.RUNNING_MEAN) else sums.sum())
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)

  def test_micro_vmap_and_micro_grad_equal_the_batch(self):
    rng = np.random.default_rng(6)
    x = jnp.asarray(rng.normal(size=(6, 3)), jnp.float32)
    w = jnp.asarray(rng.normal(size=(3,)), jnp.float32)
    f = lambda w, x: jnp.tanh(x @ w)
    got = microbatching.micro_vmap(f, in_axes=(None, 0),
                                   microbatch_size=2)(w, x)
    x64, w64 = np.asarray(x, np.float64), np.asarray(w, np.float64)
    np.testing.assert_allclose(got, np.tanh(x64 @ w64), rtol=1e-5,
                               atol=1e-6)
    # SUM of per-example gradients of tanh(x w)^2 / 2, each clipped to
    # norm 0.5 by transform_fn: the clipped per-example gradients summed.
    loss = lambda w, x: 0.5 * jnp.sum(jnp.tanh(x @ w) ** 2)
    def clip(g):
      norm = jnp.sqrt(jnp.sum(g * g))
      return g * jnp.minimum(1.0, 0.5 / norm)
    grads, _ = microbatching.micro_grad(loss, microbatch_size=3,
                                        transform_fn=clip)(w, x)
    y = np.tanh(x64 @ w64)
    per_example = (y * (1 - y ** 2))[:, None] * x64
    norms = np.linalg.norm(per_example, axis=1, keepdims=True)
    want = (per_example * np.minimum(1.0, 0.5 / norms)).sum(0)
    np.testing.assert_allclose(grads, want, rtol=1e-5, atol=1e-6)

  def test_reshape_batch_axis(self):
    x = jnp.arange(12.0).reshape(6, 2)
    got = microbatching.reshape_batch_axis(x, 2)
    self.assertEqual(got.shape, (3, 2, 2))
    # Microbatch i holds the rows it would hold in a strided or contiguous
    # split; either way every row appears once.
    np.testing.assert_array_equal(np.sort(np.asarray(got).reshape(-1)),
                                  np.arange(12.0))


class AggregatingTest(parameterized.TestCase):

  def test_average_per_element_updates(self):
    per_elt = {'w': jnp.asarray(_RNG.normal(size=(5, 3)), jnp.float32)}
    agg = aggregating.average_per_element_updates()
    mean, _ = agg.update(per_elt, agg.init(None))
    np.testing.assert_allclose(mean['w'], np.asarray(per_elt['w']).mean(0),
                               rtol=1e-5, atol=1e-7)

  def test_merged_batches_equal_the_concatenation(self):
    # Chan et al. 1979: merging the mean and the sum of squared deviations
    # of three batches gives those of the 12 elements together.
    # In float32: under x64 the merge's weights are still float32 (an int32
    # count divided by an int32 count), so float64 runs agree to 4e-8 only.
    rng = np.random.default_rng(5)
    batches = [rng.normal(size=(4, 3)) for _ in range(3)]
    agg = aggregating.get_per_element_mean_and_sum_sq_diff_grads(
        accumulation_steps=3)
    state = agg.init(jnp.zeros(3))
    for b in batches:
      (updates, aux), state = agg.update(jnp.asarray(b, jnp.float32), state)
    allx = np.concatenate(batches)
    np.testing.assert_allclose(updates, allx.mean(0), rtol=1e-5, atol=1e-7)
    np.testing.assert_allclose(aux['sum_sq_diff_grads'],
                               ((allx - allx.mean(0)) ** 2).sum(0),
                               rtol=1e-5)
    self.assertEqual(int(aux['sample_size']), 12)

  def test_ema_of_mean_and_variance_and_batch_size(self):
    # m_t = b m + (1 - b) g, v_t = b v + (1 - b) S / (N - 1), debiased by
    # 1 - b^t; two steps with b = 0.5.
    tx = aggregating.track_per_element_mean_and_variance_with_ema(0.5)
    state = tx.init(jnp.zeros(1))
    steps = ((2.0, 8.0, 5), (4.0, 3.0, 4))
    m = v = 0.0
    for t, (g, s, n) in enumerate(steps, start=1):
      u, state = tx.update(jnp.array([g]), state,
                           sum_sq_diff_grads=jnp.array([s]), sample_size=n)
      np.testing.assert_array_equal(u, [g])
      m = 0.5 * m + 0.5 * g
      v = 0.5 * v + 0.5 * s / (n - 1)
      mean, var = aggregating.get_unbiased_mean_and_variance_ema(state)
      np.testing.assert_allclose(mean, [m / (1 - 0.5 ** t)], rtol=1e-6)
      np.testing.assert_allclose(var, [v / (1 - 0.5 ** t)], rtol=1e-6)
    updates = {'w': jnp.zeros((8, 3)), 'b': jnp.zeros((8,))}
    self.assertEqual(
        aggregating.get_batch_size_from_per_elt_updates(updates, 0), 8)
    self.assertEqual(
        aggregating.get_batch_size_from_per_elt_updates(
            {'w': jnp.zeros((2, 4, 3))}, (0, 1)), 8)

  def test_process_and_incremental_average(self):
    # process(pre, average, post) is post(mean(pre(per-element))); the
    # incremental average of two batches is the mean of their means.
    rng = np.random.default_rng(8)
    b1, b2 = rng.normal(size=(3, 2)), rng.normal(size=(3, 2))
    tx = aggregating.process(optax.scale(2.0),
                             aggregating.average_per_element_updates(),
                             optax.sgd(0.5, momentum=0.9))
    state = tx.init(jnp.zeros(2))
    u1, state = tx.update(jnp.asarray(b1, jnp.float32), state)
    u2, _ = tx.update(jnp.asarray(b2, jnp.float32), state)
    m1, m2 = 2 * b1.mean(0), 2 * b2.mean(0)
    np.testing.assert_allclose(u1, -0.5 * m1, rtol=1e-5, atol=1e-7)
    np.testing.assert_allclose(u2, -0.5 * (m2 + 0.9 * m1), rtol=1e-5,
                               atol=1e-7)
    agg = aggregating.average_incrementally_updates(0, 2)
    state = agg.init(jnp.zeros(2))
    first, state = agg.update(jnp.asarray(b1, jnp.float32), state)
    second, _ = agg.update(jnp.asarray(b2, jnp.float32), state)
    np.testing.assert_array_equal(first, [0.0, 0.0])
    np.testing.assert_allclose(second, np.concatenate([b1, b2]).mean(0),
                               rtol=1e-5, atol=1e-7)

  def test_add_mean_variance_to_opt(self):
    # The optimizer steps on the batch mean; the debiased EMAs after one
    # step are the batch's mean and unbiased variance S / (N - 1).
    rng = np.random.default_rng(9)
    batch = rng.normal(size=(5, 3))
    tx = aggregating.add_mean_variance_to_opt(optax.sgd(0.1), ema_decay=0.5)
    updates, state = tx.update(jnp.asarray(batch, jnp.float32),
                               tx.init(jnp.zeros(3)))
    np.testing.assert_allclose(updates, -0.1 * batch.mean(0), rtol=1e-5,
                               atol=1e-7)
    mean, var = aggregating.get_unbiased_mean_and_variance_ema(state)
    np.testing.assert_allclose(mean, batch.mean(0), rtol=1e-5, atol=1e-7)
    np.testing.assert_allclose(var, batch.var(0, ddof=1), rtol=1e-5)

  def test_accumulate_avg_updates(self):
    tx = aggregating.accumulate_avg_updates(2)
    state = tx.init(jnp.zeros(2))
    u1, state = tx.update(jnp.array([1.0, 2.0]), state)
    u2, state = tx.update(jnp.array([3.0, 6.0]), state)
    np.testing.assert_array_equal(u1, [0.0, 0.0])
    np.testing.assert_allclose(u2, [2.0, 4.0])



if __name__ == '__main__':
  absltest.main()
