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
"""Float64 NumPy oracles of losses, projections, schedules and tree maths.

Each function is written from the contract of the public object it checks
(the docstring's formula, the cited paper, or a definition by enumeration),
never from an implementation: the CTC oracle sums over every alignment, the
simplex projection finds its threshold by bisection instead of sorting, the
Hungarian oracle tries every permutation. Everything is float64 NumPy and
runs eagerly; the contract tests in ``*_contracts_test.py`` compare optax
with these on fixed random inputs and on the edges.
"""

from collections.abc import Callable, Iterable, Sequence
import itertools
import math
from typing import Any, Optional

import numpy as np

_F64 = np.float64


def _f64(x: Any) -> np.ndarray:
  return np.asarray(x, dtype=_F64)


# ----------------------------------------------------------------- losses


def log_softmax(
    logits: Any, axis: int = -1, where: Optional[np.ndarray] = None
) -> np.ndarray:
  """``z - log sum exp z`` along ``axis``, over the entries in ``where``."""
  z = _f64(logits)
  if where is None:
    where = np.ones(z.shape, bool)
  where = np.broadcast_to(where, z.shape)
  masked = np.where(where, z, -np.inf)
  top = np.max(masked, axis=axis, keepdims=True)
  top = np.where(np.isfinite(top), top, 0.0)
  with np.errstate(divide='ignore'):
    lse = top + np.log(
        np.sum(np.where(where, np.exp(masked - top), 0.0), axis=axis,
               keepdims=True))
  return np.where(where, z - lse, -np.inf)


def softmax_cross_entropy(
    logits: Any, labels: Any, axis: int = -1,
    where: Optional[np.ndarray] = None,
) -> np.ndarray:
  r"""``-\sum_i y_i \log softmax(z)_i``; zero labels contribute nothing."""
  y = _f64(labels)
  logp = log_softmax(logits, axis, where)
  terms = np.where(y == 0, 0.0, -y * logp)
  if where is not None:
    terms = np.where(np.broadcast_to(where, terms.shape), terms, 0.0)
  return np.sum(terms, axis=axis)


def softmax_cross_entropy_int(
    logits: Any, labels: Any, where: Optional[np.ndarray] = None
) -> np.ndarray:
  """``log sum exp z - z_k`` along the last axis."""
  z = _f64(logits)
  k = np.asarray(labels)
  onehot = np.arange(z.shape[-1]) == (k[..., None] % z.shape[-1])
  return softmax_cross_entropy(z, onehot.astype(_F64), -1, where)


def log_sigmoid(z: Any) -> np.ndarray:
  """``log sigma(z) = -log(1 + e^{-z})``, computed without overflow."""
  z = _f64(z)
  return -np.logaddexp(0.0, -z)


def sigmoid_binary_cross_entropy(logits: Any, labels: Any) -> np.ndarray:
  """``-y log sigma(z) - (1 - y) log sigma(-z)``."""
  y = _f64(labels)
  return -y * log_sigmoid(logits) - (1 - y) * log_sigmoid(-_f64(logits))


def sigmoid_focal_loss(
    logits: Any, labels: Any, alpha: Optional[float], gamma: float
) -> np.ndarray:
  """Lin et al. 2017, eq. (5): ``alpha_t (1 - p_t)^gamma BCE``."""
  z, y = _f64(logits), _f64(labels)
  one_minus_pt = y * np.exp(log_sigmoid(-z)) + (1 - y) * np.exp(log_sigmoid(z))
  weight = one_minus_pt ** gamma
  if alpha is not None:
    weight = weight * (alpha * y + (1 - alpha) * (1 - y))
  return weight * sigmoid_binary_cross_entropy(z, y)


def poly_loss_cross_entropy(
    logits: Any, labels: Any, epsilon: float, axis: int = -1,
    where: Optional[np.ndarray] = None,
) -> np.ndarray:
  """Leng et al. 2022, eq. (3): ``CE + eps * sum_i y_i (1 - p_i)``."""
  y = _f64(labels)
  p = np.exp(log_softmax(logits, axis, where))
  poly = y * (1 - p)
  if where is not None:
    poly = np.where(np.broadcast_to(where, poly.shape), poly, 0.0)
  return (softmax_cross_entropy(logits, labels, axis, where)
          + epsilon * np.sum(poly, axis=axis))


def hinge_loss(scores: Any, targets: Any) -> np.ndarray:
  """``max(0, 1 - s t)``."""
  return np.maximum(0.0, 1.0 - _f64(scores) * _f64(targets))


