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
"""Tests of `transform.py`'s re-exports of the family modules.

`transform_test.py` tests the transformations themselves; this file checks
that splitting them by family changed nothing a user or a checkpoint sees:
every name is still importable from `optax._src.transform`, and its
`__module__` is that module, as in upstream Optax 0.2.8, so that a state
pickled by the fork unpickles under upstream and the other way round.
"""

import inspect
import pickle

from absl.testing import absltest
from absl.testing import parameterized
import jax
import jax.numpy as jnp
import numpy as np

from optax._src import adam_family
from optax._src import gradient_accumulation
from optax._src import lbfgs
from optax._src import optimistic_gradient
from optax._src import param_block
from optax._src import second_moment
from optax._src import sign_based
from optax._src import step_size
from optax._src import transform
from optax._src import update_normalization

_FAMILIES = (adam_family, gradient_accumulation, lbfgs, optimistic_gradient,
             param_block, second_moment, sign_based, step_size,
             update_normalization)

_UPSTREAM_MODULE = 'optax._src.transform'

# Names that upstream 0.2.8 defines in optax._src.transform (a sample: the
# states users checkpoint most and a factory of each family).
_UPSTREAM_NAMES = (
    'ScaleByAdamState', 'ScaleByAmsgradState', 'ScaleByLBFGSState',
    'ScaleByRmsState', 'ScaleByRmsWithCountState',
    'ScaleByRStdDevWithCountState', 'ScaleByLionState', 'ScaleByRpropState',
    'ScaleByScheduleState', 'ScaleByOptimisticGradientState',
    'ScaleByDistanceOverGradientsState', 'ApplyEvery', 'scale',
    'scale_by_adam', 'scale_by_rms', 'scale_by_lion', 'scale_by_lbfgs',
    'scale_by_trust_ratio', 'centralize', 'apply_every',
)


def _public_objects(module):
  for name, obj in vars(module).items():
    if not name.startswith('_') and (inspect.isclass(obj)
                                     or inspect.isfunction(obj)):
      if obj.__module__ in (module.__name__, _UPSTREAM_MODULE):
        yield name, obj


class ReexportTest(parameterized.TestCase):

  def test_every_family_name_is_reexported_under_the_upstream_module(self):
    count = 0
    for module in _FAMILIES:
      for name, obj in _public_objects(module):
        with self.subTest(module=module.__name__, name=name):
          self.assertIs(getattr(transform, name), obj)
          self.assertEqual(obj.__module__, _UPSTREAM_MODULE)
          count += 1
    self.assertEqual(count, 48)  # 19 states and 29 factories.

  @parameterized.parameters(*_UPSTREAM_NAMES)
  def test_upstream_names_keep_their_module(self, name):
    self.assertEqual(getattr(transform, name).__module__, _UPSTREAM_MODULE)

  def test_private_names_imported_from_transform(self):
    self.assertIs(transform._precondition_by_lbfgs,  # pylint: disable=protected-access
                  lbfgs._precondition_by_lbfgs)  # pylint: disable=protected-access
    self.assertTrue(callable(transform._nesterov_first_moment))  # pylint: disable=protected-access

  def test_transform_defines_no_function(self):
    # transform.py holds re-exports only: every function comes from a file
    # of its own family.
    for name, obj in vars(transform).items():
      if inspect.isfunction(obj):
        with self.subTest(name=name):
          self.assertNotEqual(obj.__code__.co_filename, transform.__file__)


class PickleTest(parameterized.TestCase):

  @parameterized.named_parameters(
      ('adam', lambda: transform.scale_by_adam(), 'ScaleByAdamState'),
      ('amsgrad', lambda: transform.scale_by_amsgrad(), 'ScaleByAmsgradState'),
      ('rms_with_count',
       lambda: transform.scale_by_rms(bias_correction=True),
       'ScaleByRmsWithCountState'),
      ('lion', lambda: transform.scale_by_lion(), 'ScaleByLionState'),
      ('lbfgs', lambda: transform.scale_by_lbfgs(memory_size=3),
       'ScaleByLBFGSState'),
      ('apply_every', lambda: transform.apply_every(k=2), 'ApplyEvery'),
  )
  def test_state_round_trip_names_the_upstream_module(self, make, cls_name):
    tx = make()
    params = {'w': jnp.array([1.0, -2.0]), 'b': jnp.array(0.5)}
    grads = {'w': jnp.array([0.5, 0.25]), 'b': jnp.array(-1.0)}
    state = tx.init(params)
    _, state = tx.update(grads, state, params)
    self.assertEqual(type(state).__name__, cls_name)
    self.assertEqual(type(state).__module__, _UPSTREAM_MODULE)
    data = pickle.dumps(state)
    # The pickle refers to the class by the upstream module and name only.
    self.assertIn(_UPSTREAM_MODULE.encode(), data)
    for module in _FAMILIES:
      self.assertNotIn(module.__name__.encode(), data)
    restored = pickle.loads(data)
    self.assertIs(type(restored), type(state))
    self.assertEqual(jax.tree.structure(restored), jax.tree.structure(state))
    for got, want in zip(jax.tree.leaves(restored), jax.tree.leaves(state)):
      self.assertEqual(got.dtype, want.dtype)
      np.testing.assert_array_equal(got, want)

  def test_factory_pickles_by_reference(self):
    data = pickle.dumps(transform.scale_by_adam)
    self.assertIn(_UPSTREAM_MODULE.encode(), data)
    self.assertIs(pickle.loads(data), adam_family.scale_by_adam)


if __name__ == '__main__':
  absltest.main()
