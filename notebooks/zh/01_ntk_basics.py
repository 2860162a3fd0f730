# %% [markdown]
# # 01 · NTK 基础：定义、一段错误代码的修正、随宽度的收敛
# [在 Colab 中打开](https://colab.research.google.com/github/ntk-notebooks/ntk-notebooks/blob/main/notebooks/zh/01_ntk_basics.ipynb) · [Binder](https://mybinder.org/v2/gh/ntk-notebooks/ntk-notebooks/HEAD?labpath=notebooks%2Fzh%2F01_ntk_basics.ipynb)（在 Colab 上，要让图和滑块显示中文，请先运行 `%pip install mplfonts==0.0.11` 和 `%env NTK_LESSON_LANGUAGE=zh`）
# （[English version / 英文版](../01_ntk_basics.ipynb)）
#
# *NTK 综述第 2–3 节。*
#
# **本课内容**
# - 什么是神经正切核（NTK），在什么条件下它在训练中保持不变，以及如何对任意 PyTorch 模型计算它；
# - 为什么综述中的 `compute_ntk` 和 `simulate_infinite_width` 两段代码做不到它们声称的事；
# - 随着宽度 $m$ 增大，随机初始化的有限宽网络的 NTK 趋近于确定性的核，
#   其误差由两部分组成：按 $1/\sqrt m$ 缩小的随机**波动**（spread），
#   以及按 $1/m$ 缩小的系统**偏差**（bias）。
#
# **预备知识：** 第 00 课（记号）、链式法则、梯度下降。

# %%
# On Colab (or any Jupyter without this course's package) this installs it (once); here it does nothing.
import importlib, importlib.util, subprocess, sys
if importlib.util.find_spec("ntk_helpers") is None:
    package = "ntk-notebooks @ git+https://github.com/ntk-notebooks/ntk-notebooks"
    subprocess.run([sys.executable, "-m", "pip", "install", "--quiet", package], check=True)
    importlib.invalidate_caches()

# %%
import math
import time

import matplotlib.pyplot as plt
import numpy as np
import torch
import ntk_helpers as nh

nh.plotting.use_style()