def perceptron_loss(scores: Any, targets: Any) -> np.ndarray:
  """``max(0, -s t)``."""
  return np.maximum(0.0, -_f64(scores) * _f64(targets))


def multiclass_hinge_loss(scores: Any, labels: Any) -> np.ndarray:
  """Crammer and Singer 2001: ``max_i (s_i + [i != k]) - s_k``."""
  s = _f64(scores)
  k = np.asarray(labels)
  onehot = np.arange(s.shape[-1]) == k[..., None]
  s_k = np.sum(np.where(onehot, s, 0.0), axis=-1)
  return np.max(s + np.where(onehot, 0.0, 1.0), axis=-1) - s_k


def multiclass_perceptron_loss(scores: Any, labels: Any) -> np.ndarray:
  """``max_i s_i - s_k``."""
  s = _f64(scores)
  k = np.asarray(labels)
  onehot = np.arange(s.shape[-1]) == k[..., None]
  return np.max(s, axis=-1) - np.sum(np.where(onehot, s, 0.0), axis=-1)


def simplex_threshold(v: np.ndarray, scale: float) -> float:
  """The ``tau`` with ``sum max(v - tau, 0) = scale``, by bisection."""
  v = _f64(v).ravel()
  lo, hi = np.min(v) - scale / v.size - 1.0, np.max(v)
  for _ in range(200):
    mid = 0.5 * (lo + hi)
    if np.sum(np.maximum(v - mid, 0.0)) > scale:
      lo = mid
    else:
      hi = mid
  # The active set of the bisection's end gives tau in closed form.
  active = v > hi
  if not np.any(active):
    active = v >= np.max(v)
  return float((np.sum(v[active]) - scale) / np.count_nonzero(active))


def projection_simplex(x: Any, scale: float = 1.0) -> np.ndarray:
  """Euclidean projection onto ``{y >= 0, sum y = scale}`` (Held 1974)."""
  x = _f64(x)
  if x.size == 0:
    return x
  return np.maximum(x - simplex_threshold(x, scale), 0.0)


def sparsemax(scores: Any) -> np.ndarray:
  """Martins and Astudillo 2016: the projection onto the unit simplex."""
  s = _f64(scores)
  out = np.empty_like(s)
  for idx in np.ndindex(s.shape[:-1]):
    out[idx] = projection_simplex(s[idx], 1.0)
  return out


def multiclass_sparsemax_loss(scores: Any, labels: Any) -> np.ndarray:
  """Martins and Astudillo 2016, eq. (19): ``<s - s_k, p> - |p|^2/2 + 1/2``."""
  s = _f64(scores)
  k = np.asarray(labels) % s.shape[-1]
  p = sparsemax(s)
  s_k = np.take_along_axis(s, k[..., None], axis=-1)
  return (np.sum((s - s_k) * p, axis=-1) - 0.5 * np.sum(p * p, axis=-1)
          + 0.5)


def binary_sparsemax_loss(logits: Any, labels: Any) -> np.ndarray:
  """The multiclass sparsemax loss of the two scores ``(0, z)``."""
  z = _f64(logits)
  y = np.broadcast_to(np.asarray(labels) != 0, z.shape)
  scores = np.stack([np.zeros_like(z), z], axis=-1)
  return multiclass_sparsemax_loss(scores, y.astype(np.int64))


def kl_divergence(
    log_predictions: Any, targets: Any, axis: int = -1,
    where: Optional[np.ndarray] = None,
) -> np.ndarray:
  """``sum_i t_i (log t_i - log q_i)``, zero where ``t_i = 0``."""
  t = _f64(targets)
  logq = _f64(log_predictions)
  with np.errstate(divide='ignore', invalid='ignore'):
    terms = np.where(t > 0, t * (np.log(np.where(t > 0, t, 1.0)) - logq), 0.0)
  if where is not None:
    terms = np.where(np.broadcast_to(where, terms.shape), terms, 0.0)
  return np.sum(terms, axis=axis)


def generalized_kl_divergence(
    log_predictions: Any, targets: Any, axis: int = -1,
    where: Optional[np.ndarray] = None,
) -> np.ndarray:
  """``sum_i t_i (log t_i - log q_i) - t_i + q_i`` (a Bregman divergence)."""
  t = _f64(targets)
  q = np.exp(_f64(log_predictions))
  extra = np.broadcast_to(q - t, np.broadcast_shapes(q.shape, t.shape))
  if where is not None:
    extra = np.where(np.broadcast_to(where, extra.shape), extra, 0.0)
  return (kl_divergence(log_predictions, targets, axis, where)
          + np.sum(extra, axis=axis))


