"""Lesson 05b's machinery: the NTK, standard and muP parameterizations (book section 4.4.2).

Every parameterization is read as powers of the width m (Yang & Hu 2021, Tensor Programs IV): the variance of
each layer's effective weights and its effective learning rate. One SGD step from initialization then moves

    dh^1 ~ eta_1 s,    dh^l ~ eta_l s m  (hidden layers),    df ~ eta_{L+1} m + m s dx^L,

with s^2 = m^(output variance exponent) the output weights' variance. In the abc form (W = m^-a w, w ~ N(0, m^-2b),
learning rate eta m^-c), Yang & Hu's exponent

    r = min(a_{L+1} + b_{L+1}, 2 a_{L+1} + c) + c - 1 + min_{l = 1..L} (2 a_l + [l = 1])

and the stability and nontriviality conditions decide between the kernel regime (r > 0) and feature learning
(r = 0) for a stable, nontrivial parameterization (their theorems assume a smooth activation).

- :data:`ABC`, :func:`width_exponents`, :func:`classify`, :func:`one_step_exponents`: the exponents and the
  conditions, as formulas;
- :data:`SETTINGS`, :func:`learning_rate`, :func:`training_data`, :func:`network`: the lesson's four settings,
  its 16 training points and its ReLU networks;
- :func:`one_step_changes`, :func:`movement`: what one SGD step and 50 steps move, measured;
- :func:`idea_diagram`, :func:`draw_one_step`, :func:`draw_movement`: the figures, coloured by parameterization;
- :func:`stability_number`, :func:`describe_training`, :func:`draw_training`: the explorer.

Printed text and new labels go through :func:`~ntk_helpers.course.messages.gettext`; numbers are filled in after.
"""

from __future__ import annotations

import math
import textwrap
from dataclasses import dataclass
from fractions import Fraction
from functools import lru_cache

import numpy as np
import torch

from .._checks import check_choice, check_int, check_nonnegative
from ..engine.architectures import mlp
from ..finite.empirical import empirical_ntk
from ..finite.parameterization import preactivations
from ..engine.dense import lr_multipliers
from ..finite.training import train
from .data import sphere
from .messages import gettext as _

half = Fraction(1, 2)

#: The abc exponents (a, b per layer: input, hidden, output; and c) of each parameterization, in Yang & Hu's form
#: W^l = m^-a_l w^l, w^l ~ N(0, m^-2b_l), learning rate eta m^-c. Many triples describe one parameterization (the
#: shift a -> a + theta, b -> b - theta, c -> c - 2 theta changes nothing); these are the paper's choices.
ABC = {
    "standard, fixed η": ((0, 0, 0), (0, half, half), 0),
    "standard, η ∝ 1/m": ((0, 0, 0), (0, half, half), 1),
    "NTK": ((0, half, half), (0, 0, 0), 0),
    "μP": ((-half, 0, half), (half, half, half), 0),
}

#: The lesson's settings: label -> (parameterization, learning rate at width 1, does the rate scale like 1/m).
SETTINGS = {
    "NTK, η = 0.5": ("ntk", 0.5, False),
    "μP, η = 0.02": ("mup", 0.02, False),
    "standard, fixed η = 0.005": ("standard", 0.005, False),
    "standard, η = 1/m": ("standard", 1.0, True),
}
#: The row of :data:`ABC` (and of the lesson's table) that each setting belongs to.
ROW = {"NTK, η = 0.5": "NTK", "μP, η = 0.02": "μP", "standard, fixed η = 0.005": "standard, fixed η",
       "standard, η = 1/m": "standard, η ∝ 1/m"}
#: One colour per parameterization in every figure of the lesson (the two standard settings share one).
COLOURS = {"ntk": "#0072B2", "mup": "#D55E00", "standard": "#009E73"}
#: The opening figure's colour for the row "standard, η ∝ 1/m", so that its four rows have four colours.
OPENING_SCALED_COLOUR = "#CC79A7"


def setting_name(setting: str) -> str:
    """The setting's label as printed (translated where it has words)."""
    return {"standard, fixed η = 0.005": _("standard, fixed η = 0.005"),
            "standard, η = 1/m": _("standard, η = 1/m")}.get(setting, setting)


