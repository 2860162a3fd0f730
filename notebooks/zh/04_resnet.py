# %% [markdown]
# # 04 · 残差网络：分支缩放因子 α 决定一切
# [在 Colab 中打开](https://colab.research.google.com/github/ntk-notebooks/ntk-notebooks/blob/main/notebooks/zh/04_resnet.ipynb) · [Binder](https://mybinder.org/v2/gh/ntk-notebooks/ntk-notebooks/HEAD?labpath=notebooks%2Fzh%2F04_resnet.ipynb)（在 Colab 上，要让图和滑块显示中文，请先运行 `%pip install mplfonts==0.0.11` 和 `%env NTK_LESSON_LANGUAGE=zh`）
# （[English version / 英文版](../04_resnet.ipynb)）
#
# *教材第 4.3 节。*
#
# **本课内容**
# - 残差块 $x + \alpha\,g(x)$ 的核是怎样构成的：跳连把核原样传下去，分支再加上 $\alpha^2$ 乘以它自己的映射；
# - 取 $\alpha = 1$ 时 NTK 随深度**指数**增长；取 $\alpha = 1/\sqrt L$ 时 NTK 保持有界
#   （对 ReLU 趋于 $3e\,q_0$）；取 $\alpha = 1/L$ 时各分支的作用逐渐消失；
# - 为什么块雅可比矩阵的乘积 $\prod_l (I + \alpha J_l)$ 在 $\alpha = 1/\sqrt L$ 时保持有界，
#   以及为什么这*并不*等同于一阶公式 $I + \alpha\sum_l J_l$；
# - 为什么教材中 $O(\sqrt L)$ 的量级估算是错的：不同块的梯度按**平方**相加，所以每个块在 NTK 中所占的份额是 $\alpha^2$ 的量级。
#
# **预备知识：** 第 02 课（MLP 的 NNGP $\Sigma$ 与 NTK $\Theta$ 的递归）。

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
from tqdm.auto import tqdm
import ntk_helpers as nh
from ntk_helpers.course import residual as course     # this lesson's experiments, diagram and explorer

nh.plotting.use_style()
PALETTE = nh.plotting.PALETTE

# %% [markdown]
# ## 一张图看懂核心思想
#
# 残差块把一个缩放后的分支加到输入上，$x \mapsto x + \alpha\,g(x)$；在无限宽极限下，分支与跳连互不相关，所以两者的核直接相加。
# 于是每个块都把 $\Sigma$ 和 $\Theta$ 传下去，再加上 $\alpha^2$ 乘以分支对它们的作用；仅凭 $\alpha$ 的大小，就决定了叠加许多块之后核是爆炸、趋于平稳，还是把分支遗忘。

# %%
course.induction_diagram()
plt.show()

# %% [markdown]
# 从上往下读这张图。输入层让两个核都从 $q_0 = \Sigma^{(0)}(x, x)$ 开始。每个块都执行虚线框中的规则。读出层把最后的 $\Sigma$ 加到 $\Theta$ 上。
# 本课其余部分要回答：对 $\alpha$ 的三种取法 $1$、$1/\sqrt L$ 和 $1/L$，这条规则在许多块之后会产生什么结果。
#
# ## 4.3.1 模型及其核
#
# 网络先有一个输入层 $x^{(0)} = \frac{\sigma_w}{\sqrt d}W^{(0)}x$，再接 $L$ 个残差块
# $x^{(l)} = x^{(l-1)} + \alpha\,g_l(x^{(l-1)})$，其中分支为 $g_l(x) = \frac{\sigma_w}{\sqrt m}W^{(l)}\phi(x)$，
# 最后接线性读出层 $f = \frac{1}{\sqrt m}\,w^\top x^{(L)}$。所有权重都从 $\mathcal N(0, 1)$ 中抽取（即第 01 课的 NTK 参数化）。
#
# 分支的末端是一组新的、零均值的权重 $W^{(l)}$。因此 $\mathbb E[x^{(l-1)}_i\, g_l(x')_i] = 0$：跳连与分支互不相关，
# 两者之和的协方差等于各自协方差之和。沿用第 02 课的高斯期望记号，$\mathbb E[\phi\phi] = \mathbb E[\phi(u)\phi(v)]$，
# $\mathbb E[\phi'\phi'] = \mathbb E[\phi'(u)\phi'(v)]$，其中 $(u, v) \sim \mathcal N(0, \Sigma^{(l-1)})$：
#
# $$\Sigma^{(l)} = \Sigma^{(l-1)} + \alpha^2\sigma_w^2\,\mathbb E[\phi\phi], \qquad
#   \Theta^{(l)} = \bigl(1 + \alpha^2\sigma_w^2\,\mathbb E[\phi'\phi']\bigr)\Theta^{(l-1)}
#   + \alpha^2\sigma_w^2\,\mathbb E[\phi\phi]$$
#
# （Huang et al. 2020；Hayou et al. 2021）。$\Theta$ 的规则就是第 02 课中 MLP 的规则乘以 $\alpha^2$，
# 再加上跳连带下来的 $\Theta^{(l-1)}$。在本软件包中，一个块写作 `nh.residual(nh.relu(), nh.dense(), alpha=...)`，
# 而 `nh.resnet(L, alpha=...)` 构建整个网络：

# %%
print(nh.resnet(2, alpha=0.5))      # dense -> 2 x residual(relu, dense) -> dense(1)

