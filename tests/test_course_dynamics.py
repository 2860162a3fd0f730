"""ntk_helpers.course.dynamics (lesson 07): each piece against an independent computation (the package's own
empirical NTK, nh.train run directly, numerical quadrature, scipy's regression and normal law, exact counting), and
the explorers' sentences against the runs they describe."""

import math

import matplotlib
import numpy as np
import pytest
import torch

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
from scipy import integrate, stats  # noqa: E402

import ntk_helpers as nh  # noqa: E402
from ntk_helpers.course import dynamics  # noqa: E402


@pytest.fixture(autouse=True)
def close_figures():
    yield
    plt.close("all")


# ---------------------------------------------------------------- data and kernels

def test_circle_is_the_lessons_data_and_kernel():
    data = dynamics.circle()
    assert data.x_train.shape == (20, 2) and data.x_test.shape == (120, 2), (data.x_train.shape, data.x_test.shape)
    norms = (data.x_train ** 2).sum(1)
    assert torch.allclose(norms, torch.full_like(norms, 2.0)), f"expected |x|² = 2, got {norms[:3]}"
    expected = torch.sin(2 * data.angles_train) + 0.5 * torch.cos(data.angles_train)
    assert torch.allclose(data.y_train, expected), "y = sin 2a + 0.5 cos a"
    direct = nh.mlp(1, "relu", sigma_w=1.4, sigma_b=0.3).kernel(data.x_train).ntk
    assert torch.allclose(data.ntk_train, direct, rtol=1e-12), "the analytic NTK on the training inputs"
    assert data.critical_lr == pytest.approx(nh.critical_learning_rate(direct), rel=1e-12)


def test_weighted_ntk_is_the_packages_weighted_empirical_ntk():
    model = nh.mlp(1, "relu", sigma_w=1.4, sigma_b=0.3, parameterization="mup").network(2, width=64, seed=3)
    x = dynamics.on_circle(torch.linspace(0, 6, 7, dtype=torch.float64))
    expected = nh.empirical_ntk(model, x, parameter_weights=nh.lr_multipliers(model), method="jacobian")
    measured = dynamics.weighted_ntk(model, x)
    assert torch.allclose(measured, expected, rtol=1e-10, atol=1e-12), \
        f"expected {expected[0, :3]}, measured {measured[0, :3]}"


def test_weighted_ntk_with_unit_factors_is_the_plain_ntk():
    model = nh.mlp(1, "erf").network(2, width=32, seed=0)
    x = dynamics.on_circle(torch.tensor([0.1, 1.0, 2.5], dtype=torch.float64))
    expected = nh.empirical_ntk(model, x)
    assert torch.allclose(dynamics.weighted_ntk(model, x), expected, rtol=1e-10), "NTK parameterization: weights 1"


# ---------------------------------------------------------------- the network against the formula

def test_three_trajectories_all_start_from_the_networks_own_f0():
    run = dynamics.three_trajectories(128, seed=1, steps=0)
    model = dynamics.ARCH.network(2, width=128, seed=1)
    with torch.no_grad():
        f0 = model(dynamics.circle().x_test)[:, 0]
    for name, outputs in [("network", run.network), ("own", run.own), ("formula", run.formula)]:
        assert torch.allclose(outputs[0], f0, atol=1e-12), f"{name} at step 0 should be f0"


def test_own_linearization_is_the_formula_with_the_networks_own_ntk():
    run = dynamics.three_trajectories(256, seed=2, steps=40, record_every=20)
    assert run.steps.tolist() == [0, 20, 40], run.steps
    data = dynamics.circle()
    model = dynamics.ARCH.network(2, width=256, seed=2)
    x_all = torch.cat([data.x_train, data.x_test])
    with torch.no_grad():
        f0 = model(x_all)[:, 0]
    own = nh.empirical_ntk(model, x_all, method="jacobian")
    expected = nh.linearized_dynamics(own[:20, :20], data.y_train, [0, 20, 40], discrete=True,
                                      ntk_test_train=own[20:, :20], f0_train=f0[:20], f0_test=f0[20:]).test
    assert torch.allclose(run.own, expected, atol=1e-9), f"expected {expected[-1, :3]}, measured {run.own[-1, :3]}"
    assert float((run.network - run.own).abs().max()) < 0.2, "a width-256 network stays near its linearization"


