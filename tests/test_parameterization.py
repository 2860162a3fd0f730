"""NTK parameterization vs muP vs standard (lesson 05b, section 4.4.2; Yang & Hu 2021): what moves, the table
of multipliers, and the kernels (the standard parameterization's, derived in ntk_helpers/engine/dense.py)."""

import math

import pytest
import torch

import ntk_helpers as nh

WIDTHS = [256, 1024, 4096]


def network(parameterization="ntk", width=8, *, d=8, depth=1, activation="relu", seed=0, **sigmas):
    arch = nh.mlp(depth, activation, parameterization=parameterization, **sigmas)
    return arch.network(d, width=width, seed=seed)


def changes(parameterization, activation, lr):
    x = nh.sphere(16, 8, seed=0)
    y = torch.sin(2 * x[:, 0])
    rows = []
    for m in WIDTHS:
        model = network(parameterization, m, activation=activation)
        record = nh.train(model, x, y, lr=lr, steps=50)
        rows.append((record.ntk_change, record.feature_change,
                     float(record.loss[-1]) / float(record.loss[0])))
    return [torch.tensor(c, dtype=torch.float64) for c in zip(*rows)]


@pytest.mark.parametrize("activation", ["relu", "tanh"])
def test_ntk_parameterization_is_lazy(activation):
    ntk_change, feature_change, loss_ratio = changes("ntk", activation, lr=0.5)
    assert nh.loglog_slope(WIDTHS, ntk_change) <= -0.4
    assert nh.loglog_slope(WIDTHS, feature_change) <= -0.7
    assert (loss_ratio < 0.5).all()               # ... while the outputs do fit the data


@pytest.mark.parametrize("activation", ["relu", "tanh"])
def test_mup_learns_features_at_every_width(activation):
    ntk_change, feature_change, _ = changes("mup", activation, lr=0.02)
    assert abs(nh.loglog_slope(WIDTHS, feature_change)) <= 0.15 and (feature_change > 0.15).all()
    assert abs(nh.loglog_slope(WIDTHS, ntk_change)) <= 0.2


def test_mup_output_at_initialization_shrinks_like_inverse_sqrt_width():
    x = nh.sphere(8, 8, seed=1)
    with torch.no_grad():
        rms = [float(torch.stack([network("mup", m, seed=s)(x)
                                  for s in range(20)]).pow(2).mean().sqrt()) for m in WIDTHS]
    assert abs(nh.loglog_slope(WIDTHS, rms) + 0.5) < 0.15


def test_standard_parameterization_at_fixed_lr_blows_up_with_width():
    x = nh.sphere(16, 8, seed=0)
    y = torch.sin(2 * x[:, 0])
    losses = []
    for m in WIDTHS:
        model = network("standard", m)
        losses.append(float(nh.train(model, x, y, lr=1.0, steps=1).loss[-1]))
    assert losses[0] < losses[1] < losses[2]


# The width exponents lesson 05b derives: relative RMS change of h1 (input layer), h2 (hidden layer) and the
# RMS change of f after ONE SGD step, trained on y + f0 so that every width sees the residual -y.
ONE_STEP_EXPONENTS = {
    ("ntk", "fixed"): (-0.5, -0.5, 0.0),
    ("mup", "fixed"): (0.0, 0.0, 0.0),
    ("standard", "fixed"): (-0.5, 0.5, 1.0),
    ("standard", "1/m"): (-1.5, -0.5, 0.0),
}
ONE_STEP_LR = {"ntk": 0.5, "mup": 0.02, "standard": 0.005}


@pytest.mark.parametrize("parameterization, rule", list(ONE_STEP_EXPONENTS), ids=lambda v: str(v))
def test_one_sgd_step_moves_features_by_the_predicted_power_of_width(parameterization, rule):
    x = nh.sphere(16, 8, seed=0)
    y = torch.sin(2 * x[:, 0])
    widths = [128, 512, 2048]
    rows = []
    for m in widths:
        model = network(parameterization, m, depth=2)
        with torch.no_grad():
            h0, f0 = nh.preactivations(model, x), model(x)[:, 0]
        lr = ONE_STEP_LR[parameterization] if rule == "fixed" else 1 / m
        nh.train(model, x, y + f0, lr=lr, steps=1, track_kernels=False)
        with torch.no_grad():
            h1, f1 = nh.preactivations(model, x), model(x)[:, 0]
        rms = lambda t: float(t.pow(2).mean().sqrt())
        rows.append([rms(a - b) / rms(b) for a, b in zip(h1, h0)] + [rms(f1 - f0)])
    rows = torch.tensor(rows, dtype=torch.float64)
    measured = [nh.loglog_slope(widths, rows[:, j]) for j in range(3)]
    for e, p in zip(measured, ONE_STEP_EXPONENTS[parameterization, rule]):
        assert abs(e - p) <= 0.1, f"expected slope {p} +- 0.1, measured {measured}"