# %% [markdown]
# ### 块雅可比矩阵的乘积
#
# 同样的账也可以用来算梯度。反向传播经过第 $l$ 个块时要乘以 $I + \alpha J_l$，
# 其中 $J_l = \partial g_l/\partial x$ 是该分支的雅可比矩阵。对 ReLU 分支，$J_l = \frac{\sigma_w}{\sqrt m}
# W^{(l)} D_l$，其中 $D_l$ 是在 $x^{(l-1)}$ 处处于打开状态的 ReLU 门组成的对角矩阵。各 $J_l$ 并不相互独立，
# 因为 $D_l$ 依赖于下面的各个块。成立的是：$W^{(l)}$ 是新抽取的。给定第 $l$ 个块以下的一切，$J_l$ 的均值为零，并且
# $\mathbb E_{W^{(l)}}\|J_l v\|^2 = \sigma_w^2\|D_l v\|^2 \approx c\,\|v\|^2$，其中均方增益为
# $c = \sigma_w^2\,\mathbb E[\phi'(u)^2]$（对 ReLU 且 $\sigma_w^2 = 2$ 时 $c = 1$：大约一半的门是打开的）。
# 没有任何机制让 $J_l$ 本身变小：它的算子范数在任何宽度下都是 1 的量级。
#
# 让一个方向 $v$ 依次穿过各个块，$v_l = (I + \alpha J_l)\,v_{l-1}$。新抽取的 $W^{(l)}$ 使交叉项的平均为零，于是
# $\mathbb E\|v_l\|^2 = \mathbb E\|v_{l-1}\|^2 + \alpha^2\sigma_w^2\,\mathbb E\|D_l v_{l-1}\|^2
# \approx (1 + \alpha^2 c)\,\mathbb E\|v_{l-1}\|^2$：雅可比矩阵**按平方**相加，从而
#
# $$\mathbb E\bigl\|\textstyle\prod_l(I + \alpha J_l)\,v\bigr\|^2 \approx (1 + \alpha^2 c)^L\,\|v\|^2 .$$
#
# 把乘积展开成对所有块子集的求和，就能看出一阶公式 $I + \alpha\sum_l J_l$ 保留了什么。不同子集对应的项互不相关（在宽网络极限下），
# 而含 $k$ 个因子的 $\binom Lk$ 项，每一项的均方都约为 $(\alpha^2 c)^k$。它们加起来是 $(1+\alpha^2 c)^L$，
# 一阶部分只保留了其中的 $1 + L\alpha^2 c$。一阶以外的全部项的相对大小为
#
# $$r = \sqrt{1 - \frac{1 + L\alpha^2 c}{(1+\alpha^2 c)^L}} \;\approx\; \frac{L\alpha^2 c}{\sqrt 2}
#   \quad\text{当 } L\alpha^2 c \ll 1 .$$
#
# **运行下面的单元格之前先预测：** 在 $L = 256$ 个块、$\alpha = 1/\sqrt L$ 时，一阶以外的部分约占乘积的 5 %、50 % 还是 500 %？
# $\alpha = 1/L$ 时呢？
#
# 我们用初始化时宽度为 256 的真实 ReLU 残差网络来测量：它们的门来自网络自身的前向传播
# （`course.jacobian_product` 让 32 个随机方向依次穿过各个块）。

# %%
block_counts = [2, 4, 8, 16, 32, 64, 128, 256]
scalings = course.SCALINGS                      # α as a function of L: 1, 1/√L, 1/L
measured = {name: [course.jacobian_product(L, alpha(L), width=256) for L in block_counts]
            for name, alpha in scalings.items()}
predicted = {name: [course.beyond_first_order(L, alpha(L)) for L in block_counts]
             for name, alpha in scalings.items()}
for name in scalings:
    print(nh._("{scaling}, L = 256: beyond first order {measured:.3f} of the product (predicted r = {r:.3f})")
          .format(scaling=name, measured=measured[name][-1].beyond_first_order, r=predicted[name][-1]))
norms = [course.branch_jacobian_norm(m) for m in (64, 256, 1024)]
print(nh._("operator norm of one branch Jacobian at widths 64, 256, 1024: {a:.1f}, {b:.1f}, {c:.1f}")
      .format(a=norms[0], b=norms[1], c=norms[2]))

# %%
fig, ax = plt.subplots()
for name, color in zip(scalings, PALETTE):
    ax.loglog(block_counts, [p.beyond_first_order for p in measured[name]], "o", color=color,
              label=f"{name}: measured")
    ax.loglog(block_counts, predicted[name], "--", color=color, label=f"{name}: predicted r")
nh.plotting.width_ticks(ax, block_counts)
ax.set_xlabel("number of residual blocks L")
ax.set_ylabel("‖∏(I+αJ) − (I+αΣJ)‖ / ‖∏(I+αJ)‖")
ax.set_title(nh._("Only α = 1/L makes the product first-order; at α = 1/√L half of it lies beyond"))
ax.legend(ncol=2, fontsize="small")
plt.show()

# %% [markdown]
# <details><summary>答案</summary>
#
# 约 50 %：在 $\alpha = 1/\sqrt L$、$L = 256$ 时，测得一阶以外的部分占乘积的 0.52（预测值 0.513），
# 而随着 $L$ 增大，$r \to \sqrt{1 - 2/e} \approx 0.51$。乘积保持有界，
# $\|\prod\|^2 \approx (1 + 1/L)^L \|v\|^2 \to e\,\|v\|^2$，但一阶部分只保留了这 $e \approx 2.72$ 中的 $1 + L\alpha^2 = 2$。
# 取 $\alpha = 1/L$ 时，余项按 $1/L$ 减小（$L = 256$ 时为 0.003）：一阶公式变得精确。
# 取 $\alpha = 1$ 时，乘积平均按 $2^L$ 增长（单个网络的波动可达几个数量级），与一阶公式毫不相像。
#
# </details>
#
# 测量点与预测值相差几个百分点。这是有限宽度的效应：相邻的块看到的输入几乎相同，因此它们的门也基本相同；
# 在宽度为 256 的网络中，打开的门所占的比例与 $\tfrac12$ 相差几个百分点，增益 $c$ 与 $1$ 的偏差则是它的两倍。