# %% [markdown]
# ## 1. 定义
#
# 设网络 $f(x;\theta)$ 的参数为 $\theta \in \mathbb R^P$。对任意一对输入，定义
#
# $$\Theta(x, x') \;=\; \nabla_\theta f(x;\theta)\cdot \nabla_\theta f(x';\theta)
#   \;=\; \sum_{p=1}^{P} \frac{\partial f(x)}{\partial\theta_p}\,\frac{\partial f(x')}{\partial\theta_p}.$$
#
# 为什么要研究这个量？用梯度流 $\dot\theta = -\eta\,\nabla_\theta \mathcal L$ 在损失
# $\mathcal L = \frac12\sum_i (f(x_i)-y_i)^2$ 上训练网络。由链式法则，网络的*输出*按下式变化：
#
# $$\frac{d}{dt} f(x) = -\eta \sum_i \Theta(x, x_i)\,\bigl(f(x_i) - y_i\bigr).$$
#
# NTK 刻画的是：在一个输入上做一步梯度下降，会怎样改变另一个输入上的输出。
# 若 $\Theta$ 在训练中保持不变，上式就是一个*线性*常微分方程，可以求出闭式解：见第 07 课。
#
# **它什么时候保持不变？** 在宽度 $m\to\infty$ 的无限宽极限下，而且要满足以下条件：
# 采用 NTK 参数化（或采用标准参数化，但学习率 $\propto 1/m$）；学习率不随 $m$ 改变
# （且足够小，使梯度下降保持稳定）；训练时间有限；使用平方损失，并用梯度流或梯度下降训练
# （Jacot et al. 2018；Lee et al. 2019）。仅靠宽度并不能冻结核：在最大更新参数化 μP 下，
# 无论宽度多大，核都会发生 $O(1)$ 的变化（Yang & Hu 2021），第 05 课会测量这一点。
#
# > **综述原文：** 「当神经网络的宽度趋于无穷大时，使用梯度下降训练的神经网络会退化为核方法的预测器，
# > 这个核就是NTK」。  
# > **正确的说法：** 这只在上述条件下成立，而且所得的预测器保留着网络的随机初始函数 $f_0$：
# > 训练结束时，$f_\infty = f_0 + $（用 $\Theta$ 对残差 $y - f_0$ 做无岭核回归的结果），
# > 其中 $f_0$ 是从 NNGP 先验中随机抽取的函数（第 07 课）。
# > （[勘误 B1](../../ERRATA.zh.md#b1)）
#
# > **综述原文：** 对任意有限时间 $T$，当 $m\to\infty$ 时，训练中的网络一致地接近用 NTK 构造的某个
# > 固定核回归预测器 $f^\text{kernel}$：
# > $\sup_{t\le T}\sup_x\lvert f(\theta_t,x) - f^\text{kernel}(x)\rvert \to 0$
# > （它把初始化时的网络输出与核回归的输出称为「两个随机过程」，说二者在任意固定时间内「趋同」）。  
# > **正确的说法：** 固定的预测器不可能在每个时刻 $t$ 都与 $f(\theta_t,\cdot)$ 吻合
# > （$t = 0$ 时，网络就是它的随机初始函数 $f_0$）。定理比较的是训练后的网络与它的**线性化** $f^\text{lin}$
# > （在 $\theta_0$ 处关于 $\theta$ 的一阶泰勒展开），后者用同样的梯度下降训练：
# > $\sup_{t\le T}\lvert f_t(x) - f^\text{lin}_t(x)\rvert \to 0$（Jacot et al. 2018，定理 2），
# > 二者之差为 $m^{-1/2}$ 量级（Lee et al. 2019，定理 2.1）。
# > 该结论是在固定的有限输入集或有界区域上证明的，并非对“所有 $x$”成立。
# > 静态的核预测器只是 $t\to\infty$ 时的终点；第 07 课会测量这一差距。
# > （[勘误 B6](../../ERRATA.zh.md#b6)、[勘误 B7](../../ERRATA.zh.md#b7)）

# %% [markdown]
# ## 2. 经验 NTK
#
# 我们构造一个有 3 个 ReLU 隐藏层、采用 NTK 参数化的 MLP，并在 16 个输入上计算它的 NTK。
# 结果是 16 × 16 的 Gram 矩阵：和所有内积矩阵一样，它是对称半正定的。
# 它依赖于随机初始化 $\theta_0$：在有限宽度下，它是随机矩阵（§5）。

# %%
x = nh.sphere(16, d=4, seed=0)                               # (16, 4), |x|² = d
architecture = nh.mlp(3, "relu", sigma_w=math.sqrt(2), sigma_b=0.1)
model = architecture.network(4, width=512, seed=0)
theta = nh.empirical_ntk(model, x)                           # (16, 16)
print("parameters:", sum(p.numel() for p in model.parameters()))
print("NTK block:\n", theta[:4, :4].numpy().round(3))

# %%
eigenvalues = nh.eigenvalues(theta)
asymmetry = float((theta - theta.T).abs().max())
print(f"largest eigenvalue {eigenvalues[0]:.3f}, smallest {eigenvalues[-1]:.4f}")
assert asymmetry <= 1e-12 * float(theta.abs().max()), (
    f"symmetry: expected max|Θ - Θᵀ| <= 1e-12 · max|Θ|, measured {asymmetry:.1e}")
assert eigenvalues[-1] >= -1e-12 * eigenvalues[0], (
    f"PSD: expected smallest eigenvalue >= -1e-12 · largest, measured {eigenvalues[-1]:.3e}")

