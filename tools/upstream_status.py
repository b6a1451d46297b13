#!/usr/bin/env python3
# Copyright 2026 The Optax fork authors. All Rights Reserved.
# Licensed under the Apache License, Version 2.0.
"""Checks ledger.toml against an upstream Optax: which fixes it still needs.

Every ``[[fix]]`` of ledger.toml names a reproducer, a test under
upstream_tests/ that fails where the bug is and passes where it is fixed, and
records for each upstream it was checked against whether upstream still needs
the fix (``"needed"``) or has absorbed it (``"absorbed in <commit>"``). This
tool runs every reproducer against an upstream and against the fork and
prints, per fix: its id, its upstream references, what the reproducer did on
that upstream (*needed*: it fails; *absorbed*: it passes), on the fork (it
must pass) and what the ledger expects. It exits with 1 when what ran
disagrees with the ledger: a reproducer that passes on upstream where the
ledger says needed, one that fails where the ledger says absorbed, one that
fails on the fork, a fix whose reproducer is missing (no such file or test),
a fix the ledger gives no status for this upstream; with 2 when the run
itself could not be made. Skipped reproducers are reported, not judged.

The upstream is one of::

  --upstream VERSION        the release's wheel (pip download at run time,
                            or --wheel PATH), unpacked and run with this
                            interpreter; the default is the release of
                            [tool.optax-fork] in pyproject.toml
  --upstream-python PATH    an interpreter with that release installed
                            (and pytest)
  --upstream-tree PATH      a source checkout, run with this interpreter
                            and PYTHONPATH=PATH

Its label, the key of the ledger's status tables, is the release's version,
or ``main@<commit>`` for a tree (``--upstream-label``, or the checkout's
``git rev-parse --short=8 HEAD``). When the ledger has no status for a
``main@`` label (upstream's main moved on since it was last recorded), each
fix is held to its newest ``main@`` status (the last one its table lists) and
every change is a failure: a fix newly absorbed by main, or one main needs
again.

Each side runs all its reproducers in one pytest process (the two sides in
parallel), from a temporary copy of upstream_tests/ outside the repository,
and the tool checks in that very process which ``optax`` was imported.

Usage::

  python -m tools.upstream_status [--ledger ledger.toml] [--json]
      [--upstream VERSION [--wheel PATH] | --upstream-python PATH
       | --upstream-tree PATH [--upstream-label main@COMMIT]]
      [--fork-python PATH] [--only FIX_ID ...] [--keep DIR]
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import os
import pathlib
import re
import shutil
import subprocess
import sys
import tempfile
import tomllib
from typing import Any, Mapping, Optional, Sequence

from tools import fork_config

REPO = pathlib.Path(__file__).resolve().parent.parent
LEDGER = REPO / 'ledger.toml'
PLUGIN = pathlib.Path(__file__).resolve().parent / 'upstream_status_plugin.py'
TESTS_DIR = 'upstream_tests'

NEEDED = 'needed'
ABSORBED = 'absorbed'
_HEX = re.compile(r'^[0-9a-f]{4,40}$')


@dataclasses.dataclass(frozen=True)
class Fix:
  """One ``[[fix]]`` table of the ledger (the fields this tool reads)."""

  id: str
  title: str
  refs: tuple[str, ...]
  reproducer: str
  status: dict[str, str]
  table: dict[str, Any]

  @property
  def file(self) -> str:
    """The reproducer's file, relative to the repository root."""
    return self.reproducer.split('::', 1)[0]


@dataclasses.dataclass(frozen=True)
class Outcome:
  """What a reproducer did on one side.

  Attributes:
    outcome: ``passed``, ``failed``, ``skipped``, or ``missing`` (no such
      file or test).
    crash: the one-line reason of a failure or skip.
    text: the end of a failure's report.
  """

  outcome: str
  crash: str = ''
  text: str = ''


@dataclasses.dataclass
class Row:
  """One fix's line of the report."""

  fix: Fix
  upstream: Outcome
  fork: Outcome
  status_key: Optional[str]
  expected: Optional[str]
  problems: list[str]
  notes: list[str]

  def as_json(self) -> dict[str, Any]:
    """The row as plain JSON types."""
    return {
        'id': self.fix.id, 'refs': list(self.fix.refs),
        'reproducer': self.fix.reproducer,
        'upstream': dataclasses.asdict(self.upstream),
        'fork': dataclasses.asdict(self.fork),
        'ledger_status_key': self.status_key,
        'ledger_status': (self.fix.status.get(self.status_key)
                          if self.status_key else None),
        'expected': self.expected, 'ok': not self.problems,
        'problems': self.problems, 'notes': self.notes}


