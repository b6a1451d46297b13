# Copyright 2026 The Optax fork authors. All Rights Reserved.
# Licensed under the Apache License, Version 2.0.
"""Cross-version checkpoint round trip with orbax-checkpoint.

Usage::

  python -m tools.compare.checkpoint save --dir DIR
  python -m tools.compare.checkpoint restore --dir DIR

(run by run.sh under each interpreter, from a folder without the fork's
``optax/`` and with ``tools`` on ``PYTHONPATH``, so that ``optax`` is that
interpreter's own package; see tools/README.md)

``save`` trains a small MLP for a few steps with each optimizer of
:data:`OPTIMIZERS`, writes ``{'params', 'opt_state'}`` with
``orbax.checkpoint.StandardCheckpointer`` under ``DIR/<name>``, then keeps
training from that state and writes the saved leaves and the continued
trajectory to ``DIR/<name>.npz`` (keyed by ``jax.tree_util.keystr``).

``restore``, run by the other version, builds the same optimizer, restores
the checkpoint into its own ``tx.init`` structure (the restore target), checks
that the restored leaves have the key paths and bits that were saved,
continues training for the same number of steps and compares the trajectory
with the saver's, to the tolerance of compare.py for the params' dtype. Exit
status 1 on any failure.

Leaves whose dtype the two versions deliberately keep differently
(:data:`DTYPE_CHANGES`, listed in deviations.toml) restore into the
restorer's dtype: their restored values must equal the saved ones cast to
that dtype (exactly when widening, rounded to nearest when narrowing).
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
import orbax.checkpoint as ocp
import optax  # pylint: disable=wrong-import-order

# pylint: disable-next=wrong-import-order
from tools.compare.compare import TOLERANCES

SEED = 7
STEPS_BEFORE = 3
STEPS_AFTER = 3

OPTIMIZERS: dict[str, Callable[[], Any]] = {
    'adam': lambda: optax.adam(1e-2),
    'adamw_inject_schedule': lambda: optax.inject_hyperparams(optax.adamw)(
        learning_rate=optax.warmup_cosine_decay_schedule(0.0, 1e-2, 2, 10),
        weight_decay=1e-3),
    'multisteps_adam': lambda: optax.MultiSteps(optax.adam(1e-2), 2),
    'chain_clip_adam': lambda: optax.chain(optax.clip_by_global_norm(1.0),
                                           optax.adam(1e-2)),
    'lion': lambda: optax.lion(1e-3),
    'adafactor': lambda: optax.adafactor(1e-2),
    'adafactor_factored': lambda: optax.adafactor(
        1e-2, min_dim_size_to_factor=4, momentum=0.9),
    'schedule_free_adamw_bf16': lambda: optax.contrib.schedule_free_adamw(
        1e-2, warmup_steps=2),
}

# The params' dtype of an optimizer's problem, when not float32.
PARAMS_DTYPES: dict[str, Any] = {
    'schedule_free_adamw_bf16': jnp.bfloat16,
}

# State fields (attribute names) whose dtype differs between upstream 0.2.8
# and the fork for an optimizer of OPTIMIZERS: the fork keeps schedule_free's
# scalars float32 on bfloat16 params, upstream keeps them bfloat16.
DTYPE_CHANGES: dict[str, tuple[str, ...]] = {
    'schedule_free_adamw_bf16': ('b1', 'weight_sum', 'max_lr'),
}

# npz files cannot hold bfloat16: such leaves are stored as float32, with
# their dtype under this prefix.
_DTYPE_KEY = 'dtype:'


def _problem(dtype: Any = jnp.float32):
  """A small MLP: params in ``dtype`` (the data float32) and its loss."""
  rng = np.random.default_rng(SEED)
  params = {
      'layer0': {'b': np.zeros((8,), np.float32),
                 'w': (0.5 * rng.standard_normal((4, 8))).astype(np.float32)},
      'layer1': {'b': np.zeros((3,), np.float32),
                 'w': (0.5 * rng.standard_normal((8, 3))).astype(np.float32)},
  }
  x = rng.standard_normal((16, 4)).astype(np.float32)
  y = rng.integers(0, 3, (16,)).astype(np.int32)

  def loss(p):
    h = jnp.tanh(x @ p['layer0']['w'] + p['layer0']['b'])
    logits = h @ p['layer1']['w'] + p['layer1']['b']
    logp = jax.nn.log_softmax(logits)
    return -jnp.mean(jnp.take_along_axis(logp, y[:, None], axis=1))

  return jax.tree.map(lambda p: jnp.asarray(p, dtype), params), loss


def _stepper(tx, loss):
  @jax.jit
  def step(params, state):
    grads = jax.grad(loss)(params)
    updates, state = tx.update(grads, state, params)
    return optax.apply_updates(params, updates), state
  return step


def _flat(tree: Any, prefix: str) -> dict[str, np.ndarray]:
  leaves, _ = jax.tree_util.tree_flatten_with_path(tree)
  return {prefix + jax.tree_util.keystr(p): np.asarray(v) for p, v in leaves}


def _to_npz(arrays: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
  """bfloat16 arrays as float32 (exact), their dtype under _DTYPE_KEY."""
  out = {}
  for k, v in arrays.items():
    if v.dtype == jnp.bfloat16:
      out[k] = v.astype(np.float32)
      out[_DTYPE_KEY + k] = np.array('bfloat16')
    else:
      out[k] = v
  return out


def _from_npz(path: str) -> dict[str, np.ndarray]:
  """The arrays written by _to_npz, in their original dtypes."""
  data = dict(np.load(path))
  for k in [k for k in data if k.startswith(_DTYPE_KEY)]:
    name = k[len(_DTYPE_KEY):]
    data[name] = data[name].astype(jnp.dtype(str(data.pop(k))))
  return data


def _dtype_may_change(name: str, key: str) -> bool:
  """Whether ``key`` is a state field listed in DTYPE_CHANGES[name]."""
  return any(key.endswith('.' + field)
             for field in DTYPE_CHANGES.get(name, ()))


def save(directory: str) -> int:
  """Trains, checkpoints, continues; writes the reference arrays."""
  for name, make in OPTIMIZERS.items():
    tx = make()
    params, loss = _problem(PARAMS_DTYPES.get(name, jnp.float32))
    step = _stepper(tx, loss)
    state = tx.init(params)
    for _ in range(STEPS_BEFORE):
      params, state = step(params, state)
    tree = {'params': params, 'opt_state': state}
    with ocp.StandardCheckpointer() as ckptr:
      ckptr.save(os.path.join(directory, name), tree)
    arrays = _flat(tree, 'saved')
    for i in range(STEPS_AFTER):
      params, state = step(params, state)
      arrays.update(_flat(params, f'step{i}'))
    np.savez(os.path.join(directory, name + '.npz'), **_to_npz(arrays))
  print(f'checkpoint save: optax {optax.__version__}: '
        f'{len(OPTIMIZERS)} checkpoints in {directory}')
  return 0


def _close(a: np.ndarray, b: np.ndarray) -> bool:
  """Equal to the tolerance of compare.py for the dtype of ``a``."""
  rtol, atol = TOLERANCES.get(str(a.dtype), (0.0, 0.0))
  # Not dtype.kind: ml_dtypes' bfloat16 has kind 'V'.
  if not jnp.issubdtype(a.dtype, jnp.inexact):
    return np.array_equal(a, b)
  wide = np.complex128 if jnp.issubdtype(a.dtype, jnp.complexfloating) else (
      np.float64)
  a, b = a.astype(wide), b.astype(wide)
  scale = np.max(np.abs(b)) if b.size else 0.0
  return bool(np.all(np.abs(a - b) <= atol + rtol * scale))


def restore(directory: str) -> int:
  """Restores into this version's state, continues, compares."""
  failures = 0
  for name, make in OPTIMIZERS.items():
    problems = []
    try:
      tx = make()
      params0, loss = _problem(PARAMS_DTYPES.get(name, jnp.float32))
      target = {'params': params0, 'opt_state': tx.init(params0)}
      abstract = jax.tree.map(ocp.utils.to_shape_dtype_struct, target)
      with ocp.StandardCheckpointer() as ckptr:
        restored = ckptr.restore(os.path.join(directory, name), abstract)
      ref = _from_npz(os.path.join(directory, name + '.npz'))
      got = _flat(restored, 'saved')
      want = {k: v for k, v in ref.items() if k.startswith('saved')}
      if sorted(got) != sorted(want):
        problems.append(f'key paths differ: restored only '
                        f'{sorted(set(got) - set(want))[:4]}, saved only '
                        f'{sorted(set(want) - set(got))[:4]}')
      for k in sorted(set(got) & set(want)):
        if (got[k].dtype != want[k].dtype and _dtype_may_change(name, k)
            and got[k].shape == want[k].shape):
          # Restored into this version's dtype: the saved value, cast.
          if not np.array_equal(got[k], want[k].astype(got[k].dtype),
                                equal_nan=True):
            problems.append(f'{k}: restored {got[k]} ({got[k].dtype}), '
                            f'saved {want[k]} ({want[k].dtype})')
          else:
            print(f'checkpoint {name}: {k} saved {want[k].dtype} {want[k]}, '
                  f'restored {got[k].dtype} {got[k]}')
        elif got[k].dtype != want[k].dtype or got[k].shape != want[k].shape:
          problems.append(f'{k}: restored {got[k].dtype}{got[k].shape}, '
                          f'saved {want[k].dtype}{want[k].shape}')
        elif not np.array_equal(got[k], want[k], equal_nan=True):
          problems.append(f'{k}: restored values differ from saved ones')
      step = _stepper(tx, loss)
      params, state = restored['params'], restored['opt_state']
      for i in range(STEPS_AFTER):
        params, state = step(params, state)
        for k, v in _flat(params, f'step{i}').items():
          if not _close(v, ref[k]):
            problems.append(f'{k}: continued trajectory differs: '
                            f'{v.ravel()[:3]} vs {ref[k].ravel()[:3]}')
    except Exception as exc:  # pylint: disable=broad-exception-caught
      problems.append(f'{type(exc).__name__}: {str(exc)[:300]}')
    if problems:
      failures += 1
      print(f'FAIL checkpoint {name}: ' + '\n    '.join(problems[:5]))
  print(f'checkpoint restore: optax {optax.__version__}: '
        f'{len(OPTIMIZERS)} checkpoints, {failures} failed')
  return 1 if failures else 0


def main(argv: list[str] | None = None) -> int:
  """Command line entry point."""
  parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
  parser.add_argument('mode', choices=('save', 'restore'))
  parser.add_argument('--dir', required=True)
  args = parser.parse_args(argv)
  directory = os.path.abspath(args.dir)  # orbax needs absolute paths.
  if args.mode == 'save':
    os.makedirs(directory, exist_ok=True)
    return save(directory)
  return restore(directory)


if __name__ == '__main__':
  sys.exit(main())
