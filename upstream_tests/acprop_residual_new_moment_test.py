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
"""ACProp's centred second moment uses the new first moment.

ACProp (Zhuang et al., 2021, "Momentum Centering and Asynchronous Update for
Adaptive Gradient Methods") updates the first moment and then accumulates the
squared residual of the gradient against it,
``s_t = b2 * s_{t-1} + (1 - b2) * (g_t - m_t)**2``, as ``acprop``'s docstring
and the authors' reference implementation do. ``scale_by_acprop`` took the
residual against the previous moment, ``g_t - m_{t-1}``, up to upstream main
at 2edbcbe2 (pull request #1716 proposes the same fix). With ``b1 = b2 =
0.5``, ``eps = eps_root = 0`` and gradients 2, 1, 4 the rule gives, by hand,
``m = 1, 1, 2.5``, ``s = 0.5, 0.25, 1.25`` and the directions ``2``,
``1 / sqrt(0.5 / 0.5) = 1`` and ``4 / sqrt(0.25 / 0.75) = 4 * sqrt(3)``; the
previous moment gives ``s = 2, 1, 5`` and ``2, 0.5, 2 * sqrt(3)``.
"""

from absl.testing import absltest
from absl.testing import parameterized
import jax
import jax.numpy as jnp
import numpy as np
from optax import contrib


class ACPropTest(parameterized.TestCase):

  @parameterized.parameters(False, True)
  def test_residual_uses_the_new_first_moment(self, jit):
    transform = contrib.scale_by_acprop(b1=0.5, b2=0.5, eps=0.0, eps_root=0.0)
    state = transform.init(jnp.zeros(1))
    update = jax.jit(transform.update) if jit else transform.update
    directions = []
    for g in (2.0, 1.0, 4.0):
      u, state = update(jnp.array([g]), state)
      directions.append(float(u[0]))
    np.testing.assert_allclose(
        directions, [2.0, 1.0, 4.0 * np.sqrt(3.0)], rtol=1e-6
    )
    np.testing.assert_allclose(state.mu, [2.5], rtol=1e-6)
    np.testing.assert_allclose(state.nu, [1.25], rtol=1e-6)

  def test_first_step_residual_is_the_gradient_less_its_moment(self):
    # One step from zero: m_1 = (1 - b1) * g, so the residual is b1 * g and
    # s_1 = (1 - b2) * (b1 * g)**2 = 0.001 * 0.81 for g = 1 (the previous
    # moment gives 0.001); 1 - b2 rounded in float32 is 1.3e-5 off 0.001.
    transform = contrib.scale_by_acprop(b1=0.9, b2=0.999, eps_root=0.0)
    _, state = transform.update(jnp.ones(1), transform.init(jnp.zeros(1)))
    np.testing.assert_allclose(state.nu, [0.001 * 0.81], rtol=1e-4)


if __name__ == '__main__':
  absltest.main()
