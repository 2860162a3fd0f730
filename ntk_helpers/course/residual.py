"""Lesson 04's machinery: the residual network's kernel, layer by layer (book section 4.3).

The network is ``nh.resnet(L, alpha=alpha)``: an input layer, L blocks ``x + alpha (sigma_w/sqrt m) W phi(x)``
and a linear readout (Huang et al. 2020; Hayou et al. 2021). For ReLU, sigma_w^2 = 2 and no bias, write
gamma = alpha^2 sigma_w^2 / 2 for the growth per block. Then, with q0 = Sigma^(0)(x, x),

    Sigma^(l)(x, x) = q0 (1 + gamma)^l,        Theta(x, x) = q0 (1 + gamma)^L (2 + L gamma / (1 + gamma)),

and Theta(x, x), a sum over parameters of squared gradients, splits into the input layer's part
q0 (1 + gamma)^L, one part gamma q0 (1 + gamma)^(L-1) for *every* block, and the readout's part q0 (1 + gamma)^L.

- :data:`SCALINGS`: the three branch scales alpha(L) = 1, 1/sqrt(L), 1/L of the lesson;
- :func:`closed_form_ntk`, :func:`ntk_shares`, :func:`beyond_first_order`: the formulas above, and the relative
  size of what lies beyond the first-order term I + alpha sum_l J_l in the product of block Jacobians;
- :func:`blocks_applied`, :func:`jacobian_product`, :func:`branch_jacobian`, :func:`first_gates_open`: the block
  Jacobians J_l = sqrt(2/m) W_l D_l of a *real* residual network (the gates D_l come from its own forward pass, so
  the J_l are not independent; each W_l is fresh, which is what the lesson's argument needs);
- :func:`block_shares`: each layer's share of Theta(x, x) in a finite network (one gradient);
  :func:`recursion_shares`: the same shares at infinite width for any activation (the recursion on the diagonal);
- :func:`finite_networks`: how far the empirical NTKs of finite networks (and their mean) are from the analytic
  one (cached, so a re-run or a check at the same width costs nothing);
- :func:`induction_diagram`: the picture of one block of the kernel recursion;
- :func:`normalized_ntk`, :func:`describe`, :func:`draw_normalized_ntk`: the explorer.

Printed text and new labels go through :func:`~ntk_helpers.course.messages.gettext`; numbers are filled in after.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache

import numpy as np
import torch

from .._checks import as_tensor, check_int, check_nonnegative
from ..engine.activations import as_activation
from ..engine.architectures import resnet
from .messages import gettext as _
from .threads import one_thread

#: The branch scale alpha as a function of the number of blocks L (the names are the dropdown's options).
SCALINGS = {"α = 1": lambda L: 1.0, "α = 1/√L": lambda L: L ** -0.5, "α = 1/L": lambda L: 1.0 / L}
#: sigma_w^2 of every layer but the readout (nh.resnet's default, ReLU's edge of chaos).
SIGMA_W2 = 2.0


def _alpha(alpha) -> float:
    return check_nonnegative("alpha", alpha)


def growth_per_block(alpha: float, sigma_w2: float = SIGMA_W2) -> float:
    """gamma = alpha^2 sigma_w^2 / 2: the factor 1 + gamma by which one ReLU block (no bias) multiplies both
    Sigma(x, x) and the NTK carried from below."""
    return _alpha(alpha) ** 2 * check_nonnegative("sigma_w2", sigma_w2) / 2


def closed_form_ntk(depth: int, alpha: float, q0: float = 1.0, sigma_w2: float = SIGMA_W2) -> float:
    """Theta(x, x) of ``nh.resnet(depth, alpha=alpha, sigma_w=sqrt(sigma_w2))`` (ReLU, no bias, readout
    sigma_w = 1) for an input with Sigma^(0)(x, x) = q0: q0 (1 + gamma)^L (2 + L gamma / (1 + gamma))."""
    depth = check_int("depth", depth, minimum=0)
    gamma = growth_per_block(alpha, sigma_w2)
    return check_nonnegative("q0", q0) * (1 + gamma) ** depth * (2 + depth * gamma / (1 + gamma))


@dataclass(frozen=True)
class Shares:
    """The parts of Theta(x, x) that each layer's parameters carry, as fractions of it (they sum to 1).

    Attributes:
        input: the input layer W^(0).
        block: each single block (every block carries the same share).
        blocks: all blocks together, depth * block.
        readout: the readout layer.
    """

    input: float
    block: float
    blocks: float
    readout: float


def ntk_shares(depth: int, alpha: float, sigma_w2: float = SIGMA_W2) -> Shares:
    """:class:`Shares` in closed form (ReLU, no bias): block l's weights contribute gamma q0 (1 + gamma)^(l-1)
    at block l, multiplied by (1 + gamma) at each of the L - l blocks above, so every block carries
    gamma/(1 + gamma) of q0 (1 + gamma)^L; the input layer and the readout carry q0 (1 + gamma)^L each."""
    depth = check_int("depth", depth, minimum=0)
    gamma = growth_per_block(alpha, sigma_w2)
    block = gamma / (1 + gamma)
    total = 2 + depth * block
    return Shares(input=1 / total, block=block / total, blocks=depth * block / total, readout=1 / total)


def beyond_first_order(depth: int, alpha: float, gain: float = 1.0) -> float:
    """The relative size of everything beyond first order in prod_l (I + alpha J_l), for Jacobians with fresh
    zero-mean weights and mean-square gain ``gain``: sqrt(1 - (1 + L alpha^2 c) / (1 + alpha^2 c)^L)
    (the product's mean square is (1 + alpha^2 c)^L, its first-order part's 1 + L alpha^2 c)."""
    depth = check_int("depth", depth, minimum=1)
    a2c = _alpha(alpha) ** 2 * check_nonnegative("gain", gain)
    if a2c == 0:
        return 0.0
    log_growth = depth * math.log1p(a2c)
    if log_growth > 700:                                     # (1 + a2c)^L beyond float64: the ratio is 0
        return 1.0
    return math.sqrt(max(0.0, 1 - (1 + depth * a2c) / math.exp(log_growth)))


# ---------------------------------------------------------------- block Jacobians of a real residual network


def blocks_applied(h0, weights, alpha: float, directions):
    """Apply the product of block Jacobians prod_l (I + alpha J_l) and its first-order part I + alpha sum_l J_l
    to the columns of ``directions`` (m, k), for the ReLU residual network whose first hidden vector is ``h0``
    (m,) and whose blocks have the raw N(0, 1) weights ``weights`` (any iterable of (m, m) tensors or arrays, used
    once each): x^(l) = x^(l-1) + alpha sqrt(2/m) W_l relu(x^(l-1)), so J_l = sqrt(2/m) W_l D_l with D_l the gates
    1[x^(l-1) > 0] of the network's own forward pass. Returns ``(product, first_order)``, both (m, k) float64
    tensors.

    The forward vector is rescaled to norm sqrt(m) after each block; a ReLU block is positively homogeneous, so
    the gates do not change."""
    h = as_tensor("h0", h0, ndim=1).clone()
    product = as_tensor("directions", directions, ndim=2).clone()
    start, first_order = product.clone(), product.clone()
    m = h.shape[0]
    scale, alpha = math.sqrt(SIGMA_W2 / m), _alpha(alpha)
    with one_thread():
        for raw in weights:
            W = scale * torch.as_tensor(raw, dtype=torch.float64)
            gates = (h > 0).to(torch.float64)[:, None]
            product = product + alpha * W @ (gates * product)
            first_order = first_order + alpha * W @ (gates * start)
            h = h + alpha * W @ h.clamp(min=0)
            h = h * (math.sqrt(m) / h.norm())
    return product, first_order


@dataclass(frozen=True)
class JacobianProduct:
    """What :func:`jacobian_product` measures.

    Attributes:
        beyond_first_order: ||P V - F V|| / ||P V|| for P = prod_l (I + alpha J_l), F = I + alpha sum_l J_l and
            k random unit directions V (Frobenius norms).
        growth: ||P V||^2 / k, the product's mean-square gain (expected (1 + alpha^2 c)^L, c = 1).
    """

    beyond_first_order: float
    growth: float


def _first_hidden(generator, width: int, d: int) -> torch.Tensor:
    x = torch.randn(d, generator=generator, dtype=torch.float64)
    x = x * (math.sqrt(d) / x.norm())                                      # x.x/d = 1, as nh.sphere
    return math.sqrt(SIGMA_W2 / d) * torch.randn(width, d, generator=generator, dtype=torch.float64) @ x


def jacobian_product(depth: int, alpha: float, *, width: int = 256, directions: int = 32, d: int = 6,
                     seed: int = 0) -> JacobianProduct:
    """:class:`JacobianProduct` of one random ReLU residual network of ``depth`` blocks and ``width`` units at
    one input (seeded with ``seed``; the block weights are drawn one at a time, never all stored)."""
    depth, width = check_int("depth", depth, minimum=1), check_int("width", width, minimum=2)
    directions, d = check_int("directions", directions, minimum=1), check_int("d", d, minimum=1)
    generator = torch.Generator().manual_seed(check_int("seed", seed, minimum=0))
    h0 = _first_hidden(generator, width, d)
    v = torch.randn(width, directions, generator=generator, dtype=torch.float64)
    v = v / v.norm(dim=0)
    weights = (torch.randn(width, width, generator=generator, dtype=torch.float64) for _ in range(depth))
    product, first_order = blocks_applied(h0, weights, alpha, v)
    return JacobianProduct(beyond_first_order=float((product - first_order).norm() / product.norm()),
                           growth=float(product.norm() ** 2 / directions))


def branch_jacobian(width: int, *, d: int = 6, seed: int = 0) -> torch.Tensor:
    """J_1 = sqrt(2/m) W_1 D_1 of the first block of a random ReLU residual network of ``width`` units, its gates
    from the network's first hidden vector."""
    width = check_int("width", width, minimum=2)
    generator = torch.Generator().manual_seed(check_int("seed", seed, minimum=0))
    h0 = _first_hidden(generator, width, check_int("d", d, minimum=1))
    W = torch.randn(width, width, generator=generator, dtype=torch.float64)
    return math.sqrt(SIGMA_W2 / width) * W * (h0 > 0)


