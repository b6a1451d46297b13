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
r"""Line searches: backtracking (Armijo) and zoom (strong Wolfe conditions).

A line search is a transformation that receives a direction :math:`u` (the
incoming updates), the current parameters :math:`w`, the value and gradient
of the objective :math:`f` at :math:`w` and the function :math:`f` itself,
and returns :math:`\eta u` for a step size :math:`\eta` chosen along the
one-dimensional function

.. math::

  \varphi(\eta) = f(w + \eta u), \qquad
  \varphi'(\eta) = \langle \nabla f(w + \eta u), u \rangle .

Both searches keep, in their state, the value (and, for the zoom search, the
gradient) of :math:`f` at the new parameters, so that the next step can
reuse them through :func:`value_and_grad_from_state`.
"""

import inspect
from typing import Any, Callable, NamedTuple, Optional, Union

import jax
import jax.numpy as jnp

from optax import tree_utils as otu
from optax._src import base
from optax._src import dtypes
from optax._src import hyperparameters
from optax._src import numerics
from optax._src import prepared_inputs
from optax._src import validation
from optax.tree_utils import _tree_math


# Messages of the zoom line search, printed (with ``verbose=True``) when it
# stops without a step size satisfying both Wolfe conditions.
FLAG_INTERVAL_NOT_FOUND = (
    'No interval satisfying curvature condition. Consider increasing maximal'
    ' possible stepsize of the linesearch.'
)
FLAG_INTERVAL_TOO_SMALL = (
    'Length of searched interval has been reduced below threshold.'
)
FLAG_CURVATURE_COND_NOT_SATISFIED = (
    'Returning stepsize with sufficient decrease but curvature condition not'
    ' satisfied.'
)
FLAG_NO_STEPSIZE_FOUND = (
    'Linesearch failed, no stepsize satisfying sufficient decrease found.'
)
FLAG_NOT_A_DESCENT_DIRECTION = (
    'The linesearch failed because the provided direction is not a descent'
    ' direction. '
)

# Safeguards of the interpolation in the zoom phase: a cubic (resp.
# quadratic) minimizer is only accepted if it lies further than this
# fraction of the interval length from both ends of the interval.
_CUBIC_SAFEGUARD = 0.2
_QUADRATIC_SAFEGUARD = 0.1

_STRATEGIES = ('keep', 'one')


# ------------------------------------------------------------------------------
# Helpers shared by both searches.
# ------------------------------------------------------------------------------


def _step_inputs(
    fn: str, state: Any, params: Any, grad: base.Updates,
    value_fn: Callable[..., Any], extra_args: dict[str, Any],
) -> tuple[Any, base.Updates, dict[str, Any]]:
  """Checks and prepares the arguments of a line search's ``update``.

  Args:
    fn: the name of the line search, for the error messages.
    state: the search's state; entries set by hand (``optax.tree_utils.
      tree_set(state, learning_rate=1.0)``) may be Python numbers.
    params: the current parameters, which the search starts from.
    grad: the gradient at ``params``.
    value_fn: the objective.
    extra_args: the extra keyword arguments given to ``update``.

  Returns:
    The state with array entries, the gradient as the updates are prepared
    (an integer parameter's float0 gradient is zeros, see
    ``prepared_inputs.as_updates``) and the keyword arguments of
    ``value_fn`` (see :func:`_value_fn_kwargs`).
  """
  validation.require_params(
      fn, params, 'the search starts from the current parameters',
      'tx.update(updates, state, params, value=value, grad=grad,'
      ' value_fn=value_fn)')
  grad = prepared_inputs.as_updates(grad, params)[0]
  fn_kwargs = _value_fn_kwargs(fn, value_fn, extra_args)
  return jax.tree.map(jnp.asarray, state), grad, fn_kwargs


def _line_search(
    fn: str,
    init_fn: Callable[[base.Params], Any],
    search: Callable[..., tuple[base.Updates, Any]],
) -> base.GradientTransformationExtraArgs:
  """The transformation of a line search, whose ``update`` runs ``search``.

  Both searches take the same arguments in ``update``; they are checked and
  prepared here (:func:`_step_inputs`), and the inputs are those that
  ``optax.chain`` gives (``prepared_inputs.with_prepared_inputs``).

  Args:
    fn: the public name of the line search, for the error messages.
    init_fn: the search's ``init``.
    search: ``search(updates, state, params, value, grad, value_fn,
      fn_kwargs)`` returning the scaled updates and the new state, where
      ``fn_kwargs`` are the keyword arguments of ``value_fn``.

  Returns:
    The line search.
  """

  def update_fn(
      updates: base.Updates,
      state: Any,
      params: Optional[base.Params] = None,
      *,
      value: base.Numeric,
      grad: base.Updates,
      value_fn: Callable[..., base.Numeric],
      **extra_args: Any,
  ) -> tuple[base.Updates, Any]:
    state, grad, fn_kwargs = _step_inputs(fn, state, params, grad, value_fn,
                                          extra_args)
    return search(updates, state, params, value, grad, value_fn, fn_kwargs)

  return prepared_inputs.with_prepared_inputs(
      fn, base.GradientTransformationExtraArgs(init_fn, update_fn))


def _first_state(state_type: Any, grad: Optional[base.Updates]) -> Any:
  """A search's state before its first step.

  Args:
    state_type: the state's class; its ``info`` field's class is read from
      its annotations.
    grad: the stored gradient (zeros like the params, or None).

  Returns:
    The state with step size 1, value ``inf``, no search step counted and
    every error of ``info`` ``inf``, in the hyperparameter dtype.
  """
  dtype = _scalar_dtype()
  info_type = state_type.__annotations__['info']
  errors = {name: jnp.full([], jnp.inf, dtype)
            for name in info_type._fields if name.endswith('_error')}
  return state_type(
      learning_rate=jnp.ones([], dtype), value=jnp.full([], jnp.inf, dtype),
      grad=grad,
      info=info_type(num_linesearch_steps=jnp.zeros([], jnp.int32), **errors))


