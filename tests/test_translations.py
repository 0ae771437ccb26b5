"""The French and Indonesian course: current, complete, generated from the English, and CI fails
when an English text changes without its translations (adkcourse/i18n, docs/translating.md)."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest
import yaml

from adkcourse.i18n import LANGUAGES, source_hash
from adkcourse.i18n import lessons as lesson_tr
from adkcourse.i18n import quizzes as quiz_tr
from adkcourse.i18n.cli import findings, parse_args, render_quiz
from adkcourse.i18n.yamlfile import TranslationFileError
from adkcourse.quiz.bank import check_file, load_bank
from adkcourse.timeline import LANGUAGE_MIMES, is_timeline_output

ROOT = Path(__file__).resolve().parent.parent
LESSONS = lesson_tr.lesson_names()
PAIRS = [(lang, lesson) for lang in LANGUAGES for lesson in LESSONS]
EXERCISES = lesson_tr.exercise_names()  # lessons name labs/exercises/<lang>/NAME.ipynb
QUIZ_MIMES = {"text/html", "text/plain"}


def _run(copy: Path, *args: str) -> subprocess.CompletedProcess:
  """``python -m adkcourse.i18n ARGS`` in a copy of the course, on the copy's package."""
  return subprocess.run([sys.executable, "-m", "adkcourse.i18n", *args], cwd=copy,
                        env=_env(copy), capture_output=True, text=True, timeout=300)


def _env(copy: Path) -> dict:
  # The copy's package comes first, so its REPO_ROOT is the copy.
  return {**os.environ, "PYTHONPATH": str(copy)}


def test_every_translation_is_current_complete_and_generated():
  """The CI gate: no markdown cell or question missing, stale or invalid in any language, and
  every generated notebook is what `generate` writes now."""
  found = findings(list(LANGUAGES))
  assert not found, "\n".join(map(str, found))


@pytest.mark.parametrize("lang,lesson", PAIRS)
def test_code_cells_and_outputs_are_the_english_ones(lang, lesson):
  english = nbformat.read(ROOT / "notebooks" / f"{lesson}.ipynb", as_version=4)
  translated = nbformat.read(ROOT / "notebooks" / lang / f"{lesson}.ipynb", as_version=4)
  assert [c.id for c in translated.cells] == [c.id for c in english.cells]
  assert [c.cell_type for c in translated.cells] == [c.cell_type for c in english.cells]
  for ours, theirs in zip(translated.cells, english.cells):
    if theirs.cell_type != "code":
      continue
    assert ours.source == theirs.source
    if "show_quiz(" in theirs.source or "show_checklist(" in theirs.source:
      # Same outputs, except the readable fallback of the quiz and of the "I can" checklist,
      # which is in the notebook's language.
      assert len(ours.outputs) == len(theirs.outputs)
      for out_ours, out_theirs in zip(ours.outputs, theirs.outputs):
        assert {k: v for k, v in out_ours.get("data", {}).items() if k not in QUIZ_MIMES} == \
            {k: v for k, v in out_theirs.get("data", {}).items() if k not in QUIZ_MIMES}
    else:
      # Same outputs, except a timeline picture's drawing (its words are in the notebook's
      # language, redrawn by `generate` from the layout that both outputs carry unchanged).
      assert len(ours.outputs) == len(theirs.outputs)
      for out_ours, out_theirs in zip(ours.outputs, theirs.outputs):
        if is_timeline_output(out_theirs):
          assert out_ours.get("metadata") == out_theirs.get("metadata")
          assert {k: v for k, v in out_ours["data"].items() if k not in LANGUAGE_MIMES} == \
              {k: v for k, v in out_theirs["data"].items() if k not in LANGUAGE_MIMES}
        else:
          assert out_ours == out_theirs


@pytest.mark.parametrize("lang,lesson", PAIRS)
def test_markdown_is_translated_and_links_resolve(lang, lesson):
  english = nbformat.read(ROOT / "notebooks" / f"{lesson}.ipynb", as_version=4)
  translated = nbformat.read(ROOT / "notebooks" / lang / f"{lesson}.ipynb", as_version=4)
  folder = ROOT / "notebooks" / lang
  entries, _ = lesson_tr.load(lesson_tr.translation_path(lang, lesson), lang)
  siblings = set(LESSONS)
  for ours, theirs in zip(translated.cells, english.cells):
    if theirs.cell_type != "markdown":
      continue
    # The cell shows its translation (which may read like the English: "## Quiz").
    assert ours.source == lesson_tr.relink(entries[theirs.id].text.rstrip("\n"), siblings, lang,
                                           EXERCISES), \
        f"{lesson} ({lang}): cell {theirs.id} does not show its translation"
    for target in re.findall(r"\]\(([^)\s]+)\)", ours.source):
      if re.match(r"^([a-z][a-z0-9+.-]*:|#)", target):
        continue
      assert (folder / target.split("#")[0]).exists(), f"{lesson} ({lang}): broken link {target}"


I_CAN = {"fr": "Je sais", "id": "Saya bisa"}
I_CAN_ITEMS = re.compile(r"<!-- i-can\n(.*?)-->", re.DOTALL)
CODE_SPAN = re.compile(r"`[^`\n]+`")
FENCE = re.compile(r"^```.*?^```", re.MULTILINE | re.DOTALL)
LINK_TARGETS = re.compile(r"\]\(([^)]*)\)|\b(?:href|src)=[\"']([^\"']*)")
HTML_TAG = re.compile(r"<(/?[a-zA-Z][a-zA-Z0-9]*)")


