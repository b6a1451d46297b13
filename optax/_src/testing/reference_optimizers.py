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
"""Float64 NumPy references of the optimizers' update rules (issue 41).

Each function runs a few steps of one update rule, written from its source
(the paper's algorithm, or the docstring's ``.. math::`` block where the
docstring is the definition), never from an implementation. It takes the
gradients of the steps (a list of arrays) and, where the rule reads them,
the params at each step, and returns the list of updates (what is added to
the params, learning rate and sign included for the aliases). Everything is
float64 NumPy; one array is one parameter (one "layer" for the layer-wise
rules). The contract tests compare the library with these on random inputs
and on edges (zeros, ties, tiny and huge magnitudes), in
``optimizer_contracts_test.py``, ``wrapper_contracts_test.py`` and
``contrib/_contracts_test.py``.
"""

from collections.abc import Callable, Sequence
from typing import Optional

import numpy as np

Arrays = Sequence[np.ndarray]


def _f64(x) -> np.ndarray:
  return np.asarray(x, np.float64)


def _norm(x: np.ndarray) -> float:
  return float(np.sqrt(np.sum(np.square(x))))


def _emas(grads: Arrays, decay: float,
          square: bool = False) -> list[np.ndarray]:
  """The moving averages ``a_t = decay a_{t-1} + (1 - decay) x_t``, ``a_0 = 0``.

  Args:
    grads: the inputs of the steps.
    decay: the decay.
    square: whether ``x_t`` is the input's square rather than the input.

  Returns:
    The averages after each step.
  """
  out = []
  avg = 0.0
  for g in map(_f64, grads):
    avg = decay * avg + ((1 - decay) * g * g if square else (1 - decay) * g)
    out.append(avg)
  return out


def _beliefs(grads: Arrays, b1: float, b2: float,
             eps_root: float) -> list[np.ndarray]:
  """AdaBelief's ``s_t = b2 s + (1 - b2) (g - m_t)^2 + eps_root``, ``s_0 = 0``.

  Args:
    grads: the gradients of the steps.
    b1: the decay of the first moment ``m``.
    b2: the decay of ``s``.
    eps_root: added at each step.

  Returns:
    ``s_t`` after each step.
  """
  out = []
  s = 0.0
  for g, m in zip(map(_f64, grads), _emas(grads, b1)):
    s = b2 * s + (1 - b2) * (g - m) ** 2 + eps_root
    out.append(s)
  return out


def _debiased(avgs: Arrays, decay: float) -> list[np.ndarray]:
  """The averages divided by ``1 - decay^t``, ``t`` counted from 1."""
  return [a / (1 - decay ** t) for t, a in enumerate(avgs, start=1)]


def sgd(grads: Arrays, lr: float, momentum: Optional[float] = None,
        nesterov: bool = False) -> list[np.ndarray]:
  """SGD with heavy-ball or Nesterov momentum (Sutskever et al. 2013).

  ``m_t = mu m_{t-1} + g_t``; the step is ``-lr m_t``, or with Nesterov
  ``-lr (g_t + mu m_t)``; no momentum: ``-lr g_t``.

  Args:
    grads: the gradients of the steps.
    lr: the learning rate.
    momentum: the momentum ``mu`` (None: plain SGD).
    nesterov: whether to use Nesterov's look-ahead.

  Returns:
    The updates of the steps.
  """
  out, m = [], None
  for g in map(_f64, grads):
    if momentum is None:
      out.append(-lr * g)
      continue
    m = g if m is None else momentum * m + g
    out.append(-lr * (g + momentum * m if nesterov else m))
  return out


def adam(grads: Arrays, lr: float = 1.0, b1: float = 0.9, b2: float = 0.999,
         eps: float = 1e-8, eps_root: float = 0.0, nesterov: bool = False,
         weight_decay: float = 0.0,
         params: Optional[Arrays] = None) -> list[np.ndarray]:
  """Adam (Kingma and Ba 2015, Algorithm 1), NAdam (Dozat 2016), AdamW.

  ``m_t = b1 m + (1 - b1) g``, ``v_t = b2 v + (1 - b2) g^2``, ``m_hat =
  m_t / (1 - b1^t)`` (NAdam: ``b1 m_t / (1 - b1^{t+1}) + (1 - b1) g /
  (1 - b1^t)``), ``v_hat = v_t / (1 - b2^t)``; the step is ``-lr (m_hat /
  (sqrt(v_hat + eps_root) + eps) + wd theta)`` (Loshchilov and Hutter 2019:
  the decay is decoupled, added after the ratio).

  Args:
    grads: the gradients of the steps.
    lr: the learning rate.
    b1: decay of the first moment.
    b2: decay of the second moment.
    eps: added outside the root.
    eps_root: added inside the root.
    nesterov: NAdam's look-ahead first moment.
    weight_decay: decoupled weight decay.
    params: the params at each step (needed with weight decay).

  Returns:
    The updates of the steps.
  """
  out = []
  moments = zip(map(_f64, grads), _emas(grads, b1),
                _debiased(_emas(grads, b2, square=True), b2))
  for t, (g, m, v_hat) in enumerate(moments, start=1):
    if nesterov:
      m_hat = (b1 * m / (1 - b1 ** (t + 1)) + (1 - b1) * g / (1 - b1 ** t))
    else:
      m_hat = m / (1 - b1 ** t)
    u = m_hat / (np.sqrt(v_hat + eps_root) + eps)
    if weight_decay:
      u = u + weight_decay * _f64(params[t - 1])
    out.append(-lr * u)
  return out


