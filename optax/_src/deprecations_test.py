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
"""Tests for ``optax._src.deprecations``."""

import math
import warnings

from absl.testing import absltest
import optax

from optax._src import deprecations


def _add_one(x):
  """Adds one."""
  return x + 1


class WarnDeprecatedFunctionTest(absltest.TestCase):
  """Tests of warn_deprecated_function."""

  def test_warns_and_forwards(self):
    wrapped = deprecations.warn_deprecated_function(
        _add_one, replacement='optax.add_two', removal='0.3.0')
    with warnings.catch_warnings(record=True) as caught:
      warnings.simplefilter('always')
      self.assertEqual(wrapped(1), 2)
    self.assertLen(caught, 1)
    self.assertIs(caught[0].category, DeprecationWarning)
    self.assertEqual(
        str(caught[0].message),
        '_add_one is deprecated and will be removed in optax 0.3.0. Please'
        ' use optax.add_two instead.')
    # The warning points at this file, the caller.
    self.assertEqual(caught[0].filename, __file__)

  def test_keeps_name_and_docstring(self):
    wrapped = deprecations.warn_deprecated_function(_add_one)
    self.assertEqual(wrapped.__name__, '_add_one')
    self.assertEqual(wrapped.__doc__, 'Adds one.')

  def test_message_without_replacement(self):
    self.assertEqual(deprecations.deprecation_message('optax.foo'),
                     'optax.foo is deprecated.')


class ModuleGetattrTest(absltest.TestCase):
  """Tests of module_getattr and of the deprecated names of ``optax``."""

  def test_serves_a_deprecated_name_with_a_warning(self):
    getattr_fn = deprecations.module_getattr(
        'mylib', {'old_sqrt': ('use math.sqrt', 'math:sqrt')})
    with warnings.catch_warnings(record=True) as caught:
      warnings.simplefilter('always')
      self.assertIs(getattr_fn('old_sqrt'), math.sqrt)
    self.assertLen(caught, 1)
    self.assertIs(caught[0].category, DeprecationWarning)
    self.assertEqual(str(caught[0].message), 'use math.sqrt')
    self.assertEqual(caught[0].filename, __file__)

  def test_removed_and_unknown_names_raise(self):
    getattr_fn = deprecations.module_getattr(
        'mylib', {'gone': ('mylib.gone was removed', None)})
    with self.assertRaisesRegex(AttributeError, 'mylib.gone was removed'):
      getattr_fn('gone')
    with self.assertRaisesRegex(
        AttributeError, "module 'mylib' has no attribute 'other'"):
      getattr_fn('other')
    # hasattr relies on the AttributeError.
    self.assertFalse(hasattr(optax, 'monte_carlo'))

  def test_optax_privacy_aliases_as_upstream(self):
    # As upstream 0.2.8: optax.dpsgd & co. are optax.contrib's objects,
    # served with a DeprecationWarning.
    for name in ('dpsgd', 'differentially_private_aggregate',
                 'DifferentiallyPrivateAggregateState'):
      with self.assertWarnsRegex(DeprecationWarning,
                                 f'optax.contrib.{name}'):
        self.assertIs(getattr(optax, name), getattr(optax.contrib, name))


if __name__ == '__main__':
  absltest.main()
