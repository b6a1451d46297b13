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
"""Data- and model-parallel training of a small MLP on 8 host devices.

The mesh is ``jax.make_mesh((2, 4), ('data', 'model'))`` with explicit axis
types (shardings are part of the types) or with Auto axis types, installed
with ``jax.set_mesh``; 8 host devices come from ``optax/conftest.py``, and
the mesh is built from them on a GPU or TPU runner too. The
params are sharded ``P('data', 'model')`` (first kernel), ``P('model')``
(first bias), ``P('model', None)`` (second kernel) and replicated (second
bias); each batch is split over 'data'. For MultiSteps, inject_hyperparams,
partition and all three nested, with ``init`` run eagerly or under
``jax.jit`` (under Auto axes, with ``out_shardings`` computed by
``optax.tree_map_params``, since a jitted init there cannot see the params'
shardings otherwise):

* every per-parameter state leaf, and every update, is sharded like its
  parameter, after ``init`` and after every jitted step; scalar leaves are
  replicated over the whole mesh; the state keeps its tree and dtypes;
* the params and the state equal those of the same run on one device.

Only the public ``optax`` namespace is used.
"""

import functools

from absl.testing import absltest
from absl.testing import parameterized
import jax
from jax.sharding import AxisType
from jax.sharding import NamedSharding
from jax.sharding import PartitionSpec as P
import jax.numpy as jnp
import numpy as np

import optax

NUM_DEVICES = 8
_STEPS = 5

_SPECS = {
    'dense1': {'w': P('data', 'model'), 'b': P('model')},
    'dense2': {'w': P('model', None), 'b': P()},
}


def _params():
  # Every leaf has its own shape, so a state leaf's shape names its param.
  return {
      'dense1': {'w': jnp.linspace(-1.0, 1.0, 128).reshape(8, 16),
                 'b': jnp.linspace(0.0, 0.15, 16)},
      'dense2': {'w': jnp.linspace(0.5, -0.5, 32).reshape(16, 2),
                 'b': jnp.array([0.1, -0.1])},
  }


def _batch(i):
  x = jnp.linspace(-1.0, 1.0, 64).reshape(8, 8) * (1.0 + 0.1 * i)
  y = jnp.stack([jnp.sin(x.sum(axis=1) + i), jnp.cos(x[:, 0] - i)], axis=1)
  return x, y


def _loss(params, x, y, axis_type=None):
  """Mean squared error of a two-layer MLP.

  Args:
    params: the MLP's params (see ``_params``).
    x: a batch of inputs, shape (8, 8).
    y: the targets, shape (8, 2).
    axis_type: the mesh's axis type, or None on one device. On a mesh the
      kernels are gathered where the product needs them whole (explicitly
      with ``reshard`` on explicit axes, as a constraint on Auto axes).

  Returns:
    The loss, a scalar.
  """
  def layout(v, spec):
    if axis_type == 'explicit':
      return jax.sharding.reshard(v, spec)
    if axis_type == 'auto':
      return jax.lax.with_sharding_constraint(v, spec)
    return v

  w1 = layout(params['dense1']['w'], P(None, 'model'))
  w2 = layout(params['dense2']['w'], P(None, None))
  h = jnp.tanh(x @ w1 + params['dense1']['b'])
  out = layout(h, P('data', None)) @ w2 + params['dense2']['b']
  return jnp.mean(jnp.square(out - y))


def _labels(params):
  return jax.tree.map(lambda p: 'matrix' if p.ndim > 1 else 'vector', params)


def _schedule():
  return optax.linear_schedule(0.05, 0.01, transition_steps=_STEPS)


_TXS = {
    'multisteps_adamw': lambda: optax.MultiSteps(
        optax.adamw(0.05, weight_decay=0.01), every_k_schedule=2),
    'inject_adamw_schedule': lambda: optax.inject_hyperparams(optax.adamw)(
        learning_rate=_schedule(), weight_decay=0.01),
    'partition': lambda: optax.partition(
        {'matrix': optax.adamw(0.05, weight_decay=0.01),
         'vector': optax.sgd(0.1, momentum=0.9)}, _labels),
    'multisteps_partition_inject': lambda: optax.MultiSteps(
        optax.partition(
            {'matrix': optax.inject_hyperparams(optax.adamw)(
                learning_rate=_schedule(), weight_decay=0.01),
             'vector': optax.inject_hyperparams(optax.sgd)(
                 learning_rate=0.1, momentum=0.9)},
            _labels),
        every_k_schedule=2),
}