# %% [markdown]
# > **综述原文：** 无限宽定理中宽度为 $m$ 的网络，其权重服从 $\mathcal N(0, 1/m)$（「按Xavier初始化」）。  
# > **正确的说法：** 方差为 $1/\text{fan-in}$ 的是 LeCun 初始化（Xavier/Glorot 初始化用的是
# > $2/(\text{fan-in}+\text{fan-out})$），而且第一层的扇入（fan-in）是输入维数 $d$，而不是 $m$。
# > 如果这样的网络直接用同一个学习率训练（即*标准参数化*，PyTorch 的 `nn.Linear` 就是如此），
# > 它的 NTK **随 $m$ 线性增长**：$m$ 个输出权重各自贡献一个 $O(1)$ 的项。
# > 于是，随着 $m$ 增大，固定的学习率会使步长过大；定理中的极限需要学习率 $\propto 1/m$。
# > NTK 参数化的前向传播与之完全相同，只是写成权重 $\mathcal N(0,1)$ 乘以因子
# > $\sigma_w/\sqrt{\text{fan-in}}$，它的 NTK 保持 $O(1)$。
# > （[勘误 B5](../../ERRATA.zh.md#b5)）
#
# 下面在同样的 16 个输入上比较这两种单隐藏层 ReLU 网络（取 NTK 对角元的平均值）：

# %%
def standard_mlp(width, seed=0):
    """A plain PyTorch MLP with weights N(0, 1/fan-in), trained as is: the standard parameterization."""
    generator = torch.Generator().manual_seed(seed)
    net = torch.nn.Sequential(torch.nn.Linear(4, width, bias=False, dtype=torch.float64), torch.nn.ReLU(),
                              torch.nn.Linear(width, 1, bias=False, dtype=torch.float64))
    with torch.no_grad():
        for layer in (net[0], net[2]):
            layer.weight.normal_(0, layer.in_features ** -0.5, generator=generator)
    return net

sp_widths = [64, 256, 1024, 4096]
ntk_standard = [float(nh.empirical_ntk(standard_mlp(m), x).diagonal().mean()) for m in sp_widths]
one_layer = nh.mlp(1, "relu", sigma_w=1.0)        # N(0, 1) weights times 1/sqrt(fan-in): same law of networks
ntk_ntk_param = [float(nh.empirical_ntk(one_layer.network(4, width=m), x).diagonal().mean())
                 for m in sp_widths]
slope_standard = nh.loglog_slope(sp_widths, ntk_standard)
slope_ntk = nh.loglog_slope(sp_widths, ntk_ntk_param)
print(f"widths {sp_widths}")
print(f"standard parameterization: {np.round(ntk_standard, 1)}, slope {slope_standard:.2f} in log m")
print(f"NTK parameterization:      {np.round(ntk_ntk_param, 2)}, slope {slope_ntk:.2f} in log m")
assert abs(slope_standard - 1) < 0.1, f"standard: expected slope 1 ± 0.1, measured {slope_standard:.3f}"
assert abs(slope_ntk) < 0.1, f"NTK parameterization: expected slope 0 ± 0.1, measured {slope_ntk:.3f}"

# %% [markdown]
# ## 3. 综述中的 `compute_ntk` 代码是错的
#
# > **综述原文：** 用 `torch.jacobian(model, X)` 计算 NTK，再把两个雅可比矩阵相乘。  
# > **正确的说法：** PyTorch 中并没有 `torch.jacobian`，所以这段代码会因 `AttributeError` 而中止。
# > 与之最接近的真实函数 `torch.autograd.functional.jacobian(model, X)` 是对**输入** $X$ 求导，
# > 而不是对参数求导。由此得到的“输入梯度核”$\nabla_x f(x)\cdot\nabla_{x'} f(x')$ 是另一个量：
# > 它的 Gram 矩阵的秩至多为 $d$（输入维数），而对互不相同的输入，NTK 是满秩的。
# > （[勘误 B39](../../ERRATA.zh.md#b39)）
#
# 第一点只需一行代码即可验证：

