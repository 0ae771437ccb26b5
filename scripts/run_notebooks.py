"""Execute notebooks in place so that their committed outputs are the real ones.

    python scripts/run_notebooks.py                    # every lesson in notebooks/
    python scripts/run_notebooks.py notebooks/01_*.ipynb

Then regenerates the French and Indonesian notebooks (``python -m adkcourse.i18n generate``).

Runs each notebook top to bottom in this environment's kernel, offline (the committed outputs
are the offline model's), with scratch data in a temporary folder, and rewrites the file only
when every cell succeeded. Never edit outputs by hand: run this and commit the result.

The saved widget state (``metadata.widgets``, which nbclient writes) is dropped: with it,
``jupyter nbconvert --to html`` and nbviewer render each quiz as an empty placeholder that needs
a script from a CDN, and ignore the quiz's readable HTML fallback (the questions and options,
never the answers). Without it they show the fallback, and JupyterLab re-creates the widgets
when the cells run.
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path

import nbformat
from nbclient import NotebookClient
from nbclient.exceptions import CellExecutionError

from adkcourse.scratch import reproducible_environment

ROOT = Path(__file__).resolve().parent.parent


def execute(path: Path, timeout: int) -> float:
  notebook = nbformat.read(path, as_version=4)
  client = NotebookClient(notebook, timeout=timeout, kernel_name="python3",
                          resources={"metadata": {"path": str(path.parent)}},
                          record_timing=False)
  started = time.perf_counter()
  client.execute()
  elapsed = time.perf_counter() - started
  for cell in notebook.cells:
    if cell.cell_type == "code":
      cell.outputs = merge_streams(cell.outputs)
  drop_widget_state(notebook)
  nbformat.write(notebook, path)
  return elapsed


def merge_streams(outputs: list) -> list:
  """One stdout (or stderr) block where the kernel happened to flush in several pieces, so the
  committed outputs do not change with flush timing."""
  merged: list = []
  for output in outputs:
    previous = merged[-1] if merged else None
    if (output.get("output_type") == "stream" and previous is not None
        and previous.get("output_type") == "stream" and previous.get("name") == output.get("name")):
      previous["text"] = "".join(previous["text"]) + "".join(output["text"])
    else:
      merged.append(output)
  return merged


def drop_widget_state(notebook: nbformat.NotebookNode) -> nbformat.NotebookNode:
  """The notebook without saved widget state, so exports show the quizzes' text fallback."""
  notebook.metadata.pop("widgets", None)
  return notebook


def main(argv: list[str] | None = None) -> int:
  parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
  parser.add_argument("paths", nargs="*", type=Path)
  parser.add_argument("--timeout", type=int, default=300, help="seconds per cell")
  parser.add_argument("--no-translations", action="store_true",
                      help="do not regenerate notebooks/<lang>/ afterwards")
  args = parser.parse_args(argv)
  paths = args.paths or sorted((ROOT / "notebooks").glob("*.ipynb"))
  from adkcourse.i18n import LANGUAGES
  generated = [p for p in paths if p.resolve().parent.name in LANGUAGES]
  if generated:
    print(f"{generated[0]} is generated from its English notebook: run "
          f"notebooks/{generated[0].name} instead (its translations follow)", file=sys.stderr)
    return 2
  scratch = tempfile.mkdtemp(prefix="adkcourse-run-")
  os.environ.update(reproducible_environment(scratch))
  failures = 0
  try:
    for path in paths:
      try:
        seconds = execute(path, args.timeout)
        print(f"ok    {path.name}  ({seconds:.1f} s)")
      except CellExecutionError as error:
        failures += 1
        print(f"FAIL  {path.name}: not rewritten\n{error}", file=sys.stderr)
  finally:
    shutil.rmtree(scratch, ignore_errors=True)
  # The French and Indonesian notebooks are copies of the executed English ones with translated
  # markdown: regenerate them now, so their code outputs are these (never run them separately).
  if not args.no_translations:
    from adkcourse.i18n.cli import main as i18n
    i18n(["generate"])
  return 1 if failures else 0


if __name__ == "__main__":
  sys.exit(main())
