"""ntk_helpers.course.linearization: lesson 01's one-step, lazy-training and training-picture experiments.

Each test compares with a computation that does not go through the function under test: a model that is linear
in its parameters (for which the linearization is exact), the NTK by another method, a gradient-descent loop
written out here, or the closed form of kernel regression solved with ``torch.linalg.solve``.
"""

import math

import numpy as np
import pytest
import torch

import ntk_helpers as nh
from ntk_helpers.course import linearization

ANGLES, CIRCLE = nh.circle(16)
RELU = nh.mlp(1, "relu", sigma_b=0.1)


class Linear(torch.nn.Module):
    """f(x; theta) = theta . psi(x) with fixed random features psi: linear in theta, so f_lin = f exactly."""

    def __init__(self, d=2, features=5, seed=0):
        super().__init__()
        g = torch.Generator().manual_seed(seed)
        self.register_buffer("project", torch.randn(d, features, generator=g, dtype=torch.float64))
        self.theta = torch.nn.Parameter(torch.randn(features, 1, generator=g, dtype=torch.float64))

    def features(self, x):
        return torch.tanh(x @ self.project)

    def forward(self, x):
        return self.features(x) @ self.theta


def test_gradient_path_of_a_linear_model_is_its_tangent():
    model = Linear()
    path = linearization.gradient_path(model, CIRCLE[:1], [-2.0, -0.5, 0.0, 1.0, 3.0])
    np.testing.assert_allclose(path, [-2.0, -0.5, 0.0, 1.0, 3.0], atol=1e-12)


def test_gradient_path_has_slope_one_and_leaves_the_model_unchanged():
    net = RELU.network(2, width=64, seed=0)
    before = [p.detach().clone() for p in net.parameters()]
    h = 1e-5
    path = linearization.gradient_path(net, CIRCLE[3:4], [-h, h])
    assert (path[1] - path[0]) / (2 * h) == pytest.approx(1.0, abs=1e-4), f"slope at 0: {path}"
    assert all(torch.equal(a, b) for a, b in zip(before, net.parameters())), "gradient_path changed the model"


def test_gradient_path_of_a_narrow_network_bends_more_than_a_wide_one():
    shifts = [-3.0, 3.0]
    bend = lambda width: np.abs(linearization.gradient_path(RELU.network(2, width=width, seed=0), CIRCLE[:1],
                                                            shifts) - shifts).max()
    assert bend(16) > 10 * bend(4096), f"width 16: {bend(16):.3g}, width 4096: {bend(4096):.3g}"


def test_one_step_of_a_linear_model_is_exactly_the_kernel_prediction():
    step = linearization.one_step(Linear(), CIRCLE, 3, lr=0.7, change=1.5)
    np.testing.assert_allclose(step.actual, step.predicted, atol=1e-12)
    assert step.gap < 1e-12 and step.residual == -1.5


def test_one_step_prediction_is_the_ntk_column_computed_another_way():
    net = RELU.network(2, width=32, seed=1)
    step = linearization.one_step(net, CIRCLE, 5, lr=0.3)
    column = nh.empirical_ntk(net, CIRCLE, CIRCLE[5:6], method="naive").reshape(-1).numpy()
    np.testing.assert_allclose(step.predicted, 0.3 * column, rtol=1e-10)


def test_one_step_actual_change_matches_a_step_written_out():
    net = RELU.network(2, width=32, seed=2)
    step = linearization.one_step(net, CIRCLE, 0, lr=0.5, change=2.0)
    manual = RELU.network(2, width=32, seed=2)
    before = manual(CIRCLE).detach().reshape(-1)
    out = manual(CIRCLE[:1]).reshape(())
    grads = torch.autograd.grad(0.5 * (out - (out.detach() + 2.0)) ** 2, list(manual.parameters()))
    with torch.no_grad():
        for p, g in zip(manual.parameters(), grads):
            p -= 0.5 * g
    np.testing.assert_allclose(step.actual, (manual(CIRCLE).detach().reshape(-1) - before).numpy(), atol=1e-12)


def test_one_step_gap_shrinks_with_width_and_with_the_step():
    gap = lambda width, lr: linearization.one_step(nh.mlp(1, "erf", sigma_b=0.1).network(2, width=width, seed=0),
                                                   CIRCLE, 4, lr=lr).gap
    assert gap(64, 1.0) > 4 * gap(4096, 1.0), f"width: {gap(64, 1.0):.3g} vs {gap(4096, 1.0):.3g}"
    # second-order error over first-order change: the relative gap is about proportional to the step
    ratio = gap(256, 0.1) / gap(256, 1.0)
    assert 0.05 < ratio < 0.2, f"gap(lr=0.1) / gap(lr=1) = {ratio:.3g}, expected about 0.1"


