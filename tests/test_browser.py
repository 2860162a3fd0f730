"""A real browser: JupyterLab and Voilà on 127.0.0.1, Debian's Chromium driven by Playwright.

Opens lesson 02 in JupyterLab, runs all cells, moves the depth slider and checks that the widget's
output (text and plot) changed; serves the same lesson as a Voilà dashboard (widgets and plots, no
code) and does the same; opens it as a RISE slideshow; opens the static site offline and its Chinese
lesson 02, whose characters must be drawn with real glyphs, not boxes ("tofu"). Uses /usr/bin/chromium;
never downloads a browser. Without Chromium (or, for the Chinese page, without a CJK font) the tests are
skipped locally and FAIL under CI (CI=true), where `make test` installs both (`make browser-deps`).
"""

import contextlib
import json
import os
import re
import shutil
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
CHROMIUM = Path("/usr/bin/chromium")
TOKEN = "ntk-browser-test"
FLAGS = ["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync"]

pytestmark = pytest.mark.browser


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _need_chromium():
    if not CHROMIUM.exists():
        if os.environ.get("CI"):
            pytest.fail("/usr/bin/chromium is missing in CI: `make browser-deps` should have installed it")
        pytest.skip("Debian's chromium is not installed (run `make browser-deps` as root)")


def _serve(command, env, ready_url):
    server = subprocess.Popen(command, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.STDOUT)
    for _ in range(120):
        try:
            urllib.request.urlopen(ready_url, timeout=1)
            return server
        except OSError:
            time.sleep(0.5)
    server.kill()
    pytest.fail(f"server did not start within 60 s: {command[:4]}")


def _stop(server):
    server.terminate()
    try:
        server.wait(timeout=20)
    except subprocess.TimeoutExpired:
        server.kill()


@pytest.fixture(scope="module")
def lab(tmp_path_factory):
    _need_chromium()
    home = tmp_path_factory.mktemp("lab")
    work = home / "work"
    work.mkdir()
    shutil.copy(ROOT / "notebooks" / "02_mlp_recursion.ipynb", work)     # never touch the real lesson
    server, url = _jupyterlab(home, root_dir=work)
    yield url
    _stop(server)


def _jupyterlab(home: Path, *, root_dir: Path):
    """A JupyterLab server on 127.0.0.1 with its own settings under ``home`` (no news, no update checks)."""
    settings = home / "settings" / "@jupyterlab" / "apputils-extension"
    settings.mkdir(parents=True)
    (settings / "notification.jupyterlab-settings").write_text(json.dumps({"fetchNews": "false"}))
    env = dict(os.environ, JUPYTER_CONFIG_DIR=str(home / "config"), JUPYTER_RUNTIME_DIR=str(home / "runtime"),
               JUPYTERLAB_SETTINGS_DIR=str(home / "settings"), JUPYTERLAB_WORKSPACES_DIR=str(home / "workspaces"))
    port = _free_port()
    server = _serve(
        [sys.executable, "-m", "jupyterlab", "--no-browser", "--allow-root", "--ip=127.0.0.1", f"--port={port}",
         f"--IdentityProvider.token={TOKEN}", f"--ServerApp.root_dir={root_dir}", "--LabApp.news_url=None",
         "--LabApp.check_for_updates_class=jupyterlab.NeverCheckForUpdate", "--LabApp.extension_manager=readonly"],
        env, f"http://127.0.0.1:{port}/api/status?token={TOKEN}")
    return server, f"http://127.0.0.1:{port}"


@pytest.fixture(scope="module")
def dashboard(tmp_path_factory):
    _need_chromium()
    home = tmp_path_factory.mktemp("voila")
    shutil.copy(ROOT / "notebooks" / "02_mlp_recursion.ipynb", home)
    env = dict(os.environ, JUPYTER_CONFIG_DIR=str(home / "config"), JUPYTER_RUNTIME_DIR=str(home / "runtime"))
    port = _free_port()
    server = _serve([sys.executable, "-m", "voila", str(home / "02_mlp_recursion.ipynb"), "--no-browser",
                     f"--port={port}", "--Voila.ip=127.0.0.1"], env, f"http://127.0.0.1:{port}/")
    yield f"http://127.0.0.1:{port}/"
    _stop(server)