# The ledger.


def load_ledger(path: pathlib.Path) -> list[Fix]:
  """The fixes of a ledger file.

  Args:
    path: a ledger.toml.

  Returns:
    Its ``[[fix]]`` tables, in order.

  Raises:
    ValueError: if a table has no id, an id repeats or a field has the
      wrong type.
  """
  with open(path, 'rb') as f:
    tables = tomllib.load(f).get('fix', [])
  fixes, seen = [], set()
  for i, table in enumerate(tables):
    fix_id = table.get('id')
    if not isinstance(fix_id, str) or not fix_id:
      raise ValueError(f'{path}: [[fix]] number {i + 1} has no id')
    if fix_id in seen:
      raise ValueError(f'{path}: the id {fix_id!r} is used twice')
    seen.add(fix_id)
    refs = table.get('upstream_refs', [])
    status = table.get('status', {})
    reproducer = table.get('reproducer', '')
    if (not isinstance(refs, list) or not isinstance(status, dict)
        or not isinstance(reproducer, str)):
      raise ValueError(f'{path}: {fix_id}: upstream_refs must be a list, '
                       'status a table and reproducer a string')
    fixes.append(Fix(id=fix_id, title=str(table.get('title', '')),
                     refs=tuple(str(r) for r in refs),
                     reproducer=reproducer.strip(),
                     status={str(k): str(v) for k, v in status.items()},
                     table=table))
  return fixes


def expectation(status: str) -> str:
  """``needed`` or ``absorbed`` for a status value of the ledger.

  Args:
    status: ``"needed"``, ``"absorbed"`` or ``"absorbed in <commit>"``.

  Returns:
    :data:`NEEDED` or :data:`ABSORBED`.

  Raises:
    ValueError: for any other value.
  """
  word = status.strip().split(' ', 1)[0].lower()
  if word in (NEEDED, ABSORBED):
    return word
  raise ValueError(f'unreadable status {status!r}: expected "needed", '
                   '"absorbed" or "absorbed in <upstream commit>"')


def main_commit(label: str) -> Optional[str]:
  """The commit of a ``main@<commit>`` label, '' for ``main``, else None."""
  if label == 'main':
    return ''
  if label.startswith('main@'):
    return label[len('main@'):]
  return None


def same_label(a: str, b: str) -> bool:
  """Whether two upstream labels name the same upstream.

  Two ``main@`` labels are the same when one commit hash is a prefix of the
  other (a short and a long hash of one commit).

  Args:
    a: a label, e.g. ``0.2.8`` or ``main@2edbcbe2``.
    b: another.

  Returns:
    Whether they agree.
  """
  ca, cb = main_commit(a), main_commit(b)
  if ca and cb:
    return ca.startswith(cb) or cb.startswith(ca)
  return a == b


def status_for(fix: Fix, label: str) -> tuple[Optional[str], bool]:
  """The key of ``fix.status`` that holds for ``label``.

  Args:
    fix: a ledger entry.
    label: the upstream run against.

  Returns:
    ``(key, exact)``: the key naming ``label``, with exact True; else, for a
    ``main@`` label, the newest ``main@`` key of the table (the last listed),
    with exact False; else ``(None, False)``.
  """
  for key in fix.status:
    if same_label(key, label):
      return key, True
  if main_commit(label) is not None:
    mains = [k for k in fix.status if main_commit(k) is not None]
    if mains:
      return mains[-1], False
  return None, False


def git_head(tree: pathlib.Path) -> Optional[str]:
  """The full commit of ``tree``'s HEAD when it is a git checkout's top."""
  proc = subprocess.run(
      ['git', '-C', str(tree), 'rev-parse', '--show-toplevel', 'HEAD'],
      capture_output=True, text=True, check=False)
  top, commit = (proc.stdout.split() + ['', ''])[:2]
  if (proc.returncode != 0 or not _HEX.match(commit)
      or pathlib.Path(top).resolve() != tree.resolve()):
    return None
  return commit