def _next_state(state: Any, carry: Any, stuck: jax.Array,
                stepsize: jax.Array, value: jax.Array,
                grad: Optional[base.Updates]) -> Any:
  """A search's state after its step, in the dtypes of the state before.

  Args:
    state: the state before the search.
    carry: the search loop's last carry (its ``count`` and the errors that
      ``state.info`` has).
    stuck: whether no finite value was found (then no step is made).
    stepsize: the step size taken.
    value: the value at the new parameters.
    grad: the gradient there (or None when the search does not keep it).

  Returns:
    The new state. When stuck, the next search starts again from the
    previous step size.
  """
  rate = state.learning_rate
  kept_rate = jnp.where(stuck, rate.astype(_scalar_dtype()), stepsize)
  errors = {name: getattr(carry, name).astype(getattr(state.info, name).dtype)
            for name in state.info._fields if name.endswith('_error')}
  return type(state)(
      learning_rate=kept_rate.astype(rate.dtype),
      value=value.astype(state.value.dtype),
      grad=grad,
      info=type(state.info)(
          num_linesearch_steps=carry.count.astype(jnp.int32), **errors))


def _extract_fns_kwargs(
    fns: tuple[Callable[..., Any], ...],
    kwargs: dict[str, Any],
) -> tuple[list[dict[str, Any]], dict[str, Any]]:
  """Splits keyword arguments among functions by their parameter names.

  Each function receives the entries of ``kwargs`` whose key names one of its
  parameters (an entry may go to several functions); the entries that no
  function names are returned apart.

  Examples:
    >>> from optax._src import linesearch
    >>> def f(x, a):
    ...   return x + a
    >>> def g(x, b=1.0):
    ...   return x * b
    >>> linesearch._extract_fns_kwargs((f, g), {'a': 1, 'b': 2, 'c': 3})
    ([{'a': 1}, {'b': 2}], {'c': 3})

  Args:
    fns: the functions.
    kwargs: the keyword arguments to split.

  Returns:
    A list with, for each function, the dict of its keyword arguments, and
    the dict of the remaining keyword arguments.
  """
  names = [set(inspect.signature(fn).parameters) for fn in fns]
  fns_kwargs = [{k: v for k, v in kwargs.items() if k in fn_names}
                for fn_names in names]
  used = set().union(*names)
  remaining = {k: v for k, v in kwargs.items() if k not in used}
  return fns_kwargs, remaining


def _value_fn_kwargs(fn: str, value_fn: Callable[..., Any],
                     extra_args: dict[str, Any]) -> dict[str, Any]:
  """The extra arguments of ``update`` that ``value_fn`` takes.

  Args:
    fn: the name of the line search, for the error message.
    value_fn: the function whose keyword arguments are looked up.
    extra_args: the extra keyword arguments given to ``update``.

  Returns:
    The entries of ``extra_args`` that are parameters of ``value_fn``.

  Raises:
    TypeError: if some entry of ``extra_args`` is not a parameter of
      ``value_fn`` (as in upstream Optax: it would otherwise be silently
      dropped, e.g. a misspelt batch argument).
  """
  (fn_kwargs,), unused = _extract_fns_kwargs((value_fn,), extra_args)
  if unused:
    raise TypeError(
        f'{fn}: Unexpected keyword arguments passed to update:'
        f' {sorted(unused)} are not parameters of value_fn. Every extra'
        ' keyword argument of update is passed on to value_fn by name, so'
        ' value_fn must have a parameter of that name.')
  return fn_kwargs


def _scalar_dtype() -> jnp.dtype:
  """The dtype of step sizes, values and slopes inside the searches."""
  return hyperparameters.hyperparameter_dtype()


def _optional_hyperparameter(value: Any) -> Optional[jax.Array]:
  """``hyperparameters.as_hyperparameter(value)``, None for None."""
  return None if value is None else hyperparameters.as_hyperparameter(value)


def _scaled(updates: base.Updates, stepsize: jax.Array) -> base.Updates:
  """``stepsize * updates`` in the dtype of each update leaf."""

  def leaf(u):
    ct = dtypes.promote_dtypes(u.dtype, stepsize.dtype)
    return (stepsize.astype(ct) * u.astype(ct)).astype(u.dtype)

  return jax.tree.map(leaf, updates)


def _moved(params: base.Params, step: base.Updates) -> base.Params:
  """``params + step`` in the dtype of each parameter leaf."""

  def leaf(p, s):
    ct = dtypes.promote_dtypes(p.dtype, s.dtype)
    return (p.astype(ct) + s.astype(ct)).astype(p.dtype)

  return jax.tree.map(leaf, params, step)


def _as_scalar(x: Any, dtype) -> jax.Array:
  x = jnp.asarray(x)
  if jnp.iscomplexobj(x):
    x = jnp.real(x)
  return x.astype(dtype)


def _report(header: str, condition: jax.Array, build_message, **values):
  """Prints ``build_message(**values)`` (NumPy values) when ``condition``."""

  def callback(condition, **values):
    if bool(condition):
      print(f'INFO: optax.{header}:\n' + build_message(**values))

  jax.debug.callback(callback, condition, **values)


# ------------------------------------------------------------------------------
# Backtracking line search.
# ------------------------------------------------------------------------------


class BacktrackingLinesearchInfo(NamedTuple):
  """Information about the last backtracking line search.

  Attributes:
    num_linesearch_steps: the number of values of the objective computed by
      the search (int32 scalar).
    decrease_error: how much the accepted step size misses the sufficient
      decrease condition by (0 when it is met), a scalar of the
      hyperparameter dtype.
  """
  num_linesearch_steps: jax.Array
  decrease_error: jax.Array


