# %% [markdown] nbgrader={"grade": false, "solution": false, "locked": true, "grade_id": "intro", "schema_version": 3}
# # Exercise 4.1 · The role of $\dot\Sigma$; the identity activation
#
# *Chapter 4.1, lesson 02.* Conventions of the lessons (neural-tangents' `stax`): NTK parameterization,
# $\Sigma^{(1)}(x,x') = \sigma_w^2\,x\cdot x'/d + \sigma_b^2$, $\Theta^{(1)} = \Sigma^{(1)}$, and for $l = 1..L$
#
# $$\Sigma^{(l+1)} = \sigma_w^2 E^{(l)} + \sigma_b^2, \quad \dot\Sigma^{(l+1)} = \sigma_w^2 \dot E^{(l)}, \quad
#   \Theta^{(l+1)} = \Sigma^{(l+1)} + \dot\Sigma^{(l+1)}\,\Theta^{(l)},$$
#
# with $E = \mathbb E[\phi(u)\phi(v)]$, $\dot E = \mathbb E[\phi'(u)\phi'(v)]$ over
# $(u, v) \sim \mathcal N(0, [[q_{11}, q_{12}], [q_{12}, q_{22}]])$, where for the pair $(x, x')$ at layer $l$:
# $q_{11} = \Sigma^{(l)}(x,x)$, $q_{22} = \Sigma^{(l)}(x',x')$, $q_{12} = \Sigma^{(l)}(x,x')$ (the **variance triple**).
# The network has $L$ hidden layers and a linear readout, so its NNGP is $\Sigma^{(L+1)}$ and its NTK $\Theta^{(L+1)}$.
#
# You re-derive the recursion here, so do **not** call the package's kernels or duals in your answer. The test
# cells forbid exactly the three entry points they use for the reference values: any layer's `.kernel(...)`
# (`nh.mlp(...).kernel`, ...), `nh.Kernel.from_inputs`, and any activation's `.dual` (`nh.relu().dual`,
# `nh.ACTIVATIONS["erf"]().dual`, ...); an answer that calls one of them fails that test. Everything else is allowed:
# torch, numpy, math, scipy. Points: (a) 1 + 3 hidden, (b) 2 manual.
#
# ---
#
# **中文** · 习题 4.1 · $\dot\Sigma$ 的作用；恒等激活函数
#
# *第 4.1 节，第 02 课。* 沿用课程的约定（neural-tangents 的 `stax`）：NTK 参数化，
# $\Sigma^{(1)}(x,x') = \sigma_w^2\,x\cdot x'/d + \sigma_b^2$，$\Theta^{(1)} = \Sigma^{(1)}$，并且对 $l = 1..L$ 有
#
# $$\Sigma^{(l+1)} = \sigma_w^2 E^{(l)} + \sigma_b^2, \quad \dot\Sigma^{(l+1)} = \sigma_w^2 \dot E^{(l)}, \quad
#   \Theta^{(l+1)} = \Sigma^{(l+1)} + \dot\Sigma^{(l+1)}\,\Theta^{(l)},$$
#
# 其中 $E = \mathbb E[\phi(u)\phi(v)]$，$\dot E = \mathbb E[\phi'(u)\phi'(v)]$，期望对
# $(u, v) \sim \mathcal N(0, [[q_{11}, q_{12}], [q_{12}, q_{22}]])$ 求取；对第 $l$ 层的输入对 $(x, x')$，
# $q_{11} = \Sigma^{(l)}(x,x)$，$q_{22} = \Sigma^{(l)}(x',x')$，$q_{12} = \Sigma^{(l)}(x,x')$（即**方差三元组**）。
# 网络有 $L$ 个隐藏层和一个线性读出层，因此它的 NNGP 核（神经网络高斯过程核）是 $\Sigma^{(L+1)}$，
# 神经正切核（NTK）是 $\Theta^{(L+1)}$。
#
# 本题要你自己重新推导递归公式，所以答案中**不要**调用软件包提供的核或对偶激活函数。测试单元恰好禁止
# 它们用来计算参考值的三个入口：任何层的 `.kernel(...)`（`nh.mlp(...).kernel` 等）、`nh.Kernel.from_inputs`，
# 以及任何激活函数的 `.dual`（`nh.relu().dual`、`nh.ACTIVATIONS["erf"]().dual` 等）；调用了其中之一的答案
# 不能通过该测试。其他一切都可以用：torch、numpy、math、scipy。
# 分值：(a) 1 分（可见测试）+ 3 分（隐藏测试），(b) 2 分（人工评分）。

