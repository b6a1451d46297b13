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

Each case runs four steps (six to twelve where a state needs longer to
reach its bounds) of an optimizer and of its float64 NumPy reference
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
import warnings

from absl.testing import absltest
from absl.testing import parameterized
import jax
import jax.numpy as jnp
import numpy as np
from scipy import stats

from optax._src import alias
from optax._src import base
from optax._src import factorized
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


def _negated(updates):
  return [-u for u in updates]


def _jitted(tx):
  """``tx`` with its update jitted, compiled once for all the edges."""
  return base.GradientTransformation(tx.init, jax.jit(tx.update))


def _optimistic_adam(*args, **kwargs):
  """``alias.optimistic_adam``, its DeprecationWarning silenced."""
  with warnings.catch_warnings():
    warnings.simplefilter('ignore', DeprecationWarning)
    return alias.optimistic_adam(*args, **kwargs)

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
    'scale_by_sm3': (
        lambda: transform.scale_by_sm3(b1=0.5, b2=0.75, eps=1e-3),
        lambda g, p, v: ref.sm3(g, -1.0, 0.5, 1e-3, b2=0.75), _SQUARED),
    'adan': (lambda: alias.adan(_LR),
             lambda g, p, v: ref.adan(g, _LR, eps_root=1e-8), _SQUARED),
    'adan_weight_decay': (
        lambda: alias.adan(_LR, b1=0.5, b2=0.75, b3=0.6, eps=1e-3,
                           eps_root=1e-4, weight_decay=0.3),
        lambda g, p, v: ref.adan(g, _LR, 0.5, 0.75, 0.6, 1e-3, 1e-4, 0.3, p),
        _SQUARED),
    'scale_by_adan': (lambda: transform.scale_by_adan(),
                      lambda g, p, v: ref.adan(g, -1.0), _SQUARED),
    'lars': (lambda: alias.lars(_LR),
             lambda g, p, v: ref.lars(g, p, _LR), _SCALE_FREE),
    'lars_nesterov_decay': (
        lambda: alias.lars(_LR, weight_decay=0.3, trust_coefficient=0.5,
                           eps=1e-3, momentum=0.6, nesterov=True),
        lambda g, p, v: ref.lars(g, p, _LR, 0.3, 0.5, 1e-3, 0.6, True),
        _SQUARED),
    # The docstring's d_t is scale_by_adam's direction (Nesterov's by
    # default); Daskalakis et al. (2018, Algorithm 1) extrapolate Adam's
    # ratio without bias corrections: the docstring decides.
    'optimistic_adam': (
        lambda: _optimistic_adam(_LR, optimism=0.05),
        lambda g, p, v: ref.optimistic_gradient(
            ref.adam(g, -1.0, nesterov=True), 1.0, _LR, 0.05), _SQUARED),
    'optimistic_adam_plain': (
        lambda: _optimistic_adam(_LR, nesterov=False, eps_root=1e-4),
        lambda g, p, v: ref.optimistic_gradient(
            ref.adam(g, -1.0, eps_root=1e-4), 1.0, _LR, _LR), _SQUARED),
    'optimistic_adam_v2': (
        lambda: alias.optimistic_adam_v2(_LR, alpha=0.7, beta=0.4),
        lambda g, p, v: ref.optimistic_gradient(
            ref.adam(g, -1.0, nesterov=True), _LR, 0.7, 0.4), _SQUARED),
    'optimistic_adam_v2_plain': (
        lambda: alias.optimistic_adam_v2(_LR, b1=0.5, b2=0.75,
                                         nesterov=False),
        lambda g, p, v: ref.optimistic_gradient(
            ref.adam(g, -1.0, 0.5, 0.75), _LR), _SQUARED),
    'scale_by_novograd': (
        lambda: transform.scale_by_novograd(b1=0.5, b2=0.7, eps=1e-3,
                                            eps_root=1e-4, weight_decay=0.2),
        lambda g, p, v: ref.novograd(g, -1.0, 0.5, 0.7, 1e-3, 1e-4, 0.2, p),
        _SQUARED),
    'scale_by_rprop': (
        lambda: transform.scale_by_rprop(0.1, 0.4, 1.5, 0.03, 0.2),
        lambda g, p, v: _negated(ref.rprop(g, 0.1, 0.4, 1.5, 0.03, 0.2)),
        _SCALE_FREE),
    'adafactor': (lambda: _jitted(alias.adafactor(_LR)),
                  lambda g, p, v: ref.adafactor(g, p, lambda t: _LR),
                  _SCALE_FREE),
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


