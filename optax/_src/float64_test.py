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
"""The optimizers of ``optax._src.alias`` on float64 params (x64 enabled).

x64 is switched on only inside a context manager that restores the previous
setting, so the other tests of the process are not affected.
"""

from absl.testing import absltest
from absl.testing import parameterized
import jax
import jax.numpy as jnp
import numpy as np

from optax._src import alias
from optax._src import alias_test
from optax._src import hyperparameters
from optax._src import linear_algebra
from optax._src import utils


def _dtype_signature(tree):
  return jax.tree.map(lambda x: (jnp.shape(x), jnp.result_type(x)), tree)


class Float64Test(parameterized.TestCase):
  """Updates and states keep float64 under x64."""

  def test_context_manager_restores_the_flag(self):
    before = jax.config.jax_enable_x64
    with utils.x64_precision():
      self.assertTrue(jax.config.jax_enable_x64)
      self.assertEqual(hyperparameters.hyperparameter_dtype(), jnp.float64)
    self.assertEqual(jax.config.jax_enable_x64, before)

  @parameterized.parameters(*alias_test._NAMES)  # pylint: disable=protected-access
  def test_updates_keep_float64(self, name):
    with utils.x64_precision():
      opt = getattr(alias, name)(**alias_test._HYPERS[name][0])  # pylint: disable=protected-access
      params = {
          'w': jnp.asarray(np.linspace(-1, 1, 6).reshape(2, 3), jnp.float64),
          'b': jnp.asarray([0.5, -0.25], jnp.float64),
      }

      def loss(p):
        return sum(jnp.sum((x - 0.3) ** 2) for x in jax.tree.leaves(p))

      @jax.jit
      def step(params, state):
        value, grad = jax.value_and_grad(loss)(params)
        return opt.update(grad, state, params, value=value, grad=grad,
                          value_fn=loss)

      state = opt.init(params)
      signature = _dtype_signature(state)
      for _ in range(2):
        updates, state = step(params, state)
        for leaf in jax.tree.leaves(updates):
          self.assertEqual(leaf.dtype, jnp.float64)
        self.assertEqual(_dtype_signature(state), signature)
        params = jax.tree.map(lambda p, u: p + u, params, updates)
      self.assertEqual(step._cache_size(), 1)  # pylint: disable=protected-access

  def test_sgd_is_exact_in_float64(self):
    with utils.x64_precision():
      opt = alias.sgd(0.1, momentum=0.9)
      params = jnp.asarray([1.0, -2.0], jnp.float64)
      state = opt.init(params)
      grads = jnp.asarray([1.0 / 3.0, 0.7], jnp.float64)
      updates, state = opt.update(grads, state)
      updates, _ = opt.update(grads, state)
      # Second step: -0.1 * (0.9 * g + g), computed in float64.
      np.testing.assert_allclose(
          updates, -0.1 * 1.9 * np.array([1.0 / 3.0, 0.7]), rtol=1e-15)

  def test_linear_algebra_in_float64(self):
    with utils.x64_precision():
      rng = np.random.RandomState(0)
      x = rng.randn(4, 4)
      matrix = x @ x.T + np.eye(4)
      eigval, _ = linear_algebra.power_iteration(
          jnp.asarray(matrix), error_tolerance=1e-12, num_iters=1000)
      self.assertEqual(eigval.dtype, jnp.float64)
      np.testing.assert_allclose(eigval, np.linalg.eigvalsh(matrix)[-1],
                                 rtol=1e-10)
      root, _ = linear_algebra.matrix_inverse_pth_root(
          jnp.asarray(matrix), 2, ridge_epsilon=0.0, error_tolerance=1e-12)
      self.assertEqual(root.dtype, jnp.float64)
      w, v = np.linalg.eigh(matrix)
      np.testing.assert_allclose(root, (v / np.sqrt(w)) @ v.T, rtol=1e-8)


if __name__ == '__main__':
  absltest.main()
