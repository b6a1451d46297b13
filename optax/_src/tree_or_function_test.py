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
"""Tests of the tree-or-function rule and of every argument that uses it.

Each argument that takes "a tree shaped like the params, or a function of
them" (masks, weight-decay masks, ``freeze``/``selective_transform`` masks,
``partition`` labels, Muon's and GaLore's dimension numbers) is given in four
kinds: an Equinox module (callable, data leaves), a Flax ``nnx.State``, a
plain dict, and a function of the params. Results are checked against
references written here with NumPy.
"""

import functools
from typing import Any, Callable

import equinox as eqx
from flax import nnx
import jax
import jax.numpy as jnp
import numpy as np
import pytest

import optax
from optax._src import tree_or_function
from optax.contrib import _muon

_W = np.arange(1.0, 7.0, dtype=np.float32).reshape(3, 2) / 4.0
_B = np.array([0.5, -1.5], np.float32)
_GW = np.array([[1.0, -2.0], [0.5, 0.25], [-1.0, 3.0]], np.float32)
_GB = np.array([2.0, -0.5], np.float32)


class _Net(eqx.Module):
  """A linear layer: callable, with array leaves."""

  w: jax.Array
  b: jax.Array

  def __call__(self, x):
    return x @ self.w + self.b


class _NnxNet(nnx.Module):
  """The same layer in Flax NNX."""

  def __init__(self, w, b):
    self.w = nnx.Param(jnp.asarray(w))
    self.b = nnx.Param(jnp.asarray(b))


def _as_kind(kind: str, w: Any, b: Any) -> Any:
  """A params-like container of kind ``kind`` holding ``w`` and ``b``."""
  if kind == 'equinox':
    return _Net(w, b)
  if kind == 'nnx':
    return nnx.state(_NnxNet(w, b), nnx.Param)
  return {'w': w, 'b': b}


def _leaves(tree: Any) -> dict[str, np.ndarray]:
  """``{'w': ..., 'b': ...}`` as NumPy arrays, from any of the kinds."""
  if isinstance(tree, _Net):
    return {'w': np.asarray(tree.w), 'b': np.asarray(tree.b)}
  if isinstance(tree, nnx.State):
    return {k: np.asarray(v) for k, v in nnx.to_pure_dict(tree).items()}
  return {k: np.asarray(v) for k, v in tree.items()}


def _arg(kind: str, per_leaf: Callable[[Any], Any]) -> Any:
  """The argument in kind ``kind``: ``per_leaf`` of each params leaf.

  For the tree kinds, the tree is built from the params with
  ``jax.tree.map`` as a user would; for ``'function'`` it is a function
  doing that when called.

  Args:
    kind: 'equinox', 'nnx', 'dict' or 'function'.
    per_leaf: maps an array leaf to the argument's leaf.

  Returns:
    The argument.
  """
  if kind == 'function':
    return lambda params: jax.tree.map(per_leaf, params)
  params = _as_kind(kind, jnp.asarray(_W), jnp.asarray(_B))
  return jax.tree.map(per_leaf, params)


def _params_kind(kind: str) -> str:
  return 'dict' if kind == 'function' else kind


def _run(tx, kind: str, steps: int = 2) -> list[dict[str, np.ndarray]]:
  """Updates of ``tx`` for ``steps`` jitted steps on the kind's params."""
  params = _as_kind(_params_kind(kind), jnp.asarray(_W), jnp.asarray(_B))
  grads = _as_kind(_params_kind(kind), jnp.asarray(_GW), jnp.asarray(_GB))
  state = tx.init(params)
  update = jax.jit(tx.update)
  out = []
  for _ in range(steps):
    updates, state = update(grads, state, params)
    assert type(updates) is type(grads)  # pylint: disable=unidiomatic-typecheck
    out.append(_leaves(updates))
  return out


_KINDS = ('equinox', 'nnx', 'dict', 'function')
_is_matrix = lambda x: x.ndim == 2


# The rule itself.


def _plain(p):
  return p


class _CallableObject:

  def __call__(self, params):
    return params


class _FnHolder(eqx.Module):
  """A callable module whose only leaf is a function."""

  fn: Callable[[Any], Any]

  def __call__(self, params):
    return self.fn(params)


class _Labeler(eqx.Module):
  """A callable module with a data leaf, written as a labelling function."""

  min_ndim: int

  def __call__(self, params):
    return jax.tree.map(
        lambda x: 'a' if x.ndim >= self.min_ndim else 'b', params)


_DICT_PARAMS = {'w': jnp.asarray(_W), 'b': jnp.asarray(_B)}
_NET = _Net(jnp.asarray(_W), jnp.asarray(_B))


