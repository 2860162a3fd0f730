"""The network as its own linearization: the experiments and the explorer of lesson 01.

Near its initialization theta_0 a network is close to its first-order Taylor expansion in the parameters,

    f_lin(x; theta) = f(x; theta_0) + grad_theta f(x; theta_0) . (theta - theta_0),

a linear model whose features are the parameter gradients; their kernel is the NTK
Theta(x, x') = grad f(x) . grad f(x') (Jacot et al. 2018). This module measures how close the two are:

- :func:`gradient_path`: the output at one input along the straight line theta_0 + s g / |g|^2, g the gradient
  there; the linear model predicts exactly s (the idea picture);
- :func:`one_step`: one gradient step on one input x_i, the actual change of f on every input against the
  kernel's prediction -lr Theta(x, x_i) r_i, and their relative distance (2-norms over the inputs);
- :func:`lazy_run` and :func:`lazy_sweep`: train the network for a fixed number of steps towards a prescribed
  change of its function, and measure how far the weights and the kernel moved and what share of the change
  the function made, for growing widths;
- :func:`training_picture`: a network's function over training time next to its linearization's (the discrete
  recursion f_t(X) = y + (I - lr Theta_0/n)^t (f_0(X) - y), carried to other inputs by Theta_0(x, X) Theta_0^-1),
  and the end point f_0 + kernel regression on y - f_0.

Training is full-batch gradient descent on ``L = 1/(2n) sum_i (f(x_i) - y_i)^2`` (the convention of
``nh.train`` and ``nh.linearized_dynamics``), written out here so that the tests can compare it with the
package's formulas. Every function copies the model it is given and leaves it unchanged.
"""

from __future__ import annotations

import copy
import math
from dataclasses import dataclass

import numpy as np
import torch
from torch import nn

from .._checks import as_tensor, check_int, check_nonnegative
from ..finite.convergence import loglog_slope
from ..finite.empirical import empirical_ntk
from ..theory.dynamics import linearized_dynamics
from ..theory.regression import kernel_regression
from .messages import gettext as _


def _parameters(model: nn.Module) -> list[torch.Tensor]:
    params = [p for p in model.parameters() if p.requires_grad]
    if not params:
        raise ValueError("the model has no trainable parameters")
    return params


def _outputs(model: nn.Module, x: torch.Tensor) -> torch.Tensor:
    with torch.no_grad():
        return model(x).reshape(-1).clone()


def _input(name: str, x, model: nn.Module) -> torch.Tensor:
    x = as_tensor(name, x)
    return x.to(next(model.parameters()).dtype)


def gradient_path(model: nn.Module, x, shifts) -> np.ndarray:
    """``f(x; theta_0 + s g/|g|^2) - f(x; theta_0)`` for each ``s`` in ``shifts``, where ``g`` is the gradient of
    the output at the single input ``x`` (shape (1, ...)). The linearization predicts exactly ``s``: the line
    is the network's tangent. Returns a float array of ``len(shifts)``."""
    net = copy.deepcopy(model)
    x = _input("x", x, net)
    if x.shape[0] != 1:
        raise ValueError(f"gradient_path takes one input of shape (1, ...), got {tuple(x.shape)}")
    shifts = np.asarray(shifts, dtype=float).reshape(-1)
    if not np.all(np.isfinite(shifts)):
        raise ValueError("shifts must be finite numbers")
    params = _parameters(net)
    gradient = torch.autograd.grad(net(x).reshape(()), params)
    squared = sum(float(g.pow(2).sum()) for g in gradient)
    if squared == 0:
        raise ValueError("the output's gradient at x is zero: there is no direction to move in")
    start = [p.detach().clone() for p in params]
    f0 = float(_outputs(net, x)[0])
    values = []
    with torch.no_grad():
        for s in shifts:
            for p, p0, g in zip(params, start, gradient):
                p.copy_(p0 + (s / squared) * g)
            values.append(float(net(x).reshape(())) - f0)
    return np.array(values)


