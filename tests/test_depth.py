"""Depth propagation (lesson 02, section 4.1.2): the collapse mechanism of deep ReLU kernels, order and chaos
(Poole et al. 2016; Schoenholz et al. 2017), and the regime classifier of lesson 02's explorer."""

import math

import numpy as np
import pytest
import torch
from scipy import integrate, optimize

import ntk_helpers as nh
from ntk_helpers import REGIMES, self_kernels_by_depth, signal_regime


def test_kernels_by_depth_equal_the_mlp_kernels(x):
    by_depth = nh.mlp_kernels_by_depth(x, depth=6, activation="erf", sigma_w=1.3, sigma_b=0.2)
    for depth in (1, 4, 6):
        k = nh.mlp(depth, "erf", sigma_w=1.3, sigma_b=0.2).kernel(x)
        torch.testing.assert_close(by_depth.nngp[depth - 1], k.nngp, rtol=1e-13, atol=1e-13)
        torch.testing.assert_close(by_depth.ntk[depth - 1], k.ntk, rtol=1e-13, atol=1e-13)


def test_relu_correlation_map_closed_form():
    c = torch.linspace(-1, 1, 41, dtype=torch.float64)
    expected = (torch.sqrt(1 - c * c) + (math.pi - torch.arccos(c)) * c) / math.pi
    torch.testing.assert_close(nh.correlation_map(c, "relu"), expected, rtol=1e-12, atol=1e-12)


def test_relu_correlations_approach_one_like_inverse_depth_squared():
    """1 - c_l ~ 9 pi^2 / (2 l^2): marginal stability of c* = 1, not dead units (ERRATA.md A3)."""
    c = nh.correlation_trajectory(torch.tensor([0.0], dtype=torch.float64), 1000, "relu")[:, 0]
    ratio = lambda l: float((1 - c[l]) * l ** 2 / (9 * math.pi ** 2 / 2))
    assert 0.75 < ratio(100) < 0.87 and 0.93 < ratio(1000) < 1.0
    assert ratio(100) < ratio(1000)                      # the approach to the asymptote is slow


def test_deep_relu_ntk_tends_to_three_quarters_identity_plus_one_quarter():
    x = nh.pair_at_angle(math.pi / 2, d=2)
    by_depth = nh.mlp_kernels_by_depth(x, depth=1000, activation="relu")
    ntk_corr = by_depth.ntk[:, 0, 1] / by_depth.ntk[:, 0, 0]
    nngp_corr = by_depth.nngp[:, 0, 1] / by_depth.nngp[:, 0, 0]
    assert float(ntk_corr[-1]) == pytest.approx(0.2533, abs=2e-3)   # -> 1/4, full rank
    assert float(nngp_corr[-1]) > 0.999                              # NNGP -> all ones
    torch.testing.assert_close(by_depth.ntk[:, 0, 0], 2.0 * (by_depth.depths.double() + 1), rtol=1e-12, atol=0)


def test_erf_variance_fixed_point_and_chi1_closed_forms():
    w2, b2 = 1.7, 0.1
    q = float(nh.q_fixed_point("erf", sigma_w=math.sqrt(w2), sigma_b=math.sqrt(b2)))
    assert q == pytest.approx(w2 * (2 / math.pi) * math.asin(2 * q / (1 + 2 * q)) + b2, rel=1e-12)
    chi = float(nh.chi1("erf", sigma_w=math.sqrt(w2), sigma_b=math.sqrt(b2)))
    assert chi == pytest.approx(w2 * (4 / math.pi) / math.sqrt(1 + 4 * q), rel=1e-12)


def test_tanh_edge_of_chaos_matches_the_published_point():
    """Schoenholz et al. 2017: for tanh with sigma_b^2 = 0.05, chi_1 = 1 at sigma_w^2 ~ 1.76."""
    chi = nh.chi1("tanh", sigma_w=torch.tensor([1.5, 1.761, 2.0]).sqrt(), sigma_b=math.sqrt(0.05))
    assert float(chi[0]) < 1 < float(chi[2])
    assert float(chi[1]) == pytest.approx(1.0, abs=5e-3)


