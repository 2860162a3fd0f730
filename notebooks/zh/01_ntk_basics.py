# %% [markdown]
# # 01 · 神经正切核：宽网络像它的线性化一样学习
# [在 Colab 中打开](https://colab.research.google.com/github/ntk-notebooks/ntk-notebooks/blob/main/notebooks/zh/01_ntk_basics.ipynb) · [Binder](https://mybinder.org/v2/gh/ntk-notebooks/ntk-notebooks/HEAD?labpath=notebooks%2Fzh%2F01_ntk_basics.ipynb)（在 Colab 上，要让图和滑块显示中文，请先运行 `%pip install mplfonts==0.0.11` 和 `%env NTK_LESSON_LANGUAGE=zh`）
# （[English version / 英文版](../01_ntk_basics.ipynb)）
#
# *NTK 综述第 1–3 节与第 9 节。* 本课程配合一本中文教材的第 4 章和一篇 NTK 综述；像“（综述 §2）”这样的标题注记指出
# 某个单元格对应的章节。你不需要读这两份材料：这里把一切都讲清楚了；最后一节只面向读过它们的读者。
#
# **本课内容**
# - 把随机初始化附近的网络看作一个**关于参数的线性模型**，它的核就是神经正切核（NTK）；
# - 用 NTK 预测：在一个输入上走一步梯度下降，会怎样改变每个输入上的输出；
# - 用十行 `torch.func` 代码计算一个 PyTorch 模型（处于 eval 状态）的 NTK；
# - 为什么宽网络在训练中核保持不变（权重“惰性”），以及这需要哪些条件；
# - 宽网络收敛到什么：它的随机初始函数，加上对残差做的核回归。
#
# **预备知识：** 反向传播、梯度下降，以及机器学习入门课程程度的核回归与高斯过程；第 00 课（记号：宽度 $m$、NTK 参数化）。

# %%
# On Colab (or any Jupyter without this course's package) this installs it (once); here it does nothing.
import importlib, importlib.util, subprocess, sys
if importlib.util.find_spec("ntk_helpers") is None:
    package = "ntk-notebooks @ git+https://github.com/ntk-notebooks/ntk-notebooks"
    subprocess.run([sys.executable, "-m", "pip", "install", "--quiet", package], check=True)
    importlib.invalidate_caches()

# %%
import math

import matplotlib.pyplot as plt
import numpy as np
import torch
from torch.func import functional_call, jacrev, vmap

import ntk_helpers as nh
from ntk_helpers.course import linearization

nh.plotting.use_style()

# %% [markdown]
# ## 一图看懂核心思想
#
# 在随机初始化 $\theta_0$ 附近，宽网络的行为就像它关于参数的一阶泰勒展开：一个**线性模型**，其特征是梯度
# $\nabla_\theta f(x;\theta_0)$。这些特征的核就是 NTK，$\Theta(x,x') = \nabla_\theta f(x)\cdot\nabla_\theta f(x')$；
# 它告诉我们：在一个输入 $x_i$ 上走一步梯度下降，任意另一个输入 $x$ 上的输出会改变多少。
#
# 左图：取一个输入 $x_i$ 以及那里输出的梯度 $g = \nabla_\theta f(x_i;\theta_0)$，让参数沿一条直线移动到
# $\theta_0 + s\,g/\lvert g\rvert^2$。线性模型的输出恰好改变 $g\cdot s\,g/\lvert g\rvert^2 = s$：它的图像就是对角线，
# 即*切线*（“正切”之名由此而来）。两条曲线是一个窄的和一个宽的单隐藏层 ReLU 网络的输出 $f(x_i)$ 的真实变化。
# 右图：宽网络的 NTK $\Theta(x, x_i)$，$x$ 取圆周上的各个输入。

# %%
angles, x_circle = nh.circle(64)                 # 64 inputs on a circle in R², |x|² = 2
degrees = np.degrees(angles.numpy())
i = 16                                           # the input x_i at 90°
relu_net = nh.mlp(1, "relu", sigma_b=0.1)        # one hidden ReLU layer, NTK parameterization
shifts = np.linspace(-6, 6, 49)
fig, (left, right) = plt.subplots(1, 2, figsize=(11, 4))
for width in (16, 4096):
    path = linearization.gradient_path(relu_net.network(2, width=width, seed=0), x_circle[i:i + 1], shifts)
    left.plot(shifts, path, lw=3, alpha=0.8, label=nh._("network, width {width}").format(width=width))
left.plot(shifts, shifts, "k--", lw=1.5, label=nh._("linear model (tangent)"))
left.set_xlabel(nh._(r"$s$: parameters moved to $\theta_0 + s\,g/|g|^2$"))
left.set_ylabel(nh._("change of f(x_i)"))
left.set_title(nh._("A wide network stays on its tangent"))
left.legend()
column = nh.empirical_ntk(relu_net.network(2, width=4096, seed=0), x_circle, x_circle[i:i + 1])[:, 0]
parts = relu_net.kernel(x_circle, x_circle[i:i + 1])                # infinite width, one hidden layer
right.plot(degrees, column.numpy(), lw=2.5, label=nh._("Θ(x, x_i), width 4096"))
right.axvline(90, color="gray", ls=":", lw=1)
right.axhline(0, color="gray", lw=0.8)
right.set_xlabel(nh._("angle of x (degrees); x_i at 90°"))
right.set_ylabel(r"$\Theta(x, x_i)$")
right.set_title(nh._("A step on x_i moves f most near x_i, and lowers it a little beyond 120°"), fontsize=10)
right.legend(fontsize=8, loc="upper right")
plt.show()

# %% [markdown]
# 右图中，核在 $x_i$ 及其邻近处最大；对于与 $x_i$ 相距超过约 $115°$ 的输入（无穷宽时为 $118°$），核略微为**负**（最低约
# $-0.3$，而 $x_i$ 处为 $3.9$）：一步抬高 $f(x_i)$，就会让那里的 $f$ 稍稍下降。在 $x_i$ 的对面（270°），核又回升到接近
# 0，为 $-0.09$。§4 会从网络的两层出发解释这个形状。

# %% tags=["check"]
away = np.minimum(np.abs(degrees - 90), 360 - np.abs(degrees - 90))  # angle between x and x_i
nh.check_between("idea picture: the smallest Θ(x, x_i) of the width-4096 network (quoted -0.3)",
                 column.min(), -0.35, -0.25)
nh.check_between("idea picture: Θ(x_i, x_i) of the width-4096 network (quoted 3.9)", column[i], 3.85, 3.95)
nh.check_between("width 4096: the smallest angle to x_i at which Θ(x, x_i) < 0 (quoted about 115°)",
                 away[(column < 0).numpy()].min(), 110, 118)
nh.check_between("infinite width: the smallest angle to x_i at which Θ(x, x_i) < 0 (quoted 118°)",
                 away[(parts.ntk[:, 0] < 0).numpy()].min(), 117, 119)
nh.check_that("infinite width: Θ(x, x_i) < 0 at every angle from 120° to 180° away from x_i",
              (parts.ntk[:, 0][torch.from_numpy(away >= 120)] < 0).all(),
              measured=float(parts.ntk[:, 0][torch.from_numpy(away >= 120)].max()), expected="< 0")
nh.check_close("idea picture: Θ(x, x_i) opposite x_i (quoted -0.09)", column[48], -0.09, atol=0.005)
nh.check_that("idea picture: Θ climbs back between its minimum and the input opposite x_i",
              column[48] > column.min() + 0.15, measured=float(column[48] - column.min()), expected="> 0.15")

# %% [markdown]
# ## 1. 把网络看作线性模型（综述 §2）
#
# 记 $f(x;\theta)$ 为一个参数为 $\theta\in\mathbb R^P$、只有一个输出的网络。它在初始化 $\theta_0$ 处的一阶泰勒展开是
#
# $$f^\text{lin}(x;\theta) \;=\; f(x;\theta_0) + \nabla_\theta f(x;\theta_0)\cdot(\theta-\theta_0).$$
#
# 它关于 $\theta$ 是线性的：特征映射 $\phi(x) = \nabla_\theta f(x;\theta_0)\in\mathbb R^P$ 固定不变，偏移
# $f_0(x) = f(x;\theta_0)$ 也固定不变。这些特征的核就是网络在初始化时的**神经正切核**
#
# $$\hat\Theta_0(x, x') \;=\; \phi(x)\cdot\phi(x')
#   \;=\; \sum_{p=1}^{P} \frac{\partial f(x;\theta_0)}{\partial\theta_p}\,
#   \frac{\partial f(x';\theta_0)}{\partial\theta_p}.$$
#
# **三个核，三个记号。** 带帽子的记号表示某一个网络（带着它的随机权重）的核：$\hat\Theta_0$ 在初始化 $\theta_0$ 处，
# $\hat\Theta_t$ 用训练 $t$ 步后 $\theta_t$ 处的梯度。不带帽子的 $\Theta_\infty$ 是宽度增大时 $\hat\Theta_0$ 的确定性
# 极限（§5）。对线性模型 $f^\text{lin}$，核在每个 $t$ 都是 $\hat\Theta_0$。

# %% [markdown]
# **训练如何推动输出。** 在 $n$ 个输入 $x_1,\dots,x_n$ 上用平方损失
# $\mathcal L = \frac1{2n}\sum_{i=1}^n (f(x_i)-y_i)^2$ 训练。它的梯度是
# $\nabla_\theta\mathcal L = \frac1n\sum_i \nabla_\theta f(x_i)\,r_i$，其中 $r_i = f(x_i)-y_i$ 是残差。在梯度流
# $\dot\theta = -\eta\,\nabla_\theta \mathcal L$ 下，由链式法则，任意输入 $x$ 上输出的变化速度为
#
# $$\frac{d}{dt} f(x) \;=\; \nabla_\theta f(x)\cdot\dot\theta
#   \;=\; -\frac{\eta}{n}\sum_{i} \nabla_\theta f(x)\cdot\nabla_\theta f(x_i)\; r_i
#   \;=\; -\frac{\eta}{n}\sum_i \hat\Theta_t(x, x_i)\, r_i .$$
#
# 参数从式中消失了：输出是通过核来移动的。特别地，**在单个输入 $x_i$ 上以步长 $\eta$ 走一步梯度下降**（损失为
# $\frac12 r_i^2$），每个输入上的输出改变
#
# $$\Delta f(x) \;\approx\; -\eta\,\hat\Theta_0(x, x_i)\,r_i ,$$
#
# 这对 $f^\text{lin}$ 是精确的，对网络则是近似的。§3 检验这个预测。

# %% [markdown]
# **线性模型的训练走向何处。** 对 $f^\text{lin}$，核始终是 $\hat\Theta_0$，动态可以解出来。设 $J$ 是训练输入 $X$
# 在 $\theta_0$ 处的 $n\times P$ 雅可比矩阵，$\hat\Theta_0 = JJ^\top$ 是它们的 $n\times n$ Gram 矩阵，并**假设
# $\hat\Theta_0$ 可逆**（对本课的输入成立；§8 说明何时不成立）。步长为 $\eta$ 的一步梯度下降把残差乘以
# $I - \eta\hat\Theta_0/n$，所以 $t$ 步之后
#
# $$f^\text{lin}_t(X) \;=\; y + \Bigl(I - \tfrac{\eta}{n}\hat\Theta_0\Bigr)^{t}\bigl(f_0(X) - y\bigr)$$
#
# （梯度流下，用 $e^{-\eta\hat\Theta_0 t/n}$ 代替这个幂）。

# %% [markdown]
# **从训练输入到任意输入。** 每一步把 $\theta$ 移动 $-\frac\eta n J^\top r$，这是 $J$ 各行的线性组合。所以对某个
# $a\in\mathbb R^n$ 有 $\theta_t - \theta_0 = J^\top a$。在训练输入上这给出 $f^\text{lin}_t(X) - f_0(X) = JJ^\top a = \hat\Theta_0 a$，
# 于是 $a = \hat\Theta_0^{-1}(f^\text{lin}_t(X) - f_0(X))$；在任意输入上，
# $f^\text{lin}_t(x) - f_0(x) = \phi(x)\cdot J^\top a = \hat\Theta_0(x,X)\,a$。当 $\eta < 2n/\lambda_\max$ 时残差趋于 0，
# 终点为
#
# $$f_\infty(x) \;=\; f_0(x) \;+\; \hat\Theta_0(x, X)\,\hat\Theta_0^{-1}\bigl(y - f_0(X)\bigr).$$
#
# 这就是不带岭项的核回归（它插值训练数据），拟合的是**残差** $y - f_0$，再加上随机起点 $f_0$。§6 把一个网络放在这个
# 公式旁边对比；第 07 课详细推导训练动态。

