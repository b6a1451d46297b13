# Copyright 2026 The Optax fork authors. All Rights Reserved.
# Licensed under the Apache License, Version 2.0.
"""Tests of tools/program_size.py: the comparison on synthetic counts."""

import pathlib
import textwrap

import pytest

from tools import program_size


def _counts(instructions, flops=10.0):
  return {'instructions': instructions, 'flops': flops}


def _entry(case, fork_instructions, fork_flops=10.0, **extra):
  return {'case': case, 'fork_instructions': fork_instructions,
          'upstream_instructions': 1, 'fork_flops': fork_flops,
          'upstream_flops': 1.0, 'reason': 'a guard', **extra}


def test_count_instructions_counts_every_computation():
  text = textwrap.dedent("""\
      HloModule jit_f, entry_computation_layout={(f32[4]{0})->f32[4]{0}}

      %fused_computation (param_0: f32[4]) -> f32[4] {
        %param_0 = f32[4]{0} parameter(0)
        ROOT %negate.1 = f32[4]{0} negate(f32[4]{0} %param_0)
      }

      ENTRY %main.4 (Arg_0.1: f32[4]) -> f32[4] {
        %Arg_0.1 = f32[4]{0} parameter(0)
        ROOT %negate_fusion = f32[4]{0} fusion(f32[4]{0} %Arg_0.1), kind=kLoop
      }
      """)
  assert program_size.count_instructions(text) == 4


def test_count_instructions_of_a_compiled_program():
  jax = pytest.importorskip('jax')
  text = jax.jit(lambda x: x * 2.0 + 1.0).lower(
      jax.numpy.ones(3)).compile().as_text()
  # A parameter, the fused kernel's body (at least a multiply and an add)
  # and the fusion itself.
  assert program_size.count_instructions(text) >= 4


def test_smaller_or_equal_passes():
  report = program_size.compare(
      {'a': _counts(5), 'b': _counts(7, 3.0)},
      {'a': _counts(5), 'b': _counts(9, 3.0)}, {})
  assert report.ok
  assert report.compared == 2
  assert not report.failures and not report.stale and not report.listed


def test_more_instructions_without_listing_fails():
  report = program_size.compare({'a': _counts(6)}, {'a': _counts(5)}, {})
  assert not report.ok
  assert len(report.failures) == 1
  assert 'a: 6 instructions' in report.failures[0]
  assert 'not listed' in report.failures[0]


def test_more_flops_without_listing_fails():
  report = program_size.compare({'a': _counts(4, 11.0)},
                                {'a': _counts(5, 10.0)}, {})
  assert not report.ok
  assert 'not listed' in report.failures[0]


def test_listed_larger_case_passes():
  report = program_size.compare({'a': _counts(6, 12.0)},
                                {'a': _counts(5, 10.0)},
                                {'a': _entry('a', 6, 12.0)})
  assert report.ok
  assert len(report.listed) == 1
  assert 'a guard' in report.listed[0]


def test_listed_case_that_grew_fails():
  report = program_size.compare({'a': _counts(8)}, {'a': _counts(5)},
                                {'a': _entry('a', 6)})
  assert not report.ok
  assert 'grew past the listed 6 instructions' in report.failures[0]


def test_listed_case_no_longer_larger_is_stale():
  report = program_size.compare({'a': _counts(5)}, {'a': _counts(5)},
                                {'a': _entry('a', 6)})
  assert not report.ok
  assert not report.failures
  assert len(report.stale) == 1
  assert 'no longer larger' in report.stale[0]


def test_listed_unknown_case_is_stale():
  report = program_size.compare({'a': _counts(5)}, {'a': _counts(5)},
                                {'gone': _entry('gone', 6)})
  assert report.stale == ['gone: listed but no such case']


def test_fork_error_fails_upstream_error_is_reported():
  report = program_size.compare(
      {'a': {'error': 'TypeError: boom'}, 'b': _counts(9)},
      {'a': _counts(5), 'b': {'error': 'AttributeError: no b'}}, {})
  assert report.failures == ['a: the fork could not run it: TypeError: boom']
  assert report.upstream_only_errors == ['b: AttributeError: no b']
  assert report.compared == 0


def test_format_report_names_the_verdict():
  report = program_size.compare({'a': _counts(6)}, {'a': _counts(5)}, {})
  text = program_size.format_report(report)
  assert 'FAILED (1):' in text
  assert text.endswith('program_size: FAILED')


def _write(tmp_path: pathlib.Path, text: str) -> pathlib.Path:
  path = tmp_path / 'allow.toml'
  path.write_text(textwrap.dedent(text), encoding='utf-8')
  return path


def test_load_allow_list(tmp_path):
  path = _write(tmp_path, """\
      jax = "0.10.2"

      [[case]]
      case = "loss/x/grad"
      fork_instructions = 6
      upstream_instructions = 5
      fork_flops = 12.0
      upstream_flops = 10
      reason = "a guard"
      fix = "some-fix"
      """)
  jax_version, entries = program_size.load_allow_list(path)
  assert jax_version == '0.10.2'
  assert list(entries) == ['loss/x/grad']
  assert entries['loss/x/grad']['fix'] == 'some-fix'


@pytest.mark.parametrize('body, message', [
    ('[[case]]\ncase = "a"\n', 'jax = "<version>"'),
    ('jax = "0.10.2"\n[[case]]\ncase = "a"\nfork_instructions = 1\n',
     'needs upstream_instructions'),
    ('jax = "0.10.2"\n' + 2 * ('[[case]]\ncase = "a"\nfork_instructions = 1\n'
                               'upstream_instructions = 1\nfork_flops = 1\n'
                               'upstream_flops = 1\nreason = "r"\n'),
     'listed twice'),
])
def test_load_allow_list_rejects(tmp_path, body, message):
  with pytest.raises(ValueError, match=message):
    program_size.load_allow_list(_write(tmp_path, body))


def test_checked_in_allow_list_is_valid_and_names_ledger_ids():
  # pylint: disable-next=import-outside-toplevel
  from tools import ledger
  _, entries = program_size.load_allow_list(program_size.ALLOW_LIST)
  ids = {fix.id for fix in ledger.load()}
  for case, entry in entries.items():
    assert entry['reason'].strip(), case
    if 'fix' in entry:
      assert entry['fix'] in ids, (case, entry['fix'])
    assert (entry['fork_instructions'] > entry['upstream_instructions']
            or entry['fork_flops'] > entry['upstream_flops']), case
