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
"""A callable pytree of labels shaped like the params is a tree.

An Equinox module is callable and is also a pytree: labels built from a
model with ``jax.tree.map`` are such a module. Upstream (0.2.8, main at
2edbcbe2) called any callable ``param_labels`` on the params, so a callable
pytree of labels raised. This
test registers a small dataclass with ``__call__`` in place of Equinox.
"""

import dataclasses

from absl.testing import absltest
from absl.testing import parameterized
import jax
import jax.numpy as jnp
import numpy as np
from optax._src import alias
from optax._src import base
from optax.transforms import _combining


class TreeOrFunctionCallablePytreesTest(parameterized.TestCase):

  def test_partition_labels_as_callable_pytree(self):

    @jax.tree_util.register_dataclass
    @dataclasses.dataclass
    class Linear:
      """A model that is a pytree and a function, as an Equinox module."""

      w: object
      b: object

      def __call__(self, x):
        return x @ self.w + self.b

    params = Linear(w=jnp.ones((2, 3)), b=jnp.ones(3))
    labels = Linear(w='train', b='frozen')
    tx = _combining.partition(
        {'train': alias.sgd(1.0), 'frozen': base.set_to_zero()}, labels
    )
    grads = Linear(w=jnp.full((2, 3), 0.5), b=jnp.full(3, 0.5))
    updates, _ = tx.update(grads, tx.init(params), params)
    np.testing.assert_array_equal(updates.w, np.full((2, 3), -0.5))
    np.testing.assert_array_equal(updates.b, np.zeros(3))


if __name__ == '__main__':
  absltest.main()
