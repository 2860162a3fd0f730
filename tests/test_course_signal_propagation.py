"""Lesson 02's explorer machinery (ntk_helpers.course.signal_propagation): the kernels it draws, checked against
an independent computation, and the sentences it prints, checked against numbers computed separately."""

import math
import re

import pytest
import torch

import ntk_helpers as nh
from ntk_helpers.course import signal_propagation as sp


def rho(c: float) -> float:
    """The ReLU correlation map at σ_w² = 2, σ_b = 0, written out (not the package's)."""
    return (math.sqrt(max(1 - c * c, 0.0)) + (math.pi - math.acos(c)) * c) / math.pi


def relu_edge_kernels(degrees: float, depth: int) -> tuple[float, float]:
    """Normalized NNGP and NTK of a bias-free ReLU MLP at σ_w² = 2 for inputs at this angle, by the scalar
    recursion: q = 2 at every layer, Σ = q c, Σ̇(x,x′) = (π − arccos c)/π, Θ ← Σ + Σ̇ Θ."""
    q, c = 2.0, math.cos(math.radians(degrees))
    theta = q * c                                          # Θ^(1) = Σ^(1)
    for _ in range(depth):
        sigma_dot = (math.pi - math.acos(c)) / math.pi
        c = rho(c)
        theta = q * c + sigma_dot * theta
    return c, theta / ((depth + 1) * q)


@pytest.mark.parametrize("depth", [1, 7, 100])
def test_relu_ring_kernels_match_the_scalar_recursion(depth):
    kernels = sp.ring_kernels("relu", sp.SQRT2, 0.0)
    for index in (0, 6, sp.AT_60, 20, 35):
        nngp, ntk = relu_edge_kernels(float(sp.DEGREES[index]), depth)
        assert kernels.nngp[depth - 1, index] == pytest.approx(nngp, abs=1e-10), (index, depth)
        assert kernels.ntk[depth - 1, index] == pytest.approx(ntk, abs=1e-10), (index, depth)


def test_ring_kernels_agree_with_a_network_kernel_for_tanh():
    pair = nh.pair_at_angle(math.radians(60))
    for depth in (1, 5, 30):
        k = nh.mlp(depth, "tanh", sigma_w=1.3, sigma_b=0.4).kernel(pair)
        kernels = sp.ring_kernels("tanh", 1.3, 0.4)
        assert kernels.nngp[depth - 1, sp.AT_60] == pytest.approx(float(k.nngp[0, 1] / k.nngp[0, 0]), rel=1e-9)
        assert kernels.ntk[depth - 1, sp.AT_60] == pytest.approx(float(k.ntk[0, 1] / k.ntk[0, 0]), rel=1e-9)
        assert kernels.variance[depth - 1] == pytest.approx(float(k.nngp[0, 0]), rel=1e-12)


def test_the_readout_angle_is_60_degrees():
    assert float(sp.DEGREES[sp.AT_60]) == 60.0
    assert sp.DEGREES[0] == 0 and sp.DEGREES[-1] == 175 and len(sp.DEGREES) == 36


def test_with_a_bias_at_sigma_w_sqrt2_the_variance_grows_by_sigma_b_squared_per_layer():
    variance = sp.ring_kernels("relu", sp.SQRT2, 0.5).variance
    # Σ^(1) = σ_w² + σ_b² = 2.25, then q ← q + σ_b²: the readout of depth l sees 2.25 + 0.25 l
    expected = 2.25 + 0.25 * torch.arange(1, 101, dtype=torch.float64)
    assert torch.allclose(variance, expected, rtol=1e-12)


def test_the_bias_keeps_mattering_at_sigma_w_sqrt2():
    """Expert item F1: the explorer once said the bias "soon stops mattering" at σ_w = √2. Independent values
    (normalized NTK at 60°, depth 100): 0.278 without bias, 0.544 with σ_b = 0.5, 0.621 with σ_b = 1."""
    at_60 = lambda sigma_b: float(sp.ring_kernels("relu", sp.SQRT2, sigma_b).ntk[99, sp.AT_60])
    assert [round(at_60(b), 3) for b in (0.0, 0.5, 1.0)] == [0.278, 0.544, 0.621]
    text = sp.describe("relu", sp.SQRT2, 0.5, 100)
    assert "stops mattering" not in text and "additively" in text and "keeps mattering" in text, text
    assert "0.544" in text and "0.278" in text, text
    assert "σ_b² = 0.250 per layer" in text and "q = 27.3 at depth 100" in text, text   # q = 27.25


