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
# **中文** · 习题 4.4 · ReLU 与 erf：齐次性、特征值衰减、奇偶性
#
# *第 4.5 节，第 06 课。* 本章说 ReLU 核“尺度不变”，又说 ReLU “能有效地学习高频”。
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
# (the tests' kernels also accept a numpy array and then return one; pass a torch tensor). Lesson 06 has a helper
# with the same name that takes a *network*; this one takes the kernel as a function of the cosine. `K` is an integer, $0 \le K \le 1024$
# ($= N/2$); the tests use the default $K = 200$ and $K = 5, 10, 30, 40, 60, 300$. Return $\mu_0, \dots, \mu_K$ as
# a 1-D float64 array of length `K + 1` (a numpy or torch float64 array, or a list of Python floats; real numbers,
# with their signs).
#
# **What is graded.** Take the $N = 2048$ equally spaced angles $\theta_j = 2\pi j/N$, $j = 0, \dots, N-1$, and
# return
# $$\mu_k = \frac1N\sum_{j=0}^{N-1} \kappa(\cos\theta_j)\cos(k\theta_j),$$
# the eigenvalues of the Gram matrix $\kappa(\cos(\theta_i - \theta_j))$ of these $N$ points divided by $N$, as in
# lesson 06, section 4.5.2 (one real FFT gives all of them; a loop over $k$ is fine too). This sum is within
# $4\cdot10^{-7}\max_k|\mu_k|$ of the integral above for every kernel tested (relative to the largest $|\mu_k|$), but
# the tests compare with the sum itself, so do not replace it by a more accurate integration (more angles, or
# `scipy.integrate`): that is a different answer, off by up to $3\cdot10^{-7}\max_k|\mu_k|$. **Tolerance:**
# $|\text{yours}_k - \text{ref}_k| \le 10^{-10}\max_k|\text{ref}_k|$ for every $k$. Float64 evaluations of the sum in
# any order (rfft, complex FFT, a loop over $k$, a matrix of cosines; torch or numpy) agree to below
# $10^{-14}\max_k|\mu_k|$. Float32 anywhere (the angles, the kernel values, the FFT or the returned array) is off by
# $2\cdot10^{-9}$ to $5\cdot10^{-6}\max_k|\mu_k|$ and fails: compute in **float64** throughout.
# The kernels tested include the NTK of bias-free ReLU networks with **one and two hidden layers**, the ReLU NTK
# with a bias, the erf NTK, and a few elementary functions of $t$.
#
# <details><summary>Hint 1: the grid</summary>
#
# `torch.arange(N, dtype=torch.float64) * (2 * math.pi / N)`: the angles must be float64 (`torch.arange(N)` is an
# integer tensor, and multiplying it by a Python float gives float32), and they must not include $2\pi$ (the same
# point as $0$): not `torch.linspace(0, 2 * math.pi, N)`. Lesson 06, section 4.5.2, computes such a spectrum from
# one row of a Gram matrix.
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
# **中文** · (a) `circle_spectrum(kernel_fn, K=200)` → 特征值 $\mu_0, \dots, \mu_K$
#
# `kernel_fn(t)` 接受由余弦值组成的一维 float64 torch 张量，返回长度相同的张量 $\kappa(t)$
# （测试用的核也接受 numpy 数组，此时返回 numpy 数组；请传入 torch 张量）。第 06 课有一个同名的辅助函数，
# 它接受的是*网络*；这里的函数接受的是核（余弦的函数）。`K` 是整数，$0 \le K \le 1024$（$= N/2$）；
# 测试使用默认值 $K = 200$ 以及 $K = 5, 10, 30, 40, 60, 300$。以长度为 `K + 1` 的一维 float64 数组返回
# $\mu_0, \dots, \mu_K$（numpy 或 torch 的 float64 数组，或由 Python 浮点数组成的列表；是实数，保留符号）。
#
# **评分内容。** 取 $N = 2048$ 个等间距的角度 $\theta_j = 2\pi j/N$，$j = 0, \dots, N-1$，返回
# $$\mu_k = \frac1N\sum_{j=0}^{N-1} \kappa(\cos\theta_j)\cos(k\theta_j),$$
# 即这 $N$ 个点上的 Gram 矩阵 $\kappa(\cos(\theta_i - \theta_j))$ 的特征值除以 $N$，与第 06 课 4.5.2 节相同
# （一次实数 FFT 就能得到全部特征值；对 $k$ 循环也可以）。对测试的每个核，这个求和与上面的积分相差不超过
# $4\cdot10^{-7}\max_k|\mu_k|$（相对于最大的 $|\mu_k|$），但测试比较的是这个求和本身，所以不要改用更精确的
# 积分方法（更多的角度，或 `scipy.integrate`）：那是另一个答案，最多相差 $3\cdot10^{-7}\max_k|\mu_k|$。
# **容差：** 对每个 $k$，$|\text{你的值}_k - \text{参考值}_k| \le 10^{-10}\max_k|\text{参考值}_k|$。用 float64
# 按任何顺序计算这个求和（rfft、复数 FFT、对 $k$ 循环、余弦矩阵；torch 或 numpy），结果的差都小于
# $10^{-14}\max_k|\mu_k|$。任何一处用了 float32（角度、核的值、FFT 或返回的数组），误差就有
# $2\cdot10^{-9}$ 到 $5\cdot10^{-6}\max_k|\mu_k|$，不能通过：请全程用 **float64** 计算。
# 测试的核包括**一个和两个隐藏层**的无偏置 ReLU 网络的 NTK、带偏置的 ReLU NTK、erf NTK，以及几个 $t$ 的初等函数。
#
# <details><summary>提示 1：角度网格</summary>
#
# `torch.arange(N, dtype=torch.float64) * (2 * math.pi / N)`：角度必须是 float64（`torch.arange(N)` 是整数张量，
# 乘以 Python 浮点数得到的是 float32），而且不能包含 $2\pi$（它与 $0$ 是同一个点）：不要用
# `torch.linspace(0, 2 * math.pi, N)`。第 06 课 4.5.2 节由 Gram 矩阵的一行计算了这样的谱。
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
# The tests' tools: the reference (the same 2048-angle sum, by one float64 rfft), and your function, checked.
# Measured, as max_k |difference| / max_k |ref|, over the kernels of these tests: float64 variants (loop over k,
# numpy matrix of cosines, complex FFT, trapezoid on [0, pi] with 1025 nodes, angles 2 pi j / N) 7.8e-15 at most;
# float32 variants 2.0e-9 (float32 returned array) to 4.8e-6 (float32 grid and a loop over k). Tolerance 1e-10.
# 测试工具：参考值（同一个 2048 角度求和，用一次 float64 rfft 计算），以及加了检查的你的函数。
# 实测（在这些测试的核上，max_k |差值| / max_k |参考值|）：float64 的各种写法（对 k 循环、numpy 余弦矩阵、
# 复数 FFT、[0, pi] 上 1025 个节点的梯形公式、角度 2 pi j / N）至多 7.8e-15；float32 的写法为 2.0e-9
# （返回 float32 数组）到 4.8e-6（float32 网格加对 k 循环）。容差 1e-10。
def reference_spectrum(kappa, K):
    n = 2048
    values = kappa(torch.cos(torch.arange(n, dtype=torch.float64) * (2 * math.pi / n)))
    return torch.fft.rfft(values).real[: K + 1] / n


