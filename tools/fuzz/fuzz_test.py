# Copyright 2026 The Optax fork authors. All Rights Reserved.
# Licensed under the Apache License, Version 2.0.
"""Tests of the fuzz lane's own logic (tools/fuzz)."""

import fnmatch
import pathlib
import pickle
import sys
import textwrap

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from optax._src.testing import registry
from tools.fuzz import fuzz
from tools.fuzz import fuzz_cases
from tools.fuzz import fuzz_worker

_ENTRIES = list(registry.ENTRIES)


def test_generation_is_reproducible_and_distinct():
  a = fuzz_cases.generate(_ENTRIES, 150, seed=3, with_sweep=False)
  b = fuzz_cases.generate(_ENTRIES, 150, seed=3, with_sweep=False)
  c = fuzz_cases.generate(_ENTRIES, 150, seed=4, with_sweep=False)
  assert a == b
  assert [s['name'] for s in a] != [s['name'] for s in c]
  names = [s['name'] for s in a]
  assert len(names) == len(set(names)) == 150


def test_every_entry_and_wrapper_is_drawn():
  specs = fuzz_cases.generate(_ENTRIES, 300, seed=1, with_sweep=False)
  assert {s['entry'] for s in specs} == {e.name for e in _ENTRIES}
  assert {s['wrapper'] for s in specs} == set(fuzz_cases.WRAPPERS)


def test_the_sweep_puts_every_entry_through_every_probe():
  swept = fuzz_cases.sweep(_ENTRIES)
  drawn = fuzz_cases.generate(_ENTRIES, 50, seed=1)
  assert drawn[:len(swept)] == swept
  assert len({s['name'] for s in drawn}) == len(swept) + 50
  for entry in _ENTRIES:
    mine = [s for s in swept if s['entry'] == entry.name]
    assert {s['wrapper'] for s in mine} == {'alone'}
    probes = set()
    for s in mine:
      probes |= {('grads', s['grads']), ('params', s['params'])}
      if s['hyper'] is not None:
        probes.add(('hyper', s['hyper'][1]))
    expected = set(fuzz_cases.SWEEP)
    if not fuzz_cases.fuzzable_hyperparameters(entry):
      expected = {p for p in expected if p[0] != 'hyper'}
    assert probes - {('grads', 'normal'), ('params', 'f32')} == expected
  adam = [s for s in swept if s['entry'] == 'adam' and s['hyper']]
  assert {s['hyper'][0] for s in adam} == {'learning_rate'}


def test_meaningless_combinations_are_left_out():
  specs = fuzz_cases.generate(_ENTRIES, 400, seed=2, with_sweep=False)
  by_name = registry.BY_NAME
  for s in specs:
    entry = by_name[s['entry']]
    if s['wrapper'] == 'inject_hyperparams':
      assert entry.injectable, s['name']
    if entry.per_example_grads:
      assert s['wrapper'] not in ('masked', 'partition', 'flatten',
                                  'multisteps'), s['name']


def test_names_describe_the_case():
  for s in fuzz_cases.generate(_ENTRIES, 100, seed=5):
    hyper = 'default' if s['hyper'] is None else '='.join(s['hyper'])
    mode = 'jit' if s['jit'] else 'eager'
    assert s['name'] == (f'{s["entry"]}/{s["wrapper"]}/h:{hyper}/'
                         f'p:{s["params"]}/g:{s["grads"]}/{mode}')
    if s['hyper'] is not None:
      assert s['kwargs'][s['hyper'][0]]['fuzz'] == s['hyper'][1]
  assert fnmatch.fnmatchcase('adam/alone/h:learning_rate=nan/p:f32/'
                             'g:normal/jit', '*/h:learning_rate=nan/*')


def test_fuzzed_hyperparameters_are_floats():
  adam = registry.BY_NAME['adam']
  hypers = fuzz_cases.fuzzable_hyperparameters(adam)
  assert hypers == {'learning_rate': 0.05, 'b1': 0.9, 'b2': 0.999,
                    'eps': 1e-8, 'eps_root': 0.0}
  lbfgs = registry.BY_NAME['lbfgs']
  assert 'memory_size' not in fuzz_cases.fuzzable_hyperparameters(lbfgs)


def _spec(**kw):
  spec = {'entry': 'adam', 'wrapper': 'alone', 'hyper': None,
          'kwargs': {'learning_rate': 0.1}, 'wrapped': {}, 'extra': [],
          'per_example': False, 'matrices_only': False, 'params': 'f32',
          'grads': 'normal', 'jit': False, 'steps': 2, 'seed': 7}
  spec.update(kw)
  return spec


