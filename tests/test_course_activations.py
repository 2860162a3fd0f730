"""Lesson 06's machinery (ntk_helpers.course.activations), against independent computations and closed forms."""

import math

import numpy as np
import pytest
import torch

import ntk_helpers as nh
from ntk_helpers.course import activations as course


def relu_ntk_one_layer(t):
    """The one-hidden-layer bias-free ReLU NTK of nh.mlp(1) (sigma_w^2 = 2, x.x/d = 1) at cos(angle) = t, from the
    arc-cosine kernels k0, k1 (Cho & Saul 2009): first layer Sigma1 = Theta1 = 2t (diagonal 2); readout
    Theta = 2 E[phi phi] + 2 E[phi' phi'] Theta1 = 2 k1(t) + 2 t k0(t) (E[phi phi] = k1, E[phi' phi'] = k0/2 at variance 2)."""
    theta = np.arccos(np.clip(t, -1, 1))
    k0 = (math.pi - theta) / math.pi
    k1 = (np.sin(theta) + (math.pi - theta) * np.cos(theta)) / math.pi
    # first layer: Sigma1 = Theta1 = 2 t; readout: Sigma2 = 2 * (Sigma1 scale) * k1 / 2, Theta2 = Sigma2 + 2 k0/2 Theta1
    return 2 * k1 + 2 * t * k0


def test_circle_kernel_matches_the_package_row():
    row = course.circle_kernels("relu", math.sqrt(2))[0]
    _, circle = nh.circle(course.POINTS)
    direct = nh.mlp(1, "relu").kernel(circle[:1], circle).ntk[0]
    assert torch.allclose(row, direct, rtol=1e-12, atol=1e-12), \
        f"circle_kernels vs the package: largest gap {float((row - direct).abs().max()):.2e}, expected < 1e-12"


def test_relu_kernel_matches_the_arc_cosine_closed_form():
    angles = torch.arange(course.POINTS, dtype=torch.float64) * 2 * math.pi / course.POINTS
    row = course.circle_kernels("relu", math.sqrt(2))[0].numpy()
    expected = relu_ntk_one_layer(np.cos(angles.numpy()))
    assert np.allclose(row, expected, rtol=1e-10), \
        f"ReLU NTK vs arc-cosine closed form: largest relative gap {np.abs(row / expected - 1).max():.2e}"


