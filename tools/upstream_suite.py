#!/usr/bin/env python3
"""Runs upstream Optax's own test files against the installed optax package.

The upstream release is the one of ``[tool.optax-fork]`` in pyproject.toml
(see tools/fork_config.py). Its published wheel is fetched with ``pip
download`` into a temporary folder (nothing of upstream's is kept in this
repository), its ``*_test.py`` files are laid over a copy of the *installed*
package, and pytest runs them. With ``--upstream-tree PATH`` the test files
come from a source checkout of upstream instead (its main branch, labelled
``main@<commit>``: ``--upstream-label``, or the checkout's git HEAD), and
the entries that apply are those naming main (see
``fork_config.not_applicable``). The outcome is checked against the
``upstream_suite`` entries of ``deviations.toml``:

* a failing test that is not listed there fails the lane;
* a listed test that now passes (a stale entry) fails the lane too, and so
  does an entry written against another upstream release (its ``upstream``
  field); an entry whose ``jax`` range excludes the installed jax, or whose
  ``backend`` excludes jax's default backend here, is skipped and reported.

Usage::

  python -m tools.upstream_suite [--deviations deviations.toml]
      [--workers auto] [--keep DIR]
      [--wheel PATH | --upstream-tree PATH [--upstream-label main@COMMIT]]
      [-- extra pytest args]

The package tested is the ``optax`` this interpreter imports: run it from a
folder without ``optax/`` (``PYTHONPATH`` naming a folder that holds only a
``tools`` link, as test.sh does; see tools/README.md) to test an installed
wheel, since from the repository's root ``python -m`` imports the
checkout's ``optax/``.
"""

import argparse
import importlib.metadata
import importlib.util
import os
import pathlib
import shutil
import subprocess
import sys
import tempfile
import tomllib
from typing import Any
import xml.etree.ElementTree as ET
import zipfile

from tools import fork_config
from tools import upstream_status

HERE = pathlib.Path(__file__).resolve().parent.parent


def _installed_package() -> pathlib.Path:
  spec = importlib.util.find_spec('optax')
  if spec is None or spec.origin is None:
    raise SystemExit('upstream_suite: optax is not installed')
  return pathlib.Path(spec.origin).parent


def _upstream_tests(source: pathlib.Path) -> dict[str, bytes]:
  """Upstream's test files (``optax/...*_test.py``) of a wheel or a tree."""
  if source.is_dir():
    return {path.relative_to(source).as_posix(): path.read_bytes()
            for path in sorted((source / 'optax').rglob('*_test.py'))
            if '__pycache__' not in path.parts}
  with zipfile.ZipFile(source) as zf:
    return {name: zf.read(name) for name in zf.namelist()
            if name.startswith('optax/') and name.endswith('_test.py')}


def _lay_over(source: pathlib.Path, root: pathlib.Path) -> list[str]:
  """Copies the installed package to root and overlays upstream's tests."""
  shutil.copytree(_installed_package(), root / 'optax',
                  ignore=shutil.ignore_patterns('__pycache__'))
  tests = _upstream_tests(source)
  for name, content in tests.items():
    (root / name).parent.mkdir(parents=True, exist_ok=True)
    (root / name).write_bytes(content)
  if not tests:
    raise SystemExit(f'upstream_suite: no test files in {source}')
  return sorted(tests)


def _outcomes(junit: pathlib.Path) -> dict[str, str]:
  """Maps each test id (file::Class::test) to passed/failed/skipped."""
  out = {}
  for case in ET.parse(junit).getroot().iter('testcase'):
    classname = case.get('classname', '')
    parts = classname.split('.')
    # classname is e.g. optax._src.alias_test.AliasTest.
    module = [p for p in parts if not p[:1].isupper()]
    classes = [p for p in parts if p[:1].isupper()]
    test_id = '/'.join(module) + '.py'
    for c in classes:
      test_id += '::' + c
    test_id += '::' + case.get('name', '')
    if case.find('failure') is not None or case.find('error') is not None:
      out[test_id] = 'failed'
    elif case.find('skipped') is not None:
      out[test_id] = out.get(test_id, 'skipped')
    else:
      out.setdefault(test_id, 'passed')
  return out


def stale_deviations(listed: dict[str, dict[str, Any]],
                     outcomes: dict[str, str]) -> tuple[list[str], list[str]]:
  """The listed tests that passed: stale ones, and those allowed to pass.

  An ``[[upstream_suite]]`` entry with ``outcome = "either"`` is a test whose
  result depends on float32 rounding of the machine it runs on (upstream
  fails it on some CPUs and passes it on others): its passing is reported,
  not failed.

  Args:
    listed: the applicable entries, by test id.
    outcomes: each test's outcome (``passed``, ``failed``, ``skipped``).

  Returns:
    ``(stale, either)``: the passing tests whose entry expects a failure,
    and those whose entry allows either outcome.

  Raises:
    ValueError: for an ``outcome`` other than ``"either"``.
  """
  stale, either = [], []
  for test, entry in sorted(listed.items()):
    outcome = entry.get('outcome')
    if outcome not in (None, 'either'):
      raise ValueError(f'deviations.toml: {test}: outcome must be "either" '
                       f'(or absent), got {outcome!r}')
    if outcomes.get(test) == 'passed':
      (either if outcome == 'either' else stale).append(test)
  return stale, either


