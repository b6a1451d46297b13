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
"""Float64 NumPy references of the contrib transformations (issue 41).

Each function is written from the contract of one contrib name (the
docstring's ``.. math::`` block, the paper's algorithm it cites, or an
identity), never from an implementation, and computes in float64 NumPy.
Where the docstring and the paper part ways, the docstring decides (it is
what the library promises) and the function's docstring says where they
differ. ``optax/contrib/_contracts_test.py`` compares the library with these.
"""

from collections.abc import Callable, Sequence
from typing import Optional

import numpy as np

Arrays = Sequence[np.ndarray]


def _f64(x) -> np.ndarray:
  return np.asarray(x, np.float64)


def global_normalize(leaves: Arrays) -> list[np.ndarray]:
  """``u / ||u||_2`` with the norm over all leaves; zero stays zero."""
  leaves = [_f64(x) for x in leaves]
  norm = np.sqrt(sum(np.sum(x * x) for x in leaves))
  if norm == 0:
    return [np.zeros_like(x) for x in leaves]
  return [x / norm for x in leaves]


def dp_aggregate(per_example: Arrays, l2_norm_clip: float,
                 noise_std: float, noise: Arrays) -> list[np.ndarray]:
  """Abadi et al. 2016, Algorithm 1, one lot.

  Each example's gradient (row ``i`` of every leaf, all leaves together) is
  multiplied by ``min(1, C / ||g_i||)``, the clipped gradients are summed,
  ``noise_std`` times the standard normal draws ``noise`` (one array per
  leaf, shaped like a row) are added, and the sum is divided by the batch
  size.

  Args:
    per_example: the leaves, each with the batch on axis 0.
    l2_norm_clip: :math:`C`.
    noise_std: the standard deviation of the noise, :math:`\\sigma C`.
    noise: the standard normal draws, one per leaf.

  Returns:
    The noisy average, one array per leaf.
  """
  per_example = [_f64(x) for x in per_example]
  batch = per_example[0].shape[0]
  sq = sum(np.sum(x.reshape(batch, -1) ** 2, axis=1) for x in per_example)
  norms = np.sqrt(sq)
  factor = np.minimum(1.0, l2_norm_clip / np.where(norms > 0, norms, 1.0))
  factor = np.where(norms > 0, factor, 1.0)
  out = []
  for x, z in zip(per_example, noise):
    f = factor.reshape((batch,) + (1,) * (x.ndim - 1))
    out.append((np.sum(f * x, axis=0) + noise_std * _f64(z)) / batch)
  return out


def newton_schulz(x: np.ndarray, coeffs, ns_steps: int = 5,
                  preconditioning: str = 'frobenius',
                  eps: float = 1e-8) -> np.ndarray:
  """The scaled quintic iteration of Jordan et al. (2024), as documented.

  ``X`` is ``x`` (transposed when it has more rows than columns), scaled by
  ``preconditioning`` (Frobenius or spectral norm plus ``eps``, the
  Schatten-4 norm ``||X X^T||_F^(1/2)`` or, for ``'aol'``, each row by
  ``(sum_j |A_ij|)^(-1/2)``, these two floored at ``eps``), then each
  iteration maps ``X`` to ``a X + (b A + c A^2) X`` with ``A = X X^T``.

  Args:
    x: a matrix.
    coeffs: ``(a, b, c)`` used at every step, or one row per step.
    ns_steps: the number of steps with a single row.
    preconditioning: ``'frobenius'``, ``'spectral'``, ``'schatten'`` or
      ``'aol'``.
    eps: the :math:`\\epsilon` of the scaling.

  Returns:
    The iterate, shaped like ``x``.
  """
  x = _f64(x)
  coeffs = _f64(coeffs)
  rows = coeffs if coeffs.ndim == 2 else [coeffs] * ns_steps
  transposed = x.shape[0] > x.shape[1]
  if transposed:
    x = x.T
  if preconditioning == 'frobenius':
    x = x / (np.linalg.norm(x) + eps)
  elif preconditioning == 'spectral':
    x = x / (np.linalg.norm(x, 2) + eps)
  elif preconditioning == 'schatten':
    x = x / np.sqrt(max(np.linalg.norm(x @ x.T), eps))
  elif preconditioning == 'aol':
    row_sums = np.sum(np.abs(x @ x.T), axis=1)
    x = x / np.sqrt(np.maximum(row_sums, eps))[:, None]
  else:
    raise ValueError(preconditioning)
  for a, b, c in rows:
    gram = x @ x.T
    x = a * x + (b * gram + c * gram @ gram) @ x
  return x.T if transposed else x


