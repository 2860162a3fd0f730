# %% [markdown] nbgrader={"grade": false, "solution": false, "locked": true, "grade_id": "intro", "schema_version": 3}
# # Exercise 4.5 · How μP breaks the kernel limit
#
# *Chapter 4.4.2, lesson 05b.* A ReLU network with input dimension $d$, two hidden layers of width $m$ and a
# scalar output has three kinds of layer, as in Tensor Programs V (Yang et al. 2022), Table 3:
#
# $$h_1 = \phi(\text{mult}_\text{in}\, W_\text{in} x), \qquad h_2 = \phi(\text{mult}_\text{hid}\, W_\text{hid} h_1),
#   \qquad f(x) = \text{mult}_\text{out}\, W_\text{out} h_2 ,$$
#
# with $W_\text{in}$ of shape $(m, d)$, $W_\text{hid}$ $(m, m)$ and $W_\text{out}$ $(1, m)$. As in lesson 05b's
# table of the package's parameterizations, layer $\ell$ has a constant **multiplier** $\text{mult}_\ell$, its trained
# weights start with i.i.d. entries $\mathcal N(0, v_\ell)$ (**initial variance** $v_\ell$), and SGD updates them
# with its own **learning-rate factor** $\text{lr}_\ell$:
# $W_\ell \leftarrow W_\ell - \eta\,\text{lr}_\ell\,\partial \mathcal L/\partial W_\ell$.
# In lesson 05b's abc form (where $a$, $b$, $c$ are *exponents*) this is $\text{mult}_\ell = m^{-a_\ell}$,
# $v_\ell = m^{-2b_\ell}$, $\text{lr}_\ell = m^{-c}$, up to constants.
# Points: (a) 1 + 3 hidden, (b) 2 manual.
#
# ---
#
# **中文**
#
# **习题 4.5 · μP 如何打破核极限**
#
# *教材第 4.4.2 节，第 05b 课。* 一个 ReLU 网络，输入维数为 $d$，有两个宽度为 $m$ 的隐藏层，输出是一个标量。
# 与 Tensor Programs V（Yang et al. 2022）的 Table 3 一样，它有三类层：
#
# $$h_1 = \phi(\text{mult}_\text{in}\, W_\text{in} x), \qquad h_2 = \phi(\text{mult}_\text{hid}\, W_\text{hid} h_1),
#   \qquad f(x) = \text{mult}_\text{out}\, W_\text{out} h_2 ,$$
#
# 其中 $W_\text{in}$ 的形状为 $(m, d)$，$W_\text{hid}$ 为 $(m, m)$，$W_\text{out}$ 为 $(1, m)$。
# 与第 05b 课中本软件包各种参数化的那张表一样，第 $\ell$ 层有一个常数**乘子** $\text{mult}_\ell$；
# 它的可训练权重在初始化时各元素独立地服从 $\mathcal N(0, v_\ell)$（**初始方差** $v_\ell$）；
# SGD 以该层自己的**学习率因子** $\text{lr}_\ell$ 更新它们：
# $W_\ell \leftarrow W_\ell - \eta\,\text{lr}_\ell\,\partial \mathcal L/\partial W_\ell$。
# 用第 05b 课的 abc 形式来写（那里的 $a$、$b$、$c$ 是**指数**），就是 $\text{mult}_\ell = m^{-a_\ell}$、
# $v_\ell = m^{-2b_\ell}$、$\text{lr}_\ell = m^{-c}$（常数因子除外）。
# 分值：(a) 1 分（可见测试）+ 3 分（隐藏测试），(b) 2 分（人工评分）。

# %% nbgrader={"grade": false, "solution": false, "locked": true, "grade_id": "setup", "schema_version": 3}
import math

import torch
import ntk_helpers as nh
from ntk_helpers.course.grading import as_scalar

