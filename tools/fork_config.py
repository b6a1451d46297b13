#!/usr/bin/env python3
# Copyright 2026 The Optax fork authors. All Rights Reserved.
# Licensed under the Apache License, Version 2.0.
"""The fork's settings of ``[tool.optax-fork]`` in pyproject.toml.

The upstream release this fork is based on, and that every lane compares
against, is written once, as ``upstream = "X.Y.Z"`` in that table. Python
lanes import this module (``from tools import fork_config``); shell lanes
run it from the repository's root::

  python -m tools.fork_config upstream      # prints e.g. 0.2.8

It is also the one place that fetches and checks upstream's published wheel
of that release (:func:`upstream_wheel`, :func:`fetch_wheel`,
:func:`check_wheel`, :func:`unpack_wheel`), which the lanes running
upstream's own tests (tools/upstream_suite.py) and the fix ledger's
reproducers (tools/upstream_status.py) take their upstream from.

It also decides whether an entry of ``deviations.toml`` applies to a run:
every entry names the upstream release it was written against
(``upstream = "0.2.8"``, or a list of them) and may name the jax versions it
holds for (``jax = ">=0.10"``, comma-separated clauses with ``==``, ``!=``,
``<``, ``<=``, ``>``, ``>=``; ``==0.10.*`` matches a series) and the jax
backends it holds on (``backend = "cpu"``, or a list of ``"cpu"``, ``"gpu"``,
``"tpu"``: ``jax.default_backend()`` of the interpreter that runs the
tests). An entry for another upstream release is stale: the rebase must
check it again. An entry whose jax range or backends exclude the jax in use
is skipped.

Reads only the standard library, so it runs under either interpreter.
"""

from __future__ import annotations

import argparse
import pathlib
import re
import subprocess
import sys
import tomllib
from typing import Any, Optional
import zipfile

REPO = pathlib.Path(__file__).resolve().parent.parent
PYPROJECT = REPO / 'pyproject.toml'

# The values of ``jax.default_backend()`` that an entry's ``backend`` names.
BACKENDS = ('cpu', 'gpu', 'tpu')

_CLAUSE = re.compile(r'^\s*(==|!=|<=|>=|<|>)?\s*([0-9][0-9.]*)(\.\*)?\s*$')


def settings(pyproject: pathlib.Path = PYPROJECT) -> dict[str, Any]:
  """The ``[tool.optax-fork]`` table of ``pyproject``."""
  with open(pyproject, 'rb') as f:
    table = tomllib.load(f).get('tool', {}).get('optax-fork')
  if not isinstance(table, dict) or not isinstance(
      table.get('upstream'), str):
    raise SystemExit(f'fork_config: {pyproject} needs a [tool.optax-fork] '
                     'table with upstream = "X.Y.Z" (the upstream release '
                     'the lanes compare against)')
  return table


def upstream_version(pyproject: pathlib.Path = PYPROJECT) -> str:
  """The upstream Optax release the lanes compare against."""
  return settings(pyproject)['upstream']


def fetch_wheel(dest: pathlib.Path, version: Optional[str] = None, *,
                caller: str = 'fork_config') -> pathlib.Path:
  """Downloads upstream's published wheel of ``version`` into ``dest``.

  ``pip download`` of this interpreter, wheel only, without dependencies.

  Args:
    dest: the folder to download into (made if missing).
    version: the upstream release; default :func:`upstream_version`.
    caller: the tool named in an error message.

  Returns:
    The wheel's path, checked by :func:`check_wheel`.

  Raises:
    SystemExit: when pip gives no wheel of that release.
    subprocess.CalledProcessError: when pip fails.
  """
  version = version or upstream_version()
  requirement = f'optax=={version}'
  subprocess.run(
      [sys.executable, '-m', 'pip', 'download', '-q', '--no-deps',
       '--only-binary=:all:', requirement, '-d', str(dest)], check=True)
  wheels = sorted(pathlib.Path(dest).glob(f'optax-{version}-*.whl'))
  if not wheels:
    raise SystemExit(f'{caller}: pip download {requirement} gave no wheel '
                     f'in {dest}')
  return check_wheel(wheels[0], version, caller=caller)


