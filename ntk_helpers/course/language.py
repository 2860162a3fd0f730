"""The lesson's language: English, or Chinese for the lessons in ``notebooks/zh/``.

A Chinese lesson runs exactly the code of its English twin, so the code cannot say which language it speaks.
:func:`lesson_language` decides from where the lesson runs; :func:`use_language` (called by ``import
ntk_helpers``) then sets up the lesson's language:

- ``lesson_language()``: the environment variable ``NTK_LESSON_LANGUAGE`` ("en" or "zh") if it is set, else
  "zh" when the current folder is named ``zh`` (Jupyter, Voilà and nbval start a notebook's kernel in the
  notebook's folder), else "en".
- ``use_language("zh")``: text marked the gettext way (``nh._("...")``: printed lines, plot titles, axis and
  legend labels, slider names, dropdown option labels) comes from the catalog (``messages``), and the CJK font
  of the pip package ``mplfonts`` (Noto Sans CJK SC) is registered with matplotlib, first in ``font.family``
  (DejaVu Sans after it draws what it lacks). ``use_language("en")`` changes nothing (it undoes an earlier "zh").

No text is translated behind the lesson's back: there is no label dictionary and no translating hook. To find a
label someone forgot to mark, a Chinese run with the environment variable ``NTK_LABELS_REPORT`` set (the Chinese
build, ``tools/build_zh.py``, and the tests) *watches* the two places every label passes, matplotlib's
``Text.set_text`` and the ipywidgets label traits (a control's ``description``, the option labels of dropdowns
and selection sliders): that is the one thing a marked string cannot do. A text that holds an English word
(outside ``$...$``, not a name in :data:`KEEP`) is drawn as it is and recorded in :func:`untranslated` and, one
JSON record a line, in that file; the build fails on it, naming the label.
"""

from __future__ import annotations

import dataclasses
import importlib.util
import json
import os
import re
import warnings
from pathlib import Path

VARIABLE = "NTK_LESSON_LANGUAGE"
REPORT_VARIABLE = "NTK_LABELS_REPORT"
LANGUAGES = ("en", "zh")
FONT_PACKAGE = "mplfonts"
FONT_FILE = "NotoSansCJKsc-Regular.otf"
FONT_NAME = "Noto Sans CJK SC"

#: Names that stay as they are in Chinese: activations by their code names (dropdown options, titles), acronyms
#: and names the Chinese lessons keep, functions written without ``$...$``.
KEEP = frozenset({
    "relu", "leaky_relu", "erf", "gelu", "tanh", "identity", "ReLU",
    "NTK", "NNGP", "MLP", "CNN", "GAP", "ResNet", "MSE", "RMS", "SGD", "flatten",
    "log", "exp", "cos", "Var",
})

_state = {"active": "en", "requested": "en", "watching": False, "font": None, "saved_rc": None, "warned": False}
_untranslated: set[str] = set()

_MATH = re.compile(r"(?<!\\)\$.*?(?<!\\)\$", re.S)
#: A name: Latin letters and underscores, not a subscript (the ``eff`` of ``r_eff``) and not a TeX command.
_NAME = re.compile(r"(?<![_\\A-Za-z])[A-Za-z][A-Za-z_]*")
_CJK = re.compile(r"[\u3000-\u303f\u4e00-\u9fff\uff00-\uffef]")


def lesson_language() -> str:
    """ "zh" or "en": ``NTK_LESSON_LANGUAGE`` when set (an empty value counts as unset), else "zh" in a folder
    named ``zh``, else "en"."""
    value = os.environ.get(VARIABLE, "")
    if value:
        if value not in LANGUAGES:
            raise ValueError(f"the environment variable {VARIABLE} is {value!r}; allowed values: "
                             f"{', '.join(map(repr, LANGUAGES))} (or unset: the language then follows the folder)")
        return value
    try:
        folder = Path.cwd().name
    except OSError:             # the working folder was deleted
        return "en"
    return "zh" if folder == "zh" else "en"


def english_words(text: str) -> list[str]:
    """The English words of ``text`` outside ``$...$``: names that start with two or more letters (a symbol
    such as ``x``, ``r_eff`` or ``T_s`` is no word) and are not kept in every language (:data:`KEEP`:
    NTK, ReLU, tanh, log, ...)."""
    return [name for name in _NAME.findall(_MATH.sub(" ", text))
            if len(name.split("_")[0]) >= 2 and name not in KEEP]


def watch(text):
    """``text`` unchanged; in a watched Chinese run (see the module docstring) a text that holds an English word
    and no Chinese is recorded first. Anything that is not a string passes unchanged."""
    if _state["active"] == "zh" and isinstance(text, str) and text and not _CJK.search(text) \
            and english_words(text):
        record_untranslated(text)
    return text


