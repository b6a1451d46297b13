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
so that its hyperparameters live in the optimizer state, an
:class:`InjectStatefulHyperparamsState`: they can be read and overwritten
between steps, also under ``jax.jit``, and schedules are evaluated once per
step. The state has the classes, fields, key paths, shapes and dtypes of
upstream Optax 0.2.8's, so checkpoints move between the two.

What is injected is decided by the value given for each argument of the
factory (after ``inspect.Signature.bind`` with the defaults applied), and,
where the value alone does not settle it, by the parameter's default and
then by its annotation (as a typing object; an annotation missing, ``Any``
or not evaluable counts as unknown). Names never matter. In order:

1. Names in ``static_args``, bools, ``None``, strings, types and dtypes
   (``mu_dtype=jnp.bfloat16``, ``dtype_momentum=jnp.float32``), trees,
   tuples and ``GradientTransformation`` objects are static: passed to the
   factory untouched and not listed in ``state.hyperparams``.
2. A floating number (Python or NumPy scalar) or a floating array (JAX or
   NumPy) is injected: ``state.hyperparams`` holds it as a scalar (or array)
   of ``hyperparam_dtype``, by default float32 (float64 under x64). A JAX
   array of a non-weak floating dtype (``jnp.asarray(0.9, jnp.bfloat16)``)
   keeps its dtype. The factory receives the array from the state.
3. An integer (Python or NumPy scalar) is injected as a float like 2. when
   the parameter is floating: its default is a float, or it has no number
   as default and its annotation admits a float (``float``,
   ``ScalarOrSchedule``, ``ArrayLike``, ...). Otherwise it is an integer
   parameter (``min_dim_size_to_factor: int = 128``, ``ns_steps = 5``,
   ``seed: int``, or unknown): the factory receives the Python integer, so it
   can set shapes and Python control flow under jit, and
   ``state.hyperparams`` lists it as an integer scalar (int32, int64 under
   x64), as upstream does, for information only: overwriting it has no
   effect, and each update writes the given value back.
4. Any other array (integer, boolean, a PRNG key) is injected as it is.
5. A callable (other than a type) is a schedule only when the parameter
   could take a number instead: its default is a number, or its default is
   not a bool or a string and its annotation admits a float (``float``,
   ``ScalarOrSchedule``, ...) or is unknown. So a ``mask`` function
   (annotated ``MaskOrFn``), ``clip_value_fn`` (``Callable[[Array],
   Array]``) or the ``step_size_fn`` of ``scale_by_schedule`` (``Schedule``:
   the transformation calls it itself) is static. A stateful schedule (an
   object with ``init``, ``update`` and ``__call__``, see
   :class:`~optax.StatefulSchedule`) is used as it is; a plain schedule (a
   function of the step count) is wrapped in :class:`WrappedSchedule`.
   ``state.hyperparams_states`` holds the state of each schedule and
   ``state.hyperparams`` the value the last update used: a floating value
   in ``hyperparam_dtype`` (float32 by default), whatever dtype the schedule
   computed it in; an integer value keeps its dtype.
6. Anything else is static.

Differences from upstream Optax 0.2.8, fixes of upstream bugs:

