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
"""Tests for optax.microbatching._microbatching.

Every microbatched computation is compared with the same computation on the
whole batch (or with a NumPy reference of the strided microbatch split).
"""

from absl.testing import absltest
from absl.testing import parameterized
import jax
import jax.numpy as jnp
import numpy as np

from optax.microbatching import _microbatching as mb

AT = mb.AccumulationType

_RNG = np.random.default_rng(0)
_X = _RNG.normal(size=(12, 3)).astype(np.float32)
_Y = _RNG.normal(size=(12,)).astype(np.float32)
_W = _RNG.normal(size=(3,)).astype(np.float32)


def _loss(w, x, y):
  """A loss summed over the batch."""
  return jnp.sum((jnp.tanh(x @ w) - y) ** 2)


def _np_microbatches(x, size):
  """The strided split: microbatch i holds rows i, i + n, i + 2n, ..."""
  n = len(x) // size
  return [x[i::n] for i in range(n)]


class ReshapeBatchAxisTest(parameterized.TestCase):
  """reshape_batch_axis."""

  def test_strided_layout(self):
    out = mb.reshape_batch_axis({'x': jnp.asarray(_X)}, 3)['x']
    self.assertEqual(out.shape, (4, 3, 3))
    for i, expected in enumerate(_np_microbatches(_X, 3)):
      np.testing.assert_array_equal(out[i], expected)

  @parameterized.parameters(1, -1)
  def test_other_axis(self, axis):
    x = np.arange(24).reshape(2, 12)
    out = mb.reshape_batch_axis(jnp.asarray(x), 4, axis=axis)
    self.assertEqual(out.shape, (2, 3, 4))
    for i in range(3):
      np.testing.assert_array_equal(out[:, i], x[:, i::3])

  def test_errors(self):
    with self.assertRaisesRegex(ValueError,
                                'batch_size=12 must be divisible by'
                                ' microbatch_size=5'):
      mb.reshape_batch_axis(jnp.asarray(_X), 5)
    with self.assertRaisesRegex(ValueError, 'positive integer, got 0'):
      mb.reshape_batch_axis(jnp.asarray(_X), 0)


