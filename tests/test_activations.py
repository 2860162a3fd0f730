"""Dual kernels of every registered activation against independent oracles.

Every test that loops over activations takes them from ``nh.ACTIVATIONS``, so an activation added with
``@register`` gets, without touching this file: its closed form (if any) against quadrature, its dual against
Monte Carlo samples of the Gaussian pair (u, v), and its variance map against scipy's adaptive integration and
against the pair dual at cov = var. (Finite-network and homogeneity tests: ``test_kernels.py``.)
"""

import math
import re

import pytest
import torch
from scipy import integrate

import ntk_helpers as nh
from ntk_helpers.engine import quadrature

ACTIVATIONS = sorted(nh.ACTIVATIONS)
CLOSED_FORMS = [name for name in ACTIVATIONS if nh.ACTIVATIONS[name]().has_closed_form]
# the quadrature is exact to ~1e-8 for smooth functions only; kinked ones (relu, leaky_relu) need their closed form
SMOOTH_CLOSED_FORMS = [name for name in CLOSED_FORMS if not quadrature.kinks(nh.ACTIVATIONS[name]().fn)]

# (var1, var2, cov) triples: unequal variances, correlations from -0.95 to 1
V1 = torch.tensor([0.3, 1.0, 2.5, 4.0, 1.0, 0.7], dtype=torch.float64)
V2 = torch.tensor([1.7, 1.0, 0.5, 3.0, 1.0, 2.2], dtype=torch.float64)
RHO = torch.tensor([-0.95, 0.0, 0.5, 0.999, 1.0, -0.3], dtype=torch.float64)
COV = RHO * (V1 * V2).sqrt()


def relative_gap(a, b):
    """max |a - b| over the triples, relative to the largest |b| (duals may vanish at single triples)."""
    return float((a - b).abs().max() / b.abs().max().clamp_min(1e-300))


@pytest.mark.parametrize("name", SMOOTH_CLOSED_FORMS)
def test_closed_form_matches_quadrature(name):
    """The closed-form dual against the quadrature the package would use without it (``nh.elementwise``)."""
    act = nh.ACTIVATIONS[name]()
    e, e_dot = act.dual(V1, V2, COV)
    e_q, e_dot_q = quadrature.pair_expectations(act.fn, V1, V2, COV)
    assert relative_gap(e, e_q) < 1e-6, f"{name}: E[phi phi] closed form {e.tolist()} vs quadrature {e_q.tolist()}"
    assert relative_gap(e_dot, e_dot_q) < 1e-6, (
        f"{name}: E[phi' phi'] closed form {e_dot.tolist()} vs quadrature {e_dot_q.tolist()}")


def monte_carlo(fn, var1, var2, cov, n=400_000, seed=0):
    """Mean and standard error of phi(u)phi(v) and phi'(u)phi'(v) from sampled Gaussian pairs."""
    g = torch.Generator().manual_seed(seed)
    z1, z2 = torch.randn(2, n, generator=g, dtype=torch.float64)
    rho = cov / math.sqrt(var1 * var2)
    u = math.sqrt(var1) * z1
    v = math.sqrt(var2) * (rho * z1 + math.sqrt(max(1 - rho * rho, 0.0)) * z2)
    out = []
    for a, b in [(fn(u), fn(v)), (quadrature.derivative(fn, u), quadrature.derivative(fn, v))]:
        prod = a * b
        out.append((float(prod.mean()), float(prod.std() / math.sqrt(n))))
    return out


@pytest.mark.parametrize("name", ACTIVATIONS)
def test_dual_matches_monte_carlo(name):
    act = nh.ACTIVATIONS[name]()
    e, e_dot = act.dual(V1, V2, COV)
    for i in range(len(V1)):
        (mc_e, se_e), (mc_d, se_d) = monte_carlo(act.fn, float(V1[i]), float(V2[i]), float(COV[i]), seed=i)
        triple = (float(V1[i]), float(V2[i]), float(COV[i]))
        # 5 standard errors, plus 1e-12 for pairs where the product is constant (identity at rho = 1: se ~ 0)
        assert abs(float(e[i]) - mc_e) <= 5 * se_e + 1e-12 * abs(mc_e), (name, triple, float(e[i]), mc_e, se_e)
        assert abs(float(e_dot[i]) - mc_d) <= 5 * se_d + 1e-12 * abs(mc_d), (name, triple, float(e_dot[i]), mc_d, se_d)


def _gaussian_mean(g, var):
    """E[g(sqrt(var) z)] for z ~ N(0, 1) by scipy's adaptive quadrature (breakpoint at 0 for kinks there)."""
    s = math.sqrt(var)
    return integrate.quad(lambda z: g(s * z) * math.exp(-z * z / 2) / math.sqrt(2 * math.pi), -12, 12,
                          points=[0.0], limit=400, epsabs=1e-14, epsrel=1e-12)[0]


