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
"""Hyperparameters held in the optimizer state, so they can change over time.

:func:`inject_hyperparams` wraps an optimizer factory (``optax.adam``, ...)
so that its numeric hyperparameters live in the optimizer state: they can be
read and overwritten between steps, also under ``jax.jit``, and schedules are
evaluated on the step count once per step.
"""

import enum
import functools
import inspect
import re
import types
import typing
from collections.abc import Callable, Iterable
from typing import Any, NamedTuple, Optional, Union

import jax
import jax.numpy as jnp
import numpy as np

from optax._src import base
from optax._src import numerics


class InjectHyperparamsState(NamedTuple):
  """The state of a transformation built by :func:`inject_hyperparams`.

  Attributes:
    count: the number of updates done so far, an int32 scalar; schedules are
      evaluated on it.
    hyperparams: a dict from hyperparameter name to its current value, a
      scalar array of the hyperparameter dtype (float32, or float64 under
      x64, unless ``hyperparam_dtype`` says otherwise). After an update it
      holds the values that update used. Plain numbers can be overwritten
      between steps; scheduled ones are recomputed from the schedule at each
      step.
    inner_state: the state of the wrapped transformation.
  """

  count: jax.Array
  hyperparams: dict[str, jax.Array]
  inner_state: base.OptState


class InjectStatefulHyperparamsState(NamedTuple):
  """The state of a transformation built by :func:`inject_stateful_hyperparams`.

  Attributes:
    count: the number of updates done so far, an int32 scalar.
    hyperparams: a dict from hyperparameter name to the value used by the
      last update (scalar arrays of the hyperparameter dtype).
    hyperparams_states: a dict from the name of each scheduled hyperparameter
      to the state of its (stateful) schedule.
    inner_state: the state of the wrapped transformation.
  """

  count: jax.Array
  hyperparams: dict[str, jax.Array]
  hyperparams_states: dict[str, base.ScheduleState]
  inner_state: base.OptState


class WrappedScheduleState(NamedTuple):
  """The state of a :class:`WrappedSchedule`.

  Attributes:
    count: the number of updates so far, an int32 scalar.
  """

  count: jax.Array


class WrappedSchedule:
  """A plain schedule seen as a :class:`~optax.StatefulSchedule`.

  The state is the step count; calling the wrapped schedule on a state
  evaluates the schedule on that count, and ``update`` advances the count by
  one (saturating at the int32 maximum). Extra keyword arguments are ignored.

  Args:
    schedule_fn: a function of the step count.

  Examples:
    >>> import optax
    >>> from optax.schedules import WrappedSchedule
    >>> schedule = WrappedSchedule(optax.linear_schedule(1.0, 0.0, 4))
    >>> state = schedule.init()
    >>> float(schedule(state)), float(schedule(schedule.update(state)))
    (1.0, 0.75)
  """

  def __init__(self, schedule_fn: base.Schedule):
    self.schedule_fn = schedule_fn

  def init(self) -> WrappedScheduleState:
    """Returns the state at step 0."""
    return WrappedScheduleState(count=jnp.zeros([], jnp.int32))

  def update(
      self, state: WrappedScheduleState, **extra_args
  ) -> WrappedScheduleState:
    """Returns the state of the next step."""
    del extra_args
    return WrappedScheduleState(count=numerics.safe_increment(state.count))

  def __call__(
      self, state: WrappedScheduleState, **extra_args
  ) -> base.Numeric:
    """Returns the value of the schedule at the step held by ``state``."""
    del extra_args
    return self.schedule_fn(state.count)


# ---------------------------------------------------------------------------
# Sorting the arguments of the inner factory.
#
# Each argument falls in one of four groups:
#   * numeric: injected in the state (floats, float arrays, and integers given
#     for a parameter declared floating);
#   * schedule: a callable evaluated on the step count, its value injected;
#   * stateful schedule (inject_stateful_hyperparams only);
#   * static: passed to the inner factory untouched (bools, Python integers
#     for integer parameters, strings, dtypes, None, trees, masks and other
#     function-valued configuration, GradientTransformations, ...).

