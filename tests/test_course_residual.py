"""ntk_helpers.course.residual (lesson 04): each formula against an independent computation (the kernel engine,
autograd of the package's finite networks, a binomial sum, a per-layer recursion), the random experiments
against their laws at a width where those hold, and the explorer's sentences against the kernels they describe."""

import math
from contextlib import redirect_stdout
from io import StringIO

import matplotlib
import numpy as np
import pytest
import torch

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402

import ntk_helpers as nh  # noqa: E402
from ntk_helpers.course import residual  # noqa: E402


def engine_ntk(depth, alpha, x):
    return float(nh.resnet(depth, alpha=alpha).kernel(x).ntk[0, 0])


# ---------------------------------------------------------------- closed forms

@pytest.mark.parametrize("depth, alpha", [(1, 1.0), (3, 0.3), (10, 10 ** -0.5), (40, 1 / 40), (7, 0.0)])
def test_closed_form_ntk_is_the_engines_recursion(depth, alpha):
    x = nh.sphere(1, d=5, seed=3) * 1.7                         # q0 = 2 * 1.7^2
    q0 = 2.0 * float((x ** 2).sum()) / 5
    assert residual.closed_form_ntk(depth, alpha, q0) == pytest.approx(engine_ntk(depth, alpha, x), rel=1e-12)


def shares_by_recursion(depth, alpha):
    """Each layer's part of Theta(x, x) followed through the recursion one block at a time (q0 = 1): the part of
    the layers below is multiplied by 1 + gamma at every block, the block adds gamma * Sigma of its input."""
    gamma = alpha ** 2
    sigma, parts = 1.0, [1.0]                                    # the input layer: Theta^(0) = Sigma^(0) = q0
    for _ in range(depth):
        parts = [p * (1 + gamma) for p in parts] + [gamma * sigma]
        sigma *= 1 + gamma
    parts.append(sigma)                                          # the readout adds Sigma^(L)
    return np.array(parts)


@pytest.mark.parametrize("depth, alpha", [(1, 1.0), (4, 0.5), (16, 0.25), (64, 1 / 64), (5, 2.0)])
def test_shares_are_each_layers_part_of_the_recursion(depth, alpha):
    parts = shares_by_recursion(depth, alpha)
    total = parts.sum()
    assert total == pytest.approx(engine_ntk(depth, alpha, nh.sphere(1, d=3, seed=0)) / 2, rel=1e-12)  # q0 = 2
    shares = residual.ntk_shares(depth, alpha)
    assert shares.input == pytest.approx(parts[0] / total, rel=1e-12)
    assert shares.readout == pytest.approx(parts[-1] / total, rel=1e-12)
    np.testing.assert_allclose(parts[1:-1] / total, shares.block, rtol=1e-12)
    assert shares.blocks == pytest.approx(parts[1:-1].sum() / total, rel=1e-12)
    assert shares.input + shares.blocks + shares.readout == pytest.approx(1.0, rel=1e-14)


def test_the_lessons_block_shares_and_their_limit():
    assert residual.ntk_shares(4, 0.5).blocks == pytest.approx(2 / 7, rel=1e-12)                # 0.286
    assert residual.ntk_shares(16, 0.25).blocks == pytest.approx(0.32, rel=1e-12)
    limit = residual.ntk_shares(10 ** 6, 10 ** -3)
    assert (limit.input, limit.blocks, limit.readout) == pytest.approx((1 / 3, 1 / 3, 1 / 3), abs=1e-6)
    assert residual.closed_form_ntk(10 ** 6, 10 ** -3) == pytest.approx(3 * math.e, rel=1e-5)


def binomial_remainder(depth, a2c):
    """sqrt(sum_{k >= 2} C(L, k) a^k / sum_k C(L, k) a^k): the subset expansion of the product, term by term."""
    terms = [math.comb(depth, k) * a2c ** k for k in range(depth + 1)]
    return math.sqrt(sum(terms[2:]) / sum(terms))


