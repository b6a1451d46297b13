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
"""The arguments of public functions: their rules, declared once per function.

A public factory states the rule of each hyperparameter in one decorator,
:func:`declare`; the rules are checked when the factory is called (build
time), before its body runs::

  @arguments.declare(learning_rate=arguments.learning_rate,
                     weight_decay=arguments.finite)
  def adamw(learning_rate, b1=0.9, ..., weight_decay=1e-4, ...):
    return chain(scale_by_adam(b1=b1, ...),  # checks b1, b2, eps, eps_root
                 add_decayed_weights(weight_decay, mask),
                 scale_by_learning_rate(learning_rate))

Every error names the function the user called. While a declared function
is being built, it is the *public call*; declared functions and checks of
:mod:`optax._src.validation` run inside it name it instead of themselves,
so ``optax.adamw(b1=1.5)`` says ``adamw: b1 must be in [0, 1), got 1.5``
although ``scale_by_adam`` checks ``b1``. An alias therefore declares only
the arguments that no transformation it builds checks, or that it passes on
under another name (``signum``'s ``beta`` is ``ema``'s ``decay``: the error
names ``beta``). Within a public call a rule, and each check of
:mod:`optax._src.validation`, runs once per value
(:func:`optax._src.validation.once`): a transformation built inside skips
what its caller's declaration already checked on the same object, whether
it declares the rule or checks it by hand, so no rule is checked twice for
one call.

A rule is a function ``rule(fn, name, value)`` that raises for a bad value
(see :mod:`optax._src.validation` for what each checks: Python and NumPy
numbers their value, arrays, tracers and schedules only their type). A
tuple of rules checks each in turn. A rule that depends on other arguments
(an interval that a flag widens, an order between two bounds) is made by
:func:`given`.
"""

from collections.abc import Callable
import functools
import inspect
from typing import Any, TypeVar, Union

import jax

from optax._src import hyperparameters
from optax._src import validation


Rule = Callable[[str, str, Any], None]
_F = TypeVar('_F', bound=Callable[..., Any])


def scalar_or_schedule(fn: str, name: str, value: Any) -> None:
  """A number, a 0-d array or a schedule (None rejected): TypeError."""
  validation.check_scalar_or_schedule(fn, name, value, allow_none=False)


def scalar_schedule_or_none(fn: str, name: str, value: Any) -> None:
  """A number, a 0-d array, a schedule or None: TypeError otherwise."""
  validation.check_scalar_or_schedule(fn, name, value, allow_none=True)


def learning_rate(fn: str, name: str, value: Any) -> None:
  """A finite scalar, a schedule or None (no scaling)."""
  validation.check_learning_rate(fn, value, name=name, allow_none=True)


def required_learning_rate(fn: str, name: str, value: Any) -> None:
  """A finite scalar or a schedule; None rejected."""
  validation.check_learning_rate(fn, value, name=name, allow_none=False)


def finite(fn: str, name: str, value: Any) -> None:
  """Not NaN or infinite (for a number)."""
  validation.check_finite(fn, name, value)


def non_negative(fn: str, name: str, value: Any) -> None:
  """``>= 0`` (for a number)."""
  validation.check_non_negative(fn, name, value)


def positive(fn: str, name: str, value: Any) -> None:
  """``> 0`` (for a number)."""
  validation.check_positive(fn, name, value)


def decay(fn: str, name: str, value: Any) -> None:
  """In ``[0, 1)`` (for a number)."""
  validation.check_decay(fn, name, value)


def closed_decay(fn: str, name: str, value: Any) -> None:
  """In ``[0, 1]`` (for a number)."""
  validation.check_decay(fn, name, value, closed=True)


def positive_int(fn: str, name: str, value: Any) -> None:
  """A Python or NumPy integer ``>= 1`` (bools rejected)."""
  validation.check_positive_int(fn, name, value)