def _move_depth_slider_and_check(page, expect):
    readout = page.locator(".jp-OutputArea-output pre", has_text="at 60°").first
    expect(readout).to_contain_text("depth 10, relu")
    panel = page.locator(".widget-vbox", has=readout).first
    plot = panel.locator("img").first
    expect(plot).to_be_visible()
    before = plot.get_attribute("src")
    panel.locator(".widget-slider").first.locator(".noUi-handle").focus()
    for _ in range(3):
        page.keyboard.press("ArrowRight")
    expect(readout).to_contain_text("depth 13, relu")
    plot = panel.locator("img").first
    expect(plot).to_be_visible()
    assert plot.get_attribute("src") != before, "the plot did not change after the slider moved"


@contextlib.contextmanager
def _chromium_page():
    """A page in headless Debian Chromium; Playwright's expect() waits up to two minutes."""
    from playwright.sync_api import expect, sync_playwright

    expect.set_options(timeout=120_000)
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=str(CHROMIUM), headless=True, args=FLAGS)
        try:
            page = browser.new_page(viewport={"width": 1400, "height": 1000})
            page.set_default_timeout(120_000)
            yield page, expect
        finally:
            browser.close()


def test_depth_slider_redraws_lesson_02(lab, tmp_path):
    with _chromium_page() as (page, expect):
        page.goto(f"{lab}/lab/tree/02_mlp_recursion.ipynb?token={TOKEN}&reset")
        page.wait_for_selector(".jp-Notebook-ExecutionIndicator[data-status='idle']")
        page.locator(".jp-Notebook .jp-Cell").first.click()           # give the notebook focus
        first_prompt = page.locator(".jp-Notebook .jp-CodeCell .jp-InputPrompt").first
        for attempt in range(3):                                       # a busy machine may swallow the click
            page.click("#jp-MainMenu >> text=Run")
            page.get_by_role("menuitem", name=re.compile(r"^Run All Cells")).click()
            try:
                expect(first_prompt).not_to_have_text(re.compile(r"^\[ \]:$"), timeout=30_000)
                break
            except AssertionError:
                if attempt == 2:
                    raise
        page.screenshot(path=str(tmp_path / "before.png"))
        _move_depth_slider_and_check(page, expect)
        page.screenshot(path=str(tmp_path / "after.png"))


def test_voila_dashboard_of_lesson_02_redraws(dashboard, tmp_path):
    with _chromium_page() as (page, expect):
        # Voilà runs the whole lesson before the page finishes loading: on a slow or shared machine that takes
        # minutes, so wait for the first byte, then up to ten minutes for the explorer's readout
        page.goto(dashboard, wait_until="commit", timeout=600_000)
        expect(page.locator(".jp-OutputArea-output pre", has_text="at 60°").first).to_be_visible(timeout=600_000)
        _move_depth_slider_and_check(page, expect)
        assert "def draw_collapse" not in page.content(), "a dashboard shows no code"
        page.screenshot(path=str(tmp_path / "voila.png"), full_page=True)


def test_lesson_02_renders_as_a_rise_slideshow(lab):
    with _chromium_page() as (page, expect):
        page.goto(f"{lab}/rise/02_mlp_recursion.ipynb?token={TOKEN}")
        slides = page.locator(".reveal .slides section")
        expect(slides.first).to_be_attached()
        expect(page.locator(".reveal .slides")).to_contain_text("02 · The MLP recursion")
        assert slides.count() >= 5, f"only {slides.count()} slides"


@pytest.fixture(scope="module")
def lab_in_repository(tmp_path_factory):
    """JupyterLab serving the repository itself: lessons open next to their paired .py and jupytext.toml,
    exactly as a learner or lecturer meets them after `make lab`."""
    _need_chromium()
    server, url = _jupyterlab(tmp_path_factory.mktemp("lab-in-place"), root_dir=ROOT)
    yield url
    _stop(server)


def _slide_count(notebook: Path) -> int:
    nb = json.loads(notebook.read_text())
    return sum(c.get("metadata", {}).get("slideshow", {}).get("slide_type") == "slide" for c in nb["cells"])


