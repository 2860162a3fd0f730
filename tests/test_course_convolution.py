"""Lesson 03's machinery (ntk_helpers.course.convolution), each part against a computation of its own: the
diagram's cells against the convolution's kernel, the span formula against the layers' geometry, the spread of
a linear network's NTK against its chi-square law, the cosines against the exact kernels."""

import math

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pytest  # noqa: E402
import torch  # noqa: E402
from matplotlib.patches import Rectangle  # noqa: E402

import ntk_helpers as nh  # noqa: E402
from ntk_helpers.course import convolution as cnn  # noqa: E402


def spike(at: int, length: int) -> torch.Tensor:
    x = torch.zeros(1, 1, 1, length, dtype=torch.float64)
    x[..., at] = 1.0
    return x


def conv_stack(depth, *, dilation=1, stride=1):
    """The lesson's stack: 1 x 3 convolutions with ReLU between them, one output channel at the end."""
    layer = lambda out=None: nh.conv(out, kernel_size=(1, 3), dilation=(1, dilation), stride=(1, stride),
                                     sigma_w=math.sqrt(2))
    layers = []
    for _ in range(depth - 1):
        layers += [layer(), nh.relu()]
    return nh.serial(*layers, layer(1))


def sensitivity(arch, signal, width=8, seed=0):
    """d f_p / d x_q by autograd, one output unit at a time (slow and plain)."""
    model = arch.network(tuple(signal.shape), width=width, seed=seed)
    x = signal[None].clone().requires_grad_()
    out = model(x)[0, 0, 0]
    rows = [torch.autograd.grad(out[p], x, retain_graph=True)[0][0, 0, 0] for p in range(out.shape[0])]
    return torch.stack(rows)


# ------------------------------------------------------------------------------------------ the diagram

def test_the_shared_offset_cells_are_where_one_convolution_reads_the_input_kernel():
    """Entry (p, p') of one convolution's kernel is nonzero for spikes at (i, j) exactly when (i, j) is one of
    the cells the diagram highlights."""
    length, conv = 9, nh.conv(kernel_size=(1, 3), padding="circular")
    for p, p_prime in [(3, 6), (4, 4), (2, 5)]:
        cells = set(cnn.shared_offset_cells(p, p_prime))
        for i in range(length):
            for j in range(length):
                entry = float(conv.kernel(spike(i, length), spike(j, length)).nngp[0, 0, 0, p, 0, p_prime])
                assert (abs(entry) > 1e-12) == ((i, j) in cells), \
                    f"(p, p')=({p}, {p_prime}), spikes ({i}, {j}): entry {entry}"


def test_the_diagram_colours_exactly_the_shared_offset_cells():
    fig = cnn.draw_shared_offsets(p=3, p_prime=6, length=10)
    left, right = fig.axes[:2]
    white = (1.0, 1.0, 1.0)
    coloured = {(int(r.get_y()), int(r.get_x())) for r in right.patches
                if isinstance(r, Rectangle) and r.get_facecolor()[3] > 0 and r.get_facecolor()[:3] != white}
    assert coloured == set(cnn.shared_offset_cells(3, 6)), coloured
    framed = [r for r in right.patches if isinstance(r, Rectangle) and r.get_facecolor()[3] == 0]
    assert [(int(r.get_y()), int(r.get_x())) for r in framed] == [(3, 6)]
    plt.close(fig)


def test_pixel_pair_panels_scale_each_panel_to_its_largest_entry():
    kernels = [torch.eye(6, dtype=torch.float64) * 3, torch.ones(6, 6, dtype=torch.float64) * -0.5]
    fig = cnn.pixel_pair_panels(kernels, ["a", "b"], suptitle="s", diagonal=True)
    images = [ax.images[0].get_array() for ax in fig.axes[:2]]
    assert np.allclose(images[0], np.eye(6)) and np.allclose(images[1], -1.0)
    plt.close(fig)
    with pytest.raises(ValueError, match="2 kernels but 1 titles"):
        cnn.pixel_pair_panels(kernels, ["a"], suptitle="s")


# ------------------------------------------------------------------------------------- receptive fields

