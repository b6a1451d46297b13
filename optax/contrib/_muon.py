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
"""Muon: momentum orthogonalized by Newton-Schulz iterations.

Muon keeps a momentum of the gradient of each weight matrix and replaces it
by (an approximation of) the closest semi-orthogonal matrix, :math:`U V^T`
for the singular value decomposition :math:`U \\Sigma V^T` of the momentum,
computed with a few Newton-Schulz iterations. Parameters that are not
matrices (biases, norms, embeddings kept as vectors) are handled by Adam in
:func:`muon`.

Tensors of rank above two (convolution kernels, stacked layers) are viewed
as batches of matrices through :class:`MuonDimensionNumbers`, which names the
axes that play the role of the input (reduction) and output dimensions.

Nothing but Python configuration is captured when a transformation is built:
the Newton-Schulz coefficients are validated with NumPy and become an array
only in ``init`` (they are carried in :class:`MuonState`), so an optimizer
built inside a ``jax.jit`` trace can be used outside it (upstream #1186). The
iterations run in a ``lax.fori_loop``, so the traced program and its memory
do not grow with the number of steps (upstream #1650).
"""

import functools
import math
from typing import Any, Callable, Literal, NamedTuple, Optional, Sequence
from typing import Union

import jax
from jax import lax
import jax.numpy as jnp

from optax import tree_utils as otu
from optax._src import alias
from optax._src import arguments
from optax._src import base
from optax._src import dtypes
from optax._src import hyperparameters
from optax._src import moments
from optax._src import numerics
from optax._src import prepared_inputs
from optax._src import transform
from optax._src import tree_or_function
from optax._src import utils
from optax._src import validation
from optax.contrib import _matrix_helpers
from optax.transforms import _adding
from optax.transforms import _combining


class MuonDimensionNumbers(NamedTuple):
  """How a tensor is viewed as a batch of matrices by Muon.

  The axes of ``reduction_axis`` are flattened into the rows (the input, or
  fan-in, dimension of a layer ``y = x @ W``), those of ``output_axis`` into
  the columns (the output, or fan-out, dimension); every other axis is a
  batch axis, and each matrix of the batch is orthogonalized on its own.
  The default describes a dense kernel of shape ``(fan_in, fan_out)``.

  Examples:
    >>> import optax
    >>> # A convolution kernel of shape (height, width, in, out).
    >>> optax.contrib.MuonDimensionNumbers(reduction_axis=(0, 1, 2),
    ...                                    output_axis=3)
    MuonDimensionNumbers(reduction_axis=(0, 1, 2), output_axis=3)

  Attributes:
    reduction_axis: an axis, or a sequence of axes, forming the rows.
    output_axis: an axis, or a sequence of axes, forming the columns.
  """

  reduction_axis: Union[Sequence[int], int] = 0
  output_axis: Union[Sequence[int], int] = 1


class MuonState(NamedTuple):
  """State of :func:`scale_by_muon`.

  Attributes:
    count: int32 scalar, the number of updates done so far.
    mu: the momentum, shaped like the params, in ``mu_dtype`` or the params'
      dtype.
    ns_coeffs: the Newton-Schulz coefficients, of shape ``(3,)`` or
      ``(n, 3)``, in
      :func:`optax._src.hyperparameters.hyperparameter_dtype` (float32,
      float64 under x64).
  """

  count: jax.Array
  mu: base.Updates
  ns_coeffs: jax.Array


_DEFAULT_NS_COEFFS = (3.4445, -4.775, 2.0315)
# One row per iteration, from the Dion paper (Ahn et al., 2025).
_DION_NS_COEFFS = (
    (4.0848, -6.8946, 2.9270),
    (3.9505, -6.3029, 2.6377),
    (3.7418, -5.5913, 2.3037),
    (2.8769, -3.1427, 1.2046),
    (2.8366, -3.0525, 1.2012),
)
_NS_COEFFS_PRESETS = {'standard': _DEFAULT_NS_COEFFS, 'dion': _DION_NS_COEFFS}
_PRECONDITIONINGS = ('frobenius', 'spectral', 'aol', 'schatten')

_Coeff = Union[float, jax.Array]
NsCoeffs = Union[
    tuple[_Coeff, _Coeff, _Coeff],
    tuple[tuple[_Coeff, _Coeff, _Coeff], ...],
    str,
]
WeightDimNums = Union[
    MuonDimensionNumbers, Any, Callable[[base.Params], Any], None]