@dataclass(frozen=True)
class OneStep:
    """One gradient step on the single input ``x[index]``, with residual ``residual`` = f(x_i) - y_i."""

    actual: np.ndarray       # (n,) f after the step minus f before, on every input
    predicted: np.ndarray    # (n,) -lr * Theta(x, x_i) * residual
    lr: float
    residual: float
    index: int

    @property
    def gap(self) -> float:
        """How far the actual change is from the kernel's prediction: ``|actual - predicted| / |predicted|``, 2-norms
        over the inputs (the relative distance lesson 00 uses for the same picture)."""
        return float(np.linalg.norm(self.actual - self.predicted) / np.linalg.norm(self.predicted))


def one_step(model: nn.Module, x, index: int, *, lr: float = 1.0, change: float = 1.0) -> OneStep:
    """Ask ``model`` to raise its output at ``x[index]`` by ``change``: one gradient step of size ``lr`` on the
    loss ``(f(x_i) - y_i)^2 / 2`` with ``y_i = f(x_i) + change`` (so the residual is ``-change``). Returns the
    actual change of the output on every row of ``x`` and the NTK's prediction ``-lr Theta(x, x_i) r_i``."""
    net = copy.deepcopy(model)
    x = _input("x", x, net)
    index = check_int("index", index, minimum=0)
    if index >= x.shape[0]:
        raise ValueError(f"index must be below the number of inputs {x.shape[0]}, got {index}")
    lr = check_nonnegative("lr", lr)
    if lr == 0 or not math.isfinite(change) or change == 0:
        raise ValueError(f"one_step needs lr > 0 and a finite change != 0, got lr={lr}, change={change}")
    params = _parameters(net)
    before = _outputs(net, x)
    column = empirical_ntk(net, x, x[index:index + 1]).reshape(-1)
    residual = -float(change)
    gradient = torch.autograd.grad(net(x[index:index + 1]).reshape(()), params)
    with torch.no_grad():
        for p, g in zip(params, gradient):
            p -= lr * residual * g
    after = _outputs(net, x)
    return OneStep((after - before).numpy(), (-lr * residual * column).numpy(), lr, residual, index)


def percent(value: float) -> str:
    """``value`` as a percentage with two significant digits ("17 %", "2.0 %", "0.31 %", "0.057 %"): the titles
    show small gaps as they are, not rounded to "0.1 %"."""
    value = 100 * float(value)
    if not math.isfinite(value):
        return f"{value} %"
    if value == 0:
        return "0 %"
    decimals = max(0, 1 - math.floor(math.log10(abs(value))))
    rounded = round(value, decimals)
    if rounded != 0 and math.floor(math.log10(abs(rounded))) > math.floor(math.log10(abs(value))):
        decimals = max(0, decimals - 1)                  # 9.96 rounds up to 10: keep two digits, "10 %"
    return f"{value:.{decimals}f} %"


def frozen_pattern_step(model: nn.Module, x, index: int, *, lr: float = 1.0) -> OneStep:
    """:func:`one_step` (change 1) for a one-hidden-layer network ``Sequential(Linear, activation, Linear)``, but
    evaluated with every hidden unit's derivative pattern frozen at its initialization: after the step each unit
    still multiplies its pre-activation by ``phi'(z_j(theta_0))`` for ReLU (0 or 1), i.e. the output is
    ``readout(mask_0 * first(x))``. For a ReLU network this is the network's value wherever no unit's input
    crosses 0; the frozen model is bilinear in (first layer, readout), so its gap to the kernel is exactly
    proportional to ``lr``."""
    net = copy.deepcopy(model)
    x = _input("x", x, net)
    index = check_int("index", index, minimum=0)
    if len(net) != 3 or not isinstance(net[0], nn.Module) or not hasattr(net[0], "weight"):
        raise ValueError("frozen_pattern_step needs a one-hidden-layer Sequential(Linear, activation, Linear)")
    lr = check_nonnegative("lr", lr)
    if lr == 0:
        raise ValueError("frozen_pattern_step needs lr > 0")
    with torch.no_grad():
        mask = (net[0](x) > 0).to(x.dtype)

    def frozen():
        with torch.no_grad():
            return net[2](net[0](x) * mask).reshape(-1).clone()

    before = frozen()
    column = empirical_ntk(net, x, x[index:index + 1]).reshape(-1)
    params = _parameters(net)
    gradient = torch.autograd.grad(net(x[index:index + 1]).reshape(()), params)
    with torch.no_grad():
        for p, g in zip(params, gradient):
            p += lr * g                                      # residual -1
    return OneStep((frozen() - before).numpy(), (lr * column).numpy(), lr, -1.0, index)


