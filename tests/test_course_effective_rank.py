"""ntk_helpers.course.effective_rank (lesson 08): each experiment against an independent computation (numpy
eigenvalues, Monte Carlo over pairs of random inputs, a closed form, a least-squares solve), and the explorer's
sentences against the quantities they state."""

import math
from contextlib import redirect_stdout
from io import StringIO

import matplotlib
import numpy as np
import pytest
import torch

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402

import ntk_helpers as nh  # noqa: E402
from ntk_helpers.course import effective_rank as course  # noqa: E402


def numpy_rank(K):
    lam = np.linalg.eigvalsh(np.asarray(K, dtype=np.float64))
    return lam.sum() ** 2 / (lam ** 2).sum()


def monte_carlo_moments(arch, pairs=4000, d=course.D, seed=0, kind="ntk"):
    """(E k(x,x), E k(x,x'), E k(x,x')^2) from independent pairs of uniform points of the sphere."""
    x, y = nh.sphere(pairs, d, seed=seed), nh.sphere(pairs, d, seed=seed + 1)
    diagonal = getattr(arch.kernel(x[:1]), kind)[0, 0]
    off = torch.stack([getattr(arch.kernel(x[i:i + 1], y[i:i + 1]), kind)[0, 0] for i in range(pairs)])
    return float(diagonal), float(off.mean()), float((off ** 2).mean())


# ---------------------------------------------------------------- the r_inf law

def test_rank_sweep_is_the_participation_ratio_of_each_gram_matrix():
    sweep = course.rank_sweep("ReLU NTK, 1 layer", (50, 100))
    for n, raw, centered in zip(sweep.sizes, sweep.raw, sweep.centered):
        K = nh.mlp(1).kernel(nh.sphere(n, course.D, seed=n)).ntk.numpy()
        H = np.eye(n) - 1 / n
        assert raw == pytest.approx(numpy_rank(K), rel=1e-10), f"n = {n}: expected {numpy_rank(K)}, got {raw}"
        assert centered == pytest.approx(numpy_rank(H @ K @ H), rel=1e-8), f"n = {n}: centred {centered}"


@pytest.mark.parametrize("name", ["ReLU NTK, 1 layer", "erf NTK"])
def test_the_limit_is_m1_squared_over_the_mean_square_off_diagonal_entry(name):
    build, kind, _ = course.CASES[name]
    diagonal, _, mean_square = monte_carlo_moments(build(), kind=kind)
    expected = diagonal ** 2 / mean_square                     # Monte Carlo: about 1 % standard error here
    limit = course.rank_sweep(name, (50,)).limit
    assert limit == pytest.approx(expected, rel=0.05), f"{name}: quadrature {limit}, Monte Carlo {expected}"


def test_the_offset_inputs_have_no_quadrature_limit_and_the_sweep_predicts_the_law():
    assert course.rank_sweep("ReLU NTK, inputs + 3", (50,)).limit is None
    sweep = course.rank_sweep("ReLU NTK, 1 layer", (50, 100))
    expected = [n * sweep.limit / (n - 1 + sweep.limit) for n in sweep.sizes]
    np.testing.assert_allclose(sweep.predicted(), expected, rtol=1e-12)


def test_chaos_row_against_monte_carlo_and_the_sphere_identity():
    row = course.chaos_row(2, (50,))
    diagonal, mean, mean_square = monte_carlo_moments(nh.mlp(2, "erf", sigma_w=2.0), pairs=3000)
    assert abs(row.mean) < 1e-12, f"odd kernel: mean off-diagonal 0 expected, got {row.mean}"
    assert abs(mean / diagonal) < 0.02, f"Monte Carlo mean off-diagonal / diagonal near 0, got {mean / diagonal}"
    assert row.rms == pytest.approx(math.sqrt(mean_square) / diagonal, rel=0.05), \
        f"rms {row.rms} vs Monte Carlo {math.sqrt(mean_square) / diagonal}"
    assert row.rms * math.sqrt(row.r_inf) == pytest.approx(1.0, rel=1e-9), "constant diagonal: rms = 1/sqrt(r_inf)"
    K = nh.mlp(2, "erf", sigma_w=2.0).kernel(nh.sphere(50, course.D, seed=50)).ntk
    assert row.r_eff[0] == pytest.approx(numpy_rank(K), rel=1e-10)


