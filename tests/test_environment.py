"""environment.yml (conda/Binder) is generated from pyproject.toml and must stay in sync with it."""

import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_environment_yml_is_generated_from_pyproject(tmp_path):
    shutil.copy(ROOT / "pyproject.toml", tmp_path / "pyproject.toml")
    p2c = Path(sys.executable).parent / "p2c"          # the header records the command name
    subprocess.run([str(p2c), "project", "--overwrite", "force"],
                   cwd=tmp_path, check=True, capture_output=True)
    fresh = (tmp_path / "environment.yml").read_text()
    assert fresh == (ROOT / "environment.yml").read_text(), "run `make environment` and commit environment.yml"


def test_torch_is_pinned_exactly():
    """An unpinned torch pulls a multi-GB CUDA build; 2.13.0 resolves to the local CPU wheel."""
    deps = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["dependencies"]
    assert [d.split("#")[0].strip() for d in deps if d.startswith("torch")] == ["torch==2.13.0"]
    assert "pytorch-cpu==2.13.0" in (ROOT / "environment.yml").read_text()


def test_readme_starts_with_the_two_commands():
    head = (ROOT / "README.md").read_text().split("\n## ")[0]
    assert "make lab" in head and "make test" in head
    ci = (ROOT / ".ci" / "run").read_text()
    assert "make test" in ci


def test_lesson_kernel_sleeps_instead_of_spinning():
    """`make setup` gives this environment's kernel OMP_WAIT_POLICY=PASSIVE: on a shared machine torch's idle
    OpenMP workers would otherwise spin and slow a lesson several-fold (README, "Speed on a busy machine")."""
    from jupyter_client.kernelspec import KernelSpecManager

    spec = KernelSpecManager().get_kernel_spec("python3")
    assert Path(spec.resource_dir).is_relative_to(Path(sys.prefix)), f"python3 kernel outside this env: {spec}"
    assert spec.env.get("OMP_WAIT_POLICY") == "PASSIVE", f"kernel env is {spec.env}: run `make setup` again"
