# %% [markdown]
# # 04 · 残差网络：分支缩放因子 α 决定一切
# [在 Colab 中打开](https://colab.research.google.com/github/ntk-notebooks/ntk-notebooks/blob/main/notebooks/zh/04_resnet.ipynb) · [Binder](https://mybinder.org/v2/gh/ntk-notebooks/ntk-notebooks/HEAD?labpath=notebooks%2Fzh%2F04_resnet.ipynb)（在 Colab 上，要让图和滑块显示中文，请先运行 `%pip install mplfonts==0.0.11` 和 `%env NTK_LESSON_LANGUAGE=zh`）
# （[English version / 英文版](../04_resnet.ipynb)）
#
# *教材第 4.3 节。*
#
# **本课内容**
# - 残差块 $x + \alpha\,g(x)$ 的核，以及为什么各分支对核的贡献以 $\alpha^2$ 为系数线性相加；
# - 为什么块雅可比矩阵的乘积 $\prod_l (I + \alpha J_l)$ 在 $\alpha = 1/\sqrt L$ 时保持有界，
#   以及为什么这*并不*等同于一阶公式 $I + \alpha\sum_l J_l$；
# - 取 $\alpha = 1$ 时 NTK 随深度**指数**增长；取 $\alpha = 1/\sqrt L$ 时 NTK 保持有界
#   （对 ReLU 趋于 $3e\,q_0$）；取 $\alpha = 1/L$ 时各分支的作用消失；
# - 为什么教材中 $O(\sqrt L)$ 的量级估算是错的：不同块的梯度按**平方**相加。
#
# **预备知识：** 第 02 课。

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
from tqdm.auto import tqdm
import ntk_helpers as nh

nh.plotting.use_style()

# %% [markdown]
# ## 4.3.1 模型及其核
#
# 先令 $x^{(0)} = \frac{\sigma_w}{\sqrt d}W^{(0)}x$，再接 $L$ 个残差块
# $x^{(l)} = x^{(l-1)} + \alpha\,\frac{\sigma_w}{\sqrt m}W^{(l)}\phi(x^{(l-1)})$，最后接线性读出层。
# 分支的末端是一组新的零均值权重，因此在无限宽极限下 $g(x)$ 与 $x$ 不相关，于是
#
# $$\Sigma^{(l)} = \Sigma^{(l-1)} + \alpha^2\sigma_w^2\,\mathbb E[\phi\phi], \qquad
#   \Theta^{(l)} = \bigl(1 + \alpha^2\sigma_w^2\,\mathbb E[\phi'\phi']\bigr)\Theta^{(l-1)}
#   + \alpha^2\sigma_w^2\,\mathbb E[\phi\phi]$$
#
# （Huang et al. 2020；Hayou et al. 2021）。在本软件包中写作 `nh.residual(nh.relu(), nh.dense(), alpha=...)`。

# %%
print(nh.resnet(2, alpha=0.5))      # dense -> 2 x residual(relu, dense) -> dense(1)

