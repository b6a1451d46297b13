# Copyright 2026 The optax fork authors. All Rights Reserved.
# Licensed under the Apache License, Version 2.0.
"""Tests of tools/fork_config.py (run by test.sh from the repository)."""

import ast
import pathlib
import subprocess
import sys
import tomllib
import zipfile

import pytest

from tools import fork_config


@pytest.mark.parametrize('version,spec,expected', [
    ('0.10.2', '>=0.10', True),
    ('0.9.2', '>=0.10', False),
    ('0.10.2', '>=0.10,<0.11', True),
    ('0.11.0', '>=0.10,<0.11', False),
    ('0.10.2', '==0.10.*', True),
    ('0.11.0', '==0.10.*', False),
    ('0.11.0', '!=0.10.*', True),
    ('0.10', '0.10.0', True),
    ('0.10.1', '0.10.0', False),
    ('0.10.2rc1', '<0.10.2', False),
    ('0.9.10', '>0.9.9', True),
])
def test_version_in_range(version, spec, expected):
  assert fork_config.version_in_range(version, spec) is expected


@pytest.mark.parametrize('spec', ['~=0.10', '>=0.10.*', '>=', 'latest'])
def test_version_in_range_rejects_unreadable_clauses(spec):
  with pytest.raises(ValueError, match='fork_config'):
    fork_config.version_in_range('0.10.2', spec)


def test_not_applicable():
  entry = {'id': 'x', 'upstream': '0.2.8', 'jax': '>=0.10'}
  assert fork_config.not_applicable(entry, '0.2.8', '0.10.2') is None
  assert fork_config.not_applicable(entry, '0.2.8', None) is None
  kind, message = fork_config.not_applicable(entry, '0.2.8', '0.9.2')
  assert kind == 'skipped' and 'jax 0.9.2' in message
  kind, message = fork_config.not_applicable(entry, '0.2.9', '0.10.2')
  assert kind == 'stale' and '0.2.8' in message and '0.2.9' in message
  listed = {'id': 'y', 'upstream': ['0.2.8', '0.2.9']}
  assert fork_config.not_applicable(listed, '0.2.9', '0.10.2') is None
  kind, message = fork_config.not_applicable({'id': 'z'}, '0.2.8', '0.10.2')
  assert kind == 'stale' and 'names no upstream release' in message


def test_not_applicable_on_main():
  # A run against a checkout of main takes the entries naming any commit of
  # main (main moved on: the lanes judge them), skips release-only entries.
  release_only = {'id': 'r', 'upstream': '0.2.8'}
  kind, message = fork_config.not_applicable(release_only, 'main@abc12345',
                                             '0.10.2')
  assert kind == 'skipped' and 'not main' in message
  both = {'id': 'b', 'upstream': ['0.2.8', 'main@2edbcbe2']}
  assert fork_config.not_applicable(both, 'main@abc12345', '0.10.2') is None
  assert fork_config.not_applicable(both, 'main@2edbcbe2', '0.10.2') is None
  assert fork_config.not_applicable(both, '0.2.8', '0.10.2') is None
  kind, _ = fork_config.not_applicable(both, '0.2.9', '0.10.2')
  assert kind == 'stale'
  main_only = {'id': 'm', 'upstream': 'main', 'jax': '>=0.11'}
  kind, message = fork_config.not_applicable(main_only, 'main@abc12345',
                                             '0.10.2')
  assert kind == 'skipped' and 'jax 0.10.2' in message
  kind, message = fork_config.not_applicable(main_only, '0.2.8', '0.11.0')
  assert kind == 'skipped' and 'main only' in message
  assert fork_config.is_main('main') and not fork_config.is_main('0.2.8')


def test_not_applicable_by_backend():
  # An entry scoped to backends applies on those only; an unknown backend
  # (None) is not checked, as an unknown jax.
  cpu_only = {'id': 'c', 'upstream': '0.2.8', 'backend': 'cpu'}
  assert fork_config.not_applicable(cpu_only, '0.2.8', '0.10.2',
                                    backend='cpu') is None
  assert fork_config.not_applicable(cpu_only, '0.2.8', '0.10.2') is None
  kind, message = fork_config.not_applicable(cpu_only, '0.2.8', '0.10.2',
                                             backend='gpu')
  assert kind == 'skipped' and 'cpu backend' in message and 'gpu' in message
  listed = {'id': 'l', 'upstream': '0.2.8', 'backend': ['gpu', 'tpu']}
  assert fork_config.not_applicable(listed, '0.2.8', '0.10.2',
                                    backend='tpu') is None
  kind, message = fork_config.not_applicable(listed, '0.2.8', '0.10.2',
                                             backend='cpu')
  assert kind == 'skipped' and 'gpu/tpu backend' in message
  # Staleness comes first: a stale entry fails the lanes on every backend.
  kind, _ = fork_config.not_applicable(cpu_only, '0.2.9', '0.10.2',
                                       backend='gpu')
  assert kind == 'stale'


@pytest.mark.parametrize('value', ['GPU', 'cuda', [], ['cpu', 'metal'], 3])
def test_entry_backends_rejects_unknown_names(value):
  entry = {'id': 'x', 'upstream': '0.2.8', 'backend': value}
  with pytest.raises(ValueError, match=r'fork_config: x: backend'):
    fork_config.entry_backends(entry)
  with pytest.raises(ValueError, match=r'fork_config: x: backend'):
    fork_config.not_applicable(entry, '0.2.8', '0.10.2', backend='cpu')


def test_entry_backends():
  assert fork_config.entry_backends({'id': 'x'}) is None
  assert fork_config.entry_backends({'backend': 'cpu'}) == ('cpu',)
  assert fork_config.entry_backends(
      {'backend': ['cpu', 'tpu']}) == ('cpu', 'tpu')


