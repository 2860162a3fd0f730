# %% [markdown] nbgrader={"grade": false, "solution": false, "locked": true, "grade_id": "intro", "schema_version": 3}
# # Exercise 4.3 · Depth scaling of a ResNet NTK
#
# *Chapter 4.3, lesson 04.* Model (lesson 04, section 4.3.1; `nh.resnet(L, alpha=alpha)`):
# $x^{(0)} = \frac{\sigma_w}{\sqrt d}W^{(0)}x$; $x^{(l)} = x^{(l-1)} + \alpha\,\frac{\sigma_w}{\sqrt m}W^{(l)}\,\mathrm{relu}(x^{(l-1)})$
# for $l = 1..L$; $f = \frac{1}{\sqrt m}v^\top x^{(L)}$; $\sigma_w^2 = 2$, no biases, NTK parameterization, every weight
# $\mathcal N(0, 1)$ and trained. The chapter argues each block adds $O(1)$, so the NTK is $O(L)$ without scaling
# and $O(1)$ with $\alpha = 1/\sqrt L$, and elsewhere that the total is $O(\sqrt L)$. Compute it.
#
# Do not call the package's kernels in your answer: the test cells forbid the two entry points they use for the
# reference values, any layer's `.kernel(...)` (`nh.resnet(...).kernel`, `nh.residual(...).kernel`, ...) and
# `nh.Kernel.from_inputs`, and an answer that calls one of them fails that test. Everything else is allowed (torch,
# numpy, math, and your own ReLU duals). Points: (a) 1 + 3 hidden, (b) 2 manual.
#
# ---
#
# **中文** · 习题 4.3 · ResNet NTK 的深度缩放
#
# *第 4.3 节，第 04 课。* 模型（第 04 课 4.3.1 节；`nh.resnet(L, alpha=alpha)`）：
# $x^{(0)} = \frac{\sigma_w}{\sqrt d}W^{(0)}x$；对 $l = 1..L$，
# $x^{(l)} = x^{(l-1)} + \alpha\,\frac{\sigma_w}{\sqrt m}W^{(l)}\,\mathrm{relu}(x^{(l-1)})$；
# $f = \frac{1}{\sqrt m}v^\top x^{(L)}$；$\sigma_w^2 = 2$，无偏置，NTK 参数化，每个权重都服从 $\mathcal N(0, 1)$
# 并且都参与训练。本章论证说每个块贡献 $O(1)$，所以不缩放时 NTK 为 $O(L)$，取 $\alpha = 1/\sqrt L$ 时为 $O(1)$；
# 另一处又说总量是 $O(\sqrt L)$。请把它算出来。
#
# 答案中不要调用软件包的核：测试单元禁止它们用来计算参考值的两个入口，即任何层的 `.kernel(...)`
# （`nh.resnet(...).kernel`、`nh.residual(...).kernel` 等）和 `nh.Kernel.from_inputs`，调用了其中之一的答案
# 不能通过该测试。其他一切都可以用（torch、numpy、math，以及你自己写的 ReLU 对偶函数）。分值：(a) 1 分（可见测试）+ 3 分（隐藏测试），(b) 2 分（人工评分）。

# %% nbgrader={"grade": false, "solution": false, "locked": true, "grade_id": "setup", "schema_version": 3}
import math

import numpy as np
import torch
import ntk_helpers as nh
from ntk_helpers.course.grading import as_float64, check_close, forbid


