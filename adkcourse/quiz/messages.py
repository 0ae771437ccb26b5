"""Every word the quiz machinery itself shows a student, in each UI language.

Why one table: the banks' questions are translated in ``translations/<lang>/quizzes/``, but the
widget's own words (buttons, kind labels, prompts, feedback, the score) would otherwise be
scattered over ``model.py``, ``scoring.py`` and ``widget.py``, and a French quiz would still say
"Check" and "Not quite.". Here each message is one row, ``key -> {language: text}``, so a
translator reads the three languages side by side and adding a language is adding one column
(one entry per row); ``tests/test_quiz_i18n.py`` fails on a row with a language or a
``{placeholder}`` missing.

Texts are plain text (the widget escapes them and adds the markup), with ``{name}``
placeholders filled by ``message(key, lang, name=...)``. A row whose text depends on a count
holds a ``Plural`` for languages that inflect; ``plural(key, count, lang)`` chooses the form
with that language's rule (French counts 0 and 1 as singular, Indonesian does not inflect).

The English texts are what the committed English notebooks show, byte for byte: nbval compares
them, so change an English text only together with the notebooks' outputs.

French follows French typography as the course's French translations write it: a no-break
space (U+00A0) before ``:``, ``;``, ``?`` and ``!`` and inside « », and the straight apostrophe.
"""

from __future__ import annotations

from dataclasses import dataclass
from string import Formatter
from typing import Any, Callable, Optional, Union

DEFAULT_LANG = "en"
NBSP = "\u00a0"
"""The no-break space French puts before ``: ; ? !`` and inside guillemets."""


@dataclass(frozen=True)
class Plural:
  """The singular and plural forms of a text that depends on a count."""
  one: str
  other: str


Text = Union[str, Plural]

PLURAL_RULES: dict[str, Callable[[int], bool]] = {
    "en": lambda count: count == 1,
    "fr": lambda count: count in (0, 1),
    "id": lambda count: False,
}
"""Per language: whether a count takes the ``one`` form. A language without inflection may write
plain strings and needs no rule."""