def test_above_sigma_w_sqrt2_the_paragraph_compares_with_the_bias_free_kernel():
    text = sp.describe("relu", 2.0, 0.5, 100)
    assert "σ_w²/2 = 2.000" in text, text
    free = float(sp.ring_kernels("relu", 2.0, 0.0).ntk[99, sp.AT_60])
    here = float(sp.ring_kernels("relu", 2.0, 0.5).ntk[99, sp.AT_60])
    assert f"{here:.3f}" in text and f"{free:.3f}" in text, text
    assert abs(here - free) < 5e-3                          # at factor 2 per layer the bias has faded by depth 100


def test_relu_without_bias_is_the_same_normalized_kernel_at_every_sigma_w():
    reference = sp.ring_kernels("relu", sp.SQRT2, 0.0)
    for sigma_w in (0.5, 1.0, 2.5):
        other = sp.ring_kernels("relu", sigma_w, 0.0)
        assert torch.allclose(other.nngp, reference.nngp, atol=1e-10)
        assert torch.allclose(other.ntk, reference.ntk, atol=1e-10)
        text = sp.describe("relu", sigma_w, 0.0, 10)
        assert f"σ_w²/2 = {sigma_w ** 2 / 2:.3f}" in text and "positively homogeneous" in text, text


@pytest.mark.parametrize("activation, sigma_w, sigma_b, name", [
    ("relu", sp.SQRT2, 0.0, "edge of chaos"), ("relu", 1.2, 0.5, "ordered"), ("relu", sp.SQRT2, 0.5, "growing variance"),
    ("tanh", 1.0, 0.5, "ordered"), ("tanh", 1.5, 0.5, "ordered"), ("tanh", 1.55, 0.5, "edge of chaos"),
    ("tanh", 1.6, 0.5, "chaotic"), ("erf", 1.5, 0.5, "chaotic"),               # expert item M1: erf is chaotic here
    ("tanh", 0.5, 0.0, "vanishing variance"), ("erf", 0.85, 0.0, "vanishing variance"),
    ("erf", 0.9, 0.0, "edge of chaos")])
def test_each_setting_is_named_by_its_regime(activation, sigma_w, sigma_b, name):
    assert sp.regime(activation, sigma_w, sigma_b).name == name
    assert sp.title(activation, sigma_w, sigma_b).endswith(name)


def test_the_ordered_paragraph_gives_its_depth_scale_and_limit():
    # tanh, σ_b = 0.5: depth scale -1/ln χ₁ = 1.8 layers at σ_w = 1 and 29.9 at 1.5 (computed separately)
    assert "1.8 layers" in sp.describe("tanh", 1.0, 0.5, 10)
    text = sp.describe("tanh", 1.5, 0.5, 10)
    assert "29.9 layers" in text and text.startswith("ordered: χ₁ = 0.967"), text
    found = sp.regime("tanh", 1.5, 0.5)
    limit = float(nh.mlp(400, "tanh", sigma_w=1.5, sigma_b=0.5).kernel(nh.pair_at_angle(1.0)).ntk[0, 1])
    assert limit == pytest.approx(found.q_star / (1 - found.chi1), rel=1e-3)     # "the constant q*/(1 − χ₁)"
    assert f"{found.q_star / (1 - found.chi1):.3g}" in text


def test_the_degenerate_paragraph_says_what_vanishes_and_what_freezes():
    """Expert item M6: without a bias and with small σ_w, gradients vanish as in the ordered phase; only the
    correlation map is degenerate."""
    text = sp.describe("tanh", 0.5, 0.0, 100)
    assert "no ordered phase" not in text and "gradients vanish exponentially" in text and "identity" in text, text
    assert "σ_w² φ′(0)² = 0.250 < 1" in text, text
    assert sp.title("tanh", 0.5, 0.0) == "tanh: q* = 0, vanishing variance"
    theta = float(sp.ring_kernels("tanh", 0.5, 0.0).ntk_scale[99])
    assert theta < 1e-50 and f"{theta:.2g}" in text
    assert "gradients vanish exponentially" in sp.describe("erf", 0.85, 0.0, 100)     # σ_w² φ′(0)² = 0.92 < 1


