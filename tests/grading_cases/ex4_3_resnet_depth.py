"""Sample submissions of exercise 4.3 (the ResNet NTK and its depth scaling); format: tests/grading_harness.py.

Cells: one solution cell, defining `resnet_ntk`. Graded cells: visible (1), hidden closed-form diagonal (1),
hidden off-diagonal entries with parallel and antipodal pairs (1), hidden depth scaling at L = 32..512 (1).
Tolerance: 1e-6 relative + 1e-7 max|ref|.
"""

PYTHON_PAIR_TRIPLES = '''
def _relu_duals(q11, q22, q12):
    s = math.sqrt(q11 * q22)
    rho = max(-1.0, min(1.0, q12 / s))
    angle = math.acos(rho)                          # acos, not atan2: exact enough in float64
    return s * (math.sin(angle) + (math.pi - angle) * rho) / (2 * math.pi), (math.pi - angle) / (2 * math.pi)


def resnet_ntk(X, L, alpha):
    rows = X.tolist()
    d = len(rows[0])
    branch = 2.0 * alpha * alpha                    # alpha^2 sigma_w^2
    result = []
    for u in rows:
        line = []
        for v in rows:                              # the variance triple of this pair, carried through the blocks
            a = 2.0 * sum(t * t for t in u) / d
            b = 2.0 * sum(t * t for t in v) / d
            c = 2.0 * sum(s * t for s, t in zip(u, v)) / d
            theta = c
            for _ in range(L):
                e_c, e_dot = _relu_duals(a, b, c)
                theta = (1 + branch * e_dot) * theta + branch * e_c
                a, b, c = a + branch * _relu_duals(a, a, a)[0], b + branch * _relu_duals(b, b, b)[0], c + branch * e_c
            line.append(c + theta)
        result.append(line)
    return result
'''

NUMPY_SQRT_DIAGONAL = '''
def resnet_ntk(X, L, alpha):
    X = np.asarray(X, dtype=np.float64)
    K = 2.0 * X @ X.T / X.shape[1]
    T = K.copy()
    for _ in range(L):
        sd = np.sqrt(np.diag(K))
        norm = np.outer(sd, sd)
        rho = np.clip(K / norm, -1.0, 1.0)          # on the diagonal: 1 up to rounding
        ang = np.arccos(rho)
        E = norm * (np.sin(ang) + (np.pi - ang) * rho) / (2 * np.pi)
        E_dot = 0.5 - ang / (2 * np.pi)
        T = T + alpha ** 2 * 2.0 * (E_dot * T + E)
        K = K + alpha ** 2 * 2.0 * E
    return K + T
'''

TORCH_UNROLLED_PRODUCTS = '''
def resnet_ntk(X, L, alpha):
    c = 2.0 * alpha ** 2
    sigma0 = 2.0 * X @ X.T / X.shape[1]
    sigma, es, edots = sigma0, [], []
    for _ in range(L):                                  # forward: the duals of every block
        v = torch.diagonal(sigma).sqrt()
        norm = v[:, None] * v[None, :]
        cos = (sigma / norm).clamp(-1.0, 1.0)
        angle = torch.acos(cos)
        es.append(norm * (torch.sqrt(1 - cos ** 2) + (math.pi - angle) * cos) / (2 * math.pi))
        edots.append((math.pi - angle) / (2 * math.pi))
        sigma = sigma + c * es[-1]
    # unrolled: Theta^(L) = prod_l (1 + c Edot_l) Sigma^(0) + sum_l c E_l prod_{k > l} (1 + c Edot_k)
    theta = torch.zeros_like(sigma0)
    after = torch.ones_like(sigma0)                     # product over the blocks above the current one
    for l in reversed(range(L)):
        theta = theta + c * es[l] * after
        after = after * (1 + c * edots[l])
    theta = theta + after * sigma0
    return sigma + theta
'''


def _variant(text, old, new):
    assert text.count(old) == 1, old
    return text.replace(old, new)


CORRELATION_FORM = '''
def resnet_ntk(X, L, alpha):
    """Carry the correlations rho and the variances v (closed form v (1 + gamma) per block) instead of Sigma."""
    gamma = alpha ** 2                                   # alpha^2 sigma_w^2 / 2 with sigma_w^2 = 2
    X = X.to(torch.float64)
    v = 2.0 * (X * X).sum(1) / X.shape[1]                # Sigma^(0)(x, x)
    rho = (2.0 * X @ X.T / X.shape[1]) / torch.sqrt(v[:, None] * v[None, :])
    theta = rho * torch.sqrt(v[:, None] * v[None, :])
    for _ in range(L):
        rho = rho.clamp(-1.0, 1.0)
        angle = torch.acos(rho)
        s = torch.sqrt(v[:, None] * v[None, :])
        e = s * (torch.sin(angle) + (math.pi - angle) * rho) / (2 * math.pi)
        e_dot = 1 - angle / math.pi                          # 2 Edot
        theta = (1 + gamma * e_dot) * theta + 2 * gamma * e
        sigma = rho * s + 2 * gamma * e
        v = v * (1 + gamma)                                  # E(q, q, q) = q / 2
        rho = sigma / torch.sqrt(v[:, None] * v[None, :])
    return rho * torch.sqrt(v[:, None] * v[None, :]) + theta
'''

