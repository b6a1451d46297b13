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
"""A registry of every optimizer of the library, for the test-suites.

Each :class:`Entry` names a public optimizer (an alias of ``optax._src``, an
optimizer of ``optax.contrib`` or a ``scale_by_*`` transform), the
hyperparameters the tests build it with, and the extra keyword arguments its
``update`` needs (``value``, ``grad``, ``value_fn``, ``obj_fn``).
:func:`meaningless_reason` says which wrappers of the composition suite an
entry has no meaning in, and why.

Every list of optimizers reads this one: the composition, sharding and
multi-process suites run its entries, ``alias_test.py`` and
``contrib/_common_test.py`` take their names and flags from it, and so do
``tools/compare/cases.py``, ``tools/fuzz`` and
``benchmarks/compare_upstream.py``. Those tools also run under upstream's
interpreter, which has no ``optax._src.testing``: this module imports only
the standard library, and factories are looked up by name when an entry is
used, so a tool loads it by file path (``importlib.util``) under either
interpreter.

``public_optimizer_names()`` lists what the registry must cover; a test checks
that nothing public is missing.
"""

import dataclasses
import importlib
from typing import Any, Callable, Optional

# Extra keyword arguments an update may need.
VALUE = 'value'
GRAD = 'grad'
VALUE_FN = 'value_fn'
OBJ_FN = 'obj_fn'


@dataclasses.dataclass(frozen=True)
class Entry:
  """An optimizer under test.

  Attributes:
    name: the public name, e.g. ``'adam'`` or ``'contrib.muon'``.
    module: the module that defines the factory.
    attr: the factory's name in that module.
    kwargs: hyperparameters the tests use (Python values only).
    extra_args: names of the extra keyword arguments ``update`` needs.
    injectable: whether ``inject_hyperparams(factory)(**kwargs)`` makes sense
      (the factory takes numeric hyperparameters).
    per_example_grads: whether ``update`` expects per-example gradients with
      a leading batch axis (differential privacy).
    wrapped: names of registry entries whose transformations are passed as
      arguments (resolved when the entry is built), mapping argument name to
      a (module, attr, kwargs) triple.
    matrices_only: whether the optimizer only accepts matrix params (the
      tests then use a matrix where they would use a vector).
  """

  name: str
  module: str
  attr: str
  kwargs: dict[str, Any] = dataclasses.field(default_factory=dict)
  extra_args: frozenset[str] = frozenset()
  injectable: bool = True
  per_example_grads: bool = False
  wrapped: dict[str, tuple[str, str, dict[str, Any]]] = dataclasses.field(
      default_factory=dict)
  matrices_only: bool = False

  def factory(self) -> Callable[..., Any]:
    """Returns the factory function of the optimizer."""
    return getattr(importlib.import_module(self.module), self.attr)

  def public_factory(self) -> Callable[..., Any]:
    """Returns the factory by its public name (``optax.contrib.muon``).

    Upstream's modules may be laid out otherwise than the fork's; its
    public namespace is the same, so a tool running under either
    interpreter builds from this.
    """
    namespace, _, attr = f'optax.{self.name}'.rpartition('.')
    return getattr(importlib.import_module(namespace), attr)

  def build_kwargs(self) -> dict[str, Any]:
    """Returns the keyword arguments, with wrapped optimizers built."""
    kwargs = dict(self.kwargs)
    for arg, (module, attr, inner_kwargs) in self.wrapped.items():
      kwargs[arg] = getattr(importlib.import_module(module), attr)(
          **inner_kwargs)
    return kwargs

  def build(self):
    """Builds the optimizer with the test hyperparameters."""
    return self.factory()(**self.build_kwargs())


_ALIAS = 'optax._src.alias'
_TRANSFORM = 'optax._src.transform'
_FACTORIZED = 'optax._src.factorized'


def _alias(name, extra=(), injectable=True, **kwargs) -> Entry:
  return Entry(name, _ALIAS, name, kwargs, frozenset(extra), injectable)


