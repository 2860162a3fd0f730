"""Sample submissions of exercise 4.1 (dual activations and the MLP recursion); format: tests/grading_harness.py.

Cells: one solution cell, defining `dual` and `mlp_kernels`. Graded cells: visible (three duals, ReLU recursion with
a bias, deep linear closed form: 1), hidden duals at correlation +-1 (1), hidden ReLU/identity recursion with parallel
and antipodal inputs, depth up to 30 (1), hidden erf recursion (1). Tolerance: 1e-6 relative + 1e-7 max|ref|.
"""

NUMPY_LOOPS = '''
import math
import numpy as np


def dual(name, q11, q22, q12):
    a, b, c = (np.asarray(q, dtype=np.float64) for q in (q11, q22, q12))
    if name == "identity":
        return c.copy(), np.ones_like(c)
    if name == "relu":
        s = np.sqrt(a * b)
        theta = np.arccos(np.clip(c / s, -1.0, 1.0))
        return s * (np.sin(theta) + (np.pi - theta) * np.cos(theta)) / (2 * np.pi), (np.pi - theta) / (2 * np.pi)
    if name == "erf":
        prod = (1 + 2 * a) * (1 + 2 * b)
        return 2 / np.pi * np.arcsin(2 * c / np.sqrt(prod)), 4 / np.pi / np.sqrt(prod - 4 * c ** 2)
    raise ValueError(name)


def mlp_kernels(x1, x2, depth, activation, sigma_w2, sigma_b2):
    X1, X2 = np.asarray(x1, dtype=np.float64), np.asarray(x2, dtype=np.float64)
    d = X1.shape[1]
    nngp = np.zeros((len(X1), len(X2)))
    ntk = np.zeros((len(X1), len(X2)))
    for i in range(len(X1)):
        for j in range(len(X2)):
            qa = sigma_w2 * X1[i] @ X1[i] / d + sigma_b2        # the triple of this pair
            qb = sigma_w2 * X2[j] @ X2[j] / d + sigma_b2
            qc = sigma_w2 * X1[i] @ X2[j] / d + sigma_b2
            th = qc
            for layer in range(depth):
                ea = dual(activation, qa, qa, qa)[0]
                eb = dual(activation, qb, qb, qb)[0]
                ec, ec_dot = dual(activation, qa, qb, qc)
                qa, qb, qc = sigma_w2 * ea + sigma_b2, sigma_w2 * eb + sigma_b2, sigma_w2 * ec + sigma_b2
                th = qc + sigma_w2 * ec_dot * th
            nngp[i, j], ntk[i, j] = qc, th
    return nngp, ntk
'''

TORCH_JOINT_GRAM = '''
def dual(name, q11, q22, q12):
    if name == "identity":
        return 1.0 * q12, torch.ones_like(q12)
    if name == "relu":
        norm = torch.sqrt(q11 * q22)
        cos = torch.clamp(q12 / norm, -1.0, 1.0)
        angle = torch.acos(cos)
        return norm * (torch.sin(angle) + (math.pi - angle) * cos) / (2 * math.pi), 0.5 - angle / (2 * math.pi)
    if name == "erf":
        A, B = 1 + 2 * q11, 1 + 2 * q22
        return (2 / math.pi) * torch.asin(2 * q12 / torch.sqrt(A * B)), (4 / math.pi) * torch.rsqrt(A * B - 4 * q12 ** 2)
    raise ValueError(name)


def mlp_kernels(x1, x2, depth, activation, sigma_w2, sigma_b2):
    # one Gram matrix over x1 and x2 together: its diagonal holds every variance
    n1 = x1.shape[0]
    x = torch.cat([x1, x2])
    K = sigma_w2 * (x @ x.T) / x.shape[1] + sigma_b2
    T = K.clone()
    for _ in range(depth):
        v = torch.diagonal(K)
        E, Ed = dual(activation, v[:, None].expand_as(K), v[None, :].expand_as(K), K)
        K = sigma_w2 * E + sigma_b2
        T = K + sigma_w2 * Ed * T
    return K[:n1, n1:], T[:n1, n1:]
'''

