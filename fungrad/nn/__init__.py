"""Neural-network functions, `fg.nn`: activations, softmax-family reductions and losses
(jax.nn's and optax's names and semantics), pure functions written with fungrad.numpy, so
grad, jit and vmap compose with them; parameter initializers (`fg.nn.initializers`, whose
fan-based factories are also here: `fg.nn.glorot_uniform`, ...; `zeros`, `ones`, `normal`,
`uniform`, `constant`, `truncated_normal`, `orthogonal` and `delta_orthogonal` only as
`fg.nn.initializers.*`, so that they are not mistaken for array constructors or samplers);
and stax-style layers
(`fungrad/nn/stax.py`: `fg.nn.serial(fg.nn.Dense(10), fg.nn.Relu)`).

    >>> import fungrad as fg, numpy as np
    >>> fg.nn.softmax_cross_entropy_with_integer_labels(np.zeros((1, 4)), np.array([2]))
    array([1.38629436])
"""
from .activations import (relu, relu6, leaky_relu, elu, selu, celu, gelu, sigmoid,
                          log_sigmoid, softplus, silu, swish, hard_tanh, hard_sigmoid,
                          hard_silu, hard_swish, glu, mish, tanh, softmax, log_softmax,
                          logsumexp, standardize, one_hot, identity, soft_sign, squareplus,
                          sparse_plus, sparse_sigmoid, log1mexp, logmeanexp)
from .attention import dot_product_attention
from .losses import (softmax_cross_entropy, softmax_cross_entropy_with_integer_labels,
                     sigmoid_binary_cross_entropy, squared_error, mse, l2_loss, huber_loss,
                     hinge_loss, kl_divergence, cosine_similarity, cosine_distance,
                     sigmoid_focal_loss, log_cosh, smooth_labels, kl_divergence_with_log_targets,
                     generalized_kl_divergence, convex_kl_divergence, safe_softmax_cross_entropy,
                     poly_loss_cross_entropy, multiclass_hinge_loss, perceptron_loss,
                     multiclass_perceptron_loss, triplet_margin_loss, ntxent, sparsemax_loss,
                     multiclass_sparsemax_loss, dice_loss, binary_dice_loss,
                     multiclass_generalized_dice_loss, ranking_softmax_loss)
from . import initializers
from .initializers import (variance_scaling, glorot_uniform, glorot_normal, xavier_uniform,
                           xavier_normal, he_uniform, he_normal, kaiming_uniform,
                           kaiming_normal, lecun_uniform, lecun_normal)
from .stax import (Layer, init_state, serial, parallel, FanOut, FanInSum, FanInConcat,
                   Identity, Dense, Flatten, BatchNorm, LayerNorm, GroupNorm, Dropout,
                   Embedding, elementwise, Relu, Gelu, Sigmoid, Tanh, Softplus, Elu,
                   LeakyRelu, Selu, Silu, LogSoftmax, Softmax, Exp, GeneralConv, Conv, Conv1D,
                   Conv3D, GeneralConvTranspose, ConvTranspose, Conv1DTranspose, MaxPool,
                   SumPool, AvgPool)

# (literal, so that pyflakes sees the re-exports; a test checks it against the modules')
__all__ = ["relu", "relu6", "leaky_relu", "elu", "selu", "celu", "gelu", "sigmoid",
           "log_sigmoid", "softplus", "silu", "swish", "hard_tanh", "hard_sigmoid",
           "hard_silu", "hard_swish", "glu", "mish", "tanh", "softmax", "log_softmax",
           "logsumexp", "standardize", "one_hot", "identity", "soft_sign", "squareplus",
           "sparse_plus", "sparse_sigmoid", "log1mexp", "logmeanexp",
           "dot_product_attention",
           "softmax_cross_entropy", "softmax_cross_entropy_with_integer_labels",
           "sigmoid_binary_cross_entropy", "squared_error", "mse", "l2_loss", "huber_loss",
           "hinge_loss", "kl_divergence", "cosine_similarity", "cosine_distance",
           "sigmoid_focal_loss", "log_cosh", "smooth_labels", "kl_divergence_with_log_targets",
           "generalized_kl_divergence", "convex_kl_divergence", "safe_softmax_cross_entropy",
           "poly_loss_cross_entropy", "multiclass_hinge_loss", "perceptron_loss",
           "multiclass_perceptron_loss", "triplet_margin_loss", "ntxent", "sparsemax_loss",
           "multiclass_sparsemax_loss", "dice_loss", "binary_dice_loss",
           "multiclass_generalized_dice_loss", "ranking_softmax_loss",
           "initializers", "variance_scaling", "glorot_uniform", "glorot_normal",
           "xavier_uniform", "xavier_normal", "he_uniform", "he_normal", "kaiming_uniform",
           "kaiming_normal", "lecun_uniform", "lecun_normal",
           "Layer", "init_state", "serial", "parallel", "FanOut", "FanInSum", "FanInConcat",
           "Identity", "Dense", "Flatten", "BatchNorm", "LayerNorm", "GroupNorm", "Dropout",
           "Embedding", "elementwise", "Relu", "Gelu", "Sigmoid", "Tanh", "Softplus", "Elu",
           "LeakyRelu", "Selu", "Silu", "LogSoftmax", "Softmax", "Exp", "GeneralConv", "Conv",
           "Conv1D", "Conv3D", "GeneralConvTranspose", "ConvTranspose", "Conv1DTranspose",
           "MaxPool", "SumPool", "AvgPool"]
