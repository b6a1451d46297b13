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
"""

import os

_FLAG = '--xla_force_host_platform_device_count'
if _FLAG not in os.environ.get('XLA_FLAGS', ''):
  os.environ['XLA_FLAGS'] = (
      os.environ.get('XLA_FLAGS', '') + f' {_FLAG}=8').strip()


SLOW_MARKER = ('slow: long loops (live-buffer checks, OPTAX_TEST_FULL\'s '
               'extra dtypes); test.sh deselects them unless OPTAX_TEST_FULL=1')


def pytest_configure(config):
  """Registers the ``slow`` marker.

  pyproject.toml registers it too, but a run of the installed package from
  outside the repository does not read that file.

  Args:
    config: pytest's configuration.
  """
  config.addinivalue_line('markers', SLOW_MARKER)


def pytest_terminal_summary(terminalreporter):
  """Reports how many combinations the composition suite checks."""
  try:
    from optax._src.testing import composition
  except ImportError as e:
    terminalreporter.write_line(f'composition suite not importable: {e}')
    return
  terminalreporter.write_line(composition.summary())