* Upstream treats every callable as a schedule (#1373): a weight-decay
  ``mask`` function, ``dtype_momentum=jnp.float32`` (adafactor) or
  ``clip_value_fn`` (adopt) is evaluated on the step count and listed in
  ``state.hyperparams``, with a ``WrappedScheduleState``.
* Upstream traces integer hyperparameters (#1686, #1730): adafactor, lbfgs
  and galore fail under jit. The fork lists them with upstream's dtype.
* Upstream stores Python-number hyperparameters in the params' dtype
  (#1414): with bfloat16 params ``b2=0.999`` becomes 1.0. The fork uses
  float32 (float64 under x64) whatever the params.

Smaller differences: upstream stores an integer given for a floating
hyperparameter (``learning_rate=1``) as int32, so that writing 0.5 into the
state changes its dtype; and it leaves NumPy scalars other than
``np.float64`` (``np.float32(0.1)``) out of the state.
"""

import functools
import inspect
import numbers
import types
import typing
import warnings
from collections.abc import Callable, Iterable
from typing import Any, NamedTuple, Optional, Union

import jax
import jax.numpy as jnp
import numpy as np

from optax._src import base
from optax._src import dtypes
from optax._src import hyperparameters
from optax._src import numerics


class InjectHyperparamsState(NamedTuple):
  """The state of :func:`inject_hyperparams` before Optax 0.1.9.

  Kept so that code naming it still imports; :func:`inject_hyperparams` now
  returns an :class:`InjectStatefulHyperparamsState`, as upstream does.

  Attributes:
    count: the number of updates done so far, an int32 scalar.
    hyperparams: a dict from hyperparameter name to its current value.
    inner_state: the state of the wrapped transformation.
  """

  count: jax.Array
  hyperparams: dict[str, jax.Array]
  inner_state: base.OptState


class InjectStatefulHyperparamsState(NamedTuple):
  """The state of a transformation built by :func:`inject_hyperparams`.

  Attributes:
    count: the number of updates done so far, an int32 scalar.
    hyperparams: a dict from hyperparameter name to the value the last
      update used (at ``init``, the value the first update will use): scalar
      arrays of the hyperparameter dtype (float32, float64 under x64, unless
      ``hyperparam_dtype`` or the dtype of a given array says otherwise),
      integer scalars for integer hyperparameters.
    hyperparams_states: a dict from the name of each scheduled
      hyperparameter to the state of its schedule (a
      :class:`WrappedScheduleState` for a plain schedule).
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
# Sorting the arguments of the inner factory (the rules of the module
# docstring).

# How an argument is handled.
_FLOAT = 'float'            # Injected, of a floating dtype.
_ARRAY = 'array'            # A non-floating array, injected as it is.
_LISTED_INT = 'listed_int'  # A static Python integer, listed in the state.
_SCHEDULE = 'schedule'      # A (stateful) schedule.
_STATIC = 'static'          # Passed through, not listed.


def _union_members(annotation: Any) -> list[Any]:
  """The top-level members of a (possibly nested / Optional) union."""
  origin = typing.get_origin(annotation)
  if origin is Union or origin is types.UnionType:
    members = []
    for arg in typing.get_args(annotation):
      members.extend(_union_members(arg))
    return members
  return [annotation]


def _admits_numbers(annotation: Any) -> Optional[bool]:
  """Whether an annotation admits a float; None if it is unknown."""
  if (annotation is inspect.Parameter.empty or annotation is Any
      or isinstance(annotation, str)):
    return None
  return any(
      isinstance(member, type) and issubclass(member, (float, complex))
      for member in _union_members(annotation))


def _is_integer_parameter(default: Any, annotation: Any) -> bool:
  """Whether an integer given for this parameter stays a Python integer."""
  if hyperparameters.is_number(default, allow_complex=True):
    return isinstance(default, numbers.Integral)
  return not _admits_numbers(annotation)


def _may_be_scheduled(default: Any, annotation: Any) -> bool:
  """Whether a callable given for this parameter is a schedule."""
  if hyperparameters.is_number(default, allow_complex=True):
    return True
  if isinstance(default, (bool, np.bool_, str)):
    return False
  admits = _admits_numbers(annotation)
  return admits is None or admits


def _is_stateful_schedule(value: Any) -> bool:
  return (callable(value) and callable(getattr(value, 'init', None))
          and callable(getattr(value, 'update', None)))


def _sort(value: Any, default: Any, annotation: Any) -> str:
  """How one argument of the factory is handled (see the module docstring)."""
  if value is None or isinstance(
      value, (bool, np.bool_, str, bytes, type, np.dtype,
              base.GradientTransformation)):
    return _STATIC
  if isinstance(value, (jax.Array, np.ndarray)):
    return _FLOAT if jnp.issubdtype(value.dtype, jnp.inexact) else _ARRAY
  if hyperparameters.is_number(value, allow_complex=True):
    if isinstance(value, numbers.Integral) and _is_integer_parameter(
        default, annotation):
      return _LISTED_INT
    return _FLOAT
  if callable(value) and _may_be_scheduled(default, annotation):
    return _SCHEDULE
  return _STATIC


def _hyperparameter_dtype(value: Any,
                          hyperparam_dtype: Optional[jnp.dtype]) -> Any:
  """``hyperparam_dtype`` or the default one, complex if ``value`` is."""
  if hyperparam_dtype is None:
    dtype = hyperparameters.hyperparameter_dtype()
  else:
    dtype = jax.dtypes.canonicalize_dtype(hyperparam_dtype)
  if jnp.iscomplexobj(value):
    dtype = dtypes.promote_dtypes(dtype, jnp.result_type(complex))
  return dtype


def _float_dtype(value: Any, hyperparam_dtype: Optional[jnp.dtype]) -> Any:
  """The dtype of an injected floating value (rule 2 of the docstring)."""
  if (isinstance(value, jax.Array) and not getattr(value, 'weak_type', False)
      and jnp.issubdtype(value.dtype, jnp.inexact)):
    return value.dtype
  return _hyperparameter_dtype(value, hyperparam_dtype)


def _as_float(value: Any, hyperparam_dtype: Optional[jnp.dtype]) -> jax.Array:
  """An injected floating value, in a buffer of its own."""
  return jnp.array(value, dtype=_float_dtype(value, hyperparam_dtype),
                   copy=True)


def _as_integer(value: Any) -> jax.Array:
  """An integer as a (non-weakly typed) array of the canonical int dtype."""
  return jnp.asarray(value, jnp.result_type(value))


def _schedule_value(value: Any, hyperparam_dtype: Optional[jnp.dtype]
                    ) -> jax.Array:
  """The value of a schedule as held in the state.

  A floating value gets the hyperparameter dtype, whatever dtype the
  schedule computed it in; an integer value keeps its dtype.

  Args:
    value: what the schedule returned.
    hyperparam_dtype: the dtype asked for, or None for the default.

  Returns:
    The value as an array.
  """
  if jnp.issubdtype(jnp.result_type(value), jnp.inexact):
    return jnp.asarray(value, _hyperparameter_dtype(value, hyperparam_dtype))
  return _as_integer(value)


def _signature(fn: Callable[..., Any]) -> inspect.Signature:
  """The signature of ``fn``, with string annotations evaluated if possible."""
  try:
    return inspect.signature(fn, eval_str=True)
  except Exception:  # pylint: disable=broad-exception-caught
    # Names only importable under TYPE_CHECKING: keep the strings, which
    # count as unknown annotations.
    return inspect.signature(fn)


class _Arguments(NamedTuple):
  """The arguments of one call of the factory, sorted."""

  positional: tuple[Any, ...]
  static: dict[str, Any]
  # Name -> (how it is handled, the value; a StatefulSchedule for
  # schedules), in the order of the signature.
  injected: dict[str, tuple[str, Any]]


def _check_with_factory(inner_factory: Callable[..., Any],
                        arguments: _Arguments) -> None:
  """Calls the factory once as a plain call would, so that it checks them.

  Later calls (in ``init`` and ``update``) give the factory arrays, often
  traced, whose values it cannot check: a NaN learning rate would build.
  Here it gets the numbers and arrays as given, so it raises what the
  plain factory raises for them, when the optimizer is built. A schedule,
  whose value is only known in ``init``, is replaced by a 0-d NumPy float,
  as the factory gets a 0-d array in its place then (so a factory that
  takes no schedule, such as ``optimistic_adam``, is not given one).

  Args:
    inner_factory: the wrapped factory.
    arguments: the sorted arguments of this call.

  Raises:
    What the factory raises for these arguments (ValueError or TypeError,
    typically).
  """
  given = {name: np.zeros((), np.float32) if how == _SCHEDULE else value
           for name, (how, value) in arguments.injected.items()}
  with warnings.catch_warnings():
    # A deprecated factory warns in init, as it did before this call.
    warnings.simplefilter('ignore')
    inner_factory(*arguments.positional, **arguments.static, **given)


def _inject(
    fn_name: str,
    inner_factory: Callable[..., base.GradientTransformation],
    static_args: Union[str, Iterable[str]],
    hyperparam_dtype: Optional[jnp.dtype],
) -> Callable[..., base.GradientTransformationExtraArgs]:
  """The wrapper of inject_hyperparams and inject_stateful_hyperparams."""
  if isinstance(static_args, str):
    static_names = frozenset([static_args])
  else:
    static_names = frozenset(static_args)
  signature = _signature(inner_factory)
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

  def sort_arguments(args, kwargs) -> _Arguments:
    bound = signature.bind(*args, **kwargs)
    bound.apply_defaults()
    positional, named = [], {}
    for name, value in bound.arguments.items():
      kind = params[name].kind
      if kind is inspect.Parameter.POSITIONAL_ONLY:
        positional.append(value)
      elif kind is inspect.Parameter.VAR_POSITIONAL:
        positional.extend(value)
      elif kind is inspect.Parameter.VAR_KEYWORD:
        named.update(value)
      else:
        named[name] = value
    static, injected = {}, {}
    for name, value in named.items():
      param = params.get(name)
      default = inspect.Parameter.empty if param is None else param.default
      annotation = (inspect.Parameter.empty if param is None
                    else param.annotation)
      how = (_STATIC if name in static_names
             else _sort(value, default, annotation))
      if how == _STATIC:
        static[name] = value
      elif how == _SCHEDULE and not _is_stateful_schedule(value):
        injected[name] = (how, WrappedSchedule(value))
      else:
        injected[name] = (how, value)
    return _Arguments(tuple(positional), static, injected)

  @functools.wraps(inner_factory)
  def wrapped_transform(
      *args, **kwargs
  ) -> base.GradientTransformationExtraArgs:
    arguments = sort_arguments(args, kwargs)
    _check_with_factory(inner_factory, arguments)
    schedules = {name: value for name, (how, value)
                 in arguments.injected.items() if how == _SCHEDULE}

    def current(stored, schedule_states, extra_args):
      """The hyperparameters listed in the state and those of the factory.

      Args:
        stored: ``state.hyperparams``, or None at ``init``.
        schedule_states: the state of each schedule.
        extra_args: the extra arguments of the update.

      Returns:
        The dict for ``state.hyperparams`` and the keyword arguments of the
        factory.
      """
      listed, for_factory = {}, {}
      for name, (how, value) in arguments.injected.items():
        if how == _SCHEDULE:
          listed[name] = _schedule_value(
              value(schedule_states[name], **extra_args), hyperparam_dtype)
        elif how == _LISTED_INT:
          listed[name] = _as_integer(value)
        elif how == _ARRAY:
          listed[name] = (jnp.array(value, copy=True) if stored is None
                          else stored[name])
        elif stored is None:
          listed[name] = _as_float(value, hyperparam_dtype)
        else:
          # Whatever was written into the state keeps the dtype of init.
          listed[name] = jnp.asarray(stored[name],
                                     _float_dtype(value, hyperparam_dtype))
        for_factory[name] = value if how == _LISTED_INT else listed[name]
      return listed, for_factory

    def build(for_factory):
      return base.with_extra_args_support(inner_factory(
          *arguments.positional, **arguments.static, **for_factory))

    def init_fn(params):
      schedule_states = {name: schedule.init()
                         for name, schedule in schedules.items()}
      listed, for_factory = current(None, schedule_states, {})
      return InjectStatefulHyperparamsState(
          count=jnp.zeros([], jnp.int32), hyperparams=listed,
          hyperparams_states=schedule_states,
          inner_state=_own_buffers(build(for_factory).init(params), listed))

    def update_fn(updates, state, params=None, **extra_args):
      listed, for_factory = current(
          state.hyperparams, state.hyperparams_states, extra_args)
      schedule_states = {
          name: schedule.update(state.hyperparams_states[name], **extra_args)
          for name, schedule in schedules.items()}
      updates, inner_state = build(for_factory).update(
          updates, state.inner_state, params, **extra_args)
      return updates, InjectStatefulHyperparamsState(
          count=numerics.safe_increment(state.count), hyperparams=listed,
          hyperparams_states=schedule_states, inner_state=inner_state)

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


def inject_hyperparams(
    inner_factory: Callable[..., base.GradientTransformation],
    static_args: Union[str, Iterable[str]] = (),
    hyperparam_dtype: Optional[jnp.dtype] = None,
) -> Callable[..., base.GradientTransformationExtraArgs]:
  """Makes the hyperparameters of an optimizer part of its state.

  ``inject_hyperparams(optax.adam)`` takes the arguments of ``optax.adam``;
  calling it gives a transformation whose state is an
  :class:`InjectStatefulHyperparamsState`. ``state.hyperparams`` holds the
  value of every injected hyperparameter (those left at their default
  included), so it can be logged, or changed between steps, also under
  ``jax.jit``::

    state.hyperparams['learning_rate'] = 1e-4

  A hyperparameter may be given as a schedule, a function of the step count
  (``optax.linear_schedule(...)``), or as a stateful schedule (an object
  with ``init()``, ``update(state, **extra_args)`` and ``__call__(state,
  **extra_args)``, see :class:`~optax.StatefulSchedule`) whose value may
  depend on the extra arguments of ``update`` (``value=loss``, ...). At each
  update the schedule's value is computed from its state in
  ``state.hyperparams_states``, then its state is advanced;
  ``state.hyperparams`` shows the value the update used. Overwriting a
  scheduled value in ``state.hyperparams`` has no effect.

  Which arguments are injected is decided by the value given, then by the
  parameter's default and annotation (never its name); the rules are in the
  docstring of :mod:`optax.schedules._inject`. In short: floating numbers
  and arrays are injected in ``hyperparam_dtype`` (float32 by default, not
  the params' dtype); integers given for integer parameters
  (``min_dim_size_to_factor``, ``ns_steps``, ``memory_size``) stay Python
  integers for the factory and are listed in the state for information;
  callables are schedules only for parameters that can take a number, so a
  weight-decay ``mask`` function or a dtype passes through.

  The injected optimizer gives the updates of the plain one: eagerly bit for
  bit; under ``jax.jit`` XLA may compile the two programs slightly
  differently, and each step's updates agree to a few ulps.

  Args:
    inner_factory: a function returning a GradientTransformation, such as
      ``optax.adam``.
    static_args: the name, or names, of arguments to pass to
      ``inner_factory`` untouched, whatever their value (for example a
      callable that is not a schedule, for a parameter without annotation).
    hyperparam_dtype: the dtype of the injected floats; by default
      ``optax._src.hyperparameters.hyperparameter_dtype()`` (float32, float64
      under x64). A JAX array of a floating (non-weak) dtype keeps its dtype.

  Returns:
    A function with the arguments of ``inner_factory`` that returns a
    ``GradientTransformationExtraArgs`` with an
    :class:`InjectStatefulHyperparamsState`. Building it creates no JAX
    array; the hyperparameters become arrays in ``init``.

  Raises:
    ValueError: if ``static_args`` names a parameter ``inner_factory`` does
      not have, or ``hyperparam_dtype`` is not a floating dtype.

  Examples:
    >>> import jax.numpy as jnp
    >>> import optax
    >>> params = {'w': jnp.zeros(2)}
    >>> opt = optax.inject_hyperparams(optax.sgd)(
    ...     learning_rate=optax.linear_schedule(0.1, 0.0, 10), momentum=0.9)
    >>> state = opt.init(params)
    >>> state.hyperparams['momentum']
    Array(0.9, dtype=float32)
    >>> state.hyperparams_states['learning_rate']
    WrappedScheduleState(count=Array(0, dtype=int32))
    >>> updates, state = opt.update({'w': jnp.ones(2)}, state)
    >>> state.hyperparams['momentum'] = jnp.asarray(0.5)  # Between steps.

    Integer hyperparameters are listed but stay static:

    >>> state = optax.inject_hyperparams(optax.adafactor)(
    ...     learning_rate=0.1).init(params)
    >>> state.hyperparams['min_dim_size_to_factor']
    Array(128, dtype=int32)

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
  return _inject('inject_hyperparams', inner_factory, static_args,
                 hyperparam_dtype)


def inject_stateful_hyperparams(
    inner_factory: Callable[..., base.GradientTransformation],
    static_args: Union[str, Iterable[str]] = (),
    hyperparam_dtype: Optional[jnp.dtype] = None,
) -> Callable[..., base.GradientTransformationExtraArgs]:
  """Deprecated: :func:`inject_hyperparams` takes stateful schedules too.

  Emits a ``DeprecationWarning`` and returns
  ``inject_hyperparams(inner_factory, static_args, hyperparam_dtype)``.

  Args:
    inner_factory: a function returning a GradientTransformation.
    static_args: the name, or names, of arguments to pass through untouched.
    hyperparam_dtype: the dtype of the injected floats.

  Returns:
    What :func:`inject_hyperparams` returns.

  Raises:
    ValueError: as :func:`inject_hyperparams`.
  """
  warnings.warn(
      'inject_stateful_hyperparams is deprecated, use inject_hyperparams'
      ' instead',
      DeprecationWarning, stacklevel=2)
  return _inject('inject_stateful_hyperparams', inner_factory, static_args,
                 hyperparam_dtype)