@pytest.mark.parametrize("lang,lesson", PAIRS)
def test_translation_keeps_code_structure_and_checklist(lang, lesson):
  """What a translator must not change: code spans (identifiers, paths, commands), code blocks
  other than diagrams, heading levels, the "I can" items and links; and the "I can" list reads as
  the language says it, its heading carrying the verb ("Je sais…"), not each item."""
  english = dict(lesson_tr.markdown_cells(
      nbformat.read(ROOT / "notebooks" / f"{lesson}.ipynb", as_version=4)))
  translated = dict(lesson_tr.markdown_cells(
      nbformat.read(ROOT / "notebooks" / lang / f"{lesson}.ipynb", as_version=4)))
  problems = []
  for cell_id, source in english.items():
    ours = translated[cell_id]
    # (an exercise notebook becomes the language's, labs/exercises/<lang>/, as generate writes it)
    relinked = lesson_tr.relink(source, set(LESSONS), lang, EXERCISES)
    lost = set(CODE_SPAN.findall(relinked)) - set(CODE_SPAN.findall(ours))
    if lost:
      problems.append(f"{cell_id}: code spans changed or dropped: {sorted(lost)[:3]}")
    added = set(CODE_SPAN.findall(FENCE.sub("", ours))) - set(CODE_SPAN.findall(relinked))
    if added:
      problems.append(f"{cell_id}: code spans the English does not have: {sorted(added)[:3]}")
    fences = [f for f in FENCE.findall(source) if not f.startswith("```mermaid")]
    if any(f not in ours for f in fences):
      problems.append(f"{cell_id}: a code block differs from the English")
    if len(FENCE.findall(ours)) != len(FENCE.findall(source)):
      problems.append(f"{cell_id}: code blocks were added or dropped")
    # (a link out of notebooks/ gets one more ../ in notebooks/<lang>/, as generate writes it)
    if LINK_TARGETS.findall(ours) != LINK_TARGETS.findall(relinked):
      problems.append(f"{cell_id}: link targets differ: {LINK_TARGETS.findall(ours)[:3]}")
    if sorted(HTML_TAG.findall(ours)) != sorted(HTML_TAG.findall(source)):
      problems.append(f"{cell_id}: HTML tags differ: {sorted(HTML_TAG.findall(ours))[:5]}")
    heads = lambda text: [len(m) for m in re.findall(r"^(#+) ", FENCE.sub("", text), re.M)]
    if heads(source) != heads(ours):
      problems.append(f"{cell_id}: headings {heads(source)} became {heads(ours)}")
    items = lambda text: [len(re.findall(r"^- ", b, re.M)) for b in I_CAN_ITEMS.findall(text)]
    if items(source) != items(ours):
      problems.append(f"{cell_id}: `<!-- i-can` items {items(source)} became {items(ours)}")
  checklist = [t for c, t in translated.items() if "<!-- i-can" in t]
  assert checklist and f"## {I_CAN[lang]}…" in checklist[-1], f"{lesson} ({lang}): the " \
      f"checklist should read as '{I_CAN[lang]}…'"
  listed = re.findall(r"^- (.*)", I_CAN_ITEMS.search(checklist[-1]).group(1), re.M)
  repeated = [item for item in listed if item.lower().startswith(I_CAN[lang].lower())]
  assert not repeated, f"{lesson} ({lang}): the heading carries '{I_CAN[lang]}…': {repeated[:2]}"
  assert not problems, f"{lesson} ({lang}):\n" + "\n".join(problems)


@pytest.mark.parametrize("lang", list(LANGUAGES))
def test_every_quiz_question_exists_in_the_language(lang):
  for path in sorted((ROOT / "quizzes").glob("*.yaml")):
    bank = load_bank(path)
    for question in bank.questions:
      assert isinstance(question.question, dict) and lang in question.question, \
          f"{path.name}:{question.id} has no {lang} text"


@pytest.mark.parametrize("lang", list(LANGUAGES))
def test_the_quiz_cell_output_is_the_quiz_in_that_language(lang):
  notebook = nbformat.read(ROOT / "notebooks" / lang / f"{LESSONS[0]}.ipynb", as_version=4)
  (cell,) = [c for c in notebook.cells if c.cell_type == "code" and "show_quiz(" in c.source]
  html = cell.outputs[0]["data"]["text/html"]
  bank = load_bank(ROOT / "quizzes" / f"{LESSONS[0]}.yaml")
  assert bank.questions[0].question[lang].split()[0] in html
  assert html == render_quiz(LESSONS[0], lang)["text/html"]


# -- in a temporary copy of the course -----------------------------------------------------------

@pytest.fixture(scope="module")
def course_copy(tmp_path_factory) -> Path:
  """The course's translation machinery, English sources, translations and generated notebooks,
  copied: edits here cannot touch the repository."""
  copy = tmp_path_factory.mktemp("course")
  for name in ("adkcourse", "quizzes", "translations", "exercises"):
    shutil.copytree(ROOT / name, copy / name, ignore=shutil.ignore_patterns("__pycache__"))
  shutil.copytree(ROOT / "notebooks", copy / "notebooks")
  shutil.copytree(ROOT / "labs" / "exercises", copy / "labs" / "exercises",
                  ignore=shutil.ignore_patterns("__pycache__"))
  (copy / "scripts").mkdir()
  shutil.copy2(ROOT / "scripts" / "generate_exercises.py", copy / "scripts")
  (copy / "docs").mkdir()
  for page in [*ROOT.glob("README*.md"), *(ROOT / "docs").glob("*.md")]:  # the translated pages
    shutil.copy2(page, copy / page.relative_to(ROOT))
  return copy