# %% [markdown]
# ## 2. 十行 `torch.func` 代码算出 NTK
#
# 有定义就够了：把每个输入的梯度堆成形状为 $(n, P)$ 的雅可比矩阵 $J$，于是 $\Theta = J J^\top$。`jacrev`
# 对参数的函数求导，`vmap` 把它映射到各个输入上，`functional_call` 用我们传入的参数运行模型。这适用于只有一个输出、
# **处于 eval 状态**的 `nn.Module`：先调用 `model.eval()`。在训练状态下，dropout 会抽取随机掩码，批归一化会更新它的
# 滑动统计量，而 `torch.func` 的变换对这两者都会拒绝（报错）：`vmap` 拒绝 dropout 的随机掩码，`jacrev` 拒绝批归一化
# 对其统计量的原地更新。

# %%
def ntk(model, x1, x2):
    """The empirical NTK Θ(x1, x2) = J(x1) J(x2)ᵀ of a model with one output."""
    params = {name: p.detach() for name, p in model.named_parameters()}

    def f(p, x):                                           # one input -> one number
        return functional_call(model, p, (x.unsqueeze(0),)).squeeze()

    def jacobian(x):                                       # (n, P): one row of gradients per input
        rows = vmap(jacrev(f), in_dims=(None, 0))(params, x)           # {name: (n, *shape)}
        return torch.cat([row.flatten(1) for row in rows.values()], dim=1)

    return jacobian(x1) @ jacobian(x2).T

# %%
x = nh.sphere(16, d=4, seed=0)                             # 16 inputs in R⁴, |x|² = d
architecture = nh.mlp(3, "relu", sigma_w=math.sqrt(2), sigma_b=0.1)   # 3 hidden ReLU layers
model = architecture.network(4, width=512, seed=0).eval()    # eval mode (this network has no dropout anyway)
theta = ntk(model, x, x)                                   # (16, 16)
print(nh._("parameters: {count}").format(count=sum(p.numel() for p in model.parameters())))
print(theta[:4, :4].numpy().round(3))

# %% [markdown]
# `nh.empirical_ntk(model, x)` 计算的是同一个矩阵，但更快，占用的内存也有上界（对本软件包自己的网络，它从不存储
# 雅可比矩阵）；后面的课程都用它。下面的检验比较二者。

# %% tags=["check"]
reference = nh.empirical_ntk(model, x)
# Two float64 computations of the same sums: they agree to rounding error, far below 1e-10 of the largest.
nh.check_close("ten-line NTK = nh.empirical_ntk", theta, reference, rtol=1e-10)
nh.check_close("the NTK Gram matrix is symmetric", theta, theta.T, rtol=1e-12)
eigenvalues = nh.eigenvalues(theta)
nh.check_that("the NTK Gram matrix is positive semi-definite", eigenvalues[-1] >= -1e-12 * eigenvalues[0],
              measured=float(eigenvalues[-1]), expected=">= -1e-12 × the largest eigenvalue")
nh.check_that("the 16 random inputs: the NTK Gram matrix is invertible",
              eigenvalues[-1] > 1e-6 * eigenvalues[0],
              measured=float(eigenvalues[-1] / eigenvalues[0]), expected="> 1e-6")
with torch.random.fork_rng():                                # leaves the global seed as it was
    torch.manual_seed(0)
    plain = torch.nn.Sequential(torch.nn.Linear(4, 8), torch.nn.ReLU(), torch.nn.Linear(8, 1)).double()
with_dropout = torch.nn.Sequential(plain[0], plain[1], torch.nn.Dropout(0.5), plain[2])
try:
    ntk(with_dropout.train(), x, x)
    refused = False
except RuntimeError:
    refused = True
nh.check_that("a model with dropout in training mode: vmap raises an error", refused, measured=refused,
              expected=True)
nh.check_close("the same model in eval mode: its NTK is that of the model without dropout",
               ntk(with_dropout.eval(), x, x), ntk(plain, x, x), rtol=1e-12)
with_batchnorm = torch.nn.Sequential(plain[0], torch.nn.BatchNorm1d(8).double(), plain[1], plain[2])
try:
    ntk(with_batchnorm.train(), x, x)
    refused_bn = False
except RuntimeError:
    refused_bn = True
nh.check_that("a model with batch normalization in training mode: jacrev raises an error", refused_bn,
              measured=refused_bn, expected=True)

# %% [markdown]
# ## 3. 一步梯度下降，由核来预测
#
# 现在是本课的核心实验。我们要求宽度为 16、256 和 4096 的单隐藏层 ReLU 网络把 $x_i$（圆周上 90° 处的输入）上的
# 输出提高一个单位：在损失 $\frac12(f(x_i) - y_i)^2$ 上以 $\eta = 1$ 走一步梯度下降，其中 $y_i = f_0(x_i) + 1$，
# 于是 $r_i = -1$。在圆周的 64 个输入上，我们逐一比较实际的变化 $\Delta f(x)$ 与核的预测
# $-\eta\,\hat\Theta_0(x,x_i)\,r_i$（用的是每个网络自己在初始化时的 NTK）。标题中的百分比是二者的相对距离
# $\lVert\Delta f - \text{prediction}\rVert / \lVert\text{prediction}\rVert$，2-范数取遍这 64 个输入，与第 00 课的
# 度量相同；本课其余部分也都用它。

# %%
fig, axes = plt.subplots(1, 3, figsize=(12, 4), sharex=True, sharey=True)
for ax, width in zip(axes, (16, 256, 4096)):
    step = linearization.one_step(relu_net.network(2, width=width, seed=0), x_circle, i, lr=1.0)
    ax.plot(step.predicted, step.actual, "o", ms=4)
    top = step.predicted.max()
    ax.plot([0, top], [0, top], "k--", lw=1, label=nh._("actual = predicted"))
    ax.set_title(nh._("width {width}: off by {gap}").format(width=width, gap=linearization.percent(step.gap)))
    ax.set_xlabel(r"$-\eta\,\hat\Theta_0(x, x_i)\,r_i$")
axes[0].set_ylabel(nh._("actual change Δf(x)"))
axes[0].legend(loc="upper left")
fig.suptitle(nh._("One step on x_i: the wider the network, the closer it follows the kernel"))
plt.show()

# %% [markdown]
# 每个输入都在移动，移动最多的是 $x_i$ 及其邻近的输入（预测的最大变化是 $\hat\Theta_0(x_i,x_i)$，约为 4：
# $\eta = 1$ 时这一步超过了所要求的一个单位），而核为负的少数输入会稍稍下降。核预测对了哪些输入移动、朝哪个方向移动，
# 只有宽度 16 时有一个例外：一个预测移动 $-0.075$ 的输入实际移动了 $+0.009$。（宽度 4096 时有一个输入的预测为
# $-0.00001$，实际上是零，它移动了 $+0.0001$。）只有在宽度 16 的网络中，点才明显偏离虚线。
#
# **解释一下。** 为什么宽度 16 的网络偏离了核的预测，而宽网络却没有？（看看本课开头的图。）
#
# <details><summary>答案</summary>
#
# 预测是一阶的：它用的是 $\theta_0$ 处的梯度，而这一步本身会改变这些梯度。这一步把参数移动了 $\eta\,\lvert r_i\rvert\,g$，
# 也就是开头左图中 $s = \hat\Theta_0(x_i, x_i)$ 的那个点：对这个宽度 16 的网络 $s = 5.1$，对两个更宽的网络分别是
# $4.2$ 和 $3.9$。在那里，宽度 16 的曲线已经明显高于它的切线，而宽度 4096 的曲线仍贴在切线上。§4 测量其中的原因：
# 网络越宽，每个权重、从而每个梯度移动得越少。
#
# </details>

# %% tags=["check"]
steps = {w: linearization.one_step(relu_net.network(2, width=w, seed=0), x_circle, i, lr=1.0)
         for w in (16, 256, 4096)}
gaps = [steps[w].gap for w in (16, 256, 4096)]
nh.check_that("one step: the gap to the kernel's prediction shrinks with the width",
              gaps[0] > gaps[1] > gaps[2],
              measured=str(np.round(gaps, 4)), expected="decreasing")
for w, quoted in ((16, 5.1), (256, 4.2), (4096, 3.9)):          # the Θ(x_i, x_i) the answer quotes
    nh.check_close("one step: Θ(x_i, x_i), as quoted", steps[w].predicted[i], quoted, atol=0.05)
for w in (16, 4096):           # the step is the point s = Θ(x_i, x_i) of the top-left picture, exactly
    on_path = linearization.gradient_path(relu_net.network(2, width=w, seed=0), x_circle[i:i + 1],
                                          [steps[w].predicted[i]])
    nh.check_close("one step: the change at x_i = the top-left curve at s = Θ(x_i, x_i)", steps[w].actual[i],
                   on_path[0], rtol=1e-9)
wrong_way = {w: np.sign(steps[w].actual) != np.sign(steps[w].predicted) for w in (16, 256, 4096)}
nh.check_that("one step: inputs moving against the kernel's sign at widths 16, 256, 4096 (quoted 1, 0, 1)",
              [int(wrong_way[w].sum()) for w in (16, 256, 4096)] == [1, 0, 1],
              measured=str([int(wrong_way[w].sum()) for w in (16, 256, 4096)]), expected="[1, 0, 1]")
nh.check_close("one step, width 16: that input's predicted and actual change, as quoted",
               [steps[16].predicted[wrong_way[16]][0], steps[16].actual[wrong_way[16]][0]], [-0.075, 0.009],
               atol=0.0005)
nh.check_close("one step, width 4096: that input's predicted and actual change, as quoted",
               [steps[4096].predicted[wrong_way[4096]][0], steps[4096].actual[wrong_way[4096]][0]],
               [-0.00001, 0.0001], atol=0.00001)
nh.check_between("top-left picture: width 16 at s = Θ(x_i, x_i) lies above its tangent by",
                 steps[16].actual[i] - steps[16].predicted[i], 0.5, 1.5)

# %% [markdown]
# ### 动手探索：步长的大小
#
# 选择宽度、步长 $\eta$、激活函数以及随机初始化的种子。圆点是圆周上实际的变化 $\Delta f(x)$，曲线是核的预测；
# 标题说明二者是否吻合、相差多少。

# %% tags=["nbval-ignore-output"]
def draw_one_step(width, step_size, activation, seed):
    net = nh.mlp(1, activation, sigma_b=0.1).network(2, width=width, seed=seed)
    step = linearization.one_step(net, x_circle, i, lr=step_size)
    fig, ax = plt.subplots(figsize=(7.6, 4.0))
    ax.plot(degrees, step.predicted, "k-", lw=1.5, label=r"$-\eta\,\hat\Theta_0(x, x_i)\,r_i$")
    ax.plot(degrees, step.actual, "o", ms=4, label=nh._("actual change Δf(x)"))
    ax.set_xlabel(nh._("angle of x (degrees); x_i at 90°"))
    ax.set_ylabel(nh._("change of f(x)"))
    ax.set_title(linearization.one_step_title(step, width))
    ax.legend(loc="upper left", bbox_to_anchor=(1.02, 1))


nh.widgets.live_figure(
    draw_one_step,
    width=nh.widgets.width_slider(256, options=(16, 64, 256, 1024, 4096, 16384)),
    step_size=nh.widgets.sigma_slider(nh._("step size η"), 1.0, min=0.25, max=2.0, step=0.25),
    activation=nh.widgets.activation_dropdown("relu"),
    seed=nh.widgets.int_slider(nh._("seed"), 0, min=0, max=7),
)

