"""The empirical NTK of a finite network: Theta(x, x') = sum_p df(x)/dtheta_p df(x')/dtheta_p.

Three ways to compute it, all returning the same numbers (tests check them against each other
to 1e-10 in float64):

- ``"jacobian"``: works for ANY ``nn.Module``. Per-example Jacobians with ``torch.func``
  (``functional_call``, ``vmap``, ``jacrev``), contracted parameter by parameter, in chunks of
  examples so that memory stays below ``memory_budget`` bytes.
- ``"layerwise"``: for the package's own MLPs (``Layer.network``). One forward and one backward
  pass give, per dense layer l, the input h_{l-1} and the backpropagated signal
  delta_l = df/dz_l; then (the chain rule layer by layer; lesson 01, section 4)
  ``Theta = sum_l (delta_l delta_l^T) * (sigma_w^2/fan_in h_{l-1} h_{l-1}^T + sigma_b^2)``.
  No Jacobian is ever stored, which makes it 50-100x faster (``benchmarks/``).
- ``"naive"``: one backward pass per example; slow and obviously right: the test oracle.

This fixes the NTK overview's ``compute_ntk`` (ERRATA.md, entry B39; lesson 01, section 3): the NTK
differentiates with respect to the *parameters*, not the inputs (Jacot et al. 2018).
"""

from __future__ import annotations

from typing import Mapping

import torch
from torch import nn
from torch.func import functional_call, jacrev, vmap

from .._checks import check_choice, check_int
from ..engine.activation import Elementwise
from ..engine.dense import NTKDense
from ..engine.layer import NTKSequential

METHODS = ("auto", "jacobian", "layerwise", "naive", "batch")


def empirical_ntk(model: nn.Module, x1, x2=None, *, method: str = "auto",
                  average_outputs: bool = False, memory_budget: int = 1 << 30,
                  parameter_weights: Mapping[str, float] | None = None) -> torch.Tensor:
    """Empirical NTK of ``model`` between the batches ``x1`` (n1, ...) and ``x2`` (n2, ...).

    Args:
        model: any ``nn.Module`` mapping a batch (n, ...) to outputs (n,) or (n, k). It is
            evaluated one example at a time, so put batch-coupled layers (BatchNorm) in eval mode.
        x1, x2: input batches; ``x2=None`` means ``x2 = x1`` (the Gram matrix, computed once).
        method: "auto" (layerwise for the package's MLPs, jacobian otherwise), "jacobian",
            "layerwise", "naive", or "batch": differentiate the model applied to the whole batch
            ``x1`` at once (needed for batch-coupled layers such as batch norm; ``x2`` must be None).
        average_outputs: for k > 1 outputs, return the mean over the k diagonal blocks (n1, n2)
            instead of the full (n1, n2, k, k) tensor.
        memory_budget: bytes allowed for one chunk of Jacobians (jacobian method).
        parameter_weights: optional weight per parameter name, giving
            ``sum_p w_p df/dtheta_p df'/dtheta_p``: with per-layer learning rates as weights this is
            the kernel that drives gradient descent (lesson 05b, section 4.4.2). Uses the jacobian
            method.

    Returns:
        (n1, n2) for a scalar output (k = 1); for k > 1 the (n1, n2, k, k) tensor
        Theta[i, j, a, b] = <df_a(x1_i)/dtheta, df_b(x2_j)/dtheta>, or its (n1, n2) average over
        a = b with ``average_outputs=True`` (at infinite width it is Theta_scalar * I_k).
    """
    check_choice("method", method, METHODS)
    if not isinstance(model, nn.Module):
        raise TypeError(f"model must be a torch.nn.Module, got {type(model).__name__}")
    params = [p for p in model.parameters() if p.requires_grad]
    if not params:
        raise ValueError("model has no trainable parameters, so its NTK is zero")
    x1 = as_batch("x1", x1, params[0])
    x2 = None if x2 is None else as_batch("x2", x2, params[0])
    if x2 is not None and x1.shape[1:] != x2.shape[1:]:
        raise ValueError(f"x1 and x2 must have the same feature shape, got {tuple(x1.shape[1:])} and {tuple(x2.shape[1:])}")
    check_fits(model, "x1", x1)
    if parameter_weights is not None:
        unknown = set(parameter_weights) - {n for n, _ in model.named_parameters()}
        if unknown:
            raise ValueError(f"parameter_weights names unknown parameters: {sorted(unknown)}")
        if method not in ("auto", "jacobian"):
            raise ValueError("parameter_weights works with method='jacobian' (or 'auto')")
        method = "jacobian"
    if method == "auto":
        method = "layerwise" if _is_package_mlp(model) else "jacobian"
    if method == "layerwise":
        if not _is_package_mlp(model):
            raise ValueError("method='layerwise' needs a network built by ntk_helpers' dense/activation "
                             "layers with a scalar readout; use method='jacobian' for other modules")
        theta = _layerwise(model, x1, x2)
    elif method == "jacobian":
        theta = _jacobian(model, x1, x2, check_int("memory_budget", memory_budget, minimum=1), parameter_weights)
    elif method == "batch":
        if x2 is not None:
            raise ValueError("method='batch' differentiates the model on the whole batch x1; pass x2=None")
        theta = _batch(model, x1)
    else:
        theta = _naive(model, x1, x2)
    return _shape_output(theta, average_outputs)