# %% [markdown] nbgrader={"grade": false, "solution": false, "locked": true, "grade_id": "part_a", "schema_version": 3}
# ## (a) `resnet_ntk(X, L, alpha)` → the NTK $\Theta_f$ of all pairs of inputs
#
# At infinite width, with $E^{(l-1)}$ and $\dot E^{(l-1)}$ the ReLU duals (lesson 02) evaluated at the triple
# $q_{11} = \Sigma^{(l-1)}(x,x)$, $q_{22} = \Sigma^{(l-1)}(x',x')$, $q_{12} = \Sigma^{(l-1)}(x,x')$:
#
# $$\Sigma^{(0)} = \Theta^{(0)} = \sigma_w^2\,\frac{x\cdot x'}{d}, \qquad
#   \Sigma^{(l)} = \Sigma^{(l-1)} + \alpha^2\sigma_w^2 E^{(l-1)}, \qquad
#   \Theta^{(l)} = \bigl(1 + \alpha^2\sigma_w^2\dot E^{(l-1)}\bigr)\Theta^{(l-1)} + \alpha^2\sigma_w^2E^{(l-1)},$$
#
# and the readout gives $\Theta_f = \Sigma^{(L)} + \Theta^{(L)}$.
#
# The ReLU duals, with $s = \sqrt{q_{11}q_{22}}$ and $\theta = \arccos(q_{12}/s)$ (Cho & Saul 2009; exercise 4.1):
# $E = \frac{s}{2\pi}\bigl(\sin\theta + (\pi - \theta)\cos\theta\bigr)$ and $\dot E = \frac{\pi - \theta}{2\pi}$.
#
# `X` is a float64 torch tensor of shape (n, d), `L` $\ge 1$ an integer and `alpha` $> 0$ a number. The tests use
# $\alpha = 1$ up to $L = 64$ (with $\alpha = 1$ the NTK grows like $2^L$, and near $L = 500$ products of variances
# overflow float64) and $\alpha \le 1/\sqrt L$ up to $L = 512$. Return $\Theta_f(x_i, x_j)$ as an (n, n) array (a
# torch tensor of any float dtype, a numpy array or a nested list). Compute with torch, numpy or Python floats,
# vectorized or with loops, with any correct formula (e.g. $\arccos$ or $\arctan2$, $\sqrt{q_{11}q_{22}}$ or
# $\sqrt{q_{11}}\sqrt{q_{22}}$), in **float64**. *Tolerance:* entrywise
# $|\text{yours} - \text{ref}| \le 10^{-6}\,|\text{ref}| + 10^{-7}\max|\text{ref}|$ (the maximum over the matrix),
# against the package's values or, for the diagonal, the closed form of hint 2. Rounding can push
# $q_{12}/\sqrt{q_{11}q_{22}}$ past $\pm1$ by one unit in the last place (on the diagonal): clip it to $[-1, 1]$
# before taking $\arccos$.
#
# <details><summary>Hint 1: the variances</summary>
#
# The duals need both variances of the pair, and they grow from block to block. Carry them along (lesson 02,
# "Why the triple matters"): $\Sigma^{(l)}(x,x) = \Sigma^{(l-1)}(x,x) + \alpha^2\sigma_w^2 E(q, q, q)$ with
# $E(q, q, q) = q/2$ for ReLU, or simply update the whole Gram matrix and read its diagonal.
# </details>
#
# <details><summary>Hint 2: a check</summary>
#
# For inputs with $|x|^2 = d$ (so $q_0 = \Sigma^{(0)}(x,x) = 2$) the diagonal has the closed form
# $\Theta_f(x,x) = q_0(1+\gamma)^L\big(2 + \frac{L\gamma}{1+\gamma}\big)$ with $\gamma = \alpha^2\sigma_w^2/2$, the growth
# per block (lesson 04, section 4.3.2). The off-diagonal entries need the full duals.
# </details>
#
# ---
#
# **中文** · (a) `resnet_ntk(X, L, alpha)` → 所有输入对的 NTK $\Theta_f$
#
# 在无限宽极限下，记 $E^{(l-1)}$ 和 $\dot E^{(l-1)}$ 为 ReLU 的对偶函数（第 02 课），在三元组
# $q_{11} = \Sigma^{(l-1)}(x,x)$、$q_{22} = \Sigma^{(l-1)}(x',x')$、$q_{12} = \Sigma^{(l-1)}(x,x')$ 处取值：
#
# $$\Sigma^{(0)} = \Theta^{(0)} = \sigma_w^2\,\frac{x\cdot x'}{d}, \qquad
#   \Sigma^{(l)} = \Sigma^{(l-1)} + \alpha^2\sigma_w^2 E^{(l-1)}, \qquad
#   \Theta^{(l)} = \bigl(1 + \alpha^2\sigma_w^2\dot E^{(l-1)}\bigr)\Theta^{(l-1)} + \alpha^2\sigma_w^2E^{(l-1)},$$
#
# 读出层给出 $\Theta_f = \Sigma^{(L)} + \Theta^{(L)}$。
#
# ReLU 的对偶函数：令 $s = \sqrt{q_{11}q_{22}}$，$\theta = \arccos(q_{12}/s)$（Cho & Saul 2009；习题 4.1），则
# $E = \frac{s}{2\pi}\bigl(\sin\theta + (\pi - \theta)\cos\theta\bigr)$，$\dot E = \frac{\pi - \theta}{2\pi}$。
#
# `X` 是形状为 (n, d) 的 float64 torch 张量，`L` $\ge 1$ 是整数，`alpha` $> 0$ 是一个数。测试中 $\alpha = 1$ 时
# $L$ 最大为 64（$\alpha = 1$ 时 NTK 按 $2^L$ 增长，$L$ 接近 500 时方差的乘积会超出 float64 的范围），
# $\alpha \le 1/\sqrt L$ 时 $L$ 最大为 512。以 (n, n) 数组的形式返回 $\Theta_f(x_i, x_j)$（任意浮点类型的
# torch 张量、numpy 数组或嵌套列表均可）。可以用 torch、numpy 或 Python 浮点数计算，向量化或用循环均可，
# 公式只要正确即可（例如用 $\arccos$ 或 $\arctan2$，用 $\sqrt{q_{11}q_{22}}$ 或 $\sqrt{q_{11}}\sqrt{q_{22}}$），
# 但要用 **float64**。*容差：* 逐元素地要求
# $|\text{你的值} - \text{参考值}| \le 10^{-6}\,|\text{参考值}| + 10^{-7}\max|\text{参考值}|$（最大值取遍整个矩阵），
# 参考值是软件包给出的值，对角线则是提示 2 中的闭式值。舍入可能使 $q_{12}/\sqrt{q_{11}q_{22}}$ 超出 $\pm1$
# 一个末位单位（在对角线上）：取 $\arccos$ 之前先把它裁剪到 $[-1, 1]$。
#
# <details><summary>提示 1：方差</summary>
#
# 对偶函数需要输入对的两个方差，而方差逐块增长。把它们一起递推（第 02 课“为什么需要三元组”）：
# $\Sigma^{(l)}(x,x) = \Sigma^{(l-1)}(x,x) + \alpha^2\sigma_w^2 E(q, q, q)$，对 ReLU 有 $E(q, q, q) = q/2$；
# 也可以直接更新整个 Gram 矩阵，再读出它的对角线。
# </details>
#
# <details><summary>提示 2：一个检验</summary>
#
# 对满足 $|x|^2 = d$ 的输入（于是 $q_0 = \Sigma^{(0)}(x,x) = 2$），对角线有闭式表达式
# $\Theta_f(x,x) = q_0(1+\gamma)^L\big(2 + \frac{L\gamma}{1+\gamma}\big)$，其中 $\gamma = \alpha^2\sigma_w^2/2$ 是每个块的
# 增长率（第 04 课 4.3.2 节）。
# 非对角元素需要完整的对偶函数。
# </details>