def smooth_labels(labels: Any, alpha: float) -> np.ndarray:
  """Szegedy et al. 2016, section 7: ``(1 - alpha) y + alpha / K``."""
  y = _f64(labels)
  return (1 - alpha) * y + alpha / y.shape[-1]


def huber_loss(predictions: Any, targets: Any, delta: float) -> np.ndarray:
  """Huber 1964: quadratic within ``delta``, linear outside."""
  e = np.abs(_f64(predictions) - _f64(targets))
  return np.where(e <= delta, 0.5 * e * e, delta * (e - 0.5 * delta))


def log_cosh(predictions: Any, targets: Any) -> np.ndarray:
  """``log cosh e = logaddexp(e, -e) - log 2``, exact in float64."""
  e = _f64(predictions) - _f64(targets)
  return np.logaddexp(e, -e) - math.log(2.0)


def cosine_similarity(
    predictions: Any, targets: Any, epsilon: float = 0.0
) -> np.ndarray:
  """``<a / max(|a|, sqrt eps), b / max(|b|, sqrt eps)>`` on the last axis."""
  a, b = _f64(predictions), _f64(targets)
  floor = math.sqrt(epsilon)
  with np.errstate(invalid='ignore', divide='ignore'):
    na = np.maximum(np.linalg.norm(a, axis=-1, keepdims=True), floor)
    nb = np.maximum(np.linalg.norm(b, axis=-1, keepdims=True), floor)
    return np.sum((a / na) * (b / nb), axis=-1)


def ctc_loss(
    logits: np.ndarray, labels: Sequence[int], num_frames: int,
    blank_id: int = 0,
) -> float:
  """Graves et al. 2006, eq. (8)-(14), by enumerating every frame path.

  A path of ``num_frames`` symbols maps to a label sequence by merging the
  repeats and then removing the blanks; ``p(labels)`` is the sum of the
  path probabilities that map to ``labels``.

  Args:
    logits: ``[time, num_classes]`` of one sequence.
    labels: the label sequence (no padding).
    num_frames: the number of unpadded frames (the first ones).
    blank_id: the blank class.

  Returns:
    ``-log p(labels | logits)``, ``inf`` when no path exists.
  """
  logp = log_softmax(logits[:num_frames])
  num_classes = logp.shape[-1]
  target = tuple(labels)
  total = -np.inf
  for path in itertools.product(range(num_classes), repeat=num_frames):
    merged = [c for i, c in enumerate(path) if i == 0 or c != path[i - 1]]
    if tuple(c for c in merged if c != blank_id) == target:
      total = np.logaddexp(total, sum(logp[t, c] for t, c in enumerate(path)))
  return float(-total)


