"""Sample submissions of exercise 4.8 (random-features regression, double descent).

See tests/grading_harness.py for the format. The random draws are arguments, so every correct answer must give the
reference value up to rounding: relative tolerance 1e-6, checked also at N = n and n +- 1, +- 2, where Phi's
condition number reaches 1.2e4 (correct float64 variants measured within 5.1e-9 there; a ridge of 1e-10 moves the
error by up to 8.8e-5).
"""

NUMPY_LSTSQ = '''
import numpy as np
from scipy.special import erf

def rf_test_error(activation, W, beta, x_train, x_test, eps, noise):
    W, beta, x_train, x_test, eps = (np.asarray(t) for t in (W, beta, x_train, x_test, eps))
    N, d = W.shape
    act = (lambda z: np.maximum(z, 0.0)) if activation == "relu" else erf
    # an extra 1/sqrt(N) on the features does not change the min-norm predictions
    phi_train = act(x_train @ W.T / np.sqrt(d)) / np.sqrt(N)
    phi_test = act(x_test @ W.T / np.sqrt(d)) / np.sqrt(N)
    y = x_train @ beta / np.sqrt(d) + noise * eps
    coef, *_ = np.linalg.lstsq(phi_train, y, rcond=None)
    return np.mean((phi_test @ coef - x_test @ beta / np.sqrt(d)) ** 2)
'''

NORMAL_EQUATIONS = '''
def rf_test_error(activation, W, beta, x_train, x_test, eps, noise):
    N, d = W.shape
    n = x_train.shape[0]
    act = {"relu": torch.nn.functional.relu, "erf": torch.special.erf}[activation]
    Phi = act(x_train @ W.T / d ** 0.5)
    y = x_train @ beta / d ** 0.5 + noise * eps
    if N <= n:          # least squares
        coef = torch.linalg.solve(Phi.T @ Phi, Phi.T @ y)
    else:               # interpolation with the smallest norm
        coef = Phi.T @ torch.linalg.solve(Phi @ Phi.T, y)
    residual = act(x_test @ W.T / d ** 0.5) @ coef - x_test @ beta / d ** 0.5
    return (residual ** 2).mean()          # 0-d tensor
'''

LOOPS_SVD = '''
def rf_test_error(activation, W, beta, x_train, x_test, eps, noise):
    d = W.shape[1]
    scale = math.sqrt(d)

    def features(x):
        columns = []
        for w in W:                                   # one random feature at a time
            z = (x @ w) / scale
            columns.append(z.clamp(min=0) if activation == "relu" else torch.erf(z))
        return torch.stack(columns, dim=1)

    F = features(x_train)
    y = (x_train @ beta) / scale + noise * eps
    U, S, Vh = torch.linalg.svd(F, full_matrices=False)
    keep = S > S.max() * 1e-12
    coef = Vh[keep].T @ ((U[:, keep].T @ y) / S[keep])
    errors = [(float(p) - float(t)) ** 2 for p, t in zip(features(x_test) @ coef, (x_test @ beta) / scale)]
    return sum(errors) / len(errors)
'''

# At the numerical edge: QR factorizations on each side of N = n and a plain square solve at N = n, where Phi is
# worst conditioned (measured within 4.3e-13 of the reference on every test draw).
QR_AND_SQUARE = '''
def rf_test_error(activation, W, beta, x_train, x_test, eps, noise):
    N, d = W.shape
    n = x_train.shape[0]
    phi = torch.relu if activation == "relu" else torch.erf
    F = phi(x_train @ W.T / d ** 0.5)
    y = x_train @ beta / d ** 0.5 + noise * eps
    if N == n:
        coef = torch.linalg.solve(F, y)
    elif N < n:                                   # F = QR, coef = R^-1 Q^T y
        Q, R = torch.linalg.qr(F)
        coef = torch.linalg.solve_triangular(R, (Q.T @ y)[:, None], upper=True)[:, 0]
    else:                                         # F^T = QR, min-norm coef = Q R^-T y
        Q, R = torch.linalg.qr(F.T)
        coef = Q @ torch.linalg.solve_triangular(R.T, y[:, None], upper=False)[:, 0]
    test = phi(x_test @ W.T / d ** 0.5) @ coef - x_test @ beta / d ** 0.5
    return float(test @ test) / x_test.shape[0]
'''

