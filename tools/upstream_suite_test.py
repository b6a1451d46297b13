# Copyright 2026 The Optax fork authors. All Rights Reserved.
# Licensed under the Apache License, Version 2.0.
"""Tests of upstream_suite's reading of the deviations' outcomes."""

import tomllib

import pytest

from tools import fork_config
from tools import upstream_suite


def test_a_passing_deviation_is_stale_unless_either():
  listed = {
      'a_test.py::T::test_fails': {'id': 'a_test.py::T::test_fails'},
      'a_test.py::T::test_passes': {'id': 'a_test.py::T::test_passes'},
      'a_test.py::T::test_either': {'id': 'a_test.py::T::test_either',
                                    'outcome': 'either'},
      'a_test.py::T::test_either_fails': {
          'id': 'a_test.py::T::test_either_fails', 'outcome': 'either'},
  }
  outcomes = {
      'a_test.py::T::test_fails': 'failed',
      'a_test.py::T::test_passes': 'passed',
      'a_test.py::T::test_either': 'passed',
      'a_test.py::T::test_either_fails': 'failed',
  }
  stale, either = upstream_suite.stale_deviations(listed, outcomes)
  assert stale == ['a_test.py::T::test_passes']
  assert either == ['a_test.py::T::test_either']


def test_an_unknown_outcome_is_refused():
  listed = {'t': {'id': 't', 'outcome': 'passes'}}
  with pytest.raises(ValueError, match='outcome must be "either"'):
    upstream_suite.stale_deviations(listed, {'t': 'failed'})


def test_the_deviations_outcomes_are_readable():
  with open(fork_config.REPO / 'deviations.toml', 'rb') as f:
    entries = tomllib.load(f)['upstream_suite']
  listed = {e['id']: e for e in entries}
  either = [t for t, e in listed.items() if e.get('outcome') == 'either']
  # Only upstream tests that upstream fails too may allow either outcome.
  assert all(listed[t]['fix'] == 'upstream-fails-too' for t in either)
  stale, passing = upstream_suite.stale_deviations(
      listed, dict.fromkeys(listed, 'passed'))
  assert sorted(passing) == sorted(either)
  assert len(stale) == len(listed) - len(either)
