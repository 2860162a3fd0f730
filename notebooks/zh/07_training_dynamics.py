# %% [markdown]
# # 07 · 训练动力学：闭式解与真实梯度下降的对照
# [在 Colab 中打开](https://colab.research.google.com/github/ntk-notebooks/ntk-notebooks/blob/main/notebooks/zh/07_training_dynamics.ipynb) · [Binder](https://mybinder.org/v2/gh/ntk-notebooks/ntk-notebooks/HEAD?labpath=notebooks%2Fzh%2F07_training_dynamics.ipynb)（在 Colab 上，要让图和滑块显示中文，请先运行 `%pip install mplfonts==0.0.11` 和 `%env NTK_LESSON_LANGUAGE=zh`）
# （[English version / 英文版](../07_training_dynamics.ipynb)）
#
# *NTK 综述第 3 节与第 7.1 节；教材第 4.4.2 节。*
#
# **本课内容**
# - 用梯度下降训练的无限宽网络在训练输入**和**测试输入上的闭式输出；损失的归一化方式如何决定时间尺度，
#   以及哪些学习率能让迭代保持稳定；
# - 宽度 $m$ 增大时，什么收敛到什么、收敛得多快，并用误差棒加以测量；
# - “惰性训练”度量的究竟是什么：输出的变化是 $O(1)$，而核与特征被冻结；
# - 为什么早停的作用类似于岭惩罚，而一直训练到底则是*无岭*（ridgeless）回归；
# - 训练后的无限集成给出的误差带是校准良好的；惰性训练并非“表达能力不足”，而是需要大量样本。
#
# **预备知识：** 第 01–02 课。

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
from matplotlib.ticker import MaxNLocator
import torch
from tqdm.auto import tqdm
import ntk_helpers as nh

nh.plotting.use_style()

# %% [markdown]
# ## 公式
#
# 损失 $\mathcal L = \frac{1}{2n}\sum_i (f(x_i) - y_i)^2$，学习率为 $\eta$ 的梯度流，NTK
# $\Theta$ 固定不变（无限宽）。于是 $\dot f_t(X) = -\frac{\eta}{n}\Theta\,(f_t(X) - y)$，因此
#
# $$f_t(X) = f_0(X) + \bigl(I - e^{-\eta\Theta t/n}\bigr)\,(y - f_0(X)),$$
# $$f_t(x^*) = f_0(x^*) + \Theta(x^*, X)\,\Theta^{-1}\bigl(I - e^{-\eta\Theta t/n}\bigr)\,(y - f_0(X)).$$
#
# 离散的梯度下降把 $e^{-\eta\Theta t/n}$ 换成 $(I - \eta\Theta/n)^t$：
# 每一步都把残差 $f - y$ 沿 Gram 矩阵 $\Theta(X, X)$ 第 $i$ 个特征向量方向的分量乘以 $1 - \eta\lambda_i/n$。
# 只有当所有这些因子都位于 $-1$ 与 $1$ 之间时，迭代才会收敛，即
#
# $$\eta < \eta_\text{crit} = \frac{2n}{\lambda_\max},\qquad \lambda_\max = \text{NTK 在 } n \text{ 个训练输入上的 Gram 矩阵的最大特征值}.$$
#
# 若取 $\mathcal L = \frac12\sum_i$，则去掉 $1/n$（于是 $\eta_\text{crit} = 2/\lambda_\max$）；
# 若用 PyTorch 的 `MSELoss`（取平均，不带 ½），则改用 $2/n$：见 `nh.linearized_dynamics(..., loss=...)` 与
# `nh.critical_learning_rate`。
#
# > **综述原文：** 综述 §3.2 给出解析解 $f(t) = e^{-Kt}f(0) + (I - e^{-Kt})\,y$；
# > §6.2 又把 NNGP 写成 $f \sim \mathcal{GP}(0, k_\text{NTK})$，并称「训练前的网络输出可以建模为高斯过程」。  
# > **正确的说法：** 这个公式只在**训练**输入上成立，而且要求 $\eta = 1$ 并采用 $\frac12\sum$ 形式的损失；
# > 测试输入还需要上面的 $\Theta(x^*,X)\Theta^{-1}$ 因子。
# > 初始化时函数的先验是以 **NNGP** 核（而不是 NTK）为协方差的高斯过程；NTK 支配的是训练过程
# > （[勘误 B9](../../ERRATA.zh.md#b9)，[勘误 B27](../../ERRATA.zh.md#b27)）。

# %% [markdown]
# ## 1. 真实梯度下降与公式的对照
#
# 单隐藏层 ReLU 网络，输入取在圆周上：20 个训练角度，以 $\eta = 1$ 做 200 步梯度下降
# （这里的临界学习率为 1.49，会在下面的交互探索中打印出来）；
# 我们在 120 个测试角度上把网络的输出与公式比较，公式使用解析 NTK 和网络自身的 $f_0$。
# 每 20 步记录一次输出。

