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
"""Oracle tests of the contrib optimizers (issue 41).

Each optimizer runs four steps beside its float64 NumPy reference
(``optax._src.testing.reference_optimizers``, written from the paper's
algorithm and, where the docstring follows it, the authors' reference code),
in float64 (x64, restored afterwards) on random gradients, zeros and sign
flips, and in float32 on random gradients.
"""


from absl.testing import absltest
from absl.testing import parameterized
import jax.numpy as jnp
import numpy as np

from optax import contrib
from optax._src import utils
from optax._src.testing import reference_optimizers as ref

_SHAPE = (6,)


def _grads(kind):
  rng = np.random.default_rng(0)
  normal = [rng.normal(size=_SHAPE) for _ in range(4)]
  if kind == 'zeros':
    return [np.zeros(_SHAPE)] * 4
  if kind == 'flips':
    base = np.array([1.0, -1.0, 0.0, 2.0, -0.5, 0.0])
    return [base * (-1.0) ** t for t in range(4)]
  return normal


def _run(tx, grads, dtype, follow_params=False):
  params = jnp.asarray(np.linspace(-1.0, 1.0, _SHAPE[0]), dtype)
  state = tx.init(params)
  out = []
  for g in grads:
    u, state = tx.update(jnp.asarray(g, dtype), state, params)
    assert u.dtype == jnp.dtype(dtype), (u.dtype, dtype)
    out.append(np.asarray(u, np.float64))
    if follow_params:  # MADGRAD reads the params it moved.
      params = params + u
  return out


def _x0():
  return np.linspace(-1.0, 1.0, _SHAPE[0])


CASES = {
    'adopt': (lambda: contrib.scale_by_adopt(b2=0.9),
              lambda g: ref.adopt(g, b2=0.9), False),
    'adopt_nesterov_no_clip': (
        lambda: contrib.scale_by_adopt(b2=0.9, nesterov=True,
                                       use_clipping=False),
        lambda g: ref.adopt(g, b2=0.9, nesterov=True, use_clipping=False),
        False),
    'ademamix': (lambda: contrib.scale_by_ademamix(b3=0.9, alpha=2.0),
                 lambda g: ref.ademamix(g, b3=0.9, alpha=2.0), False),
    'simplified_ademamix': (
        lambda: contrib.scale_by_simplified_ademamix(alpha=1.5),
        lambda g: ref.simplified_ademamix(g, alpha=1.5), False),
    'acprop': (lambda: contrib.scale_by_acprop(b2=0.5),
               lambda g: ref.acprop(g, b2=0.5), False),
    'madgrad': (lambda: contrib.scale_by_madgrad(0.1),
                lambda g: ref.madgrad(g, _x0(), 0.1), True),
}


def _assert_close(got, want, rtol):
  for t, (x, y) in enumerate(zip(got, want)):
    np.testing.assert_allclose(x, y, rtol=rtol,
                               atol=rtol * np.max(np.abs(y)),
                               err_msg=f'step {t + 1}')


class ContribOracleTest(parameterized.TestCase):

  @parameterized.named_parameters(*[(n, n) for n in sorted(CASES)])
  def test_float64(self, name):
    make, oracle, follow = CASES[name]
    with utils.x64_precision(True):
      tx = make()
      for kind in ('random', 'zeros', 'flips'):
        grads = _grads(kind)
        with self.subTest(kind):
          _assert_close(_run(tx, grads, jnp.float64, follow), oracle(grads),
                        rtol=1e-9)

  @parameterized.named_parameters(*[(n, n) for n in sorted(CASES)])
  def test_float32(self, name):
    make, oracle, follow = CASES[name]
    grads = _grads('random')
    _assert_close(_run(make(), grads, jnp.float32, follow), oracle(grads),
                  rtol=2e-5)



class IdentityTest(absltest.TestCase):

  def test_hutchinson_is_exact_for_a_diagonal_hessian(self):
    # E[z * (H z)] = diag(H) (Bekas et al. 2007); for a diagonal H and
    # Rademacher z, z * (H z) = z ** 2 diag(H) = diag(H) for every draw.
    h = np.array([1.0, -3.0, 0.5, 4.0])
    obj_fn = lambda x: 0.5 * jnp.sum(jnp.asarray(h, jnp.float32) * x ** 2)
    params = jnp.asarray([0.3, -1.0, 2.0, 0.0], jnp.float32)
    for seed in (0, 1, 2):
      est = contrib.hutchinson_estimator_diag_hessian(random_seed=seed)
      diag, _ = est.update(None, est.init(params), params, obj_fn=obj_fn)
      np.testing.assert_allclose(diag, h, rtol=1e-6)

  def test_schedule_free_eval_params_inverts_the_interpolation(self):
    # y = (1 - b1) z + b1 x, so x = (y - (1 - b1) z) / b1 (Defazio et al.
    # 2024, eq. (1)); b1 = 0.9 and the state's z after three steps.
    tx = contrib.schedule_free_sgd(learning_rate=0.5, b1=0.9)
    params = jnp.asarray([1.0, -2.0, 0.5], jnp.float32)
    state = tx.init(params)
    rng = np.random.default_rng(3)
    for _ in range(3):
      g = jnp.asarray(rng.normal(size=3), jnp.float32)
      updates, state = tx.update(g, state, params)
      params = params + updates
    z = np.asarray(state.z, np.float64)
    y = np.asarray(params, np.float64)
    want = (y - 0.1 * z) / 0.9
    np.testing.assert_allclose(
        contrib.schedule_free_eval_params(state, params), want, rtol=1e-5,
        atol=1e-6)


if __name__ == '__main__':
  absltest.main()
