"""The quiz in the notebook's language: the widget's own words (``adkcourse/quiz/messages.py``)
in English, French and Indonesian, the language found from the notebook's folder or the
environment (``adkcourse/quiz/language.py``), and English output unchanged, byte for byte, from
what the committed English notebooks show (nbval compares it)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from adkcourse.i18n import LANGUAGES
from adkcourse.quiz import (Quiz, QuestionView, load_bank, resolve_bank, resolve_language,
                            show_question, show_quiz)
from adkcourse.quiz.messages import (MESSAGES, NBSP, PLURAL_RULES, UI_LANGUAGES, Plural, message,
                                     placeholders, plural)
from adkcourse.quiz.model import (MultipleChoice, NumericQuestion, ResponseError, SingleChoice,
                                  TextQuestion, parse_number)
from adkcourse.quiz.progress import ProgressStore
from adkcourse.quiz.scoring import QuizScore
from adkcourse.quiz.widget import plain

ROOT = Path(__file__).resolve().parent.parent
LESSON = "01_sessions_events_state"

BANK = """\
- id: prefix
  question: {en: "Which prefix is shared by every user?",
             fr: "Quel préfixe est partagé par tous ?",
             id: "Prefiks mana yang dipakai bersama semua pengguna?"}
  options:
    - "`user:`"
    - "`app:`"
    - "`temp:`"
  answer: 1
  feedback:
    0: {en: "One user only.", fr: "Un seul utilisateur.", id: "Hanya satu pengguna."}
  explanation: {en: "app: keys are shared.", fr: "Les clés app: sont partagées.",
                id: "Kunci app: dipakai bersama."}
- id: several
  question: {en: "Which are prefixes?", fr: "Lesquels sont des préfixes ?",
             id: "Mana yang prefiks?"}
  options: ["`user:`", "`app:`", "`state`"]
  answer: [0, 1]
  explanation: {en: "Both.", fr: "Les deux.", id: "Keduanya."}
- id: rows
  type: numeric
  question: {en: "How many rows?", fr: "Combien de lignes ?", id: "Berapa baris?"}
  answer: 3.5
  tolerance: 0.5
  unit: {en: rows, fr: lignes, id: baris}
  explanation: {en: "Three and a half.", fr: "Trois et demie.", id: "Tiga setengah."}
- id: table
  type: text
  question: {en: "Which table?", fr: "Quelle table ?", id: "Tabel mana?"}
  answer: [user_states]
  explanation: {en: "That one.", fr: "Celle-là.", id: "Yang itu."}
"""


@pytest.fixture(autouse=True)
def clean(tmp_path, monkeypatch):
  """A fresh progress file, no language in the environment, and a neutral working directory."""
  monkeypatch.setenv("ADKCOURSE_HOME", str(tmp_path / "home"))
  monkeypatch.delenv("ADKCOURSE_USER", raising=False)
  monkeypatch.delenv("ADKCOURSE_LANG", raising=False)
  monkeypatch.delenv("JPY_SESSION_NAME", raising=False)
  monkeypatch.chdir(tmp_path)


@pytest.fixture
def bank(tmp_path) -> Path:
  path = tmp_path / "languages.yaml"
  path.write_text(BANK, encoding="utf-8")
  return path


def _folder(tmp_path: Path, *parts: str) -> Path:
  folder = tmp_path.joinpath(*parts)
  folder.mkdir(parents=True, exist_ok=True)
  return folder


# -- the table ---------------------------------------------------------------------------------

def test_every_message_exists_in_every_language_with_the_same_placeholders():
  assert set(UI_LANGUAGES) == {"en", *LANGUAGES} and UI_LANGUAGES[0] == "en"
  for key, row in MESSAGES.items():
    assert set(row) == set(UI_LANGUAGES), f"{key}: languages {sorted(row)}"
    wanted = placeholders(row["en"])
    for lang, text in row.items():
      assert placeholders(text) == wanted, f"{key} in {lang}: {placeholders(text)} != {wanted}"
      forms = [text.one, text.other] if isinstance(text, Plural) else [text]
      assert all(form.strip() for form in forms), f"{key} in {lang} is empty"
      assert not any(c in form for form in forms for c in "<>&"), \
          f"{key} in {lang}: messages are plain text, the widget adds the markup"
      if isinstance(text, Plural):
        assert lang in PLURAL_RULES, f"{key} in {lang}: a plural form without a plural rule"


def test_french_typography():
  """A no-break space before : ; ? ! in French (never an ordinary space, never none), as the
  course's French translations write it."""
  for key, row in MESSAGES.items():
    text = row["fr"]
    for form in ([text.one, text.other] if isinstance(text, Plural) else [text]):
      assert re.search(f"(?<!{NBSP})[:;?!]", form) is None, f"{key}: {form!r}"
      assert "’" not in form, f"{key}: the course's French uses the straight apostrophe"