# %%
angles_train = torch.linspace(0, 2 * math.pi, 21, dtype=torch.float64)[:-1] + 0.1
angles_test = torch.linspace(0, 2 * math.pi, 121, dtype=torch.float64)[:-1]
on_circle = lambda a: torch.stack([a.cos(), a.sin()], 1) * math.sqrt(2)
x_train, x_test = on_circle(angles_train), on_circle(angles_test)
x_all = torch.cat([x_train, x_test])
y_train = torch.sin(2 * angles_train) + 0.5 * torch.cos(angles_train)
arch = nh.mlp(1, "relu", sigma_w=1.4, sigma_b=0.3)
k = arch.kernel(x_all).ntk
ntk_train, ntk_test = k[:20, :20], k[20:, :20]
steps = 200


def three_trajectories(width, seed=0, lr=1.0):
    """Test outputs every 20 steps: network, its own linearization, closed form with the analytic NTK."""
    model = arch.network(2, width=width, seed=seed)
    with torch.no_grad():
        f0_train, f0_test = model(x_train)[:, 0], model(x_test)[:, 0]
    own = nh.empirical_ntk(model, x_all)                    # this network's NTK at initialization
    record = nh.train(model, x_train, y_train, lr=lr, steps=steps, x_eval=x_test, record_every=20,
                      track_kernels=False)

    def linearized(kernel):                                 # f_0 + the formula, run for the same steps
        return nh.linearized_dynamics(kernel[:20, :20], y_train, record.steps, lr=lr, discrete=True,
                                      ntk_test_train=kernel[20:, :20], f0_train=f0_train,
                                      f0_test=f0_test).test

    return record.outputs, linearized(own), linearized(k)


first = three_trajectories(16384)
network, _, formula = first
fig, ax = plt.subplots()
ax.plot(angles_test, formula[-1], label="closed form (analytic NTK)")
ax.plot(angles_test, network[-1], "--", label="network, width 16384")
ax.plot(angles_train, y_train, "ko", ms=4, label="training data")
ax.set_xlabel("angle (radians)")
ax.set_ylabel("output after 200 steps")
ax.legend()
plt.show()

# %% [markdown]
# ### 什么收敛到什么
#
# > **综述原文：** 随着宽度增大，「以下两个随机过程……趋同」：
# > 「初始化时的神经网络输出」与「使用核回归预测的输出」；二者之差对时间和所有 $x$ 一致地趋于零。  
# > **正确的说法：** 这其实是三个不同的命题。
# > (1) 在初始化时，$f_0$ *依分布*收敛到以 NNGP 核为协方差的高斯过程：这是一个随机函数，而不是核预测器。
# > (2) 训练过程中，网络始终贴近它的**线性化模型** $f^\text{lin}$
# > （在网络自身的初始参数处做一阶泰勒展开得到的模型，从同一个 $f_0$ 出发，用同样的梯度下降训练）：
# > 对固定的输入 $x$，有 $\sup_{t\le T}|f_t(x) - f^\text{lin}_t(x)| \to 0$（Jacot et al. 2018，定理 2）；
# > 在学习率低于某个阈值时，Lee et al.（2019，定理 2.1）对所有 $t$ 给出了 $O(m^{-1/2})$ 的上界。
# > (3) 核回归预测器只是 $f^\text{lin}$ 在 $t\to\infty$ 时的极限，而且它保留着来自 $f_0$ 的随机偏移
# > （[勘误 B6](../../ERRATA.zh.md#b6)，[勘误 B7](../../ERRATA.zh.md#b7)）。
#
# 网络与我们的公式之间的差距有两个来源，可以分开测量：
#
# $$\underbrace{f_t - f^\text{公式}_t}_{\text{总差距}}
# = \underbrace{\bigl(f_t - f^\text{lin}_t\bigr)}_{\text{命题 (2)}}
# + \underbrace{\bigl(f^\text{lin}_t - f^\text{公式}_t\bigr)}_{\text{随机的初始 NTK 与解析 NTK 之差}}.$$
#
# $f^\text{lin}$ 就是同一个公式，只是把核换成网络自身的初始 NTK $\hat\Theta_0$；
# 这个核与解析 NTK 相差 $O(m^{-1/2})$（第 01 课）。每个宽度取 8 个随机种子；
# 每个数都是在 120 个测试输入上、整个训练过程中（每 20 步一次，直到第 200 步）的最大偏差。
# 这 32 次运行在笔记本电脑上约需 15 s（进度条会逐次计数）。

