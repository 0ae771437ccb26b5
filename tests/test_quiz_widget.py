"""The quiz widgets driven from code, as a student would use them: choose, Check, read the
feedback, retry; every graded attempt lands in the progress file."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import ipywidgets as widgets
import pytest
from ipywidgets.widgets.widget import _instances as WIDGETS

from adkcourse.quiz import BankError, progress_frame, show_question, show_quiz
from adkcourse.quiz.widget import QuestionView, plain

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT / "tests" / "data" / "quiz"
TWO = DATA / "two_questions.yaml"
SENTINELS = DATA / "sentinels.yaml"
HIDDEN = ("HIDDEN-", "73619")

EXPLANATION = ("temp: keys live for one invocation: ADK strips them from the stored event and "
               "from every state table.")


@pytest.fixture(autouse=True)
def home(tmp_path, monkeypatch):
  """A fresh progress file per test."""
  monkeypatch.setenv("ADKCOURSE_HOME", str(tmp_path / "home"))
  monkeypatch.delenv("ADKCOURSE_USER", raising=False)
  return tmp_path / "home"


def _all_states(root: widgets.Widget) -> str:
  """Every synced property of a widget tree: what a saved notebook's widget state can hold."""
  states, todo, seen = [], [root], set()
  while todo:
    widget = todo.pop()
    if widget.model_id in seen:
      continue
    seen.add(widget.model_id)
    state = widget.get_state()
    states.append(state)
    for value in state.values():
      for item in value if isinstance(value, (list, tuple)) else [value]:
        if isinstance(item, str) and item.startswith("IPY_MODEL_"):
          todo.append(WIDGETS[item[len("IPY_MODEL_"):]])
  return json.dumps(states, default=str)


def test_wrong_then_right_answer_with_feedback_and_stored_attempts():
  quiz = show_quiz(TWO, user_id="ann")
  view = quiz["temp-prefix"]
  view.select(0)
  grade = view.check()
  assert grade is not None and not grade.correct
  assert view.feedback_text.splitlines() == [
      "✘ Not quite.",
      "That is what user: keys do; temp: keys are never stored.",
      "Press Try again and have another go."]
  assert EXPLANATION not in view.feedback_text  # not revealed after one wrong attempt
  assert view.last_record is not None
  assert {k: view.last_record[k] for k in ("bank", "question", "attempt", "response", "correct")} \
      == {"bank": "two_questions", "question": "temp-prefix", "attempt": 1, "response": 0,
          "correct": False}
  assert view.check_button.disabled and view.retry_button.layout.display is None

  view.retry_button.click()  # the real button callback
  assert view.response() is None and view.feedback_text == "" and not view.check_button.disabled
  view.select(1)
  view.check_button.click()
  assert view.correct is True and view.attempts == 2
  assert view.feedback_text.splitlines() == ["✔ Right!", EXPLANATION]
  assert "2 attempts" in view.attempts_label.value and "saved" in view.attempts_label.value
  assert quiz.score_text == "Score: 1 of 2 right (0 at the first attempt) · 1 of 2 answered"
  assert plain(view.score_note.value) == quiz.score_text  # under the card just graded

  frame = progress_frame("ann")
  assert frame[["question", "attempt", "response", "correct"]].values.tolist() == [
      ["temp-prefix", 1, 0, False], ["temp-prefix", 2, 1, True]]
  assert progress_frame("someone-else").empty


def test_checking_with_nothing_entered_is_a_polite_prompt():
  quiz = show_quiz(SENTINELS, user_id="ann")
  prompts = {}
  for view in quiz.views:
    assert view.check() is None  # no exception
    prompts[view.question.id] = view.feedback_text
    assert view.attempts == 0 and view.last_record is None
  assert prompts == {
      "sentinel-single": "Please choose an option first, then press Check.",
      "sentinel-multiple": "Please tick at least one option, then press Check.",
      "sentinel-numeric": "Please type a number, then press Check.",
      "sentinel-text": "Please type your answer, then press Check.",
  }
  quiz["sentinel-numeric"].select("four")
  assert quiz["sentinel-numeric"].check() is None
  assert quiz["sentinel-numeric"].feedback_text == (
      '"four" is not a number: please type digits, like 42 or 3.5.')
  assert progress_frame("ann").empty


