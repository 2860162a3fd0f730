"""Full-batch gradient descent that records what the NTK theory talks about.

Loss ``L = 1/(2n) sum_i (f(x_i) - y_i)^2`` (the ``loss="half_mean"`` convention of
:func:`ntk_helpers.linearized_dynamics`, lesson 07); plain gradient descent with per-parameter
learning rates. Besides the loss and outputs we record how much the *learning-rate-weighted* NTK
``sum_l lr_l <df/dW_l, df'/dW_l>`` (the kernel that drives df/dt when layers learn at different rates,
lesson 05b, section 4.4.2) and the last hidden layer's feature kernel moved:
``||K_T - K_0||_F / ||K_0||_F``. "Lazy" training means both stay put while the outputs fit the data.
"""

from __future__ import annotations

from dataclasses import dataclass

import torch
from torch import nn

from .._checks import as_tensor, check_choice, check_int, check_nonnegative
from .empirical import empirical_ntk
from ..engine.dense import lr_multipliers
from ..engine.layer import NTKSequential


@dataclass(frozen=True)
class TrainingRecord:
    steps: torch.Tensor          # (R,) steps at which outputs were recorded
    loss: torch.Tensor           # (steps + 1,) loss before each step and at the end (fewer if diverged)
    outputs: torch.Tensor        # (R, n_eval) outputs on x_eval at the recorded steps
    ntk_start: torch.Tensor | None       # (n, n) learning-rate-weighted NTK on the training inputs
    ntk_end: torch.Tensor | None
    features_start: torch.Tensor | None  # (n, n) feature kernel Phi Phi^T / m of the last hidden layer
    features_end: torch.Tensor | None
    diverged_at: int | None = None       # step whose loss was not finite (``on_divergence="stop"``)

    def _relative_change(self, start, end, what: str) -> float:
        if self.diverged_at is not None:
            raise ValueError(f"training diverged at step {self.diverged_at}: there is no final {what} kernel")
        if start is None or end is None:
            raise ValueError(f"the {what} kernel was not recorded: train(..., track_kernels=True)")
        return float((end - start).norm() / start.norm())

    @property
    def ntk_change(self) -> float:
        return self._relative_change(self.ntk_start, self.ntk_end, "NTK")

    @property
    def feature_change(self) -> float:
        return self._relative_change(self.features_start, self.features_end, "feature")


def _features(model: nn.Module, x: torch.Tensor) -> torch.Tensor:
    if hasattr(model, "features"):
        return model.features(x)
    if isinstance(model, NTKSequential):
        return model[:-1](x)
    raise TypeError("train() needs a model with a .features(x) method or a network built by ntk_helpers")


def _lr_multipliers(model: nn.Module) -> dict[str, float]:
    """The factors a custom module declares as ``model.lr_multipliers``, else those of its dense layers."""
    own = getattr(model, "lr_multipliers", None)
    return dict(own) if own is not None else lr_multipliers(model)


def train(model: nn.Module, x, y, *, lr: float, steps: int, x_eval=None, record_every: int = 1,
          track_kernels: bool = True, on_divergence: str = "raise") -> TrainingRecord:
    """Train ``model`` in place by full-batch gradient descent on ``1/(2n) sum (f - y)^2``.

    Per-parameter learning rates are ``lr * nh.lr_multipliers(model)[name]``: the factors of the parameterization
    the network was built in (``nh.mlp(..., parameterization="mup")``; all 1 for "ntk"), or those of a custom
    module's ``lr_multipliers`` dict; 1 for every other parameter. ``track_kernels=False``
    skips the NTK and feature kernels at the start and end (their fields are then None).

    When the loss stops being finite, ``on_divergence="raise"`` raises ``FloatingPointError``;
    ``"stop"`` returns the record up to the last finite loss, with ``diverged_at`` set to that step
    and no final kernels (for explorers that show a divergence instead of failing).
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
    on_divergence = check_choice("on_divergence", on_divergence, ("raise", "stop"))
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
    diverged_at = None
    for step in range(steps + 1):
        loss = 0.5 * ((model(x).reshape(-1) - y) ** 2).mean()
        if not torch.isfinite(loss):
            if on_divergence == "raise":
                raise FloatingPointError(f"training diverged at step {step} (loss {float(loss.detach())}); "
                                         "lower lr")
            diverged_at = step
            break
        if step % record_every == 0 or step == steps:
            with torch.no_grad():
                recorded_steps.append(step)
                outputs.append(model(x_eval).reshape(-1).clone())
        losses.append(float(loss.detach()))
        if step == steps:
            break
        grads = torch.autograd.grad(loss, [p for _, p in named])
        with torch.no_grad():
            for (name, p), g in zip(named, grads):
                p -= lr * weights[name] * g
    ntk_end, features_end = snapshot() if track_kernels and diverged_at is None else (None, None)
    outputs = torch.stack(outputs) if outputs else torch.empty(0, x_eval.shape[0], dtype=dtype)
    return TrainingRecord(torch.tensor(recorded_steps), torch.tensor(losses, dtype=torch.float64),
                          outputs, ntk_start, ntk_end, features_start, features_end, diverged_at)