class MicrobatchTest(parameterized.TestCase):
  """microbatch."""

  @parameterized.product(size=[1, 3, 4, 12], use_jit=[False, True])
  def test_sum_equals_full_batch(self, size, use_jit):
    fn = mb.microbatch(_loss, argnums=(1, 2), microbatch_size=size)
    if use_jit:
      fn = jax.jit(fn)
    np.testing.assert_allclose(fn(_W, _X, _Y), _loss(_W, _X, _Y), rtol=1e-5)

  @parameterized.parameters(AT.MEAN, AT.RUNNING_MEAN)
  def test_means_equal_full_batch_mean(self, accumulator):
    mean_loss = lambda w, x, y: _loss(w, x, y) / x.shape[0]
    fn = mb.microbatch(mean_loss, argnums=(1, 2), microbatch_size=3,
                       accumulator=accumulator)
    np.testing.assert_allclose(fn(_W, _X, _Y), mean_loss(_W, _X, _Y),
                               rtol=1e-5)

  def test_concat_restores_the_order(self):
    elementwise = lambda x: jnp.sin(x) * 2
    fn = mb.microbatch(elementwise, argnums=0, microbatch_size=4,
                       accumulator=AT.CONCAT)
    np.testing.assert_allclose(fn(_X), elementwise(_X), rtol=1e-6)
    # A scalar per microbatch is stacked in microbatch order.
    per_microbatch = mb.microbatch(jnp.sum, argnums=0, microbatch_size=4,
                                   accumulator=AT.CONCAT)(_X)
    np.testing.assert_allclose(
        per_microbatch, [m.sum() for m in _np_microbatches(_X, 4)],
        rtol=1e-5)

  def test_tree_of_accumulators_and_keyword_arguments(self):
    def fn(w, x, *, y):
      return {'loss': _loss(w, x, y), 'pred': jnp.tanh(x @ w),
              'count': jnp.array(x.shape[0])}

    batched = mb.microbatch(
        fn, argnums=1, argnames='y', microbatch_size=3,
        accumulator={'loss': AT.SUM, 'pred': AT.CONCAT, 'count': AT.SUM})
    out = batched(_W, _X, y=_Y)
    full = fn(_W, _X, y=_Y)
    np.testing.assert_allclose(out['loss'], full['loss'], rtol=1e-5)
    np.testing.assert_allclose(out['pred'], full['pred'], rtol=1e-6)
    self.assertEqual(int(out['count']), 12)
    self.assertEqual(out['count'].dtype, jnp.int32)

  def test_in_axes_per_argument(self):
    fn = lambda a, b: jnp.sum(a) + jnp.sum(b)
    batched = mb.microbatch(fn, argnums=(0, 1), microbatch_size=2,
                            in_axes=(0, 1))
    np.testing.assert_allclose(batched(_X, _X.T), 2 * _X.sum(), rtol=1e-5)

  @parameterized.parameters(AT.SUM, AT.MEAN, AT.RUNNING_MEAN, AT.CONCAT)
  def test_num_real_microbatches(self, accumulator):
    size, real = 3, 2
    parts = _np_microbatches(_X, size)
    fn = mb.microbatch(lambda x: x * 1.0, argnums=0, microbatch_size=size,
                       accumulator=accumulator, num_real_microbatches=real)
    for out in (fn(_X), jax.jit(fn)(_X)):
      if accumulator == AT.SUM:
        expected = sum(parts[:real])
      elif accumulator == AT.MEAN:  # Divides by all the microbatches.
        expected = sum(parts[:real]) / len(parts)
      elif accumulator == AT.RUNNING_MEAN:  # The mean of the real ones.
        expected = sum(parts[:real]) / real
      else:
        n = len(parts)
        expected = np.where((np.arange(12) % n < real)[:, None], _X, 0.0)
      np.testing.assert_allclose(out, expected, rtol=1e-6)

  def test_traced_num_real_microbatches(self):
    fn = jax.jit(lambda x, k: mb.microbatch(
        jnp.sum, argnums=0, microbatch_size=3, num_real_microbatches=k)(x))
    parts = _np_microbatches(_X, 3)
    for k in (1, 3):
      np.testing.assert_allclose(fn(_X, k), sum(p.sum() for p in parts[:k]),
                                 rtol=1e-5)

  def test_custom_accumulator_protocol(self):
    calls = []

    def init(shapes):
      calls.append(('init', shapes.shape, shapes.dtype))
      return jnp.zeros(shapes.shape, shapes.dtype)

    def update(state, value, index):
      # Weights 10^i reveal the order of the microbatches.
      return state + value * 10.0 ** index

    accumulator = mb.Accumulator(init, update, lambda s: -s,
                                 lambda v: v)
    out = mb.microbatch(jnp.sum, argnums=0, microbatch_size=4,
                        accumulator=accumulator)(_X)
    sums = [p.sum() for p in _np_microbatches(_X, 4)]
    np.testing.assert_allclose(out, -sum(s * 10.0 ** i
                                         for i, s in enumerate(sums)),
                               rtol=1e-5)
    self.assertEqual(calls, [('init', (), jnp.float32)])

  def test_gradient_through_the_loop(self):
    for accumulator, scale in ((AT.SUM, 1.0), (AT.MEAN, 1 / 4),
                               (AT.RUNNING_MEAN, 1 / 4)):
      fn = mb.microbatch(_loss, argnums=(1, 2), microbatch_size=3,
                         accumulator=accumulator)
      np.testing.assert_allclose(
          jax.grad(fn)(_W, _X, _Y), scale * jax.grad(_loss)(_W, _X, _Y),
          rtol=1e-5, atol=1e-6)

  def test_dtypes(self):
    ints = jnp.arange(12).reshape(6, 2)
    out = mb.microbatch(jnp.sum, argnums=0, microbatch_size=2)(ints)
    self.assertEqual(out.dtype, ints.dtype)
    self.assertEqual(int(out), 66)
    with self.assertRaisesRegex(ValueError, 'floating-point'):
      mb.microbatch(jnp.sum, argnums=0, microbatch_size=2,
                    accumulator=AT.MEAN)(ints)
    halves = jnp.asarray(_X, jnp.bfloat16)
    for accumulator in AT:
      out = mb.microbatch(lambda x: x * 2, argnums=0, microbatch_size=3,
                          accumulator=accumulator)(halves)
      self.assertEqual(out.dtype, jnp.bfloat16)

  def test_no_microbatching_and_errors(self):
    self.assertIs(mb.microbatch(_loss, argnums=1, microbatch_size=None),
                  _loss)
    fn = mb.microbatch(_loss, argnums=(1, 2), microbatch_size=3)
    with self.assertRaisesRegex(ValueError, r'equal-size.*\[12, 6\]'):
      fn(_W, _X, _Y[:6])
    with self.assertRaisesRegex(ValueError, 'divisible'):
      mb.microbatch(_loss, argnums=(1, 2), microbatch_size=5)(_W, _X, _Y)
    with self.assertRaisesRegex(ValueError, 'num_real_microbatches=5'):
      mb.microbatch(_loss, argnums=(1, 2), microbatch_size=3,
                    num_real_microbatches=5)(_W, _X, _Y)
    with self.assertRaisesRegex(ValueError, 'in_axes has 1 entries'):
      mb.microbatch(_loss, argnums=(1, 2), microbatch_size=3, in_axes=[0])


