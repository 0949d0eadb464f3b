"""The wheel ships queries/ inside the package, and the installed package runs a query."""

from __future__ import annotations

import os
import subprocess
import sys
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def test_wheel_ships_the_queries_and_runs_them(tmp_path: Path, sample_workdir: Path) -> None:
    dist = tmp_path / "dist"
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q",
         "-w", str(dist), str(ROOT)],
        check=True,
    )  # fmt: skip
    (wheel,) = dist.glob("mur_trace-*.whl")
    site = tmp_path / "site"
    with zipfile.ZipFile(wheel) as archive:
        names = set(archive.namelist())
        archive.extractall(site)
    shipped = {n for n in names if n.startswith("mur_trace/queries/") and n.endswith(".sql")}
    in_repo = {
        "mur_trace/queries/" + p.relative_to(ROOT / "queries").as_posix()
        for p in (ROOT / "queries").rglob("*.sql")
    }
    assert shipped == in_repo

    script = (
        "import mur_trace, sys;"
        "assert mur_trace.__file__.startswith(sys.argv[1]), mur_trace.__file__;"
        "t = mur_trace.load(workdir=sys.argv[2]);"
        "print(len(t.redundant_calls().fetchall()))"
    )
    result = subprocess.run(
        [sys.executable, "-c", script, str(site), str(sample_workdir)],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env={**os.environ, "PYTHONPATH": str(site)},
        check=True,
    )
    assert result.stdout.strip() == "19"
