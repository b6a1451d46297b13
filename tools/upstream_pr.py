#!/usr/bin/env python3
# Copyright 2026 The Optax fork authors. All Rights Reserved.
# Licensed under the Apache License, Version 2.0.
"""Prints the body of a pull request offering one ledger fix to upstream.

The fix is a ``[[fix]]`` id of ledger.toml. Its reproducer runs against the
upstream (the options of upstream_status.py: ``--upstream VERSION``,
``--upstream-python PATH`` or ``--upstream-tree PATH``) and against the fork,
and the markdown printed holds: the title, the bug (the ledger's ``effect``)
with the reproducer's failure on that upstream, the reproducer's test file,
the change upstream would need (``upstream_change``), the references and
upstream's position as far as known. It exits with 1, printing nothing on
stdout, when the reproducer does not fail on that upstream (the fix is
absorbed, or the reproducer is missing) or does not pass on the fork.

Usage::

  python tools/upstream_pr.py FIX_ID [--upstream-tree PATH ...] > body.md
"""

from __future__ import annotations

import pathlib
import shutil
import sys
import tempfile
from typing import Any, Optional, Sequence

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
# pylint: disable-next=wrong-import-position
import upstream_status as status_lib  # noqa: E402

MAX_FAILURE_LINES = 30
MAX_LINE_CHARS = 200


def trim_failure(outcome: status_lib.Outcome) -> str:
  """The part of a failure's report worth showing, at most 30 lines.

  Args:
    outcome: a failed reproducer's outcome.

  Returns:
    From the failing source line (``>``) through the error lines (``E``)
    and the location line that follows them; the one-line reason when the
    report has no such lines.
  """
  lines = outcome.text.splitlines()
  first = next((i for i, ln in enumerate(lines) if ln.startswith('>')), None)
  errors = [i for i, ln in enumerate(lines) if ln.startswith('E ')]
  if errors:
    start = first if first is not None and first < errors[0] else errors[0]
    end = errors[-1] + 1
    if end < len(lines) and lines[end].strip() == '':
      end += 1
    if end < len(lines) and ':' in lines[end]:
      end += 1  # The location, e.g. upstream_tests/x_test.py:12: Error.
    lines = [ln for ln in lines[start:end] if ln.strip()]
  else:
    lines = outcome.crash.splitlines() or ['(no failure text)']
  if len(lines) > MAX_FAILURE_LINES:
    cut = len(lines) - MAX_FAILURE_LINES
    lines = lines[:MAX_FAILURE_LINES] + [f'... ({cut} more lines)']
  return '\n'.join(ln if len(ln) <= MAX_LINE_CHARS
                   else ln[:MAX_LINE_CHARS - 3] + '...' for ln in lines)


def _fence(text: str, language: str = '') -> str:
  """``text`` in a code fence longer than any backtick run inside it."""
  longest, run = 0, 0
  for ch in text:
    run = run + 1 if ch == '`' else 0
    longest = max(longest, run)
  ticks = '`' * max(3, longest + 1)
  return f'{ticks}{language}\n{text.rstrip()}\n{ticks}'


def body(fix: status_lib.Fix, label: str, meta: dict[str, Any],
         failure: status_lib.Outcome, test_source: str) -> str:
  """The pull request's markdown.

  Args:
    fix: the ledger entry.
    label: the upstream the reproducer failed on.
    meta: that run's versions (``optax_version``, ``jax_version``).
    failure: the reproducer's outcome there.
    test_source: the reproducer's file.

  Returns:
    The markdown, ending with a newline.
  """
  table = fix.table
  title = fix.title or fix.id
  version = meta.get('optax_version', '?')
  on = label if label == version else f'{label} (optax {version})'
  named = ''
  if '::' in fix.reproducer:
    named = f' (the test is `{fix.reproducer.split("::", 1)[1]}`)'
  refs = '\n'.join(f'- {r}' for r in fix.refs) or '- none'
  parts = [
      f'# {title}',
      str(table.get('effect', '')).strip(),
      '## Reproduction',
      f'On optax {on} with jax {meta.get("jax_version", "?")}, '
      f'`pytest {pathlib.PurePosixPath(fix.file).name}` fails:',
      _fence(trim_failure(failure), 'text'),
      f'The test below{named} fails on {label} and passes with the '
      'change suggested here.',
      _fence(test_source, 'python'),
      '## Suggested change',
      str(table.get('upstream_change', '')).strip() or '(not described)',
      '## References',
      refs,
      "## Upstream's position",
      str(table.get('upstream_position', '')).strip() or 'unknown',
  ]
  return '\n\n'.join(p for p in parts if p) + '\n'


def main(argv: Optional[Sequence[str]] = None) -> int:
  """Prints the body; returns the exit status."""
  parser = status_lib.make_parser(__doc__)
  parser.add_argument('fix', metavar='FIX_ID', help='a [[fix]] id')
  args = parser.parse_args(argv)
  ledger = pathlib.Path(args.ledger).resolve()
  fixes = {f.id: f for f in status_lib.load_ledger(ledger)}
  fix = fixes.get(args.fix)
  if fix is None:
    print(f'upstream_pr: no fix {args.fix!r} in {ledger}; ids: '
          f'{", ".join(sorted(fixes))}', file=sys.stderr)
    return 2
  path = ledger.parent / fix.file
  if not fix.reproducer or not path.is_file():
    print(f'upstream_pr: {fix.id} has no reproducer file '
          f'({fix.reproducer or "none named"})', file=sys.stderr)
    return 1
  work = pathlib.Path(args.keep or tempfile.mkdtemp(prefix='optax-pr.'))
  work.mkdir(parents=True, exist_ok=True)
  try:
    up_side, label = status_lib.upstream_side(args, work)
    fork_side = status_lib.Side('fork', args.fork_python)
    up_run, fork_run = status_lib.run_sides(
        [up_side, fork_side], [fix.file], ledger.parent, work)
  finally:
    if not args.keep:
      shutil.rmtree(work, ignore_errors=True)
  meta = up_run.record['meta']
  label = label or meta.get('optax_version', '?')
  upstream = status_lib.select(fix.reproducer, up_run.record)
  fork = status_lib.select(fix.reproducer, fork_run.record)
  if upstream.outcome != 'failed':
    print(f'upstream_pr: the reproducer of {fix.id} is {upstream.outcome} '
          f'on upstream {label}, not failed: nothing to offer (ledger: '
          f'{fix.status})', file=sys.stderr)
    return 1
  if fork.outcome != 'passed':
    print(f'upstream_pr: the reproducer of {fix.id} is {fork.outcome} on '
          f'the fork, it must pass: {fork.crash}', file=sys.stderr)
    return 1
  print(body(fix, label, meta, upstream, path.read_text(encoding='utf-8')),
        end='')
  return 0


if __name__ == '__main__':
  sys.exit(main())
