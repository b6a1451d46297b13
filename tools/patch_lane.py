#!/usr/bin/env python3
# Copyright 2026 The Optax fork authors. All Rights Reserved.
# Licensed under the Apache License, Version 2.0.
"""Verifies the upstream patches inside an upstream tree.

Every fix of ledger.toml that an upstream still needs is offered upstream as
a patch (``upstream_patches/<id>.toml``, see tools/upstream_patch.py), or
the ledger says why it is not (``not_offered``). Against an upstream tree
(``--upstream-tree``, a checkout or an export of upstream main), this lane:

1. checks that coverage: every needed fix of kind fix, error or deliberate
   has a patch or a ``not_offered`` reason;
2. applies each patch alone to a fresh copy of the tree (with the patches
   it depends on) and runs:

   - its reproducer, placed where upstream would take it, on the tree with
     the test alone: it must fail (the bug is there);
   - the upstream test files of every module the patch touches, the file
     the reproducer went into, and every upstream test file that uses a
     changed function or a name that reaches one, on the patched tree: the
     reproducer must pass, and no test that passes on the pristine tree may
     fail;
   - upstream's CI on what it changes (unless ``--no-ci``): pylint, ruff,
     flake8 and pyink with upstream's configuration and pre-commit's
     whitespace hooks on the changed files, and the docstring examples of
     the documented names that reach a changed function, as ``make doctest``
     runs them; a message or a failing example that the pristine tree does
     not have fails the patch;

   and merges every pair of branches (a patch with its dependencies) with
   ``git merge-file``: a conflict fails the lane (``--merge-only`` runs
   only this);

3. applies all patches together (each after its dependencies) and runs
   upstream's whole suite on the result and on the pristine tree: no test
   that passes on the pristine tree may fail, and every reproducer passes
   (``--no-suite`` runs only the reproducers and the touched files there).

``--reproducers-only`` leaves out the test files that reach a changed name
(2.) and the suite (3.): each reproducer runs without and with its patch,
then all of them with every patch applied, beside upstream's CI; on a
loaded machine this checks every patch in minutes where the touched files
take hours.

A patch whose edits no longer apply is reported as stale, by id; it fails
the lane unless the ledger records it (``patch_stale`` lists the upstream
labels where the patch is known not to apply), and a recorded one that
applies again fails it too, so that the record is removed.

Each pytest process records its outcomes with upstream_status_plugin.py and
is checked to have imported ``optax`` from the copy it tests. Exit status:
0 when every check holds, 1 otherwise, 2 when the lane could not run.

Usage::

  python -m tools.patch_lane --upstream-tree PATH [--upstream-label L]
      [--only FIX ...] [--no-suite | --reproducers-only] [--no-ci]
      [--lint-python PATH] [--merge-only] [--jobs N] [--workers N]
      [--keep DIR] [--json FILE]
"""

from __future__ import annotations

import argparse
import ast
import collections
import concurrent.futures
import dataclasses
import hashlib
import json
import os
import pathlib
import re
import shutil
import subprocess
import sys
import tempfile
import textwrap
import threading
from typing import Any, Optional, Sequence

from tools import ledger as ledger_lib
from tools import upstream_patch as patch_lib
from tools import upstream_status as status_lib

REPO = pathlib.Path(__file__).resolve().parent.parent
PLUGIN = pathlib.Path(__file__).resolve().parent / 'upstream_status_plugin.py'
OFFERED_KINDS = ('fix', 'error', 'deliberate')
PYTEST_TIMEOUT = 3600


# Running pytest in a tree.


@dataclasses.dataclass
class Record:
  """What one pytest process gave: each test's outcome, by node id."""

  tests: dict[str, dict[str, str]]
  collect_errors: dict[str, dict[str, str]]
  meta: dict[str, str]
  output: str

  def outcome(self, nodeid: str) -> str:
    """``passed``, ``failed``, ``skipped`` or ``missing`` for a test."""
    value = self.tests.get(nodeid)
    return value['outcome'] if value else 'missing'

  def matching(self, test_id: str) -> dict[str, dict[str, str]]:
    """The tests of ``test_id``: itself and its parameterized variants."""
    found = {}
    for nodeid, value in self.tests.items():
      rest = nodeid[len(test_id):] if nodeid.startswith(test_id) else None
      if rest is not None and (rest == '' or rest.isdigit()
                               or rest.startswith('[')
                               or rest.startswith('_')):
        found[nodeid] = value
    return found


def run_pytest(tree: pathlib.Path, targets: Sequence[str], python: str,
               work: pathlib.Path, name: str, processes: int = 0,
               select: Sequence[str] = ()) -> Record:
  """Runs pytest on ``targets`` inside ``tree``.

  Args:
    tree: an upstream tree (a copy): the cwd, and the only ``optax`` on
      PYTHONPATH.
    targets: test files or node ids, relative to ``tree``.
    python: the interpreter (with jax, pytest and upstream's test
      dependencies).
    work: a folder for the record and the plugin.
    name: the run's name (its record's file name).
    processes: pytest-xdist workers (0: none).
    select: test names to run (``-k``; each with its parameterized
      variants, which absltest names ``test_x0`` or ``test_x_case``).

  Returns:
    The record.

  Raises:
    SystemExit: when pytest wrote no record or imported another optax.
  """
  plugin_dir = work / 'plugin'
  plugin_dir.mkdir(parents=True, exist_ok=True)
  shutil.copy(PLUGIN, plugin_dir / PLUGIN.name)
  out = work / f'{name}.json'
  out.unlink(missing_ok=True)
  env = {k: v for k, v in os.environ.items()
         if k not in ('PYTHONPATH', 'PYTHONHOME', 'PYTHONSAFEPATH')}
  env['PYTHONPATH'] = os.pathsep.join([str(tree), str(plugin_dir)])
  env['UPSTREAM_STATUS_OUT'] = str(out)
  cmd = [python, '-m', 'pytest', '-q', '-p', 'no:cacheprovider', '-p',
         PLUGIN.stem, '--continue-on-collection-errors', '-rN',
         '-W', 'ignore::DeprecationWarning']
  if processes:
    cmd += ['-n', str(processes)]
  if select:
    cmd += ['-k', ' or '.join(sorted(set(select)))]
  proc = subprocess.run([*cmd, *targets], cwd=tree, env=env, text=True,
                        stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                        timeout=PYTEST_TIMEOUT, check=False)
  if not out.exists():
    raise SystemExit(f'patch_lane: pytest in {tree} wrote no record:\n'
                     f'{proc.stdout[-3000:]}')
  with open(out, encoding='utf-8') as f:
    data = json.load(f)
  meta = data['meta']
  if meta.get('error'):
    raise SystemExit(f'patch_lane: optax does not import in {tree}: '
                     f'{meta["error"]}')
  where = pathlib.Path(meta['optax_file']).resolve()
  if not where.is_relative_to(tree.resolve()):
    raise SystemExit(f'patch_lane: pytest in {tree} imported optax from '
                     f'{where}')
  return Record(data.get('tests', {}), data.get('collect_errors', {}), meta,
                proc.stdout)


