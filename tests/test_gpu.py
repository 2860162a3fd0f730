"""Kernels and empirical NTKs on the inputs' device.

The ``cuda`` cases are marked ``gpu`` and skipped where ``torch.cuda.is_available()`` is False; the ``cpu``
cases run the same code with the device given explicitly, so the device handling is tested everywhere.
"""

import math

import pytest
import torch

import ntk_helpers as nh

DEVICES = [
    "cpu",
    pytest.param("cuda", marks=[pytest.mark.gpu,
                                pytest.mark.skipif(not torch.cuda.is_available(), reason="no CUDA device")]),
]


def architectures():
    c = lambda **kw: nh.conv(sigma_w=math.sqrt(2), sigma_b=0.1, **kw)
    return {
        "mlp": (nh.mlp(3, "relu", sigma_b=0.1), (6, 5)),
        "mlp-tanh-quadrature": (nh.mlp(2, "tanh", sigma_b=0.1), (6, 5)),
        "resnet": (nh.resnet(3, "gelu", alpha=0.5), (6, 5)),
        "cnn-gap": (nh.serial(c(), nh.relu(), c(stride=2), nh.erf(), c(padding="circular"), nh.relu(),
                              nh.global_avg_pool(), nh.dense(1)), (5, 2, 6, 5)),
        "cnn-pool-flatten": (nh.serial(c(), nh.relu(), nh.avg_pool(2), c(dilation=2), nh.relu(), nh.flatten(),
                                       nh.dense(1)), (5, 2, 8, 7)),
    }


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("name", list(architectures()))
def test_kernels_on_a_device_match_the_cpu(device, name):
    arch, shape = architectures()[name]
    # quadrature picks its grid from each block's largest variance: other blocks, other grids (accuracy 1e-8)
    tolerance = 1e-8 if "quadrature" in name else 1e-10
    x = torch.randn(*shape, generator=torch.Generator().manual_seed(0), dtype=torch.float64)
    expected = arch.kernel(x)
    for kwargs in ({}, {"block_size": 2}):
        k = arch.kernel(x.to(device), **kwargs)
        assert k.ntk.device.type == device and k.nngp.device.type == device and k.var1.device.type == device
        for field in ("nngp", "ntk", "var1"):
            got, want = getattr(k, field).cpu(), getattr(expected, field)
            assert float((got - want).abs().max()) <= tolerance * float(want.abs().max()), (name, field, kwargs)
    cross = arch.kernel(x[:3].to(device), x[2:].to(device))
    assert cross.ntk.device.type == device
    torch.testing.assert_close(cross.ntk.cpu(), arch.kernel(x[:3], x[2:]).ntk, rtol=tolerance, atol=0)


@pytest.mark.parametrize("device", DEVICES)
def test_empirical_ntk_on_a_device_matches_the_cpu(device):
    arch = nh.serial(nh.conv(sigma_w=1.4), nh.relu(), nh.global_avg_pool(), nh.dense(1))
    x = torch.randn(4, 1, 5, 5, generator=torch.Generator().manual_seed(1), dtype=torch.float64)
    on_cpu = nh.empirical_ntk(arch.network((1, 5, 5), width=8, seed=0), x)
    model = arch.network((1, 5, 5), width=8, seed=0, device=device)
    assert next(model.parameters()).device.type == device
    theta = nh.empirical_ntk(model, x)                                     # inputs follow the parameters
    torch.testing.assert_close(theta.cpu(), on_cpu, rtol=1e-10, atol=1e-12)
    mlp = nh.mlp(2, "relu")
    v = torch.randn(5, 3, generator=torch.Generator().manual_seed(2), dtype=torch.float64)
    torch.testing.assert_close(nh.empirical_ntk(mlp.network(3, width=16, device=device), v.to(device)).cpu(),
                               nh.empirical_ntk(mlp.network(3, width=16), v), rtol=1e-10, atol=1e-12)
