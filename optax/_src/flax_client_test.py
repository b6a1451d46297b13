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
"""Optax driven by Flax, the way Flax users train.

* Linen: ``flax.training.train_state.TrainState`` with ``apply_gradients``
  inside ``jax.jit``, for adamw with a schedule, ``chain(clip, adam)``,
  ``MultiSteps`` and ``inject_hyperparams``: the params equal those of a loop
  calling ``tx.update``/``apply_updates`` directly and those of a NumPy
  reference of the optimizer, and the state keeps the tree, shapes and dtypes
  of ``tx.init``.
* NNX: ``nnx.Optimizer(model, tx, wrt=nnx.Param)`` and
  ``optimizer.update(model, grads)`` inside ``nnx.jit``, plain, masked and
  partitioned by parameter name: the model and the optimizer state equal a
  plain-JAX run of the same optimizer on a dict of arrays.

Only the public ``optax`` namespace is used, so the file runs unchanged
against upstream optax.
"""

from typing import Any, Callable

from absl.testing import absltest
from absl.testing import parameterized
from flax import linen as nn
from flax import nnx
from flax.training import train_state
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
    y = jnp.sin(jnp.sum(x, axis=1, keepdims=True) + 0.3 * i)
    batches.append((x, y))
  return batches


def _schedule():
  return optax.warmup_cosine_decay_schedule(
      init_value=0.0, peak_value=0.05, warmup_steps=2, decay_steps=_STEPS,
      end_value=0.005)


class _NumpyAdamW:
  """Adam(W) in float64 NumPy, as in Kingma & Ba 2015 / Loshchilov 2019.

  The learning rate of step ``t`` (counted from 0) is ``lr(t)``; the update
  is ``-lr(t) * (mhat / (sqrt(vhat) + eps) + wd * p)`` with bias-corrected
  moments; optionally the gradient is first clipped to a global norm and the
  decay applied only where ``decay_mask`` is true.
  """

  def __init__(self, lr, *, wd=0.0, clip=None, decay_mask=None,
               b1=0.9, b2=0.999, eps=1e-8):
    self.lr = lr
    self.wd = wd
    self.clip = clip
    self.decay_mask = decay_mask
    self.b1, self.b2, self.eps = b1, b2, eps
    self.t = 0
    self.mu = None
    self.nu = None

  def step(self, grads, params):
    """Returns the new params (float64 dict) after one update."""
    g = {k: np.asarray(v, np.float64) for k, v in grads.items()}
    if self.clip is not None:
      norm = np.sqrt(sum(np.sum(v * v) for v in g.values()))
      if norm > self.clip:
        g = {k: v * (self.clip / norm) for k, v in g.items()}
    if self.mu is None:
      self.mu = {k: np.zeros_like(v) for k, v in g.items()}
      self.nu = {k: np.zeros_like(v) for k, v in g.items()}
    lr = float(self.lr(self.t)) if callable(self.lr) else self.lr
    self.t += 1
    new = {}
    for k, p in params.items():
      self.mu[k] = self.b1 * self.mu[k] + (1 - self.b1) * g[k]
      self.nu[k] = self.b2 * self.nu[k] + (1 - self.b2) * g[k] ** 2
      mhat = self.mu[k] / (1 - self.b1 ** self.t)
      vhat = self.nu[k] / (1 - self.b2 ** self.t)
      u = mhat / (np.sqrt(vhat) + self.eps)
      if self.decay_mask is None or self.decay_mask[k]:
        u = u + self.wd * p
      new[k] = p - lr * u
    return new


# ----------------------------------------------------------------------------
# Linen and TrainState.
# ----------------------------------------------------------------------------


class _LinenMLP(nn.Module):
  """Two dense layers with a tanh in between."""
  hidden: int = 8
  param_dtype: Any = jnp.float32

  @nn.compact
  def __call__(self, x):
    x = jnp.tanh(nn.Dense(self.hidden, param_dtype=self.param_dtype)(x))
    return nn.Dense(1, param_dtype=self.param_dtype)(x)


def _linen_setup(param_dtype=jnp.float32):
  model = _LinenMLP(param_dtype=param_dtype)
  x0, _ = _batches(1)[0]
  params = model.init(jax.random.key(0), x0)['params']
  return model, params


