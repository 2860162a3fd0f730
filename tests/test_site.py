"""The static site of the executed lessons builds, lists every lesson and shows no errors."""

import importlib.util
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_static_site_renders_every_lesson(tmp_path):
    spec = importlib.util.spec_from_file_location("build_site", ROOT / "tools" / "build_site.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    pages = module.build_site(tmp_path)
    lessons = sorted(p.stem for p in (ROOT / "notebooks").glob("[0-9][0-9]_*.ipynb"))
    assert [p.stem for p in pages] == lessons
    index = (tmp_path / "index.html").read_text()
    for page in pages:
        text = page.read_text()
        assert f'href="{page.name}"' in index
        assert "Traceback" not in text
        assert text.count("<img") >= 1 or page.stem.startswith("00"), page.name   # the plots are in the page
