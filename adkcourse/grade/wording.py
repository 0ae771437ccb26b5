"""Every sentence the grader itself says (the report's frame, the judge, the harness), in each
language the course speaks, from one English source.

Why one table, as the quiz widget's ``adkcourse/quiz/messages.py``: a French student who runs
the self-check must read French around the checks, and a translator must see the three
languages side by side. Each row is ``key -> {"en": ..., "fr": ..., "id": ...}`` with named
``{placeholders}``; ``translations/<lang>/grader.yaml`` records which English each translation
was made from (``adkcourse/i18n/grader.py``), so that an English change makes it stale: a stale
or missing translation is shown in English (``say``), never a translation of an older sentence.

Two ways a sentence reaches a student in their language:

- ``say(lang, key, **values)``: the code knows the language (the report's frame, the judge's
  verdicts);
- ``translate(lang, text)``: the sentence was made in English where the language is not known
  (a note written in the sandbox, a difference found by an exercise's own code) and arrives
  as plain text. It is read back against the English templates (``english`` writes them, so
  the table stays the one source) and said again in ``lang``; values that are themselves
  sentences are translated too. Text no template matches (program output, a student's own
  exception message) stays as it is.

Why English stays the working language inside the grader: notes are grouped by kind, outcomes
compared, reports merged, all on English text; only what is shown is translated, so grades and
grouping never depend on the language.

French: a no-break space (U+00A0) before ``: ; ? !`` (``_fr`` puts it where the source writes
an ordinary space).
"""

from __future__ import annotations

import re
from functools import lru_cache
from pathlib import Path
from string import Formatter
from typing import Any, Optional

from adkcourse.i18n import SOURCE_LANGUAGE, TRANSLATIONS_DIR, source_hash

NBSP = "\u00a0"
LANGUAGES: tuple[str, ...] = ("en", "fr", "id")
ROOT: Path = TRANSLATIONS_DIR
"""Where ``translations/<lang>/grader.yaml`` and ``checks/`` are read (tests point it at a copy)."""


def _fr(text: str) -> str:
  """French typography: the space written before ``: ; ? !`` becomes a no-break space."""
  return re.sub(r" ([:;?!])", NBSP + r"\1", text)