def adamax(grads: Arrays, lr: float = 1.0, b1: float = 0.9,
           b2: float = 0.999, eps: float = 1e-8, weight_decay: float = 0.0,
           params: Optional[Arrays] = None) -> list[np.ndarray]:
  """AdaMax (Kingma and Ba 2015, Algorithm 2), optax's ``eps`` in the max.

  ``m_t = b1 m + (1 - b1) g``, ``u_t = max(b2 u, |g| + eps)``; the step is
  ``-lr (m_t / ((1 - b1^t) u_t) + wd theta)``.

  Args:
    grads: the gradients of the steps.
    lr: the learning rate.
    b1: decay of the first moment.
    b2: decay of the infinity norm.
    eps: added to ``|g|``.
    weight_decay: decoupled weight decay (adamaxw).
    params: the params at each step (needed with weight decay).

  Returns:
    The updates of the steps.
  """
  out = []
  u = 0.0
  for t, (g, m_hat) in enumerate(
      zip(map(_f64, grads), _debiased(_emas(grads, b1), b1)), start=1):
    u = np.maximum(b2 * u, np.abs(g) + eps)
    step = m_hat / u
    if weight_decay:
      step = step + weight_decay * _f64(params[t - 1])
    out.append(-lr * step)
  return out


def amsgrad(grads: Arrays, lr: float = 1.0, b1: float = 0.9,
            b2: float = 0.999, eps: float = 1e-8,
            eps_root: float = 0.0) -> list[np.ndarray]:
  """AMSGrad (Reddi et al. 2018) with Adam's bias corrections.

  As the docstring: ``v_max_t = max(v_max_{t-1}, v_hat_t)`` and the step
  ``-lr m_hat / (sqrt(v_max + eps_root) + eps)``.

  Args:
    grads: the gradients of the steps.
    lr: the learning rate.
    b1: decay of the first moment.
    b2: decay of the second moment.
    eps: added outside the root.
    eps_root: added inside the root.

  Returns:
    The updates of the steps.
  """
  out = []
  v_max = 0.0
  for m_hat, v_hat in zip(_debiased(_emas(grads, b1), b1),
                          _debiased(_emas(grads, b2, square=True), b2)):
    v_max = np.maximum(v_max, v_hat)
    out.append(-lr * m_hat / (np.sqrt(v_max + eps_root) + eps))
  return out


def adagrad(grads: Arrays, lr: float = 1.0, initial: float = 0.1,
            eps: float = 1e-7) -> list[np.ndarray]:
  """AdaGrad (Duchi et al. 2011): ``G_t = G + g^2``, ``-lr g / sqrt(G + eps)``.

  The docstring's rule; a zero accumulator gives a zero update.

  Args:
    grads: the gradients of the steps.
    lr: the learning rate.
    initial: the accumulator's initial value.
    eps: added inside the root.

  Returns:
    The updates of the steps.
  """
  out = []
  acc = None
  for g in map(_f64, grads):
    acc = (np.full_like(g, initial) if acc is None else acc) + g * g
    safe = np.where(acc > 0, acc, 1.0)
    out.append(np.where(acc > 0, -lr * g / np.sqrt(safe + eps), 0.0))
  return out


def rmsprop(grads: Arrays, lr: float = 1.0, decay: float = 0.9,
            eps: float = 1e-8, initial_scale: float = 0.0,
            eps_in_sqrt: bool = True, centered: bool = False,
            bias_correction: bool = False,
            momentum: Optional[float] = None,
            nesterov: bool = False) -> list[np.ndarray]:
  """RMSProp (Tieleman and Hinton 2012; Graves 2013 for ``centered``).

  ``v_t = rho v + (1 - rho) g^2`` from ``v_0 = initial_scale``; centered:
  also ``m_t = rho m + (1 - rho) g`` and the variance ``v_hat - m_hat^2``;
  with bias correction both are divided by ``1 - rho^t``. The direction is
  ``g / sqrt(var + eps)`` or ``g / (sqrt(var) + eps)``, then a trace
  (momentum) of ``-lr`` times it.

  Args:
    grads: the gradients of the steps.
    lr: the learning rate.
    decay: the decay ``rho``.
    eps: the epsilon.
    initial_scale: the initial second moment.
    eps_in_sqrt: whether ``eps`` is inside the root.
    centered: whether to subtract the squared mean.
    bias_correction: whether to divide the moments by ``1 - rho^t``.
    momentum: the trace's decay (None: no trace).
    nesterov: Nesterov's trace.

  Returns:
    The updates of the steps.
  """
  directions = []
  m = 0.0
  v = None
  for t, g in enumerate(map(_f64, grads), start=1):
    v = (np.full_like(g, initial_scale) if v is None else v)
    v = decay * v + (1 - decay) * g * g
    m = decay * m + (1 - decay) * g
    bc = 1 - decay ** t if bias_correction else 1.0
    var = v / bc
    if centered:
      var = np.maximum(var - (m / bc) ** 2, 0.0)
    if eps_in_sqrt:
      directions.append(-lr * g / np.sqrt(var + eps))
    else:
      directions.append(-lr * g / (np.sqrt(var) + eps))
  if momentum is None:
    return directions
  return [-x for x in sgd(directions, 1.0, momentum, nesterov)]