@pytest.mark.parametrize("depth, alpha, gain", [(2, 1.0, 1.0), (16, 0.25, 1.0), (64, 1 / 64, 1.0), (30, 0.4, 0.7)])
def test_beyond_first_order_is_the_subset_expansion(depth, alpha, gain):
    expected = binomial_remainder(depth, alpha ** 2 * gain)
    assert residual.beyond_first_order(depth, alpha, gain) == pytest.approx(expected, rel=1e-10)


def test_beyond_first_order_limits():
    assert residual.beyond_first_order(10 ** 6, 10 ** -3) == pytest.approx(math.sqrt(1 - 2 / math.e), rel=1e-5)
    assert residual.beyond_first_order(1000, 1 / 1000) == pytest.approx(1 / 1000 / math.sqrt(2), rel=1e-2)
    assert residual.beyond_first_order(5000, 1.0) == 1.0, "a product past the float64 range is all beyond"
    assert residual.beyond_first_order(5, 0.0) == 0.0


def test_bad_arguments_are_named():
    with pytest.raises(ValueError, match="alpha"):
        residual.closed_form_ntk(3, -0.5)
    with pytest.raises(ValueError, match="depth"):
        residual.beyond_first_order(0, 0.5)
    with pytest.raises(ValueError, match="scaling"):
        residual.normalized_ntk(3, "α = 2", "relu")


# ---------------------------------------------------------------- Jacobians of a real network

def test_blocks_applied_is_the_networks_own_jacobian():
    """The product and its first-order part against autograd on the package's finite network: the Jacobian of
    x^(0) -> x^(L) through all blocks, and each block's own Jacobian I + alpha J_l at its input."""
    depth, width, alpha = 5, 12, 0.7
    model = nh.resnet(depth, alpha=alpha).network(4, width=width, seed=2)
    blocks = [model[l] for l in range(1, depth + 1)]
    h0 = model[0](nh.sphere(1, d=4, seed=1))[0].detach()
    directions = torch.randn(width, 3, generator=torch.Generator().manual_seed(0), dtype=torch.float64)
    weights = [block.branch[1].weight.detach() for block in blocks]
    product, first_order = residual.blocks_applied(h0, weights, alpha, directions)

    through = torch.autograd.functional.jacobian(lambda h: torch.nn.Sequential(*blocks)(h[None])[0], h0)
    torch.testing.assert_close(product, through @ directions, rtol=1e-10, atol=1e-12)
    summed, h = torch.eye(width, dtype=torch.float64), h0
    for block in blocks:
        summed = summed + torch.autograd.functional.jacobian(lambda v: block(v[None])[0], h) - torch.eye(width)
        h = block(h[None])[0].detach()
    torch.testing.assert_close(first_order, summed @ directions, rtol=1e-10, atol=1e-12)


def test_rescaling_the_forward_vector_changes_no_gate():
    """alpha = 1: the result equals a plain loop that never rescales, started from an input a million times
    smaller (a ReLU block is positively homogeneous, so the gates depend only on the direction)."""
    generator = torch.Generator().manual_seed(5)
    width, depth = 16, 40
    h0 = torch.randn(width, generator=generator, dtype=torch.float64)
    weights = [torch.randn(width, width, generator=generator, dtype=torch.float64) for _ in range(depth)]
    v = torch.eye(width, dtype=torch.float64)
    product, _ = residual.blocks_applied(h0 * 1e6, weights, 1.0, v)
    plain, h = v.clone(), h0.clone()
    for raw in weights:
        W = math.sqrt(2 / width) * raw
        plain = plain + W @ ((h > 0).double()[:, None] * plain)
        h = h + W @ h.clamp(min=0)
    torch.testing.assert_close(product, plain, rtol=1e-10, atol=0.0)


def test_the_product_follows_its_laws_at_large_width():
    """(1 + alpha^2)^L and r, over seeds, at width 512 (where the gain c of a network is 1 within about 4 %)."""
    depth, alpha = 16, 0.25
    runs = [residual.jacobian_product(depth, alpha, width=512, seed=seed) for seed in range(6)]
    growth = np.mean([run.growth for run in runs])
    beyond = np.mean([run.beyond_first_order for run in runs])
    assert growth == pytest.approx((1 + alpha ** 2) ** depth, rel=0.05)
    assert beyond == pytest.approx(residual.beyond_first_order(depth, alpha), rel=0.08)
    faded = residual.jacobian_product(64, 1 / 64, width=512, seed=0)
    assert faded.beyond_first_order == pytest.approx(residual.beyond_first_order(64, 1 / 64), rel=0.15)


