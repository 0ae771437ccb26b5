"""The translated pages (README, instructor guide, troubleshooting) are current, keep the English
commands and code, and link to what exists: adkcourse/i18n/pages.py.

Why these checks: a French or Indonesian reader follows the translated page alone. A page made
from an older English text, a command reworded in translation, or a link to a heading that was
renamed in translation would mislead them without anyone noticing.
"""

from __future__ import annotations

import re
import shutil
import unicodedata
from pathlib import Path

import pytest

from adkcourse.i18n import LANGUAGES, pages, source_hash

ROOT = Path(__file__).resolve().parent.parent
LESSON_ONE = "01_sessions_events_state.ipynb"  # what the README's first command opens
LANGS = sorted(LANGUAGES)
PAIRS = [(lang, source) for lang in LANGS for source, _ in pages.PAGES]
FENCE = re.compile(r"^```([^\n]*)\n(.*?)^```", re.MULTILINE | re.DOTALL)
LINK = re.compile(r"\]\(([^)\s]+)\)")
HEADING = re.compile(r"^#{1,6} (.+?)\s*$", re.MULTILINE)
ANCHOR = re.compile(r'<a id="([^"]+)"></a>')


def _copy(tmp_path: Path, lang: str = "fr") -> Path:
  """The English pages and ``lang``'s translations, alone in a throwaway root."""
  for source, pattern in pages.PAGES:
    for name in (source, pattern.format(lang=lang)):
      (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
      shutil.copyfile(ROOT / name, tmp_path / name)
  return tmp_path


def _slug(heading: str) -> str:
  """GitHub's anchor for a heading (github-slugger): lower case, markup and punctuation out,
  each space a hyphen; a no-break space is punctuation to it, so it disappears."""
  text = re.sub(r"`|\*\*|\[([^\]]*)\]\([^)]*\)", r"\1", heading).lower()
  return "".join(c for c in text if c.isalnum() or c in "_- " or
                 unicodedata.category(c).startswith("M")).replace(" ", "-")


def _anchors(text: str) -> set[str]:
  found, seen = set(ANCHOR.findall(text)), {}
  body = FENCE.sub("", text)
  for heading in HEADING.findall(body):
    slug = _slug(heading)
    count = seen.get(slug, 0)
    seen[slug] = count + 1
    found.add(slug if count == 0 else f"{slug}-{count}")
  return found


@pytest.mark.parametrize("lang", LANGS)
def test_the_pages_are_current(lang):
  found = pages.findings(lang)
  assert not found, "\n".join(map(str, found))


@pytest.mark.parametrize("lang,source", PAIRS)
def test_every_english_code_block_is_kept_as_it_is(lang, source):
  english = FENCE.findall((ROOT / source).read_text(encoding="utf-8"))
  translated = FENCE.findall((ROOT / pages.translated_path(source, lang)).read_text(encoding="utf-8"))
  # A page opens its own language's lessons where the English opens the English ones (the
  # README's first command: test_translations checks it): the same block otherwise.
  rest = iter((tag, body.replace(f"notebooks/{lang}/{LESSON_ONE}", f"notebooks/{LESSON_ONE}")) for tag, body in translated)
  lost = [block for block in english if block not in rest]  # in order; extra blocks allowed
  assert not lost, f"{pages.translated_path(source, lang)} changed or lost: {lost[0][1][:300]}"


@pytest.mark.parametrize("lang,source", PAIRS)
def test_links_lead_somewhere(lang, source):
  page = ROOT / pages.translated_path(source, lang)
  text = page.read_text(encoding="utf-8")
  broken = []
  for target in LINK.findall(FENCE.sub("", text)):
    if re.match(r"[a-z]+:", target):
      continue
    path, _, anchor = target.partition("#")
    file = (page.parent / path).resolve() if path else page
    if not file.exists():
      broken.append(target)
    elif anchor and file.suffix == ".md" and anchor not in _anchors(file.read_text(encoding="utf-8")):
      broken.append(target)
  assert not broken, f"{page.relative_to(ROOT)}: links to nothing: {broken}"


def test_a_copy_of_the_course_is_current(tmp_path):
  assert pages.findings("fr", _copy(tmp_path)) == []


def test_a_changed_english_page_makes_its_translation_stale(tmp_path):
  root = _copy(tmp_path)
  english = root / "docs" / "troubleshooting.md"
  english.write_text(english.read_text(encoding="utf-8") + "\nOne more sentence.\n", encoding="utf-8")
  found = pages.findings("fr", root)
  assert [(f.kind, Path(f.file).name, f.line) for f in found] == [
    ("stale", "troubleshooting.fr.md", 1)]
  assert source_hash(english.read_text(encoding="utf-8")) in found[0].message
  page = root / "docs" / "troubleshooting.fr.md"
  lines = page.read_text(encoding="utf-8").split("\n")
  page.write_text("\n".join([pages.header("docs/troubleshooting.md", root), *lines[1:]]),
                  encoding="utf-8")
  assert pages.findings("fr", root) == []


def test_trailing_spaces_in_english_change_nothing(tmp_path):
  root = _copy(tmp_path)
  readme = root / "README.md"
  readme.write_text(readme.read_text(encoding="utf-8").replace("\n", "  \n", 3), encoding="utf-8")
  assert pages.findings("fr", root) == []


def test_a_page_without_the_header_is_invalid(tmp_path):
  root = _copy(tmp_path)
  page = root / "docs" / "instructors.fr.md"
  page.write_text(page.read_text(encoding="utf-8").split("\n", 1)[1], encoding="utf-8")
  found = pages.findings("fr", root)
  assert [(f.kind, Path(f.file).name) for f in found] == [("invalid", "instructors.fr.md")]
  assert pages.header("docs/instructors.md", root) in found[0].message


def test_a_header_naming_another_page_is_invalid(tmp_path):
  root = _copy(tmp_path)
  page = root / "docs" / "instructors.fr.md"
  lines = page.read_text(encoding="utf-8").split("\n")
  page.write_text("\n".join([pages.header("README.md", root), *lines[1:]]), encoding="utf-8")
  found = pages.findings("fr", root)
  assert [(f.kind, Path(f.file).name) for f in found] == [("invalid", "instructors.fr.md")]
  assert "README.md" in found[0].message


def test_a_page_not_translated_yet_is_missing(tmp_path):
  root = _copy(tmp_path)
  (root / "README.fr.md").unlink()
  found = pages.findings("fr", root)
  assert [(f.kind, f.file.endswith("README.fr.md")) for f in found] == [("missing", True)]
  assert [f.kind for f in pages.findings("xx", root)] == ["missing"] * len(pages.PAGES)


def test_the_slug_rule_matches_github():
  assert _slug("Using your own PostgreSQL server") == "using-your-own-postgresql-server"
  assert _slug("1. \"Session not found\" from the Runner") == "1-session-not-found-from-the-runner"
  assert _slug("Pour qui\u00a0? Les `user:` préfixes") == "pour-qui-les-user-préfixes"