class PristineRuns:
  """Upstream's test files run once each on a copy of the pristine tree.

  Every patch compares its touched test files with their pristine outcomes;
  files shared by several patches (``alias_test.py``, contrib's
  ``_common_test.py``) run once. Safe to use from several threads.
  """

  def __init__(self, tree: pathlib.Path, python: str, work: pathlib.Path,
               processes: int = 0):
    self._tree = tree
    self._python = python
    self._work = work
    self._processes = processes
    self._copy: Optional[pathlib.Path] = None
    self._records: dict[str, Record] = {}
    self._lock = threading.Lock()
    self._runs = 0

  def tree(self) -> pathlib.Path:
    """The copy of the pristine tree (made on first use)."""
    with self._lock:
      if self._copy is None:
        self._copy = patch_lib.copy_tree(self._tree, self._work / 'tree')
      return self._copy

  def get(self, files: Sequence[str]) -> Record:
    """One record of every test of ``files`` on the pristine tree."""
    with self._lock:
      if self._copy is None:
        self._copy = patch_lib.copy_tree(self._tree, self._work / 'tree')
      missing = [f for f in files if f not in self._records
                 and (self._copy / f).exists()]
      if missing:
        self._runs += 1
        record = run_pytest(self._copy, missing, self._python, self._work,
                            f'pristine{self._runs}', self._processes)
        for f in missing:
          self._records[f] = record
      parts = [self._records[f] for f in files if f in self._records]
    tests: dict[str, dict[str, str]] = {}
    errors: dict[str, dict[str, str]] = {}
    for f in files:
      for part in parts:
        tests.update({k: v for k, v in part.tests.items()
                      if k.startswith(f + '::')})
        errors.update({k: v for k, v in part.collect_errors.items()
                       if k.startswith(f)})
    return Record(tests, errors, parts[0].meta if parts else {}, '')


# What to run for a patch.


def touched_test_files(tree: pathlib.Path, patches: Sequence[
    patch_lib.Patch]) -> list[str]:
  """The upstream test files a set of patches touches.

  Args:
    tree: a patched tree (where the files are looked for).
    patches: the patches.

  Returns:
    For each file an edit changes, its ``*_test.py`` beside it (or the
    file itself if it is a test); and each reproducer's test file; sorted.
  """
  files = set()
  for patch in patches:
    for name in patch.files:
      path = pathlib.PurePosixPath(name)
      if path.suffix != '.py':
        continue
      if path.stem.endswith('_test'):
        files.add(name)
        continue
      test = path.with_name(f'{path.stem}_test.py').as_posix()
      if (tree / test).is_file():
        files.add(test)
    if patch.test is not None:
      files.add(patch.test.into)
  return sorted(files)


# Upstream's own CI on what a patch changes.
#
# Upstream's workflow (.github/workflows/tests.yml) and test.sh fail on any
# pylint message (pylint-exit -efail -wfail -cfail -rfail), on ruff's and
# flake8's selections, on pre-commit's hooks (licence headers, trailing
# whitespace, end of file) and on `make doctest -C docs` (sphinx.ext.doctest
# over the docstrings the API reference includes, with conf.py's
# doctest_global_setup). pyproject.toml's [tool.pyink] gives the format of
# upstream's code. Each check runs on the changed files of the pristine tree
# and of the patched one, so that only new messages count.

# flake8's selection in upstream's workflow and test.sh.
FLAKE8_SELECT = 'E9,F63,F7,F82,E225,E251'
# pylint's options in upstream's workflow, beyond pyproject.toml: E1102
# off for every file, W0212 off for the tests, and the quote check.
PYLINT_ARGS = ('--disable=E1102,W0212', '--enable=inconsistent-quotes',
               '--check-quote-consistency=y')
# sphinx.ext.doctest's default flags.
DOCTEST_FLAGS = ('ELLIPSIS', 'IGNORE_EXCEPTION_DETAIL',
                 'DONT_ACCEPT_TRUE_FOR_1')
LINTERS = ('pylint', 'ruff', 'flake8', 'pyink')


def _references(node: ast.AST) -> set[str]:
  """The names, attributes and string constants used inside ``node``."""
  found = set()
  for sub in ast.walk(node):
    if isinstance(sub, ast.Name):
      found.add(sub.id)
    elif isinstance(sub, ast.Attribute):
      found.add(sub.attr)
    elif isinstance(sub, ast.Constant) and isinstance(sub.value, str) and (
        sub.value.isidentifier()):
      found.add(sub.value)
    elif isinstance(sub, ast.alias):
      found.add(sub.name.split('.')[-1])
  return found


def _defined(node: ast.stmt) -> list[str]:
  """The top-level names a module-level statement defines."""
  if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
    return [node.name]
  if isinstance(node, (ast.Assign, ast.AnnAssign, ast.AugAssign)):
    targets = node.targets if isinstance(node, ast.Assign) else [node.target]
    return [n.id for t in targets for n in ast.walk(t)
            if isinstance(n, ast.Name) and not n.id.startswith('__')]
  if isinstance(node, ast.ImportFrom):
    return [a.asname for a in node.names if a.asname]
  return []


def _parse(path: pathlib.Path) -> Optional[ast.Module]:
  try:
    return ast.parse(path.read_text(encoding='utf-8'))
  except (SyntaxError, UnicodeDecodeError, OSError):
    return None


def _modules(tree: pathlib.Path, tests: bool) -> list[pathlib.Path]:
  """Upstream's ``optax/`` modules: its test files, or the others."""
  return sorted(p for p in (tree / 'optax').rglob('*.py')
                if '__pycache__' not in p.parts
                and p.name.endswith('_test.py') == tests)