# %% [markdown]
# **先预测，再验证。**
#
# 1. 宽度 256、erf：把步长依次设为 0.25、1、2。预测值与 $\eta$ 成正比地增长。差距呢？再换成 ReLU 看看。
#
# <details><summary>答案</summary>
#
# erf：是的，0.49 %、2.1 %、4.8 %。一阶泰勒展开的误差是二阶的，即 $O(\eta^2)$，所以相对于 $O(\eta)$ 的变化，它是
# $O(\eta)$。步长越小，越贴近核的预测；梯度流（无穷小的步长）是最干净的情形。ReLU 不遵循这条规律：1.0 %、2.0 %、
# 2.4 %，在最小的步长下已是 erf 差距的两倍，而且增长得比 $\eta$ 慢。ReLU 只在 0 处弯折，所以它的误差主要来自这一步中
# 输入越过 0 的那些隐藏单元（在 $\eta = 0.01$ 时没有任何输入越过 0，差距只有 0.0015 %）。检验一下：走同样的一步，
# 但让每个单元保持 $\theta_0$ 处的开/关状态（`linearization.frozen_pattern_step`）。在 $\eta$ = 0.25、1、2 时，差距从
# 1.0 %、2.0 %、2.4 % 降到 0.04 %、0.15 %、0.31 %，剩下的部分与 $\eta$ 成正比地增长，和 erf 一样。至于越过 0 的那部分
# 为什么增长得比 $\eta$ 慢，这里不作解释。
#
# </details>
#
# 2. 差距随宽度 $m$ 下降的速度有两个候选。**$m^{-1/2}$：** 每个权重移动 $O(1/\sqrt m)$（§4），梯度也就改变这么多。
#    **$1/m$：** 每个单元对误差的贡献都带着它随机的读出权重 $v_j$，所以这些贡献的符号是随机的，在求和时大部分相互
#    抵消。宽度变为 16 倍，差距相应缩小为 4 倍或 16 倍。先预测 erf（$\eta = 1$）遵循哪一个，再在种子 0、1、2 下分别
#    设宽度 256 和 4096。然后换成 ReLU。
#
# <details><summary>答案</summary>
#
# erf 遵循 $1/m$，但只是平均而言。种子 0 下它缩小 37 倍（2.1 % → 0.057 %），种子 1 和 2 下只缩小 3.8 倍和 2.6 倍：
# 在种子 0–7 上，缩小倍数从 2.6 到 42 不等，平均差距缩小 14 倍，接近 $1/m$ 的 16 倍。ReLU：种子 0 下缩小 6 倍
# （2.0 % → 0.31 %），在各种子上为 5.4 到 15 倍，平均为 8 倍，介于两个速度之间。它的误差主要来自输入越过 0 的单元
# （答案 1），而抵消的论证并不涵盖这种机制。窄网络的误差取决于它的随机起点；只有对多个种子取平均才能看出速度。
#
# </details>
#
# 3. 宽度 256、erf、种子 0：看 $x_i$ 对面的输入（270°）。这一步在那里做了什么？再换成 ReLU 看看。
#
# <details><summary>答案</summary>
#
# 用 erf 时，270° 处的 $f$ **下降**的幅度几乎与 $f(x_i)$ 上升的幅度相同：那里的核是 $\hat\Theta_0(x_i, x_i)$ 的
# $-0.97$ 倍。erf 是奇函数，偏置又很小，所以网络近乎是奇函数，$f(-x)\approx -f(x)$，抬高 $f(x_i)$ 就会压低
# $f(-x_i)$。用 ReLU 时，对面的输入几乎不动：它的核值约为 $\hat\Theta_0(x_i, x_i)$ 的 $-2\,\%$，与开头的图一致
# （$-0.09$，而 $x_i$ 处为 $3.9$）。决定哪些输入一起移动的是核，而不是这一步本身。
#
# </details>

# %% tags=["check"]
# Every number the answers quote, at the explorer's setting (seed 0 unless said): measured / quoted is 1 to
# within the rounding of the quoted digits. The labels name the answers, not their numbers.
def explorer_step(activation, width, lr=1.0, seed=0):
    net = nh.mlp(1, activation, sigma_b=0.1).network(2, width=width, seed=seed)
    return linearization.one_step(net, x_circle, i, lr=lr)


gaps_by_lr = {activation: np.array([explorer_step(activation, 256, lr).gap for lr in (0.25, 1.0, 2.0)])
              for activation in ("erf", "relu")}
nh.check_close("answer 1: erf, width 256, the gap at η = 0.25, 1, 2 / the quoted one", gaps_by_lr["erf"]
               / [0.0049, 0.021, 0.048], np.ones(3), atol=0.05)
nh.check_close("answer 1: ReLU, width 256, the gap at η = 0.25, 1, 2 / the quoted one", gaps_by_lr["relu"]
               / [0.010, 0.020, 0.024], np.ones(3), atol=0.05)
nh.check_between("answer 1: ReLU / erf gap at η = 0.25 (about twice)",
                 gaps_by_lr["relu"][0] / gaps_by_lr["erf"][0], 1.8, 2.4)
nh.check_that("answer 1: ReLU's gap grows more slowly than η (from η = 1 to 2: less than twice)",
              gaps_by_lr["relu"][2] < 2 * gaps_by_lr["relu"][1],
              measured=float(gaps_by_lr["relu"][2] / gaps_by_lr["relu"][1]), expected="< 2")
nh.check_close("answer 1: ReLU, width 256, the gap at η = 0.01 / the quoted one",
               explorer_step("relu", 256, lr=0.01).gap / 0.000015, 1, atol=0.05)


def crossings(lr, width=256, seed=0):
    """How many (hidden unit, input) pairs of the ReLU explorer network change the sign of their input."""
    net = nh.mlp(1, "relu", sigma_b=0.1).network(2, width=width, seed=seed)
    with torch.no_grad():
        before = net[0](x_circle) > 0
    gradient = torch.autograd.grad(net(x_circle[i:i + 1]).reshape(()), list(net.parameters()))
    with torch.no_grad():                                    # the explorer's step: residual -1, size lr
        for p, g in zip(net.parameters(), gradient):
            p += lr * g
        return int(((net[0](x_circle) > 0) != before).sum())


nh.check_that("answer 1: ReLU, width 256, at η = 0.01 no hidden unit's input crosses 0",
              crossings(0.01) == 0, measured=crossings(0.01), expected=0)
frozen_gaps = np.array([linearization.frozen_pattern_step(nh.mlp(1, "relu", sigma_b=0.1).network(
    2, width=256, seed=0), x_circle, i, lr=lr).gap for lr in (0.25, 1.0, 2.0)])
nh.check_close("answer 1: ReLU, width 256, frozen on/off pattern, the gap at η = 0.25, 1, 2 / the quoted one",
               frozen_gaps / [0.0004, 0.0015, 0.0031], np.ones(3), atol=0.05)
nh.check_close("answer 1: frozen pattern, the gap at η = 1 and 2 / at η = 0.25 (in proportion to η)",
               frozen_gaps[1:] / frozen_gaps[0], [4, 8], rtol=1e-6)
seed_gaps = {a: np.array([[explorer_step(a, w, seed=s).gap for s in range(8)] for w in (256, 4096)])
             for a in ("relu", "erf")}
ratios = {a: g[0] / g[1] for a, g in seed_gaps.items()}
nh.check_close("answer 2: ReLU, seed 0, gap at widths 256 and 4096 / the quoted one",
               seed_gaps["relu"][:, 0] / [0.020, 0.0031], np.ones(2), atol=0.05)
nh.check_close("answer 2: erf, seed 0, gap at widths 256 and 4096 / the quoted one",
               seed_gaps["erf"][:, 0] / [0.021, 0.00057], np.ones(2), atol=0.05)
nh.check_close("answer 2: erf, gap at width 256 / gap at 4096, seeds 0, 1, 2 / the quoted ratios",
               ratios["erf"][:3] / [37, 3.8, 2.6], np.ones(3), atol=0.03)
nh.check_close("answer 2: ReLU, gap at width 256 / gap at 4096, seed 0 (the quoted ratio)",
               ratios["relu"][0] / 6, 1, atol=0.08)
nh.check_close("answer 2: erf, smallest and largest ratio over seeds 0-7 / the quoted ones",
               [ratios["erf"].min() / 2.6, ratios["erf"].max() / 42], np.ones(2), atol=0.03)
nh.check_close("answer 2: ReLU, smallest and largest ratio over seeds 0-7 / the quoted ones",
               [ratios["relu"].min() / 5.4, ratios["relu"].max() / 15], np.ones(2), atol=0.03)
nh.check_close("answer 2: erf, mean gap over seeds 0-7 at width 256 / at 4096 (the quoted ratio)",
               seed_gaps["erf"][0].mean() / seed_gaps["erf"][1].mean() / 14, 1, atol=0.04)
nh.check_close("answer 2: ReLU, mean gap over seeds 0-7 at width 256 / at 4096 (the quoted ratio)",
               seed_gaps["relu"][0].mean() / seed_gaps["relu"][1].mean() / 8, 1, atol=0.07)
opposite = 48                                                        # the input at 270°
erf_step = explorer_step("erf", 256)
nh.check_close("answer 3: erf, Θ(-x_i, x_i) / Θ(x_i, x_i), as quoted",
               erf_step.predicted[opposite] / erf_step.predicted[i], -0.97, atol=0.005)
relu_step = explorer_step("relu", 256)
relu_share = np.array([relu_step.predicted[opposite] / relu_step.predicted[i],      # width 256
                       float(column[opposite] / column[i]),                               # width 4096
                       float(parts.ntk[opposite, 0] / parts.ntk[i, 0])])                  # infinite width
nh.check_that("answer 3: ReLU, Θ(-x_i, x_i) / Θ(x_i, x_i) at widths 256, 4096 and infinite width, as quoted",
              ((relu_share > -0.03) & (relu_share < -0.012)).all(),
              measured=str(np.round(relu_share, 4)), expected="between -0.03 and -0.012")

# %% [markdown]
# ## 4. 为什么核保持不变：惰性的权重（综述 §3.3）
#
# 看一看 NTK 参数化下单隐藏层网络中每一部分的大小：$f(x) = \frac{\sigma_w}{\sqrt m}\sum_{j=1}^m v_j\,\phi(z_j)$，
# 预激活为 $z_j = \frac{\sigma_w}{\sqrt d}\,w_j\cdot x + \sigma_b b_j$，所有权重都取自 $\mathcal N(0,1)$。
#
# - **每个权重得到的梯度都很小。** $\partial f/\partial v_j = \sigma_w\phi(z_j)/\sqrt m$ 和 $\partial f/\partial w_j$
#   都带有因子 $1/\sqrt m$。一步梯度下降让每个权重移动 $O(\eta/\sqrt m)$，而权重本身是 1 的量级。
# - **函数仍然移动 $O(1)$。** 一阶近似下，变化为
#   $\Delta f = \nabla_\theta f\cdot\Delta\theta = -\eta\,r\,\lvert\nabla_\theta f\rvert^2 = -\eta\,r\,\Theta(x,x)$：
#   约 $m$ 个微小的推动，全都朝着降低损失的方向，加起来就是 1 量级的变化。
# - **因此特征几乎不变。** 特征 $\partial f/\partial\theta_p$ 通过 $\phi(z_j)$ 和 $\phi'(z_j)$ 依赖于权重，而每个
#   $z_j$ 只移动了 $O(1/\sqrt m)$。核是特征乘积之和，它相对于自身大小最多移动 $O(1/\sqrt m)$（Lee et al. 2019
#   对光滑激活函数证明了这个上界）。
#
# 当 $m\to\infty$ 时，权重和核被冻结，而函数仍在学习：这就是**惰性训练**（Chizat, Oyallon & Bach 2019）。在更深的
# 网络中，$m\times m$ 的隐藏层权重矩阵每个元素移动得更少，为 $O(1/m)$（第 05b 课）。

# %% [markdown]
# **逐层看开头那张图的形状。** 利用上面的梯度（再加上读出层偏置 $\sigma_b c$ 和第一层偏置 $\sigma_b b_j$），核是
# 两部分之和：
#
# $$\hat\Theta_0(x,x') =
#   \underbrace{\frac{\sigma_w^2}{m}\sum_j \phi(z_j)\phi(z_j') + \sigma_b^2}_{\text{读出层部分}}
#   \;+\; \underbrace{\frac{\sigma_w^2}{m}\sum_j v_j^2\,\phi'(z_j)\phi'(z_j')\,
#   \Bigl(\frac{\sigma_w^2\,x\cdot x'}{d} + \sigma_b^2\Bigr)}_{\text{第一层部分}},$$
#
# 其中 $z_j = z_j(x)$，$z_j' = z_j(x')$。当 $m\to\infty$ 时，对单元的平均变为期望。对 ReLU，读出层部分从不为负
# （ReLU 的输出不为负）；它是随机输出 $f_0$ 在两个输入处的协方差，即 NNGP 核 $\Sigma$（§5）。在第一层部分中，
# $\phi'(z_j)\phi'(z_j')$ 对在两个输入上都激活的单元为 1，否则为 0，所以这部分等于 $\sigma_w^2\,x\cdot x'/d + \sigma_b^2$
# （在约 $90°$ 以外为负）乘以在两个输入上都激活的单元所占比例。下图：开头那张图中的网络（$\sigma_w = \sqrt 2$、
# $\sigma_b = 0.1$、$d = 2$）在无限宽时的这两部分。

