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
"""Optax driven by Equinox, the way Equinox users train.

The params are an ``eqx.Module`` (filtered with ``eqx.filter`` /
``eqx.partition``), steps run under ``eqx.filter_jit`` with gradients from
``eqx.filter_value_and_grad``, and the model is rebuilt with
``eqx.apply_updates`` or ``eqx.combine``. Every trajectory is compared with
the same optimizer run on a plain dict of arrays through a plain-JAX copy of
the network.

Equinox models are callable, and the masks and labels users build with
``jax.tree.map(..., model)`` or ``eqx.tree_at`` are Modules too, so callable:
``optax.masked``, ``optax.adamw(mask=...)``, ``optax.partition`` and
``optax.multi_transform`` must take such a tree as a mask or label tree, not
call it as a function of the params. Upstream 0.2.8 does so for masks;
for labels it calls a callable Module (``TypeError`` from the model's forward
pass), so ``test_partition_labels_as_callable_module`` and
``test_partition_freezes_with_filter_spec_labels`` check the fork only.

Only the public ``optax`` namespace is used.
"""

from typing import Callable

from absl.testing import absltest
from absl.testing import parameterized
import equinox as eqx
import jax
import jax.numpy as jnp
import numpy as np
import optax

_STEPS = 6


def _batches(n=_STEPS):
  """``n`` small regression batches, different from one another."""
  batches = []
  for i in range(n):
    x = jnp.linspace(-1.0, 1.0, 24).reshape(6, 4) * (1.0 + 0.25 * i)
    y = jnp.cos(jnp.sum(x, axis=1, keepdims=True) - 0.2 * i)
    batches.append((x, y))
  return batches


class _Net(eqx.Module):
  """Two linear layers with a tanh in between; every leaf is an array."""
  hidden: eqx.nn.Linear
  out: eqx.nn.Linear

  def __init__(self, key):
    k1, k2 = jax.random.split(key)
    self.hidden = eqx.nn.Linear(4, 8, key=k1)
    self.out = eqx.nn.Linear(8, 1, key=k2)

  def __call__(self, x):
    return self.out(jnp.tanh(self.hidden(x)))


def _mlp(key):
  """The same network as an ``eqx.nn.MLP`` (activations are leaves)."""
  return eqx.nn.MLP(4, 1, 8, 1, activation=jnp.tanh, key=key)


def _linears(model):
  return ((model.hidden, model.out) if isinstance(model, _Net)
          else tuple(model.layers))


def _as_dict(model):
  """The weights of ``_Net`` / ``_mlp`` (or a mask of them) as a dict."""
  first, second = _linears(model)
  return {'hidden': {'weight': first.weight, 'bias': first.bias},
          'out': {'weight': second.weight, 'bias': second.bias}}


def _model_loss(model, x, y):
  pred = jax.vmap(model)(x)
  return jnp.mean(jnp.square(pred - y))


def _plain_loss(params, x, y):
  """``_model_loss`` written out on the dict of ``_as_dict``."""
  h = jnp.tanh(x @ params['hidden']['weight'].T + params['hidden']['bias'])
  pred = h @ params['out']['weight'].T + params['out']['bias']
  return jnp.mean(jnp.square(pred - y))


def _reference_run(tx, params, batches):
  """The plain-JAX training loop on a dict of arrays."""
  @jax.jit
  def step(params, opt_state, x, y):
    loss, grads = jax.value_and_grad(_plain_loss)(params, x, y)
    updates, opt_state = tx.update(grads, opt_state, params)
    return optax.apply_updates(params, updates), opt_state, loss

  opt_state = tx.init(params)
  losses = []
  for x, y in batches:
    params, opt_state, loss = step(params, opt_state, x, y)
    losses.append(loss)
  return params, opt_state, losses


def _equinox_run(tx, model, batches):
  """The Equinox training loop: filter, filter_jit, apply_updates."""
  @eqx.filter_jit
  def step(model, opt_state, x, y):
    loss, grads = eqx.filter_value_and_grad(_model_loss)(model, x, y)
    updates, opt_state = tx.update(
        grads, opt_state, eqx.filter(model, eqx.is_inexact_array))
    return eqx.apply_updates(model, updates), opt_state, loss

  opt_state = tx.init(eqx.filter(model, eqx.is_inexact_array))
  losses = []
  for x, y in batches:
    model, opt_state, loss = step(model, opt_state, x, y)
    losses.append(loss)
  return model, opt_state, losses


def _assert_close(got, want, rtol=1e-5, atol=1e-6):
  jax.tree.map(
      lambda a, b: np.testing.assert_allclose(a, b, rtol=rtol, atol=atol),
      got, want)


def _schedule():
  return optax.linear_onecycle_schedule(_STEPS, 0.05)


_TXS: dict[str, Callable[[], optax.GradientTransformation]] = {
    'adam': lambda: optax.adam(0.02),
    'adamw_schedule': lambda: optax.adamw(_schedule(), weight_decay=0.1),
    'clip_adam': lambda: optax.chain(
        optax.clip_by_global_norm(0.3), optax.adam(0.02)),
    'multisteps_adam': lambda: optax.MultiSteps(
        optax.adam(0.03), every_k_schedule=2),
    'inject_lion': lambda: optax.inject_hyperparams(optax.lion)(
        learning_rate=0.005, b1=0.9),
}


