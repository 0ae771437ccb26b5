"""The quizzes in a real browser, in JupyterLab and in Notebook 7 (issue 14).

For each front end, against a server this module starts and stops by PID:

* lessons run top to bottom (Run All) with no error output, their quiz grades a wrong then a
  right answer with the mouse, and a screenshot of the quiz is kept (and of lesson 1's session
  timeline, which must show at a readable size): in JupyterLab every
  lesson, in turn in English, French and Indonesian (a translated lesson's quiz and buttons
  speak its language, as the kernel starts in ``notebooks/<lang>/``); in Notebook 7 lesson 1 in
  Indonesian. The lessons' code cells are the same in every language, and all of them also run
  under nbval;
* a quiz with one question of each type (``tests/data/quiz/browser.yaml``) is answered wrong
  then right with the mouse, then by another student with the keyboard only (arrows stay in
  the radio group, one Tab stop per group, Enter checks, focus follows Check and Try again);
  option labels show code, not backticks; inputs have accessible names;
* a double-click on Check is one attempt and reveals nothing;
* after a kernel restart the re-run quiz cell shows the earlier progress and score, and the
  next attempt is numbered after the stored ones;
* when the server stops, the kernels leave no scratch folder behind.

Once, for the committed lessons: the HTML export, opened in Chromium with the network closed,
shows each quiz's questions and options, and no explanation or feedback.
"""

from __future__ import annotations

import json
import os
import shutil
import time
from pathlib import Path

import nbformat
import pytest
from nbconvert import HTMLExporter
from playwright.sync_api import Locator, Page, expect

from adkcourse.quiz import load_bank
from adkcourse.quiz.messages import message
from adkcourse.quiz.model import SingleChoice, languages, pick
from adkcourse.quiz.scoring import QuizScore, score_attempts
from adkcourse.quiz.progress import ProgressStore
from adkcourse.scratch import reproducible_environment

from frontends import (JupyterServer, error_outputs, open_notebook, restart_kernel, run_all,
                       wait_until_idle)

ROOT = Path(__file__).resolve().parents[2]
BANK = ROOT / "tests" / "data" / "quiz" / "browser.yaml"
LESSONS = sorted((ROOT / "notebooks").glob("*.ipynb"))
TRANSLATED = sorted((ROOT / "notebooks").glob("*/*.ipynb"))
def _in(lang: str, lesson: Path) -> tuple[str, Path]:
  return (lang, lesson if lang == "en" else lesson.parent / lang / lesson.name)


# (language, lesson) run in each front end: every lesson once in JupyterLab, in turn in English,
# French and Indonesian (their code cells are the same), and lesson 1 in Indonesian in Notebook 7.
RUN_ALL = {
    "lab": [_in(("en", "fr", "id")[i % 3], lesson) for i, lesson in enumerate(LESSONS)],
    "notebook": [_in("id", LESSONS[0])],
}
TIMINGS: dict[str, float] = {}


def _quiz_notebook(path: Path) -> None:
  cells = [nbformat.v4.new_code_cell(f"from adkcourse.quiz import show_quiz\nBANK = {str(BANK)!r}")]
  cells += [nbformat.v4.new_code_cell(f'show_quiz(BANK, user_id="{user}")')
            for user in ("mouse-student", "keyboard-student", "double-click-student")]
  notebook = nbformat.v4.new_notebook(cells=cells)
  notebook.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3",
                                     "language": "python"}
  nbformat.write(notebook, path)


class FrontEnd:
  """A running server, one page on it, and where this front end's data and screenshots go."""

  def __init__(self, kind: str, server: JupyterServer, page: Page, folder: Path, shots: Path):
    self.kind, self.server, self.page, self.folder, self.shots = kind, server, page, folder, shots
    self.home = folder / "run" / "home"
    self.scratch = folder / "run" / "scratch"

  def shot(self, name: str, target: Locator | None = None) -> None:
    path = self.shots / f"{self.kind}-{name}.png"
    (target or self.page).screenshot(path=str(path))

  def attempts(self, user: str, question: str) -> list[dict]:
    return [r for r in ProgressStore(self.home / "progress.db").history(user)
            if r["question"] == question]