def test_check_fails_when_an_english_cell_changes(course_copy):
  first = _run(course_copy, "check")
  assert first.returncode == 0, first.stdout + first.stderr
  path = course_copy / "notebooks" / f"{LESSONS[0]}.ipynb"
  notebook = nbformat.read(path, as_version=4)
  cell = [c for c in notebook.cells if c.cell_type == "markdown"][3]
  cell.source = "A sentence the translators have not seen yet. " + cell.source
  nbformat.write(notebook, path)
  try:
    after = _run(course_copy, "check")
    assert after.returncode == 1
    for lang in LANGUAGES:
      line = next(line for line in after.stdout.splitlines()
                  if f"translations/{lang}/notebooks/{LESSONS[0]}.yaml" in line
                  and cell.id in line)
      assert "[stale]" in line and "A sentence the translators have not" in line
      # The generated notebook no longer matches either: it must be regenerated.
      assert f"notebooks/{lang}/{LESSONS[0]}.ipynb" in after.stdout
  finally:
    shutil.copy(ROOT / "notebooks" / f"{LESSONS[0]}.ipynb", path)


def test_check_fails_when_an_english_question_changes(course_copy):
  path = course_copy / "quizzes" / f"{LESSONS[0]}.yaml"
  original = path.read_text(encoding="utf-8")
  bank = load_bank(ROOT / "quizzes" / f"{LESSONS[0]}.yaml")
  question = bank.questions[1]
  first_option = quiz_tr.english_texts(question)["options"][0]
  assert first_option in original
  path.write_text(original.replace(first_option, first_option + " (edited)", 1), encoding="utf-8")
  try:
    after = _run(course_copy, "check")
    assert after.returncode == 1
    for lang in LANGUAGES:
      assert re.search(rf"translations/{lang}/quizzes/{LESSONS[0]}\.yaml:\d+: {question.id}: "
                       r"\[stale\]", after.stdout), after.stdout
  finally:
    path.write_text(original, encoding="utf-8")


def test_a_stale_translation_shows_the_english_not_the_old_text(course_copy):
  """Stale text never reaches a student: the generated notebook keeps the new English."""
  notebooks = course_copy / "notebooks"
  root = course_copy / "translations"
  path = notebooks / f"{LESSONS[0]}.ipynb"
  notebook = nbformat.read(path, as_version=4)
  cell = [c for c in notebook.cells if c.cell_type == "markdown"][1]
  cell.source += "\n\nOne more English sentence."
  nbformat.write(notebook, path)
  try:
    for lang in LANGUAGES:
      generated = lesson_tr.translated_notebook(lang, LESSONS[0], render=render_quiz,
                                                notebooks_dir=notebooks, root=root)
      (ours,) = [c for c in generated.cells if c.id == cell.id]
      assert ours.source.endswith("One more English sentence.")
      # ... and once the translator updates `text` and accepts, the translation is back.
      file = lesson_tr.translation_path(lang, LESSONS[0], root)
      data = yaml.safe_load(file.read_text(encoding="utf-8"))
      data["cells"][cell.id]["text"] += "\n\n(translated sentence)"
      file.write_text(yaml.safe_dump(data, allow_unicode=True), encoding="utf-8")
      assert lesson_tr.accept(lang, LESSONS[0], [cell.id], notebooks_dir=notebooks,
                              root=root) == [cell.id]
      assert not [f for f in lesson_tr.lesson_findings(lang, LESSONS[0], notebooks, root)
                  if f.where == cell.id]
      generated = lesson_tr.translated_notebook(lang, LESSONS[0], render=render_quiz,
                                                notebooks_dir=notebooks, root=root)
      (ours,) = [c for c in generated.cells if c.id == cell.id]
      assert ours.source.endswith("(translated sentence)")
  finally:
    shutil.copy(ROOT / "notebooks" / f"{LESSONS[0]}.ipynb", path)
    shutil.rmtree(root)
    shutil.copytree(ROOT / "translations", root)


def test_a_quiz_translation_cannot_change_the_answer_key(tmp_path):
  """Answers are graded from the English bank only; a translation file has no say."""
  (tmp_path / "quizzes").mkdir()
  bank_path = tmp_path / "quizzes" / "tiny.yaml"
  bank_path.write_text(
      "- id: pick\n  question: Which prefix is per user?\n  options: ['user:', 'app:']\n"
      "  answer: 0\n  explanation: user is per user.\n", encoding="utf-8")
  bank, problems = check_file(bank_path)
  assert not problems
  entry = {"hash": quiz_tr.question_hash(bank.questions[0]), "question": "Quel préfixe ?",
           "options": ["user: (utilisateur)", "app: (application)"], "feedback": {},
           "explanation": "Par utilisateur.", "answer": [1]}
  quiz_tr.write(quiz_tr.translation_path("fr", "tiny", tmp_path / "translations"), "fr", "tiny",
                {"pick": entry})
  found = quiz_tr.bank_findings("fr", bank, tmp_path / "translations")
  assert [f.kind for f in found] == ["invalid"] and "only for text questions" in found[0].message
  entry.pop("answer")
  quiz_tr.write(quiz_tr.translation_path("fr", "tiny", tmp_path / "translations"), "fr", "tiny",
                {"pick": entry})
  merged = load_bank(bank_path)
  assert merged.questions[0].question == {"en": "Which prefix is per user?", "fr": "Quel préfixe ?"}
  assert merged.questions[0].grade(0, "fr").correct and not merged.questions[0].grade(1, "fr").correct