@pytest.mark.parametrize('kind,check', [
    ('zeros', lambda g: not np.any(g['w'])),
    ('nan', lambda g: np.isnan(g['w'][0, 0]) and np.isfinite(g['b']).all()),
    ('all_nan', lambda g: np.isnan(g['w']).all() and np.isnan(g['b']).all()),
    ('inf', lambda g: g['w'][0, 0] == np.inf),
    ('extra_key', lambda g: set(g) == {'w', 'b', 'zz'}),
    ('missing_key', lambda g: set(g) == {'b'}),
    ('transposed', lambda g: g['w'].shape == (3, 4)),
    ('broadcast', lambda g: g['w'].shape == (1, 3)),
    ('wrong_dtype', lambda g: g['w'].dtype == jnp.float16),
    ('float0', lambda g: g['w'].dtype == jax.dtypes.float0),
    ('int', lambda g: g['b'].dtype == jnp.int32),
    ('denormal', lambda g: 0 < np.asarray(g['w'])[0, 0]
     < np.finfo(np.float32).tiny),
])
def test_odd_gradients(kind, check):
  spec = _spec(grads=kind)
  params = fuzz_cases.make_params(spec)
  assert check(fuzz_cases.make_grads(spec, params))


def test_params_and_their_natural_gradients():
  spec = _spec(params='int_leaf')
  params = fuzz_cases.make_params(spec)
  grads = fuzz_cases.make_grads(spec, params)
  assert grads['i'].dtype == jax.dtypes.float0
  assert grads['w'].dtype == jnp.float32
  spec = _spec(params='none_leaf')
  assert fuzz_cases.make_grads(spec, fuzz_cases.make_params(spec))['n'] is None
  # The same bits on every call (and so in both interpreters).
  a = fuzz_cases.make_params(_spec(params='mixed'))
  b = fuzz_cases.make_params(_spec(params='mixed'))
  assert all(np.array_equal(a[k], b[k]) for k in a)


def test_hyper_values():
  assert np.isnan(fuzz_cases.hyper_value('nan', 0.1))
  assert fuzz_cases.hyper_value('neg', 0.1) == -0.1
  assert isinstance(fuzz_cases.hyper_value('int1', 0.1), int)
  assert fuzz_cases.hyper_value('str', 0.1) == '0.1'
  assert fuzz_cases.hyper_value('vector', 0.1).shape == (2,)
  assert np.isnan(fuzz_cases.hyper_value('sched_nan', 0.1)(3))


def _raise_in(filename, source, exc_type=None):
  """Runs ``source`` written as the file ``filename``; returns the error."""
  path = pathlib.Path(filename)
  path.parent.mkdir(parents=True, exist_ok=True)
  path.write_text(textwrap.dedent(source))
  code = compile(path.read_text(), filename, 'exec')
  try:
    exec(code, {'jnp': jnp})  # pylint: disable=exec-used
  except Exception as exc:  # pylint: disable=broad-exception-caught
    if exc_type is not None:
      assert isinstance(exc, exc_type)
    return exc
  raise AssertionError('no exception')


def test_classify_exception(tmp_path):
  optax_dir = str(tmp_path / 'optax') + '/'
  outside = str(tmp_path / 'elsewhere.py')
  clear = _raise_in(optax_dir + 'a.py',
                    "raise ValueError('adam: b1 must be < 1')")
  assert fuzz_worker.classify_exception(clear, optax_dir) == 'clear'
  # Python's operators inside optax code: not deliberate.
  operator = _raise_in(optax_dir + 'b.py', "x = 1.0 * 'a'", TypeError)
  assert fuzz_worker.classify_exception(operator, optax_dir) == 'internal'
  attribute = _raise_in(optax_dir + 'c.py',
                        "raise AttributeError('no dtype')")
  assert fuzz_worker.classify_exception(attribute, optax_dir) == 'internal'
  jax_error = _raise_in(outside, 'jnp.ones(3) + jnp.ones(4)', TypeError)
  assert fuzz_worker.classify_exception(jax_error, optax_dir) == 'internal'
  # A key path in a message raised outside optax (jax's cond and tree_map
  # errors name theirs) is no optax context.
  named = _raise_in(outside, "raise ValueError(\"at ['w']: shapes differ\")")
  assert fuzz_worker.classify_exception(named, optax_dir) == 'internal'
  chex = _raise_in(outside, "raise AssertionError('[Chex] rank 2 expected')")
  assert fuzz_worker.classify_exception(chex, optax_dir) == 'clear'