@pytest.mark.parametrize("name", ACTIVATIONS)
def test_variance_map_matches_adaptive_quadrature_and_the_pair_dual(name):
    """``diagonal(q) = (E[phi(u)^2], E[phi'(u)^2])``: the variance (q) map of mean-field theory, by a 1-D scipy
    integral, and equal to the pair dual at cov = var (the Gram diagonal uses the former, the rest the latter)."""
    act = nh.ACTIVATIONS[name]()
    var = torch.tensor([0.05, 0.8, 3.0, 40.0], dtype=torch.float64)
    mean_sq, mean_dsq = act.diagonal(var)
    phi = lambda t: float(act.fn(torch.tensor([t], dtype=torch.float64)))
    dphi = lambda t: float(quadrature.derivative(act.fn, torch.tensor([t], dtype=torch.float64)))
    for i, q in enumerate(var.tolist()):
        expected = (_gaussian_mean(lambda t: phi(t) ** 2, q), _gaussian_mean(lambda t: dphi(t) ** 2, q))
        assert float(mean_sq[i]) == pytest.approx(expected[0], rel=1e-7, abs=1e-300), (name, q)
        assert float(mean_dsq[i]) == pytest.approx(expected[1], rel=1e-7, abs=1e-300), (name, q)
    e, e_dot = act.dual(var, var, var)
    torch.testing.assert_close(e, mean_sq, rtol=1e-9, atol=0)
    torch.testing.assert_close(e_dot, mean_dsq, rtol=1e-9, atol=0)


@pytest.mark.parametrize("name", ACTIVATIONS)
def test_closed_forms_work_beyond_the_quadratures_range(name):
    """What ``has_closed_form`` promises, checked by behaviour: a closed form evaluates at variances the
    quadrature refuses (and agrees with Monte Carlo there); a quadrature dual says why it cannot."""
    act = nh.ACTIVATIONS[name]()
    big = 4 * quadrature.MAX_VARIANCE
    var1, var2, cov = (torch.tensor([v], dtype=torch.float64) for v in (big, 0.5 * big, 0.3 * big / 2 ** 0.5))
    if not act.has_closed_form:
        with pytest.raises(ValueError, match="variance"):
            act.dual(var1, var2, cov)
        return
    e, e_dot = act.dual(var1, var2, cov)
    (mc_e, se_e), (mc_d, se_d) = monte_carlo(act.fn, float(var1), float(var2), float(cov), seed=7)
    assert abs(float(e) - mc_e) <= 5 * se_e + 1e-12 * abs(mc_e), (name, float(e), mc_e, se_e)
    assert abs(float(e_dot) - mc_d) <= 5 * se_d + 1e-12 * abs(mc_d), (name, float(e_dot), mc_d, se_d)


# -- special values and the quadrature's own accuracy -------------------------------------------

def test_relu_closed_form_special_values():
    act = nh.relu()
    var = torch.tensor([0.5, 2.0, 7.0], dtype=torch.float64)
    e, e_dot = act.dual(var, var, var)                       # same input twice
    torch.testing.assert_close(e, var / 2)                   # E[relu(u)^2] = q/2
    torch.testing.assert_close(e_dot, torch.full_like(var, 0.5))
    e, e_dot = act.dual(var, var, torch.zeros_like(var))     # independent: E[relu]^2 = q/(2 pi)
    torch.testing.assert_close(e, var / (2 * math.pi))
    torch.testing.assert_close(e_dot, torch.full_like(var, 0.25))
    e, _ = act.dual(var, var, -var)                          # u = -v: relu(u) relu(-u) = 0
    torch.testing.assert_close(e, torch.zeros_like(var), atol=1e-15, rtol=0)


def test_leaky_relu_with_slope_one_is_the_identity():
    leaky = nh.leaky_relu(1.0)
    ident = nh.identity()
    for a, b in zip(leaky.dual(V1, V2, COV), ident.dual(V1, V2, COV)):
        torch.testing.assert_close(a, b, rtol=1e-13, atol=1e-13)


def _sech(t):
    a = math.exp(-abs(t))
    return 2 * a / (1 + a * a)


def _adaptive(g):
    return integrate.quad(lambda z: g(z) * math.exp(-z * z / 2) / math.sqrt(2 * math.pi), -40, 40,
                          points=[0.0], limit=2000, epsabs=1e-15, epsrel=1e-13)[0]


@pytest.mark.parametrize("q", [0.01, 1.0, 5.0, 20.0, 100.0, quadrature.MAX_VARIANCE])
def test_tanh_quadrature_is_accurate_up_to_the_variance_limit(q):
    mean_sq, mean_dsq = quadrature.diagonal_expectations(torch.tanh, torch.tensor([q], dtype=torch.float64))
    s = math.sqrt(q)
    assert float(mean_sq) == pytest.approx(_adaptive(lambda z: math.tanh(s * z) ** 2), rel=1e-8)
    assert float(mean_dsq) == pytest.approx(_adaptive(lambda z: _sech(s * z) ** 4), rel=1e-8)


