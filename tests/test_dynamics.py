"""Closed-form linearized dynamics (Lee et al. 2019, eq. 8-9; lesson 07) against real gradient descent and
direct solves; the effective-rank law of lesson 08."""

import math

import numpy as np
import pytest
import torch

import ntk_helpers as nh


@pytest.fixture
def problem():
    x = nh.sphere(30, 6, seed=0)
    y = torch.sin(2 * x[:, 0]) + 0.5 * x[:, 1]
    return x[:12], y[:12], x[12:], y[12:]


def test_closed_form_matches_gradient_descent_better_as_width_grows(problem):
    x, y, x_test, _ = problem
    arch = nh.mlp(1, "relu", sigma_w=1.4, sigma_b=0.2)
    k_all = arch.kernel(torch.cat([x, x_test])).ntk
    errors = []
    widths = [256, 1024, 4096]
    for width in widths:
        model = arch.network(6, width=width, seed=0)
        with torch.no_grad():
            f0_train, f0_test = model(x)[:, 0], model(x_test)[:, 0]
        record = nh.train(model, x, y, lr=1.0, steps=100, x_eval=x_test)
        formula = nh.linearized_dynamics(k_all[:12, :12], y, 100, lr=1.0, ntk_test_train=k_all[12:, :12],
                                         f0_train=f0_train, f0_test=f0_test, discrete=True)
        errors.append(float((record.outputs[-1] - formula.test[0]).abs().max()))
    assert nh.loglog_slope(widths, errors) < -0.3, errors
    assert errors[-1] < 0.1


def test_train_outputs_follow_the_discrete_formula_step_by_step(problem):
    """With the empirical NTK of the network itself, the formula is exact up to O(1/sqrt(width)) drift."""
    x, y, _, _ = problem
    model = nh.mlp(1, "erf", sigma_w=1.4).network(6, width=8192, seed=1)
    theta = nh.empirical_ntk(model, x)
    with torch.no_grad():
        f0 = model(x)[:, 0]
    record = nh.train(model, x, y, lr=0.5, steps=50, record_every=10)
    formula = nh.linearized_dynamics(theta, y, record.steps, lr=0.5, f0_train=f0, discrete=True)
    assert float((record.outputs - formula.train).abs().max()) < 0.02


def test_flow_at_infinite_time_is_kernel_regression(problem):
    x, y, x_test, _ = problem
    K = nh.mlp(2).kernel(torch.cat([x, x_test])).ntk
    flow = nh.linearized_dynamics(K[:12, :12], y, 1e12, ntk_test_train=K[12:, :12])
    regression = nh.kernel_regression(K[:12, :12], K[12:, :12], y, jitter=0.0)
    torch.testing.assert_close(flow.test[0], regression, rtol=1e-6, atol=1e-8)
    torch.testing.assert_close(flow.train[0], y, rtol=1e-6, atol=1e-8)


def test_loss_normalizations_rescale_time(problem):
    x, y, _, _ = problem
    K = nh.mlp(1).kernel(x).ntk
    n = x.shape[0]
    half_mean = nh.linearized_dynamics(K, y, 3.0, loss="half_mean").train
    torch.testing.assert_close(nh.linearized_dynamics(K, y, 3.0 / n, loss="half_sum").train, half_mean)
    torch.testing.assert_close(nh.linearized_dynamics(K, y, 1.5, loss="mean").train, half_mean)


def test_flow_formula_against_matrix_exponential(problem):
    x, y, x_test, _ = problem
    K = nh.mlp(1, "tanh").kernel(torch.cat([x, x_test])).ntk
    Kt, Ks = K[:12, :12], K[12:, :12]
    t, lr, n = 7.0, 0.3, 12
    A = torch.eye(n, dtype=torch.float64) - torch.linalg.matrix_exp(-lr * Kt * t / n)
    expected_test = Ks @ torch.linalg.solve(Kt, A @ y)
    result = nh.linearized_dynamics(Kt, y, t, lr=lr, ntk_test_train=Ks)
    torch.testing.assert_close(result.train[0], A @ y, rtol=1e-9, atol=1e-9)
    torch.testing.assert_close(result.test[0], expected_test, rtol=1e-7, atol=1e-8)


