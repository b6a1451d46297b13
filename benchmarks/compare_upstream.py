# Copyright 2026 The optax fork authors. All Rights Reserved.
#
# Licensed under the Apache License, Version 2.0 (the "License");
# you may not use this file except in compliance with the License.
# You may obtain a copy of the License at
#
#     http://www.apache.org/licenses/LICENSE-2.0
#
# Unless required by applicable law or agreed to in writing, software
# distributed under the License is distributed on an "AS IS" BASIS,
# WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
# See the License for the specific language governing permissions and
# limitations under the License.
# ==============================================================================
"""Side-by-side speed and memory of this fork and upstream Optax.

Run

  python -m benchmarks.compare_upstream --upstream-python PATH [--markdown]
  python -m benchmarks.compare_upstream --upstream-tree DIR [--markdown]

from the repository's root.

Two worker processes are started: one runs this repository's ``optax`` under
the current interpreter, the other upstream's: the release under the
interpreter given by ``--upstream-python``, or the source tree ``DIR`` (an
upstream checkout) under the current interpreter with ``DIR`` on
``PYTHONPATH`` (for a machine where no virtualenv can be made). Without
either, a virtualenv with ``optax==<upstream>`` and the current jax/jaxlib
versions is created in a cache directory with pip; the version is
``[tool.optax-fork] upstream`` of pyproject.toml (tools/fork_config.py).
The workers run this file by its path and import neither ``tools`` nor
``benchmarks``. On CPU both workers are
pinned to the same core. Each row is measured in both workers in
alternating pairs, so that a noisy machine slows down both sides of a pair
alike; the table gives the median over the pairs of the ratio fork /
upstream, the range of those ratios and both median absolute values.

Rows:

* ``step/<optimizer>/<tree>``: the median time of a jitted step
  (``update`` then ``apply_updates``, params and state donated) on one big
  leaf and on a tree of many leaves of mixed shapes and dtypes;
  ``step/control/<tree>`` is the control rows' fixed kernel (below) timed
  as a step, so it must read 1.00;
* ``compile/<optimizer>/<phase>``: the time to build ``init`` and the
  donated step (``update`` + ``apply_updates``, state as an argument) for a
  fresh optimizer on a tree of many small float32 leaves, split with jax's
  ahead-of-time API into ``trace`` (``jit(f).trace``), ``lower`` (to
  StableHLO) and ``xla`` (``.compile()``), plus ``total``;
* ``memory/<optimizer>/<tree>``: the bytes XLA plans for the donated step
  (temporaries + arguments + outputs - donated aliases, from
  ``compiled.memory_analysis()``) per byte of params; nothing is run, so
  these rows are exact; ``memory/control/<tree>`` reads 1.00 when both
  workers' XLA plans alike;
* ``memory_undonated/<optimizer>/<tree>``: the same for the step compiled
  without donation, for the ``MultiSteps`` optimizers;
* ``memory_min/<optimizer>/<tree>`` (CPU backend only): the same, with the
  step compiled by XLA:CPU's memory-minimizing scheduler. The default one
  orders independent loops for concurrency, which can keep a temporary of
  every leaf alive at once (a clipped gradient, for instance): these rows
  show what each program needs at the least;
* ``bound/adam``: the time of an elementwise kernel moving the same bytes as
  Adam's step (4 reads, 3 writes) over the time of Adam's step on the big
  leaf: the fraction of the bandwidth bound that the step reaches;
* ``loop/<optimizer>/<tree>`` (device-side step time): ``K`` donated steps
  inside one jitted ``lax.fori_loop`` carrying the params and the state (the
  gradients fixed), timed for two trip counts ``K1 < K2`` given at run time
  to the same program; with ``t(K)`` the fastest call of ``K`` steps, the
  time per step is ``(t(K2) - t(K1)) / (K2 - K1)``, so that the host's
  dispatch of a call (hundreds of arguments on a model's tree) drops out.
  Trees: ``big``,
  ``tree`` and ``gpt2_small`` (the 148 float32 leaves of GPT-2 small,
  124.4M params; with ``--quick`` the same 148 leaves, narrower);
* ``control/<tree>``: a fixed elementwise kernel written here, not in
  Optax, timed as the loop rows in both workers. The two workers run the
  same program, so the row must read 1.00: how far it is from 1.00 is the
  measurement's own spread, printed with the table;
* ``bound/<optimizer>/<tree>``: for each loop row, the step's memory
  traffic (bytes read and written, from XLA's cost analysis of the
  compiled step) over the bandwidth a copy of the same tree reaches in the
  same worker (a loop of ``x + 1`` over every leaf, timed as above), over
  the loop row's time per step: the fraction of the bandwidth bound that
  each side's step reaches.
* the public API's rows, ``<prefix>/<function>[/<shape>]/<variant>``, one
  per case of ``benchmarks/api_cases.py`` at realistic sizes (the list
  tools/program_size.py compiles at small sizes): ``loss/``
  (``fwd`` and ``grad``), ``projection/``, ``schedule/`` (``jit``: the
  values over 10,000 steps, ``eager``: one call), ``assignment/`` (square,
  wide, tall; ``eager`` on a shape seen before, ``jit``, ``vmap``),
  ``linesearch/`` (a step of L-BFGS, of L-BFGS and of SGD with the
  backtracking line search storing the gradient, of SGD with the zoom line
  search), ``tree/`` (on a tree of 200 leaves), ``second_order/`` and
  ``perturbations/``: the median time of a call, as the step rows;
* ``compile/<the same id>``: the time to trace, lower and compile the
  jitted rows' function afresh (``jit(f).lower(*args).compile()``);
* ``import/optax``: a fresh interpreter's ``import optax``, timed inside it
  (jax's import included); ``import/optax_after_jax``: optax's own part,
  with jax imported first.

``--groups`` runs only some of them: ``losses``, ``projections``,
``schedules``, ``assignment``, ``linesearch``, ``tree``, ``second_order``,
``perturbations`` (each with its ``compile/`` rows) and ``import``, and the
groups of ``--rows`` below.

Optimizer names: a base optimizer (``adam``, ``sgd_momentum``, ...: an
optimizer of the fork's registry, optax/_src/testing/registry.py, with the
hyperparameters of :data:`_BASES`) or a wrapper around a name:
``clip_<name>`` (``chain(clip_by_global_norm(1.0), <name>)``),
``multisteps_<name>4`` (``MultiSteps(<name>, 4)``) and
``apply_if_finite_<name>`` (``apply_if_finite(<name>, 3)``).

``--rows`` takes prefixes of row names and these groups of rows:

* ``step_time``: the ``step/`` rows of sgd with momentum, adam, adamw,
  adafactor, lion and muon, each alone and inside ``multisteps_<name>4``,
  ``clip_<name>`` and ``apply_if_finite_<name>``, with ``step/control``;
* ``multisteps_memory``: the ``memory/`` and ``memory_undonated/`` rows of
  ``MultiSteps(<name>, 4)`` around sgd, sgd with momentum, adam,
  ``chain(clip_by_global_norm, adam)`` and adamw, with ``memory/control``
  and ``memory_undonated/control``: the memory XLA plans for a donated
  step, against the same step not donated, in param bytes.

Both workers run with glibc's malloc told to keep freed memory (one arena,
a fixed mmap threshold of 32 MiB, no heap trimming; set
``MALLOC_ARENA_MAX``, ``MALLOC_MMAP_THRESHOLD_`` or
``MALLOC_TRIM_THRESHOLD_`` to override): otherwise whether a step's
temporaries fault in fresh pages at every call depends on each process's
history, and a step's time can double from one process to the next.

Speed is never asserted in tests; this script only reports.
"""

