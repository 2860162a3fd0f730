"""Sample submissions of exercise 4.6 (average pooling exactly, max pooling by Monte Carlo).

See tests/grading_harness.py for the format. One solution cell holds both functions.
Tolerances (stated in the task): average pooling entrywise 1e-9 |ref| + 1e-12 max|K|; max pooling within 4.5
standard errors of a 200k-sample mean, 4.5 sigma / sqrt(200 000), for each covariance (seeds 0 and 3). A correct
estimator with any random stream fails a covariance with probability 6.8e-6, so the correct cases below get full
marks except with that probability (none did over the seeds measured for the solution: 0 of 2000).
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

# At the numerical edge: average pooling by 2-D prefix sums (an integral image: differences of large partial sums),
# max pooling with float32 samples and float32 arithmetic throughout, from NumPy's PCG64 stream (not torch's).
PREFIX_SUMS_FLOAT32 = '''
import numpy as np

def avgpool_kernel(K, window, stride):
    K = np.asarray(K, dtype=np.float64)
    P = K.shape[0]
    S = np.zeros((P + 1, P + 1))
    S[1:, 1:] = K.cumsum(axis=0).cumsum(axis=1)
    starts = list(range(0, P - window + 1, stride))
    out = np.empty((len(starts), len(starts)))
    for a, i in enumerate(starts):
        for b, j in enumerate(starts):
            block = S[i + window, j + window] - S[i, j + window] - S[i + window, j] + S[i, j]
            out[a, b] = block / window ** 2
    return out


def maxpool_nngp_mc(cov, n_samples, seed):
    cov = np.asarray(cov)
    w = cov.shape[0] // 2
    L = np.linalg.cholesky(cov).astype(np.float32)
    xi = np.random.default_rng(seed).standard_normal((n_samples, 2 * w), dtype=np.float32)
    z = xi @ L.T
    u = np.maximum(z[:, :w], np.float32(0)).max(axis=1)
    v = np.maximum(z[:, w:], np.float32(0)).max(axis=1)
    return np.mean(u * v)                       # a float32 NumPy scalar
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

REFERENCE_AVG = '''
def avgpool_kernel(K, window, stride):
    P = K.shape[0]
    Q = (P - window) // stride + 1
    A = torch.zeros(Q, P, dtype=K.dtype)
    for i in range(Q):
        A[i, i * stride:i * stride + window] = 1 / window
    return A @ K @ A.T
'''

CASES = [
    dict(name="numpy_blocks", kind="correct", cells=[NUMPY_BLOCKS], points=4.0,
         why="numpy: block means in a comprehension; numpy's multivariate_normal sampler (another random stream)"),
    dict(name="torch_builtins", kind="correct", cells=[TORCH_BUILTINS], points=4.0,
         why="F.avg_pool2d on the matrix; MultivariateNormal with the global seed; returns a 0-d tensor"),
    dict(name="lists_eigen_float32", kind="correct", cells=[LISTS_EIGEN_FLOAT32], points=4.0,
         why="pure-Python lists for A K A^T; symmetric square root, float32 samples, relu via max with 0"),
    dict(name="prefix_sums_float32", kind="correct", cells=[PREFIX_SUMS_FLOAT32], points=4.0,
         why="edge: integral-image pooling; float32 NumPy samples and arithmetic, incl. the rho = -0.81 window"),
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
    dict(name="window_count_off_by_one", kind="wrong",
         cells=[MATRIX_AVG.replace("(P - window) // stride + 1", "(P - window + 1) // stride") + REFERENCE_MC],
         points=1.0, why="Q = (P - w + 1) // s: right for the visible sizes, one window short at P = 9, w = 2, s = 3"),
    dict(name="seed_ignored", kind="wrong",
         cells=[REFERENCE_AVG + REFERENCE_MC.replace("g = torch.Generator().manual_seed(seed)", "g = None")],
         points=1.0, why="draws from the global random state: right values, but the same seed gives another number"),
    dict(name="hardcoded_visible_value", kind="gaming", cells=[MATRIX_AVG + '''
def maxpool_nngp_mc(cov, n_samples, seed):
    return 1.2326
'''], points=1.0, why="exact average pooling, but max pooling returns the visible test's reference value"),
]
