# %% [markdown]
# # 07 · 训练动力学：闭式解与真实梯度下降的对照
# [在 Colab 中打开](https://colab.research.google.com/github/ntk-notebooks/ntk-notebooks/blob/main/notebooks/zh/07_training_dynamics.ipynb) · [Binder](https://mybinder.org/v2/gh/ntk-notebooks/ntk-notebooks/HEAD?labpath=notebooks%2Fzh%2F07_training_dynamics.ipynb)（在 Colab 上，要让图和滑块显示中文，请先运行 `%pip install mplfonts==0.0.11` 和 `%env NTK_LESSON_LANGUAGE=zh`）
# （[English version / 英文版](../07_training_dynamics.ipynb)）
#
# *教材第 4.4.2 节；NTK 综述第 3 节与第 7.1 节。*
#
# **本课内容**
# - 用梯度下降训练的无限宽网络在训练输入**和**测试输入上的闭式输出，哪些学习率能让它的迭代保持稳定，以及在这个学习率之上有限宽的网络会怎样；
# - 宽度 $m$ 增大时，什么收敛到什么、收敛得多快，并用误差棒加以测量；
# - “惰性训练”度量的究竟是什么：输出的变化是 $O(1)$，而核与特征被冻结；以及 μP 有何不同；
# - 为什么早停的作用类似于岭惩罚，而一直训练到底则是*无岭*（ridgeless）回归；
# - 训练后的网络在不同随机初始化之间的波动与无限宽的高斯过程相符（在宽度 1024 下检验）；以及一个核究竟能学会哪些目标：在球面上，一个点积核只有在每个 Mercer 系数都为正时，才能逼近每一个连续目标。
#
# **预备知识：** 第 01–02 课；参数化方式（NTK、μP）见第 05b 课。

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
from ntk_helpers.course import dynamics as course     # this lesson's experiments, figures and explorers

nh.plotting.use_style()

# %% [markdown]
# ## 一图看懂核心思想
#
# 梯度下降把网络的输出拉向数据；在 NTK 参数化下，宽网络借助一个保持不变的核来完成这件事，因此函数的整条演化路径都有闭式解。在 μP（第 05b 课）下，移动的则是隐藏特征：网络拟合的是同样的数据，但没有哪个固定的核能精确描述它的路径。
#
# 下图：宽度 4096 的单隐藏层 ReLU 网络，在圆上的 20 个点上分别做 0、3、10 和 200 步梯度下降，两种参数化各一行：NTK 参数化的学习率为 1.0，μP 为 0.3（并带有第 05b 课中 μP 的逐层因子）。实线：网络；虚线：本课给出的其线性化模型的闭式解，两行都用网络自己在第 0 步的 NTK 计算。在 μP 下每一层以各自的速率学习，所以“它第 0 步的 NTK”指的是梯度下降实际使用的核，即初始化时的 $\hat\Theta_0(x, x') = \sum_p r_p\,\partial_p f(x)\,\partial_p f(x')$：每个参数的梯度乘积按它所在层的学习率因子 $r_p$ 加权。最下面一行在对数坐标上画出差距 $|\text{network} - \text{formula}|$。

# %%
data = course.circle()                    # 20 training angles, 120 test angles, y = sin 2a + 0.5 cos a
ntk_row, mup_row = course.snapshots("ntk"), course.snapshots("mup")
course.draw_snapshots([ntk_row, mup_row])
plt.show()

# %% [markdown]
# 从左到右看这些子图。NTK 参数化下的网络从一个大小为 1 的随机函数 $f_0$ 出发，到第 10 步到达数据，每一步都与公式相近，而它的特征（最后一个隐藏层特征核的相对变化，见第 2 节）最多只移动了 0.1 %。μP 网络一开始几乎是平的（它在初始化时的输出随宽度缩小，这里大约只剩偏置），同样拟合了数据，但它的特征先后移动了 29 %、82 % 和 120 %：它学到了新的表示（它的 NTK 也随之改变，见第 05b 课；本课没有测量）。
#
# **第 0 步的公式在哪里不再描述 μP**（最下面一行；两行都与各自第 0 步的公式比较）。μP 网络的最大差距在第 3 步为 0.05，在第 10 步为 0.11，约为 NTK 那一行（0.011 和 0.023）的 4.5 倍。它的特征恰好在这几步中移动得最快，用“核在移动”来解释这个差距是自然的，但这一次训练并不能单独确定原因（两行的学习率也不同）。到第 200 步，两个网络和两个公式都穿过这个光滑目标的 20 个训练点，差距又彼此接近（0.05 对 0.04）：训练的终点掩盖了中途显示出的差别。μP 与众不同之处在于，它的特征和核在任何宽度下都移动 $O(1)$（第 05b 课）。本课其余部分讲的是第一行：它的公式、真实网络跟随它的程度，以及它能学会什么、学不会什么。

# %% tags=["check"]
nh.check_between("NTK parameterization: largest feature change over the 4 snapshots (≤ 0.1 %)",
                 ntk_row.feature_change.max(), 0, 0.001)
nh.check_close("μP: feature change at steps 3, 10, 200 (29 %, 82 %, 120 %)", mup_row.feature_change[1:],
               [0.29, 0.82, 1.20], atol=0.005)
nh.check_close("μP: gap to its step-0 formula at steps 3, 10, 200 (0.05, 0.11, 0.05)", mup_row.gaps[1:],
               [0.05, 0.11, 0.05], atol=0.005)
nh.check_close("NTK parameterization: gap to its step-0 formula at steps 3, 10 (0.011, 0.023)",
               ntk_row.gaps[1:3], [0.011, 0.023], atol=0.0005)
nh.check_close("NTK parameterization: gap to its step-0 formula at step 200 (0.04)", ntk_row.gaps[3], 0.04,
               atol=0.005)
nh.check_between("step 3: μP gap / NTK-parameterization gap (about 4.5)", mup_row.gaps[1] / ntk_row.gaps[1],
                 4.4, 4.8)
nh.check_between("step 10: μP gap / NTK-parameterization gap (about 4.5)", mup_row.gaps[2] / ntk_row.gaps[2],
                 4.4, 4.8)
nh.check_between("μP: largest |f₀| on the test angles (almost flat: its readout bias)",
                 float(mup_row.network[0].abs().max()), 0, 0.5)
nh.check_between("μP: spread of f₀ over the test angles (flat)", float(mup_row.network[0].std()), 0, 0.02)
nh.check_between("NTK parameterization: max |network − target| at step 200", ntk_row.target_gap, 0, 0.1)
nh.check_between("μP: max |network − target| at step 200", mup_row.target_gap, 0, 0.1)

# %% [markdown]
# ## 4.4.2 闭式解
#
# 取损失 $\mathcal L = \frac{1}{2n}\sum_i (f(x_i) - y_i)^2$、学习率为 $\eta$ 的梯度流，以及保持不变的 NTK $\Theta$（无限宽）。于是在训练输入 $X$ 上 $\dot f_t(X) = -\frac{\eta}{n}\Theta\,(f_t(X) - y)$，其解为（Jacot et al. 2018；Lee et al. 2019，式 8–9）
#
# $$f_t(X) = f_0(X) + \bigl(I - e^{-\eta\Theta t/n}\bigr)\,(y - f_0(X)),$$
# $$f_t(x^*) = f_0(x^*) + \Theta(x^*, X)\,\Theta^{-1}\bigl(I - e^{-\eta\Theta t/n}\bigr)\,(y - f_0(X)).$$
#
# 这里单独写的 $\Theta$ 指 $n \times n$ 的 Gram 矩阵 $\Theta(X, X)$。第一行解的是残差 $f_t(X) - y$ 的线性常微分方程，残差按 $e^{-\eta\Theta t/n}$ 衰减。测试输出随同一个残差移动，$\dot f_t(x^*) = -\frac{\eta}{n}\Theta(x^*, X)\,(f_t(X) - y)$；从 0 积分到 $t$ 得到 $\Theta(x^*, X)\,\frac{\eta}{n}\int_0^t e^{-\eta\Theta s/n}ds\,(y - f_0(X))$，而 $\frac{\eta}{n}\int_0^t e^{-\eta\Theta s/n}ds = \Theta^{-1}(I - e^{-\eta\Theta t/n})$：这就是第二行。离散的梯度下降把 $e^{-\eta\Theta t/n}$ 换成 $(I - \eta\Theta/n)^t$：每一步把残差 $f - y$ 沿 $\Theta$ 第 $i$ 个特征向量的分量乘以 $1 - \eta\lambda_i/n$。只有当所有这些因子都在 $-1$ 与 $1$ 之间时，迭代才收敛：
#
# $$\eta < \eta_\text{crit} = \frac{2n}{\lambda_\max},\qquad \lambda_\max = \text{NTK 在 } n \text{ 个训练输入上的 Gram 矩阵的最大特征值}.$$
#
# `nh.linearized_dynamics` 计算这些输出，`nh.critical_learning_rate` 计算这个阈值。¹ 对本课的数据：