def label_for_tree(tree: pathlib.Path, given: Optional[str]) -> str:
  """The label of an upstream source tree: ``main@<commit>``, or ``main``.

  Args:
    tree: a git checkout of upstream, or a plain export of one.
    given: ``--upstream-label``: a label (``main@2edbcbe2``), a bare commit
      hash, or None to ask git.

  Returns:
    The label given; else ``main@<commit>`` of a checkout's HEAD; else, for
    a plain export (or a folder inside another checkout), ``main``: a main
    whose commit is unknown, held to the ledger's newest ``main@`` status.
  """
  if given:
    return f'main@{given}' if _HEX.match(given) else given
  commit = git_head(tree)
  if commit is None:
    print(f'upstream_status: {tree} is not a git checkout: labelled "main" '
          '(name its commit with --upstream-label main@COMMIT)',
          file=sys.stderr)
    return 'main'
  return f'main@{commit[:8]}'


# Matching test reports to reproducers.


def select(reproducer: str, record: dict[str, Any]) -> Outcome:
  """What ``reproducer`` did, from a record of upstream_status_plugin.

  Args:
    reproducer: ``path`` (every test of the file) or ``path::Class::test``
      (that test, with all its pytest parameters ``[...]`` and absltest's
      numbered variants ``test0``, ``test1``, ...).
    record: the plugin's JSON record of the run.

  Returns:
    failed if any matching test failed or its file (or class) could not be
    collected, passed if every matching test ran and some passed, skipped if
    all were skipped, missing if none matched.
  """
  file = reproducer.split('::', 1)[0]
  for nodeid, error in record.get('collect_errors', {}).items():
    if nodeid and (reproducer == nodeid
                   or reproducer.startswith(nodeid + '::')
                   or nodeid.startswith(reproducer + '::')):
      return Outcome('failed', error.get('crash', ''), error.get('text', ''))
  if '::' in reproducer:
    pattern = re.compile(re.escape(reproducer) + r'(\d+|\[.*\])?$')
  else:
    pattern = re.compile(re.escape(file) + r'::.*$')
  matched = [v for k, v in record.get('tests', {}).items()
             if pattern.match(k)]
  if not matched:
    return Outcome('missing')
  for value in matched:
    if value['outcome'] == 'failed':
      return Outcome('failed', value.get('crash', ''), value.get('text', ''))
  if all(v['outcome'] == 'skipped' for v in matched):
    return Outcome('skipped', matched[0].get('crash', ''))
  return Outcome('passed')


# Judging.


def classify(fix: Fix, upstream: Outcome, fork: Outcome, label: str
             ) -> Row:
  """Compares what a fix's reproducer did with what the ledger says.

  Args:
    fix: the ledger entry.
    upstream: what its reproducer did on the upstream ``label``.
    fork: what it did on the fork.
    label: the upstream's label.

  Returns:
    The report row; ``problems`` lists every disagreement.
  """
  problems: list[str] = []
  notes: list[str] = []
  key, exact = status_for(fix, label)
  expected = None
  if key is not None:
    try:
      expected = expectation(fix.status[key])
    except ValueError as exc:
      problems.append(f'ledger status {key!r}: {exc}')
  else:
    problems.append(f'the ledger gives no status for upstream {label} '
                    f'(it has {sorted(fix.status) or "none"})')
  if not fix.reproducer:
    problems.append('the ledger names no reproducer')
  elif upstream.outcome == 'missing' or fork.outcome == 'missing':
    problems.append(f'reproducer {fix.reproducer} not found (no such file '
                    'or test)')
  if fork.outcome == 'failed':
    problems.append(f'the reproducer fails on the fork: '
                    f'{_one_line(fork.crash)}')
  for side, outcome in (('upstream', upstream), ('fork', fork)):
    if outcome.outcome == 'skipped':
      notes.append(f'skipped on {side} ({_one_line(outcome.crash)}): '
                   'not checked')
  found = {'failed': NEEDED, 'passed': ABSORBED}.get(upstream.outcome)
  if expected is not None and found is not None and found != expected:
    said = fix.status[key]
    if exact and found == ABSORBED:
      problems.append(
          f'the reproducer passes on {label}, the ledger says {said!r}: '
          'upstream fixed it (record "absorbed in <commit>") or the '
          'reproducer does not reproduce the bug')
    elif exact:
      problems.append(
          f'the reproducer fails on {label}, the ledger says {said!r}: '
          f'{_one_line(upstream.crash)}')
    elif found == ABSORBED:
      problems.append(
          f'NEWLY ABSORBED on {label}: the reproducer passes, the ledger\'s '
          f'newest status of main, {key}, says {said!r}: record {label!r} = '
          '"absorbed in <commit>" (the upstream commit that fixed it) and '
          'review the fix')
    else:
      problems.append(
          f'NEEDED AGAIN on {label}: the reproducer fails, the ledger\'s '
          f'newest status of main, {key}, says {said!r}: '
          f'{_one_line(upstream.crash)}')
  elif not exact and key is not None and found == expected:
    notes.append(f'the ledger has no status for {label}; {key}\'s holds')
  return Row(fix, upstream, fork, key, expected, problems, notes)


