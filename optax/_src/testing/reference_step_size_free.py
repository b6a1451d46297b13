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
"""Float64 NumPy references of contrib's step-size-free optimizers (issue 41).

COCOB, D-Adaptation (Adam), DoG, DoWG, Prodigy, Mechanic, MoMo and
MoMo-Adam, each written from its paper's algorithm, the authors' reference
code and the docstring's ``.. math::`` block (each function says which one
decided where they part), never from an implementation of this library.

Every function runs the steps of one optimizer on a flat float64 vector:
it takes the initial params ``x0`` and the gradients of the steps (a list
of arrays of ``x0``'s shape; the loss values too for MoMo), moves the params
by its own updates (``x_{t+1} = x_t + u_t``) and returns the list of
updates, learning rate and sign included. All the rules read the params
only through sums over all entries (norms, inner products) or entry by
entry, so a tree of several leaves is checked against the concatenation of
its raveled leaves.
"""

from collections.abc import Callable, Sequence
from typing import Optional, Union

import numpy as np

Arrays = Sequence[np.ndarray]
Rate = Union[float, Callable[[int], float]]


def _f64(x) -> np.ndarray:
  return np.asarray(x, np.float64)


def _rate(lr: Rate, k: int) -> float:
  return float(lr(k)) if callable(lr) else float(lr)


def cocob(grads: Arrays, x0: np.ndarray, alpha: float = 100.0,
          eps: float = 1e-8, lr: Rate = 1.0,
          weight_decay: float = 0.0) -> list[np.ndarray]:
  """COCOB-Backprop (Orabona and Tommasi 2017, Algorithm 2).

  Per coordinate, with ``w_1 = x0``: ``L = max(L, |g|)`` from ``L_0 = eps``,
  ``G += |g|`` from 0 (the docstring's ``G``; the paper starts it at ``L_0 =
  eps``, which the docstring does not), ``R = max(R - g (w_t - w_1), 0)``,
  ``theta -= g``, ``w_{t+1} = w_1 + theta / (L max(G + L, alpha L)) (L +
  R)``. The ``cocob`` alias first adds ``weight_decay * w_t`` to the
  gradient and multiplies it by ``lr`` (a number or a function of the step).

  Args:
    grads: the gradients of the steps.
    x0: the initial params.
    alpha: the bound on the bet fraction's growth.
    eps: the initial scale ``L_0``.
    lr: the factor applied to the gradients.
    weight_decay: the weight decay added to the gradients.

  Returns:
    The updates of the steps.
  """
  w1 = _f64(x0)
  x = w1.copy()
  scale = np.full_like(w1, eps)
  gsum = np.zeros_like(w1)
  reward = np.zeros_like(w1)
  theta = np.zeros_like(w1)
  out = []
  for k, g in enumerate(map(_f64, grads)):
    g = _rate(lr, k) * (g + weight_decay * x)
    scale = np.maximum(scale, np.abs(g))
    gsum = gsum + np.abs(g)
    reward = np.maximum(reward - g * (x - w1), 0.0)
    theta = theta - g
    new = w1 + theta / (scale * np.maximum(gsum + scale, alpha * scale)) * (
        scale + reward)
    out.append(new - x)
    x = new
  return out


def dog(grads: Arrays, x0: np.ndarray, init_step: tuple[str, float] = (
    'heuristic', 1e-6), eps: float = 1e-8, lr: Rate = 1.0,
        weight_decay: Optional[float] = None) -> list[np.ndarray]:
  """DoG (Ivgi, Hinder and Carmon 2023, eq. (1)-(2)).

  ``rbar_t = max(rbar_{t-1}, |x_t - x_0|)`` from ``r_eps``, ``G_t = G_{t-1}
  + |g_t|^2``, ``eta_t = rbar_t / sqrt(G_t + eps)`` (the docstring's
  ``eps``), the update ``-lr eta_t g_t``. ``init_step``: ``('heuristic',
  c)``: ``r_eps = c (1 + |x_0|)`` (the paper's ``reps_rel``);
  ``('distance', r)``: ``r_eps = r``; ``('learning_rate', eta)``: the first
  step size is ``eta`` and ``r_eps = 0``. ``weight_decay`` adds ``lambda
  x_t`` to the gradient first.

  Args:
    grads: the gradients of the steps.
    x0: the initial params.
    init_step: ``(kind, value)`` as above.
    eps: added to the sum of squared norms.
    lr: the multiplier of the step size.
    weight_decay: None, or the weight decay added to the gradients.

  Returns:
    The updates of the steps.
  """
  x0 = _f64(x0)
  x = x0.copy()
  kind, value = init_step
  if kind == 'heuristic':
    rbar = value * (1 + np.linalg.norm(x0))
  elif kind == 'distance':
    rbar = value
  else:
    rbar = 0.0
  gsum = 0.0
  out = []
  for k, g in enumerate(map(_f64, grads)):
    if weight_decay is not None:
      g = g + weight_decay * x
    rbar = max(rbar, np.linalg.norm(x - x0))
    gsum += np.sum(g * g)
    eta = rbar / np.sqrt(gsum + eps)
    if kind == 'learning_rate' and k == 0:
      eta = value
    u = -_rate(lr, k) * eta * g
    out.append(u)
    x = x + u
  return out


