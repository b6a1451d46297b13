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
"""Tests of `leaf_kernels`: one trace per leaf signature, the same bits."""

import collections

from absl.testing import absltest
from absl.testing import parameterized
import jax
import jax.numpy as jnp
import numpy as np

import optax
from optax._src import leaf_kernels

_CALLS = collections.Counter()


def _scaled_sum(x, y, a):
  """A per-leaf function that counts how often its Python runs."""
  _CALLS['scaled_sum'] += 1
  return a * x + y, x - y


_KERNEL = leaf_kernels.LeafKernel(_scaled_sum, num_results=2)


def _tree():
  return {'a': jnp.arange(3.0), 'b': [jnp.ones((2, 2)), None],
          'c': jnp.full(3, 2.0, jnp.float32), 'd': jnp.zeros((2, 2))}


def _names(jaxpr):
  return [eqn.primitive.name for eqn in jaxpr.eqns]


class LeafKernelTest(parameterized.TestCase):

  def setUp(self):
    super().setUp()
    _CALLS.clear()
    jax.clear_caches()

  def test_concrete_leaves_run_the_function_per_leaf(self):
    tree = _tree()
    total, difference = _KERNEL.map((tree, tree), jnp.float32(2.0))
    self.assertEqual(_CALLS['scaled_sum'], 4)
    self.assertEqual(jax.tree.structure(total), jax.tree.structure(tree))
    self.assertIsNone(total['b'][1])
    np.testing.assert_array_equal(total['a'], [0.0, 3.0, 6.0])
    np.testing.assert_array_equal(difference['c'], [0.0, 0.0, 0.0])

  def test_under_jit_one_trace_per_leaf_signature(self):
    tree = _tree()
    jaxpr = jax.make_jaxpr(lambda t: _KERNEL.map((t, t), 2.0))(tree)
    # Four leaves of two signatures: f32[3] and f32[2,2].
    self.assertEqual(_CALLS['scaled_sum'], 2)
    self.assertEqual(_names(jaxpr.jaxpr), ['jit'] * 4)
    got = jax.jit(lambda t: _KERNEL.map((t, t), 2.0))(tree)
    want = _KERNEL.map((tree, tree), 2.0)
    self.assertEqual(jax.tree.structure(got), jax.tree.structure(want))
    for x, y in zip(jax.tree.leaves(got), jax.tree.leaves(want)):
      np.testing.assert_array_equal(x, y)

  def test_inlined_traces_every_leaf(self):
    tree = _tree()
    with leaf_kernels.inlined():
      jaxpr = jax.make_jaxpr(lambda t: _KERNEL.map((t, t), 2.0))(tree)
    self.assertEqual(_CALLS['scaled_sum'], 4)
    self.assertNotIn('jit', _names(jaxpr.jaxpr))

  def test_eager_vmap_runs_the_function_per_leaf(self):
    # The tracers of an eager vmap run each operation as it comes: a nested
    # jit would compile the leaf's operations together.
    tree = jax.tree.map(lambda x: jnp.stack([x, 2 * x]), _tree())
    total, _ = jax.vmap(lambda t: _KERNEL.map((t, t), 2.0))(tree)
    self.assertEqual(_CALLS['scaled_sum'], 4)
    np.testing.assert_array_equal(total['c'], [[6.0] * 3, [12.0] * 3])

  def test_empty_tree_gives_one_empty_tree_per_result(self):
    self.assertEqual(_KERNEL.map(({}, {}), 1.0), ({}, {}))
    single = leaf_kernels.LeafKernel(jnp.negative)
    self.assertEqual(single.map(([],)), ([],))
    negated, = single.map(({'x': jnp.ones(2)},))
    np.testing.assert_array_equal(negated['x'], [-1.0, -1.0])


@leaf_kernels.per_leaf(results_like=(0, 1))
def _widened_step(g, m, b):
  """Counts its traces; computes in float32 and returns float32 results."""
  _CALLS['widened_step'] += 1
  m = b * m.astype(jnp.float32) + g.astype(jnp.float32)
  return m * 2, m