def changed_names(patches: Sequence[patch_lib.Patch]) -> set[str]:
  """The top-level names whose code the patches change (tests aside).

  Args:
    patches: the patches.

  Returns:
    Each edit's outermost ``def`` or ``class``; for an edit at module level
    or a new module, the names its text defines.
  """
  names = set()
  for patch in patches:
    for edit in patch.edits:
      if edit.file.endswith('_test.py') or not edit.file.endswith('.py'):
        continue
      if edit.scope and not edit.create:
        names.add(edit.scope.split('.')[0])
        continue
      try:
        body = ast.parse(textwrap.dedent(edit.text)).body
      except SyntaxError:
        continue
      for node in body:
        names.update(_defined(node))
  return names


def reaching_names(tree: pathlib.Path, names: set[str]) -> set[str]:
  """``names`` and every top-level name of upstream's code that reaches one.

  A function, class or module-level alias reaches a name when its code
  uses it (as a name, an attribute or a string naming it), directly or
  through another that does: ``adam`` reaches ``tree_update_moment`` through
  ``scale_by_adam``, and ``optax.tree.update_moment`` is an alias of it.

  Args:
    tree: an upstream tree.
    names: the changed names.

  Returns:
    The closure.
  """
  definitions = []
  for path in _modules(tree, tests=False):
    module = _parse(path)
    for node in module.body if module else []:
      for name in _defined(node):
        definitions.append((name, _references(node)))
  reached = set(names)
  grew = True
  while grew:
    grew = False
    for name, uses in definitions:
      if name not in reached and uses & reached:
        reached.add(name)
        grew = True
  return reached


def exercising_test_files(tree: pathlib.Path, names: set[str]) -> list[str]:
  """Upstream's test files that use any of ``names`` (relative paths)."""
  out = []
  for path in _modules(tree, tests=True):
    module = _parse(path)
    if module is not None and _references(module) & names:
      out.append(path.relative_to(tree).as_posix())
  return out


def documented_objects(tree: pathlib.Path, names: set[str]
                       ) -> list[tuple[str, str]]:
  """The functions and classes of ``names`` whose docstrings the docs show.

  Args:
    tree: an upstream tree.
    names: top-level names.

  Returns:
    ``(module, name)`` of each definition of a name in ``names`` that the
    documentation names (every definition when the tree has no ``docs/``),
    sorted.
  """
  docs = tree / 'docs'
  words: Optional[set[str]] = None
  if docs.is_dir():
    words = set()
    for page in docs.rglob('*'):
      if page.suffix in ('.rst', '.md') and page.is_file():
        words.update(re.findall(r'[A-Za-z_][A-Za-z0-9_]*',
                                page.read_text(encoding='utf-8',
                                               errors='replace')))
  out = set()
  for path in _modules(tree, tests=False):
    module = _parse(path)
    dotted = '.'.join(path.relative_to(tree).with_suffix('').parts)
    for node in module.body if module else []:
      if (isinstance(node, (ast.FunctionDef, ast.ClassDef))
          and node.name in names and (words is None or node.name in words)
          and ast.get_docstring(node) and '>>>' in ast.get_docstring(node)):
        out.add((dotted.removesuffix('.__init__'), node.name))
  return sorted(out)


_DOCTEST_RUNNER = '''\
"""Runs docstring examples as sphinx.ext.doctest runs them (upstream CI)."""
import doctest
import importlib
import inspect
import json
import sys

spec = json.load(open(sys.argv[1], encoding='utf-8'))
flags = 0
for flag in spec['flags']:
  flags |= getattr(doctest, flag)
results = {}
for module_name, name in spec['objects']:
  key = module_name + '.' + name
  try:
    obj = getattr(importlib.import_module(module_name), name)
  except Exception as exc:  # pylint: disable=broad-except
    results[key] = {'examples': 0, 'failed': 1, 'text': repr(exc)}
    continue
  docs = [(key, inspect.getdoc(obj) or '')]
  if inspect.isclass(obj):
    docs += [(key + '.' + k, inspect.getdoc(v) or '')
             for k, v in vars(obj).items() if callable(v)
             and not k.startswith('_')]
  examples = failed = 0
  text = []
  for doc_name, doc in docs:
    if '>>>' not in doc:
      continue
    globs = {}
    exec(spec['setup'], globs)  # pylint: disable=exec-used
    test = doctest.DocTestParser().get_doctest(doc, globs, doc_name,
                                               None, 0)
    runner = doctest.DocTestRunner(optionflags=flags, verbose=False)
    runner.run(test, out=text.append, clear_globs=True)
    examples += runner.tries
    failed += runner.failures
  results[key] = {'examples': examples, 'failed': failed,
                  'text': ''.join(text)[-4000:]}
json.dump(results, open(sys.argv[2], 'w', encoding='utf-8'))
'''


def doctest_setup(tree: pathlib.Path) -> str:
  """``doctest_global_setup`` of upstream's docs/conf.py (imports only)."""
  conf = tree / 'docs' / 'conf.py'
  module = _parse(conf) if conf.is_file() else None
  for node in module.body if module else []:
    if (isinstance(node, ast.Assign) and any(
        isinstance(t, ast.Name) and t.id == 'doctest_global_setup'
        for t in node.targets) and isinstance(node.value, ast.Constant)):
      return str(node.value.value)
  return 'import optax\\nimport jax\\nimport jax.numpy as jnp\\n'


def run_doctests(tree: pathlib.Path, objects: Sequence[tuple[str, str]],
                 python: str, work: pathlib.Path, name: str
                 ) -> dict[str, dict[str, Any]]:
  """Runs the docstring examples of ``objects`` in ``tree``.

  Args:
    tree: an upstream tree: the cwd and the only ``optax`` on PYTHONPATH.
    objects: ``(module, name)`` pairs.
    python: the interpreter (with jax).
    work: a folder for the runner and its output.
    name: the run's name.

  Returns:
    ``{module.name: {'examples': n, 'failed': n, 'text': report}}``.
  """
  if not objects:
    return {}
  work.mkdir(parents=True, exist_ok=True)
  runner = work / 'doctest_runner.py'
  runner.write_text(_DOCTEST_RUNNER, encoding='utf-8')
  spec, out = work / f'{name}_doctest.json', work / f'{name}_doctests.json'
  spec.write_text(json.dumps({
      'objects': list(objects), 'flags': list(DOCTEST_FLAGS),
      'setup': doctest_setup(tree)}), encoding='utf-8')
  env = {k: v for k, v in os.environ.items()
         if k not in ('PYTHONPATH', 'PYTHONHOME', 'PYTHONSAFEPATH')}
  env['PYTHONPATH'] = str(tree)
  proc = subprocess.run([python, str(runner), str(spec), str(out)], cwd=tree,
                        env=env, text=True, stdout=subprocess.PIPE,
                        stderr=subprocess.STDOUT, timeout=PYTEST_TIMEOUT,
                        check=False)
  if not out.exists():
    raise SystemExit(f'patch_lane: the docstring examples in {tree} did not '
                     f'run:\n{proc.stdout[-3000:]}')
  with open(out, encoding='utf-8') as f:
    return json.load(f)