import argparse
import gc
import importlib.util
import json
import os
import pathlib
import platform
import statistics
import subprocess
import sys
import tempfile
import time
from typing import Any, Callable, Optional

_REPO = pathlib.Path(__file__).resolve().parent.parent
_REPLY = '@@compare_upstream@@ '

_STEP_OPTIMIZERS = (
    'adam', 'adamw', 'lion', 'adafactor', 'sgd_momentum', 'radam',
    'inject_adamw', 'clip_adamw', 'muon', 'multisteps_adam4')
_STEP_TREES = ('big', 'tree')
# The step_time group: these optimizers alone and in each wrapper.
_STEP_TIME_OPTIMIZERS = tuple(
    wrapper.format(name)
    for name in ('sgd_momentum', 'adam', 'adamw', 'adafactor', 'lion', 'muon')
    for wrapper in ('{}', 'multisteps_{}4', 'clip_{}', 'apply_if_finite_{}'))
# The multisteps_memory group: MultiSteps(<optimizer>, 4), donated or not.
_MULTISTEPS_MEMORY_OPTIMIZERS = (
    'multisteps_sgd4', 'multisteps_sgd_momentum4', 'multisteps_adam4',
    'multisteps_clip_adam4', 'multisteps_adamw4')
_COMPILE_OPTIMIZERS = ('adamw', 'clip_adamw', 'clip_multisteps_adamw')
_COMPILE_PHASES = ('trace', 'lower', 'xla', 'total')


def _union(*names: tuple[str, ...]) -> tuple[str, ...]:
  return tuple(dict.fromkeys(n for group in names for n in group))


# 'control': the same program in both workers (_control_step).
_STEP_ROW_OPTIMIZERS = _union(('control',), _STEP_OPTIMIZERS,
                              _STEP_TIME_OPTIMIZERS)
_MEMORY_OPTIMIZERS = _union(('control',), _STEP_OPTIMIZERS,
                            _MULTISTEPS_MEMORY_OPTIMIZERS)
_UNDONATED_OPTIMIZERS = ('control',) + _MULTISTEPS_MEMORY_OPTIMIZERS
# Named groups of rows for --rows (the docstring says what each is).
_GROUPS = {
    'step_time': [f'step/{o}/{t}' for t in _STEP_TREES
                  for o in ('control',) + _STEP_TIME_OPTIMIZERS],
    'multisteps_memory': [f'{kind}/{o}/{t}'
                          for kind in ('memory', 'memory_undonated')
                          for t in _STEP_TREES
                          for o in _UNDONATED_OPTIMIZERS],
}
_LOOP_TREES = ('big', 'tree', 'gpt2_small')
# The loop rows of the big and mixed trees are the step rows' optimizers and
# schedule-free AdamW; GPT-2 small's are the optimizers one trains it with.
_LOOP_OPTIMIZERS = {
    'big': _STEP_OPTIMIZERS + ('schedule_free_adamw',),
    'tree': _STEP_OPTIMIZERS + ('schedule_free_adamw',),
    'gpt2_small': ('adamw', 'clip_adamw', 'lion', 'adafactor', 'muon',
                   'multisteps_adamw4', 'inject_adamw',
                   'schedule_free_adamw'),
}
_CONTROL_TREES = ('big', 'gpt2_small')
# How far the control row may read from 1.00 for the loop rows to be read
# to a few percent.
_CONTROL_SPREAD = 0.03
# As optax._src.testing.probes.MEMORY_OPTIMIZED_CPU_SCHEDULER (the benchmark
# imports only the public API, so that it runs under upstream too).
_MEMORY_OPTIMIZED_CPU_SCHEDULER = {
    'xla_cpu_scheduler_type': 'CPU_SCHEDULER_TYPE_MEMORY_OPTIMIZED'}


# The base optimizers: row name -> (registry entry, its hyperparameters).
_BASES = {
    'adam': ('adam', {'learning_rate': 1e-3}),
    'adamw': ('adamw', {'learning_rate': 1e-3}),
    'lion': ('lion', {'learning_rate': 1e-4}),
    'adafactor': ('adafactor', {'learning_rate': 1e-3}),
    'sgd': ('sgd', {'learning_rate': 1e-2}),
    'sgd_momentum': ('sgd', {'learning_rate': 1e-2, 'momentum': 0.9}),
    'radam': ('radam', {'learning_rate': 1e-3}),
    'muon': ('contrib.muon', {'learning_rate': 1e-3}),
    'schedule_free_adamw': ('contrib.schedule_free_adamw',
                            {'learning_rate': 1e-3}),
}


# ----------------------------------------------------------------------------
# Worker: runs under either interpreter and imports that interpreter's optax.
# ----------------------------------------------------------------------------


def _registry() -> Any:
  """The fork's optimizer registry, under either interpreter.

  Loaded from its file: it imports only the standard library, and upstream's
  optax has no ``optax._src.testing``.
  """
  name = '_optax_fork_registry'
  if name not in sys.modules:
    spec = importlib.util.spec_from_file_location(
        name, _REPO / 'optax' / '_src' / 'testing' / 'registry.py')
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
  return sys.modules[name]


def _api_cases() -> Any:
  """benchmarks/api_cases.py, loaded from its file under either interpreter.

  The list of the public API's cases that tools/program_size.py compiles
  too; it imports only the standard library until a case is built.
  """
  name = '_optax_fork_api_cases'
  if name not in sys.modules:
    spec = importlib.util.spec_from_file_location(
        name, _REPO / 'benchmarks' / 'api_cases.py')
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
  return sys.modules[name]


# A fresh interpreter's import, timed inside it: all of `import optax`
# (jax's import included, as a user waits for it), or optax's own part with
# jax imported first.
_IMPORT_CODE = {
    'optax': 'import time\nstart = time.{clock}()\nimport optax\n'
             'print(time.{clock}() - start)',
    'optax_after_jax': 'import time\nimport jax, jax.numpy\n'
                       'start = time.{clock}()\nimport optax\n'
                       'print(time.{clock}() - start)',
}


def _base(name: str) -> Any:
  """The base optimizer ``name`` of :data:`_BASES`, by its public factory."""
  entry, kwargs = _BASES[name]
  return _registry().BY_NAME[entry].public_factory()(**kwargs)


def _make_optimizer(name: str) -> Any:
  """A fresh optimizer by row name (public optax API only).

  Args:
    name: a base optimizer, or ``clip_<name>``, ``multisteps_<name>4`` or
      ``apply_if_finite_<name>`` around one (``clip_multisteps_adamw``,
      the compile rows' name from before the ``4``, is a base).

  Returns:
    The optimizer, as a ``GradientTransformation``.
  """
  import optax  # pylint: disable=import-outside-toplevel

  def clip(tx):
    return optax.chain(optax.clip_by_global_norm(1.0), tx)

  def multisteps(tx):
    return optax.MultiSteps(tx, 4).gradient_transformation()

  makers: dict[str, Callable[[], Any]] = {
      'inject_adamw': lambda: optax.inject_hyperparams(
          _registry().BY_NAME['adamw'].public_factory())(learning_rate=1e-3),
      'clip_multisteps_adamw': lambda: clip(multisteps(_base('adamw'))),
  }
  if name in _BASES:
    return _base(name)
  if name in makers:
    return makers[name]()
  if name.startswith('clip_'):
    return clip(_make_optimizer(name.removeprefix('clip_')))
  if name.startswith('multisteps_') and name.endswith('4'):
    return multisteps(_make_optimizer(name.removeprefix('multisteps_')[:-1]))
  if name.startswith('apply_if_finite_'):
    return optax.apply_if_finite(
        _make_optimizer(name.removeprefix('apply_if_finite_')), 3)
  raise ValueError(
      f'compare_upstream: unknown optimizer {name!r}; expected one of '
      f'{sorted(_BASES) + sorted(makers)} or clip_<name>, multisteps_<name>4, '
      'apply_if_finite_<name> around one')


