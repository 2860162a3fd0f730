"""Every empirical-NTK path against a naive per-example autograd loop (float64, 1e-10)."""

import pytest
import torch
from torch import nn

import ntk_helpers as nh


def naive_loop(model, x1, x2):
    """An independent oracle written here: Theta_ij = <grad f(x1_i), grad f(x2_j)>."""
    def grads(x):
        rows = []
        for xi in x:
            model.zero_grad()
            model(xi[None]).sum().backward()
            rows.append(torch.cat([p.grad.reshape(-1).clone() for p in model.parameters()]))
        return torch.stack(rows)
    return grads(x1) @ grads(x2).T


@pytest.fixture
def package_mlp():
    return nh.mlp(3, "gelu", sigma_w=1.3, sigma_b=0.4).network(5, width=32, seed=7)


@pytest.mark.parametrize("method", ["auto", "layerwise", "jacobian", "naive"])
def test_all_methods_match_the_naive_loop_on_a_package_mlp(package_mlp, x, x_other, method):
    oracle = naive_loop(package_mlp, x, x_other)
    theta = nh.empirical_ntk(package_mlp, x, x_other, method=method)
    torch.testing.assert_close(theta, oracle, rtol=1e-10, atol=1e-10)
    gram = nh.empirical_ntk(package_mlp, x, method=method)
    torch.testing.assert_close(gram, naive_loop(package_mlp, x, x), rtol=1e-10, atol=1e-10)


def test_layerwise_handles_bias_free_layers_and_identity(x):
    model = nh.serial(nh.dense(sigma_w=1.1), nh.identity(), nh.dense(sigma_w=0.9, sigma_b=0.3), nh.relu(),
                      nh.dense(1)).network(5, width=24, seed=1)
    torch.testing.assert_close(nh.empirical_ntk(model, x, method="layerwise"), naive_loop(model, x, x),
                               rtol=1e-10, atol=1e-10)


class SmallConvNet(nn.Module):
    """A module the package did not build: conv, layer norm, vector output."""

    def __init__(self, outputs=3):
        super().__init__()
        torch.manual_seed(0)
        self.conv = nn.Conv1d(1, 4, 3, padding=1, dtype=torch.float64)
        self.norm = nn.LayerNorm(20, dtype=torch.float64)
        self.head = nn.Linear(20, outputs, dtype=torch.float64)

    def forward(self, x):                       # (n, 5) -> (n, outputs)
        h = torch.tanh(self.conv(x[:, None, :])).flatten(1)
        return self.head(self.norm(h))


def test_jacobian_method_on_any_module_scalar_output(x, x_other):
    model = SmallConvNet(outputs=1)
    theta = nh.empirical_ntk(model, x, x_other)
    torch.testing.assert_close(theta, naive_loop(model, x, x_other), rtol=1e-10, atol=1e-10)


def test_vector_outputs_full_block_and_average(x, x_other):
    model = SmallConvNet(outputs=3)
    full = nh.empirical_ntk(model, x, x_other)
    assert full.shape == (8, 6, 3, 3)
    for a in range(3):                         # each output's NTK vs the naive loop on that output
        single = _OneOutput(model, a)
        torch.testing.assert_close(full[:, :, a, a], naive_loop(single, x, x_other), rtol=1e-10, atol=1e-10)
    torch.testing.assert_close(full, nh.empirical_ntk(model, x, x_other, method="naive"), rtol=1e-10, atol=1e-10)
    avg = nh.empirical_ntk(model, x, x_other, average_outputs=True)
    torch.testing.assert_close(avg, torch.diagonal(full, dim1=2, dim2=3).mean(-1))


class _OneOutput(nn.Module):
    def __init__(self, model, index):
        super().__init__()
        self.model, self.index = model, index

    def forward(self, x):
        return self.model(x)[:, self.index]


def test_chunking_does_not_change_the_result(package_mlp, x, x_other):
    whole = nh.empirical_ntk(package_mlp, x, x_other, method="jacobian")
    tiny = nh.empirical_ntk(package_mlp, x, x_other, method="jacobian", memory_budget=3 * 8 * 3000)
    torch.testing.assert_close(whole, tiny, rtol=1e-12, atol=1e-12)
    gram = nh.empirical_ntk(package_mlp, x, method="jacobian", memory_budget=3 * 8 * 3000)
    torch.testing.assert_close(gram, nh.empirical_ntk(package_mlp, x, x.clone(), method="jacobian"), rtol=1e-12, atol=1e-12)


def test_float32_models_work(x):
    model = nh.mlp(2).network(5, width=64, seed=0, dtype=torch.float32)
    theta = nh.empirical_ntk(model, x)
    assert theta.dtype == torch.float32
    torch.testing.assert_close(theta.double(), nh.empirical_ntk(model, x, method="jacobian").double(), rtol=1e-4, atol=1e-4)


def test_bad_arguments_give_clear_errors(package_mlp, x):
    with pytest.raises(ValueError, match="unknown method 'fast'; allowed values"):
        nh.empirical_ntk(package_mlp, x, method="fast")
    with pytest.raises(TypeError, match="model must be a torch.nn.Module"):
        nh.empirical_ntk(lambda t: t, x)
    with pytest.raises(ValueError, match="no trainable parameters"):
        nh.empirical_ntk(nn.ReLU(), x)
    with pytest.raises(ValueError, match="same feature shape"):
        nh.empirical_ntk(package_mlp, x, torch.ones(2, 4, dtype=torch.float64))
    with pytest.raises(ValueError, match="layerwise"):
        nh.empirical_ntk(SmallConvNet(1), x, method="layerwise")
    with pytest.raises(TypeError, match="x1 must be a torch.Tensor"):
        nh.empirical_ntk(package_mlp, x.numpy())
    with pytest.raises(ValueError, match="NaN"):
        nh.empirical_ntk(package_mlp, x * float("nan"))


def test_wrong_number_of_features_names_x1_and_the_expected_shape(package_mlp):
    """Not torch's 'mat1 and mat2 shapes cannot be multiplied': the message names the argument and the shape."""
    with pytest.raises(ValueError, match=r"x1 of shape \(3, 4\) does not fit the model: it expects \(n, 5\)"):
        nh.empirical_ntk(package_mlp, torch.ones(3, 4, dtype=torch.float64))
    with pytest.raises(ValueError, match=r"x1 of shape \(3, 4\) does not fit the model: it expects \(n, 5\)"):
        nh.empirical_ntk(package_mlp, torch.ones(3, 4, dtype=torch.float64), torch.ones(2, 4, dtype=torch.float64))
    cnn = nh.serial(nh.conv(), nh.relu(), nh.flatten(), nh.dense(1)).network((2, 4, 4), width=4)
    with pytest.raises(ValueError, match=r"x1 of shape \(3, 3, 4, 4\) does not fit the model: it expects \(n, 2, 4, 4\)"):
        nh.empirical_ntk(cnn, torch.ones(3, 3, 4, 4, dtype=torch.float64))


def test_any_module_with_the_wrong_input_shape_gets_a_named_error():
    """A module without ``in_shape`` is run on one example first: torch's error is wrapped, naming x1."""
    linear = torch.nn.Linear(5, 1).double()
    with pytest.raises(ValueError, match=r"x1 of shape \(3, 4\) does not fit the model \(mat1 and mat2"):
        nh.empirical_ntk(linear, torch.ones(3, 4, dtype=torch.float64))
