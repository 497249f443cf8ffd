"""Optimizers as chains of transformations (optax's aliases). Every `learning_rate` is a
number or a schedule `count -> value`."""
from __future__ import annotations

from typing import Any

import numpy as np

from .base import GradientTransformation, ScalarOrSchedule, chain, identity
from . import transforms as T


def _lr(learning_rate: ScalarOrSchedule) -> GradientTransformation:
    return T.scale_by_learning_rate(learning_rate)


def sgd(learning_rate: ScalarOrSchedule, momentum: float | None = None,
        nesterov: bool = False) -> GradientTransformation:
    """Stochastic gradient descent, with (Nesterov) momentum if `momentum` is given:
    `t = g + momentum * t`, `p -= lr * t` (`lr * (g + momentum * t)` if `nesterov`).

    Example:
        >>> import fungrad as fg, numpy as np
        >>> opt = fg.optim.sgd(0.1, momentum=0.9)
        >>> opt.update(np.ones(1), opt.init(np.zeros(1)))[0]
        array([-0.1])
    """
    return chain(T.trace(momentum, nesterov) if momentum is not None else identity(),
                 _lr(learning_rate))


def noisy_sgd(learning_rate: ScalarOrSchedule, eta: float = 0.01, gamma: float = 0.55,
              seed: int = 0) -> GradientTransformation:
    """SGD on gradients plus Gaussian noise of variance `eta / (1 + t)**gamma`, drawn with
    `fg.random` from `seed` (the same noise eagerly and under jit).

    Example:
        >>> import fungrad as fg, numpy as np
        >>> opt = fg.optim.noisy_sgd(0.1, eta=0.0)
        >>> opt.update(np.ones(1), opt.init(np.zeros(1)))[0]
        array([-0.1])
    """
    return chain(T.add_noise(eta, gamma, seed), _lr(learning_rate))


def adam(learning_rate: ScalarOrSchedule, b1: float = 0.9, b2: float = 0.999,
         eps: float = 1e-8, eps_root: float = 0.0, nesterov: bool = False
         ) -> GradientTransformation:
    """Adam: `p -= lr * m_hat / (sqrt(v_hat + eps_root) + eps)`.

    Example:
        >>> import fungrad as fg, numpy as np
        >>> opt = fg.optim.adam(0.1)
        >>> opt.update(np.array([5.0]), opt.init(np.zeros(1)))[0]
        array([-0.1])
    """
    return _with_learning_rate(
        T.scale_by_adam(b1, b2, eps, eps_root, nesterov), learning_rate,
        lambda g, s, step: T.adam_update(g, s, b1, b2, eps, eps_root, nesterov, step),
        "nadam" if nesterov else "adam")


def _with_learning_rate(direction: GradientTransformation, learning_rate: ScalarOrSchedule,
                        scaled_update, name: str) -> GradientTransformation:
    """`chain(direction, scale_by_learning_rate(learning_rate))`: the same state, the same
    values up to rounding, where `scaled_update(updates, state, step)` returns `direction`'s
    update already multiplied by the scalar `step` = -lr: the product rides on a scalar the
    formula has anyway instead of costing a pass over every leaf."""
    lr = _lr(learning_rate)

    def init(params):
        return (direction.init(params), lr.init(params))

    expected = []  # the state's types, (direction's, the learning rate's), found once

    def update(updates, state, params=None):
        if not expected:
            expected.extend(type(s) for s in init(()))
        if not (type(state) is tuple and len(state) == 2
                and all(type(s) is t for s, t in zip(state, expected))):
            # (another optimizer's state failed deep inside with a bare AttributeError)
            got = (f"a tuple of ({', '.join(type(s).__name__ for s in state)})"
                   if isinstance(state, tuple) else f"a {type(state).__name__}")
            raise TypeError(f"{name}.update: state is {got}, not the state {name}.init "
                            f"returns (a tuple of ({', '.join(t.__name__ for t in expected)}));"
                            f" pass the state returned by this optimizer's init(params), e.g. "
                            f"state = opt.init(params) with opt = fg.optim.{name}(...)")
        rate = learning_rate(state[1].count) if callable(learning_rate) else learning_rate
        out, inner = scaled_update(updates, state[0], -rate)
        return out, (inner, lr.update((), state[1])[1])  # (the schedule's count steps)
    return GradientTransformation(init, update)


