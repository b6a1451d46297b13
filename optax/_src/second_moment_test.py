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
"""Tests for `second_moment.py` beyond those of `transform_test.py`.

The transformations' values and states are tested through their upstream
names in `transform_test.py`; this file covers how each one, used alone,
takes odd gradients, params and hyperparameters.
"""

import functools

from absl.testing import absltest
from absl.testing import parameterized
import jax
import jax.numpy as jnp
import numpy as np

from optax._src import second_moment
from optax._src.testing import cases
from optax.transforms import _masking

# Every public transformation of second_moment.py, by the name its errors
# use (the bias-corrected RMSProp and std-dev keep a count in their state).
_TRANSFORMATIONS = (
    ('scale_by_rms', second_moment.scale_by_rms),
    ('scale_by_stddev', second_moment.scale_by_stddev),
    ('scale_by_rss', second_moment.scale_by_rss),
    ('scale_by_sm3', second_moment.scale_by_sm3),
    ('scale_by_adadelta', second_moment.scale_by_adadelta),
)
_BIAS_CORRECTED = (
    ('scale_by_rms_bias_corrected',
     functools.partial(second_moment.scale_by_rms, bias_correction=True)),
    ('scale_by_stddev_bias_corrected',
     functools.partial(second_moment.scale_by_stddev, bias_correction=True)),
)


def _params():
  return {'w': jnp.array([[0.5, -1.0, 2.0], [1.5, 0.25, -0.75]]),
          'b': jnp.array([0.1, -0.2, 0.3])}


class InputPreparationTest(
    cases.prepared_inputs_test_case(
        _TRANSFORMATIONS, integer_also=_BIAS_CORRECTED, jit_rtol=1e-6)):
  """Each transformation alone takes gradients and params as chain does.

  At e2abe64 integer gradients gave integer updates, float0 gradients
  raised inside jax, a Python-float param leaf raised in SM3's init, and a
  (1, 3) gradient for a (4, 3) param was broadcast into the state or
  failed inside jax.
  """


class HyperparameterTypeTest(
    cases.vector_hyperparameters_test_case(_TRANSFORMATIONS)):
  """A vector hyperparameter is a TypeError naming it when built.

  At e2abe64 it was accepted, and the update broadcast it against the
  leaves or failed inside jax.
  """


class SM3MaskedTest(parameterized.TestCase):

  @parameterized.parameters(False, True)
  def test_float16_gradients_give_float32_updates(self, jit):
    # masked gives SM3 the params of its leaves: the float16 gradients are
    # widened to them first (at e2abe64 SM3 returned float16 updates).
    params = _params()
    tx = _masking.masked(second_moment.scale_by_sm3(),
                         {'w': True, 'b': False})
    half = {'w': jnp.array([[0.25, -0.5, 0.75], [0.0, 1.0, -0.25]],
                           jnp.float16),
            'b': jnp.zeros(3, jnp.float32)}
    wide = dict(half, w=half['w'].astype(jnp.float32))
    got = cases.update_steps(tx, half, params, jit)
    want = cases.update_steps(tx, wide, params, jit)
    for step_got, step_want in zip(got, want):
      self.assertEqual(step_got['w'].dtype, jnp.float32)
      np.testing.assert_array_equal(step_got['w'], step_want['w'])



class RssNarrowStateTest(parameterized.TestCase):
  """scale_by_rss's bfloat16 sums: computed wide, rounded once."""

  @parameterized.parameters(False, True)
  def test_bfloat16_sums_rounded_once(self, use_jit):
    # 0.1 + g ** 2 in float32 then rounded to bfloat16, not g ** 2 rounded
    # to bfloat16 first: the two differ for these gradients (jit and eager
    # gave different bits when the square was narrow).
    g = jnp.asarray([0.3, 0.0349121, -0.0976562, 0.173828, 5.5], jnp.bfloat16)
    tx = second_moment.scale_by_rss(initial_accumulator_value=0.1)
    state = tx.init(jnp.zeros(5, jnp.bfloat16))
    update = jax.jit(tx.update) if use_jit else tx.update
    _, state = update(g, state)
    s0 = np.float32(jnp.asarray(0.1, jnp.bfloat16))
    g32 = np.asarray(g, np.float32)
    want = jnp.asarray(s0 + g32 * g32, jnp.bfloat16)
    narrow = jnp.asarray(
        s0 + np.asarray(jnp.asarray(g32 * g32, jnp.bfloat16), np.float32),
        jnp.bfloat16)
    self.assertNotEqual(np.asarray(want).tobytes(),
                        np.asarray(narrow).tobytes())
    self.assertEqual(state.sum_of_squares.dtype, jnp.bfloat16)
    self.assertEqual(np.asarray(state.sum_of_squares).tobytes(),
                     np.asarray(want).tobytes())

if __name__ == '__main__':
  absltest.main()
