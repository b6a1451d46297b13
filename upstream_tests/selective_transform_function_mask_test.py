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
"""selective_transform calls a ``freeze_mask`` function on the params.

Upstream 0.2.8 takes the function as one truthy leaf standing for the whole
tree: every parameter is frozen, whatever the function returns.
"""

from absl.testing import absltest
from absl.testing import parameterized
import jax.numpy as jnp
import numpy as np
from optax._src import alias
from optax.transforms import _freezing


class SelectiveTransformFunctionMaskTest(parameterized.TestCase):

  def test_freeze_mask_function(self):
    params = {"a": jnp.ones(2), "b": jnp.ones(2)}
    tx = _freezing.selective_transform(
        alias.sgd(1.0), freeze_mask=lambda p: {"a": True, "b": False}
    )
    grads = {"a": jnp.full(2, 0.5), "b": jnp.full(2, 0.5)}
    updates, _ = tx.update(grads, tx.init(params), params)
    np.testing.assert_array_equal(updates["a"], [0.0, 0.0])
    np.testing.assert_array_equal(updates["b"], [-0.5, -0.5])


if __name__ == "__main__":
  absltest.main()
