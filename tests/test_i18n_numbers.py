"""A translation keeps the English's numbers: `i18n check` reports « 6 connexions » for "5
connections", in a lesson cell or a quiz question, whatever each language's separators."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest
import yaml

from adkcourse.i18n import lessons as lesson_tr
from adkcourse.i18n import quizzes as quiz_tr
from adkcourse.i18n.numbers import numbers_problem, prose_numbers
from adkcourse.quiz import load_bank

ROOT = Path(__file__).resolve().parents[1]
NBSP = "\u00a0"


@pytest.mark.parametrize("english, translated", [
    ("1,800 words", f"1{NBSP}800 mots"),
    ("1,800 words", "1.800 kata"),
    ("1,800 words", "1\u202f800 mots"),
    ("0.5 s", "0,5 s"),
    ("the 30th request", "la 30e requête"),
    ("the 30th request", "request ke-30"),
    ("lesson 5's cell", "la cellule de la leçon 5"),
    ("ADK 2.13 and adk-python#4933", "ADK 2.13 et adk-python#4933"),
    ("`N = 2` in L2, at 4x load", "`N = 2` dans L2, à charge 4x"),   # code and names left out
    ("see [the notes](docs/x.md#step-3)", "voir [les notes](docs/x.md)"),
])
def test_one_number_written_each_languages_way_is_one_number(english, translated):
  assert numbers_problem(english, translated) is None
  assert prose_numbers(english) == prose_numbers(translated)


@pytest.mark.parametrize("english, translated, said", [
    ("5 connections", "6 connexions", "the English has 5, which `text` lacks; `text` has 6"),
    ("1,800 words", "1 800 mots et 3 cellules", "`text` has 3"),
    ("25 or 50 connections", "25 connexions", "the English has 50"),
    ("a window of 1 event", "une fenêtre d'un événement", "the English has 1"),
    ("2 and 2", "2", "the English has 2, which"),
])
def test_a_changed_missing_or_extra_number_is_reported(english, translated, said):
  problem = numbers_problem(english, translated)
  assert problem is not None and said in problem, problem


def test_check_reports_a_lesson_cell_whose_number_changed(tmp_path):
  lesson = "04_production_postgres"
  notebooks = tmp_path / "notebooks"
  notebooks.mkdir()
  shutil.copy(ROOT / "notebooks" / f"{lesson}.ipynb", notebooks)
  root = tmp_path / "translations"
  path = lesson_tr.translation_path("fr", lesson, root)
  path.parent.mkdir(parents=True)
  shutil.copy(lesson_tr.translation_path("fr", lesson), path)
  assert not lesson_tr.lesson_findings("fr", lesson, notebooks, root)
  data = yaml.safe_load(path.read_text(encoding="utf-8"))
  cell_id, entry = next((k, v) for k, v in data["cells"].items()
                        if re.search(r"(?<![\w`])[1-9]\d*(?![\w`])", v["text"].split("```")[0]))
  entry["text"] = re.sub(r"(?<![\w`.,])([1-9]\d*)(?![\w`])", lambda m: str(int(m[1]) + 1),
                         entry["text"], count=1)
  path.write_text(yaml.safe_dump(data, allow_unicode=True, sort_keys=False), encoding="utf-8")
  assert lesson_tr.accept("fr", lesson, [cell_id], notebooks_dir=notebooks, root=root)
  (found,) = lesson_tr.lesson_findings("fr", lesson, notebooks, root)
  assert (found.where, found.kind) == (cell_id, "invalid") and "numbers differ" in found.message


def test_check_reports_a_quiz_explanation_whose_number_changed(tmp_path):
  bank = load_bank(ROOT / "quizzes" / "04_production_postgres.yaml")
  root = tmp_path / "translations"
  path = quiz_tr.translation_path("fr", bank.name, root)
  path.parent.mkdir(parents=True)
  shutil.copy(quiz_tr.translation_path("fr", bank.name, ROOT / "translations"), path)
  usable, found = quiz_tr.load_entries("fr", bank, root)
  assert not found and len(usable) == len(bank.questions)
  data = yaml.safe_load(path.read_text(encoding="utf-8"))
  question_id, entry, number = next((k, v, m[1]) for k, v in data["questions"].items()
                                    if (m := re.search(r"(?<![\w`.,])([1-9]\d*)(?![\w`])",
                                                       v["explanation"])))
  wrong = str(int(number) + 1)
  entry["explanation"] = re.sub(rf"(?<![\w`.,]){number}(?![\w`])", wrong, entry["explanation"],
                                count=1)
  path.write_text(yaml.safe_dump(data, allow_unicode=True, sort_keys=False), encoding="utf-8")
  _, found = quiz_tr.load_entries("fr", bank, root)
  (problem,) = [f for f in found if f.where == question_id]
  assert problem.kind == "invalid" and f"`explanation` has {wrong}" in problem.message