def as_batch(name, x, like: torch.Tensor) -> torch.Tensor:
    """``x`` checked, detached and moved to the dtype and device of the parameter ``like``."""
    if not isinstance(x, torch.Tensor):
        raise TypeError(f"{name} must be a torch.Tensor of shape (n, ...), got {type(x).__name__}")
    if x.ndim < 1 or x.shape[0] == 0:
        raise ValueError(f"{name} must be a non-empty batch (n, ...), got shape {tuple(x.shape)}")
    if not torch.isfinite(x).all():
        raise ValueError(f"{name} contains NaN or infinite values")
    return x.detach().to(device=like.device, dtype=like.dtype)


def check_fits(model: nn.Module, name: str, x: torch.Tensor) -> None:
    """Check that ``x`` fits ``model`` (by its ``in_shape`` if it has one, else by running it on one example),
    so that an input of the wrong shape gets an error naming ``name`` and the expected shape."""
    in_shape = getattr(model, "in_shape", None)
    if in_shape is not None:
        if tuple(x.shape[1:]) != tuple(in_shape):
            raise ValueError(f"{name} of shape {tuple(x.shape)} does not fit the model: it expects "
                             f"(n, {', '.join(map(str, in_shape))})")
        return
    try:
        with torch.no_grad():
            model(x[:1])
    except RuntimeError as error:
        raise ValueError(f"{name} of shape {tuple(x.shape)} does not fit the model ({error})") from error


def _shape_output(theta: torch.Tensor, average_outputs: bool) -> torch.Tensor:
    """(n1, n2, k, k) -> (n1, n2) when k == 1 or when averaging the output diagonal."""
    if theta.shape[-1] == 1:
        return theta[..., 0, 0]
    if average_outputs:
        return torch.diagonal(theta, dim1=-2, dim2=-1).mean(-1)
    return theta


# -- jacobian: any module ------------------------------------------------------------------------