class MicroVmapTest(parameterized.TestCase):
  """micro_vmap."""

  @parameterized.product(size=[None, 1, 4], use_jit=[False, True])
  def test_concat_equals_vmap(self, size, use_jit):
    per_row = lambda w, x: jnp.sin(x * w).sum() * x
    fn = mb.micro_vmap(per_row, in_axes=(None, 0), microbatch_size=size)
    if use_jit:
      fn = jax.jit(fn)
    np.testing.assert_allclose(fn(_W, _X), jax.vmap(per_row, (None, 0))(_W,
                                                                       _X),
                               rtol=1e-6)

  @parameterized.product(size=[None, 3],
                         accumulator=[AT.SUM, AT.MEAN, AT.RUNNING_MEAN])
  def test_reductions(self, size, accumulator):
    per_row = lambda x: jnp.cos(x) * x
    out = mb.micro_vmap(per_row, microbatch_size=size,
                        accumulator=accumulator)(_X)
    values = np.cos(_X) * _X
    expected = values.sum(0) if accumulator == AT.SUM else values.mean(0)
    np.testing.assert_allclose(out, expected, rtol=1e-5)

  @parameterized.product(size=[None, 2], use_jit=[False, True])
  def test_keyword_arguments_are_batched_regression(self, size, use_jit):
    # Regression: keyword arguments were bound whole to every element
    # instead of being mapped along axis 0 as jax.vmap (and upstream 0.2.8)
    # maps them.
    x = jnp.arange(32).reshape(4, 8)
    y = jnp.arange(4 * 8).reshape(4, 8) % 3

    def fun(x, *, y):
      return jnp.sum(x + y)

    fn = mb.micro_vmap(fun, microbatch_size=size)
    if use_jit:
      fn = jax.jit(fn)
    expected = (np.asarray(x) + np.asarray(y)).sum(axis=1)
    np.testing.assert_array_equal(fn(x, y=y), expected)

  def test_vmap_fn_and_out_axes(self):
    seen = []

    def my_vmap(fun, in_axes, out_axes):
      seen.append((in_axes, out_axes))
      return jax.vmap(fun, in_axes, out_axes)

    mb.micro_vmap(jnp.sum, microbatch_size=3, vmap_fn=my_vmap)(_X)
    self.assertEqual(seen, [((0,), 0)])
    with self.assertRaises(NotImplementedError):
      mb.micro_vmap(jnp.sum, out_axes=1)

  def test_num_real_microbatches_leaves_zeros(self):
    out = mb.micro_vmap(jnp.sum, microbatch_size=3,
                        num_real_microbatches=3)(_X)
    expected = np.where(np.arange(12) % 4 < 3, _X.sum(1), 0.0)
    np.testing.assert_allclose(out, expected, rtol=1e-6)