def adabelief(grads: Arrays, lr: float = 1.0, b1: float = 0.9,
              b2: float = 0.999, eps: float = 1e-16,
              eps_root: float = 1e-16) -> list[np.ndarray]:
  """AdaBelief (Zhuang et al. 2020, Algorithm 2).

  ``s_t = b2 s + (1 - b2) (g - m_t)^2 + eps_root``; the step is ``-lr
  m_hat / (sqrt(s_hat) + eps)``.

  Args:
    grads: the gradients of the steps.
    lr: the learning rate.
    b1: decay of the first moment.
    b2: decay of the belief.
    eps: added outside the root.
    eps_root: added to the belief at each step.

  Returns:
    The updates of the steps.
  """
  beliefs = _beliefs(grads, b1, b2, eps_root)
  return [-lr * m_hat / (np.sqrt(s_hat) + eps) for m_hat, s_hat in zip(
      _debiased(_emas(grads, b1), b1), _debiased(beliefs, b2))]


def yogi(grads: Arrays, lr: float = 1.0, b1: float = 0.9, b2: float = 0.999,
         eps: float = 1e-3, initial: float = 1e-6) -> list[np.ndarray]:
  """Yogi (Zaheer et al. 2018, Algorithm 2), moments started at ``initial``.

  ``v_t = v - (1 - b2) sign(v - g^2) g^2``; the step is ``-lr m_t /
  (sqrt(v_t) + eps)`` (``scale_by_yogi``'s docstring adds Adam's bias
  corrections, which the paper does not have; both start the moments at
  ``initial_accumulator_value``).

  Args:
    grads: the gradients of the steps.
    lr: the learning rate.
    b1: decay of the first moment.
    b2: decay of the second moment.
    eps: added outside the root.
    initial: the moments' initial value.

  Returns:
    The updates of the steps.
  """
  out = []
  m = v = None
  for t, g in enumerate(map(_f64, grads), start=1):
    if m is None:
      m = np.full_like(g, initial)
      v = np.full_like(g, initial)
    m = b1 * m + (1 - b1) * g
    v = v - (1 - b2) * np.sign(v - g * g) * g * g
    out.append(-lr * (m / (1 - b1 ** t)) / (np.sqrt(v / (1 - b2 ** t)) + eps))
  return out


def lion(grads: Arrays, lr: float = 1.0, b1: float = 0.9, b2: float = 0.99,
         weight_decay: float = 0.0,
         params: Optional[Arrays] = None) -> list[np.ndarray]:
  """Lion (Chen et al. 2023, Algorithm 2).

  ``c_t = sign(b1 m + (1 - b1) g)``, ``m_t = b2 m + (1 - b2) g``; the step
  is ``-lr (c_t + wd theta)``.

  Args:
    grads: the gradients of the steps.
    lr: the learning rate.
    b1: the interpolation of the update.
    b2: decay of the momentum.
    weight_decay: decoupled weight decay.
    params: the params at each step (needed with weight decay).

  Returns:
    The updates of the steps.
  """
  out = []
  m = 0.0
  for t, g in enumerate(map(_f64, grads)):
    c = np.sign(b1 * m + (1 - b1) * g)
    m = b2 * m + (1 - b2) * g
    step = c + (weight_decay * _f64(params[t]) if weight_decay else 0.0)
    out.append(-lr * step)
  return out


def signum(grads: Arrays, lr: float = 1.0,
           beta: Optional[float] = 0.9) -> list[np.ndarray]:
  """signSGD and Signum (Bernstein et al. 2018, Algorithms 1 and 3).

  ``-lr sign(g)``; with ``beta``, ``m_t = beta m + (1 - beta) g`` and
  ``-lr sign(m_t)``.

  Args:
    grads: the gradients of the steps.
    lr: the learning rate.
    beta: the momentum (None: signSGD).

  Returns:
    The updates of the steps.
  """
  directions = map(_f64, grads) if beta is None else _emas(grads, beta)
  return [-lr * np.sign(d) for d in directions]


def adadelta(grads: Arrays, lr: float = 1.0, rho: float = 0.9,
             eps: float = 1e-6) -> list[np.ndarray]:
  """AdaDelta (Zeiler 2012, Algorithm 1), scaled by ``lr``.

  ``E[g^2]_t = rho E + (1 - rho) g^2``, ``dx = sqrt(E[dx^2] + eps) /
  sqrt(E[g^2]_t + eps) g``, ``E[dx^2]_t = rho E + (1 - rho) dx^2``; the
  step is ``-lr dx``.

  Args:
    grads: the gradients of the steps.
    lr: the learning rate.
    rho: the decay.
    eps: the epsilon.

  Returns:
    The updates of the steps.
  """
  out = []
  eg = edx = 0.0
  for g in map(_f64, grads):
    eg = rho * eg + (1 - rho) * g * g
    dx = np.sqrt(edx + eps) / np.sqrt(eg + eps) * g
    edx = rho * edx + (1 - rho) * dx * dx
    out.append(-lr * dx)
  return out