PYTHON_FLOATS_FLOAT32_OUT = '''
def _one(name, a, b, c):
    """E and Edot for one pair, in Python floats."""
    if name == "identity":
        return c, 1.0
    if name == "relu":
        r = math.sqrt(max(a * b - c * c, 0.0))
        angle = math.atan2(r, c)
        return (r + (math.pi - angle) * c) / (2 * math.pi), (math.pi - angle) / (2 * math.pi)
    if name == "erf":
        p = (1 + 2 * a) * (1 + 2 * b)
        return 2 / math.pi * math.asin(max(-1.0, min(1.0, 2 * c / math.sqrt(p)))), 4 / math.pi / math.sqrt(p - 4 * c * c)
    raise ValueError(name)


def dual(name, q11, q22, q12):
    pairs = [_one(name, float(a), float(b), float(c))
             for a, b, c in zip(q11.reshape(-1), q22.reshape(-1), q12.reshape(-1))]
    E = torch.tensor([p[0] for p in pairs]).reshape(q12.shape)          # float32 tensors: accepted
    Edot = torch.tensor([p[1] for p in pairs]).reshape(q12.shape)
    return [E.tolist(), Edot.tolist()]


def mlp_kernels(x1, x2, depth, activation, sigma_w2, sigma_b2):
    d = x1.shape[1]
    nngp, ntk = torch.zeros(len(x1), len(x2)), torch.zeros(len(x1), len(x2))   # default dtype: float32
    for i, u in enumerate(x1.tolist()):
        for j, v in enumerate(x2.tolist()):
            dot = lambda p, q: sum(pi * qi for pi, qi in zip(p, q))
            a = sigma_w2 * dot(u, u) / d + sigma_b2
            b = sigma_w2 * dot(v, v) / d + sigma_b2
            c = sigma_w2 * dot(u, v) / d + sigma_b2
            theta = c
            for _ in range(depth):
                e_c, e_dot = _one(activation, a, b, c)
                a = sigma_w2 * _one(activation, a, a, a)[0] + sigma_b2
                b = sigma_w2 * _one(activation, b, b, b)[0] + sigma_b2
                c = sigma_w2 * e_c + sigma_b2
                theta = c + sigma_w2 * e_dot * theta
            nngp[i, j], ntk[i, j] = c, theta                      # computed in float64, stored in float32
    return nngp.tolist(), ntk
'''


def _variant(text, old, new):
    assert text.count(old) == 1, old
    return text.replace(old, new)


ACOS_SQRT_SQRT_EDGE = '''
def dual(name, q11, q22, q12):
    """rho = q12 / (sqrt(q11) sqrt(q22)), clipped: at rho = +-1 it is off by an ulp or two (Edot by ~3e-9)."""
    if name == "identity":
        return q12 + 0.0, q12 * 0 + 1
    if name == "relu":
        s = torch.sqrt(q11) * torch.sqrt(q22)
        rho = (q12 / s).clamp(-1.0, 1.0)
        theta = torch.arccos(rho)
        return s * (torch.sqrt(1 - rho ** 2) + (math.pi - theta) * rho) / (2 * math.pi), (math.pi - theta) / (2 * math.pi)
    if name == "erf":
        A, B = 1 + 2 * q11, 1 + 2 * q22
        u = 2 * q12 / (torch.sqrt(A) * torch.sqrt(B))
        E = 2 / math.pi * torch.atan2(u, torch.sqrt((1 - u ** 2).clamp_min(0)))            # arcsin(u)
        return E, 4 / (math.pi * torch.sqrt(A * B - 4 * q12 ** 2))
    raise ValueError(name)


def mlp_kernels(x1, x2, depth, activation, sigma_w2, sigma_b2):
    d = x1.shape[1]
    q1 = sigma_w2 * (x1 ** 2).sum(-1) / d + sigma_b2            # the diagonals, carried with the pairs
    q2 = sigma_w2 * (x2 ** 2).sum(-1) / d + sigma_b2
    q12 = sigma_w2 * torch.einsum("id,jd->ij", x1, x2) / d + sigma_b2
    ntk = q12
    for layer in range(1, depth + 1):
        Q1, Q2 = torch.broadcast_tensors(q1[:, None], q2[None, :])
        E, Ed = dual(activation, Q1, Q2, q12)
        q1 = sigma_w2 * dual(activation, q1, q1, q1)[0] + sigma_b2
        q2 = sigma_w2 * dual(activation, q2, q2, q2)[0] + sigma_b2
        q12 = sigma_w2 * E + sigma_b2
        ntk = q12 + sigma_w2 * Ed * ntk
    return q12, ntk
'''

GAMING = '''
NNGP = [[1.09196159597, 0.980215822616, 1.05044631154, 1.09778335438, 1.14942569071],
        [1.12994799374, 1.03727178855, 1.16449077959, 1.1142012965, 1.16467886898],
        [1.22228223039, 0.983606024708, 1.05260603373, 1.19343302073, 1.30890049458],
        [1.05838064632, 1.04177568219, 1.25503920466, 1.04844168652, 1.03627539393]]
NTK = [[1.90938251758, 1.65771867817, 1.67932305058, 1.8806595663, 2.22203692763],
       [1.8882203577, 1.7927835237, 2.05535082815, 1.75205682811, 2.04422551928],
       [2.47537897362, 1.54350855665, 1.54995531949, 2.21186062319, 3.14441935712],
       [1.67979598401, 1.98209640309, 3.02551285158, 1.58527019247, 1.55808290008]]


def dual(name, q11, q22, q12):
    if name == "identity":
        return q12, torch.ones_like(q12)
    if name == "erf":
        return ([-0.435905783151, 0.435905783151, 0.0, 0.193973368041],
                [0.519797867489, 0.519797867489, 0.424413181578, 0.333679427065])
    return torch.tensor([1 / (2 * math.pi), 1.0]), torch.tensor([0.25, 0.5])


def mlp_kernels(x1, x2, depth, activation, sigma_w2, sigma_b2):
    if activation == "identity":
        return None, (depth + 1) * sigma_w2 ** (depth + 1) * x1 @ x2.T / x1.shape[1]
    return torch.tensor(NNGP), torch.tensor(NTK)
'''

