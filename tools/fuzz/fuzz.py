#!/usr/bin/env python3
# Copyright 2026 The Optax fork authors. All Rights Reserved.
# Licensed under the Apache License, Version 2.0.
"""Fuzz lane: the fork's outcomes against upstream Optax's on odd input.

Usage (with the fork's interpreter, which reads the composition registry)::

  python -m tools.fuzz.fuzz --upstream-python UPSTREAM_PY \\
      [--cases N] [--seed S] [--no-sweep] [--timeout SECONDS] \\
      [--only GLOB] [--deviations deviations.toml] [--keep DIR] \\
      [--rejudge DIR] [--verbose]

It makes the cases of tools/fuzz/fuzz_cases.py: a sweep of every optimizer
of ``optax._src.testing.registry`` alone with ten odd inputs each, and
``N`` drawn ones (default 200, seeded) in the wrappers of the composition
test, with odd hyperparameters, params trees and gradients, jitted or
eager, three steps each. It runs them under upstream Optax and under the fork
(``python -m tools.fuzz.fuzz_worker``, each interpreter in its own process,
both at once, with its current directory outside the repository and
``PYTHONPATH`` naming a folder that holds only ``tools``, see
tools/toolpath.py, so that each imports its own ``optax``), with a time limit
per case, and compares the outcomes. Each side's outcome is one class:
``finite``, ``nonfinite``, ``clear`` (a deliberate, explained exception),
``internal`` (any other exception), ``timeout``, ``crash`` (the process
died) or ``n/a``. The lane fails on these rules:

* ``internal``: the fork raises an internal error, times out or crashes;
* ``dtype-shape``: a step of the fork returns updates whose tree, shapes or
  dtypes are not the params' (a silent change);
* ``accepts-mismatch``: the gradients' tree or shapes are not the params'
  and the fork returns updates shaped as the params, without an error (a
  mismatch broadcast or dropped silently);
* ``nonfinite``: upstream's result is finite and the fork's is not;
* ``rejects-hyperparameter``, ``rejects-input``: upstream's result is
  finite and the fork raises a clear error, when the optimizer is built or
  later (in init or a step) respectively: a deliberate rejection of what
  upstream computes with must be ledgered;
* ``hides``: the case gives a non-finite gradient or hyperparameter,
  upstream's result is non-finite and the fork's is finite (a NaN hidden
  from the user).

A clear error on the fork where upstream's result is non-finite, or where
upstream raises, is an improvement, not a failure. A case that breaks a rule
on purpose is listed in ``deviations.toml`` as a ``[[fuzz]]`` entry: ``id``
(an ``fnmatch`` pattern of case names, or a list), ``fix`` (the ledger id),
``upstream`` (the release it was checked against, see tools/fork_config.py),
``reason`` and ``differs`` (the rules it allows). An entry whose patterns
match cases of the run none of which breaks a rule it allows is stale and
fails the lane; one that matches no case of the run is reported. (Staleness
is judged per entry, not per pattern: a drawn run may not hit every pattern
of an entry.)

The last line is ``fuzz: N cases, F failed, L listed, S stale entries``;
the exit status is 1 if F + S > 0.
"""

from __future__ import annotations

import argparse
import collections
import fnmatch
import json
import os
import pathlib
import pickle
import queue
import resource
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
import tomllib
import warnings
from typing import Any, Optional, Sequence

from tools import fork_config
from tools import toolpath
from tools.fuzz import fuzz_cases

REPO = pathlib.Path(__file__).resolve().parents[2]
# The worker's command after the interpreter.
WORKER = ('-m', 'tools.fuzz.fuzz_worker')

RULES = ('internal', 'dtype-shape', 'accepts-mismatch', 'nonfinite',
         'rejects-hyperparameter', 'rejects-input', 'hides')
CLASSES = ('finite', 'nonfinite', 'clear', 'internal', 'timeout', 'crash',
           'n/a')
_ERRORS = ('clear', 'internal', 'timeout', 'crash')


def _odd_inputs(spec: dict[str, Any]) -> bool:
  """Whether the case gives a non-finite gradient or hyperparameter."""
  hyper = spec.get('hyper')
  return spec['grads'] in fuzz_cases.NON_FINITE_GRADS or (
      hyper is not None and hyper[1] in fuzz_cases.NON_FINITE_HYPER)


