# Copyright 2026 The Optax fork authors. All Rights Reserved.
# Licensed under the Apache License, Version 2.0.
"""Registry of cases compared between this fork and upstream Optax 0.2.8.

Every case is written against the public Optax API only, so that this file
imports unchanged under upstream 0.2.8 and under the fork. Nothing here is
evaluated at import time: a case holds a builder (a function of no argument)
that run_cases.py calls inside a ``try``, so a name missing on one side is
recorded as an ``AttributeError`` on that side instead of breaking the run.

Two kinds of cases:

* :class:`OptCase`: a gradient transformation put through ``init`` and a few
  steps on a quadratic or a softmax-regression loss (see :func:`make_problem`).
* :class:`FnCase`: a function (schedule, loss, projection, tree utility)
  evaluated on fixed inputs; its result is a pytree of arrays.

Inputs come from ``numpy.random.default_rng`` with fixed seeds, never from
``jax.random``, so both interpreters see identical bits whatever the jax or
Optax version.

Which optimizers there are, and which extra arguments their ``update`` takes,
is read from the fork's registry (optax/_src/testing/registry.py, loaded by
file path: it imports only the standard library, and upstream's optax has no
``optax._src.testing``); the tables here give each one's builders.
"""

from __future__ import annotations

import dataclasses
import functools
import importlib
import importlib.util
import pathlib
import sys
from collections.abc import Callable, Sequence
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
import optax
import optax.contrib
import optax.losses
import optax.projections
import optax.schedules
import optax.transforms
import optax.tree_utils

SEED = 20260124
STEPS = 5
PARAM_KINDS = ('f32', 'bf16', 'mixed')

_REGISTRY_PATH = (pathlib.Path(__file__).resolve().parents[2] / 'optax' /
                  '_src' / 'testing' / 'registry.py')


def registry() -> Any:
  """The fork's optimizer registry, under either interpreter.

  Loaded from its file (it imports only the standard library), once, under
  a name of its own, so that upstream's interpreter reads the fork's list.
  """
  name = '_optax_fork_registry'
  if name not in sys.modules:
    spec = importlib.util.spec_from_file_location(name, _REGISTRY_PATH)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
  return sys.modules[name]


@dataclasses.dataclass(frozen=True)
class OptCase:
  """A gradient transformation run for a few steps.

  Attributes:
    name: unique id, ``group/what/variant/params``.
    make: builds the transformation (called inside a ``try``).
    params: one of :data:`PARAM_KINDS`.
    loss: ``'quad'`` or ``'logistic'``.
    extra: which extra arguments ``update`` receives: ``None``, ``'value'``,
      ``'linesearch'`` (value, grad, value_fn), ``'obj_fn'``,
      ``'per_example'`` (per-example gradients, for DP optimizers) or
      ``'lookahead'`` (params are ``optax.LookaheadParams``).
    jit: jit the step (only where eager execution would be slow).
    steps: number of steps.
    post: optional ``post(state, params) -> pytree`` recorded after the run.
  """

  name: str
  make: Callable[[], Any]
  params: str = 'f32'
  loss: str = 'quad'
  extra: str | None = None
  jit: bool = False
  steps: int = STEPS
  post: Callable[[Any, Any], Any] | None = None


@dataclasses.dataclass(frozen=True)
class FnCase:
  """A function evaluated on fixed inputs; returns a pytree of arrays."""

  name: str
  fn: Callable[[], Any]


# ----------------------------------------------------------------------------
# Inputs.


def _np_params(kind: str, seed: int = SEED) -> dict[str, np.ndarray]:
  rng = np.random.default_rng(seed)
  w = (0.5 * rng.standard_normal((4, 3))).astype(np.float32)
  b = (0.5 * rng.standard_normal((3,))).astype(np.float32)
  del kind
  return {'b': b, 'w': w}


def make_params(kind: str) -> dict[str, jax.Array]:
  """Params dict ``{'b': (3,), 'w': (4, 3)}`` of the given kind."""
  p = _np_params(kind)
  if kind == 'f32':
    dtypes = {'b': jnp.float32, 'w': jnp.float32}
  elif kind == 'bf16':
    dtypes = {'b': jnp.bfloat16, 'w': jnp.bfloat16}
  elif kind == 'mixed':
    dtypes = {'b': jnp.bfloat16, 'w': jnp.float32}
  else:
    raise ValueError(f'unknown params kind {kind!r}')
  return {k: jnp.asarray(v, dtype=dtypes[k]) for k, v in p.items()}


def make_problem(loss: str) -> tuple[Callable[..., jax.Array],
                                     Callable[..., jax.Array]]:
  """Returns ``(loss_fn(params), per_example_loss_fn(params, i))``.

  Both compute in float32 whatever the params' dtype, so the gradients have
  the params' dtype and the loss is float32.
  """
  rng = np.random.default_rng(SEED + 1)
  curv = {'b': rng.uniform(0.5, 2.0, (3,)).astype(np.float32),
          'w': rng.uniform(0.5, 2.0, (4, 3)).astype(np.float32)}
  target = {'b': rng.standard_normal((3,)).astype(np.float32),
            'w': rng.standard_normal((4, 3)).astype(np.float32)}
  x_np = rng.standard_normal((8, 4)).astype(np.float32)
  y_np = rng.integers(0, 3, (8,)).astype(np.int32)

  def quad_one(params, i):
    del i
    total = jnp.zeros([], jnp.float32)
    for k in ('b', 'w'):
      d = params[k].astype(jnp.float32) - target[k]
      total = total + 0.5 * jnp.sum(curv[k] * d * d)
    return total

  def logistic_one(params, i):
    x, y = jnp.asarray(x_np), jnp.asarray(y_np)
    logits = (x[i] @ params['w'].astype(jnp.float32)
              + params['b'].astype(jnp.float32))
    return jax.nn.logsumexp(logits) - logits[y[i]]

  if loss == 'quad':
    one = quad_one
    def full(params):
      return quad_one(params, 0)
  elif loss == 'logistic':
    one = logistic_one
    def full(params):
      return jnp.mean(jax.vmap(lambda i: logistic_one(params, i))(
          jnp.arange(8)))
  else:
    raise ValueError(f'unknown loss {loss!r}')
  return full, one


def _rand(shape, seed, scale=1.0, dtype=np.float32):
  rng = np.random.default_rng(seed)
  return jnp.asarray((scale * rng.standard_normal(shape)).astype(dtype))


def _tree(seed: int, kind: str = 'f32'):
  """A small tree with a nested dict, for tree utilities."""
  dt = {'f32': (jnp.float32, jnp.float32), 'bf16': (jnp.bfloat16,) * 2,
        'mixed': (jnp.float32, jnp.bfloat16)}[kind]
  return {'a': _rand((3,), seed).astype(dt[0]),
          'n': {'m': _rand((2, 2), seed + 1).astype(dt[1]),
                's': _rand((), seed + 2).astype(dt[0])}}


# ----------------------------------------------------------------------------
# Optimizer cases.

LR = 1e-2


# Jitted: eager execution of these is slow (an eager lax.cond, while_loop or
# fori_loop is traced and compiled again on every call).
HEAVY = ('lbfgs', 'muon', 'galore', 'scale_by_lbfgs', 'mechanize',
         'reduce_on_plateau', 'dpsgd', 'differentially_private_aggregate',
         'contrib.scale_by_muon', 'contrib.scale_by_muon_dims',
         'contrib.scale_by_galore', 'multisteps_adam',
         'multisteps_adam_sum_schedule', 'multisteps_skip_not_finite',
         'multisteps_skip_large', 'multisteps_gt_lion', 'apply_if_finite_adam',
         'conditionally_mask', 'conditionally_transform', 'lookahead_sgd',
         'lookahead_adam_reset', 'sam')
# Line searches compile slowly: float32 and mixed params only.
NO_BF16 = ('lbfgs', 'scale_by_zoom_linesearch',
           'scale_by_backtracking_linesearch')


def _sched():
  return optax.linear_schedule(1e-2, 1e-3, 4)


# Registry name -> (defaults builder, non-default builder or None), for every
# entry of the registry's ALIASES (and of its CONTRIB but the scale_by_*,
# without their ``contrib.``). Builders are lambdas so that nothing is built
# at import time.
ALIASES: dict[str, tuple[Callable[[], Any], Callable[[], Any] | None]] = {
    'adabelief': (lambda: optax.adabelief(LR),
                  lambda: optax.adabelief(_sched(), b1=0.8, b2=0.99,
                                          eps=1e-8, nesterov=True)),
    'adadelta': (lambda: optax.adadelta(),
                 lambda: optax.adadelta(0.5, rho=0.8, eps=1e-5,
                                        weight_decay=1e-2)),
    'adafactor': (lambda: optax.adafactor(),
                  lambda: optax.adafactor(LR, min_dim_size_to_factor=2,
                                          momentum=0.9, weight_decay_rate=1e-2,
                                          decay_offset=1)),
    'adagrad': (lambda: optax.adagrad(LR),
                lambda: optax.adagrad(_sched(), initial_accumulator_value=0.5,
                                      eps=1e-5)),
    'adam': (lambda: optax.adam(LR),
             lambda: optax.adam(_sched(), b1=0.8, b2=0.99, eps=1e-6,
                                eps_root=1e-8, mu_dtype=jnp.bfloat16,
                                nesterov=True)),
    'adamax': (lambda: optax.adamax(LR),
               lambda: optax.adamax(_sched(), b1=0.8, b2=0.99, eps=1e-6)),
    'adamaxw': (lambda: optax.adamaxw(LR),
                lambda: optax.adamaxw(LR, weight_decay=1e-2,
                                      mask={'b': False, 'w': True})),
    'adamw': (lambda: optax.adamw(LR),
              lambda: optax.adamw(_sched(), b1=0.8, weight_decay=1e-2,
                                  mask=lambda p: {'b': False, 'w': True},
                                  nesterov=True)),
    'adan': (lambda: optax.adan(LR),
             lambda: optax.adan(LR, b1=0.9, b2=0.9, b3=0.9, eps_root=0.0,
                                weight_decay=1e-2)),
    'amsgrad': (lambda: optax.amsgrad(LR),
                lambda: optax.amsgrad(LR, mu_dtype=jnp.float32,
                                      bias_correction_mu=False,
                                      bias_correction_nu=False)),
    'fromage': (lambda: optax.fromage(LR),
                lambda: optax.fromage(0.1, min_norm=1e-3)),
    'lamb': (lambda: optax.lamb(LR),
             lambda: optax.lamb(LR, weight_decay=1e-2,
                                mask={'b': False, 'w': True})),
    'lars': (lambda: optax.lars(LR),
             lambda: optax.lars(LR, weight_decay=1e-2, trust_coefficient=0.01,
                                eps=1e-6, momentum=0.5, nesterov=True)),
    'lbfgs': (lambda: optax.lbfgs(),
              lambda: optax.lbfgs(memory_size=3, scale_init_precond=False)),
    'lion': (lambda: optax.lion(LR),
             lambda: optax.lion(LR, b1=0.8, b2=0.9, mu_dtype=jnp.bfloat16,
                                weight_decay=0.0)),
    'nadam': (lambda: optax.nadam(LR),
              lambda: optax.nadam(LR, b1=0.8, eps_root=1e-8)),
    'nadamw': (lambda: optax.nadamw(LR),
               lambda: optax.nadamw(LR, weight_decay=1e-2,
                                    mask={'b': False, 'w': True})),
    'noisy_sgd': (lambda: optax.noisy_sgd(LR, key=jax.random.key(0)),
                  lambda: optax.noisy_sgd(LR, eta=0.1, gamma=0.3,
                                          key=jax.random.key(1))),
    'novograd': (lambda: optax.novograd(LR),
                 lambda: optax.novograd(LR, b1=0.8, b2=0.5,
                                        weight_decay=1e-2)),
    'optimistic_adam': (lambda: optax.optimistic_adam(LR),
                        lambda: optax.optimistic_adam(LR, optimism=0.5,
                                                      nesterov=False)),
    'optimistic_adam_v2': (lambda: optax.optimistic_adam_v2(LR),
                           lambda: optax.optimistic_adam_v2(
                               LR, alpha=0.5, beta=2.0)),
    'optimistic_gradient_descent': (
        lambda: optax.optimistic_gradient_descent(LR),
        lambda: optax.optimistic_gradient_descent(LR, alpha=0.5, beta=2.0)),
    'polyak_sgd': (lambda: optax.polyak_sgd(),
                   lambda: optax.polyak_sgd(max_learning_rate=0.5,
                                            scaling=0.5, f_min=-1.0, eps=1e-3,
                                            variant='sps+')),
    'radam': (lambda: optax.radam(LR),
              lambda: optax.radam(LR, threshold=4.5, nesterov=True)),
    'rmsprop': (lambda: optax.rmsprop(LR),
                lambda: optax.rmsprop(LR, initial_scale=0.1,
                                      eps_in_sqrt=False, centered=True,
                                      momentum=0.9, nesterov=True,
                                      bias_correction=True)),
    'rprop': (lambda: optax.rprop(LR),
              lambda: optax.rprop(LR, eta_minus=0.3, eta_plus=1.5,
                                  min_step_size=1e-3, max_step_size=1.0)),
    'sgd': (lambda: optax.sgd(LR),
            lambda: optax.sgd(_sched(), momentum=0.9, nesterov=True,
                              accumulator_dtype=jnp.bfloat16)),
    'sign_sgd': (lambda: optax.sign_sgd(LR), None),
    'signum': (lambda: optax.signum(LR),
               lambda: optax.signum(LR, beta=0.5,
                                    accumulator_dtype=jnp.float32)),
    'sm3': (lambda: optax.sm3(LR), lambda: optax.sm3(LR, momentum=0.5)),
    'yogi': (lambda: optax.yogi(LR),
             lambda: optax.yogi(LR, b1=0.8, b2=0.99, eps=1e-4)),
}