MESSAGES: dict[str, dict[str, str]] = {
    # -- the report's frame (report.py) ---------------------------------------------------------
    "headline": {
        "en": "{exercise}: {score} / {max_score} points ({passed} of {total} checks passed)",
        "fr": _fr("{exercise} : {score} / {max_score} points (vérifications réussies : "
                  "{passed} sur {total})"),
        "id": "{exercise}: {score} / {max_score} poin ({passed} dari {total} pemeriksaan lulus)",
    },
    "feedback_for": {
        "en": "{exercise}: feedback for {student}",
        "fr": _fr("{exercise} : retour pour {student}"),
        "id": "{exercise}: umpan balik untuk {student}",
    },
    "score_line": {
        "en": "Score: {score} / {max_score}",
        "fr": _fr("Note : {score} / {max_score}"),
        "id": "Nilai: {score} / {max_score}",
    },
    "what_happened": {
        "en": "What happened",
        "fr": "Ce qui s'est passé",
        "id": "Apa yang terjadi",
    },
    "checks_title": {
        "en": "Checks",
        "fr": "Vérifications",
        "id": "Pemeriksaan",
    },
    "column_check": {"en": "check", "fr": "vérification", "id": "pemeriksaan"},
    "column_points": {"en": "points", "fr": "points", "id": "poin"},
    "column_earned": {"en": "earned", "fr": "obtenus", "id": "diperoleh"},
    "column_feedback": {"en": "feedback", "fr": "commentaire", "id": "umpan balik"},
    "label_colon": {
        "en": "{label}:",
        "fr": _fr("{label} :"),
        "id": "{label}:",
    },
    "separator": {"en": "; ", "fr": f"{NBSP}; ", "id": "; "},
    "summary_all": {
        "en": "all {count} checks passed",
        "fr": "les {count} vérifications sont réussies",
        "id": "semua {count} pemeriksaan lulus",
    },
    "summary_none": {
        "en": "none of the {count} checks earned points",
        "fr": "aucune des {count} vérifications n'a rapporté de points",
        "id": "tidak ada satu pun dari {count} pemeriksaan yang mendapat poin",
    },
    "summary_some": {
        "en": "{passed} of {count} checks passed; lost points on {names}",
        "fr": _fr("vérifications réussies : {passed} sur {count} ; points perdus sur {names}"),
        "id": "{passed} dari {count} pemeriksaan lulus; poin berkurang di {names}",
    },
    "not_run": {"en": "not run", "fr": "non exécutée", "id": "tidak dijalankan"},
    "not_judged": {"en": "not judged", "fr": "non évaluée", "id": "tidak dinilai"},
    # -- the gradebook's page and feedback column (gradebook.py) -------------------------------
    "isolation_off": {
        "en": "Isolation was OFF: this submission was graded with `--sandbox none`, with "
              "the grader's own rights (it could read and change the grader's files)",
        "fr": _fr("L'isolation était DÉSACTIVÉE : ce rendu a été corrigé avec `--sandbox none`, "
                  "avec les droits du correcteur (il pouvait lire et modifier ses fichiers)"),
        "id": "Isolasi DIMATIKAN: kiriman ini dinilai dengan `--sandbox none`, dengan hak akses "
              "penilai sendiri (kiriman bisa membaca dan mengubah file penilai)",
    },
    "isolation_off_column": {
        "en": "isolation was OFF (--sandbox none); ",
        "fr": f"isolation DÉSACTIVÉE (--sandbox none){NBSP}; ",
        "id": "isolasi DIMATIKAN (--sandbox none); ",
    },
    "your_file": {"en": "Your file", "fr": "Votre fichier", "id": "File Anda"},
    "graded_file": {
        "en": "Graded file: {name}",
        "fr": _fr("Fichier corrigé : {name}"),
        "id": "File yang dinilai: {name}",
    },
    "printed": {
        "en": "What your code printed (first {shown} of {size} bytes)",
        "fr": "Ce que votre code a affiché (les {shown} premiers octets sur {size})",
        "id": "Yang dicetak kode Anda ({shown} byte pertama dari {size})",
    },
    # -- the judge's verdicts (_engine.judge) -----------------------------------------------------
    "met_all": {
        "en": "met in all {count} worlds",
        "fr": "respectée dans les {count} mondes",
        "id": "terpenuhi di semua {count} dunia",
    },
    "not_met_yet": {
        "en": "not met yet: {requires}",
        "fr": _fr("pas encore respectée : {requires}"),
        "id": "belum terpenuhi: {requires}",
    },
    "not_met": {
        "en": "not met in {failing} of {count} worlds. {world}: {problems}",
        "fr": _fr("non respectée dans {failing} des {count} mondes. {world} : {problems}"),
        "id": "tidak terpenuhi di {failing} dari {count} dunia. {world}: {problems}",
    },
    "more_differences": {
        "en": "; and {count} more difference(s)",
        "fr": _fr(" ; et {count} autre(s) différence(s)"),
        "id": "; dan {count} perbedaan lain",
    },
    "world": {
        "en": "world {number} (seed {seed})",
        "fr": "monde {number} (graine {seed})",
        "id": "dunia {number} (seed {seed})",
    },
    "world_labelled": {
        "en": "world {number} (seed {seed}, {label})",
        "fr": "monde {number} (graine {seed}, {label})",
        "id": "dunia {number} (seed {seed}, {label})",
    },
    "more_calls": {
        "en": "and {count} more call(s) that ended the same way",
        "fr": "et {count} autre(s) appel(s) terminé(s) de la même façon",
        "id": "dan {count} panggilan lain yang berakhir dengan cara yang sama",
    },
    "left_nothing": {
        "en": "the run left nothing to observe",
        "fr": "l'exécution n'a rien laissé à observer",
        "id": "eksekusi tidak meninggalkan apa pun untuk diamati",
    },
    "stopped_at_limit": {
        "en": "stopped at its time limit",
        "fr": "arrêtée à sa limite de temps",
        "id": "dihentikan di batas waktunya",
    },
    "raised_where_returns": {
        "en": "{note}, where a right answer returns: nothing it did in this world counts",
        "fr": _fr("{note}, alors qu'une bonne réponse se termine normalement : rien de ce "
                  "qu'elle a fait dans ce monde ne compte"),
        "id": "{note}, padahal jawaban yang benar selesai tanpa error: apa pun yang "
              "dikerjakannya di dunia ini tidak dihitung",
    },
    "raised_where_has": {
        "en": "{note}, where a right answer has {expected}: nothing it did in this world counts",
        "fr": f"{{note}}, alors qu'une bonne réponse donne «{NBSP}{{expected}}{NBSP}»{NBSP}: "
              "rien de ce qu'elle a fait dans ce monde ne compte",
        "id": "{note}, padahal jawaban yang benar menghasilkan \"{expected}\": apa pun yang "
              "dikerjakannya di dunia ini tidak dihitung",
    },
    "run_ended_after": {
        "en": "the run ended after {done} of {count} calls",
        "fr": "l'exécution s'est arrêtée après {done} appels sur {count}",
        "id": "eksekusi berhenti setelah {done} dari {count} panggilan",
    },
    "call_outcome": {
        "en": "call {number} ({label}): expected it to have {expected}, it {found}",
        "fr": _fr("appel {number} ({label}) : attendu : {expected} ; obtenu : {found}"),
        "id": "panggilan {number} ({label}): seharusnya {expected}, ternyata {found}",
    },
    "outcome_returned": {"en": "returned", "fr": "se termine normalement",
                         "id": "selesai normal"},
    "outcome_raised": {"en": "raised {name}", "fr": "lève {name}", "id": "memunculkan {name}"},
    "outcome_value_error_empty": {
        "en": "raised ValueError without a message",
        "fr": "lève ValueError sans message",
        "id": "memunculkan ValueError tanpa pesan",
    },
    "outcome_stopped": {
        "en": "stopped ({kind} time limit)",
        "fr": "arrêtée (limite de temps {kind})",
        "id": "dihentikan (batas waktu {kind})",
    },
    "at_where": {
        "en": "{where}: {what}",
        "fr": _fr("{where} : {what}"),
        "id": "{where}: {what}",
    },
    "expected_found": {
        "en": "expected {expected}, found {found}",
        "fr": _fr("attendu : {expected} ; trouvé : {found}"),
        "id": "seharusnya {expected}, ditemukan {found}",
    },
    "expected_found_long": {
        "en": "expected {expected}, found {found} ({expected_length} and {found_length} "
              "characters, the same up to character {common}: expected {expected_end} from "
              "there, found {found_end})",
        "fr": _fr("attendu : {expected} ; trouvé : {found} ({expected_length} et "
                  "{found_length} caractères, identiques jusqu'au caractère {common} : à partir "
                  "de là, attendu : {expected_end} ; trouvé : {found_end})"),
        "id": "seharusnya {expected}, ditemukan {found} ({expected_length} dan {found_length} "
              "karakter, sama sampai karakter ke-{common}: dari situ seharusnya {expected_end}, "
              "ditemukan {found_end})",
    },
    "finally_left": {
        "en": "{where} (as the run finally left it)",
        "fr": "{where} (tel que l'exécution l'a finalement laissé)",
        "id": "{where} (sebagaimana kondisi akhirnya setelah eksekusi)",
    },
    "what_call_returned": {
        "en": "what call {number} returned",
        "fr": "ce que l'appel {number} a renvoyé",
        "id": "nilai yang dikembalikan panggilan {number}",
    },
    "changed_nothing": {
        "en": "the function changed nothing here, where a right answer does: leaving things as "
              "they are proves nothing yet",
        "fr": _fr("la fonction n'a rien changé ici, alors qu'une bonne réponse le fait : "
                  "laisser les choses en l'état ne prouve encore rien"),
        "id": "fungsi tidak mengubah apa pun di sini, padahal jawaban yang benar mengubahnya: "
              "membiarkan semuanya apa adanya belum membuktikan apa-apa",
    },
    "nothing": {"en": "nothing", "fr": "rien", "id": "tidak ada"},
    "reported_nothing": {
        "en": "the run reported nothing for this world (it ended before reaching it)",
        "fr": "l'exécution n'a rien rapporté pour ce monde (elle s'est arrêtée avant)",
        "id": "eksekusi tidak melaporkan apa pun untuk dunia ini (berhenti sebelum sampai ke "
              "sana)",
    },
    "unsealed": {
        "en": "what the run left could not be recorded after it ended ({detail}): the world "
              "cannot be observed",
        "fr": _fr("ce que l'exécution a laissé n'a pas pu être enregistré après sa fin "
                  "({detail}) : le monde ne peut pas être observé"),
        "id": "hasil eksekusi tidak bisa dicatat setelah eksekusi selesai ({detail}): dunia ini "
              "tidak bisa diamati",
    },
    "not_observable": {
        "en": "what the run left could not be observed ({error})",
        "fr": "ce que l'exécution a laissé n'a pas pu être observé ({error})",
        "id": "hasil eksekusi tidak bisa diamati ({error})",
    },
    "ended_before_snapshot": {
        "en": "the run ended before its state at return time could be observed",
        "fr": "l'exécution s'est arrêtée avant que son état au retour de l'appel ait pu être "
              "observé",
        "id": "eksekusi berhenti sebelum kondisinya saat fungsi kembali sempat diamati",
    },
    "no_function": {
        "en": "no function named `{name}` was found",
        "fr": "aucune fonction nommée `{name}` n'a été trouvée",
        "id": "tidak ada fungsi bernama `{name}`",
    },
    "not_a_function": {
        "en": "`{name}` is a {kind}, not a function",
        "fr": "`{name}` est un objet {kind}, pas une fonction",
        "id": "`{name}` adalah {kind}, bukan fungsi",
    },
    # -- how a call ended (_harness) --------------------------------------------------------------
    "stopped_cpu": {
        "en": "`{name}` was still computing at {limit} and was stopped: look for an endless loop",
        "fr": _fr("`{name}` calculait encore à {limit} et a été arrêtée : cherchez une boucle "
                  "sans fin"),
        "id": "`{name}` masih menghitung saat mencapai {limit} dan dihentikan: cari loop yang "
              "tidak pernah berakhir",
    },
    "stopped_wall": {
        "en": "`{name}` was still waiting (using no CPU) long after {limit} and was stopped: "
              "look for a sleep, a lock or a connection that never answers",
        "fr": _fr("`{name}` attendait encore (sans utiliser le CPU) bien après {limit} et a été "
                  "arrêtée : cherchez un sleep, un verrou ou une connexion qui ne répond jamais"),
        "id": "`{name}` masih menunggu (tanpa memakai CPU) jauh setelah {limit} dan dihentikan: "
              "cari sleep, lock, atau koneksi yang tidak pernah merespons",
    },
    "limit_plain": {"en": "its time limit", "fr": "sa limite de temps",
                    "id": "batas waktunya"},
    "limit_total": {
        "en": "its time limit ({total} CPU s for the whole run)",
        "fr": "sa limite de temps ({total} s de CPU pour toute l'exécution)",
        "id": "batas waktunya ({total} detik CPU untuk seluruh eksekusi)",
    },
    "limit_share": {
        "en": "its share ({share} CPU s) of the time limit",
        "fr": "sa part ({share} s de CPU) de la limite de temps",
        "id": "jatahnya ({share} detik CPU) dari batas waktu",
    },
    "sys_exit": {
        "en": "`{name}` called sys.exit({code})",
        "fr": "`{name}` a appelé sys.exit({code})",
        "id": "`{name}` memanggil sys.exit({code})",
    },
    "stub": {
        "en": "`{name}` raised NotImplementedError: the stub is not replaced yet",
        "fr": _fr("`{name}` a levé NotImplementedError : le squelette n'est pas encore "
                  "remplacé par votre code"),
        "id": "`{name}` memunculkan NotImplementedError: kerangka fungsinya belum diganti "
              "dengan kode Anda",
    },
    "raised_message": {
        "en": "`{name}` raised {raised}: {message}",
        "fr": _fr("`{name}` a levé {raised} : {message}"),
        "id": "`{name}` memunculkan {raised}: {message}",
    },
    "raised": {
        "en": "`{name}` raised {raised}",
        "fr": "`{name}` a levé {raised}",
        "id": "`{name}` memunculkan {raised}",
    },
    "left_running_it": {
        "en": "it returned while {count} task(s) it started were still running (`create_task`, "
              "`ensure_future`): they were stopped there, so what they would have done did not "
              "happen; await what you start",
        "fr": _fr("elle a rendu la main alors que {count} tâche(s) qu'elle avait lancée(s) "
                  "tournaient encore (`create_task`, `ensure_future`) : elles ont été arrêtées "
                  "là, donc ce qu'elles auraient fait n'a pas eu lieu ; attendez (`await`) ce que "
                  "vous lancez"),
        "id": "fungsi kembali saat {count} task yang dimulainya masih berjalan (`create_task`, "
              "`ensure_future`): task itu dihentikan di situ, jadi pekerjaannya tidak terjadi; "
              "`await` apa yang Anda mulai",
    },
    "left_running_callback": {
        "en": "the callback returned while {count} task(s) it started were still running "
              "(`create_task`, `ensure_future`): they were stopped there, so what they would "
              "have done did not happen; await what you start",
        "fr": _fr("le callback a rendu la main alors que {count} tâche(s) qu'il avait lancée(s) "
                  "tournaient encore (`create_task`, `ensure_future`) : elles ont été arrêtées "
                  "là, donc ce qu'elles auraient fait n'a pas eu lieu ; attendez (`await`) ce que "
                  "vous lancez"),
        "id": "callback kembali saat {count} task yang dimulainya masih berjalan (`create_task`, "
              "`ensure_future`): task itu dihentikan di situ, jadi pekerjaannya tidak terjadi; "
              "`await` apa yang Anda mulai",
    },
    "contract_not_awaitable": {
        "en": "it returned {kind}, not an awaitable: the contract is `async def`, and its "
              "caller's `await {name}(...)` fails here",
        "fr": _fr("elle a renvoyé {kind}, pas un awaitable : le contrat est `async def`, et le "
                  "`await {name}(...)` de l'appelant échoue ici"),
        "id": "fungsi mengembalikan {kind}, bukan awaitable: kontraknya `async def`, dan "
              "`await {name}(...)` di pemanggilnya gagal di sini",
    },
    "contract_coroutine": {
        "en": "it returned a coroutine: the contract is a plain `def`, and its caller does not "
              "await what it returns (so none of it runs for them)",
        "fr": _fr("elle a renvoyé une coroutine : le contrat est un simple `def`, et l'appelant "
                  "n'attend pas ce qu'elle renvoie (rien n'en est donc exécuté pour lui)"),
        "id": "fungsi mengembalikan coroutine: kontraknya `def` biasa, dan pemanggilnya tidak "
              "meng-`await` nilai kembaliannya (jadi tidak ada yang dijalankan untuknya)",
    },
    "not_listed": {
        "en": "{path} could not be listed ({error})",
        "fr": "{path} n'a pas pu être listé ({error})",
        "id": "{path} tidak bisa didaftar isinya ({error})",
    },
    "not_regular": {
        "en": "{path} is not a regular file: not observed",
        "fr": _fr("{path} n'est pas un fichier ordinaire : non observé"),
        "id": "{path} bukan file biasa: tidak diamati",
    },
    "beyond_cap": {
        "en": "{path} is beyond the {cap} bytes observed",
        "fr": "{path} dépasse les {cap} octets observés",
        "id": "{path} melewati batas {cap} byte yang diamati",
    },
    "not_read": {
        "en": "{path} could not be read ({error})",
        "fr": "{path} n'a pas pu être lu ({error})",
        "id": "{path} tidak bisa dibaca ({error})",
    },
}
"""key -> language -> template. English is the source; ``tests/test_grade_i18n.py`` fails on a
row whose placeholders differ between its languages."""