def first_gates_open(width: int, *, d: int = 6, seed: int = 0) -> float:
    """The fraction of the first block's ReLU gates that are open (h0 > 0) in the network that
    :func:`jacobian_product` and :func:`branch_jacobian` draw with the same ``width``, ``d`` and ``seed``; the
    first block's mean-square gain is c = 2 x this fraction (sigma_w^2 = 2), 1 in the wide limit."""
    width = check_int("width", width, minimum=2)
    generator = torch.Generator().manual_seed(check_int("seed", seed, minimum=0))
    h0 = _first_hidden(generator, width, check_int("d", d, minimum=1))
    return float((h0 > 0).to(torch.float64).mean())


def branch_jacobian_norm(width: int, *, d: int = 6, seed: int = 0) -> float:
    """The operator norm (largest singular value) of :func:`branch_jacobian`; it tends to 1 + sqrt(2) as the
    width grows (m/2 open gates: the edge of the Marchenko-Pastur law of an m x m/2 Gaussian matrix)."""
    with one_thread():
        return float(torch.linalg.matrix_norm(branch_jacobian(width, d=d, seed=seed), ord=2))


# ---------------------------------------------------------------- each layer's share of the NTK, measured

@dataclass(frozen=True)
class MeasuredShares:
    """Each layer's share of Theta(x, x) in one finite network (fractions of ``total``).

    Attributes:
        input: the input layer.
        blocks: (L,) block 1 .. L.
        readout: the readout layer.
        total: Theta(x, x) of the network.
    """

    input: float
    blocks: np.ndarray
    readout: float
    total: float