def one_step_title(step: OneStep, width: int) -> str:
    """The explorer's title: what to see (whether the dots follow the kernel's line, below or above a 5 % gap)
    and how far the kernel's prediction is off (:func:`percent`)."""
    if step.gap < 0.05:
        text = _("width {width}: the dots follow the kernel's line (off by {gap})")
    else:
        text = _("width {width}: the dots leave the kernel's line (off by {gap})")
    return text.format(width=width, gap=percent(step.gap))


def _descend(net: nn.Module, x: torch.Tensor, y: torch.Tensor, *, lr: float, steps: int, x_eval=None,
             record_every: int = 1):
    """Full-batch gradient descent on ``1/(2n) sum (f - y)^2``, in place; returns the recorded steps and the
    outputs on ``x_eval`` there (or nothing when ``x_eval`` is None)."""
    params = _parameters(net)
    recorded, outputs = [], []
    for step in range(steps + 1):
        if x_eval is not None and (step % record_every == 0 or step == steps):
            recorded.append(step)
            outputs.append(_outputs(net, x_eval))
        if step == steps:
            break
        loss = 0.5 * (net(x).reshape(-1) - y).pow(2).mean()
        if not torch.isfinite(loss):
            raise FloatingPointError(f"gradient descent diverged at step {step}: lower lr (got {lr})")
        gradient = torch.autograd.grad(loss, params)
        with torch.no_grad():
            for p, g in zip(params, gradient):
                p -= lr * g
    return recorded, (torch.stack(outputs) if outputs else None)


@dataclass(frozen=True)
class LazyRun:
    """How much one network moved in a fixed number of steps towards a set change of its function."""

    weight_change: float     # ||W_T - W_0|| / ||W_0|| over all weight matrices together (biases left out)
    kernel_change: float     # ||Theta_T - Theta_0||_F / ||Theta_0||_F on the training inputs
    function_change: float   # ||f_T - f_0|| / ||change|| on the training inputs (1: the change was made)


def lazy_run(model: nn.Module, x, change, *, lr: float, steps: int) -> LazyRun:
    """Train a copy of ``model`` on the targets ``y = f_0(x) + change`` (the same function change at every
    width, whatever the random start ``f_0``) and measure how far its weights, its NTK and its function moved."""
    net = copy.deepcopy(model)
    x = _input("x", x, net)
    change = as_tensor("change", change).reshape(-1).to(x.dtype)
    if change.shape[0] != x.shape[0]:
        raise ValueError(f"change needs one value per input: {x.shape[0]} inputs, {change.shape[0]} values")
    if float(change.norm()) == 0:
        raise ValueError("change must not be zero")
    lr = check_nonnegative("lr", lr)
    steps = check_int("steps", steps, minimum=1)
    weights = [p for p in _parameters(net) if p.ndim >= 2]
    if not weights:
        raise ValueError("the model has no weight matrix (a parameter with two or more axes)")
    start = [w.detach().clone() for w in weights]
    f0 = _outputs(net, x)
    theta0 = empirical_ntk(net, x)
    _descend(net, x, f0 + change, lr=lr, steps=steps)
    moved = math.sqrt(sum(float((w.detach() - w0).pow(2).sum()) for w, w0 in zip(weights, start)))
    size = math.sqrt(sum(float(w0.pow(2).sum()) for w0 in start))
    theta = empirical_ntk(net, x)
    return LazyRun(moved / size, float((theta - theta0).norm() / theta0.norm()),
                   float((_outputs(net, x) - f0).norm() / change.norm()))


@dataclass(frozen=True)
class LazySweep:
    widths: np.ndarray            # (W,)
    weight_change: np.ndarray     # (W, S): width by seed
    kernel_change: np.ndarray     # (W, S)
    function_change: np.ndarray   # (W, S)

    def slope(self, quantity: str) -> float:
        """Log-log slope against the width of the seed mean of ``quantity`` ("weight_change", ...)."""
        if quantity not in ("weight_change", "kernel_change", "function_change"):
            raise ValueError(f"quantity must be weight_change, kernel_change or function_change, got {quantity!r}")
        return loglog_slope(self.widths, getattr(self, quantity).mean(1))


