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
"""Test configuration shared by the whole suite.

The sharding tests need several devices; on a CPU-only machine JAX can split
the host into virtual devices, which has to be requested before JAX starts its
backend, hence here.

``OPTAX_TEST_SHARD=I/N`` keeps the I-th of N disjoint parts of the suite, a
test's part depending only on its name; ``I,J/N`` keeps parts I and J.
test.sh runs part 0/3 on its main jax and parts 1,2/3 on the newest jax (the
faster of the two), so that its run stays within its time while both jax
releases are tested; the GitHub workflow runs the whole suite on each
Python. (An environment variable, not a pytest option: pytest reads a
conftest's options only from the folders named on its command line, and
``--pyargs optax`` names none.)
"""

import os
import zlib

_FLAG = '--xla_force_host_platform_device_count'
if _FLAG not in os.environ.get('XLA_FLAGS', ''):
  os.environ['XLA_FLAGS'] = (
      os.environ.get('XLA_FLAGS', '') + f' {_FLAG}=8').strip()


SLOW_MARKER = ('slow: long loops (live-buffer checks, OPTAX_TEST_FULL\'s '
               'extra dtypes); test.sh deselects them unless OPTAX_TEST_FULL=1')
SHARD = 'OPTAX_TEST_SHARD'


def parse_shard(text: str) -> tuple[frozenset[int], int]:
  """``'I/N'`` or ``'I,J/N'`` as ``({I, J}, N)``; a clear error otherwise."""
  try:
    indices, count = text.split('/')
    parts = frozenset(int(i) for i in indices.split(','))
    count = int(count)
  except ValueError:
    parts, count = frozenset(), 0
  if not parts or not all(0 <= i < count for i in parts):
    raise ValueError(
        f'{SHARD}: expected I/N or I,J,.../N with 0 <= I < N, got {text!r}')
  return parts, count


def shard_of(nodeid: str, count: int) -> int:
  """Which of ``count`` parts a test belongs to, from its name alone.

  The name is taken from the package's folder on
  (``optax/_src/alias_test.py::Class::test``), so that the installed wheel
  and a source checkout split the suite alike.

  Args:
    nodeid: pytest's id of the test.
    count: the number of parts.

  Returns:
    The part, in ``range(count)``.
  """
  path, sep, rest = nodeid.partition('::')
  path = path.replace(os.sep, '/')
  at = path.rfind('optax/')
  name = (path[at:] if at >= 0 else path) + sep + rest
  return zlib.crc32(name.encode()) % count


def pytest_collection_modifyitems(config, items):
  """With ``OPTAX_TEST_SHARD=I/N``, deselects the tests of other parts."""
  text = os.environ.get(SHARD)
  if not text:
    return
  parts, count = parse_shard(text)
  kept, dropped = [], []
  for item in items:
    (kept if shard_of(item.nodeid, count) in parts else dropped).append(item)
  if dropped:
    config.hook.pytest_deselected(items=dropped)
    items[:] = kept


def pytest_configure(config):
  """Registers the ``slow`` marker.

  pyproject.toml registers it too, but a run of the installed package from
  outside the repository does not read that file.

  Args:
    config: pytest's configuration.
  """
  config.addinivalue_line('markers', SLOW_MARKER)


def pytest_terminal_summary(terminalreporter):
  """Reports the part run and how many combinations the suite checks."""
  text = os.environ.get(SHARD)
  if text:
    terminalreporter.write_line(
        f'{SHARD}={text}: only that part of the suite ran')
  try:
    from optax._src.testing import composition
  except ImportError as e:
    terminalreporter.write_line(f'composition suite not importable: {e}')
    return
  terminalreporter.write_line(composition.summary())