def test_one_step_leaves_the_model_unchanged_and_rejects_bad_input():
    net = RELU.network(2, width=8, seed=0)
    before = [p.detach().clone() for p in net.parameters()]
    linearization.one_step(net, CIRCLE, 0)
    assert all(torch.equal(a, b) for a, b in zip(before, net.parameters()))
    with pytest.raises(ValueError, match="index"):
        linearization.one_step(net, CIRCLE, 16)
    with pytest.raises(ValueError, match="lr > 0"):
        linearization.one_step(net, CIRCLE, 0, lr=0.0)


def test_one_step_stays_finite_at_the_explorers_extremes():
    for activation in ("relu", "erf", "identity"):
        for width, lr in ((16, 2.0), (16384, 0.25), (16384, 2.0)):
            step = linearization.one_step(nh.mlp(1, activation, sigma_b=0.1).network(2, width=width, seed=0),
                                          nh.circle(64)[1], 16, lr=lr)
            assert np.isfinite(step.actual).all() and math.isfinite(step.gap), (activation, width, lr)


def test_lazy_run_matches_gradient_descent_written_out():
    x, change = CIRCLE[:5], torch.sin(ANGLES[:5])
    net = RELU.network(2, width=48, seed=3)
    run = linearization.lazy_run(net, x, change, lr=0.5, steps=30)
    manual = RELU.network(2, width=48, seed=3)
    f0 = manual(x).detach().reshape(-1)
    theta0 = nh.empirical_ntk(manual, x, method="naive")
    w0 = [p.detach().clone() for p in manual.parameters() if p.ndim == 2]
    optimizer = torch.optim.SGD(manual.parameters(), lr=0.5)
    for _ in range(30):
        optimizer.zero_grad()
        (0.5 * (manual(x).reshape(-1) - f0 - change).pow(2).mean()).backward()
        optimizer.step()
    w1 = [p.detach() for p in manual.parameters() if p.ndim == 2]
    moved = math.sqrt(sum(float((a - b).pow(2).sum()) for a, b in zip(w1, w0)))
    size = math.sqrt(sum(float(b.pow(2).sum()) for b in w0))
    theta1 = nh.empirical_ntk(manual, x, method="naive")
    assert run.weight_change == pytest.approx(moved / size, rel=1e-9)
    assert run.kernel_change == pytest.approx(float((theta1 - theta0).norm() / theta0.norm()), rel=1e-9)
    f1 = manual(x).detach().reshape(-1)
    assert run.function_change == pytest.approx(float((f1 - f0).norm() / change.norm()), rel=1e-9)


def test_lazy_sweep_weights_move_like_one_over_root_width():
    angles, x = nh.circle(7)
    sweep = linearization.lazy_sweep(RELU, x, torch.sin(2 * angles), widths=[64, 256, 1024], lr=1.0, steps=60,
                                     seeds=2)
    assert sweep.weight_change.shape == (3, 2)
    assert -0.65 < sweep.slope("weight_change") < -0.35, sweep.weight_change
    assert sweep.slope("kernel_change") < -0.4, sweep.kernel_change
    assert abs(sweep.slope("function_change")) < 0.05, sweep.function_change
    with pytest.raises(ValueError, match="quantity"):
        sweep.slope("loss")


def test_lazy_run_of_a_linear_model_has_a_fixed_kernel():
    run = linearization.lazy_run(Linear(), CIRCLE[:4], torch.ones(4), lr=0.5, steps=20)
    assert run.kernel_change < 1e-14 and run.weight_change > 0


def test_training_picture_of_a_linear_model_is_its_linearization():
    model = Linear(features=6)
    x, y = CIRCLE[::4], torch.cos(ANGLES[::4])
    picture = linearization.training_picture(model, x, y, CIRCLE, lr=0.5, steps=50, record_every=10)
    assert list(picture.steps) == [0, 10, 20, 30, 40, 50]
    np.testing.assert_allclose(picture.network, picture.linearized, atol=1e-10)


def test_training_picture_end_points_are_kernel_regression_solved_directly():
    net = RELU.network(2, width=64, seed=0)
    x, y = CIRCLE[::3], torch.sin(ANGLES[::3])
    picture = linearization.training_picture(net, x, y, CIRCLE, lr=1.0, steps=0)
    k, k_eval = nh.empirical_ntk(net, x, method="naive"), nh.empirical_ntk(net, CIRCLE, x, method="naive")
    f0, f0_eval = net(x).detach().reshape(-1), net(CIRCLE).detach().reshape(-1)
    np.testing.assert_allclose(picture.with_offset, (f0_eval + k_eval @ torch.linalg.solve(k, y - f0)).numpy(),
                               atol=1e-6)
    np.testing.assert_allclose(picture.without_offset, (k_eval @ torch.linalg.solve(k, y)).numpy(), atol=1e-6)
    np.testing.assert_allclose(picture.network[0], f0_eval.numpy(), atol=1e-14)      # step 0 is the start
    np.testing.assert_allclose(picture.linearized[0], f0_eval.numpy(), atol=1e-12)


