"""The input-gradient kernel ``grad_x f(x) . grad_x' f(x')``: what the NTK overview's ``compute_ntk`` computes
once repaired to run, and why it is not the NTK (ERRATA.md, entry B39; lesson 01, section 3)."""

from __future__ import annotations

import torch
from torch import nn

from .empirical import as_batch, check_fits


def input_gradient_kernel(model: nn.Module, x1, x2=None) -> torch.Tensor:
    """``K(x, x') = grad_x f(x) . grad_x' f(x')``: what the NTK overview's ``compute_ntk`` computes
    once repaired to run.

    It differentiates with respect to the *inputs*, not the parameters, so it is NOT the NTK
    (ERRATA.md, entry B39; lesson 01, section 3). Its (n1, n2) Gram matrix has rank at most d, the
    input dimension. Scalar-output models only.
    """
    if not isinstance(model, nn.Module):
        raise TypeError(f"model must be a torch.nn.Module, got {type(model).__name__}")
    like = next(model.parameters())
    x1 = as_batch("x1", x1, like)
    x2 = x1 if x2 is None else as_batch("x2", x2, like)
    check_fits(model, "x1", x1)

    def grads(x):                                            # (n, *feature_shape)
        with torch.enable_grad():
            x = x.clone().requires_grad_(True)
            out = model(x).reshape(x.shape[0], -1)
            if out.shape[1] != 1:
                raise ValueError("input_gradient_kernel needs a scalar-output model")
            (g,) = torch.autograd.grad(out.sum(), x)
        return g.reshape(x.shape[0], -1)

    return grads(x1) @ grads(x2).T