def _make_tree(kind: str, quick: bool, leaves: int = 0) -> Any:
  """Params by tree name, built deterministically from shapes alone."""
  import jax.numpy as jnp  # pylint: disable=import-outside-toplevel
  import numpy as np  # pylint: disable=import-outside-toplevel

  rng = np.random.default_rng(0)

  def leaf(shape, dtype):
    return jnp.asarray(rng.standard_normal(shape, np.float32) * 0.02, dtype)

  if kind == 'big':  # One 2**22 (quick: 2**18) leaf, a matrix for muon.
    return {'w': leaf((512, 512) if quick else (1024, 4096), jnp.float32)}
  if kind == 'tree':  # A model-like mix: matrices, vectors, bfloat16.
    count = 60 if quick else 300
    shapes = ((128, 128), (128,), (64, 256), (256,), (32, 32, 4))
    return {f'layer{i:04d}': leaf(shapes[i % len(shapes)],
                                  jnp.bfloat16 if i % 4 == 3 else jnp.float32)
            for i in range(count)}
  if kind == 'gpt2_small':  # GPT-2 small's 148 float32 leaves (124.4M).
    vocab, context, width, layers = (
        (1024, 128, 64, 12) if quick else (50257, 1024, 768, 12))
    tree = {'wte': leaf((vocab, width), jnp.float32),
            'wpe': leaf((context, width), jnp.float32),
            'ln_f': {'g': leaf((width,), jnp.float32),
                     'b': leaf((width,), jnp.float32)}}
    for i in range(layers):
      tree[f'h{i:02d}'] = {
          'ln_1': {'g': leaf((width,), jnp.float32),
                   'b': leaf((width,), jnp.float32)},
          'attn': {'c_attn_w': leaf((width, 3 * width), jnp.float32),
                   'c_attn_b': leaf((3 * width,), jnp.float32),
                   'c_proj_w': leaf((width, width), jnp.float32),
                   'c_proj_b': leaf((width,), jnp.float32)},
          'ln_2': {'g': leaf((width,), jnp.float32),
                   'b': leaf((width,), jnp.float32)},
          'mlp': {'c_fc_w': leaf((width, 4 * width), jnp.float32),
                  'c_fc_b': leaf((4 * width,), jnp.float32),
                  'c_proj_w': leaf((4 * width, width), jnp.float32),
                  'c_proj_b': leaf((width,), jnp.float32)}}
    return tree
  if kind == 'deep':  # Many small float32 leaves: what compile time
    # scales with. (bfloat16 leaves cost the fork more HLO: it computes them
    # in float32 and rounds once per transformation, where upstream 0.2.8
    # computes in bfloat16.)
    shapes = ((16, 16), (16,), (8, 32), (32,))
    return {f'p{i:05d}': leaf(shapes[i % len(shapes)], jnp.float32)
            for i in range(leaves)}
  raise ValueError(f'compare_upstream: unknown tree {kind!r}')


def _control_step(params: Any, state: Any, grads: Any) -> tuple[Any, Any]:
  """The control rows' step: heavy-ball momentum written here, not in Optax.

  Both workers run this same program, so a control row must read 1.00.

  Args:
    params: the params.
    state: the momentum, shaped as the params.
    grads: the gradients.

  Returns:
    The new params and momentum.
  """
  import jax  # pylint: disable=import-outside-toplevel

  state = jax.tree.map(lambda m, g: 0.9 * m + g, state, grads)
  return jax.tree.map(lambda p, m: p - 1e-3 * m, params, state), state


def _step_fn(tx: Any) -> Callable[..., Any]:
  import optax  # pylint: disable=import-outside-toplevel

  def step(params, state, grads):
    updates, state = tx.update(grads, state, params)
    return optax.apply_updates(params, updates), state

  return step