@pytest.fixture(scope="module", params=["lab", "notebook"])
def front(request, browser, tmp_path_factory, screenshots):
  kind = request.param
  folder = tmp_path_factory.mktemp(f"browser-{kind}")
  root = folder / "root"
  (root / "notebooks").mkdir(parents=True)
  for lesson in LESSONS + TRANSLATED:
    target = root / lesson.relative_to(ROOT)
    target.parent.mkdir(parents=True, exist_ok=True)
    shutil.copy(lesson, target)
  _quiz_notebook(root / "quiz_check.ipynb")
  env = {**os.environ, **reproducible_environment(folder / "run"),
         "ADKCOURSE_USER": "browser-student"}
  env.pop("ADKCOURSE_KEEP_SCRATCH", None)
  server = JupyterServer(kind, root, folder, env)
  started = time.monotonic()
  server.start()
  page = browser.new_page()
  page.set_default_timeout(30_000)
  TIMINGS[f"{kind} start"] = time.monotonic() - started
  try:
    yield FrontEnd(kind, server, page, folder, screenshots)
  finally:
    page.close()
    server.stop()


def _panel(page: Page) -> Locator:
  """The notebook on screen (JupyterLab keeps earlier tabs in the page, hidden)."""
  return page.locator(".jp-NotebookPanel:not(.lm-mod-hidden)")


def _card(page: Page, quiz: int, card: int) -> Locator:
  return _panel(page).locator(".adkcourse-quiz").nth(quiz).locator(".adkcourse-quiz-card").nth(card)


def _status(card: Locator) -> Locator:
  return card.locator(".adkcourse-quiz-status")


def _focused(page: Page, card: Locator, selector: str) -> None:
  """Wait until the keyboard focus is on ``selector`` inside ``card``."""
  try:
    page.wait_for_function("([card, selector]) => card.contains(document.activeElement)"
                           " && document.activeElement.matches(selector)",
                           arg=[card.element_handle(), selector], timeout=10_000)
  except Exception as error:
    active = page.evaluate("() => document.activeElement.outerHTML.slice(0, 300)")
    raise AssertionError(f"focus not on {selector} but on {active}") from error


def _check(card: Locator) -> Locator:
  return card.locator("button.adkcourse-quiz-check")


def _retry(card: Locator) -> Locator:
  return card.locator("button.adkcourse-quiz-retry")


# -- every lesson -----------------------------------------------------------------------------

def test_each_lesson_runs_and_its_quiz_grades(front):
  page = front.page
  for lang, lesson in RUN_ALL[front.kind]:
    name = f"{lesson.stem}" if lang == "en" else f"{lang}-{lesson.stem}"
    open_notebook(page, front.server, str(lesson.relative_to(ROOT)))
    TIMINGS[f"{front.kind} {name}"] = seconds = run_all(page)
    assert error_outputs(page) == [], f"{lesson.name}: error output after Run All"
    quiz = _panel(page).locator(".adkcourse-quiz").first
    expect(quiz.locator(".adkcourse-quiz-card").first).to_be_visible()
    bank = load_bank(ROOT / "quizzes" / f"{lesson.stem}.yaml")
    # Each lesson runs once per front end (in one of the languages), so nothing is graded yet.
    number, question = next((i, q) for i, q in enumerate(bank) if isinstance(q, SingleChoice))
    card = quiz.locator(".adkcourse-quiz-card").nth(number)
    card.scroll_into_view_if_needed()
    wrong = next(i for i in range(len(question.options)) if i != question.answer)
    card.locator(f'input[type=radio][value="{wrong}"]').click()
    # The question and the widget's words in the notebook's language, as the code defines them.
    expect(card).to_contain_text(" ".join(pick(question.question, lang).replace("`", "")
                                          .replace("*", "").split()[:4]))
    expect(_check(card)).to_have_text(message("check", lang))
    _check(card).click()
    expect(_status(card)).to_contain_text(message("wrong", lang))
    _retry(card).click()
    card.locator(f'input[type=radio][value="{question.answer}"]').click()
    _check(card).click()
    expect(_status(card)).to_contain_text(message("right", lang))
    scores = [score_attempts([False, True])] + [score_attempts([])] * (len(bank) - 1)
    expect(quiz.locator(".adkcourse-quiz-score")).to_contain_text(
        QuizScore.of(scores).sentence(lang))
    quiz.scroll_into_view_if_needed()
    front.shot(f"lesson-{name}")
    if lesson.stem.startswith("01_"):  # its first picture is a session timeline (section 5)
      picture = _panel(page).locator(".jp-RenderedSVG img, .jp-RenderedSVG svg, "
                                     ".jp-RenderedImage img").first
      picture.scroll_into_view_if_needed()
      expect(picture).to_be_visible()
      box = picture.bounding_box()
      assert box and box["width"] > 400 and box["height"] > 200, f"timeline drawn at {box}"
      front.shot(f"timeline-{name}", picture)  # kept for a person to look at
    page.evaluate("() => window.jupyterapp.shell.currentWidget.sessionContext.shutdown()")


