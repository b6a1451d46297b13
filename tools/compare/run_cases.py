# Copyright 2026 The Optax fork authors. All Rights Reserved.
# Licensed under the Apache License, Version 2.0.
"""Runs every case of cases.py in this interpreter and records the results.

Usage::

  python -m tools.compare.run_cases --out FILE [--only SUBSTRING ...]

Run it with the current directory outside the repository and ``PYTHONPATH``
naming a folder that holds only ``tools`` (as run.sh does; see
tools/README.md), so that ``optax`` is the installed package of the
interpreter. The output is a pickle of plain
Python containers and NumPy arrays of standard dtypes (bfloat16 is stored
widened to float32, PRNG keys as their key data), so reading it needs NumPy
only. Layout::

  {'meta': {'optax_version', 'optax_file', 'jax_version', 'backend',
            'python'},
   'cases': {name: record}}

A record of an optimizer case holds ``init_state``, ``updates`` (one tree per
step), ``params``, ``state`` and optionally ``post``; a function case holds
``result``. Every record also holds ``warnings``: the warnings the case
raised, at any stage, as a sorted list of distinct ``{'category', 'mro',
'message'}`` (memory addresses in messages written ``0x?``). A tree is
``{'treedef': str, 'leaves': [leaf, ...]}`` and a leaf is ``{'path',
'classes', 'shape', 'dtype', 'value'}``, where ``classes`` are the type
names of the nodes along the path (``ScaleByAdamState``, ``dict``, ...). A
case that raises records ``error``: ``{'stage', 'type', 'mro',
'message'}``, with stage one of build, init, step<i>, post, call.
"""

from __future__ import annotations

import argparse
import pickle
import re
import sys
import time
import traceback
from typing import Any
import warnings

import jax
import jax.numpy as jnp
import numpy as np
import optax

# pylint: disable-next=wrong-import-order
from tools.compare import cases as cases_lib

_ADDR = re.compile(r'0x[0-9a-fA-F]+')


def _leaf_record(path: str, classes: tuple[str, ...], leaf: Any
                 ) -> dict[str, Any]:
  """Shape, dtype and value of one leaf, as plain NumPy."""
  rec: dict[str, Any] = {'path': path, 'classes': classes}
  if isinstance(leaf, (bool, int, float, complex)) and not isinstance(
      leaf, np.generic):
    rec.update(shape=(), dtype=f'py:{type(leaf).__name__}',
               value=np.asarray(leaf))
    return rec
  if isinstance(leaf, (jax.Array, np.ndarray, np.generic)):
    dtype = leaf.dtype
    if jax.dtypes.issubdtype(dtype, jax.dtypes.prng_key):
      rec.update(shape=tuple(leaf.shape), dtype=f'key<{dtype}>',
                 value=np.asarray(jax.random.key_data(leaf)))
      return rec
    value = np.asarray(leaf)
    name = str(dtype)
    if name == 'bfloat16' or value.dtype.kind == 'V' or (
        value.dtype.kind == 'f' and value.dtype.itemsize < 4):
      value = value.astype(np.float32)
    rec.update(shape=tuple(leaf.shape), dtype=name, value=value)
    return rec
  rec.update(shape=None, dtype=f'obj:{type(leaf).__name__}',
             value=_ADDR.sub('0x?', repr(leaf))[:200])
  return rec


def _walk(node: Any, prefix: tuple[Any, ...], classes: tuple[str, ...],
          out: list[dict[str, Any]]) -> None:
  """Depth-first walk recording the type names of the nodes on each path."""
  children, _ = jax.tree_util.tree_flatten_with_path(
      node, is_leaf=lambda x: x is not node)
  if len(children) == 1 and not children[0][0] and children[0][1] is node:
    out.append(_leaf_record(jax.tree_util.keystr(prefix), classes, node))
    return
  name = type(node).__name__
  for path, child in children:
    _walk(child, prefix + tuple(path), classes + (name,), out)


def record_tree(tree: Any) -> dict[str, Any]:
  """Tree definition and leaf records of ``tree``."""
  leaves: list[dict[str, Any]] = []
  _walk(tree, (), (), leaves)
  treedef = _ADDR.sub('0x?', str(jax.tree_util.tree_structure(tree)))
  return {'treedef': treedef, 'leaves': leaves}


def _error(stage: str, exc: BaseException) -> dict[str, Any]:
  return {'stage': stage, 'type': type(exc).__name__,
          'mro': [c.__name__ for c in type(exc).__mro__],
          'message': str(exc)[:500],
          'where': traceback.format_exc(limit=-2)[-600:]}


