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
"""Tests for `arguments.py`."""

import inspect
import pickle

from absl.testing import absltest
from absl.testing import parameterized
import jax.numpy as jnp
import numpy as np

from optax._src import arguments
from optax._src import validation


@arguments.declare(decay=(arguments.scalar_or_schedule, arguments.decay),
                   eps=arguments.non_negative)
def _inner(decay=0.9, eps=1e-8, *, period=1):
  """An inner builder that checks its own arguments."""
  validation.check_positive_int('_inner', 'period', period)
  return decay, eps, period


@arguments.declare(learning_rate=arguments.learning_rate)
def _outer(learning_rate, decay=0.9, *, period=1):
  """An alias: it declares only what ``_inner`` does not check."""
  return learning_rate, _inner(decay, period=period)


@arguments.declare(name='public_name', rate=arguments.in_interval(
    0, 1, include_low=False, hint='a rate of 0 never moves'))
def _renamed(rate):
  return rate


class _Compared(float):
  """A float that counts the comparisons made with it (the checks run)."""

  def __init__(self, value):
    super().__init__()
    del value
    self.comparisons = 0

  def __ge__(self, other):
    self.comparisons += 1
    return float(self) >= other

  def __lt__(self, other):
    self.comparisons += 1
    return float(self) < other

  def __le__(self, other):
    self.comparisons += 1
    return float(self) <= other

  def __gt__(self, other):
    self.comparisons += 1
    return float(self) > other