def check_spectrum(kappa, K, label, default_K=False):
    call = f"circle_spectrum({label})" if default_K else f"circle_spectrum({label}, K={K})"
    reference = reference_spectrum(kappa, K)
    mu = circle_spectrum(kappa) if default_K else circle_spectrum(kappa, K=K)
    mu = as_float64(mu, name=call, shape=(K + 1,))
    return check_close(mu, reference, rtol=0, atol=1e-10 * float(reference.abs().max()), name=call)

# %% nbgrader={"grade": true, "solution": false, "locked": true, "points": 1, "grade_id": "test_visible", "schema_version": 3}
# Visible tests: a constant, kappa(t) = t, and the NTK of a one-hidden-layer ReLU network.
# 可见测试：常数核、kappa(t) = t，以及单隐藏层 ReLU 网络的 NTK。
check_spectrum(kernel_function(lambda t: torch.ones_like(t)), 10, "lambda t: 1 + 0 * t")
mu = check_spectrum(kernel_function(lambda t: t), 10, "lambda t: t")
assert abs(float(mu[1]) - 0.5) < 1e-6, (f"cos(theta) = (e^(i theta) + e^(-i theta))/2 has mu_1 = 1/2, got "
                                        f"{float(mu[1]):.6g} / cos(theta) = (e^(i theta) + e^(-i theta))/2，"
                                        f"所以 mu_1 = 1/2，得到 {float(mu[1]):.6g}")