def block_shares(depth: int, alpha: float, x, *, width: int = 512, seed: int = 0,
                 activation: str = "relu") -> MeasuredShares:
    """:class:`MeasuredShares` of ``nh.resnet(depth, activation, alpha=alpha).network(d, width=width, seed=seed)``
    at the single input ``x`` (shape (d,) or (1, d)): Theta(x, x) = sum over parameters of (df/dp)^2, grouped by
    layer (module 0 is the input layer, 1 .. L the blocks, L + 1 the readout); one backward pass."""
    depth = check_int("depth", depth, minimum=1)
    x = as_tensor("x", x, ndim=(1, 2)).reshape(1, -1)
    with one_thread():
        model = resnet(depth, activation, alpha=_alpha(alpha)).network(
            x.shape[1], width=check_int("width", width, minimum=1), seed=check_int("seed", seed, minimum=0))
        names, params = zip(*[(n, p) for n, p in model.named_parameters() if p.requires_grad])
        gradients = torch.autograd.grad(model(x).sum(), params)
        layer = np.zeros(depth + 2)
        for name, gradient in zip(names, gradients):
            layer[int(name.split(".")[0])] += float((gradient.detach() ** 2).sum())
    total = float(layer.sum())
    return MeasuredShares(input=layer[0] / total, blocks=layer[1:-1] / total, readout=layer[-1] / total,
                          total=total)


