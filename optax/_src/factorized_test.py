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
"""Tests for ``optax._src.factorized`` against a NumPy Adafactor core."""

from absl.testing import absltest
from absl.testing import parameterized
import jax
import jax.numpy as jnp
import numpy as np

from optax._src import alias
from optax._src import factorized
from optax._src.testing import cases
from optax._src.testing import probes


def _ref_factored_rms(grads_seq, factored=True, decay_rate=0.8,
                      step_offset=0, min_dim=128, eps=1e-30):
  """NumPy float64 reference: list of update dicts for each step."""
  state = {}
  outs = []
  for t, grads in enumerate(grads_seq):
    # Steps before the offset take the decay of local step 0 (beta = 0).
    beta = 1.0 - (max(t - step_offset, 0) + 1.0) ** (-decay_rate)
    out = {}
    for name, g in grads.items():
      sq = np.abs(g) ** 2 + eps
      shape = g.shape
      dims = None
      if factored and g.ndim >= 2:
        order = np.argsort(shape, kind='stable')
        if shape[order[-2]] >= min_dim:
          dims = int(order[-2]), int(order[-1])
      if dims is None:
        v = state.get(name, np.zeros(shape))
        v = beta * v + (1 - beta) * sq
        state[name] = v
        out[name] = g / np.sqrt(v)
      else:
        d1, d0 = dims
        row, col = state.get(name, (0.0, 0.0))
        row = beta * row + (1 - beta) * sq.mean(axis=d0)
        col = beta * col + (1 - beta) * sq.mean(axis=d1)
        state[name] = (row, col)
        # The full second moment is approximated by the outer product of
        # the normalized row means and the column means.
        row_axis = d1 - 1 if d1 > d0 else d1
        row_norm = row / row.mean(axis=row_axis, keepdims=True)
        v = np.expand_dims(row_norm, d0) * np.expand_dims(col, d1)
        out[name] = g / np.sqrt(v)
    outs.append(out)
  return outs


def _grads(seed, steps, shapes):
  rng = np.random.RandomState(seed)
  return [{k: np.asarray(rng.randn(*s)) for k, s in shapes.items()}
          for _ in range(steps)]


_SHAPES = {'mat': (6, 4), 'tall': (3, 7, 5), 'vec': (5,), 'scalar': ()}