# ------------------------------------------------------------------------------
# Validation at construction (Python / NumPy only).
# ------------------------------------------------------------------------------


def _static_shape(x: Any) -> Optional[tuple[int, ...]]:
  """The shape of a nested sequence or array, without creating an array.

  Returns None for a ragged sequence.
  """
  if hasattr(x, 'shape'):
    return tuple(x.shape)
  if isinstance(x, (tuple, list)):
    inner = {_static_shape(e) for e in x}
    if len(inner) > 1 or None in inner:
      return None
    return (len(x),) + (inner.pop() if inner else ())
  return ()


def _resolve_ns_coeffs(fn: str, ns_coeffs: Any) -> Any:
  """Validates the Newton-Schulz coefficients; resolves a preset name."""
  fn = validation.called(fn)
  if isinstance(ns_coeffs, str):
    if ns_coeffs not in _NS_COEFFS_PRESETS:
      raise ValueError(
          f'{fn}: unknown ns_coeffs preset {ns_coeffs!r}; expected one of'
          f' {sorted(_NS_COEFFS_PRESETS)} or coefficients of shape (3,) or'
          ' (n, 3)')
    return _NS_COEFFS_PRESETS[ns_coeffs]
  shape = _static_shape(ns_coeffs)
  if shape is None or not (
      (len(shape) == 1 and shape[0] == 3)
      or (len(shape) == 2 and shape[1] == 3)):
    described = 'a ragged sequence' if shape is None else shape
    raise ValueError(
        f'{fn}: ns_coeffs must have shape (3,) or (n, 3), got {described}')
  return ns_coeffs


def _check_preconditioning(fn: str, name: str, preconditioning: str) -> None:
  """The rule of ``preconditioning``: one of the names this module knows."""
  if preconditioning not in _PRECONDITIONINGS:
    raise ValueError(
        f'{validation.called(fn)}: {name} must be one of'
        f' {list(_PRECONDITIONINGS)}, got {preconditioning!r}')


def _check_ns_steps(fn: str, name: str, ns_steps: Any) -> None:
  """The rule of ``ns_steps``: it can count the Newton-Schulz iterations.

  An integer array (possibly a tracer) passes whatever its value; a float
  (2.5) would only fail inside the update's loop.
  """
  dtype = getattr(ns_steps, 'dtype', None)
  if dtype is None or hyperparameters.is_number(ns_steps):
    validation.check_non_negative_int(fn, name, ns_steps)
  elif not jnp.issubdtype(dtype, jnp.integer):
    raise TypeError(f'{validation.called(fn)}: {name} must be an integer, got'
                    f' an array of dtype {dtype}')


# ------------------------------------------------------------------------------
# Dimension numbers.
# ------------------------------------------------------------------------------


# Kept under its upstream name (upstream's tests import it from here).
_compute_muon_reshape = _matrix_helpers.matrix_reshape


def _matrix_dim_nums(
    fn: str, spec: WeightDimNums, tree: Any
) -> list[MuonDimensionNumbers]:
  """Like ``leafwise_dim_nums``, checking every leaf can be Muon'd."""
  dims = _matrix_helpers.leafwise_dim_nums(
      fn, spec, tree, MuonDimensionNumbers)
  leaves = jax.tree_util.tree_leaves_with_path(tree)
  for (path, x), d in zip(leaves, dims):
    where = (f'leaf {jax.tree_util.keystr(path)}' if path
             else 'the params array')
    shape = tuple(x.shape)
    if d is None:
      raise ValueError(
          f'{fn}: no MuonDimensionNumbers for {where} (shape {shape}); Muon'
          ' only transforms matrices. Remedy: use optax.contrib.muon, which'
          ' hands the other parameters to Adam, or optax.partition.')
    if spec is None and len(shape) != 2:
      raise ValueError(
          f'{fn}: {where} has shape {shape}, not a matrix; give'
          ' weight_dimension_numbers for tensors of rank other than 2.'
          ' Remedy: optax.contrib.muon sends vectors and scalars to Adam.')
    if len(shape) < 2:
      raise ValueError(
          f'{fn}: Muon transforms tensors of rank >= 2, but {where} has'
          f' shape {shape}. Remedy: give it None dimension numbers in'
          ' optax.contrib.muon so that Adam handles it.')
    _matrix_helpers.normalize_axes(x, d)
  return dims