# %% tags=["check"]
ones = np.ones(len(block_counts))
beyond = {name: np.array([p.beyond_first_order for p in measured[name]]) for name in scalings}
growth = {name: np.array([p.growth / (1 + alpha(L) ** 2) ** L for p, L in zip(measured[name], block_counts)])
          for name, alpha in scalings.items()}
# a width-256 network's gain c is twice its fraction of open gates: 1 ± 0.06; 25 % is four times that
nh.check_close("α = 1: part beyond first order / r, L = 2 … 256", beyond["α = 1"] / predicted["α = 1"], ones,
               rtol=0.25)
nh.check_close("α = 1/√L: part beyond first order / r, L = 2 … 256",
               beyond["α = 1/√L"] / predicted["α = 1/√L"], ones, rtol=0.25)
nh.check_close("α = 1/L: part beyond first order / r, L = 2 … 256", beyond["α = 1/L"] / predicted["α = 1/L"],
               ones, rtol=0.25)
nh.check_between("α = 1/√L, L = 256: part beyond first order (r = 0.51)", beyond["α = 1/√L"][-1], 0.4, 0.6)
# the product's mean square is about e^c at α = 1/√L: 20 % is three standard deviations of c
nh.check_close("α = 1/√L: ‖∏(I + αJ)v‖² / (1 + α²)^L, L = 2 … 256", growth["α = 1/√L"], ones, rtol=0.2)
nh.check_close("α = 1/L: ‖∏(I + αJ)v‖² / (1 + α²)^L, L = 2 … 256", growth["α = 1/L"], ones, rtol=0.2)
# the largest singular value of √(2/m) W D with m/2 open gates tends to 1 + √2 (Marchenko–Pastur edge)
nh.check_close("operator norm of one branch Jacobian at width 1024 (1 + √2 as m → ∞)", norms[-1],
               1 + math.sqrt(2), rtol=0.05)

# %% [markdown]
# ## 4.3.2 NTK 如何随深度增长
#
# 对无偏置的 ReLU，在对角线 $x = x'$ 上：$\mathbb E[\phi\phi] = \Sigma/2$，
# $\mathbb E[\phi'\phi'] = 1/2$。记 $\gamma = \alpha^2\sigma_w^2/2$，即每个块的增长率（也就是雅可比矩阵那里的
# $\alpha^2 c$）。归纳法只需三行：
#
# 1. $\Sigma^{(l)} = (1+\gamma)\,\Sigma^{(l-1)}$，所以 $\Sigma^{(l)} = q_0 (1+\gamma)^l$。
# 2. $\Theta^{(l)} = (1+\gamma)\,\Theta^{(l-1)} + \gamma\,q_0(1+\gamma)^{l-1}$。两边除以 $(1+\gamma)^l$，
#    就是说 $\Theta^{(l)}/(1+\gamma)^l$ 每经过一个块增加 $q_0\,\gamma/(1+\gamma)$，初值为
#    $\Theta^{(0)} = \Sigma^{(0)} = q_0$（输入层下面没有别的层）。
# 3. 所以 $\Theta^{(L)} = q_0(1+\gamma)^L\bigl(1 + L\gamma/(1+\gamma)\bigr)$，读出层（方差为 1）再加上
#    $\Sigma^{(L)} = q_0(1+\gamma)^L$：
#
# $$\Theta(x,x) = q_0\,(1+\gamma)^L\Bigl(2 + \frac{L\gamma}{1+\gamma}\Bigr).$$
#
# **预测：** 取 $\alpha = 1$、$\sigma_w^2 = 2$ 时，$L$ 很大时 $\Theta(x, x)$ 每经过一个块增长多少倍？
# 取 $\alpha = 1/\sqrt L$ 时，它会随 $L$ 一直增长吗？（提示：$(1 + 1/L)^L \to e$。）取 $\alpha = 1/L$ 时呢？
# 下面是本软件包对两个相隔 17° 的输入（$q_0 = 2$）计算的递归结果。

# %%
x = nh.pair_at_angle(math.radians(17), d=2)          # two inputs 17° apart, q₀ = σ_w² x·x/d = 2
q0 = 2.0
depths = [1, 2, 4, 8, 16, 32, 64, 128, 256]        # α = 1: Θ ~ 2^L; variances² overflow float64 near L = 500
diagonal, correlation = {}, {}
for name, alpha in scalings.items():
    kernels = [nh.resnet(L, alpha=alpha(L)).kernel(x).ntk for L in depths]
    diagonal[name] = np.array([float(k[0, 0]) for k in kernels])
    correlation[name] = np.array([float(k[0, 1] / k[0, 0]) for k in kernels])

# %% tags=["check"]
ratio = np.concatenate([diagonal[name] / [course.closed_form_ntk(L, alpha(L), q0) for L in depths]
                        for name, alpha in scalings.items()])
# the recursion and the closed form are the same algebra: they agree to rounding
nh.check_close("Θ(x, x) of the recursion / the closed form, 3 scalings × 9 depths", ratio,
               np.ones_like(ratio), rtol=1e-10)

# %%
fig, ax = plt.subplots()
for name in scalings:
    ax.loglog(depths, diagonal[name] / q0, "o-", label=name)
ax.set_xlabel("number of residual blocks L")
ax.set_ylabel("Θ(x, x) / q₀")
ax.set_title(r"α = 1 grows like $2^L$ ($10^{79}$ at L = 256)")
ax.legend()
plt.show()

