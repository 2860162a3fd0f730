# %% [markdown]
# # 01 · 神经正切核：宽网络像它的线性化一样学习
# [在 Colab 中打开](https://colab.research.google.com/github/ntk-notebooks/ntk-notebooks/blob/main/notebooks/zh/01_ntk_basics.ipynb) · [Binder](https://mybinder.org/v2/gh/ntk-notebooks/ntk-notebooks/HEAD?labpath=notebooks%2Fzh%2F01_ntk_basics.ipynb)（在 Colab 上，要让图和滑块显示中文，请先运行 `%pip install mplfonts==0.0.11` 和 `%env NTK_LESSON_LANGUAGE=zh`）
# （[English version / 英文版](../01_ntk_basics.ipynb)）
#
# *NTK 综述第 1–3 节与第 9 节。*
#
# **本课内容**
# - 把随机初始化附近的网络看作一个**关于参数的线性模型**，它的核就是神经正切核（NTK）；
# - 用 NTK 预测：在一个输入上走一步梯度下降，会怎样改变每个输入上的输出；
# - 用十行 `torch.func` 代码计算任意 PyTorch 模型的 NTK；
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
# ## 核心想法：一张图
#
# 在随机初始化 $\theta_0$ 附近，宽网络的行为就像它关于参数的一阶泰勒展开：一个**线性模型**，其特征是梯度
# $\nabla_\theta f(x;\theta_0)$。这些特征的核就是 NTK，$\Theta(x,x') = \nabla_\theta f(x)\cdot\nabla_\theta f(x')$；
# 它告诉我们：在一个输入 $x_i$ 上走一步梯度下降，任意另一个输入 $x$ 上的输出会改变多少。
#
# 左图：沿着某个输入处输出的梯度方向移动参数时，该输入上的输出如何变化；分别画出一个窄的和一个宽的单隐藏层
# ReLU 网络。那条直线就是线性模型（即*切线*，“正切”之名由此而来）。右图：宽网络的 NTK $\Theta(x, x_i)$，
# $x$ 取圆周上的各个输入。

# %%
angles, x_circle = nh.circle(64)                 # 64 inputs on a circle in R², |x|² = 2
degrees = np.degrees(angles.numpy())
i = 16                                           # the input x_i at 90°
relu_net = nh.mlp(1, "relu", sigma_b=0.1)        # one hidden ReLU layer, NTK parameterization
shifts = np.linspace(-4, 4, 33)
fig, (left, right) = plt.subplots(1, 2, figsize=(11, 4))
for width in (16, 4096):
    path = linearization.gradient_path(relu_net.network(2, width=width, seed=0), x_circle[i:i + 1], shifts)
    left.plot(shifts, path, lw=3, alpha=0.8, label=nh._("network, width {width}").format(width=width))
left.plot(shifts, shifts, "k--", lw=1.5, label=nh._("linear model (tangent)"))
left.set_xlabel(nh._("step s along the gradient g of f(x_i)"))
left.set_ylabel(nh._("change of f(x_i)"))
left.set_title(nh._("A wide network stays on its tangent"))
left.legend()
column = nh.empirical_ntk(relu_net.network(2, width=4096, seed=0), x_circle, x_circle[i:i + 1])[:, 0]
right.plot(degrees, column.numpy())
right.axvline(90, color="gray", ls=":", lw=1)
right.set_xlabel(nh._("angle of x (degrees); x_i at 90°"))
right.set_ylabel(r"$\Theta(x, x_i)$")
right.set_title(nh._("A step on x_i moves f most near x_i"))
plt.show()

# %% [markdown]
# ## 1. 把网络看作线性模型（综述 §2）
#
# 记 $f(x;\theta)$ 为一个参数为 $\theta\in\mathbb R^P$、只有一个输出的网络。它在初始化 $\theta_0$ 处的一阶泰勒展开是
#
# $$f^\text{lin}(x;\theta) \;=\; f(x;\theta_0) + \nabla_\theta f(x;\theta_0)\cdot(\theta-\theta_0).$$
#
# 它关于 $\theta$ 是线性的：特征映射 $\phi(x) = \nabla_\theta f(x;\theta_0)\in\mathbb R^P$ 固定不变，偏移
# $f_0(x) = f(x;\theta_0)$ 也固定不变。这些特征的核就是**神经正切核**
#
# $$\Theta(x, x') \;=\; \phi(x)\cdot\phi(x') \;=\; \sum_{p=1}^{P} \frac{\partial f(x)}{\partial\theta_p}\,
#   \frac{\partial f(x')}{\partial\theta_p}.$$
#
# **训练如何推动输出。** 在平方损失 $\mathcal L = \frac1{2n}\sum_{i=1}^n (f(x_i)-y_i)^2$ 上用梯度流
# $\dot\theta = -\eta\,\nabla_\theta \mathcal L$ 训练。损失的梯度是 $\nabla_\theta\mathcal L = \frac1n\sum_i \nabla_\theta f(x_i)\,r_i$，
# 其中 $r_i = f(x_i)-y_i$ 是残差。由链式法则，任意输入 $x$ 上输出的变化速度为
#
# $$\frac{d}{dt} f(x) \;=\; \nabla_\theta f(x)\cdot\dot\theta
#   \;=\; -\frac{\eta}{n}\sum_{i} \nabla_\theta f(x)\cdot\nabla_\theta f(x_i)\; r_i
#   \;=\; -\frac{\eta}{n}\sum_i \Theta(x, x_i)\, r_i .$$
#
# 参数从式中消失了：输出是通过核来移动的。对线性模型而言 $\Theta$ 永远不变，上式是一个可以求解的线性常微分方程
# （见下文）。特别地，**在单个输入 $x_i$ 上以步长 $\eta$ 走一步梯度下降**（损失为 $\frac12 r_i^2$），每个输入上的输出改变
#
# $$\Delta f(x) \;\approx\; -\eta\,\Theta(x, x_i)\,r_i ,$$
#
# 这对 $f^\text{lin}$ 是精确的，对网络则是近似的。