GENERIC = frozenset({"at_where", "label_colon", "separator"})
"""Rows whose English is placeholders and punctuation only: read back from English text only
when one of their values is itself a known sentence (else ``a: b`` would match any text)."""


def placeholders(text: str) -> set[str]:
  return {name for _, name, _, _ in Formatter().parse(text) if name}


def _language(lang: Optional[str]) -> str:
  code = (lang or SOURCE_LANGUAGE).split("-")[0].lower()
  if code not in LANGUAGES:
    raise ValueError(f"unknown language {lang!r}: the grader speaks {', '.join(LANGUAGES)}")
  return code


def is_current(lang: str, key: str) -> bool:
  """Whether ``key``'s ``lang`` text was made from its current English (its record in
  ``translations/<lang>/grader.yaml`` holds that English's hash)."""
  from adkcourse.i18n.grader import fingerprint, recorded_hashes

  recorded = recorded_hashes(lang, ROOT)
  return recorded.get(key) == fingerprint(MESSAGES[key]["en"])


def template(lang: Optional[str], key: str) -> str:
  """``key``'s text in ``lang``: English when it has none, or when its translation was made
  from an older English (stale), as the quiz widget and the lessons do."""
  code = _language(lang)
  row = MESSAGES[key]  # a KeyError is a sentence never written: the grader's bug
  if code != SOURCE_LANGUAGE and code in row and is_current(code, key):
    return row[code]
  return row[SOURCE_LANGUAGE]


