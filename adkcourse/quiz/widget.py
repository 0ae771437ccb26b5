"""Quiz widgets for notebooks: one question or a whole bank, graded in the kernel.

What the notebook file holds is only what a student may see before answering: the question and
its options. The answer, the explanation and per-option feedback live in kernel memory and are
written into a widget only after a graded attempt, so neither the committed output nor the widget
state that ``nbclient``/JupyterLab save into the notebook's metadata can give them away.

Each display carries three representations: the live widget
(``application/vnd.jupyter.widget-view+json``, which nbval does not compare because its model id
is random), and a plain-text and an HTML rendering of the question and its options. The last two
are what GitHub, nbviewer or ``jupyter nbconvert`` show where widgets cannot run, and what nbval
compares run to run: they depend on the bank only, so the committed output is stable.
"""

from __future__ import annotations

import html
import re
import warnings
from typing import Any, Callable, Optional, Union

import ipywidgets as widgets

from .model import (REVEAL_AFTER_WRONG, Grade, MultipleChoice, NumericQuestion, Question,
                    ResponseError, SingleChoice, pick)
from .progress import ProgressStore, default_user_id

CARD = widgets.Layout(border="1px solid #d0d7de", padding="4px 12px 8px 12px", margin="6px 0",
                      width="auto")


def inline_markdown(text: str) -> str:
  """Escaped HTML with `code`, **bold** and line breaks: enough for question texts."""
  escaped = html.escape(text, quote=False)
  escaped = re.sub(r"`([^`]+)`", r"<code>\1</code>", escaped)
  escaped = re.sub(r"\*\*([^*]+)\*\*", r"<b>\1</b>", escaped)
  return escaped.strip().replace("\n", "<br>")


def plain(html_text: str) -> str:
  """The text a student reads in an HTML fragment (tags dropped, entities decoded)."""
  text = re.sub(r"<br\s*/?>|</p>|</li>|</div>", "\n", html_text)
  text = html.unescape(re.sub(r"<[^>]+>", "", text))
  return "\n".join(line.strip() for line in text.splitlines() if line.strip())


def _cell_token() -> Any:
  """Something that identifies the cell being executed (None outside IPython)."""
  try:
    from IPython import get_ipython
  except ImportError:  # pragma: no cover - IPython is a dependency of ipywidgets
    return None
  shell = get_ipython()
  if shell is None:
    return None
  header = getattr(shell, "parent_header", None) or {}
  msg_id = header.get("header", {}).get("msg_id") if isinstance(header, dict) else None
  return msg_id or ("count", shell.execution_count)


def in_ipython() -> bool:
  try:
    from IPython import get_ipython
  except ImportError:  # pragma: no cover
    return False
  return get_ipython() is not None


class _Displayable:
  """Shows ``self.widget`` with the text and HTML fallbacks. ``show_quiz`` displays the object
  and returns it; when the call is the cell's last line, IPython would display the returned
  object a second time, so a second display in the same cell is skipped."""

  widget: widgets.Widget
  _shown_in: Any = None

  def text_fallback(self) -> str:  # pragma: no cover - overridden
    raise NotImplementedError

  def html_fallback(self) -> str:  # pragma: no cover - overridden
    raise NotImplementedError

  def _repr_mimebundle_(self, include: Any = None, exclude: Any = None) -> dict[str, Any]:
    data = dict(self.widget._repr_mimebundle_())  # noqa: SLF001 - the widget-view entry
    data["text/plain"] = self.text_fallback()
    data["text/html"] = self.html_fallback()
    return data

  def _ipython_display_(self) -> None:
    token = _cell_token()
    if token is not None and token == self._shown_in:
      return
    self._shown_in = token
    from IPython.display import display
    display(self._repr_mimebundle_(), raw=True)

  def __repr__(self) -> str:
    return self.text_fallback()


