# %% [markdown] nbgrader={"grade": false, "solution": false, "locked": true, "grade_id": "intro", "schema_version": 3}
# # Exercise 4.8 · Activation and double descent
#
# *Chapter 4.5, lesson 06.* Random-features regression: $N$ features $\phi(w_j\cdot x/\sqrt d)$, $j = 1..N$, with fixed
# random weights $w_j\in\mathbb R^d$, fitted to $n$ noisy labels by minimum-norm least squares. This is a two-layer
# network in which only the output layer is trained; as $N\to\infty$ it becomes kernel regression.
# Points: (a) 1 + 3 hidden, (b) 2 manual.
#
# ---
#
# **中文**
#
# **习题 4.8 · 激活函数与双下降**
#
# *教材第 4.5 节，第 06 课。* 随机特征回归：$N$ 个特征 $\phi(w_j\cdot x/\sqrt d)$，$j = 1..N$，
# 其中随机权重 $w_j\in\mathbb R^d$ 固定不变；用最小范数最小二乘拟合 $n$ 个带噪声的标签。
# 这是一个只训练输出层的两层网络；当 $N\to\infty$ 时，它成为核回归。
# 分值：(a) 1 分（可见测试）+ 3 分（隐藏测试），(b) 2 分（人工评分）。

# %% nbgrader={"grade": false, "solution": false, "locked": true, "grade_id": "setup", "schema_version": 3}
import math

import torch
import ntk_helpers as nh
from ntk_helpers.course.grading import as_scalar


def draw(N, n, d, seed, n_test=500):
    """The random ingredients of one experiment: (W, beta, x_train, x_test, eps), float64 standard normal.
    一次实验的全部随机量：(W, beta, x_train, x_test, eps)，都是 float64 的标准正态随机数。"""
    g = torch.Generator().manual_seed(seed)
    beta = torch.randn(d, generator=g, dtype=torch.float64)
    x_train = torch.randn(n, d, generator=g, dtype=torch.float64)
    x_test = torch.randn(n_test, d, generator=g, dtype=torch.float64)
    eps = torch.randn(n, generator=g, dtype=torch.float64)
    W = torch.randn(N, d, generator=g, dtype=torch.float64)
    return W, beta, x_train, x_test, eps