def test_right_answer_and_explanation_revealed_after_two_wrong_attempts():
  view = show_quiz(SENTINELS, user_id="ann")["sentinel-single"]
  view.select(0).check()
  assert "HIDDEN-EXPLANATION-SINGLE" not in view.feedback_text
  assert "HIDDEN-FEEDBACK-S0" in view.feedback_text
  view.retry()
  view.select(1).check()
  assert view.feedback_text.splitlines() == [
      "✘ Not quite.", "HIDDEN-FEEDBACK-S1", "The right answer: VISIBLE-OPTION-S2",
      "HIDDEN-EXPLANATION-SINGLE"]


def test_every_question_type_is_graded():
  quiz = show_quiz(SENTINELS, user_id="ann")
  multiple = quiz["sentinel-multiple"]
  multiple.select([0, 1]).check()
  assert multiple.correct is False and "HIDDEN-FEEDBACK-M1" in multiple.feedback_text
  multiple.retry()
  assert multiple.response() == []
  multiple.select([2, 0]).check()
  assert multiple.correct is True
  numeric = quiz["sentinel-numeric"]
  numeric.select("73619,7").check()  # decimal comma, within the tolerance
  assert numeric.correct is True and numeric.last_record["response"] == 73619.7
  text = quiz["sentinel-text"]
  text.select("  hidden-answer-alt. ").check()
  assert text.correct is True
  assert quiz.score_text == "Score: 3 of 4 right (2 at the first attempt) · 3 of 4 answered"
  frame = progress_frame("ann", bank="sentinels")
  assert frame["question"].tolist() == ["sentinel-multiple", "sentinel-multiple",
                                        "sentinel-numeric", "sentinel-text"]
  assert frame["response"].tolist() == [[0, 1], [0, 2], 73619.7, "hidden-answer-alt."]


def test_text_fallback_shows_questions_and_options_never_answers():
  quiz = show_quiz(SENTINELS, user_id="ann", save=False)
  text, page = quiz.text_fallback(), quiz.html_fallback()
  assert text.splitlines()[:6] == [
      "Quiz: 4 questions", "",
      "1. VISIBLE-QUESTION-SINGLE: which option? (choose one)",
      "   ( ) VISIBLE-OPTION-S0", "   ( ) VISIBLE-OPTION-S1", "   ( ) VISIBLE-OPTION-S2"]
  assert "   [ ] VISIBLE-OPTION-M2" in text.splitlines()
  assert "   Your answer: ________ VISIBLE-UNIT" in text.splitlines()
  assert repr(quiz) == text
  for rendering in (text, page):
    assert "VISIBLE-QUESTION-TEXT" in rendering
    assert not any(hidden in rendering for hidden in HIDDEN)
  bundle = quiz._repr_mimebundle_()
  assert set(bundle) == {"text/plain", "text/html", "application/vnd.jupyter.widget-view+json"}
  assert bundle["application/vnd.jupyter.widget-view+json"]["model_id"] == quiz.widget.model_id


def test_widget_state_holds_no_answer_until_the_student_answers():
  quiz = show_quiz(SENTINELS, user_id="ann", save=False)
  before = _all_states(quiz.widget)
  assert "VISIBLE-QUESTION-SINGLE" in before and "VISIBLE-OPTION-M1" in before
  assert not any(hidden in before for hidden in HIDDEN)
  quiz["sentinel-text"].select("HIDDEN-ANSWER-TEXT").check()
  assert "HIDDEN-EXPLANATION-TEXT" in _all_states(quiz.widget)  # the walker sees feedback


async def test_check_works_inside_a_running_event_loop():
  """As in Jupyter: the button callback is synchronous and an event loop is already running."""
  asyncio.get_running_loop()
  view = show_quiz(TWO, user_id="ann")["user-table"]
  view.select("User_States").check_button.click()
  assert view.correct is True and view.save_error is None
  assert view.last_record["attempt"] == 1
  assert progress_frame("ann")["response"].tolist() == ["User_States"]


def test_a_failed_save_still_grades(home):
  home.parent.mkdir(parents=True, exist_ok=True)
  home.write_text("a file where the progress folder should be")
  view = show_quiz(TWO, user_id="ann")["temp-prefix"]
  with pytest.warns(UserWarning, match="quiz attempt not saved"):
    view.select(1).check()
  assert view.correct is True and view.last_record is None and view.save_error
  assert "not saved to your progress file" in view.feedback_text
  assert "not saved" in view.attempts_label.value