# %%
readout_part, first_layer_part = parts.nngp[:, 0], parts.ntk[:, 0] - parts.nngp[:, 0]
fig, ax = plt.subplots(figsize=(7, 4))
ax.plot(degrees, parts.ntk[:, 0].numpy(), lw=2.5, label=nh._("Θ(x, x_i), infinite width"))
ax.plot(degrees, readout_part.numpy(), lw=1.5, label=nh._("readout part (infinite width)"))
ax.plot(degrees, first_layer_part.numpy(), lw=1.5, label=nh._("first-layer part (infinite width)"))
ax.axvline(90, color="gray", ls=":", lw=1)
ax.axhline(0, color="gray", lw=0.8)
ax.set_xlabel(nh._("angle of x (degrees); x_i at 90°"))
ax.set_ylabel(r"$\Theta(x, x_i)$")
ax.set_title(nh._("Beyond 120° the first layer's negative part outweighs the readout's"), fontsize=10)
ax.legend(fontsize=8, loc="upper right")
plt.show()

# %% [markdown]
# 从约 $120°$ 起，为负的第一层部分占了上风，$\Theta$ 降到 0 以下。在 $x_i$ 的对面（270°），几乎没有单元在两个输入上
# 都激活（没有偏置时一个也没有），所以负的部分缩小到其极值的四分之一左右，$\Theta$ 又回升到接近 0。

# %% tags=["check"]
nh.check_that("infinite width: the readout part of Θ(x, x_i) is >= 0 at every angle",
              (readout_part >= 0).all(), measured=float(readout_part.min()), expected=">= 0")
nh.check_that("infinite width: the first-layer part is negative wherever x is more than 90° from x_i",
              (first_layer_part[torch.from_numpy(away > 90)] < 0).all(),
              measured=float(first_layer_part[torch.from_numpy(away > 90)].max()), expected="< 0")
wide_net = relu_net.network(2, width=4096, seed=0)
with torch.no_grad():
    hidden = wide_net[0](x_circle)                                   # pre-activations, (64, 4096)
both = ((hidden > 0).double() @ (hidden[i] > 0).double()) / 4096     # share active on x and x_i
# The formula's first-layer part with the width-4096 network's shares (v_j² averages to 1): near the limit.
# The shares fluctuate by about 1/√4096, so this tests the x·x_i term; the σ_b² term (at most 0.02) is below
# its resolution.
from_shares = 2.0 * both * (2.0 * (x_circle @ x_circle[i]) / 2 + 0.01)
nh.check_close("width-4096 shares in the formula vs the first-layer part at infinite width", from_shares,
               first_layer_part, rtol=0.05)
nh.check_between("width 4096: share of hidden units active on both x_i and the input opposite it",
                 float(both[48]), 0, 0.05)
nh.check_between("infinite width: first-layer part opposite x_i / its most negative value (a quarter)",
                 float(first_layer_part[48] / first_layer_part.min()), 0.2, 0.3)

# %% [markdown]
# 测量方法：宽度从 64 到 4096 的网络（每个宽度两个随机种子）都被要求在圆周的 7 个输入上把输出改变同一个函数：角度
# $\alpha$ 处改变 $\sin 2\alpha$（目标为 $y = f_0 + \sin 2\alpha$，所以每个网络要走的距离相同），并用 $\eta = 1$ 的
# 梯度下降训练 100 步。然后测量它们相对于起点的变化：权重移动了多少（$W$ 指所有权重矩阵合在一起，取一个 Frobenius
# 范数，不含偏置），NTK 移动了多少（它在训练输入上的 $7\times 7$ Gram 矩阵），以及函数在这些输入上完成了所要求变化的
# 多大比例。

# %%
lazy_architecture = nh.mlp(1, "relu", sigma_b=0.1)          # the question below swaps in "erf"
angles_7, x_7 = nh.circle(7)                                # 7 equally spaced inputs (no opposite pairs)
lazy = linearization.lazy_sweep(lazy_architecture, x_7, torch.sin(2 * angles_7), widths=[64, 256, 1024, 4096],
                                lr=1.0, steps=100, seeds=2)
fig, ax = plt.subplots()
nh.plotting.loglog_fit(ax, lazy.widths, lazy.function_change.mean(1),
                       label=nh._("function: |f_T − f_0| / |y − f_0|"))
nh.plotting.loglog_fit(ax, lazy.widths, lazy.weight_change.mean(1),
                       label=nh._("weights: |W_T − W_0| / |W_0|"))
nh.plotting.loglog_fit(ax, lazy.widths, lazy.kernel_change.mean(1), label=nh._("NTK: |Θ_T − Θ_0| / |Θ_0|"))
nh.plotting.width_ticks(ax, lazy.widths)
ax.set_xlabel(nh._("width m"))
ax.set_ylabel(nh._("relative change during training"))
ax.set_title(nh._("Wider: the weights and the kernel move less, the function just as much"))
ax.legend(loc="lower left")
plt.show()

# %% [markdown]
# 每个 ReLU 网络都在 100 步内完成了全部的变化（最上面那条线平平地停在 1）。网络越宽，权重移动得越少，对 $\log m$
# 的斜率为 $-1/2$：宽度变为 4 倍，移动量减半。NTK 移动得更少，斜率为 $-0.70$：比 Lee et al. 上界（对光滑激活函数证明）
# 给出的 $-1/2$ 更陡，因为那只是一个上界。
#
# **先预测，再验证。** NTK 的斜率有两个候选。**$-1/2$**，即 Lee et al. 的上界：权重移动 $O(1/\sqrt m)$，特征也可能
# 移动这么多。**$-1$**：每个单元对核的贡献，其一阶变化都带着该单元随机的读出权重 $v_j$，所以这些变化的符号是随机的，
# 在对所有单元求和时相互抵消（与第一个交互探索的问题 2 相同）。在上面的单元格中把 `"relu"` 换成 `"erf"`，重新运行。
# erf 接近哪一个斜率？（之后再改回 `"relu"`。）
#
# <details><summary>答案</summary>
#
# 接近 $-1$：$-0.88$，与 Dyer & Gur-Ari（2020）对光滑激活函数提出的猜想一致（由 Huang & Yau 2020 证明）：训练过程中
# NTK 只移动 $O(1/m)$。ReLU 的导数在 0 处跳变，在这些宽度上它的斜率介于两者之间（换用种子 2 和 3 代替 0 和 1：erf 为
# $-0.89$，ReLU 为 $-0.75$）。
# 无论用哪种激活函数，权重都按 $m^{-1/2}$ 移动（erf：斜率 $-0.48$）。最上面那条线略低于 1：erf 网络学这个目标更慢，
# 在 100 步内只完成了 85–93 % 的变化，每个宽度都是如此。把每个核的变化除以已完成变化的比例，斜率也只从 $-0.88$ 变为
# $-0.89$。
#
# </details>

# %% tags=["check"]
# Slopes of the seed means over widths 64-4096; two seeds per width scatter the NTK slope by about ±0.1.
nh.check_close("ReLU: every network made the requested change", lazy.function_change, np.ones((4, 2)),
               atol=1e-3)
nh.check_between("slope of the weight change against the width", lazy.slope("weight_change"), -0.6, -0.4)
nh.check_between("slope of the NTK change against the width (steeper than -1/2)", lazy.slope("kernel_change"),
                 -1.0, -0.55)
nh.check_close("ReLU: slope of the NTK change, as quoted", lazy.slope("kernel_change"), -0.70, atol=0.005)
lazy_erf = linearization.lazy_sweep(nh.mlp(1, "erf", sigma_b=0.1), x_7, torch.sin(2 * angles_7),
                                    widths=[64, 256, 1024, 4096], lr=1.0, steps=100, seeds=2)
nh.check_close("the answer: erf, slope of the NTK change, as quoted", lazy_erf.slope("kernel_change"), -0.88,
               atol=0.005)
nh.check_close("the answer: erf, slope of the weight change, as quoted", lazy_erf.slope("weight_change"),
               -0.48, atol=0.005)
nh.check_between("the answer: erf, the smallest share of the change made in 100 steps, as quoted",
                 lazy_erf.function_change.min(), 0.845, 0.85)
nh.check_between("the answer: erf, the largest share of the change made in 100 steps, as quoted",
                 lazy_erf.function_change.max(), 0.925, 0.935)
per_change = nh.loglog_slope(lazy_erf.widths, (lazy_erf.kernel_change / lazy_erf.function_change).mean(1))
nh.check_close("the answer: erf, slope of the NTK change per share of the change made, as quoted", per_change,
               -0.89, atol=0.005)
other_seeds = {a: [linearization.lazy_run(nh.mlp(1, a, sigma_b=0.1).network(2, width=w, seed=s), x_7,
                                          torch.sin(2 * angles_7), lr=1.0, steps=100).kernel_change
                   for w in (64, 256, 1024, 4096) for s in (2, 3)] for a in ("erf", "relu")}
other_slopes = [nh.loglog_slope([64, 256, 1024, 4096], np.reshape(other_seeds[a], (4, 2)).mean(1))
                for a in ("erf", "relu")]
nh.check_close("the answer: seeds 2 and 3, slope of the NTK change, erf and ReLU, as quoted", other_slopes,
               [-0.89, -0.75], atol=0.005)

# %% [markdown]
# ## 5. 已证明的结论，以及 NTK 何时保持不变（综述 §3.1）
#
# §4 给出了论证和测量；下面是已经证明的结论。采用 NTK 参数化（第 00 课），深度固定，让各隐藏层的宽度 $m$ 增大。
#
# 1. **初始化时**，输出 $f_0$ 成为一个均值为零、以 NNGP 核 $\Sigma$ 为协方差的高斯过程（Neal 1996；Lee et al. 2018；
#    Matthews et al. 2018），随机的核 $\hat\Theta_0$ 成为一个**确定性**的核 $\Theta_\infty$（Jacot et al. 2018，
#    定理 1），第 02 课会逐层计算它。
# 2. **训练过程中**，直到任意有限时间 $T$，核 $\hat\Theta_t$ 都保持为 $\Theta_\infty$，输出按这个固定的核做核梯度下降
#    （Jacot et al. 2018，定理 2）。线性化从同一个 $f_0$ 出发，按 $\hat\Theta_0\to\Theta_\infty$ 做核梯度下降，所以在
#    极限下网络与它的线性化彼此吻合。
# 3. **对平方损失**，网络始终接近它的线性化（用同样的梯度下降训练）：
#    $\sup_{t\ge 0}\lvert f_t(x) - f^\text{lin}_t(x)\rvert = O(m^{-1/2})$，对所有时刻一致成立（Lee et al. 2019，
#    定理 2.1，对初始化以高概率成立）。
#
# 第 2、3 条是对**光滑**激活函数证明的；§3、§4 和 §6 的 ReLU 网络需要另外的证明（见下一块）。

# %% [markdown]
# <details><summary>确切的前提条件，以及对 ReLU 证明了什么</summary>
#
# - 定理 1 只需要激活函数是 Lipschitz 的（ReLU 满足）。在定理 1 和定理 2 中，Jacot et al. 都让各层宽度依次趋于无穷；
#   所有宽度一起增大时，极限相同（Yang 2019；Arora et al. 2019）。
# - 定理 2 假设激活函数二阶可导且二阶导数有界，并假设训练信号（损失对输出的梯度）在 $T$ 之前保持有界：平方损失如此，
#   交叉熵也如此。
# - Lee et al. 的定理 2.1 假设 $\phi'$ 是 Lipschitz 的、训练输入的 Gram 矩阵 $\Theta_\infty(X,X)$ 正定，且学习率低于该
#   矩阵的 $2/(\lambda_\min+\lambda_\max)$（按他们对损失的归一化）。
# - 这两条都排除了 ReLU，因为它的导数在 0 处跳变。对 ReLU 网络，同类的结论来自其他工作，前提也不同：Du et al.（2019）
#   处理读出层固定的单隐藏层网络（梯度下降把训练损失降到零，而 Gram 矩阵始终接近其极限）；Arora et al.（2019）处理
#   输出尺度很小的深层网络（训练后的网络接近以 $\Theta_\infty$ 对 $y$ 做的核回归）。
# - 这些都是关于固定输入的结论（有限个输入，或一个有界区域），并非在整个输入空间上一致成立。
#
# </details>