# %% nbgrader={"grade": false, "solution": false, "locked": true, "grade_id": "setup", "schema_version": 3}
import math

import numpy as np
import torch
import ntk_helpers as nh
from ntk_helpers.course.grading import check_close, forbid, unpack


# %% [markdown] nbgrader={"grade": false, "solution": false, "locked": true, "grade_id": "part_a", "schema_version": 3}
# ## (a) Dual activations and the recursion
#
# **`dual(name, q11, q22, q12)`** for `name` in `"identity"`, `"relu"`, `"erf"`. The tests pass three 1-D float64
# torch tensors of equal length (no broadcasting is needed): variances $q_{11}, q_{22} > 0$ and covariances
# $|q_{12}| \le \sqrt{q_{11}q_{22}}$, equality included (correlation exactly $\pm1$). Return the tuple `(E, Edot)`:
# two arrays of that same shape, computed elementwise, from these closed forms:
#
# - identity $\phi(u) = u$: $E = q_{12}$, $\dot E = 1$;
# - ReLU $\phi(u) = \max(u, 0)$ (Cho & Saul 2009): with $s = \sqrt{q_{11}q_{22}}$, $\rho = q_{12}/s$ and
#   $\theta = \arccos\rho \in [0, \pi]$,
#   $$E = \frac{s}{2\pi}\bigl(\sin\theta + (\pi - \theta)\cos\theta\bigr), \qquad \dot E = \frac{\pi - \theta}{2\pi};$$
# - erf $\phi(u) = \operatorname{erf}(u)$, so $\phi'(u) = \frac{2}{\sqrt\pi}e^{-u^2}$ (Williams 1997): with
#   $A = 1 + 2q_{11}$ and $B = 1 + 2q_{22}$,
#   $$E = \frac2\pi\arcsin\frac{2q_{12}}{\sqrt{AB}}, \qquad \dot E = \frac{4}{\pi\sqrt{AB - 4q_{12}^2}}.$$
#
# **`mlp_kernels(x1, x2, depth, activation, sigma_w2, sigma_b2)`**: `x1` of shape (n1, d) and `x2` of shape
# (n2, d) are float64 torch tensors, `depth` $= L \ge 1$ an integer (up to 30 in the tests), `activation` one of the
# three names, `sigma_w2` $= \sigma_w^2 > 0$ and `sigma_b2` $= \sigma_b^2 \ge 0$ numbers. Return the tuple
# `(nngp, ntk)` $= (\Sigma^{(L+1)}, \Theta^{(L+1)})$, each of shape (n1, n2).
#
# *What is accepted.* Returned arrays may be torch tensors (any float dtype), numpy arrays or lists; compute with
# torch, numpy or Python floats, with any correct formula (e.g. $\arccos$ or $\arctan2$, $\sqrt{q_{11}q_{22}}$ or
# $\sqrt{q_{11}}\sqrt{q_{22}}$, vectorized or with loops), in **float64**. *Tolerance.* Every returned array is
# compared entrywise with the package's values: $|\text{yours} - \text{ref}| \le 10^{-6}\,|\text{ref}| +
# 10^{-7}\max|\text{ref}|$, the maximum taken over the entries of that array (`check_answer`, in the tests' tools
# cell after your answer). The absolute floor is there because $\arccos$ is ill-conditioned at $\rho = \pm1$: one
# unit in the last place of $\rho$ moves $\dot E$ by about $2.4\cdot10^{-9}$, so correct float64 formulas differ there
# by a few $10^{-9}$; the tests include correlations exactly $\pm1$ (a point with itself, parallel inputs $x' = cx$,
# antipodal ones $x' = -x$).
# Rounding can push $\rho$ past $\pm1$ by one unit in the last place: clip it to $[-1, 1]$ before taking $\arccos$.
# Float32 arithmetic is not accurate enough ($\dot E$ off by up to $10^{-4}$ at $\rho = \pm1$).
#
# <details><summary>Hint 1: which variances?</summary>
#
# Lesson 02, "Why the triple matters": the expectation for the pair $(x, x')$ needs both variances, and the
# variances change from layer to layer. Carry the diagonals along: $\Sigma^{(l+1)}(x,x) = \sigma_w^2 E(q, q, q) +
# \sigma_b^2$ with $q = \Sigma^{(l)}(x,x)$, the same map as for the pair.
# </details>
#
# <details><summary>Hint 2: ReLU without clipping</summary>
#
# With $r = \sqrt{\max(q_{11}q_{22} - q_{12}^2, 0)}$ and $\theta = \operatorname{arctan2}(r, q_{12})$ the angle needs no
# clipping, $s\sin\theta = r$ and $s\cos\theta = q_{12}$, so $E = \frac{1}{2\pi}\bigl(r + (\pi - \theta)q_{12}\bigr)$.
# </details>
#
# ---
#
# **中文** · (a) 对偶激活函数与递归公式
#
# **`dual(name, q11, q22, q12)`**，其中 `name` 为 `"identity"`、`"relu"` 或 `"erf"`。测试传入三个长度相同的一维
# float64 torch 张量（不需要广播）：方差 $q_{11}, q_{22} > 0$，协方差 $|q_{12}| \le \sqrt{q_{11}q_{22}}$，
# 包括取等号的情形（相关系数恰好为 $\pm1$）。返回元组 `(E, Edot)`：两个与输入形状相同的数组，
# 按下面的闭式表达式逐元素计算：
#
# - 恒等函数 $\phi(u) = u$：$E = q_{12}$，$\dot E = 1$；
# - ReLU $\phi(u) = \max(u, 0)$（Cho & Saul 2009）：令 $s = \sqrt{q_{11}q_{22}}$，$\rho = q_{12}/s$，
#   $\theta = \arccos\rho \in [0, \pi]$，则
#   $$E = \frac{s}{2\pi}\bigl(\sin\theta + (\pi - \theta)\cos\theta\bigr), \qquad \dot E = \frac{\pi - \theta}{2\pi}；$$
# - erf $\phi(u) = \operatorname{erf}(u)$，于是 $\phi'(u) = \frac{2}{\sqrt\pi}e^{-u^2}$（Williams 1997）：令
#   $A = 1 + 2q_{11}$，$B = 1 + 2q_{22}$，则
#   $$E = \frac2\pi\arcsin\frac{2q_{12}}{\sqrt{AB}}, \qquad \dot E = \frac{4}{\pi\sqrt{AB - 4q_{12}^2}}。$$
#
# **`mlp_kernels(x1, x2, depth, activation, sigma_w2, sigma_b2)`**：形状为 (n1, d) 的 `x1` 和形状为 (n2, d)
# 的 `x2` 是 float64 torch 张量，`depth` $= L \ge 1$ 是整数（测试中最大为 30），`activation` 是上面三个名字之一，
# `sigma_w2` $= \sigma_w^2 > 0$ 和 `sigma_b2` $= \sigma_b^2 \ge 0$ 是数。返回元组
# `(nngp, ntk)` $= (\Sigma^{(L+1)}, \Theta^{(L+1)})$，两者的形状都是 (n1, n2)。
#
# *接受什么样的答案。* 返回的数组可以是 torch 张量（任意浮点类型）、numpy 数组或列表；可以用 torch、numpy 或
# Python 浮点数计算，公式只要正确即可（例如用 $\arccos$ 或 $\arctan2$，用 $\sqrt{q_{11}q_{22}}$ 或
# $\sqrt{q_{11}}\sqrt{q_{22}}$，向量化或用循环），但要用 **float64**。*容差。* 每个返回的数组都逐元素地与软件包的
# 值比较：$|\text{你的值} - \text{参考值}| \le 10^{-6}\,|\text{参考值}| + 10^{-7}\max|\text{参考值}|$，
# 最大值取遍该数组的所有元素（即你的答案之后测试工具单元中的 `check_answer`）。之所以有这个绝对容差下限，
# 是因为 $\arccos$ 在 $\rho = \pm1$ 处是病态的：$\rho$ 在末位上差一个单位，$\dot E$ 就变化约 $2.4\cdot10^{-9}$，所以正确的 float64
# 公式在那里会相差几个 $10^{-9}$；测试包含相关系数恰好为 $\pm1$ 的情形（一个点与它自身、平行的输入 $x' = cx$、
# 反向的输入 $x' = -x$）。舍入可能使 $\rho$ 超出 $\pm1$ 一个末位单位：取 $\arccos$ 之前先把它裁剪到 $[-1, 1]$。
# float32 运算的精度不够（在 $\rho = \pm1$ 处 $\dot E$ 最多差 $10^{-4}$）。
#
# <details><summary>提示 1：用哪些方差？</summary>
#
# 第 02 课“为什么需要三元组”：输入对 $(x, x')$ 的期望需要两个方差，而方差逐层变化。
# 把对角元素一起递推：$\Sigma^{(l+1)}(x,x) = \sigma_w^2 E(q, q, q) + \sigma_b^2$，其中 $q = \Sigma^{(l)}(x,x)$，
# 用的正是输入对的那个映射。
# </details>
#
# <details><summary>提示 2：不用裁剪的 ReLU 写法</summary>
#
# 令 $r = \sqrt{\max(q_{11}q_{22} - q_{12}^2, 0)}$，$\theta = \operatorname{arctan2}(r, q_{12})$，这样求角度不需要裁剪，
# 并且 $s\sin\theta = r$，$s\cos\theta = q_{12}$，所以 $E = \frac{1}{2\pi}\bigl(r + (\pi - \theta)q_{12}\bigr)$。
# </details>

