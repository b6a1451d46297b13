# Copyright 2026 The Optax fork authors. All Rights Reserved.
# Licensed under the Apache License, Version 2.0.
"""Seeded fuzz cases: every registry optimizer and wrapper on odd input.

A case is a plain dictionary (JSON), made once by :func:`generate` in the
orchestrator (tools/fuzz/fuzz.py, the fork's interpreter, which reads the
registry, optax/_src/testing/registry.py, and the factories' signatures) and
rebuilt by :func:`build_transformation`, :func:`make_params` and
:func:`make_grads` in each worker, under upstream Optax and under the fork,
from the public API only (``optax.adam``, ``optax.contrib.muon``, ...), so
this module imports unchanged on both sides. Keys of a case:

* ``name``: ``entry/wrapper/h:hyper/p:params/g:grads/mode``, e.g.
  ``adam/alone/h:learning_rate=nan/p:f32/g:normal/jit``: the deviations'
  patterns (``[[fuzz]]`` in deviations.toml) match it with ``fnmatch``.
* ``entry``: the registry's public name; ``kwargs``: its hyperparameters,
  one of them possibly replaced by ``{'fuzz': kind, 'base': value}`` (see
  :data:`HYPER_KINDS`); ``wrapped``: ``{argument: [public name, kwargs]}``
  for the transformations an entry takes; ``extra``: the extra arguments its
  ``update`` needs; ``per_example``: gradients carry a batch axis.
* ``wrapper``: one of :data:`WRAPPERS`; ``params``: one of
  :data:`PARAMS_KINDS`; ``grads``: one of :data:`GRADS_KINDS`; ``jit``;
  ``steps``; ``seed``: the seed of the case's random values (NumPy's
  ``default_rng``, the same bits on both sides).
"""

from __future__ import annotations

import inspect
import math
import random
from typing import Any, Callable

# Odd values of one hyperparameter. A kind marked by a schedule is given
# only to ``learning_rate`` (the argument that takes a schedule).
HYPER_KINDS = ('zero', 'neg', 'nan', 'inf', 'ninf', 'huge', 'denormal',
               'int0', 'int1', 'np32', 'np64', 'jax', 'jax_bf16', 'str',
               'vector', 'sched_nan', 'sched')
_SCHEDULE_KINDS = ('sched_nan', 'sched')
# Hyperparameter kinds that are not finite numbers.
NON_FINITE_HYPER = ('nan', 'inf', 'ninf', 'sched_nan')

# Params trees. Every kind but ``empty`` has a float32 matrix ``w``.
PARAMS_KINDS = ('f32', 'bf16', 'f16', 'mixed', 'empty', 'empty_nested',
                'none_leaf', 'scalar', 'zero_size', 'py_float', 'complex',
                'int_leaf')
# Gradient trees, derived from the params.
GRADS_KINDS = ('normal', 'zeros', 'nan', 'inf', 'ninf', 'all_nan', 'huge',
               'denormal', 'extra_key', 'missing_key', 'transposed',
               'broadcast', 'wrong_dtype', 'float0', 'int')
NON_FINITE_GRADS = ('nan', 'inf', 'ninf', 'all_nan')
# Gradient trees whose structure or shapes are not the params'.
MISMATCHED_GRADS = ('extra_key', 'missing_key', 'transposed', 'broadcast')

# Wrappers around an entry's optimizer (those of the composition test).
WRAPPERS = ('alone', 'multisteps', 'inject_hyperparams', 'masked',
            'partition', 'apply_if_finite', 'chain_zero_nans_clip',
            'lookahead', 'flatten', 'named_chain')
# The composition test's name of a wrapper named otherwise here.
_COMPOSITION_NAMES = {'masked': 'masked_tree'}

# Entries whose update runs a loop or a conditional: eager execution traces
# and compiles it again on every call, so they run jitted only.
_JIT_ONLY_ENTRIES = ('lbfgs', 'scale_by_lbfgs', 'scale_by_zoom_linesearch',
                     'scale_by_backtracking_linesearch', 'contrib.muon',
                     'contrib.scale_by_muon', 'contrib.galore',
                     'contrib.scale_by_galore', 'contrib.mechanize',
                     'contrib.reduce_on_plateau', 'contrib.dpsgd',
                     'contrib.differentially_private_aggregate',
                     'contrib.sam', 'contrib.momo', 'contrib.momo_adam',
                     'contrib.sophia', 'contrib.prodigy',
                     'contrib.dadapt_adamw')
