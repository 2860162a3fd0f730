"""Lesson 03 (convolutional networks, chapter 4.2): its diagram, its pixel-pair pictures, the receptive-field
explorer's picture and sentences, and the finite-network measurements it repeats (spread over seeds, feature
similarity), so that the lesson's cells stay a few readable lines.

- :func:`draw_shared_offsets`: the idea of the lesson as a picture: the kernel at a pixel pair (p, p') sums
  the previous layer's kernel over the filter's offsets a, the same offset for both images
  (:func:`shared_offset_cells` lists the cells it sums);
- :func:`pixel_pair_panels`: pixel-pair kernels side by side, each scaled to its largest entry;
- :func:`locally_connected_kernel`: the kernel of the same network with a separate filter at every position;
- :func:`span_formula`, :func:`influence_summary`, :func:`receptive_field_sentences`,
  :func:`show_receptive_field`: the receptive-field explorer (section 4.2.3);
- :func:`ntk_spread`: how much one finite network's NTK varies over random initializations (section 4.2.2);
- :func:`split_accuracies`, :func:`accuracy_bars`: kernel regression's accuracy on random splits of a pool of
  inputs, drawn as bars with a dot per split (section 4.2.2, two tasks);
- :func:`normalized`, :func:`paired_cosines`, :func:`feature_cosines`, :func:`mean_paired_feature_cosine`:
  kernels with the scale divided out, exact or measured on finite networks (max vs average pooling).

Printed text and labels go through :func:`~ntk_helpers.course.messages.gettext`, numbers filled in after.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import torch

from .._checks import check_int
from ..engine.layer import Layer
from ..finite.empirical import empirical_ntk
from .messages import gettext as _
from .threads import one_thread

#: The filter's offsets in the diagram and the explorer: a 3-tap filter, a in {-1, 0, +1}.
TAPS = (-1, 0, 1)


# ----------------------------------------------------------------------------------------- the idea, drawn

def shared_offset_cells(p: int, p_prime: int, taps=TAPS) -> list[tuple[int, int]]:
    """The cells (p + a, p' + a) of the previous layer's pixel-pair kernel that the entry (p, p') of a
    convolution's kernel sums: one per offset a, the same offset in both images."""
    return [(p + a, p_prime + a) for a in taps]


def draw_shared_offsets(p: int = 3, p_prime: int = 6, length: int = 10):
    """The lesson's diagram: left, one filter applied at pixel p of x and at pixel p' of x'; each offset a has
    its own weight w_a, shared by both images, so only "same offset" products survive the average over
    weights.
    Right, the pixel-pair grid: the entry (p, p') of layer l + 1 sums the cells (p + a, p' + a) of layer l, a
    short stroke parallel to the diagonal. Returns the figure."""
    import matplotlib.pyplot as plt
    from matplotlib.patches import FancyArrowPatch, Rectangle

    from .plotting import PALETTE

    colors = dict(zip(TAPS, PALETTE[:3]))
    fig, (left, right) = plt.subplots(1, 2, figsize=(11.5, 4.6), gridspec_kw={"width_ratios": [1.35, 1]})

    # left: two signals and one filter (w_-1, w_0, w_+1), applied at p in x and at p' in x'
    rows = {"x": 2.6, "x'": 0.0}
    box = 0.7
    for name, y in rows.items():
        for q in range(length):
            a = q - (p if name == "x" else p_prime)
            face = colors[a] if a in colors else "white"
            left.add_patch(Rectangle((q, y), 0.9, box, facecolor=face, edgecolor="0.3", alpha=0.85))
        left.text(-0.4, y + box / 2, f"${name}$", ha="right", va="center", fontsize=15)
    centre = (p + p_prime) / 2
    filter_y = 1.3
    for a, color in colors.items():
        x0 = centre + a * 1.1 - 0.45
        left.add_patch(Rectangle((x0, filter_y), 0.9, box, facecolor=color, edgecolor="k", lw=1.5))
        left.text(x0 + 0.45, filter_y + box / 2, f"$w_{{{a:+d}}}$", ha="center", va="center", fontsize=12,
                  color="white")
        left.add_patch(FancyArrowPatch((x0 + 0.45, filter_y + box), (p + a + 0.45, rows["x"]), arrowstyle="-",
                                       color=color, lw=2))
        left.add_patch(FancyArrowPatch((x0 + 0.45, filter_y), (p_prime + a + 0.45, rows["x'"] + box),
                                       arrowstyle="-", color=color, lw=2))
    left.text(centre + 2.0, filter_y + box / 2, _("one filter,\nshared"), ha="left", va="center", fontsize=11)
    left.text(p + 0.45, rows["x"] + box + 0.2, "$p$", ha="center", fontsize=13)
    left.text(p_prime + 0.45, -0.5, "$p'$", ha="center", fontsize=13)
    left.text(length / 2 - 0.5, -1.1,
              _("products $w_a w_b$ with $a \\neq b$ average to 0: only $a = b$ is left"),
              ha="center", va="center", fontsize=11, color="0.3")
    left.set_xlim(-1.2, length + 0.2)
    left.set_ylim(-1.4, 3.9)
    left.set_axis_off()
    left.set_title(_("The same weight $w_a$ meets $x_{p+a}$ and $x'_{p'+a}$"))

    # right: the pixel-pair grid of layer l and the cells that entry (p, p') of layer l + 1 sums
    for i in range(length):
        for j in range(length):
            right.add_patch(Rectangle((j, i), 1, 1, facecolor="white", edgecolor="0.85"))
    for a, (i, j) in zip(TAPS, shared_offset_cells(p, p_prime)):
        right.add_patch(Rectangle((j, i), 1, 1, facecolor=colors[a], edgecolor="0.3", alpha=0.85))
    right.add_patch(Rectangle((p_prime, p), 1, 1, facecolor="none", edgecolor="k", lw=3))
    right.plot([0, length], [0, length], "k--", lw=1)
    right.text(2.0, 1.0, "$p = p'$", ha="left", va="center", fontsize=12)
    right.annotate("", xy=(p_prime + 2, p + 2), xytext=(p_prime - 1, p - 1),
                   arrowprops={"arrowstyle": "->", "color": "k", "lw": 1.5})
    right.set_xlim(0, length)
    right.set_ylim(length, 0)
    right.set_aspect("equal")
    right.grid(False)
    right.set_xticks([p_prime + 0.5], ["$p'$"])
    right.set_yticks([p + 0.5], ["$p$"])
    right.set_xlabel(_("pixel of x′"))
    right.set_ylabel(_("pixel of x"))
    right.set_title(_("Entry (p, p′) of layer l + 1 (black) sums\nthree cells of layer l along a diagonal"))
    fig.suptitle(_("Weight sharing pairs the same offset in both images"))
    return fig


def pixel_pair_panels(kernels, titles, *, suptitle: str, diagonal: bool = False):
    """Pixel-pair kernels (each (P, P): row p of x, column p' of x') side by side, each divided by its largest
    absolute entry (so that the patterns, not the scales, compare); ``diagonal=True`` draws the line p = p'.
    Returns the figure."""
    import matplotlib.pyplot as plt

    kernels = [np.asarray(k, dtype=float) for k in kernels]
    if len(kernels) != len(titles):
        raise ValueError(f"pixel_pair_panels: {len(kernels)} kernels but {len(titles)} titles")
    fig, axes = plt.subplots(1, len(kernels), figsize=(3.9 * len(kernels), 4.4), squeeze=False)
    for ax, k, title in zip(axes[0], kernels, titles):
        largest = np.abs(k).max()
        image = ax.imshow(k / largest if largest > 0 else k, cmap="Blues", vmin=0, vmax=1)
        size = k.shape[0]
        ax.set_xticks(range(0, size, 4))
        ax.set_yticks(range(0, size, 4))
        ax.grid(False)
        if diagonal:
            ax.plot([-0.5, size - 0.5], [-0.5, size - 0.5], "--", color="0.4", lw=1)
        ax.set_title(title)
        ax.set_xlabel(_("pixel p′ of x′"))
    axes[0][0].set_ylabel(_("pixel p of x"))
    fig.colorbar(image, ax=axes[0].tolist(), shrink=0.8, label=_("entry / largest entry"))
    fig.suptitle(suptitle)
    return fig


# ------------------------------------------------------------------- locally connected networks (4.2.1)

def locally_connected_kernel(architecture: Layer, kernel):
    """The infinite-width kernel of ``architecture`` with every convolution replaced by a locally connected
    layer (a separate filter at every position, same sizes), from the input kernel ``kernel``.

    Filters at p and p' != p are independent, so after each convolution the pairs p != p' of every pixel-pair
    matrix (between the two inputs, and of each input with itself) are zero
    (``nh.spatial.same_position_pairs_only``); the pairs p = p' follow the CNN's recursion. The layers after
    it (activations, pooling, readout) act as in the CNN."""
    from ..engine.conv import Conv
    from ..engine.spatial import same_position_pairs_only

    for layer in getattr(architecture, "layers", (architecture,)):
        kernel = layer.transform(kernel)
        if isinstance(layer, Conv):
            kernel = same_position_pairs_only(kernel)
    return kernel


# ----------------------------------------------------------------------------- receptive fields (4.2.3)

def span_formula(depth: int, *, taps: int = 3, dilation: int = 1, stride: int = 1) -> int:
    """Pixels spanned by the receptive field of ``depth`` convolutions with ``taps``-tap filters, the same
    dilation and stride in every layer:
    1 + (taps - 1) * dilation * (1 + stride + ... + stride**(depth - 1))."""
    depth = check_int("depth", depth, minimum=1)
    return 1 + (taps - 1) * dilation * sum(stride ** layer for layer in range(depth))


@dataclass(frozen=True)
class Influence:
    """What the sensitivity map of one network says about the middle output unit."""

    n_out: int            # output units
    unit: int             # the unit described (the middle one)
    count: int            # input pixels with nonzero influence on it
    low: int              # leftmost of them
    high: int             # rightmost of them
    n_in: int             # input pixels
    agrees: bool          # zero sensitivity exactly where the geometry has no weight path

    @property
    def span(self) -> int:
        return self.high - self.low + 1


def influence_summary(sensitivity: torch.Tensor, paths: torch.Tensor) -> Influence:
    """``sensitivity``: (P_out, P_in) derivatives d f_p / d x_q of one network; ``paths``: the same shape,
    the weight-path counts of ``nh.receptive_field``. Describes the middle unit p = P_out // 2."""
    if sensitivity.shape != paths.shape:
        raise ValueError(f"sensitivity {tuple(sensitivity.shape)} and paths {tuple(paths.shape)} "
                         "differ in shape")
    n_out, n_in = sensitivity.shape
    unit = n_out // 2
    influence = (sensitivity[unit] != 0).nonzero().flatten()
    if len(influence) == 0:
        raise ValueError(f"unit {unit} is influenced by no pixel: every path is blocked")
    return Influence(n_out, unit, len(influence), int(influence[0]), int(influence[-1]), n_in,
                     bool(((sensitivity != 0) == (paths > 0)).all()))


def receptive_field_sentences(influence: Influence, *, depth: int, dilation: int, stride: int,
                              taps: int = 3) -> list[str]:
    """The explorer's sentences about one setting, in the lesson's language."""
    units = _("{n} output units").format(n=influence.n_out) if influence.n_out > 1 else _("1 output unit")
    if influence.count < influence.n_in:
        others = _("every other pixel has sensitivity exactly 0")
    else:
        others = _("that is every pixel")
    agrees = _("yes") if influence.agrees else _("no")
    lines = [_("{units}. Unit p = {unit} is influenced by {count} of the {n_in} pixels, spanning "
               "{low}–{high}; {others} (zero exactly where nh.receptive_field predicts: {agrees}).").format(
        units=units, unit=influence.unit, count=influence.count, n_in=influence.n_in, low=influence.low,
        high=influence.high, others=others, agrees=agrees)]
    if influence.count < influence.span:
        lines.append(_("Holes: with dilation {dilation} in every layer, all offsets are multiples of "
                       "{dilation}.").format(dilation=dilation))
    formula = span_formula(depth, taps=taps, dilation=dilation, stride=stride)
    if influence.span < formula:
        lines.append(_("The receptive field would span {formula} pixels; the borders (zero padding) cut it "
                       "off.").format(formula=formula))
    if influence.n_out <= 2:
        shrunk = _("Stride {stride} in each of {depth} layers has shrunk {n_in} pixels to {units}.")
        lines.append(shrunk.format(stride=stride, depth=depth, n_in=influence.n_in, units=units))
    return lines


def show_receptive_field(sensitivity: torch.Tensor, paths: torch.Tensor, *, depth: int, dilation: int,
                         stride: int) -> Influence:
    """The explorer's picture, then its sentences; returns the summary.

    Top: log10 |d f_p / d x_q| relative to the largest entry, blank where it is exactly zero, the middle
    unit's row marked, with a title that says what to see. Bottom: that row on its own, each curve relative
    to its largest value: the network's |d f_p / d x_q| (dots) and the root-mean-square over random
    networks, sqrt(2 N_pq / 3^L) for ReLU with sigma_w^2 = 2 (line; N_pq = ``paths``, the weight-path
    counts)."""
    import matplotlib.pyplot as plt

    from .plotting import PALETTE, heatmap

    s = sensitivity.abs()
    influence = influence_summary(s, paths)
    unit = influence.unit
    shown = (s / s.max()).log10().where(s > 0, torch.nan)                    # exactly 0: left blank
    fig, (top, bottom) = plt.subplots(2, 1, figsize=(7.5, 6.0), height_ratios=[1.5, 1], sharex=True,
                                      layout="constrained")
    title = _("Unit {unit} feels {count} of {n_in} pixels; blank: no influence at all").format(
        unit=unit, count=influence.count, n_in=influence.n_in)
    heatmap(top, shown, title=title, xlabel=None, ylabel=_("output unit p"), vmin=-4, vmax=0, colorbar=False)
    image = top.images[0]
    fig.colorbar(image, ax=[top, bottom], shrink=0.6, label=_("log₁₀ |∂f_p/∂x_q| (0 = largest)"))
    top.set_aspect("auto")
    ticks = sorted(set(range(0, influence.n_out, max(1, influence.n_out // 8))) | {unit})
    top.set_yticks(ticks)
    marker = PALETTE[1]
    for edge in (unit - 0.5, unit + 0.5):                                    # frame the row shown below
        top.axhline(edge, color=marker, lw=1.0)
    for label in top.get_yticklabels():
        if label.get_text() == str(unit):
            label.set_color(marker)
            label.set_fontweight("bold")

    row, count = s[unit], paths[unit].to(s.dtype)
    inside = row > 0
    q = torch.arange(len(row))
    bottom.plot(q[inside], (row[inside] / row.max()).log10(), "o", ms=4, color=marker,
                label=_("this network"))
    reached = count > 0
    bottom.plot(q[reached], 0.5 * (count[reached] / count.max()).log10(), "-", color="0.3",
                label=_("root-mean-square over random networks"))
    bottom.set_ylim(-4.2, 0.3)
    bottom.set_xlabel(_("input pixel q"))
    bottom.set_ylabel(_("unit {unit}: log₁₀ of\n|∂f_p/∂x_q| / largest").format(unit=unit))
    bottom.legend(loc="lower right", fontsize=8)
    for line in receptive_field_sentences(influence, depth=depth, dilation=dilation, stride=stride):
        print(line)
    return influence


# --------------------------------------------------------------------- finite networks: spread (4.2.2)


@dataclass(frozen=True)
class Spread:
    """One finite network's NTK Θ(x, x) over ``seeds`` random initializations, relative to the
    infinite-width value: ``relative_std`` = std / Θ∞, ``relative_mean`` = mean / Θ∞."""

    relative_std: float
    relative_mean: float
    seeds: int


def ntk_spread(architecture: Layer, x: torch.Tensor, *, width: int, seeds: int,
               first_seed: int = 0) -> Spread:
    """How much the empirical NTK of one input ``x`` (a batch of one) varies over initializations
    ``first_seed, ..., first_seed + seeds - 1`` of ``architecture.network(width=width)``."""
    if x.shape[0] != 1:
        raise ValueError(f"ntk_spread measures Θ(x, x) of one input: x must be a batch of 1, "
                         f"got {x.shape[0]}")
    seeds = check_int("seeds", seeds, minimum=2)
    infinite = float(architecture.kernel(x).ntk[0, 0])
    shape = tuple(x.shape[1:])
    networks = (architecture.network(shape, width=width, seed=first_seed + s) for s in range(seeds))
    with one_thread():                                        # one backward pass per seed: Θ(x, x) = |∇f|²
        values = np.array([float(empirical_ntk(model, x, method="naive")[0, 0]) for model in networks])
    return Spread(float(values.std(ddof=1) / abs(infinite)), float(values.mean() / infinite), seeds)


# ----------------------------------------------------------------- two tasks: accuracy over splits (4.2.2)

def split_accuracies(kernel: torch.Tensor, targets: torch.Tensor, labels: torch.Tensor, *, n_train: int,
                     splits: int, seed: int = 0) -> np.ndarray:
    """Test accuracy of kernel regression, K(test, train) K(train, train)^-1 y, on ``splits`` random splits of
    a pool of inputs: ``kernel`` is the (n, n) Gram matrix of the whole pool, ``n_train`` inputs of each split
    train, the rest test. Two classes (``targets`` of shape (n,), ``labels`` = +-1) are read by the sign of
    the prediction, more (one-hot ``targets`` (n, k)) by its argmax. Split s is the permutation with seed
    ``seed + s``. Returns the accuracies, shape (splits,)."""
    from ..theory.regression import kernel_regression

    n = kernel.shape[0]
    if kernel.shape != (n, n) or targets.shape[0] != n or labels.shape[0] != n:
        raise ValueError(f"split_accuracies needs an (n, n) kernel and n targets and labels, got kernel "
                         f"{tuple(kernel.shape)}, targets {tuple(targets.shape)}, "
                         f"labels {tuple(labels.shape)}")
    n_train = check_int("n_train", n_train, minimum=1)
    if n_train >= n:
        raise ValueError(f"n_train must leave test inputs: it is {n_train} of a pool of {n}")
    splits = check_int("splits", splits, minimum=1)
    accuracies = []
    for s in range(splits):
        order = torch.randperm(n, generator=torch.Generator().manual_seed(seed + s))
        train, test = order[:n_train], order[n_train:]
        prediction = kernel_regression(kernel[train][:, train], kernel[test][:, train], targets[train])
        guess = prediction.sign() if prediction.ndim == 1 else prediction.argmax(1)
        accuracies.append(float((guess == labels[test]).double().mean()))
    return np.array(accuracies)


def accuracy_bars(accuracies: dict, *, title: str, chance: float):
    """One bar per kernel, the mean accuracy over the splits (its value written on it), and a dot for each
    split; a dotted line at chance. Returns the figure."""
    import matplotlib.pyplot as plt

    from .plotting import PALETTE

    fig, ax = plt.subplots(figsize=(6.5, 3.8))
    names = list(accuracies)
    means = [float(np.mean(accuracies[name])) for name in names]
    bars = ax.bar(names, means, color=PALETTE[:len(names)], alpha=0.75)
    ax.bar_label(bars, fmt="%.3f", label_type="center", color="white", fontweight="bold")
    for index, name in enumerate(names):
        values = np.asarray(accuracies[name], dtype=float)
        ax.plot(np.full(len(values), index) + np.linspace(-0.15, 0.15, len(values)), values, "o", ms=4,
                color="k", label=_("one split") if index == 0 else None)
    ax.axhline(chance, color="k", ls=":", lw=1, label=_("chance ({chance:g})").format(chance=chance))
    ax.set_ylim(0, 1.25)                                       # room for the legend above the bars
    ax.set_yticks(np.linspace(0, 1, 6))
    ax.set_xlabel(_("kernel (infinite width)"))
    ax.set_ylabel(_("test accuracy"))
    ax.set_title(title)
    ax.legend(loc="upper left", fontsize=9, ncol=2)
    return fig


# ----------------------------------------------------------------- scale divided out: max vs average pooling

def normalized(kernel: torch.Tensor) -> torch.Tensor:
    """K(x_i, x_j) / sqrt(K(x_i, x_i) K(x_j, x_j)) of a square Gram matrix: the kernel with its scale divided
    out (a correlation, 1 on the diagonal)."""
    d = torch.diagonal(kernel)
    return kernel / torch.sqrt(d[:, None] * d[None, :])


def paired_cosines(architecture: Layer, x1: torch.Tensor, x2: torch.Tensor) -> torch.Tensor:
    """The infinite-width NNGP with its scale divided out, for the pairs (x1[i], x2[i]):
    Σ(x1_i, x2_i) / sqrt(Σ(x1_i, x1_i) Σ(x2_i, x2_i)), shape (n,). One pair at a time (an image kernel of
    all pairs would cost n times more)."""
    if x1.shape != x2.shape:
        raise ValueError(f"paired_cosines needs x1 and x2 of one shape, got {tuple(x1.shape)} and "
                         f"{tuple(x2.shape)}")
    out = []
    for a, b in zip(x1, x2):
        k = architecture.kernel(a[None], b[None])
        out.append(k.nngp[0, 0] / torch.sqrt(k.var1[0] * k.var2[0]))
    return torch.stack(out)


def feature_cosines(architecture: Layer, x1: torch.Tensor, x2: torch.Tensor | None = None, *, width: int,
                    n_networks: int, seed: int = 0) -> tuple[torch.Tensor, torch.Tensor]:
    """Cosine similarity of finite networks' outputs (features), h(x1_i)·h(x2_j) / (|h(x1_i)| |h(x2_j)|),
    for ``n_networks`` networks of ``width`` channels (seeds ``seed, seed + 1, ...``): its mean over networks
    and the standard error of that mean, each (n1, n2). At infinite width it is the normalized NNGP of the
    architecture (which should end in a readout such as ``flatten()``, with no dense layer after it)."""
    n_networks = check_int("n_networks", n_networks, minimum=2)
    shape = tuple(x1.shape[1:])
    cosines = []
    for s in range(n_networks):
        model = architecture.network(shape, width=width, seed=seed + s)
        with torch.no_grad(), one_thread():
            h1 = model(x1).flatten(1)
            h2 = h1 if x2 is None else model(x2).flatten(1)
        cosines.append(h1 @ h2.T / (h1.norm(dim=1)[:, None] * h2.norm(dim=1)[None, :]))
    stacked = torch.stack(cosines)
    return stacked.mean(0), stacked.std(0) / math.sqrt(n_networks)


def mean_paired_feature_cosine(architecture: Layer, x1: torch.Tensor, x2: torch.Tensor, *, width: int,
                               n_networks: int, seed: int = 0) -> tuple[float, float]:
    """The mean over the pairs (x1[i], x2[i]) of the finite networks' feature cosines (as in
    :func:`feature_cosines`), averaged over ``n_networks`` networks, and the standard error of that average
    (from the spread of the per-network means)."""
    if x1.shape != x2.shape:
        raise ValueError(f"mean_paired_feature_cosine needs x1 and x2 of one shape, got {tuple(x1.shape)} "
                         f"and {tuple(x2.shape)}")
    n_networks = check_int("n_networks", n_networks, minimum=2)
    shape = tuple(x1.shape[1:])
    means = []
    for s in range(n_networks):
        model = architecture.network(shape, width=width, seed=seed + s)
        with torch.no_grad(), one_thread():
            h1, h2 = model(x1).flatten(1), model(x2).flatten(1)
        means.append(float(((h1 * h2).sum(1) / (h1.norm(dim=1) * h2.norm(dim=1))).mean()))
    values = np.array(means)
    return float(values.mean()), float(values.std(ddof=1) / math.sqrt(n_networks))


__all__ = ["TAPS", "shared_offset_cells", "draw_shared_offsets", "pixel_pair_panels",
           "locally_connected_kernel", "span_formula",
           "Influence", "influence_summary", "receptive_field_sentences", "show_receptive_field", "Spread",
           "ntk_spread", "split_accuracies", "accuracy_bars", "normalized", "paired_cosines",
           "feature_cosines", "mean_paired_feature_cosine"]
