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
"""Machinery of this fork's tests; no part of the library.

It ships in the wheel only so that ``pytest --pyargs optax`` runs against an
installed package. No module of the library imports it
(``imports_test.py`` checks every non-test module of ``optax``). What the
tests share with upstream's own suite stays in ``optax/_src/test_utils.py``.

* ``registry``: every optimizer under test, its hyperparameters and the
  extra arguments of its ``update``, and which wrappers it has no meaning
  in; a data module that imports only the standard library, so that tools
  running under upstream's interpreter load it by file path.
* ``upstream_api``: the public functions of the upstream release the fork
  is based on (written by ``tools/upstream_api.py``).
* ``composition``: every registry optimizer inside every wrapper, the
  machinery of ``composition_test.py`` and of the sharding and
  multi-process lanes.
* ``multiprocess_worker``: one process of ``multiprocess_test.py``.
* ``cases``: test-case factories shared by the test modules.
* ``toy_transforms``: minimal transformations for the tests of wrappers.
* ``probes``: live arrays, XLA's memory analysis of a step, optimization
  barriers inside conditionals.
* ``hlo``: the runtime scalars of fused kernels, read from optimized HLO
  (also for ``benchmarks/kernel_scalars.py``).
* ``optimizer_checks``: steps of an optimizer (``minimize``,
  ``run_float32_steps``) and the checks made on them (dtypes stable over
  steps, float32 scalar statistics, a donatable state, decoupled weight
  decay).
* ``host_devices``: CPU devices for the sharding tests.
"""