def _jacobian(model, x1, x2, memory_budget, weights=None):
    names = [n for n, p in model.named_parameters() if p.requires_grad]
    scale = [1.0 if weights is None else float(weights.get(n, 1.0)) for n in names]
    params = {n: p.detach() for n, p in model.named_parameters() if p.requires_grad}
    frozen = {n: p.detach() for n, p in model.named_parameters() if not p.requires_grad}
    buffers = dict(model.named_buffers())

    def f(p, x):                                        # one example -> (k,)
        out = functional_call(model, ({**p, **frozen}, buffers), (x.unsqueeze(0),))
        return out.reshape(-1)

    jac = vmap(jacrev(f), in_dims=(None, 0))

    def jacobians(x):                                   # -> list of (c, k, P_name)
        j = jac(params, x)
        return [j[n].reshape(x.shape[0], j[n].shape[1], -1) for n in names]

    n_params = sum(p.numel() for p in params.values())
    k = f(params, x1[0]).numel()
    per_example = n_params * k * x1.element_size()
    chunk = max(1, memory_budget // max(per_example, 1))
    xb = x1 if x2 is None else x2
    theta = x1.new_zeros(x1.shape[0], xb.shape[0], k, k)
    for i in range(0, x1.shape[0], chunk):
        j1 = jacobians(x1[i:i + chunk])
        for j in range(0, xb.shape[0], chunk):
            if x2 is None and j < i:                    # symmetric: fill from the block above
                theta[i:i + chunk, j:j + chunk] = theta[j:j + chunk, i:i + chunk].transpose(0, 1).transpose(2, 3)
                continue
            j2 = j1 if (x2 is None and j == i) else jacobians(xb[j:j + chunk])
            theta[i:i + chunk, j:j + chunk] = sum(w * torch.einsum("aip,bjp->abij", a, b)
                                                  for w, a, b in zip(scale, j1, j2))
    return theta


# -- batch: the whole batch at once (batch-coupled models) --------------------------------------

def _batch(model, x):
    params = {n: p.detach() for n, p in model.named_parameters() if p.requires_grad}
    frozen = {n: p.detach() for n, p in model.named_parameters() if not p.requires_grad}
    buffers = dict(model.named_buffers())
    n = x.shape[0]

    def f(p):                                           # the whole batch -> (n, k)
        return functional_call(model, ({**p, **frozen}, buffers), (x,)).reshape(n, -1)

    jac = jacrev(f)(params)                             # name -> (n, k, *shape)
    return sum(torch.einsum("iap,jbp->ijab", j.reshape(n, j.shape[1], -1), j.reshape(n, j.shape[1], -1))
               for j in jac.values())


# -- layerwise: the package's MLPs ---------------------------------------------------------------

def _is_package_mlp(model) -> bool:
    if not isinstance(model, NTKSequential) or len(model) == 0:
        return False
    if not all(isinstance(m, (NTKDense, Elementwise)) for m in model):
        return False
    last = model[len(model) - 1]
    return isinstance(last, NTKDense) and last.out_features == 1


def _signals(model, x):
    """Forward and backward once: per dense layer, its input h (n, fan_in) and delta = df/dz (n, out)."""
    inputs, pre = [], []
    with torch.enable_grad():
        h = x
        for m in model:
            if isinstance(m, NTKDense):
                inputs.append(h.detach())
                h = m(h)
                pre.append(h)
            else:
                h = m(h)
        deltas = torch.autograd.grad(h.sum(), pre)
    return inputs, [d.detach() for d in deltas]


def _layerwise(model, x1, x2):
    h1, d1 = _signals(model, x1)
    h2, d2 = (h1, d1) if x2 is None else _signals(model, x2)
    dense_layers = [m for m in model if isinstance(m, NTKDense)]
    theta = 0
    for layer, a, b, da, db in zip(dense_layers, h1, h2, d1, d2):
        features = layer.weight_scale ** 2 * (a @ b.T)                      # (n1, n2)
        if layer.bias is not None:
            features = features + layer.sigma_b ** 2
        theta = theta + (da @ db.T) * features
    return theta[..., None, None]


# -- naive: one backward pass per example (the test oracle) --------------------------------------

def _naive(model, x1, x2):
    params = [p for p in model.parameters() if p.requires_grad]

    def gradients(x):                                    # -> (n, k, P)
        rows = []
        with torch.enable_grad():
            for i in range(x.shape[0]):
                out = model(x[i:i + 1]).reshape(-1)
                rows.append(torch.stack([
                    torch.cat([g.reshape(-1) for g in torch.autograd.grad(out[a], params, retain_graph=True)])
                    for a in range(out.numel())
                ]))
        return torch.stack(rows)

    g1 = gradients(x1)
    g2 = g1 if x2 is None else gradients(x2)
    return torch.einsum("iap,jbp->ijab", g1, g2)
