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
"""Tests for ``optax.contrib._complex_valued``."""

from absl.testing import absltest
from absl.testing import parameterized
import jax
import jax.numpy as jnp
import numpy as np

from optax._src import alias
from optax._src import test_utils
from optax.contrib import _complex_valued
from optax.contrib import _reduce_on_plateau


def _np_adam_steps(grads, lr=0.1, b1=0.9, b2=0.999, eps=1e-8):
  """Adam updates (float64) of a real array for a list of gradients."""
  m = v = 0.0
  out = []
  for t, g in enumerate(grads, start=1):
    m = b1 * m + (1 - b1) * g
    v = b2 * v + (1 - b2) * g * g
    out.append(-lr * (m / (1 - b1**t)) / (np.sqrt(v / (1 - b2**t)) + eps))
  return out


class SplitRealAndImaginaryTest(parameterized.TestCase):

  @parameterized.parameters(False, True)
  def test_adam_on_parts_matches_reference(self, use_jit):
    rng = np.random.default_rng(0)
    grads = [rng.standard_normal(3) + 1j * rng.standard_normal(3)
             for _ in range(4)]
    real_grads = [rng.standard_normal(2) for _ in range(4)]
    tx = _complex_valued.split_real_and_imaginary(alias.adam(0.1))
    params = {'c': jnp.zeros(3, jnp.complex64), 'r': jnp.zeros(2)}
    state = tx.init(params)
    update = jax.jit(tx.update) if use_jit else tx.update
    want_real = _np_adam_steps([g.real for g in grads])
    want_imag = _np_adam_steps([g.imag for g in grads])
    want_r = _np_adam_steps(real_grads)
    for t, (g, gr) in enumerate(zip(grads, real_grads)):
      updates, state = update(
          {'c': jnp.asarray(g, jnp.complex64),
           'r': jnp.asarray(gr, jnp.float32)}, state)
      self.assertEqual(updates['c'].dtype, jnp.complex64)
      np.testing.assert_allclose(updates['c'].real, want_real[t], rtol=1e-5)
      np.testing.assert_allclose(updates['c'].imag, want_imag[t], rtol=1e-5)
      np.testing.assert_allclose(updates['r'], want_r[t], rtol=1e-5)

  def test_differs_from_adam_on_complex(self):
    # Plain Adam normalizes by |z|; the split one by each part.
    g = jnp.array([3.0 + 0.1j])
    split = _complex_valued.split_real_and_imaginary(alias.adam(1.0))
    updates, _ = split.update(g, split.init(jnp.zeros(1, jnp.complex64)))
    np.testing.assert_allclose(updates, [-1.0 - 1.0j], rtol=1e-5)

  def test_state_holds_pairs(self):
    tx = _complex_valued.split_real_and_imaginary(alias.sgd(0.1, 0.9))
    state = tx.init({'c': jnp.zeros(2, jnp.complex64), 'r': jnp.zeros(2)})
    trace = state.inner_state[0].trace
    self.assertIsInstance(trace['c'],
                          _complex_valued.SplitRealAndImaginaryArrays)
    self.assertEqual(trace['c'].real.dtype, jnp.float32)
    self.assertEqual(trace['r'].dtype, jnp.float32)

  def test_params_and_extra_args_are_passed(self):
    inner = alias.adamw(0.1, weight_decay=1.0)
    tx = _complex_valued.split_real_and_imaginary(inner)
    params = jnp.array([2.0 - 4.0j], jnp.complex64)
    updates, _ = tx.update(jnp.zeros(1, jnp.complex64), tx.init(params),
                           params)
    np.testing.assert_allclose(updates, [-0.2 + 0.4j], rtol=1e-6)
    tx = _complex_valued.split_real_and_imaginary(
        _reduce_on_plateau.reduce_on_plateau())
    updates, _ = tx.update(jnp.array([1.0 + 1.0j], jnp.complex64),
                           tx.init(jnp.zeros(1, jnp.complex64)), value=1.0)
    np.testing.assert_allclose(updates, [1.0 + 1.0j])

  def test_shape_dtype_struct_init_and_single_trace(self):
    tx = _complex_valued.split_real_and_imaginary(alias.adam(0.1))
    struct = jax.ShapeDtypeStruct((2,), jnp.complex64)
    state = jax.eval_shape(tx.init, struct)
    self.assertEqual(state.inner_state[0].mu.real.shape, (2,))
    params = jnp.ones(2, jnp.complex64)
    state = tx.init(params)
    traces = []

    @jax.jit
    def step(state, g):
      traces.append(None)
      return tx.update(g, state)

    for i in range(3):
      _, new_state = step(state, params * (i + 1))
      test_utils.assert_trees_all_equal_dtypes(new_state, state)
      state = new_state
    self.assertLen(traces, 1)


if __name__ == '__main__':
  absltest.main()