def _question_text_lines(question: Question, lang: Optional[str],
                         number: Optional[int]) -> list[str]:
  lead = f"{number}. " if number is not None else ""
  pad = " " * len(lead)
  lines = [f"{lead}{pick(question.question, lang)} ({question.kind_label})"]
  if isinstance(question, (SingleChoice, MultipleChoice)):
    box = "( )" if isinstance(question, SingleChoice) else "[ ]"
    lines += [f"{pad}{box} {option}" for option in question.option_texts(lang)]
  else:
    unit = f" {pick(question.unit, lang)}" if getattr(question, "unit", None) else ""
    lines.append(f"{pad}Your answer: ________{unit}")
  return lines


def _question_html(question: Question, lang: Optional[str]) -> str:
  parts = [f"<p>{inline_markdown(pick(question.question, lang))} "
           f"<i>({question.kind_label})</i></p>"]
  if isinstance(question, (SingleChoice, MultipleChoice)):
    box = "&#9675;" if isinstance(question, SingleChoice) else "&#9744;"
    items = "".join(f"<li>{box} {inline_markdown(o)}</li>" for o in question.option_texts(lang))
    parts.append(f'<ul style="list-style: none; padding-left: 1em">{items}</ul>')
  else:
    unit = f" {html.escape(pick(question.unit, lang))}" if getattr(question, "unit", None) else ""
    parts.append(f"<p>Your answer: ________{unit}</p>")
  return "".join(parts)


OFFLINE_NOTE = "Run this notebook in Jupyter to answer: the answers are checked there."


