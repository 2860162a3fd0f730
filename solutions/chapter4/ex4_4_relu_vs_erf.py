# %% [markdown] nbgrader={"grade": false, "solution": false, "locked": true, "grade_id": "intro", "schema_version": 3}
# # Exercise 4.4 · ReLU vs erf: homogeneity, eigen-decay, parity
#
# *Chapter 4.5, lesson 06.* The chapter calls the ReLU kernel "scale invariant" and says ReLU "learns high
# frequencies effectively". Re-posed: compare the two kernels' homogeneity, eigen-decay and parity.
#
# On the circle a dot-product kernel $\kappa(\cos(\theta-\theta'))$ has the Fourier modes as eigenfunctions, with
# eigenvalues $\mu_k = \frac{1}{2\pi}\int_0^{2\pi}\kappa(\cos\theta)\cos(k\theta)\,d\theta$.
# Points: (a) 1 + 3 hidden, (b) 2 manual.
#
# ---
#
# **中文**
#
# **习题 4.4 · ReLU 与 erf：齐次性、特征值衰减、奇偶性**
#
# *教材第 4.5 节，第 06 课。* 本章说 ReLU 核“尺度不变”，又说 ReLU “能有效地学习高频”。
# 这里把问题改为：比较两种核的齐次性、特征值衰减和奇偶性。
#
# 在圆周上，点积核 $\kappa(\cos(\theta-\theta'))$ 以傅里叶模态为特征函数，特征值为
# $\mu_k = \frac{1}{2\pi}\int_0^{2\pi}\kappa(\cos\theta)\cos(k\theta)\,d\theta$。
# 分值：(a) 1 分（可见测试）+ 3 分（隐藏测试），(b) 2 分（人工评分）。

# %% nbgrader={"grade": false, "solution": false, "locked": true, "grade_id": "setup", "schema_version": 3}
import math

import numpy as np
import torch
import ntk_helpers as nh
from ntk_helpers.course.grading import as_float64, check_close


def kernel_function(profile):
    """kappa for the tests: takes a 1-D torch tensor (returns a tensor) or a numpy array (returns one).
    测试用的 kappa：接受一维 torch 张量（返回张量）或 numpy 数组（返回 numpy 数组）。"""
    def kappa(t):
        if isinstance(t, torch.Tensor):
            return profile(t.to(torch.float64))
        return profile(torch.as_tensor(np.asarray(t, dtype=np.float64))).numpy()
    return kappa


def ntk_on_circle(architecture):
    """kappa(t) of an architecture's NTK between two points of the circle |x|^2 = 2 at cosine t.
    某个网络结构的 NTK 在圆周 |x|^2 = 2 上夹角余弦为 t 的两点之间的值 kappa(t)。"""
    return kernel_function(lambda t: nh.dot_product_profile(architecture, t, 2))

