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
"""Tests for GaLore (``optax.contrib._galore``).

The references project with NumPy's SVD. Singular vectors are defined up to
their signs, so the references either compute one projector for the whole
run (the result ``P base(P^T G)`` does not depend on the signs when the
base optimizer is odd, as Adam is) or use a linear base optimizer.
"""


from absl.testing import absltest
from absl.testing import parameterized
import jax
import jax.numpy as jnp
import numpy as np

from optax._src import alias
from optax._src import test_utils
from optax._src.testing import optimizer_checks
from optax._src.testing import probes
from optax.contrib import _galore

D = _galore.GaLoreDimensionNumbers


def _np_projector(g, rank):
  """The (max(m, n), r) projector of a matrix gradient, and its side."""
  u, _, vt = np.linalg.svd(g, full_matrices=False)
  rows, cols = g.shape
  rank = min(rank, rows, cols)
  if rows < cols:
    return vt[:rank].T, True
  return u[:, :rank], False


def _project(g, p, right):
  return g @ p if right else p.T @ g


def _project_back(n, p, right):
  return n @ p.T if right else p @ n


class _NpAdam:
  """Adam (float64) for one array."""

  def __init__(self, b1=0.9, b2=0.999, eps=1e-8):
    self.b1, self.b2, self.eps = b1, b2, eps
    self.m = self.v = 0.0
    self.t = 0

  def __call__(self, g):
    self.t += 1
    self.m = self.b1 * self.m + (1 - self.b1) * g
    self.v = self.b2 * self.v + (1 - self.b2) * g * g
    m_hat = self.m / (1 - self.b1**self.t)
    v_hat = self.v / (1 - self.b2**self.t)
    return m_hat / (np.sqrt(v_hat) + self.eps)


def _grads(shapes, steps, seed=0):
  rng = np.random.default_rng(seed)
  return [{k: rng.standard_normal(s) for k, s in shapes.items()}
          for _ in range(steps)]


def _f32(tree):
  return jax.tree.map(lambda x: jnp.asarray(x, jnp.float32), tree)


