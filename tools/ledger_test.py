# Copyright 2026 The Optax fork authors. All Rights Reserved.
# Licensed under the Apache License, Version 2.0.
"""Tests of tools/ledger.py, and of the repository's ledger against its docs.

Run by test.sh from the repository. The repository tests fail when
ledger.toml breaks its schema, or when README's "What differs" table,
docs/differences.md, deviations.toml or upstream_tests/ disagree with it.
"""

import copy
import pathlib
import shutil
import tomllib

import pytest

from tools import ledger

REPO = ledger.REPO

_ENTRY = {
    'id': 'some-fix',
    'title': 'A fix',
    'kind': 'fix',
    'effect': 'What users see.',
    'upstream_refs': ['#1'],
    'upstream_position': 'unknown: no upstream issue',
    'code': ['optax/_src/alias.py'],
    'commits': ['abc1234'],
    'reproducer': 'upstream_tests/some_fix_test.py',
    'upstream_change': 'Change alias.py.',
    'readme': True,
    'status': {'0.2.8': 'needed', 'main@2edbcbe2': 'absorbed in 0d67475c'},
}


def _entry(**changes):
  entry = copy.deepcopy(_ENTRY)
  for key, value in changes.items():
    if value is None:
      del entry[key]
    else:
      entry[key] = value
  return entry


# The repository.


def test_repository_ledger_loads():
  fixes = ledger.load()
  assert len(fixes) >= 30
  assert len({f.id for f in fixes}) == len(fixes)


def test_repository_agrees_with_its_ledger():
  problems = ledger.repository_problems()
  assert not problems, '\n'.join(problems)


def test_known_upstream_main_statuses():
  """Spot checks of statuses observed against upstream main at 2edbcbe2."""
  fixes = ledger.by_id(ledger.load())
  main = 'main@2edbcbe2'
  assert fixes['muon-newton-schulz-memory'].absorbing_commits(main) == [
      '0d67475c']
  assert fixes['explicit-mesh-lbfgs-vdot'].absorbing_commits(main) == [
      '6e5690ac']
  assert fixes['inject-bf16-hyperparams'].status[main] == 'needed'
  assert fixes['lookahead-extra-args'].status[main] == 'needed'


# The schema.


def test_valid_entry_has_no_problems():
  assert not ledger.validate({'fix': [_entry()]})


@pytest.mark.parametrize('changes,expected', [
    ({'id': 'Not_Kebab'}, 'kebab-case'),
    ({'id': 'upstream-fails-too'}, 'reserved'),
    ({'kind': 'bugfix'}, 'kind must be one of'),
    ({'title': None}, "missing field 'title'"),
    ({'readme': 'yes'}, 'readme must be a bool'),
    ({'upstream_refs': ['1414']}, 'like "#1414"'),
    ({'commits': []}, 'names no commit'),
    ({'commits': ['HEAD']}, 'short hashes'),
    ({'code': []}, 'names no file'),
    ({'reproducer': 'tests/x_test.py'}, 'under upstream_tests/'),
    ({'status': {}}, 'names no upstream'),
    ({'status': {'0.2.8': 'fixed'}}, 'must be "needed"'),
    ({'status': {'0.2.8': 'absorbed in main'}}, 'must be "needed"'),
    ({'status': {'latest': 'needed'}}, 'status key'),
    ({'effect': '  '}, 'effect is empty'),
    ({'extra': 1}, "unknown field 'extra'"),
])
def test_invalid_entry_is_reported(changes, expected):
  problems = ledger.validate({'fix': [_entry(**changes)]})
  assert any(expected in p for p in problems), problems


def test_duplicate_ids_are_reported():
  problems = ledger.validate({'fix': [_entry(), _entry()]})
  assert any('duplicate id' in p for p in problems), problems


def test_statuses_with_several_commits():
  fix = ledger.Fix(**{
      **_entry(), 'status': {'main@2edbcbe2': 'absorbed in aaaaaaa, bbbbbbb'}})
  assert not ledger.validate({'fix': [_entry(status={
      'main@2edbcbe2': 'absorbed in aaaaaaa, bbbbbbb'})]})
  assert fix.absorbed_on('main@2edbcbe2')
  assert fix.absorbing_commits('main@2edbcbe2') == ['aaaaaaa', 'bbbbbbb']
  assert not fix.absorbed_on('0.2.8')


def test_load_raises_with_every_problem(tmp_path):
  path = tmp_path / 'ledger.toml'
  path.write_text('[[fix]]\nid = "a"\nkind = "nope"\n', encoding='utf-8')
  with pytest.raises(ledger.LedgerError) as e:
    ledger.load(path)
  assert any('missing field' in p for p in e.value.problems)