CONTRIB: dict[str, tuple[Callable[[], Any], Callable[[], Any] | None]] = {
    'acprop': (lambda: optax.contrib.acprop(LR),
               lambda: optax.contrib.acprop(LR, weight_decay=1e-2)),
    'ademamix': (lambda: optax.contrib.ademamix(LR),
                 lambda: optax.contrib.ademamix(LR, b3=0.99, alpha=2.0,
                                                weight_decay=1e-2)),
    'adopt': (lambda: optax.contrib.adopt(LR),
              lambda: optax.contrib.adopt(LR, nesterov=True,
                                          use_clipping=False)),
    'cocob': (lambda: optax.contrib.cocob(),
              lambda: optax.contrib.cocob(1.0, alpha=10.0,
                                          weight_decay=1e-2)),
    'dadapt_adamw': (lambda: optax.contrib.dadapt_adamw(),
                     lambda: optax.contrib.dadapt_adamw(
                         0.5, betas=(0.8, 0.99), weight_decay=1e-2)),
    'dog': (lambda: optax.contrib.dog(),
            lambda: optax.contrib.dog(init_step=('distance', 1e-3),
                                      weight_decay=1e-2)),
    'dowg': (lambda: optax.contrib.dowg(),
             lambda: optax.contrib.dowg(init_estim_sq_dist=1e-2,
                                        weight_decay=1e-2)),
    'dpsgd': (lambda: optax.contrib.dpsgd(LR, 1.0, 0.5, 0),
              lambda: optax.contrib.dpsgd(LR, 0.1, 1.0, 3, momentum=0.9,
                                          nesterov=True)),
    'galore': (lambda: optax.contrib.galore(LR),
               lambda: optax.contrib.galore(LR, rank=2, update_proj_gap=2,
                                            scale=0.5)),
    'madgrad': (lambda: optax.contrib.madgrad(LR),
                lambda: optax.contrib.madgrad(LR, momentum=0.5,
                                              weight_decay=1e-2)),
    'mechanize': (lambda: optax.contrib.mechanize(optax.adam(LR)),
                  lambda: optax.contrib.mechanize(optax.sgd(LR),
                                                  weight_decay=0.0,
                                                  num_betas=2)),
    'momo': (lambda: optax.contrib.momo(),
             lambda: optax.contrib.momo(0.5, beta=0.5, lower_bound=-1.0,
                                        weight_decay=1e-2,
                                        adapt_lower_bound=True)),
    'momo_adam': (lambda: optax.contrib.momo_adam(),
                  lambda: optax.contrib.momo_adam(0.1, weight_decay=1e-2,
                                                  adapt_lower_bound=True)),
    'muon': (lambda: optax.contrib.muon(LR),
             lambda: optax.contrib.muon(LR, ns_steps=3, beta=0.9,
                                        weight_decay=1e-2, nesterov=False,
                                        adaptive=True)),
    'prodigy': (lambda: optax.contrib.prodigy(),
                lambda: optax.contrib.prodigy(0.5, beta3=0.9,
                                              weight_decay=1e-2,
                                              safeguard_warmup=True)),
    'reduce_on_plateau': (lambda: optax.chain(
        optax.sgd(LR), optax.contrib.reduce_on_plateau()),
                          lambda: optax.chain(
                              optax.sgd(LR), optax.contrib.reduce_on_plateau(
                                  factor=0.5, patience=1, cooldown=1,
                                  accumulation_size=2))),
    'sam': (lambda: optax.contrib.sam(optax.sgd(LR), optax.sgd(0.05)),
            lambda: optax.contrib.sam(optax.adam(LR), optax.sgd(0.05),
                                      sync_period=3, reset_state=False)),
    'schedule_free_adamw': (lambda: optax.contrib.schedule_free_adamw(),
                            lambda: optax.contrib.schedule_free_adamw(
                                LR, warmup_steps=2, weight_decay=1e-2)),
    'schedule_free_sgd': (lambda: optax.contrib.schedule_free_sgd(),
                          lambda: optax.contrib.schedule_free_sgd(
                              0.1, warmup_steps=2, weight_decay=1e-2)),
    'schedule_free': (lambda: optax.contrib.schedule_free(optax.sgd(LR), LR),
                      lambda: optax.contrib.schedule_free(
                          optax.adam(LR), LR, b1=0.8,
                          state_dtype=jnp.float32)),
    'simplified_ademamix': (lambda: optax.contrib.simplified_ademamix(LR),
                            lambda: optax.contrib.simplified_ademamix(
                                LR, alpha=2.0, weight_decay=1e-2)),
    'sophia': (lambda: optax.contrib.sophia(LR),
               lambda: optax.contrib.sophia(LR, update_interval=2,
                                            weight_decay=0.0)),
    'split_real_and_imaginary': (
        lambda: optax.contrib.split_real_and_imaginary(optax.adam(LR)),
        None),
    'normalize': (lambda: optax.contrib.normalize(), None),
    'differentially_private_aggregate': (
        lambda: optax.contrib.differentially_private_aggregate(
            1.0, 0.5, key=jax.random.key(0)), None),
}

# Registry name -> builder, for every scale_by_* of the registry (TRANSFORMS
# but ``scale``, a wrapper case below, and CONTRIB's), and for the variants
# in SCALE_BY_VARIANTS.
SCALE_BY: dict[str, Callable[[], Any]] = {
    'scale_by_adadelta': lambda: optax.scale_by_adadelta(),
    'scale_by_adam': lambda: optax.scale_by_adam(),
    'scale_by_adamax': lambda: optax.scale_by_adamax(),
    'scale_by_adan': lambda: optax.scale_by_adan(),
    'scale_by_amsgrad': lambda: optax.scale_by_amsgrad(),
    'scale_by_backtracking_linesearch':
        lambda: optax.scale_by_backtracking_linesearch(
            max_backtracking_steps=10, store_grad=True),
    'scale_by_belief': lambda: optax.scale_by_belief(),
    'scale_by_distance_over_gradients':
        lambda: optax.scale_by_distance_over_gradients(),
    'scale_by_factored_rms':
        lambda: optax.scale_by_factored_rms(min_dim_size_to_factor=2),
    'scale_by_lbfgs': lambda: optax.scale_by_lbfgs(memory_size=3),
    'scale_by_learning_rate': lambda: optax.scale_by_learning_rate(LR),
    'scale_by_lion': lambda: optax.scale_by_lion(),
    'scale_by_novograd': lambda: optax.scale_by_novograd(),
    'scale_by_optimistic_gradient':
        lambda: optax.scale_by_optimistic_gradient(),
    # Scaled by -LR: the raw updates, gradients times the params' norm,
    # make the params grow geometrically (1e12 after five steps), which
    # compares nothing but overflow.
    'scale_by_param_block_norm': lambda: optax.chain(
        optax.scale_by_param_block_norm(), optax.scale(-LR)),
    'scale_by_param_block_rms': lambda: optax.chain(
        optax.scale_by_param_block_rms(), optax.scale(-LR)),
    'scale_by_polyak': lambda: optax.scale_by_polyak(),
    'scale_by_radam': lambda: optax.scale_by_radam(),
    'scale_by_rms': lambda: optax.scale_by_rms(),
    'scale_by_rprop': lambda: optax.scale_by_rprop(LR),
    'scale_by_rss': lambda: optax.scale_by_rss(),
    'scale_by_schedule': lambda: optax.scale_by_schedule(_sched()),
    'scale_by_sign': lambda: optax.scale_by_sign(),
    'scale_by_sm3': lambda: optax.scale_by_sm3(),
    'scale_by_stddev': lambda: optax.scale_by_stddev(),
    'scale_by_trust_ratio': lambda: optax.scale_by_trust_ratio(),
    'scale_by_yogi': lambda: optax.scale_by_yogi(),
    'scale_by_zoom_linesearch':
        lambda: optax.scale_by_zoom_linesearch(max_linesearch_steps=10),
    'contrib.scale_by_acprop': lambda: optax.contrib.scale_by_acprop(),
    'contrib.scale_by_ademamix': lambda: optax.contrib.scale_by_ademamix(),
    'contrib.scale_by_adopt': lambda: optax.contrib.scale_by_adopt(),
    'contrib.scale_by_cocob': lambda: optax.contrib.scale_by_cocob(),
    'contrib.scale_by_galore':
        lambda: optax.contrib.scale_by_galore(rank=2, update_proj_gap=2),
    'contrib.scale_by_madgrad': lambda: optax.contrib.scale_by_madgrad(LR),
    'contrib.scale_by_muon': lambda: optax.contrib.scale_by_muon(),
    'contrib.scale_by_muon_dims': lambda: optax.contrib.scale_by_muon(
        weight_dimension_numbers={
            'b': None,
            'w': optax.contrib.MuonDimensionNumbers(0, 1)}),
    'contrib.scale_by_simplified_ademamix':
        lambda: optax.contrib.scale_by_simplified_ademamix(),
    'contrib.hutchinson_estimator_diag_hessian':
        lambda: optax.contrib.hutchinson_estimator_diag_hessian(
            random_seed=jax.random.key(3)),
}


def _wb_mask(params):
  del params
  return {'b': False, 'w': True}


