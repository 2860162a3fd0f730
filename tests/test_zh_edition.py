"""The Chinese edition (notebooks/zh/): the same lessons, code identical cell by cell, markdown translated, plots
and sliders in Chinese.

Each Chinese notebook is executed on its own (tools/build_zh.py) in notebooks/zh, where ntk_helpers draws its
plots and sliders in Chinese (ntk_helpers/course/language.py). The code is the English lesson's, so every printed
number must be the English notebook's: these tests compare them, so nbval needs to run the code only once."""

import ast
import configparser
import functools
import json
import os
import re
import subprocess
import sys
import tomllib
import warnings
from io import BytesIO
from pathlib import Path

import jupytext
import matplotlib
import nbformat
import pytest

matplotlib.use("Agg")

from matplotlib.figure import Figure  # noqa: E402

import ntk_helpers as nh  # noqa: E402
from conftest import load_tool  # noqa: E402
from ntk_helpers.course import language  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
ENGLISH = sorted((ROOT / "notebooks").glob("[0-9][0-9]*_*.py"))
CHINESE = sorted((ROOT / "notebooks" / "zh").glob("[0-9][0-9]*_*.py"))
CJK = re.compile(r"[\u4e00-\u9fff]")
CHINESE_TEXT = re.compile(r"[\u3000-\u303f\u4e00-\u9fff\uff00-\uffef]")   # characters or full-width punctuation


def test_every_lesson_has_a_chinese_edition():
    assert [p.name for p in CHINESE] == [p.name for p in ENGLISH]


@pytest.mark.parametrize("source", CHINESE, ids=lambda p: p.stem)
def test_code_cells_are_the_english_lessons_cell_by_cell(source):
    builder = load_tool("build_zh")
    problems = builder.differences(jupytext.read(source), jupytext.read(ROOT / "notebooks" / source.name))
    assert not problems, f"{source.name}: {problems}"


# ------------------------------------------------------------- one source: catalogs, generated Chinese sources

catalogs = load_tool("zh_catalog")


def test_every_english_text_has_a_current_chinese_translation():
    """Every markdown cell of every English lesson has a non-fuzzy entry in notebooks/locale/zh/NN_name.po, and every
    paragraph of ERRATA.md one in notebooks/locale/zh/ERRATA.po."""
    gaps = [problem for name in catalogs.catalogs() for problem in catalogs.problems(name)]
    assert not gaps, "English text without a current translation (make zh-catalog, translate, clear fuzzy):\n" + \
        "\n".join(gaps)


def test_the_chinese_sources_are_generated_from_the_english_lessons_and_catalogs():
    """No hand-kept copy: each notebooks/zh/NN_name.py is exactly what tools/zh_catalog.py generates."""
    stale = catalogs.stale_sources()
    assert not stale, "\n".join(stale)


TERMS = tomllib.loads((ROOT / "notebooks" / "locale" / "zh" / "terms.toml").read_text(encoding="utf-8"))["term"]


@functools.lru_cache(maxsize=1)
def chinese_texts() -> dict[str, str]:
    """Every text a Chinese reader reads that the course writes: the catalogs' translations (lessons, errata), the
    plot and slider labels, the exercises (their Chinese halves; the English halves hold no Chinese) and the
    README's Chinese section."""
    texts = {f"notebooks/locale/zh/{name}.po": "\n".join(m.string for m in catalogs.read_catalog(name) if m.id)
             for name in catalogs.catalogs()}
    for path in sorted((ROOT / "solutions" / "chapter4").glob("ex*.py")):
        texts[path.relative_to(ROOT).as_posix()] = path.read_text(encoding="utf-8")
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    texts["README.md (中文版)"] = readme.split("\n## 中文版", 1)[1].split("\n## ", 1)[0]
    return texts


def test_the_term_list_is_well_formed():
    for term in TERMS:
        assert term["term"] and term["english"] and term["avoid"], f"incomplete entry: {term}"
        for variant in term["avoid"]:
            re.compile(variant)
            assert not re.search(variant, term["term"]), f"{term['term']!r} matches its own rejected variant {variant!r}"


