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
"""Forward-mode derivatives of safe_softmax_cross_entropy at -inf logits.

Upstream's custom JVP behind ``safe_softmax_cross_entropy`` (0.2.8, main at
2edbcbe2; pull request #1762) multiplied the tangent of the labels by
``log_softmax(logits)``, which is ``-inf`` at a ``-inf`` logit: the tangent of
the labels is zero when only the logits are differentiated, and ``0 * -inf``
made every forward-mode derivative NaN (``jax.jvp``, ``jax.jacfwd``), even
along a zero tangent, while reverse mode is finite. With logits ``(-inf, 0,
0)`` and labels ``(0, 1, 0)`` the loss is ``log 2``; its derivative along logit
1 is ``-(1 - 1/2) = -0.5`` and along label 2 it is ``-log(1/2) = log 2``. Class
0, masked out by its ``-inf`` logit and its zero label, takes no part in the
loss (``0 log 0 = 0``): the derivatives with respect to its logit and to its
label are 0, in both modes.
"""

from absl.testing import absltest
from absl.testing import parameterized
import jax
import jax.numpy as jnp
import numpy as np
from optax.losses import _classification


class SafeSoftmaxCrossEntropyJvpTest(parameterized.TestCase):

  def test_jvp_at_neg_inf_logit_is_finite(self):
    logits = jnp.array([-jnp.inf, 0.0, 0.0])
    labels = jnp.array([0.0, 1.0, 0.0])

    def loss_of_logits(x):
      return _classification.safe_softmax_cross_entropy(x, labels)

    def loss_of_labels(y):
      return _classification.safe_softmax_cross_entropy(logits, y)

    _, tangent = jax.jvp(loss_of_logits, (logits,), (jnp.zeros(3),))
    np.testing.assert_array_equal(tangent, 0.0)
    _, tangent = jax.jvp(
        loss_of_logits, (logits,), (jnp.array([0.0, 1.0, 0.0]),)
    )
    np.testing.assert_allclose(tangent, -0.5, rtol=1e-6)
    _, tangent = jax.jvp(
        loss_of_labels, (labels,), (jnp.array([0.0, 0.0, 1.0]),)
    )
    np.testing.assert_allclose(tangent, np.log(2.0), rtol=1e-6)
    # Forward and reverse mode agree.
    for mode in (jax.jacfwd, jax.grad):
      np.testing.assert_allclose(
          mode(loss_of_logits)(logits), [0.0, -0.5, 0.5], rtol=1e-6
      )
      np.testing.assert_allclose(
          mode(loss_of_labels)(labels),
          [0.0, np.log(2.0), np.log(2.0)],
          rtol=1e-6,
      )


if __name__ == '__main__':
  absltest.main()