MESSAGES: dict[str, dict[str, Text]] = {
    # -- what kind of input a question wants (after the question, in brackets) -----------------
    "kind_single": {
        "en": "choose one",
        "fr": "choisissez une réponse",
        "id": "pilih satu",
    },
    "kind_multiple": {
        "en": "choose all that apply",
        "fr": "cochez toutes les bonnes réponses",
        "id": "pilih semua yang benar",
    },
    "kind_numeric": {
        "en": "type a number",
        "fr": "saisissez un nombre",
        "id": "ketik angka",
    },
    "kind_text": {
        "en": "type a short answer",
        "fr": "saisissez une réponse courte",
        "id": "ketik jawaban singkat",
    },
    # -- polite prompts when there is nothing to grade (not an attempt) ------------------------
    "prompt_choose_one": {
        "en": "Please choose an option first, then press Check.",
        "fr": "Choisissez d'abord une réponse, puis appuyez sur Vérifier.",
        "id": "Pilih salah satu jawaban dulu, lalu tekan Periksa.",
    },
    "prompt_tick": {
        "en": "Please tick at least one option, then press Check.",
        "fr": "Cochez au moins une réponse, puis appuyez sur Vérifier.",
        "id": "Centang minimal satu jawaban, lalu tekan Periksa.",
    },
    "prompt_number_example": {
        "en": "Please type a number, like 42 or 3.5, then press Check.",
        "fr": "Saisissez un nombre, comme 42 ou 3,5, puis appuyez sur Vérifier.",
        "id": "Ketik sebuah angka, misalnya 42 atau 3,5, lalu tekan Periksa.",
    },
    "prompt_number_empty": {
        "en": "Please type a number, then press Check.",
        "fr": "Saisissez un nombre, puis appuyez sur Vérifier.",
        "id": "Ketik sebuah angka dulu, lalu tekan Periksa.",
    },
    "prompt_not_a_number": {
        "en": '"{text}" is not a number: please type digits, like 42 or 3.5.',
        "fr": f"«{NBSP}{{text}}{NBSP}» n'est pas un nombre{NBSP}: saisissez des chiffres, "
              "comme 42 ou 3,5.",
        "id": "\"{text}\" bukan angka: ketik angka saja, misalnya 42 atau 3,5.",
    },
    "prompt_finite_number": {
        "en": "Please type an ordinary number, like 42 or 3.5.",
        "fr": "Saisissez un nombre fini, comme 42 ou 3,5.",
        "id": "Ketik angka biasa, misalnya 42 atau 3,5.",
    },
    "read_as": {
        "en": "Your answer was read as {number}.",
        "fr": f"Votre réponse a été lue ainsi{NBSP}: {{number}}.",
        "id": "Jawaban dibaca sebagai {number}.",
    },
    "prompt_text_empty": {
        "en": "Please type your answer, then press Check.",
        "fr": "Saisissez votre réponse, puis appuyez sur Vérifier.",
        "id": "Ketik jawaban dulu, lalu tekan Periksa.",
    },
    # -- a card --------------------------------------------------------------------------------
    "question_of": {
        "en": "Question {number} of {total}",
        "fr": "Question {number} sur {total}",
        "id": "Pertanyaan {number} dari {total}",
    },
    "question": {
        "en": "Question",
        "fr": "Question",
        "id": "Pertanyaan",
    },
    "check": {
        "en": "Check",
        "fr": "Vérifier",
        "id": "Periksa",
    },
    "check_tooltip": {
        "en": "Grade my answer",
        "fr": "Faire corriger ma réponse",
        "id": "Periksa jawaban",
    },
    "retry": {
        "en": "Try again",
        "fr": "Réessayer",
        "id": "Coba lagi",
    },
    "restart_hint": {
        "en": "Buttons not answering? After a kernel restart, run this cell again: your "
              "answers so far are kept.",
        "fr": f"Les boutons ne répondent plus{NBSP}? Après un redémarrage du noyau, exécutez "
              f"de nouveau cette cellule{NBSP}: vos réponses déjà données sont conservées.",
        "id": "Tombol tidak merespons? Setelah kernel dimulai ulang, jalankan sel ini lagi: "
              "jawaban Anda sejauh ini tetap tersimpan.",
    },
    "retry_tooltip": {
        "en": "Clear my answer and answer again",
        "fr": "Effacer ma réponse et répondre de nouveau",
        "id": "Hapus jawaban saya dan jawab lagi",
    },
    "placeholder_number": {
        "en": "a number",
        "fr": "un nombre",
        "id": "angka",
    },
    "placeholder_text": {
        "en": "your answer",
        "fr": "votre réponse",
        "id": "jawaban",
    },
    "attempts": {
        "en": Plural("{count} attempt", "{count} attempts"),
        "fr": Plural("{count} tentative", "{count} tentatives"),
        "id": "{count} percobaan",
    },
    "attempts_saved": {
        "en": "saved",
        "fr": Plural("enregistrée", "enregistrées"),
        "id": "tersimpan",
    },
    "attempts_not_saved": {
        "en": "not saved",
        "fr": Plural("non enregistrée", "non enregistrées"),
        "id": "tidak tersimpan",
    },
    "attempts_restored": {
        "en": "from your progress file",
        "fr": Plural("reprise de votre fichier de progression",
                     "reprises de votre fichier de progression"),
        "id": "dari file progres",
    },
    # -- feedback after Check ------------------------------------------------------------------
    "right": {
        "en": "Right!",
        "fr": f"Bonne réponse{NBSP}!",
        "id": "Benar!",
    },
    "wrong": {
        "en": "Not quite.",
        "fr": "Pas tout à fait.",
        "id": "Belum tepat.",
    },
    "right_after_reveal": {
        "en": "The answer had been shown after two wrong attempts, so this question does not "
              "count toward your score.",
        "fr": f"La réponse avait été affichée après deux réponses fausses{NBSP}; cette "
              "question ne compte donc pas dans votre score.",
        "id": "Jawabannya sudah ditampilkan setelah dua percobaan yang salah, jadi pertanyaan ini "
              "tidak dihitung dalam skor.",
    },
    "earlier_right_counts": {
        "en": "Your earlier right answer still counts toward your score.",
        "fr": "Votre bonne réponse précédente compte toujours dans votre score.",
        "id": "Jawaban benar sebelumnya tetap dihitung dalam skor.",
    },
    "right_answer": {
        "en": "The right answer:",
        "fr": f"La bonne réponse{NBSP}:",
        "id": "Jawaban yang benar:",
    },
    "try_again_hint": {
        "en": "Press {button} and have another go.",
        "fr": "Appuyez sur {button} pour faire une nouvelle tentative.",
        "id": "Tekan {button}, lalu jawab ulang.",
    },
    "not_saved": {
        "en": "Your answer was graded but not saved to your progress file ({error}).",
        "fr": "Votre réponse a été corrigée, mais pas enregistrée dans votre fichier de "
              "progression ({error}).",
        "id": "Jawaban sudah dinilai, tetapi tidak tersimpan di file progres ({error}).",
    },
    # -- a whole quiz --------------------------------------------------------------------------
    "quiz": {
        "en": "Quiz",
        "fr": "Quiz",
        "id": "Kuis",
    },
    "questions": {
        "en": Plural("{count} question", "{count} questions"),
        "fr": Plural("{count} question", "{count} questions"),
        "id": "{count} pertanyaan",
    },
    "quiz_title_text": {
        "en": "Quiz: {questions}",
        "fr": f"Quiz{NBSP}: {{questions}}",
        "id": "Kuis: {questions}",
    },
    "answer_blank": {
        "en": "Your answer: ________",
        "fr": f"Votre réponse{NBSP}: ________",
        "id": "Jawaban: ________",
    },
    "offline_note": {
        "en": "Run this notebook in Jupyter to answer: the answers are checked there.",
        "fr": f"Exécutez ce notebook dans Jupyter pour répondre{NBSP}: les réponses y sont "
              "vérifiées.",
        "id": "Jalankan notebook ini di Jupyter untuk menjawab: jawaban diperiksa di sana.",
    },
    "history_error": {
        "en": "Earlier attempts could not be read ({error}).",
        "fr": "Les tentatives précédentes n'ont pas pu être lues ({error}).",
        "id": "Percobaan sebelumnya tidak dapat dibaca ({error}).",
    },
    # -- the score (scoring.py), parts joined by " · " -----------------------------------------
    "score_right": {
        "en": "Score: {right} of {total} right ({first_try} at the first attempt)",
        "fr": Plural(f"Score{NBSP}: {{right}} bonne réponse sur {{total}} ({{first_try}} du "
                     "premier coup)",
                     f"Score{NBSP}: {{right}} bonnes réponses sur {{total}} ({{first_try}} du "
                     "premier coup)"),
        "id": "Skor: {right} dari {total} benar ({first_try} pada percobaan pertama)",
    },
    "score_answered": {
        "en": "{answered} of {total} answered",
        "fr": Plural("{answered} question traitée sur {total}",
                     "{answered} questions traitées sur {total}"),
        "id": "{answered} dari {total} dijawab",
    },
    "score_revealed": {
        "en": Plural("{count} answer shown (not counted)", "{count} answers shown (not counted)"),
        "fr": Plural("{count} réponse affichée (non comptée)",
                     "{count} réponses affichées (non comptées)"),
        "id": "{count} jawaban ditampilkan (tidak dihitung)",
    },
    # -- a lesson's "I can" checklist (checklist.py) -------------------------------------------
    "checklist_title": {
        "en": "I can…",
        "fr": "Je sais…",
        "id": "Saya bisa…",
    },
    "checklist_count": {
        "en": "{ticked} of {total}",
        "fr": "{ticked} sur {total}",
        "id": "{ticked} dari {total}",
    },
    "checklist_offline_note": {
        "en": "Run this notebook in Jupyter to tick these: your ticks are saved to your progress "
              "file.",
        "fr": f"Exécutez ce notebook dans Jupyter pour les cocher{NBSP}: vos coches sont "
              "enregistrées dans votre fichier de progression.",
        "id": "Jalankan notebook ini di Jupyter untuk mencentangnya: centang Anda disimpan di file "
              "progres.",
    },
    "checklist_restart_hint": {
        "en": "Ticks not saved? After a kernel restart, run this cell again: your ticks so far "
              "are kept.",
        "fr": f"Les coches ne sont plus enregistrées{NBSP}? Après un redémarrage du noyau, "
              f"exécutez de nouveau cette cellule{NBSP}: vos coches déjà faites sont conservées.",
        "id": "Centang tidak tersimpan? Setelah kernel dimulai ulang, jalankan sel ini lagi: "
              "centang Anda sejauh ini tetap tersimpan.",
    },
    "checklist_not_saved": {
        "en": "Your tick was not saved to your progress file ({error}).",
        "fr": "Votre coche n'a pas été enregistrée dans votre fichier de progression ({error}).",
        "id": "Centang tidak tersimpan di file progres ({error}).",
    },
    "checklist_history_error": {
        "en": "Earlier ticks could not be read ({error}).",
        "fr": "Les coches précédentes n'ont pas pu être lues ({error}).",
        "id": "Centang sebelumnya tidak dapat dibaca ({error}).",
    },
    # -- how numbers and lists of answers are written ------------------------------------------
    "decimal_separator": {
        "en": ".",
        "fr": ",",
        "id": ",",
    },
    "list_separator": {
        "en": "; ",
        "fr": f"{NBSP}; ",
        "id": "; ",
    },
}