# %% nbgrader={"grade": false, "solution": true, "locked": false, "grade_id": "dual_and_recursion", "schema_version": 3}
def dual(name, q11, q22, q12):
    ### BEGIN SOLUTION
    if name == "identity":
        return q12.clone(), torch.ones_like(q12)
    if name == "relu":
        r = (q11 * q22 - q12 * q12).clamp_min(0).sqrt()
        theta = torch.atan2(r, q12)
        return (r + (math.pi - theta) * q12) / (2 * math.pi), (math.pi - theta) / (2 * math.pi)
    if name == "erf":
        a, b = 1 + 2 * q11, 1 + 2 * q22
        e = 2 / math.pi * torch.asin((2 * q12 / (a * b).sqrt()).clamp(-1, 1))
        return e, 4 / math.pi / (a * b - 4 * q12 * q12).sqrt()
    raise ValueError(f"unknown activation {name!r}")
    ### END SOLUTION


def mlp_kernels(x1, x2, depth, activation, sigma_w2, sigma_b2):
    ### BEGIN SOLUTION
    d = x1.shape[1]
    cross = sigma_w2 * x1 @ x2.T / d + sigma_b2
    v1 = sigma_w2 * (x1 * x1).sum(1) / d + sigma_b2
    v2 = sigma_w2 * (x2 * x2).sum(1) / d + sigma_b2
    ntk = cross
    for _ in range(depth):
        e, e_dot = dual(activation, v1[:, None].expand_as(cross), v2[None, :].expand_as(cross), cross)
        v1 = sigma_w2 * dual(activation, v1, v1, v1)[0] + sigma_b2
        v2 = sigma_w2 * dual(activation, v2, v2, v2)[0] + sigma_b2
        cross = sigma_w2 * e + sigma_b2
        ntk = cross + sigma_w2 * e_dot * ntk
    return cross, ntk
    ### END SOLUTION