# %%
print(nh._("λ_max = {lam_max:.2f} (largest eigenvalue of the analytic NTK on the 20 training inputs); "
           "critical learning rate 2n/λ_max = {critical:.3f}").format(lam_max=data.lam_max,
                                                                     critical=data.critical_lr))

# %% [markdown]
# ¹ $1/n$ 来自损失中的平均。若用 $\frac12\sum_i$，它就消失了（$\eta_\text{crit} = 2/\lambda_\max$）；若用 PyTorch 的 `MSELoss`（取平均，不带 ½），因子 $1/n$ 变成 $2/n$，于是 $\eta_\text{crit} = n/\lambda_\max$；两个函数都通过 `loss=...` 接受这种约定。

# %% tags=["check"]
nh.check_close("critical learning rate: course vs nh.critical_learning_rate", data.critical_lr,
               nh.critical_learning_rate(data.ntk_train), rtol=1e-12)
nh.check_close("critical learning rate 2n/λ_max (1.49)", data.critical_lr, 1.49, atol=0.005)

# %% [markdown]
# ## 1. 真实梯度下降与公式的对照：什么收敛到什么
#
# 宽度 $m$ 增大时，成立的是三个不同的命题（对固定的一组输入）：
#
# 1. 初始化时，$f_0$ *依分布*收敛到一个以 **NNGP** 核为协方差的高斯过程：这是一个随机函数，而不是核预测器。
# 2. 训练过程中，网络始终接近它的**线性化** $f^\text{lin}$，即在它自己的初始参数处的一阶泰勒模型 $f_0(x) + \nabla_\theta f_0(x)\cdot(\theta - \theta_0)$，从同一个 $f_0$ 出发、用同样的梯度下降训练（在平方损失下，它的输出恰好就是用网络自己的初始 NTK $\hat\Theta_0$ 算出的离散闭式解；本课就这样计算，不另外训练第二个模型）：$\sup_{t\le T}|f_t(x) - f^\text{lin}_t(x)| \to 0$。Lee et al.（2019，定理 2.1）在以下条件下证明了它：激活函数的导数 $\phi'$ 满足 Lipschitz 条件，输入有界，解析 Gram 矩阵满足 $\lambda_\min > 0$（这里为 0.1006），且学习率低于这种损失约定下该矩阵的 $2n/(\lambda_\min + \lambda_\max)$（这里为 1.489；本课用 $\eta = 1$），并对所有 $t$ 给出 $O(m^{-1/2})$ 的上界。Jacot et al.（2018，定理 2）对二阶可微的激活函数证明：在逐层取的极限下，NTK 在有限时间区间 $[0, T]$ 上保持不变。我们的 ReLU 网络两个条件都不满足：对它而言，下面的测量就是证据（同类的 ReLU 结果也存在，例如 Arora et al. 2019，定理 3.2，针对输出尺度很小时 $t \to \infty$ 的训练后预测器）。
# 3. 当 $t\to\infty$ 时，线性化趋于 $f_0(x^*) + \Theta(x^*, X)\Theta^{-1}(y - f_0(X))$。它恰好在核能插值 $f_0$ 本身时，即 $f_0(x^*) = \Theta(x^*, X)\Theta^{-1}f_0(X)$ 时（例如 $f_0 = 0$），等于核回归预测器 $\Theta(x^*, X)\Theta^{-1}y$；对 $f_0$ 取平均时也相等。在有限宽度下，线性化的极限中用的是 $\hat\Theta_0$ 而不是 $\Theta$。
#
# 因此，网络与使用解析 NTK 的闭式解之间的差距由两部分组成，我们可以分别测量：
#
# $$\underbrace{f_t - f^\text{formula}_t}_{\text{总差}}
# = \underbrace{\bigl(f_t - f^\text{lin}_t\bigr)}_{\text{命题 2}}
# + \underbrace{\bigl(f^\text{lin}_t - f^\text{formula}_t\bigr)}_{\text{随机的初始 NTK 与解析 NTK 之差}}.$$
#
# $f^\text{lin}$ 是把同一个公式中的核换成网络自己的初始 NTK $\hat\Theta_0$，它与解析 NTK 相差 $O(m^{-1/2})$（第 01 课）。我们训练四种宽度的网络，每种 6 个种子，以 $\eta = 1$（临界学习率的三分之二）训练 200 步。每个数是在 120 个测试输入上、并在整个训练过程中（每 20 步记录一次）的最大偏差。这 24 次训练大约需要 10 秒（进度条会计数）。
#
# **先预测。** 如果两部分各自都是 $O(m^{-1/2})$，总差在这些宽度上也必须以斜率 $-1/2$ 下降吗？在读图后面的内容之前先想一想。

# %% tags=["nbval-ignore-output"]
widths, seeds = [256, 1024, 4096, 16384], range(6)
# gaps[part, width, seed]; parts: total, network − own linearization, own linearization − formula
gaps = np.zeros((3, len(widths), len(seeds)))
cosines = np.zeros((len(widths), len(seeds)))
runs = [(i, width, j, seed) for i, width in enumerate(widths) for j, seed in enumerate(seeds)]
for i, width, j, seed in tqdm(runs, desc=nh._("networks (width, seed)")):
    run = course.three_trajectories(width, seed)
    parts = [run.network - run.formula, run.network - run.own, run.own - run.formula]
    gaps[:, i, j] = [float(p.abs().max()) for p in parts]
    a, b = parts[1].flatten(), parts[2].flatten()
    cosines[i, j] = float(a @ b / (a.norm() * b.norm()))       # do the two parts point the same way?

# %%
names = [nh._("network − formula (total)"), nh._("network − own linearization"),
         nh._("own linearization − formula")]
mean, se = gaps.mean(2), gaps.std(2, ddof=1) / math.sqrt(len(seeds))
fits = [course.slope_with_error(widths, gaps[p]) for p in range(3)]
fig, ax = plt.subplots()
for p, (name, (slope, slope_se)) in enumerate(zip(names, fits)):
    bars = ax.errorbar(widths, mean[p], yerr=se[p], fmt="o", capsize=3,
                       label=nh._("{name}: slope {slope:.2f} ± {se:.2f}").format(name=name, slope=slope,
                                                                                  se=slope_se))
    fitted = np.exp(np.log(gaps[p]).mean() + slope * (np.log(widths) - np.log(widths).mean()))
    ax.plot(widths, fitted, "-", color=bars[0].get_color(), lw=1)
ax.plot(widths, mean[0, 0] * (np.array(widths) / widths[0]) ** -0.5, "k:", lw=1,
        label=nh._("slope −1/2 guide"))
ax.set_xscale("log")
ax.set_yscale("log")
ax.set_xlabel(nh._("width m"))
ax.set_ylabel(nh._("largest deviation (test inputs, t ≤ 200)"))
ax.set_title(nh._("Three gaps against the width, with fitted slopes and a slope −1/2 guide"))
ax.legend(fontsize=8.5)
plt.show()

# %%
for i, width in enumerate(widths):
    print(nh._("width {width}: total {total:.4f}; cosine between the two parts {cosine:.2f}").format(
        width=width, total=mean[0, i], cosine=cosines[i].mean()))
total_slope, total_se = fits[0]
print(nh._("total: fitted slope {slope:.2f} ± {se:.2f}, {distance:.1f} standard errors from −1/2").format(
    slope=total_slope, se=total_se, distance=abs(total_slope + 0.5) / total_se))