@pytest.mark.parametrize("content,expected", [
    ("cells:\n  abcd1234:\n    hash: x\n    en: |\n  bad indent\n", "YAML syntax error"),
    ("cells:\n  12345678:\n    hash: x\n    en: y\n    text: z\n", "put quotes around it"),
    ("cells:\n  'abcd1234':\n    hash: x\n    en: y\n    txet: z\n", "unknown key 'txet'"),
    ("cells:\n  'abcd1234':\n    hash: x\n    en: y\n    text: 12\n", "`text` must be text"),
    ("cells:\n  'abcd1234':\n    text: \"a\\x0bb\"\n    text: c\n", "written twice"),
    ("cells:\n  'abcd1234':\n    text: \"a\x0bb\"\n", "not readable as YAML"),
    ("cells:\n  'abcd1234':\n    text: " + "[" * 3000 + "]" * 3000 + "\n", "nested too deeply"),
])
def test_a_broken_translation_file_names_file_line_and_fix(tmp_path, content, expected):
  path = tmp_path / "fr" / "notebooks" / "lesson.yaml"
  path.parent.mkdir(parents=True)
  path.write_text("language: fr\nlesson: lesson\n" + content, encoding="utf-8")
  _, found = lesson_tr.load(path, "fr")
  assert len(found) == 1 and expected in found[0].message
  if "nested" not in expected:
    assert found[0].line is not None
    assert str(found[0]).startswith(f"{found[0].file}:{found[0].line}:")


def test_a_translation_file_in_the_wrong_folder_is_refused(tmp_path):
  """A French file copied into the Indonesian folder must not be shown to Indonesian students."""
  source = lesson_tr.translation_path("fr", LESSONS[0])
  target = lesson_tr.translation_path("id", LESSONS[0], tmp_path)
  target.parent.mkdir(parents=True)
  shutil.copy(source, target)
  entries, (found,) = lesson_tr.load(target, "id")
  assert not entries and found.kind == "invalid" and "`language:` is 'fr'" in found.message


def test_scaffold_adds_missing_cells_and_keeps_what_translators_wrote(tmp_path):
  notebooks = tmp_path / "notebooks"
  notebooks.mkdir()
  shutil.copy(ROOT / "notebooks" / f"{LESSONS[0]}.ipynb", notebooks)
  root = tmp_path / "translations"
  assert lesson_tr.scaffold("fr", LESSONS[0], notebooks_dir=notebooks, root=root) > 0
  path = lesson_tr.translation_path("fr", LESSONS[0], root)
  data = yaml.safe_load(path.read_text(encoding="utf-8"))
  first = next(iter(data["cells"]))
  from adkcourse.i18n.numbers import prose_numbers
  numbers = " ".join(prose_numbers(data["cells"][first]["en"]).elements())  # kept, as check asks
  data["cells"][first]["text"] = f"# Leçon {numbers}".strip()
  path.write_text(yaml.safe_dump(data, allow_unicode=True), encoding="utf-8")
  assert lesson_tr.scaffold("fr", LESSONS[0], notebooks_dir=notebooks, root=root) == 0
  kinds = {f.where: f.kind for f in lesson_tr.lesson_findings("fr", LESSONS[0], notebooks, root)}
  assert kinds[first] == "unaccepted" and set(kinds.values()) == {"missing", "unaccepted"}
  assert lesson_tr.accept("fr", LESSONS[0], [first], notebooks_dir=notebooks, root=root)
  kinds = {f.where: f.kind for f in lesson_tr.lesson_findings("fr", LESSONS[0], notebooks, root)}
  assert first not in kinds and set(kinds.values()) == {"missing"}
  assert yaml.safe_load(path.read_text(encoding="utf-8"))["cells"][first]["text"] == \
      f"# Leçon {numbers}".strip()


def test_relink_keeps_lesson_links_and_climbs_out_for_the_rest():
  text = ("[next](02_sqlite_memory.ipynb#part) [lab](../labs/x.py) [web](https://a.b) "
          "[here](#top) <img src=\"diagram.png\">")
  assert lesson_tr.relink(text, {"02_sqlite_memory"}) == (
      "[next](02_sqlite_memory.ipynb#part) [lab](../../labs/x.py) [web](https://a.b) "
      "[here](#top) <img src=\"../diagram.png\">")


def test_the_hash_ignores_trailing_spaces_only():
  assert source_hash("a  \nb") == source_hash("a\nb") != source_hash("a\nb.")


def test_accept_finds_named_cell_ids_and_question_ids(course_copy):
  """Cell ids are not always 8 hex digits (lessons name some cells): accept looks ids up."""
  notebook = nbformat.read(course_copy / "notebooks" / f"{LESSONS[0]}.ipynb", as_version=4)
  named = [c.id for c in notebook.cells if c.cell_type == "markdown"
           and not re.fullmatch(r"[0-9a-f]{8}", c.id)]
  bank = load_bank(ROOT / "quizzes" / f"{LESSONS[0]}.yaml")
  ids = named[:1] + [bank.questions[0].id]
  done = _run(course_copy, "accept", "fr", LESSONS[0], *ids)
  assert done.returncode == 0, done.stderr
  assert f"accepted {len(named[:1])} cells and 1 questions" in done.stderr
  wrong = _run(course_copy, "accept", "fr", LESSONS[0], "no-such-id")
  assert wrong.returncode != 0 and "no-such-id" in wrong.stderr


