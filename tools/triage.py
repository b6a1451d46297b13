#!/usr/bin/env python3
# Copyright 2026 The Optax fork authors. All Rights Reserved.
# Licensed under the Apache License, Version 2.0.
"""Checks upstream_triage.toml: upstream's bug reports against the fork.

upstream_triage.toml lists upstream Optax's bug reports and bug-fix pull
requests, and the upstream bugs found here that upstream has no report of
(kind ``found-here``, ref ``found:<ledger id>``, with the searches of
upstream's threads that found none), one ``[[entry]]`` each (the schema is
at the top of the file): what it claims, a short ``repro`` snippet that
asserts the right behaviour (it exits 0 where the behaviour is right and
raises where the bug is), whether the bug reproduced on each upstream
checked, and the verdict (``fix``, ``already-right``, ``absorbed``,
``not-a-bug`` or ``out-of-scope``; a found-here entry is a ``fix``) with the
fix ledger's id of the difference where there is one.

This tool validates the file, runs every snippet in a fresh interpreter on
each side (the upstream release, optionally an upstream source tree, and the
fork), and prints one row per entry. It exits with 1 when:

* ``reproduced`` disagrees with what a snippet did on an upstream side;
* a snippet's outcome differs between an upstream side and the fork and the
  entry names no ledger id that ledger.toml has (an unlisted difference:
  every behavioural difference needs a ledger entry);
* a ``fix`` or ``already-right`` entry names a ledger id that ledger.toml
  lacks, unless the entry says ``pending = true``;
* a ``fix`` or ``already-right`` snippet fails on the fork, unless the entry
  says ``pending = true`` (the fix has not landed yet; reported as pending,
  and a failure with ``--strict``);
* a snippet times out or cannot be run;
* a ledger.toml ``[[fix]]`` of kind ``fix`` is named by no entry (each fix
  of an upstream bug gets one: the report's, or a ``found-here`` one), unless
  ``--only`` selects entries.

It exits with 2 when the file does not follow the schema or a side cannot be
used (no optax, or the wrong one imported).

Sides: ``--upstream-python PATH`` runs an interpreter with the upstream
release installed (labelled with its optax version, e.g. ``0.2.8``);
``--upstream-tree PATH`` runs the fork's interpreter with
``PYTHONPATH=PATH`` (labelled ``main@<commit>`` from the tree's git HEAD, or
``--tree-label``); the fork is ``--fork-python`` (default: this
interpreter), with the caller's PYTHONPATH. Every snippet runs from a
temporary folder outside the repository, so that the repository's optax
folder is not imported by accident.

Usage::

  python -m tools.triage [--triage upstream_triage.toml]
      [--ledger ledger.toml] [--upstream-python PATH]
      [--upstream-tree PATH [--tree-label main@COMMIT]]
      [--fork-python PATH] [--only REF ...] [--jobs N] [--timeout S]
      [--strict] [--json] [--validate-only]
"""

from __future__ import annotations

import argparse
import concurrent.futures
import dataclasses
import datetime
import json
import os
import pathlib
import re
import shutil
import subprocess
import sys
import tempfile
import tomllib
from typing import Any, Iterable, Mapping, Optional, Sequence

REPO = pathlib.Path(__file__).resolve().parent.parent
TRIAGE = REPO / 'upstream_triage.toml'
LEDGER = REPO / 'ledger.toml'

PULL, ISSUE, FOUND_HERE = 'pull', 'issue', 'found-here'
KINDS = (PULL, ISSUE, FOUND_HERE)
FIX, ALREADY_RIGHT, ABSORBED = 'fix', 'already-right', 'absorbed'
NOT_A_BUG, OUT_OF_SCOPE = 'not-a-bug', 'out-of-scope'
VERDICTS = (FIX, ALREADY_RIGHT, ABSORBED, NOT_A_BUG, OUT_OF_SCOPE)
# Verdicts whose entry names the fix ledger's id of the difference.
LEDGER_VERDICTS = (FIX, ALREADY_RIGHT)
# Verdicts that may leave out the snippet (then `reason` says why).
NO_REPRO_VERDICTS = (ABSORBED, NOT_A_BUG, OUT_OF_SCOPE)
# Verdicts of a bug found here (it names the ledger id of its fix).
FOUND_HERE_VERDICTS = (FIX,)
URL_PREFIX = 'https://github.com/google-deepmind/optax/'
FOUND_PREFIX = 'found:'