def test_constant_mode_of_a_plus_b_ones():
    n, a, b = 30, 0.6, 0.2
    mode = course.constant_mode(a * torch.eye(n, dtype=torch.float64) + b)
    assert mode.top == pytest.approx(a + n * b, rel=1e-12), f"top eigenvalue a + nb = {a + n * b}, got {mode.top}"
    assert mode.second == pytest.approx(a, rel=1e-10), f"next eigenvalue a = {a}, got {mode.second}"
    assert mode.alignment == pytest.approx(1.0, abs=1e-12), f"top eigenvector = constant vector, |cos| {mode.alignment}"
    expected = n ** 2 * (a + b) ** 2 / ((a + n * b) ** 2 + (n - 1) * a ** 2)
    assert mode.raw == pytest.approx(expected, rel=1e-12), f"r_eff {expected} expected, got {mode.raw}"
    assert mode.centered == pytest.approx(n - 1, rel=1e-9), f"centred: a(I − 11ᵀ/n) has r_eff n − 1, {mode.centered}"


# ---------------------------------------------------------------- singular Gram matrices, dense function spaces

def test_offdiagonal_rms_of_a_plus_b_ones_and_of_a_random_matrix():
    K = 0.75 * torch.eye(30, dtype=torch.float64) + 0.25
    assert course.offdiagonal_rms(K) == pytest.approx(0.25, rel=1e-12), course.offdiagonal_rms(K)
    features = torch.randn(12, 5, generator=torch.Generator().manual_seed(3), dtype=torch.float64)
    G = (features @ features.T).numpy()
    scale = np.sqrt(np.diag(G))
    off = (G / np.outer(scale, scale))[~np.eye(12, dtype=bool)]
    expected = math.sqrt(np.mean(off ** 2))
    assert course.offdiagonal_rms(G) == pytest.approx(expected, rel=1e-12), (course.offdiagonal_rms(G), expected)


def test_two_clusters_give_one_dominant_mode_orthogonal_to_the_constant_vector():
    x = course.two_clusters(200, seed=0)
    centre = float(x[0::2, 0].mean())
    assert x.shape == (200, course.D) and abs(centre - math.sqrt(10)) < 0.1, (x.shape, centre)
    K = nh.mlp(1, "erf", sigma_w=1.0).kernel(x).ntk
    mode = course.constant_mode(K)
    # an odd kernel on two antipodal clusters: the top eigenvector is close to (1, -1, 1, -1, ...)/sqrt(n)
    signs = torch.where(torch.arange(200) % 2 == 0, 1.0, -1.0).to(torch.float64) / math.sqrt(200)
    top = torch.linalg.eigh(K).eigenvectors[:, -1]
    assert abs(float(top @ signs)) > 0.99, f"|cos| with the sign vector > 0.99 expected, got {float(top @ signs)}"
    assert mode.raw < 1.5 and mode.alignment < 0.1, f"r_eff < 1.5 and |cos| with 1 < 0.1 expected, got {mode}"
    assert mode.raw == pytest.approx(numpy_rank(K), rel=1e-9), (mode.raw, numpy_rank(K))


def test_antipodal_pairs_are_distinct_points_of_the_sphere():
    x = course.antipodal_pairs(6, 3, seed=1)
    assert x.shape == (12, 3)
    np.testing.assert_allclose(x[6:], -x[:6], rtol=0, atol=0)
    np.testing.assert_allclose((x ** 2).sum(1), 3.0, rtol=1e-12)
    distances = torch.cdist(x, x) + 10 * torch.eye(12, dtype=x.dtype)
    assert float(distances.min()) > 0.1, f"distinct inputs expected, closest pair {float(distances.min())}"


def test_conditioning_is_lambda_min_over_lambda_max():
    assert course.conditioning(torch.diag(torch.tensor([4.0, 1.0, 2.0], dtype=torch.float64))) == pytest.approx(0.25)


def test_the_singular_cases_have_their_mechanisms():
    cases = course.singular_cases()
    x = course.antipodal_pairs(6, 3, seed=1)
    erf = nh.mlp(1, "erf", sigma_w=1.0).kernel(x).ntk
    np.testing.assert_allclose(erf[6:], -erf[:6], atol=1e-12)               # odd network: rows of −x negate
    doubles = torch.cat([x[:6], 2 * x[:6]])
    relu = nh.mlp(1).kernel(doubles).ntk
    np.testing.assert_allclose(relu[6:], 2 * relu[:6], rtol=1e-10)           # homogeneous: rows of 2x double
    lam = np.linalg.eigvalsh(nh.mlp(1).kernel(x).ntk.numpy())
    assert (np.abs(lam[:3]) < 1e-12 * lam[-1]).all() and lam[3] > 1e-3 * lam[-1], \
        f"one hidden ReLU layer on 6 antipodal pairs of S²: exactly 3 zero eigenvalues expected, got {lam[:4]}"
    for name in list(cases)[:3]:
        assert abs(cases[name]) < 1e-14, f"{name}: singular expected, λ_min/λ_max = {cases[name]}"
    for name in list(cases)[3:]:
        assert cases[name] > 1e-3, f"{name}: positive definite expected, λ_min/λ_max = {cases[name]}"
    assert set(cases) == {name for name in cases if course.singular_label(name)}


