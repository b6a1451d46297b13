# Copyright 2026 The Optax fork authors. All Rights Reserved.
# Licensed under the Apache License, Version 2.0.
"""Tests of tools/upstream_status.py (upstream_pr.py: patch_lane_test.py).

Fake ledgers and fake pytest records: no network, and only the last test
starts pytest (against a fake upstream tree).
"""

import json
import pathlib
import subprocess
import sys
import textwrap

import pytest

from tools import toolpath
from tools import upstream_status as us

LEDGER = textwrap.dedent('''\
    [[fix]]
    id = "a"
    title = "A is fixed"
    upstream_refs = ["#1"]
    reproducer = "upstream_tests/a_test.py"
    effect = """A breaks."""
    upstream_change = """Change A."""
    upstream_position = """Open."""
    [fix.status]
    "0.2.8" = "needed"
    "main@11111111" = "needed"
    "main@22222222" = "absorbed in 2222222"

    [[fix]]
    id = "b"
    reproducer = "upstream_tests/b_test.py::BTest::test_b"
    upstream_refs = []
    [fix.status]
    "0.2.8" = "needed"
    ''')


def _ledger(tmp_path, text=LEDGER):
  path = tmp_path / 'ledger.toml'
  path.write_text(text)
  return path


def _fix(status, reproducer='upstream_tests/a_test.py'):
  return us.Fix(id='x', title='', refs=('#9',), reproducer=reproducer,
                status=status, table={})


def test_load_ledger(tmp_path):
  a, b = us.load_ledger(_ledger(tmp_path))
  assert (a.id, a.refs, a.file) == ('a', ('#1',), 'upstream_tests/a_test.py')
  assert list(a.status) == ['0.2.8', 'main@11111111', 'main@22222222']
  assert b.file == 'upstream_tests/b_test.py'
  assert b.reproducer == 'upstream_tests/b_test.py::BTest::test_b'


@pytest.mark.parametrize('text,match', [
    ('[[fix]]\ntitle = "x"\n', 'has no id'),
    ('[[fix]]\nid = "a"\n[[fix]]\nid = "a"\n', 'used twice'),
    ('[[fix]]\nid = "a"\nupstream_refs = "#1"\n', 'must be a list'),
])
def test_load_ledger_rejects(tmp_path, text, match):
  with pytest.raises(ValueError, match=match):
    us.load_ledger(_ledger(tmp_path, text))


@pytest.mark.parametrize('status,expected', [
    ('needed', 'needed'), ('absorbed', 'absorbed'),
    ('absorbed in 6049ac3d', 'absorbed'), ('Absorbed in a, b', 'absorbed'),
])
def test_expectation(status, expected):
  assert us.expectation(status) == expected


def test_expectation_rejects_other_words():
  with pytest.raises(ValueError, match='unreadable status'):
    us.expectation('fixed upstream')


def test_labels():
  assert us.same_label('main@2edbcbe2', 'main@2edbcbe2c0ffee')
  assert not us.same_label('main@2edbcbe2', 'main@2edbcbe3')
  assert not us.same_label('0.2.8', 'main@2edbcbe2')
  assert us.same_label('0.2.8', '0.2.8')
  assert us.main_commit('main@abc') == 'abc'
  assert us.main_commit('0.2.8') is None
  assert us.label_for_tree(pathlib.Path('/nowhere'), '2edbcbe2') == (
      'main@2edbcbe2')
  assert us.label_for_tree(pathlib.Path('/nowhere'), 'main@x') == 'main@x'


def test_label_for_tree_of_an_export_is_main(tmp_path, capsys):
  assert us.label_for_tree(tmp_path, None) == 'main'
  assert '--upstream-label' in capsys.readouterr().err


def test_label_for_tree_from_git(tmp_path):
  tree = tmp_path / 'tree'
  (tree / 'optax').mkdir(parents=True)
  (tree / 'optax' / '__init__.py').write_text('')
  git = ['git', '-c', 'user.name=t', '-c', 'user.email=t@t', '-C', str(tree)]
  subprocess.run(git + ['init', '-q'], check=True)
  subprocess.run(git + ['add', '.'], check=True)
  subprocess.run(git + ['commit', '-q', '-m', 'x'], check=True)
  head = subprocess.run(git + ['rev-parse', 'HEAD'], check=True,
                        capture_output=True, text=True).stdout.strip()
  assert us.label_for_tree(tree, None) == f'main@{head[:8]}'
  # A folder inside a checkout is not one: its HEAD is another tree's.
  assert us.label_for_tree(tree / 'optax', None) == 'main'
  assert us.git_head(tree).startswith(head[:8])
  assert us.git_head(tree / 'optax') is None