# %%
assert not hasattr(torch, "jacobian"), f"expected no torch.jacobian, found one in torch {torch.__version__}"

# %% [markdown]
# 现在在同一个网络上比较这两个核。`nh.input_gradient_kernel` 给出的，
# 正是把这段代码修到能运行之后的结果。

# %%
input_kernel = nh.input_gradient_kernel(model, x)            # (16, 16)
rank_input = int(torch.linalg.matrix_rank(input_kernel, rtol=1e-10))
rank_ntk = int(torch.linalg.matrix_rank(theta, rtol=1e-10))
print(f"rank of the input-gradient kernel: {rank_input} (d = 4); rank of the NTK: {rank_ntk} (n = 16)")
print(f"effective rank: input-gradient {nh.effective_rank(input_kernel):.2f}, "
      f"NTK {nh.effective_rank(theta):.2f}")
assert rank_input <= 4 < rank_ntk == 16, (
    f"ranks: expected input-gradient <= d = 4 and NTK = n = 16, measured {rank_input} and {rank_ntk}")

# %%
fig, ax = plt.subplots(figsize=(4.8, 4.2))
ax.scatter(nh.normalize(theta).flatten(), nh.normalize(input_kernel).flatten(), s=12)
ax.set_xlabel(r"NTK $\Theta(x_i,x_j)$ (normalized)")
ax.set_ylabel(r"$\nabla_x f(x_i)\cdot\nabla_x f(x_j)$ (normalized)")
ax.set_title("two different kernels of one network")
plt.show()

# %% [markdown]
# 综述的第二段代码 `simulate_infinite_width`（「无限宽度模拟」）本意是实际演示无限宽极限：
#
# > **综述原文：** 训练一系列宽度递增的网络（同一个固定的学习率，同一个随机种子），
# > 再用 `compute_ntk` 计算每个训练后网络的 NTK 的有效秩，以此展示无限宽下的行为。  
# > **正确的说法：** 这个函数无法运行：它用到的 `WideMLP`、`generate_data` 和 `F` 在任何地方都没有定义，
# > 而且它调用的是错误的 `compute_ntk`。即使修好，它测量的也是错误的量：收敛定理讲的是
# > **初始化时**的 NTK（之后的训练几乎不会改变它），而不是训练之后的核；
# > 每个宽度只用**一个随机种子**，无法把趋势与种子之间的随机噪声区分开；
# > 而且普通的 PyTorch 网络（标准参数化）在**固定学习率**下不趋向任何无限宽极限（§2）。
# > §5 做了它本想做的实验：在初始化时、采用 NTK 参数化、每个宽度取多个随机种子，
# > 测量经验 NTK 的有效秩。（[勘误 B41](../../ERRATA.zh.md#b41)）

# %% [markdown]
# ## 4. 三种正确的计算方法
#
# `nh.empirical_ntk` 提供三种方法，它们的结果必须在舍入误差范围内一致：
#
# - `"jacobian"` 适用于**任意** `nn.Module`：用 `torch.func`（对 `jacrev` 做 `vmap`）
#   求出每个样本关于参数的雅可比矩阵，再逐个参数做缩并，并分块计算以限制内存占用；
# - `"layerwise"` 用于本软件包自带的 MLP：一次前向传播和一次反向传播即可得到每一层的输入
#   $h_{l-1}$ 和反向传播信号 $\delta_l$，然后（$\odot$ 表示逐元素乘积）
#   $$\Theta = \textstyle\sum_l (\delta_l\delta_l^\top)\odot
#     \bigl(\tfrac{\sigma_w^2}{\text{fan-in}}h_{l-1}h_{l-1}^\top+\sigma_b^2\bigr);$$
# - `"naive"` 对样本逐个循环，每个样本做一次反向传播（慢，但显然正确）。

