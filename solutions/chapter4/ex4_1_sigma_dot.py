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
# $q_{11} = \Sigma^{(l)}(x,x)$, $q_{22} = \Sigma^{(l)}(x',x')$, $q_{12} = \Sigma^{(l)}(x,x')$.
# The network has $L$ hidden layers and a linear readout, so its NNGP is $\Sigma^{(L+1)}$ and its NTK $\Theta^{(L+1)}$.
#
# You re-derive the recursion here, so do **not** call the package's kernels or duals in your answer
# (`nh.mlp(...).kernel`, `nh.relu().dual`, `nh.Kernel`, ...): the tests use them as the reference and
# fail an answer that calls them. Points: (a) 1 + 3 hidden, (b) 2 manual.
#
# ---
#
# **中文**
#
# **习题 4.1 · $\dot\Sigma$ 的作用；恒等激活函数**
#
# *教材第 4.1 节，第 02 课。* 沿用课程的约定（neural-tangents 的 `stax`）：NTK 参数化，
# $\Sigma^{(1)}(x,x') = \sigma_w^2\,x\cdot x'/d + \sigma_b^2$，$\Theta^{(1)} = \Sigma^{(1)}$，并且对 $l = 1..L$ 有
#
# $$\Sigma^{(l+1)} = \sigma_w^2 E^{(l)} + \sigma_b^2, \quad \dot\Sigma^{(l+1)} = \sigma_w^2 \dot E^{(l)}, \quad
#   \Theta^{(l+1)} = \Sigma^{(l+1)} + \dot\Sigma^{(l+1)}\,\Theta^{(l)},$$
#
# 其中 $E = \mathbb E[\phi(u)\phi(v)]$，$\dot E = \mathbb E[\phi'(u)\phi'(v)]$，期望对
# $(u, v) \sim \mathcal N(0, [[q_{11}, q_{12}], [q_{12}, q_{22}]])$ 求取；对第 $l$ 层的输入对 $(x, x')$，
# $q_{11} = \Sigma^{(l)}(x,x)$，$q_{22} = \Sigma^{(l)}(x',x')$，$q_{12} = \Sigma^{(l)}(x,x')$。
# 网络有 $L$ 个隐藏层和一个线性读出层，因此它的 NNGP 核（神经网络高斯过程核）是 $\Sigma^{(L+1)}$，
# 神经正切核（NTK）是 $\Theta^{(L+1)}$。
#
# 本题要你自己重新推导递归公式，所以答案中**不要**调用软件包提供的核或对偶激活函数
# （`nh.mlp(...).kernel`、`nh.relu().dual`、`nh.Kernel` 等）：测试用它们计算参考值，
# 调用了它们的答案判为不通过。分值：(a) 1 分（可见测试）+ 3 分（隐藏测试），(b) 2 分（人工评分）。

# %% nbgrader={"grade": false, "solution": false, "locked": true, "grade_id": "setup", "schema_version": 3}
import math

import numpy as np
import torch
import ntk_helpers as nh
from ntk_helpers.course.grading import check_close, forbid, unpack