# %% [markdown] nbgrader={"grade": false, "solution": false, "locked": true, "grade_id": "part_a", "schema_version": 3}
# ## (a) `param_table(parameterization, m, d)`
#
# Return a dict `{"input": (mult, v, lr), "hidden": (mult, v, lr), "output": (mult, v, lr)}` (multiplier, initial
# variance, learning-rate factor of each layer) for `parameterization` equal to
#
# - `"ntk"`: the NTK parameterization (lesson 05b): $v = 1$, $\text{mult} = 1/\sqrt{\text{fan-in}}$, one learning
#   rate ($\text{lr} = 1$);
# - `"standard"`: the standard parameterization (lesson 05b's "standard (PyTorch-like)" row), with LeCun's
#   initialization: $\text{mult} = 1$, $v = 1/\text{fan-in}$, one learning rate ($\text{lr} = 1$). (Not Xavier's
#   $2/(\text{fan-in} + \text{fan-out})$: for the input layer that is about $2/m$, another power of $m$.)
# - `"mup"`: μP for SGD (Tensor Programs V, Table 3; lesson 05b, section 4.4.2).
#
# The fan-in is $d$ for the input layer and $m$ for the hidden and output layers.
#
# **Arguments and answer.** `parameterization` is one of the three strings; `m` and `d` are positive Python ints.
# Each value of the dict is a tuple or list of three positive, finite numbers $(\text{mult}, v, \text{lr})$: Python
# `float`/`int`, NumPy scalars or 0-d torch tensors (float32 or float64). Any code may compute them (`math`, NumPy,
# torch), but compute them from `m` and `d`: the tests go up to $m = 10^6$, where a network does not fit in memory.
#
# **What is graded.** The trained quantity is the *effective* weight $\text{mult}_\ell W_\ell$. It starts with
# variance $\text{mult}_\ell^2 v_\ell$, and one SGD step moves it by
# $\eta\, \text{mult}_\ell^2\,\text{lr}_\ell\,\partial\mathcal L/\partial(\text{mult}_\ell W_\ell)$, so two
# combinations fix the training completely: the **effective initial variance** $\text{mult}_\ell^2 v_\ell$ and the
# **effective learning rate** $\text{mult}_\ell^2\,\text{lr}_\ell$ (in the abc form, $m^{-2(a_\ell + b_\ell)}$ and
# $m^{-(2a_\ell + c)}$). The tests evaluate your table at three widths with $d$ fixed: $m = 2^8, 2^{12}, 2^{16}$ at
# $d = 8$ (visible test, the μP table) and $m = 100, 10^4, 10^6$ at $d = 3, 8, 100$ (hidden tests, all three
# tables). For every layer and both combinations they take the slope of $\log(\text{combination})$ against
# $\log m$ on each of the two intervals and require
# 1. that the two slopes agree within 0.01 (the combination is a power of $m$ over the range), and
# 2. that their mean is within ±0.02 (absolute) of the reference exponent.
#
# Constant factors (powers of $d$, $\sigma_w$, factors of 2) are **not** graded, and neither is how you split a
# power of $m$ between $\text{mult}_\ell$, $v_\ell$ and $\text{lr}_\ell$: moving $m^{\theta}$ into
# $\text{mult}_\ell$ and $m^{-2\theta}$ into $v_\ell$ and $\text{lr}_\ell$ trains exactly the same network (lesson
# 05's symmetry $a \to a + \theta$, $b \to b - \theta$, $c \to c - 2\theta$; lesson 05b's table and Table 3 of the
# paper are two such forms). Once your function runs, `width_exponents("mup")` (defined below) returns the
# exponents of your table.
#
# <details><summary>Hint 1</summary>
#
# Lesson 05b, section 4.4.2, has the table of all three parameterizations. For each layer work out
# $\text{mult}^2 v$ and $\text{mult}^2\,\text{lr}$ and read off the power of $m$; the input layer's fan-in is $d$,
# which is a constant here.
# </details>
#
# <details><summary>Hint 2</summary>
#
# μP differs from the NTK parameterization in the output multiplier ($1/m$ instead of $1/\sqrt m$) and in the
# learning rates, chosen so that every layer's pre-activations move by $\Theta(1)$ in one step at every width. In
# Table 3 of Tensor Programs V the multipliers are 1, so its initial variances and learning rates are already the
# effective ones.
# </details>
#
# ---
#
# **中文**
#
# **(a) `param_table(parameterization, m, d)`**
#
# 返回一个字典 `{"input": (mult, v, lr), "hidden": (mult, v, lr), "output": (mult, v, lr)}`，
# 即每一层的乘子、初始方差和学习率因子。`parameterization` 取以下三个值：
#
# - `"ntk"`：NTK 参数化（第 05b 课）：$v = 1$，$\text{mult} = 1/\sqrt{\text{fan-in}}$（fan-in 即扇入），
#   所有层用同一个学习率（$\text{lr} = 1$）；
# - `"standard"`：标准参数化（第 05b 课表中“标准（类似 PyTorch）”那一行），采用 LeCun 初始化：
#   $\text{mult} = 1$，$v = 1/\text{fan-in}$，所有层用同一个学习率（$\text{lr} = 1$）。
#   （不是 Xavier 的 $2/(\text{fan-in} + \text{fan-out})$：对输入层它约为 $2/m$，是 $m$ 的另一个幂次。）
# - `"mup"`：适用于 SGD 的 μP（Tensor Programs V，Table 3；第 05b 课第 4.4.2 节）。
#
# 输入层的扇入是 $d$，隐藏层和输出层的扇入是 $m$。
#
# **参数与返回值。** `parameterization` 是上面三个字符串之一；`m` 和 `d` 是正的 Python 整数。
# 字典的每个值是一个含三个有限正数 $(\text{mult}, v, \text{lr})$ 的元组或列表：Python 的 `float`/`int`、
# NumPy 标量或 0 维 torch 张量（float32 或 float64）都可以。用什么代码计算都可以（`math`、NumPy、torch），
# 但要由 `m` 和 `d` 直接算出：测试用到 $m = 10^6$，这么宽的网络放不进内存。
#
# **评分内容。** 真正被训练的是*等效*权重 $\text{mult}_\ell W_\ell$。它的初始方差为
# $\text{mult}_\ell^2 v_\ell$，一步 SGD 使它移动
# $\eta\, \text{mult}_\ell^2\,\text{lr}_\ell\,\partial\mathcal L/\partial(\text{mult}_\ell W_\ell)$，
# 所以训练过程完全由两个组合决定：**等效初始方差** $\text{mult}_\ell^2 v_\ell$ 和
# **等效学习率** $\text{mult}_\ell^2\,\text{lr}_\ell$（用 abc 形式写，就是 $m^{-2(a_\ell + b_\ell)}$ 和
# $m^{-(2a_\ell + c)}$）。测试在 $d$ 固定时取三个宽度计算你的表：可见测试在 $d = 8$ 时取
# $m = 2^8, 2^{12}, 2^{16}$（μP 的表）；隐藏测试在 $d = 3, 8, 100$ 时取 $m = 100, 10^4, 10^6$（全部三张表）。
# 对每一层和每个组合，测试在两个区间上分别求 $\log(\text{组合})$ 对 $\log m$ 的斜率，并要求：
# 1. 两个斜率相差不超过 0.01（在这一范围内该组合是 $m$ 的幂）；
# 2. 两者的平均值与参考指数相差不超过 ±0.02（绝对误差）。
#
# 常数因子（$d$ 的幂、$\sigma_w$、因子 2）**不**计分；$m$ 的幂怎样在 $\text{mult}_\ell$、$v_\ell$ 和
# $\text{lr}_\ell$ 之间分配也不计分：把 $m^{\theta}$ 移进 $\text{mult}_\ell$，同时把 $m^{-2\theta}$ 移进
# $v_\ell$ 和 $\text{lr}_\ell$，训练出的网络完全相同（第 05b 课的对称性 $a \to a + \theta$、$b \to b - \theta$、
# $c \to c - 2\theta$；第 05b 课的表和论文的 Table 3 就是两种这样的写法）。你的函数能运行之后，
# `width_exponents("mup")`（在下面定义）会返回你的表所对应的指数。
#
# <details><summary>提示 1</summary>
#
# 第 05b 课第 4.4.2 节有三种参数化的完整表格。对每一层算出 $\text{mult}^2 v$ 和 $\text{mult}^2\,\text{lr}$，
# 读出其中 $m$ 的幂次；输入层的扇入是 $d$，在这里是常数。
# </details>
#
# <details><summary>提示 2</summary>
#
# μP 与 NTK 参数化的区别在于输出乘子（$1/m$ 而不是 $1/\sqrt m$）和学习率：学习率的选取
# 使每一层的预激活在任何宽度下一步都移动 $\Theta(1)$。Tensor Programs V 的 Table 3 中乘子都是 1，
# 所以那里的初始方差和学习率已经就是等效的值。
# </details>