# %% [markdown]
# ### 条件
#
# §4 的论证用到了三点；去掉其中任何一点，核都可能移动。
#
# - **NTK 参数化**：$1/\sqrt m$ 放在前向传播中，于是每个权重的梯度为 $O(1/\sqrt m)$，核为 $O(1)$。
# - **学习率不随 $m$ 增大而改变，并且足够小**，使梯度下降保持稳定（对我们的损失，要低于 Gram 矩阵的
#   $2n/\lambda_\max$；第 07 课）。
# - **有限的训练时间，深度固定。** 对平方损失，Lee et al.（2019）把结论推广到所有时间；§7 测量有限宽时深度的影响。
#
# **损失函数不在这些条件之中**：有限时间的结论对交叉熵和对平方损失同样成立，平方损失只是多给了 §1 的闭式解。仅靠
# 宽度也不能冻结核：在*最大更新参数化* μP 下（它对读出层和学习率的缩放方式不同），任意宽度的网络都在学习特征，核的
# 变化为 $O(1)$（Yang & Hu 2021；第 05b 课）。

# %% [markdown]
# **标准参数化。** 标准参数化的 MLP 前面没有 $1/\sqrt m$ 因子，权重取自 $\mathcal N(0, 1/\text{fan-in})$（LeCun
# 初始化，下面显式地设定：PyTorch 默认的 `nn.Linear` 取自 $U(\pm 1/\sqrt{\text{fan-in}})$，方差只有它的三分之一）。
# 它计算的随机函数与 NTK 参数化相同，但它的 $m$ 个读出权重各自的梯度都是 $O(1)$，因此它的 NTK 与 $m$ 成正比地增长。
# 我们的十行 `ntk` 对它也适用（它没有 dropout 或批归一化，所以训练状态和 eval 状态算出的结果相同）：

# %%
def standard_mlp(width, seed=0):
    """An MLP in the standard parameterization, weights N(0, 1/fan-in) (LeCun), no biases."""
    generator = torch.Generator().manual_seed(seed)
    net = torch.nn.Sequential(torch.nn.Linear(4, width, bias=False, dtype=torch.float64), torch.nn.ReLU(),
                              torch.nn.Linear(width, 1, bias=False, dtype=torch.float64))
    with torch.no_grad():
        for layer in (net[0], net[2]):
            layer.weight.normal_(0, layer.in_features ** -0.5, generator=generator)
    return net


sp_widths = [64, 256, 1024, 4096]
sp_kernels = [ntk(standard_mlp(m), x, x) for m in sp_widths]
ntk_standard = [float(k.diagonal().mean()) for k in sp_kernels]
ntk_ntk_param = [float(ntk(nh.mlp(1, "relu", sigma_w=1.0).network(4, width=m), x, x).diagonal().mean())
                 for m in sp_widths]
for m, a, b in zip(sp_widths, ntk_standard, ntk_ntk_param):
    line = nh._("width {width:>4}: mean Θ(x, x) standard {standard:7.1f}, divided by m {scaled:.2f}; "
                "NTK parameterization {ntk:.2f}")
    print(line.format(width=m, standard=a, scaled=a / m, ntk=b))

# %% [markdown]
# 标准网络的核与 $m$ 成正比地增长；NTK 参数化的核则保持不变。梯度下降只在 $\eta < 2n/\lambda_\max$ 时稳定，而
# $\lambda_\max$ 也与 $m$ 成正比：在固定的学习率下，足够宽的标准网络会发散。
#
# 学习率取 $\eta_0/m$ 时，它实际上是用核 $\Theta/m$ 来训练，而这个核在极限下同样固定：此时标准参数化也是惰性的。但
# $\Theta/m$ 稳定在 0.5 附近，而不是 NTK 参数化的 1.0：这是一个**不同的核**。第一层的 fan-in 是 $d = 4$ 而不是 $m$；
# 它的梯度加起来是 $O(1)$，读出层的梯度加起来却是 $O(m)$，所以除以 $m$ 之后，第一层（以及所有偏置）只贡献 $O(1/m)$，
# 几乎不再学习，$\Theta/m$ 趋于只剩读出层的那一部分（Lee et al. 2019 关于标准参数化的附录；Sohl-Dickstein et al.
# 2020）。定理中的 $\Theta_\infty$（第 02 课计算它）是 NTK 参数化的核。

# %% tags=["check"]
# Log-log slopes over widths 64-4096 with one seed; ±0.1 covers the random fluctuation of the diagonal mean.
nh.check_close("standard parameterization: slope of the NTK against the width",
               nh.loglog_slope(sp_widths, ntk_standard), 1.0, atol=0.1)
nh.check_close("standard parameterization: slope of the NTK against the width (quoted 0.98)",
               nh.loglog_slope(sp_widths, ntk_standard), 0.98, atol=0.005)
nh.check_close("NTK parameterization: slope of the NTK against the width",
               nh.loglog_slope(sp_widths, ntk_ntk_param), 0.0, atol=0.1)
limit_sp = nh.mlp(1, "relu", sigma_w=1.0).kernel(x)                  # NTK parameterization, σ_w = 1, no bias
distance = lambda a, b: float((a - b).norm() / b.norm())
# One seed at width 4096: Θ/m is within 10 % of the readout part (measured 7 %), 40 % and more from Θ_∞.
nh.check_between("standard, width 4096: Θ/m vs the readout part of the NTK parameterization's limit",
                 distance(sp_kernels[-1] / sp_widths[-1], limit_sp.nngp), 0, 0.1)
nh.check_between("standard, width 4096: Θ/m vs the NTK parameterization's Θ_∞", 
                 distance(sp_kernels[-1] / sp_widths[-1], limit_sp.ntk), 0.35, 0.55)
nh.check_between("standard, width 4096: mean Θ(x, x)/m (quoted near 0.5)", ntk_standard[-1] / sp_widths[-1],
                 0.45, 0.55)
nh.check_close("NTK parameterization's Θ_∞(x, x) (quoted 1.0)", limit_sp.ntk.diagonal(), torch.ones(16),
               rtol=1e-9)
with torch.random.fork_rng():                                         # leaves the global seed as it was
    torch.manual_seed(0)
    default_layer = torch.nn.Linear(1000, 1000)
nh.check_close("PyTorch's default nn.Linear: weight variance × fan-in (a third)",
               float(default_layer.weight.detach().var()) * 1000, 1 / 3, rtol=0.01)

# %% [markdown]
# ## 6. 透过核看函数的学习（综述 §3.2）
#
# 现在看整个训练过程。一个宽度为 4096 的单隐藏层 ReLU 网络用 $\eta = 1$ 的梯度下降学习圆周上某个函数的 7 个点。
# 与它并行的是它的线性化，完全不需要训练：线性模型的梯度下降递推，即 §1 解出的
# $f^\text{lin}_t(X) = y + (I - \eta\hat\Theta_0/n)^t\,(f_0(X) - y)$，代入该网络自己的 $\hat\Theta_0$ 和 $f_0$，再由
# $\hat\Theta_0(x,X)\hat\Theta_0^{-1}$ 推广到其他输入。左图：二者在几个步数时的样子（粗线：网络；同色虚线：线性化）。
# 中图：训练 400 步后的终点。右图：中图两个终点之差。

# %%
width = 4096
angles_eval, x_eval = nh.circle(128)
targets = torch.sin(angles_7) + 0.5 * torch.cos(2 * angles_7)
picture = linearization.training_picture(relu_net.network(2, width=width, seed=0), x_7, targets, x_eval,
                                         lr=1.0, steps=400)
fig, (left, middle, right) = plt.subplots(1, 3, figsize=(15, 4.2),
                                         gridspec_kw={"width_ratios": [1.2, 1.2, 1]})
eval_degrees, train_degrees = np.degrees(angles_eval.numpy()), np.degrees(angles_7.numpy())
shown = (0, 1, 2, 20)
colours = dict(zip(shown, nh.plotting.PALETTE))
for step in shown:
    left.plot(eval_degrees, picture.network[step], color=colours[step], lw=3.5, alpha=0.55,
              label=nh._("step {step}").format(step=step))
    left.plot(eval_degrees, picture.linearized[step], "--", color=colours[step], lw=1.3)
left.plot([], [], color="gray", lw=3.5, alpha=0.55, label=nh._("network"))
left.plot([], [], "--", color="gray", lw=1.3, label=nh._("linearization"))
middle.plot(eval_degrees, picture.network[-1], color=nh.plotting.PALETTE[4], lw=3.5, alpha=0.55,
            label=nh._("network, step 400"))
middle.plot(eval_degrees, picture.with_offset, "--", color="k", lw=1,
            label=nh._("$f_0$ + kernel regression on $y - f_0$"))
middle.plot(eval_degrees, picture.without_offset, color=nh.plotting.PALETTE[5],
            label=nh._("kernel regression on $y$ (same $\\hat\\Theta_0$)"))
middle.plot(eval_degrees, picture.network[0], ":", color=colours[0], label=nh._("random start $f_0$"))
for ax in (left, middle):
    ax.plot(train_degrees, targets, "ks", ms=6)
    ax.set_ylim(-2.4, 2.4)                                           # room for the legends above the curves
left.set_ylabel("f(x)")
left.set_title(nh._("The network learns like its linearization"))
middle.set_title(nh._("It ends at f₀ + kernel regression on the residuals"))
left.legend(fontsize=9, ncol=3, loc="upper center")
middle.legend(fontsize=8, ncol=2, loc="upper center")
right.plot(eval_degrees, picture.network[-1] - picture.without_offset, color=nh.plotting.PALETTE[4], lw=3.5,
           alpha=0.55, label=nh._("network − kernel regression on $y$"))
right.plot(eval_degrees, picture.with_offset - picture.without_offset, "--", color="k", lw=1,
           label=nh._("what $f_0$ leaves: $f_0(x) - \\hat\\Theta_0(x,X)\\hat\\Theta_0^{-1}f_0(X)$"))
right.plot(train_degrees, np.zeros(7), "ks", ms=6)
right.axhline(0, color="gray", lw=0.8)
right.set_title(nh._("The trace of f₀: zero at the training points, not between"), fontsize=10)
right.legend(fontsize=8, loc="upper center")
right.set_ylim(-0.5, 0.6)
for ax in (left, middle, right):
    ax.set_xlabel(nh._("angle of x (degrees)"))
plt.show()
print(nh._("largest gap, network vs linearization: {gap:.3f}; end point vs f₀ + kernel regression: {end:.3f}")
      .format(gap=picture.gap, end=np.abs(picture.network[-1] - picture.with_offset).max()))

# %% [markdown]
# 左图：在每一步，网络与它的线性化都重合在一起，在训练点（黑色方块）之间也是如此。第 1 步越过了目标：沿
# $\hat\Theta_0(X,X)$ 的最大特征向量方向，每一步把残差乘以 $1 - \eta\lambda_\max/n$，而这里 $\eta\lambda_\max/n = 1.26$，
# 所以残差的这一部分每步都改变符号，并缩小为约四分之一（因为 $1.26 < 2$，仍是稳定的；第 07 课）。梯度流从不改变符号：
# 它把这一部分乘以 $e^{-\eta\lambda_\max t/n} > 0$。到第 20 步，曲线与第 400 步的终点之差已在 0.03 以内。

# %% [markdown]
# 中图：网络插值了这 7 个点，在点与点之间，它遵循的是 $f_0$ 加上对残差的核回归，而不是单单对 $y$ 的核回归（两者都用
# 网络自己的 $\hat\Theta_0$）。右图：它保留着随机起点的痕迹，即 $f_0$ 中对 $f_0(X)$ 做核回归所解释不了的那部分，在训练点上
# 为零，在训练点之间最多达 0.25。对许多次初始化取平均（$\mathbb E f_0 = 0$），并且宽网络有 $\hat\Theta_0\approx\Theta_\infty$，
# 终点就趋近普通的核回归 $\Theta_\infty(x,X)\Theta_\infty(X,X)^{-1}y$（Lee et al. 2019；第 07 课）；单个网络则保留它自己的
# $f_0$。
#
# **先预测，再验证。** 在上面的单元格中设 `width = 64`，重新运行（之后再改回 4096）。虚线还会贴在粗线上吗？终点
# 还会是 $f_0$ 加上对残差的核回归吗？
#
# <details><summary>答案</summary>
#
# 两者都不会。打印出的那一行说明了这一点：网络与其线性化之间的最大差距从 0.011 增大到 0.197，终点在训练点之间与
# $f_0$ + 核回归（用网络自己的 $\hat\Theta_0$）最多相差 0.169。窄网络仍然拟合了这 7 个点，但它的核在训练中移动了（§4），
# 所以固定核的公式不再能描述它的终点。
#
# </details>

