# Copyright 2026 The Optax fork authors. All Rights Reserved.
# Licensed under the Apache License, Version 2.0.
"""Tests of tools/triage.py.

Fake triage files, fake ledgers and fake outcomes; the only processes
started run tiny snippets with this interpreter (no optax imported).
"""

import json
import sys
import textwrap

import pytest

from tools import triage

URL = 'https://github.com/google-deepmind/optax/'
MAIN = 'main@2edbcbe2'

TRIAGE = textwrap.dedent(f'''\
    # A comment.

    [[entry]]
    ref = "#1"
    kind = "pull"
    url = "{URL}pull/1"
    title = "Fix the thing"
    claim = """The thing
    is wrong."""
    since = 2026-07-12
    verdict = "fix"
    ledger = "thing-fixed"
    pending = true
    repro = \'\'\'
    assert 1 + 1 == 2
    \'\'\'
    reproduced = {{ "0.2.8" = true, "{MAIN}" = true }}

    [[entry]]
    ref = "#2"
    kind = "issue"
    url = "{URL}issues/2"
    title = "Docs typo"
    claim = "A typo."
    since = "2025-01-02"
    verdict = "out-of-scope"
    reason = "Docs only."

    [[entry]]
    ref = "#3"
    kind = "issue"
    url = "{URL}issues/3"
    title = "Fixed on main"
    claim = "It was wrong."
    since = 2025-03-04
    verdict = "absorbed"
    commit = "c902205c"
    repro = "pass"
    reproduced = {{ "0.2.8" = false, "{MAIN}" = false }}
    ''')


def _write(tmp_path, text=TRIAGE, name='upstream_triage.toml'):
  path = tmp_path / name
  path.write_text(text)
  return path


def _table(**fields):
  """A valid raw [[entry]] table, with ``fields`` replacing its values."""
  table = {'ref': '#9', 'kind': 'pull', 'url': f'{URL}pull/9',
           'title': 't', 'claim': 'c', 'since': '2026-01-01',
           'verdict': 'fix', 'ledger': 'a-fix', 'repro': 'pass',
           'reproduced': {'0.2.8': True, MAIN: True}}
  table.update(fields)
  return {k: v for k, v in table.items() if v is not None}


def _found(**fields):
  """A valid found-here table, with ``fields`` replacing its values."""
  base = dict(ref='found:a-fix', kind='found-here', url=None,
              searched='"a-fix NaN", "a-fix overflow": nothing')
  base.update(fields)
  return _table(**base)


def _entry(**fields):
  return triage.entries_from({'entry': [_table(**fields)]})[0]


def test_load(tmp_path):
  one, two, three = triage.load(_write(tmp_path))
  assert (one.ref, one.number, one.kind, one.verdict) == ('#1', 1, 'pull',
                                                          'fix')
  assert one.claim == 'The thing is wrong.'
  assert one.since == '2026-07-12' and two.since == '2025-01-02'
  assert one.pending and one.ledger == 'thing-fixed'
  assert one.repro.strip() == 'assert 1 + 1 == 2'
  assert dict(one.reproduced) == {'0.2.8': True, MAIN: True}
  assert two.repro is None and two.reason == 'Docs only.'
  assert two.url.endswith('/issues/2')
  assert three.commit == 'c902205c' and not three.pending


def test_the_repository_file_is_valid():
  entries = triage.load()
  assert entries
  found = triage.counts(entries)
  assert sum(found.values()) == len(entries)