def _is_finite_skip(updates, gradient_step, params):
  return optax.skip_not_finite(updates, gradient_step, params)


def _large_skip(updates, gradient_step, params):
  return optax.skip_large_updates(updates, gradient_step, params, 1.0)


WRAPPERS: dict[str, tuple[Callable[[], Any], str | None]] = {
    'chain_clip_global_norm_adam': (lambda: optax.chain(
        optax.clip_by_global_norm(1.0), optax.adam(LR)), None),
    'chain_clip_sgd': (lambda: optax.chain(optax.clip(0.1), optax.sgd(LR)),
                       None),
    'chain_clip_block_rms_adam': (lambda: optax.chain(
        optax.clip_by_block_rms(0.5), optax.adam(LR)), None),
    'chain_adaptive_grad_clip_sgd': (lambda: optax.chain(
        optax.adaptive_grad_clip(0.1), optax.sgd(LR)), None),
    'chain_add_decayed_weights_adam': (lambda: optax.chain(
        optax.add_decayed_weights(1e-2), optax.adam(LR)), None),
    'chain_add_decayed_weights_masked': (lambda: optax.chain(
        optax.add_decayed_weights(1e-2, mask=_wb_mask), optax.sgd(LR)), None),
    'chain_zero_nans_adam': (lambda: optax.chain(
        optax.zero_nans(), optax.adam(LR)), None),
    'chain_centralize_sgd': (lambda: optax.chain(
        optax.centralize(), optax.sgd(LR)), None),
    'chain_normalize_by_update_norm': (lambda: optax.chain(
        optax.normalize_by_update_norm(0.5), optax.sgd(LR)), None),
    'chain_keep_params_nonnegative': (lambda: optax.chain(
        optax.sgd(0.5), optax.keep_params_nonnegative()), None),
    'chain_ema_trace': (lambda: optax.chain(
        optax.ema(0.9), optax.trace(0.5, nesterov=True),
        optax.scale(-LR)), None),
    'ema_nodebias_bf16acc': (lambda: optax.ema(
        0.9, debias=False, accumulator_dtype=jnp.bfloat16), None),
    'trace_acc_f32': (lambda: optax.trace(0.9, accumulator_dtype=jnp.float32),
                      None),
    'add_noise': (lambda: optax.add_noise(0.01, 0.55, key=jax.random.key(2)),
                  None),
    'apply_every': (lambda: optax.chain(optax.apply_every(2),
                                        optax.sgd(LR)), None),
    'identity': (lambda: optax.identity(), None),
    'set_to_zero': (lambda: optax.set_to_zero(), None),
    'scale': (lambda: optax.scale(0.5), None),
    'stateless': (lambda: optax.stateless(
        lambda u, p: jax.tree.map(lambda g: -0.1 * g, u)), None),
    'stateless_with_tree_map': (lambda: optax.stateless_with_tree_map(
        lambda g, p: -0.1 * g), None),
    'multisteps_adam': (lambda: optax.MultiSteps(optax.adam(LR), 2), None),
    'multisteps_adam_sum_schedule': (lambda: optax.MultiSteps(
        optax.adam(LR), lambda step: jnp.where(step < 2, 1, 2),
        use_grad_mean=False), None),
    'multisteps_skip_not_finite': (lambda: optax.MultiSteps(
        optax.sgd(LR), 2, should_skip_update_fn=_is_finite_skip), None),
    'multisteps_skip_large': (lambda: optax.MultiSteps(
        optax.sgd(LR), 2, should_skip_update_fn=_large_skip), None),
    'multisteps_gt_lion': (lambda: optax.MultiSteps(
        optax.lion(LR), 3).gradient_transformation(), None),
    'inject_adam': (lambda: optax.inject_hyperparams(optax.adam)(
        learning_rate=LR), None),
    'inject_adamw_schedule': (lambda: optax.inject_hyperparams(optax.adamw)(
        learning_rate=_sched(), weight_decay=1e-2), None),
    'inject_sgd_static': (lambda: optax.inject_hyperparams(
        optax.sgd, static_args=('nesterov',))(
            learning_rate=LR, momentum=0.9, nesterov=True), None),
    'inject_lion_f32': (lambda: optax.inject_hyperparams(
        optax.lion, hyperparam_dtype=jnp.float32)(learning_rate=LR), None),
    'inject_clip_global_norm': (lambda: optax.inject_hyperparams(
        optax.clip_by_global_norm)(max_norm=0.5), None),
    'inject_stateful_adam': (lambda: optax.inject_stateful_hyperparams(
        optax.adam)(learning_rate=LR), None),
    'inject_stateful_sgd_schedule': (
        lambda: optax.inject_stateful_hyperparams(optax.sgd)(
            learning_rate=_sched()), None),
    'masked_adam_dict': (lambda: optax.masked(
        optax.adam(LR), {'b': False, 'w': True}), None),
    'masked_adam_callable': (lambda: optax.masked(optax.adam(LR), _wb_mask),
                             None),
    'masked_sgd_momentum': (lambda: optax.masked(
        optax.sgd(LR, momentum=0.9), {'b': True, 'w': False}), None),
    'partition': (lambda: optax.partition(
        {'a': optax.adam(LR), 's': optax.sgd(LR)}, {'b': 's', 'w': 'a'}),
                  None),
    'partition_callable': (lambda: optax.partition(
        {'a': optax.adam(LR), 's': optax.set_to_zero()},
        lambda p: {'b': 's', 'w': 'a'}), None),
    'multi_transform': (lambda: optax.multi_transform(
        {'a': optax.lion(LR), 's': optax.sgd(LR, momentum=0.5)},
        {'b': 's', 'w': 'a'}), None),
    'apply_if_finite_adam': (lambda: optax.apply_if_finite(optax.adam(LR), 3),
                             None),
    'lookahead_sgd': (lambda: optax.lookahead(optax.sgd(LR), 2, 0.5),
                      'lookahead'),
    'lookahead_adam_reset': (lambda: optax.lookahead(
        optax.adam(LR), 3, 0.5, reset_state=True), 'lookahead'),
    'flatten_adam': (lambda: optax.flatten(optax.adam(LR)), None),
    'named_chain': (lambda: optax.named_chain(
        ('clip', optax.clip_by_global_norm(1.0)), ('adam', optax.adam(LR))),
                    None),
    'conditionally_mask': (lambda: optax.conditionally_mask(
        optax.adam(LR), lambda step: step % 2 == 0), None),
    'conditionally_transform': (lambda: optax.conditionally_transform(
        optax.adam(LR), lambda step: step >= 2), None),
    'freeze': (lambda: optax.chain(optax.sgd(LR),
                                   optax.freeze({'b': True, 'w': False})),
               None),
    'selective_transform': (lambda: optax.selective_transform(
        optax.adam(LR), freeze_mask={'b': True, 'w': False}), None),
    'with_extra_args_support': (lambda: optax.with_extra_args_support(
        optax.scale_by_adam()), None),
    'snapshot': (lambda: optax.chain(
        optax.snapshot('gnorm', optax.tree_utils.tree_norm), optax.sgd(LR)),
                 None),
    'monitor': (lambda: optax.chain(
        optax.sgd(LR), optax.monitor(
            {'ema_norm': optax.measure_with_ema(
                optax.tree_utils.tree_norm, 0.9)})), None),
    'monitor_ema_nodebias': (lambda: optax.chain(
        optax.sgd(LR), optax.monitor(
            {'ema': optax.measure_with_ema(optax.tree_utils.tree_norm, 0.8,
                                           debias=False)})), None),
    'monitor_ema_bool': (lambda: optax.chain(
        optax.sgd(LR), optax.monitor(
            {'pos': optax.measure_with_ema(
                lambda u: optax.tree_utils.tree_max(u) > 0, 0.5)})), None),
    'transforms.unitwise_clip_chain': (lambda: optax.chain(
        optax.transforms.clip_by_block_rms(1.0),
        optax.transforms.trace(0.5), optax.scale(-LR)), None),
}

ADAM_FAMILY_IN_INJECT = ('adam', 'adamw', 'lion', 'sgd', 'rmsprop', 'adagrad',
                         'lamb', 'nadam', 'radam', 'adabelief', 'yogi',
                         'novograd', 'adamax', 'amsgrad', 'adan', 'fromage',
                         'signum', 'sm3', 'adafactor', 'noisy_sgd')


def _inject_alias(name: str):
  factory = getattr(optax, name)
  if name == 'adafactor':
    return optax.inject_hyperparams(factory)(learning_rate=LR)
  if name == 'noisy_sgd':
    return optax.inject_hyperparams(factory, static_args=('key',))(
        learning_rate=LR, key=jax.random.key(0))
  return optax.inject_hyperparams(factory)(learning_rate=LR)


def _schedule_free_eval(state, params):
  return optax.contrib.schedule_free_eval_params(state, params)


# Variants of a registry entry, and public transformations the registry
# lists as no optimizer (``NOT_OPTIMIZERS``): name -> extra (as OptCase).
SCALE_BY_VARIANTS = {
    'scale_by_schedule': None,
    'contrib.scale_by_muon_dims': None,
    'contrib.hutchinson_estimator_diag_hessian': 'obj_fn',
}


def _extra(entry: Any) -> str | None:
  """The :class:`OptCase` extra arguments of a registry entry."""
  reg = registry()
  if entry.per_example_grads:
    return 'per_example'
  if reg.VALUE_FN in entry.extra_args:
    return 'linesearch'
  if reg.OBJ_FN in entry.extra_args:
    return 'obj_fn'
  if reg.VALUE in entry.extra_args:
    return 'value'
  return None


def _tables() -> tuple[list[tuple[str, str, Any, Any, str | None]],
                       list[tuple[str, Any, str | None]]]:
  """The registry's optimizers with their builders here.

  Returns:
    ``(group, name, default, other, extra)`` of each alias and contrib
    optimizer, and ``(name, make, extra)`` of each building block.

  Raises:
    KeyError: naming the registry entries that have no builder here, or the
      builders of no registry entry.
  """
  reg = registry()
  optimizers, blocks = [], []
  for entry in reg.ENTRIES:
    contrib = entry.name.startswith('contrib.')
    name = entry.name.removeprefix('contrib.')
    if name == 'scale':
      continue  # wrapper/scale below.
    if name.startswith('scale_by_'):
      blocks.append((entry.name, SCALE_BY.get(entry.name), _extra(entry)))
    else:
      group, table = ('contrib', CONTRIB) if contrib else ('alias', ALIASES)
      default, other = table.get(name, (None, None))
      optimizers.append((group, name, default, other, _extra(entry)))
  blocks += [(name, SCALE_BY.get(name), extra)
             for name, extra in SCALE_BY_VARIANTS.items()]
  missing = [f'{g}/{n}' for g, n, default, _, _ in optimizers
             if default is None]
  missing += [n for n, make, _ in blocks if make is None]
  built = ({f'alias/{n}' for n in ALIASES} | {f'contrib/{n}' for n in CONTRIB}
           | set(SCALE_BY))
  listed = {f'{g}/{n}' for g, n, *_ in optimizers} | {n for n, *_ in blocks}
  if missing or built - listed:
    raise KeyError(
        'tools/compare/cases.py: registry entries without builders '
        f'{sorted(missing)}, builders of no registry entry '
        f'{sorted(built - listed)} (optax/_src/testing/registry.py)')
  return optimizers, blocks