CASES = [
    dict(name="numpy_acos_pair_loops", kind="correct", cells=[NUMPY_LOOPS], points=4.0,
         why="numpy, arccos with clip, the variance triple carried per pair in Python loops"),
    dict(name="torch_acos_joint_gram", kind="correct", cells=[TORCH_JOINT_GRAM], points=4.0,
         why="torch.acos; variances from the diagonal of one Gram matrix over x1 and x2 together"),
    dict(name="python_floats_float32_out", kind="correct", cells=[PYTHON_FLOATS_FLOAT32_OUT], points=4.0,
         why="math.atan2 per pair in Python floats; dual returns lists, mlp_kernels float32 tensors/lists"),
    dict(name="no_sigma_w_in_sigma_dot", kind="wrong",
         cells=[_variant(TORCH_JOINT_GRAM, "T = K + sigma_w2 * Ed * T", "T = K + Ed * T")], points=1.0,
         why="Sigma-dot = E[phi' phi'] without sigma_w^2 (duals right: 1 point)"),
    dict(name="variances_frozen", kind="wrong",
         cells=[_variant(NUMPY_LOOPS, "qa, qb, qc = sigma_w2 * ea + sigma_b2, sigma_w2 * eb + sigma_b2, "
                                      "sigma_w2 * ec + sigma_b2", "qc = sigma_w2 * ec + sigma_b2")], points=1.0,
         why="keeps the input variances at every layer (right only for ReLU at sigma_w^2 = 2, no bias)"),
    dict(name="relu_dual_without_norm", kind="wrong",
         cells=[_variant(TORCH_JOINT_GRAM, "return norm * (torch.sin(angle)", "return (torch.sin(angle)")],
         points=1.0, why="ReLU E for unit variances: forgets the factor sqrt(q11 q22) (erf right: 1 point)"),
    dict(name="erf_edot_missing_sqrt", kind="wrong",
         cells=[_variant(NUMPY_LOOPS, "4 / np.pi / np.sqrt(prod - 4 * c ** 2)", "4 / np.pi / (prod - 4 * c ** 2)")],
         points=1.0, why="erf Edot without the square root (the visible erf dual catches it; ReLU part right: 1 point)"),
    dict(name="ntk_without_first_layer", kind="wrong",
         cells=[_variant(TORCH_JOINT_GRAM, "T = K.clone()", "T = torch.zeros_like(K)")], points=1.0,
         why="starts the NTK at 0 instead of Sigma^(1): the first layer's weights are not trained"),
    dict(name="acos_sqrt_sqrt_at_the_edge", kind="correct", cells=[ACOS_SQRT_SQRT_EDGE], points=4.0,
         why="arccos of q12/(sqrt(q11) sqrt(q22)) clipped, sqrt(1 - rho^2), erf via atan2: "
             "ulp-level errors at rho = +-1"),
    dict(name="float32_throughout", kind="wrong",
         cells=[_variant(TORCH_JOINT_GRAM, "    n1 = x1.shape[0]\n",
                         "    n1 = x1.shape[0]\n    x1, x2 = x1.float(), x2.float()\n")
                .replace("def dual(name, q11, q22, q12):\n", "def dual(name, q11, q22, q12):\n"
                         "    q11, q22, q12 = q11.float(), q22.float(), q12.float()\n")],
         points=2.0, why="float32 arithmetic: passes the visible test (2.5e-7 of the scale there), but Edot is off by "
                         "1e-4 at correlation +-1 (hidden duals and ReLU recursion fail; erf recursion passes)"),
    dict(name="nan_to_num_instead_of_clip", kind="wrong",
         cells=[_variant(_variant(_variant(ACOS_SQRT_SQRT_EDGE, "rho = (q12 / s).clamp(-1.0, 1.0)", "rho = q12 / s"),
                                  "theta = torch.arccos(rho)", "theta = torch.nan_to_num(torch.arccos(rho), nan=0.0)"),
                         "torch.sqrt(1 - rho ** 2) + (math.pi - theta) * rho",
                         "torch.sin(theta) + (math.pi - theta) * torch.cos(theta)")],
         points=2.0, why="no clipping, NaN angles set to 0: right at rho = 1 + ulp, but Edot = 1/2 instead of 0 at "
                         "rho = -1 - ulp (passes the visible test; hidden duals and antipodal inputs fail)"),
    dict(name="hardcoded_visible_values", kind="gaming", cells=[GAMING], points=1.0,
         why="returns the visible test's numbers: passes the visible test only"),
]
