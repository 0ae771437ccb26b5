"""The lessons' "I can…" checklists (adkcourse/quiz/checklist.py): items read from each lesson's
markdown in every language, ticks stored with the quiz progress under the English item's
fingerprint, restored on the next run, and a readable fallback in the committed notebooks."""

from __future__ import annotations

import json
import re
from pathlib import Path

import nbformat
import pytest

from adkcourse.i18n import LANGUAGES, SOURCE_LANGUAGE
from adkcourse.i18n import lessons as lesson_tr
from adkcourse.quiz import ChecklistError, ProgressStore, progress_frame, show_checklist
from adkcourse.quiz.checklist import (HTML_START, Checklist, fallback_data, fingerprint,
                                      notebook_path, parse_items, read_items)
from adkcourse.quiz.progress import APP_NAME, SESSION_ID

ROOT = Path(__file__).resolve().parent.parent
LESSONS = lesson_tr.lesson_names()
ALL_LANGUAGES = [SOURCE_LANGUAGE, *LANGUAGES]
LESSON = "01_sessions_events_state"
VERB = {"fr": "Je sais", "id": "Saya bisa"}


@pytest.fixture(autouse=True)
def home(tmp_path, monkeypatch):
  """A fresh progress file per test."""
  monkeypatch.setenv("ADKCOURSE_HOME", str(tmp_path / "home"))
  monkeypatch.delenv("ADKCOURSE_USER", raising=False)
  return tmp_path / "home"


def _notebook(path: Path, *markdown: str) -> Path:
  notebook = nbformat.v4.new_notebook(cells=[nbformat.v4.new_markdown_cell(m) for m in markdown])
  nbformat.write(notebook, path)
  return path


# -- the items, in every lesson and language -------------------------------------------------------

@pytest.mark.parametrize("lesson", LESSONS)
def test_every_lesson_lists_its_items_in_every_language(lesson):
  items = {lang: read_items(notebook_path(lesson, lang)) for lang in ALL_LANGUAGES}
  english = items[SOURCE_LANGUAGE]
  assert len(english) >= 4, english
  for lang, found in items.items():
    assert len(found) == len(english), f"{lesson} ({lang}): {len(found)} items, English {len(english)}"
    assert all(item and item == item.strip() and not re.search(r"\n|  ", item) for item in found), found
    assert not any(item.startswith("[") for item in found), "the widget draws the boxes"
    if lang in VERB:  # the heading carries the verb: "## Je sais…", "## Saya bisa…"
      assert not [i for i in found if i.lower().startswith(VERB[lang].lower())], found
    # the same code in each item as in the English one
    for ours, theirs in zip(found, english):
      assert sorted(re.findall(r"`[^`]+`", ours)) == sorted(re.findall(r"`[^`]+`", theirs)), \
          f"{lesson} ({lang}): {ours!r} / {theirs!r}"
  assert len({fingerprint(item) for item in english}) == len(english), "two items alike"


@pytest.mark.parametrize("lesson", LESSONS)
def test_the_lesson_shows_its_checklist_by_the_i_can_cell(lesson):
  """The items are in a hidden comment of the "I can…" cell, whose one sentence says where to
  tick them; the checklist is shown in the quiz's cell, the code cell that follows."""
  cells = nbformat.read(ROOT / "notebooks" / f"{lesson}.ipynb", as_version=4).cells
  (index,) = [i for i, c in enumerate(cells) if c.cell_type == "markdown"
              and "<!-- i-can" in c.source]
  source = cells[index].source
  assert "## I can…" in source and "- [ ]" not in source
  sentence = source.split("## I can…", 1)[1].split("<!-- i-can", 1)[0].strip()
  # one sentence, saying what to tick (the items themselves are hidden in the comment) and where
  assert sentence.startswith("Tick what you can do, under the quiz;") and sentence.count(".") == 1, \
      sentence
  shown = next(c for c in cells[index + 1:] if c.cell_type == "code")
  assert f'show_checklist("{lesson}")' in shown.source
  assert f'show_quiz("{lesson}")' in shown.source
  lines = shown.source.splitlines()
  assert lines.index(f'show_quiz("{lesson}")') < lines.index(f'show_checklist("{lesson}")'), \
      "the sentence says the boxes are under the quiz"


