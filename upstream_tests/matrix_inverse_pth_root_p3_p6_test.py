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
"""matrix_inverse_pth_root for p other than 1, 2, 4 and 8.

The coupled Newton iteration raises a matrix to the power ``p`` in every step.
Upstream (0.2.8, main at 2edbcbe2; pull request #1735) took that power as ``2
** round(log2(p))``: ``p = 3`` was computed with the power 4, ``p = 6`` with 8,
and the iteration converged to another matrix than ``matrix ** (-1/p)``
(several percent off) while the error it returned was tiny. The matrix here is
``Q diag(1, 1.5 ** p, 2 ** p) Q^T`` for the Householder reflection ``Q = I -
(2/3) 1 1^T``, so its inverse p-th root is ``Q diag(1, 1/1.5, 1/2) Q^T``.
"""

from absl.testing import absltest
from absl.testing import parameterized
import jax.numpy as jnp
import numpy as np
from optax._src import linear_algebra


class MatrixInversePthRootTest(parameterized.TestCase):

  @parameterized.parameters(3, 5, 6, 7, 12)
  def test_matrix_inverse_pth_root_any_p(self, p):
    reflection = np.eye(3) - 2.0 / 3.0 * np.ones((3, 3))
    eigenvalues = np.array([1.0, 1.5, 2.0])
    matrix = reflection @ np.diag(eigenvalues**p) @ reflection
    expected = reflection @ np.diag(1.0 / eigenvalues) @ reflection
    root, error = linear_algebra.matrix_inverse_pth_root(
        jnp.asarray(matrix, jnp.float32), p, ridge_epsilon=0.0
    )
    self.assertLess(float(error), 1e-5)
    np.testing.assert_allclose(root, expected, atol=1e-4)


if __name__ == '__main__':
  absltest.main()
