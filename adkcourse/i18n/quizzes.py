"""Quiz translations: one YAML file per language and bank, one entry per question id.

``translations/fr/quizzes/01_sessions_events_state.yaml``::

    questions:
      what-is-an-event:
        hash: 5be1f0c2a9d3      # question_hash() of the English question
        question: Dans ADK, qu'est-ce qu'un **événement** (*event*) ?
        options: [..., ...]     # as many as in English, in the same order
        feedback: {0: ..., 2: ...}   # the same option numbers as in English
        explanation: ...
        unit: ...               # numeric questions that have a unit
        answer: [...]           # text questions: answers accepted in this language, if any

The answer key (which options are right, the number, the tolerance) stays in the English bank
only: a translation cannot change what is graded right. A question is translated only when its
entry is complete and made from the current English (same hash); otherwise the student sees the
English question, and ``check`` names the entry.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any, Optional

from . import ENGLISH_NAMES, LANGUAGES, SOURCE_LANGUAGE, first_words, source_hash, still_english
from .numbers import numbers_problem, prose_numbers
from .findings import Finding, shown_path
from .yamlfile import TranslationFileError, read
from .yamlio import dump

TEXT_KEYS = ("question", "options", "feedback", "explanation", "unit", "answer")


def _english(value: Any) -> Any:
  if isinstance(value, dict) and all(isinstance(k, str) for k in value):
    return value.get(SOURCE_LANGUAGE, next(iter(value.values())))
  return value


def untranslated(entry: dict, english: dict[str, Any]) -> list[str]:
  """The fields of an entry that are still the English text (``still_english``): the question,
  its explanation and feedback, which are always prose. Options are left out: an option can
  rightly stay in English (a message typed to the English agent, whose words the question is
  about)."""
  fields = []
  for name in ("question", "explanation"):
    if isinstance(entry.get(name), str) and still_english(entry[name], english[name]):
      fields.append(name)
  for name in ("feedback",):
    ours, theirs = entry.get(name), english.get(name)
    pairs = (zip(ours, theirs) if isinstance(ours, list) and isinstance(theirs, list) else
             ((ours.get(k), theirs[k]) for k in theirs) if isinstance(ours, dict) and
             isinstance(theirs, dict) else ())
    if any(isinstance(a, str) and still_english(a, b) for a, b in pairs):
      fields.append(name)
  return fields


def english_texts(question: Any) -> dict[str, Any]:
  """The English words of a question: everything a translation translates."""
  texts: dict[str, Any] = {"question": _english(question.question),
                           "explanation": _english(question.explanation)}
  options = getattr(question, "options", None)
  if options is not None:
    texts["options"] = [_english(o) for o in options]
    texts["feedback"] = {int(k): _english(v) for k, v in sorted(question.feedback.items())}
  if getattr(question, "unit", None) is not None:
    texts["unit"] = _english(question.unit)
  if getattr(question, "type", None) == "text":
    answer = question.answer
    texts["answer"] = list(answer) if isinstance(answer, list) else answer.get(
        SOURCE_LANGUAGE, [])
  return texts


def question_hash(question: Any) -> str:
  """Fingerprint of a question's English words (and, for a text question, its accepted answers:
  answers accepted in another language are made from them)."""
  texts = english_texts(question)
  texts["feedback"] = {str(k): v for k, v in texts.get("feedback", {}).items()}
  return source_hash(json.dumps(texts, ensure_ascii=False, sort_keys=True))


def entry_hash(entry: dict) -> str:
  """Fingerprint of a translation entry's own words (and extra accepted answers)."""
  words = {key: entry[key] for key in TEXT_KEYS if key in entry}
  return source_hash(json.dumps(words, ensure_ascii=False, sort_keys=True, default=str))


_CODE_SPAN = re.compile(r"`[^`]+`")


def _fixed_parts(text: str) -> set[str]:
  """What a translation of a text must keep: its code spans and its numbers, read as prose
  numbers are everywhere else (``numbers.prose_numbers``: each language's separators)."""
  return set(_CODE_SPAN.findall(text)) | set(prose_numbers(text))


def translation_path(lang: str, bank_name: str, root: Path) -> Path:
  return root / lang / "quizzes" / f"{bank_name}.yaml"


def translations_root(bank_path: Path) -> Optional[Path]:
  """``<repo>/translations`` for a bank in ``<repo>/quizzes/``; None for a bank elsewhere."""
  bank_path = Path(bank_path).resolve()
  if bank_path.parent.name != "quizzes":
    return None
  root = bank_path.parent.parent / "translations"
  return root if root.is_dir() else None