def test_slope_with_error_is_scipys_least_squares_fit():
    rng = np.random.default_rng(0)
    widths = [10, 100, 1000]
    values = np.exp(rng.normal(size=(3, 5))) * np.array(widths)[:, None] ** -0.5
    slope, se = dynamics.slope_with_error(widths, values)
    fit = stats.linregress(np.repeat(np.log(widths), 5), np.log(values).reshape(-1))
    assert slope == pytest.approx(fit.slope, rel=1e-10) and se == pytest.approx(fit.stderr, rel=1e-10), \
        f"expected {fit.slope:.4f} ± {fit.stderr:.4f}, measured {slope:.4f} ± {se:.4f}"
    exact = np.array(widths, dtype=float)[:, None] ** -0.5 * np.ones((1, 4))
    slope, se = dynamics.slope_with_error(widths, exact)
    assert slope == pytest.approx(-0.5, abs=1e-12) and se < 1e-10, f"a pure power law: {slope}, {se}"


# ---------------------------------------------------------------- snapshots

def test_snapshots_continue_one_run():
    """Training in segments (0 → 5 → 12) ends where one run of 12 steps ends."""
    segments = dynamics.snapshots("ntk", width=64, steps=(0, 5, 12))
    model = dynamics.ARCH.network(2, width=64, seed=0)
    data = dynamics.circle()
    record = nh.train(model, data.x_train, data.y_train, lr=1.0, steps=12, x_eval=data.x_test, record_every=1)
    assert torch.allclose(segments.network, record.outputs[[0, 5, 12]], atol=1e-10), "segments = one run"
    assert segments.feature_change[0] == 0 and segments.gaps[0] == pytest.approx(0, abs=1e-12), \
        f"step 0: no change, no gap; measured {segments.feature_change[0]}, {segments.gaps[0]}"


def test_snapshot_feature_change_is_the_training_records():
    snap = dynamics.snapshots("mup", width=128, steps=(0, 30))
    model = nh.mlp(1, "relu", sigma_w=1.4, sigma_b=0.3, parameterization="mup").network(2, width=128, seed=0)
    data = dynamics.circle()
    record = nh.train(model, data.x_train, data.y_train, lr=dynamics.SNAPSHOT_LR["mup"], steps=30)
    assert snap.feature_change[-1] == pytest.approx(record.feature_change, rel=1e-8), \
        f"expected {record.feature_change:.4f}, measured {snap.feature_change[-1]:.4f}"


def test_snapshots_reject_unordered_steps():
    with pytest.raises(ValueError, match="start at 0"):
        dynamics.snapshots("ntk", width=16, steps=(3, 1))


# ---------------------------------------------------------------- coverage of the band

def test_coverage_counts_exactly():
    z = np.array([0.1, -0.5, 1.0, -1.5, 2.5])
    measured, tolerance = dynamics.coverage(z, [0.5, 0.9])                 # half-widths 0.674 and 1.645
    assert measured.tolist() == [0.4, 0.8], measured
    expected = 3 * np.sqrt(np.array([0.25, 0.09]) / 5)
    assert np.allclose(tolerance, expected, rtol=1e-12), (tolerance, expected)


def test_coverage_of_normal_draws_is_nominal():
    z = np.random.default_rng(1).normal(size=20000)
    levels = np.array([0.5, 0.683, 0.95, 0.99])
    measured, tolerance = dynamics.coverage(z, levels)
    assert (np.abs(measured - levels) <= tolerance).all(), f"normal draws: {measured} vs {levels} ± {tolerance}"
    with pytest.raises(ValueError):
        dynamics.coverage(z, [0.5, 1.0])


# ---------------------------------------------------------------- Mercer coefficients and fits

def quadrature_mu(name, k):
    arch = dynamics.KERNELS[name]
    profile = lambda theta: float(nh.dot_product_profile(arch, torch.tensor([math.cos(theta)]), 2)[0])
    value, _ = integrate.quad(lambda t: profile(t) * math.cos(k * t), 0, math.pi, limit=200)
    return value / math.pi