# %% [markdown]
# ### 已证明的结论（综述 §3.1）
#
# 取一个采用 NTK 参数化的多层网络（第 00 课），深度固定，让各隐藏层的宽度 $m$ 增大。
#
# 1. **初始化时**，输出 $f_0$ 是一个随机函数。当 $m\to\infty$ 时，它成为一个均值为零的高斯过程，协方差为 NNGP 核
#    $\Sigma$（Neal 1996；Lee et al. 2018；Matthews et al. 2018）。随机的核 $\Theta_0$ 收敛到一个**确定性**的核
#    $\Theta_\infty$（Jacot et al. 2018，定理 1），第 02 课会逐层计算它。Jacot et al. 让各层宽度依次趋于无穷；
#    所有宽度一起增大时，极限相同（Yang 2019；Arora et al. 2019）。
# 2. **训练过程中**，对任意有限时间 $T$，当 $m\to\infty$ 时核在整个 $[0, T]$ 上都保持为 $\Theta_\infty$
#    （Jacot et al. 2018，定理 2）。因此，网络与它的线性化（用同样的梯度下降训练）彼此吻合：
#    $\sup_{t\le T}\lvert f_t(x) - f^\text{lin}_t(x)\rvert \to 0$。只要损失的梯度在训练中保持有界，该定理就成立：
#    平方损失如此，交叉熵也如此。
# 3. **对平方损失**，Lee et al.（2019，定理 2.1）证明：这一差距对所有 $t\ge 0$ 一致地以 $O(m^{-1/2})$ 为上界，
#    前提是训练输入的 Gram 矩阵 $\Theta_\infty(X,X)$ 正定，且学习率低于该矩阵的 $2/(\lambda_\min+\lambda_\max)$
#    （按他们对损失的归一化）。
#
# 这三条都是关于固定输入的结论（有限个输入，或一个有界区域），并非在整个输入空间上一致成立。
#
# **训练的终点。** 对平方损失，上面的线性常微分方程有闭式解。在训练输入 $X$ 上，
# $f^\text{lin}_t(X) = y + e^{-\eta\Theta t/n}\,(f_0(X) - y)$，其中 $\Theta = \Theta(X,X)$；当 $t\to\infty$ 时，
# 在任意输入上
#
# $$f_\infty(x) \;=\; f_0(x) \;+\; \Theta(x, X)\,\Theta(X,X)^{-1}\bigl(y - f_0(X)\bigr).$$
#
# 这就是对**残差** $y - f_0$ 做的无岭核回归（它插值训练数据），再加上随机的起点 $f_0$。对初始化取平均
# （$\mathbb E f_0 = 0$）得到的是普通的核回归 $\Theta(x,X)\Theta(X,X)^{-1}y$；而单个网络保留着它自己的 $f_0$
# （Lee et al. 2019）。§6 展示这两者；第 07 课详细讨论训练动态。

# %% [markdown]
# ## 2. 十行 `torch.func` 代码算出 NTK
#
# 有定义就够了：把每个输入的梯度堆成形状为 $(n, P)$ 的雅可比矩阵 $J$，于是 $\Theta = J J^\top$。`jacrev`
# 对参数的函数求导，`vmap` 把它映射到各个输入上，`functional_call` 用我们传入的参数运行模型。这对任何只有一个输出的
# `nn.Module` 都适用。

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
model = architecture.network(4, width=512, seed=0)
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

# %% [markdown]
# ### Gram 矩阵可逆吗？
#
# 任何由内积构成的 Gram 矩阵都是对称半正定的。上面的闭式解还需要更多：$\Theta(X,X)$ 可逆。对上面那 16 个随机输入，
# 它是可逆的（最小特征值为正）。但并**不是**任意一组互不相同的输入都能让它可逆。已经证明的是：
#
# - Jacot et al.（2018，命题 2）：对非多项式的 Lipschitz 激活函数、至少一个隐藏层，无限宽 NTK 限制在单位球面上是
#   正定的——这是在他们的设定下，其中含有偏置项；
# - Du et al.（2019）：对**不含**偏置的单隐藏层 ReLU 网络，只要任意两个输入都不平行（$x$ 与 $-x$ 也算平行），
#   它就是正定的。
#
# 没有偏置时，两者都可能失效。不含偏置的 ReLU 网络是正齐次的，$f(2x) = 2f(x)$，所以 $x$ 与 $2x$ 处的梯度平行，
# $\{x, 2x\}$ 给出奇异矩阵。不含偏置的 erf 网络是奇函数，$f(-x) = -f(x)$，所以 $\{x, -x\}$ 给出奇异矩阵。
# ReLU 网络在球面上也会失效，只是需要更多的点。在 $\mathbb R^3$ 中的球面上随机取 6 个点及其 6 个对径点：
# 共 12 个互不相同的输入。不含偏置的单隐藏层 ReLU 网络 `nh.mlp(1)` 满足：$f(x) - f(-x)$ 关于 $x$ 是线性的，
# 所以它的核在这 6 对点上只能表示一个 3 维的奇函数空间。

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
# 没有偏置时，有三个特征值在舍入误差范围内为零（12 个点，但只有 6 个偶方向和 3 个奇方向）；加上 $0.1$ 的偏置后，
# 矩阵变得可逆，尽管条件数仍然很差。有限宽时也是如此：零特征值来自网络的形式，而不是来自极限。

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
nh.check_that("the 16 random inputs: the NTK Gram matrix is invertible",
              eigenvalues[-1] > 1e-6 * eigenvalues[0],
              measured=float(eigenvalues[-1] / eigenvalues[0]), expected="> 1e-6")

