"""ntk_helpers.course.normalization (lesson 05a): the layer-norm kernels against the arc-cosine closed form, the
scale invariance of finite networks against autograd, the batch experiment against the package's own network
applied batch by batch and against batch norm worked out by hand, and the explorers' sentences against the
numbers they describe."""

import math
from contextlib import redirect_stdout
from io import StringIO

import matplotlib
import numpy as np
import pytest
import torch

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402

from ntk_helpers.course import normalization  # noqa: E402

EPS = 1e-5


# ---------------------------------------------------------------- layer norm: the kernel map, in closed form

def relu_moments(q1, q2, c):
    """E[relu(u) relu(v)] and E[relu'(u) relu'(v)] for (u, v) ~ N(0, [[q1, c], [c, q2]]) (Cho & Saul 2009)."""
    cos = max(-1.0, min(1.0, c / math.sqrt(q1 * q2)))
    theta = math.acos(cos)
    return (math.sqrt(q1 * q2) / (2 * math.pi) * (math.sin(theta) + (math.pi - theta) * cos),
            (math.pi - theta) / (2 * math.pi))


def closed_form_ntk(x, y, bias_before, bias_after, with_layer_norm):
    """Theta(x, y) of dense(1.4, bias_before) -> [layer norm] -> ReLU -> dense(1, bias_after), by hand."""
    d = x.shape[0]
    sigma = lambda a, b: normalization.SIGMA_W ** 2 * float(a @ b) / d + bias_before ** 2     # noqa: E731
    sxy, sxx, syy = sigma(x, y), sigma(x, x), sigma(y, y)
    txy = sxy                                                   # the first layer: Theta = Sigma
    if with_layer_norm:
        scale = math.sqrt((sxx + EPS) * (syy + EPS))
        sxy, txy = sxy / scale, txy / scale
        sxx, syy = sxx / (sxx + EPS), syy / (syy + EPS)
    phi, dphi = relu_moments(sxx, syy, sxy)
    return dphi * txy + phi + bias_after ** 2


@pytest.mark.parametrize("bias_before, bias_after", [(0.0, 0.0), (0.5, 0.0), (0.0, 1.0), (2.0, 0.7)])
@pytest.mark.parametrize("with_layer_norm", [True, False])
@pytest.mark.parametrize("pair", ["opposite", "aligned"])
def test_kernel_vs_scale_is_the_closed_form(bias_before, bias_after, with_layer_norm, pair):
    theta, base = normalization.kernel_vs_scale(bias_before, bias_after, with_layer_norm=with_layer_norm,
                                                pair=pair)
    x, y = normalization.PAIRS[pair][0], normalization.PAIRS[pair][1]
    expected = [closed_form_ntk(a * x, y, bias_before, bias_after, with_layer_norm) for a in normalization.SCALES]
    np.testing.assert_allclose(theta, expected, rtol=1e-10, atol=1e-13)
    assert base == pytest.approx(closed_form_ntk(x, y, bias_before, bias_after, with_layer_norm), rel=1e-10)


def test_the_lessons_counterexample_and_its_bias_free_twin():
    theta, base = normalization.kernel_vs_scale(0.5)
    ratio = theta / base
    assert ratio[[0, 8, -1]] == pytest.approx([-2.658, 1.0, 1.552], abs=5e-4), ratio[[0, 8, -1]]
    flat, flat_base = normalization.kernel_vs_scale(0.0)
    assert np.abs(flat / flat_base - 1).max() < 1e-4, "without a bias the ratio is 1 up to eps"


def test_the_first_figures_pair_is_acute_and_its_kernel_positive():
    x, y = normalization.ALIGNED
    cosine = float(x @ y) / normalization.D
    assert 0.2 < cosine < 0.4 and float(x @ x) / normalization.D == pytest.approx(1.0), cosine
    for before in (0.0, 0.5):
        for with_ln in (True, False):
            theta, base = normalization.kernel_vs_scale(before, with_layer_norm=with_ln, pair="aligned")
            assert theta.min() > 0.1 and base > 0.1, (before, with_ln, theta.min(), base)
    theta, base = normalization.kernel_vs_scale(0.5, pair="aligned")
    assert (theta / base)[[0, -1]] == pytest.approx([1.111, 0.880], abs=5e-4), theta / base


def test_scaling_x_acts_like_dividing_its_bias():
    """LN(a W x + b) = LN(W x + b / a): Theta at bias 0.5 and x / 4 is Theta at bias 2 and 4 x with x, x' swapped
    (same norms), so the two explorer values coincide up to eps."""
    low = normalization.kernel_vs_scale(0.5)[0][0]
    high = normalization.kernel_vs_scale(2.0)[0][-1]
    assert low == pytest.approx(high, rel=1e-4), (low, high)


