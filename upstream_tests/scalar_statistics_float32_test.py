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
"""Scalar statistics stay float32 on bfloat16 params.

Upstream 0.2.8 keeps some scalar statistics in the params' (lowest) dtype:
schedule-free's ``weight_sum`` on bfloat16 params stops growing once its
increments fall below half a bfloat16 ulp (0.03125 after 3,000 steps, where
a float32 run reaches 0.29938); L-BFGS's line-search learning rate,
reduce_on_plateau's ``scale``, momo's ``barf``/``gamma``/``lb`` and
novograd's ``nu`` are bfloat16 too.
"""

from absl.testing import absltest
from absl.testing import parameterized
import jax
import jax.numpy as jnp
import numpy as np
import optax


def _schedule_free_weight_sum(dtype, n=64, steps=3000):
  tx = optax.contrib.schedule_free_adamw(1e-2, warmup_steps=10)
  optimum = jnp.linspace(-1.0, 1.0, n)
  key = jax.random.key(0)

  def body(carry, t):
    params, state = carry
    noise = 0.1 * jax.random.normal(jax.random.fold_in(key, t), (n,))
    grads = (params.astype(jnp.float32) - optimum + noise).astype(dtype)
    updates, state = tx.update(grads, state, params)
    return (optax.apply_updates(params, updates), state), None

  params = jnp.zeros((n,), dtype)
  run = jax.jit(lambda c: jax.lax.scan(body, c, jnp.arange(steps))[0])
  _, state = run((params, tx.init(params)))
  return state.weight_sum


class ScalarStatisticsFloat32Test(parameterized.TestCase):

  def test_schedule_free_weight_sum_on_bfloat16_params(self):
    expected = _schedule_free_weight_sum(jnp.float32)
    got = _schedule_free_weight_sum(jnp.bfloat16)
    self.assertEqual(got.dtype, jnp.float32)
    np.testing.assert_allclose(got, expected, rtol=1e-2)

  @parameterized.named_parameters(
      (
          'schedule_free',
          optax.contrib.schedule_free_adamw,
          lambda s: (s.b1, s.weight_sum, s.max_lr),
      ),
      ('lbfgs', optax.lbfgs, lambda s: (s[2].learning_rate,)),
      (
          'reduce_on_plateau',
          optax.contrib.reduce_on_plateau,
          lambda s: (s.scale, s.best_value, s.avg_value),
      ),
      ('momo', optax.contrib.momo, lambda s: (s.barf, s.gamma, s.lb)),
      (
          'novograd',
          lambda: optax.novograd(0.1),
          lambda s: tuple(s[0].nu.values()),
      ),
  )
  def test_init_dtypes_on_bfloat16_params(self, make, statistics):
    state = make().init({'b': jnp.zeros(3, jnp.bfloat16)})
    for statistic in statistics(state):
      self.assertEqual(statistic.dtype, jnp.float32)


if __name__ == '__main__':
  absltest.main()
