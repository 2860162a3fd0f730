# %% [markdown] nbgrader={"grade": false, "solution": false, "locked": true, "grade_id": "intro", "schema_version": 3}
# # Exercise 4.9 · Early stopping is an implicit ridge
#
# *Chapter 4.4.2, lesson 07.* The chapter's exercises stop at 4.8; this one is the course's own exercise for lesson
# 07 (section "3. Early stopping is an implicit ridge"). An infinitely wide network with a fixed NTK $\Theta$ and
# output $f_0 = 0$ at initialization (a symmetrized network, lesson 07) is trained by gradient flow with learning
# rate $\eta$ on the loss $\mathcal L = \frac{1}{2n}\sum_i (f(x_i) - y_i)^2$, the loss of lesson 07. Its outputs on
# test inputs $x^*$ after training time $t$ are (lesson 07, "The formula")
#
# $$f_t(x^*) = \Theta(x^*, X)\,\Theta^{-1}\bigl(I - e^{-\eta\Theta t/n}\bigr)\,y ,$$
#
# where $\Theta = \Theta(X, X)$ is the $n\times n$ NTK Gram matrix of the training inputs. You compute this formula
# stably, then find the ridge penalty that early stopping imitates. Points: (a) and (b) together 1 visible + 3
# hidden, (c) 2 manual.
#
# ---
#
# **中文**
#
# **习题 4.9 · 早停是一种隐式的岭正则化**
#
# *教材第 4.4.2 节，第 07 课。* 本章的习题到 4.8 为止；这一题是本课程为第 07 课（“3. 早停是一种隐式的岭正则化”
# 一节）自编的习题。一个无限宽的网络，NTK $\Theta$ 固定，初始化时输出 $f_0 = 0$（对称化的网络，见第 07 课），
# 用梯度流以学习率 $\eta$ 在损失 $\mathcal L = \frac{1}{2n}\sum_i (f(x_i) - y_i)^2$（第 07 课的损失）上训练。
# 训练时间 $t$ 之后，它在测试输入 $x^*$ 上的输出为（第 07 课“公式”一节）
#
# $$f_t(x^*) = \Theta(x^*, X)\,\Theta^{-1}\bigl(I - e^{-\eta\Theta t/n}\bigr)\,y ,$$
#
# 其中 $\Theta = \Theta(X, X)$ 是训练输入上 $n\times n$ 的 NTK Gram 矩阵。你要稳定地计算这个公式，
# 再找出早停所模仿的岭惩罚。分值：(a) 和 (b) 合计 1 分（可见测试）+ 3 分（隐藏测试），(c) 2 分（人工评分）。

# %% nbgrader={"grade": false, "solution": false, "locked": true, "grade_id": "setup", "schema_version": 3}
import math

import numpy as np
import torch
import ntk_helpers as nh
from ntk_helpers.course.grading import as_float64, check_close, forbid

ARCH = nh.mlp(1, "relu", sigma_w=1.4, sigma_b=0.3)       # lesson 07's network (one hidden ReLU layer)


def draw_angles(n, n_test, seed, *, repeat=False, near=None):
    """(training angles (n,), test angles (n_test,)) of problem(n, n_test, seed, ...).
    problem(n, n_test, seed, ...) 的（训练角度 (n,)，测试角度 (n_test,)）。"""
    g = torch.Generator().manual_seed(seed)
    angles = (torch.arange(n, dtype=torch.float64) + 0.8 * torch.rand(n, generator=g, dtype=torch.float64)) \
        * (2 * math.pi / n)
    if repeat:
        angles[1] = angles[0]
    if near is not None:
        angles[3], angles[5] = angles[2] + near, angles[4] + near
    return angles, 2 * math.pi * torch.rand(n_test, generator=g, dtype=torch.float64)


def problem(n, n_test, seed, *, repeat=False, near=None, noise=0.5):
    """(ntk_train (n, n), ntk_test_train (n_test, n), y (n,)), float64, on the circle as in lesson 07.

    n training angles (jittered around an even grid), n_test random test angles, labels
    y = sin(2a) + 0.5 cos(a) + noise * N(0, 1). repeat=True: training input 1 is a copy of input 0 (with its own
    noisy label), so ntk_train is singular. near=delta: training inputs 3 and 5 lie delta radians from 2 and 4.
    (ntk_train, ntk_test_train, y)：float64，与第 07 课一样取在圆上。repeat=True：训练输入 1 是输入 0 的副本
    （标签噪声不同），于是 ntk_train 奇异。near=delta：训练输入 3 和 5 与输入 2 和 4 相距 delta 弧度。
    """
    angles, test = draw_angles(n, n_test, seed, repeat=repeat, near=near)
    g = torch.Generator().manual_seed(seed + 1000)
    y = torch.sin(2 * angles) + 0.5 * torch.cos(angles) + noise * torch.randn(n, generator=g, dtype=torch.float64)
    points = lambda a: torch.stack([a.cos(), a.sin()], 1) * math.sqrt(2)
    k = ARCH.kernel(torch.cat([points(angles), points(test)])).ntk
    return k[:n, :n], k[n:, :n], y


