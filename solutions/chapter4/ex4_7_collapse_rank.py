# %% [markdown] nbgrader={"grade": false, "solution": false, "locked": true, "grade_id": "intro", "schema_version": 3}
# # Exercise 4.7 · Kernel collapse and the effective rank of a 50-layer MLP
#
# *Chapter 4.1.2, lessons 02 and 08.* The effective rank of a kernel matrix is
# $r_\text{eff}(K) = \operatorname{tr}(K)^2/\lVert K\rVert_F^2$, and centering is $K \mapsto HKH$ with
# $H = I - \mathbf 1\mathbf 1^\top/n$ (it removes the constant mode). The chapter's exercise says that the NTK of a
# 50-layer MLP has a very low effective rank; here you measure it.
# Points: (a) 1 + 3 hidden, (b) 2 manual.
#
# ---
#
# **中文**
#
# **习题 4.7 · 50 层 MLP 的核退化与有效秩**
#
# *教材第 4.1.2 节，第 02 课和第 08 课。* 核矩阵的有效秩为
# $r_\text{eff}(K) = \operatorname{tr}(K)^2/\lVert K\rVert_F^2$；中心化是 $K \mapsto HKH$，其中
# $H = I - \mathbf 1\mathbf 1^\top/n$（它去掉常数模式）。本章的习题说 50 层 MLP 的 NTK 有效秩非常低；
# 在这里由你来测量它。
# 分值：(a) 1 分（可见测试）+ 3 分（隐藏测试），(b) 2 分（人工评分）。

# %% nbgrader={"grade": false, "solution": false, "locked": true, "grade_id": "setup", "schema_version": 3}
import math

import torch
import ntk_helpers as nh
from ntk_helpers.course.grading import as_scalar, check_close, forbid