def _entry_problem(entry: Any, english: dict[str, Any]) -> Optional[str]:
  """Why an entry cannot translate this question (None when it can)."""
  if not isinstance(entry, dict):
    return "an entry needs `hash:`, `question:`, `explanation:` (and options...) under the id"
  unknown = sorted(set(map(str, entry)) - set(TEXT_KEYS) - {"hash", "text_hash", "en"})
  if unknown:
    return (f"unknown key {unknown[0]!r}: an entry has "
            f"{', '.join(('hash', 'text_hash') + TEXT_KEYS + ('en',))}")
  for key in ("question", "explanation"):
    if not isinstance(entry.get(key), str) or not entry[key].strip():
      return f"`{key}` must be the translated text"
  if "options" in english:
    options = entry.get("options")
    if not isinstance(options, list) or len(options) != len(english["options"]):
      return (f"`options` must list {len(english['options'])} translated options, in the "
              "English order")
    if any(not isinstance(o, str) or not o.strip() for o in options):
      return "every option must be a non-empty text (quote numbers and yes/no)"
    if len({o.strip().casefold() for o in options}) != len(options):
      return "two options have the same text: every option must read differently"
    for index, (theirs, ours) in enumerate(zip(english["options"], options)):
      if _fixed_parts(theirs) != _fixed_parts(ours):
        return (f"option {index} does not keep the code and numbers of English option {index} "
                f"({', '.join(sorted(_fixed_parts(theirs))) or 'none'}): options must stay in "
                "the English order, since the answer key is the English bank's")
    feedback = entry.get("feedback") or {}
    if not isinstance(feedback, dict) or set(feedback) != set(english["feedback"]):
      wanted = ", ".join(map(str, english["feedback"])) or "none"
      return f"`feedback` must translate the feedback of options {wanted} (numbers as in English)"
    if any(not isinstance(v, str) or not v.strip() for v in feedback.values()):
      return "every feedback must be a non-empty text"
  elif "options" in entry or "feedback" in entry:
    return "this question has no options: remove `options`/`feedback`"
  for key in ("question", "explanation"):
    if (problem := numbers_problem(english[key], entry[key], f"`{key}`")) is not None:
      return problem
  for key, text in (entry.get("feedback") or {}).items() if "options" in english else ():
    if (problem := numbers_problem(english["feedback"][key], text, f"`feedback` {key}")):
      return problem
  if "unit" in english:
    if not isinstance(entry.get("unit"), str) or not entry["unit"].strip():
      return "`unit` must be the translated unit"
  elif "unit" in entry:
    return "the English question has no unit: remove `unit`"
  if "answer" in entry:
    answer = entry["answer"]
    if "answer" not in english:
      return ("`answer` is only for text questions (choices and numbers are graded from the "
              "English bank)")
    if not isinstance(answer, list) or any(not isinstance(a, str) or not a.strip()
                                           for a in answer):
      return "`answer` must be a list of accepted answers (texts)"
    from adkcourse.quiz.model import normalize_text
    if any(not normalize_text(a) for a in answer):
      return ("an accepted answer is only punctuation or quotes, which would accept any such "
              "reply: write a word")
  return None


def load_entries(lang: str, bank: Any, root: Path) -> tuple[dict[str, dict], list[Finding]]:
  """For each question: its usable ``lang`` entry (current and complete), and a finding for
  every question that has none, and every entry that matches no question."""
  path = translation_path(lang, bank.name, root)
  file = shown_path(path)
  if not path.exists():
    return {}, [Finding(lang, file, "", "missing", f"no translation file for the bank "
                        f"{bank.name} ({len(bank.questions)} questions)")]
  try:
    _, lines, raw = read(path, "questions", {"language": lang, "bank": bank.name})
  except TranslationFileError as error:
    return {}, [Finding.invalid(lang, error)]
  usable: dict[str, dict] = {}
  findings: list[Finding] = []
  for question in bank.questions:
    entry = raw.get(question.id)
    english = english_texts(question)
    words = first_words(english["question"])
    line = lines.get(question.id)
    accept = f"`python -m adkcourse.i18n accept {lang} {bank.name} {question.id}`"
    if entry is None:
      findings.append(Finding(lang, file, question.id, "missing", f'no translation of "{words}"'))
      continue
    problem = _entry_problem(entry, english)
    if problem is not None:
      findings.append(Finding(lang, file, question.id, "invalid", problem, line))
    elif not entry.get("hash"):
      findings.append(Finding(lang, file, question.id, "missing", f'not translated yet: "{words}" '
                              f"(translate the entry, then run {accept})", line))
    elif untranslated(entry, english):
      findings.append(Finding(lang, file, question.id, "missing", "still the English in "
                              f"{', '.join(untranslated(entry, english))} of \"{words}\": "
                              f"translate it, then run {accept}", line))
    elif entry["hash"] != question_hash(question):
      findings.append(Finding(lang, file, question.id, "stale", f'the English question "{words}" '
                              "changed since this translation: update the entry to match "
                              f"quizzes/{bank.path.name}, then run {accept}", line))
    else:
      usable[question.id] = entry
      if entry.get("text_hash") != entry_hash(entry):
        findings.append(Finding(lang, file, question.id, "unaccepted", "the entry is new or "
                                "changed since it was last accepted: check it against quizzes/"
                                f"{bank.path.name}, then run {accept}", line))
  known = {q.id for q in bank.questions}
  for question_id in raw:
    if question_id not in known:
      findings.append(Finding(lang, file, question_id, "orphan", f"the bank {bank.name} has no "
                              "question with this id any more: remove the entry",
                              lines.get(question_id)))
  return usable, findings


