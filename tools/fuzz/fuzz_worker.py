# Copyright 2026 The Optax fork authors. All Rights Reserved.
# Licensed under the Apache License, Version 2.0.
"""Runs fuzz cases in this interpreter and classifies each outcome.

Usage (by tools/fuzz/fuzz.py, with the current directory outside the
repository and ``PYTHONPATH`` naming a folder that holds only ``tools``, so
that ``optax`` is this interpreter's own package)::

  python -m tools.fuzz.fuzz_worker --cases CASES.json --out RECORDS.pkl \\
      [--start I]

For each case from index ``--start`` on, it prints ``BEGIN i`` before and
``END i`` after the case (the orchestrator's per-case time limit watches
them), and appends ``(i, record)`` to the pickle stream ``--out``. A record
has run_cases.py's layout (tools/compare: ``init_state``, ``updates`` per
step, ``params``, ``state``, ``warnings``, ``error``), made by its
``record_tree``, so that compare.py's oracle can hold two records side by
side, and adds:

* ``class``: ``finite``, ``nonfinite``, ``clear`` (an exception that
  optax's code raises on purpose: a ``raise`` statement in optax, or a
  chex assertion), ``internal`` (any other exception: ``AttributeError``,
  ``IndexError`` and the like wherever raised, an error of Python's
  operators inside optax code, an error raised inside jax or NumPy, even
  one naming a key path of jax's own), or ``n/a`` (this side's factory
  lacks an argument of the case);
* ``mismatch``: where the updates of a step that returned differ from the
  params in tree structure, shape or dtype (a silent change).
"""

from __future__ import annotations

import argparse
import dis
import json
import os
import pickle
import sys
import traceback
from typing import Any, Optional

import jax
import numpy as np
import optax

# pylint: disable=wrong-import-order
from tools.compare import run_cases
from tools.fuzz import fuzz_cases
# pylint: enable=wrong-import-order

# Exception types that always mean a defect: nothing raises them on purpose
# to tell a user about their input.
INTERNAL_TYPES = ('AttributeError', 'IndexError', 'KeyError', 'NameError',
                  'UnboundLocalError', 'ZeroDivisionError', 'AssertionError',
                  'RecursionError', 'OverflowError', 'SystemError',
                  'NotImplementedError')
_OPTAX_DIR = os.path.dirname(os.path.abspath(optax.__file__)) + os.sep


def classify_exception(exc: BaseException,
                       optax_dir: str = _OPTAX_DIR) -> str:
  """``clear`` or ``internal`` (see the module docstring).

  Args:
    exc: the exception, with its traceback (jax's traceback filtering off,
      so that frames inside jax are kept).
    optax_dir: the directory of the ``optax`` package of this interpreter.

  Returns:
    ``'clear'`` or ``'internal'``.
  """
  mro = [c.__name__ for c in type(exc).__mro__]
  if str(exc).startswith('[Chex]'):
    return 'clear'  # a chex assertion optax makes on purpose.
  if any(name in INTERNAL_TYPES for name in mro):
    return 'internal'
  tb = exc.__traceback__
  while tb is not None and tb.tb_next is not None:
    tb = tb.tb_next
  if tb is not None and os.path.abspath(
      tb.tb_frame.f_code.co_filename).startswith(optax_dir):
    # Raised in optax: on purpose by a raise statement, or by Python's
    # operators on a value optax did not expect. The instruction tells them
    # apart (the source on disk may have changed since it was imported).
    code = tb.tb_frame.f_code.co_code
    if dis.opname[code[tb.tb_lasti]] == 'RAISE_VARARGS':
      return 'clear'
  # Raised elsewhere (jax, NumPy, Python): jax's own messages may name a
  # key path (a cond's branches, a tree_map's structures) without telling
  # which optax function or argument is at fault.
  return 'internal'


def _error(stage: str, exc: BaseException) -> dict[str, Any]:
  return {'stage': stage, 'type': type(exc).__name__,
          'mro': [c.__name__ for c in type(exc).__mro__],
          'message': str(exc)[:500],
          'where': traceback.format_exc(limit=-3)[-900:]}


def _finite(tree_record: dict[str, Any]) -> bool:
  for leaf in tree_record['leaves']:
    value = leaf['value']
    if isinstance(value, str):
      continue
    value = np.asarray(value)
    if value.dtype.kind in 'fc' and not np.all(np.isfinite(value)):
      return False
  return True


def _expected_dtypes(dtype: str) -> tuple[str, ...]:
  """Update dtypes that keep the params' dtype ``dtype``."""
  if dtype == 'py:float':
    return ('float32', 'float64', 'py:float')
  if dtype.startswith(('int', 'uint', 'bool')):
    return (dtype, 'float0')
  return (dtype,)


_FLOAT_WIDTH = {'bfloat16': 16, 'float16': 16, 'float32': 32,
                'float64': 64}


def _wider_float_gradient(g_dtype: Optional[str], p_dtype: str) -> bool:
  """Whether a gradient is a floating dtype wider than its floating param."""
  return (g_dtype in _FLOAT_WIDTH and p_dtype in _FLOAT_WIDTH
          and _FLOAT_WIDTH[g_dtype] > _FLOAT_WIDTH[p_dtype])


