"""Take from a submission only what defines things: imports, functions, classes, constants.

Students move, add, delete and retype cells, and leave experiments everywhere. So the grader
does not run a notebook: it parses each code cell with ``ast`` and keeps only imports, function
and class definitions, and assignments to names (``log = logging.getLogger(__name__)``,
``QUERY = "DELETE ..." + "WHERE ..."``), in notebook order (a later definition wins, as it
would when running the notebook). An assignment is kept unless its value awaits, calls the
graded function or runs an event loop (``asyncio.run``, ``run_until_complete``): that is an
experiment. One whose value is not a literal runs inside ``try``: if it raises, the error is
printed and the rest still runs. Definitions nested in ``if`` and ``try`` blocks are kept with
their block (whatever else the block does is dropped), and definitions inside a ``with`` block
are kept without it (the context manager never runs: defining a function does not need it);
everything else (calls, loops,
``await``s, IPython magics, ``!`` shell lines and ``x?`` help lines) is dropped and never
runs. A ``.py`` file goes through the same filter (its
``if __name__ == "__main__":`` block is kept but never true: the submission's module is not
``__main__``).

This runs inside the sandbox, before the submission's code: a huge or malicious file costs
the sandbox its own memory and time, never the grader's.
"""

from __future__ import annotations

import ast
import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Optional

SUFFIXES = (".ipynb", ".py")  # compared case-insensitively
MAX_CODE = 2_000_000  # characters of code read from one submission
# Cell magics whose body is Python run in the notebook's namespace: the body is kept.
PYTHON_CELL_MAGICS = ("time", "capture", "prun")


class UnreadableSubmission(ValueError):
  """The file is not something the grader can take code from (the message says why)."""


@dataclass
class Extracted:
  """The code to run for one submission, and what the extraction noticed."""

  code: str = ""
  found: bool = False  # is the exercise's function defined in ``code``?
  is_async: Optional[bool] = None  # how the last definition of it is written
  notes: list[str] = field(default_factory=list)  # worth a line in the gradebook
  info: list[str] = field(default_factory=list)  # for the student's feedback page only
  error: Optional[str] = None  # nothing can run (unreadable file, whole file does not parse)


def kind(path: Path) -> str:
  """".ipynb" or ".py" (whatever the case of the file's suffix), or ""."""
  suffix = path.suffix.lower()
  return suffix if suffix in SUFFIXES else ""


def read_cells(path: Path) -> list[tuple[str, str]]:
  """``(label, source)`` of every code cell (a ``.py`` file is one cell called "file")."""
  text = path.read_text(encoding="utf-8-sig", errors="replace")  # a BOM is no syntax error
  if kind(path) == ".py":
    return [("file", text)]
  notebook = json.loads(text)
  if not isinstance(notebook, dict):
    raise UnreadableSubmission("it is JSON but not a notebook")
  version = notebook.get("nbformat")
  if "worksheets" in notebook or (isinstance(version, int) and version < 4):
    raise UnreadableSubmission(
        f"unsupported notebook format (nbformat {version if version is not None else 3}): "
        "open it in Jupyter and save it again, as nbformat 4, then hand it in")
  cells = notebook.get("cells")
  if not isinstance(cells, list):
    raise UnreadableSubmission("it is JSON but has no list of cells")
  found = []
  for number, cell in enumerate(cells, start=1):
    if not isinstance(cell, dict) or cell.get("cell_type") != "code":
      continue
    source = cell.get("source", "")
    if isinstance(source, list) and all(isinstance(s, str) for s in source):
      source = "".join(source)
    if not isinstance(source, str):
      raise UnreadableSubmission(f"cell {number}'s source is neither text nor lines")
    found.append((f"cell {number}", source))
  return found