# %% [markdown] nbgrader={"grade": false, "solution": false, "locked": true, "grade_id": "part_a", "schema_version": 3}
# ## (a) `circle_spectrum(kernel_fn, K=200)` → the eigenvalues $\mu_0, \dots, \mu_K$
#
# `kernel_fn(t)` takes a 1-D float64 torch tensor of cosines and returns $\kappa(t)$ as a tensor of the same length
# (the tests' kernels also accept a numpy array and then return one). Return $\mu_0, \dots, \mu_K$ as a 1-D array of
# length `K + 1` (a numpy array, a torch tensor of any float dtype or a list; real numbers, with their signs).
#
# Use the $N = 2048$ equally spaced angles $\theta_j = 2\pi j/N$, $j = 0, \dots, N-1$ and
# $\mu_k \approx \frac1N\sum_j \kappa(\cos\theta_j)\cos(k\theta_j)$: one real FFT gives all of them, a loop over $k$ is
# fine too, and so is a more accurate integration. The tests compare with the exact $\mu_k$ to $2\cdot10^{-6}$
# times the largest $|\mu_k|$ (the 2048-angle rule is within $4\cdot10^{-7}$ of it for every kernel tested).
# The kernels tested include the NTK of bias-free ReLU networks with **one and two hidden layers**, the ReLU NTK
# with a bias, and the erf NTK.
#
# <details><summary>Hint 1: the grid</summary>
#
# The angles must not include $2\pi$ (it is the same point as $0$): `torch.arange(N) * (2 * math.pi / N)`, not
# `torch.linspace(0, 2 * math.pi, N)`. Lesson 06, section 4.5.2, computes such a spectrum from one row of a Gram
# matrix.
# </details>
#
# <details><summary>Hint 2: the FFT's conventions</summary>
#
# `torch.fft.rfft(v)[k]` is $\sum_j v_j e^{-2\pi i jk/N}$: divide by $N$ and keep the real part (the kernel values are
# even in $\theta$, so the imaginary part is rounding noise). Do not double the $k \ge 1$ terms: $\mu_k$ is the
# coefficient of $e^{ik\theta}$, not of $\cos k\theta$. Check: $\kappa(t) = t$ gives $\mu_1 = \frac12$.
# </details>
#
# ---
#
# **中文**
#
# **(a) `circle_spectrum(kernel_fn, K=200)` → 特征值 $\mu_0, \dots, \mu_K$**
#
# `kernel_fn(t)` 接受由余弦值组成的一维 float64 torch 张量，返回长度相同的张量 $\kappa(t)$
# （测试用的核也接受 numpy 数组，此时返回 numpy 数组）。以长度为 `K + 1` 的一维数组返回 $\mu_0, \dots, \mu_K$
# （numpy 数组、任意浮点类型的 torch 张量或列表均可；是实数，保留符号）。
#
# 使用 $N = 2048$ 个等间距的角度 $\theta_j = 2\pi j/N$，$j = 0, \dots, N-1$，
# 以及 $\mu_k \approx \frac1N\sum_j \kappa(\cos\theta_j)\cos(k\theta_j)$：一次实数 FFT 就能得到全部特征值，
# 对 $k$ 循环也可以，用更精确的积分方法同样可以。测试把答案与精确的 $\mu_k$ 比较，容差为最大 $|\mu_k|$ 的
# $2\cdot10^{-6}$ 倍（对测试的每个核，2048 个角度的求和公式与精确值之差都不超过它的 $4\cdot10^{-7}$ 倍）。
# 测试的核包括**一个和两个隐藏层**的无偏置 ReLU 网络的 NTK、带偏置的 ReLU NTK，以及 erf NTK。
#
# <details><summary>提示 1：角度网格</summary>
#
# 角度不能包含 $2\pi$（它与 $0$ 是同一个点）：用 `torch.arange(N) * (2 * math.pi / N)`，
# 而不是 `torch.linspace(0, 2 * math.pi, N)`。第 06 课 4.5.2 节由 Gram 矩阵的一行计算了这样的谱。
# </details>
#
# <details><summary>提示 2：FFT 的约定</summary>
#
# `torch.fft.rfft(v)[k]` 等于 $\sum_j v_j e^{-2\pi i jk/N}$：除以 $N$ 并取实部（核的值是 $\theta$ 的偶函数，
# 虚部只是舍入噪声）。不要把 $k \ge 1$ 的项加倍：$\mu_k$ 是 $e^{ik\theta}$ 的系数，而不是 $\cos k\theta$ 的系数。
# 检验：$\kappa(t) = t$ 给出 $\mu_1 = \frac12$。
# </details>

# %% nbgrader={"grade": false, "solution": true, "locked": false, "grade_id": "circle_spectrum", "schema_version": 3}
def circle_spectrum(kernel_fn, K=200):
    ### BEGIN SOLUTION
    n = 2048
    angles = torch.arange(n, dtype=torch.float64) * (2 * math.pi / n)
    values = kernel_fn(torch.cos(angles))
    return (torch.fft.rfft(values).real / n).numpy()[: K + 1]
    ### END SOLUTION

