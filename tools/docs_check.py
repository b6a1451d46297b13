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
"""Checks the documentation against the public API of optax.

Two checks, each of which makes the script exit with status 1 when it fails:

1. Coverage: every public name of ``optax`` and of each public namespace
   (``optax.transforms``, ``optax.losses``, ..., ``optax.experimental`` and
   ``optax.experimental.aggregating``) has an entry in the API reference
   under ``docs/`` (an ``autosummary`` list or an ``autofunction`` /
   ``autoclass`` / ``autodata`` / ... directive, read together with the
   ``currentmodule`` in force). A function or class counts as documented when
   the same object is documented under another public name (``optax.chain``
   covers ``optax.transforms.chain``); other objects (type aliases) need
   their own entry. Entries that name nothing are reported too.
2. Doctests: the ``>>>`` examples in the docstrings of the public objects
   (and their methods, and the namespaces' module docstrings) run with
   ``doctest`` (``NORMALIZE_WHITESPACE | ELLIPSIS``), with ``jax``, ``jnp``,
   ``np`` and ``optax`` in their globals.

Usage, from the repository root::

  python -m tools.docs_check                # both checks
  python -m tools.docs_check --no-doctests  # coverage only
  python -m tools.docs_check -k adam        # doctests of names containing adam
"""

import argparse
import ast
import doctest
import functools
import importlib
import inspect
import pathlib
import re
import sys
import time
import types
import warnings
from typing import Any

NAMESPACES = (
    'optax',
    'optax.assignment',
    'optax.contrib',
    'optax.experimental',
    'optax.experimental.aggregating',
    'optax.losses',
    'optax.microbatching',
    'optax.perturbations',
    'optax.projections',
    'optax.schedules',
    'optax.second_order',
    'optax.transforms',
    'optax.tree',
    'optax.tree_utils',
)

_AUTO_DIRECTIVES = (
    'autofunction', 'autoclass', 'autodata', 'autoattribute', 'automethod',
    'autoexception', 'autodecorator', 'autoproperty',
)
_DIRECTIVE = re.compile(r'^(\s*)\.\.\s+([\w:-]+)::\s*(\S*)\s*$')
_MYST_DIRECTIVE = re.compile(r'^\s*```+\s*\{([\w:-]+)\}\s*(\S*)\s*$')


def resolve(dotted: str) -> Any:
  """Returns the object a dotted public name such as ``optax.tree.add`` names.

  Attributes are followed from the ``optax`` package, so that namespaces that
  are attributes rather than importable submodules (``optax.experimental.
  aggregating``) resolve too.

  Raises:
    AttributeError: if the name does not exist.
  """
  parts = dotted.split('.')
  obj = importlib.import_module(parts[0])
  for part in parts[1:]:
    obj = getattr(obj, part)
  return obj


def public_names(namespace: str) -> list[str]:
  """Returns the public names of a namespace, sorted.

  ``__all__`` when the module has one; for a package, the names it binds that
  do not start with an underscore and are not modules; for a plain module
  file exposed as a namespace, the names it defines at top level (so that
  ``typing`` helpers it imports are not counted).
  """
  module = resolve(namespace)
  if hasattr(module, '__all__'):
    return sorted(module.__all__)
  if hasattr(module, '__path__'):
    return sorted(
        name for name in dir(module)
        if not name.startswith('_')
        and not isinstance(getattr(module, name), types.ModuleType))
  tree = ast.parse(pathlib.Path(inspect.getfile(module)).read_text())
  names = set()
  for node in tree.body:
    if isinstance(node, (ast.FunctionDef, ast.ClassDef)):
      names.add(node.name)
    elif isinstance(node, ast.Assign):
      names.update(t.id for t in node.targets if isinstance(t, ast.Name))
    elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
      names.add(node.target.id)
  return sorted(name for name in names if not name.startswith('_'))


def documented_entries(docs_dir: pathlib.Path) -> list[tuple[str, str]]:
  """Returns ``(full name, 'file:line')`` for each API entry under docs_dir.

  Reads ``.rst`` files (and ``.md`` files with MyST directives), follows
  ``currentmodule`` / ``module``, and collects the names of ``autosummary``
  lists, the ``auto*`` directives and the public names of ``automodule``
  directives that have ``:members:``.
  """
  entries = []
  for path in sorted(docs_dir.rglob('*')):
    if path.suffix not in ('.rst', '.md') or '_build' in path.parts:
      continue
    current = ''
    lines = path.read_text().splitlines()
    i = 0
    while i < len(lines):
      match = _DIRECTIVE.match(lines[i]) or _MYST_DIRECTIVE.match(lines[i])
      i += 1
      if not match:
        continue
      groups = match.groups()
      directive, argument = groups[-2], groups[-1]
      where = f'{path.relative_to(docs_dir)}:{i}'
      if directive in ('currentmodule', 'py:currentmodule', 'module',
                       'py:module'):
        current = '' if argument == 'None' else argument
      elif directive in _AUTO_DIRECTIVES:
        entries.append((_qualify(argument, current), where))
      elif directive == 'automodule':
        body, i = _directive_body(lines, i)
        if any(line.strip().startswith(':members:') for line in body):
          entries.extend((f'{argument}.{name}', where)
                         for name in public_names(argument))
      elif directive == 'autosummary':
        body, i = _directive_body(lines, i)
        for line in body:
          name = line.strip()
          if name and not name.startswith(':'):
            entries.append((_qualify(name.split()[0].lstrip('~'), current),
                            f'{path.relative_to(docs_dir)}'))
  return entries


