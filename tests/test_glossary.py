"""The glossaries (translations/<lang>/glossary.yaml) and their check (adkcourse/i18n/glossary.py):
every translated text keeps to one form per English term, and a drifting form is reported with
its file, line and entry, never a form inside code."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from adkcourse.i18n import LANGUAGES, TRANSLATIONS_DIR
from adkcourse.i18n import glossary

GLOSSARY = """\
language: fr
terms:
  advisory lock:
    use: verrou informatif
    avoid: [verrou consultatif]
  retention:
    use: durée de conservation
    avoid: [conservation, rétention]
  app:
    use: application
    avoid: [app]
  (app, user):
    use: (application, utilisateur)
    avoid: ["(app, utilisateur)"]
"""

LESSON = """\
lesson: 03_postgres
language: fr
cells:
  3e9a0b6c:
    hash: 000000000000
    en: |-
      An advisory lock, a verrou consultatif.
    text: |-
      ## Titre

      Un `verrou consultatif` en code, puis un verrou
      consultatif en prose.
    text_hash: 000000000000
"""


@pytest.fixture
def root(tmp_path: Path) -> Path:
  """A translations folder with one French glossary and one lesson file."""
  (tmp_path / "fr" / "notebooks").mkdir(parents=True)
  (tmp_path / "fr" / "glossary.yaml").write_text(GLOSSARY, encoding="utf-8")
  (tmp_path / "fr" / "notebooks" / "03_postgres.yaml").write_text(LESSON, encoding="utf-8")
  return tmp_path


def _terms(found: list) -> list:
  return [f for f in found if f.kind == "term"]


@pytest.mark.parametrize("lang", sorted(LANGUAGES))
def test_every_translated_text_keeps_to_the_glossary(lang):
  assert glossary.glossary_path(lang).exists(), f"translations/{lang}/glossary.yaml is missing"
  assert glossary.load(lang), f"translations/{lang}/glossary.yaml has no terms"
  found = glossary.findings(lang)
  assert not found, "\n".join(map(str, found))


@pytest.mark.parametrize("lang", sorted(LANGUAGES))
def test_the_check_reads_lessons_quizzes_and_the_widget(lang):
  files = {Path(t.file).parent.name for t in glossary.translated_texts(lang)}
  assert {"notebooks", "quizzes", "quiz"} <= files, files
  assert not any(Path(t.file).name in glossary.SKIPPED_FILES for t in glossary.translated_texts(lang))


def test_a_drifting_form_is_reported_with_file_line_and_entry(root):
  (finding,) = _terms(glossary.findings("fr", root))
  assert finding.file.endswith("fr/notebooks/03_postgres.yaml")
  assert finding.where == "3e9a0b6c"
  assert finding.line == 11, "the line where the match starts, inside the `text: |-` block"
  assert '"verrou consultatif"' in finding.message and '"verrou informatif"' in finding.message
  assert "advisory lock" in str(finding) and "[term]" in str(finding)


def test_the_english_and_code_are_not_read(root):
  path = root / "fr" / "notebooks" / "03_postgres.yaml"
  path.write_text(LESSON.replace("puis un verrou\n      consultatif en prose", "puis rien"),
                  encoding="utf-8")
  assert glossary.findings("fr", root) == [], "the `en:` text and the code span hold the form"


@pytest.mark.parametrize("text", [
    "un `verrou consultatif`",
    "```sql\nSELECT 'verrou consultatif';\n```",
    "[lien](https://example.org/verrou consultatif)",
    "la clé `app:` et l'app:) oubliée",
    "session.app et app(x)",
    "la table (*app*) en anglais",
    "GRANT ALL ON APP",
])
def test_a_form_in_code_a_url_an_identifier_or_a_gloss_is_not_reported(root, text):
  path = root / "fr" / "notebooks" / "03_postgres.yaml"
  body = "\n".join("      " + line for line in text.split("\n"))
  path.write_text(LESSON.split("    text: |-")[0] + "    text: |-\n" + body + "\n",
                  encoding="utf-8")
  assert _terms(glossary.findings("fr", root)) == []


def test_plural_case_apostrophe_and_a_wrapped_line_still_match(root):
  path = root / "fr" / "quizzes" / "03_postgres.yaml"
  path.parent.mkdir()
  path.write_text("bank: 03_postgres\nlanguage: fr\nquestions:\n  q1:\n    hash: abc\n"
                  "    question: Deux Verrous\n      Consultatifs et l’app ?\n"
                  "    options:\n    - une durée de conservation\n    - la rétention\n",
                  encoding="utf-8")
  found = sorted((f.where, f.message.split('"')[1]) for f in _terms(glossary.findings("fr", root))
                 if "quizzes" in f.file)
  assert found == [("q1", "Verrous Consultatifs"), ("q1", "app"), ("q1", "rétention")]


def test_the_longer_form_is_reported_once(root):
  path = root / "fr" / "notebooks" / "03_postgres.yaml"
  path.write_text(LESSON.replace("puis un verrou\n      consultatif en prose",
                                 "par couple (app, utilisateur)"), encoding="utf-8")
  (finding,) = _terms(glossary.findings("fr", root))
  assert '"(app, utilisateur)"' in finding.message


def test_new_sub_folders_and_the_widget_are_read(root, tmp_path):
  (root / "fr" / "exercises").mkdir()
  (root / "fr" / "exercises" / "forget_user.yaml").write_text(
      "exercise: forget_user\nlanguage: fr\nhints:\n  first: une purge de rétention\n",
      encoding="utf-8")
  messages = tmp_path / "messages.py"
  messages.write_text('MESSAGES = {\n    "kind_single": {\n', encoding="utf-8")
  found = _terms(glossary.findings("fr", root, messages))
  assert sorted((Path(f.file).name, f.where) for f in found) == [
      ("03_postgres.yaml", "3e9a0b6c"), ("forget_user.yaml", "first")]


def test_a_widget_text_is_reported_with_its_key(root, tmp_path, monkeypatch):
  from adkcourse.quiz import messages
  monkeypatch.setitem(messages.MESSAGES, "kind_single", {"en": "choose one",
                                                         "fr": "choisissez une app"})
  source = tmp_path / "messages.py"
  source.write_text('MESSAGES = {\n    "kind_single": {\n', encoding="utf-8")
  found = [f for f in _terms(glossary.findings("fr", root, source)) if f.where == "kind_single"]
  assert len(found) == 1 and found[0].line == 2 and found[0].file.endswith("messages.py")


@pytest.mark.parametrize("glossary_text, why", [
    ("language: fr\nterms:\n  checkpoint: point de contrôle\n", "term `checkpoint`: must be a mapping"),
    ("language: fr\nterms:\n  checkpoint:\n    avoid: [checkpoint]\n", "term `checkpoint`: `use:`"),
    ("language: fr\nterms:\n  lock:\n    use: verrou\n    avoid: verrou consultatif\n",
     "term `lock`: `avoid:` must be a list"),
    ("language: fr\nterms:\n  lock:\n    use: verrou\n    avoid: [Verrou]\n", "the `use:` form itself"),
    ("language: fr\nterms:\n  lock:\n    use: verrou\n    avoir: [x]\n", "unknown key `avoir`"),
    ("language: id\nterms: {}\n", "`language:` is 'id'"),
    ("language: fr\nterms:\n  lock:\n    use: a\n  lock:\n    use: b\n", "`lock` is written twice"),
    ("language: fr\nterms: [\n", "YAML syntax error"),
])
def test_a_malformed_glossary_is_an_error_naming_the_file(root, glossary_text, why):
  (root / "fr" / "glossary.yaml").write_text(glossary_text, encoding="utf-8")
  (finding,) = glossary.findings("fr", root)
  assert finding.kind == "invalid" and finding.file.endswith("fr/glossary.yaml")
  assert why in finding.message, finding.message


def test_no_glossary_means_nothing_to_check(root):
  (root / "fr" / "glossary.yaml").unlink()
  assert glossary.findings("fr", root) == []


def test_the_repository_glossary_catches_a_drift_in_a_copy(tmp_path):
  """The real French glossary, on a copy of the real lesson with the reviewers' drift put back."""
  copy = tmp_path / "translations"
  # The lessons and the glossary only: other files of the folder are someone else's work in progress.
  shutil.copytree(TRANSLATIONS_DIR / "fr" / "notebooks", copy / "fr" / "notebooks")
  shutil.copy(TRANSLATIONS_DIR / "fr" / "glossary.yaml", copy / "fr" / "glossary.yaml")
  assert _terms(glossary.findings("fr", copy)) == []
  path = copy / "fr" / "notebooks" / "03_postgres.yaml"
  text = path.read_text(encoding="utf-8")
  assert "verrou informatif" in text
  path.write_text(text.replace("verrou informatif", "verrou consultatif", 1), encoding="utf-8")
  found = _terms(glossary.findings("fr", copy))
  assert len(found) == 1 and found[0].file.endswith("03_postgres.yaml"), found