# %% tags=["nbval-ignore-output"]
widths, seeds = [256, 1024, 4096, 16384], range(8)
names = ["network − formula (total)", "network − own linearization", "own linearization − formula"]
printed_names = [nh._("network − formula (total)"), nh._("network − own linearization"),
                 nh._("own linearization − formula")]
gaps = np.zeros((3, len(widths), len(seeds)))              # part, width, seed
cosines = np.zeros((len(widths), len(seeds)))
runs = [(i, width, j, seed) for i, width in enumerate(widths) for j, seed in enumerate(seeds)]
for i, width, j, seed in tqdm(runs, desc=nh._("networks (width, seed)")):
    network, own, formula = first if (width, seed) == (16384, 0) else three_trajectories(width, seed)
    parts = [network - formula, network - own, own - formula]
    gaps[:, i, j] = [float(p.abs().max()) for p in parts]
    a, b = parts[1].flatten(), parts[2].flatten()
    cosines[i, j] = float(a @ b / (a.norm() * b.norm()))

# %%
mean, se = gaps.mean(2), gaps.std(2, ddof=1) / math.sqrt(len(seeds))
width_header, cosine_header = nh._("width"), nh._("cos(parts)")
print(f"{width_header:>6}" + "".join(f"{name:>32}" for name in printed_names) + f"{cosine_header:>12}")
for i, width in enumerate(widths):
    cells = "".join(f"{f'{mean[p, i]:.4f} ± {se[p, i]:.4f}':>32}" for p in range(3))
    print(f"{width:>6}{cells}{cosines[i].mean():>12.2f}")


# %% [markdown]
# 用带误差棒的斜率来概括双对数图：对全部 32 个点（每个种子一个点）用最小二乘法拟合
# $\log(\text{差距}) = a + s\log m$；$s$ 的标准误为
# $\sqrt{\text{残差方差}/\sum_k(\log m_k - \overline{\log m})^2}$。

# %%
def slope_with_error(widths, values):
    """Least-squares slope of log(values) on log(width), values (W, S): slope and its standard error."""
    x = np.repeat(np.log(widths), values.shape[1])
    y = np.log(values).reshape(-1)
    slope, intercept = np.polyfit(x, y, 1)
    residual = y - (intercept + slope * x)
    return slope, math.sqrt(residual @ residual / (len(x) - 2) / ((x - x.mean()) ** 2).sum())


fits = [slope_with_error(widths, gaps[p]) for p in range(3)]
fig, ax = plt.subplots()
for p, (name, (slope, slope_se)) in enumerate(zip(names, fits)):
    bars = ax.errorbar(widths, mean[p], yerr=se[p], fmt="o", capsize=3,
                       label=f"{name}: slope {slope:.2f} ± {slope_se:.2f}")
    fitted = np.exp(np.log(gaps[p]).mean() + slope * (np.log(widths) - np.log(widths).mean()))
    ax.plot(widths, fitted, "-", color=bars[0].get_color(), lw=1)
ax.plot(widths, mean[0, 0] * (np.array(widths) / widths[0]) ** -0.5, "k:", lw=1, label="slope −1/2 guide")
ax.set_xscale("log")
ax.set_yscale("log")
ax.set_xlabel("width m")
ax.set_ylabel("largest deviation (test inputs, t ≤ 200)")
ax.set_title("mean ± standard error over 8 seeds; lines: least-squares fits")
ax.legend(fontsize=9)
plt.show()

# %%
for name, (slope, slope_se) in zip(printed_names, fits):
    print(nh._("{name:>32}: fitted slope {slope:.2f} ± {error:.2f}").format(
        name=name, slope=slope, error=slope_se))

# %% [markdown]
# **数据说明了什么。** 两部分都按 $m^{-1/2}$ 的速率减小：它们拟合出的斜率与 $-1/2$ 相差不到三个标准误。
# 在这一宽度范围内，*总*差距下降得更慢，因为两部分的方向大致相反
# （二者之间的余弦，即表格最后一列，明显为负），彼此部分抵消；随着 $m$ 增大，这种抵消逐渐减弱。
# 理论只给出**上界**：两部分都是 $O(m^{-1/2})$，所以总和也是；
# 在中等宽度下拟合出高于 $-1/2$ 的斜率并不与之矛盾。宽度为 16384 时，总差距低于目标最大值的 2%。
# （Lee et al. 的界要求学习率足够小；这里 $\eta = 1$ 是临界学习率的三分之二。
# 对于光滑的激活函数，与线性化模型的偏差可以下降得更快，达到 $1/m$ 的速率（Dyer & Gur-Ari 2020；Huang & Yau 2020）；
# ReLU 的折点会让单元在训练中开启或关闭，使偏差保持在 $m^{-1/2}$ 附近。）