@pytest.mark.parametrize("name", list(dynamics.KERNELS))
def test_mercer_coefficients_are_the_fourier_integrals(name):
    mu = dynamics.mercer_coefficients(name, 6)
    raw = np.array([quadrature_mu(name, k) for k in range(7)])
    expected = raw / np.abs(raw).max()
    # quad's own error near the kernel's kink at θ = π is about 1e-6 of the largest coefficient
    assert np.allclose(mu.numpy(), expected, atol=5e-6), f"{name}: expected {expected}, measured {mu.numpy()}"


def test_missing_harmonics_and_positive_ones():
    relu = dynamics.mercer_coefficients("ReLU, no bias", 40)
    erf = dynamics.mercer_coefficients("erf, no bias", 40)
    assert relu[3::2].abs().max() < dynamics.ZERO and relu[[0, 1, 2, 4]].min() > 1e-3, relu[:6]
    # erf's odd coefficients fall geometrically (3e-13 at k = 39): positive well above ZERO up to k = 21
    assert erf[0::2].abs().max() < dynamics.ZERO and erf[1:22:2].min() > 1e-9, erf[:6]
    for name in ("ReLU, σ_b = 0.3", "ReLU, no bias, 2 layers"):
        assert dynamics.mercer_coefficients(name, 40).min() > 1e-6, name


@pytest.mark.parametrize("name, k", [("ReLU, no bias", 3), ("ReLU, no bias", 5), ("erf, no bias", 2)])
@pytest.mark.parametrize("n", [10, 50, 200])
def test_a_missing_harmonic_is_never_learned(name, k, n):
    """The fit is orthogonal to cos kθ, so its error is 1 + mean(fit²)/½ ≥ 1 at every n."""
    prediction, error = dynamics.ridgeless_fit(name, k, n)
    orthogonal = 1 + float((prediction ** 2).mean()) / 0.5
    assert error >= 1 and error == pytest.approx(orthogonal, rel=1e-5), \
        f"{name}, k = {k}, n = {n}: expected {orthogonal:.6f} (≥ 1), measured {error:.6f}"
    assert dynamics.describe_fit(name, k, n).startswith(f"μ_{k} = 0"), dynamics.describe_fit(name, k, n)


def test_ridgeless_fit_is_kernel_regression():
    n, k = 30, 2
    angles = dynamics.training_angles(n)
    arch = dynamics.KERNELS["ReLU, σ_b = 0.3"]
    K = arch.kernel(dynamics.on_circle(torch.cat([angles, dynamics.EVAL_ANGLES]))).ntk
    expected = nh.kernel_regression(K[:n, :n], K[n:, :n], torch.cos(k * angles))
    prediction, error = dynamics.ridgeless_fit("ReLU, σ_b = 0.3", k, n)
    assert torch.allclose(prediction, expected, rtol=1e-10), "the same regression"
    direct = float(((expected - torch.cos(k * dynamics.EVAL_ANGLES)) ** 2).mean() / 0.5)
    assert error == pytest.approx(direct, rel=1e-10), (error, direct)


def test_describe_fit_follows_the_error():
    assert "is enough" in dynamics.describe_fit("ReLU, σ_b = 0.3", 1, 64)
    assert "too few" in dynamics.describe_fit("ReLU, σ_b = 0.3", 16, 16)


# ---------------------------------------------------------------- the learning-rate explorer

def test_explorer_run_is_nh_train_and_the_formula():
    run = dynamics.explorer_run(64, 0.5, 20)
    data = dynamics.circle()
    model = dynamics.ARCH.network(2, width=64, seed=0)
    with torch.no_grad():
        f0 = model(data.x_train)[:, 0]
    record = nh.train(model, data.x_train, data.y_train, lr=0.5, steps=20, track_kernels=False)
    assert torch.allclose(run.loss, record.loss, rtol=1e-10), "the same training run"
    assert float(run.formula_loss[0]) == pytest.approx(float(0.5 * ((f0 - data.y_train) ** 2).mean()), rel=1e-10)
    assert run.ratio == pytest.approx(0.5 * data.lam_max / 20, rel=1e-12)
    own = float(nh.eigenvalues(nh.empirical_ntk(dynamics.ARCH.network(2, width=64, seed=0), data.x_train))[0])
    assert run.own_critical_lr == pytest.approx(40 / own, rel=1e-10)