def _dtypes_record(tree: Any) -> dict[str, Any]:
  """``record_tree`` of empty arrays of the leaves' dtypes (float0: int8).

  Only the gradients' structure and dtypes are compared with the updates;
  a float0 array has no values to record.
  """
  def empty(leaf):
    dtype = getattr(leaf, 'dtype', None)
    if dtype is None:
      return leaf
    if dtype == jax.dtypes.float0:
      dtype = np.int8
    return np.zeros((0,), dtype)

  return run_cases.record_tree(jax.tree.map(empty, tree))


def mismatch(updates: dict[str, Any], params: dict[str, Any],
             grads: Optional[dict[str, Any]] = None) -> list[str]:
  """Where updates differ from params in structure, shape or dtype.

  A gradient wider than its param (float32 on bfloat16 params) may give
  updates in its own dtype: both upstream and the fork keep it, so that
  ``apply_updates`` rounds the sum with the param once.

  Args:
    updates: ``record_tree`` of a step's updates.
    params: ``record_tree`` of the params given to the step.
    grads: ``record_tree`` of the gradients given to the step, or None.

  Returns:
    Lines, one per difference (empty when the updates keep every leaf's
    place, shape and dtype).
  """
  if updates['treedef'] != params['treedef']:
    return [f'tree: updates {updates["treedef"][:160]}, params '
            f'{params["treedef"][:160]}']
  g_dtypes = [None] * len(params['leaves'])
  if grads is not None and grads['treedef'] == params['treedef']:
    g_dtypes = [g['dtype'] for g in grads['leaves']]
  out = []
  for u, p, g_dtype in zip(updates['leaves'], params['leaves'], g_dtypes):
    if tuple(u['shape'] or ()) != tuple(p['shape'] or ()):
      out.append(f'{p["path"]}: shape {u["shape"]}, params {p["shape"]}')
    if u['dtype'] not in _expected_dtypes(p['dtype']) and not (
        u['dtype'] == g_dtype and _wider_float_gradient(g_dtype, p['dtype'])):
      out.append(f'{p["path"]}: dtype {u["dtype"]}, params {p["dtype"]}')
  return out


def _step_fn(spec: dict[str, Any], tx: Any):
  lookahead = spec['wrapper'] == 'lookahead'

  def step(params, state, grads):
    fast = params.fast if lookahead else params
    extra: dict[str, Any] = {}
    if 'value' in spec['extra']:
      extra['value'] = fuzz_cases.loss(fast)
    if 'grad' in spec['extra']:
      extra['grad'] = grads
    if 'value_fn' in spec['extra']:
      extra['value_fn'] = fuzz_cases.loss
    if 'obj_fn' in spec['extra']:
      extra['obj_fn'] = fuzz_cases.loss
    updates, state = tx.update(grads, state, params, **extra)
    params = optax.apply_updates(params, updates)
    return params, state, updates

  return jax.jit(step) if spec['jit'] else step


def run_case(spec: dict[str, Any]) -> dict[str, Any]:
  """Builds, inits and steps one case; returns its record."""
  rec: dict[str, Any] = {'kind': 'opt', 'updates': [], 'mismatch': []}
  stage = 'build'
  try:
    tx = fuzz_cases.build_transformation(spec)
    params = fuzz_cases.make_params(spec)
    grads = fuzz_cases.make_grads(spec, params)
    if spec['per_example']:
      grads = fuzz_cases.batch_grads(grads)
    if spec['wrapper'] == 'lookahead':
      params = optax.LookaheadParams.init_synced(params)
    stage = 'init'
    state = tx.init(params)
    rec['init_state'] = run_cases.record_tree(state)
    step = _step_fn(spec, tx)
    for i in range(spec['steps']):
      stage = f'step{i}'
      before = run_cases.record_tree(params)
      params, state, updates = step(params, state, grads)
      rec['updates'].append(run_cases.record_tree(updates))
      rec['mismatch'].extend(
          f'step{i} {line}' for line in mismatch(
              rec['updates'][-1], before, _dtypes_record(grads)))
    rec['params'] = run_cases.record_tree(params)
    rec['state'] = run_cases.record_tree(state)
  except fuzz_cases.NotApplicable as exc:
    rec['class'] = 'n/a'
    rec['error'] = _error(stage, exc)
    return rec
  except Exception as exc:  # pylint: disable=broad-exception-caught
    rec['class'] = classify_exception(exc)
    rec['error'] = _error(stage, exc)
    return rec
  finite = all(_finite(t) for t in rec['updates'] + [rec['params']])
  rec['class'] = 'finite' if finite else 'nonfinite'
  return rec


def main(argv: list[str] | None = None) -> int:
  """Command line entry point."""
  parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
  parser.add_argument('--cases', required=True, help='cases, as JSON')
  parser.add_argument('--out', required=True, help='pickle stream to append')
  parser.add_argument('--start', type=int, default=0)
  args = parser.parse_args(argv)
  with open(args.cases, encoding='utf-8') as f:
    specs = json.load(f)
  with open(args.out, 'ab') as out:
    if args.start == 0:
      meta = {'optax_version': optax.__version__,
              'optax_file': optax.__file__, 'jax_version': jax.__version__,
              'python': sys.version.split()[0]}
      pickle.dump(('meta', meta), out)
    for i in range(args.start, len(specs)):
      print(f'BEGIN {i}', flush=True)
      rec = run_cases.run_recording_warnings(run_case, specs[i])
      pickle.dump((i, rec), out)
      out.flush()
      print(f'END {i} {rec["class"]}', flush=True)
  return 0


if __name__ == '__main__':
  sys.exit(main())