class PerLeafTest(parameterized.TestCase):

  def setUp(self):
    super().setUp()
    _CALLS.clear()
    jax.clear_caches()

  def test_results_rounded_to_the_named_leaves(self):
    g = {'a': jnp.ones(2, jnp.bfloat16), 'b': jnp.ones(3)}
    m = {'a': jnp.full(2, 0.5, jnp.float32),
         'b': jnp.full(3, 0.5, jnp.bfloat16)}
    out, new_m = _widened_step.map((g, m), jnp.float32(0.5))
    self.assertEqual(out['a'].dtype, jnp.bfloat16)
    self.assertEqual(out['b'].dtype, jnp.float32)
    self.assertEqual(new_m['a'].dtype, jnp.float32)
    self.assertEqual(new_m['b'].dtype, jnp.bfloat16)
    np.testing.assert_array_equal(new_m['b'].astype(jnp.float32), [1.25] * 3)
    np.testing.assert_array_equal(out['a'].astype(jnp.float32), [2.5, 2.5])

  def test_one_trace_per_signature_under_jit(self):
    tree = {'x': jnp.ones(2), 'y': jnp.zeros(2), 'z': jnp.ones(4)}
    jaxpr = jax.make_jaxpr(
        lambda t: _widened_step.map((t, t), jnp.float32(1.0)))(tree)
    self.assertEqual(_CALLS['widened_step'], 2)
    self.assertEqual(_names(jaxpr.jaxpr), ['jit'] * 3)


def _params():
  rng = np.random.default_rng(0)
  return {
      'w': jnp.asarray(rng.standard_normal((8, 5)), jnp.float32),
      'b': jnp.asarray(rng.standard_normal(5), jnp.bfloat16),
      'c': jnp.asarray(rng.standard_normal(3) + 1j * rng.standard_normal(3),
                       jnp.complex64),
      'v': jnp.asarray(rng.standard_normal(5), jnp.float32),
  }


_ADAMS = (
    ('adam', lambda: optax.adam(1e-2)),
    ('adamw', lambda: optax.adamw(1e-2, weight_decay=0.1)),
    ('nadam', lambda: optax.nadam(1e-2)),
    ('eps_root', lambda: optax.adam(1e-2, eps_root=1e-6)),
    ('mu_bfloat16', lambda: optax.adam(1e-2, mu_dtype=jnp.bfloat16)),
    ('injected', lambda: optax.inject_hyperparams(optax.adam)(
        learning_rate=1e-2, b1=0.8)),
    ('injected_nesterov', lambda: optax.inject_hyperparams(optax.adam)(
        learning_rate=1e-2, b1=0.8, nesterov=True)),
    ('multisteps', lambda: optax.MultiSteps(
        optax.adam(1e-2), 2).gradient_transformation()),
    ('lamb', lambda: optax.lamb(1e-2)),
)


class AdamKernelTest(parameterized.TestCase):

  def _train(self, make, inline):
    tx = make()

    def gradients(params, k):
      # Made outside the step: XLA:CPU's sine rounds differently in
      # differently fused loops, and only the optimizer is compared here.
      return jax.tree.map(
          lambda p: (jnp.sin(p * (k + 1.3)) * 0.1).astype(p.dtype), params)

    @jax.jit
    def step(params, state, grads):
      updates, state = tx.update(grads, state, params)
      return optax.apply_updates(params, updates), state

    params = _params()
    state = tx.init(params)
    if inline:
      with leaf_kernels.inlined():
        jaxpr = jax.make_jaxpr(step)(params, state, gradients(params, 0))
        for k in range(4):
          params, state = step(params, state, gradients(params, k))
    else:
      jaxpr = jax.make_jaxpr(step)(params, state, gradients(params, 0))
      for k in range(4):
        params, state = step(params, state, gradients(params, k))
    return jaxpr, params, state

  @parameterized.named_parameters(*_ADAMS)
  def test_jitted_steps_have_the_bits_of_the_inlined_arithmetic(self, make):
    kernel_jaxpr, *kernel = self._train(make, inline=False)
    inline_jaxpr, *inline = self._train(make, inline=True)
    self.assertIn('_adam_leaf', str(kernel_jaxpr))
    self.assertNotIn('_adam_leaf', str(inline_jaxpr))
    for got, want in zip(jax.tree.leaves(kernel), jax.tree.leaves(inline)):
      self.assertEqual(got.dtype, want.dtype)
      np.testing.assert_array_equal(
          np.asarray(got).reshape(-1).view(np.uint8),
          np.asarray(want).reshape(-1).view(np.uint8))


if __name__ == '__main__':
  absltest.main()
