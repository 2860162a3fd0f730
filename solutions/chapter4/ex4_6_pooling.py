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
# **中文**
#
# **习题 4.6 · 最大池化的替代方案**
#
# *教材第 4.2.3 节，第 03 课。* 最大池化没有闭式的核（见 [勘误 A12](../../ERRATA.md#a12)）。
# 本题只考虑一对一维信号：形状为 $(P, P)$ 的**像素对矩阵** `K` 存放一个信号第 $p$ 个位置
# 与另一个信号第 $p'$ 个位置之间的协方差（第 03 课第 4.2.1 节）。
# 分值：(a) 1 分（可见测试）+ 3 分（隐藏测试），(b) 2 分（人工评分）。

# %% nbgrader={"grade": false, "solution": false, "locked": true, "grade_id": "setup", "schema_version": 3}
import math

import torch
import ntk_helpers as nh
from ntk_helpers.course.grading import as_scalar, check_close, forbid

# %% [markdown] nbgrader={"grade": false, "solution": false, "locked": true, "grade_id": "part_a", "schema_version": 3}
# ## (a) Average pooling exactly, max pooling by Monte Carlo
#
# **`avgpool_kernel(K, window, stride)`.** `K` is a $(P, P)$ torch float64 tensor (symmetric positive
# semi-definite, $P \le 12$ in the tests), `window` $w$ and `stride` $s$ are positive Python ints with $w \le P$
# (the tests also use $s > w$, $w = 1$ and $w = P$). Average pooling without padding has $Q = (P - w)\,/\!/\,s + 1$
# outputs; output $i$ averages positions $is, \dots, is + w - 1$. It is a linear map $A$ of shape $(Q, P)$, and the
# pooled pixel-pair matrix is $A K A^\top$. Return it: shape $(Q, Q)$, as a tensor or NumPy array of floats (nested
# lists also work), computed in float64. Any formulation is fine (the matrix $A$, block means, `torch.nn.functional`
# pooling, loops), but do not call `nh.spatial.avg_pool_pairs` or `nh.avg_pool`: the tests use them as the
# reference and fail an answer that calls them. **Tolerance:** every entry within
# $10^{-9}\,|\text{reference}| + 10^{-12}\max_{p,p'}|K_{pp'}|$. The absolute term matters where pooled entries cancel
# to (almost) zero, which the hidden tests include; correct float64 formulations stay below $2\cdot 10^{-16}\max|K|$.
#
# **`maxpool_nngp_mc(cov, n_samples, seed)`.** `cov` is a $(2w, 2w)$ positive-definite torch float64 tensor: the joint
# covariance of the pre-activations $(u_1, \dots, u_w, v_1, \dots, v_w)$ of one pooling window in the first signal ($u$)
# and the same window in the second ($v$); `n_samples` and `seed` are Python ints. Return the Monte Carlo estimate,
# from `n_samples` independent Gaussian draws of $(u, v)$, of
#
# $$\mathbb E\bigl[\max_a \mathrm{relu}(u_a)\cdot \max_b \mathrm{relu}(v_b)\bigr],$$
#
# the NNGP entry after ReLU and max pooling, as one number (a Python float, NumPy scalar or 0-d tensor). Any way of
# drawing the Gaussian samples is fine (torch or NumPy, float32 or float64, a Cholesky factor, an eigen-decomposition
# or `MultivariateNormal`), but the same `seed` must give the same number, and the tests call your function twice
# with the same arguments to check it. The tests call it with `n_samples = 200_000`, seeds 0 and 3, and windows
# $w = 1, 2, 3$, including strongly anti-correlated windows (e.g. $w = 1$ with correlation $-0.81$, where the
# product is small and its relative statistical error large). **Tolerance:** for each covariance the estimate must
# lie within **4.5 standard errors** of a precise reference, $|\text{estimate} - \text{reference}| \le
# 4.5\,\sigma/\sqrt{200\,000}$, where $\sigma$ is the standard deviation of
# $\max_a \mathrm{relu}(u_a)\cdot\max_b\mathrm{relu}(v_b)$ under that covariance (each test prints the reference,
# $\sigma$ and the band). That is a relative band of about 2% for the visible covariance and about 5% for the
# anti-correlated $w = 1$ window. A correct estimator with independent draws fails by bad luck of the seed about once
# in 150 000 runs per covariance.
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
# A `torch.Generator().manual_seed(seed)` passed to `torch.randn` makes the draws depend on `seed` only.
# </details>
#
# ---
#
# **中文**
#
# **(a) 精确计算平均池化，用蒙特卡洛方法估计最大池化**
#
# **`avgpool_kernel(K, window, stride)`。** `K` 是 $(P, P)$ 的 torch float64 张量（对称半正定，
# 测试中 $P \le 12$），窗口 `window` $w$ 和步长 `stride` $s$ 都是正的 Python 整数，且 $w \le P$
# （测试也会用到 $s > w$、$w = 1$ 和 $w = P$）。不加填充的平均池化有 $Q = (P - w)\,/\!/\,s + 1$ 个输出；
# 第 $i$ 个输出对位置 $is, \dots, is + w - 1$ 取平均。它是一个形状为 $(Q, P)$ 的线性映射 $A$，
# 池化后的像素对矩阵就是 $A K A^\top$。返回这个矩阵：形状为 $(Q, Q)$，可以是浮点数的张量或 NumPy 数组
# （嵌套列表也可以），用 float64 计算。怎样写都可以（矩阵 $A$、分块平均、`torch.nn.functional` 的池化、循环），
# 但不要调用 `nh.spatial.avg_pool_pairs` 或 `nh.avg_pool`：测试用它们计算参考值，调用了它们的答案判为不通过。
# **容差：**每个元素与参考值之差不超过 $10^{-9}\,|\text{参考值}| + 10^{-12}\max_{p,p'}|K_{pp'}|$。
# 当池化后的元素相互抵消到（几乎）为零时，绝对误差项就起作用了，隐藏测试包含这种情形；
# 正确的 float64 写法误差都在 $2\cdot 10^{-16}\max|K|$ 以下。
#
# **`maxpool_nngp_mc(cov, n_samples, seed)`。** `cov` 是 $(2w, 2w)$ 的正定 torch float64 张量：
# 第一个信号（$u$）中的一个池化窗口与第二个信号（$v$）中同一窗口的预激活
# $(u_1, \dots, u_w, v_1, \dots, v_w)$ 的联合协方差；`n_samples` 和 `seed` 是 Python 整数。
# 用 `n_samples` 个相互独立的高斯样本 $(u, v)$，返回下式的蒙特卡洛估计：
#
# $$\mathbb E\bigl[\max_a \mathrm{relu}(u_a)\cdot \max_b \mathrm{relu}(v_b)\bigr],$$
#
# 即经过 ReLU 和最大池化之后的 NNGP 元素，返回一个数（Python float、NumPy 标量或 0 维张量）。
# 高斯样本怎样抽取都可以（torch 或 NumPy，float32 或 float64，Cholesky 因子、特征分解或
# `MultivariateNormal`），但同一个 `seed` 必须给出同一个数：测试会用相同的参数调用你的函数两次来检查这一点。
# 测试使用 `n_samples = 200_000`、种子 0 和 3、窗口 $w = 1, 2, 3$，其中包括强负相关的窗口
# （例如 $w = 1$、相关系数为 $-0.81$：这时乘积很小，它的相对统计误差很大）。
# **容差：**对每个协方差，估计值与精确参考值之差不得超过 **4.5 个标准误**，即
# $|\text{估计值} - \text{参考值}| \le 4.5\,\sigma/\sqrt{200\,000}$，其中 $\sigma$ 是该协方差下
# $\max_a \mathrm{relu}(u_a)\cdot\max_b\mathrm{relu}(v_b)$ 的标准差（每个测试都会打印参考值、$\sigma$ 和允许范围）。
# 对可见测试的协方差，这相当于约 2% 的相对范围；对负相关的 $w = 1$ 窗口约为 5%。
# 一个用独立样本的正确估计量，每个协方差大约每 150 000 次运行才会因为种子运气不好而失败一次。
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
# 把 `torch.Generator().manual_seed(seed)` 传给 `torch.randn`，抽样结果就只取决于 `seed`。
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
# They catch summing instead of averaging, P // s outputs, the mean instead of the max, E[max u] E[max v] and
# samples xi @ L instead of xi @ L^T.
# Average pooling: |got - ref| <= 1e-9 |ref| + 1e-12 max|K|. Measured errors of correct float64 variants (A K A^T,
# block means, 2-D prefix sums, F.avg_pool2d, Python lists), over this K and the hidden ones: at most
# 1.6e-16 max|K|; without the absolute term, block means fail the hidden kernel whose pooled entries are ~1e-9.
# Max pooling: |estimate - reference| <= 4.5 sigma / sqrt(200 000), sigma the standard deviation of
# max relu(u) * max relu(v) (2.4355 here), i.e. 4.5 standard errors of a 200k-sample mean. The references of the
# w >= 2 windows come from 2e8 draws (their own error is 1/32 of a standard error); sigma from the same draws.
# False-failure rate of a correct estimator: the 200k-sample mean is normal up to Edgeworth terms; the skewness
# term (skewness of the product 3.0 to 7.8, divided by sqrt(200 000)) moves probability from one tail to the other
# and cancels in the two-sided rate, the next terms change it by a few percent. So the rate is
# 2 * Phi(-4.5) = 6.8e-6 per covariance: about 1 in 150 000 for this cell and 1 in 37 000 for the hidden cell
# (four covariances). Measured with the solution's estimator over seeds 0-1999 for all five covariances: no
# failure; largest deviation 4.03 standard errors; 4.35% beyond 2 and 0.35% beyond 3 standard errors here (normal:
# 4.55% and 0.27%).
# 可见测试：一次平均池化（P = 8, w = 3, s = 2）和一次最大池化（w = 2），与参考值比较。
# 它们能发现：求和而不是求平均、输出个数取 P // s、用平均代替最大值、E[max u] E[max v]、
# 以及用 xi @ L 而不是 xi @ L^T 抽样。
# 平均池化：|得到值 - 参考值| <= 1e-9 |参考值| + 1e-12 max|K|。正确的 float64 写法（A K A^T、分块平均、
# 二维前缀和、F.avg_pool2d、Python 列表）在这个 K 和隐藏测试的各个 K 上的实测误差：至多
# 1.6e-16 max|K|；若没有绝对误差项，分块平均在隐藏测试中池化后元素约为 1e-9 的那个核上就会失败。
# 最大池化：|估计值 - 参考值| <= 4.5 sigma / sqrt(200 000)，sigma 是 max relu(u) * max relu(v) 的标准差
# （这里为 2.4355），即 200k 个样本的平均值的 4.5 个标准误。w >= 2 的窗口的参考值来自 2e8 个样本
# （它们自身的误差是一个标准误的 1/32）；sigma 也来自这些样本。
# 正确估计量的误判率：200k 个样本的平均值除 Edgeworth 修正项外服从正态分布；偏度项（乘积的偏度为
# 3.0 到 7.8，再除以 sqrt(200 000)）只是把概率从一侧尾部移到另一侧，在双侧误判率中相互抵消，
# 更高阶的项只改变它几个百分点。所以每个协方差的误判率为 2 * Phi(-4.5) = 6.8e-6：
# 本单元约为 1/150 000，隐藏测试单元（四个协方差）约为 1/37 000。用参考解答的估计量对全部五个协方差、
# 种子 0-1999 实测：没有一次失败；最大偏差为 4.03 个标准误；这里超出 2 个和 3 个标准误的比例为
# 4.35% 和 0.35%（正态分布：4.55% 和 0.27%）。
SAMPLES = 200_000