def scale_by_muon(grads: Arrays, beta: float = 0.95, nesterov: bool = True,
                  adaptive: bool = False, **ns_kwargs) -> list[np.ndarray]:
  """The docstring's Muon step: NS of the (Nesterov) debiased momentum.

  ``m_t = beta m + (1 - beta) g``; Nesterov: ``beta m_t / (1 - beta^(t+1))
  + (1 - beta) g / (1 - beta^t)``, else ``m_t / (1 - beta^t)``; then
  :func:`newton_schulz`, times ``<m_hat, u>`` when ``adaptive``. Jordan et
  al.'s code does not debias (``grad.lerp(momentum, beta)``): the Frobenius
  scaling makes the difference one of ``eps`` only, and the docstring
  decides.

  Args:
    grads: the matrices of the steps.
    beta: the momentum decay.
    nesterov: the look-ahead momentum.
    adaptive: rescale by the Frobenius inner product.
    **ns_kwargs: passed to :func:`newton_schulz`.

  Returns:
    The updates of the steps.
  """
  out, m = [], 0.0
  for t, g in enumerate(map(_f64, grads), start=1):
    m = beta * m + (1 - beta) * g
    if nesterov:
      m_hat = beta * m / (1 - beta ** (t + 1)) + (1 - beta) * g / (
          1 - beta ** t)
    else:
      m_hat = m / (1 - beta ** t)
    u = newton_schulz(m_hat, **ns_kwargs)
    if adaptive:
      u = u * np.sum(m_hat * u)
    out.append(u)
  return out


def muon_shape_factor(fan_in: int, fan_out: int,
                      consistent_rms: Optional[float] = None) -> float:
  """``sqrt(max(1, d_out / d_in))``, or ``rho sqrt(max(d_in, d_out))``."""
  if consistent_rms is None:
    return float(np.sqrt(max(1.0, fan_out / fan_in)))
  return consistent_rms * float(np.sqrt(max(fan_in, fan_out)))


def sam(grad_fn: Callable[[np.ndarray], np.ndarray], w0: np.ndarray,
        cycles: int, lr: float, rho: float, sync_period: int = 2,
        momentum: float = 0.0, adv_momentum: float = 0.0,
        reset_state: bool = True) -> list[np.ndarray]:
  """Foret et al. 2021, Algorithm 1, generalized to ``sync_period`` steps.

  In a cycle from ``w``, ``sync_period - 1`` ascent steps ``w_adv <- w_adv +
  rho m`` with ``m = g(w_adv) / ||g(w_adv)|| + adv_momentum m`` (the
  adversarial optimizer ``chain(normalize(), sgd(rho, adv_momentum))``,
  negated), then the outer SGD (heavy-ball ``momentum``) step from ``w``
  with the gradient at the last ``w_adv``. With ``sync_period=2`` and no
  momenta this is Algorithm 1: ``w <- w - lr g(w + rho g(w) / ||g(w)||)``.

  Args:
    grad_fn: the gradient of the loss.
    w0: the initial params.
    cycles: the number of cycles.
    lr: the outer learning rate.
    rho: the radius of the ascent steps.
    sync_period: the number of steps of a cycle.
    momentum: the outer SGD's momentum.
    adv_momentum: the adversarial SGD's momentum.
    reset_state: whether the adversarial momentum restarts each cycle.

  Returns:
    The params after each step (``sync_period`` per cycle: the ascent
    points, then the new ``w``).
  """
  w = _f64(w0)
  trace = []
  outer_m, adv_m = 0.0, 0.0
  for _ in range(cycles):
    w_adv = w
    for _ in range(sync_period - 1):
      g = _f64(grad_fn(w_adv))
      (n,) = global_normalize([g])
      adv_m = n + adv_momentum * adv_m
      w_adv = w_adv + rho * adv_m
      trace.append(w_adv)
    g = _f64(grad_fn(w_adv))
    outer_m = g + momentum * outer_m
    w = w - lr * outer_m
    trace.append(w)
    if reset_state:
      adv_m = 0.0
  return trace


_BaseStep = Callable[[int, np.ndarray, np.ndarray], np.ndarray]


