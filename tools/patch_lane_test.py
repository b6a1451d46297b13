# Copyright 2026 The Optax fork authors. All Rights Reserved.
# Licensed under the Apache License, Version 2.0.
"""Tests of patch_lane.py and upstream_pr.py without running upstream."""

from __future__ import annotations

import json
import pathlib
import re
import subprocess
import sys
import textwrap

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
      files=[TEST, 'optax/new_test.py'], new_files=['optax/new_test.py'],
      counts={'before_passed': 5, 'before_failed': 1, 'before_skipped': 1,
              'after_passed': 9, 'after_failed': 1, 'after_skipped': 1,
              'placed': 4, 'placed_passed': 4},
      ci={'files': ['optax/module.py', TEST], 'linters': ['pylint', 'ruff'],
          'missing': [], 'lint_before': 3, 'lint_after': 3,
          'new_messages': [], 'doctest_objects': 2,
          'doctests_before': {'examples': 11, 'failed': 0},
          'doctests_after': {'examples': 11, 'failed': 0},
          'new_doctest_failures': [], 'doctest_reports': {}, 'problems': []})
  values.update(fields)
  return lane.PatchResult(**values)


def test_pr_body_speaks_in_upstreams_voice(tmp_path):
  tree = fixtures.make_tree(tmp_path / 'up')
  dep = up.parse(fixtures.patch_table(fix='base-fix', subject='Fix base.'))
  patch = up.parse(fixtures.patch_table(
      depends=['base-fix'], why_depends='it reads the base',
      references=[{'ref': '#12', 'kind': 'issue', 'note': 'the report'},
                  {'ref': '#13', 'kind': 'pull'},
                  {'ref': '#14', 'kind': 'pull', 'note': 'open',
                   'review_first': True, 'differs': 'it has no jit test'}]))
  text = upstream_pr.body(patch, {'base-fix': dep, 'scale-doubles': patch},
                          result(), 'main@2edbcbe2', '0.10.2', tree,
                          pathlib.Path('/w/before'))
  assert text.startswith('# Fix scale\n\nThe update is scaled twice.\n')
  assert 'On optax main at 2edbcbe2 with jax 0.10.2' in text
  assert 'E   AssertionError: 1.0' in text and '/w/before' not in text
  assert ('The test `test_doubles` goes to `ScaleTest` in '
          '`optax/module_test.py`.') in text
  # pytest's counts of test cases, on each side; a new file is said to be.
  flat = ' '.join(text.split())
  assert ('The test files that exercise the changed code, '
          '`optax/module_test.py`, `optax/new_test.py`, ran 7 tests on main '
          'at 2edbcbe2 (5 passed, 1 failed, 1 skipped); `optax/new_test.py` '
          'did not exist, and 11 tests with this change (9 passed, 1 failed, '
          '1 skipped; 4 cases added here, 4 passing).') in flat
  assert 'passes as before' not in flat
  assert ('pylint, ruff with `pyproject.toml` and the workflow\'s options, '
          'and the whitespace hooks of pre-commit) report 3 messages, none '
          'new (3 without the change)') in flat
  assert '2 documented functions' in flat and '11 examples with 0' in flat
  assert '- "Fix base": it reads the base' in text
  assert ('- [#12](https://github.com/google-deepmind/optax/issues/12) '
          '(issue): the report') in text
  assert ('- [#13](https://github.com/google-deepmind/optax/pull/13) '
          '(pull request)') in text
  assert '## Open pull requests for the same change' in text
  assert ('- [#14](https://github.com/google-deepmind/optax/pull/14) came '
          'first and makes the same change, so please review it first. How '
          'this one differs: it has no jit test.') in flat
  assert 'fork' not in text.lower()
  plain = up.parse(fixtures.patch_table())
  assert 'Open pull requests' not in upstream_pr.body(
      plain, {'scale-doubles': plain}, result(), 'main', '0.10.2', tree,
      pathlib.Path('/w/before'))


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


AUTHOR = ('Ada Lovelace', 'ada@lovelace.name')


def _checkout(tmp_path, monkeypatch) -> pathlib.Path:
  """A git checkout of the made-up tree, the reproducers' repo in place."""
  tree = fixtures.make_tree(tmp_path / 'up')
  repo = fixtures.make_repo(tmp_path / 'repo')
  monkeypatch.setattr(up, 'REPO', repo)
  _git(tree, 'init', '-q')
  _git(tree, 'add', '.')
  _git(tree, 'commit', '-q', '-m', 'upstream')
  return tree


