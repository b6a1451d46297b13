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
"""Tests for optax.perturbations._make_pert."""

import functools

from absl.testing import absltest
from absl.testing import parameterized
import jax
import jax.numpy as jnp
import numpy as np

from optax.perturbations import _make_pert


def _reference_noise(key, tree, num_samples, sampler):
  """The documented sampling scheme, written out with a Python loop.

  One key per sample (``split(key, num_samples)``), then one key per leaf
  (``split(sample_key, num_leaves)``) in leaf order.
  """
  leaves, treedef = jax.tree.flatten(tree)
  per_sample = []
  for sample_key in jax.random.split(key, num_samples):
    leaf_keys = jax.random.split(sample_key, len(leaves))
    per_sample.append(
        [np.asarray(sampler(k, x.shape), np.float64)
         for k, x in zip(leaf_keys, leaves)])
  return treedef.unflatten(
      [np.stack([s[i] for s in per_sample]) for i in range(len(leaves))])


_NOISES = (
    ('gumbel', _make_pert.Gumbel(), jax.random.gumbel,
     lambda z: 1.0 - np.exp(-z)),  # -d/dz log density
    ('normal', _make_pert.Normal(), jax.random.normal, lambda z: z),
)


class NoiseTest(parameterized.TestCase):
  """The Gumbel and Normal noise distributions."""

  def test_samples_match_jax_random(self):
    key = jax.random.key(3)
    np.testing.assert_array_equal(
        _make_pert.Gumbel().sample(key, (4, 2)),
        jax.random.gumbel(key, (4, 2)))
    np.testing.assert_array_equal(
        _make_pert.Normal().sample(key, (4, 2)),
        jax.random.normal(key, (4, 2)))
    self.assertEqual(
        _make_pert.Normal().sample(key, (3,), jnp.bfloat16).dtype,
        jnp.bfloat16)
    self.assertEqual(_make_pert.Gumbel().sample(key).shape, ())

  def test_log_prob(self):
    z = np.array([-1.5, 0.0, 0.3, 2.0], np.float32)
    np.testing.assert_allclose(_make_pert.Gumbel().log_prob(jnp.asarray(z)),
                               -z - np.exp(-z), rtol=1e-6)
    np.testing.assert_allclose(_make_pert.Normal().log_prob(jnp.asarray(z)),
                               -z ** 2 / 2, rtol=1e-6)

  def test_sample_moments(self):
    key = jax.random.key(0)
    g = np.asarray(_make_pert.Gumbel().sample(key, (200_000,)))
    np.testing.assert_allclose(g.mean(), np.euler_gamma, atol=0.01)
    n = np.asarray(_make_pert.Normal().sample(key, (200_000,)))
    np.testing.assert_allclose([n.mean(), n.std()], [0.0, 1.0], atol=0.01)


