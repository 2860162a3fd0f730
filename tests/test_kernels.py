"""Analytic NNGP/NTK against independent oracles: special closed forms, finite networks, Monte Carlo."""

import math

import numpy as np
import pytest
import torch

import ntk_helpers as nh

ACTIVATIONS = sorted(nh.ACTIVATIONS)


def positively_homogeneous(fn) -> bool:
    """phi(c t) = c phi(t) for c > 0 (checked at c = 2 and 1/2 on both half-lines): the ReLU family."""
    t = torch.cat([-torch.logspace(-3, 2, 41, dtype=torch.float64), torch.logspace(-3, 2, 41, dtype=torch.float64)])
    return all(torch.allclose(fn(c * t), c * fn(t), rtol=1e-12, atol=0) for c in (2.0, 0.5))


HOMOGENEOUS = [name for name in ACTIVATIONS if positively_homogeneous(nh.ACTIVATIONS[name]().fn)]


# -- closed-form special values ---------------------------------------------------------------

@pytest.mark.parametrize("depth", [1, 2, 5, 12])
def test_relu_at_edge_of_chaos_has_ntk_diagonal_depth_plus_one_times_q(x, depth):
    k = nh.mlp(depth, "relu", sigma_w=math.sqrt(2), sigma_b=0.0).kernel(x)
    q = 2 * (x * x).sum(1) / x.shape[1]                      # Sigma^(1)(x, x) = sigma_w^2 |x|^2 / d
    torch.testing.assert_close(torch.diagonal(k.ntk), (depth + 1) * q, rtol=1e-12, atol=0)
    torch.testing.assert_close(torch.diagonal(k.nngp), q, rtol=1e-12, atol=0)