# %% [markdown] nbgrader={"grade": false, "solution": false, "locked": true, "grade_id": "part_a", "schema_version": 3}
# ## (a) `rf_test_error(activation, W, beta, x_train, x_test, eps, noise)`
#
# All randomness comes in as arguments (torch float64 tensors; `draw` above makes them): the weights `W` $(N, d)$,
# the target direction `beta` $(d,)$, the inputs `x_train` $(n, d)$ and `x_test` $(n_t, d)$, and standard normal label
# noise `eps` $(n,)$; `noise` $\ge 0$ is the noise level and `activation` is `"relu"` or `"erf"`.
#
# 1. Features: $\Phi_{ij} = \phi(x_i\cdot w_j/\sqrt d)$ for the training inputs, $(n, N)$, and likewise for the
#    test inputs.
# 2. Target $f^*(x) = x\cdot\beta/\sqrt d$. Training labels $y = f^*(x_\text{train}) + \texttt{noise}\cdot\texttt{eps}$.
# 3. Coefficients: the minimum-norm least-squares solution $a = \Phi^+ y$ (`torch.linalg.pinv`, `torch.linalg.lstsq`,
#    `numpy.linalg.lstsq` or an equivalent; no ridge).
# 4. Return the **test mean squared error** against the noiseless target,
#    $\frac1{n_t}\sum_i (\Phi_\text{test}a - f^*(x_\text{test}))_i^2$, as one number (a Python float, NumPy scalar
#    or 0-d tensor).
#
# **What may be used, what is compared.** Any torch or NumPy code (SciPy's `erf` too), in float64 throughout; no ridge
# and no cut-off of singular values beyond rounding level (the default tolerances of `torch.linalg.pinv`,
# `torch.linalg.lstsq` and `numpy.linalg.lstsq` are at rounding level and fine). The tests compare your value with a
# reference (`torch.linalg.lstsq`, driver `"gelsd"`) to a **relative tolerance of $10^{-6}$** (no absolute term:
# every test error in the tests is above 0.05): the visible test on `draw(N, 100, 20, seed=0)` with $N = 50$, $400$
# and $N = n = 100$; the hidden tests on draws with $n = 80$, $d = 30$, `n_test=300`, both activations, noise 0 to
# 1.5, far from the threshold and **at and near it** ($N = n$, $n \pm 1$, $n \pm 2$). Near $N = n$ the fit is
# ill-conditioned (condition numbers of $\Phi$ up to about $10^4$ in the tests), so the error there is sensitive: the
# correct formulations of hint 2 (pseudo-inverse, `lstsq`, SVD, the normal equations on each side of $n$, `solve`
# at $N = n$) stay within $10^{-8}$ of the reference, while a ridge $\lambda = 10^{-8}$ moves it by $10^{-5}$ to
# $10^{-2}$ at $N = n$. The hidden tests also check that the mean error over 3 draws peaks at $N = n$.
#
# <details><summary>Hint 1</summary>
#
# The $1/\sqrt d$ keeps the pre-activations $x\cdot w_j/\sqrt d$ of order one (here $x$ and $w_j$ are standard normal, so
# $x\cdot w_j$ has variance $d$). It does not change anything for ReLU, which is positively homogeneous (lesson 06,
# section 4.5.1), but erf saturates, so for erf it matters.
# </details>
#
# <details><summary>Hint 2</summary>
#
# For $N < n$, $\Phi^+ y$ is the ordinary least-squares fit; for $N > n$ it is the interpolating solution of smallest
# norm, $\Phi^\top(\Phi\Phi^\top)^{-1}y$. `torch.linalg.pinv(Phi) @ y` covers both.
# </details>
#
# ---
#
# **中文**
#
# **(a) `rf_test_error(activation, W, beta, x_train, x_test, eps, noise)`**
#
# 所有随机量都作为参数传入（torch float64 张量，由上面的 `draw` 生成）：权重 `W` $(N, d)$，
# 目标方向 `beta` $(d,)$，输入 `x_train` $(n, d)$ 和 `x_test` $(n_t, d)$，以及标准正态的标签噪声
# `eps` $(n,)$；`noise` $\ge 0$ 是噪声水平，`activation` 为 `"relu"` 或 `"erf"`。
#
# 1. 特征：训练输入的 $\Phi_{ij} = \phi(x_i\cdot w_j/\sqrt d)$，形状为 $(n, N)$；测试输入同理。
# 2. 目标函数 $f^*(x) = x\cdot\beta/\sqrt d$。
#    训练标签 $y = f^*(x_\text{train}) + \texttt{noise}\cdot\texttt{eps}$。
# 3. 系数：最小范数最小二乘解 $a = \Phi^+ y$（`torch.linalg.pinv`、`torch.linalg.lstsq`、
#    `numpy.linalg.lstsq` 或等价的方法；不加岭项）。
# 4. 返回相对于无噪声目标的**测试均方误差**
#    $\frac1{n_t}\sum_i (\Phi_\text{test}a - f^*(x_\text{test}))_i^2$，
#    一个数（Python float、NumPy 标量或 0 维张量）。
#
# **可以用什么，比较什么。** 任何 torch 或 NumPy 代码（包括 SciPy 的 `erf`），全程用 float64；不加岭项，
# 也不截断舍入误差量级以上的奇异值（`torch.linalg.pinv`、`torch.linalg.lstsq` 和 `numpy.linalg.lstsq`
# 的默认容差都在舍入误差量级，可以直接用）。测试把你的结果与参考值（`torch.linalg.lstsq`，驱动 `"gelsd"`）比较，
# **相对容差为 $10^{-6}$**（没有绝对误差项：测试中的每个测试误差都大于 0.05）：可见测试用
# `draw(N, 100, 20, seed=0)`，取 $N = 50$、$400$ 和 $N = n = 100$；隐藏测试用 $n = 80$、$d = 30$、
# `n_test=300` 的抽样，两种激活函数，噪声从 0 到 1.5，既有远离阈值的情形，也有**阈值处及其附近**的情形
# （$N = n$、$n \pm 1$、$n \pm 2$）。在 $N = n$ 附近拟合是病态的（测试中 $\Phi$ 的条件数可达约 $10^4$），
# 所以那里的误差很敏感：提示 2 中的各种正确写法（伪逆、`lstsq`、SVD、在 $n$ 两侧分别用正规方程、
# $N = n$ 时用 `solve`）与参考值的相对偏差都在 $10^{-8}$ 以内，而岭项 $\lambda = 10^{-8}$ 就会使 $N = n$ 处的
# 误差改变 $10^{-5}$ 到 $10^{-2}$。隐藏测试还检查 3 次抽样的平均误差在 $N = n$ 处达到峰值。
#
# <details><summary>提示 1</summary>
#
# $1/\sqrt d$ 让预激活 $x\cdot w_j/\sqrt d$ 保持 1 的量级（这里 $x$ 和 $w_j$ 都是标准正态的，
# 所以 $x\cdot w_j$ 的方差为 $d$）。对 ReLU 它不改变任何结果，因为 ReLU 是正齐次的
# （第 06 课第 4.5.1 节）；但 erf 会饱和，所以对 erf 它是有影响的。
# </details>
#
# <details><summary>提示 2</summary>
#
# 当 $N < n$ 时，$\Phi^+ y$ 就是普通的最小二乘拟合；当 $N > n$ 时，它是范数最小的插值解
# $\Phi^\top(\Phi\Phi^\top)^{-1}y$。`torch.linalg.pinv(Phi) @ y` 对两种情形都适用。
# </details>