# %% [markdown]
# ### 块雅可比矩阵的乘积
#
# 反向传播经过第 $l$ 个块时要乘以 $I + \alpha J_l$，
# 其中 $J_l = \partial g_l/\partial x$ 是该分支的雅可比矩阵；
# 对 ReLU 分支，$J_l = \frac{\sigma_w}{\sqrt m} W^{(l)} D_l$，
# 其中 $D_l$ 是记录哪些 ReLU 门处于打开状态的对角矩阵。
# 初始化时各 $J_l$ 相互独立、均值为零，均方增益为 $c = \sigma_w^2\,\mathbb E[\phi'(u)^2]$：
# $\mathbb E\|J_l v\|^2 = c\,\|v\|^2$（对 ReLU 且 $\sigma_w^2 = 2$ 时 $c = 1$）。
# 它们的算子范数在任何宽度下都是 1 的量级：参数化方式本身并不会让它们变小。
#
# > **教材原文：** 「当 $\Delta_l$ 项足够小（如通过 NTK parameterization 缩放）时」，
# > 乘积 $\prod_l (I + \Delta_l)$ 近似为 $I + \sum_l \Delta_l$，即「梯度流从乘法机制转向了加法机制」。  
# > **正确的说法：** NTK 参数化下 $\|J_l\|_{op}$ 仍是 1 的量级；$\Delta_l = \alpha J_l$ 之所以小，
# > 只能靠分支缩放因子 $\alpha$。*有界增长*只需要 $\alpha = O(1/\sqrt L)$，
# > 因为相互独立、均值为零的雅可比矩阵按平方相加：
# > $\mathbb E\|\prod_l(I + \alpha J_l)v\|^2 = (1 + \alpha^2 c)^L\|v\|^2$。*一阶公式*的要求更高：
# > 一阶以外的全部项的相对大小为
# > $r = \sqrt{1 - (1 + L\alpha^2 c)/(1+\alpha^2 c)^L} \approx L\alpha^2 c/\sqrt2$，因此需要
# > $L\alpha^2 c \ll 1$，例如 $\alpha = 1/L$（在最坏情形下，即各 $\Delta_l$ 方向一致、范数均为 $\delta$ 时，
# > 余项只能以 $(1+\delta)^L - 1 - L\delta$ 为上界，这要求 $L\delta \ll 1$）。
# > 在 $\alpha = 1/\sqrt L$ 时乘积有界，但 $r \to \sqrt{1 - 2/e} \approx 0.51$。
# > （[勘误 A14](../../ERRATA.zh.md#a14)）
#
# 原因：把乘积展开成对所有块子集的求和。不同子集对应的项互不相关
# （总有某个 $J_l$ 只出现在其中一项里），而含 $k$ 个因子的 $\binom Lk$ 项，每一项的均方都是 $(\alpha^2 c)^k$；
# 求和得到 $(1+\alpha^2 c)^L$，其中 $1 + L\alpha^2 c$ 是一阶部分。
# 下面用初始化时 ReLU 分支的 64 × 64 雅可比矩阵来测量：

# %%
n = 64

def branch_jacobians(L, width=n, seed=0):
    """L independent ReLU-branch Jacobians at initialization, sqrt(2/width) W D (mean-square gain c = 1)."""
    rng = np.random.default_rng(seed)
    gates = rng.random((L, 1, width)) < 0.5                              # D: which ReLUs are open
    return math.sqrt(2 / width) * rng.standard_normal((L, width, width)) * gates

def product_vs_first_order(L, alpha):
    """Relative size of everything beyond first order, and ||prod (I + alpha J_l)||_F^2 / n."""
    jacobians = branch_jacobians(L)
    product = np.eye(n)
    for J in jacobians:
        product = product + alpha * J @ product                          # (I + alpha J_l) times the rest
    first_order = np.eye(n) + alpha * jacobians.sum(0)
    return np.linalg.norm(product - first_order) / np.linalg.norm(product), np.linalg.norm(product) ** 2 / n

remainder = lambda L, a: math.sqrt(1 - (1 + L * a ** 2) / (1 + a ** 2) ** L)      # c = 1
scalings = {"α = 1": lambda L: 1.0, "α = 1/√L": lambda L: L ** -0.5, "α = 1/L": lambda L: 1 / L}
block_counts = [2, 4, 8, 16, 32, 64, 128, 256]
measured = {name: np.array([product_vs_first_order(L, alpha(L)) for L in block_counts])
            for name, alpha in scalings.items()}
widths = [64, 256, 1024]
print("operator norm of one branch Jacobian at widths", widths, ":",
      [round(float(np.linalg.norm(branch_jacobians(1, m)[0], 2)), 1) for m in widths])

# %%
fig, ax = plt.subplots()
for (name, alpha), color in zip(scalings.items(), nh.plotting.PALETTE):
    ax.loglog(block_counts, measured[name][:, 0], "o", color=color, label=f"{name}: measured")
    ax.loglog(block_counts, [remainder(L, alpha(L)) for L in block_counts], "--", color=color,
              label=f"{name}: predicted r")
