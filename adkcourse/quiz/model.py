"""What a quiz question is: four question types, translatable texts, and how an answer is graded.

Why pydantic in strict mode: YAML is forgiving in ways that hide authoring mistakes (``yes`` is
a boolean, ``"1"`` is a string, ``- 42`` is a number). Strict validation turns each of them into
a precise message at check time, instead of a quiz that silently marks every student wrong.

Every text field (question, options, explanation, feedback, unit) is either a plain string
(language-neutral, shown in every language) or a mapping of language codes to strings::

    question:
      en: Which prefix survives a restart?
      fr: Quel préfixe survit à un redémarrage ?

The error messages produced here are sentences completed by ``bank.py`` into
``FILE:QUESTION_ID: ...`` lines, so each one says what is wrong and how to fix it. They are for
authors and stay in English; what a student reads (kind labels, the prompts of
``ResponseError``) comes from ``messages.py`` in the quiz's language.
"""

from __future__ import annotations

import math
import re
import unicodedata
from dataclasses import dataclass, field
from typing import Annotated, Any, ClassVar, Literal, Optional, Union

from pydantic import (BaseModel, ConfigDict, Field, PlainValidator, PrivateAttr, ValidationInfo,
                      field_validator, model_validator)
from pydantic_core import PydanticCustomError

from .messages import format_number, message

DEFAULT_LANG = "en"
LANG_PATTERN = re.compile(r"^[a-z]{2,3}(-[A-Z]{2})?$")
ID_PATTERN = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$")
REVEAL_AFTER_WRONG = 2
"""Wrong attempts after which the right answer and the explanation are shown anyway."""

TextValue = Union[str, dict[str, str]]


def describe(value: Any) -> str:
  """How a YAML value reads to an author, with the usual trap named (``yes`` is a boolean...)."""
  if isinstance(value, bool):
    word = "true" if value else "false"
    return (f"the boolean {word} (YAML reads yes/no/on/off/true/false as booleans: put quotes "
            "around text)")
  if value is None:
    return "nothing (an empty value)"
  if isinstance(value, str):
    shown = value if len(value) <= 40 else value[:37] + "..."
    return f'the text "{shown}"'
  if isinstance(value, (int, float)):
    return f"the number {value}"
  if isinstance(value, list):
    return "a list"
  if isinstance(value, dict):
    return "a mapping (key: value lines)"
  return f"a {type(value).__name__} ({value})"


ERROR_PREFIX = "quiz_"


def _error(kind: str, message: str) -> PydanticCustomError:
  """An error whose message completes the sentence started by the field's name ("answer ...")."""
  # Braces in the message would be read as pydantic placeholders.
  return PydanticCustomError(ERROR_PREFIX + kind, message.replace("{", "{{").replace("}", "}}"))


def _key(value: Any) -> str:
  return f'"{value}"' if isinstance(value, str) else describe(value)


def validate_text(value: Any) -> TextValue:
  """A text field: a non-empty string, or a mapping ``{language code: non-empty string}``."""
  if isinstance(value, str):
    if not value.strip():
      raise _error("text_empty", "is empty: write the text, or remove the field if it is optional")
    return value
  if isinstance(value, dict) and value:
    for lang, text in value.items():
      if not isinstance(lang, str) or not LANG_PATTERN.match(lang):
        raise _error("text_lang", f"has the key {_key(lang)}, which is not a language code: "
                     "use codes like en, fr, id or pt-BR for translations")
      if not isinstance(text, str) or not text.strip():
        raise _error("text_type", f"has no text for language '{lang}' ({describe(text)}): "
                     "write the translation as a string")
    return value
  hint = ": put quotes around it" if isinstance(value, (int, float)) and not isinstance(
      value, bool) else ""
  raise _error("text_type", f"must be text (a string) or a mapping of language codes to text "
               f"(en: ..., fr: ...), not {describe(value)}{hint}")


Text = Annotated[TextValue, PlainValidator(validate_text)]


def validate_id(value: Any) -> str:
  if not isinstance(value, str):
    raise _error("id_type", f"must be a short name like prefix-survival, not {describe(value)}: "
                 "write letters, digits, '-' or '_' (quote it if it is only digits)")
  if not ID_PATTERN.match(value):
    raise _error("id_format", f'"{value}" is not a usable id: use at most 64 letters, digits, '
                 "'-', '_' or '.', starting with a letter or digit, like prefix-survival")
  return value


