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
"""Test-case factories shared by the test modules.

For the tests only (see ``optax._src.testing``). Each factory returns a
``parameterized.TestCase`` subclass that a test module subclasses (the base
itself is not collected): :func:`prepared_inputs_test_case` puts each
transformation alone through the inputs a chain gives it,
:func:`vector_hyperparameters_test_case` and
:func:`vector_arguments_test_case` check that a vector where a scalar is
expected is a TypeError when the transformation is built.
"""

from collections.abc import Callable, Mapping, Sequence
import inspect
import re
from typing import Any, Optional, Union

from absl.testing import parameterized
import jax
import jax.numpy as jnp
import numpy as np

from optax._src import base
from optax._src import test_utils

# test name -> (factory of the transformation, extra keyword arguments of
# ``update`` or a function of the gradients and the params giving them); or
# (test name, factory) pairs, without extra arguments.
Transforms = Union[
    Mapping[str, tuple[Callable[[], base.GradientTransformation], Any]],
    Sequence[tuple[str, Callable[[], base.GradientTransformation]]],
]


def _as_table(
    transforms: Transforms,
) -> dict[str, tuple[Callable[[], base.GradientTransformation], Any]]:
  if isinstance(transforms, Mapping):
    return dict(transforms)
  return {name: (factory, {}) for name, factory in transforms}


def update_steps(tx: base.GradientTransformation, grads: Any, params: Any,
                 use_jit: bool, count: int = 2, **extra_args: Any
                 ) -> list[Any]:
  """The updates of ``count`` steps of ``tx`` from ``tx.init(params)``.

  Args:
    tx: the transformation.
    grads: the gradients of every step.
    params: the params, given to ``init`` and to every ``update``.
    use_jit: whether ``update`` is jitted.
    count: the number of steps.
    **extra_args: extra keyword arguments of ``update``.

  Returns:
    The updates of each step.
  """
  update = jax.jit(tx.update) if use_jit else tx.update
  state = tx.init(params)
  out = []
  for _ in range(count):
    updates, state = update(grads, state, params, **extra_args)
    out.append(updates)
  return out


def transformation_steps(
    transforms: Transforms, name: str, grads: Any, params: Any,
    use_jit: bool, count: int = 2,
) -> list[Any]:
  """The updates of ``count`` steps of ``transforms[name]`` on fixed inputs.

  Args:
    transforms: as for :func:`prepared_inputs_test_case`; the extra
      arguments may be a function of the gradients and the params, called
      inside the (jitted) step (a line search's ``value`` and
      ``value_fn``).
    name: the entry to run.
    grads: the gradients, as for :func:`update_steps`.
    params: the params, as for :func:`update_steps`.
    use_jit: whether to jit, as for :func:`update_steps`.
    count: the number of steps, as for :func:`update_steps`.

  Returns:
    The updates of each step.
  """
  factory, extra = _as_table(transforms)[name]
  tx = factory()
  if not callable(extra):
    return update_steps(tx, grads, params, use_jit, count, **extra)

  def update_fn(g, state, p):
    return tx.update(g, state, p, **extra(g, p))

  return update_steps(base.GradientTransformation(tx.init, update_fn), grads,
                      params, use_jit, count)


def _params() -> dict[str, jax.Array]:
  return {'w': jnp.asarray([[0.5, -1.0, 2.0], [1.5, 0.25, -0.75]]),
          'b': jnp.asarray([1.0, -2.0, 3.0])}


def _int_grads() -> dict[str, jax.Array]:
  return {'w': jnp.asarray([[1, -2, 3], [0, 4, -1]], jnp.int32),
          'b': jnp.asarray([2, 0, -3], jnp.int32)}


def _named(names: Sequence[str]) -> list[dict[str, Any]]:
  """Each name eagerly and jitted, for ``named_parameters``."""
  return [dict(testcase_name=(f'{re.sub(r"[^0-9A-Za-z_]", "_", name)}_'
                              f'{"jit" if use_jit else "eager"}'),
               name=name, use_jit=use_jit)
          for name in names for use_jit in (False, True)]


def _assert_same_updates(got: list[Any], want: list[Any], params: Any,
                         jit_rtol: float, use_jit: bool) -> None:
  """Each step's updates have the params' dtypes and equal ``want``'s."""
  for step_got, step_want in zip(got, want):
    test_utils.assert_trees_all_equal_dtypes(step_got, params)
    if use_jit and jit_rtol:
      test_utils.assert_trees_all_close(step_got, step_want, rtol=jit_rtol)
    else:
      test_utils.assert_trees_all_equal(step_got, step_want)