def schedule_free(grads: Arrays, y0: np.ndarray, base_step: _BaseStep,
                  lr_fn: Callable[[int], float], b1: float = 0.9,
                  weight_lr_power: float = 2.0) -> list[np.ndarray]:
  """Defazio et al. 2024, Algorithm 1, as the docstring of schedule_free.

  ``z_{t+1} = z_t + base(t, g_t, y_t)``, ``w_t = (max_{i<=t} lr_i)^r``,
  ``c_{t+1} = w_t / sum_{i<=t} w_i``, ``x_{t+1} = (1 - c) x_t + c z_{t+1}``,
  ``y_{t+1} = (1 - b1) z_{t+1} + b1 x_{t+1}``, from ``x_1 = z_1 = y_1 =
  y0``; the update is ``y_{t+1} - y_t`` and ``t`` starts at one.

  Args:
    grads: the gradients of the steps.
    y0: the initial params.
    base_step: ``(t, g, y) -> z step`` (learning rate and sign included).
    lr_fn: the learning rate of step ``t`` used by the weights.
    b1: the interpolation.
    weight_lr_power: the power ``r``.

  Returns:
    The updates of the steps.
  """
  y = z = x = _f64(y0)
  max_lr = weight_sum = 0.0
  out = []
  for t, g in enumerate(map(_f64, grads), start=1):
    max_lr = max(max_lr, lr_fn(t))
    weight = max_lr ** weight_lr_power
    weight_sum += weight
    c = weight / weight_sum if weight_sum > 0 else 0.0
    z = z + base_step(t, g, y)
    x = (1 - c) * x + c * z
    new_y = (1 - b1) * z + b1 * x
    out.append(new_y - y)
    y = new_y
  return out


def schedule_free_adamw_step(b2: float, eps: float, weight_decay: float,
                             lr_fn: Callable[[int], float]):
  """The z step of schedule_free_adamw's docstring, as a stateful closure.

  ``v_t = b2 v + (1 - b2) g^2`` and ``-lr_t (g / (sqrt(v_t / (1 - b2^t)) +
  eps) + wd y_t)``. The paper's Algorithm 1 also multiplies ``lr_t`` by
  ``sqrt(1 - b2^t)`` (in the weights too) and adds ``eps`` to ``sqrt(v_t)``;
  the docstring's variant decides.

  Args:
    b2: the second-moment decay.
    eps: added to the root.
    weight_decay: the decoupled decay, at ``y``.
    lr_fn: the learning rate of step ``t``.

  Returns:
    ``(t, g, y) -> z step``.
  """
  v = [0.0]

  def step(t, g, y):
    v[0] = b2 * v[0] + (1 - b2) * g * g
    ratio = g / (np.sqrt(v[0] / (1 - b2 ** t)) + eps)
    return -lr_fn(t) * (ratio + weight_decay * y)

  return step


def sophia(grads: Arrays, params0: np.ndarray,
           hessian_diag: Callable[[np.ndarray], np.ndarray], lr: float,
           b1: float = 0.965, b2: float = 0.99, eps: float = 1e-8,
           weight_decay: float = 1e-4, gamma: float = 0.01,
           clip_threshold: Optional[float] = 1.0,
           update_interval: int = 10) -> list[np.ndarray]:
  """The docstring's Sophia (Liu et al. 2023, Algorithm 3 with changes).

  With ``t`` the number of updates before this one: ``m_t = b1 m + (1 -
  b1) g``, ``u = clip(m_t / (1 - b1^(t+1)) / max(gamma h_{t-1}, eps),
  rho)``, then ``h_t = b2 h + (1 - b2) hessian_diag(theta_t)`` when ``t mod
  k == 0``; the update is ``-lr (u + wd theta_t)``. Algorithm 3 refreshes
  ``h`` before the step and uses no bias correction; the docstring, which
  states both choices, decides.

  Args:
    grads: the gradients of the steps.
    params0: the initial params (they follow the updates).
    hessian_diag: the exact diagonal of the Hessian at the params.
    lr: the learning rate.
    b1: the momentum decay.
    b2: the Hessian EMA decay.
    eps: the floor of the denominator.
    weight_decay: the decoupled weight decay.
    gamma: the scale of the Hessian.
    clip_threshold: ``rho``, or None for no clipping.
    update_interval: ``k``.

  Returns:
    The updates of the steps.
  """
  theta = _f64(params0)
  m = h = np.zeros_like(theta)
  out = []
  for t, g in enumerate(map(_f64, grads)):
    m = b1 * m + (1 - b1) * g
    ratio = m / (1 - b1 ** (t + 1)) / np.maximum(gamma * h, eps)
    if clip_threshold is not None:
      ratio = np.clip(ratio, -clip_threshold, clip_threshold)
    if t % update_interval == 0:
      h = b2 * h + (1 - b2) * _f64(hessian_diag(theta))
    u = -lr * (ratio + weight_decay * theta)
    out.append(u)
    theta = theta + u
  return out