@pytest.mark.parametrize(
    ('arg', 'tree', 'expected'),
    [
        ({'w': True, 'b': False}, _DICT_PARAMS, False),
        (True, _DICT_PARAMS, False),
        (None, _DICT_PARAMS, False),
        ({}, _DICT_PARAMS, False),
        ({'w': _plain}, _DICT_PARAMS, False),  # Not callable: a tree.
        (_plain, _DICT_PARAMS, True),
        (lambda p: p, None, True),
        (jax.jit(_plain), _DICT_PARAMS, True),
        (_CallableObject(), _DICT_PARAMS, True),
        (functools.partial(lambda p, flag: flag, flag=True), _DICT_PARAMS,
         True),
        (jax.tree_util.Partial(_plain), _DICT_PARAMS, True),
        (_FnHolder(_plain), _NET, True),
        (_Net(True, False), _NET, False),  # Labels/mask shaped like params.
        (_Net(True, False), None, False),
        (_Labeler(2), _DICT_PARAMS, True),  # Callable, not shaped like them.
        (_Labeler(2), None, False),
    ],
)
def test_is_function_rule(arg, tree, expected):
  assert tree_or_function.is_function(arg, tree) is expected


def test_is_function_prefix_and_is_leaf():
  dims = _muon.MuonDimensionNumbers
  is_dims = lambda x: x is None or isinstance(x, dims)
  # A module of dimension numbers and None, shaped like the params.
  spec = _Net(dims(), None)
  assert not tree_or_function.is_function(spec, _NET, is_leaf=is_dims)
  # Without is_leaf the None field is an empty node: it does not match.
  assert tree_or_function.is_function(spec, _NET)


def test_resolve_calls_functions_only():
  mask = {'w': True, 'b': False}
  assert tree_or_function.resolve(
      mask, _DICT_PARAMS, fn_name='f', arg_name='mask') is mask
  got = tree_or_function.resolve(
      lambda p: jax.tree.map(_is_matrix, p), _DICT_PARAMS, fn_name='f',
      arg_name='mask')
  assert got == mask
  got = tree_or_function.resolve(
      _Labeler(2), _DICT_PARAMS, fn_name='f', arg_name='labels')
  assert got == {'w': 'a', 'b': 'b'}


def test_resolve_notes_a_module_called_because_it_does_not_match():
  # A mask module built from other params: called, and its call fails.
  other = _Net(True, {'x': False})
  with pytest.raises(TypeError) as info:
    tree_or_function.resolve(other, _NET, fn_name='masked', arg_name='mask')
  note = '\n'.join(getattr(info.value, '__notes__', []))
  assert 'masked: mask is a callable pytree (_Net)' in note
  assert '.b' in note


# Every argument of the kind, in the four kinds.


@pytest.mark.parametrize('kind', _KINDS)
def test_masked(kind):
  tx = optax.masked(optax.scale(-2.0), _arg(kind, _is_matrix))
  for got in _run(tx, kind):
    np.testing.assert_array_equal(got['w'], -2.0 * _GW)
    np.testing.assert_array_equal(got['b'], _GB)


@pytest.mark.parametrize('kind', _KINDS)
def test_masked_single_bool(kind):
  params_kind = _params_kind(kind)
  for flag, factor in ((True, -2.0), (False, 1.0)):
    got = _run(optax.masked(optax.scale(-2.0), flag), params_kind, 1)[0]
    np.testing.assert_array_equal(got['w'], factor * _GW)
    np.testing.assert_array_equal(got['b'], factor * _GB)


@pytest.mark.parametrize('kind', _KINDS)
def test_add_decayed_weights_mask(kind):
  tx = optax.add_decayed_weights(0.5, mask=_arg(kind, _is_matrix))
  for got in _run(tx, kind):
    np.testing.assert_allclose(got['w'], _GW + 0.5 * _W, rtol=1e-6)
    np.testing.assert_array_equal(got['b'], _GB)


def _adam_reference(steps, lr, b1=0.9, b2=0.999, eps=1e-8):
  """NumPy Adam on the constant gradients, one list of updates per step."""
  out = []
  m = {'w': np.zeros_like(_GW), 'b': np.zeros_like(_GB)}
  v = {'w': np.zeros_like(_GW), 'b': np.zeros_like(_GB)}
  grads = {'w': _GW, 'b': _GB}
  for t in range(1, steps + 1):
    step = {}
    for k, g in grads.items():
      m[k] = b1 * m[k] + (1 - b1) * g
      v[k] = b2 * v[k] + (1 - b2) * g * g
      m_hat = m[k] / (1 - b1**t)
      v_hat = v[k] / (1 - b2**t)
      step[k] = -lr * m_hat / (np.sqrt(v_hat) + eps)
    out.append(step)
  return out


