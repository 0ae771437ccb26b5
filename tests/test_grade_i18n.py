"""The self-check and the grader in the student's language, every translated text tracked
against its English (``adkcourse/grade/wording.py``, ``adkcourse/i18n/grader.py``).

Translations are read from a copy (``wording.ROOT`` pointed at ``tmp_path``), never changed in
the repository; the command's tests replace grading by ready-made reports (no sandbox), as
``tests/test_grade_lms.py`` does.
"""

from __future__ import annotations

import asyncio
import csv
import io
import shutil
from pathlib import Path

import pytest

import adkcourse.grade.__main__ as cli
from adkcourse.grade import wording
from adkcourse.grade.checks import get_exercise, run_exercise_checks
from adkcourse.grade.runner import Graded
from adkcourse.i18n import TRANSLATIONS_DIR, source_hash
from adkcourse.i18n import grader as tracked
from adkcourse.i18n.yamlio import dump

NBSP = "\u00a0"
REQUIRES_FR = "Il ne reste dans l'application aucune session de cet utilisateur."


@pytest.fixture
def root(tmp_path, monkeypatch):
  """A copy of the grader's records, with French check texts for forget_user's first check."""
  copy = tmp_path / "translations"
  for lang in ("fr", "id"):
    (copy / lang).mkdir(parents=True)
    shutil.copy(TRANSLATIONS_DIR / lang / "grader.yaml", copy / lang / "grader.yaml")
  english = get_exercise("forget_user").checks[0].requires
  write_checks(copy, "fr", "forget_user", {"sessions_removed.requires": {
      "hash": source_hash(english), "en": english, "text": REQUIRES_FR,
      "text_hash": source_hash(REQUIRES_FR)}})
  monkeypatch.setattr(wording, "ROOT", copy)
  return copy


def write_checks(root: Path, lang: str, exercise: str, entries: dict) -> Path:
  path = root / lang / "checks" / f"{exercise}.yaml"
  path.parent.mkdir(parents=True, exist_ok=True)
  path.write_text(dump({"exercise": exercise, "language": lang, "checks": entries}),
                  encoding="utf-8")
  return path


async def forget_user(service, db_path, app_name, user_id):  # the stub a student starts from
  raise NotImplementedError


def test_every_message_has_every_language_with_the_same_placeholders():
  for key, row in wording.MESSAGES.items():
    assert set(row) == set(wording.LANGUAGES), key
    assert len({frozenset(wording.placeholders(text)) for text in row.values()}) == 1, key


def test_french_sentences_keep_french_typography():
  for key, row in wording.MESSAGES.items():
    text = row["fr"].replace("`", "")
    for mark in ":;?!":
      assert f" {mark}" not in text, (key, mark)  # a plain space: the no-break one is due
    assert "« " not in text and " »" not in text, key


def test_the_records_in_the_repository_are_current():
  for lang in ("fr", "id"):
    assert tracked.message_findings(lang) == []


def test_a_french_self_check_of_the_stub_speaks_french(root, tmp_path):
  report = asyncio.run(run_exercise_checks("forget_user", forget_user, lang="fr", seed=7,
                                           workdir=tmp_path / "work"))
  assert report.lang == "fr" and report.score == 0
  assert report.headline().startswith(f"forget_user{NBSP}: 0 / ")
  assert f"vérifications réussies{NBSP}: 0 sur {len(report.results)}" in report.headline()
  first = report.results[0]
  assert first.feedback == f"pas encore respectée{NBSP}: {REQUIRES_FR}"
  # a check without a French text yet shows its English requires, in the French frame
  second = report.results[1]
  english = get_exercise("forget_user").checks[1].requires.replace("`", "")
  assert second.feedback == f"pas encore respectée{NBSP}: {english}"
  assert any(f"a levé NotImplementedError{NBSP}: le squelette" in n for n in report.notes)
  text = report.to_text()
  assert "Ce qui s'est passé" in text and "vérification" in text and "commentaire" in text
  page = report.to_markdown("ada")
  assert f"# forget\\_user{NBSP}: retour pour ada" in page and "| vérification | points |" in page