class _Worker:
  """Holds the compiled steps of one side and answers timing requests."""

  def __init__(self, quick: bool, compile_leaves: int, clock: str):
    import jax  # pylint: disable=import-outside-toplevel
    import numpy as np  # pylint: disable=import-outside-toplevel

    self.jax = jax
    self.np = np
    # Wall time by default; the process's CPU time on a shared CPU machine,
    # where other processes' load inflates wall times.
    self.now = time.process_time if clock == 'cpu' else time.perf_counter
    self.quick = quick
    self.compile_leaves = compile_leaves
    self.steps: dict[str, Any] = {}
    self.loops: dict[str, Any] = {}

  def _grads(self, params: Any) -> Any:
    jnp = self.jax.numpy
    return self.jax.tree.map(lambda p: (1e-3 * jnp.ones_like(p)), params)

  def _setup_step(self, row: str) -> list[Any]:
    """Compiles (once) the donated step of ``step/<optimizer>/<tree>``.

    Args:
      row: the step row; its optimizer ``control`` is ``_control_step``.

    Returns:
      ``[step, params, state, grads, fn]``: the jitted step (params and
      state donated), its current params and state, the fixed gradients,
      and the step function before ``jit``.
    """
    if row not in self.steps:
      jax = self.jax
      _, name, tree = row.split('/')
      params = _make_tree(tree, self.quick)
      grads = self._grads(params)
      if name == 'control':
        fn = _control_step
        state = jax.tree.map(jax.numpy.zeros_like, params)
      else:
        tx = _make_optimizer(name)
        fn = _step_fn(tx)
        state = tx.init(params)
      step = jax.jit(fn, donate_argnums=(0, 1))
      params, state = jax.block_until_ready(step(params, state, grads))
      self.steps[row] = [step, params, state, grads, fn]
    return self.steps[row]

  def time_step(self, row: str, repeats: int) -> float:
    """Median seconds of ``repeats`` calls of the step of ``row``."""
    entry = self._setup_step(row)
    step, params, state, grads, _ = entry
    times = []
    for _ in range(repeats):
      start = self.now()
      params, state = self.jax.block_until_ready(step(params, state, grads))
      times.append(self.now() - start)
    entry[1], entry[2] = params, state
    return statistics.median(times)

  def time_bound(self, repeats: int) -> float:
    """Median seconds of an elementwise step moving Adam's bytes."""
    jax = self.jax
    if 'bound' not in self.steps:
      params = _make_tree('big', self.quick)['w']

      def kernel(p, m, v, g):  # 4 arrays read, 3 written, as in Adam.
        return p - 1e-3 * g, m + g, v + g * g

      fn = jax.jit(kernel, donate_argnums=(0, 1, 2))
      args = [params, params + 1, params + 2, params * 0.5]
      args[:3] = jax.block_until_ready(fn(*args))
      self.steps['bound'] = [fn, args]
    fn, args = self.steps['bound']
    times = []
    for _ in range(repeats):
      start = self.now()
      args[:3] = jax.block_until_ready(fn(*args))
      times.append(self.now() - start)
    return statistics.median(times)

  def _setup_loop(self, key: str) -> list[Any]:
    """Compiles (once) the K-step loop of a loop, control or copy row.

    Args:
      key: ``loop/<optimizer>/<tree>``, ``control/<tree>`` or
        ``copy/<tree>``.

    Returns:
      ``[loop, carry, operand, one_step]``: the jitted loop (carry and trip
      count as arguments, the carry donated), its current carry, the fixed
      operand each step reads, and the jitted single step (for its cost
      analysis).
    """
    if key not in self.loops:
      jax = self.jax
      kind, *rest = key.split('/')
      tree = rest[-1]
      params = _make_tree(tree, self.quick)
      if kind == 'loop':
        tx = _make_optimizer(rest[0])
        step = _step_fn(tx)
        carry = (params, tx.init(params))
        operand = self._grads(params)
        body = lambda c, g: step(*c, g)
      elif kind == 'control':  # The same program in both workers.
        carry = (params, jax.tree.map(jax.numpy.zeros_like, params))
        operand = self._grads(params)
        body = lambda c, g: _control_step(*c, g)
      else:  # copy: each leaf read and written once a step.
        carry, operand = params, None
        body = lambda c, _: jax.tree.map(lambda x: x + 1, c)

      def loop(carry, operand, count):
        return jax.lax.fori_loop(0, count, lambda _, c: body(c, operand),
                                 carry)

      # The trip count is an argument: one program for every K, whose loop
      # XLA cannot unroll.
      fn = jax.jit(loop, donate_argnums=(0,))
      carry = jax.block_until_ready(fn(carry, operand, self.np.int32(1)))
      one_step = jax.jit(body, donate_argnums=(0,))
      self.loops[key] = [fn, carry, operand, one_step]
    return self.loops[key]

  def time_loop(self, key: str, repeats: int, counts: list[int]) -> float:
    """Device-side seconds per step of a loop, control or copy row.

    Args:
      key: as for ``_setup_loop``.
      repeats: calls timed for each trip count.
      counts: the two trip counts ``K1 < K2``.

    Returns:
      ``(t(K2) - t(K1)) / (K2 - K1)``, where ``t(K)`` is the fastest of the
      calls with ``K`` steps: whatever else the machine does only adds time
      to a call, and a difference of two noisy medians can even come out
      negative for short steps.
    """
    entry = self._setup_loop(key)
    fn, carry, operand, _ = entry
    fastest = []
    for count in counts:
      count = self.np.int32(count)
      times = []
      for _ in range(repeats):
        start = self.now()
        carry = self.jax.block_until_ready(fn(carry, operand, count))
        times.append(self.now() - start)
      fastest.append(min(times))
    entry[1] = carry
    return (fastest[1] - fastest[0]) / (counts[1] - counts[0])

  def step_bytes(self, key: str) -> float:
    """Bytes one step of ``key`` reads and writes (XLA's cost analysis)."""
    _, carry, operand, one_step = self._setup_loop(key)
    analysis = one_step.lower(carry, operand).compile().cost_analysis()
    if isinstance(analysis, (list, tuple)):  # Older jax: one per program.
      analysis = analysis[0]
    return float(analysis['bytes accessed'])

  def time_compile(self, name: str, leaves: int) -> dict[str, float]:
    """Seconds to trace, lower and compile ``init`` and the step.

    As in training, ``init`` and the donated step (``update`` then
    ``apply_updates``) are two programs, the step taking the state as an
    argument; each phase is the sum over the two. The optimizer and the
    functions are fresh, so nothing comes from jax's caches.

    Args:
      name: the optimizer.
      leaves: the number of leaves of the params.

    Returns:
      Seconds per phase: trace, lower, xla, total.
    """
    jax = self.jax
    params = jax.eval_shape(lambda: _make_tree('deep', self.quick, leaves))
    tx = _make_optimizer(name)
    phases = {'trace': 0.0, 'lower': 0.0, 'xla': 0.0}

    def build(fn, *args, donate_argnums=()):
      start = self.now()
      traced = jax.jit(fn, donate_argnums=donate_argnums).trace(*args)
      traced_at = self.now()
      lowered = traced.lower()
      lowered_at = self.now()
      lowered.compile()
      compiled_at = self.now()
      phases['trace'] += traced_at - start
      phases['lower'] += lowered_at - traced_at
      phases['xla'] += compiled_at - lowered_at
      return traced.out_info

    state = build(lambda p: tx.init(p), params)  # pylint: disable=unnecessary-lambda
    build(_step_fn(tx), params, state, params, donate_argnums=(0, 1))
    phases['total'] = sum(phases.values())
    return phases

  def memory(self, row: str, minimize: bool = False,
             donate: bool = True) -> float:
    """Planned bytes of the step of ``row`` per byte of params.

    Args:
      row: a step row.
      minimize: compile the step again with XLA:CPU's memory-minimizing
        scheduler rather than its default one (which orders independent
        loops for concurrency).
      donate: whether the params and the state are donated, as in the step
        rows.

    Returns:
      Temporaries, arguments and outputs, less the donated aliases, over
      the bytes of the params.
    """
    step, params, state, grads, fn = self._setup_step(row)
    if not donate:
      step = self.jax.jit(fn)
    # Donated and without options, the executable the step rows run: jax's
    # caches make this no compile.
    options = _MEMORY_OPTIMIZED_CPU_SCHEDULER if minimize else None
    stats = step.lower(params, state, grads).compile(
        compiler_options=options).memory_analysis()
    used = (stats.temp_size_in_bytes + stats.argument_size_in_bytes
            + stats.output_size_in_bytes - stats.alias_size_in_bytes)
    param_bytes = sum(x.size * x.dtype.itemsize
                      for x in self.jax.tree.leaves(params))
    return used / param_bytes

  def _setup_api(self, row: str) -> list[Any]:
    """Builds (and compiles, or calls once) the API row ``row``.

    Args:
      row: a case id of benchmarks/api_cases.py.

    Returns:
      ``[call, args, fn]``: the jitted function (or, for an eager row, the
      function itself, called once so that its shape has been seen), its
      arguments, and the function before ``jit``.
    """
    if row not in self.steps:
      case = _api_cases().by_id()[row]
      fn, args = case.make(self.quick)
      call = self.jax.jit(fn) if case.mode == 'jit' else fn
      self.jax.block_until_ready(call(*args))
      self.steps[row] = [call, args, fn]
    return self.steps[row]

  def api_size(self, row: str) -> list[float]:
    """Instructions and flops of the API row's optimized program."""
    _, args, fn = self._setup_api(row)
    size = _api_cases().program_size(fn, args)
    return [size['instructions'], size['flops']]

  def time_api(self, row: str, repeats: int) -> float:
    """Median seconds of ``repeats`` calls of the API row ``row``."""
    call, args, _ = self._setup_api(row)
    times = []
    for _ in range(repeats):
      start = self.now()
      self.jax.block_until_ready(call(*args))
      times.append(self.now() - start)
    return statistics.median(times)

  def time_api_compile(self, row: str) -> float:
    """Seconds to trace, lower and compile the API row ``row`` afresh.

    The case is built again and wrapped in a new function, so that none of
    jax's caches (keyed on the function) holds its program.

    Args:
      row: a case id of benchmarks/api_cases.py.

    Returns:
      The seconds of ``jit(f).lower(*args).compile()``.
    """
    fn, args = _api_cases().by_id()[row].make(self.quick)
    fresh = lambda *a: fn(*a)  # pylint: disable=unnecessary-lambda
    start = self.now()
    self.jax.jit(fresh).lower(*args).compile()
    return self.now() - start

  def time_import(self, name: str) -> float:
    """Seconds of ``import optax`` in a fresh interpreter like this one."""
    clock = 'process_time' if self.now is time.process_time else (
        'perf_counter')
    flags = ['-I'] if sys.flags.isolated else []
    done = subprocess.run(
        [sys.executable, *flags, '-c',
         _IMPORT_CODE[name].format(clock=clock)],
        capture_output=True, text=True, check=True)
    return float(done.stdout.strip().splitlines()[-1])

  def handle(self, request: dict[str, Any]) -> Any:
    """Answers one request from the parent process."""
    what = request['what']
    if what == 'api':
      return self.time_api(request['row'], request['repeats'])
    if what == 'api_size':
      return self.api_size(request['row'])
    if what == 'api_compile':
      return self.time_api_compile(request['row'])
    if what == 'import':
      return self.time_import(request['name'])
    if what == 'step':
      return self.time_step(request['row'], request['repeats'])
    if what == 'bound':
      return self.time_bound(request['repeats'])
    if what == 'loop':
      return self.time_loop(request['key'], request['repeats'],
                            request['counts'])
    if what == 'step_bytes':
      return self.step_bytes(request['key'])
    if what == 'release':  # A finished loop row: its buffers and programs.
      self.loops.pop(request['key'], None)
      gc.collect()
      return None
    if what == 'compile':
      return self.time_compile(request['name'], request['leaves'])
    if what == 'memory':
      return self.memory(request['row'], request.get('minimize', False),
                         request.get('donate', True))
    if what == 'warmup':  # jnp's own jitted helpers, traced once.
      return self.time_compile('adamw', 8)
    raise ValueError(f'compare_upstream worker: unknown request {what!r}')