def dowg(grads: Arrays, x0: np.ndarray,
         init_estim_sq_dist: Optional[float] = None, eps: float = 1e-4,
         lr: Rate = 1.0,
         weight_decay: Optional[float] = None) -> list[np.ndarray]:
  """DoWG (Khaled, Mishchenko and Jin 2023, Algorithm 1).

  ``rbar_t^2 = max(rbar_{t-1}^2, |x_t - x_0|^2)`` from ``init_estim_sq_dist``
  (``eps`` when None), ``v_t = v_{t-1} + rbar_t^2 |g_t|^2``, ``eta_t =
  rbar_t^2 / (sqrt(v_t) + eps)`` (the docstring's ``eps``), the update
  ``-lr eta_t g_t``; ``weight_decay`` adds ``lambda x_t`` to the gradient.

  Args:
    grads: the gradients of the steps.
    x0: the initial params.
    init_estim_sq_dist: the initial squared distance estimate.
    eps: added to the denominator, and the default initial estimate.
    lr: the multiplier of the step size.
    weight_decay: None, or the weight decay added to the gradients.

  Returns:
    The updates of the steps.
  """
  x0 = _f64(x0)
  x = x0.copy()
  rbar_sq = eps if init_estim_sq_dist is None else init_estim_sq_dist
  v = 0.0
  out = []
  for k, g in enumerate(map(_f64, grads)):
    if weight_decay is not None:
      g = g + weight_decay * x
    rbar_sq = max(rbar_sq, np.sum((x - x0) ** 2))
    v += rbar_sq * np.sum(g * g)
    u = -_rate(lr, k) * rbar_sq / (np.sqrt(v) + eps) * g
    out.append(u)
    x = x + u
  return out


def dadapt_adamw(grads: Arrays, x0: np.ndarray, lr: Rate = 1.0,
                 betas: tuple[float, float] = (0.9, 0.999),
                 eps: float = 1e-8, d0: float = 1e-6,
                 weight_decay: float = 0.0) -> list[np.ndarray]:
  """D-Adapted AdamW (Defazio and Mishchenko 2023; the authors' dadapt_adam).

  The authors' ``DAdaptAdam`` of dadaptation 3.x with Adam's bias correction
  on (the docstring's ``lambda_k``: the authors make it an option) and
  decoupled weight decay: ``lam = d lr sqrt(1 - b2^(k+1)) / (1 - b1^(k+1))``,
  ``r = sqrt(b2) r + (1 - sqrt(b2)) lam <g, s / (sqrt(v) + eps)>`` with the
  previous ``s`` and ``v``, ``m = b1 m + (1 - b1) lam g``, ``v = b2 v + (1 -
  b2) g^2``, ``s = sqrt(b2) s + (1 - sqrt(b2)) lam g``, ``d = max(d, r /
  ((1 - sqrt(b2)) |s|_1))`` (kept while ``|s|_1 = 0``), the update ``-m /
  (sqrt(v) + eps) - wd lam x``.

  Args:
    grads: the gradients of the steps.
    x0: the initial params.
    lr: the multiplier of the adapted step size.
    betas: ``(b1, b2)``.
    eps: added to the denominator.
    d0: the initial distance estimate.
    weight_decay: the decoupled weight decay.

  Returns:
    The updates of the steps.
  """
  b1, b2 = betas
  x = _f64(x0).copy()
  m = np.zeros_like(x)
  v = np.zeros_like(x)
  s = np.zeros_like(x)
  d, r = d0, 0.0
  root = np.sqrt(b2)
  out = []
  for k, g in enumerate(map(_f64, grads)):
    lam = d * _rate(lr, k) * np.sqrt(1 - b2 ** (k + 1)) / (1 - b1 ** (k + 1))
    r = root * r + (1 - root) * lam * np.sum(g * s / (np.sqrt(v) + eps))
    m = b1 * m + (1 - b1) * lam * g
    v = b2 * v + (1 - b2) * g * g
    s = root * s + (1 - root) * lam * g
    l1 = np.sum(np.abs(s))
    u = -m / (np.sqrt(v) + eps) - weight_decay * lam * x
    if l1 > 0:
      d = max(d, r / ((1 - root) * l1))
    out.append(u)
    x = x + u
  return out


