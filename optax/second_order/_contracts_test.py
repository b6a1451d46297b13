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
"""The second-order helpers against finite differences in float64.

``hvp`` is the Hessian times a vector, ``hessian_diag`` the diagonal of the
Hessian and ``fisher_diag`` the squared gradient; the Hessian of a small
model's loss is taken by central differences of a float64 NumPy copy of the
loss, the gradient likewise.
"""

import warnings

from absl.testing import absltest
from absl.testing import parameterized
import jax
import jax.flatten_util
import jax.numpy as jnp
import numpy as np

from optax import second_order
from optax._src import utils
from optax._src.testing import reference_math as ref

_X = np.array([[0.5, -1.0], [1.5, 0.3], [-0.2, 0.8]])
_Y = np.array([0.2, -0.4, 1.0])


def _loss(params, inputs, targets, xp=jnp):
  """A two-parameter-group loss with curvature in every direction."""
  w, b = params['w'], params['b']
  pred = xp.tanh(inputs @ w + b)
  return xp.sum((pred - targets) ** 2) + 0.1 * xp.sum(w ** 4)


def _np_loss(flat):
  # The order of jax.flatten_util.ravel_pytree: the keys sorted, b then w.
  return _loss({'w': flat[1:], 'b': flat[0]}, _X, _Y, xp=np)


_PARAMS = {'w': np.array([0.3, -0.7]), 'b': np.array(0.1)}
_FLAT = np.array([0.1, 0.3, -0.7])


def _numeric_grad(fun, x, step=1e-6):
  return np.array([(fun(x + step * e) - fun(x - step * e)) / (2 * step)
                   for e in np.eye(x.size)])


class SecondOrderTest(parameterized.TestCase):

  def setUp(self):
    super().setUp()
    self.hessian = ref.finite_difference_hessian(_np_loss, _FLAT)

  @parameterized.parameters(0, 1, 2)
  def test_hvp_is_hessian_times_vector(self, index):
    v = np.eye(3)[index] + 0.5
    with warnings.catch_warnings(), utils.x64_precision():
      warnings.simplefilter('ignore', DeprecationWarning)
      params = {k: jnp.asarray(val) for k, val in _PARAMS.items()}
      got = second_order.hvp(_loss, jnp.asarray(v), params, _X, _Y)
    got = jax.flatten_util.ravel_pytree(got)[0]
    np.testing.assert_allclose(got, self.hessian @ v, rtol=1e-5, atol=1e-6)

  def test_hessian_diag_is_diagonal_of_hessian(self):
    with warnings.catch_warnings(), utils.x64_precision():
      warnings.simplefilter('ignore', DeprecationWarning)
      params = {k: jnp.asarray(val) for k, val in _PARAMS.items()}
      got = second_order.hessian_diag(_loss, params, _X, _Y)
    np.testing.assert_allclose(np.ravel(got), np.diag(self.hessian),
                               rtol=1e-5, atol=1e-6)

  def test_fisher_diag_is_squared_gradient(self):
    with warnings.catch_warnings(), utils.x64_precision():
      warnings.simplefilter('ignore', DeprecationWarning)
      params = {k: jnp.asarray(val) for k, val in _PARAMS.items()}
      got = second_order.fisher_diag(_loss, params, _X, _Y)
    np.testing.assert_allclose(
        np.ravel(got), _numeric_grad(_np_loss, _FLAT) ** 2, rtol=1e-6)


if __name__ == '__main__':
  absltest.main()