def _merge(value: Any, lang: str, translated: Any) -> Any:
  merged = dict(value) if isinstance(value, dict) else {SOURCE_LANGUAGE: value}
  merged[lang] = translated
  return merged


def translate_question(question: Any, entries: dict[str, dict]) -> Any:
  """``question`` with every text a mapping {en: ..., <lang>: ...} for each language in
  ``entries`` ({lang: entry}); the answer key is untouched."""
  if not entries:
    return question
  data = question.model_dump()
  for lang, entry in entries.items():
    data["question"] = _merge(data["question"], lang, entry["question"])
    data["explanation"] = _merge(data["explanation"], lang, entry["explanation"])
    if "options" in data:
      data["options"] = [_merge(o, lang, t) for o, t in zip(data["options"], entry["options"])]
      data["feedback"] = {int(k): _merge(v, lang, entry["feedback"][int(k)])
                          for k, v in data["feedback"].items()}
    if data.get("unit") is not None:
      data["unit"] = _merge(data["unit"], lang, entry["unit"])
    if data.get("type") == "text" and entry.get("answer"):
      answer = data["answer"]
      accepted = dict(answer) if isinstance(answer, dict) else {SOURCE_LANGUAGE: list(answer)}
      accepted[lang] = list(entry["answer"])
      data["answer"] = accepted
  translated = type(question).model_validate(data)
  translated._bank = question.bank
  return translated


def apply_translations(bank: Any, root: Optional[Path] = None) -> Any:
  """The bank with every current translation merged in (see the module docstring)."""
  root = root or translations_root(bank.path)
  if root is None:
    return bank
  per_language = {lang: load_entries(lang, bank, root)[0] for lang in LANGUAGES}
  translated = []
  for question in bank.questions:
    entries = {lang: found[question.id] for lang, found in per_language.items()
               if question.id in found}
    try:
      translated.append(translate_question(question, entries))
    except Exception:  # noqa: BLE001 - a translation must never stop a quiz: English then
      translated.append(question)
  bank.questions = translated
  return bank


def bank_findings(lang: str, bank: Any, root: Path) -> list[Finding]:
  return load_entries(lang, bank, root)[1]


HEADER = """\
# {name} translation of quizzes/{bank}.yaml, one entry per question (by id).
# Translate every text; which answers are right stays in the English bank. `hash` is the
# fingerprint of the English question this entry was made from: when the English changes,
# `python -m adkcourse.i18n status {lang}` lists the question as stale, with a diff of `en` (the
# English it was made from) and the English now. Update the entry, then
# `python -m adkcourse.i18n accept {lang} {bank} QUESTION_ID`. Workflow: docs/translating.md
"""


def write(path: Path, lang: str, bank_name: str, entries: dict[str, dict]) -> None:
  path.parent.mkdir(parents=True, exist_ok=True)
  data = {"bank": bank_name, "language": lang, "questions": entries}
  path.write_text(dump(data, HEADER.format(name=ENGLISH_NAMES.get(lang, lang), bank=bank_name,
                                           lang=lang)), encoding="utf-8")


def _ordered(entry: dict) -> dict:
  return {key: entry[key] for key in ("hash", "text_hash") + TEXT_KEYS + ("en",) if key in entry}


def english_record(question: Any) -> dict[str, Any]:
  """The English words an entry was made from, as ``accept`` stores them under ``en`` (so that
  ``status`` can show what changed since)."""
  texts = english_texts(question)
  if "feedback" in texts:
    texts["feedback"] = {str(k): v for k, v in texts["feedback"].items()}
  return texts