def _one_line(text: str, width: int = 160) -> str:
  text = ' '.join(text.split())
  return text if len(text) <= width else text[:width - 3] + '...'


# Running pytest on one side.


@dataclasses.dataclass
class Side:
  """How to run pytest against one optax.

  Attributes:
    name: ``upstream`` or ``fork``.
    python: the interpreter.
    pythonpath: PYTHONPATH for it (None: none).
    inside: ``optax.__file__`` must lie under this folder, if given.
    outside: ... and must not lie under any of these.
  """

  name: str
  python: str
  pythonpath: Optional[str] = None
  inside: Optional[pathlib.Path] = None
  outside: tuple[pathlib.Path, ...] = ()


@dataclasses.dataclass
class Run:
  """A side's finished pytest process."""

  side: Side
  record: dict[str, Any]
  returncode: int
  output: str


def _copy_tests(files: Sequence[str], root: pathlib.Path,
                dest: pathlib.Path) -> None:
  """Copies the reproducers' folders (with their helpers) under ``dest``.

  Args:
    files: the reproducers' files, relative to ``root``.
    root: the folder of the ledger (the repository).
    dest: the folder to run pytest in.
  """
  folders = sorted({pathlib.PurePosixPath(f).parts[0] for f in files})
  for folder in folders:
    source = root / folder
    if source.is_dir():
      shutil.copytree(source, dest / folder,
                      ignore=shutil.ignore_patterns('__pycache__', '*.pyc'))
  shutil.copy(PLUGIN, dest / PLUGIN.name)
  (dest / 'pytest.ini').write_text(
      '[pytest]\nmarkers =\n    slow: a long test\n', encoding='utf-8')


def side_env(side: Side, environ: Mapping[str, str]) -> dict[str, str]:
  """The environment a side's pytest runs in.

  The fork side keeps the caller's environment, PYTHONPATH included (a
  checkout of the fork that is not installed runs with PYTHONPATH); an
  upstream side gets only its own PYTHONPATH.

  Args:
    side: the side.
    environ: the caller's environment.

  Returns:
    The environment.
  """
  env = dict(environ)
  if side.name != 'fork' or side.pythonpath:
    for key in ('PYTHONPATH', 'PYTHONHOME', 'PYTHONSAFEPATH'):
      env.pop(key, None)
  if side.pythonpath:
    env['PYTHONPATH'] = side.pythonpath
  return env


def start(side: Side, files: Sequence[str], source: pathlib.Path,
          work: pathlib.Path) -> subprocess.Popen[str]:
  """Starts pytest on ``files`` (under ``source``) in ``work/<side>``."""
  root = work / side.name
  if root.exists():  # A kept folder of an earlier run.
    shutil.rmtree(root)
  root.mkdir(parents=True)
  _copy_tests(files, source, root)
  env = side_env(side, os.environ)
  env['UPSTREAM_STATUS_OUT'] = str(root / 'record.json')
  cmd = [side.python, '-m', 'pytest', '-q', '-p', 'no:cacheprovider',
         '-p', PLUGIN.stem, '--rootdir', str(root),
         '--continue-on-collection-errors', '-rN', '-W',
         'ignore::DeprecationWarning:flax.*', *files]
  return subprocess.Popen(cmd, cwd=root, env=env, stdout=subprocess.PIPE,
                          stderr=subprocess.STDOUT, text=True)