class MicroGradTest(parameterized.TestCase):
  """micro_grad."""

  def _per_example(self, w=_W):
    grads = jax.vmap(jax.grad(_loss), (None, 0, 0))(w, _X[:, None],
                                                    _Y[:, None])
    values = jax.vmap(_loss, (None, 0, 0))(w, _X[:, None], _Y[:, None])
    return np.asarray(grads, np.float64), np.asarray(values)

  @parameterized.product(size=[None, 1, 3], keep_batch_dim=[True, False],
                         use_jit=[False, True])
  def test_sum_is_the_batch_gradient(self, size, keep_batch_dim, use_jit):
    fn = mb.micro_grad(_loss, batch_argnums=(1, 2), microbatch_size=size,
                       keep_batch_dim=keep_batch_dim)
    if use_jit:
      fn = jax.jit(fn)
    grads, aux = fn(_W, _X, _Y)
    np.testing.assert_allclose(grads, jax.grad(_loss)(_W, _X, _Y), rtol=1e-5,
                               atol=1e-6)
    _, values = self._per_example()
    np.testing.assert_allclose(aux.values, values, rtol=1e-5)
    self.assertIsNone(aux.metrics)
    self.assertIsNone(aux.aux)

  def test_shapes_seen_by_the_loss(self):
    shapes = []

    def loss(w, x, y):
      shapes.append((x.shape, y.shape))
      return _loss(w, x, y)

    mb.micro_grad(loss, batch_argnums=(1, 2))(_W, _X, _Y)
    mb.micro_grad(loss, batch_argnums=(1, 2), keep_batch_dim=False)(
        _W, _X, _Y)
    self.assertEqual(shapes, [((1, 3), (1,)), ((3,), ())])

  def test_per_example_clipping_and_metrics(self):
    clip = lambda g: g / jnp.maximum(jnp.linalg.norm(g), 0.5) * 0.5
    fn = mb.micro_grad(_loss, batch_argnums=(1, 2), microbatch_size=4,
                       accumulator=AT.MEAN, transform_fn=clip,
                       metrics_fn=lambda g: {'norm': jnp.linalg.norm(g)})
    grads, aux = fn(_W, _X, _Y)
    per_example, _ = self._per_example()
    norms = np.linalg.norm(per_example, axis=1)
    clipped = per_example / np.maximum(norms, 0.5)[:, None] * 0.5
    np.testing.assert_allclose(grads, clipped.mean(0), rtol=1e-5)
    # Metrics see the gradients before the transformation.
    np.testing.assert_allclose(aux.metrics['norm'], norms, rtol=1e-5,
                               atol=1e-6)

  def test_has_aux_argnums_and_tree_accumulator(self):
    def loss(params, x, y):
      pred = jnp.tanh(x @ params['w']) + params['b']
      return jnp.sum((pred - y) ** 2), pred

    params = {'w': jnp.asarray(_W), 'b': jnp.array(0.3)}
    fn = mb.micro_grad(loss, has_aux=True, batch_argnums=(1, 2),
                       microbatch_size=6,
                       accumulator={'w': AT.SUM, 'b': AT.MEAN})
    grads, aux = fn(params, _X, _Y)
    full = jax.grad(lambda p: loss(p, _X, _Y)[0])(params)
    np.testing.assert_allclose(grads['w'], full['w'], rtol=1e-5)
    np.testing.assert_allclose(grads['b'], full['b'] / 12, rtol=1e-5)
    np.testing.assert_allclose(aux.aux[:, 0],
                               np.tanh(_X @ _W) + 0.3, rtol=1e-5)

    two = mb.micro_grad(lambda w, c, x, y: _loss(w, x, y) * c,
                        argnums=(0, 1), batch_argnums=(2, 3),
                        microbatch_size=3)
    (grad_w, grad_c), _ = two(_W, 2.0, _X, _Y)
    np.testing.assert_allclose(grad_w, 2 * jax.grad(_loss)(_W, _X, _Y),
                               rtol=1e-5)
    np.testing.assert_allclose(grad_c, _loss(_W, _X, _Y), rtol=1e-5)

  def test_num_real_microbatches(self):
    fn = mb.micro_grad(_loss, batch_argnums=(1, 2), microbatch_size=3,
                       num_real_microbatches=2,
                       accumulator=AT.RUNNING_MEAN)
    grads, aux = fn(_W, _X, _Y)
    per_example, values = self._per_example()
    real = np.arange(12) % 4 < 2
    np.testing.assert_allclose(grads, per_example[real].mean(0), rtol=1e-5)
    np.testing.assert_allclose(aux.values, np.where(real, values, 0.0),
                               rtol=1e-5)



