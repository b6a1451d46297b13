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
"""triplet_margin_loss measures distances with the p-norm for any degree.

The distance of a triplet is the ``norm_degree``-norm of the difference of
two embeddings, ``(sum |x - y|^p)^(1/p)``, as in PyTorch's
``TripletMarginLoss``. Upstream (0.2.8, main at 2edbcbe2) raised the
differences to the power without taking their absolute value: for an odd
degree the terms of opposite signs cancelled (the L1 distance of ``[0, 0]``
and ``[1, -1]`` was 0, not 2) and a negative sum gave a negative or NaN
distance, so that the loss of ``[0, 0]``, ``[1, -1]``, ``[-1, 0]`` with
``norm_degree=1`` was 0 instead of 2.
"""

from absl.testing import absltest
from absl.testing import parameterized
import jax.numpy as jnp
import numpy as np

from optax.losses import _self_supervised


class TripletMarginLossTest(parameterized.TestCase):

  @parameterized.parameters(1, 3)
  def test_odd_norm_degree_uses_absolute_differences(self, norm_degree):
    anchors = jnp.array([[0.0, 0.0]])
    positives = jnp.array([[1.0, -1.0]])
    negatives = jnp.array([[-1.0, 0.0]])
    loss = _self_supervised.triplet_margin_loss(
        anchors, positives, negatives, norm_degree=norm_degree, eps=0.0
    )
    positive_distance = 2.0 ** (1.0 / norm_degree)
    np.testing.assert_allclose(loss, [positive_distance - 1.0 + 1.0], rtol=1e-6)

  def test_fractional_norm_degree_uses_absolute_differences(self):
    anchors = jnp.array([[0.0, 1.0, -2.0]])
    positives = jnp.array([[0.5, -0.5, 0.0]])
    negatives = jnp.array([[-1.0, 1.0, -1.0]])
    loss = _self_supervised.triplet_margin_loss(
        anchors, positives, negatives, norm_degree=1.5, eps=0.0
    )

    def distance(x, y):
      return np.sum(np.abs(np.asarray(x) - np.asarray(y)) ** 1.5) ** (1 / 1.5)

    expected = max(
        distance(anchors, positives) - distance(anchors, negatives) + 1.0, 0.0
    )
    np.testing.assert_allclose(loss, [expected], rtol=1e-5)


if __name__ == '__main__':
  absltest.main()