@pytest.mark.parametrize('fields,match', [
    (dict(ref='1725'), 'ref must be like'),
    (dict(kind='pr'), 'kind must be one of'),
    (dict(url=f'{URL}issues/9'), 'url must be'),
    (dict(since='July 2026'), 'since must be a date'),
    (dict(verdict='wontfix'), 'verdict must be one of'),
    (dict(title=' '), 'title is empty'),
    (dict(colour='red'), "unknown field 'colour'"),
    (dict(claim=None), "missing field 'claim'"),
    (dict(reproduced={'0.2.8': 'yes'}), 'must be true or false'),
    (dict(reproduced={'main': True}), 'reproduced keys must be'),
    (dict(reproduced=None), 'needs a reproduced table'),
    (dict(repro=None, reproduced=None), 'a fix entry needs a repro'),
    (dict(ledger=None), 'needs the ledger id'),
    (dict(ledger='Not_Kebab'), 'kebab-case'),
    (dict(reproduced={'0.2.8': False}), 'must have reproduced the bug'),
    (dict(verdict='absorbed', ledger=None), 'needs the upstream commit'),
    (dict(verdict='absorbed', ledger=None, commit='zzz'),
     'commit must be a hash'),
    (dict(verdict='absorbed', ledger=None, commit='abcdef12'),
     'absorbed, yet reproduced on main@2edbcbe2'),
    (dict(verdict='not-a-bug', ledger=None, reason='r'),
     'not-a-bug, yet its snippet'),
    (dict(verdict='not-a-bug', ledger=None,
          reproduced={'0.2.8': False}), 'needs a reason'),
    (dict(verdict='out-of-scope'), 'ledger belongs to fix'),
    (dict(verdict='out-of-scope', ledger=None, reason='r', pending=True),
     'pending belongs to fix'),
    (dict(commit='abcdef12'), 'commit belongs to absorbed'),
    (dict(verdict='out-of-scope', ledger=None, repro=None, reproduced=None),
     'reason must say why'),
])
def test_entry_problems(fields, match):
  problems = triage.entry_problems(_table(**fields), '[[entry]] #1')
  assert any(match in p for p in problems), problems


@pytest.mark.parametrize('fields,match', [
    (dict(ref='#9'), 'ref must be like "found:<ledger id>"'),
    (dict(ref='found:Not_Kebab'), 'ref must be like "found:<ledger id>"'),
    (dict(ref='found:other-fix'), "ref must be 'found:a-fix'"),
    (dict(url=f'{URL}pull/9'), 'no url'),
    (dict(searched=None), 'needs searched'),
    (dict(searched=' '), 'searched is empty'),
    (dict(verdict='already-right'), 'verdict must be one of'),
    (dict(verdict='not-a-bug', ledger=None, reason='r',
          reproduced={'0.2.8': False}), 'verdict must be one of'),
    (dict(ledger=None), 'needs the ledger id'),
    (dict(repro=None, reproduced=None), 'a fix entry needs a repro'),
])
def test_found_here_problems(fields, match):
  problems = triage.entry_problems(_found(**fields), '[[entry]] #1')
  assert any(match in p for p in problems), problems


def test_reports_link_their_thread():
  problems = triage.entry_problems(_table(url=None), 'x')
  assert problems == ["#9: missing field 'url' (a pull links its thread)"]
  problems = triage.entry_problems(_table(searched='s'), 'x')
  assert problems == ['#9: searched belongs to found-here entries (an '
                      'upstream pull is its own reference)']
  problems = triage.entry_problems(_table(ref='found:a-fix'), 'x')
  assert problems == ['found:a-fix: ref must be like "#1725" for a pull, '
                      "got 'found:a-fix'"]


def test_found_here_entry():
  assert not triage.entry_problems(_found(), 'x')
  entry = triage.entries_from({'entry': [_found()]})[0]
  assert (entry.kind, entry.url, entry.number, entry.slug) == (
      'found-here', None, None, 'a-fix')
  assert entry.searched.startswith('"a-fix NaN"')
  assert (_entry().number, _entry().slug) == (9, '9')
  found = triage.judge(entry, {'0.2.8': BUG, MAIN: BUG}, OK, {'a-fix'})
  assert not found.problems
  assert found.as_json()['searched'] == entry.searched


def test_select_refs():
  entries = triage.entries_from({'entry': [_table(), _found()]})
  assert [e.ref for e in triage._select(entries, ['9'])] == ['#9']
  assert [e.ref for e in triage._select(entries, ['a-fix', '#9'])] == [
      '#9', 'found:a-fix']
  assert [e.ref for e in triage._select(entries, ['found:a-fix'])] == [
      'found:a-fix']
  with pytest.raises(SystemExit, match=r"no entry \['found:b'\]"):
    triage._select(entries, ['b'])


