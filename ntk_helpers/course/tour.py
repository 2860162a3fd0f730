"""Lesson 00 (the tour of the course): one gradient step seen through the NTK, the kernel-by-angle explorer, and
the diagram of the course.

- :func:`one_step`: train a finite network one gradient step on a single input of the circle and measure how its
  output moves on every other input, next to the first-order prediction ``lr * Theta(x, x0) * push`` with this
  network's NTK and with the infinite-width one; :func:`kernel_gap` measures the second of these against the first
  without the step, for other seeds, and :func:`gaps_title` says which of the two gaps is the larger;
- :func:`angle_profile`: the normalized NTK of ``mlp(depth, activation)`` between an input and another at angle
  0°, 2.5°, ..., 180°, at the chosen depth and at depth 1, with the 12 x 12 normalized Gram matrix of
  ``circle(12)`` (the curves of all depths up to 50 come from one pass and are cached, so a depth slider reads
  them); :func:`profile_title` reads a curve out, :func:`gram_title` gives the matrix's effective rank, and
  :func:`settings_note` names, for readers of the explorer's saved frame, the settings the questions use;
- :func:`draw_course_map`: one architecture description, its finite network and its infinite-width kernels, and
  which lesson does what with them.

Text drawn or printed here goes through ``messages.gettext`` (the lesson's language).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache

import numpy as np
import torch

from .._checks import DTYPE, check_int
from ..engine.activation import Elementwise
from ..engine.activations import ACTIVATIONS
from ..engine.architectures import mlp
from ..finite.empirical import empirical_ntk
from ..theory.depth import mlp_kernels_by_depth
from ..theory.spectra import effective_rank, normalize
from .data import circle
from .messages import gettext as _

#: The angles of the explorer's curve, in degrees.
PROFILE_DEGREES = np.arange(0.0, 180.0 + 1e-9, 2.5)
#: The angles the explorer's title reads out.
READOUT_DEGREES = (30.0, 90.0, 180.0)


@dataclass(frozen=True)
class OneStep:
    """How one gradient step on the input ``x0`` (angle 0) moved a network's output on the circle."""

    degrees: np.ndarray      # (n,) angle of each input from x0, in (-180, 180], increasing
    measured: np.ndarray     # f(x) after the step minus f(x) before
    predicted: np.ndarray    # lr * Theta(x, x0) * push, Theta of this network at initialization (first order)
    limit: np.ndarray        # the same with the infinite-width NTK
    lr: float
    push: float              # how far the target y0 lies above f(x0)
    width: int
    switched: int = 0        # (hidden unit, circle input) pairs whose pre-activation changed sign in the step

    @property
    def taylor_gap(self) -> float:
        """|measured - predicted| / |predicted| (2-norms over the circle): what first order leaves out."""
        return float(np.linalg.norm(self.measured - self.predicted) / np.linalg.norm(self.predicted))

    @property
    def width_gap(self) -> float:
        """|predicted - limit| / |limit|: this network's NTK against the infinite-width one."""
        return float(np.linalg.norm(self.predicted - self.limit) / np.linalg.norm(self.limit))

    def at(self, degrees: float) -> float:
        """The measured change at the input ``degrees`` from x0 (one of the circle's angles)."""
        return float(self.measured[_index(self.degrees, degrees)])