def test_an_unknown_pair_is_named():
    with pytest.raises(ValueError, match="pair"):
        normalization.kernel_vs_scale(0.5, pair="diagonal")


def test_a_bias_after_layer_norm_only_adds_its_square():
    for before in (0.0, 0.5, 2.0):
        without, base0 = normalization.kernel_vs_scale(before, 0.0)
        with_bias, base1 = normalization.kernel_vs_scale(before, 1.5)
        np.testing.assert_allclose(with_bias - without, 1.5 ** 2, rtol=1e-12)
        assert base1 - base0 == pytest.approx(1.5 ** 2, rel=1e-12)


def test_flatness_vanishes_exactly_without_a_bias_before_layer_norm():
    for after in (0.0, 0.5, 2.0):
        assert normalization.flatness(0.0, after) < 1e-5, "only eps moves it"
    values = [normalization.flatness(b, 0.0) for b in (0.05, 0.25, 0.5, 1.0, 2.0)]
    assert all(v > 1e-4 for v in values), values
    theta, _ = normalization.kernel_vs_scale(0.5)
    k = normalization.ln_network(0.5).kernel(normalization.PAIR).ntk
    assert normalization.flatness(0.5) == pytest.approx(float(np.ptp(theta) / math.sqrt(k[0, 0] * k[1, 1])))


# ---------------------------------------------------------------- finite networks

def autograd_ntk(model, x, y):
    params = [p for p in model.parameters() if p.requires_grad]
    gx = torch.autograd.grad(model(x[None]).sum(), params)
    gy = torch.autograd.grad(model(y[None]).sum(), params)
    return float(sum((a * b).sum() for a, b in zip(gx, gy)))


@pytest.mark.parametrize("bias_before, width, seed", [(0.0, 16, 0), (0.0, 256, 3), (0.5, 64, 1), (0.5, 256, 2)])
@pytest.mark.parametrize("pair", ["opposite", "aligned"])
def test_finite_ntk_ratio_is_autograds(bias_before, width, seed, pair):
    model = normalization.ln_network(bias_before).network(normalization.D, width=width, seed=seed)
    x, y = normalization.PAIRS[pair][0], normalization.PAIRS[pair][1]
    expected = autograd_ntk(model, 4 * x, y) / autograd_ntk(model, x, y)
    measured = normalization.finite_ntk_ratio(bias_before, width, seed=seed, pair=pair)
    assert measured == pytest.approx(expected, rel=1e-9), (measured, expected)


def test_a_bias_free_finite_network_is_scale_invariant_at_every_width():
    """Exact but for eps: it weighs eps / s^2 against the layer's spread s^2 of about Sigma(x, x) = 1.96 (times
    a^2 for a x); a factor 10 covers a narrow network's smaller s^2."""
    for width in (8, 64, 512):
        for scale in (0.1, 3.0, 40.0):
            ratio = normalization.finite_ntk_ratio(0.0, width, scale=scale, seed=width)
            tolerance = 10 * EPS / normalization.SIGMA_W ** 2 * (1 + scale ** -2)
            assert ratio == pytest.approx(1.0, abs=tolerance), (width, scale, ratio, tolerance)
    assert abs(normalization.finite_ntk_ratio(0.5, 512) - 1) > 0.1, "a bias before layer norm breaks it"


# ---------------------------------------------------------------- batch norm

def test_batch_outputs_are_the_networks_applied_batch_by_batch():
    for frozen in (False, True):
        model = normalization.bn_network(frozen=frozen).network(normalization.D, width=96, seed=4)
        with torch.no_grad():
            expected = torch.stack([model(torch.cat([normalization.X1, normalization.batch_mates(5, b)]))[0, 0]
                                    for b in range(45)])
        measured = normalization.batch_outputs(96, 5, frozen=frozen, resamples=45, seed=4)
        torch.testing.assert_close(measured, expected, rtol=1e-12, atol=1e-12)


def test_frozen_statistics_give_the_network_of_x1_alone():
    frozen = normalization.batch_outputs(128, 8, frozen=True, resamples=10)
    model = normalization.bn_network(frozen=True).network(normalization.D, width=128, seed=0)
    with torch.no_grad():
        alone = float(model(normalization.X1)[0, 0])
    assert frozen.tolist() == pytest.approx([alone] * 10, rel=1e-12)