ax.set_xlabel("number of residual blocks L")
ax.set_ylabel("‖∏(I+αJ) − (I+αΣJ)‖ / ‖∏(I+αJ)‖")
ax.legend(ncol=2, fontsize="small")
plt.show()

# %%
for name, alpha in scalings.items():
    predicted = np.array([remainder(L, alpha(L)) for L in block_counts])
    worst = float(np.abs(measured[name][:, 0] / predicted - 1).max())
    print(f"{name:>9}, L = 256: beyond first order {measured[name][-1, 0]:.3f}, r = {predicted[-1]:.3f}")
    assert worst < 0.25, f"{name}: expected measured / predicted r = 1 ± 0.25, worst deviation {worst:.3f}"
for name in ("α = 1/√L", "α = 1/L"):
    growth = measured[name][:, 1] / np.array([(1 + scalings[name](L) ** 2) ** L for L in block_counts])
    print(f"{name:>9}: ‖∏‖² / n divided by (1 + α²c)^L between {growth.min():.2f} and {growth.max():.2f}")
    assert np.abs(growth - 1).max() < 0.15, f"{name}: expected growth (1 + α²c)^L ± 15%, measured {growth}"
assert measured["α = 1/√L"][-1, 0] > 0.4, \
    f"α = 1/√L, L = 256: expected beyond first order > 0.4 (r = 0.51), got {measured['α = 1/√L'][-1, 0]:.3f}"

# %% [markdown]
# 取 $\alpha = 1/L$ 时，随着 $L$ 增大，一阶公式变得精确（余项按 $1/L$ 减小）；
# 取 $\alpha = 1/\sqrt L$ 时乘积保持有界，$\|\prod\|^2/n \approx (1 + 1/L)^L \to e$，
# 但一阶以外的部分有乘积本身的一半大；取 $\alpha = 1$ 时乘积平均按 $2^L$ 增长
# （单个乘积的波动可达几个数量级），与一阶公式毫不相像。
#
# ## 4.3.2 NTK 如何随深度增长
#
# 对无偏置的 ReLU，记 $\gamma = \alpha^2\sigma_w^2/2$，即每个块的增长率（也就是上文的 $\alpha^2 c$）。
# 在对角线上 $\mathbb E[\phi\phi] = \Sigma/2$，$\mathbb E[\phi'\phi'] = 1/2$，
# 所以每个块都把 $\Sigma$ 和原有的 $\Theta$ 同乘以 $1 + \gamma$。
# 记 $q_0 = \Sigma^{(0)}(x, x)$，读出层方差取 1，由归纳法得到
#
# $$\Theta(x,x) = q_0\,(1+\gamma)^L\Bigl(2 + \frac{L\gamma}{1+\gamma}\Bigr).$$
#
# > **教材原文：** ResNet 的 NTK 在各块之间*线性*累积（「线性累积性」），
# > 「即使网络非常深，其核也不会退化」，其有效深度按 $L$ 增长。  
# > **正确的说法：** 每个块都把前向方差和反向信号乘以 $(1+\gamma)$，
# > 因此取 $\alpha = 1$（且 $\sigma_w^2 = 2$）时 NTK 按 $2^L$ 增长，即指数增长。
# > 取 $\alpha = 1/\sqrt L$ 时 $(1 + \gamma)^L \to e$，NTK 趋于 $3e\,q_0$；
# > 取 $\alpha = 1/L$ 时各分支的作用消失，NTK 趋于 $2q_0$，即线性模型的核。（[勘误 A15](../../ERRATA.zh.md#a15)）

# %%
x = nh.pair_at_angle(math.radians(17), d=2)          # two inputs 17° apart, q0 = σ_w² x·x/d = 2
q0, sigma_w2 = 2.0, 2.0
depths = [1, 2, 4, 8, 16, 32, 64, 128, 256]        # α = 1: Θ ~ 2^L; variances² overflow float64 near L = 500
diagonal, correlation = {}, {}
for name, alpha in scalings.items():
    kernels = [nh.resnet(L, alpha=alpha(L)).kernel(x).ntk for L in depths]
    diagonal[name] = np.array([float(k[0, 0]) for k in kernels])
    correlation[name] = [float(k[0, 1] / k[0, 0]) for k in kernels]

