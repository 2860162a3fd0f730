"""The package on its own: `ntk_helpers` built as a wheel, installed into a fresh venv outside the repository, and a
lesson run against it with a read-only site-packages (numba must keep its cache elsewhere, or work without one).

Read-only is made real, also for root (for whom file modes mean nothing): the command runs in a private mount
namespace (``unshare``) where the venv's site-packages, and for the second test the home folder, are bind-mounted
read-only; writes there fail with EROFS. Where no mount namespace can be had, a non-root user gets ``chmod a-w``
instead, and root skips.

Slow (about two minutes): pip installs the wheel's dependencies into the new venv (torch 2.13.0 from the local
wheel on Python 3.11, the rest from the package registry or pip's cache).
Course-only (it reads tools/ and the git checkout): not in the student copy.
"""

import os
import shutil
import subprocess
import sys
import tomllib
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
LESSON = "03_cnn"           # kernels on the compiled (numba) path, digits, sliders: what a course package must do

pytestmark = pytest.mark.slow


def _run(command, **kw):
    result = subprocess.run(command, capture_output=True, text=True, **kw)
    assert result.returncode == 0, f"{' '.join(map(str, command))[:300]} failed:\n{result.stdout[-3000:]}\n" \
                                   f"{result.stderr[-3000:]}"
    return result


def _read_only_prefix(paths: list[Path]) -> list[str] | None:
    """A command prefix that runs its command with ``paths`` read-only, or None where that cannot be done."""
    mounts = " && ".join(f"mount --bind '{p}' '{p}' && mount -o remount,ro,bind '{p}' '{p}'" for p in paths)
    for unshare in (["unshare", "--mount"], ["unshare", "--map-root-user", "--mount"]):
        if shutil.which("unshare") and subprocess.run(
                [*unshare, "sh", "-c", f"{mounts} && ! touch '{paths[0]}/.probe' 2>/dev/null"],
                capture_output=True).returncode == 0:
            return [*unshare, "sh", "-c", f'{mounts} && exec "$@"', "read-only"]
    if os.geteuid() != 0:
        for path in paths:
            subprocess.run(["chmod", "-R", "a-w", str(path)], check=True)
        return []
    return None


