"""YAML written for people: multi-line texts as literal blocks, keys in a stable order.

The tools rewrite translation files (``scaffold``, ``accept``); writing them always the same way
keeps diffs small and the files easy to edit by hand. Comments a translator adds inside a file
are not kept by these rewrites: notes about a translation belong in the commit message.
"""

from __future__ import annotations

from typing import Any

import yaml


class _Dumper(yaml.SafeDumper):
  pass


_LINE_BREAKS = ("\r", "\x85", "\u2028", "\u2029")
"""Characters YAML reads as line breaks in a block: such a text is written quoted, escaped."""


def _text(dumper: yaml.SafeDumper, value: str) -> yaml.ScalarNode:
  if any(mark in value for mark in _LINE_BREAKS):
    return dumper.represent_scalar("tag:yaml.org,2002:str", value, style='"')
  if "\n" in value:
    # Literal blocks cannot hold trailing spaces on a line; those carry no meaning in Markdown
    # except a hard line break, which the lessons do not use.
    value = "\n".join(line.rstrip() for line in value.split("\n"))
    return dumper.represent_scalar("tag:yaml.org,2002:str", value, style="|")
  if len(value) > 70 and value == value.strip() and "  " not in value:
    # A long one-line text reads best folded over several lines (YAML joins them with spaces).
    return dumper.represent_scalar("tag:yaml.org,2002:str", value, style=">")
  return dumper.represent_scalar("tag:yaml.org,2002:str", value)


_Dumper.add_representer(str, _text)


def dump(data: Any, header: str = "") -> str:
  """``data`` as YAML, after ``header`` (comment lines)."""
  body = yaml.dump(data, Dumper=_Dumper, allow_unicode=True, sort_keys=False, width=100,
                   default_flow_style=False)
  return header + body