def _tree_run(tx, grads, params, dtype):
  """``_run`` on trees: lists of dicts of arrays, one per step."""
  cast = functools.partial(jax.tree.map, lambda x: jnp.asarray(x, dtype))
  state = tx.init(cast(params[0]))
  out = []
  for g, p in zip(grads, params):
    u, state = tx.update(cast(g), state, cast(p))
    for leaf in jax.tree.leaves(u):
      assert leaf.dtype == jnp.dtype(dtype), (leaf.dtype, dtype)
    out.append(jax.tree.map(lambda x: np.asarray(x, np.float64), u))
  return out


def _random(shape, seed, steps=_STEPS, scale=1.0):
  rng = np.random.default_rng(seed)
  return [scale * rng.normal(size=shape) for _ in range(steps)]


def _shaped_grads(kind: str, shape) -> list[np.ndarray]:
  """``_grads``'s kinds for another shape (the flips' pattern repeated)."""
  if shape == _SHAPE:
    return _grads(kind)
  if kind == 'flips':
    return [np.resize(g, shape) for g in _grads(kind)]
  scale = {'random': 1.0, 'zeros': 0.0, 'tiny': 1e-30, 'huge': 1e30}[kind]
  return _random(shape, 0, scale=scale)


def _relative_step(count):
  # Shazeer and Stern's relative step size min(1e-2, 1 / sqrt(t)), t from 1.
  return jnp.minimum(1e-2, 1.0 / jnp.sqrt(count + 1.0))


class AdafactorTest(parameterized.TestCase):
  """Adafactor against Shazeer and Stern's Algorithms 4 and 5."""

  # name, shape, keyword arguments of alias.adafactor, of ref.adafactor.
  _CASES = (
      ('vector', (6,), {}, {}),
      ('matrix_factored', (3, 4), {'min_dim_size_to_factor': 3}, {}),
      ('wide_matrix_factored', (4, 2), {'min_dim_size_to_factor': 2}, {}),
      # Rows and columns on axes 0 and 2, a batch of two along axis 1.
      ('tensor_factored', (3, 2, 4), {'min_dim_size_to_factor': 3}, {}),
      ('matrix_below_min_dim', (3, 4), {}, {'factored': False}),
      ('matrix_not_factored',
       (3, 4), {'min_dim_size_to_factor': 2, 'factored': False},
       {'factored': False}),
      ('momentum_weight_decay', (3, 4),
       {'min_dim_size_to_factor': 2, 'momentum': 0.6,
        'weight_decay_rate': 0.2},
       {'momentum': 0.6, 'weight_decay': 0.2}),
      ('no_clipping_no_param_scale', (3, 4),
       {'min_dim_size_to_factor': 2, 'clipping_threshold': None,
        'multiply_by_parameter_scale': False},
       {'clipping_threshold': None, 'param_scale': False}),
      ('tight_clipping', (6,), {'clipping_threshold': 0.3},
       {'clipping_threshold': 0.3}),
      ('decay_offset_rate_eps', (3, 4),
       {'min_dim_size_to_factor': 2, 'decay_offset': 2, 'decay_rate': 0.5,
        'eps': 1e-3},
       {'decay_offset': 2, 'decay_rate': 0.5, 'eps': 1e-3}),
      ('no_learning_rate', (3, 4),
       {'learning_rate': None, 'min_dim_size_to_factor': 2},
       {'lr': None}),
  )

  def _check(self, shape, fork_kwargs, ref_kwargs, dtype, kinds, rtol):
    fork_kwargs = {'learning_rate': _relative_step, **fork_kwargs}
    if 'momentum' in fork_kwargs:
      fork_kwargs['dtype_momentum'] = dtype
    ref_kwargs = {'lr': lambda t: min(1e-2, t ** -0.5), **ref_kwargs}
    # Small params, so that the 1e-3 floor of their RMS is met too.
    params = _random(shape, 1)
    params[2] = 1e-4 * params[2]
    tx = _jitted(alias.adafactor(**fork_kwargs))
    for kind in kinds:
      grads = _shaped_grads(kind, shape)
      want = ref.adafactor(grads, params, **ref_kwargs)
      got = _run(tx, grads, params, dtype)
      with self.subTest(kind):
        _assert_close(got, want, rtol=rtol)

  @parameterized.named_parameters(
      *[c for c in _CASES if c[0] in ('vector', 'matrix_factored',
                                       'momentum_weight_decay')])
  def test_random_gradients_float32(self, shape, fork_kwargs, ref_kwargs):
    self._check(shape, fork_kwargs, ref_kwargs, jnp.float32, ('random',),
                rtol=2e-5)

  @parameterized.named_parameters(*_CASES)
  def test_random_and_edges_float64(self, shape, fork_kwargs, ref_kwargs):
    with utils.x64_precision(True):
      self._check(shape, fork_kwargs, ref_kwargs, jnp.float64,
                  ('random', 'zeros', 'tiny', 'huge', 'flips'), rtol=1e-9)

  def test_factored_moments_of_a_rank_one_square(self):
    # For G^2 = a b^T (rank one) and eps = 0 the factored V_t is exactly
    # G^2 at the first step, so U_1 = sign(G) (Algorithm 4's motivation).
    a, b = np.array([1.0, 4.0, 9.0]), np.array([0.25, 1.0, 16.0, 4.0])
    g = np.sqrt(np.outer(a, b)) * np.array([1.0, -1.0, 1.0, -1.0])
    tx = factorized.scale_by_factored_rms(min_dim_size_to_factor=2,
                                          epsilon=0.0)
    with utils.x64_precision(True):
      u, _ = tx.update(jnp.asarray(g), tx.init(jnp.asarray(g)))
    np.testing.assert_allclose(u, np.sign(g), rtol=1e-12)


