"""Runs the code of the documentation's executed pages and writes each page with its output.

    python docs/execute_pages.py                 # regenerate every page
    python docs/execute_pages.py tutorials/autodiff.md   # one page (path under docs/src)
    python docs/execute_pages.py --check         # fail if a committed page is stale

A source page `docs/src/<path>.md` is Markdown whose ```python blocks run in order, in one
namespace per page, with the generated page's folder as the working directory (so
`plt.savefig("loss.png")` puts the image beside the page, and `![loss](loss.png)` shows
it). Whatever a block prints is written right after it as a ```text block, in the page
`docs/<path>.md`. The info string of a block may add options:

- `python hide`: runs, but neither the code nor its output is shown (set-up);
- `python volatile`: shown with its output, but the output (timings) is not compared by
  `--check`;
- `python no-run`: shown, not run (code that needs what a page cannot have);
- any other language (```bash, ```text) is copied as it is and never run.

tests/test_docs_pages.py runs `--check`, so a page whose code fails, or whose committed
output differs from what its code prints now, fails CI.
"""
from __future__ import annotations

import argparse
import contextlib
import io
import os
import pathlib
import re
import sys
import traceback

DOCS = pathlib.Path(__file__).resolve().parent
SOURCES = DOCS / "src"
FENCE = re.compile(r"^```(\S*)[ \t]*(.*)$")
VOLATILE_MARK = "<!-- volatile output -->"


def generated_path(source: pathlib.Path, out_root: pathlib.Path | None = None) -> pathlib.Path:
    """Where the page generated from `source` (a file under docs/src) is written."""
    return (out_root or DOCS) / source.relative_to(SOURCES)


def split_blocks(text: str):
    """Yield ("text", str) and ("code", lang, options, code) pieces of a Markdown page."""
    lines = text.splitlines(keepends=True)
    prose: list[str] = []
    i = 0
    while i < len(lines):
        match = FENCE.match(lines[i].rstrip("\n"))
        if match and match.group(1):
            end = next((j for j in range(i + 1, len(lines)) if lines[j].rstrip() == "```"), None)
            if end is None:
                raise ValueError(f"unclosed ``` fence at line {i + 1}")
            if prose:
                yield ("text", "".join(prose))
                prose = []
            yield ("code", match.group(1), match.group(2).split(), "".join(lines[i + 1:end]))
            i = end + 1
        else:
            prose.append(lines[i])
            i += 1
    if prose:
        yield ("text", "".join(prose))


def run_block(code: str, namespace: dict, where: str) -> str:
    """Run one block in `namespace`; return what it printed. A failing block raises with
    the page and block named."""
    buffer = io.StringIO()
    with contextlib.redirect_stdout(buffer):
        try:
            exec(compile(code, where, "exec"), namespace)
        except Exception as error:
            raise RuntimeError(f"{where} failed:\n{code}\n{traceback.format_exc()}") from error
    return buffer.getvalue()


def render_page(source: pathlib.Path, out_root: pathlib.Path | None = None) -> str:
    """Execute `source`'s blocks and return the generated Markdown."""
    target = generated_path(source, out_root)
    target.parent.mkdir(parents=True, exist_ok=True)
    relative = source.relative_to(DOCS.parent)
    pieces = [f"<!-- generated from {relative} by docs/execute_pages.py: edit that file -->\n"]
    namespace: dict = {"__name__": "__docs__"}
    previous = os.getcwd()
    os.chdir(target.parent)
    try:
        import numpy as np
        np.random.seed(0)
        with np.printoptions(precision=6, suppress=True):
            for count, piece in enumerate(split_blocks(source.read_text())):
                if piece[0] == "text":
                    pieces.append(piece[1])
                    continue
                _, lang, options, code = piece
                if lang != "python" or "no-run" in options:
                    pieces.append(f"```{lang}\n{code}```\n")
                    continue
                output = run_block(code, namespace, f"{relative} block {count}")
                if "hide" in options:
                    continue
                pieces.append(f"```python\n{code}```\n")
                if output:
                    mark = VOLATILE_MARK + "\n" if "volatile" in options else ""
                    pieces.append(f"{mark}```text\n{output.rstrip()}\n```\n")
    finally:
        os.chdir(previous)
    return "".join(pieces)


def mask_volatile(text: str) -> str:
    """Replace the output blocks marked volatile, so --check compares the rest."""
    return re.sub(re.escape(VOLATILE_MARK) + r"\n```text\n.*?```\n", "(volatile)\n", text,
                  flags=re.S)


def sources(names=()) -> list[pathlib.Path]:
    """The source pages, all or those named (paths under docs/src)."""
    if names:
        return [SOURCES / name for name in names]
    return sorted(SOURCES.rglob("*.md"))


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("pages", nargs="*", help="paths under docs/src (default: all)")
    parser.add_argument("--check", action="store_true",
                        help="write nothing; exit 1 if a committed page differs")
    args = parser.parse_args(argv)
    stale = []
    for source in sources(args.pages):
        if args.check:
            import tempfile
            with tempfile.TemporaryDirectory() as scratch:
                fresh = render_page(source, pathlib.Path(scratch))
            committed = generated_path(source)
            old = committed.read_text() if committed.exists() else ""
            if mask_volatile(old) != mask_volatile(fresh):
                stale.append(str(committed.relative_to(DOCS.parent)))
        else:
            generated_path(source).write_text(render_page(source))
            print("wrote", generated_path(source).relative_to(DOCS.parent))
    if stale:
        print("stale pages (run python docs/execute_pages.py):", *stale, sep="\n  ")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
