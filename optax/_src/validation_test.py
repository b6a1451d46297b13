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

import inspect
import math
import warnings

from absl.testing import absltest
from absl.testing import parameterized
import jax
import jax.numpy as jnp
import numpy as np

from optax._src import alias
from optax._src import validation
from optax._src.testing import registry
from optax.schedules import _inject


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


class TypeChecksTest(parameterized.TestCase):

  @parameterized.parameters(
      validation.check_non_negative, validation.check_positive,
      validation.check_finite, validation.check_decay,
      lambda fn, name, value: validation.check_in_interval(
          fn, name, value, 0, 1))
  def test_strings_raise_type_error_naming_the_argument(self, check):
    # Issue 31: a string used to pass (it is not a Python number) and fail,
    # if at all, deep inside the update.
    for value in ('0.9', b'0.9'):
      with self.assertRaisesRegex(
          TypeError, r'^f: b1 must be a scalar number or a schedule, got'
          r" (str|bytes) b?'0\.9'$"):
        check('f', 'b1', value)

  def test_scalar_or_schedule_accepts_scalars_and_schedules(self):
    for value in (0.01, 1, np.float32(0.1), np.int32(2), jnp.asarray(0.1),
                  np.asarray(0.1), jax.ShapeDtypeStruct((), jnp.float32),
                  lambda count: 0.1, None, 1 + 2j):
      validation.check_scalar_or_schedule('sgd', 'learning_rate', value)

  @parameterized.parameters(
      ('0.01', "str '0.01'"), (b'1', "bytes b'1'"),
      (jnp.ones(3), r'an array of shape \(3,\)'),
      (np.ones((1,)), r'an array of shape \(1,\)'), ([0.1], r'list \[0.1\]'),
      ({'w': 0.1}, "dict {'w': 0.1}"))
  def test_scalar_or_schedule_rejects(self, value, shown):
    with self.assertRaisesRegex(
        TypeError, '^sgd: learning_rate must be a scalar number or a'
        f' schedule, got {shown}$'):
      validation.check_scalar_or_schedule('sgd', 'learning_rate', value)

  def test_scalar_or_schedule_none(self):
    validation.check_scalar_or_schedule('f', 'lr', None, allow_none=True)
    with self.assertRaisesRegex(TypeError, '^f: lr must be a scalar number or'
                                ' a schedule, got None$'):
      validation.check_scalar_or_schedule('f', 'lr', None, allow_none=False)

  def test_scalars_or_schedules_names_the_first_bad_argument(self):
    validation.check_scalars_or_schedules(
        'adam', b1=0.9, b2=jnp.asarray(0.999), eps=lambda count: 1e-8)
    with self.assertRaisesRegex(
        TypeError, r'^adam: b2 must be a scalar number or a schedule, got an'
        r' array of shape \(2,\)$'):
      validation.check_scalars_or_schedules(
          'adam', b1=0.9, b2=jnp.ones(2), eps='1e-8')
    with self.assertRaisesRegex(TypeError, '^adam: eps must be a scalar'
                                " number or a schedule, got str '1e-8'$"):
      validation.check_scalars_or_schedules('adam', b1=0.9, eps='1e-8')

  def test_scalars_or_schedules_none(self):
    validation.check_scalars_or_schedules(
        'adamw', allow_none=True, weight_decay=None, eps=1e-8)
    with self.assertRaisesRegex(TypeError, '^adamw: weight_decay must be a'
                                ' scalar number or a schedule, got None$'):
      validation.check_scalars_or_schedules(
          'adamw', eps=1e-8, weight_decay=None)
    # A traced value (inject_hyperparams) is checked by its shape only.
    def build(b1):
      validation.check_scalars_or_schedules('f', b1=b1)
      return b1
    self.assertEqual(jax.jit(build)(0.5), 0.5)
    with self.assertRaisesRegex(TypeError, r'^f: b1 .* shape \(3,\)$'):
      jax.jit(build)(jnp.ones(3))

  def test_traced_values_are_checked_by_shape_only(self):
    # inject_hyperparams calls factories again with traced arrays.
    def build(lr):
      validation.check_learning_rate('f', lr)
      validation.check_finite('f', 'learning_rate', lr)
      return lr
    self.assertTrue(np.isnan(jax.jit(build)(jnp.nan)))
    with self.assertRaisesRegex(TypeError, r'an array of shape \(3,\)$'):
      jax.jit(build)(jnp.ones(3))

  def test_learning_rate_like_names_must_be_scalars_in_every_check(self):
    for check in (validation.check_finite, validation.check_non_negative,
                  validation.check_positive):
      for name in ('learning_rate', 'max_learning_rate'):
        with self.assertRaisesRegex(
            TypeError, f'^g: {name} must be a scalar number or a schedule'):
          check('g', name, jnp.full(3, 0.1))
      # Other hyperparameters may be arrays (a tree-shaped weight decay).
      check('g', 'weight_decay', jnp.full(3, 0.1))

  @parameterized.parameters(math.nan, math.inf, -math.inf, np.float32('nan'))
  def test_learning_rate_must_be_finite(self, value):
    with self.assertRaisesRegex(
        ValueError, '^prodigy: learning_rate must be finite, got'):
      validation.check_learning_rate('prodigy', value)