def lazy_sweep(architecture, x, change, *, widths, lr: float, steps: int, seeds: int = 2) -> LazySweep:
    """:func:`lazy_run` for networks ``architecture.network(d, width=w, seed=s)``, every width and seed."""
    x = as_tensor("x", x)
    seeds = check_int("seeds", seeds, minimum=1)
    widths = np.array([check_int("width", w, minimum=1) for w in widths])
    runs = [[lazy_run(architecture.network(tuple(x.shape[1:]), width=int(w), seed=s), x, change, lr=lr,
                      steps=steps) for s in range(seeds)] for w in widths]
    table = lambda field: np.array([[getattr(run, field) for run in row] for row in runs])
    return LazySweep(widths, table("weight_change"), table("kernel_change"), table("function_change"))


@dataclass(frozen=True)
class TrainingPicture:
    """A network trained by gradient descent, next to its linearization trained the same way."""

    steps: np.ndarray        # (R,) recorded steps
    network: np.ndarray      # (R, n_eval) the network's outputs on x_eval
    linearized: np.ndarray   # (R, n_eval) the linearization's outputs (closed form, the network's own Theta_0)
    with_offset: np.ndarray  # (n_eval,) f_0 + Theta(x, X) Theta(X, X)^-1 (y - f_0(X)): the t -> infinity end
    without_offset: np.ndarray  # (n_eval,) Theta(x, X) Theta(X, X)^-1 y: kernel regression on y alone

    @property
    def gap(self) -> float:
        """Largest |network - linearization| over all recorded steps and inputs."""
        return float(np.abs(self.network - self.linearized).max())


def training_picture(model: nn.Module, x_train, y_train, x_eval, *, lr: float, steps: int,
                     record_every: int = 1) -> TrainingPicture:
    """Train a copy of ``model`` on ``(x_train, y_train)`` and record its outputs on ``x_eval``; compute the
    linearization's outputs at the same steps with ``nh.linearized_dynamics`` (discrete steps, the network's
    NTK at initialization, its own f_0) and the two kernel-regression end points."""
    net = copy.deepcopy(model)
    x_train, x_eval = _input("x_train", x_train, net), _input("x_eval", x_eval, net)
    y_train = as_tensor("y_train", y_train).reshape(-1).to(x_train.dtype)
    lr = check_nonnegative("lr", lr)
    steps = check_int("steps", steps, minimum=0)
    record_every = check_int("record_every", record_every, minimum=1)
    f0_train, f0_eval = _outputs(net, x_train), _outputs(net, x_eval)
    k_train, k_eval = empirical_ntk(net, x_train), empirical_ntk(net, x_eval, x_train)
    recorded, outputs = _descend(net, x_train, y_train, lr=lr, steps=steps, x_eval=x_eval,
                                 record_every=record_every)
    linear = linearized_dynamics(k_train, y_train, recorded, lr=lr, ntk_test_train=k_eval, f0_train=f0_train,
                                 f0_test=f0_eval, loss="half_mean", discrete=True).test
    with_offset = f0_eval + kernel_regression(k_train, k_eval, y_train - f0_train)
    without_offset = kernel_regression(k_train, k_eval, y_train)
    return TrainingPicture(np.array(recorded), outputs.numpy(), linear.numpy(), with_offset.numpy(),
                           without_offset.numpy())


def kernel_error_title(activation: str, depth: int, error: float) -> str:
    """The finite-versus-infinite explorer's title: what to see (the dots near the line below a 10 % error,
    scattered around it above) and how far one network's NTK is from the limit."""
    if error < 0.1:
        text = _("{activation}, depth {depth}: the dots lie near the line (one network's NTK off by {error:.1%})")
    else:
        text = _("{activation}, depth {depth}: the dots scatter around the line (one network's NTK off by "
                 "{error:.1%})")
    return text.format(activation=activation, depth=depth, error=error)


__all__ = ["gradient_path", "OneStep", "one_step", "percent", "one_step_title", "frozen_pattern_step",
           "LazyRun", "lazy_run", "LazySweep",
           "lazy_sweep", "TrainingPicture", "training_picture", "kernel_error_title"]
