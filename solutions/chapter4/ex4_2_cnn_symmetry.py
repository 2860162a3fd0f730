# %% [markdown] nbgrader={"grade": false, "solution": false, "locked": true, "grade_id": "intro", "schema_version": 3}
# # Exercise 4.2 · Which shift symmetries does a CNN kernel have, and which readout gives them?
#
# *Chapter 4.2, lesson 03.* The chapter asks why CNN kernels are "equivariant rather than invariant" and claims the
# Gram matrix over data depends on the "relative position" of inputs. That premise mixes up data and pixel indices,
# so the question is re-posed: compute a 1-D CNN kernel yourself and test its symmetries.
#
# **Architecture** (conventions of `ntk_helpers`, NTK parameterization): inputs $x$ with $C$ channels and $P$
# positions (1-D signals); `depth` blocks of [convolution with filter size $k$, $\sigma_w^2 = 2$, no bias → ReLU];
# then the readout `"gap"` (average over positions) or `"flatten"`; then a dense layer to one output with
# $\sigma_w = 1$ and no bias. The convolution adds the inputs at the $k$ offsets
# $a \in S_k = \{-\lfloor\tfrac{k-1}{2}\rfloor, \dots, \lfloor\tfrac k2\rfloor\}$: $\{-1, 0, 1\}$ for $k = 3$, and for an even
# $k$ the extra offset is on the right, $\{0, 1\}$ for $k = 2$ and $\{-1, 0, 1, 2\}$ for $k = 4$ (the package pads
# the smaller half on the left, as `nn.Conv2d(padding="same")` does; lesson 03, "Padding convention"). Padding
# `"circular"` wraps positions around (modulo $P$), padding `"same"` treats positions outside $0..P-1$ as zeros.
#
# **Kernel recursion.** Every quantity is a tensor $T_{p,p'}(x, x')$ over a pair of inputs and a pair of positions.
# Start from $F_{p,p'} = \frac1C\sum_c x_{c,p}\,x'_{c,p'}$ and $G = 0$. Each block does
#
# - convolution: $\Sigma_{p,p'} = \frac{\sigma_w^2}{k}\sum_{a\in S_k} F_{p+a,\,p'+a}$ and
#   $\Theta_{p,p'} = \Sigma_{p,p'} + \frac{\sigma_w^2}{k}\sum_{a\in S_k} G_{p+a,\,p'+a}$ (padded entries of $F, G$: 0 or
#   wrapped);
# - ReLU: $F_{p,p'} = E$ and $G_{p,p'} = \dot E\,\Theta_{p,p'}$, the ReLU duals at $q_{11} = \Sigma_{p,p}(x,x)$,
#   $q_{22} = \Sigma_{p',p'}(x',x')$, $q_{12} = \Sigma_{p,p'}(x,x')$: with $s = \sqrt{q_{11}q_{22}}$ and
#   $\theta = \arccos(q_{12}/s)$, $E = \frac{s}{2\pi}\bigl(\sin\theta + (\pi - \theta)\cos\theta\bigr)$ and
#   $\dot E = \frac{\pi - \theta}{2\pi}$ (Cho & Saul 2009; exercise 4.1).
#
# The readout after the last block gives the NTK of the output:
#
# - `"gap"`: $\Theta_f(x,x') = \frac{1}{P^2}\sum_{p,p'}\big(F_{p,p'} + G_{p,p'}\big)$;
# - `"flatten"`: $\Theta_f(x,x') = \frac{1}{P}\sum_{p}\big(F_{p,p} + G_{p,p}\big)$ (diagonal positions only, and $1/P$,
#   not $1/P^2$: flatten's fan-in is $C\cdot P$).
#
# Do not call the package's kernels in your answer: the test cells forbid the two entry points they use for the
# reference values, any layer's `.kernel(...)` (`nh.conv(...).kernel`, `nh.serial(...).kernel`, ...) and
# `nh.Kernel.from_inputs`, and an answer that calls one of them fails that test. Everything else is allowed (torch,
# numpy, math). Points: (a) 1 + 3 hidden, (b) 2 manual.
#
# ---
#
# **中文** · 习题 4.2 · CNN 的核有哪些平移对称性？哪种读出层带来这些对称性？
#
# *第 4.2 节，第 03 课。* 本章问为什么 CNN 的核是“等变而非不变”的，并断言数据上的 Gram 矩阵
# 取决于输入的“相对位置”。这个前提把数据的下标和像素的下标混为一谈，因此我们把问题改为：
# 自己计算一个一维 CNN 的核，并检验它的对称性。
#
# **网络结构**（`ntk_helpers` 的约定，NTK 参数化）：输入 $x$ 有 $C$ 个通道、$P$ 个位置（一维信号）；
# `depth` 个块，每块为 [滤波器大小为 $k$、$\sigma_w^2 = 2$、无偏置的卷积 → ReLU]；
# 然后是读出层 `"gap"`（对位置取平均，即全局平均池化）或 `"flatten"`（展平）；
# 最后是一个输出为一维的全连接层，$\sigma_w = 1$，无偏置。卷积把 $k$ 个偏移
# $a \in S_k = \{-\lfloor\tfrac{k-1}{2}\rfloor, \dots, \lfloor\tfrac k2\rfloor\}$ 处的输入相加：$k = 3$ 时为 $\{-1, 0, 1\}$；
# $k$ 为偶数时多出的那个偏移在右边，$k = 2$ 时为 $\{0, 1\}$，$k = 4$ 时为 $\{-1, 0, 1, 2\}$（软件包把较少的一半
# 填充放在左边，与 `nn.Conv2d(padding="same")` 相同；第 03 课“填充约定”）。填充方式 `"circular"`
# 把位置首尾相接（对 $P$ 取模），填充方式 `"same"` 把 $0..P-1$ 以外的位置当作零。
#
# **核的递归。** 每个量都是一个张量 $T_{p,p'}(x, x')$，其下标是一对输入和一对位置。
# 从 $F_{p,p'} = \frac1C\sum_c x_{c,p}\,x'_{c,p'}$ 和 $G = 0$ 开始。每个块做以下两步：
#
# - 卷积：$\Sigma_{p,p'} = \frac{\sigma_w^2}{k}\sum_{a\in S_k} F_{p+a,\,p'+a}$，
#   $\Theta_{p,p'} = \Sigma_{p,p'} + \frac{\sigma_w^2}{k}\sum_{a\in S_k} G_{p+a,\,p'+a}$（$F, G$ 的填充元素取 0 或循环取值）；
# - ReLU：$F_{p,p'} = E$，$G_{p,p'} = \dot E\,\Theta_{p,p'}$，其中 $E, \dot E$ 是 ReLU 的对偶函数，
#   在 $q_{11} = \Sigma_{p,p}(x,x)$、$q_{22} = \Sigma_{p',p'}(x',x')$、$q_{12} = \Sigma_{p,p'}(x,x')$ 处取值：令
#   $s = \sqrt{q_{11}q_{22}}$，$\theta = \arccos(q_{12}/s)$，则 $E = \frac{s}{2\pi}\bigl(\sin\theta + (\pi - \theta)\cos\theta\bigr)$，
#   $\dot E = \frac{\pi - \theta}{2\pi}$（Cho & Saul 2009；习题 4.1）。
#
# 最后一个块之后的读出层给出输出的 NTK：
#
# - `"gap"`：$\Theta_f(x,x') = \frac{1}{P^2}\sum_{p,p'}\big(F_{p,p'} + G_{p,p'}\big)$；
# - `"flatten"`：$\Theta_f(x,x') = \frac{1}{P}\sum_{p}\big(F_{p,p} + G_{p,p}\big)$（只取对角位置，而且系数是 $1/P$，
#   不是 $1/P^2$：flatten 的扇入是 $C\cdot P$）。
#
# 答案中不要调用软件包的核：测试单元禁止它们用来计算参考值的两个入口，即任何层的 `.kernel(...)`
# （`nh.conv(...).kernel`、`nh.serial(...).kernel` 等）和 `nh.Kernel.from_inputs`，调用了其中之一的答案
# 不能通过该测试。其他一切都可以用（torch、numpy、math）。分值：(a) 1 分（可见测试）+ 3 分（隐藏测试），(b) 2 分（人工评分）。