class ScaleByBacktrackingLinesearchState(NamedTuple):
  """State of :func:`scale_by_backtracking_linesearch`.

  Attributes:
    learning_rate: the step size of the last step, a scalar of the
      hyperparameter dtype (float32, float64 under x64); the next search
      starts from ``increase_factor`` times it. (When no finite value was
      found and no step was made, the previous one is kept.)
    value: the value of the objective at the parameters after the last step
      (``inf`` before the first step), same dtype.
    grad: the gradient of the objective there (zeros before the first step)
      when ``store_grad=True``, else ``None``; same structure and dtypes as
      the params.
    info: a :class:`BacktrackingLinesearchInfo` about the last search.
  """
  learning_rate: jax.Array
  value: jax.Array
  grad: Optional[base.Updates]
  info: BacktrackingLinesearchInfo


# Kept for users of the older name.
BacktrackingLineSearchState = ScaleByBacktrackingLinesearchState


class _BacktrackingCarry(NamedTuple):
  count: jax.Array
  stepsize: jax.Array
  value: jax.Array
  decrease_error: jax.Array
  accepted: jax.Array


def scale_by_backtracking_linesearch(
    max_backtracking_steps: int,
    slope_rtol: float = 0.0001,
    decrease_factor: float = 0.8,
    increase_factor: float = 1.5,
    max_learning_rate: float = 1.0,
    atol: float = 0.0,
    rtol: float = 0.0,
    store_grad: bool = False,
    verbose: bool = False,
) -> base.GradientTransformationExtraArgs:
  r"""Scales the updates by a step size satisfying the Armijo condition.

  Starting from :math:`\eta = \min(\gamma \eta_{\text{prev}},
  \eta_{\max})`, with :math:`\eta_{\text{prev}}` the step size of the
  previous step (1 at the first one), the step size is multiplied by
  :math:`\beta` (``decrease_factor``) until the sufficient decrease
  condition

  .. math::

    f(w + \eta u) \leq (1 + \epsilon_r) f(w) + c \, \eta \,
    \langle u, \nabla f(w) \rangle + \epsilon_a

  holds (:math:`c` is ``slope_rtol``, :math:`\epsilon_r, \epsilon_a` are
  ``rtol`` and ``atol``), or until ``max_backtracking_steps`` reductions were
  tried; the updates become :math:`\eta u`. When no step size is found, the
  last one tried is used (an unsafe step).

  The update needs the extra keyword arguments ``value`` (:math:`f(w)`),
  ``grad`` (:math:`\nabla f(w)`) and ``value_fn`` (:math:`f`, called as
  ``value_fn(params, **kwargs)`` with the extra arguments that name its
  parameters). The value at the new parameters is kept in the state (and
  the gradient with ``store_grad=True``), for
  :func:`value_and_grad_from_state`.

  Examples:
    >>> import jax
    >>> import jax.numpy as jnp
    >>> from optax._src import linesearch
    >>> def f(x):
    ...   return jnp.sum((x - 1.0) ** 2)
    >>> tx = linesearch.scale_by_backtracking_linesearch(
    ...     max_backtracking_steps=15)
    >>> params = jnp.array([3.0, -2.0])
    >>> state = tx.init(params)
    >>> value, grad = jax.value_and_grad(f)(params)
    >>> updates, state = tx.update(
    ...     -grad, state, params, value=value, grad=grad, value_fn=f)
    >>> updates, state.learning_rate  # The step size 1 is reduced once.
    (Array([-3.2,  4.8], dtype=float32), Array(0.8, dtype=float32))

  Args:
    max_backtracking_steps: the largest number of reductions of the step
      size (the objective is computed at most one more time).
    slope_rtol: the fraction :math:`c` of the decrease predicted by the
      slope that must be achieved.
    decrease_factor: the factor :math:`\beta \in (0, 1)` reducing the step
      size.
    increase_factor: the factor :math:`\gamma` applied to the previous step
      size to get the first one tried.
    max_learning_rate: the largest step size tried.
    atol: absolute tolerance :math:`\epsilon_a` on the decrease condition.
    rtol: relative tolerance :math:`\epsilon_r` on the decrease condition.
    store_grad: whether to compute and keep the gradient at the new
      parameters (then :func:`value_and_grad_from_state` can reuse it).
    verbose: whether to print a message when the search fails.

  Returns:
    A :class:`optax.GradientTransformationExtraArgs` whose state is a
    :class:`ScaleByBacktrackingLinesearchState`.

  Raises:
    ValueError: for a negative ``max_backtracking_steps``, or numbers out of
      range for the other arguments.

  References:
    Armijo, `Minimization of functions having Lipschitz continuous first
    partial derivatives <https://doi.org/10.2140/pjm.1966.16.1>`_, 1966.

    Nocedal and Wright, `Numerical Optimization
    <https://doi.org/10.1007/978-0-387-40065-5>`_, 2006 (algorithm 3.1).

  .. seealso:: :func:`scale_by_zoom_linesearch`,
    :func:`value_and_grad_from_state`.
  """
  fn = 'scale_by_backtracking_linesearch'
  # A step count may be a float, or an array inside inject_hyperparams: only
  # its sign is checked.
  validation.check_non_negative(
      fn, 'max_backtracking_steps', max_backtracking_steps)
  validation.check_non_negative(fn, 'slope_rtol', slope_rtol)
  validation.check_in_interval(fn, 'decrease_factor', decrease_factor, 0, 1,
                               include_low=False, include_high=False)
  validation.check_positive(fn, 'increase_factor', increase_factor)
  validation.check_positive(fn, 'max_learning_rate', max_learning_rate)
  validation.check_non_negative(fn, 'atol', atol)
  validation.check_non_negative(fn, 'rtol', rtol)
  validation.check_scalars_or_schedules(
      fn, max_backtracking_steps=max_backtracking_steps, slope_rtol=slope_rtol,
      decrease_factor=decrease_factor, increase_factor=increase_factor,
      atol=atol, rtol=rtol)

  def init_fn(params: base.Params) -> ScaleByBacktrackingLinesearchState:
    grad = otu.tree_zeros_like(params) if store_grad else None
    return _first_state(ScaleByBacktrackingLinesearchState, grad)

  def search(updates, state, params, value, grad, value_fn, fn_kwargs):
    dtype = _scalar_dtype()
    c = hyperparameters.as_hyperparameter(slope_rtol)
    beta = hyperparameters.as_hyperparameter(decrease_factor)
    gamma = hyperparameters.as_hyperparameter(increase_factor)
    eta_max = hyperparameters.as_hyperparameter(max_learning_rate)
    a_tol = hyperparameters.as_hyperparameter(atol)
    r_tol = hyperparameters.as_hyperparameter(rtol)

    value_init = _as_scalar(value, dtype)
    grad_init = otu.tree_cast_like(grad, state.grad) if store_grad else None
    slope_init = _tree_math.real_vdot(updates, grad, dtype)
    guess = jnp.minimum(gamma * state.learning_rate.astype(dtype), eta_max)
    # The target of the decrease condition, up to the term of the slope.
    target = value_init + r_tol * value_init

    def moved(stepsize):
      return _moved(params, _scaled(updates, stepsize))

    def cond_fn(carry: _BacktrackingCarry) -> jax.Array:
      return (~carry.accepted) & (carry.count <= max_backtracking_steps)

    def body_fn(carry: _BacktrackingCarry) -> _BacktrackingCarry:
      stepsize = jnp.where(carry.count == 0, guess, beta * carry.stepsize)
      # Only the value is needed to test a step size: the gradient is
      # computed once, at the accepted one, below.
      new_value = _as_scalar(value_fn(moved(stepsize), **fn_kwargs), dtype)
      error = jnp.maximum(new_value - target - c * stepsize * slope_init, 0.0)
      # A NaN value fails the condition.
      error = jnp.where(jnp.isnan(error), jnp.inf, error)
      return _BacktrackingCarry(
          count=numerics.safe_increment(carry.count),
          stepsize=stepsize,
          value=new_value,
          decrease_error=error,
          accepted=error <= a_tol)

    carry = _BacktrackingCarry(
        count=jnp.zeros([], jnp.int32),
        stepsize=jnp.zeros([], dtype),
        value=value_init,
        decrease_error=jnp.full([], jnp.inf, dtype),
        accepted=jnp.zeros([], bool))
    carry = jax.lax.while_loop(cond_fn, body_fn, carry)

    # Where even the last value is not finite, no step is made.
    stuck = ~carry.accepted & ~jnp.isfinite(carry.value)
    stepsize = jnp.where(stuck, jnp.zeros([], dtype), carry.stepsize)
    new_value = jnp.where(stuck, value_init, carry.value)
    if store_grad:
      # The gradient at the last step size tried, computed once.
      last_grad = jax.grad(value_fn)(moved(carry.stepsize), **fn_kwargs)
      new_grad = jax.tree.map(
          lambda g0, g: jnp.where(stuck, g0, g), grad_init,
          otu.tree_cast_like(last_grad, state.grad))
    else:
      new_grad = None

    if verbose:

      def message(**v):
        lines = [
            'Backtracking linesearch failed to find a stepsize ensuring'
            ' sufficient decrease.',
            f'Value at current params: {v["value"]}',
            f'Slope along update direction: {v["slope"]}',
            f'Stepsize: {v["stepsize"]}',
            f'Decrease Error: {v["error"]}',
        ]
        if v['stuck']:
          lines.append('Using a stepsize of 0 to avoid infinite or nan'
                       ' values.')
        return '\n'.join(lines)

      _report('scale_by_backtracking_linesearch', ~carry.accepted, message,
              value=value_init, slope=slope_init, stepsize=carry.stepsize,
              error=carry.decrease_error, stuck=stuck)

    return _scaled(updates, stepsize), _next_state(
        state, carry, stuck, stepsize, new_value, new_grad)

  return _line_search(fn, init_fn, search)


