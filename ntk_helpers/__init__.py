"""ntk_helpers: one architecture description, a finite torch network and its infinite-width kernel.

Conventions follow neural-tangents' ``stax`` (NTK parameterization, ``sigma_w`` = ``W_std``,
``sigma_b`` = ``b_std``, input kernel x.x'/d, readout ``dense(1)``), so numbers can be compared.
See README.md for the API list and the lessons in ``notebooks/`` for the ideas.
"""

from . import spatial
from .activations import ACTIVATIONS, Activation
from .conv import avg_pool, conv, flatten, global_avg_pool
from .convergence import WidthSweep, loglog_slope, width_sweep
from .data import circle, digits, motif_sequences, pair_at_angle, sphere
from .depth import (REGIMES, KernelsByDepth, SignalRegime, chi1, correlation_map, correlation_trajectory,
                    mlp_kernels_by_depth, q_fixed_point, self_kernels_by_depth, signal_regime)
from .dynamics import (EnsemblePrediction, Trajectory, critical_learning_rate, ensemble_prediction,
                       linearized_dynamics)
from .empirical import empirical_ntk, input_gradient_kernel
from .kernel import Kernel
from .layers import (ActivationLayer, Dense, Layer, Serial, as_activation_layer, dense, elementwise, erf, gelu,
                     identity, leaky_relu, mlp, relu, serial, tanh)
from .monte_carlo import MonteCarloKernel, max_pool, monte_carlo_kernel
from .normalization import batch_norm, layer_norm
from .parameterization import PARAMETERIZATIONS, ParameterizedMLP, parameterized_mlp
from .rank_law import angle_distribution, dot_product_profile, effective_rank_finite, effective_rank_limit
from .regression import kernel_regression
from .residual import residual, resnet
from .spectra import center, effective_rank, eigenvalues, normalize
from .training import TrainingRecord, train

__version__ = "0.1.0"


def __getattr__(name: str):
    """``nh.plotting`` and ``nh.widgets`` load matplotlib and ipywidgets on first use only, so that scripts and
    the exercises' graders that never plot start faster (about 1 s less per graded notebook)."""
    if name in ("plotting", "widgets"):
        import importlib

        module = importlib.import_module(f".{name}", __name__)
        globals()[name] = module
        return module
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = [
    # one description, two worlds: layers (lessons 01-06)
    "Layer", "Dense", "ActivationLayer", "Serial", "Kernel", "Activation", "ACTIVATIONS", "as_activation_layer",
    "dense", "relu", "leaky_relu", "erf", "gelu", "tanh", "identity", "elementwise", "serial", "mlp",
    "conv", "flatten", "global_avg_pool", "avg_pool", "residual", "resnet", "layer_norm", "batch_norm", "max_pool",
    # finite networks
    "empirical_ntk", "input_gradient_kernel", "width_sweep", "WidthSweep", "loglog_slope",
    "monte_carlo_kernel", "MonteCarloKernel", "parameterized_mlp", "ParameterizedMLP", "PARAMETERIZATIONS",
    "train", "TrainingRecord",
    # depth and mean field (lesson 02)
    "mlp_kernels_by_depth", "KernelsByDepth", "q_fixed_point", "chi1", "correlation_map", "correlation_trajectory",
    "self_kernels_by_depth", "signal_regime", "SignalRegime", "REGIMES",
    # dynamics and regression (lesson 07)
    "linearized_dynamics", "Trajectory", "critical_learning_rate", "ensemble_prediction", "EnsemblePrediction", "kernel_regression",
    # spectra and effective rank (lessons 06, 08)
    "eigenvalues", "center", "normalize", "effective_rank", "angle_distribution", "dot_product_profile",
    "effective_rank_limit", "effective_rank_finite",
    # data and lesson tools
    "sphere", "pair_at_angle", "circle", "digits", "motif_sequences", "plotting", "widgets", "spatial",
]