class QuestionView(_Displayable):
  """One question: the right input for its type, Check and Try again buttons, feedback and the
  attempt count. Tests drive it with ``select(...)``, ``check()``, ``retry()`` and read
  ``feedback_text``; ``last_record`` is what was stored in the progress file."""

  def __init__(self, question: Question, *, number: Optional[int] = None,
               total: Optional[int] = None, bank: Optional[str] = None,
               user_id: Optional[str] = None, lang: Optional[str] = None,
               store: Optional[ProgressStore] = None,
               on_graded: Optional[Callable[["QuestionView"], None]] = None):
    self.question = question
    self.number = number
    self.bank = bank or question.bank or "questions"
    self.user_id = user_id or default_user_id()
    self.lang = lang
    self.store = store
    self.on_graded = on_graded
    self.attempts = 0
    self.wrong_attempts = 0
    self.correct: Optional[bool] = None
    self.last_grade: Optional[Grade] = None
    self.last_record: Optional[dict[str, Any]] = None
    self.save_error: Optional[str] = None

    title = f"Question {number} of {total}" if number and total else "Question"
    self.header = widgets.HTML(f"<b>{title}</b> &middot; <i>{question.kind_label}</i>")
    self.prompt = widgets.HTML(f"<p>{inline_markdown(pick(question.question, lang))}</p>")
    self.input = self._make_input()
    self.check_button = widgets.Button(description="Check", button_style="primary", icon="check",
                                       tooltip="Grade my answer")
    self.retry_button = widgets.Button(description="Try again", icon="refresh",
                                       tooltip="Clear my answer and answer again",
                                       layout=widgets.Layout(display="none"))
    self.status = widgets.HTML("")
    self.attempts_label = widgets.HTML("")
    self.check_button.on_click(lambda _button: self.check())
    self.retry_button.on_click(lambda _button: self.retry())
    buttons = widgets.HBox([self.check_button, self.retry_button, self.attempts_label])
    self.widget = widgets.VBox([self.header, self.prompt, self.input, buttons, self.status],
                               layout=CARD)

  # -- input ---------------------------------------------------------------------------------

  def _make_input(self) -> widgets.Widget:
    question = self.question
    if isinstance(question, SingleChoice):
      self._radio = widgets.RadioButtons(
          options=[(text, i) for i, text in enumerate(question.option_texts(self.lang))],
          value=None, layout=widgets.Layout(width="auto"))
      return self._radio
    if isinstance(question, MultipleChoice):
      self._boxes = [widgets.Checkbox(value=False, description=text, indent=False,
                                      layout=widgets.Layout(width="auto"))
                     for text in question.option_texts(self.lang)]
      return widgets.VBox(self._boxes)
    placeholder = "a number" if isinstance(question, NumericQuestion) else "your answer"
    self._text = widgets.Text(value="", placeholder=placeholder,
                              layout=widgets.Layout(width="20em"))
    unit = getattr(question, "unit", None)
    if unit is not None:
      return widgets.HBox([self._text, widgets.Label(pick(unit, self.lang))])
    return self._text

  def _input_widgets(self) -> list[widgets.Widget]:
    if isinstance(self.question, SingleChoice):
      return [self._radio]
    if isinstance(self.question, MultipleChoice):
      return list(self._boxes)
    return [self._text]

  def response(self) -> Any:
    """What the student entered, as the question's ``grade`` expects it."""
    if isinstance(self.question, SingleChoice):
      return self._radio.value
    if isinstance(self.question, MultipleChoice):
      return [i for i, box in enumerate(self._boxes) if box.value]
    return self._text.value

  def select(self, response: Any) -> "QuestionView":
    """Enter a response as a student would: an option index, a list of indices, or text."""
    if isinstance(self.question, SingleChoice):
      self._radio.value = response
    elif isinstance(self.question, MultipleChoice):
      chosen = set(response or [])
      for i, box in enumerate(self._boxes):
        box.value = i in chosen
    else:
      self._text.value = "" if response is None else str(response)
    return self

  # -- grading -------------------------------------------------------------------------------

  def check(self) -> Optional[Grade]:
    """What the Check button does. Returns the grade, or None after a polite prompt when there
    is nothing to grade yet (no option chosen, no number typed)."""
    try:
      grade = self.question.grade(self.response(), self.lang)
    except ResponseError as prompt:
      self.status.value = f'<p style="color: #9a6700">{html.escape(str(prompt))}</p>'
      return None
    self.attempts += 1
    self.wrong_attempts += 0 if grade.correct else 1
    self.correct = grade.correct
    self.last_grade = grade
    self._save(grade)
    self.status.value = self._feedback_html(grade)
    plural = "s" if self.attempts > 1 else ""
    saved = "saved" if self.save_error is None else "not saved"
    self.attempts_label.value = (f'<span style="color: #57606a">{self.attempts} attempt{plural}'
                                 f" &middot; {saved}</span>")
    for item in self._input_widgets():
      item.disabled = True
    self.check_button.disabled = True
    self.retry_button.layout.display = None
    if self.on_graded is not None:
      self.on_graded(self)
    return grade

  def _save(self, grade: Grade) -> None:
    self.save_error = None
    self.last_record = None
    if self.store is None:
      return
    try:
      self.last_record = self.store.record(self.user_id, self.bank, self.question.id,
                                           grade.response, grade.correct)
    except Exception as error:  # noqa: BLE001 - grading must work even if saving fails
      self.save_error = f"{type(error).__name__}: {error}"
      warnings.warn(f"quiz attempt not saved to {self.store.path}: {self.save_error}",
                    stacklevel=2)

  def _feedback_html(self, grade: Grade) -> str:
    question, lang = self.question, self.lang
    reveal = grade.correct or self.wrong_attempts >= REVEAL_AFTER_WRONG
    if grade.correct:
      parts = ['<p style="color: #1a7f37"><b>&#10004; Right!</b></p>']
    else:
      parts = ['<p style="color: #cf222e"><b>&#10008; Not quite.</b></p>']
    parts += [f"<p>{inline_markdown(text)}</p>" for text in grade.feedback]
    if not grade.correct and reveal:
      parts.append(f"<p>The right answer: <b>{inline_markdown(question.right_answer(lang))}"
                   "</b></p>")
    if reveal:
      parts.append(f"<p>{inline_markdown(pick(question.explanation, lang))}</p>")
    else:
      parts.append("<p>Press <b>Try again</b> and have another go.</p>")
    if self.save_error is not None:
      parts.append(f'<p style="color: #57606a"><small>Your answer was graded but not saved to '
                   f"your progress file ({html.escape(self.save_error)}).</small></p>")
    return "".join(parts)

  def retry(self) -> None:
    """Clear the response and the feedback so the student can answer again."""
    for item in self._input_widgets():
      item.disabled = False
    if isinstance(self.question, SingleChoice):
      self._radio.value = None
    else:
      self.select(None)
    self.check_button.disabled = False
    self.retry_button.layout.display = "none"
    self.status.value = ""

  @property
  def feedback_text(self) -> str:
    """The feedback as the student reads it (plain text)."""
    return plain(self.status.value)

  # -- fallbacks -----------------------------------------------------------------------------

  def text_fallback(self) -> str:
    return "\n".join(_question_text_lines(self.question, self.lang, None) + [OFFLINE_NOTE])

  def html_fallback(self) -> str:
    return (f'<div class="adkcourse-quiz">{_question_html(self.question, self.lang)}'
            f"<p><small>{OFFLINE_NOTE}</small></p></div>")


