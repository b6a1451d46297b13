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

"""Optax: composable gradient transformations and optimizers for JAX."""

__version__ = "0.2.8.post1"


from optax import assignment
from optax import contrib
from optax import experimental
from optax import losses
from optax import microbatching
from optax import perturbations
from optax import projections
from optax import schedules
from optax import second_order
from optax import transforms
from optax import tree
from optax import tree_utils
from optax._src.alias import adabelief
from optax._src.alias import adadelta
from optax._src.alias import adafactor
from optax._src.alias import adagrad
from optax._src.alias import adam
from optax._src.alias import adamax
from optax._src.alias import adamaxw
from optax._src.alias import adamw
from optax._src.alias import adan
from optax._src.alias import amsgrad
from optax._src.alias import fromage
from optax._src.alias import lamb
from optax._src.alias import lars
from optax._src.alias import lbfgs
from optax._src.alias import lion
from optax._src.alias import nadam
from optax._src.alias import nadamw
from optax._src.alias import noisy_sgd
from optax._src.alias import novograd
from optax._src.alias import optimistic_adam
from optax._src.alias import optimistic_adam_v2
from optax._src.alias import optimistic_gradient_descent
from optax._src.alias import polyak_sgd
from optax._src.alias import radam
from optax._src.alias import rmsprop
from optax._src.alias import rprop
from optax._src.alias import sgd
from optax._src.alias import sign_sgd
from optax._src.alias import signum
from optax._src.alias import sm3
from optax._src.alias import yogi
from optax._src.base import AdaptiveGradClipState
from optax._src.base import AddDecayedWeightsState
from optax._src.base import ArrayTree
from optax._src.base import ClipByGlobalNormState
from optax._src.base import ClipState
from optax._src.base import EmptyState
from optax._src.base import GradientTransformation
from optax._src.base import GradientTransformationExtraArgs
from optax._src.base import MaskOrFn
from optax._src.base import NonNegativeParamsState
from optax._src.base import OptState
from optax._src.base import Params
from optax._src.base import ScalarOrSchedule
from optax._src.base import ScaleByTrustRatioState
from optax._src.base import ScaleState
from optax._src.base import Schedule
from optax._src.base import TransformInitFn
from optax._src.base import TransformUpdateExtraArgsFn
from optax._src.base import TransformUpdateFn
from optax._src.base import Updates
from optax._src.base import identity
from optax._src.base import init_empty_state
from optax._src.base import set_to_zero
from optax._src.base import stateless
from optax._src.base import stateless_with_tree_map
from optax._src.base import with_extra_args_support
from optax._src.factorized import FactoredState
from optax._src.factorized import scale_by_factored_rms
from optax._src.linear_algebra import global_norm
from optax._src.linear_algebra import matrix_inverse_pth_root
from optax._src.linear_algebra import nnls
from optax._src.linear_algebra import power_iteration
from optax._src.linesearch import ScaleByBacktrackingLinesearchState
from optax._src.linesearch import ScaleByZoomLinesearchState
from optax._src.linesearch import ZoomLinesearchInfo
from optax._src.linesearch import scale_by_backtracking_linesearch
from optax._src.linesearch import scale_by_zoom_linesearch
from optax._src.linesearch import value_and_grad_from_state
from optax._src.lookahead import LookaheadParams
from optax._src.lookahead import LookaheadState
from optax._src.lookahead import lookahead
from optax._src.numerics import safe_increment
from optax._src.numerics import safe_int32_increment
from optax._src.numerics import safe_norm
from optax._src.numerics import safe_root_mean_squares
from optax._src.transform import ApplyEvery
from optax._src.transform import ScaleByAdaDeltaState
from optax._src.transform import ScaleByAdamState
from optax._src.transform import ScaleByAdanState
from optax._src.transform import ScaleByAmsgradState
from optax._src.transform import ScaleByBeliefState
from optax._src.transform import ScaleByLBFGSState
from optax._src.transform import ScaleByLionState
from optax._src.transform import ScaleByNovogradState
from optax._src.transform import ScaleByRStdDevState
from optax._src.transform import ScaleByRmsState
from optax._src.transform import ScaleByRpropState
from optax._src.transform import ScaleByRssState
from optax._src.transform import ScaleBySM3State
from optax._src.transform import ScaleByScheduleState
from optax._src.transform import apply_every
from optax._src.transform import centralize
from optax._src.transform import normalize_by_update_norm
from optax._src.transform import scale
from optax._src.transform import scale_by_adadelta
from optax._src.transform import scale_by_adam
from optax._src.transform import scale_by_adamax
from optax._src.transform import scale_by_adan
from optax._src.transform import scale_by_amsgrad
from optax._src.transform import scale_by_belief
from optax._src.transform import scale_by_distance_over_gradients
from optax._src.transform import scale_by_lbfgs
from optax._src.transform import scale_by_learning_rate
from optax._src.transform import scale_by_lion
from optax._src.transform import scale_by_novograd
from optax._src.transform import scale_by_optimistic_gradient
from optax._src.transform import scale_by_param_block_norm
from optax._src.transform import scale_by_param_block_rms
from optax._src.transform import scale_by_polyak
from optax._src.transform import scale_by_radam
from optax._src.transform import scale_by_rms
from optax._src.transform import scale_by_rprop
from optax._src.transform import scale_by_rss
from optax._src.transform import scale_by_schedule
from optax._src.transform import scale_by_sign
from optax._src.transform import scale_by_sm3
from optax._src.transform import scale_by_stddev
from optax._src.transform import scale_by_trust_ratio
from optax._src.transform import scale_by_yogi
from optax._src.update import apply_updates
from optax._src.update import incremental_update
from optax._src.update import periodic_update
from optax._src.utils import multi_normal
from optax._src.utils import scale_gradient
from optax.losses._classification import convex_kl_divergence
from optax.losses._classification import ctc_loss
from optax.losses._classification import ctc_loss_with_forward_probs
from optax.losses._classification import generalized_kl_divergence
from optax.losses._classification import hinge_loss
from optax.losses._classification import kl_divergence
from optax.losses._classification import safe_softmax_cross_entropy
from optax.losses._classification import sigmoid_binary_cross_entropy
from optax.losses._classification import sigmoid_focal_loss
from optax.losses._classification import softmax_cross_entropy
from optax.losses._classification import (
    softmax_cross_entropy_with_integer_labels,
)
from optax.losses._regression import cosine_distance
from optax.losses._regression import cosine_similarity
from optax.losses._regression import huber_loss
from optax.losses._regression import l2_loss
from optax.losses._regression import log_cosh
from optax.losses._regression import squared_error
from optax.losses._self_supervised import ntxent
from optax.losses._smoothing import smooth_labels
from optax.microbatching._microbatching import microbatch
from optax.schedules._inject import InjectHyperparamsState
from optax.schedules._inject import InjectStatefulHyperparamsState
from optax.schedules._inject import WrappedSchedule
from optax.schedules._inject import inject_hyperparams
from optax.schedules._inject import inject_stateful_hyperparams
from optax.schedules._join import join_schedules
from optax.schedules._schedule import constant_schedule
from optax.schedules._schedule import cosine_decay_schedule
from optax.schedules._schedule import cosine_onecycle_schedule
from optax.schedules._schedule import exponential_decay
from optax.schedules._schedule import linear_onecycle_schedule
from optax.schedules._schedule import linear_schedule
from optax.schedules._schedule import piecewise_constant_schedule
from optax.schedules._schedule import piecewise_interpolate_schedule
from optax.schedules._schedule import polynomial_schedule
from optax.schedules._schedule import sgdr_schedule
from optax.schedules._schedule import warmup_constant_schedule
from optax.schedules._schedule import warmup_cosine_decay_schedule
from optax.schedules._schedule import warmup_exponential_decay_schedule
from optax.transforms._accumulation import EmaState
from optax.transforms._accumulation import MultiSteps
from optax.transforms._accumulation import MultiStepsState
from optax.transforms._accumulation import ShouldSkipUpdateFunction
from optax.transforms._accumulation import TraceState
from optax.transforms._accumulation import ema
from optax.transforms._accumulation import skip_large_updates
from optax.transforms._accumulation import skip_not_finite
from optax.transforms._accumulation import trace
from optax.transforms._adding import AddNoiseState
from optax.transforms._adding import add_decayed_weights
from optax.transforms._adding import add_noise
from optax.transforms._clipping import adaptive_grad_clip
from optax.transforms._clipping import clip
from optax.transforms._clipping import clip_by_block_rms
from optax.transforms._clipping import clip_by_global_norm
from optax.transforms._clipping import per_example_global_norm_clip
from optax.transforms._clipping import per_example_layer_norm_clip
from optax.transforms._combining import MultiTransformState
from optax.transforms._combining import PartitionState
from optax.transforms._combining import chain
from optax.transforms._combining import multi_transform
from optax.transforms._combining import named_chain
from optax.transforms._combining import partition
from optax.transforms._conditionality import ApplyIfFiniteState
from optax.transforms._conditionality import ConditionallyMaskState
from optax.transforms._conditionality import ConditionallyTransformState
from optax.transforms._conditionality import apply_if_finite
from optax.transforms._conditionality import conditionally_mask
from optax.transforms._conditionality import conditionally_transform
from optax.transforms._constraining import ZeroNansState
from optax.transforms._constraining import keep_params_nonnegative
from optax.transforms._constraining import zero_nans
from optax.transforms._freezing import freeze
from optax.transforms._freezing import selective_transform
from optax.transforms._layouts import flatten
from optax.transforms._masking import MaskedNode
from optax.transforms._masking import MaskedState
from optax.transforms._masking import masked
from optax.transforms._monitoring import MonitorState
from optax.transforms._monitoring import SnapshotState
from optax.transforms._monitoring import measure_with_ema
from optax.transforms._monitoring import monitor
from optax.transforms._monitoring import snapshot
from optax.tree_utils._state_utils import tree_map_params
from optax.tree_utils._tree_math import tree_bias_correction as bias_correction
from optax.tree_utils._tree_math import (
    tree_update_infinity_moment as update_infinity_moment,
)
from optax.tree_utils._tree_math import tree_update_moment as update_moment
from optax.tree_utils._tree_math import (
    tree_update_moment_per_elem_norm as update_moment_per_elem_norm,
)

# Names that upstream 0.2.8 serves only with a DeprecationWarning (the
# privacy aliases, moved to optax.contrib) or as a removed name (an
# AttributeError that says so).
from optax._src import deprecations as _deprecations

__getattr__ = _deprecations.module_getattr(__name__, {
    'differentially_private_aggregate': (
        'optax.differentially_private_aggregate is deprecated: use'
        ' optax.contrib.differentially_private_aggregate (optax v0.1.8 or'
        ' newer).',
        'optax.contrib:differentially_private_aggregate'),
    'DifferentiallyPrivateAggregateState': (
        'optax.DifferentiallyPrivateAggregateState is deprecated: use'
        ' optax.contrib.DifferentiallyPrivateAggregateState (optax v0.1.8 or'
        ' newer).',
        'optax.contrib:DifferentiallyPrivateAggregateState'),
    'dpsgd': (
        'optax.dpsgd is deprecated: use optax.contrib.dpsgd (optax v0.1.8 or'
        ' newer).',
        'optax.contrib:dpsgd'),
    'monte_carlo': (
        'optax.monte_carlo was deprecated and has been removed (since optax'
        ' 0.2.7).', None),
})
del _deprecations