def _recursion_factors(depth, alpha, activation, q0, sigma_w2):
    depth = check_int("depth", depth, minimum=1)
    a2 = _alpha(alpha) ** 2 * check_nonnegative("sigma_w2", sigma_w2)
    phi = as_activation(activation)
    sigma, own, gain = check_nonnegative("q0", q0), [], []
    for _ in range(depth):
        e_phi2, e_dphi2 = (float(v) for v in phi.diagonal(torch.tensor(sigma, dtype=torch.float64)))
        own.append(a2 * e_phi2)
        gain.append(1 + a2 * e_dphi2)
        sigma += a2 * e_phi2
    above = np.append(np.cumprod(np.array(gain[::-1]))[::-1][1:], 1.0)     # prod of gain[k] for k > l
    return np.array(own), above, np.array(gain), sigma


def block_factors(depth: int, alpha: float, activation: str = "relu", *, q0: float = 2.0,
                  sigma_w2: float = SIGMA_W2):
    """``(forward, backward)``, two (depth,) arrays at infinite width on the diagonal: block l's forward factor
    alpha^2 sigma_w^2 E[phi(u)^2] (u ~ N(0, Sigma^(l-1))) and its backward factor, the product of
    1 + alpha^2 sigma_w^2 E[phi'(u)^2] over the blocks above it. Block l's part of Theta(x, x) is their product."""
    own, above, _, _ = _recursion_factors(depth, alpha, activation, q0, sigma_w2)
    return own, above


def recursion_shares(depth: int, alpha: float, activation: str = "relu", *, q0: float = 2.0,
                     sigma_w2: float = SIGMA_W2) -> MeasuredShares:
    """:class:`MeasuredShares` at infinite width, on the diagonal x = x' with Sigma^(0)(x, x) = q0, for any
    activation of the engine: block l's own weights add alpha^2 sigma_w^2 E[phi(u)^2] (u ~ N(0, Sigma^(l-1))),
    and every block k above multiplies that part by 1 + alpha^2 sigma_w^2 E[phi'(u)^2] at Sigma^(k-1); the input
    layer's part q0 is multiplied by all L factors, and the readout adds Sigma^(L). For ReLU without bias every
    block's part is the same (:func:`ntk_shares`); for other activations it is not."""
    own, above, gain, sigma = _recursion_factors(depth, alpha, activation, q0, sigma_w2)
    parts = np.array([q0 * float(np.prod(gain)), *(own * above), sigma])
    total = float(parts.sum())
    return MeasuredShares(input=parts[0] / total, blocks=parts[1:-1] / total, readout=parts[-1] / total,
                          total=total)


# ---------------------------------------------------------------- finite networks against the recursion

#: The lesson's finite-network experiment: 4 blocks, 8 inputs on the sphere in d = 6 (x.x/d = 1).
FINITE_DEPTH, FINITE_INPUTS = 4, (8, 6, 0)


@dataclass(frozen=True)
class FiniteNetworks:
    """How far finite networks are from the analytic NTK (relative Frobenius norms of the difference).

    Attributes:
        errors: (seeds,) one network per seed.
        mean_error: the mean of the networks' empirical NTKs.
    """

    errors: np.ndarray
    mean_error: float


