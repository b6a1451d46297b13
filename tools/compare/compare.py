# Copyright 2026 The Optax fork authors. All Rights Reserved.
# Licensed under the Apache License, Version 2.0.
"""Compares the records of run_cases.py from the fork and from upstream.

Usage::

  python -m tools.compare.compare --fork FORK.pkl --upstream UPSTREAM.pkl \\
      [--deviations deviations.toml] [--verbose]

Reads only NumPy and the standard library (``tomllib``), so it runs in either
interpreter. For every case it checks, in this order:

1. Exceptions: a case must raise on both sides or on neither. When both
   raise, the fork's exception must be upstream's type or a subclass of it
   (so that ``except UpstreamType`` still catches it); messages may differ.
   Warnings, whether or not the case raises: the distinct warnings raised on
   each side must be the same, category and message (addresses normalized
   by run_cases.py), since code and tests filter warnings by both
   (``filterwarnings('error', message=...)``, ``assertWarnsRegex``).
2. Structure: for the initial state, the final state, the updates of every
   step, the final params and any ``post``/``result`` tree, the tree
   definition, and for each leaf its key path (``jax.tree_util.keystr``),
   the type names of the nodes along that path, its shape and its dtype must
   be identical. Identical states mean that a checkpoint written by one
   version restores into the other.
3. Values, leaf by leaf: ``|fork - upstream| <= atol + rtol *
   max|upstream|`` for every element (relative to the largest finite
   element of the leaf, so that an element much smaller than the rest of
   its leaf, the result of a cancellation, is not held to a relative
   precision its leaf never had). Tolerances by the leaf's dtype:

   * float32, float64, complex64 and Python floats: ``rtol=2e-4``,
     ``atol=1e-6``. The fork turns each scalar hyperparameter into a float32
     array before deriving anything from it (``1 - b1`` and friends are then
     rounded to float32 where upstream computes them in float64 and rounds
     once), so Adam-family updates differ from upstream's by about 1e-5
     relative in the first steps; over five steps the drift stays an order
     of magnitude below ``rtol``.
   * bfloat16 and float16: ``rtol=3e-2``, ``atol=1e-4``: one rounding of a
     value that differs by 1e-5 can move it to the neighbouring bfloat16
     (2**-8 to 2**-7 apart, relative), and a few steps compound such flips.
   * a case whose name says ``bf16`` or ``mixed`` holds every floating
     leaf, float32 ones included, to the bfloat16 tolerances: float32 leaves
     there are computed from bfloat16 ones (a global norm, a bfloat16
     moment), so they inherit bfloat16 rounding.
   * integers, booleans and PRNG key data: exact.
   * NaN must be NaN on both sides; infinities must match.

A mismatch that is a deliberate fix of an upstream bug is listed in the
deviations file as a ``[[comparison]]`` entry with ``id`` (a case name or a
list of them, ``fnmatch`` patterns allowed), ``reason`` and, optionally,
``differs``: the kinds of difference the entry allows, among

* ``upstream-raises``: upstream raises, the fork does not;
* ``dtype``: a leaf's dtype;
* ``structure``: tree definition, key paths, node classes or shapes;
* ``values``: values beyond the tolerance;
* ``raises``: any other exception difference;
* ``warnings``: the warnings raised (category or message).

A listed case with a difference of another kind fails, so that an entry for
a dtype policy cannot hide wrong values. A case named by several entries
(one per reason) may differ in the kinds they allow together; an entry that
allows none of the kinds of any case it names is stale. Every entry names
the upstream release it was written against (``upstream``) and may name a
jax range (``jax``); see tools/fork_config.py. An entry for another
upstream release than the one of ``[tool.optax-fork]`` in pyproject.toml
fails the run (stale), one whose jax range excludes the fork's jax is
skipped and reported, and the run fails if the upstream side is not that
release. The run fails on any mismatch that is not listed and on a listed
pattern that no longer mismatches (stale). With ``--upstream-label
main@COMMIT`` the upstream side is a source tree of upstream's main branch
(tools/compare/run.sh --upstream-tree): its version is not checked, the
entries naming main apply and the others are skipped, and the bit-identical
list (written for a release) is reported, not judged.
With ``--bit-identical FILE`` (``tools/compare/bit_identical.toml``) the
cases it lists must also be bit-identical to upstream's: every recorded
leaf the same dtype, shape and bits (NaN payloads aside, the sign of zero
included). The tolerances above let an unintended change of rounding pass
(an operand order, a product of two factors taken first); for these cases,
which run op by op and so have the same bits on any machine where both
sides compute the same operations, it fails.

The last line is ``compare: N cases, M matched, K listed deviations, F
failed``; the exit status is 1 if F > 0.
"""