# -- one question of each type ------------------------------------------------------------------

def _open_quiz_notebook(front) -> Page:
  page = front.page
  open_notebook(page, front.server, "quiz_check.ipynb")
  run_all(page)
  expect(_panel(page).locator(".adkcourse-quiz")).to_have_count(3)
  expect(_card(page, 2, 3)).to_be_visible()
  return page


def test_answers_with_the_mouse_and_a_double_click(front):
  page = _open_quiz_notebook(front)
  single, multiple, numeric, text = (_card(page, 0, i) for i in range(4))

  labels = single.locator(".widget-radio-box label")
  expect(labels.first.locator("code")).to_have_text("user:")  # code, not backticks
  assert "`" not in labels.first.inner_text()

  single.locator('input[type=radio][value="0"]').click()
  _check(single).click()
  expect(_status(single)).to_contain_text("FEEDBACK-USER-PREFIX")
  assert "EXPLANATION-SINGLE" not in _status(single).inner_text()
  _retry(single).click()
  single.locator('input[type=radio][value="2"]').click()
  _check(single).click()
  expect(_status(single)).to_contain_text("EXPLANATION-SINGLE")

  multiple.locator("input[type=checkbox]").nth(0).click()
  _check(multiple).click()
  expect(_status(multiple)).to_contain_text("Not quite")
  _retry(multiple).click()
  multiple.locator("input[type=checkbox]").nth(1).click()
  multiple.locator("input[type=checkbox]").nth(2).click()
  _check(multiple).click()
  expect(_status(multiple)).to_contain_text("Right!")
  expect(multiple.locator("label code").first).to_have_text("current_order")

  for card, wrong, right in ((numeric, "5", "4"), (text, "sessions", "User_States")):
    card.locator(".adkcourse-quiz-input input[type=text]").fill(wrong)
    _check(card).click()
    expect(_status(card)).to_contain_text("Not quite")
    _retry(card).click()
    card.locator(".adkcourse-quiz-input input[type=text]").fill(right)
    _check(card).click()
    expect(_status(card)).to_contain_text("Right!")
  score = _panel(page).locator(".adkcourse-quiz").nth(0).locator(".adkcourse-quiz-score")
  expect(score).to_have_text("Score: 4 of 4 right (0 at the first attempt) · 4 of 4 answered")
  expect(text.locator(".adkcourse-quiz-score-note")).to_contain_text("Score: 4 of 4 right")
  _panel(page).locator(".adkcourse-quiz").nth(0).scroll_into_view_if_needed()
  front.shot("quiz-mouse", _panel(page).locator(".adkcourse-quiz").nth(0))

  # A double-click on Check with a wrong answer: one attempt, and the answer stays hidden.
  card = _card(page, 2, 0)
  card.scroll_into_view_if_needed()
  card.locator('input[type=radio][value="0"]').click()
  _check(card).dblclick()
  expect(_status(card)).to_contain_text("Press Try again")
  wait_until_idle(page)
  expect(card.locator(".adkcourse-quiz-attempts")).to_contain_text("1 attempt ")
  assert "EXPLANATION-SINGLE" not in _status(card).inner_text()
  assert len(front.attempts("double-click-student", "scope-single")) == 1