def check_maxpool(cov, reference, sigma, seed):
    """The estimate for `cov` within 4.5 standard errors of `reference`; returns it.
    `cov` 的估计值与 `reference` 之差在 4.5 个标准误以内；返回该估计值。"""
    name = f"maxpool_nngp_mc(cov[{cov.shape[0]}x{cov.shape[0]}], {SAMPLES:_}, {seed})"
    estimate = as_scalar(maxpool_nngp_mc(cov, SAMPLES, seed), name=name)
    band = 4.5 * sigma / math.sqrt(SAMPLES)
    assert abs(estimate - reference) <= band, (
        f"{name}: expected {reference:.6g} ± {band:.3g} (4.5 standard errors, sigma = {sigma:.5g}), "
        f"got {estimate:.6g} / {name}：应为 {reference:.6g} ± {band:.3g}（4.5 个标准误，sigma = {sigma:.5g}），"
        f"实际得到 {estimate:.6g}")
    return estimate


def check_avgpool(K, window, stride, reference):
    with forbid((nh.spatial, "avg_pool_pairs"), (nh, "avg_pool")):
        pooled = avgpool_kernel(K, window, stride)
    check_close(pooled, reference, rtol=1e-9, atol=1e-12 * float(K.abs().max()),
                name=f"avgpool_kernel(K[{K.shape[0]}x{K.shape[0]}], {window}, {stride})")