class Quiz(_Displayable):
  """A whole bank: one ``QuestionView`` per question and a running score."""

  def __init__(self, questions: list[Question], *, name: str = "", user_id: Optional[str] = None,
               lang: Optional[str] = None, store: Optional[ProgressStore] = None):
    self.name = name
    self.lang = lang
    self.user_id = user_id or default_user_id()
    total = len(questions)
    self.views = [QuestionView(q, number=i + 1, total=total, bank=name or q.bank,
                               user_id=self.user_id, lang=lang, store=store,
                               on_graded=self._update_score)
                  for i, q in enumerate(questions)]
    self.title = widgets.HTML(f"<h4>Quiz &middot; {total} question{'s' if total != 1 else ''}"
                              "</h4>")
    self.score = widgets.HTML("")
    self._update_score()
    self.widget = widgets.VBox([self.title, *[v.widget for v in self.views], self.score])

  def view(self, key: Union[int, str]) -> QuestionView:
    """A question's view by position (0-based) or by id."""
    if isinstance(key, int):
      return self.views[key]
    for view in self.views:
      if view.question.id == key:
        return view
    raise KeyError(f"no question {key!r} in this quiz")

  def __getitem__(self, key: Union[int, str]) -> QuestionView:
    return self.view(key)

  def __len__(self) -> int:
    return len(self.views)

  @property
  def right(self) -> int:
    return sum(1 for v in self.views if v.correct)

  @property
  def answered(self) -> int:
    return sum(1 for v in self.views if v.correct is not None)

  @property
  def score_text(self) -> str:
    return plain(self.score.value)

  def _update_score(self, _view: Optional[QuestionView] = None) -> None:
    first_try = sum(1 for v in self.views if v.correct and v.attempts == 1)
    self.score.value = (f"<p><b>Score: {self.right} of {len(self.views)} right</b> &middot; "
                        f"{self.answered} answered &middot; {first_try} right at the first "
                        "attempt</p>")

  def text_fallback(self) -> str:
    lines = [f"Quiz: {len(self.views)} question{'s' if len(self.views) != 1 else ''}"]
    for view in self.views:
      lines += [""] + _question_text_lines(view.question, self.lang, view.number)
    return "\n".join(lines + ["", OFFLINE_NOTE])

  def html_fallback(self) -> str:
    items = "".join(f"<li>{_question_html(v.question, self.lang)}</li>" for v in self.views)
    return (f'<div class="adkcourse-quiz"><h4>Quiz &middot; {len(self.views)} questions</h4>'
            f"<ol>{items}</ol><p><small>{OFFLINE_NOTE}</small></p></div>")
