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
# $\sigma_w = 1$ and no bias. The convolution adds the inputs at offsets
# $a \in \{-\tfrac{k-1}{2}, \dots, \tfrac{k-1}{2}\}$ ($k$ odd); padding `"circular"` wraps positions around
# (modulo $P$), padding `"same"` treats positions outside $0..P-1$ as zeros.
#
# **Kernel recursion.** Every quantity is a tensor $T_{p,p'}(x, x')$ over a pair of inputs and a pair of positions.
# Start from $F_{p,p'} = \frac1C\sum_c x_{c,p}\,x'_{c,p'}$ and $G = 0$. Each block does
#
# - convolution: $\Sigma_{p,p'} = \frac{\sigma_w^2}{k}\sum_a F_{p+a,\,p'+a}$ and
#   $\Theta_{p,p'} = \Sigma_{p,p'} + \frac{\sigma_w^2}{k}\sum_a G_{p+a,\,p'+a}$ (padded entries of $F, G$: 0 or wrapped);
# - ReLU: $F_{p,p'} = E$ and $G_{p,p'} = \dot E\,\Theta_{p,p'}$, the ReLU duals (lesson 02) at
#   $q_{11} = \Sigma_{p,p}(x,x)$, $q_{22} = \Sigma_{p',p'}(x',x')$, $q_{12} = \Sigma_{p,p'}(x,x')$.
#
# The readout after the last block gives the NTK of the output:
#
# - `"gap"`: $\Theta_f(x,x') = \frac{1}{P^2}\sum_{p,p'}\big(F_{p,p'} + G_{p,p'}\big)$;
# - `"flatten"`: $\Theta_f(x,x') = \frac{1}{P}\sum_{p}\big(F_{p,p} + G_{p,p}\big)$ (diagonal positions only, and $1/P$,
#   not $1/P^2$: flatten's fan-in is $C\cdot P$).
#
# Do not call the package's kernels (`nh.conv(...)`, `.kernel`, `nh.Kernel`) in your answer: the tests use them
# as the reference and fail an answer that calls them. Points: (a) 1 + 3 hidden, (b) 2 manual.
#
# ---
#
# **中文**
#
# **习题 4.2 · CNN 的核有哪些平移对称性？哪种读出层带来这些对称性？**
#
# *教材第 4.2 节，第 03 课。* 本章问为什么 CNN 的核是“等变而非不变”的，并断言数据上的 Gram 矩阵
# 取决于输入的“相对位置”。这个前提把数据的下标和像素的下标混为一谈，因此我们把问题改为：
# 自己计算一个一维 CNN 的核，并检验它的对称性。
#
# **网络结构**（`ntk_helpers` 的约定，NTK 参数化）：输入 $x$ 有 $C$ 个通道、$P$ 个位置（一维信号）；
# `depth` 个块，每块为 [滤波器大小为 $k$、$\sigma_w^2 = 2$、无偏置的卷积 → ReLU]；
# 然后是读出层 `"gap"`（对位置取平均，即全局平均池化）或 `"flatten"`（展平）；
# 最后是一个输出为一维的全连接层，$\sigma_w = 1$，无偏置。卷积把偏移
# $a \in \{-\tfrac{k-1}{2}, \dots, \tfrac{k-1}{2}\}$ 处的输入相加（$k$ 为奇数）；填充方式 `"circular"`
# 把位置首尾相接（对 $P$ 取模），填充方式 `"same"` 把 $0..P-1$ 以外的位置当作零。
#
# **核的递归。** 每个量都是一个张量 $T_{p,p'}(x, x')$，其下标是一对输入和一对位置。
# 从 $F_{p,p'} = \frac1C\sum_c x_{c,p}\,x'_{c,p'}$ 和 $G = 0$ 开始。每个块做以下两步：
#
# - 卷积：$\Sigma_{p,p'} = \frac{\sigma_w^2}{k}\sum_a F_{p+a,\,p'+a}$，
#   $\Theta_{p,p'} = \Sigma_{p,p'} + \frac{\sigma_w^2}{k}\sum_a G_{p+a,\,p'+a}$（$F, G$ 的填充元素取 0 或循环取值）；
# - ReLU：$F_{p,p'} = E$，$G_{p,p'} = \dot E\,\Theta_{p,p'}$，其中 $E, \dot E$ 是 ReLU 的对偶函数（第 02 课），
#   在 $q_{11} = \Sigma_{p,p}(x,x)$、$q_{22} = \Sigma_{p',p'}(x',x')$、$q_{12} = \Sigma_{p,p'}(x,x')$ 处取值。
#
# 最后一个块之后的读出层给出输出的 NTK：
#
# - `"gap"`：$\Theta_f(x,x') = \frac{1}{P^2}\sum_{p,p'}\big(F_{p,p'} + G_{p,p'}\big)$；
# - `"flatten"`：$\Theta_f(x,x') = \frac{1}{P}\sum_{p}\big(F_{p,p} + G_{p,p}\big)$（只取对角位置，而且系数是 $1/P$，
#   不是 $1/P^2$：flatten 的扇入是 $C\cdot P$）。
#
# 答案中不要调用软件包的核（`nh.conv(...)`、`.kernel`、`nh.Kernel`）：测试用它们计算参考值，
# 调用了它们的答案判为不通过。分值：(a) 1 分（可见测试）+ 3 分（隐藏测试），(b) 2 分（人工评分）。

