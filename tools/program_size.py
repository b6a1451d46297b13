# Copyright 2026 The Optax fork authors. All Rights Reserved.
# Licensed under the Apache License, Version 2.0.
"""The fork's optimized programs are no larger than upstream's.

Run from the repository's root (or with tools/toolpath.py's folder on
PYTHONPATH from anywhere, as test.sh's ``program-size`` lane does)::

  python -m tools.program_size --upstream-python PATH \\
      [--fork-python PATH] [--only SUBSTRING] [--groups losses,tree] \\
      [--keep DIR] [--dump-hlo DIR]

For every case of ``benchmarks/api_cases.py`` at its small sizes (each
public loss, projection, schedule, assignment solver, line search, tree
utility, second-order helper and perturbed function, forward and gradient,
and every optimizer's ``update`` then ``apply_updates``), a worker under each
interpreter compiles ``jax.jit(f).lower(*args).compile()`` and records the
optimized program's instruction count (every instruction of every
computation of ``as_text()``, fusions' bodies included) and the flops of
XLA's ``cost_analysis()``. The workers run this file by its path, with
``-I`` from a temporary folder, so each imports its own interpreter's
``optax`` (the fork's wheel or checkout, upstream's release).

A case whose fork program has more instructions or more flops than
upstream's fails, unless ``tools/program_size.toml`` lists it with its
measured counts, the reason, and the ledger id of the fix it pays for
(``fix``, optional). A listed case fails when its program grew past the
listed counts, and is reported stale (a failure too) when it is no larger
than upstream's any more: the list says what is larger, no more. Cases that
upstream cannot run (a name it lacks) are reported, not compared; a case
the fork cannot run fails. The counts depend on jax's version: the list
holds those of the jax test.sh installs (``jax`` at the top of the file),
and another jax only reports.

Nothing is timed: the check is deterministic.
"""

from __future__ import annotations

import argparse
import concurrent.futures
import dataclasses
import importlib.util
import json
import os
import pathlib
import subprocess
import sys
import tempfile
import time
import tomllib
from typing import Any, Mapping, Optional

_HERE = pathlib.Path(__file__).resolve().parent
_REPO = _HERE.parent
ALLOW_LIST = _HERE / 'program_size.toml'
_CASES_FILE = _REPO / 'benchmarks' / 'api_cases.py'
def count_instructions(hlo_text: str) -> int:
  """The number of instructions in an HLO module's text, every computation.

  Args:
    hlo_text: ``compiled.as_text()``.

  Returns:
    The count of lines that define an instruction (benchmarks/api_cases.py
    counts them, for both tools).
  """
  return _load_cases().count_instructions(hlo_text)


# ----------------------------------------------------------------------------
# Worker: runs under either interpreter, by this file's path.
# ----------------------------------------------------------------------------


def _load_cases() -> Any:
  name = '_optax_fork_api_cases'
  if name not in sys.modules:
    spec = importlib.util.spec_from_file_location(name, _CASES_FILE)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
  return sys.modules[name]


def _measure(case: Any, dump: Optional[pathlib.Path],
             label: str) -> dict[str, Any]:
  """The instruction count and flops of one case's optimized program."""
  size = _load_cases().program_size(*case.make(True))
  text = size.pop('text')
  if dump is not None:
    path = dump / f'{case.id.replace("/", "__")}.{label}.hlo.txt'
    path.write_text(text, encoding='utf-8')
  return size


def _worker(out: str, only: list[str], groups: list[str], dump: Optional[str],
            label: str) -> None:
  """Measures every selected case and writes the counts as JSON."""
  import jax  # pylint: disable=import-outside-toplevel
  import optax  # pylint: disable=import-outside-toplevel
  api_cases = _load_cases()
  dump_dir = pathlib.Path(dump) if dump else None
  if dump_dir is not None:
    dump_dir.mkdir(parents=True, exist_ok=True)
  counts = {}
  for case in api_cases.cases():
    if only and not any(s in case.id for s in only):
      continue
    if (groups and case.group not in groups) or not case.sized:
      continue
    start = time.perf_counter()
    try:
      counts[case.id] = _measure(case, dump_dir, label)
      counts[case.id]['seconds'] = round(time.perf_counter() - start, 3)
    except Exception as e:  # pylint: disable=broad-exception-caught
      lines = [x.strip() for x in str(e).splitlines() if x.strip()]
      counts[case.id] = {
          'error': ' '.join([type(e).__name__ + ':', *lines[:2]])[:300]}
  record = {'optax_file': optax.__file__, 'optax_version': optax.__version__,
            'jax_version': jax.__version__, 'counts': counts}
  pathlib.Path(out).write_text(json.dumps(record, indent=1), encoding='utf-8')


# ----------------------------------------------------------------------------
# The comparison (pure: tested on synthetic counts).
# ----------------------------------------------------------------------------