class Sm3Test(parameterized.TestCase):
  """SM3's cover by rows and columns (Anil et al. 2019, Algorithm 2)."""

  @parameterized.parameters(((3, 4), 1.0), ((3, 4), 0.75), ((2, 3, 2), 0.9),
                            ((), 1.0))
  def test_covers_float64(self, shape, b2):
    params = _random(shape, 1)
    with utils.x64_precision(True):
      tx = _jitted(transform.scale_by_sm3(b1=0.5, b2=b2, eps=1e-6))
      for kind, scale in (('random', 1.0), ('zeros', 0.0)):
        grads = _random(shape, 0, scale=scale)
        got = _run(tx, grads, params, jnp.float64)
        with self.subTest(kind):
          _assert_close(got, ref.sm3(grads, -1.0, 0.5, 1e-6, b2),
                        rtol=1e-9)

  def test_sm3_matrix_float32(self):
    grads, params = _random((3, 4), 0), _random((3, 4), 1)
    got = _run(alias.sm3(_LR), grads, params, jnp.float32)
    _assert_close(got, ref.sm3(grads, _LR), rtol=2e-5)


class DistanceOverGradientsTest(parameterized.TestCase):
  """Layer-wise DoG (Ivgi et al. 2023) against its definition."""

  @parameterized.parameters(
      (jnp.float32, 2e-5, {}), (jnp.float64, 1e-9, {}),
      (jnp.float64, 1e-9, {'reps_rel': 0.5, 'eps': 1e-3,
                           'global_scale': 3.0}))
  def test_matches_definition(self, dtype, rtol, kwargs):
    # The params move by more than r_eps at the later steps, less at the
    # earlier ones: both sides of the maximum are taken.
    # Quarters and powers of two: the differences are exact in float32.
    base = np.random.default_rng(1).integers(-8, 8, size=_SHAPE) / 4
    params = [base + 2.0 ** (3 * k - 20) * np.arange(6.0) for k in range(6)]
    with utils.x64_precision(dtype == jnp.float64):
      tx = transform.scale_by_distance_over_gradients(
          param_dtype=dtype, **kwargs)
      for kind in ('random', 'zeros', 'tiny', 'huge', 'zero_then_random'):
        grads = _grads(kind, steps=6)
        if dtype == jnp.float32 and kind in ('tiny', 'huge'):
          continue  # 1e-60 and 1e60 are not float32 numbers.
        got = _run(tx, grads, params, dtype)
        with self.subTest(kind):
          _assert_close(got, ref.distance_over_gradients(
              grads, params, **kwargs), rtol=rtol)


