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
"""Tests for `validation.py`."""

import math

from absl.testing import absltest
from absl.testing import parameterized
import jax.numpy as jnp
import numpy as np

from optax._src import validation


_NAN = float('nan')


class ChecksTest(parameterized.TestCase):

  @parameterized.named_parameters(
      ('non_negative', validation.check_non_negative,
       (0, 0.0, 1e-8, np.float32(2.0), 10**30),
       (-1e-12, -1, _NAN, np.float32('nan')), 'non-negative'),
      ('positive', validation.check_positive,
       (1e-30, 1, np.float64(3.0), math.inf),
       (0, 0.0, -2.0, _NAN), 'positive'),
      ('finite', validation.check_finite,
       (0.0, -3, 1e300, np.float32(1.0)),
       (math.inf, -math.inf, _NAN, np.float32('inf')), 'finite'),
      ('decay', validation.check_decay,
       (0.0, 0.5, 0.999, np.float32(0.9)),
       (1.0, 1.5, -0.1, _NAN), r'in \[0, 1\)'),
  )
  def test_numbers(self, check, good, bad, expected):
    for value in good:
      check('f', 'x', value)
    for value in bad:
      with self.assertRaisesRegex(ValueError, f'^f: x must be {expected}, got'):
        check('f', 'x', value)

  def test_closed_decay_accepts_one_and_rejects_nan(self):
    validation.check_decay('f', 'b', 1.0, closed=True)
    validation.check_decay('f', 'b', 0, closed=True)
    for value in (1.0 + 1e-7, -1e-7, _NAN):
      with self.assertRaisesRegex(ValueError, r'f: b must be in \[0, 1\]'):
        validation.check_decay('f', 'b', value, closed=True)

  @parameterized.parameters(
      validation.check_non_negative, validation.check_positive,
      validation.check_finite, validation.check_decay)
  def test_arrays_bools_and_callables_pass(self, check):
    # Arrays may be tracers (inject_hyperparams) and are checked, if at all,
    # where they are used; bools and schedules are not numbers.
    for value in (jnp.asarray(-1.0), jnp.asarray(jnp.nan), lambda _: -1.0,
                  None, True):
      check('f', 'x', value)

  def test_non_negative_int(self):
    for value in (0, 3, np.int32(7)):
      validation.check_non_negative_int('f', 'k', value)
    for value in (-1, 1.0, True, _NAN, '2', None):
      with self.assertRaisesRegex(
          ValueError, '^f: k must be a non-negative integer, got'):
        validation.check_non_negative_int('f', 'k', value)

  def test_positive_int(self):
    for value in (1, 12, np.int64(3)):
      validation.check_positive_int('f', 'k', value)
    for value in (0, -2, 2.0, False, True, _NAN, None):
      with self.assertRaisesRegex(
          ValueError, '^f: k must be a positive integer, got'):
        validation.check_positive_int('f', 'k', value)

  @parameterized.named_parameters(
      ('open', False, False, (0.5, 1e-9, 1 - 1e-9), (0.0, 1.0, -1.0, _NAN),
       r'\(0, 1\)'),
      ('half_open', False, True, (1.0, 0.5), (0.0, 1.5, _NAN), r'\(0, 1\]'),
      ('closed', True, True, (0.0, 1.0), (-0.1, 1.1, _NAN), r'\[0, 1\]'),
  )
  def test_in_interval(self, include_low, include_high, good, bad, text):
    for value in good:
      validation.check_in_interval('f', 'x', value, 0, 1,
                                   include_low=include_low,
                                   include_high=include_high)
    for value in bad:
      with self.assertRaisesRegex(ValueError, f'^f: x must be in {text}, got'):
        validation.check_in_interval('f', 'x', value, 0, 1,
                                     include_low=include_low,
                                     include_high=include_high)
    for value in (jnp.asarray(2.0), lambda _: 2.0, None, True):
      validation.check_in_interval('f', 'x', value, 0, 1)

  def test_in_interval_hint_follows_value(self):
    with self.assertRaisesRegex(
        ValueError, r'^f: b1 must be in \(0, 1\], got 0; no average\.$'):
      validation.check_in_interval('f', 'b1', 0, 0, 1, include_low=False,
                                   hint='no average.')

  def test_value_is_shown_with_repr(self):
    with self.assertRaisesRegex(ValueError, "got 'a'"):
      validation.check_non_negative_int('f', 'k', 'a')
    with self.assertRaisesRegex(ValueError, 'got nan$'):
      validation.check_positive('f', 'x', _NAN)


class MissingParamsTest(absltest.TestCase):

  def test_message_names_function_reason_and_remedy(self):
    err = validation.missing_params_error(
        'sophia', 'the Hessian is taken at the params',
        'tx.update(grads, state, params, obj_fn=loss_fn)')
    self.assertIsInstance(err, ValueError)
    self.assertEqual(
        str(err),
        'sophia: params must be given to update (got None); the Hessian is'
        ' taken at the params. Remedy: call tx.update(grads, state, params,'
        ' obj_fn=loss_fn).')

  def test_require_params(self):
    validation.require_params('dog', {'w': jnp.zeros(2)})
    with self.assertRaisesRegex(
        ValueError, r'^dog: params must be given to update \(got None\)\.'):
      validation.require_params('dog', None)


class ArrayArgumentTest(parameterized.TestCase):

  @parameterized.parameters(jnp.float32, jnp.bfloat16, jnp.float16)
  def test_floating_dtypes_pass(self, dtype):
    validation.check_floating_dtype('f', 'x', jnp.zeros(2, dtype))

  @parameterized.parameters(jnp.int32, jnp.bool_, jnp.complex64)
  def test_other_dtypes_raise_naming_the_argument(self, dtype):
    with self.assertRaisesRegex(
        TypeError, r'^f: x must have a floating dtype, got \w+\. Cast it'):
      validation.check_floating_dtype('f', 'x', jnp.zeros(2, dtype))

  def test_same_shape(self):
    validation.check_same_shape('f', 'a', jnp.zeros((2, 3)), 'b',
                                jnp.ones((2, 3)))
    with self.assertRaisesRegex(
        ValueError,
        r'^f: Shape mismatch: a has shape \(3,\) but b has shape \(1, 3\)'):
      validation.check_same_shape('f', 'a', jnp.zeros(3), 'b',
                                  jnp.zeros((1, 3)))


if __name__ == '__main__':
  absltest.main()
