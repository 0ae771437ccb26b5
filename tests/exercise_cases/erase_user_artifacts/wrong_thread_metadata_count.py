"""Blocking work in a thread; counts the metadata.json of published versions (and numbered
links to folders), removes both trees. Wrong: a version folder without metadata.json, or
named as int() reads and ADK never writes (" 7", "+9"), is still one list_versions counts;
and a linked artifacts/ folder is followed (rmtree raises on it)."""

LOSES = ("count_returned",)

import asyncio
import os
import re
import shutil

VERSION = re.compile(r"(^|/)versions/\d+$")


def erase(root, user_id, app_names):
  total = 0
  for app in sorted(set(app_names)):
    base = os.path.join(root, "apps", app, "users", user_id)
    for part in ("artifacts", "sessions"):
      top = os.path.join(base, part)
      for current, _folders, files in os.walk(top):
        relative = os.path.relpath(current, top).replace(os.sep, "/")
        if "metadata.json" in files and VERSION.search(relative):
          total += 1
        if os.path.basename(current) == "versions":  # a numbered link to a folder is one too,
          total += sum(1 for name in _folders if name.isdigit()  # one os.walk never enters
                       and os.path.islink(os.path.join(current, name)))
      if os.path.isdir(top):
        shutil.rmtree(top)
  return total


async def erase_user_artifacts(artifact_service, session_service, user_id, app_names):
  return await asyncio.to_thread(erase, str(artifact_service.root_dir), user_id, list(app_names))