def closed_form(L, alpha):
    gamma = alpha ** 2 * sigma_w2 / 2                  # growth per block
    return q0 * (1 + gamma) ** L * (2 + L * gamma / (1 + gamma))

for name, alpha in scalings.items():
    expected = np.array([closed_form(L, alpha(L)) for L in depths])
    error = float(np.abs(diagonal[name] / expected - 1).max())
    assert error < 1e-10, f"{name}: expected the closed form (relative error < 1e-10), measured {error:.1e}"
print("the recursion matches the closed form at every depth (relative difference below 1e-10)")

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
for name, color in zip(scalings, nh.plotting.PALETTE):
    if name != "α = 1":
        ax.semilogx(depths, diagonal[name] / q0, "o-", color=color, label=name)
ax.axhline(3 * math.e, color="k", ls="--", lw=1, label="3e (limit of α = 1/√L)")
ax.axhline(2, color="k", ls=":", lw=1, label="2 (limit of α = 1/L)")
ax.set_xlabel("number of residual blocks L")
ax.set_ylabel("Θ(x, x) / q₀")
ax.set_title("bounded: α = 1/√L and α = 1/L")
ax.legend()
plt.show()

# %%
growth = math.log(diagonal["α = 1"][6] / diagonal["α = 1"][5]) / (64 - 32)
sqrt_limit, linear_limit = diagonal["α = 1/√L"][-1] / q0, diagonal["α = 1/L"][-1] / q0
print(f"α = 1: log Θ grows by {growth:.4f} per block (log 2 = {math.log(2):.4f});  "
      f"α = 1/√L at L = 256: {sqrt_limit:.3f} q₀ (3e = {3 * math.e:.3f});  α = 1/L: {linear_limit:.4f} q₀")
assert abs(growth / math.log(2) - 1) < 0.05, f"α = 1: expected log 2 per block ± 5%, measured {growth:.4f}"
assert abs(sqrt_limit / (3 * math.e) - 1) < 0.01, f"α = 1/√L: expected 3e q₀ ± 1%, got {sqrt_limit:.4f} q₀"
assert abs(linear_limit / 2 - 1) < 0.01, f"α = 1/L: expected 2 q₀ ± 1%, measured {linear_limit:.4f} q₀"

# %% [markdown]
# ### *归一化*的核：深度还会改变什么吗？
#
# 取 $\alpha = 1$ 时，两个输入的相关系数与 MLP 中一样不断衰减（核退化，见第 02 课）。
# 取 $\alpha = 1/\sqrt L$ 时，它收敛到一个与深度无关、非退化的值：再增加块也几乎不改变它。
# 取 $\alpha = 1/L$ 时，它趋于线性核的值。

# %%
mlp_correlation = []
for L in depths:
    k = nh.mlp(L, "relu").kernel(x).ntk
    mlp_correlation.append(float(k[0, 1] / k[0, 0]))
fig, ax = plt.subplots()
for name in scalings:
    ax.semilogx(depths, correlation[name], "o-", label=f"ResNet, {name}")
ax.semilogx(depths, mlp_correlation, "k--", label="MLP (no skips)")
ax.set_xlabel("depth L")
ax.set_ylabel("Θ(x, x′) / Θ(x, x), 17° apart")
ax.legend()
plt.show()

# %%
last = correlation["α = 1/√L"][-4:]
print("α = 1/√L, L = 32 … 256:", np.round(last, 4))
assert max(last) - min(last) < 0.002, f"α = 1/√L: expected one value (within 0.002) at all L, measured {last}"
assert correlation["α = 1"][-1] < 0.4, \
    f"α = 1: expected a collapse below 0.4, measured {correlation['α = 1'][-1]:.3f}"
