"""A real browser: JupyterLab and Voilà on 127.0.0.1, Debian's Chromium driven by Playwright.

Opens lesson 02 in JupyterLab, runs all cells, moves the depth slider and checks that the widget's
output (text and plot) changed; serves the same lesson as a Voilà dashboard (widgets and plots, no
code) and does the same; opens it as a RISE slideshow. Uses /usr/bin/chromium; never downloads a
browser. Without Chromium the tests are skipped locally and FAIL under CI (CI=true), where
`make test` installs it.
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
    settings = home / "settings" / "@jupyterlab" / "apputils-extension"
    settings.mkdir(parents=True)
    (settings / "notification.jupyterlab-settings").write_text(json.dumps({"fetchNews": "false"}))
    env = dict(os.environ, JUPYTER_CONFIG_DIR=str(home / "config"), JUPYTER_RUNTIME_DIR=str(home / "runtime"),
               JUPYTERLAB_SETTINGS_DIR=str(home / "settings"), JUPYTERLAB_WORKSPACES_DIR=str(home / "workspaces"))
    port = _free_port()
    server = _serve(
        [sys.executable, "-m", "jupyterlab", "--no-browser", "--allow-root", "--ip=127.0.0.1", f"--port={port}",
         f"--IdentityProvider.token={TOKEN}", f"--ServerApp.root_dir={work}", "--LabApp.news_url=None",
         "--LabApp.check_for_updates_class=jupyterlab.NeverCheckForUpdate", "--LabApp.extension_manager=readonly"],
        env, f"http://127.0.0.1:{port}/api/status?token={TOKEN}")
    yield f"http://127.0.0.1:{port}"
    _stop(server)


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
    readout = page.locator(".jp-OutputArea-output pre", has_text="at 90° NTK").first
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
        page.goto(dashboard)
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
