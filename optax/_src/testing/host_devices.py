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
"""CPU devices for the sharding tests, on any default backend."""

from typing import Any
import unittest

import jax


def use_host_devices(test: unittest.TestCase, n: int) -> list[Any]:
  """``n`` CPU devices for a sharding test, on any default backend.

  ``optax/conftest.py`` splits the host into 8 virtual CPU devices. On a GPU
  or TPU runner jax's default backend has one or a few devices, so the
  sharding tests build their meshes from these host devices instead, and
  make the first of them the default device until the test ends: arrays
  made without a sharding, and one-device reference runs, then live on the
  same backend as the mesh, so results compare at CPU precision.

  Args:
    test: the running test; skipped when jax has fewer than ``n`` CPU
      devices (``XLA_FLAGS`` set without ``optax/conftest.py``, or
      ``JAX_PLATFORMS`` without ``cpu``).
    n: how many devices the test needs.

  Returns:
    The first ``n`` CPU devices, for ``jax.make_mesh(..., devices=...)``.
  """
  try:
    devices = jax.devices('cpu')
  except RuntimeError as e:
    test.skipTest(f'needs {n} CPU devices; jax has no CPU backend ({e})')
  if len(devices) < n:
    test.skipTest(f'needs {n} CPU devices (see optax/conftest.py); jax has '
                  f'{len(devices)}')
  test.enter_context(jax.default_device(devices[0]))
  return devices[:n]