# %% nbgrader={"grade": false, "solution": false, "locked": true, "grade_id": "test_tools", "schema_version": 3}
# The tests' tools: the comparison. It comes after your answer, so that a helper of yours with the same name cannot
# replace it.
# 测试工具：比较方式。它位于你的答案之后，这样你自己的同名辅助函数不会替换它。
# The comparison, entrywise: |answer - reference| <= 1e-6 |reference| + 1e-7 max|reference|.
# 比较方式（逐元素）：|答案 - 参考值| <= 1e-6 |参考值| + 1e-7 max|参考值|。
from ntk_helpers.course.grading import check_kernel as check_answer  # noqa: E402

# %% nbgrader={"grade": true, "solution": false, "locked": true, "points": 1, "grade_id": "test_visible", "schema_version": 3}
# Visible tests: the three duals (ReLU at correlation 0 and exactly 1; erf with unequal variances, correlations
# -1, 0, 0.4 and 1); the ReLU recursion with a bias (the variances change with depth); the deep linear network's
# closed form. Tolerance: `check_answer` (the tests' tools).
# 可见测试：三种对偶函数（ReLU 在相关系数为 0 和恰好为 1 处；erf 的两个方差不相等，相关系数为 -1、0、0.4 和 1）；
# 带偏置的 ReLU 递归（方差随深度变化）；深层线性网络的闭式解。容差：`check_answer`（测试工具）。
t = lambda *values: torch.tensor(values, dtype=torch.float64)
g = torch.Generator().manual_seed(0)
x1 = torch.randn(4, 3, generator=g, dtype=torch.float64) * t(0.5, 1.0, 1.5, 2.0)[:, None]
x2 = torch.randn(5, 3, generator=g, dtype=torch.float64)
reference = nh.mlp(3, "relu", sigma_w=math.sqrt(1.3), sigma_b=math.sqrt(0.4)).kernel(x1, x2)
erf_q = t(0.5, 2.0, 1.0, 1.5), t(2.0, 0.5, 1.0, 1.5), t(-1.0, 1.0, 0.0, 0.6)
erf_reference = nh.erf().dual(*erf_q)
with forbid((nh.Layer, "kernel"), (nh.Kernel, "from_inputs"), (nh.Activation, "dual")):
    identity = unpack(dual("identity", t(1.0, 2.0, 0.5), t(1.0, 3.0, 2.0), t(0.2, -0.5, 1.0)), 2,
                      'dual("identity", q11, q22, q12)')
    relu = unpack(dual("relu", t(1.0, 4.0), t(1.0, 1.0), t(0.0, 2.0)), 2, 'dual("relu", q11, q22, q12)')
    erf = unpack(dual("erf", *(q.clone() for q in erf_q)), 2, 'dual("erf", q11, q22, q12)')
    nngp, ntk = unpack(mlp_kernels(x1, x2, 3, "relu", 1.3, 0.4), 2, 'mlp_kernels(x1, x2, 3, "relu", 1.3, 0.4)')
    linear = unpack(mlp_kernels(x1, x2, 3, "identity", 1.7, 0.0), 2,
                    'mlp_kernels(x1, x2, 3, "identity", 1.7, 0.0)')