# %% [markdown] nbgrader={"grade": false, "solution": false, "locked": true, "grade_id": "part_a", "schema_version": 3}
# ## (a) `reff(K)`, `center(K)`, `depth_sweep(X, Xt, y, yt, depths)`
#
# The inputs are torch float64 tensors: `K` is $(n, n)$ symmetric positive semi-definite, `X` $(n, d)$ and `Xt`
# $(n_t, d)$ are training and test inputs, `y` $(n,)$ and `yt` $(n_t,)$ their targets, `depths` a list of positive
# ints. The inputs are any vectors: the visible test puts them on the sphere $|x|^2 = d$, the hidden tests use
# inputs of different norms ($|x|/\sqrt d$ from 0.5 to 2).
#
# - `reff(K)`: the effective rank above, one number (a Python float, NumPy scalar or 0-d tensor).
# - `center(K)`: the matrix $HKH$, shape $(n, n)$ (a tensor, a NumPy array or nested lists).
# - `depth_sweep(...)`: for each depth $L$ in `depths`, the **test mean squared error**
#   $\frac{1}{n_t}\sum_i (\hat y_i - yt_i)^2$ of **ridgeless NTK regression**,
#   $\hat y = \Theta(X_t, X)\,\Theta(X, X)^{-1} y$, with $\Theta$ the NTK of `nh.mlp(L)` (ReLU, $L$ hidden layers,
#   $\sigma_w^2 = 2$, $\sigma_b = 0$; its `.kernel(...)` returns `.ntk`) on the inputs **as given**: do not project
#   them onto the sphere and do not normalize the kernel (for this bias-free ReLU network
#   $\Theta(\lambda x, x') = \lambda\,\Theta(x, x')$ for $\lambda > 0$, so the norms change the prediction).
#   Return one number per depth, in the order of `depths`: a list of floats or a 1-D tensor/array of length
#   `len(depths)`.
#
# Do not call `nh.effective_rank` or `nh.center`: the tests use them as the reference and fail an answer that calls
# them. Any other code is fine: for the kernels, `nh.mlp(L).kernel(...)` (on the training and test inputs together,
# or `kernel(Xt, X)` and `kernel(X)`) or `nh.mlp_kernels_by_depth`; for the regression, `torch.linalg.solve`, a
# Cholesky solve, `lstsq` or `nh.kernel_regression` (its relative jitter of $10^{-10}$ moves the error by about
# $10^{-9}$). Compute in float64. **Tolerances:** `reff` relative $10^{-9}$; `center` entrywise absolute
# $10^{-9}\max|K|$ (its entries cancel to near zero, so no relative test); `depth_sweep` relative $10^{-5}$ for each
# depth (every test error in the tests is above 0.1). Correct float64 formulations stay below $3\cdot10^{-15}$,
# $2\cdot10^{-15}\max|K|$ and $2\cdot10^{-9}$ respectively.
#
# <details><summary>Hint 1</summary>
#
# Lesson 08, section "Definition", and lesson 02, section "NNGP → constant, NTK → ¾ I + ¼ 11ᵀ" (which computes
# `nh.effective_rank(...)` of deep kernels). $HKH$ subtracts the row means and the column means of $K$ and adds back
# its overall mean.
# </details>
#
# <details><summary>Hint 2</summary>
#
# Lesson 02, section "What collapse costs: generalization", runs exactly this regression: compute the kernel once on
# the training and test inputs together, `nh.mlp(L).kernel(torch.cat([X, Xt])).ntk`, and use its blocks.
# </details>
#
# ---
#
# **中文**
#
# **(a) `reff(K)`、`center(K)`、`depth_sweep(X, Xt, y, yt, depths)`**
#
# 输入都是 torch float64 张量：`K` 是 $(n, n)$ 的对称半正定矩阵，`X` $(n, d)$ 和 `Xt` $(n_t, d)$
# 是训练输入和测试输入，`y` $(n,)$ 和 `yt` $(n_t,)$ 是它们的目标值，`depths` 是一个正整数列表。
# 输入可以是任意向量：可见测试把它们放在球面 $|x|^2 = d$ 上，隐藏测试使用范数各不相同的输入
# （$|x|/\sqrt d$ 从 0.5 到 2）。
#
# - `reff(K)`：上面定义的有效秩，返回一个数（Python float、NumPy 标量或 0 维张量）。
# - `center(K)`：矩阵 $HKH$，形状为 $(n, n)$（张量、NumPy 数组或嵌套列表）。
# - `depth_sweep(...)`：对 `depths` 中的每个深度 $L$，计算**无岭 NTK 回归**的**测试均方误差**
#   $\frac{1}{n_t}\sum_i (\hat y_i - yt_i)^2$，其中 $\hat y = \Theta(X_t, X)\,\Theta(X, X)^{-1} y$，
#   $\Theta$ 是 `nh.mlp(L)` 的 NTK（ReLU，$L$ 个隐藏层，$\sigma_w^2 = 2$，$\sigma_b = 0$；
#   它的 `.kernel(...)` 返回的结果带有 `.ntk`），并且**直接**用给定的输入计算：不要把输入投影到球面上，
#   也不要把核归一化（对这个无偏置的 ReLU 网络，当 $\lambda > 0$ 时 $\Theta(\lambda x, x') = \lambda\,\Theta(x, x')$，
#   所以范数会改变预测）。按 `depths` 的顺序，每个深度返回一个数：浮点数列表，或长度为 `len(depths)` 的
#   一维张量/数组。
#
# 不要调用 `nh.effective_rank` 或 `nh.center`：测试用它们计算参考值，调用了它们的答案判为不通过。
# 其他代码都可以用：计算核可以用 `nh.mlp(L).kernel(...)`（把训练输入和测试输入放在一起算，
# 或者分别算 `kernel(Xt, X)` 和 `kernel(X)`）或 `nh.mlp_kernels_by_depth`；回归可以用 `torch.linalg.solve`、
# Cholesky 求解、`lstsq` 或 `nh.kernel_regression`（它加在对角线上的相对抖动项 $10^{-10}$
# 使误差改变约 $10^{-9}$）。请用 float64 计算。**容差：**`reff` 的相对误差不超过 $10^{-9}$；
# `center` 逐元素的绝对误差不超过 $10^{-9}\max|K|$（它的元素会相互抵消到接近零，所以不用相对误差）；
# `depth_sweep` 每个深度的相对误差不超过 $10^{-5}$（测试中的每个测试误差都大于 0.1）。
# 正确的 float64 写法的误差分别在 $3\cdot10^{-15}$、$2\cdot10^{-15}\max|K|$ 和 $2\cdot10^{-9}$ 以下。
#
# <details><summary>提示 1</summary>
#
# 第 08 课“定义”一节，以及第 02 课“NNGP → 常数，NTK → ¾ I + ¼ 11ᵀ”一节（那里计算了深层核的
# `nh.effective_rank(...)`）。$HKH$ 从 $K$ 中减去各行的均值和各列的均值，再加回全体元素的均值。
# </details>
#
# <details><summary>提示 2</summary>
#
# 第 02 课“核退化的代价：泛化”一节做的正是这个回归：把训练输入和测试输入放在一起，只计算一次核，
# `nh.mlp(L).kernel(torch.cat([X, Xt])).ntk`，再取它的各个分块。
# </details>