# %%
for p in (1, 2):
    slope, slope_se = fits[p]
    assert abs(slope + 0.5) <= 3 * slope_se, (
        f"{names[p]}: expected slope −0.5 within 3 standard errors (±{3 * slope_se:.3f}), "
        f"measured {slope:.3f}")
slope, slope_se = fits[0]
assert slope + 0.5 >= 3 * slope_se, (
    f"total gap: expected a slope above −0.5 by at least 3 standard errors ({3 * slope_se:.3f}), "
    f"measured {slope:.3f} ± {slope_se:.3f}")
assert (cosines.mean(1) < -0.25).all() and cosines[0].mean() < cosines[-1].mean(), (
    f"parts should point in opposite directions (mean cosine < −0.25 at every width), most at the smallest "
    f"width: measured {np.round(cosines.mean(1), 2)}")
target_size = float(y_train.abs().max())
assert mean[0, -1] <= 0.02 * target_size, (
    f"at width 16384 the total gap should be below 2% of the largest target ({0.02 * target_size:.3f}), "
    f"measured {mean[0, -1]:.4f}")

# %% [markdown]
# ## 2. 惰性训练的实测
#
# > **综述原文：** 在惰性训练区域，输出的变化为 $O(t/\sqrt m)$（综述 §3.3 表格中「网络输出」一行）。  
# > **正确的说法：** 输出的变化是 $O(1)$：在每个宽度下它都要拟合数据。随 $m$ 增大而消失的是 **NTK**
# > 与隐藏层**特征**的变化（Lee et al. 2019 对 NTK 证明了 $O(m^{-1/2})$）（[勘误 B11](../../ERRATA.zh.md#b11)）。

# %%
rows = []
for width in [256, 1024, 4096]:
    model = arch.network(2, width=width, seed=0)
    record = nh.train(model, x_train, y_train, lr=1.0, steps=steps)
    output_change = float((record.outputs[-1] - record.outputs[0]).norm() / record.outputs[0].norm())
    rows.append((width, output_change, record.ntk_change, record.feature_change))
print(nh._("relative changes ‖after − before‖/‖before‖ over 200 steps"))
headers = nh._("width"), nh._("output change"), nh._("NTK change"), nh._("feature change")
print("{:>6} {:>14} {:>11} {:>15}".format(*headers))
for width, out, ntk, feat in rows:
    print(f"{width:>6} {out:>14.2f} {ntk:>11.4f} {feat:>15.4f}")

# %%
widths_lazy = [r[0] for r in rows]
smallest_output_change = min(r[1] for r in rows)
assert smallest_output_change > 0.3, (
    f"outputs should move by O(1) (relative change > 0.3 at every width), "
    f"measured minimum {smallest_output_change:.2f}")
for column, name in [(2, "NTK"), (3, "feature kernel")]:
    slope = nh.loglog_slope(widths_lazy, [r[column] for r in rows])
    assert slope < -0.3, (
        f"{name} change should shrink with width (log-log slope < −0.3), measured slope {slope:.2f}")

# %% [markdown]
# ## 3. 早停是一种隐式的岭正则化
#
# 在 $\Theta$ 的特征基下（特征值为 $\lambda_i$），从 $f_0 = 0$（对称化的网络）出发的梯度流
# 对 $y$ 的每个分量保留比例 $1 - e^{-\eta\lambda_i t/n}$，而惩罚系数为
# $\rho$ 的岭回归保留 $\lambda_i/(\lambda_i + \rho)$。二者都压缩小特征值（振荡剧烈）的方向；
# 大致有 $\rho \approx n/(\eta t)$。标签带噪声时，二者都优于一直训练到收敛（无岭插值）。
#
# > **教材原文**（第 4.4.2 节）：NTK 参数化「保证了网络在整个训练过程中都停留在参数空间的线性化区域。
# > 训练过程等价于核岭回归。」  
# > **正确的说法：** 线性化训练只在 $m\to\infty$ 的极限下才精确成立
# > （学习率固定、训练时间有限、平方损失；第 1 节测量了有限宽度下的差距）。
# > 它是从 $f_0$ 出发的核**梯度下降**；当 $t\to\infty$ 时，它给出对 $y - f_0$ 的**无岭**核回归，再加上偏移 $f_0$
# > （即上面的公式中令 $e^{-\eta\Theta t/n}\to 0$）。只有加上一个把参数拉回初始值的惩罚项时，岭才会出现：
# > 对于 $\frac{1}{2n}\sum_i(f(x_i)-y_i)^2 + \frac{\lambda}{2}\lVert\theta-\theta_0\rVert^2$，
# > 线性化模型收敛到 $f_0 + \Theta^*(\Theta + n\lambda I)^{-1}(y - f_0)$，即岭系数 $\rho = n\lambda$。
# > 早停的作用*类似于*岭，下面的实验正说明了这一点（[勘误 A19](../../ERRATA.zh.md#a19)）。