def _scan(line: str, state: dict) -> None:
  """Advance the lexical state (open brackets, open string, backslash) over one line."""
  i, n, comment = 0, len(line), False
  while i < n:
    quote = state["string"]
    char = line[i]
    if quote:
      if char == "\\":
        i += 2
        continue
      if line.startswith(quote, i):
        state["string"] = None
        i += len(quote)
        continue
      i += 1
      continue
    if char == "#":
      comment = True
      break
    if char in "\"'":
      triple = line[i:i + 3]
      state["string"] = triple if triple in ('"""', "'''") else char
      i += len(state["string"])
      continue
    if char in "([{":
      state["depth"] += 1
    elif char in ")]}":
      state["depth"] = max(0, state["depth"] - 1)
    i += 1
  ends_with_backslash = line.rstrip().endswith("\\")
  state["continued"] = ends_with_backslash and not comment and not state["string"]
  if state["string"] in ('"', "'") and not ends_with_backslash:
    state["string"] = None  # a one-quote string cannot span lines: the line is broken anyway


# ``forget_user?``, ``?x``, ``x.attr??``, ``??x``, ``*user*?``: IPython's help, never Python
_HELP_LINE = re.compile(r"^(\?{1,2}\s*[\w.*\[\]'\"]+|[\w.*\[\]'\"]+\s*\?{1,2})\s*(#.*)?$")


def _is_ipython_line(stripped: str) -> bool:
  """``%magic``, ``!shell``, ``x = !cmd``, ``x = %magic`` (not ``!=``, ``%`` in an expression),
  and help lines (``x?``, ``?x``, ``x??``)."""
  if stripped.startswith("%") or (stripped.startswith("!") and not stripped.startswith("!=")):
    return True
  if _HELP_LINE.match(stripped.rstrip()):
    return True
  head, sep, tail = stripped.partition("=")
  tail = tail.lstrip()
  if sep and tail[:1] in ("!", "%") and not tail.startswith("!=") and head.strip() and all(
      part.strip().isidentifier() for part in head.replace(",", " ").split()):
    return True
  return False


def strip_ipython(source: str) -> str:
  """Blank out IPython-only syntax. A ``%%`` cell magic drops the cell unless its body is
  Python (``%%time``, ``%%capture``, ``%%prun``: the magic line goes, the body stays); a
  ``%``/``!`` line goes only where a statement starts (a continuation line beginning with
  ``!=`` or ``%`` is Python). Lines are blanked, not removed, so that line numbers still match
  the notebook."""
  lines = source.splitlines()
  first = next((i for i, line in enumerate(lines) if line.strip()), None)
  if first is not None and lines[first].lstrip().startswith("%%"):
    magic = lines[first].lstrip()[2:].split()
    if not magic or magic[0] not in PYTHON_CELL_MAGICS:
      return ""
    lines[first] = ""
  state = {"depth": 0, "string": None, "continued": False}
  out = []
  for line in lines:
    at_start = state["depth"] == 0 and not state["string"] and not state["continued"]
    if at_start and _is_ipython_line(line.lstrip()):
      out.append("")
      continue
    out.append(line)
    _scan(line, state)
  return "\n".join(out)


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


_EVENT_LOOP_CALLS = ("run", "run_until_complete", "run_forever", "gather")


def _is_experiment(value: Optional[ast.AST], function: Optional[str]) -> bool:
  """Does this assigned value await, call the graded function or run an event loop?"""
  if value is None:
    return False
  for node in ast.walk(value):
    if isinstance(node, (ast.Await, ast.Yield, ast.YieldFrom)):
      return True
    if isinstance(node, ast.Call):
      func = node.func
      name = (func.id if isinstance(func, ast.Name) else
              func.attr if isinstance(func, ast.Attribute) else None)
      if function is not None and name == function:
        return True
      if isinstance(func, ast.Attribute) and name in _EVENT_LOOP_CALLS:
        return True
  return False


def _assigned_value(node: ast.stmt) -> tuple[bool, Optional[ast.AST]]:
  """(is this an assignment to plain names, its value)."""
  if isinstance(node, ast.Assign):
    return all(_is_name_target(t) for t in node.targets), node.value
  if isinstance(node, (ast.AnnAssign, ast.AugAssign)):
    return isinstance(node.target, ast.Name), node.value
  return False, None