# %% [markdown] nbgrader={"grade": false, "solution": false, "locked": true, "grade_id": "part_a", "schema_version": 3}
# ## (a) Dual activations and the recursion
#
# **`dual(name, q11, q22, q12)`** for `name` in `"identity"`, `"relu"`, `"erf"` (closed forms: lesson 02 and the
# docstring of `ntk_helpers.activations`). The tests pass three float64 torch tensors of one common shape
# (variances $q_{11}, q_{22} > 0$, covariance $|q_{12}| \le \sqrt{q_{11}q_{22}}$, equality included). Return the
# tuple `(E, Edot)`: two arrays of that same shape, computed elementwise.
#
# **`mlp_kernels(x1, x2, depth, activation, sigma_w2, sigma_b2)`**: `x1` of shape (n1, d) and `x2` of shape
# (n2, d) are float64 torch tensors, `depth` $= L \ge 1$, `sigma_w2` $= \sigma_w^2 > 0$ and
# `sigma_b2` $= \sigma_b^2 \ge 0$ are numbers. Return the tuple `(nngp, ntk)` $= (\Sigma^{(L+1)}, \Theta^{(L+1)})$,
# each of shape (n1, n2).
#
# *What is accepted.* Arrays may be torch tensors (any float dtype), numpy arrays or lists; compute with torch or
# numpy, with any correct formula (e.g. $\arccos$ or $\arctan2$, vectorized or with loops). Compute in **float64**
# (torch's and numpy's float64; float32 intermediates are not accurate enough): the tests compare with the
# package's reference values to a relative tolerance of $10^{-6}$. Rounding can push $q_{12}/\sqrt{q_{11}q_{22}}$
# past $\pm1$ by one unit in the last place (it happens on the diagonal, $x = x'$): clip it to $[-1, 1]$ before
# taking $\arccos$.
#
# <details><summary>Hint 1: which variances?</summary>
#
# Lesson 02, "Why the triple matters": the expectation for the pair $(x, x')$ needs both variances, and the
# variances change from layer to layer. Carry the diagonals along: $\Sigma^{(l+1)}(x,x) = \sigma_w^2 E(q, q, q) +
# \sigma_b^2$ with $q = \Sigma^{(l)}(x,x)$, the same map as for the pair.
# </details>
#
# <details><summary>Hint 2: the ReLU dual</summary>
#
# With $s = \sqrt{q_{11}q_{22}}$, $\rho = q_{12}/s$ clipped to $[-1, 1]$ (rounding can push it just past 1) and
# $\theta = \arccos\rho$: $E = \frac{s}{2\pi}(\sin\theta + (\pi - \theta)\cos\theta)$ and $\dot E = \frac{\pi - \theta}{2\pi}$
# (Cho & Saul 2009; lesson 02, section 4.1.1).
# </details>
#
# ---
#
# **中文**
#
# **(a) 对偶激活函数与递归公式**
#
# **`dual(name, q11, q22, q12)`**，其中 `name` 为 `"identity"`、`"relu"` 或 `"erf"`（闭式表达式见第 02 课和
# `ntk_helpers.activations` 的文档字符串）。测试传入三个形状相同的 float64 torch 张量
# （方差 $q_{11}, q_{22} > 0$，协方差 $|q_{12}| \le \sqrt{q_{11}q_{22}}$，包括取等号的情形）。
# 返回元组 `(E, Edot)`：两个与输入形状相同的数组，逐元素计算。
#
# **`mlp_kernels(x1, x2, depth, activation, sigma_w2, sigma_b2)`**：形状为 (n1, d) 的 `x1` 和形状为 (n2, d)
# 的 `x2` 是 float64 torch 张量，`depth` $= L \ge 1$，`sigma_w2` $= \sigma_w^2 > 0$ 和
# `sigma_b2` $= \sigma_b^2 \ge 0$ 是数。返回元组 `(nngp, ntk)` $= (\Sigma^{(L+1)}, \Theta^{(L+1)})$，
# 两者的形状都是 (n1, n2)。
#
# *接受什么样的答案。* 数组可以是 torch 张量（任意浮点类型）、numpy 数组或列表；可以用 torch 或 numpy 计算，
# 公式只要正确即可（例如用 $\arccos$ 或 $\arctan2$，向量化或用循环）。请用 **float64** 计算
# （torch 和 numpy 的 float64；float32 的中间结果精度不够）：测试以 $10^{-6}$ 的相对容差与软件包的参考值比较。
# 舍入可能使 $q_{12}/\sqrt{q_{11}q_{22}}$ 超出 $\pm1$ 一个末位单位（发生在对角线上，即 $x = x'$ 时）：
# 取 $\arccos$ 之前先把它裁剪到 $[-1, 1]$。
#
# <details><summary>提示 1：用哪些方差？</summary>
#
# 第 02 课“为什么需要三元组”：输入对 $(x, x')$ 的期望需要两个方差，而方差逐层变化。
# 把对角元素一起递推：$\Sigma^{(l+1)}(x,x) = \sigma_w^2 E(q, q, q) + \sigma_b^2$，其中 $q = \Sigma^{(l)}(x,x)$，
# 用的正是输入对的那个映射。
# </details>
#
# <details><summary>提示 2：ReLU 的对偶函数</summary>
#
# 令 $s = \sqrt{q_{11}q_{22}}$，$\rho = q_{12}/s$ 裁剪到 $[-1, 1]$（舍入可能使它略大于 1），$\theta = \arccos\rho$，则
# $E = \frac{s}{2\pi}(\sin\theta + (\pi - \theta)\cos\theta)$，$\dot E = \frac{\pi - \theta}{2\pi}$
# （Cho & Saul 2009；第 02 课 4.1.1 节）。
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