from __future__ import annotations

import argparse
import fnmatch
import pickle
import sys
import tomllib
from typing import Any

import numpy as np

from tools import fork_config

TOLERANCES = {
    'float32': (2e-4, 1e-6),
    'float64': (2e-4, 1e-6),
    'complex64': (2e-4, 1e-6),
    'complex128': (2e-4, 1e-6),
    'py:float': (2e-4, 1e-6),
    'py:complex': (2e-4, 1e-6),
    'bfloat16': (3e-2, 1e-4),
    'float16': (3e-2, 1e-4),
}


def _tree_structure(tree: dict[str, Any]) -> tuple[Any, ...]:
  return (tree['treedef'],
          tuple((leaf['path'], tuple(leaf['classes']), leaf['shape'],
                 leaf['dtype']) for leaf in tree['leaves']))


def _structure_diff(name: str, fork: dict[str, Any],
                    upstream: dict[str, Any]) -> list[str]:
  """Differences of treedef, key paths, classes, shapes and dtypes."""
  out = []
  if fork['treedef'] != upstream['treedef']:
    out.append(f'{name}: treedef differs:\n      fork     '
               f'{fork["treedef"][:300]}\n      upstream '
               f'{upstream["treedef"][:300]}')
  fl = {leaf['path']: leaf for leaf in fork['leaves']}
  ul = {leaf['path']: leaf for leaf in upstream['leaves']}
  only_f = [p for p in fl if p not in ul]
  only_u = [p for p in ul if p not in fl]
  if only_f or only_u:
    out.append(f'{name}: key paths differ: fork only {only_f[:6]}, '
               f'upstream only {only_u[:6]}')
  for path, f in fl.items():
    u = ul.get(path)
    if u is None:
      continue
    for field in ('classes', 'shape', 'dtype'):
      if f[field] != u[field]:
        out.append(f'{name}{path}: {field} fork {f[field]} upstream '
                   f'{u[field]}')
  return out


def _value_diff(name: str, fork: dict[str, Any],
                upstream: dict[str, Any], low_precision: bool) -> list[str]:
  """Leaves whose values differ beyond the tolerance of their dtype."""
  out = []
  ul = {leaf['path']: leaf for leaf in upstream['leaves']}
  for f in fork['leaves']:
    u = ul.get(f['path'])
    if u is None:
      continue  # reported as a structure difference
    # A dtype difference is reported as a structure difference; the values
    # are still compared, to the tolerance of the narrower dtype, so that a
    # listed dtype deviation cannot hide wrong values.
    dtype = f['dtype']
    if u['dtype'] != dtype:
      widths = [TOLERANCES.get(d, (0.0, 0.0)) for d in (dtype, u['dtype'])]
      dtype = (f['dtype'], u['dtype'])[widths.index(max(widths))]
    fv, uv = f['value'], u['value']
    if isinstance(fv, str) or isinstance(uv, str):
      continue  # opaque objects: their type is compared, not their repr
    fv, uv = np.asarray(fv), np.asarray(uv)
    if fv.shape != uv.shape:
      out.append(f'{name}{f["path"]}: value shape fork {fv.shape} upstream '
                 f'{uv.shape}')
      continue
    tol = TOLERANCES.get(dtype)
    if tol is not None and low_precision:
      tol = TOLERANCES['bfloat16']
    if tol is None or fv.dtype.kind not in 'fc':
      if not np.array_equal(fv, uv):
        bad = np.argwhere(fv != uv)[:3].tolist()
        out.append(f'{name}{f["path"]} ({dtype}): not equal at {bad}: '
                   f'fork {_show(fv)} upstream {_show(uv)}')
      continue
    rtol, atol = tol
    fv64 = fv.astype(np.complex128 if fv.dtype.kind == 'c' else np.float64)
    uv64 = uv.astype(fv64.dtype)
    nan_f, nan_u = np.isnan(fv64), np.isnan(uv64)
    finite = np.isfinite(uv64) & np.isfinite(fv64)
    bad = (nan_f != nan_u)
    inf_mismatch = ~finite & ~nan_f & ~nan_u & (fv64 != uv64)
    bad |= inf_mismatch
    scale = np.max(np.abs(uv64[finite])) if finite.any() else 0.0
    with np.errstate(invalid='ignore', over='ignore'):
      err = np.where(finite, np.abs(fv64 - uv64), 0.0)
    bad |= err > atol + rtol * scale
    if bad.any():
      out.append(f'{name}{f["path"]} ({dtype}): {int(bad.sum())}/'
                 f'{bad.size} elements off, max abs {err.max():.3g} '
                 f'({err.max() / max(scale, 1e-30):.3g} of the largest): '
                 f'fork {_show(fv)} upstream {_show(uv)}')
  return out


