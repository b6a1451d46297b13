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
"""Tests of the size of the programs optimizers trace, per leaf.

Compile time on a deep tree grows with the equations traced per leaf; these
tests pin what the fork saves there: scalars broadcast once per leaf shape
rather than once per leaf, no ``+ 0`` for ``eps_root=0``, no ``* 1`` for
``max_norm=1`` and no per-leaf negation of the learning rate; and that the
compiled kernels read no more runtime scalars than upstream's.
"""

import collections

from absl.testing import absltest
from absl.testing import parameterized
import jax
import jax.numpy as jnp
import numpy as np

import optax

from optax._src.testing import hlo


def _count(jaxpr, counter, nested):
  for eqn in jaxpr.eqns:
    counter[eqn.primitive.name] += 1
    if nested and eqn.primitive.name == 'jit':  # A leaf kernel's call.
      _count(eqn.params['jaxpr'].jaxpr, counter, nested)
  return counter


def _equations(tx, leaves, shape=(4, 3), nested=True):
  """Counts the primitives of ``tx.update``'s jaxpr on ``leaves`` leaves.

  Args:
    tx: a GradientTransformation.
    leaves: the number of leaves, all of ``shape``.
    shape: the leaves' shape.
    nested: whether the equations of nested ``jit`` calls count too (once
      per call), or only the calls themselves.

  Returns:
    A Counter of primitive names.
  """
  params = {f'p{i}': jnp.ones(shape) for i in range(leaves)}
  state = tx.init(params)
  jaxpr = jax.make_jaxpr(lambda g, s, p: tx.update(g, s, p))(
      params, state, params)
  return _count(jaxpr.jaxpr, collections.Counter(), nested)


def _lowered_broadcasts(tx, leaves, shape=(4, 3)):
  """Counts the broadcasts in the StableHLO of the jitted ``tx.update``.

  A product of a traced scalar and a leaf is one ``mul`` in the jaxpr; the
  broadcast of the scalar to the leaf's shape appears when it is lowered.

  Args:
    tx: a GradientTransformation.
    leaves: the number of leaves, all of ``shape``.
    shape: the leaves' shape.

  Returns:
    The number of ``stablehlo.broadcast_in_dim`` operations.
  """
  params = {f'p{i}': jnp.ones(shape) for i in range(leaves)}
  state = tx.init(params)
  text = jax.jit(tx.update).lower(params, state, params).as_text()
  return text.count('stablehlo.broadcast_in_dim')


def _per_leaf(tx, nested=True):
  """The primitives each further leaf of one shape adds."""
  one, nine = _equations(tx, 1, nested=nested), _equations(tx, 9, nested=nested)
  return {k: (nine[k] - one[k]) / 8 for k in nine if nine[k] != one[k]}


_OPTIMIZERS = (
    ('adam', lambda: optax.adam(1e-3)),
    ('adamw', lambda: optax.adamw(1e-3)),
    ('clip_adamw', lambda: optax.chain(optax.clip_by_global_norm(1.0),
                                       optax.adamw(1e-3))),
    ('inject_adamw', lambda: optax.inject_hyperparams(optax.adamw)(1e-3)),
    ('amsgrad', lambda: optax.amsgrad(1e-3)),
    ('adabelief', lambda: optax.adabelief(1e-3)),
    ('lion', lambda: optax.lion(1e-3)),
    ('clip_lion', lambda: optax.chain(optax.clip_by_global_norm(0.5),
                                      optax.lion(1e-3))),
)


class ProgramSizeTest(parameterized.TestCase):

  @parameterized.named_parameters(*_OPTIMIZERS)
  def test_no_broadcast_per_leaf(self, make):
    tx = make()
    one, nine = _lowered_broadcasts(tx, 1), _lowered_broadcasts(tx, 9)
    self.assertGreater(one, 0)
    self.assertEqual(nine, one)

  def test_adamw_per_leaf_equations(self):
    # m: 2 mul 1 add; v: 3 mul 1 add; two bias corrections: 2 div; ratio:
    # sqrt, add eps, div; and the broadcasts of the 7 scalars they use: all
    # in one call of Adam's leaf kernel, lowered once per leaf shape (see
    # test_no_broadcast_per_leaf). Weight decay: mul, add; learning rate:
    # 1 mul.
    self.assertEqual(_per_leaf(optax.adamw(1e-3)),
                     {'jit': 1, 'broadcast_in_dim': 7, 'mul': 7, 'add': 4,
                      'div': 3, 'sqrt': 1})

  @parameterized.named_parameters(
      ('adam', lambda: optax.adam(1e-3), {}),
      ('nadam', lambda: optax.nadam(1e-3), {}),
      ('adamw', lambda: optax.adamw(1e-3), {'mul': 2, 'add': 1}),
      ('inject_adamw', lambda: optax.inject_hyperparams(optax.adamw)(1e-3),
       {'mul': 2, 'add': 1}),
  )
  def test_adam_traces_one_call_per_leaf(self, make, others):
    # The arithmetic of Adam is traced once per leaf shape, then called.
    self.assertEqual(_per_leaf(make(), nested=False),
                     {'jit': 1, 'mul': 1, **others})

  def test_eps_root_zero_adds_nothing(self):
    without = _per_leaf(optax.adam(1e-3))
    with_root = _per_leaf(optax.adam(1e-3, eps_root=1e-8))
    self.assertEqual(with_root['add'] - without['add'], 1)
    self.assertEqual(with_root['mul'], without['mul'])

  def test_max_norm_one_multiplies_by_nothing(self):
    one = _per_leaf(optax.clip_by_global_norm(1.0))
    two = _per_leaf(optax.clip_by_global_norm(2.0))
    # The squares of the norm are jnp.square: every mul is a clipping factor.
    self.assertEqual(two.get('mul', 0) - one.get('mul', 0), 1)
    self.assertEqual(one['select_n'], 1)
    self.assertNotIn('jit', one)

  def test_learning_rate_is_one_multiply_per_leaf(self):
    self.assertEqual(_per_leaf(optax.scale_by_learning_rate(0.1)),
                     {'mul': 1})

  def test_max_norm_one_clips_exactly(self):
    updates = {'a': jnp.array([3.0, 0.0]), 'b': jnp.array([-4.0])}
    for max_norm in (1.0, 1, jnp.float32(1.0)):
      tx = optax.clip_by_global_norm(max_norm)
      got, _ = jax.jit(tx.update)(updates, tx.init(updates))
      # x / 5 in float32, with no further rounding from a product by 1.
      self.assertEqual(got['a'].tolist(),
                       [float(np.float32(3.0) / np.float32(5.0)), 0.0])
      self.assertEqual(got['b'].tolist(),
                       [float(np.float32(-4.0) / np.float32(5.0))])


