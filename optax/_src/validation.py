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
"""Checks of hyperparameters and update arguments, shared by every factory.

Each check looks only at values known when an optimizer is built: Python and
NumPy real numbers (see :func:`optax._src.hyperparameters.is_number`). Arrays,
tracers (``inject_hyperparams`` calls the factory again with traced values)
and schedules pass through unchecked. Every comparison is written so that NaN
fails it: ``not value >= 0`` rather than ``value < 0``.

Every number check also checks the argument's type, also for arrays and
tracers (their shapes are static): a string is never a number, and an
argument that scales the updates as one factor (``learning_rate``,
``max_learning_rate``) must be a scalar, a schedule or None. Such mistakes
raise TypeError, bad values ValueError.

The messages follow one pattern, ``'<function>: <argument> must be <what>,
got <value>'``, so that a user sees which call and which argument to fix.
The function named is the public call being built, when there is one (see
:func:`public_call` and :func:`optax._src.arguments.declare`): a check run
by ``scale_by_adam`` while ``adamw`` builds it names ``adamw``.

Within a public call each check runs once per value (see :func:`once`): an
alias that checks its ``eps`` and builds a transformation that checks the
same object again as ``epsilon`` runs the check once.
"""

from collections.abc import Callable
import contextvars
import functools
import numbers
from typing import Any, TypeVar

import jax.numpy as jnp
import numpy as np

from optax._src import hyperparameters


# Arguments that multiply every update as one factor: an array of another
# shape would broadcast against the updates (or fail deep inside the update).
_SCALAR_ARGUMENTS = frozenset({'learning_rate', 'max_learning_rate'})


# The public function being built (the outermost declared call), if any.
_PUBLIC_CALL: contextvars.ContextVar[str | None] = contextvars.ContextVar(
    'optax_public_call', default=None)

# The checks passed during that call, with the values they passed: a key is
# (check, id(value), options), and keeping the value alive keeps its id its
# own until the call returns (see once).
_PASSED: contextvars.ContextVar[dict[tuple[Any, ...], Any] | None] = (
    contextvars.ContextVar('optax_passed_checks', default=None))

# The checks that plain Python values passed, in any call: a check's outcome
# depends only on the value, its type and the options, so building the same
# optimizer again (``inject_hyperparams`` outside ``jit`` rebuilds it at each
# step) skips checks it already passed. Bounded: cleared when full.
_PASSED_PLAIN: dict[tuple[Any, ...], None] = {}
_PASSED_PLAIN_LIMIT = 4096
_PLAIN_TYPES = frozenset({bool, int, float, str, type(None)})

_Check = TypeVar('_Check', bound=Callable[..., None])


def _is_plain(value: Any) -> bool:
  """Whether ``value`` is a plain Python value (or a tuple of them)."""
  kind = type(value)
  if kind in _PLAIN_TYPES:
    return True
  return kind is tuple and all(map(_is_plain, value))


def _passed_before(key: tuple[Any, ...]) -> bool:
  return key in _PASSED_PLAIN


def _remember_passed(key: tuple[Any, ...]) -> None:
  if len(_PASSED_PLAIN) >= _PASSED_PLAIN_LIMIT:
    _PASSED_PLAIN.clear()
  _PASSED_PLAIN[key] = None


def _typed(value: Any) -> Any:
  """``value`` with its type, and its items' types for a tuple."""
  if type(value) is tuple:
    return tuple, tuple(map(_typed, value))
  return type(value), value


# Ends the positional part of a plain_call_key.
_KEYWORDS = object()