def _linen_loss(model):
  def loss(params, x, y):
    pred = model.apply({'params': params}, x)
    return jnp.mean(jnp.square(pred.astype(jnp.float32) - y))
  return loss


def _flat(params):
  """A linen params tree as a flat ``{'Dense_0/kernel': array}`` dict."""
  return {
      jax.tree_util.keystr(path, simple=True, separator='/'): leaf
      for path, leaf in jax.tree.leaves_with_path(params)
  }


_LINEN_TXS: dict[str, Callable[[], optax.GradientTransformation]] = {
    'adamw_schedule': lambda: optax.adamw(_schedule(), weight_decay=0.1),
    'clip_adam': lambda: optax.chain(
        optax.clip_by_global_norm(0.5), optax.adam(0.02)),
    'multisteps_adam': lambda: optax.MultiSteps(
        optax.adam(0.03), every_k_schedule=2),
    'inject_adamw_schedule': lambda: optax.inject_hyperparams(optax.adamw)(
        learning_rate=_schedule(), weight_decay=0.1),
}


def _assert_same_tree_and_dtypes(test, got, want):
  test.assertEqual(jax.tree.structure(got), jax.tree.structure(want))
  for (path, a), b in zip(jax.tree.leaves_with_path(got),
                          jax.tree.leaves(want)):
    where = jax.tree_util.keystr(path)
    test.assertEqual(jnp.shape(a), jnp.shape(b), where)
    test.assertEqual(jnp.result_type(a), jnp.result_type(b), where)