def test_answers_with_the_keyboard_only(front):
  page = front.page  # the quiz notebook is open from the previous test
  single, multiple, numeric, text = (_card(page, 1, i) for i in range(4))
  single.scroll_into_view_if_needed()
  panel = "window.jupyterapp.shell.currentWidget.content"
  single.locator('input[type=radio][value="0"]').focus()  # where Tab would arrive
  active_cell = page.evaluate(f"() => {panel}.activeCellIndex")

  # Radios: one group, arrows move inside it (not to the next cell), one Tab stop.
  names = single.locator("input[type=radio]").evaluate_all("rs => rs.map(r => r.name)")
  assert len(set(names)) == 1 and names[0]
  page.keyboard.press("ArrowDown")
  _focused(page, single, 'input[type=radio][value="1"]')
  assert page.evaluate(f"() => {panel}.activeCellIndex") == active_cell
  expect(single.locator('input[type=radio][value="1"]')).to_be_checked()
  page.keyboard.press("Tab")
  _focused(page, single, "button.adkcourse-quiz-check")
  page.keyboard.press("Enter")
  expect(_status(single)).to_contain_text("Not quite")
  _focused(page, single, "button.adkcourse-quiz-retry")  # focus kept, not dropped to the body
  page.keyboard.press("Enter")
  _focused(page, single, "input[type=radio]")
  page.keyboard.press("ArrowDown")
  page.keyboard.press("ArrowDown")
  _focused(page, single, 'input[type=radio][value="2"]')
  page.keyboard.press("Enter")  # Enter on an option checks it, right after the arrows
  expect(_status(single)).to_contain_text("Right!")
  _focused(page, single, "button.adkcourse-quiz-retry")

  # Checkboxes: Tab to each, Space ticks, Enter checks.
  page.keyboard.press("Tab")
  _focused(page, multiple, "input[type=checkbox]")
  page.keyboard.press("Space")
  page.keyboard.press("Enter")
  expect(_status(multiple)).to_contain_text("Not quite")
  _focused(page, multiple, "button.adkcourse-quiz-retry")
  page.keyboard.press("Enter")
  _focused(page, multiple, "input[type=checkbox]")
  for _ in range(2):
    page.keyboard.press("Tab")
    page.keyboard.press("Space")
  page.keyboard.press("Enter")
  expect(_status(multiple)).to_contain_text("Right!")
  _focused(page, multiple, "button.adkcourse-quiz-retry")

  # Text boxes: type, Enter checks.
  for card, wrong, right in ((numeric, "3", "4"), (text, "sessions", "user states")):
    page.keyboard.press("Tab")
    _focused(page, card, ".adkcourse-quiz-input input[type=text]")
    page.keyboard.type(wrong)
    page.keyboard.press("Enter")
    expect(_status(card)).to_contain_text("Not quite")
    _focused(page, card, "button.adkcourse-quiz-retry")
    page.keyboard.press("Enter")
    _focused(page, card, ".adkcourse-quiz-input input[type=text]")
    page.keyboard.type(right)
    page.keyboard.press("Enter")
    expect(_status(card)).to_contain_text("Right!")
    _focused(page, card, "button.adkcourse-quiz-retry")
  score = _panel(page).locator(".adkcourse-quiz").nth(1).locator(".adkcourse-quiz-score")
  expect(score).to_have_text("Score: 4 of 4 right (0 at the first attempt) · 4 of 4 answered")

  # Accessible names: the question text labels each group and box.
  expect(_panel(page).get_by_role("radiogroup",
                          name="Which prefix is shared by every user of the app?")).to_have_count(3)
  expect(_panel(page).get_by_role("group", name="Which keys does a new session of the same user see?")
         ).to_have_count(3)
  expect(_panel(page).get_by_role("textbox",
                          name="How many events does one turn with one tool call store?")
         ).to_have_count(3)
  _panel(page).locator(".adkcourse-quiz").nth(1).scroll_into_view_if_needed()
  front.shot("quiz-keyboard", _panel(page).locator(".adkcourse-quiz").nth(1))