UI_LANGUAGES: tuple[str, ...] = tuple(MESSAGES["check"])
"""The languages the widget speaks (English first)."""


def _entry(key: str, lang: Optional[str]) -> tuple[str, Text]:
  """The language actually used for ``key`` (``lang``, its base language, else English) and its
  text there."""
  row = MESSAGES[key]  # a KeyError names a message that was never written: a bug, not a user's
  code = lang or DEFAULT_LANG
  for candidate in (code, code.split("-")[0]):
    if candidate in row:
      if candidate != DEFAULT_LANG and not _is_current(key, candidate):
        break  # its English changed since it was translated: English, as a stale lesson cell
      return candidate, row[candidate]
  return DEFAULT_LANG, row[DEFAULT_LANG]


_CURRENT: dict[str, Optional[frozenset[str]]] = {}


def _is_current(key: str, lang: str) -> bool:
  """Whether ``key``'s ``lang`` text translates its current English, by the record in
  ``translations/<lang>/widget.yaml`` (read once per process; no record: every text is)."""
  if lang not in _CURRENT:
    from adkcourse.i18n.widget import current_keys

    _CURRENT[lang] = current_keys(lang)
  current = _CURRENT[lang]
  return current is None or key in current


def template(key: str, lang: Optional[str] = None, count: Optional[int] = None) -> str:
  """The unformatted text of ``key`` in ``lang`` (English for a language it lacks), in the form
  ``count`` asks for when it is a ``Plural``."""
  used, text = _entry(key, lang)
  if isinstance(text, Plural):
    rule = PLURAL_RULES.get(used, PLURAL_RULES[DEFAULT_LANG])
    return text.one if count is not None and rule(count) else text.other
  return text