# Field name -> (types, required). Requirements that depend on the verdict
# are checked in entry_problems.
FIELDS: dict[str, tuple[tuple[type, ...], bool]] = {
    'ref': ((str,), True),
    'kind': ((str,), True),
    'url': ((str,), False),
    'title': ((str,), True),
    'claim': ((str,), True),
    'since': ((datetime.date, str), True),
    'verdict': ((str,), True),
    'repro': ((str,), False),
    'reproduced': ((dict,), False),
    'ledger': ((str,), False),
    'pending': ((bool,), False),
    'commit': ((str,), False),
    'reason': ((str,), False),
    'searched': ((str,), False),
}

_REF = re.compile(r'^#[0-9]+$')
_ID = re.compile(r'^[a-z0-9]+(-[a-z0-9]+)*$')
_FOUND_REF = re.compile(r'^found:[a-z0-9]+(-[a-z0-9]+)*$')
_COMMIT = re.compile(r'^[0-9a-f]{7,40}$')
_DATE = re.compile(r'^[0-9]{4}-[0-9]{2}-[0-9]{2}$')
_LABEL = re.compile(r'^([0-9]+(\.[0-9]+)*|main@[0-9a-f]{7,40})$')

PASSED, FAILED, TIMEOUT = 'passed', 'failed', 'timeout'


class TriageError(ValueError):
  """A triage file that does not follow the schema; ``problems`` says why."""

  def __init__(self, path: pathlib.Path, problems: list[str]):
    self.problems = problems
    super().__init__(f'{path}: ' + '; '.join(problems))


@dataclasses.dataclass(frozen=True)
class Entry:
  """One ``[[entry]]`` of upstream_triage.toml."""

  ref: str
  kind: str
  url: Optional[str]
  title: str
  claim: str
  since: str
  verdict: str
  repro: Optional[str] = None
  reproduced: Mapping[str, bool] = dataclasses.field(default_factory=dict)
  ledger: Optional[str] = None
  pending: bool = False
  commit: Optional[str] = None
  reason: Optional[str] = None
  searched: Optional[str] = None

  @property
  def number(self) -> Optional[int]:
    """The upstream number, ``1725`` for ``#1725`` (None: found here)."""
    return int(self.ref[1:]) if self.ref.startswith('#') else None

  @property
  def slug(self) -> str:
    """``1725`` for ``#1725``, the ledger id for ``found:<ledger id>``."""
    return self.ref[1:] if self.ref.startswith('#') else (
        self.ref[len(FOUND_PREFIX):])


@dataclasses.dataclass(frozen=True)
class Outcome:
  """What a snippet did on one side.

  Attributes:
    status: ``passed`` (exit status 0), ``failed`` (it raised) or
      ``timeout``.
    detail: the last line of its error output (the exception raised).
  """

  status: str
  detail: str = ''

  @property
  def failed(self) -> bool:
    """Whether the snippet raised (the bug is there)."""
    return self.status == FAILED


@dataclasses.dataclass
class Row:
  """One entry's line of the report."""

  entry: Entry
  upstream: dict[str, Outcome]
  fork: Optional[Outcome]
  problems: list[str]
  notes: list[str]

  @property
  def pending(self) -> bool:
    """Whether the entry waits for a fix that has not landed in the fork."""
    return (self.entry.pending and self.fork is not None
            and self.fork.failed)

  def as_json(self) -> dict[str, Any]:
    """The row as plain JSON types."""
    e = self.entry
    return {
        'ref': e.ref, 'kind': e.kind, 'url': e.url, 'title': e.title,
        'searched': e.searched,
        'verdict': e.verdict, 'ledger': e.ledger, 'pending': e.pending,
        'commit': e.commit, 'reproduced': dict(e.reproduced),
        'upstream': {k: dataclasses.asdict(v)
                     for k, v in self.upstream.items()},
        'fork': dataclasses.asdict(self.fork) if self.fork else None,
        'ok': not self.problems, 'problems': self.problems,
        'notes': self.notes}


# Loading and validation.


def _date_text(value: Any) -> str:
  """``since`` as ``YYYY-MM-DD`` (a TOML date or a string)."""
  if isinstance(value, datetime.date):
    return value.isoformat()
  return str(value)