check_answer(identity[0], t(0.2, -0.5, 1.0), 'dual("identity", [1, 2, 0.5], [1, 3, 2], [0.2, -0.5, 1])[0]')
check_answer(identity[1], t(1.0, 1.0, 1.0), 'dual("identity", [1, 2, 0.5], [1, 3, 2], [0.2, -0.5, 1])[1]')
check_answer(relu[0], t(1 / (2 * math.pi), 1.0), 'dual("relu", [1, 4], [1, 1], [0, 2])[0]')   # s/(2 pi), s/2
check_answer(relu[1], t(0.25, 0.5), 'dual("relu", [1, 4], [1, 1], [0, 2])[1]')               # 1/4, 1/2
erf_call = 'dual("erf", [0.5, 2, 1, 1.5], [2, 0.5, 1, 1.5], [-1, 1, 0, 0.6])'
check_answer(erf[0], erf_reference[0], f"{erf_call}[0]")
check_answer(erf[1], erf_reference[1], f"{erf_call}[1]")
check_answer(nngp, reference.nngp, 'mlp_kernels(x1, x2, 3, "relu", 1.3, 0.4)[0]')
check_answer(ntk, reference.ntk, 'mlp_kernels(x1, x2, 3, "relu", 1.3, 0.4)[1]')
check_answer(linear[1], 4 * 1.7 ** 4 * x1 @ x2.T / 3,                 # (L+1) sigma_w^(2(L+1)) x.x'/d
      'mlp_kernels(x1, x2, 3, "identity", 1.7, 0.0)[1] = 4 * 1.7**4 * x1 @ x2.T / 3')
print("visible tests passed / 可见测试全部通过")