def prodigy(grads: Arrays, x0: np.ndarray, lr: Rate = 1.0,
            betas: tuple[float, float] = (0.9, 0.999),
            beta3: Optional[float] = None, eps: float = 1e-8,
            d0: float = 1e-6, coef: float = 1.0, weight_decay: float = 0.0,
            safeguard_warmup: bool = False,
            decay_mask: Optional[np.ndarray] = None) -> list[np.ndarray]:
  """Prodigy (Mishchenko and Defazio 2023, Algorithm 3; the authors' code).

  The authors' ``Prodigy`` (prodigy.py) with Adam's bias correction on (the
  docstring's ``lambda_k``; an option there) and decoupled weight decay:
  ``lam = d lr sqrt(1 - b2^(k+1)) / (1 - b1^(k+1))``, ``r = b3 r + (d / d0)
  lam <g, x0 - x>``, ``s = b3 s + (d / d0) mu g`` (``mu = lam``, or ``d``
  with ``safeguard_warmup``), ``m = b1 m + (1 - b1) d g``, ``v = b2 v + (1
  - b2) d^2 g^2``, ``d' = max(d, coef r / |s|_1)`` (kept while ``|s|_1 =
  0``), the update ``-lam (m / (sqrt(v) + d' eps) + wd x)``. The estimate
  next to ``eps`` is the new one, ``d'``, as in the authors' code (their
  ``denom`` is formed after ``d`` is updated) and the docstring's formula;
  Algorithm 3 writes ``d_k``: the two agree but where ``eps`` is comparable
  with ``sqrt(v)``.

  Args:
    grads: the gradients of the steps.
    x0: the initial params.
    lr: the multiplier of the adapted step size.
    betas: ``(b1, b2)``.
    beta3: the decay of ``r`` and ``s`` (None: ``sqrt(b2)``).
    eps: added to the denominator, times ``d'``.
    d0: the initial distance estimate.
    coef: the coefficient of the estimate.
    weight_decay: the decoupled weight decay.
    safeguard_warmup: whether ``s`` leaves out the learning rate.
    decay_mask: a bool per entry, where the weight decay applies (None:
      everywhere).

  Returns:
    The updates of the steps.
  """
  b1, b2 = betas
  b3 = np.sqrt(b2) if beta3 is None else beta3
  x0 = _f64(x0)
  x = x0.copy()
  mask = np.ones(x.shape, bool) if decay_mask is None else decay_mask
  m = np.zeros_like(x)
  v = np.zeros_like(x)
  s = np.zeros_like(x)
  d, r = d0, 0.0
  out = []
  for k, g in enumerate(map(_f64, grads)):
    lam = d * _rate(lr, k) * np.sqrt(1 - b2 ** (k + 1)) / (1 - b1 ** (k + 1))
    r = b3 * r + (d / d0) * lam * np.sum(g * (x0 - x))
    s = b3 * s + (d / d0) * (d if safeguard_warmup else lam) * g
    m = b1 * m + (1 - b1) * d * g
    v = b2 * v + (1 - b2) * d * d * g * g
    l1 = np.sum(np.abs(s))
    new_d = max(d, coef * r / l1) if l1 > 0 else d
    u = -lam * (m / (np.sqrt(v) + new_d * eps)
                + np.where(mask, weight_decay * x, 0.0))
    d = new_d
    out.append(u)
    x = x + u
  return out