# %% nbgrader={"grade": false, "solution": true, "locked": false, "grade_id": "resnet_ntk", "schema_version": 3}
def resnet_ntk(X, L, alpha):
    ### BEGIN SOLUTION
    w2 = 2.0
    sigma = w2 * X @ X.T / X.shape[1]
    theta = sigma.clone()
    for _ in range(L):
        var = torch.diagonal(sigma)
        q = var[:, None] * var[None, :]
        r = (q - sigma ** 2).clamp_min(0).sqrt()
        angle = torch.atan2(r, sigma)
        e = (r + (math.pi - angle) * sigma) / (2 * math.pi)
        e_dot = (math.pi - angle) / (2 * math.pi)
        theta = (1 + alpha ** 2 * w2 * e_dot) * theta + alpha ** 2 * w2 * e
        sigma = sigma + alpha ** 2 * w2 * e
    return sigma + theta
    ### END SOLUTION

# %% nbgrader={"grade": false, "solution": false, "locked": true, "grade_id": "test_tools", "schema_version": 3}
# The tests' tools: the comparison, and your function, checked (type, shape, no call to the package's kernels).
# They come after your answer, so that a helper of yours with the same name cannot replace them.
# 测试工具：比较方式，以及加了检查的你的函数（类型、形状、不得调用软件包的核）。
# 它们位于你的答案之后，这样你自己的同名辅助函数不会替换它们。
# The comparison, entrywise: |answer - reference| <= 1e-6 |reference| + 1e-7 max|reference|.
# 比较方式（逐元素）：|答案 - 参考值| <= 1e-6 |参考值| + 1e-7 max|参考值|。
from ntk_helpers.course.grading import check_kernel as check_answer  # noqa: E402


