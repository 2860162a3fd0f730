# %% [markdown] nbgrader={"grade": false, "solution": false, "locked": true, "grade_id": "intro", "schema_version": 3}
# # Exercise 4.5 · How μP breaks the kernel limit
#
# *Chapter 4.4.2, lesson 05.* A ReLU network with input dimension $d$, two hidden layers of width $m$ and a
# scalar output has three kinds of layer, as in Tensor Programs V (Yang et al. 2022), Table 3:
#
# $$h_1 = \phi(a_\text{in} W_\text{in} x), \qquad h_2 = \phi(a_\text{hid} W_\text{hid} h_1), \qquad
#   f(x) = a_\text{out} W_\text{out} h_2 ,$$
#
# with $W_\text{in}$ of shape $(m, d)$, $W_\text{hid}$ $(m, m)$ and $W_\text{out}$ $(1, m)$. Layer $\ell$ has a
# constant **multiplier** $a_\ell$, its trained weights start with i.i.d. entries $\mathcal N(0, v_\ell)$ (**initial
# variance** $v_\ell$), and SGD updates them with its own **learning rate** $\eta\,\lambda_\ell$:
# $W_\ell \leftarrow W_\ell - \eta\,\lambda_\ell\,\partial \mathcal L/\partial W_\ell$.
# Points: (a) 1 + 3 hidden, (b) 2 manual.
#
# ---
#
# **中文** · 习题 4.5 · μP 如何打破核极限
#
# *第 4.4.2 节，第 05 课。* 一个 ReLU 网络，输入维数为 $d$，有两个宽度为 $m$ 的隐藏层，输出是一个标量。
# 与 Tensor Programs V（Yang et al. 2022）的 Table 3 一样，它有三类层：
#
# $$h_1 = \phi(a_\text{in} W_\text{in} x), \qquad h_2 = \phi(a_\text{hid} W_\text{hid} h_1), \qquad
#   f(x) = a_\text{out} W_\text{out} h_2 ,$$
#
# 其中 $W_\text{in}$ 的形状为 $(m, d)$，$W_\text{hid}$ 为 $(m, m)$，$W_\text{out}$ 为 $(1, m)$。
# 第 $\ell$ 层有一个常数**乘子** $a_\ell$；它的可训练权重在初始化时各元素独立地服从
# $\mathcal N(0, v_\ell)$（**初始方差** $v_\ell$）；SGD 以该层自己的**学习率** $\eta\,\lambda_\ell$ 更新它们：
# $W_\ell \leftarrow W_\ell - \eta\,\lambda_\ell\,\partial \mathcal L/\partial W_\ell$。
# 分值：(a) 1 分 + 3 分隐藏测试，(b) 2 分人工评分。

# %% nbgrader={"grade": false, "solution": false, "locked": true, "grade_id": "setup", "schema_version": 3}
import math

import torch
import ntk_helpers as nh
from ntk_helpers.course.grading import as_scalar

