"""Plot and slider labels in Chinese (data only; ``ntk_helpers.course.language`` uses them).

- ``LABELS``: exact English text → Chinese, for every label a lesson or ``ntk_helpers`` draws;
- ``TEMPLATES``: (regular expression, replacement) for labels built from numbers or names; ``\\1`` in a
  replacement is the first group, itself translated (so a name inside a template is translated too); any other
  character of the replacement is taken as it is (``\\n`` in a raw string would stay a backslash and an n);
- ``KEEP``: words that stay as they are in Chinese (code names of activations, acronyms, functions).

Terms follow the Chinese lessons' markdown (NTK, NNGP, 核退化, 有效秩, 步长, 扩张, 波动, 偏差, ...).
Mathematics (``$...$``) is never translated, so a label made of mathematics, numbers and ``KEEP`` words needs no
entry. ``tools/build_zh.py`` fails when a Chinese lesson draws a label with an English word that is not here;
``tests/test_zh_edition.py`` fails on an entry that no lesson uses.
"""

KEEP = frozenset({
    # activations by their code names (dropdown options, titles), and as written in the lessons
    "relu", "leaky_relu", "erf", "gelu", "tanh", "identity", "ReLU",
    # acronyms and names the Chinese lessons keep
    "NTK", "NNGP", "MLP", "CNN", "GAP", "ResNet", "MSE", "RMS", "SGD", "flatten",
    # functions in formulas written without $...$
    "log", "exp", "cos", "Var",
})