def parameterization_name(parameterization: str) -> str:
    """"ntk", "mup" or "standard" as printed and drawn (translated)."""
    return {"ntk": _("NTK parameterization"), "mup": "μP",
            "standard": _("standard parameterization")}[parameterization]


def row_name(row: str) -> str:
    """A row of :data:`ABC` as printed (translated)."""
    return {"standard, fixed η": _("standard, fixed η"), "standard, η ∝ 1/m": _("standard, η ∝ 1/m"),
            "NTK": "NTK", "μP": "μP"}[row]


def regime_name(regime: str) -> str:
    """A :attr:`Classification.regime` as printed (translated)."""
    return {"unstable": _("unstable"), "trivial": _("trivial"), "kernel regime": _("kernel regime"),
            "feature learning": _("feature learning")}[regime]


def _setting(setting: str) -> tuple[str, float, bool]:
    return SETTINGS[check_choice("setting", setting, tuple(SETTINGS))]


def learning_rate(setting: str, width: int) -> float:
    """The learning rate eta that ``nh.train`` receives for ``setting`` at ``width``."""
    _, lr, per_width = _setting(setting)
    return lr / check_int("width", width, minimum=1) if per_width else lr


# ---------------------------------------------------------------- the exponents, as formulas

@dataclass(frozen=True)
class WidthExponents:
    """Powers of m of one parameterization (each a Fraction), per layer (input, hidden, output).

    Attributes:
        variance: of the effective weights W^l = m^-a w^l: -2(a_l + b_l).
        learning_rate: effective learning rate of W^l: -(2 a_l + c).
    """

    variance: tuple
    learning_rate: tuple


def width_exponents(a, b, c) -> WidthExponents:
    """:class:`WidthExponents` of an abc-parameterization: Var W^l = m^-2a Var w = m^-2(a+b), and since
    dL/dw = m^-a dL/dW and dW = m^-a dw, W^l learns with rate eta m^-c m^-2a."""
    a, b, c = [Fraction(x) for x in a], [Fraction(x) for x in b], Fraction(c)
    return WidthExponents(tuple(-2 * (x + y) for x, y in zip(a, b)), tuple(-(2 * x + c) for x in a))


def one_step_exponents(exponents: WidthExponents) -> tuple:
    """The powers of m of (dh^1, dh^l, df) after one SGD step from initialization, by the lesson's argument:
    the backward vectors g^l have entries of size s (the output weights' size), dh^1 ~ eta_1 s (d terms),
    a hidden dh^l ~ max(eta_l s m, dh^(l-1)) (m aligned terms, plus what the layer below passes on), and
    df ~ max(eta_{L+1} m, m s dh^L)."""
    lr_in, lr_hidden, lr_out = exponents.learning_rate
    s = exponents.variance[2] / 2
    dh1 = lr_in + s
    dh = max(lr_hidden + s + 1, dh1)
    df = max(lr_out + 1, 1 + s + dh)
    return dh1, dh, df


@dataclass(frozen=True)
class Classification:
    """What Yang & Hu's conditions say about an abc-parameterization (L hidden layers).

    Attributes:
        r: the exponent r (the last hidden layer's features move like m^-r in training).
        stable_at_init: features Theta(1), output O(1) at initialization.
        stable: stable at initialization and in training.
        nontrivial: the output moves by Theta(1) in training; None for an unstable parameterization, for which
            Yang & Hu define no non-triviality.
        regime: "unstable", "trivial", "kernel regime" or "feature learning".
    """

    r: Fraction
    stable_at_init: bool
    stable: bool
    nontrivial: bool | None
    regime: str