def _worker_main(args: argparse.Namespace) -> None:
  """Loop of a worker process: one JSON request per line on stdin."""
  if args.pin_cpu is not None:  # Before jax starts its thread pools.
    os.sched_setaffinity(0, {args.pin_cpu})
  import jax  # pylint: disable=import-outside-toplevel
  import optax  # pylint: disable=import-outside-toplevel

  device = jax.devices()[0]
  hello = {'optax_file': optax.__file__, 'optax_version': optax.__version__,
           'jax_version': jax.__version__, 'backend': jax.default_backend(),
           'device_kind': device.device_kind,
           'device_count': jax.device_count()}
  print(_REPLY + json.dumps(hello), flush=True)
  worker = _Worker(args.quick, args.compile_leaves, args.clock)
  for line in sys.stdin:
    request = json.loads(line)
    if request['what'] == 'exit':
      break
    try:
      answer = worker.handle(request)
    except Exception as e:  # pylint: disable=broad-exception-caught
      # A row one side cannot run (upstream 0.2.8's inject_hyperparams
      # changes a bfloat16 moment to float32, which no fori_loop carries):
      # the parent reports it and goes on with the other rows.
      lines = [line.strip() for line in str(e).splitlines() if line.strip()]
      answer = {'error': ' '.join([type(e).__name__ + ':', *lines[:2]])[:300]}
    print(_REPLY + json.dumps(answer), flush=True)


# ----------------------------------------------------------------------------
# Parent: starts both workers, alternates the pairs, prints the table.
# ----------------------------------------------------------------------------


class _RowFailed(Exception):
  """A worker could not run a request of a row (its message says why)."""


class _Side:
  """A worker subprocess, talked to over pipes."""

  def __init__(self, label: str, python: str, worker_args: list[str],
               env: dict[str, str], cwd: str):
    self.label = label
    self.process = subprocess.Popen(  # pylint: disable=consider-using-with
        [python, *worker_args], stdin=subprocess.PIPE,
        stdout=subprocess.PIPE, env=env, cwd=cwd, text=True)
    self.info = self._read()

  def _read(self) -> Any:
    assert self.process.stdout is not None
    for line in self.process.stdout:
      if line.startswith(_REPLY):
        return json.loads(line[len(_REPLY):])
    raise RuntimeError(
        f'compare_upstream: the {self.label} worker exited with code '
        f'{self.process.wait()} (see its stderr above)')

  def ask(self, **request: Any) -> Any:
    """Sends one request and waits for the worker's answer.

    Args:
      **request: the request, as the worker's ``handle`` takes it.

    Returns:
      The worker's answer.

    Raises:
      _RowFailed: when the worker answers that the request failed.
    """
    assert self.process.stdin is not None
    self.process.stdin.write(json.dumps(request) + '\n')
    self.process.stdin.flush()
    answer = self._read()
    if isinstance(answer, dict) and 'error' in answer:
      raise _RowFailed(f'{self.label}: {answer["error"]}')
    return answer

  def close(self) -> None:
    """Asks the worker to exit and waits for it."""
    if self.process.poll() is None:
      assert self.process.stdin is not None
      self.process.stdin.write(json.dumps({'what': 'exit'}) + '\n')
      self.process.stdin.close()
      self.process.wait()


def _upstream_version() -> str:
  """``[tool.optax-fork] upstream`` of pyproject.toml (the parent only).

  Imported here, not at the top: the upstream worker runs this file under
  upstream's interpreter in isolated mode, where ``tools`` is not importable.
  """
  # pylint: disable-next=import-outside-toplevel
  from tools import fork_config
  return fork_config.upstream_version(_REPO / 'pyproject.toml')


def _make_upstream_venv(version: str) -> str:
  """A cached virtualenv with upstream optax and this interpreter's jax."""
  import jax  # pylint: disable=import-outside-toplevel
  import jaxlib  # pylint: disable=import-outside-toplevel

  cache = pathlib.Path(os.environ.get(
      'XDG_CACHE_HOME', pathlib.Path.home() / '.cache'))
  if not os.access(cache.parent, os.W_OK):
    cache = pathlib.Path(tempfile.gettempdir())
  venv = (cache / 'optax-fork-benchmarks'
          / f'optax-{version}-jax-{jax.__version__}')
  python = venv / 'bin' / 'python'
  if not python.exists():
    print(f'# creating {venv} (optax=={version}, jax=={jax.__version__})',
          file=sys.stderr)
    subprocess.run([sys.executable, '-m', 'venv', str(venv)], check=True)
    subprocess.run(
        [str(python), '-m', 'pip', 'install', '-q', f'optax=={version}',
         f'jax=={jax.__version__}', f'jaxlib=={jaxlib.__version__}'],
        check=True)
  return str(python)


def _cpu_model() -> str:
  try:
    with open('/proc/cpuinfo', encoding='utf-8') as f:
      for line in f:
        if line.startswith('model name'):
          return line.split(':', 1)[1].strip()
  except OSError:
    pass
  return platform.processor() or platform.machine()


def _start_sides(args: argparse.Namespace) -> tuple[_Side, _Side]:
  """Starts the fork and upstream workers (pinned on a CPU backend)."""
  base_env = {k: v for k, v in os.environ.items() if k != 'PYTHONPATH'}
  # Two workers share one accelerator: neither may take most of its memory.
  base_env['XLA_PYTHON_CLIENT_PREALLOCATE'] = 'false'
  # XLA:CPU allocates a step's temporaries as one block per call, from the
  # thread that runs it. glibc's malloc serves a block of 16 MiB from fresh
  # pages or from a heap depending on the process's history (its adaptive
  # threshold, per-thread arenas that shrink), and fresh pages fault in
  # again at every call: chain(clip, adamw) or lion on the big leaf took
  # 11-14 ms (4,097 page faults a step) in some processes and 5 ms (none)
  # in others, on both sides. One arena, a fixed threshold (the largest
  # glibc takes) and no trimming give every worker the second. Blocks over
  # 32 MiB (adafactor's) still come from fresh pages, in every process.
  base_env.setdefault('MALLOC_ARENA_MAX', '1')
  base_env.setdefault('MALLOC_MMAP_THRESHOLD_', str(32 << 20))
  base_env.setdefault('MALLOC_TRIM_THRESHOLD_', str(4 << 30))
  probe = subprocess.run(
      [sys.executable, '-c', 'import jax; print(jax.default_backend())'],
      env=base_env, capture_output=True, text=True, check=True)
  backend = probe.stdout.strip().splitlines()[-1]
  worker_args = [os.path.abspath(__file__), '--worker',
                 '--compile-leaves', str(args.compile_leaves),
                 '--clock', args.clock]
  if args.quick:
    worker_args.append('--quick')
  if backend == 'cpu':
    cpu = args.cpu if args.cpu is not None else max(
        os.sched_getaffinity(0))
    worker_args += ['--pin-cpu', str(cpu)]
  fork_env = dict(base_env, PYTHONPATH=str(_REPO))
  fork = _Side('fork', sys.executable, worker_args, fork_env, str(_REPO))
  if args.upstream_tree:
    # The tree first on the path, ahead of whatever optax this interpreter
    # has installed (the fork, often); the worker runs from a neutral folder.
    tree = pathlib.Path(args.upstream_tree).resolve()
    upstream = _Side('upstream', sys.executable, worker_args,
                     dict(base_env, PYTHONPATH=str(tree)),
                     tempfile.gettempdir())
  else:
    tree = None
    upstream_python = args.upstream_python or _make_upstream_venv(
        _upstream_version())
    # -I: neither PYTHONPATH nor the script's directory nor user
    # site-packages, so the upstream interpreter imports its own optax.
    upstream = _Side('upstream', upstream_python, ['-I', *worker_args],
                     base_env, tempfile.gettempdir())
  fork_file = pathlib.Path(fork.info['optax_file']).resolve()
  upstream_file = pathlib.Path(upstream.info['optax_file']).resolve()
  if (_REPO not in fork_file.parents or _REPO in upstream_file.parents
      or (tree is not None and tree not in upstream_file.parents)):
    raise RuntimeError(
        'compare_upstream: wrong optax imported: fork worker got '
        f'{fork_file}, upstream worker got {upstream_file}')
  return fork, upstream