def radam(grads: Arrays, lr: float = 1.0, b1: float = 0.9,
          b2: float = 0.999, eps: float = 1e-8, eps_root: float = 0.0,
          threshold: float = 5.0) -> list[np.ndarray]:
  """RAdam (Liu et al. 2020, Algorithm 2), optax's threshold ``tau``.

  ``rho_inf = 2 / (1 - b2) - 1``, ``rho_t = rho_inf - 2 t b2^t / (1 -
  b2^t)``; where ``rho_t >= tau`` the step is ``-lr r_t m_hat /
  (sqrt(v_hat + eps_root) + eps)``, else ``-lr m_hat``.

  Args:
    grads: the gradients of the steps.
    lr: the learning rate.
    b1: decay of the first moment.
    b2: decay of the second moment.
    eps: added outside the root.
    eps_root: added inside the root.
    threshold: the threshold ``tau`` of ``rho_t``.

  Returns:
    The updates of the steps.
  """
  out = []
  rho_inf = 2 / (1 - b2) - 1
  moments = zip(_debiased(_emas(grads, b1), b1),
                _debiased(_emas(grads, b2, square=True), b2))
  for t, (m_hat, v_hat) in enumerate(moments, start=1):
    rho = rho_inf - 2 * t * b2 ** t / (1 - b2 ** t)
    if rho >= threshold:
      r = np.sqrt((rho - 4) * (rho - 2) * rho_inf
                  / ((rho_inf - 4) * (rho_inf - 2) * rho))
      out.append(-lr * r * m_hat / (np.sqrt(v_hat + eps_root) + eps))
    else:
      out.append(-lr * m_hat)
  return out


def novograd(grads: Arrays, lr: float = 1.0, b1: float = 0.9,
             b2: float = 0.25, eps: float = 1e-6, eps_root: float = 0.0,
             weight_decay: float = 0.0,
             params: Optional[Arrays] = None) -> list[np.ndarray]:
  """NovoGrad (Ginsburg et al. 2019, Algorithm 1), one layer.

  ``v_1 = ||g_1||^2``, then ``v_t = b2 v + (1 - b2) ||g_t||^2``; ``m_t =
  b1 m + g / (sqrt(v_t + eps_root) + eps) + wd theta`` from ``m_0 = 0``;
  the step is ``-lr m_t``.

  Args:
    grads: the gradients of the steps.
    lr: the learning rate.
    b1: decay of the first moment.
    b2: decay of the layer's second moment.
    eps: added outside the root.
    eps_root: added inside the root.
    weight_decay: the weight decay inside the moment.
    params: the params at each step (needed with weight decay).

  Returns:
    The updates of the steps.
  """
  out = []
  m = 0.0
  v = None
  for t, g in enumerate(map(_f64, grads)):
    sq = float(np.sum(g * g))
    v = sq if v is None else b2 * v + (1 - b2) * sq
    step = g / (np.sqrt(v + eps_root) + eps)
    if weight_decay:
      step = step + weight_decay * _f64(params[t])
    m = b1 * m + step
    out.append(-lr * m)
  return out


def lamb(grads: Arrays, params: Arrays, lr: float = 1.0, b1: float = 0.9,
         b2: float = 0.999, eps: float = 1e-6, eps_root: float = 0.0,
         weight_decay: float = 0.0) -> list[np.ndarray]:
  """LAMB (You et al. 2020, Algorithm 2), one layer, ``phi`` the identity.

  ``r_t = m_hat / (sqrt(v_hat + eps_root) + eps) + wd theta``; the step is
  ``-lr ||theta|| / ||r_t|| r_t``, and ``-lr r_t`` where either norm is 0
  (optax's ``scale_by_trust_ratio``).

  Args:
    grads: the gradients of the steps.
    params: the params at each step.
    lr: the learning rate.
    b1: decay of the first moment.
    b2: decay of the second moment.
    eps: added outside the root.
    eps_root: added inside the root.
    weight_decay: the weight decay.

  Returns:
    The updates of the steps.
  """
  ratios = adam(grads, -1.0, b1, b2, eps, eps_root)
  out = []
  for r, p in zip(ratios, map(_f64, params)):
    r = r + weight_decay * p
    pn, rn = _norm(p), _norm(r)
    trust = pn / rn if pn > 0 and rn > 0 else 1.0
    out.append(-lr * trust * r)
  return out


def fromage(grads: Arrays, params: Arrays, lr: float = 1.0,
            min_norm: float = 1e-6) -> list[np.ndarray]:
  """Fromage (Bernstein et al. 2020, Algorithm 1), one layer.

  ``theta' = (theta - lr ||theta|| / ||g|| g) / sqrt(1 + lr^2)``; the update
  is ``theta' - theta``. Norms below ``min_norm`` are taken as ``min_norm``
  (optax's ``scale_by_trust_ratio(min_norm)``).

  Args:
    grads: the gradients of the steps.
    params: the params at each step.
    lr: the learning rate.
    min_norm: the smallest norm used.

  Returns:
    The updates of the steps.
  """
  out = []
  mult = 1 / np.sqrt(1 + lr * lr)
  for g, p in zip(map(_f64, grads), map(_f64, params)):
    pn, gn = max(_norm(p), min_norm), max(_norm(g), min_norm)
    new = mult * (p - lr * pn / gn * g)
    out.append(new - p)
  return out


