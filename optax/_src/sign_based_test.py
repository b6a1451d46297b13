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
"""Tests for `sign_based.py` beyond those of `transform_test.py`.

The transformations' values and states are tested through their upstream
names in `transform_test.py`; this file covers how each one, used alone,
takes odd gradients, params and hyperparameters.
"""

import functools
import inspect

from absl.testing import absltest
from absl.testing import parameterized
import jax
import jax.numpy as jnp
import numpy as np

from optax._src import sign_based
from optax._src import test_utils
from optax.schedules import _inject

# Every public transformation of sign_based.py, by the name its errors use
# (rprop's update is one step behind: its first updates are zero).
_TRANSFORMATIONS = (
    ('scale_by_sign', sign_based.scale_by_sign),
    ('scale_by_lion', sign_based.scale_by_lion),
    ('scale_by_rprop',
     functools.partial(sign_based.scale_by_rprop, learning_rate=0.1)),
)
_LION_MODES = (
    ('scale_by_lion_smooth',
     functools.partial(sign_based.scale_by_lion, mode='smooth')),
    ('scale_by_lion_refined',
     functools.partial(sign_based.scale_by_lion, mode='refined')),
)


def _with_jit(transformations):
  """Each transformation eager and jitted, for named_parameters."""
  return [dict(testcase_name=f'{name}_{"jit" if jit else "eager"}',
               name=name, factory=factory, jit=jit)
          for name, factory in transformations for jit in (False, True)]


def _float_hyperparameters(transformations):
  """Each transformation with each of its float-valued arguments."""
  return [dict(testcase_name=f'{name}_{arg}', name=name, factory=factory,
               arg=arg)
          for name, factory in transformations
          for arg, p in inspect.signature(factory).parameters.items()
          if isinstance(p.default, float)]


def _steps(tx, grads, params, jit, n=2):
  """The updates of ``n`` steps of ``tx`` on the same gradients."""
  update = jax.jit(tx.update) if jit else tx.update
  state = tx.init(params)
  out = []
  for _ in range(n):
    updates, state = update(grads, state, params)
    out.append(updates)
  return out


def _assert_same_updates(got, want, jit):
  """Equal eagerly; under jit to an ulp (XLA fuses a cast differently)."""
  for step_got, step_want in zip(got, want):
    test_utils.assert_trees_all_equal_dtypes(step_got, step_want)
    if jit:
      test_utils.assert_trees_all_close(step_got, step_want, rtol=1e-6)
    else:
      test_utils.assert_trees_all_equal(step_got, step_want)


def _params():
  return {'w': jnp.array([[0.5, -1.0, 2.0], [1.5, 0.25, -0.75]]),
          'b': jnp.array([0.1, -0.2, 0.3])}


def _int_grads():
  return {'w': jnp.array([[1, -2, 3], [0, 4, -1]], jnp.int32),
          'b': jnp.array([2, -3, 1], jnp.int32)}