def nadam(learning_rate: ScalarOrSchedule, b1: float = 0.9, b2: float = 0.999,
          eps: float = 1e-8, eps_root: float = 0.0) -> GradientTransformation:
    """NAdam: Adam with Nesterov momentum (optax's formula).

    Example:
        >>> import fungrad as fg, numpy as np
        >>> opt = fg.optim.nadam(0.1)
        >>> float(opt.update(np.array([5.0]), opt.init(np.zeros(1)))[0][0]) < 0
        True
    """
    return adam(learning_rate, b1, b2, eps, eps_root, nesterov=True)


def adamw(learning_rate: ScalarOrSchedule, b1: float = 0.9, b2: float = 0.999,
          eps: float = 1e-8, eps_root: float = 0.0, weight_decay: float = 1e-4,
          mask: Any = None, nesterov: bool = False) -> GradientTransformation:
    """AdamW: `p -= lr * (adam_direction + weight_decay * p)` (the decay is multiplied by the
    learning rate, as in optax).

    Example:
        >>> import fungrad as fg, numpy as np
        >>> opt = fg.optim.adamw(0.1, weight_decay=0.5)
        >>> opt.update(np.array([5.0]), opt.init(np.ones(1)), np.ones(1))[0]
        array([-0.15])
    """
    return chain(T.scale_by_adam(b1, b2, eps, eps_root, nesterov),
                 T.add_decayed_weights(weight_decay, mask), _lr(learning_rate))


def adamax(learning_rate: ScalarOrSchedule, b1: float = 0.9, b2: float = 0.999,
           eps: float = 1e-8) -> GradientTransformation:
    """AdaMax (Adam with the infinity norm).

    Example:
        >>> import fungrad as fg, numpy as np
        >>> opt = fg.optim.adamax(0.1)
        >>> opt.update(np.array([5.0]), opt.init(np.zeros(1)))[0]
        array([-0.1])
    """
    return chain(T.scale_by_adamax(b1, b2, eps), _lr(learning_rate))


def radam(learning_rate: ScalarOrSchedule, b1: float = 0.9, b2: float = 0.999,
          eps: float = 1e-8, eps_root: float = 0.0, threshold: float = 5.0
          ) -> GradientTransformation:
    """Rectified Adam (momentum SGD while the variance estimate is unreliable).

    Example:
        >>> import fungrad as fg, numpy as np
        >>> opt = fg.optim.radam(0.1)
        >>> opt.update(np.array([5.0]), opt.init(np.zeros(1)))[0]
        array([-0.5])
    """
    return chain(T.scale_by_radam(b1, b2, eps, eps_root, threshold), _lr(learning_rate))


def rmsprop(learning_rate: ScalarOrSchedule, decay: float = 0.9, eps: float = 1e-8,
            initial_scale: float = 0.0, eps_in_sqrt: bool = True, centered: bool = False,
            momentum: float | None = None, nesterov: bool = False) -> GradientTransformation:
    """RMSProp: `p -= lr * g / sqrt(v + eps)` (centered: `v - m**2` in place of `v`),
    optionally followed by momentum over the lr-scaled steps (as optax: with a schedule,
    each step's own learning rate scales it before it enters the momentum).

    Example:
        >>> import fungrad as fg, numpy as np
        >>> opt = fg.optim.rmsprop(0.1, decay=0.0, eps=0.0)
        >>> opt.update(np.array([5.0]), opt.init(np.zeros(1)))[0]
        array([-0.1])
    """
    scaling = (T.scale_by_stddev if centered else T.scale_by_rms)(
        decay, eps, initial_scale, eps_in_sqrt)
    return chain(scaling, _lr(learning_rate),
                 T.trace(momentum, nesterov) if momentum is not None else identity())


def adagrad(learning_rate: ScalarOrSchedule, initial_accumulator_value: float = 0.1,
            eps: float = 1e-7) -> GradientTransformation:
    """Adagrad: `s += g**2` (from `initial_accumulator_value`), `p -= lr * g / sqrt(s + eps)`.

    Example:
        >>> import fungrad as fg, numpy as np
        >>> opt = fg.optim.adagrad(0.1, initial_accumulator_value=0.0, eps=0.0)
        >>> opt.update(np.array([5.0]), opt.init(np.zeros(1)))[0]
        array([-0.1])
    """
    return chain(T.scale_by_rss(initial_accumulator_value, eps), _lr(learning_rate))


