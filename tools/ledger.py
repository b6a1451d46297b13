#!/usr/bin/env python3
# Copyright 2026 The Optax fork authors. All Rights Reserved.
# Licensed under the Apache License, Version 2.0.
"""The fix ledger (ledger.toml): loading, validation, and its cross-checks.

ledger.toml lists every behavioural difference between this fork and
upstream Optax, one ``[[fix]]`` table each (the fields are described at the
top of the file and in :data:`FIELDS`). Other tools import this module::

  from tools import ledger
  fixes = ledger.load()              # validated, or LedgerError
  fix = ledger.by_id(fixes)['inject-bf16-hyperparams']

and ``python -m tools.ledger`` prints the problems of the repository's
ledger and of the documents that must agree with it (README's "What
differs" table, docs/differences.md, deviations.toml, the reproducers under
upstream_tests/, the code files named), exiting with 1 if there are any;
``--commits`` also checks that every commit named is in the git history,
``--list`` prints each fix with its statuses.

Reads only the standard library, so it runs under any interpreter.
"""

from __future__ import annotations

import argparse
import dataclasses
import pathlib
import re
import subprocess
import sys
import tomllib
from typing import Any, Iterable, Optional

from tools import fork_config

REPO = pathlib.Path(__file__).resolve().parent.parent
LEDGER = REPO / 'ledger.toml'

KINDS = ('fix', 'deliberate', 'port', 'error')
# The `fix` of a deviations.toml entry for an upstream test that upstream
# fails itself: no fork difference is involved.
UPSTREAM_FAILS_TOO = 'upstream-fails-too'

# Field name -> (type, required). Lists are lists of strings.
FIELDS: dict[str, tuple[type, bool]] = {
    'id': (str, True),
    'title': (str, True),
    'kind': (str, True),
    'effect': (str, True),
    'upstream_refs': (list, True),
    'upstream_position': (str, True),
    'code': (list, True),
    'commits': (list, True),
    'reproducer': (str, True),
    'upstream_change': (str, True),
    'readme': (bool, True),
    'status': (dict, True),
    # Why a fix upstream still needs is not offered as a patch (a policy
    # upstream should first agree to, ...); else upstream_patches/<id>.toml.
    'not_offered': (str, False),
    # The upstream labels where the fix's patch is known not to apply.
    'patch_stale': (list, False),
}

_ID = re.compile(r'^[a-z0-9]+(-[a-z0-9]+)*$')
_COMMIT = r'[0-9a-f]{7,40}'
_STATUS = re.compile(
    rf'^(needed|absorbed( in {_COMMIT}(, {_COMMIT})*)?)$')
_REF = re.compile(r'^#[0-9]+$')
_STATUS_KEY = re.compile(r'^([0-9]+(\.[0-9]+)*|main@[0-9a-f]{7,40})$')


class LedgerError(ValueError):
  """A ledger that does not follow the schema; ``problems`` lists why."""

  def __init__(self, path: pathlib.Path, problems: list[str]):
    self.problems = problems
    super().__init__(f'{path}: ' + '; '.join(problems))


@dataclasses.dataclass(frozen=True)
class Fix:
  """One ``[[fix]]`` table of the ledger."""

  id: str
  title: str
  kind: str
  effect: str
  upstream_refs: tuple[str, ...]
  upstream_position: str
  code: tuple[str, ...]
  commits: tuple[str, ...]
  reproducer: str
  upstream_change: str
  readme: bool
  status: dict[str, str]
  not_offered: str = ''
  patch_stale: tuple[str, ...] = ()

  @property
  def reproducer_path(self) -> str:
    """The reproducer's file, relative to the repository (no ``::test``)."""
    return self.reproducer.split('::', 1)[0]

  def absorbed_on(self, key: str) -> bool:
    """Whether the upstream of status ``key`` has absorbed this fix."""
    return self.status.get(key, '').startswith('absorbed')

  def absorbing_commits(self, key: str) -> list[str]:
    """The upstream commits ``status[key]`` names (none if not absorbed)."""
    value = self.status.get(key, '')
    if not value.startswith('absorbed in '):
      return []
    return [c.strip() for c in value[len('absorbed in '):].split(',')]


