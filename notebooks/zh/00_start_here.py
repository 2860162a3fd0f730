# %% [markdown]
# # 00 · 从这里开始：NTK 课程地图
# [在 Colab 中打开](https://colab.research.google.com/github/ntk-notebooks/ntk-notebooks/blob/main/notebooks/zh/00_start_here.ipynb) · [Binder](https://mybinder.org/v2/gh/ntk-notebooks/ntk-notebooks/HEAD?labpath=notebooks%2Fzh%2F00_start_here.ipynb)（在 Colab 上，要让图和滑块显示中文，请先运行 `%pip install mplfonts==0.0.11` 和 `%env NTK_LESSON_LANGUAGE=zh`）
# （[English version / 英文版](../00_start_here.ipynb)）
#
# 这组 notebook 讲授**神经正切核**（NTK），以及网络结构如何决定它的形式。
# 内容跟随教材第 4 章（「不同网络结构下的 NTK 形式」）及其配套的 NTK 综述。
# 各节编号（4.1.1、4.2、…）与教材一致，方便你把两者对照着读。
#
# 凡是教材或综述有误的地方，我们都会用下面这样的方框指出来，给出正确的说法，并附上可以亲手运行的实验。
# 方框会注明引文的出处：**教材原文**引自教材第 4 章，**综述原文**引自 NTK 综述。
#
# > **教材原文：** …（或 **综述原文：** …）  
# > **正确的说法：** …（并有一个用 `assert` 检验它的代码单元格）
#
# 两份文本中的每一处错误，以及演示该错误的课程，都列在[勘误表](../../ERRATA.zh.md)中。
#
# **预备知识：** Python、一点线性代数（特征值、Gram 矩阵）以及梯度下降的基本思想。
# 不需要 JAX：所有代码都是普通的 PyTorch。

# %%
# On Colab (or any Jupyter without this course's package) this installs it (once); here it does nothing.
import importlib, importlib.util, subprocess, sys
if importlib.util.find_spec("ntk_helpers") is None:
    package = "ntk-notebooks @ git+https://github.com/ntk-notebooks/ntk-notebooks"
    subprocess.run([sys.executable, "-m", "pip", "install", "--quiet", package], check=True)
    importlib.invalidate_caches()

# %% [markdown]
# ## 课程一览
#
# | 课程 | 教材章节 | 你将看到的内容 |
# |---|---|---|
# | [00 从这里开始](00_start_here.ipynb) | — | 课程地图、记号、术语表 |
# | [01 NTK 基础](01_ntk_basics.ipynb) | 综述 §2–3 | 定义、两种行不通的计算做法、收敛：波动 ~ $m^{-1/2}$，偏差 ~ $1/m$ |
# | [02 MLP 递归](02_mlp_recursion.ipynb) | 4.1 | 逐层递归公式、对核退化的正确理解、有序与混沌 |
# | [03 CNN](03_cnn.ipynb) | 4.2 | 像素对核、平移不变性需要池化、手写数字、步长/扩张、最大池化与平均池化 |
# | [04 ResNet](04_resnet.ipynb) | 4.3 | 分支缩放 α = 1、1/√L、1/L：指数增长的 NTK 与有界的 NTK |
# | [05 归一化与参数化](05_normalization_parameterization.ipynb) | 4.4 | 层归一化、批归一化造成的批内耦合、NTK 参数化与 μP：惰性训练与特征学习 |
# | [06 激活函数](06_activations.ipynb) | 4.5 | 齐次性、圆周与球面上的特征值衰减、频谱偏置、奇偶性陷阱 |
# | [07 训练动力学](07_training_dynamics.ipynb) | 综述 §3 | 闭式解动力学与真实梯度下降的对比、惰性训练、早停 |
# | [08 有效秩](08_effective_rank.ipynb) | 综述 §4 | $r_\infty$ 定律、接近 1 的值意味着什么、为什么它给不出任何泛化上界 |
#
# 本章习题 4.1–4.8（由 nbgrader 自动评分；提交方法见 README）：
#
# | 习题 | 学生 notebook | 对应课程 |
# |---|---|---|
# | 4.1 $\dot\Sigma$ 的作用，恒等激活函数 | [ex4_1_sigma_dot](../../exercises/chapter4/ex4_1_sigma_dot.ipynb) | 02 |
# | 4.2 CNN 的平移对称性 | [ex4_2_cnn_symmetry](../../exercises/chapter4/ex4_2_cnn_symmetry.ipynb) | 03 |
# | 4.3 ResNet 的深度缩放 | [ex4_3_resnet_depth](../../exercises/chapter4/ex4_3_resnet_depth.ipynb) | 04 |
# | 4.4 ReLU 与 erf 的比较 | [ex4_4_relu_vs_erf](../../exercises/chapter4/ex4_4_relu_vs_erf.ipynb) | 06 |
# | 4.5 μP 如何打破核极限 | [ex4_5_mup](../../exercises/chapter4/ex4_5_mup.ipynb) | 05 |
# | 4.6 最大池化的替代方案 | [ex4_6_pooling](../../exercises/chapter4/ex4_6_pooling.ipynb) | 03 |
# | 4.7 50 层 MLP 的核退化与有效秩 | [ex4_7_collapse_rank](../../exercises/chapter4/ex4_7_collapse_rank.ipynb) | 02, 08 |
# | 4.8 激活函数与双下降 | [ex4_8_double_descent](../../exercises/chapter4/ex4_8_double_descent.ipynb) | 06 |

