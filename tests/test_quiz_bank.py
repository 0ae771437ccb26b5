"""Question banks: every broken bank gets its precise message, valid banks load, CI's check passes.

The expected lines are the exact ``FILE:QUESTION_ID: message (line N)`` an instructor reads.
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

from adkcourse.quiz import BankError, load_bank
from adkcourse.quiz.bank import QUIZZES_DIR, check_file, check_text, display_path, resolve_bank
from adkcourse.quiz.model import MultipleChoice, NumericQuestion, SingleChoice, TextQuestion, pick

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT / "tests" / "data" / "quiz"
BROKEN = DATA / "broken"

SINGLE_ANSWER = ("answer must be the index of the right option, a bare whole number counting "
                 "from 0 (for a number or a text to type, add type: numeric or type: text), not ")
BOOLEAN = "(YAML reads yes/no/on/off/true/false as booleans: put quotes around text)"
TEXT_FIELD = ("must be text (a string) or a mapping of language codes to text (en: ..., "
              "fr: ...), not ")

EXPECTED = {
    "empty.yaml": [
        ": the file is empty: write a YAML list of questions, each starting with '- id: ...' "
        "(see docs/quizzes.md)"],
    "comments_only.yaml": [
        ": the file is empty: write a YAML list of questions, each starting with '- id: ...' "
        "(see docs/quizzes.md)"],
    "empty_list.yaml": [": the list of questions is empty: add at least one question"],
    "single_question.yaml": [
        ":2: the file holds one question, not a list of questions: put '- ' before its first "
        "field and indent the other fields by two spaces"],
    "syntax_error.yaml": [
        ":2: YAML syntax error: mapping values are not allowed here: a text that contains ': ' "
        "must be put in quotes"],
    "bad_indices.yaml": [
        ":out-of-range: answer 3 is out of range: there are 3 options, numbered 0 to 2 "
        "(counting from 0) (line 4)",
        ":negative: answer -1 is negative: options are counted from 0, so the first option is 0 "
        "(line 10)",
        ":multiple-wrong: answer lists option 0 more than once: list each right option once "
        "(line 16)",
        ":feedback-out-of-range: feedback is given for option 5, which is out of range: there "
        "are 2 options, numbered 0 to 1 (counting from 0) (line 24)"],
    "wrong_types.yaml": [
        f":answer-yes: {SINGLE_ANSWER}the boolean true {BOOLEAN} (line 4)",
        f':answer-quoted: {SINGLE_ANSWER}the text "1": remove the quotes (line 10)',
        ":options-not-list: options must be a YAML list of option texts, one per line starting "
        "with '- ', not the text \"first, second\" (line 15)",
        f":option-not-text: option 1 {TEXT_FIELD}the boolean false {BOOLEAN} (line 21)",
        f":option-not-text: option 2 {TEXT_FIELD}the number 42: put quotes around it (line 21)",
        ":#5: id must be a short name like prefix-survival, not the number 7: write letters, "
        "digits, '-' or '_' (quote it if it is only digits) (line 25)"],
    "missing_fields.yaml": [
        ":#1: missing field 'id': add 'id:' with a short unique name like prefix-survival "
        "(line 1)",
        ":no-explanation: missing field 'explanation': add 'explanation:' with one or two "
        "sentences saying why the right answer is right (line 6)",
        ':#3: item 3 of the list is the text "just a string, not a question", not a question: '
        "each item must be a mapping with id, question, options, answer and explanation "
        "(line 11)"],
    "duplicates.yaml": [
        ":twice: field 'answer' is written twice (lines 10 and 11): keep only one, YAML would "
        "silently use the last (line 11)",
        ":twice: id 'twice' is used twice (items 1 and 2, lines 1 and 7): give each question its "
        "own id, progress is stored under it (line 7)",
        ':same-options: options 0 and 1 are the same text ("same"): make every option different '
        "(line 16)"],
    "unknown.yaml": [
        ':essay: unknown type "essay": use one of single, multiple, numeric, text (or leave type '
        "out for single or multiple choice) (line 2)",
        ":typo: missing field 'answer': add 'answer:' with the index of the right option, a bare "
        "whole number counting from 0 (for a number or a text to type, add type: numeric or "
        "type: text) (line 7)",
        ":typo: unknown field 'anwser': did you mean 'answer'? a single question has the fields "
        "id, type, question, options, answer, explanation, feedback, shuffle (line 10)"],
    "numeric_text.yaml": [
        ':numeric-bad: answer must be the right number, like 42 or 3.5, not the text "four" '
        "(line 4)",
        ":numeric-bad: tolerance -1.0 is not allowed: write 0 for an exact answer or a positive "
        "margin, like 0.5 (line 5)",
        ":text-bad: answer contains the number 3: every accepted answer must be non-empty text "
        "(quote numbers and yes/no) (line 11)"],
    "translations.yaml": [
        ":half-translated: translations are incomplete: question is written in en, fr but "
        "explanation in en: give every translated field the same languages (a plain string is "
        "language-neutral) (line 1)",
        ':bad-language: question has the key "english", which is not a language code: use codes '
        "like en, fr, id or pt-BR for translations (line 14)"],
}


def test_every_broken_bank_has_expected_messages():
  assert sorted(EXPECTED) == sorted(p.name for p in BROKEN.glob("*.yaml"))


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_broken_bank_messages(name):
  path = BROKEN / name
  bank, problems = check_file(path)
  assert bank is None
  assert [str(p) for p in problems] == [display_path(path) + line for line in EXPECTED[name]]


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_loader_raises_the_same_messages(name):
  path = BROKEN / name
  with pytest.raises(BankError) as raised:
    load_bank(path)
  assert str(raised.value).splitlines() == [display_path(path) + l for l in EXPECTED[name]]


def test_source_style_question_with_an_id_is_valid():
  """A block written exactly like the source lesson's (plus an id) needs nothing else."""
  questions, problems = check_text(
      "- id: q\n  question: \"Quel service ?\"\n  options:\n    - \"A\"\n    - \"B\"\n"
      "  answer: 1\n  explanation: \"Parce que.\"\n", "f.yaml")
  assert problems == []
  assert isinstance(questions[0], SingleChoice) and questions[0].answer == 1