def mechanize(grads: Arrays, x0: np.ndarray,
              base: Callable[[np.ndarray, int], np.ndarray],
              weight_decay: float = 1e-2, eps: float = 1e-8,
              s_init: float = 1e-6, num_betas: int = 6) -> list[np.ndarray]:
  """Mechanic (Cutkosky, Defazio and Mehta 2023, Algorithm 1; docstring).

  The docstring's rule, which is Algorithm 1 and the authors' mechanic.py
  with two documented changes (``m`` takes ``|h| + eps``, and the wealth
  update clips ``h`` to the previous ``m`` and is not floored at 0, its
  positive part enters ``s``) and one reading: the weight-decay term uses
  the params before the base step, ``x_t`` (the authors' code reads them
  after the base optimizer moved them). With ``x_ref = x0``, ``S = sum(s)``,
  ``Delta = (x - x_ref) / (S + eps)``: ``gt = g + wd S |g| / (|x| + eps)
  x``, ``h = <gt, Delta>``, ``m' = max(beta m, |h| + eps)``, ``v = beta^2 v
  + h^2``, ``r = beta r - s clip(h, -m, m)`` (the previous ``m``), ``s =
  (s_init m' / n + max(r, 0)) / (sqrt(v) + eps)`` for ``beta_i = 1 -
  10^-i``; the params move to ``x_ref + S' (Delta + u)`` with ``u`` the
  base optimizer's update.

  Args:
    grads: the gradients of the steps.
    x0: the initial params (the reference point).
    base: the base optimizer's update, a function of the gradient and the
      step index.
    weight_decay: the learners' weight decay ``lambda``.
    eps: the epsilon.
    s_init: the initial scale.
    num_betas: the number of learners.

  Returns:
    The updates of the steps.
  """
  betas = 1.0 - 0.1 ** np.arange(1, num_betas + 1)
  ref = _f64(x0)
  x = ref.copy()
  r = np.zeros(num_betas)
  m = np.zeros(num_betas)
  v = np.zeros(num_betas)
  s = np.zeros(num_betas)
  out = []
  for k, g in enumerate(map(_f64, grads)):
    total = np.sum(s)
    delta = (x - ref) / (total + eps)
    gt = g + weight_decay * total * np.linalg.norm(g) / (
        np.linalg.norm(x) + eps) * x
    h = np.sum(gt * delta)
    new_m = np.maximum(betas * m, abs(h) + eps)
    v = betas ** 2 * v + h * h
    r = betas * r - s * np.clip(h, -m, m)
    s = (s_init * new_m / num_betas + np.maximum(r, 0.0)) / (np.sqrt(v) + eps)
    m = new_m
    new = ref + np.sum(s) * (delta + base(g, k))
    out.append(new - x)
    x = new
  return out


def momo(grads: Arrays, values: Sequence[float], x0: np.ndarray,
         lr: Rate = 1.0, beta: float = 0.9, lower_bound: float = 0.0,
         weight_decay: float = 0.0,
         adapt_lower_bound: bool = False) -> list[np.ndarray]:
  """MoMo (Schaipp et al. 2023, Algorithm 1; the authors' momo.py).

  The authors' ``Momo`` without bias correction (the docstring's ``d_0 =
  g_0``): ``d = beta d + (1 - beta) g``, ``fbar = beta fbar + (1 - beta)
  f``, ``gamma = beta gamma + (1 - beta) <g, x>``, started at the first
  step's values; ``tau = min(lr, (<d, x> + (1 + lr wd)(fbar - gamma - lb))_+
  / |d|^2)`` (0 / 0 read as 0); ``x' = (x - tau d) / (1 + lr wd)``, the
  proximal step of the paper's weight-decay variant and the authors' code
  (the step is taken, then divided). With ``adapt_lower_bound``, the
  authors' estimate: with ``h = fbar + <d, x> - gamma``, an estimate above
  ``(1 + lr wd)(fbar - gamma) + <d, x>`` over ``1 + lr wd`` is reset to
  half of that (at least ``lower_bound``) before the step, and after it
  becomes ``max(lower_bound, h - tau |d|^2 / 2)``.

  Args:
    grads: the gradients of the steps.
    values: the loss values at the steps' params.
    x0: the initial params.
    lr: the largest step size (a number or a function of the step).
    beta: the momentum.
    lower_bound: the lower bound of the loss (the first estimate).
    weight_decay: the weight decay ``lambda``.
    adapt_lower_bound: whether to estimate the lower bound online.

  Returns:
    The updates of the steps.
  """
  x = _f64(x0).copy()
  lb = lower_bound
  out = []
  for k, (g, f) in enumerate(zip(map(_f64, grads), values)):
    alpha = _rate(lr, k)
    if k == 0:
      d, fbar, gamma = g, float(f), float(np.sum(g * x))
    else:
      d = beta * d + (1 - beta) * g
      fbar = beta * fbar + (1 - beta) * f
      gamma = beta * gamma + (1 - beta) * np.sum(g * x)
    shrink = 1 + alpha * weight_decay
    dot, sq = np.sum(d * x), np.sum(d * d)
    if adapt_lower_bound:
      cap = shrink * (fbar - gamma) + dot
      if cap < shrink * lb:
        lb = max(cap / (2 * shrink), lower_bound)
    nom = max(dot + shrink * (fbar - gamma - lb), 0.0)
    tau = min(alpha, nom / sq if sq > 0 else (np.inf if nom > 0 else 0.0))
    new = (x - tau * d) / shrink
    if adapt_lower_bound:
      lb = max(lower_bound, fbar + dot - gamma - tau * sq / 2)
    out.append(new - x)
    x = new
  return out