def positive_int_or_array(fn: str, name: str, value: Any) -> None:
  """A positive integer (as :func:`positive_int`), or a JAX array.

  For a count that the update may also take as an array (``lookahead``'s
  ``sync_period``): arrays and tracers pass; a Python or NumPy number must
  be a positive integer (ValueError); anything else, a bool included, is a
  TypeError.
  """
  if isinstance(value, jax.Array):
    return
  if hyperparameters.is_number(value):
    validation.check_positive_int(fn, name, value)
    return
  got = 'None' if value is None else f'{type(value).__name__} {value!r}'
  raise TypeError(
      f'{validation.called(fn)}: {name} must be a positive integer, got {got}')


def non_negative_int(fn: str, name: str, value: Any) -> None:
  """A Python or NumPy integer ``>= 0`` (bools rejected)."""
  validation.check_non_negative_int(fn, name, value)


# A value rule with the type rule of a scalar hyperparameter (a number, a
# 0-d array or a schedule; None rejected), as most factories declare them.
decay_scalar = (decay, scalar_or_schedule)
closed_decay_scalar = (closed_decay, scalar_or_schedule)
non_negative_scalar = (non_negative, scalar_or_schedule)
positive_scalar = (positive, scalar_or_schedule)
finite_scalar = (finite, scalar_or_schedule)


def in_interval(low: float, high: float, *, include_low: bool = True,
                include_high: bool = True, hint: str = '') -> Rule:
  """The rule "in this interval" (for a number).

  Args:
    low: the lower end.
    high: the upper end.
    include_low: whether ``low`` itself is accepted.
    include_high: whether ``high`` itself is accepted.
    hint: an explanation appended to the message.

  Returns:
    A rule for :func:`declare`.
  """
  return functools.partial(
      _check_in_interval, low=low, high=high, include_low=include_low,
      include_high=include_high, hint=hint)


def at_least(low: float) -> Rule:
  """The rule "``>= low``" (for a number; NaN fails it).

  Args:
    low: the smallest value accepted.

  Returns:
    A rule for :func:`declare`.
  """
  return functools.partial(_check_at_least, low=low)


def _check_at_least(fn: str, name: str, value: Any, *, low: float) -> None:
  if hyperparameters.is_number(value) and not value >= low:
    raise ValueError(
        f'{validation.called(fn)}: {name} must be >= {low}, got {value!r}')


def one_of(*choices: Any) -> Rule:
  """The rule "one of these values" (compared with ``==``).

  Args:
    *choices: the values accepted.

  Returns:
    A rule for :func:`declare`.
  """
  return functools.partial(_check_one_of, choices=choices)


def _check_one_of(fn: str, name: str, value: Any, *,
                  choices: tuple[Any, ...]) -> None:
  if any(value == choice for choice in choices):
    return
  if len(choices) == 2:
    expected = f'{choices[0]!r} or {choices[1]!r}'
  else:
    expected = 'one of ' + ', '.join(repr(c) for c in choices)
  raise ValueError(
      f'{validation.called(fn)}: {name} must be {expected}, got {value!r}')


def pair(first: Union[Rule, tuple[Rule, ...]],
         second: Union[Rule, tuple[Rule, ...]], *,
         what: str = '') -> Rule:
  """The rule "a pair whose entries follow these rules" (``betas``).

  Args:
    first: the rule (or rules) of the first entry, named ``name[0]``.
    second: the rule (or rules) of the second entry, named ``name[1]``.
    what: how the message spells the pair (``'(b1, b2)'``).

  Returns:
    A rule for :func:`declare`: a ValueError for a value that is not a
    tuple or list of two entries, then each entry's rules.
  """
  return functools.partial(_check_pair, rules=(
      first if isinstance(first, tuple) else (first,),
      second if isinstance(second, tuple) else (second,)), what=what)