def classify(a, b, c, hidden_layers: int = 2) -> Classification:
    """:class:`Classification` of the abc-parameterization with exponents ``a`` and ``b`` for (input, hidden,
    output) layers and ``c``, in a network with ``hidden_layers`` hidden layers (so hidden_layers - 1 hidden
    m x m weight matrices share the middle exponents), by the conditions of Yang & Hu (2021, Tensor Programs IV):

    - stable at initialization: a_1 + b_1 = 0, a_l + b_l = 1/2 for the hidden matrices, a_out + b_out >= 1/2;
    - stable in training: also r >= 0, 2 a_out + c >= 1 and a_out + b_out + r >= 1;
    - nontrivial (defined only for a stable one; None otherwise): 2 a_out + c = 1 or a_out + b_out + r = 1;
    - a stable nontrivial parameterization learns features if r = 0, is in the kernel regime if r > 0.
    """
    hidden_layers = check_int("hidden_layers", hidden_layers, minimum=1)
    (a1, ah, ao), (b1, bh, bo), c = [Fraction(x) for x in a], [Fraction(x) for x in b], Fraction(c)
    first = [2 * a1 + 1] + [2 * ah] * (hidden_layers - 1)
    r = min(ao + bo, 2 * ao + c) + c - 1 + min(first)
    at_init = a1 + b1 == 0 and (hidden_layers == 1 or ah + bh == half) and ao + bo >= half
    stable = at_init and r >= 0 and 2 * ao + c >= 1 and ao + bo + r >= 1
    nontrivial = (2 * ao + c == 1 or ao + bo + r == 1) if stable else None
    regime = ("unstable" if not stable else "trivial" if not nontrivial
              else "feature learning" if r == 0 else "kernel regime")
    return Classification(r, at_init, stable, nontrivial, regime)


def nontrivial_name(verdict: Classification) -> str:
    """``verdict.nontrivial`` as printed: True, False, or "n/a (unstable)" (translated)."""
    return _("n/a (unstable)") if verdict.nontrivial is None else str(verdict.nontrivial)


def power(exponent) -> str:
    """m^e written as the table writes it: m^{-1/2}, m^{0}, m^{1}."""
    e = Fraction(exponent)
    return f"m^{e.numerator}" if e.denominator == 1 else f"m^{e.numerator}/{e.denominator}"


# ---------------------------------------------------------------- the networks and data of the lesson

def training_data():
    """The lesson's 16 training points on the sphere in dimension 8 (|x|^2 = 8) and targets sin(2 x_1)."""
    x = sphere(16, d=8, seed=0)
    return x, torch.sin(2 * x[:, 0])


def network(parameterization: str, width: int, *, depth: int = 1, seed: int = 0, sigma_b: float = 0.0,
            activation: str = "relu"):
    """``nh.mlp(depth, activation, parameterization=..., sigma_b=...)`` built on inputs of dimension 8;
    f(x) has shape (n, 1)."""
    return mlp(depth, activation, parameterization=parameterization,
               sigma_b=check_nonnegative("sigma_b", sigma_b)).network(8, width=width, seed=seed)


def _rms(t: torch.Tensor) -> float:
    return float(t.pow(2).mean().sqrt())


def one_step_changes(setting: str, width: int, *, sigma_b: float = 0.0, activation: str = "relu") -> np.ndarray:
    """``[relative RMS change of h^1, of h^2, RMS change of f]`` after one SGD step of a two-hidden-layer network
    in ``setting`` at ``width`` (seed 0). It trains on y + f_0(x), so the first residual is exactly -y at every
    width, whatever the random initial function f_0. Cached (the opening figure and the measurement share it);
    each call returns a new array."""
    return np.array(_one_step_changes(setting, check_int("width", width, minimum=1),
                                      float(check_nonnegative("sigma_b", sigma_b)), activation))


@lru_cache(maxsize=64)
def _one_step_changes(setting: str, width: int, sigma_b: float, activation: str) -> tuple:
    parameterization = _setting(setting)[0]
    x, y = training_data()
    model = network(parameterization, width, depth=2, sigma_b=sigma_b, activation=activation)
    with torch.no_grad():
        h_before, f_before = preactivations(model, x), model(x)[:, 0]
    train(model, x, y + f_before, lr=learning_rate(setting, width), steps=1, track_kernels=False)
    with torch.no_grad():
        h_after, f_after = preactivations(model, x), model(x)[:, 0]
    return tuple([_rms(a - b) / _rms(b) for a, b in zip(h_after, h_before)] + [_rms(f_after - f_before)])


@dataclass(frozen=True)
class Movement:
    """How far 50 steps of gradient descent moved a one-hidden-layer network (relative changes).

    Attributes:
        ntk: of the learning-rate-weighted NTK on the training inputs, ||K_T - K_0||_F / ||K_0||_F.
        feature_kernel: of the hidden feature kernel Phi Phi^T / m.
        features: of the hidden pre-activations h, RMS(h_T - h_0) / RMS(h_0).
        weights: of all the weights, ||w_T - w_0|| / ||w_0||.
        outputs: of the outputs on the training inputs, ||f_T - f_0|| / ||y||.
        loss_start, loss_end: the training loss 1/(2n) sum (f - y)^2 before the first and after the last step.
    """

    ntk: float
    feature_kernel: float
    features: float
    weights: float
    outputs: float
    loss_start: float = float("nan")
    loss_end: float = float("nan")