# %% [markdown]
# 点：6 个种子的均值及其标准误；直线：用全部 24 次训练对 $\log(\text{gap})$ 关于 $\log m$ 做的最小二乘拟合，并给出斜率的标准误。²
#
# <details><summary>答案</summary>
#
# 不必。每一部分的拟合斜率都与 $-1/2$ 相符（在三个标准误之内）。*总差*的拟合斜率为 $-0.35 \pm 0.05$，更平缓，但与 $-1/2$ 只相差 2.7 个标准误：有提示意义，但按同样的三个标准误检验并不显著。两个 $O(m^{-1/2})$ 的部分之和也是 $O(m^{-1/2})$，但“$O$”只是一个上界：它并不规定中等宽度上和的斜率。
#
# </details>
#
# **为什么总差可以更平缓。** 两部分的方向大致相反（它们之间的余弦见上方输出，为负），因此部分相互抵消，总差小于两部分之和。如果两部分都恰好按 $m^{-1/2}$ 下降，固定比例的抵消只会降低前置系数，斜率更平缓就需要抵消随 $m$ 增大而*减弱*（它们的拟合斜率只是在误差范围内与 $-1/2$ 相符，所以略有不同的斜率也可能使总差更平缓）；抵消确实在减弱：余弦从宽度 256 时的 $-0.71$ 变为 16384 时的 $-0.39$（余弦比较的是整条路径，对输入和步数求和，而差距取的是最大值：这只是提示，不是推导）。在宽度 16384 时，总差低于目标最大值的 2 %。对光滑的激活函数，与线性化的偏差可以下降得更快，如 $1/m$（Dyer & Gur-Ari 2020；Huang & Yau 2020）；对 ReLU，训练中开启或关闭的单元是速率较慢的一个可能原因（这里没有测量）。
#
# ² $s \pm \sqrt{\text{残差方差}/\sum_k(\log m_k - \overline{\log m})^2}$，每个种子算一个点。

# %% tags=["check"]
nh.check_between("network − own linearization: slope's distance from −1/2 in standard errors (< 3)",
                 abs(fits[1][0] + 0.5) / fits[1][1], 0, 3)
nh.check_between("own linearization − formula: slope's distance from −1/2 in standard errors (< 3)",
                 abs(fits[2][0] + 0.5) / fits[2][1], 0, 3)
nh.check_that("the two parts point in opposite directions at these widths (mean cosine < −0.25)",
              (cosines.mean(1) < -0.25).all(), measured=str(np.round(cosines.mean(1), 2)),
              expected="< −0.25")
nh.check_between("width 16384: total gap / largest target (below 2 %)",
                 mean[0, -1] / float(data.y_train.abs().max()), 0, 0.02)
nh.check_close("total: fitted slope (−0.35)", total_slope, -0.35, atol=0.01)
nh.check_between("total: slope's distance from −1/2 in standard errors (2.7: below 3, not significant)",
                 abs(total_slope + 0.5) / total_se, 2.65, 2.75)
nh.check_close("cosine between the parts at width 256 (−0.71)", cosines[0].mean(), -0.71, atol=0.005)
nh.check_close("cosine between the parts at width 16384 (−0.39): the cancellation weakens",
               cosines[-1].mean(), -0.39, atol=0.005)

# %% [markdown]
# ## 2. 测量惰性训练
#
# 在 NTK 参数化下，输出的变化是 $O(1)$（在每个宽度下它都拟合了数据），而随 $m$ 增大而消失的是 **NTK** 和隐藏**特征**的变化（对导数 $\phi'$ 满足 Lipschitz 条件的激活函数，Lee et al. 2019 对 NTK 证明了 $O(m^{-1/2})$；对我们的 ReLU 网络，下面的数字就是证据）。我们测量 200 步训练前后的相对变化 $\lVert\text{after} - \text{before}\rVert/\lVert\text{before}\rVert$：训练输入上的输出、NTK，以及最后一个隐藏层的特征核；取三个宽度，每个宽度 6 个种子（18 次运行，几秒钟）。
#
# **先预测。** 已证明的 NTK 变化速率是一个上界 $O(m^{-1/2})$。在宽度 256 到 4096 之间，测得的 NTK 变化和特征变化的双对数斜率会是大约 $-1/2$、更平，还是更陡？

# %%
lazy_widths, lazy_seeds = [256, 1024, 4096], range(6)
changes = course.lazy_table(lazy_widths, lazy_seeds)    # changes[part, width, seed]: output, NTK, features
for i, width in enumerate(lazy_widths):
    output, ntk, features = changes[:, i].mean(1)
    print(nh._("width {width}, mean of 6 seeds: output changed by {output:.2f}, NTK by {ntk:.4f}, "
               "features by {features:.4f}").format(width=width, output=output, ntk=ntk, features=features))
ntk_slope, ntk_se = course.slope_with_error(lazy_widths, changes[1])
feature_slope, feature_se = course.slope_with_error(lazy_widths, changes[2])
print(nh._("fitted log-log slopes against the width: NTK {ntk:.2f} ± {ntk_se:.2f}, "
           "features {features:.2f} ± {features_se:.2f}").format(
    ntk=ntk_slope, ntk_se=ntk_se, features=feature_slope, features_se=feature_se))

# %% [markdown]
# <details><summary>答案</summary>
#
# 更陡。NTK 的变化以斜率 $-0.69 \pm 0.06$ 下降，比 $-1/2$ 陡 3.2 个标准误；特征的变化斜率为 $-0.90 \pm 0.09$，比 $-1/2$ 陡 4.3 个标准误，离 $-1$ 只有 1.1 个标准误；而输出在每个宽度下都变化 1.2 到 1.4。已证明的 $O(m^{-1/2})$ 是从上方约束变化的上界；它并没有说变化不能下降得更快，而一个数据集上的三个宽度也不足以在此之外确定速率。
#
# </details>

# %% tags=["check"]
nh.check_between("smallest output change over the 18 runs (O(1): above 0.3)", changes[0].min(), 0.3, math.inf)
nh.check_close("NTK change: fitted slope (−0.69)", ntk_slope, -0.69, atol=0.01)
nh.check_between("NTK change: standard errors steeper than −1/2 (3.2)", (-0.5 - ntk_slope) / ntk_se,
                 3.1, 3.3)
nh.check_close("feature change: fitted slope (−0.90)", feature_slope, -0.90, atol=0.01)
nh.check_between("feature change: standard errors steeper than −1/2 (4.3)",
                 (-0.5 - feature_slope) / feature_se, 4.2, 4.4)
nh.check_between("feature change: standard errors from −1 (1.1)", abs(feature_slope + 1) / feature_se,
                 1.0, 1.2)
nh.check_between("mean output change, smallest over the widths (1.2)", changes[0].mean(1).min(), 1.15, 1.25)
nh.check_between("mean output change, largest over the widths (1.4)", changes[0].mean(1).max(), 1.35, 1.45)

# %% [markdown]
# ## 动手探索：宽度、学习率、步数
#
# **高于临界学习率时。** 公式的核是固定的：当 $\eta > 2n/\lambda_\max$ 时，它最大的分量每一步都在增长，永不停止（取等号时它每一步改变符号，但不增长）。有限宽网络的核却不是固定的。它自己的阈值是 $2n/\hat\lambda_\max$，其中 $\hat\lambda_\max$ 是*它自己的* NTK 的最大特征值；这个值与解析 NTK 的不同（高于或低于它，取决于种子），并且可能在训练中移动。
#
# 在测试圆上对照网络（实线）与公式（虚线），两者都从网络自己的 $f_0$ 出发。只要公式的迭代是稳定的，你看到的就是所选步数之后的输出；若不稳定，图就换成**对数坐标下的训练损失**。标题说明发生了什么；它的最后一行给出公式的临界学习率 $2n/\lambda_\max$、这个网络自己在第 0 步的 NTK 的临界学习率 $2n/\hat\lambda_\max$，以及（两者都稳定时）测试角度上的 $\max|\text{network} - \text{formula}|$。另有一行输出给出网络训练前后的 $\hat\lambda_\max$。

# %% tags=["nbval-ignore-output"]
nh.widgets.live_figure(course.draw_dynamics,
                       width=nh.widgets.width_slider(1024, options=(64, 256, 1024, 4096)),
                       learning_rate=nh.widgets.sigma_slider(nh._("learning rate"), 1.0, min=0.1, max=3.5),
                       steps=nh.widgets.int_slider(nh._("steps"), 100, min=0, max=400))