# %% [markdown]
# ## 3. 一步梯度下降，由核来预测
#
# 现在是本课的核心实验。我们要求宽度为 16、256 和 4096 的单隐藏层 ReLU 网络把 $x_i$（圆周上 90° 处的输入）上的
# 输出提高一个单位：在损失 $\frac12(f(x_i) - y_i)^2$ 上以 $\eta = 1$ 走一步梯度下降，其中 $y_i = f_0(x_i) + 1$，
# 于是 $r_i = -1$。在圆周的 64 个输入上，我们逐一比较实际的变化 $\Delta f(x)$ 与核的预测 $-\eta\,\Theta(x,x_i)\,r_i$
# （用的是该网络自己在初始化时的 NTK）。
#
# 运行之前先想一想：哪个网络会最好地遵循预测？为什么窄网络可能做不到？

# %%
fig, axes = plt.subplots(1, 3, figsize=(12, 4), sharex=True, sharey=True)
for ax, width in zip(axes, (16, 256, 4096)):
    step = linearization.one_step(relu_net.network(2, width=width, seed=0), x_circle, i, lr=1.0)
    ax.plot(step.predicted, step.actual, "o", ms=4)
    top = step.predicted.max()
    ax.plot([0, top], [0, top], "k--", lw=1, label=nh._("actual = predicted"))
    ax.set_title(nh._("width {width}: off by {gap:.1%}").format(width=width, gap=step.gap))
    ax.set_xlabel(r"$-\eta\,\Theta(x, x_i)\,r_i$")
axes[0].set_ylabel(nh._("actual change Δf(x)"))
axes[0].legend(loc="upper left")
fig.suptitle(nh._("One step on x_i: the wider the network, the closer it follows the kernel"))
plt.show()

# %% [markdown]
# 每个输入都在移动，移动最多的是 $x_i$ 及其邻近的输入。预测的最大变化是 $\Theta(x_i,x_i) \approx 4$：取 $\eta = 1$ 时，
# 这一步超出了要求的一个单位。窄网络明显偏离预测，宽网络几乎完全吻合。三者走的是同样的一步：不同的是网络离它自己的
# 切线有多远（见本课开头的图）。

# %% tags=["check"]
gaps = [linearization.one_step(relu_net.network(2, width=w, seed=0), x_circle, i, lr=1.0).gap
        for w in (16, 256, 4096)]
nh.check_that("one step: the gap to the kernel's prediction shrinks with the width",
              gaps[0] > gaps[1] > gaps[2],
              measured=str(np.round(gaps, 4)), expected="decreasing")
# A 16-fold width increase shrinks it at least 3-fold (m^{-1/2} would give 4; measured 4.9 and 5.4).
nh.check_between("one step: gap at width 16 / gap at width 256", gaps[0] / gaps[1], 3, 40)
nh.check_between("one step: gap at width 256 / gap at width 4096", gaps[1] / gaps[2], 3, 40)

# %% [markdown]
# ### 动手探索：步长的大小
#
# 选择宽度、学习率（步长）$\eta$ 和激活函数。圆点是圆周上实际的变化 $\Delta f(x)$，曲线是核的预测；标题给出二者
# 相差多少。

# %% tags=["nbval-ignore-output"]
def draw_one_step(width, step_size, activation):
    net = nh.mlp(1, activation, sigma_b=0.1).network(2, width=width, seed=0)
    step = linearization.one_step(net, x_circle, i, lr=step_size)
    fig, ax = plt.subplots(figsize=(7.6, 4.0))
    ax.plot(degrees, step.predicted, "k-", lw=1.5, label=r"$-\eta\,\Theta(x, x_i)\,r_i$")
    ax.plot(degrees, step.actual, "o", ms=4, label=nh._("actual change Δf(x)"))
    ax.set_xlabel(nh._("angle of x (degrees); x_i at 90°"))
    ax.set_title(linearization.one_step_title(step, width))
    ax.legend(loc="upper left", bbox_to_anchor=(1.02, 1))


nh.widgets.live_figure(
    draw_one_step,
    width=nh.widgets.width_slider(256, options=(16, 64, 256, 1024, 4096, 16384)),
    step_size=nh.widgets.sigma_slider(nh._("step size η"), 1.0, min=0.25, max=2.0, step=0.25),
    activation=nh.widgets.activation_dropdown("relu"),
)

