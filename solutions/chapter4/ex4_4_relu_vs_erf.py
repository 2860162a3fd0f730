# %% [markdown] nbgrader={"grade": false, "solution": false, "locked": true, "grade_id": "intro", "schema_version": 3}
# # Exercise 4.4 · ReLU vs erf: homogeneity, eigen-decay, parity
#
# *Chapter 4.5, lesson 06.* The chapter calls the ReLU kernel "scale invariant" and says ReLU "learns high
# frequencies effectively". Re-posed: compare the two kernels' homogeneity, eigen-decay and parity.
#
# On the circle a dot-product kernel $\kappa(\cos(\theta-\theta'))$ has the Fourier modes as eigenfunctions, with
# eigenvalues $\mu_k = \frac{1}{2\pi}\int_0^{2\pi}\kappa(\cos\theta)\cos(k\theta)\,d\theta$.
# Points: (a) 1 + 3 hidden, (b) 2 manual.

# %% nbgrader={"grade": false, "solution": false, "locked": true, "grade_id": "setup", "schema_version": 3}
import math

import numpy as np
import torch
import ntk_helpers as nh

# %% [markdown] nbgrader={"grade": false, "solution": false, "locked": true, "grade_id": "part_a", "schema_version": 3}
# ## (a) `circle_spectrum(kernel_fn, K=200)` → numpy array $\mu_0, \dots, \mu_K$
#
# `kernel_fn(t)` takes a float64 tensor of cosines and returns $\kappa(t)$. Use 2048 equally spaced angles and an FFT.

# %% nbgrader={"grade": false, "solution": true, "locked": false, "grade_id": "circle_spectrum", "schema_version": 3}
def circle_spectrum(kernel_fn, K=200):
    ### BEGIN SOLUTION
    n = 2048
    angles = torch.arange(n, dtype=torch.float64) * (2 * math.pi / n)
    values = kernel_fn(torch.cos(angles))
    return (torch.fft.rfft(values).real / n).numpy()[: K + 1]
    ### END SOLUTION

# %% nbgrader={"grade": true, "solution": false, "locked": true, "points": 1, "grade_id": "test_visible", "schema_version": 3}
mu = circle_spectrum(lambda t: torch.ones_like(t), K=10)
assert mu.shape == (11,), "return mu_0 .. mu_K"
assert abs(mu[0] - 1) < 1e-12 and np.abs(mu[1:]).max() < 1e-12, "a constant kernel has only mu_0 = its value"
mu = circle_spectrum(lambda t: t, K=10)
assert abs(mu[1] - 0.5) < 1e-12, "cos(theta) = (e^{i theta} + e^{-i theta})/2 has mu_1 = 1/2"
print("visible tests passed")

# %% nbgrader={"grade": true, "solution": false, "locked": true, "points": 3, "grade_id": "test_hidden", "schema_version": 3}
# Hidden tests: the ReLU NTK decays like k^-2 with no odd modes beyond 1 (without bias); erf has only odd modes.
### BEGIN HIDDEN TESTS
relu = circle_spectrum(lambda t: nh.dot_product_profile(nh.mlp(1), t, 2))
angles = np.linspace(0, 2 * math.pi, 20001)[:-1]
profile = nh.dot_product_profile(nh.mlp(1), torch.as_tensor(np.cos(angles)), 2).numpy()
for k in (0, 1, 2, 6):
    assert abs(relu[k] - np.mean(profile * np.cos(k * angles))) < 1e-6 * abs(relu[0])
even = np.arange(22, 199, 2)
assert abs(np.polyfit(np.log(even), np.log(relu[even]), 1)[0] + 2) < 0.05
assert np.abs(relu[[3, 5, 7]]).max() < 1e-10
biased = circle_spectrum(lambda t: nh.dot_product_profile(nh.mlp(1, sigma_b=math.sqrt(0.5)), t, 2))
assert biased[[3, 5, 7]].min() > 1e-3
erf = circle_spectrum(lambda t: nh.dot_product_profile(nh.mlp(1, "erf", sigma_w=1.0), t, 2))
assert np.abs(erf[2::2]).max() < 1e-12 and erf[5] / erf[3] < 0.2
### END HIDDEN TESTS

# %% [markdown] nbgrader={"grade": false, "solution": false, "locked": true, "grade_id": "part_b", "schema_version": 3}
# ## (b) Compare ReLU and erf kernels: homogeneity, eigen-decay, parity. Is one "better for vision"?

# %% [markdown] nbgrader={"grade": true, "solution": true, "locked": false, "points": 2, "grade_id": "answer_b", "schema_version": 3}
# **Rubric (for the grader; the whole cell is replaced by "YOUR ANSWER HERE" in the student version).**
#
# 1 point: ReLU without bias is positively homogeneous, $\Theta(ax,bx') = ab\,\Theta(x,x')$ (not scale invariant); erf is
# not homogeneous and saturates. ReLU eigenvalues decay polynomially ($k^{-d}$), erf's geometrically.
# 1 point: bias-free erf kernels are odd (only odd modes), so they can fit only odd functions; spectral bias exists
# for both (mode $k$ learned at rate $\propto\mu_k$); there is no theorem that ReLU is better for vision.
#
# **Model answer.**
# Without bias ReLU kernels are positively homogeneous of degree one in each input, which is not scale invariance;
# erf saturates and is not homogeneous. ReLU eigenvalues fall like $k^{-2}$ on the circle ($k^{-d}$ on $S^{d-1}$) and skip
# odd $k\ge3$; erf's fall geometrically and are purely odd, so a bias-free erf network fits only odd targets. Both
# learn mode $k$ at rate $\mu_k$ (spectral bias); nothing here proves ReLU better for vision.