def test_unnamed_fixes(tmp_path):
  path = _write(tmp_path, '[[fix]]\nid = "a"\nkind = "fix"\n'
                '[[fix]]\nid = "b"\nkind = "fix"\n'
                '[[fix]]\nid = "c"\nkind = "deliberate"\n'
                '[[fix]]\nkind = "fix"\n', name='ledger.toml')
  assert triage.ledger_fix_ids(path) == {'a', 'b'}
  entries = triage.entries_from({'entry': [_table(ledger='b')]})
  assert triage.unnamed_fixes(entries, {'a', 'b'}) == ['a']
  assert triage.unnamed_fixes(entries, {'b'}) == []


def test_every_ledger_fix_has_a_triage_entry():
  # Each fix of an upstream bug names its report, or says that upstream has
  # none (a found-here entry).
  assert not triage.unnamed_fixes(triage.load(), triage.ledger_fix_ids())


def test_valid_tables_have_no_problems():
  assert not triage.entry_problems(_table(), 'x')
  assert not triage.entry_problems(
      _table(verdict='out-of-scope', ledger=None, repro=None,
             reproduced=None, reason='Docs.'), 'x')
  assert not triage.entry_problems(
      _table(verdict='not-a-bug', ledger=None, reason='r',
             reproduced={'0.2.8': False, MAIN: False}), 'x')


def test_validate_whole_file():
  assert triage.validate({}) == ['no [[entry]] tables']
  assert 'unknown top-level table' in triage.validate(
      {'entry': [_table()], 'extra': {}})[0]
  problems = triage.validate({'entry': [_table(), _table()]})
  assert problems == ['#9: listed twice ([[entry]] #1 and #2)']


def test_load_rejects(tmp_path):
  with pytest.raises(triage.TriageError, match='not valid TOML'):
    triage.load(_write(tmp_path, 'entry = [\n'))
  with pytest.raises(triage.TriageError, match='url must be'):
    triage.load(_write(tmp_path, TRIAGE.replace('issues/2', 'pull/2')))


def test_ledger_ids(tmp_path):
  path = _write(tmp_path, '[[fix]]\nid = "a"\n[[fix]]\nid = "b-c"\n'
                '[[fix]]\ntitle = "no id"\n', name='ledger.toml')
  assert triage.ledger_ids(path) == {'a', 'b-c'}


def test_labels():
  assert triage.same_label('main@2edbcbe2', 'main@2edbcbe2390da139')
  assert not triage.same_label('main@2edbcbe2', 'main@2edbcbe3')
  assert not triage.same_label('0.2.8', MAIN)
  entry = _entry(reproduced={'0.2.8': True, 'main@2edbcbe2390d': False})
  assert triage.expected_on(entry, '0.2.8') is True
  assert triage.expected_on(entry, MAIN) is False
  assert triage.expected_on(entry, '0.2.9') is None


BUG = triage.Outcome('failed', 'AssertionError: [nan]')
OK = triage.Outcome('passed')
SLOW = triage.Outcome('timeout', 'after 5 s')


def _problems(entry, upstream, fork, known=('a-fix',), strict=False):
  return triage.judge(entry, upstream, fork, known, strict).problems


def test_judge_fix_landed():
  row = triage.judge(_entry(), {'0.2.8': BUG, MAIN: BUG}, OK, {'a-fix'})
  assert not row.problems and not row.pending
  assert any('ledger a-fix' in n for n in row.notes)


def test_judge_reproduced_disagrees():
  problems = _problems(_entry(), {'0.2.8': OK, MAIN: BUG}, OK)
  # main fails and the fork passes: listed in the ledger, so no problem.
  assert len(problems) == 1
  assert 'reproduced says the snippet fails on 0.2.8, it passed' in (
      problems[0])