@pytest.mark.parametrize("where", sorted(chinese_texts()))
def test_one_word_per_concept(where):
    """notebooks/locale/zh/terms.toml: each concept in the one word of the list; no variant anywhere."""
    text = chinese_texts()[where]
    found = [f"{term['term']} ({term['english']}), not {hit.group(0)!r}: …{text[max(0, hit.start() - 15):hit.end() + 15]}…"
             for term in TERMS for variant in term["avoid"] for hit in re.finditer(variant, text)]
    assert not found, f"{where}: variants the term list rejects:\n" + "\n".join(found[:20])


def test_chinese_links_to_the_errata_name_entries_that_exist():
    """Chinese lessons link the Chinese errata page (same anchors); its own links resolve on it."""
    page = ROOT / "ERRATA.zh.md"
    assert page.exists(), "ERRATA.zh.md missing: `python tools/zh_catalog.py generate ERRATA`"
    text = page.read_text(encoding="utf-8")
    anchors = set(re.findall(r'<a id="([A-Za-z0-9-]+)"></a>', text))
    english = set(re.findall(r'<a id="([A-Za-z0-9-]+)"></a>', (ROOT / "ERRATA.md").read_text(encoding="utf-8")))
    assert english <= anchors, f"ERRATA.zh.md lacks entries of ERRATA.md: {sorted(english - anchors)[:5]}"
    links = {(path.name, anchor) for path in CHINESE
             for anchor in re.findall(r"ERRATA\.zh\.md#([A-Za-z0-9-]+)", path.read_text(encoding="utf-8"))}
    links |= {("ERRATA.zh.md", anchor) for anchor in re.findall(r"\]\(#([A-Za-z0-9-]+)\)", text)}
    broken = sorted(link for link in links if link[1] not in anchors)
    assert not broken, f"links to missing anchors of ERRATA.zh.md: {broken}"
    english_links = [path.name for path in CHINESE if re.search(r"ERRATA\.md#", path.read_text(encoding="utf-8"))]
    assert not english_links, f"Chinese lessons linking the English errata instead of ERRATA.zh.md: {english_links}"


def _scratch_course(tmp_path, name):
    """A copy of one lesson, its Chinese source and its catalog, laid out as in the course."""
    root = tmp_path / "course"
    for relative in (f"notebooks/{name}.py", f"notebooks/zh/{name}.py", f"notebooks/locale/zh/{name}.po"):
        (root / relative).parent.mkdir(parents=True, exist_ok=True)
        (root / relative).write_bytes((ROOT / relative).read_bytes())
    return root


def test_an_edited_english_sentence_fails_the_chinese_build_naming_it_until_translated_again(tmp_path):
    name = "04_resnet"
    root = _scratch_course(tmp_path, name)
    assert catalogs.problems(name, root) == [], "the scratch copy should start fully translated"
    english = root / "notebooks" / f"{name}.py"
    old = "- why $L$ blocks of branch scale"
    new = "- why the $O(\\sqrt L)$ estimate fails: $L$ blocks of branch scale"
    text = english.read_text(encoding="utf-8")
    assert text.count(old) == 1, f"the sentence to edit should occur once in {name}.py, found {text.count(old)}"
    english.write_text(text.replace(old, new), encoding="utf-8")

    # before `make zh-catalog`: the edited cell has no entry at all
    gaps = catalogs.problems(name, root)
    assert len(gaps) == 1 and "untranslated" in gaps[0] and "estimate fails" in gaps[0], \
        f"expected one untranslated entry naming the edited sentence, got {gaps}"
    # after it: the old translation stays, marked fuzzy; the check names the changed sentence
    catalogs.update(name, root)
    gaps = catalogs.problems(name, root)
    assert len(gaps) == 1 and "fuzzy" in gaps[0] and "estimate fails" in gaps[0], \
        f"expected one fuzzy entry naming the changed sentence, got {gaps}"
    with pytest.raises(SystemExit, match="estimate fails"):
        load_tool("build_zh").generate(root / "notebooks" / "zh" / f"{name}.py", root)
    chinese = (root / "notebooks" / "zh" / f"{name}.py").read_text(encoding="utf-8")
    assert chinese == (ROOT / "notebooks" / "zh" / f"{name}.py").read_text(encoding="utf-8"), \
        "a failed generation must leave the Chinese source as it was"

    # translated again (a translator's edit: the new text, fuzzy cleared): generation works and carries it
    catalog = catalogs.read_catalog(name, root)
    message = next(m for m in catalog if m.id and "estimate fails" in m.id)
    assert message.fuzzy and "第 4.3 节" in message.string, "the fuzzy entry should hold the old translation"
    message.string = message.string + "\n（已修订）"
    message.flags.discard("fuzzy")
    catalogs.write_catalog(catalog, name, root)
    assert catalogs.problems(name, root) == [], "after the translation is updated nothing should be missing"
    assert "（已修订）" in catalogs.generate_source(name, root), "the new translation should reach the lesson"


