"""Writes the user state when creating each session, then replays every event: the replayed
user: writes are older, so the latest values are lost (the exercise's first reference)."""

LOSES = ("user_state_latest",)


async def copy_user_to(source, dest, app_name, user_id):
  user_state = await source.get_user_state(app_name=app_name, user_id=user_id)
  user_keys = {f"user:{key}": value for key, value in user_state.items()}
  listed = await source.list_sessions(app_name=app_name, user_id=user_id)
  for listed_session in listed.sessions:
    session = await source.get_session(app_name=app_name, user_id=user_id,
                                       session_id=listed_session.id)
    own_state = {k: v for k, v in session.state.items() if ":" not in k}
    copy = await dest.create_session(app_name=app_name, user_id=user_id,
                                     session_id=session.id, state={**own_state, **user_keys})
    for event in session.events:
      await dest.append_event(copy, event)
