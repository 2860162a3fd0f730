"""Lesson 00's machinery (ntk_helpers.course.tour), each part against a computation of its own."""

import math

import matplotlib

matplotlib.use("Agg")

import numpy as np  # noqa: E402
import pytest  # noqa: E402
import torch  # noqa: E402

import ntk_helpers as nh  # noqa: E402
from ntk_helpers.course import tour  # noqa: E402


def gradient(model, x):
    """d f(x) / d theta of one input, flattened, by plain autograd."""
    params = [p for p in model.parameters() if p.requires_grad]
    return torch.cat([g.reshape(-1) for g in torch.autograd.grad(model(x[None]).reshape(()), params)])


def test_one_step_is_one_gradient_step_and_its_prediction_is_the_kernel_of_the_gradients():
    net, width, lr, push = nh.mlp(2, "erf"), 64, 0.3, 0.7
    step = tour.one_step(net, width=width, lr=lr, push=push, n=8, seed=3)
    # the same step, written out: the gradient of (f(x0) - y0)^2 / 2 is (f(x0) - y0) df(x0)/dtheta = -push g0
    _, x = nh.circle(8)
    model = net.network(2, width=width, seed=3)
    with torch.no_grad():
        before = model(x).reshape(-1)
    g0 = gradient(model, x[0])
    theta = torch.stack([gradient(model, xi) @ g0 for xi in x])
    with torch.no_grad():
        offset = 0
        for p in model.parameters():
            p += lr * push * g0[offset:offset + p.numel()].reshape(p.shape)
            offset += p.numel()
        after = model(x).reshape(-1)
    order = [5, 6, 7, 0, 1, 2, 3, 4]                             # circle point k is at 45° k: -135°, ..., 180°
    assert np.allclose(step.degrees, [-135, -90, -45, 0, 45, 90, 135, 180]), step.degrees
    assert np.allclose(step.measured, (after - before).numpy()[order], rtol=1e-10, atol=1e-12), \
        f"measured change: expected {(after - before).numpy()[order]}, got {step.measured}"
    assert np.allclose(step.predicted, (lr * push * theta).numpy()[order], rtol=1e-10), \
        f"first-order prediction: expected {(lr * push * theta).numpy()[order]}, got {step.predicted}"
    limit = net.kernel(x, x[:1]).ntk[:, 0].numpy()[order] * lr * push
    assert np.allclose(step.limit, limit, rtol=1e-12), f"limit: expected {limit}, got {step.limit}"


def test_the_first_order_gap_of_a_smooth_network_shrinks_like_the_learning_rate():
    """For a smooth activation the Taylor remainder is O(lr^2) against a first-order change O(lr)."""
    gaps = [tour.one_step(nh.mlp(2, "erf"), width=256, lr=lr, n=24, seed=0).taylor_gap for lr in (0.2, 0.05)]
    ratio = gaps[1] / gaps[0]
    assert 0.2 < ratio < 0.3, f"quartering lr should divide the gap by about 4: gaps {gaps}, ratio {ratio:.3f}"


def test_one_step_refuses_a_step_that_is_no_step():
    for lr, push in ((0.0, 1.0), (-0.1, 1.0), (math.nan, 1.0), (0.1, 0.0), (0.1, math.inf)):
        with pytest.raises(ValueError, match="lr"):
            tour.one_step(nh.mlp(1, "relu"), width=8, lr=lr, push=push)


def test_the_angle_shortcut_equals_the_normalized_gram_matrix():
    """Theta(x, x) is the same for inputs of one norm, so one kernel row, divided by its first entry, is the
    correlation: compared with the full normalized Gram matrix of the same inputs."""
    x = tour._profile_inputs()[::6]                              # 0°, 15°, ..., 180°
    for activation in ("relu", "erf", "gelu", "leaky_relu"):
        full = nh.normalize(nh.mlp(3, activation).kernel(x).ntk)[0].numpy()
        row = tour.normalized_by_angle(3, activation)[::6]
        assert np.allclose(row, full, atol=1e-12), f"{activation}: shortcut {row} vs normalized Gram {full}"