def test_circle_spectrum_reconstructs_the_kernel():
    mu = course.circle_spectrum("tanh", 2, 1.2, 0.3)
    row = course.circle_kernels("tanh", 1.2, 0.3)[1].numpy()
    points = course.points_for("tanh")
    angles = np.arange(points) * 2 * math.pi / points
    k = np.arange(1, points // 2)
    rebuilt = mu[0] + 2 * (mu[k, None] * np.cos(k[:, None] * angles)).sum(0) + mu[-1] * np.cos(points // 2 * angles)
    assert np.allclose(rebuilt, row, rtol=1e-10, atol=1e-12), \
        f"Fourier series of μ_k vs the kernel: largest gap {np.abs(rebuilt - row).max():.2e}, expected < 1e-10"


def test_relu_circle_coefficients_closed_form():
    """mu_2 of the one-layer ReLU NTK, by direct numerical integration of the closed form (independent of the FFT)."""
    mu = course.circle_spectrum("relu", 1, math.sqrt(2))
    theta = np.linspace(0, 2 * math.pi, 200001)
    values = relu_ntk_one_layer(np.cos(theta))
    for k in (0, 1, 2, 4):
        direct = np.trapezoid(values * np.cos(k * theta), theta) / (2 * math.pi)
        # the FFT adds the aliases mu_(POINTS - k) + mu_(POINTS + k) + ... ~ 2 * 0.3 POINTS^-2 mu_max ~ 1e-6 mu_max
        assert abs(mu[k] - direct) < 1e-5 * abs(mu[0]), f"μ_{k}: FFT {mu[k]:.8f}, direct integral {direct:.8f}"


def test_erf_rate_predicts_the_step_ratio():
    for sigma_w in (1.0, 1.5, 2.0):
        mu = course.circle_spectrum("erf", 1, sigma_w)
        ratio = course.step_ratio(mu, 25) / course.erf_rate(sigma_w) ** 2
        assert 0.93 < ratio < 1.0, f"σ_w = {sigma_w}: step ratio at k = 25 / r² = {ratio:.4f}, expected in (0.93, 1)"


def test_erf_rate_formula():
    # r = rho0 - sqrt(rho0^2 - 1) solves r + 1/r = 2 rho0
    for sigma_w in (0.5, 1.0, 3.0):
        r = course.erf_rate(sigma_w)
        rho0 = 1 + 1 / (2 * sigma_w ** 2)
        assert abs(r + 1 / r - 2 * rho0) < 1e-12 and 0 < r < 1, f"σ_w = {sigma_w}: r = {r}, r + 1/r = {r + 1 / r}, " \
                                                                 f"expected 2ρ0 = {2 * rho0}"


def test_quadrature_floor_is_honest():
    """erf through the quadrature the package uses for tanh, against erf's closed form: coefficient errors far below
    the floor the lesson applies to tanh."""
    _, circle = nh.circle(course.POINTS)
    for sigma_w in (1.0, 2.0):
        by_quadrature = nh.mlp(1, nh.elementwise(torch.erf, "erf"), sigma_w=sigma_w).kernel(circle[:1], circle).ntk[0]
        error = (torch.fft.rfft(by_quadrature).real / course.POINTS).numpy() - course.circle_spectrum("erf", 1, sigma_w)
        relative = np.abs(error).max() / np.abs(course.circle_spectrum("erf", 1, sigma_w)).max()
        assert relative < course.QUADRATURE_FLOOR / 10, \
            f"σ_w = {sigma_w}: quadrature error {relative:.1e} μ_max, expected below {course.QUADRATURE_FLOOR / 10:.0e}"


def test_fine_tanh_spectrum_is_converged_and_bounds_the_package_error():
    """The independent numpy quadrature: converged (a still finer grid changes nothing above 1e-14 mu_max), and the
    package's tanh coefficients differ from it by the amounts the lesson states (<= 3e-11 mu_max, ~1e-12 at k >= 25)."""
    fine = course.fine_tanh_spectrum(1.0)
    finer = course.fine_tanh_spectrum(1.0, step=0.05, half_range=12.0)
    change = np.abs(finer - fine).max() / fine[1]
    assert change < 1e-14, f"step 0.1 -> 0.05: change {change:.1e} mu_max, expected < 1e-14"
    package = course.circle_spectrum("tanh", 1, 1.0)
    error = np.abs(package - fine) / fine[1]
    assert 1e-12 < error.max() < 3e-11, f"largest package error {error.max():.1e} mu_max, expected 1e-12 .. 3e-11"
    assert error[25:].max() < 2e-12, f"package error at k >= 25: {error[25:].max():.1e} mu_max, expected < 2e-12"
    assert abs(fine[27] / fine[1] / 5.44e-11 - 1) < 0.01, f"mu_27/mu_1 = {fine[27] / fine[1]:.3e}, expected 5.44e-11"
    even = np.abs(fine[2::2]).max() / fine[1]
    assert even < 1e-15, f"even coefficients of an odd kernel: {even:.1e} mu_max, expected < 1e-15"


def test_fine_tanh_spectrum_matches_the_linear_limit():
    """For small sigma_w tanh is nearly linear: the one-layer NTK tends to 2 sigma_w^4 rho, so mu_1 -> sigma_w^4
    (the Fourier coefficient of cos) and mu_1 / sigma_w^4 = 1 - O(sigma_w^2)."""
    for sigma_w in (0.01, 0.03):
        mu = course.fine_tanh_spectrum(sigma_w)
        assert abs(mu[1] / sigma_w ** 4 - 1) < 10 * sigma_w ** 2, \
            f"sigma_w = {sigma_w}: mu_1 / sigma_w^4 = {mu[1] / sigma_w ** 4}, expected 1 within {10 * sigma_w ** 2}"


def test_local_exponent_and_step_ratio_on_known_sequences():
    k = np.arange(200, dtype=float)
    power = np.where(k > 0, (k + (k == 0)) ** -2.5, 1.0)
    geometric = 0.7 ** k
    assert abs(course.local_exponent(power, 50) - 2.5) < 1e-12, f"k^-2.5: exponent {course.local_exponent(power, 50)}"
    assert abs(course.step_ratio(geometric, 30) - 0.49) < 1e-12, f"0.7^k: step ratio {course.step_ratio(geometric, 30)}"


def test_sphere_coefficients_reconstruct_the_kernel():
    """Funk-Hecke: kappa(t) = sum_k (2k + 1) mu_k P_k(t) on S^2 (erf: the series converges fast)."""
    mu = course.sphere_coefficients("erf", 1.0)
    t = np.array([-0.7, 0.0, 0.3, 0.9])
    points = torch.zeros(5, 3, dtype=torch.float64)
    points[0, 0] = 1.0
    points[1:, 0], points[1:, 1] = torch.from_numpy(t), torch.from_numpy(np.sqrt(1 - t ** 2))
    kappa = nh.mlp(1, "erf", sigma_w=1.0).kernel(points[:1] * math.sqrt(3), points[1:] * math.sqrt(3)).ntk[0].numpy()
    series = np.polynomial.legendre.legval(t, (2 * np.arange(len(mu)) + 1) * mu)
    assert np.allclose(series, kappa, atol=1e-10), f"Legendre series {series} vs kernel {kappa}"


def test_sphere_relu_coefficients_against_the_gram_matrix_trace():
    """The operator's trace sum_k (2k+1) mu_k equals kappa(1) = Theta(x, x) (Mercer), to the truncation error."""
    mu = course.sphere_coefficients("relu", math.sqrt(2), degrees=60)
    trace = float(((2 * np.arange(61) + 1) * mu).sum())
    theta_xx = float(nh.mlp(1, "relu").kernel(nh.sphere(1, d=3)).ntk)
    assert abs(trace / theta_xx - 1) < 0.01, f"Σ(2k+1)μ_k = {trace:.4f}, Θ(x, x) = {theta_xx:.4f} (1 % expected)"


def test_staircase_multiplicities():
    mu = np.array([1.0, 0.5, 0.25, 0.0, 0.1])
    stairs = course.staircase(mu)
    expected = [1.0] + [0.5] * 3 + [0.25] * 5 + [0.1] * 9
    assert list(stairs) == expected, f"staircase {list(stairs)}, expected {expected}"


@pytest.mark.parametrize("activation", course.ACTIVATIONS)
@pytest.mark.parametrize("sigma_b", [0.0, 0.4])
def test_explorer_story_matches_the_numbers(activation, sigma_b):
    """The parity sentence of the explorer is true: the modes it says are absent are below the floor."""
    for depth in (1, 2, 12):
        mu = course.circle_spectrum(activation, depth, 1.3, sigma_b)
        top = np.abs(mu).max()
        even = np.abs(mu[2:course.K_MAX:2]).max() / top
        odd = np.abs(mu[3:course.K_MAX:2]).max() / top
        floor = course.noise_floor(activation)
        text = course.describe(activation, depth, 1.3, sigma_b)
        if sigma_b > 0:
            assert even > 1e3 * floor and odd > 1e3 * floor, f"{text}: even {even:.1e}, odd {odd:.1e}"
        elif activation in ("tanh", "erf"):
            assert even < 1e-14 and "only odd k" in text, f"{text}: even {even:.1e}, expected < 1e-14"
        elif depth == 1:
            assert odd < 1e-14 and "no odd" in text, f"{text}: odd {odd:.1e}, expected < 1e-14"
        else:
            assert odd > 1e-3 and "appear" in text, f"{text}: odd {odd:.1e}, expected > 1e-3"


@pytest.mark.parametrize("activation", course.ACTIVATIONS)
def test_explorer_title_is_true(activation):
    for sigma_w, sigma_b, depth in [(0.5, 1.0, 12), (1.0, 0.0, 1), (2.5, 0.0, 12), (1.5, 0.3, 6)]:
        mu = course.circle_spectrum(activation, depth, sigma_w, sigma_b)
        title = course.title(activation, depth, sigma_w, sigma_b)
        relative = np.abs(mu[:course.K_MAX + 1]) / np.abs(mu).max()
        last = int(np.nonzero(relative > course.noise_floor(activation))[0].max())
        if activation == "relu":
            assert abs(course.local_exponent(mu, 40) - 2) < 0.05, f"{title}: exponent {course.local_exponent(mu, 40)}"
        elif "from k = " in title:
            assert f"from k = {last + 1} on" in title and np.all(relative[last + 1:] <= course.noise_floor(activation))
        elif "beyond the plot" in title:
            assert last >= course.K_MAX - 1, f"{title}: last k above the floor {last}"
        else:
            assert last <= 2, f"{title}: last k above the floor {last}"
