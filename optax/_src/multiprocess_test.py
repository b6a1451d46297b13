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
"""Training across two processes of JAX's multi-controller runtime.

Starts ``multiprocess_worker`` twice on localhost (``jax.distributed`` with a
local coordinator, gloo collectives, two CPU devices each: one global
explicit mesh of four devices), and once alone on four devices as the
reference, all three at once. Every case (optimizers alone, adam in every
wrapper of the composition suite) trains for a few jitted steps on params
and a batch sharded across both processes. The test checks that both
processes agree bit for bit, that every per-parameter state leaf keeps its
parameter's sharding (scalars replicated, nothing resharded between steps,
eager ``init`` like jitted ``init``), and that the losses and param norms
equal those of the same steps in one process.

The worker is found as a module of the installed package, so the lane runs
from a source checkout and from the wheel alike.
"""

import json
import os
import pathlib
import socket
import subprocess
import sys
import tempfile

from absl.testing import absltest
import numpy as np

import optax
from optax._src.testing import composition
from optax._src.testing import multiprocess_worker

_TIMEOUT_S = 600
_DEVICE_FLAG = '--xla_force_host_platform_device_count='
# Newton-Schulz iterations amplify the last bit of a sum taken in another
# order (the gradient's all-reduce across processes); elsewhere the values
# agree to float32 rounding.
_RTOL = {'contrib.muon': 1e-4}
_DEFAULT_RTOL = 1e-5
# A loss that has converged is rounding noise, which no relative tolerance
# bounds: the worker's loss, sum 0.5 (p - 3.5)^2 over 36 float32 params, is
# 0.5 sum (m_i u)^2 at params m_i ulps u = 2^-22 (the ulp at 3.5) from the
# optimum. lbfgs reaches it in two steps: 4.0e-12 in one process and 5.3e-12
# in two (jax 0.12.0.1), i.e. ~2 ulps per param. Losses agree to within that
# of params up to 4 ulps from the optimum (1.6e-11); the param norms compare
# the params themselves.
_LOSS_ATOL = 0.5 * 36 * (4 * 2.0**-22)**2


def _free_port() -> int:
  with socket.socket() as s:
    s.bind(('localhost', 0))
    return s.getsockname()[1]


def _run_workers(tmp: pathlib.Path) -> dict[str, dict]:
  """Runs the process pair and the reference; returns their outputs."""
  env = dict(os.environ, JAX_PLATFORMS='cpu')
  # The worker imports the optax this test imports (a checkout or a wheel).
  package_root = str(pathlib.Path(optax.__file__).resolve().parent.parent)
  env['PYTHONPATH'] = os.pathsep.join(
      [package_root] + [p for p in [env.get('PYTHONPATH')] if p])
  port = _free_port()
  runs = {'process0': (0, 2, port), 'process1': (1, 2, port),
          'reference': (0, 1, 0)}
  procs = {}
  try:
    for name, (process_id, num_processes, p) in runs.items():
      log = open(tmp / f'{name}.log', 'w', encoding='utf-8')  # pylint: disable=consider-using-with
      # Each process's own device count, set before jax can start (the
      # test session's 8 devices, optax/conftest.py, must not leak in).
      devices = multiprocess_worker.GLOBAL_DEVICES // num_processes
      procs[name] = (subprocess.Popen(  # pylint: disable=consider-using-with
          [sys.executable, '-m', multiprocess_worker.__name__,
           str(tmp / f'{name}.json'), str(process_id), str(num_processes),
           str(p)],
          env=dict(env, XLA_FLAGS=_DEVICE_FLAG + str(devices)), cwd=tmp,
          stdout=log, stderr=subprocess.STDOUT), log)
    for proc, log in procs.values():
      try:
        proc.wait(timeout=_TIMEOUT_S)
      finally:
        log.close()
  finally:
    for proc, _ in procs.values():
      if proc.poll() is None:
        proc.kill()
        proc.wait()
  outputs = {}
  for name, (proc, _) in procs.items():
    if proc.returncode != 0:
      tail = (tmp / f'{name}.log').read_text(encoding='utf-8')[-4000:]
      raise AssertionError(
          f'multiprocess worker {name} exited with {proc.returncode}:\n{tail}')
    outputs[name] = json.loads(
        (tmp / f'{name}.json').read_text(encoding='utf-8'))
  return outputs


class MultiProcessTest(absltest.TestCase):

  def test_two_processes_train_like_one(self):
    with tempfile.TemporaryDirectory() as tmp:
      out = _run_workers(pathlib.Path(tmp))
    pair = (out['process0'], out['process1'])
    self.assertEqual([o['process_index'] for o in pair], [0, 1])
    for o in pair:
      self.assertEqual(
          (o['process_count'], o['device_count'], o['local_device_count']),
          (2, 4, 2))
    ref = out['reference']
    self.assertEqual((ref['process_count'], ref['device_count']), (1, 4))
    cases = multiprocess_worker.case_names(composition.WRAPPERS)
    self.assertContainsSubset(['adam in apply_if_finite', 'lbfgs'], cases)
    for run in (*pair, ref):
      self.assertEqual(sorted(run['results']), sorted(cases))
    for case in cases:
      with self.subTest(case):
        got0, got1, want = (r['results'][case] for r in (*pair, ref))
        for name, got in (('process 0', got0), ('process 1', got1),
                          ('one process', want)):
          if 'error' in got:
            self.fail(f'{case} in {name} raised:\n{got["traceback"]}')
          self.assertEmpty(got['defects'], f'{case} in {name}')
          self.assertLen(got['losses'], multiprocess_worker.NUM_STEPS)
          self.assertTrue(np.all(np.isfinite(got['losses'])), case)
        # Both processes ran one program: the same bits.
        self.assertEqual(got0['losses'], got1['losses'], case)
        self.assertEqual(got0['norms'], got1['norms'], case)
        rtol = _RTOL.get(case, _DEFAULT_RTOL)
        np.testing.assert_allclose(got0['losses'], want['losses'], rtol=rtol,
                                   atol=_LOSS_ATOL, err_msg=f'{case}: losses')
        np.testing.assert_allclose(got0['norms'], want['norms'], rtol=rtol,
                                   err_msg=f'{case}: param norms')


if __name__ == '__main__':
  absltest.main()