# ------------------------------------------------------------------------------
# Zoom line search.
# ------------------------------------------------------------------------------


class ZoomLinesearchInfo(NamedTuple):
  """Information about the last zoom line search.

  Attributes:
    num_linesearch_steps: the number of values (and gradients) of the
      objective computed by the search (int32 scalar).
    decrease_error: how much the last step size tried (the returned one
      when the search succeeds) misses the sufficient decrease condition by
      (0 when it is met, inf where the value or slope is NaN), a scalar of
      the hyperparameter dtype.
    curvature_error: how much the last step size tried misses the curvature
      condition by (0 when it is met), same dtype.
  """
  num_linesearch_steps: jax.Array
  decrease_error: jax.Array
  curvature_error: jax.Array


class ScaleByZoomLinesearchState(NamedTuple):
  """State of :func:`scale_by_zoom_linesearch`.

  Attributes:
    learning_rate: the step size taken at the last step (a scalar in the
      hyperparameter dtype: float32, or float64 under x64), the next
      search's first guess when ``initial_guess_strategy='keep'``; a search
      that found no finite value makes no step and leaves it as it was.
    value: the objective's value after the last step, in that dtype;
      ``inf`` until the first step.
    grad: the objective's gradient after the last step (zeros until the
      first step), structured and typed as the params.
    info: a :class:`ZoomLinesearchInfo` about the last search.
  """
  learning_rate: jax.Array
  value: jax.Array
  grad: base.Updates
  info: ZoomLinesearchInfo