def test_unknown_language_falls_back_to_english():
  assert message("check", "pt-BR") == message("check", None) == "Check"
  assert message("check", "fr-CA") == "Vérifier"  # the base language
  assert plural("attempts", 2, "xx") == "2 attempts"


def test_a_widget_text_whose_english_changed_is_shown_in_english(tmp_path, monkeypatch):
  """As a stale lesson cell: the translation was made from other English, so the widget shows
  the English until the translator updates and accepts it (`i18n check` fails meanwhile)."""
  import shutil

  from adkcourse.i18n import TRANSLATIONS_DIR
  from adkcourse.i18n import widget as widget_record
  from adkcourse.quiz import messages

  root = tmp_path / "translations"
  (root / "fr").mkdir(parents=True)
  record = (TRANSLATIONS_DIR / "fr" / "widget.yaml").read_text(encoding="utf-8")
  assert record.count("  retry:\n    hash: ") == 1
  (root / "fr" / "widget.yaml").write_text(
      re.sub(r"(  retry:\n    hash: )[0-9a-f]+", r"\g<1>000000000000", record), encoding="utf-8")
  monkeypatch.setattr(messages, "_CURRENT", {
      "fr": widget_record.current_keys("fr", root), "id": widget_record.current_keys("id")})
  assert message("retry", "fr") == message("retry", "en") == "Try again"
  assert message("retry", "id") == "Coba lagi"          # its record is current
  assert message("check", "fr") != message("check", "en")  # the other French texts stay
  shutil.rmtree(root / "fr")
  assert widget_record.current_keys("fr", root) is None  # no record: every text is shown


def test_every_widget_text_of_the_committed_translations_is_current():
  from adkcourse.i18n.widget import current_keys

  for lang in LANGUAGES:
    assert current_keys(lang) == frozenset(MESSAGES), lang


def test_plurals_follow_each_language():
  assert [plural("attempts", n, "en") for n in (0, 1, 2)] == [
      "0 attempts", "1 attempt", "2 attempts"]
  assert [plural("attempts", n, "fr") for n in (0, 1, 2)] == [
      "0 tentative", "1 tentative", "2 tentatives"]
  assert [plural("attempts", n, "id") for n in (1, 2)] == ["1 percobaan", "2 percobaan"]
  score = QuizScore(total=4, right=1, first_try=0, answered=2, revealed=1)
  assert score.sentence() == ("Score: 1 of 4 right (0 at the first attempt) · 2 of 4 answered"
                              " · 1 answer shown (not counted)")
  assert score.sentence("fr") == (
      f"Score{NBSP}: 1 bonne réponse sur 4 (0 du premier coup) · 2 questions traitées sur 4"
      " · 1 réponse affichée (non comptée)")
  many = QuizScore(total=4, right=3, first_try=2, answered=4, revealed=2)
  assert many.sentence("fr") == (
      f"Score{NBSP}: 3 bonnes réponses sur 4 (2 du premier coup) · 4 questions traitées sur 4"
      " · 2 réponses affichées (non comptées)")
  assert many.sentence("en").endswith("· 2 answers shown (not counted)")
  assert many.sentence("id") == ("Skor: 3 dari 4 benar (2 pada percobaan pertama) · 4 dari 4 "
                                 "dijawab · 2 jawaban ditampilkan (tidak dihitung)")