def one_step(net, *, width: int, lr: float = 0.1, n: int = 72, push: float = 1.0, seed: int = 0) -> OneStep:
    """One gradient-descent step of ``net.network(2, width=width, seed=seed)`` on the single input x0 = circle
    point 0, with target ``y0 = f(x0) + push`` and loss ``(f(x0) - y0)² / 2``: every parameter moves by
    ``-lr`` times its gradient. To first order, f then moves on every input x by ``lr * Theta(x, x0) * push``
    (``Theta`` the network's NTK before the step). ``switched`` counts the (hidden unit, input) pairs whose
    pre-activation changed sign: a ReLU unit switched on or off, which no first-order expansion sees."""
    width, n = check_int("width", width, minimum=1), check_int("n", n, minimum=2)
    if not (math.isfinite(lr) and lr > 0 and math.isfinite(push) and push != 0):
        raise ValueError(f"one_step needs a finite lr > 0 and a finite push != 0, got lr={lr}, push={push}")
    angles, x = circle(n)
    model = net.network(2, width=width, seed=seed)
    signs: list[torch.Tensor] = []
    hooks = [m.register_forward_hook(lambda _m, inputs, _out: signs.append(inputs[0] > 0))
             for m in model.modules() if isinstance(m, Elementwise)]
    with torch.no_grad():
        before = model(x).reshape(-1)
    signs_before, signs[:] = list(signs), []
    for hook in hooks:
        hook.remove()
    theta = empirical_ntk(model, x, x[:1])[:, 0].detach()
    target = before[0] + push
    loss = 0.5 * (model(x[:1]).reshape(()) - target) ** 2
    gradients = torch.autograd.grad(loss, [p for p in model.parameters() if p.requires_grad])
    with torch.no_grad():
        for parameter, gradient in zip([p for p in model.parameters() if p.requires_grad], gradients):
            parameter -= lr * gradient
        hooks = [m.register_forward_hook(lambda _m, inputs, _out: signs.append(inputs[0] > 0))
                 for m in model.modules() if isinstance(m, Elementwise)]
        after = model(x).reshape(-1)
        for hook in hooks:
            hook.remove()
    switched = sum(int((a != b).sum()) for a, b in zip(signs_before, signs))
    limit = net.kernel(x, x[:1]).ntk[:, 0]
    degrees = np.degrees(angles.numpy())
    degrees = np.where(degrees > 180.0, degrees - 360.0, degrees)
    order = np.argsort(degrees)
    as_numpy = lambda t: t.detach().numpy()[order]
    return OneStep(degrees[order], as_numpy(after - before), as_numpy(lr * push * theta),
                   as_numpy(lr * push * limit), float(lr), float(push), width, switched)


def kernel_gap(net, *, width: int, n: int = 72, seed: int = 0) -> float:
    """``|Theta_m(., x0) - Theta_inf(., x0)| / |Theta_inf(., x0)|`` (2-norms over ``circle(n)``, x0 its point 0):
    how far the NTK of ``net.network(2, width=width, seed=seed)`` is from the infinite-width one, the
    ``width_gap`` of :func:`one_step` with the same arguments, without taking the step."""
    width, n = check_int("width", width, minimum=1), check_int("n", n, minimum=2)
    _angles, x = circle(n)
    theta = empirical_ntk(net.network(2, width=width, seed=seed), x, x[:1])[:, 0].detach()
    limit = net.kernel(x, x[:1]).ntk[:, 0]
    return float(torch.linalg.norm(theta - limit) / torch.linalg.norm(limit))


@dataclass(frozen=True)
class AngleProfile:
    """The normalized NTK of ``mlp(depth, activation)`` by the angle between two inputs of the same norm."""

    activation: str
    depth: int
    degrees: np.ndarray      # PROFILE_DEGREES
    values: np.ndarray       # normalized NTK at ``depth``
    depth_one: np.ndarray    # the same at depth 1, for comparison
    gram: np.ndarray         # (12, 12) normalized NTK of circle(12) at ``depth``

    def at(self, degrees: float) -> float:
        """The normalized NTK at one of ``PROFILE_DEGREES``."""
        return float(self.values[_index(self.degrees, degrees)])


def _index(grid: np.ndarray, degrees: float) -> int:
    index = int(np.argmin(np.abs(grid - degrees)))
    if abs(grid[index] - degrees) > 1e-9:
        raise ValueError(f"no input at {degrees}°; the angles are {grid[0]:g}° ... {grid[-1]:g}° "
                         f"in steps of {grid[1] - grid[0]:g}°")
    return index