_JIT_ONLY_WRAPPERS = ('multisteps', 'apply_if_finite', 'lookahead')
# Integer-valued or structural arguments are not fuzzed (a NaN memory size
# or a 1e38 loop bound tests Python, not the optimizer).
_NOT_FUZZED = ('memory_size', 'rank', 'update_proj_gap', 'sync_period',
               'max_backtracking_steps', 'max_linesearch_steps',
               'min_dim_size_to_factor', 'key', 'seed', 'update_interval',
               'ns_steps', 'every_k_schedule', 'num_iters')
STEPS = 3


def _public_name(module: str, attr: str) -> str:
  if module.startswith('optax.contrib'):
    return f'contrib.{attr}'
  return attr


def _meaningless(entry: Any, wrapper: str) -> bool:
  """The combinations the composition test leaves out, for the same reasons.

  Only the orchestrator (the fork's interpreter, which reads the registry)
  calls it, so the registry is imported here and not by the workers.

  Args:
    entry: a ``registry.Entry``.
    wrapper: one of :data:`WRAPPERS`.

  Returns:
    Whether ``registry.meaningless_reason`` gives a reason.
  """
  # pylint: disable-next=import-outside-toplevel
  from optax._src.testing import registry
  return registry.meaningless_reason(
      entry, _COMPOSITION_NAMES.get(wrapper, wrapper)) is not None


def fuzzable_hyperparameters(entry: Any) -> dict[str, float]:
  """The float hyperparameters of an entry and their (test or default) value.

  Args:
    entry: a ``registry.Entry``.

  Returns:
    ``{name: value}``: the entry's float keyword arguments and every argument
    of its factory whose default is a float.
  """
  out = {k: float(v) for k, v in entry.kwargs.items()
         if isinstance(v, float) and k not in _NOT_FUZZED}
  try:
    parameters = inspect.signature(entry.factory()).parameters
  except (TypeError, ValueError):
    return out
  for name, par in parameters.items():
    if name in out or name in _NOT_FUZZED:
      continue
    if isinstance(par.default, float):
      out[name] = par.default
  return out


def _name(spec: dict[str, Any]) -> str:
  hyper = spec['hyper']
  hyper_text = 'default' if hyper is None else f'{hyper[0]}={hyper[1]}'
  mode = 'jit' if spec['jit'] else 'eager'
  return (f'{spec["entry"]}/{spec["wrapper"]}/h:{hyper_text}/'
          f'p:{spec["params"]}/g:{spec["grads"]}/{mode}')


def _make_spec(entry: Any, wrapper: str, hyper: Any, params: str,
               grads: str, jit: bool, seed: int, base: Any) -> dict[str, Any]:
  """A case (see the module docstring); ``base``: the fuzzed value's base."""
  jit_only = (entry.name in _JIT_ONLY_ENTRIES
              or wrapper in _JIT_ONLY_WRAPPERS)
  spec = {
      'entry': entry.name,
      'wrapper': wrapper,
      'hyper': None if hyper is None else list(hyper),
      'kwargs': dict(entry.kwargs),
      'wrapped': {arg: [_public_name(m, a), kw]
                  for arg, (m, a, kw) in entry.wrapped.items()},
      'extra': sorted(entry.extra_args),
      'per_example': entry.per_example_grads,
      'matrices_only': entry.matrices_only,
      'params': params,
      'grads': grads,
      'jit': jit_only or jit,
      'steps': STEPS,
      'seed': seed,
  }
  if hyper is not None:
    spec['kwargs'][hyper[0]] = {'fuzz': hyper[1], 'base': base}
  spec['name'] = _name(spec)
  return spec


# The sweep: every entry alone, eager where it can, with each of these.
SWEEP = (('grads', 'nan'), ('grads', 'huge'), ('grads', 'int'),
         ('grads', 'float0'), ('grads', 'broadcast'),
         ('params', 'py_float'), ('params', 'none_leaf'),
         ('hyper', 'nan'), ('hyper', 'str'), ('hyper', 'huge'))
_MAIN_HYPERS = ('learning_rate', 'step_size', 'max_learning_rate')


def sweep(entries: list[Any]) -> list[dict[str, Any]]:
  """Every entry alone with each odd input of :data:`SWEEP`.

  The hyperparameter is the learning rate (or step size) where the entry
  has one, else its first float hyperparameter by name.

  Args:
    entries: ``registry.ENTRIES`` (or a part of it).

  Returns:
    The cases, in the order of the entries.
  """
  out = []
  for k, entry in enumerate(entries):
    hypers = fuzzable_hyperparameters(entry)
    main = next((h for h in _MAIN_HYPERS if h in hypers),
                min(hypers) if hypers else None)
    for j, (axis, kind) in enumerate(SWEEP):
      if axis == 'hyper' and main is None:
        continue
      out.append(_make_spec(
          entry, 'alone', (main, kind) if axis == 'hyper' else None,
          kind if axis == 'params' else 'f32',
          kind if axis == 'grads' else 'normal', False,
          1000 * k + j, hypers.get(main)))
  return out


