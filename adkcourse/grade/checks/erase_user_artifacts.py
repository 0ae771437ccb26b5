"""The judge of the lesson-7 exercise ``erase_user_artifacts`` (erase one user's files).

Contract (``exercises/erase_user_artifacts.py``): ``async def erase_user_artifacts(
artifact_service, session_service, user_id, app_names) -> int`` removes, in each app named,
every version of every file of the user kept by a ``FileArtifactService`` (``user:`` files and
the files of every session, sessions the ``SqliteSessionService`` no longer lists included, and
the staging folders of saves that never finished), leaves no ``versions`` folder or link of
theirs (never following one), and returns the number of versions erased (as ``list_versions``
counts them; ``0`` for nothing). Everything else stays byte for byte, with its permission bits:
other users' files and folders, the apps' own folders, the user's files in other apps, the
session store; no copy is made, anywhere. The folders the user had may stay empty or go.

A world is an artifact folder written through ``FileArtifactService`` and a session file
written through ``SqliteSessionService`` (``_world.play``). The user has sessions the service
lists, deleted ones and ones it never held, each with several files of several versions: text
and binary, empty ones, a rewind's tombstone, names with spaces, padding, an emoji, ``é`` in
both Unicode forms, nested (``receipts/2024/march.txt``, ``doc`` beside ``doc/nested.txt``, the
number-like ``draft/1``), one named ``metadata``, a legacy one named ``metadata.json`` (its one
file in its version folder), and ``user:`` files saved from a session or with none (listed
under a bare name that a session file shares), staging folders of killed saves (one with its
metadata.json; one made before a later save, which skipped its number: versions 0, 1, 3) and
one alone. Links in the user's folders, theirs to remove and never to follow: a session folder
that is a link to another user's session, a ``user:`` file that is a link to their own file in
an app not named, in version folders a link to another user's payload and one to nothing.
Beside them: users whose ids a sloppy match confuses with theirs (prefix, case, padding, NFC
and NFD, glob characters and what they match, an id with a slash whose folder lies inside
theirs, the parent of theirs, a backslash twin) holding the same file names and session ids
(``default``), a user two levels inside theirs (``ana/old/x``, nobody is ``ana/old``) with no
``sessions/`` folder, an other user's empty folders, the user in apps not named (a prefix, case
or Unicode twin of a named one, one nested in it, a plain other app). Named apps a normalising
match changes, each beside an app not named that only that match takes for it: two case forms
of one app, both named, whose lower case is another app; a padded, decomposed name whose
stripped and composed forms are other apps. A named app has nobody but the user (its
``users/`` folder stays). In the user's ``versions`` folders, beside the versions: a folder
named with no number, a numbered file and a numbered link to a file (none a version), a
two numbered links to a version folder (one each). One payload of the user's is a hard link of another
user's and of their own in an app not named (``act`` links them again in each copy). A share of all files and folders have permission bits
other than the umask's. Variants: the user id with quotes, with glob characters (and a session
id with a slash), with a slash (and a decomposed accent), padded with an emoji and no session
left in the store (named apps: one with nothing, one twice). Each world has two calls: first
for a user with files in an app not named only (a prefix of another's id: it returns 0),
then for the user.

Observed: every entry of the world's folder, at return time and as the run left it (files by
size, hash and permission bits, folders by their bits, links by their targets; described by
``act`` in one file, see ``_support.pack``: the sandbox returns too few files, too shallow, for
ADK's layout), every row and the format of the session file, files left anywhere else in the
work folder, what each call made outside the folders observed (``_outside_writes.OutsideWrites``: the
self-check has no sandbox whose /tmp is kept), and what each call returned.
"""

from __future__ import annotations

import json
import random
import unicodedata
from pathlib import Path
from typing import Any, Callable, Optional

from google.adk.artifacts.file_artifact_service import FileArtifactService
from google.adk.events import Event, EventActions
from google.adk.sessions.sqlite_session_service import SqliteSessionService
from google.genai import types

from ._engine import ABSENT, RETURNED, Check, Exercise, Open, Resources, View, same
from ._erase_user_artifacts_support import (FILE_NAMES, MANIFEST, Saves,
                                            as_observation, duplicate, owner, pack, payloads,
                                            read_manifest, read_strays, relink, scan,
                                            scope_of, session_of, write_strays,
                                            stored_name, user_base, valid_id, write_extras,
                                            write_root)
from ._outside_writes import OutsideWrites
from ._harness import ActWorld
from ._observe import describe_key, quote, read_sqlite, stray_files
from ._world import (FIRST_NAMES, NICKNAMES, SHARED_SESSION_IDS, Clock, awkward_user_id,
                     event_json, lookalike_ids, play, secret)