def optimistic_gradient(grads: Arrays, lr: float = 1.0, alpha: float = 1.0,
                        beta: float = 1.0) -> list[np.ndarray]:
  """Optimistic gradient descent (Daskalakis et al. 2018; Mokhtari et al.).

  The step is ``-lr ((alpha + beta) g_t - beta g_{t-1})``; the first step
  takes ``g_0 = g_1`` (the docstring's choice: the papers leave ``g_0``
  open), so it is ``-lr alpha g_1``.

  Args:
    grads: the gradients of the steps.
    lr: the learning rate.
    alpha: the weight of the gradient.
    beta: the weight of the gradient's change.

  Returns:
    The updates of the steps.
  """
  out = []
  prev = None
  for g in map(_f64, grads):
    prev = g if prev is None else prev
    out.append(-lr * ((alpha + beta) * g - beta * prev))
    prev = g
  return out


def rprop(grads: Arrays, lr: float, eta_minus: float = 0.5,
          eta_plus: float = 1.2, min_step: float = 1e-6,
          max_step: float = 50.0) -> list[np.ndarray]:
  """iRprop- (Igel and Huesken 2003, Algorithm 4), first step size ``lr``.

  With ``s`` the step sizes: where ``g_t g_{t-1} > 0``, ``s = min(eta_plus
  s, max)``; ``< 0``: ``s = max(eta_minus s, min)``, the update is 0 and
  ``g_t`` is taken as 0 for the next comparison; else ``s`` stays. The
  update is ``-s sign(g_t)``.

  Args:
    grads: the gradients of the steps.
    lr: the initial step size.
    eta_minus: the shrink factor.
    eta_plus: the growth factor.
    min_step: the smallest step size.
    max_step: the largest step size.

  Returns:
    The updates of the steps.
  """
  out = []
  prev = s = None
  for g in map(_f64, grads):
    if s is None:
      s, prev = np.full_like(g, lr), np.zeros_like(g)
    prod = g * prev
    s = np.where(prod > 0, np.minimum(eta_plus * s, max_step),
                 np.where(prod < 0, np.maximum(eta_minus * s, min_step), s))
    g_eff = np.where(prod < 0, 0.0, g)
    out.append(-s * np.sign(g_eff))
    prev = g_eff
  return out


def polyak_sgd(grads: Arrays, values: Sequence[float],
               max_lr: float = 1.0, f_min: float = 0.0,
               eps: float = 0.0, scaling: float = 1.0,
               plus: bool = False) -> list[np.ndarray]:
  """The Polyak step size (Loizou et al. 2021, SPS_max), one leaf.

  The step is ``-min((f - f*) / (||s g||^2 + eps), max_lr) s g``; with
  ``plus`` (SPS+, Garrigos et al. 2023) the gap ``f - f*`` is floored at 0.

  Args:
    grads: the gradients of the steps.
    values: the objective's values at each step.
    max_lr: the largest step size.
    f_min: the optimal value ``f*``.
    eps: added to the squared norm.
    scaling: the scale ``s`` of the gradient.
    plus: whether the gap is floored at zero.

  Returns:
    The updates of the steps.
  """
  out = []
  for g, f in zip(map(_f64, grads), values):
    sg = scaling * g
    denom = _norm(sg) ** 2 + eps
    gap = max(f - f_min, 0.0) if plus else f - f_min
    step = min(gap / denom, max_lr) if denom > 0 else max_lr
    out.append(-step * sg)
  return out


def sm3(grads: Arrays, lr: float = 1.0, momentum: float = 0.9,
        eps: float = 1e-8, b2: float = 1.0) -> list[np.ndarray]:
  """SM3-II (Anil et al. 2019, Algorithm 2) with momentum, any rank.

  The cover sets of an array are its slices along each axis (the rows and
  the columns of a matrix; each entry alone for a vector), one accumulator
  ``mu(S)`` each. Entry by entry, ``a_t(i) = c g_t(i)^2 + b2 min_{S ni i}
  mu_{t-1}(S)`` with ``c = 1 - b2`` (1 when ``b2 = 1``, the paper's rule),
  then ``mu_t(S) = max_{j in S} a_t(j)``; the step is ``-lr (momentum u' +
  (1 - momentum) g / sqrt(a_t + eps))``, with ``u'`` the previous
  (unscaled) step and the direction 0 where ``a_t`` is 0. ``b2`` and ``eps``
  are ``scale_by_sm3``'s (its docstring's maths; the paper has neither).

  Args:
    grads: the gradients of the steps.
    lr: the learning rate.
    momentum: the momentum.
    eps: added inside the root.
    b2: the decay of the accumulators.

  Returns:
    The updates of the steps.
  """
  out = []
  covers = None
  prev = 0.0
  c = 1.0 if b2 == 1 else 1 - b2
  for g in map(_f64, grads):
    if covers is None:
      covers = [np.zeros(n) for n in g.shape] or [np.zeros(())]
    a = np.empty_like(g)
    for i in np.ndindex(*g.shape):
      low = min(float(cover[k]) for cover, k in zip(covers, i or ((),)))
      a[i] = c * g[i] ** 2 + b2 * low
    covers = [np.array([np.max(np.take(a, k, axis=axis))
                        for k in range(n)])
              for axis, n in enumerate(g.shape)] or [a]
    safe = np.where(a > 0, a, 1.0)
    direction = np.where(a > 0, g / np.sqrt(safe + eps), 0.0)
    prev = momentum * prev + (1 - momentum) * direction
    out.append(-lr * prev)
  return out