def test_make_branch_commits_each_patch(tmp_path, monkeypatch):
  tree = _checkout(tmp_path, monkeypatch)
  table = fixtures.patch_table(message='Scale by two, as documented.')
  patches = {'scale-doubles': up.parse(table)}
  made = upstream_pr.make_branch(tree, 'fix-scale', patches,
                                 'scale-doubles', AUTHOR)
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
  # The author and committer given, not git's configuration (t <t@t>).
  assert _git(tree, 'log', '-1', '--format=%an <%ae>|%cn <%ce>',
              'fix-scale').strip() == (
                  'Ada Lovelace <ada@lovelace.name>|'
                  'Ada Lovelace <ada@lovelace.name>')
  changed = _git(tree, 'show', '--name-only', '--format=', 'fix-scale')
  assert changed.split() == ['optax/module.py', 'optax/module_test.py']
  # A second branch starts from the same commit, not from the first one.
  upstream_pr.make_branch(tree, 'fix-scale-2', patches, 'scale-doubles',
                          AUTHOR)
  assert _git(tree, 'rev-parse', 'fix-scale-2~1') == _git(
      tree, 'rev-parse', start)
  with pytest.raises(SystemExit, match='exists already'):
    upstream_pr.make_branch(tree, 'fix-scale', patches, 'scale-doubles',
                            AUTHOR)
  with pytest.raises(SystemExit, match='not a valid branch name'):
    upstream_pr.make_branch(tree, 'fix..scale', patches, 'scale-doubles',
                            AUTHOR)
  with pytest.raises(SystemExit, match='not one'):
    upstream_pr.make_branch(tree / 'optax', 'x', patches, 'scale-doubles',
                            AUTHOR)


def test_untracked_files_under_optax_are_refused(tmp_path, monkeypatch):
  tree = _checkout(tmp_path, monkeypatch)
  patches = {'scale-doubles': up.parse(fixtures.patch_table())}
  (tree / 'optax' / 'TODO.txt').write_text('scratch\n')
  with pytest.raises(SystemExit, match=r'untracked files under optax/ '
                     r'\(optax/TODO.txt\)'):
    upstream_pr.check_checkout(tree, 'fix-scale')
  with pytest.raises(SystemExit, match='untracked'):
    upstream_pr.make_branch(tree, 'fix-scale', patches, 'scale-doubles',
                            AUTHOR)
  assert 'fix-scale' not in _git(tree, 'branch', '--list')
  # Outside optax/ an untracked file is no part of a branch's commits.
  (tree / 'optax' / 'TODO.txt').unlink()
  (tree / 'notes.txt').write_text('scratch\n')
  upstream_pr.make_branch(tree, 'fix-scale', patches, 'scale-doubles',
                          AUTHOR)
  assert 'notes.txt' not in _git(tree, 'show', '--name-only', '--format=',
                                 'fix-scale')
  (tree / 'optax' / 'module.py').write_text('changed\n')
  with pytest.raises(SystemExit, match='uncommitted changes'):
    upstream_pr.check_checkout(tree, 'fix-other')


def test_main_refuses_the_checkout_before_verifying(tmp_path, monkeypatch):
  tree = _checkout(tmp_path, monkeypatch)
  patches = tmp_path / 'patches'
  patches.mkdir()
  (patches / 'scale-doubles.toml').write_text(
      up.dumps(up.parse(fixtures.patch_table())))
  ledger = tmp_path / 'ledger.toml'
  monkeypatch.setattr(ledger_lib, 'load', lambda path: [fix('scale-doubles')])

  def never(*args, **kwargs):
    raise AssertionError('verified before the checkout was checked')

  monkeypatch.setattr(lane, 'check_patch', never)
  _git(tree, 'branch', 'fix-scale')
  argv = ['scale-doubles', '--upstream-tree', str(tree), '--ledger',
          str(ledger), '--patches', str(patches), '--branch', 'fix-scale',
          '--author', 'Ada Lovelace <ada@lovelace.name>']
  with pytest.raises(SystemExit, match='exists already'):
    upstream_pr.main(argv)
  monkeypatch.delenv('GIT_AUTHOR_NAME', raising=False)
  monkeypatch.delenv('GIT_AUTHOR_EMAIL', raising=False)
  with pytest.raises(SystemExit, match='needs the author'):
    upstream_pr.main(argv[:-2])


@pytest.mark.parametrize('author', [
    't <t@t>', 'a <a@a>', 'Your Name <you@example.com>',
    'Jo Bloggs <jo@localhost>', 'Jo Bloggs', 'Jo <jo@host.example>',
    'Jo Bloggs <jo@machine.local>'])