def read_sanitizers(path: Path) -> list:
    """nbval's sanitizers (timings, memory addresses): what may differ between two runs of the same code."""
    config = configparser.ConfigParser(interpolation=None)
    config.read(path, encoding="utf-8")
    return [(re.compile(config[name]["regex"]), config[name]["replace"]) for name in config.sections()]


SANITIZE = read_sanitizers(ROOT / "tests" / "nbval_sanitize.cfg")


def text_outputs(cell) -> dict:
    """What a cell printed (stdout, stderr, each as one text) or returned as text/plain, and its errors, with
    nbval's sanitizers applied (a run's timings may differ; its numbers may not)."""
    found = {"stdout": "", "stderr": "", "text/plain": [], "errors": []}
    for output in cell.get("outputs", []):
        if output.output_type == "stream":
            found[output.name] += output.text
        elif output.output_type == "error":
            found["errors"].append(output.ename)
        elif "text/plain" in output.get("data", {}):
            found["text/plain"].append(output.data["text/plain"])
    for pattern, replacement in SANITIZE:
        found = {key: pattern.sub(replacement, value) if isinstance(value, str)
                 else [pattern.sub(replacement, item) for item in value] for key, value in found.items()}
    return found


#: A number as printed: sign, digits, decimals, exponent (the "2" of a "χ²" or a "4.1.1" counts, in both texts alike).
#: A sign counts only where no letter or digit precedes it ("depth-2" holds the number 2, not -2).
NUMBER = re.compile(r"(?:(?<![\w.])[-+])?\d+(?:\.\d+)?(?:e[-+]?\d+)?")


def printed_numbers(cell) -> list[str]:
    """Every number a cell printed or returned as text, sorted: a translated sentence may put them in another
    order, but it must print the same numbers (the words around them are the translation's)."""
    found = text_outputs(cell)
    texts = [found["stdout"], found["stderr"], *found["text/plain"]]
    return sorted(NUMBER.findall("\n".join(texts).replace("−", "-")))


def english_widget_labels(nb) -> list[str]:
    """Slider, dropdown and option labels with English words in a notebook's saved widget state."""
    state = nb.metadata.get("widgets", {}).get("application/vnd.jupyter.widget-state+json", {}).get("state", {})
    labels = [model["state"].get("description", "") for model in state.values()]
    labels += [label for model in state.values() for label in model["state"].get("_options_labels", [])]
    return [label for label in labels if language.english_words(label)]


def has_image(cell) -> bool:
    return any("image/png" in output.get("data", {}) for output in cell.get("outputs", []))