@pytest.mark.parametrize("depth,dilation,stride", [(1, 1, 1), (3, 1, 1), (2, 3, 1), (3, 1, 2), (2, 2, 2)])
def test_the_span_formula_is_the_geometry_of_the_layers(depth, dilation, stride):
    arch = conv_stack(depth, dilation=dilation, stride=stride)
    paths = nh.receptive_field(arch, (1, 128))[0, :, 0, :]
    middle = (paths[paths.shape[0] // 2] > 0).nonzero().flatten()
    assert cnn.span_formula(depth, dilation=dilation, stride=stride) == int(middle[-1] - middle[0] + 1)


def test_influence_and_sentences_of_a_dilated_stack_measured_by_autograd():
    signal = torch.randn(1, 1, 32, generator=torch.Generator().manual_seed(1), dtype=torch.float64)
    arch = conv_stack(2, dilation=2)
    s = sensitivity(arch, signal)
    paths = nh.receptive_field(arch, (1, 32))[0, :, 0, :]
    summary = cnn.influence_summary(s, paths)
    # middle unit 16; taps at offsets -4, -2, 0, 2, 4: 5 pixels over a span of 9
    assert (summary.n_out, summary.unit, summary.count, summary.low, summary.high, summary.agrees) == \
        (32, 16, 5, 12, 20, True), summary
    lines = cnn.receptive_field_sentences(summary, depth=2, dilation=2, stride=1)
    assert "5 of the 32 pixels" in lines[0] and "12–20" in lines[0]
    assert any(line.startswith("Holes") for line in lines)
    assert not any("borders" in line or "shrunk" in line for line in lines)


def test_the_sentences_name_the_borders_and_the_shrinking_at_the_extreme_setting():
    """Depth 6, dilation 4, stride 2 on 64 pixels: one unit left, its receptive field cut off by the
    borders."""
    summary = cnn.Influence(n_out=1, unit=0, count=16, low=0, high=60, n_in=64, agrees=True)
    lines = cnn.receptive_field_sentences(summary, depth=6, dilation=4, stride=2)
    assert lines[0].startswith("1 output unit.")
    assert any("would span 505 pixels" in line for line in lines)       # 1 + 2*4*(1+2+4+8+16+32)
    assert any("shrunk 64 pixels to 1 output unit" in line for line in lines)


def test_show_receptive_field_draws_a_finite_picture_and_returns_the_summary(capsys):
    signal = torch.randn(1, 1, 64, generator=torch.Generator().manual_seed(3), dtype=torch.float64)
    arch = conv_stack(6, dilation=4, stride=2)
    s = sensitivity(arch, signal)
    summary = cnn.show_receptive_field(s, nh.receptive_field(arch, (1, 64))[0, :, 0, :], depth=6, dilation=4,
                                       stride=2)
    fig = plt.gcf()
    shown = fig.axes[0].images[0].get_array()
    assert np.isfinite(shown[~np.isnan(shown)]).all() and (~np.isnan(shown)).sum() == summary.count
    assert "Unit 0 feels 16 of 64 pixels" in fig.axes[0].get_title()
    assert "borders" in capsys.readouterr().out
    plt.close(fig)


def test_the_explorers_profile_is_the_marked_row_and_the_root_mean_square_of_the_path_counts():
    """Below the map: unit 32's row relative to its largest entry (dots, one per pixel that influences it) and
    sqrt(N_pq / max N) (line): at depth 3, 1, 3, 6, 7, 6, 3, 1 paths over pixels 29-35."""
    signal = torch.randn(1, 1, 64, generator=torch.Generator().manual_seed(3), dtype=torch.float64)
    arch = conv_stack(3)
    s, paths = sensitivity(arch, signal), nh.receptive_field(arch, (1, 64))[0, :, 0, :]
    cnn.show_receptive_field(s, paths, depth=3, dilation=1, stride=1)
    fig = plt.gcf()
    top, bottom = fig.axes[:2]
    dots, line = bottom.lines[:2]
    row = s[32].abs()
    assert list(dots.get_xdata()) == list(range(29, 36))
    assert np.allclose(dots.get_ydata(), (row[29:36] / row.max()).log10().numpy())
    assert np.allclose(line.get_ydata(), 0.5 * np.log10(np.array([1, 3, 6, 7, 6, 3, 1]) / 7))
    frame = sorted(h.get_ydata()[0] for h in top.lines)
    assert frame == [31.5, 32.5], frame
    plt.close(fig)


def test_influence_summary_refuses_mismatched_or_empty_maps():
    with pytest.raises(ValueError, match="differ in shape"):
        cnn.influence_summary(torch.ones(3, 4), torch.ones(4, 3))
    with pytest.raises(ValueError, match="no pixel"):
        cnn.influence_summary(torch.zeros(3, 4), torch.ones(3, 4))


# ------------------------------------------------------------------------------------------ the spread

def test_the_spread_of_a_linear_networks_ntk_is_one_over_root_width():
    """dense -> identity -> dense(1), sigma_w = 1, no bias, x.x/d = 1: Θ(x, x) = (1/m) Σ_i (g_i² + v_i²) with
    2m independent standard normals, so Θ ~ χ²(2m)/m: mean 2 (the limit), relative spread 1/sqrt(m)."""
    net, width, seeds = nh.serial(nh.dense(), nh.identity(), nh.dense(1)), 16, 400
    spread = cnn.ntk_spread(net, nh.sphere(1, 5, seed=0), width=width, seeds=seeds)
    # 400 seeds: the sample std is known to 1/sqrt(2*399) = 3.5 %, the mean to 0.25/20 = 1.3 %
    assert spread.relative_std == pytest.approx(1 / math.sqrt(width), rel=0.12), spread
    assert spread.relative_mean == pytest.approx(1.0, abs=0.05), spread
    assert spread.seeds == seeds


def test_the_spread_needs_one_input():
    with pytest.raises(ValueError, match="batch of 1"):
        cnn.ntk_spread(nh.mlp(1), nh.sphere(2, 3), width=8, seeds=4)


# ------------------------------------------------------------------------------- cosines: scale divided out

def test_normalized_is_the_cosine_of_a_gram_matrix():
    features = torch.tensor([[3.0, 4.0], [1.0, 0.0], [0.0, -2.0]], dtype=torch.float64)
    cosine = cnn.normalized(features @ features.T)
    expected = torch.tensor([[1.0, 0.6, -0.8], [0.6, 1.0, 0.0], [-0.8, 0.0, 1.0]], dtype=torch.float64)
    assert torch.allclose(cosine, expected), cosine


@pytest.fixture(scope="module")
def digits():
    return nh.digits(6, 1, seed=0)[0]


def average_pool_net():
    return nh.serial(nh.conv(sigma_w=math.sqrt(2)), nh.relu(), nh.avg_pool(2), nh.flatten())


def test_paired_cosines_are_the_matching_entries_of_the_whole_kernel(digits):
    arch, shifted = average_pool_net(), torch.roll(digits, 1, dims=-1)
    whole = cnn.normalized(arch.kernel(torch.cat([digits, shifted])).nngp)
    n = len(digits)
    paired = cnn.paired_cosines(arch, digits, shifted)
    assert torch.allclose(paired, torch.diagonal(whole[:n, n:]), atol=1e-12), paired
    with pytest.raises(ValueError, match="one shape"):
        cnn.paired_cosines(arch, digits, shifted[:2])


def test_finite_networks_cosines_approach_the_exact_ones(digits):
    arch = average_pool_net()
    exact = cnn.normalized(arch.kernel(digits).nngp)
    mean, sem = cnn.feature_cosines(arch, digits, width=128, n_networks=8)
    off = ~torch.eye(len(digits), dtype=torch.bool)
    assert torch.allclose(torch.diagonal(mean), torch.ones(len(digits), dtype=torch.float64), atol=1e-12)
    assert ((mean - exact).abs()[off] <= 5 * sem[off] + 0.005).all(), ((mean - exact).abs() / sem)[off].max()
    shifted = torch.roll(digits, 1, dims=-1)
    paired, paired_sem = cnn.mean_paired_feature_cosine(arch, digits, shifted, width=128, n_networks=8)
    exact_paired = float(cnn.paired_cosines(arch, digits, shifted).mean())
    assert abs(paired - exact_paired) <= 5 * paired_sem + 0.005, (paired, exact_paired, paired_sem)
    same, same_sem = cnn.mean_paired_feature_cosine(arch, digits, digits, width=16, n_networks=2)
    assert same == pytest.approx(1.0, abs=1e-12) and same_sem == pytest.approx(0.0, abs=1e-12)


# ------------------------------------------------------------------------- two tasks: accuracy over splits

def test_split_accuracies_is_kernel_regression_on_each_random_split():
    """Split s is the permutation with seed s: its accuracy equals kernel regression done by hand on it."""
    x, y = nh.motif_sequences(60, seed=3)
    kernel = nh.mlp(1).kernel(x.flatten(1)).ntk
    accuracies = cnn.split_accuracies(kernel, y, y, n_train=20, splits=3, seed=5)
    assert accuracies.shape == (3,)
    for s, accuracy in enumerate(accuracies):
        order = torch.randperm(60, generator=torch.Generator().manual_seed(5 + s))
        train, test = order[:20], order[20:]
        guess = nh.kernel_regression(kernel[train][:, train], kernel[test][:, train], y[train]).sign()
        assert accuracy == pytest.approx(float((guess == y[test]).double().mean()), abs=1e-12)
    assert len(set(accuracies.tolist())) > 1, "different splits should give different accuracies here"


def test_split_accuracies_reads_two_classes_by_sign_and_more_by_argmax():
    labels = torch.tensor([0, 1, 2, 0, 1, 2, 0, 1, 2, 0, 1, 2])
    one_hot = torch.nn.functional.one_hot(labels, 3).double() - 1 / 3
    informative = one_hot @ one_hot.T + torch.eye(12, dtype=torch.float64)      # the labels in the kernel
    assert (cnn.split_accuracies(informative, one_hot, labels, n_train=6, splits=4) == 1.0).all()
    signs = torch.tensor([1.0, -1.0] * 6, dtype=torch.float64)
    assert (cnn.split_accuracies(torch.outer(signs, signs) + torch.eye(12, dtype=torch.float64), signs, signs,
                                 n_train=6, splits=2) == 1.0).all()
    # a kernel that knows nothing predicts 0 for every test input: its sign is no class
    assert (cnn.split_accuracies(torch.eye(12, dtype=torch.float64), signs, signs, n_train=6, splits=2)
            == 0.0).all()


def test_split_accuracies_refuses_bad_shapes_and_splits_without_test_inputs():
    kernel, y = torch.eye(5, dtype=torch.float64), torch.ones(5, dtype=torch.float64)
    with pytest.raises(ValueError, match="an \\(n, n\\) kernel"):
        cnn.split_accuracies(kernel, y[:4], y, n_train=2, splits=1)
    with pytest.raises(ValueError, match="leave test inputs"):
        cnn.split_accuracies(kernel, y, y, n_train=5, splits=1)


def test_accuracy_bars_draw_the_mean_and_a_dot_per_split():
    accuracies = {"a": np.array([0.5, 0.7]), "b": np.array([0.9, 0.8])}
    fig = cnn.accuracy_bars(accuracies, title="t", chance=0.1)
    ax = fig.axes[0]
    heights = [bar.get_height() for bar in ax.patches]
    assert heights == pytest.approx([0.6, 0.85])
    dots = [line for line in ax.lines if line.get_marker() == "o"]
    assert sum(len(line.get_xdata()) for line in dots) == 4
    assert any(line.get_ydata()[0] == 0.1 for line in ax.lines if line.get_linestyle() == ":")
    assert ax.get_title() == "t"
    plt.close(fig)


def test_the_spread_runs_on_one_thread_and_restores_the_callers_setting():
    before = torch.get_num_threads()
    cnn.ntk_spread(nh.serial(nh.dense(), nh.relu(), nh.dense(1)), nh.sphere(1, 3, seed=0), width=4, seeds=2)
    assert torch.get_num_threads() == before


# ------------------------------------------------------------------------------ locally connected networks

def test_the_locally_connected_kernel_after_conv_and_relu_is_the_product_of_the_means_off_the_diagonal():
    """One conv, then ReLU, on 1-D noise: a locally connected layer's pre-activations at p != p' are
    independent, so the ReLU kernel there is E[phi(u)] E[phi(v)] = sqrt(q_p q'_p') / (2 pi), computed here from
    the CNN's own variances; at p = p' the two networks agree."""
    signals = torch.randn(2, 1, 1, 8, generator=torch.Generator().manual_seed(4), dtype=torch.float64)
    conv = nh.conv(kernel_size=(1, 3), padding="circular", sigma_w=math.sqrt(2))
    net = nh.serial(conv, nh.relu())
    inputs = nh.Kernel.from_inputs(signals[:1], signals[1:])
    cnn_k = net.transform(inputs)
    local = cnn.locally_connected_kernel(net, inputs).nngp[0, 0, 0, :, 0, :]
    q1 = torch.diagonal(conv.transform(inputs).var1[0, 0, :, 0, :])
    q2 = torch.diagonal(conv.transform(inputs).var2[0, 0, :, 0, :])
    expected = torch.sqrt(q1[:, None] * q2[None, :]) / (2 * math.pi)
    same = torch.diagonal(cnn_k.nngp[0, 0, 0, :, 0, :])
    expected[range(8), range(8)] = same
    assert torch.allclose(local, expected, rtol=1e-10, atol=1e-14), (local - expected).abs().max()


def test_with_flatten_the_locally_connected_ntk_is_the_cnns_with_gap_it_matches_a_finite_one():
    """Flatten: equal to the CNN's (Novak et al. 2019). GAP: against the empirical NTK of finite locally
    connected networks (separate 3-tap filters at each of 8 positions, circular), averaged over seeds."""
    torch.manual_seed(0)
    length, width, seeds = 8, 256, 12
    signals = torch.randn(2, 1, 1, length, generator=torch.Generator().manual_seed(6), dtype=torch.float64)
    conv = lambda: nh.conv(kernel_size=(1, 3), padding="circular", sigma_w=math.sqrt(2))
    body = [conv(), nh.relu(), conv(), nh.relu()]
    inputs = nh.Kernel.from_inputs(signals[:1], signals[1:])
    flat, gap = nh.serial(*body, nh.flatten(), nh.dense(1)), nh.serial(*body, nh.global_avg_pool(), nh.dense(1))
    assert float(cnn.locally_connected_kernel(flat, inputs).ntk[0, 0]) == pytest.approx(
        float(flat.transform(inputs).ntk[0, 0]), rel=1e-12)
    expected = float(cnn.locally_connected_kernel(gap, inputs).ntk[0, 0])

    def finite_ntk(seed):
        g = torch.Generator().manual_seed(seed)
        w1 = torch.randn(length, width, 1, 3, generator=g, dtype=torch.float64).requires_grad_()
        w2 = torch.randn(length, width, width, 3, generator=g, dtype=torch.float64).requires_grad_()
        v = torch.randn(width, generator=g, dtype=torch.float64).requires_grad_()

        def local_layer(w, h):                      # h: (channels, length); a separate filter at each p
            patches = torch.stack([torch.roll(h, -a, dims=1) for a in (-1, 0, 1)], dim=-1)   # (C, P, 3)
            return math.sqrt(2 / (h.shape[0] * 3)) * torch.einsum("pocs,cps->op", w, patches)

        def f(signal):
            h = torch.relu(local_layer(w2, torch.relu(local_layer(w1, signal[0]))))
            return h.mean(1) @ v / math.sqrt(width)
        grads = [torch.autograd.grad(f(s), (w1, w2, v)) for s in signals]
        return float(sum((a * b).sum() for a, b in zip(*grads)))
    values = np.array([finite_ntk(s) for s in range(seeds)])
    sem = values.std(ddof=1) / math.sqrt(seeds)
    # the mean over seeds estimates the limit: within 4 standard errors, plus 3 % for the O(1/width) bias
    assert abs(values.mean() - expected) <= 4 * sem + 0.03 * abs(expected), (values.mean(), expected, sem)
    cnn_gap = float(gap.transform(inputs).ntk[0, 0])
    assert abs(values.mean() - cnn_gap) > 4 * sem + 0.03 * abs(expected), (values.mean(), cnn_gap, sem)