def finish(side: Side, proc: subprocess.Popen[str], work: pathlib.Path
           ) -> Run:
  """Waits for a side and checks which optax it imported.

  Args:
    side: the side.
    proc: its process, from :func:`start`.
    work: the folder given to :func:`start`.

  Returns:
    The run.

  Raises:
    SystemExit: when pytest wrote no record or imported the wrong optax.
  """
  output, _ = proc.communicate()
  path = work / side.name / 'record.json'
  if not path.exists():
    hint = ''
    if 'No module named pytest' in output:
      hint = f' ({side.python} has no pytest: install it there)'
    raise SystemExit(f'upstream_status: pytest on the {side.name} side wrote '
                     f'no record{hint}:\n{output[-3000:]}')
  with open(path, encoding='utf-8') as f:
    record = json.load(f)
  # Failure texts name the temporary copy of the reproducers: drop it.
  prefix = str(work / side.name) + os.sep
  for group in ('tests', 'collect_errors'):
    for value in record.get(group, {}).values():
      for field in ('crash', 'text'):
        value[field] = value.get(field, '').replace(prefix, '')
  meta = record['meta']
  if meta.get('error'):
    raise SystemExit(f'upstream_status: the {side.name} side cannot import '
                     f'optax: {meta["error"]}')
  where = pathlib.Path(meta['optax_file']).resolve()
  if side.inside is not None and not where.is_relative_to(
      side.inside.resolve()):
    raise SystemExit(f'upstream_status: the {side.name} side imported '
                     f'optax from {where}, not from {side.inside}')
  for folder in side.outside:
    if where.is_relative_to(folder.resolve()):
      raise SystemExit(f'upstream_status: the {side.name} side imported '
                       f'optax from {where}, inside {folder}')
  return Run(side, record, proc.returncode, output)


def run_sides(sides: Sequence[Side], files: Sequence[str],
              source: pathlib.Path, work: pathlib.Path) -> list[Run]:
  """Runs pytest on every side at once; returns their runs in order."""
  procs = [start(side, files, source, work) for side in sides]
  return [finish(side, proc, work) for side, proc in zip(sides, procs)]


def upstream_side(args: argparse.Namespace, work: pathlib.Path
                  ) -> tuple[Side, Optional[str]]:
  """The upstream side of the options, and its label if known already."""
  if args.upstream_tree:
    tree = pathlib.Path(args.upstream_tree).resolve()
    if not (tree / 'optax' / '__init__.py').is_file():
      raise SystemExit(f'upstream_status: {tree} has no optax/__init__.py')
    if tree.is_relative_to(REPO) or REPO.is_relative_to(tree):
      raise SystemExit(f'upstream_status: the tree {tree} and the fork '
                       f'{REPO} must not contain each other')
    label = label_for_tree(tree, args.upstream_label)
    return Side('upstream', args.fork_python, str(tree), inside=tree,
                outside=(REPO,)), label
  if args.upstream_python:
    return Side('upstream', args.upstream_python,
                outside=(REPO,)), args.upstream_label
  version = args.upstream or fork_config.upstream_version()
  wheel = fork_config.upstream_wheel(
      work / 'dist', version, pathlib.Path(args.wheel) if args.wheel else None,
      caller='upstream_status')
  root = fork_config.unpack_wheel(wheel, work / 'wheel', version,
                                  caller='upstream_status')
  return Side('upstream', args.fork_python, str(root), inside=root,
              outside=(REPO,)), args.upstream_label or version


# The report.


def table(rows: Sequence[Row], label: str) -> str:
  """The report as a plain-text table, problems and notes below it."""
  head = ('fix', 'upstream refs', label, 'fork', 'ledger')
  lines = []
  for row in rows:
    found = {'failed': NEEDED, 'passed': ABSORBED}.get(
        row.upstream.outcome, row.upstream.outcome)
    ledger = '-'
    if row.status_key is not None:
      ledger = row.fix.status[row.status_key]
      if not same_label(row.status_key, label):
        ledger += f' ({row.status_key})'
    fork = 'pass' if row.fork.outcome == 'passed' else row.fork.outcome
    mark = '' if not row.problems else '  <-- FAIL'
    lines.append((row.fix.id, ' '.join(row.fix.refs) or '-', found, fork,
                  ledger + mark))
  widths = [max(len(r[i]) for r in [head, *lines]) for i in range(4)]
  out = []
  for r in [head, *lines]:
    out.append('  '.join(c.ljust(w) for c, w in zip(r, widths)) + '  '
               + r[4])
  for row in rows:
    for problem in row.problems:
      out.append(f'FAIL {row.fix.id}: {problem}')
    for note in row.notes:
      out.append(f'note {row.fix.id}: {note}')
  return '\n'.join(out)


def evaluate(fixes: Sequence[Fix], upstream: dict[str, Any],
             fork: dict[str, Any], label: str) -> list[Row]:
  """The rows of every fix, from the two sides' records."""
  rows = []
  for fix in fixes:
    if fix.reproducer:
      up, fo = select(fix.reproducer, upstream), select(fix.reproducer, fork)
    else:
      up = fo = Outcome('missing')
    rows.append(classify(fix, up, fo, label))
  return rows