# %% nbgrader={"grade": false, "solution": true, "locked": false, "grade_id": "rf_test_error", "schema_version": 3}
def rf_test_error(activation, W, beta, x_train, x_test, eps, noise):
    ### BEGIN SOLUTION
    d = W.shape[1]
    phi = torch.relu if activation == "relu" else torch.erf
    features = lambda x: phi(x @ W.T / math.sqrt(d))
    target = lambda x: x @ beta / math.sqrt(d)
    coef = torch.linalg.pinv(features(x_train)) @ (target(x_train) + noise * eps)
    return float(((features(x_test) @ coef - target(x_test)) ** 2).mean())
    ### END SOLUTION

# %% nbgrader={"grade": true, "solution": false, "locked": true, "points": 1, "grade_id": "test_visible", "schema_version": 3}
# Visible tests: both activations, n = 100, d = 20, noise 0.5, below (N = 50), at (N = 100) and above (N = 400) the
# threshold. They catch features without 1/sqrt(d) (erf), ignored label noise, the root mean squared error, tanh
# for erf, and any ridge: at N = n (condition number of Phi 4.4e3) a ridge of 1e-10 moves the error by 2.1e-6,
# 1e-8 by 2.1e-4.
# Tolerance: relative 1e-6. Measured errors of correct float64 variants (pinv, lstsq gelsd/gelsy, numpy lstsq, SVD,
# normal equations, solve at N = n) on every visible and hidden draw: at most 5.1e-9 (the normal equations at
# N = n, condition number 1.2e4; all others <= 4e-13).
# 可见测试：两种激活函数，n = 100，d = 20，噪声 0.5，分别在阈值以下（N = 50）、阈值处（N = 100）和阈值以上
# （N = 400）。它们能发现：特征漏了 1/sqrt(d)（erf）、忽略标签噪声、均方根误差、用 tanh 代替 erf，
# 以及任何岭项：在 N = n 处（Phi 的条件数为 4.4e3），岭项 1e-10 使误差改变 2.1e-6，1e-8 使它改变 2.1e-4。
# 容差：相对误差 1e-6。正确的 float64 写法（pinv、lstsq 的 gelsd/gelsy、numpy 的 lstsq、SVD、正规方程、
# N = n 时的 solve）在所有可见和隐藏抽样上的实测误差：至多 5.1e-9（N = n 处的正规方程，条件数 1.2e4；
# 其余都 <= 4e-13）。
def check_value(activation, N, n, d, seed, noise, expected, n_test=500):
    name = f"rf_test_error({activation!r}, *draw({N}, {n}, {d}, seed={seed}, n_test={n_test}), noise={noise})"
    value = as_scalar(rf_test_error(activation, *draw(N, n, d, seed, n_test=n_test), noise), name=name)
    assert abs(value / expected - 1) <= 1e-6, (
        f"{name}: expected {expected:.10g} (relative tolerance 1e-6), got {value:.10g} / "
        f"{name}：应为 {expected:.10g}（相对容差 1e-6），实际得到 {value:.10g}")