class PolyakVariantsTest(parameterized.TestCase):

  @parameterized.parameters(('sps',), ('sps+',))
  def test_scale_by_polyak_float64(self, variant):
    # Values above and below f* = 0.25: sps takes the negative gap, sps+
    # (Garrigos et al. 2023) floors it at zero; the cap binds at step 1.
    values = [30.0, 0.1, -0.5, 0.4]
    params = _params()
    with utils.x64_precision(True):
      tx = transform.scale_by_polyak(f_min=0.25, max_learning_rate=0.5,
                                     eps=1e-3, variant=variant)
      for kind in ('random', 'flips', 'zeros'):
        grads = _grads(kind)
        got = _run(tx, grads, params, jnp.float64, values)
        want = ref.polyak_sgd(grads, values, 0.5, 0.25, 1e-3,
                              plus=variant == 'sps+')
        with self.subTest(kind):
          _assert_close(got, _negated(want), rtol=1e-9)


class RpropTest(parameterized.TestCase):

  def test_twelve_steps_float64(self):
    # Long enough for the step sizes to reach both bounds.
    grads = _grads('random', steps=12)
    params = _params(steps=12)
    with utils.x64_precision(True):
      tx = transform.scale_by_rprop(0.1, 0.4, 1.5, 0.03, 0.2)
      got = _run(tx, grads, params, jnp.float64)
    _assert_close(got, _negated(ref.rprop(grads, 0.1, 0.4, 1.5, 0.03, 0.2)),
                  rtol=1e-9)


class NoisySgdTest(parameterized.TestCase):
  """noisy_sgd: g + N(0, eta / t^gamma) (Neelakantan et al. 2015).

  The paper writes the variance eta / (1 + t)^gamma with t counted from 0;
  the docstring's t counts from 1: the same schedule.
  """

  def test_noise_moments_and_independence(self):
    n, lr, eta, gamma = 20_000, 0.5, 0.3, 1.5
    grads = [np.full((n,), float(k)) for k in range(4)]
    tx = alias.noisy_sgd(lr, eta=eta, gamma=gamma, key=3)
    noise = [-u / lr - g for u, g in zip(
        _run(tx, grads, [np.zeros(n)] * 4, jnp.float32), grads)]
    for t, z in enumerate(noise, start=1):
      sigma = np.sqrt(eta / t ** gamma)
      with self.subTest(t=t):
        self.assertLess(abs(np.mean(z)), 5 * sigma / np.sqrt(n))
        self.assertAlmostEqual(np.var(z) / sigma ** 2, 1.0,
                               delta=5 * np.sqrt(2 / n))
        self.assertGreater(stats.kstest(z / sigma, 'norm').pvalue, 1e-4)
    # Fresh draws at every step.
    corr = np.corrcoef(np.stack(noise))
    self.assertLess(np.max(np.abs(corr - np.eye(4))), 5 / np.sqrt(n))

  def test_leaves_draw_independent_noise(self):
    n = 20_000
    tx = alias.noisy_sgd(1.0, eta=1.0, gamma=0.0, key=0)
    g = {'a': np.zeros(n), 'b': np.zeros(n)}
    u, = _tree_run(tx, [g], [g], jnp.float32)
    self.assertLess(abs(np.corrcoef(u['a'], u['b'])[0, 1]), 5 / np.sqrt(n))

  def test_zero_eta_is_sgd(self):
    grads, params = _grads('random'), _params()
    got = _run(alias.noisy_sgd(_LR, eta=0.0, key=0), grads, params,
               jnp.float32)
    _assert_close(got, ref.sgd(grads, _LR), rtol=1e-7)