# %% nbgrader={"grade": true, "solution": false, "locked": true, "points": 1, "grade_id": "test_dual_hidden", "schema_version": 3}
# Hidden tests: the three duals on pairs with unequal variances, correlations in (-1, 1) and exactly +-1
# (q12 = +-q, and q12 = +-fl(sqrt(q11 q22)) rounded to the nearest float).
# 隐藏测试：三种对偶函数，输入对的两个方差不相等，相关系数在 (-1, 1) 内或恰好为 ±1
# （q12 = ±q，以及舍入到最近浮点数的 q12 = ±fl(sqrt(q11 q22))）。
# Measured on these triples, for the correct float64 variants (ReLU: arctan2; arccos of q12/sqrt(q11 q22),
# q12/(sqrt(q11) sqrt(q22)) or q12 * rsqrt(q11 q22), clipped, with sin(theta) or sqrt(1 - rho^2); numpy; math per
# element. erf: arcsin, an arctan2 form, sqrt(A) sqrt(B)): the largest difference from the reference is 4.7e-9 of
# max|ref| (in Edot at rho = -1: 2 ulps of rho through arccos), 0.05 of the allowed error; over 4000 random
# triples at correlation +-1 and within 8 ulps of it, at most 3.4e-9 in Edot and 1.2e-16 of the scale in E.
# Float32 arithmetic misses the tolerance here by a factor of 1000 (Edot off by 1e-4).
# 在这些三元组上对正确的 float64 写法实测（ReLU：arctan2；对 q12/sqrt(q11 q22)、q12/(sqrt(q11) sqrt(q22)) 或
# q12 * rsqrt(q11 q22) 裁剪后取 arccos，配合 sin(theta) 或 sqrt(1 - rho^2)；numpy；逐元素用 math。erf：arcsin、
# arctan2 形式、sqrt(A) sqrt(B)）：与参考值的最大差为 max|ref| 的 4.7e-9（在 rho = -1 处的 Edot 上：rho 的
# 2 个末位单位经 arccos 放大），是允许误差的 0.05；在 4000 组相关系数为 ±1 或与之相差不超过 8 个末位单位的
# 随机三元组上，Edot 至多差 3.4e-9，E 至多差尺度的 1.2e-16。float32 运算在这里超出容差 1000 倍（Edot 差 1e-4）。
### BEGIN HIDDEN TESTS
q11 = torch.tensor([1.0, 2.0, 0.5, 4.0, 3.0, 1.5, 4.0, 0.25, 6.0, 2.0, 0.3, 5.0, 7.0, 2.0, 0.3, 0.7],
                   dtype=torch.float64)
q22 = torch.tensor([1.0, 0.7, 2.0, 1.0, 3.0, 1.5, 9.0, 1.0, 0.3, 3.0, 0.7, 0.2, 1.1, 3.0, 0.7, 0.7],
                   dtype=torch.float64)
q12 = torch.tensor([0.3, -0.9, 0.2, 2.0, 3.0, -1.5, -6.0, 0.5, 1.2, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, -0.7],
                   dtype=torch.float64)
edge = (q11 * q22).sqrt()[9:15] * torch.tensor([1.0, -1.0, 1.0, -1.0, -1.0, 1.0], dtype=torch.float64)
q12[9:15] = edge                                  # |rho| = 1 up to the rounding of sqrt(q11 q22)
references = {name: nh.ACTIVATIONS[name]().dual(q11.clone(), q22.clone(), q12.clone())
              for name in ("identity", "relu", "erf")}
with forbid((nh.Layer, "kernel"), (nh.Kernel, "from_inputs"), (nh.Activation, "dual")):
    answers = {name: unpack(dual(name, q11.clone(), q22.clone(), q12.clone()), 2,
                            f'dual("{name}", q11, q22, q12)') for name in references}
for name, (e_ref, e_dot_ref) in references.items():
    check_answer(answers[name][0], e_ref, f'dual("{name}", q11, q22, q12)[0]')
    check_answer(answers[name][1], e_dot_ref, f'dual("{name}", q11, q22, q12)[1]')
### END HIDDEN TESTS

