"""The exercises in French and Indonesian: every statement, hint and notebook text translated
from the current English, the generated notebooks' code the English code, and an English change
makes the translation stale and fails `check` (adkcourse/i18n/exercises.py,
scripts/generate_exercises.py, docs/translating.md)."""

from __future__ import annotations

import ast
import importlib.util
import json
import re
import shutil
import sys
from pathlib import Path

import nbformat
import pytest

from adkcourse.i18n import LANGUAGES, source_hash
from adkcourse.i18n import exercises as ex
from adkcourse.i18n import lessons as lesson_tr

ROOT = Path(__file__).resolve().parent.parent
EXERCISES = ex.exercise_names()
PAIRS = [(lang, name) for lang in LANGUAGES for name in EXERCISES]


def _generator():
  spec = importlib.util.spec_from_file_location("generate_exercises_i18n",
                                                ROOT / "scripts" / "generate_exercises.py")
  module = importlib.util.module_from_spec(spec)
  sys.modules[spec.name] = module  # dataclasses look their module up
  spec.loader.exec_module(module)
  return module


generator = _generator()


@pytest.fixture
def tree(tmp_path: Path) -> Path:
  """A copy of what the exercises' translations are made of: sources and translations."""
  shutil.copytree(ROOT / "exercises", tmp_path / "exercises",
                  ignore=shutil.ignore_patterns("__pycache__"))
  for lang in LANGUAGES:
    shutil.copytree(ROOT / "translations" / lang / "exercises",
                    tmp_path / "translations" / lang / "exercises")
  return tmp_path


def _findings(tree: Path, lang: str) -> list:
  return ex.findings(lang, tree / "exercises", tree / "translations")


def test_every_exercise_has_a_current_translation_in_every_language():
  for lang in LANGUAGES:
    found = ex.findings(lang)
    assert not found, "\n".join(map(str, found))
  for lang, name in PAIRS:
    entries, _ = ex.load(ex.translation_path(lang, name), lang)
    assert set(entries) == set(ex.english_texts(name)), (lang, name)


def test_the_english_texts_are_the_ones_the_generator_writes():
  """exercises.py reads the statement and hints itself; they must be exactly the generator's
  (else a translation would be current for `check` but never used)."""
  for name in EXERCISES:
    source = (ROOT / "exercises" / f"{name}.py").read_text(encoding="utf-8")
    seen: list[tuple[str, str]] = []
    split = generator.split_source(name, source, f"exercises/{name}.py",
                                   lambda text_id, english: seen.append((text_id, english)))
    texts = ex.english_texts(name)
    assert texts["statement"] == ex.statement_markdown(split.docstring)
    assert dict(seen) == {k: v for k, v in texts.items() if k.startswith("hint-")}
    assert [k for k, _ in seen] == [f"hint-{i}" for i in range(1, len(seen) + 1)]
  assert (generator.HINT, generator.BEGIN) == (ex.HINT, ex.BEGIN)


@pytest.mark.parametrize("what", ["statement", "hint-1"])
def test_a_changed_english_text_makes_its_translations_stale(tree, what):
  source = tree / "exercises" / "forget_user.py"
  text = source.read_text(encoding="utf-8")
  if what == "statement":
    text = text.replace("A student asks the tutor to forget them.",
                        "A student asks the tutor to forget them at once.")
  else:
    text = text.replace("### HINT: user, app and app state must be unchanged.",
                        "### HINT: user, app and app state must stay as they were.")
  source.write_text(text, encoding="utf-8")
  for lang in LANGUAGES:
    found = _findings(tree, lang)
    assert [(f.where, f.kind) for f in found] == [(what, "stale")], found
    assert "accept " + lang + " forget_user " + what in found[0].message
    assert found[0].file.endswith(f"translations/{lang}/exercises/forget_user.yaml")
    assert found[0].line is not None
  diff = ex.english_diff("fr", "forget_user", what, tree / "exercises", tree / "translations")
  added = [line for line in diff.splitlines() if line.startswith("+") and not line.startswith("+++")]
  assert len(added) == 1 and ("at once" in added[0] or "stay as they were" in added[0]), diff
  # The stale translation is no longer used: the French notebook shows the new English.
  translate = ex.translator("fr", "forget_user", tree / "translations")
  assert translate(what, ex.english_texts("forget_user", tree / "exercises")[what]) is None
  # Accepting it untouched is refused; once updated, it is current again.
  with pytest.raises(ValueError, match="accepted before"):
    ex.accept("fr", "forget_user", [what], exercises_dir=tree / "exercises",
              root=tree / "translations")
  ex.accept("fr", "forget_user", [what], unchanged=True, exercises_dir=tree / "exercises",
            root=tree / "translations")
  assert not _findings(tree, "fr")