# %% nbgrader={"grade": false, "solution": false, "locked": true, "grade_id": "test_tools", "schema_version": 3}
# The tests' tools: the exact eigenvalues (2^16 angles), and your function, checked.
# 测试工具：精确的特征值（2^16 个角度），以及加了检查的你的函数。
def exact_spectrum(kappa, K):
    n = 2 ** 16
    values = kappa(torch.cos(torch.arange(n, dtype=torch.float64) * (2 * math.pi / n)))
    return torch.fft.rfft(values).real[: K + 1] / n


def check_spectrum(kappa, K, label, default_K=False):
    call = f"circle_spectrum({label})" if default_K else f"circle_spectrum({label}, K={K})"
    reference = exact_spectrum(kappa, K)
    mu = circle_spectrum(kappa) if default_K else circle_spectrum(kappa, K=K)
    mu = as_float64(mu, name=call, shape=(K + 1,))
    return check_close(mu, reference, rtol=0, atol=2e-6 * float(reference.abs().max()), name=call)

# %% nbgrader={"grade": true, "solution": false, "locked": true, "points": 1, "grade_id": "test_visible", "schema_version": 3}
# Visible tests: a constant, kappa(t) = t, and the NTK of a one-hidden-layer ReLU network.
# 可见测试：常数核、kappa(t) = t，以及单隐藏层 ReLU 网络的 NTK。
check_spectrum(kernel_function(lambda t: torch.ones_like(t)), 10, "kappa = 1")
mu = check_spectrum(kernel_function(lambda t: t), 10, "kappa(t) = t")
assert abs(float(mu[1]) - 0.5) < 1e-6, ("cos(theta) = (e^{i theta} + e^{-i theta})/2 has mu_1 = 1/2 / "
                                        "cos(theta) = (e^{i theta} + e^{-i theta})/2，所以 mu_1 = 1/2")
check_spectrum(ntk_on_circle(nh.mlp(1)), 10, "ReLU NTK, 1 hidden layer")
print("visible tests passed / 可见测试全部通过")

# %% nbgrader={"grade": true, "solution": false, "locked": true, "points": 1, "grade_id": "test_generic_hidden", "schema_version": 3}
# Hidden tests: kernels with negative eigenvalues and with every mode present; other values of K.
# 隐藏测试：有负特征值的核，以及所有模态都出现的核；K 取其他值。
### BEGIN HIDDEN TESTS
mu = check_spectrum(kernel_function(lambda t: 4 * t ** 3 - 4 * t), 5, "kappa(t) = 4t^3 - 4t")
assert float(mu[1]) < -0.49 and float(mu[3]) > 0.49, ("4t^3 - 4t = cos(3 theta) - cos(theta): mu_1 = -1/2 / "
                                                      "4t^3 - 4t = cos(3 theta) - cos(theta)，所以 mu_1 = -1/2")
check_spectrum(kernel_function(torch.exp), 30, "kappa = exp")
check_spectrum(kernel_function(lambda t: 1 / (1.5 - t)), 300, "kappa(t) = 1/(1.5 - t)")
### END HIDDEN TESTS

# %% nbgrader={"grade": true, "solution": false, "locked": true, "points": 1, "grade_id": "test_relu_hidden", "schema_version": 3}
# Hidden tests: ReLU NTKs with one and two hidden layers: values, k^-2 decay, odd modes.
# 隐藏测试：一个和两个隐藏层的 ReLU NTK：特征值、k^-2 衰减、奇数模态。
### BEGIN HIDDEN TESTS
one = check_spectrum(ntk_on_circle(nh.mlp(1)), 200, "ReLU NTK, 1 hidden layer", default_K=True).numpy()
two = check_spectrum(ntk_on_circle(nh.mlp(2)), 200, "ReLU NTK, 2 hidden layers", default_K=True).numpy()
even = np.arange(22, 199, 2)
slope = np.polyfit(np.log(even), np.log(one[even]), 1)[0]
assert abs(slope + 2) < 0.05, (f"one hidden layer: mu_k should fall like k^-2 on even k, slope {slope:.3f} / "
                              f"一个隐藏层：在偶数 k 上 mu_k 应按 k^-2 下降，拟合斜率为 {slope:.3f}")
