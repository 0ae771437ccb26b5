"""Keeps a log of what it erased in a SQLite file under /tmp: a file made outside the world."""

import os
import shutil
import sqlite3

LOSES = ("no_copy_kept",)
LOG = "/tmp/adkcourse-case-leftovers-erase-log.db"


def count_versions(folder: str) -> int:
  """The numbered folders in every versions folder under folder (what list_versions counts)."""
  return sum(1 for current, folders, _ in os.walk(folder) if os.path.basename(current) == "versions"
             for name in folders if name.isdigit())


async def erase_user_artifacts(artifact_service, session_service, user_id, app_names):
  erased = 0
  with sqlite3.connect(LOG) as log:
    log.execute("CREATE TABLE IF NOT EXISTS erased (app TEXT, user TEXT, versions INTEGER)")
    for app in dict.fromkeys(app_names):
      base = os.path.join(artifact_service.root_dir, "apps", app, "users", user_id)
      count = 0
      for scope in ("artifacts", "sessions"):
        count += count_versions(os.path.join(base, scope))
        shutil.rmtree(os.path.join(base, scope), ignore_errors=True)
      log.execute("INSERT INTO erased VALUES (?, ?, ?)", (app, user_id, count))
      erased += count
  log.close()
  return erased