def plain_call_key(fn: Any, args: tuple[Any, ...],
                   kwargs: dict[str, Any]) -> tuple[Any, ...] | None:
  """The key of a call whose arguments are all plain Python values.

  Such a call's checks depend only on the values and their types (``1``,
  ``1.0`` and ``True`` are keyed apart), so a call with a key that passed
  its checks (:func:`call_passed`) needs not run them again. Keyword
  arguments are keyed in the order given: the same call with another order
  only runs its checks once more.

  Args:
    fn: the function called, or an object standing for it.
    args: its positional arguments.
    kwargs: its keyword arguments.

  Returns:
    A hashable key, or None where an argument is not a plain Python value
    (an array, a schedule, a mask: their checks run on every call).
  """
  key = [fn]
  for value in args:
    kind = type(value)
    if kind in _PLAIN_TYPES:
      key += (kind, value)
    elif kind is tuple and _is_plain(value):
      key.append(_typed(value))
    else:
      return None
  key.append(_KEYWORDS)
  for name, value in kwargs.items():
    kind = type(value)
    if kind in _PLAIN_TYPES:
      key += (name, kind, value)
    elif kind is tuple and _is_plain(value):
      key += (name, _typed(value))
    else:
      return None
  return tuple(key)


def call_passed(key: tuple[Any, ...]) -> bool:
  """Whether a call with this :func:`plain_call_key` passed its checks."""
  return key in _PASSED_PLAIN


def remember_call_passed(key: tuple[Any, ...]) -> None:
  """Records that a call with this :func:`plain_call_key` passed."""
  _remember_passed(key)


class public_call:  # pylint: disable=invalid-name
  """Makes ``fn`` the public call named by errors, unless one is already set.

  A context manager (a class rather than a generator: it is entered on every
  declared call, so it must cost little). Entering it gives the name errors
  raised inside use: the outermost public call's.

  Args:
    fn: the public function being built.

  Examples:
    >>> from optax._src import validation
    >>> with validation.public_call('adamw'):
    ...   try:
    ...     validation.check_decay('scale_by_adam', 'b1', 1.5)
    ...   except ValueError as e:
    ...     print(e)
    adamw: b1 must be in [0, 1), got 1.5
  """

  __slots__ = ('_fn', '_tokens')

  def __init__(self, fn: str):
    self._fn = fn
    self._tokens = None

  def __enter__(self) -> str:
    outer = _PUBLIC_CALL.get()
    if outer is not None:
      return outer
    self._tokens = (_PUBLIC_CALL.set(self._fn), _PASSED.set({}))
    return self._fn

  def __exit__(self, *exc_info: Any) -> None:
    if self._tokens is not None:
      public, passed = self._tokens
      _PASSED.reset(passed)
      _PUBLIC_CALL.reset(public)


def called(fn: str) -> str:
  """The function an error names: the public call being built, else ``fn``."""
  outer = _PUBLIC_CALL.get()
  return fn if outer is None else outer


def once(check: Callable[..., None], fn: str, name: str, value: Any,
         *options: Any) -> None:
  """Runs ``check(fn, name, value, *options)`` once per value in a call.

  Inside a public call (see :func:`public_call`), a check that the same
  object already passed with the same options is skipped: its outcome would
  be the same, whatever the argument's name (the one name that changes a
  check, a ``learning_rate``-like argument's type rule, is part of the key).
  Outside a public call the check always runs.

  Args:
    check: a check ``check(fn, name, value, *options)`` that raises for a bad
      value.
    fn: the function being built, for the message.
    name: the argument's name.
    value: the argument.
    *options: the check's other positional arguments (an interval's ends);
      hashable, or objects compared by identity.

  Examples:
    >>> from optax._src import validation
    >>> eps = 1e-8
    >>> with validation.public_call('adafactor'):
    ...   validation.once(validation.check_non_negative, 'adafactor', 'eps',
    ...                   eps)
    ...   # Skipped: the same object passed the same check.
    ...   validation.once(validation.check_non_negative, 'scale_by_rms',
    ...                   'epsilon', eps)
  """
  if type(value) in _PLAIN_TYPES and (not options or _is_plain(options)):
    plain_key = (check, type(value), value, name in _SCALAR_ARGUMENTS, options)
    if not _passed_before(plain_key):
      check(fn, name, value, *options)
      _remember_passed(plain_key)
    return
  passed = _PASSED.get()
  if passed is None:
    check(fn, name, value, *options)
    return
  key = (check, id(value), name in _SCALAR_ARGUMENTS,
         tuple(o if _hashable(o) else id(o) for o in options))
  if key not in passed:
    check(fn, name, value, *options)
    passed[key] = (value, options)  # Alive: their ids stay their own.


