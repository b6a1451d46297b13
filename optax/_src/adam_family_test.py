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
"""Tests for `adam_family.py` beyond those of `transform_test.py`.

The transformations' values, dtypes and states are tested through their
upstream names in `transform_test.py`; this file covers the validation that
the family shares through `validation.py`.
"""

import functools

from absl.testing import absltest
from absl.testing import parameterized
import jax
import jax.numpy as jnp
import numpy as np

from optax._src import adam_family
from optax._src import test_utils
from optax._src import utils
from optax._src.testing import cases
from optax.schedules import _inject

_NAN = float('nan')


class ValidationTest(parameterized.TestCase):

  @parameterized.parameters(
      ({'eps': _NAN}, 'scale_by_adam: eps must be non-negative, got nan'),
      ({'eps_root': _NAN},
       'scale_by_adam: eps_root must be non-negative, got nan'),
      ({'b1': _NAN}, r'scale_by_adam: b1 must be in \[0, 1\), got nan'),
      ({'b2': 1.0}, r'scale_by_adam: b2 must be in \[0, 1\), got 1.0'),
  )
  def test_scale_by_adam_rejects_nan_and_out_of_range(self, kwargs, message):
    # The checks of validation.py compare with `not value >= 0`, so that NaN
    # fails them (the copy formerly in transform.py accepted a NaN eps).
    with self.assertRaisesRegex(ValueError, message):
      adam_family.scale_by_adam(**kwargs)

  @parameterized.named_parameters(
      ('adamax', adam_family.scale_by_adamax),
      ('amsgrad', adam_family.scale_by_amsgrad),
      ('adan', adam_family.scale_by_adan),
      ('belief', adam_family.scale_by_belief),
      ('novograd', adam_family.scale_by_novograd),
      ('radam', adam_family.scale_by_radam),
      ('yogi', adam_family.scale_by_yogi),
  )
  def test_nan_eps_rejected_by_every_member(self, factory):
    with self.assertRaisesRegex(ValueError, 'eps must be non-negative'):
      factory(eps=_NAN)

  def test_closed_decay_interval_where_documented(self):
    # Adamax's infinity-norm decay and NovoGrad's decays may be 1.
    adam_family.scale_by_adamax(b2=1.0)
    adam_family.scale_by_novograd(b1=1.0, b2=1.0)
    adam_family.scale_by_amsgrad(b1=1.0, bias_correction_mu=False)
    with self.assertRaisesRegex(ValueError, r'b1 must be in \[0, 1\)'):
      adam_family.scale_by_amsgrad(b1=1.0)


class NovogradNoneLeafTest(parameterized.TestCase):

  @parameterized.parameters(0.0, 0.1)
  def test_none_leaf_passes_through(self, weight_decay):
    # The momentum's per-leaf step read None as an array ('None is not a
    # valid value for jnp.array'); upstream 0.2.8 passes None through.
    tx = adam_family.scale_by_novograd(weight_decay=weight_decay)
    params = {'w': jnp.array([3.0, -4.0]), 'n': None}
    updates, state = tx.update(params, tx.init(params), params)
    self.assertIsNone(updates['n'])
    self.assertIsNone(state.mu['n'])
    # First step: g / ||g|| + weight_decay * p, with ||g|| = 5.
    np.testing.assert_allclose(
        updates['w'], np.array([0.6, -0.8]) * (1 + 5 * weight_decay),
        rtol=1e-6)


class NovogradScalarStatisticsTest(parameterized.TestCase):
  """NovoGrad's per-leaf nu is float32 (float64 under x64)."""

  @parameterized.parameters('bf16', 'mixed')
  def test_nu_float32_on_bfloat16_params(self, kind):
    b_dtype = jnp.bfloat16 if kind == 'bf16' else jnp.float32
    params = {'w': jnp.ones((3,), jnp.bfloat16), 'b': jnp.ones(2, b_dtype)}
    tx = adam_family.scale_by_novograd(b2=0.25)
    state = tx.init(params)
    for leaf in jax.tree.leaves(state.nu):
      self.assertEqual(leaf.dtype, jnp.float32)
    grads = [jax.tree.map(lambda p, c=c: jnp.full_like(p, c), params)
             for c in (0.3, 0.7)]
    step = jax.jit(tx.update)
    expected = None
    for g in grads:
      updates, new_state = step(g, state)
      test_utils.assert_trees_all_equal_dtypes(new_state, state)
      test_utils.assert_trees_all_equal_dtypes(updates, params)
      state = new_state
      # The squared norms of the (bfloat16-rounded) gradients, in float64.
      sq = np.sum(np.asarray(g['w'], np.float64) ** 2)
      expected = sq if expected is None else 0.75 * sq + 0.25 * expected
    # 3 * 0.30078125 ** 2 = 0.27140808 needs 15 bits: bfloat16 has 8.
    np.testing.assert_allclose(state.nu['w'], expected, rtol=1e-6)

  @parameterized.parameters('bf16', 'f32')
  def test_nu_float64_under_x64(self, kind):
    with utils.x64_precision(True):
      dtype = jnp.bfloat16 if kind == 'bf16' else jnp.float32
      params = {'w': jnp.ones((3,), dtype)}
      tx = adam_family.scale_by_novograd()
      state = tx.init(params)
      self.assertEqual(state.nu['w'].dtype, jnp.float64)
      updates, new_state = jax.jit(tx.update)(params, state)
      test_utils.assert_trees_all_equal_dtypes(new_state, state)
      test_utils.assert_trees_all_equal_dtypes(updates, params)