def _show(x: np.ndarray) -> str:
  flat = np.asarray(x).ravel()
  text = np.array2string(flat[:4], precision=7, separator=',')
  return text if flat.size <= 4 else text[:-1] + ',...]'


def _error_diff(fork: dict[str, Any], upstream: dict[str, Any]) -> list[str]:
  fe, ue = fork.get('error'), upstream.get('error')
  if fe is None and ue is None:
    return []
  if fe is None:
    return [f'upstream raises {ue["type"]} at {ue["stage"]} '
            f'({_first_line(ue["message"])}), fork does not']
  if ue is None:
    return [f'fork raises {fe["type"]} at {fe["stage"]} '
            f'({_first_line(fe["message"])}), upstream does not']
  if ue['type'] not in fe['mro']:
    return [f'exception type: fork {fe["type"]} at {fe["stage"]} '
            f'({_first_line(fe["message"])}), upstream {ue["type"]} at '
            f'{ue["stage"]} ({_first_line(ue["message"])})']
  return []


def _warnings_diff(fork: dict[str, Any], upstream: dict[str, Any]
                   ) -> list[str]:
  """Warnings (category, message) raised on one side only."""
  def pairs(rec):
    return [(w['category'], w['message']) for w in rec.get('warnings', [])]
  fw, uw = pairs(fork), pairs(upstream)
  only_f = [w for w in fw if w not in uw]
  only_u = [w for w in uw if w not in fw]
  if not only_f and not only_u:
    return []
  def show(ws):
    return '; '.join(f'{c}: {_first_line(m)}' for c, m in ws) or 'none'
  return [f'warnings differ: fork only [{show(only_f)}], upstream only '
          f'[{show(only_u)}]']


def _first_line(msg: str) -> str:
  line = msg.strip().splitlines()[0] if msg.strip() else ''
  return line[:160]


def _case_trees(fork: dict[str, Any], upstream: dict[str, Any]
                ) -> list[tuple[str, Any, Any]]:
  """(name, fork's tree, upstream's tree) for every tree a case records."""
  trees: list[tuple[str, Any, Any]] = []
  if fork['kind'] == 'opt':
    trees.append(('init_state', fork['init_state'], upstream['init_state']))
    trees.append(('state', fork['state'], upstream['state']))
    trees.append(('params', fork['params'], upstream['params']))
    for i, (fu, uu) in enumerate(zip(fork['updates'], upstream['updates'])):
      trees.append((f'updates[{i}]', fu, uu))
    if 'post' in upstream or 'post' in fork:
      trees.append(('post', fork.get('post'), upstream.get('post')))
  else:
    trees.append(('result', fork['result'], upstream['result']))
  return trees


def bit_difference(fork: dict[str, Any], upstream: dict[str, Any]
                   ) -> str | None:
  """Where a case is not bit-identical to upstream's, or None.

  Bit-identical: neither side raises, the same trees, and every leaf the
  same dtype, shape and bits (NaN payloads aside; the sign of a zero
  counts).

  Args:
    fork: the fork's record of the case.
    upstream: upstream's record of it.

  Returns:
    The first difference, as a line, or None.
  """
  if 'error' in fork or 'error' in upstream:
    return 'an exception on one side or both'
  for name, f, u in _case_trees(fork, upstream):
    if f is None or u is None:
      return f'{name}: missing on one side'
    if _tree_structure(f) != _tree_structure(u):
      return f'{name}: structure differs'
    for fl, ul in zip(f['leaves'], u['leaves']):
      a, b = np.asarray(fl['value']), np.asarray(ul['value'])
      if a.dtype.kind in 'fc':
        both_nan = np.isnan(a) & np.isnan(b)
        same = ((a == b) & (np.signbit(a.real) == np.signbit(b.real))
                & (np.signbit(a.imag) == np.signbit(b.imag))) | both_nan
      else:
        same = a == b
      if not np.all(same):
        count = int(np.size(same) - np.count_nonzero(same))
        return (f'{name}{fl["path"]}: {count} of {np.size(same)} elements '
                f'differ in their bits')
  return None