def _api_groups() -> dict[str, list[str]]:
  """--groups' API groups: name -> the prefixes of their rows."""
  groups = {g: [f'{p}/', f'compile/{p}/']
            for g, p in _api_cases().GROUPS.items()
            if g in _api_cases().TIMED_GROUPS}
  groups['import'] = ['import/']
  return groups


def _selected(rows: list[str], patterns: Optional[str]) -> list[str]:
  """The rows named by ``patterns``: prefixes of a row's name, or of a phase.

  ``step`` selects every step row (and not ``compile/clip_multisteps_adamw``,
  which merely contains the word); ``step/adam`` selects ``step/adam/*`` and
  ``step/adamw/*``; ``compile/adamw/xla`` selects the row ``compile/adamw``;
  a group's name (``step_time``) selects exactly the rows of ``_GROUPS``.

  Args:
    rows: the candidate rows.
    patterns: comma-separated prefixes and group names, or None for every
      row.

  Returns:
    The selected rows, in their order.
  """
  if not patterns:
    return rows
  keys = []
  for key in patterns.split(','):
    # A group's rows, each ended by '/' so that it selects that row alone.
    keys += [f'{r}/' for r in _GROUPS[key]] if key in _GROUPS else [key]
  return [r for r in rows
          if any(f'{r}/'.startswith(k) or k.startswith(f'{r}/')
                 for k in keys)]


def _failed_row(name: str, error: _RowFailed) -> dict[str, Any]:
  return {'row': name, 'failed': str(error)}


def _ratio_row(name: str, fork: list[float], upstream: list[float],
               unit: str) -> dict[str, Any]:
  ratios = [f / u for f, u in zip(fork, upstream)]
  return {'row': name, 'ratio': statistics.median(ratios),
          'low': min(ratios), 'high': max(ratios),
          'fork': statistics.median(fork),
          'upstream': statistics.median(upstream), 'unit': unit,
          'pairs': len(ratios)}


def _step_row(args: argparse.Namespace, fork: _Side, upstream: _Side,
              row: str, pairs: int, what: str = 'step') -> dict[str, Any]:
  """One step row (or API row: ``what='api'``), in alternating pairs."""
  # Compile both, and choose repeats so that one call takes ~budget.
  one = max(fork.ask(what=what, row=row, repeats=1),
            upstream.ask(what=what, row=row, repeats=1))
  repeats = int(min(args.max_repeats, max(3, args.budget / max(one, 1e-6))))
  times = {'fork': [], 'upstream': []}
  for i in range(pairs):
    order = (fork, upstream) if i % 2 == 0 else (upstream, fork)
    for side in order:
      times[side.label].append(
          side.ask(what=what, row=row, repeats=repeats))
  return _ratio_row(row, times['fork'], times['upstream'], 's')


def _once_row(fork: _Side, upstream: _Side, label: str, pairs: int,
              **request: Any) -> dict[str, Any]:
  """A row of one measurement per call (a compile, an import), in pairs."""
  times = {'fork': [], 'upstream': []}
  for i in range(pairs):
    order = (fork, upstream) if i % 2 == 0 else (upstream, fork)
    for side in order:
      times[side.label].append(side.ask(**request))
  return _ratio_row(label, times['fork'], times['upstream'], 's')


def _measure_api(args: argparse.Namespace, fork: _Side, upstream: _Side,
                 pairs: int, log: Callable[[str], None],
                 results: list[dict[str, Any]]) -> None:
  """The public API's rows: each case's run time, then its compile time.

  Args:
    args: the command line.
    fork: the fork's worker.
    upstream: upstream's worker.
    pairs: fork/upstream pairs per run-time row.
    log: prints a finished row.
    results: the finished rows are appended here.
  """
  cases = [c for c in _api_cases().cases(with_optimizers=False)
           if c.group in _api_cases().TIMED_GROUPS and c.timed]
  for case in cases:
    if not _selected([case.id], args.rows):
      continue
    try:
      results.append(_step_row(args, fork, upstream, case.id, pairs,
                               what='api'))
      # The two optimized programs, to tell a different program from noise.
      if case.sized:
        results[-1]['program'] = [side.ask(what='api_size', row=case.id)
                                  for side in (fork, upstream)]
    except _RowFailed as e:
      results.append(_failed_row(case.id, e))
    log(_format_text([results[-1]]))
  compile_pairs = args.compile_pairs or 3
  for case in cases:
    row = f'compile/{case.id}'
    if case.mode != 'jit' or not _selected([row], args.rows):
      continue
    try:
      results.append(_once_row(fork, upstream, row, compile_pairs,
                               what='api_compile', row=case.id))
    except _RowFailed as e:
      results.append(_failed_row(row, e))
    log(_format_text([results[-1]]))
  for name in _IMPORT_CODE:
    row = f'import/{name}'
    if _selected([row], args.rows):
      results.append(_once_row(fork, upstream, row, pairs, what='import',
                               name=name))
      log(_format_text([results[-1]]))