QuestionId = Annotated[str, PlainValidator(validate_id)]


def pick(text: TextValue, lang: Optional[str] = None) -> str:
  """The text in ``lang``; falls back to English, then to the first translation written."""
  if isinstance(text, str):
    return text
  lang = lang or DEFAULT_LANG
  for candidate in (lang, lang.split("-")[0], DEFAULT_LANG):
    if candidate in text:
      return text[candidate]
  return next(iter(text.values()))


def languages(text: Any) -> Optional[frozenset[str]]:
  """The languages a field is written in; None for a language-neutral plain string."""
  return frozenset(text) if isinstance(text, dict) else None


class ResponseError(ValueError):
  """The student's input cannot be graded (nothing chosen, not a number): a polite prompt."""


@dataclass(frozen=True)
class Grade:
  """The outcome of checking one response: what to store and what to tell the student."""
  correct: bool
  response: Any
  """The response in a JSON-friendly form (index, sorted list of indices, number or text)."""
  feedback: list[str] = field(default_factory=list)
  """Per-option feedback for the options the student chose, in the quiz language."""


class QuestionBase(BaseModel):
  """Fields every question type shares. ``id`` is stable: progress is stored under it."""

  model_config = ConfigDict(strict=True, extra="forbid")
  kind_key: ClassVar[str] = ""
  """The ``messages.py`` key of the label saying what input the question wants."""
  kind_label: ClassVar[str] = ""
  """That label in English (``kind(lang)`` gives it in any language)."""

  id: QuestionId
  question: Text
  explanation: Text
  _bank: Optional[str] = PrivateAttr(default=None)

  @property
  def bank(self) -> Optional[str]:
    """Name of the bank this question was loaded from (None when built by hand)."""
    return self._bank

  @classmethod
  def kind(cls, lang: Optional[str] = None) -> str:
    """What input the question wants, as the student reads it: "choose one"..."""
    return message(cls.kind_key, lang)

  def text_fields(self) -> list[tuple[str, Any]]:
    """Every translatable field as (name for messages, value), for language checks."""
    fields = [("question", self.question), ("explanation", self.explanation)]
    for index, option in enumerate(getattr(self, "options", None) or []):
      fields.append((f"option {index}", option))
    for index, text in sorted((getattr(self, "feedback", None) or {}).items()):
      fields.append((f"feedback for option {index}", text))
    if getattr(self, "unit", None) is not None:
      fields.append(("unit", self.unit))  # type: ignore[attr-defined]
    return fields

  @model_validator(mode="after")
  def _same_languages(self) -> "QuestionBase":
    """A translated question must be translated everywhere, or some students see holes."""
    reference: Optional[tuple[str, frozenset[str]]] = None
    for name, value in self.text_fields():
      langs = languages(value)
      if langs is None:
        continue
      if reference is None:
        reference = (name, langs)
      elif langs != reference[1]:
        raise _error("translations", f"translations are incomplete: {reference[0]} is written in "
                     f"{', '.join(sorted(reference[1]))} but {name} in {', '.join(sorted(langs))}: "
                     "give every translated field the same languages (a plain string is "
                     "language-neutral)")
    return self

  def grade(self, response: Any, lang: Optional[str] = None) -> Grade:  # pragma: no cover
    raise NotImplementedError

  def right_answer(self, lang: Optional[str] = None) -> str:  # pragma: no cover - overridden
    raise NotImplementedError


def _check_indices(indices: list[int], options: Optional[list[Any]], field_name: str) -> None:
  if options is None:  # options already reported as wrong
    return
  last = len(options) - 1
  for index in indices:
    if 0 <= index <= last:
      continue
    what = f"{index}" if field_name == "answer" else f"is given for option {index}, which"
    if index < 0:
      raise _error("index_negative", f"{what} is negative: options are counted from 0, so the "
                   "first option is 0")
    raise _error("index_range", f"{what} is out of range: there are {len(options)} options, "
                 f"numbered 0 to {last} (counting from 0)")


