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
"""Gradient transformations that rescale updates (re-exports).

Upstream Optax 0.2.8 defines its rescaling transformations in this module,
and user code, pickles and checkpoints name them here. The fork defines them
by family and re-exports them under their upstream names:

* :mod:`optax._src.step_size`: ``scale``, schedules, learning rate, Polyak,
  DoG;
* :mod:`optax._src.adam_family`: Adam, Adamax, AMSGrad, Adan, AdaBelief,
  NovoGrad, RAdam, Yogi;
* :mod:`optax._src.second_moment`: RMSProp, centered RMSProp, Adagrad, SM3,
  Adadelta;
* :mod:`optax._src.sign_based`: sign, Lion, Rprop;
* :mod:`optax._src.param_block`: trust ratio, param block norm and RMS;
* :mod:`optax._src.lbfgs`: L-BFGS;
* :mod:`optax._src.update_normalization`: ``centralize``,
  ``normalize_by_update_norm``;
* :mod:`optax._src.optimistic_gradient`: the optimistic gradient rule;
* :mod:`optax._src.gradient_accumulation`: ``apply_every``.

The helpers they share live in :mod:`optax._src.moments` and
:mod:`optax._src.validation`.

Every public class and function defined there has ``__module__`` set to this
module's name, as upstream, so that a state pickled by either package
unpickles with the other.
"""

from optax._src import adam_family
from optax._src import base
from optax._src import gradient_accumulation
from optax._src import lbfgs
from optax._src import moments
from optax._src import optimistic_gradient
from optax._src import param_block
from optax._src import second_moment
from optax._src import sign_based
from optax._src import step_size
from optax._src import update_normalization
from optax.transforms import _accumulation
from optax.transforms import _adding

# Transformations that moved to ``optax.transforms`` or ``base``.
add_decayed_weights = _adding.add_decayed_weights
AddDecayedWeightsState = base.AddDecayedWeightsState
add_noise = _adding.add_noise
AddNoiseState = _adding.AddNoiseState
ema = _accumulation.ema
EmaState = _accumulation.EmaState
trace = _accumulation.trace
TraceState = _accumulation.TraceState
ScaleByTrustRatioState = base.ScaleByTrustRatioState
ScaleState = base.ScaleState

scale = step_size.scale
ScaleByScheduleState = step_size.ScaleByScheduleState
scale_by_schedule = step_size.scale_by_schedule
scale_by_learning_rate = step_size.scale_by_learning_rate
scale_by_polyak = step_size.scale_by_polyak
ScaleByDistanceOverGradientsState = step_size.ScaleByDistanceOverGradientsState
scale_by_distance_over_gradients = step_size.scale_by_distance_over_gradients

ScaleByAdamState = adam_family.ScaleByAdamState
scale_by_adam = adam_family.scale_by_adam
scale_by_adamax = adam_family.scale_by_adamax
ScaleByAmsgradState = adam_family.ScaleByAmsgradState
scale_by_amsgrad = adam_family.scale_by_amsgrad
ScaleByAdanState = adam_family.ScaleByAdanState
scale_by_adan = adam_family.scale_by_adan
ScaleByBeliefState = adam_family.ScaleByBeliefState
scale_by_belief = adam_family.scale_by_belief
ScaleByNovogradState = adam_family.ScaleByNovogradState
scale_by_novograd = adam_family.scale_by_novograd
scale_by_radam = adam_family.scale_by_radam
scale_by_yogi = adam_family.scale_by_yogi

scale_by_sign = sign_based.scale_by_sign
ScaleByLionState = sign_based.ScaleByLionState
scale_by_lion = sign_based.scale_by_lion
ScaleByRpropState = sign_based.ScaleByRpropState
scale_by_rprop = sign_based.scale_by_rprop

ScaleByRmsState = second_moment.ScaleByRmsState
ScaleByRmsWithCountState = second_moment.ScaleByRmsWithCountState
scale_by_rms = second_moment.scale_by_rms
ScaleByRStdDevState = second_moment.ScaleByRStdDevState
ScaleByRStdDevWithCountState = second_moment.ScaleByRStdDevWithCountState
scale_by_stddev = second_moment.scale_by_stddev
ScaleByRssState = second_moment.ScaleByRssState
scale_by_rss = second_moment.scale_by_rss
ScaleBySM3State = second_moment.ScaleBySM3State
scale_by_sm3 = second_moment.scale_by_sm3
ScaleByAdaDeltaState = second_moment.ScaleByAdaDeltaState
scale_by_adadelta = second_moment.scale_by_adadelta

ScaleByLBFGSState = lbfgs.ScaleByLBFGSState
scale_by_lbfgs = lbfgs.scale_by_lbfgs

scale_by_trust_ratio = param_block.scale_by_trust_ratio
scale_by_param_block_norm = param_block.scale_by_param_block_norm
scale_by_param_block_rms = param_block.scale_by_param_block_rms

centralize = update_normalization.centralize
normalize_by_update_norm = update_normalization.normalize_by_update_norm

ScaleByOptimisticGradientState = (
    optimistic_gradient.ScaleByOptimisticGradientState)
scale_by_optimistic_gradient = optimistic_gradient.scale_by_optimistic_gradient

ApplyEvery = gradient_accumulation.ApplyEvery
apply_every = gradient_accumulation.apply_every

# Private names that tests (upstream's too) and other modules import from here.
_nesterov_first_moment = moments.nesterov_first_moment
# pylint: disable-next=protected-access
_precondition_by_lbfgs = lbfgs._precondition_by_lbfgs

# Upstream defines the public names re-exported from the family modules in
# this module, and pickles and checkpoints record it: give them its name.
for _module in (step_size, adam_family, sign_based, second_moment, lbfgs,
                param_block, update_normalization, optimistic_gradient,
                gradient_accumulation):
  for _name in dir(_module):
    _obj = getattr(_module, _name)
    if (not _name.startswith('_')
        and getattr(_obj, '__module__', None) == _module.__name__):
      _obj.__module__ = __name__
del _module, _name, _obj