def optimizer_cases() -> list[OptCase]:
  """All optimizer cases."""
  out = []
  optimizers, blocks = _tables()
  for group, name, default, other, extra in optimizers:
    jit = extra in ('linesearch', 'obj_fn') or name in HEAVY
    post = _schedule_free_eval if 'schedule_free' in name else None
    for kind in PARAM_KINDS:
      if kind == 'bf16' and name in NO_BF16:
        continue
      out.append(OptCase(f'{group}/{name}/default/{kind}', default, kind,
                         extra=extra, jit=jit, post=post))
    if other is not None:
      out.append(OptCase(f'{group}/{name}/args/mixed', other, 'mixed',
                         extra=extra, jit=jit, post=post))
    out.append(OptCase(f'{group}/{name}/default/f32_logistic', default,
                       'f32', loss='logistic', extra=extra, jit=jit,
                       post=post))
  # The building blocks on float32 and mixed params only: the bfloat16 leaf
  # of the mixed tree covers bfloat16, and the aliases built on them run on
  # all-bfloat16 trees.
  for name, make, extra in blocks:
    for kind in ('f32', 'mixed'):
      out.append(OptCase(f'scale_by/{name}/{kind}', make, kind, extra=extra,
                         jit=extra in ('linesearch', 'obj_fn')
                         or name in HEAVY))
  for name, (make, extra) in WRAPPERS.items():
    for kind in ('f32', 'mixed'):
      out.append(OptCase(f'wrapper/{name}/{kind}', make, kind, extra=extra,
                         jit=name in HEAVY))
  for name in ADAM_FAMILY_IN_INJECT:
    out.append(OptCase(f'inject/{name}/f32',
                       functools.partial(_inject_alias, name), 'f32'))
  # Upstream stores injected hyperparameters in the params' dtype (#1414).
  for name in ('adam', 'sgd'):
    out.append(OptCase(f'inject/{name}/bf16',
                       functools.partial(_inject_alias, name), 'bf16'))
  return out


# ----------------------------------------------------------------------------
# Function cases.

STEPS_TO_EVAL = (0, 1, 2, 5, 10, 25, 50, 99, 100, 101, 150, 300)

SCHEDULES: dict[str, Callable[[], Any]] = {
    'constant_schedule': lambda: optax.constant_schedule(0.1),
    'cosine_decay_schedule': lambda: optax.cosine_decay_schedule(
        0.1, 100, alpha=0.1, exponent=2.0),
    'cosine_decay_schedule_default': lambda: optax.cosine_decay_schedule(
        0.1, 100),
    'cosine_onecycle_schedule': lambda: optax.cosine_onecycle_schedule(
        100, 0.5),
    'exponential_decay': lambda: optax.exponential_decay(0.1, 10, 0.5),
    'exponential_decay_staircase': lambda: optax.exponential_decay(
        0.1, 10, 0.5, transition_begin=5, staircase=True, end_value=0.01),
    'exponential_decay_growth': lambda: optax.exponential_decay(
        0.1, 10, 2.0, end_value=1.0),
    'join_schedules': lambda: optax.join_schedules(
        [optax.constant_schedule(0.1), optax.linear_schedule(0.1, 0.0, 50)],
        [50]),
    'linear_onecycle_schedule': lambda: optax.linear_onecycle_schedule(
        100, 0.5),
    'linear_schedule': lambda: optax.linear_schedule(0.1, 0.01, 100, 10),
    'piecewise_constant_schedule': lambda: optax.piecewise_constant_schedule(
        0.1, {10: 0.5, 50: 0.1}),
    'piecewise_interpolate_linear': lambda: (
        optax.piecewise_interpolate_schedule('linear', 0.1,
                                             {10: 0.5, 50: 0.1})),
    'piecewise_interpolate_cosine': lambda: (
        optax.piecewise_interpolate_schedule('cosine', 0.1,
                                             {10: 0.5, 50: 0.1})),
    'polynomial_schedule': lambda: optax.polynomial_schedule(
        0.1, 0.01, 2.0, 100, 10),
    'sgdr_schedule': lambda: optax.sgdr_schedule(
        [dict(init_value=0.0, peak_value=0.1, warmup_steps=5,
              decay_steps=50, end_value=0.01)] * 3),
    'warmup_constant_schedule': lambda: optax.warmup_constant_schedule(
        0.0, 0.1, 10),
    'warmup_cosine_decay_schedule': lambda: (
        optax.warmup_cosine_decay_schedule(0.0, 0.1, 10, 100, 0.01)),
    'warmup_cosine_decay_schedule_exp': lambda: (
        optax.warmup_cosine_decay_schedule(0.0, 0.1, 10, 100, exponent=2.0)),
    'warmup_exponential_decay_schedule': lambda: (
        optax.warmup_exponential_decay_schedule(0.0, 0.1, 10, 20, 0.5,
                                                transition_begin=5,
                                                staircase=True,
                                                end_value=0.001)),
}


def _eval_schedule(make, as_array: bool):
  sched = make()
  if as_array:
    return sched(jnp.asarray(STEPS_TO_EVAL, jnp.int32))
  return [sched(s) for s in STEPS_TO_EVAL]


def _eval_schedule_jnp_scalar(make):
  sched = make()
  return [sched(jnp.asarray(s, jnp.int32)) for s in STEPS_TO_EVAL]


def _probs(shape, seed):
  rng = np.random.default_rng(seed)
  x = rng.uniform(0.05, 1.0, shape).astype(np.float32)
  return jnp.asarray(x / x.sum(-1, keepdims=True))


def _labels(n, k, seed):
  return jnp.asarray(np.random.default_rng(seed).integers(0, k, (n,)),
                     dtype=jnp.int32)


def _onehot(n, k, seed):
  return jax.nn.one_hot(_labels(n, k, seed), k)


def _ctc(with_probs: bool):
  logits = _rand((2, 6, 4), 41)
  logit_pad = jnp.asarray([[0, 0, 0, 0, 0, 0], [0, 0, 0, 0, 1, 1]],
                          jnp.float32)
  labels = jnp.asarray([[1, 2, 1], [3, 1, 0]], jnp.int32)
  label_pad = jnp.asarray([[0, 0, 0], [0, 0, 1]], jnp.float32)
  if with_probs:
    return optax.losses.ctc_loss_with_forward_probs(logits, logit_pad, labels,
                                                    label_pad)
  return optax.losses.ctc_loss(logits, logit_pad, labels, label_pad)


def _where_mask():
  return jnp.asarray([[True, True, False, True]] * 3 + [[True] * 4])


L = optax.losses
LOSSES: dict[str, Callable[[], Any]] = {
    'binary_dice_loss': lambda: L.binary_dice_loss(
        _rand((2, 5), 1), (_rand((2, 5), 2) > 0).astype(jnp.float32)),
    'convex_kl_divergence': lambda: L.convex_kl_divergence(
        jnp.log(_probs((4, 3), 1)), _probs((4, 3), 2)),
    'cosine_distance': lambda: L.cosine_distance(_rand((4, 3), 1),
                                                 _rand((4, 3), 2)),
    'cosine_similarity_eps': lambda: L.cosine_similarity(
        _rand((4, 3), 1), _rand((4, 3), 2), epsilon=0.1),
    'ctc_loss': lambda: _ctc(False),
    'ctc_loss_with_forward_probs': lambda: _ctc(True),
    'dice_loss': lambda: L.dice_loss(_rand((2, 5, 3), 1),
                                     _onehot(10, 3, 2).reshape(2, 5, 3)),
    'generalized_kl_divergence': lambda: L.generalized_kl_divergence(
        jnp.log(_probs((4, 3), 1)), _probs((4, 3), 2)),
    'hinge_loss': lambda: L.hinge_loss(
        _rand((6,), 1), jnp.asarray([1, -1, 1, -1, 1, -1], jnp.float32)),
    'huber_loss': lambda: L.huber_loss(_rand((6,), 1), _rand((6,), 2),
                                       delta=0.5),
    'kl_divergence': lambda: L.kl_divergence(jnp.log(_probs((4, 3), 1)),
                                             _probs((4, 3), 2)),
    'kl_divergence_where': lambda: L.kl_divergence(
        jnp.log(_probs((4, 4), 1)), _probs((4, 4), 2), where=_where_mask()),
    'kl_divergence_with_log_targets': lambda: (
        L.kl_divergence_with_log_targets(jnp.log(_probs((4, 3), 1)),
                                         jnp.log(_probs((4, 3), 2)))),
    'l2_loss': lambda: L.l2_loss(_rand((6,), 1), _rand((6,), 2)),
    'l2_loss_bf16': lambda: L.l2_loss(_rand((6,), 1).astype(jnp.bfloat16)),
    'log_cosh': lambda: L.log_cosh(_rand((6,), 1), _rand((6,), 2)),
    'make_fenchel_young_loss': lambda: L.make_fenchel_young_loss(
        jax.nn.logsumexp)(_rand((4, 3), 1), _probs((4, 3), 2)),
    'multiclass_generalized_dice_loss': lambda: (
        L.multiclass_generalized_dice_loss(
            _rand((2, 5, 3), 1), _onehot(10, 3, 2).reshape(2, 5, 3))),
    'multiclass_hinge_loss': lambda: L.multiclass_hinge_loss(
        _rand((4, 3), 1), _labels(4, 3, 2)),
    'multiclass_perceptron_loss': lambda: L.multiclass_perceptron_loss(
        _rand((4, 3), 1), _labels(4, 3, 2)),
    'multiclass_sparsemax_loss': lambda: L.multiclass_sparsemax_loss(
        _rand((4, 3), 1), _labels(4, 3, 2)),
    'ntxent': lambda: L.ntxent(_rand((6, 3), 1),
                               jnp.asarray([0, 0, 1, 1, 2, 2], jnp.int32)),
    'perceptron_loss': lambda: L.perceptron_loss(
        _rand((6,), 1), jnp.asarray([1, -1, 1, -1, 1, -1], jnp.float32)),
    'poly_loss_cross_entropy': lambda: L.poly_loss_cross_entropy(
        _rand((4, 3), 1), _onehot(4, 3, 2)),
    'ranking_softmax_loss': lambda: L.ranking_softmax_loss(
        _rand((2, 5), 1), (_rand((2, 5), 2) > 0).astype(jnp.float32)),
    'safe_softmax_cross_entropy': lambda: L.safe_softmax_cross_entropy(
        _rand((4, 3), 1), _probs((4, 3), 2)),
    'sigmoid_binary_cross_entropy': lambda: L.sigmoid_binary_cross_entropy(
        _rand((6,), 1), (_rand((6,), 2) > 0).astype(jnp.float32)),
    'sigmoid_focal_loss': lambda: L.sigmoid_focal_loss(
        _rand((6,), 1), (_rand((6,), 2) > 0).astype(jnp.float32), alpha=0.25),
    'smooth_labels': lambda: L.smooth_labels(_onehot(4, 3, 2), 0.1),
    'softmax_cross_entropy': lambda: L.softmax_cross_entropy(
        _rand((4, 3), 1), _probs((4, 3), 2)),
    'softmax_cross_entropy_where': lambda: L.softmax_cross_entropy(
        _rand((4, 4), 1), _probs((4, 4), 2), where=_where_mask()),
    'softmax_cross_entropy_bf16': lambda: L.softmax_cross_entropy(
        _rand((4, 3), 1).astype(jnp.bfloat16), _probs((4, 3), 2)),
    'softmax_cross_entropy_with_integer_labels': lambda: (
        L.softmax_cross_entropy_with_integer_labels(_rand((4, 3), 1),
                                                    _labels(4, 3, 2))),
    'sparsemax_loss': lambda: L.sparsemax_loss(
        _rand((6,), 1), (_rand((6,), 2) > 0).astype(jnp.float32)),
    'squared_error': lambda: L.squared_error(_rand((6,), 1), _rand((6,), 2)),
    'triplet_margin_loss': lambda: L.triplet_margin_loss(
        _rand((4, 3), 1), _rand((4, 3), 2), _rand((4, 3), 3)),
    # The same functions through the top-level aliases.
    'top.l2_loss': lambda: optax.l2_loss(_rand((6,), 1)),
    'top.softmax_cross_entropy': lambda: optax.softmax_cross_entropy(
        _rand((4, 3), 1), _probs((4, 3), 2)),
}

