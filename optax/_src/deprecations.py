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
"""Helpers to deprecate functions of the public API."""

from collections.abc import Callable
import functools
import importlib
from typing import Any, Optional, TypeVar
import warnings

_F = TypeVar('_F', bound=Callable[..., Any])


def deprecation_message(
    name: str,
    replacement: Optional[str] = None,
    removal: Optional[str] = None,
) -> str:
  """The message shown when the deprecated function ``name`` is called.

  Worded as upstream Optax 0.2.8 words it, word for word, since code and
  tests filter warnings by their message.

  Args:
    name: the name of the deprecated function, e.g. ``'foo'``.
    replacement: what to use instead, if anything.
    removal: the version in which ``name`` will be removed, if known.

  Returns:
    A one-line message naming the function, the remedy and the removal.
  """
  message = f'The function {name} is deprecated.'
  if replacement:
    message += f' Please use {replacement} instead.'
  if removal:
    message += f' This function will be/was removed in optax {removal}.'
  return message


def warn_deprecated_function(
    fun: _F,
    replacement: Optional[str] = None,
    removal: Optional[str] = None,
) -> _F:
  """Wraps ``fun`` so that each call emits a ``DeprecationWarning``.

  Examples:
    >>> import warnings
    >>> from optax._src import deprecations
    >>> def old(x):
    ...   return x + 1
    >>> old = deprecations.warn_deprecated_function(old, 'new')
    >>> with warnings.catch_warnings(record=True) as caught:
    ...   warnings.simplefilter('always')
    ...   old(1)
    2
    >>> print(caught[0].message)
    The function old is deprecated. Please use new instead.

  Args:
    fun: the deprecated function.
    replacement: the name of what to use instead, if anything.
    removal: the version in which ``fun`` will be removed, if known.

  Returns:
    A function with the signature, name and docstring of ``fun`` that warns
    (pointing at the caller) and then calls ``fun``.
  """
  name = getattr(fun, '__name__', None) or repr(fun)
  message = deprecation_message(name, replacement, removal)

  @functools.wraps(fun)
  def wrapped(*args, **kwargs):
    warnings.warn(message, DeprecationWarning, stacklevel=2)
    return fun(*args, **kwargs)

  return wrapped  # pytype: disable=bad-return-type


def module_getattr(
    module_name: str,
    deprecated: dict[str, tuple[str, Optional[str]]],
) -> Callable[[str], Any]:
  """Builds a module ``__getattr__`` that serves deprecated names.

  Each deprecated name maps to ``(message, target)``. ``target`` is the
  dotted path (``'package.module:attribute'``) of the object still served
  under the old name: accessing it emits a ``DeprecationWarning`` with
  ``message`` and returns the object, imported on first use. A ``None``
  target marks a removed name: accessing it raises an ``AttributeError``
  with ``message``.

  Examples:
    >>> from optax._src import deprecations
    >>> getattr_fn = deprecations.module_getattr(
    ...     'mylib', {'old_sqrt': ('mylib.old_sqrt is deprecated: use'
    ...                            ' math.sqrt.', 'math:sqrt'),
    ...               'gone': ('mylib.gone was removed.', None)})
    >>> import warnings
    >>> with warnings.catch_warnings(record=True) as caught:
    ...   warnings.simplefilter('always')
    ...   getattr_fn('old_sqrt')(4.0)
    2.0
    >>> print(caught[0].category.__name__, caught[0].message)
    DeprecationWarning mylib.old_sqrt is deprecated: use math.sqrt.

  Args:
    module_name: the name of the module, for the error on unknown names.
    deprecated: maps each deprecated name to its message and target.

  Returns:
    A function to assign to the module's ``__getattr__``.
  """

  def getattr_fn(name: str) -> Any:
    if name not in deprecated:
      raise AttributeError(
          f'module {module_name!r} has no attribute {name!r}')
    message, target = deprecated[name]
    if target is None:
      raise AttributeError(message)
    warnings.warn(message, DeprecationWarning, stacklevel=2)
    module, _, attribute = target.partition(':')
    return getattr(importlib.import_module(module), attribute)

  return getattr_fn
