"""The effective rank of a dot-product kernel on the sphere as n grows: lesson 08 ("The r_inf law").

For inputs drawn uniformly from the sphere S^{d-1} (radius sqrt(d)), an MLP kernel depends only on
t = cos(angle): k(x, x') = kappa(t). With m1 = E k(x,x) = kappa(1), m2 = kappa(1)^2 and
m_off = E k(x,x')^2 = E_t kappa(t)^2 over independent inputs,

    r_inf = m1^2 / m_off = kappa(1)^2 / E_t kappa(t)^2        (the participation ratio of the Mercer spectrum)
    r_n   ~ (m2 + (n-1) m1^2) / (m2 + (n-1) m_off) = n r_inf / (n - 1 + r_inf)   (ratio of expectations)

so r_eff saturates at a constant; that is true of EVERY kernel with E k(x,x')^2 > 0 (a law of large
numbers for the V-statistics tr K / n and ||K||_F^2 / n^2) and says nothing about generalization
(lesson 08; ERRATA.md B14, B19). r_inf does not depend on n: when the off-diagonal entries vanish
it grows without bound, while r_eff(n) <= n (ERRATA.md B16). Values near 1 mean a dominant constant
(mean) mode: centering removes it, r_inf^c = (kappa(1) - mu)^2 / (E kappa^2 - mu^2) with
mu = E_t kappa(t).

t has density proportional to (1 - t^2)^((d-3)/2): Gauss-Jacobi quadrature with alpha = beta = (d-3)/2.
"""

from __future__ import annotations

import math

import numpy as np
import torch
from scipy.special import roots_jacobi

from .._checks import DTYPE, check_choice, check_int
from ..engine.layer import Layer


def angle_distribution(d: int, nodes: int = 200) -> tuple[torch.Tensor, torch.Tensor]:
    """Nodes t and weights w (sum 1) for E[g(t)], t = cosine between two uniform points on S^{d-1}."""
    d = check_int("d", d, minimum=2)
    a = (d - 3) / 2
    t, w = roots_jacobi(check_int("nodes", nodes, minimum=2), a, a)
    return torch.as_tensor(t, dtype=DTYPE), torch.as_tensor(w / w.sum(), dtype=DTYPE)


def dot_product_profile(architecture: Layer, t, d: int, *, kind: str = "ntk") -> torch.Tensor:
    """kappa(t): the kernel between two inputs with |x|^2 = |x'|^2 = d at cosine t."""
    check_choice("kind", kind, ("ntk", "nngp"))
    d = check_int("d", d, minimum=2)
    t = torch.as_tensor(t, dtype=DTYPE).reshape(-1).clamp(-1, 1)
    e1 = torch.zeros(1, d, dtype=DTYPE)
    e1[0, 0] = math.sqrt(d)
    others = torch.zeros(t.numel(), d, dtype=DTYPE)
    others[:, 0] = t * math.sqrt(d)
    others[:, 1] = (1 - t * t).clamp_min(0).sqrt() * math.sqrt(d)
    return getattr(architecture.kernel(e1, others), kind)[0]


def effective_rank_limit(architecture: Layer, d: int, *, kind: str = "ntk", centered: bool = False,
                         nodes: int = 200) -> float:
    """r_inf = kappa(1)^2 / E kappa(t)^2 (or its centred version) for uniform inputs on S^{d-1}."""
    t, w = angle_distribution(d, nodes)
    kappa = dot_product_profile(architecture, t, d, kind=kind)
    kappa_one = float(dot_product_profile(architecture, torch.ones(1), d, kind=kind))
    second = float(w @ kappa ** 2)
    if not centered:
        return kappa_one ** 2 / second
    mean = float(w @ kappa)
    return (kappa_one - mean) ** 2 / (second - mean ** 2)


def effective_rank_finite(r_inf: float, n: int) -> float:
    """The ratio-of-expectations prediction n r_inf / (n - 1 + r_inf) for n inputs (constant diagonal).

    r_inf >= 1 always (Cauchy-Schwarz: E k(x,x')^2 <= kappa(1)^2); values below 1 by rounding only
    (down to 1 - 1e-9, e.g. from quadrature of a nearly constant kernel) are treated as 1.
    """
    n = check_int("n", n, minimum=1)
    if isinstance(r_inf, bool) or not (isinstance(r_inf, (int, float, np.floating)) and r_inf >= 1 - 1e-9):
        raise ValueError(f"r_inf must be a number >= 1, got {r_inf!r}")
    r_inf = max(float(r_inf), 1.0)
    if math.isinf(r_inf):
        return float(n)
    return n * r_inf / (n - 1 + r_inf)