class NarrowStateStepTest(parameterized.TestCase):
  """A donated step of bfloat16 params copies no more state than upstream's.

  The state is donated and each new leaf is written over the old one; a
  program that still reads an old leaf after that (recomputing the new
  value in the update's loop rather than reading the stored one) makes XLA
  copy it first: a read and a write of the leaf more per step. A new narrow
  leaf rounded once from a wide value is read back as stored; such a step
  moves as many bytes as upstream's (XLA's cost analysis on CPU: adagrad 7,
  amsgrad 13, adopt 12 param bytes; 12, 18 and 18 before). The expected
  counts are upstream 0.2.8's, from the same program run under it. The
  programs checked are XLA:CPU's, which makes one loop per output; other
  backends fuse several outputs into one kernel and are not checked here.
  """

  @parameterized.named_parameters(
      ('adam', lambda: optax.adam(1e-3), 0),
      ('adamw', lambda: optax.adamw(1e-3), 0),
      ('rmsprop', lambda: optax.rmsprop(1e-3), 0),
      ('adagrad', lambda: optax.adagrad(1e-3), 0),
      ('amsgrad', lambda: optax.amsgrad(1e-3), 0),
      ('sgd_momentum', lambda: optax.sgd(1e-3, momentum=0.9), 0),
      ('adabelief', lambda: optax.adabelief(1e-3), 0),
      ('yogi', lambda: optax.yogi(1e-3), 0),
      # The old moment is read by two loops in upstream's programs too
      # (lion's direction and new moment; adopt's normalization by the old
      # nu and the new nu).
      ('lion', lambda: optax.lion(1e-3), 1),
      ('contrib_adopt', lambda: optax.contrib.adopt(1e-3), 1),
      ('contrib_schedule_free_sgd',
       lambda: optax.contrib.schedule_free_sgd(1e-3), 1),
  )
  def test_copies_no_more_arrays_than_upstream(self, make, upstream):
    if jax.default_backend() != 'cpu':
      self.skipTest('checks the programs of XLA:CPU (one loop per output)')
    tx = make()
    params = {'w': jnp.full((64, 128), 0.01, jnp.bfloat16)}
    grads = {'w': jnp.full((64, 128), 0.005, jnp.bfloat16)}

    def step(p, s, g):
      updates, s = tx.update(g, s, p)
      return optax.apply_updates(p, updates), s

    hlo = jax.jit(step, donate_argnums=(0, 1)).lower(
        params, tx.init(params), grads).compile().as_text()
    entry = hlo[hlo.index('\nENTRY'):]
    copies = [line.strip() for line in entry.splitlines()
              if ' copy(' in line and '[]' not in line.split('copy(')[0]]
    self.assertLen(copies, upstream, copies)


class KernelScalarsTest(parameterized.TestCase):
  """The fused kernels read no more runtime scalars than upstream's.

  A Python-number hyperparameter must reach XLA as a constant, which it
  folds into each leaf's kernel; anything that hides it (an optimization
  barrier, which XLA:GPU keeps until after fusion) makes it a scalar that
  every kernel reads at run time. The step is compiled with the barriers
  kept through fusion on every backend (``cse_barrier_expander`` off), so
  that this CPU test sees the kernels XLA:GPU would build. The bounds are
  upstream 0.2.8's counts for the same programs (adamw: the two bias
  corrections in each of two kernels), measured with
  ``benchmarks/kernel_scalars.py --upstream-python``.
  """

  @parameterized.named_parameters(
      ('adamw', lambda: optax.adamw(1e-3), 4),
      ('lion', lambda: optax.lion(1e-4), 0),
      ('sgd_momentum', lambda: optax.sgd(1e-2, momentum=0.9), 0),
      ('clip_adamw', lambda: optax.chain(optax.clip_by_global_norm(1.0),
                                         optax.adamw(1e-3)), 9),
  )
  def test_no_more_runtime_scalars_than_upstream(self, make, upstream):
    tx = make()
    params = {'w': jnp.ones((16, 8), jnp.float32),
              'b': jnp.ones((8,), jnp.bfloat16)}
    grads = jax.tree.map(lambda p: jnp.full_like(p, 0.5), params)

    def step(p, s, g):
      updates, s = tx.update(g, s, p)
      return optax.apply_updates(p, updates), s

    compiled = jax.jit(step).lower(params, tx.init(params), grads).compile(
        compiler_options=hlo.GPU_ORDER_FUSION)
    kernels = hlo.fused_kernel_scalars(compiled.as_text())
    self.assertNotEmpty(kernels)
    self.assertLessEqual(sum(count for _, count in kernels), upstream)


if __name__ == '__main__':
  absltest.main()
