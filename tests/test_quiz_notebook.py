"""The quiz in a real kernel, as a lesson runs it: executed with nbclient (which, like
``scripts/run_notebooks.py``, saves the widget state into the notebook's metadata).

Proves that the saved .ipynb shows the questions and options but no answer, explanation or
feedback, that a bank whose answers differ saves the very same notebook, that a Check inside the
kernel (where an event loop is already running) stores the attempt, and that nbconvert's
exports (with or without widget state) read as the question and its options.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import nbformat
import pytest
import yaml
from nbclient import NotebookClient
from nbconvert import HTMLExporter, MarkdownExporter

ROOT = Path(__file__).resolve().parent.parent
SENTINELS = ROOT / "tests" / "data" / "quiz" / "sentinels.yaml"
HIDDEN = re.compile(r"HIDDEN-|73619")
WIDGET_VIEW = "application/vnd.jupyter.widget-view+json"
WIDGET_STATE = "application/vnd.jupyter.widget-state+json"


def _variant(tmp_path: Path) -> Path:
  """The sentinel bank with every answer changed (and nothing else)."""
  questions = yaml.safe_load(SENTINELS.read_text(encoding="utf-8"))
  answers = {"sentinel-single": 0, "sentinel-multiple": [1], "sentinel-numeric": 17,
             "sentinel-text": ["HIDDEN-ANSWER-OTHER"]}
  for question in questions:
    question["answer"] = answers[question["id"]]
  path = tmp_path / "sentinels.yaml"  # same bank name, so the same progress keys
  path.write_text(yaml.safe_dump(questions, sort_keys=False), encoding="utf-8")
  return path


def _widget_tree(state: dict, model_id: str) -> object:
  """A displayed widget's saved state with model ids replaced by the subtrees they point to."""
  def resolve(value: object) -> object:
    if isinstance(value, str) and value.startswith("IPY_MODEL_"):
      return _widget_tree(state, value[len("IPY_MODEL_"):])
    if isinstance(value, list):
      return [resolve(v) for v in value]
    return value
  model = state[model_id]
  return {"model": model["model_name"],
          "state": {k: resolve(v) for k, v in sorted(model["state"].items())}}


@pytest.fixture(scope="module")
def executed(tmp_path_factory):
  """A lesson-like notebook: two quiz cells executed, saved, then answered in the same kernel."""
  tmp_path = tmp_path_factory.mktemp("quiz_notebook")
  home = tmp_path / "home"
  (tmp_path / "variant").mkdir()
  variant = _variant(tmp_path / "variant")
  nb = nbformat.v4.new_notebook()
  nb.cells = [
      nbformat.v4.new_code_cell("from adkcourse.quiz import progress_frame, show_quiz"),
      nbformat.v4.new_code_cell(f"show_quiz({str(SENTINELS)!r})"),
      nbformat.v4.new_code_cell(f"show_quiz({str(variant)!r})"),
  ]
  mp = pytest.MonkeyPatch()
  mp.setenv("ADKCOURSE_HOME", str(home))
  mp.setenv("ADKCOURSE_USER", "kernel-student")
  client = NotebookClient(nb, timeout=120, kernel_name="python3",
                          resources={"metadata": {"path": str(tmp_path)}})
  try:
    with client.setup_kernel():
      for index, cell in enumerate(nb.cells):
        client.execute_cell(cell, index)
      client.set_widgets_metadata()
      saved = tmp_path / "lesson.ipynb"
      nbformat.write(nb, saved)
      answer = nbformat.v4.new_code_cell(
          f"quiz = show_quiz({str(SENTINELS)!r})\n"
          "quiz[0].select(1)\n"
          "quiz[0].check_button.click()\n"
          "print(quiz[0].feedback_text.splitlines()[0], quiz[0].save_error)\n"
          "print(progress_frame()[['question', 'attempt', 'response', 'correct']]"
          ".values.tolist())")
      nb.cells.append(answer)
      client.execute_cell(answer, len(nb.cells) - 1)
  finally:
    mp.undo()
  return {"saved": saved, "answer": answer, "home": home}


def test_saved_notebook_shows_questions_never_answers(executed):
  raw = executed["saved"].read_text(encoding="utf-8")
  for visible in ("VISIBLE-QUESTION-SINGLE", "VISIBLE-OPTION-M1", "VISIBLE-QUESTION-NUMERIC",
                  "VISIBLE-UNIT", "VISIBLE-QUESTION-TEXT"):
    assert visible in raw
  assert not HIDDEN.search(raw), HIDDEN.search(raw)
  notebook = json.loads(raw)
  assert WIDGET_STATE in notebook["metadata"]["widgets"]  # the saved widget state was checked too