def test_a_branch_jacobian_is_order_one_at_every_width():
    norms = [residual.branch_jacobian_norm(m) for m in (512, 2048)]       # finite-width edge: about m^(-2/3) below
    assert norms == pytest.approx([1 + math.sqrt(2)] * 2, rel=0.03), norms
    J = residual.branch_jacobian(256, seed=1)
    open_columns = int((J.abs().sum(0) > 0).sum())
    assert 96 < open_columns < 160, "about half the gates are open"
    assert float(torch.linalg.matrix_norm(J, ord=2)) == pytest.approx(residual.branch_jacobian_norm(256, seed=1))


def test_first_gates_open_are_the_branch_jacobians_open_columns():
    for width, seed in [(256, 0), (256, 1), (64, 5)]:
        J = residual.branch_jacobian(width, seed=seed)
        open_columns = int((J.abs().sum(0) > 0).sum())
        assert residual.first_gates_open(width, seed=seed) == pytest.approx(open_columns / width, abs=1e-12)
    fractions = [residual.first_gates_open(4096, seed=seed) for seed in range(4)]
    assert fractions == pytest.approx([0.5] * 4, abs=4 * 0.5 / 64), "binomial: ± 0.5/sqrt(m) each"


# ---------------------------------------------------------------- each layer's share in a finite network

def test_block_shares_are_the_empirical_ntk_restricted_to_each_layer():
    depth, x = 3, nh.sphere(1, d=6, seed=4)
    measured = residual.block_shares(depth, 0.5, x, width=64, seed=7)
    model = nh.resnet(depth, alpha=0.5).network(6, width=64, seed=7)
    names = [name for name, _ in model.named_parameters()]
    total = float(nh.empirical_ntk(model, x))
    assert measured.total == pytest.approx(total, rel=1e-10)
    for layer, share in [(0, measured.input), *zip(range(1, depth + 1), measured.blocks), (depth + 1, measured.readout)]:
        weights = {name: float(name.split(".")[0] == str(layer)) for name in names}
        assert share == pytest.approx(float(nh.empirical_ntk(model, x, parameter_weights=weights)) / total, rel=1e-9)


def test_finite_networks_carry_the_closed_form_shares():
    """Mean of 6 networks of width 1024: all blocks' share within 6 % (one network scatters by about 4 %)."""
    x = nh.sphere(1, d=6, seed=0)
    runs = [residual.block_shares(4, 0.5, x, width=1024, seed=seed) for seed in range(6)]
    assert np.mean([r.blocks.sum() for r in runs]) == pytest.approx(residual.ntk_shares(4, 0.5).blocks, rel=0.06)
    assert np.mean([r.input for r in runs]) == pytest.approx(residual.ntk_shares(4, 0.5).input, rel=0.06)


@pytest.mark.parametrize("activation", ["relu", "erf", "gelu"])
@pytest.mark.parametrize("depth, alpha", [(1, 1.0), (4, 0.5), (16, 0.25)])
def test_recursion_shares_sum_to_the_engines_ntk(activation, depth, alpha):
    """The parts add up to the engine's Theta(x, x) (an independent implementation of the same recursion)."""
    x = nh.sphere(1, d=3, seed=1)                                # x.x/d = 1, so q0 = sigma_w^2 = 2
    parts = residual.recursion_shares(depth, alpha, activation)
    expected = float(nh.resnet(depth, activation, alpha=alpha).kernel(x).ntk[0, 0])
    assert parts.total == pytest.approx(expected, rel=1e-10), (parts.total, expected)
    assert parts.input + parts.blocks.sum() + parts.readout == pytest.approx(1.0, rel=1e-12)


