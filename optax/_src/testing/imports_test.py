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
"""The library does not depend on its tests' machinery.

Every module of the installed ``optax`` package but the tests' own (the
``*_test.py`` files, ``conftest.py``, ``_src/test_utils.py`` and this
package, ``_src/testing``) is parsed, and none may import
``optax._src.testing`` or ``optax._src.test_utils`` (by an import
statement, relative or absolute, or by a name given to ``importlib``), nor
start a process (``subprocess``).
"""

import ast
import pathlib
import tempfile

from absl.testing import absltest

import optax

_PACKAGE = pathlib.Path(optax.__file__).resolve().parent
_TEST_MACHINERY = ('optax._src.testing', 'optax._src.test_utils')
_FORBIDDEN = _TEST_MACHINERY + ('subprocess',)


def _is_test_module(path: pathlib.Path) -> bool:
  relative = path.relative_to(_PACKAGE)
  return (path.name.endswith('_test.py') or path.name == 'conftest.py'
          or relative.parts[:2] == ('_src', 'testing')
          or relative.as_posix() == '_src/test_utils.py')


def _module_name(path: pathlib.Path) -> str:
  parts = ('optax',) + path.relative_to(_PACKAGE).with_suffix('').parts
  return '.'.join(parts[:-1] if parts[-1] == '__init__' else parts)


def _absolute(node: ast.ImportFrom, module: str, is_package: bool) -> str:
  """The absolute module a ``from ... import`` reads from."""
  if not node.level:
    return node.module or ''
  parts = module.split('.')
  if not is_package:
    parts = parts[:-1]
  base = parts[:len(parts) - node.level + 1]
  return '.'.join(base + ([node.module] if node.module else []))


def _within(name: str, prefixes: tuple[str, ...]) -> bool:
  return any(name == p or name.startswith(p + '.') for p in prefixes)


def forbidden_imports(path: pathlib.Path, module: str) -> list[str]:
  """What a module imports of the tests' machinery, or of ``subprocess``.

  Args:
    path: a Python file.
    module: its module name (``optax._src.alias``), for relative imports.

  Returns:
    ``'line N: name'`` for each import (or string naming a module for
    ``importlib``) of a forbidden module.
  """
  tree = ast.parse(path.read_text(encoding='utf-8'), str(path))
  found = []
  for node in ast.walk(tree):
    names = []
    if isinstance(node, ast.Import):
      names = [alias.name for alias in node.names]
    elif isinstance(node, ast.ImportFrom):
      base = _absolute(node, module, path.name == '__init__.py')
      names = [base] + [f'{base}.{alias.name}' for alias in node.names]
    elif isinstance(node, ast.Constant) and isinstance(node.value, str):
      # importlib.import_module('optax._src.testing...') and the like.
      names = [node.value] if _within(node.value, _TEST_MACHINERY) else []
    found += [f'line {node.lineno}: {name}' for name in names
              if _within(name, _FORBIDDEN)]
  return sorted(set(found))


class ProductModulesTest(absltest.TestCase):

  def test_the_package_has_product_and_test_modules(self):
    paths = list(_PACKAGE.rglob('*.py'))
    self.assertGreater(sum(not _is_test_module(p) for p in paths), 50)
    self.assertTrue(_is_test_module(_PACKAGE / '_src' / 'testing' /
                                    'registry.py'))
    self.assertTrue(_is_test_module(_PACKAGE / '_src' / 'test_utils.py'))
    self.assertFalse(_is_test_module(_PACKAGE / '_src' / 'alias.py'))

  def test_no_product_module_imports_test_machinery(self):
    offenders = {}
    for path in sorted(_PACKAGE.rglob('*.py')):
      if not _is_test_module(path):
        found = forbidden_imports(path, _module_name(path))
        if found:
          offenders[str(path.relative_to(_PACKAGE))] = found
    self.assertEmpty(
        offenders, 'modules of the library import the tests\' machinery '
        '(optax/_src/testing, optax/_src/test_utils.py) or subprocess')

  def test_forbidden_imports_are_found(self):
    # The check itself: every spelling of an import of the machinery.
    tmp = self.enter_context(tempfile.TemporaryDirectory())
    path = pathlib.Path(tmp) / 'probe.py'
    path.write_text('\n'.join([
        'import subprocess',
        'from optax._src import testing',
        'from optax._src.testing import registry',
        'from . import test_utils',
        'from .testing.cases import prepared_inputs_test_case',
        "importlib.import_module('optax._src.testing.probes')",
        'from optax._src import base',
        'import optax.contrib',
    ]))
    self.assertEqual(
        forbidden_imports(path, 'optax._src.probe'),
        ['line 1: subprocess', 'line 2: optax._src.testing',
         'line 3: optax._src.testing', 'line 3: optax._src.testing.registry',
         'line 4: optax._src.test_utils', 'line 5: optax._src.testing.cases',
         'line 5: optax._src.testing.cases.prepared_inputs_test_case',
         'line 6: optax._src.testing.probes'])


if __name__ == '__main__':
  absltest.main()
