# %% [markdown]
# # 00 · 从这里开始：NTK 课程地图
# [在 Colab 中打开](https://colab.research.google.com/github/ntk-notebooks/ntk-notebooks/blob/main/notebooks/zh/00_start_here.ipynb) · [Binder](https://mybinder.org/v2/gh/ntk-notebooks/ntk-notebooks/HEAD?labpath=notebooks%2Fzh%2F00_start_here.ipynb)（在 Colab 上，要让图和滑块显示中文，请先运行 `%pip install mplfonts==0.0.11` 和 `%env NTK_LESSON_LANGUAGE=zh`）
# （[English version / 英文版](../00_start_here.ipynb)）
#
# 这组 notebook 讲授**神经正切核**（NTK）：它是什么，为什么非常宽的网络训练起来就像一个核方法，以及网络结构（深度、激活函数、卷积、残差连接、归一化）如何决定它是哪一个核。所有代码都是普通的 PyTorch，每一课在 2 个 CPU 核上都能在一分钟内运行完毕（由构建过程实测）。课程依据两份中文文本：一本教材的第 4 章「不同网络结构下的 NTK 形式」（第 4.1–4.5 节及习题 4.1–4.8），以及一篇 NTK 综述（第 1–10 节）。各课标题中保留该章的节号（4.1、4.2、…），但你不需要读这两份文本：每一课都会写明它用到的结论以及证明这些结论的论文，并在最后一节以折叠的方式列出两份文本中的错误。

# %%
# On Colab (or any Jupyter without this course's package) this installs it (once); here it does nothing.
import importlib, importlib.util, subprocess, sys
if importlib.util.find_spec("ntk_helpers") is None:
    package = "ntk-notebooks @ git+https://github.com/ntk-notebooks/ntk-notebooks"
    subprocess.run([sys.executable, "-m", "pip", "install", "--quiet", package], check=True)
    importlib.invalidate_caches()

# %% [markdown]
# ## 本课内容
#
# - NTK $\Theta(x,x')$ 衡量的是什么：在一个输入上走一步梯度下降，会让另一个输入上的输出移动多少；
# - 关于它随宽度增大的行为，人们证明了什么，由谁证明，需要什么假设；
# - 本课程中的同一份结构描述如何同时给出有限宽的 PyTorch 网络和它精确的无限宽核，以及课程如何比较这两者；
# - 如何把核读作两个输入之间夹角的函数，以及深度和激活函数对它有什么影响；
# - 每个主题在课程中的位置，以及每一课都使用的记号和术语。
#
# **预备知识：** Python 与 PyTorch、一点线性代数（特征值、Gram 矩阵）、梯度下降；后面的课程还需要高斯过程的基本概念。不需要 JAX。

# %% [markdown]
# ## 一图看懂核心思想
#
# 在单个训练输入 $x_0$ 上、以 $y_0$ 为目标、用平方损失走一步梯度下降：网络在*每一个*输入 $x$ 上的输出都会移动，一阶近似下移动量是 $-\eta\,\Theta(x,x_0)\,r$。这就是学习率乘以核再乘以**残差** $r = f(x_0) - y_0$（各课中一律是输出减目标），其中 $\Theta(x,x_0) = \nabla_\theta f(x)\cdot\nabla_\theta f(x_0)$ 就是神经正切核。NTK 是一张表，记录在一个输入上的学习如何改变另一个输入上的预测；网络越宽，这张表就越接近一个只由网络结构决定的固定的核。
#
# > **每个权重矩阵一项**（不带偏置）。 $\Theta(x,x') = \sum_l \nabla_{W_l} f(x)\cdot\nabla_{W_l} f(x')$。
# > 在无限宽时，第 $l$ 层的项是 $W_l$ 所产生的预激活的协方差 $\Sigma^{(l)}(x,x')$，再乘以它上面每个权重矩阵 $W_{l'}$ 各一个反向因子
# > $\dot\Sigma^{(l')}(x,x') = \sigma_w^2\,\mathbb E[\phi'(u)\,\phi'(v)]$，其中 $(u, v)$ 是经过 $\phi$ 进入 $W_{l'}$ 的预激活，即第 $l'-1$ 层在 $x$ 和 $x'$ 处的预激活（协方差为 $\Sigma^{(l'-1)}$）。
# > 带偏置时，$W_l$ 给出 $\Sigma^{(l)} - \sigma_b^2$，偏置 $b_l$ 另加 $\sigma_b^2$，两者都乘以同样的反向因子（第 02 课推导这两者）。

# %% [markdown]
# 下面，一个 ReLU 网络在角度 0° 处的输入上以学习率 $\eta = 0.1$ 走一步梯度下降，这个输入的目标值设为比当前输出高 1（$r = -1$）。它有两个宽度为 1024 的隐藏层（`depth = 2`：连同读出层共三个权重矩阵），每一层都以 $\sigma_w = \sqrt2$ 缩放，不带偏置；它的输入位于 $\mathbb R^2$ 中的圆周上，$\lVert x\rVert^2 = d = 2$。圆点是 $f$ 在圆周上 72 个输入处的实际变化；两条曲线是一阶预测 $-\eta\,\Theta(x,x_0)\,r = \eta\,\Theta(x,x_0)$，分别用这个网络自己的 NTK 和无限宽的 NTK 计算。下面的小图以相对 $x_0$ 的有符号角度（负值：顺时针）为横轴，放大显示两种差别：蓝色圆点是一阶近似遗漏的部分，橙色曲线是这个网络的 NTK 减去无限宽的 NTK。这些设置都写在该单元格的一行里；图下面的问题会请你修改它们。

# %%
import matplotlib.pyplot as plt
import ntk_helpers as nh
from ntk_helpers.course import tour

nh.plotting.use_style()
depth, activation, width, lr, seed = 2, "relu", 1024, 0.1, 0        # change these, then re-run the cell
step = tour.one_step(nh.mlp(depth=depth, activation=activation), width=width, lr=lr, seed=seed)

# nh._("...") marks a label for the Chinese edition's translation; in English it returns the text unchanged.
fig, (top, gaps) = plt.subplots(2, 1, figsize=(7.5, 5.8), sharex=True, height_ratios=[2.2, 1])
top.axhline(0, color="0.6", lw=1)
top.plot(step.degrees, step.measured, "o", ms=4, label=nh._("measured: f after the step − f before"))
top.plot(step.degrees, step.predicted, "-", label=nh._(r"$\eta\,\Theta(x, x_0)$, this network's NTK"))
top.plot(step.degrees, step.limit, "--", color="0.3", label=nh._(r"$\eta\,\Theta(x, x_0)$, infinite width"))
top.set(ylabel=nh._(r"change of $f(x)$"),
        title=nh._(r"One step on $x_0$ moves $f$ on every input, not only at $x_0$"))
top.legend(loc="upper left", fontsize=9.5)
gaps.axhline(0, color="0.6", lw=1)
gaps.plot(step.degrees, step.measured - step.predicted, "o", ms=3, label=nh._("dots − solid line"))
gaps.plot(step.degrees, step.predicted - step.limit, "-", color="C1", label=nh._("solid − dashed line"))
gaps.set(xlabel=nh._(r"signed angle from the trained input $x_0$ (degrees)"), xticks=range(-180, 181, 60),
         ylabel=nh._("difference"))
gaps.set_title(tour.gaps_title(step), fontsize=10)
gaps.legend(loc="upper left", fontsize=8.5, ncols=2)
plt.show()
print(nh._("f(x₀) rose by {rise:.2f}; the target was {push:g} above it")
      .format(rise=step.at(0), push=step.push))
print(nh._("measured vs first order: {taylor:.2%} apart; this network's NTK vs the limit: {width:.1%} apart")
      .format(taylor=step.taylor_gap, width=step.width_gap))

# %% [markdown]
# `tour.one_step` 做的不过是一步梯度下降。用 PyTorch 写出来（取默认设置）就是：

# %%
import torch

_, circle_x = nh.circle(72)                                   # the 72 inputs; circle_x[0] is x₀, at 0°
model = nh.mlp(depth=2, activation="relu").network(2, width=1024, seed=0)
parameters = [p for p in model.parameters() if p.requires_grad]
with torch.no_grad():
    before = model(circle_x).reshape(-1)
