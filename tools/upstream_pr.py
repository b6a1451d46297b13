#!/usr/bin/env python3
# Copyright 2026 The Optax fork authors. All Rights Reserved.
# Licensed under the Apache License, Version 2.0.
"""Makes the pull request that offers one ledger fix to upstream.

The fix's patch (``upstream_patches/<id>.toml``, see upstream_patch.py) is
first verified as the patch lane does (tools/patch_lane.py): in a copy of
the upstream tree, its reproducer, placed in upstream's test file, must fail
without the fix and pass with it, and upstream's test files of the touched
modules must pass as before. Then:

- with ``--branch NAME``, in the upstream git checkout ``--upstream-tree``
  (clean, and NAME a new branch), it makes the branch at HEAD with one
  commit per patch (a patch it depends on first): the code, the test, and
  upstream's licence header on new files, with the patch's subject and
  message as the commit message; the checkout is then returned to where it
  was, so that the next fix is verified and branched from the same commit;
- it prints the pull request's body in markdown: the title, the patch's
  description, the reproduction as it fails on that upstream, where the
  test went, the verification as the lane saw it, the patches it builds on
  and the references, linked and told apart as issues or pull requests.

``--upstream-tree`` is a git checkout of upstream (needed for ``--branch``)
or a plain export (labelled ``main`` unless ``--upstream-label`` names its
commit). It exits with 1, printing nothing on stdout and making no branch,
when the fix has no patch or the patch does not hold.

Usage::

  python -m tools.upstream_pr FIX --upstream-tree PATH [--branch NAME]
      [--upstream-label main@COMMIT] [--python PATH] > body.md
"""

from __future__ import annotations

import argparse
import pathlib
import re
import shutil
import subprocess
import sys
import tempfile
from typing import Optional, Sequence

from tools import ledger as ledger_lib
from tools import patch_lane
from tools import upstream_patch as patch_lib
from tools import upstream_status as status_lib

MAX_FAILURE_LINES = 30
MAX_LINE_CHARS = 200


def trim_failure(text: str, tree: Optional[pathlib.Path] = None) -> str:
  """The part of a pytest failure report worth showing, at most 30 lines.

  Args:
    text: the report of a failed test.
    tree: the folder the test ran in, dropped from the paths shown.

  Returns:
    From the failing source line (``>``) through the error lines (``E``)
    and the location line after them; the whole text, cut, when it has no
    error lines.
  """
  if tree is not None:
    text = text.replace(str(tree) + '/', '')
  lines = text.splitlines()
  first = next((i for i, ln in enumerate(lines) if ln.startswith('>')), None)
  errors = [i for i, ln in enumerate(lines) if ln.startswith('E ')]
  if errors:
    start = first if first is not None and first < errors[0] else errors[0]
    end = errors[-1] + 1
    if end < len(lines) and lines[end].strip() == '':
      end += 1
    if end < len(lines) and ':' in lines[end]:
      end += 1  # The location, e.g. optax/_src/alias_test.py:12: Error.
    lines = [ln for ln in lines[start:end] if ln.strip()]
  lines = lines or ['(no failure text)']
  if len(lines) > MAX_FAILURE_LINES:
    cut = len(lines) - MAX_FAILURE_LINES
    lines = lines[:MAX_FAILURE_LINES] + [f'... ({cut} more lines)']
  return '\n'.join(ln if len(ln) <= MAX_LINE_CHARS
                   else ln[:MAX_LINE_CHARS - 3] + '...' for ln in lines)


def _fence(text: str, language: str = '') -> str:
  """``text`` in a code fence longer than any backtick run inside it."""
  longest = max((len(m) for m in re.findall('`+', text)), default=0)
  ticks = '`' * max(3, longest + 1)
  return f'{ticks}{language}\n{text.rstrip()}\n{ticks}'


def _where(patch: patch_lib.Patch) -> str:
  """The changed places, by file and definition."""
  places: dict[str, list[str]] = {}
  for edit in patch.edits:
    names = places.setdefault(edit.file, [])
    if edit.create:
      names.append('(new file)')
    elif edit.scope and edit.scope.split('.')[0] not in names:
      names.append(edit.scope.split('.')[0])
  return '; '.join(
      f'`{f}`' + (f' ({", ".join(f"`{n}`" if n[0] != "(" else n for n in ns)})'
                  if ns else '') for f, ns in places.items())