def test_an_unknown_language_is_refused_before_anything_runs(tmp_path):
  with pytest.raises(ValueError, match="unknown language 'xx'"):
    asyncio.run(run_exercise_checks("forget_user", forget_user, lang="xx",
                                    workdir=tmp_path / "work"))
  assert not (tmp_path / "work").exists()


def test_a_changed_english_message_makes_its_translation_stale_and_english_shows(
    root, monkeypatch):
  assert wording.say("fr", "not_met_yet", requires="x") == f"pas encore respectée{NBSP}: x"
  monkeypatch.setitem(wording.MESSAGES, "not_met_yet",
                      {**wording.MESSAGES["not_met_yet"], "en": "not met so far: {requires}"})
  found = [f for f in tracked.findings("fr", root) if f.where == "not_met_yet"]
  assert [f.kind for f in found] == ["stale"]
  assert wording.say("fr", "not_met_yet", requires="x") == "not met so far: x"
  assert wording.say("fr", "met_all", count=4) == "respectée dans les 4 mondes"  # the others


def test_a_changed_english_check_text_makes_its_translation_stale_and_english_shows(root):
  exercise = "forget_user"
  english = get_exercise(exercise).checks[0].requires
  assert wording.check_text("fr", exercise, "sessions_removed", "requires", english) == \
      REQUIRES_FR
  old = "No session of the user is left."
  write_checks(root, "fr", exercise, {"sessions_removed.requires": {
      "hash": source_hash(old), "en": old, "text": REQUIRES_FR,
      "text_hash": source_hash(REQUIRES_FR)}})
  found = {f.where: f.kind for f in tracked.check_findings("fr", exercise, root)}
  assert found["sessions_removed.requires"] == "stale"
  assert found["sessions_removed.hint"] == "missing"  # no entry at all
  assert wording.check_text("fr", exercise, "sessions_removed", "requires", english) == english


def test_findings_name_invalid_orphan_and_unaccepted_entries(root):
  exercise = "forget_user"
  english = get_exercise(exercise).checks[0].requires
  path = write_checks(root, "fr", exercise, {
      "sessions_removed.requires": {"hash": source_hash(english), "en": english,
                                    "text": REQUIRES_FR},  # never accepted
      "gone_check.requires": {"hash": "0", "en": "x", "text": "y"},
      "events_removed.requires": {"hash": "0", "colour": "red"}})
  found = {f.where: f for f in tracked.check_findings("fr", exercise, root)}
  assert found["sessions_removed.requires"].kind == "unaccepted"
  assert found["gone_check.requires"].kind == "orphan"
  assert found["events_removed.requires"].kind == "invalid"
  assert "colour" in found["events_removed.requires"].message
  assert str(path.name) in found["events_removed.requires"].file
  (root / "fr" / "checks" / "no_such_exercise.yaml").write_text("language: fr\n")
  assert any(f.kind == "orphan" and "no_such_exercise" in f.file
             for f in tracked.findings("fr", root))
  path.write_text("language: fr\nchecks: [\n", encoding="utf-8")
  broken = tracked.check_findings("fr", exercise, root)
  assert [f.kind for f in broken] == ["invalid"] and broken[0].file.endswith("forget_user.yaml")


def test_scaffold_then_accept_records_the_english_a_text_was_made_from(tmp_path):
  root = tmp_path / "translations"
  added = tracked.scaffold("id", root=root)
  assert added == sum(len(tracked.english_texts(e)) for e in tracked._exercises())
  assert tracked.scaffold("id", root=root) == 0  # nothing twice
  entries, problems = tracked.load_checks("id", "forget_user", root)
  assert not problems and all(e.text == "" for e in entries.values())
  with pytest.raises(ValueError, match="translate `text` first"):
    tracked.accept("id", "checks/forget_user", ["sessions_removed.requires"], root=root)
  entry = entries["sessions_removed.requires"]
  write_checks(root, "id", "forget_user", {entry.id: {
      "hash": entry.hash, "en": entry.en, "text": "Tidak ada sesi milik pengguna yang tersisa."}})
  assert tracked.accept("id", "checks/forget_user", [entry.id], root=root) == [entry.id]
  assert not [f for f in tracked.check_findings("id", "forget_user", root)
              if f.where == entry.id]