# %% [markdown]
# 在这个尺度下，另外两种缩放看起来是平的。放大来看，纵轴改用线性刻度：

# %%
fig, ax = plt.subplots()
for name, color in zip(scalings, PALETTE):
    if name != "α = 1":
        ax.semilogx(depths, diagonal[name] / q0, "o-", color=color, label=name)
ax.axhline(3 * math.e, color="k", ls="--", lw=1, label="3e (limit of α = 1/√L)")
ax.axhline(2, color="k", ls=":", lw=1, label="2 (limit of α = 1/L)")
ax.set_xlabel("number of residual blocks L")
ax.set_ylabel("Θ(x, x) / q₀")
ax.set_title(nh._("α = 1/√L levels off at 3e·q₀, α = 1/L falls to 2·q₀"))
ax.legend()
plt.show()

# %% [markdown]
# <details><summary>答案</summary>
#
# 取 $\alpha = 1$ 时 $\gamma = 1$：每个块都把 $\Sigma$ 和从下面带来的 $\Theta$ 各乘以 2，所以
# $\Theta$ 按 $2^L$ 增长（再乘以缓慢增长的因子 $2 + L/2$）：在 $L = 32$ 到 $64$ 之间，$\log\Theta$ 每个块增加 0.713，
# 接近 $\log 2 = 0.693$。取 $\alpha = 1/\sqrt L$ 时 $\gamma = 1/L$，
# $(1+1/L)^L \to e$，同时 $L\gamma/(1+\gamma) \to 1$：$\Theta \to 3e\,q_0$（$L = 256$ 时为 8.128 $q_0$，
# 而 $3e = 8.155$）。取 $\alpha = 1/L$ 时 $(1 + 1/L^2)^L \to 1$ 且 $L\gamma \to 0$：$\Theta \to 2q_0$，即线性模型
# $f = \frac{1}{\sqrt m}\,w^\top x^{(0)}$ 的 NTK（输入层和读出层各贡献 $q_0$）。
#
# </details>

# %% tags=["check"]
growth_per_block = math.log(diagonal["α = 1"][6] / diagonal["α = 1"][5]) / (64 - 32)
# log Θ / L → log 2 plus the slowly growing log(2 + L/2): 3 % above log 2 between L = 32 and 64
nh.check_close("α = 1: growth of log Θ per block, L = 32 → 64 (log 2)", growth_per_block, math.log(2),
               rtol=0.05)
# the O(1/L) correction at L = 256 is 0.3 %
nh.check_close("α = 1/√L: Θ(x, x)/q₀ at L = 256 (limit 3e)", diagonal["α = 1/√L"][-1] / q0, 3 * math.e,
               rtol=0.01)
nh.check_close("α = 1/L: Θ(x, x)/q₀ at L = 256 (limit 2)", diagonal["α = 1/L"][-1] / q0, 2.0, rtol=0.01)

# %% [markdown]
# ### *归一化*的核：深度还会改变什么吗？
#
# 除以对角线：考虑两个相隔 17° 的输入的 $\Theta(x, x')/\Theta(x, x)$。在 MLP 中，这个相关系数随深度衰减：
# 网络忘掉了夹角（核退化，见第 02 课）。对每种缩放**预测**一下：ResNet 会像 MLP 那样忘掉夹角，
# 还是它的相关系数会稳定在某个值上？是哪个值？

# %%
mlp_correlation = [float(k[0, 1] / k[0, 0]) for k in (nh.mlp(L, "relu").kernel(x).ntk for L in depths)]
fig, ax = plt.subplots()
for name in scalings:
    ax.semilogx(depths, correlation[name], "o-", label=f"ResNet, {name}")
ax.semilogx(depths, mlp_correlation, "k--", label="MLP (no skips)")
ax.set_xlabel("depth L")
ax.set_ylabel("Θ(x, x′) / Θ(x, x), 17° apart")
ax.set_title(nh._("α = 1 forgets the angle like an MLP; α = 1/√L and α = 1/L keep it"))
ax.legend()
plt.show()

# %% [markdown]
# <details><summary>答案</summary>
#
# 取 $\alpha = 1$ 时，相关系数像 MLP 的一样衰减（$L = 256$ 时为 0.32，MLP 为 0.28）：各块的分支占主导，
# 深度使核退化。取 $\alpha = 1/\sqrt L$ 时，它稳定在一个与深度无关、非退化的值上（从 $L = 32$ 起为 0.916）：
# 再增加块几乎不改变它（Hayou et al. 2021）。取 $\alpha = 1/L$ 时，它趋于 $\cos 17° = 0.956$，即线性核的值：
# 各分支的作用逐渐消失。
#
# </details>

# %% tags=["check"]
last = correlation["α = 1/√L"][-4:]
nh.check_between("α = 1/√L: spread of the correlation over L = 32 … 256", last.max() - last.min(), 0, 0.002)
nh.check_between("α = 1: correlation at L = 256, collapsed", correlation["α = 1"][-1], 0, 0.4)
nh.check_between("α = 1/√L: correlation at L = 256, kept", correlation["α = 1/√L"][-1], 0.9, 1)
# 1/L from the linear kernel at L = 256: the branches' total weight Lα² is 1/256
nh.check_close("α = 1/L: correlation at L = 256 (cos 17°)", correlation["α = 1/L"][-1],
               math.cos(math.radians(17)), atol=0.005)

# %% [markdown]
# ### 有限宽网络与之一致
#
# 递归是关于无限宽极限的结论。对每种缩放，我们取 8 个宽度为 1024、含 4 个块的网络，在 8 个输入上把它们经验 NTK 的平均值与之比较。
# **预测：** 对哪种缩放，单个网络离解析 NTK 最远？
# 这 24 个经验 NTK 在笔记本电脑上大约需要 15 s（进度条按三种缩放计数）。