def momo_adam(grads: Arrays, values: Sequence[float], x0: np.ndarray,
              lr: Rate = 1e-2, b1: float = 0.9, b2: float = 0.999,
              eps: float = 1e-8, lower_bound: float = 0.0,
              weight_decay: float = 0.0,
              adapt_lower_bound: bool = False) -> list[np.ndarray]:
  """MoMo-Adam (Schaipp et al. 2023, Algorithm 2; the authors' momo_adam.py).

  ``m = b1 m + (1 - b1) g``, ``v = b2 v + (1 - b2) g^2``, ``fbar`` and
  ``gamma = EMA(<g, x>)`` with ``b1``, all from 0; with ``c1 = 1 -
  b1^(k+1)``, ``D = eps + sqrt(v / (1 - b2^(k+1)))``: ``tau = min(lr, (<m,
  x> + (1 + lr wd)(fbar - gamma - c1 lb))_+ / (<m, m / D> / c1))`` and ``x'
  = (x - tau (m / c1) / D) / (1 + lr wd)`` (the authors' ``divide=True``
  proximal step; their ``tau`` is this one over ``c1``). With
  ``adapt_lower_bound``, the authors' estimate: reset to half of ``((1 + lr
  wd)(fbar - gamma) + <m, x>) / ((1 + lr wd) c1)`` (at least
  ``lower_bound``) when that is below it, and after the step ``max(
  lower_bound, (fbar + <m, x> - gamma) / c1 - tau <m, m / D> / (2 c1^2))``.

  Args:
    grads: the gradients of the steps.
    values: the loss values at the steps' params.
    x0: the initial params.
    lr: the largest step size (a number or a function of the step).
    b1: decay of the first moment and of the loss model.
    b2: decay of the second moment.
    eps: the preconditioner's epsilon.
    lower_bound: the lower bound of the loss (the first estimate).
    weight_decay: the weight decay ``lambda``.
    adapt_lower_bound: whether to estimate the lower bound online.

  Returns:
    The updates of the steps.
  """
  x = _f64(x0).copy()
  m = np.zeros_like(x)
  v = np.zeros_like(x)
  fbar = gamma = 0.0
  lb = lower_bound
  out = []
  for k, (g, f) in enumerate(zip(map(_f64, grads), values)):
    alpha = _rate(lr, k)
    m = b1 * m + (1 - b1) * g
    v = b2 * v + (1 - b2) * g * g
    fbar = b1 * fbar + (1 - b1) * f
    gamma = b1 * gamma + (1 - b1) * np.sum(g * x)
    c1 = 1 - b1 ** (k + 1)
    diag = eps + np.sqrt(v / (1 - b2 ** (k + 1)))
    shrink = 1 + alpha * weight_decay
    dot, sq = np.sum(m * x), np.sum(m * m / diag)
    if adapt_lower_bound:
      cap = shrink * (fbar - gamma) + dot
      if cap < shrink * c1 * lb:
        lb = max(cap / (2 * shrink * c1), lower_bound)
    nom = max(dot + shrink * (fbar - gamma - c1 * lb), 0.0)
    ratio = c1 * nom / sq if sq > 0 else (np.inf if nom > 0 else 0.0)
    tau = min(alpha, ratio)
    new = (x - tau * (m / c1) / diag) / shrink
    if adapt_lower_bound:
      lb = max(lower_bound,
               (fbar + dot - gamma) / c1 - tau * sq / (2 * c1 * c1))
    out.append(new - x)
    x = new
  return out