for activation, N, expected in [("relu", 50, 0.6529671069), ("erf", 400, 0.2198692301), ("relu", 100, 257.5837075)]:
    check_value(activation, N, 100, 20, 0, 0.5, expected)
print("visible tests passed / 可见测试全部通过")

# %% nbgrader={"grade": true, "solution": false, "locked": true, "points": 3, "grade_id": "test_hidden", "schema_version": 3}
# Hidden tests: values against the reference on other draws, sizes and noise levels, far from N = n and at
# N = n, n +- 1, n +- 2 (n = 80; condition numbers of Phi up to 1.2e4, where a ridge of 1e-10 moves the error by
# up to 8.8e-5); the peak at N = n. Same tolerance.
# 隐藏测试：在其他抽样、尺寸和噪声水平下与参考值比较，既有远离 N = n 的情形，也有 N = n、n +- 1、n +- 2
# （n = 80；Phi 的条件数可达 1.2e4，在那里岭项 1e-10 使误差最多改变 8.8e-5）；误差在 N = n 处的峰值。容差相同。
### BEGIN HIDDEN TESTS
def reference_error(activation, W, beta, x_train, x_test, eps, noise):
    d = W.shape[1]
    phi = torch.relu if activation == "relu" else torch.erf
    F, F_test = phi(x_train @ W.T / math.sqrt(d)), phi(x_test @ W.T / math.sqrt(d))
    y = x_train @ beta / math.sqrt(d) + noise * eps
    coef = torch.linalg.lstsq(F, y[:, None], driver="gelsd").solution
    return float(((F_test @ coef[:, 0] - x_test @ beta / math.sqrt(d)) ** 2).mean())


draws = [("relu", 30, 0.0, 1), ("erf", 30, 0.7, 2), ("erf", 300, 0.7, 3), ("relu", 300, 0.7, 4),
         ("erf", 160, 0.0, 5), ("erf", 45, 1.5, 6),                                   # far from N = n
         ("relu", 80, 0.7, 7), ("erf", 80, 0.0, 8), ("relu", 80, 0.0, 14),            # N = n
         ("erf", 79, 0.7, 9), ("relu", 81, 0.5, 10), ("relu", 78, 0.7, 11), ("erf", 82, 0.7, 12)]
for activation, N, noise, seed in draws:
    check_value(activation, N, 80, 30, seed, noise,
                reference_error(activation, *draw(N, 80, 30, seed, n_test=300), noise), n_test=300)

grid = [25, 50, 100, 200, 1000]
for activation in ("relu", "erf"):
    errors = [sum(as_scalar(rf_test_error(activation, *draw(N, 100, 20, s), 0.5)) for s in range(3)) / 3
              for N in grid]
    assert grid[errors.index(max(errors))] == 100, (
        f"{activation}: the mean test error should peak at N = n = 100; errors {errors} at N = {grid} / "
        f"{activation}：平均测试误差应在 N = n = 100 处达到峰值；N = {grid} 处的误差为 {errors}")
    assert errors[-1] < errors[1], (
        f"{activation}: the mean test error at N = 1000 should be below that at N = 50; errors {errors} at "
        f"N = {grid} / {activation}：N = 1000 处的平均测试误差应低于 N = 50 处的；N = {grid} 处的误差为 {errors}")
### END HIDDEN TESTS