@lru_cache(maxsize=32)
def finite_networks(scaling: str, width: int, seeds: int = 8) -> FiniteNetworks:
    """:class:`FiniteNetworks` for ``nh.resnet(4, alpha=SCALINGS[scaling](4))`` at ``width``, seeds 0 .. seeds-1,
    on ``nh.sphere(8, d=6, seed=0)``; cached, so asking again at the same width costs nothing."""
    from .data import sphere
    from ..finite.convergence import width_sweep

    if scaling not in SCALINGS:
        raise ValueError(f"unknown scaling {scaling!r}; allowed values: {', '.join(SCALINGS)}")
    n, d, seed = FINITE_INPUTS
    inputs = sphere(n, d, seed=seed)
    arch = resnet(FINITE_DEPTH, alpha=SCALINGS[scaling](FINITE_DEPTH))
    with one_thread():
        sweep = width_sweep(arch, inputs, widths=[check_int("width", width, minimum=1)],
                            seeds=check_int("seeds", seeds, minimum=1))
    exact = arch.kernel(inputs).ntk
    return FiniteNetworks(errors=sweep.errors[0], mean_error=float((sweep.mean_ntk[0] - exact).norm() / exact.norm()))


# ---------------------------------------------------------------- the picture of the induction

def induction_diagram():
    """The recursion of a residual network drawn as a chain of blocks (top) and one block in detail (below): the
    skip passes Sigma and Theta on unchanged, the branch adds alpha^2 times its map, and the two add because
    the branch ends in fresh zero-mean weights. Returns the figure."""
    import matplotlib.pyplot as plt
    from matplotlib.patches import Circle, FancyBboxPatch

    from .plotting import PALETTE

    fig, ax = plt.subplots(figsize=(10.4, 5.0))
    ax.set_xlim(0, 10.4)
    ax.set_ylim(0, 5.6)
    ax.axis("off")

    def box(x, y, text, colour, *, size=10.5):
        style = dict(boxstyle="round,pad=0.4", facecolor=colour, alpha=0.18, edgecolor=colour)
        ax.text(x, y, text, ha="center", va="center", fontsize=size, linespacing=1.5, bbox=style)

    def arrow(start, end, colour="0.3", **style):
        ax.annotate("", xy=end, xytext=start, arrowprops=dict(arrowstyle="-|>", color=colour, lw=1.5, **style))

    # the chain: input layer, L blocks, readout
    chain = [(0.9, _("input layer") + "\n" + r"$\Sigma^{(0)} = \Theta^{(0)} = q_0$", PALETTE[0]),
             (3.0, _("block 1"), PALETTE[2]), (4.4, _("block 2"), PALETTE[2]), (5.6, r"$\cdots$", "white"),
             (6.8, _("block $l$"), PALETTE[1]), (8.0, r"$\cdots$", "white"),
             (9.4, _("readout") + "\n" + r"$\Theta = \Theta^{(L)} + \Sigma^{(L)}$", PALETTE[0])]
    for x, text, colour in chain:
        if colour == "white":
            ax.text(x, 5.0, text, ha="center", va="center", fontsize=13)
        else:
            box(x, 5.0, text, colour, size=10)
    for a, b in [(1.95, 2.55), (3.45, 3.95), (4.85, 5.3), (5.9, 6.35), (7.25, 7.7), (8.3, 8.55)]:
        arrow((a, 5.0), (b, 5.0))
    # the zoom into block l
    ax.plot([6.45, 0.4], [4.7, 3.85], color=PALETTE[1], lw=0.8, ls="--")
    ax.plot([7.15, 10.0], [4.7, 3.85], color=PALETTE[1], lw=0.8, ls="--")
    ax.add_patch(FancyBboxPatch((0.4, 0.15), 9.6, 3.7, boxstyle="round,pad=0.02", facecolor="none",
                                edgecolor=PALETTE[1], lw=0.8, ls="--"))

    box(1.45, 2.4, _("kernels of $x^{(l-1)}$") + "\n" + r"$\Sigma^{(l-1)},\ \Theta^{(l-1)}$", PALETTE[0])
    box(9.05, 2.4, _("kernels of $x^{(l)}$") + "\n" + r"$\Sigma^{(l)},\ \Theta^{(l)}$", PALETTE[2])
    ax.add_patch(Circle((7.55, 2.4), 0.27, facecolor="white", edgecolor="0.3", lw=1.5))
    ax.text(7.55, 2.4, "+", ha="center", va="center", fontsize=16)
    arrow((7.85, 2.4), (8.2, 2.4))
    # the skip: unchanged
    arrow((2.45, 2.75), (7.3, 2.55), connectionstyle="arc3,rad=-0.12")
    ax.text(4.85, 3.25, _("skip: both kernels pass on unchanged (× 1)"), ha="center", fontsize=10.5, color="0.2")
    # the branch
    box(4.8, 1.55, _(r"branch: $\phi$, then fresh weights $W^{(l)}$, times $\alpha$"), PALETTE[4], size=10)
    arrow((2.45, 2.05), (2.85, 1.7))
    arrow((6.8, 1.7), (7.35, 2.2))
    ax.text(4.8, 0.95, r"$\Sigma$: $+\ \alpha^2\sigma_w^2\,\mathbb{E}[\phi\phi]$" + "      " +
            r"$\Theta$: $+\ \alpha^2\sigma_w^2\,(\mathbb{E}[\phi'\phi']\,\Theta^{(l-1)} + \mathbb{E}[\phi\phi])$",
            ha="center", fontsize=10.5, color="0.2")
    ax.text(7.55, 1.9, _("uncorrelated:") + "\n" + _("kernels add"), ha="center", va="top", fontsize=9.5,
            color="0.3")
    ax.text(5.2, 0.35, _("ReLU, no bias, x = x′:") + " " + r"$\Sigma^{(l)} = (1+\gamma)\,\Sigma^{(l-1)}$,  "
            r"$\Theta^{(l)} = (1+\gamma)\,\Theta^{(l-1)} + \gamma\,\Sigma^{(l-1)}$,  "
            r"$\gamma = \alpha^2\sigma_w^2/2$", ha="center", fontsize=10, color=PALETTE[1])
    ax.set_title(_("Each block passes its kernels on and adds α² times what its branch makes of them"),
                 fontsize=12)
    return fig