target = before[0] + 1.0                                      # y₀, 1 above f(x₀): residual f(x₀) − y₀ = −1
loss = 0.5 * (model(circle_x[:1]).reshape(()) - target) ** 2  # the squared loss on x₀ alone
gradients = torch.autograd.grad(loss, parameters)
with torch.no_grad():
    for parameter, gradient in zip(parameters, gradients):
        parameter -= 0.1 * gradient                           # the step, learning rate 0.1
    change = (model(circle_x).reshape(-1) - before).numpy()   # the figure's dots, at the default settings
print(nh._("written out: f(x₀) rose by {rise:.2f}").format(rise=change[0]))

# %% [markdown]
# **先解释，再动手。** 每个问题都请你修改上面单元格中的设置行（`depth, activation, width, lr, seed = …`），然后重新运行这个单元格：先预测，再运行。做完后把这一行改回原样。
#
# 1. 目标值比 $f(x_0)$ 高 1，但 $f(x_0)$ 只升高了 0.61。为什么大约是 0.6？用上面的方框预测无限宽的 $\Theta(x_0,x_0)$，再预测：用多大的学习率，一步就能正好到达目标？用它的三倍，$f(x_0)$ 又会落在哪里？然后两个都试一试（先 `lr = 1/6`，再 `lr = 0.5`）。
#
# <details><summary>答案</summary>
#
# 在一阶近似下，升高量是 $-\eta\,\Theta(x_0,x_0)\,r$，其中 $r = -1$；而这个网络的无限宽 $\Theta(x_0,x_0)$ 等于 6。对 ReLU 和 $\sigma_w^2 = 2$，每一层在 $x_0$ 处的协方差都是 2（第一层为 $\sigma_w^2\lVert x_0\rVert^2/d = 2$；之后每一层为 $\sigma_w^2\,\mathbb E[\phi(u)^2] = 2 \cdot \frac22 = 2$），每个反向因子都是 $\dot\Sigma = \sigma_w^2 \cdot \frac12 = 1$，所以三个权重矩阵各贡献 $2 \cdot 1 \cdot 1 = 2$：$0.1 \times 6 = 0.6$。所以 $\eta = 1/6$ 一步就到达目标：$f(x_0)$ 升高 1.02（这个网络自己的 $\Theta(x_0,x_0)$ 是 6.15，并不恰好是 6）。当 $\eta = 0.5$ 时它升高 3.02：残差 $r$ 从 $-1$ 变成 $+2.02$。每一步都把 $r$ 乘以 $1 - \eta\,\Theta(x_0,x_0)$，这里约为 $1 - 3 = -2$，所以在一阶近似下（核固定不变），按这个学习率走下去，每一步都比上一步冲得更远，最终发散。同样在一阶近似下，只有当 $\eta < 2/\Theta(x_0,x_0)$（这里约为 0.33）时，残差才会缩小；第 07 课把这一点推广为整个训练集上学习率的上限。
#
# </details>
#
# 2. 所有圆点都在 0 以上：在 $x_0$ 上走的这一步，连圆周另一侧的 $f$ 也升高了。为什么在一个输入上走一步，能让方向相反的输入上的 $f$ 升高？预测一下：把两个隐藏层换成一个，这个现象还在吗？然后设 `depth = 1`。
#
# <details><summary>答案</summary>
#
# 所有输入共享同一组参数，而 NTK 是每个权重矩阵各一项之和（见上面的方框）。在这个深度为 2 的网络中，第一层以上两层的项由 ReLU 的输出、ReLU 的斜率（0 或 1）和读出权重的平方构成，它们都不是负数，所以这些项永远不会是负的。（在更深的网络中，中间层的项还含有不同权重的乘积，正负都有可能。）只有第一层的项含有输入本身，即 $x\cdot x_0 = d\cos\theta$，它在超过 90° 后为负。有两个隐藏层时，另外两项在每个角度上都压过它：最小的变化约为 0.05，出现在圆周的另一侧。只有一个隐藏层时，它是两项中的一项，在远离 $x_0$ 处占了上风：超过 110° 的圆点大多降到 0 以下（最低约为 −0.03）。下面滑块中虚线画出的深度 1 曲线，在无限宽的核中显示了同样的现象，最低到 −0.07。
#
# </details>
#
# 3. 打印结果和下面的小图显示了两个差距：圆点与实线相差 0.40 %，实线与虚线相差 3.0 %；两个差距都是在 72 个输入上计算的相对 2-范数 $\lVert a - b\rVert / \lVert b\rVert$。预测一下：把 $\eta$ 减半时哪个差距会变？把网络加宽到四倍时呢？然后试一试 `lr = 0.05`，以及 `width = 4096`（`lr = 0.1`）。
#
# <details><summary>答案</summary>
#
# 把 $\eta$ 减半时，核的差距仍是 3.0 %：两个核都属于走这一步之前的网络，$\eta$ 根本不进入它们。一阶差距降到 0.27 %，即原来的 0.68 倍：它没有减半。对光滑的激活函数，一阶近似遗漏的部分是 $\eta^2$ 量级，而变化本身是 $\eta$ 量级，所以这个差距减半（试试 `activation = "erf"`：从 0.09 % 降到 0.05 %）。ReLU 有一个折点：预激活在这一步中越过 0 的单元会被打开或关闭，这是任何一阶展开都看不到的。当 $\eta = 0.1$ 时，在 $2 \times 1024 \times 72$ 个（隐藏单元，输入）对中有 155 对发生这种切换，$\eta = 0.05$ 时有 66 对，所以在这些学习率下这个差距不遵循简单的规律：在种子 0–2 上，把 $\eta$ 减半使它乘以 0.64 到 0.90。当 $\eta = 10^{-4}$ 时没有任何单元切换，再把 $\eta$ 减半，差距就恰好减半（比值 0.500），与 erf 一样。
#
# 宽度 4096 使一阶差距缩小到 0.11 %，核的差距却*变大*了，为 4.8 %：一个网络只是一次随机抽样，而种子 0 在宽度 1024 时恰好比较接近极限。在种子 0–5 上（试试 `seed = 1`、…、`5`）：
#
# | 宽度 | 种子 0–5 上核的差距 | 平均 |
# |---|---|---|
# | 1024 | 3.0 % 到 9.5 % | 5.7 % |
# | 4096 | 2.2 % 到 4.8 % | 3.2 % |
#
# 平均而言，宽度变为四倍时它大约减半，这正是 $m^{-1/2}$ 量级的典型大小所预言的；第 01 课在许多种子上测量这个斜率。
#
# </details>

# %% tags=["check"]
import numpy as np

# Seeded, float64: each bound brackets the number an answer quotes (the width of its rounding). The answers'
# settings are recomputed here, so these checks hold whatever the cell above was last set to.
relu = nh.mlp(depth=2, activation="relu")
base = tour.one_step(relu, width=1024, lr=0.1, seed=0)
at_x0 = base.degrees == 0
nh.check_close("the step written out in PyTorch gives the dots of the default figure", np.roll(change, 35),
               base.measured, rtol=1e-9)                # circle point k is at 5° k: roll to -175°, …, 180°
nh.check_close("infinite-width Θ(x₀, x₀) of the depth-2 ReLU network",   # an exact kernel: rounding only
               base.limit[at_x0] / base.lr, [6.0], rtol=1e-9)
by_depth = nh.mlp_kernels_by_depth(nh.circle(1)[1], depth=2, activation="relu").ntk[:, 0, 0]
nh.check_close("Θ(x₀, x₀) at depths 1 and 2: 2 from each weight layer", by_depth, [4.0, 6.0], rtol=1e-9)
nh.check_close("the rise of f(x₀), as quoted", base.at(0), 0.61, atol=0.005)
nh.check_close("this network's own Θ(x₀, x₀), as quoted", base.predicted[at_x0] / base.lr, [6.15],
               atol=0.005)