def test_one_display_per_quiz_cell(executed):
  notebook = nbformat.read(executed["saved"], as_version=4)
  for cell in notebook.cells[1:3]:
    assert [o.output_type for o in cell.outputs] == ["display_data"]  # no second copy
    assert set(cell.outputs[0].data) == {"text/plain", "text/html", WIDGET_VIEW}
    assert cell.outputs[0].data["text/plain"].startswith("Quiz: 4 questions\n\n1. VISIBLE-")


def test_different_answers_save_the_same_notebook(executed):
  """Nothing in the outputs or the widget state depends on the answers."""
  notebook = nbformat.read(executed["saved"], as_version=4)
  state = notebook.metadata.widgets[WIDGET_STATE]["state"]
  first, second = (cell.outputs[0].data for cell in notebook.cells[1:3])
  assert first["text/plain"] == second["text/plain"]
  assert first["text/html"] == second["text/html"]
  assert _widget_tree(state, first[WIDGET_VIEW]["model_id"]) == \
      _widget_tree(state, second[WIDGET_VIEW]["model_id"])


def test_check_in_the_kernel_stores_the_attempt(executed):
  text = "".join(o.get("text", "") for o in executed["answer"].outputs)
  assert text.splitlines() == ["✘ Not quite. None",
                               "[['sentinel-single', 1, 1, False]]"]
  assert (executed["home"] / "progress.db").exists()


@pytest.mark.parametrize("keep_widget_state", [True, False], ids=["with-state", "no-state"])
def test_nbconvert_exports_read_as_the_questions(executed, keep_widget_state):
  notebook = nbformat.read(executed["saved"], as_version=4)
  if not keep_widget_state:  # GitHub, nbviewer or a stripped notebook
    notebook.metadata.pop("widgets")
  markdown, _ = MarkdownExporter().from_notebook_node(notebook)
  page, _ = HTMLExporter().from_notebook_node(notebook)
  assert "( ) VISIBLE-OPTION-S0" in markdown or "VISIBLE-OPTION-S0</li>" in markdown
  assert "VISIBLE-OPTION-S0" in page
  for rendering in (markdown, page):
    assert not HIDDEN.search(rendering)
  if not keep_widget_state:
    assert "VISIBLE-OPTION-S0</li>" in page  # the HTML fallback, not an empty widget


QUIZ_CALL = re.compile(r"""(?:show_quiz|load_bank)\(\s*["']([^"']+)["']""")
COMMITTED = sorted((ROOT / "notebooks").glob("*.ipynb")) + sorted((ROOT / "docs").glob("*.ipynb"))


def _banks_shown(path: Path) -> list[Path]:
  from adkcourse.quiz.bank import resolve_bank
  code = "\n".join("".join(c["source"]) for c in json.loads(path.read_text())["cells"]
                   if c["cell_type"] == "code")
  banks = []
  for name in QUIZ_CALL.findall(code):
    relative = path.parent / name
    banks.append(relative if relative.exists() else resolve_bank(name))
  return banks


@pytest.mark.parametrize("path", [p for p in COMMITTED if _banks_shown(p)],
                         ids=lambda p: str(p.relative_to(ROOT)))
def test_committed_notebooks_hold_no_explanation_or_feedback(path):
  """The lessons as committed (outputs and saved widget state) give nothing away."""
  from adkcourse.quiz import load_bank
  from adkcourse.quiz.model import languages

  text = json.dumps(json.loads(path.read_text(encoding="utf-8")), ensure_ascii=False)
  for bank_path in _banks_shown(path):
    bank = load_bank(bank_path)
    for question in bank:
      assert json.dumps(question.question if isinstance(question.question, str)
                        else next(iter(question.question.values())),
                        ensure_ascii=False)[1:-1] in text, f"{question.id}: question not shown"
      hidden = [("explanation", question.explanation)] + [
          (f"feedback {i}", f) for i, f in getattr(question, "feedback", {}).items()]
      for name, value in hidden:
        for secret in ([value] if languages(value) is None else list(value.values())):
          assert json.dumps(secret, ensure_ascii=False)[1:-1] not in text, \
              f"{path.name}: the {name} of {question.id} is in the notebook"


@pytest.mark.parametrize("path", [p for p in COMMITTED if _banks_shown(p)],
                         ids=lambda p: str(p.relative_to(ROOT)))
def test_committed_notebooks_export_the_readable_quiz(path):
  """No saved widget state in a committed notebook: with it, nbconvert's HTML shows each quiz as
  an empty placeholder (issue 14, item 3). ``scripts/run_notebooks.py`` drops it."""
  notebook = nbformat.read(path, as_version=4)
  assert "widgets" not in notebook.metadata, (
      f"{path.relative_to(ROOT)} carries saved widget state: its HTML export would show an empty "
      "quiz. Re-run: .venv/bin/python scripts/run_notebooks.py " + str(path.relative_to(ROOT)))
  page, _ = HTMLExporter().from_notebook_node(notebook)
  assert page.count('<div class="adkcourse-quiz">') == len(_banks_shown(path))