# %% tags=["check"]
# Largest |network - linearization| over all 401 steps and 128 inputs (quoted 0.011; Lee et al.'s O(m^-1/2) is
# proved for smooth activations, this ReLU network is consistent with it), against targets of size about 1.
nh.check_close("network vs its linearization, largest gap during training, as quoted", picture.gap, 0.011,
               atol=0.0005)
nh.check_close("the end point is f_0 + kernel regression on y - f_0", picture.network[-1],
               picture.with_offset, atol=0.03)
nh.check_between("f_0 + regression on residuals vs regression on y: largest difference",
                 np.abs(picture.with_offset - picture.without_offset).max(), 0.1, 2)
top = float(nh.eigenvalues(nh.empirical_ntk(relu_net.network(2, width=width, seed=0), x_7))[0])
nh.check_close("η λ_max / n on the 7 training inputs, as quoted", 1.0 * top / 7, 1.26, atol=0.005)
nh.check_between("step 20 vs step 400: largest difference (quoted within 0.03)",
                 np.abs(picture.network[20] - picture.network[400]).max(), 0, 0.03)
trace = picture.with_offset - picture.without_offset                # f_0 - (kernel regression on f_0(X))
nh.check_close("right panel: the largest trace of f_0 between the training points (quoted 0.25)",
               np.abs(trace).max(), 0.25, atol=0.005)
trace_at_train = linearization.training_picture(relu_net.network(2, width=width, seed=0), x_7, targets, x_7,
                                                lr=1.0, steps=0)
nh.check_close("right panel: the trace of f_0 is zero at the training points",
               trace_at_train.with_offset - trace_at_train.without_offset, np.zeros(7), atol=1e-8)
# Width 64, evaluated on the 128 inputs of the figure and then on the 7 training inputs.
narrow = linearization.training_picture(relu_net.network(2, width=64, seed=0), x_7, targets,
                                        torch.cat([x_eval, x_7]), lr=1.0, steps=400)
nh.check_close("the answer: width 64, network vs its linearization, largest gap, as quoted",
               np.abs(narrow.network[:, :128] - narrow.linearized[:, :128]).max(), 0.197, atol=0.0005)
nh.check_close("the answer: width 64, end point vs f_0 + kernel regression, largest difference, as quoted",
               np.abs(narrow.network[-1, :128] - narrow.with_offset[:128]).max(), 0.169, atol=0.0005)
nh.check_close("the answer: width 64, the network still fits the 7 points", narrow.network[-1, 128:], targets,
               atol=1e-3)

# %% [markdown]
# ## 7. 深入一步（选读）：有限宽度下的随机核（综述 §3.1）
#
# 有限宽时 $\hat\Theta_0$ 是随机的。§5 的第 1 条（Jacot et al. 的定理 1）说它收敛到 $\Theta_\infty$，而
# `architecture.kernel(x)` 可以精确地算出这个极限（第 02 课讲解算法）。收敛有多快？我们测量 §2 那个深度为 3 的 ReLU
# 网络在其 16 个输入上的相对误差 $\lVert\hat\Theta_0 - \Theta_\infty\rVert_F / \lVert\Theta_\infty\rVert_F$，宽度取
# 64 … 2048，每个宽度 4 个随机种子。

# %%
sweep = nh.width_sweep(architecture, x, widths=[64, 128, 256, 512, 1024, 2048], seeds=4)
fig, ax = plt.subplots()
for s in range(sweep.errors.shape[1]):
    ax.loglog(sweep.widths, sweep.errors[:, s], "o", color="gray", alpha=0.5, ms=4,
              label=nh._("one seed") if s == 0 else None)
nh.plotting.loglog_fit(ax, sweep.widths, sweep.errors.mean(1),
                       label=nh._("mean of {count} seeds").format(count=sweep.errors.shape[1]),
                       guide_slope=-0.5)
nh.plotting.width_ticks(ax, sweep.widths)
ax.set_yticks([0.05, 0.1, 0.2, 0.5, 1], ["0.05", "0.1", "0.2", "0.5", "1"])     # plain numbers, not 2×10⁻¹
ax.yaxis.set_minor_locator(plt.NullLocator())
ax.set_xlabel(nh._("width m"))
ax.set_ylabel(nh._("relative error vs infinite width"))
ax.set_title(nh._("One network's NTK approaches its limit like $m^{-1/2}$"))
plt.show()

# %% tags=["check"]
# Slope of the 4-seed means; the seed scatter at each width (grey) allows about ±0.1 around the theory.
nh.check_between("slope of one network's NTK error against the width", sweep.slope, -0.65, -0.4)

# %% [markdown]
# ### 动手探索：宽度与深度
#
# 选择宽度、深度、激活函数和种子。网络就是 §2 和上图中的那个（$\sigma_w = \sqrt 2$、$\sigma_b = 0.1$、§2 的 16 个输入），
# 只是深度和激活函数由你选择。每个点是单个网络的 NTK 的一个矩阵元 $\hat\Theta_0(x_i,x_j)$，横坐标是它的无限宽值；
# 点落在虚线上表示二者一致。标题给出相对误差。

# %%
def draw_scatter(width, depth, activation, seed):
    arch = nh.mlp(depth, activation, sigma_w=math.sqrt(2), sigma_b=0.1)
    exact = arch.kernel(x).ntk
    finite = nh.empirical_ntk(arch.network(4, width=width, seed=seed), x)
    error = float((finite - exact).norm() / exact.norm())
    fig, ax = plt.subplots(figsize=(7.6, 4.2))
    ax.scatter(exact.flatten(), finite.flatten(), s=12, label=nh._(r"entries $\Theta(x_i,x_j)$"))
    lims = [float(exact.min()), float(exact.max())]
    ax.plot(lims, lims, "k--", lw=1, label=nh._("perfect agreement"))
    ax.set_xlabel(nh._("infinite-width NTK"))
    ax.set_ylabel(nh._("width-{width} NTK (seed {seed})").format(width=width, seed=seed))
    ax.set_title(linearization.kernel_error_title(activation, depth, error))
    ax.legend(loc="upper left", bbox_to_anchor=(1.02, 1))        # outside: narrow deep nets scatter anywhere

# %% tags=["nbval-ignore-output"]
nh.widgets.live_figure(
    draw_scatter,
    width=nh.widgets.width_slider(256, options=(16, 32, 64, 128, 256, 512, 1024, 2048)),
    depth=nh.widgets.depth_slider(3, max=8),
    activation=nh.widgets.activation_dropdown("relu"),
    seed=nh.widgets.int_slider(nh._("seed"), 0, min=0, max=3),
)

# %% [markdown]
# **先预测，再验证。**
#
# 1. ReLU、宽度 256：把深度从 1 调到 4。单个网络的误差会增大还是减小？试试种子 0–3。
#
# <details><summary>答案</summary>
#
# 增大，大约翻倍：种子 0 下从 9.9 % 增到 22.6 %；在种子 0–3 上从 9.9–14.9 % 增到 18.3–34.8 %（均值为 12 % 和
# 26.5 %）。每一层都乘进它自己的随机权重，它们的波动沿深度累积起来。
#
# </details>
#
# 2. 仍用深度 4 的 ReLU：找出一个宽度，使它与极限的接近程度和深度 1、宽度 256 时相同。（上图告诉你误差如何随宽度
#    下降。）
#
# <details><summary>答案</summary>
#
# 大约 1024：那里种子 0–3 的平均误差为 12 %，与深度 1、宽度 256 时相同。误差随深度翻了一倍，而它按 $m^{-1/2}$
# 下降，所以要把它减半，需要四倍的宽度。单个种子的结果有散布：从 7.9 %（种子 0）到 17.2 %。
#
# 一条形式相同、已被证明的规律：对没有随机偏置（我们的网络有 $\sigma_b = 0.1$）、各隐藏层宽度相等的 ReLU 网络，
# Hanin & Nica（2020）证明对角元 $\hat\Theta_0(x,x)$ 满足
# $\mathbb E[\hat\Theta_0^2]/(\mathbb E\hat\Theta_0)^2 \approx \exp(5\,\text{depth}/\text{width})$，所以当深度与宽度之比
# 很小时，它的相对波动约为 $\sqrt{5\,\text{depth}/\text{width}}$。我们的网络有随机偏置，而且我们测量的是所有元素，
# 所以这里这条规律只能作参考。
#
# </details>

# %% tags=["check"]
# The answers' numbers, at the explorer's settings (σ_w = √2, σ_b = 0.1), each to the rounding quoted.
def explorer_error(activation, depth, width, seed):
    arch = nh.mlp(depth, activation, sigma_w=math.sqrt(2), sigma_b=0.1)
    exact = arch.kernel(x).ntk
    return float((nh.empirical_ntk(arch.network(4, width=width, seed=seed), x) - exact).norm() / exact.norm())


settings = [("relu", 1, 256), ("relu", 4, 256), ("relu", 4, 1024)]
errors = {setting: np.array([explorer_error(*setting, seed) for seed in range(4)]) for setting in settings}
nh.check_close("answer 1: ReLU, width 256, seed 0, depth 1 and 4, as quoted",
               [errors["relu", 1, 256][0], errors["relu", 4, 256][0]], [0.099, 0.226], atol=0.0005)
nh.check_close("answer 1: ReLU, width 256, depth 1, seeds 0-3: smallest and largest, as quoted",
               [errors["relu", 1, 256].min(), errors["relu", 1, 256].max()], [0.099, 0.149], atol=0.0005)
nh.check_close("answer 1: ReLU, width 256, depth 4, seeds 0-3: smallest and largest, as quoted",
               [errors["relu", 4, 256].min(), errors["relu", 4, 256].max()], [0.183, 0.348], atol=0.0005)
nh.check_close("answer 1: ReLU, width 256, mean over seeds 0-3 at depth 1 and 4, as quoted",
               [errors["relu", 1, 256].mean(), errors["relu", 4, 256].mean()], [0.12, 0.265], atol=0.005)
nh.check_close("answer 2: ReLU, depth 4, width 1024, mean over seeds 0-3, as quoted",
               errors["relu", 4, 1024].mean(), 0.12, atol=0.005)
nh.check_close("answer 2: ReLU, depth 4, width 1024: seed 0 and the largest of seeds 0-3, as quoted",
               [errors["relu", 4, 1024][0], errors["relu", 4, 1024].max()], [0.079, 0.172], atol=0.0005)
nh.check_close("the explorer's default (depth 3, width 256, seed 0) is the grey dot of the figure above",
               explorer_error("relu", 3, 256, 0), sweep.errors[2, 0], rtol=1e-12)

# %% [markdown]
# ### 偏差与波动
#
# 单个网络的误差混合了两样东西：随机的**波动**，每个种子都不同；以及**偏差**，即对种子取平均之后仍然留下的误差。
# 理论表明，波动按 $m^{-1/2}$ 下降，偏差按 $1/m$ 下降，所以在任何单个网络中，波动都掩盖了偏差。为了让偏差显现出来，
# 我们对许多网络取平均（对 $S$ 个网络取平均会把波动缩小为 $\sqrt S$ 分之一，而偏差不变），并做两个有帮助的选择：
# 只看去掉尺度后的核的形状，因为尺度的波动更大；并且用较小的宽度，以及一个偏差大到用 400 个网络就能分辨出来的网络
# （深度 3、$\sigma_w = 2$ 的 erf 网络；下面的检查会验证这一点）。

# %% [markdown]
# 形状就是归一化的 NTK $K(x,x') = \hat\Theta_0(x,x')/\sqrt{\hat\Theta_0(x,x)\,\hat\Theta_0(x',x')}$；记 $K_m$ 为宽度
# $m$ 的网络的归一化核，$K_\infty$ 为 $\Theta_\infty$ 的归一化核。于是
#
# $$K_m - K_\infty \;=\;
#   \underbrace{\bigl(\mathbb E\,K_m - K_\infty\bigr)}_{\text{偏差：固定，} O(1/m)}
#   \;+\; \underbrace{\bigl(K_m - \mathbb E\,K_m\bigr)}_{\text{波动：随机，均值 } 0,\ O(1/\sqrt m)},$$
#
# 其中 $\mathbb E$ 表示对随机初始化取平均。偏差有两个来源，都是 $1/m$ 的量级：有两个或更多隐藏层时，$\hat\Theta_0$ 的
# 均值本身与 $\Theta_\infty$ 不同（Dyer & Gur-Ari 2020；只有一个隐藏层时 $\mathbb E\,\hat\Theta_0 = \Theta_\infty$
# 严格成立）；而且即便随机量本身没有偏差，它们的比值也有偏差（$\mathbb E[a/b] \neq \mathbb E a / \mathbb E b$）。
# 我们在宽度 8 … 64 上各取 400 个网络的平均。相对于 $\lVert K_\infty\rVert_F$：**波动**是单个网络的 $K_m$ 到 400 个
# 网络均值的均方根距离，**偏差**是这个均值到 $K_\infty$ 的距离。