_FLOAT, _INT, _OTHER, _UNKNOWN = 'float', 'int', 'other', 'unknown'
_NUMERIC, _SCHEDULE, _STATEFUL, _STATIC = (
    'numeric', 'schedule', 'stateful', 'static')

# Parameter names that, by the naming convention of the library, hold a
# function the inner transformation calls itself (never a schedule to
# evaluate here): ``mask``, ``weight_decay_mask``, ``step_size_fn``, ...
_FUNCTION_VALUED_NAME = re.compile(r'(^|_)mask$|_fn$')

_FLOAT_ANNOTATION = re.compile(
    r'\b(float|complex|ScalarOrSchedule|Schedule|StatefulSchedule|Numeric|'
    r'Scalar)\b')
_INT_ANNOTATION = re.compile(
    r'\s*((typing\.)?Optional\[\s*int\s*\]|int(\s*\|\s*None)?|'
    r'None\s*\|\s*int)\s*')


def _union_members(annotation: Any) -> list[Any]:
  """The top-level members of a (possibly nested / Optional) union."""
  origin = typing.get_origin(annotation)
  if origin is Union or origin is types.UnionType:
    members = []
    for arg in typing.get_args(annotation):
      members.extend(_union_members(arg))
    return members
  return [annotation]


def _annotation_kind(annotation: Any) -> str:
  """What an annotation says about a parameter: float, int, other, unknown."""
  if annotation is inspect.Parameter.empty or annotation is Any:
    return _UNKNOWN
  if isinstance(annotation, str):
    if _FLOAT_ANNOTATION.search(annotation):
      return _FLOAT
    if _INT_ANNOTATION.fullmatch(annotation):
      return _INT
    return _UNKNOWN if annotation.strip() in ('Any', 'typing.Any') else _OTHER
  members = [m for m in _union_members(annotation) if m is not type(None)]
  for member in members:
    if member in (float, complex, np.floating) or member == base.Schedule:
      return _FLOAT
    if member is base.StatefulSchedule or (
        isinstance(member, type) and issubclass(member, WrappedSchedule)):
      return _FLOAT
  if members and all(m is int for m in members):
    return _INT
  return _OTHER


def _default_kind(default: Any) -> str:
  if isinstance(default, (bool, np.bool_)):
    return _OTHER
  if isinstance(default, (float, np.floating)):
    return _FLOAT
  if isinstance(default, (int, np.integer)):
    return _INT
  return _UNKNOWN


def _resolved_annotations(fn: Callable[..., Any]) -> dict[str, Any]:
  """Annotations of ``fn`` with string annotations evaluated when possible."""
  target = fn
  while isinstance(target, functools.partial):
    target = target.func
  try:
    target = inspect.unwrap(target)
    return typing.get_type_hints(target)
  except Exception:  # pylint: disable=broad-exception-caught
    # Unresolvable names (TYPE_CHECKING imports, classes): keep raw ones.
    return {}


def _parameter_kinds(
    signature: inspect.Signature, annotations: dict[str, Any]
) -> dict[str, str]:
  """Classifies each parameter of the factory as float, int, other, unknown."""
  kinds = {}
  for name, param in signature.parameters.items():
    kind = _annotation_kind(annotations.get(name, param.annotation))
    if kind == _UNKNOWN and param.default is not inspect.Parameter.empty:
      kind = _default_kind(param.default)
    kinds[name] = kind
  return kinds


def _is_stateful_schedule(value: Any) -> bool:
  return (callable(value) and hasattr(value, 'init')
          and hasattr(value, 'update')
          and not isinstance(value, base.GradientTransformation))


def _is_plain_callable(value: Any) -> bool:
  """A callable that could be a schedule (not a type, dtype, transform...)."""
  return (callable(value) and not isinstance(value, (type, np.dtype))
          and not isinstance(value, base.GradientTransformation))


