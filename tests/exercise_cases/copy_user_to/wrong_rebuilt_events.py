"""Rebuilds each Event from the fields it knows (id, time, invocation, author, content,
actions): every other field, custom_metadata here, is lost."""

from google.adk.events import Event

LOSES = ("events_copied",)


async def copy_user_to(source, dest, app_name, user_id):
  listed = await source.list_sessions(app_name=app_name, user_id=user_id)
  for item in listed.sessions:
    session = await source.get_session(app_name=app_name, user_id=user_id, session_id=item.id)
    own = {k: v for k, v in session.state.items() if ":" not in k}
    copy = await dest.create_session(app_name=app_name, user_id=user_id, session_id=item.id,
                                     state=own)
    for e in session.events:
      await dest.append_event(copy, Event(id=e.id, timestamp=e.timestamp,
                                          invocation_id=e.invocation_id, author=e.author,
                                          content=e.content, actions=e.actions))
  user_state = await source.get_user_state(app_name=app_name, user_id=user_id)
  carrier = await dest.create_session(app_name=app_name, user_id=user_id,
                                      state={f"user:{k}": v for k, v in user_state.items()})
  await dest.delete_session(app_name=app_name, user_id=user_id, session_id=carrier.id)
