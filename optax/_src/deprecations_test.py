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
import numpy as np
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
        'The function _add_one is deprecated. Please use optax.add_two'
        ' instead. This function will be/was removed in optax 0.3.0.')
    # The warning points at this file, the caller.
    self.assertEqual(caught[0].filename, __file__)

  def test_keeps_name_and_docstring(self):
    wrapped = deprecations.warn_deprecated_function(_add_one)
    self.assertEqual(wrapped.__name__, '_add_one')
    self.assertEqual(wrapped.__doc__, 'Adds one.')

  def test_message_without_replacement(self):
    self.assertEqual(deprecations.deprecation_message('foo'),
                     'The function foo is deprecated.')


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
      with self.assertWarns(DeprecationWarning) as caught:
        self.assertIs(getattr(optax, name), getattr(optax.contrib, name))
      self.assertEqual(
          str(caught.warning), f'optax.{name} is deprecated: use'
          f' optax.contrib.{name} (optax v0.1.8 or newer).')
      self.assertEqual(caught.filename, __file__)

  def test_tree_utils_deprecated_aliases_as_upstream(self):
    # Upstream 0.2.8 still serves these names, each with a DeprecationWarning.
    tree = {'a': np.array([1.0, -3.0], np.float32), 'b': np.float32(2.0)}
    flat = np.array([1.0, -3.0, 2.0])
    expected = {
        'tree_l1_norm': ('tree_norm(..., ord=1)', np.abs(flat).sum()),
        'tree_l2_norm': ('tree_norm', np.sqrt((flat ** 2).sum())),
        'tree_linf_norm': ('tree_norm(..., ord=jnp.inf)',
                           np.abs(flat).max()),
    }
    for name, (remedy, value) in expected.items():
      with self.assertWarns(DeprecationWarning) as caught:
        fn = getattr(optax.tree_utils, name)
      self.assertEqual(
          str(caught.warning), f'optax.tree_utils.{name} is deprecated: use'
          f' optax.tree_utils.{remedy} (optax v0.2.5 or newer).')
      self.assertEqual(caught.filename, __file__)
      np.testing.assert_allclose(fn(tree), value, rtol=1e-6)
    with self.assertWarns(DeprecationWarning) as caught:
      scale = optax.tree_utils.tree_scalar_mul
    self.assertEqual(
        str(caught.warning), 'optax.tree_utils.tree_scalar_mul is deprecated:'
        ' use optax.tree_utils.tree_scale (optax v0.2.5 or newer).')
    np.testing.assert_allclose(scale(2.0, tree)['a'], [2.0, -6.0])
    # Upstream's message names tree_scalar_mul here (deviations.toml).
    with self.assertWarns(DeprecationWarning) as caught:
      add_scale = optax.tree_utils.tree_add_scalar_mul
    self.assertEqual(
        str(caught.warning), 'optax.tree_utils.tree_add_scalar_mul is'
        ' deprecated: use optax.tree_utils.tree_add_scale (optax v0.2.5 or'
        ' newer).')
    np.testing.assert_allclose(add_scale(tree, 0.5, tree)['b'], 3.0)


if __name__ == '__main__':
  absltest.main()
