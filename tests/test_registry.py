"""The activation registry is an extension point: one ``@register`` function makes a new activation usable by
name everywhere. (The oracle tests in test_activations.py and test_kernels.py are parametrized over
``nh.ACTIVATIONS`` at collection time, so a registered activation gets them too.)"""

import math

import pytest
import torch

import ntk_helpers as nh
from oracles import assert_matches_finite_networks


def _abs_dual(var1, var2, cov):
    """|x|: E[|u||v|] = (2/pi)(sqrt(var1 var2 - cov^2) + cov arcsin(rho)), E[sign u sign v] = (2/pi) arcsin(rho)."""
    prod = var1 * var2
    rho = (cov / prod.sqrt()).clamp(-1, 1)
    e_dot = 2 / math.pi * torch.asin(rho)
    return 2 / math.pi * (prod - cov * cov).clamp_min(0).sqrt() + e_dot * cov, e_dot


@pytest.fixture
def registered_abs():
    """Register an ``abs`` activation for one test, and remove it afterwards."""
    assert "abs" not in nh.ACTIVATIONS

    def abs() -> nh.Activation:          # the function name is the registry key
        return nh.Activation("abs", torch.abs, _abs_dual)

    returned = nh.register(abs)
    try:
        yield returned
    finally:
        del nh.ACTIVATIONS["abs"]


def test_a_registered_activation_works_by_name_everywhere(registered_abs):
    assert nh.ACTIVATIONS["abs"] is registered_abs
    assert nh.as_activation("abs").name == "abs"
    with pytest.raises(ValueError, match="allowed values: .*abs"):
        nh.as_activation("sigmoid")
    x = nh.sphere(5, 4, seed=0)
    arch = nh.mlp(2, "abs", sigma_w=1.2, sigma_b=0.3)
    assert_matches_finite_networks(arch, x, width=256)
    resnet = nh.resnet(3, "abs", alpha=0.5)
    assert resnet.kernel(x).is_finite()
    assert torch.isfinite(nh.empirical_ntk(resnet.network(4, width=16, seed=0), x)).all()