# %%
noisy = y_train + 0.5 * torch.randn(20, generator=torch.Generator().manual_seed(0), dtype=torch.float64)
truth = torch.sin(2 * angles_test) + 0.5 * torch.cos(angles_test)
times = np.geomspace(1, 1e6, 40)
flow = nh.linearized_dynamics(ntk_train, noisy, times, ntk_test_train=ntk_test)
flow_error = ((flow.test - truth) ** 2).mean(1).numpy()
ridges = 20 / times
ridge_error = np.array([float(((nh.kernel_regression(ntk_train, ntk_test, noisy, ridge=r) - truth) ** 2)
                              .mean()) for r in ridges])
fig, ax = plt.subplots()
ax.semilogx(times, flow_error, label="gradient flow, time t")
ax.semilogx(times, ridge_error, "--", label="ridge regression, ρ = n/(ηt)")
ax.set_xlabel("training time t (η = 1)")
ax.set_ylabel("test MSE against the noise-free target")
ax.legend()
plt.show()

# %%
interpolation = float(((nh.kernel_regression(ntk_train, ntk_test, noisy) - truth) ** 2).mean())
print(nh._("best test MSE: early stopping {stopping:.3f}, ridge {ridge:.3f}, trained to convergence "
           "(ridgeless) {ridgeless:.3f}, the flow at t = 1e6 {flow:.3f}").format(
    stopping=flow_error.min(), ridge=ridge_error.min(), ridgeless=interpolation, flow=flow_error[-1]))
best_stop, best_ridge = flow_error.min(), ridge_error.min()
assert max(best_stop, best_ridge) < 0.5 * interpolation, (
    f"early stopping and ridge should both beat interpolation by 2×: expected < {0.5 * interpolation:.3f}, "
    f"measured {best_stop:.3f} and {best_ridge:.3f}")
assert max(best_stop, best_ridge) < 1.5 * min(best_stop, best_ridge), (
    f"early stopping and ridge should do about equally well (within 1.5×): "
    f"measured {best_stop:.3f}, {best_ridge:.3f}")
assert abs(flow_error[-1] - interpolation) <= 1e-3 * interpolation, (
    f"long training should reach the ridgeless solution: expected {interpolation:.4f} ± 0.1%, "
    f"measured {flow_error[-1]:.4f}")

# %% [markdown]
# ## 4. 训练后的无限集成
#
# 对初始化取平均后，训练后的无限宽网络是一个高斯过程（Lee et al. 2019，式 15–16）：
# 均值为 $\Theta^*\Theta^{-1}(I - e^{-\eta\Theta t/n})\,y$，协方差由 NNGP 与 NTK 共同决定。
# 它的波动来自随机的 $f_0$（即第 3 节中的偏移）。我们训练 20 个宽度为 1024 的网络（种子 100–119），
# 在时间 $\eta t = 200$ 处把它们与这个过程比较（步长为 1 的 200 步与梯度流的差别远小于误差带的宽度）。

# %%
mid = on_circle(angles_train + math.pi / 20)                # halfway between neighbouring training angles
kernels = arch.kernel(torch.cat([x_train, x_test, mid]))
K, T = kernels.nngp, kernels.ntk
ensemble = nh.ensemble_prediction(K[:20, :20], K[20:, :20], K[20:, 20:], T[:20, :20], T[20:, :20], y_train,
                                  steps)
sd = ensemble.covariance.diagonal().sqrt()
members = torch.stack([nh.train(arch.network(2, width=1024, seed=100 + s), x_train, y_train, lr=1.0,
                                steps=steps, x_eval=torch.cat([x_test, mid]), record_every=steps,
                                track_kernels=False).outputs[-1] for s in range(20)])
deviation = members - ensemble.mean
fig, ax = plt.subplots(figsize=(9, 4))
ax.fill_between(angles_test, -2 * sd[:120], 2 * sd[:120], alpha=0.2, color="C0", label="ensemble ±2σ")
ax.fill_between(angles_test, -sd[:120], sd[:120], alpha=0.35, color="C0", label="ensemble ±1σ")
for index, d in enumerate(deviation[:5, :120]):
    ax.plot(angles_test, d, color="k", lw=0.8, alpha=0.7,
            label="5 of the 20 networks" if index == 0 else None)
ax.plot(angles_train, torch.zeros(20), "o", color="C1", ms=4, label="training inputs")
ax.set_xlabel("angle (radians)")
ax.set_ylabel("network output − ensemble mean")
ax.legend(loc="upper left", bbox_to_anchor=(1.02, 1))          # outside: the curves fill the whole panel
plt.show()