# %% nbgrader={"grade": false, "solution": true, "locked": false, "grade_id": "rank_and_sweep", "schema_version": 3}
def reff(K):
    ### BEGIN SOLUTION
    return float(torch.trace(K) ** 2 / (K * K).sum())
    ### END SOLUTION


def center(K):
    ### BEGIN SOLUTION
    n = K.shape[0]
    H = torch.eye(n, dtype=K.dtype) - 1.0 / n
    return H @ K @ H
    ### END SOLUTION


def depth_sweep(X, Xt, y, yt, depths):
    ### BEGIN SOLUTION
    n = X.shape[0]
    errors = []
    for L in depths:
        K = nh.mlp(L).kernel(torch.cat([X, Xt])).ntk
        prediction = nh.kernel_regression(K[:n, :n], K[n:, :n], y)
        errors.append(float(((prediction - yt) ** 2).mean()))
    return errors
    ### END SOLUTION

# %% nbgrader={"grade": true, "solution": false, "locked": true, "points": 1, "grade_id": "test_visible", "schema_version": 3}
# Visible tests: reff and center on small matrices; depth_sweep on 60 + 60 points of the sphere. They catch
# tr(K)/||K||_F without the squares, centering by the overall mean only, the NNGP instead of the NTK, the root mean
# squared error, and counting the readout as a hidden layer (depth L + 1).
# Tolerances: reff relative 1e-9; center absolute 1e-9 max|K|; depth_sweep relative 1e-5. Measured errors of correct
# float64 variants (here and on the hidden data, inputs of norms 0.5 to 2 times sqrt(d) included): reff by the
# trace, eigenvalues or Python loops <= 2.9e-15; center by H K H, row/column means or loops <= 1.1e-15 max|K|;
# depth_sweep by solve, Cholesky, lstsq, eigh, inv, pinv, kernel(Xt, X) + kernel(X), mlp_kernels_by_depth
# <= 8e-15, and 1.5e-9 with nh.kernel_regression's jitter (at depth 1, condition number 1e3).
# 可见测试：在小矩阵上检查 reff 和 center；在球面上的 60 + 60 个点上检查 depth_sweep。它们能发现：
# 漏了平方的 tr(K)/||K||_F、只减去全体元素均值的中心化、用 NNGP 代替 NTK、均方根误差，
# 以及把读出层也算作隐藏层（深度 L + 1）。
# 容差：reff 相对误差 1e-9；center 绝对误差 1e-9 max|K|；depth_sweep 相对误差 1e-5。正确的 float64 写法的
# 实测误差（在这里和隐藏测试的数据上，包括范数为 sqrt(d) 的 0.5 到 2 倍的输入）：用迹、特征值或 Python
# 循环计算的 reff <= 2.9e-15；用 H K H、行/列均值或循环计算的 center <= 1.1e-15 max|K|；用 solve、Cholesky、
# lstsq、eigh、inv、pinv、kernel(Xt, X) + kernel(X)、mlp_kernels_by_depth 计算的 depth_sweep <= 8e-15，
# 用 nh.kernel_regression（带抖动项）为 1.5e-9（深度 1，条件数 1e3）。
def check_reff(K, expected, name):
    with forbid((nh, "effective_rank"), (nh, "center")):
        measured = as_scalar(reff(K), name=name)
    assert abs(measured - expected) <= 1e-9 * expected, (
        f"{name}: expected {expected:.12g} (relative tolerance 1e-9), got {measured:.12g} / "
        f"{name}：应为 {expected:.12g}（相对容差 1e-9），实际得到 {measured:.12g}")