def _hashable(value: Any) -> bool:
  try:
    hash(value)
  except TypeError:
    return False
  return True


def _checked_once(check: _Check, *, by_name: bool = True) -> _Check:
  """``check`` as a check that runs once per value in a public call.

  Args:
    check: ``check(fn, name, value, ...)``.
    by_name: whether the check's outcome depends on whether ``name`` is a
      ``learning_rate``-like argument (see :func:`_check_type`).

  Returns:
    The check, keyed by its options with the defaults of its keyword-only
    ones filled in (``closed=False`` given or not is one check).
  """
  defaults = check.__kwdefaults__ or {}
  default_options = tuple(sorted(defaults.items()))

  @functools.wraps(check)
  def checked(fn: str, name: str, value: Any, *args: Any,
              **kwargs: Any) -> None:
    options = args + (tuple(sorted({**defaults, **kwargs}.items()))
                      if kwargs else default_options)
    by_name_key = by_name and name in _SCALAR_ARGUMENTS
    if type(value) in _PLAIN_TYPES and _is_plain(options):
      plain_key = (check, type(value), value, by_name_key, options)
      if not _passed_before(plain_key):
        check(fn, name, value, *args, **kwargs)
        _remember_passed(plain_key)
      return
    passed = _PASSED.get()
    if passed is None:
      check(fn, name, value, *args, **kwargs)
      return
    key = (check, id(value), by_name_key, options)
    if key not in passed:
      check(fn, name, value, *args, **kwargs)
      passed[key] = value

  return checked  # pytype: disable=bad-return-type


def _fail(fn: str, name: str, expected: str, value: Any) -> None:
  raise ValueError(f'{called(fn)}: {name} must be {expected}, got {value!r}')


def _describe(value: Any) -> str:
  """The type of ``value`` and its value or shape, for a TypeError."""
  if value is None:
    return 'None'
  shape = getattr(value, 'shape', None)
  if shape is not None and not isinstance(value, numbers.Number):
    return f'an array of shape {tuple(shape)}'
  return f'{type(value).__name__} {value!r}'


def check_scalar_or_schedule(fn: str, name: str, value: Any, *,
                             allow_none: bool = True) -> None:
  """Raises a TypeError unless ``value`` can be a scalar hyperparameter.

  Numbers, 0-d arrays (also traced ones: ``inject_hyperparams`` calls the
  factory again with its hyperparameters as arrays) and schedules (callables)
  pass, whatever their values.

  Args:
    fn: the public function being built, for the message (``'sgd'``).
    name: the argument's name (``'learning_rate'``).
    value: the argument.
    allow_none: whether None is accepted (e.g. ``adafactor``, whose step is
      not scaled without a learning rate).

  Raises:
    TypeError: for a string, an array that is not 0-d, a list or another
      object that is neither a number nor a schedule, and for None unless
      ``allow_none``.

  Examples:
    >>> from optax._src import validation
    >>> validation.check_scalar_or_schedule('sgd', 'learning_rate', 0.01)
    >>> validation.check_scalar_or_schedule(  # doctest: +ELLIPSIS
    ...     'sgd', 'learning_rate', '0.01')
    Traceback (most recent call last):
    ...
    TypeError: sgd: learning_rate must be a scalar number or a schedule, ...
  """
  if value is None:
    if not allow_none:
      raise TypeError(f'{called(fn)}: {name} must be a scalar number or a'
                      ' schedule, got None')
  else:
    _check_scalar_or_schedule(fn, name, value)


@functools.partial(_checked_once, by_name=False)
def _check_scalar_or_schedule(fn: str, name: str, value: Any) -> None:
  """:func:`check_scalar_or_schedule` for a value that is not None."""
  if callable(value) or isinstance(value, numbers.Number):
    return
  if not isinstance(value, (str, bytes)) and getattr(
      value, 'shape', None) == ():
    return
  raise TypeError(f'{called(fn)}: {name} must be a scalar number or a'
                  f' schedule, got {_describe(value)}')