def movement(parameterization: str, width: int, *, lr: float, seed: int = 0, steps: int = 50,
             activation: str = "relu") -> Movement:
    """:class:`Movement` of ``network(parameterization, width, seed=seed, activation=activation)`` trained for
    ``steps`` steps at ``lr`` on :func:`training_data`."""
    x, y = training_data()
    model = network(parameterization, width, seed=seed, activation=activation)
    weights = list(model.parameters())
    start = [w.detach().clone() for w in weights]
    with torch.no_grad():
        h0 = preactivations(model, x)[-1]
    record = train(model, x, y, lr=lr, steps=steps)
    with torch.no_grad():
        h1 = preactivations(model, x)[-1]
        change = math.sqrt(sum(float((w - w0).pow(2).sum()) for w, w0 in zip(weights, start))
                           / sum(float(w0.pow(2).sum()) for w0 in start))
    return Movement(ntk=record.ntk_change, feature_kernel=record.feature_change, features=_rms(h1 - h0) / _rms(h0),
                    weights=change, outputs=float((record.outputs[-1] - record.outputs[0]).norm() / y.norm()),
                    loss_start=float(record.loss[0]), loss_end=float(record.loss[-1]))


def hidden_matrix_movement(width: int, *, lr: float = 0.02, steps: int = 50, seed: int = 0) -> dict:
    """μP with two hidden layers (one m x m matrix W^2), ``steps`` steps at ``lr`` on :func:`training_data`:
    ``{"frobenius": ||W_T - W_0||_F / ||W_0||_F, "operator": ||W_T - W_0||_2 / ||W_0||_2, "features":
    RMS(h^2_T - h^2_0) / RMS(h^2_0), "update_f_over_op": ||W_T - W_0||_F / ||W_T - W_0||_2, "own":
    RMS(dW x^1_T) / RMS(h^2_0), "passed_on": RMS(W_0 dx^1) / RMS(h^2_0), "h1": RMS(h^1_T - h^1_0) / RMS(h^1_0)}``
    for that matrix and the pre-activations it computes (update_f_over_op squared is the update's effective rank;
    own + passed_on split the change of h^2 = W x^1 without bias: dh^2 = dW x^1_T + W_0 dx^1)."""
    x, y = training_data()
    model = network("mup", check_int("width", width, minimum=2), depth=2, seed=seed)
    square = [module for module in model.modules() if getattr(module, "weight", None) is not None
              and module.weight.dim() == 2 and module.weight.shape[0] == module.weight.shape[1] == width]
    (layer,) = square
    weight, scale = layer.weight, layer.weight_scale
    start = weight.detach().clone()
    with torch.no_grad():
        h0 = preactivations(model, x)
    train(model, x, y, lr=lr, steps=steps, track_kernels=False)
    with torch.no_grad():
        change, h1 = weight - start, preactivations(model, x)
        x1_start, x1_end = torch.relu(h0[0]), torch.relu(h1[0])
        return {"frobenius": float(change.norm() / start.norm()),
                "operator": float(torch.linalg.matrix_norm(change, 2) / torch.linalg.matrix_norm(start, 2)),
                "update_f_over_op": float(change.norm() / torch.linalg.matrix_norm(change, 2)),
                "features": _rms(h1[1] - h0[1]) / _rms(h0[1]),
                "own": _rms(scale * x1_end @ change.T) / _rms(h0[1]),
                "passed_on": _rms(scale * (x1_end - x1_start) @ start.T) / _rms(h0[1]),
                "h1": _rms(h1[0] - h0[0]) / _rms(h0[0])}