@pytest.mark.parametrize("lang", list(LANGUAGES))
def test_each_readme_gives_the_two_commands_for_its_language(lang):
  """README.<lang>.md: the same install-and-test command as README.md (which .ci/run runs), and
  an install-and-open command that opens that language's lesson 1, which exists."""
  def commands(name: str) -> list[str]:
    text = (ROOT / name).read_text(encoding="utf-8")
    block = re.search(r"```bash\n(.*?)```", text, re.DOTALL).group(1)
    return [line for line in block.splitlines() if line and not line.startswith("#")]
  english_open, english_test = commands("README.md")
  ours_open, ours_test = commands(f"README.{lang}.md")
  assert ours_test == english_test and english_test.endswith("bash scripts/test.sh")
  assert "bash scripts/test.sh" in (ROOT / ".ci" / "run").read_text()
  opened = ours_open.rsplit(" ", 1)[1]
  assert ours_open == english_open.replace(english_open.rsplit(" ", 1)[1], opened)
  assert opened == f"notebooks/{lang}/{LESSONS[0]}.ipynb" and (ROOT / opened).exists()


def test_a_stale_quiz_translation_shows_the_english_question(tmp_path):
  """A question whose English changed after it was translated is shown in English, whole (never
  half old translation, half new English), until the translation is updated and accepted."""
  (tmp_path / "quizzes").mkdir()
  bank_path = tmp_path / "quizzes" / "tiny.yaml"
  english = ("- id: pick\n  question: Which prefix is per user?\n  options: ['user:', 'app:']\n"
             "  answer: 0\n  explanation: user is per user.\n")
  bank_path.write_text(english, encoding="utf-8")
  bank, _ = check_file(bank_path)
  quiz_tr.write(quiz_tr.translation_path("fr", "tiny", tmp_path / "translations"), "fr", "tiny",
                {"pick": {"hash": quiz_tr.question_hash(bank.questions[0]),
                          "question": "Quel préfixe ?", "options": ["user: (utilisateur)",
                                                                    "app: (application)"],
                          "explanation": "Par utilisateur."}})
  assert load_bank(bank_path).questions[0].question["fr"] == "Quel préfixe ?"
  bank_path.write_text(english.replace("per user?", "per user and app?"), encoding="utf-8")
  stale = load_bank(bank_path).questions[0]
  assert stale.question == "Which prefix is per user and app?" and stale.options == ["user:", "app:"]
  (finding,) = quiz_tr.bank_findings("fr", load_bank(bank_path), tmp_path / "translations")
  lines = quiz_tr.translation_path("fr", "tiny", tmp_path / "translations").read_text(
      encoding="utf-8").splitlines()
  assert finding.kind == "stale" and finding.where == "pick"
  assert lines[finding.line - 1] == "  pick:"   # the line of the entry to update


def _prose_words(text: str) -> int:
  """Words of prose in Markdown: code blocks, code spans and link targets removed."""
  text = re.sub(r"```.*?```", "", text, flags=re.DOTALL)
  text = re.sub(r"`[^`]*`|\]\([^)]*\)", "", text)
  return len(re.findall(r"[A-Za-z]{3,}", text))


@pytest.mark.parametrize("lang", list(LANGUAGES))
def test_no_prose_was_accepted_untranslated(lang):
  """`accept --all` records whatever an entry holds: an entry still holding the English it was
  scaffolded with would pass the hash check. Prose must differ from the English; a quiz option may
  stay English (a message the scripted model matches word by word, a URI)."""
  same = []
  for lesson in LESSONS:
    entries, _ = lesson_tr.load(lesson_tr.translation_path(lang, lesson), lang)
    same += [f"{lesson} cell {cell_id}" for cell_id, entry in entries.items()
             if entry.text.strip() == entry.en.strip() and _prose_words(entry.en) >= 3]
  for path in sorted((ROOT / "quizzes").glob("*.yaml")):
    bank, _ = check_file(path)
    raw = yaml.safe_load(quiz_tr.translation_path(lang, bank.name, ROOT / "translations")
                         .read_text(encoding="utf-8"))["questions"]
    for question in bank.questions:
      english, ours = quiz_tr.english_texts(question), raw[question.id]
      texts = [("question", english["question"], ours["question"]),
               ("explanation", english["explanation"], ours["explanation"])]
      texts += [(f"feedback {k}", v, ours["feedback"][k])
                for k, v in english.get("feedback", {}).items()]
      same += [f"{bank.name} {question.id} {name}" for name, theirs, mine in texts
               if theirs.strip() == mine.strip() and _prose_words(theirs) >= 3]
  assert not same, f"{lang}: still in English: {same}"


# -- what a careless or hurried contributor could do (found by an attack on this machinery) -----

def test_accept_refuses_a_stale_translation_nobody_updated(course_copy):
  """`accept` records that a translation matches the English: for a stale entry whose text is
  the one accepted before, that would pass the old translation off as current."""
  path = course_copy / "notebooks" / f"{LESSONS[1]}.ipynb"
  notebook = nbformat.read(path, as_version=4)
  cell = [c for c in notebook.cells if c.cell_type == "markdown"][2]
  cell.source += "\n\n**Warning:** never share this database file."
  nbformat.write(notebook, path)
  saved = {lang: lesson_tr.translation_path(lang, LESSONS[1], course_copy / "translations")
           .read_text(encoding="utf-8") for lang in LANGUAGES}
  try:
    one = _run(course_copy, "accept", "fr", LESSONS[1], cell.id)
    assert one.returncode == 1 and "update it" in one.stderr and "--unchanged" in one.stderr
    every = _run(course_copy, "accept", "fr", LESSONS[1], "--all")
    assert every.returncode == 1 and cell.id in every.stderr   # skipped, and said so
    assert "[stale]" in _run(course_copy, "check").stdout      # still failing
    forced = _run(course_copy, "accept", "fr", LESSONS[1], cell.id, "--unchanged")
    assert forced.returncode == 0                               # a deliberate, visible choice
  finally:
    shutil.copy(ROOT / "notebooks" / f"{LESSONS[1]}.ipynb", path)
    for lang, text in saved.items():
      lesson_tr.translation_path(lang, LESSONS[1], course_copy / "translations").write_text(
          text, encoding="utf-8")