def test_user_id_defaults_to_the_environment(monkeypatch):
  monkeypatch.setenv("ADKCOURSE_USER", "student-42")
  show_quiz(TWO)["user-table"].select("user_states").check()
  assert len(progress_frame("student-42")) == 1 and len(progress_frame()) == 1


def test_show_question_alone_and_from_a_dict():
  view = show_question({"id": "q", "question": "Pick the first", "options": ["a", "b"],
                        "answer": 0, "explanation": "E"}, bank="adhoc", user_id="ann")
  assert isinstance(view, QuestionView)
  assert view.text_fallback().splitlines()[:3] == ["Pick the first (choose one)", "( ) a", "( ) b"]
  view.select(0).check()
  assert progress_frame("ann")[["bank", "question"]].values.tolist() == [["adhoc", "q"]]
  with pytest.raises(BankError, match="answer 5 is out of range"):
    show_question({"id": "q", "question": "Q", "options": ["a", "b"], "answer": 5,
                   "explanation": "E"})


def test_translations_pick_the_language(tmp_path):
  bank = tmp_path / "fr.yaml"
  bank.write_text("- id: q\n  question: {en: 'Which?', fr: 'Laquelle ?'}\n"
                  "  options: [{en: first, fr: premier}, {en: second, fr: second}]\n"
                  "  answer: 0\n  explanation: {en: Because., fr: Parce que.}\n",
                  encoding="utf-8")
  view = show_quiz(bank, user_id="ann", lang="fr", save=False)[0]
  assert view.text_fallback().splitlines()[:2] == ["Laquelle ? (choisissez une réponse)",
                                                    "( ) premier"]
  view.select(0).check()
  assert view.feedback_text.splitlines()[-1] == "Parce que."


# -- issue 14: progress that comes back, honest scoring, keyboard hooks, shuffling -------------

def test_a_new_kernel_shows_the_earlier_progress():
  """A kernel restart re-runs the quiz cell: the cards come back as they were left, and the
  next attempt is numbered after the stored ones (not "right at the first attempt")."""
  quiz = show_quiz(SENTINELS, user_id="ann")
  single = quiz["sentinel-single"]
  for wrong in (0, 1, 0):
    single.select(wrong).check()
    single.retry()
  quiz["sentinel-text"].select("hidden-answer-text").check()
  before = quiz.score_text

  again = show_quiz(SENTINELS, user_id="ann")  # what the re-run cell shows
  assert again.score_text == before == (
      "Score: 1 of 4 right (1 at the first attempt) · 2 of 4 answered · 1 answer shown "
      "(not counted)")
  single = again["sentinel-single"]
  assert single.attempts == 3 and single.locked and single.response() == 0
  assert single.feedback_text.splitlines() == [
      "✘ Not quite.", "HIDDEN-FEEDBACK-S0", "The right answer: VISIBLE-OPTION-S2",
      "HIDDEN-EXPLANATION-SINGLE"]
  assert "3 attempts" in single.attempts_label.value
  assert single.check_button.disabled and single.retry_button.layout.display is None
  assert again["sentinel-text"].feedback_text.splitlines()[0] == "✔ Right!"
  assert again["sentinel-multiple"].attempts == 0 and not again["sentinel-multiple"].locked
  single.retry()
  single.select(2).check()
  assert single.last_record["attempt"] == 4
  assert single.feedback_text.splitlines()[:2] == [
      "✔ Right!", "The answer had been shown after two wrong attempts, so this question does "
      "not count toward your score."]
  assert again.score_text.startswith("Score: 1 of 4 right (1 at the first attempt)")
  assert show_quiz(SENTINELS, user_id="bob").score_text.startswith("Score: 0 of 4")


def test_a_double_click_on_check_is_one_attempt():
  view = show_quiz(SENTINELS, user_id="ann")["sentinel-single"]
  view.select(0)
  view.check_button.click()
  view.check_button.click()  # the second click of a double-click, already on its way
  assert view.attempts == 1 and "HIDDEN-EXPLANATION-SINGLE" not in view.feedback_text
  assert len(progress_frame("ann")) == 1
  view.retry_button.click()
  view.retry_button.click()  # harmless too
  assert view.attempts == 1 and not view.locked