def test_relu_at_depth_one_follows_the_arc_cosine_formula():
    """One hidden ReLU layer, sigma_w^2 = 2, no bias, |x|^2 = d: normalized NTK = (sin t + 2 (pi - t) cos t) / (2 pi)."""
    t = np.radians(tour.PROFILE_DEGREES)
    expected = (np.sin(t) + 2 * (np.pi - t) * np.cos(t)) / (2 * np.pi)
    profile = tour.angle_profile(1, "relu")
    assert np.allclose(profile.values, expected, atol=1e-12), f"max error {np.abs(profile.values - expected).max()}"
    assert np.allclose(profile.depth_one, expected, atol=1e-12)


def test_a_linear_network_keeps_the_cosine_at_every_depth():
    for depth in (1, 7, 50):
        values = tour.angle_profile(depth, "identity").values
        assert np.allclose(values, np.cos(np.radians(tour.PROFILE_DEGREES)), atol=1e-12), f"depth {depth}: {values}"


def test_the_gram_panel_is_the_normalized_kernel_of_twelve_circle_points():
    profile = tour.angle_profile(4, "gelu")
    gram = profile.gram
    assert gram.shape == (12, 12) and np.allclose(np.diag(gram), 1.0), np.diag(gram)
    # a circulant matrix: entry (i, j) is the curve at the angle 30° |i - j| (folded to 0..180)
    for i in range(12):
        for j in range(12):
            angle = 30.0 * min((i - j) % 12, (j - i) % 12)
            assert abs(gram[i, j] - profile.at(angle)) < 1e-10, f"({i}, {j}): {gram[i, j]} vs {profile.at(angle)}"


@pytest.mark.parametrize("activation", list(nh.ACTIVATIONS))
def test_every_slider_setting_gives_a_finite_correlation(activation):
    for depth in (1, 50):
        profile = tour.angle_profile(depth, activation)
        for values in (profile.values, profile.depth_one, profile.gram):
            assert np.isfinite(values).all() and np.abs(values).max() <= 1 + 1e-9, \
                f"{activation}, depth {depth}: values from {values.min()} to {values.max()}"
        assert profile.at(0) == pytest.approx(1.0, abs=1e-12)


def test_the_title_reads_the_curve_and_never_shows_minus_zero():
    guide = "the flatter the curve, the less the kernel tells the angles apart\n"
    title = tour.profile_title(tour.angle_profile(50, "erf"))
    assert title == guide + "erf, depth 50: 0.00 at 30°, 0.00 at 90°, -1.00 at 180°", title
    relu = tour.angle_profile(50, "relu")
    near, mid, far = (round(relu.at(a), 2) for a in (30, 90, 180))
    expected = guide + f"relu, depth 50: {near:.2f} at 30°, {mid:.2f} at 90°, {far:.2f} at 180°"
    assert tour.profile_title(relu) == expected, f"expected {expected!r}, got {tour.profile_title(relu)!r}"


def test_the_effective_rank_of_the_gram_panel_matches_closed_forms():
    """identity: K_ij = cos(30° (i - j)), tr K = 12 and ||K||_F^2 = 12 * sum_k cos^2(30° k) = 72, so 144 / 72 = 2;
    erf at depth 50 (chaotic, odd): K -> I - P with P the pairing of opposite points, 144 / 24 = 6; deep ReLU:
    K -> 3/4 I + 1/4 11^T, whose effective rank is 16 n / (n + 15) = 64/9 for n = 12."""
    identity = tour.gram_rank(tour.angle_profile(3, "identity"))
    assert identity == pytest.approx(2.0, abs=1e-9), f"identity: expected 2, got {identity}"
    erf = tour.gram_rank(tour.angle_profile(50, "erf"))
    assert erf == pytest.approx(6.0, abs=1e-3), f"erf, depth 50: expected about 6, got {erf}"
    relu = [tour.gram_rank(tour.angle_profile(depth, "relu")) for depth in (2, 50, 1000)]
    assert relu[0] < relu[1] < relu[2] < 64 / 9, f"relu: expected to rise towards 64/9 = 7.11, got {relu}"
    assert relu[2] == pytest.approx(64 / 9, abs=0.1), f"relu, depth 1000: expected about 7.11, got {relu[2]}"
    title = tour.gram_title(tour.angle_profile(3, "identity"))
    assert title.endswith("\neffective rank 2.0 (12: all unrelated, 1: all alike)"), title