REFERENCE = '''
def rf_test_error(activation, W, beta, x_train, x_test, eps, noise):
    d = W.shape[1]
    phi = torch.relu if activation == "relu" else torch.erf
    F = phi(x_train @ W.T / math.sqrt(d))
    F_test = phi(x_test @ W.T / math.sqrt(d))
    y = x_train @ beta / math.sqrt(d) + noise * eps
    coef = torch.linalg.pinv(F) @ y
    return float(((F_test @ coef - x_test @ beta / math.sqrt(d)) ** 2).mean())
'''

CASES = [
    dict(name="numpy_lstsq", kind="correct", cells=[NUMPY_LSTSQ], points=4.0,
         why="numpy + scipy's erf, np.linalg.lstsq, features with an extra 1/sqrt(N); returns np.float64"),
    dict(name="normal_equations", kind="correct", cells=[NORMAL_EQUATIONS], points=4.0,
         why="normal equations on each side of N = n; returns a 0-d tensor"),
    dict(name="loops_svd", kind="correct", cells=[LOOPS_SVD], points=4.0,
         why="features built one weight vector at a time, pseudo-inverse by SVD, error summed in Python"),
    dict(name="qr_and_square_solve", kind="correct", cells=[QR_AND_SQUARE], points=4.0,
         why="edge: QR on each side of N = n, torch.linalg.solve of the square Phi at N = n; error via a dot product"),
    dict(name="no_sqrt_d", kind="wrong", cells=[REFERENCE.replace("phi(x_train @ W.T / math.sqrt(d))", "phi(x_train @ W.T)")
                                                 .replace("phi(x_test @ W.T / math.sqrt(d))", "phi(x_test @ W.T)")],
         points=0.0, why="features phi(w.x) without 1/sqrt(d): same for ReLU, saturated erf"),
    dict(name="noise_ignored", kind="wrong", cells=[REFERENCE.replace(" + noise * eps", "")],
         points=0.0, why="fits the noiseless labels"),
    dict(name="ridge_default", kind="wrong",
         cells=[REFERENCE.replace("coef = torch.linalg.pinv(F) @ y",
                                  "coef = torch.linalg.solve(F.T @ F + torch.eye(F.shape[1], dtype=F.dtype), F.T @ y)")],
         points=0.0, why="ridge regression with lambda = 1 (scikit-learn's default) instead of min-norm least squares"),
    dict(name="small_ridge", kind="wrong",
         cells=[REFERENCE.replace("coef = torch.linalg.pinv(F) @ y",
                                  "coef = torch.linalg.solve(F.T @ F + 1e-8 * torch.eye(F.shape[1], dtype=F.dtype), "
                                  "F.T @ y)")],
         points=0.0, why="a 'harmless' ridge of 1e-8: invisible far from N = n, off by 2e-4 at the visible N = n"),
    dict(name="d_hardcoded", kind="wrong",
         cells=[REFERENCE.replace("d = W.shape[1]", "d = 20                    # the d of the draws above")],
         points=1.0, why="d = 20 whatever W is: right on the visible draws (d = 20), wrong target, features at d = 30"),
    dict(name="rmse", kind="wrong", cells=[REFERENCE.replace(".mean())", ".mean().sqrt())")],
         points=0.0, why="root mean squared error"),
    dict(name="tanh_for_erf", kind="wrong", cells=[REFERENCE.replace("torch.erf", "torch.tanh")],
         points=0.0, why="tanh instead of erf"),
    dict(name="hardcoded_visible_values", kind="gaming", cells=['''
def rf_test_error(activation, W, beta, x_train, x_test, eps, noise):
    return {("relu", 50): 0.6529671069, ("erf", 400): 0.2198692301, ("relu", 100): 257.5837075}.get(
        (activation, W.shape[0]), 1.0)
'''], points=1.0, why="returns the visible test's reference value for each (activation, N) it uses"),
]