def main() -> int:
  """Runs the lane; returns the process exit code."""
  parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
  parser.add_argument('--deviations', default=str(HERE / 'deviations.toml'))
  parser.add_argument('--workers', default='auto')
  parser.add_argument('--keep', default=None,
                      help='work in this folder and keep it')
  source = parser.add_mutually_exclusive_group()
  source.add_argument('--wheel', default=None,
                      help='a downloaded wheel of the upstream release to '
                      'use')
  source.add_argument('--upstream-tree', default=None, metavar='PATH',
                      help='take the test files from this source checkout '
                      'of upstream (its main branch)')
  parser.add_argument('--upstream-label', default=None,
                      help='with --upstream-tree: main@COMMIT (default: the '
                      "checkout's git HEAD)")
  parser.add_argument('--only', action='append', default=[],
                      help='run only this upstream test file (repeatable), '
                      'e.g. optax/_src/utils_test.py; no deviation check')
  parser.add_argument('pytest_args', nargs='*')
  args = parser.parse_args()

  if args.upstream_tree:
    tree = pathlib.Path(args.upstream_tree).resolve()
    version = upstream_status.label_for_tree(tree, args.upstream_label)
  else:
    version = fork_config.upstream_version()
  jax_version = importlib.metadata.version('jax')
  backend = fork_config.jax_backend()
  with open(args.deviations, 'rb') as f:
    entries = tomllib.load(f).get('upstream_suite', [])
  listed, stale_entries = {}, []
  for e in entries:
    why = fork_config.not_applicable(e, version, jax_version, backend=backend)
    if why is None:
      listed[e['id']] = e
    elif why[0] == 'stale':
      stale_entries.append(why[1])
    else:
      print(f'DEVIATION NOT APPLICABLE {why[1]}')

  work = pathlib.Path(args.keep or tempfile.mkdtemp(prefix='optax-upstream.'))
  work.mkdir(parents=True, exist_ok=True)
  try:
    if args.upstream_tree:
      wheel = tree
      if not (tree / 'optax' / '__init__.py').is_file():
        raise SystemExit(f'upstream_suite: {tree} is not a source tree of '
                         'optax (no optax/__init__.py)')
    else:
      wheel = fork_config.upstream_wheel(
          work / 'dist', version,
          pathlib.Path(args.wheel) if args.wheel else None,
          caller='upstream_suite')
    root = work / 'tree'
    if root.exists():
      shutil.rmtree(root)
    root.mkdir()
    tests = _lay_over(wheel, root)
    if args.only:
      tests = [t for t in tests if t in args.only]
    print(f'upstream_suite: {len(tests)} test files from {wheel.name} '
          f'(upstream {version}) over {_installed_package()}')
    junit = work / 'junit.xml'
    env = dict(os.environ, PYTHONPATH=str(root))
    cmd = [sys.executable, '-m', 'pytest', '-q', '-p', 'no:cacheprovider',
           '-n', args.workers, '--dist', 'worksteal', '--junitxml',
           str(junit), '-o', 'junit_family=xunit1', '--rootdir', str(root),
           '-W', 'ignore::DeprecationWarning:flax.*', *tests,
           *args.pytest_args]
    proc = subprocess.run(cmd, cwd=root, env=env, capture_output=True,
                          text=True, check=False)
    if not junit.exists():
      print(proc.stdout[-5000:], proc.stderr[-5000:])
      print('upstream_suite: pytest produced no report')
      return 1
    outcomes = _outcomes(junit)
    failed = sorted(t for t, o in outcomes.items() if o == 'failed')
    passed = sorted(t for t, o in outcomes.items() if o == 'passed')
    unexpected = [t for t in failed if t not in listed]
    stale, either = stale_deviations(listed, outcomes)
    missing = [t for t in listed if t not in outcomes]
    lines = [ln for ln in proc.stdout.splitlines()
             if ln.startswith(('FAILED', 'ERROR'))]
    for ln in lines:
      test = ln.split(' ', 1)[1].split(' - ', 1)[0]
      if test not in listed:
        print(ln)
    for t in unexpected:
      print(f'UNEXPECTED FAILURE {t}')
    for t in stale:
      print(f'STALE DEVIATION (passes now) {t}')
    for t in either:
      print(f'PASSES (listed with outcome = "either") {t}')
    for t in missing:
      print(f'DEVIATION NOT FOUND (no such test) {t}')
    for message in stale_entries:
      print(f'STALE DEVIATION (other upstream release) {message}')
    n_skipped = sum(1 for o in outcomes.values() if o == 'skipped')
    print(f'upstream_suite: {len(passed)} passed, {len(failed)} failed '
          f'({len(failed) - len(unexpected)} listed deviations), '
          f'{n_skipped} skipped')
    if args.only:
      print(proc.stdout[-20000:])
      return 0 if not failed else 1
    ok = not unexpected and not stale and not missing and not stale_entries
    return 0 if ok else 1
  finally:
    if not args.keep:
      shutil.rmtree(work, ignore_errors=True)


if __name__ == '__main__':
  sys.exit(main())