# %%
results = {}
for method in ["layerwise", "jacobian", "naive"]:
    start = time.perf_counter()
    results[method] = nh.empirical_ntk(model, x, method=method)
    print(f"{method:>9}: {1000 * (time.perf_counter() - start):.1f} ms")

# %%
reference = results["layerwise"]
for method in ["jacobian", "naive"]:
    gap = float((results[method] - reference).abs().max() / reference.abs().max())
    assert gap <= 1e-10, f"{method} vs layerwise: expected max gap <= 1e-10 · max|Θ|, measured {gap:.1e}"
print("all three methods agree to within 1e-10 of the largest entry")

# %% [markdown]
# ## 5. 网络越宽，随机性越小（无限宽极限）
#
# 经验 NTK 依赖于随机初始化。Jacot et al.（2018）证明了：当宽度 $m\to\infty$ 时，
# 它收敛到一个**确定性**的核 $\Theta_\infty$，而 `architecture.kernel(x)` 可以精确地算出这个核
# （第 02 课讲解其算法）。
#
# 我们测量单个网络的相对误差 $\lVert\Theta_m - \Theta_\infty\rVert_F / \lVert\Theta_\infty\rVert_F$，
# 宽度取 64 … 4096，并对 4 个随机种子取平均。

# %%
theta_infinite = architecture.kernel(x).ntk
sweep = nh.width_sweep(architecture, x, widths=[64, 128, 256, 512, 1024, 2048, 4096], seeds=4)
print("relative error of one network (mean over 4 seeds):", sweep.errors.mean(1).round(3))

# %%
fig, ax = plt.subplots()
nh.plotting.loglog_fit(ax, sweep.widths, sweep.errors.mean(1), label="one network's error", guide_slope=-0.5)
ax.set_xlabel("width m")
ax.set_ylabel("relative error vs infinite width")
ax.set_title(r"the empirical NTK converges like $m^{-1/2}$")
plt.show()

# %%
print(f"fitted slope {sweep.slope:.2f} (theory: -0.5)")
assert -0.7 < sweep.slope < -0.4, (
    f"convergence slope: expected -0.5 (between -0.7 and -0.4), measured {sweep.slope:.3f}")

# %% [markdown]
# ### 偏差与波动，分开来看
#
# 单个网络的误差由两部分组成：
#
# $$\Theta_m - \Theta_\infty \;=\;
#   \underbrace{\bigl(\mathbb E\,\Theta_m - \Theta_\infty\bigr)}_{\text{偏差：固定，} O(1/m)}
#   \;+\; \underbrace{\bigl(\Theta_m - \mathbb E\,\Theta_m\bigr)}_{\text{波动：随机，均值 } 0,\
#   O(1/\sqrt m)},$$
#
# 其中 $\mathbb E$ 表示对随机初始化取平均（Dyer & Gur-Ari 2020；Hanin & Nica 2020）。
# 波动要大得多，这正是上面单个网络的误差按 $m^{-1/2}$ 下降的原因。
# 对 $S$ 个网络取平均只会缩小波动：波动缩小为原来的 $\sqrt S$ 分之一：
# $\mathbb E\,\lVert\text{均值，网络数 } S - \Theta_\infty\rVert_F^2 = \text{偏差}^2 + \text{波动}^2/S$。
# 因此，要看到偏差，既需要较小的宽度（此时偏差较大），也需要很多随机种子
# （使 $\text{波动}/\sqrt S$ 降到偏差以下）。
#
# 实验：宽度分别取 8、16、32、64，每个宽度 400 个网络，输入仍是同样的 16 个，激活函数为 erf
# （深度 3，$\sigma_w = 2$，$\sigma_b = 0.1$）；我们考察的是**归一化**的 NTK
# $\Theta(x,x')/\sqrt{\Theta(x,x)\Theta(x',x')}$。经验 NTK 的任何光滑函数都可以同样地分解
# （偏差 $O(1/m)$，波动 $O(1/\sqrt m)$）；选这个函数，是因为它的偏差足够大，用几百个网络就能测出来。
# （对于上面那个 ReLU 网络的原始 NTK，偏差远小于波动，几百个随机种子无法把它分辨出来。）
# 对每个宽度，我们测量以下各量（均相对于 $\lVert\Theta_\infty\rVert_F$）：
#
# - **波动**（spread）：单个网络的核与全部 400 个核的平均值之间的均方根距离；
# - **偏差**（bias）：该平均值与 $\Theta_\infty$ 之间的距离；
# - **残余**（leftover）：波动/√400，即仍留在平均值中的那部分波动。测得的偏差平均而言等于
#   $\sqrt{\text{偏差}^2 + \text{残余}^2}$，所以当它至少是残余的两倍时，
#   残余使它偏大的幅度至多为 12 %（$\sqrt{1 + 1/4} = 1.118$）。

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
print("width:   ", small_widths)
print("spread:  ", spread.round(3))
print("bias:    ", bias.round(4))
print("leftover:", leftover.round(4))

