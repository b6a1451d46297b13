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
"""The dtype sweep: every optimizer in float16, bfloat16, float32, float64.

Every entry of the optimizer registry (``testing/registry.py``: the aliases,
every ``scale_by_*`` transform and the contrib optimizers) runs three steps
on params of each dtype, with two gradient trees: all zeros, and a tree of
a tiny leaf and an ordinary one (the gradients are multiples of 1/8, times
2 ** -20 in float16's tiny leaf, a subnormal there, and 2 ** -100 in the
others', so every dtype holds them exactly and one float64 run serves all).
For each run:

* the updates are finite wherever the maths is (each documented ``eps``
  keeps the divisions away from 0 / 0, also when it rounds to 0 in the
  params' dtype); where the float64 update itself is beyond the dtype's
  range (ACProp's first step of an ordinary gradient after a zero one,
  6e6, in float16), the update is the infinity of its sign;
* the updates have the params' dtype;
* each leaf agrees with the float64 run (x64, restored afterwards) within a
  tolerance that fits the dtype: a few units of its precision relative to
  the step's largest update; exactly where the float64 update is zero.

Every dtype runs both gradient trees. A case that is not close to the
float64 run is accepted in two ways, both checked by the sweep:

* in float16, when a float64 run whose stored values are rounded to the
  float16 run's dtypes (the state after every step, the params once:
  ``testing/storage_emulation.py``) is not close to the float64 run
  either: the state's dtype cannot hold the statistic (Adam's second
  moment of a 2 ** -20 gradient is about 2 ** -50). That run is made only
  for such cases;
* when ``NOT_CLOSE`` lists it with its specific reason; the sweep checks
  that it is still off, so that a case that starts to agree leaves the
  list.
"""

import functools
import math

from absl.testing import absltest
from absl.testing import parameterized
import jax
import jax.numpy as jnp
import numpy as np

from optax._src import utils
from optax._src.testing import registry
from optax._src.testing import storage_emulation

_DTYPES = ('float16', 'bfloat16', 'float32')
_STEPS = 3
# A few units of each dtype's precision (2 ** -10, 2 ** -7, 2 ** -23)
# relative to a leaf's largest update: three steps of moments rounded to
# the dtype at each step.
_RTOL = {'float16': 2e-2, 'bfloat16': 1e-1, 'float32': 1e-4}
_KINDS = ('zero', 'tiny_and_ordinary')
_TINY = {'float16': 2.0 ** -20, 'bfloat16': 2.0 ** -100,
         'float32': 2.0 ** -100}

# Entries whose updates are random draws: a float64 run draws other numbers.
RANDOM = ('noisy_sgd', 'contrib.dpsgd',
          'contrib.differentially_private_aggregate')

_NORM_UNDERFLOW = (
    'the trust ratio divides by the norm of the tiny leaf\'s direction, '
    'entries near 1e-22 whose squares underflow in float32 and bfloat16: the '
    'norm is 0 and '
    'the documented fallback (ratio 1) applies where the float64 ratio is '
    'finite')

_READS_STORED_MOMENT = (
    'the update reads the first moment as stored: (1 - b1) g of the tiny '
    'leaf is a float16 subnormal of one or two significant bits (0 for '
    'b1 = 0.965), where the storage emulation reads the step\'s wide value')

# (entry, dtype, gradients) -> why the updates are not close to the float64
# run's.
NOT_CLOSE = {
    ('adamax', 'float16', 'tiny_and_ordinary'): _READS_STORED_MOMENT,
    ('adamaxw', 'float16', 'tiny_and_ordinary'): _READS_STORED_MOMENT,
    ('contrib.sophia', 'float16', 'tiny_and_ordinary'): _READS_STORED_MOMENT,
    ('contrib.prodigy', 'float16', 'tiny_and_ordinary'): (
        'the first moment accumulates d g with d = 1e-6: for the tiny leaf '
        'd g ~ 1e-12 is 0 in float16, the stored moment and every update of '
        'that leaf are 0'),
    ('signum', 'float16', 'tiny_and_ordinary'): (
        'chain(ema, scale_by_sign): the momentum reaches scale_by_sign as a '
        'float16 update, where the cancellation of the tiny leaf\'s terms '
        '(1e-8 at the third step) is 0 and its sign 0, not the float64 '
        'sign'),
    ('lamb', 'float32', 'tiny_and_ordinary'): _NORM_UNDERFLOW,
    ('lars', 'float32', 'tiny_and_ordinary'): _NORM_UNDERFLOW,
    ('scale_by_trust_ratio', 'float32', 'tiny_and_ordinary'):
        _NORM_UNDERFLOW,
    ('lamb', 'bfloat16', 'tiny_and_ordinary'): _NORM_UNDERFLOW,
    ('scale_by_trust_ratio', 'bfloat16', 'tiny_and_ordinary'):
        _NORM_UNDERFLOW,
}

# (entry, dtype, gradients) -> why the maths has no finite update there.
NOT_FINITE = {}


def _shape(entry: registry.Entry) -> tuple[int, ...]:
  return (3, 4) if entry.matrices_only else (4,)


def _gradients(kind: str, shape, tiny: float):
  """The three steps' gradient trees, exact in every dtype (float64)."""
  rng = np.random.default_rng(0)
  grads = []
  for _ in range(_STEPS):
    ordinary = rng.integers(-16, 17, size=shape) / 8.0
    small = rng.integers(-16, 17, size=shape) / 8.0 * tiny
    if kind == 'zero':
      grads.append({'a': np.zeros(shape), 'b': np.zeros(shape)})
    else:
      grads.append({'a': small, 'b': ordinary})
  return grads


