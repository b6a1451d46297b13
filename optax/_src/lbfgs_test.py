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
"""Tests for ``optax._src.lbfgs``: the inputs its transformation takes.

Used on its own, each transformation takes gradients and params as
``optax.chain`` gives them (``numerics.preparing_inputs``): integer
gradients give float32 updates, ``float0`` gradients zero updates, a
Python-float param leaf is accepted, and a gradient broadcast to its param
is a ValueError naming the key path. The values are those of the same
transformation on float32 gradients.
"""

from absl.testing import absltest
from absl.testing import parameterized
import jax
import jax.numpy as jnp
import numpy as np

from optax._src import lbfgs

# name -> (factory, extra keyword arguments of update).
_TRANSFORMS = {
    'scale_by_lbfgs': (lbfgs.scale_by_lbfgs, {}),
    'scale_by_lbfgs(memory_size=1)': (
        lambda: lbfgs.scale_by_lbfgs(memory_size=1,
                                     scale_init_precond=False), {}),
}
_NAMES = sorted(_TRANSFORMS)


def _params():
  return {'w': jnp.asarray([[0.5, -1.0, 2.0], [1.5, 0.25, -0.75]]),
          'b': jnp.asarray([1.0, -2.0, 3.0])}


def _int_grads():
  return {'w': jnp.asarray([[1, -2, 3], [0, 4, -1]], jnp.int32),
          'b': jnp.asarray([2, 0, -3], jnp.int32)}


def _steps(name, grads, params, use_jit, steps=2):
  """The updates of ``steps`` steps of the transformation ``name``."""
  factory, extra = _TRANSFORMS[name]
  tx = factory()
  update = jax.jit(tx.update) if use_jit else tx.update
  state = tx.init(params)
  out = []
  for _ in range(steps):
    updates, state = update(grads, state, params, **extra)
    out.append(updates)
  return out


class PreparedInputsTest(parameterized.TestCase):
  """Inputs the transformations of the module take as a chain gives them."""

  @parameterized.product(name=_NAMES, use_jit=(False, True))
  def test_integer_gradients_give_float_updates(self, name, use_jit):
    params = _params()
    got = _steps(name, _int_grads(), params, use_jit)
    float_grads = jax.tree.map(lambda g: g.astype(jnp.float32), _int_grads())
    want = _steps(name, float_grads, params, use_jit)
    for got_step, want_step in zip(got, want):
      for key in params:
        self.assertEqual(got_step[key].dtype, jnp.float32, key)
        np.testing.assert_array_equal(got_step[key], want_step[key])

  @parameterized.product(name=_NAMES, use_jit=(False, True))
  def test_float0_gradients_give_zero_updates(self, name, use_jit):
    params = {'w': _params()['w'], 'i': jnp.asarray([3, -1], jnp.int32)}

    def loss(p):
      return jnp.sum(p['w'] ** 2) + jnp.sum(p['w'] * p['i'][0])

    grads = jax.grad(loss, allow_int=True)(params)
    self.assertEqual(grads['i'].dtype, jax.dtypes.float0)
    got = _steps(name, grads, params, use_jit)
    zero_grads = {'w': grads['w'], 'i': jnp.zeros(2, jnp.float32)}
    want = _steps(name, zero_grads, params, use_jit)
    for got_step, want_step in zip(got, want):
      np.testing.assert_array_equal(got_step['i'], np.zeros(2))
      np.testing.assert_array_equal(got_step['w'], want_step['w'])

  @parameterized.product(name=_NAMES, use_jit=(False, True))
  def test_python_float_param_leaf_is_accepted(self, name, use_jit):
    grads = {'w': jnp.asarray([0.5, -1.0]), 'f': jnp.asarray(0.25)}
    got = _steps(name, grads, {'w': jnp.asarray([1.0, 2.0]), 'f': 1.5},
                 use_jit)
    want = _steps(name, grads,
                  {'w': jnp.asarray([1.0, 2.0]), 'f': jnp.asarray(1.5)},
                  use_jit)
    for got_step, want_step in zip(got, want):
      for key in ('w', 'f'):
        self.assertEqual(got_step[key].dtype, jnp.float32)
        np.testing.assert_array_equal(got_step[key], want_step[key])

  @parameterized.product(name=_NAMES, use_jit=(False, True))
  def test_broadcast_gradient_raises_naming_key_path(self, name, use_jit):
    params = {'w': jnp.ones((4, 3)), 'b': jnp.ones(3)}
    grads = {'w': jnp.ones((1, 3)), 'b': jnp.ones(3)}
    label = name.split('(')[0]
    with self.assertRaisesRegex(
        ValueError, label + r": at \['w'\] the gradient has shape \(1, 3\)"
        r' but the param has shape \(4, 3\)'):
      _steps(name, grads, params, use_jit, steps=1)


if __name__ == '__main__':
  absltest.main()