def _takes(entry, name):
  return name in inspect.signature(entry.factory()).parameters


# Every optimizer of the registry that takes a learning rate (or a cap on
# it), with the name of that argument.
_LEARNING_RATE_ENTRIES = [
    (entry.name, entry, name)
    for entry in registry.ENTRIES
    for name in ('learning_rate', 'max_learning_rate') if _takes(entry, name)]


class RegistryLearningRateTest(parameterized.TestCase):
  """Every optimizer checks its learning rate when built (issue 31)."""

  def test_registry_has_learning_rates(self):
    self.assertGreaterEqual(len(_LEARNING_RATE_ENTRIES), 50)

  def _build(self, entry, name, value):
    kwargs = entry.build_kwargs()
    kwargs[name] = value
    return entry.factory()(**kwargs)

  @parameterized.named_parameters(_LEARNING_RATE_ENTRIES)
  def test_string_is_a_type_error(self, entry, name):
    with self.assertRaisesRegex(
        TypeError, f'{name} must be a scalar number or a schedule, got str'
        " '0.01'"):
      self._build(entry, name, '0.01')

  @parameterized.named_parameters(_LEARNING_RATE_ENTRIES)
  def test_vector_is_a_type_error(self, entry, name):
    with self.assertRaisesRegex(
        TypeError, f'{name} must be a scalar number or a schedule, got an'
        r' array of shape \(3,\)'):
      self._build(entry, name, jnp.full(3, 0.01))

  @parameterized.named_parameters(_LEARNING_RATE_ENTRIES)
  def test_nan_is_a_value_error(self, entry, name):
    with self.assertRaisesRegex(ValueError, f'{name} must be .*, got nan'):
      self._build(entry, name, float('nan'))

  @parameterized.named_parameters(_LEARNING_RATE_ENTRIES)
  def test_nan_is_a_value_error_when_injected(self, entry, name):
    if not entry.injectable:
      self.skipTest(f'{entry.name} is not injectable')
    kwargs = entry.build_kwargs()
    kwargs[name] = float('nan')
    with self.assertRaisesRegex(ValueError, f'{name} must be .*, got nan'):
      _inject.inject_hyperparams(entry.factory())(**kwargs)

  @parameterized.named_parameters(_LEARNING_RATE_ENTRIES)
  def test_numbers_arrays_and_schedules_build(self, entry, name):
    values = [0.01, 1, np.float32(0.01), jnp.asarray(0.01)]
    # optimistic_adam takes no schedule, as upstream's.
    if entry.name != 'optimistic_adam':
      values.append(lambda count: 0.01)
    for value in values:
      self._build(entry, name, value)