def test_grading_prompts_are_in_the_language_asked_for():
  single = SingleChoice(id="q", question="Q", options=["a", "b"], answer=0, explanation="E")
  with pytest.raises(ResponseError, match="^Choisissez d'abord une réponse, puis appuyez sur "
                     "Vérifier.$"):
    single.grade(None, "fr")
  with pytest.raises(ResponseError, match="^Pilih salah satu jawaban dulu, lalu tekan Periksa."):
    single.grade(None, "id")
  with pytest.raises(ResponseError, match="^Please choose an option first, then press Check.$"):
    single.grade(None)
  with pytest.raises(ResponseError) as french:
    parse_number("quatre", "fr")
  assert str(french.value) == (f"«{NBSP}quatre{NBSP}» n'est pas un nombre{NBSP}: saisissez des "
                               "chiffres, comme 42 ou 3,5.")
  with pytest.raises(ResponseError, match="^Ketik angka biasa"):
    parse_number("inf", "id")
  assert parse_number("3,5", "fr") == 3.5
  assert SingleChoice.kind("fr") == "choisissez une réponse"
  assert SingleChoice.kind() == SingleChoice.kind_label == "choose one"
  assert [q.kind("id") for q in (SingleChoice, MultipleChoice, NumericQuestion, TextQuestion)] \
      == ["pilih satu", "pilih semua yang benar", "ketik angka", "ketik jawaban singkat"]


# -- a French and an Indonesian quiz -----------------------------------------------------------

def test_a_french_quiz(bank):
  quiz = show_quiz(bank, user_id="ann", lang="fr")
  assert plain(quiz.title.value) == "Quiz · 4 questions"
  assert quiz.score_text == (f"Score{NBSP}: 0 bonne réponse sur 4 (0 du premier coup) · "
                             "0 question traitée sur 4")
  single = quiz["prefix"]
  assert plain(single.header.value) == "Question 1 sur 4 · choisissez une réponse"
  assert plain(single.prompt.value) == "Quel préfixe est partagé par tous ?"  # from the bank
  assert (single.check_button.description, single.check_button.tooltip) == (
      "Vérifier", "Faire corriger ma réponse")
  assert (single.retry_button.description, single.retry_button.tooltip) == (
      "Réessayer", "Effacer ma réponse et répondre de nouveau")
  assert single.check() is None
  assert single.feedback_text == "Choisissez d'abord une réponse, puis appuyez sur Vérifier."

  single.select(0).check()
  assert single.feedback_text.splitlines() == [
      "✘ Pas tout à fait.", "Un seul utilisateur.",
      "Appuyez sur Réessayer pour faire une nouvelle tentative."]
  assert plain(single.attempts_label.value) == "1 tentative · enregistrée"
  single.retry()
  single.select(2).check()
  assert single.feedback_text.splitlines() == [
      "✘ Pas tout à fait.", f"La bonne réponse{NBSP}: app:", "Les clés app: sont partagées."]
  assert plain(single.attempts_label.value) == "2 tentatives · enregistrées"
  single.retry()
  single.select(1).check()
  assert single.feedback_text.splitlines() == [
      f"✔ Bonne réponse{NBSP}!",
      f"La réponse avait été affichée après deux réponses fausses{NBSP}; cette question "
      "ne compte donc pas dans votre score.", "Les clés app: sont partagées."]

  several = quiz["several"]
  assert plain(several.header.value).endswith("· cochez toutes les bonnes réponses")
  assert several.check() is None and several.feedback_text.startswith("Cochez au moins une")
  several.select([0, 1]).check()
  assert several.feedback_text.splitlines()[0] == f"✔ Bonne réponse{NBSP}!"
  several.retry()
  several.select([0]).check()
  assert "Votre bonne réponse précédente compte toujours dans votre score." in \
      several.feedback_text

  rows = quiz["rows"]
  assert rows._text.placeholder == "un nombre"
  assert rows.check() is None and rows.feedback_text == (
      "Saisissez un nombre, puis appuyez sur Vérifier.")
  for wrong in ("10", "12"):
    rows.select(wrong).check()
    rows.retry()
  rows.select("1").check()
  assert f"La bonne réponse{NBSP}: 3,5 (± 0,5) lignes" in rows.feedback_text.splitlines()
  assert quiz["table"]._text.placeholder == "votre réponse"
  assert quiz.score_text == (
      f"Score{NBSP}: 1 bonne réponse sur 4 (1 du premier coup) · 3 questions traitées sur 4 · "
      "2 réponses affichées (non comptées)")
  assert plain(rows.score_note.value) == quiz.score_text