def check_scalars_or_schedules(fn: str, /, *, allow_none: bool = False,
                               **values: Any) -> None:
  """Runs :func:`check_scalar_or_schedule` on each named hyperparameter.

  A vector where one number is expected (``b1=jnp.array([0.9, 0.9])``) would
  broadcast against the updates or fail inside ``update`` without naming the
  argument; a factory calls this once on its numeric hyperparameters, in the
  order of its signature, so that the first bad one is named.

  Args:
    fn: the public function being built, for the message (``'adamw'``).
    allow_none: whether None is accepted for every one of ``values``.
    **values: the hyperparameters, by argument name.

  Raises:
    TypeError: naming ``fn`` and the first argument that is neither a scalar
      nor a schedule (see :func:`check_scalar_or_schedule`).

  Examples:
    >>> import jax.numpy as jnp
    >>> from optax._src import validation
    >>> validation.check_scalars_or_schedules(
    ...     'scale_by_adam', b1=0.9, b2=jnp.asarray(0.999), eps=1e-8)
    >>> validation.check_scalars_or_schedules(  # doctest: +ELLIPSIS
    ...     'scale_by_adam', b1=0.9, eps=jnp.ones(3))
    Traceback (most recent call last):
    ...
    TypeError: scale_by_adam: eps must be a scalar number or a schedule, ...
  """
  for name, value in values.items():
    check_scalar_or_schedule(fn, name, value, allow_none=allow_none)


def _check_type(fn: str, name: str, value: Any) -> None:
  """The type check shared by the number checks (see the module docstring).

  A string gets the message of :func:`check_scalar_or_schedule`, whichever
  check of a function finds it first.
  """
  if name in _SCALAR_ARGUMENTS or isinstance(value, (str, bytes)):
    check_scalar_or_schedule(fn, name, value)


def check_learning_rate(fn: str, value: Any, *,
                        name: str = 'learning_rate',
                        allow_none: bool = False) -> None:
  """Raises unless ``value`` is a usable learning rate.

  A learning rate is a finite scalar number, a 0-d array or a schedule.

  Args:
    fn: the public function being built, for the message.
    value: the learning rate.
    name: the argument's name, for the message.
    allow_none: whether None (no scaling) is accepted.

  Raises:
    TypeError: for a string, a non-scalar array, another object or, unless
      ``allow_none``, None.
    ValueError: for a NaN or infinite number.

  Examples:
    >>> from optax._src import validation
    >>> validation.check_learning_rate('prodigy', 1.0)
    >>> try:
    ...   validation.check_learning_rate('prodigy', None)
    ... except TypeError as e:
    ...   print(e)
    prodigy: learning_rate must be a scalar number or a schedule, got None
  """
  check_scalar_or_schedule(fn, name, value, allow_none=allow_none)
  check_finite(fn, name, value)


@_checked_once
def check_non_negative(fn: str, name: str, value: Any) -> None:
  """Raises a ValueError if ``value`` is a number that is not ``>= 0``.

  Args:
    fn: the public function being built, for the message (``'adam'``).
    name: the argument's name (``'eps'``).
    value: the argument; only Python and NumPy numbers have their value
      checked, other values their type (see the module docstring).

  Raises:
    ValueError: for a negative number or NaN.
    TypeError: for a string, or a value that cannot be a scalar for
      ``learning_rate``-like arguments.

  Examples:
    >>> from optax._src import validation
    >>> validation.check_non_negative('adam', 'eps', 1e-8)
    >>> validation.check_non_negative('adam', 'eps', -1.0)
    Traceback (most recent call last):
    ...
    ValueError: adam: eps must be non-negative, got -1.0
  """
  _check_type(fn, name, value)
  if hyperparameters.is_number(value) and not value >= 0:
    _fail(fn, name, 'non-negative', value)


