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
"""reduce_on_plateau on a negative monitored value.

``reduce_on_plateau`` reduces the scale after ``patience`` evaluations with
no improvement. Upstream (0.2.8, main at 2edbcbe2; pull request #1767)
counted a value as an improvement when it was below ``(1 - rtol) * best -
atol``; for a negative ``best`` that threshold lies above ``best``
(``-0.9999`` for ``best = -1`` and the default ``rtol = 1e-4``), so a
constant negative value improved on every step and the scale was never
reduced. With a margin of ``rtol * |best|`` a constant value is a
plateau whatever its sign: with ``patience = 2`` and ``factor = 0.1`` the
first value improves on the initial ``inf``, the next two do not and the
scale drops to 0.1 on the third step, to 0.01 on the fifth and to 0.001 on
the seventh.
"""

from absl.testing import absltest
from absl.testing import parameterized
import jax
import jax.numpy as jnp
import numpy as np
from optax import contrib


class ReduceOnPlateauTest(parameterized.TestCase):

  @parameterized.product(value=[1.0, -1.0], jit=[False, True])
  def test_constant_value_is_a_plateau(self, value, jit):
    transform = contrib.reduce_on_plateau(patience=2, factor=0.1)
    params = jnp.zeros(1)
    state = transform.init(params)
    update = jax.jit(transform.update) if jit else transform.update
    scales = []
    for _ in range(8):
      _, state = update(params, state, value=jnp.asarray(value))
      scales.append(float(state.scale))
    np.testing.assert_allclose(
        scales, [1.0, 1.0, 0.1, 0.1, 0.01, 0.01, 1e-3, 1e-3], rtol=1e-6
    )

  def test_negative_margin_is_relative_to_abs_best(self):
    # rtol = 0.1 and best = -10: a value must be below -10 - 0.1 * 10 = -11
    # to improve.
    transform = contrib.reduce_on_plateau(patience=5, rtol=0.1)
    params = jnp.zeros(1)
    state = transform.init(params)
    _, state = transform.update(params, state, value=jnp.asarray(-10.0))
    _, state = transform.update(params, state, value=jnp.asarray(-10.5))
    self.assertEqual(float(state.best_value), -10.0)
    self.assertEqual(int(state.plateau_count), 1)
    _, state = transform.update(params, state, value=jnp.asarray(-11.5))
    self.assertEqual(float(state.best_value), -11.5)
    self.assertEqual(int(state.plateau_count), 0)


if __name__ == '__main__':
  absltest.main()