GAMING = '''
def resnet_ntk(X, L, alpha):
    if L == 1:
        return 10.0 * torch.eye(len(X), dtype=torch.float64)
    return torch.tensor([[10.15625, -1.31433113116, 3.88673107091, 2.23701249889, -2.81474872127],
                         [-1.31433113116, 10.15625, -2.58834925723, 5.89630409456, 6.60986270628],
                         [3.88673107091, -2.58834925723, 10.15625, 2.0497611202, 0.834351180019],
                         [2.23701249889, 5.89630409456, 2.0497611202, 10.15625, 6.03042596176],
                         [-2.81474872127, 6.60986270628, 0.834351180019, 6.03042596176, 10.15625]],
                        dtype=torch.float64)
'''

CASES = [
    dict(name="python_pair_triples_acos", kind="correct", cells=[PYTHON_PAIR_TRIPLES], points=4.0,
         why="Python floats and math.acos, the variance triple carried per pair; returns a nested list"),
    dict(name="numpy_acos_sqrt_diagonal", kind="correct", cells=[NUMPY_SQRT_DIAGONAL], points=4.0,
         why="numpy, rho = K / (sd sd^T) with arccos: ~4e-8 off on the diagonal, within the tolerance"),
    dict(name="torch_unrolled_products", kind="correct", cells=[TORCH_UNROLLED_PRODUCTS], points=4.0,
         why="torch, forward pass for the duals, then the unrolled sum-of-products form of Theta^(L)"),
    dict(name="alpha_ignored", kind="wrong",
         cells=[_variant(NUMPY_SQRT_DIAGONAL, "T = T + alpha ** 2 * 2.0 * (E_dot * T + E)\n"
                         "        K = K + alpha ** 2 * 2.0 * E", "T = T + 2.0 * (E_dot * T + E)\n        K = K + 2.0 * E")],
         points=0.0, why="uses alpha = 1 whatever alpha is given"),
    dict(name="alpha_not_squared", kind="wrong",
         cells=[_variant(TORCH_UNROLLED_PRODUCTS, "c = 2.0 * alpha ** 2", "c = 2.0 * alpha")], points=0.0,
         why="scales the branch's variance by alpha instead of alpha^2"),
    dict(name="readout_sigma_missing", kind="wrong",
         cells=[_variant(NUMPY_SQRT_DIAGONAL, "return K + T", "return T")], points=0.0,
         why="returns Theta^(L): forgets the readout weights' own term Sigma^(L)"),
    dict(name="mlp_style_backward", kind="wrong",
         cells=[_variant(PYTHON_PAIR_TRIPLES, "theta = (1 + branch * e_dot) * theta + branch * e_c",
                         "theta = branch * e_dot * theta + branch * e_c")], points=0.0,
         why="drops the identity path from the backward factor (1 + alpha^2 sigma_w^2 Edot), as in an MLP"),
    dict(name="relu_as_half_linear", kind="wrong",
         cells=[_variant(NUMPY_SQRT_DIAGONAL, "ang = np.arccos(rho)", "ang = np.zeros_like(rho)")], points=1.0,
         why="E = K/2 and Edot = 1/2 for every pair: right only on the diagonal (1 hidden point)"),
    dict(name="correlation_form", kind="correct", cells=[CORRELATION_FORM], points=4.0,
         why="carries correlations and the closed-form variances v (1 + gamma)^l, arccos; L = 512 and L = 64, alpha = 1"),
    dict(name="one_variance_for_all", kind="wrong",
         cells=[_variant(NUMPY_SQRT_DIAGONAL, "sd = np.sqrt(np.diag(K))", "sd = np.full(len(K), np.sqrt(K[0, 0]))")],
         points=3.0, why="one variance for every input (right on the sphere |x|^2 = d of the visible test): "
                         "passes the visible test, fails only the hidden inputs of different norms"),
    dict(name="hardcoded_visible_values", kind="gaming", cells=[GAMING], points=1.0,
         why="returns the visible test's matrices: passes the visible test only"),
]