@pytest.mark.parametrize('kind', _KINDS)
def test_adamw_weight_decay_mask(kind):
  lr, wd = 0.1, 0.5
  tx = optax.adamw(lr, weight_decay=wd, mask=_arg(kind, _is_matrix))
  ref = _adam_reference(2, lr)
  for got, want in zip(_run(tx, kind), ref):
    # Decay only on the masked (2-D) weight.
    np.testing.assert_allclose(got['w'], want['w'] - lr * wd * _W,
                               rtol=1e-5, atol=1e-7)
    np.testing.assert_allclose(got['b'], want['b'], rtol=1e-5, atol=1e-7)


@pytest.mark.parametrize('kind', _KINDS)
def test_freeze(kind):
  tx = optax.freeze(_arg(kind, _is_matrix))
  for got in _run(tx, kind):
    np.testing.assert_array_equal(got['w'], np.zeros_like(_GW))
    np.testing.assert_array_equal(got['b'], _GB)


@pytest.mark.parametrize('kind', _KINDS)
def test_selective_transform(kind):
  tx = optax.selective_transform(
      optax.scale(-2.0), freeze_mask=_arg(kind, _is_matrix))
  for got in _run(tx, kind):
    np.testing.assert_array_equal(got['w'], np.zeros_like(_GW))
    np.testing.assert_array_equal(got['b'], -2.0 * _GB)


@pytest.mark.parametrize('kind', _KINDS)
def test_partition_labels(kind):
  labels = _arg(kind, lambda x: 'matrix' if x.ndim == 2 else 'vector')
  tx = optax.partition(
      {'matrix': optax.scale(-2.0), 'vector': optax.scale(3.0)}, labels)
  for got in _run(tx, kind):
    np.testing.assert_array_equal(got['w'], -2.0 * _GW)
    np.testing.assert_array_equal(got['b'], 3.0 * _GB)


def _muon_dims(x):
  return _muon.MuonDimensionNumbers() if x.ndim == 2 else None


@pytest.mark.parametrize('kind', _KINDS)
def test_muon_dimension_numbers(kind):
  lr = 0.1
  tx = optax.contrib.muon(
      lr, muon_weight_dimension_numbers=_arg(kind, _muon_dims))
  got = _run(tx, kind, steps=1)[0]
  # The vector goes to Adam: the first Nesterov Adam step is
  # -lr * (1 + b1 / (1 + b1)) * sign(g), up to eps.
  b1 = 0.9
  np.testing.assert_allclose(
      got['b'], -lr * (1 + b1 / (1 + b1)) * np.sign(_GB), rtol=1e-5)
  # The matrix goes to Muon: its update is orthogonalized (the shape factor
  # is 1 for 3 x 2). The gradient's singular values are 3.86 and 0.61;
  # five Newton-Schulz steps bring the largest near 1 and the ratio from
  # 6.3 below 1.5 (Adam's sign-like step would have a largest near 3).
  singular = np.linalg.svd(got['w'] / -lr, compute_uv=False)
  np.testing.assert_allclose(singular[0], 1.0, atol=0.05)
  assert singular[0] / singular[1] < 1.5
  # Same as the default (matrices to Muon) on a dict.
  want = _run(optax.contrib.muon(lr), 'dict', steps=1)[0]
  np.testing.assert_allclose(got['w'], want['w'], rtol=1e-6)
  np.testing.assert_allclose(got['b'], want['b'], rtol=1e-6)


@pytest.mark.parametrize('kind', _KINDS)
def test_galore_dimension_numbers(kind):
  dims = optax.contrib.GaLoreDimensionNumbers
  spec = _arg(kind, lambda x: dims() if x.ndim == 2 else None)
  tx = optax.contrib.scale_by_galore(
      rank=1, update_proj_gap=1, weight_dimension_numbers=spec)
  got = _run(tx, kind, steps=1)
  want = _run(optax.contrib.scale_by_galore(rank=1, update_proj_gap=1),
              'dict', steps=1)
  np.testing.assert_allclose(got[0]['w'], want[0]['w'], rtol=1e-6)
  np.testing.assert_allclose(got[0]['b'], want[0]['b'], rtol=1e-6)
  # The rank-1 projection: the matrix update has rank one, the vector's is
  # Adam's (not projected).
  assert np.linalg.matrix_rank(got[0]['w'], tol=1e-5) == 1


