# %% [markdown] nbgrader={"grade": false, "solution": false, "locked": true, "grade_id": "intro", "schema_version": 3}
# # Exercise 4.6 · Alternatives to max pooling
#
# *Chapter 4.2.3, lesson 03.* Max pooling has no closed-form kernel (see [errata A12](../../ERRATA.md#a12)). Work with
# one pair of 1-D signals: a **pixel-pair matrix** `K` of shape $(P, P)$ holds the covariance of position $p$ of one
# signal with position $p'$ of the other (lesson 03, section 4.2.1).
# Points: (a) 1 + 3 hidden, (b) 2 manual.
#
# ---
#
# **中文** · 习题 4.6 · 最大池化的替代方案
#
# *第 4.2.3 节，第 03 课。* 最大池化没有闭式的核（见 [勘误 A12](../../ERRATA.md#a12)）。
# 本题只考虑一对一维信号：形状为 $(P, P)$ 的**像素对矩阵** `K` 存放一个信号第 $p$ 个位置
# 与另一个信号第 $p'$ 个位置之间的协方差（第 03 课第 4.2.1 节）。
# 分值：(a) 1 分 + 3 分隐藏测试，(b) 2 分人工评分。

# %% nbgrader={"grade": false, "solution": false, "locked": true, "grade_id": "setup", "schema_version": 3}
import math

import torch
import ntk_helpers as nh
from ntk_helpers.course.grading import as_scalar, check_close

# %% [markdown] nbgrader={"grade": false, "solution": false, "locked": true, "grade_id": "part_a", "schema_version": 3}
# ## (a) Average pooling exactly, max pooling by Monte Carlo
#
# **`avgpool_kernel(K, window, stride)`.** `K` is a $(P, P)$ torch float64 tensor, `window` $w$ and `stride` $s$ are
# positive ints. Average pooling without padding has $Q = (P - w)\,/\!/\,s + 1$ outputs; output $i$ averages positions
# $is, \dots, is + w - 1$. It is a linear map $A$ of shape $(Q, P)$, and the pooled pixel-pair matrix is $A K A^\top$.
# Return it: shape $(Q, Q)$, as a tensor or NumPy array of floats (nested lists also work). Do not call
# `nh.spatial` or `nh.avg_pool`.
#
# **`maxpool_nngp_mc(cov, n_samples, seed)`.** `cov` is a $(2w, 2w)$ positive-definite torch float64 tensor: the joint
# covariance of the pre-activations $(u_1, \dots, u_w, v_1, \dots, v_w)$ of one pooling window in the first signal ($u$)
# and the same window in the second ($v$). Return the Monte Carlo estimate, from `n_samples` Gaussian draws, of
#
# $$\mathbb E\bigl[\max_a \mathrm{relu}(u_a)\cdot \max_b \mathrm{relu}(v_b)\bigr],$$
#
# the NNGP entry after ReLU and max pooling, as one number (a Python float, NumPy scalar or 0-d tensor). Any way of
# drawing the Gaussian samples is fine, but the same `seed` must give the same number. The tests use
# `n_samples = 200_000` and accept a relative error of 3% against a precise reference (the statistical error
# at that size is about 0.5%).
#
# <details><summary>Hint 1</summary>
#
# Lesson 03, section "Max pooling vs average pooling": pooling acts on the pixel-pair kernel from both sides. Entry
# $(i, j)$ of $A K A^\top$ is the mean of `K` over the block of rows of window $i$ and columns of window $j$.
# </details>
#
# <details><summary>Hint 2</summary>
#
# To draw $z \sim \mathcal N(0, \Sigma)$: with the Cholesky factor $\Sigma = L L^\top$ and a standard normal
# vector $\xi$, $z = L\xi$ (for a batch of rows $\xi$: `xi @ L.T`); or use `torch.distributions.MultivariateNormal`.
# </details>
#
# ---
#
# **中文** · (a) 精确计算平均池化，用蒙特卡洛方法估计最大池化
#
# **`avgpool_kernel(K, window, stride)`。** `K` 是 $(P, P)$ 的 torch float64 张量，
# 窗口 `window` $w$ 和步长 `stride` $s$ 都是正整数。不加填充的平均池化有 $Q = (P - w)\,/\!/\,s + 1$ 个输出；
# 第 $i$ 个输出对位置 $is, \dots, is + w - 1$ 取平均。它是一个形状为 $(Q, P)$ 的线性映射 $A$，
# 池化后的像素对矩阵就是 $A K A^\top$。返回这个矩阵：形状为 $(Q, Q)$，可以是浮点数的张量或 NumPy 数组
# （嵌套列表也可以）。不要调用 `nh.spatial` 或 `nh.avg_pool`。
#
# **`maxpool_nngp_mc(cov, n_samples, seed)`。** `cov` 是 $(2w, 2w)$ 的正定 torch float64 张量：
# 第一个信号（$u$）中的一个池化窗口与第二个信号（$v$）中同一窗口的预激活
# $(u_1, \dots, u_w, v_1, \dots, v_w)$ 的联合协方差。用 `n_samples` 个高斯样本，返回下式的蒙特卡洛估计：
#
# $$\mathbb E\bigl[\max_a \mathrm{relu}(u_a)\cdot \max_b \mathrm{relu}(v_b)\bigr],$$
#
# 即经过 ReLU 和最大池化之后的 NNGP 元素，返回一个数（Python float、NumPy 标量或 0 维张量）。
# 高斯样本怎样抽取都可以，但同一个 `seed` 必须给出同一个数。测试使用 `n_samples = 200_000`，
# 与精确的参考值相比允许 3% 的相对误差（在这个样本量下，统计误差约为 0.5%）。
#
# <details><summary>提示 1</summary>
#
# 第 03 课“最大池化与平均池化”一节：池化从两侧作用于像素对核。$A K A^\top$ 的 $(i, j)$ 元素
# 是 `K` 在窗口 $i$ 的那些行与窗口 $j$ 的那些列所构成的块上的平均值。
# </details>
#
# <details><summary>提示 2</summary>
#
# 抽取 $z \sim \mathcal N(0, \Sigma)$：取 Cholesky 分解 $\Sigma = L L^\top$ 和标准正态向量 $\xi$，
# 则 $z = L\xi$（$\xi$ 是按行排列的一批样本时：`xi @ L.T`）；也可以用 `torch.distributions.MultivariateNormal`。
# </details>