def _ndim_mask(tree):
  return jax.tree.map(lambda x: x.ndim > 1, tree)


def _ndim_labels(tree):
  return jax.tree.map(lambda x: 'matrix' if x.ndim > 1 else 'vector', tree)


class EquinoxTrainingTest(parameterized.TestCase):

  @parameterized.named_parameters(
      (f'{name}_{net}', name, net)
      for name in _TXS for net in ('module', 'mlp'))
  def test_filter_jit_training_matches_plain_jax(self, name, net):
    key = jax.random.key(0)
    model = _Net(key) if net == 'module' else _mlp(key)
    tx = _TXS[name]()
    params = eqx.filter(model, eqx.is_inexact_array)
    init_state = tx.init(params)
    model_out, state_out, losses = _equinox_run(tx, model, _batches())
    ref_params, ref_state, ref_losses = _reference_run(
        tx, _as_dict(model), _batches())

    np.testing.assert_allclose(losses, ref_losses, rtol=1e-5)
    _assert_close(_as_dict(model_out), ref_params)
    # The model kept its static parts and its type.
    self.assertIs(type(model_out), type(model))
    self.assertEqual(jax.tree.structure(model_out),
                     jax.tree.structure(model))
    # The state is shaped like the Module params, and equals the dict run's
    # state leaf by leaf once both are put in the same order.
    self.assertEqual(jax.tree.structure(state_out),
                     jax.tree.structure(init_state))
    for a, b in zip(jax.tree.leaves(state_out), jax.tree.leaves(init_state)):
      self.assertEqual(jnp.shape(a), jnp.shape(b))
      self.assertEqual(jnp.result_type(a), jnp.result_type(b))
    dict_order = jax.tree.leaves(ref_state)
    module_order = jax.tree.leaves(jax.tree.map(
        lambda x: _as_dict(x) if isinstance(x, eqx.Module) else x, state_out,
        is_leaf=lambda x: isinstance(x, eqx.Module)))
    self.assertLen(module_order, len(dict_order))
    for a, b in zip(module_order, dict_order):
      np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)

  def test_partition_combine_loop_matches_apply_updates_loop(self):
    model = _mlp(jax.random.key(1))
    tx = optax.adamw(0.02, weight_decay=0.1)
    params, static = eqx.partition(model, eqx.is_inexact_array)

    @eqx.filter_jit
    def step(params, opt_state, x, y):
      def loss(p):
        return _model_loss(eqx.combine(p, static), x, y)
      grads = jax.grad(loss)(params)
      updates, opt_state = tx.update(grads, opt_state, params)
      return optax.apply_updates(params, updates), opt_state

    opt_state = tx.init(params)
    for x, y in _batches():
      params, opt_state = step(params, opt_state, x, y)
    model_out, _, _ = _equinox_run(tx, model, _batches())
    jax.tree.map(np.testing.assert_array_equal,
                 eqx.filter(model_out, eqx.is_inexact_array), params)
    # The static half is untouched: the activations are still there.
    self.assertIs(eqx.combine(params, static).activation, jnp.tanh)


