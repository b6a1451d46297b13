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
"""Oracle tests of the optimizers and ``scale_by_*`` transforms (issue 41).

Each case runs four steps of an optimizer and of its float64 NumPy reference
(``optax._src.testing.reference_optimizers``, written from the paper or the
docstring's maths, never from an implementation) on the same gradients and
params, and compares the updates:

* random gradients in float32 (rtol 2e-5 of the largest update);
* the same and the edges in float64 (x64, restored afterwards), tight: zero
  gradients, gradients of 1e-30 and of 1e30 in size, sign flips and ties
  (``[1, -1, 0, ...]``), for the rules whose maths stays finite there.

Every documented flag that changes the rule has a case of its own
(``nesterov``, ``centered``, ``eps_in_sqrt``, ``bias_correction``,
``momentum``, weight decay and its mask, ...).
"""

import functools

from absl.testing import absltest
from absl.testing import parameterized
import jax.numpy as jnp
import numpy as np

from optax._src import alias
from optax._src import transform
from optax._src import utils
from optax._src.testing import reference_optimizers as ref

_STEPS = 4
_SHAPE = (6,)


def _grads(kind: str, seed: int = 0, steps: int = _STEPS
           ) -> list[np.ndarray]:
  """The gradients of the steps: random or an edge."""
  rng = np.random.default_rng(seed)
  normal = [rng.normal(size=_SHAPE) for _ in range(steps)]
  if kind == 'random':
    return normal
  if kind == 'zeros':
    return [np.zeros(_SHAPE) for _ in range(steps)]
  if kind == 'tiny':
    return [1e-30 * g for g in normal]
  if kind == 'huge':
    return [1e30 * g for g in normal]
  if kind == 'flips':
    base = np.array([1.0, -1.0, 0.0, 2.0, -0.5, 0.0])
    return [base * (-1.0) ** t for t in range(steps)]
  if kind == 'zero_then_random':
    return [np.zeros(_SHAPE)] + normal[1:]
  raise ValueError(kind)


def _params(seed: int = 1, steps: int = _STEPS) -> list[np.ndarray]:
  rng = np.random.default_rng(seed)
  return [rng.normal(size=_SHAPE) for _ in range(steps)]


def _run(tx, grads, params, dtype, values=None):
  """The optimizer's updates on ``grads`` (params given at each step)."""
  update = tx.update  # Eager: four small steps cost less than a compile.
  state = tx.init(jnp.asarray(params[0], dtype))
  out = []
  for t, g in enumerate(grads):
    extra = {} if values is None else {'value': jnp.asarray(values[t], dtype)}
    u, state = update(jnp.asarray(g, dtype), state,
                      jnp.asarray(params[t], dtype), **extra)
    assert u.dtype == jnp.dtype(dtype), (u.dtype, dtype)
    out.append(np.asarray(u, np.float64))
  return out


def _assert_close(got, want, rtol):
  for t, (x, y) in enumerate(zip(got, want)):
    scale = np.max(np.abs(y))
    np.testing.assert_allclose(
        x, y, rtol=rtol, atol=rtol * scale, err_msg=f'step {t + 1}')


_LR = 0.1

# name -> (fork optimizer, reference(grads, params, values), edges). The
# edges are those where the rule's maths is finite (tiny and huge gradients
# squared overflow or underflow nothing in float64 only for the rules listed
# with them).
_SCALE_FREE = ('zeros', 'tiny', 'huge', 'flips', 'zero_then_random')
_SQUARED = ('zeros', 'flips', 'zero_then_random')