def test_judge_reproduced_missing_label():
  problems = _problems(_entry(reproduced={'0.2.8': True}),
                       {'0.2.8': BUG, MAIN: BUG}, OK)
  assert problems == [
      'reproduced has no value for main@2edbcbe2 (the snippet failed there)']


def test_judge_unlisted_difference():
  # An already-right entry whose ledger id ledger.toml lacks.
  entry = _entry(verdict='already-right', ledger='missing-id')
  problems = _problems(entry, {'0.2.8': BUG}, OK)
  assert problems[0] == "ledger id 'missing-id' is not in ledger.toml"
  assert 'UNLISTED DIFFERENCE' in problems[1]
  assert 'fails on 0.2.8, passes on the fork' in problems[1]
  # Verdicts without a ledger id cannot explain a difference either.
  absorbed = _entry(verdict='absorbed', ledger=None, commit='abcdef12',
                    reproduced={'0.2.8': False, MAIN: False})
  problems = _problems(absorbed, {'0.2.8': OK, MAIN: OK}, BUG)
  assert len(problems) == 2
  assert all('passes on' in p and 'fails on the fork' in p
             for p in problems)


def test_judge_pending_fix():
  entry = _entry(pending=True, ledger='not-yet')
  row = triage.judge(entry, {'0.2.8': BUG, MAIN: BUG}, BUG, set())
  assert not row.problems and row.pending
  assert any('not in ledger.toml yet' in n for n in row.notes)
  assert any(n.startswith('pending: the snippet fails on the fork')
             for n in row.notes)
  strict = triage.judge(entry, {'0.2.8': BUG}, BUG, set(), strict=True)
  assert ['the snippet fails on the fork (fix): AssertionError: [nan]'] == (
      strict.problems)
  # The fix landed but the ledger entry did not: an unlisted difference.
  landed = triage.judge(entry, {'0.2.8': BUG}, OK, set())
  assert not landed.pending
  assert len(landed.problems) == 1
  assert 'UNLISTED DIFFERENCE' in landed.problems[0]
  # Listed and pending: a reminder to drop pending.
  listed = triage.judge(entry, {'0.2.8': BUG}, OK, {'not-yet'})
  assert not listed.problems
  assert any('drop pending' in n for n in listed.notes)


def test_judge_fix_not_pending_fails_on_fork():
  problems = _problems(_entry(), {'0.2.8': BUG}, BUG)
  assert problems == [
      'the snippet fails on the fork (fix): AssertionError: [nan]']


def test_judge_same_outcome_needs_no_ledger():
  entry = _entry(verdict='not-a-bug', ledger=None, reason='r',
                 reproduced={'0.2.8': False, MAIN: False})
  assert not _problems(entry, {'0.2.8': OK, MAIN: OK}, OK, known=())


def test_judge_timeout_and_no_runs():
  problems = _problems(_entry(), {'0.2.8': SLOW}, OK)
  assert problems == ['the snippet did not finish on 0.2.8: timeout after '
                      '5 s']
  problems = _problems(_entry(), {'0.2.8': BUG}, SLOW)
  assert problems == ['the snippet did not finish on fork: timeout after '
                      '5 s']
  # Nothing run (--validate-only): only the ledger id is checked.
  assert not _problems(_entry(), {}, None)
  assert _problems(_entry(ledger='other'), {}, None) == [
      "ledger id 'other' is not in ledger.toml"]


