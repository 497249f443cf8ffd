"""The documentation site: it builds (strict, offline), its generated pages are up to date,
every `fg.<name>` / `fnp.<name>` it mentions exists, and the reference documents every
public name.

Each check is a function that returns what is wrong; each is also run on a broken input to
show that it can fail.
"""
from __future__ import annotations

import importlib
import importlib.util
import json
import os
import pathlib
import re
import subprocess
import sys
import types

import pytest

import fungrad as fg
import fungrad.numpy as fnp

ROOT = pathlib.Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"
sys.path.insert(0, str(DOCS))
import benchmarks_page  # noqa: E402  (docs/ scripts, imported as modules)
import execute_pages  # noqa: E402
import reference_pages  # noqa: E402

HAVE_MKDOCS = all(importlib.util.find_spec(name) is not None
                  for name in ("mkdocs", "mkdocstrings", "material"))
needs_mkdocs = pytest.mark.skipif(
    not HAVE_MKDOCS, reason='mkdocs is not installed (pip install -e ".[docs]")')


def _mkdocs_build(config: pathlib.Path, site: pathlib.Path) -> subprocess.CompletedProcess:
    env = dict(os.environ, PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""),
               NO_MKDOCS_2_WARNING="1")
    # no -q: it hides the warnings that --strict counts, and the build would pass
    return subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict",
                           "-f", str(config), "-d", str(site)],
                          cwd=config.parent, env=env, capture_output=True, text=True)


# ------------------------------------------------------------------ the site builds, offline
EXTERNAL_ASSET = re.compile(
    r"""<script[^>]*\ssrc=["']https?://"""                       # remote scripts
    r"""|<link[^>]*\shref=["']https?://[^"']*["'][^>]*>"""         # remote stylesheets/fonts
    r"""|@import\s+url\(\s*["']?https?://"""                       # CSS imports
    r"""|fonts\.googleapis\.com|fonts\.gstatic\.com""")


def external_assets(site: pathlib.Path) -> list[str]:
    """`file: match` for each asset a built page would fetch from the network."""
    found = []
    for path in sorted(site.rglob("*")):
        if path.suffix in (".html", ".css"):
            for match in EXTERNAL_ASSET.finditer(path.read_text(errors="replace")):
                found.append(f"{path.relative_to(site)}: {match.group(0)[:100]}")
    return found


@pytest.mark.slow
@needs_mkdocs
def test_site_builds_strict_and_offline(tmp_path):
    result = _mkdocs_build(ROOT / "mkdocs.yml", tmp_path / "site")
    assert result.returncode == 0, result.stdout + result.stderr
    assert (tmp_path / "site" / "reference" / "numpy" / "math" / "index.html").exists()
    assert external_assets(tmp_path / "site") == []


@pytest.mark.slow
@needs_mkdocs
def test_strict_build_fails_on_a_broken_link(tmp_path):
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "index.md").write_text("# x\n\nSee [the missing page](missing.md).\n")
    (tmp_path / "mkdocs.yml").write_text("site_name: x\nstrict: true\n")
    result = _mkdocs_build(tmp_path / "mkdocs.yml", tmp_path / "site")
    assert result.returncode != 0
    assert "missing.md" in result.stdout + result.stderr


def test_external_asset_check_can_fail(tmp_path):
    (tmp_path / "a.html").write_text(
        '<link rel="stylesheet" href="https://fonts.googleapis.com/css?family=Roboto">'
        '<script src="https://unpkg.com/x.js"></script><a href="https://example.org">ok</a>')
    assert len(external_assets(tmp_path)) == 2  # the font stylesheet and the script
    (tmp_path / "a.html").write_text('<a href="https://example.org">a link is fine</a>')
    assert external_assets(tmp_path) == []


# ------------------------------------------------------------------ executed pages
@pytest.mark.slow
def test_executed_pages_are_up_to_date():
    assert execute_pages.main(["--check"]) == 0


def test_executed_page_check_can_fail(tmp_path, monkeypatch):
    docs = tmp_path / "docs"
    (docs / "src").mkdir(parents=True)
    (docs / "src" / "page.md").write_text("# p\n\n```python\nprint(1 + 1)\n```\n")
    monkeypatch.setattr(execute_pages, "DOCS", docs)
    monkeypatch.setattr(execute_pages, "SOURCES", docs / "src")
    assert execute_pages.main([]) == 0                     # writes docs/page.md with "2"
    assert "```text\n2\n```" in (docs / "page.md").read_text()
    assert execute_pages.main(["--check"]) == 0
    (docs / "src" / "page.md").write_text("# p\n\n```python\nprint(1 + 2)\n```\n")
    assert execute_pages.main(["--check"]) == 1            # the committed output is stale


# ------------------------------------------------------------------ names in the pages exist
NAME = re.compile(r"(?<![\w.])(fg|fnp)\.([A-Za-z_]\w*(?:\.[A-Za-z_]\w*)*)")


def unresolved_names(text: str) -> list[str]:
    """Each `fg.a.b` / `fnp.a.b` in `text` that is not an attribute of fungrad."""
    bad = []
    for match in NAME.finditer(text):
        obj = fg if match.group(1) == "fg" else fnp
        for part in match.group(2).split("."):
            try:
                obj = getattr(obj, part)
            except AttributeError:
                bad.append(match.group(0))
                break
    return sorted(set(bad))