class ScaleByFactoredRmsTest(parameterized.TestCase):
  """Tests of scale_by_factored_rms."""

  @parameterized.product(
      kwargs=(
          {},
          {'min_dim_size_to_factor': 2},
          {'min_dim_size_to_factor': 4, 'decay_rate': 0.5},
          {'min_dim_size_to_factor': 2, 'factored': False},
          {'min_dim_size_to_factor': 2, 'step_offset': -3},
          {'min_dim_size_to_factor': 2, 'step_offset': 2},
      ),
      use_jit=(True, False),
  )
  def test_matches_numpy(self, kwargs, use_jit):
    grads_seq = _grads(0, 4, _SHAPES)
    ref_kwargs = dict(kwargs)
    ref_kwargs['min_dim'] = ref_kwargs.pop('min_dim_size_to_factor', 128)
    expected = _ref_factored_rms(grads_seq, **ref_kwargs)
    tx = factorized.scale_by_factored_rms(**kwargs)
    update = jax.jit(tx.update) if use_jit else tx.update
    to32 = lambda tree: jax.tree.map(lambda x: jnp.asarray(x, jnp.float32),
                                     tree)
    state = tx.init(to32(grads_seq[0]))
    for t, grads in enumerate(grads_seq):
      updates, state = update(to32(grads), state)
      for name in grads:
        np.testing.assert_allclose(
            updates[name], expected[t][name], rtol=2e-5, atol=1e-6,
            err_msg=f'step {t}, leaf {name}')
    self.assertEqual(int(state.count), len(grads_seq))

  @parameterized.parameters(True, False)
  def test_complex_uses_squared_modulus(self, use_jit):
    # The second moment of a complex gradient is E|g|^2 (upstream 0.2.8
    # too); the statistics sit in complex64 state with a zero imaginary part.
    rng = np.random.RandomState(3)
    grads_seq = [
        {k: np.asarray(rng.randn(*s) + 1j * rng.randn(*s))
         for k, s in _SHAPES.items()}
        for _ in range(3)]
    expected = _ref_factored_rms(grads_seq, min_dim=2)
    tx = factorized.scale_by_factored_rms(min_dim_size_to_factor=2)
    update = jax.jit(tx.update) if use_jit else tx.update
    to64 = lambda tree: jax.tree.map(
        lambda x: jnp.asarray(x, jnp.complex64), tree)
    state = tx.init(to64(grads_seq[0]))
    for t, grads in enumerate(grads_seq):
      updates, new_state = update(to64(grads), state)
      for name in grads:
        self.assertEqual(updates[name].dtype, jnp.complex64)
        np.testing.assert_allclose(
            updates[name], expected[t][name], rtol=2e-5, atol=1e-6,
            err_msg=f'step {t}, leaf {name}')
      self.assertEqual(jax.tree.map(lambda x: x.dtype, new_state),
                       jax.tree.map(lambda x: x.dtype, state))
      state = new_state
    for leaf in jax.tree.leaves((state.v_row, state.v_col, state.v)):
      np.testing.assert_array_equal(np.imag(leaf), 0.0)

  def test_state_shapes(self):
    tx = factorized.scale_by_factored_rms(min_dim_size_to_factor=2)
    params = {k: jnp.zeros(s) for k, s in _SHAPES.items()}
    state = tx.init(params)
    self.assertIsInstance(state, factorized.FactoredState)
    # (6, 4): the largest axis is 0, the second largest 1.
    self.assertEqual(state.v_row['mat'].shape, (4,))
    self.assertEqual(state.v_col['mat'].shape, (6,))
    self.assertEqual(state.v['mat'].shape, (1,))
    # (3, 7, 5): the largest axis is 1, the second largest 2.
    self.assertEqual(state.v_row['tall'].shape, (3, 5))
    self.assertEqual(state.v_col['tall'].shape, (3, 7))
    self.assertEqual(state.v['vec'].shape, (5,))
    self.assertEqual(state.v_row['vec'].shape, (1,))
    self.assertEqual(state.v['scalar'].shape, ())
    self.assertEqual(state.count.dtype, jnp.int32)

  def test_init_on_shape_dtype_structs(self):
    tx = factorized.scale_by_factored_rms(min_dim_size_to_factor=2)
    params = {k: jax.ShapeDtypeStruct(s, jnp.float32)
              for k, s in _SHAPES.items()}
    concrete = tx.init({k: jnp.zeros(s) for k, s in _SHAPES.items()})
    abstract = jax.eval_shape(tx.init, params)
    self.assertEqual(jax.tree.map(lambda x: (x.shape, x.dtype), abstract),
                     jax.tree.map(lambda x: (x.shape, x.dtype), concrete))

  @parameterized.parameters(jnp.bfloat16, jnp.float32)
  def test_dtypes_are_kept_issue_377(self, dtype):
    tx = factorized.scale_by_factored_rms(min_dim_size_to_factor=2)
    params = {k: jnp.ones(s, dtype) for k, s in _SHAPES.items()}
    state = tx.init(params)
    step = jax.jit(tx.update)
    for _ in range(2):
      updates, new_state = step(params, state)
      for leaf in jax.tree.leaves(updates):
        self.assertEqual(leaf.dtype, dtype)
      self.assertEqual(
          jax.tree.map(lambda x: x.dtype, new_state),
          jax.tree.map(lambda x: x.dtype, state))
      state = new_state
    self.assertEqual(step._cache_size(), 1)  # pylint: disable=protected-access

  @parameterized.parameters(True, False)
  def test_bfloat16_update_reads_the_stored_statistics(self, use_jit):
    # On every backend: the statistics are computed in float32 and rounded
    # once to bfloat16; the update is g / sqrt(stored statistic), computed
    # in float32 and rounded once. Reference in NumPy float32 with the same
    # roundings. XLA:GPU's default (xla_allow_excess_precision) may drop a
    # float32 -> bfloat16 -> float32 round trip inside a compiled program,
    # so that a jitted update reads the unrounded statistic (on an H200, 35
    # of these 256 entries one bfloat16 ulp off); the program is compiled
    # with that licence off to check what it states, and the default
    # compilation is checked to within one bfloat16 ulp of it.
    rng = np.random.default_rng(3)
    steps = [{k: jnp.asarray(rng.standard_normal(shape, np.float32),
                             jnp.bfloat16)
              for k, shape in (('vec', (256,)), ('mat', (4, 3)))}
             for _ in range(2)]
    tx = factorized.scale_by_factored_rms(min_dim_size_to_factor=3)
    state = tx.init(steps[0])
    update = tx.update
    if use_jit:
      lowered = jax.jit(tx.update).lower(steps[0], state)
      update = lowered.compile({'xla_allow_excess_precision': False})
      default_update = lowered.compile()
    for grads in steps:  # At the second step the decay is 1 - 2**-0.8.
      if use_jit:
        default_updates, _ = default_update(grads, state)
      updates, state = update(grads, state)
    if use_jit:  # Same rounded state, update at most one ulp away.
      for name in ('vec', 'mat'):
        ulps = (np.asarray(default_updates[name]).view(np.int16).astype(int)
                - np.asarray(updates[name]).view(np.int16).astype(int))
        self.assertLessEqual(np.max(np.abs(ulps)), 1, msg=name)

    def bf16(x):
      return np.asarray(jnp.asarray(x, jnp.bfloat16).astype(jnp.float32))

    decays = [np.float32(0.0), np.float32(1.0) - np.float32(2.0) ** -0.8]
    v = np.zeros(256, np.float32)
    for decay, grads in zip(decays, steps):
      g = np.asarray(grads['vec'], np.float32)
      v = bf16(decay * v + (1 - decay) * (g * g + np.float32(1e-30)))
    np.testing.assert_array_equal(
        np.asarray(state.v['vec'], np.float32), v)
    np.testing.assert_array_equal(
        np.asarray(updates['vec'], np.float32), bf16(g / np.sqrt(v)))

    # A (4, 3) leaf: v_row holds the means over axis 0, v_col over axis 1.
    row, col = np.zeros(3, np.float32), np.zeros(4, np.float32)
    for decay, grads in zip(decays, steps):
      g = np.asarray(grads['mat'], np.float32)
      sq = g * g + np.float32(1e-30)
      row = bf16(decay * row + (1 - decay) * sq.mean(axis=0))
      col = bf16(decay * col + (1 - decay) * sq.mean(axis=1))
    np.testing.assert_allclose(
        np.asarray(state.v_row['mat'], np.float32), row, rtol=2 ** -8)
    np.testing.assert_allclose(
        np.asarray(state.v_col['mat'], np.float32), col, rtol=2 ** -8)
    factor = (row / row.mean())[None, :] ** -0.5 * col[:, None] ** -0.5
    np.testing.assert_allclose(
        np.asarray(updates['mat'], np.float32), bf16(g * factor),
        rtol=2 ** -8)

  def test_donated_bfloat16_step_keeps_no_copy_of_v(self):
    # Regression: the update read the old ``v`` (through the unrounded new
    # one) while the new ``v`` was written over it, so XLA kept a copy of
    # the bfloat16 ``v`` alive: 32 KiB of temporaries for this leaf.
    params = {'w': jnp.ones((64, 256), jnp.bfloat16)}  # Not factored.
    stats = probes.donated_step_memory(
        factorized.scale_by_factored_rms(), params)
    if stats is None:
      self.skipTest('no memory analysis on this backend')
    leaf_bytes = 64 * 256 * 2
    self.assertLess(stats.temp_size_in_bytes, leaf_bytes // 4)

  @parameterized.parameters(True, False)
  def test_factored_update_multiplies_row_then_column(self, use_jit):
    # u = (g * row_factor) * col_factor, rounded in that order (as upstream
    # 0.2.8); g * (row_factor * col_factor) differs by one ulp in about a
    # third of the entries. The gradient g[i, j] = a[i] * b[j] has short
    # mantissas, so the statistics and their means are exact in any
    # summation order and the factors can be recomputed from the state (by
    # the same XLA operations: eager and jitted powers round differently).
    rng = np.random.default_rng(5)
    a = rng.choice(np.float32([1.0, 2.0, 3.0]), 256)
    b = rng.integers(1, 16, 128).astype(np.float32) / 8
    g = np.outer(a, b).astype(np.float32)
    tx = factorized.scale_by_factored_rms()
    update = jax.jit(tx.update) if use_jit else tx.update
    updates, state = update(jnp.asarray(g), tx.init(jnp.asarray(g)))
    v_row = np.asarray(state.v_row)
    v_col = np.asarray(state.v_col)
    np.testing.assert_array_equal(v_row, b * b * np.mean(a * a))
    np.testing.assert_array_equal(v_col, a * a * np.mean(b * b))
    factors = lambda row, col: ((row / jnp.mean(row)) ** -0.5, col ** -0.5)
    row, col = (jax.jit(factors) if use_jit else factors)(v_row, v_col)
    row, col = np.asarray(row)[None, :], np.asarray(col)[:, None]
    np.testing.assert_array_equal(np.asarray(updates), g * row * col)
    self.assertGreater(np.sum(g * row * col != g * (row * col)), 1000)

  def test_donated_adafactor_step_needs_one_leaf_of_temporaries(self):
    # Regression: with g * (row * col) XLA kept the normalized update alive
    # until the parameter's pass rather than recompute it there: two leaves
    # of temporaries where upstream 0.2.8 needs one (with the scheduler
    # that minimizes memory; the default one needs a leaf either way).
    if jax.default_backend() != 'cpu':
      self.skipTest('the scheduler option is XLA:CPU\'s')
    params = {'w': jnp.ones((256, 512), jnp.float32)}
    stats = probes.donated_step_memory(
        alias.adafactor(1e-3), params,
        probes.MEMORY_OPTIMIZED_CPU_SCHEDULER)
    leaf_bytes = 256 * 512 * 4
    self.assertLess(stats.temp_size_in_bytes, 1.5 * leaf_bytes)

  @parameterized.parameters(True, False)
  def test_steps_before_step_offset_are_finite_pull_1791(self, use_jit):
    # step_offset = 2: steps 0 and 1 come before the offset and take the
    # decay of local step 0, 1 - 1 ** -0.8 = 0, as step 2 does; step 3 is
    # local step 1, decay 1 - 2 ** -0.8 = 0.4256508. Gradients 0.1 * (t + 1)
    # everywhere on a 4 x 3 matrix: rows and columns hold g ** 2 (0.01, 0.04,
    # 0.09), then 0.4256508 * 0.09 + 0.5743492 * 0.16 = 0.1302044, and the
    # update is g / sqrt(v) = 1, 1, 1, then 0.4 / sqrt(0.1302044) = 1.108529.
    # Upstream's decay is NaN ((-1) ** -0.8) at step 0 and -inf at step 1.
    tx = factorized.scale_by_factored_rms(step_offset=2,
                                          min_dim_size_to_factor=2)
    update = jax.jit(tx.update) if use_jit else tx.update
    state = tx.init(jnp.zeros((4, 3)))
    stats, updates = [], []
    for t in range(4):
      u, state = update(jnp.full((4, 3), 0.1 * (t + 1), jnp.float32), state)
      updates.append(float(u[0, 0]))
      stats.append(float(state.v_row[0]))
      np.testing.assert_array_equal(state.v_row, state.v_row[0])
      np.testing.assert_array_equal(state.v_col, state.v_row[0])
    decay = 1.0 - 2.0 ** -0.8
    v3 = decay * 0.09 + (1.0 - decay) * 0.16
    np.testing.assert_allclose(stats, [0.01, 0.04, 0.09, v3], rtol=1e-6)
    np.testing.assert_allclose(updates, [1.0, 1.0, 1.0, 0.4 / np.sqrt(v3)],
                               rtol=1e-6)

  @parameterized.parameters(True, False)
  def test_adafactor_decay_offset_is_finite_pull_1791(self, use_jit):
    # adafactor(decay_offset=3) on a fresh state, constant gradients 0.1:
    # the factored statistics are g ** 2 = 0.01 at every step (decay 0 before
    # the offset, any decay after it), so each update is -lr * g / |g| times
    # the params' RMS 1, -1e-3. Upstream's updates are NaN from the start.
    tx = alias.adafactor(learning_rate=1e-3, decay_offset=3)
    params = {'w': jnp.ones((4, 3))}
    update = jax.jit(tx.update) if use_jit else tx.update
    state = tx.init(params)
    for _ in range(5):
      updates, state = update({'w': jnp.full((4, 3), 0.1)}, state, params)
      np.testing.assert_allclose(updates['w'], -1e-3, rtol=1e-6)

  @parameterized.product(use_jit=(True, False), shape=((4,), (4, 3)),
                         dtype=('float16', 'bfloat16', 'float32'))
  def test_small_gradients_give_finite_updates_in_float16(
      self, use_jit, shape, dtype):
    # Shazeer and Stern (2018), Algorithms 4 and 5: the statistics are
    # running means of g ** 2 + eps1 (eps1 = 1e-30), so they are positive and
    # the update g / sqrt(v) is 0 for g = 0 and g / |g| = +-1 at the first
    # step (decay 0) for any g >> 1e-15, factored or not. In float16,
    # 1e-30 and g ** 2 for |g| < 2.4e-4 round to 0: 0 / 0 and g / 0.
    tx = factorized.scale_by_factored_rms(min_dim_size_to_factor=2)
    update = jax.jit(tx.update) if use_jit else tx.update
    for value, want in ((0.0, 0.0), (1e-4, 1.0), (-3e-6, -1.0)):
      state = tx.init(jnp.zeros(shape, dtype))
      updates, state = update(jnp.full(shape, value, dtype), state)
      self.assertEqual(updates.dtype, jnp.dtype(dtype))
      np.testing.assert_allclose(np.asarray(updates, np.float32), want,
                                 rtol=1e-3, atol=0)

  def test_custom_decay_rate_fn(self):
    tx = factorized.scale_by_factored_rms(
        decay_rate=0.25, decay_rate_fn=lambda step, rate: rate)
    g = jnp.array([2.0, -1.0])
    state = tx.init(g)
    _, state = tx.update(g, state)
    # v = 0.25 * 0 + 0.75 * g ** 2 after one step.
    np.testing.assert_allclose(state.v, 0.75 * np.array([4.0, 1.0]),
                               rtol=1e-6)

  def test_none_leaves_pass_through(self):
    tx = factorized.scale_by_factored_rms()
    params = {'a': jnp.ones(2), 'b': None}
    updates, _ = tx.update(params, tx.init(params))
    self.assertIsNone(updates['b'])

  def test_invalid_min_dim_raises(self):
    with self.assertRaisesRegex(ValueError, 'min_dim_size_to_factor'):
      factorized.scale_by_factored_rms(min_dim_size_to_factor=-1)


# name -> (factory, extra keyword arguments of update), for
# PreparedInputsTest.
_PREP_TRANSFORMS = {
    'scale_by_factored_rms': (factorized.scale_by_factored_rms, {}),
    'scale_by_factored_rms(factored)': (
        lambda: factorized.scale_by_factored_rms(min_dim_size_to_factor=2),
        {}),
}


class PreparedInputsTest(
    cases.prepared_inputs_test_case(_PREP_TRANSFORMS)):
  """Inputs the transformations of the module take as a chain gives them."""


if __name__ == '__main__':
  absltest.main()