def test_placeholder_authors_are_refused(author):
  with pytest.raises(SystemExit):
    upstream_pr.parse_author(author)


def test_the_author_comes_from_the_option_or_the_environment():
  assert upstream_pr.resolve_author('Ada Lovelace <ada@lovelace.name>',
                                    {}) == AUTHOR
  env = {'GIT_AUTHOR_NAME': 'Ada Lovelace',
         'GIT_AUTHOR_EMAIL': 'ada@lovelace.name'}
  assert upstream_pr.resolve_author(None, env) == AUTHOR
  with pytest.raises(SystemExit, match='needs the author'):
    upstream_pr.resolve_author(None, {'GIT_AUTHOR_NAME': 'Ada Lovelace'})


def test_commit_message_has_a_wrapped_body():
  description = ('Scaling by `step_size` happens twice in `scale`, so the '
                 'update is the gradient times its square.\n\n'
                 '    E   AssertionError\n\n'
                 'A paragraph on the cause.\n\n'
                 'This patch drops the second product, so that the update '
                 'is `step_size * g` as the docstring says.\n')
  patch = up.parse(fixtures.patch_table(description=description))
  message = upstream_pr.commit_message(patch)
  subject, blank, *body = message.split('\n')
  assert subject == 'Fix scale.' and blank == ''
  assert all(len(line) <= 72 for line in body)
  assert ' '.join(' '.join(body).split()) == (
      'Scaling by `step_size` happens twice in `scale`, so the update is '
      'the gradient times its square. This patch drops the second product, '
      'so that the update is `step_size * g` as the docstring says.')
  given = up.parse(fixtures.patch_table(message='Given body.'))
  assert upstream_pr.commit_message(given) == 'Fix scale.\n\nGiven body.'


def test_every_option_has_help():
  for module in (upstream_pr, lane):
    parser_help = subprocess.run(
        [sys.executable, '-m', module.__name__, '--help'],
        capture_output=True, text=True, check=True,
        cwd=pathlib.Path(lane.__file__).parent.parent).stdout
    options = re.findall(r'^  (-[-\w]+)(.*)$', parser_help, re.M)
    assert options
    for option, rest in options:
      described = rest.strip() and not rest.strip().isupper()
      # The text may start on the next line when the option is long.
      following = parser_help.split(option + rest, 1)[1].split('\n')[1]
      assert described or following.startswith(' ' * 10), option


def _ci_tree(root: pathlib.Path) -> pathlib.Path:
  """An upstream-like tree with code reaching a helper, tests and docs."""
  files = {
      'optax/__init__.py': 'from optax._src.alias import adam as adam\n',
      'optax/_src/__init__.py': '',
      'optax/_src/moments.py': textwrap.dedent('''\
          """Moments."""


          def update_moment(g, m, decay):
            """An average.

            >>> print(update_moment(1.0, 0.0, 0.5))
            0.5
            """
            return (1 - decay) * g + decay * m


          def unrelated():
            return 0
          '''),
      'optax/_src/transform.py': textwrap.dedent('''\
          """Transforms."""
          from optax._src import moments


          def scale_by_adam(b1):
            return lambda g, m: moments.update_moment(g, m, b1)
          '''),
      'optax/_src/alias.py': textwrap.dedent('''\
          """Aliases."""
          from optax._src import transform

          adam_like = transform.scale_by_adam


          def adam(b1=0.5):
            """Adam.

            >>> import optax
            >>> print(optax.adam()(2.0, 0.0))
            1.0
            """
            return transform.scale_by_adam(b1)


          def sgd():
            """SGD.

            >>> print(1 + 1)
            2
            """
            return None
          '''),
      'optax/_src/alias_test.py': 'import optax\n\noptax.adam()\n',
      'optax/_src/other_test.py': 'from optax._src import alias\n'
                                  'alias.sgd()\n',
      'optax/contrib/_common_test.py': "NAMES = ['adam_like']\n",
      'docs/api.rst': '.. autofunction:: adam\n.. autofunction:: sgd\n',
      'docs/conf.py': "doctest_global_setup = '''\nimport optax\n'''\n",
  }
  for name, text in files.items():
    (root / name).parent.mkdir(parents=True, exist_ok=True)
    (root / name).write_text(text)
  return root


def _moment_patch(text: str = '  return (1 - decay) * g + decay * m\n'):
  table = fixtures.patch_table(edit=[{
          'file': 'optax/_src/moments.py', 'scope': 'update_moment',
          'line': 8, 'replaced': 1,
          'sha256': up.digest(['  return (1 - decay) * g + decay * m']),
          'text': text}])
  del table['test']
  return up.parse(table)


