"""Depth propagation: collapse mechanism (AUDIT §2(c), E2) and order/chaos (E3)."""

import math

import pytest
import torch

import ntk_helpers as nh


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
    """1 - c_l ~ 9 pi^2 / (2 l^2): marginal stability of c* = 1, not dead units (AUDIT A3)."""
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
    q = float(nh.q_fixed_point("erf", sigma_w2=w2, sigma_b2=b2))
    assert q == pytest.approx(w2 * (2 / math.pi) * math.asin(2 * q / (1 + 2 * q)) + b2, rel=1e-12)
    chi = float(nh.chi1("erf", sigma_w2=w2, sigma_b2=b2))
    assert chi == pytest.approx(w2 * (4 / math.pi) / math.sqrt(1 + 4 * q), rel=1e-12)


def test_tanh_edge_of_chaos_matches_the_published_point():
    """Schoenholz et al. 2017: for tanh with sigma_b^2 = 0.05, chi_1 = 1 at sigma_w^2 ~ 1.76."""
    chi = nh.chi1("tanh", sigma_w2=torch.tensor([1.5, 1.761, 2.0]), sigma_b2=0.05)
    assert float(chi[0]) < 1 < float(chi[2])
    assert float(chi[1]) == pytest.approx(1.0, abs=5e-3)


def test_ordered_erf_ntk_tends_to_a_constant_matrix():
    """Ordered phase: Theta -> q*/(1 - chi_1) on every entry (AUDIT A4: 2.178 at (1, 0.05))."""
    x = nh.pair_at_angle(1.0, d=3)
    ntk = nh.mlp(200, "erf", sigma_w=1.0, sigma_b=math.sqrt(0.05)).kernel(x).ntk
    q = float(nh.q_fixed_point("erf", sigma_w2=1.0, sigma_b2=0.05))
    chi = float(nh.chi1("erf", sigma_w2=1.0, sigma_b2=0.05))
    torch.testing.assert_close(ntk, torch.full((2, 2), q / (1 - chi), dtype=torch.float64), rtol=1e-3, atol=0)
    assert q / (1 - chi) == pytest.approx(2.178, abs=1e-3)


def test_depth_helpers_check_arguments():
    with pytest.raises(ValueError, match="depth"):
        nh.mlp_kernels_by_depth(nh.sphere(3, 2), depth=0)
    with pytest.raises(ValueError, match="sigma_w2 and sigma_b2"):
        nh.q_fixed_point("erf", sigma_w2=-1.0, sigma_b2=0.0)