def prepared_inputs_test_case(
    transforms: Transforms,
    *,
    float0_names: Optional[Sequence[str]] = None,
    shapes_checked: bool = True,
    integer_also: Transforms = (),
    integer_steps: int = 2,
    jit_rtol: float = 0.0,
) -> type[parameterized.TestCase]:
  """A test case: each transformation alone takes inputs as chain gives them.

  For every entry, eager and jitted: int32 gradients give the float32
  updates of the same float32 gradients; float16 gradients on float32 params
  give the updates of their float32 values; a ``float0`` gradient (of an
  int32 param) gives zero updates there and leaves the float leaf's updates
  those of a zero float32 gradient there; Python-float gradient and param
  leaves give the updates of float32 array leaves; and a (1, 3) gradient
  for a (4, 3) param is a ValueError beginning with the entry's name and
  naming the key path, or, for a wrapper that leaves shapes to its inner
  transformation, per-example gradients (a leading batch axis) come back
  with their shapes. Each test runs two steps (``integer_steps`` for the
  integer one) and the updates of every step must have the params' dtypes.

  Args:
    transforms: test name -> (factory of the transformation, extra keyword
      arguments of ``update`` or a function of the gradients and params
      giving them, see :func:`transformation_steps`), or (test name,
      factory) pairs; the name up to a ``'('`` is the public name that the
      shape error begins with.
    float0_names: the entries of the float0 test (default: all).
    shapes_checked: whether a gradient shaped otherwise than its param is
      an error (False for wrappers such as ``masked``).
    integer_also: more entries (variants), as ``transforms``, for the
      integer-gradient test only.
    integer_steps: the steps of the integer-gradient test.
    jit_rtol: the relative tolerance of the comparisons under jit (0: equal
      bits), for transformations whose two jitted programs XLA fuses
      differently.

  Returns:
    A ``parameterized.TestCase`` subclass with those five tests.
  """
  table = {**_as_table(transforms), **_as_table(integer_also)}
  names = tuple(_as_table(transforms))
  float0 = names if float0_names is None else tuple(float0_names)

  def steps(name, grads, params, use_jit, count=2):
    return transformation_steps(table, name, grads, params, use_jit, count)

  class PreparedInputsCase(parameterized.TestCase):
    """Inputs the transformations take as a chain gives them."""

    @parameterized.named_parameters(
        _named(names + tuple(_as_table(integer_also))))
    def test_integer_gradients_give_float_updates(self, name, use_jit):
      params = _params()
      got = steps(name, _int_grads(), params, use_jit, integer_steps)
      floats = jax.tree.map(lambda g: g.astype(jnp.float32), _int_grads())
      want = steps(name, floats, params, use_jit, integer_steps)
      _assert_same_updates(got, want, params, jit_rtol, use_jit)

    @parameterized.named_parameters(_named(names))
    def test_narrow_float_gradients_give_params_dtype(self, name, use_jit):
      params = _params()
      half = jax.tree.map(lambda g: (g / 4).astype(jnp.float16), _int_grads())
      got = steps(name, half, params, use_jit)
      want = steps(name, jax.tree.map(lambda g: g.astype(jnp.float32), half),
                   params, use_jit)
      _assert_same_updates(got, want, params, jit_rtol, use_jit)

    @parameterized.named_parameters(_named(float0))
    def test_float0_gradients_give_zero_updates(self, name, use_jit):
      params = {'w': _params()['w'], 'i': jnp.asarray([3, -1], jnp.int32)}

      def loss(p):
        return jnp.sum(p['w'] ** 2) + jnp.sum(p['w'] * p['i'][0])

      grads = jax.grad(loss, allow_int=True)(params)
      self.assertEqual(grads['i'].dtype, jax.dtypes.float0)
      got = steps(name, grads, params, use_jit)
      zero_grads = {'w': grads['w'], 'i': jnp.zeros(2, jnp.float32)}
      want = steps(name, zero_grads, params, use_jit)
      for got_step, want_step in zip(got, want):
        np.testing.assert_array_equal(got_step['i'], np.zeros(2))
        self.assertEqual(got_step['w'].dtype, jnp.float32)
        if use_jit and jit_rtol:
          np.testing.assert_allclose(got_step['w'], want_step['w'],
                                     rtol=jit_rtol)
        else:
          np.testing.assert_array_equal(got_step['w'], want_step['w'])

    @parameterized.named_parameters(_named(names))
    def test_python_float_leaves_are_accepted(self, name, use_jit):
      w = _params()['w']
      g = _int_grads()['w'].astype(jnp.float32)
      got = steps(name, {'w': g, 'f': 0.25}, {'w': w, 'f': 1.5}, use_jit)
      want = steps(name, {'w': g, 'f': jnp.asarray(0.25, jnp.float32)},
                   {'w': w, 'f': jnp.asarray(1.5, jnp.float32)}, use_jit)
      for got_step, want_step in zip(got, want):
        self.assertEqual(got_step['f'].dtype, jnp.float32)
        test_utils.assert_trees_all_equal(got_step, want_step)

    if shapes_checked:

      @parameterized.named_parameters(_named(names))
      def test_broadcast_gradient_raises_naming_key_path(self, name,
                                                         use_jit):
        params = {'w': jnp.ones((4, 3)), 'b': jnp.ones(3)}
        grads = {'w': jnp.ones((1, 3)), 'b': jnp.ones(3)}
        label = re.escape(name.split('(')[0])
        with self.assertRaisesRegex(
            ValueError, f'^{label}' r": at \['w'\] the gradient has shape"
            r' \(1, 3\) but the param has shape \(4, 3\)'):
          steps(name, grads, params, use_jit, count=1)

    else:

      @parameterized.named_parameters(_named(names))
      def test_gradient_shapes_are_left_to_the_inner_transformation(
          self, name, use_jit):
        # Per-example gradients (a leading batch axis, as dpsgd takes them)
        # reach the inner transformation as they are.
        params = {'w': jnp.ones((4, 3)), 'b': jnp.ones(3)}
        grads = {'w': jnp.ones((2, 4, 3)), 'b': jnp.ones((2, 3))}
        got = steps(name, grads, params, use_jit, count=1)[0]
        self.assertEqual(got['w'].shape, (2, 4, 3))
        self.assertEqual(got['b'].shape, (2, 3))

  return PreparedInputsCase