def test_batch_norm_of_two_inputs_by_hand():
    """Batch of two: mean = midpoint, s = half the distance, so x1 gets (z1 - z2) / 2 / sqrt((z1 - z2)^2/4 + eps)."""
    model = normalization.bn_network().network(normalization.D, width=64, seed=0)
    mate = normalization.batch_mates(2, 3)
    with torch.no_grad():
        z1, z2 = model[0](normalization.X1)[0], model[0](mate)[0]
    half = (z1 - z2) / 2
    torch.testing.assert_close(normalization.unit_outputs(64, 2, 3), half / torch.sqrt(half ** 2 + EPS),
                               rtol=1e-10, atol=1e-12)


def test_the_spread_falls_with_the_batch_and_not_with_the_width():
    """Mean over 3 networks: batch 8 -> 32 divides the spread by about 2 (1/sqrt(B)); width 64 -> 1024 does not."""
    spread = lambda w, b: np.mean([float(normalization.batch_outputs(w, b, seed=s).std()) for s in range(3)])  # noqa
    ratio = spread(256, 32) / spread(256, 8)
    assert 0.35 < ratio < 0.65, f"batch 8 -> 32: spread ratio about 0.5 expected, measured {ratio:.3f}"
    widths = spread(1024, 8) / spread(64, 8)
    assert 0.6 < widths < 1.6, f"width 64 -> 1024: spread ratio about 1 expected, measured {widths:.3f}"


def test_bad_arguments_are_named():
    with pytest.raises(ValueError, match="batch_size"):
        normalization.batch_outputs(64, 1)
    with pytest.raises(ValueError, match="bias_before"):
        normalization.kernel_vs_scale(-0.1)
    with pytest.raises(ValueError, match="width"):
        normalization.finite_ntk_ratio(0.0, 0)


# ---------------------------------------------------------------- the explorers and the picture

@pytest.mark.parametrize("before", [0.0, 0.05, 0.5, 2.0])
@pytest.mark.parametrize("after", [0.0, 2.0])
def test_the_scale_explorer_says_what_it_draws(before, after):
    title = normalization.describe_scale(before, after)
    spread = normalization.flatness(before, after)
    if before == 0:
        assert "does not depend" in title and spread < 1e-5, (title, spread)
    else:
        assert "depends on a" in title and "does not" not in title and spread > 1e-4, (title, spread)
    out = StringIO()
    with redirect_stdout(out):
        normalization.draw_scale(before, after)
    assert out.getvalue() == "", "the explorer's numbers belong in its title (a saved notebook drops prints)"
    ax = plt.gcf().axes[0]
    first, second = ax.get_title().split("\n")
    assert first == title, (first, title)
    assert all(np.isfinite(line.get_ydata()).all() for line in ax.get_lines())
    theta, base = normalization.kernel_vs_scale(before, after)
    for value in (base, float(theta[0]), float(theta[-1])):
        assert f"{value:.4f}" in second, (value, second)
    solid = ax.get_lines()[0].get_ydata()
    np.testing.assert_allclose(solid, theta, rtol=1e-12, err_msg="the solid curve is the layer-norm kernel")
    plt.close("all")


@pytest.mark.parametrize("width, batch_size", [(64, 2), (4096, 64), (256, 8)])
def test_the_batch_explorer_says_what_it_draws(width, batch_size):
    out = StringIO()
    with redirect_stdout(out):
        normalization.draw_batch(width, batch_size)
    assert out.getvalue() == "", "the explorer's numbers belong in its title (a saved notebook drops prints)"
    ax = plt.gcf().axes[0]
    first, second = ax.get_title().split("\n")
    assert first == normalization.describe_batch(width, batch_size)
    outputs = normalization.batch_outputs(width, batch_size).numpy()
    spread = float(np.std(outputs, ddof=1))                          # independent of torch's std
    assert f"std {spread:.3f}" in first and f"std {spread:.3f}" in second, (spread, ax.get_title())
    assert f"mean {float(np.mean(outputs)):.3f}" in second, second
    frozen = float(normalization.batch_outputs(width, batch_size, frozen=True)[0])
    assert f"frozen statistics: {frozen:.3f}" in second, (frozen, second)
    assert f"batch size {batch_size}" in second and "nan" not in second.lower(), second
    plt.close("all")


def test_the_batch_with_x1_puts_x1_first_and_its_mates_after():
    batch = normalization.batch_with_x1(6, 3)
    assert batch.shape == (6, normalization.D), batch.shape
    torch.testing.assert_close(batch[:1], normalization.X1, rtol=0, atol=0)
    torch.testing.assert_close(batch[1:], normalization.batch_mates(6, 3), rtol=0, atol=0)


def test_the_idea_diagram_has_a_takeaway_title_and_renders():
    figure = normalization.idea_diagram()
    assert "own statistics" in figure.get_suptitle()
    figure.canvas.draw()
    plt.close(figure)