def _profile_inputs() -> torch.Tensor:
    radians = torch.as_tensor(np.radians(PROFILE_DEGREES), dtype=DTYPE)
    return torch.stack([radians.cos(), radians.sin()], 1) * math.sqrt(2)


#: The explorer's deepest setting: the curves of every depth up to it are computed in one pass.
MAX_DEPTH = 50


@lru_cache(maxsize=32)
def _rows_by_depth(activation: str, depth: int) -> np.ndarray:
    """(depth, len(PROFILE_DEGREES)): ``Theta(x0, x) / Theta(x0, x0)`` of mlp(l, activation) for l = 1..depth."""
    x = _profile_inputs()
    ntk = mlp_kernels_by_depth(x[:1], x, depth=depth, activation=activation).ntk[:, 0]
    scale = ntk[:, 0]
    bad = ~(torch.isfinite(ntk).all(dim=1) & (scale > 0))
    if bool(bad.any()):
        first = int(torch.nonzero(bad)[0]) + 1
        raise ValueError(f"{activation}, depth {first}: the NTK left the float64 range "
                         f"(Theta(x, x) = {float(scale[first - 1]):.3g}); choose a smaller depth")
    return (ntk / scale[:, None]).numpy()


def normalized_by_angle(depth: int, activation: str) -> np.ndarray:
    """``Theta(x0, x) / Theta(x0, x0)`` for x at ``PROFILE_DEGREES`` from x0, all with |x|² = d. The NTK of a
    fully connected network depends on two inputs only through their norms and their angle, so
    ``Theta(x, x) = Theta(x0, x0)`` here and this is the correlation ``Theta(x0, x) / sqrt(Theta(x0, x0)
    Theta(x, x))``: one row of the kernel is all it costs (tanh's kernel is computed by quadrature). Every depth
    up to ``max(depth, MAX_DEPTH)`` is computed at once and cached, so a depth slider only reads the result."""
    depth = check_int("depth", depth, minimum=1)
    return _rows_by_depth(activation, max(depth, MAX_DEPTH))[depth - 1]


@lru_cache(maxsize=512)
def angle_profile(depth: int, activation: str) -> AngleProfile:
    """The explorer's data for one setting (cached)."""
    depth = check_int("depth", depth, minimum=1)
    if activation not in ACTIVATIONS:
        raise ValueError(f"activation {activation!r}: choose one of {', '.join(ACTIVATIONS)}")
    gram = normalize(mlp(depth, activation).kernel(circle(12)[1]).ntk).numpy()
    return AngleProfile(activation, depth, PROFILE_DEGREES, normalized_by_angle(depth, activation),
                        normalized_by_angle(1, activation), gram)


def _shown(value: float) -> float:
    """``value`` rounded to 2 decimals, with -0.00 shown as 0.00."""
    return round(value, 2) + 0.0


def profile_title(profile: AngleProfile) -> str:
    """The explorer's left title: how far apart the kernel puts neighbours (30°) and opposite inputs (180°), with
    the value at 90°."""
    near, mid, far = (_shown(profile.at(a)) for a in READOUT_DEGREES)
    return (_("the flatter the curve, the less the kernel tells the angles apart") + "\n"
            + _("{activation}, depth {depth}: {near:.2f} at 30°, {mid:.2f} at 90°, {far:.2f} at 180°")
            .format(activation=profile.activation, depth=profile.depth, near=near, mid=mid, far=far))


def gram_rank(profile: AngleProfile) -> float:
    """The effective rank tr(K)² / ||K||_F² of the explorer's 12 x 12 normalized Gram matrix: 12 for unrelated
    inputs (K = I), 1 for inputs the kernel cannot tell apart (K = all ones)."""
    return float(effective_rank(torch.as_tensor(profile.gram)))


