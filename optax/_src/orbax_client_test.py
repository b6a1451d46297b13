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
"""Optimizer states through Orbax checkpoints, as training jobs resume.

A few jitted steps, then params and optimizer state are saved with
``orbax.checkpoint`` (``StandardCheckpointer`` and ``PyTreeCheckpointer``)
and restored into the target users have at hand: ``tx.init(params)``, or its
abstract version from ``jax.eval_shape``. The restored state has the
NamedTuple classes, shapes and dtypes of the target and the saved values, and
training continued from it is bit-identical to training that never stopped.
The optimizers cover the state kinds that matter: moments (adam, lion),
injected hyperparameters with a schedule, MultiSteps saved in the middle of
an accumulation, chained states, factored moments (adafactor), MaskedNode
leaves (adamw with a mask), with a bfloat16 parameter among float32 ones.

Checkpoints written by upstream optax and read by the fork (and back) are
checked by tools/compare, not here.
"""

import functools
import os
import tempfile
from typing import Callable

from absl.testing import absltest
from absl.testing import parameterized
import jax
import jax.numpy as jnp
import numpy as np
import orbax.checkpoint as ocp

import optax
from optax._src import test_utils

_BEFORE = 4  # Steps before the checkpoint.
_AFTER = 4  # Steps after it.


def _params():
  return {
      'w': jnp.linspace(-1.0, 1.0, 12, dtype=jnp.float32).reshape(4, 3),
      'b': jnp.array([0.1, -0.2, 0.3], jnp.float32),
      'emb': jnp.linspace(0.5, -0.5, 16, dtype=jnp.bfloat16).reshape(2, 8),
  }


def _loss(params, i):
  """A different quadratic-plus-quartic bowl at every step ``i``."""
  total = 0.0
  for k, p in sorted(params.items()):
    target = jnp.sin(jnp.arange(p.size, dtype=jnp.float32) + i + len(k))
    d = p.astype(jnp.float32).reshape(-1) - target
    total = total + jnp.sum(d ** 2 + 0.1 * d ** 4)
  return total


def _schedule():
  return optax.warmup_cosine_decay_schedule(
      0.0, 0.1, warmup_steps=2, decay_steps=_BEFORE + _AFTER)


def _decay_mask(params):
  return jax.tree.map(lambda x: x.ndim > 1, params)


_TXS: dict[str, Callable[[], optax.GradientTransformation]] = {
    'adam': lambda: optax.adam(0.05),
    'inject_adamw_schedule': lambda: optax.inject_hyperparams(optax.adamw)(
        learning_rate=_schedule(), weight_decay=0.01),
    # Saved after 4 steps: one gradient sits in the accumulator.
    'multisteps_adam': lambda: optax.MultiSteps(
        optax.adam(0.05), every_k_schedule=3),
    'clip_adam': lambda: optax.chain(
        optax.clip_by_global_norm(0.5), optax.adam(0.05)),
    'lion': lambda: optax.lion(0.01, b1=0.9, b2=0.99),
    'adafactor_factored': lambda: optax.adafactor(
        0.05, min_dim_size_to_factor=2),
    'adamw_masked': lambda: optax.adamw(
        0.05, weight_decay=0.1, mask=_decay_mask),
}


@functools.cache
def _cached(name):
  """The optimizer ``name`` and its jitted step, built once for all tests."""
  tx = _TXS[name]()
  return tx, _make_step(tx)


def _make_step(tx):
  @jax.jit
  def step(params, opt_state, i):
    grads = jax.grad(_loss)(params, i)
    updates, opt_state = tx.update(grads, opt_state, params)
    return optax.apply_updates(params, updates), opt_state
  return step


def _run(step, params, opt_state, start, n):
  for i in range(start, start + n):
    params, opt_state = step(params, opt_state, jnp.asarray(i, jnp.int32))
  return params, opt_state


def _save_and_restore(kind, tree, target, path):
  """Saves ``tree`` at ``path`` with one kind of checkpointer, restores it."""
  if kind == 'standard':
    with ocp.StandardCheckpointer() as checkpointer:
      checkpointer.save(path, tree)
      checkpointer.wait_until_finished()
      return checkpointer.restore(path, target)
  checkpointer = ocp.PyTreeCheckpointer()
  checkpointer.save(path, args=ocp.args.PyTreeSave(tree))
  restore_args = ocp.checkpoint_utils.construct_restore_args(target)
  return checkpointer.restore(
      path, args=ocp.args.PyTreeRestore(item=target,
                                        restore_args=restore_args))


def _assert_same_types(got, want):
  """Same tree (NamedTuple classes included), shapes and dtypes."""
  test_utils.assert_trees_all_equal_shapes(got, want)
  test_utils.assert_trees_all_equal_dtypes(got, want)