def test_french_fallbacks(bank):
  quiz = show_quiz(bank, lang="fr", save=False)
  text = quiz.text_fallback().splitlines()
  assert text[:6] == [f"Quiz{NBSP}: 4 questions", "",
                      "1. Quel préfixe est partagé par tous ? (choisissez une réponse)",
                      "   ( ) `user:`", "   ( ) `app:`", "   ( ) `temp:`"]
  assert "3. Combien de lignes ? (saisissez un nombre)" in text
  assert f"   Votre réponse{NBSP}: ________ lignes" in text
  assert "4. Quelle table ? (saisissez une réponse courte)" in text
  assert text[-1] == (f"Exécutez ce notebook dans Jupyter pour répondre{NBSP}: les réponses y "
                      "sont vérifiées.")
  page = quiz.html_fallback()
  assert page.startswith('<div class="adkcourse-quiz"><h4>Quiz &middot; 4 questions</h4>')
  assert "<i>(cochez toutes les bonnes réponses)</i>" in page
  assert f"<small>Exécutez ce notebook dans Jupyter pour répondre{NBSP}:" in page
  assert "Run this notebook" not in page and "choose one" not in page
  view = show_question(load_bank(bank).question("rows"), lang="fr", save=False)
  assert view.text_fallback().splitlines() == [
      "Combien de lignes ? (saisissez un nombre)", f"Votre réponse{NBSP}: ________ lignes",
      f"Exécutez ce notebook dans Jupyter pour répondre{NBSP}: les réponses y sont vérifiées."]


def test_an_indonesian_quiz(bank):
  quiz = show_quiz(bank, user_id="ann", lang="id")
  single = quiz[0]
  assert plain(single.header.value) == "Pertanyaan 1 dari 4 · pilih satu"
  assert plain(single.prompt.value) == "Prefiks mana yang dipakai bersama semua pengguna?"
  assert (single.check_button.description, single.retry_button.description) == (
      "Periksa", "Coba lagi")
  assert single.check() is None
  assert single.feedback_text == "Pilih salah satu jawaban dulu, lalu tekan Periksa."
  single.select(0).check()
  assert single.feedback_text.splitlines() == [
      "✘ Belum tepat.", "Hanya satu pengguna.", "Tekan Coba lagi, lalu jawab ulang."]
  assert plain(single.attempts_label.value) == "1 percobaan · tersimpan"
  single.retry()
  single.select(1).check()
  assert single.feedback_text.splitlines() == ["✔ Benar!", "Kunci app: dipakai bersama."]
  rows = quiz["rows"]
  rows.select("tiga").check()
  assert rows.feedback_text == "\"tiga\" bukan angka: ketik angka saja, misalnya 42 atau 3,5."
  table = quiz["table"]
  assert table.check() is None and table.feedback_text == "Ketik jawaban dulu, lalu tekan Periksa."
  table.select("user_states").check()
  assert quiz.score_text == ("Skor: 2 dari 4 benar (1 pada percobaan pertama) · 2 dari 4 "
                             "dijawab")
  text = quiz.text_fallback().splitlines()
  assert text[0] == "Kuis: 4 pertanyaan"
  assert "   Jawaban: ________ baris" in text and "2. Mana yang prefiks? (pilih semua yang benar)" \
      in text
  assert text[-1] == "Jalankan notebook ini di Jupyter untuk menjawab: jawaban diperiksa di sana."
  assert quiz.html_fallback().startswith(
      '<div class="adkcourse-quiz"><h4>Kuis &middot; 4 pertanyaan</h4>')