def generate(entries: list[Any], n: int, seed: int,
             with_sweep: bool = True) -> list[dict[str, Any]]:
  """The sweep and ``n`` drawn cases, the same for the same arguments.

  The drawn cases take the entries in turn (each entry once in every
  ``len(entries)`` consecutive draws), in a wrapper 40% of the time alone
  and otherwise drawn among its meaningful wrappers, with an odd
  hyperparameter, odd params or odd gradients, or several; jitted or eager.
  They are distinct from each other and from the sweep's.

  Args:
    entries: ``registry.ENTRIES`` (or a part of it).
    n: the number of drawn cases.
    seed: the seed of Python's ``random.Random`` that draws them.
    with_sweep: start with :func:`sweep`'s cases.

  Returns:
    The cases, as dictionaries (see the module docstring).
  """
  rng = random.Random(seed)
  order = list(entries)
  rng.shuffle(order)
  hypers = {e.name: fuzzable_hyperparameters(e) for e in order}
  swept = sweep(entries) if with_sweep else []
  cases: dict[str, dict[str, Any]] = {s['name']: s for s in swept}
  attempts = 0
  while len(cases) < n + len(swept) and attempts < 20 * n:
    entry = order[attempts % len(order)]
    attempts += 1
    wrappers = [w for w in WRAPPERS if not _meaningless(entry, w)]
    wrapper = 'alone' if rng.random() < 0.4 else rng.choice(wrappers)
    hyper = None
    params, grads = 'f32', 'normal'
    axes = [a for a in ('hyper', 'params', 'grads') if rng.random() < 0.45]
    if not axes:
      axes = [rng.choice(('hyper', 'params', 'grads'))]
    if 'hyper' in axes and hypers[entry.name]:
      hyper_name = rng.choice(sorted(hypers[entry.name]))
      kinds = [k for k in HYPER_KINDS if hyper_name == 'learning_rate'
               or k not in _SCHEDULE_KINDS]
      hyper = (hyper_name, rng.choice(kinds))
    if 'params' in axes:
      params = rng.choice(PARAMS_KINDS[1:])
    if 'grads' in axes:
      grads = rng.choice(GRADS_KINDS[1:])
    spec = _make_spec(entry, wrapper, hyper, params, grads,
                      rng.random() < 0.4, rng.randrange(2**31),
                      None if hyper is None
                      else hypers[entry.name][hyper[0]])
    cases.setdefault(spec['name'], spec)
  return list(cases.values())


# ----------------------------------------------------------------------------
# Building a case in a worker (public API only).


def hyper_value(kind: str, base: float) -> Any:
  """The odd value of one hyperparameter.

  Args:
    kind: one of :data:`HYPER_KINDS`.
    base: the value the registry (or the factory's default) gives it.

  Returns:
    The value passed to the factory.
  """
  import jax.numpy as jnp
  import numpy as np
  values: dict[str, Callable[[], Any]] = {
      'zero': lambda: 0.0,
      'neg': lambda: -abs(base) if base else -0.1,
      'nan': lambda: math.nan,
      'inf': lambda: math.inf,
      'ninf': lambda: -math.inf,
      'huge': lambda: 1e38,
      'denormal': lambda: 1e-40,
      'int0': lambda: 0,
      'int1': lambda: 1,
      'np32': lambda: np.float32(base),
      'np64': lambda: np.float64(base),
      'jax': lambda: jnp.asarray(base, jnp.float32),
      'jax_bf16': lambda: jnp.asarray(base, jnp.bfloat16),
      'str': lambda: str(base),
      'vector': lambda: jnp.asarray([base, base], jnp.float32),
      'sched_nan': lambda: (lambda count: jnp.nan * count),
      'sched': lambda: (lambda count: base * 0.5 ** count),
  }
  return values[kind]()


def _factory(public_name: str) -> Callable[..., Any]:
  import optax
  import optax.contrib
  if public_name.startswith('contrib.'):
    return getattr(optax.contrib, public_name[len('contrib.'):])
  return getattr(optax, public_name)


class NotApplicable(Exception):
  """The case names an argument this interpreter's factory lacks."""