def test_the_test_files_and_examples_that_reach_a_changed_function(tmp_path):
  tree = _ci_tree(tmp_path / 'up')
  patch = _moment_patch()
  names = lane.changed_names([patch])
  assert names == {'update_moment'}
  reached = lane.reaching_names(tree, names)
  # Through scale_by_adam to adam, its alias in __init__ and adam_like; not
  # sgd or unrelated.
  assert reached == {'update_moment', 'scale_by_adam', 'adam', 'adam_like'}
  assert lane.exercising_test_files(tree, reached) == [
      'optax/_src/alias_test.py', 'optax/contrib/_common_test.py']
  # Only documented definitions with examples: adam (update_moment is not in
  # the docs, scale_by_adam has no example).
  assert lane.documented_objects(tree, reached) == [('optax._src.alias',
                                                     'adam')]
  created = dict(fixtures.patch_table(edit=[
      {'file': 'optax/_src/new.py', 'create': True,
       'text': 'def fresh():\n  return 1\n\nCONSTANT = 2\n'}]))
  del created['test']
  created = up.parse(created)
  assert lane.changed_names([created]) == {'fresh', 'CONSTANT'}


def test_docstring_examples_run_as_sphinx_doctest_runs_them(tmp_path):
  tree = _ci_tree(tmp_path / 'up')
  objects = [('optax._src.alias', 'adam'), ('optax._src.alias', 'sgd')]
  assert lane.doctest_setup(tree) == '\nimport optax\n'
  out = lane.run_doctests(tree, objects, sys.executable, tmp_path / 'w',
                          'pristine')
  assert {k: (v['examples'], v['failed']) for k, v in out.items()} == {
      'optax._src.alias.adam': (2, 0), 'optax._src.alias.sgd': (1, 0)}
  # A change of the numbers fails the example that prints them.
  moments = tree / 'optax' / '_src' / 'moments.py'
  moments.write_text(moments.read_text().replace(
      'return (1 - decay) * g', 'return (1 - decay) * g * 2'))
  out = lane.run_doctests(tree, objects, sys.executable, tmp_path / 'w',
                          'patched')
  assert out['optax._src.alias.adam']['failed'] == 1
  assert 'Expected:\n    1.0\nGot:\n    2.0' in out[
      'optax._src.alias.adam']['text']
  assert out['optax._src.alias.sgd']['failed'] == 0


def test_lint_counts_messages_and_only_new_ones_fail(tmp_path):
  tree = _ci_tree(tmp_path / 'up')
  name = 'optax/_src/moments.py'
  before = lane.lint_messages(tree, [name, 'optax/gone.py'], sys.executable,
                              [])
  assert not before
  (tree / name).write_text((tree / name).read_text() + 'x = 1  \n\n')
  after = lane.lint_messages(tree, [name], sys.executable, [])
  assert after == {f'pre-commit {name}: trailing-whitespace': 1,
                   f'pre-commit {name}: end-of-file-fixer': 1}
  assert lane.new_messages(before, after) == sorted(after)
  assert lane.new_messages(after, after) == []
  twice = after + after
  assert lane.new_messages(after, twice) == sorted(after)
  assert lane.new_messages(before, twice) == [f'{k} (x2)'
                                              for k in sorted(after)]
  assert set(lane.available_linters(sys.executable)) <= set(lane.LINTERS)


def test_branches_are_merged_pairwise(tmp_path, monkeypatch):
  tree = fixtures.make_tree(tmp_path / 'up')
  module_test = tree / 'optax' / 'module_test.py'
  module_test.write_text(module_test.read_text().replace(
      '    self.assertEqual(module.other(), 1)\n',
      '    self.assertEqual(module.other(), 1)\n\n'
      '  def test_last(self):\n    pass\n'))
  repo = fixtures.make_repo(tmp_path / 'repo')
  monkeypatch.setattr(up, 'REPO', repo)
  source = repo / 'upstream_tests' / 'scale_doubles_test.py'
  (repo / 'upstream_tests' / 'other_test.py').write_text(
      source.read_text().replace('test_doubles', 'test_other'))
  test = {'source': 'upstream_tests/scale_doubles_test.py',
          'into': 'optax/module_test.py', 'class': 'ScaleTest'}
  other_test = dict(test, source='upstream_tests/other_test.py')

  def other(value):
    return [{'file': 'optax/module.py', 'scope': 'other', 'line': 2,
             'replaced': 1, 'sha256': up.digest(['  return 1']),
             'text': f'  return {value}\n'}]

  patches = {
      'a-fix': up.parse(fixtures.patch_table(fix='a-fix', test=test)),
      'b-fix': up.parse(fixtures.patch_table(fix='b-fix', test=other_test,
                                             edit=other(2))),
      'c-fix': up.parse(fixtures.patch_table(
          fix='c-fix', edit=other(3), test=dict(test, after='test_scale'))),
  }
  pairs, conflicts = lane.merge_conflicts(patches, list(patches), tree,
                                          tmp_path / 'w')
  # a and b put their tests at the end of the class: a conflict; c puts
  # its test after test_scale, but changes the line b changes.
  assert pairs == 3
  assert conflicts == [
      'a-fix + b-fix: optax/module_test.py (1 conflicting hunk(s))',
      'b-fix + c-fix: optax/module.py (1 conflicting hunk(s))']