@pytest.mark.parametrize("source", CHINESE, ids=lambda p: p.stem)
def test_the_chinese_notebook_ran_the_same_code_to_the_same_results(source):
    """Built in Chinese from the Chinese source; every text output the English notebook's (except cells whose
    output may vary: widgets and timing, tagged nbval-ignore-output); a picture wherever English has one."""
    rebuild = f"rebuild with `python tools/build_zh.py {source.relative_to(ROOT)}`"
    zh = nbformat.read(source.with_suffix(".ipynb"), as_version=4)
    en = nbformat.read((ROOT / "notebooks" / source.name).with_suffix(".ipynb"), as_version=4)
    text = jupytext.read(source)
    assert zh.metadata.get("language") == "zh", f"{source.stem}: not built by tools/build_zh.py; {rebuild}"
    assert len(zh.cells) == len(en.cells) == len(text.cells), f"{source.stem}: {rebuild}"
    for index, (a, b, t) in enumerate(zip(zh.cells, en.cells, text.cells)):
        where = f"{source.stem} cell {index}"
        if a.cell_type != "code":
            assert a.source == t.source, f"{where}: the markdown is not the Chinese source's; {rebuild}"
            continue
        assert a.source == b.source, f"{where}: the code is not the English lesson's; {rebuild}"
        assert not any(o.output_type == "error" for o in a.outputs), f"{where} raised an error"
        if "nbval-ignore-output" not in a.metadata.get("tags", []):
            assert printed_numbers(a) == printed_numbers(b), \
                f"{where}: the numbers printed differ from the English notebook's: {text_outputs(a)}"
            assert text_outputs(a)["errors"] == text_outputs(b)["errors"], f"{where}: errors differ"
        assert has_image(a) or not has_image(b), f"{where}: the English notebook shows a plot here, this one not"
    assert bool(zh.metadata.get("widgets")) == bool(en.metadata.get("widgets")), f"{source.stem}: widget state"
    assert not english_widget_labels(zh), f"{source.stem}: sliders in English {english_widget_labels(zh)}; {rebuild}"


#: At most this share of the lines the Chinese lessons print may be English prose (issue 19: it was 73 of 206, 35 %).
MAX_ENGLISH_SHARE = 0.03
_ENGLISH_WORD = re.compile(r"(?<![\w\\])[A-Za-z]{2,}(?![\w(])")        # a word, not a name's part or a call
#: Words a Chinese line keeps: code names of activations and acronyms (language.KEEP), authors, "et al.".
_KEPT_WORDS = {w.lower() for w in language.KEEP} | {"et", "al", "gelu", "mup"}


def english_prose(line: str) -> bool:
    """Three or more English words (mathematics, `code` and kept names aside) and fewer Chinese characters than
    English words: a sentence left in English, not a Chinese sentence that names a function or an author."""
    text = re.sub(r"`[^`]*`", "", re.sub(r"(?<!\\)\$.*?(?<!\\)\$", "", line))
    words = [w for w in _ENGLISH_WORD.findall(text) if w.lower() not in _KEPT_WORDS]
    return len(words) >= 3 and len(CHINESE_TEXT.findall(text)) < len(words)


def test_english_prose_detector():
    assert english_prose("the kernel at depth 3 is 0.412"), "an English sentence is English prose"
    assert not english_prose("✓ 深度 3 处的核为 0.412（预期 0.41 ± 0.01）"), "a Chinese line is not"
    assert not english_prose("ReLU 与 erf：Lee et al. 2019 的结论"), "a Chinese line naming authors is not"
    assert not english_prose("$\\Theta(x, x) = q_0 2^L$"), "mathematics is not"


def test_a_chinese_reader_meets_almost_no_english_prose_in_printed_output():
    """Every line a Chinese lesson prints (explanations, one-line checks, messages), counted over all lessons."""
    lines = [(source.stem, line) for source in CHINESE
             for cell in nbformat.read(source.with_suffix(".ipynb"), as_version=4).cells
             for output in cell.get("outputs", []) if output.get("output_type") == "stream"
             for line in "".join(output.get("text", "")).splitlines() if line.strip()]
    english = [f"{stem}: {line[:100]}" for stem, line in lines if english_prose(line)]
    assert lines, "the Chinese lessons print nothing: build them (tools/build_zh.py)"
    assert len(english) <= MAX_ENGLISH_SHARE * len(lines), \
        f"{len(english)} of {len(lines)} printed lines are English prose ({len(english) / len(lines):.1%}); " \
        f"expected at most {MAX_ENGLISH_SHARE:.0%}: mark them nh._() and translate them:\n" + "\n".join(english)