rise = {lr: tour.one_step(relu, width=1024, lr=lr, seed=0).at(0) for lr in (1 / 6, 0.5)}
nh.check_close("η = 1/6: the rise of f(x₀), as quoted", rise[1 / 6], 1.02, atol=0.005)
nh.check_close("η = 0.5: the rise of f(x₀), as quoted", rise[0.5], 3.02, atol=0.005)
nh.check_between("the smallest change on the circle (positive: no input went down)", base.measured.min(),
                 0.045, 0.055)
nh.check_that("depth 2: the infinite-width NTK is positive at every angle", bool((base.limit > 0).all()),
              measured=base.limit.min(), expected="> 0")
shallow = tour.one_step(nh.mlp(depth=1, activation="relu"), width=1024, lr=0.1, seed=0)
far = np.abs(shallow.degrees)
nh.check_that("depth 1: the inputs 115°–175° from x₀ went down, those within 110° up",
              bool((shallow.measured[(far > 112) & (far < 178)] < 0).all()
                   and (shallow.measured[far < 112] > 0).all()),
              measured=np.round(far[shallow.measured < 0]).tolist(), expected="115, …, 175")
nh.check_between("depth 1: the lowest change (quoted about −0.03)", shallow.measured.min(), -0.035, -0.025)
nh.check_close("depth 1, infinite width: the lowest normalized NTK (quoted −0.07)",
               tour.angle_profile(1, "relu").values.min(), -0.07, atol=0.005)
nh.check_between("first-order gap at width 1024, η = 0.1 (quoted 0.40 %)", base.taylor_gap, 0.00395, 0.00405)
nh.check_between("kernel gap at width 1024 (quoted 3.0 %)", base.width_gap, 0.0295, 0.0305)
smaller = tour.one_step(relu, width=1024, lr=0.05, seed=0)
nh.check_between("first-order gap at η = 0.05 (quoted 0.27 %)", smaller.taylor_gap, 0.00265, 0.00275)
first_order_gap = lambda lr, seed: tour.one_step(relu, width=1024, lr=lr, seed=seed).taylor_gap
halving = [smaller.taylor_gap / base.taylor_gap]
halving += [first_order_gap(0.05, s) / first_order_gap(0.1, s) for s in (1, 2)]
nh.check_close("relu, seeds 0–2: halving η multiplies the first-order gap by 0.64 to 0.90",
               [min(halving), max(halving)], [0.64, 0.90], atol=0.005)
nh.check_that("relu, η = 0.1 and 0.05: (unit, input) pairs switched on or off by the step (quoted 155, 66)",
              [base.switched, smaller.switched] == [155, 66], measured=[base.switched, smaller.switched],
              expected=[155, 66])
tiny = [tour.one_step(relu, width=1024, lr=lr, seed=0) for lr in (1e-4, 5e-5)]
nh.check_that("relu, η = 1e-4 and 5e-5: no unit switches", [t.switched for t in tiny] == [0, 0],
              measured=[t.switched for t in tiny], expected=[0, 0])
nh.check_close("relu, η = 1e-4: halving η halves the first-order gap (quoted 0.500)",
               tiny[1].taylor_gap / tiny[0].taylor_gap, 0.500, atol=0.0005)
nh.check_between("ReLU: halving η removes less than half of the first-order gap",
                 smaller.taylor_gap / base.taylor_gap, 0.55, 0.95)
nh.check_close("halving η leaves the kernel gap as it was", smaller.width_gap, base.width_gap, rtol=1e-9)
erf = [tour.one_step(nh.mlp(depth=2, activation="erf"), width=1024, lr=lr, seed=0).taylor_gap
       for lr in (0.1, 0.05)]
nh.check_close("erf: first-order gap at η = 0.1 and 0.05", erf, [0.0009, 0.0005],
               atol=0.00005)
nh.check_close("erf: halving η halves the first-order gap", erf[1] / erf[0], 0.5, rtol=0.05)
wider = tour.one_step(relu, width=4096, lr=0.1, seed=0)
nh.check_between("first-order gap at width 4096 (quoted 0.11 %)", wider.taylor_gap, 0.00105, 0.00115)
nh.check_between("kernel gap at width 4096, seed 0 (quoted 4.8 %)", wider.width_gap, 0.0475, 0.0485)
# Seed 0's kernel gaps are those of the steps above; seeds 1-5 come without the step (kernel_gap gives
# the same number as one_step's width_gap: tests/test_course_tour.py).
gaps = {width_: [step_.width_gap] + [tour.kernel_gap(relu, width=width_, seed=s) for s in range(1, 6)]
        for width_, step_ in ((1024, base), (4096, wider))}
summary = {width_: [min(g), float(np.mean(g)), max(g)] for width_, g in gaps.items()}
nh.check_close("kernel gap over seeds 0–5, width 1024: smallest, mean, largest (quoted 3.0, 5.7, 9.5 %)",
               summary[1024], [0.030, 0.057, 0.095], atol=0.0005)
nh.check_close("kernel gap over seeds 0–5, width 4096: smallest, mean, largest (quoted 2.2, 3.2, 4.8 %)",
               summary[4096], [0.022, 0.032, 0.048], atol=0.0005)
nh.check_between("four times the width: the mean kernel gap about halves",
                 summary[4096][1] / summary[1024][1], 0.4, 0.7)
orange = base.predicted - base.limit
plus, minus = (orange[np.isclose(base.degrees, angle)][0] for angle in (30, -30))
nh.check_that("width 1024: the orange line is not symmetric about 0° (at +30° and −30°)",
              abs(plus - minus) > 0.01, measured=[plus, minus], expected="a difference above 0.01")

# %% [markdown]
# ## 关于 NTK 我们知道什么
#
# **为什么是 NTK 支配着训练。** 设 $\ell$ 是训练输入 $x_1, \dots, x_n$ 上的损失。一步梯度下降使参数移动 $\Delta\theta = -\eta\sum_i \frac{\partial \ell}{\partial f(x_i)}\,\nabla_\theta f(x_i)$，所以在一阶近似下，每个输出的移动量为
#
# $$\Delta f(x) \approx \nabla_\theta f(x)\cdot\Delta\theta
#   = -\eta\sum_{i=1}^n \Theta(x,x_i)\,\frac{\partial \ell}{\partial f(x_i)} .$$
#
# 对平方损失 $\ell = \frac12\sum_i (f(x_i) - y_i)^2$，最后一个因子就是残差 $r_i = f(x_i) - y_i$（在上面的图中：只有一个输入，$r = -1$）。这里的推导完全不需要网络很宽。宽度带来的是：$\Theta$ 不再随机，也不再移动。
#
# **设定。** 本课程中的每个网络都按 *NTK 参数化* 计算每一层：$z = \frac{\sigma_w}{\sqrt{\text{fan-in}}}\,W h + \sigma_b\,b$，其中 $h$ 是这一层的输入，$W$ 和 $b$ 的每个元素都从 $\mathcal N(0,1)$ 中抽取。无论网络多宽，它都使每个 $z$ 以及 $\Theta$ 在 1 量级的学习率下保持 1 的量级：这正是下面定理的设定（第 05b 课对比标准参数化，在那里 NTK 随宽度增长）。
#
# **已经证明的结论**（各隐藏层的宽度趋于无穷时）：
#
# | 结论 | 证明者 |
# |---|---|
# | 在初始化时，NTK 收敛到一个固定的核 $\Theta_\infty$，它由网络结构决定 | Jacot, Gabriel & Hongler 2018；Yang 2019，*Scaling limits of wide neural networks with weight sharing* |
# | 在训练过程中，直到任意有限时刻、对梯度保持有界的一般损失，它都停留在 $\Theta_\infty$ | Jacot et al. 2018 |
# | 对平方损失，训练在每个时刻都有闭式解，终点是 $f_0$ 加上以 $\Theta_\infty$ 为核、对 $y - f_0$ 做的核回归 | Lee et al. 2019 |
#
# 关于训练的结论都假设激活函数是光滑的；ReLU 需要另外的证明。第 01 课给出这些条件，并展示核在什么情况下反而会移动。
#
# <details><summary>逐条列出的前提假设（点击展开）</summary>
#
# - *在初始化时*：Jacot 等人（定理 1）对 Lipschitz 激活函数，让各层宽度依次趋于无穷（先是第一个隐藏层，然后第二个，…）；Yang（2019）证明所有宽度同时增大时同样的极限也成立，适用于很广的一类网络结构；Arora et al.（2019）对 ReLU 网络给出了有限宽度下与极限距离的界。
# - *在训练过程中*：Jacot 等人（定理 2）使用梯度流，让各层宽度依次趋于无穷，要求激活函数是 Lipschitz 的、二阶可导且二阶导数有界，并要求损失对输出的梯度在训练时间 $T$ 之内保持有界（它在 $[0, T]$ 上的积分依概率有界）。
# - *平方损失*：Lee 等人（定理 2.1）使用足够小的学习率做梯度下降，要求 $\Theta_\infty$ 正定、所有宽度同时增大、激活函数的导数满足 Lipschitz 条件；此时网络在整个训练过程中都始终接近它的线性模型。
# - *ReLU* 在 0 处有一个折点。同类的结论来自 Du, Zhai, Póczos & Singh（2019）的单隐藏层情形，以及 Arora et al.（2019）：输出尺度很小的 ReLU 网络训练后的预测接近以 $\Theta_\infty$ 为核、对 $y$ 做的核回归。
#
# </details>