class _ChoiceQuestion(QuestionBase):
  options: list[Text] = Field(min_length=2)
  feedback: dict[int, Text] = Field(default_factory=dict)
  shuffle: Optional[bool] = None
  """``false`` keeps this question's options in the written order even when the quiz shuffles
  (an option such as "none of the above"); unset follows ``show_quiz(shuffle=...)``."""

  @field_validator("options")
  @classmethod
  def _distinct_options(cls, options: list[TextValue]) -> list[TextValue]:
    seen: dict[str, int] = {}
    for index, option in enumerate(options):
      key = pick(option).strip().casefold()
      if key in seen:
        raise _error("options_duplicate", f"{seen[key]} and {index} are the same text "
                     f'("{pick(option)}"): make every option different')
      seen[key] = index
    return options

  @field_validator("feedback")
  @classmethod
  def _feedback_in_range(cls, feedback: dict[int, TextValue],
                         info: ValidationInfo) -> dict[int, TextValue]:
    _check_indices(sorted(feedback), info.data.get("options"), "feedback")
    return feedback

  def option_texts(self, lang: Optional[str] = None) -> list[str]:
    return [pick(option, lang) for option in self.options]

  def _feedback_for(self, indices: list[int], lang: Optional[str]) -> list[str]:
    return [pick(self.feedback[i], lang) for i in indices if i in self.feedback]


class SingleChoice(_ChoiceQuestion):
  """One right option among several: ``answer`` is its index, counting from 0."""

  kind_key: ClassVar[str] = "kind_single"
  kind_label: ClassVar[str] = message(kind_key)
  type: Literal["single"] = "single"
  answer: int

  @field_validator("answer")
  @classmethod
  def _answer_in_range(cls, answer: int, info: ValidationInfo) -> int:
    _check_indices([answer], info.data.get("options"), "answer")
    return answer

  def grade(self, response: Any, lang: Optional[str] = None) -> Grade:
    if response is None or isinstance(response, bool) or not isinstance(response, int):
      raise ResponseError(message("prompt_choose_one", lang))
    return Grade(correct=response == self.answer, response=response,
                 feedback=self._feedback_for([response], lang))

  def right_answer(self, lang: Optional[str] = None) -> str:
    return pick(self.options[self.answer], lang)


class MultipleChoice(_ChoiceQuestion):
  """Several right options: ``answer`` lists their indices; the student must tick exactly them."""

  kind_key: ClassVar[str] = "kind_multiple"
  kind_label: ClassVar[str] = message(kind_key)
  type: Literal["multiple"] = "multiple"
  answer: list[int] = Field(min_length=1)

  @field_validator("answer")
  @classmethod
  def _answers_valid(cls, answer: list[int], info: ValidationInfo) -> list[int]:
    duplicates = sorted({i for i in answer if answer.count(i) > 1})
    if duplicates:
      raise _error("answer_duplicate", f"lists option {duplicates[0]} more than once: list each "
                   "right option once")
    _check_indices(answer, info.data.get("options"), "answer")
    return answer

  def grade(self, response: Any, lang: Optional[str] = None) -> Grade:
    chosen = sorted(set(response or []))
    if not chosen:
      raise ResponseError(message("prompt_tick", lang))
    return Grade(correct=chosen == sorted(self.answer), response=chosen,
                 feedback=self._feedback_for(chosen, lang))

  def right_answer(self, lang: Optional[str] = None) -> str:
    return message("list_separator", lang).join(pick(self.options[i], lang)
                                                for i in sorted(self.answer))


def _grouped(digits: str, separator: str) -> bool:
  """Whether ``digits`` is an integer written in groups of three, like ``12,345,678``."""
  return re.fullmatch(rf"[+-]?[1-9][0-9]{{0,2}}(?:{re.escape(separator)}[0-9]{{3}})+",
                      digits) is not None