assert np.abs(one[[3, 5, 7]]).max() < 1e-5 * one[0], ("one hidden layer, no bias: no odd modes k >= 3 / "
                                                      "一个隐藏层、无偏置：不应有 k >= 3 的奇数模态")
assert two[[3, 5, 7]].min() > 1e-3 * two[0], ("two hidden layers: odd modes k >= 3 are present / "
                                              "两个隐藏层：应有 k >= 3 的奇数模态")
### END HIDDEN TESTS

# %% nbgrader={"grade": true, "solution": false, "locked": true, "points": 1, "grade_id": "test_erf_bias_hidden", "schema_version": 3}
# Hidden tests: the erf NTK (only odd modes, geometric decay) and the ReLU NTK with a bias.
# 隐藏测试：erf NTK（只有奇数模态，按几何级数衰减）以及带偏置的 ReLU NTK。
### BEGIN HIDDEN TESTS
erf = check_spectrum(ntk_on_circle(nh.mlp(1, "erf", sigma_w=1.0)), 40, "erf NTK").numpy()
assert np.abs(erf[2::2]).max() < 1e-5 * erf[1] and erf[5] / erf[3] < 0.2, \
    "bias-free erf: odd, fast decay / 无偏置的 erf：只有奇数模态，衰减很快"
biased = check_spectrum(ntk_on_circle(nh.mlp(1, sigma_b=math.sqrt(0.5))), 60, "ReLU NTK with sigma_b^2 = 0.5")
assert float(biased[[3, 5, 7]].min()) > 1e-3, \
    "with a bias the one-layer ReLU NTK has odd modes / 有偏置时，单隐藏层的 ReLU NTK 有奇数模态"
### END HIDDEN TESTS

# %% [markdown] nbgrader={"grade": false, "solution": false, "locked": true, "grade_id": "part_b", "schema_version": 3}
# ## (b) Compare the ReLU and erf NTKs (no bias; one and two hidden layers): homogeneity, eigen-decay, parity. Is one "better for vision"?
#
# ---
#
# **中文**
#
# **(b) 比较 ReLU 与 erf 的 NTK（无偏置；一个和两个隐藏层）：齐次性、特征值衰减、奇偶性。
# 其中一个“更适合视觉任务”吗？**
#
# 可以用英文或中文作答。

# %% [markdown] nbgrader={"grade": true, "solution": true, "locked": false, "points": 2, "grade_id": "answer_b", "schema_version": 3}
# **Rubric (for the grader; the whole cell is replaced by "YOUR ANSWER HERE" in the student version).**
#
# 1 point: ReLU without bias is positively homogeneous, $\Theta(ax,bx') = ab\,\Theta(x,x')$ for $a, b > 0$ (not scale
# invariant); erf is not homogeneous and saturates. ReLU eigenvalues decay polynomially ($k^{-2}$ on the circle,
# $k^{-d}$ on $S^{d-1}$), erf's geometrically.
# 1 point: parity: bias-free erf kernels are odd (only odd modes), so they fit only odd functions. The bias-free ReLU
# NTK with **one** hidden layer has no odd modes $k \ge 3$; with two hidden layers (or a bias) it has them
# ($\mu_3 \approx 0.0975$, $\mu_5 \approx 0.024$ next to $\mu_0 \approx 2.17$ on this circle), so "ReLU has no odd modes" is
# wrong in general. Spectral bias exists for both (mode $k$ is learned at a rate $\propto\mu_k$); there is no
# theorem that ReLU is better for vision.
#
# **Model answer.**
# Without bias ReLU kernels are positively homogeneous of degree one in each input, which is not scale invariance;
# erf saturates and is not homogeneous. ReLU eigenvalues fall like $k^{-2}$ on the circle ($k^{-d}$ on $S^{d-1}$), erf's
# geometrically. Erf without bias gives an odd kernel (purely odd modes), so such a network fits only odd targets.
# The one-hidden-layer ReLU NTK skips the odd $k \ge 3$, but that is special to one hidden layer: with two,
# $\mu_3 \approx 0.0975$ and $\mu_5 \approx 0.024$. Both learn mode $k$ at rate $\mu_k$ (spectral bias); nothing here
# proves ReLU better for vision.