# %% nbgrader={"grade": false, "solution": false, "locked": true, "grade_id": "setup", "schema_version": 3}
import math

import numpy as np
import torch
import ntk_helpers as nh
from ntk_helpers.course.grading import as_float64, check_close, forbid

# %% [markdown] nbgrader={"grade": false, "solution": false, "locked": true, "grade_id": "part_a", "schema_version": 3}
# ## (a) `cntk_1d(X, depth, k, readout, padding)` → the NTK $\Theta_f$ of all pairs of inputs
#
# `X` is a float64 torch tensor of shape (n, C, P); `depth` $\ge 1$; `k` an odd filter size (3 or 5 in the tests);
# `readout` is `"gap"` or `"flatten"`; `padding` is `"circular"` or `"same"`. Return $\Theta_f(x_i, x_j)$ as an
# (n, n) array (a torch tensor of any float dtype, a numpy array or a nested list). Compute with torch or numpy,
# vectorized or with loops, in **float64**: the tests compare with the package's reference values to a relative
# tolerance of $10^{-6}$. Rounding can push $q_{12}/\sqrt{q_{11}q_{22}}$ past $\pm1$ by one unit in the last place
# (at $x = x'$, $p = p'$): clip it to $[-1, 1]$ before taking $\arccos$.
#
# <details><summary>Hint 1: shapes and the convolution step</summary>
#
# Keep $F$, $G$, $\Sigma$, $\Theta$ as tensors of shape (n, n, P, P) (lesson 03, section 4.2.1). The convolution
# sums each tensor along shifted diagonals of its (p, p') block: with circular padding
# `torch.roll(F, shifts=(-a, -a), dims=(2, 3))` is $F_{p+a,\,p'+a}$; with `"same"` padding copy the overlapping
# slice into a zero tensor instead.
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
# **中文**
#
# **(a) `cntk_1d(X, depth, k, readout, padding)` → 所有输入对的 NTK $\Theta_f$**
#
# `X` 是形状为 (n, C, P) 的 float64 torch 张量；`depth` $\ge 1$；`k` 是奇数的滤波器大小（测试中为 3 或 5）；
# `readout` 为 `"gap"` 或 `"flatten"`；`padding` 为 `"circular"` 或 `"same"`。以 (n, n) 数组的形式返回
# $\Theta_f(x_i, x_j)$（任意浮点类型的 torch 张量、numpy 数组或嵌套列表均可）。可以用 torch 或 numpy 计算，
# 向量化或用循环均可，但要用 **float64**：测试以 $10^{-6}$ 的相对容差与软件包的参考值比较。
# 舍入可能使 $q_{12}/\sqrt{q_{11}q_{22}}$ 超出 $\pm1$ 一个末位单位（在 $x = x'$、$p = p'$ 处）：
# 取 $\arccos$ 之前先把它裁剪到 $[-1, 1]$。
#
# <details><summary>提示 1：形状与卷积步</summary>
#
# 把 $F$、$G$、$\Sigma$、$\Theta$ 存为形状 (n, n, P, P) 的张量（第 03 课 4.2.1 节）。卷积沿每个张量的 (p, p') 块中
# 平移后的对角线求和：采用循环填充时，`torch.roll(F, shifts=(-a, -a), dims=(2, 3))` 就是 $F_{p+a,\,p'+a}$；
# 采用 `"same"` 填充时，改为把重叠的切片复制到一个全零张量中。
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
# The tests' tools: the reference kernel (the package, with images of height 1), and your function, checked.
# 测试工具：参考核（由软件包计算，把信号当作高度为 1 的图像），以及加了检查的你的函数。
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
# Visible tests: GAP with circular padding, the values and the invariance to shifting one input.
# 可见测试：循环填充下的 GAP：核的值，以及对平移单个输入的不变性。
g = torch.Generator().manual_seed(0)
X = torch.randn(4, 2, 8, generator=g, dtype=torch.float64)
theta, call = checked_cntk(X, 2, 3, "gap", "circular")
reference = reference_cntk(X, 2, 3, "gap", "circular")
check_close(theta, reference, rtol=1e-6, atol=1e-9 * reference.abs().max(), name=call)
scale = float(theta.abs().max())
shifted_one = torch.cat([torch.roll(X[:1], 3, dims=-1), X[1:]])
check_close(checked_cntk(shifted_one, 2, 3, "gap", "circular")[0][0, 1:], theta[0, 1:], rtol=1e-6,
            atol=1e-9 * scale,
            name="GAP, circular padding: the kernel after shifting input 0 by 3 positions (row 0)")