def test_a_slip_after_a_right_answer_keeps_the_point():
  quiz = show_quiz(TWO, user_id="ann")
  view = quiz["temp-prefix"]
  view.select(1).check()
  view.retry()
  view.select(0).check()
  assert view.feedback_text.splitlines()[:2] == [
      "✘ Not quite.", "Your earlier right answer still counts toward your score."]
  assert EXPLANATION in view.feedback_text  # already seen, so shown again
  assert quiz.score_text.startswith("Score: 1 of 2 right (1 at the first attempt)")


def test_enter_in_a_text_box_checks_the_answer():
  view = show_quiz(TWO, user_id="ann")["user-table"]
  view.select("user_states")
  view._text._handle_custom_msg({"event": "submit"}, [])  # what the browser sends on Enter
  assert view.correct is True and view.attempts == 1


def test_every_card_carries_the_keyboard_code_and_code_in_labels():
  quiz = show_quiz(DATA / "two_questions.yaml", user_id="ann", save=False)
  for view in quiz.views:
    assert 'onerror="(function (img)' in view.header.value
    assert "adkcourse-quiz-card" in view.widget._dom_classes
  checkbox = show_question({"id": "m", "question": "Which?", "options": ["`user:` keys", "b"],
                            "answer": [0], "explanation": "E"}, save=False)
  assert checkbox._boxes[0].description == "<code>user:</code> keys"
  assert checkbox._boxes[0].description_allow_html


def test_shuffled_options_are_stable_per_student_and_graded_by_bank_index():
  options = [f"option {i}" for i in range(6)]
  question = {"id": "q", "question": "Which?", "options": options, "answer": 4,
              "explanation": "E"}
  shown = {}
  for user in ("ann", "bob", "cy", "dee"):
    view = show_question(question, bank="b", user_id=user, save=False)
    assert view.order == list(range(6))  # off by default
    quiz_view = show_quiz(_bank_of(question), user_id=user, save=False, shuffle=True)[0]
    shown[user] = [label for label, _ in quiz_view._radio.options]
    again = show_quiz(_bank_of(question), user_id=user, save=False, shuffle=True)[0]
    assert [label for label, _ in again._radio.options] == shown[user]  # stable
    quiz_view.select(4).check()
    assert quiz_view.correct is True and quiz_view.last_grade.response == 4
  assert len({tuple(order) for order in shown.values()}) > 1
  assert all(sorted(order) == options for order in shown.values())
  pinned = show_quiz(_bank_of({**question, "shuffle": False}), user_id="ann", shuffle=True)[0]
  assert pinned.order == list(range(6))


def _bank_of(question: dict):
  from adkcourse.quiz import Bank
  from adkcourse.quiz.bank import validate_question
  checked, problems = validate_question(question, 1, "<test>")
  assert not problems
  return Bank(name="shuffle-test", path=Path("shuffle-test.yaml"), questions=[checked])


def test_the_answer_sent_by_the_browser_is_what_is_graded():
  """The browser code sends the answer with Check (positions as shown), so an option update
  still held back by ipywidgets cannot make the kernel grade the previous option."""
  question = {"id": "q", "question": "Which?", "options": [f"o{i}" for i in range(5)],
              "answer": 3, "explanation": "E"}
  view = show_quiz(_bank_of(question), user_id="ann", shuffle=True)[0]
  assert view.order != list(range(5))
  view.select(0)  # what the kernel last heard: a stale option
  position = view.order.index(3)
  view.submitted.value = json.dumps({"n": "1", "r": position})
  assert view.correct is True and view.response() == 3 and view.attempts == 1
  view.submitted.value = json.dumps({"n": "2", "r": 0})  # a double-click's second message
  assert view.attempts == 1 and view.response() == 3
  view.retry()
  view.submitted.value = "not json"
  assert view.attempts == 1
  multiple = show_quiz(SENTINELS, user_id="ann")["sentinel-multiple"]
  multiple.submitted.value = json.dumps({"n": "3", "r": [0, 2]})
  assert multiple.correct is True
  text = show_quiz(SENTINELS, user_id="bob")["sentinel-text"]
  text.submitted.value = json.dumps({"n": "4", "r": "hidden-answer-alt"})
  assert text.correct is True and text.response() == "hidden-answer-alt"