def _call(public_name: str, kwargs: dict[str, Any]) -> Any:
  """Calls a factory; the registry's ``key`` is upstream 0.2.8's ``seed``."""
  factory = _factory(public_name)
  parameters = inspect.signature(factory).parameters
  takes_any = any(p.kind == p.VAR_KEYWORD for p in parameters.values())
  kwargs = dict(kwargs)
  if 'key' in kwargs and 'key' not in parameters and 'seed' in parameters:
    kwargs['seed'] = kwargs.pop('key')
  missing = [k for k in kwargs if k not in parameters]
  if missing and not takes_any:
    raise NotApplicable(f'{public_name} has no argument {missing}')
  return factory(**kwargs)


def _label_tree(params: Any, inside: Any, outside: Any) -> Any:
  """``inside`` at the leaves under key ``w``, ``outside`` elsewhere."""
  import jax
  def label(path, _):
    first = path[0] if path else None
    return inside if getattr(first, 'key', None) == 'w' else outside
  return jax.tree_util.tree_map_with_path(label, params)


def build_transformation(spec: dict[str, Any]) -> Any:
  """The case's optimizer, inside its wrapper.

  Args:
    spec: a case.

  Returns:
    A gradient transformation.

  Raises:
    NotApplicable: this interpreter's factory lacks an argument of the case.
  """
  import optax
  kwargs = {}
  for k, v in spec['kwargs'].items():
    kwargs[k] = hyper_value(v['fuzz'], v['base']) if isinstance(
        v, dict) else v
  for arg, (name, inner) in spec['wrapped'].items():
    kwargs[arg] = _call(name, inner)
  entry = spec['entry']

  def inner_tx():
    return _call(entry, kwargs)

  wrapper = spec['wrapper']
  if wrapper == 'alone':
    return inner_tx()
  if wrapper == 'multisteps':
    return optax.MultiSteps(inner_tx(), 2).gradient_transformation()
  if wrapper == 'inject_hyperparams':
    factory = _factory(entry)
    # Arguments that are transformations stay static.
    static = tuple(spec['wrapped'])
    return optax.inject_hyperparams(factory, static_args=static)(**kwargs)
  if wrapper == 'masked':
    return optax.masked(inner_tx(),
                        lambda p: _label_tree(p, True, False))
  if wrapper == 'partition':
    return optax.partition(
        {'main': inner_tx(), 'other': optax.sgd(0.05)},
        lambda p: _label_tree(p, 'main', 'other'))
  if wrapper == 'apply_if_finite':
    return optax.apply_if_finite(inner_tx(), 3)
  if wrapper == 'chain_zero_nans_clip':
    return optax.chain(optax.zero_nans(), optax.clip_by_global_norm(1.0),
                       inner_tx())
  if wrapper == 'lookahead':
    return optax.lookahead(inner_tx(), sync_period=2, slow_step_size=0.5)
  if wrapper == 'flatten':
    return optax.flatten(inner_tx())
  if wrapper == 'named_chain':
    return optax.named_chain(('clip', optax.clip_by_global_norm(1.0)),
                             ('opt', inner_tx()))
  raise ValueError(f'fuzz: unknown wrapper {wrapper!r}')


def make_params(spec: dict[str, Any]) -> Any:
  """The case's params tree (NumPy values, the same bits on both sides)."""
  import jax.numpy as jnp
  import numpy as np
  rng = np.random.default_rng(spec['seed'])
  b_shape = (3, 2) if spec['matrices_only'] else (3,)

  def arr(shape, dtype=jnp.float32):
    return jnp.asarray(rng.standard_normal(shape).astype(np.float32),
                       dtype=dtype)

  kind = spec['params']
  w = arr((4, 3))
  trees = {
      'f32': lambda: {'w': w, 'b': arr(b_shape)},
      'bf16': lambda: {'w': w.astype(jnp.bfloat16),
                       'b': arr(b_shape, jnp.bfloat16)},
      'f16': lambda: {'w': w.astype(jnp.float16),
                      'b': arr(b_shape, jnp.float16)},
      'mixed': lambda: {'w': w, 'b': arr(b_shape, jnp.bfloat16),
                        'h': arr((2, 2), jnp.float16)},
      'empty': lambda: {},
      'empty_nested': lambda: {'w': w, 'e': {}, 'l': [], 't': ()},
      'none_leaf': lambda: {'w': w, 'n': None},
      'scalar': lambda: {'w': w, 's': arr(())},
      'zero_size': lambda: {'w': w, 'z': arr((0, 3))},
      'py_float': lambda: {'w': w, 'f': 0.5},
      'complex': lambda: {'w': w, 'c': jnp.asarray(
          (rng.standard_normal(b_shape)
           + 1j * rng.standard_normal(b_shape)).astype(np.complex64))},
      'int_leaf': lambda: {'w': w, 'i': jnp.arange(3, dtype=jnp.int32)},
  }
  return trees[kind]()