@pytest.fixture(scope="module")
def installed(tmp_path_factory):
    """(venv, its site-packages, the wheel): a fresh venv outside the repository with the wheel installed."""
    base = tmp_path_factory.mktemp("installed")
    dist = base / "dist"
    _run([sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps", "--no-build-isolation", "-w", str(dist),
          str(ROOT)])
    wheels = list(dist.glob("*.whl"))
    assert len(wheels) == 1, f"expected one wheel, found {wheels}"
    venv = base / "venv"
    _run([sys.executable, "-m", "venv", str(venv)])
    python = venv / "bin" / "python"
    _run([str(python), "-m", "pip", "install", "--quiet", str(wheels[0]), "ipykernel", "nbclient"], cwd=base)
    site = Path(_run([str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"]).stdout.strip())
    # the lesson's kernel is this venv's python (installed here, before site-packages turns read-only)
    _run([str(python), "-m", "ipykernel", "install", "--sys-prefix", "--name", "python3"])
    return venv, site, wheels[0]


def test_the_wheel_holds_every_module_of_the_package_and_nothing_else(installed):
    _, _, wheel = installed
    names = zipfile.ZipFile(wheel).namelist()
    tracked = subprocess.run(["git", "ls-files", "ntk_helpers"], cwd=ROOT, capture_output=True, text=True,
                             check=True).stdout.split()
    modules = sorted(n for n in tracked if n.endswith((".py", ".po")))     # the code's modules and its catalogs
    packaged = sorted(n for n in names if not n.split("/")[0].endswith(".dist-info"))
    assert packaged == modules, f"wheel modules differ from the tracked ones: missing " \
                                f"{sorted(set(modules) - set(packaged))}, extra {sorted(set(packaged) - set(modules))}"
    metadata = zipfile.ZipFile(wheel).read(next(n for n in names if n.endswith(".dist-info/METADATA"))).decode()
    assert f"Requires-Python: {PROJECT['requires-python']}" in metadata, "the wheel must carry requires-python"
    assert "Requires-Dist: torch==2.13.0" in metadata, "the wheel must pin torch exactly, as pyproject.toml does"


def test_a_lesson_runs_against_the_installed_wheel_with_a_read_only_site_packages(installed, tmp_path):
    venv, site, _ = installed
    lesson = tmp_path / "lesson"                       # outside the repository: nothing of the checkout is on a path
    lesson.mkdir()
    shutil.copy(ROOT / "notebooks" / f"{LESSON}.ipynb", lesson)
    home = tmp_path / "home"
    home.mkdir()
    runner = tmp_path / "run_lesson.py"
    runner.write_text(f"""
import nbformat
from nbclient import NotebookClient
nb = nbformat.read("{LESSON}.ipynb", as_version=4)
nb.cells.append(nbformat.v4.new_code_cell(
    "import sys, ntk_helpers, numba\\n"
    "from ntk_helpers.engine.compiled import angle\\n"
    "print('EXECUTABLE', sys.executable)\\n"
    "print('PACKAGE', ntk_helpers.__file__)\\n"
    "print('CACHE', type(angle._angle._cache).__name__)"))
NotebookClient(nb, timeout=300, kernel_name="python3").execute()
print(nb.cells[-1].outputs[0]["text"])
""")
    before = sorted(str(p) for p in site.rglob("*"))
    prefix = _read_only_prefix([site])
    if prefix is None:
        pytest.skip("no mount namespace here (unshare) and root ignores file modes: cannot make site-packages read-only")
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("PYTHON", "NUMBA_", "VIRTUAL_ENV", "JUPYTER", "XDG_", "NTK_"))}
    env.update(HOME=str(home), PATH=f"{venv / 'bin'}{os.pathsep}{env.get('PATH', '')}")
    result = _run([*prefix, str(venv / "bin" / "python"), str(runner)], cwd=lesson, env=env)
    report = dict(line.split(" ", 1) for line in result.stdout.splitlines() if line.split(" ")[0].isupper())
    assert report["EXECUTABLE"].startswith(str(venv)), f"the lesson ran in {report['EXECUTABLE']}, not in {venv}"
    assert report["PACKAGE"].startswith(str(site)), f"ntk_helpers came from {report['PACKAGE']}, not the wheel"
    assert report["CACHE"] != "NullCache", "numba had a writable home for its cache, yet compiled without one"
    assert sorted(str(p) for p in site.rglob("*")) == before, "running the lesson wrote into site-packages"
    cached = list((home / ".cache" / "numba").rglob("*.nbi"))
    assert cached, f"numba's cache should be in the user's cache folder {home / '.cache' / 'numba'}, found nothing"


def test_the_compiled_path_works_with_no_writable_place_for_numbas_cache(installed, tmp_path):
    """Read-only site-packages and a read-only home: numba cannot cache, so ntk_helpers compiles without a cache,
    and the compiled kernel (``compiled=True``: an error if that path cannot be used) equals the eager one."""
    venv, site, _ = installed
    home = tmp_path / "home"
    home.mkdir()
    prefix = _read_only_prefix([site, home])
    if prefix is None:
        pytest.skip("no mount namespace here (unshare) and root ignores file modes: cannot make folders read-only")
    script = """
import torch, ntk_helpers as nh
from ntk_helpers.engine.compiled import angle
net = nh.serial(nh.conv(8, 3), nh.relu(), nh.conv(8, 3), nh.relu(), nh.global_avg_pool(), nh.dense(1))
x = torch.randn(4, 2, 5, 5, generator=torch.Generator().manual_seed(0), dtype=torch.float64)
fast, eager = net.kernel(x, x, compiled=True), net.kernel(x, x, compiled=False)
error = ((fast.ntk - eager.ntk).abs().max() / eager.ntk.abs().max()).item()
print("CACHE", type(angle._angle._cache).__name__)
print("ERROR", error)
"""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTHON", "NUMBA_", "VIRTUAL_ENV", "XDG_"))}
    env.update(HOME=str(home), MPLCONFIGDIR=str(tmp_path / "mpl"))
    result = _run([*prefix, str(venv / "bin" / "python"), "-c", script], cwd=tmp_path, env=env)
    report = dict(line.split(" ", 1) for line in result.stdout.splitlines() if line.split(" ")[0].isupper())
    assert report["CACHE"] == "NullCache", f"expected numba without a disk cache, got {report['CACHE']}"
    assert float(report["ERROR"]) < 1e-12, f"compiled vs eager NTK: relative error {report['ERROR']}, expected < 1e-12"
