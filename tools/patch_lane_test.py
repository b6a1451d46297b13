# Copyright 2026 The Optax fork authors. All Rights Reserved.
# Licensed under the Apache License, Version 2.0.
"""Tests of patch_lane.py and upstream_pr.py without running upstream."""

from __future__ import annotations

import pathlib
import subprocess

import pytest

from tools import ledger as ledger_lib
from tools import patch_lane as lane
from tools import upstream_patch as up
from tools import upstream_patch_test as fixtures
from tools import upstream_pr

TEST = 'optax/module_test.py'
PLACED = f'{TEST}::ScaleTest::test_doubles'


def record(tests: dict[str, str], errors: tuple[str, ...] = ()
           ) -> lane.Record:
  """A pytest record of ``{nodeid: outcome}``."""
  return lane.Record(
      {k: {'outcome': v, 'crash': f'{k} {v}', 'text': f'E  {k}'}
       for k, v in tests.items()},
      {e: {'outcome': 'failed', 'crash': 'ImportError', 'text': 'E  no'}
       for e in errors}, {}, '')


def test_reproducer_outcomes_merge_variants():
  rec = record({f'{PLACED}0': 'passed', f'{PLACED}1': 'failed',
                f'{TEST}::ScaleTest::test_doubles_other': 'passed',
                f'{TEST}::ScaleTest::test_scale': 'failed'})
  assert lane._reproducer_outcomes(rec, [PLACED]) == {PLACED: 'failed'}
  rec = record({f'{PLACED}[a]': 'skipped', f'{PLACED}[b]': 'skipped'})
  assert lane._reproducer_outcomes(rec, [PLACED]) == {PLACED: 'skipped'}
  assert lane._reproducer_outcomes(record({}), [PLACED]) == {
      PLACED: 'missing'}
  assert lane._reproducer_outcomes(record({}, (TEST,)), [PLACED]) == {
      PLACED: 'failed'}


def test_regressions_compare_only_what_passed():
  pristine = record({f'{TEST}::A::test_a': 'passed',
                     f'{TEST}::A::test_b': 'failed',
                     f'{TEST}::A::test_c': 'passed',
                     'optax/other_test.py::B::test_d': 'passed',
                     PLACED: 'failed'})
  patched = record({f'{TEST}::A::test_a': 'passed',
                    f'{TEST}::A::test_b': 'failed',
                    'optax/other_test.py::B::test_d': 'failed',
                    PLACED: 'passed'})
  assert lane.regressions(pristine, patched, [TEST], [PLACED]) == [
      f'{TEST}::A::test_c: missing']
  assert lane.regressions(pristine, patched, None, [PLACED]) == [
      f'{TEST}::A::test_c: missing',
      'optax/other_test.py::B::test_d: failed']
  broken = record({}, (TEST,))
  assert lane.regressions(pristine, broken, [TEST], [])[0] == (
      f'{TEST}: does not collect')


def test_touched_test_files(tmp_path):
  tree = fixtures.make_tree(tmp_path / 'up')
  patch = up.parse(fixtures.patch_table(edit=[
      {'file': 'optax/module.py', 'scope': '', 'line': 1, 'replaced': 0,
       'sha256': '0' * 16, 'text': 'x\n'},
      {'file': 'optax/nothing.py', 'scope': '', 'line': 1, 'replaced': 0,
       'sha256': '0' * 16, 'text': 'x\n'},
      {'file': 'optax/else_test.py', 'scope': '', 'line': 1, 'replaced': 0,
       'sha256': '0' * 16, 'text': 'x\n'}]))
  assert lane.touched_test_files(tree, [patch]) == [
      'optax/else_test.py', TEST]


def fix(fix_id: str, kind: str = 'fix', status: str = 'needed',
        not_offered: str = '') -> ledger_lib.Fix:
  """A ledger entry with the fields the lane reads."""
  return ledger_lib.Fix(
      id=fix_id, title='t', kind=kind, effect='e', upstream_refs=(),
      upstream_position='p', code=('optax/x.py',), commits=('abcdef1',),
      reproducer=f'upstream_tests/{fix_id}_test.py', upstream_change='c',
      readme=False, status={'0.2.8': 'needed', 'main@2edbcbe2': status},
      not_offered=not_offered)


def test_coverage_of_the_ledger():
  patch = up.parse(fixtures.patch_table())
  fixes = [fix('scale-doubles'), fix('no-patch'),
           fix('said-why', 'deliberate', not_offered='a policy'),
           fix('a-port', 'port'), fix('absorbed', status='absorbed in abc1234')]
  problems, notes = lane.coverage_problems(
      fixes, {'scale-doubles': patch, 'absorbed': patch,
              'unknown-id': patch}, 'main@2edbcbe2')
  assert problems == [
      'no-patch: main@2edbcbe2 needs it, and it has neither a patch '
      '(upstream_patches/) nor a not_offered reason in the ledger',
      'upstream_patches/unknown-id.toml: no such ledger id']
  assert notes == ['absorbed: has a patch, but main@2edbcbe2 does not need '
                   'it (main@2edbcbe2: absorbed in abc1234)']
  # A main of unknown commit is held to the newest main status.
  problems, _ = lane.coverage_problems(fixes[1:2], {}, 'main')
  assert len(problems) == 1


