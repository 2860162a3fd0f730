"""ntk_helpers: one architecture description, a finite torch network and its infinite-width kernel.

Conventions follow neural-tangents' ``stax`` (NTK parameterization, ``sigma_w`` = ``W_std``,
``sigma_b`` = ``b_std``, input kernel x.x'/d, readout ``dense(1)``), so numbers can be compared.
See README.md for the API list and the lessons in ``notebooks/`` for the ideas.
"""

from .activations import ACTIVATIONS, Activation
from .convergence import WidthSweep, loglog_slope, width_sweep
from .data import circle, digits, motif_sequences, pair_at_angle, sphere
from .depth import (KernelsByDepth, chi1, correlation_map, correlation_trajectory,
                    mlp_kernels_by_depth, q_fixed_point)
from . import plotting, spatial, widgets
from .empirical import empirical_ntk, input_gradient_kernel
from .kernel import Kernel
from .layers import (ActivationLayer, Dense, Layer, Serial, dense, elementwise, erf, gelu, identity,
                     leaky_relu, mlp, relu, serial, tanh)
from .regression import kernel_regression
from .spectra import center, effective_rank, eigenvalues, normalize

__version__ = "0.1.0"

__all__ = [
    # architecture -> kernel and network
    "Layer", "Dense", "ActivationLayer", "Serial", "Kernel", "Activation", "ACTIVATIONS",
    "dense", "relu", "leaky_relu", "erf", "gelu", "tanh", "identity", "elementwise", "serial", "mlp",
    # finite networks
    "empirical_ntk", "input_gradient_kernel", "width_sweep", "WidthSweep", "loglog_slope",
    # depth / mean field
    "mlp_kernels_by_depth", "KernelsByDepth", "q_fixed_point", "chi1", "correlation_map",
    "correlation_trajectory",
    # spectra
    "eigenvalues", "center", "normalize", "effective_rank", "kernel_regression",
    # lesson tools
    "plotting", "widgets",
    # data
    "sphere", "pair_at_angle", "circle", "digits", "motif_sequences",
]

from .conv import avg_pool, conv, flatten, global_avg_pool  # noqa: E402  (images, lesson 03)

__all__ += ["conv", "flatten", "global_avg_pool", "avg_pool"]

from .monte_carlo import MonteCarloKernel, max_pool, monte_carlo_kernel  # noqa: E402
from .normalization import batch_norm, layer_norm  # noqa: E402
from .residual import resnet, residual  # noqa: E402

__all__ += ["residual", "resnet", "layer_norm", "batch_norm", "max_pool", "monte_carlo_kernel", "MonteCarloKernel"]
from .parameterization import PARAMETERIZATIONS, ParameterizedMLP, parameterized_mlp  # noqa: E402
from .training import TrainingRecord, train  # noqa: E402

__all__ += ["parameterized_mlp", "ParameterizedMLP", "PARAMETERIZATIONS", "train", "TrainingRecord"]
from .dynamics import EnsemblePrediction, Trajectory, ensemble_prediction, linearized_dynamics  # noqa: E402
from .rank_law import (angle_distribution, dot_product_profile, effective_rank_finite,  # noqa: E402
                       effective_rank_limit)

__all__ += ["linearized_dynamics", "Trajectory", "ensemble_prediction", "EnsemblePrediction", "angle_distribution",
            "dot_product_profile", "effective_rank_limit", "effective_rank_finite"]