def test_restored_attempts_and_unreadable_history_in_french(bank, tmp_path):
  show_quiz(bank, user_id="ann", lang="fr")[0].select(0).check()
  again = show_quiz(bank, user_id="ann", lang="fr")
  assert plain(again[0].attempts_label.value) == (
      "1 tentative · reprise de votre fichier de progression")

  class Unreadable(ProgressStore):
    def history(self, user_id: str) -> list:
      raise OSError("illisible")

  with pytest.warns(UserWarning, match="earlier quiz attempts not read"):
    quiz = Quiz(load_bank(bank).questions, name="languages", lang="id",
                store=Unreadable(tmp_path / "p.db"))
  assert quiz.score_text.splitlines()[-1] == (
      "Percobaan sebelumnya tidak dapat dibaca (OSError: illisible).")


# -- which language ----------------------------------------------------------------------------

def test_the_notebook_folder_chooses_the_language(tmp_path, monkeypatch):
  monkeypatch.chdir(_folder(tmp_path, "course", "notebooks", "fr"))
  assert resolve_language() == "fr"
  quiz = show_quiz(LESSON, save=False)  # the cell of notebooks/fr/01_....ipynb
  assert quiz.lang == "fr"
  assert quiz.text_fallback().startswith(f"Quiz{NBSP}: ")
  assert "(choisissez une réponse)" in quiz.text_fallback()
  assert quiz[0].check_button.description == "Vérifier"
  assert show_question(quiz[0].question, save=False).check_button.description == "Vérifier"
  # Built directly, without a language, a quiz stays English (the generator passes lang).
  bank = load_bank(resolve_bank(LESSON))
  assert Quiz(bank.questions, name=LESSON, store=None)[0].check_button.description == "Check"
  assert QuestionView(bank.questions[0]).check_button.description == "Check"

  monkeypatch.chdir(_folder(tmp_path, "course", "notebooks", "id"))
  assert resolve_language() == "id"
  for elsewhere in (("course", "notebooks"), ("course", "fr"), ("course", "notebooks", "xx")):
    monkeypatch.chdir(_folder(tmp_path, *elsewhere))
    assert resolve_language() == "en", elsewhere


def test_jupyter_session_name_chooses_the_language(tmp_path, monkeypatch):
  monkeypatch.setenv("JPY_SESSION_NAME", str(tmp_path / "course" / "notebooks" / "id" / "x.ipynb"))
  assert resolve_language() == "id"
  monkeypatch.setenv("JPY_SESSION_NAME", "notebooks/fr/01_sessions_events_state.ipynb")
  assert resolve_language() == "fr"
  monkeypatch.setenv("JPY_SESSION_NAME", "notebooks/01_sessions_events_state.ipynb")
  assert resolve_language() == "en"


def test_a_translated_exercise_notebook_folder_chooses_the_language(tmp_path, monkeypatch):
  """A kernel started for labs/exercises/fr/forget_user.ipynb is French, so the self-check cell
  (the English one, unchanged) gives French feedback; labs/exercises itself stays English."""
  monkeypatch.chdir(_folder(tmp_path, "course", "labs", "exercises", "fr"))
  assert resolve_language() == "fr"
  monkeypatch.chdir(_folder(tmp_path, "course", "labs", "exercises", "id"))
  assert resolve_language() == "id"
  for elsewhere in (("course", "labs", "exercises"), ("course", "exercises", "fr"),
                    ("course", "labs", "fr"), ("course", "labs", "exercises", "xx"),
                    ("course", "other", "exercises", "fr")):
    monkeypatch.chdir(_folder(tmp_path, *elsewhere))
    assert resolve_language() == "en", elsewhere
  monkeypatch.chdir(tmp_path)
  monkeypatch.setenv("JPY_SESSION_NAME", "labs/exercises/id/forget_user.ipynb")
  assert resolve_language() == "id"
  monkeypatch.setenv("JPY_SESSION_NAME", "labs/exercises/forget_user.ipynb")
  assert resolve_language() == "en"