class _ZoomCarry(NamedTuple):
  """The loop state of the zoom line search (all scalars but the grads).

  ``low`` is the best step size found so far that satisfies the decrease
  condition (0 before one is found), ``high`` the other end of the interval
  searched in the zoom phase and ``ref`` the previous end point replaced, used
  as third point of the cubic interpolation. ``low`` (with ``value_low`` and
  ``grad_low``) is also the step size returned if the search fails (Nocedal
  and Wright's :math:`\alpha_{lo}`, the lowest value among the trials with
  sufficient decrease), both while enlarging the step size and in the zoom
  phase.
  """
  count: jax.Array
  stepsize: jax.Array
  value: jax.Array
  slope: jax.Array
  grad: base.Updates
  decrease_error: jax.Array
  curvature_error: jax.Array
  done: jax.Array
  failed: jax.Array
  interval_found: jax.Array
  use_cubic: jax.Array
  low: jax.Array
  value_low: jax.Array
  slope_low: jax.Array
  high: jax.Array
  value_high: jax.Array
  ref: jax.Array
  value_ref: jax.Array
  grad_low: base.Updates


def _nonzero(x: jax.Array) -> tuple[jax.Array, jax.Array]:
  """Returns ``(x != 0, x or 1)``, to divide by ``x`` without warnings."""
  ok = x != 0
  return ok, jnp.where(ok, x, jnp.ones_like(x))


def _quadratic_minimizer(a, value_a, slope_a, b, value_b) -> jax.Array:
  """Stationary point of the quadratic with value and slope at a, value at b.

  NaN when the quadratic is degenerate.
  """
  db = b - a
  ok_db, db_safe = _nonzero(db)
  curv = (value_b - value_a - slope_a * db) / (db_safe * db_safe)
  ok_curv, curv_safe = _nonzero(curv)
  point = a - slope_a / (2.0 * curv_safe)
  ok = ok_db & ok_curv & jnp.isfinite(point)
  return jnp.where(ok, point, jnp.nan)


def _cubic_minimizer(a, value_a, slope_a, b, value_b, c, value_c) -> jax.Array:
  r"""Local minimizer of the cubic through three points, slope given at a.

  The cubic is :math:`p(x) = A (x - a)^3 + B (x - a)^2 + s_a (x - a) +
  f_a`; its local minimizer is :math:`a + (-B + \sqrt{B^2 - 3 A s_a}) /
  (3 A)`. NaN when the points are degenerate or there is no minimizer.
  """
  db = b - a
  dc = c - a
  denom = (db * dc) ** 2 * (db - dc)
  ok_denom, denom_safe = _nonzero(denom)
  rest_b = value_b - value_a - slope_a * db
  rest_c = value_c - value_a - slope_a * dc
  coef_a = (dc ** 2 * rest_b - db ** 2 * rest_c) / denom_safe
  coef_b = (-(dc ** 3) * rest_b + db ** 3 * rest_c) / denom_safe
  radical = coef_b * coef_b - 3.0 * coef_a * slope_a
  ok_radical = radical >= 0
  ok_a, coef_a_safe = _nonzero(coef_a)
  root = jnp.sqrt(jnp.where(ok_radical, radical, jnp.zeros_like(radical)))
  point = a + (-coef_b + root) / (3.0 * coef_a_safe)
  ok = ok_denom & ok_radical & ok_a & jnp.isfinite(point)
  return jnp.where(ok, point, jnp.nan)


def _zoom_trial(carry: _ZoomCarry) -> jax.Array:
  """The next step size of the zoom phase (Nocedal and Wright, Alg. 3.6).

  The minimizer of the cubic interpolation if it is well inside the
  interval, else that of the quadratic interpolation if it is, else the
  middle of the interval.
  """
  low, high = carry.low, carry.high
  delta = high - low
  left = jnp.minimum(low, high)
  right = jnp.maximum(low, high)
  length = jnp.abs(delta)
  cubic = _cubic_minimizer(low, carry.value_low, carry.slope_low,
                           high, carry.value_high, carry.ref, carry.value_ref)
  margin = _CUBIC_SAFEGUARD * length
  use_cubic = (carry.use_cubic & (cubic > left + margin)
               & (cubic < right - margin))
  quadratic = _quadratic_minimizer(low, carry.value_low, carry.slope_low,
                                   high, carry.value_high)
  margin = _QUADRATIC_SAFEGUARD * length
  use_quadratic = (quadratic > left + margin) & (quadratic < right - margin)
  middle = low + 0.5 * delta
  return jnp.where(use_cubic, cubic,
                   jnp.where(use_quadratic, quadratic, middle))


