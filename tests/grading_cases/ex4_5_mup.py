"""Sample submissions of exercise 4.5 (muP table): see tests/grading_harness.py for the format.

Graded: the width exponents of every layer's effective initial variance mult^2 v and effective learning rate
mult^2 lr (each entry of the table is (mult, v, lr); a, b, c are the exponents of lesson 05b's abc form).
Reference exponents (m -> infinity, d fixed):  ntk (0,0) (-1,-1) (-1,-1);  standard (0,0) (-1,0) (-1,0);
mup (0,1) (-1,0) (-2,-1)  for the input, hidden and output layer. Tolerance: ±0.02 on each exponent, the local
slopes on the two width intervals within 0.01 of each other (m = 2^8, 2^12, 2^16 visible; 100, 1e4, 1e6 hidden).
"""

# Tensor Programs V, Table 3, as printed there: multiplier 1, the variances and learning rates carry the widths.
TABLE3_FORM = '''
import numpy as np

def param_table(parameterization, m, d):
    m, d = np.float64(m), np.float64(d)
    rows = {
        "ntk": [[1 / np.sqrt(d), 1.0, 1.0], [1 / np.sqrt(m), 1.0, 1.0], [1 / np.sqrt(m), 1.0, 1.0]],
        "standard": [[1.0, 1 / d, 1.0], [1.0, 1 / m, 1.0], [1.0, 1 / m, 1.0]],
        "mup": [[1.0, 1 / d, m], [1.0, 1 / m, 1.0], [1.0, 1 / m ** 2, 1 / m]],
    }[parameterization]
    return dict(zip(["input", "hidden", "output"], rows))
'''

# Lesson-05 form (every weight N(0, 1)), sigma_w = sqrt(2) folded into the multipliers, the input learning rate m
# instead of m*d (another constant), the standard parameterization rewritten in the same form; 0-d tensors.
DEFENSIBLE_CONSTANTS = '''
def param_table(parameterization, m, d):
    s = torch.tensor(2.0, dtype=torch.float64).sqrt()
    if parameterization == "ntk":
        a_in, a_hid, a_out, lrs = s / d ** 0.5, s / m ** 0.5, s / m ** 0.5, (1.0, 1.0, 1.0)
    elif parameterization == "standard":
        a_in, a_hid, a_out, lrs = s / d ** 0.5, s / m ** 0.5, s / m ** 0.5, (d / 2, m / 2, m / 2)
    else:
        a_in, a_hid, a_out, lrs = s / d ** 0.5, s / m ** 0.5, s / m, (m, m / 2, m / 2)
    one = torch.ones((), dtype=torch.float32)
    return {"input": (a_in, one, torch.tensor(float(lrs[0]))),
            "hidden": (a_hid, one, torch.tensor(float(lrs[1]))),
            "output": (a_out, one, torch.tensor(float(lrs[2])))}
'''

# abc-parameterization written out: W = m^-a w, w ~ N(0, m^-2b), lr = m^-c, with muP's a = (-1/2, 0, 1/2), b = 1/2,
# c = 0 (Yang & Hu 2021), NTK's a = (0, 1/2, 1/2), b = 0, c = 0, standard a = 0, b = (0, 1/2, 1/2), c = 0.
ABC_EXPONENTS = '''
import math

ABC = {
    "mup": [(-0.5, 0.5, 0.0), (0.0, 0.5, 0.0), (0.5, 0.5, 0.0)],
    "ntk": [(0.0, 0.0, 0.0), (0.5, 0.0, 0.0), (0.5, 0.0, 0.0)],
    "standard": [(0.0, 0.0, 0.0), (0.0, 0.5, 0.0), (0.0, 0.5, 0.0)],
}

def param_table(parameterization, m, d):
    table = {}
    for layer, (a, b, c) in zip(("input", "hidden", "output"), ABC[parameterization]):
        fan_in = d if layer == "input" else 1          # the input layer's 1/d is a constant: keep it anyway
        table[layer] = (m ** -a / math.sqrt(fan_in), m ** (-2 * b), m ** -c)
    return table
'''


# At the numerical edge: float32 0-d tensors, and m^2 moved from the variances and learning rates into every
# multiplier (lesson 05b's symmetry with theta = 2): the entries range from 1e12 down to 1e-30 at m = 10^6 (float32's
# smallest normal number is 1.2e-38). Measured exponent error 4.3e-8 (tolerance 0.02).
FLOAT32_SHIFTED = '''
def param_table(parameterization, m, d):
    t = lambda x: torch.tensor(x, dtype=torch.float32)
    M, D = t(m), t(d)
    if parameterization == "ntk":
        rows = [(D ** -0.5, t(1.0), t(1.0)), (M ** -0.5, t(1.0), t(1.0)), (M ** -0.5, t(1.0), t(1.0))]
    elif parameterization == "standard":
        rows = [(t(1.0), 1 / D, t(1.0)), (t(1.0), 1 / M, t(1.0)), (t(1.0), 1 / M, t(1.0))]
    else:
        rows = [(D ** -0.5, t(1.0), M * D), (M ** -0.5, t(1.0), M), (1 / M, t(1.0), M)]
    shift = M ** 2
    return {layer: (mult * shift, v / shift ** 2, lr / shift ** 2)
            for layer, (mult, v, lr) in zip(("input", "hidden", "output"), rows)}
'''