# %% [markdown]
# ## 同一份描述，两个世界
#
# 在本课程中，一个网络结构只写一次，例如 `nh.mlp(depth, activation)`；这一份描述同时给出上述定理的两边：一个可以训练的有限宽 PyTorch 网络，以及精确的无限宽核。每一课都把这两者放在一起比较。

# %%
tour.draw_course_map()
plt.show()

# %% [markdown]
# ## 检查环境是否正常
#
# 下面就是这种比较：一个深度为 2 的 ReLU 网络，在 $\mathbb R^3$ 中的 5 个输入上，它的精确 NTK，以及由同一份描述构建的一个宽度为 2048 的随机网络的经验 NTK。

# %%
net = nh.mlp(depth=2, activation="relu")       # 2 × (dense → relu), then dense(1)
x = nh.sphere(5, d=3, seed=0)                  # 5 points with |x|² = d
kernel = net.kernel(x)                         # infinite width: exact
model = net.network(3, width=2048, seed=0)     # a finite network of the same architecture
theta = nh.empirical_ntk(model, x)             # its NTK: the 5 × 5 Gram matrix of parameter gradients
relative_error = float((theta - kernel.ntk).norm() / kernel.ntk.norm())
print(net)
print(nh._("NTK diagonal at infinite width: {values}").format(values=kernel.ntk.diagonal().numpy().round(3)))
print(nh._("NTK diagonal at width 2048: {values}").format(values=theta.diagonal().numpy().round(3)))
print(nh._("relative difference of the two 5 × 5 kernels: {error:.1%}").format(error=relative_error))

# %% tags=["check"]
import torch

# Seed 0, as printed (seeds 0-5 give 2.8-10.6 %: one network is one random draw).
nh.check_between("width 2048 vs infinite width: relative difference of the NTK (quoted 3.5 %)",
                 relative_error, 0.0345, 0.0355)
nh.check_close("the empirical NTK is symmetric", theta, theta.T, rtol=1e-12)
smallest = torch.linalg.eigvalsh(theta).min()
nh.check_that("the empirical NTK is positive definite (5 independent gradients)", smallest > 0,
              measured=smallest, expected="> 0")

# %% [markdown]
# ## 试试滑块：按夹角看核
#
# 在无限宽时，全连接网络在两个长度相同的输入之间的 NTK 只取决于它们之间的夹角（有限宽网络只是近似如此：第一张图中的橙色曲线关于 0° 并不对称）。**归一化 NTK** 是 $\Theta(x,x')/\sqrt{\Theta(x,x)\,\Theta(x',x')}$，它在夹角为 0 时等于 1。在无限宽时，这些输入的 $\Theta(x,x)$ 都相同，所以这就是除以核在夹角为 0 时的值；有限宽网络的对角线随输入而变（如上面宽度 2048 时打印的那样），公式除以的是每个输入自己的值。由本课开头那张“走一步”的图可知，它表示在 $x'$ 上走一步时 $f(x)$ 移动的幅度与 $f(x')$ 自身移动幅度之比：1 表示一样多，0 表示完全不动，−1 表示朝相反方向移动同样多。
#
# 左图画出所选**深度**和**激活函数**下它随夹角的变化，虚线是深度 1，用作对照；标题读出曲线在 30°（相邻的输入）、90° 和 180°（方向相反的输入）处的值。右图把同一个核画成圆周上相隔 30° 的 12 个输入的 12 × 12 Gram 矩阵 $K$（红色：接近 1，白色：0，蓝色：负值），也就是核回归会用到的矩阵。它的标题给出这个矩阵的**有效秩** $\operatorname{tr}(K)^2/\lVert K\rVert_F^2$：如果核让任何两个输入都毫无关联（$K = I$），它等于 12；如果核完全分不开它们（每个元素都是 1），它等于 1。这里所有网络都取 $\sigma_w = \sqrt2$、不带偏置。先试几种设置，再回答图下方的问题。

# %%
def draw(depth, activation):
    profile = tour.angle_profile(depth, activation)        # normalized NTK by angle, cached
    fig, (left, right) = plt.subplots(1, 2, figsize=(11.5, 4.3), width_ratios=[1.3, 1])
    left.plot(profile.degrees, profile.depth_one, "--", color="0.6", label=nh._("depth 1"))
    left.plot(profile.degrees, profile.values, label=nh._("depth {depth}").format(depth=depth))
    left.set(xlabel=nh._("angle between the two inputs (degrees)"), ylabel=nh._("normalized NTK"),
             xticks=range(0, 181, 30), ylim=(-1.08, 1.08))
    left.set_title(tour.profile_title(profile), fontsize=10)
    left.legend(loc="upper right")
    nh.plotting.heatmap(right, profile.gram, title=tour.gram_title(profile),
                        xlabel=nh._("point index j (angle 30°·j)"),
                        ylabel=nh._("point index i (angle 30°·i)"),
                        symmetric=True, vmax=1.0, colorbar_label=nh._("normalized NTK (correlation)"))
    right.set_title(right.get_title(), fontsize=10)


# %% tags=["nbval-ignore-output"]
print(tour.settings_note(depth=2, activation="relu"))
nh.widgets.live_figure(draw, depth=nh.widgets.depth_slider(2, max=50),
                       activation=nh.widgets.activation_dropdown("relu"))