def test_check_fails_on_a_stale_or_missing_exercise_text(tree, monkeypatch, capsys):
  from adkcourse.i18n import cli

  (tree / "translations" / "id" / "exercises" / "fit_the_budget.yaml").unlink()
  source = tree / "exercises" / "grant_runtime_role.py"
  source.write_text(source.read_text(encoding="utf-8").replace(
      "The concierge goes to production.", "The concierge goes live."), encoding="utf-8")
  monkeypatch.setattr(cli, "findings", lambda langs, generated=True: [
      f for lang in langs for f in ex.findings(lang, tree / "exercises", tree / "translations")])
  assert cli.main(["check"]) == 1
  out = capsys.readouterr().out
  assert "fit_the_budget.yaml: [missing] no translation file for fit_the_budget" in out
  assert re.search(r"fr/exercises/grant_runtime_role\.yaml:\d+: statement: \[stale\]", out)
  assert re.search(r"id/exercises/grant_runtime_role\.yaml:\d+: statement: \[stale\]", out)


def test_the_shared_notebook_texts_keep_the_name_field(tree):
  path = ex.translation_path("fr", ex.NOTEBOOK, tree / "translations")
  text = path.read_text(encoding="utf-8")
  path.write_text(text.replace("la fonction nommée `{name}`", "la fonction nommée"),
                  encoding="utf-8")
  found = _findings(tree, "fr")
  assert [(f.where, f.kind) for f in found] == [("check-your-work", "unaccepted")]
  with pytest.raises(ValueError, match="code span `{name}`"):
    ex.accept("fr", ex.NOTEBOOK, ["check-your-work"], exercises_dir=tree / "exercises",
              root=tree / "translations")


@pytest.mark.parametrize("content,entry,expected", [
    ("exercise: forget_user\nlanguage: fr\ntexts:\n  statement: just a string\n", "statement",
     "an entry needs `hash:`"),
    ("exercise: forget_user\nlanguage: fr\ntexts:\n  hint-1:\n    hash: abc\n    txt: x\n",
     "hint-1", "unknown key 'txt'"),
    ("exercise: forget_user\nlanguage: fr\ntexts:\n  statement:\n    hash: 12\n    text: x\n",
     "statement", "`hash` must be text, not int"),
])
def test_a_malformed_entry_is_named_with_its_file_and_line(tree, content, entry, expected):
  path = ex.translation_path("fr", "forget_user", tree / "translations")
  path.write_text(content, encoding="utf-8")
  found = [f for f in _findings(tree, "fr") if f.kind == "invalid"]
  assert len(found) == 1 and found[0].where == entry and expected in found[0].message
  assert found[0].file.endswith("translations/fr/exercises/forget_user.yaml")
  assert str(found[0]).startswith(f"{found[0].file}:{found[0].line}: {entry}: [invalid]")
  with pytest.raises(ValueError, match=f"forget_user.yaml:\\d+: {entry}: \\[invalid\\]"):
    ex.scaffold("fr", "forget_user", exercises_dir=tree / "exercises", root=tree / "translations")


def test_a_broken_or_misplaced_file_is_named(tree):
  path = ex.translation_path("id", "copy_user_to", tree / "translations")
  path.write_text("exercise: copy_user_to\nlanguage: id\ntexts:\n  statement:\n    text: 'x\n",
                  encoding="utf-8")
  found = _findings(tree, "id")
  assert [f.kind for f in found] == ["invalid"] and "YAML syntax error" in found[0].message
  assert found[0].file.endswith("translations/id/exercises/copy_user_to.yaml") and found[0].line
  shutil.copy(ex.translation_path("fr", "forget_user", tree / "translations"),
              ex.translation_path("id", "forget_user", tree / "translations"))
  misplaced = [f for f in _findings(tree, "id") if f.file.endswith("id/exercises/forget_user.yaml")]
  assert misplaced and "`language:` is 'fr'" in misplaced[0].message


def test_an_entry_or_file_without_english_is_an_orphan(tree):
  orphan = tree / "translations" / "fr" / "exercises" / "old_exercise.yaml"
  orphan.write_text("exercise: old_exercise\nlanguage: fr\ntexts: {}\n", encoding="utf-8")
  source = tree / "exercises" / "remember_with_consent.py"
  source.write_text("\n".join(line for line in source.read_text(encoding="utf-8").splitlines()
                              if "### HINT:" not in line) + "\n", encoding="utf-8")
  found = {(Path(f.file).name, f.where, f.kind) for f in _findings(tree, "fr")}
  assert found == {("old_exercise.yaml", "", "orphan"),
                   ("remember_with_consent.yaml", "hint-1", "orphan")}