def top_singular_vectors(g: np.ndarray, rank: int,
                         align_to: Optional[np.ndarray] = None) -> np.ndarray:
  """GaLore's projector: top right vectors if ``m < n``, else left ones.

  Singular vectors are defined up to sign: with ``align_to`` (another
  projector of the same subspace) each column takes its sign.

  Args:
    g: the ``(m, n)`` gradient.
    rank: ``r``, capped at ``min(m, n)``.
    align_to: the projector whose column signs to adopt, or None.

  Returns:
    The ``(max(m, n), r)`` projector.
  """
  u, _, vt = np.linalg.svd(_f64(g), full_matrices=False)
  r = min(rank, *g.shape)
  p = vt[:r].T if g.shape[0] < g.shape[1] else u[:, :r]
  if align_to is not None:
    p = p * np.where(np.sum(p * _f64(align_to), axis=0) < 0, -1.0, 1.0)
  return p


def galore_matrix(grads: Arrays, rank: int, update_proj_gap: int,
                  scale: float = 1.0, b1: float = 0.9, b2: float = 0.999,
                  eps: float = 1e-8,
                  align_to: Optional[Arrays] = None) -> list[np.ndarray]:
  """Zhao et al. 2024, Algorithm 2, with the docstring's projection side.

  The projector is the SVD's at steps ``0, T, 2T, ...`` (0-based) and kept
  in between; ``R = G Q`` (``m < n``) or ``P^T G``; Adam (its default
  hyperparameters, state kept across refreshes as in Algorithm 2) on
  ``R``; ``u = scale N Q^T`` or ``scale P N``. The docstring projects the
  larger dimension (the authors' code projects the smaller one when
  ``m >= n``): the docstring decides.

  Args:
    grads: the matrices of the steps.
    rank: the rank.
    update_proj_gap: ``T``.
    scale: the factor of the projected-back update.
    b1: Adam's first-moment decay.
    b2: Adam's second-moment decay.
    eps: Adam's eps.
    align_to: per step, the projector whose column signs to adopt.

  Returns:
    The updates of the steps.
  """
  out, m, v, p = [], 0.0, 0.0, None
  for t, g in enumerate(map(_f64, grads)):
    right = g.shape[0] < g.shape[1]
    if t % update_proj_gap == 0:
      p = top_singular_vectors(
          g, rank, None if align_to is None else align_to[t])
    r = g @ p if right else p.T @ g
    m = b1 * m + (1 - b1) * r
    v = b2 * v + (1 - b2) * r * r
    n = (m / (1 - b1 ** (t + 1))) / (np.sqrt(v / (1 - b2 ** (t + 1))) + eps)
    out.append(scale * (n @ p.T if right else p @ n))
  return out


def reduce_on_plateau(values: Sequence[float], factor: float = 0.1,
                      patience: int = 10, rtol: float = 1e-4,
                      atol: float = 0.0, cooldown: int = 0,
                      accumulation_size: int = 1,
                      min_scale: float = 0.0) -> list[float]:
  """The scale after each call, from the docstring of reduce_on_plateau.

  Every ``accumulation_size`` calls the mean ``v`` of their values is
  tested: an improvement when ``v < b - rtol |b| - atol`` (``b`` the best
  mean, initially inf, replaced on improvement); outside a cooldown, a
  non-improvement counts, and ``patience`` of them in a row multiply the
  scale by ``factor`` (at least ``min_scale``), restart the count and start
  ``cooldown`` tests during which nothing counts.

  Args:
    values: the monitored value of each call.
    factor: the reduction factor.
    patience: the number of non-improvements that reduce.
    rtol: the relative margin.
    atol: the absolute margin.
    cooldown: the tests ignored after a reduction.
    accumulation_size: the number of values averaged per test.
    min_scale: the smallest scale.

  Returns:
    The scale after each call.
  """
  scale, best, bad, cool, window = 1.0, np.inf, 0, 0, []
  out = []
  for value in values:
    window.append(float(value))
    if len(window) == accumulation_size:
      mean = float(np.mean(window))
      window = []
      improved = mean < best - rtol * abs(best) - atol if np.isfinite(
          best) else mean < best
      if improved:
        best = mean
      if cool > 0:
        cool -= 1
        bad = 0
      else:
        bad = 0 if improved else bad + 1
        if bad >= patience:
          scale = max(scale * factor, min_scale)
          bad = 0
          cool = cooldown
    out.append(scale)
  return out