ROOT, DB_NAME = "artifacts", "sessions.db"
KEEP = tuple(DB_NAME + suffix for suffix in ("", "-journal", "-wal", "-shm"))  # read as SQLite
VARIANTS = ("quotes", "glob", "slash", "no session left")
APP_STEMS = ("caf\u00e9_team", "barista", "bakery", "roastery", "tea_house")
TEAMS, DESKS = ("north", "clinic", "team-7"), ("desk", "kiosk", "counter")
NFD_NAMES = ("zoe\u0301", "rene\u0301e", "noe\u0308l", "jose\u0301")
CHILDREN = ("x", "old", "kids")
ACCENTED = ("cafe\u0301", "cre\u0300me", "noe\u0308l", "the\u0301")  # decomposed (NFD)
NOT_VERSIONS = ("old", "v2", "latest", "backup", "_7")  # folder names int() refuses
# Version folders ADK never names so but counts (``int()`` reads the name), which a test of
# digits (``isdigit``, ``\d+``) or of ``str(int(name)) == name`` refuses; and names such a test
# accepts that ``int()`` refuses (not counted).
ODD_VERSIONS = (" 7", "8 ", "+9", "-1", "1_0", "+0")
DIGITS_NOT_INT = ("\u00b2", "\u2462", "\u00b9\u2080")  # superscript 2, circled 3, ¹₀
SCOPE_CHECK = {"live": "session_files_erased", "deleted": "deleted_sessions_erased",
               "disk": "deleted_sessions_erased", "link": "session_files_erased"}


# --- the world ---------------------------------------------------------------------------------

def pick_user(rng: random.Random, kind: str) -> str:
  first, nick = rng.choice(FIRST_NAMES), rng.choice(NICKNAMES)
  if kind == "quotes":
    return awkward_user_id(rng, "quotes")
  if kind == "glob":
    return rng.choice((f"{first}*", f"{first}?{nick}", f"[{first[0]}]{first[1:]}"))
  if kind == "slash":  # one level or two: the folders on the way are nobody's or a parent's
    return "/".join([rng.choice(TEAMS)] + rng.sample(DESKS, rng.randint(0, 1))
                    + [rng.choice(NFD_NAMES)])
  return f" {first} \u2615 {nick} "


def lookalikes(rng: random.Random, user: str, count: int = 6) -> list[str]:
  """Other users a sloppy match takes for ``user``: always a user nested in its folder
  (``user/x``), its upper case, stripped and other Unicode forms, what its glob characters
  match and, for an id with a slash, its parent; then some of: a prefix, other cases, padding,
  a backslash twin (``count`` in all: each user's folders cost the judge's CPU time)."""
  first = [f"{user}/{rng.choice(CHILDREN)}", user.upper(), user.strip(),
           unicodedata.normalize("NFC", user), unicodedata.normalize("NFD", user)]
  if any(c in user for c in "*?["):
    first.append(user.replace("*", "").replace("?", "_").replace("[", "").replace("]", ""))
  if "/" in user:
    first.append(user.rsplit("/", 1)[0])
  rest = lookalike_ids(rng, user) + [user.strip(), f" {user}", f"{user} ",
                                     user.replace("/", "\\")]
  rng.shuffle(rest)
  first = [o for o in dict.fromkeys(first) if o != user and valid_id(o)]
  rest = [o for o in dict.fromkeys(rest) if o != user and valid_id(o) and o not in first]
  return first + rest[:max(0, count - len(first))]


def cased(rng: random.Random, app: str) -> tuple[str, str]:
  """Two names of ``app`` in other cases (never its own lower case), each another app."""
  letters = [i for i, c in enumerate(app) if c.isalpha()]
  i = rng.choice(letters)
  forms = [app.capitalize(), app.upper(), app[:i] + app[i].upper() + app[i + 1:]]
  forms = [f for f in dict.fromkeys(forms) if f != app.lower()]
  return tuple(rng.sample(forms, 2))  # type: ignore[return-value]


def padded(rng: random.Random, app: str) -> str:
  """``app`` with spaces around it (before, after or both): another app than ``app``."""
  left, right = rng.choice((("", " "), (" ", ""), (" ", " "), ("  ", "")))
  return f"{left}{app}{right}"