def test_ordered_erf_ntk_tends_to_a_constant_matrix():
    """Ordered phase: Theta -> q*/(1 - chi_1) on every entry (ERRATA.md A4: 2.178 at (1, 0.05))."""
    x = nh.pair_at_angle(1.0, d=3)
    ntk = nh.mlp(200, "erf", sigma_w=1.0, sigma_b=math.sqrt(0.05)).kernel(x).ntk
    q = float(nh.q_fixed_point("erf", sigma_w=1.0, sigma_b=math.sqrt(0.05)))
    chi = float(nh.chi1("erf", sigma_w=1.0, sigma_b=math.sqrt(0.05)))
    torch.testing.assert_close(ntk, torch.full((2, 2), q / (1 - chi), dtype=torch.float64), rtol=1e-3, atol=0)
    assert q / (1 - chi) == pytest.approx(2.178, abs=1e-3)


def test_depth_helpers_check_arguments():
    with pytest.raises(ValueError, match="depth"):
        nh.mlp_kernels_by_depth(nh.sphere(3, 2), depth=0)
    with pytest.raises(ValueError, match="sigma_w and sigma_b"):
        nh.q_fixed_point("erf", sigma_w=-1.0, sigma_b=0.0)
    with pytest.raises(ValueError, match="sigma_w and sigma_b"):
        nh.chi1("erf", sigma_w=torch.tensor([1.0, -1.0]), sigma_b=0.0)
    with pytest.raises(TypeError, match="sigma_w2"):
        nh.q_fixed_point("erf", sigma_w2=1.0, sigma_b2=0.0)        # one vocabulary: standard deviations


# -- the regime classifier and the self kernels (lesson 02's explorer) ------------------------------
# Oracles independent of the package: closed forms (relu, erf), scipy quadrature and root finding (tanh).

def _erf_q_star(w2, b2):
    gap = lambda q: w2 * (2 / math.pi) * math.asin(2 * q / (1 + 2 * q)) + b2 - q
    return optimize.brentq(gap, b2, w2 + b2 + 1, xtol=1e-15, rtol=1e-15)


def _erf_c_star(w2, b2, q):
    gap = lambda c: (w2 * (2 / math.pi) * math.asin(2 * c * q / (1 + 2 * q)) + b2) / q - c
    return optimize.brentq(gap, 0.0, 1 - 1e-6, xtol=1e-15, rtol=1e-15)


def _gauss(fn):
    """E[fn(z)], z ~ N(0, 1), by scipy's adaptive quadrature."""
    return integrate.quad(lambda z: fn(z) * math.exp(-z * z / 2) / math.sqrt(2 * math.pi), -12, 12,
                          epsabs=1e-14, epsrel=1e-13, limit=200)[0]


def _tanh_q_star(w2, b2):
    gap = lambda q: w2 * _gauss(lambda z: math.tanh(math.sqrt(q) * z) ** 2) + b2 - q
    return optimize.brentq(gap, max(b2, 1e-3), w2 + b2, xtol=1e-14, rtol=1e-14)


def _tanh_chi1(w2, q):
    return w2 * _gauss(lambda z: math.cosh(math.sqrt(q) * z) ** -4)