def say(lang: Optional[str], key: str, **values: Any) -> str:
  """``key`` in ``lang`` with its ``{placeholders}`` filled."""
  return template(lang, key).format(**values)


def english(key: str, **values: Any) -> str:
  """``key`` in English: what the grader works with (``translate`` shows it in another
  language later)."""
  return MESSAGES[key][SOURCE_LANGUAGE].format(**values)


# -- reading English back ----------------------------------------------------------------------

@lru_cache(maxsize=None)
def _pattern(english_text: str) -> tuple[re.Pattern, tuple[str, ...], int]:
  """A regex matching the text ``english_text`` formats to, its placeholders in order, and how
  many literal letters it has (more specific templates are tried first)."""
  parts, names, seen = [], [], set()
  for literal, name, _, _ in Formatter().parse(english_text):
    parts.append(re.escape(literal))
    if name:
      if name in seen:
        parts.append(f"(?P={name})")
      else:
        parts.append(f"(?P<{name}>.+?)")
        seen.add(name)
        names.append(name)
  letters = sum(ch.isalpha() for literal, *_ in Formatter().parse(english_text) for ch in literal)
  return re.compile("".join(parts), re.DOTALL), tuple(names), letters


def _ordered_keys() -> list[str]:
  return sorted(MESSAGES, key=lambda key: -_pattern(MESSAGES[key]["en"])[2])


