"""Take from a submission only what defines things: imports, functions, classes, constants.

Students move, add, delete and retype cells, and leave experiments everywhere. So the grader
does not run a notebook: it parses each code cell with ``ast`` and keeps only top-level
imports, function and class definitions, and assignments of literal constants, in notebook
order (a later definition wins, as it would when running the notebook). Everything else
(calls, loops, ``await``s, ``asyncio.run(...)``, IPython magics and ``!`` shell lines) is
dropped and never runs. A ``.py`` file goes through the same filter (its
``if __name__ == "__main__":`` block is dropped too).
"""

from __future__ import annotations

import ast
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Optional

SUFFIXES = (".ipynb", ".py")


@dataclass
class Extracted:
  """The code to run for one submission, and what the extraction noticed."""

  code: str = ""
  found: bool = False  # is the exercise's function defined in ``code``?
  is_async: Optional[bool] = None  # how the last definition of it is written
  notes: list[str] = field(default_factory=list)  # worth a line in the gradebook
  info: list[str] = field(default_factory=list)  # for the student's feedback page only
  error: Optional[str] = None  # nothing can run (unreadable file, whole file does not parse)


def read_cells(path: Path) -> list[tuple[str, str]]:
  """``(label, source)`` of every code cell (a ``.py`` file is one cell called "file")."""
  text = path.read_text(encoding="utf-8", errors="replace")
  if path.suffix == ".py":
    return [("file", text)]
  notebook = json.loads(text)
  cells = []
  for number, cell in enumerate(notebook.get("cells", []), start=1):
    if cell.get("cell_type") != "code":
      continue
    source = cell.get("source", "")
    cells.append((f"cell {number}", "".join(source) if isinstance(source, list) else source))
  return cells


def strip_ipython(source: str) -> str:
  """Blank out IPython-only syntax: a ``%%`` cell magic drops the cell, ``%``/``!`` lines go.

  Lines are blanked rather than removed so that line numbers still match the notebook.
  """
  lines = source.splitlines()
  first = next((line.strip() for line in lines if line.strip()), "")
  if first.startswith("%%"):
    return ""
  return "\n".join("" if line.lstrip().startswith(("%", "!")) else line for line in lines)


def _is_literal(node: Optional[ast.AST]) -> bool:
  if node is None:
    return True
  try:
    ast.literal_eval(node)
  except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
    return False
  return True


def _is_name_target(node: ast.AST) -> bool:
  if isinstance(node, ast.Name):
    return True
  if isinstance(node, (ast.Tuple, ast.List)):
    return all(isinstance(e, ast.Name) for e in node.elts)
  return False


def keep(node: ast.stmt) -> bool:
  """Is this top-level statement a definition (kept) rather than an action (dropped)?"""
  if isinstance(node, (ast.Import, ast.ImportFrom, ast.FunctionDef, ast.AsyncFunctionDef,
                       ast.ClassDef)):
    return True
  if isinstance(node, ast.Assign):
    return all(_is_name_target(t) for t in node.targets) and _is_literal(node.value)
  if isinstance(node, ast.AnnAssign):
    return isinstance(node.target, ast.Name) and _is_literal(node.value)
  if isinstance(node, ast.Try):  # try: import x / except ImportError: x = None
    statements = node.body + node.orelse + node.finalbody + [
        s for handler in node.handlers for s in handler.body]
    return all(isinstance(s, ast.Pass) or keep(s) for s in statements)
  return False


def _first_line(node: ast.stmt) -> int:
  decorators = getattr(node, "decorator_list", [])
  return min([node.lineno] + [d.lineno for d in decorators])


def extract(path: Path, function: str) -> Extracted:
  """The definitions of a submission, as one Python source text."""
  result = Extracted()
  try:
    cells = read_cells(path)
  except (OSError, ValueError) as error:
    result.error = f"the file cannot be read as a {path.suffix} file ({error})"
    return result
  futures: list[str] = []
  blocks: list[str] = []
  dropped = 0
  imported = False
  for label, raw in cells:
    source = strip_ipython(raw) if path.suffix == ".ipynb" else raw
    try:
      tree = ast.parse(source)
    except (SyntaxError, ValueError) as error:
      where = f"line {error.lineno}" if getattr(error, "lineno", None) else "?"
      message = f"{label} does not parse ({type(error).__name__}: {error.msg if isinstance(error, SyntaxError) else error}, {where})"
      if path.suffix == ".py":
        result.error = message.replace("file does not parse", "the file does not parse")
        return result
      result.notes.append(message + ": skipped")
      continue
    lines = source.splitlines()
    for node in tree.body:
      if isinstance(node, ast.ImportFrom) and node.module == "__future__":
        futures.append(ast.unparse(node))
        continue
      if not keep(node):
        if not (isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant)):
          dropped += 1
        continue
      segment = "\n".join(lines[_first_line(node) - 1: node.end_lineno])
      blocks.append(f"# --- {label}, line {_first_line(node)}\n{segment}")
      if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name == function:
        result.found = True
        result.is_async = isinstance(node, ast.AsyncFunctionDef)
      elif isinstance(node, ast.ClassDef) and node.name == function:
        result.found, result.is_async = True, None
      elif isinstance(node, (ast.Import, ast.ImportFrom)) and any(
          (alias.asname or alias.name) == function for alias in node.names):
        imported = True
  header = "\n".join(dict.fromkeys(futures))
  result.code = "\n\n".join(([header] if header else []) + blocks) + "\n"
  if dropped:
    result.info.append(f"{dropped} statement(s) that are not imports or definitions were "
                        "not run (scratch work is ignored)")
  if not result.found:
    result.notes.append(f"`{function}` is imported, not defined: write it in your file"
                        if imported else f"no function named `{function}` was found")
  return result