@pytest.mark.parametrize("depth,sigma_w,sigma_b", [(3, 1.3, 0.0), (5, 1.0, 0.55), (2, 0.8, 1.2)])
def test_deep_linear_network_matches_its_unrolled_closed_form(x, x_other, depth, sigma_w, sigma_b):
    """Identity activation: Sigma^(l+1) = w2 Sigma^(l) + b2 and Theta = sum_l Sigma^(l) w2^(L+1-l)."""
    w2, b2 = sigma_w ** 2, sigma_b ** 2
    linear = x @ x_other.T / x.shape[1]
    sigmas = [w2 * linear + b2]
    for _ in range(depth):
        sigmas.append(w2 * sigmas[-1] + b2)
    theta = sum(s * w2 ** (depth - l) for l, s in enumerate(sigmas))
    k = nh.mlp(depth, "identity", sigma_w=sigma_w, sigma_b=sigma_b).kernel(x, x_other)
    torch.testing.assert_close(k.nngp, sigmas[-1], rtol=1e-12, atol=1e-12)
    torch.testing.assert_close(k.ntk, theta, rtol=1e-12, atol=1e-12)
    if sigma_b == 0:   # deep linear network: Theta = (L+1) sigma_w^(2(L+1)) x.x'/d
        torch.testing.assert_close(k.ntk, (depth + 1) * w2 ** (depth + 1) * linear, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("name", HOMOGENEOUS)
@pytest.mark.parametrize("depth", [1, 3])
def test_positively_homogeneous_activations_give_homogeneous_kernels(x, x_other, name, depth):
    """phi(c t) = c phi(t) and no bias: Sigma and Theta of (a x, b x') are ab times those of (x, x') for a, b > 0,
    so the kernel of a x scales as a^2 (ERRATA.md A24: not 'scale invariant'). Every registered activation with
    the property is tested; a bias breaks it."""
    net = nh.mlp(depth, name, sigma_w=1.7, sigma_b=0.0)
    base = net.kernel(x, x_other)
    for a, b in [(2.0, 0.5), (3.0, 3.0), (0.1, 4.0)]:
        scaled = net.kernel(a * x, b * x_other)
        torch.testing.assert_close(scaled.nngp, a * b * base.nngp, rtol=1e-12, atol=1e-12 * a * b)
        torch.testing.assert_close(scaled.ntk, a * b * base.ntk, rtol=1e-12, atol=1e-12 * a * b)
    biased = nh.mlp(depth, name, sigma_w=1.7, sigma_b=0.5)
    ratio = biased.kernel(3.0 * x, 3.0 * x_other).ntk / biased.kernel(x, x_other).ntk
    assert (ratio - 9).abs().max() > 0.1                    # a bias breaks homogeneity


def test_one_hidden_layer_relu_nngp_is_the_arc_cosine_kernel(x, x_other):
    """Cho & Saul (2009): k_1(x, y) = |x||y| J_1(theta)/pi, J_1 = sin t + (pi - t) cos t; E_w = k_1/2."""
    d = x.shape[1]
    n1, n2 = x.norm(dim=1)[:, None], x_other.norm(dim=1)[None, :]
    cos = ((x @ x_other.T) / (n1 * n2)).clamp(-1, 1)
    t = torch.arccos(cos)
    arccos1 = n1 * n2 * (torch.sin(t) + (math.pi - t) * cos) / math.pi / d
    k = nh.serial(nh.dense(), nh.relu(), nh.dense(1)).kernel(x, x_other)     # sigma_w = 1
    torch.testing.assert_close(k.nngp, arccos1 / 2, rtol=1e-12, atol=1e-12)
    ntk_expected = arccos1 / 2 + (x @ x_other.T / d) * (math.pi - t) / (2 * math.pi)
    torch.testing.assert_close(k.ntk, ntk_expected, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("activation", ACTIVATIONS)
def test_kernel_with_x2_none_is_the_gram_matrix(x, activation):
    """x2=None takes a faster symmetric path; it must agree with passing x2 = x1 explicitly, up to what the
    ~1e-8 angle that rounding gives sqrt(var1 var2 - cov^2) on the explicit path's diagonal does to a dual
    whose derivative jumps (ReLU: 7e-9 at depth 2; |x|, whose jump is 2x larger: 1.4e-8)."""
    net = nh.mlp(2, activation, sigma_w=1.2, sigma_b=0.3)
    torch.testing.assert_close(net.kernel(x).ntk, net.kernel(x, x.clone()).ntk, rtol=1e-7, atol=0)
    k = net.kernel(x)
    assert k.nngp.dtype == torch.float64 and k.ntk.shape == (8, 8)
    torch.testing.assert_close(k.ntk, k.ntk.T)


def test_kernel_accepts_numpy_and_returns_float64(x):
    k = nh.mlp(1).kernel(x.numpy().astype("float32"))
    assert k.ntk.dtype == torch.float64


# -- finite networks: the analytic kernel is their infinite-width limit -------------------------

def test_nngp_matches_output_covariance_of_a_wide_network(x):
    """Monte Carlo over 2048 independent output units of one random network (each is a sample)."""
    arch = nh.serial(nh.dense(sigma_w=1.5, sigma_b=0.3), nh.tanh(), nh.dense(2048, sigma_w=1.5, sigma_b=0.3))
    out = arch.network(5, width=4096, seed=0)(x).detach()            # (n, 2048)
    empirical = out @ out.T / out.shape[1]
    analytic = arch.kernel(x).nngp
    assert float((empirical - analytic).norm() / analytic.norm()) < 0.06


@pytest.mark.parametrize("activation", ACTIVATIONS)
def test_finite_networks_converge_to_the_analytic_ntk(sphere_x, activation):
    """Empirical NTKs of 16 random networks per width: their error falls like width^-1/2 (fitted slope <= -0.35),
    and at width 1024 their mean agrees with the analytic NTK entry by entry within 5 standard errors (plus 1% of
    the scale for the O(1/width) bias) and to 4% in Frobenius norm."""
    arch = nh.mlp(2, activation, sigma_w=1.4, sigma_b=0.2)
    analytic = arch.kernel(sphere_x).ntk
    widths, errors = [64, 256, 1024], []
    for width in widths:
        thetas = torch.stack([nh.empirical_ntk(arch.network(6, width=width, seed=s), sphere_x) for s in range(16)])
        errors.append(float(((thetas - analytic).flatten(1).norm(dim=1) / analytic.norm()).mean()))
    slope = nh.loglog_slope(widths, errors)
    assert slope <= -0.35, f"{activation}: mean error by width {errors}, fitted slope {slope:.3f} (expected -0.5)"
    mean, sem = thetas.mean(0), thetas.std(0) / 16 ** 0.5                      # width 1024
    scale = float(analytic.abs().max())
    worst = float(((mean - analytic).abs() - 5 * sem - 0.01 * scale).max())
    assert worst <= 0, f"{activation}: an entry is {worst:.3g} beyond 5 standard errors + 1% of {scale:.3g}"
    rel = float((mean - analytic).norm() / analytic.norm())
    assert rel < 0.04, f"{activation}: mean of 16 width-1024 NTKs is {rel:.3f} from the analytic NTK (Frobenius)"


# -- bad input and extreme values --------------------------------------------------------------

@pytest.mark.parametrize("depth", [0, -3])
def test_depth_below_one_is_refused(depth):
    with pytest.raises(ValueError, match="depth must be an integer >= 1"):
        nh.mlp(depth)


@pytest.mark.parametrize("depth", [2.5, "3", True])
def test_depth_must_be_an_integer(depth):
    with pytest.raises(TypeError, match="depth"):
        nh.mlp(depth)


def test_unknown_activation_in_mlp():
    with pytest.raises(ValueError, match="unknown activation 'sigmoid'; allowed values: ") as error:
        nh.mlp(2, "sigmoid")
    assert all(name in str(error.value) for name in nh.ACTIVATIONS), str(error.value)


@pytest.mark.parametrize("kwargs,name", [({"sigma_w": -1.0}, "sigma_w"), ({"sigma_b": -0.1}, "sigma_b"),
                                          ({"sigma_w": float("inf")}, "sigma_w")])
def test_negative_or_infinite_sigma_is_refused(kwargs, name):
    with pytest.raises(ValueError, match=name):
        nh.dense(**kwargs)
    with pytest.raises(ValueError, match=name):
        nh.mlp(2, **kwargs)


def test_width_and_in_shape_are_checked():
    with pytest.raises(ValueError, match="width must be an integer >= 1"):
        nh.mlp(2).network(3, width=0)
    with pytest.raises(ValueError, match="in_shape"):
        nh.mlp(2).network(-1, width=8)
    with pytest.raises(ValueError, match="out must be an integer >= 1"):
        nh.dense(0)


def test_mismatched_nonfinite_and_wrong_rank_inputs(x):
    net = nh.mlp(2)
    with pytest.raises(ValueError, match="x1 and x2 must have the same feature shape"):
        net.kernel(x, torch.ones(3, 4, dtype=torch.float64))
    bad = x.clone()
    bad[0, 0] = float("nan")
    with pytest.raises(ValueError, match="x1 contains NaN"):
        net.kernel(bad)
    with pytest.raises(ValueError, match="x2 contains NaN or infinite"):
        net.kernel(x, bad.abs() * float("inf"))
    with pytest.raises(ValueError, match=r"x1 must have 2 dimensions \(n, features\)"):
        net.kernel(x[0])
    with pytest.raises(TypeError, match="x1 must be"):
        net.kernel("not an array")


def test_serial_checks_its_arguments():
    with pytest.raises(ValueError, match="at least one layer"):
        nh.serial()
    with pytest.raises(TypeError, match="serial"):
        nh.serial(nh.dense(), "relu")


@pytest.mark.parametrize("activation", ACTIVATIONS)
def test_depth_200_gives_finite_kernels(sphere_x, activation):
    k = nh.mlp(200, activation, sigma_w=1.5, sigma_b=0.1).kernel(sphere_x)
    assert k.is_finite()


def test_overflowing_kernel_raises_a_clear_error_instead_of_nan(sphere_x):
    with pytest.raises(OverflowError, match="lower sigma_w or the depth"):
        nh.mlp(1500, "relu", sigma_w=3.0).kernel(sphere_x)


def test_width_one_network_has_a_finite_ntk(sphere_x):
    model = nh.mlp(200, "tanh", sigma_w=1.5, sigma_b=0.1).network(6, width=1, seed=0)
    assert torch.isfinite(nh.empirical_ntk(model, sphere_x)).all()


def test_same_seed_same_network_different_seed_different_network(sphere_x):
    net = nh.mlp(2)
    a, b, c = (net.network(6, width=16, seed=s)(sphere_x) for s in (3, 3, 4))
    assert torch.equal(a, b) and not torch.equal(a, c)


def test_gram_diagonal_follows_the_variance_map_in_the_chaotic_phase():
    """Sigma(x, x) of a Gram matrix is the variance map iterated (an independent 1-D scipy quadrature here), even
    where chi_1 > 1 amplifies every rounding difference layer after layer (tanh, sigma_w = 2.5, depth 100)."""
    from scipy.integrate import quad

    x = nh.sphere(5, 4, seed=1)                                    # |x|^2 = d, so the input variance is sigma_w^2
    sigma_w2, depth = 2.5 ** 2, 100
    q = sigma_w2
    for _ in range(depth):
        q = sigma_w2 * quad(lambda z: math.tanh(math.sqrt(q) * z) ** 2 * math.exp(-z * z / 2) / math.sqrt(2 * math.pi),
                            -12, 12, limit=200)[0]
    diagonal = nh.mlp(depth, "tanh", sigma_w=2.5).kernel(x).nngp.diagonal()
    assert torch.allclose(diagonal, torch.full_like(diagonal, q), rtol=1e-6), (
        f"expected Sigma(x, x) = {q:.6f} at every input, measured {diagonal.tolist()}")


@pytest.mark.parametrize("complex_input", [
    torch.ones(2, 3, dtype=torch.complex128), np.ones((2, 3)) * (1 + 1j), [[1j, 2.0, 3.0], [1.0, 2.0, 3.0]]],
    ids=["tensor", "array", "list"])
def test_complex_inputs_are_an_error_not_a_silent_cast(complex_input):
    """torch and numpy would drop the imaginary part with a warning only; the kernel would answer for another x."""
    with pytest.raises(TypeError, match=r"x1 must be real, got complex values"):
        nh.mlp(2).kernel(complex_input)
    with pytest.raises(TypeError, match=r"x2 must be real, got complex values"):
        nh.mlp(2).kernel(np.ones((2, 3)), complex_input)


def test_a_device_this_machine_does_not_have_is_named():
    if not torch.cuda.is_available():
        with pytest.raises(ValueError, match=r"device='cuda': this machine has no CUDA device"):
            nh.mlp(1).network(3, width=4, device="cuda")
    with pytest.raises(ValueError, match=r"device='cuda:99': there are \d+ CUDA devices|device='cuda:99': this"):
        nh.mlp(1).network(3, width=4, device="cuda:99")
    with pytest.raises(ValueError, match=r"device must be a torch device such as 'cpu' or 'cuda', got 'gpu'"):
        nh.mlp(1).network(3, width=4, device="gpu")
    assert next(nh.mlp(1).network(3, width=4, device="cpu").parameters()).device.type == "cpu"