print("visible tests passed / 可见测试全部通过")

# %% nbgrader={"grade": true, "solution": false, "locked": true, "points": 1, "grade_id": "test_flatten_hidden", "schema_version": 3}
# Hidden tests: flatten with circular padding: values; invariant to joint shifts only.
# 隐藏测试：循环填充下的 flatten：核的值；只对联合平移不变。
### BEGIN HIDDEN TESTS
g = torch.Generator().manual_seed(21)
Y = torch.randn(5, 3, 8, generator=g, dtype=torch.float64)
for depth, k in [(2, 3), (1, 5)]:
    flat, call = checked_cntk(Y, depth, k, "flatten", "circular")
    reference = reference_cntk(Y, depth, k, "flatten", "circular")
    check_close(flat, reference, rtol=1e-6, atol=1e-9 * reference.abs().max(), name=call)
flat, _ = checked_cntk(Y, 2, 3, "flatten", "circular")
joint, _ = checked_cntk(torch.roll(Y, 3, dims=-1), 2, 3, "flatten", "circular")
check_close(joint, flat, rtol=1e-6, atol=1e-9 * flat.abs().max(),
            name="flatten, circular: the kernel after shifting every input by 3")
one, _ = checked_cntk(torch.cat([torch.roll(Y[:1], 3, dims=-1), Y[1:]]), 2, 3, "flatten", "circular")
assert float((one[0, 1:] - flat[0, 1:]).abs().max() / flat.abs().max()) > 1e-2, \
    "flatten must not be invariant to shifting one input / flatten 不应对平移单个输入保持不变"
### END HIDDEN TESTS

