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
"""Runs examples/quickstart.py with --quick, when the examples are at hand.

The examples are not part of the wheel: the test finds them through the
OPTAX_EXAMPLES_DIR environment variable (set by test.sh) or next to a source
checkout of the package.
"""

import os
import pathlib
import subprocess
import sys
import tempfile

from absl.testing import absltest


def _quickstart_path():
  candidates = []
  if os.environ.get('OPTAX_EXAMPLES_DIR'):
    candidates.append(pathlib.Path(os.environ['OPTAX_EXAMPLES_DIR']))
  candidates.append(pathlib.Path(__file__).resolve().parents[2] / 'examples')
  for folder in candidates:
    path = folder / 'quickstart.py'
    if path.exists():
      return path
  return None


class QuickstartTest(absltest.TestCase):

  def test_quickstart_quick_run(self):
    path = _quickstart_path()
    if path is None:
      self.skipTest('examples/quickstart.py is not next to this install')
    with tempfile.TemporaryDirectory() as tmp:
      png = pathlib.Path(tmp) / 'loss.png'
      env = dict(os.environ, XLA_FLAGS='', JAX_PLATFORMS='cpu')
      result = subprocess.run(
          [sys.executable, str(path), '--quick', '--out', str(png)],
          capture_output=True, text=True, env=env, timeout=600, check=False)
      self.assertEqual(result.returncode, 0, msg=result.stderr[-3000:])
      lines = [l for l in result.stdout.splitlines() if l.startswith('epoch')]
      self.assertLen(lines, 2)
      self.assertIn('test accuracy', lines[-1])
      accuracy = float(result.stdout.split('final test accuracy ')[1]
                       .split('%')[0])
      # Two epochs already classify most digits; chance level is 10%.
      self.assertGreater(accuracy, 60.0)
      self.assertEqual(png.read_bytes()[:8], b'\x89PNG\r\n\x1a\n')


if __name__ == '__main__':
  absltest.main()
