"""Keeps sub-folders that look like a user's: `ana/old` of `ana/old/x` is not, and goes with x.

Clears the user's folder except sub-folders that 'look like' another user (have artifacts/ or sessions/ inside).
"""

import os, shutil
from pathlib import Path

def _count(folder):
  n = 0
  for cur, dirs, _ in os.walk(folder):
    if os.path.basename(cur) == "versions":
      n += sum(1 for d in dirs if d.isdigit())
  return n

async def erase_user_artifacts(artifact_service, session_service, user_id, app_names):
  total = 0
  for app in dict.fromkeys(app_names):
    base = Path(artifact_service.root_dir) / "apps" / app / "users" / user_id
    if not base.is_dir():
      continue
    for e in os.scandir(base):
      p = Path(e.path)
      if e.is_symlink() or not e.is_dir(follow_symlinks=False):
        p.unlink(); continue
      if e.name not in ("artifacts", "sessions") and ((p / "artifacts").exists() or (p / "sessions").exists()):
        continue  # another user's folder, e.g. "ana/x"
      total += _count(p)
      shutil.rmtree(p)
  return total