def test_the_environment_variable_chooses_the_language(monkeypatch):
  monkeypatch.setenv("ADKCOURSE_LANG", "id")
  assert resolve_language() == "id"
  monkeypatch.setenv("ADKCOURSE_LANG", "fr_FR.UTF-8")
  assert resolve_language() == "fr"
  monkeypatch.setenv("ADKCOURSE_LANG", "klingon")
  with pytest.warns(UserWarning, match="ADKCOURSE_LANG='klingon' is not a course language"):
    assert resolve_language() == "en"
  monkeypatch.setenv("ADKCOURSE_LANG", "")
  assert resolve_language() == "en"


def test_explicit_beats_folder_beats_environment(tmp_path, monkeypatch):
  monkeypatch.setenv("ADKCOURSE_LANG", "id")
  monkeypatch.chdir(_folder(tmp_path, "notebooks", "fr"))
  assert resolve_language() == "fr"
  assert resolve_language("id") == "id" and resolve_language("en") == "en"
  assert show_quiz(LESSON, lang="en", save=False)[0].check_button.description == "Check"
  monkeypatch.chdir(tmp_path)
  monkeypatch.setenv("JPY_SESSION_NAME", "notebooks/fr/lesson.ipynb")
  assert resolve_language() == "fr"  # the notebook's folder beats the environment variable
  monkeypatch.delenv("JPY_SESSION_NAME")
  assert resolve_language() == "id"


def test_an_unknown_explicit_language_is_an_error(tmp_path, monkeypatch):
  monkeypatch.chdir(_folder(tmp_path, "notebooks", "fr"))
  with pytest.raises(ValueError, match=r"unknown language 'xx'.*en, fr, id"):
    resolve_language("xx")
  with pytest.raises(ValueError, match="unknown language 'french'"):
    show_quiz(LESSON, lang="french", save=False)
  assert resolve_language("FR") == "fr"


# -- English unchanged -------------------------------------------------------------------------

def _committed_quiz_outputs() -> list[tuple[str, dict[str, str]]]:
  """(bank, {mime: text}) for every quiz cell of the committed English lessons."""
  found = []
  for path in sorted((ROOT / "notebooks").glob("*.ipynb")):
    notebook = json.loads(path.read_text(encoding="utf-8"))
    for cell in notebook["cells"]:
      match = re.search(r'show_quiz\("([^"]+)"\)', "".join(cell.get("source", "")))
      if cell["cell_type"] != "code" or not match:
        continue
      for output in cell.get("outputs", []):
        data = output.get("data", {})
        if "text/plain" in data and "".join(data["text/html"]).startswith(
            '<div class="adkcourse-quiz">'):  # not the "I can" checklist the cell also shows
          found.append((match.group(1), {mime: "".join(data[mime])
                                         for mime in ("text/plain", "text/html")}))
  return found


def test_english_rendering_is_what_the_committed_notebooks_show():
  outputs = _committed_quiz_outputs()
  assert len(outputs) >= 6 and any(name == LESSON for name, _ in outputs)
  for name, committed in outputs:
    for quiz in (show_quiz(name, save=False), show_quiz(name, lang="en", save=False),
                 Quiz(load_bank(resolve_bank(name)).questions, name=name, store=None)):
      assert quiz.text_fallback() == committed["text/plain"], name
      assert quiz.html_fallback() == committed["text/html"], name