# %% nbgrader={"grade": false, "solution": true, "locked": false, "grade_id": "pooling", "schema_version": 3}
def avgpool_kernel(K, window, stride):
    ### BEGIN SOLUTION
    positions = K.shape[0]
    outputs = (positions - window) // stride + 1
    A = torch.zeros(outputs, positions, dtype=K.dtype)
    for i in range(outputs):
        A[i, i * stride: i * stride + window] = 1 / window
    return A @ K @ A.T
    ### END SOLUTION


def maxpool_nngp_mc(cov, n_samples, seed):
    ### BEGIN SOLUTION
    w = cov.shape[0] // 2
    g = torch.Generator().manual_seed(seed)
    chol = torch.linalg.cholesky(cov)
    samples = torch.randn(n_samples, 2 * w, generator=g, dtype=cov.dtype) @ chol.T
    relu = torch.relu(samples)
    return float((relu[:, :w].max(1).values * relu[:, w:].max(1).values).mean())
    ### END SOLUTION

# %% nbgrader={"grade": true, "solution": false, "locked": true, "points": 1, "grade_id": "test_visible", "schema_version": 3}
# Visible tests: one average pooling (P = 8, w = 3, s = 2) and one max pooling (w = 2), against reference values.
# 可见测试：一次平均池化（P = 8, w = 3, s = 2）和一次最大池化（w = 2），与参考值比较。
p = torch.arange(8, dtype=torch.float64)
K = torch.exp(-(p[:, None] - p[None, :]) ** 2 / 8) + 0.05 * (p[:, None] + 1) * (p[None, :] + 1)
expected = [[1.06033877, 0.9965806669, 0.7956471453],
            [0.9965806669, 1.66033877, 1.796580667],
            [0.7956471453, 1.796580667, 2.66033877]]
check_close(avgpool_kernel(K, 3, 2), expected, rtol=1e-6, name="avgpool_kernel(K, 3, 2)")

cov = torch.tensor([[2.17, 0.5, -0.01, -2.71], [0.5, 0.94, 0.71, -1.27],
                    [-0.01, 0.71, 4.23, 3.76], [-2.71, -1.27, 3.76, 21.78]], dtype=torch.float64)
estimate = as_scalar(maxpool_nngp_mc(cov, 200_000, 0), name="maxpool_nngp_mc(cov, 200_000, 0)")
assert abs(estimate / 1.2326 - 1) < 0.03, (
    f"maxpool_nngp_mc(cov, 200_000, 0): expected 1.2326 ± 3%, got {estimate:.4f} / "
    f"应为 1.2326 ± 3%，实际得到 {estimate:.4f}")
print("visible tests passed / 可见测试全部通过")