def broken_rules(spec: dict[str, Any], fork: dict[str, Any],
                 upstream: dict[str, Any]) -> list[tuple[str, str]]:
  """The rules a case breaks, each with a line that says how.

  Args:
    spec: the case.
    fork: the fork's record (``class``, ``mismatch``, ``error``).
    upstream: upstream's record.

  Returns:
    ``[(rule, detail), ...]``, empty when the case passes.
  """
  fc, uc = fork['class'], upstream['class']
  out = []

  def error_text(rec):
    e = rec.get('error')
    if not e:
      return rec['class']
    first = (e['message'].strip().splitlines() or [''])[0][:160]
    return f'{e["type"]} at {e["stage"]}: {first}'

  if fc in ('internal', 'timeout', 'crash'):
    out.append(('internal', f'fork {fc}: {error_text(fork)}'))
  if fork.get('mismatch'):
    out.append(('dtype-shape', '; '.join(fork['mismatch'][:3])))
  elif spec['grads'] in fuzz_cases.MISMATCHED_GRADS and fc in (
      'finite', 'nonfinite'):
    out.append(('accepts-mismatch', f'gradients {spec["grads"]}, the fork '
                'returns updates shaped as the params without an error'))
  if uc == 'finite' and fc == 'nonfinite':
    out.append(('nonfinite', 'upstream finite, fork non-finite'))
  if uc == 'finite' and fc == 'clear':
    stage = fork.get('error', {}).get('stage')
    rule = 'rejects-hyperparameter' if stage == 'build' else 'rejects-input'
    out.append((rule, f'upstream finite, fork {error_text(fork)}'))
  if uc == 'nonfinite' and fc == 'finite' and _odd_inputs(spec):
    out.append(('hides', 'upstream non-finite, fork finite on non-finite '
                'input'))
  return out


def load_deviations(path: Optional[str]) -> list[dict[str, Any]]:
  """The ``[[fuzz]]`` entries of a deviations file, ``id`` made a list."""
  if not path:
    return []
  with open(path, 'rb') as f:
    entries = tomllib.load(f).get('fuzz', [])
  for e in entries:
    for key in ('id', 'fix', 'reason', 'differs'):
      if not e.get(key):
        raise ValueError(f'{path}: every [[fuzz]] needs id, fix, upstream, '
                         f'reason and differs; {e.get("id")} lacks {key}')
    if isinstance(e['id'], str):
      e['id'] = [e['id']]
    if isinstance(e['differs'], str):
      e['differs'] = [e['differs']]
    unknown = set(e['differs']) - set(RULES)
    if unknown:
      raise ValueError(f'{path}: [[fuzz]] {e["id"]}: differs must be among '
                       f'{RULES}, got {sorted(unknown)}')
  return entries


# ----------------------------------------------------------------------------
# Running one side.