def test_the_gaps_title_names_the_larger_gap():
    for activation, lr in (("relu", 0.1), ("erf", 0.1), ("relu", 2.0)):
        step = tour.one_step(nh.mlp(2, activation), width=256, lr=lr, n=24, seed=0)
        title = tour.gaps_title(step)
        larger_first = "finite width" if step.width_gap >= step.taylor_gap else "first order"
        assert title.index(larger_first) < 20, \
            f"{activation}, lr {lr}: gaps {step.width_gap:.4f} (width) and {step.taylor_gap:.4f}, title {title!r}"
        assert f"{step.width_gap:.1%}" in title and f"{step.taylor_gap:.2%}" in title, title


def test_bad_settings_are_refused_with_a_message():
    with pytest.raises(ValueError, match="activation"):
        tour.angle_profile(3, "softplus")
    with pytest.raises(ValueError, match="depth"):
        tour.angle_profile(0, "relu")
    with pytest.raises(ValueError, match="no input at 31"):
        tour.angle_profile(3, "relu").at(31)


def test_the_course_map_boxes_do_not_overlap_and_stay_in_the_figure():
    import matplotlib.pyplot as plt

    for lesson_style in (False, True):
        with matplotlib.rc_context():
            if lesson_style:
                nh.plotting.use_style()
            figure = tour.draw_course_map()
            figure.canvas.draw()
            renderer = figure.canvas.get_renderer()
            boxes = [t.get_bbox_patch().get_window_extent(renderer) for t in figure.axes[0].texts
                     if t.get_bbox_patch()]
            assert len(boxes) == 4, f"expected 4 boxes, found {len(boxes)}"
            overlapping = [(a, b) for a in range(4) for b in range(a + 1, 4) if boxes[a].overlaps(boxes[b])]
            assert not overlapping, f"boxes {overlapping} overlap"
            page = figure.bbox
            outside = [b for b in boxes if b.x0 < page.x0 or b.x1 > page.x1 or b.y0 < page.y0 or b.y1 > page.y1]
            assert not outside, f"boxes {outside} leave the figure {page}"
            plt.close(figure)


def test_the_kernel_gap_is_the_width_gap_of_one_step_without_the_step():
    for activation, width, seed in (("relu", 64, 0), ("erf", 128, 5)):
        net = nh.mlp(2, activation)
        step = tour.one_step(net, width=width, lr=0.2, n=24, seed=seed)
        gap = tour.kernel_gap(net, width=width, n=24, seed=seed)
        assert gap == pytest.approx(step.width_gap, rel=1e-10), f"{activation}: {gap} vs {step.width_gap}"
    with pytest.raises(ValueError, match="width"):
        tour.kernel_gap(nh.mlp(1, "relu"), width=0)


def test_switched_counts_the_pre_activations_that_change_sign_in_the_step():
    """Recount, by hand, the (hidden unit, input) pairs whose pre-activation changes sign, with the first hidden
    layer computed directly from the weights; a step too small to cross 0 switches nothing."""
    net, width, lr = nh.mlp(1, "relu"), 64, 0.5
    step = tour.one_step(net, width=width, lr=lr, n=24, seed=1)
    _, x = nh.circle(24)
    model = net.network(2, width=width, seed=1)
    dense = model[0]
    params = [p for p in model.parameters() if p.requires_grad]
    pre = lambda: x @ dense.weight.T                     # no bias, positive scale: the sign of W x
    with torch.no_grad():
        before = pre() > 0
        output = model(x).reshape(-1)
    loss = 0.5 * (model(x[:1]).reshape(()) - (output[0] + 1.0)) ** 2
    with torch.no_grad():
        for p, g in zip(params, torch.autograd.grad(loss, params)):
            p -= lr * g
        after = pre() > 0
    expected = int((before != after).sum())
    assert expected > 0, "this step should switch some units"
    assert step.switched == expected, f"switched: expected {expected}, got {step.switched}"
    tiny = tour.one_step(net, width=width, lr=1e-9, n=24, seed=1)
    assert tiny.switched == 0, f"a step of 1e-9 switched {tiny.switched} pairs"


def test_the_settings_note_names_the_saved_frame():
    note = tour.settings_note(depth=7, activation="gelu")
    assert note.startswith("The saved figure shows gelu at depth 7."), note
