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
"""Oracle tests of contrib's step-size-free optimizers (issue 41).

COCOB, D-Adaptation, DoG, DoWG, Prodigy, Mechanic, MoMo and MoMo-Adam run
four steps beside their float64 NumPy references
(``optax._src.testing.reference_step_size_free``, written from the papers'
algorithms, the authors' code and the docstrings), on a tree of two leaves
whose params follow the updates: in float64 (x64, restored afterwards) on
random gradients, a steady drift (along which the distance estimates of
D-Adaptation, Prodigy, DoG and DoWG grow), zeros, sign flips with ties and
zero entries, and tiny and huge magnitudes; in float32 on random gradients
and the drift. Every documented
option has a case of its own.
"""

import functools

from absl.testing import absltest
from absl.testing import parameterized
import jax
import jax.numpy as jnp
import numpy as np

import optax
from optax import contrib
from optax._src import utils
from optax._src.testing import reference_step_size_free as ref

_STEPS = 4
_X0 = np.array([0.5, -1.0, 0.25, 2.0, -0.75, 1.5])
_KINDS = ('random', 'drift', 'zeros', 'flips', 'tiny', 'huge')


def _to_tree(flat, dtype):
  flat = jnp.asarray(flat, dtype)
  return {'a': flat[:2], 'b': flat[2:].reshape(2, 2)}


def _ravel(tree):
  return np.concatenate(
      [np.asarray(x, np.float64).ravel() for x in jax.tree.leaves(tree)])


def _grads(kind):
  rng = np.random.default_rng(0)
  normal = [rng.normal(size=_X0.shape) for _ in range(_STEPS)]
  if kind == 'zeros':
    return [np.zeros(_X0.shape)] * _STEPS
  if kind == 'flips':
    base = np.array([1.0, -1.0, 0.0, 1.0, -1.0, 0.0])
    return [base * (-1.0) ** t for t in range(_STEPS)]
  if kind == 'drift':  # A steady descent direction: the estimates grow.
    return [normal[0] + 0.1 * g for g in normal]
  if kind == 'tiny':
    return [1e-30 * g for g in normal]
  if kind == 'huge':
    return [1e30 * g for g in normal]
  return normal


def _values(kind):
  rng = np.random.default_rng(1)
  scale = {'tiny': 1e-30, 'huge': 1e30}.get(kind, 1.0)
  return [scale * v for v in rng.uniform(0.5, 2.0, size=_STEPS)]


def _run(tx, grads, values, dtype, x0):
  """The updates of ``tx``'s steps, the params following them, raveled.

  ``grads`` and ``values`` hold one sequence of steps per run; the runs go
  through ``jax.vmap`` together (each its own state), in one compiled step.

  Args:
    tx: the optimizer.
    grads: per run, the gradients of the steps (flat arrays).
    values: per run, the loss values of the steps (None: not read).
    dtype: the dtype of the params, gradients and loss values.
    x0: the initial params (flat).

  Returns:
    Per run, the list of the steps' updates, raveled, in float64.
  """
  runs = len(grads)
  params = jax.vmap(lambda _: _to_tree(x0, dtype))(jnp.arange(runs))
  state = jax.vmap(tx.init)(params)
  step = jax.jit(jax.vmap(tx.update))
  out = [[] for _ in range(runs)]
  for t in range(_STEPS):
    g = jax.vmap(functools.partial(_to_tree, dtype=dtype))(
        jnp.asarray(np.stack([run[t] for run in grads]), dtype))
    if values[0] is None:
      u, state = step(g, state, params)
    else:
      f = jnp.asarray([run[t] for run in values], dtype)
      u, state = step(g, state, params, value=f)
    for leaf in jax.tree.leaves(u):
      assert leaf.dtype == jnp.dtype(dtype), (leaf.dtype, dtype)
    for i in range(runs):
      out[i].append(_ravel(jax.tree.map(lambda x, i=i: x[i], u)))
    params = jax.tree.map(lambda p, v: p + v, params, u)
  return out


def _sgd_base(g, k):
  del k
  return -0.1 * g


def _halving(k):
  return 0.5 ** k