def adadelta(learning_rate: ScalarOrSchedule | None = None, rho: float = 0.9,
             eps: float = 1e-6, weight_decay: float = 0.0) -> GradientTransformation:
    """AdaDelta; `learning_rate=None` means 1 (the method's own step size: a descent step,
    where optax's None applies no sign flip and so ascends).

    Example:
        >>> import fungrad as fg, numpy as np
        >>> opt = fg.optim.adadelta(rho=0.0, eps=1.0)
        >>> opt.update(np.array([0.0]), opt.init(np.zeros(1)), np.zeros(1))[0]
        array([-0.])
    """
    lr = T.scale_by_learning_rate(learning_rate) if learning_rate is not None else T.scale(-1.0)
    return chain(T.add_decayed_weights(weight_decay), T.scale_by_adadelta(rho, eps), lr)


def lion(learning_rate: ScalarOrSchedule, b1: float = 0.9, b2: float = 0.99,
         weight_decay: float = 1e-3, mask: Any = None) -> GradientTransformation:
    """Lion: `p -= lr * (sign(b1 * m + (1 - b1) * g) + weight_decay * p)`.

    Example:
        >>> import fungrad as fg, numpy as np
        >>> opt = fg.optim.lion(0.1, weight_decay=0.0)
        >>> opt.update(np.array([5.0]), opt.init(np.zeros(1)), np.zeros(1))[0]
        array([-0.1])
    """
    return chain(T.scale_by_lion(b1, b2), T.add_decayed_weights(weight_decay, mask),
                 _lr(learning_rate))


def lamb(learning_rate: ScalarOrSchedule, b1: float = 0.9, b2: float = 0.999,
         eps: float = 1e-6, eps_root: float = 0.0, weight_decay: float = 0.0,
         mask: Any = None) -> GradientTransformation:
    """LAMB: Adam's direction plus weight decay, rescaled per leaf by `|p| / |u|`.

    Example:
        >>> import fungrad as fg, numpy as np
        >>> opt = fg.optim.lamb(0.1)
        >>> opt.update(np.array([5.0]), opt.init(np.ones(1)), np.ones(1))[0]
        array([-0.1])
    """
    return chain(T.scale_by_adam(b1, b2, eps, eps_root),
                 T.add_decayed_weights(weight_decay, mask), T.scale_by_trust_ratio(),
                 _lr(learning_rate))


def lars(learning_rate: ScalarOrSchedule, weight_decay: float = 0.0,
         weight_decay_mask: Any = True, trust_coefficient: float = 0.001, eps: float = 0.0,
         trust_ratio_mask: Any = True, momentum: float = 0.9,
         nesterov: bool = False) -> GradientTransformation:
    """LARS: SGD with momentum on `trust_coefficient * |p| / (|u| + eps)`-rescaled updates.

    Example:
        >>> import fungrad as fg, numpy as np
        >>> opt = fg.optim.lars(0.1, trust_coefficient=1.0)
        >>> opt.update(np.array([5.0]), opt.init(np.ones(1)), np.ones(1))[0]
        array([-0.1])
    """
    return chain(T.add_decayed_weights(weight_decay, weight_decay_mask),
                 T.masked(T.scale_by_trust_ratio(trust_coefficient=trust_coefficient, eps=eps),
                          trust_ratio_mask),
                 _lr(learning_rate), T.trace(momentum, nesterov))