P = optax.projections
PROJECTIONS: dict[str, Callable[[], Any]] = {
    'projection_box': lambda: P.projection_box(_tree(1), -0.3, 0.4),
    'projection_box_trees': lambda: P.projection_box(
        _tree(1), jax.tree.map(lambda x: -0.3 + 0 * x, _tree(1)),
        jax.tree.map(lambda x: 0.4 + 0 * x, _tree(1))),
    'projection_halfspace': lambda: P.projection_halfspace(
        _tree(1), _tree(5), 0.5),
    'projection_hypercube': lambda: P.projection_hypercube(_tree(1), 0.5),
    'projection_hypercube_array': lambda: P.projection_hypercube(
        _rand((5,), 1), 0.5),
    'projection_hyperplane': lambda: P.projection_hyperplane(
        _tree(1), _tree(5), 0.5),
    'projection_l1_ball': lambda: P.projection_l1_ball(_tree(1), 1.5),
    'projection_l1_sphere': lambda: P.projection_l1_sphere(_tree(1), 1.5),
    'projection_l2_ball': lambda: P.projection_l2_ball(_tree(1), 0.5),
    'projection_l2_sphere': lambda: P.projection_l2_sphere(_tree(1), 0.5),
    'projection_linf_ball': lambda: P.projection_linf_ball(_tree(1), 0.5),
    'projection_non_negative': lambda: P.projection_non_negative(_tree(1)),
    'projection_simplex': lambda: P.projection_simplex(_rand((5,), 1), 1.0),
    'projection_simplex_tree': lambda: P.projection_simplex(_tree(1), 2.0),
    'projection_vector': lambda: P.projection_vector(_rand((5,), 1),
                                                     _rand((5,), 2)),
}

T = optax.tree_utils
TREES: dict[str, Callable[[str], Any]] = {
    'tree_add': lambda k: T.tree_add(_tree(1, k), _tree(2, k), _tree(3, k)),
    'tree_add_scale': lambda k: T.tree_add_scale(_tree(1, k), 0.5,
                                                 _tree(2, k)),
    'tree_allclose': lambda k: T.tree_allclose(_tree(1, k), _tree(1, k)),
    'tree_batch_shape': lambda k: T.tree_batch_shape(_tree(1, k), (2,)),
    'tree_bias_correction': lambda k: T.tree_bias_correction(
        _tree(1, k), 0.9, jnp.asarray(3, jnp.int32)),
    'tree_cast': lambda k: T.tree_cast(_tree(1, k), jnp.bfloat16),
    'tree_cast_like': lambda k: T.tree_cast_like(_tree(1, k),
                                                 _tree(2, 'mixed')),
    'tree_clip': lambda k: T.tree_clip(_tree(1, k), -0.5, 0.5),
    'tree_conj': lambda k: T.tree_conj(_tree(1, k)),
    'tree_div': lambda k: T.tree_div(_tree(1, k), _tree(2, k)),
    'tree_dtype': lambda k: str(T.tree_dtype(_tree(1, 'f32'))),
    'tree_dtype_promote': lambda k: str(T.tree_dtype(_tree(1, k),
                                                     'promote')),
    'tree_full_like': lambda k: T.tree_full_like(_tree(1, k), 0.5),
    'tree_get': lambda k: T.tree_get(_tree(1, k), 'm'),
    'tree_get_all_with_path': lambda k: [
        (jax.tree_util.keystr(p), v)
        for p, v in T.tree_get_all_with_path(_tree(1, k), 's')],
    'tree_max': lambda k: T.tree_max(_tree(1, k)),
    'tree_min': lambda k: T.tree_min(_tree(1, k)),
    'tree_mul': lambda k: T.tree_mul(_tree(1, k), _tree(2, k)),
    'tree_norm': lambda k: T.tree_norm(_tree(1, k)),
    'tree_norm_squared': lambda k: T.tree_norm(_tree(1, k), squared=True),
    'tree_norm_ord1': lambda k: T.tree_norm(_tree(1, k), ord=1),
    'tree_norm_ord2': lambda k: T.tree_norm(_tree(1, k), ord=2),
    'tree_norm_ord_inf': lambda k: T.tree_norm(_tree(1, k), ord=jnp.inf),
    'tree_norm_ord_infinity': lambda k: T.tree_norm(_tree(1, k),
                                                    ord='infinity'),
    'tree_norm_ord_inf_str': lambda k: T.tree_norm(_tree(1, k), ord='inf'),
    'tree_norm_ord_fro': lambda k: T.tree_norm(_tree(1, k), ord='fro'),
    'tree_ones_like': lambda k: T.tree_ones_like(_tree(1, k)),
    'tree_real': lambda k: T.tree_real(_tree(1, k)),
    'tree_scale': lambda k: T.tree_scale(0.5, _tree(1, k)),
    'tree_set': lambda k: T.tree_set(_tree(1, k), m=jnp.zeros((2, 2))),
    'tree_size': lambda k: T.tree_size(_tree(1, k)),
    'tree_sub': lambda k: T.tree_sub(_tree(1, k), _tree(2, k)),
    'tree_sum': lambda k: T.tree_sum(_tree(1, k)),
    'tree_update_infinity_moment': lambda k: T.tree_update_infinity_moment(
        _tree(1, k), _tree(2, k), 0.9, 1e-8),
    'tree_update_moment': lambda k: T.tree_update_moment(
        _tree(1, k), _tree(2, k), 0.9, 1),
    'tree_update_moment_per_elem_norm': lambda k: (
        T.tree_update_moment_per_elem_norm(_tree(1, k), _tree(2, k), 0.9, 2)),
    'tree_vdot': lambda k: T.tree_vdot(_tree(1, k), _tree(2, k)),
    'tree_where': lambda k: T.tree_where(jnp.asarray(False), _tree(2, k),
                                         _tree(3, k)),
    'tree_zeros_like': lambda k: T.tree_zeros_like(_tree(1, k),
                                                   dtype=jnp.float32),
    'tree_map_params': lambda k: T.tree_map_params(
        optax.adam(LR), lambda v: v * 2.0,
        optax.adam(LR).init(_tree(1, k))),
    'tree_split_key_like': lambda k: jax.tree.map(
        jax.random.key_data,
        T.tree_split_key_like(jax.random.key(0), _tree(1, k))),
    'tree_unwrap_random_key_data': lambda k: (
        T.tree_unwrap_random_key_data({'k': jax.random.key(0)})),
    # Not in tree_utils but close: numerics and misc top-level helpers.
    'global_norm': lambda k: optax.global_norm(_tree(1, k)),
    'safe_norm': lambda k: optax.safe_norm(_tree(1, k)['a'], 1e-3),
    'safe_norm_zero': lambda k: optax.safe_norm(
        jnp.zeros((3,), _tree(1, k)['a'].dtype), 1e-3),
    'safe_root_mean_squares': lambda k: optax.safe_root_mean_squares(
        _tree(1, k)['a'], 1e-3),
    'safe_increment': lambda k: optax.safe_increment(
        jnp.asarray(np.iinfo(np.int32).max, jnp.int32)),
    'safe_int32_increment': lambda k: optax.safe_int32_increment(
        jnp.asarray(7, jnp.int32)),
    'bias_correction': lambda k: optax.bias_correction(
        _tree(1, k)['a'], 0.9, jnp.asarray(3, jnp.int32)),
    'incremental_update': lambda k: optax.incremental_update(
        _tree(1, k), _tree(2, k), 0.1),
    'periodic_update': lambda k: optax.periodic_update(
        _tree(1, k), _tree(2, k), jnp.asarray(4, jnp.int32), 2),
    'apply_updates': lambda k: optax.apply_updates(
        _tree(1, 'f32'), _tree(2, k)),
    'per_example_global_norm_clip': lambda k: (
        optax.per_example_global_norm_clip(
            [_rand((4, 3), 1).astype(_tree(1, k)['a'].dtype),
             _rand((4,), 2)], 1.0)),
    'per_example_layer_norm_clip': lambda k: (
        optax.per_example_layer_norm_clip(
            [_rand((4, 3), 1).astype(_tree(1, k)['a'].dtype),
             _rand((4,), 2)], 1.0)),
    'unitwise_norm': lambda k: optax.transforms.unitwise_norm(
        _rand((4, 3), 1).astype(_tree(1, k)['a'].dtype)),
    'matrix_inverse_pth_root': lambda k: optax.matrix_inverse_pth_root(
        jnp.eye(3) * 2.0 + 0.1, 2)[0],
    'power_iteration': lambda k: optax.power_iteration(
        jnp.diag(jnp.asarray([3.0, 1.0, 0.5])),
        v0=jnp.ones(3) / 3.0, num_iters=50),
}


def _multi_normal():
  dist = optax.multi_normal(_rand((3,), 1), _rand((3,), 2, 0.1))
  x = _rand((3,), 3)
  return {'log_prob': dist.log_prob(x),
          'sample': dist.sample((2,), jax.random.key(0))}


def _microbatch():
  def fun(x):
    return jnp.sum(x ** 2, axis=-1)
  return optax.microbatch(fun, argnums=0, microbatch_size=2)(
      _rand((4, 3), 1))


MISC: dict[str, Callable[[], Any]] = {
    'update_moment': lambda: optax.update_moment(
        _tree(1, 'mixed'), _tree(2, 'mixed'), 0.9, 2),
    'update_moment_per_elem_norm': lambda: optax.update_moment_per_elem_norm(
        _tree(1, 'mixed'), _tree(2, 'mixed'), 0.9, 2),
    'update_infinity_moment': lambda: optax.update_infinity_moment(
        _tree(1, 'mixed'), _tree(2, 'mixed'), 0.9, 1e-8),
    'init_empty_state': lambda: optax.init_empty_state(_tree(1)),
    'scale_gradient': lambda: jax.grad(
        lambda x: jnp.sum(optax.scale_gradient(x, 0.5) ** 2))(_rand((3,), 1)),
    'multi_normal': _multi_normal,
    'nnls': lambda: optax.nnls(_rand((5, 3), 1), _rand((5,), 2), 20),
    'unitwise_clip': lambda: optax.transforms.unitwise_clip(
        optax.transforms.unitwise_norm(_rand((4, 3), 1)),
        jnp.full((4, 3), 0.5), _rand((4, 3), 1)),
    'unitwise_clip_scalar_max_norm': lambda: optax.transforms.unitwise_clip(
        optax.transforms.unitwise_norm(_rand((4, 3), 1)), 0.5,
        _rand((4, 3), 1)),
    'tree_random_like': lambda: optax.tree_utils.tree_random_like(
        jax.random.key(0), _tree(1, 'mixed')),
    'microbatch': _microbatch,
}


def _one_step(make_tx: Callable[[], Any], **extra: Any) -> Any:
  """Builds a transformation, then one update of the f32 params."""
  tx = make_tx()
  params = make_params('f32')
  updates, _ = tx.update(params, tx.init(params), params, **extra)
  return updates


_NAN = float('nan')

