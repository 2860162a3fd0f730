# %% [markdown]
# # 00 · Start here: a map of the NTK lessons
# [Open in Colab](https://colab.research.google.com/github/ntk-notebooks/ntk-notebooks/blob/main/notebooks/00_start_here.ipynb) · [Binder](https://mybinder.org/v2/gh/ntk-notebooks/ntk-notebooks/HEAD?labpath=notebooks%2F00_start_here.ipynb)
# [中文版 / Chinese edition](zh/00_start_here.ipynb)
#
# These notebooks teach the **Neural Tangent Kernel** (NTK) and how a network's architecture shapes
# it, following chapter 4 of the textbook ("NTK forms under different architectures") and its NTK
# overview. Section numbers (4.1.1, 4.2, …) are the book's, so you can read both side by side.
#
# Where the book is wrong, we say so in a box like this one and show the correct statement with an
# experiment you can run:
#
# > **The text says:** …  
# > **What is true:** … (and a cell that checks it with an `assert`)
#
# Every error of the two texts, with the lesson that shows it, is listed in [ERRATA.md](../ERRATA.md).
#
# **You need:** Python, a little linear algebra (eigenvalues, Gram matrices) and the idea of
# gradient descent. No JAX: everything is plain PyTorch.

# %%
# On Colab (or any Jupyter without this course's package) this installs it (once); here it does nothing.
import importlib, importlib.util, subprocess, sys
if importlib.util.find_spec("ntk_helpers") is None:
    package = "ntk-notebooks @ git+https://github.com/ntk-notebooks/ntk-notebooks"
    subprocess.run([sys.executable, "-m", "pip", "install", "--quiet", package], check=True)
    importlib.invalidate_caches()

# %% [markdown]
# ## The lessons
#
# | lesson | book section | what you will see |
# |---|---|---|
# | [00 start here](00_start_here.ipynb) | — | this map, notation, glossary |
# | [01 NTK basics](01_ntk_basics.ipynb) | overview §2–3 | the definition, two broken recipes, convergence: spread ~ $m^{-1/2}$, bias ~ $1/m$ |
# | [02 MLP recursion](02_mlp_recursion.ipynb) | 4.1 | the layer-by-layer recursion, kernel collapse done right, order and chaos |
# | [03 CNN](03_cnn.ipynb) | 4.2 | pixel-pair kernels, shift invariance needs pooling, digits, stride/dilation, max vs average pooling |
# | [04 ResNet](04_resnet.ipynb) | 4.3 | branch scaling α = 1, 1/√L, 1/L: exponential vs bounded NTK |
# | [05 normalization & parameterization](05_normalization_parameterization.ipynb) | 4.4 | layer norm, batch norm's batch coupling, NTK vs μP: lazy vs feature learning |
# | [06 activations](06_activations.ipynb) | 4.5 | homogeneity, eigen-decay on circle and sphere, spectral bias, the parity pitfall |
# | [07 training dynamics](07_training_dynamics.ipynb) | overview §3 | the closed-form dynamics vs real gradient descent, lazy training, early stopping |
# | [08 effective rank](08_effective_rank.ipynb) | overview §4 | the $r_\infty$ law, what values near 1 mean, why it bounds nothing |
#
# Exercises 4.1–4.8 of the chapter (automatically graded with nbgrader; the README explains how to submit):
#
# | exercise | student notebook | lesson |
# |---|---|---|
# | 4.1 the role of $\dot\Sigma$, the identity activation | [ex4_1_sigma_dot](../exercises/chapter4/ex4_1_sigma_dot.ipynb) | 02 |
# | 4.2 CNN shift symmetries | [ex4_2_cnn_symmetry](../exercises/chapter4/ex4_2_cnn_symmetry.ipynb) | 03 |
# | 4.3 ResNet depth scaling | [ex4_3_resnet_depth](../exercises/chapter4/ex4_3_resnet_depth.ipynb) | 04 |
# | 4.4 ReLU vs erf | [ex4_4_relu_vs_erf](../exercises/chapter4/ex4_4_relu_vs_erf.ipynb) | 06 |
# | 4.5 how μP breaks the kernel limit | [ex4_5_mup](../exercises/chapter4/ex4_5_mup.ipynb) | 05 |
# | 4.6 alternatives to max pooling | [ex4_6_pooling](../exercises/chapter4/ex4_6_pooling.ipynb) | 03 |
# | 4.7 collapse and effective rank of a 50-layer MLP | [ex4_7_collapse_rank](../exercises/chapter4/ex4_7_collapse_rank.ipynb) | 02, 08 |
# | 4.8 activation and double descent | [ex4_8_double_descent](../exercises/chapter4/ex4_8_double_descent.ipynb) | 06 |

# %% [markdown]
# ## How to use the lessons
#
# - **Run All** first (menu *Run → Run All Cells*); every lesson finishes in under a minute on a laptop.
# - **Sliders** redraw a plot when you move them. Click a slider and use the arrow keys for single steps.
# - Cells that end in `assert` are the lesson's claims, checked every time you run it. If you change a
#   parameter and an assert fails, you have found the edge of a claim: read the message.
# - Everything is seeded: the same numbers appear on every run.
# - Lecturers: `nh.plotting.use_style(lecture=True)` makes every plot projector-sized.