# %% [markdown]
# **先预测，再验证。**
#
# 1. 保持 ReLU、步长 1。把宽度从 256 调到 4096，即宽 16 倍。你预计差距会缩小多少？再换成 erf 做同样的事。
#
# <details><summary>答案</summary>
#
# ReLU：从 3.4 % 降到 0.6 %，约 5 倍，接近 $m^{-1/2}$ 规律给出的 $\sqrt{16} = 4$。erf：从 2.9 % 降到 0.1 %，约 30 倍，
# 比 $1/m$ 给出的还快。对光滑的激活函数，各隐藏单元的二阶项符号随机，大部分相互抵消；ReLU 的折点（在这一步中开启或
# 关闭的单元）抵消得没那么好。无论哪种情况，越宽就越接近切线。
#
# </details>
#
# 2. 宽度 256、erf：把步长依次设为 0.25、1、2。预测值与 $\eta$ 成正比地增大。差距也是吗？
#
# <details><summary>答案</summary>
#
# 大致是的：0.6 %、2.9 %、6.8 %。一阶泰勒展开的误差是二阶的，$O(\eta^2)$，所以相对于 $O(\eta)$ 的变化，它是
# $O(\eta)$。步子越小，越贴近核的预测；梯度流（无穷小的步长）是最干净的情形。
#
# </details>
#
# 3. 换成 erf，看看与 $x_i$ 相对的那个输入（270°）。这一步在那里做了什么？与 ReLU 比较。
#
# <details><summary>答案</summary>
#
# 用 erf 时，270° 处的 $f$ **下降**，幅度几乎与 $f(x_i)$ 的上升相同（$\Theta(-x_i, x_i)/\Theta(x_i, x_i) \approx -0.97$）：
# erf 是奇函数，偏置又很小，所以网络近似为奇函数，$f(-x)\approx -f(x)$，抬高 $f(x_i)$ 就会压低 $f(-x_i)$。用 ReLU
# 时，相对的输入几乎不动（约为 $x_i$ 处变化的 $-1\,\%$）：决定哪些输入一起移动的是核，而不是这一步本身。
#
# </details>

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
#   证明了这个上界）。
#
# 当 $m\to\infty$ 时，权重和核被冻结，而函数仍在学习：这就是**惰性训练**（Chizat, Oyallon & Bach 2019）。在更深的
# 网络中，$m\times m$ 的隐藏层权重矩阵每个元素移动得更少，为 $O(1/m)$（第 05 课）。
#
# 测量方法：宽度从 64 到 4096 的网络（每个宽度两个随机种子）用梯度下降训练，直到每个网络在圆周的 7 个输入上把输出
# 改变了同一个函数：角度 $\alpha$ 处改变 $\sin 2\alpha$（目标为 $y = f_0 + \sin 2\alpha$，所以每个网络要走的距离
# 相同）。然后测量权重矩阵和 NTK 相对于起点移动了多少。

# %%
angles_7, x_7 = nh.circle(7)                                # 7 equally spaced inputs (no opposite pairs)
lazy = linearization.lazy_sweep(relu_net, x_7, torch.sin(2 * angles_7), widths=[64, 256, 1024, 4096],
                                lr=1.0, steps=100, seeds=2)
fig, ax = plt.subplots()
nh.plotting.loglog_fit(ax, lazy.widths, lazy.function_change.mean(1),
                       label=nh._("function: |f_T − f_0| / |y − f_0|"))
nh.plotting.loglog_fit(ax, lazy.widths, lazy.weight_change.mean(1),
                       label=nh._("weights: |W_T − W_0| / |W_0|"))
nh.plotting.loglog_fit(ax, lazy.widths, lazy.kernel_change.mean(1), label=nh._("NTK: |Θ_T − Θ_0| / |Θ_0|"))
nh.plotting.width_ticks(ax, lazy.widths)
ax.set_xlabel("width m")
ax.set_ylabel(nh._("relative change during training"))
ax.set_title(nh._("Wider: the weights and the kernel move less, the function just as much"))
ax.legend(loc="lower left")
plt.show()

# %% [markdown]
# 每个网络都完成了全部的改变（最上面那条线平坦地停在 1）。网络越宽，权重移动得越少，对 $\log m$ 的斜率为
# $-1/2$：宽度变为四倍，移动量减半。NTK 移动得更少，斜率也比 $-1/2$ 更陡：Lee et al. 的 $m^{-1/2}$ 只是上界，
# 第 05 课会解释为什么网络的核可以移动得更慢。

# %% tags=["check"]
# Slopes of the seed means over widths 64-4096; 0.1 covers the seed-to-seed scatter of two seeds per width.
nh.check_close("every network made the requested change", lazy.function_change, np.ones((4, 2)), atol=1e-3)
nh.check_between("slope of the weight change against the width", lazy.slope("weight_change"), -0.6, -0.4)
nh.check_between("slope of the NTK change against the width", lazy.slope("kernel_change"), -1.05, -0.45)

# %% [markdown]
# ## 5. NTK 何时保持不变？
#
# 上面的论证依赖于下列条件；去掉其中任何一条，核都可能移动。
#
# - **参数化的缩放方式。** NTK 参数化（或者等价地，学习率 $\propto 1/m$ 的标准参数化），使每个权重的梯度为
#   $O(1/\sqrt m)$，核为 $O(1)$。
# - **学习率不随 $m$ 增大而改变，并且足够小**，使梯度下降保持稳定（对我们的损失，要低于 Gram 矩阵的
#   $2n/\lambda_\max$；第 07 课）。
# - **有限的训练时间** $T$（Jacot et al. 2018）。对平方损失，若 Gram 矩阵正定，Lee et al.（2019）把结论推广到
#   所有时间。
# - 另外：宽度增大时深度保持固定（有限宽修正随深度与宽度之比增大，Hanin & Nica 2020；§7）。
#
# **损失函数不在这些条件之中**：有限时间的结论对交叉熵和对平方损失同样成立。平方损失带来的是 §1 的闭式解，以及对
# 所有时间成立的结论。
#
# 仅靠宽度并不能冻结核。在*最大更新参数化* μP 下（它对读出层和学习率的缩放方式不同），任意宽度的网络都在学习特征，
# 核的变化为 $O(1)$（Yang & Hu 2021）；第 05 课会测量这一点。
#
# **标准参数化在固定学习率下出了什么问题。** 普通的 PyTorch MLP 从 $\mathcal N(0, 1/\text{fan-in})$ 中抽取权重，
# 前面没有 $1/\sqrt m$ 因子。它计算的随机函数与 NTK 参数化相同，但它的 $m$ 个读出权重各自的梯度都是 $O(1)$，因此它的
# NTK 与 $m$ 成正比地增长。我们的十行 `ntk` 对它和对任何模块一样适用：

