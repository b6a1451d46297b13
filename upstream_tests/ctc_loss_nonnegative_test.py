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
"""ctc_loss is never negative.

The CTC loss is ``-log p(labels | logits)`` for a probability ``p <= 1``: never
below 0. For a near-certain alignment the float32 rounding of the forward
recursion leaves the final log-probability slightly above 0, and upstream
(0.2.8, main at 2edbcbe2; issue #1771) returned a negative loss. Two frames
over the classes (blank, a), with logits ``(0, margin)`` at each frame, give
the blank the probability ``s = 1 / (1 + exp(margin))``; the paths (a, a),
(blank, a) and (a, blank) give "a", together ``1 - s ** 2``, so the loss is
``-log1p(-s ** 2)`` (``1.7e-15`` for ``margin = 17``). Upstream returned
``-8.3e-8`` there (the value of the issue), ``-3.0e-8`` for 18 and ``-4.1e-9``
for 20.
"""

from absl.testing import absltest
from absl.testing import parameterized
import jax
import jax.numpy as jnp
import numpy as np
from optax.losses import _classification


class CTCLossNonnegativeTest(parameterized.TestCase):

  @parameterized.product(margin=[17.0, 18.0, 20.0], jit=[False, True])
  def test_confident_alignment_is_nonnegative(self, margin, jit):
    logits = jnp.array([[[0.0, margin], [0.0, margin]]], jnp.float32)
    args = (
        logits,
        jnp.zeros((1, 2)),
        jnp.array([[1]], jnp.int32),
        jnp.zeros((1, 1)),
    )
    s = 1.0 / (1.0 + np.exp(margin))
    expected = -np.log1p(-s * s)
    ctc_loss = _classification.ctc_loss
    ctc_loss_with_forward_probs = _classification.ctc_loss_with_forward_probs
    if jit:
      ctc_loss = jax.jit(ctc_loss)
      ctc_loss_with_forward_probs = jax.jit(ctc_loss_with_forward_probs)
    for loss in (ctc_loss(*args), ctc_loss_with_forward_probs(*args)[0]):
      self.assertGreaterEqual(float(loss[0]), 0.0)
      np.testing.assert_allclose(loss, [expected], atol=1e-7)


if __name__ == '__main__':
  absltest.main()