def adopt(grads: Arrays, b1: float = 0.9, b2: float = 0.9999,
          eps: float = 1e-6, nesterov: bool = False,
          use_clipping: bool = True) -> list[np.ndarray]:
  """ADOPT's direction (Taniguchi et al. 2024, Algorithm 1), unscaled.

  The first step sets ``v_0 = g_0^2`` and returns 0; then ``g~ = clip(g /
  max(sqrt(v_{t-1}), eps), t^(1/4))``, ``m_t = b1 m + (1 - b1) g~``, ``v_t
  = b2 v + (1 - b2) g^2``; the direction is ``m_t`` (Nesterov: ``b1 m_t +
  (1 - b1) g~``), ``t`` counting the steps before this one.

  Args:
    grads: the gradients of the steps.
    b1: decay of the first moment.
    b2: decay of the second moment.
    eps: the floor of the normalizer.
    nesterov: Nesterov's momentum.
    use_clipping: whether to clip the normalized gradient.

  Returns:
    The directions of the steps.
  """
  out = []
  m = 0.0
  v = None
  for t, g in enumerate(map(_f64, grads)):
    if v is None:
      v = g * g
      out.append(np.zeros_like(g))
      continue
    normalized = g / np.maximum(np.sqrt(v), eps)
    if use_clipping:
      c = t ** 0.25
      normalized = np.clip(normalized, -c, c)
    m = b1 * m + (1 - b1) * normalized
    v = b2 * v + (1 - b2) * g * g
    out.append(b1 * m + (1 - b1) * normalized if nesterov else m)
  return out


def ademamix(grads: Arrays, b1: float = 0.9, b2: float = 0.999,
             b3: float = 0.9999, alpha: float = 6.0, eps: float = 1e-8,
             eps_root: float = 0.0) -> list[np.ndarray]:
  """AdEMAMix's direction (Pagliardini et al. 2024, Algorithm 1), unscaled.

  ``(m1 / (1 - b1^t) + alpha m2) / (sqrt(nu / (1 - b2^t) + eps_root) +
  eps)``, the slow EMA ``m2`` (decay ``b3``) not bias-corrected.

  Args:
    grads: the gradients of the steps.
    b1: decay of the fast EMA.
    b2: decay of the second moment.
    b3: decay of the slow EMA.
    alpha: weight of the slow EMA.
    eps: added outside the root.
    eps_root: added inside the root.

  Returns:
    The directions of the steps.
  """
  return [(m1 + alpha * m2) / (np.sqrt(nu + eps_root) + eps)
          for m1, m2, nu in zip(
              _debiased(_emas(grads, b1), b1), _emas(grads, b3),
              _debiased(_emas(grads, b2, square=True), b2))]


def simplified_ademamix(grads: Arrays, b1: float = 0.99, b2: float = 0.95,
                        alpha: float = 0.0, eps: float = 1e-8,
                        eps_root: float = 0.0) -> list[np.ndarray]:
  """Simplified AdEMAMix's direction (Morwani et al. 2024), unscaled.

  ``m_t = b1 m + g`` (a discounted sum), ``n_t = b2 n + (1 - b2) g^2``; the
  direction is ``(alpha g + m_t) / (sqrt(n_t / (1 - b2^t) + eps_root) +
  eps)``.

  Args:
    grads: the gradients of the steps.
    b1: the momentum's discount.
    b2: decay of the second moment.
    alpha: weight of the current gradient.
    eps: added outside the root.
    eps_root: added inside the root.

  Returns:
    The directions of the steps.
  """
  out = []
  m = 0.0
  for g, n_hat in zip(map(_f64, grads),
                      _debiased(_emas(grads, b2, square=True), b2)):
    m = b1 * m + g
    out.append((alpha * g + m) / (np.sqrt(n_hat + eps_root) + eps))
  return out


def madgrad(grads: Arrays, x0: np.ndarray, lr: float = 0.1,
            momentum: float = 0.9, eps: float = 1e-6) -> list[np.ndarray]:
  """MADGRAD (Defazio and Jelassi 2021, Algorithm 1; the authors' code).

  ``lambda_k = (lr + eps) sqrt(k + 1)`` (the reference code adds ``eps`` to
  the learning rate), ``s += lambda g``, ``nu += lambda g^2``, ``z = x0 - s
  / (nu^(1/3) + eps)``, ``x_{k+1} = momentum x_k + (1 - momentum) z``; the
  update is ``x_{k+1} - x_k``. The params follow the updates.

  Args:
    grads: the gradients of the steps.
    x0: the initial params.
    lr: the learning rate.
    momentum: the momentum (``1 - c`` of the paper).
    eps: the epsilon.

  Returns:
    The updates of the steps.
  """
  x0 = _f64(x0)
  x = x0.copy()
  s = nu = 0.0
  out = []
  for k, g in enumerate(map(_f64, grads)):
    lam = (lr + eps) * np.sqrt(k + 1)
    s = s + lam * g
    nu = nu + lam * g * g
    z = x0 - s / (np.cbrt(nu) + eps)
    new = momentum * x + (1 - momentum) * z
    out.append(new - x)
    x = new
  return out


