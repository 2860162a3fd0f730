"""Residual blocks, normalization, Monte Carlo kernels (chapter 4.3-4.4) against independent oracles."""

import math

import pytest
import torch

import ntk_helpers as nh
from oracles import assert_matches_finite_networks


@pytest.mark.parametrize("depth", [1, 4, 16, 64])
@pytest.mark.parametrize("alpha_of", [lambda L: 1.0, lambda L: L ** -0.5, lambda L: 1 / L],
                         ids=["alpha=1", "alpha=1/sqrt(L)", "alpha=1/L"])
def test_resnet_ntk_diagonal_closed_form(depth, alpha_of):
    """Theta(x, x) = sigma_v^2 q0 (1 + gamma)^L (2 + L gamma / (1 + gamma)), gamma = alpha^2 sigma_w^2 / 2 (ReLU,
    no bias; lesson 04, section 4.3.2)."""
    x = nh.sphere(3, 4, seed=0)
    alpha = alpha_of(depth)
    q0, gamma = 2.0, alpha ** 2 * 2 / 2
    expected = q0 * (1 + gamma) ** depth * (2 + depth * gamma / (1 + gamma))
    diag = torch.diagonal(nh.resnet(depth, alpha=alpha).kernel(x).ntk)
    torch.testing.assert_close(diag, torch.full_like(diag, expected), rtol=1e-10, atol=0)


def test_resnet_with_alpha_one_over_sqrt_depth_tends_to_3e_q0():
    x = nh.sphere(2, 4, seed=0)
    theta = float(nh.resnet(512, alpha=512 ** -0.5).kernel(x).ntk[0, 0])
    assert abs(theta / 2.0 - 3 * math.e) < 0.05


def test_finite_resnets_converge_to_the_analytic_ntk():
    x = nh.sphere(6, 5, seed=1)
    arch = nh.resnet(4, alpha=0.5)
    sweep = nh.width_sweep(arch, x, widths=[64, 256, 1024], seeds=4)
    assert sweep.slope <= -0.35, sweep.errors
    analytic = arch.kernel(x).ntk
    assert float((sweep.mean_ntk[-1] - analytic).norm() / analytic.norm()) < 0.05


def test_residual_rejects_branches_that_end_in_an_activation_or_change_shape():
    with pytest.raises(ValueError, match="must end with dense\\(\\) or conv\\(\\)"):
        nh.residual(nh.dense(), nh.relu())
    with pytest.raises(ValueError, match="branch maps shape"):
        nh.serial(nh.dense(), nh.residual(nh.relu(), nh.dense(3))).network(4, width=8)
    with pytest.raises(ValueError, match="alpha"):
        nh.residual(nh.dense(), alpha=-1.0)


def arc_cosine(nngp, var1, var2):
    """E[relu(u) relu(v)] for the Gaussian pair with covariance [[var1, nngp], [nngp, var2]] (Cho & Saul 2009)."""
    norm = (var1[:, None] * var2[None, :]).sqrt()
    theta = torch.arccos((nngp / norm).clamp(-1, 1))
    return (norm * torch.sin(theta) + (math.pi - theta) * nngp) / (2 * math.pi)


def test_layer_norm_kernel_is_the_correlation_of_its_input(x, x_other):
    """After dense + layer_norm the kernel is Sigma / sqrt(Sigma(x,x) Sigma(x',x')) (eps = 0)."""
    sigma = 1.3 ** 2 * x @ x_other.T / x.shape[1] + 0.4 ** 2
    var1, var2 = 1.3 ** 2 * (x * x).mean(1) + 0.4 ** 2, 1.3 ** 2 * (x_other * x_other).mean(1) + 0.4 ** 2
    after = nh.serial(nh.dense(sigma_w=1.3, sigma_b=0.4), nh.layer_norm(eps=0.0)).kernel(x, x_other)
    torch.testing.assert_close(after.nngp, sigma / (var1[:, None] * var2[None, :]).sqrt(), rtol=1e-12, atol=1e-12)


def residual_then_layer_norm(*head):
    return nh.serial(nh.dense(sigma_w=1.3, sigma_b=0.3), nh.residual(nh.relu(), nh.dense(sigma_w=1.2), alpha=0.8),
                     nh.layer_norm(), *head)


def test_layer_norm_after_a_residual_block_is_its_inputs_correlation(x, x_other):
    """x + alpha * branch(x) on dense outputs is Gaussian (the branch's fresh weights make it independent of x), so
    layer_norm is accepted there; its NNGP is the correlation of Sigma_x + alpha^2 Sigma_branch (written out here)."""
    d, eps = x.shape[1], 1e-5
    dense = lambda k: 1.3 ** 2 * k + 0.3 ** 2
    s12, s11, s22 = dense(x @ x_other.T / d), dense((x * x).sum(1) / d), dense((x_other * x_other).sum(1) / d)
    out = lambda s, v1, v2: s + 0.8 ** 2 * 1.2 ** 2 * arc_cosine(s, v1, v2)        # x + alpha * dense(relu(x))
    v1, v2 = out(s11[:, None], s11, s11).diagonal(), out(s22[:, None], s22, s22).diagonal()
    expected = out(s12, s11, s22) / ((v1 + eps)[:, None] * (v2 + eps)[None, :]).sqrt()
    torch.testing.assert_close(residual_then_layer_norm().kernel(x, x_other).nngp, expected, rtol=1e-12, atol=1e-12)