# %% [markdown]
# **先预测，再检验。** 每次移动控件之前，先做出预测。
#
# 1. 选 relu，把深度从 2 调到 50。深度 50 时，这个核还能把相隔 30° 的两个输入与方向相反的两个输入区分开吗？leaky_relu 有什么不同吗？右图的有效秩会像“忘掉夹角”所暗示的那样随深度下降吗？
#
# <details><summary>答案</summary>
#
# 几乎区分不开。深度 50 时，ReLU 在 30° 处为 0.34，90° 处为 0.29，180° 处为 0.28：曲线几乎是平的，任意两个不同的输入之间几乎都是同一个值，而每个输入与自身仍保持为 1。leaky_relu（斜率 0.01）在两位小数内给出相同的结果。深层 ReLU 核忘掉夹角的速度很慢，但在极限下会完全忘掉：随着深度增大，对角线以外的每个值都趋于 ¼，与夹角无关。留下来的是一个输入与其他每个输入之间的差距，对角线上的 1 对对角线以外的 ¼：这个核从不把两个输入混为一谈。所以有效秩并不下降，反而*上升*：深度 2 时为 4.5，深度 50 时为 6.1，并趋向 7.1，即 12 个输入时 $\frac34 I + \frac14\mathbf 1\mathbf 1^\top$ 的有效秩。对角线为 1 时，有效秩等于 $n^2/\sum_{ij}K_{ij}^2$：只有当对角线以外有许多元素接近 ±1 时它才会小，而深层 ReLU 的这些元素接近 ¼。第 02 课推导这个 ¼。
#
# </details>
#
# 2. 先别看，预测 erf 在 180° 处、深度 1 和深度 50 时的值，并说出是 erf 的哪个性质决定了它。另外，为什么 identity 在每个深度下看起来都一样？
#
# <details><summary>答案</summary>
#
# 在 180° 处恰好为 −1，在每个深度下都是如此，erf、tanh 和 identity 都一样：三者都是奇函数，$\phi(-u) = -\phi(u)$，而不带偏置的奇激活函数使整个网络是奇函数，$f(-x) = -f(x)$，于是 $\nabla_\theta f(-x) = -\nabla_\theta f(x)$，$\Theta(x,-x) = -\Theta(x,x)$。identity 即线性网络，在每个深度下都给出 $\cos\theta$（30° 处为 0.87）：它的 NTK 的每一项都是一个常数乘以 $x\cdot x'$，归一化把这个常数除掉了。它的 Gram 矩阵的有效秩恰好是 2：它的元素 $\cos(\theta_i - \theta_j) = \cos\theta_i\cos\theta_j + \sin\theta_i\sin\theta_j$ 构成一个秩为 2 的矩阵，两个特征值相等。
#
# </details>
#
# 3. GELU 是光滑的，在 0 附近几乎是线性的：$\mathrm{GELU}(u) = u\,\Phi(u) \approx u/2$，其中 $\Phi$ 是高斯分布函数。在 $\sigma_w = \sqrt2$、不带偏置时，每个 GELU 层还会让信号缩小，一旦信号很小，它的方差每层大约减半。利用刚才 identity 的表现预测一下：深度 50 时 gelu 的曲线会像 relu 那样几乎变平吗？再预测深度 50 的曲线位于深度 10 的曲线之上还是之下，然后两者都检验一下。
#
# <details><summary>答案</summary>
#
# 不会变平：深度 50 时 gelu 在 30° 处为 0.64，在 180° 处为 0.40，所以它仍能把相邻的输入与方向相反的输入区分开，只是不如深度 1 时（0.82 和 −0.05）那么分明。信号在每一层都会缩小（深度 50 时它的方差为 $2.6\cdot10^{-12}$），所以深层都在 0 附近工作，而 GELU 在那里几乎是线性的，于是它们像 identity 一样把夹角原样传下去：大约从第 20 层起，信号的相关系数就冻结了（30° 处为 0.80，180° 处为 0.60）。
#
# 深度 50 的曲线位于深度 10 的曲线（30° 处 0.54，180° 处 0.16）*之上*。NTK 是每层各一项之和（第 02 课）：这一层信号的协方差，乘以它上面每一层各一个反向因子 $\dot\Sigma = \sigma_w^2\,\mathbb E[\phi'(u)\phi'(v)]$。GELU 在 0 附近的斜率是 ½，所以每个深层的 $\dot\Sigma$ 约为 $2\cdot\frac14 = \frac12$，而信号的方差每层减半：所有深层的项大小相同，每一项都大致带着冻结后的相关系数。网络越深，这些项所占的比重越大，所以曲线向 0.80 和 0.60 爬升。第 02 课说明 $\sigma_w$ 和偏置如何决定这些区域。
#
# </details>
#
# 4. 现在来看（这一题由第 02 课解释）：深度 50 的 erf 和 tanh。两个只相隔 30° 的输入变成了什么样？
#
# <details><summary>答案</summary>
#
# 它们变得像两个正交的输入一样毫无关联：erf 在 30° 处为 0.00，tanh 为 0.01。在 $\sigma_w = \sqrt2$ 时两者都处于*混沌*相，每一层都把相近的输入推得更远。深度 50 时，只有相隔几度（或离相反方向几度）的输入还保留可见的相关：tanh 在 5° 处为 0.24，erf 已经是 0.00。此时的 Gram 矩阵在对角线上为 1，6 对方向相反的输入处为 −1，其余处约为 0：有效秩为 6.0。第 02 课推导有序在哪里结束、混沌从哪里开始。
#
# </details>

# %% tags=["check"]
import numpy as np
import torch

# The kernels are exact (closed forms, or quadrature good to about 1e-10); the answers quote them to 2
# decimals, so each quoted value is within 0.005 of the kernel.
at = lambda depth, activation, *angles: [tour.angle_profile(depth, activation).at(a) for a in angles]
nh.check_close("relu, depth 50: normalized NTK at 30°, 90°, 180°", at(50, "relu", 30, 90, 180),
               [0.34, 0.29, 0.28], atol=0.005)
nh.check_close("leaky_relu, depth 50: the same to two decimals", at(50, "leaky_relu", 30, 90, 180),
               [0.34, 0.29, 0.28], atol=0.005)
off_diagonal = tour.angle_profile(50, "relu").gram[~np.eye(12, dtype=bool)]
nh.check_between("relu, depth 50: spread of the off-diagonal values", np.ptp(off_diagonal), 0.0, 0.06)
nh.check_between("relu, depth 1000: the value at 180° approaches ¼", at(1000, "relu", 180)[0], 0.25, 0.26)
ranks = [tour.gram_rank(tour.angle_profile(depth, "relu")) for depth in range(2, 51)]
nh.check_close("relu: effective rank of the 12 × 12 Gram matrix at depths 2 and 50", [ranks[0], ranks[-1]],
               [4.5, 6.1], atol=0.05)
nh.check_that("relu: the effective rank rises at every depth from 2 to 50", bool((np.diff(ranks) > 0).all()),
              measured=np.diff(ranks).min(), expected="> 0")
limit = np.full((12, 12), 0.25) + 0.75 * np.eye(12)
nh.check_close("the effective rank of ¾ I + ¼ 11ᵀ for 12 inputs", np.trace(limit) ** 2 / (limit ** 2).sum(),
               7.1, atol=0.05)
nh.check_between("relu, depth 1000: the effective rank approaches it", tour.gram_rank(tour.angle_profile(1000,
                 "relu")), 7.0, 64 / 9)
nh.check_close("gelu, depth 50: normalized NTK at 30° and 180°", at(50, "gelu", 30, 180), [0.64, 0.40],
               atol=0.005)
nh.check_close("gelu, depth 10: normalized NTK at 30° and 180°", at(10, "gelu", 30, 180), [0.54, 0.16],
               atol=0.005)
nh.check_close("gelu, depth 1: normalized NTK at 30° and 180°", at(1, "gelu", 30, 180), [0.82, -0.05],
               atol=0.005)
variance = nh.mlp_kernels_by_depth(nh.circle(1)[1], depth=50, activation="gelu").nngp[:, 0, 0]
nh.check_close("gelu: the output's variance at depth 50 (quoted 2.6e-12)", variance[-1], 2.6e-12, rtol=0.02)
ratios = variance[1:] / variance[:-1]
nh.check_that("gelu: every layer shrinks the variance", bool((ratios < 1).all()), measured=ratios.max(),
              expected="< 1")
nh.check_close("gelu: the variance halves at each deep layer", variance[-1] / variance[-2], 0.5, rtol=0.01)
degrees = torch.tensor([0.0, 30.0, 180.0], dtype=torch.float64).deg2rad()
points = 2 ** 0.5 * torch.stack([degrees.cos(), degrees.sin()], 1)    # x₀, and inputs 30° and 180° from it
deep = nh.mlp_kernels_by_depth(points, depth=100, activation="gelu")
correlation = lambda k: (k[:, 0, 1:] / k[:, 0, :1]).numpy()           # per depth: at 30° and at 180°
signal, ntk = correlation(deep.nngp), correlation(deep.ntk)
nh.check_close("gelu: the signal's correlation at depth 50 (quoted 0.80 and 0.60)", signal[49], [0.80, 0.60],
               atol=0.005)
nh.check_close("gelu: the signal's correlation is frozen from depth 20 on", signal[19], signal[49],
               atol=0.002)
theta_xx, sigma_xx = deep.ntk[:, 0, 0], deep.nngp[:, 0, 0]    # Θ^(l+1) = Σ^(l+1) + Σ̇^(l+1) Θ^(l), diagonal
nh.check_close("gelu: a deep layer's backward factor Σ̇(x, x) is ½", float((theta_xx[49] - sigma_xx[49])
               / theta_xx[48]), 0.5, rtol=0.01)
