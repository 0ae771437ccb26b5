"""Only imports and definitions are taken from a submission, wherever they sit."""

from __future__ import annotations

from pathlib import Path

from adkcourse.grade.demo import notebook
from adkcourse.grade.extract import extract, keep, strip_ipython


def write_nb(tmp_path: Path, cells: list[str], name: str = "student.ipynb") -> Path:
  path = tmp_path / name
  path.write_text(notebook(cells))
  return path


def run(code: str) -> dict:
  namespace: dict = {}
  exec(compile(code, "submission.py", "exec"), namespace)
  return namespace


def test_definitions_are_found_in_any_cell_and_scratch_is_dropped(tmp_path):
  path = write_nb(tmp_path, [
      "raise SystemExit('a scratch cell: must never run')",
      "LIMIT = 3\nNAMES = ('a', 'b')\ncomputed = len(NAMES)",
      "%load_ext autoreload\n!pip install nothing\nimport math",
      "async def forget_user(service, db_path, app_name, user_id):\n    return math.pi * LIMIT",
      "await forget_user(None, None, None, None)",
  ])
  result = extract(path, "forget_user")
  assert result.found and result.is_async and result.error is None
  namespace = run(result.code)
  assert namespace["LIMIT"] == 3 and namespace["NAMES"] == ("a", "b")
  assert namespace["computed"] == 2  # an assignment: kept (it runs in the sandbox)
  assert "SystemExit" not in result.code and "await forget_user" not in result.code
  assert any("2 statement(s)" in line for line in result.info)


def test_later_definition_wins_like_running_the_notebook(tmp_path):
  path = write_nb(tmp_path, ["def f():\n    return 1", "def f():\n    return 2"])
  assert run(extract(path, "f").code)["f"]() == 2


def test_cell_magic_cells_and_future_imports(tmp_path):
  path = write_nb(tmp_path, ["%%bash\necho hi", "x = 1",
                             "from __future__ import annotations\ndef f(a: Undefined) -> 1:\n"
                             "    return x"])
  result = extract(path, "f")
  assert result.code.startswith("from __future__ import annotations")
  assert run(result.code)["f"](0) == 1


def test_a_cell_that_does_not_parse_is_skipped_with_a_note(tmp_path):
  path = write_nb(tmp_path, ["def broken(:\n    pass", "def f():\n    return 1"])
  result = extract(path, "f")
  assert result.found
  assert result.notes == ["cell 2 does not parse (SyntaxError: invalid syntax, line 1): skipped"]


def test_script_that_does_not_parse_is_an_error(tmp_path):
  path = tmp_path / "student.py"
  path.write_text("def f(:\n  pass\n")
  result = extract(path, "f")
  assert not result.found
  assert result.error.startswith("the file does not parse (SyntaxError")


def test_main_block_and_calls_of_a_script_are_dropped(tmp_path):
  path = tmp_path / "student.py"
  path.write_text("import sys\n\ndef f():\n    return 1\n\nsys.exit(3)\n"
                  "if __name__ == '__main__':\n    f()\n")
  result = extract(path, "f")
  assert run(result.code)["f"]() == 1
  assert "sys.exit(3)" not in result.code


def test_decorators_and_classes_are_kept_with_line_numbers(tmp_path):
  path = write_nb(tmp_path, ["import functools\n\n@functools.lru_cache\ndef f():\n    return 5",
                             "class Helper:\n    value = 7"])
  result = extract(path, "f")
  assert "# --- cell 2, line 3\n@functools.lru_cache" in result.code  # cell 1: markdown
  namespace = run(result.code)
  assert namespace["f"]() == 5 and namespace["Helper"].value == 7


def test_missing_or_imported_function(tmp_path):
  assert extract(write_nb(tmp_path, ["def other():\n    pass"]), "f").notes[-1] == (
      "no function named `f` was found")
  imported = extract(write_nb(tmp_path, ["from solutions.forget_user import forget_user"]),
                     "forget_user")
  assert not imported.found
  assert imported.notes[-1] == "`forget_user` is imported, not defined: write it in your file"


def test_unreadable_notebook(tmp_path):
  path = tmp_path / "student.ipynb"
  path.write_text("{ not json")
  result = extract(path, "f")
  assert result.error.startswith("the file cannot be read as a .ipynb file")


def test_keep_rules():
  import ast

  def kept(source: str) -> bool:
    return keep(ast.parse(source).body[0])

  assert kept("import os") and kept("from a import b") and kept("X = -1")
  assert kept("A, B = 1, 2") and kept("C: int = 3") and kept("D = {'k': [1, 2]}")
  assert kept("try:\n    import numpy\nexcept ImportError:\n    numpy = None")
  assert kept("x = f()") and kept("log = logging.getLogger(__name__)") and kept("Q = 'a' + 'b'")
  assert kept("n: int = len(X)") and kept("n += 1")
  assert not kept("print('hi')") and not kept("obj.attr = 1")
  assert not keep(ast.parse("r = forget_user(1)").body[0], "forget_user")
  assert not keep(ast.parse("r = m.forget_user(1)").body[0], "forget_user")
  assert not kept("r = await f()") and not kept("r = asyncio.run(f())")
  assert not kept("r = loop.run_until_complete(f())")
  assert not kept("for i in range(3):\n    pass") and not kept("while True:\n    pass")
  assert not kept("try:\n    run()\nexcept Exception:\n    pass")
  assert strip_ipython("%%bash\nls") == "" and strip_ipython("%%writefile a.py\nx = 1") == ""
  assert strip_ipython("%%time\nx = 1") == "\nx = 1"  # a Python cell magic: the body stays
  assert strip_ipython("x = 1\n  !ls\n%pwd") == "x = 1\n\n"
  assert strip_ipython("files = !ls\nx, y = %who_ls") == "\n"