def checked_resnet_ntk(X, L, alpha):
    call = f"resnet_ntk(X, {L}, {alpha:.6g})"
    with forbid((nh.Layer, "kernel"), (nh.Kernel, "from_inputs")):
        return as_float64(resnet_ntk(X.clone(), L, alpha), name=call, shape=(len(X), len(X))), call

# %% nbgrader={"grade": true, "solution": false, "locked": true, "points": 1, "grade_id": "test_visible", "schema_version": 3}
# Visible tests: L = 3, alpha = 0.5 against the package; the closed-form diagonal at L = 1, alpha = 1 (gamma = 1).
# Tolerance: `check_answer` (the tests' tools).
# 可见测试：L = 3、alpha = 0.5 时与软件包对照；L = 1、alpha = 1（gamma = 1）时对角线的闭式值。
# 容差：`check_answer`（测试工具）。
X = nh.sphere(5, 4, seed=0)                 # |x|^2 = d, so q0 = sigma_w^2 = 2
reference = nh.resnet(3, alpha=0.5).kernel(X).ntk
theta, call = checked_resnet_ntk(X, 3, 0.5)
check_answer(theta, reference, call)
theta, call = checked_resnet_ntk(X, 1, 1.0)
expected = torch.full((5,), 2.0 * 2 * 2.5, dtype=torch.float64)           # q0 (1+g)(2 + g/(1+g)) with gamma = 1
check_answer(torch.diagonal(theta), expected, f"torch.diagonal({call})")
print("visible tests passed / 可见测试全部通过")

# %% nbgrader={"grade": true, "solution": false, "locked": true, "points": 1, "grade_id": "test_diagonal_hidden", "schema_version": 3}
# Hidden tests: the closed-form diagonal for L = 1..64 and alpha = 1, 1/sqrt(L), 1/L.
# 隐藏测试：L = 1..64，alpha = 1、1/sqrt(L)、1/L 时对角线的闭式值。
### BEGIN HIDDEN TESTS
S = nh.sphere(6, 5, seed=3)
for L in (1, 4, 16, 64):
    for alpha in (1.0, L ** -0.5, 1 / L):
        gamma = alpha ** 2
        expected = torch.full((6,), 2.0 * (1 + gamma) ** L * (2 + L * gamma / (1 + gamma)), dtype=torch.float64)
        theta, call = checked_resnet_ntk(S, L, alpha)
        check_answer(torch.diagonal(theta), expected, f"torch.diagonal({call})")
### END HIDDEN TESTS

# %% nbgrader={"grade": true, "solution": false, "locked": true, "points": 1, "grade_id": "test_offdiagonal_hidden", "schema_version": 3}
# Hidden tests: every entry against the package, inputs of different norms, parallel (3x) and antipodal (-x) pairs.
# 隐藏测试：每个元素都与软件包对照，输入的范数各不相同，包括平行（3x）和反向（-x）的输入对。
# Measured (err / allowed error, largest entry): arctan2, arccos of K/(sd sd^T) or of K/sqrt(v v^T), Python floats per
# pair, the unrolled product form: 0.215 at L = 64, alpha = 1, on the pair (x, 3x) (correlation 1 at every block: the
# ulp-level error of Edot there, 2.4e-9, compounds over 64 blocks; the same figure for every variant, the reference's
# own rounding), at most 7e-4 elsewhere; diagonal and depth cells at most 0.05. Hence alpha = 1 only up to L = 64.
# 实测（误差 / 允许误差，取最大的元素）：arctan2、对 K/(sd sd^T) 或 K/sqrt(v v^T) 取 arccos、逐对用 Python 浮点数、
# 展开的乘积形式：在 L = 64、alpha = 1 时的输入对 (x, 3x) 上为 0.215（每个块的相关系数都是 1：Edot 在那里
# 末位级别的误差 2.4e-9 经 64 个块累积；各种写法的数值相同，来自参考值自身的舍入），其他地方至多 7e-4；
# 对角线和深度两个单元至多 0.05。所以 alpha = 1 时 L 最大只取 64。
### BEGIN HIDDEN TESTS
g = torch.Generator().manual_seed(31)
Y = torch.randn(6, 4, generator=g, dtype=torch.float64)
Y = Y * torch.linspace(0.5, 2.0, 6, dtype=torch.float64)[:, None]
Y = torch.cat([Y, 3 * Y[:1], -Y[1:2]])
for L, alpha in [(6, 0.4), (20, 20 ** -0.5), (2, 1.0), (64, 1.0)]:
    reference = nh.resnet(L, alpha=alpha).kernel(Y).ntk
    theta, call = checked_resnet_ntk(Y, L, alpha)
    check_answer(theta, reference, call)