def test_singular_kernel_is_handled_without_inverse():
    x = nh.sphere(4, 3, seed=0)
    x = torch.cat([x, x[:1]])                                  # duplicate input: singular Gram matrix
    K = nh.mlp(1).kernel(x).ntk
    y = torch.tensor([1.0, -1.0, 0.5, 0.0, 1.0], dtype=torch.float64)
    out = nh.linearized_dynamics(K, y, [0.0, 10.0, 1e9], ntk_test_train=K)
    assert torch.isfinite(out.test).all()
    torch.testing.assert_close(out.train[0], torch.zeros(5, dtype=torch.float64))


def test_kernel_regression_matches_a_direct_solve(problem):
    x, y, x_test, _ = problem
    K = nh.mlp(2, "erf").kernel(torch.cat([x, x_test])).ntk
    direct = K[12:, :12] @ torch.linalg.solve(K[:12, :12], y)
    torch.testing.assert_close(nh.kernel_regression(K[:12, :12], K[12:, :12], y, jitter=0.0), direct,
                               rtol=1e-8, atol=1e-10)
    ridge = K[12:, :12] @ torch.linalg.solve(K[:12, :12] + 0.3 * torch.eye(12, dtype=torch.float64), y)
    torch.testing.assert_close(nh.kernel_regression(K[:12, :12], K[12:, :12], y, ridge=0.3, jitter=0.0),
                               ridge, rtol=1e-10, atol=1e-10)


def test_l2_penalty_towards_init_gives_kernel_ridge_with_ridge_n_lambda():
    """Lesson 07, section 3: the linearized model f = f0 + J (theta - theta0) trained on
    1/(2n) sum (f - y)^2 + lambda/2 ||theta - theta0||^2 converges to f0 + K*(K + n lambda I)^-1 (y - f0)."""
    g = torch.Generator().manual_seed(3)
    n, m, p, lam = 10, 6, 40, 0.05
    J = torch.randn(n, p, generator=g, dtype=torch.float64)
    J_test = torch.randn(m, p, generator=g, dtype=torch.float64)
    y, f0, f0_test = (torch.randn(k, generator=g, dtype=torch.float64) for k in (n, n, m))
    delta = torch.zeros(p, dtype=torch.float64)                       # theta - theta0
    lr = 1.0 / (torch.linalg.eigvalsh(J.T @ J / n)[-1] + lam)
    for _ in range(5000):
        delta -= lr * (J.T @ (f0 + J @ delta - y) / n + lam * delta)
    ridge = f0_test + nh.kernel_regression(J @ J.T, J_test @ J.T, y - f0, ridge=n * lam, jitter=0.0)
    torch.testing.assert_close(f0_test + J_test @ delta, ridge, rtol=1e-9, atol=1e-9)


def test_ensemble_prediction_limits(problem):
    x, y, x_test, _ = problem
    arch = nh.mlp(1, "relu", sigma_b=0.3)
    k = arch.kernel(torch.cat([x, x_test]))
    K, T = k.nngp, k.ntk
    args = (K[:12, :12], K[12:, :12], K[12:, 12:], T[:12, :12], T[12:, :12], y)
    prior = nh.ensemble_prediction(*args, 0.0)
    torch.testing.assert_close(prior.mean, torch.zeros(18, dtype=torch.float64))
    torch.testing.assert_close(prior.covariance, K[12:, 12:])
    late = nh.ensemble_prediction(*args, 1e12)
    torch.testing.assert_close(late.mean, nh.kernel_regression(T[:12, :12], T[12:, :12], y, jitter=0.0),
                               rtol=1e-6, atol=1e-8)
    assert nh.eigenvalues(late.covariance)[-1] > -1e-8
    on_train = nh.ensemble_prediction(K[:12, :12], K[:12, :12], K[:12, :12], T[:12, :12], T[:12, :12], y,
                                      1e12)
    assert float(on_train.covariance.abs().max()) < 1e-6            # trained ensembles interpolate the data


