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
"""Every public name of optax has a contract in contracts.toml.

``optax/_src/testing/contracts.toml`` (package data, read from the installed
package) lists, for each public object of every public namespace of optax,
where its behaviour is defined and the oracle test that checks it, or why
it needs none. This test walks the namespaces (``optax`` and every public
module reachable from it by attribute or by ``pkgutil``) and checks that
each public name is covered, directly or as the same object as a covered
name, and that each entry is well formed: a test or an exemption (not
both), a known source, a test file that exists in the package and defines
the named class or function (read with ``ast``, not imported), and a name
that exists.
"""

import ast
import importlib
import importlib.resources
import pathlib
import pkgutil
import tomllib
import types
from typing import Any
import warnings

from absl.testing import absltest

import optax

_SOURCES = ('docstring', 'paper', 'reference-code', 'identity')
_NAMESPACES = (
    'optax', 'optax.contrib', 'optax.losses', 'optax.schedules',
    'optax.transforms', 'optax.tree', 'optax.tree_utils',
    'optax.projections', 'optax.second_order', 'optax.perturbations',
    'optax.assignment', 'optax.microbatching',
    'optax.experimental.aggregating',
)
_NOT_NAMESPACES = ('optax.conftest',)


def _load_contracts() -> list[dict[str, Any]]:
  text = (importlib.resources.files('optax._src.testing')
          / 'contracts.toml').read_text(encoding='utf-8')
  return tomllib.loads(text).get('contract', [])


def _resolve(dotted: str) -> Any:
  """The object named ``optax.a.b``, by attributes from ``optax``."""
  parts = dotted.split('.')
  if parts[0] != 'optax':
    raise AttributeError(dotted)
  obj = optax
  for part in parts[1:]:
    obj = getattr(obj, part)
  return obj


def _is_optax_module(obj: Any) -> bool:
  return (isinstance(obj, types.ModuleType)
          and (obj.__name__ == 'optax' or obj.__name__.startswith('optax.')))


def _is_private_module(module: types.ModuleType) -> bool:
  return any(p.startswith('_') for p in module.__name__.split('.')[1:])


def _public_names(module: types.ModuleType) -> list[str]:
  """``__all__``, or the public names of a package's ``__init__``.

  An implementation module published under a public name
  (``optax.experimental.aggregating`` is ``optax.experimental._aggregating``)
  also holds what it imports: only its own top-level definitions count.
  """
  names = getattr(module, '__all__', None)
  if names is not None:
    return sorted(names)
  if _is_private_module(module) and getattr(module, '__file__', None):
    tree = ast.parse(pathlib.Path(module.__file__).read_text('utf-8'))
    names = set()
    for node in tree.body:
      if isinstance(node, (ast.ClassDef, ast.FunctionDef)):
        names.add(node.name)
      elif isinstance(node, (ast.Assign, ast.AnnAssign)):
        targets = node.targets if isinstance(node, ast.Assign) else [
            node.target]
        names.update(t.id for t in targets if isinstance(t, ast.Name))
    return sorted(n for n in names if not n.startswith('_'))
  return sorted(n for n in dir(module) if not n.startswith('_'))


def _may_be_namespace(dotted: str) -> bool:
  """Whether a module's name may be public: no test module, no conftest.

  A test module that the run has imported (``optax.conftest_test``) is an
  attribute of its package, so it is told apart by its name here as well
  as in ``pkgutil``'s listing.
  """
  parts = dotted.split('.')
  return (not any(p.startswith('_') for p in parts[1:])
          and not any(p.endswith('_test') or p == 'conftest'
                      for p in parts[1:])
          and dotted not in _NOT_NAMESPACES)