def test_describe_dynamics_says_what_the_run_did():
    assert "0 steps" in dynamics.describe_dynamics(dynamics.explorer_run(256, 1.0, 0))
    stable = dynamics.explorer_run(1024, 1.0, 50)
    text = dynamics.describe_dynamics(stable)
    assert "< 2" in text and "never rose" in text and float(stable.loss.max()) <= float(stable.loss[0]), text
    rising = dynamics.explorer_run(1024, 2.0, 5)
    text = dynamics.describe_dynamics(rising)
    assert "≥ 2" in text and "at the end" in text and float(rising.loss[-1]) > float(rising.loss[0]), text
    recovered = dynamics.explorer_run(1024, 2.0, 200)
    text = dynamics.describe_dynamics(recovered)
    assert "then fell" in text and float(recovered.loss[-1]) < float(recovered.loss[0]), text


def test_draw_functions_run_and_restore_threads():
    before = torch.get_num_threads()
    dynamics.draw_dynamics(256, 1.0, 10)
    dynamics.draw_dynamics(256, 1.8, 30)
    dynamics.draw_fit("erf, no bias", 2, 20)
    dynamics.draw_mercer()
    assert torch.get_num_threads() == before, f"threads: expected {before}, now {torch.get_num_threads()}"


def test_lazy_changes_and_ensemble_members_are_nh_train():
    data = dynamics.circle()
    lazy = dynamics.lazy_changes(128, steps=30)
    record = nh.train(dynamics.ARCH.network(2, width=128, seed=0), data.x_train, data.y_train, lr=1.0, steps=30)
    assert lazy.ntk == pytest.approx(record.ntk_change, rel=1e-10) and \
        lazy.features == pytest.approx(record.feature_change, rel=1e-10), (lazy, record.ntk_change)
    members = dynamics.ensemble_members([5, 6], data.x_test, width=64, steps=10)
    direct = nh.train(dynamics.ARCH.network(2, width=64, seed=6), data.x_train, data.y_train, lr=1.0, steps=10,
                      x_eval=data.x_test, track_kernels=False).outputs[-1]
    assert torch.allclose(members[1], direct, atol=1e-12), "seed 6 is the second member"


def test_explorer_title_carries_the_critical_rates_and_the_gap():
    """The static notebook keeps the figure but not the printed lines: the title must hold the numbers."""
    data = dynamics.circle()
    dynamics.draw_dynamics(64, 1.4, 100)
    title = plt.gca().get_title()
    run = dynamics.explorer_run(64, 1.4, 100)
    gap = float((run.outputs[-1] - run.formula_test).abs().max())
    for number in (f"{data.critical_lr:.2f}", f"{40 / run.own_start:.2f}", f"{gap:.3f}"):
        assert number in title, f"expected {number} in the title, got {title!r}"
    plt.close("all")
    dynamics.draw_dynamics(256, 3.5, 50)                  # diverged: the rates, no gap
    title = plt.gca().get_title()
    assert "diverged" in title and f"{data.critical_lr:.2f}" in title and "max |" not in title, title
    plt.close("all")


# ---------------------------------------------------------------- added: seeds, early stopping, the band, fits

def test_lazy_table_is_lazy_changes_for_every_width_and_seed():
    table = dynamics.lazy_table([64, 128], [0, 3])
    assert table.shape == (3, 2, 2), f"expected shape (3, 2, 2), got {table.shape}"
    run = dynamics.lazy_changes(128, seed=3)
    measured, expected = table[:, 1, 1], [run.output, run.ntk, run.features]
    assert np.allclose(measured, expected, rtol=1e-12), f"expected {expected}, measured {measured}"


def _numpy_regression(k_train, k_test, y, ridge=0.0):
    k_train, k_test, y = (np.asarray(a, dtype=float) for a in (k_train, k_test, y))
    return k_test @ np.linalg.solve(k_train + ridge * np.eye(len(y)), y)