p = torch.arange(8, dtype=torch.float64)
K = torch.exp(-(p[:, None] - p[None, :]) ** 2 / 8) + 0.05 * (p[:, None] + 1) * (p[None, :] + 1)
check_avgpool(K, 3, 2, [[1.0603387699737388, 0.9965806669178227, 0.7956471453249144],
                        [0.9965806669178227, 1.660338769973739, 1.7965806669178228],
                        [0.7956471453249144, 1.7965806669178228, 2.660338769973739]])

cov = torch.tensor([[2.17, 0.5, -0.01, -2.71], [0.5, 0.94, 0.71, -1.27],
                    [-0.01, 0.71, 4.23, 3.76], [-2.71, -1.27, 3.76, 21.78]], dtype=torch.float64)
check_maxpool(cov, 1.23256, 2.4355, seed=0)
print("visible tests passed / 可见测试全部通过")

# %% nbgrader={"grade": true, "solution": false, "locked": true, "points": 3, "grade_id": "test_hidden", "schema_version": 3}
# Hidden tests: average pooling against ntk_helpers for other sizes (stride > window, window 1 and P, and kernels
# whose pooled entries cancel to zero); max pooling for windows of 3, 2, 1 and 2 positions (the last two strongly
# anti-correlated), same tolerances; reproducibility (the same seed twice gives the same number).
# 隐藏测试：其他尺寸下的平均池化，与 ntk_helpers 比较（步长大于窗口、窗口为 1 和 P，以及池化后元素
# 相互抵消为零的核）；窗口为 3、2、1、2 个位置的最大池化（后两个强负相关），容差相同；
# 可复现性（同一个种子两次给出同一个数）。
### BEGIN HIDDEN TESTS
g = torch.Generator().manual_seed(1)
sizes = [(9, 2, 2), (9, 3, 1), (9, 2, 3), (10, 3, 3), (9, 4, 4), (7, 1, 2), (6, 6, 1)]
kernels = []
for P, window, stride in sizes:
    a = torch.randn(P, P, generator=g, dtype=torch.float64)
    kernels.append((a @ a.T, window, stride))
