"""ntk_helpers.course.parameterization (lesson 05b): the width exponents against the package's built networks, the
classification against cases known from Yang & Hu (2021) and against finite networks' one-step exponents, the
symmetry of the abc form, the initialization experiment against its closed form, and the explorer's sentences and
the figures' colours against what they describe."""

from fractions import Fraction

import matplotlib
import numpy as np
import pytest

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402

import ntk_helpers as nh  # noqa: E402
from ntk_helpers.course import parameterization as course  # noqa: E402

half = Fraction(1, 2)


# ---------------------------------------------------------------- the exponents against the built networks

def measured_exponents(parameterization: str):
    """Powers of m of Var W and of the effective learning rate (input, hidden, output), read off the package's
    networks at widths 256 and 1024 (weight_scale^2 and weight_scale^2 * lr_multiplier)."""
    layers = {m: [layer for layer in nh.mlp(2, "relu", parameterization=parameterization).network(8, width=m)
                  if isinstance(layer, nh.engine.dense.NTKDense)] for m in (256, 1024)}
    power = lambda small, large: round(float(np.log(large / small) / np.log(4)), 6)  # noqa: E731
    variance = [power(a.weight_scale ** 2, b.weight_scale ** 2) for a, b in zip(layers[256], layers[1024])]
    rate = [power(a.weight_scale ** 2 * a.lr_multiplier, b.weight_scale ** 2 * b.lr_multiplier)
            for a, b in zip(layers[256], layers[1024])]
    return variance, rate


@pytest.mark.parametrize("row, parameterization", [("NTK", "ntk"), ("μP", "mup"), ("standard, fixed η", "standard")])
def test_width_exponents_are_those_of_the_packages_networks(row, parameterization):
    expected = course.width_exponents(*course.ABC[row])
    variance, rate = measured_exponents(parameterization)
    assert variance == [float(e) for e in expected.variance], \
        f"{row}: Var exponents expected {expected.variance}, the package's network has {variance}"
    assert rate == [float(e) for e in expected.learning_rate], \
        f"{row}: learning-rate exponents expected {expected.learning_rate}, the package's network has {rate}"


def test_the_standard_rows_differ_only_in_c():
    fixed, scaled = (course.width_exponents(*course.ABC[r]) for r in ("standard, fixed η", "standard, η ∝ 1/m"))
    assert fixed.variance == scaled.variance, f"same variances expected: {fixed.variance} vs {scaled.variance}"
    assert [a - 1 for a in fixed.learning_rate] == list(scaled.learning_rate), \
        f"η ∝ 1/m lowers every rate exponent by 1: {fixed.learning_rate} vs {scaled.learning_rate}"


# ---------------------------------------------------------------- the classification

@pytest.mark.parametrize("row, r, regime", [("standard, fixed η", -1, "unstable"),
                                            ("standard, η ∝ 1/m", half, "kernel regime"),
                                            ("NTK", half, "kernel regime"), ("μP", 0, "feature learning")])
def test_the_rows_of_the_table_are_classified_as_yang_and_hu_do(row, r, regime):
    verdict = course.classify(*course.ABC[row])
    assert (verdict.r, verdict.regime) == (r, regime), f"{row}: expected r = {r}, {regime}; got {verdict}"


def test_mean_field_with_one_hidden_layer_learns_features():
    """The mean-field parameterization of a one-hidden-layer network (a = (0, 1), b = (0, 0), c = -1 in Yang & Hu's
    form) is a feature-learning limit (Mei et al. 2018; Chizat & Bach 2018): r = 0, stable, non-trivial."""
    verdict = course.classify((0, 0, 1), (0, 0, 0), -1, hidden_layers=1)
    assert verdict == course.Classification(Fraction(0), True, True, True, "feature learning"), f"got {verdict}"


def test_a_learning_rate_too_small_is_trivial():
    """NTK with eta m^-1: the output stops moving (r = 3/2, 2a_out + c = 2, a_out + b_out + r = 2)."""
    a, b, _ = course.ABC["NTK"]
    verdict = course.classify(a, b, 1)
    expected = (Fraction(3, 2), True, False, "trivial")
    assert (verdict.r, verdict.stable, verdict.nontrivial, verdict.regime) == expected, \
        f"expected r = 3/2, stable and trivial; got {verdict}"


