"""One form per English term: ``translations/<lang>/glossary.yaml``, and the check that every
translated text of the language keeps to it.

Why a check and not only a list: reviewers found terms drifting between lessons (« verrou
consultatif » in one, « verrou informatif » in another; « point de contrôle » beside
``checkpoint``). A student who meets two words takes them for two ideas. Fixing the examples a
reviewer names leaves the next ones in place; a glossary the tools read catches every one.

The glossary's format::

    language: fr
    terms:
      checkpoint:              # the English term
        use: checkpoint        # the one form the course uses
        avoid: [point de contrôle, point de reprise]   # forms reported wherever they appear
        note: ...              # optional: why this form

Each ``avoid`` form is matched case-insensitively, at word boundaries, across line breaks,
outside code spans, fenced code, URLs, link targets and HTML tags, in every string value of
every YAML file under ``translations/<lang>/`` (lesson cells, quiz questions, exercises,
checks...) except the glossary itself and the widget record, and in the language's column of
the quiz widget's words (``adkcourse/quiz/messages.py``). Values under the keys in
``NOT_TRANSLATED`` are skipped: the English a translation was made from, hashes and names.
Where a term's own ``use`` form contains an ``avoid`` form (« durée de conservation » and
« conservation » alone), the ``use`` form is not reported; a match in capitals where the form is
not (``GRANT ALL PRIVILEGES``) is a keyword, not prose; where two forms overlap, the longer one
is reported once.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterator, Optional

import yaml

from . import REPO_ROOT, TRANSLATIONS_DIR, _NOT_PROSE
from .findings import Finding, shown_path
from .yamlfile import TranslationFileError, parse, read

GLOSSARY_NAME = "glossary.yaml"
SKIPPED_FILES = frozenset({GLOSSARY_NAME, "widget.yaml"})
"""Files under ``translations/<lang>/`` that hold no translated prose: the glossary's ``avoid``
forms would all be reported in the glossary itself, and the widget record holds hashes only."""
NOT_TRANSLATED = frozenset({"en", "hash", "text_hash", "language", "lesson", "exercise", "bank"})
"""Keys whose values are not translations: the English source, fingerprints and names."""
TERM_KEYS = frozenset({"use", "avoid", "note"})
MESSAGES_FILE = REPO_ROOT / "adkcourse" / "quiz" / "messages.py"
_PLACEHOLDER = re.compile(r"\{[^{}\n]*\}")
_GLOSS = re.compile(r"\(\*[^*\n]+\*\)")
_APOSTROPHES = "'\u2019"


@dataclass(frozen=True)
class Term:
  """One glossary entry: the English ``name``, the form to ``use`` and the forms to avoid."""
  name: str
  use: str
  avoid: tuple[str, ...]
  line: Optional[int] = None


@dataclass(frozen=True)
class Text:
  """One translated string: where it is (file, entry id, field) and the line it starts on."""
  file: str
  entry: str
  field: str
  text: str
  line: Optional[int] = None
  block: bool = False
  """Whether ``text`` is a literal block whose first line is the line after ``line``."""


def glossary_path(lang: str, root: Path = TRANSLATIONS_DIR) -> Path:
  return root / lang / GLOSSARY_NAME


def load(lang: str, root: Path = TRANSLATIONS_DIR) -> list[Term]:
  """The glossary's terms; ``[]`` when the language has none yet. A malformed glossary raises
  ``TranslationFileError`` naming the file, the line and the term."""
  path = glossary_path(lang, root)
  if not path.exists():
    return []
  _, lines, entries = read(path, "terms", {"language": lang})
  try:
    return [_term(name, value, lines.get(name)) for name, value in entries.items()]
  except TranslationFileError as error:
    error.file = shown_path(path)
    raise


def _term(name: str, value: Any, line: Optional[int]) -> Term:
  def fail(why: str) -> TranslationFileError:
    return TranslationFileError(f"term `{name}`: {why}", line)
  if not isinstance(value, dict):
    raise fail("must be a mapping with `use:` and `avoid:`")
  unknown = sorted(set(map(str, value)) - TERM_KEYS)
  if unknown:
    raise fail(f"unknown key `{unknown[0]}` (a term has {', '.join(sorted(TERM_KEYS))})")
  use = value.get("use")
  if not isinstance(use, str) or not use.strip():
    raise fail("`use:` must be the form the course uses, a non-empty text")
  avoid = value.get("avoid", [])
  if not isinstance(avoid, list) or not all(isinstance(f, str) and f.strip() for f in avoid):
    raise fail("`avoid:` must be a list of non-empty texts, e.g. [point de contrôle]")
  if "note" in value and not isinstance(value["note"], str):
    raise fail("`note:` must be one sentence of text")
  for form in avoid:
    if _pattern(form).fullmatch(use.strip()):
      raise fail(f"`avoid:` holds « {form} », the `use:` form itself")
  return Term(name, use.strip(), tuple(f.strip() for f in avoid), line)


def _pattern(form: str) -> re.Pattern[str]:
  """``form`` as a word: case-insensitively, with a plural ``s`` or ``x`` allowed after each word,
  any run of white space for a space (a wrapped line), either apostrophe for an apostrophe. Not
  inside an identifier: a form right after ``.`` or right before ``.x``, ``(`` or ``:x`` is code
  left outside backticks (``session.state``, ``app:)``, ``user:progression``), not prose."""
  words = []
  for word in form.split():
    body = "".join(f"[{_APOSTROPHES}]" if c in _APOSTROPHES else re.escape(c) for c in word)
    words.append(body + ("(?:s|x)?" if word[-1].isalpha() else ""))
  start = r"(?<![\w.])" if form[0].isalnum() or form[0] == "_" else ""
  end = r"(?![\w(]|\.\w|:\S)" if form[-1].isalnum() or form[-1] == "_" else ""
  return re.compile(start + r"\s+".join(words) + end, re.IGNORECASE)


def _keyword(found: str, form: str) -> bool:
  """Whether ``found`` is written in capitals where the glossary's form is not: an SQL keyword
  or a name left outside backticks (``GRANT ALL PRIVILEGES``), not a drifting word of prose."""
  letters = [c for c in found if c.isalpha()]
  return len(letters) > 1 and all(c.isupper() for c in letters) and not form.isupper()


def prose(text: str) -> str:
  """``text`` with code, URLs, link targets, HTML tags, ``{placeholders}`` and English glosses
  (``(*state*)``: the course names the English term on purpose) blanked out, each character
  kept as a space or a line break so that positions and lines do not move."""
  def blank(match: re.Match[str]) -> str:
    return re.sub(r"[^\n]", " ", match.group(0))
  return _GLOSS.sub(blank, _PLACEHOLDER.sub(blank, _NOT_PROSE.sub(blank, text)))


def translated_texts(lang: str, root: Path = TRANSLATIONS_DIR,
                     messages_file: Path = MESSAGES_FILE) -> Iterator[Text]:
  """Every translated string of ``lang``: the YAML files under ``translations/<lang>/`` and the
  language's column of the quiz widget's words."""
  folder = root / lang
  paths = sorted(p for p in folder.rglob("*") if p.suffix in (".yaml", ".yml") and p.is_file()
                 and not (p.parent == folder and p.name in SKIPPED_FILES))
  for path in paths:
    yield from _file_texts(path)
  yield from _widget_texts(lang, messages_file)


def _file_texts(path: Path) -> Iterator[Text]:
  """The translated strings of one YAML file. A file that cannot be read yields nothing: the
  reader of its kind (lessons, quizzes, exercises) reports it as invalid with the reason."""
  try:
    _, node = parse(path.read_text(encoding="utf-8"))
  except (yaml.YAMLError, OSError, UnicodeDecodeError, RecursionError):
    return
  if not isinstance(node, yaml.MappingNode):
    return
  shown = shown_path(path)
  for key_node, value_node in node.value:
    key = str(key_node.value)
    if key in NOT_TRANSLATED:
      continue
    if isinstance(value_node, yaml.MappingNode):
      # A section (`cells:`, `questions:`...): each key is an entry id.
      for entry_node, body in value_node.value:
        entry = str(entry_node.value)
        yield from _strings(shown, entry, "", body, skip=entry in NOT_TRANSLATED)
    else:
      yield from _strings(shown, key, "", value_node)


def _strings(file: str, entry: str, field: str, node: yaml.Node, skip: bool = False
             ) -> Iterator[Text]:
  if skip:
    return
  if isinstance(node, yaml.ScalarNode):
    if node.tag == "tag:yaml.org,2002:str" and isinstance(node.value, str):
      yield Text(file, entry, field or "text", node.value, node.start_mark.line + 1,
                 block=node.style == "|")
  elif isinstance(node, yaml.SequenceNode):
    for index, item in enumerate(node.value):
      yield from _strings(file, entry, f"{field}[{index}]", item)
  elif isinstance(node, yaml.MappingNode):
    for key_node, value_node in node.value:
      key = str(key_node.value)
      yield from _strings(file, entry, f"{field}.{key}" if field else key, value_node,
                          skip=key in NOT_TRANSLATED)


def _widget_texts(lang: str, messages_file: Path) -> Iterator[Text]:
  from adkcourse.quiz.messages import MESSAGES
  try:
    source = messages_file.read_text(encoding="utf-8").split("\n")
  except OSError:
    source = []
  shown = shown_path(messages_file)
  for key, row in MESSAGES.items():
    text = row.get(lang)
    if text is None:
      continue
    line = next((n + 1 for n, l in enumerate(source) if l.strip().startswith(f'"{key}":')), None)
    forms = [("one", text.one), ("other", text.other)] if hasattr(text, "one") else [(lang, text)]
    for field, form in forms:
      yield Text(shown, key, field, form, line)


def findings(lang: str, root: Path = TRANSLATIONS_DIR,
             messages_file: Path = MESSAGES_FILE) -> list[Finding]:
  """A ``term`` finding for each ``avoid`` form found in a translated text of ``lang``, naming
  the file, the line, the entry, the form found and the glossary's form; ``invalid`` for a
  glossary that cannot be read."""
  try:
    terms = load(lang, root)
  except TranslationFileError as error:
    return [Finding.invalid(lang, error)]
  if not terms:
    return []
  checks = [(term, _pattern(term.use), [(form, _pattern(form)) for form in term.avoid])
            for term in terms]
  result: list[Finding] = []
  for text in translated_texts(lang, root, messages_file):
    plain = prose(text.text)
    reported: list[tuple[int, int]] = []
    hits = []
    for term, use, avoided in checks:
      allowed = [m.span() for m in use.finditer(plain)]
      for form, pattern in avoided:
        hits += [(match, term) for match in pattern.finditer(plain)
                 if not any(a <= match.start() and match.end() <= b for a, b in allowed)
                 and not _keyword(match.group(0), form)]
    # The longest form first, and one finding per place: « (app, utilisateur) » is reported once,
    # not again as « app ».
    for match, term in sorted(hits, key=lambda hit: (hit[0].start() - hit[0].end(), hit[0].start())):
      if any(a <= match.start() and match.end() <= b for a, b in reported):
        continue
      reported.append(match.span())
      line = text.line
      if text.block and line is not None:
        line += 1 + plain.count("\n", 0, match.start())
      found = " ".join(match.group(0).split())
      result.append(Finding(
          lang, text.file, text.entry, "term",
          f"{text.field}: \"{found}\" drifts from the glossary: write \"{term.use}\" "
          f"(term `{term.name}`, {shown_path(glossary_path(lang, root))})", line))
  return sorted(result, key=lambda f: (f.file, f.line or 0, f.message))