class LinenTrainStateTest(parameterized.TestCase):

  @parameterized.named_parameters(*[(name, name) for name in _LINEN_TXS])
  def test_apply_gradients_matches_direct_update_loop(self, name):
    model, params = _linen_setup()
    loss = _linen_loss(model)
    tx = _LINEN_TXS[name]()
    state = train_state.TrainState.create(
        apply_fn=model.apply, params=params, tx=tx)
    init_state = tx.init(params)
    _assert_same_tree_and_dtypes(self, state.opt_state, init_state)

    @jax.jit
    def train_step(state, x, y):
      grads = jax.grad(loss)(state.params, x, y)
      return state.apply_gradients(grads=grads)

    @jax.jit
    def reference_step(params, opt_state, x, y):
      grads = jax.grad(loss)(params, x, y)
      updates, opt_state = tx.update(grads, opt_state, params)
      return optax.apply_updates(params, updates), opt_state

    ref_params, ref_state = params, init_state
    for x, y in _batches():
      state = train_step(state, x, y)
      ref_params, ref_state = reference_step(ref_params, ref_state, x, y)
      _assert_same_tree_and_dtypes(self, state.opt_state, init_state)
      _assert_same_tree_and_dtypes(self, state.params, params)

    self.assertEqual(int(state.step), _STEPS)
    jax.tree.map(np.testing.assert_array_equal, state.params, ref_params)
    jax.tree.map(np.testing.assert_array_equal, state.opt_state, ref_state)
    # The optimizer did move the params.
    moved = jax.tree.map(lambda a, b: np.max(np.abs(a - b)), state.params,
                         params)
    self.assertGreater(max(jax.tree.leaves(moved)), 1e-3)

  @parameterized.named_parameters(
      ('adamw_schedule', 'adamw_schedule'),
      ('clip_adam', 'clip_adam'),
      ('inject_adamw_schedule', 'inject_adamw_schedule'),
  )
  def test_train_state_matches_numpy_adam(self, name):
    model, params = _linen_setup()
    loss = _linen_loss(model)
    if name == 'clip_adam':
      reference = _NumpyAdamW(0.02, clip=0.5)
    else:
      reference = _NumpyAdamW(_schedule(), wd=0.1)
    state = train_state.TrainState.create(
        apply_fn=model.apply, params=params, tx=_LINEN_TXS[name]())
    train_step = jax.jit(lambda s, x, y: s.apply_gradients(
        grads=jax.grad(loss)(s.params, x, y)))
    grad_fn = jax.jit(jax.grad(loss))

    ref = {k: np.asarray(v, np.float64) for k, v in _flat(params).items()}
    for x, y in _batches():
      # The reference takes the gradient at its own (float32-rounded) point.
      ref32 = jax.tree.unflatten(
          jax.tree.structure(params),
          [jnp.asarray(ref[k], jnp.float32) for k in _flat(params)])
      ref = reference.step(_flat(grad_fn(ref32, x, y)), ref)
      state = train_step(state, x, y)
    got = _flat(state.params)
    for k, want in ref.items():
      np.testing.assert_allclose(got[k], want, rtol=2e-5, atol=2e-6,
                                 err_msg=k)

  def test_multisteps_train_state_averages_k_gradients(self):
    model, params = _linen_setup()
    loss = _linen_loss(model)
    k = 3
    tx = optax.MultiSteps(optax.adam(0.03), every_k_schedule=k)
    state = train_state.TrainState.create(
        apply_fn=model.apply, params=params, tx=tx)
    train_step = jax.jit(lambda s, x, y: s.apply_gradients(
        grads=jax.grad(loss)(s.params, x, y)))
    grad_fn = jax.jit(jax.grad(loss))
    reference = _NumpyAdamW(0.03)
    ref = {n: np.asarray(v, np.float64) for n, v in _flat(params).items()}
    pending = []
    for i, (x, y) in enumerate(_batches()):
      before = state.params
      state = train_step(state, x, y)
      pending.append(_flat(grad_fn(before, x, y)))
      if (i + 1) % k:
        # Accumulating: the params do not move, the mini-step advances.
        jax.tree.map(np.testing.assert_array_equal, state.params, before)
        self.assertEqual(int(state.opt_state.mini_step), (i + 1) % k)
        continue
      mean = {n: np.mean([g[n] for g in pending], axis=0) for n in ref}
      pending = []
      ref = reference.step(mean, ref)
      got = _flat(state.params)
      for n, want in ref.items():
        np.testing.assert_allclose(got[n], want, rtol=2e-5, atol=2e-6,
                                   err_msg=f'step {i}: {n}')
      self.assertEqual(int(state.opt_state.gradient_step), (i + 1) // k)
      self.assertEqual(int(state.opt_state.mini_step), 0)

  def test_inject_hyperparams_follow_schedule_and_can_be_overridden(self):
    model, params = _linen_setup()
    loss = _linen_loss(model)
    schedule = _schedule()
    tx = optax.inject_hyperparams(optax.adamw)(
        learning_rate=schedule, weight_decay=0.1)
    state = train_state.TrainState.create(
        apply_fn=model.apply, params=params, tx=tx)
    train_step = jax.jit(lambda s, x, y: s.apply_gradients(
        grads=jax.grad(loss)(s.params, x, y)))
    for i, (x, y) in enumerate(_batches()):
      state = train_step(state, x, y)
      hyperparams = state.opt_state.hyperparams
      # The recorded learning rate is the one the step just used.
      np.testing.assert_allclose(hyperparams['learning_rate'], schedule(i),
                                 rtol=1e-6)
      self.assertEqual(hyperparams['learning_rate'].dtype, jnp.float32)
      np.testing.assert_allclose(hyperparams['weight_decay'], 0.1)

    # A constant hyperparameter can be changed in the state between steps,
    # the usual way of adjusting it from the training loop.
    tx = optax.inject_hyperparams(optax.adam)(learning_rate=0.1)
    state = train_state.TrainState.create(
        apply_fn=model.apply, params=params, tx=tx)
    x, y = _batches(1)[0]
    state = train_step(state, x, y)
    state.opt_state.hyperparams['learning_rate'] = jnp.zeros([], jnp.float32)
    frozen = train_step(state, x, y)
    jax.tree.map(np.testing.assert_array_equal, frozen.params, state.params)
    # The moments keep being updated even with a zero learning rate.
    self.assertEqual(int(frozen.opt_state.inner_state[0].count), 2)

  def test_bfloat16_params_keep_their_dtypes(self):
    model, params = _linen_setup(param_dtype=jnp.bfloat16)
    loss = _linen_loss(model)
    tx = optax.chain(optax.clip_by_global_norm(1.0),
                     optax.adam(0.01, mu_dtype=jnp.float32))
    state = train_state.TrainState.create(
        apply_fn=model.apply, params=params, tx=tx)
    init_state = tx.init(params)
    adam_state = init_state[1][0]
    for leaf in jax.tree.leaves(adam_state.mu):
      self.assertEqual(leaf.dtype, jnp.float32)
    for leaf in jax.tree.leaves(adam_state.nu):
      self.assertEqual(leaf.dtype, jnp.bfloat16)
    train_step = jax.jit(lambda s, x, y: s.apply_gradients(
        grads=jax.grad(loss)(s.params, x, y)))
    for x, y in _batches(3):
      grads = jax.grad(loss)(state.params, x, y)
      updates, _ = tx.update(grads, state.opt_state, state.params)
      # Updates in the params' dtype (upstream 0.2.8 returns float32 here,
      # promoted by the float32 first moment).
      for leaf in jax.tree.leaves(updates):
        self.assertEqual(leaf.dtype, jnp.bfloat16)
      state = train_step(state, x, y)
      _assert_same_tree_and_dtypes(self, state.opt_state, init_state)
      _assert_same_tree_and_dtypes(self, state.params, params)


# ----------------------------------------------------------------------------
# NNX and nnx.Optimizer.
# ----------------------------------------------------------------------------


class _Calls(nnx.Variable):
  """A non-trainable counter: ``wrt=nnx.Param`` must leave it alone."""


class _NnxMLP(nnx.Module):
  """Two linear layers with a tanh in between, and a call counter."""

  def __init__(self, rngs):
    self.hidden = nnx.Linear(4, 8, rngs=rngs)
    self.out = nnx.Linear(8, 1, rngs=rngs)
    self.calls = _Calls(jnp.zeros([], jnp.int32))

  def __call__(self, x):
    self.calls[...] += 1
    return self.out(jnp.tanh(self.hidden(x)))


def _nnx_loss(model, x, y):
  return jnp.mean(jnp.square(model(x) - y))


def _plain_loss(params, x, y):
  """The same network as ``_NnxMLP``, on a plain dict of arrays."""
  h = jnp.tanh(x @ params['hidden']['kernel'] + params['hidden']['bias'])
  pred = h @ params['out']['kernel'] + params['out']['bias']
  return jnp.mean(jnp.square(pred - y))


def _is_kernel_path(path):
  return 'kernel' in jax.tree_util.keystr(path)


def _kernel_mask(tree):
  """True on the kernels, for a dict of arrays or an nnx.State alike."""
  return jax.tree.map_with_path(lambda path, _: _is_kernel_path(path), tree)


def _labels(tree):
  """'kernel' or 'bias', for a dict of arrays or an nnx.State alike."""
  return jax.tree.map_with_path(
      lambda path, _: 'kernel' if _is_kernel_path(path) else 'bias', tree)


_NNX_TXS: dict[str, Callable[[], optax.GradientTransformation]] = {
    'adamw_schedule': lambda: optax.adamw(_schedule(), weight_decay=0.1),
    'adamw_decay_mask': lambda: optax.adamw(
        0.02, weight_decay=0.5, mask=_kernel_mask),
    'masked_adam': lambda: optax.masked(optax.adam(0.02), _kernel_mask),
    'partition_frozen_bias': lambda: optax.partition(
        {'kernel': optax.adam(0.02), 'bias': optax.set_to_zero()}, _labels),
    'multi_transform': lambda: optax.multi_transform(
        {'kernel': optax.adamw(0.02, weight_decay=0.1),
         'bias': optax.sgd(0.1, momentum=0.9)}, _labels),
    'inject_adam': lambda: optax.inject_hyperparams(optax.adam)(
        learning_rate=_schedule()),
}


class NnxOptimizerTest(parameterized.TestCase):

  @parameterized.named_parameters(*[(name, name) for name in _NNX_TXS])
  def test_optimizer_update_matches_plain_jax(self, name):
    model = _NnxMLP(nnx.Rngs(0))
    params0 = nnx.to_pure_dict(nnx.state(model, nnx.Param))
    tx = _NNX_TXS[name]()
    optimizer = nnx.Optimizer(model, tx, wrt=nnx.Param)
    self.assertEqual(optimizer.step[...].dtype, jnp.uint32)

    @nnx.jit
    def train_step(model, optimizer, x, y):
      loss, grads = nnx.value_and_grad(_nnx_loss)(model, x, y)
      optimizer.update(model, grads)
      return loss

    @jax.jit
    def reference_step(params, opt_state, x, y):
      loss, grads = jax.value_and_grad(_plain_loss)(params, x, y)
      updates, opt_state = tx.update(grads, opt_state, params)
      return optax.apply_updates(params, updates), opt_state, loss

    ref_params = params0
    ref_state = tx.init(params0)
    for x, y in _batches():
      loss = train_step(model, optimizer, x, y)
      ref_params, ref_state, ref_loss = reference_step(
          ref_params, ref_state, x, y)
      np.testing.assert_allclose(loss, ref_loss, rtol=1e-5)

    self.assertEqual(int(optimizer.step[...]), _STEPS)
    self.assertEqual(int(model.calls[...]), _STEPS)
    got = nnx.to_pure_dict(nnx.state(model, nnx.Param))
    jax.tree.map(
        lambda a, b: np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6),
        got, ref_params)
    # The optimizer state, once unwrapped, holds the reference's values,
    # leaf by leaf, with the same shapes and dtypes.
    opt_leaves = jax.tree.leaves(nnx.as_pure(optimizer.opt_state))
    ref_leaves = jax.tree.leaves(ref_state)
    self.assertLen(opt_leaves, len(ref_leaves))
    for a, b in zip(opt_leaves, ref_leaves):
      self.assertEqual(a.shape, b.shape)
      self.assertEqual(a.dtype, b.dtype)
      np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)

  def test_partition_freezes_biases_and_trains_kernels(self):
    model = _NnxMLP(nnx.Rngs(1))
    before = nnx.to_pure_dict(nnx.state(model, nnx.Param))
    optimizer = nnx.Optimizer(model, _NNX_TXS['partition_frozen_bias'](),
                              wrt=nnx.Param)

    @nnx.jit
    def train_step(model, optimizer, x, y):
      grads = nnx.grad(_nnx_loss)(model, x, y)
      optimizer.update(model, grads)

    for x, y in _batches(3):
      train_step(model, optimizer, x, y)
    after = nnx.to_pure_dict(nnx.state(model, nnx.Param))
    for layer in ('hidden', 'out'):
      np.testing.assert_array_equal(after[layer]['bias'],
                                    before[layer]['bias'])
      self.assertGreater(
          np.max(np.abs(after[layer]['kernel'] - before[layer]['kernel'])),
          1e-3)

  def test_adamw_decay_mask_matches_numpy_reference(self):
    model = _NnxMLP(nnx.Rngs(2))
    params0 = nnx.to_pure_dict(nnx.state(model, nnx.Param))
    optimizer = nnx.Optimizer(model, _NNX_TXS['adamw_decay_mask'](),
                              wrt=nnx.Param)

    @nnx.jit
    def train_step(model, optimizer, x, y):
      grads = nnx.grad(_nnx_loss)(model, x, y)
      optimizer.update(model, grads)

    def flat(tree):
      return {
          jax.tree_util.keystr(path, simple=True, separator='/'): leaf
          for path, leaf in jax.tree.leaves_with_path(tree)
      }

    names = list(flat(params0))
    reference = _NumpyAdamW(
        0.02, wd=0.5, decay_mask={n: n.endswith('kernel') for n in names})
    ref = {n: np.asarray(v, np.float64) for n, v in flat(params0).items()}
    grad_fn = jax.jit(jax.grad(_plain_loss))
    for x, y in _batches():
      ref32 = jax.tree.unflatten(
          jax.tree.structure(params0),
          [jnp.asarray(ref[n], jnp.float32) for n in names])
      ref = reference.step(flat(grad_fn(ref32, x, y)), ref)
      train_step(model, optimizer, x, y)
    got = flat(nnx.to_pure_dict(nnx.state(model, nnx.Param)))
    for n in names:
      np.testing.assert_allclose(got[n], ref[n], rtol=2e-5, atol=2e-6,
                                 err_msg=n)


if __name__ == '__main__':
  absltest.main()