class InputPreparationTest(parameterized.TestCase):
  """Each transformation alone takes gradients and params as chain does.

  At e2abe64 integer gradients gave integer updates, float0 gradients
  raised inside jax, and a (1, 3) gradient for a (4, 3) param was
  broadcast (scale_by_sign returned (1, 3) updates) or failed inside jax.
  """

  @parameterized.named_parameters(
      _with_jit(_TRANSFORMATIONS + _LION_MODES))
  def test_integer_gradients_give_float_updates(self, name, factory, jit):
    del name
    params = _params()
    tx = factory()
    got = _steps(tx, _int_grads(), params, jit, n=3)
    floats = jax.tree.map(lambda g: g.astype(jnp.float32), _int_grads())
    want = _steps(tx, floats, params, jit, n=3)
    for step_got in got:
      test_utils.assert_trees_all_equal_dtypes(step_got, params)
    _assert_same_updates(got, want, jit)

  @parameterized.named_parameters(_with_jit(_TRANSFORMATIONS))
  def test_narrow_float_gradients_give_params_dtype(self, name, factory,
                                                    jit):
    del name
    params = _params()
    tx = factory()
    half = jax.tree.map(
        lambda g: (g.astype(jnp.float16) / 4).astype(jnp.float16),
        _int_grads())
    got = _steps(tx, half, params, jit)
    want = _steps(tx, jax.tree.map(lambda g: g.astype(jnp.float32), half),
                  params, jit)
    for step_got in got:
      test_utils.assert_trees_all_equal_dtypes(step_got, params)
    _assert_same_updates(got, want, jit)

  @parameterized.named_parameters(_with_jit(_TRANSFORMATIONS))
  def test_float0_gradients_give_zero_updates(self, name, factory, jit):
    del name
    params = {'w': _params()['w'], 'i': jnp.arange(3, dtype=jnp.int32)}
    grads = jax.grad(
        lambda p: jnp.sum(p['w'] ** 2) + jnp.sum(p['i']), allow_int=True)(
            params)
    self.assertEqual(grads['i'].dtype, jax.dtypes.float0)
    tx = factory()
    got = _steps(tx, grads, params, jit)
    alone = _steps(tx, {'w': grads['w']}, {'w': params['w']}, jit)
    for step_got, step_alone in zip(got, alone):
      np.testing.assert_array_equal(step_got['i'], np.zeros(3))
      # The float leaf's updates are those it gets without the int leaf
      # (to an ulp: XLA fuses the two programs differently).
      np.testing.assert_allclose(step_got['w'], step_alone['w'], rtol=1e-6)
      self.assertEqual(step_got['w'].dtype, jnp.float32)

  @parameterized.named_parameters(_with_jit(_TRANSFORMATIONS))
  def test_python_float_param_leaf_accepted(self, name, factory, jit):
    del name
    tx = factory()
    w, g = _params()['w'], _int_grads()['w'].astype(jnp.float32)
    got = _steps(tx, {'w': g, 'f': 0.5}, {'w': w, 'f': 1.5}, jit)
    want = _steps(tx, {'w': g, 'f': jnp.asarray(0.5, jnp.float32)},
                  {'w': w, 'f': jnp.asarray(1.5, jnp.float32)}, jit)
    for step_got, step_want in zip(got, want):
      self.assertEqual(step_got['f'].dtype, jnp.float32)
      test_utils.assert_trees_all_equal(step_got, step_want)

  @parameterized.named_parameters(_with_jit(_TRANSFORMATIONS))
  def test_broadcast_gradient_names_key_path(self, name, factory, jit):
    params = {'w': jnp.ones((4, 3)), 'b': jnp.ones(3)}
    grads = {'w': jnp.ones((1, 3)), 'b': jnp.ones(3)}
    tx = factory()
    update = jax.jit(tx.update) if jit else tx.update
    with self.assertRaisesRegex(
        ValueError, rf"^{name}: at \['w'\] the gradient has shape \(1, 3\)"
        r' but the param has shape \(4, 3\)'):
      update(grads, tx.init(params), params)


class HyperparameterTypeTest(parameterized.TestCase):
  """A vector hyperparameter is a TypeError naming it when built.

  At e2abe64 it was accepted, and the update broadcast it against the
  leaves or failed inside jax.
  """

  @parameterized.named_parameters(
      _float_hyperparameters(_TRANSFORMATIONS))
  def test_vector_hyperparameter_type_error(self, name, factory, arg):
    with self.assertRaisesRegex(
        TypeError, rf'^{name}: {arg} must be a scalar number .* got an'
        r' array of shape \(2,\)'):
      factory(**{arg: jnp.full(2, 0.5)})
    # A 0-d array, as inject_hyperparams gives, is a scalar.
    factory(**{arg: jnp.asarray(0.5)})

  def test_vector_under_inject_hyperparams(self):
    # inject_hyperparams builds the inner transformation with its arrays.
    with self.assertRaisesRegex(TypeError, '^scale_by_lion: b1 '):
      _inject.inject_hyperparams(sign_based.scale_by_lion)(
          b1=jnp.ones(2))


if __name__ == '__main__':
  absltest.main()