@pytest.mark.parametrize("source", CHINESE, ids=lambda p: p.stem)
def test_the_chinese_slideshow_has_the_english_slides(source):
    """RISE reads each cell's slide type: the same slides, steps and skipped cells in both editions."""
    slides = lambda nb: [cell.metadata.get("slideshow", {}).get("slide_type", "-") for cell in nb.cells]
    zh = nbformat.read(source.with_suffix(".ipynb"), as_version=4)
    en = nbformat.read((ROOT / "notebooks" / source.name).with_suffix(".ipynb"), as_version=4)
    assert slides(zh) == slides(en), f"{source.stem}: slide types differ from the English lesson's"
    assert "slide" in slides(zh), f"{source.stem}: no slides at all"


def test_the_widget_check_finds_english_sliders():
    """The check above can fail: the English lesson's saved sliders are found."""
    english = nbformat.read(ROOT / "notebooks" / "02_mlp_recursion.ipynb", as_version=4)
    assert {"depth", "activation", "sigma_b"} <= set(english_widget_labels(english))


@pytest.mark.parametrize("source", CHINESE, ids=lambda p: p.stem)
def test_markdown_is_translated_and_its_links_resolve(source):
    nb = jupytext.read(source)
    for index, cell in enumerate(nb.cells):
        if cell.cell_type != "markdown":
            continue
        prose = re.sub(r"\$[^$]*\$|`[^`]*`|\([^)]*\)", "", cell.source)
        if len(prose.strip()) > 40:
            assert CJK.search(prose), f"{source.stem} cell {index} is not translated: {cell.source[:80]!r}"
        for target in re.findall(r"\]\(([^)\s]+)\)", cell.source):
            if re.match(r"^[a-z]+:", target) or target.startswith("#"):
                continue
            path, _, anchor = target.partition("#")
            file = (source.parent / path).resolve()
            assert file.exists(), f"{source.stem} cell {index}: link to {target}, which does not exist"
            if anchor and file.name == "ERRATA.md":
                assert f'id="{anchor}"' in file.read_text(encoding="utf-8"), f"ERRATA.md has no anchor {anchor}"


def formulas(text: str) -> set[str]:
    """Display formulas $$...$$, then inline ones $...$ in what is left; words inside ``\text{...}`` are prose, which
    a translation translates (``\text{学习率}``), so they are left out of the comparison."""
    display = re.findall(r"\$\$.+?\$\$", text, re.S)
    rest = re.sub(r"\$\$.+?\$\$", " ", text, flags=re.S)
    found = set(display) | set(re.findall(r"\$[^$]+\$", rest))
    return {re.sub(r"\\text\{[^{}]*\}", r"\\text{}", formula) for formula in found}


@pytest.mark.parametrize("source", CHINESE, ids=lambda p: p.stem)
def test_section_numbers_and_formulas_are_kept(source):
    """Readers of the textbook follow its section numbers; formulas are not translated."""
    en, zh = jupytext.read(ROOT / "notebooks" / source.name), jupytext.read(source)
    for index, (a, b) in enumerate(zip(en.cells, zh.cells)):
        if a.cell_type != "markdown":
            continue
        sections = lambda text: re.findall(r"^#+ .*?(\d+\.\d+(?:\.\d+)?)", text, re.M)
        assert sections(a.source) == sections(b.source), f"{source.stem} cell {index}: section numbers differ"
        missing = formulas(a.source) - formulas(b.source)
        assert not missing, f"{source.stem} cell {index}: formulas missing from the translation: {sorted(missing)[:3]}"


# --- the lesson's language: chosen by the variable, then by the folder ------------------------------------------

def test_lesson_language_follows_the_variable_then_the_folder(monkeypatch, tmp_path):
    (tmp_path / "zh").mkdir()
    monkeypatch.delenv("NTK_LESSON_LANGUAGE", raising=False)
    monkeypatch.chdir(tmp_path / "zh")
    assert language.lesson_language() == "zh"
    monkeypatch.setenv("NTK_LESSON_LANGUAGE", "en")
    assert language.lesson_language() == "en"
    monkeypatch.chdir(tmp_path)
    assert language.lesson_language() == "en"
    monkeypatch.setenv("NTK_LESSON_LANGUAGE", "zh")
    assert language.lesson_language() == "zh"
    monkeypatch.setenv("NTK_LESSON_LANGUAGE", "")                 # empty: as if unset
    assert language.lesson_language() == "en"


