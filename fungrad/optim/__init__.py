"""fg.optim: optax-style optimizers as pure functions over pytrees.

    >>> import fungrad as fg, numpy as np
    >>> opt = fg.optim.adam(1e-3)
    >>> params = {"w": np.ones(3)}
    >>> state = opt.init(params)
    >>> grads = {"w": np.ones(3)}
    >>> updates, state = opt.update(grads, state, params)
    >>> params = fg.optim.apply_updates(params, updates)
"""
from .base import (GradientTransformation, EmptyState, Schedule, ScalarOrSchedule, identity,
                   stateless, chain, apply_updates, global_norm)
from .schedules import (constant_schedule, polynomial_schedule, linear_schedule,
                        exponential_decay, cosine_decay_schedule, join_schedules,
                        warmup_cosine_decay_schedule, warmup_exponential_decay_schedule,
                        piecewise_constant_schedule, piecewise_interpolate_schedule,
                        cosine_onecycle_schedule, warmup_constant_schedule,
                        linear_onecycle_schedule, sgdr_schedule)
from .transforms import (scale, scale_by_schedule, scale_by_learning_rate, trace, ema,
                         scale_by_adam, scale_by_adamax, scale_by_rms, scale_by_stddev,
                         scale_by_rss, scale_by_lion, scale_by_radam, scale_by_adadelta,
                         scale_by_trust_ratio, add_noise, clip, clip_by_global_norm,
                         clip_by_block_rms, zero_nans, add_decayed_weights, masked,
                         multi_transform, scale_by_factored_rms, scale_by_param_block_rms,
                         scale_by_amsgrad, scale_by_belief, scale_by_yogi, scale_by_novograd,
                         scale_by_adan, scale_by_sm3, scale_by_rprop, scale_by_sign,
                         scale_by_optimistic_gradient, scale_by_polyak, centralize, set_to_zero,
                         keep_params_nonnegative, scale_by_param_block_norm,
                         adaptive_grad_clip, stateless_with_tree_map, apply_every,
                         scale_gradient, per_example_global_norm_clip)
from .wrappers import (MultiSteps, apply_if_finite, inject_hyperparams, all_finite,
                       skip_not_finite, skip_large_updates, lookahead, LookaheadParams)
from .loss_scaling import DynamicLossScale, LossScaleState
from .optimizers import (sgd, noisy_sgd, adam, nadam, adamw, adamax, radam, rmsprop, adagrad,
                         adadelta, lion, lamb, lars, adafactor, amsgrad, adabelief, yogi,
                         novograd, nadamw, adamaxw, sign_sgd, signum, rprop, adan, polyak_sgd,
                         fromage, sm3, optimistic_gradient_descent, optimistic_adam_v2)

__all__ = [
    "GradientTransformation", "EmptyState", "Schedule", "ScalarOrSchedule", "identity",
    "stateless", "chain", "apply_updates", "global_norm",
    "constant_schedule", "polynomial_schedule", "linear_schedule", "exponential_decay",
    "cosine_decay_schedule", "join_schedules", "warmup_cosine_decay_schedule",
    "warmup_exponential_decay_schedule", "piecewise_constant_schedule",
    "piecewise_interpolate_schedule", "cosine_onecycle_schedule",
    "scale", "scale_by_schedule", "scale_by_learning_rate", "trace", "ema", "scale_by_adam",
    "scale_by_adamax", "scale_by_rms", "scale_by_stddev", "scale_by_rss", "scale_by_lion",
    "scale_by_radam", "scale_by_adadelta", "scale_by_trust_ratio", "add_noise", "clip",
    "clip_by_global_norm", "clip_by_block_rms", "zero_nans", "add_decayed_weights", "masked",
    "multi_transform", "scale_by_factored_rms", "scale_by_param_block_rms",
    "MultiSteps", "apply_if_finite", "inject_hyperparams", "all_finite",
    "skip_not_finite", "sgd", "noisy_sgd", "adam", "nadam", "adamw", "adamax", "radam",
    "rmsprop", "adagrad", "adadelta", "lion", "lamb", "lars", "adafactor", "DynamicLossScale",
    "LossScaleState",
    "warmup_constant_schedule", "linear_onecycle_schedule", "sgdr_schedule",
    "scale_by_amsgrad", "scale_by_belief", "scale_by_yogi", "scale_by_novograd",
    "scale_by_adan", "scale_by_sm3", "scale_by_rprop", "scale_by_sign",
    "scale_by_optimistic_gradient", "scale_by_polyak", "centralize", "set_to_zero",
    "keep_params_nonnegative", "scale_by_param_block_norm", "adaptive_grad_clip",
    "stateless_with_tree_map", "apply_every", "scale_gradient", "per_example_global_norm_clip",
    "skip_large_updates", "lookahead", "LookaheadParams",
    "amsgrad", "adabelief", "yogi", "novograd", "nadamw", "adamaxw", "sign_sgd", "signum",
    "rprop", "adan", "polyak_sgd", "fromage", "sm3", "optimistic_gradient_descent",
    "optimistic_adam_v2",
]