class ScaleByGaloreTest(parameterized.TestCase):

  @parameterized.parameters(False, True)
  def test_adam_matches_reference(self, use_jit):
    shapes = {'w': (4, 6), 'v': (6, 4), 'sq': (4, 4), 'b': (3,)}
    grads = _grads(shapes, 4)
    rank, scale = 2, 0.5
    tx = _galore.scale_by_galore(rank=rank, update_proj_gap=100, scale=scale)
    state = tx.init(_f32({k: np.zeros(s) for k, s in shapes.items()}))
    update = jax.jit(tx.update) if use_jit else tx.update
    adams = {k: _NpAdam() for k in shapes}
    projectors = {k: _np_projector(grads[0][k], rank)
                  for k, s in shapes.items() if len(s) == 2}
    for g in grads:
      updates, state = update(_f32(g), state)
      for k in shapes:
        if k in projectors:
          p, right = projectors[k]
          want = scale * _project_back(adams[k](_project(g[k], p, right)), p,
                                       right)
        else:  # Not a matrix: plain Adam, not scaled.
          want = adams[k](g[k])
        np.testing.assert_allclose(updates[k], want, rtol=1e-4, atol=1e-5,
                                   err_msg=k)

  def test_projector_recomputed_every_gap(self):
    shapes = {'w': (3, 5), 'v': (5, 3)}
    grads = _grads(shapes, 7, seed=1)
    gap = 3
    tx = _galore.scale_by_galore(rank=2, update_proj_gap=gap,
                                 base_optimizer=alias.sgd(-1.0))
    state = tx.init(_f32({k: np.zeros(s) for k, s in shapes.items()}))
    step = jax.jit(tx.update)
    for t, g in enumerate(grads):
      updates, state = step(_f32(g), state)
      for k in shapes:
        # sgd(-1) is the identity: the update is the projection of g on the
        # subspace of the gradient of the last refresh step.
        p, right = _np_projector(grads[t - t % gap][k], 2)
        want = _project_back(_project(g[k], p, right), p, right)
        np.testing.assert_allclose(updates[k], want, rtol=1e-4, atol=1e-5)
        np.testing.assert_allclose(
            np.asarray(state.projector[k]) @ np.asarray(state.projector[k]).T,
            p @ p.T, atol=1e-5)
    self.assertEqual(int(state.count), 7)

  def test_shapes_and_rank_cap(self):
    params = {'w': jnp.zeros((4, 6)), 'v': jnp.zeros((6, 4)),
              'sq': jnp.zeros((4, 4)), 'b': jnp.zeros(3),
              'k': jnp.zeros((2, 3, 4))}
    state = _galore.scale_by_galore(rank=2).init(params)
    shapes = lambda tree: {k: v.shape for k, v in tree.items()}
    self.assertEqual(shapes(state.projector), {
        'w': (6, 2), 'v': (6, 2), 'sq': (4, 2), 'b': (0, 0), 'k': (0, 0)})
    self.assertEqual(shapes(state.base_optimizer_state.mu), {
        'w': (4, 2), 'v': (2, 4), 'sq': (2, 4), 'b': (3,), 'k': (2, 3, 4)})
    state = _galore.scale_by_galore(rank=10).init(params)
    self.assertEqual(state.projector['w'].shape, (6, 4))

  def test_dimension_numbers(self):
    shapes = {'k': (2, 3, 5), 't': (5, 3)}
    grads = _grads(shapes, 1, seed=2)[0]
    dims = {'k': D(reduction_axis=(0, 1), output_axis=2),
            't': D(reduction_axis=1, output_axis=0)}
    tx = _galore.scale_by_galore(rank=2, base_optimizer=alias.sgd(-1.0),
                                 weight_dimension_numbers=dims)
    state = tx.init(_f32({k: np.zeros(s) for k, s in shapes.items()}))
    updates, state = tx.update(_f32(grads), state)
    matrices = {'k': grads['k'].reshape(6, 5), 't': grads['t'].T}
    for k, m in matrices.items():
      p, right = _np_projector(m, 2)
      want = _project_back(_project(m, p, right), p, right)
      want = want.reshape(2, 3, 5) if k == 'k' else want.T
      np.testing.assert_allclose(updates[k], want, rtol=1e-4, atol=1e-5)
    self.assertEqual(state.projector['k'].shape, (6, 2))

  def test_dimension_numbers_must_name_every_axis(self):
    tx = _galore.scale_by_galore(rank=2, weight_dimension_numbers=D(1, 2))
    with self.assertRaisesRegex(ValueError, 'every axis must be'):
      tx.init(jnp.zeros((2, 3, 4)))

  def test_errors(self):
    with self.assertRaisesRegex(ValueError, 'rank must be a positive'):
      _galore.scale_by_galore(rank=0)
    with self.assertRaisesRegex(ValueError, 'update_proj_gap must be a pos'):
      _galore.scale_by_galore(update_proj_gap=0)
    # A rank that is not an integer is a TypeError, as upstream 0.2.8's.
    with self.assertRaisesRegex(TypeError, 'rank must be a positive integer,'
                                ' got 2.5 of type float'):
      _galore.galore(learning_rate=0.1, rank=2.5)

  def test_single_dimension_numbers_skip_vectors(self):
    # As upstream 0.2.8: one GaLoreDimensionNumbers for every leaf applies
    # to the leaves of rank two or more; a vector is not projected.
    params = {'w': jnp.ones((6, 2, 2)), 'b': jnp.ones(5)}
    tx = _galore.galore(learning_rate=1.0, rank=2,
                        weight_dimension_numbers=D(0, (1, 2)))
    state = tx.init(params)
    galore_state = state[0]
    self.assertEqual(galore_state.projector['w'].shape, (6, 2))
    self.assertEqual(galore_state.projector['b'].shape, (0, 0))
    grads = {'w': jnp.ones((6, 2, 2)), 'b': jnp.arange(5.0) - 2}
    updates, _ = tx.update(grads, state, params)
    self.assertEqual(updates['w'].shape, (6, 2, 2))
    # The vector gets plain Adam: -sign(g) on the first step, 0 where g = 0.
    np.testing.assert_allclose(updates['b'], [1, 1, 0, -1, -1], atol=1e-6)

  @parameterized.parameters(jnp.float32, jnp.bfloat16)
  def test_dtypes_state_stable_single_trace(self, dtype):
    # The projector is refreshed in one branch of a cond and kept in the
    # other: both give the same types.
    params = {'w': jnp.ones((4, 3), dtype), 'b': jnp.ones(3, dtype)}
    tx = _galore.galore(0.1, rank=2, update_proj_gap=2, weight_decay=0.1)
    state = tx.init(params)
    traces = []

    @jax.jit
    def step(params, state, i):
      traces.append(None)
      grads = jax.tree.map(lambda p: p * (i + 1.0) - 0.3 * i, params)
      return tx.update(grads, state, params)

    for i in range(5):
      updates, new_state = step(params, state, jnp.asarray(i, dtype))
      test_utils.assert_trees_all_equal_dtypes(new_state, state)
      test_utils.assert_trees_all_equal_shapes(new_state, state)
      test_utils.assert_trees_all_equal_dtypes(updates, params)
      params = jax.tree.map(lambda p, u: p + u, params, updates)
      state = new_state
    self.assertLen(traces, 1)
    self.assertEqual(state[0].projector['w'].dtype, dtype)

  def test_init_on_shape_dtype_struct(self):
    tx = _galore.scale_by_galore(rank=2)
    state = jax.eval_shape(
        tx.init, {'w': jax.ShapeDtypeStruct((5, 3), jnp.float32)})
    self.assertEqual(state.projector['w'].shape, (5, 2))
    self.assertEqual(state.base_optimizer_state.mu['w'].shape, (2, 3))