def test_regime_of_relu_matches_its_closed_forms():
    ordered = signal_regime("relu", sigma_w=math.sqrt(1.5), sigma_b=math.sqrt(0.3), q0=1.0)
    assert ordered.name == "ordered"
    assert ordered.q_star == pytest.approx(0.3 / (1 - 1.5 / 2), rel=1e-12)      # q* = b2 / (1 - w2/2)
    assert ordered.chi1 == pytest.approx(0.75, rel=1e-12)
    assert ordered.depth_scale == pytest.approx(-1 / math.log(0.75), rel=1e-12)
    vanishing = signal_regime("relu", sigma_w=math.sqrt(1.5), sigma_b=0.0, q0=2.0)
    assert (vanishing.name, vanishing.q_star, vanishing.c_star) == ("vanishing variance", 0.0, None)
    assert vanishing.chi1 == pytest.approx(0.75, rel=1e-12)                       # homogeneous: chi1 = w2/2
    growing = signal_regime("relu", sigma_w=math.sqrt(2.5), sigma_b=math.sqrt(0.1))
    assert (growing.name, growing.q_star) == ("growing variance", math.inf)
    assert growing.chi1 == pytest.approx(1.25, rel=1e-12)
    edge = signal_regime("relu", sigma_w=2 ** 0.5, sigma_b=0.0, q0=3.0)         # sigma_w^2 = 2 (1 + 2e-16)
    assert (edge.name, edge.q_star, edge.depth_scale) == ("edge of chaos", 3.0, math.inf)
    assert signal_regime("relu", sigma_w=2 ** 0.5, sigma_b=0.2).name == "growing variance"   # q_l = q0 + l b2


@pytest.mark.parametrize("w2, b2", [(1.0, 0.05), (0.6, 0.3), (3.0, 0.05), (4.0, 0.3), (2.0, 0.0)])
def test_regime_of_erf_matches_its_closed_forms(w2, b2):
    regime = signal_regime("erf", sigma_w=math.sqrt(w2), sigma_b=math.sqrt(b2))
    q = _erf_q_star(w2, b2) if b2 > 0 else optimize.brentq(
        lambda q: w2 * (2 / math.pi) * math.asin(2 * q / (1 + 2 * q)) - q, 1e-3, w2 + 1, xtol=1e-15, rtol=1e-15)
    chi = w2 * (4 / math.pi) / math.sqrt(1 + 4 * q)
    assert regime.q_star == pytest.approx(q, rel=1e-11)
    assert regime.chi1 == pytest.approx(chi, rel=1e-10)
    assert regime.name == ("ordered" if chi < 0.99 else "chaotic")
    if regime.name == "ordered":
        assert regime.c_star == 1.0 and regime.depth_scale == pytest.approx(-1 / math.log(chi), rel=1e-9)
    else:
        c = _erf_c_star(w2, b2, q) if b2 > 0 else 0.0                 # odd, no bias: c* = 0
        assert regime.c_star == pytest.approx(c, abs=1e-10)
        chi_c = w2 * (4 / math.pi) / math.sqrt((1 + 2 * q) ** 2 - (2 * c * q) ** 2)
        assert regime.depth_scale == pytest.approx(-1 / math.log(chi_c), rel=1e-8)


def test_regime_without_bias_is_degenerate_below_the_critical_slope():
    """sigma_b = 0: q* = 0 exactly when sigma_w^2 phi'(0)^2 <= 1 (tanh: 1, erf: pi/4), chaos above."""
    for activation, critical in (("tanh", 1.0), ("erf", math.pi / 4)):
        for w2 in (0.25 * critical, critical):          # at the critical point q_l -> 0 only like 1/l
            regime = signal_regime(activation, sigma_w=math.sqrt(w2), sigma_b=0.0, q0=w2)
            assert (regime.name, regime.q_star, regime.c_star) == ("vanishing variance", 0.0, None)
            assert regime.chi1 == pytest.approx(w2 / critical, rel=1e-6)     # sigma_w^2 phi'(0)^2
        chaotic = signal_regime(activation, sigma_w=math.sqrt(1.5 * critical), sigma_b=0.0)
        assert chaotic.name == "chaotic" and chaotic.c_star == 0.0 and chaotic.q_star > 0.1