# Every public transformation of adam_family.py, by the name its errors use.
_TRANSFORMATIONS = (
    ('scale_by_adam', adam_family.scale_by_adam),
    ('scale_by_adamax', adam_family.scale_by_adamax),
    ('scale_by_amsgrad', adam_family.scale_by_amsgrad),
    ('scale_by_adan', adam_family.scale_by_adan),
    ('scale_by_belief', adam_family.scale_by_belief),
    ('scale_by_novograd', adam_family.scale_by_novograd),
    ('scale_by_radam', adam_family.scale_by_radam),
    ('scale_by_yogi', adam_family.scale_by_yogi),
)
# NAdam (a label only: its errors name scale_by_adam).
_NADAM = ('scale_by_adam_nesterov',
          functools.partial(adam_family.scale_by_adam, nesterov=True))


class InputPreparationTest(
    cases.prepared_inputs_test_case(
        _TRANSFORMATIONS, integer_also=(_NADAM,), jit_rtol=1e-6)):
  """Each transformation alone takes gradients and params as chain does.

  At e2abe64 integer gradients gave integer updates, float0 gradients
  raised (the dtype is not valid for JAX type promotion), a Python-float
  param leaf raised in NovoGrad's init, and a (1, 3) gradient for a (4, 3)
  param was broadcast into the state or failed inside jax.
  """


class HyperparameterTypeTest(
    cases.vector_hyperparameters_test_case(_TRANSFORMATIONS)):
  """A vector hyperparameter is a TypeError naming it when built.

  At e2abe64 it was accepted, and the update broadcast it against the
  leaves or failed inside jax ('add got incompatible shapes').
  """

  def test_vector_under_inject_hyperparams(self):
    # inject_hyperparams builds the inner transformation with its arrays
    # (at e2abe64: 'Incompatible types for broadcasting' in init).
    with self.assertRaisesRegex(
        TypeError, '^scale_by_yogi: initial_accumulator_value '):
      _inject.inject_hyperparams(adam_family.scale_by_yogi)(
          initial_accumulator_value=jnp.ones(2))


class NovogradIntegerParamTest(parameterized.TestCase):

  def test_init_on_integer_leaf(self):
    # jnp.finfo of the int32 leaf raised 'data type int32 not inexact'; its
    # gradients are made float32, so its nu is float32 as the others'.
    tx = adam_family.scale_by_novograd()
    state = tx.init({'w': jnp.ones(3), 'i': jnp.arange(3, dtype=jnp.int32)})
    self.assertEqual(state.nu['i'].dtype, jnp.float32)
    self.assertEqual(state.nu['i'].shape, ())
    with utils.x64_precision(True):
      state = tx.init({'i': jnp.arange(3, dtype=jnp.int32)})
      self.assertEqual(state.nu['i'].dtype, jnp.float64)


class AdamaxFloat16Test(parameterized.TestCase):

  @parameterized.product(use_jit=(True, False),
                         dtype=('float16', 'bfloat16', 'float32'))
  def test_zero_gradient_gives_zero_update_pull_1768(self, use_jit, dtype):
    # Kingma and Ba (2015), Algorithm 2: u = max(b2 u, |g| + eps) >= eps, so
    # a zero gradient (m = 0) gives the update 0 / u = 0. eps = 1e-8 rounds
    # to 0 in float16, and a stored u of 0 gave 0 / 0. Then a gradient
    # [0.5, -0.25, 0, 0]: m = 0.1 g, u = max(0.999 eps, |g| + eps), and the
    # update m / (1 - 0.9 ** 2) / u is 0.1 / 0.19 = 0.5263158 with g's sign
    # (0 where g is 0).
    tx = adam_family.scale_by_adamax()
    update = jax.jit(tx.update) if use_jit else tx.update
    state = tx.init(jnp.zeros(4, dtype))
    zeros = jnp.zeros(4, dtype)
    updates, state = update(zeros, state)
    self.assertEqual(updates.dtype, jnp.dtype(dtype))
    np.testing.assert_array_equal(np.asarray(updates, np.float32), 0.0)
    g = jnp.array([0.5, -0.25, 0.0, 0.0], dtype)
    updates, state = update(g, state)
    want = np.array([1.0, -1.0, 0.0, 0.0]) * 0.1 / 0.19
    tol = {'float16': 2e-3, 'bfloat16': 1e-2, 'float32': 1e-6}[dtype]
    np.testing.assert_allclose(np.asarray(updates, np.float32), want,
                               rtol=tol, atol=0)


if __name__ == '__main__':
  absltest.main()