# %%
def standard_mlp(width, seed=0):
    """A plain PyTorch MLP with weights N(0, 1/fan-in): the standard parameterization."""
    generator = torch.Generator().manual_seed(seed)
    net = torch.nn.Sequential(torch.nn.Linear(4, width, bias=False, dtype=torch.float64), torch.nn.ReLU(),
                              torch.nn.Linear(width, 1, bias=False, dtype=torch.float64))
    with torch.no_grad():
        for layer in (net[0], net[2]):
            layer.weight.normal_(0, layer.in_features ** -0.5, generator=generator)
    return net


sp_widths = [64, 256, 1024, 4096]
ntk_standard = [float(ntk(standard_mlp(m), x, x).diagonal().mean()) for m in sp_widths]
ntk_ntk_param = [float(ntk(nh.mlp(1, "relu", sigma_w=1.0).network(4, width=m), x, x).diagonal().mean())
                 for m in sp_widths]
for m, a, b in zip(sp_widths, ntk_standard, ntk_ntk_param):
    line = nh._("width {width:>4}: mean Θ(x, x) standard {standard:7.1f}, NTK parameterization {ntk:.2f}")
    print(line.format(width=m, standard=a, ntk=b))

# %% [markdown]
# 标准网络的核与 $m$ 成正比地增长；NTK 参数化的核保持不变。梯度下降只有在 $\eta < 2n/\lambda_\max$ 时才稳定，而
# $\lambda_\max$ 也与 $m$ 成正比地增长：在固定的学习率下，足够宽的标准网络会发散。取 $\eta\propto 1/m$ 时，它又有了
# 核极限。

# %% tags=["check"]
# Log-log slopes over widths 64-4096 with one seed; ±0.1 covers the random fluctuation of the diagonal mean.
nh.check_close("standard parameterization: slope of the NTK against the width",
               nh.loglog_slope(sp_widths, ntk_standard), 1.0, atol=0.1)
nh.check_close("NTK parameterization: slope of the NTK against the width",
               nh.loglog_slope(sp_widths, ntk_ntk_param), 0.0, atol=0.1)

# %% [markdown]
# ## 6. 透过核看函数的学习（综述 §3.2）
#
# 现在看整个训练过程。一个宽度为 4096 的单隐藏层 ReLU 网络用 $\eta = 1$ 的梯度下降学习圆周上某个函数的 7 个点。
# 与它并行的是它的线性化：用该网络自己的 $\Theta_0$ 和 $f_0$ 代入 §1 的闭式解，完全不需要训练。看图之前先想一想：
# 在没有训练数据的地方，网络的曲线和线性模型的曲线会不同吗？

# %%
angles_eval, x_eval = nh.circle(128)
targets = torch.sin(angles_7) + 0.5 * torch.cos(2 * angles_7)
picture = linearization.training_picture(relu_net.network(2, width=4096, seed=0), x_7, targets, x_eval,
                                         lr=1.0, steps=400)
fig, (left, right) = plt.subplots(1, 2, figsize=(12, 4.2), sharey=True)
eval_degrees = np.degrees(angles_eval.numpy())
for k, step in enumerate((0, 1, 3, 20, 400)):
    left.plot(eval_degrees, picture.network[step], color=nh.plotting.PALETTE[k],
              label=nh._("network, step {step}").format(step=step))
    left.plot(eval_degrees, picture.linearized[step], "--", color="k", lw=1)
left.plot([], [], "--", color="k", lw=1, label=nh._("linearization"))
right.plot(eval_degrees, picture.network[-1], label=nh._("network, step 400"))
right.plot(eval_degrees, picture.with_offset, "--", color="k", lw=1,
           label=nh._("$f_0$ + kernel regression on $y - f_0$"))
right.plot(eval_degrees, picture.without_offset, color=nh.plotting.PALETTE[1],
           label=nh._("kernel regression on $y$"))
right.plot(eval_degrees, picture.network[0], ":", color="gray", label=nh._("random start $f_0$"))
for ax in (left, right):
    ax.plot(np.degrees(angles_7.numpy()), targets, "ks", ms=6)
    ax.set_xlabel(nh._("angle of x (degrees)"))
left.set_ylabel("f(x)")
left.set_title(nh._("The network learns like its linearization"))
right.set_title(nh._("It ends at f₀ + kernel regression on the residuals"))
left.legend(fontsize=9)
right.legend(fontsize=9)
plt.show()

# %% [markdown]
# 左图：网络（彩色）与它的线性化（虚线）在每一步都重合，在训练点（黑色方块）之间也是如此。右图：训练的终点。
# 网络插值了这 7 个点，而在点与点之间，它遵循的是 $f_0$ 加上对残差的核回归，而不是只对 $y$ 做的核回归：它保留着
# 随机起点的痕迹。对许多网络取平均会消去 $f_0$，得到普通的核回归（第 07 课）。

# %% tags=["check"]
# Largest |network - linearization| over all 401 steps and 128 inputs; Lee et al.'s gap is O(m^-1/2),
# measured 0.011 at width 4096, against targets of size about 1.
nh.check_between("network vs its linearization, largest gap during training", picture.gap, 0, 0.03)
nh.check_close("the end point is f_0 + kernel regression on y - f_0", picture.network[-1],
               picture.with_offset, atol=0.03)
nh.check_between("f_0 + regression on residuals vs regression on y: largest difference",
                 np.abs(picture.with_offset - picture.without_offset).max(), 0.1, 2)