def test_regime_of_tanh_against_scipy_quadrature():
    """Schoenholz et al. 2017: tanh at sigma_b^2 = 0.05 has its edge of chaos at sigma_w^2 ~ 1.76 (q* ~ 0.570)."""
    for w2, name in ((1.0, "ordered"), (1.761, "edge of chaos"), (3.0, "chaotic")):
        regime = signal_regime("tanh", sigma_w=math.sqrt(w2), sigma_b=math.sqrt(0.05))
        q = _tanh_q_star(w2, 0.05)
        assert regime.name == name
        assert regime.q_star == pytest.approx(q, rel=1e-7)
        assert regime.chi1 == pytest.approx(_tanh_chi1(w2, q), rel=1e-7)
    assert signal_regime("tanh", sigma_w=math.sqrt(1.761), sigma_b=math.sqrt(0.05)).q_star == pytest.approx(0.570, abs=1e-3)
    # the chaotic fixed point c* of the correlation map, by 2-D Gauss-Hermite quadrature in numpy
    regime = signal_regime("tanh", sigma_w=math.sqrt(3.0), sigma_b=math.sqrt(0.05))
    c_star = _tanh_c_star(3.0, 0.05, regime.q_star)
    assert 0 < regime.c_star < 1 and regime.c_star == pytest.approx(c_star, abs=1e-6)


def _tanh_c_map(w2, b2, q, c):
    """The tanh correlation map at variance q, by 2-D Gauss-Hermite quadrature in numpy."""
    z, w = np.polynomial.hermite_e.hermegauss(160)
    w = w / w.sum()
    u = math.sqrt(q) * z[:, None]
    v = math.sqrt(q) * (c * z[:, None] + math.sqrt(1 - c * c) * z[None, :])
    return (w2 * float(w @ (np.tanh(u) * np.tanh(v)) @ w) + b2) / q


def _tanh_c_star(w2, b2, q, high=0.999):
    return optimize.brentq(lambda c: _tanh_c_map(w2, b2, q, c) - c, 0.0, high, xtol=1e-13)


def test_edge_of_chaos_on_the_chaotic_side_keeps_the_true_limit_c_star():
    """|chi_1 - 1| <= 0.01 is labelled "edge of chaos", but with chi_1 > 1 pairs still settle at c* < 1."""
    # tanh, sigma_w = 1.05, no bias: chi_1 = 1.0029, and the odd bias-free map has c* = 0 exactly
    w2 = 1.05 ** 2
    regime = signal_regime("tanh", sigma_w=1.05, sigma_b=0.0, q0=w2)
    q = _tanh_q_star(w2, 0.0)
    assert regime.name == "edge of chaos"
    assert regime.q_star == pytest.approx(q, rel=1e-7)
    assert regime.chi1 == pytest.approx(_tanh_chi1(w2, q), rel=1e-7) and 1 < regime.chi1 < 1.01
    assert regime.c_star == 0.0
    assert _tanh_c_map(w2, 0.0, q, 0.0) == pytest.approx(0.0, abs=1e-15)       # c = 0 is a fixed point
    assert _tanh_c_map(w2, 0.0, q, 0.5) < 0.5                                  # and attracts c = 0.5
    # with a bias: tanh at (1.78, 0.05), chi_1 = 1.004, c* ~ 0.975 from the quadrature oracle
    regime = signal_regime("tanh", sigma_w=math.sqrt(1.78), sigma_b=math.sqrt(0.05))
    q = _tanh_q_star(1.78, 0.05)
    assert regime.name == "edge of chaos" and 1 < regime.chi1 < 1.01
    assert regime.q_star == pytest.approx(q, rel=1e-7)
    assert 0.9 < regime.c_star < 1 and regime.c_star == pytest.approx(_tanh_c_star(1.78, 0.05, q), abs=1e-6)
    # on the ordered side of the band the limit stays c* = 1
    below = signal_regime("tanh", sigma_w=math.sqrt(1.74), sigma_b=math.sqrt(0.05))
    assert below.name == "edge of chaos" and below.chi1 < 1 and below.c_star == 1.0