# %% [markdown] nbgrader={"grade": false, "solution": false, "locked": true, "grade_id": "part_a", "schema_version": 3}
# ## (a) `flow_prediction(ntk_train, ntk_test_train, y, t, eta)` → $f_t(x^*)$
#
# **Arguments.** `ntk_train` is $\Theta(X, X)$, a float64 torch tensor of shape $(n, n)$, symmetric and positive
# semi-definite; `ntk_test_train` is $\Theta(x^*, X)$, float64, shape $(m, n)$; `y` the training labels, float64,
# shape $(n,)$; `t` $\ge 0$ the training time, a Python float that may be `0.0`, any finite value or `math.inf`;
# `eta` $> 0$ the learning rate. `problem(...)` above makes such arguments.
#
# **Return** the $m$ test outputs $f_t(x^*)$, shape $(m,)$ (a torch tensor of any float dtype, a numpy array or a
# list), computed in **float64**. Passing `ntk_train` itself as `ntk_test_train` gives the training outputs
# $f_t(X) = (I - e^{-\eta\Theta t/n})\,y$.
#
# **The numerical edge.** Write $\Theta = \sum_i \lambda_i v_i v_i^\top$ (`torch.linalg.eigh`). Then
# $\Theta^{-1}(I - e^{-\eta\Theta t/n}) = \sum_i h(\lambda_i)\,v_i v_i^\top$ with
# $h(\lambda) = \bigl(1 - e^{-\eta\lambda t/n}\bigr)/\lambda$, and $h$ is harmless: $0 \le h(\lambda) \le \eta t/n$, and
# $h(\lambda)\to\eta t/n$ as $\lambda\to 0$. So $f_t$ is finite and well defined even when $\Theta$ is singular,
# while $\Theta^{-1}$ alone is not. The tests use that:
# - the hidden tests include training sets with a **repeated input** (two identical rows of $X$ with different
#   labels: $\Theta$ is exactly singular, its computed eigenvalues are about $\pm10^{-16}\lambda_\max$) and with
#   inputs $10^{-8}$ radians apart (condition number about $10^{16}$), at finite $t$. **Do not form $\Theta^{-1}$
#   and do not solve a linear system with $\Theta$** (`inv`, `solve`, `cholesky`): there they fail or return
#   garbage. Work in the eigenbasis, and compute $1 - e^{-x}$ as `-torch.expm1(-x)` (for tiny $x$,
#   `1 - torch.exp(-x)` loses all digits); give the limit $\eta t/n$ where $\lambda_i = 0$ exactly.
# - $t = 0$ must give exactly the initial output $0$; $t$ = `math.inf` must give the limit, ridgeless kernel
#   regression $\Theta(x^*, X)\,\Theta^{-1}y$ (then $h(\lambda) = 1/\lambda$). At $t = \infty$ the tests use
#   well-conditioned kernels only (condition number below $10^4$, no repeated inputs).
# - Eigenvalues computed by `eigh` may be slightly negative (about $-10^{-16}\lambda_\max$); the formula for $h$
#   is still right for them, or clamp them to $0$.
#
# **Tolerance:** entrywise $|\text{yours} - \text{ref}| \le 10^{-6}|\text{ref}| + 10^{-8}\max_i|y_i|$; the
# reference is the eigenbasis formula (`nh.linearized_dynamics` for finite $t$). **Do not call**
# `nh.linearized_dynamics`, `nh.ensemble_prediction` or `nh.kernel_regression` in your answer: the tests forbid
# them, and an answer that calls one fails that test.
#
# **A worked example** (check yours by hand): $\Theta = \begin{pmatrix}2 & 1\\ 1 & 2\end{pmatrix}$,
# $\Theta(x^*, X) = (1\;\; 0.5)$, $y = (1, 0)$, $\eta = 1$, $n = 2$, $t = 1$. The eigenpairs are $\lambda = 3$,
# $v = (1, 1)/\sqrt2$ and $\lambda = 1$, $v = (1, -1)/\sqrt2$; $v\cdot y = 1/\sqrt2$ for both, and
# $\Theta(x^*, X)\,v = 1.5/\sqrt2$ and $0.5/\sqrt2$. So
# $f_1(x^*) = \tfrac{1.5}{2}\cdot\tfrac{1 - e^{-1.5}}{3} + \tfrac{0.5}{2}\cdot\tfrac{1 - e^{-0.5}}{1} = 0.29259$, and
# the training outputs are $f_1(X) = (0.58517,\ 0.19170)$.
#
# <details><summary>Hint</summary>
#
# `lam, V = torch.linalg.eigh(ntk_train)`; the coordinates of $y$ in the eigenbasis are `V.T @ y`; multiply them by
# $h(\lambda_i)$, go back with `V @ ...`, and apply `ntk_test_train`. `torch.where` gives the $\lambda = 0$ case
# (but avoid dividing by an exact zero in the branch that is not taken: replace those $\lambda$ by 1 there).
# </details>
#
# ---
#
# **中文**
#
# **(a) `flow_prediction(ntk_train, ntk_test_train, y, t, eta)` → $f_t(x^*)$**
#
# **参数。** `ntk_train` 是 $\Theta(X, X)$，形状为 $(n, n)$ 的 float64 torch 张量，对称半正定；
# `ntk_test_train` 是 $\Theta(x^*, X)$，float64，形状为 $(m, n)$；`y` 是训练标签，float64，形状为 $(n,)$；
# `t` $\ge 0$ 是训练时间，一个 Python 浮点数，可以是 `0.0`、任意有限值或 `math.inf`；`eta` $> 0$ 是学习率。
# 上面的 `problem(...)` 可以生成这样的参数。
#
# **返回** $m$ 个测试输出 $f_t(x^*)$，形状为 $(m,)$（任意浮点类型的 torch 张量、numpy 数组或列表均可），
# 用 **float64** 计算。把 `ntk_train` 本身作为 `ntk_test_train` 传入，得到的就是训练输出
# $f_t(X) = (I - e^{-\eta\Theta t/n})\,y$。
#
# **数值上的边界情形。** 写 $\Theta = \sum_i \lambda_i v_i v_i^\top$（`torch.linalg.eigh`），则
# $\Theta^{-1}(I - e^{-\eta\Theta t/n}) = \sum_i h(\lambda_i)\,v_i v_i^\top$，其中
# $h(\lambda) = \bigl(1 - e^{-\eta\lambda t/n}\bigr)/\lambda$。$h$ 没有任何危险：$0 \le h(\lambda) \le \eta t/n$，
# 且 $\lambda\to 0$ 时 $h(\lambda)\to\eta t/n$。所以即使 $\Theta$ 奇异，$f_t$ 也是有限且有定义的，
# 而单独的 $\Theta^{-1}$ 却不存在。测试用到了这一点：
# - 隐藏测试包括含有**重复输入**的训练集（$X$ 中有两行完全相同而标签不同：$\Theta$ 严格奇异，算出的特征值约为
#   $\pm10^{-16}\lambda_\max$），以及两个输入相距 $10^{-8}$ 弧度的训练集（条件数约为 $10^{16}$），$t$ 都是有限的。
#   **不要构造 $\Theta^{-1}$，也不要用 $\Theta$ 解线性方程组**（`inv`、`solve`、`cholesky`）：在那里它们会失败或
#   给出无意义的结果。请在特征基中计算，并把 $1 - e^{-x}$ 算作 `-torch.expm1(-x)`（$x$ 极小时
#   `1 - torch.exp(-x)` 会丢掉全部有效数字）；在 $\lambda_i$ 恰好为 $0$ 处取极限 $\eta t/n$。
# - $t = 0$ 必须恰好给出初始输出 $0$；$t$ = `math.inf` 必须给出极限，即无岭核回归
#   $\Theta(x^*, X)\,\Theta^{-1}y$（此时 $h(\lambda) = 1/\lambda$）。在 $t = \infty$ 处测试只用良态的核
#   （条件数小于 $10^4$，没有重复输入）。
# - `eigh` 算出的特征值可能略小于零（约 $-10^{-16}\lambda_\max$）；对它们 $h$ 的公式依然正确，也可以把它们截断为 $0$。
#
# **容差：** 逐元素地要求 $|\text{你的值} - \text{参考值}| \le 10^{-6}|\text{参考值}| + 10^{-8}\max_i|y_i|$；
# 参考值是特征基中的公式（有限 $t$ 时用 `nh.linearized_dynamics`）。答案中**不要调用**
# `nh.linearized_dynamics`、`nh.ensemble_prediction` 或 `nh.kernel_regression`：测试禁止调用它们，
# 调用了其中之一的答案不能通过该测试。
#
# **一个算例**（可以手算核对）：$\Theta = \begin{pmatrix}2 & 1\\ 1 & 2\end{pmatrix}$，
# $\Theta(x^*, X) = (1\;\; 0.5)$，$y = (1, 0)$，$\eta = 1$，$n = 2$，$t = 1$。特征对为 $\lambda = 3$、
# $v = (1, 1)/\sqrt2$ 和 $\lambda = 1$、$v = (1, -1)/\sqrt2$；两者都有 $v\cdot y = 1/\sqrt2$，而
# $\Theta(x^*, X)\,v$ 分别为 $1.5/\sqrt2$ 和 $0.5/\sqrt2$。所以
# $f_1(x^*) = \tfrac{1.5}{2}\cdot\tfrac{1 - e^{-1.5}}{3} + \tfrac{0.5}{2}\cdot\tfrac{1 - e^{-0.5}}{1} = 0.29259$，
# 训练输出为 $f_1(X) = (0.58517,\ 0.19170)$。
#
# <details><summary>提示</summary>
#
# `lam, V = torch.linalg.eigh(ntk_train)`；$y$ 在特征基中的坐标是 `V.T @ y`；把它们乘以 $h(\lambda_i)$，
# 用 `V @ ...` 变换回去，再作用上 `ntk_test_train`。$\lambda = 0$ 的情形可以用 `torch.where` 处理
# （但在不被选中的分支里也不要除以严格的零：在那里把这些 $\lambda$ 换成 1）。
# </details>