@pytest.mark.parametrize("lang", ALL_LANGUAGES)
@pytest.mark.parametrize("lesson", LESSONS)
def test_the_committed_output_is_the_checklist_in_the_notebooks_language(lesson, lang):
  """What GitHub shows: every item, unticked, with the widget's words in the language; the
  French and Indonesian outputs are what `python -m adkcourse.i18n generate` draws."""
  notebook = json.loads(notebook_path(lesson, lang).read_text(encoding="utf-8"))
  outputs = [o for c in notebook["cells"] if c["cell_type"] == "code"
             and "show_checklist(" in "".join(c["source"]) for o in c.get("outputs", [])
             if "".join(o.get("data", {}).get("text/html", "")).startswith(HTML_START)]
  assert len(outputs) == 1, f"{lesson} ({lang}): {len(outputs)} checklist outputs"
  data = outputs[0]["data"]
  expected = fallback_data(read_items(notebook_path(lesson, lang)), lang)
  assert "".join(data["text/plain"]) == expected["text/plain"]
  assert "".join(data["text/html"]) == expected["text/html"]
  assert "application/vnd.jupyter.widget-view+json" in data


def test_the_translation_tools_know_the_checklists_output():
  assert lesson_tr._CHECKLIST_HTML == HTML_START


# -- the comment's format --------------------------------------------------------------------------

def test_items_may_go_on_over_indented_lines():
  text = ("## I can…\n\nTick them.\n\n<!-- i-can\n- one `item`\n- a longer item that\n"
          "  goes on\n\n- three\n-->\n\n## Quiz")
  assert parse_items([text], "x") == ["one `item`", "a longer item that goes on", "three"]
  assert parse_items(["<!--  i-can \n- a\n- b -->"], "x") == ["a", "b"]


@pytest.mark.parametrize("markdown, problem", [
    (["## I can…\n\n- [ ] a\n- [ ] b"], "no `<!-- i-can` comment"),
    (["<!-- i-can\n- a\n- b\n"], "not closed"),
    (["<!-- i-can\n- a\n-->", "<!-- i-can\n- b\n-->"], "2 `<!-- i-can` comments"),
    (["<!-- i-can\n- a\nb\n-->"], "line 2 of the `<!-- i-can` comment is not an item ('b')"),
    (["<!-- i-can\n-a\n-->"], "line 1 of the `<!-- i-can` comment is not an item"),
    (["<!-- i-can\n- [ ] a\n-->"], "has a box"),
    (["<!-- i-can\n\n-->"], "has no items"),
    (["<!-- i-can\n- \n-->"], "line 1 of the `<!-- i-can` comment is an empty item"),
    (["<!-- i-can\n- a\n-\n-->"], "line 2 of the `<!-- i-can` comment is an empty item"),
    (["<!-- i-can\n- a\n  - b\n-->"], "line 2 of the `<!-- i-can` comment is an indented item"),
    (["<!-- i-can - a - b -->"], "is on one line"),
    (["## I can…\n<!-- i-can -->"], "is on one line"),
])
def test_a_malformed_comment_is_a_clear_error(markdown, problem):
  with pytest.raises(ChecklistError, match=re.escape(problem)):
    parse_items(markdown, "notebooks/99_lesson.ipynb")


def test_the_error_names_the_notebook_file(tmp_path):
  path = _notebook(tmp_path / "99_lesson.ipynb", "## I can…\n\n- [ ] a")
  with pytest.raises(ChecklistError, match=rf"^{re.escape(str(path))}: no `<!-- i-can` comment"):
    read_items(path)
  with pytest.raises(ChecklistError, match="99_missing.ipynb: no such notebook"):
    read_items(tmp_path / "99_missing.ipynb")
  with pytest.raises(ChecklistError, match=r"notebooks/fr/99_missing\.ipynb: no such notebook"):
    show_checklist("99_missing", lang="fr")
  with pytest.raises(ValueError, match="unknown language"):
    show_checklist(LESSON, lang="xx")


def test_a_committed_lesson_with_a_broken_comment_is_named(tmp_path, monkeypatch):
  """``show_checklist`` reads the notebook of the lesson: a broken one names its file."""
  from adkcourse.quiz import checklist

  folder = tmp_path / "notebooks"
  folder.mkdir()
  _notebook(folder / f"{LESSON}.ipynb", "## I can…\n\n<!-- i-can\n- a\n")
  monkeypatch.setattr(checklist, "NOTEBOOKS_DIR", folder)
  with pytest.raises(ChecklistError, match=rf"{re.escape(str(folder / LESSON))}\.ipynb: the "
                     r"`<!-- i-can` comment is not closed"):
    show_checklist(LESSON, lang="en")


# -- fingerprints -----------------------------------------------------------------------------------

def test_the_fingerprint_is_short_stable_and_ignores_spacing():
  item = "create a session and list what it holds"
  assert re.fullmatch(r"[0-9a-f]{12}", fingerprint(item))
  assert fingerprint(item) == "5826232edb13"  # stored ticks depend on it: never change the rule
  assert fingerprint("create a session\n  and list what it holds ") == fingerprint(item)
  assert fingerprint(item + ".") != fingerprint(item)


# -- ticks --------------------------------------------------------------------------------------------