class DeclareTest(parameterized.TestCase):

  def test_valid_arguments_reach_the_function(self):
    self.assertEqual(_inner(0.5, eps=0.0, period=3), (0.5, 0.0, 3))
    self.assertEqual(_outer(0.1, 0.25), (0.1, (0.25, 1e-08, 1)))

  @parameterized.named_parameters(
      ('positional', (1.5,), {}),
      ('keyword', (), {'decay': 1.5}),
  )
  def test_rules_see_positional_and_keyword_arguments(self, args, kwargs):
    with self.assertRaisesRegex(
        ValueError, r'^_inner: decay must be in \[0, 1\), got 1.5$'):
      _inner(*args, **kwargs)

  def test_defaults_are_checked_like_given_values(self):
    # The default of eps passes; a bad default would be found on each call.
    @arguments.declare(eps=arguments.non_negative)
    def f(eps=-1.0):
      return eps

    with self.assertRaisesRegex(ValueError, '^f: eps must be non-negative'):
      f()

  def test_rules_of_a_tuple_run_in_order(self):
    with self.assertRaisesRegex(
        TypeError, '^_inner: decay must be a scalar number or a schedule, got'
        ' an array of shape \\(2,\\)$'):
      _inner(jnp.ones(2))

  @parameterized.named_parameters(
      ('declared_rule', {'decay': 1.5},
       ValueError, r'^_outer: decay must be in \[0, 1\), got 1.5$'),
      ('hand_check', {'period': 0},
       ValueError, '^_outer: period must be a positive integer, got 0$'),
      ('own_rule', {'learning_rate': '0.1'},
       TypeError, '^_outer: learning_rate must be a scalar number or a'
       " schedule, got str '0.1'$"),
  )
  def test_errors_name_the_outermost_public_call(self, kwargs, error,
                                                 message):
    kwargs = {'learning_rate': 0.1} | kwargs
    with self.assertRaisesRegex(error, message):
      _outer(**kwargs)

  def test_inner_call_named_again_after_the_outer_one(self):
    with self.assertRaises(ValueError):
      _outer(0.1, 1.5)
    with self.assertRaisesRegex(ValueError, '^_inner: decay'):
      _inner(1.5)
    with self.assertRaisesRegex(ValueError, '^f: x must be positive'):
      validation.check_positive('f', 'x', 0.0)

  def test_name_and_interval_rule(self):
    self.assertEqual(_renamed(1.0), 1.0)
    with self.assertRaisesRegex(
        ValueError, r'^public_name: rate must be in \(0, 1\], got 0.0;'
        ' a rate of 0 never moves$'):
      _renamed(0.0)

  def test_arrays_and_schedules_keep_only_their_type_checked(self):
    self.assertEqual(_inner(jnp.asarray(2.0))[0], 2.0)
    self.assertEqual(_outer(abs)[0], abs)
    self.assertEqual(_outer(None)[0], None)

  @parameterized.parameters(
      (arguments.positive_int, 2.5, 'a positive integer'),
      (arguments.positive_int, np.float32(2), 'a positive integer'),
      (arguments.positive_int, True, 'a positive integer'),
      (arguments.non_negative_int, -1, 'a non-negative integer'),
      (arguments.non_negative_int, 1.0, 'a non-negative integer'),
      (arguments.positive, 0.0, 'positive'),
      (arguments.finite, float('nan'), 'finite'),
      (arguments.closed_decay, 1.5, r'in \[0, 1\]'),
      (arguments.required_learning_rate, float('inf'), 'finite'),
  )
  def test_rules(self, rule, value, expected):
    with self.assertRaisesRegex(ValueError, f'^f: x must be {expected}, got'):
      rule('f', 'x', value)

  def test_at_least_one_of_and_positive_int_or_array(self):
    arguments.at_least(1)('f', 'x', 1.0)
    with self.assertRaisesRegex(ValueError, '^f: x must be >= 1, got nan$'):
      arguments.at_least(1)('f', 'x', float('nan'))
    arguments.one_of('a', 'b')('f', 'x', 'b')
    with self.assertRaisesRegex(ValueError,
                                "^f: x must be 'a' or 'b', got 'c'"):
      arguments.one_of('a', 'b')('f', 'x', 'c')
    with self.assertRaisesRegex(
        ValueError, "^f: x must be one of 'a', 'b', 'c', got 'd'"):
      arguments.one_of('a', 'b', 'c')('f', 'x', 'd')
    arguments.positive_int_or_array('f', 'x', jnp.asarray(2.5))
    arguments.positive_int_or_array('f', 'x', np.int64(2))
    with self.assertRaisesRegex(ValueError, '^f: x must be a positive integer'):
      arguments.positive_int_or_array('f', 'x', np.float32(2))
    with self.assertRaisesRegex(
        TypeError, "^f: x must be a positive integer, got str '2'$"):
      arguments.positive_int_or_array('f', 'x', '2')

  def test_pair(self):
    rule = arguments.pair(arguments.decay, (arguments.scalar_or_schedule,
                                            arguments.non_negative),
                          what='(b1, b2)')
    rule('f', 'betas', (0.9, 0.999))
    rule('f', 'betas', [0.0, 2.0])
    with self.assertRaisesRegex(
        ValueError, r'^f: betas must be a pair \(b1, b2\), got \(0.9,\)$'):
      rule('f', 'betas', (0.9,))
    with self.assertRaisesRegex(
        ValueError, r'^f: betas\[0\] must be in \[0, 1\), got 1.0$'):
      rule('f', 'betas', (1.0, 0.5))
    with self.assertRaisesRegex(
        TypeError, r'^f: betas\[1\] must be a scalar number or a schedule'):
      rule('f', 'betas', (0.5, jnp.ones(2)))

  def test_a_rule_passed_in_the_public_call_is_not_checked_again(self):
    calls = []

    def counted(fn, name, value):
      calls.append((fn, name, value))

    @arguments.declare(decay=counted)
    def inner(decay):
      return decay

    @arguments.declare(rate=counted)
    def outer(rate, other):
      return inner(rate), inner(other)

    self.assertEqual(outer(0.5, 0.25), (0.5, 0.25))
    # inner's rule skipped rate's value (the same object), not other's.
    self.assertEqual(calls, [('outer', 'rate', 0.5), ('outer', 'decay', 0.25)])
    calls.clear()
    outer(0.5, 0.25)  # Plain values that passed are not checked again.
    self.assertEmpty(calls)
    outer(0.75, 0.25)
    self.assertEqual(calls, [('outer', 'rate', 0.75)])

  def test_a_hand_check_after_a_declared_rule_runs_once(self):
    # An alias declares eps and builds a transformation that checks the
    # same object by hand under another name: the check runs once.
    @arguments.declare()
    def inner(epsilon, decay):
      validation.check_non_negative('inner', 'epsilon', epsilon)
      validation.check_decay('inner', 'decay', decay, closed=False)

    @arguments.declare(eps=arguments.non_negative_scalar,
                       rate=arguments.decay_scalar)
    def outer(eps, rate):
      inner(eps, rate)

    eps, rate = _Compared(1e-8), _Compared(0.5)
    outer(eps, rate)
    # One comparison for non_negative (value >= 0), two for the decay's
    # interval (0 <= value < 1).
    self.assertEqual((eps.comparisons, rate.comparisons), (1, 2))
    inner(eps, rate)  # A public call of its own checks again.
    self.assertEqual((eps.comparisons, rate.comparisons), (2, 4))
    with self.assertRaisesRegex(ValueError, '^outer: eps must be non-neg'):
      outer(_Compared(-1.0), rate)

  def test_given_rules_read_other_arguments(self):
    @arguments.declare(
        b1=arguments.bias_corrected_decay('corrected'),
        high=arguments.at_least_argument('low'))
    def f(b1=0.9, low=1e-6, high=50.0, *, corrected=True):
      return b1, low, high, corrected

    self.assertEqual(f(1.0, corrected=False), (1.0, 1e-6, 50.0, False))
    with self.assertRaisesRegex(ValueError, r'^f: b1 must be in \[0, 1\), '):
      f(1.0)
    with self.assertRaisesRegex(ValueError, r'^f: b1 must be in \[0, 1\], '):
      f(1.5, corrected=False)
    with self.assertRaisesRegex(
        ValueError, r'^f: high must be >= low \(inf\), got 50.0$'):
      f(low=float('inf'))
    with self.assertRaisesRegex(
        ValueError, r'^f: high must be >= low \(1e-06\), got nan$'):
      f(high=float('nan'))
    # Arrays and schedules are not compared.
    f(low=jnp.asarray(2.0), high=1.0)
    f(high=lambda count: count)

  def test_plain_call_key_keeps_types_apart(self):
    def f():
      pass

    key = validation.plain_call_key
    # 1, 1.0 and True are equal and hash alike, but checks tell them apart.
    keys = {key(f, (value,), {}) for value in (1, 1.0, True)}
    self.assertLen(keys, 3)
    self.assertNotEqual(key(f, ((1, 2),), {}), key(f, ((1.0, 2),), {}))
    # A positional argument is not the keyword argument of the same value.
    self.assertNotEqual(key(f, ('x', 1), {}), key(f, (), {'x': 1}))
    self.assertEqual(key(f, (0.5,), {'b': None}),
                     key(f, (0.5,), {'b': None}))
    for unkeyed in (jnp.asarray(1.0), np.float32(1.0), [1.0], print,
                    (1.0, np.float32(2.0))):
      self.assertIsNone(key(f, (unkeyed,), {}))
      self.assertIsNone(key(f, (), {'x': unkeyed}))

  def test_a_declared_function_is_not_in_its_own_closure(self):
    # equinox (optimistix) walks the closures of functions it is given.
    @arguments.declare(rate=arguments.non_negative)
    def f(rate=0.5):
      return rate

    self.assertNotIn(f, [cell.cell_contents for cell in f.__closure__])

  def test_a_call_that_failed_is_checked_again(self):
    @arguments.declare(rate=arguments.non_negative)
    def f(rate=0.5):
      return rate

    self.assertEqual(f(0.25), 0.25)
    self.assertEqual(f(0.25), 0.25)  # Passed before: not checked again.
    for _ in range(2):
      with self.assertRaisesRegex(ValueError, '^f: rate must be non-neg'):
        f(-0.25)
    with self.assertRaisesRegex(ValueError, '^f: rate must be non-neg'):
      f(-1)  # An int: a key of its own.

  def test_once_keys_the_value_and_the_options(self):
    bodies = []

    def check(fn, name, value, low=0.0):
      bodies.append((fn, name, value, low))

    value = np.float64(0.5)  # Not a plain Python value: keyed by identity.
    validation.once(check, 'f', 'x', value)
    validation.once(check, 'f', 'x', value)
    self.assertLen(bodies, 2)  # Outside a public call: every time.
    bodies.clear()
    with validation.public_call('f'):
      validation.once(check, 'f', 'x', value)
      validation.once(check, 'g', 'y', value)  # Same object: skipped.
      validation.once(check, 'f', 'x', value, 0.25)  # Other options.
      validation.once(check, 'f', 'x', jnp.ones(()), jnp.ones(2))
    self.assertEqual([b[:2] for b in bodies],
                     [('f', 'x'), ('f', 'x'), ('f', 'x')])

  def test_plain_values_are_checked_once_for_good(self):
    bodies = []

    def check(fn, name, value, low=0.0):
      if not value >= low:
        raise ValueError(f'{fn}: {name} must be >= {low}, got {value}')
      bodies.append((fn, name, value, low))

    validation.once(check, 'f', 'x', 0.5)
    validation.once(check, 'g', 'y', 0.5)  # Passed before: skipped.
    validation.once(check, 'f', 'x', 0.5, 0.25)  # Other options.
    validation.once(check, 'f', 'x', True)  # Another type.
    validation.once(check, 'f', 'learning_rate', 0.5)  # A type rule's name.
    self.assertEqual([b[1:] for b in bodies],
                     [('x', 0.5, 0.0), ('x', 0.5, 0.25), ('x', True, 0.0),
                      ('learning_rate', 0.5, 0.0)])
    for _ in range(2):  # A failure is not remembered.
      with self.assertRaisesRegex(ValueError, '^f: x must be >= 0.0'):
        validation.once(check, 'f', 'x', -1.0)

  def test_none_learning_rate(self):
    arguments.learning_rate('f', 'x', None)
    arguments.scalar_schedule_or_none('f', 'x', None)
    for rule in (arguments.required_learning_rate,
                 arguments.scalar_or_schedule):
      with self.assertRaisesRegex(TypeError, '^f: x must be a scalar number'):
        rule('f', 'x', None)

  def test_keeps_signature_name_and_pickles(self):
    self.assertEqual(list(inspect.signature(_outer).parameters),
                     ['learning_rate', 'decay', 'period'])
    self.assertEqual(_outer.__name__, '_outer')
    self.assertEqual(_outer.__defaults__, (0.9,))
    self.assertEqual(_outer.__kwdefaults__, {'period': 1})
    self.assertIn('declares only', _outer.__doc__)
    self.assertIs(pickle.loads(pickle.dumps(_outer)), _outer)

  def test_bad_declarations_raise_when_decorating(self):
    with self.assertRaisesRegex(TypeError, "^declare: 'b1' is not a named"):
      arguments.declare(b1=arguments.decay)(lambda b2: b2)
    with self.assertRaisesRegex(TypeError, "^declare: 'kw' is not a named"):
      arguments.declare(kw=arguments.decay)(lambda **kw: kw)
    with self.assertRaisesRegex(TypeError, "^declare: the rule of 'b1'"):
      arguments.declare(b1=0.9)

  def test_python_signature_errors_are_left_to_python(self):
    with self.assertRaisesRegex(TypeError, 'unexpected keyword argument'):
      _inner(b3=0.5)  # pylint: disable=unexpected-keyword-arg


if __name__ == '__main__':
  absltest.main()