# %% [markdown]
# 误差带很窄（σ 至多为 0.037，见下方输出，而输出的大小为 1–2）：数据把每个网络在训练输入附近牢牢固定住。
# 公平地检验误差带的宽度，要统计网络落在 **±1σ** 和 **±2σ** 之内的频率：
# 如果这些网络是该过程的样本，频率应分别为 68.3% 和 95.4%。
# 过宽的误差带通不过第一项计数，过窄的则通不过第二项。
# 我们在训练角度之间的 20 个中点处计数：在该过程下，相邻中点之间只有弱相关（|相关系数| ≤ 0.23，见下方输出），
# 因此 20 × 20 = 400 个 z 分数 $z = (f - \text{均值})/\sigma$ 可以看作独立样本；
# 由 400 个样本得到的比例，其二项标准误为 $\sqrt{p(1-p)/400}$（在 68.3% 处为 0.023，在 95.4% 处为 0.010），
# 我们接受三个标准误以内的偏离。误差带没有额外加宽。

# %%
z = (deviation[:, 120:] / sd[120:]).reshape(-1)
sd_mid = sd[120:]
correlation = ensemble.covariance[120:, 120:] / (sd_mid[:, None] * sd_mid[None, :])
largest_correlation = float((correlation - torch.eye(20, dtype=torch.float64)).abs().max())
print(nh._("largest σ on the test circle: {sigma:.3f}; largest |correlation| between midpoints under the "
           "process: {correlation:.2f}").format(sigma=float(sd[:120].max()), correlation=largest_correlation))
for width_in_sigma, expected in [(1, math.erf(1 / math.sqrt(2))), (2, math.erf(2 / math.sqrt(2)))]:
    inside = float((z.abs() <= width_in_sigma).double().mean())
    tolerance = 3 * math.sqrt(expected * (1 - expected) / z.numel())
    print(nh._("inside ±{width}σ: {inside:.3f} (expected {expected:.3f} ± {tolerance:.3f})").format(
        width=width_in_sigma, inside=inside, expected=expected, tolerance=tolerance))
    assert abs(inside - expected) <= tolerance, (
        f"fraction inside ±{width_in_sigma}σ: expected {expected:.3f} ± {tolerance:.3f}, "
        f"measured {inside:.3f}")
assert largest_correlation <= 0.3, (
    f"midpoints should be weakly correlated (|correlation| ≤ 0.3), measured {largest_correlation:.2f}")

# %% [markdown]
# ## 5. 惰性并不意味着表达能力不足
#
# > **综述原文**（§7.1）：惰性训练区域「表达能力受限」，「无限宽度 ≠ 任意表达能力」。  
# > **正确的说法：** NTK 的函数空间是*稠密*的：用它做核回归可以逼近球面上的任意连续函数。
# > 惰性训练区域缺少的是**样本效率**：没有特征学习，它需要大量样本才能学会复杂的目标；
# > 在 $d$ 维中，次数 $\le k$ 的球谐函数个数按 $d^k$ 的量级增长，核回归所需的样本数也是如此
# > （Ghorbani, Mei, Misiakiewicz & Montanari 2019/2021）（[勘误 B31](../../ERRATA.zh.md#b31)）。
#
# 在圆周上，只要核的每个傅里叶系数 $\mu_k$ 都为正，核的函数空间就是稠密的
# （偏置 $\sigma_b = 0.3$ 时这一点成立；第 06 课展示了无偏置的 ReLU NTK 缺少奇数 $k \ge 3$ 的系数）。
# 我们从 $n$ 个随机角度出发，用无岭 NTK 回归拟合 $\cos(k\theta)$，$k = 1, 2, 4, 8, 16$，
# 并在 400 个测试角度上测量测试误差与目标方差 ½ 之比。

# %%
grid = torch.linspace(0, 2 * math.pi, 1025, dtype=torch.float64)[:-1]
mu = torch.fft.rfft(nh.dot_product_profile(arch, grid.cos(), 2)).real / 1024    # Fourier coefficients mu_k
ratios = mu[[1, 2, 4, 8, 16, 64]] / mu[0]
print(nh._("mu_k / mu_0 for k = 1, 2, 4, 8, 16, 64: {ratios}").format(
    ratios=", ".join(f"{v:.2g}" for v in ratios)))
frequencies, sizes = [1, 2, 4, 8, 16], [8, 16, 32, 64, 128, 256, 512]
angles_eval = torch.linspace(0, 2 * math.pi, 401, dtype=torch.float64)[:-1]
relative_error = np.zeros((len(frequencies), len(sizes)))
for j, n in enumerate(sizes):
    angles_fit = torch.rand(n, generator=torch.Generator().manual_seed(n), dtype=torch.float64) * 2 * math.pi
    K_circle = arch.kernel(on_circle(torch.cat([angles_fit, angles_eval]))).ntk
    for i, freq in enumerate(frequencies):
        prediction = nh.kernel_regression(K_circle[:n, :n], K_circle[n:, :n], torch.cos(freq * angles_fit))
        relative_error[i, j] = float(((prediction - torch.cos(freq * angles_eval)) ** 2).mean() / 0.5)
