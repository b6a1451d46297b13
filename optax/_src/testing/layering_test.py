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
"""``optax.tree_utils`` is on the ground floor of the library.

The public tree utilities build on a few low-level modules of ``optax._src``
(the ground floor: base types, the dtype and hyperparameter rules, safe
numerics, sharding, the per-leaf moment formulas), never on an optimizer's
helpers (``moments``, ``leaf_kernels``, ``prepared_inputs``,
``validation``, ...), so that those can use ``optax.tree_utils`` without
sitting under it. The ground floor is closed: its modules import only each
other. Every module is parsed, none imported.
"""

import ast
import pathlib
import tempfile

from absl.testing import absltest

import optax

_PACKAGE = pathlib.Path(optax.__file__).resolve().parent

# The modules of optax._src that optax.tree_utils may import.
GROUND_FLOOR = frozenset(f'optax._src.{name}' for name in (
    'base', 'deprecations', 'dtypes', 'hyperparameters', 'leaf_moments',
    'numerics', 'params_placeholder', 'sharding', 'tree_structure'))


def optax_imports(path: pathlib.Path, package: str) -> set[str]:
  """The modules of ``optax`` that a file imports, by absolute name.

  ``from optax._src import base`` gives ``optax._src.base`` (a module
  imported from a package); ``from optax._src.base import Params`` gives
  ``optax._src.base``.

  Args:
    path: a Python file.
    package: the package it belongs to, for relative imports.

  Returns:
    The names of the ``optax`` modules it imports.
  """
  found = set()
  for node in ast.walk(ast.parse(path.read_text(encoding='utf-8'))):
    if isinstance(node, ast.Import):
      found.update(a.name for a in node.names if a.name.startswith('optax'))
    elif isinstance(node, ast.ImportFrom):
      base = node.module or ''
      if node.level:
        parts = package.split('.')[:len(package.split('.')) - node.level + 1]
        base = '.'.join(parts + ([node.module] if node.module else []))
      if base != 'optax' and not base.startswith('optax.'):
        continue
      for alias in node.names:
        name = f'{base}.{alias.name}'
        is_module = (_PACKAGE.parent / (name.replace('.', '/') + '.py')
                     ).exists()
        found.add(name if is_module else base)
  return found


def _product_files(folder: pathlib.Path) -> list[pathlib.Path]:
  return sorted(p for p in folder.glob('*.py')
                if not p.name.endswith('_test.py') and p.name != 'conftest.py')


def _file(module: str) -> pathlib.Path:
  return _PACKAGE.parent / (module.replace('.', '/') + '.py')


class GroundFloorTest(absltest.TestCase):

  def test_tree_utils_imports_only_the_ground_floor(self):
    offenders = {}
    for path in _product_files(_PACKAGE / 'tree_utils'):
      outside = sorted(
          m for m in optax_imports(path, 'optax.tree_utils')
          if m not in GROUND_FLOOR and not m.startswith('optax.tree_utils'))
      if outside:
        offenders[path.name] = outside
    self.assertEmpty(offenders, 'optax.tree_utils imports modules above '
                     'the ground floor (GROUND_FLOOR in this file)')

  def test_the_ground_floor_imports_only_itself(self):
    offenders = {}
    for module in sorted(GROUND_FLOOR):
      self.assertTrue(_file(module).exists(), module)
      above = sorted(optax_imports(_file(module), 'optax._src')
                     - GROUND_FLOOR)
      if above:
        offenders[module] = above
    self.assertEmpty(offenders, 'ground-floor modules import modules above '
                     'it: move the helper they need down, or the module up')

  def test_imports_are_resolved_to_modules(self):
    # The check itself, on every spelling of an import.
    tmp = self.enter_context(tempfile.TemporaryDirectory())
    path = pathlib.Path(tmp) / 'probe.py'
    path.write_text('\n'.join([
        'import numpy as np',
        'from optax._src import moments',
        'from optax._src.base import Params',
        'from . import _casting',
        'from .. import _src',
        'import optax.contrib',
    ]))
    self.assertEqual(
        optax_imports(path, 'optax.tree_utils'),
        {'optax._src.moments', 'optax._src.base', 'optax.tree_utils._casting',
         'optax', 'optax.contrib'})


if __name__ == '__main__':
  absltest.main()