CASES = {
    'sgd': (lambda: alias.sgd(_LR),
            lambda g, p, v: ref.sgd(g, _LR), _SCALE_FREE),
    'sgd_momentum': (lambda: alias.sgd(_LR, momentum=0.9),
                     lambda g, p, v: ref.sgd(g, _LR, 0.9), _SCALE_FREE),
    'sgd_nesterov': (lambda: alias.sgd(_LR, momentum=0.9, nesterov=True),
                     lambda g, p, v: ref.sgd(g, _LR, 0.9, True),
                     _SCALE_FREE),
    'adam': (lambda: alias.adam(_LR),
             lambda g, p, v: ref.adam(g, _LR), _SQUARED),
    'adam_eps_root': (lambda: alias.adam(_LR, eps=1e-3, eps_root=1e-2),
                      lambda g, p, v: ref.adam(g, _LR, eps=1e-3,
                                               eps_root=1e-2), _SQUARED),
    'nadam': (lambda: alias.nadam(_LR),
              lambda g, p, v: ref.adam(g, _LR, nesterov=True), _SQUARED),
    'adamw': (lambda: alias.adamw(_LR, weight_decay=0.3),
              lambda g, p, v: ref.adam(g, _LR, weight_decay=0.3, params=p),
              _SQUARED),
    'nadamw': (lambda: alias.nadamw(_LR, weight_decay=0.3),
               lambda g, p, v: ref.adam(g, _LR, nesterov=True,
                                        weight_decay=0.3, params=p),
               _SQUARED),
    'scale_by_adam': (lambda: transform.scale_by_adam(b1=0.5, b2=0.75),
                      lambda g, p, v: ref.adam(g, -1.0, 0.5, 0.75),
                      _SQUARED),
    'adamax': (lambda: alias.adamax(_LR),
               lambda g, p, v: ref.adamax(g, _LR), _SCALE_FREE),
    'adamaxw': (lambda: alias.adamaxw(_LR, weight_decay=0.2),
                lambda g, p, v: ref.adamax(g, _LR, weight_decay=0.2,
                                           params=p), _SCALE_FREE),
    'amsgrad': (lambda: alias.amsgrad(_LR),
                lambda g, p, v: ref.amsgrad(g, _LR), _SQUARED),
    'adagrad': (lambda: alias.adagrad(_LR),
                lambda g, p, v: ref.adagrad(g, _LR), _SQUARED),
    'adagrad_zero_initial': (
        lambda: alias.adagrad(_LR, initial_accumulator_value=0.0, eps=0.0),
        lambda g, p, v: ref.adagrad(g, _LR, 0.0, 0.0), _SCALE_FREE),
    'rmsprop': (lambda: alias.rmsprop(_LR),
                lambda g, p, v: ref.rmsprop(g, _LR), _SQUARED),
    'rmsprop_eps_outside': (
        lambda: alias.rmsprop(_LR, eps_in_sqrt=False, initial_scale=0.5),
        lambda g, p, v: ref.rmsprop(g, _LR, eps_in_sqrt=False,
                                    initial_scale=0.5), _SQUARED),
    'rmsprop_centered': (
        lambda: alias.rmsprop(_LR, centered=True, eps=1e-4),
        lambda g, p, v: ref.rmsprop(g, _LR, eps=1e-4, centered=True),
        _SQUARED),
    'rmsprop_bias_corrected': (
        lambda: alias.rmsprop(_LR, bias_correction=True, decay=0.8),
        lambda g, p, v: ref.rmsprop(g, _LR, decay=0.8, bias_correction=True),
        _SQUARED),
    'rmsprop_momentum': (
        lambda: alias.rmsprop(_LR, momentum=0.5, nesterov=True),
        lambda g, p, v: ref.rmsprop(g, _LR, momentum=0.5, nesterov=True),
        _SQUARED),
    'adabelief': (lambda: alias.adabelief(_LR),
                  lambda g, p, v: ref.adabelief(g, _LR), _SQUARED),
    'yogi': (lambda: alias.yogi(_LR),
             lambda g, p, v: ref.yogi(g, _LR), _SQUARED),
    'lion': (lambda: alias.lion(_LR, weight_decay=0.0),
             lambda g, p, v: ref.lion(g, _LR), _SCALE_FREE),
    'lion_weight_decay': (
        lambda: alias.lion(_LR, weight_decay=0.5),
        lambda g, p, v: ref.lion(g, _LR, weight_decay=0.5, params=p),
        _SCALE_FREE),
    'sign_sgd': (lambda: alias.sign_sgd(_LR),
                 lambda g, p, v: ref.signum(g, _LR, None), _SCALE_FREE),
    'signum': (lambda: alias.signum(_LR),
               lambda g, p, v: ref.signum(g, _LR, 0.9), _SCALE_FREE),
    'adadelta': (lambda: alias.adadelta(_LR),
                 lambda g, p, v: ref.adadelta(g, _LR), _SQUARED),
    'radam': (lambda: alias.radam(_LR),
              lambda g, p, v: ref.radam(g, _LR), _SQUARED),
    'novograd': (lambda: alias.novograd(_LR),
                 lambda g, p, v: ref.novograd(g, _LR), _SQUARED),
    'novograd_weight_decay': (
        lambda: alias.novograd(_LR, weight_decay=0.3),
        lambda g, p, v: ref.novograd(g, _LR, weight_decay=0.3, params=p),
        _SQUARED),
    'lamb': (lambda: alias.lamb(_LR, weight_decay=0.1),
             lambda g, p, v: ref.lamb(g, p, _LR, weight_decay=0.1),
             _SQUARED),
    'fromage': (lambda: alias.fromage(_LR),
                lambda g, p, v: ref.fromage(g, p, _LR), _SCALE_FREE),
    'optimistic_gradient_descent': (
        lambda: alias.optimistic_gradient_descent(_LR, alpha=0.7, beta=0.4),
        lambda g, p, v: ref.optimistic_gradient(g, _LR, 0.7, 0.4),
        _SCALE_FREE),
    'rprop': (lambda: alias.rprop(_LR),
              lambda g, p, v: ref.rprop(g, _LR), _SCALE_FREE),
    'sm3': (lambda: alias.sm3(_LR),
            lambda g, p, v: ref.sm3(g, _LR), _SQUARED),
}

