"""The course's quizzes: YAML question banks in ``quizzes/``, graded in the notebook.

In a lesson::

    from adkcourse.quiz import show_quiz
    show_quiz("01_sessions_events_state")      # quizzes/01_sessions_events_state.yaml

shows every question with the right input, a Check button, feedback and the score; each
graded attempt is stored as ``user:`` state in ``$ADKCOURSE_HOME/progress.db`` through ADK's
``SqliteSessionService``. ``progress_frame()`` reads the student's history back as a DataFrame.
The quiz speaks the notebook's language: run in ``notebooks/fr/`` it is French
(``language.py``), questions and the widget's own words (``messages.py``) alike.

``show_checklist("01_sessions_events_state")`` shows the lesson's "I can…" items as boxes to
tick, read from the lesson's markdown and saved in the same progress file (``checklist.py``).

From a shell: ``python -m adkcourse.quiz check|extract|export|analytics`` (docs/quizzes.md).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Optional, Union

from .bank import Bank, BankError, Problem, check_file, load_bank, resolve_bank
from .checklist import Checklist, ChecklistError, show_checklist
from .language import resolve_language
from .model import MultipleChoice, NumericQuestion, Question, SingleChoice, TextQuestion
from .progress import ProgressStore, default_user_id, progress_frame, progress_path
from .widget import QuestionView, Quiz, in_ipython

__all__ = [
    "Bank", "BankError", "Checklist", "ChecklistError", "MultipleChoice", "NumericQuestion", "Problem", "ProgressStore",
    "Question", "QuestionView", "Quiz", "SingleChoice", "TextQuestion", "check_file",
    "default_user_id", "load_bank", "progress_frame", "progress_path", "resolve_language",
    "show_checklist", "show_question", "show_quiz",
]


def _show(item: Any) -> Any:
  if in_ipython():
    from IPython.display import display
    display(item)
  return item


def show_quiz(bank: Union[str, Path, Bank], *, user_id: Optional[str] = None,
              lang: Optional[str] = None, save: bool = True, shuffle: bool = False) -> Quiz:
  """Display a whole bank and return the ``Quiz`` (tests drive it: ``quiz[0].select(1)``,
  ``quiz[0].check()``, ``quiz[0].feedback_text``).

  ``bank`` is a lesson name (``"01_sessions_events_state"`` -> ``<repo>/quizzes/<name>.yaml``),
  a path to a bank file, or a loaded ``Bank``. ``user_id`` defaults to ``$ADKCOURSE_USER`` or
  the OS user name; ``lang`` picks the language (default: the notebook's, see
  ``resolve_language``; an unknown code is a ``ValueError``); ``save=False`` grades
  without storing (or reading back) attempts; ``shuffle=True`` shows each student the options
  of choice questions in an order of their own, the same every time (``shuffle.py``).
  """
  lang = resolve_language(lang)
  loaded = bank if isinstance(bank, Bank) else load_bank(resolve_bank(bank))
  quiz = Quiz(loaded.questions, name=loaded.name, user_id=user_id, lang=lang,
              store=ProgressStore() if save else None, shuffle=shuffle)
  return _show(quiz)


def show_question(question: Union[Question, dict], *, bank: Optional[str] = None,
                  user_id: Optional[str] = None, lang: Optional[str] = None,
                  save: bool = True) -> QuestionView:
  """Display one question (from ``load_bank(...)`` or a dict written like a bank entry) and
  return its ``QuestionView``. Attempts are stored under ``bank`` (default: the bank the
  question was loaded from); ``lang`` as for ``show_quiz``."""
  lang = resolve_language(lang)
  if isinstance(question, dict):
    from .bank import validate_question
    checked, problems = validate_question(question, 1, "<question>")
    if problems or checked is None:
      raise BankError(problems)
    question = checked
  view = QuestionView(question, bank=bank, user_id=user_id, lang=lang,
                      store=ProgressStore() if save else None)
  return _show(view)