# %% [markdown] nbgrader={"grade": false, "solution": false, "locked": true, "grade_id": "measure_intro", "schema_version": 3}
# ### Measure (not graded)
#
# Your function over a range of $N$ ($n = 100$ training points, $d = 20$, mean of 3 draws), with label noise 0.5 and
# without noise. Use these numbers in (b).
#
# ---
#
# **中文**
#
# **测量（不计分）**
#
# 在一系列 $N$ 上运行你的函数（$n = 100$ 个训练点，$d = 20$，对 3 次抽样取平均），
# 标签噪声分别为 0.5 和 0（每行的 noise）。(b) 中要用到这些数。

# %% nbgrader={"grade": false, "solution": false, "locked": true, "grade_id": "measure", "schema_version": 3}
widths = [25, 50, 90, 100, 110, 200, 1000]
print(f"{'N =':>20}" + "".join(f"{N:>8}" for N in widths))
for noise in (0.5, 0.0):
    for activation in ("relu", "erf"):
        errors = [sum(as_scalar(rf_test_error(activation, *draw(N, 100, 20, s), noise)) for s in range(3)) / 3
                  for N in widths]
        print(f"{activation + ', noise ' + str(noise):<20}" + "".join(f"{e:8.3f}" for e in errors))

# %% [markdown] nbgrader={"grade": false, "solution": false, "locked": true, "grade_id": "part_b", "schema_version": 3}
# ## (b) Where does double descent come from, does the kernel limit show it, and is one activation better?
#
# The chapter's exercise asks which network, ReLU or erf, generalizes worse far past the interpolation threshold
# (many more features than training points, $N \gg n$: the column $N = 1000 = 10\,n$ above), and wants the answer
# from spectral bias. Answer the three questions of the title, using the numbers printed above.
#
# For the last one, split each activation, on a standard normal pre-activation $z$ (here $x\cdot w_j/\sqrt d$ is
# close to that), into a constant, a linear part and the rest: $\phi(z) = \mu_0 + \mu_1 z + \phi_*(z)$ with
# $\mu_0 = \mathbb E\,\phi(z)$, $\mu_1 = \mathbb E[z\,\phi(z)]$, and $\phi_*$ uncorrelated with $1$ and $z$ (the first
# terms of the Hermite expansion). ReLU: $\mu_0 = 1/\sqrt{2\pi}$, $\mu_1 = \tfrac12$,
# $\mathbb E\,\phi_*^2 = \tfrac14 - \tfrac1{2\pi} \approx 0.091$, and $\phi_*(z) = |z|/2 - \mu_0$ is even.
# erf: $\mu_0 = 0$, $\mu_1 = 2/\sqrt{3\pi} \approx 0.651$, $\mathbb E\,\phi_*^2 = \tfrac2\pi\arcsin\tfrac23 -
# \tfrac4{3\pi} \approx 0.040$, and $\phi_*$ is odd. Only the linear part can fit the linear target
# $x\cdot\beta/\sqrt d$; for this target the rest acts like extra noise.
#
# <details><summary>Hint</summary>
#
# Look at how well conditioned $\Phi$ is when $N = n$, and at what happens as $N\to\infty$ (a ridge, like early
# stopping in lesson 07, section "3. Early stopping is an implicit ridge", would remove the peak). For the
# activations: lesson 06, sections 4.5.2 (eigen-decay) and "The parity pitfall" (what an odd or an even activation
# cannot represent), and the split above: compare $\mu_1^2$ with $\mathbb E\,\phi_*^2$ for both activations, and ask
# which targets would favour the other one.
# </details>
#
# ---
#
# **中文**
#
# **(b) 双下降从何而来？核极限中会出现它吗？哪一种激活函数更好？**
#
# 本章的习题问：在远远越过插值阈值之后（特征数远多于训练点数，$N \gg n$：上面 $N = 1000 = 10\,n$ 那一列），
# ReLU 网络和 erf 网络哪一个泛化得更差，并要求从频谱偏置出发作答。利用上面打印的数，回答标题中的三个问题。
#
# 对于最后一个问题，在标准正态的预激活 $z$ 上（这里的 $x\cdot w_j/\sqrt d$ 接近标准正态）把每种激活函数
# 分成常数、线性部分和其余部分：$\phi(z) = \mu_0 + \mu_1 z + \phi_*(z)$，其中 $\mu_0 = \mathbb E\,\phi(z)$，
# $\mu_1 = \mathbb E[z\,\phi(z)]$，$\phi_*$ 与 $1$ 和 $z$ 都不相关（这是 Hermite 展开的前几项）。
# ReLU：$\mu_0 = 1/\sqrt{2\pi}$，$\mu_1 = \tfrac12$，$\mathbb E\,\phi_*^2 = \tfrac14 - \tfrac1{2\pi} \approx 0.091$，
# 并且 $\phi_*(z) = |z|/2 - \mu_0$ 是偶函数。erf：$\mu_0 = 0$，$\mu_1 = 2/\sqrt{3\pi} \approx 0.651$，
# $\mathbb E\,\phi_*^2 = \tfrac2\pi\arcsin\tfrac23 - \tfrac4{3\pi} \approx 0.040$，并且 $\phi_*$ 是奇函数。
# 只有线性部分能够拟合线性目标 $x\cdot\beta/\sqrt d$；对这个目标来说，其余部分就像额外的噪声。
#
# 可以用英文或中文作答。
#
# <details><summary>提示</summary>
#
# 看看 $N = n$ 时 $\Phi$ 的条件数有多差，以及 $N\to\infty$ 时会发生什么（加一个岭项就能去掉峰值，
# 就像第 07 课“3. 早停是一种隐式的岭正则化”一节中的早停那样）。关于激活函数：第 06 课第 4.5.2 节
# （特征值衰减）和“奇偶性陷阱”一节（奇激活函数或偶激活函数不能表示什么），以及上面的分解：
# 对两种激活函数比较 $\mu_1^2$ 与 $\mathbb E\,\phi_*^2$，再想一想什么样的目标会对另一种激活函数有利。
# </details>