### END HIDDEN TESTS

# %% nbgrader={"grade": true, "solution": false, "locked": true, "points": 1, "grade_id": "test_depth_hidden", "schema_version": 3}
# Hidden tests: the depth scaling: growth ~2^L for alpha = 1, the limits 3e q0 and 2 q0 at L = 512.
# 隐藏测试：深度缩放：alpha = 1 时按约 2^L 增长；L = 512 时的极限 3e q0 与 2 q0。
### BEGIN HIDDEN TESTS
S = nh.sphere(4, 3, seed=5)
diagonal = {L: float(checked_resnet_ntk(S, L, 1.0)[0][0, 0]) for L in (32, 64)}
rate = (diagonal[64] / diagonal[32]) ** (1 / 32)
assert 1.9 < rate < 2.1, (f"alpha = 1: Theta(x,x) grows by {rate:.4f} per block (L = 32 to 64), not ~2 / "
                          f"alpha = 1 时 Theta(x,x) 每个块乘以 {rate:.4f}（L = 32 到 64），而不是约 2")
limit = float(checked_resnet_ntk(S, 512, 512 ** -0.5)[0][0, 0]) / 2.0
assert abs(limit - 3 * math.e) < 0.05, (f"alpha = 1/sqrt(L), L = 512: Theta(x,x)/q0 = {limit:.4f}, not ~3e / "
                                        f"alpha = 1/sqrt(L)、L = 512 时 Theta(x,x)/q0 = {limit:.4f}，而不是约 3e")
limit = float(checked_resnet_ntk(S, 512, 1 / 512)[0][0, 0]) / 2.0
assert abs(limit - 2) < 0.01, (f"alpha = 1/L, L = 512: Theta(x,x)/q0 = {limit:.4f}, expected ~2 / "
                               f"alpha = 1/L、L = 512 时 Theta(x,x)/q0 = {limit:.4f}，应约为 2")
reference = nh.resnet(512, alpha=512 ** -0.5).kernel(S).ntk
theta, call = checked_resnet_ntk(S, 512, 512 ** -0.5)
check_answer(theta, reference, call)
### END HIDDEN TESTS

# %% [markdown] nbgrader={"grade": false, "solution": false, "locked": true, "grade_id": "part_b", "schema_version": 3}
# ## (b) How does the NTK scale with $L$ for $\alpha = 1$, $1/\sqrt L$, $1/L$, and what is wrong with "$\sum_l O(1/\sqrt L) = O(\sqrt L)$"?
#
# ---
#
# **中文** · (b) 当 $\alpha = 1$、$1/\sqrt L$、$1/L$ 时，NTK 如何随 $L$ 变化？“$\sum_l O(1/\sqrt L) = O(\sqrt L)$”错在哪里？
#
# 可以用英文或中文作答。

# %% [markdown] nbgrader={"grade": true, "solution": true, "locked": false, "points": 2, "grade_id": "answer_b", "schema_version": 3}
# **Rubric (for the grader; the whole cell is replaced by "YOUR ANSWER HERE" in the student version).**
#
# 1 point: per block the scale is multiplied by $1 + \alpha^2\sigma_w^2\mathbb E[\phi'^2]$: $\alpha = 1$ gives exponential
# growth ($\approx 2^L$), $\alpha = 1/\sqrt L$ a bounded limit ($3e\,q_0$), $\alpha = 1/L$ vanishing branches ($2q_0$).
# The chapter's additive $O(L)$ premise holds only under its additivity assumption.
# 1 point: the NTK sums squared gradient norms over separate parameter blocks: $L\cdot\alpha^2\cdot O(1)$, so $O(1)$
# for $\alpha = 1/\sqrt L$; adding $O(1/\sqrt L)$ amplitudes is the wrong arithmetic.
#
# **Model answer.**
# Each block multiplies both the forward variance and the backward signal by $(1 + \alpha^2\sigma_w^2/2)$ for ReLU:
# exponential growth for $\alpha=1$, a bounded limit $3e\,q_0$ for $\alpha = 1/\sqrt L$, and $2q_0$ for $\alpha = 1/L$.
# Different blocks have different parameters, so their contributions to the NTK are squared gradient norms of
# order $\alpha^2$ that add up to $L\alpha^2 = O(1)$; summing amplitudes $O(1/\sqrt L)$ is meaningless.