# %% [markdown]
# ## 7. 深入一步（选读）：有限宽度下的随机核（综述 §3.1）
#
# 有限宽时 $\Theta_0$ 是随机的。§1 的第 1 条（Jacot et al. 的定理 1）说它收敛到 $\Theta_\infty$，而
# `architecture.kernel(x)` 可以精确地算出这个极限（第 02 课讲解算法）。收敛有多快？我们测量 §2 那个深度为 3 的 ReLU
# 网络在其 16 个输入上的相对误差 $\lVert\Theta_m - \Theta_\infty\rVert_F / \lVert\Theta_\infty\rVert_F$，宽度取
# 64 … 2048，每个宽度 4 个随机种子。

# %%
sweep = nh.width_sweep(architecture, x, widths=[64, 128, 256, 512, 1024, 2048], seeds=4)
fig, ax = plt.subplots()
for s in range(sweep.errors.shape[1]):
    ax.loglog(sweep.widths, sweep.errors[:, s], "o", color="gray", alpha=0.5, ms=4,
              label="one seed" if s == 0 else None)
nh.plotting.loglog_fit(ax, sweep.widths, sweep.errors.mean(1), label=f"mean of {sweep.errors.shape[1]} seeds",
                       guide_slope=-0.5)
nh.plotting.width_ticks(ax, sweep.widths)
ax.set_yticks([0.05, 0.1, 0.2, 0.5, 1], ["0.05", "0.1", "0.2", "0.5", "1"])     # plain numbers, not 2×10⁻¹
ax.yaxis.set_minor_locator(plt.NullLocator())
ax.set_xlabel("width m")
ax.set_ylabel("relative error vs infinite width")
ax.set_title(nh._("One network's NTK approaches its limit like $m^{-1/2}$"))
plt.show()

# %% tags=["check"]
# Slope of the 4-seed means; the seed scatter at each width (grey) allows about ±0.1 around the theory.
nh.check_between("slope of one network's NTK error against the width", sweep.slope, -0.65, -0.4)

# %% [markdown]
# ### 动手探索：宽度与深度
#
# 选择宽度、深度和激活函数。每个点是单个网络（种子 0）的 NTK 的一个矩阵元 $\Theta(x_i,x_j)$，横坐标是它的无限宽值；
# 点落在虚线上表示二者一致。标题给出相对误差。

# %%
def draw_scatter(width, depth, activation):
    arch = nh.mlp(depth, activation, sigma_w=1.4, sigma_b=0.1)
    exact = arch.kernel(x).ntk
    finite = nh.empirical_ntk(arch.network(4, width=width, seed=0), x)
    error = float((finite - exact).norm() / exact.norm())
    fig, ax = plt.subplots(figsize=(7.6, 4.2))
    ax.scatter(exact.flatten(), finite.flatten(), s=12, label=r"entries $\Theta(x_i,x_j)$")
    lims = [float(exact.min()), float(exact.max())]
    ax.plot(lims, lims, "k--", lw=1, label="perfect agreement")
    ax.set_xlabel("infinite-width NTK")
    ax.set_ylabel(f"width-{width} NTK (seed 0)")
    ax.set_title(linearization.kernel_error_title(activation, depth, error))
    ax.legend(loc="upper left", bbox_to_anchor=(1.02, 1))        # outside: narrow deep nets scatter anywhere

# %% tags=["nbval-ignore-output"]
nh.widgets.live_figure(
    draw_scatter,
    width=nh.widgets.width_slider(256, options=(16, 32, 64, 128, 256, 512, 1024, 2048)),
    depth=nh.widgets.depth_slider(3, max=8),
    activation=nh.widgets.activation_dropdown("relu"),
)

# %% [markdown]
# **先预测，再验证。**
#
# 1. ReLU、宽度 256：把深度从 1 调到 8。单个网络的误差会增大还是减小？
#
# <details><summary>答案</summary>
#
# 增大：从深度 1 时的约 10 % 增大到深度 8 时的约 31 %。有限宽网络的 NTK 的波动随深度与宽度之比增大
# （Hanin & Nica 2020）：每一层都加入自己的随机性。
#
# </details>
#
# 2. 仍用 ReLU：找出一个宽度，使深度 8 的网络与其极限的接近程度，和深度 1 的网络在宽度 256 时一样。
#
# <details><summary>答案</summary>
#
# 约 2048（9.5 %）：深度变为 8 倍，宽度也要 8 倍，正如“深度/宽度”规律所预示的。单个种子的结果有起伏，所以在任一
# 设置下都可能相差两倍左右。
#
# </details>
#
# 3. erf、深度 1：从宽度 64 调到 1024，即宽 16 倍。误差应当缩小多少？
#
# <details><summary>答案</summary>
#
# 约 $\sqrt{16} = 4$ 倍：单个网络的波动按 $m^{-1/2}$ 下降。实测：16.7 % → 4.2 %。
#
# </details>

# %% [markdown]
# ### 偏差与波动
#
# 单个网络的误差由两部分组成：
#
# $$\Theta_m - \Theta_\infty \;=\;
#   \underbrace{\bigl(\mathbb E\,\Theta_m - \Theta_\infty\bigr)}_{\text{偏差：固定，} O(1/m)}
#   \;+\; \underbrace{\bigl(\Theta_m - \mathbb E\,\Theta_m\bigr)}_{\text{波动：随机，均值 } 0,\
#   O(1/\sqrt m)},$$
#
# 其中 $\mathbb E$ 表示对随机初始化取平均（Dyer & Gur-Ari 2020；Hanin & Nica 2020）。波动占主导，这正是单个网络的
# 误差按 $m^{-1/2}$ 下降的原因。对 $S$ 个网络取平均只会缩小波动，缩小为原来的 $\sqrt S$ 分之一。为了看到偏差，我们在
# 较小的宽度 8 … 64 上各取 400 个网络的平均，并考察深度为 3 的 erf 网络的归一化 NTK
# $\Theta(x,x')/\sqrt{\Theta(x,x)\Theta(x',x')}$——它的偏差大到可以这样测出来。相对于 $\lVert\Theta_\infty\rVert_F$：
# **波动**是单个网络到 400 个网络均值的均方根距离，**偏差**是这个均值到极限的距离。