def check_center(K, expected, name):
    with forbid((nh, "effective_rank"), (nh, "center")):
        centered = center(K)
    check_close(centered, expected, rtol=0, atol=1e-9 * float(K.abs().max()), name=name)


K0 = torch.tensor([[4., 2., 1., 0.], [2., 3., 1., 1.], [1., 1., 2., .5], [0., 1., .5, 1.]],
                  dtype=torch.float64)
diagonal = torch.diag(torch.tensor([3.0, 1.0, 1.0, 1.0], dtype=torch.float64))
for K, expected, label in [(torch.eye(7, dtype=torch.float64), 7.0, "torch.eye(7)"),
                           (diagonal, 3.0, "diag(3, 1, 1, 1)"), (K0, 100 / 44.5, "K0")]:
    check_reff(K, expected, name=f"reff({label})")
expected_center = [[1.8125, -0.1875, -0.5625, -1.0625], [-0.1875, 0.8125, -0.5625, -0.0625],
                   [-0.5625, -0.5625, 1.0625, 0.0625], [-1.0625, -0.0625, 0.0625, 1.0625]]
check_center(K0, expected_center, name="center(K0)")

data = nh.sphere(120, 10, seed=3)
u = nh.sphere(1, 10, seed=4)[0]
target = torch.sin(data @ u / math.sqrt(10)) + 0.5 * data[:, 0] * data[:, 1] / 10
errors = depth_sweep(data[:60], data[60:], target[:60], target[60:], [1, 10, 50])
check_close(errors, [0.10341026, 0.1698188, 0.35106248], rtol=1e-5, name="depth_sweep(..., [1, 10, 50])")
print("visible tests passed / 可见测试全部通过")

# %% nbgrader={"grade": true, "solution": false, "locked": true, "points": 3, "grade_id": "test_hidden", "schema_version": 3}
# Hidden tests: reff and center of deep kernels against ntk_helpers; depth_sweep on inputs of different norms
# (|x| / sqrt(d) from 0.5 to 2: projecting them onto the sphere or normalizing the kernel changes the test error by
# 57% to 78%) and other depths. Same tolerances.
# 隐藏测试：深层核的 reff 和 center（与 ntk_helpers 比较）；在范数各不相同的输入（|x| / sqrt(d) 从 0.5 到 2：
# 把它们投影到球面上或把核归一化，测试误差会改变 57% 到 78%）和其他深度上检查 depth_sweep。容差相同。
### BEGIN HIDDEN TESTS
X = nh.sphere(100, 10, seed=1)
g = torch.Generator().manual_seed(11)
data = nh.sphere(300, 10, seed=1) * torch.exp(1.4 * torch.rand(300, 1, generator=g, dtype=torch.float64) - 0.7)
kernels = [("nh.mlp(50).kernel(X).ntk", nh.mlp(50).kernel(X).ntk),
           ("nh.mlp(3).kernel(X).nngp", nh.mlp(3).kernel(X).nngp),
           ("nh.mlp(5).kernel(data[:100]).ntk", nh.mlp(5).kernel(data[:100]).ntk)]
for label, kernel in kernels:
    check_reff(kernel, nh.effective_rank(kernel), name=f"reff({label})")
    check_center(kernel, nh.center(kernel), name=f"center({label})")

a, b = nh.sphere(2, 10, seed=7) / math.sqrt(10)
target = torch.cos(2 * data @ a / math.sqrt(10)) + data @ b / math.sqrt(10)
depths = [2, 7, 30]
reference = []
for L in depths:
    K = nh.mlp(L).kernel(data).ntk
    prediction = K[100:, :100] @ torch.linalg.solve(K[:100, :100], target[:100])
    reference.append(float(((prediction - target[100:]) ** 2).mean()))