def _classify(name: str, value: Any, kind: str, stateful: bool) -> str:
  """Sorts one argument of the factory into numeric/schedule/static."""
  if isinstance(value, (bool, np.bool_, str, bytes, enum.Enum)):
    return _STATIC
  if isinstance(value, (float, complex, np.floating, np.complexfloating)):
    return _NUMERIC
  if isinstance(value, (int, np.integer)):
    return _NUMERIC if kind == _FLOAT else _STATIC
  if isinstance(value, (jax.Array, np.ndarray)):
    dtype = value.dtype
    if jnp.issubdtype(dtype, jnp.inexact):
      return _NUMERIC
    if jnp.issubdtype(dtype, jnp.integer) and kind == _FLOAT:
      return _NUMERIC
    return _STATIC
  if kind in (_OTHER, _INT) or _FUNCTION_VALUED_NAME.search(name):
    return _STATIC
  if _is_stateful_schedule(value):
    if not stateful:
      raise ValueError(
          f'inject_hyperparams: {name} is a stateful schedule (it has init '
          'and update methods); use optax.inject_stateful_hyperparams for '
          'it, or pass a plain function of the step count.')
    return _STATEFUL
  if _is_plain_callable(value):
    return _SCHEDULE
  return _STATIC


def _as_hyperparameter(value: Any, dtype: Any) -> jax.Array:
  """Casts an injected value to the hyperparameter dtype (complex kept)."""
  if jnp.iscomplexobj(value):
    value = jnp.asarray(value)
    return value.astype(jnp.promote_types(dtype, value.dtype))
  return jnp.asarray(value, dtype=dtype)


def _resolve_dtype(hyperparam_dtype: Optional[jnp.dtype]) -> jnp.dtype:
  if hyperparam_dtype is None:
    return numerics.hyperparameter_dtype()
  return jax.dtypes.canonicalize_dtype(hyperparam_dtype)


class _SortedArguments(NamedTuple):
  """The arguments of the factory, sorted by how they are handled."""

  positional: tuple[Any, ...]
  static: dict[str, Any]
  numeric: dict[str, Any]
  schedules: dict[str, Any]
  order: tuple[str, ...]


def _make_injector(
    fn_name: str,
    inner_factory: Callable[..., base.GradientTransformation],
    static_args: Union[str, Iterable[str]],
    hyperparam_dtype: Optional[jnp.dtype],
    stateful: bool,
):
  """Shared front end of inject_hyperparams and inject_stateful_hyperparams."""
  if isinstance(static_args, str):
    static_names = frozenset([static_args])
  else:
    static_names = frozenset(static_args)
  signature = inspect.signature(inner_factory)
  params = signature.parameters
  takes_kwargs = any(p.kind is inspect.Parameter.VAR_KEYWORD
                     for p in params.values())
  unknown = static_names - set(params)
  if unknown and not takes_kwargs:
    raise ValueError(
        f'{fn_name}: static_args must name parameters of inner_factory, got '
        f'unknown names {sorted(unknown)}; the parameters are '
        f'{list(params)}.')
  if hyperparam_dtype is not None:
    dtype = jnp.dtype(hyperparam_dtype)
    if not jnp.issubdtype(dtype, jnp.floating):
      raise ValueError(
          f'{fn_name}: hyperparam_dtype must be a floating dtype, got '
          f'{dtype}.')
  kinds = _parameter_kinds(signature, _resolved_annotations(inner_factory))

  def sort_arguments(args, kwargs) -> _SortedArguments:
    bound = signature.bind(*args, **kwargs)
    bound.apply_defaults()
    positional = []
    named = {}
    for name, value in bound.arguments.items():
      param_kind = params[name].kind
      if param_kind is inspect.Parameter.POSITIONAL_ONLY:
        positional.append(value)
      elif param_kind is inspect.Parameter.VAR_POSITIONAL:
        positional.extend(value)
      elif param_kind is inspect.Parameter.VAR_KEYWORD:
        named.update(value)
      else:
        named[name] = value
    static, numeric, schedules = {}, {}, {}
    for name, value in named.items():
      if name in static_names:
        group = _STATIC
      else:
        group = _classify(name, value, kinds.get(name, _UNKNOWN), stateful)
      if group == _STATIC:
        static[name] = value
      elif group == _NUMERIC:
        numeric[name] = value
      elif group == _SCHEDULE and stateful:
        schedules[name] = WrappedSchedule(value)
      else:
        schedules[name] = value
    order = tuple(n for n in named if n in numeric or n in schedules)
    return _SortedArguments(tuple(positional), static, numeric, schedules,
                            order)

  return sort_arguments