@pytest.mark.parametrize("depth, alpha", [(1, 1.0), (4, 0.5), (16, 0.25), (64, 1 / 64)])
def test_recursion_shares_for_relu_are_the_closed_form(depth, alpha):
    parts, closed = residual.recursion_shares(depth, alpha, "relu"), residual.ntk_shares(depth, alpha)
    np.testing.assert_allclose(parts.blocks, closed.block, rtol=1e-12,
                               err_msg=f"every ReLU block carries {closed.block}; the recursion gives {parts.blocks}")
    assert (parts.input, parts.readout) == pytest.approx((closed.input, closed.readout), rel=1e-12)


def test_erf_blocks_carry_unequal_shares_in_finite_networks_too():
    """erf, alpha = 1/2, L = 4: block 1 / block 4 from the recursion (1.52) against the mean of 8 networks of width
    1024 (one network's block share scatters by about 5 %, the ratio of two means of 8 by about 3 %)."""
    parts = residual.recursion_shares(4, 0.5, "erf")
    expected = parts.blocks[0] / parts.blocks[-1]
    assert expected == pytest.approx(1.52, abs=0.01), expected
    x = nh.sphere(1, d=6, seed=0)
    runs = [residual.block_shares(4, 0.5, x, width=1024, seed=seed, activation="erf") for seed in range(8)]
    measured = np.mean([r.blocks[0] for r in runs]) / np.mean([r.blocks[-1] for r in runs])
    assert measured == pytest.approx(expected, rel=0.1), f"expected {expected:.3f}, measured {measured:.3f}"
    assert residual.recursion_shares(16, 0.25, "erf").blocks[0] / residual.recursion_shares(16, 0.25, "erf").blocks[-1] \
        == pytest.approx(1.78, abs=0.005)


def test_finite_networks_are_the_width_sweep_and_are_cached():
    width, seeds = 48, 2
    first = residual.finite_networks("α = 1/√L", width, seeds)
    assert residual.finite_networks("α = 1/√L", width, seeds) is first, "a second call returns the cached result"
    inputs = nh.sphere(8, d=6, seed=0)
    arch = nh.resnet(4, alpha=0.5)
    exact = arch.kernel(inputs).ntk
    thetas = [nh.empirical_ntk(arch.network(6, width=width, seed=s), inputs) for s in range(seeds)]
    errors = [float((t - exact).norm() / exact.norm()) for t in thetas]
    np.testing.assert_allclose(first.errors, errors, rtol=1e-10, err_msg=f"expected {errors}, got {first.errors}")
    mean = float((torch.stack(thetas).mean(0) - exact).norm() / exact.norm())
    assert first.mean_error == pytest.approx(mean, rel=1e-10), (first.mean_error, mean)
    with pytest.raises(ValueError, match="scaling"):
        residual.finite_networks("α = 2", width)


# ---------------------------------------------------------------- the explorer

def kernel_row(depth, scaling, activation):
    ring = torch.stack([residual.ANGLES.cos(), residual.ANGLES.sin()], 1) * math.sqrt(2)
    k = nh.resnet(depth, activation, alpha=residual.SCALINGS[scaling](depth)).kernel(ring[:1], ring).ntk[0]
    return k / k[0]


def test_each_sentence_of_the_explorer_is_true_where_it_is_said():
    faded = residual.describe(200, "α = 1/L", "relu")
    assert "faded" in faded
    assert float((kernel_row(200, "α = 1/L", "relu") - residual.ANGLES.cos()).abs().max()) < 0.05

    uncorrelated = residual.describe(100, "α = 1", "erf")
    assert "3°" in uncorrelated and abs(float(kernel_row(100, "α = 1", "erf")[1])) < 0.1

    settled = residual.describe(200, "α = 1/√L", "relu")
    assert "settled" in settled
    assert float((kernel_row(200, "α = 1/√L", "relu") - kernel_row(100, "α = 1/√L", "relu")).abs().max()) < 0.01

    moving = residual.describe(200, "α = 1", "relu")
    assert "still reshape" in moving
    assert float((kernel_row(200, "α = 1", "relu") - kernel_row(100, "α = 1", "relu")).abs().max()) > 0.01

    assert "one block" in residual.describe(1, "α = 1/L", "gelu")