class ArgumentsBySignatureTest(parameterized.TestCase):
  """Batched arguments given by position or by keyword."""

  @parameterized.parameters(
      ((1, 2), (), lambda fn: fn(_W, x=_X, y=_Y)),
      ((1, 2), (), lambda fn: fn(w=_W, x=_X, y=_Y)),
      ((1,), ('y',), lambda fn: fn(_W, _X, _Y)),
      ((), ('x', 'y'), lambda fn: fn(_W, _X, _Y)),
      ((), ('x', 'y'), lambda fn: fn(_W, y=_Y, x=_X)),
  )
  def test_microbatch_matches_the_signature(self, argnums, argnames, call):
    fn = mb.microbatch(_loss, argnums=argnums, argnames=argnames,
                       microbatch_size=3)
    np.testing.assert_allclose(call(fn), _loss(_W, _X, _Y), rtol=1e-5)

  def test_keyword_only_and_var_keyword(self):
    def keyword_only(w, *, x, y):
      return _loss(w, x, y)

    def var_keyword(w, **batch):
      return _loss(w, batch['x'], batch['y'])

    want = _loss(_W, _X, _Y)
    for fun in (keyword_only, var_keyword):
      fn = mb.microbatch(fun, argnums=(), argnames=('x', 'y'),
                         microbatch_size=4)
      np.testing.assert_allclose(fn(_W, x=_X, y=_Y), want, rtol=1e-5)
      np.testing.assert_allclose(jax.jit(fn)(w=_W, y=_Y, x=_X), want,
                                 rtol=1e-5)

  def test_micro_vmap_keyword_given_positional_parameter(self):
    fun = lambda w, x: jnp.tanh(x @ w)
    mapped = mb.micro_vmap(fun, in_axes=(None, 0), microbatch_size=4)
    want = np.tanh(_X.astype(np.float64) @ _W)
    np.testing.assert_allclose(mapped(_W, x=_X), want, rtol=1e-5)
    np.testing.assert_allclose(mapped(_W, _X), want, rtol=1e-5)
    # Without an entry in in_axes, a keyword is batched on axis 0, as with
    # jax.vmap.
    mapped = mb.micro_vmap(fun, in_axes=(None,), microbatch_size=4)
    np.testing.assert_allclose(mapped(_W, x=_X), want, rtol=1e-5)

  def test_micro_grad_arguments_by_keyword(self):
    fn = mb.micro_grad(_loss, batch_argnums=(1, 2), microbatch_size=3)
    grads, aux = fn(w=_W, x=_X, y=_Y)
    np.testing.assert_allclose(grads, jax.grad(_loss)(_W, _X, _Y),
                               rtol=1e-5, atol=1e-6)
    self.assertEqual(aux.values.shape, (12,))

  def test_errors(self):
    fn = mb.microbatch(lambda w, x, y=_Y: _loss(w, x, y), argnums=(1, 2),
                       microbatch_size=3)
    with self.assertRaisesRegex(
        ValueError, 'microbatch: argnums names argument 2, which this call'
        ' does not pass'):
      fn(_W, _X)
    with self.assertRaisesRegex(TypeError, "missing a required argument: 'y'"):
      mb.microbatch(_loss, argnums=(1, 2), microbatch_size=3)(_W, _X)
    fn = mb.microbatch(_loss, argnums=1, argnames='x', microbatch_size=3)
    with self.assertRaisesRegex(ValueError, 'more than once'):
      fn(_W, _X, _Y)
    fn = mb.microbatch(_loss, argnums=(), argnames='z', microbatch_size=3)
    with self.assertRaisesRegex(ValueError, "argnames names 'z'"):
      fn(_W, _X, _Y)
    with self.assertRaisesRegex(TypeError, 'multiple values'):
      mb.microbatch(_loss, argnums=1, microbatch_size=3)(_W, _X, x=_X)