def preactivation_rms(width: int, *, extra_one_over_m: bool = False, depth: int = 3, d: int = 8) -> list[float]:
    """RMS of the pre-activations z^(1) .. z^(depth) of a ReLU MLP over 64 inputs on the sphere (seed 1).

    ``extra_one_over_m=False``: the package's network in the NTK parameterization, sigma_w = sqrt 2, i.e. He's
    variance 2/fan-in (``nh.mlp(depth, "relu").network(d, width=width, seed=0)``). ``True``: weights of variance
    2/(fan-in m), drawn here (seed 0): each layer then shrinks the pre-activations by a factor sqrt(m)."""
    width, depth = check_int("width", width, minimum=1), check_int("depth", depth, minimum=1)
    x = sphere(64, d, seed=1)
    if not extra_one_over_m:
        model = mlp(depth, "relu").network(d, width=width, seed=0)
        with torch.no_grad():
            return [_rms(z) for z in preactivations(model, x)]
    generator, h, out = torch.Generator().manual_seed(0), x, []
    for _layer in range(depth):
        weights = torch.randn(width, h.shape[1], generator=generator, dtype=torch.float64)
        z = h @ weights.T * math.sqrt(2 / (h.shape[1] * width))
        out.append(_rms(z))
        h = torch.relu(z)
    return out


def draw_initialization(widths, he: list, shrunk: list):
    """Two panels: the pre-activation RMS per layer against the width with He's variance (left, the package's
    NTK parameterization) and with variance 2/(fan-in m) (right); ``he[i][l]``, ``shrunk[i][l]`` at widths[i].
    Returns ``{("he" | "shrunk", layer): slope}``."""
    import matplotlib.pyplot as plt

    from .plotting import PALETTE, width_ticks

    fig, axes = plt.subplots(1, 2, figsize=(10.4, 3.8), sharey=True)
    slopes = {}
    panels = [(axes[0], "he", he, _("variance 2/fan-in (He; NTK parameterization): flat")),
              (axes[1], "shrunk", shrunk, _("variance 2/(fan-in·m): layer l shrinks like m^-l/2"))]
    for ax, key, values, title in panels:
        values = np.asarray(values)
        for layer in range(values.shape[1]):
            slope = float(np.polyfit(np.log(widths), np.log(values[:, layer]), 1)[0])
            slopes[key, layer + 1] = slope
            ax.loglog(widths, values[:, layer], "o-", color=PALETTE[layer],
                      label=_("layer {layer} (slope {slope:+.2f})").format(layer=layer + 1, slope=slope))
        width_ticks(ax, widths)
        ax.set_xlabel(_("width m"))
        ax.set_title(title, fontsize=10.5)
        ax.legend(fontsize="small")
    axes[0].set_ylabel(_("RMS of the pre-activations"))
    return slopes


# ---------------------------------------------------------------- figures

def idea_diagram(measured_widths=None, measured=None):
    """The lesson's picture: the predicted change of a hidden feature (h^2) in one SGD step against the width,
    one line per row of the table (the exponents of :func:`one_step_exponents`), coloured by parameterization,
    relative to its value at m = 64 (the axis says: each row rescaled by one constant). ``measured[setting]``: optional measured changes of h^2 at
    ``measured_widths`` (from :func:`one_step_changes`), drawn as points; each setting's points are multiplied by
    one constant (the least-squares one in log scale) so that they sit next to their line: their slope is the
    measurement, their height is not. Returns the figure."""
    import matplotlib.pyplot as plt
    from matplotlib.legend_handler import HandlerTuple
    from matplotlib.lines import Line2D

    from .plotting import width_ticks

    widths = np.array([64, 256, 1024, 4096], dtype=float)
    fig, ax = plt.subplots(figsize=(9.6, 5.4), layout="constrained")
    rows = [("standard, fixed η", "standard, fixed η = 0.005", COLOURS["standard"], "-", "o",
             _("standard, fixed η: blows up")),
            ("μP", "μP, η = 0.02", COLOURS["mup"], "-", "o", _("μP: features learn")),
            ("NTK", "NTK, η = 0.5", COLOURS["ntk"], "-", "o", _("NTK: lazy (kernel regime)")),
            ("standard, η ∝ 1/m", "standard, η = 1/m", OPENING_SCALED_COLOUR, "--", "s",
             _("standard, η ∝ 1/m: lazy as well, line shifted down for visibility"))]
    for row, setting, colour, style, marker, text in rows:
        exponent = float(one_step_exponents(width_exponents(*ABC[row]))[1])
        shift = 0.93 if row == "standard, η ∝ 1/m" else 1.0                   # the two lazy lines coincide
        line = lambda m: shift * (np.asarray(m, dtype=float) / widths[0]) ** exponent
        ax.loglog(widths, line(widths), style, color=colour, lw=2.2,
                  label=_("{text} (predicted {power})").format(
                      text=text, power=power(Fraction(exponent).limit_denominator(2))))
        if measured is not None and setting in measured:
            values = np.asarray(measured[setting], dtype=float)
            scale = math.exp(float(np.mean(np.log(line(measured_widths)) - np.log(values))))
            ax.loglog(measured_widths, scale * values, marker, color=colour, ms=8, mfc="white", mew=2)
    ax.axhline(1, color="0.6", lw=0.6)
    width_ticks(ax, widths.astype(int))
    ax.set_xlabel(_("width m"))
    ax.set_ylabel(_("feature change in one step\n(each row rescaled by one constant)"))
    ax.set_title(_("One power of m decides: features freeze (NTK),\nkeep moving (μP) "
                   "or blow up (standard, fixed η)"), fontsize=11)
    handles, labels = ax.get_legend_handles_labels()
    if measured is not None:
        handles.append(tuple(Line2D([], [], marker=marker, ls="", color="0.3", mfc="white", mew=2, ms=8)
                             for marker in "os"))
        labels.append(_("circles and squares: measured after one step (each row scaled by one constant)"))
    fig.legend(handles, labels, loc="outside lower center", ncol=2, fontsize="small",
               handler_map={tuple: HandlerTuple(ndivide=None)})
    return fig