# %% nbgrader={"grade": false, "solution": true, "locked": false, "grade_id": "flow_prediction", "schema_version": 3}
def flow_prediction(ntk_train, ntk_test_train, y, t, eta):
    ### BEGIN SOLUTION
    rate = eta / len(y)
    lam, V = torch.linalg.eigh(ntk_train)
    safe = torch.where(lam == 0, torch.ones_like(lam), lam)
    h = torch.where(lam == 0, torch.full_like(lam, rate * t), -torch.expm1(-rate * lam * t) / safe)
    return ntk_test_train @ (V @ (h * (V.T @ y)))
    ### END SOLUTION

# %% [markdown] nbgrader={"grade": false, "solution": false, "locked": true, "grade_id": "part_b", "schema_version": 3}
# ## (b) `matching_ridge(eigenvalues, t, eta, n)` → the ridge that early stopping imitates, per eigenvalue
#
# Along the eigenvector $v_i$, gradient flow stopped at time $t$ keeps the fraction $1 - e^{-\eta\lambda_i t/n}$ of
# $v_i\cdot y$ (the training outputs above). Kernel ridge regression with penalty $\rho$,
# $f = \Theta(x^*, X)(\Theta + \rho I)^{-1}y$, keeps the fraction $\lambda_i/(\lambda_i + \rho)$. For each eigenvalue
# return the ridge $\rho_i \ge 0$ that keeps the same fraction:
#
# $$\frac{\lambda_i}{\lambda_i + \rho_i} = 1 - e^{-\eta\lambda_i t/n}.$$
#
# Solve this for $\rho_i$ yourself. Where $\lambda_i = 0$ both sides are $0$ for every $\rho$: return the limit of
# $\rho_i$ as $\lambda_i \to 0$, which is $n/(\eta t)$ (lesson 07's "roughly $\rho \approx n/(\eta t)$").
#
# **Arguments and answer.** `eigenvalues`: a float64 torch tensor of shape $(k,)$ with entries $\lambda_i \ge 0$
# (from exactly $0$ and tiny values such as $10^{-300}$ up to $10^{6}$); `t` $> 0$ finite, `eta` $> 0$, `n` $\ge 1$
# an int. Return $(\rho_1, \dots, \rho_k)$, shape $(k,)$, finite, in float64. At large $\eta\lambda_i t/n$ the exact
# $\rho_i$ is tiny (it underflows to $0$ beyond about 745), and $0$ is then accepted. **Tolerance:**
# $|\text{yours} - \text{ref}| \le 10^{-9}|\text{ref}| + 10^{-12}\,n/(\eta t)$. As in (a), tiny $\eta\lambda_i t/n$
# needs `expm1`: $e^{x} - 1$ computed as `exp(x) - 1` is $0$ for $x < 10^{-16}$ and off by $10^{-16}/x$ relative above.
#
# **Worked example:** `matching_ridge(torch.tensor([0.0, 1.0, 3.0]), 1.0, 1.0, 2)` returns $(2,\ 1.54149,\ 0.86165)$.
#
# ---
#
# **中文**
#
# **(b) `matching_ridge(eigenvalues, t, eta, n)` → 早停所模仿的岭，逐个特征值**
#
# 沿特征向量 $v_i$，在时间 $t$ 停止的梯度流保留 $v_i\cdot y$ 的 $1 - e^{-\eta\lambda_i t/n}$ 这一部分（见上面的
# 训练输出）。惩罚为 $\rho$ 的核岭回归 $f = \Theta(x^*, X)(\Theta + \rho I)^{-1}y$ 保留的比例是
# $\lambda_i/(\lambda_i + \rho)$。对每个特征值，返回保留相同比例的岭 $\rho_i \ge 0$：
#
# $$\frac{\lambda_i}{\lambda_i + \rho_i} = 1 - e^{-\eta\lambda_i t/n}.$$
#
# 请自己从这个式子解出 $\rho_i$。在 $\lambda_i = 0$ 处两边对任何 $\rho$ 都等于 $0$：返回 $\lambda_i \to 0$ 时
# $\rho_i$ 的极限，即 $n/(\eta t)$（第 07 课中的“大致 $\rho \approx n/(\eta t)$”）。
#
# **参数与返回值。** `eigenvalues`：形状为 $(k,)$ 的 float64 torch 张量，各元素 $\lambda_i \ge 0$（从严格的 $0$
# 和 $10^{-300}$ 这样极小的值一直到 $10^{6}$）；`t` $> 0$ 且有限，`eta` $> 0$，`n` $\ge 1$ 是整数。
# 返回 $(\rho_1, \dots, \rho_k)$，形状为 $(k,)$，有限，float64。当 $\eta\lambda_i t/n$ 很大时，精确的 $\rho_i$
# 极小（超过约 745 就下溢为 $0$），此时返回 $0$ 也算对。**容差：**
# $|\text{你的值} - \text{参考值}| \le 10^{-9}|\text{参考值}| + 10^{-12}\,n/(\eta t)$。与 (a) 一样，$\eta\lambda_i t/n$
# 极小时要用 `expm1`：把 $e^{x} - 1$ 算成 `exp(x) - 1`，在 $x < 10^{-16}$ 时得 $0$，在更大的 $x$ 处
# 也有约 $10^{-16}/x$ 的相对误差。
#
# **算例：** `matching_ridge(torch.tensor([0.0, 1.0, 3.0]), 1.0, 1.0, 2)` 返回 $(2,\ 1.54149,\ 0.86165)$。