def available_linters(python: str) -> list[str]:
  """The linters of :data:`LINTERS` that ``python`` can run."""
  code = ('import importlib.util as u; print(" ".join(m for m in '
          f'{list(LINTERS)!r} if u.find_spec(m)))')
  proc = subprocess.run([python, '-c', code], capture_output=True,
                        text=True, check=False)
  return [m for m in proc.stdout.split() if m in LINTERS]


def _run_tool(tree: pathlib.Path, cmd: Sequence[str]
              ) -> subprocess.CompletedProcess[str]:
  env = {k: v for k, v in os.environ.items()
         if k not in ('PYTHONPATH', 'PYTHONHOME', 'PYTHONSAFEPATH')}
  env['PYTHONPATH'] = str(tree)
  return subprocess.run(list(cmd), cwd=tree, env=env, text=True,
                        capture_output=True, timeout=PYTEST_TIMEOUT,
                        check=False)


def lint_messages(tree: pathlib.Path, files: Sequence[str], python: str,
                  linters: Sequence[str]) -> collections.Counter[str]:
  """Upstream's lint messages on ``files`` of ``tree``, without line numbers.

  Args:
    tree: an upstream tree (its pyproject.toml configures the linters).
    files: files relative to ``tree``; those it lacks are left out.
    python: the interpreter that has the linters.
    linters: those of :data:`LINTERS` to run.

  Returns:
    Each message as ``'tool file: code message'``, counted (a formatter's
    as the lines it would change; pre-commit's whitespace hooks as
    ``pre-commit`` messages).

  Raises:
    SystemExit: a linter that did not run.
  """
  files = [f for f in files if (tree / f).is_file()]
  found: collections.Counter[str] = collections.Counter()
  if not files:
    return found
  if 'pylint' in linters:
    proc = _run_tool(tree, [python, '-m', 'pylint', '--output-format=json',
                            '--score=n', *PYLINT_ARGS, *files])
    try:
      for m in json.loads(proc.stdout or '[]'):
        found[f'pylint {m["path"]}: {m["message-id"]} {m["symbol"]} '
              f'({m["obj"]}) {m["message"]}'] += 1
    except json.JSONDecodeError as exc:
      raise SystemExit(f'patch_lane: pylint did not run in {tree}: '
                       f'{proc.stderr[-2000:]}') from exc
  if 'ruff' in linters:
    proc = _run_tool(tree, [python, '-m', 'ruff', 'check', '--no-cache',
                            '--output-format=json', *files])
    try:
      for m in json.loads(proc.stdout or '[]'):
        name = pathlib.Path(m['filename']).resolve().relative_to(
            tree.resolve()).as_posix()
        found[f'ruff {name}: {m["code"]} {m["message"]}'] += 1
    except json.JSONDecodeError as exc:
      raise SystemExit(f'patch_lane: ruff did not run in {tree}: '
                       f'{proc.stderr[-2000:]}') from exc
  if 'flake8' in linters:
    proc = _run_tool(tree, [python, '-m', 'flake8',
                            f'--select={FLAKE8_SELECT}', *files])
    for line in proc.stdout.splitlines():
      parts = line.split(':', 3)
      if len(parts) == 4:
        found[f'flake8 {parts[0]}:{parts[3]}'] += 1
  if 'pyink' in linters:
    proc = _run_tool(tree, [python, '-m', 'pyink', '--check', '--diff',
                            '--quiet', *files])
    if proc.returncode not in (0, 1):
      raise SystemExit(f'patch_lane: pyink did not run in {tree}: '
                       f'{proc.stderr[-2000:]}')
    name = ''
    for line in proc.stdout.splitlines():
      if line.startswith('+++ '):
        name = line[4:].split('\t')[0].strip()
      elif line[:1] in '+-' and not line.startswith(('+++', '---')):
        found[f'pyink {name}: lines it would reformat'] += 1
  for name in files:
    text = (tree / name).read_text(encoding='utf-8', errors='replace')
    for line in text.splitlines():
      if line != line.rstrip():
        found[f'pre-commit {name}: trailing-whitespace'] += 1
    if text and (not text.endswith('\n') or text.endswith('\n\n')):
      found[f'pre-commit {name}: end-of-file-fixer'] += 1
  return found


def new_messages(before: collections.Counter[str],
                 after: collections.Counter[str]) -> list[str]:
  """The messages ``after`` has more often than ``before``."""
  return sorted(f'{k}' + (f' (x{after[k] - before[k]})'
                          if after[k] - before[k] > 1 else '')
                for k in after if after[k] > before[k])


@dataclasses.dataclass
class PatchResult:
  """What the lane found of one patch."""

  fix: str
  applies: bool = True
  stale: str = ''
  digest: str = ''
  notes: list[str] = dataclasses.field(default_factory=list)
  reproducer: list[str] = dataclasses.field(default_factory=list)
  before: dict[str, str] = dataclasses.field(default_factory=dict)
  after: dict[str, str] = dataclasses.field(default_factory=dict)
  failure_before: str = ''
  files: list[str] = dataclasses.field(default_factory=list)
  new_files: list[str] = dataclasses.field(default_factory=list)
  counts: dict[str, int] = dataclasses.field(default_factory=dict)
  regressions: list[str] = dataclasses.field(default_factory=list)
  ci: dict[str, Any] = dataclasses.field(default_factory=dict)
  problems: list[str] = dataclasses.field(default_factory=list)

  def as_json(self) -> dict[str, Any]:
    """The result as plain JSON types."""
    return dataclasses.asdict(self)


def _reproducer_outcomes(record: Record, test_ids: Sequence[str]
                         ) -> dict[str, str]:
  """Each placed test's outcome, its variants merged (any failure fails)."""
  outcomes = {}
  for test_id in test_ids:
    found = record.matching(test_id)
    errors = [k for k in record.collect_errors
              if test_id.startswith(k.split('::')[0])]
    if errors:
      outcomes[test_id] = 'failed'
    elif not found:
      outcomes[test_id] = 'missing'
    elif any(v['outcome'] == 'failed' for v in found.values()):
      outcomes[test_id] = 'failed'
    elif all(v['outcome'] == 'skipped' for v in found.values()):
      outcomes[test_id] = 'skipped'
    else:
      outcomes[test_id] = 'passed'
  return outcomes