class EquinoxMaskTest(parameterized.TestCase):
  """Masks and labels shaped like an Equinox Module."""

  @parameterized.named_parameters(
      ('masked_adam', lambda m: optax.masked(optax.adam(0.02), m)),
      ('adamw_mask', lambda m: optax.adamw(0.02, weight_decay=0.5, mask=m)),
      ('chain_masked_decay', lambda m: optax.chain(
          optax.masked(optax.add_decayed_weights(0.5), m),
          optax.sgd(0.05, momentum=0.9))),
  )
  def test_module_mask_matches_dict_mask(self, build):
    model = _Net(jax.random.key(2))
    mask = _ndim_mask(model)
    self.assertIsInstance(mask, _Net)
    self.assertTrue(callable(mask))
    model_out, _, losses = _equinox_run(build(mask), model, _batches())
    ref_params, _, ref_losses = _reference_run(
        build(_as_dict(mask)), _as_dict(model), _batches())
    np.testing.assert_allclose(losses, ref_losses, rtol=1e-5)
    _assert_close(_as_dict(model_out), ref_params)
    # The same mask given as a function of the params gives the same run.
    fn_out, _, _ = _equinox_run(build(_ndim_mask), model, _batches())
    jax.tree.map(np.testing.assert_array_equal, fn_out, model_out)

  def test_masked_module_mask_passes_unmasked_gradients_through(self):
    model = _Net(jax.random.key(3))
    mask = _ndim_mask(model)
    tx = optax.masked(optax.sgd(0.1, momentum=0.9), mask)
    x, y = _batches(1)[0]
    grads = eqx.filter_grad(_model_loss)(model, x, y)
    state = tx.init(model)
    updates, state = tx.update(grads, state, model)
    for got, g, m in zip(jax.tree.leaves(updates), jax.tree.leaves(grads),
                         jax.tree.leaves(mask)):
      np.testing.assert_allclose(got, -0.1 * g if m else g, rtol=1e-6)
    # The inner state (the momentum) only holds the masked-in leaves.
    shapes = [x.shape for x in jax.tree.leaves(state.inner_state)]
    self.assertEqual(shapes, [(8, 4), (1, 8)])

  def test_filter_spec_mask_built_with_tree_at(self):
    model = _mlp(jax.random.key(4))
    params = eqx.filter(model, eqx.is_inexact_array)
    # The usual Equinox filter spec: False everywhere (activations
    # included), True on the last layer only.
    spec = jax.tree.map(lambda _: False, model)
    spec = eqx.tree_at(lambda m: (m.layers[-1].weight, m.layers[-1].bias),
                       spec, replace=(True, True))
    tx = optax.masked(optax.adam(0.1), spec)
    x, y = _batches(1)[0]
    grads = eqx.filter_grad(_model_loss)(model, x, y)
    state = tx.init(params)
    updates, _ = tx.update(grads, state, params)
    # Masked out: the gradient itself. Masked in: Adam's first step is
    # -lr * sign(g) (up to eps).
    first, last = updates.layers
    np.testing.assert_array_equal(first.weight, grads.layers[0].weight)
    np.testing.assert_array_equal(first.bias, grads.layers[0].bias)
    for got, g in ((last.weight, grads.layers[-1].weight),
                   (last.bias, grads.layers[-1].bias)):
      np.testing.assert_allclose(got, -0.1 * jnp.sign(g), rtol=1e-5)
    self.assertIsNone(updates.activation)

  def test_partition_labels_as_module_tree(self):
    # A Module without __call__: a plain labelled tree for any version.
    class Linear(eqx.Module):
      """Weights only, no forward pass."""
      weight: jax.Array
      bias: jax.Array

    params = Linear(jnp.full((3, 2), 2.0), jnp.full((2,), 2.0))
    labels = _ndim_labels(params)
    self.assertFalse(callable(labels))
    tx = optax.partition(
        {'matrix': optax.sgd(0.5), 'vector': optax.set_to_zero()}, labels)
    grads = Linear(jnp.ones((3, 2)), jnp.ones((2,)))
    updates, _ = tx.update(grads, tx.init(params), params)
    np.testing.assert_array_equal(updates.weight, jnp.full((3, 2), -0.5))
    np.testing.assert_array_equal(updates.bias, jnp.zeros((2,)))

  @parameterized.named_parameters(
      ('partition', optax.partition),
      ('multi_transform', optax.multi_transform),
  )
  def test_partition_labels_as_callable_module(self, partition):
    # Upstream 0.2.8 calls the labels Module as a function of the params
    # (TypeError from the model's forward pass); the fork takes it as a tree.
    model = _Net(jax.random.key(5))
    labels = _ndim_labels(model)
    self.assertTrue(callable(labels))

    def build(labels):
      return partition(
          {'matrix': optax.adamw(0.02, weight_decay=0.1),
           'vector': optax.sgd(0.05, momentum=0.9)}, labels)

    model_out, state, losses = _equinox_run(build(labels), model, _batches())
    ref_params, _, ref_losses = _reference_run(
        build(_as_dict(labels)), _as_dict(model), _batches())
    np.testing.assert_allclose(losses, ref_losses, rtol=1e-5)
    _assert_close(_as_dict(model_out), ref_params)
    self.assertEqual(set(state.inner_states), {'matrix', 'vector'})

  def test_partition_freezes_with_filter_spec_labels(self):
    model = _mlp(jax.random.key(6))
    spec = jax.tree.map(lambda _: False, model)
    spec = eqx.tree_at(lambda m: (m.layers[-1].weight, m.layers[-1].bias),
                       spec, replace=(True, True))
    labels = jax.tree.map(lambda t: 'train' if t else 'freeze', spec)
    tx = optax.partition(
        {'train': optax.adam(0.05), 'freeze': optax.set_to_zero()}, labels)
    model_out, _, _ = _equinox_run(tx, model, _batches(3))
    np.testing.assert_array_equal(model_out.layers[0].weight,
                                  model.layers[0].weight)
    np.testing.assert_array_equal(model_out.layers[0].bias,
                                  model.layers[0].bias)
    # The trained layer follows Adam on the last layer alone.
    last_only = optax.adam(0.05)
    params = eqx.filter(model, eqx.is_inexact_array)
    state = last_only.init(params.layers[-1])
    for x, y in _batches(3):
      grads = eqx.filter_grad(_model_loss)(eqx.combine(params, model), x, y)
      updates, state = last_only.update(grads.layers[-1], state)
      last = optax.apply_updates(params.layers[-1], updates)
      params = eqx.tree_at(lambda p: p.layers[-1], params, last)
    _assert_close(model_out.layers[-1].weight, params.layers[-1].weight)
    _assert_close(model_out.layers[-1].bias, params.layers[-1].bias)


if __name__ == '__main__':
  absltest.main()