def _namespaces() -> dict[str, types.ModuleType]:
  """Every public namespace: the listed ones, pkgutil's, and submodules."""
  found = {}
  todo = list(_NAMESPACES)
  for info in pkgutil.walk_packages(optax.__path__, 'optax.'):
    if _may_be_namespace(info.name):
      todo.append(info.name)
  while todo:
    dotted = todo.pop()
    if dotted in found or not _may_be_namespace(dotted):
      continue
    try:
      module = _resolve(dotted)
    except AttributeError:
      module = importlib.import_module(dotted)
    found[dotted] = module
    for name in _public_names(module):
      value = getattr(module, name, None)
      if _is_optax_module(value) and not _is_private_module(value):
        todo.append(f'{dotted}.{name}')
  return found


def _defined_names(path: pathlib.Path) -> set[str]:
  tree = ast.parse(path.read_text(encoding='utf-8'))
  return {node.name for node in tree.body
          if isinstance(node, (ast.ClassDef, ast.FunctionDef))}


class ContractsCoverageTest(absltest.TestCase):

  @classmethod
  def setUpClass(cls):
    super().setUpClass()
    cls.contracts = _load_contracts()
    with warnings.catch_warnings():
      warnings.simplefilter('ignore')
      cls.namespaces = _namespaces()

  def test_entries_are_well_formed(self):
    problems = []
    seen = set()
    for entry in self.contracts:
      name = entry.get('name', '<no name>')
      if name in seen:
        problems.append(f'{name}: listed twice')
      seen.add(name)
      has_test, has_exempt = 'test' in entry, 'exempt' in entry
      if has_test == has_exempt:
        problems.append(f'{name}: needs exactly one of test and exempt')
      if has_exempt and not str(entry['exempt']).strip():
        problems.append(f'{name}: empty exemption')
      if has_test:
        for field in ('source', 'where', 'checks'):
          if not str(entry.get(field, '')).strip():
            problems.append(f'{name}: no {field}')
        if entry.get('source') not in _SOURCES:
          problems.append(
              f'{name}: source {entry.get("source")!r} not one of {_SOURCES}')
    self.assertEmpty(problems, '\n'.join(problems))

  def test_named_objects_exist(self):
    missing = []
    with warnings.catch_warnings():
      warnings.simplefilter('ignore')
      for entry in self.contracts:
        try:
          _resolve(entry['name'])
        except (AttributeError, KeyError):
          missing.append(entry.get('name', '<no name>'))
    self.assertEmpty(missing, 'entries naming no public object: '
                     + ', '.join(missing))

  def test_named_tests_exist(self):
    root = pathlib.Path(optax.__file__).resolve().parent.parent
    problems = []
    cache = {}
    for entry in self.contracts:
      if 'test' not in entry:
        continue
      path, _, target = entry['test'].partition('::')
      file = root / path
      if not path.startswith('optax/') or not file.is_file():
        problems.append(f'{entry["name"]}: no file {path}')
        continue
      if file not in cache:
        cache[file] = _defined_names(file)
      top = target.split('::')[0]
      if not top or top not in cache[file]:
        problems.append(f'{entry["name"]}: {path} defines no {top!r}')
    self.assertEmpty(problems, '\n'.join(problems))

  def test_every_public_name_is_covered(self):
    covered_ids = set()
    covered_names = set()
    with warnings.catch_warnings():
      warnings.simplefilter('ignore')
      for entry in self.contracts:
        covered_names.add(entry.get('name'))
        try:
          covered_ids.add(id(_resolve(entry['name'])))
        except (AttributeError, KeyError):
          pass
      uncovered = {}
      for dotted, module in sorted(self.namespaces.items()):
        for name in _public_names(module):
          full = f'{dotted}.{name}'
          value = getattr(module, name, None)
          if _is_optax_module(value) or full in covered_names:
            continue
          if id(value) in covered_ids and not isinstance(
              value, (int, float, str, bool, type(None))):
            continue
          uncovered.setdefault(dotted, []).append(name)
    count = sum(len(v) for v in uncovered.values())
    message = f'{count} public names without a contract:\n' + '\n'.join(
        f'  {ns} ({len(names)}): {" ".join(names)}'
        for ns, names in sorted(uncovered.items()))
    self.assertEqual(count, 0, message)


if __name__ == '__main__':
  absltest.main()
