"""Lesson 05a's machinery: what layer norm and batch norm do to the kernel (book section 4.4.1).

Layer norm divides each input's pre-activations by their own spread over the units. At infinite width that
spread is the kernel diagonal, so right after a dense layer (Novak et al. 2020, ``stax.LayerNorm``)

    Sigma(x, x') -> Sigma(x, x') / sqrt(Sigma(x, x) Sigma(x', x')),   Theta likewise (eps aside).

The kernel forgets the scale of an input when what feeds layer norm is positively homogeneous in x
(z(a x) = a^k z(x) for a > 0: bias-free dense layers with ReLU between them, for every weight) and x reaches the
rest of the network only through this layer norm (a serial network, no skip connection around it): then
f(a x; theta) = f(x; theta) for every theta, so the gradients and the NTK at a x are those at x, at every width.
A bias before layer norm breaks it: z(a x) = a W x + b is not a multiple of z(x).

Batch norm divides each unit by statistics taken over a *batch*, which stays finite as the width grows: an
input's output depends on its batch mates, and there is no kernel of a pair of inputs (Yang et al. 2019).

- :data:`PAIR`, :data:`SCALES`, :func:`ln_network`, :func:`kernel_vs_scale`, :func:`finite_ntk_ratio`: the scale
  experiment, at infinite width and in finite networks;
- :func:`describe_scale`, :func:`scale_title`, :func:`draw_scale`: its explorer (the bias before and after layer
  norm);
- :func:`batch_with_x1`, :func:`batch_outputs`, :func:`unit_outputs`, :func:`describe_batch`, :func:`batch_title`,
  :func:`draw_batch`: the batch experiment and its explorer (width and batch size);
- :func:`idea_diagram`: the picture of the two normalizations.

Printed text and new labels go through :func:`~ntk_helpers.course.messages.gettext`; numbers are filled in after.
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np
import torch

from .._checks import check_int, check_nonnegative
from ..engine.activations import relu
from ..engine.combinators import serial
from ..engine.dense import dense
from ..engine.normalization import batch_norm, layer_norm
from ..finite.empirical import empirical_ntk
from .data import sphere
from .messages import gettext as _

#: Input dimension, and sigma_w of the first layer (the readout has sigma_w = 1).
D, SIGMA_W = 5, 1.4
#: The scale explorer's two inputs x, x' (x.x/d = 1): nearly opposite, x.x'/d = -0.74.
PAIR = sphere(2, d=D, seed=0)
#: The first figure's two inputs (x.x/d = 1), at an acute angle, x.x'/d = +0.30: their kernel is clearly positive.
ALIGNED = sphere(2, d=D, seed=17)
PAIRS = {"opposite": PAIR, "aligned": ALIGNED}
#: The scales a of the first input, 1/4 ... 4 (17 points, a = 1 at index 8).
SCALES = np.geomspace(0.25, 4, 17)
#: The batch experiment: the input x1 whose output is recorded, and the number of batches drawn.
X1 = sphere(1, d=D, seed=2)
RESAMPLES = 200


def ln_network(bias_before: float = 0.0, bias_after: float = 0.0, *, with_layer_norm: bool = True):
    """dense(sigma_w = 1.4, sigma_b = bias_before) -> [layer norm] -> ReLU -> dense(1, sigma_b = bias_after)."""
    first = dense(sigma_w=SIGMA_W, sigma_b=check_nonnegative("bias_before", bias_before))
    readout = dense(1, sigma_b=check_nonnegative("bias_after", bias_after))
    return serial(first, layer_norm(), relu(), readout) if with_layer_norm else serial(first, relu(), readout)


def _pair(pair: str) -> torch.Tensor:
    if pair not in PAIRS:
        raise ValueError(f"pair must be one of {sorted(PAIRS)}, got {pair!r}")
    return PAIRS[pair]


@lru_cache(maxsize=512)
def _kernel_vs_scale(bias_before: float, bias_after: float, with_layer_norm: bool,
                     pair: str) -> tuple[np.ndarray, float]:
    net = ln_network(bias_before, bias_after, with_layer_norm=with_layer_norm)
    inputs = _pair(pair)
    scaled = torch.as_tensor(SCALES, dtype=inputs.dtype)[:, None] * inputs[:1]      # a x for every a: (17, d)
    theta = net.kernel(scaled, inputs[1:]).ntk[:, 0].numpy().copy()
    theta.setflags(write=False)
    return theta, float(net.kernel(inputs[:1], inputs[1:]).ntk[0, 0])


def kernel_vs_scale(bias_before: float, bias_after: float = 0.0, *, with_layer_norm: bool = True,
                    pair: str = "opposite"):
    """``(Theta(a x, x') at SCALES, Theta(x, x'))`` at infinite width for :func:`ln_network` (read-only array),
    for the inputs :data:`PAIR` (``pair="opposite"``) or :data:`ALIGNED` (``pair="aligned"``)."""
    _pair(pair)                                                     # a known name, or a ValueError
    return _kernel_vs_scale(round(check_nonnegative("bias_before", bias_before), 6),
                            round(check_nonnegative("bias_after", bias_after), 6), bool(with_layer_norm), pair)


def flatness(bias_before: float, bias_after: float = 0.0) -> float:
    """How much Theta(a x, x') of the layer-norm network varies over a in [1/4, 4], relative to the kernel's size
    sqrt(Theta(x, x) Theta(x', x')) (0 when the kernel sees only the direction of x)."""
    theta, _base = kernel_vs_scale(bias_before, bias_after)
    k = ln_network(bias_before, bias_after).kernel(PAIR).ntk
    return float(np.ptp(theta) / torch.sqrt(k[0, 0] * k[1, 1]))


def finite_ntk_ratio(bias_before: float, width: int, *, scale: float = 4.0, seed: int = 0,
                     pair: str = "opposite") -> float:
    """Theta(a x, x') / Theta(x, x') of one finite network (empirical NTK, autograd) of :func:`ln_network`
    ``(bias_before, 0)`` at the given width, for a = ``scale`` (inputs as in :func:`kernel_vs_scale`)."""
    model = ln_network(bias_before).network(D, width=check_int("width", width, minimum=1),
                                            seed=check_int("seed", seed, minimum=0))
    inputs = _pair(pair)
    scaled = torch.cat([inputs[:1], float(check_nonnegative("scale", scale)) * inputs[:1]])
    theta = empirical_ntk(model, scaled, inputs[1:])[:, 0]
    return float(theta[1] / theta[0])


def describe_scale(bias_before: float, bias_after: float) -> str:
    """One sentence, true at these settings, on whether the layer-norm network's kernel sees the scale of x
    (the variation is :func:`flatness`)."""
    spread = flatness(bias_before, bias_after)
    if bias_before == 0:
        return _("No bias before layer norm: Θ(a x, x′) does not depend on a (varies by {spread:.0e}, "
                 "from ε)").format(spread=spread)
    return _("A bias σ_b = {bias:.2f} before layer norm lets the scale back in: Θ(a x, x′) depends on a "
             "(varies by {spread:.2g})").format(bias=bias_before, spread=spread)


def draw_scale(bias_before: float, bias_after: float) -> None:
    """The scale explorer: Theta(a x, x') against a for the network with layer norm (solid) and without (dashed),
    each with its value at a = 1 (dotted); the title from :func:`scale_title`."""
    import matplotlib.pyplot as plt

    from .plotting import PALETTE, width_ticks

    fig, ax = plt.subplots()
    for with_ln, colour, style, label in [(True, PALETTE[0], "o-", _("with layer norm")),
                                          (False, PALETTE[1], "s--", _("without layer norm"))]:
        theta, base = kernel_vs_scale(bias_before, bias_after, with_layer_norm=with_ln)
        ax.plot(SCALES, theta, style, ms=4, color=colour, label=label)
        ax.axhline(base, color=colour, ls=":", lw=1, label=_("{name}: value at a = 1").format(name=label))
    ax.set_xscale("log")
    width_ticks(ax, [0.25, 0.5, 1, 2, 4])
    ax.set_xlabel(_("scale a of the first input"))
    ax.set_ylabel("Θ(a x, x′)")
    ax.set_title(scale_title(bias_before, bias_after), fontsize=10)
    ax.legend(fontsize="small")


def scale_title(bias_before: float, bias_after: float) -> str:
    """The scale explorer's title: :func:`describe_scale`, and on a second line the layer-norm network's
    Theta(x, x') and Theta(a x, x') at a = 1/4 and 4 (in the figure, so that a saved notebook shows them)."""
    theta, base = kernel_vs_scale(bias_before, bias_after)
    line = _("with layer norm: Θ(x/4, x′) = {low:.4f}, Θ(x, x′) = {base:.4f}, Θ(4x, x′) = {high:.4f}")
    return describe_scale(bias_before, bias_after) + "\n" + line.format(base=base, low=float(theta[0]),
                                                                        high=float(theta[-1]))


# ---------------------------------------------------------------- batch norm: one input, many batches

def bn_network(*, frozen: bool = False):
    """dense(sigma_w = 1.4) -> batch norm (batch statistics, or frozen) -> ReLU -> dense(1)."""
    return serial(dense(sigma_w=SIGMA_W), batch_norm(frozen=frozen), relu(), dense(1))


def batch_mates(batch_size: int, resample: int) -> torch.Tensor:
    """The ``batch_size - 1`` inputs that share x1's batch in draw number ``resample`` (seeded, on the sphere)."""
    return sphere(check_int("batch_size", batch_size, minimum=2) - 1, d=D, seed=100 + resample)


def batch_with_x1(batch_size: int, resample: int) -> torch.Tensor:
    """The whole batch number ``resample``: x1 first, then its :func:`batch_mates`; shape (batch_size, d)."""
    return torch.cat([X1, batch_mates(batch_size, resample)])


@lru_cache(maxsize=128)
def _batch_outputs(width: int, batch_size: int, frozen: bool, resamples: int, seed: int) -> torch.Tensor:
    model = bn_network(frozen=frozen).network(D, width=width, seed=seed)
    first, norm, activation, readout = model
    values = []
    with torch.no_grad():
        for start in range(0, resamples, 20):                   # 20 batches at a time, side by side
            batches = torch.stack([batch_with_x1(batch_size, b)
                                   for b in range(start, min(start + 20, resamples))])     # (r, B, d)
            z = first(batches)                                                              # (r, B, m)
            if frozen:
                h = norm(z)
            else:                               # batch norm of each batch on its own: statistics over axis 1
                mean, var = z.mean(1, keepdim=True), z.var(1, unbiased=False, keepdim=True)
                h = (z - mean) / torch.sqrt(var + norm.eps)
            values.append(readout(activation(h))[:, 0, 0])                                 # x1 sits first
    return torch.cat(values)


def batch_outputs(width: int, batch_size: int, *, frozen: bool = False, resamples: int = RESAMPLES,
                  seed: int = 0) -> torch.Tensor:
    """f(x1) of one network of :func:`bn_network` (``width`` units, seeded), x1 first in each of ``resamples``
    batches of ``batch_size`` with other batch mates (:func:`batch_mates`); shape (resamples,), float64."""
    return _batch_outputs(check_int("width", width, minimum=1), check_int("batch_size", batch_size, minimum=2),
                          bool(frozen), check_int("resamples", resamples, minimum=2),
                          check_int("seed", seed, minimum=0)).clone()


def unit_outputs(width: int, batch_size: int, resample: int = 0, *, seed: int = 0) -> torch.Tensor:
    """The batch-normalized pre-activations of x1 (shape (width,)) in batch ``resample``: what batch norm hands
    to the ReLU, for every unit."""
    model = bn_network().network(D, width=check_int("width", width, minimum=1),
                                 seed=check_int("seed", seed, minimum=0))
    with torch.no_grad():
        return model[1](model[0](torch.cat([X1, batch_mates(batch_size, resample)])))[0]


def describe_batch(width: int, batch_size: int) -> str:
    """The batch explorer's title: how much f(x1) moves with its batch mates at these settings."""
    spread = float(batch_outputs(width, batch_size).std())
    return _("batch of {batch}: f(x₁) moves with its batch mates (std {spread:.3f}); frozen: one value").format(
        batch=batch_size, spread=spread)


def draw_batch(width: int, batch_size: int) -> None:
    """The batch explorer: the histogram of f(x1) over :data:`RESAMPLES` batches with batch statistics, and the
    one value of the same network with frozen statistics; title from :func:`batch_title`."""
    import matplotlib.pyplot as plt

    from .plotting import PALETTE

    coupled = batch_outputs(width, batch_size).numpy()
    frozen = float(batch_outputs(width, batch_size, frozen=True)[0])
    fig, ax = plt.subplots()
    ax.hist(coupled, bins=30, color=PALETTE[0], alpha=0.7, label=_("batch statistics"))
    ax.axvline(frozen, color=PALETTE[1], lw=2, label=_("frozen statistics"))
    ax.set_xlabel(_("f(x₁) for {n} different batches").format(n=RESAMPLES))
    ax.set_ylabel(_("count"))
    ax.set_title(batch_title(width, batch_size), fontsize=10)
    ax.legend(fontsize="small")


def batch_title(width: int, batch_size: int) -> str:
    """The batch explorer's title: :func:`describe_batch`, and on a second line the width, the batch size, the
    mean and std of f(x1) over the batches and the frozen value (in the figure, so a saved notebook shows them)."""
    coupled = batch_outputs(width, batch_size)
    frozen = float(batch_outputs(width, batch_size, frozen=True)[0])
    return describe_batch(width, batch_size) + "\n" + _(
        "width {width}, batch size {batch}: mean {mean:.3f}, std {spread:.3f} over the batches; "
        "frozen statistics: {frozen:.3f}").format(width=width, batch=batch_size, mean=float(coupled.mean()),
                                                   spread=float(coupled.std()), frozen=frozen)


# ---------------------------------------------------------------- the picture

def idea_diagram():
    """Two panels of the same pre-activation table (rows: the inputs of a batch, columns: units): layer norm takes
    its statistics along a row (one input, all units), batch norm down a column (one unit, the whole batch).
    Returns the figure."""
    import matplotlib.pyplot as plt
    from matplotlib.patches import Rectangle

    from .plotting import PALETTE

    rows, cols = 4, 10
    fig, axes = plt.subplots(1, 2, figsize=(10.4, 3.6))
    cases = [(axes[0], _("layer norm"), _("one input, all its units:") + "\n" + _("width m → ∞ averages it out"),
              "row", PALETTE[0]),
             (axes[1], _("batch norm"), _("one unit, the whole batch:") + "\n" + _("the batch stays finite"),
              "column", PALETTE[1])]
    for ax, name, note, direction, colour in cases:
        ax.set_xlim(-1.6, cols + 0.2)
        ax.set_ylim(-1.9, rows + 1.0)
        ax.set_aspect("equal")
        ax.axis("off")
        for r in range(rows):
            for c in range(cols):
                ax.add_patch(Rectangle((c, r), 0.92, 0.92, facecolor="0.88", edgecolor="white"))
        if direction == "row":
            ax.add_patch(Rectangle((-0.08, rows - 1 - 0.08), cols + 0.08, 1.08, facecolor=colour, alpha=0.35,
                                   edgecolor=colour, lw=2))
        else:
            ax.add_patch(Rectangle((2 - 0.08, -0.08), 1.08, rows + 0.08, facecolor=colour, alpha=0.35,
                                   edgecolor=colour, lw=2))
        ax.text(-0.3, rows / 2 - 0.05, _("inputs\nof a batch"), ha="right", va="center", fontsize=9.5)
        ax.text(cols / 2, rows + 0.35, _("units 1 … m"), ha="center", fontsize=9.5)
        ax.text(cols / 2, -0.35, name, ha="center", va="top", fontsize=12, color=colour, weight="bold")
        ax.text(cols / 2, -1.0, note, ha="center", va="top", fontsize=9.5, linespacing=1.4)
    fig.suptitle(_("Layer norm uses one input's own statistics; batch norm shares them across the batch"),
                 fontsize=12)
    return fig


__all__ = ["ALIGNED", "D", "PAIR", "PAIRS", "RESAMPLES", "SCALES", "SIGMA_W", "X1", "batch_mates", "batch_outputs", "batch_title",
           "batch_with_x1", "bn_network", "describe_batch", "describe_scale", "draw_batch", "draw_scale",
           "finite_ntk_ratio", "flatness", "idea_diagram", "kernel_vs_scale", "ln_network", "scale_title",
           "unit_outputs"]