# %%
erf_architecture = nh.mlp(3, "erf", sigma_w=2.0, sigma_b=0.1)
erf_limit = nh.normalize(erf_architecture.kernel(x).ntk)
small_widths, n_seeds = np.array([8, 16, 32, 64]), 400
spread, bias = [], []
for width in small_widths:
    networks = [erf_architecture.network(4, width=int(width), seed=s) for s in range(n_seeds)]
    kernels = torch.stack([nh.normalize(nh.empirical_ntk(net, x)) for net in networks])   # (400, 16, 16)
    mean = kernels.mean(0)
    spread.append(float((kernels - mean).pow(2).sum().div(n_seeds - 1).sqrt() / erf_limit.norm()))
    bias.append(float((mean - erf_limit).norm() / erf_limit.norm()))
spread, bias = np.array(spread), np.array(bias)
leftover = spread / math.sqrt(n_seeds)

fig, ax = plt.subplots()
slope_spread = nh.plotting.loglog_fit(ax, small_widths, spread, label="spread (one network)")
slope_bias = nh.plotting.loglog_fit(ax, small_widths, bias, label="bias (mean of 400)")
ax.loglog(small_widths, leftover, ":", color="gray", label="leftover spread in the mean (spread/√400)")
ax.set_ylim(leftover.min() / 1.5, spread.max() * 4)                 # room for the legend above the data
nh.plotting.width_ticks(ax, small_widths)
ax.legend(loc="upper right")
ax.set_xlabel("width m")
ax.set_ylabel("relative size vs infinite width")
ax.set_title(nh._("Averaging removes the spread and exposes a bias that falls like 1/m"))
plt.show()

# %% [markdown]
# 多个网络的均值按 $1/m$ 趋近 $\Theta_\infty$，单个网络只按 $1/\sqrt m$。灰线是 400 个网络的均值中残留的那部分
# 波动；偏差始终在它之上，所以我们看到的确实是偏差。在这么小的宽度下，波动下降得比 $m^{-1/2}$ 稍快（其展开的下一项
# 还不可忽略）。

# %% tags=["check"]
# Bias resolved: at least twice the leftover spread, which then inflates it by at most sqrt(1 + 1/4) = 1.12.
nh.check_that("the bias is resolved: bias >= 2 × leftover spread at every width",
              (bias >= 2 * leftover).all(),
              measured=float((bias / leftover).min()), expected=">= 2")
# Theory -1 and -0.5; at widths 8-64 the next order of the expansion steepens the spread slope a little.
nh.check_between("slope of the bias against the width", slope_bias, -1.25, -0.75)
nh.check_between("slope of the spread against the width", slope_spread, -0.75, -0.45)
nh.check_that("one network: the spread exceeds the bias at every width", (spread > bias).all(),
              measured=float((spread / bias).min()), expected="> 1")

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
# $\Delta f(x) \approx -\eta\,\Theta(x,x_i)\,r_i = -0.1 \cdot 0.5 \cdot 2 = -0.1$：输出下降，朝着目标移动，与
# $x_i$ 处一样。在 $\Theta(x, x_i) = 0$ 的地方，一阶近似下什么都不动：两个输入处的梯度互相正交。
#
# </details>
#
# 3. `identity` 激活函数使网络成为输入 $x$ 的线性函数。它是关于参数的线性模型吗？也就是说，它的 NTK 在训练中
#    固定不变吗？（可以在第一个交互探索中试试。）
#
# <details><summary>答案</summary>
#
# 不是。$f(x) = \frac{\sigma_w^2}{\sqrt{md}}\,v^\top W x$（加上偏置项）是权重的乘积：关于 $x$ 是线性的，关于 $\theta$
# 却是二次的，所以权重移动时，它的梯度、从而它的 NTK 都会改变。在交互探索中，宽度 16 时差距为百分之几，并随宽度
# 缩小，与其他激活函数一样。
#
# </details>
#
# 4. 为什么标准参数化的 NTK 与 $m$ 成正比地增长，而网络在初始化时的输出却不会？
#
# <details><summary>答案</summary>
#
# 输出是 $\sum_j v_j h_j$，其中 $v_j\sim\mathcal N(0,1/m)$，$h_j = O(1)$：$m$ 个大小为 $1/\sqrt m$、符号随机的项，
# 总和为 $O(1)$。NTK 加的是平方：仅读出层部分就是 $\sum_j (\partial f/\partial v_j)^2 = \sum_j h_j^2 = O(m)$，没有
# 任何抵消。NTK 参数化把 $1/\sqrt m$ 从权重移到前向传播中，于是梯度也带上了这个因子。
#
# </details>
#
# 5. 把输入 $x$ 和 $3x$ 送入一个任意深度、不含偏置的 ReLU 网络。它们的 $2\times 2$ NTK Gram 矩阵的秩是多少？
#
# <details><summary>答案</summary>
#
# 秩为 1。每一层都是正齐次的，所以对每个 $\theta$ 都有 $f(3x;\theta) = 3f(x;\theta)$，从而
# $\nabla_\theta f(3x) = 3\nabla_\theta f(x)$：雅可比矩阵的两行平行，
# $\Theta = \Theta(x,x)\begin{pmatrix}1&3\\3&9\end{pmatrix}$，是奇异的。
#
# </details>
#
# 6. 用 100 个不同的随机种子，把同一种宽网络结构在同一份数据上训练到收敛。它们在某个测试输入上预测的均值是多少？
#    它们彼此为什么不同？
#
# <details><summary>答案</summary>
#
# 每个网络都收敛到 $f_0(x) + \Theta(x,X)\Theta(X,X)^{-1}(y - f_0(X))$。$f_0$ 各项的均值为零，所以均值就是核回归
# $\Theta(x,X)\Theta(X,X)^{-1}y$。它们彼此不同，是因为各自的随机起点 $f_0$ 不同，而训练只在训练输入上消除了这些
# 差异（第 07 课测量集成的波动）。
#
# </details>