# %% nbgrader={"grade": false, "solution": true, "locked": false, "grade_id": "matching_ridge", "schema_version": 3}
def matching_ridge(eigenvalues, t, eta, n):
    ### BEGIN SOLUTION
    lam = torch.as_tensor(eigenvalues, dtype=torch.float64)
    s = eta * lam * t / n
    safe = torch.where(lam > 0, torch.expm1(s), torch.ones_like(s))
    return torch.where(lam > 0, lam / safe, torch.full_like(lam, n / (eta * t)))
    ### END SOLUTION

# %% nbgrader={"grade": false, "solution": false, "locked": true, "grade_id": "test_tools", "schema_version": 3}
# The tests' tools: your functions, checked (type, shape, finite values, no call to the package's dynamics), and the
# comparisons. They come after your answers, so that a helper of yours with the same name cannot replace them.
# 测试工具：加了检查的你的函数（类型、形状、有限值、不得调用软件包的动力学函数）以及比较方式。
# 它们位于你的答案之后，这样你自己的同名辅助函数不会替换它们。
from ntk_helpers.theory import dynamics as _dynamics  # noqa: E402

FORBIDDEN = ((nh, "linearized_dynamics"), (nh, "ensemble_prediction"), (nh, "kernel_regression"),
             (_dynamics, "_eigen"))