@_checked_once
def check_positive(fn: str, name: str, value: Any) -> None:
  """As :func:`check_non_negative`, for ``> 0``: zero fails too."""
  _check_type(fn, name, value)
  if hyperparameters.is_number(value) and not value > 0:
    _fail(fn, name, 'positive', value)


@_checked_once
def check_finite(fn: str, name: str, value: Any) -> None:
  """As :func:`check_non_negative`, for NaN, ``inf`` and ``-inf``."""
  _check_type(fn, name, value)
  if hyperparameters.is_number(value) and not np.isfinite(value):
    _fail(fn, name, 'finite', value)


@_checked_once
def check_decay(fn: str, name: str, value: Any, *,
                closed: bool = False) -> None:
  """Raises a ValueError if a decay rate is outside ``[0, 1)``.

  Args:
    fn: the public function being built, for the message.
    name: the argument's name (``'b1'``).
    value: the argument; only Python and NumPy numbers have their value
      checked, other values their type (see the module docstring).
    closed: accept 1 as well, i.e. check ``[0, 1]`` (a rate of 1 keeps the
      first value forever, which some methods allow).

  Raises:
    ValueError: for a number outside the interval, or NaN.
    TypeError: for a string, or a value that cannot be a scalar for
      ``learning_rate``-like arguments.

  Examples:
    >>> from optax._src import validation
    >>> validation.check_decay('adam', 'b1', 0.9)
    >>> validation.check_decay('adam', 'b1', 1.0)
    Traceback (most recent call last):
    ...
    ValueError: adam: b1 must be in [0, 1), got 1.0
  """
  _check_type(fn, name, value)
  if not hyperparameters.is_number(value):
    return
  if closed and not 0 <= value <= 1:
    _fail(fn, name, 'in [0, 1]', value)
  if not closed and not 0 <= value < 1:
    _fail(fn, name, 'in [0, 1)', value)


@functools.partial(_checked_once, by_name=False)
def check_non_negative_int(fn: str, name: str, value: Any) -> None:
  """Raises a ValueError unless ``value`` is a whole number ``>= 0``.

  Python and NumPy integers pass when non-negative; bools, floats and
  anything else that is not an integer are rejected.

  Args:
    fn: the public function being built, for the message.
    name: the argument's name (``'every_k_schedule'``).
    value: the argument.

  Raises:
    ValueError: for a negative integer or a value that is not an integer.
  """
  if not hyperparameters.is_number(value, integral=True) or value < 0:
    _fail(fn, name, 'a non-negative integer', value)


@_checked_once
def check_in_interval(fn: str, name: str, value: Any, low: float,
                      high: float, *, include_low: bool = True,
                      include_high: bool = True, hint: str = '') -> None:
  """Raises a ValueError if ``value`` is a number outside an interval.

  For the intervals that :func:`check_decay` does not cover, such as
  ``(0, 1)`` for a shrinking factor or ``(0, 1]`` for an averaging weight.

  Args:
    fn: the public function being built, for the message.
    name: the argument's name.
    value: the argument; only Python and NumPy numbers have their value
      checked, other values their type (see the module docstring).
    low: the lower end of the interval.
    high: the upper end of the interval.
    include_low: whether ``low`` itself is accepted.
    include_high: whether ``high`` itself is accepted.
    hint: optional explanation appended to the message (why an end is
      excluded, or what to do instead).

  Raises:
    ValueError: for NaN, or a number below ``low`` or above ``high`` (or
      equal to an end left out), the hint appended.
    TypeError: as :func:`check_non_negative`.

  Examples:
    >>> from optax._src import validation
    >>> validation.check_in_interval('f', 'factor', 0.5, 0, 1,
    ...                              include_low=False, include_high=False)
    >>> validation.check_in_interval('f', 'factor', 1.0, 0, 1,
    ...                              include_low=False, include_high=False)
    Traceback (most recent call last):
    ...
    ValueError: f: factor must be in (0, 1), got 1.0
  """
  _check_type(fn, name, value)
  if not hyperparameters.is_number(value):
    return
  above = value >= low if include_low else value > low
  below = value <= high if include_high else value < high
  if above and below:
    return
  interval = (f"{'[' if include_low else '('}{low}, {high}"
              f"{']' if include_high else ')'}")
  reason = f'; {hint}' if hint else ''
  raise ValueError(
      f'{called(fn)}: {name} must be in {interval}, got {value!r}{reason}')


