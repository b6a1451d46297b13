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
"""The public API's functions on fixed inputs, for both sides' workers.

One list of cases read by two tools: ``benchmarks/compare_upstream.py``
times them (its API rows, at realistic sizes) and ``tools/program_size.py``
compares the size of their optimized programs (at small sizes). Both run
their workers under the fork's interpreter and under upstream's, where
neither ``benchmarks`` nor ``tools`` is importable, so the workers load this
file by its path. It imports only the standard library at module level and
uses only optax's public names, which upstream 0.2.8 has too.

A case is ``<prefix>/<function>[/<shape>]/<variant>``: the function's
forward program (``fwd``) and, where it is differentiable, its gradient
with respect to the first argument (``grad``); a schedule's values over a
vector of steps under ``jit`` (``jit``) and one eager call (``eager``); an
assignment solver ``eager`` on a shape seen before, under ``jit`` and under
``vmap``; an optimizer's ``update`` then ``apply_updates`` (``update``).
an optimizer built from its hyperparameters (``build/<name>/eager``: the
Python call that checks the arguments and returns the transformation).
``mode`` says how a timing row calls it: jitted, or eager.

Groups (``--groups`` of both tools): losses, projections, schedules,
assignment, linesearch, tree, second_order, perturbations, construction
(timing only), optimizers (program size only; the step rows of
compare_upstream time optimizers).
"""

import dataclasses
import functools
import importlib.util
import pathlib
import re
import sys
from typing import Any, Callable

_REPO = pathlib.Path(__file__).resolve().parent.parent

# Group name -> the prefix of its cases' ids.
GROUPS = {
    'losses': 'loss',
    'projections': 'projection',
    'schedules': 'schedule',
    'assignment': 'assignment',
    'linesearch': 'linesearch',
    'tree': 'tree',
    'second_order': 'second_order',
    'perturbations': 'perturbations',
    'construction': 'build',
    'optimizers': 'update',
}
# An instruction of HLO text: `[ROOT] name = type op(...)`.
_INSTRUCTION = re.compile(r'^\s*(?:ROOT\s+)?%?[\w.\-]+\s+=\s')


def count_instructions(hlo_text: str) -> int:
  """The number of instructions in an HLO module's text, every computation.

  Args:
    hlo_text: ``compiled.as_text()`` (fusions' bodies included).

  Returns:
    The count of lines that define an instruction.
  """
  return sum(1 for line in hlo_text.splitlines() if _INSTRUCTION.match(line))


def program_size(fn: Callable[..., Any], args: tuple[Any, ...]) -> dict[
    str, float]:
  """Instructions and XLA's flops of ``jit(fn)``'s optimized program.

  Args:
    fn: the function.
    args: its arguments.

  Returns:
    ``{'instructions': n, 'flops': f}``, and the program's text under
    ``'text'``.
  """
  import jax  # pylint: disable=import-outside-toplevel
  compiled = jax.jit(fn).lower(*args).compile()
  text = compiled.as_text()
  analysis = compiled.cost_analysis()
  if isinstance(analysis, (list, tuple)):  # Older jax: one per program.
    analysis = analysis[0]
  return {'instructions': count_instructions(text),
          'flops': float((analysis or {}).get('flops', 0.0)), 'text': text}


# Groups whose cases compare_upstream times (optimizer steps have their own
# rows there).
TIMED_GROUPS = tuple(g for g in GROUPS if g != 'optimizers')


@dataclasses.dataclass(frozen=True)
class Case:
  """One program of the public API.

  Attributes:
    id: ``<prefix>/<function>[/<shape>]/<variant>``.
    group: a key of :data:`GROUPS`.
    mode: ``'jit'`` or ``'eager'``: how a timing row calls it.
    make: ``make(small)`` builds a fresh function and its arguments (fresh,
      so that no cache of jax's holds a compiled program of it).
    sized: whether tools/program_size.py compiles it (not when its program
      is another case's: an assignment solver's eager call is its jit's).
    timed: whether compare_upstream times it.
  """

  id: str
  group: str
  mode: str
  make: Callable[[bool], tuple[Callable[..., Any], tuple[Any, ...]]]
  sized: bool = True
  timed: bool = True


def _np():
  import numpy as np  # pylint: disable=import-outside-toplevel
  return np


def _jnp():
  import jax.numpy as jnp  # pylint: disable=import-outside-toplevel
  return jnp