@pytest.mark.parametrize("q1,q2,rho", [(1.0, 2.0, 0.6), (5.0, 3.0, -0.9), (20.0, 20.0, 0.99)])
def test_tanh_pair_quadrature_matches_adaptive_2d(q1, q2, rho):
    cov = rho * math.sqrt(q1 * q2)
    e, e_dot = quadrature.pair_expectations(torch.tanh, *(torch.tensor([v], dtype=torch.float64) for v in (q1, q2, cov)))
    s1, s2, perp = math.sqrt(q1), math.sqrt(q2), math.sqrt(1 - rho * rho)

    def expect(g):  # iterated adaptive integration over (z1, z2)
        inner = lambda z1: _adaptive(lambda z2: g(s1 * z1, s2 * (rho * z1 + perp * z2)))
        return _adaptive(inner)

    assert float(e) == pytest.approx(expect(lambda u, v: math.tanh(u) * math.tanh(v)), rel=1e-7)
    sech2 = lambda t: _sech(t) ** 2
    assert float(e_dot) == pytest.approx(expect(lambda u, v: sech2(u) * sech2(v)), rel=1e-7)


def test_quadrature_refuses_variances_it_cannot_handle():
    with pytest.raises(ValueError, match="variance"):
        quadrature.diagonal_expectations(torch.tanh, torch.tensor([quadrature.MAX_VARIANCE * 2], dtype=torch.float64))


def test_custom_elementwise_function_uses_quadrature():
    sin_layer = nh.elementwise(torch.sin, name="sin")
    var = torch.tensor([0.5, 2.0], dtype=torch.float64)
    cov = torch.tensor([0.3, -1.0], dtype=torch.float64)
    e, e_dot = sin_layer.dual(var, var, cov)
    # closed form for sin: E[sin u sin v] = exp(-q) sinh(cov), E[cos u cos v] = exp(-q) cosh(cov)
    torch.testing.assert_close(e, torch.exp(-var) * torch.sinh(cov), rtol=1e-9, atol=1e-12)
    torch.testing.assert_close(e_dot, torch.exp(-var) * torch.cosh(cov), rtol=1e-9, atol=1e-12)


def test_unknown_activation_names_every_registered_one():
    with pytest.raises(ValueError, match="unknown activation 'sigmoid'; allowed values: ") as error:
        nh.as_activation("sigmoid")
    listed = re.search("allowed values: (.*)$", str(error.value)).group(1).split(", ")
    assert sorted(listed) == ACTIVATIONS
    with pytest.raises(TypeError, match="activation"):
        nh.as_activation(3)
    with pytest.raises(ValueError, match="negative_slope"):
        nh.leaky_relu(float("nan"))
    with pytest.raises(TypeError, match="callable"):
        nh.elementwise("tanh")


def test_gelu_dual_stays_accurate_at_huge_variance():
    """For large inputs GELU is ReLU: E[gelu(u)^2] -> q/2 and E[gelu'(u)^2] -> 1/2 (the arc-cosine values). The
    closed form used to cancel catastrophically past q ~ 1e8 (1e16: E = 1.6e133), e.g. in deep alpha = 1 ResNets."""
    gelu = nh.gelu()
    for q in [1e8, 1e16, 1e30]:
        v = torch.tensor([q], dtype=torch.float64)
        e, e_dot = gelu.dual(v, v, v)
        assert abs(float(e) / q - 0.5) < 1e-6 and abs(float(e_dot) - 0.5) < 1e-3, (q, float(e), float(e_dot))
    x = nh.sphere(4, 5, seed=0)
    ntk = nh.resnet(60, "gelu", alpha=1.0).kernel(x).ntk
    assert torch.isfinite(ntk).all(), "a deep alpha = 1 GELU ResNet must give a finite NTK (or raise OverflowError)"


def test_kinks_are_found_and_elementwise_warns_about_them():
    """The quadrature's accuracy needs a smooth phi: kinks are located, and elementwise() says so."""
    assert quadrature.kinks(torch.relu) == [0.0]
    assert quadrature.kinks(lambda x: torch.clamp(x, -1, 1)) == [-1.0, 1.0]
    for smooth in (torch.tanh, torch.erf, torch.nn.functional.gelu, torch.exp, lambda x: x * x.abs()):
        assert quadrature.kinks(smooth) == []
    with pytest.warns(UserWarning, match=r"derivative jumps at x = \[0.0\]"):
        relu_by_quadrature = nh.elementwise(torch.relu, "relu_q")
    gap = relative_gap(relu_by_quadrature.dual(V1, V2, COV)[1], nh.relu().dual(V1, V2, COV)[1])
    assert gap > 0.01, f"the warning is needed: quadrature vs closed form differ by {gap:.3g} for ReLU"