_VALUES = [3.0, 1.5, 0.75, 0.3]
_NEEDS_VALUE = ('polyak_sgd',)


class OptimizerOracleTest(parameterized.TestCase):
  """Each optimizer against its float64 reference."""

  @parameterized.named_parameters(*[(n, n) for n in sorted(CASES)])
  def test_random_gradients_float32(self, name):
    make, oracle, _ = CASES[name]
    grads, params = _grads('random'), _params()
    values = _VALUES if name in _NEEDS_VALUE else None
    got = _run(make(), grads, params, jnp.float32, values)
    _assert_close(got, oracle(grads, params, _VALUES), rtol=2e-5)

  @parameterized.named_parameters(*[(n, n) for n in sorted(CASES)])
  def test_random_and_edges_float64(self, name):
    make, oracle, edges = CASES[name]
    params = _params()
    values = _VALUES if name in _NEEDS_VALUE else None
    with utils.x64_precision(True):
      tx = make()
      for kind in ('random',) + tuple(edges):
        grads = _grads(kind)
        want = oracle(grads, params, _VALUES)
        self.assertTrue(all(np.all(np.isfinite(w)) for w in want), kind)
        got = _run(tx, grads, params, jnp.float64, values)
        with self.subTest(kind):
          _assert_close(got, want, rtol=1e-9)


class RadamRectificationTest(parameterized.TestCase):

  def test_both_branches_float64(self):
    # b2 = 0.7: rho_inf = 17 / 3; rho_t reaches the threshold 5 at t = 10,
    # so twelve steps take the unrectified branch, then the rectified one.
    steps = 12
    grads, params = _grads('random', steps=steps), _params(steps=steps)
    with utils.x64_precision(True):
      got = _run(alias.radam(_LR, b2=0.7), grads, params, jnp.float64)
    _assert_close(got, ref.radam(grads, _LR, b2=0.7), rtol=1e-9)


class PolyakTest(parameterized.TestCase):

  @parameterized.parameters(('random',), ('flips',), ('zeros',))
  def test_polyak_sgd_float64(self, kind):
    # min((f - f*) / (||g||^2 + eps), max_lr) g; a zero gradient gives 0.
    grads, params = _grads(kind), _params()
    with utils.x64_precision(True):
      tx = alias.polyak_sgd(max_learning_rate=2.0, f_min=0.25, eps=1e-3)
      got = _run(tx, grads, params, jnp.float64, _VALUES)
    _assert_close(got, ref.polyak_sgd(grads, _VALUES, 2.0, 0.25, 1e-3),
                  rtol=1e-9)