def _rand(shape, seed=0, scale=1.0, dtype='float32'):
  """A deterministic normal array (NumPy's generator, the same on both)."""
  rng = _np().random.default_rng(seed)
  return _jnp().asarray(rng.standard_normal(shape) * scale, dtype)


def _probs(shape, seed=1):
  """Rows of positive numbers summing to 1 along the last axis."""
  x = _np().exp(_np().random.default_rng(seed).standard_normal(shape))
  return _jnp().asarray(x / x.sum(-1, keepdims=True), 'float32')


def _ints(shape, high, seed=2):
  rng = _np().random.default_rng(seed)
  return _jnp().asarray(rng.integers(0, high, shape), 'int32')


def _summed(fn):
  """The gradient of ``sum(fn(x, *rest))`` with respect to ``x``."""
  import jax  # pylint: disable=import-outside-toplevel
  return jax.grad(lambda x, *rest: _jnp().sum(fn(x, *rest)))


def _optax():
  import optax  # pylint: disable=import-outside-toplevel
  return optax


# ----------------------------------------------------------------------------
# Losses: (batch, classes) logits at realistic sizes, 4 x 5 when small.
# ----------------------------------------------------------------------------


def _bc(small):
  return (4, 5) if small else (256, 1000)


def _loss_args(name: str, small: bool) -> tuple[Callable[..., Any], tuple]:
  """The loss ``name`` and its arguments (logits-like first)."""
  losses = _optax().losses
  jnp = _jnp()
  b, c = _bc(small)
  logits = _rand((b, c))
  # Embedding width, items to rank, pixels and classes of a segmentation.
  width, items = (16, 8) if small else (128, 100)
  pixels, seg = (16, c) if small else (1024, 8)
  table = {
      'softmax_cross_entropy': lambda: (logits, _probs((b, c))),
      'safe_softmax_cross_entropy': lambda: (logits, _probs((b, c))),
      'softmax_cross_entropy_with_integer_labels': lambda: (
          logits, _ints((b,), c)),
      'poly_loss_cross_entropy': lambda: (logits, _probs((b, c))),
      'sigmoid_binary_cross_entropy': lambda: (
          logits, _ints((b, c), 2).astype(jnp.float32)),
      'sigmoid_focal_loss': lambda: (
          logits, _ints((b, c), 2).astype(jnp.float32)),
      'l2_loss': lambda: (logits, _rand((b, c), 3)),
      'squared_error': lambda: (logits, _rand((b, c), 3)),
      'huber_loss': lambda: (logits, _rand((b, c), 3)),
      'log_cosh': lambda: (logits, _rand((b, c), 3)),
      'cosine_distance': lambda: (logits, _rand((b, c), 3)),
      'cosine_similarity': lambda: (logits, _rand((b, c), 3)),
      'kl_divergence': lambda: (
          jnp.log(_probs((b, c), 4)), _probs((b, c))),
      'kl_divergence_with_log_targets': lambda: (
          jnp.log(_probs((b, c), 4)), jnp.log(_probs((b, c)))),
      'convex_kl_divergence': lambda: (
          jnp.log(_probs((b, c), 4)), _probs((b, c))),
      'generalized_kl_divergence': lambda: (
          jnp.log(_probs((b, c), 4)), _probs((b, c))),
      'hinge_loss': lambda: (
          logits[:, 0], 2.0 * _ints((b,), 2).astype(jnp.float32) - 1.0),
      'perceptron_loss': lambda: (
          logits[:, 0], 2.0 * _ints((b,), 2).astype(jnp.float32) - 1.0),
      'multiclass_hinge_loss': lambda: (logits, _ints((b,), c)),
      'multiclass_perceptron_loss': lambda: (logits, _ints((b,), c)),
      'sparsemax_loss': lambda: (
          logits[:, 0], _ints((b,), 2).astype(jnp.float32)),
      'multiclass_sparsemax_loss': lambda: (logits, _ints((b,), c)),
      'ntxent': lambda: (_rand((b, width)), _ints((b,), max(b // 4, 2))),
      'triplet_margin_loss': lambda: (
          _rand((b, width)), _rand((b, width), 5), _rand((b, width), 6)),
      'ranking_softmax_loss': lambda: (
          _rand((b, items)), _ints((b, items), 3).astype(jnp.float32)),
      'dice_loss': lambda: (_rand((b, pixels, seg)),
                            _probs((b, pixels, seg))),
      'binary_dice_loss': lambda: (
          logits, _ints((b, c), 2).astype(jnp.float32)),
      'multiclass_generalized_dice_loss': lambda: (
          _rand((b, pixels, seg)), _probs((b, pixels, seg))),
      'smooth_labels': lambda: (_probs((b, c)), 0.1),
  }
  if name == 'ctc_loss':
    steps, labels = (6, 3) if small else (100, 20)
    classes = c if small else 32
    lengths = _np().arange(b) % 3
    logit_paddings = jnp.asarray(
        _np().arange(steps)[None, :] >= steps - lengths[:, None], 'float32')
    label_paddings = jnp.asarray(
        _np().arange(labels)[None, :] >= labels - lengths[:, None],
        'float32')
    return losses.ctc_loss, (
        _rand((b, steps, classes)), logit_paddings,
        _ints((b, labels), classes - 1) + 1, label_paddings)
  if name == 'fenchel_young_loss':
    import jax  # pylint: disable=import-outside-toplevel
    loss = losses.make_fenchel_young_loss(jax.nn.logsumexp)
    return loss, (logits[0], _probs((c,)))
  return getattr(losses, name), table[name]()


_LOSSES = (
    'softmax_cross_entropy', 'safe_softmax_cross_entropy',
    'softmax_cross_entropy_with_integer_labels', 'poly_loss_cross_entropy',
    'sigmoid_binary_cross_entropy', 'sigmoid_focal_loss', 'l2_loss',
    'squared_error', 'huber_loss', 'log_cosh', 'cosine_distance',
    'cosine_similarity', 'kl_divergence', 'kl_divergence_with_log_targets',
    'convex_kl_divergence', 'generalized_kl_divergence', 'hinge_loss',
    'perceptron_loss', 'multiclass_hinge_loss', 'multiclass_perceptron_loss',
    'sparsemax_loss', 'multiclass_sparsemax_loss', 'ctc_loss', 'ntxent',
    'triplet_margin_loss', 'ranking_softmax_loss', 'dice_loss',
    'binary_dice_loss', 'multiclass_generalized_dice_loss', 'smooth_labels',
    'fenchel_young_loss')


def _loss_case(name: str, variant: str, small: bool):
  fn, args = _loss_args(name, small)
  if variant == 'grad':
    return _summed(fn), args
  return lambda *a: fn(*a), args


# ----------------------------------------------------------------------------
# Projections: a vector of 4,096 entries (small: 8) unless said otherwise.
# ----------------------------------------------------------------------------


def _projection_args(name: str, small: bool):
  n = 8 if small else 4096
  x = _rand((n,), 7)
  table = {
      'projection_simplex': (x,),
      'projection_l1_ball': (x,),
      'projection_l1_sphere': (x,),
      'projection_l2_ball': (x,),
      'projection_l2_sphere': (x,),
      'projection_linf_ball': (x,),
      'projection_box': (x, -0.5, 0.5),
      'projection_hypercube': (x,),
      'projection_non_negative': (x,),
      'projection_halfspace': (x, _rand((n,), 8), 0.3),
      'projection_hyperplane': (x, _rand((n,), 8), 0.3),
      'projection_vector': (x, _rand((n,), 8)),
  }
  return getattr(_optax().projections, name), table[name]


_PROJECTIONS = (
    'projection_simplex', 'projection_l1_ball', 'projection_l1_sphere',
    'projection_l2_ball', 'projection_l2_sphere', 'projection_linf_ball',
    'projection_box', 'projection_hypercube', 'projection_non_negative',
    'projection_halfspace', 'projection_hyperplane', 'projection_vector')


def _projection_case(name: str, variant: str, small: bool):
  fn, args = _projection_args(name, small)
  if variant == 'grad':
    return _summed(lambda x, *rest: fn(x, *rest) ** 2), args
  return lambda *a: fn(*a), args


# ----------------------------------------------------------------------------
# Schedules: each over a vector of steps under jit, and one eager call.
# ----------------------------------------------------------------------------


def _schedule(name: str):
  """The schedule ``name`` with hyperparameters of a typical run."""
  schedules = _optax().schedules
  makers = {
      'constant_schedule': lambda: schedules.constant_schedule(0.1),
      'linear_schedule': lambda: schedules.linear_schedule(
          1.0, 0.1, 1000, 100),
      'polynomial_schedule': lambda: schedules.polynomial_schedule(
          1.0, 0.1, 2.0, 1000, 100),
      'exponential_decay': lambda: schedules.exponential_decay(
          1.0, 100, 0.9, 50, staircase=True, end_value=0.01),
      'cosine_decay_schedule': lambda: schedules.cosine_decay_schedule(
          1.0, 1000, 0.01, 2.0),
      'warmup_cosine_decay_schedule': lambda: (
          schedules.warmup_cosine_decay_schedule(0.0, 1.0, 100, 1000, 0.01)),
      'warmup_exponential_decay_schedule': lambda: (
          schedules.warmup_exponential_decay_schedule(
              0.0, 1.0, 100, 200, 0.5, 10, end_value=0.01)),
      'warmup_constant_schedule': lambda: (
          schedules.warmup_constant_schedule(0.0, 1.0, 100)),
      'piecewise_constant_schedule': lambda: (
          schedules.piecewise_constant_schedule(
              1.0, {200: 0.5, 500: 0.1, 800: 0.5})),
      'piecewise_interpolate_schedule': lambda: (
          schedules.piecewise_interpolate_schedule(
              'cosine', 1.0, {200: 0.5, 500: 0.1, 800: 0.5})),
      'linear_onecycle_schedule': lambda: (
          schedules.linear_onecycle_schedule(1000, 1.0)),
      'cosine_onecycle_schedule': lambda: (
          schedules.cosine_onecycle_schedule(1000, 1.0)),
      'sgdr_schedule': lambda: schedules.sgdr_schedule(
          [dict(init_value=0.0, peak_value=1.0, warmup_steps=50,
                decay_steps=300, end_value=0.01)] * 3),
      'join_schedules': lambda: schedules.join_schedules(
          [schedules.linear_schedule(0.0, 1.0, 100),
           schedules.cosine_decay_schedule(1.0, 900)], [100]),
  }
  return makers[name]()


_SCHEDULES = (
    'constant_schedule', 'linear_schedule', 'polynomial_schedule',
    'exponential_decay', 'cosine_decay_schedule',
    'warmup_cosine_decay_schedule', 'warmup_exponential_decay_schedule',
    'warmup_constant_schedule', 'piecewise_constant_schedule',
    'piecewise_interpolate_schedule', 'linear_onecycle_schedule',
    'cosine_onecycle_schedule', 'sgdr_schedule', 'join_schedules')


def _schedule_case(name: str, variant: str, small: bool):
  import jax  # pylint: disable=import-outside-toplevel
  schedule = _schedule(name)
  if variant == 'eager':
    return lambda count: schedule(count), (_jnp().asarray(357, 'int32'),)
  steps = _jnp().arange(16 if small else 10_000, dtype='int32')
  return jax.vmap(lambda count: schedule(count)), (steps,)


# ----------------------------------------------------------------------------
# Assignment: square, wide and tall cost matrices.
# ----------------------------------------------------------------------------


_ASSIGNMENT_SHAPES = {'square': (1, 1), 'wide': (1, 2), 'tall': (2, 1)}


def _assignment_case(name: str, shape: str, variant: str, small: bool):
  import jax  # pylint: disable=import-outside-toplevel
  solver = getattr(_optax().assignment, name)
  n = 4 if small else 64
  rows, cols = (n * k for k in _ASSIGNMENT_SHAPES[shape])
  if variant == 'vmap':
    batch = 2 if small else 16
    return jax.vmap(lambda c: solver(c)), (_rand((batch, rows, cols), 9),)
  return lambda c: solver(c), (_rand((rows, cols), 9),)


# ----------------------------------------------------------------------------
# Line searches: L-BFGS and backtracking steps on a smooth problem.
# ----------------------------------------------------------------------------


def _quartic(w):
  """A smooth convex objective of a vector (a quartic plus a quadratic)."""
  jnp = _jnp()
  return jnp.sum(w ** 4) / 4 + 0.5 * jnp.sum((w - 1.0) ** 2)


def _linesearch_case(name: str, small: bool):
  import jax  # pylint: disable=import-outside-toplevel
  optax = _optax()
  n = 8 if small else 10_000
  if name == 'lbfgs':
    tx = optax.lbfgs()
  elif name == 'lbfgs_backtracking':
    tx = optax.lbfgs(
        linesearch=optax.scale_by_backtracking_linesearch(
            max_backtracking_steps=15, store_grad=True))
  elif name == 'sgd_backtracking':
    tx = optax.chain(
        optax.sgd(1.0),
        optax.scale_by_backtracking_linesearch(
            max_backtracking_steps=15, store_grad=True))
  else:
    tx = optax.chain(optax.sgd(1.0), optax.scale_by_zoom_linesearch(15))
  params = _rand((n,), 10)
  state = tx.init(params)
  value_and_grad = optax.value_and_grad_from_state(_quartic)

  def step(params, state):
    value, grad = value_and_grad(params, state=state)
    updates, state = tx.update(grad, state, params, value=value, grad=grad,
                               value_fn=_quartic)
    return optax.apply_updates(params, updates), state

  del jax
  return step, (params, state)


_LINESEARCHES = ('lbfgs', 'lbfgs_backtracking', 'sgd_backtracking',
                 'sgd_zoom')


# ----------------------------------------------------------------------------
# Tree utilities on a tree of many leaves (200 leaves; small: 12).
# ----------------------------------------------------------------------------


def _tree(small: bool, seed: int = 11):
  shapes = ((16, 16), (16,), (8, 32), (32,))
  return {f'p{i:04d}': _rand(shapes[i % 4], seed + i, 0.1)
          for i in range(12 if small else 200)}


def _tree_case(name: str, variant: str, small: bool):
  import jax  # pylint: disable=import-outside-toplevel
  tree = _optax().tree
  x, y = _tree(small), _tree(small, 1000)
  table = {
      'norm': (lambda a: tree.norm(a), (x,)),
      'norm_squared': (lambda a: tree.norm(a, squared=True), (x,)),
      'norm_inf': (lambda a: tree.norm(a, ord='inf'), (x,)),
      'norm_l1': (lambda a: tree.norm(a, ord=1), (x,)),
      'vdot': (tree.vdot, (x, y)),
      'sum': (tree.sum, (x,)),
      'max': (tree.max, (x,)),
      'add_scale': (lambda a, b: tree.add_scale(a, 0.5, b), (x, y)),
      'add': (tree.add, (x, y)),
      'sub': (tree.sub, (x, y)),
      'mul': (tree.mul, (x, y)),
      'div': (lambda a, b: tree.div(a, tree.add_scale(b, 0.0, b)), (x, y)),
      'scale': (lambda a: tree.scale(0.5, a), (x,)),
      'clip': (lambda a: tree.clip(a, -0.1, 0.1), (x,)),
      'where': (lambda a, b: tree.where(True, a, b), (x, y)),
      'update_moment': (lambda a, b: tree.update_moment(a, b, 0.9, 2), (x, y)),
      'update_infinity_moment': (
          lambda a, b: tree.update_infinity_moment(a, b, 0.9, 1e-8), (x, y)),
      'update_moment_per_elem_norm': (
          lambda a, b: tree.update_moment_per_elem_norm(a, b, 0.9, 2), (x, y)),
      'bias_correction': (
          lambda a: tree.bias_correction(a, 0.9, _jnp().asarray(3)), (x,)),
      'cast': (lambda a: tree.cast(a, 'bfloat16'), (x,)),
      'zeros_like': (tree.zeros_like, (x,)),
  }
  fn, args = table[name]
  if variant == 'grad' and name in _TREE_SCALARS:
    return jax.grad(fn), args
  if variant == 'grad':  # Of a sum of squares written here, not in optax.
    return jax.grad(lambda *a: sum(
        _jnp().sum(v * v) for v in jax.tree.leaves(fn(*a)))), args
  return fn, args


_TREES = ('norm', 'norm_squared', 'norm_inf', 'norm_l1', 'vdot', 'sum',
          'max', 'add_scale', 'add', 'sub', 'mul', 'div', 'scale', 'clip',
          'where', 'update_moment', 'update_infinity_moment',
          'update_moment_per_elem_norm', 'bias_correction', 'cast',
          'zeros_like')
# Those that return a scalar (the gradient is of the value itself).
_TREE_SCALARS = ('norm', 'norm_squared', 'norm_inf', 'norm_l1', 'vdot', 'sum',
                 'max')
# Those whose gradient is not taken (not differentiable, or trivially zero).
_TREE_NO_GRAD = ('cast', 'zeros_like', 'where', 'clip')


# ----------------------------------------------------------------------------
# Second order: a small MLP's loss.
# ----------------------------------------------------------------------------


def _mlp_loss(params, inputs, targets):
  jnp = _jnp()
  hidden = jnp.tanh(inputs @ params[0]['w'] + params[0]['b'])
  logits = hidden @ params[1]['w'] + params[1]['b']
  return jnp.mean(_optax().losses.softmax_cross_entropy_with_integer_labels(
      logits, targets))


def _mlp(small: bool):
  batch, width, hidden, classes = (4, 3, 5, 2) if small else (128, 64, 128,
                                                             10)
  params = [{'w': _rand((width, hidden), 12, 0.1), 'b': _rand((hidden,), 13)},
            {'w': _rand((hidden, classes), 14, 0.1),
             'b': _rand((classes,), 15)}]
  return params, _rand((batch, width), 16), _ints((batch,), classes)


def _second_order_case(name: str, small: bool):
  second_order = _optax().second_order
  params, inputs, targets = _mlp(small)
  if name == 'hvp':
    import jax  # pylint: disable=import-outside-toplevel
    v = jax.flatten_util.ravel_pytree(params)[0] * 0.5
    return (lambda p, vv, x, t: second_order.hvp(_mlp_loss, vv, p, x, t),
            (params, v, inputs, targets))
  fn = getattr(second_order, name)
  return (lambda p, x, t: fn(_mlp_loss, p, x, t), (params, inputs, targets))


_SECOND_ORDER = ('hvp', 'hessian_diag', 'fisher_diag')


# ----------------------------------------------------------------------------
# Perturbations: make_perturbed_fun of an argmax, value and gradient.
# ----------------------------------------------------------------------------


def _perturbed_case(noise: str, variant: str, small: bool):
  import jax  # pylint: disable=import-outside-toplevel
  perturbations = _optax().perturbations
  samples, n = (4, 6) if small else (1000, 100)

  def argmax_one_hot(x):
    return jax.nn.one_hot(_jnp().argmax(x, -1), x.shape[-1])

  noises = {'gumbel': perturbations.Gumbel, 'normal': perturbations.Normal}
  fn = perturbations.make_perturbed_fun(argmax_one_hot, samples, 0.5,
                                        noises[noise]())
  key = jax.random.key(0)
  x = _rand((n,), 17)
  if variant == 'grad':
    weights = _rand((n,), 18)
    return (jax.grad(lambda xx, k: _jnp().vdot(fn(k, xx), weights)),
            (x, key))
  return lambda xx, k: fn(k, xx), (x, key)


# ----------------------------------------------------------------------------
# Optimizers (program size only): update then apply_updates.
# ----------------------------------------------------------------------------


def _registry() -> Any:
  """The fork's optimizer registry, loaded from its file (stdlib only)."""
  name = '_optax_fork_registry'
  if name not in sys.modules:
    spec = importlib.util.spec_from_file_location(
        name, _REPO / 'optax' / '_src' / 'testing' / 'registry.py')
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
  return sys.modules[name]


def _optimizer_names() -> list[str]:
  """Registry entries whose update takes plain gradients of params."""
  return [e.name for e in _registry().ENTRIES if not e.per_example_grads]


def _optimizer_case(name: str, small: bool):
  registry = _registry()
  entry = registry.BY_NAME[name]
  optax = _optax()
  jnp = _jnp()
  del small
  tx = entry.public_factory()(**entry.build_kwargs())
  params = {'w': _rand((8, 4), 19, 0.1)}
  if not entry.matrices_only:
    params['b'] = _rand((4,), 20, 0.1)
  state = tx.init(params)

  def loss(p):
    return sum(jnp.sum(x ** 2) for x in p.values())

  extra = {registry.VALUE: lambda p: loss(p),
           registry.GRAD: lambda p: {k: 2 * v for k, v in p.items()},
           registry.VALUE_FN: lambda p: loss,
           registry.OBJ_FN: lambda p: loss}

  def step(params, state, grads):
    kwargs = {k: extra[k](params) for k in entry.extra_args}
    updates, state = tx.update(grads, state, params, **kwargs)
    return optax.apply_updates(params, updates), state

  grads = {k: 0.01 * jnp.ones_like(v) for k, v in params.items()}
  return step, (params, state, grads)


# Construction: an optimizer built from its hyperparameters (eager).
_CONSTRUCTIONS = ('adamw', 'adam', 'sgd_momentum', 'adafactor', 'lion',
                  'clip_adamw', 'inject_adamw')


def _construction_case(name: str, small: bool):
  optax = _optax()
  del small
  build = {
      'adamw': lambda: optax.adamw(1e-3, weight_decay=1e-4),
      'adam': lambda: optax.adam(1e-3),
      'sgd_momentum': lambda: optax.sgd(0.1, momentum=0.9),
      'adafactor': lambda: optax.adafactor(1e-3),
      'lion': lambda: optax.lion(1e-4),
      'clip_adamw': lambda: optax.chain(optax.clip_by_global_norm(1.0),
                                        optax.adamw(1e-3)),
      'inject_adamw': lambda: optax.inject_hyperparams(optax.adamw)(1e-3),
  }[name]
  return build, ()


# ----------------------------------------------------------------------------
# The list.
# ----------------------------------------------------------------------------


def _wrap(build: Callable[..., Any], *head: Any) -> Callable[[bool], Any]:
  return functools.partial(build, *head)


def cases(with_optimizers: bool = True) -> list[Case]:
  """Every case, in a fixed order (no jax is imported here).

  Args:
    with_optimizers: whether to list the ``optimizers`` group, which reads
      the fork's registry file.

  Returns:
    The cases.
  """
  out = []
  for name in _LOSSES:
    variants = ('fwd',) if name == 'smooth_labels' else ('fwd', 'grad')
    for variant in variants:
      out.append(Case(f'loss/{name}/{variant}', 'losses', 'jit',
                      _wrap(_loss_case, name, variant)))
  for name in _PROJECTIONS:
    for variant in ('fwd', 'grad'):
      out.append(Case(f'projection/{name}/{variant}', 'projections', 'jit',
                      _wrap(_projection_case, name, variant)))
  for name in _SCHEDULES:
    for variant in ('jit', 'eager'):
      out.append(Case(f'schedule/{name}/{variant}', 'schedules',
                      'eager' if variant == 'eager' else 'jit',
                      _wrap(_schedule_case, name, variant)))
  for name in ('base_hungarian_algorithm', 'hungarian_algorithm'):
    for shape in _ASSIGNMENT_SHAPES:
      for variant in ('eager', 'jit', 'vmap'):
        out.append(Case(f'assignment/{name}/{shape}/{variant}', 'assignment',
                        'eager' if variant == 'eager' else 'jit',
                        _wrap(_assignment_case, name, shape, variant),
                        sized=variant != 'eager'))
  for name in _LINESEARCHES:
    out.append(Case(f'linesearch/{name}/update', 'linesearch', 'jit',
                    _wrap(_linesearch_case, name)))
  for name in _TREES:
    variants = ('fwd',) if name in _TREE_NO_GRAD else ('fwd', 'grad')
    for variant in variants:
      # XLA:CPU spends minutes (over 90 CPU seconds, on either side)
      # compiling the gradient of the infinity norm of the 200-leaf tree:
      # program_size compiles it at 12 leaves, the timing rows do not.
      out.append(Case(f'tree/{name}/{variant}', 'tree', 'jit',
                      _wrap(_tree_case, name, variant),
                      timed=(name, variant) != ('norm_inf', 'grad')))
  for name in _SECOND_ORDER:
    out.append(Case(f'second_order/{name}/fwd', 'second_order', 'jit',
                    _wrap(_second_order_case, name)))
  for noise in ('gumbel', 'normal'):
    for variant in ('fwd', 'grad'):
      out.append(Case(f'perturbations/make_perturbed_fun_{noise}/{variant}',
                      'perturbations', 'jit',
                      _wrap(_perturbed_case, noise, variant)))
  for name in _CONSTRUCTIONS:
    out.append(Case(f'build/{name}/eager', 'construction', 'eager',
                    _wrap(_construction_case, name), sized=False))
  if with_optimizers:
    for name in _optimizer_names():
      out.append(Case(f'update/{name}/update', 'optimizers', 'jit',
                      _wrap(_optimizer_case, name)))
  return out


def by_id() -> dict[str, Case]:
  """Every case by its id."""
  return {c.id: c for c in cases()}