assert correlation["α = 1/√L"][-1] > 0.9, \
    f"α = 1/√L: expected a correlation above 0.9, measured {correlation['α = 1/√L'][-1]:.3f}"

# %% [markdown]
# ### 有限宽网络与之一致
#
# > **综述原文：** 「残差连接打破了独立同分布假设」，这使 NTK 分析变得复杂。  
# > **正确的说法：** ResNet 的 NTK 是良定义的，且已有系统分析（Huang et al. 2020；Hayou et al.
# > 2021），Tensor Programs 框架（Yang 2019, 2020）也涵盖残差网络。在无限宽极限下，
# > 恒等路径与分支互不相关（分支末端是一组新的零均值权重），因此上面的递归只是把两者的协方差相加。
# > 有限宽网络与它吻合：见下面的检验。（[勘误 B21](../../ERRATA.zh.md#b21)）
#
# 对每种缩放，取 8 个宽度为 1024、含 4 个块的网络，把它们经验 NTK 的平均值与解析 NTK 比较。
# $\alpha$ 越大，有限宽度带来的波动越大（波动随有效深度增大：Hanin & Nica 2020）。
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
for name, (one, error) in finite_errors.items():
    print(f"{name:>9}: relative error {one:.3f} for one network, {error:.3f} for 8 averaged")
    assert error < 0.08, f"{name}: expected the mean of 8 networks within 8% of the NTK, measured {error:.3f}"

# %% [markdown]
# ## 4.3.3 为什么“O(√L)”的量级估算是错的
#
# > **教材原文：** 取 $\alpha = 1/\sqrt L$ 时，「每个块对总梯度的贡献是」$O(1/\sqrt L)$，
# > 因此总量为 $\sum_l O(1/\sqrt L) = O(\sqrt L)$。  
# > **正确的说法：** NTK 是梯度乘积对**参数**的求和（在对角线上就是梯度的平方）。
# > 不同的块各有各的参数，所以它们的贡献是梯度范数的*平方*，每一项都是 $\alpha^2$ 的量级：
# > 取 $\alpha = 1/\sqrt L$ 时总量为 $L \cdot \alpha^2 \cdot O(1) = O(1)$。（[勘误 A16](../../ERRATA.zh.md#a16)）
#
# 下面在一个有限宽网络中测量每个块在 $\Theta(x,x)$ 中所占的份额：
# 给 NTK 加权，使它“只计入该块的参数”（`parameter_weights`）。

# %%
def block_shares(depth, alpha, width=512):
    model = nh.resnet(depth, alpha=alpha).network(6, width=width, seed=0)
    names = [n for n, _ in model.named_parameters()]
    total = float(nh.empirical_ntk(model, inputs[:1]))
    shares = []
    for block in range(1, depth + 1):
        weights = {n: float(n.startswith(f"{block}.")) for n in names}
        shares.append(float(nh.empirical_ntk(model, inputs[:1], parameter_weights=weights)) / total)
    return np.array(shares), total

for depth in (4, 16):
    shares, total = block_shares(depth, depth ** -0.5)
    print(f"L = {depth:2d}, α = 1/√L: Θ(x,x) = {total:6.2f}; block shares sum to {shares.sum():.2f}, "
          f"mean share {shares.mean():.3f} ≈ α² × const")
    assert shares.sum() < 1, f"L = {depth}: expected the block shares to sum below 1, got {shares.sum():.3f}"
    assert shares.mean() < 1.5 / depth, \
        f"L = {depth}: expected a mean share below 1.5 α² = {1.5 / depth:.3f}, measured {shares.mean():.3f}"

# %% [markdown]
# ## 动手探索
#
# 深度、缩放方式和激活函数：画出归一化 NTK 随两个输入之间夹角的变化，
# 分别对应深度 $L$ 和（淡色曲线）单个块。
# 这里只提供有闭式表达式的激活函数：取 α = 1 时方差随深度增长，tanh 所需的数值积分会慢得难以忍受。
# 取 α = 1 和 erf 时，从大约 50 个块开始，即使只相差几度的两个输入也已几乎不相关：
# 曲线立刻从 1 掉到 0（并在 180° 处等于 −1，因为无偏置的 erf 网络是奇函数）；交互探索会打印出原因。
# 如果某个核超出了 float64 的表示范围，它会打印说明，而不作图。