def adafactor(learning_rate: ScalarOrSchedule | None = None, min_dim_size_to_factor: int = 128,
              decay_rate: float = 0.8, decay_offset: int = 0,
              multiply_by_parameter_scale: bool = True, clipping_threshold: float | None = 1.0,
              momentum: float | None = None, dtype_momentum: Any = np.float32,
              weight_decay_rate: ScalarOrSchedule | None = None, eps: float = 1e-30,
              factored: bool = True, weight_decay_mask: Any = None) -> GradientTransformation:
    """Adafactor (optax's chain): `scale_by_factored_rms` (g / sqrt of a factored second
    moment), then each optional stage: `clip_by_block_rms(clipping_threshold)`, times
    `learning_rate` (None: no factor), times the parameter's rms
    (`multiply_by_parameter_scale`, so the step is relative), a non-debiased `ema(momentum)`
    stored in `dtype_momentum`, `+ weight_decay_rate * p` (masked by `weight_decay_mask`;
    not multiplied by the learning rate), and finally a minus sign.

    Example:
        >>> import fungrad as fg, numpy as np
        >>> opt = fg.optim.adafactor(0.1, multiply_by_parameter_scale=False)
        >>> opt.update(np.array([5.0, -5.0]), opt.init(np.ones(2)), np.ones(2))[0]
        array([-0.1,  0.1])
    """
    stages = [T.scale_by_factored_rms(factored, decay_rate, decay_offset, min_dim_size_to_factor,
                                      eps)]
    if clipping_threshold is not None:
        stages.append(T.clip_by_block_rms(clipping_threshold))
    if learning_rate is not None:
        stages.append(T.scale_by_learning_rate(learning_rate, flip_sign=False))
    if multiply_by_parameter_scale:
        stages.append(T.scale_by_param_block_rms())
    if momentum is not None:
        stages.append(T.ema(momentum, debias=False, accumulator_dtype=dtype_momentum))
    if weight_decay_rate is not None:
        stages.append(T.add_decayed_weights(weight_decay_rate, weight_decay_mask))
    stages.append(T.scale(-1))   # descent: every stage above works on +g
    return chain(*stages)


def amsgrad(learning_rate: ScalarOrSchedule, b1: float = 0.9, b2: float = 0.999,
            eps: float = 1e-8, eps_root: float = 0.0, mu_dtype: Any = None,
            bias_correction_mu: bool = True,
            bias_correction_nu: bool = True) -> GradientTransformation:
    """AMSGrad: Adam whose denominator uses the running maximum of the second moment,
    `p -= lr * m_hat / (sqrt(max_t v_hat + eps_root) + eps)`.

    Example:
        >>> import fungrad as fg, numpy as np
        >>> opt = fg.optim.amsgrad(0.1)
        >>> opt.update(np.array([5.0]), opt.init(np.zeros(1)))[0]
        array([-0.1])
    """
    return chain(T.scale_by_amsgrad(b1, b2, eps, eps_root, mu_dtype, bias_correction_mu,
                                    bias_correction_nu), _lr(learning_rate))


def adabelief(learning_rate: ScalarOrSchedule, b1: float = 0.9, b2: float = 0.999,
              eps: float = 1e-16, eps_root: float = 1e-16, *,
              nesterov: bool = False) -> GradientTransformation:
    """AdaBelief: Adam with the second moment of `g - m` (the gradient's surprise),
    `p -= lr * m_hat / (sqrt(s_hat) + eps)`.

    Example:
        >>> import fungrad as fg, numpy as np
        >>> opt = fg.optim.adabelief(0.1)
        >>> float(opt.update(np.array([5.0]), opt.init(np.zeros(1)))[0][0]) < 0
        True
    """
    return chain(T.scale_by_belief(b1, b2, eps, eps_root, nesterov=nesterov),
                 _lr(learning_rate))


def yogi(learning_rate: ScalarOrSchedule, b1: float = 0.9, b2: float = 0.999,
         eps: float = 1e-3) -> GradientTransformation:
    """Yogi: Adam with the additive second-moment update `v -= (1-b2) sign(v - g²) g²`.

    Example:
        >>> import fungrad as fg, numpy as np
        >>> opt = fg.optim.yogi(0.1)
        >>> float(opt.update(np.array([5.0]), opt.init(np.zeros(1)))[0][0]) < 0
        True
    """
    return chain(T.scale_by_yogi(b1, b2, eps), _lr(learning_rate))


def novograd(learning_rate: ScalarOrSchedule, b1: float = 0.9, b2: float = 0.25,
             eps: float = 1e-6, eps_root: float = 0.0,
             weight_decay: float = 0.0) -> GradientTransformation:
    """NovoGrad: momentum over gradients normalized by a per-leaf second moment of their
    norm, plus `weight_decay * p`, times `-learning_rate`.

    Example:
        >>> import fungrad as fg, numpy as np
        >>> opt = fg.optim.novograd(0.1, eps=0.0)
        >>> opt.update(np.array([3.0, 4.0]), opt.init(np.zeros(2)), np.zeros(2))[0]
        array([-0.06, -0.08])
    """
    return chain(T.scale_by_novograd(b1, b2, eps, eps_root, weight_decay), _lr(learning_rate))


