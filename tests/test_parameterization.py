"""NTK parameterization vs muP vs standard (lesson 05, section 4.4.2; Yang & Hu 2021): what moves."""

import pytest
import torch

import ntk_helpers as nh

WIDTHS = [256, 1024, 4096]


def changes(parameterization, activation, lr):
    x = nh.sphere(16, 8, seed=0)
    y = torch.sin(2 * x[:, 0])
    rows = []
    for m in WIDTHS:
        model = nh.parameterized_mlp(8, width=m, activation=activation, parameterization=parameterization,
                                     seed=0)
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
        rms = [float(torch.stack([nh.parameterized_mlp(8, width=m, parameterization="mup", seed=s)(x)
                                  for s in range(20)]).pow(2).mean().sqrt()) for m in WIDTHS]
    assert abs(nh.loglog_slope(WIDTHS, rms) + 0.5) < 0.15


def test_standard_parameterization_at_fixed_lr_blows_up_with_width():
    x = nh.sphere(16, 8, seed=0)
    y = torch.sin(2 * x[:, 0])
    losses = []
    for m in WIDTHS:
        model = nh.parameterized_mlp(8, width=m, parameterization="standard", seed=0)
        losses.append(float(nh.train(model, x, y, lr=1.0, steps=1).loss[-1]))
    assert losses[0] < losses[1] < losses[2]


# The width exponents lesson 05 derives: relative RMS change of h1 (input layer), h2 (hidden layer) and the
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
        model = nh.parameterized_mlp(8, width=m, depth=2, parameterization=parameterization, seed=0)
        with torch.no_grad():
            h0, f0 = model.preactivations(x), model(x)
        lr = ONE_STEP_LR[parameterization] if rule == "fixed" else 1 / m
        nh.train(model, x, y + f0, lr=lr, steps=1, track_kernels=False)
        with torch.no_grad():
            h1, f1 = model.preactivations(x), model(x)
        rms = lambda t: float(t.pow(2).mean().sqrt())
        rows.append([rms(a - b) / rms(b) for a, b in zip(h1, h0)] + [rms(f1 - f0)])
    rows = torch.tensor(rows, dtype=torch.float64)
    measured = [nh.loglog_slope(widths, rows[:, j]) for j in range(3)]
    for e, p in zip(measured, ONE_STEP_EXPONENTS[parameterization, rule]):
        assert abs(e - p) <= 0.1, f"expected slope {p} +- 0.1, measured {measured}"


def test_preactivations_feed_the_features():
    x = nh.sphere(5, 4, seed=0)
    model = nh.parameterized_mlp(4, width=16, depth=3, parameterization="mup", seed=0)
    with torch.no_grad():
        h = model.preactivations(x)
        assert [tuple(t.shape) for t in h] == [(5, 16)] * 3
        torch.testing.assert_close(torch.relu(h[-1]), model.features(x), rtol=0, atol=0)


def test_divergence_raises_or_stops_with_a_clear_record():
    x = nh.sphere(16, 8, seed=0)
    y = torch.sin(2 * x[:, 0])
    with pytest.raises(FloatingPointError, match="diverged"):
        nh.train(nh.parameterized_mlp(8, width=1024, parameterization="standard", seed=0), x, y,
                 lr=0.005, steps=50)
    record = nh.train(nh.parameterized_mlp(8, width=1024, parameterization="standard", seed=0), x, y,
                      lr=0.005, steps=50, on_divergence="stop")
    assert record.diverged_at is not None and 0 < record.diverged_at <= 50
    assert len(record.loss) == record.diverged_at and torch.isfinite(record.loss).all()
    assert record.ntk_end is None and record.features_end is None
    with pytest.raises(ValueError, match="diverged at step"):
        record.feature_change
    fine = nh.train(nh.parameterized_mlp(8, width=64, parameterization="standard", seed=0), x, y,
                    lr=0.005, steps=5, on_divergence="stop")
    assert fine.diverged_at is None and len(fine.loss) == 6 and fine.feature_change >= 0
    with pytest.raises(ValueError, match="not recorded"):
        nh.train(nh.parameterized_mlp(8, width=8, seed=0), x, y, lr=0.1, steps=1,
                 track_kernels=False).ntk_change
    with pytest.raises(ValueError, match="on_divergence"):
        nh.train(nh.parameterized_mlp(8, width=8, seed=0), x, y, lr=0.1, steps=1, on_divergence="ignore")


def test_parameterized_mlp_jacobian_ntk_matches_naive_loop():
    """Regression test: slicing a ParameterList inside forward hid the first layer from torch.func."""
    x = nh.sphere(5, 4, seed=0)
    model = nh.parameterized_mlp(4, width=16, depth=2, parameterization="mup", seed=0)
    torch.testing.assert_close(nh.empirical_ntk(model, x), nh.empirical_ntk(model, x, method="naive"),
                               rtol=1e-10, atol=1e-10)
    weights = model.lr_multipliers
    weighted = nh.empirical_ntk(model, x, parameter_weights=weights)
    manual = sum(w * nh.empirical_ntk(_only(model, name), x, method="naive") for name, w in weights.items())
    torch.testing.assert_close(weighted, manual, rtol=1e-10, atol=1e-10)


def _only(model, name):
    """The same model with every parameter but ``name`` frozen."""
    clone = nh.parameterized_mlp(4, width=16, depth=2, parameterization="mup", seed=0)
    for n, p in clone.named_parameters():
        p.requires_grad_(n == name)
    return clone


def test_bad_arguments():
    with pytest.raises(ValueError, match="unknown parameterization 'sp'; allowed values: mup, ntk, standard"):
        nh.parameterized_mlp(3, width=8, parameterization="sp")
    model = nh.parameterized_mlp(3, width=8)
    x = nh.sphere(4, 3)
    with pytest.raises(ValueError, match="one target per input"):
        nh.train(model, x, torch.zeros(3, dtype=torch.float64), lr=0.1, steps=1)
    with pytest.raises(ValueError, match="lr"):
        nh.train(model, x, torch.zeros(4, dtype=torch.float64), lr=-0.1, steps=1)
    with pytest.raises(ValueError, match="parameter_weights names unknown"):
        nh.empirical_ntk(model, x, parameter_weights={"nope": 1.0})