def test_saving_a_lesson_in_place_keeps_its_slides_and_rewrites_nothing(lab_in_repository, tmp_path):
    """Open lesson 04 where it lives (next to 04_resnet.py), save it with Ctrl+S, and check that both files are
    byte for byte unchanged and that the slideshow still has every slide. The files are restored afterwards
    whatever happens, so a failing run never leaves the repository modified."""
    lesson = ROOT / "notebooks" / "04_resnet.ipynb"
    pair = lesson.with_suffix(".py")
    saved = {path: path.read_bytes() for path in (lesson, pair)}
    slides = _slide_count(lesson)
    try:
        with _chromium_page() as (page, expect):
            page.goto(f"{lab_in_repository}/lab/tree/notebooks/04_resnet.ipynb?token={TOKEN}&reset")
            page.wait_for_selector(".jp-Notebook-ExecutionIndicator[data-status='idle']")
            page.locator(".jp-Notebook .jp-Cell").first.click()
            written = lesson.stat().st_mtime_ns
            page.keyboard.press("Control+s")
            for _ in range(60):                                           # wait until the save reached the disk
                if lesson.stat().st_mtime_ns != written:
                    break
                page.wait_for_timeout(500)
            assert lesson.stat().st_mtime_ns != written, "Ctrl+S did not save the lesson within 30 s"
            page.wait_for_timeout(1000)                                   # the paired .py is written next
            changed = [path.name for path, content in saved.items() if path.read_bytes() != content]
            assert not changed, f"saving in JupyterLab rewrote {changed}: the pairing settings are not applied"
            page.goto(f"{lab_in_repository}/rise/notebooks/04_resnet.ipynb?token={TOKEN}")
            sections = page.locator(".reveal .slides > section")
            expect(sections.first).to_be_attached()
            page.screenshot(path=str(tmp_path / "rise-in-place.png"))
            assert sections.count() == slides, f"slideshow has {sections.count()} slides, the lesson {slides}"
    finally:
        for path, content in saved.items():
            path.write_bytes(content)


@pytest.fixture(scope="module")
def static_site(tmp_path_factory):
    """The static site (tools/build_site.py) built into a temporary folder and served on 127.0.0.1."""
    _need_chromium()
    from conftest import load_tool

    build_site = load_tool("build_site")
    folder = tmp_path_factory.mktemp("site")
    build_site.build_site(folder)
    port = _free_port()
    server = _serve([sys.executable, "-m", "http.server", str(port), "--bind", "127.0.0.1", "--directory",
                     str(folder)], dict(os.environ), f"http://127.0.0.1:{port}/index.html")
    yield f"http://127.0.0.1:{port}"
    _stop(server)