def scale_by_zoom_linesearch(
    max_linesearch_steps: int,
    max_learning_rate: Optional[float] = None,
    tol: float = 0.0,
    increase_factor: float = 2.0,
    slope_rtol: float = 0.0001,
    curv_rtol: float = 0.9,
    approx_dec_rtol: Optional[float] = 1e-06,
    stepsize_precision: float = 1e-05,
    initial_guess_strategy: str = 'keep',
    verbose: bool = False,
) -> base.GradientTransformationExtraArgs:
  r"""Scales the updates by a step size satisfying the strong Wolfe conditions.

  With :math:`\varphi(\eta) = f(w + \eta u)` along the direction :math:`u`
  (the incoming updates), the search looks for a step size :math:`\eta`
  with

  .. math::

    \varphi(\eta) \leq \varphi(0) + c_1 \eta \varphi'(0)
    \quad \text{(sufficient decrease)}, \qquad
    |\varphi'(\eta)| \leq c_2 |\varphi'(0)|
    \quad \text{(curvature)},

  where :math:`c_1` is ``slope_rtol`` and :math:`c_2` is ``curv_rtol``. Near
  a minimizer, where values cannot be compared accurately, the sufficient
  decrease may instead be met in the approximate form of Hager and Zhang:
  :math:`\varphi(\eta) \leq \varphi(0) + \epsilon |\varphi(0)|` and
  :math:`\varphi'(\eta) \leq (2 c_1 - 1) \varphi'(0)` (:math:`\epsilon` is
  ``approx_dec_rtol``). A condition counts as met when its error (by how
  much the inequality fails) is at most ``tol``.

  The search follows Nocedal and Wright (algorithms 3.5 and 3.6): from an
  initial guess (the previous step size with ``initial_guess_strategy=
  'keep'``, 1 with ``'one'``, at most ``max_learning_rate``), the step size
  is multiplied by ``increase_factor`` until an interval containing a
  suitable step size is found; the interval is then reduced by minimizing
  cubic or quadratic interpolations of :math:`\varphi` (safeguarded by
  bisection) until the conditions hold. Each trial computes the value and
  the gradient of :math:`f`; at most ``max_linesearch_steps`` trials are
  made (at least one). If the conditions are not met in time, or the
  interval gets shorter than ``stepsize_precision``, the best step size
  satisfying the sufficient decrease is returned; if there is none, the last
  step size tried (an unsafe step).

  ``update`` takes three more keyword arguments: ``value`` and ``grad``,
  the objective's value :math:`f(w)` and gradient :math:`\nabla f(w)` at
  the current parameters, and ``value_fn``, the objective :math:`f` itself.
  Any other keyword argument of ``update`` goes to ``value_fn`` by name
  (``value_fn(params, **kwargs)``), so ``value_fn`` must have a parameter of
  that name. The state keeps the value and the gradient at the new
  parameters, which :func:`value_and_grad_from_state` reads.

  Examples:
    >>> import jax
    >>> import jax.numpy as jnp
    >>> from optax._src import linesearch
    >>> def f(x, target):
    ...   return jnp.sum((x - target) ** 2)
    >>> tx = linesearch.scale_by_zoom_linesearch(max_linesearch_steps=15)
    >>> w, target = jnp.array([3.0, -2.0]), jnp.array([1.0, 1.0])
    >>> value, grad = jax.value_and_grad(f)(w, target)
    >>> updates, state = tx.update(-grad, tx.init(w), w, value=value,
    ...                            grad=grad, value_fn=f, target=target)
    >>> updates, state.learning_rate
    (Array([-2.,  3.], dtype=float32), Array(0.5, dtype=float32))

  Args:
    max_linesearch_steps: the largest number of trials.
    max_learning_rate: the largest step size tried, or None for no bound.
    tol: tolerance on the errors of both conditions.
    increase_factor: the factor enlarging the step size while no interval
      containing a suitable step size is known.
    slope_rtol: the constant :math:`c_1` of the sufficient decrease.
    curv_rtol: the constant :math:`c_2` of the curvature condition.
    approx_dec_rtol: the relative tolerance :math:`\epsilon` on values of
      the approximate sufficient decrease, or None to use only the exact
      one.
    stepsize_precision: the length below which the interval is not reduced
      further when a step size satisfying the sufficient decrease is known.
    initial_guess_strategy: ``'keep'`` to start from the previous step size,
      ``'one'`` to start from 1.
    verbose: whether to print a message when the search fails.

  Returns:
    A :class:`optax.GradientTransformationExtraArgs` whose state is a
    :class:`ScaleByZoomLinesearchState`.

  Raises:
    ValueError: for an unknown ``initial_guess_strategy``, a negative
      ``max_linesearch_steps`` or numbers out of range for the other
      arguments.

  References:
    Nocedal and Wright, `Numerical Optimization
    <https://doi.org/10.1007/978-0-387-40065-5>`_, 2006 (algorithms 3.5
    and 3.6, section 3.5).

    Hager and Zhang, `A new conjugate gradient method with guaranteed
    descent and an efficient line search
    <https://doi.org/10.1137/030601880>`_, 2005.

  .. seealso:: :func:`scale_by_backtracking_linesearch`,
    :func:`value_and_grad_from_state`, :func:`optax.lbfgs`.
  """
  fn = 'scale_by_zoom_linesearch'
  validation.check_non_negative(
      fn, 'max_linesearch_steps', max_linesearch_steps)
  if max_learning_rate is not None:
    validation.check_positive(fn, 'max_learning_rate', max_learning_rate)
  validation.check_non_negative(fn, 'tol', tol)
  validation.check_positive(fn, 'increase_factor', increase_factor)
  validation.check_non_negative(fn, 'slope_rtol', slope_rtol)
  validation.check_non_negative(fn, 'curv_rtol', curv_rtol)
  validation.check_non_negative(fn, 'stepsize_precision', stepsize_precision)
  validation.check_scalars_or_schedules(
      fn, max_linesearch_steps=max_linesearch_steps, tol=tol,
      increase_factor=increase_factor, slope_rtol=slope_rtol,
      curv_rtol=curv_rtol, stepsize_precision=stepsize_precision)
  validation.check_scalar_or_schedule(fn, 'approx_dec_rtol', approx_dec_rtol,
                                      allow_none=True)
  if initial_guess_strategy not in _STRATEGIES:
    raise ValueError(
        f'{fn}: initial_guess_strategy must be one of {_STRATEGIES}, got '
        f'{initial_guess_strategy!r}')

  def init_fn(params: base.Params) -> ScaleByZoomLinesearchState:
    return _first_state(ScaleByZoomLinesearchState,
                        otu.tree_zeros_like(params))

  def search(updates, state, params, value, grad, value_fn, fn_kwargs):
    dtype = _scalar_dtype()
    c1 = hyperparameters.as_hyperparameter(slope_rtol)
    c2 = hyperparameters.as_hyperparameter(curv_rtol)
    eps = _optional_hyperparameter(approx_dec_rtol)
    tolerance = hyperparameters.as_hyperparameter(tol)
    gamma = hyperparameters.as_hyperparameter(increase_factor)
    precision = hyperparameters.as_hyperparameter(stepsize_precision)
    eta_max = _optional_hyperparameter(max_learning_rate)

    def capped(stepsize):
      return stepsize if eta_max is None else jnp.minimum(stepsize, eta_max)

    value_init = _as_scalar(value, dtype)
    grad_init = otu.tree_cast_like(grad, state.grad)
    slope_init = _tree_math.real_vdot(updates, grad_init, dtype)
    if initial_guess_strategy == 'one':
      guess = capped(jnp.ones([], dtype))
    else:
      guess = capped(state.learning_rate.astype(dtype))

    def evaluate(stepsize):
      new_params = _moved(params, _scaled(updates, stepsize))
      new_value, new_grad = jax.value_and_grad(value_fn)(
          new_params, **fn_kwargs)
      new_grad = otu.tree_cast_like(new_grad, state.grad)
      return (_as_scalar(new_value, dtype), new_grad,
              _tree_math.real_vdot(updates, new_grad, dtype))

    def errors(stepsize, new_value, new_slope):
      # A point where the value or the slope is NaN fails both conditions
      # (errors of inf).
      exact = new_value - value_init - c1 * stepsize * slope_init
      if eps is None:
        decrease = jnp.maximum(exact, 0.0)
      else:
        approx = new_slope - (2.0 * c1 - 1.0) * slope_init
        approx_ok = new_value <= value_init + eps * jnp.abs(value_init)
        decrease = jnp.maximum(
            jnp.where(approx_ok, jnp.minimum(exact, approx), exact), 0.0)
      curvature = jnp.maximum(
          jnp.abs(new_slope) - c2 * jnp.abs(slope_init), 0.0)
      slope_nan = jnp.isnan(new_slope)
      decrease = jnp.where(slope_nan | jnp.isnan(decrease), jnp.inf, decrease)
      curvature = jnp.where(slope_nan | jnp.isnan(curvature), jnp.inf,
                            curvature)
      return decrease, curvature

    def cond_fn(carry: _ZoomCarry) -> jax.Array:
      return ((carry.count < jnp.maximum(max_linesearch_steps, 1))
              & ~carry.done & ~carry.failed)

    def body_fn(carry: _ZoomCarry) -> _ZoomCarry:
      first = carry.count == 0
      # The interval is already too short: this trial is the last one if a
      # safe step size is known after it.
      short = (carry.interval_found
               & (jnp.abs(carry.high - carry.low) <= precision))
      # Trial step size: enlarge while no interval is known, else zoom.
      enlarged = jnp.where(first, guess, capped(gamma * carry.stepsize))
      stepsize = jnp.where(carry.interval_found, _zoom_trial(carry), enlarged)
      new_value, new_grad, new_slope = evaluate(stepsize)
      dec_err, curv_err = errors(stepsize, new_value, new_slope)
      decrease_ok = dec_err <= tolerance
      curvature_ok = curv_err <= tolerance

      # A point meeting both conditions ends the search. Otherwise, in the
      # bracketing phase (Algorithm 3.5) the new point is too high, lies past
      # a minimizer, or the search goes on; in the zoom phase (Algorithm
      # 3.6) it replaces one end of the interval.
      done = decrease_ok & curvature_ok
      too_high = ~decrease_ok | (
          (carry.interval_found | ~first) & (new_value >= carry.value_low))
      too_high &= ~done
      new_low = ~too_high
      # The slope at the new low end points towards the old low end: the old
      # low end becomes the high end.
      flip = jnp.where(carry.interval_found,
                       new_slope * (carry.high - carry.low) >= 0,
                       new_slope >= 0)
      flip = new_low & ~curvature_ok & flip
      interval_found = carry.interval_found | too_high | flip

      high = jnp.where(too_high, stepsize,
                       jnp.where(flip, carry.low, carry.high))
      value_high = jnp.where(too_high, new_value,
                             jnp.where(flip, carry.value_low,
                                       carry.value_high))
      # The end point that is replaced becomes the reference of the cubic.
      replaced_high = carry.interval_found & (too_high | flip)
      replaced_low = carry.interval_found & new_low & ~flip
      ref = jnp.where(replaced_high, carry.high,
                      jnp.where(replaced_low, carry.low, carry.ref))
      value_ref = jnp.where(
          replaced_high, carry.value_high,
          jnp.where(replaced_low, carry.value_low, carry.value_ref))

      def pick_low(new, old):
        return jnp.where(new_low, new, old)

      # The new point replaces the low end when it has sufficient decrease
      # and a lower value (or meets both conditions): the low end is the best
      # step size known, returned if the search ends without success, also
      # while enlarging the step size (a larger step with sufficient decrease
      # but a higher value does not replace it).
      low = pick_low(stepsize, carry.low)

      # Stop when no interval is found below the largest step size, or when
      # the interval was too short and a safe step size is known.
      no_interval = ~interval_found & ~done
      if eta_max is not None:
        no_interval &= stepsize >= eta_max
      else:
        no_interval &= False
      too_short = short & (low > 0)
      return _ZoomCarry(
          count=numerics.safe_increment(carry.count),
          stepsize=stepsize,
          value=new_value,
          slope=new_slope,
          grad=new_grad,
          decrease_error=dec_err,
          curvature_error=curv_err,
          done=done,
          failed=~done & (no_interval | too_short),
          interval_found=interval_found,
          use_cubic=carry.interval_found,
          low=low,
          value_low=pick_low(new_value, carry.value_low),
          slope_low=pick_low(new_slope, carry.slope_low),
          high=high,
          value_high=value_high,
          ref=ref,
          value_ref=value_ref,
          grad_low=jax.tree.map(pick_low, new_grad, carry.grad_low))

    zero = jnp.zeros([], dtype)
    inf = jnp.full([], jnp.inf, dtype)
    false = jnp.zeros([], bool)
    carry = _ZoomCarry(
        count=jnp.zeros([], jnp.int32),
        stepsize=zero,
        value=value_init,
        slope=slope_init,
        grad=grad_init,
        decrease_error=inf,
        curvature_error=inf,
        done=false,
        failed=false,
        interval_found=false,
        use_cubic=false,
        low=zero,
        value_low=value_init,
        slope_low=slope_init,
        high=zero,
        value_high=value_init,
        ref=zero,
        value_ref=value_init,
        grad_low=grad_init)
    carry = jax.lax.while_loop(cond_fn, body_fn, carry)

    # The accepted step size, else the best one with sufficient decrease,
    # else the last one tried, unless the value or slope is not finite
    # there: then no step at all.
    safe = carry.low > 0
    use_safe = carry.done | safe
    stuck = ~use_safe & ~(jnp.isfinite(carry.value)
                          & jnp.isfinite(carry.slope))

    def pick(at_safe, last, start):
      return jnp.where(use_safe, at_safe, jnp.where(stuck, start, last))

    stepsize = pick(carry.low, carry.stepsize, jnp.zeros([], dtype))
    new_value = pick(carry.value_low, carry.value, value_init)
    new_grad = jax.tree.map(pick, carry.grad_low, carry.grad, grad_init)

    if verbose:
      interval_length = jnp.abs(carry.high - carry.low)
      too_short = carry.interval_found & (interval_length <= precision)
      no_interval = ~carry.interval_found
      if eta_max is not None:
        no_interval &= carry.stepsize >= eta_max
      else:
        no_interval &= False

      def message(**v):
        lines = [
            f'Value at current params: {v["value"]}',
            f'Slope along update direction: {v["slope"]}',
            f'Stepsize reached: {v["stepsize"]}',
            f'Decrease Error: {v["decrease_error"]}',
            f'Curvature Error: {v["curvature_error"]}',
        ]
        if v['too_short']:
          lines.append(f'{FLAG_INTERVAL_TOO_SMALL} Interval length: '
                       f'{v["interval_length"]}.')
        if v['no_interval']:
          lines.append(FLAG_INTERVAL_NOT_FOUND)
        if v['safe']:
          lines.append(f'{FLAG_CURVATURE_COND_NOT_SATISFIED} Stepsize '
                       f'ensuring sufficient decrease: {v["low"]}.')
        else:
          lines.append(FLAG_NO_STEPSIZE_FOUND)
          if not v['slope'] < 0:
            lines.append(f'{FLAG_NOT_A_DESCENT_DIRECTION}The slope '
                         f'(={v["slope"]}) at stepsize=0 should be negative.')
          if v['stuck']:
            lines.append(
                'The value or the slope is not finite at every step size'
                ' tried: no step is made, the optimizer is stuck.')
          else:
            lines.append(
                'Making an unsafe step, not decreasing enough the objective.'
                ' Convergence of the solver is compromised as it does not'
                ' reduce values.')
        return '\n'.join(lines)

      _report('scale_by_zoom_linesearch', ~carry.done, message,
              value=value_init, slope=slope_init, stepsize=carry.stepsize,
              decrease_error=carry.decrease_error,
              curvature_error=carry.curvature_error, too_short=too_short,
              interval_length=interval_length, no_interval=no_interval,
              safe=safe, low=carry.low, stuck=stuck)

    return _scaled(updates, stepsize), _next_state(
        state, carry, stuck, stepsize, new_value, new_grad)

  return _line_search(fn, init_fn, search)