def _directive_body(lines: list[str], i: int) -> tuple[list[str], int]:
  """Returns the body of the directive whose line precedes ``lines[i]``.

  For reStructuredText, the blank or indented lines that follow; for a MyST
  fence, the lines up to the closing fence. Also returns the index after it.
  """
  opening = lines[i - 1]
  body = []
  if opening.lstrip().startswith('`'):
    while i < len(lines) and not lines[i].lstrip().startswith('```'):
      body.append(lines[i])
      i += 1
    return body, i
  indent = len(opening) - len(opening.lstrip())
  while i < len(lines) and (
      not lines[i].strip()
      or len(lines[i]) - len(lines[i].lstrip()) > indent):
    body.append(lines[i])
    i += 1
  return body, i


def _qualify(name: str, current: str) -> str:
  if name.startswith('optax.') or name == 'optax' or not current:
    return name
  return f'{current}.{name}'


def _is_routine_or_class(obj: Any) -> bool:
  return (inspect.isclass(obj) or inspect.isroutine(obj)
          or isinstance(obj, functools.partial))


def check_coverage(docs_dir: pathlib.Path) -> bool:
  """Prints the public names without an entry; returns True if none."""
  importlib.import_module('optax')  # An import error is not a missing name.
  entries = documented_entries(docs_dir)
  documented = set()
  documented_ids = set()
  ok = True
  for full_name, where in entries:
    try:
      obj = resolve(full_name)
    except (AttributeError, ModuleNotFoundError):
      print(f'docs_check: {where}: {full_name} names nothing')
      ok = False
      continue
    documented.add(full_name)
    if _is_routine_or_class(obj):
      documented_ids.add(id(obj))
  missing = []
  total = 0
  for namespace in NAMESPACES:
    module = resolve(namespace)
    for name in public_names(namespace):
      total += 1
      full_name = f'{namespace}.{name}'
      obj = getattr(module, name)
      if full_name in documented:
        continue
      if _is_routine_or_class(obj) and id(obj) in documented_ids:
        continue
      missing.append(full_name)
  for full_name in missing:
    print(f'docs_check: not in the API reference: {full_name}')
  print(f'docs_check: {total - len(missing)}/{total} public names documented '
        f'({len(entries)} entries under {docs_dir})')
  return ok and not missing


def _public_objects() -> list[tuple[str, Any]]:
  """Returns ``(name, object)`` for each distinct public object to doctest."""
  seen = set()
  objects = []
  for namespace in NAMESPACES:
    module = resolve(namespace)
    if id(module) not in seen:
      seen.add(id(module))
      objects.append((namespace, module))
    for name in public_names(namespace):
      obj = getattr(module, name)
      if isinstance(obj, functools.partial):
        obj = obj.func
      if not (inspect.isclass(obj) or inspect.isroutine(obj)):
        continue
      if id(obj) in seen:
        continue
      seen.add(id(obj))
      objects.append((f'{namespace}.{name}', obj))
  return objects


def check_doctests(keyword: str | None) -> bool:
  """Runs the docstring examples of the public objects; True if all pass."""
  import jax  # pylint: disable=import-outside-toplevel
  import jax.numpy as jnp  # pylint: disable=import-outside-toplevel
  import numpy as np  # pylint: disable=import-outside-toplevel
  import optax  # pylint: disable=import-outside-toplevel

  globs = {'jax': jax, 'jnp': jnp, 'np': np, 'optax': optax}
  runner = doctest.DocTestRunner(
      optionflags=doctest.NORMALIZE_WHITESPACE | doctest.ELLIPSIS)
  seen = set()
  failed = []
  n_tests = n_examples = 0
  for name, obj in _public_objects():
    if keyword and keyword not in name:
      continue
    # A module's own docstring only: its members are visited by name.
    finder = doctest.DocTestFinder(
        recurse=not isinstance(obj, types.ModuleType), exclude_empty=True)
    tests = finder.find(obj, name, module=inspect.getmodule(obj) or False,
                        globs=globs)
    for test in tests:
      key = (test.filename, test.lineno, test.docstring)
      if not test.examples or key in seen:
        continue
      seen.add(key)
      n_tests += 1
      n_examples += len(test.examples)
      with warnings.catch_warnings():
        # Examples of deprecated names are still examples.
        warnings.simplefilter('ignore', DeprecationWarning)
        result = runner.run(test)
      if result.failed:
        failed.append(test.name)
  for name in failed:
    print(f'docs_check: doctest failed: {name}')
  print(f'docs_check: {n_tests - len(failed)}/{n_tests} docstrings with '
        f'examples pass ({n_examples} examples)')
  return not failed


def main(argv: list[str] | None = None) -> int:
  """Runs the checks selected by the command line; returns the exit status."""
  parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
  parser.add_argument(
      '--docs', type=pathlib.Path,
      default=pathlib.Path(__file__).resolve().parent.parent / 'docs',
      help='the documentation sources (default: docs/ of this checkout)')
  parser.add_argument('--no-coverage', action='store_true',
                      help='skip the API reference coverage check')
  parser.add_argument('--no-doctests', action='store_true',
                      help='skip the docstring examples')
  parser.add_argument('-k', dest='keyword', default=None,
                      help='only the doctests of names containing KEYWORD')
  args = parser.parse_args(argv)
  ok = True
  start = time.perf_counter()
  if not args.no_coverage:
    ok = check_coverage(args.docs) and ok
  if not args.no_doctests:
    ok = check_doctests(args.keyword) and ok
  print(f'docs_check: {"ok" if ok else "FAILED"} '
        f'({time.perf_counter() - start:.1f}s)')
  return 0 if ok else 1


if __name__ == '__main__':
  sys.exit(main())