# %%
fig, ax = plt.subplots()
slope_spread = nh.plotting.loglog_fit(ax, small_widths, spread, label="spread (one network)")
slope_bias = nh.plotting.loglog_fit(ax, small_widths, bias, label="bias (mean of 400)")
ax.loglog(small_widths, leftover, ":", color="gray", label="leftover spread in the mean (spread/√400)")
ax.set_ylim(leftover.min() / 1.5, spread.max() * 4)                 # room for the legend above the data
nh.plotting.width_ticks(ax, small_widths)
ax.legend(loc="upper right")
ax.set_xlabel("width m")
ax.set_ylabel("relative size vs infinite width")
ax.set_title("normalized NTK of an erf network: spread vs bias")
plt.show()

# %% [markdown]
# 下面的 assert 用明确给出的容差检验两条斜率：偏差的斜率为 $-1 \pm 0.25$；
# 波动的斜率在 $-0.75$ 与 $-0.45$ 之间。在这么小的宽度下，波动仍比 $m^{-1/2}$ 下降得稍快一些
# （其展开式的下一项，相对大小为 $1/m$，此时还不可忽略）；
# 而在上面 64 … 4096 的宽度范围内，单个网络误差的斜率接近 $-0.5$。

# %%
print(f"slopes: bias {slope_bias:.2f} (theory -1), spread {slope_spread:.2f} (theory -0.5)")
print(f"bias / leftover per width: {(bias / leftover).round(1)}")
assert (bias >= 2 * leftover).all(), f"bias resolved: expected bias/leftover >= 2, measured {bias / leftover}"
assert abs(slope_bias + 1) <= 0.25, f"bias slope: expected -1 ± 0.25, measured {slope_bias:.3f}"
assert -0.75 <= slope_spread <= -0.45, f"spread slope: expected -0.75 … -0.45, measured {slope_spread:.3f}"
assert (spread > bias).all(), f"one network: expected spread > bias, measured spread/bias {spread / bias}"

# %% [markdown]
# 所以，许多网络的平均值按 $1/m$ 的速率趋近 $\Theta_\infty$，单个网络则只按 $1/\sqrt m$；
# 但平均必须取自足够多的网络：$S$ 个网络的平均值的误差约为
# $\sqrt{\text{偏差}^2 + \text{波动}^2/S}$，一旦 $\text{波动}/\sqrt S$ 低于偏差，
# 再增加随机种子也无济于事，只有增大宽度才有用。

# %% [markdown]
# ### `simulate_infinite_width` 本应测量什么
#
# 对 §2 中采用 NTK 参数化的 ReLU 网络，在**初始化时**计算经验 NTK 的有效秩
# $r_\text{eff} = \operatorname{tr}(K)^2/\lVert K\rVert_F^2$（第 08 课），每个宽度取 6 个随机种子，
# 并与无限宽核 $\Theta_\infty$ 的有效秩比较：