def entry_problems(table: Any, where: str) -> list[str]:
  """What is wrong with one raw ``[[entry]]`` table (empty if nothing).

  Args:
    table: the parsed table.
    where: how to name it when it has no ref.

  Returns:
    One message per problem.
  """
  if not isinstance(table, dict):
    return [f'{where}: not a table']
  name = table.get('ref') if isinstance(table.get('ref'), str) else where
  problems = []
  for field, (types, required) in FIELDS.items():
    if field not in table:
      if required:
        problems.append(f'{name}: missing field {field!r}')
      continue
    if not isinstance(table[field], types):
      problems.append(f'{name}: {field} must be a '
                      f'{" or ".join(t.__name__ for t in types)}, got '
                      f'{type(table[field]).__name__}')
    elif isinstance(table[field], str) and not table[field].strip():
      problems.append(f'{name}: {field} is empty')
  for field in sorted(set(table) - set(FIELDS)):
    problems.append(f'{name}: unknown field {field!r} (fields: '
                    f'{", ".join(FIELDS)})')
  if problems:
    return problems
  return _value_problems(table, name)


def _value_problems(table: dict[str, Any], name: str) -> list[str]:
  """The problems of a table whose fields have the right types."""
  problems = []
  kind, verdict = table['kind'], table['verdict']
  if kind not in KINDS:
    problems.append(f'{name}: kind must be one of {KINDS}, got {kind!r}')
  elif kind == FOUND_HERE:
    problems += _found_here_problems(table, name)
  else:
    problems += _report_problems(table, name)
  if not _DATE.match(_date_text(table['since'])):
    problems.append(f'{name}: since must be a date (YYYY-MM-DD), got '
                    f'{table["since"]!r}')
  if verdict not in VERDICTS:
    problems.append(f'{name}: verdict must be one of {VERDICTS}, got '
                    f'{verdict!r}')
    return problems
  reproduced = table.get('reproduced', {})
  for label, value in reproduced.items():
    if not _LABEL.match(label):
      problems.append(f'{name}: reproduced keys must be a release ("0.2.8") '
                      f'or "main@<commit>", got {label!r}')
    if not isinstance(value, bool):
      problems.append(f'{name}: reproduced[{label!r}] must be true or false,'
                      f' got {value!r}')
  if 'repro' in table:
    if not reproduced:
      problems.append(f'{name}: a repro needs a reproduced table (true '
                      'where the snippet fails)')
  elif verdict not in NO_REPRO_VERDICTS:
    problems.append(f'{name}: a {verdict} entry needs a repro (only '
                    f'{", ".join(NO_REPRO_VERDICTS)} may leave it out)')
  elif 'reason' not in table:
    problems.append(f'{name}: without a repro, reason must say why none '
                    'makes sense')
  problems += _verdict_problems(table, name, reproduced)
  return problems


def _report_problems(table: dict[str, Any], name: str) -> list[str]:
  """The ref, url and searched fields of an upstream issue or pull request."""
  problems = []
  ref, kind = table['ref'], table['kind']
  if not _REF.match(ref):
    problems.append(f'{name}: ref must be like "#1725" for a {kind}, got '
                    f'{ref!r}')
  elif 'url' not in table:
    problems.append(f'{name}: missing field \'url\' (a {kind} links its '
                    'thread)')
  else:
    url = f'{URL_PREFIX}{"pull" if kind == PULL else "issues"}/{ref[1:]}'
    if table['url'] != url:
      problems.append(f'{name}: url must be {url!r} for a {kind}, got '
                      f'{table["url"]!r}')
  if 'searched' in table:
    problems.append(f'{name}: searched belongs to found-here entries (an '
                    f'upstream {kind} is its own reference)')
  return problems


def _found_here_problems(table: dict[str, Any], name: str) -> list[str]:
  """The fields of a bug found here that upstream has no report of."""
  problems = []
  ref, verdict = table['ref'], table['verdict']
  if not _FOUND_REF.match(ref):
    problems.append(f'{name}: ref must be like "found:<ledger id>" for a '
                    f'found-here entry, got {ref!r}')
  elif isinstance(table.get('ledger'), str) and (
      ref != FOUND_PREFIX + table['ledger']):
    problems.append(f'{name}: ref must be {FOUND_PREFIX + table["ledger"]!r}'
                    ' (found: and the ledger id)')
  if 'url' in table:
    problems.append(f'{name}: a found-here entry has no upstream thread, so '
                    'no url (searched says which searches found none)')
  if 'searched' not in table:
    problems.append(f'{name}: a found-here entry needs searched: the '
                    "searches of upstream's issue and pull-request threads "
                    'that found no report')
  if verdict not in FOUND_HERE_VERDICTS:
    problems.append(f'{name}: a found-here entry is an upstream bug found '
                    f'here: verdict must be one of {FOUND_HERE_VERDICTS}, '
                    f'got {verdict!r}')
  return problems