check_close(depth_sweep(data[:100], data[100:], target[:100], target[100:], depths), reference, rtol=1e-5,
            name=f"depth_sweep(..., {depths})")
### END HIDDEN TESTS

# %% [markdown] nbgrader={"grade": false, "solution": false, "locked": true, "grade_id": "measure_intro", "schema_version": 3}
# ### Measure (not graded)
#
# Your functions on 200 points of the sphere $S^9$: the effective rank of the 50-layer kernels, raw and centered,
# and the test error of NTK regression against depth. Use these numbers in (b).
#
# ---
#
# **中文**
#
# **测量（不计分）**
#
# 在球面 $S^9$ 的 200 个点上运行你的函数：50 层核的有效秩，原始的和中心化后的（centered），
# 以及 NTK 回归的测试误差随深度的变化（test MSE，并附上测试目标值的方差，variance of the test targets）。
# (b) 中要用到这些数。

# %% nbgrader={"grade": false, "solution": false, "locked": true, "grade_id": "measure", "schema_version": 3}
X = nh.sphere(200, 10, seed=0)
deep = nh.mlp(50).kernel(X)
for name, kernel in [("NNGP", deep.nngp), ("NTK", deep.ntk)]:
    print(f"50 layers, {name}: r_eff = {as_scalar(reff(kernel)):.2f}, "
          f"centered r_eff = {as_scalar(reff(torch.as_tensor(center(kernel)))):.1f} (n = 200)")
data = nh.sphere(300, 10, seed=1)
a, b = nh.sphere(2, 10, seed=7) / math.sqrt(10)
target = torch.cos(2 * data @ a / math.sqrt(10)) + data @ b / math.sqrt(10)
sweep_depths = [1, 5, 20, 50]
sweep = depth_sweep(data[:100], data[100:], target[:100], target[100:], sweep_depths)
print(f"test MSE at depths {sweep_depths}: {[round(float(e), 4) for e in sweep]}; "
      f"variance of the test targets {float(target[100:].var()):.3f}")

# %% [markdown] nbgrader={"grade": false, "solution": false, "locked": true, "grade_id": "part_b", "schema_version": 3}
# ## (b) Is the deep NTK low-rank, and does an $O(1)$ learning rate leave the kernel regime?
#
# The chapter's exercise assumes that the 50-layer NTK has a very low effective rank, and asks whether a network
# trained with an $O(1)$ learning rate, "far from the NTK limit", can still benefit from depth.
#
# 1. Use the numbers printed above. Is the 50-layer NTK low-rank? Describe what it looks like, and explain why the
#    test error of NTK regression grows with depth.
# 2. Check the premise of the second question: under the NTK parameterization (the convention of the lessons), which
#    regime does an $O(1)$ learning rate give as the width $m\to\infty$? What would take a wide network out of the
#    kernel regime, and what does NTK theory then say about the benefit of depth?
#
# <details><summary>Hint</summary>
#
# Lesson 02, sections 4.1.2 "NNGP → constant, NTK → ¾ I + ¼ 11ᵀ" and "What collapse costs"; lesson 08, section
# "Near 1 means 'one constant mode'". For the learning rate: lesson 07, sections "The formula" (the critical learning
# rate) and "1. Real gradient descent vs the formula" (which learning rate it uses, and what happens as the width
# grows), and lesson 05b, section 4.4.2.
# </details>
#
# ---
#
# **中文**
#
# **(b) 深层 NTK 是低秩的吗？$O(1)$ 的学习率会让网络离开核区域吗？**
#
# 本章的习题假定 50 层 NTK 的有效秩非常低，并且问：一个用 $O(1)$ 学习率训练、“远离 NTK 极限”的网络，
# 还能从深度中受益吗？
#
# 1. 利用上面打印的数。50 层 NTK 是低秩的吗？描述它是什么样子，并解释为什么 NTK 回归的测试误差
#    随深度增大。
# 2. 检查第二个问题的前提：在 NTK 参数化下（本课程的约定），当宽度 $m\to\infty$ 时，
#    $O(1)$ 的学习率给出的是哪一种区域？什么会让一个很宽的网络离开核区域？
#    那时 NTK 理论对深度的好处能说些什么？
#
# 可以用英文或中文作答。
#
# <details><summary>提示</summary>
#
# 第 02 课第 4.1.2 节中的“NNGP → 常数，NTK → ¾ I + ¼ 11ᵀ”和“核退化的代价：泛化”两小节；
# 第 08 课“接近 1 意味着‘一个常数模式’”一节。关于学习率：第 07 课“公式”一节（临界学习率）
# 和“1. 真实梯度下降与公式的对照”一节（它用的是什么学习率，以及宽度增大时会发生什么），
# 还有第 05b 课第 4.4.2 节。
# </details>

