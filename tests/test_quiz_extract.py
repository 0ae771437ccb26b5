"""Extraction: a Markdown lesson's fenced ```quiz blocks become a valid question bank."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import yaml

from adkcourse.quiz.bank import check_text
from adkcourse.quiz.extract import extract, find_blocks, slugify

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT / "tests" / "data" / "quiz"


def _run(*args: str) -> subprocess.CompletedProcess:
  return subprocess.run([sys.executable, "-m", "adkcourse.quiz", "extract", *args], cwd=ROOT,
                        capture_output=True, text=True, timeout=60)


def test_slugs_are_ascii_ids():
  assert slugify("Ce qu'il y a dans le fichier") == "ce-qu-il-y-a-dans-le-fichier"
  assert slugify("Quel service de session choisir ?") == "quel-service-de-session-choisir"
  assert slugify("Où vit l'état ?") == "ou-vit-l-etat"
  assert slugify("The `user:` prefix") == "the-user-prefix"


def test_blocks_front_matter_and_code_comments_are_not_headings():
  blocks = find_blocks((DATA / "lesson.md").read_text(encoding="utf-8"))
  assert [b.heading for b in blocks] == ["Où vit l'état ?", "Préfixes : qui survit ?",
                                         "Préfixes : qui survit ?", "Préfixes : qui survit ?"]
  assert blocks[0].line == 17  # the first YAML line of the first block
  assert blocks[0].text.startswith('question: "Dans quelle table')


def test_extract_command_prints_a_valid_bank():
  result = _run("tests/data/quiz/lesson.md")
  assert result.returncode == 0, result.stderr
  questions = yaml.safe_load(result.stdout)
  assert [q["id"] for q in questions] == ["ou-vit-l-etat", "prefixes-qui-survit",
                                          "combien-d-evenements", "prefixes-qui-survit-2"]
  assert list(questions[0]) == ["id", "question", "options", "answer", "explanation"]
  assert questions[0]["options"][1] == "user_states, sans le préfixe"
  assert questions[1]["answer"] == [0] and questions[2]["type"] == "numeric"
  assert questions[3]["answer"] == ["temp:", "temp"]
  assert result.stdout.startswith("# Question bank extracted from lesson.md")
  checked, problems = check_text(result.stdout, "extracted.yaml")
  assert problems == [] and len(checked) == 4


def test_extract_to_a_file(tmp_path):
  out = tmp_path / "bank.yaml"
  result = _run("tests/data/quiz/lesson.md", "--out", str(out))
  assert result.returncode == 0 and result.stdout == ""
  assert len(yaml.safe_load(out.read_text(encoding="utf-8"))) == 4
  check = subprocess.run([sys.executable, "-m", "adkcourse.quiz", "check", str(out)], cwd=ROOT,
                         capture_output=True, text=True, timeout=60)
  assert check.returncode == 0, check.stdout


def test_problems_in_blocks_point_at_markdown_lines():
  result = _run("tests/data/quiz/lesson_broken.md")
  assert result.returncode == 1
  assert result.stderr.splitlines() == [
      "tests/data/quiz/lesson_broken.md:answer-out-of-range: answer 2 is out of range: there "
      "are 2 options, numbered 0 to 1 (counting from 0) (line 8)",
      "tests/data/quiz/lesson_broken.md:15: YAML syntax error: mapping values are not allowed "
      "here: a text that contains ': ' must be put in quotes",
  ]
  assert [q["id"] for q in yaml.safe_load(result.stdout)] == ["answer-out-of-range"]


def test_a_lesson_without_quiz_blocks_is_an_error(tmp_path):
  lesson = tmp_path / "plain.md"
  lesson.write_text("# Nothing\n\n```python\nprint(1)\n```\n", encoding="utf-8")
  result = _run(str(lesson))
  assert result.returncode == 1 and "no ```quiz block found" in result.stderr


def test_source_style_blocks_without_heading_use_the_file_name():
  questions, problems = extract("```quiz\nquestion: Q\noptions: [a, b]\nanswer: 0\n"
                                "explanation: E\n```\n", "x.md", "my-lesson")
  assert problems == [] and questions[0]["id"] == "my-lesson"