class EmptyBatchTest(parameterized.TestCase):
  """A batch of size 0 gives the accumulation of no microbatch."""

  @parameterized.parameters(AT.SUM, AT.RUNNING_MEAN)
  def test_sum_and_running_mean_are_zero(self, accumulator):
    fn = mb.microbatch(_loss, argnums=(1, 2), microbatch_size=3,
                       accumulator=accumulator)
    for f in (fn, jax.jit(fn)):
      out = f(_W, _X[:0], _Y[:0])
      self.assertEqual(out.shape, ())
      self.assertEqual(out.dtype, jnp.float32)
      self.assertEqual(float(out), 0.0)

  @parameterized.parameters(jnp.float32, jnp.bfloat16)
  def test_mean_is_nan(self, dtype):
    # The sum of no microbatch over zero microbatches, as upstream's main
    # (the fork returned 0 before).
    fn = mb.microbatch(lambda x: jnp.sum(x, axis=0), argnums=0,
                       microbatch_size=2, accumulator=AT.MEAN)
    for f in (fn, jax.jit(fn)):
      out = f(jnp.zeros((0, 3), dtype))
      self.assertEqual(out.shape, (3,))
      self.assertEqual(out.dtype, dtype)
      self.assertTrue(np.all(np.isnan(np.asarray(out, np.float32))))
    mapped = mb.micro_vmap(jnp.sum, microbatch_size=2, accumulator=AT.MEAN)
    self.assertTrue(np.isnan(mapped(_X[:0])))
    grads, _ = mb.micro_grad(_loss, batch_argnums=(1, 2), microbatch_size=2,
                             accumulator=AT.MEAN)(_W, _X[:0], _Y[:0])
    self.assertTrue(np.all(np.isnan(grads)))

  def test_no_real_microbatch_mean_is_zero(self):
    # A non-empty batch of which no microbatch runs: zero sum over n > 0.
    fn = mb.microbatch(lambda x: jnp.sum(x, axis=0), argnums=0,
                       microbatch_size=2, accumulator=AT.MEAN,
                       num_real_microbatches=0)
    np.testing.assert_array_equal(fn(_X[:4]), np.zeros(3, np.float32))

  def test_concat_is_empty(self):
    fn = mb.microbatch(lambda x: 2 * x, argnums=0, microbatch_size=4,
                       accumulator=AT.CONCAT)
    out = fn(_X[:0])
    self.assertEqual(out.shape, (0, 3))
    self.assertEqual(out.dtype, jnp.float32)
    out = mb.micro_vmap(lambda x: jnp.sum(x), microbatch_size=4)(_X[:0])
    self.assertEqual(out.shape, (0,))

  def test_micro_grad(self):
    fn = mb.micro_grad(_loss, batch_argnums=(1, 2), microbatch_size=2,
                       metrics_fn=jnp.linalg.norm)
    grads, aux = jax.jit(fn)(_W, _X[:0], _Y[:0])
    np.testing.assert_array_equal(grads, np.zeros(3, np.float32))
    self.assertEqual(aux.values.shape, (0,))
    self.assertEqual(aux.metrics.shape, (0,))


def _name_stacks(fn, *args):
  """Every equation's full name stack, inner jaxprs (loop bodies) included."""
  stacks = set()

  def inner_jaxprs(value):
    if isinstance(value, (tuple, list)):
      for v in value:
        yield from inner_jaxprs(v)
    elif hasattr(value, 'eqns'):
      yield value
    elif hasattr(value, 'jaxpr') and hasattr(value.jaxpr, 'eqns'):
      yield value.jaxpr

  def walk(jaxpr, prefix):
    for eqn in jaxpr.eqns:
      stack = '/'.join(p for p in (prefix, str(eqn.source_info.name_stack))
                       if p)
      stacks.add(stack)
      for value in eqn.params.values():
        for sub in inner_jaxprs(value):
          walk(sub, stack)

  walk(jax.make_jaxpr(fn)(*args).jaxpr, '')
  return stacks