# %% [markdown]
# ## 如何使用这些课程
#
# - 先**全部运行**一遍（菜单 *Run → Run All Cells*（中文界面：*运行 → 运行所有单元格*））；每一课在笔记本电脑上都能在一分钟内运行完毕。
# - 拖动**滑块**时，图会随之重绘。点击滑块后，可以用方向键逐步调整。
# - 以 `assert` 结尾的代码单元格就是本课的论断，每次运行都会重新检验。
#   如果改动某个参数后 assert 失败了，说明你找到了这个论断的适用边界：请读一读报错信息。
# - 所有随机数都固定了种子：每次运行都会得到同样的数字。
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
# | $\chi_1$ | `chi1` | 相关性映射在 $c=1$ 处的斜率：有序（$<1$）与混沌（$>1$） |
# | $r_\text{eff}$ | `effective_rank` | $\operatorname{tr}(K)^2/\lVert K\rVert_F^2$ |
#
# 所有网络都采用 **NTK 参数化**：$z = \frac{\sigma_w}{\sqrt{\text{fan-in}}} W h + \sigma_b b$，
# 其中 $W, b$ 的每个元素都取自 $\mathcal N(0,1)$（第 05 课把它与标准参数化以及 μP 作比较）。

# %% [markdown]
# ## Glossary · 术语表
#
# | English | 中文 | 一句话说明 |
# |---|---|---|
# | neural tangent kernel (NTK) | 神经正切核（教材作“神经切线核”） | 参数梯度的内积：$\Theta(x,x') = \nabla_\theta f(x)\cdot\nabla_\theta f(x')$ |
# | NNGP kernel | 神经网络高斯过程核 | 网络输出在随机初始化下的协方差 |
# | infinite-width limit | 无限宽极限 | 宽度 → ∞：NTK 变为确定性的，并且在下文所列条件下，训练中保持不变 |
# | NTK parameterization | NTK 参数化 | 权重取自 $\mathcal N(0,1)$，在前向传播中乘以 $\sigma_w/\sqrt{\text{fan-in}}$ |
# | dual activation | 对偶激活（核）函数 | 激活函数如何变换高斯协方差：$E$ 与 $\dot E$ |
# | kernel collapse | 核退化 | 深层的核会遗忘输入之间的夹角 |
# | edge of chaos | 混沌边缘 | $\chi_1 = 1$，介于有序相与混沌相之间 |
# | effective rank | 有效秩 | $\operatorname{tr}(K)^2/\lVert K\rVert_F^2$ |
# | lazy training | 惰性训练 | 网络拟合数据的同时，核几乎不动 |
# | feature learning | 特征学习 | 隐藏表示发生 $O(1)$ 量级的变化（例如在 μP 下） |
# | global average pooling | 全局平均池化 | 对所有像素位置取平均 |
# | kernel regression | 核回归 | 用 $K_{*X} K_{XX}^{-1} y$ 作预测 |
#
# **NTK 什么时候在训练中保持不变？** 在无限宽极限下，而且要满足以下条件：
# 采用 NTK 参数化（或者采用标准参数化，同时令学习率 ∝ 1/宽度）；学习率不随宽度的增大而改变；
# 训练时间有限；用梯度流或梯度下降训练平方损失（Jacot et al. 2018；Lee et al. 2019）。
# 让核冻结的是缩放方式，而不单单是宽度：在最大更新参数化 μP 下，核在任何宽度下都会有 $O(1)$ 的变化
# （Yang & Hu 2021），第 05 课会实际测量这一点。