def test_reproducer_path_drops_the_test_name():
  fix = ledger.Fix(**{**_entry(),
                      'reproducer': 'upstream_tests/a_test.py::T::test_x'})
  assert fix.reproducer_path == 'upstream_tests/a_test.py'


# The documents: each check fails on a copy of the repository broken on
# purpose.


@pytest.fixture(name='repo_copy')
def _repo_copy(tmp_path):
  for name in ('ledger.toml', 'deviations.toml', 'README.md',
               'pyproject.toml'):
    shutil.copy(REPO / name, tmp_path / name)
  (tmp_path / 'docs').mkdir()
  shutil.copy(REPO / 'docs' / 'differences.md',
              tmp_path / 'docs' / 'differences.md')
  (tmp_path / 'upstream_tests').mkdir()
  shutil.copytree(REPO / 'upstream_patches', tmp_path / 'upstream_patches')
  for fix in ledger.load():
    for code in fix.code:
      (tmp_path / code).parent.mkdir(parents=True, exist_ok=True)
      (tmp_path / code).touch()
    target = tmp_path / fix.reproducer_path
    if not target.exists():
      target.write_text('', encoding='utf-8')
  return tmp_path


def _replace(path: pathlib.Path, old: str, new: str) -> None:
  text = path.read_text(encoding='utf-8')
  assert old in text, old
  path.write_text(text.replace(old, new, 1), encoding='utf-8')


def test_copy_has_no_problems(repo_copy):
  assert not ledger.repository_problems(repo_copy)


def test_deviation_naming_an_unknown_fix(repo_copy):
  _replace(repo_copy / 'deviations.toml', 'fix = "inject-bf16-hyperparams"',
           'fix = "no-such-fix"')
  problems = ledger.repository_problems(repo_copy)
  assert any("fix 'no-such-fix' is not in ledger.toml" in p
             for p in problems), problems


def test_deviation_without_fix(repo_copy):
  _replace(repo_copy / 'deviations.toml', 'fix = "inject-bf16-hyperparams"\n',
           '')
  problems = ledger.repository_problems(repo_copy)
  assert any('inject/*/bf16: needs fix' in p for p in problems), problems


def test_readme_row_naming_an_unknown_id(repo_copy):
  _replace(repo_copy / 'README.md', '`lookahead-extra-args` |',
           '`lookahead-extras` |')
  problems = ledger.repository_problems(repo_copy)
  assert any("'lookahead-extras' is not in ledger.toml" in p
             for p in problems), problems
  assert any('lookahead-extra-args: readme = true but no row' in p
             for p in problems), problems


def test_readme_row_without_id(repo_copy):
  _replace(repo_copy / 'README.md', '`lookahead-extra-args` |', ' |')
  problems = ledger.repository_problems(repo_copy)
  assert any('names no ledger id' in p for p in problems), problems


def test_readme_row_of_a_fix_main_absorbed_must_say_so(repo_copy):
  _replace(repo_copy / 'README.md', '(#1650; fixed on upstream main at '
           '0d67475c)', '(#1650)')
  problems = ledger.repository_problems(repo_copy)
  assert any('muon-newton-schulz-memory is absorbed' in p
             for p in problems), problems


def test_readme_row_for_a_fix_without_readme(repo_copy):
  _replace(repo_copy / 'ledger.toml', 'reproducer = "upstream_tests/'
           'lookahead_extra_args_test.py"\nupstream_change = """optax/_src/'
           'lookahead.py, lookahead: update_fn takes **extra_args and passes '
           'them to fast_optimizer.update (wrapped with '
           'base.with_extra_args_support); return a '
           'GradientTransformationExtraArgs."""\nreadme = true',
           'reproducer = "upstream_tests/lookahead_extra_args_test.py"\n'
           'upstream_change = """x"""\nreadme = false')
  problems = ledger.repository_problems(repo_copy)
  assert any('lookahead-extra-args has readme = false' in p
             for p in problems), problems


def test_differences_section_without_ledger_line(repo_copy):
  _replace(repo_copy / 'docs' / 'differences.md',
           'Ledger entry: `lookahead-extra-args`.\n\n', '')
  problems = ledger.repository_problems(repo_copy)
  assert any('no "Ledger entry: `id`" line' in p and 'lookahead' in p
             for p in problems), problems


def test_differences_section_naming_an_unknown_id(repo_copy):
  _replace(repo_copy / 'docs' / 'differences.md',
           'Ledger entry: `lookahead-extra-args`.',
           'Ledger entry: `lookahead`.')
  problems = ledger.repository_problems(repo_copy)
  assert any("'lookahead' is not in ledger.toml" in p
             for p in problems), problems


def test_missing_reproducer(repo_copy):
  (repo_copy / 'upstream_tests' / 'lookahead_extra_args_test.py').unlink()
  problems = ledger.repository_problems(repo_copy)
  assert any('lookahead-extra-args: reproducer' in p for p in problems), (
      problems)