def test_status_for():
  fix = _fix({'0.2.8': 'needed', 'main@11111111': 'needed',
              'main@22222222': 'absorbed'})
  assert us.status_for(fix, '0.2.8') == ('0.2.8', True)
  assert us.status_for(fix, 'main@1111111') == ('main@11111111', True)
  # Main moved on: the last main key listed is the newest.
  assert us.status_for(fix, 'main@33333333') == ('main@22222222', False)
  assert us.status_for(fix, '0.2.9') == (None, False)
  assert us.status_for(_fix({'0.2.8': 'needed'}), 'main@3') == (None, False)


def _record(tests=None, collect_errors=None):
  return {'meta': {}, 'tests': tests or {},
          'collect_errors': collect_errors or {}}


def _t(outcome, crash=''):
  return {'outcome': outcome, 'crash': crash, 'text': ''}


def test_select():
  record = _record({
      'u/a_test.py::test_one': _t('passed'),
      'u/a_test.py::test_two[x]': _t('failed', 'assert 1 == 2'),
      'u/a_test.py::test_two[y]': _t('passed'),
      'u/a_test.py::ATest::test_p0': _t('passed'),
      'u/a_test.py::ATest::test_p1': _t('passed'),
      'u/a_test.py::ATest::test_p_more': _t('failed'),
      'u/s_test.py::test_s': _t('skipped', 'no GPU'),
  })
  assert us.select('u/a_test.py', record) == us.Outcome(
      'failed', 'assert 1 == 2')
  assert us.select('u/a_test.py::test_one', record).outcome == 'passed'
  assert us.select('u/a_test.py::test_two', record).outcome == 'failed'
  # absltest's numbered variants belong to the test; test_p_more does not.
  assert us.select('u/a_test.py::ATest::test_p', record).outcome == 'passed'
  assert us.select('u/a_test.py::test_on', record).outcome == 'missing'
  assert us.select('u/b_test.py', record).outcome == 'missing'
  assert us.select('u/s_test.py', record) == us.Outcome('skipped', 'no GPU')


def test_select_collection_errors():
  record = _record({'u/a_test.py::test_one': _t('passed')},
                   {'u/b_test.py': _t('failed', 'ImportError: no x')})
  assert us.select('u/b_test.py', record) == us.Outcome(
      'failed', 'ImportError: no x')
  assert us.select('u/b_test.py::BTest::test', record).outcome == 'failed'
  assert us.select('u/a_test.py', record).outcome == 'passed'


PASS, FAIL = us.Outcome('passed'), us.Outcome('failed', 'assert x')
SKIP, MISSING = us.Outcome('skipped', 'no GPU'), us.Outcome('missing')
STATUS = {'0.2.8': 'needed', 'main@11111111': 'needed',
          'main@22222222': 'absorbed in 2222'}


@pytest.mark.parametrize('label,upstream,fork,problem', [
    ('0.2.8', FAIL, PASS, None),
    ('main@22222222', PASS, PASS, None),
    ('main@33333333', PASS, PASS, None),
    ('0.2.8', PASS, PASS, 'passes on 0.2.8, the ledger says'),
    ('main@22222222', FAIL, PASS, 'fails on main@22222222'),
    ('main@33333333', FAIL, PASS, 'NEEDED AGAIN on main@33333333'),
    ('0.2.8', FAIL, FAIL, 'fails on the fork'),
    ('0.2.8', MISSING, MISSING, 'not found'),
    ('0.2.9', FAIL, PASS, 'no status for upstream 0.2.9'),
])
def test_classify(label, upstream, fork, problem):
  row = us.classify(_fix(STATUS), upstream, fork, label)
  if problem is None:
    assert not row.problems
  else:
    assert len(row.problems) == 1 and problem in row.problems[0]


def test_classify_main_moved_on():
  fix = _fix({'0.2.8': 'needed', 'main@11111111': 'needed'})
  row = us.classify(fix, PASS, PASS, 'main@33333333')
  assert row.status_key == 'main@11111111' and row.expected == 'needed'
  assert len(row.problems) == 1
  assert row.problems[0].startswith('NEWLY ABSORBED on main@33333333')
  row = us.classify(fix, FAIL, PASS, 'main@33333333')
  assert not row.problems and "main@11111111's holds" in row.notes[0]


