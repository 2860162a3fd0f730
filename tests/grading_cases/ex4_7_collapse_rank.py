"""Sample submissions of exercise 4.7 (effective rank, centering, NTK regression against depth).

See tests/grading_harness.py for the format. One solution cell holds the three functions.
Tolerances (stated in the task): reff relative 1e-9, center absolute 1e-9 max|K|, depth_sweep relative 1e-5; the
hidden depth_sweep data have |x| / sqrt(d) from 0.5 to 2, so an answer that puts the inputs on the sphere or
normalizes the kernel fails there (by 57% to 78%) while the visible test, on the sphere, cannot tell.
"""

NUMPY_EIGEN = '''
import numpy as np

def reff(K):
    eigenvalues = np.linalg.eigvalsh(np.asarray(K))
    return eigenvalues.sum() ** 2 / (eigenvalues ** 2).sum()


def center(K):
    K = np.asarray(K)
    return K - K.mean(axis=0, keepdims=True) - K.mean(axis=1, keepdims=True) + K.mean()


def depth_sweep(X, Xt, y, yt, depths):
    errors = []
    for L in depths:
        net = nh.mlp(L)
        k_train = net.kernel(X).ntk.numpy()
        k_test = net.kernel(Xt, X).ntk.numpy()
        prediction = k_test @ np.linalg.solve(k_train, y.numpy())
        errors.append(np.mean((prediction - yt.numpy()) ** 2))
    return np.array(errors)
'''

TORCH_BY_DEPTH = '''
def reff(K):
    return torch.diagonal(K).sum() ** 2 / torch.linalg.matrix_norm(K) ** 2       # 0-d tensor


def center(K):
    n = K.shape[0]
    H = torch.eye(n, dtype=K.dtype) - torch.full((n, n), 1.0 / n, dtype=K.dtype)
    return H @ K @ H


def depth_sweep(X, Xt, y, yt, depths):
    n = X.shape[0]
    kernels = nh.mlp_kernels_by_depth(torch.cat([X, Xt]), depth=max(depths)).ntk   # entry L - 1 = depth L
    out = torch.empty(len(depths), dtype=torch.float32)
    for i, L in enumerate(depths):
        K = kernels[L - 1]
        chol = torch.linalg.cholesky(K[:n, :n])
        alpha = torch.cholesky_solve(y[:, None], chol)[:, 0]
        out[i] = ((K[n:, :n] @ alpha - yt) ** 2).mean().item()
    return out
'''

LOOPS_LSTSQ = '''
def reff(K):
    n = K.shape[0]
    trace = sum(float(K[i, i]) for i in range(n))
    frobenius_sq = sum(float(K[i, j]) ** 2 for i in range(n) for j in range(n))
    return trace * trace / frobenius_sq


def center(K):
    n = K.shape[0]
    rows = [sum(float(K[i, j]) for j in range(n)) / n for i in range(n)]
    total = sum(rows) / n
    return [[float(K[i, j]) - rows[i] - rows[j] + total for j in range(n)] for i in range(n)]


def depth_sweep(X, Xt, y, yt, depths):
    result = []
    for L in depths:
        both = nh.mlp(L).kernel(torch.cat([X, Xt])).ntk
        n = len(X)
        weights = torch.linalg.lstsq(both[:n, :n], y[:, None]).solution[:, 0]
        residual = both[n:, :n] @ weights - yt
        result.append(float(residual @ residual) / len(yt))
    return result
'''

# At the numerical edge: eigenvalues (clamped at 0) for r_eff, row/column means for centering, and the jittered
# nh.kernel_regression on kernel(Xt, X) / kernel(X) computed separately, inputs of different norms: measured
# 1.5e-9 relative at depth 1 (tolerance 1e-5); the errors returned as a float32 array (rounding 6e-8).
EIGEN_JITTER_FLOAT32 = '''
def reff(K):
    eigenvalues = torch.linalg.eigvalsh(K).clamp(min=0)
    return eigenvalues.sum() ** 2 / (eigenvalues ** 2).sum()


def center(K):
    return K - K.mean(dim=0, keepdim=True) - K.mean(dim=1, keepdim=True) + K.mean()


def depth_sweep(X, Xt, y, yt, depths):
    import numpy as np
    errors = np.zeros(len(depths), dtype=np.float32)
    for i, L in enumerate(depths):
        net = nh.mlp(L)
        prediction = nh.kernel_regression(net.kernel(X).ntk, net.kernel(Xt, X).ntk, y)
        errors[i] = float(((prediction - yt) ** 2).mean())
    return errors
'''