# %% nbgrader={"grade": true, "solution": false, "locked": true, "points": 1, "grade_id": "test_visible", "schema_version": 3}
# Visible tests: the identity and ReLU duals; the ReLU recursion with a bias (variances change with depth);
# the deep linear network's closed form.
# 可见测试：恒等与 ReLU 的对偶函数；带偏置的 ReLU 递归（方差随深度变化）；深层线性网络的闭式解。
t = lambda *values: torch.tensor(values, dtype=torch.float64)
g = torch.Generator().manual_seed(0)
x1 = torch.randn(4, 3, generator=g, dtype=torch.float64) * t(0.5, 1.0, 1.5, 2.0)[:, None]
x2 = torch.randn(5, 3, generator=g, dtype=torch.float64)
reference = nh.mlp(3, "relu", sigma_w=math.sqrt(1.3), sigma_b=math.sqrt(0.4)).kernel(x1, x2)
with forbid((nh.Layer, "kernel"), (nh.Kernel, "from_inputs"), (nh.Activation, "dual")):
    e, e_dot = unpack(dual("identity", t(1.0, 2.0, 0.5), t(1.0, 3.0, 2.0), t(0.2, -0.5, 1.0)), 2,
                      'dual("identity", ...)')
    check_close(e, t(0.2, -0.5, 1.0), rtol=1e-6, name='E of dual("identity", ...)')
    check_close(e_dot, t(1.0, 1.0, 1.0), rtol=1e-6, name='Edot of dual("identity", ...)')
    e, e_dot = unpack(dual("relu", t(1.0, 4.0), t(1.0, 1.0), t(0.0, 2.0)), 2, 'dual("relu", ...)')
    check_close(e, t(1 / (2 * math.pi), 1.0), rtol=1e-6, atol=1e-9,
                name='E of dual("relu", q11=[1, 4], q22=[1, 1], q12=[0, 2])')
    check_close(e_dot, t(0.25, 0.5), rtol=1e-6, atol=1e-9,
                name='Edot of dual("relu", q11=[1, 4], q22=[1, 1], q12=[0, 2])')
    nngp, ntk = unpack(mlp_kernels(x1, x2, 3, "relu", 1.3, 0.4), 2,
                       'mlp_kernels(x1, x2, 3, "relu", 1.3, 0.4)')
    linear = unpack(mlp_kernels(x1, x2, 3, "identity", 1.7, 0.0), 2,
                    'mlp_kernels(x1, x2, 3, "identity", 1.7, 0.0)')
scale = reference.ntk.abs().max()
check_close(nngp, reference.nngp, rtol=1e-6, atol=1e-9 * scale,
            name='nngp of mlp_kernels(x1, x2, 3, "relu", 1.3, 0.4)')
check_close(ntk, reference.ntk, rtol=1e-6, atol=1e-9 * scale,
            name='ntk of mlp_kernels(x1, x2, 3, "relu", 1.3, 0.4)')
closed_form = 4 * 1.7 ** 4 * x1 @ x2.T / 3                 # (L+1) sigma_w^(2(L+1)) x.x'/d
check_close(linear[1], closed_form, rtol=1e-6, atol=1e-9 * closed_form.abs().max(),
            name='ntk of mlp_kernels(x1, x2, 3, "identity", 1.7, 0.0) (deep linear network)')
print("visible tests passed / 可见测试全部通过")

# %% nbgrader={"grade": true, "solution": false, "locked": true, "points": 1, "grade_id": "test_dual_hidden", "schema_version": 3}
# Hidden tests: the three duals on pairs with unequal variances, correlations in (-1, 1) and exactly +-1.
# 隐藏测试：三种对偶函数，输入对的两个方差不相等，相关系数在 (-1, 1) 内或恰好为 ±1。
### BEGIN HIDDEN TESTS
q11 = torch.tensor([1.0, 2.0, 0.5, 4.0, 3.0, 1.5, 4.0, 0.25, 6.0], dtype=torch.float64)
q22 = torch.tensor([1.0, 0.7, 2.0, 1.0, 3.0, 1.5, 9.0, 1.0, 0.3], dtype=torch.float64)
q12 = torch.tensor([0.3, -0.9, 0.2, 2.0, 3.0, -1.5, -6.0, 0.5, 1.2], dtype=torch.float64)
references = {name: nh.ACTIVATIONS[name]().dual(q11, q22, q12) for name in ("identity", "relu", "erf")}
with forbid((nh.Layer, "kernel"), (nh.Kernel, "from_inputs"), (nh.Activation, "dual")):
    answers = {name: unpack(dual(name, q11.clone(), q22.clone(), q12.clone()), 2, f'dual("{name}", ...)')
               for name in references}
for name, (e_ref, e_dot_ref) in references.items():
    check_close(answers[name][0], e_ref, rtol=1e-6, atol=1e-7, name=f'E of dual("{name}", ...)')
    check_close(answers[name][1], e_dot_ref, rtol=1e-6, atol=1e-7, name=f'Edot of dual("{name}", ...)')
### END HIDDEN TESTS