def test_jax_backend_asks_the_interpreter():
  # This interpreter's jax, asked in a subprocess, answers as it does here.
  jax = pytest.importorskip('jax')
  assert fork_config.jax_backend() == jax.default_backend()
  with pytest.raises(SystemExit, match='cannot tell the jax backend'):
    fork_config.jax_backend('/nonexistent/python3')


def test_settings_need_the_table(tmp_path):
  pyproject = tmp_path / 'pyproject.toml'
  pyproject.write_text('[project]\nname = "optax"\n')
  with pytest.raises(SystemExit, match=r'\[tool.optax-fork\]'):
    fork_config.upstream_version(pyproject)
  pyproject.write_text('[tool.optax-fork]\nupstream = "1.2.3"\n')
  assert fork_config.upstream_version(pyproject) == '1.2.3'


def test_command_line_prints_the_repository_setting():
  out = subprocess.run(
      [sys.executable, '-m', 'tools.fork_config', 'upstream'],
      cwd=fork_config.REPO, check=True, capture_output=True,
      text=True).stdout
  with open(fork_config.PYPROJECT, 'rb') as f:
    table = tomllib.load(f)['tool']['optax-fork']
  assert out.strip() == table['upstream']


def test_every_deviation_names_the_configured_release():
  # A deviation for another release fails both lanes; catch it here first.
  upstream = fork_config.upstream_version()
  with open(fork_config.REPO / 'deviations.toml', 'rb') as f:
    deviations = tomllib.load(f)
  entries = [e for kind in ('comparison', 'upstream_suite')
             for e in deviations.get(kind, [])]
  assert entries
  for entry in entries:
    why = fork_config.not_applicable(entry, upstream, None)
    assert why is None, why
    if 'jax' in entry:
      fork_config.version_in_range('0.10.2', entry['jax'])  # Readable.
    fork_config.entry_backends(entry)  # Raises if unreadable.


def test_upstream_api_manifest_is_of_the_configured_release():
  # optax/_src/testing/upstream_api.py, the committed list of upstream's
  # public functions, describes the release of [tool.optax-fork]. (The
  # registry test of composition_test.py checks it against
  # OPTAX_UPSTREAM_VERSION when the tests run from the installed wheel.)
  path = fork_config.REPO / 'optax' / '_src' / 'testing' / 'upstream_api.py'
  versions = [
      ast.literal_eval(node.value)
      for node in ast.parse(path.read_text(encoding='utf-8')).body
      if isinstance(node, ast.Assign)
      and [getattr(t, 'id', None) for t in node.targets] == ['VERSION']]
  assert versions == [fork_config.upstream_version()], (
      f'{path} is for upstream {versions}, [tool.optax-fork] names '
      f'{fork_config.upstream_version()}: regenerate it with python -m '
      'tools.upstream_api under that release (tools/README.md)')


def _wheel(folder, name):
  path = folder / name
  with zipfile.ZipFile(path, 'w') as zf:
    zf.writestr('optax/__init__.py', '__version__ = "1.2.3"\n')
  return path


def test_check_wheel(tmp_path):
  wheel = _wheel(tmp_path, 'optax-1.2.3-py3-none-any.whl')
  assert fork_config.check_wheel(wheel, '1.2.3') == wheel
  for name in ('optax-1.2.4-py3-none-any.whl', 'other-1.2.3-py3-none-any.whl',
               'optax-1.2.3.tar.gz'):
    with pytest.raises(SystemExit, match=r'upstream_suite: .* is not an '
                       r'optax 1\.2\.3 wheel'):
      fork_config.check_wheel(tmp_path / name, '1.2.3',
                              caller='upstream_suite')
  # The configured release is the default.
  configured = fork_config.upstream_version()
  name = f'optax-{configured}-py3-none-any.whl'
  assert fork_config.check_wheel(tmp_path / name) == tmp_path / name


def test_upstream_wheel_takes_a_given_wheel_or_downloads(tmp_path,
                                                         monkeypatch):
  given = _wheel(tmp_path, 'optax-1.2.3-py3-none-any.whl')
  calls = []

  def pip(cmd, check):
    calls.append(cmd)
    assert check
    dest = pathlib.Path(cmd[cmd.index('-d') + 1])
    dest.mkdir(parents=True, exist_ok=True)
    if 'optax==1.2.3' in cmd:
      _wheel(dest, 'optax-1.2.3-py3-none-any.whl')

  monkeypatch.setattr(fork_config.subprocess, 'run', pip)
  assert fork_config.upstream_wheel(tmp_path / 'dl', '1.2.3', given) == given
  assert not calls
  got = fork_config.upstream_wheel(tmp_path / 'dl', '1.2.3')
  assert got == tmp_path / 'dl' / 'optax-1.2.3-py3-none-any.whl'
  assert calls[0][:4] == [sys.executable, '-m', 'pip', 'download']
  assert '--only-binary=:all:' in calls[0] and '--no-deps' in calls[0]
  with pytest.raises(SystemExit, match='upstream_status: pip download '
                     'optax==9.9.9 gave no wheel'):
    fork_config.fetch_wheel(tmp_path / 'none', '9.9.9',
                            caller='upstream_status')


def test_unpack_wheel(tmp_path):
  wheel = _wheel(tmp_path, 'optax-1.2.3-py3-none-any.whl')
  root = fork_config.unpack_wheel(wheel, tmp_path / 'root', '1.2.3')
  assert (root / 'optax' / '__init__.py').read_text() == (
      '__version__ = "1.2.3"\n')
  with pytest.raises(SystemExit, match='not an optax 1.2.4 wheel'):
    fork_config.unpack_wheel(wheel, tmp_path / 'other', '1.2.4')