def _record(*leaves, treedef='PyTreeDef({...})'):
  return {'treedef': treedef, 'leaves': [
      {'path': path, 'classes': ('dict',), 'shape': shape, 'dtype': dtype,
       'value': np.zeros(shape or ())} for path, shape, dtype in leaves]}


def test_mismatch():
  params = _record(("['w']", (4, 3), 'float32'), ("['f']", (), 'py:float'),
                   ("['i']", (3,), 'int32'))
  same = _record(("['w']", (4, 3), 'float32'), ("['f']", (), 'float32'),
                 ("['i']", (3,), 'float0'))
  assert not fuzz_worker.mismatch(same, params)
  changed = _record(("['w']", (1, 3), 'int32'), ("['f']", (), 'float32'),
                    ("['i']", (3,), 'int32'))
  assert fuzz_worker.mismatch(changed, params) == [
      "['w']: shape (1, 3), params (4, 3)",
      "['w']: dtype int32, params float32"]
  other = _record(("['w']", (4, 3), 'float32'), treedef='PyTreeDef([*])')
  assert fuzz_worker.mismatch(other, params)[0].startswith('tree:')


def test_mismatch_allows_a_wider_gradient_dtype():
  params = _record(("['b']", (3,), 'bfloat16'), ("['w']", (3,), 'float32'))
  updates = _record(("['b']", (3,), 'float32'), ("['w']", (3,), 'float32'))
  wide = _record(("['b']", (3,), 'float32'), ("['w']", (3,), 'float32'))
  narrow = _record(("['b']", (3,), 'bfloat16'), ("['w']", (3,), 'bfloat16'))
  # float32 gradients on a bfloat16 param: float32 updates are kept.
  assert not fuzz_worker.mismatch(updates, params, wide)
  # Without the gradients, or with gradients as narrow as the param, they
  # are a silent change.
  assert fuzz_worker.mismatch(updates, params) == [
      "['b']: dtype float32, params bfloat16"]
  assert fuzz_worker.mismatch(updates, params, narrow) == [
      "['b']: dtype float32, params bfloat16"]


def test_run_case_classes():
  finite = fuzz_worker.run_case(_spec())
  assert finite['class'] == 'finite' and not finite['mismatch']
  assert len(finite['updates']) == 2
  assert fuzz_worker.run_case(_spec(grads='all_nan'))['class'] == 'nonfinite'
  assert fuzz_worker.run_case(_spec(jit=True))['class'] == 'finite'
  bad = fuzz_worker.run_case(_spec(kwargs={'learning_rate': 0.1, 'x': 1}))
  assert bad['class'] == 'n/a'


def _rec(cls, mismatch=(), stage=None):
  rec = {'class': cls, 'mismatch': list(mismatch)}
  if stage is not None:
    rec['error'] = {'stage': stage, 'type': 'ValueError', 'message': 'm'}
  return rec


@pytest.mark.parametrize('spec,fork,upstream,rules', [
    (_spec(), _rec('finite'), _rec('finite'), []),
    (_spec(), _rec('internal'), _rec('internal'), ['internal']),
    (_spec(), _rec('timeout'), _rec('finite'), ['internal']),
    (_spec(), _rec('finite', ['x']), _rec('finite'), ['dtype-shape']),
    (_spec(grads='broadcast'), _rec('finite'), _rec('internal'),
     ['accepts-mismatch']),
    (_spec(grads='broadcast'), _rec('finite', ['x']), _rec('finite'),
     ['dtype-shape']),
    (_spec(grads='broadcast'), _rec('clear', stage='step0'),
     _rec('internal'), []),
    (_spec(), _rec('nonfinite'), _rec('finite'), ['nonfinite']),
    (_spec(), _rec('clear', stage='build'), _rec('finite'),
     ['rejects-hyperparameter']),
    (_spec(), _rec('clear', stage='step0'), _rec('finite'),
     ['rejects-input']),
    # A clear error where upstream is non-finite or raises: an improvement.
    (_spec(), _rec('clear'), _rec('nonfinite'), []),
    (_spec(), _rec('finite'), _rec('internal'), []),
    (_spec(grads='nan'), _rec('finite'), _rec('nonfinite'), ['hides']),
    # Finite input: upstream's non-finite result was its own bug.
    (_spec(), _rec('finite'), _rec('nonfinite'), []),
])
def test_broken_rules(spec, fork, upstream, rules):
  assert [r for r, _ in fuzz.broken_rules(spec, fork, upstream)] == rules