def result(**fields) -> lane.PatchResult:
  """What the lane saw of the made-up patch."""
  values = dict(
      fix='scale-doubles', reproducer=[PLACED], before={PLACED: 'failed'},
      after={PLACED: 'passed'},
      failure_before=('/w/before/optax/module_test.py:9: in test\n'
                      '>   assert x == 2.0\nE   AssertionError: 1.0\n\n'
                      '/w/before/optax/module_test.py:9: AssertionError'),
      files=[TEST], counts={'before_passed': 1, 'after_passed': 2})
  values.update(fields)
  return lane.PatchResult(**values)


def test_pr_body_speaks_in_upstreams_voice(tmp_path):
  tree = fixtures.make_tree(tmp_path / 'up')
  dep = up.parse(fixtures.patch_table(fix='base-fix', subject='Fix base.'))
  patch = up.parse(fixtures.patch_table(
      depends=['base-fix'], why_depends='it reads the base',
      references=[{'ref': '#12', 'kind': 'issue', 'note': 'the report'},
                  {'ref': '#13', 'kind': 'pull'}]))
  text = upstream_pr.body(patch, {'base-fix': dep, 'scale-doubles': patch},
                          result(), 'main@2edbcbe2', '0.10.2', tree,
                          pathlib.Path('/w/before'))
  assert text.startswith('# Fix scale\n\nThe update is scaled twice.\n')
  assert 'On optax main at 2edbcbe2 with jax 0.10.2' in text
  assert 'E   AssertionError: 1.0' in text and '/w/before' not in text
  assert ('The test `test_doubles` goes to `ScaleTest` in '
          '`optax/module_test.py`.') in text
  assert ('the test passes on main at 2edbcbe2, and `optax/module_test.py` '
          'passes as before (1 other tests') in text
  assert '- "Fix base": it reads the base' in text
  assert ('- [#12](https://github.com/google-deepmind/optax/issues/12) '
          '(issue): the report') in text
  assert ('- [#13](https://github.com/google-deepmind/optax/pull/13) '
          '(pull request)') in text
  assert 'fork' not in text.lower()


def test_trim_failure_keeps_the_error_lines():
  text = result().failure_before
  assert upstream_pr.trim_failure(text, pathlib.Path('/w/before')) == (
      '>   assert x == 2.0\nE   AssertionError: 1.0\n'
      'optax/module_test.py:9: AssertionError')
  assert upstream_pr.trim_failure('') == '(no failure text)'


def _git(tree: pathlib.Path, *args: str) -> str:
  return subprocess.run(
      ['git', '-c', 'user.name=t', '-c', 'user.email=t@t', '-C', str(tree),
       *args], check=True, capture_output=True, text=True).stdout


def test_make_branch_commits_each_patch(tmp_path, monkeypatch):
  tree = fixtures.make_tree(tmp_path / 'up')
  repo = fixtures.make_repo(tmp_path / 'repo')
  monkeypatch.setattr(up, 'REPO', repo)
  _git(tree, 'init', '-q')
  _git(tree, 'add', '.')
  _git(tree, 'commit', '-q', '-m', 'upstream')
  monkeypatch.setenv('GIT_AUTHOR_NAME', 'a')
  monkeypatch.setenv('GIT_AUTHOR_EMAIL', 'a@a')
  monkeypatch.setenv('GIT_COMMITTER_NAME', 'a')
  monkeypatch.setenv('GIT_COMMITTER_EMAIL', 'a@a')
  table = fixtures.patch_table(message='Scale by two, as documented.')
  patches = {'scale-doubles': up.parse(table)}
  made = upstream_pr.make_branch(tree, 'fix-scale', patches,
                                 'scale-doubles')
  assert len(made) == 1
  # The checkout is back on its branch, unchanged; the branch has the fix.
  start = _git(tree, 'rev-parse', '--abbrev-ref', 'HEAD').strip()
  assert start != 'fix-scale'
  assert not _git(tree, 'status', '--porcelain')
  assert _git(tree, 'log', '-1', '--format=%s').strip() == 'upstream'
  assert _git(tree, 'rev-parse', 'fix-scale~1') == _git(
      tree, 'rev-parse', start)
  assert _git(tree, 'log', '-1', '--format=%B', 'fix-scale').strip() == (
      'Fix scale.\n\nScale by two, as documented.')
  changed = _git(tree, 'show', '--stat', '--format=', 'fix-scale')
  assert 'optax/module.py' in changed and 'optax/module_test.py' in changed
  # A second branch starts from the same commit, not from the first one.
  upstream_pr.make_branch(tree, 'fix-scale-2', patches, 'scale-doubles')
  assert _git(tree, 'rev-parse', 'fix-scale-2~1') == _git(
      tree, 'rev-parse', start)
  with pytest.raises(SystemExit, match='exists already'):
    upstream_pr.make_branch(tree, 'fix-scale', patches, 'scale-doubles')
  with pytest.raises(SystemExit, match='not one'):
    upstream_pr.make_branch(tree / 'optax', 'x', patches, 'scale-doubles')