# %%
erf_architecture = nh.mlp(3, "erf", sigma_w=2.0, sigma_b=0.1)
erf_limit = nh.normalize(erf_architecture.kernel(x).ntk)
small_widths, n_seeds = np.array([8, 16, 32, 64]), 400
spread, bias = [], []
for width in small_widths:
    networks = [erf_architecture.network(4, width=int(width), seed=s) for s in range(n_seeds)]
    raw = torch.stack([nh.empirical_ntk(net, x) for net in networks])          # (400, 16, 16)
    kernels = torch.stack([nh.normalize(k) for k in raw])                      # K_m of each network
    mean = kernels.mean(0)
    spread.append(float((kernels - mean).pow(2).sum().div(n_seeds - 1).sqrt() / erf_limit.norm()))
    bias.append(float((mean - erf_limit).norm() / erf_limit.norm()))
spread, bias = np.array(spread), np.array(bias)
leftover = spread / math.sqrt(n_seeds)

fig, ax = plt.subplots()
slope_spread = nh.plotting.loglog_fit(ax, small_widths, spread, label=nh._("spread (one network)"))
slope_bias = nh.plotting.loglog_fit(ax, small_widths, bias, label=nh._("bias (mean of 400)"))
ax.loglog(small_widths, leftover, ":", color="gray",
          label=nh._("leftover spread in the mean (spread/√400)"))
ax.set_ylim(leftover.min() / 1.5, spread.max() * 4)                 # room for the legend above the data
nh.plotting.width_ticks(ax, small_widths)
ax.legend(loc="upper right")
ax.set_xlabel(nh._("width m"))
ax.set_ylabel(nh._("relative size vs infinite width"))
ax.set_title(nh._("Averaging removes the spread and exposes a bias that falls like 1/m"))
plt.show()

# %% [markdown]
# 多个网络的均值按 $1/m$ 趋近 $K_\infty$，单个网络只按 $1/\sqrt m$。灰线是 400 个网络的均值中残留的那部分波动；
# 偏差始终在它之上，所以我们看到的确实是偏差。在这么小的宽度下，波动下降得比 $m^{-1/2}$ 稍快（可能是因为其展开的
# 下一项还不可忽略；我们没有验证这一点）。不做归一化时，$\hat\Theta_0$ 本身的偏差无法这样测出来：$\hat\Theta_0$ 的
# 波动约为 $K_m$ 的两倍，在这些宽度上，400 个网络的均值无法把它的偏差从这种噪声中分离出来。

# %% tags=["check"]
# Bias resolved: at least twice the leftover spread, which then inflates it by at most sqrt(1 + 1/4) = 1.12.
nh.check_that("the bias is resolved: bias >= 2 × leftover spread at every width",
              (bias >= 2 * leftover).all(),
              measured=float((bias / leftover).min()), expected=">= 2")
# Theory -1 and -0.5; at widths 8-64 the next order of the expansion steepens the spread slope a little.
nh.check_between("slope of the bias against the width", slope_bias, -1.25, -0.75)
nh.check_between("slope of the spread against the width", slope_spread, -0.75, -0.55)
nh.check_that("one network: the spread exceeds the bias at every width", (spread > bias).all(),
              measured=float((spread / bias).min()), expected="> 1")
# raw: the 400 kernels Θ_m of the loop's last width, 64, before normalization.
raw_limit = erf_architecture.kernel(x).ntk
raw_spread = float((raw - raw.mean(0)).pow(2).sum().div(n_seeds - 1).sqrt() / raw_limit.norm())
raw_bias = float((raw.mean(0) - raw_limit).norm() / raw_limit.norm())
nh.check_between("width 64, Θ without normalization: spread / spread of the normalized K (quoted about 2)",
                 raw_spread / spread[-1], 1.7, 2.5)
nh.check_that("width 64, Θ without normalization: its bias is not resolved (below 2 × leftover spread)",
              raw_bias < 2 * raw_spread / math.sqrt(n_seeds),
              measured=raw_bias / (raw_spread / math.sqrt(n_seeds)), expected="< 2")

# %% [markdown]
# ## 8. 深入一步（选读）：Gram 矩阵何时奇异？
#
# §1 的终点需要 $\hat\Theta_0(X,X)$ 可逆。Gram 矩阵总是半正定的；对本课的输入它是正定的，但并非任意一组互不相同的
# 输入都如此。已经证明的是：
#
# - 含偏置、激活函数是非多项式的 Lipschitz 函数、至少一个隐藏层时，无限宽 NTK 在单位球面上是正定的（Jacot et al.
#   2018，命题 2）；
# - 对**不含**偏置的单隐藏层 ReLU 网络，只要任意两个输入都不平行，它就是正定的，$x$ 与 $-x$ 也算平行（Du et al.
#   2019）。
#
# 没有偏置时，两者都可能失效。不含偏置的 ReLU 网络是正齐次的，$f(2x) = 2f(x)$，所以 $x$ 与 $2x$ 处的梯度平行，
# $\{x, 2x\}$ 给出奇异矩阵。不含偏置的 erf 网络是奇函数，所以 $\{x, -x\}$ 给出奇异矩阵。在球面上，ReLU 也会失效，
# 只是需要更多的点：由于 $\operatorname{relu}(u) - \operatorname{relu}(-u) = u$，不含偏置的单隐藏层 ReLU 网络满足
# $f(x) - f(-x) = \frac{\sigma_w^2}{\sqrt{md}}\sum_j v_j\, w_j\cdot x$，对每个 $\theta$ 都关于 $x$ 线性，这个奇部分的
# 梯度也是如此。在 $\mathbb R^3$ 中的球面上随机取 6 个点及其 6 个对径点：共 12 个互不相同的输入，但梯度最多只张成
# 6 个偶方向和 3 个奇方向。

# %%
pairs = nh.sphere(6, d=3, seed=1)
antipodal = torch.cat([pairs, -pairs])                     # 12 distinct points: 6 points and their opposites
no_bias = nh.eigenvalues(nh.mlp(1, "relu").kernel(antipodal).ntk)              # nh.mlp(1): σ_b = 0
with_bias = nh.eigenvalues(nh.mlp(1, "relu", sigma_b=0.1).kernel(antipodal).ntk)
zeros = int((no_bias.abs() < 1e-12 * no_bias[0]).sum())
print(nh._("no bias: {zeros} of 12 eigenvalues are zero (below 1e-12 of the largest)").format(zeros=zeros))
print(nh._("bias σ_b = 0.1: smallest / largest eigenvalue = {ratio:.1e}").format(
    ratio=float(with_bias[-1] / with_bias[0])))

# %% [markdown]
# 没有偏置时，有三个特征值在舍入误差范围内为零；加上 $0.1$ 的偏置后，矩阵变得可逆，尽管条件数很差。有限宽时
# 也是如此：零特征值来自网络的形式，而不是来自极限。

# %% tags=["check"]
finite_net = nh.mlp(1, "relu").network(3, width=1024, seed=0)
spectrum_finite = nh.eigenvalues(nh.empirical_ntk(finite_net, antipodal))
# Zero up to float64 rounding: below 1e-12 of the largest eigenvalue (measured about 1e-16).
nh.check_that("bias-free ReLU, antipodal pairs: 3 zero eigenvalues at infinite width", zeros == 3,
              measured=zeros, expected=3)
nh.check_that("bias-free ReLU, antipodal pairs: 3 zero eigenvalues at width 1024",
              (spectrum_finite.abs() < 1e-12 * spectrum_finite[0]).sum() == 3,
              measured=int((spectrum_finite.abs() < 1e-12 * spectrum_finite[0]).sum()), expected=3)
nh.check_between("with a bias 0.1: smallest / largest eigenvalue", with_bias[-1] / with_bias[0], 1e-3, 1e-2)
with torch.no_grad():
    odd_part = finite_net(pairs) - finite_net(-pairs)                 # f(x) - f(-x) at the 6 points
linear_fit = torch.linalg.lstsq(pairs, odd_part).solution
nh.check_close("bias-free ReLU: f(x) - f(-x) is linear in x", pairs @ linear_fit, odd_part, rtol=1e-10)

# %% [markdown]
# ## 检验你的理解
#
# 1. 一个线性模型 $f(x;\theta) = \theta\cdot\psi(x)$，特征映射 $\psi$ 固定：它的 NTK 是什么？训练中会变吗？
#
# <details><summary>答案</summary>
#
# $\nabla_\theta f(x) = \psi(x)$，所以 $\Theta(x,x') = \psi(x)\cdot\psi(x')$，就是这些特征的普通核。它永远不变：
# 梯度不依赖于 $\theta$。处于 NTK 区域的网络就像这个模型，其中 $\psi(x) = \nabla_\theta f(x;\theta_0)$（再加上偏移
# $f_0$）。
#
# </details>
#
# 2. 在单个输入 $x_i$ 上以 $\eta = 0.1$ 走一步梯度下降，残差 $r_i = 2$。在 $\Theta(x, x_i) = 0.5$ 的输入 $x$ 上，
#    $f(x)$ 的一阶变化是多少？在 $\Theta(x,x_i) = 0$ 的地方呢？
#
# <details><summary>答案</summary>
#
# $\Delta f(x) \approx -\eta\,\Theta(x,x_i)\,r_i = -0.1 \cdot 0.5 \cdot 2 = -0.1$：输出下降，与 $x_i$ 处的移动方向
# 相同（在 $x_i$ 处，它朝着目标移动）。在 $\Theta(x, x_i) = 0$ 的地方，一阶近似下什么都不动：两个输入处的梯度互相正交。
#
# </details>
#
# 3. `identity` 激活函数使网络成为输入 $x$ 的线性函数。它是关于参数的线性模型吗？也就是说，它的 NTK 在训练中
#    固定不变吗？（可以在第一个交互探索中试试。）
#
# <details><summary>答案</summary>
#
# 不是。$f(x) = \frac{\sigma_w^2}{\sqrt{md}}\,v^\top W x$（加上偏置项）是权重的乘积：关于 $x$ 是线性的，关于 $\theta$
# 却是二次的，所以权重移动时，它的梯度、从而它的 NTK 都会改变。在交互探索中（步长 1、种子 0），宽度 16 时差距为
# 6.7 %，宽度 256 时为 0.068 %：它随宽度缩小，与其他激活函数一样。
#
# </details>
#
# 4. 一个宽度 1024 的标准参数化 ReLU 网络用学习率 $\eta$ 训练得很好。你把它加宽到四倍，数据不变。如果保持 $\eta$ 不变，
#    可能会发生什么？用什么学习率能让训练速度大致保持不变？
#
# <details><summary>答案</summary>
#
# 它的 NTK 与 $m$ 成正比地增长（§5），所以 $\hat\Theta_0$ 及其最大特征值都变为大约四倍。每一步输出按
# $\eta\hat\Theta_0/n$ 移动（§1），所以 $\eta$ 不变时每一步都大约变为四倍；一旦 $\eta\lambda_\max/n$ 超过 2，梯度
# 下降就会发散。学习率 $\eta/4$ 让 $\eta\hat\Theta_0$、从而训练速度大致保持不变：这就是 §5 中 $\propto 1/m$ 的学习率，
# 在它之下网络以核 $\hat\Theta_0/m$ 训练。
#
# </details>
#
# 5. 一个不含偏置的单隐藏层 ReLU 网络接收三个输入：$x$、$2x$，以及一个与 $x$（和 $-x$）都不平行的输入 $z$。在无限宽时，
#    它们的 $3\times 3$ NTK Gram 矩阵的秩是多少？
#
# <details><summary>答案</summary>
#
# 秩为 2。网络是正齐次的，对每个 $\theta$ 都有 $f(2x;\theta) = 2f(x;\theta)$，所以
# $\nabla_\theta f(2x) = 2\nabla_\theta f(x)$：$x$ 与 $2x$ 的两行平行，只贡献一个方向。$x, z$ 这一对输入中没有平行的，
# 所以它们的 $2\times 2$ Gram 矩阵是正定的（§8，Du et al. 2019），$z$ 贡献了第二个方向。
#
# </details>
#
# 6. 用不同的随机种子，把 100 个同一结构的宽网络在同一份数据上训练到收敛（平方损失）。比较这 100 个预测在某个训练
#    输入上的离散程度，和在训练输入之间某个测试输入上的离散程度。
#
# <details><summary>答案</summary>
#
# 在训练输入上，离散程度接近 0：每个网络都插值训练数据，所以都停在 $y_i$ 附近。在测试输入上，离散依然存在：每个网络
# 都停在 $f_0(x) + \hat\Theta_0(x,X)\hat\Theta_0^{-1}(y - f_0(X))$ 附近，而其中的 $f_0(x) - \hat\Theta_0(x,X)\hat\Theta_0^{-1}f_0(X)$
# 这一部分，即 §6 右图中 $f_0$ 的痕迹，对每个种子都不同。训练只在训练输入上消除了随机起点（第 07 课测量集成的波动）。
#
# </details>

