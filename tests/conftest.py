import pytest
import torch

import ntk_helpers as nh


@pytest.fixture
def x():
    """8 inputs in R^5 with different norms (so the variance triple really matters)."""
    g = torch.Generator().manual_seed(123)
    return torch.randn(8, 5, generator=g, dtype=torch.float64) * torch.linspace(0.5, 1.5, 8, dtype=torch.float64)[:, None]


@pytest.fixture
def x_other():
    g = torch.Generator().manual_seed(321)
    return torch.randn(6, 5, generator=g, dtype=torch.float64)


@pytest.fixture
def sphere_x():
    return nh.sphere(10, 6, seed=4)