def message(key: str, lang: Optional[str] = None, **values: Any) -> str:
  """``key`` in ``lang`` with its ``{placeholders}`` filled; English for an unknown language.
  A ``count`` value chooses the singular or plural form."""
  count = values.get("count")
  return template(key, lang, count if isinstance(count, int) else None).format(**values)


def plural(key: str, count: int, lang: Optional[str] = None, **values: Any) -> str:
  """``key`` in the form ``count`` asks for, e.g. ``plural("attempts", 2)`` -> ``2 attempts``.
  ``count`` chooses the form; it fills ``{count}`` unless ``values`` has one."""
  values.setdefault("count", count)
  return template(key, lang, count).format(**values)


def placeholders(text: Text) -> set[str]:
  """The ``{names}`` a text uses (both forms of a ``Plural``)."""
  forms = [text.one, text.other] if isinstance(text, Plural) else [text]
  return {name for form in forms for _, name, _, _ in Formatter().parse(form) if name}


def format_number(value: float, lang: Optional[str] = None) -> str:
  """A number in its shortest plain form, with the language's decimal separator (3,5 in
  French): up to 15 significant digits, so 1234567 stays 1234567 (``{:g}`` would write
  1.23457e+06) and 0.1 + 0.2 is 0,3."""
  return f"{value:.15g}".replace(".", message("decimal_separator", lang))
