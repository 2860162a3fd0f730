"""ntk_helpers: one architecture description, a finite torch network and its infinite-width kernel.

Conventions follow neural-tangents' ``stax`` (NTK parameterization, ``sigma_w`` = ``W_std``,
``sigma_b`` = ``b_std``, input kernel x.x'/d, readout ``dense(1)``), so numbers can be compared.
The folder shows the architecture (README, "Layout"):

- ``engine/``: the layers, each holding its torch module and its kernel rule, and the ``Kernel`` they map;
- ``finite/``: finite networks: empirical NTK, Monte Carlo kernels, training, width sweeps, parameterizations;
- ``theory/``: what the kernels imply: depth and mean field, dynamics, regression, spectra, the rank law;
- ``course/``: lesson support: data, plotting, widgets, grading helpers for the exercises.

Everything a lesson uses is a name here: ``import ntk_helpers as nh``.
"""

from .course.checks import check_between, check_close, check_that
from .course.data import circle, digits, motif_sequences, pair_at_angle, sphere
from .course.messages import gettext as _
from .engine import spatial
from .engine.activation import Activation
from .engine.activations import (ACTIVATIONS, as_activation, elementwise, erf, gelu, identity, leaky_relu, register,
                                 relu, tanh)
from .engine.architectures import mlp, resnet
from .engine.combinators import Residual, Serial, residual, serial
from .engine.conv import Conv, conv
from .engine.dense import PARAMETERIZATIONS, Dense, dense, lr_multipliers
from .engine.kernel import Kernel, NoClosedForm
from .engine.layer import Layer
from .engine.normalization import batch_norm, layer_norm
from .engine.pooling import avg_pool, flatten, global_avg_pool, max_pool
from .engine.receptive_field import receptive_field
from .finite.convergence import WidthSweep, loglog_slope, width_sweep
from .finite.empirical import empirical_ntk
from .finite.input_gradient import input_gradient_kernel
from .finite.monte_carlo import MonteCarloKernel, monte_carlo_kernel
from .finite.parameterization import param_groups, preactivations
from .finite.training import TrainingRecord, train
from .theory.depth import (KernelsByDepth, chi1, correlation_map, correlation_trajectory, mlp_kernels_by_depth,
                           q_fixed_point, self_kernels_by_depth)
from .theory.dynamics import (EnsemblePrediction, Trajectory, critical_learning_rate, ensemble_prediction,
                              linearized_dynamics)
from .theory.rank_law import angle_distribution, dot_product_profile, effective_rank_finite, effective_rank_limit
from .theory.regimes import REGIMES, SignalRegime, signal_regime
from .theory.regression import kernel_regression
from .theory.spectra import center, effective_rank, eigenvalues, normalize

__version__ = "0.2.0"

# plots and sliders in the lesson's language: Chinese in notebooks/zh/ (nothing to do, and no import, in English)
from .course.language import lesson_language, use_language  # noqa: E402

use_language(lesson_language())


def __getattr__(name: str):
    """``nh.plotting`` and ``nh.widgets`` load matplotlib and ipywidgets on first use only, so that scripts and
    the exercises' graders that never plot start faster (about 1 s less per graded notebook)."""
    if name in ("plotting", "widgets"):
        import importlib

        module = importlib.import_module(f".course.{name}", __name__)
        globals()[name] = module
        return module
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = [
    # lessons: one-line checks and printed text in the lesson's language
    "check_close", "check_between", "check_that", "_",
    # one description, two worlds: layers (lessons 01-06)
    "Layer", "Kernel", "NoClosedForm", "Dense", "Conv", "Activation", "Serial", "Residual", "ACTIVATIONS",
    "register", "as_activation", "dense", "relu", "leaky_relu", "erf", "gelu", "tanh", "identity", "elementwise",
    "serial", "mlp", "conv", "flatten", "global_avg_pool", "avg_pool", "max_pool", "residual", "resnet",
    "layer_norm", "batch_norm", "receptive_field",
    # finite networks
    "empirical_ntk", "input_gradient_kernel", "width_sweep", "WidthSweep", "loglog_slope",
    "monte_carlo_kernel", "MonteCarloKernel", "PARAMETERIZATIONS", "lr_multipliers", "param_groups", "preactivations",
    "train", "TrainingRecord",
    # depth and mean field (lesson 02)
    "mlp_kernels_by_depth", "KernelsByDepth", "q_fixed_point", "chi1", "correlation_map", "correlation_trajectory",
    "self_kernels_by_depth", "signal_regime", "SignalRegime", "REGIMES",
    # dynamics and regression (lesson 07)
    "linearized_dynamics", "Trajectory", "critical_learning_rate", "ensemble_prediction", "EnsemblePrediction",
    "kernel_regression",
    # spectra and effective rank (lessons 06, 08)
    "eigenvalues", "center", "normalize", "effective_rank", "angle_distribution", "dot_product_profile",
    "effective_rank_limit", "effective_rank_finite",
    # data and lesson tools
    "sphere", "pair_at_angle", "circle", "digits", "motif_sequences", "plotting", "widgets", "spatial",
]