signs = torch.tensor([(-1.0) ** i for i in range(12)], dtype=torch.float64)
alternating = 3.0 * signs[:, None] * signs[None, :]      # windows of even size average it to 0: only the
b = torch.randn(12, 1, generator=g, dtype=torch.float64)  # absolute term of the tolerance can pass these entries
kernels += [(alternating, 2, 2), (alternating + 1e-9 * b @ b.T, 4, 3), (alternating, 3, 3)]
for K, window, stride in kernels:
    P = K.shape[0]
    Q = (P - window) // stride + 1
    reference = nh.spatial.avg_pool_pairs(K.reshape(1, P, 1, P), (1, window), (1, stride)).reshape(Q, Q)
    check_avgpool(K, window, stride, reference)

r = -0.81
q11, q22 = 1.3, 0.6
theta = math.acos(r)               # w = 1: the arc-cosine kernel gives the exact mean and second moment
mean_1 = math.sqrt(q11 * q22) / (2 * math.pi) * (math.sin(theta) + (math.pi - theta) * math.cos(theta))
second_1 = q11 * q22 / (2 * math.pi) * (3 * math.sin(theta) * math.cos(theta)
                                        + (math.pi - theta) * (1 + 2 * math.cos(theta) ** 2))
cases = [
    ([[0.18, -0.08, -0.32, 0.21, 0.16, 0.17], [-0.08, 0.27, 0.15, 0.05, -0.13, -0.1],
      [-0.32, 0.15, 2.04, -0.2, -0.89, -0.15], [0.21, 0.05, -0.2, 1.45, -0.03, 0.41],
      [0.16, -0.13, -0.89, -0.03, 1.29, 0.13], [0.17, -0.1, -0.15, 0.41, 0.13, 1.74]], 0.729565, 1.0094),
    ([[4.07, 0.35, 0.61, -5.7], [0.35, 0.11, -0.0, -0.65],
      [0.61, -0.0, 1.0, -0.25], [-5.7, -0.65, -0.25, 18.95]], 0.755881, 1.6479),
    ([[q11, r * math.sqrt(q11 * q22)], [r * math.sqrt(q11 * q22), q22]], mean_1, math.sqrt(second_1 - mean_1 ** 2)),
    ([[1.0, 0.6, -0.9, -0.54], [0.6, 1.5, -0.54, -1.35],            # v = -0.9 u + noise
      [-0.9, -0.54, 0.9, 0.486], [-0.54, -1.35, 0.486, 1.305]], 0.138215, 0.33884),
]
for rows, reference, sigma in cases:
    cov = torch.tensor(rows, dtype=torch.float64)
    estimate = check_maxpool(cov, reference, sigma, seed=3)
    name = f"maxpool_nngp_mc(cov[{cov.shape[0]}x{cov.shape[0]}], {SAMPLES:_}, 3)"
    again = as_scalar(maxpool_nngp_mc(cov, SAMPLES, 3), name=name)
    assert again == estimate, (
        f"{name}: the same seed gave {estimate} and then {again} / "
        f"{name}：同一个种子先给出 {estimate}，后又给出 {again}")
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
# **中文**
#
# **(b) 哪些下采样层能保持精确的解析核？最大池化为什么不能？**
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