# %% [markdown]
# **先预测，再验证。**
#
# 1. 宽度 64、学习率 1.4、100 步。公式是稳定的（$1.4 < 1.49$），但这个网络自己在第 0 步的阈值更低（标题：1.32）。网络会不收敛吗？
#
# <details><summary>答案</summary>
#
# 不会。它的损失从未超过起始值，最后为 $2.7\cdot 10^{-4}$。改变的是它自己的核：它的 $\hat\lambda_\max$ 从 30.3 降到 26.9，低于 $2n/\eta = 28.6$，于是它的迭代变得稳定。宽度 64 的网络离无限宽极限很远：它的 NTK 移动得足以离开不稳定的区域，而这已经超出了核区域。
#
# </details>
#
# 2. 宽度 4096、学习率 1.6、100 步：高于公式的阈值。哪条曲线会爆炸？另一条还能收敛吗？（想想问题 1 中网络自己的核做了什么。）
#
# <details><summary>答案</summary>
#
# 公式会爆炸：它最大的分量每一步都乘以 $|1 - \eta\lambda_\max/n| = 1.14$。网络的损失先急剧上升，在第 14 步达到 25.2，然后到第 100 步降到 $5.8\cdot 10^{-5}$，同时它的 $\hat\lambda_\max$ 从 27.1 降到 22.9，低于 $2n/\eta = 25$。这就是*弹射*（catapult）阶段（Lewkowycz et al. 2020），位于核区域之外。在 $\eta = 1.6$ 和 $2.0$ 时，滑块上的每个宽度都在 400 步之内恢复（种子 0）；在宽度 1024、$\eta = 2$、只有 5 步时还没有恢复（损失仍在上升）。继续加大：在 $\eta = 3.5$ 时，滑块上的每个宽度都在 11 步之内发散；而在 $\eta = 3$ 时，宽度 64 和 4096 仍能恢复，256 和 1024 则发散。
#
# </details>
#
# 3. 学习率 1.0、100 步：把宽度从 256 调到 4096，宽 16 倍。第 1 节对总差的拟合斜率 $-0.35$ 预言平均缩小 $16^{0.35} \approx 2.6$ 倍。这一个种子的 $\max|\text{network} - \text{formula}|$（标题）会缩小大约这么多吗？
#
# <details><summary>答案</summary>
#
# 不会，几乎没变：从 0.042 降到 0.034（宽度 1024 时为 0.029，所以甚至不是单调的）。拟合斜率描述的是对种子的平均；一个种子在 120 个输入上随机差距的最大值围绕它的波动，与相邻宽度之间均值的变化大致相当（第 1 节的 6 个种子：宽度 256 时标准差为 0.027，均值从 0.081 降到宽度 1024 时的 0.055），而且那个斜率拟合的是另一个量，即整个训练过程中的最大值。要得到宽度规律，需要许多种子和带误差棒的拟合斜率，就像第 1 节那样，而不是每个宽度只跑一次。
#
# </details>

# %% tags=["check"]
narrow = course.explorer_run(64, 1.4, 100)
nh.check_close("question 1: width 64, own critical learning rate (1.32)",
               narrow.own_critical_lr, 1.32, atol=0.005)
nh.check_that("question 1: the loss never rises above its start",
              float(narrow.loss.max()) <= float(narrow.loss[0]),
              measured=f"{float(narrow.loss.max()):.3g}", expected=f"≤ {float(narrow.loss[0]):.3g}")
nh.check_close("question 1: final loss (2.7e-4)", float(narrow.loss[-1]), 2.7e-4, rtol=0.05)
nh.check_close("question 1: own λ_max before and after (30.3, 26.9)", [narrow.own_start, narrow.own_end],
               [30.3, 26.9], atol=0.05)
catapult = course.explorer_run(4096, 1.6, 100)
nh.check_close("question 2: the formula's factor per step |1 − ηλ_max/n| (1.14)",
               abs(1 - catapult.ratio), 1.14,
               atol=0.005)
nh.check_close("question 2: the network's peak loss (25.2)", float(catapult.loss.max()), 25.2, atol=0.05)
nh.check_that("question 2: step of the peak (14)", int(catapult.loss.argmax()) == 14,
              measured=int(catapult.loss.argmax()), expected=14)
nh.check_close("question 2: final loss (5.8e-5)", float(catapult.loss[-1]), 5.8e-5, rtol=0.05)
nh.check_close("question 2: own λ_max before and after (27.1, 22.9)", [catapult.own_start, catapult.own_end],
               [27.1, 22.9], atol=0.05)
nh.check_between("question 2: η = 1.6, widths 64 … 4096, 400 steps: largest final loss",
                 max(course.final_losses(1.6).values()), 0, 1e-3)
nh.check_between("question 2: η = 2.0, widths 64 … 4096, 400 steps: largest final loss",
                 max(course.final_losses(2.0).values()), 0, 1e-3)
nh.check_that("question 2: η = 3.5, widths 64 … 4096: every one diverges within 11 steps",
              all(step is not None and step <= 11 for step in course.divergence_steps(3.5).values()),
              measured=str(course.divergence_steps(3.5)), expected="≤ 11")
nh.check_that("question 2: η = 3: widths 64 and 4096 recover, 256 and 1024 diverge",
              [step is None for step in course.divergence_steps(3.0).values()] == [True, False, False, True],
              measured=str(course.divergence_steps(3.0)),
              expected="{64: None, 256: ·, 1024: ·, 4096: None}")
nh.check_that("question 2: η = 2, 5 steps: the loss is still rising",
              float(course.explorer_run(1024, 2.0, 5).loss.argmax()) == 5,
              measured=int(course.explorer_run(1024, 2.0, 5).loss.argmax()), expected=5)
nh.check_close("question 3: max |network − formula| at widths 256, 1024, 4096 (0.042, 0.029, 0.034)",
               [course.explorer_gap(w) for w in (256, 1024, 4096)], [0.042, 0.029, 0.034], atol=0.0005)

# %% [markdown]
# ## 3. 早停是一种隐式的岭正则化
#
# 在 $\Theta$ 的特征基下（特征值 $\lambda_i$），从 $f_0 = 0$（对称化的网络：两个读出层相反的副本，它们的输出在初始化时相互抵消）出发的梯度流保留 $y$ 每个分量的 $1 - e^{-\eta\lambda_i t/n}$，而惩罚为 $\rho$ 的岭回归保留 $\lambda_i/(\lambda_i + \rho)$。两者都压缩小特征值（起伏剧烈）的方向；当 $\rho = n\ln 2/(\eta t)$ 时，两个滤波器在同一个 $\lambda$ 处穿过 ½：大致 $\rho \approx n/(\eta t)$，图中用的就是这个值（所以图中两条曲线在相近而不相等的 $\lambda$ 处穿过 ½）。一直训练到底，梯度流就插值数据：**无岭**核回归。我们给 20 个标签加上标准差为 0.5 的噪声，并相对无噪声的目标测量测试误差。

# %%
noise = 0.5                     # standard deviation of the label noise: change it, rerun, and look
run = course.early_stopping(noise)
course.draw_early_stopping(run)
plt.show()
print(nh._("best test MSE: early stopping {stopping:.3f} (at t ≈ {time:.0f}), ridge {ridge:.3f}, "
           "trained to convergence (ridgeless) {ridgeless:.3f}").format(
    stopping=run.flow_error.min(), time=run.best_time, ridge=run.ridge_error.min(), ridgeless=run.ridgeless))

# %% [markdown]
# 左图：两条曲线形状相同，都是 U 形，但并不是同一条（它们的最小值高度和位置都不同）：训练太少（岭太大）学不到目标，训练太多（岭太小）拟合了噪声，而到最后梯度流到达无岭插值解。右图：最佳停止时刻的两个滤波器，并标出了 $\Theta$ 的特征值：两者都保留 $y$ 在大特征值方向上的分量、去掉小特征值方向上的分量，在两者之间差别最大。下面的数字来自一次噪声抽样（种子 0）。
#
# **先预测，再检验**（修改上面单元格中的 `noise` 并重新运行）。
#
# 1. 设 `noise = 0.1`。最佳停止时间会比 0.5 时更早还是更晚？早停是否仍然胜过训练到底？
#
# <details><summary>答案</summary>
#
# 更晚，$t \approx 19$ 而不是 12（在精细的时间网格上；图中粗网格显示的是它的格点 17）：噪声越少，需要避免拟合的东西越少，因此多训练一会儿是值得的。早停仍然胜出，误差小 3.2 倍（0.0018，无岭为 0.0059）。
#
# </details>
#
# 2. 设 `noise = 1.0`。更早还是更晚？早停现在胜出多少？
#
# <details><summary>答案</summary>
#
# 更早，$t \approx 8$，误差小 4.0 倍（0.143，无岭为 0.579）：噪声越多，梯度流越早开始拟合噪声，停止得当的收益也越大。
#
# </details>

# %% tags=["check"]
nh.check_between("noise 0.5: best early stopping / ridgeless error (beats interpolation by 2×)",
                 course.early_stopping(0.5).flow_error.min() / course.early_stopping(0.5).ridgeless, 0, 0.5)
nh.check_between("noise 0.5: best ridge / ridgeless error (beats interpolation by 2×)",
                 course.early_stopping(0.5).ridge_error.min() / course.early_stopping(0.5).ridgeless, 0, 0.5)