def _verdict_problems(table: dict[str, Any], name: str,
                      reproduced: Mapping[str, Any]) -> list[str]:
  """The fields each verdict requires or forbids."""
  problems = []
  verdict = table['verdict']
  if verdict in LEDGER_VERDICTS:
    if 'ledger' not in table:
      problems.append(f'{name}: a {verdict} entry needs the ledger id of '
                      'its difference (ledger = "...")')
    elif not _ID.match(table['ledger']):
      problems.append(f'{name}: ledger must be a kebab-case id, got '
                      f'{table["ledger"]!r}')
    if reproduced and not any(v is True for v in reproduced.values()):
      problems.append(f'{name}: a {verdict} entry must have reproduced the '
                      'bug on some upstream (a reproduced value true)')
  else:
    for field in ('ledger', 'pending'):
      if field in table:
        problems.append(f'{name}: {field} belongs to fix and already-right '
                        f'entries, not {verdict}')
  if verdict == ABSORBED:
    if 'commit' not in table:
      problems.append(f'{name}: an absorbed entry needs the upstream commit '
                      'that has the fix (commit = "...")')
    elif not _COMMIT.match(table['commit']):
      problems.append(f'{name}: commit must be a hash, got '
                      f'{table["commit"]!r}')
    for label, value in reproduced.items():
      if label.startswith('main@') and value is True:
        problems.append(f'{name}: absorbed, yet reproduced on {label}')
  elif 'commit' in table:
    problems.append(f'{name}: commit belongs to absorbed entries')
  if verdict in (NOT_A_BUG, OUT_OF_SCOPE) and 'reason' not in table:
    problems.append(f'{name}: a {verdict} entry needs a reason')
  if verdict == NOT_A_BUG and any(v is True for v in reproduced.values()):
    problems.append(f'{name}: not-a-bug, yet its snippet (which asserts the '
                    'right behaviour) is said to fail upstream')
  return problems


def validate(data: Mapping[str, Any]) -> list[str]:
  """The problems of a parsed triage file (a dict with an ``entry`` list)."""
  problems = [f'unknown top-level table {k!r}'
              for k in sorted(set(data) - {'entry'})]
  tables = data.get('entry')
  if not isinstance(tables, list) or not tables:
    return problems + ['no [[entry]] tables']
  seen: dict[str, int] = {}
  for i, table in enumerate(tables):
    problems += entry_problems(table, f'[[entry]] #{i + 1}')
    if isinstance(table, dict) and isinstance(table.get('ref'), str):
      if table['ref'] in seen:
        problems.append(f'{table["ref"]}: listed twice ([[entry]] '
                        f'#{seen[table["ref"]] + 1} and #{i + 1})')
      seen.setdefault(table['ref'], i)
  return problems


def entries_from(data: Mapping[str, Any]) -> list[Entry]:
  """The entries of a parsed triage file that :func:`validate` accepts."""
  entries = []
  for table in data['entry']:
    fields = dict(table)
    fields['since'] = _date_text(fields['since'])
    fields['reproduced'] = dict(fields.get('reproduced', {}))
    fields.setdefault('url', None)
    for field in ('title', 'claim', 'reason'):
      if field in fields:
        fields[field] = ' '.join(fields[field].split())
    entries.append(Entry(**fields))
  return entries


def load(path: pathlib.Path = TRIAGE) -> list[Entry]:
  """The validated entries of a triage file, in file order.

  Args:
    path: an upstream_triage.toml.

  Returns:
    One :class:`Entry` per ``[[entry]]`` table.

  Raises:
    TriageError: if the file does not follow the schema.
  """
  path = pathlib.Path(path)
  with open(path, 'rb') as f:
    try:
      data = tomllib.load(f)
    except tomllib.TOMLDecodeError as exc:
      raise TriageError(path, [f'not valid TOML: {exc}']) from exc
  problems = validate(data)
  if problems:
    raise TriageError(path, problems)
  return entries_from(data)


def ledger_ids(path: pathlib.Path = LEDGER) -> set[str]:
  """The ids of a fix ledger's ``[[fix]]`` tables (no other validation)."""
  with open(path, 'rb') as f:
    tables = tomllib.load(f).get('fix', [])
  return {t['id'] for t in tables
          if isinstance(t, dict) and isinstance(t.get('id'), str)}


def ledger_fix_ids(path: pathlib.Path = LEDGER) -> set[str]:
  """The ids of a fix ledger's ``[[fix]]`` tables of kind ``fix``."""
  with open(path, 'rb') as f:
    tables = tomllib.load(f).get('fix', [])
  return {t['id'] for t in tables
          if isinstance(t, dict) and isinstance(t.get('id'), str)
          and t.get('kind') == FIX}