def _measure(args: argparse.Namespace, fork: _Side, upstream: _Side,
             log: Callable[[str], None],
             results: list[dict[str, Any]]) -> None:
  """All selected rows, each in alternating fork/upstream pairs.

  Args:
    args: the command line.
    fork: the fork's worker.
    upstream: upstream's worker.
    log: prints a finished row.
    results: the finished rows are appended here, so that they survive an
      interrupt.
  """
  step_rows = _selected([f'step/{o}/{t}' for t in _STEP_TREES
                         for o in _STEP_ROW_OPTIMIZERS], args.rows)
  pairs = args.pairs or (3 if args.quick else 7)
  for row in step_rows:
    try:
      results.append(_step_row(args, fork, upstream, row, pairs))
    except _RowFailed as e:
      results.append(_failed_row(row, e))
    log(_format_text([results[-1]]))

  _measure_loops(args, fork, upstream, pairs, log, results)

  if _selected(['bound/adam'], args.rows):
    row = 'step/adam/big'
    for side in (fork, upstream):
      side.ask(what='step', row=row, repeats=1)
      side.ask(what='bound', repeats=1)
    fractions = {'fork': [], 'upstream': []}
    for i in range(pairs):
      order = (fork, upstream) if i % 2 == 0 else (upstream, fork)
      for side in order:
        step = side.ask(what='step', row=row, repeats=args.max_repeats)
        bound = side.ask(what='bound', repeats=args.max_repeats)
        fractions[side.label].append(bound / step)
    results.append(_ratio_row('bound/adam (fraction of bound)',
                              fractions['fork'], fractions['upstream'], 'x'))
    log(_format_text([results[-1]]))

  compile_names = _selected(
      [f'compile/{o}' for o in _COMPILE_OPTIMIZERS], args.rows)
  if compile_names:
    for side in (fork, upstream):
      side.ask(what='warmup')
  compile_pairs = args.compile_pairs or 2
  for row in compile_names:
    name = row.split('/')[1]
    times = {'fork': [], 'upstream': []}
    try:
      for i in range(compile_pairs):
        order = (fork, upstream) if i % 2 == 0 else (upstream, fork)
        for side in order:
          times[side.label].append(side.ask(
              what='compile', name=name, leaves=args.compile_leaves))
    except _RowFailed as e:
      results.append(_failed_row(row, e))
      log(_format_text([results[-1]]))
      continue
    for phase in _COMPILE_PHASES:
      results.append(_ratio_row(
          f'{row}/{phase} ({args.compile_leaves} leaves)',
          [t[phase] for t in times['fork']],
          [t[phase] for t in times['upstream']], 's'))
      log(_format_text([results[-1]]))

  # memory_min/: the same steps compiled with XLA:CPU's memory-minimizing
  # scheduler (an option of that backend only); memory_undonated/: compiled
  # without donation.
  kinds = {'memory': _MEMORY_OPTIMIZERS}
  if fork.info['backend'] == 'cpu':
    kinds['memory_min'] = _MEMORY_OPTIMIZERS
  kinds['memory_undonated'] = _UNDONATED_OPTIMIZERS
  for kind, names in kinds.items():
    for tree in _STEP_TREES:
      for name in names:
        row = f'{kind}/{name}/{tree}'
        if not _selected([row], args.rows):
          continue
        try:
          values = [side.ask(what='memory', row=f'step/{name}/{tree}',
                             minimize=kind == 'memory_min',
                             donate=kind != 'memory_undonated')
                    for side in (fork, upstream)]
          results.append(_ratio_row(row, values[:1], values[1:],
                                    'x params'))
        except _RowFailed as e:
          results.append(_failed_row(row, e))
        log(_format_text([results[-1]]))

  _measure_api(args, fork, upstream, pairs, log, results)


def _loop_pairs(args: argparse.Namespace, fork: _Side, upstream: _Side,
                key: str, pairs: int) -> dict[str, list[float]]:
  """Seconds per step of a loop, control or copy row, in alternating pairs."""
  counts = args.loop_counts
  # Compile both, and choose repeats so that one trip count takes ~budget.
  one = max(side.ask(what='loop', key=key, repeats=1, counts=counts)
            for side in (fork, upstream))
  per_call = max(one * counts[1], 1e-6)
  repeats = int(min(args.max_repeats, max(3, args.budget / per_call)))
  times = {'fork': [], 'upstream': []}
  for i in range(pairs):
    order = (fork, upstream) if i % 2 == 0 else (upstream, fork)
    for side in order:
      times[side.label].append(side.ask(what='loop', key=key,
                                        repeats=repeats, counts=counts))
  return times


def _release(key: str, fork: _Side, upstream: _Side) -> None:
  """Lets both workers free a finished loop row (GPT-2 small's hold GBs)."""
  for side in (fork, upstream):
    side.ask(what='release', key=key)


def _measure_loops(args: argparse.Namespace, fork: _Side, upstream: _Side,
                   pairs: int, log: Callable[[str], None],
                   results: list[dict[str, Any]]) -> None:
  """The device-side rows: control, loop and bound rows.

  Args:
    args: the command line.
    fork: the fork's worker.
    upstream: upstream's worker.
    pairs: fork/upstream pairs per row.
    log: prints a finished row.
    results: the finished rows are appended here.
  """
  for tree in _CONTROL_TREES:
    row = f'control/{tree}'
    if _selected([row], args.rows):
      try:
        times = _loop_pairs(args, fork, upstream, row, pairs)
        results.append(_ratio_row(row, times['fork'], times['upstream'],
                                  's'))
      except _RowFailed as e:
        results.append(_failed_row(row, e))
      log(_format_text([results[-1]]))
      _release(row, fork, upstream)
  for tree in _LOOP_TREES:
    rows = _selected([f'loop/{o}/{tree}' for o in _LOOP_OPTIMIZERS[tree]],
                     args.rows)
    bounds = _selected([f'bound/{r[len("loop/"):]}' for r in rows],
                       args.rows)
    copy = {}
    if bounds:  # The bandwidth a copy of the tree reaches, in each worker.
      copy_key = f'copy/{tree}'
      copy_times = _loop_pairs(args, fork, upstream, copy_key, pairs)
      copy = {side.label: side.ask(what='step_bytes', key=copy_key)
              / statistics.median(copy_times[side.label])
              for side in (fork, upstream)}
    for row in rows:
      try:
        times = _loop_pairs(args, fork, upstream, row, pairs)
      except _RowFailed as e:
        results.append(_failed_row(row, e))
        log(_format_text([results[-1]]))
        _release(row, fork, upstream)
        continue
      results.append(_ratio_row(row, times['fork'], times['upstream'], 's'))
      log(_format_text([results[-1]]))
      bound = f'bound/{row[len("loop/"):]}'
      if bound in bounds:
        fractions = {}
        for side in (fork, upstream):
          seconds = side.ask(what='step_bytes', key=row) / copy[side.label]
          fractions[side.label] = [seconds / t for t in times[side.label]]
        results.append(_ratio_row(f'{bound} (of copy bandwidth)',
                                  fractions['fork'], fractions['upstream'],
                                  'x'))
        log(_format_text([results[-1]]))
      _release(row, fork, upstream)
    if copy:
      _release(f'copy/{tree}', fork, upstream)


def _control_summary(results: list[dict[str, Any]]) -> list[str]:
  """Whether the control rows of each kind read 1.00 within the spread.

  Args:
    results: the finished rows.

  Returns:
    One line for each kind of row that had control rows: ``control/``
    vouches for the loop rows, ``step/control/`` for the step rows,
    ``memory/control/`` (and its kin) for that kind's rows.
  """
  controls: dict[str, list[dict[str, Any]]] = {}
  for r in results:
    kind, *rest = r['row'].split('/')
    if kind == 'control':
      controls.setdefault('loop', []).append(r)
    elif rest[:1] == ['control']:
      controls.setdefault(kind, []).append(r)
  lines = []
  for kind, rows in controls.items():
    label = 'control rows' if kind == 'loop' else f'{kind} control rows'
    if any('failed' in r for r in rows):
      lines.append(f'{label}: FAILED (see the table)')
      continue
    worst = max(abs(r['ratio'] - 1) for r in rows)
    verdict = ('within' if worst <= _CONTROL_SPREAD else
               f'OUTSIDE (the {kind} rows cannot be read to a few percent)')
    ratios = ', '.join(f'{r["ratio"]:.2f}' for r in rows)
    lines.append(f'{label}: {ratios}, {verdict} 1.00 +- '
                 f'{_CONTROL_SPREAD:.2f}')
  return lines


def _value(x: float, unit: str) -> str:
  if unit == 's':
    return f'{x * 1e3:.3f} ms' if x < 1 else f'{x:.2f} s'
  return f'{x:.2f}'


def _program(r: dict[str, Any]) -> str:
  """An API row's program sizes: instructions (flops), fork / upstream."""
  if 'program' not in r:
    return ''
  (fi, ff), (ui, uf) = r['program']
  return f'{fi:.0f} / {ui:.0f} ({ff:.4g} / {uf:.4g} flops)'