REFERENCE_RANK = '''
def reff(K):
    return float(torch.trace(K) ** 2 / (K * K).sum())


def center(K):
    H = torch.eye(K.shape[0], dtype=K.dtype) - 1.0 / K.shape[0]
    return H @ K @ H
'''

SWEEP = '''

def depth_sweep(X, Xt, y, yt, depths):
    n = X.shape[0]
    errors = []
    for L in depths:
        K = nh.mlp(L).kernel(torch.cat([X, Xt])).ntk
        prediction = K[n:, :n] @ torch.linalg.solve(K[:n, :n], y)
        errors.append(float(((prediction - yt) ** 2).mean()))
    return errors
'''

CASES = [
    dict(name="numpy_eigen", kind="correct", cells=[NUMPY_EIGEN], points=4.0,
         why="numpy: eigenvalues for r_eff, double-centering formula, kernel(Xt, X) blocks, returns arrays"),
    dict(name="torch_by_depth_cholesky", kind="correct", cells=[TORCH_BY_DEPTH], points=4.0,
         why="one mlp_kernels_by_depth pass, Cholesky solve, 0-d tensor r_eff, float32 tensor of errors"),
    dict(name="loops_lstsq", kind="correct", cells=[LOOPS_LSTSQ], points=4.0,
         why="Python loops and nested lists, lstsq solve, error as residual.residual / n_t"),
    dict(name="eigen_jitter_float32", kind="correct", cells=[EIGEN_JITTER_FLOAT32], points=4.0,
         why="edge: clamped eigenvalues, mean-based centering, jittered kernel_regression, float32 array of errors"),
    dict(name="nngp_regression", kind="wrong", cells=[REFERENCE_RANK + SWEEP.replace(".ntk", ".nngp")],
         points=0.0, why="regression with the NNGP instead of the NTK"),
    dict(name="rmse", kind="wrong",
         cells=[REFERENCE_RANK + SWEEP.replace("float(((prediction - yt) ** 2).mean())",
                                               "float(((prediction - yt) ** 2).mean().sqrt())")],
         points=0.0, why="root mean squared error instead of the mean squared error"),
    dict(name="global_mean_centering", kind="wrong",
         cells=[REFERENCE_RANK.replace("H = torch.eye(K.shape[0], dtype=K.dtype) - 1.0 / K.shape[0]\n"
                                       "    return H @ K @ H", "return K - K.mean()") + SWEEP],
         points=0.0, why="centers by subtracting the overall mean instead of HKH"),
    dict(name="reff_without_square", kind="wrong",
         cells=[REFERENCE_RANK.replace("torch.trace(K) ** 2 / (K * K).sum()",
                                       "torch.trace(K) / (K * K).sum().sqrt()") + SWEEP],
         points=0.0, why="tr(K) / ||K||_F instead of tr(K)^2 / ||K||_F^2"),
    dict(name="depth_off_by_one", kind="wrong",
         cells=[REFERENCE_RANK + SWEEP.replace("nh.mlp(L)", "nh.mlp(L + 1)")],
         points=0.0, why="counts the readout as a hidden layer: the NTK of depth L + 1"),
    dict(name="inputs_on_the_sphere", kind="wrong",
         cells=[REFERENCE_RANK + SWEEP.replace(
             "K = nh.mlp(L).kernel(torch.cat([X, Xt])).ntk",
             "both = torch.cat([X, Xt])\n        both = both / both.norm(dim=1, keepdim=True) * both.shape[1] ** 0.5\n"
             "        K = nh.mlp(L).kernel(both).ntk")],
         points=1.0, why="projects the inputs onto the sphere |x|^2 = d first: the visible data are there already"),
    dict(name="hardcoded_visible_sweep", kind="gaming", cells=[REFERENCE_RANK + '''

def depth_sweep(X, Xt, y, yt, depths):
    return [{1: 0.10341026, 10: 0.1698188, 50: 0.35106248}.get(L, 0.2) for L in depths]
'''], points=1.0, why="correct r_eff and centering, depth_sweep returns the visible test's numbers"),
]