# %% nbgrader={"grade": true, "solution": false, "locked": true, "points": 3, "grade_id": "test_hidden", "schema_version": 3}
# Hidden tests: average pooling against ntk_helpers for other sizes; max pooling for other windows; reproducibility.
# 隐藏测试：其他尺寸下的平均池化（与 ntk_helpers 比较）；其他窗口下的最大池化；可复现性。
### BEGIN HIDDEN TESTS
g = torch.Generator().manual_seed(1)
for P, window, stride in [(9, 2, 2), (9, 3, 1), (9, 2, 3), (10, 3, 3), (9, 4, 4), (7, 1, 2), (6, 6, 1)]:
    a = torch.randn(P, P, generator=g, dtype=torch.float64)
    K = a @ a.T
    Q = (P - window) // stride + 1
    reference = nh.spatial.avg_pool_pairs(K.reshape(1, P, 1, P), (1, window), (1, stride)).reshape(Q, Q)
    check_close(avgpool_kernel(K, window, stride), reference, rtol=1e-9,
                name=f"avgpool_kernel(K of size {P}, window={window}, stride={stride})")

cases = [
    ([[0.18, -0.08, -0.32, 0.21, 0.16, 0.17], [-0.08, 0.27, 0.15, 0.05, -0.13, -0.1],
      [-0.32, 0.15, 2.04, -0.2, -0.89, -0.15], [0.21, 0.05, -0.2, 1.45, -0.03, 0.41],
      [0.16, -0.13, -0.89, -0.03, 1.29, 0.13], [0.17, -0.1, -0.15, 0.41, 0.13, 1.74]], 0.72968),
    ([[4.07, 0.35, 0.61, -5.7], [0.35, 0.11, -0.0, -0.65],
      [0.61, -0.0, 1.0, -0.25], [-5.7, -0.65, -0.25, 18.95]], 0.75583),
]
for rows, reference in cases:
    cov = torch.tensor(rows, dtype=torch.float64)
    name = f"maxpool_nngp_mc(cov of a window of {cov.shape[0] // 2}, 200_000, 3)"
    estimate = as_scalar(maxpool_nngp_mc(cov, 200_000, 3), name=name)
    assert abs(estimate / reference - 1) < 0.03, (
        f"{name}: expected {reference} ± 3%, got {estimate:.5f} / "
        f"应为 {reference} ± 3%，实际得到 {estimate:.5f}")
    again = as_scalar(maxpool_nngp_mc(cov, 200_000, 3), name=name)
    assert again == estimate, (
        f"{name}: the same seed gave {estimate} and then {again} / "
        f"同一个种子先给出 {estimate}，后又给出 {again}")
### END HIDDEN TESTS

# %% [markdown] nbgrader={"grade": false, "solution": false, "locked": true, "grade_id": "part_b", "schema_version": 3}
# ## (b) Which down-sampling layers keep an exact, analytic kernel, and why does max pooling not?
#
# Propose two down-sampling or aggregation layers for image or sequence models that keep the kernel recursion exact,
# say why they do, and explain what max pooling needs instead.
#
# <details><summary>Hint</summary>
#
# Lesson 03, sections 4.2.3 and "Max pooling vs average pooling": which operations act on the pixel-pair kernel as a
# fixed linear map, and which depend on the values of the input?
# </details>
#
# ---
#
# **中文** · (b) 哪些下采样层能保持精确的解析核？最大池化为什么不能？
#
# 为图像模型或序列模型提出两种能让核递归保持精确的下采样或聚合层，说明它们为什么能做到，
# 并解释最大池化需要改用什么方法。
#
# 可以用英文或中文作答。
#
# <details><summary>提示</summary>
#
# 第 03 课第 4.2.3 节和“最大池化与平均池化”一节：哪些操作以一个固定的线性映射作用于像素对核，
# 哪些操作依赖于输入的取值？
# </details>

# %% [markdown] nbgrader={"grade": true, "solution": true, "locked": false, "points": 2, "grade_id": "answer_b", "schema_version": 3}
# **Rubric (for the grader; the whole cell is replaced by "YOUR ANSWER HERE" in the student version).**
#
# 1 point: two valid exact alternatives with the reason (½ each): average pooling ($K\mapsto AKA^\top$), global average
# pooling (exact, and makes the output shift-invariant), strided convolution (subsample positions), a fixed blur
# then subsampling; the reason: any fixed (input-independent) linear map keeps the recursion exact, since Gaussian
# pre-activations stay Gaussian and the kernel transforms as $K\mapsto AKA^\top$.
# 1 point: max (or softmax/attention) pooling picks an input-dependent position, so its kernel is a Gaussian
# expectation over the whole window ($2w$-dimensional) without closed form: Monte Carlo, as in (a) (Novak et al. 2019).
#
# **Model answer.**
# Linear, input-independent down-sampling keeps the kernel exact: average pooling, global average pooling, strided
# convolutions and fixed low-pass filters followed by subsampling all act on kernels as $K\mapsto AKA^\top$ or as a
# subsampling of positions. Max pooling chooses a different position for every channel and input; its kernel is an
# expectation over the joint Gaussian of the whole window, which has no closed form, so it is estimated by Monte Carlo.