def test_on_the_boundary_gradients_fade_only_polynomially_and_the_ntk_scale_tends_to_a_half():
    """Without a bias at σ_w² φ′(0)² = 1 (tanh at σ_w = 1) the variance falls like 1/(2l), the backward factors
    like 1 − 1/l, and Θ(x,x) = Σ_l q_l ∏_{k>l} Σ̇ → Σ_l (1/(2l)) (l/L) = ½: the gradients do not vanish
    exponentially, and the paragraph must not say they vanish."""
    text = sp.describe("tanh", 1.0, 0.0, 100)
    assert sp.regime("tanh", 1.0, 0.0).name == "vanishing variance"
    assert "on the boundary" in text and "vanish" not in text and "polynomially" in text and "½" in text, text
    scale = sp.ring_kernels("tanh", 1.0, 0.0).ntk_scale
    assert f"here {float(scale[99]):.3f}" in text and "0.520" in text, text
    deep = nh.self_kernels_by_depth(1.0, depth=2000, activation="tanh", sigma_w=1.0, sigma_b=0.0)
    assert float(deep[1][-1]) == pytest.approx(0.5, abs=3e-3)                    # 0.5016 at depth 2000
    assert float(deep[0][-1]) * 2 * 2001 == pytest.approx(1.0, abs=3e-3)         # q_l ≈ 1/(2l), l = L + 1
    erf = nh.self_kernels_by_depth(1.0, depth=1000, activation="erf", sigma_w=math.sqrt(math.pi) / 2)
    assert float(erf[1][-1]) == pytest.approx(0.5, abs=3e-3)                     # the same boundary for erf


def test_the_chaotic_paragraph_gives_the_fixed_point_the_correlations_reach():
    text = sp.describe("tanh", 2.5, 0.5, 100)
    c_star = float(re.search(r"c\* = ([\d.]+)", text).group(1))
    deep = float(sp.ring_kernels("tanh", 2.5, 0.5).nngp[99, sp.AT_60])
    assert deep == pytest.approx(c_star, abs=1e-3)
    assert float(sp.ring_kernels("tanh", 2.5, 0.5).ntk[99, sp.AT_60]) < 1e-3        # "the NTK tends to 0"


def test_the_chaotic_paragraph_says_what_the_curve_shows():
    """tanh, σ_w = 1.6, σ_b = 0.5: c* = 0.928, and at depth 100 the NNGP curve is nearly flat near it. Only the
    pairs above c* (small angles) are pushed apart; the others are pulled together: the paragraph says both."""
    text = sp.describe("tanh", 1.6, 0.5, 100)
    assert "c* = 0.928" in text and "those above c* fall" in text and "those below c* rise" in text, text
    kernels = sp.ring_kernels("tanh", 1.6, 0.5)
    assert kernels.nngp[99, 1] < kernels.nngp[0, 1]                          # 5°: pushed apart
    assert (kernels.nngp[99, 6:] > kernels.nngp[0, 6:]).all()                # 30° and more: pulled together
    assert ((kernels.nngp[99, 1:] - 0.928).abs() < 0.03).all()               # flat near c*