# ------------------------------------------------------------------------------
# Newton-Schulz iterations.
# ------------------------------------------------------------------------------


def _gram(x: jax.Array) -> jax.Array:
  """``X X^H``: ``X X^T`` for a real ``X``, Hermitian for a complex one."""
  return x @ jnp.conj(x).T


def _newton_schulz_step(
    x: jax.Array, abc: jax.Array, gram: Optional[jax.Array] = None
) -> jax.Array:
  """One iteration ``a X + (b A + c A^2) X`` with ``A = X X^H``."""
  if gram is None:
    gram = _gram(x)
  poly = abc[1] * gram + abc[2] * (gram @ gram)
  return abc[0] * x + poly @ x


def _orthogonalize_matrix(
    x: jax.Array,
    coeffs: jax.Array,
    ns_steps: Any,
    preconditioning: str,
    eps: jax.Array,
) -> jax.Array:
  """Newton-Schulz orthogonalization of one matrix (computed in x.dtype).

  ``eps`` is real (the real dtype of ``x``); the scalings are real too and
  cast to ``x.dtype`` before they touch ``x``.
  """
  transposed = x.shape[0] > x.shape[1]
  if transposed:  # Iterate on the wide side: the Gram matrix is the smaller.
    x = x.T
  per_step = coeffs.ndim == 2
  num_steps = coeffs.shape[0] if per_step else ns_steps

  def abc(i):
    return coeffs[i] if per_step else coeffs

  start = 0
  if preconditioning in ('aol', 'schatten'):
    # The Gram matrix of the scaled X is the scaled Gram matrix: the first
    # iteration reuses it (peeled off the loop).
    gram = _gram(x)
    if preconditioning == 'aol':
      s = lax.rsqrt(jnp.maximum(jnp.sum(jnp.abs(gram), axis=1), eps))
      s = s.astype(x.dtype)
      x = x * s[:, None]
      gram = s[:, None] * gram * s[None, :]
    else:
      s = lax.rsqrt(jnp.maximum(
          jnp.sqrt(jnp.sum(numerics.abs_sq(gram))), eps)).astype(x.dtype)
      x = x * s
      gram = gram * (s * s)
    if hyperparameters.is_number(num_steps, integral=True) and num_steps == 0:
      return x.T if transposed else x
    x = _newton_schulz_step(x, abc(0), gram)
    start = 1
  elif preconditioning == 'spectral':
    x = x / (jnp.linalg.norm(x, ord=2) + eps).astype(x.dtype)
  else:
    x = x / (jnp.sqrt(jnp.sum(numerics.abs_sq(x))) + eps).astype(x.dtype)
  x = lax.fori_loop(
      start, num_steps, lambda i, y: _newton_schulz_step(y, abc(i)), x)
  return x.T if transposed else x


