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
"""Tests for sharpness-aware minimization (``optax.contrib._sam``)."""


from absl.testing import absltest
from absl.testing import parameterized
import jax
import jax.numpy as jnp
from jax.sharding import PartitionSpec as P
import numpy as np

from optax._src import alias
from optax._src import base
from optax._src.testing import host_devices
from optax._src.testing import optimizer_checks
from optax._src.testing import probes
from optax.contrib import _sam
from optax.transforms import _combining

_WEIGHTS = np.array([1.0, 2.0, 3.0])


def _loss(w):
  return jnp.sum(jnp.asarray(_WEIGHTS, jnp.float32) * w**2)


def _np_grad(w):
  return 2 * _WEIGHTS * w


def _np_sam(w, cycles, sync_period, lr, rho):
  """Reference SAM with sgd outer and normalized-sgd adversarial steps."""
  w = np.asarray(w, np.float64)
  history = []
  for _ in range(cycles):
    adv = w.copy()
    for _ in range(sync_period - 1):
      g = _np_grad(adv)
      adv = adv + rho * g / np.linalg.norm(g)
      history.append(adv)
    w = w - lr * _np_grad(adv)
    history.append(w)
  return history


def _sam_sgd(**kwargs):
  return _sam.sam(alias.sgd(0.1),
                  _combining.chain(_sam.normalize(), alias.sgd(0.05)),
                  **kwargs)


class NormalizeTest(absltest.TestCase):

  def test_values(self):
    tx = _sam.normalize()
    updates, _ = tx.update({'a': jnp.array([3.0, 0.0]), 'b': jnp.array(4.0)},
                           tx.init(None))
    np.testing.assert_allclose(updates['a'], [0.6, 0.0], rtol=1e-6)
    np.testing.assert_allclose(updates['b'], 0.8, rtol=1e-6)

  def test_zero_stays_zero(self):
    tx = _sam.normalize()
    updates, _ = tx.update({'a': jnp.zeros(3)}, tx.init(None))
    np.testing.assert_array_equal(updates['a'], np.zeros(3))

  def test_bfloat16(self):
    tx = _sam.normalize()
    updates, _ = tx.update(jnp.full(4, 100.0, jnp.bfloat16), tx.init(None))
    self.assertEqual(updates.dtype, jnp.bfloat16)
    np.testing.assert_allclose(updates.astype(jnp.float32), np.full(4, 0.5))