def test_regime_names_and_argument_checks():
    assert set(REGIMES) == {"ordered", "edge of chaos", "chaotic", "vanishing variance", "growing variance"}
    with pytest.raises(ValueError, match="q0"):
        signal_regime("tanh", sigma_w=1.0, sigma_b=0.0, q0=0.0)
    with pytest.raises(ValueError, match="sigma_b"):
        signal_regime("tanh", sigma_w=1.0, sigma_b=-0.1)
    with pytest.raises(ValueError, match="unknown activation"):
        signal_regime("sigmoid", sigma_w=1.0, sigma_b=0.0)


@pytest.mark.parametrize("activation, sigma_w, sigma_b", [("relu", 1.3, 0.4), ("erf", 1.2, 0.3), ("tanh", 0.9, 0.2)])
def test_self_kernels_are_the_diagonal_of_the_kernels_by_depth(activation, sigma_w, sigma_b):
    x = nh.sphere(3, d=4, seed=5)                           # |x|^2 = d, so x.x/d = 1
    by_depth = nh.mlp_kernels_by_depth(x, depth=12, activation=activation, sigma_w=sigma_w, sigma_b=sigma_b)
    nngp, ntk = self_kernels_by_depth(1.0, depth=12, activation=activation, sigma_w=sigma_w, sigma_b=sigma_b)
    rtol = 1e-13 if activation != "tanh" else 1e-9        # tanh: the pair quadrature vs the 1-D one
    for i in range(3):
        torch.testing.assert_close(by_depth.nngp[:, i, i], nngp, rtol=rtol, atol=0)
        torch.testing.assert_close(by_depth.ntk[:, i, i], ntk, rtol=rtol, atol=0)


def test_self_kernels_stay_exact_in_the_chaotic_phase():
    """Chaotic phase: Sigma(x, x) sits at q*, and Theta(x, x) -> q* + chi_1 Theta(x, x) grows by chi_1 per layer."""
    regime = signal_regime("tanh", sigma_w=2.5, sigma_b=0.0, q0=2.5 ** 2)
    nngp, ntk = self_kernels_by_depth(1.0, depth=100, activation="tanh", sigma_w=2.5, sigma_b=0.0)
    torch.testing.assert_close(nngp[-1], torch.tensor(regime.q_star, dtype=torch.float64), rtol=1e-9, atol=0)
    assert float(ntk[-1] / ntk[-2]) == pytest.approx(regime.chi1, rel=1e-9)


def test_one_default_activation_and_the_overflow_check_of_serial():
    import inspect
    for fn in (nh.q_fixed_point, nh.chi1, nh.correlation_map, nh.correlation_trajectory, nh.signal_regime,
               nh.mlp_kernels_by_depth, nh.self_kernels_by_depth, nh.mlp):
        assert inspect.signature(fn).parameters["activation"].default == "relu", fn.__name__
    with pytest.raises(OverflowError, match="depth 2.*float64 range"):
        nh.mlp_kernels_by_depth(nh.sphere(2, 3), depth=5, sigma_w=1e60)
    with pytest.raises(OverflowError, match="depth 2.*float64 range"):
        self_kernels_by_depth(1.0, depth=5, sigma_w=1e60)


def test_grids_of_standard_deviations_match_single_values():
    sigma_w = torch.tensor([0.8, 1.2, 1.6], dtype=torch.float64)
    grid = nh.correlation_trajectory(torch.full((3,), 0.3, dtype=torch.float64), 5, "tanh", sigma_w=sigma_w,
                                     sigma_b=0.3)
    for i, w in enumerate(sigma_w.tolist()):
        single = nh.correlation_trajectory(torch.tensor([0.3], dtype=torch.float64), 5, "tanh", sigma_w=w,
                                           sigma_b=0.3)[:, 0]
        torch.testing.assert_close(grid[:, i], single, rtol=1e-14, atol=0)
        assert float(nh.chi1("tanh", sigma_w=sigma_w, sigma_b=0.3)[i]) == pytest.approx(
            float(nh.chi1("tanh", sigma_w=w, sigma_b=0.3)), rel=1e-14)