def keep(node: ast.stmt, function: Optional[str] = None) -> bool:
  """Is this simple statement a definition (kept whole) rather than an action (dropped)?
  ``function``: the graded function (an assignment that calls it is an experiment)."""
  if isinstance(node, (ast.Import, ast.ImportFrom, ast.FunctionDef, ast.AsyncFunctionDef,
                       ast.ClassDef)):
    return True
  named, value = _assigned_value(node)
  if named:
    return not _is_experiment(value, function)
  if isinstance(node, ast.Try):  # try: import x / except ImportError: x = None
    statements = node.body + node.orelse + node.finalbody + [
        s for handler in node.handlers for s in handler.body]
    return all(isinstance(s, ast.Pass) or keep(s, function) for s in statements)
  return False


def _guarded(node: ast.stmt, label: str) -> ast.stmt:
  """``node`` (an assignment whose value runs code) inside ``try``: if it raises, a line
  saying so is printed and the definitions after it still run."""
  line = getattr(node, "lineno", 0)
  handler = ast.parse(
      "try:\n    pass\nexcept Exception as _grader_error:\n"
      f"    __import__('sys').stderr.write('(grader) {label}, line {line}: this assignment "
      "raised %s: %s; the rest of the definitions still run\\n' % "
      "(type(_grader_error).__name__, _grader_error))\n").body[0]
  handler.body = [node]
  return ast.fix_missing_locations(handler)


_PURE = (ast.Name, ast.Attribute, ast.Constant, ast.Compare, ast.BoolOp, ast.UnaryOp,
         ast.Subscript, ast.Tuple, ast.List, ast.Slice, ast.expr_context, ast.boolop,
         ast.unaryop, ast.cmpop)


def _is_pure(test: ast.expr) -> bool:
  """A condition that only reads names and constants (``TYPE_CHECKING``,
  ``sys.version_info >= (3, 11)``, ``__name__ == "__main__"``): safe to evaluate."""
  return all(isinstance(node, _PURE) for node in ast.walk(test))


def filter_statement(node: ast.stmt, function: Optional[str] = None,
                     label: str = "file") -> list[ast.stmt]:
  """What of one statement is kept: the statement itself if it is a definition, an ``if``
  or ``try`` reduced to the definitions inside it, or nothing."""
  if keep(node, function):
    named, value = _assigned_value(node)
    if named and not _is_literal(value):
      return [_guarded(node, label)]
    return [node]
  if isinstance(node, ast.If):
    body = filter_block(node.body, function, label)
    orelse = filter_block(node.orelse, function, label)
    if not body and not orelse:
      return []
    if _is_pure(node.test):
      return [ast.If(test=node.test, body=body or [ast.Pass()], orelse=orelse)]
    return body + orelse  # a condition that calls code: both branches, the later one wins
  if isinstance(node, ast.With):  # with warnings.catch_warnings(): def f(...)
    return filter_block(node.body, function, label)  # the definitions, outside the block
  if isinstance(node, (ast.Try, getattr(ast, "TryStar", ast.Try))):
    body = filter_block(node.body, function, label)
    handlers = [ast.ExceptHandler(type=h.type, name=h.name,
                                  body=filter_block(h.body, function, label) or [ast.Pass()])
                for h in node.handlers]
    orelse = filter_block(node.orelse, function, label)
    final = filter_block(node.finalbody, function, label)
    if not (body or orelse or final or any(not isinstance(h.body[0], ast.Pass)
                                           for h in handlers)):
      return []
    if not handlers and not final:
      return body + orelse
    return [ast.Try(body=body or [ast.Pass()], handlers=handlers, orelse=orelse,
                    finalbody=final)]
  return []


def filter_block(statements: list[ast.stmt], function: Optional[str] = None,
                 label: str = "file") -> list[ast.stmt]:
  return [kept for statement in statements
          for kept in filter_statement(statement, function, label)]


def _definitions(statements: list[ast.stmt]):
  """Function and class definitions at module level, also inside kept ``if``/``try``."""
  for node in statements:
    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
      yield node
    elif isinstance(node, ast.If):
      yield from _definitions(node.body + node.orelse)
    elif isinstance(node, ast.Try):
      yield from _definitions(node.body + node.orelse + node.finalbody + [
          s for h in node.handlers for s in h.body])


def _imports(statements: list[ast.stmt]):
  for node in ast.walk(ast.Module(body=statements, type_ignores=[])):
    if isinstance(node, (ast.Import, ast.ImportFrom)):
      yield node