def entry_problems(entry: Any, where: str) -> list[str]:
  """What is wrong with one raw ``[[fix]]`` table (empty if nothing)."""
  if not isinstance(entry, dict):
    return [f'{where}: not a table']
  problems = []
  name = entry.get('id', where)
  for field, (kind, required) in FIELDS.items():
    if field not in entry:
      if required:
        problems.append(f'{name}: missing field {field!r}')
      continue
    value = entry[field]
    if not isinstance(value, kind):
      problems.append(f'{name}: {field} must be a {kind.__name__}, got '
                      f'{type(value).__name__}')
      continue
    if kind is list and not all(isinstance(v, str) for v in value):
      problems.append(f'{name}: {field} must be a list of strings')
    if kind is str and field != 'id' and not value.strip():
      problems.append(f'{name}: {field} is empty')
  for field in sorted(set(entry) - set(FIELDS)):
    problems.append(f'{name}: unknown field {field!r} (fields: '
                    f'{", ".join(FIELDS)})')
  if problems:
    return problems
  if not _ID.match(entry['id']):
    problems.append(f'{name}: id must be kebab-case (a-z, 0-9, -)')
  if entry['id'] == UPSTREAM_FAILS_TOO:
    problems.append(f'{name}: the id {UPSTREAM_FAILS_TOO!r} is reserved for '
                    'deviations.toml')
  if entry['kind'] not in KINDS:
    problems.append(f'{name}: kind must be one of {KINDS}, got '
                    f'{entry["kind"]!r}')
  for ref in entry['upstream_refs']:
    if not _REF.match(ref):
      problems.append(f'{name}: upstream_refs must be like "#1414", got '
                      f'{ref!r}')
  if not entry['code']:
    problems.append(f'{name}: code names no file')
  if not entry['commits']:
    problems.append(f'{name}: commits names no commit')
  for commit in entry['commits']:
    if not re.fullmatch(_COMMIT, commit):
      problems.append(f'{name}: commits must be short hashes, got '
                      f'{commit!r}')
  if not entry['reproducer'].startswith('upstream_tests/'):
    problems.append(f'{name}: reproducer must be under upstream_tests/, got '
                    f'{entry["reproducer"]!r}')
  status = entry['status']
  if not status:
    problems.append(f'{name}: status names no upstream')
  for key, value in status.items():
    if not _STATUS_KEY.match(key):
      problems.append(f'{name}: status key must be a release ("0.2.8") or '
                      f'"main@<commit>", got {key!r}')
    if not isinstance(value, str) or not _STATUS.match(value):
      problems.append(f'{name}: status[{key!r}] must be "needed", "absorbed" '
                      f'or "absorbed in <commit>[, <commit>]", got {value!r}')
  return problems


def validate(data: dict[str, Any]) -> list[str]:
  """The problems of a parsed ledger (a dict with a ``fix`` list)."""
  extra = sorted(set(data) - {'fix'})
  problems = [f'unknown top-level table {k!r}' for k in extra]
  entries = data.get('fix')
  if not isinstance(entries, list) or not entries:
    return problems + ['no [[fix]] tables']
  seen: dict[str, int] = {}
  for i, entry in enumerate(entries):
    problems += entry_problems(entry, f'[[fix]] #{i + 1}')
    if isinstance(entry, dict) and isinstance(entry.get('id'), str):
      if entry['id'] in seen:
        problems.append(f'{entry["id"]}: duplicate id ([[fix]] #'
                        f'{seen[entry["id"]] + 1} and #{i + 1})')
      seen.setdefault(entry['id'], i)
  return problems