def _assert_bitwise_equal(got, want):
  jax.tree.map(
      lambda a, b: np.testing.assert_array_equal(
          np.asarray(a).reshape(-1).view(np.uint8),
          np.asarray(b).reshape(-1).view(np.uint8)),
      got, want)


class OrbaxCheckpointTest(parameterized.TestCase):

  @parameterized.named_parameters(
      (f'{name}_{kind}_{target}', name, kind, target)
      for name in _TXS for kind in ('standard', 'pytree')
      for target in ('init', 'abstract'))
  def test_restore_and_continue_is_bit_identical(self, name, kind, target):
    tx, step = _cached(name)
    params0 = _params()
    init_state = tx.init(params0)
    params, opt_state = _run(step, params0, init_state, 0, _BEFORE)
    saved = {'params': params, 'opt_state': opt_state}

    template = {'params': params0, 'opt_state': init_state}
    if target == 'abstract':
      template = jax.eval_shape(
          lambda p: {'params': p, 'opt_state': tx.init(p)}, params0)
    with tempfile.TemporaryDirectory() as tmp:
      restored = _save_and_restore(kind, saved, template,
                                   os.path.join(tmp, 'checkpoint'))

    _assert_same_types(restored['opt_state'], init_state)
    _assert_same_types(restored['params'], params0)
    _assert_bitwise_equal(restored, saved)

    # Training on from the checkpoint, and on without stopping.
    resumed = _run(step, restored['params'], restored['opt_state'],
                   _BEFORE, _AFTER)
    unbroken = _run(step, params, opt_state, _BEFORE, _AFTER)
    _assert_bitwise_equal(resumed, unbroken)
    _assert_same_types(resumed[1], init_state)
    # The continuation did train: the params moved after the checkpoint.
    moved = jax.tree.map(
        lambda a, b: float(jnp.max(jnp.abs(a.astype(jnp.float32)
                                           - b.astype(jnp.float32)))),
        resumed[0], params)
    self.assertGreater(max(jax.tree.leaves(moved)), 0.0)

  def test_multisteps_resumes_inside_an_accumulation(self):
    tx, step = _cached('multisteps_adam')
    params0 = _params()
    params, opt_state = _run(step, params0, tx.init(params0), 0, _BEFORE)
    self.assertEqual(int(opt_state.mini_step), _BEFORE % 3)
    self.assertEqual(int(opt_state.gradient_step), _BEFORE // 3)
    with tempfile.TemporaryDirectory() as tmp:
      restored = _save_and_restore('standard', opt_state, tx.init(params0),
                                   os.path.join(tmp, 'checkpoint'))
    self.assertEqual(int(restored.mini_step), _BEFORE % 3)
    self.assertEqual(restored.mini_step.dtype, opt_state.mini_step.dtype)
    # The pending gradient survived: it is the step-3 gradient, since the
    # accumulator restarted after the emit at step 2.
    want = jax.grad(_loss)(
        _run(step, params0, tx.init(params0), 0, 3)[0], 3)
    jax.tree.map(
        lambda a, b: np.testing.assert_allclose(
            np.asarray(a, np.float32), np.asarray(b, np.float32), rtol=1e-6),
        restored.acc_grads, want)
    # Two more mini-steps complete the accumulation and move the params.
    after_one, state = _run(step, params, restored, _BEFORE, 1)
    jax.tree.map(np.testing.assert_array_equal, after_one, params)
    after_two, state = _run(step, after_one, state, _BEFORE + 1, 1)
    self.assertEqual(int(state.gradient_step), 2)
    self.assertEqual(int(state.mini_step), 0)
    moved = jax.tree.map(lambda a, b: bool(jnp.any(a != b)), after_two,
                         params)
    self.assertTrue(all(jax.tree.leaves(moved)))

  def test_inject_hyperparams_restores_an_overridden_value(self):
    tx = optax.inject_hyperparams(optax.adam)(learning_rate=0.05)
    params0 = _params()
    step = _make_step(tx)
    params, opt_state = _run(step, params0, tx.init(params0), 0, 2)
    # A value set by the training loop is part of the state, so it is saved.
    opt_state.hyperparams['learning_rate'] = jnp.asarray(0.0, jnp.float32)
    with tempfile.TemporaryDirectory() as tmp:
      restored = _save_and_restore('pytree', opt_state, tx.init(params0),
                                   os.path.join(tmp, 'checkpoint'))
    self.assertEqual(float(restored.hyperparams['learning_rate']), 0.0)
    self.assertEqual(restored.hyperparams['learning_rate'].dtype,
                     jnp.float32)
    frozen, _ = _run(step, params, restored, 2, 2)
    jax.tree.map(np.testing.assert_array_equal, frozen, params)


if __name__ == '__main__':
  absltest.main()