def _test_sentence(patch: patch_lib.Patch, placed: Sequence[str],
                   tree: pathlib.Path) -> str:
  """Where the test went, in a sentence."""
  if patch.test is None:
    return ''
  names = ', '.join(f'`{t.split("::")[-1]}`' for t in placed)
  into = patch.test.into
  plural = 's' if len(placed) > 1 else ''
  if patch.test.klass:
    return (f'The test{plural} {names} go{"" if plural else "es"} to '
            f'`{patch.test.klass}` in `{into}`.')
  if (tree / into).exists():
    klass = placed[0].split('::')[1] if placed else '?'
    return f'The test class `{klass}` ({names}) is added to `{into}`.'
  return f'The test{plural} {names} are in a new file, `{into}`.'


def body(patch: patch_lib.Patch, patches: dict[str, patch_lib.Patch],
         result: patch_lane.PatchResult, label: str, jax_version: str,
         tree: pathlib.Path, work_tree: pathlib.Path) -> str:
  """The pull request's markdown.

  Args:
    patch: the patch offered.
    patches: every patch (for the ones it depends on).
    result: what the lane saw of it.
    label: the upstream it was verified against.
    jax_version: the jax it ran with.
    tree: the upstream tree given.
    work_tree: the folder its tests ran in (dropped from paths shown).

  Returns:
    The markdown, ending with a newline.
  """
  commit = status_lib.main_commit(label)
  on = f'main at {commit}' if commit else label
  if commit == '':
    on = 'main'
  files = ', '.join(f'`{f}`' for f in result.files)
  c = result.counts
  others = c.get('after_passed', 0) - len(result.reproducer)
  parts = [
      f'# {patch.subject.rstrip(".")}',
      patch.description,
      '## Reproduction',
      f'On optax {on} with jax {jax_version}, the test this change adds '
      'fails:',
      _fence(trim_failure(result.failure_before, work_tree), 'text'),
      '## The change',
      f'Changed: {_where(patch)}. ' + _test_sentence(
          patch, result.reproducer, tree),
      f'With this change the test passes on {on}, and {files} '
      f'pass{"es" if len(result.files) == 1 else ""} as before ({others} '
      'other tests passed without the change and pass with it).',
  ]
  deps = [d for d in patch_lib.order(patches, [patch.fix]) if d != patch.fix]
  if deps:
    parts += ['## Builds on', '\n'.join(
        f'- "{patches[d].subject.rstrip(".")}": {patch.why_depends}'
        for d in deps) + '\n\nThe branch carries that change as a commit of '
        'its own, before this one.']
  kinds = {'pull': 'pull request', 'issue': 'issue'}
  if patch.references:
    parts += ['## References', '\n'.join(
        f'- [{r.ref}]({r.url}) ({kinds[r.kind]})'
        + (f': {r.note}' if r.note else '') for r in patch.references)]
  return '\n\n'.join(p.strip() for p in parts if p.strip()) + '\n'


def _git(checkout: pathlib.Path, *args: str) -> str:
  proc = subprocess.run(['git', '-C', str(checkout), *args],
                        capture_output=True, text=True, check=False)
  if proc.returncode:
    raise SystemExit(f'upstream_pr: git {" ".join(args)} failed in '
                     f'{checkout}: {proc.stderr.strip()}')
  return proc.stdout