def test_ticks_are_saved_and_shown_again_with_the_count(home):
  items = read_items(notebook_path(LESSON))
  first = show_checklist(LESSON, lang="en", user_id="ann")
  assert first.ticked == [False] * len(items) and first.count_text == f"0 of {len(items)}"
  first.tick(0).tick(2).tick(3).untick(0)
  assert first.count_text == f"2 of {len(items)}"
  assert "<b>I can…</b> &middot; 2 of 6" in first.header.value
  again = show_checklist(LESSON, lang="en", user_id="ann")
  assert again.ticked == [False, False, True, True, False, False]
  assert again.count_text == "2 of 6"
  # another student, another lesson: nothing ticked
  assert show_checklist(LESSON, lang="en", user_id="bob").ticked == [False] * 6
  assert not any(show_checklist("02_sqlite_memory", lang="en", user_id="ann").ticked)
  # each change is one new key of the quiz's progress file, none overwritten
  store = ProgressStore()
  assert store.path == home / "progress.db"
  assert store.ticks("ann", LESSON) == {fingerprint(items[0]): False,
                                        fingerprint(items[2]): True, fingerprint(items[3]): True}


def test_ticks_live_beside_the_quiz_attempts_without_mixing_with_them(home):
  import asyncio

  from google.adk.sessions.sqlite_session_service import SqliteSessionService

  show_checklist(LESSON, lang="en", user_id="ann").tick(1)
  store = ProgressStore()
  store.record("ann", LESSON, "q1", 0, True)
  assert len(progress_frame("ann")) == 1  # the quiz history holds attempts only

  async def state() -> dict:
    service = SqliteSessionService(str(home / "progress.db"))
    session = await service.get_session(app_name=APP_NAME, user_id="ann", session_id=SESSION_ID)
    return session.state

  keys = sorted(asyncio.run(state()))
  assert [k.split(":")[:3] for k in keys] == [["user", "checklist", LESSON], ["user", "quiz", LESSON]]
  assert keys[0].split(":")[3] == fingerprint(read_items(notebook_path(LESSON))[1])


@pytest.mark.parametrize("lang", list(LANGUAGES))
def test_a_tick_survives_a_change_of_language(lang):
  show_checklist(LESSON, lang="en", user_id="ann").tick(4)
  translated = show_checklist(LESSON, lang=lang, user_id="ann")
  assert translated.ticked == [False, False, False, False, True, False]
  assert translated.items == read_items(notebook_path(LESSON, lang))
  translated.tick(0)
  assert show_checklist(LESSON, lang="en", user_id="ann").ticked[:1] == [True]
  assert translated.count_text == {"fr": "2 sur 6", "id": "2 dari 6"}[lang]


def test_an_edited_english_item_starts_unticked():
  english = ["plug `SqliteSessionService` into a `Runner`", "erase a student's data"]
  store = ProgressStore()
  Checklist("lesson", english, lang="en", user_id="ann", store=store).tick(0).tick(1)
  edited = [english[0], "erase a student's data, down to the bytes"]
  assert Checklist("lesson", edited, lang="en", user_id="ann", store=store).ticked == [True, False]
  # a translation's own rewording changes nothing: ticks follow the English text
  french = ["brancher `SqliteSessionService` sur un `Runner`", "effacer les données"]
  assert Checklist("lesson", french, english, lang="fr", user_id="ann",
                   store=store).ticked == [True, True]
  with pytest.raises(ChecklistError, match="^lesson: the checklist has 1 item in fr but 2 items "
                     "in English"):
    Checklist("lesson", french[:1], english, lang="fr", store=store)
  with pytest.raises(ChecklistError, match="^notebooks/fr/x.ipynb: the checklist has 3 items in fr"):
    Checklist("lesson", french + ["encore"], english, lang="fr", where="notebooks/fr/x.ipynb")


def test_a_translation_with_another_number_of_items_names_its_file(tmp_path, monkeypatch):
  from adkcourse.quiz import checklist

  folder = tmp_path / "notebooks"
  (folder / "fr").mkdir(parents=True)
  _notebook(folder / f"{LESSON}.ipynb", "## I can…\n\n<!-- i-can\n- a\n- b\n-->")
  _notebook(folder / "fr" / f"{LESSON}.ipynb", "## Je sais…\n\n<!-- i-can\n- a\n-->")
  monkeypatch.setattr(checklist, "NOTEBOOKS_DIR", folder)
  with pytest.raises(ChecklistError, match=rf"^{re.escape(str(folder / 'fr' / LESSON))}\.ipynb: "
                     "the checklist has 1 item in fr but 2 items in English"):
    show_checklist(LESSON, lang="fr", save=False)


def test_windows_line_ends_read_as_any_others():
  assert parse_items(["## I can…\r\n\r\n<!-- i-can\r\n- a\r\n- b that\r\n  goes on\r\n-->"],
                     "x") == ["a", "b that goes on"]