def generate(rng: random.Random, variant: int) -> dict[str, Any]:
  kind = VARIANTS[variant]
  user = pick_user(rng, kind)
  stems = rng.sample(APP_STEMS, 4)
  first_app, plain_app, other_app, _ = (f"{s}_{rng.randrange(10, 99)}" for s in stems)
  # Named apps whose names a normalising match changes, each beside an app not named that
  # only that match confuses with it: two case forms of one app, both named (a case-blind
  # de-duplication erases one), whose lower case is another app; a padded, decomposed name
  # whose stripped and composed forms are other apps.
  second_app, pair_app = cased(rng, plain_app)
  solo_app = padded(rng, f"{stems[3]}_{rng.choice(ACCENTED)}_{rng.randrange(10, 99)}")
  norm_twins = [plain_app, solo_app.strip(), unicodedata.normalize("NFC", solo_app)]
  twins = [a for a in dict.fromkeys([first_app.upper(), unicodedata.normalize("NFD", first_app)])
           if a != first_app]  # and a prefix twin, in every world
  twin_apps = [f"{first_app}_beta", rng.choice(twins)] + (
      [f"{first_app}/v2"] if kind == "no session left" else []) + [other_app] + norm_twins
  listed = [first_app, second_app, pair_app, solo_app]
  app_names = rng.sample(listed, len(listed))
  missing = None
  if kind == "no session left":  # an app with nothing of anyone's, and one named twice
    missing = f"{stems[1]}_archive"
    app_names += [missing, first_app]
  others = lookalikes(rng, user, count=4)
  # A user two levels inside theirs (``ana/old/x``) whose middle folder is nobody's, with
  # user: files only in the first app (no sessions/ folder): not a folder to tidy up.
  child = next((o[len(user) + 1:] for o in others if o.startswith(f"{user}/")), "")
  deep = f"{user}/{rng.choice([c for c in CHILDREN if c != child])}/{rng.choice(CHILDREN)}"
  bystander = rng.choice([n for n in FIRST_NAMES if n not in user.lower() and n not in others])
  # The first call erases a user with nothing in the named apps (it returns 0): a prefix of
  # the bystander's id, with files in an app not named only.
  ghost = next(g for g in (bystander[:-1], bystander[:-2], f"{bystander}_")
               if g not in others + [user, bystander] and valid_id(g))
  saves, clock = Saves(rng), Clock(rng)
  sessions: list[list[str]] = []  # [app, user, session id, "live"/"deleted"/"disk"/"link"]
  pending: list[dict[str, Any]] = []
  deleted: list[dict[str, Any]] = []
  shared = rng.choice(SHARED_SESSION_IDS)

  def portfolio(app: str, who: str, ids: list[tuple[str, str]], files: tuple[int, int],
                versions: int, user_files: int, bare: bool, tombstone: bool = False) -> None:
    names: list[str] = []
    for session, where in ids:
      sessions.append([app, who, session, where])
      for name in rng.sample(FILE_NAMES, rng.randint(*files)):
        names.append(name)
        saves.add(app, who, session, name, rng.randint(1, versions),
                  tombstone and rng.random() < 0.3)
    for name in rng.sample(FILE_NAMES, user_files):
      saves.add(app, who, rng.choice([s for s, _ in ids] + [None]), f"user:{name}",
                rng.randint(1, versions))
    if bare:  # saved with no session: listed under its bare name, often a session file's too
      name = rng.choice(names) if names and rng.random() < 0.7 else rng.choice(FILE_NAMES)
      saves.add(app, who, None, name, rng.randint(1, versions))

  # The user in the first named app: sessions the store lists, deleted ones, one it never had.
  own = [shared, f"s-{secret(rng)[:8]}", f"s-{secret(rng)[:8]}"]
  if kind in ("glob", "slash"):
    own.append(f"{rng.choice(DESKS)}/{rng.choice(('main', 'night', '7'))}")
  wheres = {"quotes": ["live", "live", "deleted"], "glob": ["live", "deleted", "disk", "live"],
            "slash": ["live", "disk", "live", "deleted"],
            "no session left": ["deleted", "disk", "deleted"]}[kind]
  portfolio(first_app, user, list(zip(own, wheres)), (1, 2), 3, 2, True, tombstone=True)
  saves.add(first_app, user, rng.choice(own), "metadata", rng.randint(1, 2))  # its payload
  mine = [s for s in saves.items if s["user"] == user]  # is a file named "metadata"
  rewound = rng.choice([s for s in mine if s["session"] and not s["file"].startswith("user:")])
  saves.add(first_app, user, rewound["session"], rewound["file"], 1, tombstone=True)
  # A save killed before another one: the later save skips its number (versions 0, 1, 3).
  pending.append({"app": first_app, "user": user, "session": rewound["session"],
                  "file": rewound["file"], "with": "tmp", "after": len(saves.items),
                  "version": saves.versions[_where(rewound)], "hex": secret(rng)})
  saves.versions[_where(rewound)] += 1
  saves.add(first_app, user, rewound["session"], rewound["file"], 1)
  target = rng.choice(mine)  # a staging folder with its metadata.json, in every world
  pending.append({"app": first_app, "user": user, "session": target["session"],
                  "file": target["file"], "with": "metadata",
                  "version": saves.versions[_where(target)], "hex": secret(rng)})
  if kind in ("quotes", "slash"):  # an artifact whose only save never finished
    pending.append({"app": first_app, "user": user, "session": own[-1],
                    "file": "unfinished upload.bin", "with": "payload", "version": 0,
                    "hex": secret(rng) * 3})
  # Others in the same app, with the same file names and session ids.
  for other in others + [bystander]:
    ids = [(rng.choice([shared] + own[:2] + [f"s-{secret(rng)[:8]}"]), "live")]
    portfolio(first_app, other, ids, (1, 1), 2, int(rng.random() < 0.3), rng.random() < 0.2)
  old = f"s-{secret(rng)[:8]}"
  sessions.append([first_app, bystander, old, "live"])
  saves.add(first_app, bystander, old, "old receipt.txt", 2)
  saves.add(first_app, bystander, None, "user:old card.txt", 1)
  deleted += [{"app": first_app, "user": bystander, "session": old, "file": "old receipt.txt"},
              {"app": first_app, "user": bystander, "session": None,
               "file": "user:old card.txt"}]
  mate = rng.choice(others)
  item = next((s for s in saves.items if s["user"] == mate), None)
  if item is not None:
    pending.append({"app": first_app, "user": mate, "session": item["session"],
                    "file": item["file"], "with": "metadata",
                    "version": saves.versions[_where(item)], "hex": secret(rng)})
  # The second named app: the user, a user nested in their folder, a bystander.
  second = [(shared, "live"), (f"s-{secret(rng)[:8]}", "deleted")][:rng.randint(1, 2)]
  if kind == "no session left":
    second = [(shared, "deleted")]
  portfolio(second_app, user, second, (1, 1), 2, 1, rng.random() < 0.5)
  for other in [o for o in others if o.startswith(f"{user}/")]:
    portfolio(second_app, other, [(shared, "live")], (1, 1), 2, 0, False)
  portfolio(first_app, deep, [], (1, 1), 2, 1, False)
  portfolio(second_app, deep, [(shared, "live")], (1, 1), 1, 0, False)
  # No user: files in the pair app: its artifacts/ is a link (world_extras), theirs to remove.
  portfolio(pair_app, user, [(shared, "live")], (1, 1), 2, 0, False)
  # The third named app has nobody but the user: its users/ folder and itself stay.
  solo = (f"s-{secret(rng)[:8]}", "disk" if kind == "no session left"
          else rng.choice(("live", "disk")))
  portfolio(solo_app, user, [solo], (1, 1), 2, 1, False)
  # Apps not named: twins of the first, a plain other one; the user has files in each.
  for app in twin_apps:  # the normalising matches' twins, fewer versions (the judge's CPU)
    portfolio(app, user, [(shared, "live")], (1, 1), 1 if app in norm_twins else 2,
              int(app not in norm_twins and rng.random() < 0.5), False)
  portfolio(other_app, bystander, [(shared, "live")], (1, 1), 1, 1, False)
  portfolio(other_app, ghost, [(shared, "live")], (1, 1), 1, 1, False)
  twin = rng.choice(twin_apps)
  item = next(s for s in saves.items if s["app"] == twin and s["user"] == user)
  pending.append({"app": twin, "user": user, "session": item["session"], "file": item["file"],
                  "with": "payload", "version": saves.versions[_where(item)],
                  "hex": secret(rng)})
  extras = world_extras(rng, dict(user=user, first_app=first_app, solo_app=solo_app,
                                  pair_app=pair_app, other_app=other_app,
                                  solo=solo, twin_apps=twin_apps, bystander=bystander,
                                  sessions=sessions, saves=saves, deleted=deleted))
  script = session_script(rng, clock, sessions, saves.items)
  pairs = {(s["app"], s["user"]) for s in saves.items} | {(a, u) for a, u, _, _ in sessions}
  pairs |= {(app, user) for app in app_names}
  owners = sorted(([user_base(a, u), a, u] for a, u in pairs), key=lambda o: -len(o[0]))
  return {"variant": variant, "kind": kind, "user": user, "ghost": ghost,
          "app_names": app_names, "listed": sorted(set(app_names)), "missing_app": missing,
          "solo_app": solo_app, "twin_apps": twin_apps,
          "apps": sorted({a for a, _ in pairs}, key=len, reverse=True),
          "others": others + [deep, bystander], "saves": saves.items, "pending": pending,
          "deleted_artifacts": deleted, "sessions": sessions, "owners": owners,
          "script": script, "extras": extras,
          "erased_versions": sum(saves.count(a, user) for a in set(app_names))
          + len(extras["legacy"]) + extras["linked_versions"] + extras["odd_versions"]
          + len(extras.get("folders", ()))}