def make_branch(checkout: pathlib.Path, branch: str,
                patches: dict[str, patch_lib.Patch], fix: str) -> list[str]:
  """Makes ``branch`` at HEAD with a commit per patch (dependencies first).

  The checkout is left where it was (its branch, or its detached HEAD), so
  that branches made one after the other all start from the same commit.

  Args:
    checkout: a clean git checkout of upstream.
    branch: the new branch's name.
    patches: every patch.
    fix: the patch offered.

  Returns:
    The commits made, oldest first.

  Raises:
    SystemExit: a checkout that is not clean, a branch that exists, or a
      patch that does not apply.
  """
  if status_lib.git_head(checkout) is None:
    raise SystemExit(f'upstream_pr: --branch needs a git checkout of '
                     f'upstream; {checkout} is not one')
  if _git(checkout, 'status', '--porcelain', '--untracked-files=no').strip():
    raise SystemExit(f'upstream_pr: {checkout} has uncommitted changes')
  exists = subprocess.run(
      ['git', '-C', str(checkout), 'rev-parse', '--verify', '--quiet',
       f'refs/heads/{branch}'], capture_output=True, check=False)
  if exists.returncode == 0:
    raise SystemExit(f'upstream_pr: the branch {branch} exists already')
  here = subprocess.run(
      ['git', '-C', str(checkout), 'symbolic-ref', '-q', '--short', 'HEAD'],
      capture_output=True, text=True, check=False).stdout.strip() or _git(
          checkout, 'rev-parse', 'HEAD').strip()
  _git(checkout, 'checkout', '-q', '-b', branch)
  made = []
  try:
    for name in patch_lib.order(patches, [fix]):
      patch = patches[name]
      try:
        patch_lib.apply_edits(checkout, patch)
        if patch.test is not None:
          patch_lib.place_test(checkout, patch.test)
      except patch_lib.PatchError as exc:
        raise SystemExit(f'upstream_pr: {exc}') from exc
      _git(checkout, 'add', '-A', '--', 'optax')
      message = patch.subject + (f'\n\n{patch.message}' if patch.message
                                 else '')
      _git(checkout, 'commit', '-q', '-m', message)
      made.append(_git(checkout, 'rev-parse', '--short=8', 'HEAD').strip())
  except SystemExit:
    # No half-made branch is left behind.
    _git(checkout, 'reset', '-q', '--hard')
    _git(checkout, 'checkout', '-q', here)
    _git(checkout, 'branch', '-q', '-D', branch)
    raise
  _git(checkout, 'checkout', '-q', here)
  return made


def main(argv: Optional[Sequence[str]] = None) -> int:
  """Verifies, makes the branch if asked, prints the body."""
  parser = argparse.ArgumentParser(
      description=__doc__.splitlines()[0],
      formatter_class=argparse.RawDescriptionHelpFormatter)
  parser.add_argument('fix', metavar='FIX_ID', help='a [[fix]] id')
  parser.add_argument('--upstream-tree', required=True)
  parser.add_argument('--upstream-label', default=None)
  parser.add_argument('--branch', default=None,
                      help='make this branch in the checkout')
  parser.add_argument('--ledger', default=str(ledger_lib.LEDGER))
  parser.add_argument('--patches', default=str(patch_lib.PATCHES))
  parser.add_argument('--python', default=sys.executable,
                      help='the interpreter that runs upstream\'s tests')
  args = parser.parse_args(argv)
  tree = pathlib.Path(args.upstream_tree).resolve()
  if not (tree / 'optax' / '__init__.py').is_file():
    print(f'upstream_pr: {tree} is not an upstream tree', file=sys.stderr)
    return 2
  fixes = ledger_lib.by_id(ledger_lib.load(pathlib.Path(args.ledger)))
  if args.fix not in fixes:
    print(f'upstream_pr: no fix {args.fix!r} in the ledger; ids: '
          f'{", ".join(sorted(fixes))}', file=sys.stderr)
    return 2
  folder = pathlib.Path(args.patches)
  patches = (patch_lib.load_some([args.fix], folder)
             if (folder / f'{args.fix}.toml').is_file() else {})
  if args.fix not in patches:
    why = fixes[args.fix].not_offered
    print(f'upstream_pr: {args.fix} has no upstream patch'
          + (f' (not offered: {why})' if why else ''), file=sys.stderr)
    return 1
  label = status_lib.label_for_tree(tree, args.upstream_label)
  work = pathlib.Path(tempfile.mkdtemp(prefix='optax-pr.'))
  try:
    result = patch_lane.check_patch(args.fix, patches, tree, args.python,
                                    work)
    jax_version = _jax_version(args.python)
    if not result.applies or result.problems:
      why = result.stale or '; '.join(result.problems)
      print(f'upstream_pr: the patch of {args.fix} does not hold on '
            f'{label}: {why}', file=sys.stderr)
      return 1
    text = body(patches[args.fix], patches, result, label, jax_version,
                tree, work / 'before')
  finally:
    shutil.rmtree(work, ignore_errors=True)
  if args.branch:
    made = make_branch(tree, args.branch, patches, args.fix)
    print(f'upstream_pr: branch {args.branch} in {tree}: '
          f'{", ".join(made)}', file=sys.stderr)
  print(text, end='')
  return 0


def _jax_version(python: str) -> str:
  proc = subprocess.run([python, '-c', 'import jax; print(jax.__version__)'],
                        capture_output=True, text=True, check=False)
  return proc.stdout.strip() or '?'


if __name__ == '__main__':
  sys.exit(main())
