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
"""scale_by_zoom_linesearch: init gives the state types update returns.

Upstream (0.2.8, main at 2edbcbe2) built the info of the initial state from
Python numbers (jnp.asarray(0), jnp.asarray(jnp.inf)), weakly typed, while
update_fn stores strongly typed arrays: a jitted lbfgs or zoom line-search
step was traced, and compiled, twice, once for the state of init and once
for the state of the first update.
"""

from absl.testing import absltest
from absl.testing import parameterized
import jax
import jax.numpy as jnp
from optax._src import alias
from optax._src import linesearch as _linesearch


class ZoomLinesearchTest(parameterized.TestCase):

  @parameterized.named_parameters(
      ('zoom', _linesearch.scale_by_zoom_linesearch, 5),
      ('lbfgs', alias.lbfgs, None),
  )
  def test_zoom_linesearch_state_types_do_not_change_on_update(
      self, make, max_linesearch_steps
  ):
    opt = make() if max_linesearch_steps is None else make(max_linesearch_steps)

    def fn(x):
      return jnp.sum((x - 1.0) ** 2)

    params = jnp.zeros(3)
    value, grad = jax.value_and_grad(fn)(params)
    state = opt.init(params)
    _, new_state = opt.update(
        grad, state, params, value=value, grad=grad, value_fn=fn
    )
    types = jax.tree.map(jax.typeof, state)
    new_types = jax.tree.map(jax.typeof, new_state)
    self.assertEqual(
        jax.tree.map(lambda t: (t.dtype, t.weak_type), types),
        jax.tree.map(lambda t: (t.dtype, t.weak_type), new_types),
    )


if __name__ == '__main__':
  absltest.main()
