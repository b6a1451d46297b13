# Copyright 2026 The Optax fork authors. All Rights Reserved.
# Licensed under the Apache License, Version 2.0.
"""A folder that holds only ``tools``, for PYTHONPATH.

``python -m tools.NAME`` from the repository's root puts the root on the
module search path, and with it the checkout's ``optax/``. A process that must
import another ``optax`` (upstream's, under upstream's interpreter; the
installed wheel, in test.sh) runs instead from a folder without ``optax/``,
with ``PYTHONPATH`` naming a folder whose only entry is a ``tools`` link to
this package: ``tools`` imports, ``optax`` is the interpreter's own. The
lanes make one in their temporary folder (test.sh, tools/compare/run.sh,
tools/fuzz/fuzz.py); by hand::

  toolpath="$(python -m tools.toolpath)"        # prints the folder
  (cd /tmp && PYTHONPATH="$toolpath" /path/to/upstream/bin/python \\
      -m tools.upstream_api --check)

``python -m tools.toolpath --optax`` prints which ``optax`` the interpreter
imports where it runs: test.sh checks with it that its tools import the
installed wheel.

Reads only the standard library, so it runs under either interpreter.
"""

from __future__ import annotations

import argparse
import os
import pathlib
import sys
import tempfile
from typing import Mapping, Optional

PACKAGE = pathlib.Path(__file__).resolve().parent


def make(dest: os.PathLike[str] | str) -> pathlib.Path:
  """Makes ``dest`` hold a ``tools`` link to this package; returns ``dest``.

  Args:
    dest: the folder (made if missing). A ``tools`` link already there that
      points elsewhere (another checkout) is replaced.

  Returns:
    ``dest``, resolved, for PYTHONPATH.

  Raises:
    SystemExit: when ``dest/tools`` exists and is not a link.
  """
  dest = pathlib.Path(dest).resolve()
  dest.mkdir(parents=True, exist_ok=True)
  link = dest / 'tools'
  # Made first and looked at after: another thread or process may make the
  # same link at the same time (the fuzz lane's two sides do).
  try:
    link.symlink_to(PACKAGE, target_is_directory=True)
    return dest
  except FileExistsError:
    pass
  if not link.is_symlink():
    raise SystemExit(f'toolpath: {link} exists and is not a link to '
                     f'{PACKAGE}')
  if link.resolve() != PACKAGE:  # Another checkout's.
    link.unlink()
    link.symlink_to(PACKAGE, target_is_directory=True)
  return dest


def default_folder() -> pathlib.Path:
  """The folder :func:`main` makes when given none (one per user)."""
  uid = os.getuid() if hasattr(os, 'getuid') else 0
  return pathlib.Path(tempfile.gettempdir()) / f'optax-fork-toolpath.{uid}'


def env(dest: os.PathLike[str] | str,
        environ: Optional[Mapping[str, str]] = None, *,
        keep_pythonpath: bool = False) -> dict[str, str]:
  """An environment whose PYTHONPATH names :func:`make`'s folder.

  Args:
    dest: the folder to make (see :func:`make`).
    environ: the environment to start from (default ``os.environ``).
    keep_pythonpath: keep the caller's PYTHONPATH after the folder
      (else it is dropped).

  Returns:
    The environment.
  """
  out = dict(os.environ if environ is None else environ)
  path = [str(make(dest))]
  if keep_pythonpath and out.get('PYTHONPATH'):
    path.append(out['PYTHONPATH'])
  out['PYTHONPATH'] = os.pathsep.join(path)
  return out


def main(argv: Optional[list[str]] = None) -> int:
  """Makes the folder and prints it, or prints which optax is imported."""
  parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
  parser.add_argument('folder', nargs='?', default=None,
                      help=f'default: {default_folder()}')
  parser.add_argument('--optax', action='store_true',
                      help='make nothing; print the file of the optax that '
                      'this interpreter imports where it runs (test.sh '
                      'checks that a tool run from its folder imports the '
                      'wheel, not the checkout)')
  args = parser.parse_args(argv)
  if args.optax:
    import optax  # pylint: disable=import-outside-toplevel
    print(pathlib.Path(optax.__file__).resolve())
    return 0
  print(make(args.folder or default_folder()))
  return 0


if __name__ == '__main__':
  sys.exit(main())