def _check_pair(fn: str, name: str, value: Any, *,
                rules: tuple[tuple[Rule, ...], tuple[Rule, ...]],
                what: str) -> None:
  if not isinstance(value, (tuple, list)) or len(value) != 2:
    spelled = f' {what}' if what else ''
    raise ValueError(f'{validation.called(fn)}: {name} must be a'
                     f' pair{spelled}, got {value!r}')
  for i, entry_rules in enumerate(rules):
    for rule in entry_rules:
      rule(fn, f'{name}[{i}]', value[i])


class _Given:
  """A rule that also reads other arguments of the call (see :func:`given`)."""

  def __init__(self, check: Callable[..., None], others: tuple[str, ...]):
    self.check = check
    self.others = others

  def __call__(self, fn: str, name: str, value: Any, *values: Any) -> None:
    self.check(fn, name, value, *values)

  def __repr__(self) -> str:
    return f'given({self.check!r}, {", ".join(map(repr, self.others))})'


def given(check: Callable[..., None], *others: str) -> Rule:
  """A rule that depends on other arguments of the same call.

  Args:
    check: ``check(fn, name, value, *values)``, where ``values`` are the
      arguments ``others`` as the call gives them (or their defaults); it
      raises for a bad ``value``.
    *others: the names of the other arguments it reads.

  Returns:
    A rule for :func:`declare` (a rule of an argument that ``declare``
    resolves with the function's signature).

  Examples:
    >>> from optax._src import arguments
    >>> def below(fn, name, value, high):
    ...   if value >= high:
    ...     raise ValueError(f'{fn}: {name} must be < high, got {value}')
    >>> @arguments.declare(low=arguments.given(below, 'high'))
    ... def bounds(low=0.0, high=1.0):
    ...   return low, high
    >>> try:
    ...   bounds(2.0)
    ... except ValueError as e:
    ...   print(e)
    bounds: low must be < high, got 2.0
  """
  return _Given(check, others)


def bias_corrected_decay(flag: str) -> Rule:
  """The rule "in ``[0, 1)``, or ``[0, 1]`` where argument ``flag`` is false".

  A decay rate of 1 keeps the first value forever, which is allowed unless
  the bias correction named ``flag`` divides by ``1 - rate**t`` (0 for a
  rate of 1).

  Args:
    flag: the name of the boolean argument that turns the bias correction
      on (``'bias_correction'``).

  Returns:
    A rule for :func:`declare`.
  """
  return given(_check_bias_corrected_decay, flag)


def _check_bias_corrected_decay(fn: str, name: str, value: Any,
                                corrected: Any) -> None:
  validation.check_decay(fn, name, value, closed=not corrected)


def at_least_argument(other: str) -> Rule:
  """The rule "``>=`` argument ``other``" where both are numbers (NaN fails).

  For an upper bound declared after its lower bound: the message says
  ``'<name> must be >= <other> (<its value>), got <value>'``.

  Args:
    other: the name of the lower bound.

  Returns:
    A rule for :func:`declare`.
  """
  return given(functools.partial(_check_at_least_argument, other=other),
               other)


def _check_at_least_argument(fn: str, name: str, value: Any, low: Any, *,
                             other: str) -> None:
  if (hyperparameters.is_number(value) and hyperparameters.is_number(low)
      and not value >= low):
    raise ValueError(f'{validation.called(fn)}: {name} must be >= {other}'
                     f' ({low}), got {value}')


def _check_in_interval(fn: str, name: str, value: Any, *, low: float,
                       high: float, include_low: bool, include_high: bool,
                       hint: str) -> None:
  validation.check_in_interval(fn, name, value, low, high,
                               include_low=include_low,
                               include_high=include_high, hint=hint)