def documentation_files() -> list[pathlib.Path]:
    return sorted(DOCS.rglob("*.md")) + [ROOT / "README.md"]


def test_names_in_the_docs_exist():
    bad = {str(path.relative_to(ROOT)): names for path in documentation_files()
           if (names := unresolved_names(path.read_text()))}
    assert bad == {}


def test_name_check_can_fail():
    text = "Use `fg.grad`, `fnp.linalg.solve` and fg.scipy.stats.norm.logpdf, not `fg.grda`."
    assert unresolved_names(text) == ["fg.grda"]
    assert unresolved_names("fnp.linalg.not_there(x); self.fg.x; fg.optim.adam") == [
        "fnp.linalg.not_there"]


# ------------------------------------------------------------------ the benchmarks page
def benchmarks_page_is_current(results: pathlib.Path, out: pathlib.Path) -> bool:
    benchmarks_page.main(["--json", str(results), "--out", str(out), "--no-plot"])
    return (out / "benchmarks.md").read_text() == (DOCS / "benchmarks.md").read_text()


def test_benchmarks_page_is_up_to_date(tmp_path):
    assert benchmarks_page_is_current(benchmarks_page.RESULTS, tmp_path), (
        "run python docs/benchmarks_page.py")
    assert (DOCS / "benchmarks.png").exists()


def test_benchmarks_page_check_can_fail(tmp_path):
    data = json.loads(benchmarks_page.RESULTS.read_text())
    data["rows"][0]["fungrad_s"] *= 2
    changed = tmp_path / "results.json"
    changed.write_text(json.dumps(data))
    assert not benchmarks_page_is_current(changed, tmp_path / "out")


# ------------------------------------------------------------------ the reference is complete
# namespace -> how the pages write its names
NAMESPACES = {
    "fungrad": "fg", "fungrad.numpy": "fnp", "fungrad.numpy.linalg": "fnp.linalg",
    "fungrad.numpy.fft": "fnp.fft", "fungrad.lax": "fg.lax", "fungrad.nn": "fg.nn",
    "fungrad.optim": "fg.optim", "fungrad.random": "fg.random", "fungrad.tree": "fg.tree",
    "fungrad.debug": "fg.debug", "fungrad.checkify": "fg.checkify",
    "fungrad.scipy.special": "fg.scipy.special", "fungrad.scipy.linalg": "fg.scipy.linalg",
    "fungrad.scipy.signal": "fg.scipy.signal", "fungrad.scipy.integrate":
    "fg.scipy.integrate", "fungrad.scipy.fft": "fg.scipy.fft",
    "fungrad.scipy.ndimage": "fg.scipy.ndimage",
    "fungrad.scipy.interpolate": "fg.scipy.interpolate", "fungrad.extend": "fungrad.extend",
    "fungrad.test_util": "fg.test_util", "fungrad.errors": "fg.errors",
}
DIRECTIVE = re.compile(r"^::: (\S+)\n((?:    .*\n)*)", re.M)


def public_names(module_name: str) -> list[str]:
    """`__all__` less submodules, or else the public names the module defines."""
    module = importlib.import_module(module_name)
    names = getattr(module, "__all__", None)
    if names is None:
        names = [n for n in dir(module) if not n.startswith("_")
                 and getattr(getattr(module, n), "__module__", None) == module_name]
    return [n for n in names if not isinstance(getattr(module, n), types.ModuleType)]


def undocumented(pages: dict[str, str]) -> list[str]:
    """Public names that no reference page renders (a `::: module` directive listing them)
    or names in its text (`fg.optim.Schedule`)."""
    rendered = set()
    for text in pages.values():
        for match in DIRECTIVE.finditer(text):
            rendered.update(f"{match.group(1)}.{name}"
                            for name in re.findall(r"^        - (\S+)$", match.group(2), re.M))
    everything = "\n".join(pages.values())
    missing = []
    for module_name, prefix in NAMESPACES.items():
        for name in public_names(module_name):
            if (f"{module_name}.{name}" not in rendered
                    and not re.search(rf"`{re.escape(prefix)}\.{name}\b", everything)):
                missing.append(f"{prefix}.{name}")
    for dist in fg.scipy.stats.__all__:
        if not isinstance(getattr(fg.scipy.stats, dist), types.ModuleType):
            continue  # (sem, rankdata, ...: functions, checked above as fg.scipy.stats.*)
        for name in getattr(fg.scipy.stats, dist).__all__:
            if f"fungrad.scipy.stats.{dist}.{name}" not in rendered:
                missing.append(f"fg.scipy.stats.{dist}.{name}")
    return missing


def reference_pages_text() -> dict[str, str]:
    return {str(p): p.read_text() for p in sorted((DOCS / "reference").rglob("*.md"))}


def test_reference_pages_of_fnp_are_up_to_date():
    assert reference_pages.main(["--check"]) == 0, "run python docs/reference_pages.py"


def test_reference_documents_every_public_name():
    assert undocumented(reference_pages_text()) == []


def test_reference_completeness_check_can_fail():
    pages = reference_pages_text()
    pages = {path: text.replace("        - hessian\n", "") for path, text in pages.items()}
    assert undocumented(pages) == ["fg.hessian"]