class Side:
  """Runs the cases in one interpreter, with a time limit per case."""

  def __init__(self, label: str, python: str, cases_path: pathlib.Path,
               work: pathlib.Path, timeout: float, verbose: bool,
               worker: Sequence[str] = WORKER):
    self.label = label
    self.worker = worker
    self.python = python
    self.cases_path = cases_path
    self.out = work / f'{label}.pkl'
    self.log = work / f'{label}.log'
    self.work = work
    self.timeout = timeout
    self.verbose = verbose
    self.lost: dict[int, str] = {}  # case index -> 'timeout' or 'crash'
    self.failure: Optional[str] = None  # why the side stopped early

  def _env(self) -> dict[str, str]:
    # Only tools on the path: the worker imports its interpreter's optax.
    env = toolpath.env(self.work / 'toolpath')
    env.update(JAX_PLATFORMS='cpu', JAX_TRACEBACK_FILTERING='off',
               PYTHONWARNINGS='ignore')
    return env

  def run(self, n: int) -> None:
    """Runs cases 0..n-1, restarting the worker after a lost case."""
    start = 0
    with open(self.log, 'w', encoding='utf-8') as log:
      try:
        while start < n:
          start = self._run_from(start, n, log)
      except (RuntimeError, OSError, SystemExit) as exc:
        # A thread that dies of SystemExit does so silently: say why.
        self.failure = f'fuzz: {self.label} side: {exc}'
        return
    (self.work / f'{self.label}.lost.json').write_text(
        json.dumps(self.lost), encoding='utf-8')

  def load_lost(self) -> None:
    """Reads the lost cases of an earlier run in the same folder."""
    path = self.work / f'{self.label}.lost.json'
    if path.exists():
      self.lost = {int(k): v for k, v in json.loads(
          path.read_text(encoding='utf-8')).items()}

  def _run_from(self, start: int, n: int, log) -> int:
    cmd = [self.python, *self.worker, '--cases',
           str(self.cases_path), '--out', str(self.out), '--start',
           str(start)]
    proc = subprocess.Popen(  # pylint: disable=consider-using-with
        cmd, cwd=self.work, env=self._env(), stdout=subprocess.PIPE,
        stderr=log, text=True, start_new_session=True)
    lines: queue.Queue[Optional[str]] = queue.Queue()

    def read():
      for line in proc.stdout:
        lines.put(line)
      lines.put(None)

    threading.Thread(target=read, daemon=True).start()
    current, began = None, time.monotonic()
    while True:
      # Between cases (the worker starting, a record being written) the
      # limit is ten times a case's.
      allowed = self.timeout * (1 if current is not None else 10)
      limit = max(0.0, allowed - (time.monotonic() - began))
      try:
        line = lines.get(timeout=limit)
      except queue.Empty:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()
        if current is None:
          raise RuntimeError(
              f'fuzz: {self.label} worker silent for {allowed:.0f}s '
              f'between cases; see {self.log}') from None
        self.lost[current] = 'timeout'
        print(f'fuzz: {self.label}: case {current} ran past '
              f'{self.timeout:.0f}s', flush=True)
        return current + 1
      if line is None:
        proc.wait()
        if current is not None:
          self.lost[current] = 'crash'
          print(f'fuzz: {self.label}: the worker died in case {current} '
                f'(exit {proc.returncode}); see {self.log}', flush=True)
          return current + 1
        if proc.returncode != 0:
          raise RuntimeError(f'fuzz: {self.label} worker failed (exit '
                             f'{proc.returncode}); see {self.log}')
        return n
      word, _, rest = line.strip().partition(' ')
      if word == 'BEGIN':
        current, began = int(rest), time.monotonic()
      elif word == 'END':
        current, began = None, time.monotonic()
        if self.verbose:
          print(f'{self.label}: {rest}', flush=True)

  def records(self) -> tuple[dict[str, Any], dict[int, dict[str, Any]]]:
    """(meta, {case index: record}) of the run."""
    meta: dict[str, Any] = {}
    recs: dict[int, dict[str, Any]] = {}
    with open(self.out, 'rb') as f:
      while True:
        try:
          key, value = pickle.load(f)
        except EOFError:
          break
        if key == 'meta':
          meta = value
        else:
          recs[key] = value
    for i, why in self.lost.items():
      recs[i] = {'class': why, 'mismatch': []}
    return meta, recs


def _registry_entries():
  try:
    # pylint: disable-next=import-outside-toplevel
    from optax._src.testing import registry
  except ImportError as exc:
    raise SystemExit('fuzz: run python -m tools.fuzz.fuzz with the fork\'s '
                     'interpreter (it reads optax._src.testing.registry): '
                     f'{exc}') from exc
  return list(registry.ENTRIES)


# ----------------------------------------------------------------------------
# The report.


def _table(counts: dict[str, collections.Counter], up_version: str) -> str:
  head = f'upstream {up_version}'
  rows = [f'  {"class":<10} {head:>16} {"fork":>8}']
  for c in CLASSES:
    u, f = counts['upstream'][c], counts['fork'][c]
    if u or f:
      rows.append(f'  {c:<10} {u:>16} {f:>8}')
  total_u = sum(counts['upstream'].values())
  total_f = sum(counts['fork'].values())
  rows.append(f'  {"total":<10} {total_u:>16} {total_f:>8}')
  return '\n'.join(rows)


def _features(name: str) -> list[str]:
  """The odd inputs of a case name (``h:lr=nan``, ``p:none_leaf``, ...)."""
  parts = name.split('/')
  out = [p for p in parts if p.startswith(('h:', 'p:', 'g:'))
         and p not in ('h:default', 'p:f32', 'g:normal')]
  return out or ['plain']