nh.check_between("noise 0.5: best early stopping / best ridge (about equal, within 1.5×)",
                 course.early_stopping(0.5).flow_error.min() / course.early_stopping(0.5).ridge_error.min(),
                 1 / 1.5, 1.5)
nh.check_close("noise 0.5: the flow at t = 1e6 reaches the ridgeless error",
               course.early_stopping(0.5).flow_error[-1], course.early_stopping(0.5).ridgeless, rtol=1e-3)
nh.check_close("best stopping time at noise 0.1, 0.5, 1.0 on the figure's grid (17, 12, 8)",
               [course.early_stopping(v).best_time for v in (0.1, 0.5, 1.0)], [17, 12, 8], atol=0.5)
nh.check_close("best stopping time at noise 0.1 on a 300-point grid (19)",
               course.early_stopping(0.1, points=300).best_time, 19, atol=0.5)
nh.check_close("stopping early wins by a factor at noise 0.1 and 1.0 (3.2, 4.0)",
               [course.early_stopping(v).ridgeless / course.early_stopping(v).flow_error.min()
                for v in (0.1, 1.0)],
               [3.2, 4.0], atol=0.05)

# %% [markdown]
# ## 4. 训练后的无限集成：它在不同初始化之间的波动
#
# 在随机初始化之上，训练后的无限宽网络是一个高斯过程（Lee et al. 2019，式 15–16）。记 $A_t(x) = \Theta(x, X)\,\Theta^{-1}\bigl(I - e^{-\eta\Theta t/n}\bigr)$（由 $n$ 个数组成的一行），并用 $K$ 表示 NNGP 核，即 $f_0$ 的协方差。第 4.4.2 节的闭式解可写成 $f_t(x) = f_0(x) - A_t(x)\,f_0(X) + A_t(x)\,y$：它对高斯的 $f_0$ 是线性的，因此
#
# $$\text{mean}(x) = A_t(x)\,y,\qquad
# \Sigma_t(x, x') = K(x, x') + A_t(x)\,K(X, X)\,A_t(x')^\top - A_t(x)\,K(X, x') - K(x, X)\,A_t(x')^\top.$$
#
# （Lee et al. 写作 $\eta$ 的地方，在本课的损失约定下是 $\eta/n$。）全部波动都来自随机的 $f_0$；`nh.ensemble_prediction` 计算这两者。我们训练 20 个宽度 1024 的网络（种子 100–119），以 $\eta = 1$ 训练 200 步，并在时间 $\eta t = 200$ 处与这个过程比较（步长为 1 的 200 个离散步与梯度流的差别远小于误差带）。
#
# 我们检验不同初始化之间的波动是否与这个过程相符：95 % 的误差带应当包含 95 % 的网络（这是对照无限宽过程的检验，而不是对照目标）。我们在训练角度之间的 20 个中点处计数；在这个过程下，相邻中点之间只有弱相关（下面检验：至多 0.3），因此 20 × 20 = 400 个 z 分数 $z = (f - \text{mean})/\sigma$ 的表现接近独立的抽样；我们把计数与 400 次独立抽样的二项分布标准误比较，并以三个标准误为容差（这样弱的相关只让计数的波动比独立抽样略大一点；三个标准误为此留有余地）。误差带没有加任何余量。

# %%
mid = course.on_circle(data.angles_train + math.pi / 20)    # halfway between neighbouring training angles
kernels = course.ARCH.kernel(torch.cat([data.x_train, data.x_test, mid]))
K, T = kernels.nngp, kernels.ntk
ensemble = nh.ensemble_prediction(K[:20, :20], K[20:, :20], K[20:, 20:], T[:20, :20], T[20:, :20],
                                  data.y_train, 200)
sd = ensemble.covariance.diagonal().sqrt()
members = course.ensemble_members(range(100, 120), torch.cat([data.x_test, mid]))
deviation = members - ensemble.mean
z = (deviation[:, 120:] / sd[120:]).reshape(-1)               # 400 z-scores at the midpoints

# %%
levels = np.array([0.5, 0.6, 0.683, 0.8, 0.9, 0.95, 0.99])
course.draw_ensemble(data.angles_test, deviation[:, :120], sd[:120], data.angles_train, z, levels)
plt.show()
inside, tolerance = course.coverage(z, levels)
print(nh._("inside the 95 % band: {inside:.3f} of the 400 (nominal 0.950 ± {tolerance:.3f})").format(
    inside=inside[5], tolerance=tolerance[5]))

# %% [markdown]
# 误差带很窄（在测试圆上 σ 至多 0.037，而输出的大小为 1–2）：数据把每个网络都牢牢固定住了。它在训练输入处（虚线）收窄，在它们之间张开。右图才是真正的检验：在每个名义水平上，落在误差带内的网络比例都在该水平的三个二项标准误之内。太宽的误差带会位于对角线之上，太窄的则位于其下。
#
# 为什么误差带在输入处收窄却不闭合？下一个单元格根据 $\Sigma_t$，在你选择的训练时间 $\eta t$ 下，打印误差带在训练输入处和它们正中间的宽度。

# %%
time = 200          # ηt of the band: change it (try 2000, then 20), rerun, and look
at_inputs, between = course.band_widths(time)
print(nh._("ηt = {time}: largest σ at the training inputs {inputs:.2g}, halfway between them "
           "{between:.3f}").format(time=time, inputs=at_inputs, between=between))

# %% [markdown]
# **先预测，再检验。**
#
# 1. 在 $\eta t = 200$ 时，误差带在训练输入处的宽度约为它在输入之间宽度的三分之一。设 `time = 2000`：它会在训练输入处闭合吗？在输入之间呢？
#
# <details><summary>答案</summary>
#
# 在输入处会：$\sigma = 6\cdot10^{-7}$。在输入之间不会：0.034。在训练输入 $x_i$ 处，$A_t(x_i) = e_i^\top(I - e^{-\eta\Theta t/n})$，所以 $f_t(x_i) - \text{mean}(x_i) = [e^{-\eta\Theta t/n}f_0(X)]_i$：只剩下 $f_0$ 中训练尚未消除的部分。沿 $\Theta$ 的第 $i$ 个特征向量，这部分按 $e^{-\eta\lambda_i t/n}$ 衰减；最慢的方向（$\lambda_\min = 0.10$）在 $\eta t = 200$ 时仍保留其 $e^{-1} = 0.37$，所以误差带在那里只是收窄。训练到底时，每个网络都插值同样的标签，于是输入处的波动消失。在输入之间，它趋于 $f_0(x) - \Theta(x, X)\Theta^{-1}f_0(X)$ 的波动：随机的 $f_0$ 由它在输入处的值插值时的误差，再多的训练也消除不了。
#
# </details>
#
# 2. 设 `time = 20`。误差带比 200 时更窄还是更宽？它在输入处收窄了多少？
#
# <details><summary>答案</summary>
#
# 处处更宽（输入之间为 0.078），而且在输入处几乎没有收窄（0.071）：经过这么短的时间，$f_0$ 的大部分还在，输入处也一样。
#
# </details>

# %% tags=["check"]
nh.check_between("largest |correlation| between midpoints under the process (weak: ≤ 0.3)",
                 course.largest_correlation(ensemble.covariance[120:, 120:]), 0, 0.3)
nh.check_between("largest σ on the test circle (0.037)", float(sd[:120].max()), 0.0365, 0.0375)
nh.check_between("largest |coverage − nominal| over 7 levels, in units of 3 binomial standard errors",
                 float(np.abs((inside - levels) / tolerance).max()), 0, 1)
nh.check_close("band at ηt = 200: largest σ at the training inputs, between them (0.011, 0.037)",
               course.band_widths(200), [0.011, 0.037], atol=0.0005)
nh.check_that("band at ηt = 2000: largest σ at the training inputs (closed: 6e-7)",
              course.band_widths(2000)[0] < 1e-6, measured=course.band_widths(2000)[0], expected="< 1e-6")
nh.check_close("band at ηt = 2000: largest σ between the inputs (0.034)", course.band_widths(2000)[1],
               0.034, atol=0.0005)
nh.check_close("band at ηt = 20: at the inputs, between them (0.071, 0.078)", course.band_widths(20),
               [0.071, 0.078], atol=0.0005)
nh.check_close("slowest eigen-direction: λ_min (0.10)", float(torch.linalg.eigvalsh(data.ntk_train)[0]),
               0.10, atol=0.005)
nh.check_close("slowest eigen-direction: its factor e^(−λ_min · 200/n) at ηt = 200 (0.37)",
               math.exp(-float(torch.linalg.eigvalsh(data.ntk_train)[0]) * 200 / 20), 0.37, atol=0.005)