# %%
rank_widths, rank_seeds = [16, 64, 256, 1024], 6
ranks = np.array([[nh.effective_rank(nh.empirical_ntk(architecture.network(4, width=w, seed=s), x))
                   for s in range(rank_seeds)] for w in rank_widths])                 # (widths, seeds)
rank_limit = nh.effective_rank(theta_infinite)
print(f"r_eff of Θ∞: {rank_limit:.3f}")
for w, r in zip(rank_widths, ranks):
    print(f"width {w:>4}: mean {r.mean():.2f}, seed-to-seed sd {r.std(ddof=1):.2f}")

# %%
fig, ax = plt.subplots()
for s in range(rank_seeds):
    ax.semilogx(rank_widths, ranks[:, s], "o", color=nh.plotting.PALETTE[0], alpha=0.6,
                label="one seed" if s == 0 else None)
ax.semilogx(rank_widths, ranks.mean(1), "-", color=nh.plotting.PALETTE[1],
            label=f"mean of {rank_seeds} seeds")
ax.axhline(rank_limit, color="k", ls="--", lw=1, label=r"infinite width ($\Theta_\infty$)")
nh.plotting.width_ticks(ax, rank_widths)
ax.set_xlabel("width m")
ax.set_ylabel(r"effective rank $r_\mathrm{eff}$ of the NTK at init")
ax.set_title("effective rank at initialization vs width")
ax.legend()
plt.show()

# %% [markdown]
# 窄网络的结果分散得很开，且大多落在极限值**之下**（这又是一种偏差：有效秩是核的非线性函数）；
# 随着宽度增大，各个种子的结果向 $r_\text{eff}(\Theta_\infty)$ 靠拢。
# 已验证：宽度 16 的六个网络全部低于极限值；在宽度 1024 时，平均值与极限值相差不到 5 %，
# 种子间的波动不到宽度 16 时的一半。

# %%
gap = abs(ranks[-1].mean() - rank_limit) / rank_limit
sd_ratio = ranks[-1].std(ddof=1) / ranks[0].std(ddof=1)
below = int((ranks[0] < rank_limit).sum())
print(f"width 16: {below} of {rank_seeds} below the limit; width 1024: relative gap to the limit {gap:.3f}; "
      f"sd(1024)/sd(16) = {sd_ratio:.2f}")
assert below == rank_seeds, f"width 16: expected all {rank_seeds} seeds below the limit, measured {below}"
assert gap < 0.05, f"r_eff at width 1024: expected within 5 % of {rank_limit:.3f}, measured gap {gap:.3f}"
assert sd_ratio < 0.5, f"seed spread: expected sd(1024) < 0.5 · sd(16), measured ratio {sd_ratio:.2f}"

# %% [markdown]
# ## 6. 动手探索
#
# 选择宽度、深度和激活函数。每个点对应一个元素 $\Theta(x_i,x_j)$：横坐标是它的无限宽值，纵坐标是有限宽值。
# 点落在对角线上，表示二者一致。网络越深，要达到同样的精度就需要越大的宽度
# （波动随深度与宽度之比增大，Hanin & Nica 2020）。

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
    ax.set_title(f"{activation}, depth {depth}: relative error {error:.3f}")
    ax.legend(loc="upper left", bbox_to_anchor=(1.02, 1))        # outside: narrow deep nets scatter anywhere

# %% tags=["nbval-ignore-output"]
nh.widgets.live_figure(
    draw_scatter,
    width=nh.widgets.width_slider(256, options=(16, 32, 64, 128, 256, 512, 1024, 2048)),
    depth=nh.widgets.depth_slider(3, max=8),
    activation=nh.widgets.activation_dropdown("relu"),
)