# ---------------------------------------------------------------- the explorer

#: The explorer's inputs x′: 0°, 3°, ..., 180° from x (x·x/d = 1); index 1 is 3°, 30 is 90°, 60 is 180°.
ANGLES = torch.linspace(0, math.pi, 61, dtype=torch.float64)
AT_3, AT_90, AT_180 = 1, 30, 60


@lru_cache(maxsize=256)
def normalized_ntk(depth: int, scaling: str, activation: str):
    """``(Theta(x, x), Theta(x, x′) / Theta(x, x) at ANGLES)`` of ``nh.resnet(depth, activation,
    alpha=SCALINGS[scaling](depth))``, or ``None`` when the kernel leaves the float64 range."""
    depth = check_int("depth", depth, minimum=1)
    if scaling not in SCALINGS:
        raise ValueError(f"unknown scaling {scaling!r}; allowed values: {', '.join(SCALINGS)}")
    ring = torch.stack([ANGLES.cos(), ANGLES.sin()], 1) * math.sqrt(2)
    try:
        k = resnet(depth, activation, alpha=SCALINGS[scaling](depth)).kernel(ring[:1], ring).ntk[0]
    except OverflowError:
        return None
    if not (torch.isfinite(k).all() and float(k[0]) > 0):
        return None
    return float(k[0]), k / k[0]