# %% [markdown]
# ## 5. 惰性训练能学会什么：只有每个 μ_k > 0 时才能学会每个连续目标
#
# 核回归只能给出由核构成的函数。在圆上，一个只依赖于两个输入之间夹角 $\theta$ 的核可以按谐波展开，$\Theta(\theta) = \mu_0 + 2\sum_{k\ge1}\mu_k\cos k\theta$（它的 Mercer 系数 $\mu_k \ge 0$；在更高维的球面上，用球谐函数有同样的结论）。核回归给出的每个函数，只有在 $\mu_k > 0$ 时才含有第 $k$ 个谐波。因此，对球面上这样的点积核，NTK 的函数空间在连续函数中稠密（能逼近每一个连续函数）**当且仅当每个 $\mu_k$ 都为正**。这是否成立取决于架构：
#
# - 本课*带偏置*（$\sigma_b = 0.3$）的 ReLU 网络的每个 $\mu_k > 0$（检验到 $k = 64$）；
# - 无偏置、单隐藏层的 ReLU（默认的 `nh.mlp(1)`）对每个奇数 $k \ge 3$ 都有 $\mu_k = 0$（第 06 课）；第二个隐藏层把它们补上（检验到 $k = 64$）；
# - 无偏置的奇激活函数（如 erf）给出一个奇的核：每个偶数 $\mu_k$ 都为零，常数项也不例外。
#
# `course.mercer_coefficients` 通过傅里叶变换从 `nh.dot_product_profile`（核作为夹角的函数）读出 $\mu_k$：

# %%
course.draw_mercer()
plt.show()

# %% tags=["check"]
mu = course.mercer_coefficients      # mu(name, 64): μ_0 … μ_64 / largest
nh.check_between("ReLU, σ_b = 0.3: smallest μ_k / largest, k ≤ 64 (positive)",
                 float(mu("ReLU, σ_b = 0.3", 64).min()), 1e-6, 1)
zero_odd = float(mu("ReLU, no bias", 64)[3::2].abs().max())     # rounding-level: printed only on failure
nh.check_that("ReLU, no bias: largest |μ_k| over odd k = 3 … 63 (zero: below 1e-12)", zero_odd < 1e-12,
              measured=zero_odd, expected="< 1e-12")
nh.check_between("ReLU, no bias: smallest μ_k over even k ≤ 64 (positive)",
                 float(mu("ReLU, no bias", 64)[0::2].min()), 1e-6, 1)
nh.check_between("ReLU, no bias: μ_1 (positive)", float(mu("ReLU, no bias", 64)[1]), 1e-6, 1)
zero_even = float(mu("erf, no bias", 64)[0::2].abs().max())
nh.check_that("erf, no bias: largest |μ_k| over even k ≤ 64 (zero: below 1e-12)", zero_even < 1e-12,
              measured=zero_even, expected="< 1e-12")
nh.check_between("ReLU, no bias, 2 layers: smallest μ_k / largest, k ≤ 64 (positive)",
                 float(mu("ReLU, no bias, 2 layers", 64).min()), 1e-6, 1)

# %% [markdown]
# ### 动手探索：用核拟合 cos kθ
#
# 用 $n$ 个随机角度（以 $n$ 为种子）对目标 $\cos k\theta$ 做无岭 NTK 回归，可在四个核中任选一个。输出的一行给出 $\mu_k$，以及测试误差除以目标方差 ½ 的值（误差为 1 相当于处处预测 0）。

# %% tags=["nbval-ignore-output"]
nh.widgets.live_figure(course.draw_fit,
                       kernel=nh.widgets.dropdown(
                           nh._("kernel"), "ReLU, σ_b = 0.3",
                           options=[(course.kernel_label(k), k) for k in course.KERNELS]),
                       frequency=nh.widgets.int_slider("k", 4, min=1, max=16),
                       n=nh.widgets.int_slider(nh._("training angles n"), 64, min=8, max=512))

# %% [markdown]
# **先预测，再验证。**
#
# 1. 选择“ReLU, no bias”（默认的 `nh.mlp(1)`），$k = 3$，把 $n$ 从 8 调到 512。误差会停在 1（处处预测 0 的得分）、低于 1，还是高于 1？
#
# <details><summary>答案</summary>
#
# 在每个 $n$ 下都高于 1：$n = 8$ 时为 3.0，$n = 64$ 时为 1.83，$n = 512$ 时为 1.65。$\mu_3 = 0$，所以拟合结果中完全没有 $\cos 3\theta$；为了穿过样本点，它改用其他谐波，而它加进去的任何东西都是在缺失的目标之上额外的误差。
#
# </details>
#
# 2. “erf, no bias”和本课的“ReLU, σ_b = 0.3”都有 $\mu_3 > 0$。在 $k = 3$、$n = 64$ 时，哪一个把 $\cos 3\theta$ 学得更准，大约准多少？
#
# <details><summary>答案</summary>
#
# erf，高出十个数量级以上：它的误差低于 $10^{-15}$（确切的值取决于一个病态 Gram 矩阵中的舍入），而 ReLU 核为 $1.8\cdot10^{-3}$。erf 核是夹角的光滑函数，它的 $\mu_k$ 下降得很快（见上图），用这样的核对低次谐波做无岭回归，随 $n$ 收敛得非常快；ReLU 核在 $\theta = 0$ 处有一个尖点，它们的 $\mu_k$ 只按 $k$ 的幂次下降，误差随 $n$ 也只按幂次下降。（erf 在别处付出代价：$k = 2$ 时它没有可用的谐波，$n = 512$ 时误差为 1.07。）
#
# </details>
#
# 3. 用本课的核“ReLU, σ_b = 0.3”：在相同的 $n$ 下，$\cos 3\theta$ 和 $\cos 4\theta$ 哪个学得更准？先判断起决定作用的是频率 $k$ 本身还是别的什么。
#
# <details><summary>答案</summary>
#
# $\cos 4\theta$，在 8 到 512 的每个 $n$ 下都是如此（$n = 64$ 时：$1.1\cdot10^{-3}$ 对 $1.8\cdot10^{-3}$）。Mercer 系数图说明了原因：对这个核，$\mu_4$ 大于 $\mu_3$（分别为最大值的 0.018 和 0.011）。要紧的是 $\mu_k$ 的大小，而不是频率本身，而 $\mu_k$ 只是大致随 $k$ 下降。
#
# </details>

# %% tags=["check"]
nh.check_close("question 1: ReLU no bias, cos 3θ, n = 512 and 64 (1.65, 1.83)",
               [course.ridgeless_fit("ReLU, no bias", 3, n)[1] for n in (512, 64)], [1.65, 1.83], atol=0.005)
mu_3 = abs(float(mu("ReLU, no bias", 3)[3]))                  # rounding-level: printed only on failure
nh.check_that("question 1: |μ_3| (zero to rounding: below 1e-15)", mu_3 < 1e-15, measured=mu_3,
              expected="< 1e-15")
nh.check_between("question 1: smallest error over n = 8 … 512 (at least 1)",
                 min(course.ridgeless_fit("ReLU, no bias", 3, n)[1] for n in (8, 16, 32, 64, 128, 256, 512)),
                 1, math.inf)
nh.check_close("question 1: ReLU no bias, cos 3θ, n = 8 (3.0)",
               course.ridgeless_fit("ReLU, no bias", 3, 8)[1], 3.0, atol=0.05)
nh.check_close("question 2: erf no bias, cos 2θ, n = 512 (1.07)",
               course.ridgeless_fit("erf, no bias", 2, 512)[1],
               1.07, atol=0.005)
erf_3 = course.ridgeless_fit("erf, no bias", 3, 64)[1]       # rounding-level: printed only on failure
relu_3 = course.ridgeless_fit("ReLU, σ_b = 0.3", 3, 64)[1]
nh.check_close("question 2: ReLU σ_b = 0.3, cos 3θ, n = 64 (1.8e-3)", relu_3, 1.8e-3, rtol=0.05)
nh.check_that("question 2: erf error below 1e-15 and more than ten orders below ReLU's",
              erf_3 < min(1e-15, 1e-10 * relu_3), measured=erf_3, expected="< 1e-15")
nh.check_close("question 3: μ_3 and μ_4 of the lesson's kernel / largest (0.011, 0.018)",
               mu("ReLU, σ_b = 0.3", 4)[3:5], [0.011, 0.018], atol=0.0005)