nh.check_that("gelu: from depth 50 to 100 the NTK climbs towards the frozen correlation",
              bool(((ntk[49] < ntk[99]) & (ntk[99] < signal[49])).all()), measured=ntk[99],
              expected="between depth 50's NTK and the correlation")
for depth in (1, 50):
    nh.check_close("erf, tanh, identity: exactly −1 at 180°",
                   [at(depth, a, 180)[0] for a in ("erf", "tanh", "identity")], [-1.0] * 3, atol=1e-9)
nh.check_close("erf and tanh, depth 50: normalized NTK at 30°", at(50, "erf", 30) + at(50, "tanh", 30),
               [0.00, 0.01], atol=0.005)
nh.check_close("erf and tanh, depth 50: normalized NTK at 5°", at(50, "erf", 5) + at(50, "tanh", 5),
               [0.00, 0.24], atol=0.005)
regimes = [nh.signal_regime(a, sigma_w=2 ** 0.5, sigma_b=0.0).name for a in ("erf", "tanh")]
nh.check_that("erf and tanh at σ_w = √2 without bias are in the chaotic phase", regimes == ["chaotic"] * 2,
              measured=", ".join(regimes), expected="chaotic, chaotic")
nh.check_close("identity: cos 30° at depths 1 and 50", at(1, "identity", 30) + at(50, "identity", 30),
               [np.cos(np.pi / 6)] * 2, rtol=1e-12)
nh.check_close("identity: effective rank exactly 2", tour.gram_rank(tour.angle_profile(2, "identity")), 2.0,
               rtol=1e-9)
nh.check_close("erf and tanh, depth 50: effective rank 6.0",
               [tour.gram_rank(tour.angle_profile(50, a)) for a in ("erf", "tanh")], [6.0, 6.0], atol=0.05)

# %% [markdown]
# ## 课程一览
#
# | 课程 | 教材章节 | 你将看到的内容 |
# |---|---|---|
# | [00 从这里开始](00_start_here.ipynb) | — | NTK 是什么、课程地图、记号、术语表、第一个滑块 |
# | [01 NTK 基础](01_ntk_basics.ipynb) | 综述 §1–3 | 宽网络的学习如同它的线性化：十行代码算出 NTK、一步梯度下降、核为何保持不变 |
# | [02 MLP 递归](02_mlp_recursion.ipynb) | 4.1 | 逐层递归公式、对核退化的正确理解、有序与混沌 |
# | [03 CNN](03_cnn.ipynb) | 4.2 | 像素对核、平移不变性需要池化、手写数字、步长/扩张、最大池化与平均池化 |
# | [04 ResNet](04_resnet.ipynb) | 4.3 | 分支缩放 α = 1、1/√L、1/L：指数增长的 NTK 与有界的 NTK |
# | [05a 归一化](05a_normalization.ipynb) | 4.4.1 | 层归一化的尺度不变性及其适用范围、批归一化造成的批内耦合 |
# | [05b 参数化](05b_parameterization.ipynb) | 4.4.2 | NTK 参数化、标准参数化与 μP：一张宽度指数表，惰性训练与特征学习 |
# | [06 激活函数](06_activations.ipynb) | 4.5 | ReLU 与 tanh 的对比：齐次性、特征值衰减（幂律与更快的衰减）、奇偶性与深度、有序与混沌、对比表、频谱偏置 |
# | [07 训练动力学](07_training_dynamics.ipynb) | 4.4.2，综述 §3、§7.1 | 闭式解动力学与真实梯度下降的对比、惰性训练与 μP、早停、集成置信带与初始化带来的离散程度的对照、核能学会哪些目标 |
# | [08 有效秩](08_effective_rank.ipynb) | 综述 §4，本章总结 | $r_\infty$ 定律、接近 1 的值意味着什么、Gram 矩阵何时奇异、为什么它给不出任何泛化上界；一张表总结全章 |
#
# 习题 4.1–4.9（4.1–4.8 出自本章，4.9 配合第 07 课）由 nbgrader 自动评分（提交方法见 README）：
#
# | 习题 | 学生 notebook | 对应课程 |
# |---|---|---|
# | 4.1 $\dot\Sigma$ 的作用，恒等激活函数 | [ex4_1_sigma_dot](../../exercises/chapter4/ex4_1_sigma_dot.ipynb) | 02 |
# | 4.2 CNN 的平移对称性 | [ex4_2_cnn_symmetry](../../exercises/chapter4/ex4_2_cnn_symmetry.ipynb) | 03 |
# | 4.3 ResNet 的深度缩放 | [ex4_3_resnet_depth](../../exercises/chapter4/ex4_3_resnet_depth.ipynb) | 04 |
# | 4.4 ReLU 与 erf 的比较 | [ex4_4_relu_vs_erf](../../exercises/chapter4/ex4_4_relu_vs_erf.ipynb) | 06 |
# | 4.5 μP 如何离开核区域 | [ex4_5_mup](../../exercises/chapter4/ex4_5_mup.ipynb) | 05b |
# | 4.6 最大池化的替代方案 | [ex4_6_pooling](../../exercises/chapter4/ex4_6_pooling.ipynb) | 03 |
# | 4.7 50 层 MLP 的核退化与有效秩 | [ex4_7_collapse_rank](../../exercises/chapter4/ex4_7_collapse_rank.ipynb) | 02, 08 |
# | 4.8 激活函数与双下降 | [ex4_8_double_descent](../../exercises/chapter4/ex4_8_double_descent.ipynb) | 06 |
# | 4.9 早停是一种隐式的岭回归 | [ex4_9_early_stopping](../../exercises/chapter4/ex4_9_early_stopping.ipynb) | 07 |

# %% [markdown]
# ## 如何使用这些课程
#
# - 先**全部运行**一遍（菜单 *Run → Run All Cells*（中文界面：*运行 → 运行所有单元格*））；每一课在 2 个 CPU 核上都能在一分钟内运行完毕（由构建过程实测）。
# - **先预测，再验证。** 每个滑块之后和每一课的结尾都有问题；有些问题会请你修改某个单元格中的设置并重新运行。在打开**答案**之前，先写下你的预测。
# - 拖动**滑块**时，图会随之重绘。点击滑块后，可以用方向键逐步调整。
# - **检验单元格**（默认折叠，点击即可展开）存放本课的论断，每条一行 ✓，每次运行本课都会重新检验。如果改动某个参数后某项检验失败了，说明你找到了这个论断的适用边界：报错信息会写明预期值和实测值。
# - 所有随机数都固定了种子：每次运行都会得到同样的数字。
# - 如果你读过教材或综述：每一课的最后一节以折叠的方式列出它们与本课所展示内容的不同之处，[勘误表](../../ERRATA.zh.md)则列出了所有这样的地方。
# - 授课教师：`nh.plotting.use_style(lecture=True)` 会把所有图放大到适合投影的尺寸。

# %% [markdown]
# ## 记号
#
# | 符号 | 代码中的名称 | 含义 |
# |---|---|---|
# | $x, x'$ | `x1`, `x2` | 输入（批次中的各行）；$d$ = 输入维数 |
# | $L$ | `depth` | 隐藏层数（MLP 由 $L$ 个（全连接层 → 激活函数）组成，最后接线性读出层） |
# | $m$ | `width` | 每个隐藏层的单元数 |
# | $\phi$ | `activation` | 非线性激活函数（ReLU、erf、tanh、…） |
# | $\sigma_w, \sigma_b$ | `sigma_w`, `sigma_b` | 权重与偏置的尺度（即 neural-tangents 中的 `W_std`、`b_std`） |
# | $\Sigma^{(l)}(x,x')$ | `kernel.nngp` | 初始化时单个单元的预激活的协方差（NNGP 核） |
# | $\Theta^{(l)}(x,x')$ | `kernel.ntk` | 神经正切核 |
# | $E, \dot E$ | `activation.dual` | 对高斯随机变量 $(u,v)$ 计算的 $\mathbb E[\phi(u)\phi(v)]$ 与 $\mathbb E[\phi'(u)\phi'(v)]$ |
# | $\dot\Sigma^{(l)}(x,x')$ | — | 在 $\Sigma^{(l-1)}$ 下计算的 $\sigma_w^2\,\dot E$：一层乘在它下面的 NTK 上的因子，$\Theta^{(l)} = \Sigma^{(l)} + \dot\Sigma^{(l)}\,\Theta^{(l-1)}$ |
# | $\chi_1$ | `chi1` | 相关性映射在 $c=1$ 处的斜率：有序（$<1$）与混沌（$>1$）（Poole et al. 2016；Schoenholz et al. 2017） |
# | $r_\text{eff}$ | `effective_rank` | $\operatorname{tr}(K)^2/\lVert K\rVert_F^2$ |
#
# 所有网络都采用 **NTK 参数化**：$z = \frac{\sigma_w}{\sqrt{\text{fan-in}}} W h + \sigma_b b$，
# 其中 $W, b$ 的每个元素都取自 $\mathcal N(0,1)$（第 05b 课把它与标准参数化以及 μP 作比较）。