check_spectrum(ntk_on_circle(nh.mlp(1)), 10, "ntk_on_circle(nh.mlp(1))")
print("visible tests passed / 可见测试全部通过")

# %% nbgrader={"grade": true, "solution": false, "locked": true, "points": 1, "grade_id": "test_generic_hidden", "schema_version": 3}
# Hidden tests: kernels with negative eigenvalues and with every mode present; other values of K.
# 隐藏测试：有负特征值的核，以及所有模态都出现的核；K 取其他值。
### BEGIN HIDDEN TESTS
mu = check_spectrum(kernel_function(lambda t: 4 * t ** 3 - 4 * t), 5, "lambda t: 4 * t**3 - 4 * t")
assert float(mu[1]) < -0.49 and float(mu[3]) > 0.49, (
    f"4t^3 - 4t = (cos(3 theta) - cos(theta))/... : expected mu_1 = -1/2 and mu_3 = 1/2, got {float(mu[1]):.6g} and "
    f"{float(mu[3]):.6g} / 4t^3 - 4t：应有 mu_1 = -1/2、mu_3 = 1/2，得到 {float(mu[1]):.6g} 和 {float(mu[3]):.6g}")
check_spectrum(kernel_function(torch.exp), 30, "torch.exp")
check_spectrum(kernel_function(lambda t: 1 / (1.5 - t)), 300, "lambda t: 1 / (1.5 - t)")
### END HIDDEN TESTS

# %% nbgrader={"grade": true, "solution": false, "locked": true, "points": 1, "grade_id": "test_relu_hidden", "schema_version": 3}
# Hidden tests: ReLU NTKs with one and two hidden layers: values, k^-2 decay, odd modes.
# 隐藏测试：一个和两个隐藏层的 ReLU NTK：特征值、k^-2 衰减、奇数模态。
### BEGIN HIDDEN TESTS
one = check_spectrum(ntk_on_circle(nh.mlp(1)), 200, "ntk_on_circle(nh.mlp(1))", default_K=True).numpy()
two = check_spectrum(ntk_on_circle(nh.mlp(2)), 200, "ntk_on_circle(nh.mlp(2))", default_K=True).numpy()
even = np.arange(22, 199, 2)
slope = np.polyfit(np.log(even), np.log(one[even]), 1)[0]
assert abs(slope + 2) < 0.05, (f"one hidden layer: mu_k should fall like k^-2 on even k, slope {slope:.3f} / "
                              f"一个隐藏层：在偶数 k 上 mu_k 应按 k^-2 下降，拟合斜率为 {slope:.3f}")
odd_one, odd_two = np.abs(one[[3, 5, 7]]).max() / one[0], two[[3, 5, 7]].min() / two[0]
assert odd_one < 1e-5, (f"one hidden layer, no bias: expected no odd modes k >= 3 (|mu_3,5,7| < 1e-5 mu_0), got "
                        f"{odd_one:.2e} mu_0 / 一个隐藏层、无偏置：不应有 k >= 3 的奇数模态（|mu_3,5,7| < 1e-5 mu_0），"
                        f"得到 {odd_one:.2e} mu_0")
assert odd_two > 1e-3, (f"two hidden layers: expected odd modes k >= 3 (mu_3,5,7 > 1e-3 mu_0), got {odd_two:.2e} "
                        f"mu_0 / 两个隐藏层：应有 k >= 3 的奇数模态（mu_3,5,7 > 1e-3 mu_0），得到 {odd_two:.2e} mu_0")
### END HIDDEN TESTS