def _first_line(node: ast.stmt) -> int:
  decorators = getattr(node, "decorator_list", [])
  return min([node.lineno] + [d.lineno for d in decorators])


def extract(path: Path, function: str, max_code: int = MAX_CODE) -> Extracted:
  """The definitions of a submission, as one Python source text."""
  result = Extracted()
  suffix = kind(path)
  try:
    cells = read_cells(path)
  except UnreadableSubmission as error:
    result.error = f"the notebook cannot be graded: {error}"
    return result
  except (OSError, ValueError, RecursionError) as error:
    result.error = f"the file cannot be read as a {suffix or path.suffix} file ({error})"
    return result
  size = sum(len(source) for _, source in cells)
  if size > max_code:
    result.error = (f"the file holds {size:,} characters of code, more than the "
                    f"{max_code:,} the grader reads: hand in only your exercise")
    return result
  futures: list[str] = []
  blocks: list[str] = []
  dropped = 0
  imported = False
  for label, raw in cells:
    source = strip_ipython(raw) if suffix == ".ipynb" else raw
    try:
      tree = ast.parse(source)
    except (SyntaxError, ValueError, RecursionError, MemoryError) as error:
      where = f"line {error.lineno}" if getattr(error, "lineno", None) else "?"
      text = error.msg if isinstance(error, SyntaxError) else type(error).__name__
      message = f"{label} does not parse ({type(error).__name__}: {text}, {where})"
      if suffix == ".py":
        result.error = message.replace("file does not parse", "the file does not parse")
        return result
      result.notes.append(message + ": skipped")
      continue
    lines = source.splitlines()
    for node in tree.body:
      if isinstance(node, ast.ImportFrom) and node.module == "__future__":
        futures.append(ast.unparse(node))
        continue
      kept = filter_statement(node, function, label)
      if not kept:
        if not (isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant)):
          dropped += 1
        continue
      if kept == [node]:
        text = "\n".join(lines[_first_line(node) - 1: node.end_lineno])
      else:  # a block reduced to its definitions
        text = "\n".join(ast.unparse(statement) for statement in kept)
      blocks.append(f"# --- {label}, line {_first_line(node)}\n{text}")
      for definition in _definitions(kept):
        if definition.name != function:
          continue
        result.found = True
        result.is_async = (isinstance(definition, ast.AsyncFunctionDef)
                           if not isinstance(definition, ast.ClassDef) else None)
      if any((alias.asname or alias.name) == function
             for node_ in _imports(kept) for alias in node_.names):
        imported = True
  header = "\n".join(dict.fromkeys(futures))
  result.code = "\n\n".join(([header] if header else []) + blocks) + "\n"
  if dropped:
    result.info.append(f"{dropped} statement(s) that are not imports or definitions were "
                       "not run (scratch work is ignored)")
  if not result.found:
    if imported:
      result.notes.append(f"`{function}` is imported, not defined: write it in your file")
    else:
      result.notes.append(_not_found(cells, suffix, function))
  return result


_BLOCK_WORDS = {ast.For: "a `for` loop", ast.AsyncFor: "an `async for` loop",
                ast.While: "a `while` loop", ast.AsyncWith: "an `async with` block",
                ast.FunctionDef: "another function", ast.AsyncFunctionDef: "another function",
                ast.ClassDef: "a class"}


def _not_found(cells: list[tuple[str, str]], suffix: str, function: str) -> str:
  """Why the function was not found: nowhere at all, or where it is and why the grader does
  not take it from there."""
  for label, raw in cells:
    source = strip_ipython(raw) if suffix == ".ipynb" else raw
    try:
      tree = ast.parse(source)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
      continue
    for top in tree.body:
      for node in ast.walk(top):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name == function \
            and node is not top:
          where = next((words for kind, words in _BLOCK_WORDS.items()
                        if isinstance(top, kind)), f"a `{type(top).__name__}` statement")
          if getattr(ast, "Match", None) is not None and isinstance(top, ast.Match):
            where = "a `match` statement"
          return (f"`{function}` is defined inside {where} ({label}, line {node.lineno}): the "
                  "grader runs only what a file defines at its top level (or inside if, try "
                  "and with blocks), so it never runs that block; move the definition out of "
                  "it")
  return f"no function named `{function}` was found"