def unnamed_fixes(entries: Iterable[Entry],
                  fix_ids: Iterable[str]) -> list[str]:
  """The ledger's fixes of upstream bugs that no triage entry names.

  Args:
    entries: the triage entries.
    fix_ids: the ids of the ledger's ``[[fix]]`` tables of kind ``fix``.

  Returns:
    The ids no entry's ``ledger`` names, sorted.
  """
  named = {e.ledger for e in entries}
  return sorted(set(fix_ids) - named)


def same_label(a: str, b: str) -> bool:
  """Whether two upstream labels name one upstream (short/long hashes)."""
  if a.startswith('main@') and b.startswith('main@'):
    ca, cb = a[len('main@'):], b[len('main@'):]
    return bool(ca) and bool(cb) and (ca.startswith(cb) or cb.startswith(ca))
  return a == b


def expected_on(entry: Entry, label: str) -> Optional[bool]:
  """``entry.reproduced`` for the upstream ``label`` (None: not recorded)."""
  for key, value in entry.reproduced.items():
    if same_label(key, label):
      return value
  return None


# Judging.


def judge(entry: Entry, upstream: Mapping[str, Outcome],
          fork: Optional[Outcome], known_ids: Iterable[str],
          strict: bool = False) -> Row:
  """Compares what an entry's snippet did with what the entry says.

  Args:
    entry: the triage entry.
    upstream: what its snippet did on each upstream side, by label (empty
      when no upstream was run, or the entry has no snippet).
    fork: what it did on the fork (None: not run).
    known_ids: the ids of ledger.toml.
    strict: whether a pending entry whose snippet fails on the fork is a
      problem.

  Returns:
    The report row; ``problems`` lists every disagreement.
  """
  known = set(known_ids)
  problems: list[str] = []
  notes: list[str] = []
  wants_ledger = entry.verdict in LEDGER_VERDICTS
  listed = wants_ledger and entry.ledger in known
  if wants_ledger and not listed:
    if entry.pending:
      notes.append(f'ledger id {entry.ledger!r} is not in ledger.toml yet '
                   '(pending)')
    else:
      problems.append(f'ledger id {entry.ledger!r} is not in ledger.toml')
  elif wants_ledger and entry.pending:
    notes.append(f'ledger.toml has {entry.ledger!r}: once the fork passes, '
                 'drop pending = true')
  runs = dict(upstream)
  if fork is not None:
    runs['fork'] = fork
  for label, outcome in runs.items():
    if outcome.status not in (PASSED, FAILED):
      problems.append(f'the snippet did not finish on {label}: '
                      f'{outcome.status} {_one_line(outcome.detail)}'.rstrip())
  for label, outcome in upstream.items():
    if outcome.status not in (PASSED, FAILED):
      continue
    expected = expected_on(entry, label)
    if expected is None:
      problems.append(f'reproduced has no value for {label} (the snippet '
                      f'{outcome.status} there)')
    elif expected != outcome.failed:
      said = 'fails' if expected else 'passes'
      problems.append(
          f'reproduced says the snippet {said} on {label}, it '
          f'{outcome.status}: {_one_line(outcome.detail) or "no error"}')
  if fork is None or fork.status not in (PASSED, FAILED):
    return Row(entry, dict(upstream), fork, problems, notes)
  if fork.failed and wants_ledger:
    message = (f'the snippet fails on the fork ({entry.verdict}): '
               f'{_one_line(fork.detail)}')
    if entry.pending and not strict:
      notes.append('pending: ' + message)
    else:
      problems.append(message)
  for label, outcome in upstream.items():
    if outcome.status not in (PASSED, FAILED):
      continue
    if outcome.failed == fork.failed:
      continue
    where = (f'{"fails" if outcome.failed else "passes"} on {label}, '
             f'{"fails" if fork.failed else "passes"} on the fork')
    if listed:
      notes.append(f'{where}: ledger {entry.ledger}')
    else:
      problems.append(
          f'UNLISTED DIFFERENCE: the snippet {where}, and the entry names no '
          'ledger id that ledger.toml has (verdict fix or already-right with '
          'ledger = "<id>", and a [[fix]] in ledger.toml)')
  return Row(entry, dict(upstream), fork, problems, notes)


def _one_line(text: str, width: int = 150) -> str:
  text = ' '.join(text.split())
  return text if len(text) <= width else text[:width - 3] + '...'


def counts(entries: Iterable[Entry]) -> dict[str, int]:
  """The number of entries of each verdict, in :data:`VERDICTS` order."""
  found = {v: 0 for v in VERDICTS}
  for entry in entries:
    found[entry.verdict] += 1
  return found