# %% nbgrader={"grade": false, "solution": true, "locked": false, "grade_id": "param_table", "schema_version": 3}
def param_table(parameterization, m, d):
    ### BEGIN SOLUTION
    if parameterization == "ntk":
        return {"input": (1 / math.sqrt(d), 1.0, 1.0), "hidden": (1 / math.sqrt(m), 1.0, 1.0),
                "output": (1 / math.sqrt(m), 1.0, 1.0)}
    if parameterization == "standard":
        return {"input": (1.0, 1 / d, 1.0), "hidden": (1.0, 1 / m, 1.0), "output": (1.0, 1 / m, 1.0)}
    if parameterization == "mup":
        return {"input": (1 / math.sqrt(d), 1.0, float(m * d)), "hidden": (1 / math.sqrt(m), 1.0, float(m)),
                "output": (1 / m, 1.0, float(m))}
    raise ValueError(f"unknown parameterization {parameterization!r}")
    ### END SOLUTION

# %% nbgrader={"grade": false, "solution": false, "locked": true, "grade_id": "exponents_helper", "schema_version": 3}
LAYERS = ("input", "hidden", "output")
LAYERS_ZH = {"input": "输入层", "hidden": "隐藏层", "output": "输出层"}
COMBINATIONS = (("effective initial variance mult^2 v", "等效初始方差 mult^2 v"),
                ("effective learning rate mult^2 lr", "等效学习率 mult^2 lr"))