def _parameterization_style(setting: str) -> dict:
    parameterization, _lr, per_width = _setting(setting)
    return dict(color=COLOURS[parameterization], ls="--" if per_width else "-")


def _one_step_panels():
    """(y label, takeaway title) of the three panels of :func:`draw_one_step`: h^1, h^2, f."""
    return [(_("relative change of h¹ (input layer)"),
             _("Δh¹: every row but μP shrinks as m grows")),
            (_("relative change of h² (hidden layer)"),
             _("Δh²: μP flat, NTK shrinks, standard at fixed η grows")),
            (_("change of f (RMS)"),
             _("Δf: flat, except standard at fixed η (grows like m)"))]


def draw_one_step(widths, changes: dict):
    """Measured one-step changes (``changes[setting]`` with rows per width, as :func:`one_step_changes` returns
    them stacked) against the width: one panel each for h^1, h^2 and f, with fitted slopes, coloured by
    parameterization. Returns ``{setting: [slope of h^1, of h^2, of f]}``."""
    import matplotlib.pyplot as plt

    from .plotting import width_ticks

    fig, axes = plt.subplots(1, 3, figsize=(13.5, 4.8), layout="constrained")
    slopes = {setting: [] for setting in changes}
    for column, (ax, (ylabel, title)) in enumerate(zip(axes, _one_step_panels())):
        for setting, values in changes.items():
            y = np.asarray(values)[:, column]
            slope, intercept = np.polyfit(np.log(widths), np.log(y), 1)
            style = _parameterization_style(setting)
            ax.loglog(widths, y, "s" if style["ls"] == "--" else "o", color=style["color"], mfc="white", mew=1.8)
            ax.loglog(widths, np.exp(intercept) * np.asarray(widths, dtype=float) ** slope, alpha=0.8, **style,
                      label=setting_name(setting) if column == 0 else "_nolegend_")
            slopes[setting].append(float(slope))
        width_ticks(ax, widths)
        ax.set_xlabel(_("width m"))
        ax.set_ylabel(ylabel)
        ax.set_title(title, fontsize=10)
    fig.legend(*axes[0].get_legend_handles_labels(), loc="outside lower center", ncol=len(changes), fontsize="small",
               title=_("lines: fitted power laws (slopes printed above)"), title_fontsize="small")
    fig.suptitle(_("One SGD step: only μP moves every layer by a width-independent amount"))
    return slopes


#: The quantities of :func:`draw_movement`: attribute of :class:`Movement` -> marker.
QUANTITIES = {"ntk": "o", "features": "^", "feature_kernel": "s", "weights": "D"}


def quantity_label(what: str) -> str:
    """The legend name of a quantity of :data:`QUANTITIES` (translated)."""
    return {"ntk": "NTK", "features": _("features h"), "feature_kernel": _("feature kernel"),
            "weights": _("weights")}[what]


