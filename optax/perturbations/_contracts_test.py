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
"""make_perturbed_fun against identities of stochastic smoothing.

For an affine ``f(x) = <a, x> + c`` the smoothed function is ``f`` itself
and its gradient ``a`` (the noise has mean zero); for ``f = one_hot(argmax)``
with Gumbel noise and ``sigma = 1`` the smoothed function is ``softmax(x)``
(the Gumbel-max trick, Berthet et al. 2020, section 3). The Monte Carlo
estimates with a fixed key fall within a few standard errors of these.
"""

from absl.testing import absltest
from absl.testing import parameterized
import jax
import jax.numpy as jnp
import numpy as np

from optax import perturbations
from optax._src.testing import reference_math as ref

_N = 20000


class MakePerturbedFunTest(parameterized.TestCase):

  @parameterized.parameters(
      ('Normal', True), ('Normal', False), ('Gumbel', True))
  def test_affine_function_is_its_own_smoothing(self, noise, use_baseline):
    a = jnp.array([1.0, -2.0, 0.5])
    x = jnp.array([0.3, 0.1, -0.4])

    def f(y):
      return jnp.dot(a, y) + 1.0

    noise_obj = getattr(perturbations, noise)()
    smoothed = perturbations.make_perturbed_fun(
        f, num_samples=_N, sigma=0.5, noise=noise_obj,
        use_baseline=use_baseline)
    key = jax.random.key(0)
    value = float(smoothed(key, x))
    # The Gumbel noise has mean Euler's gamma: E f(x + sigma Z) shifts by
    # sigma * gamma * sum(a).
    shift = 0.5 * np.euler_gamma * float(a.sum()) if noise == 'Gumbel' else 0
    np.testing.assert_allclose(value, float(f(x)) + shift, atol=0.05)
    grad = jax.grad(lambda y: smoothed(key, y))(x)
    tol = 0.1 if use_baseline else 0.3
    np.testing.assert_allclose(grad, a, atol=tol)

  def test_perturbed_argmax_is_softmax(self):
    x = jnp.array([0.5, -0.2, 1.0, 0.0])

    def argmax_one_hot(y):
      return jax.nn.one_hot(jnp.argmax(y), y.shape[-1])

    smoothed = perturbations.make_perturbed_fun(
        argmax_one_hot, num_samples=_N, sigma=1.0,
        noise=perturbations.Gumbel())
    got = smoothed(jax.random.key(1), x)
    np.testing.assert_allclose(got, ref.softmax(np.asarray(x)), atol=0.02)

  def test_noise_log_densities(self):
    z = jnp.array([-1.5, 0.0, 2.0])
    normal = perturbations.Normal()
    gumbel = perturbations.Gumbel()
    zn = np.asarray(z, np.float64)
    # Up to an additive constant (only its gradient enters the estimator).
    got = np.asarray(normal.log_prob(z)) - float(normal.log_prob(0.0))
    np.testing.assert_allclose(got, -0.5 * zn ** 2, rtol=1e-5)
    got = np.asarray(gumbel.log_prob(z)) - float(gumbel.log_prob(0.0))
    np.testing.assert_allclose(got, -zn - np.exp(-zn) + 1.0, rtol=1e-5)


if __name__ == '__main__':
  absltest.main()