def orthogonalize_via_newton_schulz(
    x: jax.Array,
    ns_coeffs: jax.Array,
    ns_steps: int = 5,
    preconditioning: Literal['frobenius', 'spectral', 'aol',
                             'schatten'] = 'frobenius',
    eps: float = 1e-8,
    dimension_numbers: Optional[MuonDimensionNumbers] = None,
) -> jax.Array:
  r"""Approximates the closest semi-orthogonal matrix by Newton-Schulz.

  For :math:`G = U \Sigma V^T`, returns approximately :math:`U V^T`. ``X``
  (``G`` transposed if it has more rows than columns) is first scaled so
  that its singular values are at most one, then each iteration maps

  .. math::

    A = X X^T, \qquad X \leftarrow a X + (b A + c A^2) X,

  which pushes the singular values towards one (the default coefficients
  of Jordan et al. send them into roughly [0.7, 1.2] in five steps).

  The scaling is chosen by ``preconditioning``: ``'frobenius'``
  (:math:`X / (\|X\|_F + \epsilon)`), ``'spectral'`` (:math:`X /
  (\|X\|_2 + \epsilon)`, exact and costly), ``'schatten'`` (:math:`X /
  \|X X^T\|_F^{1/2}`, the Schatten-4 norm) or ``'aol'`` (each row :math:`i`
  divided by :math:`(\sum_j |A_{ij}|)^{1/2}`, as in almost-orthogonal
  layers); the last two reuse :math:`A` in the first iteration, and their
  norms are floored at :math:`\epsilon`.

  Examples:
    >>> import jax.numpy as jnp
    >>> from optax.contrib import _muon
    >>> g = jnp.array([[3.0, 0.0], [0.0, 0.5]])
    >>> o = _muon.orthogonalize_via_newton_schulz(
    ...     g, jnp.array([3.4445, -4.775, 2.0315]))
    >>> print(jnp.round(o, 2))  # Singular values 3 and 0.5 move near 1.
    [[0.71 0.  ]
     [0.   1.04]]

  Args:
    x: a matrix, or a tensor described by ``dimension_numbers``.
    ns_coeffs: the coefficients :math:`(a, b, c)`, of shape ``(3,)`` (used
      at every step) or ``(n, 3)`` (one row per step: ``n`` steps are done
      and ``ns_steps`` is ignored).
    ns_steps: the number of iterations with ``(3,)`` coefficients.
    preconditioning: ``'frobenius'``, ``'spectral'``, ``'aol'`` or
      ``'schatten'``, see above.
    eps: :math:`\epsilon`, keeps the scaling finite for a zero matrix.
    dimension_numbers: for a tensor of rank other than two, how it is viewed
      as a batch of matrices (each orthogonalized on its own).

  Returns:
    An array shaped like ``x``, in the dtype ``x`` promotes to with the
    coefficients.

  Raises:
    ValueError: if ``x`` is not a matrix and no ``dimension_numbers`` are
      given, or if ``ns_coeffs`` or ``preconditioning`` are invalid.

  References:
    Jordan et al., `Muon: An optimizer for hidden layers in neural networks
    <https://kellerjordan.github.io/posts/muon/>`_, 2024.

    Prach and Lampert, `Almost-Orthogonal Layers for Efficient
    General-Purpose Lipschitz Networks <https://arxiv.org/abs/2208.03160>`_,
    2022.
  """
  fn = 'orthogonalize_via_newton_schulz'
  _check_preconditioning(fn, 'preconditioning', preconditioning)
  coeffs = jnp.asarray(ns_coeffs)
  if coeffs.ndim not in (1, 2) or coeffs.shape[-1] != 3:
    raise ValueError(
        f'{fn}: ns_coeffs must have shape (3,) or (n, 3), got'
        f' {tuple(coeffs.shape)}')
  x, sharding = _matrix_helpers.gather(jnp.asarray(x))
  dtype = dtypes.promote_dtypes(x.dtype, coeffs.dtype)
  if not jnp.issubdtype(dtype, jnp.inexact):
    dtype = hyperparameters.hyperparameter_dtype()
  coeffs = coeffs.astype(dtype)
  # The scalings are real also for complex x (X X^H has a real spectrum).
  eps = jnp.asarray(eps, jnp.finfo(dtype).dtype)
  orthogonalize = functools.partial(
      _orthogonalize_matrix, coeffs=coeffs, ns_steps=ns_steps,
      preconditioning=preconditioning, eps=eps)
  if dimension_numbers is None:
    if x.ndim != 2:
      raise ValueError(
          f'{fn}: x must be a matrix, or dimension_numbers must say how to'
          f' view it as a batch of matrices; got shape {tuple(x.shape)} and'
          ' dimension_numbers=None')
    out = orthogonalize(x.astype(dtype))
  else:
    reshape_fn, inverse_fn = _matrix_helpers.matrix_reshape(
        x, dimension_numbers)
    matrices = reshape_fn(x.astype(dtype))
    if matrices.shape[0] == 1:
      out = inverse_fn(orthogonalize(matrices[0])[None])
    else:
      out = inverse_fn(jax.vmap(orthogonalize)(matrices))
  return _matrix_helpers.scatter(out, sharding)


# ------------------------------------------------------------------------------
# Transformations.
# ------------------------------------------------------------------------------


@arguments.declare(
    ns_steps=_check_ns_steps, preconditioning=_check_preconditioning,
    beta=arguments.closed_decay_scalar, eps=arguments.non_negative_scalar)