def world_extras(rng: random.Random, world: dict[str, Any]) -> dict[str, Any]:
  """What ADK's API never writes, in every world (``_support.write_extras``):

  - a legacy artifact of the user's named ``metadata.json`` (one file in its version folder);
  - links in the user's folders, which are theirs to remove and never to follow: a session
    folder that is a link to the bystander's session, a ``user:`` artifact that is a link to
    their own artifact in an app not named, in a version folder a link to another user's
    payload and one whose target is gone;
  - other permission bits on a share of all entries, on the whole linked session, and a
    writable linked payload (writing through the link would change it);
  - in the user's ``versions`` folders, what ``list_versions`` does not count and what it
    does (``linked_versions``): a folder whose name is not a number, a file and a link to a
    file named with one (to another user's payload), and two links named with one to one of
    their artifact's own version folders (``list_versions`` counts it; and, the latest, ADK reads
    the artifact's name from its metadata), two folders named as ``int()`` reads and ADK never
    writes (`` 7``, ``+9``: counted) and one named with digits ``int()`` refuses (``²``), and
    three empty numbered folders (counted);
  - an artifact of the user's whose ``versions`` folder is itself a link to another user's
    (the link is to remove; nothing behind it counts);
  - the user's ``artifacts/`` folder in the pair app, itself a link to the bystander's in an
    app not named;
  - ``hardlinks``: a payload of the user's that is also (the same file) another user's and
    their own in an app not named, writable: ``act`` makes them one file again in each copy."""
  user, first, solo = world["user"], world["first_app"], world["solo_app"]
  sessions, saves, bystander = world["sessions"], world["saves"], world["bystander"]
  legacy_at = f"{user_base(solo, user)}/sessions/{world['solo'][0]}/artifacts/metadata.json"
  legacy = [{"path": legacy_at, "version": 0, "text": json.dumps(
      {"fileName": "metadata.json", "mimeType": "application/json", "version": 0,
       "canonicalUri": f"file:///srv/cafe/{ROOT}/{legacy_at}/versions/0/metadata.json",
       "customMetadata": {"note": secret(rng)}}, ensure_ascii=False)}]
  theirs = next(s for s in sessions if s[0] == first and s[1] == bystander)
  linked = f"{user_base(first, bystander)}/sessions/{theirs[2]}"
  link_session = f"s-{secret(rng)[:8]}"
  sessions.append([first, user, link_session, "link"])
  links = [[f"{user_base(first, user)}/sessions/{link_session}", linked]]
  twin = next(s for s in saves.items if s["app"] == world["twin_apps"][0] and s["user"] == user)
  shortcut = "shortcut to " + stored_name(twin["file"]).rsplit("/", 1)[-1]
  links.append([f"{user_base(solo, user)}/artifacts/{shortcut}", artifact_path(twin)])
  mine = [s for s in saves.items if s["app"] == first and s["user"] == user]
  one, two = rng.sample(mine, 2)
  gone = {artifact_path(s) for s in world["deleted"]}
  firsts = {artifact_path(s): s for s in reversed(saves.items)}  # each artifact's version 0
  mate = next(s for path, s in firsts.items() if s["app"] == first and s["user"] != user
              and path not in gone and not s["payload"].get("tombstone")
              and s["payload"].get("text", "x"))  # not empty
  links.append([f"{artifact_path(one)}/versions/0/original", payload_path(mate)])
  deleted = next(s for s in world["deleted"] if s["session"])
  links.append([f"{artifact_path(two)}/versions/0/preview", payload_path(deleted)])
  folders = sorted({artifact_path(s) for s in mine})
  numbers = [str(n) for n in rng.sample(range(20, 99), 7)]
  plain = [[f"{rng.choice(folders)}/versions/{rng.choice(NOT_VERSIONS)}/notes.txt", secret(rng)],
           [f"{rng.choice(folders)}/versions/{numbers[0]}", secret(rng)]]
  links.append([f"{rng.choice(folders)}/versions/{numbers[1]}", payload_path(mate)])
  for number in numbers[2:4]:  # two: no other miscount (+1 each) makes up for their -2
    artifact = rng.choice(folders)  # to its own version 0: ADK reads the link's metadata
    links.append([f"{artifact}/versions/{number}", f"{artifact}/versions/0"])
  odd = rng.sample(ODD_VERSIONS, 2)  # counted: two, for the same reason
  # Three empty version folders (counted: a folder named with a number, whatever it holds);
  # three, an odd number, so that no pair of other miscounts makes up for skipping them.
  empty = [f"{rng.choice(folders)}/versions/{number}" for number in numbers[4:7]]
  # An artifact of the user's whose versions folder is itself a link, to another user's: the
  # link is the user's, to remove; what is behind it is not, and counts nothing.
  links.append([f"{user_base(first, user)}/artifacts/shared {secret(rng)[:6]}.txt/versions",
                f"{artifact_path(mate)}/versions"])
  plain += [[f"{rng.choice(folders)}/versions/{name}/notes.txt", secret(rng)] for name in odd]
  plain.append([f"{rng.choice(folders)}/versions/{rng.choice(DIGITS_NOT_INT)}/notes.txt",
                secret(rng)])
  # The user's artifacts/ folder in the pair app is itself a link, to another user's in an app
  # not named: the link is theirs (to remove), what it points to is not (nothing to count).
  links.append([f"{user_base(world['pair_app'], user)}/artifacts",
                f"{user_base(world['other_app'], bystander)}/artifacts"])
  links = [link for link in dict.fromkeys(map(tuple, links))]
  return {"legacy": legacy, "links": [list(link) for link in links], "plain": plain,
          "folders": empty, "linked_versions": 2, "odd_versions": len(odd),
          "hardlinks": hardlinks(rng, world, firsts, gone, mate),
          "modes": {"seed": rng.getrandbits(32), "share": 0.25,
                    "fixed": [[linked, 0o705, 0o444], [payload_path(mate), 0o775, 0o664]]}}