# %%
angles = torch.linspace(0, math.pi, 61, dtype=torch.float64)
circle = torch.stack([angles.cos(), angles.sin()], 1) * math.sqrt(2)

def draw_resnet(depth, scaling, activation):
    curves = {}
    for L in sorted({1, depth}):
        try:
            k = nh.resnet(L, activation, alpha=scalings[scaling](L)).kernel(circle[:1], circle).ntk[0]
        except OverflowError:
            k = torch.tensor([math.inf])
        if not torch.isfinite(k).all():
            print(f"L = {L}, {scaling}, {activation}: nothing drawn, the kernel came out non-finite. The "
                  f"variance grows like (1 + α²σ_w²E[φ'²])^L, past what the {activation} closed form handles "
                  "in float64; choose a smaller depth or another α.")
            return
        curves[L] = k
    fig, ax = plt.subplots()
    for L, k in curves.items():
        faint = L == 1 and depth > 1
        style = dict(alpha=0.35, label="L = 1 (one block)") if faint else dict(label=f"L = {L}")
        ax.plot(torch.rad2deg(angles), k / k[0], color=nh.plotting.PALETTE[0], **style)
    ax.set_xlabel("angle between inputs (degrees)")
    ax.set_ylabel("normalized NTK Θ(x, x′) / Θ(x, x)")
    ax.set_title(f"{scaling}, {activation}")
    ax.legend()
    k = curves[depth]
    print(f"L = {depth}, {scaling}, {activation}: Θ(x,x) = {float(k[0]):.4g}, "
          f"normalized at 90° {float(k[30] / k[0]):.3f}")
    if abs(float(k[1] / k[0])) < 0.05:
        print(f"Inputs 3° apart are nearly uncorrelated ({float(k[1] / k[0]):.3f}): the variance has grown "
              "so large that erf′ is a narrow spike, so each block's factor 1 + α²σ_w²E[φ′φ′] is larger for "
              "x′ = x than for any other x′, and over many blocks the diagonal outgrows every other entry "
              "(lesson 06 shows the spike for one layer).")

# %% tags=["nbval-ignore-output"]
nh.widgets.live_figure(draw_resnet, depth=nh.widgets.depth_slider(16, max=200),
                       scaling=nh.widgets.dropdown("scaling", "α = 1/√L", options=list(scalings)),
                       activation=nh.widgets.activation_dropdown("relu", options=["relu", "erf", "gelu"]))

# %% [markdown]
# ## 小结
#
# - 残差块把其分支的核乘以 $\alpha^2$ 后加到核上；每经过一个块，
#   尺度乘以 $1 + \alpha^2\sigma_w^2\mathbb E[\phi'^2]$。
# - 在 NTK 参数化下块雅可比矩阵是 $O(1)$ 的；$\alpha = 1/\sqrt L$ 能让它们的乘积保持有界，
#   是因为它们按平方相加，但只有 $L\alpha^2 \ll 1$ 才能使乘积变成加法形式（$I + \alpha\sum_l J_l$）。
# - $\alpha = 1$：指数增长，并出现与 MLP 相同的核退化。$\alpha = 1/\sqrt L$：有界（对 ReLU 为 $3e\,q_0$），
#   并有一个与深度无关的极限。$\alpha = 1/L$：各分支的作用消失。
# - 残差网络有良定义的 NTK；有限宽网络与递归公式吻合。
# - 不同块的梯度按平方相加；教材中 $O(\sqrt L)$ 的求和方式并不是 NTK 的累加方式。
#
# **练习：** 4.3（ResNet NTK 的深度缩放）。
#
# **下一课：** [05 · 归一化与参数化](05_normalization_parameterization.ipynb)