def test_the_idea_picture_shows_the_three_fates_of_a_correlation():
    """Right panel of the first picture: from c₀ = 0.5, ReLU at σ_w² = 2 approaches 1 polynomially, ordered tanh
    exponentially (much closer after 50 layers), chaotic tanh stalls at its c*."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    paths = sp.idea_trajectories(50)
    assert paths.shape == (51, 3) and (paths[0] == 0.5).all()
    relu, ordered, chaotic = paths[-1]
    assert 0.98 < relu < 0.995 and 1 - ordered < 1e-5
    c_star = nh.signal_regime("tanh", sigma_w=math.sqrt(3.0), sigma_b=math.sqrt(0.05)).c_star
    assert float(chaotic) == pytest.approx(c_star, abs=3e-3)
    left, right = sp.draw_idea()
    assert len(right.get_lines()) == 3 and right.get_yscale() == "log"
    assert f"c* = {c_star:.2f}" in right.get_legend().get_texts()[2].get_text()
    assert len(left.texts) == len(sp.draw_recursion().texts)
    plt.close("all")


def test_the_report_starts_as_the_browser_test_expects():
    text = sp.report("relu", sp.SQRT2, 0.0, 10)
    assert text.startswith("depth 10, relu, σ_w = √2, σ_b = 0.00: edge of chaos"), text
    assert "at 60° (input correlation 0.5)" in text and "depth 13, relu" in sp.report("relu", sp.SQRT2, 0.0, 13)
    assert all(len(line) <= 120 for line in text.splitlines()), text
    one = sp.readout("relu", sp.SQRT2, 0.0, 1)
    assert one == "at 60° (input correlation 0.5), depth 1: NTK 0.471, NNGP 0.609", one


@pytest.mark.parametrize("activation", ["relu", "tanh", "erf"])
def test_every_corner_of_the_sliders_gives_finite_kernels_and_a_paragraph(activation):
    for sigma_w in (sp.SIGMA_W_VALUES[0], sp.SQRT2, sp.SIGMA_W_VALUES[-1]):
        for sigma_b in (0.0, 1.0):
            kernels = sp.ring_kernels(activation, sigma_w, sigma_b)
            for values in (kernels.nngp, kernels.ntk, kernels.variance, kernels.ntk_scale):
                assert torch.isfinite(values).all(), (activation, sigma_w, sigma_b)
            for depth in (1, 100):
                text = sp.report(activation, sigma_w, sigma_b, depth)
                assert "nan" not in text and "inf" not in text.replace("infinite", ""), text


def test_the_sigma_w_slider_holds_the_exact_square_root_of_two():
    slider = sp.sigma_w_slider()
    values = list(slider._options_values)
    assert slider.value == math.sqrt(2) and slider.description == "sigma_w"
    assert len(values) == 42 and values == sorted(values) and values[0] == 0.5 and values[-1] == 2.5
    assert math.sqrt(2) in values and "√2" in slider._options_labels
    assert sp.sigma_label(1.4) == "1.40" and sp.sigma_label(math.sqrt(2)) == "√2"


def test_y_limits_follow_the_data_with_a_margin():
    low, high = sp.y_limits(torch.tensor([0.2, 0.9]), torch.tensor([0.5, 1.0]))
    assert low == pytest.approx(0.2 - 0.04) and high == pytest.approx(1.0 + 0.04)
    low, high = sp.y_limits(torch.tensor([1.0, 1.0]))          # flat data still gets a visible range
    assert high - low == pytest.approx(0.01)


def test_the_recursion_diagram_shows_both_updates():
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    ax = sp.draw_recursion()
    texts = " ".join(t.get_text() for t in ax.texts)
    assert r"\Sigma^{(l+1)} = \sigma_w^2 E + \sigma_b^2" in texts
    assert r"\Theta^{(l+1)} = \Sigma^{(l+1)} + \sigma_w^2\dot E\," in texts
    assert len([child for child in ax.get_children() if isinstance(child, matplotlib.text.Annotation)]) == 6
    plt.close(ax.figure)


def test_the_chaotic_depth_scale_is_the_slope_of_the_correlation_map_at_c_star():
    """Learner item: the chaotic "depth scale" is −1/ln χ_c with χ_c the slope of the correlation map at c*, not
    1/ln χ₁. tanh, σ_w² = 3, σ_b² = 0.05: a central difference of the map at c* (variance q*) gives χ_c."""
    w, b = math.sqrt(3.0), math.sqrt(0.05)
    found = nh.signal_regime("tanh", sigma_w=w, sigma_b=b)
    step = lambda c: float(nh.correlation_trajectory(torch.tensor(c, dtype=torch.float64), 1, "tanh", sigma_w=w,
                                                     sigma_b=b, q0=found.q_star)[1])
    h = 1e-5
    slope = (step(found.c_star + h) - step(found.c_star - h)) / (2 * h)
    assert slope == pytest.approx(math.exp(-1 / found.depth_scale), rel=1e-6), (slope, found.depth_scale)
    assert found.depth_scale == pytest.approx(9.05, abs=5e-3), found.depth_scale
    assert 1 / math.log(found.chi1) == pytest.approx(5.27, abs=5e-3)          # the other, wrong candidate
    text = sp.describe("tanh", math.sqrt(3.0), math.sqrt(0.05), 50)
    assert "−1/ln χ_c = 9.1 layers" in text and f"χ_c = {slope:.3f}" in text, text


def test_the_figure_title_carries_the_readout():
    text = sp.figure_title("relu", sp.SQRT2, 0.0, 10)
    first, second = text.split("\n")
    assert first == sp.title("relu", sp.SQRT2, 0.0), text
    kernels = sp.ring_kernels("relu", sp.SQRT2, 0.0)
    ntk, nngp = relu_edge_kernels(60.0, 10)[::-1]
    assert second == f"at 60°, depth 10: NTK {ntk:.3f}, NNGP {nngp:.3f} (depth 1: " \
                     f"{float(kernels.ntk[0, sp.AT_60]):.3f}, {float(kernels.nngp[0, sp.AT_60]):.3f})", text
    assert "NTK 0.373, NNGP 0.898" in second, text
