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
"""Hyperparameters no optimizer can use raise when built.

A deliberate difference: upstream builds ``scale_by_adam(eps=nan)``,
``adam(nan)``, ``clip_by_global_norm(nan)``, ... and returns NaN updates;
``warmup_cosine_decay_schedule(warmup_steps=-1)`` silently skips its warmup.
"""

import math

from absl.testing import absltest
from absl.testing import parameterized
import optax


class RejectUnusableHyperparametersTest(parameterized.TestCase):

  @parameterized.named_parameters(
      ('scale_by_adam_eps', lambda: optax.scale_by_adam(eps=math.nan)),
      ('adam_learning_rate', lambda: optax.adam(math.nan)),
      ('clip_by_global_norm', lambda: optax.clip_by_global_norm(math.nan)),
      ('sgd_momentum', lambda: optax.sgd(0.1, momentum=math.nan)),
      ('lion_b1', lambda: optax.lion(0.1, b1=math.nan)),
      ('muon_eps', lambda: optax.contrib.muon(0.1, eps=math.nan)),
      (
          'warmup_steps',
          lambda: optax.warmup_cosine_decay_schedule(0.0, 1.0, -1, 10),
      ),
  )
  def test_raises_value_error_when_built(self, build):
    with self.assertRaises(ValueError):
      build()


if __name__ == '__main__':
  absltest.main()
