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

A quiz shown again (after a kernel restart, in another notebook) reads the student's stored
attempts first and puts each card back as it was left; the score counts what ``scoring.py``
defines. Keyboard use and labels for screen readers come from ``frontend.py``.

Every word of the widget's own comes from ``messages.py`` in the quiz's ``lang`` (English when
it is None: ``show_quiz`` finds the notebook's language with ``language.py`` and passes it).
Messages are plain text: they are HTML-escaped here, where the markup is added.
"""

from __future__ import annotations

import html
import json
import re
import warnings
from typing import Any, Callable, Optional, Union

import ipywidgets as widgets

from . import frontend
from .messages import message, plural, template
from .model import (Grade, MultipleChoice, NumericQuestion, Question, ResponseError, SingleChoice,
                    pick)
from .progress import ProgressStore, default_user_id
from .scoring import QuestionScore, QuizScore, score_attempts
from .shuffle import option_order

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


_CELLS_WITH_A_RESTART_HINT: set[int] = set()


def claim_restart_hint() -> bool:
  """Whether a widget made now should show its "after a kernel restart, run this cell again"
  line: True for the first widget of a run of a cell, False for the next ones, so that a quiz
  cell that also shows its checklist says it once. Outside IPython, always True."""
  try:
    from IPython import get_ipython
  except ImportError:  # pragma: no cover
    return True
  shell = get_ipython()
  if shell is None:
    return True
  cell = int(getattr(shell, "execution_count", 0) or 0)
  if cell in _CELLS_WITH_A_RESTART_HINT:
    return False
  _CELLS_WITH_A_RESTART_HINT.add(cell)
  return True


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
  lines = [f"{lead}{pick(question.question, lang)} ({question.kind(lang)})"]
  if isinstance(question, (SingleChoice, MultipleChoice)):
    box = "( )" if isinstance(question, SingleChoice) else "[ ]"
    lines += [f"{pad}{box} {option}" for option in question.option_texts(lang)]
  else:
    unit = f" {pick(question.unit, lang)}" if getattr(question, "unit", None) else ""
    lines.append(f"{pad}{message('answer_blank', lang)}{unit}")
  return lines


def _question_html(question: Question, lang: Optional[str]) -> str:
  parts = [f"<p>{inline_markdown(pick(question.question, lang))} "
           f"<i>({_html(question.kind(lang))})</i></p>"]
  if isinstance(question, (SingleChoice, MultipleChoice)):
    box = "&#9675;" if isinstance(question, SingleChoice) else "&#9744;"
    items = "".join(f"<li>{box} {inline_markdown(o)}</li>" for o in question.option_texts(lang))
    parts.append(f'<ul style="list-style: none; padding-left: 1em">{items}</ul>')
  else:
    unit = f" {html.escape(pick(question.unit, lang))}" if getattr(question, "unit", None) else ""
    parts.append(f"<p>{_html(message('answer_blank', lang))}{unit}</p>")
  return "".join(parts)


OFFLINE_NOTE = message("offline_note")
"""In English; ``message("offline_note", lang)`` in the quiz's language."""
MUTED = "#57606a"


def _html(text: str) -> str:
  """A message as HTML text (French apostrophes and guillemets pass through)."""
  return html.escape(text, quote=False)


def _html_message(key: str, lang: Optional[str], **markup: str) -> str:
  """A message as HTML whose placeholders take ready-made HTML (a bold button name, an escaped
  error)."""
  return _html(template(key, lang)).format(**markup)


class QuestionView(_Displayable):
  """One question: the right input for its type, Check and Try again buttons, feedback and the
  attempt count. Tests drive it with ``select(...)``, ``check()``, ``retry()`` and read
  ``feedback_text``; ``last_record`` is what was stored in the progress file.

  ``history`` (this question's stored attempts, oldest first) puts the card back as the student
  left it: attempt count, score standing, last answer and its feedback. Without it a kernel
  restart would show a blank card and count the next attempt as the first.
  """

  def __init__(self, question: Question, *, number: Optional[int] = None,
               total: Optional[int] = None, bank: Optional[str] = None,
               user_id: Optional[str] = None, lang: Optional[str] = None,
               store: Optional[ProgressStore] = None,
               on_graded: Optional[Callable[["QuestionView"], None]] = None,
               shuffle: bool = False, history: Optional[list[dict[str, Any]]] = None):
    self.question = question
    self.number = number
    self.bank = bank or question.bank or "questions"
    self.user_id = user_id or default_user_id()
    self.lang = lang
    self.store = store
    self.on_graded = on_graded
    self.score = QuestionScore()
    self.correct: Optional[bool] = None
    """Whether the latest attempt was right (None before any)."""
    self.locked = False
    """Graded and waiting for Try again: a second Check (a double-click) is ignored."""
    self.last_grade: Optional[Grade] = None
    self.last_record: Optional[dict[str, Any]] = None
    self.save_error: Optional[str] = None
    options = getattr(question, "options", None) or []
    own = getattr(question, "shuffle", None)
    self.order = option_order(len(options), user_id=self.user_id, bank=self.bank,
                              question_id=question.id, shuffle=shuffle if own is None else own)
    """Bank option indices in the order shown (identity unless shuffled)."""

    title = (message("question_of", lang, number=number, total=total) if number and total
             else message("question", lang))
    self.header = widgets.HTML(f"<b>{_html(title)}</b> &middot; "
                               f"<i>{_html(question.kind(lang))}</i>{frontend.enhancer_html()}")
    self.prompt = widgets.HTML(f"<p>{inline_markdown(pick(question.question, lang))}</p>")
    self.prompt.add_class(frontend.PROMPT_CLASS)
    self.input = self._make_input()
    self.input.add_class(frontend.INPUT_CLASS)
    self.check_button = widgets.Button(description=message("check", lang),
                                       button_style="primary", icon="check",
                                       tooltip=message("check_tooltip", lang))
    self.check_button.add_class(frontend.CHECK_CLASS)
    self.retry_button = widgets.Button(description=message("retry", lang), icon="refresh",
                                       tooltip=message("retry_tooltip", lang),
                                       layout=widgets.Layout(display="none"))
    self.retry_button.add_class(frontend.RETRY_CLASS)
    self.status = widgets.HTML("")
    self.status.add_class(frontend.STATUS_CLASS)
    self.attempts_label = widgets.HTML("")
    self.attempts_label.add_class("adkcourse-quiz-attempts")
    self.score_note = widgets.HTML("")
    self.score_note.add_class("adkcourse-quiz-score-note")
    """The quiz's score, shown under the card that was graded last."""
    self.submitted = widgets.Text(value="", layout=widgets.Layout(display="none"))
    """Where the browser code writes the answer on Check (``frontend.py`` says why)."""
    self.submitted.add_class(frontend.SUBMIT_CLASS)
    self.submitted.observe(self._on_submitted, "value")
    self.check_button.on_click(lambda _button: self.check())
    self.retry_button.on_click(lambda _button: self.retry())
    buttons = widgets.HBox([self.check_button, self.retry_button, self.attempts_label])
    self.widget = widgets.VBox([self.header, self.prompt, self.input, buttons, self.status,
                                self.score_note, self.submitted], layout=CARD)
    self.widget.add_class(frontend.CARD_CLASS)
    if history:
      self._restore(history)

  @property
  def attempts(self) -> int:
    """Every graded attempt at this question, earlier kernels' included."""
    return self.score.attempts

  # -- input ---------------------------------------------------------------------------------

  def _make_input(self) -> widgets.Widget:
    question = self.question
    if isinstance(question, SingleChoice):
      texts = question.option_texts(self.lang)
      self._radio = widgets.RadioButtons(options=[(texts[i], i) for i in self.order],
                                         value=None, layout=widgets.Layout(width="auto"))
      return self._radio
    if isinstance(question, MultipleChoice):
      texts = question.option_texts(self.lang)
      self._boxes = {i: widgets.Checkbox(value=False, description=inline_markdown(texts[i]),
                                         description_allow_html=True, indent=False,
                                         layout=widgets.Layout(width="auto"))
                     for i in self.order}
      return widgets.VBox([self._boxes[i] for i in self.order])
    placeholder = message("placeholder_number" if isinstance(question, NumericQuestion)
                          else "placeholder_text", self.lang)
    self._text = widgets.Text(value="", placeholder=placeholder,
                              layout=widgets.Layout(width="20em"))
    self._text.on_msg(self._on_text_message)
    unit = getattr(question, "unit", None)
    if unit is not None:
      return widgets.HBox([self._text, widgets.Label(pick(unit, self.lang))])
    return self._text

  def _on_text_message(self, _widget: widgets.Widget, content: dict, _buffers: Any) -> None:
    """Enter in the text box: the browser sends ``{"event": "submit"}``; Enter means Check."""
    if content.get("event") == "submit":
      self.check()

  def _on_submitted(self, change: dict) -> None:
    """Check the answer the browser sent: ``{"n": nonce, "r": answer}``, where the answer is
    an option position as shown, a list of them, or the typed text."""
    try:
      message = json.loads(change["new"])
      answer = message["r"]
    except (ValueError, TypeError, KeyError):
      return
    if self.locked:
      return  # the second click of a double-click
    self.select(self._from_positions(answer))
    self.check()

  def _from_positions(self, answer: Any) -> Any:
    """Positions on screen to bank indices (they differ when the options are shuffled)."""
    def index(position: Any) -> Optional[int]:
      if isinstance(position, int) and not isinstance(position, bool) \
          and 0 <= position < len(self.order):
        return self.order[position]
      return None
    if isinstance(self.question, SingleChoice):
      return index(answer)
    if isinstance(self.question, MultipleChoice):
      chosen = [index(p) for p in answer] if isinstance(answer, list) else []
      return sorted(i for i in chosen if i is not None)
    return answer if isinstance(answer, str) else ""

  def _input_widgets(self) -> list[widgets.Widget]:
    if isinstance(self.question, SingleChoice):
      return [self._radio]
    if isinstance(self.question, MultipleChoice):
      return list(self._boxes.values())
    return [self._text]

  def response(self) -> Any:
    """What the student entered, as the question's ``grade`` expects it (bank indices)."""
    if isinstance(self.question, SingleChoice):
      return self._radio.value
    if isinstance(self.question, MultipleChoice):
      return sorted(i for i, box in self._boxes.items() if box.value)
    return self._text.value

  def select(self, response: Any) -> "QuestionView":
    """Enter a response as a student would: an option index, a list of indices, or text (bank
    indices, whatever order the options are shown in)."""
    if isinstance(self.question, SingleChoice):
      self._radio.value = response
    elif isinstance(self.question, MultipleChoice):
      chosen = set(response or [])
      for i, box in self._boxes.items():
        box.value = i in chosen
    else:
      self._text.value = "" if response is None else str(response)
    return self

  # -- grading -------------------------------------------------------------------------------

  def check(self) -> Optional[Grade]:
    """What the Check button does. Returns the grade, or None after a polite prompt when there
    is nothing to grade yet (no option chosen, no number typed), and None without doing anything
    when this answer is already graded: the second click of a double-click must not count as a
    second attempt (nor reveal the answer)."""
    if self.locked:
      return None
    try:
      grade = self.question.grade(self.response(), self.lang)
    except ResponseError as prompt:
      self.status.value = f'<p style="color: #9a6700">{html.escape(str(prompt))}</p>'
      return None
    before = self.score
    self.score = before.after(grade.correct)
    self.correct = grade.correct
    self.last_grade = grade
    self._save(grade)
    self.status.value = self._feedback_html(grade.correct, grade.feedback, before)
    self._show_attempts()
    self._lock()
    if self.on_graded is not None:
      self.on_graded(self)
    return grade

  def _lock(self) -> None:
    """Freeze the graded answer. Try again is shown before Check is disabled, so the browser
    code (``frontend.py``) can move the keyboard focus there instead of losing it."""
    self.locked = True
    self.retry_button.layout.display = None
    for item in self._input_widgets():
      item.disabled = True
    self.check_button.disabled = True

  def _show_attempts(self, restored: bool = False) -> None:
    key = "attempts_saved" if self.save_error is None else "attempts_not_saved"
    if restored:
      key = "attempts_restored"
    count, lang = self.attempts, self.lang
    self.attempts_label.value = (f'<span style="color: {MUTED}">'
                                 f"{_html(plural('attempts', count, lang))} &middot; "
                                 f"{_html(plural(key, count, lang))}</span>")

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

  def _feedback_html(self, correct: bool, feedback: list[str], before: QuestionScore) -> str:
    """What the student reads after an attempt; ``before`` is the standing before it, which
    decides whether a right answer counts (see ``scoring.py``)."""
    question, lang, after = self.question, self.lang, self.score
    if correct:
      parts = [f'<p style="color: #1a7f37"><b>&#10004; {_html(message("right", lang))}</b></p>']
      if before.revealed:
        parts.append(f"<p>{_html(message('right_after_reveal', lang))}</p>")
    else:
      parts = [f'<p style="color: #cf222e"><b>&#10008; {_html(message("wrong", lang))}</b></p>']
      if before.right:
        parts.append(f"<p>{_html(message('earlier_right_counts', lang))}</p>")
    parts += [f"<p>{inline_markdown(text)}</p>" for text in feedback]
    if not correct and after.shows_answer:
      parts.append(f"<p>{_html(message('right_answer', lang))} "
                   f"<b>{inline_markdown(question.right_answer(lang))}</b></p>")
    if correct or after.shows_answer:
      parts.append(f"<p>{inline_markdown(pick(question.explanation, lang))}</p>")
    else:
      button = f"<b>{_html(message('retry', lang))}</b>"
      parts.append(f"<p>{_html_message('try_again_hint', lang, button=button)}</p>")
    if self.save_error is not None:
      note = _html_message("not_saved", lang, error=html.escape(self.save_error))
      parts.append(f'<p style="color: {MUTED}"><small>{note}</small></p>')
    return "".join(parts)

  def _restore(self, history: list[dict[str, Any]]) -> None:
    """Show the stored attempts: the standing they add up to, and the last answer with the
    feedback it got, locked as right after Check."""
    corrects = [bool(row.get("correct")) for row in history]
    before = score_attempts(corrects[:-1])
    self.score = before.after(corrects[-1])
    self.correct = corrects[-1]
    response = history[-1].get("response")
    feedback: list[str] = []
    try:
      self.select(response)
      feedback = self.question.grade(self.response(), self.lang).feedback
    except Exception:  # noqa: BLE001 - the bank changed since: show the standing only
      self.select(None)
    self.status.value = self._feedback_html(self.correct, feedback, before)
    self._show_attempts(restored=True)
    self._lock()

  def retry(self) -> None:
    """Clear the response and the feedback so the student can answer again (a no-op unless an
    answer is graded, so a double-click on Try again does nothing more)."""
    if not self.locked:
      return
    self.locked = False
    self.select(None)
    for item in self._input_widgets():
      item.disabled = False
    self.check_button.disabled = False
    self.status.value = ""
    self.score_note.value = ""
    self.retry_button.layout.display = "none"

  @property
  def feedback_text(self) -> str:
    """The feedback as the student reads it (plain text)."""
    return plain(self.status.value)

  # -- fallbacks -----------------------------------------------------------------------------

  def text_fallback(self) -> str:
    return "\n".join(_question_text_lines(self.question, self.lang, None)
                     + [message("offline_note", self.lang)])

  def html_fallback(self) -> str:
    return (f'<div class="adkcourse-quiz">{_question_html(self.question, self.lang)}'
            f"<p><small>{_html(message('offline_note', self.lang))}</small></p></div>")


class Quiz(_Displayable):
  """A whole bank: one ``QuestionView`` per question and the score, shown at the top and under
  the card graded last. With a ``store`` the student's earlier attempts (from any kernel) are
  read once and put back on the cards, so a restart loses nothing on screen either."""

  def __init__(self, questions: list[Question], *, name: str = "", user_id: Optional[str] = None,
               lang: Optional[str] = None, store: Optional[ProgressStore] = None,
               shuffle: bool = False):
    self.name = name
    self.lang = lang
    self.user_id = user_id or default_user_id()
    self.history_error: Optional[str] = None
    history = self._history(store, questions)
    total = len(questions)
    self.views = [QuestionView(q, number=i + 1, total=total, bank=name or q.bank,
                               user_id=self.user_id, lang=lang, store=store,
                               on_graded=self._update_score, shuffle=shuffle,
                               history=history.get((name or q.bank or "questions", q.id)))
                  for i, q in enumerate(questions)]
    self.title = widgets.HTML(f"<h4>{self._title_html()}</h4>")
    self.score = widgets.HTML("")
    self.score.add_class("adkcourse-quiz-score")
    self._update_score()
    # After a kernel restart the widgets stay on screen but nothing answers them any more (the
    # front end shows a broken-link icon): say what to do, since no code runs to say it then.
    self.restart_hint = widgets.HTML(
        f'<small style="opacity: 0.75">{_html(message("restart_hint", self.lang))}</small>')
    claim_restart_hint()  # the quiz shows its line; a checklist shown after it in the cell does not
    self.widget = widgets.VBox([self.title, self.score, *[v.widget for v in self.views],
                                self.restart_hint])
    self.widget.add_class("adkcourse-quiz")

  def _title_html(self) -> str:
    """``Quiz · 11 questions`` (the middle dot needs no translation)."""
    return (f"{_html(message('quiz', self.lang))} &middot; "
            f"{_html(plural('questions', len(self.views), self.lang))}")

  def _history(self, store: Optional[ProgressStore],
               questions: list[Question]) -> dict[tuple[str, str], list[dict[str, Any]]]:
    """This student's stored attempts, grouped by (bank, question), oldest first."""
    if store is None:
      return {}
    try:
      rows = store.history(self.user_id)
    except Exception as error:  # noqa: BLE001 - a quiz must show even if the file is unreadable
      self.history_error = f"{type(error).__name__}: {error}"
      warnings.warn(f"earlier quiz attempts not read from {store.path}: {self.history_error}",
                    stacklevel=3)
      return {}
    grouped: dict[tuple[str, str], list[dict[str, Any]]] = {}
    for row in rows:
      grouped.setdefault((str(row.get("bank")), str(row.get("question"))), []).append(row)
    return grouped

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
  def result(self) -> QuizScore:
    return QuizScore.of([v.score for v in self.views])

  @property
  def right(self) -> int:
    """Questions right before their answer was shown (see ``scoring.py``)."""
    return self.result.right

  @property
  def answered(self) -> int:
    return self.result.answered

  @property
  def score_text(self) -> str:
    return plain(self.score.value)

  def _update_score(self, graded: Optional[QuestionView] = None) -> None:
    sentence = _html(self.result.sentence(self.lang))
    note = ""
    if self.history_error is not None:
      note = (f'<br><small style="color: {MUTED}">'
              f"{_html_message('history_error', self.lang, error=html.escape(self.history_error))}"
              "</small>")
    self.score.value = f"<p><b>{sentence}</b>{note}</p>"
    for view in self.views:
      view.score_note.value = ""
    if graded is not None:
      graded.score_note.value = f'<p style="color: {MUTED}"><small>{sentence}</small></p>'

  def text_fallback(self) -> str:
    lang = self.lang
    lines = [message("quiz_title_text", lang,
                     questions=plural("questions", len(self.views), lang))]
    for view in self.views:
      lines += [""] + _question_text_lines(view.question, lang, view.number)
    return "\n".join(lines + ["", message("offline_note", lang)])

  def html_fallback(self) -> str:
    items = "".join(f"<li>{_question_html(v.question, self.lang)}</li>" for v in self.views)
    return (f'<div class="adkcourse-quiz"><h4>{self._title_html()}</h4>'
            f"<ol>{items}</ol><p><small>{_html(message('offline_note', self.lang))}</small></p>"
            "</div>")