def _lines(texts: Any) -> list[str]:
  """A question's words one field per line (``options[1]: ...``), for a readable diff."""
  if not isinstance(texts, dict):
    return []
  lines = []
  for key in TEXT_KEYS:
    value = texts.get(key)
    if isinstance(value, list):
      lines += [f"{key}[{i}]: {' '.join(str(v).split())}" for i, v in enumerate(value)]
    elif isinstance(value, dict):
      lines += [f"{key}[{k}]: {' '.join(str(v).split())}" for k, v in sorted(value.items())]
    elif value is not None:
      lines.append(f"{key}: {' '.join(str(value).split())}")
  return lines


def english_diff(lang: str, bank: Any, question_id: str, root: Path) -> str:
  """What changed in the English question since its ``lang`` entry was accepted: a unified diff
  of the recorded ``en`` and the bank's words now, one field per line."""
  from .lessons import text_diff

  path = translation_path(lang, bank.name, root)
  _, _, raw = read(path, "questions", {"language": lang, "bank": bank.name})
  entry = raw.get(question_id) if isinstance(raw.get(question_id), dict) else {}
  if not isinstance(entry.get("en"), dict):
    return ("(this entry does not record the English it was made from: compare it with "
            f"quizzes/{bank.path.name}; `accept` records it from now on)")
  current = english_record(bank.question(question_id))
  return text_diff("\n".join(_lines(entry["en"])), "\n".join(_lines(current)))


def scaffold(lang: str, bank: Any, root: Path, *, prune: bool = False) -> int:
  """Add an entry holding the English words (to be translated) for every question without one.
  Returns the number added. Existing entries are kept untouched."""
  path = translation_path(lang, bank.name, root)
  raw: dict[str, Any] = {}
  if path.exists():
    _, _, raw = read(path, "questions", {"language": lang, "bank": bank.name})
  ordered: dict[str, dict] = {}
  added = 0
  for question in bank.questions:
    if question.id in raw:
      ordered[question.id] = raw[question.id]
      continue
    texts = english_texts(question)
    if "answer" in texts:
      texts.pop("answer")
    ordered[question.id] = _ordered({"hash": "", **texts})
    added += 1
  if not prune:
    ordered.update({k: v for k, v in raw.items() if k not in ordered})
  write(path, lang, bank.name, ordered)
  return added


def accept(lang: str, bank: Any, question_ids: list[str], root: Path, *,
           unchanged: bool = False) -> list[str]:
  """Record that the entries of ``question_ids`` translate the current English question: sets
  ``hash`` and ``text_hash``. A stale entry whose words are exactly those accepted before is
  refused (that would pass off the old translation as current) unless ``unchanged``."""
  path = translation_path(lang, bank.name, root)
  if not path.exists():
    raise KeyError(f"{shown_path(path)} does not exist: run `python -m adkcourse.i18n scaffold "
                   f"{lang}` first")
  _, _, raw = read(path, "questions", {"language": lang, "bank": bank.name})
  for question_id in question_ids:
    question = bank.question(question_id)
    if question_id not in raw:
      raise KeyError(f"{question_id}: no entry to accept; translate it first")
    entry = raw[question_id]
    problem = _entry_problem(entry, english_texts(question))
    if problem is not None:
      raise ValueError(f"{question_id}: {problem}")
    english = untranslated(entry, english_texts(question))
    if english:
      raise ValueError(f"{question_id}: still the English in {', '.join(english)}: translate it")
    stale = bool(entry.get("hash")) and entry.get("hash") != question_hash(question)
    if stale and entry.get("text_hash") == entry_hash(entry) and not unchanged:
      raise ValueError(f"{question_id}: the English question changed but this entry is the one "
                       "accepted before: update it, or pass --unchanged if the change needs none")
    raw[question_id] = _ordered({**entry, "hash": question_hash(question),
                                 "text_hash": entry_hash(entry), "en": english_record(question)})
  write(path, lang, bank.name, raw)
  return list(question_ids)


def acceptable(lang: str, bank: Any, root: Path) -> tuple[list[str], list[str]]:
  """For ``accept --all``: (questions whose entry can be accepted, stale ones skipped because
  their entry was not touched since it was last accepted)."""
  path = translation_path(lang, bank.name, root)
  if not path.exists():
    return [], []
  _, _, raw = read(path, "questions", {"language": lang, "bank": bank.name})
  ready, untouched = [], []
  for question in bank.questions:
    entry = raw.get(question.id)
    if (not isinstance(entry, dict) or _entry_problem(entry, english_texts(question))
        or untranslated(entry, english_texts(question))):
      continue
    stale = bool(entry.get("hash")) and entry.get("hash") != question_hash(question)
    (untouched if stale and entry.get("text_hash") == entry_hash(entry) else ready).append(
        question.id)
  return ready, untouched