def hardlinks(rng: random.Random, world: dict[str, Any], firsts: dict[str, dict],
              gone: set[str], mate: dict[str, Any]) -> list[list[str]]:
  """``[source, target]``: the payload ``target`` (another user's in the first app, the
  user's own in an app not named) made the same file as ``source``, a payload of the user's
  in the first app; none empty (writing zeros over it must change the other)."""
  def payloads_of(test: Callable[[dict], bool]) -> list[str]:
    return sorted(payload_path(s) for path, s in firsts.items() if path not in gone and test(s)
                  and not s["payload"].get("tombstone") and s["payload"].get("text", "x"))
  user, first = world["user"], world["first_app"]
  source = rng.choice(payloads_of(lambda s: s["app"] == first and s["user"] == user))
  theirs = payloads_of(lambda s: s["app"] == first and s["user"] not in (user, mate["user"]))
  own = payloads_of(lambda s: s["app"] in world["twin_apps"] and s["user"] == user)
  return [[source, rng.choice(theirs)], [source, rng.choice(own)]]


def artifact_path(save: dict[str, Any]) -> str:
  """The folder of a save's artifact, relative to the root."""
  scope = scope_of(save["session"], save["file"])
  where = "artifacts" if scope is None else f"sessions/{scope}/artifacts"
  return f"{user_base(save['app'], save['user'])}/{where}/{stored_name(save['file'])}"


def payload_path(save: dict[str, Any]) -> str:
  """The payload of version 0 of a save's artifact, relative to the root."""
  return f"{artifact_path(save)}/versions/0/{stored_name(save['file']).rsplit('/', 1)[-1]}"