# %% tags=["nbval-ignore-output"]
inputs = nh.sphere(8, d=6, seed=0)
finite_errors = {}
for name, alpha in tqdm(scalings.items(), desc="scalings", total=len(scalings)):
    arch = nh.resnet(4, alpha=alpha(4))
    sweep = nh.width_sweep(arch, inputs, widths=[1024], seeds=8)
    exact = arch.kernel(inputs).ntk
    finite_errors[name] = sweep.errors.mean(), float((sweep.mean_ntk[0] - exact).norm() / exact.norm())

# %%
for name, (one, mean) in finite_errors.items():
    print(nh._("{scaling}: one network is {one:.1%} off the NTK, the mean of 8 networks {mean:.1%}").format(
        scaling=name, one=one, mean=mean))

# %% [markdown]
# <details><summary>答案</summary>
#
# $\alpha = 1$：单个网络偏离 10.6 %，而 $\alpha = 1/\sqrt L$ 为 8.1 %，$\alpha = 1/L$ 为 5.9 %；
# 三种缩放下 8 个网络的平均值都在 2–5 % 以内。$\alpha$ 越大，随机的分支在核中的权重就越大。
# 请把这个先后顺序看作在 $L = 4$、宽度 1024 处的一次测量，而不是一条定律：对 MLP，Hanin & Nica (2020)
# 证明了 NTK 的有限宽度波动随深度与宽度之比增大；但残差网络的行为不同（Li, Nica & Roy 2021 研究了深度与宽度一同增长时的残差网络）。
#
# </details>

# %% tags=["check"]
# one network is 6–11 % off; the mean of 8 has a √8 smaller spread plus an O(1/m) bias: 8 % is twice
# the largest expected
nh.check_between("largest error of the mean of 8 networks (3 scalings)",
                 max(mean for _, mean in finite_errors.values()), 0, 0.08)
ones_error = [one for one, _ in finite_errors.values()]
nh.check_that("one network's error falls from α = 1 to 1/√L to 1/L (L = 4, width 1024)",
              ones_error[0] > ones_error[1] > ones_error[2], measured=str(np.round(ones_error, 3)),
              expected="decreasing")

# %% [markdown]
# ## 4.3.3 NTK 从哪里来：各块按平方相加
#
# $\Theta(x, x) = \sum_p (\partial f/\partial p)^2$ 是梯度平方对**参数**的求和，因此可以拆成每一层各占一份。
# 第 $l$ 个块的权重得到的梯度是
# $\partial f/\partial W^{(l)}_{ij} = \frac{\alpha\sigma_w}{\sqrt m}\,\delta_i\,\phi(x^{(l-1)})_j$，其中
# $\delta = \partial f/\partial x^{(l)}$ 是反向信号。它的平方和为
# $\alpha^2\sigma_w^2\,\|\delta\|^2\,\|\phi(x^{(l-1)})\|^2/m$：前向因子
# $\Sigma^{(l-1)}/2 = q_0(1+\gamma)^{l-1}/2$ 乘以反向因子 $\|\delta\|^2 = (1+\gamma)^{L-l}$（即第 $l$ 个块以上各雅可比矩阵的乘积）。
# 对无偏置的 ReLU，这个乘积对每个块都相同，等于
# $\gamma\,q_0(1+\gamma)^{L-1}$：每个块在 $\Theta(x, x)$ 中所占的份额为
#
# $$\frac{\gamma/(1+\gamma)}{2 + L\gamma/(1+\gamma)}$$
#
# 而输入层和读出层各占 $1/(2 + L\gamma/(1+\gamma))$。一个块的份额是
# $\gamma = \alpha^2\sigma_w^2/2$ 的量级，也就是分支缩放因子的**平方**。
#
# **预测：** 在 $L = 16$、$\alpha = 1/\sqrt L = 1/4$ 时，16 个块合起来在 $\Theta(x, x)$ 中占多大份额：
# $16 \times 1/4$（全部的四倍）、约 $1/3$，还是 $1/16$？
#
# 对每个 $L$，我们在 8 个宽度为 256 的有限宽网络中测量每一层的份额（`course.block_shares`：一次反向传播，把梯度平方按层归类）。

# %%
share_depths = [2, 4, 8, 16, 32, 64]
shares = {L: [course.block_shares(L, L ** -0.5, inputs[0], width=256, seed=seed) for seed in range(8)]
          for L in share_depths}
closed = {L: course.ntk_shares(L, L ** -0.5) for L in share_depths}
all_blocks = {L: np.mean([s.blocks.sum() for s in shares[L]]) for L in share_depths}
one_block = np.array([all_blocks[L] / L for L in share_depths])
for L in (4, 16):
    print(nh._("L = {depth}, α = 1/√L: all blocks carry {measured:.3f} of Θ(x, x) (closed form {closed:.3f})")
          .format(depth=L, measured=all_blocks[L], closed=closed[L].blocks))

# %%
fig, ax = plt.subplots()
ax.loglog(share_depths, one_block, "o", label=nh._("finite networks (width 256, mean of 8)"))
ax.loglog(share_depths, [closed[L].block for L in share_depths], "-", label=nh._("closed form"))
ax.loglog(share_depths, one_block[0] * (np.array(share_depths) / share_depths[0]) ** -0.5, "k:",
          label=nh._("if it fell like α = 1/√L"))
nh.plotting.width_ticks(ax, share_depths)
ax.set_xlabel("number of residual blocks L")
ax.set_ylabel(nh._("one block's share of Θ(x, x)"))
ax.set_title(nh._("Each block's share falls like α² = 1/L, not like α = 1/√L"))
ax.legend()
plt.show()