# Hyperparameters no optimizer can use: upstream 0.2.8 builds with them (and
# its updates are NaN, or the schedule is not monotone); the fork raises a
# ValueError naming the function and the argument when it is built.
HYPERPARAMETERS: dict[str, Callable[[], Any]] = {
    'scale_by_adam_eps_nan': lambda: _one_step(
        lambda: optax.scale_by_adam(eps=_NAN)),
    'adam_learning_rate_nan': lambda: _one_step(lambda: optax.adam(_NAN)),
    'adafactor_eps_nan': lambda: _one_step(
        lambda: optax.adafactor(eps=_NAN)),
    'rmsprop_decay_nan': lambda: _one_step(
        lambda: optax.rmsprop(0.1, decay=_NAN)),
    'sgd_momentum_nan': lambda: _one_step(
        lambda: optax.sgd(0.1, momentum=_NAN)),
    'lion_b1_nan': lambda: _one_step(lambda: optax.lion(0.1, b1=_NAN)),
    'clip_nan': lambda: _one_step(lambda: optax.clip(_NAN)),
    'clip_by_global_norm_nan': lambda: _one_step(
        lambda: optax.clip_by_global_norm(_NAN)),
    'ema_decay_nan': lambda: _one_step(lambda: optax.ema(_NAN)),
    'muon_eps_nan': lambda: _one_step(
        lambda: optax.contrib.muon(0.1, eps=_NAN)),
    'muon_beta_nan': lambda: _one_step(
        lambda: optax.contrib.muon(0.1, beta=_NAN)),
    'schedule_free_adamw_b1_nan': lambda: _one_step(
        lambda: optax.contrib.schedule_free_adamw(0.1, b1=_NAN)),
    'warmup_cosine_decay_warmup_steps_negative': lambda: [
        optax.warmup_cosine_decay_schedule(0.0, 1.0, -1, 10)(t)
        for t in range(3)],
    # Both raise ValueError (upstream from cosine_decay_schedule).
    'warmup_cosine_decay_warmup_steps_nan_both_raise': lambda: [
        optax.warmup_cosine_decay_schedule(0.0, 1.0, _NAN, 10)(t)
        for t in range(3)],
    # Accepted by both (the fork's integer check raised OverflowError before
    # this release).
    'reduce_on_plateau_patience_inf': lambda: _one_step(
        lambda: optax.contrib.reduce_on_plateau(patience=float('inf')),
        value=jnp.float32(1.0)),
}


def function_cases() -> list[FnCase]:
  """All function cases."""
  out = []
  for name, make in SCHEDULES.items():
    out.append(FnCase(f'schedule/{name}/python_int',
                      functools.partial(_eval_schedule, make, False)))
    out.append(FnCase(f'schedule/{name}/int32_vector',
                      functools.partial(_eval_schedule, make, True)))
    out.append(FnCase(f'schedule/{name}/int32_scalar',
                      functools.partial(_eval_schedule_jnp_scalar, make)))
  for name, fn in LOSSES.items():
    out.append(FnCase(f'loss/{name}', fn))
  for name, fn in PROJECTIONS.items():
    out.append(FnCase(f'projection/{name}', fn))
  for name, fn in MISC.items():
    out.append(FnCase(f'misc/{name}', fn))
  for name, fn in HYPERPARAMETERS.items():
    out.append(FnCase(f'hyperparameter/{name}', fn))
  for name, fn in TREES.items():
    kinds: Sequence[str] = ('f32', 'bf16', 'mixed')
    for kind in kinds:
      out.append(FnCase(f'tree/{name}/{kind}', functools.partial(fn, kind)))
  return out


# ----------------------------------------------------------------------------
# Construction of every public name.
#
# The public names of upstream 0.2.8's namespaces (written out here, so that
# both sides run the same cases). Each case gets the name (a deprecated name
# warns there), calls it with the arguments its docstring documents and,
# where that is cheap, uses what it returns: a transformation is initialised
# and updated once, a schedule is evaluated. The point is the warnings each
# side raises (compared by compare.py like exceptions); the result is
# compared too.

PUBLIC_NAMES: dict[str, str] = {
    'optax': '''
    AdaptiveGradClipState AddDecayedWeightsState AddNoiseState
    ApplyEvery ApplyIfFiniteState ClipByGlobalNormState ClipState
    ConditionallyMaskState ConditionallyTransformState
    DifferentiallyPrivateAggregateState EmaState EmptyState
    FactoredState GradientTransformation GradientTransformationExtraArgs
    InjectHyperparamsState InjectStatefulHyperparamsState
    LookaheadParams LookaheadState MaskOrFn MaskedNode MaskedState
    MonitorState MultiSteps MultiStepsState MultiTransformState
    NonNegativeParamsState OptState Params PartitionState
    ScalarOrSchedule ScaleByAdaDeltaState ScaleByAdamState
    ScaleByAdanState ScaleByAmsgradState
    ScaleByBacktrackingLinesearchState ScaleByBeliefState
    ScaleByLBFGSState ScaleByLionState ScaleByNovogradState
    ScaleByRStdDevState ScaleByRmsState ScaleByRpropState
    ScaleByRssState ScaleBySM3State ScaleByScheduleState
    ScaleByTrustRatioState ScaleByZoomLinesearchState ScaleState
    Schedule ShouldSkipUpdateFunction SnapshotState TraceState
    TransformInitFn TransformUpdateExtraArgsFn TransformUpdateFn Updates
    WrappedSchedule ZeroNansState ZoomLinesearchInfo adabelief adadelta
    adafactor adagrad adam adamax adamaxw adamw adan adaptive_grad_clip
    add_decayed_weights add_noise amsgrad apply_every apply_if_finite
    apply_updates bias_correction centralize chain clip
    clip_by_block_rms clip_by_global_norm conditionally_mask
    conditionally_transform constant_schedule convex_kl_divergence
    cosine_decay_schedule cosine_distance cosine_onecycle_schedule
    cosine_similarity ctc_loss ctc_loss_with_forward_probs
    differentially_private_aggregate dpsgd ema exponential_decay flatten
    freeze fromage generalized_kl_divergence global_norm hinge_loss
    huber_loss identity incremental_update init_empty_state
    inject_hyperparams inject_stateful_hyperparams join_schedules
    keep_params_nonnegative kl_divergence l2_loss lamb lars lbfgs
    linear_onecycle_schedule linear_schedule lion log_cosh lookahead
    masked matrix_inverse_pth_root measure_with_ema microbatch monitor
    monte_carlo multi_normal multi_transform nadam nadamw named_chain
    nnls noisy_sgd normalize_by_update_norm novograd ntxent
    optimistic_adam optimistic_adam_v2 optimistic_gradient_descent
    partition per_example_global_norm_clip per_example_layer_norm_clip
    periodic_update piecewise_constant_schedule
    piecewise_interpolate_schedule polyak_sgd polynomial_schedule
    power_iteration radam rmsprop rprop safe_increment
    safe_int32_increment safe_norm safe_root_mean_squares
    safe_softmax_cross_entropy scale scale_by_adadelta scale_by_adam
    scale_by_adamax scale_by_adan scale_by_amsgrad
    scale_by_backtracking_linesearch scale_by_belief
    scale_by_distance_over_gradients scale_by_factored_rms
    scale_by_lbfgs scale_by_learning_rate scale_by_lion
    scale_by_novograd scale_by_optimistic_gradient
    scale_by_param_block_norm scale_by_param_block_rms scale_by_polyak
    scale_by_radam scale_by_rms scale_by_rprop scale_by_rss
    scale_by_schedule scale_by_sign scale_by_sm3 scale_by_stddev
    scale_by_trust_ratio scale_by_yogi scale_by_zoom_linesearch
    scale_gradient selective_transform set_to_zero sgd sgdr_schedule
    sigmoid_binary_cross_entropy sigmoid_focal_loss sign_sgd signum
    skip_large_updates skip_not_finite sm3 smooth_labels snapshot
    softmax_cross_entropy softmax_cross_entropy_with_integer_labels
    squared_error stateless stateless_with_tree_map trace
    tree_map_params update_infinity_moment update_moment
    update_moment_per_elem_norm value_and_grad_from_state
    warmup_constant_schedule warmup_cosine_decay_schedule
    warmup_exponential_decay_schedule with_extra_args_support yogi
    zero_nans''',
    'optax.contrib': '''
    COCOBState DAdaptAdamWState DifferentiallyPrivateAggregateState
    DoGState DoWGState GaLoreDimensionNumbers GaLoreState
    HutchinsonState MadgradState MechanicState MomoAdamState MomoState
    MuonDimensionNumbers MuonState NormalizeState ProdigyState
    ReduceLROnPlateauState SAMState ScaleByAdemamixState
    ScaleBySimplifiedAdEMAMixState ScheduleFreeState SophiaState
    SplitRealAndImaginaryState acprop ademamix adopt cocob dadapt_adamw
    differentially_private_aggregate dog dowg dpsgd galore
    hutchinson_estimator_diag_hessian madgrad mechanize momo momo_adam
    muon normalize prodigy reduce_on_plateau sam scale_by_acprop
    scale_by_ademamix scale_by_adopt scale_by_cocob scale_by_galore
    scale_by_madgrad scale_by_muon scale_by_simplified_ademamix
    schedule_free schedule_free_adamw schedule_free_eval_params
    schedule_free_sgd simplified_ademamix sophia
    split_real_and_imaginary''',
    'optax.losses': '''
    binary_dice_loss convex_kl_divergence cosine_distance
    cosine_similarity ctc_loss ctc_loss_with_forward_probs dice_loss
    generalized_kl_divergence hinge_loss huber_loss kl_divergence
    kl_divergence_with_log_targets l2_loss log_cosh
    make_fenchel_young_loss multiclass_generalized_dice_loss
    multiclass_hinge_loss multiclass_perceptron_loss
    multiclass_sparsemax_loss ntxent perceptron_loss
    poly_loss_cross_entropy ranking_softmax_loss
    safe_softmax_cross_entropy sigmoid_binary_cross_entropy
    sigmoid_focal_loss smooth_labels softmax_cross_entropy
    softmax_cross_entropy_with_integer_labels sparsemax_loss
    squared_error triplet_margin_loss''',
    'optax.projections': '''
    projection_box projection_halfspace projection_hypercube
    projection_hyperplane projection_l1_ball projection_l1_sphere
    projection_l2_ball projection_l2_sphere projection_linf_ball
    projection_non_negative projection_simplex projection_vector''',
    'optax.schedules': '''
    InjectHyperparamsState InjectStatefulHyperparamsState Schedule
    StatefulSchedule WrappedSchedule constant_schedule
    cosine_decay_schedule cosine_onecycle_schedule exponential_decay
    inject_hyperparams inject_stateful_hyperparams join_schedules
    linear_onecycle_schedule linear_schedule piecewise_constant_schedule
    piecewise_interpolate_schedule polynomial_schedule sgdr_schedule
    warmup_constant_schedule warmup_cosine_decay_schedule
    warmup_exponential_decay_schedule''',
    'optax.transforms': '''
    AddNoiseState ApplyIfFiniteState ConditionFn ConditionallyMaskState
    ConditionallyTransformState EmaState MaskedNode MaskedState
    MonitorState MultiSteps MultiStepsState NonNegativeParamsState
    PartitionState ShouldSkipUpdateFunction SnapshotState TraceState
    ZeroNansState adaptive_grad_clip add_decayed_weights add_noise
    apply_if_finite chain clip clip_by_block_rms clip_by_global_norm
    conditionally_mask conditionally_transform ema flatten freeze
    keep_params_nonnegative masked measure_with_ema monitor named_chain
    partition per_example_global_norm_clip per_example_layer_norm_clip
    selective_transform skip_large_updates skip_not_finite snapshot
    trace unitwise_clip unitwise_norm zero_nans''',
    'optax.tree_utils': '''
    NamedTupleKey tree_add tree_add_scalar_mul tree_add_scale
    tree_allclose tree_batch_shape tree_bias_correction tree_cast
    tree_cast_like tree_clip tree_conj tree_div tree_dtype
    tree_full_like tree_get tree_get_all_with_path tree_l1_norm
    tree_l2_norm tree_linf_norm tree_map_params tree_max tree_min
    tree_mul tree_norm tree_ones_like tree_random_like tree_real
    tree_scalar_mul tree_scale tree_set tree_size tree_split_key_like
    tree_sub tree_sum tree_unwrap_random_key_data
    tree_update_infinity_moment tree_update_moment
    tree_update_moment_per_elem_norm tree_vdot tree_where
    tree_zeros_like''',
    'optax.tree': '''
    add add_scale allclose batch_shape bias_correction cast cast_like
    clip conj div dtype full_like get get_all_with_path map_params max
    min mul norm ones_like random_like real scale set size
    split_key_like sub sum unwrap_random_key_data update_infinity_moment
    update_moment update_moment_per_elem_norm vdot where zeros_like''',
    'optax.second_order': '''
    fisher_diag hessian_diag hvp''',
    'optax.experimental': '''
''',
    'optax.perturbations': '''
    Gumbel Normal make_perturbed_fun''',
    'optax.assignment': '''
    base_hungarian_algorithm hungarian_algorithm''',
}