@pytest.mark.parametrize("scaling", list(residual.SCALINGS))
@pytest.mark.parametrize("activation", ["relu", "erf", "gelu"])
def test_the_explorer_draws_finite_curves_at_both_ends_of_the_slider(scaling, activation):
    for depth in (1, 200):
        out = StringIO()
        with redirect_stdout(out):
            residual.draw_normalized_ntk(depth, scaling, activation)
        figure = plt.gcf()
        lines = figure.axes[0].get_lines()
        assert all(np.isfinite(line.get_ydata()).all() for line in lines)
        drawn = {line.get_label() for line in lines}
        assert {f"L = {depth}", f"L = {depth // 2}"} <= drawn if depth > 2 else f"L = {depth}" in drawn, \
            "the title compares L with L // 2: both curves are drawn"
        assert f"L = {depth}" in out.getvalue() and "nan" not in out.getvalue().lower()
        assert figure.axes[0].get_title() == residual.describe(depth, scaling, activation)
        plt.close("all")


def test_a_kernel_past_float64_is_reported_not_drawn():
    plt.close("all")
    out = StringIO()
    with redirect_stdout(out):
        residual.draw_normalized_ntk(1200, "α = 1", "relu")               # 2^1200
    assert "float64" in out.getvalue()
    assert not plt.get_fignums(), "nothing may be drawn"
    assert residual.normalized_ntk(1200, "α = 1", "relu") is None


def test_the_induction_diagram_has_a_takeaway_title_and_renders():
    figure = residual.induction_diagram()
    assert "adds α²" in figure.axes[0].get_title()
    figure.canvas.draw()
    plt.close(figure)


def test_the_explorer_line_prints_the_kernel_it_draws():
    row = kernel_row(16, "α = 1/√L", "relu")
    ring = torch.stack([residual.ANGLES.cos(), residual.ANGLES.sin()], 1) * math.sqrt(2)
    scale = float(nh.resnet(16, alpha=0.25).kernel(ring[:1]).ntk[0, 0])
    expected = (f"L = 16, α = 1/√L, relu: Θ(x, x) = {scale:.4g}; normalized NTK {float(row[1]):.3f} at 3°, "
                f"{float(row[30]):.3f} at 90°, {float(row[60]):.3f} at 180°")
    line = residual.explorer_line(16, "α = 1/√L", "relu")
    assert line == expected, f"expected {expected!r}, got {line!r}"
    assert residual.explorer_line(1200, "α = 1", "relu") == "no kernel: it leaves the float64 range"


def test_a_change_that_rounds_to_zero_is_called_below_0_001():
    change = float((kernel_row(199, "α = 1/√L", "erf") - kernel_row(99, "α = 1/√L", "erf")).abs().max())
    title = residual.describe(199, "α = 1/√L", "erf")
    assert change < 0.0005, f"expected a change below 0.0005 from 99 to 199 blocks, got {change}"
    assert "less than 0.001" in title and "0.000" not in title, f"got {title!r}"


def test_block_factors_are_the_forward_and_backward_parts_of_each_share():
    for activation in ("relu", "erf"):
        forward, backward = residual.block_factors(16, 0.25, activation)
        shares = residual.recursion_shares(16, 0.25, activation)
        parts = forward * backward / shares.total
        assert np.allclose(parts, shares.blocks, rtol=1e-12), f"{activation}: expected {shares.blocks}, got {parts}"
    # erf on the diagonal: E[erf(u)²] = (2/π) asin(2q/(1 + 2q)) at u ~ N(0, q), q = q0 = 2 for block 1
    forward, _ = residual.block_factors(16, 0.25, "erf")
    expected = 0.25 ** 2 * 2 * (2 / math.pi) * math.asin(4 / 5)
    assert math.isclose(forward[0], expected, rel_tol=1e-10), f"expected {expected}, got {forward[0]}"
    relu_forward, relu_backward = residual.block_factors(16, 0.25, "relu")
    ratio_f, ratio_b = relu_forward[-1] / relu_forward[0], relu_backward[0] / relu_backward[-1]
    assert math.isclose(ratio_f, ratio_b, rel_tol=1e-12), f"ReLU: forward {ratio_f} and backward {ratio_b} differ"