@functools.partial(_checked_once, by_name=False)
def check_positive_int(fn: str, name: str, value: Any) -> None:
  """As :func:`check_non_negative_int`, for ``>= 1`` (sizes, periods)."""
  if not hyperparameters.is_number(value, integral=True) or value < 1:
    _fail(fn, name, 'a positive integer', value)


def check_floating_dtype(fn: str, name: str, x: Any) -> None:
  """Raises a TypeError unless the array ``x`` has a real floating dtype.

  Examples:
    >>> import jax.numpy as jnp
    >>> from optax._src import validation
    >>> validation.check_floating_dtype(  # doctest: +ELLIPSIS
    ...     'l2_loss', 'predictions', jnp.arange(3))
    Traceback (most recent call last):
    ...
    TypeError: l2_loss: predictions must have a floating dtype, got int32. ...

  Args:
    fn: the public function called, for the message.
    name: the argument's name.
    x: an array (anything with a ``dtype``).

  Raises:
    TypeError: for an integer, boolean or complex dtype.
  """
  if not jnp.issubdtype(x.dtype, jnp.floating):
    raise TypeError(
        f'{fn}: {name} must have a floating dtype, got {x.dtype}.'
        f' Cast it first, e.g. {name}.astype(jnp.float32).')


def check_same_shape(fn: str, name_a: str, a: Any, name_b: str,
                     b: Any) -> None:
  """Raises a ValueError unless ``a`` and ``b`` have the same shape.

  For arguments combined elementwise where broadcasting would hide a
  mistake (predictions against targets).

  Examples:
    >>> import jax.numpy as jnp
    >>> from optax._src import validation
    >>> validation.check_same_shape(  # doctest: +ELLIPSIS
    ...     'f', 'predictions', jnp.zeros(3), 'targets', jnp.zeros((3, 1)))
    Traceback (most recent call last):
    ...
    ValueError: f: Shape mismatch: predictions has shape (3,) but ...

  Args:
    fn: the public function called, for the message.
    name_a: the first argument's name.
    a: the first array.
    name_b: the second argument's name.
    b: the second array.

  Raises:
    ValueError: when the shapes differ.
  """
  if a.shape != b.shape:
    raise ValueError(
        f'{fn}: Shape mismatch: {name_a} has shape {a.shape} but'
        f' {name_b} has shape {b.shape}; they must be equal (no'
        ' broadcasting).')


def missing_params_error(fn: str, why: str = '',
                         call: str = 'tx.update(updates, state, params)'
                         ) -> ValueError:
  """The error for an update that needs ``params`` and was given ``None``.

  Args:
    fn: the public function whose update was called.
    why: optional reason the params are needed (``'the Hessian is taken at
      the params'``).
    call: the call that fixes it, shown as the remedy.

  Returns:
    A ValueError to raise.

  Examples:
    >>> from optax._src import validation
    >>> err = validation.missing_params_error('dog')
    >>> for sentence in str(err).split('. '):
    ...   print(sentence)
    dog: params must be given to update (got None)
    Remedy: call tx.update(updates, state, params).
  """
  reason = f'; {why}' if why else ''
  return ValueError(
      f'{fn}: params must be given to update (got None){reason}. Remedy:'
      f' call {call}.')


def require_params(fn: str, params: Any, why: str = '',
                   call: str = 'tx.update(updates, state, params)') -> None:
  """Raises :func:`missing_params_error` when ``params`` is None.

  Args:
    fn: the public function whose update was called.
    params: the ``params`` argument received by the update.
    why: optional reason the params are needed.
    call: the call that fixes it, shown as the remedy.

  Raises:
    ValueError: when ``params`` is None.
  """
  if params is None:
    raise missing_params_error(fn, why, call)