def _lin(x):
  return jnp.asarray(x, jnp.float32) * 2.0


def _measure(updates):
  return optax.tree.norm(updates)


def _quad_loss(params, inputs, targets):
  return jnp.sum((inputs @ params['w'] + params['b'] - targets) ** 2)


def _nll(params, inputs, targets):
  logits = inputs @ params['w'] + params['b']
  return -jnp.sum(jax.nn.log_softmax(logits) * targets)


def _dp_params():
  return make_params('f32')


def _second_order_data():
  return _rand((2, 4), 11), jax.nn.one_hot(jnp.asarray([0, 2]), 3)


def _sgd():
  return optax.sgd(0.1)


def _tree_full(seed: int, value: float):
  return jax.tree.map(lambda x: jnp.full_like(x, value), _tree(seed))


# Short name -> how to call it with its documented arguments. A name absent
# from these tables is called with a learning rate if that is all it needs
# (``_LR_ONLY``), with no argument if it needs none (``_NO_ARGS``), and is
# only looked up otherwise (types, states, protocols).
_CALLS: dict[str, Callable[[Any], Any]] = {
    'MultiSteps': lambda f: f(_sgd(), 2).gradient_transformation(),
    'NamedTupleKey': lambda f: f('ScaleByAdamState', 'mu'),
    'WrappedSchedule': lambda f: f(optax.constant_schedule(0.1)),
    'LookaheadParams': lambda f: f(_tree(1), _tree(2)),
    'adaptive_grad_clip': lambda f: f(0.1),
    'add_noise': lambda f: f(0.01, 0.55, key=jax.random.key(0)),
    'apply_if_finite': lambda f: f(_sgd(), 3),
    'apply_updates': lambda f: f(_tree(1), _tree(2)),
    'base_hungarian_algorithm': lambda f: f(_rand((3, 3), 12)),
    'hungarian_algorithm': lambda f: f(_rand((3, 3), 12)),
    'bias_correction': lambda f: f(_tree(1)['a'], 0.9, jnp.int32(3)),
    'clip': lambda f: f(0.5),
    'clip_by_block_rms': lambda f: f(0.5),
    'clip_by_global_norm': lambda f: f(1.0),
    'conditionally_mask': lambda f: f(_sgd(), lambda step: step > 0),
    'conditionally_transform': lambda f: f(_sgd(), lambda step: step > 0),
    'constant_schedule': lambda f: f(0.1),
    'cosine_decay_schedule': lambda f: f(0.1, 100),
    'cosine_onecycle_schedule': lambda f: f(100, 0.5),
    'cosine_distance': lambda f: f(_rand((2, 3), 13), _rand((2, 3), 14)),
    'cosine_similarity': lambda f: f(_rand((2, 3), 13), _rand((2, 3), 14)),
    'ctc_loss': lambda f: _ctc_call(f),
    'ctc_loss_with_forward_probs': lambda f: _ctc_call(f),
    'differentially_private_aggregate': lambda f: f(
        1.0, 0.1, key=jax.random.key(0)),
    # Upstream 0.2.8's documented signature: seed is a required argument.
    'dpsgd': lambda f: f(0.1, 1.0, 0.1, 0),
    'ema': lambda f: f(0.9),
    'exponential_decay': lambda f: f(0.1, 10, 0.5),
    'fisher_diag': lambda f: f(_nll, make_params('f32'),
                               *_second_order_data()),
    'hessian_diag': lambda f: f(_quad_loss, make_params('f32'),
                                *_second_order_data()),
    'hvp': lambda f: f(_quad_loss, jnp.ones(15), make_params('f32'),
                       *_second_order_data()),
    'flatten': lambda f: f(_sgd()),
    'freeze': lambda f: f({'b': True, 'w': False}),
    'global_norm': lambda f: f(_tree(1)),
    'incremental_update': lambda f: f(_tree(1), _tree(2), 0.1),
    'init_empty_state': lambda f: f(_tree(1)),
    'inject_hyperparams': lambda f: f(optax.sgd)(learning_rate=0.1),
    'inject_stateful_hyperparams': lambda f: f(optax.sgd)(
        learning_rate=0.1),
    'join_schedules': lambda f: f(
        [optax.constant_schedule(0.1), optax.constant_schedule(0.01)], [5]),
    'linear_onecycle_schedule': lambda f: f(100, 0.5),
    'linear_schedule': lambda f: f(0.1, 0.01, 100),
    'lookahead': lambda f: _lookahead_call(f(_sgd(), 2, 0.5)),
    'make_fenchel_young_loss': lambda f: f(jax.nn.logsumexp)(
        _rand((3,), 15), _probs((3,), 16)),
    'make_perturbed_fun': lambda f: f(jnp.sum, num_samples=4)(
        jax.random.key(0), _rand((3,), 15)),
    'map_params': lambda f: _map_params_call(f),
    'masked': lambda f: f(_sgd(), {'b': True, 'w': False}),
    'matrix_inverse_pth_root': lambda f: f(jnp.eye(3) * 2.0, 2)[0],
    'measure_with_ema': lambda f: f(_measure, 0.9),
    'mechanize': lambda f: f(_sgd()),
    'microbatch': lambda f: f(jnp.sum, 0, 2)(_rand((4, 3), 1)),
    'monitor': lambda f: f({'norm': _measure}),
    'multi_normal': lambda f: f(_rand((3,), 1), _rand((3,), 2, 0.1)).log_prob(
        _rand((3,), 3)),
    'multi_transform': lambda f: f({'x': _sgd(), 'y': optax.adam(0.1)},
                                   {'b': 'x', 'w': 'y'}),
    'partition': lambda f: f({'x': _sgd(), 'y': optax.adam(0.1)},
                             {'b': 'x', 'w': 'y'}),
    'nnls': lambda f: f(_rand((5, 3), 1), _rand((5,), 2), 5),
    'per_example_global_norm_clip': lambda f: f(
        [_rand((4, 3), 1), _rand((4,), 2)], 1.0),
    'per_example_layer_norm_clip': lambda f: f(
        [_rand((4, 3), 1), _rand((4,), 2)], 1.0),
    'periodic_update': lambda f: f(_tree(1), _tree(2), jnp.int32(4), 2),
    'piecewise_constant_schedule': lambda f: f(0.1, {10: 0.5}),
    'piecewise_interpolate_schedule': lambda f: f('linear', 0.1, {10: 0.5}),
    'polynomial_schedule': lambda f: f(0.1, 0.01, 2.0, 100),
    'power_iteration': lambda f: f(jnp.diag(jnp.asarray([3.0, 1.0])),
                                   num_iters=5),
    'safe_increment': lambda f: f(jnp.int32(3)),
    'safe_int32_increment': lambda f: f(jnp.int32(3)),
    'safe_norm': lambda f: f(_rand((3,), 1), 1e-6),
    'safe_root_mean_squares': lambda f: f(_rand((3,), 1), 1e-6),
    'sam': lambda f: f(_sgd(), _sgd()),
    'scale': lambda f: f(0.5),
    'scale_by_backtracking_linesearch': lambda f: f(5),
    'scale_by_schedule': lambda f: f(optax.constant_schedule(0.1)),
    'scale_by_zoom_linesearch': lambda f: f(5),
    'scale_gradient': lambda f: f(_rand((3,), 1), 0.5),
    'schedule_free': lambda f: f(_sgd(), 0.1),
    'schedule_free_eval_params': lambda f: _schedule_free_eval_call(f),
    'selective_transform': lambda f: f(_sgd(), freeze_mask={
        'b': True, 'w': False}),
    'sgdr_schedule': lambda f: f([dict(init_value=0.0, peak_value=0.1,
                                       warmup_steps=2, decay_steps=10)]),
    'skip_large_updates': lambda f: f(_tree(1), jnp.int32(1), _tree(2), 1.0),
    'skip_not_finite': lambda f: f(_tree(1), jnp.int32(1), _tree(2)),
    'snapshot': lambda f: f('norm', _measure),
    'split_real_and_imaginary': lambda f: f(_sgd()),
    'stateless': lambda f: f(lambda u, p: jax.tree.map(lambda x: -x, u)),
    'stateless_with_tree_map': lambda f: f(lambda g, p: -g),
    'trace': lambda f: f(0.9),
    'unitwise_clip': lambda f: f(jnp.full((4, 3), 2.0),
                                 jnp.full((4, 3), 0.5), _rand((4, 3), 1)),
    'unitwise_norm': lambda f: f(_rand((4, 3), 1)),
    'value_and_grad_from_state': lambda f: f(jnp.sum),
    'warmup_constant_schedule': lambda f: f(0.0, 0.1, 10),
    'warmup_cosine_decay_schedule': lambda f: f(0.0, 0.1, 10, 100),
    'warmup_exponential_decay_schedule': lambda f: f(0.0, 0.1, 10, 20, 0.5),
    'with_extra_args_support': lambda f: f(_sgd()),
    'chain': lambda f: f(optax.clip(1.0), optax.scale(-0.1)),
    'named_chain': lambda f: f(('clip', optax.clip(1.0)),
                               ('scale', optax.scale(-0.1))),
    # Losses.
    'binary_dice_loss': lambda f: f(_probs((4,), 17), _probs((4,), 18)),
    'dice_loss': lambda f: f(_probs((2, 4), 17), _probs((2, 4), 18)),
    'multiclass_generalized_dice_loss': lambda f: f(
        _probs((2, 4, 3), 17), _onehot(8, 3, 18).reshape(2, 4, 3)),
    'convex_kl_divergence': lambda f: f(jnp.log(_probs((2, 3), 17)),
                                        _probs((2, 3), 18)),
    'generalized_kl_divergence': lambda f: f(jnp.log(_probs((2, 3), 17)),
                                             _probs((2, 3), 18)),
    'kl_divergence': lambda f: f(jnp.log(_probs((2, 3), 17)),
                                 _probs((2, 3), 18)),
    'kl_divergence_with_log_targets': lambda f: f(
        jnp.log(_probs((2, 3), 17)), jnp.log(_probs((2, 3), 18))),
    'hinge_loss': lambda f: f(_rand((4,), 19), jnp.asarray([1., -1, 1, -1])),
    'perceptron_loss': lambda f: f(_rand((4,), 19),
                                   jnp.asarray([1., -1, 1, -1])),
    'huber_loss': lambda f: f(_rand((4,), 19), _rand((4,), 20)),
    'l2_loss': lambda f: f(_rand((4,), 19), _rand((4,), 20)),
    'log_cosh': lambda f: f(_rand((4,), 19), _rand((4,), 20)),
    'squared_error': lambda f: f(_rand((4,), 19), _rand((4,), 20)),
    'multiclass_hinge_loss': lambda f: f(_rand((4, 3), 19), _labels(4, 3, 20)),
    'multiclass_perceptron_loss': lambda f: f(_rand((4, 3), 19),
                                              _labels(4, 3, 20)),
    'multiclass_sparsemax_loss': lambda f: f(_rand((4, 3), 19),
                                             _labels(4, 3, 20)),
    'ntxent': lambda f: f(_rand((4, 3), 19), jnp.asarray([0, 0, 1, 1])),
    'poly_loss_cross_entropy': lambda f: f(_rand((4, 3), 19),
                                           _onehot(4, 3, 20)),
    'ranking_softmax_loss': lambda f: f(_rand((4,), 19),
                                        jnp.asarray([0., 1, 0, 0])),
    'safe_softmax_cross_entropy': lambda f: f(_rand((4, 3), 19),
                                              _onehot(4, 3, 20)),
    'softmax_cross_entropy': lambda f: f(_rand((4, 3), 19), _onehot(4, 3, 20)),
    'softmax_cross_entropy_with_integer_labels': lambda f: f(
        _rand((4, 3), 19), _labels(4, 3, 20)),
    'sigmoid_binary_cross_entropy': lambda f: f(_rand((4,), 19),
                                                jnp.asarray([0., 1, 1, 0])),
    'sigmoid_focal_loss': lambda f: f(_rand((4,), 19),
                                      jnp.asarray([0., 1, 1, 0])),
    'sparsemax_loss': lambda f: f(_rand((4,), 19), jnp.asarray([0, 1, 1, 0])),
    'smooth_labels': lambda f: f(_onehot(4, 3, 20), 0.1),
    'triplet_margin_loss': lambda f: f(_rand((4, 3), 19), _rand((4, 3), 20),
                                       _rand((4, 3), 21)),
    # Projections.
    'projection_box': lambda f: f(_tree(1), _tree_full(1, -0.5),
                                  _tree_full(1, 0.5)),
    'projection_halfspace': lambda f: f(_rand((3,), 1), _rand((3,), 2), 0.5),
    'projection_hyperplane': lambda f: f(_rand((3,), 1), _rand((3,), 2), 0.5),
    'projection_vector': lambda f: f(_rand((3,), 1), _rand((3,), 2)),
    'projection_hypercube': lambda f: f(_rand((3,), 1)),
    'projection_l1_ball': lambda f: f(_tree(1)),
    'projection_l1_sphere': lambda f: f(_tree(1)),
    'projection_l2_ball': lambda f: f(_tree(1)),
    'projection_l2_sphere': lambda f: f(_tree(1)),
    'projection_linf_ball': lambda f: f(_tree(1)),
    'projection_non_negative': lambda f: f(_tree(1)),
    'projection_simplex': lambda f: f(_tree(1)),
}