# %% nbgrader={"grade": true, "solution": false, "locked": true, "points": 1, "grade_id": "test_relu_hidden", "schema_version": 3}
# Hidden tests: ReLU and identity recursions with and without bias, depths 1-30, inputs of different norms, parallel
# (x' = 3x) and antipodal (x' = -x, -0.7x) pairs; bias-free ReLU at scaled inputs (2 x1, 0.5 x2).
# 隐藏测试：有偏置和无偏置的 ReLU 与恒等递归，深度 1–30，输入的范数各不相同，包括平行（x' = 3x）和反向
# （x' = -x、-0.7x）的输入对；无偏置的 ReLU 在缩放后的输入（2 x1, 0.5 x2）上。
# Measured on these inputs (the variants above, each with the variances carried per pair or read from one Gram
# matrix over x1 and x2): largest |difference| / max|ref| 6.2e-9 at depth 1 without bias (the antipodal pairs: above a
# floor of 1e-9) and 5.2e-8 at depth 30 with sigma_w^2 = 2 and no bias, 0.14 of the allowed error. There the
# correlations approach 1 and the recursion amplifies rounding: for that setting the difference grows to 2.3e-8
# (depth 20), 8.1e-8 (50), 3.2e-7 (100), 1.1e-6 (200), hence depth <= 30 here.
# 在这些输入上实测（上面的各种写法，方差或按输入对递推，或从 x1 与 x2 合并的 Gram 矩阵中读出）：
# 最大 |差值| / max|ref| 在深度 1、无偏置时为 6.2e-9（反向的输入对：超过 1e-9 的下限），在深度 30、
# sigma_w^2 = 2、无偏置时为 5.2e-8，是允许误差的 0.14。此时相关系数趋于 1，递归会放大舍入误差：在这一设置下差值随深度增长为 2.3e-8（深度 20）、8.1e-8（50）、3.2e-7（100）、
# 1.1e-6（200），所以这里深度不超过 30。
### BEGIN HIDDEN TESTS
g = torch.Generator().manual_seed(11)
a1 = torch.randn(6, 4, generator=g, dtype=torch.float64)
a1 = a1 * torch.linspace(0.3, 2.0, 6, dtype=torch.float64)[:, None]
a2 = torch.randn(5, 4, generator=g, dtype=torch.float64)
a2 = a2 * torch.linspace(1.5, 0.5, 5, dtype=torch.float64)[:, None]
edges = torch.cat([a2, 3 * a1[:2], -a1[2:4], -0.7 * a1[4:]])      # parallel and antipodal partners of a1's rows
settings = [(4, "relu", 2.0, 0.0), (2, "relu", 1.3, 0.4), (1, "relu", 2.0, 0.1), (5, "relu", 0.8, 1.0),
            (5, "identity", 1.0, 0.3), (1, "relu", 2.0, 0.0), (30, "relu", 2.0, 0.0), (20, "relu", 1.3, 0.4)]
references = [nh.mlp(L, act, sigma_w=math.sqrt(w2), sigma_b=math.sqrt(b2)).kernel(a1, edges)
              for L, act, w2, b2 in settings]
scaled_reference = nh.mlp(3).kernel(2 * a1, 0.5 * a2).ntk                    # = the ntk at (a1, a2): homogeneous
with forbid((nh.Layer, "kernel"), (nh.Kernel, "from_inputs"), (nh.Activation, "dual")):
    answers = [unpack(mlp_kernels(a1, edges, *s), 2, f"mlp_kernels(x1, x2, {', '.join(map(repr, s))})")
               for s in settings]
    scaled = unpack(mlp_kernels(2 * a1, 0.5 * a2, 3, "relu", 2.0, 0.0), 2,
                    "mlp_kernels(2 * x1, 0.5 * x2, 3, 'relu', 2.0, 0.0)")[1]
for s, reference, (nngp, ntk) in zip(settings, references, answers):
    call = f"mlp_kernels(x1, x2, {', '.join(map(repr, s))})"
    check_answer(nngp, reference.nngp, f"{call}[0]")
    check_answer(ntk, reference.ntk, f"{call}[1]")
check_answer(scaled, scaled_reference, "mlp_kernels(2 * x1, 0.5 * x2, 3, 'relu', 2.0, 0.0)[1]")
### END HIDDEN TESTS