def load_bit_identical(path: str | None) -> tuple[str | None, list[str]]:
  """The upstream release and the case names of a bit-identical list."""
  if not path:
    return None, []
  with open(path, 'rb') as f:
    data = tomllib.load(f)
  if not data.get('upstream') or not data.get('reason'):
    raise ValueError(f'{path}: needs upstream and reason')
  return data['upstream'], list(data.get('cases', []))


def compare_case(case: str, fork: dict[str, Any], upstream: dict[str, Any]
                 ) -> list[str]:
  """All differences of one case, as human-readable lines."""
  low_precision = 'bf16' in case or 'mixed' in case
  diffs = _warnings_diff(fork, upstream)
  errors = _error_diff(fork, upstream)
  if errors or 'error' in fork:
    return diffs + errors
  trees = _case_trees(fork, upstream)
  for name, f, u in trees:
    if f is None or u is None:
      diffs.append(f'{name}: missing on one side')
      continue
    diffs.extend(_structure_diff(name, f, u))
  for name, f, u in trees:
    if f is None or u is None:
      continue
    vd = _value_diff(name, f, u, low_precision)
    if vd:
      diffs.extend(vd[:4])
      break  # later trees only repeat the first divergence
  return diffs


DIFF_KINDS = ('upstream-raises', 'raises', 'dtype', 'structure', 'values',
              'warnings')


def diff_kind(line: str) -> str:
  """The kind (one of :data:`DIFF_KINDS`) of a line of compare_case."""
  if line.startswith('upstream raises ') and line.endswith(
      'fork does not'):
    return 'upstream-raises'
  if line.startswith(('upstream raises ', 'fork raises ',
                      'exception type: ')):
    return 'raises'
  if line.startswith('warnings differ: '):
    return 'warnings'
  if ': dtype fork ' in line:
    return 'dtype'
  if ('elements off' in line or 'not equal at' in line
      or ': value shape fork' in line):
    return 'values'
  return 'structure'


def load_deviations(path: str | None) -> list[dict[str, Any]]:
  """The ``[[comparison]]`` entries, with ``id`` made a list."""
  if not path:
    return []
  with open(path, 'rb') as f:
    data = tomllib.load(f)
  entries = data.get('comparison', [])
  for e in entries:
    if not e.get('id') or not e.get('reason'):
      raise ValueError(f'{path}: every [[comparison]] needs id and reason, '
                       f'got {e}')
    if isinstance(e['id'], str):
      e['id'] = [e['id']]
    unknown = set(e.get('differs', DIFF_KINDS)) - set(DIFF_KINDS)
    if unknown:
      raise ValueError(f'{path}: [[comparison]] {e["id"]}: differs must be '
                       f'among {DIFF_KINDS}, got {sorted(unknown)}')
  return entries


def _check_bit_identical(path: str | None, upstream_version: str,
                         fork: dict[str, Any], upstream: dict[str, Any]
                         ) -> int:
  """Checks the cases listed as bit-identical; returns the failures."""
  release, listed = load_bit_identical(path)
  if release is None:
    return 0
  if fork_config.is_main(upstream_version):
    # The list is upstream release's bits: against main it only informs.
    ran = [n for n in listed if n in fork and n in upstream]
    same = sum(bit_difference(fork[n], upstream[n]) is None for n in ran)
    print(f'bit-identical: the list is for upstream {release}, not judged '
          f'against {upstream_version}; {same} of its {len(ran)} cases '
          'that ran are bit-identical to it')
    return 0
  if release != upstream_version:
    print(f'FAIL {path} lists the cases bit-identical to upstream '
          f'{release}, the lanes compare against {upstream_version}: '
          f'regenerate it')
    return 1
  ran = set(fork) & set(upstream)
  missing = [n for n in listed if n not in ran]
  if missing:
    print(f'STALE bit-identical: {len(missing)} listed cases did not run '
          f'(renamed, removed or filtered out), e.g. {missing[:3]}')
  differing = 0
  for name in listed:
    if name not in ran:
      continue
    where = bit_difference(fork[name], upstream[name])
    if where is not None:
      print(f'FAIL {name}: listed as bit-identical to upstream: {where}')
      differing += 1
  others = [n for n in sorted(ran - set(listed))
            if bit_difference(fork[n], upstream[n]) is None]
  print(f'bit-identical: {len(listed) - len(missing) - differing} of '
        f'{len(listed) - len(missing)} listed cases that ran; {len(others)} '
        f'unlisted cases are too')
  return len(missing) + differing