def effective(parameterization, m, d):
    """{layer: (mult^2 v, mult^2 lr)} of param_table, as floats (checks the format on the way).
    {层: (mult^2 v, mult^2 lr)}：由 param_table 算出，转换为浮点数（同时检查格式）。"""
    call = f"param_table({parameterization!r}, {m}, {d})"
    table = param_table(parameterization, m, d)
    assert isinstance(table, dict) and set(table) == set(LAYERS), (
        f"{call} must be a dict with keys {LAYERS} / {call} 应返回以 {LAYERS} 为键的字典; "
        f"got / 实际得到: {table!r}")
    result = {}
    for layer in LAYERS:
        assert hasattr(table[layer], "__len__") and len(table[layer]) == 3, (
            f"{call}[{layer!r}]: expected a tuple (mult, v, lr) / {call}[{layer!r}]：应为元组 (mult, v, lr); "
            f"got / 实际得到: {table[layer]!r}")
        mult, v, lr = (as_scalar(x, name=f"{call}[{layer!r}][{i}]") for i, x in enumerate(table[layer]))
        assert all(math.isfinite(x) and x > 0 for x in (mult, v, lr)), (
            f"{call}[{layer!r}]: entries must be positive and finite / {call}[{layer!r}]：各项必须是有限的正数; "
            f"got / 实际得到: {(mult, v, lr)}")
        result[layer] = (mult * mult * v, mult * mult * lr)
    return result


def width_exponents(parameterization, d=8, widths=(2 ** 8, 2 ** 12, 2 ** 16)):
    """{layer: (exponent of m in mult^2 v, exponent of m in mult^2 lr)}, fitted over `widths`.
    Raises if the entries are not a power of m over this range (the slopes on the intervals differ by > 0.01).
    {层: (mult^2 v 中 m 的指数, mult^2 lr 中 m 的指数)}，在 `widths` 上拟合得到。
    如果在这一范围内它们不是 m 的幂（各区间上的斜率相差超过 0.01），就报错。"""
    tables = [effective(parameterization, m, d) for m in widths]
    exponents = {}
    for layer in LAYERS:
        pair = []
        for k, (what, what_zh) in enumerate(COMBINATIONS):
            logs = [math.log(t[layer][k]) for t in tables]
            slopes = [(logs[i + 1] - logs[i]) / math.log(widths[i + 1] / widths[i])
                      for i in range(len(widths) - 1)]
            assert max(slopes) - min(slopes) <= 0.01, (
                f"{parameterization}, {layer} layer: the {what} is not a power of m at d = {d} "
                f"(slopes {slopes} between m = {widths}) / {parameterization}，{LAYERS_ZH[layer]}："
                f"{what_zh} 在 d = {d} 时不是 m 的幂（m = {widths} 之间的斜率为 {slopes}）")
            pair.append(round(sum(slopes) / len(slopes), 3))
        exponents[layer] = tuple(pair)
    return exponents