def acprop(grads: Arrays, b1: float = 0.9, b2: float = 0.999,
           eps: float = 1e-16, eps_root: float = 1e-16) -> list[np.ndarray]:
  """ACProp's direction (Zhuang et al. 2021, Algorithm 2), unscaled.

  ``m_t = b1 m + (1 - b1) g``, ``s_t = b2 s + (1 - b2) (g - m_t)^2 +
  eps_root``; the direction divides ``g_t`` by the previous step's
  ``sqrt(s_{t-1} / (1 - b2^(t-1))) + eps``, and is ``g_1 / (1 + eps)`` at
  the first step.

  Args:
    grads: the gradients of the steps.
    b1: decay of the first moment.
    b2: decay of the second moment.
    eps: added outside the root.
    eps_root: added to the second moment at each step.

  Returns:
    The directions of the steps.
  """
  # The first step divides by 1 + eps, then by the previous step's belief.
  grads = [_f64(g) for g in grads]
  previous = [1.0] + [np.sqrt(s_hat) for s_hat in _debiased(
      _beliefs(grads, b1, b2, eps_root), b2)]
  return [g / (d + eps) for g, d in zip(grads, previous)]


def _rms(x: np.ndarray) -> float:
  return float(np.sqrt(np.mean(np.square(x))))


def adafactor(grads: Arrays, params: Arrays,
              lr: Optional[Callable[[int], float]] = None,
              decay_rate: float = 0.8, decay_offset: int = 0,
              factored: bool = True, eps: float = 1e-30,
              clipping_threshold: Optional[float] = 1.0,
              param_scale: bool = True, momentum: Optional[float] = None,
              weight_decay: Optional[float] = None) -> list[np.ndarray]:
  """Adafactor (Shazeer and Stern 2018, Algorithms 4 and 5), one leaf.

  ``beta_t = 1 - s^(-decay_rate)`` with ``s = max(t - 1 - offset, 0) + 1``
  (the paper's ``1 - t^-0.8``, restarted at the offset). A matrix (when
  ``factored``; its two largest axes, the others a batch of matrices)
  keeps the paper's row and column sums, ``R_t = beta R +
  (1 - beta) (G^2 + eps) 1_m``, ``C_t = beta C + (1 - beta) 1_n^T (G^2 +
  eps)``, and ``V_t = R_t C_t / (1_n^T R_t)`` (Algorithm 4); a vector keeps
  ``V_t = beta V + (1 - beta) (g^2 + eps)`` (Algorithm 5). Then ``U = G /
  sqrt(V)``, clipped ``U / max(1, RMS(U) / d)``, times ``lr(t)`` and
  ``max(RMS(theta), 1e-3)`` (the paper's ``epsilon_2``), an EMA of that
  (``momentum``, not debiased, from 0), plus ``weight_decay theta``; the
  update is minus the result (the docstring's order of the optional parts).

  Args:
    grads: the gradients of the steps (vectors or matrices).
    params: the params at each step.
    lr: the step size at step ``t`` (from 1), or None for none.
    decay_rate: the exponent of the decay of the second moment.
    decay_offset: the step from which the decay schedule starts.
    factored: whether a matrix keeps factored statistics.
    eps: added to the squared gradient (the paper's ``epsilon_1``).
    clipping_threshold: the threshold ``d``, or None for no clipping.
    param_scale: whether to scale by the parameter's RMS.
    momentum: the decay of the EMA of the updates, or None.
    weight_decay: the weight decay, or None.

  Returns:
    The updates of the steps.
  """
  out = []
  row = col = full = m = 0.0  # The paper's R_0, C_0 and V_0 are 0.
  for t, (g, p) in enumerate(zip(map(_f64, grads), map(_f64, params)),
                             start=1):
    s = max(t - 1 - decay_offset, 0) + 1
    beta = 1 - s ** (-decay_rate)
    sq = g * g + eps
    if factored and g.ndim >= 2:
      # Rows and columns: the second largest and the largest axis, the
      # other axes index a batch of matrices, each factored on its own.
      sizes = sorted(g.shape)
      assert sizes[-3:-2] != sizes[-2:-1] != sizes[-1:], g.shape  # No ties.
      axes = (g.shape.index(sizes[-2]), g.shape.index(sizes[-1]))
      sq = np.moveaxis(sq, axes, (-2, -1))
      row = beta * row + (1 - beta) * sq.sum(axis=-1)
      col = beta * col + (1 - beta) * sq.sum(axis=-2)
      v = (row[..., :, None] * col[..., None, :]
           / row.sum(axis=-1)[..., None, None])
      v = np.moveaxis(v, (-2, -1), axes)
    else:
      full = beta * full + (1 - beta) * sq
      v = full
    u = g / np.sqrt(v)
    if clipping_threshold is not None:
      u = u / max(1.0, _rms(u) / clipping_threshold)
    if lr is not None:
      u = lr(t) * u
    if param_scale:
      u = max(_rms(p), 1e-3) * u
    if momentum is not None:
      m = momentum * m + (1 - momentum) * u
      u = m
    if weight_decay is not None:
      u = u + weight_decay * p
    out.append(-u)
  return out