lesson_fit = lambda k, n: course.ridgeless_fit("ReLU, σ_b = 0.3", k, n)[1]      # relative test error
nh.check_between("question 3: largest error ratio cos 4θ / cos 3θ over n = 8 … 512 (below 1)",
                 max(lesson_fit(4, n) / lesson_fit(3, n) for n in (8, 16, 32, 64, 128, 256, 512)), 0, 1)
nh.check_close("question 3: cos 4θ at n = 64 (1.1e-3)", course.ridgeless_fit("ReLU, σ_b = 0.3", 4, 64)[1],
               1.1e-3, rtol=0.05)

# %% [markdown]
# ### 稠密，但需要大量样本
#
# 当每个 $\mu_k$ 都为正时，每个连续目标都能被逼近，而由有限个谐波组成的无噪声目标（如 $\cos k\theta$）随着 $n$ 增大能被无岭回归学会（标签有噪声时，在固定维数下无岭插值不是相合的：Rakhlin & Zhai 2019 对 Laplace 核证明了这一点，Li, Zhang & Lin（2024，"Kernel interpolation generalizes poorly"）对谱按多项式衰减的核证明了这一点，其中包括球面上带偏置或至少有两个隐藏层的 ReLU NTK；这种 NTK 的函数空间与 Laplace 核的相同（Geifman et al. 2020；Chen & Xu 2021））。但代价不小：$\mu_k$ 越小，无岭回归需要的样本就越多。对这个核，$\mu_k$ 大多随 $k$ 下降（$\mu_4 > \mu_3$ 是一个例外：$\cos 4\theta$ 比 $\cos 3\theta$ 学得更好），所以高频需要多得多的样本。在圆上，这体现的是谱的衰减：次数 $\le k$ 的谐波只有 $2k + 1$ 个。在高维中它变成一种诅咒：对固定的 $k$、球面上均匀分布的数据、维数 $d \to \infty$，次数 $\le k$ 的球谐函数个数按 $d^k$ 增长，核回归需要的样本数也是如此（Ghorbani, Mei, Misiakiewicz & Montanari 2019/2021），而学习特征的网络可能需要更少的样本（这里没有展示）。我们用本课的核（ReLU，$\sigma_b = 0.3$）从 $n$ 个随机角度拟合 $k = 1, 2, 4, 8, 16$ 的 $\cos k\theta$。

# %%
frequencies, sizes = [1, 2, 4, 8, 16], [8, 16, 32, 64, 128, 256, 512]
relative_error = np.array([[course.ridgeless_fit("ReLU, σ_b = 0.3", k, n)[1] for n in sizes]
                           for k in frequencies])
fig, ax = plt.subplots()
for k, row in zip(frequencies, relative_error):
    ax.loglog(sizes, row, "o-", label=f"cos({k}θ)")
ax.axhline(0.01, color="k", ls=":", lw=1, label=nh._("1% of the variance"))
ax.set_xlabel(nh._("number of training angles n"))
ax.set_ylabel(nh._("test MSE / target variance"))
ax.set_title(nh._("Every frequency is learned, the high ones from many more samples"))
ax.legend(fontsize=9)
plt.show()
needed = [next((n for n, e in zip(sizes, row) if e < 0.01), None) for row in relative_error]
print(nh._("smallest n with error below 1%: {needed}").format(needed=dict(zip(frequencies, needed))))

# %% tags=["check"]
nh.check_between("every frequency k = 1 … 16 learned to < 1 % at n = 512 (largest error)",
                 relative_error[:, -1].max(), 0, 0.01)
nh.check_that("smallest n with error below 1 %, k = 1, 2, 4, 8, 16 (8, 16, 64, 128, 512)",
              needed == [8, 16, 64, 128, 512], measured=str(needed), expected="[8, 16, 64, 128, 512]")

# %% [markdown]
# ## 检验你的理解
#
# 1. 本课的 Gram 矩阵在 $n = 20$ 时 $\lambda_\max = 26.8$。一位同事把损失写成 $\sum_i(f(x_i) - y_i)^2$，既没有 ½，也没有取平均。公式的迭代在学习率多大以内是稳定的？
#
# <details><summary>答案</summary>
#
# $\sum_i(f - y_i)^2$ 的梯度是 $2\sum_i(f - y_i)\nabla f$，所以每一步把残差沿第 $i$ 个特征向量的分量乘以 $1 - 2\eta\lambda_i$，于是 $\eta_\text{crit} = 1/\lambda_\max = 0.037$：比本课的 $2n/\lambda_\max = 1.49$ 小四十倍。损失的约定决定了学习率的尺度。
#
# </details>
#
# 2. 一位学习者把一个宽度 16384 的网络训练了很久，并把它的测试预测与核回归 $\Theta(x^*, X)\Theta^{-1}y$ 比较。她预期，只要把网络再加宽，两者之差就会消失。她说得对吗？
#
# <details><summary>答案</summary>
#
# 训练到底给出 $f_0(x^*) + \Theta(x^*, X)\Theta^{-1}(y - f_0(X))$，所以两者之差是 $f_0(x^*) - \Theta(x^*, X)\Theta^{-1}f_0(X)$：核回归根据随机函数 $f_0$ 在训练输入上的值对它做插值时的误差。它在训练输入处为零，在训练输入之间最大。它比 $f_0$ 小得多：它在不同初始化之间的标准差就是第 4 节训练到底时的误差带，在输入正中间约为 0.034，而 $f_0$ 的标准差为 1.45。它不会随宽度增大而消失：$f_0$ 趋于一个高斯过程，而不是趋于零，这个差也是如此。可以对许多网络取平均（集成均值）来消除它，或者通过对称化从 $f_0 = 0$ 出发。
#
# </details>
#
# 3. 把输出写成 $f(x) = \frac{1}{\sqrt m}\sum_{j=1}^m a_j\,\phi(w_j\cdot x)$。第 2 节测得输出移动 $O(1)$，而 NTK 的变化随宽度缩小。如果每个权重都移动大致相同的量 $\delta$，$\delta$ 要多大才能让输出移动 $O(1)$？这时一个单元对核的贡献又变化多少？
#
# <details><summary>答案</summary>
#
# 每个单元的项变化约 $\delta/\sqrt m$，而 $m$ 个变化是同向累加的（梯度下降让它们都朝降低损失的方向移动），所以输出移动约 $\sqrt m\,\delta$：$\delta$ 为 $1/\sqrt m$ 量级就够了。核是各单元梯度乘积的平均；每个单元的梯度变化 $O(\delta) = O(1/\sqrt m)$，所以平均值的变化**至多**为这么大，并随 $m$ 增大而冻结。它可以变得更少：在一阶近似下，一个单元的变化带有它的读出权重 $a_j$ 的随机符号，这样的项在平均中大部分相互抵消，只剩 $O(1/m)$。这是启发式的论证，不是证明；它与第 2 节中特征的斜率 $-0.90 \pm 0.09$ 相符。NTK 中还含有 $\phi'$，它在 ReLU 单元开启或关闭时跳变，这样的切换是 NTK 的斜率 $-0.69 \pm 0.06$ 介于两者之间的一个可能原因。
#
# </details>
#
# 4. 在本课目标的无噪声标签上，一个小的正岭（或早停）会降低无岭回归的测试误差吗？对第 5 节中“ReLU, no bias”拟合 $\cos 3\theta$ 又如何？
#
# <details><summary>答案</summary>
#
# 在这里不会：岭为 0 时测试 MSE 为 $2.25\cdot10^{-5}$，岭为 0.01 时为 $3.5\cdot10^{-5}$，岭为 0.1 时为 $2.9\cdot10^{-4}$。这个核能很好地表示这个光滑目标，也没有需要压低的噪声。对无偏置 ReLU 核拟合 $\cos 3\theta$（$n = 64$），会：无岭得分 1.83（相对于方差），岭为 1 时得分 1.07，而无穷大的岭（预测 0）得分为 1。当核不能表示目标时，收缩是有帮助的。一般而言，最优的岭可以是零、正数，甚至负数（Kobak, Lomond & Sanchez 2020）：“没有噪声就不需要岭”是常见情形，而不是必然。
#
# </details>
#
# 5. 用无偏置的 erf 核（单隐藏层）做无岭 NTK 回归，在圆上拟合目标 $1 + \cos\theta$。样本很多时，它的测试 MSE 能低到多少？为什么？
#
# <details><summary>答案</summary>
#
# 不会低于 1。这个核是奇的，所以它表示的每个函数都是奇函数，$f(-x) = -f(x)$，并与常数 1 正交（$\mu_0 = 0$）。因此 MSE 等于 $1 + $ 拟合结果到奇部分 $\cos\theta$ 的均方距离：至少为 1。$n = 512$ 时拟合结果接近 $\cos\theta$（距离 0.057，MSE 1.057）；$n = 64$ 时 MSE 为 6.2，因为插值不是奇函数的数据会迫使拟合结果振荡。
#
# </details>