# %% [markdown]
# ## 检查环境是否正常
#
# 同一份结构描述同时给出两个世界：`net.kernel(...)` 是无限宽的核，
# `net.network(...)` 是有限宽的 PyTorch 模型。

# %%
import torch
import matplotlib.pyplot as plt
import ntk_helpers as nh

nh.plotting.use_style()
net = nh.mlp(depth=2, activation="relu")      # 2 × (dense → relu), then dense(1)
x = nh.sphere(5, d=3, seed=0)                 # 5 points with |x|² = d
kernel = net.kernel(x)
print(net)
print("analytic NTK diagonal:", kernel.ntk.diagonal().numpy().round(4))

# %%
model = net.network(3, width=2048, seed=0)     # a finite network of the same architecture
theta = nh.empirical_ntk(model, x)
relative_error = float((theta - kernel.ntk).norm() / kernel.ntk.norm())
print(f"finite (width 2048) vs infinite NTK: relative difference {relative_error:.3f}")
assert relative_error < 0.1, (
    f"width-2048 vs analytic NTK: expected a relative difference below 0.1, measured {relative_error:.3f}")

# %% [markdown]
# 第 01 课会展示这个差异如何随宽度的增大而缩小。
#
# ## 试试滑块
#
# 拖动**深度**滑块并选择一种**激活函数**：热图显示圆周上 12 个点的归一化 NTK
# $\Theta(x_i,x_j)/\sqrt{\Theta(x_i,x_i)\,\Theta(x_j,x_j)}$，其中第 $i$ 个点位于角度 $30°\cdot i$ 处。
# 归一化的核就是相关系数，所以每个元素都在 −1 与 1 之间；无论怎样设置，色标都固定为 −1 … 1：
# 红色表示接近 1（网络认为这两个输入相似），白色为 0，蓝色为负。
# 不带偏置的奇激活函数（erf、tanh、恒等函数 identity）对相对的两点（$j = i \pm 6$）恰好给出 −1，
# 因为它们的核随 $x$ 变号。到深度 50 时，热图几乎已经丢掉了角度信息：
# ReLU 和 leaky ReLU 在对角线以外处处接近同一个值（约 0.3），GELU 的退化稍轻一些；
# erf 和 tanh 只保留了对角线（1）和相对的点（−1），其余各处约为 0；
# 只有恒等函数（即线性网络）在任何深度下都保持 $\cos\theta$。
# 网络变深时看到的这些现象，第 02 课会给出解释。

# %%
angles, circle_x = nh.circle(12)

def draw_gram(depth, activation):
    k = nh.mlp(depth, activation).kernel(circle_x)
    fig, ax = plt.subplots(figsize=(5.2, 4.2))
    nh.plotting.heatmap(ax, nh.normalize(k.ntk), title=f"normalized NTK, depth {depth}, {activation}",
                        xlabel="point index j (angle 30°·j)", ylabel="point index i (angle 30°·i)",
                        symmetric=True, vmax=1.0, colorbar_label="normalized NTK (correlation)")

# %% tags=["nbval-ignore-output"]
nh.widgets.live_figure(draw_gram, depth=nh.widgets.depth_slider(2, max=50),
                       activation=nh.widgets.activation_dropdown("relu"))

# %% [markdown]
# **下一课：** [01 · NTK 基础](01_ntk_basics.ipynb)
