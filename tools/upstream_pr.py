#!/usr/bin/env python3
# Copyright 2026 The Optax fork authors. All Rights Reserved.
# Licensed under the Apache License, Version 2.0.
"""Makes the pull request that offers one ledger fix to upstream.

The fix's patch (``upstream_patches/<id>.toml``, see upstream_patch.py) is
first verified as the patch lane does (tools/patch_lane.py): in a copy of
the upstream tree, its reproducer, placed in upstream's test file, must fail
without the fix and pass with it; every upstream test file that exercises
the changed code must pass as before; upstream's linters (pylint, ruff,
flake8, pyink, with its configuration) must report no new message on the
changed files, and the docstring examples of the changed functions (and of
those that reach them) must pass as before. Then:

- with ``--branch NAME``, in the upstream git checkout ``--upstream-tree``
  (clean, and NAME a new branch), it makes the branch at HEAD with one
  commit per patch (a patch it depends on first): the files the patch
  changes and no other, with the patch's subject (72 characters at most)
  and a body (its message, or the description's paragraphs on the bug and
  on the change), by the author of ``--author`` or GIT_AUTHOR_NAME and
  GIT_AUTHOR_EMAIL (a placeholder such as ``t <t@t>`` is refused); the
  checkout is then returned to where it was, so that the next fix is
  verified and branched from the same commit. A checkout with changes or
  untracked files under ``optax/``, a malformed branch name, a branch that
  exists or a missing author are refused before the verification;
- it prints the pull request's body in markdown: the title, the patch's
  description, the reproduction as it fails on that upstream, where the
  test went, the verification as the lane saw it, the patches it builds on
  and the references, linked and told apart as issues or pull requests.

``--upstream-tree`` is a git checkout of upstream (needed for ``--branch``)
or a plain export (labelled ``main`` unless ``--upstream-label`` names its
commit). It exits with 1, printing nothing on stdout and making no branch,
when the fix has no patch or the patch does not hold.

Usage::

  python -m tools.upstream_pr FIX --upstream-tree PATH [--branch NAME
      [--author "NAME <EMAIL>"]] [--upstream-label main@COMMIT]
      [--python PATH] [--lint-python PATH] [--workers N]
      [--lane-json FILE] > body.md

``--lane-json`` takes the verification from a ``--json`` of the patch lane
run on the same upstream with the same patch files (a digest of them is
compared) instead of running upstream's tests again.
"""

from __future__ import annotations

import argparse
import json
import os
import pathlib
import re
import shutil
import subprocess
import sys
import tempfile
import textwrap
from typing import Any, Optional, Sequence

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
      _verification(result, on),
      _ci_sentence(result.ci),
  ]
  first = [r for r in patch.references if r.review_first]
  if first:
    parts += ['## Open pull requests for the same change', '\n'.join(
        f'- [{r.ref}]({r.url}) came first and makes the same change, so '
        f'please review it first. How this one differs: {r.differs}. If '
        f'{r.ref} is preferred, this one can be closed, and I am glad to '
        'review it or to add what is useful here to it.' for r in first)]
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


def _counted(n: int, what: str) -> str:
  return f'{n} {what}' + ('' if n == 1 else 's')


def _verification(result: patch_lane.PatchResult, on: str) -> str:
  """What pytest reported on the test files, without and with the change.

  The counts are pytest's: test cases (each parameterization one), on the
  files that exercise the changed code, pristine and patched.
  """
  c = result.counts
  files = ', '.join(f'`{f}`' for f in result.files)
  new = ', '.join(f'`{f}`' for f in result.new_files)

  def tally(when: str) -> tuple[int, str]:
    passed, failed, skipped = (c.get(f'{when}_{k}', 0)
                               for k in ('passed', 'failed', 'skipped'))
    return passed + failed + skipped, (f'{passed} passed, {failed} failed, '
                                       f'{skipped} skipped')

  n_before, before = tally('before')
  n_after, after = tally('after')
  added = c.get('placed', 0)
  return (
      f'With this change the test passes on {on}. The test files that '
      f'exercise the changed code, {files}, ran '
      f'{_counted(n_before, "test")} on {on} ({before})'
      + (f'; {new} did not exist' if new else '')
      + f', and {_counted(n_after, "test")} with this change ({after}; '
      f'{_counted(added, "case")} added here, '
      f'{c.get("placed_passed", 0)} passing). No test that passed without '
      'the change fails with it.')