# %% tags=["check"]
nh.check_close("question 1: λ_max (26.8)", data.lam_max, 26.8, atol=0.05)
nh.check_close("question 1: 1/λ_max for Σ(f − y)² (0.037)", 1 / data.lam_max, 0.037, atol=0.0005)
nh.check_close("question 1: the lesson's 2n/λ_max is 40 times larger", data.critical_lr * data.lam_max, 40,
               rtol=1e-12)
nh.check_close("question 2: standard deviation of f₀ on the test circle (1.45)",
               float(course.ARCH.kernel(data.x_test).nngp.diagonal().sqrt().max()), 1.45, atol=0.005)
nh.check_close("question 4: lesson's target, test MSE at ridge 0 (2.25e-5)", course.lesson_ridge_mse(0),
               2.25e-5, rtol=0.01)
nh.check_close("question 4: ridge 0.01 (3.5e-5)", course.lesson_ridge_mse(0.01), 3.5e-5, rtol=0.01)
nh.check_close("question 4: ridge 0.1 (2.9e-4)", course.lesson_ridge_mse(0.1), 2.9e-4, rtol=0.03)
nh.check_close("question 4: ReLU no bias, cos 3θ, n = 64, ridge 1 (1.07)",
               course.fit_error("ReLU, no bias", 64, ((3, 1.0),), ridge=1.0)[0] / 0.5, 1.07, atol=0.005)
constant_plus_cos = ((0, 1.0), (1, 1.0))                  # the target 1 + cos θ
erf_512 = course.fit_error("erf, no bias", 512, constant_plus_cos)          # (test MSE, prediction)
nh.check_close("question 5: MSE = 1 + distance to cos θ (n = 512)", erf_512[0],
               1 + float(((erf_512[1] - course.EVAL_ANGLES.cos()) ** 2).mean()), rtol=1e-4)
nh.check_close("question 5: MSE at n = 512 and 64 (1.057, 6.2)",
               [course.fit_error("erf, no bias", n, constant_plus_cos)[0] for n in (512, 64)], [1.057, 6.2],
               atol=0.03)

# %% [markdown]
# ## 小结
#
# - NTK 参数化下、用平方损失训练的无限宽网络在训练输入和测试输入上都遵循一个闭式解；离散迭代只有在 $\eta < 2n/\lambda_\max$ 时才稳定。
# - 什么收敛：$f_0$ 收敛到 NNGP 高斯过程（依分布）；训练后的网络收敛到它自己的线性化，该线性化又收敛到解析公式，在这里每个差距都与 $O(m^{-1/2})$ 相符（对导数 $\phi'$ 满足 Lipschitz 条件的激活函数已有证明）。两者之和部分相互抵消；它在这里的拟合斜率 $-0.35 \pm 0.05$ 与 $-1/2$ 没有显著差别。
# - 惰性训练：随着宽度增大，输出移动 $O(1)$，而 NTK 和特征被冻结；在 μP 下则是特征移动 $O(1)$。
# - 训练到底是无岭回归再加上 $f_0$ 偏移；早停过滤的特征方向与岭回归相同，$\rho \approx n/(\eta t)$。
# - 训练后的无限集成是一个高斯过程，20 个宽度 1024 的网络在不同初始化之间的波动在每个检验的水平上都与它相符；对球面上的点积核，函数空间稠密当且仅当每个 Mercer 系数 $\mu_k > 0$，即便如此，高频也要花费大量样本。
#
# **习题 4.9**（`solutions/chapter4/ex4_9_early_stopping.py`，“早停是一种隐式的岭正则化”）：稳定地计算闭式解，并找出早停所模仿的岭。

# %% [markdown]
# ## 写给教材第 4 章的读者
#
# <details><summary>综述 §3.2：闭式解与 NNGP 先验（勘误 B9、B27）</summary>
#
# **教材原文：** $f(t) = e^{-Kt}f(0) + (I - e^{-Kt})\,y$，以及「NNGP：$f \sim \mathcal{GP}(0, k_\text{NTK})$」。
#
# **正确的说法：** 这个公式只在**训练**输入上成立，且要求 $\eta = 1$ 和 $\frac12\sum$ 形式的损失；测试输入需要上文第 4.4.2 节中的 $\Theta(x^*,X)\Theta^{-1}$ 因子。初始化时函数的先验是以 **NNGP** 核（而不是 NTK）为协方差的高斯过程；NTK 支配的是训练（[勘误 B9](../../ERRATA.zh.md#b9)，[勘误 B27](../../ERRATA.zh.md#b27)）。
#
# </details>
#
# <details><summary>综述 §3.1：什么收敛到什么（勘误 B6、B7）</summary>
#
# **教材原文：** 随着宽度增大，两个随机过程相互收敛：网络在初始化时的输出与核回归的输出；其差在所有时间、所有 $x$ 上一致地消失。
#
# **正确的说法：** 这是三个不同的命题（第 1 节）：$f_0$ 依分布收敛到 NNGP 高斯过程；对固定的输入，训练后的网络始终接近它的线性化，在学习率足够小、激活函数的导数满足 Lipschitz 条件、输入有界且 $\lambda_\min > 0$ 时，差距在 $O(m^{-1/2})$ 之内（Lee et al. 2019，定理 2.1）；线性化在 $t \to \infty$ 时的极限是对 $y - f_0$ 的核回归再加上 $f_0$ 偏移。这些定理对固定的有限输入集成立，而不是在整个输入空间上一致成立（[勘误 B6](../../ERRATA.zh.md#b6)，[勘误 B7](../../ERRATA.zh.md#b7)）。
#
# </details>
#
# <details><summary>综述 §3.3：惰性训练中输出移动多少（勘误 B11）</summary>
#
# **教材原文：** 在惰性区域，输出的变化是 $O(t/\sqrt m)$。
#
# **正确的说法：** 输出的变化是 $O(1)$：在每个宽度下它都拟合了数据。随 $m$ 增大而消失的是 **NTK** 和隐藏**特征**的变化（第 2 节）（[勘误 B11](../../ERRATA.zh.md#b11)）。
#
# </details>
#
# <details><summary>§4.4.2：「训练等价于核岭回归」（勘误 A19）</summary>
#
# **教材原文：** NTK parameterization 使训练始终处于线性化区域，训练等价于核**岭**回归。
#
# **正确的说法：** 线性化训练只在 $m\to\infty$ 的极限下才精确（学习率固定；对一般的损失在有限时间内成立，对平方损失且学习率足够小时在所有时间内成立）；第 1 节测量了有限宽度下的差距。它是从 $f_0$ 出发的核**梯度下降**，当 $t\to\infty$ 时给出对 $y - f_0$ 的**无岭**核回归再加上偏移 $f_0$。只有加上一个朝向初始参数的惩罚才会出现岭：用 $\frac{1}{2n}\sum_i(f(x_i)-y_i)^2 + \frac{\lambda}{2}\lVert\theta-\theta_0\rVert^2$ 时，线性化模型收敛到 $f_0 + \Theta^*(\Theta + n\lambda I)^{-1}(y - f_0)$，即岭 $\rho = n\lambda$。早停的作用*类似*于岭（第 3 节）（[勘误 A19](../../ERRATA.zh.md#a19)）。
#
# </details>
#
# <details><summary>综述 §7.1：「惰性区域的表达能力有限」（勘误 B31）</summary>
#
# **教材原文：** 惰性区域的表达能力有限。
#
# **正确的说法：** 这取决于核；而在它有足够表达能力的地方，它需要大量样本。NTK 的函数空间在球面上稠密，当且仅当每个 Mercer 系数 $\mu_k$ 都为正：对本课带偏置的 ReLU 网络和无偏置的两隐藏层 ReLU 成立（第 5 节），对无偏置的单隐藏层 ReLU 网络不成立（没有奇数谐波 $k \ge 3$：$n = 512$ 时 cos 3θ 的相对测试误差为 1.65），对无偏置的奇激活函数（如 erf）也不成立（没有偶数谐波）。在稠密的情形下，局限在于**样本效率**：没有特征学习，复杂的目标需要大量样本（Ghorbani et al. 2019/2021）（[勘误 B31](../../ERRATA.zh.md#b31)）。
#
# </details>
#
# **下一课：** [08 · 有效秩](08_effective_rank.ipynb)