def vector_hyperparameters_test_case(
    transformations: Sequence[tuple[str, Callable[..., Any]]],
) -> type[parameterized.TestCase]:
  """A test case: a vector float hyperparameter is a TypeError when built.

  Every argument of each factory whose default is a Python float is given a
  vector of two 0.5s, which must raise TypeError naming the factory and the
  argument, and a 0-d array (as ``inject_hyperparams`` gives), which must
  be accepted.

  Args:
    transformations: (name in the errors, factory) pairs.

  Returns:
    A ``parameterized.TestCase`` subclass with that test.
  """
  cases = [dict(testcase_name=f'{name}_{arg}', name=name, factory=factory,
                arg=arg)
           for name, factory in transformations
           for arg, p in inspect.signature(factory).parameters.items()
           if isinstance(p.default, float)]

  class VectorHyperparametersCase(parameterized.TestCase):
    """A vector hyperparameter is a TypeError naming it when built."""

    @parameterized.named_parameters(cases)
    def test_vector_hyperparameter_type_error(self, name, factory, arg):
      with self.assertRaisesRegex(
          TypeError, rf'^{name}: {arg} must be a scalar number .* got an'
          r' array of shape \(2,\)'):
        factory(**{arg: jnp.full(2, 0.5)})
      # A 0-d array, as inject_hyperparams gives, is a scalar.
      factory(**{arg: jnp.asarray(0.5)})

  return VectorHyperparametersCase


def vector_arguments_test_case(
    cases: Sequence[tuple[Callable[..., Any], str, dict[str, Any]]],
) -> type[parameterized.TestCase]:
  """A test case: each listed argument given a vector is a TypeError.

  Args:
    cases: (factory, argument, other keyword arguments of the factory); the
      factory called with the argument set to a vector of two 0.5s must
      raise TypeError naming the factory (its ``__name__``) and the
      argument.

  Returns:
    A ``parameterized.TestCase`` subclass with that test.
  """

  class VectorArgumentsCase(parameterized.TestCase):
    """A vector where a scalar is expected is a TypeError when built."""

    @parameterized.parameters(*cases)
    def test_vector_raises_type_error_when_built(self, factory, arg, kwargs):
      with self.assertRaisesRegex(
          TypeError, f'{factory.__name__}: {arg} must be a scalar number'
          r'.*got an array of shape \(2,\)'):
        factory(**kwargs, **{arg: jnp.asarray([0.5, 0.5])})

  return VectorArgumentsCase