# Running snippets.


@dataclasses.dataclass(frozen=True)
class Side:
  """An interpreter to run the snippets with.

  Attributes:
    label: ``0.2.8``, ``main@<commit>`` or ``fork``.
    python: the interpreter.
    env: its environment.
    inside: optax must be imported from under this folder, if given.
    outside: ... and not from under any of these.
  """

  label: str
  python: str
  env: Mapping[str, str]
  inside: Optional[pathlib.Path] = None
  outside: tuple[pathlib.Path, ...] = ()


_PROBE = 'import optax; print(optax.__file__); print(optax.__version__)'


def probe(side: Side, cwd: pathlib.Path, timeout: float) -> tuple[str, str]:
  """Checks which optax a side imports.

  Args:
    side: the side.
    cwd: the folder to run in.
    timeout: seconds.

  Returns:
    ``(optax.__file__, optax.__version__)``.

  Raises:
    SystemExit: when optax cannot be imported or is the wrong one.
  """
  try:
    proc = subprocess.run([side.python, '-c', _PROBE], cwd=cwd,
                          env=dict(side.env), capture_output=True,
                          text=True, timeout=timeout, check=False)
  except (OSError, subprocess.TimeoutExpired) as exc:
    raise SystemExit(f'triage: cannot run {side.python} for {side.label}: '
                     f'{exc}') from exc
  lines = proc.stdout.split()
  if proc.returncode != 0 or len(lines) < 2:
    raise SystemExit(f'triage: {side.python} cannot import optax for '
                     f'{side.label}:\n{proc.stderr[-2000:]}')
  where = pathlib.Path(lines[0]).resolve()
  if side.inside is not None and not where.is_relative_to(
      side.inside.resolve()):
    raise SystemExit(f'triage: {side.label} imported optax from {where}, '
                     f'not from {side.inside}')
  for folder in side.outside:
    if where.is_relative_to(folder.resolve()):
      raise SystemExit(f'triage: {side.label} imported optax from {where}, '
                       f'inside {folder}')
  return str(where), lines[1]


def run_snippet(side: Side, script: pathlib.Path, timeout: float) -> Outcome:
  """Runs one snippet file with a side's interpreter, from its folder.

  Args:
    side: the side.
    script: the snippet, written to a file outside the repository.
    timeout: seconds before the process is killed.

  Returns:
    The outcome; ``detail`` is the last line of the error output.
  """
  try:
    proc = subprocess.run([side.python, str(script)], cwd=script.parent,
                          env=dict(side.env), capture_output=True,
                          text=True, timeout=timeout, check=False)
  except subprocess.TimeoutExpired:
    return Outcome(TIMEOUT, f'after {timeout:g} s')
  if proc.returncode == 0:
    return Outcome(PASSED)
  lines = [l for l in (proc.stderr or proc.stdout).splitlines() if l.strip()]
  detail = lines[-1] if lines else f'exit status {proc.returncode}'
  return Outcome(FAILED, detail.strip())


def run_all(entries: Sequence[Entry], sides: Sequence[Side],
            work: pathlib.Path, timeout: float, jobs: int
            ) -> dict[tuple[str, str], Outcome]:
  """Runs every entry's snippet on every side, ``jobs`` at a time.

  Args:
    entries: the entries (those without a snippet are skipped).
    sides: the sides.
    work: a folder outside the repository for the snippet files.
    timeout: seconds per snippet and side.
    jobs: processes at once.

  Returns:
    The outcomes by ``(ref, side label)``.
  """
  tasks = []
  for entry in entries:
    if entry.repro is None:
      continue
    script = work / f'snippet_{entry.slug.replace("-", "_")}.py'
    script.write_text(entry.repro, encoding='utf-8')
    tasks += [(entry.ref, side, script) for side in sides]
  results: dict[tuple[str, str], Outcome] = {}
  with concurrent.futures.ThreadPoolExecutor(max(1, jobs)) as pool:
    futures = {pool.submit(run_snippet, side, script, timeout):
               (ref, side.label) for ref, side, script in tasks}
    for future in concurrent.futures.as_completed(futures):
      results[futures[future]] = future.result()
  return results


def _git_label(tree: pathlib.Path) -> Optional[str]:
  """``main@<commit>`` of a git checkout's HEAD (None if not one)."""
  proc = subprocess.run(
      ['git', '-C', str(tree), 'rev-parse', '--show-toplevel', '--short=8',
       'HEAD'], capture_output=True, text=True, check=False)
  parts = proc.stdout.split()
  if (proc.returncode != 0 or len(parts) != 2
      or pathlib.Path(parts[0]).resolve() != tree.resolve()):
    return None
  return f'main@{parts[1]}'