def check_exponents(parameterization, expected, d=8, widths=(2 ** 8, 2 ** 12, 2 ** 16)):
    measured = width_exponents(parameterization, d, widths)
    for layer in LAYERS:
        for k, (what, what_zh) in enumerate(COMBINATIONS):
            assert abs(measured[layer][k] - expected[layer][k]) <= 0.02, (
                f"{parameterization}, {layer} layer: the {what} scales as m^{measured[layer][k]:.2f}, "
                f"expected m^{expected[layer][k]} ± 0.02 (d = {d}) / {parameterization}，{LAYERS_ZH[layer]}："
                f"{what_zh} 按 m^{measured[layer][k]:.2f} 缩放，应为 m^{expected[layer][k]} ± 0.02（d = {d}）")

# %% nbgrader={"grade": true, "solution": false, "locked": true, "points": 1, "grade_id": "test_visible", "schema_version": 3}
# Visible test: the format of all three tables and the width exponents of the muP table at d = 8
# (m = 2^8, 2^12, 2^16). It catches the usual muP mistakes: the NTK output multiplier 1/sqrt(m), an output or
# hidden learning-rate factor without its power of m, "every layer scaled by 1/sqrt(m)".
# Tolerance: exponents within ±0.02 absolute; the two local slopes within 0.01 of each other. Rounding is far
# below that: a table of float32 0-d tensors moves an exponent by less than 1e-7 (measured: 4.3e-8 for the
# lesson-05 tables with m^2 moved into every multiplier, whose smallest entry is 1e-30 at m = 10^6, still a
# normal float32 number).
# 可见测试：三张表的格式，以及 d = 8 时（m = 2^8、2^12、2^16）μP 表的宽度指数。它能发现 μP 的常见错误：
# 沿用 NTK 的输出乘子 1/sqrt(m)、输出层或隐藏层的学习率因子漏了 m 的幂、"每一层都按 1/sqrt(m) 缩放"。
# 容差：指数的绝对误差不超过 ±0.02；两个区间上的斜率相差不超过 0.01。舍入误差远小于此：
# 用 float32 的 0 维张量写出的表，指数的偏差小于 1e-7（实测：把 m^2 移进每个乘子的第 05b 课的表，
# 偏差为 4.3e-8；它在 m = 10^6 时最小的元素是 1e-30，仍是 float32 的正规数）。
for p in ("ntk", "standard", "mup"):
    effective(p, 64, 8)
check_exponents("mup", {"input": (0, 1), "hidden": (-1, 0), "output": (-2, -1)})
print("visible tests passed / 可见测试全部通过")

# %% nbgrader={"grade": true, "solution": false, "locked": true, "points": 3, "grade_id": "test_hidden", "schema_version": 3}
# Hidden tests: the exponents of all three tables at d = 3, 8, 100, m = 100, 10^4, 10^6 (same tolerance).
# 隐藏测试：三张表的指数，在 d = 3、8、100，m = 100、10^4、10^6 下检查（容差相同）。
### BEGIN HIDDEN TESTS
REFERENCE = {
    "ntk": {"input": (0, 0), "hidden": (-1, -1), "output": (-1, -1)},
    "standard": {"input": (0, 0), "hidden": (-1, 0), "output": (-1, 0)},
    "mup": {"input": (0, 1), "hidden": (-1, 0), "output": (-2, -1)},
}
for d in (8, 3, 100):
    for p, expected in REFERENCE.items():
        check_exponents(p, expected, d=d, widths=(100, 10_000, 1_000_000))
### END HIDDEN TESTS

# %% [markdown] nbgrader={"grade": false, "solution": false, "locked": true, "grade_id": "demo_intro", "schema_version": 3}
# ### See your tables train (not graded)
#
# The cell below trains the network above, built from your tables, for 30 SGD steps on 16 points, at widths
# 64, 256, 1024. It prints the relative change of the features $h_2$ (the $16\times m$ matrix of second-layer
# features, $\lVert \Delta h_2\rVert_F/\lVert h_2\rVert_F$), of the feature kernel $h_2 h_2^\top$, and the slope of
# each against $m$ on log-log axes (lesson 05b measures the same two slopes). Use it in (b).
#
# ---
#
# **中文**
#
# **看看你的表训练出什么（不计分）**
#
# 下面的单元用你的表构建上面的网络，在 16 个点上做 30 步 SGD，宽度取 64、256、1024。
# 它打印特征 $h_2$（第二层特征组成的 $16\times m$ 矩阵，$\lVert \Delta h_2\rVert_F/\lVert h_2\rVert_F$）的
# 相对变化（feature change）、特征核 $h_2 h_2^\top$ 的相对变化（feature-kernel change），
# 以及两者对 $m$ 的双对数斜率（log-log slope；第 05b 课测量的也是这两个斜率）。(b) 中要用到这些数。