class NamedCallTest(parameterized.TestCase):
  """Profiles show upstream's spans: named by microbatch size and count."""

  @parameterized.parameters(3, None)
  def test_microbatch(self, size):
    fn = mb.microbatch(_loss, argnums=(1, 2), microbatch_size=size)
    stacks = _name_stacks(fn, _W, _X, _Y)
    if size is None:  # fn is _loss itself.
      self.assertEqual(stacks, {''})
    else:  # 12 elements, 4 microbatches.
      self.assertEqual(stacks, {'microbatch_size_3',
                                'microbatch_size_3/4_microbatches'})

  def test_micro_vmap(self):
    fn = mb.micro_vmap(_loss, in_axes=(None, 0, 0), microbatch_size=6)
    outer = 'micro_vmap_size_6/microbatch_size_6'
    self.assertEqual(_name_stacks(fn, _W, _X, _Y), {
        outer, f'{outer}/2_microbatches',
        f'{outer}/2_microbatches/micro_vmap_step/vmap()'})
    fn = mb.micro_vmap(_loss, in_axes=(None, 0, 0))
    self.assertEqual(_name_stacks(fn, _W, _X, _Y),
                     {'micro_vmap_size_None/micro_vmap_step/vmap()'})

  @parameterized.parameters(4, None)
  def test_micro_grad(self, size):
    fn = mb.micro_grad(_loss, batch_argnums=(1, 2), microbatch_size=size)
    stacks = _name_stacks(fn, _W, _X, _Y)
    outer = f'micro_grad_size_{size}/micro_vmap_size_{size}'
    step = 'micro_vmap_step/vmap(micro_grad_step)'
    if size is not None:  # 12 elements, 3 microbatches.
      outer += '/microbatch_size_4/3_microbatches'
    self.assertContainsSubset(
        {f'{outer}/micro_vmap_step', f'{outer}/{step}',
         f'{outer}/{step}/jvp()', f'{outer}/{step}/transpose(jvp())'},
        stacks)
    self.assertTrue(all(s.startswith(f'micro_grad_size_{size}/')
                        for s in stacks), stacks)


class ExplicitShardingTest(parameterized.TestCase):
  """A batch axis sharded over an explicit mesh axis."""

  def setUp(self):
    super().setUp()
    if len(jax.devices()) < 4:
      self.skipTest('needs 4 devices (see optax/conftest.py)')
    self.mesh = jax.make_mesh((4,), ('x',),
                              axis_types=(jax.sharding.AxisType.Explicit,))
    self.enter_context(jax.set_mesh(self.mesh))
    sharding = jax.sharding.NamedSharding(self.mesh,
                                          jax.sharding.PartitionSpec('x'))
    self.x = jax.device_put(_X[:8], sharding)
    self.y = jax.device_put(_Y[:8], sharding)

  def _spec(self, array):
    return tuple(array.sharding.spec)

  def test_sum_and_concat(self):
    fn = mb.microbatch(
        lambda w, x, y: (_loss(w, x, y), jnp.tanh(x @ w)), argnums=(1, 2),
        microbatch_size=4, accumulator=(AT.SUM, AT.CONCAT))
    loss, pred = jax.jit(fn)(_W, self.x, self.y)
    np.testing.assert_allclose(loss, _loss(_W, _X[:8], _Y[:8]), rtol=1e-5)
    np.testing.assert_allclose(pred, np.tanh(_X[:8] @ _W), rtol=1e-5,
                               atol=1e-6)
    self.assertEqual(self._spec(pred)[:1], ('x',))

  def test_micro_vmap_and_micro_grad(self):
    mapped = mb.micro_vmap(lambda x: 2 * x, microbatch_size=4)
    out = jax.jit(mapped)(self.x)
    np.testing.assert_array_equal(out, 2 * _X[:8])
    self.assertEqual(self._spec(out)[:1], ('x',))
    fn = mb.micro_grad(_loss, batch_argnums=(1, 2), microbatch_size=4)
    grads, aux = jax.jit(fn)(_W, self.x, self.y)
    np.testing.assert_allclose(grads, jax.grad(_loss)(_W, _X[:8], _Y[:8]),
                               rtol=1e-5, atol=1e-6)
    self.assertEqual(aux.values.shape, (8,))


if __name__ == '__main__':
  absltest.main()