LABELS = {
    # sliders and dropdowns (ntk_helpers.course.widgets and the lessons)
    "depth": "深度",
    "seed": "种子",
    "width": "宽度",
    "activation": "激活函数",
    "sigma_w": "σ_w",
    "sigma_b": "σ_b",
    "dilation": "扩张",
    "stride": "步长",
    "scaling": "缩放",
    "setting": "设置",
    "learning rate": "学习率",
    "steps": "步数",

    # 00 start here
    "point index j (angle 30°·j)": "点的编号 j（角度 30°·j）",
    "point index i (angle 30°·i)": "点的编号 i（角度 30°·i）",
    "normalized NTK (correlation)": "归一化 NTK（相关系数）",

    # 01 NTK basics
    "width m": "宽度 m",
    "relative error vs infinite width": "相对无限宽极限的误差",
    "spread (one network)": "波动（单个网络）",
    "bias (mean of 400)": "偏差（400 个的平均）",
    "leftover spread in the mean (spread/√400)": "平均值中剩余的波动（波动/√400）",
    "relative size vs infinite width": "相对无限宽极限的大小",
    "one seed": "单个种子",
    "infinite-width NTK": "无限宽 NTK",
    r"entries $\Theta(x_i,x_j)$": r"矩阵元 $\Theta(x_i,x_j)$",
    "perfect agreement": "完全一致",

    # 02 MLP recursion
    "pre-activation z⁽²⁾ᵢ(x′)": "预激活 z⁽²⁾ᵢ(x′)",
    "probability density": "概率密度",
    "N(0, Σ⁽²⁾(x′,x′)) from the recursion": "递归公式给出的 N(0, Σ⁽²⁾(x′,x′))",
    "correlation c at layer l": "第 l 层的相关系数 c",
    "correlation c′ at layer l + 1": "第 l + 1 层的相关系数 c′",
    "layer l": "第 l 层",
    "1 − c_l (orthogonal inputs)": "1 − c_l（正交输入）",
    "depth L": "深度 L",
    "normalized kernel, orthogonal inputs": "归一化的核，正交输入",
    "test MSE": "测试 MSE",
    "NTK regression": "NTK 回归",
    "predict the mean": "预测均值",
    "angle θ between the inputs (degrees)": "两个输入之间的夹角 θ（度）",
    "normalized kernel  K(x,x′)/K(x,x)": "归一化的核  K(x,x′)/K(x,x)",
    "ordered": "有序",
    "edge of chaos": "混沌边缘",
    "chaotic": "混沌",
    "vanishing variance": "方差消失",
    "growing variance": "方差发散",
    "ordered\nχ₁ < 1": "有序\nχ₁ < 1",
    "chaotic\nχ₁ > 1": "混沌\nχ₁ > 1",
    "edge of chaos, χ₁ = 1": "混沌边缘，χ₁ = 1",
    "(1.761, 0.05), Schoenholz et al.": "(1.761, 0.05)，Schoenholz 等",
    "q* = 0 (degenerate)": "q* = 0（退化）",
    "layer": "层",
    "correlation c_l": "相关系数 c_l",
    "ordered (1.0, 0.05)": "有序 (1.0, 0.05)",
    "edge (1.761, 0.05)": "混沌边缘 (1.761, 0.05)",
    "chaotic (3.0, 0.05)": "混沌 (3.0, 0.05)",

    # 03 CNN
    "pixel p′ of x′": "x′ 的像素 p′",
    "pixel p of x": "x 的像素 p",
    "shift s of x (pixels)": "x 的平移量 s（像素）",
    "relative change of Θ(T_s x, x′)": "Θ(T_s x, x′) 的相对变化",
    "kernel (infinite width)": "核（无限宽）",
    "test accuracy": "测试准确率",
    "pixel p′ (the middle unit sits at p = 16)": "像素 p′（中间的单元位于 p = 16）",
    "correlation of units p and p′": "单元 p 与 p′ 的相关系数",
    "receptive fields overlap": "感受野重叠",
    "offset q − p of the input pixel (pixels)": "输入像素的偏移 q − p（像素）",
    "mean of (∂f_p / ∂x_q)²": "(∂f_p / ∂x_q)² 的平均",
    "input pixel q": "输入像素 q",
    "output unit p": "输出单元 p",
    "log₁₀ |∂f_p/∂x_q| (0 = largest)": "log₁₀ |∂f_p/∂x_q|（0 = 最大值）",

    # 04 ResNet
    "number of residual blocks L": "残差块数 L",
    "3e (limit of α = 1/√L)": "3e（α = 1/√L 的极限）",
    "2 (limit of α = 1/L)": "2（α = 1/L 的极限）",
    "Θ(x, x′) / Θ(x, x), 17° apart": "Θ(x, x′) / Θ(x, x)，相隔 17°",
    "MLP (no skips)": "MLP（无跳连）",
    "angle between inputs (degrees)": "输入之间的夹角（度）",
    "normalized NTK Θ(x, x′) / Θ(x, x)": "归一化 NTK Θ(x, x′) / Θ(x, x)",
    "L = 1 (one block)": "L = 1（一个残差块）",

    # 05 normalization and parameterization
    "scale a of the first input": "第一个输入的尺度 a",
    "ReLU, no bias": "ReLU，无偏置",
    "ReLU + bias": "ReLU + 偏置",
    "dense → layer norm → ReLU": "全连接 → 层归一化 → ReLU",
    "f(x₁) for 200 different batch mates": "f(x₁)（200 组不同的同批样本）",
    "count": "计数",
    "batch norm (batch statistics)": "批归一化（批统计量）",
    "frozen batch norm": "冻结的批归一化",
    "solid: all three layers ≈ √2 (drawn slightly apart in m)": "实线：三层都 ≈ √2（沿 m 方向略微错开绘制）",
    "RMS of the pre-activations": "预激活的 RMS",
    "standard, fixed η = 0.005": "标准参数化，固定 η = 0.005",
    "standard, η = 1/m": "标准参数化，η = 1/m",
    "relative change of h² after one step": "一步之后 h² 的相对变化",
    "hidden-layer features after one SGD step": "一步 SGD 之后的隐藏层特征",
    "ntk": "NTK 参数化",
    "mup": "μP",
    "relative change after 50 steps": "50 步之后的相对变化",
    "step": "步数",
    "training loss": "训练损失",
    "feature kernel entry before training": "训练前的特征核矩阵元",
    "same entry after training": "训练后的同一矩阵元",
    "kernel entries": "核矩阵元",
    "no change": "无变化",

    # 06 activations
    "b (scale of x′)": "b（x′ 的尺度）",
    "a (scale of x)": "a（x 的尺度）",
    "log Θ(ax,bx′)/(ab Θ(x,x′))": "log Θ(ax,bx′)/(ab Θ(x,x′))",      # symbols only (ax, ab are no words)
    "ratio 1\nat every (a, b):\nhomogeneous": "每个 (a, b) 处\n比值都为 1：\n齐次",
    "angle θ between x and x′ (radians)": "x 与 x′ 之间的夹角 θ（弧度）",
    "normalized NNGP K(ax, ax′) / K(ax, ax)": "归一化 NNGP K(ax, ax′) / K(ax, ax)",
    "cos θ (linear kernel)": "cos θ（线性核）",
    "1 − 2θ/π (arcsine kernel of sign)": "1 − 2θ/π（符号函数的反正弦核）",
    "frequency k": "频率 k",
    "eigenvalue μ_k": "特征值 μ_k",
    "number of hidden ReLU layers (no bias)": "ReLU 隐藏层的层数（无偏置）",
    "odd eigenvalue / μ₁": "奇数阶特征值 / μ₁",
    "index i": "序号 i",
    "i-th eigenvalue of the Gram matrix": "Gram 矩阵第 i 大的特征值",
    "training time t (η = 1)": "训练时间 t（η = 1）",
    "residual in mode k": "模态 k 上的残差",
    "input x": "输入 x",
    "prediction f(x)": "预测 f(x)",
    "target x² + x/2": "目标 x² + x/2",
    "its odd part x/2": "它的奇部分 x/2",
    "erf, no bias": "erf，无偏置",
    "training points": "训练点",
    "target x²": "目标 x²",
    "−x² (its odd reflection)": "−x²（x < 0 一侧为奇延拓）",
    "training points (x > 0 only)": "训练点（仅 x > 0）",
    "even k": "偶数 k",
    "odd k": "奇数 k",

    # 07 training dynamics
    "angle (radians)": "角度（弧度）",
    "closed form (analytic NTK)": "闭式解（解析 NTK）",
    "training data": "训练数据",
    "largest deviation (test inputs, t ≤ 200)": "最大偏差（测试输入，t ≤ 200）",
    "mean ± standard error over 8 seeds; lines: least-squares fits": "8 个种子的均值 ± 标准误；直线：最小二乘拟合",
    "network − formula (total)": "网络 − 公式（总差）",
    "network − own linearization": "网络 − 自身的线性化",
    "own linearization − formula": "自身的线性化 − 公式",
    "test MSE against the noise-free target": "相对无噪声目标的测试 MSE",
    "gradient flow, time t": "梯度流，时间 t",
    "ridge regression, ρ = n/(ηt)": "岭回归，ρ = n/(ηt)",
    "network output − ensemble mean": "网络输出 − 集成均值",
    "ensemble ±2σ": "集成 ±2σ",
    "ensemble ±1σ": "集成 ±1σ",
    "5 of the 20 networks": "20 个网络中的 5 个",
    "training inputs": "训练输入",
    "number of training angles n": "训练角度的个数 n",
    "test MSE / target variance": "测试 MSE / 目标方差",
    "1% of the variance": "方差的 1%",
    "slope −1/2 guide": "斜率 −1/2 参考线",
    "closed form (linearized model)": "闭式解（线性化模型）",
    "gradient-descent step": "梯度下降步数",
    "training loss (log scale)": "训练损失（对数坐标）",

    # 08 effective rank
    "number of inputs n": "输入个数 n",
    "effective rank": "有效秩",
    "dashed: n r∞/(n − 1 + r∞), dotted: r∞": "虚线：n r∞/(n − 1 + r∞)，点线：r∞",
    "ReLU NTK, 1 layer": "ReLU NTK，1 层",
    "ReLU NTK, 50 layers": "ReLU NTK，50 层",
    "ReLU NNGP, 50 layers": "ReLU NNGP，50 层",
    "ReLU NTK, inputs + 3": "ReLU NTK，输入 + 3",
    "depth (bias-free erf, σ_w = 2)": "深度（无偏置 erf，σ_w = 2）",
    "dotted: the ceiling r_eff ≤ n": "点线：上限 r_eff ≤ n",
    "r∞ (limit n → ∞)": "r∞（n → ∞ 的极限）",
    "training set size n": "训练集大小 n",
    "test mean squared error": "测试均方误差",
    "√(r∞/n), the bound with C = 1": "√(r∞/n)，取 C = 1 的上界",
    "Var(y): the least possible error for random labels": "Var(y)：随机标签下可能的最小误差",
    "true labels": "真实标签",
    "random labels": "随机标签",
    "r_eff, centered": "r_eff，中心化",
    "ceiling r_eff = n": "上限 r_eff = n",
}