class ScaleByTest(parameterized.TestCase):
  """The ``scale_by_*`` transforms of the aliases, alone."""

  @parameterized.named_parameters(
      ('adamax', functools.partial(transform.scale_by_adamax, b1=0.5),
       functools.partial(ref.adamax, lr=-1.0, b1=0.5)),
      ('rms', functools.partial(transform.scale_by_rms, decay=0.5),
       functools.partial(ref.rmsprop, lr=-1.0, decay=0.5)),
      ('stddev', functools.partial(transform.scale_by_stddev, eps=1e-3),
       functools.partial(ref.rmsprop, lr=-1.0, eps=1e-3, centered=True)),
      ('rss', transform.scale_by_rss, functools.partial(ref.adagrad, lr=-1.0)),
      ('belief', transform.scale_by_belief,
       functools.partial(ref.adabelief, lr=-1.0)),
      ('yogi', transform.scale_by_yogi, functools.partial(ref.yogi, lr=-1.0)),
      ('sign', transform.scale_by_sign,
       functools.partial(ref.signum, lr=-1.0, beta=None)),
      ('lion', functools.partial(transform.scale_by_lion, b1=0.5),
       functools.partial(ref.lion, lr=-1.0, b1=0.5)),
      ('adadelta', transform.scale_by_adadelta,
       functools.partial(ref.adadelta, lr=-1.0)),
      ('optimistic', transform.scale_by_optimistic_gradient,
       functools.partial(ref.optimistic_gradient, lr=-1.0)),
      ('amsgrad', transform.scale_by_amsgrad,
       functools.partial(ref.amsgrad, lr=-1.0)),
      ('radam', transform.scale_by_radam,
       functools.partial(ref.radam, lr=-1.0)),
  )
  def test_matches_reference_float64(self, make, oracle):
    params = _params()
    with utils.x64_precision(True):
      tx = make()
      for kind in ('random', 'zeros', 'flips'):
        grads = _grads(kind)
        got = _run(tx, grads, params, jnp.float64)
        with self.subTest(kind):
          _assert_close(got, oracle(grads), rtol=1e-9)

  def test_trust_ratio_identities(self):
    # ||theta|| / ||g|| g for a nonzero pair; g itself where a norm is 0.
    tx = transform.scale_by_trust_ratio()
    p = jnp.array([3.0, 4.0])
    g = jnp.array([0.6, 0.8])
    u, _ = tx.update(g, tx.init(p), p)
    np.testing.assert_allclose(u, 5.0 * np.array([0.6, 0.8]), rtol=1e-6)
    for p0, g0 in ((jnp.zeros(2), g), (p, jnp.zeros(2))):
      u, _ = tx.update(g0, tx.init(p0), p0)
      np.testing.assert_array_equal(u, g0)

  @parameterized.parameters((0.001,), (2.0,))
  def test_param_block_scales(self, min_scale):
    # max(||theta||, s) g and max(rms(theta), s) g, per leaf.
    p = {'a': jnp.array([3.0, 4.0]), 'b': jnp.zeros(3)}
    g = {'a': jnp.array([1.0, -2.0]), 'b': jnp.ones(3)}
    norm_tx = transform.scale_by_param_block_norm(min_scale)
    rms_tx = transform.scale_by_param_block_rms(min_scale)
    u, _ = norm_tx.update(g, norm_tx.init(p), p)
    np.testing.assert_allclose(u['a'], max(5.0, min_scale) * g['a'],
                               rtol=1e-6)
    np.testing.assert_allclose(u['b'], min_scale * g['b'], rtol=1e-6)
    u, _ = rms_tx.update(g, rms_tx.init(p), p)
    rms = np.sqrt(25.0 / 2)
    np.testing.assert_allclose(u['a'], max(rms, min_scale) * g['a'],
                               rtol=1e-6)
    np.testing.assert_allclose(u['b'], min_scale * g['b'], rtol=1e-6)


if __name__ == '__main__':
  absltest.main()