def draw_movement(widths, results: dict):
    """``results[parameterization]``: a list of :class:`Movement` per width (averaged over seeds). One panel per
    parameterization, colour = parameterization, marker = quantity, each with its fitted slope. Returns
    ``{(parameterization, quantity): slope}``."""
    import matplotlib.pyplot as plt

    from .plotting import width_ticks

    fig, axes = plt.subplots(1, len(results), figsize=(10.8, 4.2), sharey=True)
    slopes = {}
    titles = {"ntk": _("NTK parameterization: all four shrink as m grows"),
              "mup": _("μP: all four stay of order one")}
    widths_array = np.asarray(widths, dtype=float)
    for ax, (parameterization, rows) in zip(np.atleast_1d(axes), results.items()):
        for i, (what, marker) in enumerate(QUANTITIES.items()):
            y = np.array([getattr(row, what) for row in rows])
            slope, intercept = np.polyfit(np.log(widths), np.log(y), 1)
            offset = 1.12 ** (i - (len(QUANTITIES) - 1) / 2)        # sideways, so that equal values stay visible
            ax.loglog(widths_array * offset, y, marker, color=COLOURS[parameterization], ms=7, mfc="white", mew=1.8,
                      label=_("{label} (slope {slope:.2f})").format(label=quantity_label(what), slope=slope))
            ax.loglog(widths_array * offset, np.exp(intercept) * widths_array ** slope, "-",
                      color=COLOURS[parameterization], alpha=0.5)
            slopes[parameterization, what] = float(slope)
        width_ticks(ax, widths)
        ax.set_xlabel(_("width m (the four markers offset sideways)"))
        ax.set_title(titles.get(parameterization, parameterization_name(parameterization)), fontsize=10.5)
        ax.legend(fontsize="small", loc="lower left")
    np.atleast_1d(axes)[0].set_ylabel(_("relative change after 50 steps"))
    fig.suptitle(_("50 steps, similar final loss: inside the NTK-parameterized network everything freezes as m "
                   "grows; under μP nothing does"), fontsize=11)
    return slopes


# ---------------------------------------------------------------- the explorer

def stability_number(setting: str, width: int) -> float:
    """eta lambda_max / n at initialization: lambda_max is the largest eigenvalue of the learning-rate-weighted
    empirical NTK on the training inputs; the linearized network diverges when it exceeds 2."""
    x, _unused = training_data()
    model = network(_setting(setting)[0], width)
    theta = empirical_ntk(model, x, parameter_weights=lr_multipliers(model))
    return learning_rate(setting, width) * float(torch.linalg.eigvalsh(theta)[-1]) / len(x)


@lru_cache(maxsize=32)
def trained(setting: str, width: int):
    """``(record, stability number)`` of 50 steps of ``nh.train`` in ``setting`` at ``width`` (seed 0), stopping
    at a divergence instead of raising; cached, so the explorer redraws at once."""
    x, y = training_data()
    model = network(_setting(setting)[0], width)
    record = train(model, x, y, lr=learning_rate(setting, width), steps=50, on_divergence="stop")
    return record, stability_number(setting, width)


def trained_feature_change(setting: str, width: int) -> float:
    """RMS(h^1_T - h^1_0) / RMS(h^1_0) on :func:`training_data` after the 50 steps of :func:`trained` (same
    network, seed, learning rate), recomputed here from a fresh network; nan if gradient descent diverged."""
    x, y = training_data()
    model = network(_setting(setting)[0], width)
    with torch.no_grad():
        start = preactivations(model, x)[0]
    record = train(model, x, y, lr=learning_rate(setting, width), steps=50, on_divergence="stop",
                   track_kernels=False)
    if record.diverged_at is not None:
        return float("nan")
    with torch.no_grad():
        return _rms(preactivations(model, x)[0] - start) / _rms(start)