# %% [markdown]
# ## Notation
#
# | symbol | code name | meaning |
# |---|---|---|
# | $x, x'$ | `x1`, `x2` | inputs (rows of a batch); $d$ = input dimension |
# | $L$ | `depth` | number of hidden layers (an MLP has $L$ × (dense → activation), then a linear readout) |
# | $m$ | `width` | number of units per hidden layer |
# | $\phi$ | `activation` | the nonlinearity (ReLU, erf, tanh, …) |
# | $\sigma_w, \sigma_b$ | `sigma_w`, `sigma_b` | weight and bias scales (neural-tangents' `W_std`, `b_std`) |
# | $\Sigma^{(l)}(x,x')$ | `kernel.nngp` | covariance of one unit's pre-activation at initialization (the NNGP kernel) |
# | $\Theta^{(l)}(x,x')$ | `kernel.ntk` | the neural tangent kernel |
# | $E, \dot E$ | `activation.dual` | $\mathbb E[\phi(u)\phi(v)]$ and $\mathbb E[\phi'(u)\phi'(v)]$ for Gaussian $(u,v)$ |
# | $\chi_1$ | `chi1` | slope of the correlation map at $c=1$: order ($<1$) vs chaos ($>1$) |
# | $r_\text{eff}$ | `effective_rank` | $\operatorname{tr}(K)^2/\lVert K\rVert_F^2$ |
#
# All networks use the **NTK parameterization**: $z = \frac{\sigma_w}{\sqrt{\text{fan-in}}} W h + \sigma_b b$
# with every entry of $W, b$ drawn from $\mathcal N(0,1)$ (lesson 05 compares it with the standard
# parameterization and μP).

# %% [markdown]
# ## Glossary · 术语表
#
# | English | 中文 | in one line |
# |---|---|---|
# | neural tangent kernel (NTK) | 神经正切核 | inner product of parameter gradients: $\Theta(x,x') = \nabla_\theta f(x)\cdot\nabla_\theta f(x')$ |
# | NNGP kernel | 神经网络高斯过程核 | covariance of the network output over random initializations |
# | infinite-width limit | 无限宽极限 | width → ∞: the NTK becomes deterministic and, under the conditions below, stays fixed during training |
# | NTK parameterization | NTK 参数化 | weights $\mathcal N(0,1)$, scaled by $\sigma_w/\sqrt{\text{fan-in}}$ in the forward pass |
# | dual activation | 对偶激活（核）函数 | how an activation maps the Gaussian covariance: $E$ and $\dot E$ |
# | kernel collapse | 核退化 | deep kernels forget the angle between inputs |
# | edge of chaos | 混沌边缘 | $\chi_1 = 1$, between the ordered and the chaotic phase |
# | effective rank | 有效秩 | $\operatorname{tr}(K)^2/\lVert K\rVert_F^2$ |
# | lazy training | 惰性训练 | the kernel barely moves while the network fits the data |
# | feature learning | 特征学习 | hidden representations change by $O(1)$ (e.g. under μP) |
# | global average pooling | 全局平均池化 | average over all pixel positions |
# | kernel regression | 核回归 | predict with $K_{*X} K_{XX}^{-1} y$ |
#
# **When does the NTK stay fixed during training?** In the infinite-width limit, under conditions: the NTK
# parameterization (or the standard one with a learning rate ∝ 1/width), a learning rate that stays fixed as
# the width grows, a finite training time, and the squared loss trained by gradient flow or gradient descent
# (Jacot et al. 2018; Lee et al. 2019). It is the scaling that freezes the kernel, not width alone: under the
# maximal-update parameterization μP the kernel moves by $O(1)$ at any width (Yang & Hu 2021), as lesson 05
# measures.

# %% [markdown]
# ## Check that everything works
#
# One architecture description gives both worlds: `net.kernel(...)` is the infinite-width kernel,
# `net.network(...)` a finite PyTorch model.

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
# Lesson 01 shows how this difference shrinks as the width grows.
#
# ## Try a slider
#
# Move **depth** and pick an **activation**: the heat map shows the normalized NTK
# $\Theta(x_i,x_j)/\sqrt{\Theta(x_i,x_i)\,\Theta(x_j,x_j)}$ of 12 points on a circle, point $i$ at angle
# $30°\cdot i$. A normalized kernel is a correlation, so every entry lies between −1 and 1, and the colour
# scale stays fixed at −1 … 1 for every setting: red is close to 1 (the network treats the two inputs as
# alike), white is 0, blue is negative. Odd activations without bias (erf, tanh, identity) give exactly −1
# for opposite points ($j = i \pm 6$), because their kernel changes sign with $x$. At depth 50 the map has
# almost lost the angle: ReLU and leaky ReLU are close to one value (about 0.3) everywhere off the diagonal,
# GELU a little less so, and erf and tanh keep only the diagonal (1) and the opposite points (−1), with about 0
# everywhere else; only the identity (a linear network) keeps $\cos\theta$ at every depth. Lesson 02 explains
# what you see as the network gets deeper.

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
# **Next:** [01 · NTK basics](01_ntk_basics.ipynb)