@dataclasses.dataclass
class Report:
  """What the comparison found.

  Attributes:
    compared: cases both sides ran.
    failures: one line per case that fails (larger and not listed, grown
      past its listing, or failed on the fork).
    stale: one line per listed case that is no longer larger.
    listed: one line per listed case that is still larger, as listed.
    upstream_only_errors: cases upstream could not run (not compared).
  """

  compared: int = 0
  failures: list[str] = dataclasses.field(default_factory=list)
  stale: list[str] = dataclasses.field(default_factory=list)
  listed: list[str] = dataclasses.field(default_factory=list)
  upstream_only_errors: list[str] = dataclasses.field(default_factory=list)

  @property
  def ok(self) -> bool:
    """Whether the check passes (nothing failed, nothing stale)."""
    return not self.failures and not self.stale


def _larger(fork: Mapping[str, float], upstream: Mapping[str, float]) -> bool:
  return (fork['instructions'] > upstream['instructions']
          or fork['flops'] > upstream['flops'])


def _describe(case: str, fork: Mapping[str, float],
              upstream: Mapping[str, float]) -> str:
  return (f'{case}: {fork["instructions"]} instructions and '
          f'{fork["flops"]:g} flops, upstream {upstream["instructions"]} '
          f'and {upstream["flops"]:g}')


def compare(fork: Mapping[str, Mapping[str, Any]],
            upstream: Mapping[str, Mapping[str, Any]],
            allowed: Mapping[str, Mapping[str, Any]]) -> Report:
  """Compares per-case counts of both sides against the allow-list.

  Args:
    fork: case id -> ``{'instructions': n, 'flops': f}`` or
      ``{'error': message}``, the fork's.
    upstream: the same, upstream's.
    allowed: case id -> the allow-list's entry (``fork_instructions``,
      ``fork_flops``, ``reason``, optional ``fix``).

  Returns:
    The report; ``report.ok`` is whether the check passes.
  """
  report = Report()
  for case in sorted(set(fork) | set(upstream)):
    mine, theirs = fork.get(case), upstream.get(case)
    if mine is None or 'error' in mine:
      why = 'missing' if mine is None else mine['error']
      report.failures.append(f'{case}: the fork could not run it: {why}')
      continue
    if theirs is None or 'error' in theirs:
      why = 'missing' if theirs is None else theirs['error']
      report.upstream_only_errors.append(f'{case}: {why}')
      continue
    report.compared += 1
    entry = allowed.get(case)
    larger = _larger(mine, theirs)
    if entry is None:
      if larger:
        report.failures.append(
            f'{_describe(case, mine, theirs)}; larger and not listed in '
            'tools/program_size.toml')
      continue
    if not larger:
      report.stale.append(
          f'{_describe(case, mine, theirs)}; listed but no longer larger: '
          'remove it from tools/program_size.toml')
    elif (mine['instructions'] > entry['fork_instructions']
          or mine['flops'] > entry['fork_flops']):
      report.failures.append(
          f'{_describe(case, mine, theirs)}; grew past the listed '
          f'{entry["fork_instructions"]} instructions and '
          f'{entry["fork_flops"]:g} flops')
    else:
      report.listed.append(f'{_describe(case, mine, theirs)}; listed: '
                           f'{entry["reason"]}')
  for case in sorted(set(allowed) - set(fork) - set(upstream)):
    report.stale.append(f'{case}: listed but no such case')
  return report


_FIELDS = {'case': str, 'fork_instructions': int, 'upstream_instructions': int,
           'fork_flops': (int, float), 'upstream_flops': (int, float),
           'reason': str}


def load_allow_list(path: os.PathLike[str] | str) -> tuple[
    str, dict[str, dict[str, Any]]]:
  """Reads the allow-list: ``(jax version, case id -> entry)``.

  Args:
    path: the TOML file, with ``jax = "<version>"`` and ``[[case]]`` tables.

  Returns:
    The jax version the counts are of, and the entries by case id.

  Raises:
    ValueError: a missing or mistyped field, or a case listed twice.
  """
  with open(path, 'rb') as f:
    data = tomllib.load(f)
  if not isinstance(data.get('jax'), str):
    raise ValueError(f'program_size: {path} needs jax = "<version>" at the '
                     'top')
  entries = {}
  for entry in data.get('case', []):
    for field, kind in _FIELDS.items():
      if not isinstance(entry.get(field), kind) or isinstance(
          entry.get(field), bool):
        raise ValueError(f'program_size: {path}: entry {entry.get("case")!r}'
                         f' needs {field} ({kind}), got {entry.get(field)!r}')
    if 'fix' in entry and not isinstance(entry['fix'], str):
      raise ValueError(f'program_size: {path}: entry {entry["case"]!r}: fix '
                       f'must be a ledger id, got {entry["fix"]!r}')
    if entry['case'] in entries:
      raise ValueError(f'program_size: {path}: {entry["case"]!r} is listed '
                       'twice')
    entries[entry['case']] = entry
  return data['jax'], entries


