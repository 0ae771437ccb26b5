"""Carries the final user state in one more event appended to the last session: dest then
holds an event the source never had."""

from google.adk.events import Event, EventActions

PREFIXES = ("user:", "app:", "temp:")
LOSES = ("events_copied",)


async def copy_user_to(source, dest, app_name, user_id):
  listed = await source.list_sessions(app_name=app_name, user_id=user_id)
  copy = None
  for item in listed.sessions:
    s = await source.get_session(app_name=app_name, user_id=user_id, session_id=item.id)
    copy = await dest.create_session(app_name=app_name, user_id=user_id, session_id=s.id,
                                     state={k: v for k, v in s.state.items()
                                            if not k.startswith(PREFIXES)})
    for event in s.events:
      await dest.append_event(copy, event)
  user_state = await source.get_user_state(app_name=app_name, user_id=user_id)
  if copy is not None and user_state:
    await dest.append_event(copy, Event(author="user", actions=EventActions(
        state_delta={f"user:{k}": v for k, v in user_state.items()})))