# %% [markdown] nbgrader={"grade": true, "solution": true, "locked": false, "points": 2, "grade_id": "answer_b", "schema_version": 3}
# **Rubric (for the grader; the whole cell is replaced by "YOUR ANSWER HERE" in the student version).**
#
# 1 point, question 1.
# ½: the deep NTK is **not** low-rank: the NNGP collapses to a constant ($r_\text{eff}\approx 1$), while the NTK
# tends to $(L+1)q\,[\tfrac34 I + \tfrac14\mathbf 1\mathbf 1^\top]$: its raw $r_\text{eff}$ (about 11) is held
# down only by the constant mode, and after centering it is close to $n$: constant plus white noise, full rank.
# (The mechanism, the marginal correlation map $1-c_l\approx 9\pi^2/2l^2$ and not dead units, is a plus, not
# required.)
# ½: such a kernel still interpolates the training points but predicts close to a constant elsewhere, so the test
# error rises with depth towards the variance of the targets (quoting the printed numbers).
#
# 1 point, question 2.
# ½: the premise is false: under the NTK parameterization the kernel limit (Jacot et al. 2018; Lee et al. 2019)
# **is** the limit of training with an $O(1)$ learning rate (below the stability threshold, about
# $2n/\lambda_\max(\Theta)$ for the loss $\frac1{2n}\sum_i (f(x_i)-y_i)^2$): an $O(1)$ learning rate is the
# kernel regime, not an escape from it.
# ½: what leaves it: another parameterization (μP or mean-field, exercise 4.5), finite width with depth not small
# compared with width (Hanin & Nica 2020), or a learning rate above the threshold in the narrow "catapult" window
# (Lewkowycz et al. 2020); any one of these suffices. There NTK theory makes no prediction, so whether depth helps
# depends on trainability (initialization at the edge of chaos, residual scaling, normalization) and is not
# guaranteed. An answer that accepts the premise ("with an O(1) learning rate the network learns features, so depth
# helps") gets 0 for this point.
#
# **Model answer.**
# 1. No. The 50-layer NNGP has $r_\text{eff}\approx 1$: it has collapsed to a constant. The NTK's raw effective
#    rank is about 11, but centering raises it to nearly $n = 200$: the NTK tends to
#    $(L+1)q[\tfrac34 I + \tfrac14\mathbf 1\mathbf 1^\top]$, a constant plus white noise, which is full rank.
#    Regression with it still fits every training point (the $\tfrac34 I$ part), but at a new input the kernel is
#    nearly the same constant for every training point, so the prediction is close to a constant and the test error
#    grows with depth towards the variance of the targets (printed above).
# 2. The premise is wrong. Under the NTK parameterization, the infinite-width limit in which the network trains as
#    kernel gradient descent with the fixed NTK is the limit at a fixed, $O(1)$ learning rate (below the stability
#    threshold $\approx 2n/\lambda_\max$; beyond it training diverges, apart from a narrow catapult window). So an
#    $O(1)$ learning rate keeps a wide network in the kernel regime. Leaving it takes a different parameterization
#    (μP), a finite width that is not large compared with the depth, or a catapult-size step. There NTK theory
#    predicts nothing, and whether 50 layers help depends on making them trainable (edge-of-chaos initialization,
#    residual branches scaled like $1/\sqrt L$, normalization); depth is not automatically a benefit.