def test_circle_fit_is_ridgeless_regression():
    arch, n = nh.mlp(2), 40
    generator = torch.Generator().manual_seed(0)
    theta = 2 * math.pi * torch.rand(n, generator=generator, dtype=torch.float64)
    x = math.sqrt(2) * torch.stack([theta.cos(), theta.sin()], dim=1)
    theta_test, x_test = nh.circle(1024)
    coefficients = np.linalg.solve(arch.kernel(x).ntk.numpy(), np.cos(3 * theta.numpy()))
    fit = arch.kernel(x_test, x).ntk.numpy() @ coefficients
    target = np.cos(3 * theta_test.numpy())
    expected = ((fit - target) ** 2).mean() / (target ** 2).mean()
    assert course.circle_fit(arch, 3, n) == pytest.approx(expected, rel=1e-5), f"expected {expected}"
    expected_norm = (fit ** 2).mean() / (target ** 2).mean()
    assert course.circle_fit_norm(arch, 3, n) == pytest.approx(expected_norm, rel=1e-5), f"expected {expected_norm}"


def test_without_the_target_harmonic_the_error_is_one_plus_the_fits_size():
    # one bias-free ReLU layer has mu_3 = 0: the interpolant is orthogonal to cos 3θ on the equally spaced test grid
    for n in (32, 100):
        error, size = course.circle_fit(nh.mlp(1), 3, n), course.circle_fit_norm(nh.mlp(1), 3, n)
        assert error == pytest.approx(1 + size, abs=1e-8), f"expected {1 + size}, measured {error}"


def test_a_missing_mercer_coefficient_is_not_learned_and_a_present_one_is():
    assert course.circle_fit(nh.mlp(1), 3, 128) > 1, "one bias-free ReLU layer has no cos 3θ"
    assert course.circle_fit(nh.mlp(2), 3, 128) < 1e-2, "two layers learn cos 3θ"
    assert course.circle_fit(nh.mlp(1, "erf", sigma_w=1.0, sigma_b=0.5), 2, 128) < 1e-2, "erf with a bias: cos 2θ"


# ---------------------------------------------------------------- the bound

def test_label_moments_against_monte_carlo():
    mean, variance = course.label_moments()
    y = torch.cos(2 * nh.sphere(200_000, course.D, seed=3)[:, 0])
    assert mean == pytest.approx(float(y.mean()), abs=0.01), f"E y {mean} vs {float(y.mean())}"
    assert variance == pytest.approx(float(y.var()), abs=0.01), f"Var y {variance} vs {float(y.var())}"


def test_random_label_rows_interpolate_and_decompose_the_error():
    rows = course.random_label_rows((60, 120), 400)
    mean, variance = course.label_moments()
    for name, kind in rows.items():
        for row in kind:
            assert row.train < 1e-6, f"{name}: ridgeless regression interpolates, residual {row.train}"
            assert row.excess == pytest.approx(row.mse - row.spread - variance, abs=1e-10)
    for row in rows["random labels"]:       # independent labels: the cross term averages to 0
        assert abs(row.excess) < 4 * row.excess_se, f"excess {row.excess} vs standard error {row.excess_se}"
    for row in rows["true labels"]:         # dependent labels: the predictor explains part of y
        assert row.excess < -4 * row.excess_se, f"true labels: negative cross term expected, {row.excess}"


# ---------------------------------------------------------------- pictures and the explorer

def test_idea_figure_titles_give_the_effective_ranks():
    fig = course.idea_figure(n=60, shown=10)
    x = nh.sphere(60, course.D, seed=7)
    expected = [numpy_rank(nh.mlp(1).kernel(x).ntk), numpy_rank(nh.mlp(1).kernel(x + 3.0).ntk)]
    titles = [ax.get_title() for ax in fig.axes]
    for title, rank in zip(titles, expected):
        assert title.endswith(f"r_eff = {rank:.1f}"), f"title {title!r}, r_eff {rank:.2f}"
    plt.close(fig)


def test_idea_figure_annotations_give_the_top_shares_of_the_trace():
    fig = course.idea_figure(n=60, shown=12)
    x = nh.sphere(60, course.D, seed=7)
    shares = []
    for K in (nh.mlp(1).kernel(x).ntk, nh.mlp(1).kernel(x + 3.0).ntk):
        lam = np.sort(np.linalg.eigvalsh(K.numpy()))[::-1]
        shares.append(lam[0] / lam.sum())
    left = [t.get_text() for t in fig.axes[0].texts]
    right = [t.get_text() for t in fig.axes[1].texts]
    assert f"({shares[0]:.0%})" in left[0], f"left panel: expected {shares[0]:.0%} in {left}"
    assert "10 linear functions" in left[1], f"left panel: expected the 10 degree-1 functions in {left}"
    assert right[0].startswith(f"{shares[1]:.0%}"), f"right panel: expected {shares[1]:.0%} in {right}"
    plt.close(fig)