# %% nbgrader={"grade": true, "solution": false, "locked": true, "points": 1, "grade_id": "test_relu_hidden", "schema_version": 3}
# Hidden tests: ReLU and identity recursions with and without bias, depths 1-5, inputs of different norms.
# 隐藏测试：有偏置和无偏置的 ReLU 与恒等递归，深度 1–5，输入的范数各不相同。
### BEGIN HIDDEN TESTS
g = torch.Generator().manual_seed(11)
a1 = torch.randn(6, 4, generator=g, dtype=torch.float64)
a1 = a1 * torch.linspace(0.3, 2.0, 6, dtype=torch.float64)[:, None]
a2 = torch.randn(5, 4, generator=g, dtype=torch.float64)
a2 = a2 * torch.linspace(1.5, 0.5, 5, dtype=torch.float64)[:, None]
settings = [(4, "relu", 2.0, 0.0), (2, "relu", 1.3, 0.4), (1, "relu", 2.0, 0.1), (5, "relu", 0.8, 1.0),
            (5, "identity", 1.0, 0.3)]
references = [nh.mlp(L, act, sigma_w=math.sqrt(w2), sigma_b=math.sqrt(b2)).kernel(a1, a2)
              for L, act, w2, b2 in settings]
homogeneous = nh.mlp(3).kernel(a1, a2).ntk
with forbid((nh.Layer, "kernel"), (nh.Kernel, "from_inputs"), (nh.Activation, "dual")):
    answers = [unpack(mlp_kernels(a1, a2, *s), 2, f"mlp_kernels(x1, x2, {', '.join(map(repr, s))})")
               for s in settings]
    scaled = unpack(mlp_kernels(2 * a1, 0.5 * a2, 3, "relu", 2.0, 0.0), 2,
                    "mlp_kernels(2 x1, 0.5 x2, ...)")[1]
    unscaled = unpack(mlp_kernels(a1, a2, 3, "relu", 2.0, 0.0), 2, "mlp_kernels(x1, x2, ...)")[1]
for s, reference, (nngp, ntk) in zip(settings, references, answers):
    call = f"mlp_kernels(x1, x2, {', '.join(map(repr, s))})"
    scale = reference.ntk.abs().max()
    check_close(nngp, reference.nngp, rtol=1e-6, atol=1e-9 * scale, name=f"nngp of {call}")
    check_close(ntk, reference.ntk, rtol=1e-6, atol=1e-9 * scale, name=f"ntk of {call}")
unscaled = check_close(unscaled, homogeneous, rtol=1e-6, atol=1e-9 * homogeneous.abs().max(),
                       name="ntk of mlp_kernels(x1, x2, 3, 'relu', 2.0, 0.0)")
check_close(scaled, unscaled, rtol=1e-8, atol=1e-10 * unscaled.abs().max(),
            name="ReLU without bias is homogeneous: ntk at (2 x1, 0.5 x2) vs at (x1, x2)")
### END HIDDEN TESTS

# %% nbgrader={"grade": true, "solution": false, "locked": true, "points": 1, "grade_id": "test_erf_hidden", "schema_version": 3}
# Hidden tests: erf recursions with and without bias.
# 隐藏测试：有偏置和无偏置的 erf 递归。
### BEGIN HIDDEN TESTS
g = torch.Generator().manual_seed(12)
c1 = torch.randn(5, 3, generator=g, dtype=torch.float64)
c1 = c1 * torch.linspace(0.5, 2.5, 5, dtype=torch.float64)[:, None]
c2 = torch.randn(4, 3, generator=g, dtype=torch.float64)
settings = [(3, "erf", 1.7, 0.2), (2, "erf", 1.0, 0.0), (1, "erf", 3.0, 0.5)]
references = [nh.mlp(L, act, sigma_w=math.sqrt(w2), sigma_b=math.sqrt(b2)).kernel(c1, c2)
              for L, act, w2, b2 in settings]
with forbid((nh.Layer, "kernel"), (nh.Kernel, "from_inputs"), (nh.Activation, "dual")):
    answers = [unpack(mlp_kernels(c1, c2, *s), 2, f"mlp_kernels(x1, x2, {', '.join(map(repr, s))})")
               for s in settings]
for s, reference, (nngp, ntk) in zip(settings, references, answers):
    call = f"mlp_kernels(x1, x2, {', '.join(map(repr, s))})"
    scale = reference.ntk.abs().max()
    check_close(nngp, reference.nngp, rtol=1e-6, atol=1e-9 * scale, name=f"nngp of {call}")
    check_close(ntk, reference.ntk, rtol=1e-6, atol=1e-9 * scale, name=f"ntk of {call}")
### END HIDDEN TESTS

# %% [markdown] nbgrader={"grade": false, "solution": false, "locked": true, "grade_id": "part_b", "schema_version": 3}
# ## (b) What does $\dot\Sigma$ do, and what is the NTK of a deep linear network?
#
# In a few sentences: what is the role of $\dot\Sigma^{(l+1)}$ in the recursion, and what does depth change in the
# NTK of a network with the identity activation?
#
# ---
#
# **中文**
#
# **(b) $\dot\Sigma$ 起什么作用？深层线性网络的 NTK 是什么？**
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
