"""Monte Carlo kernels: ensembles of finite networks, for layers without a closed form.

Max pooling (its kernel is a Gaussian expectation over a whole window: Novak et al. 2019) and
batch norm with batch statistics (a unit depends on the whole batch: Yang et al. 2019) have
well-defined finite networks but no closed-form infinite-width kernel. We estimate

    NNGP(x, x') ~ mean over networks and output units of f(x) f(x')
    NTK(x, x')  ~ mean over networks of the empirical NTK

with standard errors over the networks. Both estimates carry an O(1/width) bias besides the noise.
"""

from __future__ import annotations

from dataclasses import dataclass

import torch

from .._checks import check_int, check_pair
from .empirical import empirical_ntk
from ..engine.layer import Layer


@dataclass(frozen=True)
class MonteCarloKernel:
    """Mean and standard error of the NNGP and NTK over ``n_networks`` random networks."""

    nngp: torch.Tensor         # (n1, n2)
    ntk: torch.Tensor          # (n1, n2)
    nngp_sem: torch.Tensor     # (n1, n2) standard error of the mean
    ntk_sem: torch.Tensor      # (n1, n2)
    n_networks: int


def monte_carlo_kernel(architecture: Layer, x1, x2=None, *, width: int, n_networks: int = 32,
                       seed: int = 0, ntk: bool = True) -> MonteCarloKernel:
    """Estimate the kernels of ``architecture`` from ``n_networks`` finite networks of the given width.

    Networks use seeds ``seed, seed + 1, ...``. Batch-coupled architectures (``batch_norm()``) are
    evaluated on the whole batch ``x1`` at once and need ``x2=None``. ``ntk=False`` skips the
    (much more expensive) empirical NTKs; ``.ntk`` and ``.ntk_sem`` are then NaN.
    """
    t1, t2 = check_pair(x1, x2, ndim=(2, 4))
    n_networks = check_int("n_networks", n_networks, minimum=2)
    shape = tuple(t1.shape[1:])
    coupled = architecture.batch_coupled
    if coupled and t2 is not None:
        raise ValueError("batch_norm() networks depend on the whole batch: call monte_carlo_kernel with x2=None")
    nngps, ntks = [], []
    for s in range(n_networks):
        model = architecture.network(shape, width=width, seed=seed + s)
        with torch.no_grad():
            f1 = model(t1).reshape(t1.shape[0], -1)
            f2 = f1 if t2 is None else model(t2).reshape(t2.shape[0], -1)
        nngps.append(f1 @ f2.T / f1.shape[1])
        if ntk:
            ntks.append(empirical_ntk(model, t1, t2, method="batch" if coupled else "auto", average_outputs=True))
        else:
            ntks.append(torch.full_like(nngps[-1], float("nan")))
    nngp, theta = torch.stack(nngps), torch.stack(ntks)
    sem = lambda t: t.std(0) / n_networks ** 0.5
    return MonteCarloKernel(nngp.mean(0), theta.mean(0), sem(nngp), sem(theta), n_networks)
