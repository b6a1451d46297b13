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
r"""Differentiable perturbed functions (Monte-Carlo smoothing).

Given a function :math:`f` (possibly piecewise constant, such as an argmax),
its perturbed version is

.. math::

  F_\sigma(x) = \mathbb{E}_{Z \sim \mu}\left[f(x + \sigma Z)\right],

which is smooth in :math:`x` and whose gradient can be estimated without
differentiating :math:`f` (score-function estimator, Berthet et al., 2020).
"""

from collections.abc import Callable, Sequence
import operator
from typing import Any

import jax
import jax.numpy as jnp

from optax._src import base


class _StandardNoise:
  """A standard noise distribution: a sampler and its log-density."""

  # The jax.random sampler, called as (key, shape, dtype).
  _draw: Callable[..., jax.Array]

  def sample(
      self,
      key: base.PRNGKey,
      sample_shape: Sequence[int] = (),
      dtype: jax.typing.DTypeLike = float,
  ) -> jax.Array:
    """Draws samples of the distribution.

    Args:
      key: a JAX random key.
      sample_shape: the shape of the samples.
      dtype: the dtype of the samples.

    Returns:
      An array of shape ``sample_shape`` and dtype ``dtype``.
    """
    return self._draw(key, sample_shape, dtype)


class Normal(_StandardNoise):
  r"""The standard normal distribution :math:`\mathcal{N}(0, 1)`.

  ``log_prob`` is the log-density up to its additive constant,
  :math:`-z^2 / 2`, which is all the score-function estimator needs.
  Samples are those of ``jax.random.normal``.
  """

  _draw = staticmethod(jax.random.normal)

  def log_prob(self, inputs: jax.Array) -> jax.Array:
    """The unnormalized log-density :math:`-z^2 / 2`, elementwise.

    Args:
      inputs: the points :math:`z`.

    Returns:
      An array like ``inputs``.
    """
    return -0.5 * inputs ** 2


class Gumbel(_StandardNoise):
  r"""The standard Gumbel distribution.

  Its log-density is :math:`-z - e^{-z}`. Adding Gumbel noise to scores
  and taking the argmax samples from the softmax distribution (the
  Gumbel-max trick). Samples are those of ``jax.random.gumbel``.
  """

  _draw = staticmethod(jax.random.gumbel)

  def log_prob(self, inputs: jax.Array) -> jax.Array:
    """The log-density :math:`-z - e^{-z}` of a standard Gumbel variable.

    Args:
      inputs: the points :math:`z`, elementwise.

    Returns:
      An array like ``inputs``.
    """
    return -inputs - jnp.exp(-inputs)


_STANDARD_GUMBEL = Gumbel()


def _sample_noise(key, inputs, num_samples, noise):
  """Noise shaped like ``inputs`` with a leading axis of ``num_samples``.

  The key is split into one key per sample, and each of these into one key
  per leaf of ``inputs`` (in leaf order).
  """
  leaves, treedef = jax.tree.flatten(inputs)

  def one_sample(sample_key):
    leaf_keys = jax.random.split(sample_key, len(leaves))
    return treedef.unflatten([
        noise.sample(k, jnp.shape(x), jnp.result_type(x))
        for k, x in zip(leaf_keys, leaves)
    ])

  return jax.vmap(one_sample)(jax.random.split(key, num_samples))