def scale_by_muon(
    ns_coeffs: NsCoeffs = _DEFAULT_NS_COEFFS,
    ns_steps: int = 5,
    beta: float = 0.95,
    eps: float = 1e-8,
    mu_dtype: Optional[Any] = None,
    *,
    nesterov: bool = True,
    adaptive: bool = False,
    preconditioning: Literal['frobenius', 'spectral', 'aol',
                             'schatten'] = 'frobenius',
    weight_dimension_numbers: WeightDimNums = None,
) -> base.GradientTransformation:
  r"""Rescales updates by the Muon rule: orthogonalized momentum.

  With :math:`g_t` the incoming updates and :math:`t \geq 1` the step
  count,

  .. math::

    m_t &= \beta m_{t-1} + (1 - \beta) g_t, \\
    \hat m_t &= \frac{\beta m_t}{1 - \beta^{t+1}}
      + \frac{(1 - \beta) g_t}{1 - \beta^t}
      \quad \text{(Nesterov), or } \hat m_t = \frac{m_t}{1 - \beta^t}, \\
    u_t &= \mathrm{NS}(\hat m_t),

  where :math:`\mathrm{NS}` is :func:`orthogonalize_via_newton_schulz`
  (applied to each matrix of a tensor, see :class:`MuonDimensionNumbers`).
  With ``adaptive=True`` the result is multiplied by the Frobenius inner
  product :math:`\langle \hat m_t, u_t \rangle` (over the whole leaf), which
  restores the scale of the gradient.

  Every leaf must be a matrix, or have dimension numbers; use :func:`muon`
  to send the other parameters to Adam.

  Args:
    ns_coeffs: the Newton-Schulz coefficients :math:`(a, b, c)`, shape
      ``(3,)``; or ``(n, 3)``, one row per iteration (then ``n`` iterations
      are done and ``ns_steps`` is ignored); or a preset name,
      ``'standard'`` (the default coefficients) or ``'dion'`` (five rows).
    ns_steps: the number of Newton-Schulz iterations with ``(3,)``
      coefficients.
    beta: the decay :math:`\beta` of the momentum.
    eps: :math:`\epsilon` of the scaling before the iterations.
    mu_dtype: the dtype of the momentum; ``None`` uses the params'.
    nesterov: whether to use the Nesterov momentum :math:`\hat m_t` above.
    adaptive: whether to rescale by :math:`\langle \hat m_t, u_t \rangle`.
    preconditioning: the scaling before the iterations: ``'frobenius'``,
      ``'spectral'``, ``'aol'`` or ``'schatten'`` (see
      :func:`orthogonalize_via_newton_schulz`).
    weight_dimension_numbers: ``None`` (every leaf is a matrix of shape
      ``(fan_in, fan_out)``), a :class:`MuonDimensionNumbers` for every
      leaf, a tree of them with the structure of the params (or a prefix
      of it), or a function of the params returning one.

  Returns:
    A ``GradientTransformation`` whose state is a :class:`MuonState`.

  Raises:
    TypeError: for a hyperparameter that is not a scalar (a vector, a
      string).
    ValueError: when built, if ``ns_coeffs`` has a shape other than
      ``(3,)`` or ``(n, 3)`` or names no preset, or if ``preconditioning``,
      ``ns_steps`` or a Python-number ``beta`` / ``eps`` is invalid (NaN
      included); in ``init``, if a leaf is not a matrix and has no
      dimension numbers.

  Examples:
    >>> import jax.numpy as jnp
    >>> import optax
    >>> tx = optax.contrib.scale_by_muon()
    >>> state = tx.init(jnp.zeros((2, 2)))
    >>> updates, state = tx.update(jnp.array([[2.0, 0.0], [0.0, 1.0]]), state)
    >>> print(jnp.round(updates, 2), updates.dtype)
    [[0.69 0.  ]
     [0.   1.11]] float32

  References:
    Jordan et al., `Muon: An optimizer for hidden layers in neural networks
    <https://kellerjordan.github.io/posts/muon/>`_, 2024.

    Bernstein and Newhouse, `Old Optimizer, New Norm: An Anthology
    <https://arxiv.org/abs/2409.20325>`_, 2024.

    Ahn et al., `Dion: Distributed Orthonormalized Updates
    <https://arxiv.org/abs/2504.05295>`_, 2025.
  """
  fn = 'scale_by_muon'
  coeffs_config = _resolve_ns_coeffs(fn, ns_coeffs)
  mu_dtype = utils.canonicalize_dtype(mu_dtype)

  def init_fn(params):
    _matrix_dim_nums(fn, weight_dimension_numbers, params)
    return MuonState(
        count=jnp.zeros([], jnp.int32),
        mu=otu.tree_zeros_like(params, dtype=mu_dtype),
        ns_coeffs=jnp.asarray(coeffs_config,
                              dtype=hyperparameters.hyperparameter_dtype()),
    )

  def update_fn(updates, state, params=None):
    del params
    beta_ = hyperparameters.as_hyperparameter(beta)
    eps_ = hyperparameters.as_hyperparameter(eps)
    count = numerics.safe_increment(state.count)
    mu = otu.tree_update_moment(updates, state.mu, beta_, 1)
    if nesterov:
      mu_hat = moments.nesterov_first_moment(updates, mu, beta_, count)
    else:
      mu_hat = otu.tree_bias_correction(mu, beta_, count)
    coeffs = state.ns_coeffs
    leaves, treedef = jax.tree.flatten(updates)
    mu_hat_leaves = treedef.flatten_up_to(mu_hat)
    dims = _matrix_dim_nums(fn, weight_dimension_numbers, updates)

    def leaf_update(g, m_hat, dim_nums):
      dtype = dtypes.promote_dtypes(m_hat.dtype, coeffs.dtype)
      m_hat = m_hat.astype(dtype)
      o = orthogonalize_via_newton_schulz(
          m_hat, coeffs.astype(dtype), ns_steps, preconditioning,
          eps_.astype(jnp.finfo(dtype).dtype), dim_nums)
      if adaptive:
        # <m_hat, o> = sum(conj(m_hat) o), real for a real m_hat.
        o = o * jnp.sum(jnp.conj(m_hat) * o)
      return o.astype(g.dtype)

    new_leaves = [leaf_update(g, m, d)
                  for g, m, d in zip(leaves, mu_hat_leaves, dims)]
    updates = jax.tree.unflatten(treedef, new_leaves)
    return updates, MuonState(count=count, mu=mu, ns_coeffs=state.ns_coeffs)

  return prepared_inputs.with_prepared_inputs(
      'scale_by_muon', base.GradientTransformation(init_fn, update_fn))