def _ci_sentence(ci: dict[str, Any]) -> str:
  """Upstream's lint and docstring examples, as the lane ran them."""
  if not ci:
    return ''
  files = ', '.join(f'`{f}`' for f in ci['files'])
  before, after = ci['doctests_before'], ci['doctests_after']
  return (
      f'Upstream\'s linters on the changed files ({files}: '
      f'{", ".join(ci["linters"])} with `pyproject.toml` and the workflow\'s '
      'options, and the whitespace hooks of pre-commit) report '
      f'{_counted(ci["lint_after"], "message")}, none new '
      f'({ci["lint_before"]} without the change). The docstring examples of '
      f'the {_counted(ci["doctest_objects"], "documented function")} that '
      'use the changed code, run as `make doctest` runs them, give '
      f'{_counted(after["examples"], "example")} with '
      f'{after["failed"]} docstring(s) failing ({before["examples"]} and '
      f'{before["failed"]} without the change).')


def _git(checkout: pathlib.Path, *args: str,
         env: Optional[dict[str, str]] = None) -> str:
  proc = subprocess.run(['git', '-C', str(checkout), *args],
                        capture_output=True, text=True, check=False,
                        env=env)
  if proc.returncode:
    raise SystemExit(f'upstream_pr: git {" ".join(args)} failed in '
                     f'{checkout}: {proc.stderr.strip()}')
  return proc.stdout


_AUTHOR = re.compile(r'^\s*([^<>]*?)\s*<([^<>\s]+)>\s*$')
_EMAIL = re.compile(r'^[^@\s]+@([^@\s]+\.[^@\s.]+)$')
# Names and mail domains that a git config or a test leaves behind.
_PLACEHOLDER_NAMES = {'', 'a', 't', 'name', 'your name', 'user', 'author',
                      'root', 'nobody', 'test', 'unknown', 'me', 'anonymous'}
_PLACEHOLDER_WORDS = re.compile(r'your|placeholder|todo|xxx|changeme', re.I)
_PLACEHOLDER_DOMAINS = re.compile(
    r'(^|\.)(example\.(com|org|net)|localhost|localdomain|invalid|test|'
    r'example|local)$', re.I)


def parse_author(text: str) -> tuple[str, str]:
  """``(name, email)`` of ``Name <email>``, refusing a placeholder.

  Args:
    text: the author, as git writes it.

  Returns:
    The name and the email.

  Raises:
    SystemExit: a malformed author, or a placeholder such as ``t <t@t>``,
      ``Your Name <you@example.com>`` or a mail of ``localhost``.
  """
  found = _AUTHOR.match(text or '')
  if not found:
    raise SystemExit(f'upstream_pr: the author must be "Name <email>", got '
                     f'{text!r}')
  name, email = found.group(1).strip(), found.group(2)
  domain = _EMAIL.match(email)
  if (name.lower() in _PLACEHOLDER_NAMES or _PLACEHOLDER_WORDS.search(name)
      or _PLACEHOLDER_WORDS.search(email) or domain is None
      or _PLACEHOLDER_DOMAINS.search(domain.group(1))):
    raise SystemExit(f'upstream_pr: {text!r} looks like a placeholder, not '
                     'a person: give the real author with --author "Name '
                     '<email>" (or GIT_AUTHOR_NAME and GIT_AUTHOR_EMAIL)')
  return name, email


def resolve_author(given: Optional[str],
                   environ: Optional[dict[str, str]] = None
                   ) -> tuple[str, str]:
  """The commits' author: ``--author``, else GIT_AUTHOR_NAME and _EMAIL.

  Never git's configuration: the machine's user is not the author.

  Args:
    given: ``--author``, or None.
    environ: the environment (default: this process's).

  Returns:
    ``(name, email)``.

  Raises:
    SystemExit: no author given, or a placeholder.
  """
  environ = os.environ if environ is None else environ
  if given is None:
    name = environ.get('GIT_AUTHOR_NAME', '')
    email = environ.get('GIT_AUTHOR_EMAIL', '')
    if not name or not email:
      raise SystemExit('upstream_pr: --branch needs the author of the '
                       'commits: --author "Name <email>", or '
                       'GIT_AUTHOR_NAME and GIT_AUTHOR_EMAIL')
    given = f'{name} <{email}>'
  return parse_author(given)


def commit_message(patch: patch_lib.Patch) -> str:
  """The commit's message: the subject, a blank line and a body.

  The body is the patch's ``message``; without one, the first paragraph of
  its description (what goes wrong) and the one that says what the patch
  does and why (``This patch ...``), wrapped at 72 columns.

  Args:
    patch: the patch.

  Returns:
    The message, without a final newline.
  """
  body = patch.message.strip()
  if not body:
    paragraphs = [p.strip() for p in re.split(r'\n\s*\n', patch.description)
                  if p.strip() and not p.startswith(('    ', '```'))]
    chosen = paragraphs[:1] + [
        p for p in paragraphs[1:]
        if re.match(r'(This|The) (patch|change|fix)\b', p)][:1]
    body = '\n\n'.join(
        textwrap.fill(' '.join(p.split()), width=72, break_long_words=False,
                      break_on_hyphens=False) for p in chosen)
  return f'{patch.subject}\n\n{body}'