class SamTest(parameterized.TestCase):

  @parameterized.parameters((2, False), (2, True), (3, True))
  def test_transparent_matches_reference(self, sync_period, use_jit):
    tx = _sam_sgd(sync_period=sync_period)
    w = jnp.array([1.0, -2.0, 3.0])
    state = tx.init(w)
    update = jax.jit(tx.update) if use_jit else tx.update
    want = _np_sam(w, 3, sync_period, lr=0.1, rho=0.05)
    for step, want_w in enumerate(want):
      updates, state = update(jax.grad(_loss)(w), state, w)
      w = w + updates
      np.testing.assert_allclose(w, want_w, rtol=1e-5, atol=1e-6)
      self.assertEqual(int(state.steps_since_sync), (step + 1) % sync_period)

  def test_outer_optimizer_sees_cycle_start(self):
    # The outer optimizer's momentum only moves on the last step of a
    # cycle, and it gets the params of the start of the cycle.
    seen = []

    def record_params(updates, state, params=None):
      seen.append(params)
      return updates, state

    outer = _combining.chain(
        base.GradientTransformation(base.init_empty_state, record_params),
        alias.sgd(0.1, momentum=0.5))
    tx = _sam.sam(outer, _combining.chain(_sam.normalize(), alias.sgd(0.05)))
    w = jnp.array([1.0, -2.0, 3.0])
    state = tx.init(w)
    traces = []
    for _ in range(4):
      updates, state = tx.update(jax.grad(_loss)(w), state, w)
      traces.append(np.asarray(state.opt_state[1][0].trace))
      w = w + updates
    np.testing.assert_array_equal(traces[0], np.zeros(3))
    np.testing.assert_array_equal(traces[2], traces[1])
    self.assertFalse(np.allclose(traces[3], traces[2]))
    np.testing.assert_array_equal(seen[1], [1.0, -2.0, 3.0])

  @parameterized.parameters(True, False)
  def test_reset_state(self, reset_state):
    tx = _sam.sam(alias.sgd(0.1),
                  _combining.chain(_sam.normalize(), alias.adam(0.05)),
                  sync_period=3, reset_state=reset_state)
    w = jnp.array([1.0, -2.0, 3.0])
    state = tx.init(w)
    counts = []
    for _ in range(6):
      updates, state = tx.update(jax.grad(_loss)(w), state, w)
      counts.append(int(state.adv_state[1][0].count))
      w = w + updates
    # The adversarial optimizer steps twice per cycle; the outer step leaves
    # its state alone, or resets it.
    want = [1, 2, 0, 1, 2, 0] if reset_state else [1, 2, 2, 3, 4, 4]
    self.assertEqual(counts, want)

  @parameterized.parameters(2, 3)
  def test_opaque_equals_transparent(self, sync_period):
    w0 = jnp.array([1.0, -2.0, 3.0])
    transparent = _sam_sgd(sync_period=sync_period)
    opaque = _sam_sgd(sync_period=sync_period, opaque_mode=True)
    state_t, state_o = transparent.init(w0), opaque.init(w0)
    self.assertIsNone(state_o.cache)
    w_t = w_o = w0
    calls = []

    def grad_fn(params, i):
      calls.append(i)
      return jax.grad(_loss)(params)

    for _ in range(2):
      for _ in range(sync_period):
        updates, state_t = transparent.update(jax.grad(_loss)(w_t), state_t,
                                              w_t)
        w_t = w_t + updates
      updates, state_o = opaque.update(jax.grad(_loss)(w_o), state_o, w_o,
                                       grad_fn=grad_fn)
      w_o = w_o + updates
      np.testing.assert_allclose(w_o, w_t, rtol=1e-6, atol=1e-7)
    self.assertEqual(calls, list(range(sync_period - 1)) * 2)

  def test_batch_axis_name_averages_grad_fn(self):
    devices = host_devices.use_host_devices(self, 4)
    mesh = jax.sharding.Mesh(np.array(devices), ('batch',))
    scales = np.array([[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0],
                       [1.0, 1.0, 1.0]])
    tx = _sam_sgd(sync_period=3, opaque_mode=True, batch_axis_name='batch')
    w = jnp.array([1.0, -2.0, 3.0])

    def local(w, state, scale):
      grad_fn = lambda params, i: jax.grad(_loss)(params) * scale[0]
      return tx.update(jax.grad(_loss)(w) * scale[0], state, w,
                       grad_fn=grad_fn)[0]

    step = jax.jit(jax.shard_map(
        local, mesh=mesh, in_specs=(P(), P(), P('batch')),
        out_specs=P('batch'), check_vma=False))
    got = np.asarray(step(w, tx.init(w), jnp.asarray(scales))).reshape(4, 3)

    # Reference: each device ascends along its own gradient first; every
    # gradient of grad_fn is then averaged over the devices.
    def ascend(v, g):
      return v + 0.05 * g / np.linalg.norm(g)

    w64 = np.asarray(w, np.float64)
    adv = [ascend(w64, _np_grad(w64) * s) for s in scales]
    mean_g = np.mean([_np_grad(a) * s for a, s in zip(adv, scales)], axis=0)
    adv = [ascend(a, mean_g) for a in adv]
    mean_g = np.mean([_np_grad(a) * s for a, s in zip(adv, scales)], axis=0)
    for row in got:
      np.testing.assert_allclose(row, -0.1 * mean_g, rtol=1e-5)

  def test_errors(self):
    with self.assertRaisesRegex(ValueError, 'sync_period must be a positive'):
      _sam_sgd(sync_period=0)
    tx = _sam_sgd(opaque_mode=True)
    w = jnp.ones(3)
    with self.assertRaisesRegex(ValueError, 'needs the keyword argument'):
      tx.update(w, tx.init(w), w)
    tx = _sam_sgd()
    with self.assertRaisesRegex(ValueError, 'params must be given'):
      tx.update(w, tx.init(w))

  @parameterized.parameters(jnp.float32, jnp.bfloat16)
  def test_dtypes_state_stable_single_trace(self, dtype):
    tx = _sam.sam(alias.adam(0.01),
                  _combining.chain(_sam.normalize(), alias.sgd(0.05)),
                  sync_period=3)
    params = {'w': jnp.ones((2, 3), dtype), 'b': jnp.ones(3, jnp.float32)}
    optimizer_checks.assert_dtypes_stable_over_steps(
        tx, params, num_steps=4,
        grad_fn=lambda p: jax.tree.map(lambda x: 2 * x, p))

  def test_builds_without_arrays(self):
    _, new = probes.arrays_created_by(lambda: _sam_sgd(sync_period=3))
    self.assertEqual(new, [])


if __name__ == '__main__':
  absltest.main()