# %% nbgrader={"grade": false, "solution": false, "locked": true, "grade_id": "demo", "schema_version": 3}
def feature_change(parameterization, m, eta, steps=30, d=8, seed=0):
    """(relative change of the features h_2, relative change of the feature kernel h_2 h_2^T) after training.
    训练后（特征 h_2 的相对变化，特征核 h_2 h_2^T 的相对变化）。"""
    x = nh.sphere(16, d, seed=0)
    y = torch.sin(2 * x[:, 0])
    table = {k: [as_scalar(e, name=k) for e in v] for k, v in param_table(parameterization, m, d).items()}
    g = torch.Generator().manual_seed(seed)
    shapes = {"input": (m, d), "hidden": (m, m), "output": (1, m)}
    weights = {k: math.sqrt(table[k][1]) * torch.randn(*shape, generator=g, dtype=torch.float64)
               for k, shape in shapes.items()}
    for w in weights.values():
        w.requires_grad_()

    def features():      # sqrt(2): the ReLU's sigma_w, a constant
        # sqrt(2)：ReLU 的 sigma_w，是一个常数
        h = torch.relu(math.sqrt(2) * table["input"][0] * x @ weights["input"].T)
        return torch.relu(math.sqrt(2) * table["hidden"][0] * h @ weights["hidden"].T)

    start = features().detach()
    for _ in range(steps):
        loss = 0.5 * ((table["output"][0] * features() @ weights["output"][0] - y) ** 2).mean()
        grads = torch.autograd.grad(loss, list(weights.values()))
        with torch.no_grad():
            for (k, w), grad in zip(weights.items(), grads):
                w -= eta * table[k][2] * grad
    end = features().detach()
    return (float((end - start).norm() / start.norm()),
            float((end @ end.T - start @ start.T).norm() / (start @ start.T).norm()))


widths = [64, 256, 1024]
for p, eta in [("ntk", 1.0), ("mup", 0.05)]:
    changes = [feature_change(p, m, eta) for m in widths]
    for k, what in enumerate(("feature change", "feature-kernel change")):
        values = [c[k] for c in changes]
        print(f"{p:>4} (eta = {eta}): {what:<21} {[round(v, 4) for v in values]} at m = {widths}, "
              f"log-log slope {nh.loglog_slope(widths, values):.2f}")

# %% [markdown] nbgrader={"grade": false, "solution": false, "locked": true, "grade_id": "part_b", "schema_version": 3}
# ## (b) The dynamical dichotomy
#
# Yang & Hu (2021) show that, as $m\to\infty$, a stable parameterization (in their family of
# abc-parameterizations, lesson 05b) that actually trains is either in a **kernel regime** (the NTK stays fixed during
# training) or in a **feature-learning regime** (hidden features move by $\Theta(1)$), never both.
#
# 1. Explain why both at once is impossible: what would features that move by $\Theta(1)$ do to the NTK? Which
#    entries of your tables put μP on the feature-learning side and the NTK parameterization on the kernel side?
# 2. "The NTK freezes" in the kernel regime: what does that mean for the parameters, and for the network's output,
#    during training? (Compare [errata A20](../../ERRATA.md#a20).)
#
# <details><summary>Hint</summary>
#
# Lesson 05b, section 4.4.2: the NTK is a sum over layers of (layer input) × (back-propagated gradient) inner products,
# weighted by the effective learning rates; "Deriving μP" and "Over many steps" say how far the features, the feature
# kernel and the weights move. Look at the numbers the cell above printed.
# </details>
#
# ---
#
# **中文**
#
# **(b) 动力学二分性**
#
# Yang & Hu (2021) 证明：当 $m\to\infty$ 时，一个稳定且确实在训练的参数化（属于他们的 abc 参数化族，见第 05b 课）
# 要么处于**核区域**（训练中 NTK 保持不变），要么处于**特征学习区域**（隐藏特征移动 $\Theta(1)$），
# 二者不可兼得。
#
# 1. 解释为什么二者不能同时成立：移动 $\Theta(1)$ 的特征会对 NTK 产生什么影响？你的表中哪些项
#    让 μP 落在特征学习一侧、让 NTK 参数化落在核一侧？
# 2. 在核区域中“NTK 冻结”：在训练过程中，这对参数意味着什么？对网络的输出又意味着什么？
#    （对照 [勘误 A20](../../ERRATA.md#a20)。）
#
# 可以用英文或中文作答。
#
# <details><summary>提示</summary>
#
# 第 05b 课第 4.4.2 节：NTK 是对各层求和的，每一层贡献（该层的输入）×（反向传播到该层的梯度）的内积，
# 并以等效学习率加权；“推导 μP”和“多步训练”两小节说明了特征、特征核和权重各移动多少。
# 再看看上面的单元打印出的数。
# </details>

