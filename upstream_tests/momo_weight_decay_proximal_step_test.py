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
"""contrib.momo and momo_adam with weight decay: the proximal step.

With weight decay, MoMo (Schaipp et al., 2023) takes the proximal step of
its truncated model plus ``lambda / 2 |x|^2``: ``x' = (x - tau d) / (1 +
lr lambda)``, and its step size ``tau = min(lr, ((1 + lr lambda)(fbar -
gamma - f_*) + <d, x>)_+ / |d|^2)`` is the one that puts ``x'`` on the
model's floor; the authors' momo.py and momo_adam.py take the step and then
divide. Upstream (0.2.8, main at 2edbcbe2) divided the params only,
``x / (1 + lr lambda) - tau d``, a step ``1 + lr lambda`` times too long.
"""

from absl.testing import absltest
from absl.testing import parameterized
import jax
import jax.numpy as jnp
from optax import contrib
from optax._src import test_utils


def _loss(x):
  return jnp.sum(x ** 2)


class MomoWeightDecayTest(parameterized.TestCase):

  def test_momo_weight_decay_divides_the_whole_step(self):
    # x = [1, -2]: g = [2, -4], f = 5, <g, x> = 10, |g|^2 = 20; with
    # lr = 1 and lambda = 0.5, tau = (10 + 1.5 (5 - 10)) / 20 = 0.125 and
    # x' = (x - 0.125 g) / 1.5 = [0.5, -1].
    opt = contrib.momo(learning_rate=1.0, weight_decay=0.5)
    params = jnp.array([1.0, -2.0])
    value, grad = jax.value_and_grad(_loss)(params)
    updates, _ = opt.update(grad, opt.init(params), params, value=value)
    test_utils.assert_trees_all_close(
        updates, jnp.array([-0.5, 1.0]), rtol=1e-6, atol=1e-6)

  def test_momo_adam_weight_decay_divides_the_whole_step(self):
    # First step, eps = 0: the bias-corrected moments are g and |g|, so
    # D^-1 m = sign(g) = [1, -1] and <m, D^-1 m> = |g|_1 = 6; tau =
    # min(1, (10 + 1.5 (5 - 10)) / 6) = 5 / 12 and x' = (x - tau [1, -1]) /
    # 1.5 = [7 / 18, -19 / 18].
    opt = contrib.momo_adam(learning_rate=1.0, eps=0.0, weight_decay=0.5)
    params = jnp.array([1.0, -2.0])
    value, grad = jax.value_and_grad(_loss)(params)
    updates, _ = opt.update(grad, opt.init(params), params, value=value)
    test_utils.assert_trees_all_close(
        updates, jnp.array([7 / 18 - 1.0, -19 / 18 + 2.0]), rtol=1e-6,
        atol=1e-6)


if __name__ == '__main__':
  absltest.main()
