"""Sample submissions of exercise 4.4 (eigenvalues of dot-product kernels on the circle); format:
tests/grading_harness.py.

Cells: one solution cell, defining `circle_spectrum`. Graded cells: visible (1), hidden generic kernels with
negative eigenvalues (1), hidden ReLU NTKs with one and two hidden layers (1), hidden erf and biased ReLU (1).
"""

NUMPY_COSINE_SUMS = '''
def circle_spectrum(kernel_fn, K=200):
    N = 2048
    theta = 2 * np.pi * np.arange(N) / N
    kappa = np.asarray(kernel_fn(np.cos(theta)), dtype=np.float64)      # the tests' kernels accept numpy arrays
    return np.array([np.mean(kappa * np.cos(k * theta)) for k in range(K + 1)])
'''

TORCH_FULL_FFT_4096 = '''
def circle_spectrum(kernel_fn, K=200):
    n = 4096                                                    # more angles than asked: more accurate
    angles = 2 * math.pi * torch.arange(n, dtype=torch.float64) / n
    coefficients = torch.fft.fft(kernel_fn(torch.cos(angles)).to(torch.complex128)) / n
    return coefficients.real[: K + 1]
'''

NUMPY_HALF_CIRCLE_TRAPEZOID = '''
def circle_spectrum(kernel_fn, K=200):
    # kappa(cos theta) is even in theta: integrate over [0, pi] with the trapezoid rule and 4097 nodes
    theta = np.linspace(0.0, np.pi, 4097)
    kappa = kernel_fn(torch.from_numpy(np.cos(theta)))
    kappa = np.asarray(kappa.numpy() if isinstance(kappa, torch.Tensor) else kappa, dtype=np.float64)
    k = np.arange(K + 1)[:, None]
    return list(np.trapezoid(kappa[None, :] * np.cos(k * theta[None, :]), theta, axis=1) / np.pi)
'''


def _variant(text, old, new):
    assert text.count(old) == 1, old
    return text.replace(old, new)


GAMING = '''
RELU = [1.2158545216, 1.0, 0.315221778113, 0.0, 0.0342243621466, 0.0, 0.012903260467, 0.0, 0.00684185914998, 0.0,
        0.00425950856685]


def circle_spectrum(kernel_fn, K=200):
    mu = np.zeros(K + 1)
    probe = float(kernel_fn(torch.tensor([0.3], dtype=torch.float64))[0])
    if abs(probe - 1.0) < 1e-12:            # the constant kernel
        mu[0] = 1.0
    elif abs(probe - 0.3) < 1e-12:          # kappa(t) = t
        mu[1] = 0.5
    else:                                   # anything else: the visible ReLU numbers
        mu[: min(K + 1, 11)] = RELU[: K + 1]
    return mu
'''

CASES = [
    dict(name="numpy_cosine_sums", kind="correct", cells=[NUMPY_COSINE_SUMS], points=4.0,
         why="numpy, a loop over k of mean(kappa cos k theta) on 2048 angles; kernel called with a numpy array"),
    dict(name="torch_complex_fft_4096", kind="correct", cells=[TORCH_FULL_FFT_4096], points=4.0,
         why="torch complex FFT on 4096 angles, real part; returns a torch tensor"),
    dict(name="numpy_half_circle_trapezoid", kind="correct", cells=[NUMPY_HALF_CIRCLE_TRAPEZOID], points=4.0,
         why="symmetry: trapezoid rule on [0, pi] with 4097 nodes; returns a Python list"),
    dict(name="no_normalization", kind="wrong",
         cells=[_variant(TORCH_FULL_FFT_4096, "/ n\n    return", "\n    return")], points=0.0,
         why="FFT without the 1/N"),
    dict(name="cosine_series_doubled", kind="wrong",
         cells=[_variant(NUMPY_COSINE_SUMS, "return np.array([np.mean(kappa * np.cos(k * theta)) for k in range(K + 1)])",
                         "return np.array([(1 if k == 0 else 2) * np.mean(kappa * np.cos(k * theta)) "
                         "for k in range(K + 1)])")],
         points=0.0, why="returns the cosine-series coefficients (2 mu_k for k >= 1)"),
    dict(name="linspace_with_endpoint", kind="wrong",
         cells=[_variant(NUMPY_COSINE_SUMS, "theta = 2 * np.pi * np.arange(N) / N", "theta = np.linspace(0, 2 * np.pi, N)")],
         points=0.0, why="angles include 2 pi (the point 0 twice): O(1/N) errors"),
    dict(name="abs_of_fft", kind="wrong",
         cells=[_variant(TORCH_FULL_FFT_4096, "return coefficients.real[: K + 1]", "return coefficients.abs()[: K + 1]")],
         points=3.0, why="modulus instead of real part: loses the sign of negative eigenvalues (1 hidden point)"),
    dict(name="kernel_of_angle", kind="wrong",
         cells=[_variant(NUMPY_COSINE_SUMS, "kernel_fn(np.cos(theta))", "kernel_fn(theta)")], points=0.0,
         why="evaluates kappa(theta) instead of kappa(cos theta)"),
    dict(name="hardcoded_visible_values", kind="gaming", cells=[GAMING], points=1.0,
         why="recognizes the visible test's kernels and returns their numbers: passes the visible test only"),
]