# %% [markdown]
# ## 小结
#
# - 在初始化附近，网络接近它的线性化 $f_0(x) + \nabla_\theta f(x;\theta_0)\cdot(\theta-\theta_0)$，这是一个线性模型，
#   其核就是 NTK $\Theta(x,x') = \nabla_\theta f(x)\cdot\nabla_\theta f(x')$。
# - 梯度下降通过核推动输出，$\dot f(x) = -\frac\eta n\sum_i\Theta(x,x_i)r_i$；在 $x_i$ 上走一步，$f(x)$ 大约改变
#   $-\eta\,\Theta(x,x_i)\,r_i$，网络越宽，越接近这个值。
# - NTK 就是 $JJ^\top$，$J$ 是关于参数的雅可比矩阵：十行 `torch.func` 代码就能对任意模型算出它。它的 Gram 矩阵是
#   半正定的，但不一定可逆（不含偏置的网络在平行或相对的输入上）。
# - 在 NTK 参数化下，每个权重移动 $O(1/\sqrt m)$，而函数移动 $O(1)$，所以当 $m\to\infty$ 时核被冻结：条件是有限的
#   训练时间、固定且足够小的学习率，损失可以是任何梯度有界的损失。μP 下则不然。
# - 在平方损失上训练的宽网络最终停在 $f_0$ 加上对残差 $y - f_0$ 的核回归。初始化时它的核是随机的，波动
#   $\propto m^{-1/2}$，偏差 $\propto 1/m$。
#
# **下一步：** 第 02 课逐层计算 $\Theta_\infty$；第 07 课求解训练动态。

# %% [markdown]
# ## 给第 4 章及综述的读者
#
# 下面每一块更正 NTK 综述中与本课相关的一处说法。
#
# <details><summary>综述 §1：训练后的宽网络“退化为”核预测器</summary>
#
# **综述原文：** 当宽度增大时，用梯度下降训练的网络会变成以 NTK 为核的核预测器。
#
# **正确的说法：** 这只在 §5 的条件下成立（NTK 参数化或学习率 $\propto 1/m$、固定且足够小的学习率、有限的训练时间），
# 而且预测器保留着网络的随机起点：对平方损失，$f_\infty = f_0 +$ 对 $y - f_0$ 的核回归（§1、§6）。
# （[勘误 B1](../../ERRATA.zh.md#b1)）
#
# </details>
#
# <details><summary>综述 §3.1：“两个随机过程收敛”</summary>
#
# **综述原文：** 对任意有限时间 $T$，当 $m\to\infty$ 时，训练中的网络一致地接近某个固定的核回归预测器；初始化时的
# 输出与核回归的输出是“两个随机过程”，二者趋同。
#
# **正确的说法：** 固定的预测器不可能在每个时刻 $t$ 都与 $f_t$ 吻合（$t=0$ 时网络就是它的随机初始函数 $f_0$）。
# 定理比较的是网络与它的**线性化**（用同样的梯度下降训练）：$\sup_{t\le T}\lvert f_t(x) - f^\text{lin}_t(x)\rvert\to 0$
# （Jacot et al. 2018，定理 2），对平方损失，二者之差为 $O(m^{-1/2})$（Lee et al. 2019，定理 2.1）；§6 在宽度 4096
# 时测得 0.011。核预测器只是 $t\to\infty$ 时的终点，并带有偏移 $f_0$。（[勘误 B6](../../ERRATA.zh.md#b6)）
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
# 增长（§5：对 $\log m$ 的斜率为 1），因此定理中的极限需要学习率 $\propto 1/m$，或者采用 NTK 参数化。
# （[勘误 B5](../../ERRATA.zh.md#b5)）
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
# - A. Jacot, F. Gabriel, C. Hongler. *Neural Tangent Kernel: Convergence and Generalization in Neural
#   Networks.* NeurIPS 2018. arXiv:1806.07572.
# - J. Lee, Y. Bahri, R. Novak, S. S. Schoenholz, J. Pennington, J. Sohl-Dickstein. *Deep Neural Networks as
#   Gaussian Processes.* ICLR 2018. arXiv:1711.00165.
# - J. Lee, L. Xiao, S. S. Schoenholz, Y. Bahri, R. Novak, J. Sohl-Dickstein, J. Pennington. *Wide Neural
#   Networks of Any Depth Evolve as Linear Models Under Gradient Descent.* NeurIPS 2019. arXiv:1902.06720.
# - A. G. de G. Matthews, M. Rowland, J. Hron, R. E. Turner, Z. Ghahramani. *Gaussian Process Behaviour in Wide
#   Deep Neural Networks.* ICLR 2018. arXiv:1804.11271.
# - R. M. Neal. *Bayesian Learning for Neural Networks.* Springer, 1996.
# - G. Yang. *Scaling Limits of Wide Neural Networks with Weight Sharing: Gaussian Process Behavior, Gradient
#   Independence, and Neural Tangent Kernel Derivation.* arXiv:1902.04760, 2019.
# - G. Yang, E. J. Hu. *Tensor Programs IV: Feature Learning in Infinite-Width Neural Networks.* ICML 2021.
#   arXiv:2011.14522.
#
# **下一课：** [02 · MLP 的递归公式、核退化与混沌边缘](02_mlp_recursion.ipynb)