def _warning_records(caught: list[warnings.WarningMessage]
                     ) -> list[dict[str, Any]]:
  """Distinct warnings, sorted, with addresses normalized.

  A warning raised once per traced call is seen as many times as the case
  traces, which depends on jax's caches rather than on the library: only
  distinct (category, message) pairs are kept.
  """
  seen: dict[tuple[str, str], dict[str, Any]] = {}
  for w in caught:
    message = _ADDR.sub('0x?', str(w.message))
    key = (w.category.__name__, message)
    seen.setdefault(key, {
        'category': w.category.__name__,
        'mro': [c.__name__ for c in w.category.__mro__],
        'message': message})
  return [seen[k] for k in sorted(seen)]


def run_recording_warnings(fn, case) -> dict[str, Any]:
  """``fn(case)`` with every warning it raises recorded in the record."""
  with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter('always')
    rec = fn(case)
  rec['warnings'] = _warning_records(caught)
  return rec


def _step_fn(case: cases_lib.OptCase, tx: Any, loss_fn, one_fn):
  """The function advancing (params, state) by one step."""

  def objective(params):
    if case.extra == 'lookahead':
      return loss_fn(params.fast)
    return loss_fn(params)

  def step(params, state):
    if case.extra == 'lookahead':
      value, grads = jax.value_and_grad(loss_fn)(params.fast)
    else:
      value, grads = jax.value_and_grad(objective)(params)
    extra: dict[str, Any] = {}
    if case.extra == 'value':
      extra = {'value': value}
    elif case.extra == 'linesearch':
      extra = {'value': value, 'grad': grads, 'value_fn': objective}
    elif case.extra == 'obj_fn':
      extra = {'obj_fn': objective}
    elif case.extra == 'per_example':
      grads = jax.vmap(jax.grad(one_fn), in_axes=(None, 0))(
          params, jnp.arange(8))
    updates, state = tx.update(grads, state, params, **extra)
    params = optax.apply_updates(params, updates)
    return params, state, updates

  return jax.jit(step) if case.jit else step


def run_opt_case(case: cases_lib.OptCase) -> dict[str, Any]:
  """Init and a few steps; records trees or the first error."""
  rec: dict[str, Any] = {'kind': 'opt', 'updates': []}
  stage = 'build'
  try:
    tx = case.make()
    loss = 'logistic' if case.extra == 'per_example' else case.loss
    loss_fn, one_fn = cases_lib.make_problem(loss)
    params = cases_lib.make_params(case.params)
    if case.extra == 'lookahead':
      params = optax.LookaheadParams.init_synced(params)
    stage = 'init'
    state = tx.init(params)
    rec['init_state'] = record_tree(state)
    step = _step_fn(case, tx, loss_fn, one_fn)
    for i in range(case.steps):
      stage = f'step{i}'
      params, state, updates = step(params, state)
      rec['updates'].append(record_tree(updates))
    rec['params'] = record_tree(params)
    rec['state'] = record_tree(state)
    if case.post is not None:
      stage = 'post'
      rec['post'] = record_tree(case.post(state, params))
  except Exception as exc:  # pylint: disable=broad-exception-caught
    rec['error'] = _error(stage, exc)
  return rec


def run_fn_case(case: cases_lib.FnCase) -> dict[str, Any]:
  """Calls the function; records its result or its error."""
  try:
    return {'kind': 'fn', 'result': record_tree(case.fn())}
  except Exception as exc:  # pylint: disable=broad-exception-caught
    return {'kind': 'fn', 'error': _error('call', exc)}


def main(argv: list[str] | None = None) -> int:
  """Command line entry point."""
  parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
  parser.add_argument('--out', required=True, help='output pickle')
  parser.add_argument('--only', action='append', default=[],
                      help='run only cases whose name contains this')
  parser.add_argument('--verbose', action='store_true')
  args = parser.parse_args(argv)

  start = time.time()
  results: dict[str, Any] = {}
  for case in cases_lib.all_cases():
    if args.only and not any(s in case.name for s in args.only):
      continue
    t0 = time.time()
    if isinstance(case, cases_lib.OptCase):
      results[case.name] = run_recording_warnings(run_opt_case, case)
    else:
      results[case.name] = run_recording_warnings(run_fn_case, case)
    if args.verbose:
      print(f'{time.time() - t0:6.2f}s {case.name}', flush=True)
  meta = {'optax_version': optax.__version__, 'optax_file': optax.__file__,
          'jax_version': jax.__version__, 'backend': jax.default_backend(),
          'python': sys.version.split()[0],
          'seconds': round(time.time() - start, 1)}
  with open(args.out, 'wb') as f:
    pickle.dump({'meta': meta, 'cases': results}, f)
  n_err = sum('error' in r for r in results.values())
  n_warn = sum(bool(r['warnings']) for r in results.values())
  print(f'run_cases: optax {optax.__version__} from {optax.__file__}: '
        f'{len(results)} cases ({n_err} raised, {n_warn} warned) in '
        f'{meta["seconds"]}s')
  return 0


if __name__ == '__main__':
  sys.exit(main())