# %% nbgrader={"grade": true, "solution": false, "locked": true, "points": 1, "grade_id": "test_erf_hidden", "schema_version": 3}
# Hidden tests: erf recursions with and without bias, depths 1-10, inputs of different norms, antipodal pairs.
# Measured: the erf variants differ from the reference by at most 1.2e-15 of max|ref| here.
# 隐藏测试：有偏置和无偏置的 erf 递归，深度 1–10，输入的范数各不相同，包括反向的输入对。
# 实测：这里 erf 的各种写法与参考值之差至多为 max|ref| 的 1.2e-15。
### BEGIN HIDDEN TESTS
g = torch.Generator().manual_seed(12)
c1 = torch.randn(5, 3, generator=g, dtype=torch.float64)
c1 = c1 * torch.linspace(0.5, 2.5, 5, dtype=torch.float64)[:, None]
c2 = torch.cat([torch.randn(4, 3, generator=g, dtype=torch.float64), -c1[:2]])
settings = [(3, "erf", 1.7, 0.2), (2, "erf", 1.0, 0.0), (1, "erf", 3.0, 0.5), (10, "erf", 1.2, 0.1)]
references = [nh.mlp(L, act, sigma_w=math.sqrt(w2), sigma_b=math.sqrt(b2)).kernel(c1, c2)
              for L, act, w2, b2 in settings]
with forbid((nh.Layer, "kernel"), (nh.Kernel, "from_inputs"), (nh.Activation, "dual")):
    answers = [unpack(mlp_kernels(c1, c2, *s), 2, f"mlp_kernels(x1, x2, {', '.join(map(repr, s))})")
               for s in settings]
for s, reference, (nngp, ntk) in zip(settings, references, answers):
    call = f"mlp_kernels(x1, x2, {', '.join(map(repr, s))})"
    check_answer(nngp, reference.nngp, f"{call}[0]")
    check_answer(ntk, reference.ntk, f"{call}[1]")
### END HIDDEN TESTS

# %% [markdown] nbgrader={"grade": false, "solution": false, "locked": true, "grade_id": "part_b", "schema_version": 3}
# ## (b) What does $\dot\Sigma$ do, and what is the NTK of a deep linear network?
#
# In a few sentences: what is the role of $\dot\Sigma^{(l+1)}$ in the recursion, and what does depth change in the
# NTK of a network with the identity activation?
#
# ---
#
# **中文** · (b) $\dot\Sigma$ 起什么作用？深层线性网络的 NTK 是什么？
#
# 用几句话回答：$\dot\Sigma^{(l+1)}$ 在递归公式中起什么作用？对于使用恒等激活函数的网络，
# 深度改变了它的 NTK 的什么？可以用英文或中文作答。

# %% [markdown] nbgrader={"grade": true, "solution": true, "locked": false, "points": 2, "grade_id": "answer_b", "schema_version": 3}
# **Rubric (for the grader; the whole cell is replaced by "YOUR ANSWER HERE" in the student version).**
#
# 1 point: $\dot\Sigma^{(l+1)} = \sigma_w^2\mathbb E[\phi'\phi']$ is the backward ("gradient transmission") factor: it
# multiplies the previous layers' NTK, i.e. says how much of the lower layers' tangent features survives layer
# $l+1$; on the diagonal it is the $\chi_1$-type factor of mean-field theory.
# 1 point: for the identity $\dot E \equiv 1$, so $\dot\Sigma \equiv \sigma_w^2$ and (no bias)
# $\Theta^{(L+1)} = (L+1)\sigma_w^{2(L+1)} x\cdot x'/d$: a rescaled linear kernel; depth changes only the scale.
#
# **Model answer.**
# $\dot\Sigma$ carries gradients backwards: the NTK of layer $l+1$ is its own covariance plus $\dot\Sigma^{(l+1)}$ times the
# NTK of everything below, so $\dot\Sigma$ measures how much of the lower layers' parameter gradients reaches the
# output. For the identity activation $\dot\Sigma = \sigma_w^2$ is constant and the NTK is
# $(L+1)\sigma_w^{2(L+1)}x\cdot x'/d$ — the linear kernel, only rescaled by depth.