# %% nbgrader={"grade": false, "solution": false, "locked": true, "grade_id": "setup", "schema_version": 3}
import math

import numpy as np
import torch
import ntk_helpers as nh
from ntk_helpers.course.grading import as_float64, check_close, forbid


# %% [markdown] nbgrader={"grade": false, "solution": false, "locked": true, "grade_id": "part_a", "schema_version": 3}
# ## (a) `cntk_1d(X, depth, k, readout, padding)` → the NTK $\Theta_f$ of all pairs of inputs
#
# `X` is a float64 torch tensor of shape (n, C, P); `depth` $\ge 1$ an integer (up to 3 in the tests); `k` the filter
# size, an integer with $1 \le k \le P$, odd or even ($k = 2, 3, 4, 5$ and $P = 7, 8$ in the tests); `readout` is
# `"gap"` or `"flatten"`; `padding` is `"circular"` or `"same"`. Return $\Theta_f(x_i, x_j)$ as an (n, n) array (a
# torch tensor of any float dtype, a numpy array or a nested list: a float32 *result* of a float64 computation is
# fine, its rounding, about 6e-8, is far inside the tolerance). The tests' inputs are random normal, so every
# variance $q_{11}, q_{22}$ is positive: $s = 0$ never occurs. Compute with torch or numpy, vectorized or with
# loops, with any correct formula ($\arccos$ or $\arctan2$, ...), in **float64**. *Tolerance:* entrywise
# $|\text{yours} - \text{ref}| \le 10^{-6}\,|\text{ref}| + 10^{-7}\max|\text{ref}|$ (the maximum over the matrix),
# against the package's values; the tests include antipodal inputs ($x' = -x$), where the correlation is exactly
# $-1$ and correct formulas differ by a few $10^{-9}$. Rounding can push $q_{12}/\sqrt{q_{11}q_{22}}$ past $\pm1$ by
# one unit in the last place (at $x = x'$, $p = p'$): clip it to $[-1, 1]$ before taking $\arccos$.
#
# <details><summary>Hint 1: shapes and the convolution step</summary>
#
# Keep $F$, $G$, $\Sigma$, $\Theta$ as tensors of shape (n, n, P, P) (lesson 03, section 4.2.1). The convolution
# sums each tensor along shifted diagonals of its (p, p') block: with circular padding
# `torch.roll(F, shifts=(-a, -a), dims=(2, 3))` is $F_{p+a,\,p'+a}$; with `"same"` padding copy the overlapping
# slice into a zero tensor instead. The offsets: `range(-((k - 1) // 2), k // 2 + 1)`.
# </details>
#
# <details><summary>Hint 2: the ReLU step</summary>
#
# The variances sit on the double diagonal: $\Sigma_{p,p}(x_i, x_i)$ is `torch.einsum("iipp->ip", S)`, shape (n, P).
# Broadcast it to (n, n, P, P) for $q_{11}$ (index $i, p$) and $q_{22}$ (index $j, p'$), then apply the ReLU duals
# elementwise, e.g. with $\theta = \arccos\big(q_{12}/\sqrt{q_{11}q_{22}}\big)$ (clip the argument to $[-1, 1]$).
# </details>
#
# ---
#
# **中文** · (a) `cntk_1d(X, depth, k, readout, padding)` → 所有输入对的 NTK $\Theta_f$
#
# `X` 是形状为 (n, C, P) 的 float64 torch 张量；`depth` $\ge 1$ 是整数（测试中最大为 3）；`k` 是滤波器大小，
# 为满足 $1 \le k \le P$ 的整数，奇偶均可（测试中 $k = 2, 3, 4, 5$，$P = 7, 8$）；`readout` 为 `"gap"` 或
# `"flatten"`；`padding` 为 `"circular"` 或 `"same"`。以 (n, n) 数组的形式返回 $\Theta_f(x_i, x_j)$
# （任意浮点类型的 torch 张量、numpy 数组或嵌套列表均可：用 float64 算出、以 float32 返回也可以，其舍入误差约 6e-8，
# 远在容差之内）。测试的输入是随机正态的，所以每个方差 $q_{11}, q_{22}$ 都是正数，不会出现 $s = 0$。
# 可以用 torch 或 numpy 计算，向量化或用循环均可，
# 公式只要正确即可（$\arccos$ 或 $\arctan2$ 等），但要用 **float64**。*容差：* 逐元素地要求
# $|\text{你的值} - \text{参考值}| \le 10^{-6}\,|\text{参考值}| + 10^{-7}\max|\text{参考值}|$（最大值取遍整个矩阵），
# 参考值由软件包给出；测试包含反向的输入（$x' = -x$），此时相关系数恰好为 $-1$，正确的公式之间会相差几个
# $10^{-9}$。舍入可能使 $q_{12}/\sqrt{q_{11}q_{22}}$ 超出 $\pm1$ 一个末位单位（在 $x = x'$、$p = p'$ 处）：
# 取 $\arccos$ 之前先把它裁剪到 $[-1, 1]$。
#
# <details><summary>提示 1：形状与卷积步</summary>
#
# 把 $F$、$G$、$\Sigma$、$\Theta$ 存为形状 (n, n, P, P) 的张量（第 03 课 4.2.1 节）。卷积沿每个张量的 (p, p') 块中
# 平移后的对角线求和：采用循环填充时，`torch.roll(F, shifts=(-a, -a), dims=(2, 3))` 就是 $F_{p+a,\,p'+a}$；
# 采用 `"same"` 填充时，改为把重叠的切片复制到一个全零张量中。偏移取 `range(-((k - 1) // 2), k // 2 + 1)`。
# </details>
#
# <details><summary>提示 2：ReLU 步</summary>
#
# 方差位于双重对角线上：$\Sigma_{p,p}(x_i, x_i)$ 是 `torch.einsum("iipp->ip", S)`，形状为 (n, P)。
# 把它广播到 (n, n, P, P)，作为 $q_{11}$（下标 $i, p$）和 $q_{22}$（下标 $j, p'$），然后逐元素套用 ReLU 的
# 对偶函数，例如用 $\theta = \arccos\big(q_{12}/\sqrt{q_{11}q_{22}}\big)$（把参数裁剪到 $[-1, 1]$）。
# </details>