def test_a_bad_language_variable_is_an_error_that_names_it(monkeypatch):
    monkeypatch.setenv("NTK_LESSON_LANGUAGE", "chinese")
    with pytest.raises(ValueError, match=r"NTK_LESSON_LANGUAGE.*'en', 'zh'"):
        language.lesson_language()


@pytest.fixture
def chinese(monkeypatch, tmp_path):
    """Chinese mode for one test, watched as the Chinese build watches it (``NTK_LABELS_REPORT`` set), English
    again afterwards."""
    monkeypatch.setenv(language.REPORT_VARIABLE, str(tmp_path / "labels.jsonl"))
    language.use_language("zh")
    yield language
    language.use_language("en")


def title_of(label: str) -> str:
    ax = Figure().subplots()
    ax.set_title(label)
    return ax.get_title()


def catalog_entry(english: str) -> str:
    """The code catalog's Chinese for ``english`` (so that a test does not write a translation of its own)."""
    from ntk_helpers.course import messages

    translation = messages.read_catalog(messages.CATALOG).get(english)
    assert translation, f"{english!r} has no translation in {messages.CATALOG.name}"
    return translation


def test_a_marked_label_is_drawn_from_the_catalog_in_every_kind_of_text(chinese):
    """Titles, axis and colorbar labels, legend entries, annotations and figure titles show what ``nh._`` gives."""
    fig = Figure()
    ax = fig.subplots()
    ax.plot([0, 1], [0, 1], label=nh._("training loss"))
    ax.set_title(nh._("kernel entries"))
    ax.set_xlabel(nh._("depth L"))
    legend = ax.legend()
    image = ax.imshow([[0, 1], [1, 0]])
    colorbar = fig.colorbar(image, ax=ax, label=nh._("width m"))
    annotation = ax.annotate(nh._("no change"), (0, 0))
    fig.suptitle(nh._("depth"))
    assert (ax.get_title(), ax.get_xlabel()) == (catalog_entry("kernel entries"), catalog_entry("depth L"))
    assert [t.get_text() for t in legend.get_texts()] == [catalog_entry("training loss")]
    assert colorbar.ax.get_ylabel() == catalog_entry("width m")
    assert annotation.get_text() == catalog_entry("no change")
    assert fig.get_suptitle() == catalog_entry("depth")
    assert not chinese.untranslated() & {"training loss", "kernel entries", "depth L", "width m", "no change"}


def test_nothing_translates_a_label_behind_the_lessons_back(chinese):
    """No dictionary: an unmarked English label is drawn as the code wrote it (and recorded, next test)."""
    for label in ["training loss", "depth L", "kernel entries"]:
        assert title_of(label) == label, f"{label!r} was changed to {title_of(label)!r}"
    assert not (ROOT / "ntk_helpers" / "course" / "zh_labels.py").exists(), "the label dictionary is back"


def test_mathematics_numbers_and_kept_names_are_not_recorded(chinese):
    labels = [r"$\Theta(x, x')$, $L = 3$", "0.25", "−1.5", r"$\mathdefault{10^{2}}$", "σ_w² = 2", "relu",
              "NTK  Θ(x,x′)/Θ(x,x)", "r_eff, n = 50", "tanh: log χ₁", r"矩阵元 $\Theta(x_i,x_j)$"]
    for label in labels:
        assert title_of(label) == label
    assert not chinese.untranslated() & set(labels), sorted(chinese.untranslated() & set(labels))


def test_an_english_label_without_translation_is_drawn_as_it_is_and_recorded(chinese, tmp_path):
    label = "a caption nobody translated ($x^2$, 3 layers)"
    assert title_of(label) == label
    assert label in chinese.untranslated()
    records = [json.loads(line) for line in (tmp_path / "labels.jsonl").read_text(encoding="utf-8").splitlines()]
    assert {"untranslated": label} in records
    assert load_tool("build_zh").read_report(tmp_path / "labels.jsonl") == (True, [label])