def test_a_translation_that_drops_code_or_numbers_is_invalid(tree):
  path = ex.translation_path("fr", "copy_user_to", tree / "translations")
  text = path.read_text(encoding="utf-8")
  assert "129 ne tiennent pas" in text and "``varchar(256)``" in text
  for before, after, expected in [("129 ne tiennent pas", "130 ne tiennent pas", "numbers"),
                                  ("``varchar(256)``", "varchar(256)", "``varchar(256)``"),
                                  ("    async def copy_user_to(source, dest,",
                                   "    def copy_user_to(source, dest,", "code line")]:
    head, _, translation = text.partition("\n    text: ")  # the statement's `text`, not `en`
    path.write_text(head + "\n    text: " + translation.replace(before, after, 1), encoding="utf-8")
    ex.accept("fr", "copy_user_to", [], exercises_dir=tree / "exercises",
              root=tree / "translations")  # rewrites nothing of the text
    entries, _ = ex.load(path, "fr")
    english = ex.english_texts("copy_user_to", tree / "exercises")["statement"]
    problem = ex.keeping_problem("statement", english, entries["statement"].text)
    assert problem is not None and expected in problem, (before, problem)
  path.write_text(text, encoding="utf-8")


def _stub_message(source: str, name: str) -> str:
  tree = ast.parse(source)
  function = next(node for node in ast.walk(tree)
                  if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name == name)
  raised = next(node for node in ast.walk(function) if isinstance(node, ast.Raise))
  return ast.literal_eval(raised.exc.args[0])


def _notebook(lang: str, name: str) -> nbformat.NotebookNode:
  folder = ROOT / "labs" / "exercises" / (lang or "")
  return nbformat.read(folder / f"{name}.ipynb", as_version=4)


def test_the_french_stub_raises_the_french_hint():
  notebook = _notebook("fr", "forget_user")
  stub = notebook.cells[1].source
  namespace: dict = {}
  exec(compile(stub, "forget_user stub", "exec"), namespace)
  import asyncio

  with pytest.raises(NotImplementedError) as raised:
    asyncio.run(namespace["forget_user"](None, "", "", ""))
  entries, _ = ex.load(ex.translation_path("fr", "forget_user"), "fr")
  french = " ".join(entries["hint-1"].text.split())
  assert " ".join(str(raised.value).split()) == french
  assert str(raised.value).startswith("Quand la fonction rend la main, le fichier")
  assert "\u00a0" in notebook.cells[2].source  # French typography survives into the notebook


@pytest.mark.parametrize("lang,name", PAIRS)
def test_the_code_is_the_english_code(lang, name):
  """Same cells, ids and kinds; the stub is the English stub but for its hint (and, at module
  level, the hint's comments); the self-check calls run_exercise_checks as in English."""
  english, translated = _notebook("", name), _notebook(lang, name)
  nbformat.validate(translated)
  assert [(c.id, c.cell_type) for c in translated.cells] == \
      [(c.id, c.cell_type) for c in english.cells]
  ours, theirs = translated.cells[1].source, english.cells[1].source
  english_hint = _stub_message(theirs, name)
  assert _stub_message(ours, name) != english_hint  # translated
  hint_line = re.compile(r"^\s*raise NotImplementedError\(.*\)$|^# .*$", re.MULTILINE)
  assert hint_line.sub("", ours).split() == hint_line.sub("", theirs).split()
  assert ast.dump(ast.parse(_without_messages(ours))) == ast.dump(
      ast.parse(_without_messages(theirs)))
  strip = lambda code: [re.sub(r"\s*#.*$", "", line) for line in code.splitlines()]
  assert strip(translated.cells[3].source) == strip(english.cells[3].source)
  assert f"run_exercise_checks({name!r}, {name})" in translated.cells[3].source
  assert translated.cells[3].source != english.cells[3].source  # its comments are translated
  assert translated.cells[0].source.split("\n", 1)[1] != english.cells[0].source.split("\n", 1)[1]
  assert translated.metadata["adkcourse"]["language"] == lang
  assert translated.metadata["adkcourse"]["source"] == f"../{name}.ipynb"
  assert json.loads((ROOT / "labs" / "exercises" / lang / f"{name}.ipynb").read_text(
      encoding="utf-8"))["cells"][0]["id"] == f"{name}-0"


def _without_messages(code: str) -> str:
  """The code with every NotImplementedError message blanked (comments vanish in the AST)."""
  return re.sub(r"raise NotImplementedError\(.*\)$", "raise NotImplementedError('')", code,
                flags=re.MULTILINE)