def _transform(name, module=_TRANSFORM, extra=(), injectable=True,
               **kwargs) -> Entry:
  return Entry(name, module, name, kwargs, frozenset(extra), injectable)


def _contrib(name, extra=(), injectable=True, per_example_grads=False,
             wrapped=None, module=None, matrices_only=False,
             **kwargs) -> Entry:
  if module is None:
    raise ValueError(f'registry: contrib entry {name} needs its module')
  return Entry(f'contrib.{name}', f'optax.contrib.{module}', name, kwargs,
               frozenset(extra), injectable, per_example_grads,
               dict(wrapped or {}), matrices_only)


_LR = 0.05
_LINESEARCH_EXTRAS = (VALUE, GRAD, VALUE_FN)

ALIASES = (
    _alias('adabelief', learning_rate=_LR),
    _alias('adadelta', learning_rate=_LR),
    _alias('adafactor', learning_rate=_LR),
    _alias('adagrad', learning_rate=_LR),
    _alias('adam', learning_rate=_LR),
    _alias('adamax', learning_rate=_LR),
    _alias('adamaxw', learning_rate=_LR),
    _alias('adamw', learning_rate=_LR),
    _alias('adan', learning_rate=_LR),
    _alias('amsgrad', learning_rate=_LR),
    _alias('fromage', learning_rate=_LR),
    _alias('lamb', learning_rate=_LR),
    _alias('lars', learning_rate=_LR),
    _alias('lbfgs', extra=_LINESEARCH_EXTRAS),
    _alias('lion', learning_rate=_LR),
    _alias('nadam', learning_rate=_LR),
    _alias('nadamw', learning_rate=_LR),
    _alias('noisy_sgd', learning_rate=_LR),
    _alias('novograd', learning_rate=_LR),
    _alias('optimistic_adam', learning_rate=_LR),
    _alias('optimistic_adam_v2', learning_rate=_LR),
    _alias('optimistic_gradient_descent', learning_rate=_LR),
    _alias('polyak_sgd', extra=(VALUE,), max_learning_rate=_LR),
    _alias('radam', learning_rate=_LR),
    _alias('rmsprop', learning_rate=_LR),
    _alias('rprop', learning_rate=_LR),
    _alias('sgd', learning_rate=_LR, momentum=0.9),
    _alias('sign_sgd', learning_rate=_LR),
    _alias('signum', learning_rate=_LR),
    _alias('sm3', learning_rate=_LR),
    _alias('yogi', learning_rate=_LR),
)

TRANSFORMS = (
    _transform('scale', step_size=-_LR),
    _transform('scale_by_learning_rate', learning_rate=_LR),
    _transform('scale_by_adadelta'),
    _transform('scale_by_adam'),
    _transform('scale_by_adamax'),
    _transform('scale_by_adan'),
    _transform('scale_by_amsgrad'),
    _transform('scale_by_belief'),
    _transform('scale_by_distance_over_gradients'),
    _transform('scale_by_lbfgs'),
    _transform('scale_by_lion'),
    _transform('scale_by_novograd'),
    _transform('scale_by_optimistic_gradient'),
    _transform('scale_by_param_block_norm'),
    _transform('scale_by_param_block_rms'),
    _transform('scale_by_polyak', extra=(VALUE,)),
    _transform('scale_by_radam'),
    _transform('scale_by_rms'),
    _transform('scale_by_rprop', learning_rate=_LR),
    _transform('scale_by_rss'),
    _transform('scale_by_sign'),
    _transform('scale_by_sm3'),
    _transform('scale_by_stddev'),
    _transform('scale_by_trust_ratio'),
    _transform('scale_by_yogi'),
    _transform('scale_by_factored_rms', module=_FACTORIZED,
               min_dim_size_to_factor=2),
    _transform('scale_by_backtracking_linesearch',
               module='optax._src.linesearch',
               extra=_LINESEARCH_EXTRAS, max_backtracking_steps=5),
    _transform('scale_by_zoom_linesearch', module='optax._src.linesearch',
               extra=_LINESEARCH_EXTRAS, max_linesearch_steps=5),
)