# %% [markdown] nbgrader={"grade": false, "solution": false, "locked": true, "grade_id": "part_a", "schema_version": 3}
# ## (a) `param_table(parameterization, m, d)`
#
# Return a dict `{"input": (a, v, lam), "hidden": (a, v, lam), "output": (a, v, lam)}` (multiplier, initial
# variance, learning-rate factor of each layer) for `parameterization` equal to
#
# - `"ntk"`: the NTK parameterization (lesson 05): $v = 1$, $a = 1/\sqrt{\text{fan-in}}$, one learning rate
#   ($\lambda = 1$);
# - `"standard"`: PyTorch's usual set-up: $a = 1$, $v = 1/\text{fan-in}$, one learning rate ($\lambda = 1$);
# - `"mup"`: μP for SGD (Tensor Programs V, Table 3; lesson 05, section 4.4.2).
#
# The entries are positive numbers (Python `float`/`int`, a NumPy scalar or a 0-d tensor all work); a tuple or a
# list of three per layer.
#
# **What is graded.** The trained quantity is the *effective* weight $a_\ell W_\ell$. It starts with variance
# $a_\ell^2 v_\ell$, and one SGD step moves it by
# $\eta\, a_\ell^2\lambda_\ell\,\partial\mathcal L/\partial(a_\ell W_\ell)$, so two combinations fix the training
# completely: the **effective initial variance** $a_\ell^2 v_\ell$ and the **effective learning rate**
# $a_\ell^2\lambda_\ell$. The tests evaluate your table at several widths $m$ (with $d$ fixed) and compare the
# exponent of $m$ in both combinations, for every layer and every parameterization, with the reference exponents
# (tolerance ±0.02). Constant factors (powers of $d$, $\sigma_w$, factors of 2) are **not** graded, and neither is
# how you split a power of $m$ between $a_\ell$, $v_\ell$ and $\lambda_\ell$: moving $m^{\theta}$ into $a_\ell$
# and $m^{-2\theta}$ into $v_\ell$ and $\lambda_\ell$ trains exactly the same network (lesson 05's table and
# Table 3 of the paper are two such forms). Once your function runs, `width_exponents("mup")` (defined below)
# returns the exponents of your table.
#
# <details><summary>Hint 1</summary>
#
# Lesson 05, section 4.4.2, has the table of all three parameterizations. For each layer work out $a^2 v$ and
# $a^2\lambda$ and read off the power of $m$; the input layer's fan-in is $d$, which is a constant here.
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
# **中文** · (a) `param_table(parameterization, m, d)`
#
# 返回一个字典 `{"input": (a, v, lam), "hidden": (a, v, lam), "output": (a, v, lam)}`，
# 即每一层的乘子、初始方差和学习率因子。`parameterization` 取以下三个值：
#
# - `"ntk"`：NTK 参数化（第 05 课）：$v = 1$，$a = 1/\sqrt{\text{fan-in}}$（fan-in 即扇入），
#   所有层用同一个学习率（$\lambda = 1$）；
# - `"standard"`：PyTorch 的常规设置：$a = 1$，$v = 1/\text{fan-in}$，所有层用同一个学习率（$\lambda = 1$）；
# - `"mup"`：适用于 SGD 的 μP（Tensor Programs V，Table 3；第 05 课第 4.4.2 节）。
#
# 各项都是正数（Python 的 `float`/`int`、NumPy 标量或 0 维张量都可以）；
# 每一层对应一个含三个数的元组或列表。
#
# **评分内容。** 真正被训练的是*等效*权重 $a_\ell W_\ell$。它的初始方差为 $a_\ell^2 v_\ell$，
# 一步 SGD 使它移动 $\eta\, a_\ell^2\lambda_\ell\,\partial\mathcal L/\partial(a_\ell W_\ell)$，
# 所以训练过程完全由两个组合决定：**等效初始方差** $a_\ell^2 v_\ell$ 和**等效学习率** $a_\ell^2\lambda_\ell$。
# 测试在多个宽度 $m$ 下（$d$ 固定）计算你的表，对每一层、每一种参数化，
# 把这两个组合中 $m$ 的指数与参考指数比较（容差 ±0.02）。常数因子（$d$ 的幂、$\sigma_w$、因子 2）
# **不**计分；$m$ 的幂怎样在 $a_\ell$、$v_\ell$ 和 $\lambda_\ell$ 之间分配也不计分：
# 把 $m^{\theta}$ 移进 $a_\ell$，同时把 $m^{-2\theta}$ 移进 $v_\ell$ 和 $\lambda_\ell$，训练出的网络完全相同
# （第 05 课的表和论文的 Table 3 就是两种这样的写法）。你的函数能运行之后，
# `width_exponents("mup")`（在下面定义）会返回你的表所对应的指数。
#
# <details><summary>提示 1</summary>
#
# 第 05 课第 4.4.2 节有三种参数化的完整表格。对每一层算出 $a^2 v$ 和 $a^2\lambda$，读出其中 $m$ 的幂次；
# 输入层的扇入是 $d$，在这里是常数。
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