def test_preactivations_feed_the_features():
    x = nh.sphere(5, 4, seed=0)
    model = network("mup", 16, d=4, depth=3)
    with torch.no_grad():
        h = nh.preactivations(model, x)
        assert [tuple(t.shape) for t in h] == [(5, 16)] * 3
        torch.testing.assert_close(torch.relu(h[-1]), model[:-1](x), rtol=0, atol=0)
        torch.testing.assert_close(model[-1](torch.relu(h[-1])), model(x), rtol=0, atol=0)
    with pytest.raises(ValueError, match="dense layer before its readout"):
        nh.preactivations(nh.dense(1).network(4, width=8), x)


def test_divergence_raises_or_stops_with_a_clear_record():
    x = nh.sphere(16, 8, seed=0)
    y = torch.sin(2 * x[:, 0])
    with pytest.raises(FloatingPointError, match="diverged"):
        nh.train(network("standard", 1024), x, y,
                 lr=0.005, steps=50)
    record = nh.train(network("standard", 1024), x, y,
                      lr=0.005, steps=50, on_divergence="stop")
    assert record.diverged_at is not None and 0 < record.diverged_at <= 50
    assert len(record.loss) == record.diverged_at and torch.isfinite(record.loss).all()
    assert record.ntk_end is None and record.features_end is None
    with pytest.raises(ValueError, match="diverged at step"):
        record.feature_change
    fine = nh.train(network("standard", 64), x, y, lr=0.005, steps=5, on_divergence="stop")
    assert fine.diverged_at is None and len(fine.loss) == 6 and fine.feature_change >= 0
    with pytest.raises(ValueError, match="not recorded"):
        nh.train(network(), x, y, lr=0.1, steps=1,
                 track_kernels=False).ntk_change
    with pytest.raises(ValueError, match="on_divergence"):
        nh.train(network(), x, y, lr=0.1, steps=1, on_divergence="ignore")


def test_mup_network_jacobian_ntk_matches_naive_loop():
    x = nh.sphere(5, 4, seed=0)
    model = network("mup", 16, d=4, depth=2, sigma_b=0.3)
    torch.testing.assert_close(nh.empirical_ntk(model, x), nh.empirical_ntk(model, x, method="naive"),
                               rtol=1e-10, atol=1e-10)
    torch.testing.assert_close(nh.empirical_ntk(model, x, method="layerwise"),
                               nh.empirical_ntk(model, x, method="naive"), rtol=1e-10, atol=1e-10)
    weights = nh.lr_multipliers(model)
    weighted = nh.empirical_ntk(model, x, parameter_weights=weights)
    manual = sum(w * nh.empirical_ntk(_only(model, name), x, method="naive") for name, w in weights.items())
    torch.testing.assert_close(weighted, manual, rtol=1e-10, atol=1e-10)


def _only(model, name):
    """The same model with every parameter but ``name`` frozen."""
    clone = network("mup", 16, d=4, depth=2, sigma_b=0.3)
    for n, p in clone.named_parameters():
        p.requires_grad_(n == name)
    return clone


def test_bad_arguments():
    with pytest.raises(ValueError, match="unknown parameterization 'sp'; allowed values: mup, ntk, standard"):
        nh.mlp(1, parameterization="sp")
    with pytest.raises(ValueError, match="unknown parameterization"):
        nh.dense(parameterization="NTK")
    model = network(d=3)
    x = nh.sphere(4, 3)
    with pytest.raises(ValueError, match="one target per input"):
        nh.train(model, x, torch.zeros(3, dtype=torch.float64), lr=0.1, steps=1)
    with pytest.raises(ValueError, match="lr"):
        nh.train(model, x, torch.zeros(4, dtype=torch.float64), lr=-0.1, steps=1)
    with pytest.raises(ValueError, match="parameter_weights names unknown"):
        nh.empirical_ntk(model, x, parameter_weights={"nope": 1.0})


# -- the table (Tensor Programs V, Table 3, in the N(0, 1) form) and the kernels ----------------------------