def _where(save: dict[str, Any]) -> tuple:
  return (save["app"], save["user"], scope_of(save["session"], save["file"]),
          stored_name(save["file"]))


def session_script(rng: random.Random, clock: Clock, sessions: list[list[str]],
                   saves: list[dict[str, Any]]) -> list[dict[str, Any]]:
  """The session store: each session the store has (or had) with one event whose
  ``artifact_delta`` names the files its run saved; the deleted ones deleted afterwards."""
  script: list[dict[str, Any]] = []
  for app, who, session, where in sessions:
    if where in ("disk", "link"):
      continue
    script.append({"op": "create", "app": app, "user": who, "id": session,
                   "state": {"table": rng.randrange(1, 20), "user:visits": rng.randrange(9)}})
    delta: dict[str, int] = {}
    for save in saves:
      if (save["app"], save["user"], save["session"]) == (app, who, session):
        delta[save["file"]] = delta.get(save["file"], -1) + 1
    event = Event(invocation_id=f"e-{secret(rng)}", author="barista",
                  timestamp=clock.tick(rng), actions=EventActions(artifact_delta=delta),
                  content=types.Content(role="model", parts=[types.Part(
                      text=f"Saved {len(delta)} file(s) for you ({secret(rng)})")]))
    script.append({"op": "append", "app": app, "user": who, "id": session,
                   "event": event_json(event)})
  for app, who, session, where in sessions:
    if where == "deleted":  # ADK keeps the files of a deleted session
      script.append({"op": "delete", "app": app, "user": who, "id": session})
  return script


async def build(spec: dict[str, Any], folder: Path, resources: Resources) -> dict[str, Any]:  # noqa: ARG001
  await write_root(folder / ROOT, spec["saves"], spec["pending"], spec["deleted_artifacts"])
  write_extras(folder / ROOT, spec["extras"])
  await play(SqliteSessionService(str(folder / DB_NAME)), spec["script"])
  return {"root": ROOT, "db": DB_NAME, "users": [spec["ghost"], spec["user"]],
          "apps": spec["app_names"], "hardlinks": spec["extras"]["hardlinks"]}


# --- act and observe -----------------------------------------------------------------------------

async def act(fn: Callable, world: ActWorld) -> None:
  """Call ``fn(artifact_service, session_service, user_id, app_names)`` on the world's
  services, for a user with nothing there first (it returns 0), then for the user; describe
  the folder when it returns (the snapshot: the session file and a manifest of the tree), with
  what each call made outside the folders the judge observes (``OutsideWrites``). The tree as
  the run leaves it is described by ``seal``, where the submission cannot forge it."""
  root = Path(world.path(world.inputs["root"]))
  relink(root, world.inputs.get("hardlinks", ()))  # the copy made them two files
  artifacts = FileArtifactService(root)
  sessions = SqliteSessionService(world.path(world.inputs["db"]))
  apps = list(world.inputs["apps"])
  observed = [world.folder, world.elsewhere_folder]  # the call's temporary and home folders
  strays: dict[str, list[str]] = {}  # path -> entry: the first call that made it says so
  for user in world.inputs["users"]:
    bases = [root / "apps" / app / "users" / user for app in apps]
    with OutsideWrites(observed, lambda bases=bases: payloads(bases)) as outside:
      await world.call(fn, artifacts, sessions, user, list(apps))
    for stray in outside.strays():
      strays.setdefault(stray[1], stray)
  at_return = scan(world.folder, KEEP) + list(strays.values())
  world.snapshot(only=KEEP)  # the session file as it was at return time; the tree described
  pack(world.snapshot_dir, at_return, KEEP)
  write_strays(world.folder, list(strays.values()))


def seal(folder: Path, elsewhere: Path, inputs: dict[str, Any]) -> None:  # noqa: ARG001
  """The world's tree as the run left it, described in ``MANIFEST`` (the sandbox returns a
  few levels of files; ADK nests a version twelve deep), with what ``act`` saw written
  outside (``read_strays``: untrusted, it can only add entries)."""
  pack(folder, scan(folder, KEEP) + read_strays(folder), KEEP)


async def observe(spec: dict[str, Any], folder: Path, inputs: dict[str, Any], view: View
                  ) -> dict:
  where = view.snapshot or folder
  manifest = where / MANIFEST
  if view.kind == "pristine":
    observed = as_observation(scan(where, KEEP))
  elif manifest.is_file() and not manifest.is_symlink():
    observed = read_manifest(manifest)
  else:
    observed = {("unreadable",): "the description of the world's folder is missing"}
  observed.update(read_sqlite(where / DB_NAME, ("db",), trusted=view.kind == "pristine"))
  if view.kind != "pristine":
    observed.update(stray_files(folder.parent, ("elsewhere",)))
  return observed


def place(spec: dict[str, Any], path: str) -> tuple[str, Optional[tuple[str, str, str]], str]:
  """What a path of the world's folder is: ("root", owner, scope) in the artifact folder,
  where scope is "user", "base", a session's check name or "other"; else ("world", None, "")."""
  if not path.startswith(ROOT + "/"):
    return "world", None, ""
  relative = path[len(ROOT) + 1:]
  found = owner(spec, relative)
  if found is None:
    return "root", None, ""
  app, who, rest = found
  if rest == "" or rest == "sessions":
    return "root", found, "base"
  if rest == "artifacts" or rest.startswith("artifacts/"):
    return "root", found, "user"
  session = session_of(spec, app, who, rest)
  return "root", found, SCOPE_CHECK[session[1]] if session else "other"


