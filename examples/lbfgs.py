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
# %% [markdown]
# # L-BFGS with a line search, against SciPy
#
# `optax.lbfgs()` is a full-batch optimizer: each step builds a direction
# from the last few gradient differences and searches along it with a zoom
# line search (strong Wolfe conditions). The line search evaluates the loss,
# so `update` takes `value`, `grad` and `value_fn`;
# `optax.value_and_grad_from_state` reuses the value and gradient the line
# search already computed. This script fits an L2-regularised logistic
# regression on scikit-learn's breast-cancer data with optax and with
# `scipy.optimize.minimize(method='L-BFGS-B')`, and plots both losses per
# iteration.
"""L-BFGS with a zoom line search vs SciPy on logistic regression.

Run ``python examples/lbfgs.py`` (``--quick``: fewer iterations).
"""

# %%
import sys

import jax
from jax import flatten_util
import jax.numpy as jnp
import numpy as np
from scipy import optimize
import example_utils as eu
import optax

# %%


def load_problem():
  """Standardised breast-cancer features (float64 in NumPy) and labels."""
  from sklearn import datasets
  x, y = datasets.load_breast_cancer(return_X_y=True)
  x = (x - x.mean(axis=0)) / x.std(axis=0)
  return x.astype(np.float32), y.astype(np.float32)


def make_loss(x, y, l2=1e-2):
  """Mean logistic loss plus an L2 penalty on the weights."""
  def loss(params):
    logits = x @ params['w'] + params['b']
    data = optax.sigmoid_binary_cross_entropy(logits, y).mean()
    return data + 0.5 * l2 * jnp.sum(params['w'] ** 2)
  return loss


def run_optax(loss, params, iterations):
  """optax.lbfgs; returns the loss after each iteration."""
  tx = optax.lbfgs()
  value_and_grad = optax.value_and_grad_from_state(loss)
  state = tx.init(params)

  @jax.jit
  def step(params, state):
    value, grad = value_and_grad(params, state=state)
    updates, state = tx.update(grad, state, params, value=value, grad=grad,
                               value_fn=loss)
    return optax.apply_updates(params, updates), state

  values = []
  for _ in range(iterations):
    params, state = step(params, state)
    values.append(float(loss(params)))
  return params, values


def run_scipy(loss, params, iterations):
  """scipy.optimize.minimize(L-BFGS-B) on the flattened params."""
  flat, unravel = flatten_util.ravel_pytree(params)
  value_and_grad = jax.jit(jax.value_and_grad(lambda v: loss(unravel(v))))

  def fun(v):
    value, grad = value_and_grad(jnp.asarray(v, jnp.float32))
    return float(value), np.asarray(grad, np.float64)

  values = []
  result = optimize.minimize(
      fun, np.asarray(flat, np.float64), jac=True, method='L-BFGS-B',
      options={'maxiter': iterations, 'maxcor': 10},
      callback=lambda v: values.append(fun(v)[0]))
  return unravel(jnp.asarray(result.x, jnp.float32)), values


# %%
def main(argv=None) -> int:
  """Solves the problem both ways and plots the losses."""
  args = eu.parse_args(eu.parser(__doc__, 'lbfgs.png'), argv)
  iterations = 10 if args.quick else 60
  x, y = load_problem()
  loss = make_loss(x, y)
  params = {'w': jnp.zeros(x.shape[1]), 'b': jnp.zeros(())}
  ours, ours_values = run_optax(loss, params, iterations)
  ref, ref_values = run_scipy(loss, params, iterations)
  gap = float(jnp.max(jnp.abs(ours['w'] - ref['w'])))
  print(f'after {iterations} iterations: optax.lbfgs loss '
        f'{ours_values[-1]:.6f}, scipy L-BFGS-B loss {ref_values[-1]:.6f}; '
        f'largest weight difference {gap:.2e}')

  fig, axes = eu.figure()
  ax = axes[0, 0]
  best = min(min(ours_values), min(ref_values))
  for values, label in [(ours_values, 'optax.lbfgs (zoom line search)'),
                        (ref_values, 'scipy L-BFGS-B')]:
    ax.plot(np.arange(1, len(values) + 1),
            np.maximum(np.array(values) - best, 1e-9), label=label)
  ax.set_xlabel('iteration')
  ax.set_ylabel('loss - best loss found')
  ax.set_yscale('log')
  ax.legend()
  ax.set_title('L-BFGS on logistic regression: optax vs SciPy')
  eu.save(fig, args.out)
  return 0


if __name__ == '__main__':
  sys.exit(main())