fig, ax = plt.subplots()
for i, freq in enumerate(frequencies):
    ax.loglog(sizes, relative_error[i], "o-", label=f"cos({freq}θ)")
ax.axhline(0.01, color="k", ls=":", lw=1, label="1% of the variance")
ax.set_xlabel("number of training angles n")
ax.set_ylabel("test MSE / target variance")
ax.legend(fontsize=9)
plt.show()

# %%
needed = [next((n for n, e in zip(sizes, row) if e < 0.01), None) for row in relative_error]
print(nh._("smallest n with error below 1%: {needed}").format(needed=dict(zip(frequencies, needed))))
print(nh._("error at n = 512: {errors}").format(
    errors={f: f"{100 * e:.2f}%" for f, e in zip(frequencies, relative_error[:, -1])}))
smallest_mu = float(mu[1:65].min() / mu[0])
assert smallest_mu > 1e-6, (
    f"every mu_k/mu_0 up to k = 64 should be positive (> 1e-6), smallest {smallest_mu:.2e}")
assert (relative_error[:, -1] < 0.01).all(), (
    f"every frequency should be learned to < 1% at n = 512, measured {np.round(relative_error[:, -1], 4)}")
assert all(a < b for a, b in zip(needed, needed[1:])) and needed[-1] >= 16 * needed[0], (
    f"higher frequencies should need more samples (16× more for k = 16 than for k = 1), measured {needed}")

# %% [markdown]
# ## 动手探索：宽度、学习率、步数
#
# 测试圆周上网络（虚线）与公式（实线）的对照。打印出的一行给出 $\eta\lambda_\max/n$
# 和公式（解析 NTK）的临界学习率 $\eta_\text{crit} = 2n/\lambda_\max$，
# 以及本网络自身 NTK 在训练前后的最大特征值 $\hat\lambda_\max$。
#
# - **低于 $\eta_\text{crit}$** 时，二者都收敛，图中显示的是输出。
#   有限网络自身的阈值 $2n/\hat\lambda_\max$ 与解析阈值相差 $O(m^{-1/2})$：宽度 64 时它更低（1.32），
#   在两个阈值之间，这个网络会经历下一条所说的弹射过程，而公式则平稳收敛。
# - **等于或高于 $\eta_\text{crit}$** 时，公式发散：它的最大分量每一步都乘以 $|1 - \eta\lambda_\max/n| > 1$
#   （刚超过阈值时这个因子只比 1 大一点，因此要经过很多步才会爆炸）。此时图中显示的是**对数坐标下的训练损失**。
#   有限网络遵循它自己的 NTK：只要 $\eta < 2n/\hat\lambda_\max$，它就直接收敛；
#   超过这一值时，它的损失先急剧上升，随后其 NTK 的最大特征值下降，直到重新满足 $\eta\hat\lambda_\max/n < 2$，
#   然后（步数足够时）收敛。这就是*弹射*（catapult）阶段（Lewkowycz et al. 2020），它已超出核区域（kernel regime）。
#   在本滑块的范围内（$\eta \le 2$），我们的运行中网络总能恢复；
#   从大约两倍临界学习率起（这里约为 $\eta \approx 3$），网络也会发散。

# %%
n_train = 20
lam_max = float(nh.eigenvalues(ntk_train)[0])
lr_critical = 2 * n_train / lam_max
print(nh._("λ_max = {lam_max:.2f} (largest eigenvalue of the analytic NTK on the 20 training inputs); "
           "critical learning rate 2n/λ_max = {critical:.3f}").format(lam_max=lam_max, critical=lr_critical))