# %% [markdown]
# <details><summary>答案</summary>
#
# 约三分之一：闭式结果为 0.320（$\gamma = 1/16$，每个块为 $\frac{1/17}{2 + 16/17} = 0.020$），有限宽网络测得 0.328。
# 每个块的份额是 $\alpha^2 = 1/L$ 的量级，所以 $L$ 个块合起来是
# $O(1)$。把 $L$ 个大小为 $\alpha = 1/\sqrt L$ 的幅度相加会得到 $\sqrt L$；而 NTK 加的是平方。
#
# </details>
#
# $\Theta$ 的其余部分从哪里来？闭式结果把它分给输入层、全部块和读出层；图中的点是有限宽网络中输入层加上全部块的份额。

# %%
bar_depths = [1, 4, 16, 64, 256]
parts = [course.ntk_shares(L, L ** -0.5) for L in bar_depths]
labels = [str(L) for L in bar_depths]
fig, ax = plt.subplots(figsize=(8.6, 4.0))
bottom = np.zeros(len(bar_depths))
layers = [("input", nh._("input layer"), PALETTE[0]), ("blocks", nh._("all blocks"), PALETTE[2]),
          ("readout", nh._("readout"), PALETTE[4])]
for field, name, color in layers:
    height = np.array([getattr(part, field) for part in parts])
    ax.bar(labels, height, bottom=bottom, color=color, label=name)
    bottom += height
top = [np.mean([s.input + s.blocks.sum() for s in shares[L]]) for L in (4, 16, 64)]
ax.plot(["4", "16", "64"], top, "ko", label=nh._("finite networks: input layer + blocks"))
for third in (1 / 3, 2 / 3):
    ax.axhline(third, color="k", ls=":", lw=1)
ax.set_xlabel("number of residual blocks L")
ax.set_ylabel(nh._("share of Θ(x, x), α = 1/√L"))
ax.set_title(nh._("α = 1/√L: input layer, blocks and readout end with a third each"))
ax.legend(fontsize="small", loc="center left", bbox_to_anchor=(1.0, 0.5))
plt.show()

# %% [markdown]
# 取 $\alpha = 1/\sqrt L$ 而让 $L$ 增大时，$L\gamma/(1+\gamma) \to 1$，三部分各趋于 $1/3$：这正是 4.3.2 节中的极限
# $3e\,q_0 = e\,q_0 + e\,q_0 + e\,q_0$。取 $\alpha = 1$ 时，每个块的份额为
# $1/(L + 4)$，所以全部块几乎拿走了按 $2^L$ 增长的 $\Theta$ 的全部。

# %% tags=["check"]
# one network's block total scatters by about 8 % at width 256 (16 seeds), the mean of 8 by about 3 %; 10 % is
# three standard errors, and a block share that fell like α = 1/√L would miss by a factor of √L
nh.check_close("α = 1/√L, L = 4: all blocks' share of Θ(x, x), mean of 8 networks (closed form 0.286)",
               all_blocks[4], closed[4].blocks, rtol=0.1)
nh.check_close("α = 1/√L, L = 16: all blocks' share of Θ(x, x), mean of 8 networks (closed form 0.320)",
               all_blocks[16], closed[16].blocks, rtol=0.1)
slope, closed_slope = (np.polyfit(np.log(share_depths), np.log(y), 1)[0]
                       for y in (one_block, [closed[L].block for L in share_depths]))
# the closed form's slope is −0.92 over L = 2 … 64 (−1 as L → ∞); the O(√L) arithmetic would give −0.5
nh.check_close("log-log slope of one block's share against L", slope, closed_slope, atol=0.08)
# one block of one network scatters by about 10 %, the mean of 8 by 3.5 %: 20 % leaves room for 16 blocks
nh.check_close("L = 16: every block carries the same share (mean of 8 networks)",
               np.mean([s.blocks for s in shares[16]], axis=0), np.full(16, closed[16].block), rtol=0.2)
nh.check_close("α = 1/√L, L = 16: input layer + blocks, mean of 8 networks", top[1],
               closed[16].input + closed[16].blocks, rtol=0.1)

# %% [markdown]
# ## 动手探索
#
# 交互探索画出归一化 NTK $\Theta(x, x')/\Theta(x, x)$ 随两个输入之间夹角的变化：深度为 $L$ 时（深色）、
# 只有一个块时（淡色；在 $L = 1$ 时每种缩放都有 $\alpha = 1$），以及线性核
# $\cos\theta$（点线）。图的标题用一句话说明深度对核做了什么；标题下方的一行给出
# $\Theta(x, x)$ 以及 3°、90° 和 180° 处的值。这里只提供核有闭式表达式的激活函数（ReLU、erf、GELU），
# 所以即使有 200 个块，重新作图也很快。

# %% tags=["nbval-ignore-output"]
nh.widgets.live_figure(course.draw_normalized_ntk, depth=nh.widgets.depth_slider(16, max=200),
                       scaling=nh.widgets.dropdown("scaling", "α = 1/√L", options=list(scalings)),
                       activation=nh.widgets.activation_dropdown("relu", options=["relu", "erf", "gelu"]))