def _plain_number(cleaned: str, lang: Optional[str]) -> Optional[str]:
  """``cleaned`` (ASCII digits, no spaces, no exponent) with its thousands separators removed
  and a ``.`` for its decimal separator, or None when its separators do not make a number.

  Why by language: ``1.000`` is a thousand to an Indonesian reader and ``1,000`` one to an
  English one, while ``1,000`` is one in French. With both separators the last one is the
  decimal one (``1.234,5``, ``1,234.5``); a separator used twice groups thousands; one used once
  groups thousands only when it is the language's grouping separator and three digits follow
  it after an integer part of 1 to 3 digits not starting with 0; otherwise it is a decimal
  point (``3,5``, ``0.125``).
  """
  decimal = message("decimal_separator", lang)
  grouping = "." if decimal == "," else ","
  if "," in cleaned and "." in cleaned:
    last = max(cleaned.rfind(","), cleaned.rfind("."))
    integer, fraction = cleaned[:last], cleaned[last + 1:]
    group = "." if cleaned[last] == "," else ","
    return integer.replace(group, "") + "." + fraction if _grouped(integer, group) else None
  separator = "," if "," in cleaned else "." if "." in cleaned else None
  if separator is None:
    return cleaned
  if cleaned.count(separator) > 1:
    return cleaned.replace(separator, "") if _grouped(cleaned, separator) else None
  integer, _, fraction = cleaned.partition(separator)
  if separator == grouping and _grouped(cleaned, separator):
    return integer + fraction
  return integer + "." + fraction


def _ascii(text: str) -> str:
  """``text`` with compatibility forms folded (full-width ``１，０００``) and every decimal digit
  of any script as an ASCII digit (``١٢`` is 12), so that separators are judged the same
  whatever digits carry them; a minus sign (U+2212) becomes ``-``."""
  folded = unicodedata.normalize("NFKC", text).replace("\u2212", "-")
  return "".join(str(unicodedata.decimal(ch)) if not ch.isascii() and ch.isdecimal() else ch
                 for ch in folded)


_EXPONENT = re.compile(r"[eE][+-]?[0-9]+$")


def _read_number(text: str, lang: Optional[str]) -> Optional[float]:
  """The number ``text`` (no spaces) writes, or None. An exponent applies to the whole number
  before it, separators included (``1,000e3`` is a million in English)."""
  exponent = _EXPONENT.search(text)
  mantissa, tail = (text[:exponent.start()], exponent.group(0)) if exponent else (text, "")
  plain = _plain_number(mantissa, lang) if mantissa else None
  if plain is None or not re.fullmatch(r"[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)", plain):
    return None
  return float(plain + tail)


def parse_number(text: Any, lang: Optional[str] = None) -> float:
  """A number typed by a student: ``3.5``, ``3,5`` (decimal comma), ``1 000``, and thousands
  separators as the quiz's language writes them (``1,000`` in English, ``1.000`` in French and
  Indonesian). What cannot be read is a ``ResponseError`` whose prompt is in ``lang``."""
  if isinstance(text, bool):
    raise ResponseError(message("prompt_number_example", lang))
  if isinstance(text, (int, float)):
    try:
      value = float(text)
    except OverflowError:
      raise ResponseError(message("prompt_finite_number", lang)) from None
  else:
    cleaned = re.sub(r"[\s_]", "", _ascii(str(text or "")))
    if not cleaned:
      raise ResponseError(message("prompt_number_empty", lang))
    read = _read_number(cleaned, lang)
    if read is None:
      if cleaned.lower().lstrip("+-") in {"inf", "infinity", "nan"}:
        raise ResponseError(message("prompt_finite_number", lang))
      raise ResponseError(message("prompt_not_a_number", lang, text=str(text).strip()))
    value = read
  if not math.isfinite(value):
    raise ResponseError(message("prompt_finite_number", lang))
  return value


