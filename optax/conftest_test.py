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
"""Tests for the suite's split in parts (``OPTAX_TEST_SHARD``, conftest.py)."""

import os

from absl.testing import absltest
from absl.testing import parameterized

from optax import conftest


class ShardTest(parameterized.TestCase):

  @parameterized.parameters(('0/2', {0}, 2), ('1/2', {1}, 2), ('2/3', {2}, 3),
                            ('1,2/3', {1, 2}, 3))
  def test_parse(self, text, parts, count):
    self.assertEqual(conftest.parse_shard(text), (parts, count))

  @parameterized.parameters('2/2', '-1/2', '0/0', '1', 'a/b', '1/2/3', '',
                            '1,3/3', ',/2')
  def test_parse_rejects(self, text):
    with self.assertRaisesRegex(
        ValueError, r'OPTAX_TEST_SHARD: expected I/N or I,J,.../N with '
        r'0 <= I < N, got'):
      conftest.parse_shard(text)

  def test_part_follows_the_name_from_the_package_on(self):
    # The installed wheel (pytest's id relative to a temporary folder) and a
    # source checkout give the same part.
    test = 'optax/_src/alias_test.py::AliasTest::test_adam'
    wheel = os.path.join('venv', 'lib', 'python3.11', 'site-packages',
                         'optax', '_src', 'alias_test.py')
    wheel += '::AliasTest::test_adam'
    for count in (2, 3, 7):
      self.assertEqual(conftest.shard_of(test, count),
                       conftest.shard_of(wheel, count))

  def test_parts_split_a_suite_in_disjoint_halves(self):
    tests = [f'optax/_src/x_test.py::T::test_{i}' for i in range(1000)]
    parts = [conftest.shard_of(t, 2) for t in tests]
    self.assertEqual(set(parts), {0, 1})
    # crc32 spreads the names: each half holds 45% to 55% of them.
    self.assertBetween(parts.count(0), 450, 550)


if __name__ == '__main__':
  absltest.main()