def gram_title(profile: AngleProfile) -> str:
    """The explorer's right title: where to look (30° neighbours in the band by the diagonal and in the corners,
    since the circle wraps round; opposite inputs on the 6th off-diagonal) and the effective rank of the 12 x 12
    Gram matrix."""
    return (_("band by the diagonal (and corners): 30° neighbours; 6th off-diagonal: opposite inputs") + "\n"
            + _("effective rank {rank:.1f} (12: all unrelated, 1: all alike)").format(rank=gram_rank(profile)))


def settings_note(depth: int, activation: str) -> str:
    """The line printed above the explorer: the setting its saved frame shows and the settings the questions use
    (each answer quotes what the explorer shows there)."""
    return _("The saved figure shows {activation} at depth {depth}. The questions use relu and leaky_relu at "
             "depth 50; erf and identity; gelu at depths 10 and 50; erf and tanh at depth 50. Without live "
             "sliders, each answer quotes what they show.").format(activation=activation, depth=depth)


def gaps_title(step: OneStep) -> str:
    """The title of the one-step figure's lower panel: which of the two printed gaps is the larger one."""
    if step.width_gap >= step.taylor_gap:
        return _("the kernel's finite width ({width:.1%}) outweighs what first order leaves out "
                 "({taylor:.2%})").format(width=step.width_gap, taylor=step.taylor_gap)
    return _("what first order leaves out ({taylor:.2%}) outweighs the kernel's finite width "
             "({width:.1%})").format(width=step.width_gap, taylor=step.taylor_gap)


def draw_course_map(ax=None):
    """The course as a diagram: one architecture description gives a finite network and infinite-width kernels,
    and the lessons compare the two. Returns the figure."""
    import matplotlib.pyplot as plt

    if ax is None:
        _figure, ax = plt.subplots(figsize=(11, 4.6))
    ax.set_xlim(0, 11)
    ax.set_ylim(0, 4.6)
    ax.set_axis_off()
    boxes = {
        "description": (1.75, 2.3, "#E69F00", _("architecture description\nnet = nh.mlp(depth, activation)\n"
                                               "MLP: lesson 02 · CNN: 03 · ResNet: 04\n"
                                               "normalization: 05a · activations: 06\n"
                                               "parameterization: 05b")),
        "finite": (5.5, 3.75, "#56B4E9", _("finite network of width m\nmodel = net.network(d, width)\n"
                                         "its NTK: nh.empirical_ntk(model, x)")),
        "infinite": (5.5, 0.85, "#009E73", _("infinite width: exact kernels\nkernel = net.kernel(x)\n"
                                           "kernel.ntk (Θ), kernel.nngp (Σ)")),
        "compare": (9.3, 2.3, "#CC79A7", _("compare the two\nkernels agree as m → ∞: 01\n"
                                         "training vs formula: 07\nthe kernel's spectrum: 08")),
    }
    for x, y, colour, text in boxes.values():
        ax.text(x, y, text, ha="center", va="center", fontsize=10.5, linespacing=1.5,
                bbox={"boxstyle": "round,pad=0.6", "facecolor": colour, "alpha": 0.25, "edgecolor": colour})
    arrows = [("description", "finite", _("random initialization,\ntrained by gradient descent")),
              ("description", "infinite", _("layer-by-layer\nrecursion")),
              ("finite", "compare", None), ("infinite", "compare", None)]
    for start, end, label in arrows:
        (x0, y0, *_rest), (x1, y1, *_more) = boxes[start], boxes[end]
        ax.annotate("", xy=(x1 - 1.2 * np.sign(x1 - x0), y1 - 0.45 * np.sign(y1 - y0)),
                    xytext=(x0 + 1.25 * np.sign(x1 - x0), y0 + 0.55 * np.sign(y1 - y0)),
                    arrowprops={"arrowstyle": "-|>", "color": "0.35", "lw": 1.6})
        if label:
            ax.text((x0 + x1) / 2 - 0.55, (y0 + y1) / 2 + 0.45 * np.sign(y1 - y0), label, ha="center",
                    va="center", fontsize=9.5, color="0.3")
    ax.set_title(_("One description, two worlds: every lesson compares them"))
    return ax.figure
