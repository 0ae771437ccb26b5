"""Exercise (lesson 7, artifacts): erase one user's files.

A customer asks the café to delete every file its agents kept for them. Write

    async def erase_user_artifacts(artifact_service, session_service, user_id: str,
                                   app_names: list[str]) -> int

where ``artifact_service`` is the ``FileArtifactService`` the agents save their files with (its
folder is ``artifact_service.root_dir``) and ``session_service`` the ``SqliteSessionService``
of their conversations. For each app in ``app_names``, ADK keeps the user's files in the folder
``apps/<app>/users/<user_id>/`` under the root: their ``user:`` files (saved as ``user:name``,
or with no session at all) in ``artifacts/``, each session's files in
``sessions/<session_id>/artifacts/``, each file as ``<name>/versions/<n>/`` folders. When the
function returns:

1. in every app of ``app_names``, nothing of the user's files is left: no version of any
   ``user:`` file, no version of any file of any of their sessions, including sessions the
   session service no longer lists (``delete_session`` leaves a session's files on disk), and
   no staging folder a save that never finished left (``versions/.<n>.pending/``). No
   ``versions`` folder of theirs is left either: ``FileArtifactService`` lists an artifact
   wherever one is, even empty. A symbolic link in their ``artifacts/`` or ``sessions/``, or
   either folder itself when it is a link, is theirs too: remove the link itself, never what
   it points to (ADK would list what is behind it as theirs; it is not, and it stays);
2. it returns the number of versions it erased, an ``int``: each ``versions/<n>/`` folder
   counts once, as ``list_versions`` counts them: an entry of a ``versions`` folder that is a
   folder, or a link to one, whose name ``int()`` reads (`` 7`` and ``+9`` too, which ADK
   never writes but counts; not ``²``, a digit ``int()`` refuses; a version holding a rewind's empty
   tombstone counts; a staging folder does not, nor a folder with another name, a file or a
   link to a file, nor anything behind a link above it, a linked session folder's), an app
   named twice in ``app_names`` once, and an app where the user has nothing adds 0: a user with nothing in
   these apps gets ``0``, not ``None``;
3. everything else is exactly as it was, byte for byte, with its permission bits and its
   links (a link stays a link, to the same target; a file of the user's may be a hard link of
   another's, which stays as it was):
   - every other user's files and folders, empty folders included. Ids are compared exactly:
     another case, a space around the id, another Unicode form (``é`` composed, or ``e`` +
     U+0301) or glob characters (``ana*`` and ``anabel``, ``[a]na`` and ``ana``) make another
     user; so does an id with a slash, ``ana/x``, whose folder ``apps/<app>/users/ana/x/`` lies
     inside ``ana``'s, or ``ana/x/y``, also when nobody is ``ana/x`` (and a user may have no
     ``sessions/`` folder): only ``artifacts/`` and ``sessions/`` in ``ana``'s folder are
     ``ana``'s;
   - the user's files in apps not named, whatever their names look like: app names are
     compared exactly too (``cafe_2_beta``, ``CAFE_2``, ``Cafe_2``, `` cafe_2``, ``cafe_2/v2``
     are not ``cafe_2``, nor is ``café_2`` composed the same app as decomposed), and two names
     in ``app_names`` that differ only so are two apps, both erased;
   - the apps' own folders, ``apps/<app>/`` and ``apps/<app>/users/``, even in an app where
     the user was the only one;
   - the session store: every session (the user's too: this erases files, not
     conversations), event (with its ``artifact_delta``) and state;
   - and no copy of what is erased is kept, nor any other file or folder made: not in the
     artifact folder (a trash folder in the user's own is one), next to the session store, in
     the temporary or the home folder, nor anywhere else;
4. the user's own folders, ``apps/<app>/users/<user_id>/`` and the folders in it (another
   user's folder inside it excepted), and for an id with a slash the folders on the way to it
   that are nobody else's (``users/team/`` for ``team/ana``), may be left empty or removed:
   apart from ``versions`` folders (see 1), either is right. Nothing new may be left in them.

``user_id`` and every app name are ones ADK accepts; ids it would store in the same folder as
another (``ana/``, ``./ana``) are not used. How you get there is your decision: the services'
APIs, the files themselves, or both. The checks look only at the result, on fresh data with new
names on every run.

Check yourself in a notebook:

    from adkcourse.grade import run_exercise_checks
    report = await run_exercise_checks("erase_user_artifacts", erase_user_artifacts)
    report   # score, what happened, and every check's feedback
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path


### HINT: A helper that counts the versions in a folder may help: list_versions counts every
### HINT: folder with a number for a name in an artifact's versions folder.
### BEGIN SOLUTION
def _count_versions(folder: Path) -> int:
  """The versions under ``folder`` as ``list_versions`` counts them: each folder whose name is
  a number, in a ``versions`` folder (``.3.pending``, a save's staging folder, is none)."""
  count = 0
  for current, folders, _files in os.walk(folder):
    if os.path.basename(current) == "versions":
      count += sum(1 for name in folders if _is_number(name))
  return count


def _is_number(name: str) -> bool:
  try:
    int(name)
  except ValueError:
    return False
  return True
### END SOLUTION


async def erase_user_artifacts(artifact_service, session_service, user_id: str,
                               app_names: list[str]) -> int:
  """Erase every file one user has in these apps (user: files, every session's, deleted
  sessions' too) and return the number of versions erased."""
  ### HINT: For each app, the user's files are in two folders under artifact_service.root_dir;
  ### HINT: the session service does not know every session that has files. Count the versions
  ### HINT: before you delete them, and touch nothing outside those two folders.
  ### BEGIN SOLUTION
  erased = 0
  for app_name in dict.fromkeys(app_names):  # an app named twice is erased and counted once
    # The folder FileArtifactService keeps (app, user) in, joined the way it joins it.
    user_folder = Path(artifact_service.root_dir) / "apps" / app_name / "users" / user_id
    # Only these two are the user's: an id with a slash ("ana/x") is another user, whose folder
    # lies inside this one. sessions/ holds every session's files, the ones delete_session left
    # behind included (the session service no longer lists those).
    for scope in (user_folder / "artifacts", user_folder / "sessions"):
      if scope.is_symlink():  # the folder itself a link: remove it, count nothing behind it
        scope.unlink()
        continue
      erased += _count_versions(scope)
      shutil.rmtree(scope, ignore_errors=True)
  return erased
  ### END SOLUTION