def test_classify_skips_are_noted_not_failed():
  row = us.classify(_fix(STATUS), SKIP, SKIP, '0.2.8')
  assert not row.problems and len(row.notes) == 2
  row = us.classify(_fix(STATUS, reproducer=''), MISSING, MISSING, '0.2.8')
  assert row.problems == ['the ledger names no reproducer']


def test_evaluate_and_table(tmp_path):
  fixes = us.load_ledger(_ledger(tmp_path))
  upstream = _record({'upstream_tests/a_test.py::test_a': _t('passed'),
                      'upstream_tests/b_test.py::BTest::test_b': _t('failed')})
  fork = _record({'upstream_tests/a_test.py::test_a': _t('passed'),
                  'upstream_tests/b_test.py::BTest::test_b': _t('passed')})
  rows = us.evaluate(fixes, upstream, fork, 'main@44444444')
  assert [bool(r.problems) for r in rows] == [False, True]
  text = us.table(rows, 'main@44444444')
  assert 'absorbed in 2222222 (main@22222222)' in text
  assert 'FAIL b: the ledger gives no status for upstream main@44444444' in (
      text)
  data = json.loads(json.dumps([r.as_json() for r in rows]))
  assert data[0]['ledger_status_key'] == 'main@22222222'
  assert data[1]['upstream']['outcome'] == 'failed'


def test_finish_checks_where_optax_came_from(tmp_path):
  side = us.Side('upstream', sys.executable, inside=tmp_path / 'tree')
  (tmp_path / 'upstream').mkdir()
  record = _record()
  record['meta'] = {'optax_file': str(tmp_path / 'site' / 'optax.py'),
                    'error': ''}
  (tmp_path / 'upstream' / 'record.json').write_text(json.dumps(record))
  proc = subprocess.Popen([sys.executable, '-c', 'pass'], text=True,
                          stdout=subprocess.PIPE)
  with pytest.raises(SystemExit, match='not from'):
    us.finish(side, proc, tmp_path)


FAKE_OPTAX = '__version__ = "9.9.dev"\n'
REPRODUCERS = {
    'a_test.py': 'import optax\n\n\ndef test_a():\n'
                 '  assert hasattr(optax, "__version__")\n',
    'b_test.py': 'import unittest\nimport optax\n\n\n'
                 'class BTest(unittest.TestCase):\n\n  def test_b(self):\n'
                 '    assert callable(optax.sgd)\n',
}


def test_end_to_end_against_a_fake_tree(tmp_path):
  # The fake upstream has no sgd: b is needed, a absorbed (as on main@2222).
  tree = tmp_path / 'tree'
  (tree / 'optax').mkdir(parents=True)
  (tree / 'optax' / '__init__.py').write_text(FAKE_OPTAX)
  repo = tmp_path / 'repo'
  (repo / 'upstream_tests').mkdir(parents=True)
  for name, text in REPRODUCERS.items():
    (repo / 'upstream_tests' / name).write_text(text)
  ledger = _ledger(repo, LEDGER + '"main@22222222" = "needed"\n')
  # As the lanes run it: from outside the repository, with only tools on
  # PYTHONPATH (the fork side imports this interpreter's optax).
  proc = subprocess.run(
      [sys.executable, '-m', 'tools.upstream_status', '--ledger', str(ledger),
       '--json', '--upstream-tree', str(tree), '--upstream-label',
       '2222222299'],
      cwd=tmp_path, env=toolpath.env(tmp_path / 'toolpath'),
      capture_output=True, text=True, check=False)
  assert proc.returncode == 0, proc.stdout + proc.stderr
  report = json.loads(proc.stdout)
  assert report['upstream']['label'] == 'main@2222222299'
  assert report['upstream']['optax_file'] == str(
      tree / 'optax' / '__init__.py')
  outcomes = {f['id']: (f['upstream']['outcome'], f['fork']['outcome'])
              for f in report['fixes']}
  assert outcomes == {'a': ('passed', 'passed'), 'b': ('failed', 'passed')}
  assert "has no attribute 'sgd'" in report['fixes'][1]['upstream']['crash']


def test_the_fork_side_keeps_the_callers_pythonpath():
  environ = {'PYTHONPATH': '/src/fork', 'HOME': '/h'}
  fork = us.side_env(us.Side('fork', 'python'), environ)
  assert fork == environ
  upstream = us.side_env(us.Side('upstream', 'python', '/up'), environ)
  assert upstream == {'PYTHONPATH': '/up', 'HOME': '/h'}
  installed = us.side_env(us.Side('upstream', 'python'), environ)
  assert installed == {'HOME': '/h'}
