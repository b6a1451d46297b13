# Copyright 2026 The optax fork authors. All Rights Reserved.
# Licensed under the Apache License, Version 2.0.
"""Tests of the bit-identical check of tools/compare/compare.py."""

import pathlib
import tomllib

import numpy as np
import pytest

from tools.compare import cases
from tools.compare import compare

_HERE = pathlib.Path(__file__).resolve().parent


def _result(*values):
  leaves = [{'path': f'[{i}]', 'classes': ('list',),
             'shape': np.shape(v), 'dtype': str(np.asarray(v).dtype),
             'value': np.asarray(v)} for i, v in enumerate(values)]
  return {'kind': 'fn', 'warnings': [],
          'result': {'treedef': 'PyTreeDef([*])', 'leaves': leaves}}


def test_same_bits_are_identical():
  x = np.float32([1.0, np.nan, -0.0])
  assert compare.bit_difference(_result(x), _result(x.copy())) is None


_TWO_PLUS_ULP = np.nextafter(np.float32(2.0), np.float32(3.0))


@pytest.mark.parametrize('fork,upstream,within_tolerance', [
    # One float32 ulp: within the comparison's tolerance, not the same bits.
    (np.float32([1.0, 2.0]), np.float32([1.0, _TWO_PLUS_ULP]), True),
    (np.float32([0.0]), np.float32([-0.0]), True),
    (np.int32([3]), np.int32([4]), False),
])
def test_any_other_bit_differs(fork, upstream, within_tolerance):
  where = compare.bit_difference(_result(fork), _result(upstream))
  assert where == f'result[0]: 1 of {fork.size} elements differ in their bits'
  tolerated = not compare.compare_case('x/f32', _result(fork),
                                       _result(upstream))
  assert tolerated is within_tolerance


def test_an_exception_is_not_identical():
  raised = dict(_result(np.float32([1.0])), error=('ValueError', 'bad'))
  assert compare.bit_difference(raised, raised) is not None


def test_listed_cases_run_op_by_op_and_exist():
  with open(_HERE / 'bit_identical.toml', 'rb') as f:
    data = tomllib.load(f)
  jitted = {c.name for c in cases.optimizer_cases() if c.jit}
  names = {c.name for c in cases.optimizer_cases()}
  listed = data['cases']
  assert len(listed) == len(set(listed))
  assert not set(listed) & jitted
  optimizer_like = [n for n in listed if n.split('/')[0] in (
      'alias', 'contrib', 'scale_by', 'wrapper', 'inject')]
  assert set(optimizer_like) <= names


def test_bit_identical_list_is_only_reported_against_main(tmp_path, capsys):
  listed = tmp_path / 'bits.toml'
  listed.write_text('upstream = "0.2.8"\nreason = "r"\ncases = ["a", "b"]\n')
  fork = {'a': _result(np.float32([1.0])), 'b': _result(np.float32([1.0]))}
  upstream = {'a': _result(np.float32([1.0])),
              'b': _result(np.float32([2.0]))}
  # Against its own release the differing case fails; against main it is
  # counted, not judged.
  assert compare._check_bit_identical(  # pylint: disable=protected-access
      str(listed), '0.2.8', fork, upstream) == 1
  assert compare._check_bit_identical(  # pylint: disable=protected-access
      str(listed), 'main@2edbcbe2', fork, upstream) == 0
  assert '1 of its 2 cases that ran are bit-identical' in (
      capsys.readouterr().out)