def check_flow(K, Ks, y, t, eta, reference):
    """|yours - ref| <= 1e-6 |ref| + 1e-8 max|y|, entrywise. / 逐元素 |你的值 - 参考值| <= 1e-6 |参考值| + 1e-8 max|y|。"""
    call = (f"flow_prediction(ntk_train {tuple(K.shape)}, ntk_test_train {tuple(Ks.shape)}, y, t={t:g}, "
            f"eta={eta:g})")
    with forbid(*FORBIDDEN):
        answer = flow_prediction(K.clone(), Ks.clone(), y.clone(), t, eta)
    answer = as_float64(answer, name=call, shape=(Ks.shape[0],))
    check_close(answer, reference, rtol=1e-6, atol=1e-8 * float(y.abs().max()), name=call)


def check_ridge(eigenvalues, t, eta, n, reference):
    """|yours - ref| <= 1e-9 |ref| + 1e-12 n/(eta t), entrywise. / 逐元素 |你的值 - 参考值| <= 1e-9 |参考值| + 1e-12 n/(eta t)。"""
    eigenvalues = torch.as_tensor(eigenvalues, dtype=torch.float64)
    call = f"matching_ridge(eigenvalues ({len(eigenvalues)},), t={t:g}, eta={eta:g}, n={n})"
    answer = as_float64(matching_ridge(eigenvalues.clone(), t, eta, n), name=call, shape=(len(eigenvalues),))
    check_close(answer, reference, rtol=1e-9, atol=1e-12 * n / (eta * t), name=call)

# %% nbgrader={"grade": true, "solution": false, "locked": true, "points": 1, "grade_id": "test_visible", "schema_version": 3}
# Visible tests: (a) the worked example, and a problem with n = 8 (condition number 61) at eta = 0.5, t = 0, 3, 40 and
# infinity, test and training outputs; (b) the worked example and the eigenvalues of that problem's kernel.
# They catch a sign error in the exponent, a missing eta or 1/n, t = infinity or t = 0 not handled, and in (b) the
# inverted relation rho = eta t / n and the constant rho = n / (eta t).
# Tolerances: `check_flow`, `check_ridge` (the tests' tools). Measured errors of correct float64 variants in every
# visible and hidden test (eigh with expm1 in torch or NumPy, the block matrix exponential, Taylor series for small
# arguments): at most 7e-6 of the allowed error in (a), 6e-5 in (b) (the Taylor series at s = 1e-3).
# 可见测试：(a) 算例，以及 n = 8 的问题（条件数 61），eta = 0.5，t = 0、3、40 和无穷大，测试输出和训练输出；
# (b) 算例，以及该问题的核的特征值。它们能发现：指数的符号错误、漏了 eta 或 1/n、没有处理 t = 无穷大或 t = 0，
# 以及 (b) 中颠倒的关系 rho = eta t / n 和常数 rho = n / (eta t)。
# 容差：`check_flow`、`check_ridge`（测试工具）。正确的 float64 写法（torch 或 NumPy 中用 expm1 的 eigh、分块矩阵
# 指数、小参数处的泰勒级数）在所有可见和隐藏测试中的实测误差：(a) 至多为允许误差的 7e-6，
# (b) 至多 6e-5（s = 1e-3 处的泰勒级数）。
T2 = torch.tensor([[2.0, 1.0], [1.0, 2.0]], dtype=torch.float64)
check_flow(T2, torch.tensor([[1.0, 0.5]], dtype=torch.float64), torch.tensor([1.0, 0.0], dtype=torch.float64),
           1.0, 1.0, torch.tensor([0.29258479503473], dtype=torch.float64))