class LayerwiseTest(parameterized.TestCase):
  """Per-leaf norms and masks of the layer-wise rules (LARS, NovoGrad)."""

  def test_lars_masks_float64(self):
    # 'a' is decayed but not trust-scaled, 'b' trust-scaled but not decayed.
    grads = [{'a': g, 'b': 3.0 * h} for g, h in zip(
        _grads('random'), _grads('random', seed=5))]
    params = [{'a': p, 'b': 0.1 * q} for p, q in zip(
        _params(), _params(seed=6))]
    kwargs = dict(weight_decay=0.3, trust_coefficient=0.5, momentum=0.6)
    with utils.x64_precision(True):
      tx = alias.lars(_LR, weight_decay_mask={'a': True, 'b': False},
                      trust_ratio_mask={'a': False, 'b': True}, **kwargs)
      got = _tree_run(tx, grads, params, jnp.float64)
    for leaf, flags in (('a', dict(decay=True, trust=False)),
                        ('b', dict(decay=False, trust=True))):
      want = ref.lars([g[leaf] for g in grads], [p[leaf] for p in params],
                      _LR, **kwargs, **flags)
      _assert_close([u[leaf] for u in got], want, rtol=1e-9)

  def test_lars_paper_ratio_for_aligned_gradients(self):
    # For g = k theta (k >= 0) the paper's c ||theta|| / (||g|| + wd
    # ||theta||) equals the docstring's c ||theta|| / ||g + wd theta||.
    theta = np.array([3.0, -4.0, 12.0])
    grads = [2.0 * theta, 0.5 * theta]
    c, wd = 0.01, 0.1
    with utils.x64_precision(True):
      got = _run(alias.lars(1.0, weight_decay=wd, trust_coefficient=c,
                            momentum=0.0), grads, [theta] * 2, jnp.float64)
    for u, g in zip(got, grads):
      t_norm, g_norm = np.linalg.norm(theta), np.linalg.norm(g)
      paper = c * t_norm / (g_norm + wd * t_norm)
      np.testing.assert_allclose(u, -paper * (g + wd * theta), rtol=1e-12)

  @parameterized.named_parameters(
      ('adan', lambda mask: alias.adan(_LR, weight_decay=0.3, mask=mask),
       lambda g, p, wd: ref.adan(g, _LR, eps_root=1e-8, weight_decay=wd,
                                 params=p)),
      ('adafactor', lambda mask: _jitted(alias.adafactor(
          _LR, weight_decay_rate=0.3, weight_decay_mask=mask)),
       lambda g, p, wd: ref.adafactor(g, p, lambda t: _LR,
                                      weight_decay=wd)))
  def test_weight_decay_mask_float64(self, make, oracle):
    # Leaf 'a' is decayed, leaf 'b' is not.
    grads = [{'a': g, 'b': h} for g, h in zip(
        _grads('random'), _grads('random', seed=5))]
    params = [{'a': p, 'b': q} for p, q in zip(_params(), _params(seed=6))]
    with utils.x64_precision(True):
      got = _tree_run(make({'a': True, 'b': False}), grads, params,
                      jnp.float64)
    for leaf, wd in (('a', 0.3), ('b', 0.0)):
      want = oracle([g[leaf] for g in grads], [p[leaf] for p in params], wd)
      _assert_close([u[leaf] for u in got], want, rtol=1e-9)

  def test_novograd_second_moment_per_leaf_float64(self):
    # Two layers of different scales: each is normalized by its own norm.
    grads = [{'a': g, 'b': 1e3 * h} for g, h in zip(
        _grads('random'), _grads('random', seed=5))]
    params = [{'a': p, 'b': q} for p, q in zip(_params(), _params(seed=6))]
    with utils.x64_precision(True):
      got = _tree_run(alias.novograd(_LR, weight_decay=0.1), grads, params,
                      jnp.float64)
    for leaf in ('a', 'b'):
      want = ref.novograd([g[leaf] for g in grads], _LR, weight_decay=0.1,
                          params=[p[leaf] for p in params])
      _assert_close([u[leaf] for u in got], want, rtol=1e-9)


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