def describe(depth: int, scaling: str, activation: str) -> str:
    """One sentence, true for these settings, on what depth did to the normalized NTK (the explorer's title)."""
    alpha = SCALINGS[scaling](depth)
    now, half = normalized_ntk(depth, scaling, activation), normalized_ntk(max(1, depth // 2), scaling, activation)
    if now is None or half is None:
        return _("no kernel: it leaves the float64 range")
    if depth == 1:
        return _("one block (α = 1 for every scaling at L = 1)")
    gap = float((now[1] - ANGLES.cos()).abs().max())
    if depth * alpha ** 2 <= 0.1 and gap < 0.05:
        return _("{depth} blocks, Lα² = {weight:.3f}: branches faded, within {gap:.2f} of cos θ").format(
            depth=depth, weight=depth * alpha ** 2, gap=gap)
    near = float(now[1][AT_3])
    if near < 0.1:
        return _("{depth} blocks: even inputs 3° apart are nearly uncorrelated ({value:.3f})").format(
            depth=depth, value=near)
    change = float((now[1] - half[1]).abs().max())
    if change < 0.0005:
        return _("{half} → {depth} blocks change the kernel by less than 0.001: it has settled").format(
            half=depth // 2, depth=depth)
    if change < 0.01:
        return _("{half} → {depth} blocks change the kernel by {change:.3f} at most: it has settled").format(
            half=depth // 2, depth=depth, change=change)
    return _("{half} → {depth} blocks still reshape the kernel (by up to {change:.2f})").format(
        half=depth // 2, depth=depth, change=change)


def draw_normalized_ntk(depth: int, scaling: str, activation: str) -> None:
    """The explorer: the normalized NTK against the angle between the inputs at ``depth`` blocks, at
    ``depth // 2`` blocks (dashed: the title compares the two) and (faint) for one block; a title from
    :func:`describe` and one line of numbers. Says so instead of drawing when a kernel leaves the float64 range."""
    import matplotlib.pyplot as plt

    from .plotting import PALETTE

    half = max(1, depth // 2)
    curves = {L: normalized_ntk(L, scaling, activation) for L in sorted({1, half, depth})}
    if any(curve is None for curve in curves.values()):
        print(_("Nothing drawn: at L = {depth} the kernel leaves the float64 range; choose fewer blocks or a "
                "smaller α.").format(depth=depth))
        return
    fig, ax = plt.subplots()
    degrees = torch.rad2deg(ANGLES)
    if depth > 1:
        ax.plot(degrees, curves[1][1], color=PALETTE[0], alpha=0.35, label=_("L = 1 (one block)"))
    if half > 1:                                  # the title compares L with L // 2: both are drawn
        ax.plot(degrees, curves[half][1], color=PALETTE[1], ls="--", label=f"L = {half}")
    ax.plot(degrees, curves[depth][1], color=PALETTE[0], label=f"L = {depth}")
    ax.plot(degrees, ANGLES.cos(), color="0.4", ls=":", lw=1, label=_("cos θ (the linear kernel)"))
    ax.set_xlabel(_("angle between inputs (degrees)"))
    ax.set_ylabel(_("normalized NTK Θ(x, x′) / Θ(x, x)"))
    ax.set_ylim(-1.05, 1.05)
    ax.set_title(describe(depth, scaling, activation), fontsize=11)
    ax.legend(fontsize="small")
    print(explorer_line(depth, scaling, activation))


def explorer_line(depth: int, scaling: str, activation: str) -> str:
    """The explorer's line of numbers: Θ(x, x) and the normalized NTK at 3°, 90° and 180°."""
    curve = normalized_ntk(depth, scaling, activation)
    if curve is None:
        return _("no kernel: it leaves the float64 range")
    scale, k = curve
    return _("L = {depth}, {scaling}, {activation}: Θ(x, x) = {scale:.4g}; normalized NTK {near:.3f} at 3°, "
             "{right:.3f} at 90°, {opposite:.3f} at 180°").format(
        depth=depth, scaling=scaling, activation=activation, scale=scale, near=float(k[AT_3]),
        right=float(k[AT_90]), opposite=float(k[AT_180]))


__all__ = ["ANGLES", "FINITE_DEPTH", "FINITE_INPUTS", "FiniteNetworks", "JacobianProduct", "MeasuredShares",
           "SCALINGS", "SIGMA_W2", "Shares", "beyond_first_order", "block_factors", "block_shares",
           "blocks_applied",
           "branch_jacobian", "branch_jacobian_norm", "closed_form_ntk", "describe", "draw_normalized_ntk",
           "explorer_line", "finite_networks", "first_gates_open", "growth_per_block", "induction_diagram",
           "jacobian_product", "normalized_ntk", "ntk_shares", "recursion_shares"]