class MakePerturbedFunTest(parameterized.TestCase):
  """Values and derivative estimates of perturbed functions."""

  def setUp(self):
    super().setUp()
    rng = np.random.default_rng(0)
    self.x = {'u': jnp.asarray(rng.normal(size=3), jnp.float32),
              'v': jnp.asarray(rng.normal(size=(2, 2)), jnp.float32)}
    self.key = jax.random.key(7)

  @parameterized.named_parameters(*[(n[0], n[1], n[2]) for n in _NOISES])
  def test_identity_reveals_the_samples(self, noise, sampler):
    sigma, num_samples = 0.5, 6
    fn = _make_pert.make_perturbed_fun(
        lambda t: t, num_samples=num_samples, sigma=sigma, noise=noise)
    out = fn(self.key, self.x)
    z = _reference_noise(self.key, self.x, num_samples, sampler)
    for name in ('u', 'v'):
      np.testing.assert_allclose(
          out[name], np.asarray(self.x[name]) + sigma * z[name].mean(0),
          rtol=1e-5, atol=1e-6)

  @parameterized.product(noise=_NOISES, use_baseline=[True, False],
                         use_jit=[False, True])
  def test_value_and_gradient_estimator(self, noise, use_baseline, use_jit):
    _, dist, sampler, score = noise
    sigma, num_samples = 0.3, 50
    c = np.array([1.0, -2.0, 0.5])

    def f(t):  # A non-linear function of both leaves.
      return jnp.sin(jnp.dot(c, t['u'])) + jnp.sum(t['v'] ** 2)

    fn = _make_pert.make_perturbed_fun(
        f, num_samples=num_samples, sigma=sigma, noise=dist,
        use_baseline=use_baseline)
    value_and_grad = jax.value_and_grad(fn, argnums=1)
    if use_jit:
      value_and_grad = jax.jit(value_and_grad)
    value, grad = value_and_grad(self.key, self.x)

    # NumPy reference with the same samples.
    z = _reference_noise(self.key, self.x, num_samples, sampler)
    xu = np.asarray(self.x['u'], np.float64)
    xv = np.asarray(self.x['v'], np.float64)
    yu, yv = xu + sigma * z['u'], xv + sigma * z['v']
    fy = np.sin(yu @ c) + np.sum(yv ** 2, axis=(1, 2))
    np.testing.assert_allclose(value, fy.mean(), rtol=1e-5)
    weight = fy - (np.sin(xu @ c) + np.sum(xv ** 2)) if use_baseline else fy
    for name in ('u', 'v'):
      expected = np.mean(
          weight.reshape((-1,) + (1,) * (z[name].ndim - 1))
          * score(z[name]), axis=0) / sigma
      np.testing.assert_allclose(grad[name], expected, rtol=2e-4, atol=2e-4)

  def test_gumbel_argmax_is_softmax(self):
    # Gumbel-max trick: E[one_hot(argmax(x + sigma G))] = softmax(x / sigma).
    x = jnp.array([0.2, 0.5, -0.3])
    sigma = 0.5
    argmax = lambda t: jax.nn.one_hot(jnp.argmax(t), 3)
    fn = _make_pert.make_perturbed_fun(argmax, num_samples=20_000,
                                       sigma=sigma)
    probs = fn(jax.random.key(0), x)
    expected = np.exp(np.asarray(x) / sigma)
    expected /= expected.sum()
    np.testing.assert_allclose(probs, expected, atol=0.015)
    # Its Jacobian estimates that of the softmax, (diag(p) - p p^T) / sigma.
    jac = jax.jacobian(fn, argnums=1)(jax.random.key(1), x)
    expected_jac = (np.diag(expected) - np.outer(expected, expected)) / sigma
    np.testing.assert_allclose(jac, expected_jac, atol=0.06)

  def test_forward_and_reverse_mode_agree(self):
    f = lambda t: {'a': t['u'] ** 2, 'b': jnp.sum(t['v'])}
    fn = _make_pert.make_perturbed_fun(f, num_samples=20, sigma=0.2)
    tangent = jax.tree.map(jnp.ones_like, self.x)
    cotangent = {'a': jnp.array([1.0, -1.0, 2.0]), 'b': jnp.array(0.5)}
    _, jvp = jax.jvp(lambda t: fn(self.key, t), (self.x,), (tangent,))
    _, vjp_fn = jax.vjp(lambda t: fn(self.key, t), self.x)
    (vjp,) = vjp_fn(cotangent)
    # <cotangent, J tangent> = <J^T cotangent, tangent>.
    lhs = sum(jnp.vdot(cotangent[k], jvp[k]) for k in ('a', 'b'))
    rhs = sum(jnp.vdot(vjp[k], tangent[k]) for k in ('u', 'v'))
    np.testing.assert_allclose(lhs, rhs, rtol=1e-5)

  def test_same_key_same_result_and_raw_keys(self):
    # On every backend: one program called twice with one key gives the
    # same bits; another key other samples; a raw uint32 key works; and a
    # batch over x with one key perturbs each example with the samples of
    # the unbatched call. The batched program may sum the samples in
    # another order (1 ulp apart on an H200), so that last comparison
    # allows a few float32 ulps: other samples move the result by percents
    # (1% to 13% for keys 1 to 3 here).
    fn = _make_pert.make_perturbed_fun(lambda t: t ** 2, num_samples=5)
    x = jnp.array([1.0, 2.0])
    np.testing.assert_array_equal(fn(jax.random.key(0), x),
                                  fn(jax.random.key(0), x))
    self.assertFalse(np.array_equal(fn(jax.random.key(0), x),
                                    fn(jax.random.key(1), x)))
    raw = fn(jax.random.PRNGKey(0), x)
    self.assertEqual(raw.shape, (2,))
    batched = jax.vmap(fn, in_axes=(None, 0))(jax.random.key(0),
                                              jnp.stack([x, 2 * x]))
    np.testing.assert_allclose(batched[0], fn(jax.random.key(0), x),
                               rtol=4 * np.finfo(np.float32).eps)
    np.testing.assert_allclose(batched[1], fn(jax.random.key(0), 2 * x),
                               rtol=4 * np.finfo(np.float32).eps)

  def test_integer_valued_function(self):
    fn = _make_pert.make_perturbed_fun(jnp.argmax, num_samples=30,
                                       sigma=0.01)
    x = jnp.array([0.0, 5.0, 1.0])
    np.testing.assert_array_equal(fn(jax.random.key(0), x), 1.0)
    np.testing.assert_array_equal(
        jax.grad(lambda t: fn(jax.random.key(0), t))(x), 0.0)


  @parameterized.product(use_baseline=[True, False],
                         mode=['grad', 'jvp', 'hessian'])
  def test_derivative_of_fun_is_never_used(self, use_baseline, mode):
    # The estimator only evaluates fun: a fun whose derivative rule fails
    # works, with or without the baseline.
    @jax.custom_jvp
    def f(t):
      return jnp.sum(t ** 2)

    @f.defjvp
    def _no_derivative(primals, tangents):
      del primals, tangents
      raise AssertionError('the derivative of fun was used')

    fn = _make_pert.make_perturbed_fun(f, num_samples=20,
                                       use_baseline=use_baseline)
    x = jnp.array([0.5, -1.0])
    g = functools.partial(fn, jax.random.key(0))
    if mode == 'grad':
      out = jax.grad(g)(x)
    elif mode == 'jvp':
      out = jax.jvp(g, (x,), (jnp.ones(2),))[1]
    else:
      out = jax.hessian(g)(x)
    self.assertTrue(np.all(np.isfinite(out)))

if __name__ == '__main__':
  absltest.main()