def is_erased(spec: dict[str, Any], found: Optional[tuple[str, str, str]]) -> bool:
  return found is not None and found[1] == spec["user"] and found[0] in spec["listed"]


def classify(spec: dict[str, Any], key: tuple) -> Any:
  if key[0] in ("unreadable", "too many"):
    return tuple(c.name for c in CHECKS)  # a folder it cannot judge: nothing is met
  if key[0] == "db":
    return "sessions_untouched"
  if key[0] in ("elsewhere", "stray"):
    return "no_copy_kept"
  path = str(key[1]) if len(key) > 1 else ""
  where, found, scope = place(spec, path)
  if where == "world":
    # the session store's files themselves; what lies under a folder named so is a copy
    return ("sessions_untouched" if path.startswith(DB_NAME) and "/" not in path
            else "no_copy_kept")
  if found is None:  # a folder above the users' (apps/APP/users), or what nobody's folder holds
    app = next((a for a in spec["apps"] if path == f"{ROOT}/apps/{a}"
                or path.startswith(f"{ROOT}/apps/{a}/")), None)
    return ("no_copy_kept" if app is None else "other_users_untouched" if app in spec["listed"]
            else "other_apps_untouched")
  if found[0] not in spec["listed"]:
    return "other_apps_untouched"
  if found[1] != spec["user"]:
    return "other_users_untouched"
  if found[0] == spec["missing_app"]:  # where the user has no folder at all
    return "no_copy_kept"
  return {"user": "user_files_erased", "base": "user_files_erased",
          "other": "no_copy_kept"}.get(scope, scope)


def user_folder_may_go(key: tuple, spec: dict[str, Any], pristine: dict) -> bool:
  """Open: a folder the world had (one made by the call is never open: a trash or backup
  folder in theirs is kept) of the user's in a named app (not a ``versions`` one, nor another
  user's nested in theirs), or one on the way to it that is nobody's (``users/team`` of
  ``team/ana``)."""
  path = str(key[1])
  if key not in pristine or path.rsplit("/", 1)[-1] == "versions":
    return False
  where, found, _ = place(spec, path)
  if where != "root":
    return False
  if found is not None:
    return is_erased(spec, found)
  relative = path[len(ROOT) + 1:]
  return any(relative.startswith(f"apps/{app}/users/")
             and user_base(app, spec["user"]).startswith(relative + "/")
             for app in spec["listed"])


def describe(spec: dict[str, Any], key: tuple) -> str:
  if key[0] == "db":
    return describe_key(key)
  if key[0] == "elsewhere":
    return describe_key(key, {"elsewhere": "the work folder (temporary and home folders)"})
  if key[0] == "stray":
    return f"the path {quote(str(key[1]))}, outside the world's folders"
  if len(key) < 2:
    return " / ".join(str(part) for part in key)
  path = str(key[1])
  what = {"file": "the file", "folder": "the folder", "link": "the link"}.get(key[0], "the entry")
  where, found, scope = place(spec, path)
  if where == "world":
    return f"{what} {quote(path)} of the world's folder"
  text = f"{what} {quote(path[len(ROOT) + 1:])} of the artifact folder"
  if found is None:
    app = next((a for a in spec["apps"] if path in (f"{ROOT}/apps/{a}", f"{ROOT}/apps/{a}/users")),
               None)
    return text + (f": the folder of app {quote(app)}"
                   + (" (the user is its only user)" if app == spec["solo_app"] else "")
                   if app is not None else "")
  app, who, rest = found
  person = "the user" if who == spec["user"] else "the user " + quote(who)
  session = session_of(spec, app, who, rest)
  kind = {"user": "user: files", "base": "folder",
          "other": "folder (outside artifacts/ and sessions/)"}.get(scope, "files")
  if session:
    kind = ("files of the session " + quote(session[0]) + {
        "live": "", "link": " (a link to another user's session folder)"}.get(
            session[1], " (no longer in the session store)"))
  return f"{text}: {person}'s {kind} in app {quote(app)}"


def label(spec: dict[str, Any]) -> str:
  return (f"erasing {quote(spec['user'])} in " + ", ".join(quote(a) for a in spec["app_names"])
          + f" ({spec['kind']}), after a first call for {quote(spec['ghost'])}, who has "
          "nothing there")


def properties(spec: dict[str, Any], observed: dict, pristine: dict) -> list[tuple[str, str]]:
  """What the contract says of every outcome, the reference's included: nothing of the user's
  is left in the named apps, no ``versions`` folder of theirs either, the count is the number
  of versions the world had, and every other file is as it was."""
  problems = []
  for key in observed:
    if key[0] in ("db", "elsewhere", "stray", RETURNED) or len(key) < 2:
      continue
    where, found, scope = place(spec, str(key[1]))
    if key[0] == "unreadable":  # a folder nobody can list: none of it can be credited
      problems += [(check, f"{describe(spec, key)} cannot be read")
                   for check in classify(spec, key)]
    elif where == "root" and is_erased(spec, found) and (
        key[0] != "folder" or str(key[1]).endswith("/versions")):
      problems.append((classify(spec, key), f"{describe(spec, key)} is left"))
  for call, (who, count) in enumerate(((spec["ghost"], 0), (spec["user"],
                                                               spec["erased_versions"]))):
    returned = observed.get((RETURNED, call), ABSENT)
    if returned is not ABSENT and not same(returned, count):
      problems.append(("count_returned", f"the named apps held {count} versions of "
                       f"{quote(who)}'s, and call {call + 1} returned {as_python(returned)}"))
  for key, value in pristine.items():
    if (key[0] in ("file", "link") and not is_erased(spec, place(spec, str(key[1]))[1])
        and not same(observed.get(key, ABSENT), value)):
      problems.append((classify(spec, key), f"{describe(spec, key)} changed"))
  return problems