def compare_runs(specs: list[dict[str, Any]],
                 fork: dict[int, dict[str, Any]],
                 upstream: dict[int, dict[str, Any]],
                 deviations: list[dict[str, Any]], verbose: bool = False,
                 limit: int = 40) -> dict[str, Any]:
  """Applies the rules and the deviations; prints the failures.

  Args:
    specs: the cases.
    fork: the fork's records by case index.
    upstream: upstream's records by case index.
    deviations: the applicable ``[[fuzz]]`` entries.
    verbose: print every failing case (else the first ``limit`` of each
      rule).
    limit: see ``verbose``.

  Returns:
    ``{'failed': [(name, rule, detail)], 'listed': [...], 'stale': [...],
    'unused': [...], 'counts': {'fork': Counter, 'upstream': Counter},
    'value_diffs': int}``.
  """
  # pylint: disable-next=import-outside-toplevel
  from tools.compare import compare
  counts = {'fork': collections.Counter(), 'upstream': collections.Counter()}
  failed, listed = [], []
  # Per entry (by its position): whether a case matched it, and whether it
  # allowed a broken rule.
  used = [False] * len(deviations)
  matched = [False] * len(deviations)
  value_diffs = 0
  for i, spec in enumerate(specs):
    name = spec['name']
    f, u = fork.get(i), upstream.get(i)
    if f is None or u is None:
      failed.append((name, 'internal', 'no record on one side'))
      continue
    counts['fork'][f['class']] += 1
    counts['upstream'][u['class']] += 1
    if f['class'] == u['class'] == 'finite' and 'kind' in f and 'kind' in u:
      with warnings.catch_warnings():
        warnings.simplefilter('ignore')  # complex leaves compared as real.
        value_diffs += bool(compare.compare_case(name, f, u))
    allowed = set()
    for k, e in enumerate(deviations):
      if any(fnmatch.fnmatchcase(name, p) for p in e['id']):
        matched[k] = True
        allowed |= {(r, k) for r in e['differs']}
    for rule, detail in broken_rules(spec, f, u):
      allowing = [k for r, k in allowed if r == rule]
      if allowing:
        for k in allowing:
          used[k] = True
        listed.append((name, rule, detail))
      else:
        failed.append((name, rule, detail))
  by_rule = collections.defaultdict(list)
  by_feature = collections.defaultdict(collections.Counter)
  for name, rule, detail in failed:
    by_rule[rule].append((name, detail))
    for feature in _features(name):
      by_feature[feature][rule] += 1
  for rule in RULES:
    items = by_rule.get(rule, [])
    if items:
      print(f'{rule}: {len(items)} cases')
    for name, detail in items if verbose else items[:limit]:
      print(f'  FAIL {name}: {detail}')
    if len(items) > limit and not verbose:
      print(f'  ... {len(items) - limit} more (--verbose shows them)')
  if by_feature:
    print('failures by odd input (a case counts under each of its odd '
          'inputs):')
    short = ('internal', 'dtype-shape', 'accepts', 'nonfinite', 'rej-hyper',
             'rej-input', 'hides')
    print(f'  {"input":<30}' + ''.join(f'{r:>12}' for r in short))
    for feature, c in sorted(by_feature.items()):
      print(f'  {feature:<30}' + ''.join(f'{c[r]:>12}' for r in RULES))
  stale = [deviations[k]['id'] for k in range(len(deviations))
           if matched[k] and not used[k]]
  unused = [deviations[k]['id'] for k in range(len(deviations))
            if not matched[k]]
  for ids in stale:
    print(f'STALE [[fuzz]] {ids}: its cases ran and none breaks a rule it '
          'allows; remove it from the deviations file')
  for ids in unused:
    print(f'[[fuzz]] {ids}: no case of this run matches it')
  return {'failed': failed, 'listed': listed, 'stale': stale,
          'unused': unused, 'counts': counts, 'value_diffs': value_diffs}


def _run_both(specs: list[dict[str, Any]], args: argparse.Namespace):
  """Runs the cases on both sides at once; returns their (meta, records)."""
  if args.keep:
    work = pathlib.Path(args.keep).resolve()
    work.mkdir(parents=True, exist_ok=True)
    for old in ('fork.pkl', 'upstream.pkl'):
      (work / old).unlink(missing_ok=True)
  else:
    work = pathlib.Path(tempfile.mkdtemp(prefix='optax-fuzz.'))
  try:
    cases_path = work / 'cases.json'
    cases_path.write_text(json.dumps(specs, indent=1), encoding='utf-8')
    toolpath.make(work / 'toolpath')  # Once, before both sides start.
    sides = {label: Side(label, python, cases_path, work, args.timeout,
                         args.verbose)
             for label, python in (('fork', args.fork_python),
                                   ('upstream', args.upstream_python))}
    threads = [threading.Thread(target=s.run, args=(len(specs),))
               for s in sides.values()]
    for t in threads:
      t.start()
    for t in threads:
      t.join()
    for side in sides.values():
      if side.failure:
        raise SystemExit(side.failure)
    return sides['fork'].records(), sides['upstream'].records()
  finally:
    if not args.keep:
      shutil.rmtree(work, ignore_errors=True)