# %% [markdown]
# ## 小结
#
# - NTK 是**参数**梯度的 Gram 矩阵；它决定了梯度下降中输出如何变化。
#   只有在 NTK 参数化（或标准参数化且学习率 $\propto 1/m$）的无限宽极限下、学习率固定、
#   训练时间有限时，它才在训练中保持不变；在 μP 下它会变化。
# - 综述的 `compute_ntk` 调用了一个不存在的函数，而修好之后它是对输入求导：
#   得到的是秩 $\le d$ 的核，并不是 NTK。它的 `simulate_infinite_width` 无法运行，
#   即使能运行，测量的也是训练后的核，只用一个随机种子，而且所用的参数化根本没有极限。
# - `nh.empirical_ntk` 可以计算任意 `nn.Module` 的 NTK；三种方法的结果在 $10^{-10}$ 以内一致。
# - 单个网络的经验 NTK 按 $m^{-1/2}$ 的速率收敛到解析 NTK：这就是随机波动。
#   对许多网络取平均，只能把波动降到 $\text{波动}/\sqrt S$，并显露出按 $1/m$ 下降的偏差。
#   第 02 课推导解析核。
#
# **练习：** [4.1](../../exercises/chapter4/ex4_1_sigma_dot.ipynb)（$\dot\Sigma$ 的作用；恒等激活函数）
# 以本课为基础。

# %% [markdown]
# ## 参考文献
#
# - A. Jacot, F. Gabriel, C. Hongler. *Neural Tangent Kernel: Convergence and Generalization in Neural
#   Networks.* NeurIPS 2018. arXiv:1806.07572.
# - J. Lee, L. Xiao, S. S. Schoenholz, Y. Bahri, R. Novak, J. Sohl-Dickstein, J. Pennington. *Wide Neural
#   Networks of Any Depth Evolve as Linear Models Under Gradient Descent.* NeurIPS 2019. arXiv:1902.06720.
# - L. Chizat, E. Oyallon, F. Bach. *On Lazy Training in Differentiable Programming.* NeurIPS 2019.
#   arXiv:1812.07956.
# - E. Dyer, G. Gur-Ari. *Asymptotics of Wide Networks from Feynman Diagrams.* ICLR 2020. arXiv:1909.11304.
# - B. Hanin, M. Nica. *Finite Depth and Width Corrections to the Neural Tangent Kernel.* ICLR 2020.
#   arXiv:1909.05989.
# - G. Yang, E. J. Hu. *Tensor Programs IV: Feature Learning in Infinite-Width Neural Networks.* ICML 2021.
#   arXiv:2011.14522.
#
# 综述的参考文献中有三条是错的：
#
# > **综述原文：** NTK 论文的作者是「Jacot A, Graland F, Hongler C」。  
# > **正确的说法：** 第二作者是 Franck **Gabriel**：Jacot, Gabriel & Hongler, NeurIPS 2018。
# > （[勘误 B44](../../ERRATA.zh.md#b44)）
#
# > **综述原文：** 「Chizat & Bach (2020) “On Lazy Training in Differentiable Programming”」，并被列为「综述」。  
# > **正确的说法：** 作者是 Chizat、**Oyallon** 与 Bach，发表于 NeurIPS **2019**；这是一篇研究论文，不是综述
# > （它表明惰性的、类似核方法的训练来自模型的缩放方式，而不是来自宽度本身）。
# > （[勘误 B42](../../ERRATA.zh.md#b42)）
#
# > **综述原文：** 「Anil et al. (2025) “The Spectral Dimension of NTKs is Constant”」。  
# > **正确的说法：** 这是 P. A. Shukla 一人署名的预印本，arXiv:2512.00860（2025），未经同行评审；
# > 第 08 课表明，它的极限公式对任何核都成立，并不只适用于 NTK。
# > （[勘误 B43](../../ERRATA.zh.md#b43)）
#
# **下一课：** [02 · MLP 的递归公式、核退化与混沌边缘](02_mlp_recursion.ipynb)