# %% nbgrader={"grade": false, "solution": true, "locked": false, "grade_id": "cntk_1d", "schema_version": 3}
def cntk_1d(X, depth, k, readout, padding):
    ### BEGIN SOLUTION
    n, channels, positions = X.shape
    offsets = range(-((k - 1) // 2), k - (k - 1) // 2)

    def conv(t):                                   # (n, n, P, P): shared-offset sum over both positions
        out = torch.zeros_like(t)
        for o in offsets:
            if padding == "circular":
                out += torch.roll(t, shifts=(-o, -o), dims=(2, 3))
            else:
                src = slice(max(o, 0), positions + min(o, 0))
                dst = slice(max(-o, 0), positions - max(o, 0))
                out[:, :, dst, dst] += t[:, :, src, src]
        return 2.0 * out / k

    f = torch.einsum("icp,jcq->ijpq", X, X) / channels
    g = torch.zeros_like(f)
    for _ in range(depth):
        sigma = conv(f)
        theta = sigma + conv(g)
        var = torch.einsum("iipp->ip", sigma)                     # (n, P): Sigma_pp(x_i, x_i)
        q = var[:, None, :, None] * var[None, :, None, :]
        r = (q - sigma ** 2).clamp_min(0).sqrt()
        angle = torch.atan2(r, sigma)
        f = (r + (math.pi - angle) * sigma) / (2 * math.pi)
        g = (math.pi - angle) / (2 * math.pi) * theta
    if readout == "gap":
        return (f + g).mean((2, 3))
    return torch.diagonal(f + g, dim1=2, dim2=3).mean(-1)
    ### END SOLUTION

# %% nbgrader={"grade": false, "solution": false, "locked": true, "grade_id": "test_tools", "schema_version": 3}
# The tests' tools: the comparison, the reference kernel (the package, with images of height 1), and your function,
# checked. They come after your answer, so that a helper of yours with the same name cannot replace them.
# 测试工具：比较方式、参考核（由软件包计算，把信号当作高度为 1 的图像），以及加了检查的你的函数。
# 它们位于你的答案之后，这样你自己的同名辅助函数不会替换它们。
# The comparison, entrywise: |answer - reference| <= 1e-6 |reference| + 1e-7 max|reference|.
# 比较方式（逐元素）：|答案 - 参考值| <= 1e-6 |参考值| + 1e-7 max|参考值|。
from ntk_helpers.course.grading import check_kernel as check_answer  # noqa: E402


def reference_cntk(X, depth, k, readout, padding):
    conv = lambda: nh.conv(kernel_size=(1, k), padding=padding, sigma_w=math.sqrt(2))
    pool = nh.global_avg_pool() if readout == "gap" else nh.flatten()
    return nh.serial(*[conv(), nh.relu()] * depth, pool, nh.dense(1)).kernel(X[:, :, None, :]).ntk


def checked_cntk(X, depth, k, readout, padding):
    call = f"cntk_1d(X, {depth}, {k}, {readout!r}, {padding!r})"
    with forbid((nh.Layer, "kernel"), (nh.Kernel, "from_inputs")):
        value = cntk_1d(X.clone(), depth, k, readout, padding)
    return as_float64(value, name=call, shape=(len(X), len(X))), call

# %% nbgrader={"grade": true, "solution": false, "locked": true, "points": 1, "grade_id": "test_visible", "schema_version": 3}
# Visible tests: GAP with circular padding (the values, and the invariance to shifting one input); flatten with an
# even filter size (k = 4, circular); GAP with zero padding at depth 2. Tolerance: `check_answer`.
# 可见测试：循环填充下的 GAP（核的值，以及对平移单个输入的不变性）；偶数滤波器大小（k = 4，循环填充）下的
# flatten；深度为 2、零填充下的 GAP。容差：`check_answer`。
g = torch.Generator().manual_seed(0)
X = torch.randn(4, 2, 8, generator=g, dtype=torch.float64)
theta, call = checked_cntk(X, 2, 3, "gap", "circular")
check_answer(theta, reference_cntk(X, 2, 3, "gap", "circular"), call)
shifted_one = torch.cat([torch.roll(X[:1], 3, dims=-1), X[1:]])           # input 0 shifted by 3 positions
shifted, call = checked_cntk(shifted_one, 2, 3, "gap", "circular")
check_answer(shifted[0, 1:], theta[0, 1:], f"{call.replace('(X,', '(X with X[0] rolled by 3,')}[0, 1:]")
for depth, k, readout, padding in [(1, 4, "flatten", "circular"), (2, 3, "gap", "same")]:
    value, call = checked_cntk(X, depth, k, readout, padding)
    check_answer(value, reference_cntk(X, depth, k, readout, padding), call)
print("visible tests passed / 可见测试全部通过")

# %% nbgrader={"grade": true, "solution": false, "locked": true, "points": 1, "grade_id": "test_flatten_hidden", "schema_version": 3}
# Hidden tests: flatten with circular padding, filter sizes 3, 4, 5, inputs with antipodal (-x) and parallel (2x)
# partners: values; invariant to joint shifts only.
# 隐藏测试：循环填充下的 flatten，滤波器大小为 3、4、5，输入中包括反向（-x）和平行（2x）的输入对：核的值；
# 只对联合平移不变。
# Measured (largest err / allowed error over the four graded cells): arctan2 as in the reference, arccos of
# Sigma/sqrt(v v') (numpy per pair, torch shift matrices, flatten's diagonals only) at most 1.0e-9; arccos of
# Sigma/(sqrt(v) sqrt(v')), which is off by ulps where the correlation is -1 (the antipodal pair, p = p'), 2.2e-3
# of the allowed error: every one of these passes with a wide margin.
# 实测（四个计分单元中最大的 误差 / 允许误差）：与参考值相同的 arctan2，以及对 Sigma/sqrt(v v') 取 arccos
# （numpy 逐对、torch 平移矩阵、flatten 只取对角线）至多 1.0e-9；对 Sigma/(sqrt(v) sqrt(v')) 取 arccos
# （在相关系数为 -1 处，即反向的输入对且 p = p'，会差几个末位单位）为允许误差的 2.2e-3：这些写法都远在容差之内。
### BEGIN HIDDEN TESTS
g = torch.Generator().manual_seed(21)
Y = torch.randn(5, 3, 8, generator=g, dtype=torch.float64)
Y = torch.cat([Y, -Y[:1], 2 * Y[1:2]])
for depth, k in [(2, 3), (1, 5), (2, 4)]:
    flat, call = checked_cntk(Y, depth, k, "flatten", "circular")
    check_answer(flat, reference_cntk(Y, depth, k, "flatten", "circular"), call)
flat, _ = checked_cntk(Y, 2, 3, "flatten", "circular")
joint, call = checked_cntk(torch.roll(Y, 3, dims=-1), 2, 3, "flatten", "circular")
check_answer(joint, flat, call.replace("(X,", "(X rolled by 3,"))
one, _ = checked_cntk(torch.cat([torch.roll(Y[:1], 3, dims=-1), Y[1:]]), 2, 3, "flatten", "circular")
change = float((one[0, 1:] - flat[0, 1:]).abs().max() / flat.abs().max())
assert change > 1e-2, (f"flatten must not be invariant to shifting one input: expected a relative change > 0.01, "
                       f"got {change:.2e} / flatten 不应对平移单个输入保持不变：相对变化应大于 0.01，得到 {change:.2e}")
### END HIDDEN TESTS

# %% nbgrader={"grade": true, "solution": false, "locked": true, "points": 1, "grade_id": "test_same_gap_hidden", "schema_version": 3}
# Hidden tests: GAP with zero ("same") padding against the package, filter sizes 2, 3, 4, 5, depths 2 and 3.
# 隐藏测试：零填充（"same"）下的 GAP 与软件包对照，滤波器大小为 2、3、4、5，深度为 2 和 3。
### BEGIN HIDDEN TESTS
g = torch.Generator().manual_seed(22)
Z = torch.randn(4, 2, 8, generator=g, dtype=torch.float64)
Z = Z * torch.tensor([0.5, 1.0, 1.5, 2.0], dtype=torch.float64)[:, None, None]
Z = torch.cat([Z, -Z[2:3]])
for depth, k in [(2, 3), (3, 5), (2, 4), (3, 2)]:
    value, call = checked_cntk(Z, depth, k, "gap", "same")
    check_answer(value, reference_cntk(Z, depth, k, "gap", "same"), call)
### END HIDDEN TESTS

# %% nbgrader={"grade": true, "solution": false, "locked": true, "points": 1, "grade_id": "test_same_flatten_hidden", "schema_version": 3}
# Hidden tests: flatten with zero ("same") padding against the package, filter sizes 3, 4, 5, depths 1-3, P = 7.
# 隐藏测试：零填充（"same"）下的 flatten 与软件包对照，滤波器大小为 3、4、5，深度 1–3，P = 7。
### BEGIN HIDDEN TESTS
g = torch.Generator().manual_seed(23)
W = torch.randn(3, 3, 7, generator=g, dtype=torch.float64)
W = W * torch.tensor([2.0, 1.0, 0.5], dtype=torch.float64)[:, None, None]
for depth, k in [(1, 3), (3, 3), (2, 5), (2, 4)]:
    value, call = checked_cntk(W, depth, k, "flatten", "same")
    check_answer(value, reference_cntk(W, depth, k, "flatten", "same"), call)
### END HIDDEN TESTS

# %% [markdown] nbgrader={"grade": false, "solution": false, "locked": true, "grade_id": "part_b", "schema_version": 3}
# ## (b) Which symmetries, which readout?
#
# Where does translation *equivariance* live in the kernel, why is the $n\times n$ Gram matrix not Toeplitz, and
# which readout makes the NTK shift *invariant*? Then try zero padding with your own function: with
# `padding="same"`, is the GAP kernel still invariant to shifting one input (compare
# `cntk_1d(X, 2, 3, "gap", "same")` before and after `torch.roll` of one signal), and why, or why not?
#
# ---
#
# **中文** · (b) 哪些对称性？哪种读出层？
#
# 平移*等变性*体现在核的什么地方？为什么 $n\times n$ 的 Gram 矩阵不是 Toeplitz 矩阵？
# 哪种读出层使 NTK 具有平移*不变性*？然后用你自己的函数试一试零填充：取 `padding="same"` 时，GAP 的核
# 对平移单个输入还保持不变吗（用 `torch.roll` 平移一个信号，比较前后的 `cntk_1d(X, 2, 3, "gap", "same")`）？
# 为什么？可以用英文或中文作答。

# %% [markdown] nbgrader={"grade": true, "solution": true, "locked": false, "points": 2, "grade_id": "answer_b", "schema_version": 3}
# **Rubric (for the grader; the whole cell is replaced by "YOUR ANSWER HERE" in the student version).**
#
# 1 point: equivariance is a property of the pixel-pair tensor, $\Sigma_{p+s,p'+s}(T_sx, T_sx') = \Sigma_{p,p'}(x,x')$
# (circular padding); the Gram matrix is indexed by data points, which have no positions, so no Toeplitz structure.
# 1 point: GAP gives $\Theta(T_s x, x') = \Theta(x,x')$; flatten only $\Theta(T_sx, T_sx') = \Theta(x,x')$ and equals the
# locally connected network's kernel; zero padding breaks both (the positions near the borders see zeros instead of
# wrapped values, so a shift changes the kernel: measured with the student's own function).
#
# **Model answer.**
# Convolutions commute with shifts, so the pixel-pair kernel tensor is jointly shift-equivariant; data indices are
# not positions, so the Gram matrix has no Toeplitz structure. Global average pooling averages over all position
# pairs and makes the NTK invariant to shifting one input; flatten keeps only $p = p'$ and is invariant only to
# joint shifts (it is the locally connected kernel). Zero padding breaks both invariances at the borders.
