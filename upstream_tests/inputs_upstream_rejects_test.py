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
"""Inputs that upstream 0.2.8 rejects (or misreads) and the fork accepts.

The onecycle schedules on a vector of step counts raise a broadcasting
``TypeError`` and ``piecewise_interpolate_schedule`` returns wrong values;
``unitwise_clip`` with a scalar ``max_norm`` and ``tree_norm(ord='fro')``
raise ``ValueError``.
A Python-number leaf in the params is accepted by most aliases upstream, but
``fromage``, ``lamb``, ``lars`` (``AttributeError``) and ``adagrad``,
``yogi`` (``ValueError``) raise.
"""

from absl.testing import absltest
from absl.testing import parameterized
import jax.numpy as jnp
import numpy as np
import optax


class InputsUpstreamRejectsTest(parameterized.TestCase):

  @parameterized.named_parameters(
      ('linear_onecycle', lambda: optax.linear_onecycle_schedule(100, 1.0)),
      ('cosine_onecycle', lambda: optax.cosine_onecycle_schedule(100, 1.0)),
      (
          'piecewise_interpolate',
          lambda: optax.piecewise_interpolate_schedule(
              'linear', 1.0, {10: 0.5}
          ),
      ),
  )
  def test_schedule_on_a_vector_of_counts(self, make):
    schedule = make()
    counts = np.arange(0, 100, 5)
    expected = [float(schedule(int(c))) for c in counts]
    np.testing.assert_allclose(
        schedule(jnp.asarray(counts)), expected, rtol=1e-5
    )

  def test_piecewise_interpolate_values(self):
    schedule = optax.piecewise_interpolate_schedule('linear', 1.0, {10: 0.5})
    np.testing.assert_allclose(
        schedule(jnp.array([0, 5, 10, 15])), [1.0, 0.75, 0.5, 0.5]
    )

  def test_unitwise_clip_scalar_max_norm(self):
    g = jnp.array([1.0, 5.0])
    got = optax.transforms.unitwise_clip(g, jnp.float32(2.0), g)
    np.testing.assert_allclose(got, [1.0, 2.0], rtol=1e-6)

  def test_tree_norm_frobenius(self):
    tree = {'a': jnp.array([[3.0, 0.0], [0.0, 4.0]]), 'b': jnp.array([12.0])}
    np.testing.assert_allclose(
        optax.tree_utils.tree_norm(tree, ord='fro'), 13.0, rtol=1e-6
    )

  @parameterized.parameters('fromage', 'lamb', 'lars', 'adagrad', 'yogi')
  def test_python_number_leaf(self, name):
    tx = getattr(optax, name)(0.1)

    def first_update(params):
      updates, _ = tx.update(params, tx.init(params), params)
      return updates

    got = first_update({'w': jnp.ones(3), 'f': 1.5})
    # A Python float is a float32 scalar.
    expected = first_update({'w': jnp.ones(3), 'f': jnp.float32(1.5)})
    self.assertEqual(got['f'].dtype, jnp.float32)
    np.testing.assert_allclose(got['f'], expected['f'], rtol=1e-6)
    np.testing.assert_allclose(got['w'], expected['w'], rtol=1e-6)


if __name__ == '__main__':
  absltest.main()