# %% [markdown]
# **先预测，再验证。**
#
# 1. 保持 $\alpha = 1/\sqrt L$ 和 ReLU。$L = 16$ 与 $L = 200$ 时的曲线会相差多少？先预测，再拖动深度滑块。
#
# <details><summary>答案</summary>
#
# 几乎一样。从 $L = 50$ 起，标题显示深度加倍最多只让核改变 0.005；
# 90° 处的值只从 0.186（$L = 16$）变到 0.191（$L = 200$）。取 $\alpha = 1/\sqrt L$ 时，核收敛到一个与深度无关的极限。
#
# </details>
#
# 2. 换成 $\alpha = 1$，仍用 ReLU。从 16 个块增加到 200 个块时，3° 处的值还会接近 1 吗？曲线会变成什么样？
#
# <details><summary>答案</summary>
#
# 不会：$L = 16$ 时为 0.940，$L = 100$ 时为 0.720，$L = 200$ 时为 0.582，标题也一直显示深度仍在改变核的形状。
# 曲线逐渐变平，趋于同一个值，在 90° 和 180° 处都约为 0.27：远近不同的输入看起来都差不多。
# 这就是深层 MLP 的核退化（第 02 课），因为取 $\alpha = 1$ 时分支承担了 $\Theta$ 的几乎全部。
#
# </details>
#
# 3. 现在取 $\alpha = 1$ 和 erf。在多深时，只相差 3° 的两个输入就变得几乎不相关？为什么有界的激活函数会比 ReLU 更快地让相邻输入去相关？
#    为什么 180° 处的值总是 −1？
#
# <details><summary>答案</summary>
#
# 在 $L = 16$（3° 处为 0.733）与 $L = 50$（0.031）之间；$L = 100$ 时为 0.000。取 $\alpha = 1$ 时，$\Sigma$ 每个块最多增加
# $\sigma_w^2$（线性增长，因为 $\operatorname{erf}^2 \le 1$），于是预激活值变得很大，$\operatorname{erf}'$ 成为 0 处的一个窄尖峰。
# 这时 $\mathbb E[\phi'(u)\phi'(v)]$ 在 $x' = \pm x$ 处远大于其他任何 $x'$ 处，每个块的因子 $1 + \alpha^2\sigma_w^2\,\mathbb E[\phi'\phi']$
# 都偏向对角线，经过许多块之后，对角线元素就远远超过其他所有元素（第 06 课展示了单层的这个尖峰）。
# 180° 处的值为 −1，是因为无偏置的 erf 网络是奇函数：$f(-x) = -f(x)$。
#
# </details>

# %% [markdown]
# ## 检验你的理解
#
# 1. 为什么在无限宽极限下跳连与分支互不相关，从而它们的核可以相加？举一个使它们相关的块的例子。
#
# <details><summary>答案</summary>
#
# 分支的末端是一组均值为零的新权重 $W^{(l)}$，所以无论 $x$ 是什么，都有 $\mathbb E[x_i\,(W^{(l)}\phi(x))_i] = 0$。
# 没有这最后一层的块，例如 $x + \alpha\,\phi(x)$，就会使两者相关：对 ReLU，
# $\mathbb E[x\,\phi(x)] = \Sigma/2 \neq 0$，核会多出一个交叉项。
#
# </details>
#
# 2. ReLU，$\sigma_w^2 = 2$，无偏置，$\alpha = 1/2$，$L = 4$，$q_0 = 2$：计算 $\Theta(x, x)$。
#
# <details><summary>答案</summary>
#
# $\gamma = \alpha^2\sigma_w^2/2 = 1/4$，所以 $\Theta = 2 \cdot 1.25^4 \cdot (2 + 4 \cdot 0.25/1.25) = 2 \cdot 2.441
# \cdot 2.8 = 13.67$。
#
# </details>
#
# 3. 为什么无论处在网络中的什么位置，每个块在 $\Theta(x, x)$ 中所占的份额都相同？
#
# <details><summary>答案</summary>
#
# 第 $l$ 个块的梯度平方是前向因子乘以反向因子。到达它的前向信号增长了 $(1+\gamma)^{l-1}$ 倍，反向信号增长了 $(1+\gamma)^{L-l}$ 倍；
# 两者的乘积 $(1+\gamma)^{L-1}$ 与 $l$ 无关。（这是对无偏置的 ReLU 而言；其他激活函数会改变这些因子。）
#
# </details>
#
# 4. 为什么 $\alpha = 1/\sqrt L$ 足以让块雅可比矩阵的乘积保持有界，却不足以让一阶公式
#    $I + \alpha\sum_l J_l$ 成立？
#
# <details><summary>答案</summary>
#
# 有界增长只要求均方 $(1 + \alpha^2 c)^L$ 保持有界：取 $\alpha = 1/\sqrt L$ 时它趋于 $e^c$。
# 一阶公式则要求含两个及以上因子的项都很小，即 $L\alpha^2 c \ll 1$；在 $\alpha = 1/\sqrt L$ 时 $L\alpha^2 c = c$，
# 乘积的一半落在一阶以外（对 $c = 1$，$r \to \sqrt{1 - 2/e} \approx 0.51$）。
#
# </details>
#
# 5. 取 $\alpha = 1/L$ 时，$L \to \infty$ 时归一化 NTK 趋于什么？它是哪个模型的 NTK？
#
# <details><summary>答案</summary>
#
# 趋于 $\cos\theta$，即归一化的核 $x\cdot x'/(\|x\|\|x'\|)$：各分支的总权重 $L\alpha^2 = 1/L$ 趋于零，
# $x^{(L)} \to x^{(0)}$，网络变成线性模型 $f = \frac{1}{\sqrt m}w^\top
# \frac{\sigma_w}{\sqrt d}W^{(0)}x$。它的输入层和读出层各为 NTK 贡献 $q_0\cos\theta$。
#
# </details>
#
# 6. 有人认为：取 $\alpha = 1/\sqrt L$ 时每个块对 NTK 的贡献是 $O(1/\sqrt L)$，所以 $L$ 个块给出
#    $O(\sqrt L)$。错在哪里？
#
# <details><summary>答案</summary>
#
# NTK 加的是梯度的平方。一个块的梯度是 $\alpha$ 的量级，所以它的贡献是
# $\alpha^2 = 1/L$ 的量级，$L$ 个块合起来是 $O(1)$：在 $L = 16$ 时占 $\Theta(x, x)$ 的 0.320，并趋于 $1/3$。
#
# </details>