def _scale_by_shape(
    weight_dimension_numbers: WeightDimNums = None,
    consistent_rms: Optional[float] = None,
) -> base.GradientTransformation:
  r"""Scales each orthogonalized matrix for its shape.

  With :math:`d_{in}` and :math:`d_{out}` the sizes of the reduction and
  output dimensions, multiplies by :math:`\sqrt{\max(1, d_{out} / d_{in})}`
  (so that the update's spectral norm matches the layer's fan-out / fan-in
  ratio), or, with ``consistent_rms`` :math:`\rho`, by :math:`\rho
  \sqrt{\max(d_{in}, d_{out})}` so that the update has RMS :math:`\rho`
  (matching Adam's update size, Liu et al. 2025).
  """
  fn = 'muon'

  def factor(x, dim_nums):
    fan_in, fan_out = _matrix_helpers.fan_in_out(x, dim_nums)
    if consistent_rms is None:
      return hyperparameters.as_hyperparameter(
          math.sqrt(max(1.0, fan_out / fan_in)))
    return hyperparameters.as_hyperparameter(consistent_rms) * math.sqrt(
        max(fan_in, fan_out))

  def update_fn(updates, state, params=None):
    del params
    leaves, treedef = jax.tree.flatten(updates)
    dims = _matrix_helpers.leafwise_dim_nums(
        fn, weight_dimension_numbers, updates, MuonDimensionNumbers)
    new_leaves = []
    for g, dim_nums in zip(leaves, dims):
      f = factor(g, dim_nums)
      dtype = jnp.promote_types(g.dtype, f.dtype)
      new_leaves.append((f.astype(dtype) * g.astype(dtype)).astype(g.dtype))
    return jax.tree.unflatten(treedef, new_leaves), state

  return base.GradientTransformation(base.init_empty_state, update_fn)


def _default_muon_dim_nums(params: base.Params) -> Any:
  """Default dimension numbers of :func:`muon`: matrices only."""
  return jax.tree.map(
      lambda x: MuonDimensionNumbers() if len(x.shape) == 2 else None,
      params)