#: (pattern, replacement, example): the pattern must match the whole label; ``\\1``... in the replacement are its
#: groups, translated. The example is a label a lesson draws (the tests check that the pattern matches it and that
#: the lessons' code can produce it, so that no template outlives its label).
TEMPLATES = [
    # ntk_helpers.course.plotting.loglog_fit
    (r"(.+) \(slope (-?[\d.]+)\)", r"\1（斜率 \2）", "one network's error (slope -0.52)"),
    (r"slope (-?[\d.]+) guide", r"斜率 \1 参考线", "slope -0.5 guide"),
    # 01
    (r"mean of (\d+) seeds", r"\1 个种子的平均", "mean of 6 seeds"),
    (r"width-(\d+) NTK \(seed (\d+)\)", r"宽度 \1 的 NTK（种子 \2）", "width-256 NTK (seed 0)"),
    # 02
    (r"(\d+) units of one network", r"同一个网络的 \1 个单元", "4096 units of one network"),
    (r"(NTK|NNGP), depth (\d+)", r"\1，深度 \2", "NTK, depth 10"),
    # 03
    (r"chance \(([\d.]+)\)", r"随机猜测（\1）", "chance (0.5)"),
    (r"(\w+) between the convolutions", r"两层卷积之间的 \1", "ReLU between the convolutions"),
    (r"depth (\d+): 64 networks", r"深度 \1：64 个网络", "depth 2: 64 networks"),
    (r"depth (\d+): 2 N_pq / 3\^L", r"深度 \1：2 N_pq / 3^L", "depth 2: 2 N_pq / 3^L"),
    (r"depth (\d+), dilation (\d+), stride (\d+): (\d+) output units?", r"深度 \1，扩张 \2，步长 \3：\4 个输出单元",
     "depth 3, dilation 1, stride 2: 8 output units"),
    # 04
    (r"(α = [^:,]+): measured", r"\1：测量值", "α = 1/√L: measured"),
    (r"(α = [^:,]+): predicted r", r"\1：预测的 r", "α = 1/√L: predicted r"),
    # 05
    (r"(.+): std ([\d.]+)", r"\1：标准差 \2", "frozen batch norm: std 0.000"),
    (r"layer (\d), NTK parameterization \(= He\)", r"第 \1 层，NTK 参数化（= He）", "layer 1, NTK parameterization (= He)"),
    (r"layer (\d), variance 2/\(fan-in·m\)", r"第 \1 层，方差 2/(fan-in·m)", "layer 1, variance 2/(fan-in·m)"),
    (r"(\w+): NTK change", r"\1：NTK 的变化", "mup: NTK change"),
    (r"(\w+): feature-kernel change", r"\1：特征核的变化", "mup: feature-kernel change"),
    (r"(\w+): weight change", r"\1：权重的变化", "mup: weight change"),
    (r"diverged at step (\d+):\nno kernel after training", "在第 \\1 步发散：\n没有训练后的核",
     "diverged at step 13:\nno kernel after training"),
    # 06 (and 08's explorer title)
    (r"erf, input scale a = ([\d.e+]+)", r"erf，输入尺度 a = \1", "erf, input scale a = 10"),
    (r"erf, input scale a = ([\d.e+]+) \(under (.+)\)", r"erf，输入尺度 a = \1（与 \2 重合）",
     "erf, input scale a = 0.1 (under cos θ)"),
    (r"(\w+), depth (\d+), σ_b = ([\d.]+)", r"\1，深度 \2，σ_b = \3", "relu, depth 1, σ_b = 0.00"),
    (r"mode k = (\d+): gradient flow", r"模态 k = \1：梯度流", "mode k = 4: gradient flow"),
    (r"mode k = (\d+): exp\(−μ_k t\)", r"模态 k = \1：exp(−μ_k t)", "mode k = 4: exp(−μ_k t)"),
    (r"NTK regression, (.+)", r"NTK 回归，\1", "NTK regression, erf, no bias"),
    # 07
    (r"output after (\d+) steps", r"\1 步之后的输出", "output after 200 steps"),
    (r"network, width (\d+)", r"网络，宽度 \1", "network, width 1024"),
    (r"(.+): slope (-?[\d.]+) ± ([\d.]+)", r"\1：斜率 \2 ± \3", "network − own linearization: slope -0.56 ± 0.05"),
    (r"closed form \(linearized model\); above (\S+) from step (\d+) on, not drawn",
     r"闭式解（线性化模型）；从第 \2 步起超过 \1，未画出",
     "closed form (linearized model); above 8e+05 from step 14 on, not drawn"),
    # 08
    (r"test MSE, (.+)", r"测试 MSE，\1", "test MSE, true labels"),
]
