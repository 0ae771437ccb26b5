"""How feedback names ids and values: as a student reads them, without Python's escapes."""

from __future__ import annotations

from adkcourse.grade.checks._observe import describe_key, quote


def test_an_apostrophe_is_shown_as_typed():
  assert quote("D'Arcy") == "“D'Arcy”"
  assert quote("D'Arcy \"Jr\"") == "“D'Arcy \"Jr\"”"
  assert "\\" not in describe_key(("db", "table", "sessions", "cafe", "D'Arcy", "s1"))


def test_what_cannot_be_seen_is_escaped_and_what_can_stays():
  assert quote(" ana") == "“ ana”"  # padding visible between the quotes
  assert quote("a\x00b") == "“a\\x00b”"
  assert quote("a\u00a0b") == "“a\\xa0b”"  # a no-break space is not a space
  assert quote("\ud800") == "“\\ud800”"
  assert quote("cafe\u0301") == "“cafe\u0301” (not in NFC form)"  # looks like its NFC twin
  assert quote("café") == "“café”"


def test_quotes_of_the_same_kind_inside_fall_back_to_json_and_other_values_to_repr():
  assert quote("a“b”") == '"a“b”"'
  assert quote(3) == "3" and quote(None) == "None" and quote(("a",)) == "('a',)"