def make_parser(description: str = __doc__) -> argparse.ArgumentParser:
  """The options shared with upstream_pr.py."""
  parser = argparse.ArgumentParser(
      description=description.splitlines()[0],
      formatter_class=argparse.RawDescriptionHelpFormatter)
  parser.add_argument('--ledger', default=str(LEDGER))
  which = parser.add_mutually_exclusive_group()
  which.add_argument('--upstream', metavar='VERSION', default=None,
                     help='an upstream release, run from its wheel '
                     '(default: [tool.optax-fork] upstream)')
  which.add_argument('--upstream-python', metavar='PATH', default=None,
                     help='an interpreter with upstream optax installed')
  which.add_argument('--upstream-tree', metavar='PATH', default=None,
                     help='an upstream source checkout')
  parser.add_argument('--wheel', default=None,
                      help='with --upstream: a downloaded wheel to use')
  parser.add_argument('--upstream-label', default=None,
                      help='the ledger key of this upstream (for a tree: '
                      'main@COMMIT or COMMIT)')
  parser.add_argument('--fork-python', default=sys.executable,
                      help='the interpreter with the fork installed')
  parser.add_argument('--keep', default=None,
                      help='work in this folder and keep it')
  return parser


def main(argv: Optional[Sequence[str]] = None) -> int:
  """Runs the check; returns the exit status."""
  parser = make_parser()
  parser.add_argument('--only', action='append', default=[],
                      metavar='FIX_ID', help='check only this fix '
                      '(repeatable)')
  parser.add_argument('--json', action='store_true',
                      help='print the report as JSON')
  parser.add_argument('--print-label', action='store_true',
                      help='with --upstream-tree: print its label and stop')
  args = parser.parse_args(argv)
  if args.print_label:
    if not args.upstream_tree:
      parser.error('--print-label needs --upstream-tree')
    print(label_for_tree(pathlib.Path(args.upstream_tree), args.upstream_label))
    return 0
  ledger = pathlib.Path(args.ledger).resolve()
  fixes = load_ledger(ledger)
  if args.only:
    unknown = set(args.only) - {f.id for f in fixes}
    if unknown:
      raise SystemExit(f'upstream_status: no fix {sorted(unknown)} in '
                       f'{args.ledger}')
    fixes = [f for f in fixes if f.id in args.only]
  work = pathlib.Path(args.keep or tempfile.mkdtemp(prefix='optax-status.'))
  work.mkdir(parents=True, exist_ok=True)
  try:
    up_side, label = upstream_side(args, work)
    fork_side = Side('fork', args.fork_python, outside=(
        (pathlib.Path(up_side.pythonpath),) if up_side.pythonpath else ()))
    files = sorted({f.file for f in fixes
                    if f.reproducer and (ledger.parent / f.file).is_file()})
    if files:
      up_run, fork_run = run_sides([up_side, fork_side], files,
                                   ledger.parent, work)
      up_record, fork_record = up_run.record, fork_run.record
    else:
      up_record = fork_record = {'meta': {}, 'tests': {}}
    label = label or up_record['meta'].get('optax_version', '?')
    rows = evaluate(fixes, up_record, fork_record, label)
  finally:
    if not args.keep:
      shutil.rmtree(work, ignore_errors=True)
  ok = all(not r.problems for r in rows)
  if args.json:
    print(json.dumps({
        'upstream': {'label': label, **up_record['meta']},
        'fork': fork_record['meta'], 'ok': ok,
        'fixes': [r.as_json() for r in rows]}, indent=1))
  else:
    up_meta, fork_meta = up_record['meta'], fork_record['meta']
    print(f'upstream {label}: optax {up_meta.get("optax_version", "?")} '
          f'from {up_meta.get("optax_file", "?")}')
    print(f'fork: optax {fork_meta.get("optax_version", "?")} from '
          f'{fork_meta.get("optax_file", "?")}')
    print(table(rows, label))
    n_bad = sum(bool(r.problems) for r in rows)
    print(f'upstream_status: {len(rows)} fixes, '
          f'{sum(r.upstream.outcome == "failed" for r in rows)} needed and '
          f'{sum(r.upstream.outcome == "passed" for r in rows)} absorbed on '
          f'{label}; {n_bad} disagree with the ledger')
  return 0 if ok else 1


if __name__ == '__main__':
  sys.exit(main())