_SGD = (_ALIAS, 'sgd', {'learning_rate': _LR})
_ADAM = (_ALIAS, 'adam', {'learning_rate': _LR})

CONTRIB = (
    _contrib('acprop', module='_acprop', learning_rate=_LR),
    _contrib('scale_by_acprop', module='_acprop'),
    _contrib('ademamix', module='_ademamix', learning_rate=_LR),
    _contrib('scale_by_ademamix', module='_ademamix'),
    _contrib('simplified_ademamix', module='_ademamix', learning_rate=_LR),
    _contrib('scale_by_simplified_ademamix', module='_ademamix'),
    _contrib('adopt', module='_adopt', learning_rate=_LR),
    _contrib('scale_by_adopt', module='_adopt'),
    _contrib('cocob', module='_cocob'),
    _contrib('scale_by_cocob', module='_cocob'),
    _contrib('dadapt_adamw', module='_dadapt_adamw'),
    _contrib('dog', module='_dog'),
    _contrib('dowg', module='_dog'),
    _contrib('galore', module='_galore', learning_rate=_LR, rank=1,
             update_proj_gap=2),
    _contrib('scale_by_galore', module='_galore', rank=1, update_proj_gap=2),
    _contrib('madgrad', module='_madgrad', learning_rate=_LR),
    _contrib('scale_by_madgrad', module='_madgrad', learning_rate=_LR),
    _contrib('mechanize', module='_mechanic',
             wrapped={'base_optimizer': _ADAM}),
    _contrib('momo', module='_momo', extra=(VALUE,)),
    _contrib('momo_adam', module='_momo', extra=(VALUE,)),
    _contrib('muon', module='_muon', learning_rate=_LR),
    _contrib('scale_by_muon', module='_muon', matrices_only=True),
    _contrib('dpsgd', module='_privacy', per_example_grads=True,
             learning_rate=_LR, l2_norm_clip=1.0, noise_multiplier=0.1,
             key=0),
    _contrib('differentially_private_aggregate', module='_privacy',
             per_example_grads=True, l2_norm_clip=1.0, noise_multiplier=0.1,
             key=0),
    _contrib('prodigy', module='_prodigy'),
    _contrib('reduce_on_plateau', module='_reduce_on_plateau', extra=(VALUE,)),
    _contrib('sam', module='_sam', injectable=False,
             wrapped={'optimizer': _SGD, 'adv_optimizer': _SGD}),
    _contrib('normalize', module='_sam', injectable=False),
    _contrib('schedule_free', module='_schedule_free', learning_rate=_LR,
             wrapped={'base_optimizer': _SGD}),
    _contrib('schedule_free_adamw', module='_schedule_free',
             learning_rate=_LR),
    _contrib('schedule_free_sgd', module='_schedule_free', learning_rate=_LR),
    _contrib('sophia', module='_sophia', extra=(OBJ_FN,), learning_rate=_LR),
    _contrib('split_real_and_imaginary', module='_complex_valued',
             injectable=False, wrapped={'inner': _ADAM}),
)

ENTRIES = ALIASES + TRANSFORMS + CONTRIB
BY_NAME = {e.name: e for e in ENTRIES}

# Public names that are not optimizers (helpers, evaluation functions) and
# the reason they are not in the registry.
NOT_OPTIMIZERS = {
    'contrib.schedule_free_eval_params': 'maps a state to eval params',
    'contrib.hutchinson_estimator_diag_hessian':
        'a Hessian estimator used inside sophia, tested there',
    'scale_by_schedule': 'needs a schedule function; covered by '
                         'scale_by_learning_rate with a schedule',
}


# The wrappers of the composition suite (``composition.WRAPPERS``) that give
# the optimizer only part of the params, or one flat vector of them.
SEES_PART_OF_PARAMS = ('masked_tree', 'masked_fn', 'partition', 'flatten')

NOTHING_TO_INJECT = (
    'the factory takes transformations (or nothing), not numeric '
    'hyperparameters, so there is nothing to inject')
