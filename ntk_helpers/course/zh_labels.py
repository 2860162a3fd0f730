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
    "sigma_w": "σ_w",
    "sigma_b": "σ_b",
    "dilation": "扩张",
    "stride": "步长",
    "scaling": "缩放",
    "setting": "设置",
    "learning rate": "学习率",
    "steps": "步数",

    # 00 start here

    # 01 NTK basics
    "width m": "宽度 m",

    # 02 MLP recursion
    "depth L": "深度 L",
    "ordered": "有序",
    "edge of chaos": "混沌边缘",
    "chaotic": "混沌",
    "vanishing variance": "方差消失",
    "growing variance": "方差发散",

    # 03 CNN

    # 04 ResNet
    "number of residual blocks L": "残差块数 L",
    "3e (limit of α = 1/√L)": "3e（α = 1/√L 的极限）",
    "2 (limit of α = 1/L)": "2（α = 1/L 的极限）",
    "Θ(x, x′) / Θ(x, x), 17° apart": "Θ(x, x′) / Θ(x, x)，相隔 17°",
    "MLP (no skips)": "MLP（无跳连）",
    "angle between inputs (degrees)": "输入之间的夹角（度）",
    "normalized NTK Θ(x, x′) / Θ(x, x)": "归一化 NTK Θ(x, x′) / Θ(x, x)",
    "L = 1 (one block)": "L = 1（一个残差块）",

    # 05a normalization
    "count": "计数",
    # 05b parameterization
    "RMS of the pre-activations": "预激活的 RMS",
    "standard, fixed η = 0.005": "标准参数化，固定 η = 0.005",
    "standard, η = 1/m": "标准参数化，η = 1/m",
    "relative change of h² after one step": "一步之后 h² 的相对变化",
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
    "Θ(ax, ax′) / (a² Θ(x, x′))": "Θ(ax, ax′) / (a² Θ(x, x′))",       # symbols only (ax is no word)
    "a (scale of x)": "a（x 的尺度）",
    "training time t (η = 1)": "训练时间 t（η = 1）",
    "erf, no bias": "erf，无偏置",

    # 07 training dynamics
    "angle (radians)": "角度（弧度）",
    "closed form (analytic NTK)": "闭式解（解析 NTK）",
    "training data": "训练数据",
    "largest deviation (test inputs, t ≤ 200)": "最大偏差（测试输入，t ≤ 200）",
    "network − formula (total)": "网络 − 公式（总差）",
    "network − own linearization": "网络 − 自身的线性化",
    "own linearization − formula": "自身的线性化 − 公式",
    "test MSE against the noise-free target": "相对无噪声目标的测试 MSE",
    "gradient flow, time t": "梯度流，时间 t",
    "ridge regression, ρ = n/(ηt)": "岭回归，ρ = n/(ηt)",
    "network output − ensemble mean": "网络输出 − 集成均值",
    "training inputs": "训练输入",
    "number of training angles n": "训练角度的个数 n",
    "test MSE / target variance": "测试 MSE / 目标方差",
    "1% of the variance": "方差的 1%",
    "slope −1/2 guide": "斜率 −1/2 参考线",
    "closed form (linearized model)": "闭式解（线性化模型）",
    "gradient-descent step": "梯度下降步数",
    "training loss (log scale)": "训练损失（对数坐标）",
    "ReLU, no bias": "ReLU，无偏置",          # also drawn by lesson 05a
    "erf, no bias": "erf，无偏置",
    "ReLU, no bias, 2 layers": "ReLU，无偏置，2 层",

    # 08 effective rank
    "ReLU NTK, 1 layer": "ReLU NTK，1 层",
    "ReLU NTK, 50 layers": "ReLU NTK，50 层",
    "ReLU NNGP, 50 layers": "ReLU NNGP，50 层",
    "ReLU NTK, inputs + 3": "ReLU NTK，输入 + 3",
    "true labels": "真实标签",
    "random labels": "随机标签",
}

#: (pattern, replacement, example): the pattern must match the whole label; ``\\1``... in the replacement are its
#: groups, translated. The example is a label a lesson draws (the tests check that the pattern matches it and that
#: the lessons' code can produce it, so that no template outlives its label).
TEMPLATES = [
    # 03
    (r"depth (\d+), dilation (\d+), stride (\d+): (\d+) output units?", r"深度 \1，扩张 \2，步长 \3：\4 个输出单元",
     "depth 3, dilation 1, stride 2: 8 output units"),
    # 04
    (r"(α = [^:,]+): measured", r"\1：测量值", "α = 1/√L: measured"),
    (r"(α = [^:,]+): predicted r", r"\1：预测的 r", "α = 1/√L: predicted r"),
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