def test_all_four_types_and_translations_load():
  text = """
- id: single
  question: {en: Pick one, fr: Choisissez}
  options:
    - {en: first, fr: premier}
    - {en: second, fr: second}
  answer: 0
  feedback: {1: {en: "no", fr: non}}
  explanation: {en: because, fr: parce que}
- id: multi
  question: Pick two
  options: [a, b, c]
  answer: [0, 2]
  explanation: x
- id: number
  type: numeric
  question: How many?
  answer: 4
  tolerance: 0.5
  unit: events
  explanation: x
- id: words
  type: text
  question: Which table?
  answer: {en: [user_states], fr: [user_states, table user_states]}
  explanation: x
"""
  questions, problems = check_text(text, "f.yaml")
  assert problems == []
  single, multi, number, words = questions
  assert isinstance(single, SingleChoice) and isinstance(multi, MultipleChoice)
  assert isinstance(number, NumericQuestion) and isinstance(words, TextQuestion)
  assert single.option_texts("fr") == ["premier", "second"]
  assert single.option_texts("pt-BR") == ["first", "second"]  # falls back to English
  assert pick(single.feedback[1], "fr") == "non"
  assert multi.grade([2, 0]).correct and not multi.grade([0]).correct
  assert number.grade("4,4").correct and not number.grade("3.4").correct
  assert words.grade("  Table   USER_STATES ", "fr").correct  # the quiz's language, any case
  assert words.grade("user_states", "fr").correct              # English counts everywhere
  assert not words.grade("Table USER_STATES", "en").correct    # a French answer, in English


def test_repository_banks_are_valid():
  files = sorted(QUIZZES_DIR.glob("*.yaml"))
  assert QUIZZES_DIR / "01_sessions_events_state.yaml" in files
  for path in files:
    assert len(load_bank(path)) >= 1


def test_lesson_one_bank_covers_the_lesson():
  bank = load_bank(resolve_bank("01_sessions_events_state"))
  assert len(bank) >= 5
  assert {type(q) for q in bank} == {SingleChoice, MultipleChoice, NumericQuestion, TextQuestion}
  assert all(q.bank == "01_sessions_events_state" for q in bank)
  text = " ".join(pick(q.question) + pick(q.explanation) for q in bank)
  for topic in ("temp:", "app:", "user:", "state_delta", "?}", "KeyError", 'session.state["'):
    assert topic in text, topic


def test_resolve_bank_by_name_suggests_close_names():
  assert resolve_bank("01_sessions_events_state") == QUIZZES_DIR / "01_sessions_events_state.yaml"
  with pytest.raises(FileNotFoundError, match="Did you mean '01_sessions_events_state'"):
    resolve_bank("01_session_events_state")


def _check(*args: str) -> subprocess.CompletedProcess:
  return subprocess.run([sys.executable, "-m", "adkcourse.quiz", "check", *args], cwd=ROOT,
                        capture_output=True, text=True, timeout=60)


def test_check_passes_on_the_quizzes_folder():
  """How CI checks the banks: the command on quizzes/ exits 0."""
  result = _check("quizzes")
  assert result.returncode == 0, result.stdout + result.stderr
  assert result.stdout == ""
  assert result.stderr.startswith("ok: ")
  assert _check().returncode == 0  # the default is the repository's quizzes/


def test_check_fails_with_one_line_per_problem():
  result = _check("tests/data/quiz/broken/bad_indices.yaml", "tests/data/quiz/broken/empty.yaml",
                  "tests/data/quiz/two_questions.yaml")
  assert result.returncode == 1
  lines = result.stdout.splitlines()
  assert lines == (["tests/data/quiz/broken/bad_indices.yaml" + l
                    for l in EXPECTED["bad_indices.yaml"]]
                   + ["tests/data/quiz/broken/empty.yaml" + EXPECTED["empty.yaml"][0]])
  assert result.stderr.strip() == "5 problems in 3 files"


def test_check_reports_a_missing_path():
  result = _check("tests/data/quiz/nothing_here.yaml")
  assert result.returncode == 1
  assert result.stdout.strip() == "tests/data/quiz/nothing_here.yaml: no such file or folder"


def test_examples_in_the_authoring_guide_are_valid():
  guide = (ROOT / "docs" / "quizzes.md").read_text(encoding="utf-8")
  blocks = re.findall(r"```yaml\n(.*?)```", guide, re.DOTALL)
  assert len(blocks) >= 3
  for block in blocks:
    questions, problems = check_text(block, "docs/quizzes.md")
    assert problems == [] and questions


def test_shuffle_is_an_optional_yes_or_no(tmp_path):
  base = ("- id: q\n  question: Which?\n  options: [a, b]\n  answer: 0\n  explanation: E\n")
  path = tmp_path / "b.yaml"
  path.write_text(base + "  shuffle: false\n", encoding="utf-8")
  bank, problems = check_file(path)
  assert not problems and bank is not None and bank.questions[0].shuffle is False
  path.write_text(base + "  shuffle: 'no'\n", encoding="utf-8")
  _, problems = check_file(path)
  assert [p.message for p in problems] == [
      'shuffle must be true or false (no quotes): false keeps the options in the written order, '
      'not the text "no"']