def _format_text(results: list[dict[str, Any]]) -> str:
  lines = []
  for r in results:
    if 'failed' in r:
      lines.append(f'{r["row"]:<48} not compared: {r["failed"]}')
      continue
    program = f'  program {_program(r)}' if 'program' in r else ''
    lines.append(
        f'{r["row"]:<48} {r["ratio"]:6.2f}  [{r["low"]:.2f}-{r["high"]:.2f}]'
        f'  fork {_value(r["fork"], r["unit"]):>11}'
        f'  upstream {_value(r["upstream"], r["unit"]):>11}{program}')
  return '\n'.join(lines)


def _format_markdown(results: list[dict[str, Any]]) -> str:
  """The table; API rows add their programs' sizes in a sixth column."""
  sized = any('program' in r for r in results)
  extra = (' program instructions (flops), fork / upstream |'
           if sized else '')
  lines = ['| row | fork / upstream (median) | range over pairs | fork |'
           ' upstream |' + extra,
           '| --- | --- | --- | --- | --- |' + (' --- |' if sized else '')]
  for r in results:
    tail = f' {_program(r)} |' if sized else ''
    if 'failed' in r:
      lines.append(f'| {r["row"]} | not compared | | {r["failed"]} | |'
                   + (' |' if sized else ''))
      continue
    lines.append(
        f'| {r["row"]} | {r["ratio"]:.2f} | {r["low"]:.2f}-{r["high"]:.2f}'
        f' ({r["pairs"]} pairs) | {_value(r["fork"], r["unit"])} |'
        f' {_value(r["upstream"], r["unit"])} |' + tail)
  return '\n'.join(lines)


def _machine(fork: _Side, upstream: _Side, args: argparse.Namespace) -> str:
  info = fork.info
  pinned = ('one pinned CPU core' if info['backend'] == 'cpu'
            else 'no CPU pinning')
  return (f'{_cpu_model()}, {os.cpu_count()} cores; jax '
          f'{info["jax_version"]}, backend {info["backend"]}, device '
          f'{info["device_kind"]} x{info["device_count"]}; fork optax '
          f'{info["optax_version"]} vs upstream '
          f'{upstream.info["optax_version"]} (jax '
          f'{upstream.info["jax_version"]}); {pinned}'
          f'; {args.clock} clock{"; --quick" if args.quick else ""}')


def main() -> None:
  """Parses the arguments and runs a worker or the whole comparison."""
  parser = argparse.ArgumentParser(
      description=__doc__.splitlines()[0],
      formatter_class=argparse.RawDescriptionHelpFormatter,
      epilog='Rows: step/<optimizer>/{big,tree}, bound/adam, '
      'compile/<optimizer>/{trace,lower,xla,total}, '
      'memory/<optimizer>/{big,tree}, memory_min/<optimizer>/{big,tree} '
      '(CPU), memory_undonated/<optimizer>/{big,tree}, '
      'control/{big,gpt2_small}, loop/<optimizer>/{big,tree,'
      'gpt2_small}, bound/<optimizer>/{big,tree,gpt2_small}. Step rows: '
      + ', '.join(_STEP_ROW_OPTIMIZERS) + '; memory rows: '
      + ', '.join(_MEMORY_OPTIMIZERS) + '; memory_undonated rows: '
      + ', '.join(_UNDONATED_OPTIMIZERS) + '; compile rows: '
      + ', '.join(_COMPILE_OPTIMIZERS) + '. Groups for --rows: '
      + ', '.join(_GROUPS) + '.')
  parser.add_argument('--upstream-python', help='interpreter with upstream '
                      'optax installed (default: a cached virtualenv made '
                      'with pip)')
  parser.add_argument('--upstream-tree', help='a source tree of upstream '
                      'optax, run under the current interpreter with it on '
                      'PYTHONPATH (instead of --upstream-python)')
  parser.add_argument('--loop-counts', default='',
                      help='the two trip counts K1,K2 of the loop rows '
                      '(default 2,10; quick 1,8)')
  parser.add_argument('--quick', action='store_true',
                      help='smaller trees and fewer pairs: a smoke run')
  parser.add_argument('--rows', help='comma-separated prefixes and group '
                      'names; only the rows starting with one of them, or '
                      'in one of the groups, run (e.g. "step/adam,compile" '
                      'or "step_time")')
  parser.add_argument('--groups', help='comma-separated groups of the '
                      'public API\'s rows (benchmarks/api_cases.py: '
                      + ', '.join(_api_groups()) + '), each with its '
                      'compile/ rows, and the groups of --rows; only these '
                      'run (with --rows, these and those)')
  parser.add_argument('--markdown', action='store_true',
                      help='print the final table in Markdown')
  parser.add_argument('--pairs', type=int, default=0,
                      help='fork/upstream pairs per step row (default 7, '
                      'quick 3)')
  parser.add_argument('--compile-pairs', type=int, default=0,
                      help='pairs per compile row (default 2)')
  parser.add_argument('--compile-leaves', type=int, default=0,
                      help='leaves of the compile rows\' tree (default '
                      '2000, quick 100)')
  parser.add_argument('--budget', type=float, default=0.05,
                      help='seconds one timing call aims at (repeats are '
                      'chosen from it)')
  parser.add_argument('--max-repeats', type=int, default=25)
  parser.add_argument('--cpu', type=int, help='the CPU both workers are '
                      'pinned to on a CPU backend (default: the last one '
                      'this process may use)')
  parser.add_argument('--clock', choices=('wall', 'cpu'), default='wall',
                      help='what a time is: wall-clock seconds, or the '
                      "worker's CPU seconds (steadier on a shared CPU-only "
                      'machine; meaningless for GPU steps)')
  parser.add_argument('--worker', action='store_true',
                      help=argparse.SUPPRESS)
  parser.add_argument('--pin-cpu', type=int, help=argparse.SUPPRESS)
  args = parser.parse_args()
  if not args.compile_leaves:
    args.compile_leaves = 100 if args.quick else 2000
  args.loop_counts = [int(k) for k in (
      args.loop_counts or ('1,8' if args.quick else '2,10')).split(',')]
  if len(args.loop_counts) != 2 or not (
      0 < args.loop_counts[0] < args.loop_counts[1]):
    parser.error('--loop-counts must be two trip counts K1,K2 with '
                 f'0 < K1 < K2, got {args.loop_counts}')
  if args.groups:
    patterns = []
    for group in args.groups.split(','):
      if group in _api_groups():
        patterns += _api_groups()[group]
      elif group in _GROUPS:
        patterns.append(group)
      else:
        parser.error(f'--groups: no group {group!r}; groups: '
                     f'{", ".join([*_api_groups(), *_GROUPS])}')
    args.rows = ','.join(filter(None, [args.rows, *patterns]))
  if args.upstream_python and args.upstream_tree:
    parser.error('give --upstream-python or --upstream-tree, not both')
  if args.worker:
    _worker_main(args)
    return

  start = time.perf_counter()
  fork, upstream = _start_sides(args)
  try:
    machine = _machine(fork, upstream, args)
    print(f'# {machine}', flush=True)

    def log(line: str) -> None:
      print(line, file=sys.stderr if args.markdown else sys.stdout,
            flush=True)

    results = []
    try:
      _measure(args, fork, upstream, log, results)
    except KeyboardInterrupt:  # A time limit's SIGINT: keep what was done.
      print(f'# interrupted after {len(results)} rows', file=sys.stderr,
            flush=True)
  finally:
    fork.close()
    upstream.close()
  if args.markdown:
    print(f'\nMachine: {machine}.\n')
    print(_format_markdown(results))
  summary = _control_summary(results)
  if summary and args.markdown:
    print('\n' + '\n\n'.join(summary))
  elif summary:
    print('\n'.join(f'# {line}' for line in summary))
  print(f'# {time.perf_counter() - start:.0f} s', file=sys.stderr)


if __name__ == '__main__':
  main()