def test_non_triviality_is_not_defined_for_an_unstable_parameterization():
    """Standard at a fixed eta (output moves like m^1) and the NTK variances with eta = (m, 1, 1/m), i.e.
    a = (0, 1/2, 1), b = (0, 0, -1/2), c = -1 (r = 1/2 - 2 + 1 = -1/2): unstable, so non-triviality is None."""
    for abc in (course.ABC["standard, fixed η"], ((0, half, 1), (0, 0, -half), -1)):
        verdict = course.classify(*abc)
        assert (verdict.stable, verdict.nontrivial, verdict.regime) == (False, None, "unstable"), f"{abc}: {verdict}"
        assert course.nontrivial_name(verdict) == "n/a (unstable)", course.nontrivial_name(verdict)
    assert course.classify((0, half, 1), (0, 0, -half), -1).r == -half
    assert course.nontrivial_name(course.classify(*course.ABC["NTK"])) == "True"


def test_an_output_that_blows_up_at_initialization_is_unstable():
    a, b, c = course.ABC["NTK"]
    verdict = course.classify(a, (0, 0, -half), c)                   # output variance m^0: f_0 ~ sqrt(m)
    assert not verdict.stable_at_init and verdict.regime == "unstable", f"got {verdict}"


@pytest.mark.parametrize("theta", [Fraction(-1), Fraction(1, 3), half, Fraction(2)])
@pytest.mark.parametrize("row", list(course.ABC))
def test_the_abc_symmetry_changes_nothing(row, theta):
    a, b, c = course.ABC[row]
    shifted = ([x + theta for x in a], [x - theta for x in b], c - 2 * theta)
    assert course.width_exponents(*shifted) == course.width_exponents(a, b, c), f"{row}, θ = {theta}"
    assert course.classify(*shifted) == course.classify(a, b, c), f"{row}, θ = {theta}"


@pytest.mark.parametrize("row", [r for r in course.ABC if course.classify(*course.ABC[r]).stable])
def test_r_is_minus_the_hidden_one_step_exponent(row):
    exponents = course.one_step_exponents(course.width_exponents(*course.ABC[row]))
    assert -course.classify(*course.ABC[row]).r == exponents[1], f"{row}: r vs one-step exponents {exponents}"


# ---------------------------------------------------------------- the one-step exponents against finite networks

@pytest.mark.parametrize("setting", list(course.SETTINGS))
def test_one_step_exponents_match_finite_networks(setting):
    widths = [128, 512, 2048]
    changes = np.array([course.one_step_changes(setting, m) for m in widths])
    measured = [nh.loglog_slope(widths, changes[:, j]) for j in range(3)]
    expected = [float(e) for e in course.one_step_exponents(course.width_exponents(*course.ABC[course.ROW[setting]]))]
    np.testing.assert_allclose(measured, expected, atol=0.1,
                               err_msg=f"{setting}: one-step exponents expected {expected}, measured {measured}")


def test_the_learning_rate_rule():
    assert course.learning_rate("standard, η = 1/m", 512) == pytest.approx(1 / 512, rel=1e-15)
    assert course.learning_rate("μP, η = 0.02", 512) == 0.02
    with pytest.raises(ValueError, match="setting"):
        course.learning_rate("muP", 64)


# ---------------------------------------------------------------- initialization against its closed form

def test_preactivations_with_he_variance_are_sqrt_2_and_shrink_by_sqrt_m_with_an_extra_one_over_m():
    """|x|^2 = d: with He's variance every layer's pre-activation variance is 2 (ReLU halves, 2/fan-in doubles);
    with 2/(fan-in m) each layer divides it by m, so RMS_l = sqrt(2) m^(-l/2)."""
    m = 1024
    he = course.preactivation_rms(m)
    shrunk = course.preactivation_rms(m, extra_one_over_m=True)
    np.testing.assert_allclose(he, np.sqrt(2), rtol=0.05, err_msg=f"He: expected √2 per layer, measured {he}")
    expected = [np.sqrt(2) * m ** (-layer / 2) for layer in (1, 2, 3)]
    np.testing.assert_allclose(shrunk, expected, rtol=0.1, err_msg=f"2/(fan-in·m): expected {expected}, got {shrunk}")


# ---------------------------------------------------------------- the explorer

@pytest.mark.parametrize("setting, width", [(s, m) for s in course.SETTINGS for m in (64, 256, 1024)]
                         + [("standard, fixed η = 0.005", 4096)])
