"""Sample submissions of exercise 4.6 (average pooling exactly, max pooling by Monte Carlo).

See tests/grading_harness.py for the format. One solution cell holds both functions.
"""

NUMPY_BLOCKS = '''
import numpy as np

def avgpool_kernel(K, window, stride):
    K = np.asarray(K)
    starts = range(0, K.shape[0] - window + 1, stride)
    return np.array([[K[i:i + window, j:j + window].mean() for j in starts] for i in starts])


def maxpool_nngp_mc(cov, n_samples, seed):
    cov = np.asarray(cov)
    w = cov.shape[0] // 2
    rng = np.random.default_rng(seed)
    z = rng.multivariate_normal(np.zeros(2 * w), cov, size=n_samples)
    left = np.maximum(z[:, :w], 0).max(axis=1)
    right = np.maximum(z[:, w:], 0).max(axis=1)
    return np.mean(left * right)
'''

TORCH_BUILTINS = '''
import torch.nn.functional as F

def avgpool_kernel(K, window, stride):
    return F.avg_pool2d(K[None, None], kernel_size=window, stride=stride)[0, 0]


def maxpool_nngp_mc(cov, n_samples, seed):
    torch.manual_seed(seed)
    w = cov.shape[0] // 2
    z = torch.distributions.MultivariateNormal(torch.zeros(2 * w, dtype=cov.dtype), covariance_matrix=cov)
    s = z.sample((n_samples,))
    return (s[:, :w].max(dim=1).values.clamp(min=0) * s[:, w:].max(dim=1).values.clamp(min=0)).mean()
'''

LISTS_EIGEN_FLOAT32 = '''
def avgpool_kernel(K, window, stride):
    P = len(K)
    Q = (P - window) // stride + 1
    A = [[(1.0 / window if i * stride <= p < i * stride + window else 0.0) for p in range(P)] for i in range(Q)]
    KA = [[sum(float(K[p][q]) * A[j][q] for q in range(P)) for j in range(Q)] for p in range(P)]
    return [[sum(A[i][p] * KA[p][j] for p in range(P)) for j in range(Q)] for i in range(Q)]


def maxpool_nngp_mc(cov, n_samples, seed):
    w = cov.shape[0] // 2
    values, vectors = torch.linalg.eigh(cov)
    root = (vectors * values.clamp(min=0).sqrt()) @ vectors.T       # symmetric square root of cov
    g = torch.Generator().manual_seed(seed + 1000)
    z = torch.randn(n_samples, 2 * w, generator=g) @ root.float()   # float32 samples
    best_u = torch.zeros(n_samples)
    best_v = torch.zeros(n_samples)
    for a in range(w):
        best_u = torch.maximum(best_u, z[:, a])
        best_v = torch.maximum(best_v, z[:, w + a])
    return float((best_u * best_v).mean())
'''

REFERENCE_MC = '''
def maxpool_nngp_mc(cov, n_samples, seed):
    w = cov.shape[0] // 2
    g = torch.Generator().manual_seed(seed)
    z = torch.randn(n_samples, 2 * w, generator=g, dtype=torch.float64) @ torch.linalg.cholesky(cov).T
    return float((z[:, :w].clamp(min=0).max(1).values * z[:, w:].clamp(min=0).max(1).values).mean())
'''

MATRIX_AVG = '''
def avgpool_kernel(K, window, stride):
    P = K.shape[0]
    Q = (P - window) // stride + 1
    rows = []
    for i in range(Q):
        row = torch.zeros(P, dtype=torch.float64)
        row[i * stride:i * stride + window] = 1.0 / window    # a slice past P is cut at the border
        rows.append(row)
    return torch.stack(rows) @ K @ torch.stack(rows).T
'''

CASES = [
    dict(name="numpy_blocks", kind="correct", cells=[NUMPY_BLOCKS], points=4.0,
         why="numpy: block means in a comprehension; numpy's multivariate_normal sampler (another random stream)"),
    dict(name="torch_builtins", kind="correct", cells=[TORCH_BUILTINS], points=4.0,
         why="F.avg_pool2d on the matrix; MultivariateNormal with the global seed; returns a 0-d tensor"),
    dict(name="lists_eigen_float32", kind="correct", cells=[LISTS_EIGEN_FLOAT32], points=4.0,
         why="pure-Python lists for A K A^T; symmetric square root, float32 samples, relu via max with 0"),
    dict(name="sum_pooling", kind="wrong", cells=[MATRIX_AVG.replace("1.0 / window", "1.0") + REFERENCE_MC],
         points=0.0, why="sums the window instead of averaging it (kernel too large by w^2)"),
    dict(name="output_count_p_over_s", kind="wrong",
         cells=[MATRIX_AVG.replace("(P - window) // stride + 1", "P // stride") + REFERENCE_MC],
         points=0.0, why="P // s outputs, the last window cut off at the border (a padding-like convention)"),
    dict(name="mean_instead_of_max", kind="wrong",
         cells=[MATRIX_AVG + REFERENCE_MC.replace(".max(1).values", ".mean(1)")],
         points=0.0, why="Monte Carlo of average pooling instead of max pooling"),
    dict(name="cholesky_transposed", kind="wrong",
         cells=[MATRIX_AVG + REFERENCE_MC.replace("torch.linalg.cholesky(cov).T", "torch.linalg.cholesky(cov)")],
         points=0.0, why="samples xi @ L instead of xi @ L^T: covariance L^T L instead of cov"),
    dict(name="independent_windows", kind="wrong",
         cells=[MATRIX_AVG + REFERENCE_MC.replace(
             "return float((z[:, :w].clamp(min=0).max(1).values * z[:, w:].clamp(min=0).max(1).values).mean())",
             "return float(z[:, :w].clamp(min=0).max(1).values.mean() * z[:, w:].clamp(min=0).max(1).values.mean())")],
         points=0.0, why="E[max relu u] * E[max relu v]: ignores the correlation between the two signals"),
    dict(name="hardcoded_visible_value", kind="gaming", cells=[MATRIX_AVG + '''
def maxpool_nngp_mc(cov, n_samples, seed):
    return 1.2326
'''], points=1.0, why="exact average pooling, but max pooling returns the visible test's reference value"),
]
