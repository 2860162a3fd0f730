import importlib.util
from pathlib import Path

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


def load_tool(name: str):
    """The script ``tools/<name>.py`` as a module (the tools are scripts, not a package)."""
    path = Path(__file__).resolve().parents[1] / "tools" / f"{name}.py"
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module