def test_the_explorer_diverges_exactly_when_its_stability_number_exceeds_2(setting, width):
    record, stability = course.trained(setting, width)
    assert (record.diverged_at is not None) == (stability > 2), \
        f"{setting}, width {width}: η·λ_max/n = {stability:.3g}, diverged at {record.diverged_at}"
    text = course.describe_training(setting, width)
    assert ("diverged" in text) == (record.diverged_at is not None), f"{setting}, {width}: {text!r}"
    assert f"{stability:.3g}" in text, f"{setting}, {width}: the printed number {stability:.3g} is not in {text!r}"


def test_the_explorer_sentence_matches_the_measured_feature_change():
    for setting, width in [("NTK, η = 0.5", 256), ("μP, η = 0.02", 256)]:
        record, _ = course.trained(setting, width)
        text = course.describe_training(setting, width)
        assert f"{record.feature_change:.3g}" in text, f"{setting}: {text!r} lacks {record.feature_change:.3g}"
    lazy, learning = course.trained("NTK, η = 0.5", 1024)[0], course.trained("μP, η = 0.02", 1024)[0]
    assert lazy.feature_change < 0.01 < 0.2 < learning.feature_change, \
        f"lazy < 0.01 and feature learning > 0.2 expected: {lazy.feature_change:.3g}, {learning.feature_change:.3g}"


def test_mup_moves_its_hidden_matrix_by_a_vanishing_fraction_while_its_features_move_by_order_one():
    """Two hidden layers: ||dW||_F / ||W||_F falls like m^-1/2 (a nearly rank-one update of Theta(1) operator norm
    against ||W_0||_F ~ sqrt(m) ||W_0||_2 / 2), while h^2 and the operator-norm ratio do not fall."""
    small, large = course.hidden_matrix_movement(256), course.hidden_matrix_movement(1024)
    slope = np.log(large["frobenius"] / small["frobenius"]) / np.log(4)
    assert abs(slope + 0.5) < 0.1, f"Frobenius slope expected -0.5, measured {slope:.3f} ({small}, {large})"
    for key in ("operator", "features"):
        ratio = large[key] / small[key]
        assert 0.8 < ratio < 1.25, f"{key}: width-independent expected, 1024/256 ratio {ratio:.3f}"
    assert large["features"] > 0.3, f"features move by Theta(1): {large['features']:.3f}"
    for change in (small, large):               # ||dW||_F / ||dW||_2 lies in [1, sqrt(rank)], rank <= 50 * 16 inputs
        ratio = change["update_f_over_op"]
        assert 1 <= ratio <= np.sqrt(min(800, 256)), f"F/op of the update {ratio:.3f} outside [1, 16]"
    assert large["update_f_over_op"] ** 2 < 3 and small["update_f_over_op"] ** 2 < 3, \
        f"effective rank (F/op)^2 about 2 expected: {small['update_f_over_op']:.3f}, {large['update_f_over_op']:.3f}"


def test_the_change_of_h2_splits_into_the_update_s_own_part_and_the_part_passed_on():
    """dh^2 = dW x^1_T + W_0 dx^1 exactly (no bias), so the triangle inequality bounds |dh^2| by the two parts'
    sizes; under muP the passed-on part dominates, because h^1 itself moves by Theta(1)."""
    for width in (256, 1024):
        c = course.hidden_matrix_movement(width)
        low, high = abs(c["passed_on"] - c["own"]), c["passed_on"] + c["own"]
        assert low - 1e-9 <= c["features"] <= high + 1e-9, \
            f"width {width}: |dh^2| {c['features']:.4f} outside [{low:.4f}, {high:.4f}]"
        assert c["passed_on"] > 5 * c["own"], f"width {width}: passed on {c['passed_on']:.3f}, own {c['own']:.3f}"
        assert 0.2 < c["h1"] < 1, f"width {width}: h^1 moves by Theta(1), measured {c['h1']:.3f}"


def test_trained_feature_change_shrinks_for_ntk_and_is_nan_after_a_divergence():
    """NTK parameterization: h^1's 50-step change falls with the width (slope about -1/2); standard at fixed eta
    diverges at width 1024 (:func:`trained` says so), and then there is no change to report."""
    small, large = (course.trained_feature_change("NTK, η = 0.5", m) for m in (64, 1024))
    slope = np.log(large / small) / np.log(16)
    assert -0.8 < slope < -0.3, f"NTK: slope of h^1's change expected about -0.5, measured {slope:.3f}"
    assert course.trained("standard, fixed η = 0.005", 1024)[0].diverged_at is not None, "expected a divergence"
    assert np.isnan(course.trained_feature_change("standard, fixed η = 0.005", 1024)), "expected nan"