# %% nbgrader={"grade": true, "solution": false, "locked": true, "points": 1, "grade_id": "test_erf_bias_hidden", "schema_version": 3}
# Hidden tests: the erf NTK (only odd modes, geometric decay) and the ReLU NTK with a bias.
# 隐藏测试：erf NTK（只有奇数模态，按几何级数衰减）以及带偏置的 ReLU NTK。
### BEGIN HIDDEN TESTS
erf = check_spectrum(ntk_on_circle(nh.mlp(1, "erf", sigma_w=1.0)), 40,
                     'ntk_on_circle(nh.mlp(1, "erf", sigma_w=1.0))').numpy()
even_erf, ratio = np.abs(erf[2::2]).max() / erf[1], erf[5] / erf[3]
assert even_erf < 1e-5 and ratio < 0.2, (
    f"bias-free erf: expected only odd modes (|mu_even| < 1e-5 mu_1) and fast decay (mu_5/mu_3 < 0.2), got "
    f"{even_erf:.2e} mu_1 and {ratio:.3f} / 无偏置的 erf：应只有奇数模态（|mu_偶| < 1e-5 mu_1）且衰减很快"
    f"（mu_5/mu_3 < 0.2），得到 {even_erf:.2e} mu_1 和 {ratio:.3f}")
biased = check_spectrum(ntk_on_circle(nh.mlp(1, sigma_b=math.sqrt(0.5))), 60,
                        "ntk_on_circle(nh.mlp(1, sigma_b=math.sqrt(0.5)))")
odd_biased = float(biased[[3, 5, 7]].min())
assert odd_biased > 1e-3, (f"with a bias the one-layer ReLU NTK has odd modes: expected mu_3,5,7 > 1e-3, got "
                           f"{odd_biased:.2e} / 有偏置时，单隐藏层的 ReLU NTK 有奇数模态：应有 mu_3,5,7 > 1e-3，"
                           f"得到 {odd_biased:.2e}")
### END HIDDEN TESTS

# %% [markdown] nbgrader={"grade": false, "solution": false, "locked": true, "grade_id": "part_b", "schema_version": 3}
# ## (b) Compare the ReLU and erf NTKs (no bias; one and two hidden layers): homogeneity, eigen-decay, parity. Does ReLU "learn high frequencies effectively"?
#
# Use the networks of lesson 06: `nh.mlp(L, "relu")` (the default $\sigma_w = \sqrt2$; for ReLU $\sigma_w$ only scales
# the kernel) and `nh.mlp(L, "erf", sigma_w=1.0)` (for erf $\sigma_w$ changes the shape of the spectrum), $L = 1, 2$.
# For the last question, see lesson 06, "Spectral bias = per-mode learning speed": at what rate is mode $k$ learned?
#
# ---
#
# **中文** · (b) 比较 ReLU 与 erf 的 NTK（无偏置；一个和两个隐藏层）：齐次性、特征值衰减、奇偶性。ReLU 真的“能有效地学习高频”吗？
#
# 用第 06 课的网络：`nh.mlp(L, "relu")`（默认 $\sigma_w = \sqrt2$；对 ReLU 而言 $\sigma_w$ 只改变核的整体尺度）和
# `nh.mlp(L, "erf", sigma_w=1.0)`（对 erf 而言 $\sigma_w$ 会改变谱的形状），$L = 1, 2$。
# 最后一个问题请参看第 06 课“频谱偏置 = 各模态各自的学习速度”一节：模态 $k$ 以什么速率被学到？
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
# wrong in general. Spectral bias exists for both: mode $k$ is learned at a rate $\propto\mu_k$, so ReLU learns high
# modes faster than erf (polynomial vs geometric decay) but still much more slowly than low ones; "learns high
# frequencies effectively" overstates it.
#
# **Model answer.**
# Without bias ReLU kernels are positively homogeneous of degree one in each input, which is not scale invariance;
# erf saturates and is not homogeneous. ReLU eigenvalues fall like $k^{-2}$ on the circle ($k^{-d}$ on $S^{d-1}$), erf's
# geometrically. Erf without bias gives an odd kernel (purely odd modes), so such a network fits only odd targets.
# The one-hidden-layer ReLU NTK skips the odd $k \ge 3$, but that is special to one hidden layer: with two,
# $\mu_3 \approx 0.0975$ and $\mu_5 \approx 0.024$. Both learn mode $k$ at rate $\mu_k$ (spectral bias): ReLU reaches high
# modes sooner than erf, but still far later than low ones.
