"""Sample submissions of exercise 4.4 (eigenvalues of dot-product kernels on the circle); format:
tests/grading_harness.py.

Cells: one solution cell, defining `circle_spectrum`. Graded cells: visible (1), hidden generic kernels with
negative eigenvalues (1), hidden ReLU NTKs with one and two hidden layers (1), hidden erf and biased ReLU (1).
Graded quantity: the 2048-angle sum itself, to 1e-10 max|mu| (float64 variants agree to 1e-14, float32 fails).
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
    n = 2048
    angles = 2 * math.pi * torch.arange(n, dtype=torch.float64) / n             # 2 pi j / n, not j (2 pi / n)
    coefficients = torch.fft.fft(kernel_fn(torch.cos(angles)).to(torch.complex128)) / n
    return coefficients.real[: K + 1]
'''

NUMPY_HALF_CIRCLE_TRAPEZOID = '''
def circle_spectrum(kernel_fn, K=200):
    # kappa(cos theta) is even in theta: the trapezoid rule on [0, pi] with 1025 nodes is the 2048-angle sum
    theta = np.linspace(0.0, np.pi, 1025)
    kappa = kernel_fn(torch.from_numpy(np.cos(theta)))
    kappa = np.asarray(kappa.numpy() if isinstance(kappa, torch.Tensor) else kappa, dtype=np.float64)
    k = np.arange(K + 1)[:, None]
    return list(np.trapezoid(kappa[None, :] * np.cos(k * theta[None, :]), theta, axis=1) / np.pi)
'''


def _variant(text, old, new):
    assert text.count(old) == 1, old
    return text.replace(old, new)


COSINE_MATRIX = '''
def circle_spectrum(kernel_fn, K=200):
    N = 2048
    theta = np.linspace(0.0, 2 * np.pi, N, endpoint=False)
    values = kernel_fn(torch.as_tensor(np.cos(theta)))
    values = values.numpy() if isinstance(values, torch.Tensor) else np.asarray(values)
    return np.cos(np.outer(np.arange(K + 1), theta)) @ values / N
'''

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
    dict(name="torch_complex_fft", kind="correct", cells=[TORCH_FULL_FFT_4096], points=4.0,
         why="torch complex FFT on the 2048 angles, real part; returns a torch tensor"),
    dict(name="numpy_half_circle_trapezoid", kind="correct", cells=[NUMPY_HALF_CIRCLE_TRAPEZOID], points=4.0,
         why="symmetry: trapezoid rule on [0, pi] with 1025 nodes (the same sum); returns a Python list"),
    dict(name="cosine_matrix_at_k_300", kind="correct", cells=[COSINE_MATRIX], points=4.0,
         why="numpy matrix cos(k theta_j) @ kappa / N: at K = 300 the arguments k theta reach 1900 (7.8e-15 off)"),
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
    dict(name="old_hint_float32_grid", kind="wrong",
         cells=[_variant(TORCH_FULL_FFT_4096, "angles = 2 * math.pi * torch.arange(n, dtype=torch.float64) / n",
                         "angles = torch.arange(n) * (2 * math.pi / n)")], points=0.0,
         why="the float32 grid torch.arange(N) * (2 pi / N): 3e-8 to 1e-7 of max|mu| off, the visible test fails"),
    dict(name="float32_fft", kind="wrong",
         cells=[_variant(TORCH_FULL_FFT_4096, "torch.fft.fft(kernel_fn(torch.cos(angles)).to(torch.complex128))",
                         "torch.fft.fft(kernel_fn(torch.cos(angles)).to(torch.complex64))")], points=0.0,
         why="float64 angles and values, float32 FFT (complex64): ~1e-8 of max|mu| off, fails everywhere"),
    dict(name="hardcoded_visible_values", kind="gaming", cells=[GAMING], points=1.0,
         why="recognizes the visible test's kernels and returns their numbers: passes the visible test only"),
]
