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
"""Additions of upstream main ahead of a release, in the fork.

Upstream main (after 0.2.8) adds decoupled weight decay to ``adabelief``
(#1634), ``weight_decay_mask`` to ``contrib.prodigy``, ``optax.ArrayTree``,
``optax._src.utils.parse_version``, and names the schedule in
``cosine_onecycle_schedule``'s error (#1680). Upstream 0.2.8 has none.
"""

from absl.testing import absltest
from absl.testing import parameterized
import jax.numpy as jnp
import numpy as np
import optax
from optax._src import utils


def _first_update(tx, params, grads):
  updates, _ = tx.update(grads, tx.init(params), params)
  return updates


class UpstreamMainAdditionsTest(parameterized.TestCase):

  def setUp(self):
    super().setUp()
    self.params = {'w': jnp.array([1.0, -2.0, 0.5]), 'b': jnp.array([3.0])}
    self.grads = {'w': jnp.array([0.5, 0.25, -1.0]), 'b': jnp.array([2.0])}

  def test_adabelief_weight_decay(self):
    lr, wd = 0.1, 0.01
    got = _first_update(
        optax.adabelief(lr, weight_decay=wd), self.params, self.grads
    )
    # Decoupled: the belief direction plus wd * params, scaled by -lr.
    direction = _first_update(optax.scale_by_belief(), self.params, self.grads)
    for k, p in self.params.items():
      np.testing.assert_allclose(
          got[k], -lr * (direction[k] + wd * p), rtol=1e-6
      )

  def test_prodigy_weight_decay_mask(self):
    masked = optax.contrib.prodigy(
        0.1, weight_decay=0.5, weight_decay_mask={'w': False, 'b': False}
    )
    plain = optax.contrib.prodigy(0.1, weight_decay=0.0)
    got = _first_update(masked, self.params, self.grads)
    expected = _first_update(plain, self.params, self.grads)
    for k in self.params:
      np.testing.assert_allclose(got[k], expected[k], rtol=1e-6)

  def test_array_tree_and_parse_version(self):
    self.assertTrue(hasattr(optax, 'ArrayTree'))
    self.assertTrue(hasattr(utils, 'parse_version'))
    self.assertLess(utils.parse_version('0.9.2'), utils.parse_version('0.10.0'))

  def test_cosine_onecycle_error_names_its_schedule(self):
    with self.assertRaisesRegex(ValueError, 'cosine onecycle schedule'):
      optax.cosine_onecycle_schedule(0, 1.0)


if __name__ == '__main__':
  absltest.main()