def inject_hyperparams(
    inner_factory: Callable[..., base.GradientTransformation],
    static_args: Union[str, Iterable[str]] = (),
    hyperparam_dtype: Optional[jnp.dtype] = None,
) -> Callable[..., base.GradientTransformationExtraArgs]:
  """Makes the numeric hyperparameters of an optimizer part of its state.

  ``inject_hyperparams(optax.adam)`` has the signature of ``optax.adam``;
  calling it gives a transformation whose state is an
  :class:`InjectHyperparamsState`. ``state.hyperparams`` holds the current
  value of every numeric hyperparameter (including those left at their
  default), so it can be logged, or changed between steps, also under
  ``jax.jit``::

    state.hyperparams['learning_rate'] = 1e-4

  A hyperparameter given as a schedule (a function of the step) is evaluated
  on ``state.count`` at every update; ``state.hyperparams`` then shows the
  value the last update used.

  Which arguments are injected:

  * Floats (Python, NumPy or JAX scalars and floating arrays) are injected,
    stored with dtype ``hyperparam_dtype``, by default
    ``optax._src.numerics.hyperparameter_dtype()`` (float32, float64 under
    x64) -- never the dtype of the params, so bfloat16 params do not round
    ``b2=0.999`` to 1. The optimizers of the library turn their
    hyperparameters into that dtype too, so the wrapped optimizer gives the
    same bits as the plain one. (Under ``jax.jit`` the plain optimizer's
    hyperparameters are compile-time constants that XLA may fold with a
    different rounding, an ulp here and there, in some optimizers.)
  * Integers (Python / NumPy ints, integer arrays) are injected (as floats)
    only for a parameter declared floating: annotated ``float``,
    ``ScalarOrSchedule``, ``Numeric``, ... or, when not annotated, with a
    float default. Otherwise (``min_dim_size_to_factor: int = 128``,
    ``memory_size``, a parameter without annotation or default) they stay
    static Python ints, so they can set shapes and control flow under jit.
  * A callable is a schedule only for a parameter that may be numeric: not
    one annotated with a non-numeric type (such as ``MaskOrFn``), not an
    integer parameter, and not one named ``mask``, ``*_mask`` or ``*_fn``
    (functions the optimizer calls itself, like a weight-decay mask). Types
    and dtypes (``mu_dtype=jnp.bfloat16``) are never schedules.
  * Everything else -- bools, strings, ``None``, dtypes, trees, masks,
    GradientTransformations -- and every name in ``static_args`` is passed
    to ``inner_factory`` untouched.

  Args:
    inner_factory: a function returning a GradientTransformation, such as
      ``optax.adam``.
    static_args: the name, or names, of arguments to pass through untouched
      even when they are numeric (they must be parameters of
      ``inner_factory``).
    hyperparam_dtype: the dtype of the injected floats; by default
      ``optax._src.numerics.hyperparameter_dtype()``.

  Returns:
    A function with the arguments of ``inner_factory`` that returns a
    ``GradientTransformationExtraArgs`` with an :class:`InjectHyperparamsState`.
    Building it creates no JAX array; the hyperparameters become arrays in
    ``init``.

  Raises:
    ValueError: if ``static_args`` names a parameter ``inner_factory`` does
      not have, ``hyperparam_dtype`` is not a floating dtype, or a stateful
      schedule is given (use :func:`inject_stateful_hyperparams`).

  Examples:
    >>> import jax.numpy as jnp
    >>> import optax
    >>> params = {'w': jnp.zeros(2)}
    >>> opt = optax.inject_hyperparams(optax.sgd)(
    ...     learning_rate=optax.linear_schedule(0.1, 0.0, 10), momentum=0.9)
    >>> state = opt.init(params)
    >>> state.hyperparams['momentum']
    Array(0.9, dtype=float32)
    >>> updates, state = opt.update({'w': jnp.ones(2)}, state)
    >>> state.hyperparams['momentum'] = jnp.asarray(0.5)  # Between steps.

    One schedule per parameter group, built in a loop: bind the loop
    variable (``functools.partial`` or a default argument) so that each
    group keeps its own schedule -- a bare ``lambda step: base_lr[i]``
    would see only the last ``i``:

    >>> import functools
    >>> def group_schedule(step, peak):
    ...   return peak * jnp.minimum(1.0, (step + 1) / 10)
    >>> groups = {'w': 1e-2, 'b': 1e-3}
    >>> opt = optax.chain(*[
    ...     optax.masked(
    ...         optax.inject_hyperparams(optax.adam)(
    ...             learning_rate=functools.partial(group_schedule, peak=lr)),
    ...         {k: k == name for k in groups})
    ...     for name, lr in groups.items()])
  """
  sort_arguments = _make_injector(
      'inject_hyperparams', inner_factory, static_args, hyperparam_dtype,
      stateful=False)

  @functools.wraps(inner_factory)
  def wrapped_transform(
      *args, **kwargs
  ) -> base.GradientTransformationExtraArgs:
    sorted_args = sort_arguments(args, kwargs)

    def current_hyperparams(count, stored):
      dtype = _resolve_dtype(hyperparam_dtype)
      hparams = {}
      for name in sorted_args.order:
        if name in sorted_args.numeric:
          value = (sorted_args.numeric[name] if stored is None
                   else stored[name])
        else:
          value = sorted_args.schedules[name](count)
        hparams[name] = _as_hyperparameter(value, dtype)
      return hparams

    def build(hparams):
      return base.with_extra_args_support(inner_factory(
          *sorted_args.positional, **sorted_args.static, **hparams))

    def init_fn(params):
      count = jnp.zeros([], jnp.int32)
      hparams = current_hyperparams(count, None)
      return InjectHyperparamsState(
          count=count, hyperparams=hparams,
          inner_state=_own_buffers(build(hparams).init(params), hparams))

    def update_fn(updates, state, params=None, **extra_args):
      hparams = current_hyperparams(state.count, state.hyperparams)
      updates, inner_state = build(hparams).update(
          updates, state.inner_state, params, **extra_args)
      return updates, InjectHyperparamsState(
          count=numerics.safe_increment(state.count), hyperparams=hparams,
          inner_state=inner_state)

    return base.GradientTransformationExtraArgs(init_fn, update_fn)

  return wrapped_transform