@pytest.mark.parametrize("content", ['[1, 2]', '{"metadata": {}}', '{"cells": [1]}',
                                     '{"cells": "text"}', '"cells"'])
def test_a_json_file_that_is_not_a_notebook_is_named(tmp_path, content):
  path = tmp_path / "99_lesson.ipynb"
  path.write_text(content)
  with pytest.raises(ChecklistError, match=rf"^{re.escape(str(path))}: (not a notebook|cell 1 is "
                     "not a notebook cell)"):
    read_items(path)


def test_save_false_neither_reads_nor_stores(home):
  show_checklist(LESSON, lang="en", user_id="ann").tick(0)
  unsaved = show_checklist(LESSON, lang="en", user_id="ann", save=False)
  assert unsaved.ticked[0] is False
  unsaved.tick(1)
  assert ProgressStore().ticks("ann", LESSON) == {
      fingerprint(read_items(notebook_path(LESSON))[0]): True}


def test_an_unreadable_or_unwritable_progress_file_is_said_not_hidden(tmp_path):
  class Broken(ProgressStore):
    def ticks(self, user_id, lesson):
      raise OSError("illisible")

    def record_tick(self, user_id, lesson, item, ticked):
      raise OSError("read-only")

  with pytest.warns(UserWarning, match="earlier ticks not read"):
    checklist = Checklist("lesson", ["a", "b"], lang="fr", store=Broken(tmp_path / "p.db"))
  assert "Les coches précédentes n'ont pas pu être lues (OSError: illisible)." in \
      checklist.status.value
  with pytest.warns(UserWarning, match="tick not saved"):
    checklist.tick(1)
  assert checklist.ticked == [False, True] and checklist.count_text == "1 sur 2"
  assert "Votre coche n'a pas été enregistrée" in checklist.status.value
  assert checklist.save_error == "OSError: read-only"


# -- what the display carries ----------------------------------------------------------------------

def test_the_display_has_the_widget_and_a_readable_fallback():
  checklist = Checklist("lesson", ["create a session", "write state with `output_key`"],
                        lang="en", store=None).tick(1)
  bundle = checklist._repr_mimebundle_()
  assert set(bundle) == {"application/vnd.jupyter.widget-view+json", "text/plain", "text/html"}
  assert bundle["text/plain"].splitlines() == [
      "I can… · 1 of 2", "☐ create a session", "☑ write state with `output_key`",
      "Run this notebook in Jupyter to tick these: your ticks are saved to your progress file."]
  html = bundle["text/html"]
  assert html.startswith(HTML_START)
  assert "<li>☑ write state with <code>output_key</code></li>" in html
  assert checklist.boxes[1].description == "write state with <code>output_key</code>"
  assert checklist.boxes[1].description_allow_html
  assert repr(checklist) == bundle["text/plain"]


def test_the_translation_check_names_a_broken_translated_checklist():
  english = "## I can…\n\nTick them.\n\n<!-- i-can\n- a\n- b\n-->"
  assert lesson_tr.checklist_problem(english, english.replace("I can", "Je sais"), "`text`") \
      is None
  assert "has 1 items, the English one 2" in lesson_tr.checklist_problem(
      english, "## Je sais…\n\n<!-- i-can\n- a\n-->", "`text`")
  assert "`text`: no `<!-- i-can` comment" in lesson_tr.checklist_problem(
      english, "## Je sais…\n\n- [ ] a\n- [ ] b", "`text`")
  assert lesson_tr.checklist_problem("## Key points", "## Points clés", "`text`") is None


def test_a_quiz_cell_says_run_this_cell_again_once(monkeypatch, home):
  """The quiz cell shows the quiz, then the checklist: one "after a kernel restart, run this cell
  again" line between them, the quiz's; a checklist in a cell of its own keeps its line."""
  import types

  import IPython
  from adkcourse.quiz import load_bank, widget

  shell = types.SimpleNamespace(execution_count=41)
  monkeypatch.setattr(IPython, "get_ipython", lambda: shell)
  monkeypatch.setattr(widget, "_CELLS_WITH_A_RESTART_HINT", set())
  bank = load_bank(ROOT / "quizzes" / f"{LESSON}.yaml")
  quiz = widget.Quiz(bank.questions, name=bank.name, lang="en")
  in_the_quiz_cell = Checklist(LESSON, ["a", "b"], lang="en")
  shell.execution_count = 42
  alone = Checklist(LESSON, ["a", "b"], lang="en")
  assert quiz.restart_hint in quiz.widget.children
  assert in_the_quiz_cell.restart_hint not in in_the_quiz_cell.widget.children
  assert alone.restart_hint in alone.widget.children