def test_a_lane_result_is_reused_only_for_the_same_patch(tmp_path,
                                                         monkeypatch):
  repo = fixtures.make_repo(tmp_path / 'repo')
  monkeypatch.setattr(up, 'REPO', repo)
  patches = {'scale-doubles': up.parse(fixtures.patch_table())}
  digest = lane.patch_digest(patches, 'scale-doubles')
  saved = result(digest=digest)
  path = tmp_path / 'lane.json'
  path.write_text(json.dumps({'label': 'main@2edbcbe2390d',
                              'patches': [saved.as_json()]}))
  again = upstream_pr.lane_result(path, 'scale-doubles', patches,
                                  'main@2edbcbe2')
  assert again == saved
  with pytest.raises(SystemExit, match='not main@1234567'):
    upstream_pr.lane_result(path, 'scale-doubles', patches, 'main@1234567')
  with pytest.raises(SystemExit, match='no result of other'):
    upstream_pr.lane_result(path, 'other', patches, 'main@2edbcbe2')
  # The reproducer changed since: verify again.
  source = repo / 'upstream_tests' / 'scale_doubles_test.py'
  source.write_text(source.read_text() + '# changed\n')
  assert lane.patch_digest(patches, 'scale-doubles') != digest
  with pytest.raises(SystemExit, match='changed since'):
    upstream_pr.lane_result(path, 'scale-doubles', patches, 'main@2edbcbe2')
  source.write_text(source.read_text().replace('# changed\n', ''))
  path.write_text(json.dumps({'label': 'main@2edbcbe2', 'patches': [
      result(digest=digest, ci={}).as_json()]}))
  with pytest.raises(SystemExit, match='without all of upstream'):
    upstream_pr.lane_result(path, 'scale-doubles', patches, 'main@2edbcbe2')


def test_reproducers_only_runs_the_placed_tests_and_no_other(tmp_path,
                                                             monkeypatch):
  tree = fixtures.make_tree(tmp_path / 'up')
  repo = fixtures.make_repo(tmp_path / 'repo')
  monkeypatch.setattr(up, 'REPO', repo)
  # The module's test file has a test that fails on either tree, and another
  # file reaches scale() and fails too: neither runs without touched files.
  (tree / TEST).write_text((tree / TEST).read_text().replace(
      'from pkg import', 'from optax import').replace(
          '    self.assertEqual(module.other(), 1)\n',
          '    self.assertEqual(module.other(), 1)\n\n'
          '  def test_broken(self):\n    self.fail()\n'))
  (tree / 'optax' / 'reach_test.py').write_text(textwrap.dedent('''\
      from absl.testing import absltest
      from optax import module


      class ReachTest(absltest.TestCase):

        def test_scale(self):
          self.assertEqual(module.scale(1.0)(3.0, None)[0], -1.0)
      '''))
  # Doubled by the patch: 2 * 2 = 4 with it, 2 without.
  (repo / 'upstream_tests' / 'scale_doubles_test.py').write_text(
      fixtures.REPRODUCER.replace('from pkg import', 'from optax import')
      .replace('[0], 2.0)', '[0], 4.0)'))
  patches = {'scale-doubles': up.parse(fixtures.patch_table())}
  got = lane.check_patch('scale-doubles', patches, tree, sys.executable,
                         tmp_path / 'work', ci=False, touched=False)
  assert got.problems == []
  assert got.files == [TEST]
  assert got.before == {PLACED: 'failed'}
  assert got.after == {PLACED: 'passed'}
  assert got.counts['after_passed'] == 1
  assert got.counts['after_failed'] == 0
  assert 'before_passed' in got.counts and got.counts['before_passed'] == 0
  assert got.regressions == []