def _own_buffers(inner_state: Any, hparams: Any) -> Any:
  """Copies the inner-state leaves that are hyperparameter arrays.

  An inner ``init`` may store a hyperparameter it was given as it is (e.g.
  an initial step size); the state would then hold one buffer twice and
  could not be donated to ``jax.jit``.

  Args:
    inner_state: the inner transformation's initial state.
    hparams: the hyperparameter arrays given to the inner factory.

  Returns:
    ``inner_state`` with such leaves replaced by copies.
  """
  shared = {id(h) for h in jax.tree.leaves(hparams)}
  return jax.tree.map(
      lambda x: jnp.array(x, copy=True) if id(x) in shared else x,
      inner_state)


def inject_stateful_hyperparams(
    inner_factory: Callable[..., base.GradientTransformation],
    static_args: Union[str, Iterable[str]] = (),
    hyperparam_dtype: Optional[jnp.dtype] = None,
) -> Callable[..., base.GradientTransformationExtraArgs]:
  """Like :func:`inject_hyperparams`, with stateful schedules allowed.

  A hyperparameter may be a :class:`~optax.StatefulSchedule` (an object with
  ``init()``, ``update(state, **extra_args)`` and ``__call__(state,
  **extra_args)``): at each update its value is computed from its current
  state and the update's extra arguments (``value=loss``, ...), then its
  state is advanced. Plain schedules are wrapped in :class:`WrappedSchedule`.
  The rules deciding which arguments are injected are those of
  :func:`inject_hyperparams`.

  Args:
    inner_factory: a function returning a GradientTransformation.
    static_args: the name, or names, of arguments to pass through untouched.
    hyperparam_dtype: the dtype of the injected floats; by default
      ``optax._src.numerics.hyperparameter_dtype()``.

  Returns:
    A function with the arguments of ``inner_factory`` that returns a
    ``GradientTransformationExtraArgs`` with an
    :class:`InjectStatefulHyperparamsState`.

  Raises:
    ValueError: if ``static_args`` names a parameter ``inner_factory`` does
      not have, or ``hyperparam_dtype`` is not a floating dtype.

  Examples:
    >>> import jax.numpy as jnp
    >>> import optax
    >>> from optax.schedules import WrappedSchedule
    >>> opt = optax.inject_stateful_hyperparams(optax.sgd)(
    ...     learning_rate=WrappedSchedule(optax.linear_schedule(0.1, 0.0, 4)))
    >>> state = opt.init({'w': jnp.zeros(2)})
    >>> _, state = opt.update({'w': jnp.ones(2)}, state)
    >>> _, state = opt.update({'w': jnp.ones(2)}, state)
    >>> state.hyperparams['learning_rate']
    Array(0.075, dtype=float32)
  """
  sort_arguments = _make_injector(
      'inject_stateful_hyperparams', inner_factory, static_args,
      hyperparam_dtype, stateful=True)

  @functools.wraps(inner_factory)
  def wrapped_transform(
      *args, **kwargs
  ) -> base.GradientTransformationExtraArgs:
    sorted_args = sort_arguments(args, kwargs)

    def current_hyperparams(stored, schedule_states, extra_args):
      dtype = _resolve_dtype(hyperparam_dtype)
      hparams = {}
      for name in sorted_args.order:
        if name in sorted_args.numeric:
          value = (sorted_args.numeric[name] if stored is None
                   else stored[name])
        else:
          value = sorted_args.schedules[name](
              schedule_states[name], **extra_args)
        hparams[name] = _as_hyperparameter(value, dtype)
      return hparams

    def build(hparams):
      return base.with_extra_args_support(inner_factory(
          *sorted_args.positional, **sorted_args.static, **hparams))

    def init_fn(params):
      count = jnp.zeros([], jnp.int32)
      schedule_states = {name: schedule.init()
                         for name, schedule in sorted_args.schedules.items()}
      hparams = current_hyperparams(None, schedule_states, {})
      return InjectStatefulHyperparamsState(
          count=count, hyperparams=hparams,
          hyperparams_states=schedule_states,
          inner_state=_own_buffers(build(hparams).init(params), hparams))

    def update_fn(updates, state, params=None, **extra_args):
      hparams = current_hyperparams(
          state.hyperparams, state.hyperparams_states, extra_args)
      schedule_states = {
          name: schedule.update(state.hyperparams_states[name], **extra_args)
          for name, schedule in sorted_args.schedules.items()}
      updates, inner_state = build(hparams).update(
          updates, state.inner_state, params, **extra_args)
      return updates, InjectStatefulHyperparamsState(
          count=numerics.safe_increment(state.count), hyperparams=hparams,
          hyperparams_states=schedule_states, inner_state=inner_state)

    return base.GradientTransformationExtraArgs(init_fn, update_fn)

  return wrapped_transform