def _is_inexact(x: Any) -> bool:
  import jax.numpy as jnp
  return isinstance(x, float) or jnp.issubdtype(jnp.result_type(x),
                                                jnp.inexact)


def make_grads(spec: dict[str, Any], params: Any) -> Any:
  """The case's gradients for ``params`` (before any batch axis).

  Args:
    spec: a case.
    params: the case's params (:func:`make_params`).

  Returns:
    A gradient tree: the gradient of ``loss`` for ``normal`` (float0 for an
    integer leaf, as ``jax.grad(allow_int=True)`` gives), otherwise odd.
  """
  import jax
  import jax.numpy as jnp
  import numpy as np
  rng = np.random.default_rng(spec['seed'] + 1)
  kind = spec['grads']

  def natural(x):
    if not _is_inexact(x):
      return np.zeros(np.shape(x), jax.dtypes.float0)
    dtype = jnp.result_type(x) if not isinstance(x, float) else jnp.float32
    shape = np.shape(x)
    value = rng.standard_normal(shape).astype(np.float32)
    if jnp.issubdtype(dtype, jnp.complexfloating):
      value = value + 1j * rng.standard_normal(shape).astype(np.float32)
    return jnp.asarray(value, dtype)

  grads = jax.tree.map(natural, params)

  def odd(path, g):
    if g.dtype == jax.dtypes.float0:
      return g
    # A single non-finite element goes in the matrix w.
    in_w = bool(path) and getattr(path[0], 'key', None) == 'w'
    dtype = g.dtype
    big = min(1e38, float(jnp.finfo(dtype).max) / 2)
    if kind == 'zeros':
      return jnp.zeros_like(g)
    if kind in ('nan', 'inf', 'ninf'):
      value = {'nan': jnp.nan, 'inf': jnp.inf, 'ninf': -jnp.inf}[kind]
      if in_w and g.size:
        return g.ravel().at[0].set(value).reshape(g.shape)
      return g
    if kind == 'all_nan':
      return jnp.full_like(g, jnp.nan)
    if kind == 'huge':
      return jnp.full_like(g, big) * jnp.sign(g).astype(dtype)
    if kind == 'denormal':
      # Made by NumPy: XLA on CPU may flush subnormal results to zero.
      tiny = jnp.finfo(dtype).smallest_subnormal
      return jnp.asarray(np.full(g.shape, 3 * tiny, dtype))
    if kind == 'wrong_dtype':
      return g.astype(jnp.float16 if dtype == jnp.float32 else jnp.float32)
    if kind == 'float0':
      return np.zeros(g.shape, jax.dtypes.float0)
    if kind == 'int':
      return jnp.round(3 * g.real).astype(jnp.int32)
    return g

  grads = jax.tree_util.tree_map_with_path(odd, grads)
  if kind == 'extra_key' and isinstance(grads, dict):
    grads = dict(grads, zz=jnp.ones(2, jnp.float32))
  elif kind == 'missing_key' and isinstance(grads, dict) and grads:
    grads = {k: v for k, v in grads.items() if k != max(grads)}
  elif kind == 'transposed' and 'w' in grads:
    grads = dict(grads, w=grads['w'].T)
  elif kind == 'broadcast' and 'w' in grads:
    grads = dict(grads, w=grads['w'][:1])
  return grads


def batch_grads(grads: Any) -> Any:
  """Per-example gradients: a leading batch axis of two examples."""
  import jax
  import jax.numpy as jnp
  import numpy as np
  def batch(g):
    if getattr(g, 'dtype', None) == jax.dtypes.float0:
      return np.zeros((2,) + g.shape, jax.dtypes.float0)
    g = jnp.asarray(g)
    return jnp.stack([g, (g / 2).astype(g.dtype)])
  return jax.tree.map(batch, grads)


def loss(params: Any) -> Any:
  """Half the squared norm of the inexact leaves, in float32."""
  import jax
  import jax.numpy as jnp
  total = jnp.zeros([], jnp.float32)
  for x in jax.tree.leaves(params):
    if _is_inexact(x):
      x = jnp.abs(jnp.asarray(x)).astype(jnp.float32)
      total = total + 0.5 * jnp.sum(x * x)
  return total