def _first_failure(record: Record, test_ids: Sequence[str]) -> str:
  """The report of the first placed test that failed."""
  for test_id in test_ids:
    for value in record.matching(test_id).values():
      if value['outcome'] == 'failed':
        return value.get('text') or value.get('crash', '')
  for value in record.collect_errors.values():
    return value.get('text') or value.get('crash', '')
  return ''


def _in_files(nodeid: str, files: Optional[Sequence[str]]) -> bool:
  return files is None or any(nodeid.startswith(f + '::') for f in files)


def regressions(pristine: Record, patched: Record,
                files: Optional[Sequence[str]], placed: Sequence[str]
                ) -> list[str]:
  """Tests of ``files`` that pass on the pristine tree and not when patched.

  Args:
    pristine: a run of the pristine tree that covers ``files``.
    patched: a run of the patched tree.
    files: the test files compared (None: every test).
    placed: the reproducers' test ids (new tests: not compared).

  Returns:
    ``nodeid: outcome`` for each test that passed and now fails or is
    missing; a file that no longer collects is one entry.
  """
  out = []
  for nodeid in sorted(set(patched.collect_errors)
                       - set(pristine.collect_errors)):
    if files is None or any(nodeid.startswith(f) for f in files):
      out.append(f'{nodeid}: does not collect')
  for nodeid, value in sorted(pristine.tests.items()):
    if value['outcome'] != 'passed' or not _in_files(nodeid, files):
      continue
    if any(nodeid.startswith(p) for p in placed):
      continue
    now = patched.outcome(nodeid)
    if now not in ('passed', 'skipped'):
      out.append(f'{nodeid}: {now}')
  return out


def _counts(record: Record, files: Optional[Sequence[str]] = None
            ) -> dict[str, int]:
  counts = {'passed': 0, 'failed': 0, 'skipped': 0}
  for nodeid, value in record.tests.items():
    if _in_files(nodeid, files):
      counts[value['outcome']] = counts.get(value['outcome'], 0) + 1
  return counts


def check_patch(fix: str, patches: dict[str, patch_lib.Patch],
                tree: pathlib.Path, python: str, work: pathlib.Path,
                pristine_runs: Optional[PristineRuns] = None,
                processes: int = 0, ci: bool = True,
                lint_python: str = sys.executable,
                touched: bool = True) -> PatchResult:
  """Applies one patch alone and checks it.

  The reproducer runs on the tree with it placed but without the fix (it
  must fail there); the touched test files, and every upstream test file
  that uses a changed function or a name that reaches one, run on the
  patched tree and are compared with their outcomes on the pristine tree.
  With ``ci``, upstream's linters run on the changed files and the
  docstring examples of the changed functions (and of those reaching them)
  run, on both trees: a new message or a new failure is a problem.

  Args:
    fix: the patch's id.
    patches: every patch.
    tree: the pristine upstream tree.
    python: the interpreter for pytest.
    work: a folder of its own.
    pristine_runs: the pristine outcomes, shared between patches (default:
      run here).
    processes: pytest-xdist workers for the touched files (0: none).
    ci: whether to run upstream's linters and docstring examples.
    lint_python: the interpreter that has the linters (pylint, ruff,
      flake8, pyink); a linter it lacks is named in ``ci['missing']``.
    touched: whether to run the test files the patch reaches; without,
      only the reproducer's tests run with the patch (``files`` names their
      file, and nothing is compared with the pristine tree).

  Returns:
    The result; ``problems`` is empty when it holds.
  """
  result = PatchResult(fix, digest=patch_digest(patches, fix))
  try:
    before = patch_lib.apply(patches, [fix], tree, work / 'before',
                             code=False)
    after = patch_lib.apply(patches, [fix], tree, work / 'after')
  except patch_lib.StaleError as exc:
    result.applies, result.stale = False, str(exc)
    return result
  except patch_lib.PatchError as exc:
    result.applies = False
    result.problems.append(f'does not apply: {exc}')
    return result
  result.notes = after.notes
  placed = after.tests.get(fix, [])
  result.reproducer = placed
  if not placed:
    result.problems.append('the patch places no reproducer ([test])')
  deps = [patches[d] for d in patch_lib.order(patches, [fix])]
  reached = reaching_names(after.tree, changed_names(deps))
  selected = [t.split('::')[-1] for t in placed]
  if touched:
    files = sorted(set(touched_test_files(after.tree, deps))
                   | set(exercising_test_files(after.tree, reached)))
  else:
    files = sorted({t.split('::')[0] for t in placed})
  result.files = files
  result.new_files = [f for f in files if not (tree / f).exists()]
  if placed:
    rec_before = run_pytest(
        before.tree, sorted({t.split('::')[0] for t in placed}), python,
        work, 'before', select=selected)
    result.before = _reproducer_outcomes(rec_before, placed)
    result.failure_before = _first_failure(rec_before, placed).replace(
        str(before.tree) + '/', '')
    if not any(o == 'failed' for o in result.before.values()):
      result.problems.append(
          'the reproducer does not fail on the tree without the fix: '
          + ', '.join(f'{k.split("::")[-1]} {v}'
                      for k, v in result.before.items()))
  pristine_runs = pristine_runs or PristineRuns(tree, python,
                                                work / 'pristine')
  if touched:
    pristine = pristine_runs.get(files)
    rec_after = run_pytest(after.tree, files, python, work, 'after',
                           processes)
  else:
    pristine = Record({}, {}, {}, '')
    rec_after = run_pytest(after.tree, files, python, work, 'after',
                           select=selected) if files else pristine
  result.after = _reproducer_outcomes(rec_after, placed)
  bad = {k: v for k, v in result.after.items() if v != 'passed'}
  if bad:
    result.problems.append(
        'the reproducer does not pass with the patch: '
        + ', '.join(f'{k.split("::")[-1]} {v}' for k, v in bad.items())
        + _one_line(' ' + _first_failure(rec_after, list(bad))))
  result.counts = {f'before_{k}': v
                   for k, v in _counts(pristine, files).items()}
  result.counts.update({f'after_{k}': v
                        for k, v in _counts(rec_after, files).items()})
  result.counts['placed_passed'] = sum(
      v['outcome'] == 'passed' for t in placed
      for v in rec_after.matching(t).values())
  result.counts['placed'] = sum(len(rec_after.matching(t)) for t in placed)
  if touched:
    result.regressions = regressions(pristine, rec_after, files, placed)
  if result.regressions:
    result.problems.append(f'{len(result.regressions)} upstream test(s) that '
                           'pass without the patch fail with it')
  if ci:
    result.ci = check_ci(deps, reached, after.tree, pristine_runs.tree(),
                         python, lint_python, work)
    result.problems += result.ci['problems']
  return result