@functools.cache
def _optimizer(name):
  """The optimizer ``name`` and its jitted step, built once for all tests."""
  tx = _TXS[name]()

  @functools.partial(jax.jit, static_argnames='axis_type')
  def step(params, opt_state, x, y, axis_type):
    grads = jax.grad(_loss)(params, x, y, axis_type)
    updates, opt_state = tx.update(grads, opt_state, params)
    return optax.apply_updates(params, updates), opt_state, updates

  return tx, step


@functools.cache
def _one_device_run(name):
  """Params and state after each step of the run on the default device."""
  tx, step = _optimizer(name)
  params, opt_state = _params(), tx.init(_params())
  history = []
  for i in range(_STEPS):
    params, opt_state, _ = step(params, opt_state, *_batch(i), None)
    history.append((params, opt_state))
  return history


def _normalized(spec, ndim):
  return P(*(tuple(spec) + (None,) * (ndim - len(spec))))


class ShardedTrainingTest(parameterized.TestCase):

  def setUp(self):
    super().setUp()
    # The mesh is made of host CPU devices (a GPU or TPU runner has too few
    # of its own), and the one-device reference runs on the first of them,
    # so both compute at CPU precision.
    try:
      devices = jax.devices('cpu')
    except RuntimeError as e:
      self.skipTest(f'needs {NUM_DEVICES} CPU devices; jax has no CPU '
                    f'backend ({e})')
    if len(devices) < NUM_DEVICES:
      self.skipTest(f'needs {NUM_DEVICES} CPU devices (see '
                    f'optax/conftest.py); jax has {len(devices)}')
    self._devices = devices[:NUM_DEVICES]
    self.enter_context(jax.default_device(self._devices[0]))

  def _check_shardings(self, tree, mesh, shardings, what):
    """Per-param leaves sharded like their param, scalars replicated."""
    by_shape = {p.shape: s for p, s in zip(jax.tree.leaves(_params()),
                                           jax.tree.leaves(shardings))}
    for path, leaf in jax.tree.leaves_with_path(tree):
      where = f'{what} at {jax.tree_util.keystr(path)}'
      if not isinstance(leaf, jax.Array):
        continue
      self.assertIsInstance(leaf.sharding, NamedSharding, where)
      self.assertEqual(leaf.sharding.mesh.shape_tuple, mesh.shape_tuple,
                       where)
      if leaf.ndim == 0:
        self.assertTrue(leaf.sharding.is_fully_replicated,
                        f'{where}: scalar not replicated')
        self.assertLen(leaf.sharding.device_set, NUM_DEVICES, where)
        continue
      self.assertIn(leaf.shape, by_shape, f'{where}: unexpected shape')
      want = by_shape[leaf.shape]
      self.assertEqual(_normalized(leaf.sharding.spec, leaf.ndim),
                       _normalized(want.spec, leaf.ndim),
                       f'{where}: not sharded like its parameter')
      self.assertTrue(leaf.sharding.is_equivalent_to(want, leaf.ndim), where)
      if mesh.axis_types[0] == AxisType.Explicit:
        # The sharding is in the type too.
        self.assertEqual(
            _normalized(jax.typeof(leaf).sharding.spec, leaf.ndim),
            _normalized(want.spec, leaf.ndim), f'{where}: type sharding')

  def _check_same_types(self, got, want):
    self.assertEqual(jax.tree.structure(got), jax.tree.structure(want))
    for (path, a), b in zip(jax.tree.leaves_with_path(got),
                            jax.tree.leaves(want)):
      self.assertEqual(jnp.result_type(a), jnp.result_type(b),
                       jax.tree_util.keystr(path))

  @parameterized.named_parameters(
      (f'{name}_{axis_type}_{init}', name, axis_type, init)
      for name in _TXS for axis_type in ('explicit', 'auto')
      for init in ('eager', 'jit'))
  def test_state_follows_param_shardings_and_matches_one_device(
      self, name, axis_type, init):
    tx, step = _optimizer(name)
    kind = AxisType.Explicit if axis_type == 'explicit' else AxisType.Auto
    mesh = jax.make_mesh((2, 4), ('data', 'model'), axis_types=(kind, kind),
                         devices=self._devices)
    with jax.set_mesh(mesh):
      shardings = jax.tree.map(lambda s: NamedSharding(mesh, s), _SPECS)
      params = jax.device_put(_params(), shardings)
      if init == 'eager':
        opt_state = tx.init(params)
      elif axis_type == 'explicit':
        opt_state = jax.jit(tx.init)(params)
      else:
        abstract = jax.eval_shape(tx.init, params)
        out_shardings = optax.tree_map_params(
            tx, lambda _, s: s, abstract, shardings,
            transform_non_params=lambda _: NamedSharding(mesh, P()),
            is_leaf=lambda v: isinstance(v, optax.MaskedNode))
        opt_state = jax.jit(tx.init, out_shardings=out_shardings)(params)
      init_state = opt_state
      self._check_shardings(opt_state, mesh, shardings, 'init state')

      batch_sharding = NamedSharding(mesh, P('data', None))
      reference = _one_device_run(name)
      for i in range(_STEPS):
        x, y = jax.device_put(_batch(i), batch_sharding)
        params, opt_state, updates = step(params, opt_state, x, y, axis_type)
        what = f'step {i}'
        self._check_shardings(params, mesh, shardings, f'{what} params')
        self._check_shardings(updates, mesh, shardings, f'{what} updates')
        self._check_shardings(opt_state, mesh, shardings, f'{what} state')
        self._check_same_types(opt_state, init_state)

        ref_params, ref_state = reference[i]
        jax.tree.map(
            functools.partial(np.testing.assert_allclose, rtol=1e-5,
                              atol=1e-6, err_msg=what),
            (params, opt_state), (ref_params, ref_state))

  @parameterized.named_parameters(('explicit', 'explicit'), ('auto', 'auto'))
  def test_multisteps_accumulator_on_the_mesh(self, axis_type):
    tx, step = _optimizer('multisteps_adamw')
    kind = AxisType.Explicit if axis_type == 'explicit' else AxisType.Auto
    mesh = jax.make_mesh((2, 4), ('data', 'model'), axis_types=(kind, kind),
                         devices=self._devices)
    with jax.set_mesh(mesh):
      shardings = jax.tree.map(lambda s: NamedSharding(mesh, s), _SPECS)
      params0 = jax.device_put(_params(), shardings)
      state = tx.init(params0)
      batch_sharding = NamedSharding(mesh, P('data', None))
      x, y = jax.device_put(_batch(0), batch_sharding)
      params, state, updates = step(params0, state, x, y, axis_type)
      # First mini-step: zero updates, the accumulator holds the gradient,
      # both sharded like the params.
      grads = jax.jit(jax.grad(_loss), static_argnums=3)(
          params0, x, y, axis_type)
      for u in jax.tree.leaves(updates):
        np.testing.assert_array_equal(u, jnp.zeros_like(u))
      jax.tree.map(
          lambda a, g: np.testing.assert_allclose(a, g, rtol=1e-6),
          state.acc_grads, grads)
      self._check_shardings(state.acc_grads, mesh, shardings, 'acc_grads')
      jax.tree.map(np.testing.assert_array_equal, params, params0)
      # Second mini-step: the update is applied and the accumulator reset
      # to zeros that keep their sharding.
      x, y = jax.device_put(_batch(1), batch_sharding)
      params, state, updates = step(params, state, x, y, axis_type)
      self.assertEqual(int(state.mini_step), 0)
      self.assertEqual(int(state.gradient_step), 1)
      for a in jax.tree.leaves(state.acc_grads):
        np.testing.assert_array_equal(a, jnp.zeros_like(a))
      self._check_shardings(state.acc_grads, mesh, shardings, 'acc_grads')
      self.assertTrue(any(bool(jnp.any(u != 0))
                          for u in jax.tree.leaves(updates)))


if __name__ == '__main__':
  absltest.main()