def test_training_picture_linearization_is_the_discrete_closed_form_of_lesson_01():
    # Lesson 01, section 1: f_t(X) = y + (I - lr K/n)^t (f_0(X) - y) on the training inputs, and
    # f_t(x) = f_0(x) + K(x, X) K^-1 (f_t(X) - f_0(X)) elsewhere; matrix powers computed here, not by the module.
    net = RELU.network(2, width=64, seed=3)
    x, y = CIRCLE[::3], torch.sin(ANGLES[::3])
    lr, n = 1.0, x.shape[0]
    picture = linearization.training_picture(net, x, y, torch.cat([x, CIRCLE]), lr=lr, steps=12, record_every=4)
    k, k_eval = nh.empirical_ntk(net, x, method="naive"), nh.empirical_ntk(net, CIRCLE, x, method="naive")
    f0, f0_eval = net(x).detach().reshape(-1), net(CIRCLE).detach().reshape(-1)
    step = torch.eye(n, dtype=k.dtype) - lr * k / n
    for row, t in enumerate(picture.steps):
        on_train = y + torch.linalg.matrix_power(step, int(t)) @ (f0 - y)
        elsewhere = f0_eval + k_eval @ torch.linalg.solve(k, on_train - f0)
        np.testing.assert_allclose(picture.linearized[row, :n], on_train.numpy(), atol=1e-9,
                                   err_msg=f"step {t}: training inputs, closed form vs module")
        np.testing.assert_allclose(picture.linearized[row, n:], elsewhere.numpy(), atol=1e-8,
                                   err_msg=f"step {t}: other inputs, closed form vs module")


def test_training_picture_a_wide_network_follows_its_linearization_better():
    # erf: smooth, so the gap falls cleanly with the width (ReLU's kinks make single seeds scatter)
    x, y, erf = CIRCLE[::3], torch.sin(ANGLES[::3]), nh.mlp(1, "erf", sigma_b=0.1)
    gap = lambda width: linearization.training_picture(erf.network(2, width=width, seed=0), x, y, CIRCLE,
                                                       lr=1.0, steps=60, record_every=20).gap
    assert gap(4096) < 0.25 * gap(64), f"width 64: {gap(64):.3g}, width 4096: {gap(4096):.3g}"


def test_titles_carry_the_numbers_and_say_what_to_see():
    step = linearization.one_step(Linear(), CIRCLE, 0)          # linear in theta: gap 0
    title = linearization.one_step_title(step, 256)
    assert title.startswith("width 256: the dots follow the kernel's line (off by "), title
    narrow = linearization.one_step(RELU.network(2, width=16, seed=0), CIRCLE, 2, lr=2.0)
    assert narrow.gap > 0.05, f"expected a gap above 5 %, got {narrow.gap:.3g}"
    title = linearization.one_step_title(narrow, 16)
    assert title.startswith("width 16: the dots leave the kernel's line (off by "), title
    title = linearization.kernel_error_title("erf", 3, 0.0812)
    assert title == "erf, depth 3: the dots lie near the line (one network's NTK off by 8.1%)", title
    title = linearization.kernel_error_title("relu", 4, 0.226)
    assert title == "relu, depth 4: the dots scatter around the line (one network's NTK off by 22.6%)", title


def test_frozen_pattern_step_equals_the_step_when_no_unit_crosses_and_is_linear_in_lr():
    net = RELU.network(2, width=64, seed=1)
    tiny = 1e-6                     # no pre-activation crosses 0: the frozen model is the network
    frozen, full = (linearization.frozen_pattern_step(net, CIRCLE, 3, lr=tiny),
                    linearization.one_step(net, CIRCLE, 3, lr=tiny))
    np.testing.assert_allclose(frozen.actual, full.actual, rtol=1e-6, atol=1e-15,
                               err_msg="frozen pattern vs full step at a tiny lr")
    np.testing.assert_allclose(frozen.predicted, full.predicted, rtol=1e-12, err_msg="same kernel prediction")
    # The frozen model is bilinear in (first layer, readout): change = lr a + lr^2 b, prediction lr a.
    gaps = [linearization.frozen_pattern_step(net, CIRCLE, 3, lr=lr).gap for lr in (0.5, 1.0, 2.0)]
    np.testing.assert_allclose(np.array(gaps[1:]) / gaps[0], [2.0, 4.0], rtol=1e-8,
                               err_msg=f"frozen-pattern gaps {gaps} should be proportional to lr")


def test_one_step_gap_is_the_relative_distance_in_two_norm():
    step = linearization.one_step(RELU.network(2, width=32, seed=4), CIRCLE, 2, lr=0.8)
    expected = np.sqrt(((step.actual - step.predicted) ** 2).sum() / (step.predicted ** 2).sum())
    assert step.gap == pytest.approx(expected, rel=1e-12)


def test_percent_keeps_two_significant_digits():
    cases = {0.172: "17 %", 0.0196: "2.0 %", 0.00313: "0.31 %", 0.000575: "0.057 %", 0.0996: "10 %",
             0.00999: "1.0 %", 1.0: "100 %", 0.0: "0 %", -0.013: "-1.3 %"}
    assert {value: linearization.percent(value) for value in cases} == cases