check_flow(T2, T2, torch.tensor([1.0, 0.0], dtype=torch.float64), 1.0, 1.0,
           torch.tensor([0.58516959006947, 0.19170024978290], dtype=torch.float64))
K, Ks, y = problem(8, 5, seed=0)
for t in (0.0, 3.0, 40.0):
    for test_train in (Ks, K):
        check_flow(K, test_train, y, t, 0.5,
                   nh.linearized_dynamics(K, y, [t], lr=0.5, ntk_test_train=test_train).test[0])
check_flow(K, Ks, y, math.inf, 0.5, Ks @ torch.linalg.solve(K, y))
check_ridge([0.0, 1.0, 3.0], 1.0, 1.0, 2, [2.0, 1.5414940825368, 0.86165075036660])
check_ridge(torch.linalg.eigvalsh(K), 3.0, 0.5, 8,
            [5.2423356565419, 5.2161986828707, 5.1654732283771, 4.4235889924338, 4.2184470692787, 2.5414860850103,
             1.9216669017476, 1.5779265302225])
print("visible tests passed / 可见测试全部通过")

# %% nbgrader={"grade": true, "solution": false, "locked": true, "points": 1, "grade_id": "test_flow_hidden", "schema_version": 3}
# Hidden tests (a): other seeds and sizes (n = 13, 40; condition numbers below 1e4), eta = 0.3 and 1.7,
# t from 0 to 1e7 and infinity, test and training outputs.
# 隐藏测试 (a)：其他种子和尺寸（n = 13、40；条件数小于 1e4），eta = 0.3 和 1.7，t 从 0 到 1e7 以及无穷大，
# 测试输出和训练输出。
### BEGIN HIDDEN TESTS
for n, n_test, seed, eta in [(13, 7, 11, 0.3), (40, 25, 12, 1.7)]:
    K, Ks, y = problem(n, n_test, seed)
    assert float(torch.linalg.cond(K)) < 1e4
    for t in (0.0, 0.37, 12.0, 1e3, 1e7):
        for test_train in (Ks, K):
            check_flow(K, test_train, y, t, eta,
                       nh.linearized_dynamics(K, y, [t], lr=eta, ntk_test_train=test_train).test[0])
    check_flow(K, Ks, y, math.inf, eta, Ks @ torch.linalg.solve(K, y))
    check_flow(K, K, y, math.inf, eta, y)
### END HIDDEN TESTS

# %% nbgrader={"grade": true, "solution": false, "locked": true, "points": 1, "grade_id": "test_singular_hidden", "schema_version": 3}
# Hidden tests (a) at the numerical edge: a repeated training input (Theta exactly singular) and two pairs of inputs
# 1e-8 radians apart (condition number ~1e16), n = 24, eta = 0.8, t = 0.5, 3, 100; test and training outputs.
# Measured (error / allowed error): eigh with expm1 (torch, NumPy) and the block matrix exponential at most 3e-7;
# torch.linalg.solve: LinAlgError on the repeated input, up to 1.4 at 1e-8 apart; an explicit inverse: LinAlgError,
# and 1e4 to 1e7 at 1e-8 apart (it is exact only in exact arithmetic, and only for a regular Theta).
# 隐藏测试 (a) 的数值边界：一个重复的训练输入（Theta 严格奇异）以及两对相距 1e-8 弧度的输入（条件数约 1e16），
# n = 24，eta = 0.8，t = 0.5、3、100；测试输出和训练输出。实测（误差 / 允许误差）：用 expm1 的 eigh（torch、NumPy）
# 和分块矩阵指数至多 3e-7；torch.linalg.solve：重复输入时报 LinAlgError，相距 1e-8 时可达 1.4；显式求逆：
# LinAlgError，相距 1e-8 时为 1e4 到 1e7（它只在精确算术中、且只对非奇异的 Theta 才正确）。
### BEGIN HIDDEN TESTS
for seed, options in [(21, dict(repeat=True)), (22, dict(near=1e-8)), (23, dict(repeat=True, near=1e-8))]:
    K, Ks, y = problem(24, 30, seed, **options)
    for t in (0.5, 3.0, 100.0):
        for test_train in (Ks, K):
            check_flow(K, test_train, y, t, 0.8,
                       nh.linearized_dynamics(K, y, [t], lr=0.8, ntk_test_train=test_train).test[0])
### END HIDDEN TESTS