def test_progress_comes_back_after_a_kernel_restart(front):
  page = front.page
  restart_kernel(page)
  run_all(page)
  quiz = _panel(page).locator(".adkcourse-quiz").nth(0)
  expect(quiz.locator(".adkcourse-quiz-score")).to_have_text(
      "Score: 4 of 4 right (0 at the first attempt) · 4 of 4 answered")
  numeric = _card(page, 0, 2)
  expect(numeric.locator(".adkcourse-quiz-attempts")).to_contain_text(
      "2 attempts · from your progress file")
  expect(_status(numeric)).to_contain_text("Right!")
  expect(numeric.locator(".adkcourse-quiz-input input[type=text]")).to_have_value("4")
  expect(_retry(numeric)).to_be_visible()
  expect(_card(page, 2, 0).locator(".adkcourse-quiz-attempts")).to_contain_text("1 attempt ")
  quiz.scroll_into_view_if_needed()
  front.shot("quiz-after-restart", quiz)
  _retry(numeric).click()
  numeric.locator(".adkcourse-quiz-input input[type=text]").fill("4")
  _check(numeric).click()
  expect(numeric.locator(".adkcourse-quiz-attempts")).to_contain_text("3 attempts · saved")
  wait_until_idle(page)
  assert [r["attempt"] for r in front.attempts("mouse-student", "events-numeric")] == [1, 2, 3]


def test_kernels_leave_no_scratch_folder(front):
  front.page.goto("about:blank")
  front.server.stop()

  def left() -> list[str]:
    return sorted(p.name for p in front.scratch.iterdir()) if front.scratch.exists() else []

  deadline = time.monotonic() + 30  # an embedded PostgreSQL stops in its kernel's atexit
  while left() and time.monotonic() < deadline:
    time.sleep(0.5)
  assert left() == [], f"scratch folders left after the kernels stopped: {left()}"


# -- the HTML export ----------------------------------------------------------------------------

def _hidden_texts(bank) -> list[str]:
  texts = []
  for question in bank:
    values = [question.explanation, *getattr(question, "feedback", {}).values()]
    for value in values:
      texts += [value] if languages(value) is None else list(value.values())
  return texts


@pytest.mark.parametrize("lesson", LESSONS, ids=lambda p: p.stem)
def test_html_export_shows_the_questions_and_no_answer(lesson, browser, tmp_path, screenshots):
  """The committed lesson as nbconvert exports it, in Chromium with every request outside the
  file blocked (as on a page opened offline)."""
  notebook = nbformat.read(lesson, as_version=4)
  page_html, _ = HTMLExporter().from_notebook_node(notebook)
  path = tmp_path / f"{lesson.stem}.html"
  path.write_text(page_html, encoding="utf-8")
  bank = load_bank(ROOT / "quizzes" / f"{lesson.stem}.yaml")
  page = browser.new_page()
  try:
    page.route("**/*", lambda route: route.continue_() if route.request.url.startswith("file:")
               else route.abort())
    page.goto(path.as_uri(), wait_until="load")
    quiz = page.locator("div.adkcourse-quiz")
    expect(quiz).to_have_count(1)
    box = quiz.bounding_box()
    assert box is not None and box["height"] > 200, f"quiz is {box} in the export"
    shown = " ".join(quiz.inner_text().split())
    for question in bank:
      text = question.question if isinstance(question.question, str) else next(
          iter(question.question.values()))
      first_words = " ".join(text.replace("`", "").replace("**", "").split()[:6])
      assert first_words in shown, f"{question.id}: question not shown in the export"
    for secret in _hidden_texts(bank):  # the lesson's prose may teach the same facts
      assert " ".join(secret.replace("`", "").split())[:60] not in shown.replace("`", ""), \
          f"{lesson.name}: an explanation or feedback is in the exported quiz"
    assert "application/vnd.jupyter.widget-state+json" not in page_html  # no saved state
    quiz.scroll_into_view_if_needed()
    quiz.screenshot(path=str(screenshots / f"export-{lesson.stem}.png"))
  finally:
    page.close()


def test_report_timings(capsys):
  """Not a check: prints how long each front end took, for the record."""
  with capsys.disabled():
    print("\nbrowser timings: " + json.dumps({k: round(v, 1) for k, v in TIMINGS.items()}))