# name: (optimizer factory, reference(grads, values, x0), reads the loss)
CASES = {
    'scale_by_cocob': (
        lambda: contrib.scale_by_cocob(),
        lambda g, f, x: ref.cocob(g, x), False),
    'cocob_options': (
        lambda: contrib.cocob(learning_rate=_halving, alpha=2.0, eps=0.1,
                              weight_decay=0.1),
        lambda g, f, x: ref.cocob(g, x, alpha=2.0, eps=0.1, lr=_halving,
                                  weight_decay=0.1), False),
    'dog': (
        lambda: contrib.dog(),
        lambda g, f, x: ref.dog(g, x), False),
    'dog_distance_eps_lr': (
        lambda: contrib.dog(learning_rate=0.5, init_step=('distance', 0.3),
                            eps=0.01),
        lambda g, f, x: ref.dog(g, x, ('distance', 0.3), eps=0.01, lr=0.5),
        False),
    'dog_learning_rate_decay': (
        lambda: contrib.dog(init_step=('learning_rate', 0.2),
                            weight_decay=0.1),
        lambda g, f, x: ref.dog(g, x, ('learning_rate', 0.2),
                                weight_decay=0.1), False),
    'dowg': (
        lambda: contrib.dowg(),
        lambda g, f, x: ref.dowg(g, x), False),
    'dowg_options': (
        lambda: contrib.dowg(learning_rate=_halving, init_estim_sq_dist=0.5,
                             eps=1e-3, weight_decay=0.1),
        lambda g, f, x: ref.dowg(g, x, 0.5, eps=1e-3, lr=_halving,
                                 weight_decay=0.1), False),
    'dadapt_adamw': (
        lambda: contrib.dadapt_adamw(),
        lambda g, f, x: ref.dadapt_adamw(g, x), False),
    'dadapt_adamw_options': (
        lambda: contrib.dadapt_adamw(learning_rate=_halving,
                                     betas=(0.5, 0.8), eps=0.01,
                                     estim_lr0=1e-3, weight_decay=0.1),
        lambda g, f, x: ref.dadapt_adamw(g, x, lr=_halving, betas=(0.5, 0.8),
                                         eps=0.01, d0=1e-3,
                                         weight_decay=0.1), False),
    'prodigy': (
        lambda: contrib.prodigy(),
        lambda g, f, x: ref.prodigy(g, x), False),
    'prodigy_options': (
        lambda: contrib.prodigy(learning_rate=_halving, betas=(0.5, 0.8),
                                beta3=0.7, eps=0.05, estim_lr0=1e-3,
                                estim_lr_coef=10.0, weight_decay=0.1,
                                safeguard_warmup=True,
                                weight_decay_mask={'a': False, 'b': True}),
        lambda g, f, x: ref.prodigy(g, x, lr=_halving, betas=(0.5, 0.8),
                                    beta3=0.7, eps=0.05, d0=1e-3, coef=10.0,
                                    weight_decay=0.1, safeguard_warmup=True,
                                    decay_mask=np.arange(6) >= 2), False),
    'mechanize': (
        lambda: contrib.mechanize(optax.sgd(0.1), s_init=0.01),
        lambda g, f, x: ref.mechanize(g, x, _sgd_base, s_init=0.01), False),
    'mechanize_options': (
        lambda: contrib.mechanize(optax.sgd(0.1), weight_decay=0.5, eps=1e-3,
                                  s_init=0.1, num_betas=3),
        lambda g, f, x: ref.mechanize(g, x, _sgd_base, weight_decay=0.5,
                                      eps=1e-3, s_init=0.1, num_betas=3),
        False),
    'momo': (
        lambda: contrib.momo(),
        lambda g, f, x: ref.momo(g, f, x), True),
    'momo_options': (
        lambda: contrib.momo(learning_rate=_halving, beta=0.5,
                             lower_bound=0.2, weight_decay=0.5),
        lambda g, f, x: ref.momo(g, f, x, lr=_halving, beta=0.5,
                                 lower_bound=0.2, weight_decay=0.5), True),
    'momo_adapt_decay': (
        lambda: contrib.momo(learning_rate=3.0, weight_decay=0.5,
                             lower_bound=-1.0, adapt_lower_bound=True),
        lambda g, f, x: ref.momo(g, f, x, lr=3.0, weight_decay=0.5,
                                 lower_bound=-1.0, adapt_lower_bound=True),
        True),
    'momo_adam': (
        lambda: contrib.momo_adam(),
        lambda g, f, x: ref.momo_adam(g, f, x), True),
    'momo_adam_options': (
        lambda: contrib.momo_adam(learning_rate=_halving, b1=0.5, b2=0.8,
                                  eps=0.01, lower_bound=0.2,
                                  weight_decay=0.5),
        lambda g, f, x: ref.momo_adam(g, f, x, lr=_halving, b1=0.5, b2=0.8,
                                      eps=0.01, lower_bound=0.2,
                                      weight_decay=0.5), True),
    'momo_adam_adapt_decay': (
        lambda: contrib.momo_adam(learning_rate=3.0, weight_decay=0.5,
                                  lower_bound=-1.0, adapt_lower_bound=True),
        lambda g, f, x: ref.momo_adam(g, f, x, lr=3.0, weight_decay=0.5,
                                      lower_bound=-1.0,
                                      adapt_lower_bound=True), True),
}


# One case per public name in float32 (the options are checked in float64).
FLOAT32_CASES = ('scale_by_cocob', 'cocob_options', 'dog', 'dowg',
                 'dadapt_adamw', 'prodigy', 'mechanize', 'momo', 'momo_adam')


def _assert_close(got, want, rtol):
  for t, (x, y) in enumerate(zip(got, want)):
    np.testing.assert_allclose(x, y, rtol=rtol,
                               atol=rtol * np.max(np.abs(y)),
                               err_msg=f'step {t + 1}')


def _check(name, kinds, dtype, rtol, x0):
  make, oracle, reads_loss = CASES[name]
  grads = [_grads(kind) for kind in kinds]
  values = [_values(kind) if reads_loss else None for kind in kinds]
  got = _run(make(), grads, values, dtype, x0)
  for kind, g, f, run in zip(kinds, grads, values, got):
    try:
      _assert_close(run, oracle(g, f, x0), rtol)
    except AssertionError as e:
      raise AssertionError(f'{name}, {kind} gradients: {e}') from None


class StepSizeFreeOracleTest(parameterized.TestCase):

  @parameterized.named_parameters(*[(n, n) for n in sorted(CASES)])
  def test_float64(self, name):
    with utils.x64_precision(True):
      _check(name, _KINDS, jnp.float64, rtol=1e-9, x0=_X0)

  @parameterized.named_parameters(*[(n, n) for n in FLOAT32_CASES])
  def test_float32(self, name):
    # From zero params: a float32 displacement from nonzero params loses the
    # digits that the distance-based rules (DoG, Mechanic's Delta) divide by.
    _check(name, ('random', 'drift'), jnp.float32, rtol=2e-5,
           x0=np.zeros_like(_X0))


if __name__ == '__main__':
  absltest.main()
