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
from typing import Any, Optional, TypeVar
import warnings

_F = TypeVar('_F', bound=Callable[..., Any])


def deprecation_message(
    name: str,
    replacement: Optional[str] = None,
    removal: Optional[str] = None,
) -> str:
  """The message shown when the deprecated ``name`` is used.

  Args:
    name: the name of the deprecated object, e.g. ``'optax.foo'``.
    replacement: what to use instead, if anything.
    removal: the version in which ``name`` will be removed, if known.

  Returns:
    A one-line message naming the object, the remedy and the removal.
  """
  message = f'{name} is deprecated'
  if removal is not None:
    message += f' and will be removed in optax {removal}'
  message += '.'
  if replacement is not None:
    message += f' Use {replacement} instead.'
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
    old is deprecated. Use new instead.

  Args:
    fun: the deprecated function.
    replacement: the name of what to use instead, if anything.
    removal: the version in which ``fun`` will be removed, if known.

  Returns:
    A function with the signature, name and docstring of ``fun`` that warns
    (pointing at the caller) and then calls ``fun``.
  """
  name = getattr(fun, '__qualname__', None) or getattr(
      fun, '__name__', repr(fun))
  message = deprecation_message(name, replacement, removal)

  @functools.wraps(fun)
  def wrapped(*args, **kwargs):
    warnings.warn(message, DeprecationWarning, stacklevel=2)
    return fun(*args, **kwargs)

  return wrapped  # pytype: disable=bad-return-type