def test_movement_records_the_loss_before_and_after_training():
    """loss_start against the loss of the freshly built network, computed here; loss_end against the distance the
    outputs moved: ||f_T - f_0|| and ||y - f_0|| differ by at most ||f_T - y|| = sqrt(2 n loss_end)."""
    import torch
    x, y = course.training_data()
    run = course.movement("ntk", 256, lr=0.5, seed=1)
    with torch.no_grad():
        f0 = course.network("ntk", 256, seed=1)(x)[:, 0]
    expected = float(0.5 * ((f0 - y) ** 2).mean())
    assert run.loss_start == pytest.approx(expected, rel=1e-6), f"loss_start {run.loss_start}, expected {expected}"
    assert run.loss_end < run.loss_start, f"loss_end {run.loss_end} not below loss_start {run.loss_start}"
    gap = abs(run.outputs - float((y - f0).norm() / y.norm()))
    bound = float(np.sqrt(2 * len(y) * run.loss_end) / y.norm())
    assert gap <= bound * (1 + 1e-6), f"|output change - ||y - f_0||/||y||| = {gap}, bound {bound}"


def test_the_explorer_writes_its_sentences_under_the_figure():
    course.draw_training("NTK, η = 0.5", 256)
    texts = " ".join(t.get_text() for t in plt.gcf().texts)
    plt.close("all")
    record, stability = course.trained("NTK, η = 0.5", 256)
    assert f"{stability:.3g}" in texts and f"{record.feature_change:.3g}" in texts, f"figure texts: {texts!r}"


def test_the_explorer_draws_a_takeaway_title():
    course.draw_training("μP, η = 0.02", 64)
    title = plt.gcf()._suptitle.get_text()
    plt.close("all")
    assert title.startswith("Feature learning"), f"μP at width 64: title {title!r}"


def test_the_diverged_explorer_marks_the_step_whose_loss_overflowed():
    """The loss curve holds the finite losses of steps 0 .. diverged_at - 1; the title and a dotted line name the
    step diverged_at, whose loss was not finite."""
    record, _unused = course.trained("standard, fixed η = 0.005", 1024)
    course.draw_training("standard, fixed η = 0.005", 1024)
    right = plt.gcf().axes[1]
    title, lines = right.get_title(), right.get_lines()
    plt.close("all")
    assert record.diverged_at is not None and len(record.loss) == record.diverged_at, \
        f"curve ends one step before the overflow: {len(record.loss)} losses, diverged at {record.diverged_at}"
    assert str(record.diverged_at) in title, f"title {title!r} lacks step {record.diverged_at}"
    marks = [line for line in lines if np.allclose(line.get_xdata(), record.diverged_at)]
    assert len(marks) == 1, f"one vertical line at step {record.diverged_at}: {[l.get_xdata() for l in lines]}"


# ---------------------------------------------------------------- figures: colour is the parameterization

def test_one_step_figure_colours_by_parameterization():
    widths = [128, 512]
    changes = {s: np.array([course.one_step_changes(s, m) for m in widths]) for s in course.SETTINGS}
    slopes = course.draw_one_step(widths, changes)
    axes = plt.gcf().axes
    lines = [line for line in axes[0].get_lines() if not line.get_label().startswith("_")]
    plt.close("all")
    assert len(axes) == 3, f"one panel each for h¹, h², f: {len(axes)} axes"
    colours = {line.get_label(): (line.get_color(), line.get_linestyle()) for line in lines}
    assert colours["standard, fixed η = 0.005"][0] == colours["standard, η = 1/m"][0] == course.COLOURS["standard"], \
        f"both standard settings in the standard colour: {colours}"
    assert colours["standard, fixed η = 0.005"][1] != colours["standard, η = 1/m"][1], f"line styles: {colours}"
    assert colours["NTK, η = 0.5"][0] == course.COLOURS["ntk"] and colours["μP, η = 0.02"][0] == course.COLOURS["mup"]
    for setting, values in changes.items():               # each panel's slope: an independent log-log fit
        expected = [float(np.log(values[1, j] / values[0, j]) / np.log(widths[1] / widths[0])) for j in range(3)]
        assert slopes[setting] == pytest.approx(expected, abs=1e-9), f"{setting}: slopes {slopes[setting]}, " \
                                                                     f"expected {expected}"