def make_sides(args: argparse.Namespace, work: pathlib.Path
               ) -> list[Side]:
  """The sides the options ask for, upstream ones first, the fork last."""
  base = {k: v for k, v in os.environ.items() if k != 'PYTHONPATH'}
  base.setdefault('JAX_PLATFORMS', 'cpu')
  sides = []
  trees: tuple[pathlib.Path, ...] = ()
  if args.upstream_python:
    side = Side('upstream', args.upstream_python, base, outside=(REPO,))
    _, version = probe(side, work, args.timeout)
    sides.append(dataclasses.replace(
        side, label=args.upstream_label or version))
  if args.upstream_tree:
    tree = pathlib.Path(args.upstream_tree).resolve()
    if not (tree / 'optax' / '__init__.py').is_file():
      raise SystemExit(f'triage: {tree} has no optax/__init__.py')
    if tree.is_relative_to(REPO) or REPO.is_relative_to(tree):
      raise SystemExit(f'triage: the tree {tree} and the fork {REPO} must '
                       'not contain each other')
    label = args.tree_label or _git_label(tree)
    if label is None:
      raise SystemExit(f'triage: {tree} is not a git checkout: name its '
                       'commit with --tree-label main@COMMIT')
    if re.fullmatch(r'[0-9a-f]{7,40}', label):
      label = f'main@{label}'
    side = Side(label, args.fork_python, {**base, 'PYTHONPATH': str(tree)},
                inside=tree, outside=(REPO,))
    probe(side, work, args.timeout)
    sides.append(side)
    trees = (tree,)
  fork_env = dict(base)
  if os.environ.get('PYTHONPATH'):
    fork_env['PYTHONPATH'] = os.environ['PYTHONPATH']
  fork = Side('fork', args.fork_python, fork_env, outside=trees)
  probe(fork, work, args.timeout)
  sides.append(fork)
  labels = [s.label for s in sides]
  if len(set(labels)) != len(labels):
    raise SystemExit(f'triage: two sides share a label: {labels}')
  return sides


# The report.


def _cell(outcome: Optional[Outcome], fork: bool = False) -> str:
  if outcome is None:
    return '-'
  if outcome.status == TIMEOUT:
    return 'timeout'
  if fork:
    return 'FAIL' if outcome.failed else 'pass'
  return 'bug' if outcome.failed else 'ok'


def table(rows: Sequence[Row], labels: Sequence[str]) -> str:
  """The report as a plain-text table, problems and notes below it.

  Upstream columns say ``bug`` where the snippet failed (the bug is there)
  and ``ok`` where it passed; the fork column ``pass`` or ``FAIL``.

  Args:
    rows: the judged entries.
    labels: the upstream sides' labels, in column order.

  Returns:
    The text.
  """
  head = ('ref', 'verdict', *labels, 'fork', 'ledger / commit')
  lines = []
  for row in rows:
    e = row.entry
    target = e.ledger or e.commit or '-'
    if row.pending:
      target += ' (pending)'
    if row.problems:
      target += '  <-- FAIL'
    lines.append((e.ref, e.verdict,
                  *(_cell(row.upstream.get(l)) for l in labels),
                  _cell(row.fork, fork=True), target))
  widths = [max(len(r[i]) for r in [head, *lines])
            for i in range(len(head) - 1)]
  out = ['  '.join(c.ljust(w) for c, w in zip(r, widths)) + '  ' + r[-1]
         for r in [head, *lines]]
  for row in rows:
    out += [f'FAIL {row.entry.ref}: {p}' for p in row.problems]
    out += [f'note {row.entry.ref}: {n}' for n in row.notes]
  return '\n'.join(out)


def summary(rows: Sequence[Row]) -> str:
  """One line: the counts by verdict, pending fixes and problems."""
  found = counts(r.entry for r in rows)
  parts = ', '.join(f'{v} {n}' for v, n in found.items())
  pending = sum(r.pending for r in rows)
  bad = sum(bool(r.problems) for r in rows)
  return (f'triage: {len(rows)} entries ({parts}); {pending} pending on the '
          f'fork; {bad} with problems')