def main(argv: list[str] | None = None) -> int:
  """Command line entry point."""
  parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
  parser.add_argument('--fork', required=True)
  parser.add_argument('--upstream', required=True)
  parser.add_argument('--deviations', default=None)
  parser.add_argument('--bit-identical', default=None,
                      help='a TOML list of cases that must be bit-identical '
                      'to upstream\'s')
  parser.add_argument('--upstream-label', default=None,
                      help='the upstream compared against, when not the '
                      'release of [tool.optax-fork]: main@COMMIT for a '
                      'source tree of main (its version is not checked)')
  parser.add_argument('--verbose', action='store_true',
                      help='print every difference line of every case')
  args = parser.parse_args(argv)

  with open(args.fork, 'rb') as f:
    fork = pickle.load(f)
  with open(args.upstream, 'rb') as f:
    upstream = pickle.load(f)
  deviations = load_deviations(args.deviations)
  upstream_version = args.upstream_label or fork_config.upstream_version()
  stale_entries = 0
  applicable = []
  for e in deviations:
    why = fork_config.not_applicable(e, upstream_version,
                                     fork['meta'].get('jax_version'),
                                     backend=fork['meta'].get('backend'))
    if why is None:
      applicable.append(e)
    elif why[0] == 'stale':
      stale_entries += 1
      print(f'STALE deviation {why[1]}')
    else:
      print(f'deviation not applicable {why[1]}')
  deviations = applicable
  print(f'compare: fork optax {fork["meta"]["optax_version"]} '
        f'({fork["meta"]["optax_file"]}), upstream optax '
        f'{upstream["meta"]["optax_version"]} '
        f'({upstream["meta"]["optax_file"]})')

  fc, uc = fork['cases'], upstream['cases']
  names = sorted(set(fc) | set(uc))
  matched = listed = 0
  failed = stale_entries
  if (not fork_config.is_main(upstream_version)
      and upstream['meta']['optax_version'] != upstream_version):
    failed += 1
    print(f'FAIL the upstream side runs optax '
          f'{upstream["meta"]["optax_version"]}, the lanes compare against '
          f'{upstream_version} ([tool.optax-fork] in pyproject.toml)')
  used = {pattern: False for e in deviations for pattern in e['id']}
  for name in names:
    if name not in fc or name not in uc:
      print(f'FAIL {name}: only in {"fork" if name in fc else "upstream"}')
      failed += 1
      continue
    diffs = compare_case(name, fc[name], uc[name])
    if not diffs:
      matched += 1
      continue
    # The entries naming the case (each by its first matching pattern)
    # must together allow all its kinds of difference: one entry per
    # reason, so that a case with two deliberate differences (a dtype
    # policy and a reworded warning) is listed under both.
    matching = []
    for e in deviations:
      pattern = next((p for p in e['id'] if fnmatch.fnmatchcase(name, p)),
                     None)
      if pattern is not None:
        matching.append((e, pattern))
    kinds = {diff_kind(d) for d in diffs}
    allowing = [(set(e.get('differs', DIFF_KINDS)) & kinds, p)
                for e, p in matching]
    if matching and kinds <= set().union(*(a for a, _ in allowing)):
      for allowed, pattern in allowing:
        if allowed:
          used[pattern] = True
      listed += 1
      shown = diffs if args.verbose else diffs[:1]
      print(f'listed {name}: ' + '\n    '.join(shown))
      continue
    if matching:
      diffs = [f'{sorted(kinds)} differences, not all allowed by the '
               f'deviations {[p for _, p in matching]}'] + diffs
    failed += 1
    shown = diffs if args.verbose else diffs[:3]
    print(f'FAIL {name}: ' + '\n    '.join(shown))
  for pattern, was_used in used.items():
    if was_used:
      continue
    failed += 1
    if any(fnmatch.fnmatchcase(n, pattern) for n in names):
      print(f'STALE deviation {pattern}: its cases match upstream now (or '
            f'fail for another reason); remove it from the deviations file')
    else:
      print(f'STALE deviation {pattern}: no case has this name')
  failed += _check_bit_identical(args.bit_identical, upstream_version,
                                 fc, uc)
  print(f'compare: {len(names)} cases, {matched} matched, {listed} listed '
        f'deviations, {failed} failed')
  return 1 if failed else 0


if __name__ == '__main__':
  sys.exit(main())