def test_sliders_and_dropdowns_are_labelled_in_chinese_and_keep_their_values(chinese):
    import ipywidgets

    assert nh.widgets.depth_slider().description == catalog_entry("depth")
    assert nh.widgets.sigma_slider("σ_b", 0.5).description == "σ_b"
    options = [(nh._("training loss"), "loss"), (nh._("kernel entries"), "entries")]
    menu = nh.widgets.dropdown(nh._("width m"), "entries", options=options)
    assert (menu.description, menu.value, menu.label) == (catalog_entry("width m"), "entries",
                                                          catalog_entry("kernel entries"))
    assert menu.options == tuple(options), "the lesson's (label, value) pairs are unchanged"
    box = ipywidgets.interactive(lambda steps: None, steps=(1, 5))           # a description nobody marked
    assert box.children[0].description == "steps"
    assert "steps" in chinese.untranslated(), "an unmarked slider name is recorded like an unmarked plot label"


def test_english_changes_nothing(chinese):
    chinese.use_language("en")
    assert title_of(nh._("depth L")) == "depth L"
    assert nh.widgets.depth_slider().description == "depth"
    assert language.FONT_NAME not in matplotlib.rcParams["font.family"]
    chinese.use_language("en")                                               # idempotent
    assert title_of("test MSE") == "test MSE"


def test_english_lessons_import_no_plotting_and_patch_nothing():
    """In English (outside notebooks/zh), `import ntk_helpers` stays cheap: no matplotlib, no hook."""
    code = ("import sys, ntk_helpers; assert 'matplotlib' not in sys.modules, 'matplotlib imported'; "
            "from matplotlib.text import Text; assert not hasattr(Text.set_text, '__wrapped__'); print('ok')")
    env = {k: v for k, v in os.environ.items() if k != "NTK_LESSON_LANGUAGE"} | {"OMP_NUM_THREADS": "1"}
    result = subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True, text=True)
    assert result.stdout.strip() == "ok", result.stderr[-2000:]


def test_a_learners_chinese_kernel_patches_nothing_and_a_watched_one_only_watches():
    """A Chinese lesson opened by a learner (no report file) leaves matplotlib and ipywidgets as they are; the
    build's watched run wraps Text.set_text, and the wrapper changes no text."""
    code = ("import ntk_helpers, matplotlib; from matplotlib.text import Text; from matplotlib.figure import Figure; "
            "ax = Figure().subplots(); ax.set_title('training loss'); "
            "print(hasattr(Text.set_text, '__wrapped__'), ax.get_title())")
    env = {k: v for k, v in os.environ.items() if k != language.REPORT_VARIABLE}
    env |= {"NTK_LESSON_LANGUAGE": "zh", "OMP_NUM_THREADS": "1", "MPLBACKEND": "Agg"}
    plain = subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True, text=True)
    assert plain.stdout.strip() == "False training loss", plain.stderr[-2000:]
    watched = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True,
                             env=env | {language.REPORT_VARIABLE: os.devnull})
    assert watched.stdout.strip() == "True training loss", watched.stderr[-2000:]


def draw(label: str) -> None:
    fig = Figure()
    ax = fig.subplots()
    ax.plot([-1, 1], [-1, 1], label="χ₁, z⁽²⁾ᵢ(x′)")
    ax.set_title(label)
    ax.legend()
    fig.savefig(BytesIO(), format="png")


def test_chinese_labels_render_without_missing_glyphs(chinese):
    with warnings.catch_warnings():
        warnings.simplefilter("error")                  # "Glyph ... missing from font(s)" would fail here
        draw("有效秩随深度变化（测试 MSE），σ_w² = 2")
    # the same check fails without the CJK font: it can fail
    with matplotlib.rc_context({"font.family": ["sans-serif"]}):
        with pytest.warns(UserWarning, match=r"Glyph \d+ .* missing from font"):
            draw("有效秩随深度变化（测试 MSE），σ_w² = 2")


# --- kept names: each one used by some code -------------------------------------------------------------------

