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
"""Runs every example script of examples/ with --quick and reads its output.

The examples are not part of the wheel: they are found through the
OPTAX_EXAMPLES_DIR environment variable (set by test.sh) or next to a source
checkout. When OPTAX_GALLERY_DIR is set, the plots are written there (the
docs gallery shows them); otherwise into a temporary folder.
"""

import os
import pathlib
import re
import subprocess
import sys
import tempfile

from absl.testing import absltest
from absl.testing import parameterized


def _examples_dir():
  if os.environ.get('OPTAX_EXAMPLES_DIR'):
    return pathlib.Path(os.environ['OPTAX_EXAMPLES_DIR'])
  here = pathlib.Path(__file__).resolve().parents[2] / 'examples'
  return here if here.is_dir() else None


def _number(pattern, text):
  match = re.search(pattern, text)
  if match is None:
    raise AssertionError(f'{pattern!r} not in the output:\n{text}')
  return float(match.group(1))


# Name -> a check of the script's printed output.
def _check_accumulation(test, out):
  # MultiSteps with mean gradients follows the big-batch path.
  test.assertLess(_number(r'largest parameter difference (\S+)', out), 1e-5)


def _check_groups(test, out):
  test.assertIn("'body': 0.0003", out)
  test.assertIn("'head': 0.003", out)


def _check_muon(test, out):
  losses = [float(x) for x in re.findall(r'final loss (\S+)', out)]
  test.assertLen(losses, 3)
  for loss in losses:
    # Chance level on ten classes is ln(10) = 2.30.
    test.assertLess(loss, 2.2)


def _check_schedule_free(test, out):
  test.assertLess(_number(r'eval params (\S+),', out), 2.3)


def _check_lbfgs(test, out):
  ours = _number(r'optax.lbfgs loss (\S+),', out)
  ref = _number(r'scipy L-BFGS-B loss (\S+);', out)
  test.assertAlmostEqual(ours, ref, delta=1e-4)


def _check_freezing(test, out):
  test.assertEqual(out.count('frozen layers unchanged'), 2)
  sizes = [int(x) for x in re.findall(r'state holds\s+(\d+) floats', out)]
  # selective_transform keeps no state for the frozen layers.
  test.assertLess(sizes[1], sizes[0] // 10)


def _check_sharded(test, out):
  test.assertIn("adam mu: P(None, 'model')", out)
  test.assertLess(_number(r'largest parameter difference (\S+)', out), 1e-5)


def _check_schedules(test, out):
  test.assertIn('warmup_cosine_decay_schedule', out)
  test.assertEqual(len(re.findall(r'max 1\.00e-02', out)), 15)


EXAMPLES = {
    'gradient_accumulation': _check_accumulation,
    'per_group_learning_rates': _check_groups,
    'muon': _check_muon,
    'schedule_free': _check_schedule_free,
    'lbfgs': _check_lbfgs,
    'freezing': _check_freezing,
    'sharded_training': _check_sharded,
    'schedules': _check_schedules,
}


class ExamplesTest(parameterized.TestCase):

  def test_every_example_is_listed(self):
    folder = _examples_dir()
    if folder is None:
      self.skipTest('examples/ is beside a source checkout only')
    scripts = {p.stem for p in folder.glob('*.py')}
    self.assertEqual(scripts - {'quickstart', 'example_utils'},
                     set(EXAMPLES))

  @parameterized.named_parameters((name, name) for name in EXAMPLES)
  def test_quick_run(self, name):
    folder = _examples_dir()
    if folder is None:
      self.skipTest('examples/ is beside a source checkout only')
    script = folder / f'{name}.py'
    gallery = os.environ.get('OPTAX_GALLERY_DIR')
    with tempfile.TemporaryDirectory() as tmp:
      png = pathlib.Path(gallery or tmp) / f'{name}.png'
      env = dict(os.environ, JAX_PLATFORMS='cpu')
      env.pop('XLA_FLAGS', None)
      result = subprocess.run(
          [sys.executable, str(script), '--quick', '--out', str(png)],
          capture_output=True, text=True, env=env, timeout=600, check=False,
          cwd=folder)
      self.assertEqual(result.returncode, 0, msg=result.stderr[-3000:])
      EXAMPLES[name](self, result.stdout)
      self.assertEqual(png.read_bytes()[:8], b'\x89PNG\r\n\x1a\n')


if __name__ == '__main__':
  absltest.main()