# ------------------------------------------------------------------------------
# Reusing the value and gradient kept by a line search.
# ------------------------------------------------------------------------------


def _is_field(path, value) -> bool:
  del value
  return bool(path) and isinstance(path[-1], otu.NamedTupleKey)


def value_and_grad_from_state(
    value_fn: Callable[..., Union[jax.Array, float]],
) -> Callable[..., tuple[jax.Array, base.Updates]]:
  r"""Returns a ``value_and_grad`` that reuses what a line search computed.

  The line searches of this module compute the value and gradient of the
  objective at the parameters they return and keep them in their state (in
  fields ``value`` and ``grad``). The returned function
  ``value_and_grad(params, *fn_args, state, **fn_kwargs)`` reads them from
  the optimizer state ``state`` (anywhere in it, e.g. inside a chain) and
  returns them, unless the stored value is not finite (before the first
  step), in which case it computes ``jax.value_and_grad(value_fn)(params,
  *fn_args, **fn_kwargs)``. The stored values are those of the parameters
  obtained by applying the last updates, so ``params`` should be them.

  Examples:
    >>> import jax.numpy as jnp
    >>> from optax._src import linesearch
    >>> def f(x):
    ...   return jnp.sum(x ** 2)
    >>> tx = linesearch.scale_by_zoom_linesearch(max_linesearch_steps=10)
    >>> params = jnp.array([1.0, 2.0])
    >>> state = tx.init(params)
    >>> value_and_grad = linesearch.value_and_grad_from_state(f)
    >>> value, grad = value_and_grad(params, state=state)  # Computed.
    >>> updates, state = tx.update(
    ...     -grad, state, params, value=value, grad=grad, value_fn=f)
    >>> value_and_grad(params + updates, state=state)  # Read from the state.
    (Array(0., dtype=float32), Array([0., 0.], dtype=float32))

  Args:
    value_fn: the objective, called as ``value_fn(params, *fn_args,
      **fn_kwargs)``.

  Returns:
    A function ``(params, *fn_args, state, **fn_kwargs) -> (value, grad)``.

  Raises:
    ValueError: (when called) if ``state`` has no ``value`` or no ``grad``
      (e.g. a backtracking line search without ``store_grad=True``).
  """

  def _value_and_grad(params, *fn_args, state, **fn_kwargs):
    value = otu.tree_get(state, 'value', filtering=_is_field)
    grad = otu.tree_get(state, 'grad', filtering=_is_field)
    if value is None or grad is None:
      raise ValueError(
          'value_and_grad_from_state: no value or grad found in the state. '
          'Use an optimizer that stores them, such as '
          'scale_by_zoom_linesearch or scale_by_backtracking_linesearch('
          '..., store_grad=True).')

    def compute():
      new_value, new_grad = jax.value_and_grad(value_fn)(
          params, *fn_args, **fn_kwargs)
      return (jnp.asarray(new_value).astype(value.dtype),
              otu.tree_cast_like(new_grad, grad))

    return jax.lax.cond(jnp.isfinite(value), lambda: (value, grad), compute)

  return _value_and_grad