def load(path: pathlib.Path = LEDGER) -> list[Fix]:
  """The validated fixes of a ledger file, in file order.

  Args:
    path: a ledger.toml.

  Returns:
    One :class:`Fix` per ``[[fix]]`` table.

  Raises:
    LedgerError: if the file does not follow the schema.
  """
  path = pathlib.Path(path)
  with open(path, 'rb') as f:
    data = tomllib.load(f)
  problems = validate(data)
  if problems:
    raise LedgerError(path, problems)
  fixes = []
  for entry in data['fix']:
    values = dict(entry)
    for field in ('upstream_refs', 'code', 'commits', 'patch_stale'):
      if field in values:
        values[field] = tuple(values[field])
    values['status'] = dict(values['status'])
    fixes.append(Fix(**values))
  return fixes


def by_id(fixes: Iterable[Fix]) -> dict[str, Fix]:
  """The fixes keyed by id."""
  return {fix.id: fix for fix in fixes}


# The documents that name ledger ids.

_TICKED_ID = re.compile(r'`([a-z0-9]+(?:-[a-z0-9]+)*)`')
README_SECTION = '## What differs from upstream'
README_SECTION_END = '## Benchmarks'
DIFFERENCES_SECTION = '## Fork fixes'
LEDGER_LINE = re.compile(r'^Ledger (?:entry|entries): (.*)$')


def _section(text: str, start: str, end: Optional[str]) -> list[str]:
  """The lines after the heading starting with ``start`` up to ``end``."""
  lines = text.splitlines()
  begin = next((i for i, line in enumerate(lines)
                if line.startswith(start)), None)
  if begin is None:
    raise ValueError(f'no heading starting with {start!r}')
  stop = len(lines)
  if end is not None:
    stop = next((i for i in range(begin + 1, len(lines))
                 if lines[i].startswith(end)), len(lines))
  return lines[begin + 1:stop]


def _cells(row: str) -> list[str]:
  """The cells of a Markdown table row (escaped pipes kept in their cell)."""
  inner = row.strip()[1:-1] if row.strip().endswith('|') else row.strip()[1:]
  return [c.strip() for c in re.split(r'(?<!\\)\|', inner)]


def readme_rows(text: str) -> list[tuple[str, list[str], str]]:
  """README's "What differs" rows: (first cell, ids of last cell, row).

  The table's last column, ``Ledger``, holds the ids in backticks.
  """
  rows = []
  header_seen = False
  for line in _section(text, README_SECTION, README_SECTION_END):
    if not line.startswith('|'):
      if header_seen and rows:
        break
      continue
    cells = _cells(line)
    if not header_seen:
      header_seen = True
      if cells[-1] != 'Ledger':
        raise ValueError('the "What differs" table\'s last column must be '
                         f'"Ledger", got {cells[-1]!r}')
      continue
    if set(''.join(cells)) <= set('-: '):
      continue
    rows.append((cells[0], _TICKED_ID.findall(cells[-1]), line))
  return rows


def differences_sections(text: str) -> list[tuple[str, list[str]]]:
  """Sections of docs/differences.md's "Fork fixes": (heading, ids).

  Each ``###`` section names its ledger ids in a paragraph of its own,
  ``Ledger entry: `id```` (or ``Ledger entries: `a`, `b```, which may wrap
  over several lines).
  """
  sections: list[tuple[str, list[str]]] = []
  in_ledger_line = False
  for line in _section(text, DIFFERENCES_SECTION, '## '):
    if line.startswith('### '):
      sections.append((line[4:].strip(), []))
      in_ledger_line = False
      continue
    match = LEDGER_LINE.match(line)
    if match and sections:
      in_ledger_line = True
      line = match.group(1)
    elif not line.strip():
      in_ledger_line = False
    if in_ledger_line:
      sections[-1][1].extend(_TICKED_ID.findall(line))
  return sections


def deviation_fixes(data: dict[str, Any]) -> list[tuple[str, str, Any]]:
  """(table, entry id, its ``fix``) for every entry of deviations.toml."""
  out = []
  for table, entries in data.items():
    if not isinstance(entries, list):
      continue
    for entry in entries:
      out.append((table, str(entry.get('id')), entry.get('fix')))
  return out