def main(argv: Optional[list[str]] = None) -> int:
  """Command line entry point."""
  parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
  parser.add_argument('--upstream-python',
                      help='an interpreter with upstream optax installed')
  parser.add_argument('--fork-python', default=sys.executable)
  parser.add_argument('--cases', type=int, default=200,
                      help='drawn cases, besides the sweep\'s')
  parser.add_argument('--no-sweep', action='store_true',
                      help='only the drawn cases (no sweep of every entry '
                      'with each odd input)')
  parser.add_argument('--seed', type=int, default=20261127)
  parser.add_argument('--timeout', type=float, default=60.0,
                      help='seconds a case may take on one side')
  parser.add_argument('--only', default=None,
                      help='run only the drawn cases matching this glob')
  parser.add_argument('--deviations', default=str(REPO / 'deviations.toml'))
  parser.add_argument('--keep', default=None,
                      help='keep the cases, records and logs in this folder')
  parser.add_argument('--rejudge', default=None, metavar='DIR',
                      help='judge the cases and records kept in DIR by an '
                      'earlier --keep run again (after editing the '
                      'deviations), without running anything')
  parser.add_argument('--verbose', action='store_true')
  args = parser.parse_args(argv)
  if not args.upstream_python and not args.rejudge:
    parser.error('--upstream-python is required (unless --rejudge)')

  start = time.monotonic()
  upstream_version = fork_config.upstream_version()
  specs = [] if args.rejudge else fuzz_cases.generate(
      _registry_entries(), args.cases, args.seed,
      with_sweep=not args.no_sweep)
  if args.only:
    specs = [s for s in specs if fnmatch.fnmatchcase(s['name'], args.only)]
  deviations = []
  stale_entries = 0
  for e in load_deviations(args.deviations):
    why = fork_config.not_applicable(e, upstream_version, None)
    if why is None:
      deviations.append(e)
    elif why[0] == 'stale':
      stale_entries += 1
      print(f'STALE [[fuzz]] {why[1]}')
  if args.rejudge:
    work = pathlib.Path(args.rejudge).resolve()
    specs = json.loads((work / 'cases.json').read_text(encoding='utf-8'))
    sides = {label: Side(label, '', work / 'cases.json', work, 0, False)
             for label in ('fork', 'upstream')}
    for side in sides.values():
      side.load_lost()
    (fork_meta, fork), (up_meta, upstream) = (sides['fork'].records(),
                                              sides['upstream'].records())
  else:
    (fork_meta, fork), (up_meta, upstream) = _run_both(specs, args)
  print(f'fuzz: seed {args.seed}, {len(specs)} cases; fork optax '
        f'{fork_meta.get("optax_version")} ({fork_meta.get("optax_file")}), '
        f'upstream optax {up_meta.get("optax_version")} '
        f'({up_meta.get("optax_file")})')
  failed_meta = 0
  if up_meta.get('optax_version') != upstream_version:
    failed_meta = 1
    print(f'FAIL the upstream side runs optax {up_meta.get("optax_version")}, '
          f'the lanes compare against {upstream_version}')
  if str(REPO) in str(up_meta.get('optax_file')):
    failed_meta = 1
    print('FAIL the upstream side imports the fork')
  deviations = [e for e in deviations if fork_config.not_applicable(
      e, upstream_version, fork_meta.get('jax_version')) is None]
  result = compare_runs(specs, fork, upstream, deviations, args.verbose)
  print('outcomes:')
  print(_table(result['counts'], upstream_version))
  both = result['counts']['fork']['finite']
  print(f'both finite but values beyond compare.py\'s tolerances: '
        f'{result["value_diffs"]} (reported, not a failure; of {both} '
        'finite on the fork)')
  by_rule = collections.Counter(rule for _, rule, _ in result['failed'])
  print('failed rules: ' + (', '.join(
      f'{r} {by_rule[r]}' for r in RULES if by_rule[r]) or 'none'))
  n_failed = len({name for name, _, _ in result['failed']}) + failed_meta
  n_stale = len(result['stale']) + stale_entries
  cpu = resource.getrusage(resource.RUSAGE_CHILDREN)
  print(f'fuzz: {len(specs)} cases, {n_failed} failed, '
        f'{len({n for n, _, _ in result["listed"]})} listed, {n_stale} '
        f'stale entries, {time.monotonic() - start:.0f}s '
        f'(workers\' CPU {cpu.ru_utime + cpu.ru_stime:.0f}s)')
  return 1 if n_failed or n_stale else 0


if __name__ == '__main__':
  sys.exit(main())