# %% [markdown]
# ## 小结
#
# - 残差块通过跳连把核传下去，再加上 $\alpha^2$ 乘以分支的映射；对 ReLU，
#   每个块把尺度乘以 $1 + \gamma$，$\gamma = \alpha^2\sigma_w^2/2$。
# - 块雅可比矩阵是 1 的量级；新抽取的权重使它们按平方相加，所以
#   $\prod_l(I + \alpha J_l)$ 在 $\alpha = 1/\sqrt L$ 时保持有界，但只有 $L\alpha^2 \ll 1$ 才能使它成为一阶形式（$I + \alpha\sum_l J_l$）。
# - $\alpha = 1$：$\Theta$ 按 $2^L$ 增长，核像 MLP 的一样退化。$\alpha = 1/\sqrt L$：
#   $\Theta \to 3e\,q_0$，核与深度无关。$\alpha = 1/L$：各分支的作用逐渐消失，$\Theta \to 2q_0$。
# - 每个块在 $\Theta(x, x)$ 中的份额都相同，为 $\alpha^2$ 的量级：全部块合起来是 $O(1)$。
# - 有限宽残差网络与递归公式吻合：8 个宽度为 1024 的网络的平均值误差在 2–5 % 以内。

# %% [markdown]
# ## 写给教材第 4 章的读者
#
# <details><summary>§4.3.1：块雅可比矩阵的乘积（勘误 A14）</summary>
#
# **教材原文：** 「当 $\Delta_l$ 项足够小（如通过 NTK parameterization 缩放）时」，
# $\prod_l (I + \Delta_l) \approx I + \sum_l \Delta_l$，即「梯度流从乘法机制转向了加法机制」。
#
# **正确的说法：** NTK 参数化下 $\|J_l\|_{op}$ 仍是 1 的量级（对 ReLU 分支约为 $1 + \sqrt 2$）；
# $\Delta_l = \alpha J_l$ 之所以小，只能靠分支缩放因子 $\alpha$。有界增长只需要
# $\alpha = O(1/\sqrt L)$，因为末端是新抽取的零均值权重的雅可比矩阵按平方相加：
# $\mathbb E\|\prod_l(I + \alpha J_l)v\|^2 \approx (1 + \alpha^2 c)^L\|v\|^2$。一阶公式则需要
# $L\alpha^2 c \ll 1$，例如 $\alpha = 1/L$（在最坏情形下，即各 $\Delta_l$ 方向一致、范数均为 $\delta$ 时，
# 余项只能以 $(1+\delta)^L - 1 - L\delta$ 为上界，这要求 $L\delta \ll 1$）。在 $\alpha = 1/\sqrt L$ 时乘积有界，
# 但它的一半落在一阶以外。[勘误 A14](../../ERRATA.zh.md#a14)
#
# </details>
#
# <details><summary>§4.3.2：NTK 如何随深度增长（勘误 A15）</summary>
#
# **教材原文：** ResNet 的 NTK 在各块之间*线性*累积（「线性累积性」），
# 「即使网络非常深，其核也不会退化」，其有效深度按 $L$ 增长。
#
# **正确的说法：** 每个块都把前向方差和反向信号乘以 $1 + \gamma$，因此取
# $\alpha = 1$（且 $\sigma_w^2 = 2$）时 NTK 按 $2^L$ 增长，即指数增长，归一化的核也像 MLP 的一样退化。
# 取 $\alpha = 1/\sqrt L$ 时它趋于 $3e\,q_0$；取 $\alpha = 1/L$ 时趋于 $2q_0$。
# [勘误 A15](../../ERRATA.zh.md#a15)
#
# </details>
#
# <details><summary>§4.3.3：O(√L) 的量级估算（勘误 A16）</summary>
#
# **教材原文：** 取 $\alpha = 1/\sqrt L$ 时，「每个块对总梯度的贡献是」$O(1/\sqrt L)$，因此总量为
# $\sum_l O(1/\sqrt L) = O(\sqrt L)$。
#
# **正确的说法：** NTK 是梯度平方对参数的求和。每个块的部分是
# $\alpha^2$ 的量级，所以取 $\alpha = 1/\sqrt L$ 时全部块给出 $L \cdot \alpha^2 \cdot O(1) = O(1)$（$L = 4$ 时占
# $\Theta(x, x)$ 的 0.286，$L = 16$ 时占 0.320，极限为 $1/3$）。[勘误 A16](../../ERRATA.zh.md#a16)
#
# </details>
#
# <details><summary>综述 §5.1：残差连接与独立同分布假设（勘误 B21）</summary>
#
# **综述原文：** 「残差连接打破了独立同分布假设」，这使 NTK 分析变得复杂。
#
# **正确的说法：** ResNet 的 NTK 是良定义的，且已有系统分析（Huang et al. 2020；Hayou et al. 2021），
# Tensor Programs 框架（Yang 2019, 2020）也涵盖残差网络。在无限宽极限下跳连与分支互不相关，
# 因此递归只是把两者的协方差相加，有限宽网络也与它吻合（见“有限宽网络与之一致”一节）。[勘误 B21](../../ERRATA.zh.md#b21)
#
# </details>
#
# **练习：** 4.3（ResNet NTK 的深度缩放）。
#
# **下一课：** [05 · 归一化与参数化](05_normalization_parameterization.ipynb)