def test_help_lines_are_blanked_not_a_syntax_error(tmp_path):
  """``forget_user?``, ``?x``, ``x??`` in the solution cell used to drop the cell (0/13)."""
  cell = ("import math\n\nasync def forget_user(a, b, c, d):\n    return math.pi\n\n"
          "forget_user?\n?math.pi\nmath??\n??math  # source\nx = (1 if True\n     else 2)")
  assert strip_ipython(cell).splitlines()[5:9] == ["", "", "", ""]
  result = extract(write_nb(tmp_path, [cell]), "forget_user")
  assert result.found and result.notes == [] and run(result.code)["x"] == 1
  assert strip_ipython("s = '''\nx?\n'''") == "s = '''\nx?\n'''"  # inside a string: text


def test_module_level_assignments_the_function_uses_are_kept(tmp_path):
  """A logger, a query built by concatenation: kept (they used to be dropped: NameError).
  Experiments (await, a call of the graded function, asyncio.run) are still dropped, and an
  assignment that raises does not stop the definitions after it."""
  path = tmp_path / "student.py"
  path.write_text(
      "import asyncio, logging\nlog = logging.getLogger(__name__)\n"
      "DELETE_STATE = 'DELETE FROM t ' + 'WHERE a = ?'\nrows: list = [] + [1]\n"
      "broken = open('/nonexistent/file').read()\n"
      "ran = asyncio.run(forget_user(1))\nalso = forget_user(2)\n"
      "awaited = await forget_user(3)\n"
      "async def forget_user(x):\n    raise SystemExit('an experiment ran')\n"
      "def f():\n    return log.name, DELETE_STATE, rows\n")
  result = extract(path, "forget_user")
  namespace = run(result.code)
  assert namespace["f"]()[1:] == ("DELETE FROM t WHERE a = ?", [1])
  assert "broken" not in namespace and "forget_user" in namespace
  assert not {"ran", "also", "awaited"} & set(namespace)
  assert any("3 statement(s)" in line for line in result.info)


def test_continuation_lines_that_start_like_magics_are_python():
  source = ("x = (1\n     != 2)\ny = (10\n     % 3)\nz = 7 \\\n    % 2\n"
            "s = \'\'\'\n%not a magic\n!nor a shell\n\'\'\'\n%magic\n!shell")
  assert strip_ipython(source) == "\n".join(source.splitlines()[:-2] + ["", ""])
  namespace = run(strip_ipython(source))
  assert namespace["x"] is True and namespace["y"] == 1 and namespace["z"] == 1
  assert "%not a magic" in namespace["s"]


def test_definitions_inside_if_and_try_are_kept_with_their_block(tmp_path):
  path = tmp_path / "student.py"
  path.write_text(
      "import sys\ntry:\n    import numpy\nexcept ImportError:\n    numpy = None\n"
      "    print('side effect')\n"
      "if sys.version_info >= (3, 8):\n    def f():\n        return 1\n    print('x')\n"
      "else:\n    def f():\n        return 2\n"
      "try:\n    def g():\n        return 3\n    g()\nexcept Exception as error:\n"
      "    print(error)\n"
      "if __name__ == '__main__':\n    raise SystemExit('never')\n"
      "if compute():\n    def h():\n        return 4\n")
  result = extract(path, "f")
  assert result.found and result.error is None
  namespace = run(result.code)
  assert namespace["f"]() == 1 and namespace["g"]() == 3 and namespace["h"]() == 4
  assert "print(" not in result.code and "SystemExit" not in result.code
  assert extract(path, "g").found and extract(path, "h").found


def test_old_notebook_formats_and_odd_files_get_a_clear_message(tmp_path):
  import json

  v3 = tmp_path / "old.ipynb"
  v3.write_text(json.dumps({"nbformat": 3, "worksheets": [{"cells": []}]}))
  assert extract(v3, "f").error == (
      "the notebook cannot be graded: unsupported notebook format (nbformat 3): open it in "
      "Jupyter and save it again, as nbformat 4, then hand it in")
  listed = tmp_path / "list.ipynb"
  listed.write_text("[1, 2]")
  assert "not a notebook" in extract(listed, "f").error
  upper = tmp_path / "SHOUT.PY"
  upper.write_text("def f():\n    return 1\n")
  assert extract(upper, "f").found  # the suffix's case does not matter


def test_too_much_code_is_refused_before_parsing(tmp_path):
  path = tmp_path / "big.py"
  path.write_text("X = 1\n" * 1000 + "def f():\n    return 1\n")
  result = extract(path, "f", max_code=1000)
  assert not result.found and "more than the 1,000 the grader reads" in result.error


def test_a_byte_order_mark_is_not_a_syntax_error(tmp_path):
  path = tmp_path / "windows.py"
  path.write_bytes(b"\xef\xbb\xbfdef f():\r\n    return 1\r\n")
  result = extract(path, "f")
  assert result.error is None and run(result.code)["f"]() == 1