# %% [markdown]
# ## Glossary · 术语表
#
# 各课使用的术语，每个都附有中文版统一使用的那一个中文词。遇到生词时再打开。
#
# <details><summary>术语表（点击展开）</summary>
#
# | English | 中文 | 一句话说明 |
# |---|---|---|
# | neural tangent kernel (NTK) | 神经正切核（教材作“神经切线核”） | 参数梯度的内积：$\Theta(x,x') = \nabla_\theta f(x)\cdot\nabla_\theta f(x')$ |
# | NNGP kernel | 神经网络高斯过程核 | 网络输出在随机初始化下的协方差 |
# | infinite-width limit | 无限宽极限 | 宽度 → ∞：NTK 变为确定性的，并在一定条件下（第 01 课）在训练中保持不变 |
# | NTK parameterization | NTK 参数化 | 权重取自 $\mathcal N(0,1)$，在前向传播中乘以 $\sigma_w/\sqrt{\text{fan-in}}$ |
# | dual activation | 对偶激活（核）函数 | 激活函数如何变换高斯协方差：$E$ 与 $\dot E$ |
# | kernel collapse | 核退化 | 随着深度增加，归一化的核遗忘输入之间的夹角：对角线以外的值趋于一个不再依赖夹角的极限（奇激活函数对方向相反的输入保持 −1）；是否发生（线性网络从不发生）、有多快、趋向哪个极限，取决于激活函数和 $\sigma_w$（第 02 课）；遗忘夹角并不等于让输入变得相同：不带偏置时，深层 ReLU 在对角线以外趋于 ¼，而对角线上是 1 |
# | edge of chaos | 混沌边缘 | $\chi_1 = 1$，介于有序相与混沌相之间 |
# | effective rank | 有效秩 | $\operatorname{tr}(K)^2/\lVert K\rVert_F^2$ |
# | lazy training | 惰性训练 | 网络拟合数据的同时，核几乎不动 |
# | feature learning | 特征学习 | 隐藏表示发生 $O(1)$ 量级的变化（例如在 μP 下，Yang & Hu 2021） |
# | global average pooling | 全局平均池化 | 对所有像素位置取平均 |
# | kernel regression | 核回归 | 用 $K_{*X} K_{XX}^{-1} y$ 作预测 |
#
# </details>

# %% [markdown]
# ## 检验你的理解
#
# 1. 一个网络有 $P$ 个参数，你在 $n$ 个输入上计算它的 NTK。这个矩阵是什么形状？为什么它是半正定的？它的秩受什么限制？
#
# <details><summary>答案</summary>
#
# 它是 $n \times n$ 的：$\Theta = J J^\top$，其中 $J$ 是 $n \times P$ 矩阵，各行是梯度 $\nabla_\theta f(x_i)$。Gram 矩阵是半正定的，$v^\top J J^\top v = \lVert J^\top v\rVert^2 \ge 0$，它的秩至多为 $\min(n, P)$。
#
# </details>
#
# 2. 滑块中 relu 深度 1 的虚线曲线在 180° 处恰好为 0。预测一下：一个只有一个 ReLU 隐藏层、不带偏置、宽度为 64 的*有限宽*网络，是否也给出 $\Theta(x,-x) = 0$？为什么？深度 2 的网络（180° 处为 0.11）为什么不是这样？
#
# <details><summary>答案</summary>
#
# 是的，恰好为 0，在每个宽度、每个种子下都是如此。隐藏单元 $i$ 在 $-x$ 处的预激活是 $-w_i\cdot x$，所以每个单元恰好只对两个输入中的一个打开（$w_i\cdot x = 0$ 的概率为 0）。对读出权重的梯度含有该单元的输出 $\mathrm{ReLU}(w_i\cdot x)$ 与 $\mathrm{ReLU}(-w_i\cdot x)$，对 $w_i$ 的梯度含有它的斜率：两种情形下两个因子中总有一个为 0，所以 $\nabla_\theta f(x)\cdot\nabla_\theta f(-x)$ 中的每一个乘积都为零。有两个隐藏层时，第二层在 $x$ 和 $-x$ 处的预激活是用随机权重把两组打开的第一层单元混合起来得到的：它们并不互为相反数，许多第二层单元对两个输入都是打开的。
#
# </details>
#
# 3. 你用平方损失在两个相隔 30° 的输入上训练第一张图中的深度 2 ReLU 网络。在一阶近似下，无论目标值是什么，梯度下降都能收敛的最大学习率是多少？用 $\Theta(x,x) = 6$ 和滑块在深度 2、30° 处的读数。它比单个输入时的 $2/6 \approx 0.33$ 大还是小？
#
# <details><summary>答案</summary>
#
# 约为 0.19，更小。在训练输入上，每一步把残差向量乘以 $I - \eta\Theta$，其中 $\Theta = 6\begin{pmatrix}1 & 0.75\\ 0.75 & 1\end{pmatrix}$。它的特征值是 $6(1 \pm 0.75) = 10.5$ 和 $1.5$，分别对应残差 $(1, 1)$ 和 $(1, -1)$；只有当 $\eta < 2/\lambda_\text{max} = 2/10.5 \approx 0.19$ 时，两个因子 $|1 - \eta\lambda|$ 才都小于 1。两个相近的输入会把彼此的输出往同一个方向推，所以共同的残差被纠正得快将近一倍，也就在更小的学习率下开始冲过头。宽度 1024 的网络与此一致：两个目标都比输出高 1 时，在 $\eta = 0.15$ 下走五步残差缩小，在 $\eta = 0.25$ 下走五步残差变大。第 07 课对整个训练集做同样的分析。
#
# </details>
#
# 4. 两个结构相同、都无限宽的网络，从不同的随机种子出发。它们在初始化时的输出一致吗？它们的 NTK 呢？哪个核描述什么？这对两个训练后的网络（平方损失）意味着什么？
#
# <details><summary>答案</summary>
#
# 输出不一致：在无限宽时，$f_0$ 是一个随机函数，即以 NNGP 核 $\Sigma$ 为协方差的高斯过程，每个种子抽出不同的一个。NTK 一致：两者都是确定性的 $\Theta_\infty$，也就是训练步的核。所以两个训练后的网络只在起点上不同：每个都终止于它自己的 $f_0$ 加上以 $\Theta_\infty$ 为核、对 $y - f_0$ 做的核回归（条件是 $\Theta_\infty(X,X)$ 正定、学习率足够小；对 ReLU，这依据 Arora et al. 2019；第 01 课给出这些条件）。它们对种子的平均是对 $y$ 的核回归；它们的波动同时涉及两个核（第 07 课）。
#
# </details>
#
# 5. 为什么归一化 NTK 总是介于 −1 与 1 之间？
#
# <details><summary>答案</summary>
#
# 它是 $\nabla_\theta f(x)\cdot\nabla_\theta f(x')$ 除以 $\lVert\nabla_\theta f(x)\rVert\,\lVert\nabla_\theta f(x')\rVert$，即两个梯度向量夹角的余弦；柯西–施瓦茨不等式保证它的绝对值不超过 1。当且仅当两个梯度方向相同时它等于 1。
#
# </details>