def test_read_back_english_sentences_are_said_in_the_language_and_the_rest_stays():
  note = wording.english("raised_where_returns",
                         note=wording.english("raised", name="forget_user", raised="KeyError"))
  assert wording.translate("id", note).startswith("`forget_user` memunculkan KeyError, padahal")
  assert wording.translate("fr", "DELETE FROM sessions") == "DELETE FROM sessions"
  assert wording.translate("fr", "a: b") == "a: b"  # punctuation alone is no sentence
  assert wording.translate("en", note) == note


def fake(monkeypatch, tmp_path, calls: list) -> Path:
  from adkcourse.grade.sandbox import Isolation

  submissions = tmp_path / "submissions"
  submissions.mkdir()
  for name in ("ada.py", "budi.py"):
    (submissions / name).write_text("x = 1\n")

  def grade_all(exercise, subs, **kw):
    calls.append(kw)
    ex = get_exercise(exercise)
    return [Graded(s.student, s.path, ex.zero_report(
        "no function named `forget_user` was found",
        kw["languages"].get(s.student, kw["lang"]))) for s in subs]

  monkeypatch.setattr(cli, "detect", lambda mode: Isolation(enabled=False))
  monkeypatch.setattr(cli, "grade_all", grade_all)
  return submissions


def test_the_command_with_lang_fr_writes_french_pages_and_the_same_csv_header(
    tmp_path, monkeypatch, root):
  calls: list = []
  submissions = fake(monkeypatch, tmp_path, calls)
  out = tmp_path / "grades" / "gradebook.csv"
  roster = tmp_path / "roster.csv"
  roster.write_text("student_id,name,language\nada,Ada,\nbudi,Budi,id\n", encoding="utf-8")
  assert cli.main(["forget_user", str(submissions), "--out", str(out), "--no-progress",
                   "--lang", "fr", "--roster", str(roster)]) == 0
  assert calls[0]["lang"] == "fr" and calls[0]["languages"] == {"budi": "id"}
  table = list(csv.reader(io.StringIO(out.read_text(encoding="utf-8"))))
  assert table[0] == ["student", "exercise", "score", "max_score", "feedback"]
  assert "aucune fonction nommée" in table[1][4] and "tidak ada fungsi bernama" in table[2][4]
  page = (tmp_path / "grades" / "gradebook-feedback" / "ada.md").read_text(encoding="utf-8")
  assert f"**Note{NBSP}: 0 / " in page and "## Ce qui s'est passé" in page
  assert "| vérification | points | obtenus | commentaire |" in page and "non exécutée" in page
  assert "## Votre fichier" in page
  budi = (tmp_path / "grades" / "gradebook-feedback" / "budi.md").read_text(encoding="utf-8")
  assert "## Apa yang terjadi" in budi and "**Nilai: 0 / " in budi


def test_a_roster_language_that_is_not_a_course_language_is_a_usage_error(
    tmp_path, monkeypatch, capsys):
  calls: list = []
  submissions = fake(monkeypatch, tmp_path, calls)
  roster = tmp_path / "roster.csv"
  roster.write_text("student_id,name,language\nada,Ada,fr\nbudi,Budi,klingon\n",
                    encoding="utf-8")
  with pytest.raises(SystemExit) as stopped:
    cli.main(["forget_user", str(submissions), "--out", str(tmp_path / "o.csv"),
              "--roster", str(roster), "--format", "canvas"])
  assert stopped.value.code == 2
  err = capsys.readouterr().err
  assert "line 3" in err and "'klingon'" in err and "en, fr, id" in err
  assert calls == [] and not (tmp_path / "o.csv").exists()  # nothing graded