def nadamw(learning_rate: ScalarOrSchedule, b1: float = 0.9, b2: float = 0.999,
           eps: float = 1e-8, eps_root: float = 0.0, weight_decay: float = 1e-4,
           mask: Any = None) -> GradientTransformation:
    """NAdamW: `adamw` with Nesterov momentum (optax's `adamw(..., nesterov=True)`).

    Example:
        >>> import fungrad as fg, numpy as np
        >>> opt = fg.optim.nadamw(0.1, weight_decay=0.0)
        >>> float(opt.update(np.array([5.0]), opt.init(np.ones(1)), np.ones(1))[0][0]) < 0
        True
    """
    return adamw(learning_rate, b1, b2, eps, eps_root, weight_decay, mask, nesterov=True)


def adamaxw(learning_rate: ScalarOrSchedule, b1: float = 0.9, b2: float = 0.999,
            eps: float = 1e-8, weight_decay: float = 1e-4,
            mask: Any = None) -> GradientTransformation:
    """AdaMaxW: `adamax` with decoupled weight decay,
    `p -= lr * (adamax_direction + weight_decay * p)`.

    Example:
        >>> import fungrad as fg, numpy as np
        >>> opt = fg.optim.adamaxw(0.1, weight_decay=0.5)
        >>> opt.update(np.array([5.0]), opt.init(np.ones(1)), np.ones(1))[0]
        array([-0.15])
    """
    return chain(T.scale_by_adamax(b1, b2, eps), T.add_decayed_weights(weight_decay, mask),
                 _lr(learning_rate))


def sign_sgd(learning_rate: ScalarOrSchedule) -> GradientTransformation:
    """signSGD: `p -= lr * sign(g)`.

    Example:
        >>> import fungrad as fg, numpy as np
        >>> opt = fg.optim.sign_sgd(0.1)
        >>> opt.update(np.array([5.0, -0.01]), opt.init(np.zeros(2)))[0]
        array([-0.1,  0.1])
    """
    return chain(T.scale_by_sign(), _lr(learning_rate))


def signum(learning_rate: ScalarOrSchedule, beta: float = 0.9,
           accumulator_dtype: Any = None) -> GradientTransformation:
    """Signum: the sign of a (not debiased) momentum, `m = beta m + (1 - beta) g`,
    `p -= lr * sign(m)`; `m` stored in `accumulator_dtype` (the params' if None).

    Example:
        >>> import fungrad as fg, numpy as np
        >>> opt = fg.optim.signum(0.1)
        >>> opt.update(np.array([5.0, -0.01]), opt.init(np.zeros(2)))[0]
        array([-0.1,  0.1])
    """
    return chain(T.ema(beta, debias=False, accumulator_dtype=accumulator_dtype),
                 T.scale_by_sign(), _lr(learning_rate))


def rprop(learning_rate: float, eta_minus: float = 0.5, eta_plus: float = 1.2,
          min_step_size: float = 1e-6, max_step_size: float = 50.0) -> GradientTransformation:
    """Rprop: sign-based steps whose per-element sizes (starting at `learning_rate`, a
    number) adapt to sign changes of the gradient; `p -= step_size * sign(g)`, one call
    late as in optax 0.2.8 (see `scale_by_rprop`: the first update is 0).

    Example:
        >>> import fungrad as fg, numpy as np
        >>> opt = fg.optim.rprop(0.1)
        >>> u, state = opt.update(np.array([5.0, -0.01]), opt.init(np.zeros(2)))
        >>> opt.update(np.array([5.0, -0.01]), state)[0]
        array([-0.1,  0.1])
    """
    return chain(T.scale_by_rprop(learning_rate, eta_minus, eta_plus, min_step_size,
                                  max_step_size), T.scale(-1.0))


def adan(learning_rate: ScalarOrSchedule, b1: float = 0.98, b2: float = 0.92, b3: float = 0.99,
         eps: float = 1e-8, eps_root: float = 1e-8, weight_decay: ScalarOrSchedule = 0.0,
         mask: Any = None) -> GradientTransformation:
    """Adan (adaptive Nesterov momentum): `scale_by_adan`, plus `weight_decay * p`, times
    `-learning_rate`.

    Example:
        >>> import fungrad as fg, numpy as np
        >>> opt = fg.optim.adan(0.1, eps_root=0.0)
        >>> opt.update(np.array([5.0]), opt.init(np.zeros(1)), np.zeros(1))[0]
        array([-0.1])
    """
    return chain(T.scale_by_adan(b1, b2, b3, eps, eps_root),
                 T.add_decayed_weights(weight_decay, mask), _lr(learning_rate))