# %% nbgrader={"grade": true, "solution": false, "locked": true, "points": 1, "grade_id": "test_ridge_hidden", "schema_version": 3}
# Hidden tests (b): eigenvalues 0, 1e-300, 1e-30, 1e-12, 1e-3 ... 1e6 and those of a singular kernel (some computed
# slightly negative, clamped to 0), n = 40 and 24, t from 1e-3 to 1e6 (eta lambda t / n from 0 to 1.5e10: expm1
# overflows to infinity, rho = 0). The reference: lambda / expm1(eta lambda t / n), n / (eta t) at lambda = 0.
# Measured: exp(x) - 1 instead of expm1 fails (rho = inf at lambda = 1e-300, relative error 1e-2 at lambda = 1e-12).
# 隐藏测试 (b)：特征值 0、1e-300、1e-30、1e-12、1e-3 ... 1e6，以及一个奇异核的特征值（有些算出来略小于零，截断为 0），
# n = 40 和 24，t 从 1e-3 到 1e6（eta lambda t / n 从 0 到 1.5e10：expm1 上溢为无穷大，rho = 0）。参考值：
# lambda / expm1(eta lambda t / n)，lambda = 0 处为 n / (eta t)。实测：用 exp(x) - 1 代替 expm1 不能通过
# （lambda = 1e-300 时 rho = inf，lambda = 1e-12 时相对误差 1e-2）。
### BEGIN HIDDEN TESTS
def ridge_reference(eigenvalues, t, eta, n):
    lam = torch.as_tensor(eigenvalues, dtype=torch.float64)
    s = eta * lam * t / n
    return torch.where(lam > 0, lam / torch.where(lam > 0, torch.expm1(s), torch.ones_like(s)),
                       torch.full_like(lam, n / (eta * t)))


edge = torch.tensor([0.0, 1e-300, 1e-30, 1e-12, 1e-3, 0.1, 1.0, 10.0, 1e3, 1e6], dtype=torch.float64)
for t in (1e-3, 1.0, 50.0, 1e6):
    check_ridge(edge, t, 0.6, 40, ridge_reference(edge, t, 0.6, 40))
singular = torch.linalg.eigvalsh(problem(24, 1, 23, repeat=True, near=1e-8)[0]).clamp_min(0)
for t in (0.5, 100.0, 1e4):
    check_ridge(singular, t, 1.3, 24, ridge_reference(singular, t, 1.3, 24))
### END HIDDEN TESTS

# %% [markdown] nbgrader={"grade": false, "solution": false, "locked": true, "grade_id": "measure_intro", "schema_version": 3}
# ### Measure (not graded)
#
# Lesson 07's experiment with your functions: 20 noisy training points ($n = 20$, label noise 0.5), $\eta = 1$,
# 200 test angles. For several stopping times it prints the test error of the stopped flow, the test error of ridge
# regression with $\rho = n/(\eta t)$ (`nh.kernel_regression`), and the smallest and largest of your
# $\rho_i(t)$ over the eigenvalues of $\Theta$. Use these numbers in (c).
#
# ---
#
# **中文**
#
# **测量（不计分）**
#
# 用你的函数重做第 07 课的实验：20 个带噪声的训练点（$n = 20$，标签噪声 0.5），$\eta = 1$，200 个测试角度。
# 对若干个停止时间，它打印停止后的梯度流的测试误差、$\rho = n/(\eta t)$ 的岭回归的测试误差
# （`nh.kernel_regression`），以及在 $\Theta$ 的各特征值上你的 $\rho_i(t)$ 的最小值和最大值。(c) 中要用到这些数。

# %% nbgrader={"grade": false, "solution": false, "locked": true, "grade_id": "measure", "schema_version": 3}
K, Ks, y = problem(20, 200, seed=0)
test = draw_angles(20, 200, seed=0)[1]
truth = torch.sin(2 * test) + 0.5 * torch.cos(test)             # the noise-free target at the test inputs
lam = torch.linalg.eigvalsh(K).clamp_min(0)
print(f"{'t':>8} {'flow test MSE':>14} {'ridge n/(eta t)':>16} {'min rho_i':>10} {'max rho_i':>10} {'n/(eta t)':>10}")
for t in (1.0, 3.0, 10.0, 30.0, 100.0, 1e3, 1e6):
    flow = as_float64(flow_prediction(K, Ks, y, t, 1.0))
    ridge = nh.kernel_regression(K, Ks, y, ridge=20 / t)
    rho = as_float64(matching_ridge(lam, t, 1.0, 20))
    print(f"{t:>8g} {float(((flow - truth) ** 2).mean()):>14.4f} {float(((ridge - truth) ** 2).mean()):>16.4f} "
          f"{float(rho.min()):>10.3g} {float(rho.max()):>10.3g} {20 / t:>10.3g}")
flow = as_float64(flow_prediction(K, Ks, y, math.inf, 1.0))
print(f"{'inf':>8} {float(((flow - truth) ** 2).mean()):>14.4f}   (ridgeless interpolation / 无岭插值)")