def make_perturbed_fun(
    fun: Callable[[base.ArrayTree], base.ArrayTree],
    num_samples: int = 1000,
    sigma: float = 0.1,
    noise: Any = _STANDARD_GUMBEL,
    use_baseline: bool = True,
) -> Callable[[base.PRNGKey, base.ArrayTree], base.ArrayTree]:
  r"""Turns a function into its stochastic smoothing by random perturbations.

  .. math::

    F_\sigma(x) = \mathbb{E}_{Z}\left[f(x + \sigma Z)\right]
    \approx \frac{1}{n} \sum_{i=1}^n f(x + \sigma Z_i),

  and its derivatives are the score-function (REINFORCE) estimates

  .. math::

    \partial_x F_\sigma(x) \, t \approx \frac{1}{n} \sum_{i=1}^n
    \big(f(Y_i) - b\big) \, \big\langle \nabla_x \log \mu\big(
    (Y_i - x) / \sigma\big), t \big\rangle,
    \qquad Y_i = x + \sigma Z_i,

  with the baseline :math:`b = f(x)` (variance reduction) or :math:`b = 0`.
  :math:`f` is only evaluated, never differentiated, so it may be piecewise
  constant (argmax, sorting, ranking, a solver). The estimator is built with a
  stop-gradient surrogate, so it has JVPs, VJPs and higher derivatives
  (including with respect to ``sigma``), works under ``jit`` and ``vmap``.

  Examples:
    >>> import jax
    >>> import jax.numpy as jnp
    >>> from optax import perturbations
    >>> argmax = lambda x: jax.nn.one_hot(jnp.argmax(x), 3)
    >>> smooth_argmax = perturbations.make_perturbed_fun(
    ...     argmax, num_samples=1000, sigma=0.5)
    >>> probs = smooth_argmax(jax.random.key(0), jnp.array([1.0, 2.0, 0.5]))
    >>> probs.shape
    (3,)

  Args:
    fun: the function to smooth, from a pytree of arrays to a pytree of
      arrays.
    num_samples: the number :math:`n` of Monte-Carlo samples.
    sigma: the scale :math:`\sigma > 0` of the perturbations.
    noise: the distribution :math:`\mu` of :math:`Z`: an object with methods
      ``sample(key, sample_shape, dtype)`` and ``log_prob(inputs)`` (the
      log-density up to a constant), such as :class:`Gumbel` or
      :class:`Normal`.
    use_baseline: whether to subtract :math:`f(x)` in the derivative
      estimates (lower variance, same expectation).

  Returns:
    A function ``perturbed_fun(key, inputs)`` returning the Monte-Carlo
    estimate of :math:`F_\sigma(\text{inputs})`; the same key gives the same
    samples, in the derivatives as well.

  References:
    Berthet et al., `Learning with Differentiable Perturbed Optimizers
    <https://arxiv.org/abs/2002.08676>`_, 2020
  """

  def perturbed_fun(key: base.PRNGKey, inputs: base.ArrayTree
                    ) -> base.ArrayTree:
    inputs = jax.tree.map(jnp.asarray, inputs)
    samples = _sample_noise(key, inputs, num_samples, noise)
    perturbed = jax.lax.stop_gradient(
        jax.tree.map(lambda x, z: x + sigma * z, inputs, samples))
    outputs = jax.vmap(fun)(perturbed)

    def log_density(point):
      # log mu((Y_i - x) / sigma) for one sample, summed over every entry.
      return jax.tree.reduce(operator.add, jax.tree.map(
          lambda y, x: jnp.sum(noise.log_prob((y - x) / sigma)),
          point, inputs))

    log_probs = jax.vmap(log_density)(perturbed)
    # Equal to one, with the derivative of the log-density (surrogate).
    weights = jnp.exp(log_probs - jax.lax.stop_gradient(log_probs))

    def weights_like(out):
      return jnp.reshape(weights, weights.shape + (1,) * (out.ndim - 1))

    estimates = jax.tree.map(lambda out: out * weights_like(out), outputs)
    if use_baseline:
      # Zero in value; subtracts f(x) times the score in the derivatives.
      # fun itself is never differentiated (it may have no derivative):
      # its input is cut from the graph, not only its output.
      baseline = fun(jax.lax.stop_gradient(inputs))
      corrections = jax.tree.map(
          lambda out, b: b * (weights_like(out) - 1), outputs, baseline)
      estimates = jax.tree.map(operator.sub, estimates, corrections)
    return jax.tree.map(lambda e: jnp.mean(e, axis=0), estimates)

  return perturbed_fun