def test_centering_figure_draws_the_values_it_is_given():
    pairs = {"a": (1.36, 15.5), "b": (1.26, 1.26), "c": (11.9, 765.0)}
    fig = course.centering_figure(pairs)
    ax = fig.axes[0]
    heights = [bar.get_height() for bar in ax.patches]
    expected = [raw for raw, _ in pairs.values()] + [centered for _, centered in pairs.values()]
    np.testing.assert_allclose(heights, expected, rtol=1e-12,
                               err_msg=f"bar heights {heights}, expected raw then centered {expected}")
    texts = [t.get_text() for t in ax.texts]
    assert texts == [f"{value:.3g}" for value in expected], f"bar labels {texts}, expected {expected}"
    assert [t.get_text() for t in ax.get_xticklabels()] == list(pairs), "one tick label per pair"
    plt.close(fig)


SETTINGS = [(1, "relu", 0.0), (1, "relu", 2.0), (50, "erf", 0.0), (8, "erf", 0.0), (2, "gelu", 0.5),
            (30, "gelu", 0.25), (1, "erf", 0.0), (20, "erf", 1.0), (50, "leaky_relu", 1.0)]


@pytest.mark.parametrize("depth, activation, sigma_b", SETTINGS)
def test_every_explorer_sentence_states_what_was_measured(depth, activation, sigma_b):
    curves = course.rank_curves(depth, activation, sigma_b)
    arch = nh.mlp(depth, activation, sigma_w=1.4, sigma_b=sigma_b)
    K = arch.kernel(nh.sphere(400, course.D, seed=400)).ntk.numpy()
    raw = numpy_rank(K)
    lam, vectors = np.linalg.eigh(K)
    alignment = abs(vectors[:, -1].sum()) / math.sqrt(400)
    assert curves.raw[-1] == pytest.approx(raw, rel=1e-9) and curves.alignment == pytest.approx(alignment, abs=1e-9)
    # the finite-n curve follows the law within 3 % at every setting the explorer can show
    law = np.array([nh.effective_rank_finite(curves.limit, n) for n in curves.sizes])
    assert np.abs(np.array(curves.raw) / law - 1).max() < 0.03, f"law {law}, measured {curves.raw}"
    text = course.describe(depth, activation, sigma_b)
    if text.startswith("r_eff ≈ n"):
        assert raw > 0.99 * 400, text
        _, _, mean_square = monte_carlo_moments(arch, pairs=400)
        diagonal = float(arch.kernel(nh.sphere(1, course.D)).ntk[0, 0])
        assert f"{math.sqrt(mean_square) / diagonal:.1e}" in text or f"{curves.limit ** -0.5:.1e}" in text, text
        assert curves.limit ** -0.5 == pytest.approx(math.sqrt(mean_square) / diagonal, rel=0.2), text
    elif "constant vector" in text:
        assert raw < 2 and alignment > 0.9, text
    elif "levelled off" in text:
        assert raw >= 0.95 * curves.limit, text
    else:
        assert text.startswith("r_eff still grows") and raw < 0.95 * curves.limit, text


def test_the_explorer_draws_its_title_and_prints_one_line():
    out = StringIO()
    with redirect_stdout(out):
        course.draw_rank(1, "relu", 0.0)
    fig = plt.gcf()
    title = fig.axes[0].get_title()
    assert title == course.describe(1, "relu", 0.0) + "\n" + out.getvalue().strip(), title
    # the numbers in the title's last line, against an independent computation at n = 400
    K = nh.mlp(1, sigma_w=course.EXPLORER_SIGMA_W).kernel(nh.sphere(400, 10, seed=400)).ntk
    expected = f"r_eff = {nh.effective_rank(K):.2f}, centered {nh.effective_rank(K, centered=True):.1f}"
    assert expected in title.splitlines()[-1], f"expected {expected!r} in {title!r}"
    assert "r∞ = 16.71" in out.getvalue() and out.getvalue().count("\n") == 1, out.getvalue()
    plt.close(fig)


def test_the_explorer_rejects_a_negative_bias():
    with pytest.raises(ValueError):
        course.rank_curves(1, "relu", -0.5)


def test_ratio_text_prints_rounding_noise_as_zero():
    assert course.ratio_text(-6.7e-17) == "0 (rounding)" and course.ratio_text(4e-14) == "0 (rounding)"
    assert course.ratio_text(0.0203) == "2.0e-02", course.ratio_text(0.0203)
    assert course.ratio_text(2e-13) == "2.0e-13", "above the threshold the digits are printed"