def effective(parameterization, m, d):
    """{layer: (a^2 v, a^2 lam)} of param_table, as floats (checks the format on the way).
    {层: (a^2 v, a^2 lam)}：由 param_table 算出，转换为浮点数（同时检查格式）。"""
    table = param_table(parameterization, m, d)
    assert isinstance(table, dict) and set(table) == set(LAYERS), (
        f"param_table({parameterization!r}, {m}, {d}) must be a dict with keys {LAYERS} / "
        f"应返回以 {LAYERS} 为键的字典; got / 实际得到: {table!r}")
    result = {}
    for layer in LAYERS:
        assert len(table[layer]) == 3, (
            f"{parameterization}, {layer}: expected a tuple (a, v, lam) / 应为元组 (a, v, lam); "
            f"got / 实际得到: {table[layer]!r}")
        a, v, lam = (as_scalar(x, name=f"param_table({parameterization!r}, {m}, {d})[{layer!r}][{i}]")
                     for i, x in enumerate(table[layer]))
        assert all(math.isfinite(x) and x > 0 for x in (a, v, lam)), (
            f"{parameterization}, {layer}: entries must be positive and finite / 各项必须是有限的正数; "
            f"got / 实际得到: {(a, v, lam)}")
        result[layer] = (a * a * v, a * a * lam)
    return result


def width_exponents(parameterization, d=8, widths=(2 ** 8, 2 ** 12, 2 ** 16)):
    """{layer: (exponent of m in a^2 v, exponent of m in a^2 lam)}, fitted over `widths`.
    Raises if the entries are not a power of m over this range (the two half-ranges disagree).
    {层: (a^2 v 中 m 的指数, a^2 lam 中 m 的指数)}，在 `widths` 上拟合得到。
    如果在这一范围内它们不是 m 的幂（前后两段给出的指数不一致），就报错。"""
    tables = [effective(parameterization, m, d) for m in widths]
    exponents = {}
    for layer in LAYERS:
        pair = []
        for k, what in enumerate(("a^2 v", "a^2 lam")):
            logs = [math.log(t[layer][k]) for t in tables]
            slopes = [(logs[i + 1] - logs[i]) / math.log(widths[i + 1] / widths[i])
                      for i in range(len(widths) - 1)]
            assert max(slopes) - min(slopes) < 0.01, (
                f"{parameterization}, {layer}: {what} is not a power of m / {what} 不是 m 的幂 "
                f"(local exponents / 局部指数: {slopes})")
            pair.append(round(sum(slopes) / len(slopes), 3))
        exponents[layer] = tuple(pair)
    return exponents


def check_exponents(parameterization, expected, d=8, widths=(2 ** 8, 2 ** 12, 2 ** 16)):
    measured = width_exponents(parameterization, d, widths)
    for layer in LAYERS:
        for k, what in enumerate(("effective initial variance a^2 v", "effective learning rate a^2 lam")):
            assert abs(measured[layer][k] - expected[layer][k]) <= 0.02, (
                f"{parameterization}, {layer} layer: the {what} scales as m^{measured[layer][k]:.2f}, "
                f"which is not the {parameterization} exponent (d = {d}) / {parameterization}，{layer} 层："
                f"{('等效初始方差 a^2 v', '等效学习率 a^2 lam')[k]} 按 m^{measured[layer][k]:.2f} 缩放，"
                f"不是 {parameterization} 应有的指数（d = {d}）")

# %% nbgrader={"grade": true, "solution": false, "locked": true, "points": 1, "grade_id": "test_visible", "schema_version": 3}
# Visible test: the format of all three tables and the width exponents of the muP table at d = 8.
# 可见测试：三张表的格式，以及 d = 8 时 μP 表的宽度指数。
for p in ("ntk", "standard", "mup"):
    effective(p, 64, 8)
check_exponents("mup", {"input": (0, 1), "hidden": (-1, 0), "output": (-2, -1)})
print("visible tests passed / 可见测试全部通过")

# %% nbgrader={"grade": true, "solution": false, "locked": true, "points": 3, "grade_id": "test_hidden", "schema_version": 3}
# Hidden tests: the exponents of all three tables, at other input dimensions and widths.
# 隐藏测试：三张表的指数，在其他输入维数和宽度下检查。
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
# 64, 256, 1024, and prints the relative change of the feature kernel $h_2 h_2^\top$. Use it in (b).
#
# ---
#
# **中文** · 看看你的表训练出什么（不计分）
#
# 下面的单元用你的表构建上面的网络，在 16 个点上做 30 步 SGD，宽度取 64、256、1024，
# 并打印特征核 $h_2 h_2^\top$ 的相对变化（feature-kernel change）和它对 $m$ 的双对数斜率（log-log slope）。
# (b) 中要用到这些数。

# %% nbgrader={"grade": false, "solution": false, "locked": true, "grade_id": "demo", "schema_version": 3}
def feature_change(parameterization, m, eta, steps=30, d=8, seed=0):
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
    return float((end @ end.T - start @ start.T).norm() / (start @ start.T).norm())