def describe_training(setting: str, width: int) -> str:
    """The explorer's printed sentences, true for this setting and width."""
    record, stability = trained(setting, width)
    if record.diverged_at is not None:
        return textwrap.fill(_("{setting}, width {width}: η·λ_max/n = {stability:.3g} {relation} 2, gradient "
                               "descent diverged (the loss overflowed at step {step}); λ_max grows like m, so a "
                               "fixed η fails at large widths").format(
            setting=setting_name(setting), width=width, stability=stability,
            relation=">" if stability > 2 else "≤", step=record.diverged_at), 110)
    parameterization = _setting(setting)[0]
    if setting == "standard, η = 1/m":
        story = _("kernel limit: η·λ_max/n tends to a constant as m grows, and the features freeze")
    elif parameterization == "ntk":
        story = _("lazy: the kernel and the features move little (about 10 % at width 64), less at larger widths")
    elif parameterization == "mup":
        story = _("feature learning: the feature kernel moves by about the same amount at every width")
    else:
        story = _("stable at this width, but λ_max grows like m: at a fixed η a wider network diverges")
    return textwrap.fill(_("{setting}, width {width}: η·λ_max/n = {stability:.3g}; NTK change {ntk:.3g}, "
                           "feature-kernel change {features:.3g}, loss {start:.3g} → {end:.3g}. {story}").format(
        setting=setting_name(setting), width=width, stability=stability, ntk=record.ntk_change,
        features=record.feature_change, start=float(record.loss[0]), end=float(record.loss[-1]), story=story), 110)


def draw_training(setting: str, width: int) -> None:
    """The explorer: the feature kernel's entries after 50 steps against before (left) and the training loss
    (right) for ``setting`` at ``width``, and the sentences of :func:`describe_training` under the figure."""
    import matplotlib.pyplot as plt

    record, _unused = trained(setting, width)
    colour = COLOURS[_setting(setting)[0]]
    fig, (left, right) = plt.subplots(1, 2, figsize=(10, 3.8))
    right.semilogy(record.loss, color=colour)
    factor = float(record.loss[0] / record.loss[-1])
    if record.diverged_at is not None:
        right.axvline(record.diverged_at, color="0.4", ls=":", lw=1.2)
        loss_title = _("The loss overflows at step {step} (dotted line)").format(step=record.diverged_at)
    elif factor > 1:
        loss_title = _("The loss falls by a factor of {factor} in 50 steps").format(
            factor=f"{factor:.3g}" if factor < 1000 else f"{factor:.0f}")
    else:
        loss_title = _("The loss does not fall")
    right.set_title(loss_title, fontsize=10.5)
    right.set_xlabel(_("step"))
    right.set_ylabel(_("training loss"))
    left.set_xlabel(_("feature kernel entry before training"))
    left.set_ylabel(_("same entry after training"))
    if record.diverged_at is not None:
        fig.suptitle(_("Diverged: η·λ_max/n is above 2 at this width"))
        left.text(0.5, 0.5, _("diverged at step {step}:\nno kernel after training").format(step=record.diverged_at),
                  ha="center",
                  va="center", transform=left.transAxes)
        left.axis("off")
    else:
        left.scatter(record.features_start.flatten(), record.features_end.flatten(), s=8, color=colour,
                     label=_("kernel entries"))
        lims = [float(record.features_start.min()), float(record.features_start.max())]
        left.plot(lims, lims, "k--", lw=1, label=_("no change"))
        left.legend()
        if record.feature_change > 0.05:
            fig.suptitle(_("Feature learning: the feature kernel's entries leave the line y = x (no change)"))
        else:
            fig.suptitle(_("Lazy: the feature kernel's entries stay on the line y = x (no change)"))
    text = describe_training(setting, width)                   # under the figure, so a saved view shows it too
    wide = sum(ord(ch) > 0x2E80 for ch in text) > len(text) / 4   # Chinese: about half as many characters a line
    fig.text(0.5, -0.02, textwrap.fill(" ".join(text.split()), 60 if wide else 120), ha="center", va="top",
             fontsize=9)


__all__ = ["ABC", "COLOURS", "OPENING_SCALED_COLOUR", "Classification", "Movement", "QUANTITIES", "ROW", "SETTINGS", "WidthExponents",
           "classify", "describe_training", "trained_feature_change", "hidden_matrix_movement", "draw_initialization", "draw_movement", "draw_one_step", "draw_training",
           "idea_diagram", "learning_rate", "movement", "network", "nontrivial_name", "parameterization_name", "one_step_changes", "one_step_exponents", "power",
           "preactivation_rms", "quantity_label", "regime_name", "row_name", "setting_name", "stability_number",
           "trained", "training_data", "width_exponents"]