# Xavier (Glorot) initialization for "standard": v = 2 / (fan-in + fan-out). Hidden and output layers keep the
# exponent -1, but the input layer's 2 / (d + m) ~ 2/m has exponent -1 instead of 0 (and is not a power of m over
# m = 100 ... 10^6 at d = 100). Passes the visible test (muP only), fails the hidden one.
XAVIER_STANDARD = '''
import math

def param_table(parameterization, m, d):
    if parameterization == "ntk":
        return {"input": (1 / math.sqrt(d), 1.0, 1.0), "hidden": (1 / math.sqrt(m), 1.0, 1.0),
                "output": (1 / math.sqrt(m), 1.0, 1.0)}
    if parameterization == "standard":
        return {"input": (1.0, 2 / (d + m), 1.0), "hidden": (1.0, 2 / (m + m), 1.0),
                "output": (1.0, 2 / (m + 1), 1.0)}
    return {"input": (1 / math.sqrt(d), 1.0, m * d), "hidden": (1 / math.sqrt(m), 1.0, m),
            "output": (1 / m, 1.0, m)}
'''


def _lesson_form(mup_input, mup_hidden, mup_output, standard=("d", "m", "m")):
    """A table in lesson 05b's form (v = 1) with the given (multiplier, lr) strings for the muP rows."""
    return f'''
import math

def param_table(parameterization, m, d):
    if parameterization == "ntk":
        rows = [(1 / math.sqrt(d), 1.0), (1 / math.sqrt(m), 1.0), (1 / math.sqrt(m), 1.0)]
    elif parameterization == "standard":
        rows = [(1 / math.sqrt(d), {standard[0]}), (1 / math.sqrt(m), {standard[1]}), (1 / math.sqrt(m), {standard[2]})]
    else:
        rows = [{mup_input}, {mup_hidden}, {mup_output}]
    return {{layer: (a, 1.0, float(lr)) for layer, (a, lr) in zip(("input", "hidden", "output"), rows)}}
'''


MUP_IN, MUP_HID, MUP_OUT = "(1 / math.sqrt(d), m * d)", "(1 / math.sqrt(m), m)", "(1 / m, m)"

CASES = [
    dict(name="table3_form", kind="correct", cells=[TABLE3_FORM], points=4.0,
         why="the paper's form (multiplier 1, widths in the variances), numpy scalars, lists"),
    dict(name="defensible_constants", kind="correct", cells=[DEFENSIBLE_CONSTANTS], points=4.0,
         why="lesson form with sigma_w^2 = 2 and input lr m instead of m*d; 0-d float32/float64 tensors"),
    dict(name="abc_exponents", kind="correct", cells=[ABC_EXPONENTS], points=4.0,
         why="generic abc-parameterization code: W = m^-a w, var m^-2b, lr m^-c"),
    dict(name="float32_shifted_split", kind="correct", cells=[FLOAT32_SHIFTED], points=4.0,
         why="edge: float32 0-d tensors, m^2 moved into every multiplier, entries down to 1e-30 at m = 1e6"),
    dict(name="mup_output_mult_sqrt", kind="wrong", cells=[_lesson_form(MUP_IN, MUP_HID, "(1 / math.sqrt(m), m)")],
         points=0.0, why="muP output multiplier 1/sqrt(m), the NTK one (f0 does not vanish)"),
    dict(name="mup_output_lr_one", kind="wrong", cells=[_lesson_form(MUP_IN, MUP_HID, "(1 / m, 1.0)")],
         points=0.0, why="muP output lr 1 instead of m: the output layer stops learning as m grows"),
    dict(name="mup_as_seed_text", kind="wrong",
         cells=[_lesson_form("(1 / math.sqrt(d), 1.0)", "(1 / math.sqrt(m), 1.0)", "(1 / math.sqrt(m), 1.0)")],
         points=0.0, why="'muP scales every layer by 1/sqrt(m)' = the NTK parameterization again"),
    dict(name="mup_hidden_lr_one", kind="wrong", cells=[_lesson_form(MUP_IN, "(1 / math.sqrt(m), 1.0)", MUP_OUT)],
         points=0.0, why="muP hidden lr 1 in the v = 1 form: effective lr 1/m, hidden features freeze"),
    dict(name="standard_not_converted", kind="wrong",
         cells=[_lesson_form(MUP_IN, MUP_HID, MUP_OUT, standard=("1.0", "1.0", "1.0"))],
         points=1.0, why="standard written in the v = 1 form without moving fan-in into the learning rate (= NTK)"),
    dict(name="xavier_standard", kind="wrong", cells=[XAVIER_STANDARD], points=1.0,
         why="standard with Xavier's 2/(fan-in + fan-out): input variance ~2/m, not 1/d (passes the visible test)"),
    dict(name="always_mup", kind="gaming",
         cells=[_lesson_form(MUP_IN, MUP_HID, MUP_OUT).replace('if parameterization == "ntk"', "if False")
                .replace('elif parameterization == "standard"', "elif False")],
         points=1.0, why="returns the muP table whatever parameterization is asked (passes the visible test)"),
]