def as_python(value: Any) -> str:
  """What a call returned (``_harness.describe``), as Python writes it: ``None``, ``'3'``."""
  if isinstance(value, dict) and "type" in value:
    return f"a {value['type']}"
  return repr(value) if not isinstance(value, str) else f"the str {value!r}"


CHECKS = (
    Check("user_files_erased", 2,
          "In each app named, none of the user's `user:` files is left (apps/APP/users/USER/"
          "artifacts/): every version, saved as `user:name` or with no session at all.",
          hint="A file saved with no session is listed under its bare name, and deleting that "
               "name with a session id looks in the session's folder: delete user files with "
               "session_id=None",
          success="none of the user's user: files is left"),
    Check("session_files_erased", 2,
          "In each app named, no file of the user's sessions is left, with no `versions` folder "
          "of theirs either (FileArtifactService lists an artifact wherever one is), nor a link "
          "in their folders (the link goes, what it points to stays).",
          hint="Each session keeps its files under sessions/SESSION_ID/artifacts/, nested when the "
               "id has a slash; an emptied versions folder still makes ADK list the artifact; a "
               "link (to a folder too) is an entry of its own: remove it, do not follow it",
          success="none of the files of the user's sessions is left"),
    Check("deleted_sessions_erased", 2,
          "The files of the user's sessions the session service no longer lists are erased too.",
          hint="delete_session leaves a session's files on disk, and list_sessions no longer names "
               "it: find the user's sessions in their folder, not only in the session store",
          success="the files of the user's deleted sessions are gone too"),
    Check("count_returned", 2,
          "It returns the number of versions erased, an int, as list_versions counts them: 0 "
          "(not None) for a user with nothing there.",
          hint="Count versions (the numbered folders in each versions folder): not files (a "
               "version has its payload and a metadata.json, or more, or less), not artifacts, "
               "not a staging .N.pending folder, nothing behind a link; a rewind's empty "
               "tombstone is a version; an app named twice counts once; nothing erased is 0",
          success="the count returned is right"),
    Check("other_users_untouched", 2,
          "Other users' files and folders in the named apps stay byte for byte, with their "
          "permission bits, whatever their ids look like: a prefix, another case or Unicode form, "
          "padding, glob characters, an id with a slash whose folder lies inside the user's; and "
          "so do the apps' own folders (apps/APP/users), even where the user was alone.",
          hint="A user's folder is apps/APP/users/USER_ID, matched exactly; only its artifacts/ "
               "and sessions/ folders are theirs: \"ana/x\" is another user, inside \"ana\"'s "
               "folder. Glob patterns, case-blind or normalised matches catch other users; so "
               "does following a link, a chmod of what is not erased, or tidying up above the "
               "user's own folder",
          success="other users' files are unchanged", needs_action=True),
    Check("other_apps_untouched", 1,
          "The user's files in apps not named stay, also where a name looks like a named one.",
          hint="Erase only in the apps you are given, by exact name: a prefix or a folder inside "
               "a named app's is another app",
          success="the user's files in other apps are unchanged", needs_action=True),
    Check("sessions_untouched", 1,
          "The session store stays exactly as it was: sessions (the user's too), events with their "
          "artifact_delta, state.",
          hint="The exercise erases files, not conversations: leave the session service's data "
               "alone",
          success="the session store is unchanged", needs_action=True),
    Check("no_copy_kept", 1,
          "No copy of the erased files is kept and no other file or folder is made: not in the "
          "artifact folder (the user's own folder included), next to the session store, in the "
          "temporary or the home folder, nor anywhere else.",
          hint="Delete: moving the files aside (a trash folder, a backup, an archive, wherever "
               "it is) keeps them",
          success="no copy was kept", needs_action=True),
)

EXERCISE = Exercise(
    name="erase_user_artifacts",
    lesson="07_agents_and_artifacts",
    signature="async def erase_user_artifacts(artifact_service, session_service, user_id: str, "
              "app_names: list[str]) -> int",
    is_async=True,
    checks=CHECKS,
    generate=generate,
    build=build,
    act=act,
    observe=observe,
    classify=classify,
    leaves_open=(
        Open(("folder", "*"), "the contract lets the user's own folders (and those on the way "
             "to an id with a slash) stay empty or go; never a versions folder, which ADK lists "
             "as an artifact", when=user_folder_may_go),
    ),
    properties=properties,
    worlds=len(VARIANTS),
    calls=lambda spec: 2,
    duplicate=duplicate,
    describe_key=describe,
    label=label,
    outcome_check="count_returned",
    seal=seal,
)