def test_layer_norm_after_a_residual_block_matches_finite_networks():
    """NNGP and NTK of dense -> residual -> layer_norm -> relu -> dense(1) against 16 networks of width 256."""
    x = nh.sphere(6, 5, seed=3) * 2.0
    arch = residual_then_layer_norm(nh.relu(), nh.dense(1, sigma_w=1.2))
    assert_matches_finite_networks(arch, x, width=256)


@pytest.mark.parametrize("images", [False, True])
def test_finite_layer_norm_networks_converge(images):
    if images:
        g = torch.Generator().manual_seed(2)
        x = torch.randn(4, 2, 5, 5, generator=g, dtype=torch.float64) * 2
        arch = nh.serial(nh.conv(sigma_w=1.3, sigma_b=0.3), nh.layer_norm(), nh.relu(), nh.global_avg_pool(), nh.dense(1))
    else:
        x = nh.sphere(6, 5, seed=3) * 2.5
        arch = nh.serial(nh.dense(sigma_w=1.3, sigma_b=0.3), nh.layer_norm(), nh.relu(), nh.dense(sigma_w=1.3),
                         nh.layer_norm(), nh.tanh(), nh.dense(1))
    sweep = nh.width_sweep(arch, x, widths=[64, 256, 1024], seeds=4)
    assert sweep.slope <= -0.35, sweep.errors
    analytic = arch.kernel(x).ntk
    assert float((sweep.mean_ntk[-1] - analytic).norm() / analytic.norm()) < 0.05


def test_frozen_batch_norm_is_affine_and_batch_norm_couples_the_batch():
    x = nh.sphere(6, 5, seed=4)
    frozen = nh.serial(nh.dense(sigma_w=1.3), nh.batch_norm(frozen=True), nh.relu(), nh.dense(1))
    plain = nh.serial(nh.dense(sigma_w=1.3), nh.relu(), nh.dense(1))
    torch.testing.assert_close(frozen.kernel(x).ntk, plain.kernel(x).ntk / (1 + 1e-5), rtol=1e-12, atol=0)
    coupled = nh.serial(nh.dense(sigma_w=1.3), nh.batch_norm(), nh.relu(), nh.dense(1))
    with pytest.raises(NotImplementedError, match="monte_carlo_kernel"):
        coupled.kernel(x)
    model = coupled.network(5, width=64, seed=0)
    other_batch = torch.cat([x[:1], nh.sphere(5, 5, seed=9)])
    assert not torch.allclose(model(x)[0], model(other_batch)[0])      # f(x_1) depends on the others
    model = frozen.network(5, width=64, seed=0)
    torch.testing.assert_close(model(x)[0], model(other_batch)[0])


def test_batch_ntk_method_matches_a_naive_loop_over_batch_outputs():
    x = nh.sphere(5, 4, seed=0)
    model = nh.serial(nh.dense(sigma_w=1.3), nh.batch_norm(), nh.relu(), nh.dense(1)).network(4, width=16, seed=0)
    params = list(model.parameters())
    out = model(x).reshape(-1)
    rows = [torch.cat([g.reshape(-1) for g in torch.autograd.grad(out[i], params, retain_graph=True)]) for i in range(5)]
    jac = torch.stack(rows)
    torch.testing.assert_close(nh.empirical_ntk(model, x, method="batch"), jac @ jac.T, rtol=1e-10, atol=1e-10)
    with pytest.raises(ValueError, match="x2=None"):
        nh.empirical_ntk(model, x, x, method="batch")


def test_monte_carlo_kernel_agrees_with_a_closed_form_where_one_exists():
    x = nh.sphere(5, 4, seed=5)
    arch = nh.mlp(2, "erf", sigma_w=1.3, sigma_b=0.2)
    mc = nh.monte_carlo_kernel(arch, x, width=512, n_networks=24, seed=0)
    exact = arch.kernel(x)
    assert ((mc.ntk - exact.ntk).abs() <= 4 * mc.ntk_sem + 0.03 * exact.ntk.abs().max()).all()
    assert ((mc.nngp - exact.nngp).abs() <= 4 * mc.nngp_sem + 0.03 * exact.nngp.abs().max()).all()


def test_max_pool_differs_from_average_pool():
    """Lesson 03 (max vs average pooling): the max-pool NNGP is not the average-pool one (Monte Carlo)."""
    g = torch.Generator().manual_seed(3)
    x = torch.randn(4, 1, 6, 6, generator=g, dtype=torch.float64)
    head = [nh.flatten(), nh.dense(256)]
    maxed = nh.monte_carlo_kernel(nh.serial(nh.conv(sigma_w=1.4), nh.relu(), nh.max_pool(2), *head), x, width=256,
                                  n_networks=8, ntk=False)
    averaged = nh.serial(nh.conv(sigma_w=1.4), nh.relu(), nh.avg_pool(2), *head).kernel(x).nngp
    assert float((maxed.nngp - averaged).norm() / averaged.norm()) > 0.05
    with pytest.raises(NotImplementedError, match="monte_carlo_kernel"):
        nh.serial(nh.conv(), nh.max_pool(2)).kernel(x)