# %% [markdown]
# ## 小结
#
# - 在初始化附近，网络接近它的线性化 $f_0(x) + \nabla_\theta f(x;\theta_0)\cdot(\theta-\theta_0)$，这是一个线性模型，
#   其核就是 NTK $\Theta(x,x') = \nabla_\theta f(x)\cdot\nabla_\theta f(x')$。
# - 梯度下降通过核推动输出，$\dot f(x) = -\frac\eta n\sum_i\Theta(x,x_i)r_i$；在 $x_i$ 上走一步，$f(x)$ 大约改变
#   $-\eta\,\Theta(x,x_i)\,r_i$，网络越宽，越接近这个值。
# - NTK 就是 $JJ^\top$，$J$ 是关于参数的雅可比矩阵：十行 `torch.func` 代码就能对处于 eval 状态的模型算出它。它的 Gram 矩阵是
#   半正定的，但不一定可逆（不含偏置的网络在平行或相对的输入上）。
# - 在 NTK 参数化下，每个权重移动 $O(1/\sqrt m)$，而函数移动 $O(1)$，所以当 $m\to\infty$ 时核被冻结：条件是有限的
#   训练时间、固定且足够小的学习率，损失可以是任何对输出的梯度在 $T$ 之前保持有界的损失（平方损失、交叉熵；对光滑激活函数已有证明；
#   对 ReLU 由其他工作证明）。
#   标准参数化需要 $\propto 1/m$ 的学习率，而那时它冻结在另一个核上；μP 下核会移动。
# - 在平方损失上训练的宽网络最终停在 $f_0$ 加上对残差 $y - f_0$ 的核回归。初始化时它的核是随机的，波动
#   $\propto m^{-1/2}$，偏差 $\propto 1/m$（指归一化的核，或有两个及以上隐藏层的网络；只有一个隐藏层时
#   $\mathbb E\,\hat\Theta_0 = \Theta_\infty$ 严格成立）。
#
# **下一步：** 第 02 课逐层计算 $\Theta_\infty$；第 07 课求解训练动态。

# %% [markdown]
# ## 写给教材第 4 章及综述的读者
#
# 这一节只面向读过这两份材料的读者；没有它，本课也是完整的。下面每一块更正 NTK 综述中与本课相关的一处说法。
#
# <details><summary>综述 §1：训练后的宽网络“退化为”核预测器</summary>
#
# **综述原文：** 当宽度增大时，用梯度下降训练的网络会变成以 NTK 为核的核预测器。
#
# **正确的说法：** 这只在 §5 的条件下成立（NTK 参数化、固定且足够小的学习率、有限的训练时间；学习率
# $\propto 1/m$ 的标准参数化也是惰性的，但核不同），而且预测器保留着网络的随机起点：对平方损失，
# $f_\infty = f_0 +$ 对 $y - f_0$ 的核回归（§1、§6）。（[勘误 B1](../../ERRATA.zh.md#b1)）
#
# </details>
#
# <details><summary>综述 §3.1：“两个随机过程收敛”</summary>
#
# **综述原文：** 对任意有限时间 $T$，当 $m\to\infty$ 时，训练中的网络一致地接近某个固定的核回归预测器；初始化时的
# 输出与核回归的输出是“两个随机过程”，二者趋同。
#
# **正确的说法：** 固定的预测器不可能在每个时刻 $t$ 都与 $f_t$ 吻合（$t=0$ 时网络就是它的随机初始函数 $f_0$）。
# Jacot et al.（2018，定理 2）证明：直到时刻 $T$，核都保持为 $\Theta_\infty$，网络从它的随机 $f_0$ 出发，按这个核做
# 核梯度下降；Lee et al.（2019，定理 2.1）把它表述为网络与它的**线性化**（用同样的梯度下降训练）之间的比较：对平方损失，
# $\sup_t\lvert f_t(x) - f^\text{lin}_t(x)\rvert = O(m^{-1/2})$。两者都是对光滑激活函数证明的；§6 对一个宽度 4096 的
# ReLU 网络测得差距为 0.011。核预测器只是 $t\to\infty$ 时的终点，并带有偏移 $f_0$。
# （[勘误 B6](../../ERRATA.zh.md#b6)）
#
# </details>
#
# <details><summary>综述 §3.1：对所有输入取上确界</summary>
#
# **综述原文：** 收敛对所有输入 $x$ 一致成立。
#
# **正确的说法：** 这些定理是在固定的有限输入集或有界区域上证明的，并非在整个输入空间上一致成立。
# （[勘误 B7](../../ERRATA.zh.md#b7)）
#
# </details>
#
# <details><summary>综述 §3.1：权重 $\mathcal N(0, 1/m)$，“Xavier 初始化”</summary>
#
# **综述原文：** 无限宽定理中宽度为 $m$ 的网络，其权重取自 $\mathcal N(0, 1/m)$（“Xavier 初始化”）。
#
# **正确的说法：** 方差 $1/\text{fan-in}$ 是 LeCun 初始化（Xavier/Glorot 用的是 $2/(\text{fan-in}+\text{fan-out})$），
# 而且第一层的 fan-in 是输入维数 $d$，不是 $m$。若用同一个学习率训练（标准参数化），这个网络的 NTK 与 $m$ 成正比地
# 增长（§5：对 $\log m$ 的斜率为 0.98）。学习率 $\propto 1/m$ 会让它变得惰性，但极限核不同：其中第一层几乎不再学习
# （§5）；定理中的 $\Theta_\infty$ 是 NTK 参数化的核。（[勘误 B5](../../ERRATA.zh.md#b5)）
#
# </details>
#
# <details><summary>综述 §9.1：<code>compute_ntk</code> 代码</summary>
#
# **综述原文：** 用 `torch.jacobian(model, X)` 计算 NTK，再把两个雅可比矩阵相乘。
#
# **正确的说法：** PyTorch 中没有 `torch.jacobian`（会报 `AttributeError`）。最接近的真实函数
# `torch.autograd.functional.jacobian(model, X)` 是对**输入**求导，而不是对参数求导。由此得到的核
# $\nabla_x f(x)\cdot\nabla_{x'}f(x')$ 的秩至多为 $d$：在 §2 那 16 个 $\mathbb R^4$ 中的输入上，它的秩是 4，而 NTK 的
# 秩是 16。§2 的十行代码就是修正。（[勘误 B39](../../ERRATA.zh.md#b39)）
#
# </details>
#
# <details><summary>综述 §9.2：<code>simulate_infinite_width</code> 代码</summary>
#
# **综述原文：** 训练宽度不断增大的网络（一个固定的学习率，一个随机种子），用 `compute_ntk` 计算每个训练后网络的
# NTK 的有效秩，以此展示无限宽行为。
#
# **正确的说法：** 这个函数无法运行（`WideMLP`、`generate_data` 和 `F` 都没有定义，而且它调用的是错误的
# `compute_ntk`）。即使修好了，它测的也不对：收敛定理讲的是初始化时的 NTK；每个宽度只用一个种子，无法把趋势与种子
# 之间的随机起伏区分开；标准参数化的网络在固定学习率下没有无限宽极限（§5）。§7 做的才是它想做的实验：初始化时的
# NTK、NTK 参数化、每个宽度多个随机种子。（[勘误 B41](../../ERRATA.zh.md#b41)）
#
# </details>

# %% tags=["check"]
input_kernel = nh.input_gradient_kernel(model, x)            # what the repaired recipe computes
nh.check_that("torch has no function torch.jacobian", not hasattr(torch, "jacobian"),
              measured="torch.jacobian exists", expected="no torch.jacobian")
rank_input = int(torch.linalg.matrix_rank(input_kernel, rtol=1e-10))
rank_ntk = int(torch.linalg.matrix_rank(theta, rtol=1e-10))
nh.check_that("the input-gradient kernel has rank 4 = d", rank_input == 4, measured=rank_input, expected=4)
nh.check_that("the NTK on the same inputs has rank 16 = n", rank_ntk == 16, measured=rank_ntk, expected=16)
identity_gaps = [explorer_step("identity", w).gap for w in (16, 256)]
nh.check_close("check your understanding 3: identity, gap at widths 16 and 256 / the quoted ones",
               np.array(identity_gaps) / [0.067, 0.00068], np.ones(2), atol=0.05)
third = torch.tensor([[1.0, 0.3, -0.5]], dtype=torch.float64)              # z, not parallel to x
x_line = torch.tensor([[0.2, 1.0, 0.4]], dtype=torch.float64)
triple = torch.cat([x_line, 2 * x_line, third])
triple_eigenvalues = nh.eigenvalues(nh.mlp(1, "relu").kernel(triple).ntk)            # no bias
nh.check_that("check your understanding 5: bias-free ReLU, x, 2x, z: one zero eigenvalue of three",
              bool(triple_eigenvalues[-1].abs() < 1e-12 * triple_eigenvalues[0]
                   and triple_eigenvalues[1] > 1e-3 * triple_eigenvalues[0]),
              measured=str(triple_eigenvalues.numpy()), expected="rank 2")

# %% [markdown]
# ## 参考文献
#
# - S. Arora, S. S. Du, W. Hu, Z. Li, R. Salakhutdinov, R. Wang. *On Exact Computation with an Infinitely Wide
#   Neural Net.* NeurIPS 2019. arXiv:1904.11955.
# - L. Chizat, E. Oyallon, F. Bach. *On Lazy Training in Differentiable Programming.* NeurIPS 2019.
#   arXiv:1812.07956.
# - S. S. Du, X. Zhai, B. Póczos, A. Singh. *Gradient Descent Provably Optimizes Over-parameterized Neural
#   Networks.* ICLR 2019. arXiv:1810.02054.
# - E. Dyer, G. Gur-Ari. *Asymptotics of Wide Networks from Feynman Diagrams.* ICLR 2020. arXiv:1909.11304.
# - B. Hanin, M. Nica. *Finite Depth and Width Corrections to the Neural Tangent Kernel.* ICLR 2020.
#   arXiv:1909.05989.
# - J. Huang, H.-T. Yau. *Dynamics of Deep Neural Networks and Neural Tangent Hierarchy.* ICML 2020.
#   arXiv:1909.08156.
# - A. Jacot, F. Gabriel, C. Hongler. *Neural Tangent Kernel: Convergence and Generalization in Neural
#   Networks.* NeurIPS 2018. arXiv:1806.07572.
# - J. Lee, Y. Bahri, R. Novak, S. S. Schoenholz, J. Pennington, J. Sohl-Dickstein. *Deep Neural Networks as
#   Gaussian Processes.* ICLR 2018. arXiv:1711.00165.
# - J. Lee, L. Xiao, S. S. Schoenholz, Y. Bahri, R. Novak, J. Sohl-Dickstein, J. Pennington. *Wide Neural
#   Networks of Any Depth Evolve as Linear Models Under Gradient Descent.* NeurIPS 2019. arXiv:1902.06720.
# - A. G. de G. Matthews, M. Rowland, J. Hron, R. E. Turner, Z. Ghahramani. *Gaussian Process Behaviour in Wide
#   Deep Neural Networks.* ICLR 2018. arXiv:1804.11271.
# - R. M. Neal. *Bayesian Learning for Neural Networks.* Springer, 1996.
# - J. Sohl-Dickstein, R. Novak, S. S. Schoenholz, J. Lee. *On the Infinite Width Limit of Neural Networks with a
#   Standard Parameterization.* arXiv:2001.07301, 2020.
# - G. Yang. *Scaling Limits of Wide Neural Networks with Weight Sharing: Gaussian Process Behavior, Gradient
#   Independence, and Neural Tangent Kernel Derivation.* arXiv:1902.04760, 2019.
# - G. Yang, E. J. Hu. *Tensor Programs IV: Feature Learning in Infinite-Width Neural Networks.* ICML 2021.
#   arXiv:2011.14522.
#
# **下一课：** [02 · MLP 的递归公式、核退化与混沌边缘](02_mlp_recursion.ipynb)