# %% nbgrader={"grade": true, "solution": false, "locked": true, "points": 1, "grade_id": "test_same_gap_hidden", "schema_version": 3}
# Hidden tests: GAP with zero ("same") padding against the package, filter sizes 3 and 5.
# 隐藏测试：零填充（"same"）下的 GAP 与软件包对照，滤波器大小为 3 和 5。
### BEGIN HIDDEN TESTS
g = torch.Generator().manual_seed(22)
Z = torch.randn(4, 2, 8, generator=g, dtype=torch.float64)
Z = Z * torch.tensor([0.5, 1.0, 1.5, 2.0], dtype=torch.float64)[:, None, None]
for depth, k in [(2, 3), (3, 5)]:
    value, call = checked_cntk(Z, depth, k, "gap", "same")
    reference = reference_cntk(Z, depth, k, "gap", "same")
    check_close(value, reference, rtol=1e-6, atol=1e-9 * reference.abs().max(), name=call)
### END HIDDEN TESTS

# %% nbgrader={"grade": true, "solution": false, "locked": true, "points": 1, "grade_id": "test_same_flatten_hidden", "schema_version": 3}
# Hidden tests: flatten with zero ("same") padding against the package.
# 隐藏测试：零填充（"same"）下的 flatten 与软件包对照。
### BEGIN HIDDEN TESTS
g = torch.Generator().manual_seed(23)
W = torch.randn(3, 3, 7, generator=g, dtype=torch.float64)
W = W * torch.tensor([2.0, 1.0, 0.5], dtype=torch.float64)[:, None, None]
for depth, k in [(1, 3), (3, 3), (2, 5)]:
    value, call = checked_cntk(W, depth, k, "flatten", "same")
    reference = reference_cntk(W, depth, k, "flatten", "same")
    check_close(value, reference, rtol=1e-6, atol=1e-9 * reference.abs().max(), name=call)
### END HIDDEN TESTS

# %% [markdown] nbgrader={"grade": false, "solution": false, "locked": true, "grade_id": "part_b", "schema_version": 3}
# ## (b) Which symmetries, which readout?
#
# Where does translation *equivariance* live in the kernel, why is the $n\times n$ Gram matrix not Toeplitz, and
# which readout makes the NTK shift *invariant*? What changes with zero padding?
#
# ---
#
# **中文**
#
# **(b) 哪些对称性？哪种读出层？**
#
# 平移*等变性*体现在核的什么地方？为什么 $n\times n$ 的 Gram 矩阵不是 Toeplitz 矩阵？
# 哪种读出层使 NTK 具有平移*不变性*？改用零填充时有什么变化？可以用英文或中文作答。

# %% [markdown] nbgrader={"grade": true, "solution": true, "locked": false, "points": 2, "grade_id": "answer_b", "schema_version": 3}
# **Rubric (for the grader; the whole cell is replaced by "YOUR ANSWER HERE" in the student version).**
#
# 1 point: equivariance is a property of the pixel-pair tensor, $\Sigma_{p+s,p'+s}(T_sx, T_sx') = \Sigma_{p,p'}(x,x')$
# (circular padding); the Gram matrix is indexed by data points, which have no positions, so no Toeplitz structure.
# 1 point: GAP gives $\Theta(T_s x, x') = \Theta(x,x')$; flatten only $\Theta(T_sx, T_sx') = \Theta(x,x')$ and equals the
# locally connected network's kernel; zero padding breaks both near the borders.
#
# **Model answer.**
# Convolutions commute with shifts, so the pixel-pair kernel tensor is jointly shift-equivariant; data indices are
# not positions, so the Gram matrix has no Toeplitz structure. Global average pooling averages over all position
# pairs and makes the NTK invariant to shifting one input; flatten keeps only $p = p'$ and is invariant only to
# joint shifts (it is the locally connected kernel). Zero padding breaks exactness at the borders.