def _params(shape):
  p = np.linspace(-1.0, 1.0, math.prod(shape)).reshape(shape)
  return {'a': p, 'b': -0.5 * p}


def _run(entry: registry.Entry, grads, params, dtype: str):
  """Three eager steps of ``entry``: the updates and the last state."""
  return storage_emulation.run_steps(entry, grads, params, dtype)


@functools.cache
def _float64_run(name: str, kind: str, tiny: float):
  entry = registry.BY_NAME[name]
  shape = _shape(entry)
  with utils.x64_precision(True):
    updates, _ = _run(entry, _gradients(kind, shape, tiny), _params(shape),
                      'float64')
    return [jax.tree.map(lambda x: np.asarray(x, np.float64), u)
            for u in updates]


def _overflows(want, dtype: str):
  """Per step and leaf: the float64 updates that overflow ``dtype``."""
  big = float(jnp.finfo(dtype).max) * (1 + float(jnp.finfo(dtype).eps) / 2)
  return [jax.tree.map(lambda y: np.isfinite(y) & (np.abs(y) >= big), w)
          for w in want]


def _close(got, want, rtol, floor, overflows=None) -> bool:
  """Whether each step's updates are close to ``want``'s.

  Args:
    got: the steps' updates (float64 NumPy trees).
    want: the float64 run's.
    rtol: the tolerance relative to the step's largest update.
    floor: an absolute tolerance at least (the rounding of params-sized
      intermediates).
    overflows: ``None``, or :func:`_overflows` of ``want``: those entries
      are left out (their own check is that ``got`` is infinite there).

  Returns:
    Whether every leaf of every step is close.
  """
  if overflows is None:
    overflows = [jax.tree.map(np.zeros_like, w) for w in want]
  for u, w, o in zip(got, want, overflows):
    # Relative to the step's largest update over the whole tree (a leaf of
    # 1e-29 updates that rounds to 0 beside ordinary ones is close).
    scale = max((float(np.max(np.abs(np.where(m, 0, y)), initial=0))
                 for y, m in zip(jax.tree.leaves(w), jax.tree.leaves(o))),
                default=0.0)
    for x, y, m in zip(jax.tree.leaves(u), jax.tree.leaves(w),
                       jax.tree.leaves(o)):
      if not np.allclose(np.where(m, 0, x), np.where(m, 0, y), rtol=rtol,
                         atol=rtol * scale + floor):
        return False
  return True


def _cases():
  for entry in registry.ENTRIES:
    for dtype in _DTYPES:
      yield (f'{entry.name}_{dtype}', entry.name, dtype)


class DtypeSweepTest(parameterized.TestCase):

  @parameterized.named_parameters(*_cases())
  def test_sweep(self, name, dtype):
    entry = registry.BY_NAME[name]
    shape = _shape(entry)
    for kind in _KINDS:
      with self.subTest(kind):
        self._check(entry, shape, dtype, kind)

  def _check(self, entry, shape, dtype, kind):
    name = entry.name
    key = (name, dtype, kind)
    grads = _gradients(kind, shape, _TINY[dtype])
    updates, state = _run(entry, grads, _params(shape), dtype)
    got = []
    for u in updates:
      for leaf in jax.tree.leaves(u):
        self.assertEqual(leaf.dtype, jnp.dtype(dtype), key)
      got.append(jax.tree.map(
          lambda x: np.asarray(x.astype(jnp.float32), np.float64), u))
    want = _float64_run(name, kind, _TINY[dtype])
    if name in RANDOM:
      # Another draw than the float64 run's: finite and of the params'
      # dtype, nothing to compare.
      self.assertTrue(all(np.all(np.isfinite(x)) for u in got
                          for x in jax.tree.leaves(u)), f'{key}: {got}')
      return
    overflows = _overflows(want, dtype)
    # Finite wherever the float64 update is representable in the dtype;
    # where it is not, the update overflows to an infinity of its sign.
    for u, w, o in zip(got, want, overflows):
      for x, y, m in zip(jax.tree.leaves(u), jax.tree.leaves(w),
                         jax.tree.leaves(o)):
        finite = bool(np.all(np.isfinite(x[~m])))
        if key in NOT_FINITE:
          self.assertFalse(finite, NOT_FINITE[key])
          return
        self.assertTrue(finite, f'{key}: {got}')
        np.testing.assert_array_equal(x[m], np.sign(y[m]) * np.inf,
                                      err_msg=str(key))
    floor = 4 * float(jnp.finfo(dtype).eps)
    close = _close(got, want, _RTOL[dtype], floor, overflows)
    if key in NOT_CLOSE:
      self.assertFalse(close, NOT_CLOSE[key])
      return
    if close or dtype != 'float16':
      self.assertTrue(close, f'{key}:\n{got}\nfloat64:\n{want}')
      return
    # Not close in float16: accepted only where float64 arithmetic on the
    # same stored values (state rounded to its float16 run's dtypes after
    # every step, params rounded once) is not close either: the state's
    # dtype cannot hold the statistic.
    emulated = storage_emulation.emulated_storage_run(
        entry, grads, _params(shape), dtype,
        storage_emulation.dtypes_of(state))
    self.assertFalse(
        _close(emulated, want, _RTOL[dtype], floor, overflows),
        f'{key}: not close to the float64 run, while a float64 run with '
        f'float16 storage is: the arithmetic, not the state\'s dtype, loses '
        f'it; fix it or list it in NOT_CLOSE with its reason.\n{got}\n'
        f'float64:\n{want}\nstorage emulated:\n{emulated}')


if __name__ == '__main__':
  jax.config.parse_flags_with_absl()
  absltest.main()