# The tree utilities, by their optax.tree name: optax.tree.add and
# optax.tree_utils.tree_add share an entry.
_TREE_CALLS: dict[str, Callable[[Any], Any]] = {
    'add': lambda f: f(_tree(1), _tree(2)),
    'add_scale': lambda f: f(_tree(1), 0.5, _tree(2)),
    'add_scalar_mul': lambda f: f(_tree(1), 0.5, _tree(2)),
    'allclose': lambda f: f(_tree(1), _tree(1)),
    'batch_shape': lambda f: f({'a': jnp.zeros((2, 3)), 'b': jnp.zeros(2)}),
    'cast': lambda f: f(_tree(1), jnp.bfloat16),
    'cast_like': lambda f: f(_tree(1), _tree(2, 'bf16')),
    'conj': lambda f: f(_tree(1)),
    'div': lambda f: f(_tree(1), _tree(2)),
    'dtype': lambda f: str(f(_tree(1))),
    'full_like': lambda f: f(_tree(1), 3.0),
    'get': lambda f: f(optax.adam(0.1).init(make_params('f32')), 'count'),
    'get_all_with_path': lambda f: f(optax.adam(0.1).init(
        make_params('f32')), 'count'),
    'l1_norm': lambda f: f(_tree(1)),
    'l2_norm': lambda f: f(_tree(1)),
    'linf_norm': lambda f: f(_tree(1)),
    'max': lambda f: f(_tree(1)),
    'min': lambda f: f(_tree(1)),
    'mul': lambda f: f(_tree(1), _tree(2)),
    'norm': lambda f: f(_tree(1)),
    'ones_like': lambda f: f(_tree(1)),
    'random_like': lambda f: f(jax.random.key(0), _tree(1)),
    'real': lambda f: f(_tree(1)),
    'scalar_mul': lambda f: f(0.5, _tree(1)),
    'set': lambda f: f(optax.adam(0.1).init(make_params('f32')),
                       count=jnp.int32(3)),
    'size': lambda f: f(_tree(1)),
    'split_key_like': lambda f: f(jax.random.key(0), _tree(1)),
    'sub': lambda f: f(_tree(1), _tree(2)),
    'sum': lambda f: f(_tree(1)),
    'unwrap_random_key_data': lambda f: f({'k': jax.random.key(0)}),
    'update_infinity_moment': lambda f: f(_tree(1), _tree(2), 0.9, 1e-8),
    'update_moment': lambda f: f(_tree(1), _tree(2), 0.9, 2),
    'update_moment_per_elem_norm': lambda f: f(_tree(1), _tree(2), 0.9, 2),
    'vdot': lambda f: f(_tree(1), _tree(2)),
    'where': lambda f: f(True, _tree(1), _tree(2)),
    'zeros_like': lambda f: f(_tree(1)),
    'clip': lambda f: f(_tree(1), -0.5, 0.5),
    'scale': lambda f: f(0.5, _tree(1)),
}

# Built from upstream 0.2.8's signatures: the names whose only required
# argument is the learning rate, and those that need no argument.
_LR_ONLY = frozenset("""
    acprop adabelief adagrad adam adamax adamaxw adamw adan ademamix adopt
    amsgrad fromage galore lamb lars lion madgrad muon nadam nadamw
    noisy_sgd novograd optimistic_adam optimistic_adam_v2
    optimistic_gradient_descent radam rmsprop rprop scale_by_madgrad
    scale_by_rprop sgd sign_sgd signum simplified_ademamix sm3 sophia yogi
    """.split())
_NO_ARGS = frozenset("""
    Gumbel Normal adadelta adafactor add_decayed_weights apply_every
    centralize cocob dadapt_adamw dog dowg
    hutchinson_estimator_diag_hessian identity keep_params_nonnegative lbfgs
    momo momo_adam normalize normalize_by_update_norm polyak_sgd
    prodigy reduce_on_plateau scale_by_acprop scale_by_adadelta
    scale_by_adam scale_by_adamax scale_by_adan scale_by_ademamix
    scale_by_adopt scale_by_amsgrad scale_by_belief scale_by_cocob
    scale_by_distance_over_gradients scale_by_factored_rms scale_by_galore
    scale_by_lbfgs scale_by_learning_rate scale_by_lion scale_by_muon
    scale_by_novograd scale_by_optimistic_gradient scale_by_param_block_norm
    scale_by_param_block_rms scale_by_polyak scale_by_radam scale_by_rms
    scale_by_rss scale_by_sign scale_by_simplified_ademamix scale_by_sm3
    scale_by_stddev scale_by_trust_ratio scale_by_yogi schedule_free_adamw
    schedule_free_sgd set_to_zero zero_nans
    """.split())
# Transformations whose update needs extra arguments (a value, a function,
# per-example gradients): initialised only.
_INIT_ONLY = frozenset("""
    polyak_sgd scale_by_polyak lbfgs scale_by_lbfgs
    scale_by_backtracking_linesearch scale_by_zoom_linesearch
    reduce_on_plateau momo momo_adam sophia
    hutchinson_estimator_diag_hessian dpsgd differentially_private_aggregate
    """.split())
_TREE_MODULES = ('optax.tree', 'optax.tree_utils')


def _ctc_call(f):
  logits = _rand((2, 6, 4), 41)
  logit_pad = jnp.asarray([[0, 0, 0, 0, 0, 0], [0, 0, 0, 0, 1, 1]],
                          jnp.float32)
  labels = jnp.asarray([[1, 2, 1], [3, 1, 0]], jnp.int32)
  label_pad = jnp.asarray([[0, 0, 0], [0, 0, 1]], jnp.float32)
  return f(logits, logit_pad, labels, label_pad)


def _map_params_call(f):
  tx = optax.adam(0.1)
  params = make_params('f32')
  return f(tx, lambda p: p * 2.0, tx.init(params))


def _schedule_free_eval_call(f):
  tx = optax.contrib.schedule_free_sgd(0.1)
  params = make_params('f32')
  return f(tx.init(params), params)


def _lookahead_call(tx):
  params = optax.LookaheadParams.init_synced(make_params('f32'))
  return tx.update(params, tx.init(params), params)[0]


# Transformations for matrices only: their params are the (4, 3) array alone
# (upstream 0.2.8's scale_by_muon raises on a dict holding only that matrix).
_MATRIX_ONLY = ('scale_by_muon',)


def _use(name: str, result: Any) -> Any:
  """What a case records of what ``name`` returned.

  A transformation's first update of the float32 params (its initial state
  where the update needs extra arguments), a schedule's value at step 3,
  nothing for another function, the result itself otherwise.
  """
  if isinstance(result, optax.GradientTransformation):
    params = make_params('f32')
    if name in _MATRIX_ONLY:
      params = params['w']
    state = result.init(params)
    if name in _INIT_ONLY:
      return state
    update = jax.jit(result.update) if name in HEAVY else result.update
    updates, _ = update(params, state, params)
    return updates
  if callable(result):
    if 'schedule' in name or name == 'exponential_decay':
      return result(3)
    return None
  return result


def _construct(module: str, name: str) -> Any:
  """Looks ``module.name`` up, calls it as documented, uses the result."""
  obj = getattr(importlib.import_module(module), name)
  if module in _TREE_MODULES:
    short = name[len('tree_'):] if name.startswith('tree_') else name
    call = _TREE_CALLS.get(short)
  else:
    call = _CALLS.get(name)
  if call is not None:
    return _use(name, call(obj))
  if name in _LR_ONLY:
    return _use(name, obj(0.1))
  if name in _NO_ARGS:
    return _use(name, obj())
  return None


def construct_cases() -> list[FnCase]:
  """One case per public name of upstream 0.2.8."""
  return [FnCase(f'construct/{module}.{name}',
                 functools.partial(_construct, module, name))
          for module, names in PUBLIC_NAMES.items()
          for name in names.split()]


def all_cases() -> list[OptCase | FnCase]:
  """Every case, with a check that names are unique."""
  cases = optimizer_cases() + function_cases() + construct_cases()
  names = [c.name for c in cases]
  dup = {n for n in names if names.count(n) > 1}
  if dup:
    raise ValueError(f'duplicate case names: {sorted(dup)}')
  return cases