def test_english_messages_are_the_words_of_the_committed_lesson():
  """The English column, checked against the words in lesson 1's committed quiz output."""
  (committed,) = [out for name, out in _committed_quiz_outputs() if name == LESSON]
  text = committed["text/plain"].splitlines()
  count = len(load_bank(resolve_bank(LESSON)).questions)
  assert text[0] == message("quiz_title_text", questions=plural("questions", count))
  assert text[-1] == message("offline_note")
  kinds = set(re.findall(r" \(([a-z ]+)\)$", committed["text/plain"], flags=re.M))
  assert kinds and kinds <= {message(k) for k in ("kind_single", "kind_multiple",
                                                  "kind_numeric", "kind_text")}
  assert f"<h4>{message('quiz')} &middot; {plural('questions', count)}</h4>" in \
      committed["text/html"]


@pytest.mark.parametrize("typed, lang, value", [
    ("1,000", "en", 1000), ("1.000", "id", 1000), ("1.000", "fr", 1000),  # thousands, as written
    ("1,000", "fr", 1.0), ("1.000", "en", 1.0),       # ... and the decimal separator, as written
    ("1,234.5", "en", 1234.5), ("1.234,5", "id", 1234.5), ("1.000.000", "id", 1e6),
    ("1,000,000", "en", 1e6), ("1\u202f000,5", "fr", 1000.5), ("-1,000", "en", -1000),
    ("0,125", "en", 0.125), ("0.125", "id", 0.125), ("3,5", "en", 3.5), ("10,25", "id", 10.25),
    ("60", "id", 60), (" 4 ", "fr", 4),
    ("1,000e3", "en", 1e6), ("1.000e3", "id", 1e6), ("1,5e3", "fr", 1500),  # the exponent last
    ("\uff11,\uff10\uff10\uff10", "en", 1000), ("\u0661,\u0660\u0660\u0660", "en", 1000),  # other digits,
    ("\uff11\uff0c\uff10\uff10\uff10", "en", 1000), ("\u22125", "en", -5)])                    # same rules
def test_numbers_are_read_as_the_quiz_language_writes_them(typed, lang, value):
  assert parse_number(typed, lang) == value


@pytest.mark.parametrize("typed", ["1,00,000", "1.2.3", "1,2.3", "1,,000", "0,000,1", ",", ".",
                                   "e3", "1,0e", "1e3e3"])
def test_separators_that_make_no_number_are_refused(typed):
  with pytest.raises(ResponseError, match="is not a number"):
    parse_number(typed, "en")


def test_an_indonesian_thousand_is_right_for_a_numeric_question():
  question = NumericQuestion(id="q", type="numeric", question="Q", answer=1000,
                             explanation="E")
  assert question.grade("1.000", "id").correct
  assert question.grade("1,000", "en").correct
  assert not question.grade("1,000", "fr").correct  # one, with a decimal comma


@pytest.mark.parametrize("typed", [10 ** 400, float("nan"), float("inf"), "inf", "-Infinity", "nan"])
def test_numbers_that_are_not_finite_get_the_finite_prompt(typed):
  with pytest.raises(ResponseError, match="^Please type an ordinary number"):
    parse_number(typed, "en")


def test_the_student_is_told_how_a_written_number_was_read():
  """Separators follow the quiz language (1.500 is 1500 in Indonesian): whenever the answer was
  written in another form than the plain number, the feedback says how it was read."""
  question = NumericQuestion(id="q", type="numeric", question="Q", answer=1.5,
                             explanation="E")
  wrong = question.grade("1.500", "id")
  assert not wrong.correct and wrong.feedback == ["Jawaban dibaca sebagai 1500."]
  assert question.grade("1.5", "fr").feedback == [f"Votre réponse a été lue ainsi{NBSP}: 1,5."]
  assert question.grade("1,5", "fr").feedback == []          # written as French writes it
  assert question.grade("1.5", "en").feedback == []
  assert question.grade("1,500", "en").feedback == ["Your answer was read as 1500."]
  assert NumericQuestion(id="n", type="numeric", question="Q", answer=1234567,
                         explanation="E").right_answer("fr") == "1234567"  # never 1,23457e+06