# %% [markdown] nbgrader={"grade": true, "solution": true, "locked": false, "points": 2, "grade_id": "answer_b", "schema_version": 3}
# **Rubric (for the grader; the whole cell is replaced by "YOUR ANSWER HERE" in the student version).**
#
# 1 point, question 1.
# ½: the argument: the NTK
# $\Theta(x, x') = \sum_\ell \eta_\ell\,\langle \partial f(x)/\partial W_\ell, \partial f(x')/\partial W_\ell\rangle$
# is built from each layer's input features $h_{\ell-1}$ and back-propagated gradients, so if features move by
# $\Theta(1)$ the kernel moves by $\Theta(1)$; a fixed kernel needs features that move by $o(1)$. Citing the
# dichotomy (either regime, not both) without this mechanism earns nothing for this half. (This is one half of the
# theorem; that every stable, nontrivial abc-parameterization is in one of the two regimes is the other half,
# which Tensor Programs IV proves and nobody is asked to show here.)
# ½: the entries: μP's output multiplier $1/m$ (effective initial variance $m^{-2}$, so $f_0\to 0$) together with
# effective learning rates $\propto m$ (input), $1$ (hidden), $1/m$ (output), which make every layer's
# pre-activations move by $\Theta(1)$; versus NTK's effective learning rates $\propto 1/m$ on the hidden and output
# weights, with which one step moves every feature by $m^{-1/2}$ of its size (lesson 05b's one-step table). Numbers,
# if quoted, as lesson 05b and the cell above give them: under NTK the features move like $m^{-1/2}$ (printed slope
# ≈ −0.5) and the feature kernel like $m^{-1}$ (slope ≈ −1: it averages over $m$ units whose changes have random
# signs); the input and output weights move by $m^{-1/2}$ relative, the entries of the $m\times m$ hidden layer by
# $m^{-1}$; under μP both printed slopes are ≈ 0.
#
# 1 point, question 2: the linearization $f(\theta)\approx f(\theta_0) + \nabla f(\theta_0)(\theta-\theta_0)$
# stays exact and the kernel is constant, so training is kernel gradient descent; the parameters **do** move (each by
# a little, many of them, $\lVert\theta-\theta_0\rVert = O(1)$), and the output moves by $O(1)$: it fits the data.
# Answers saying that the parameters or the output stop moving get 0 for this point.
#
# **Model answer.**
# 1. The NTK is a sum over layers of products of each layer's input features with the gradients back-propagated to
#    it, weighted by the effective learning rates. If the hidden features changed by $\Theta(1)$ during training,
#    those products, and with them the kernel, would change by $\Theta(1)$: the kernel could not stay fixed. So a
#    parameterization has a fixed limiting kernel only if its features move by $o(1)$: the two regimes exclude each
#    other. (That every stable parameterization that trains falls into one of them is the other half of the theorem,
#    proved in Tensor Programs IV.) μP multiplies the output by $1/m$ (effective initial variance $m^{-2}$, so the
#    output starts at $0$ as $m\to\infty$) and uses effective learning rates $m$, $1$, $1/m$ for the input, hidden
#    and output layers; these make every pre-activation move by $\Theta(1)$, and both printed changes are flat in
#    $m$. The NTK parameterization has effective learning rates $1/m$ on the hidden and output weights: the input
#    and output weights move by $m^{-1/2}$ of their size, the $m\times m$ hidden weights by $m^{-1}$, the features by
#    $m^{-1/2}$ (slope ≈ −0.5 above, as in lesson 05b) and the feature kernel, an average over $m$ units, by $m^{-1}$
#    (slope ≈ −1): the kernel freezes.
# 2. Frozen means that the linearization around the initial parameters stays valid and the kernel is constant, so
#    the network trains like kernel gradient descent. The parameters still move: each one only by a little, but there
#    are many of them. And the output moves by $O(1)$: it fits the training data.