def test_movement_figure_has_one_colour_per_panel_and_the_slopes_of_its_points():
    widths = [64, 256]
    rows = {p: [course.Movement(ntk=0.1 * m ** -0.7, feature_kernel=m ** -1.0, features=m ** -0.5,
                                weights=2 * m ** -0.5, outputs=2.0) for m in widths] for p in ("ntk", "mup")}
    slopes = course.draw_movement(widths, rows)
    axes = plt.gcf().axes
    plt.close("all")
    for ax, p in zip(axes, rows):
        assert {line.get_color() for line in ax.get_lines()} == {course.COLOURS[p]}, f"{p}: one colour per panel"
    assert slopes["ntk", "ntk"] == pytest.approx(-0.7, abs=1e-9) and slopes["mup", "features"] == pytest.approx(-0.5)


def test_names_are_defined_for_every_key():
    assert {course.row_name(r) for r in course.ABC} and {course.setting_name(s) for s in course.SETTINGS}
    for regime in ("unstable", "trivial", "kernel regime", "feature learning"):
        assert course.regime_name(regime), regime


def test_the_opening_figure_keeps_the_measured_slope_and_moves_points_by_one_constant():
    widths = np.array([128, 512, 2048])
    # measured h² changes with the predicted exponents (-1/2 for NTK, 0 for μP) put exactly on the lines,
    # and one (standard, fixed η) with a wrong slope 0.3 instead of 1/2: its points must keep the slope 0.3
    measured = {"NTK, η = 0.5": 0.007 * (widths / 128.0) ** -0.5, "μP, η = 0.02": np.full(3, 0.02),
                "standard, fixed η = 0.005": 0.005 * (widths / 128.0) ** 0.3}
    fig = course.idea_diagram(widths, measured)
    points = [line for line in fig.axes[0].get_lines() if line.get_linestyle() in ("None", "")]
    plt.close("all")
    assert len(points) == 3, f"one set of points per measured setting: {len(points)}"
    by_colour = {line.get_color(): np.asarray(line.get_ydata(), dtype=float) for line in points}
    ntk = by_colour[course.COLOURS["ntk"]]
    assert ntk == pytest.approx((widths / 64.0) ** -0.5, rel=1e-9), f"NTK points on the line (128/64)^-1/2: {ntk}"
    assert by_colour[course.COLOURS["mup"]] == pytest.approx(np.ones(3), rel=1e-9), "μP points on the line 1"
    standard = by_colour[course.COLOURS["standard"]]
    slope = float(np.polyfit(np.log(widths), np.log(standard), 1)[0])
    assert slope == pytest.approx(0.3, abs=1e-9), f"the measured slope is kept: expected 0.3, drawn {slope}"


def test_movement_markers_are_offset_sideways_but_keep_their_values():
    widths = [64, 256]
    rows = {"mup": [course.Movement(ntk=0.5, feature_kernel=0.5, features=0.5, weights=0.5, outputs=1.0)
                    for _m in widths]}
    course.draw_movement(widths, rows)
    markers = [line for line in plt.gcf().axes[0].get_lines() if line.get_linestyle() in ("None", "")]
    plt.close("all")
    xs = {tuple(np.round(line.get_xdata(), 6)) for line in markers}
    assert len(xs) == 4, f"four distinct x positions for four equal quantities: {xs}"
    for line in markers:
        assert np.allclose(line.get_ydata(), 0.5), f"values unchanged: {line.get_ydata()}"
        ratio = np.asarray(line.get_xdata()) / widths
        assert 0.8 < ratio[0] < 1.25 and ratio[0] == pytest.approx(ratio[1]), f"offset by one factor: {ratio}"


def test_one_step_changes_are_cached_but_returned_as_new_arrays():
    first = course.one_step_changes("NTK, η = 0.5", 128)
    first[:] = 0
    second = course.one_step_changes("NTK, η = 0.5", 128)
    assert np.all(second > 0), f"a caller's change does not reach the cache: {second}"


def test_parameterization_names():
    assert course.parameterization_name("mup") == "μP" and course.parameterization_name("ntk")