def test_muon_inside_partition_trains_an_equinox_mlp():
  # The reported program: Muon's default dimension numbers for an Equinox
  # model are an Equinox module (callable) and were called on the params,
  # raising TypeError from the MLP's __call__ at init. Upstream 0.2.8 trains
  # it. Reference: the same run on a plain dict of the model's arrays.
  mkey, xkey = jax.random.split(jax.random.key(0))
  model = eqx.nn.MLP(in_size=4, out_size=2, width_size=8, depth=2, key=mkey)
  x = jax.random.normal(xkey, (16, 4))
  y = jnp.sin(x[:, :2])

  def labels_fn(params):
    return jax.tree.map(lambda a: 'muon' if a.ndim == 2 else 'adam', params)

  opt = optax.chain(
      optax.clip_by_global_norm(1.0),
      optax.partition({'muon': optax.contrib.muon(learning_rate=0.02),
                       'adam': optax.adam(1e-3)}, labels_fn))

  def loss(m):
    return jnp.mean((jax.vmap(m)(x) - y) ** 2)

  @eqx.filter_jit
  def module_step(m, state):
    grads = eqx.filter_grad(loss)(m)
    updates, state = opt.update(grads, state, eqx.filter(m, eqx.is_array))
    return eqx.apply_updates(m, updates), state

  params = eqx.filter(model, eqx.is_array)
  paths_and_leaves, treedef = jax.tree_util.tree_flatten_with_path(params)
  names = [jax.tree_util.keystr(path) for path, _ in paths_and_leaves]
  to_module = lambda d: jax.tree.unflatten(treedef, [d[n] for n in names])
  static = eqx.filter(model, eqx.is_array, inverse=True)

  @jax.jit
  def dict_step(d, state):
    grads = jax.grad(lambda d: loss(eqx.combine(to_module(d), static)))(d)
    updates, state = opt.update(grads, state, d)
    return optax.apply_updates(d, updates), state

  d = {n: leaf for n, (_, leaf) in zip(names, paths_and_leaves)}
  d_state = opt.init(d)
  m, m_state = model, opt.init(params)
  first = float(loss(model))
  for _ in range(5):
    m, m_state = module_step(m, m_state)
    d, d_state = dict_step(d, d_state)
  got = jax.tree.leaves(eqx.filter(m, eqx.is_array))
  for name, leaf in zip(names, got):
    np.testing.assert_allclose(leaf, d[name], rtol=1e-5, atol=1e-6,
                               err_msg=name)
  assert float(loss(m)) < first
  # Muon kept momentum for the matrices only.
  muon_state = m_state[1].inner_states['muon'].inner_state
  muon_mu = muon_state.inner_states['muon'].inner_state[0].mu
  shapes = [leaf.shape for leaf in jax.tree.leaves(muon_mu)]
  assert shapes == [(8, 4), (8, 8), (2, 8)]


def test_mismatched_module_mask_is_a_structure_error():
  # A mask module built from other params: as for any mask tree that does
  # not match (and as upstream 0.2.8), a ValueError naming the key path.
  mask = _Net(True, {'inner': False})
  tx = optax.masked(optax.scale(-2.0), mask)
  with pytest.raises(ValueError, match=r"masked: mask .*\.b"):
    tx.init(_NET)


def test_mismatched_module_labels_are_called_with_a_note():
  # partition calls any callable that is not labels shaped like the params
  # (as upstream 0.2.8 calls any callable): its error gets a note.
  labels = _Net('a', {'inner': 'b'})
  tx = optax.partition({'a': optax.scale(1.0), 'b': optax.scale(2.0)},
                       labels)
  with pytest.raises(TypeError) as info:
    tx.init(_NET)
  note = '\n'.join(getattr(info.value, '__notes__', []))
  assert 'partition: param_labels is a callable pytree (_Net)' in note


@pytest.mark.parametrize('kind', _KINDS)
def test_prodigy_weight_decay_mask(kind):
  # prodigy's weight decay enters its own update rule; the masked run must
  # equal the unmasked one on the vector, and differ on the matrix.
  mask = _arg(kind, _is_matrix)
  got = _run(optax.contrib.prodigy(weight_decay=0.5,
                                   weight_decay_mask=mask), kind)
  no_decay = _run(optax.contrib.prodigy(weight_decay=0.0), kind)
  full = _run(optax.contrib.prodigy(weight_decay=0.5), kind)
  for g, n, f in zip(got, no_decay, full):
    np.testing.assert_array_equal(g['b'], n['b'])
    np.testing.assert_array_equal(g['w'], f['w'])
    assert not np.allclose(g['w'], n['w'])