def test_an_edited_translation_must_be_accepted_again(course_copy):
  path = lesson_tr.translation_path("fr", LESSONS[0], course_copy / "translations")
  saved = path.read_text(encoding="utf-8")
  data = yaml.safe_load(saved)
  cell_id = next(iter(data["cells"]))
  data["cells"][cell_id]["text"] += "\n\nUne phrase ajoutée."
  path.write_text(yaml.safe_dump(data, allow_unicode=True), encoding="utf-8")
  try:
    assert re.search(rf"{cell_id}: \[unaccepted\]", _run(course_copy, "check").stdout)
  finally:
    path.write_text(saved, encoding="utf-8")


def test_swapped_options_in_a_translation_are_refused():
  """Options must stay in the English order (the answer key is the English bank's): a swap is
  caught where the options carry code or numbers, as most do."""
  bank = load_bank(ROOT / "quizzes" / f"{LESSONS[0]}.yaml")
  question = next(q for q in bank.questions if q.id == "what-is-an-event")
  raw = yaml.safe_load(quiz_tr.translation_path("fr", bank.name, ROOT / "translations")
                       .read_text(encoding="utf-8"))["questions"][question.id]
  assert quiz_tr._entry_problem(raw, quiz_tr.english_texts(question)) is None
  swapped = {**raw, "options": [raw["options"][1], raw["options"][0], *raw["options"][2:]]}
  problem = quiz_tr._entry_problem(swapped, quiz_tr.english_texts(question))
  assert problem is not None and "option 0" in problem


def test_text_answers_count_in_their_own_language_only(tmp_path):
  (tmp_path / "quizzes").mkdir()
  bank_path = tmp_path / "quizzes" / "tiny.yaml"
  bank_path.write_text("- id: prefix\n  type: text\n  question: Which prefix?\n"
                       "  answer: ['user:']\n  explanation: user is per user.\n", encoding="utf-8")
  bank, _ = check_file(bank_path)
  entry = {"question": "Quel préfixe ?", "explanation": "Par utilisateur.", "answer": ["«»"]}
  assert "only punctuation" in quiz_tr._entry_problem(entry, quiz_tr.english_texts(bank.questions[0]))
  entry["answer"] = ["utilisateur"]
  entry["hash"] = quiz_tr.question_hash(bank.questions[0])
  quiz_tr.write(quiz_tr.translation_path("fr", "tiny", tmp_path / "translations"), "fr", "tiny",
                {"prefix": entry})
  question = load_bank(bank_path).questions[0]
  assert question.grade("utilisateur", "fr").correct and question.grade("user:", "fr").correct
  assert not question.grade("utilisateur", "en").correct and not question.grade(
      "utilisateur", "id").correct
  broken = bank_path.read_text(encoding="utf-8").replace("['user:']", "['user:', '...']")
  bank_path.write_text(broken, encoding="utf-8")
  _, problems = check_file(bank_path)
  assert problems and "only quotes or punctuation" in str(problems[0])


def test_files_left_by_a_deleted_lesson_are_reported_and_removed(course_copy):
  orphan_nb = course_copy / "notebooks" / "fr" / "99_gone.ipynb"
  orphan_tr = course_copy / "translations" / "id" / "quizzes" / "99_gone.yaml"
  shutil.copy(course_copy / "notebooks" / "fr" / f"{LESSONS[0]}.ipynb", orphan_nb)
  orphan_tr.write_text("language: id\nbank: 99_gone\nquestions: {}\n", encoding="utf-8")
  try:
    out = _run(course_copy, "check").stdout
    assert "notebooks/fr/99_gone.ipynb: [orphan]" in out and "99_gone.yaml: [orphan]" in out
    assert _run(course_copy, "generate").returncode == 0 and not orphan_nb.exists()
  finally:
    orphan_nb.unlink(missing_ok=True)
    orphan_tr.unlink()


def test_a_changed_widget_word_makes_its_translations_stale(course_copy):
  messages = course_copy / "adkcourse" / "quiz" / "messages.py"
  saved = messages.read_text(encoding="utf-8")
  assert '"en": "choose one",' in saved
  messages.write_text(saved.replace('"en": "choose one",', '"en": "choose exactly one",'),
                      encoding="utf-8")
  try:
    out = _run(course_copy, "check").stdout
    for lang in LANGUAGES:
      assert re.search(rf"translations/{lang}/widget\.yaml:\d+: kind_single: \[stale\]", out), out
  finally:
    messages.write_text(saved, encoding="utf-8")


def _notebooks_with_a_duplicate_cell_id(tmp_path: Path) -> tuple[Path, dict]:
  """A notebooks folder holding lesson 1 with cell 2's id set to cell 1's (and that notebook)."""
  notebooks = tmp_path / "notebooks"
  notebooks.mkdir()
  raw = json.loads((ROOT / "notebooks" / f"{LESSONS[0]}.ipynb").read_text(encoding="utf-8"))
  raw["cells"][2]["id"] = raw["cells"][1]["id"]
  (notebooks / f"{LESSONS[0]}.ipynb").write_text(json.dumps(raw), encoding="utf-8")
  return notebooks, raw