def test_fix_without_status_for_the_configured_release(repo_copy):
  with open(repo_copy / 'pyproject.toml', 'rb') as f:
    release = tomllib.load(f)['tool']['optax-fork']['upstream']
  _replace(repo_copy / 'pyproject.toml', f'upstream = "{release}"',
           'upstream = "9.9.9"')
  problems = ledger.repository_problems(repo_copy)
  assert any('no status for upstream 9.9.9' in p for p in problems), problems


def test_command_line(capsys):
  assert ledger.main(['--list']) == 0
  out = capsys.readouterr().out
  assert 'muon-newton-schulz-memory [fix] 0.2.8: needed; main@2edbcbe2: ' \
      'absorbed in 0d67475c' in out


def test_reproducer_naming_a_missing_test(repo_copy):
  _replace(repo_copy / 'ledger.toml',
           'reproducer = "upstream_tests/lookahead_extra_args_test.py"',
           'reproducer = "upstream_tests/lookahead_extra_args_test.py'
           '::test_nothing_here"')
  problems = ledger.repository_problems(repo_copy)
  assert any('no test_nothing_here in' in p for p in problems), problems


def test_missing_code_file(repo_copy):
  _replace(repo_copy / 'ledger.toml', 'code = ["optax/_src/lookahead.py"]',
           'code = ["optax/_src/no_such_module.py"]')
  problems = ledger.repository_problems(repo_copy)
  assert any('code optax/_src/no_such_module.py does not exist' in p
             for p in problems), problems


def test_missing_commits_are_reported():
  fix = ledger.Fix(**{**_entry(), 'commits': ('0000000',)})
  missing = ledger.missing_commits([fix])
  assert missing == ['some-fix: commit 0000000 is not in the history']


# The upstream patches.


def test_a_needed_fix_without_patch_or_reason(repo_copy):
  (repo_copy / 'upstream_patches' / 'lookahead-extra-args.toml').unlink()
  problems = ledger.repository_problems(repo_copy)
  assert ('lookahead-extra-args: upstream main needs it and it has no '
          'upstream patch (upstream_patches/lookahead-extra-args.toml) and '
          'no not_offered reason') in problems, problems
  _replace(repo_copy / 'ledger.toml', 'id = "lookahead-extra-args"',
           'id = "lookahead-extra-args"\nnot_offered = "a reason"')
  assert not any(p.startswith('lookahead-extra-args:')
                 for p in ledger.repository_problems(repo_copy))


def test_a_patch_and_a_reason_both(repo_copy):
  _replace(repo_copy / 'ledger.toml', 'id = "lookahead-extra-args"',
           'id = "lookahead-extra-args"\nnot_offered = "a reason"')
  assert ('lookahead-extra-args: has an upstream patch and a not_offered '
          'reason: keep one') in ledger.repository_problems(repo_copy)


def test_a_patch_of_no_fix_or_of_another_reproducer(repo_copy):
  folder = repo_copy / 'upstream_patches'
  text = (folder / 'lookahead-extra-args.toml').read_text(encoding='utf-8')
  (folder / 'no-such-fix.toml').write_text(
      text.replace('fix = "lookahead-extra-args"', 'fix = "no-such-fix"'),
      encoding='utf-8')
  _replace(folder / 'lookahead-extra-args.toml',
           'upstream_tests/lookahead_extra_args_test.py',
           'upstream_tests/other_test.py')
  problems = ledger.repository_problems(repo_copy)
  assert ("upstream_patches/no-such-fix.toml: 'no-such-fix' is not in "
          'ledger.toml') in problems, problems
  assert ('lookahead-extra-args: its patch places '
          'upstream_tests/other_test.py, the ledger\'s reproducer is '
          'upstream_tests/lookahead_extra_args_test.py') in problems


def test_a_patch_lacking_the_ledgers_references(repo_copy):
  text = (repo_copy / 'ledger.toml').read_text(encoding='utf-8')
  start = text.index('id = "lookahead-extra-args"')
  refs = text.index('upstream_refs = []', start)
  (repo_copy / 'ledger.toml').write_text(
      text[:refs] + 'upstream_refs = ["#9999"]'
      + text[refs + len('upstream_refs = []'):], encoding='utf-8')
  problems = ledger.repository_problems(repo_copy)
  assert ('lookahead-extra-args: its patch\'s references lack #9999 (the '
          'ledger\'s upstream_refs)') in problems, problems


def test_patch_stale_names_labels(repo_copy):
  _replace(repo_copy / 'ledger.toml', 'id = "lookahead-extra-args"',
           'id = "lookahead-extra-args"\npatch_stale = ["yesterday"]')
  assert ('lookahead-extra-args: patch_stale must list labels like '
          '"main@<commit>", got \'yesterday\'') in (
              ledger.repository_problems(repo_copy))
