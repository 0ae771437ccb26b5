"""Writes through a second service object of its own on dest's database (a new
SqliteSessionService on the file, or a new DatabaseSessionService on the URL), closed after."""

from google.adk.sessions import DatabaseSessionService
from google.adk.sessions.sqlite_session_service import SqliteSessionService

PREFIXES = ("user:", "app:", "temp:")


def contains_nul(value) -> bool:
  if isinstance(value, str):
    return "\0" in value
  if isinstance(value, dict):
    return any(contains_nul(k) or contains_nul(v) for k, v in value.items())
  if isinstance(value, list):
    return any(contains_nul(v) for v in value)
  return False


def second_service(dest):
  if isinstance(dest, SqliteSessionService):
    return SqliteSessionService(dest._db_path)
  return DatabaseSessionService(dest.db_engine.url.render_as_string(hide_password=False))


async def copy_user_to(source, dest, app_name, user_id):
  listed = await source.list_sessions(app_name=app_name, user_id=user_id)
  sessions = [await source.get_session(app_name=app_name, user_id=user_id, session_id=s.id)
              for s in listed.sessions]
  user_state = await source.get_user_state(app_name=app_name, user_id=user_id)
  bad = [s.id[:16] for s in sessions if len(s.id) > 128]
  bad += [s.id[:16] for s in sessions if contains_nul(s.model_dump(mode="json"))]
  if bad or contains_nul(user_state):
    raise ValueError(f"PostgreSQL cannot hold sessions {bad} (ids over 128 characters or "
                     "U+0000), or the user state holds U+0000")
  writer = second_service(dest)
  try:
    for s in sessions:
      copy = await writer.create_session(
          app_name=app_name, user_id=user_id, session_id=s.id,
          state={k: v for k, v in s.state.items() if not k.startswith(PREFIXES)})
      for event in s.events:
        copy = await writer.get_session(app_name=app_name, user_id=user_id, session_id=s.id)
        await writer.append_event(copy, event)
    if user_state:
      carrier = await writer.create_session(
          app_name=app_name, user_id=user_id,
          state={"user:" + k: v for k, v in user_state.items()})
      await writer.delete_session(app_name=app_name, user_id=user_id, session_id=carrier.id)
  finally:
    await writer.close()