# %% [markdown] nbgrader={"grade": false, "solution": false, "locked": true, "grade_id": "part_c", "schema_version": 3}
# ## (c) In what sense is early stopping a ridge?
#
# 1. Your $\rho_i(t)$ depend on the eigenvalue. Show that $\rho_i(t) \le n/(\eta t)$ for every $\lambda_i$, that
#    $\rho_i(t) \approx n/(\eta t)$ where $\eta\lambda_i t/n \ll 1$, and say what happens to $\rho_i(t)$ where
#    $\eta\lambda_i t/n \gg 1$. What does that mean for the directions that stopping at $t$ fits compared with ridge
#    regression at $\rho = n/(\eta t)$, and why do the two still give similar test errors (the table above)?
# 2. Why do both beat training to convergence on these noisy labels, and what is the limit $t\to\infty$: ridge or
#    ridgeless regression? (Compare [errata A19](../../ERRATA.md#a19).)
#
# <details><summary>Hint</summary>
#
# Write $s = \eta\lambda_i t/n$; then $\rho_i = \lambda_i/(e^{s} - 1)$ and $e^{s} - 1 \ge s$. Compare the two filters
# $1 - e^{-s}$ and $\lambda/(\lambda + \rho)$ at large $\lambda$: how fast does each approach 1? Lesson 07, section
# "3. Early stopping is an implicit ridge", and its summary.
# </details>
#
# ---
#
# **中文**
#
# **(c) 在什么意义上早停是一种岭正则化？**
#
# 1. 你的 $\rho_i(t)$ 依赖于特征值。证明对每个 $\lambda_i$ 都有 $\rho_i(t) \le n/(\eta t)$；在
#    $\eta\lambda_i t/n \ll 1$ 处 $\rho_i(t) \approx n/(\eta t)$；再说明在 $\eta\lambda_i t/n \gg 1$ 处
#    $\rho_i(t)$ 会怎样。与 $\rho = n/(\eta t)$ 的岭回归相比，这对在 $t$ 时停止所拟合的方向意味着什么？
#    为什么两者的测试误差仍然相近（见上表）？
# 2. 在这些带噪声的标签上，为什么两者都优于训练到收敛？$t\to\infty$ 的极限是岭回归还是无岭回归？
#    （对照[勘误 A19](../../ERRATA.md#a19)。）
#
# 可以用英文或中文作答。
#
# <details><summary>提示</summary>
#
# 记 $s = \eta\lambda_i t/n$；则 $\rho_i = \lambda_i/(e^{s} - 1)$，且 $e^{s} - 1 \ge s$。在 $\lambda$ 很大处比较两个
# 滤波器 $1 - e^{-s}$ 和 $\lambda/(\lambda + \rho)$：各自以多快的速度趋于 1？见第 07 课“3. 早停是一种隐式的岭正则化”
# 一节及其小结。
# </details>

# %% [markdown] nbgrader={"grade": true, "solution": true, "locked": false, "points": 2, "grade_id": "answer_c", "schema_version": 3}
# **Rubric (for the grader; the whole cell is replaced by "YOUR ANSWER HERE" in the student version).**
#
# 1 point, question 1. ½: the bound and the small-eigenvalue limit: with $s = \eta\lambda_i t/n$,
# $\rho_i = \lambda_i/(e^s - 1) \le \lambda_i/s = n/(\eta t)$ because $e^s - 1 \ge s$, with equality as $s\to 0$;
# for $s \gg 1$, $\rho_i \approx \lambda_i e^{-s}\to 0$ exponentially (the table: the largest $\rho_i$ never
# exceeds $n/(\eta t)$ and is close to it at $t = 1$; the smallest is far below it from $t = 3$ on and underflows
# to 0). ½: the consequence: along large-eigenvalue (smooth) directions the stopped flow keeps $1 - e^{-s}$,
# exponentially close to 1, while the ridge keeps $\lambda/(\lambda + \rho)$, only algebraically close, so the flow
# shrinks these directions less; both keep small-eigenvalue (wiggly) directions at about the same small fraction
# $\approx\lambda\eta t/n$, and those are the directions where the label noise does its damage, so the test errors
# are of the same size (table: best 0.030 for the flow at $t = 10$, 0.032 for the ridge at $t = 30$, against
# 0.112 for interpolation). A bare "λ ≈ 1/(ηt)" without the
# eigenvalue dependence gets at most ½.
#
# 1 point, question 2: with noisy labels the small-eigenvalue directions of $y$ are mostly noise; both methods
# suppress them, so both beat interpolation. As $t\to\infty$ every $\rho_i\to 0$: the flow converges to
# **ridgeless** kernel regression (interpolation, the last row of the table), not to ridge regression; a ridge needs
# an explicit penalty (e.g. towards the initial parameters, errata A19). An answer saying that training to
# convergence *is* ridge regression gets 0 for this point.
#
# **Model answer.**
# 1. With $s = \eta\lambda_i t/n$ the matching ridge is $\rho_i = \lambda_i/(e^{s} - 1)$. Since $e^s - 1 \ge s$,
#    $\rho_i \le \lambda_i/s = n/(\eta t)$, with near-equality when $s \ll 1$: for the small eigenvalues early stopping
#    acts exactly like a ridge $n/(\eta t)$. For $s \gg 1$, $\rho_i \approx \lambda_i e^{-s}$ vanishes exponentially:
#    the flow fits its large-eigenvalue directions almost completely ($1 - e^{-s}$), whereas the ridge still shrinks
#    them by $\lambda/(\lambda + \rho)$. The two filters differ only on the directions that are fitted well by both;
#    on the small-eigenvalue directions, which carry most of the noise, they agree, so the test errors are close.
# 2. Those small-eigenvalue directions of noisy labels are mostly noise; interpolating them (ridgeless regression)
#    transfers the noise to the test predictions, which both early stopping and the ridge avoid. As $t\to\infty$
#    all $\rho_i\to 0$ and the flow becomes ridgeless kernel regression: training to convergence is not ridge
#    regression; a ridge appears only with an explicit penalty.