def test_early_stopping_is_the_flow_and_ridge_regression_computed_directly():
    data = dynamics.circle()
    run = dynamics.early_stopping(0.5, points=5)
    labels = data.y_train.numpy() + 0.5 * torch.randn(20, generator=torch.Generator().manual_seed(0),
                                                      dtype=torch.float64).numpy()
    truth = dynamics.target(data.angles_test).numpy()
    lam, vectors = np.linalg.eigh(data.ntk_train.numpy())
    for t, flow_error, ridge_error in zip(run.times, run.flow_error, run.ridge_error):
        kept = vectors @ np.diag((1 - np.exp(-lam * t / 20)) / lam) @ vectors.T      # Θ^-1 (I - e^{-Θt/n})
        flow = data.ntk_test.numpy() @ kept @ labels
        assert flow_error == pytest.approx(((flow - truth) ** 2).mean(), rel=1e-6), (t, flow_error)
        ridge = _numpy_regression(data.ntk_train, data.ntk_test, labels, 20 / t)
        assert ridge_error == pytest.approx(((ridge - truth) ** 2).mean(), rel=1e-6), (t, ridge_error)
    ridgeless = _numpy_regression(data.ntk_train, data.ntk_test, labels)
    assert run.ridgeless == pytest.approx(((ridgeless - truth) ** 2).mean(), rel=1e-6), run.ridgeless
    assert run.best_time == run.times[run.flow_error.argmin()], run.best_time


def test_early_stopping_title_follows_the_errors():
    title = dynamics.draw_early_stopping(dynamics.early_stopping(0.5)).axes[0].get_title()
    assert "beats" in title, title
    plt.close("all")
    title = dynamics.draw_early_stopping(dynamics.early_stopping(0.0)).axes[0].get_title()
    assert "about as well" in title, title


def test_lesson_ridge_mse_is_numpy_regression():
    data = dynamics.circle()
    truth = dynamics.target(data.angles_test).numpy()
    for ridge in (0.0, 0.1):
        expected = ((_numpy_regression(data.ntk_train, data.ntk_test, data.y_train, ridge) - truth) ** 2).mean()
        assert dynamics.lesson_ridge_mse(ridge) == pytest.approx(expected, rel=1e-6), (ridge, expected)


def _band(time, points):
    """Σ_t(x, x) of Lee et al. (2019, eq. 16) with eta -> eta/n, written out with numpy."""
    data = dynamics.circle()
    kernels = dynamics.ARCH.kernel(torch.cat([data.x_train, points]))
    K, T = kernels.nngp.numpy(), kernels.ntk.numpy()
    lam, vectors = np.linalg.eigh(T[:20, :20])
    A = T[20:, :20] @ vectors @ np.diag((1 - np.exp(-lam * time / 20)) / lam) @ vectors.T
    cov = K[20:, 20:] + A @ K[:20, :20] @ A.T - A @ K[:20, 20:] - K[20:, :20] @ A.T
    return np.sqrt(np.clip(np.diag(cov), 0, None))


@pytest.mark.parametrize("time", [20, 200, 2000])
def test_band_widths_are_eq_16_written_out(time):
    data = dynamics.circle()
    at_inputs, between = dynamics.band_widths(time)
    expected_inputs = _band(time, data.x_train).max()
    expected_between = _band(time, dynamics.on_circle(data.angles_train + math.pi / 20)).max()
    assert at_inputs == pytest.approx(expected_inputs, rel=1e-6, abs=1e-8), (at_inputs, expected_inputs)
    assert between == pytest.approx(expected_between, rel=1e-6), (between, expected_between)


def test_band_closes_at_the_inputs_only():
    at_inputs, between = dynamics.band_widths(1e5)
    assert at_inputs < 1e-6 and between > 0.01, f"expected a closed band at the inputs, got {at_inputs}, {between}"


def test_fit_error_is_numpy_regression():
    n = 24
    angles = dynamics.training_angles(n)
    y = 1 + np.cos(angles.numpy())
    # ridgeless with the well-conditioned ReLU kernel; erf's smooth kernel needs a ridge for numpy to agree
    for name, ridge in (("ReLU, σ_b = 0.3", 0.0), ("erf, no bias", 0.5)):
        points = dynamics.on_circle(torch.cat([angles, dynamics.EVAL_ANGLES]))
        K = dynamics.KERNELS[name].kernel(points).ntk
        prediction = _numpy_regression(K[:n, :n], K[n:, :n], y, ridge)
        expected = ((prediction - 1 - np.cos(dynamics.EVAL_ANGLES.numpy())) ** 2).mean()
        error, _ = dynamics.fit_error(name, n, ((0, 1.0), (1, 1.0)), ridge)
        assert error == pytest.approx(expected, rel=1e-6), (ridge, error, expected)
    assert dynamics.fit_error("ReLU, no bias", 30, ((3, 1.0),))[0] / 0.5 == pytest.approx(
        dynamics.ridgeless_fit("ReLU, no bias", 3, 30)[1], rel=1e-10), "cos 3θ as ridgeless_fit"