def check_ci(patches: Sequence[patch_lib.Patch], reached: set[str],
             patched: pathlib.Path, pristine: pathlib.Path, python: str,
             lint_python: str, work: pathlib.Path) -> dict[str, Any]:
  """Upstream's linters and docstring examples, pristine and patched.

  Args:
    patches: the patches applied (a patch and those it depends on).
    reached: the changed names and the names reaching them.
    patched: the patched tree.
    pristine: a copy of the pristine tree.
    python: the interpreter that runs upstream's code.
    lint_python: the interpreter that has the linters.
    work: a folder for the runs.

  Returns:
    ``files`` linted, ``linters`` run, ``missing`` linters, message counts
    ``lint_before`` and ``lint_after``, ``new_messages``; the docstring
    examples' ``doctest_objects``, ``doctests_before`` and
    ``doctests_after`` (examples run, docstrings failing), and
    ``new_doctest_failures``; ``problems``.
  """
  files = sorted({e.file for p in patches for e in p.edits}
                 | {p.test.into for p in patches if p.test is not None})
  linters = available_linters(lint_python)
  before = lint_messages(pristine, files, lint_python, linters)
  after = lint_messages(patched, files, lint_python, linters)
  out: dict[str, Any] = {
      'files': files, 'linters': linters,
      'missing': [m for m in LINTERS if m not in linters],
      'lint_before': sum(before.values()), 'lint_after': sum(after.values()),
      'new_messages': new_messages(before, after), 'problems': []}
  objects = documented_objects(patched, reached)
  old = run_doctests(pristine, documented_objects(pristine, reached), python,
                     work / 'doctest', 'pristine')
  new = run_doctests(patched, objects, python, work / 'doctest', 'patched')
  failing = sorted(k for k, v in new.items() if v['failed']
                   and (k not in old or not old[k]['failed']))
  out.update(
      doctest_objects=len(objects),
      doctests_before={'examples': sum(v['examples'] for v in old.values()),
                       'failed': sum(bool(v['failed']) for v in old.values())},
      doctests_after={'examples': sum(v['examples'] for v in new.values()),
                      'failed': sum(bool(v['failed']) for v in new.values())},
      new_doctest_failures=failing,
      doctest_reports={k: new[k]['text'] for k in failing})
  if out['new_messages']:
    out['problems'].append(
        f'{len(out["new_messages"])} new lint message(s) of upstream\'s '
        'checks: ' + '; '.join(out['new_messages'][:10]))
  if failing:
    out['problems'].append(
        'docstring examples that pass without the patch fail with it: '
        + ', '.join(failing) + '; ' + _one_line(new[failing[0]]['text']))
  return out


def patch_digest(patches: dict[str, patch_lib.Patch], fix: str) -> str:
  """A hash of what a patch's branch is made of.

  The patch files of ``fix`` and of the patches it depends on, and their
  reproducers: a lane result is only reused for the same contents.

  Args:
    patches: every patch.
    fix: the patch.

  Returns:
    The hex digest.
  """
  digest = hashlib.sha256()
  for name in patch_lib.order(patches, [fix]):
    patch = patches[name]
    for path in (patch.path, patch_lib.REPO / patch.test.source
                 if patch.test is not None else None):
      if path is not None and path.is_file():
        digest.update(name.encode() + b'\0' + path.read_bytes() + b'\0')
  return digest.hexdigest()[:16]


def _one_line(text: str, width: int = 300) -> str:
  text = ' '.join(text.split())
  return text if len(text) <= width else text[:width - 3] + '...'


# Coverage of the ledger.


def coverage_problems(fixes: Sequence[ledger_lib.Fix],
                      patches: dict[str, patch_lib.Patch], label: str
                      ) -> tuple[list[str], list[str]]:
  """Which needed fixes lack a patch, and which patches no fix needs.

  Args:
    fixes: the ledger.
    patches: the patches, by id.
    label: the upstream's label (``main@<commit>`` or a release).

  Returns:
    ``(problems, notes)``.
  """
  problems, notes = [], []
  known = {f.id: f for f in fixes}
  for fix in fixes:
    key, _ = status_lib.status_for(
        status_lib.Fix(fix.id, fix.title, fix.upstream_refs, fix.reproducer,
                       fix.status, {}), label)
    needed = key is not None and fix.status[key] == 'needed'
    if not needed or fix.kind not in OFFERED_KINDS:
      if fix.id in patches and not needed:
        notes.append(f'{fix.id}: has a patch, but {label} does not need it '
                     f'({key}: {fix.status.get(key, "no status")})')
      continue
    if fix.id not in patches and not fix.not_offered:
      problems.append(f'{fix.id}: {label} needs it, and it has neither a '
                      'patch (upstream_patches/) nor a not_offered reason '
                      'in the ledger')
    if fix.id in patches and fix.not_offered:
      problems.append(f'{fix.id}: has a patch and a not_offered reason')
  for fix_id in patches:
    if fix_id not in known:
      problems.append(f'upstream_patches/{fix_id}.toml: no such ledger id')
  return problems, notes


# Branches merged together.