def test_static_site_works_offline(static_site, tmp_path):
    """Index, lessons and errata with every request to another host blocked: maths typeset by the site's own
    MathJax (TeX errors are console errors), widget snapshots shown, previous/next links working, no console
    errors, no failed request."""
    from urllib.parse import urlsplit

    blocked, failed, errors = [], [], []
    with _chromium_page() as (page, expect):

        def only_local(route):
            if urlsplit(route.request.url).hostname == "127.0.0.1":
                route.continue_()
            else:
                blocked.append(route.request.url)
                route.abort()

        page.route("**/*", only_local)
        page.on("console", lambda m: errors.append(f"{page.url}: {m.text}") if m.type == "error" else None)
        page.on("pageerror", lambda e: errors.append(f"{page.url}: {e}"))
        page.on("response", lambda r: failed.append(f"{r.status} {r.url}") if r.status >= 400 else None)

        def typeset():
            expect(page.locator("html")).to_have_attribute("data-mathjax", "typeset")

        page.goto(f"{static_site}/index.html")
        typeset()
        rows = page.locator("table.ntk-lessons tbody tr")
        lessons = sorted(p.stem for p in (ROOT / "notebooks").glob("[0-9][0-9]*_*.ipynb"))
        expect(rows).to_have_count(len(lessons))
        expect(page.locator("table.ntk-lessons .MathJax").first).to_be_visible()   # "$r_\infty$" in 08's row
        page.screenshot(path=str(tmp_path / "index.png"), full_page=True)

        page.locator("table.ntk-lessons a", has_text="MLP recursion").click()
        expect(page).to_have_url(re.compile(r"/02_mlp_recursion\.html$"))
        typeset()
        markdown = page.locator(".jp-MarkdownCell")
        assert page.locator(".jp-MarkdownCell .MathJax").count() >= 20, "the lesson's maths was not typeset"
        raw = [t for t in markdown.all_inner_texts() if re.search(r"\$[^$\n]*\\[A-Za-z]", t)]
        assert not raw, f"raw TeX visible: {raw[0][:200]}"
        note = page.locator(".ntk-widget-note").first
        expect(note).to_contain_text("depth = ")                        # the slider settings of the snapshot
        snapshot = page.locator(".jp-CodeCell", has=note)
        image = snapshot.locator(".jp-OutputArea-output img").first
        expect(image).to_be_visible()
        assert image.evaluate("img => img.naturalWidth") > 100, "the snapshot plot did not load"
        note.scroll_into_view_if_needed()
        page.screenshot(path=str(tmp_path / "lesson02_widget.png"))
        page.evaluate("window.scrollTo(0, 0)")
        page.screenshot(path=str(tmp_path / "lesson02_top.png"))

        page.locator("nav.ntk-nav a[rel=next]").first.click()
        expect(page).to_have_url(re.compile(r"/03_cnn\.html$"))
        typeset()
        page.locator("nav.ntk-nav a[rel=prev]").first.click()
        expect(page).to_have_url(re.compile(r"/02_mlp_recursion\.html$"))
        page.locator("nav.ntk-nav a.ntk-errata").first.click()
        expect(page).to_have_url(re.compile(r"/errata\.html$"))
        typeset()
        expect(page.locator("#a1")).to_be_attached()
        assert page.locator(".jp-MarkdownCell .MathJax").count() >= 20, "the errata page's maths was not typeset"
        page.locator("nav.ntk-nav a.ntk-home").first.click()
        expect(page).to_have_url(re.compile(r"/index\.html$"))
        for lesson in (n for n in lessons if n not in ("02_mlp_recursion", "03_cnn")):   # the others: typeset,
            page.goto(f"{static_site}/{lesson}.html")
            typeset()                                                     # no raw TeX, no console error
            raw = [t for t in markdown.all_inner_texts() if re.search(r"\$[^$\n]*\\[A-Za-z]", t)]
            assert not raw, f"{lesson}: raw TeX visible: {raw[0][:200]}"
    assert not blocked, f"pages tried to load from other hosts: {sorted(set(blocked))}"
    assert not failed, f"requests that failed: {failed}"
    assert not errors, f"console errors: {errors}"


def _need_cjk_font():
    """A font with Chinese glyphs (Debian's fonts-noto-cjk, installed by `make browser-deps`): without one every
    Chinese character is a box, and the Chinese-page test says so instead of failing locally."""
    listed = subprocess.run(["fc-list", ":lang=zh", "family"], capture_output=True, text=True).stdout \
        if shutil.which("fc-list") else ""
    if not listed.strip():
        reason = ("no font with Chinese glyphs is installed (`fc-list :lang=zh` is empty): "
                  "`make browser-deps` installs Debian's fonts-noto-cjk when run as root")
        if os.environ.get("CI"):
            pytest.fail(reason)
        pytest.skip(reason)


