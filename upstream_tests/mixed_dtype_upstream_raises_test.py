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
"""Optimizers that upstream 0.2.8 cannot run on mixed float32/bfloat16 params.

``contrib.mechanize`` (``lax.clamp``), ``contrib.sophia`` (``jvp``),
``contrib.momo(adapt_lower_bound=True)`` (``cond``) and
``inject_hyperparams(clip_by_global_norm)`` (``select``) raise a dtype
mismatch ``TypeError`` on a tree holding both dtypes. Their first updates
should be those of the same params in float32, to bfloat16 precision. (The
dtype of the updates is not checked here: momo's are float32 for a bfloat16
leaf also without ``adapt_lower_bound``.)
"""

from absl.testing import absltest
from absl.testing import parameterized
import jax
import jax.numpy as jnp
from optax import contrib
from optax._src import alias
from optax.schedules import _inject
from optax.transforms import _clipping
from optax._src import test_utils


def _loss(params):
  return sum(
      jnp.sum(x.astype(jnp.float32) ** 2) for x in jax.tree.leaves(params)
  )


class MixedDtypeParamsTest(parameterized.TestCase):

  @parameterized.named_parameters(
      ('mechanize', lambda: contrib.mechanize(alias.adam(1e-2)), {}),
      ('sophia', lambda: contrib.sophia(1e-2), {'obj_fn': _loss}),
      (
          'momo_adapt_lower_bound',
          lambda: contrib.momo(adapt_lower_bound=True),
          {'value': jnp.float32(1.0)},
      ),
      (
          'inject_clip_by_global_norm',
          lambda: _inject.inject_hyperparams(_clipping.clip_by_global_norm)(
              0.1
          ),
          {},
      ),
  )
  def test_mixed_params_like_float32_params(self, make, extra):
    values = {
        'w': jnp.array([0.3, -0.2, 0.1], jnp.float32),
        'b': jnp.array([0.3, -0.2, 0.1], jnp.float32),
    }
    grads = {
        'w': jnp.array([0.5, -0.25, 0.125], jnp.float32),
        'b': jnp.array([0.5, -0.25, 0.125], jnp.float32),
    }
    dtypes = {'w': jnp.float32, 'b': jnp.bfloat16}

    def first_update(dtypes):
      params = {k: jnp.asarray(v, dtypes[k]) for k, v in values.items()}
      g = {k: jnp.asarray(v, dtypes[k]) for k, v in grads.items()}
      tx = make()
      updates, _ = tx.update(g, tx.init(params), params, **extra)
      return updates

    expected = first_update({'w': jnp.float32, 'b': jnp.float32})
    got = first_update(dtypes)
    for k in values:
      test_utils.assert_trees_all_close(
          got[k].astype(jnp.float32), expected[k], rtol=1e-2, atol=1e-6
      )


if __name__ == '__main__':
  absltest.main()