def repository_problems(repo: pathlib.Path = REPO) -> list[str]:
  """Every disagreement between the ledger and the documents naming it."""
  try:
    fixes = load(repo / 'ledger.toml')
  except LedgerError as e:
    return e.problems
  known = by_id(fixes)
  problems = []

  release = fork_config.upstream_version(repo / 'pyproject.toml')
  for fix in fixes:
    if release not in fix.status:
      problems.append(f'{fix.id}: no status for upstream {release} (the '
                      'release of [tool.optax-fork] in pyproject.toml)')
    if not any(key.startswith('main@') for key in fix.status):
      problems.append(f'{fix.id}: no status for upstream main (main@<commit>)')

  with open(repo / 'deviations.toml', 'rb') as f:
    deviations = tomllib.load(f)
  for table, entry_id, fix in deviation_fixes(deviations):
    ids = fix if isinstance(fix, list) else [fix]
    if fix is None or not ids or not all(isinstance(i, str) for i in ids):
      problems.append(f'deviations.toml [[{table}]] {entry_id}: needs '
                      f'fix = "<ledger id>" (or "{UPSTREAM_FAILS_TOO}")')
      continue
    for i in ids:
      if i not in known and i != UPSTREAM_FAILS_TOO:
        problems.append(f'deviations.toml [[{table}]] {entry_id}: fix {i!r} '
                        'is not in ledger.toml')

  readme = (repo / 'README.md').read_text(encoding='utf-8')
  try:
    rows = readme_rows(readme)
  except ValueError as e:
    problems.append(f'README.md: {e}')
    rows = []
  in_readme: set[str] = set()
  for area, ids, row in rows:
    if not ids:
      problems.append(f'README "What differs" row {area!r}: names no ledger '
                      'id in its Ledger column')
    for i in ids:
      if i not in known:
        problems.append(f'README "What differs" row {area!r}: {i!r} is not '
                        'in ledger.toml')
        continue
      in_readme.add(i)
      fix = known[i]
      if not fix.readme:
        problems.append(f'README "What differs" row {area!r}: {i} has '
                        'readme = false in ledger.toml')
      for key in fix.status:
        if key.startswith('main@') and fix.absorbed_on(key):
          commits = fix.absorbing_commits(key)
          if ('fixed on upstream main' not in row
              or not all(c in row for c in commits)):
            problems.append(
                f'README "What differs" row {area!r}: {i} is absorbed on '
                f'upstream {key} ({", ".join(commits)}); the row must say '
                f'"fixed on upstream main at {", ".join(commits)}"')
  for fix in fixes:
    if fix.readme and fix.id not in in_readme:
      problems.append(f'{fix.id}: readme = true but no row of README\'s '
                      '"What differs" table names it')

  differences = (repo / 'docs' / 'differences.md').read_text(
      encoding='utf-8')
  try:
    sections = differences_sections(differences)
  except ValueError as e:
    problems.append(f'docs/differences.md: {e}')
    sections = []
  for heading, ids in sections:
    if not ids:
      problems.append(f'docs/differences.md section {heading!r}: no '
                      '"Ledger entry: `id`" line')
    for i in ids:
      if i not in known:
        problems.append(f'docs/differences.md section {heading!r}: {i!r} is '
                        'not in ledger.toml')

  for fix in fixes:
    for code in fix.code:
      if not (repo / code).exists():
        problems.append(f'{fix.id}: code {code} does not exist')
    path = repo / fix.reproducer_path
    if not path.is_file():
      problems.append(f'{fix.id}: reproducer {fix.reproducer_path} does not '
                      'exist')
      continue
    test = fix.reproducer.split('::')[-1] if '::' in fix.reproducer else None
    if test and not re.search(rf'^\s*(def|class) {re.escape(test)}\b',
                              path.read_text(encoding='utf-8'), re.M):
      problems.append(f'{fix.id}: reproducer {fix.reproducer}: no {test} in '
                      f'{fix.reproducer_path}')
  return problems + patch_problems(fixes, repo)


# The kinds of fix that upstream is offered as a patch (a port is upstream's
# own code, and needs none).
OFFERED_KINDS = ('fix', 'error', 'deliberate')


def newest_main_status(fix: Fix) -> Optional[str]:
  """The fix's status on the newest upstream main it lists, if any."""
  mains = [k for k in fix.status if k.startswith('main@')]
  return fix.status[mains[-1]] if mains else None