def merge_conflicts(patches: dict[str, patch_lib.Patch], fixes: Sequence[str],
                    tree: pathlib.Path, work: pathlib.Path
                    ) -> tuple[int, list[str]]:
  """Merges the branch of each pair of patches, as git merges them.

  Upstream may merge any subset of the pull requests, in any order: each
  branch (a patch with its dependencies, code and test) is made in a copy
  of the tree, and each pair's common files are merged three ways with
  ``git merge-file`` (the pristine file as the base; none for a new one).
  A pair where one branch holds the other is not merged.

  Args:
    patches: every patch.
    fixes: the patches whose branches are merged pairwise (those that
      apply).
    tree: the pristine tree.
    work: a folder of its own.

  Returns:
    ``(pairs merged, conflicts)``, each conflict as ``'a + b: file (n
    conflicting hunk(s))'``.
  """
  changed: dict[str, dict[str, pathlib.Path]] = {}
  for fix in fixes:
    try:
      branch = patch_lib.apply(patches, [fix], tree, work / fix).tree
    except patch_lib.PatchError:
      continue  # A stale patch: the lane reports it on its own.
    changed[fix] = {}
    for path in branch.rglob('*'):
      name = path.relative_to(branch).as_posix()
      if not path.is_file() or '__pycache__' in name:
        continue
      if not (tree / name).is_file() or (
          (tree / name).read_bytes() != path.read_bytes()):
        changed[fix][name] = path
  empty = work / 'empty'
  empty.write_text('', encoding='utf-8')
  pairs, conflicts = 0, []
  merged = [f for f in fixes if f in changed]
  for i, a in enumerate(merged):
    for b in merged[i + 1:]:
      if (a in patch_lib.order(patches, [b])
          or b in patch_lib.order(patches, [a])):
        continue
      pairs += 1
      for name in sorted(changed[a].keys() & changed[b].keys()):
        base = tree / name if (tree / name).is_file() else empty
        proc = subprocess.run(
            ['git', 'merge-file', '-p', '--quiet', str(changed[a][name]),
             str(base), str(changed[b][name])], capture_output=True,
            check=False)
        if proc.returncode:
          conflicts.append(f'{a} + {b}: {name} ({proc.returncode} '
                           'conflicting hunk(s))')
  return pairs, conflicts


# The lane.


def _stale_recorded(fix: Optional[ledger_lib.Fix], label: str) -> bool:
  return fix is not None and any(
      status_lib.same_label(k, label) for k in fix.patch_stale)


def main(argv: Optional[Sequence[str]] = None) -> int:
  """Runs the lane; returns the exit status."""
  parser = argparse.ArgumentParser(
      description=__doc__.splitlines()[0],
      formatter_class=argparse.RawDescriptionHelpFormatter)
  parser.add_argument('--upstream-tree', required=True, metavar='PATH',
                      help='a checkout or an export of upstream main')
  parser.add_argument('--upstream-label', default=None, metavar='LABEL',
                      help='the tree\'s label (main@COMMIT); default: from '
                      'git, or main')
  parser.add_argument('--ledger', default=str(REPO / 'ledger.toml'),
                      metavar='FILE', help='the fix ledger')
  parser.add_argument('--patches', default=str(patch_lib.PATCHES),
                      metavar='DIR', help='the upstream patches\' folder')
  parser.add_argument('--python', default=sys.executable,
                      help='the interpreter that runs upstream\'s tests')
  parser.add_argument('--only', action='append', default=[],
                      metavar='FIX', help='check only this patch')
  parser.add_argument('--no-suite', action='store_true',
                      help='skip upstream\'s whole suite (all patches '
                      'together: only the reproducers and touched files)')
  parser.add_argument('--reproducers-only', action='store_true',
                      help='run only the reproducers (without and with each '
                      'patch, then all together), not the test files that '
                      'reach the changed names nor the suite')
  parser.add_argument('--jobs', type=int, default=2,
                      help='patches checked at once')
  parser.add_argument('--workers', type=int, default=0,
                      help='pytest-xdist workers of each run of upstream\'s '
                      'test files (0: none)')
  parser.add_argument('--no-ci', action='store_true',
                      help='skip upstream\'s linters and docstring examples')
  parser.add_argument('--lint-python', default=sys.executable,
                      metavar='PATH',
                      help='the interpreter that has upstream\'s linters '
                      '(pylint, ruff, flake8, pyink); default: this one')
  parser.add_argument('--merge-only', action='store_true',
                      help='only merge the branches pairwise (no tests)')
  parser.add_argument('--keep', default=None, metavar='DIR',
                      help='keep the trees and records in DIR')
  parser.add_argument('--json', default=None, metavar='FILE',
                      help='write the results to FILE')
  args = parser.parse_args(argv)
  tree = pathlib.Path(args.upstream_tree).resolve()
  if not (tree / 'optax' / '__init__.py').is_file():
    print(f'patch_lane: {tree} is not an upstream tree', file=sys.stderr)
    return 2
  label = status_lib.label_for_tree(tree, args.upstream_label)
  fixes = ledger_lib.load(pathlib.Path(args.ledger))
  by_id = {f.id: f for f in fixes}
  if args.only:
    patches = patch_lib.load_some(args.only, pathlib.Path(args.patches))
  else:
    patches = patch_lib.load_all(pathlib.Path(args.patches))
  problems, notes = [], []
  if not args.only:
    problems, notes = coverage_problems(fixes, patches, label)
  selected = args.only or list(patches)
  unknown = [f for f in selected if f not in patches]
  if unknown:
    print(f'patch_lane: no patch for {unknown}', file=sys.stderr)
    return 2
  work = pathlib.Path(args.keep or tempfile.mkdtemp(prefix='optax-lane.'))
  work.mkdir(parents=True, exist_ok=True)
  print(f'patch lane against upstream {label} ({tree}); {len(selected)} '
        f'patch(es)', flush=True)
  args.pristine = PristineRuns(tree, args.python, work / 'pristine',
                               args.workers)
  try:
    pairs, conflicts = merge_conflicts(patches, selected, tree,
                                       work / 'branches')
    print(f'branches merged pairwise: {pairs} pair(s), {len(conflicts)} '
          'conflict(s)', flush=True)
    problems += [f'the branches do not merge: {c}' for c in conflicts]
    if args.merge_only:
      for problem in problems:
        print(f'FAIL {problem}')
      return 1 if problems else 0
    results = _run_patches(selected, patches, tree, args, work)
    together = None
    if not args.only:
      together = _run_together(
          [r.fix for r in results if r.applies], patches, tree, args, work)
  finally:
    if not args.keep:
      shutil.rmtree(work, ignore_errors=True)
  for r in results:
    recorded = _stale_recorded(by_id.get(r.fix), label)
    if not r.applies and r.stale:
      (notes if recorded else problems).append(
          f'STALE {r.fix}: {r.stale}' + (
              ' (recorded in the ledger\'s patch_stale)' if recorded else
              f': rebase the patch, or record "{label}" in its patch_stale'))
    elif recorded:
      problems.append(f'{r.fix}: the ledger records the patch as stale on '
                      f'{label}, but it applies: remove that record')
    problems += [f'{r.fix}: {p}' for p in r.problems]
  if together is not None:
    problems += together['problems']
  _print_report(results, together, problems, notes)
  if args.json:
    pathlib.Path(args.json).write_text(json.dumps({
        'label': label, 'patches': [r.as_json() for r in results],
        'together': together, 'problems': problems, 'notes': notes},
        indent=1), encoding='utf-8')
  return 1 if problems else 0