def test_duplicate_cell_ids_in_the_english_notebook_are_named(tmp_path):
  notebooks, raw = _notebooks_with_a_duplicate_cell_id(tmp_path)
  found = lesson_tr.lesson_findings("fr", LESSONS[0], notebooks, ROOT / "translations")
  assert [f.kind for f in found] == ["invalid"]
  assert f"{raw['cells'][1]['id']!r} is used twice" in found[0].message


def test_scaffold_refuses_an_english_notebook_with_a_duplicate_cell_id(tmp_path):
  """nbformat would invent random ids for the repeated cells: scaffold would write them."""
  notebooks, raw = _notebooks_with_a_duplicate_cell_id(tmp_path)
  root = tmp_path / "translations"
  with pytest.raises(TranslationFileError, match=f"{raw['cells'][1]['id']!r} is used twice"):
    lesson_tr.scaffold("fr", LESSONS[0], notebooks_dir=notebooks, root=root)
  assert not root.exists()


def test_only_a_quiz_call_gets_the_quiz_output():
  """A code cell that merely mentions show_quiz (a comment) keeps its own outputs."""
  cell = nbformat.v4.new_code_cell("# next lesson: show_quiz('02_sqlite_memory')\nframe")
  cell.outputs = [nbformat.v4.new_output("display_data", data={"text/plain": "a table"})]
  lesson_tr._quiz_outputs(cell, "fr", render_quiz)
  assert cell.outputs[0]["data"]["text/plain"] == "a table"
  cell.source = 'from adkcourse.quiz import show_quiz\n\nshow_quiz("02_sqlite_memory")'
  lesson_tr._quiz_outputs(cell, "fr", render_quiz)
  assert cell.outputs[0]["data"]["text/plain"].startswith("Quiz")


GUIDES = ["README.fr.md", "README.id.md", "docs/translating.md"]


@pytest.mark.parametrize("guide", GUIDES)
def test_the_translation_guides_give_commands_the_tool_accepts(guide):
  """The guides restate the workflow in French, Indonesian and English: every
  `python -m adkcourse.i18n ...` command they show must still parse (a renamed subcommand or
  flag fails here, not in a translator's terminal)."""
  import shlex

  text = (ROOT / guide).read_text(encoding="utf-8")
  shown = re.finditer(r"python -m adkcourse\.i18n ([^`#\n]*)", text)
  inline = re.finditer(r"`((?:status|scaffold|accept|generate) (?:fr|id)\b[^`]*)`", text)
  commands = [m.group(1).strip() for m in [*shown, *inline]]
  commands = [c for c in commands if c and c.split()[0] != "COMMAND"]  # a placeholder line
  assert commands, f"{guide} shows no command"
  for command in commands:
    try:
      parse_args(shlex.split(command))
    except SystemExit:
      pytest.fail(f"{guide}: `python -m adkcourse.i18n {command}` is refused by the tool")


def test_a_translation_left_in_english_is_missing_and_cannot_be_accepted(course_copy):
  """A scaffolded entry holds the English until someone translates it; `accept --all` used to
  accept it as it was, and English prose reached the French lesson with no finding."""
  path = lesson_tr.translation_path("fr", LESSONS[0], course_copy / "translations")
  saved = path.read_text(encoding="utf-8")
  data = yaml.safe_load(saved)
  cell_id = next(cid for cid, entry in data["cells"].items() if len(entry["en"].split()) > 20)
  data["cells"][cell_id]["text"] = data["cells"][cell_id]["en"]
  path.write_text(yaml.safe_dump(data, allow_unicode=True), encoding="utf-8")
  try:
    found = _run(course_copy, "check").stdout
    assert re.search(rf"{cell_id}: \[missing\] `text` is still the English", found), found
    one = _run(course_copy, "accept", "fr", LESSONS[0], cell_id)
    assert one.returncode == 1 and "still the English" in one.stderr
    _run(course_copy, "accept", "fr", LESSONS[0], "--all")
    assert re.search(rf"{cell_id}: \[missing\]", _run(course_copy, "check").stdout)
  finally:
    path.write_text(saved, encoding="utf-8")


def test_a_quiz_question_left_in_english_is_missing(course_copy):
  path = course_copy / "translations" / "id" / "quizzes" / f"{LESSONS[0]}.yaml"
  saved = path.read_text(encoding="utf-8")
  data = yaml.safe_load(saved)
  bank = yaml.safe_load((course_copy / "quizzes" / f"{LESSONS[0]}.yaml").read_text())
  question = next(q for q in bank if len(str(q["question"]).split()) > 5)
  data["questions"][question["id"]]["question"] = question["question"]
  path.write_text(yaml.safe_dump(data, allow_unicode=True), encoding="utf-8")
  try:
    found = _run(course_copy, "check").stdout
    assert re.search(rf"{question['id']}: \[missing\] still the English in question", found), found
  finally:
    path.write_text(saved, encoding="utf-8")


@pytest.mark.parametrize("text,english,left", [
    ("Predict, then run the cell.", "Predict, then run the cell.", True),
    ("Prédisez, puis exécutez.", "Predict, then run the cell.", False),
    ("`adk web` and `adk run`", "`adk web` and `adk run`", False),   # code and one word
    ("## Going further", "## Going further", False),                  # too short to tell
    ("[Lesson 2](02_sqlite_memory.ipynb)", "[Lesson 2](02_sqlite_memory.ipynb)", False),
    ("The `user:` prefix is kept in events ", "The `user:` prefix is kept in events", True),
])
def test_what_counts_as_still_english(text, english, left):
  from adkcourse.i18n import still_english
  assert still_english(text, english) is left