def active_language() -> str:
    """The language asked for by the last :func:`use_language` ("en" until then): printed text
    (``messages.gettext``) follows it even where no CJK font is installed for the plots."""
    return _state["requested"]


def record_untranslated(text: str) -> None:
    """Note a text shown in English in Chinese mode (see :func:`untranslated`)."""
    if text not in _untranslated:
        _untranslated.add(text)
        _report({"untranslated": text})


def untranslated() -> set[str]:
    """Every text drawn in Chinese mode so far that still holds an English word (a copy)."""
    return set(_untranslated)


def _report(record: dict) -> None:
    path = os.environ.get(REPORT_VARIABLE)
    if path:
        with open(path, "a", encoding="utf-8") as file:
            file.write(json.dumps(record, ensure_ascii=False) + "\n")


def font_path() -> Path | None:
    """The CJK font file shipped by ``mplfonts``, found without importing the package (its own setup code
    would change matplotlib's configuration); None when the package is not installed."""
    spec = importlib.util.find_spec(FONT_PACKAGE)
    for folder in (spec.submodule_search_locations or []) if spec else []:
        path = Path(folder) / "fonts" / FONT_FILE
        if path.is_file():
            return path
    return None


def use_language(language: str) -> None:
    """Make plots and sliders speak ``language`` ("en" or "zh"); calling it again is harmless.

    "zh" without the package ``mplfonts`` warns once and keeps English labels (no font would render them)."""
    if language not in LANGUAGES:
        raise ValueError(f"language {language!r}: allowed values are {', '.join(map(repr, LANGUAGES))}")
    _state["requested"] = language
    if language == "en":
        if _state["active"] == "zh":
            import matplotlib as mpl

            mpl.rcParams.update(_state["saved_rc"])
            _state["active"] = "en"
        return
    if _state["active"] == "zh":
        return
    path = font_path()
    if path is None:
        if not _state["warned"]:
            _state["warned"] = True
            warnings.warn(f"Chinese plot labels need the font package {FONT_PACKAGE} (`pip install {FONT_PACKAGE}`, "
                          "or `make setup`, which installs it); plots and sliders stay in English.", stacklevel=2)
        return
    _use_font(path)
    if os.environ.get(REPORT_VARIABLE):
        _watch_labels()
    _state["active"] = "zh"
    _report({"language": "zh", "font": str(path)})


def _use_font(path: Path) -> None:
    import matplotlib as mpl
    from matplotlib import font_manager

    if _state["font"] is None:
        manager = font_manager.fontManager
        manager.addfont(str(path))
        # mplfonts ships the regular weight only: let bold text use it too (its Chinese characters are then
        # drawn regular) instead of matplotlib logging "Failed to find font weight bold" into the lesson
        regular = [entry for entry in manager.ttflist if entry.fname == str(path)]
        manager.ttflist.extend(dataclasses.replace(entry, weight=weight)
                               for entry in regular for weight in (600, 700))
        manager._findfont_cached.cache_clear()
        _state["font"] = str(path)
    _state["saved_rc"] = {"font.family": list(mpl.rcParams["font.family"])}
    # The CJK font first in ``font.family`` and the usual families after it: matplotlib draws each character with
    # the first font of that list that has it, so the subscripts and superscripts the CJK font lacks (χ₁, z⁽²⁾ᵢ)
    # come from DejaVu Sans. (In ``font.sans-serif`` there would be no such fallback: a generic family stands
    # for one font.) First, not last, because a label with mathematics (``$...$``) is set by mathtext, which
    # draws the text around the formula with the first font only: Chinese there needs the CJK font first.
    family = [name for name in mpl.rcParams["font.family"] if name != FONT_NAME]
    mpl.rcParams["font.family"] = [FONT_NAME, *family]


def _watch_labels() -> None:
    """Pass every label through :func:`watch` at the two places it passes: matplotlib's ``Text.set_text`` and
    ipywidgets' label traits. Nothing is changed; installed once per process."""
    if _state["watching"]:
        return
    _state["watching"] = True
    from matplotlib.text import Text

    original_set_text = Text.set_text

    def set_text(self, s):
        return original_set_text(self, watch(s))

    set_text.__doc__ = original_set_text.__doc__
    set_text.__wrapped__ = original_set_text
    Text.set_text = set_text

    if importlib.util.find_spec("ipywidgets") is None:
        return
    from ipywidgets.widgets import widget_button, widget_description, widget_selection

    for owner in (widget_description.DescriptionWidget, widget_button.Button):
        trait = owner.class_traits()["description"]
        original_validate = trait.validate
        trait.validate = lambda obj, value, _validate=original_validate: watch(_validate(obj, value))

    original_make_options = widget_selection._make_options

    def make_options(options):
        """The (label, value) pairs as ipywidgets makes them, each label watched."""
        pairs = original_make_options(options)
        for label, _value in pairs:
            watch(label)
        return pairs

    widget_selection._make_options = make_options