class LearningRateNoneAndInfTest(parameterized.TestCase):

  @parameterized.parameters(
      'contrib.dadapt_adamw', 'contrib.prodigy', 'contrib.schedule_free',
      'contrib.schedule_free_adamw', 'contrib.schedule_free_sgd',
      'contrib.madgrad', 'contrib.scale_by_madgrad', 'contrib.momo',
      'contrib.momo_adam')
  def test_none_is_a_type_error_when_built(self, name):
    # Upstream 0.2.8 builds these with learning_rate=None and fails in the
    # first update (TypeError); they have no meaning without a rate.
    entry = registry.BY_NAME[name]
    kwargs = entry.build_kwargs()
    kwargs['learning_rate'] = None
    with self.assertRaisesRegex(
        TypeError, f'^{name.split(".")[-1]}: learning_rate must be a scalar'
        ' number or a schedule, got None$'):
      entry.factory()(**kwargs)

  @parameterized.parameters(
      'contrib.dadapt_adamw', 'contrib.prodigy', 'contrib.schedule_free_adamw',
      'contrib.schedule_free_sgd', 'scale_by_learning_rate', 'adamw', 'sgd')
  def test_inf_is_a_value_error_plain_and_injected(self, name):
    entry = registry.BY_NAME[name]
    kwargs = entry.build_kwargs()
    kwargs['learning_rate'] = math.inf
    for factory in (entry.factory(),
                    _inject.inject_hyperparams(entry.factory())):
      with self.assertRaisesRegex(
          ValueError, 'learning_rate must be finite, got inf'):
        factory(**kwargs)


class InjectedValidationTest(absltest.TestCase):
  """inject_hyperparams builds the factory once to validate (issue 31)."""

  def test_bad_values_raise_when_built_not_in_init(self):
    inject = _inject.inject_hyperparams
    with self.assertRaisesRegex(
        TypeError, "^sgd: learning_rate must be a scalar number or a"
        " schedule, got str '0.01'$"):
      inject(alias.sgd)(learning_rate='0.01')
    with self.assertRaisesRegex(
        TypeError, r'^sgd: learning_rate .* got an array of shape \(3,\)$'):
      inject(alias.sgd)(learning_rate=jnp.ones(3))
    with self.assertRaisesRegex(
        ValueError, '^adamw: learning_rate must be finite, got nan$'):
      inject(alias.adamw)(learning_rate=math.nan)
    with self.assertRaisesRegex(ValueError, r'b1 must be in \[0, 1\)'):
      inject(alias.adam)(learning_rate=0.1, b1=1.5)

  def test_traced_hyperparameters_build_under_jit(self):
    params = jnp.array([1.0, -2.0])

    @jax.jit
    def step(lr, b1):
      tx = _inject.inject_hyperparams(alias.adam)(learning_rate=lr, b1=b1)
      return tx.update(params, tx.init(params))[0]

    plain = alias.adam(0.1, b1=0.5)
    expected, _ = plain.update(params, plain.init(params))
    np.testing.assert_allclose(step(0.1, 0.5), expected, rtol=1e-6)

  def test_schedules_and_arrays_build(self):
    params = jnp.zeros(2)
    for lr in (lambda count: 0.1 / (count + 1), jnp.asarray(0.1),
               np.float32(0.1), 1):
      tx = _inject.inject_hyperparams(alias.adam)(learning_rate=lr, b1=0.9)
      tx.update(jnp.ones(2), tx.init(params))
    # A factory that takes no schedule gets an array for the scheduled
    # argument, also in the check when built.
    with warnings.catch_warnings():
      warnings.simplefilter('ignore', DeprecationWarning)
      tx = _inject.inject_hyperparams(alias.optimistic_adam)(
          learning_rate=lambda count: 0.1)
      tx.update(jnp.ones(2), tx.init(params))

  def test_deprecated_factory_warns_in_init_not_when_built(self):
    with warnings.catch_warnings(record=True) as caught:
      warnings.simplefilter('always')
      tx = _inject.inject_hyperparams(alias.optimistic_adam)(
          learning_rate=0.1)
      self.assertEqual([str(w.message) for w in caught], [])
      tx.init(jnp.zeros(2))
    self.assertIn('`optimistic_adam` is deprecated',
                  [str(w.message) for w in caught][0])


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