def format_report(report: Report) -> str:
  """The report as the lane prints it."""
  lines = [f'program_size: {report.compared} cases compared']
  for title, items in (('larger, listed', report.listed),
                       ('not run by upstream (not compared)',
                        report.upstream_only_errors),
                       ('STALE', report.stale), ('FAILED', report.failures)):
    if items:
      lines.append(f'{title} ({len(items)}):')
      lines += [f'  {x}' for x in items]
  lines.append('program_size: ' + ('ok' if report.ok else 'FAILED'))
  return '\n'.join(lines)


# ----------------------------------------------------------------------------
# Parent.
# ----------------------------------------------------------------------------


def _run_worker(python: str, label: str, work: pathlib.Path,
                args: argparse.Namespace) -> dict[str, Any]:
  out = work / f'{label}.json'
  cmd = [python, '-I', str(pathlib.Path(__file__).resolve()), '--worker',
         '--out', str(out), '--label', label]
  if args.only:
    cmd += ['--only', args.only]
  if args.groups:
    cmd += ['--groups', args.groups]
  if args.dump_hlo:
    cmd += ['--dump-hlo', str(pathlib.Path(args.dump_hlo).resolve())]
  env = {k: v for k, v in os.environ.items() if k != 'PYTHONPATH'}
  env.setdefault('JAX_PLATFORMS', 'cpu')
  subprocess.run(cmd, cwd=work, env=env, check=True)
  return json.loads(out.read_text(encoding='utf-8'))


def main(argv: Optional[list[str]] = None) -> int:
  """Runs the workers (or one worker) and the comparison."""
  parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
  parser.add_argument('--upstream-python', help='an interpreter with '
                      "upstream's optax release")
  parser.add_argument('--fork-python', default=sys.executable,
                      help="an interpreter with the fork's optax (default: "
                      'this one)')
  parser.add_argument('--allow-list', default=str(ALLOW_LIST))
  parser.add_argument('--only', default='', help='comma-separated '
                      'substrings of case ids')
  parser.add_argument('--groups', default='', help='comma-separated groups '
                      'of benchmarks/api_cases.py')
  parser.add_argument('--keep', help='a folder to write both sides\' counts '
                      'to (fork.json, upstream.json)')
  parser.add_argument('--dump-hlo', help='a folder to write every optimized '
                      'program to, <case>.<side>.hlo.txt')
  parser.add_argument('--worker', action='store_true', help=argparse.SUPPRESS)
  parser.add_argument('--out', help=argparse.SUPPRESS)
  parser.add_argument('--label', default='fork', help=argparse.SUPPRESS)
  args = parser.parse_args(argv)
  only = [s for s in args.only.split(',') if s]
  groups = [s for s in args.groups.split(',') if s]
  if args.worker:
    _worker(args.out, only, groups, args.dump_hlo, args.label)
    return 0
  if not args.upstream_python:
    parser.error('--upstream-python is required')
  jax_listed, allowed = load_allow_list(args.allow_list)
  with tempfile.TemporaryDirectory(prefix='optax-program-size.') as tmp:
    work = pathlib.Path(args.keep or tmp).resolve()
    work.mkdir(parents=True, exist_ok=True)
    with concurrent.futures.ThreadPoolExecutor(2) as pool:
      sides = {label: pool.submit(_run_worker, python, label, work, args)
               for label, python in (('fork', args.fork_python),
                                     ('upstream', args.upstream_python))}
      records = {label: f.result() for label, f in sides.items()}
  fork_file = pathlib.Path(records['fork']['optax_file']).resolve()
  upstream_file = pathlib.Path(records['upstream']['optax_file']).resolve()
  print(f'program_size: fork optax {records["fork"]["optax_version"]} '
        f'({fork_file}), upstream {records["upstream"]["optax_version"]} '
        f'({upstream_file}), jax {records["fork"]["jax_version"]}')
  if fork_file == upstream_file:
    print('program_size: both sides imported the same optax', file=sys.stderr)
    return 2
  if records['fork']['jax_version'] != records['upstream']['jax_version']:
    print('program_size: the two interpreters have different jax versions '
          f'(fork {records["fork"]["jax_version"]}, upstream '
          f'{records["upstream"]["jax_version"]}): install the same in both',
          file=sys.stderr)
    return 2
  if only or groups:  # A partial run: listings of other cases are not stale.
    allowed = {k: v for k, v in allowed.items()
               if k in records['fork']['counts']}
  report = compare(records['fork']['counts'], records['upstream']['counts'],
                   allowed)
  print(format_report(report))
  jax_version = records['fork']['jax_version']
  if jax_version != jax_listed:
    print(f'program_size: the allow-list holds counts of jax {jax_listed}, '
          f'this is jax {jax_version}: reported, not checked')
    return 0
  return 0 if report.ok else 1


if __name__ == '__main__':
  sys.exit(main())