def test_report(tmp_path):
  entries = triage.load(_write(tmp_path))
  rows = [triage.judge(entries[0], {'0.2.8': BUG, MAIN: BUG}, BUG, set()),
          triage.judge(entries[1], {}, None, set()),
          triage.judge(entries[2], {'0.2.8': OK, MAIN: BUG}, OK, set())]
  text = triage.table(rows, ['0.2.8', MAIN])
  lines = text.splitlines()
  assert lines[0].split() == ['ref', 'verdict', '0.2.8', MAIN, 'fork',
                              'ledger', '/', 'commit']
  assert lines[1].split() == ['#1', 'fix', 'bug', 'bug', 'FAIL',
                              'thing-fixed', '(pending)']
  assert lines[2].split() == ['#2', 'out-of-scope', '-', '-', '-', '-']
  assert lines[3].split()[:6] == ['#3', 'absorbed', 'ok', 'bug', 'pass',
                                  'c902205c']
  assert lines[3].endswith('<-- FAIL')
  assert 'FAIL #3: reproduced says the snippet passes on main@2edbcbe2' in (
      text)
  assert triage.summary(rows) == (
      'triage: 3 entries (fix 1, already-right 0, absorbed 1, not-a-bug 0, '
      'out-of-scope 1); 1 pending on the fork; 1 with problems')
  record = rows[0].as_json()
  assert record['upstream'][MAIN] == {'status': 'failed',
                                      'detail': 'AssertionError: [nan]'}
  json.dumps([r.as_json() for r in rows])


def test_run_snippets(tmp_path):
  side = triage.Side('fork', sys.executable, {})
  good = tmp_path / 'good.py'
  good.write_text('print("fine")\n')
  bad = tmp_path / 'bad.py'
  bad.write_text('raise IndexError("list index out of range")\n')
  slow = tmp_path / 'slow.py'
  slow.write_text('import time\ntime.sleep(30)\n')
  assert triage.run_snippet(side, good, 20) == triage.Outcome('passed')
  assert triage.run_snippet(side, bad, 20) == triage.Outcome(
      'failed', 'IndexError: list index out of range')
  assert triage.run_snippet(side, slow, 0.5).status == 'timeout'


def test_run_all_in_parallel(tmp_path):
  entries = triage.load(_write(tmp_path))
  sides = [triage.Side('0.2.8', sys.executable, {}),
           triage.Side('fork', sys.executable, {})]
  results = triage.run_all(entries, sides, tmp_path, 20, jobs=3)
  assert set(results) == {('#1', '0.2.8'), ('#1', 'fork'),
                          ('#3', '0.2.8'), ('#3', 'fork')}
  assert all(o.status == 'passed' for o in results.values())


def test_main_validate_only(tmp_path, capsys):
  path = _write(tmp_path)
  ledger = _write(tmp_path, '[[fix]]\nid = "thing-fixed"\n',
                  name='ledger.toml')
  assert triage.main(['--triage', str(path), '--ledger', str(ledger),
                      '--validate-only']) == 0
  out = capsys.readouterr().out
  assert 'triage: 3 entries (fix 1,' in out
  assert triage.main(['--triage', str(path), '--ledger', str(ledger),
                      '--validate-only', '--only', '2', '--json']) == 0
  record = json.loads(capsys.readouterr().out)
  assert [e['ref'] for e in record['entries']] == ['#2'] and record['ok']
  with pytest.raises(SystemExit, match=r"no entry \['#7'\]"):
    triage.main(['--triage', str(path), '--ledger', str(ledger),
                 '--validate-only', '--only', '#7'])
  # A fix of the ledger that no entry names fails, unless --only selects.
  ledger = _write(tmp_path, '[[fix]]\nid = "thing-fixed"\n[[fix]]\n'
                  'id = "lost-fix"\nkind = "fix"\n', name='ledger.toml')
  assert triage.main(['--triage', str(path), '--ledger', str(ledger),
                      '--validate-only']) == 1
  assert "FAIL ledger.toml: the fix 'lost-fix' has no triage entry" in (
      capsys.readouterr().out)
  assert triage.main(['--triage', str(path), '--ledger', str(ledger),
                      '--validate-only', '--json']) == 1
  assert json.loads(capsys.readouterr().out)['unnamed_fixes'] == [
      'lost-fix']
  assert triage.main(['--triage', str(path), '--ledger', str(ledger),
                      '--validate-only', '--only', '#1']) == 0
  capsys.readouterr()
  bad = _write(tmp_path, TRIAGE.replace('"fix"', '"wontfix"'), 'bad.toml')
  assert triage.main(['--triage', str(bad), '--ledger', str(ledger),
                      '--validate-only']) == 2
  assert 'verdict must be one of' in capsys.readouterr().err
