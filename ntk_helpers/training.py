"""Full-batch gradient descent that records what the NTK theory talks about.

Loss ``L = 1/(2n) sum_i (f(x_i) - y_i)^2`` (AUDIT §2(i)); plain gradient descent with per-parameter
learning rates. Besides the loss and outputs we record how much the *learning-rate-weighted* NTK
(the kernel that drives df/dt, AUDIT App. B.4) and the last hidden layer's feature kernel moved:
``||K_T - K_0||_F / ||K_0||_F``. "Lazy" training means both stay put while the outputs fit the data.
"""

from __future__ import annotations

from dataclasses import dataclass

import torch
from torch import nn

from ._checks import as_tensor, check_int, check_nonnegative
from .empirical import empirical_ntk
from .modules import NTKSequential


@dataclass(frozen=True)
class TrainingRecord:
    steps: torch.Tensor          # (R,) steps at which outputs were recorded
    loss: torch.Tensor           # (steps + 1,) training loss before each step and at the end
    outputs: torch.Tensor        # (R, n_eval) outputs on x_eval at the recorded steps
    ntk_start: torch.Tensor | None       # (n, n) learning-rate-weighted NTK on the training inputs
    ntk_end: torch.Tensor | None
    features_start: torch.Tensor | None  # (n, n) feature kernel Phi Phi^T / m of the last hidden layer
    features_end: torch.Tensor | None

    @property
    def ntk_change(self) -> float:
        return float((self.ntk_end - self.ntk_start).norm() / self.ntk_start.norm())

    @property
    def feature_change(self) -> float:
        return float((self.features_end - self.features_start).norm() / self.features_start.norm())


def _features(model: nn.Module, x: torch.Tensor) -> torch.Tensor:
    if hasattr(model, "features"):
        return model.features(x)
    if isinstance(model, NTKSequential):
        return model[:-1](x)
    raise TypeError("train() needs a model with a .features(x) method or a network built by ntk_helpers")


def _lr_multipliers(model: nn.Module) -> dict[str, float]:
    return dict(getattr(model, "lr_multipliers", {}))


def train(model: nn.Module, x, y, *, lr: float, steps: int, x_eval=None, record_every: int = 1,
          track_kernels: bool = True) -> TrainingRecord:
    """Train ``model`` in place by full-batch gradient descent on ``1/(2n) sum (f - y)^2``.

    Per-parameter learning rates are ``lr * model.lr_multipliers[name]`` when the model has them
    (:class:`~ntk_helpers.parameterization.ParameterizedMLP`), else ``lr``. ``track_kernels=False``
    skips the NTK and feature kernels at the start and end (their fields are then None).
    """
    dtype = next(model.parameters()).dtype
    x = as_tensor("x", x).to(dtype)
    y = as_tensor("y", y).to(dtype).reshape(-1)
    if y.shape[0] != x.shape[0]:
        raise ValueError(f"y must have one target per input: x has {x.shape[0]} rows, y has {y.shape[0]}")
    x_eval = x if x_eval is None else as_tensor("x_eval", x_eval).to(dtype)
    lr = check_nonnegative("lr", lr)
    steps = check_int("steps", steps, minimum=0)
    record_every = check_int("record_every", record_every, minimum=1)
    multipliers = _lr_multipliers(model)
    named = [(n, p) for n, p in model.named_parameters() if p.requires_grad]
    weights = {n: multipliers.get(n, 1.0) for n, _ in named}

    def snapshot():
        with torch.no_grad():
            phi = _features(model, x)
            uniform = all(w == 1.0 for w in weights.values())          # then the fast layerwise path applies
            theta = empirical_ntk(model, x, parameter_weights=None if uniform else weights)
            return theta, phi @ phi.T / phi.shape[1]

    ntk_start, features_start = snapshot() if track_kernels else (None, None)
    losses, recorded_steps, outputs = [], [], []
    for step in range(steps + 1):
        if step % record_every == 0 or step == steps:
            with torch.no_grad():
                recorded_steps.append(step)
                outputs.append(model(x_eval).reshape(-1).clone())
        loss = 0.5 * ((model(x).reshape(-1) - y) ** 2).mean()
        losses.append(float(loss.detach()))
        if step == steps:
            break
        grads = torch.autograd.grad(loss, [p for _, p in named])
        with torch.no_grad():
            for (name, p), g in zip(named, grads):
                p -= lr * weights[name] * g
        if not torch.isfinite(loss):
            raise FloatingPointError(f"training diverged at step {step} (loss {float(loss)}); lower lr")
    ntk_end, features_end = snapshot() if track_kernels else (None, None)
    return TrainingRecord(torch.tensor(recorded_steps), torch.tensor(losses, dtype=torch.float64),
                          torch.stack(outputs), ntk_start, ntk_end, features_start, features_end)