def _argument_getter(signature: inspect.Signature,
                     name: str) -> Callable[[tuple[Any, ...], dict[str, Any]],
                                            Any]:
  """How to find argument ``name`` in a call's ``(args, kwargs)``."""
  parameters = list(signature.parameters.values())
  parameter = signature.parameters.get(name)
  if parameter is None or parameter.kind in (parameter.VAR_POSITIONAL,
                                             parameter.VAR_KEYWORD):
    raise TypeError(f'declare: {name!r} is not a named argument of the'
                    f' function (its signature is {signature})')
  position = (parameters.index(parameter)
              if parameter.kind != parameter.KEYWORD_ONLY else None)
  default = parameter.default

  def get(args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
    if name in kwargs:
      return kwargs[name]
    if position is not None and position < len(args):
      return args[position]
    return default

  return get


def declare(*, name: str | None = None,
            **rules: Union[Rule, tuple[Rule, ...]]) -> Callable[[_F], _F]:
  """Declares a public function's arguments and the rule of each.

  The decorated function, when called, becomes the public call (unless a
  declared function is already being built: then that one is), checks each
  declared argument's rules in the order given, naming the public call in
  any error, and then runs. Its signature, defaults, docstring, name and
  module are the function's own (``inspect.signature``,
  ``inject_hyperparams`` and pickling see the function).

  Args:
    name: the public name used in errors; the function's ``__name__`` by
      default.
    **rules: for each argument to check, a rule (see the module docstring)
      or a tuple of rules. Arguments that the transformations built by the
      function check already are left out.

  Returns:
    The decorator.

  Raises:
    TypeError: at decoration, for a rule on an argument that the function
      does not have.

  Examples:
    >>> from optax._src import arguments
    >>> @arguments.declare(decay=arguments.decay,
    ...                    eps=(arguments.scalar_or_schedule,
    ...                         arguments.non_negative))
    ... def scale_by_ema(decay=0.9, eps=1e-8):
    ...   return decay, eps
    >>> scale_by_ema(0.5)
    (0.5, 1e-08)
    >>> try:
    ...   scale_by_ema(eps=-1.0)
    ... except ValueError as e:
    ...   print(e)
    scale_by_ema: eps must be non-negative, got -1.0
    >>> @arguments.declare()
    ... def ema_alias(decay=0.9):
    ...   return scale_by_ema(decay)  # scale_by_ema checks decay
    >>> try:
    ...   ema_alias(1.5)
    ... except ValueError as e:
    ...   print(e)
    ema_alias: decay must be in [0, 1), got 1.5
  """
  for arg, rule in rules.items():
    checks = rule if isinstance(rule, tuple) else (rule,)
    if not checks or not all(callable(c) for c in checks):
      raise TypeError(f'declare: the rule of {arg!r} must be a function or a'
                      f' tuple of functions, got {rule!r}')

  def decorator(f: _F) -> _F:
    public_name = f.__name__ if name is None else name
    signature = inspect.signature(f)

    # One (argument, its getter, rule, the getters of the other arguments
    # the rule reads) per rule, in the order declared: a rule made by given()
    # also reads other arguments.
    checks = tuple(
        (arg, _argument_getter(signature, arg), r,
         tuple(_argument_getter(signature, other)
               for other in getattr(r, 'others', ())))
        for arg, rule in rules.items()
        for r in (rule if isinstance(rule, tuple) else (rule,)))

    # Names this declaration in the memo of calls that passed (not the
    # wrapper itself: code that walks closures, such as equinox's, would
    # then find the wrapper in its own closure).
    declaration = object()

    @functools.wraps(f)
    def declared(*args, **kwargs):
      with validation.public_call(public_name) as caller:
        # A call of plain Python values that passed before passes again.
        key = (validation.plain_call_key(declaration, args, kwargs)
               if checks else None)
        if key is None or not validation.call_passed(key):
          for arg, get, rule, others in checks:
            if others:
              validation.once(
                  rule, caller, arg, get(args, kwargs),
                  *[get_other(args, kwargs) for get_other in others])
            else:
              validation.once(rule, caller, arg, get(args, kwargs))
          if key is not None:
            validation.remember_call_passed(key)
        return f(*args, **kwargs)

    # As the function's, for code that reads them rather than the signature.
    declared.__defaults__ = f.__defaults__
    declared.__kwdefaults__ = f.__kwdefaults__
    return declared  # pytype: disable=bad-return-type

  return decorator