def dice_terms(
    probs: np.ndarray, targets: np.ndarray, axis: tuple[int, ...]
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
  """True positives, false positives and false negatives summed on ``axis``."""
  p, t = _f64(probs), _f64(targets)
  return (np.sum(p * t, axis=axis), np.sum(p * (1 - t), axis=axis),
          np.sum((1 - p) * t, axis=axis))


def tversky_loss(
    probs: np.ndarray, targets: np.ndarray, smooth: float, alpha: float,
    beta: float, axis: tuple[int, ...],
) -> np.ndarray:
  """Salehi et al. 2017: ``1 - (TP + s) / (TP + a FP + b FN + s)``."""
  tp, fp, fn = dice_terms(probs, targets, axis)
  return 1 - (tp + smooth) / (tp + alpha * fp + beta * fn + smooth)


def softmax(logits: Any, axis: int = -1) -> np.ndarray:
  """``exp(log_softmax(z))``."""
  return np.exp(log_softmax(logits, axis))


def sigmoid(z: Any) -> np.ndarray:
  """The logistic sigmoid."""
  return np.exp(log_sigmoid(z))


def ranking_softmax_loss(
    logits: Any, labels: Any, where: Optional[np.ndarray] = None,
    weights: Optional[np.ndarray] = None,
) -> np.ndarray:
  """Per-list ``-sum_i w_i y_i log softmax(s)_i`` over the valid items."""
  s = _f64(logits)
  y = np.broadcast_to(_f64(labels), s.shape)
  if weights is not None:
    y = y * _f64(weights)
  if where is None:
    where = np.ones(s.shape, bool)
  where = np.broadcast_to(where, s.shape)
  logp = log_softmax(s, -1, where)
  terms = np.where(where & (y != 0), -y * logp, 0.0)
  return np.sum(terms, axis=-1)


def ntxent(embeddings: Any, labels: Any, temperature: float) -> float:
  """Chen et al. 2020 (SimCLR) eq. (1), averaged over the positive pairs."""
  e = _f64(embeddings)
  y = np.asarray(labels)
  e = e / np.linalg.norm(e, axis=-1, keepdims=True)
  s = e @ e.T / temperature
  losses = []
  n = e.shape[0]
  for i in range(n):
    negatives = [s[i, k] for k in range(n) if y[k] != y[i]]
    for j in range(n):
      if j != i and y[j] == y[i]:
        denom = np.logaddexp.reduce(np.array([s[i, j]] + negatives))
        losses.append(denom - s[i, j])
  return float(np.mean(losses))


def triplet_margin_loss(
    anchors: Any, positives: Any, negatives: Any, norm_degree: float,
    margin: float, eps: float,
) -> np.ndarray:
  """Balntas et al. 2016 with the docstring's smoothed distance.

  ``d(u, v) = (eps + sum_i |u_i - v_i|^q)^(1/q)``, a smoothed q-norm of the
  difference (of either sign, for any degree q).
  """
  a, p, n = _f64(anchors), _f64(positives), _f64(negatives)

  def dist(u, v):
    return (eps + np.sum(np.abs(u - v) ** norm_degree, axis=-1)) ** (
        1.0 / norm_degree)

  return np.maximum(dist(a, p) - dist(a, n) + margin, 0.0)


# ------------------------------------------------------------ projections


def projection_l1_sphere(x: Any, scale: float = 1.0) -> np.ndarray:
  """A closest point of ``{|y|_1 = s}``: signs of ``x`` (+ at 0) times

  the simplex projection of ``|x|``; with ``u = |y|`` the problem is the
  projection of ``|x|`` onto the simplex of mass ``s``.
  """
  x = _f64(x)
  return np.where(x < 0, -1.0, 1.0) * projection_simplex(np.abs(x), scale)


def projection_l1_ball(x: Any, scale: float = 1.0) -> np.ndarray:
  """Duchi et al. 2008, Figure 1: ``x`` inside, else the l1-sphere point."""
  x = _f64(x)
  if np.sum(np.abs(x)) <= scale:
    return x
  if scale == 0:
    return np.zeros_like(x)
  return np.sign(x) * projection_simplex(np.abs(x), scale)


def projection_l2_ball(x: Any, scale: float = 1.0) -> np.ndarray:
  """``x`` inside the ball, ``s x / |x|_2`` outside."""
  x = _f64(x)
  norm = np.linalg.norm(x)
  return x if norm <= scale else x * (scale / norm)


# -------------------------------------------------------------- schedules


def polynomial_schedule(
    t: float, init_value: float, end_value: float, power: float,
    transition_steps: int, transition_begin: int = 0,
) -> float:
  """The docstring's ``(v0 - v1) (1 - tau / T)^p + v1``."""
  if transition_steps <= 0:
    return init_value
  tau = min(max(t - max(transition_begin, 0), 0), transition_steps)
  frac = 1.0 - tau / transition_steps
  return (init_value - end_value) * frac ** power + end_value


def exponential_decay(
    t: float, init_value: float, transition_steps: int, decay_rate: float,
    transition_begin: int = 0, staircase: bool = False,
    end_value: Optional[float] = None,
) -> float:
  """The docstring's ``v0 r^((t - t0) / T)``, floored exponent, clipped."""
  if transition_steps <= 0 or decay_rate == 0:
    return init_value
  elapsed = t - max(transition_begin, 0)
  value = init_value
  if elapsed > 0:
    exponent = elapsed / transition_steps
    if staircase:
      exponent = math.floor(exponent)
    value = init_value * decay_rate ** exponent
  # "The value never goes past end_value": at every step.
  if end_value is not None:
    value = max(value, end_value) if decay_rate < 1 else min(value, end_value)
  return value


def cosine_decay_schedule(
    t: float, init_value: float, decay_steps: int, alpha: float = 0.0,
    exponent: float = 1.0,
) -> float:
  """The docstring's ``v0 ((1 - a) (1 + cos(pi tau / T))^p / 2^p + a)``."""
  tau = min(t, decay_steps)
  cosine = 0.5 * (1 + math.cos(math.pi * tau / decay_steps))
  return init_value * ((1 - alpha) * cosine ** exponent + alpha)


def warmup_cosine_decay_schedule(
    t: float, init_value: float, peak_value: float, warmup_steps: int,
    decay_steps: int, end_value: float = 0.0, exponent: float = 1.0,
) -> float:
  """A linear warmup, then the cosine from the peak to ``end_value``."""
  if t < warmup_steps:
    return init_value + (peak_value - init_value) * t / warmup_steps
  tau = min(t - warmup_steps, decay_steps - warmup_steps)
  cosine = 0.5 * (1 + math.cos(math.pi * tau / (decay_steps - warmup_steps)))
  return (peak_value - end_value) * cosine ** exponent + end_value


def warmup_exponential_decay_schedule(
    t: float, init_value: float, peak_value: float, warmup_steps: int,
    transition_steps: int, decay_rate: float, transition_begin: int = 0,
    staircase: bool = False, end_value: Optional[float] = None,
) -> float:
  """A linear warmup, then :func:`exponential_decay` from the peak."""
  if t < warmup_steps:
    return init_value + (peak_value - init_value) * t / warmup_steps
  return exponential_decay(
      t - warmup_steps, peak_value, transition_steps, decay_rate,
      transition_begin, staircase, end_value)


def piecewise_constant_schedule(
    t: float, init_value: float, boundaries_and_scales: dict[int, float]
) -> float:
  """``v0`` times the scales of the boundaries ``<= t``."""
  value = init_value
  for boundary, scale in sorted(boundaries_and_scales.items()):
    if boundary <= t:
      value *= scale
  return value


def piecewise_interpolate_schedule(
    t: float, interpolate_type: str, init_value: float,
    boundaries_and_scales: Any,
) -> float:
  """Linear or half-cosine interpolation between the knots' values.

  ``boundaries_and_scales`` is a mapping or a sorted sequence of pairs (which
  may repeat a step: the value jumps there to the last knot's).
  """
  if isinstance(boundaries_and_scales, dict):
    boundaries_and_scales = sorted(boundaries_and_scales.items())
  knots = [(0, init_value)]
  for boundary, scale in boundaries_and_scales:
    knots.append((boundary, knots[-1][1] * scale))
  if t < 0:
    return init_value
  for (b0, v0), (b1, v1) in zip(knots[:-1], knots[1:]):
    if b0 <= t < b1:
      frac = (t - b0) / (b1 - b0)
      if interpolate_type == 'cosine':
        frac = 0.5 * (1 - math.cos(math.pi * frac))
      return v0 + (v1 - v0) * frac
  return knots[-1][1]


def join_schedules(
    t: float, schedules: Sequence[Callable[[float], float]],
    boundaries: Sequence[int],
) -> float:
  """``f_i(t - b_{i-1})`` on ``[b_{i-1}, b_i)``, ``f_0(t)`` before ``b_0``."""
  index = sum(1 for b in boundaries if t >= b)
  offset = boundaries[index - 1] if index else 0
  return schedules[index](t - offset)


# ------------------------------------------------------------------ trees


def leaves_f64(tree_leaves: Iterable[Any]) -> np.ndarray:
  """The leaves raveled into one float64 (or complex128) vector."""
  parts = [np.asarray(x).ravel() for x in tree_leaves]
  if not parts:
    return np.zeros((0,), _F64)
  flat = np.concatenate(parts)
  if np.iscomplexobj(flat):
    return flat.astype(np.complex128)
  return flat.astype(_F64)


def hungarian_optimal_cost(cost: np.ndarray) -> float:
  """The least cost of an assignment of min(n, m) pairs, by enumeration."""
  cost = _f64(cost)
  n, m = cost.shape
  if n > m:
    cost, n, m = cost.T, m, n
  best = np.inf
  for cols in itertools.permutations(range(m), n):
    best = min(best, float(sum(cost[i, c] for i, c in enumerate(cols))))
  return 0.0 if n == 0 else best


def finite_difference_hessian(
    fun: Callable[[np.ndarray], float], x: np.ndarray, step: float = 1e-4
) -> np.ndarray:
  """The Hessian by central differences of a float64 function."""
  x = _f64(x)
  n = x.size
  hess = np.zeros((n, n))
  basis = np.eye(n) * step
  for i in range(n):
    for j in range(n):
      hess[i, j] = (
          fun(x + basis[i] + basis[j]) - fun(x + basis[i] - basis[j])
          - fun(x - basis[i] + basis[j]) + fun(x - basis[i] - basis[j])
      ) / (4 * step * step)
  return hess