def test_ensemble_mean_and_variance_against_trained_finite_networks(problem):
    x, y, x_test, _ = problem
    arch = nh.mlp(1, "erf", sigma_w=1.5, sigma_b=0.2)
    k = arch.kernel(torch.cat([x, x_test[:4]]))
    steps, lr = 100, 1.0
    outputs = []
    for seed in range(40):
        model = arch.network(6, width=512, seed=seed)
        outputs.append(nh.train(model, x, y, lr=lr, steps=steps, x_eval=x_test[:4], record_every=steps,
                                track_kernels=False).outputs[-1])
    outputs = torch.stack(outputs)
    prediction = nh.ensemble_prediction(k.nngp[:12, :12], k.nngp[12:, :12], k.nngp[12:, 12:], k.ntk[:12, :12],
                                        k.ntk[12:, :12], y, steps * lr)
    sd = prediction.covariance.diagonal().sqrt()
    assert ((outputs.mean(0) - prediction.mean).abs() < 4 * sd / math.sqrt(40) + 0.05).all()
    assert ((outputs.std(0) / sd - 1).abs() < 0.35).all()


def test_bad_arguments(problem):
    x, y, _, _ = problem
    K = nh.mlp(1).kernel(x).ntk
    with pytest.raises(ValueError, match="t must be finite times >= 0"):
        nh.linearized_dynamics(K, y, -1.0)
    with pytest.raises(ValueError, match="lr"):
        nh.linearized_dynamics(K, y, 1.0, lr=-0.1)
    with pytest.raises(ValueError, match="y_train must have 12 entries"):
        nh.linearized_dynamics(K, y[:5], 1.0)
    with pytest.raises(ValueError, match="unknown loss 'sum'"):
        nh.linearized_dynamics(K, y, 1.0, loss="sum")
    with pytest.raises(ValueError, match="not positive semi-definite"):
        nh.linearized_dynamics(-K, y, 1.0)
    with pytest.raises(ValueError, match="diverges"):
        nh.linearized_dynamics(K, y, 5, lr=1e6, discrete=True)
    with pytest.raises(ValueError, match="whole numbers"):
        nh.linearized_dynamics(K, y, 2.5, discrete=True)
    with pytest.raises(ValueError, match="ntk_test_train must have 12 columns"):
        nh.linearized_dynamics(K, y, 1.0, ntk_test_train=K[:, :3])
    with pytest.raises(ValueError, match="not positive definite even with jitter"):
        nh.kernel_regression(-K, K, y)


def test_critical_learning_rate_separates_convergence_from_divergence(problem):
    """Discrete GD on the linearized model is stable iff c * lr * lambda_max < 2 (c = 1/n here)."""
    x, y, _, _ = problem
    K = nh.mlp(1, "relu", sigma_b=0.3).kernel(x).ntk
    n = x.shape[0]
    lam_max = float(torch.linalg.eigvalsh(K)[-1])
    critical = nh.critical_learning_rate(K)
    assert critical == pytest.approx(2 * n / lam_max, rel=1e-12)
    assert nh.critical_learning_rate(K, loss="half_sum") == pytest.approx(2 / lam_max, rel=1e-12)
    assert nh.critical_learning_rate(K, loss="mean") == pytest.approx(n / lam_max, rel=1e-12)
    below = nh.linearized_dynamics(K, y, 2000, lr=0.99 * critical, discrete=True).train[0]
    assert float((below - y).abs().max()) < 1e-6 * float(y.abs().max())
    with pytest.raises(ValueError, match=r"largest eigenvalue of ntk_train.*lr < 2 / \(c \* lambda_max\)"):
        nh.linearized_dynamics(K, y, 10, lr=1.01 * critical, discrete=True)