# %% tags=["check"]
# Question 2: exact zeros (no bias; ReLU(u)·ReLU(-u) = 0 in floating point too). Question 3: the exact
# 2 × 2 NTK, and five steps of real gradient descent on the two inputs.
opposite = torch.tensor([[2 ** 0.5, 0.0], [-(2 ** 0.5), 0.0]], dtype=torch.float64)
at_180 = tour.angle_profile(1, "relu").at(180)
nh.check_that("one hidden ReLU layer, infinite width: 0 at 180°", abs(at_180) < 1e-12, measured=at_180,
              expected=0)
for width_, seed_ in ((64, 0), (64, 1), (1024, 2)):
    shallow_net = nh.mlp(depth=1, activation="relu").network(2, width=width_, seed=seed_)
    cross = float(nh.empirical_ntk(shallow_net, opposite)[0, 1])
    nh.check_that("one hidden ReLU layer, finite width: Θ(x, −x) = 0 exactly", cross == 0.0, measured=cross,
                  expected=0)
deep_ntk = nh.empirical_ntk(nh.mlp(depth=2, activation="relu").network(2, width=1024, seed=0), opposite)
nh.check_between("two hidden layers, width 1024: Θ(x, −x) / Θ(x, x) is not 0 (about 0.11)",
                 float(deep_ntk[0, 1] / deep_ntk[0, 0]), 0.105, 0.115)
nh.check_close("two hidden layers, infinite width: the normalized NTK at 180° is 0.11",
               tour.angle_profile(2, "relu").at(180), 0.11, atol=0.005)
thirty = torch.tensor([0.0, np.pi / 6], dtype=torch.float64)
pair = 2 ** 0.5 * torch.stack([thirty.cos(), thirty.sin()], 1)
eigenvalues = torch.linalg.eigvalsh(nh.mlp(depth=2, activation="relu").kernel(pair).ntk)
nh.check_close("two inputs 30° apart: eigenvalues of the 2 × 2 NTK", eigenvalues, [1.5, 10.5], atol=0.02)
nh.check_close("the largest stable learning rate, 2 / λ_max", float(2 / eigenvalues.max()), 0.19, atol=0.005)


def residual_norms(lr, steps=5):
    """|f(X) - y| before and after ``steps`` steps of gradient descent, targets 1 above both outputs."""
    net_ = nh.mlp(depth=2, activation="relu").network(2, width=1024, seed=0)
    params_ = [p for p in net_.parameters() if p.requires_grad]
    with torch.no_grad():
        targets = net_(pair).reshape(-1) + 1.0
    norms = []
    for _step in range(steps + 1):
        residual = net_(pair).reshape(-1) - targets
        norms.append(float(residual.detach().norm()))
        grads_ = torch.autograd.grad(0.5 * (residual ** 2).sum(), params_)
        with torch.no_grad():
            for p, g in zip(params_, grads_):
                p -= lr * g
    return norms


converging, diverging = residual_norms(0.15), residual_norms(0.25)
nh.check_that("η = 0.15: five steps shrink the residuals", converging[-1] < converging[0],
              measured=converging, expected="a falling residual norm")
nh.check_that("η = 0.25: five steps make them grow", diverging[-1] > diverging[0], measured=diverging,
              expected="a growing residual norm")

# %% [markdown]
# ## 小结
#
# - NTK $\Theta(x,x') = \nabla_\theta f(x)\cdot\nabla_\theta f(x')$ 表示在 $x'$ 上走一步梯度下降会让 $x$ 处的输出移动多少：$\Delta f(x) \approx -\eta\,\Theta(x,x')\,\partial\ell/\partial f(x')$。
# - 随着各层宽度增大（NTK 参数化），它变成一个由网络结构决定的确定性的核（Jacot et al. 2018，各层宽度依次增大；Yang 2019 与 Arora et al. 2019，所有宽度同时增大）。对光滑的激活函数，它在有限的训练时间内、对梯度保持有界的一般损失保持不变；对平方损失，训练在每个时刻都有闭式解，终点是 $f_0$ 加上对 $y - f_0$ 的核回归（Lee et al. 2019）。ReLU 网络需要另外的证明。这些结论何时成立，由第 01 课说明。
# - `ntk_helpers` 中的同一份描述同时给出有限宽的 PyTorch 网络和精确的无限宽核。有限宽网络的 NTK 是围绕极限的一次随机抽样（上面宽度 2048 的网络相差 3.5 %）；只有它的典型距离随宽度稳定地缩小。
# - 归一化 NTK 可以读作输入之间的相关系数。随着深度增大，不带偏置的 ReLU 的曲线几乎变平（深度 50 时约为 0.3），而它的 Gram 矩阵的有效秩反而上升；在 $\sigma_w = \sqrt2$、不带偏置时（它们的混沌相），erf 和 tanh 除了在方向相同或相反的输入附近以外都趋于 0（在 180° 处恰好为 −1）；在这个 $\sigma_w$ 下，GELU 留下一个较小但持久的对比（深度 50 时 30° 处为 0.64、180° 处为 0.40，而深度 1 时为 0.82 和 −0.05）；线性网络的 $\cos\theta$ 则永远不变。
# - 第 02–06 课让核依次经过各种网络结构，第 07 课经过训练，第 08 课经过它的谱。

# %% [markdown]
# ## 写给教材第 4 章的读者
#
# 每一课的结尾都会列出教材或综述中被本课证明为错误或不严谨的说法，每条一个折叠块，并附上它在[勘误表](../../ERRATA.zh.md)中的条目。其中有两条与本课展示的内容有关。
#
# <details><summary>综述 §1：训练后的宽网络的核预测器</summary>
#
# **综述原文：** 训练后的宽网络“退化为”以 NTK 为核的核预测器。
#
# **正确的说法：** 这是两个条件不同的结论。对光滑的激活函数，在 NTK 参数化下，只要学习率不随宽度增大，NTK 在有限的训练时间内对梯度保持有界的一般损失都保持不变（Jacot et al. 2018）。在核保持不变期间，对任意损失、在每个时刻 $t$，变化量 $f_t - f_0$ 都是训练输入对应的函数 $\Theta(\cdot, x_i)$ 的线性组合：在这个意义上它是一个核预测器。需要平方损失的是闭式解，即每个时刻 $t$ 的核回归：在梯度流下 $f_t = f_0 + \Theta(\cdot, X)\,\Theta(X, X)^{-1}(I - e^{-\eta\Theta(X, X)\,t})\,(y - f_0(X))$，其终点是 $f_0$ 加上对 $y - f_0$ 的核回归，其中 $f_0$ 是 NNGP 的一个随机样本（Lee et al. 2019）。见[勘误 B1](../../ERRATA.zh.md#b1)；第 01 课和第 07 课展示这两点。
#
# </details>
#
# <details><summary>§4.1.2：深层的核“变为常数或低秩”</summary>
#
# **教材原文：** 随着深度增加，NTK 变为常数或低秩。
#
# **正确的说法：** 这取决于激活函数及其尺度。上面的滑块显示，深度 50 的 ReLU 在对角线上为 1，在对角线以外约为 0.28–0.34：它不是常数；不带偏置时，它的归一化 NTK 趋于 $\frac34 I + \frac14\mathbf 1\mathbf 1^\top$，这个矩阵是满秩的。若按有效秩来理解，原文有一定道理：$\frac34 I + \frac14\mathbf 1\mathbf 1^\top$ 的有效秩是 $n^2/\sum_{ij}K_{ij}^2 = n^2/(n + n(n-1)/16) = 16n/(n+15)$，无论输入个数 $n$ 是多少都小于 16（滑块的 12 个输入为 7.1；深度 50 时为 6.1）。$\sigma_w = \sqrt2$ 时的 erf 和 tanh（混沌相）则走向相反的方向：任意两个既不相同也不相反的输入之间，它们的归一化 NTK 都趋于 0。见[勘误 A4](../../ERRATA.zh.md#a4)；第 02 课推导这两种情形，第 08 课讨论有效秩。
#
# </details>

# %% [markdown]
# **下一课：** [01 · NTK 基础](01_ntk_basics.ipynb)