def _tiny_lesson_with_a_timeline(notebooks: Path, monkeypatch) -> tuple[list, dict, dict]:
  """An executed English lesson of one code cell, as the kernel in notebooks/ writes it: a
  print, a timeline that follows the notebook's language, and one whose code names English."""
  from google.adk.events import Event, EventActions
  from google.genai import types

  from adkcourse.timeline import timeline

  def said(author: str, text: str, **delta) -> Event:
    return Event(author=author, invocation_id="i1", actions=EventActions(state_delta=delta),
                 content=types.Content(role="user" if author == "user" else "model",
                                       parts=[types.Part(text=text)]))

  events = [said("user", "An oat latte", **{"user:diet": ["vegan"]}),
            said("cafe_concierge", "Ordered.", current_order=["oat latte"])]
  monkeypatch.delenv("JPY_SESSION_NAME", raising=False)
  monkeypatch.setenv("ADKCOURSE_LANG", "en")
  follows = timeline(events)._repr_mimebundle_()
  fixed = timeline(events, lang="en")._repr_mimebundle_()
  cell = nbformat.v4.new_code_cell("print('two events')\ndisplay(timeline(events))\n"
                                   "timeline(events, lang='en')")
  cell.execution_count = 1
  cell.outputs = [nbformat.v4.new_output("stream", name="stdout", text="two events\n"),
                  nbformat.v4.new_output("display_data", data=follows[0], metadata=follows[1]),
                  nbformat.v4.new_output("execute_result", data=fixed[0], metadata=fixed[1],
                                         execution_count=1)]
  notebook = nbformat.v4.new_notebook()
  notebook.cells = [nbformat.v4.new_markdown_cell("# A tiny lesson"), cell]
  notebooks.mkdir()
  nbformat.write(notebook, notebooks / "01_tiny.ipynb")
  english = nbformat.read(notebooks / "01_tiny.ipynb", as_version=4)
  return events, english.cells[1], follows[1]


def test_generate_draws_each_timeline_again_in_the_language(tmp_path, monkeypatch):
  """A timeline output carries its layout: the generated notebook shows the picture the kernel
  draws there (nbval compares it), in that language; everything else is copied."""
  from adkcourse.timeline import WORDS, timeline

  notebooks, root = tmp_path / "notebooks", tmp_path / "translations"
  events, english, metadata = _tiny_lesson_with_a_timeline(notebooks, monkeypatch)
  for lang in LANGUAGES:
    assert lesson_tr.generate(lang, "01_tiny", render=render_quiz, notebooks_dir=notebooks,
                              root=root)
    generated = nbformat.read(lesson_tr.generated_path(lang, "01_tiny", notebooks), as_version=4)
    cell = generated.cells[1]
    assert cell.source == english.source and len(cell.outputs) == 3
    printed, drawn, fixed = cell.outputs
    assert printed == english.outputs[0] and fixed == english.outputs[2]  # its code says "en"
    assert drawn.metadata == english.outputs[1].metadata
    assert json.loads(json.dumps(metadata)) == drawn.metadata
    kernel = timeline(events, lang=lang)._repr_mimebundle_()[0]  # what nbval's kernel draws
    assert drawn.data == kernel
    assert drawn.data["image/svg+xml"] != english.outputs[1].data["image/svg+xml"]
    svg = drawn.data["image/svg+xml"]
    assert f"<!-- {WORDS[lang]['state']} -->" in svg
    assert WORDS["en"]["state"] not in svg and WORDS["en"]["stored"] not in svg
    assert "events" not in drawn.data["text/plain"]
    assert WORDS["en"]["state"] in fixed.data["image/svg+xml"]
    # Drawn again, the same bytes: check finds nothing, generate changes nothing.
    assert lesson_tr.generated_findings(lang, "01_tiny", render=render_quiz,
                                        notebooks_dir=notebooks, root=root) == []
    assert not lesson_tr.generate(lang, "01_tiny", render=render_quiz, notebooks_dir=notebooks,
                                  root=root)


def test_status_diff_keeps_a_changed_last_line_apart_from_its_replacement():
  """The English diff ``status`` prints: a changed last line (no newline after it) is one
  removed line and one added line, not ``-old+new`` glued together (issue 26)."""
  from adkcourse.i18n.lessons import text_diff

  lines = text_diff("title\n\nold last line", "title\n\nnew last line\nand one more").splitlines()
  assert "-old last line" in lines and "+new last line" in lines and "+and one more" in lines
  assert not any("line+" in line for line in lines)


def test_status_shows_what_changed_in_a_stale_quiz_question(course_copy):
  """A quiz entry records the English it was made from (``en``, written by ``accept``), so that
  ``status`` shows a stale question's diff field by field, as it does for a lesson cell."""
  bank_path = course_copy / "quizzes" / "02_sqlite_memory.yaml"
  old = "ADK deletes the 380 oldest events from the file"
  text = bank_path.read_text(encoding="utf-8")
  assert text.count(old) == 1
  bank_path.write_text(text.replace(old, "ADK deletes the 380 oldest events"), encoding="utf-8")
  status = _run(course_copy, "status", "fr")
  assert status.returncode == 0, status.stderr
  after = status.stdout.split("get-session-config-window: [stale]", 1)[1]
  lines = [line.strip() for line in after.splitlines()[1:8]]   # the diff under the finding
  assert f"-options[1]: {old}" in lines, status.stdout
  assert "+options[1]: ADK deletes the 380 oldest events" in lines, status.stdout
  assert not any(line.startswith(("-question", "+question")) for line in lines), lines