def test_unstable_trajectory_matches_the_iterated_update(problem):
    """Above the critical learning rate allow_unstable=True returns f_t = y + (I - c lr K)^t (f_0 - y)."""
    x, y, _, _ = problem
    K = nh.mlp(1).kernel(x).ntk
    n = x.shape[0]
    lr = 1.2 * nh.critical_learning_rate(K)
    f0 = 0.3 * torch.cos(3 * x[:, 1])
    out = nh.linearized_dynamics(K, y, list(range(31)), lr=lr, f0_train=f0, discrete=True,
                                 allow_unstable=True)
    f = f0.clone()
    for step in range(31):
        torch.testing.assert_close(out.train[step], f, rtol=1e-8, atol=1e-8 * float(f.abs().max()))
        f = f - lr / n * K @ (f - y)
    residual = (out.train - y).norm(dim=1)
    assert residual[-1] > 100 * residual[0]                      # diverges geometrically


# -- the effective-rank law (lesson 08; Gauss-Jacobi quadrature on the sphere) ------------------------

def test_rank_limit_against_monte_carlo_pairs():
    """r_inf = kappa(1)^2 / E k(x, x')^2, with the expectation from random pairs instead of Gauss-Jacobi."""
    arch = nh.mlp(1)
    a, b = nh.sphere(40000, 10, seed=1), nh.sphere(40000, 10, seed=2)
    t = (a * b).sum(1) / 10
    kappa = nh.dot_product_profile(arch, t, 10)
    mc = float(nh.dot_product_profile(arch, torch.ones(1), 10)) ** 2 / float((kappa ** 2).mean())
    assert nh.effective_rank_limit(arch, 10) == pytest.approx(mc, rel=0.03)
    assert nh.effective_rank_limit(arch, 10) == pytest.approx(16.7, abs=0.05)     # lesson 08 prints 16.71


def test_finite_n_effective_rank_follows_the_law():
    arch = nh.mlp(1)
    r_inf = nh.effective_rank_limit(arch, 10)
    for n in [50, 200, 800]:
        simulated = np.mean([nh.effective_rank(arch.kernel(nh.sphere(n, 10, seed=s)).ntk) for s in range(4)])
        assert simulated == pytest.approx(nh.effective_rank_finite(r_inf, n), rel=0.03)


def test_deep_nngp_rank_is_near_one_until_centered():
    deep = nh.mlp(50)
    assert nh.effective_rank_limit(deep, 10, kind="nngp") < 1.05
    assert nh.effective_rank_limit(deep, 10, kind="nngp", centered=True) > 500


def test_vanishing_off_diagonals_make_r_inf_unbounded_while_r_eff_stays_below_n():
    """Deep bias-free erf networks (chaotic phase): off-diagonals -> 0, r_inf -> infinity, r_eff(n) -> n."""
    limits = [nh.effective_rank_limit(nh.mlp(depth, "erf", sigma_w=2.0), 10) for depth in (1, 4, 16)]
    assert limits[0] < limits[1] < limits[2] and limits[2] > 1e6
    K = nh.mlp(16, "erf", sigma_w=2.0).kernel(nh.sphere(100, 10, seed=0)).ntk
    assert 0.999 * 100 < nh.effective_rank(K) <= 100 * (1 + 1e-12)
    # an odd kernel has E k(x, x') = 0 exactly, yet r_inf is finite: the law involves E k(x, x')^2
    t, w = nh.angle_distribution(10)
    kappa = nh.dot_product_profile(nh.mlp(1, "erf", sigma_w=2.0), t, 10)
    assert abs(float(w @ kappa)) <= 1e-12 * float(kappa.abs().max())
    assert limits[0] < 30


def test_effective_rank_finite_edge_cases():
    assert nh.effective_rank_finite(1 - 1e-12, 50) == pytest.approx(1.0)
    assert nh.effective_rank_finite(float("inf"), 50) == 50
    assert nh.effective_rank_finite(1e300, 50) == pytest.approx(50)


def test_rank_law_bad_arguments():
    with pytest.raises(ValueError, match="r_inf must be a number >= 1"):
        nh.effective_rank_finite(0.5, 10)
    with pytest.raises(ValueError, match="unknown kind"):
        nh.effective_rank_limit(nh.mlp(1), 10, kind="cov")
    with pytest.raises(ValueError, match="d must be"):
        nh.angle_distribution(1)