@pytest.mark.parametrize("parameterization", nh.PARAMETERIZATIONS)
def test_networks_carry_the_multipliers_and_learning_rates_of_the_table(parameterization):
    d, m, sigma_w, sigma_b = 8, 32, 1.3, 0.2
    model = network(parameterization, m, d=d, depth=2, sigma_w=sigma_w, sigma_b=sigma_b)
    dense_layers = [model[0], model[2], model[4]]                       # input, hidden, output
    output_mult = 1 / m if parameterization == "mup" else 1 / math.sqrt(m)
    expected_mult = [1 / math.sqrt(d), 1 / math.sqrt(m), output_mult]
    expected_lr = {"ntk": [1, 1, 1], "standard": [d, m, m], "mup": [m * d, m, m]}[parameterization]
    expected_bias_lr = {"ntk": [1, 1, 1], "standard": [1, 1, 1], "mup": [m, m, 1]}[parameterization]
    for layer, mult, lr, bias_lr in zip(dense_layers, expected_mult, expected_lr, expected_bias_lr):
        assert layer.weight_scale == pytest.approx(sigma_w * mult, rel=1e-15)
        assert (layer.lr_multiplier, layer.bias_lr_multiplier) == (lr, bias_lr)
    factors = nh.lr_multipliers(model)
    assert factors == {f"{i}.{p}": float(v) for i, lr, bias_lr in zip((0, 2, 4), expected_lr, expected_bias_lr)
                       for p, v in (("weight", lr), ("bias", bias_lr))}
    groups = nh.param_groups(model, lr=0.1)
    assert [g["lr"] for g in groups] == pytest.approx([0.1 * v for v in factors.values()], rel=1e-15)
    # the same seed draws the same N(0, 1) weights in every parameterization: only the multipliers differ
    reference = network("ntk", m, d=d, depth=2, sigma_w=sigma_w, sigma_b=sigma_b)
    for p, q in zip(model.parameters(), reference.parameters()):
        assert torch.equal(p, q)


def test_standard_parameterization_has_the_ntk_nngp_and_mup_has_no_kernel(x):
    standard = nh.mlp(3, "erf", sigma_w=1.5, sigma_b=0.5, parameterization="standard").kernel(x)
    ntk = nh.mlp(3, "erf", sigma_w=1.5, sigma_b=0.5).kernel(x)
    # the same kernel, to rounding: the NTK parameterization takes the compiled path, the standard one the eager
    torch.testing.assert_close(standard.nngp, ntk.nngp, rtol=1e-13, atol=1e-13 * float(ntk.nngp.abs().max()))
    exact = nh.mlp(3, "erf", sigma_w=1.5, sigma_b=0.5).kernel(x, compiled=False)
    torch.testing.assert_close(standard.nngp, exact.nngp, rtol=0, atol=0)
    # one hidden layer: only the output weights survive, Theta = sigma_w^2 E[phi phi] = Sigma - sigma_b^2
    one = nh.mlp(1, "relu", sigma_w=1.5, sigma_b=0.5, parameterization="standard").kernel(x)
    torch.testing.assert_close(one.ntk, one.nngp - 0.25, rtol=1e-14, atol=1e-14 * float(one.nngp.abs().max()))
    assert repr(nh.dense(sigma_w=2, parameterization="mup")) == "dense(width, sigma_w=2, sigma_b=0, " \
                                                               "parameterization='mup')"
    with pytest.raises(nh.NoClosedForm, match="muP has an infinite-width limit, but its features"):
        nh.mlp(2, parameterization="mup").kernel(x)


def test_standard_kernel_is_the_limit_of_the_learning_rate_weighted_tangent_kernel_at_lr_over_width():
    """Monte Carlo mean of sum_p (lr_mult_p / m) df/dp df'/dp over 12 networks -> kernel().ntk as m grows,
    and far from the alternatives that keep the bias terms (31 % off) or the NTK parameterization's (x 2)."""
    x = nh.sphere(6, 4, seed=0)
    arch = nh.mlp(2, "erf", sigma_w=1.5, sigma_b=0.5, parameterization="standard")
    target = arch.kernel(x).ntk
    widths, errors = [64, 256, 1024], []
    for m in widths:
        estimates = []
        for seed in range(12):
            model = arch.network(4, width=m, seed=seed)
            weights = {name: factor / m for name, factor in nh.lr_multipliers(model).items()}
            estimates.append(nh.empirical_ntk(model, x, parameter_weights=weights))
        errors.append(float((torch.stack(estimates).mean(0) - target).norm() / target.norm()))
    slope = nh.loglog_slope(widths, errors)
    assert slope <= -0.3 and errors[-1] < 0.05, f"relative errors {errors}, slope {slope:.2f}"