# %% [markdown] nbgrader={"grade": true, "solution": true, "locked": false, "points": 2, "grade_id": "answer_b", "schema_version": 3}
# **Rubric (for the grader; the whole cell is replaced by "YOUR ANSWER HERE" in the student version).**
#
# 1 point: the peak appears for finite random features at $N\approx n$ (ridgeless): $\Phi$ is square and badly
# conditioned, so the min-norm fit amplifies label noise (and the non-linear part of the features, which acts like
# extra noise for this target: the peak shrinks but stays without label noise); in the kernel ($N\to\infty$)
# limit there is no width-wise double descent: the error decreases towards that of kernel regression. (½ for the
# mechanism, ½ for the kernel limit.)
# 1 point: which activation wins depends on the target and the noise, not on a universal ranking: in random-features
# theory the error depends on the activation's Hermite coefficients, the linear one $\mu_1$ against the non-linear
# rest $\phi_*$ (Mei & Montanari 2019; Adlam & Pennington 2020; the split given in the task: $\mu_1^2 = 0.25$ against
# $\mathbb E\,\phi_*^2 \approx 0.091$ for ReLU, $0.424$ against $0.040$ for erf), and in the kernel picture on the
# eigen-decay (spectral bias helps smooth targets, hurts high-frequency ones). For the linear target here erf does
# better in the printed numbers with label noise (at every $N$, $N = 1000$ included), because a larger share of it is
# linear; a target with even (e.g. quadratic) parts would favour ReLU, since erf has no even part at all. A bare
# "ReLU is better/worse" without the dependence gets 0 for this point.
#
# **Model answer.**
# With exactly as many features as training points the min-norm fit must interpolate noisy labels with a square,
# nearly singular feature matrix, so the test error peaks at $N\approx n$; the non-linear part of the features, which
# cannot help with a linear target, acts like extra noise (Mei & Montanari 2019), which is why a smaller peak remains
# without label noise. Adding features lets the
# minimum-norm solution spread the noise over many directions, and the $N\to\infty$ limit is kernel regression, which
# has no peak in $N$. Which activation does better depends on the target and the noise through the activation's
# Hermite coefficients and eigen-decay: here the target is linear and erf, whose features are closer to linear,
# wins at every $N$ printed with label noise (without noise the two are close at $N = 1000$); for a target with even
# components ReLU would win, because erf features are odd and cannot represent them at all.