def _branch_exists(checkout: pathlib.Path, branch: str) -> bool:
  return subprocess.run(
      ['git', '-C', str(checkout), 'rev-parse', '--verify', '--quiet',
       f'refs/heads/{branch}'], capture_output=True, check=False
  ).returncode == 0


def check_checkout(checkout: pathlib.Path, branch: str) -> None:
  """Refuses a checkout or a branch name that a branch cannot be made in.

  Run before the (long) verification and again when the branch is made.

  Args:
    checkout: the upstream checkout.
    branch: the new branch's name.

  Raises:
    SystemExit: not a git checkout; uncommitted changes; an untracked file
      under ``optax/`` (it would not be in the branch, but the tests would
      see it); a malformed branch name; a branch that exists.
  """
  if status_lib.git_head(checkout) is None:
    raise SystemExit(f'upstream_pr: --branch needs a git checkout of '
                     f'upstream; {checkout} is not one')
  if _git(checkout, 'status', '--porcelain', '--untracked-files=no').strip():
    raise SystemExit(f'upstream_pr: {checkout} has uncommitted changes')
  untracked = _git(checkout, 'ls-files', '--others', '--exclude-standard',
                   '--', 'optax').split()
  if untracked:
    raise SystemExit(f'upstream_pr: {checkout} has untracked files under '
                     f'optax/ ({", ".join(untracked[:5])}): remove them or '
                     'commit them elsewhere first')
  valid = subprocess.run(['git', 'check-ref-format', '--branch', branch],
                         capture_output=True, check=False)
  if valid.returncode or branch.startswith('-'):
    raise SystemExit(f'upstream_pr: {branch!r} is not a valid branch name')
  if _branch_exists(checkout, branch):
    raise SystemExit(f'upstream_pr: the branch {branch} exists already')