def draw_dynamics(width, learning_rate, steps):
    model = arch.network(2, width=width, seed=0)
    with torch.no_grad():
        f0_train, f0_test = model(x_train)[:, 0], model(x_test)[:, 0]
    own_start = float(nh.eigenvalues(nh.empirical_ntk(model, x_train))[0])
    try:
        record = nh.train(model, x_train, y_train, lr=learning_rate, steps=steps, x_eval=x_test,
                          record_every=max(steps, 1), track_kernels=False)
    except FloatingPointError as error:
        print(nh._("the network diverged too: {error}").format(error=error))
        return
    own_end = float(nh.eigenvalues(nh.empirical_ntk(model, x_train))[0])
    formula = nh.linearized_dynamics(ntk_train, y_train, list(range(steps + 1)), lr=learning_rate,
                                     ntk_test_train=ntk_test, f0_train=f0_train, f0_test=f0_test,
                                     discrete=True, allow_unstable=True)
    ratio = learning_rate * lam_max / n_train
    print(nh._("width {width}, lr {lr:.2f}, {steps} steps: ηλ_max/n = {ratio:.2f} "
               "(critical lr {critical:.2f}); network's own λ_max {start:.1f} → {end:.1f} "
               "(2n/η = {limit:.1f})").format(
        width=width, lr=learning_rate, steps=steps, ratio=ratio, critical=lr_critical, start=own_start,
        end=own_end, limit=2 * n_train / learning_rate))
    fig, ax = plt.subplots()
    if steps == 0:
        print(nh._("0 steps: nothing is trained yet; the network and the formula both show the "
                   "initial outputs f₀"))
    if learning_rate < lr_critical or steps == 0:
        ax.plot(angles_test, formula.test[-1], label="closed form (analytic NTK)")
        ax.plot(angles_test, record.outputs[-1], "--", label=f"network, width {width}")
        ax.plot(angles_train, y_train, "ko", ms=4, label="training data")
        ax.set_xlabel("angle (radians)")
        ax.set_ylabel(f"output after {steps} steps")
        gap = float((record.outputs[-1] - formula.test[-1]).abs().max())
        status = nh._("stable") if learning_rate < lr_critical else nh._("before the first step")
        print(nh._("{status}: max |network − formula| on the test angles {gap:.3f}").format(
            status=status, gap=gap))
    else:
        formula_loss = 0.5 * ((formula.train - y_train) ** 2).mean(1)
        top = 1e4 * max(float(record.loss.max()), float(formula_loss[0]))  # keeps the network legible
        above = (formula_loss > top).nonzero().flatten()
        shown = int(above[0]) if len(above) else steps + 1                   # the steps drawn: 0 … shown − 1
        label = "closed form (linearized model)"
        if shown < steps + 1:
            label += f"; above {top:.0e} from step {shown} on, not drawn"
        ax.semilogy(range(shown), formula_loss[:shown], label=label)
        ax.semilogy(range(steps + 1), record.loss, "--", label=f"network, width {width}")
        ax.xaxis.set_major_locator(MaxNLocator(integer=True))                 # steps are whole numbers
        ax.set_xlabel("gradient-descent step")
        ax.set_ylabel("training loss (log scale)")
        peak = int(record.loss.argmax())
        print(nh._("unstable: the formula's top component grows ×{factor:.2f} per step; the network's "
                   "loss peaked at {peak:.3g} (step {step}), final {final:.3g}").format(
            factor=abs(1 - ratio), peak=float(record.loss[peak]), step=peak, final=float(record.loss[-1])))
        if shown < steps + 1:
            print(nh._("The closed form's loss grows without bound ({loss:.3g} at step {steps}); it is "
                       "drawn only up to {top:.0e}, so that the network's curve stays visible.").format(
                loss=float(formula_loss[-1]), steps=steps, top=top))
    ax.legend(**({} if learning_rate < lr_critical or steps == 0        # unstable: below, clear of the curves
                 else dict(loc="upper center", bbox_to_anchor=(0.5, -0.22))))


# %% tags=["nbval-ignore-output"]
nh.widgets.live_figure(draw_dynamics, width=nh.widgets.width_slider(1024, options=(64, 256, 1024, 4096)),
                       learning_rate=nh.widgets.sigma_slider("learning rate", 1.0, min=0.1, max=2.0),
                       steps=nh.widgets.int_slider("steps", 100, min=0, max=400))

# %% [markdown]
# ## 小结
#
# - 线性化网络的输出在训练输入和测试输入上都有闭式解；损失的归一化方式决定时间尺度（`loss=` 参数），
#   离散迭代只有在 $\eta < 2n/\lambda_\max$ 时才稳定。
# - 什么收敛到什么：$f_0$ 收敛到 NNGP 高斯过程（依分布）；训练后的网络收敛到它自身的线性化模型，
#   误差在 $O(m^{-1/2})$ 以内；该线性化模型收敛到解析公式，误差也在 $O(m^{-1/2})$ 以内。
#   两部分实测的斜率都接近 $-1/2$；在中等宽度下总差距下降得更慢，因为两部分彼此部分抵消。
# - 惰性训练：输出的变化是 $O(1)$，NTK 与特征的变化随宽度增大而越来越小。
# - 训练到收敛是*无岭*回归再加上 $f_0$ 偏移；早停过滤的特征方向与岭惩罚相同。
# - 训练后的无限集成是由 NNGP 与 NTK 构成的高斯过程；有限网络落在其 ±1σ 和 ±2σ 带内的频率与理论相符。
# - 惰性训练能学习球面上任意连续的目标；它的问题是需要大量样本，而不是表达能力不足。
#
# **下一课：** [08 · 有效秩](08_effective_rank.ipynb)