def test_deviations_list_and_go_stale(capsys):
  specs = [dict(_spec(), name='adam/a/h:lr=neg'),
           dict(_spec(), name='adam/b/h:lr=neg'),
           dict(_spec(), name='sgd/c/h:default')]
  fork = {0: _rec('clear', stage='build'), 1: _rec('finite'),
          2: _rec('clear', stage='build')}
  upstream = {0: _rec('finite'), 1: _rec('finite'), 2: _rec('finite')}
  entries = [{'id': ['adam/*/h:lr=neg'],
              'differs': ['rejects-hyperparameter']},
             {'id': ['sgd/*'], 'differs': ['nonfinite']},
             {'id': ['lion/*'], 'differs': ['rejects-input']}]
  result = fuzz.compare_runs(specs, fork, upstream, entries)
  assert [n for n, _, _ in result['listed']] == ['adam/a/h:lr=neg']
  # sgd's rejection is not the rule its entry allows.
  assert [(n, r) for n, r, _ in result['failed']] == [
      ('sgd/c/h:default', 'rejects-hyperparameter')]
  assert result['stale'] == [['sgd/*']]
  assert result['unused'] == [['lion/*']]
  assert result['counts']['fork']['clear'] == 2
  assert "STALE [[fuzz]] ['sgd/*']" in capsys.readouterr().out
  # An entry is used when any of its patterns allows a broken rule.
  entries = [{'id': ['adam/a/*', 'adam/b/*'],
              'differs': ['rejects-hyperparameter']}]
  result = fuzz.compare_runs(specs, fork, upstream, entries)
  assert not result['stale'] and not result['unused']


def test_load_deviations(tmp_path):
  path = tmp_path / 'd.toml'
  path.write_text('[[fuzz]]\nid = "a/*"\nfix = "x"\nupstream = "0.2.8"\n'
                  'reason = "r"\ndiffers = "rejects-input"\n')
  assert fuzz.load_deviations(str(path)) == [
      {'id': ['a/*'], 'fix': 'x', 'upstream': '0.2.8', 'reason': 'r',
       'differs': ['rejects-input']}]
  path.write_text('[[fuzz]]\nid = "a/*"\nfix = "x"\nreason = "r"\n'
                  'differs = ["values"]\n')
  with pytest.raises(ValueError, match='differs must be among'):
    fuzz.load_deviations(str(path))
  path.write_text('[[fuzz]]\nid = "a/*"\nreason = "r"\ndiffers = "hides"\n')
  with pytest.raises(ValueError, match='lacks fix'):
    fuzz.load_deviations(str(path))
  # The repository's own entries are readable.
  fuzz.load_deviations(str(fuzz.REPO / 'deviations.toml'))


_FAKE_WORKER = '''
import argparse, os, pickle, sys, time
p = argparse.ArgumentParser()
p.add_argument('--cases'); p.add_argument('--out')
p.add_argument('--start', type=int)
a = p.parse_args()
with open(a.out, 'ab') as out:
  for i in range(a.start, 5):
    print(f'BEGIN {i}', flush=True)
    if i == 1:
      time.sleep(60)
    if i == 3:
      os._exit(3)
    pickle.dump((i, {'class': 'finite', 'mismatch': []}), out)
    out.flush()
    print(f'END {i} finite', flush=True)
'''


def test_side_limits_each_case_and_survives_a_crash(tmp_path):
  worker = tmp_path / 'worker.py'
  worker.write_text(_FAKE_WORKER)
  side = fuzz.Side('fork', sys.executable, tmp_path / 'cases.json', tmp_path,
                   timeout=2.0, verbose=False, worker=(str(worker),))
  side.run(5)
  _, recs = side.records()
  assert {i: r['class'] for i, r in recs.items()} == {
      0: 'finite', 1: 'timeout', 2: 'finite', 3: 'crash', 4: 'finite'}
  with open(side.out, 'rb') as f:
    assert pickle.load(f)[0] == 0


def test_dtypes_record_takes_float0_and_number_leaves():
  grads = {'i': np.zeros(3, jax.dtypes.float0), 'f': 1.5,
           'b': np.ones(2, jnp.bfloat16)}
  record = fuzz_worker._dtypes_record(grads)  # pylint: disable=protected-access
  assert [leaf['dtype'] for leaf in record['leaves']] == [
      'bfloat16', 'py:float', 'int8']