widths = [64, 256, 1024]
for p, eta in [("ntk", 1.0), ("mup", 0.05)]:
    changes = [feature_change(p, m, eta) for m in widths]
    print(f"{p:>4} (eta = {eta}): feature-kernel change {[round(c, 4) for c in changes]} at m = {widths}, "
          f"log-log slope {nh.loglog_slope(widths, changes):.2f}")

# %% [markdown] nbgrader={"grade": false, "solution": false, "locked": true, "grade_id": "part_b", "schema_version": 3}
# ## (b) The dynamical dichotomy
#
# Yang & Hu (2021) show that, as $m\to\infty$, a stable parameterization (in their family of
# abc-parameterizations, lesson 05) that actually trains is either in a **kernel regime** (the NTK stays fixed during
# training) or in a **feature-learning regime** (hidden features move by $\Theta(1)$), never both.
#
# 1. Explain why both at once is impossible: what would features that move by $\Theta(1)$ do to the NTK? Which
#    entries of your tables put μP on the feature-learning side and the NTK parameterization on the kernel side?
# 2. "The NTK freezes" in the kernel regime: what does that mean for the parameters, and for the network's output,
#    during training? (Compare [errata A20](../../ERRATA.md#a20).)
#
# <details><summary>Hint</summary>
#
# Lesson 05, section 4.4.2: the NTK is a sum over layers of (layer input) × (back-propagated gradient) inner products,
# weighted by the effective learning rates. Look at the numbers the cell above printed.
# </details>
#
# ---
#
# **中文** · (b) 动力学二分性
#
# Yang & Hu (2021) 证明：当 $m\to\infty$ 时，一个稳定且确实在训练的参数化（属于他们的 abc 参数化族，见第 05 课）
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
# 第 05 课第 4.4.2 节：NTK 是对各层求和的，每一层贡献（该层的输入）×（反向传播到该层的梯度）的内积，
# 并以等效学习率加权。再看看上面的单元打印出的数。
# </details>

# %% [markdown] nbgrader={"grade": true, "solution": true, "locked": false, "points": 2, "grade_id": "answer_b", "schema_version": 3}
# **Rubric (for the grader; the whole cell is replaced by "YOUR ANSWER HERE" in the student version).**
#
# 1 point, question 1.
# ½: the argument: the NTK
# $\Theta(x, x') = \sum_\ell \eta_\ell\,\langle \partial f(x)/\partial W_\ell, \partial f(x')/\partial W_\ell\rangle$
# is built from each layer's input features $h_{\ell-1}$ and back-propagated gradients, so if features move by
# $\Theta(1)$ the kernel moves by $\Theta(1)$; a fixed kernel needs features that move by $o(1)$. Citing the
# dichotomy (either regime, not both) without this mechanism earns nothing for this half.
# ½: the entries: μP's output multiplier $1/m$ (effective initial variance $m^{-2}$, so $f_0\to 0$) together with
# effective learning rates $\propto m$ (input), $1$ (hidden), $1/m$ (output), which make every layer's
# pre-activations move by $\Theta(1)$; versus NTK's effective learning rates $\propto 1/m$ on the hidden and output
# weights (each weight moves by $O(m^{-1/2})$, the features by $O(1/m)$ to $O(m^{-1/2})$; the printed slopes are
# ≈ −1 for NTK and ≈ 0 for μP).
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
#    parameterization has a fixed limiting kernel only if its features move by $o(1)$, which is the dichotomy. μP
#    multiplies the output by $1/m$ (effective initial variance $m^{-2}$, so the output starts at $0$ as
#    $m\to\infty$) and uses effective learning rates $m$, $1$, $1/m$ for the input, hidden and output layers; these
#    make every pre-activation move by $\Theta(1)$, and the printed feature change is flat in $m$. The NTK
#    parameterization has effective learning rates $1/m$ on the hidden and output weights: each weight moves by
#    $O(m^{-1/2})$, the features by about $1/m$ (slope ≈ −1 above), and the kernel freezes.
# 2. Frozen means that the linearization around the initial parameters stays valid and the kernel is constant, so
#    the network trains like kernel gradient descent. The parameters still move: each one only by a little, but there
#    are many of them. And the output moves by $O(1)$: it fits the training data.