def check_wheel(wheel: pathlib.Path, version: Optional[str] = None, *,
                caller: str = 'fork_config') -> pathlib.Path:
  """Stops unless ``wheel`` is upstream's optax wheel of ``version``.

  Args:
    wheel: a wheel file, e.g. ``optax-0.2.8-py3-none-any.whl``.
    version: the upstream release it must be; default
      :func:`upstream_version`.
    caller: the tool named in the error message.

  Returns:
    ``wheel``, as a path.

  Raises:
    SystemExit: when its name is not ``optax-<version>-...whl``.
  """
  version = version or upstream_version()
  wheel = pathlib.Path(wheel)
  parts = wheel.name.split('-')
  if (len(parts) < 3 or parts[0] != 'optax' or parts[1] != version
      or wheel.suffix != '.whl'):
    raise SystemExit(f'{caller}: {wheel} is not an optax {version} wheel '
                     f'(the lanes compare against upstream {version}; '
                     '[tool.optax-fork] in pyproject.toml names the '
                     'release)')
  return wheel


def upstream_wheel(dest: pathlib.Path, version: Optional[str] = None,
                   wheel: Optional[pathlib.Path] = None, *,
                   caller: str = 'fork_config') -> pathlib.Path:
  """Upstream's wheel of ``version``: ``wheel`` if given, else downloaded.

  Args:
    dest: the folder to download into when no wheel is given.
    version: the upstream release; default :func:`upstream_version`.
    wheel: a wheel downloaded already (``--wheel PATH`` of the lanes).
    caller: the tool named in an error message.

  Returns:
    The wheel's path, checked by :func:`check_wheel`.
  """
  version = version or upstream_version()
  if wheel is not None:
    return check_wheel(wheel, version, caller=caller)
  return fetch_wheel(dest, version, caller=caller)


def unpack_wheel(wheel: pathlib.Path, dest: pathlib.Path,
                 version: Optional[str] = None, *,
                 caller: str = 'fork_config') -> pathlib.Path:
  """Unpacks upstream's wheel; returns the folder to put on PYTHONPATH.

  Args:
    wheel: upstream's wheel of ``version``.
    dest: the folder to unpack into; ``dest/optax`` is upstream's package.
    version: the upstream release; default :func:`upstream_version`.
    caller: the tool named in an error message.

  Returns:
    ``dest``.
  """
  check_wheel(wheel, version, caller=caller)
  with zipfile.ZipFile(wheel) as zf:
    zf.extractall(dest)
  return pathlib.Path(dest)


def _release(version: str) -> tuple[int, ...]:
  """The numeric release of a version string (``0.10.2.dev1`` -> 0,10,2)."""
  match = re.match(r'^\s*v?(\d+(?:\.\d+)*)', version)
  if match is None:
    raise ValueError(f'fork_config: cannot read the version {version!r}')
  return tuple(int(p) for p in match.group(1).split('.'))


def version_in_range(version: str, spec: str) -> bool:
  """Whether ``version`` satisfies every clause of ``spec``.

  Args:
    version: a version string, e.g. ``jax.__version__``.
    spec: comma-separated clauses such as ``>=0.10,<0.11``; a bare version
      means ``==``; ``==0.10.*`` matches every 0.10 release.

  Returns:
    True when all clauses hold.

  Raises:
    ValueError: if a clause cannot be read.
  """
  have = _release(version)
  for clause in spec.split(','):
    match = _CLAUSE.match(clause)
    if match is None:
      raise ValueError(f'fork_config: cannot read the version clause '
                       f'{clause!r} of {spec!r}; expected e.g. ">=0.10"')
    op, text, star = match.group(1) or '==', match.group(2), match.group(3)
    want = _release(text)
    if star:
      if op not in ('==', '!='):
        raise ValueError(f'fork_config: {clause!r}: ".*" only goes with == '
                         'or !=')
      equal = have[:len(want)] == want
      ok = equal if op == '==' else not equal
    else:
      width = max(len(have), len(want))
      a = have + (0,) * (width - len(have))
      b = want + (0,) * (width - len(want))
      ok = {'==': a == b, '!=': a != b, '<': a < b, '<=': a <= b,
            '>': a > b, '>=': a >= b}[op]
    if not ok:
      return False
  return True


def entry_backends(entry: dict[str, Any]) -> Optional[tuple[str, ...]]:
  """The jax backends a ``deviations.toml`` entry is scoped to, if any.

  Args:
    entry: one table of ``deviations.toml``.

  Returns:
    None when the entry has no ``backend`` field (it holds on every
    backend), else the backends it names.

  Raises:
    ValueError: if ``backend`` is neither a backend name nor a non-empty
      list of them (a misspelt name would otherwise never match).
  """
  if 'backend' not in entry:
    return None
  value = entry['backend']
  names = [value] if isinstance(value, str) else value
  if (not isinstance(names, list) or not names
      or any(n not in BACKENDS for n in names)):
    raise ValueError(
        f'fork_config: {entry.get("id")}: backend = {value!r}; expected one '
        f'of {", ".join(map(repr, BACKENDS))} or a non-empty list of them '
        '(the values of jax.default_backend())')
  return tuple(names)