def make_branch(checkout: pathlib.Path, branch: str,
                patches: dict[str, patch_lib.Patch], fix: str,
                author: tuple[str, str]) -> list[str]:
  """Makes ``branch`` at HEAD with a commit per patch (dependencies first).

  Each commit holds only the files its patch changes (the code and the
  test file), with :func:`commit_message` as its message and ``author`` as
  its author and committer. The checkout is left where it was (its branch,
  or its detached HEAD), so that branches made one after the other all
  start from the same commit.

  Args:
    checkout: a clean git checkout of upstream.
    branch: the new branch's name.
    patches: every patch.
    fix: the patch offered.
    author: ``(name, email)``, see :func:`resolve_author`.

  Returns:
    The commits made, oldest first.

  Raises:
    SystemExit: as :func:`check_checkout`, or a patch that does not apply
      or changes another file than it names.
  """
  check_checkout(checkout, branch)
  name, email = author
  env = dict(os.environ, GIT_AUTHOR_NAME=name, GIT_AUTHOR_EMAIL=email,
             GIT_COMMITTER_NAME=name, GIT_COMMITTER_EMAIL=email)
  here = subprocess.run(
      ['git', '-C', str(checkout), 'symbolic-ref', '-q', '--short', 'HEAD'],
      capture_output=True, text=True, check=False).stdout.strip() or _git(
          checkout, 'rev-parse', 'HEAD').strip()
  _git(checkout, 'checkout', '-q', '-b', branch)
  made = []
  try:
    for patch_id in patch_lib.order(patches, [fix]):
      patch = patches[patch_id]
      try:
        patch_lib.apply_edits(checkout, patch)
        if patch.test is not None:
          patch_lib.place_test(checkout, patch.test)
      except patch_lib.PatchError as exc:
        raise SystemExit(f'upstream_pr: {exc}') from exc
      files = sorted(set(patch.files) | (
          {patch.test.into} if patch.test is not None else set()))
      _git(checkout, 'add', '--', *files)
      stray = [ln for ln in _git(checkout, 'status', '--porcelain',
                                 '--untracked-files=no').splitlines()
               if ln[1:2] != ' '] + _git(
                   checkout, 'ls-files', '--others', '--exclude-standard',
                   '--', 'optax').split()
      if stray:
        raise SystemExit(f'upstream_pr: {patch_id} changed files it does '
                         f'not name: {"; ".join(stray[:5])}')
      _git(checkout, 'commit', '-q', '-m', commit_message(patch), env=env)
      made.append(_git(checkout, 'rev-parse', '--short=8', 'HEAD').strip())
  except SystemExit:
    # No half-made branch is left behind.
    _git(checkout, 'reset', '-q', '--hard')
    _git(checkout, 'clean', '-q', '-f', '--', 'optax')
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
  parser.add_argument('fix', metavar='FIX_ID',
                      help='the ledger id of the fix (ledger.toml [[fix]])')
  parser.add_argument('--upstream-tree', required=True, metavar='CHECKOUT',
                      help='a git checkout of upstream (needed for '
                      '--branch), or a plain export of it')
  parser.add_argument('--upstream-label', default=None, metavar='LABEL',
                      help='the tree\'s label (main@COMMIT); default: its '
                      'HEAD, or main for an export')
  parser.add_argument('--branch', default=None, metavar='NAME',
                      help='make this new branch in the checkout, with a '
                      'commit per patch')
  parser.add_argument('--author', default=None, metavar='"NAME <EMAIL>"',
                      help='the commits\' author (and committer); default: '
                      'GIT_AUTHOR_NAME and GIT_AUTHOR_EMAIL, never git\'s '
                      'configuration')
  parser.add_argument('--ledger', default=str(ledger_lib.LEDGER),
                      metavar='FILE', help='the fix ledger')
  parser.add_argument('--patches', default=str(patch_lib.PATCHES),
                      metavar='DIR', help='the upstream patches\' folder')
  parser.add_argument('--python', default=sys.executable, metavar='PATH',
                      help='the interpreter that runs upstream\'s tests and '
                      'docstring examples')
  parser.add_argument('--lint-python', default=sys.executable,
                      metavar='PATH',
                      help='the interpreter that has upstream\'s linters '
                      '(pylint, ruff, flake8, pyink); default: this one')
  parser.add_argument('--workers', type=int, default=0, metavar='N',
                      help='pytest-xdist workers for upstream\'s test files '
                      '(0: none)')
  parser.add_argument('--lane-json', default=None, metavar='FILE',
                      help='take the verification from this --json of '
                      'tools.patch_lane, run on the same tree and the same '
                      'patch files, instead of verifying again')
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
  author = None
  if args.branch:  # Refused now, not after the verification.
    author = resolve_author(args.author)
    check_checkout(tree, args.branch)
  missing = [m for m in patch_lane.LINTERS
             if m not in patch_lane.available_linters(args.lint_python)]
  if missing and not args.lane_json:
    print(f'upstream_pr: {args.lint_python} lacks {", ".join(missing)}: '
          'upstream\'s CI runs them (pip install pylint ruff flake8 pyink, '
          'or give --lint-python)', file=sys.stderr)
    return 2
  label = status_lib.label_for_tree(tree, args.upstream_label)
  work = pathlib.Path(tempfile.mkdtemp(prefix='optax-pr.'))
  try:
    if args.lane_json:
      result = lane_result(pathlib.Path(args.lane_json), args.fix, patches,
                           label)
    else:
      result = patch_lane.check_patch(args.fix, patches, tree, args.python,
                                      work, processes=args.workers,
                                      lint_python=args.lint_python)
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
    made = make_branch(tree, args.branch, patches, args.fix, author)
    print(f'upstream_pr: branch {args.branch} in {tree}: '
          f'{", ".join(made)}', file=sys.stderr)
  print(text, end='')
  return 0


def lane_result(path: pathlib.Path, fix: str,
                patches: dict[str, patch_lib.Patch], label: str
                ) -> patch_lane.PatchResult:
  """The patch lane's result of ``fix``, from its ``--json`` file.

  Args:
    path: the lane's JSON.
    fix: the patch.
    patches: the patches as they are now.
    label: the upstream the branch is made on.

  Returns:
    The result, as :func:`patch_lane.check_patch` returned it.

  Raises:
    SystemExit: the file has no result of ``fix``, was made on another
      upstream, with other patch files, or without upstream's CI.
  """
  data = json.loads(path.read_text(encoding='utf-8'))
  found = [r for r in data.get('patches', []) if r.get('fix') == fix]
  if not found:
    raise SystemExit(f'upstream_pr: {path} has no result of {fix}')
  result = patch_lane.PatchResult(**found[0])
  if not status_lib.same_label(data.get('label', ''), label):
    raise SystemExit(f'upstream_pr: {path} verified {data.get("label")}, '
                     f'not {label}')
  if result.digest != patch_lane.patch_digest(patches, fix):
    raise SystemExit(f'upstream_pr: the patch files of {fix} changed since '
                     f'{path} was made: run the lane again')
  if not result.ci or result.ci.get('missing'):
    raise SystemExit(f'upstream_pr: {path} ran without all of upstream\'s '
                     'linters (--no-ci, or some not installed)')
  return result


def _jax_version(python: str) -> str:
  proc = subprocess.run([python, '-c', 'import jax; print(jax.__version__)'],
                        capture_output=True, text=True, check=False)
  return proc.stdout.strip() or '?'


if __name__ == '__main__':
  sys.exit(main())
