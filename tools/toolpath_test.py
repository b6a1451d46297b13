# Copyright 2026 The Optax fork authors. All Rights Reserved.
# Licensed under the Apache License, Version 2.0.
"""Tests of tools/toolpath.py: tools import, optax stays the interpreter's."""

import os
import pathlib
import subprocess
import sys
import threading

import pytest

from tools import toolpath

_WHERE = ('import pathlib, optax, tools; '
          'print(pathlib.Path(optax.__file__).resolve()); '
          'print(pathlib.Path(tools.__file__).resolve())')


def test_make_links_the_package_once(tmp_path):
  folder = toolpath.make(tmp_path / 'tp')
  assert sorted(p.name for p in folder.iterdir()) == ['tools']
  assert (folder / 'tools').resolve() == toolpath.PACKAGE
  assert toolpath.make(folder) == folder  # Again: kept as it is.
  (folder / 'tools').unlink()
  (folder / 'tools').symlink_to(tmp_path)  # Another checkout's.
  toolpath.make(folder)
  assert (folder / 'tools').resolve() == toolpath.PACKAGE


def test_make_from_many_threads_at_once(tmp_path):
  # The fuzz lane's two sides made one folder at the same time; the one that
  # found the other's link between its two looks raised SystemExit, which
  # killed its thread without a word (the CI run of 577487a).
  for attempt in range(20):
    folder = tmp_path / f'tp{attempt}'
    barrier = threading.Barrier(8)
    errors = []

    def make(folder, barrier, errors):
      barrier.wait()
      try:
        toolpath.make(folder)
      except BaseException as exc:  # pylint: disable=broad-exception-caught
        errors.append(exc)

    threads = [threading.Thread(target=make, args=(folder, barrier, errors))
               for _ in range(8)]
    for thread in threads:
      thread.start()
    for thread in threads:
      thread.join()
    assert not errors
    assert (folder / 'tools').resolve() == toolpath.PACKAGE


def test_make_refuses_a_folder_named_tools(tmp_path):
  (tmp_path / 'tools').mkdir()
  with pytest.raises(SystemExit, match='is not a link'):
    toolpath.make(tmp_path)


def test_env_puts_only_tools_on_the_path(tmp_path):
  environ = {'PYTHONPATH': '/elsewhere', 'HOME': '/h'}
  env = toolpath.env(tmp_path / 'tp', environ)
  assert env == {'PYTHONPATH': str((tmp_path / 'tp').resolve()), 'HOME': '/h'}
  kept = toolpath.env(tmp_path / 'tp', environ, keep_pythonpath=True)
  assert kept['PYTHONPATH'] == os.pathsep.join(
      [str((tmp_path / 'tp').resolve()), '/elsewhere'])


def test_a_tool_run_from_the_folder_imports_the_interpreters_optax(tmp_path):
  # What the lanes rely on: run from a folder without optax/ with the tools
  # folder on PYTHONPATH, `tools` is this repository's and `optax` is the
  # one the interpreter imports there without it (the installed package,
  # not the checkout's optax/ unless that is what is installed).
  env = toolpath.env(tmp_path / 'tp')
  plain = {k: v for k, v in os.environ.items() if k != 'PYTHONPATH'}
  run = lambda cmd, e: subprocess.run(
      [sys.executable, *cmd], cwd=tmp_path, env=e, check=True,
      capture_output=True, text=True).stdout.split()
  optax_file, tools_file = run(['-c', _WHERE], env)
  assert pathlib.Path(tools_file) == toolpath.PACKAGE / '__init__.py'
  own = run(['-c', 'import pathlib, optax; '
             'print(pathlib.Path(optax.__file__).resolve())'], plain)
  assert [optax_file] == own
  assert run(['-m', 'tools.toolpath', '--optax'], env) == own