class NumericQuestion(QuestionBase):
  """A number to type: right when within ``tolerance`` of ``answer``."""

  kind_key: ClassVar[str] = "kind_numeric"
  kind_label: ClassVar[str] = message(kind_key)
  type: Literal["numeric"]
  answer: float
  tolerance: float = 0.0
  unit: Optional[Text] = None

  @field_validator("tolerance")
  @classmethod
  def _tolerance_positive(cls, tolerance: float) -> float:
    if tolerance < 0 or not math.isfinite(tolerance):
      raise _error("tolerance", f"{tolerance} is not allowed: write 0 for an exact answer or a "
                   "positive margin, like 0.5")
    return tolerance

  def grade(self, response: Any, lang: Optional[str] = None) -> Grade:
    value = parse_number(response, lang)
    correct = abs(value - self.answer) <= self.tolerance + 1e-9 * max(1.0, abs(self.answer))
    # Separators are read by the quiz language's rules (1.500 is 1500 in French): say how the
    # answer was read whenever it was written in another form than the plain number.
    shown = format_number(value, lang)
    typed = response.strip() if isinstance(response, str) else shown
    feedback = [] if typed == shown else [message("read_as", lang, number=shown)]
    return Grade(correct=correct, response=int(value) if value.is_integer() else value,
                 feedback=feedback)

  def right_answer(self, lang: Optional[str] = None) -> str:
    number = format_number(self.answer, lang)
    if self.tolerance:
      number += f" (± {format_number(self.tolerance, lang)})"
    return f"{number} {pick(self.unit, lang)}" if self.unit is not None else number


def validate_accepted(value: Any) -> Union[list[str], dict[str, list[str]]]:
  """Accepted short-text answers: a string, a list of strings, or per language."""
  def as_list(item: Any, where: str) -> list[str]:
    items = [item] if isinstance(item, str) else item
    if not isinstance(items, list) or not items:
      raise _error("accepted_type", f"{where}must be an accepted answer (a string) or a list of "
                   f"them, not {describe(item)}")
    for entry in items:
      if not isinstance(entry, str) or not entry.strip():
        raise _error("accepted_type", f"{where}contains {describe(entry)}: every accepted answer "
                     "must be non-empty text (quote numbers and yes/no)")
      if not normalize_text(entry):
        raise _error("accepted_empty", f'{where}contains "{entry}", which is only quotes or '
                     "punctuation once case, quotes and dots are ignored: it would accept any "
                     "such reply; write a word")
    return items
  if isinstance(value, dict) and value:
    result = {}
    for lang, item in value.items():
      if not isinstance(lang, str) or not LANG_PATTERN.match(lang):
        raise _error("text_lang", f"has the key {_key(lang)}, which is not a language code: "
                     "use codes like en, fr, id or pt-BR for translations")
      result[lang] = as_list(item, f"for language '{lang}' ")
    return result
  return as_list(value, "")


def normalize_text(text: str) -> str:
  """Case, surrounding quotes or backticks, trailing dots and extra spaces do not count."""
  text = " ".join(str(text).split()).casefold()
  return text.strip("`'\"“”«» ").rstrip(".!").strip()


class TextQuestion(QuestionBase):
  """A short text to type: right when it matches one accepted answer, ignoring case."""

  kind_key: ClassVar[str] = "kind_text"
  kind_label: ClassVar[str] = message(kind_key)
  type: Literal["text"]
  answer: Annotated[Union[list[str], dict[str, list[str]]], PlainValidator(validate_accepted)]

  def accepted(self, lang: Optional[str] = None) -> list[str]:
    if isinstance(self.answer, list):
      return self.answer
    lang = lang or DEFAULT_LANG
    # A student may answer in the quiz's language or in English (the source, whose answers a
    # translation cannot remove); answers written for a third language do not count here, so
    # one translation cannot change what is graded right in another.
    first = self.answer.get(lang) or self.answer.get(lang.split("-")[0]) or []
    return list(dict.fromkeys(first + list(self.answer.get(DEFAULT_LANG) or [])))

  def grade(self, response: Any, lang: Optional[str] = None) -> Grade:
    typed = " ".join(str(response or "").split())
    if not typed:
      raise ResponseError(message("prompt_text_empty", lang))
    wanted = {normalize_text(a) for a in self.accepted(lang)}
    return Grade(correct=normalize_text(typed) in wanted, response=typed)

  def right_answer(self, lang: Optional[str] = None) -> str:
    return self.accepted(lang)[0]


Question = Union[SingleChoice, MultipleChoice, NumericQuestion, TextQuestion]
QUESTION_TYPES: dict[str, type[QuestionBase]] = {
    "single": SingleChoice, "multiple": MultipleChoice, "numeric": NumericQuestion,
    "text": TextQuestion,
}
FIELD_ORDER = ("id", "type", "question", "options", "answer", "tolerance", "unit", "explanation",
               "feedback", "shuffle")