def _run_patches(selected: Sequence[str], patches: dict[str, Any],
                 tree: pathlib.Path, args: argparse.Namespace,
                 work: pathlib.Path) -> list[PatchResult]:
  """Checks each selected patch alone, ``args.jobs`` at a time."""
  with concurrent.futures.ThreadPoolExecutor(max(1, args.jobs)) as pool:
    futures = {fix: pool.submit(check_patch, fix, patches, tree,
                                args.python, work / fix, args.pristine,
                                args.workers, not args.no_ci,
                                args.lint_python, not args.reproducers_only)
               for fix in selected}
    results = []
    for fix in selected:
      result = futures[fix].result()
      mark = 'ok' if not result.problems and result.applies else 'FAIL'
      print(f'  {mark:4} {fix}', flush=True)
      results.append(result)
  return results


def _run_together(fixes: Sequence[str], patches: dict[str, Any],
                  tree: pathlib.Path, args: argparse.Namespace,
                  work: pathlib.Path) -> dict[str, Any]:
  """Applies every patch together and runs the suite (or touched files)."""
  out: dict[str, Any] = {'fixes': list(fixes), 'problems': []}
  try:
    applied = patch_lib.apply(patches, fixes, tree, work / 'together')
  except patch_lib.PatchError as exc:
    out['problems'].append(f'all patches together do not apply: {exc}')
    return out
  placed = [t for ids in applied.tests.values() for t in ids]
  compared: Optional[list[str]] = None
  targets = ['optax']
  if args.reproducers_only:
    targets = compared = sorted({t.split('::')[0] for t in placed})
  elif args.no_suite:
    compared = touched_test_files(applied.tree, [patches[f] for f in fixes])
    targets = compared
  processes = max(args.workers, args.jobs if args.jobs > 1 else 0)
  select: list[str] = []
  if args.reproducers_only:
    pristine = Record({}, {}, {}, '')
    select = [t.split('::')[-1] for t in placed]
  elif args.no_suite:
    pristine = args.pristine.get(targets)
  else:
    base = patch_lib.copy_tree(tree, work / 'pristine')
    pristine = run_pytest(base, targets, args.python, work,
                          'suite_pristine', processes)
  patched = run_pytest(applied.tree, targets, args.python, work,
                       'suite_together', processes, select=select)
  lost = regressions(pristine, patched, compared, placed)
  outcomes = _reproducer_outcomes(patched, placed)
  # A test file that sets up jax's devices when imported (upstream's sharding
  # tests ask for 8 CPU devices) skips when another file of the same process
  # started the backend first: such a reproducer runs again in a process of
  # its own file.
  skipped_files = sorted({t.split('::')[0] for t, v in outcomes.items()
                          if v == 'skipped'})
  for i, test_file in enumerate(skipped_files):
    alone = run_pytest(applied.tree, [test_file], args.python, work,
                       f'reproducers_alone_{i}', select=select)
    ids = [t for t in placed if t.split('::')[0] == test_file]
    outcomes.update(_reproducer_outcomes(alone, ids))
  failing = {k: v for k, v in outcomes.items() if v != 'passed'}
  out.update(
      files=targets, pristine=_counts(pristine, compared),
      patched=_counts(patched, compared), regressions=lost,
      reproducers={'passed': len(outcomes) - len(failing),
                   'total': len(outcomes)}, failing=failing)
  if lost:
    out['problems'].append(f'all patches together: {len(lost)} upstream '
                           'test(s) that pass on the pristine tree fail: '
                           + '; '.join(lost[:20]))
  if failing:
    out['problems'].append('all patches together: reproducers that do not '
                           'pass: ' + ', '.join(sorted(failing)))
  return out


def ci_summary(ci: dict[str, Any]) -> str:
  """One line of what :func:`check_ci` found."""
  before, after = ci['doctests_before'], ci['doctests_after']
  missing = (f'; not run (not installed): {", ".join(ci["missing"])}'
             if ci['missing'] else '')
  return (f'upstream CI: {", ".join(ci["linters"])} on '
          f'{len(ci["files"])} file(s): {ci["lint_before"]} -> '
          f'{ci["lint_after"]} message(s), {len(ci["new_messages"])} new; '
          f'docstring examples of {ci["doctest_objects"]} object(s): '
          f'{before["examples"]} -> {after["examples"]} run, '
          f'{before["failed"]} -> {after["failed"]} docstring(s) failing'
          f'{missing}')


def _print_report(results: Sequence[PatchResult],
                  together: Optional[dict[str, Any]], problems: list[str],
                  notes: list[str]) -> None:
  """Prints the table, the whole-suite lines, problems and notes."""
  print('\nfix  |  reproducer without -> with the fix  |  touched tests '
        'passed without -> with (failed)')
  for r in results:
    if not r.applies:
      print(f'{r.fix}: {"STALE" if r.stale else "does not apply"}')
      continue
    before = ','.join(sorted(set(r.before.values()))) or '-'
    after = ','.join(sorted(set(r.after.values()))) or '-'
    c = r.counts
    print(f'{r.fix}: {len(r.reproducer)} test(s) {before} -> {after}  |  '
          f'{", ".join(r.files)}: {c.get("before_passed", 0)} -> '
          f'{c.get("after_passed", 0)} ({c.get("before_failed", 0)} -> '
          f'{c.get("after_failed", 0)} failed)')
    if r.ci:
      print(f'    {ci_summary(r.ci)}')
  if together is not None and 'pristine' in together:
    p, q = together['pristine'], together['patched']
    what = ('upstream\'s whole suite' if together['files'] == ['optax']
            else 'the touched test files')
    print(f'\nall {len(together["fixes"])} patches together, {what}: '
          f'pristine {p["passed"]} passed / {p["failed"]} failed / '
          f'{p["skipped"]} skipped; patched {q["passed"]} / {q["failed"]} '
          f'/ {q["skipped"]}; {len(together["regressions"])} regressions; '
          f'reproducers {together["reproducers"]["passed"]}/'
          f'{together["reproducers"]["total"]} pass')
  for note in notes:
    print(f'note {note}')
  for problem in problems:
    print(f'FAIL {problem}')
  print(f'patch_lane: {len(results)} patch(es), {len(problems)} problem(s)')


if __name__ == '__main__':
  sys.exit(main())