MAX_DEPTH = 4


def translate(lang: Optional[str], text: str, *, _depth: int = 0) -> str:
  """``text`` said in ``lang`` when it is one of the table's English sentences (its values
  translated too, when they are); unchanged otherwise."""
  code = _language(lang)
  if code == SOURCE_LANGUAGE or not text or _depth > MAX_DEPTH:
    return text
  for key in _ordered_keys():
    pattern, names, _ = _pattern(MESSAGES[key]["en"])
    match = pattern.fullmatch(text)
    if match is None:
      continue
    values = {name: match.group(name) for name in names}
    said = {name: translate(code, value, _depth=_depth + 1) for name, value in values.items()}
    if key in GENERIC and said == values:
      continue
    return say(code, key, **said)
  return text


def translate_all(lang: Optional[str], texts: list[str]) -> list[str]:
  return [translate(lang, text) for text in texts]


# -- each exercise's declared check texts ------------------------------------------------------

FIELDS: tuple[str, ...] = ("requires", "hint", "success")


def check_text(lang: Optional[str], exercise: str, check: str, field: str, english_text: str
               ) -> str:
  """A check's ``requires``, ``hint`` or ``success`` in ``lang``: the translation in
  ``translations/<lang>/checks/<exercise>.yaml`` when it was made from this very English (its
  ``hash``), else the English."""
  code = _language(lang)
  if code == SOURCE_LANGUAGE or not english_text:
    return english_text
  from adkcourse.i18n.grader import check_entries

  entry = check_entries(code, exercise, ROOT).get(f"{check}.{field}")
  if entry is None or not entry.text.strip() or entry.hash != source_hash(english_text):
    return english_text
  return entry.text
