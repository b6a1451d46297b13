# Copyright 2026 The Optax fork authors. All Rights Reserved.
# Licensed under the Apache License, Version 2.0.
"""A pytest plugin that records each test's outcome for upstream_status.py.

tools/upstream_status.py copies this file into the folder it runs pytest in
and loads it with ``-p upstream_status_plugin``. At the end of the session it
writes, to the file named by ``$UPSTREAM_STATUS_OUT``, a JSON object::

  {'meta': {'optax_file', 'optax_version', 'jax_version', 'error'},
   'tests': {nodeid: {'outcome', 'crash', 'text'}},
   'collect_errors': {nodeid: {'outcome', 'crash', 'text'}}}

with ``outcome`` one of passed, failed, skipped (an expected failure counts
as failed, an unexpected pass as passed: the body's own result), ``crash``
the one-line reason of a failure or skip and ``text`` the end of its report.
The ``meta`` fields are read from the ``optax`` that this very process
imported, so the caller can check which package the tests ran against.
Standard library only: it runs under the upstream interpreter too.
"""

from __future__ import annotations

import json
import os
import sys
from typing import Any

_TEXT_CHARS = 6000
_RANK = {'passed': 0, 'skipped': 1, 'failed': 2}
_TESTS: dict[str, dict[str, str]] = {}
_COLLECT_ERRORS: dict[str, dict[str, str]] = {}


def _details(report: Any, outcome: str) -> dict[str, str]:
  """The outcome with the report's one-line reason and its text's end."""
  crash = getattr(report.longrepr, 'reprcrash', None)
  if crash is not None:
    reason = crash.message
  elif isinstance(report.longrepr, tuple) and len(report.longrepr) == 3:
    reason = str(report.longrepr[2])  # A skip: (file, line, reason).
  else:
    reason = ''
  text = report.longreprtext if outcome == 'failed' else ''
  if not reason and text:
    reason = '\n'.join(line[1:].strip() for line in text.splitlines()
                       if line.startswith('E '))
  return {'outcome': outcome, 'crash': reason, 'text': text[-_TEXT_CHARS:]}


def pytest_collectreport(report: Any) -> None:
  """Keeps the files (or classes) that could not be collected."""
  if report.failed:
    _COLLECT_ERRORS[report.nodeid] = _details(report, 'failed')


def pytest_runtest_logreport(report: Any) -> None:
  """Merges the setup, call and teardown reports of each test."""
  if hasattr(report, 'wasxfail'):
    outcome = 'failed' if report.skipped else 'passed'
  else:
    outcome = report.outcome
  if report.when != 'call' and outcome == 'passed':
    _TESTS.setdefault(report.nodeid, {'outcome': 'passed', 'crash': '',
                                      'text': ''})
    return
  seen = _TESTS.get(report.nodeid)
  if seen is None or _RANK[outcome] >= _RANK[seen['outcome']]:
    _TESTS[report.nodeid] = _details(report, outcome)


def _meta() -> dict[str, str]:
  """Where the ``optax`` of this process comes from."""
  try:
    import jax  # pylint: disable=import-outside-toplevel
    import optax  # pylint: disable=import-outside-toplevel
  except Exception as exc:  # pylint: disable=broad-exception-caught
    return {'optax_file': '', 'optax_version': '', 'jax_version': '',
            'error': f'{type(exc).__name__}: {exc}'}
  return {'optax_file': str(optax.__file__),
          'optax_version': str(getattr(optax, '__version__', '')),
          'jax_version': str(jax.__version__), 'error': '',
          'python': sys.executable}


def pytest_sessionfinish(session: Any, exitstatus: int) -> None:
  """Writes the record; pytest's own exit status is not needed."""
  del session, exitstatus
  path = os.environ.get('UPSTREAM_STATUS_OUT')
  if not path:
    return
  with open(path, 'w', encoding='utf-8') as f:
    json.dump({'meta': _meta(), 'tests': _TESTS,
               'collect_errors': _COLLECT_ERRORS}, f, indent=1)