class GaloreTest(absltest.TestCase):

  def test_matches_reference(self):
    shapes = {'w': (3, 5), 'b': (5,)}
    grads = _grads(shapes, 3, seed=3)
    params = {k: np.random.default_rng(4).standard_normal(s)
              for k, s in shapes.items()}
    lr, wd = 0.1, 0.2
    tx = _galore.galore(lr, rank=2, update_proj_gap=10, weight_decay=wd,
                        mask={'w': True, 'b': False})
    state = tx.init(_f32(params))
    adams = {k: _NpAdam() for k in shapes}
    p, right = _np_projector(grads[0]['w'], 2)
    for g in grads:
      updates, state = tx.update(_f32(g), state, _f32(params))
      want_w = -lr * (_project_back(adams['w'](_project(g['w'], p, right)),
                                    p, right) + wd * params['w'])
      want_b = -lr * adams['b'](g['b'])
      np.testing.assert_allclose(updates['w'], want_w, rtol=1e-4, atol=1e-5)
      np.testing.assert_allclose(updates['b'], want_b, rtol=1e-4, atol=1e-5)
      params = {k: params[k] + np.asarray(updates[k], np.float64)
                for k in shapes}

  def test_converges(self):
    target = jnp.asarray(np.random.default_rng(5).standard_normal((4, 3)),
                         jnp.float32)
    params = {'w': jnp.zeros((4, 3))}
    loss = lambda p: jnp.sum((p['w'] - target)**2)
    tx = _galore.galore(0.05, rank=3, update_proj_gap=5)
    params, _ = optimizer_checks.minimize(tx, loss, params, 300)
    self.assertLess(float(loss(params)), 1e-2)

  def test_builds_without_arrays(self):
    _, new = probes.arrays_created_by(
        lambda: _galore.galore(0.1, rank=4, weight_decay=0.1))
    self.assertEqual(new, [])


if __name__ == '__main__':
  absltest.main()