# Draws, on a canvas and in the computed font of ``element``, each distinct Han character of its text, and code
# points that no font has (U+10FFFF, private-use U+E000 and U+F0000: the browser draws its missing-glyph box,
# "tofu"). Returns each drawing as a string of 0/1 pixels, its ink (pixels drawn), the font used, and the
# drawings side by side as a PNG (Han characters, then the missing glyphs) for a person to look at.
_DRAW_GLYPHS = """element => {
  const style = getComputedStyle(element);
  const font = `${style.fontStyle} ${style.fontWeight} 40px ${style.fontFamily}`;
  const han = [...new Set([...element.textContent].filter(c => /\\p{Script=Han}/u.test(c)))].slice(0, 8);
  const missing = ["\\u{10FFFF}", "\\uE000", "\\u{F0000}"];
  const size = 56, all = [...han, ...missing];
  const strip = document.createElement("canvas");
  strip.width = size * all.length; strip.height = size;
  const sctx = strip.getContext("2d");
  sctx.fillStyle = "#fff"; sctx.fillRect(0, 0, strip.width, strip.height);
  const canvas = document.createElement("canvas");
  canvas.width = canvas.height = size;
  const ctx = canvas.getContext("2d", {willReadFrequently: true});
  const draw = (c, i) => {
    ctx.clearRect(0, 0, size, size);
    ctx.font = font; ctx.textBaseline = "top"; ctx.fillStyle = "#000";
    ctx.fillText(c, 8, 8);
    const alpha = ctx.getImageData(0, 0, size, size).data.filter((_, k) => k % 4 === 3);
    sctx.drawImage(canvas, i * size, 0);
    return {char: c, bits: Array.from(alpha, a => (a > 127 ? "1" : "0")).join(""),
            ink: alpha.reduce((n, a) => n + (a > 127), 0)};
  };
  const glyphs = all.map(draw);
  return {font: ctx.font, han: glyphs.slice(0, han.length), missing: glyphs.slice(han.length),
          png: strip.toDataURL("image/png")};
}"""


def _chinese_glyphs_are_drawn(element, shot: Path) -> dict:
    """Assert that the Han characters of ``element`` are drawn as real glyphs, not as the missing-glyph box:
    each has ink, differs from every missing-glyph drawing and from the others. Saves the drawings to ``shot``."""
    import base64

    drawn = element.evaluate(_DRAW_GLYPHS)
    shot.write_bytes(base64.b64decode(drawn["png"].split(",", 1)[1]))
    han, tofu = drawn["han"], {g["bits"] for g in drawn["missing"]}
    chars = "".join(g["char"] for g in han)
    assert "40px" in drawn["font"], f"the canvas did not take the page's font: {drawn['font']}"
    assert len(han) >= 4, f"the heading has too few Chinese characters to check: {chars!r}"
    blank = [g["char"] for g in han if g["ink"] == 0]
    assert not blank, f"drawn as nothing in {drawn['font']}: {blank} (see {shot})"
    boxes = [g["char"] for g in han if g["bits"] in tofu]
    assert not boxes, f"drawn as the missing-glyph box (tofu) in {drawn['font']}: {boxes} (see {shot})"
    alike = len(han) - len({g["bits"] for g in han})
    assert not alike, f"{alike + 1} of {chars!r} look the same in {drawn['font']}: tofu (see {shot})"
    return drawn


def test_chinese_lesson_page_shows_no_tofu(static_site, tmp_path):
    """The Chinese lesson 02 on the static site (zh/02_mlp_recursion.html): <html lang="zh-CN">, its Chinese
    first heading in the page, the language switch back to English, maths typeset by the site's MathJax one
    folder up, and the heading's characters drawn with real glyphs in the page's own font, not as boxes
    (screenshots in tmp_path: the page and the glyphs). Without a CJK font this fails with "drawn as the
    missing-glyph box (tofu)"."""
    _need_cjk_font()
    import nbformat
    from conftest import load_tool

    lesson = ROOT / "notebooks" / "zh" / "02_mlp_recursion.ipynb"
    title = load_tool("build_site").lesson_title(nbformat.read(lesson, as_version=4))
    failed, errors = [], []
    with _chromium_page() as (page, expect):
        page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
        page.on("response", lambda r: failed.append(f"{r.status} {r.url}") if r.status >= 400 else None)
        page.goto(f"{static_site}/zh/02_mlp_recursion.html")
        expect(page.locator("html")).to_have_attribute("lang", "zh-CN")
        heading = page.locator(".jp-MarkdownCell h1").first
        expect(heading).to_contain_text(title)
        expect(page.locator("nav.ntk-nav a.ntk-lang").first).to_have_attribute("href", "../02_mlp_recursion.html")
        expect(page.locator("html")).to_have_attribute("data-mathjax", "typeset")     # the page as a reader sees it
        page.evaluate("document.fonts.ready")
        page.screenshot(path=str(tmp_path / "zh_lesson02.png"))
        _chinese_glyphs_are_drawn(heading, tmp_path / "zh_lesson02_glyphs.png")
    assert not failed, f"requests that failed (../mathjax/, ../site.css?): {failed}"
    assert not errors, f"console errors: {errors}"
