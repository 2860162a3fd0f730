"""One plotting style for every lesson: large fonts, a colour-blind-safe palette (Okabe & Ito 2008).

Call ``use_style()`` once per notebook; ``use_style(lecture=True)``, or the environment variable
``NTK_LECTURE=1`` (e.g. ``NTK_LECTURE=1 make lab``), enlarges everything for a projector. Helpers
draw the few plot types the lessons share.
"""

from __future__ import annotations

import os

import matplotlib as mpl
import matplotlib.ticker
import matplotlib.pyplot as plt
import numpy as np

from .messages import gettext as _

#: Okabe-Ito colours: blue, vermillion, green, purple, orange, sky blue, yellow, black.
PALETTE = ["#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9", "#F0E442", "#000000"]


def use_style(lecture: bool | None = None) -> None:
    """Apply the project's matplotlib style; ``lecture=True`` for projectors (bigger everything).

    ``lecture=None`` reads the environment variable ``NTK_LECTURE`` ("1" means lecture mode).
    """
    if lecture is None:
        lecture = os.environ.get("NTK_LECTURE", "0") not in ("", "0", "false", "False")
    scale = 1.35 if lecture else 1.0
    mpl.rcParams.update({
        "figure.figsize": (6.4 * scale, 4.0 * scale),
        "figure.dpi": 90,
        "font.size": 12 * scale,
        "axes.titlesize": 13 * scale,
        "axes.labelsize": 12 * scale,
        "legend.fontsize": 10.5 * scale,
        "xtick.labelsize": 10.5 * scale,
        "ytick.labelsize": 10.5 * scale,
        "lines.linewidth": 2.0 * scale,
        "lines.markersize": 6 * scale,
        "axes.prop_cycle": mpl.cycler(color=PALETTE),
        "axes.grid": True,
        "grid.alpha": 0.3,
        "axes.spines.top": False,
        "axes.spines.right": False,
        "image.cmap": "viridis",
        "figure.constrained_layout.use": True,
    })


def loglog_fit(ax, x, y, *, label: str, guide_slope: float | None = None, color=None):
    """Points on log-log axes with their fitted slope in the legend, and an optional guide line."""
    x, y = np.asarray(x, dtype=float), np.asarray(y, dtype=float)
    slope, intercept = np.polyfit(np.log(x), np.log(y), 1)
    line, = ax.loglog(x, y, "o", label=_("{label} (slope {slope:.2f})").format(label=label, slope=slope), color=color)
    ax.loglog(x, np.exp(intercept) * x ** slope, "-", color=line.get_color(), alpha=0.6)
    if guide_slope is not None:
        ax.loglog(x, y[0] * (x / x[0]) ** guide_slope, "k--", lw=1, label=_("slope {slope:g} guide").format(slope=guide_slope))
    ax.legend()
    return slope


def width_ticks(ax, widths) -> None:
    """Label a log-scaled x axis with exactly the widths (or sizes) measured, and no minor ticks: the default
    log ticks (10^2, 10^3 and unlabelled minor ones) run together or miss the values a learner looks for."""
    widths = [int(w) if float(w).is_integer() else w for w in widths]
    ax.set_xticks(widths, [str(w) for w in widths])
    ax.xaxis.set_minor_locator(mpl.ticker.NullLocator())


def heatmap(ax, matrix, *, title: str, xlabel: str | None = None, ylabel: str | None = None,
            vmin: float | None = None, vmax: float | None = None, symmetric: bool = False, colorbar: bool = True,
            colorbar_label: str | None = None):
    """A kernel matrix as an image.

    Pass ``vmin``/``vmax`` to keep one colour scale across slider redraws (otherwise each redraw rescales
    and the same colour means different values). ``symmetric=True`` centres the colour scale at 0
    (``vmax`` defaults to the largest absolute entry).
    """
    m = np.asarray(matrix, dtype=float)
    kwargs = {"vmin": vmin, "vmax": vmax}
    if symmetric:
        v = vmax if vmax is not None else np.abs(m).max()
        kwargs = {"cmap": "RdBu_r", "vmin": -v, "vmax": v}
    im = ax.imshow(m, **kwargs)
    ax.set_title(title)
    if xlabel is None and ylabel is None:
        ax.set_xticks([])
        ax.set_yticks([])
    if xlabel is not None:
        ax.set_xlabel(xlabel)
    if ylabel is not None:
        ax.set_ylabel(ylabel)
    ax.grid(False)
    if colorbar:
        plt.colorbar(im, ax=ax, shrink=0.8, label=colorbar_label)
    return im