PER_EXAMPLE_PART = (
    'per-example gradients carry a batch axis that a mask, a partition or a '
    'flattening cannot line up with the params')
MATRICES_ONLY = ('the optimizer only transforms matrices, and flatten hands '
                 'it one flat vector')
PER_EXAMPLE_MULTISTEPS = (
    'per-example gradients of different mini-batches cannot be averaged '
    'example by example; accumulate the privatized gradients instead '
    '(MultiSteps raises a clear error)')
LOSS_ON_PART = (
    'the optimizer evaluates the loss function on the params it is given, '
    'and this wrapper gives it only part of them (or a flat vector)')

# Reasons that say the combination cannot run: the registry test runs each
# pair listed with one of them and expects it to fail, so that a pair that
# starts working leaves the list and enters the suite. The other reasons are
# about meaning (nothing to inject; the loss of part of the params is
# another objective unless the loss is separable), not failures.
FAILS_WHEN_RUN = (PER_EXAMPLE_PART, MATRICES_ONLY, PER_EXAMPLE_MULTISTEPS)


def meaningless_reason(entry: Entry, wrapper: str) -> Optional[str]:
  """Why an entry has no meaning inside a wrapper, or None when it has.

  Args:
    entry: the registry entry.
    wrapper: a wrapper name of the composition suite (``'multisteps'``,
      ``'masked_tree'``, ...).

  Returns:
    The reason, one of the constants above, or None.
  """
  if wrapper == 'inject_hyperparams' and not entry.injectable:
    return NOTHING_TO_INJECT
  if entry.per_example_grads and wrapper in SEES_PART_OF_PARAMS:
    return PER_EXAMPLE_PART
  if entry.matrices_only and wrapper == 'flatten':
    return MATRICES_ONLY
  if entry.per_example_grads and wrapper == 'multisteps':
    return PER_EXAMPLE_MULTISTEPS
  if {VALUE_FN, OBJ_FN} & entry.extra_args and wrapper in SEES_PART_OF_PARAMS:
    return LOSS_ON_PART
  return None


def _is_optimizer_name(name: str, module: str) -> bool:
  return (module in ('optax._src.alias', 'functools')
          or name.startswith('scale_by_') or name == 'scale')


def importable_optimizer_names() -> set[str]:
  """Every public optimizer that ``import optax`` exposes.

  Returns:
    Names as used by :data:`BY_NAME`: the aliases of ``optax._src.alias``,
    every ``scale_by_*`` and ``scale`` of the top-level namespace, and every
    function of ``optax.contrib``.
  """
  optax = importlib.import_module('optax')
  contrib = importlib.import_module('optax.contrib')
  names = set()
  for name in dir(optax):
    obj = getattr(optax, name)
    if name.startswith('_') or not callable(obj) or isinstance(obj, type):
      continue
    module = getattr(getattr(obj, 'func', obj), '__module__', '')
    if _is_optimizer_name(name, module):
      names.add(name)
  for name in dir(contrib):
    obj = getattr(contrib, name)
    if name.startswith('_') or isinstance(obj, type):
      continue
    if callable(obj) and getattr(obj, '__module__', '').startswith(
        'optax.contrib'):
      names.add(f'contrib.{name}')
  return names


def public_optimizer_names(
    functions: Optional[dict[str, dict[str, str]]] = None) -> set[str]:
  """Every public optimizer of the upstream release the fork is based on.

  Args:
    functions: ``{namespace: {public function: defining module}}`` for
      ``optax`` and ``optax.contrib``; by default those of the upstream
      release, as committed in ``optax/_src/testing/upstream_api.py``.

  Returns:
    Names as used by :data:`BY_NAME`: the aliases, every ``scale_by_*`` and
    ``scale`` of ``optax``, and every function of ``optax.contrib``.
  """
  if functions is None:
    functions = importlib.import_module(
        'optax._src.testing.upstream_api').FUNCTIONS
  names = {name for name, module in functions['optax'].items()
           if _is_optimizer_name(name, module)}
  names |= {f'contrib.{name}' for name in functions['optax.contrib']}
  return names