def choices(expression) -> list[str] | None:
    """The strings an f-string's {…} can be when it is a constant or ``'a' if … else 'b'``; None otherwise."""
    if isinstance(expression, ast.Constant) and isinstance(expression.value, str):
        return [expression.value]
    if isinstance(expression, ast.IfExp):
        body, orelse = choices(expression.body), choices(expression.orelse)
        return body + orelse if body is not None and orelse is not None else None
    return None


def code_strings() -> tuple[set[str], list[re.Pattern]]:
    """Every string constant in the lessons' code cells and in ntk_helpers, and every f-string with some words
    as a pattern (each {…} matches anything)."""
    sources = [cell.source for path in ENGLISH for cell in jupytext.read(path).cells if cell.cell_type == "code"]
    sources += [p.read_text(encoding="utf-8") for p in (ROOT / "ntk_helpers").rglob("*.py") ]
    constants, patterns = set(), []
    for source in sources:
        for node in ast.walk(ast.parse(source)):
            if isinstance(node, ast.Constant) and isinstance(node.value, str):
                constants.add(node.value)
            elif isinstance(node, ast.JoinedStr):
                texts = [[v.value] if isinstance(v, ast.Constant) else choices(v.value) for v in node.values]
                if any(re.search("[A-Za-z]", text) for options in texts if options for text in options):
                    patterns.append(re.compile("".join(                  # f"{name}: {x}" could be anything
                        "(?:" + "|".join(map(re.escape, options)) + ")" if options else ".*" for options in texts), re.S))
    return constants, patterns


def test_every_kept_name_is_used_by_some_lesson_or_ntk_helpers():
    """language.KEEP (names that stay as they are in Chinese) holds no name that no code writes any more."""
    constants, _patterns = code_strings()
    words = {w for text in constants for w in re.findall(r"[A-Za-z][A-Za-z_]*", text)}
    assert not language.KEEP - words, f"KEEP words that no code uses: {sorted(language.KEEP - words)}"


SWEEP = """
import ipywidgets
from ntk_helpers.course.widgets import LiveFigure
for figure in [w for w in list(ipywidgets.Widget.widgets.values()) if isinstance(w, LiveFigure)]:
    for control in figure.children[0].children:
        start = control.value
        values = [control.min, control.max] if hasattr(control, "max") else list(control._options_values)
        for value in values:
            control.value = value
        control.value = start
"""


@pytest.mark.slow
def test_a_chinese_lesson_draws_every_label_in_chinese_at_every_slider_setting(monkeypatch, tmp_path):
    """Lesson 00 run as Jupyter runs it (a kernel started in notebooks/zh, no variable set), then each slider
    moved to its ends and each dropdown through its options: no English label is left."""
    from nbclient import NotebookClient

    report = tmp_path / "labels.jsonl"
    monkeypatch.delenv("NTK_LESSON_LANGUAGE", raising=False)
    monkeypatch.setenv("NTK_LABELS_REPORT", str(report))
    nb = jupytext.read(ROOT / "notebooks" / "zh" / "00_start_here.py")
    nb.cells.append(nbformat.v4.new_code_cell(SWEEP))
    NotebookClient(nb, timeout=300, kernel_name="python3",
                   resources={"metadata": {"path": str(ROOT / "notebooks" / "zh")}}).execute()
    chinese, untranslated = load_tool("build_zh").read_report(report)
    assert chinese, "the kernel in notebooks/zh did not draw in Chinese"
    assert not untranslated, f"labels without a Chinese translation: {untranslated}"


def test_printed_text_translations_keep_every_field_formula_and_line_break():
    """A translation of text that code prints is filled in by .format: a lost or renamed {field} would raise (or
    print the wrong number) only in the Chinese lesson; a lost $ or line break breaks a label's layout."""
    from ntk_helpers.course import messages

    fields = lambda text: sorted(re.findall(r"\{[^{}]*\}", text))               # noqa: E731
    shape = lambda text: (fields(text), text.count("$"), text.count("\n"))      # noqa: E731
    broken = [f"{english!r} -> {chinese!r}" for english, chinese in messages.read_catalog(messages.CATALOG).items()
              if shape(english) != shape(chinese)]
    assert not broken, f"translations that change the fields, $ or line breaks of their English: {broken[:5]}"