def test_explorer_summaries_are_the_runs():
    losses = dynamics.final_losses(1.0, steps=20, widths=(64, 256))
    assert losses == {w: float(dynamics.explorer_run(w, 1.0, 20).loss[-1]) for w in (64, 256)}, losses
    steps = dynamics.divergence_steps(3.5, steps=30, widths=(64,))
    assert steps == {64: dynamics.explorer_run(64, 3.5, 30).diverged_at} and steps[64] is not None, steps
    assert dynamics.final_losses(3.5, steps=30, widths=(64,)) == {64: math.inf}, "a diverged run counts as inf"
    run = dynamics.explorer_run(64, 1.0, 20)
    expected = float((run.outputs[-1] - run.formula_test).abs().max())
    assert dynamics.explorer_gap(64, 1.0, 20) == expected, (dynamics.explorer_gap(64, 1.0, 20), expected)


def test_largest_correlation_is_numpys():
    rng = np.random.default_rng(0)
    a = rng.standard_normal((5, 8))
    covariance = a @ a.T
    sd = np.sqrt(np.diag(covariance))
    expected = np.abs(covariance / np.outer(sd, sd) - np.eye(5)).max()
    measured = dynamics.largest_correlation(torch.tensor(covariance))
    assert measured == pytest.approx(expected, rel=1e-12), (measured, expected)
    assert dynamics.largest_correlation(torch.eye(3, dtype=torch.float64)) == 0, "independent points: 0"


def test_snapshot_target_gap_is_the_distance_to_the_target():
    run = dynamics.snapshots("ntk", width=64, steps=(0, 5))
    data = dynamics.circle()
    expected = float((run.network[-1] - dynamics.target(data.angles_test)).abs().max())
    assert run.target_gap == pytest.approx(expected, rel=1e-12), (run.target_gap, expected)


def test_snapshot_formula_uses_the_networks_own_step0_ntk_in_both_rows():
    """Both rows' formula is the closed form with the network's own NTK at step 0 (NTK parameterization: all
    learning-rate factors 1, so the weighted NTK is nh.empirical_ntk); the analytic one is kept for "ntk"."""
    snap = dynamics.snapshots("ntk", width=64, steps=(0, 5))
    model = dynamics.ARCH.network(2, width=64, seed=0)
    data = dynamics.circle()
    own = nh.empirical_ntk(model, torch.cat([data.x_train, data.x_test]))
    with torch.no_grad():
        f0_train, f0_test = model(data.x_train)[:, 0], model(data.x_test)[:, 0]
    # one discrete step by hand, five times: f_train <- f_train - (lr/n) K (f_train - y), test likewise
    f_train, f_test = f0_train.clone(), f0_test.clone()
    for _ in range(5):
        residual = f_train - data.y_train
        f_test = f_test - own[20:, :20] @ residual / 20
        f_train = f_train - own[:20, :20] @ residual / 20
    assert torch.allclose(snap.formula[1], f_test, atol=1e-8), \
        f"expected {f_test[:3].tolist()}, measured {snap.formula[1][:3].tolist()}"
    assert snap.analytic is not None and dynamics.snapshots("mup", width=32, steps=(0, 2)).analytic is None, \
        "analytic formula: kept for ntk, None for mup"


def test_spectral_filters_are_the_closed_forms():
    lam = np.array([0.1, 1.0, 26.8])
    flow, ridge = dynamics.spectral_filters(lam, 12.0)
    assert np.allclose(flow, 1 - np.exp(-lam * 12 / 20)), f"flow filter {flow}"
    assert np.allclose(ridge, lam / (lam + 20 / 12)), f"ridge filter {ridge}"
    rho = 20 / 12      # the two filters cross 1/2 at lam = n ln2 / t and lam = rho
    half_flow = dynamics.spectral_filters(np.array([20 * math.log(2) / 12]), 12.0)[0][0]
    assert half_flow == pytest.approx(0.5, abs=1e-12), f"expected 0.5, measured {half_flow}"
    assert dynamics.spectral_filters(np.array([rho]), 12.0)[1][0] == pytest.approx(0.5), "ridge ½ at λ = ρ"