def polyak_sgd(max_learning_rate: float = 1.0, scaling: ScalarOrSchedule = 1.0,
               f_min: float = 0.0, eps: float = 0.0,
               variant: str = "sps") -> GradientTransformation:
    """SGD with Polyak's step size `min((f - f_min) / |g|**2, max_learning_rate)`, times
    `scaling`; the loss comes as a keyword: `opt.update(grads, state, params, value=loss)`.

    Example:
        >>> import fungrad as fg, numpy as np
        >>> opt = fg.optim.polyak_sgd()
        >>> g = np.array([3.0, 4.0])
        >>> opt.update(g, opt.init(np.zeros(2)), value=np.array(5.0))[0]
        array([-0.6, -0.8])
    """
    return chain(sgd(scaling), T.scale_by_polyak(f_min, max_learning_rate, eps, variant))


def fromage(learning_rate: ScalarOrSchedule, min_norm: float = 1e-6) -> GradientTransformation:
    """Fromage (Frobenius matched gradient descent): per-leaf trust-ratio steps
    `p = (p - lr * |p| / |g| * g) / sqrt(1 + lr**2)`.

    Example:
        >>> import fungrad as fg, numpy as np
        >>> opt = fg.optim.fromage(0.1)
        >>> p = np.array([3.0, 4.0])
        >>> fg.optim.apply_updates(p, opt.update(np.array([0.0, 1.0]), opt.init(p), p)[0])
        array([2.98511157, 3.48263017])
    """
    def mult(count):   # 1 / sqrt(1 + lr**2): keeps the parameters' norm from growing
        lr = learning_rate(count) if callable(learning_rate) else learning_rate
        return 1 / (1 + lr ** 2) ** 0.5
    if callable(learning_rate):
        return chain(T.scale_by_trust_ratio(min_norm),
                     T.scale_by_learning_rate(lambda c: mult(c) * learning_rate(c)),
                     T.add_decayed_weights(lambda c: mult(c) - 1))
    return chain(T.scale_by_trust_ratio(min_norm),
                 T.scale_by_learning_rate(learning_rate * mult(0)),
                 T.add_decayed_weights(mult(0) - 1))


def sm3(learning_rate: float, momentum: float = 0.9) -> GradientTransformation:
    """SM3: `scale_by_sm3(momentum)` times `-learning_rate` (a number).

    Example:
        >>> import fungrad as fg, numpy as np
        >>> opt = fg.optim.sm3(0.1, momentum=0.0)
        >>> opt.update(np.array([5.0]), opt.init(np.zeros(1)))[0]
        array([-0.1])
    """
    return chain(T.scale_by_sm3(momentum), T.scale(-learning_rate))


def optimistic_gradient_descent(learning_rate: ScalarOrSchedule, alpha: float = 1.0,
                                beta: float = 1.0) -> GradientTransformation:
    """Optimistic gradient descent (for min-max games):
    `p -= lr * ((alpha + beta) g_t - beta g_{t-1})`.

    Example:
        >>> import fungrad as fg, numpy as np
        >>> opt = fg.optim.optimistic_gradient_descent(0.1)
        >>> u, s = opt.update(np.array([1.0]), opt.init(np.zeros(1)))
        >>> opt.update(np.array([3.0]), s)[0]
        array([-0.5])
    """
    return chain(T.scale_by_optimistic_gradient(alpha, beta), _lr(learning_rate))


def optimistic_adam_v2(learning_rate: ScalarOrSchedule, *, alpha: float = 1.0,
                       beta: float = 1.0, b1: float = 0.9, b2: float = 0.999, eps: float = 1e-8,
                       eps_root: float = 0.0, nesterov: bool = True) -> GradientTransformation:
    """Optimistic Adam (optax's v2): Adam's direction (Nesterov's by default), then the
    optimistic combination `(alpha + beta) u_t - beta u_{t-1}`, times `-learning_rate`.

    Example:
        >>> import fungrad as fg, numpy as np
        >>> opt = fg.optim.optimistic_adam_v2(0.1, nesterov=False)
        >>> opt.update(np.array([5.0]), opt.init(np.zeros(1)))[0]
        array([-0.1])
    """
    return chain(T.scale_by_adam(b1, b2, eps, eps_root, nesterov),
                 T.scale_by_optimistic_gradient(alpha, beta), _lr(learning_rate))