def test_a_hint_without_a_current_translation_stays_english(tree):
  source = tree / "exercises" / "forget_user.py"
  source.write_text(source.read_text(encoding="utf-8").replace(
      "### HINT: user, app and app state must be unchanged.",
      "### HINT: user, app and app state must be left alone."), encoding="utf-8")
  (tree / "labs" / "exercises").mkdir(parents=True)
  notebook = json.loads(generator.expected_files(tree)[
      tree / "labs" / "exercises" / "fr" / "forget_user.ipynb"])
  stub = "".join(notebook["cells"][1]["source"])
  assert _stub_message(stub, "forget_user").endswith("must be left alone.")
  assert "".join(notebook["cells"][0]["source"]).splitlines()[1].startswith("# Exercice")


def test_the_generated_translated_notebooks_are_up_to_date_and_checked(tree):
  assert generator.stale_files(ROOT) == []
  for folder in ("solutions", "labs/exercises"):
    shutil.copytree(ROOT / folder, tree / folder, ignore=shutil.ignore_patterns("__pycache__"))
  assert generator.stale_files(tree) == []
  path = ex.translation_path("id", "forget_user", tree / "translations")
  path.write_text(path.read_text(encoding="utf-8").replace("Seorang siswa meminta tutor",
                                                           "Seorang siswa meminta si tutor"),
                  encoding="utf-8")
  (tree / "labs" / "exercises" / "fr" / "copy_user_to.ipynb").unlink()
  old = tree / "labs" / "exercises" / "de"
  old.mkdir()
  shutil.copy(tree / "labs" / "exercises" / "fr" / "forget_user.ipynb", old / "forget_user.ipynb")
  assert generator.stale_files(tree) == [
      "missing: labs/exercises/fr/copy_user_to.ipynb",
      "out of date: labs/exercises/id/forget_user.ipynb",
      "orphaned (its language is not a course language): labs/exercises/de/forget_user.ipynb"]


def test_translated_lessons_send_students_to_their_own_exercise():
  for lang in LANGUAGES:
    text = (ROOT / "notebooks" / lang / "02_sqlite_memory.ipynb").read_text(encoding="utf-8")
    assert f"labs/exercises/{lang}/forget_user.ipynb" in text
    assert "labs/exercises/forget_user.ipynb" not in text
    assert (ROOT / "labs" / "exercises" / lang / "forget_user.ipynb").exists()
  cell = ("Contract: `labs/exercises/forget_user.ipynb`; [open it](../labs/exercises/"
          "forget_user.ipynb#top); `labs/exercises/forget_user.py` and `labs/exercises/x.ipynb`.")
  assert lesson_tr.relink(cell, set(), "fr", {"forget_user"}) == (
      "Contract: `labs/exercises/fr/forget_user.ipynb`; [open it](../../labs/exercises/fr/"
      "forget_user.ipynb#top); `labs/exercises/forget_user.py` and `labs/exercises/x.ipynb`.")
  assert lesson_tr.relink(cell, set()) == cell.replace("(../labs", "(../../labs")
  assert lesson_tr.exercise_names() == set(EXERCISES)


def test_the_cli_accepts_an_exercise_text(tree):
  """`accept fr forget_user statement`, run on a copy of the course (its own package, so its
  REPO_ROOT is the copy): refused while the text is untouched, done with --unchanged."""
  import os
  import subprocess

  shutil.copytree(ROOT / "adkcourse", tree / "adkcourse",
                  ignore=shutil.ignore_patterns("__pycache__"))
  source = tree / "exercises" / "forget_user.py"
  source.write_text(source.read_text(encoding="utf-8").replace(
      "A student asks the tutor to forget them.", "A student asks the tutor to forget them now."),
      encoding="utf-8")

  def accept(*extra: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "adkcourse.i18n", "accept", "fr", "forget_user",
                           "statement", *extra], cwd=tree, capture_output=True, text=True,
                          env={**os.environ, "PYTHONPATH": str(tree)}, timeout=120)

  refused = accept()
  assert refused.returncode == 1 and "accepted before" in refused.stderr
  done = accept("--unchanged")
  assert done.returncode == 0, done.stderr
  assert "accepted 1 texts of forget_user (fr)" in done.stderr
  entries, _ = ex.load(ex.translation_path("fr", "forget_user", tree / "translations"), "fr")
  assert entries["statement"].hash == source_hash(
      ex.english_texts("forget_user", tree / "exercises")["statement"])
  assert "forget them now." in entries["statement"].en
  assert [f.where for f in _findings(tree, "fr")] == []
  unknown = subprocess.run([sys.executable, "-m", "adkcourse.i18n", "accept", "fr", "forget_user",
                            "hint-9"], cwd=tree, capture_output=True, text=True,
                           env={**os.environ, "PYTHONPATH": str(tree)}, timeout=120)
  assert unknown.returncode == 1 and "no text 'hint-9'" in unknown.stderr