def jax_backend(python: str = sys.executable) -> str:
  """``jax.default_backend()`` of ``python``, asked in a subprocess.

  A subprocess, so that the caller neither imports jax nor holds an
  accelerator while the tests it starts run.

  Args:
    python: the interpreter whose jax is asked.

  Returns:
    ``'cpu'``, ``'gpu'`` or ``'tpu'``.

  Raises:
    SystemExit: if jax cannot be imported or answers something else.
  """
  try:
    proc = subprocess.run(
        [python, '-c', 'import jax; print(jax.default_backend())'],
        capture_output=True, text=True, check=False)
  except OSError as e:
    raise SystemExit(
        f'fork_config: cannot tell the jax backend of {python}: {e}') from e
  lines = proc.stdout.strip().splitlines()
  backend = lines[-1] if lines else ''
  if proc.returncode != 0 or backend not in BACKENDS:
    raise SystemExit(f'fork_config: cannot tell the jax backend of {python} '
                     f'(exit {proc.returncode}, output {backend!r}): '
                     f'{proc.stderr[-2000:]}')
  return backend


def is_main(label: str) -> bool:
  """Whether an upstream label names upstream's main branch."""
  return label == 'main' or label.startswith('main@')


def not_applicable(
    entry: dict[str, Any], upstream: str, jax_version: Optional[str], *,
    backend: Optional[str] = None) -> Optional[tuple[str, str]]:
  """Why a ``deviations.toml`` entry does not apply to this run, if it does not.

  A run against upstream's main branch (``upstream`` is ``main@<commit>``,
  from a source checkout) takes every entry that names main (``main`` or any
  ``main@<commit>``: main moves on, and the lanes then tell whether the
  entry still holds); it skips an entry naming releases only, whose
  difference main may have absorbed. A run against a release skips an entry
  naming main only.

  Args:
    entry: one ``[[comparison]]``, ``[[upstream_suite]]`` or ``[[fuzz]]``
      (tools/fuzz/fuzz.py) table.
    upstream: the upstream compared against: a release
      (:func:`upstream_version`) or ``main@<commit>``.
    jax_version: the jax in use, or None when unknown (the jax range is then
      not checked).
    backend: jax's default backend in the run (:func:`jax_backend`), or None
      when unknown (the entry's ``backend`` is then not checked).

  Returns:
    None when the entry applies; else ``('stale', message)`` for an entry
    written against another upstream release (or naming none), which the
    lanes fail on, or ``('skipped', message)`` for an entry whose jax range
    excludes ``jax_version``, whose backends exclude ``backend``, or that
    names main only (on a release) or no main (on main), which the lanes
    only report.

  Raises:
    ValueError: for an unreadable ``jax`` or ``backend`` field.
  """
  name = entry.get('id')
  written = entry.get('upstream')
  if isinstance(written, str):
    written = [written]
  if not written:
    return ('stale', f'{name}: names no upstream release (add upstream = '
            f'"{upstream}" once checked against it)')
  if is_main(upstream):
    if not any(is_main(w) for w in written):
      return ('skipped', f'{name}: written against upstream '
              f'{", ".join(written)}, not main ({upstream} here)')
  elif all(is_main(w) for w in written):
    return ('skipped', f'{name}: written against upstream main only, this '
            f'run compares against {upstream}')
  elif upstream not in written:
    return ('stale', f'{name}: written against upstream {", ".join(written)}, '
            f'the lanes compare against {upstream}: check it again and '
            'update its upstream field, or remove it')
  spec = entry.get('jax')
  if spec and jax_version is not None and not version_in_range(
      jax_version, spec):
    return ('skipped', f'{name}: for jax {spec}, this run has jax '
            f'{jax_version}')
  backends = entry_backends(entry)
  if backends is not None and backend is not None and backend not in backends:
    return ('skipped', f'{name}: for the {"/".join(backends)} backend, this '
            f'run is on {backend}')
  return None


def main(argv: Optional[list[str]] = None) -> int:
  """Prints one setting of ``[tool.optax-fork]``."""
  parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
  parser.add_argument('key', help='a key of [tool.optax-fork], e.g. upstream')
  parser.add_argument('--pyproject', default=str(PYPROJECT))
  args = parser.parse_args(argv)
  table = settings(pathlib.Path(args.pyproject))
  if args.key not in table:
    print(f'fork_config: no {args.key!r} in [tool.optax-fork] of '
          f'{args.pyproject}; it has {sorted(table)}', file=sys.stderr)
    return 2
  print(table[args.key])
  return 0


if __name__ == '__main__':
  sys.exit(main())