def _select(entries: Sequence[Entry], only: Sequence[str]) -> list[Entry]:
  """The entries named by ``--only``.

  Args:
    entries: the entries.
    only: refs: ``1725`` or ``#1725``; ``found:ID`` or the ledger id ``ID``.

  Returns:
    The entries named, in file order (all of them if ``only`` is empty).
  """
  if not only:
    return list(entries)
  wanted = set()
  for ref in only:
    if ref.startswith(('#', FOUND_PREFIX)):
      wanted.add(ref)
    elif ref.isdigit():
      wanted.add(f'#{ref}')
    else:
      wanted.add(FOUND_PREFIX + ref)
  unknown = wanted - {e.ref for e in entries}
  if unknown:
    raise SystemExit(f'triage: no entry {sorted(unknown)}')
  return [e for e in entries if e.ref in wanted]


def make_parser() -> argparse.ArgumentParser:
  """The command line."""
  parser = argparse.ArgumentParser(
      description=__doc__.splitlines()[0],
      formatter_class=argparse.RawDescriptionHelpFormatter)
  parser.add_argument('--triage', default=str(TRIAGE))
  parser.add_argument('--ledger', default=str(LEDGER))
  parser.add_argument('--upstream-python', metavar='PATH', default=None,
                      help='an interpreter with the upstream release')
  parser.add_argument('--upstream-label', default=None,
                      help='the label of --upstream-python (default: its '
                      'optax version)')
  parser.add_argument('--upstream-tree', metavar='PATH', default=None,
                      help='an upstream source tree, run with --fork-python')
  parser.add_argument('--tree-label', default=None,
                      help='the label of --upstream-tree: main@COMMIT '
                      '(default: from its git HEAD)')
  parser.add_argument('--fork-python', default=sys.executable,
                      help='the interpreter with the fork installed')
  parser.add_argument('--only', action='append', default=[], metavar='REF',
                      help='check only this entry: #N, N, found:ID or ID '
                      '(repeatable; the ledger\'s fixes are then not '
                      'checked for an entry)')
  parser.add_argument('--jobs', type=int, default=2,
                      help='snippets run at once (default: 2)')
  parser.add_argument('--timeout', type=float, default=300.0,
                      help='seconds per snippet and side (default: 300)')
  parser.add_argument('--strict', action='store_true',
                      help='a pending fix whose snippet fails on the fork '
                      'is a failure')
  parser.add_argument('--json', action='store_true',
                      help='print the report as JSON')
  parser.add_argument('--validate-only', action='store_true',
                      help='check the file and the ledger ids, run nothing')
  return parser


def main(argv: Optional[Sequence[str]] = None) -> int:
  """Runs the check; returns the exit status."""
  args = make_parser().parse_args(argv)
  try:
    entries = _select(load(pathlib.Path(args.triage)), args.only)
  except TriageError as exc:
    print('\n'.join(f'triage: {p}' for p in exc.problems), file=sys.stderr)
    return 2
  known = ledger_ids(pathlib.Path(args.ledger))
  if args.validate_only:
    rows = [judge(e, {}, None, known, args.strict) for e in entries]
    sides: list[Side] = []
  else:
    work = pathlib.Path(tempfile.mkdtemp(prefix='optax-triage.')).resolve()
    try:
      if work.is_relative_to(REPO):
        raise SystemExit(f'triage: the temporary folder {work} is inside '
                         f'the repository {REPO}: set TMPDIR elsewhere')
      sides = make_sides(args, work)
      results = run_all(entries, sides, work, args.timeout, args.jobs)
    finally:
      shutil.rmtree(work, ignore_errors=True)
    rows = []
    for e in entries:
      up = {s.label: results[(e.ref, s.label)] for s in sides[:-1]
            if (e.ref, s.label) in results}
      rows.append(judge(e, up, results.get((e.ref, 'fork')), known,
                        args.strict))
  labels = [s.label for s in sides[:-1]]
  unnamed = [] if args.only else unnamed_fixes(
      entries, ledger_fix_ids(pathlib.Path(args.ledger)))
  ok = all(not r.problems for r in rows) and not unnamed
  if args.json:
    print(json.dumps({
        'sides': [{'label': s.label, 'python': s.python} for s in sides],
        'counts': counts(r.entry for r in rows), 'ok': ok,
        'unnamed_fixes': unnamed,
        'entries': [r.as_json() for r in rows]}, indent=1))
  else:
    print(table(rows, labels))
    for fix_id in unnamed:
      print(f'FAIL ledger.toml: the fix {fix_id!r} has no triage entry (the '
            "upstream report's, or ref = \"found:" + fix_id + '", kind = '
            '"found-here" where upstream has none)')
    print(summary(rows))
  return 0 if ok else 1


if __name__ == '__main__':
  sys.exit(main())