def adan(grads: Arrays, lr: float = 1.0, b1: float = 0.98,
         b2: float = 0.92, b3: float = 0.99, eps: float = 1e-8,
         eps_root: float = 0.0, weight_decay: float = 0.0,
         params: Optional[Arrays] = None) -> list[np.ndarray]:
  """Adan (Xie et al. 2022, Algorithm 1), the docstring's decay rates.

  The docstring's ``b_i`` are the paper's ``1 - beta_i``. With ``d_t =
  g_t - g_{t-1}`` (0 at the first step): ``m = b1 m + (1 - b1) g``, ``v =
  b2 v + (1 - b2) d``, ``n = b3 n + (1 - b3) (g + b2 d)^2``, each debiased
  by ``1 - b^t``; the step is ``-lr ((m_hat + b2 v_hat) / (sqrt(n_hat +
  eps_root) + eps) + wd theta)``. The paper's Algorithm 1 starts from
  ``m_0 = g_0`` without debiasing and decays the weights proximally,
  ``(1 + lr wd)^-1``; the docstring (the authors' code with its
  ``no_prox`` option) debiases zero-started moments and decays decoupled.

  Args:
    grads: the gradients of the steps.
    lr: the learning rate.
    b1: decay of the gradient's EMA.
    b2: decay of the gradient difference's EMA (and its weight).
    b3: decay of the squared look-ahead gradient's EMA.
    eps: added outside the root.
    eps_root: added inside the root.
    weight_decay: decoupled weight decay.
    params: the params at each step (needed with weight decay).

  Returns:
    The updates of the steps.
  """
  grads = [_f64(g) for g in grads]
  diffs = [np.zeros_like(grads[0])] + [
      g - prev for prev, g in zip(grads, grads[1:])]
  lookaheads = [g + b2 * d for g, d in zip(grads, diffs)]
  out = []
  moments = zip(_debiased(_emas(grads, b1), b1),
                _debiased(_emas(diffs, b2), b2),
                _debiased(_emas(lookaheads, b3, square=True), b3))
  for t, (m_hat, v_hat, n_hat) in enumerate(moments):
    step = (m_hat + b2 * v_hat) / (np.sqrt(n_hat + eps_root) + eps)
    if weight_decay:
      step = step + weight_decay * _f64(params[t])
    out.append(-lr * step)
  return out


def lars(grads: Arrays, params: Arrays, lr: float = 1.0,
         weight_decay: float = 0.0, trust_coefficient: float = 0.001,
         eps: float = 0.0, momentum: float = 0.9, nesterov: bool = False,
         decay: bool = True, trust: bool = True) -> list[np.ndarray]:
  """LARS (You et al. 2017, Algorithm 1), the docstring's trust ratio.

  ``r = g + wd theta``; the local rate is ``c ||theta|| / (||r|| + eps)``
  (1 where either norm is 0); the step ``-lr rate r`` goes through heavy-ball
  (or Nesterov) momentum, ``sgd``'s trace. The paper's Algorithm 1 divides
  by ``||g|| + wd ||theta||`` instead of ``||g + wd theta||`` (the same
  when ``g`` is a non-negative multiple of ``theta``); the docstring, the
  first source, decides.

  Args:
    grads: the gradients of the steps.
    params: the params at each step.
    lr: the learning rate.
    weight_decay: the weight decay.
    trust_coefficient: the trust coefficient ``c``.
    eps: added to the norm of ``r``.
    momentum: the momentum.
    nesterov: Nesterov's momentum.
    decay: whether this leaf is decayed (the weight-decay mask).
    trust: whether this leaf is scaled by its trust ratio (the mask).

  Returns:
    The updates of the steps.
  """
  steps = []
  for g, p in zip(map(_f64, grads), map(_f64, params)):
    r = g + weight_decay * p if decay else g
    pn, rn = _norm(p), _norm(r)
    rate = trust_coefficient * pn / (rn + eps) if pn > 0 and rn > 0 else 1.0
    steps.append(-lr * (rate if trust else 1.0) * r)
  return sgd(steps, -1.0, momentum, nesterov)


def distance_over_gradients(grads: Arrays, params: Arrays,
                            reps_rel: float = 1e-6, eps: float = 1e-8,
                            global_scale: float = 1.0) -> list[np.ndarray]:
  """Layer-wise DoG, L-DoG (Ivgi et al. 2023), one layer.

  ``r_bar_t = max(r_eps, max_{i <= t} ||x_i - x_0||)`` with ``r_eps =
  reps_rel (1 + ||x_0||)``, ``G_t = sum_{i <= t} ||g_i||^2``; the update is
  ``global_scale r_bar_t / sqrt(G_t + eps) g_t`` (a step size, not a
  descent step: the docstring's sign; ``eps`` is the docstring's).

  Args:
    grads: the gradients of the steps.
    params: the params at each step (the first are ``x_0``).
    reps_rel: the relative initial movement.
    eps: added to the sum of squared norms.
    global_scale: the factor of every step size.

  Returns:
    The updates of the steps.
  """
  out = []
  x0 = _f64(params[0])
  r_bar = reps_rel * (1 + _norm(x0))
  total = 0.0
  for g, x in zip(map(_f64, grads), map(_f64, params)):
    r_bar = max(r_bar, _norm(x - x0))
    total += _norm(g) ** 2
    out.append(global_scale * r_bar / np.sqrt(total + eps) * g)
  return out