# scale_by_muon checks ns_coeffs, ns_steps, preconditioning, beta and eps,
# adamw the Adam hyperparameters, under its own names: those are declared.
@arguments.declare(
    consistent_rms=arguments.positive, adam_b1=arguments.decay_scalar,
    adam_b2=arguments.decay_scalar, adam_eps_root=arguments.non_negative_scalar,
    adam_weight_decay=arguments.finite_scalar,
    adam_learning_rate=arguments.learning_rate)
def muon(
    learning_rate: base.ScalarOrSchedule,
    ns_coeffs: NsCoeffs = _DEFAULT_NS_COEFFS,
    ns_steps: int = 5,
    beta: float = 0.95,
    eps: float = 1e-8,
    weight_decay: base.ScalarOrSchedule = 0.0,
    weight_decay_mask: base.MaskOrFn = None,
    mu_dtype: Optional[Any] = None,
    *,
    nesterov: bool = True,
    adaptive: bool = False,
    preconditioning: Literal['frobenius', 'spectral', 'aol',
                             'schatten'] = 'frobenius',
    adam_b1: float = 0.9,
    adam_b2: float = 0.999,
    adam_eps_root: float = 0.0,
    adam_weight_decay: base.ScalarOrSchedule = 0.0,
    adam_learning_rate: Optional[base.ScalarOrSchedule] = None,
    muon_weight_dimension_numbers: WeightDimNums = None,
    consistent_rms: Optional[float] = None,
) -> base.GradientTransformation:
  r"""Muon: orthogonalized momentum for matrices, AdamW for the rest.

  Each parameter with dimension numbers (by default, each matrix) is
  updated by :func:`scale_by_muon`, scaled for its shape, decayed and
  scaled by the learning rate :math:`\eta_t`:

  .. math::

    u_t = -\eta_t \left(s\, \mathrm{NS}(\hat m_t) + \lambda \theta_t\right),
    \qquad s = \sqrt{\max(1, d_{out} / d_{in})}
    \text{ or } s = \rho \sqrt{\max(d_{in}, d_{out})},

  (the second with ``consistent_rms`` :math:`\rho`, which gives updates of
  RMS :math:`\rho` as Adam's), where :math:`d_{in}, d_{out}` are the sizes
  of the reduction and output dimensions. The other parameters (vectors,
  scalars, and leaves with ``None`` dimension numbers) are updated by
  :func:`optax.adamw` with ``adam_b1``, ``adam_b2``, ``eps``,
  ``adam_eps_root``, ``adam_weight_decay``, ``mu_dtype``, ``nesterov`` and
  the learning rate ``adam_learning_rate`` (``learning_rate`` when None).

  Args:
    learning_rate: the learning rate :math:`\eta` of the Muon parameters, a
      number or a schedule.
    ns_coeffs: the Newton-Schulz coefficients, shape ``(3,)`` or ``(n, 3)``
      or a preset name (``'standard'``, ``'dion'``), see
      :func:`scale_by_muon`.
    ns_steps: the number of Newton-Schulz iterations with ``(3,)``
      coefficients.
    beta: the decay of the momentum.
    eps: the :math:`\epsilon` of the Newton-Schulz scaling and of Adam.
    weight_decay: the decoupled weight decay :math:`\lambda` of the Muon
      parameters.
    weight_decay_mask: a tree of booleans (or a function of the params
      returning one) selecting the Muon parameters to decay.
    mu_dtype: the dtype of the momenta of Muon and Adam.
    nesterov: whether Muon and Adam use Nesterov momentum.
    adaptive: whether Muon rescales by :math:`\langle \hat m_t, u_t
      \rangle`, see :func:`scale_by_muon`.
    preconditioning: the scaling before the Newton-Schulz iterations,
      ``'frobenius'``, ``'spectral'``, ``'aol'`` or ``'schatten'``.
    adam_b1: Adam's :math:`\beta_1`.
    adam_b2: Adam's :math:`\beta_2`.
    adam_eps_root: Adam's :math:`\epsilon_{root}`.
    adam_weight_decay: the decoupled weight decay of the Adam parameters.
    adam_learning_rate: the learning rate of the Adam parameters;
      ``None`` uses ``learning_rate``.
    muon_weight_dimension_numbers: ``None`` (matrices use Muon with
      :class:`MuonDimensionNumbers` defaults, other leaves use Adam), a
      :class:`MuonDimensionNumbers` for every leaf, a tree of them and of
      ``None`` (Adam) with the structure of the params (or a prefix of it),
      or a function of the params returning one.
    consistent_rms: :math:`\rho` above, or ``None`` for the fan-out /
      fan-in scaling.

  Returns:
    A ``GradientTransformationExtraArgs`` whose state is a
    :class:`optax.transforms.PartitionState` with groups ``'muon'`` and
    ``'adam'``; its ``update`` requires ``params`` when a weight decay is
    used.

  Raises:
    TypeError: for a hyperparameter that is not a scalar (a vector, a
      string).
    ValueError: when built, for invalid ``ns_coeffs``, ``ns_steps`` or
      ``preconditioning``, or a Python-number ``beta`` outside ``[0, 1]``,
      negative ``eps`` or non-positive ``consistent_rms`` (NaN included);
      in ``init``, if a Muon parameter has rank below two.

  Examples:
    >>> import jax.numpy as jnp
    >>> import optax
    >>> params = {'w': jnp.ones((3, 2)), 'b': jnp.zeros(2)}
    >>> tx = optax.contrib.muon(learning_rate=0.1)
    >>> state = tx.init(params)
    >>> grads = {'w': jnp.array([[1.0, 0.0], [0.0, 1.0], [0.0, 0.0]]),
    ...          'b': jnp.array([1.0, -1.0])}
    >>> updates, state = tx.update(grads, state, params)
    >>> print(jnp.round(updates['w'], 2))  # Muon.
    [[-0.11 -0.  ]
     [-0.   -0.11]
     [-0.   -0.  ]]
    >>> print(jnp.round(updates['b'], 3))  # NAdam.
    [-0.147  0.147]

  References:
    Jordan et al., `Muon: An optimizer for hidden layers in neural networks
    <https://kellerjordan.github.io/posts/muon/>`_, 2024.

    Liu et al., `Muon is Scalable for LLM Training
    <https://arxiv.org/abs/2502.16982>`_, 2025.

  .. seealso:: :func:`scale_by_muon`, :func:`orthogonalize_via_newton_schulz`
  """
  fn = 'muon'
  if muon_weight_dimension_numbers is None:
    dim_nums = _default_muon_dim_nums
  else:
    dim_nums = muon_weight_dimension_numbers

  def param_labels(params):
    # A label per leaf, also where the dimension numbers are a prefix of the
    # params: the state then has a MaskedNode for each leaf of a group.
    spec = tree_or_function.resolve(
        dim_nums, params, fn_name=fn, arg_name='muon_weight_dimension_numbers',
        is_leaf=lambda x: x is None or isinstance(x, MuonDimensionNumbers))
    treedef = jax.tree.structure(params)
    if spec is None:  # A root None: every leaf goes to Adam.
      return jax.tree.unflatten(treedef, ['adam'] * treedef.num_leaves)
    dims = _matrix_helpers.leafwise_dim_nums(
        fn, spec, params, MuonDimensionNumbers)
    return jax.tree.unflatten(
        treedef, ['adam' if d is None else 'muon' for d in dims])

  if adam_learning_rate is None:
    adam_learning_rate = learning_rate
  return prepared_inputs.with_prepared_inputs(fn, _combining.partition(
      transforms={
          'muon': _combining.chain(
              scale_by_muon(
                  ns_coeffs=ns_coeffs, ns_steps=ns_steps, beta=beta, eps=eps,
                  mu_dtype=mu_dtype, nesterov=nesterov, adaptive=adaptive,
                  preconditioning=preconditioning,
                  weight_dimension_numbers=muon_weight_dimension_numbers),
              _scale_by_shape(muon_weight_dimension_numbers, consistent_rms),
              _adding.add_decayed_weights(weight_decay, weight_decay_mask),
              transform.scale_by_learning_rate(learning_rate),
          ),
          'adam': alias.adamw(
              learning_rate=adam_learning_rate, b1=adam_b1, b2=adam_b2,
              eps=eps, eps_root=adam_eps_root, mu_dtype=mu_dtype,
              weight_decay=adam_weight_decay, nesterov=nesterov),
      },
      param_labels=param_labels,
  ))