def patch_problems(fixes: list[Fix], repo: pathlib.Path = REPO
                   ) -> list[str]:
  """Disagreements between the ledger and upstream_patches/.

  Every fix that the newest upstream main of the ledger needs, of a kind
  offered upstream, has a patch (``upstream_patches/<id>.toml``) or says
  why not (``not_offered``), not both; every patch names a ledger fix, places
  that fix's reproducer and lists its upstream references; ``patch_stale``
  names upstream labels.

  Args:
    fixes: the ledger.
    repo: the repository.

  Returns:
    The problems.
  """
  # pylint: disable-next=import-outside-toplevel
  from tools import upstream_patch
  try:
    patches = upstream_patch.load_all(repo / 'upstream_patches')
  except upstream_patch.PatchError as e:
    return [f'upstream_patches: {e}']
  problems = []
  known = by_id(fixes)
  for fix in fixes:
    patch = patches.get(fix.id)
    needed = newest_main_status(fix) == 'needed'
    if needed and fix.kind in OFFERED_KINDS:
      if patch is None and not fix.not_offered.strip():
        problems.append(f'{fix.id}: upstream main needs it and it has no '
                        f'upstream patch (upstream_patches/{fix.id}.toml) '
                        'and no not_offered reason')
    if patch is not None and fix.not_offered.strip():
      problems.append(f'{fix.id}: has an upstream patch and a not_offered '
                      'reason: keep one')
    for key in fix.patch_stale:
      if not _STATUS_KEY.match(key):
        problems.append(f'{fix.id}: patch_stale must list labels like '
                        f'"main@<commit>", got {key!r}')
    if patch is None:
      continue
    if patch.test is None:
      problems.append(f'{fix.id}: its patch places no reproducer ([test])')
    elif patch.test.source != fix.reproducer_path:
      problems.append(f'{fix.id}: its patch places {patch.test.source}, '
                      f'the ledger\'s reproducer is {fix.reproducer_path}')
    listed = {r.ref for r in patch.references}
    missing = [r for r in fix.upstream_refs if r not in listed]
    if missing:
      problems.append(f'{fix.id}: its patch\'s references lack '
                      f'{", ".join(missing)} (the ledger\'s upstream_refs)')
  for fix_id in patches:
    if fix_id not in known:
      problems.append(f'upstream_patches/{fix_id}.toml: {fix_id!r} is not in '
                      'ledger.toml')
  return problems


def missing_commits(fixes: Iterable[Fix], repo: pathlib.Path = REPO
                    ) -> list[str]:
  """The fixes' commits that the repository's git history does not have.

  Needs the full history (a shallow clone lacks older commits).
  """
  missing = []
  for fix in fixes:
    for commit in fix.commits:
      found = subprocess.run(
          ['git', '-C', str(repo), 'cat-file', '-e', f'{commit}^{{commit}}'],
          capture_output=True, check=False)
      if found.returncode:
        missing.append(f'{fix.id}: commit {commit} is not in the history')
  return missing


def main(argv: Optional[list[str]] = None) -> int:
  """Command line entry point."""
  parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
  parser.add_argument('--list', action='store_true',
                      help='print each fix with its statuses')
  parser.add_argument('--commits', action='store_true',
                      help='also check that every commit named is in the '
                      'git history (needs a full clone)')
  parser.add_argument('--repo', type=pathlib.Path, default=REPO)
  args = parser.parse_args(argv)
  if args.list:
    for fix in load(args.repo / 'ledger.toml'):
      statuses = '; '.join(f'{k}: {v}' for k, v in fix.status.items())
      print(f'{fix.id} [{fix.kind}] {statuses}')
    return 0
  problems = repository_problems(args.repo)
  if args.commits and not problems:
    problems = missing_commits(load(args.repo / 'ledger.toml'), args.repo)
  for problem in problems:
    print(problem)
  print(f'ledger: {len(problems)} problems')
  return 1 if problems else 0


if __name__ == '__main__':
  sys.exit(main())
