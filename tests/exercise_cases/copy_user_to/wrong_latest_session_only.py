"""Copies only the session updated last (sessions[-1]), as if a user had one conversation."""

PREFIXES = ("user:", "app:", "temp:")
LOSES = ("sessions_copied",)


async def copy_user_to(source, dest, app_name, user_id):
  listed = await source.list_sessions(app_name=app_name, user_id=user_id)
  if listed.sessions:
    s = await source.get_session(app_name=app_name, user_id=user_id,
                                 session_id=listed.sessions[-1].id)
    copy = await dest.create_session(app_name=app_name, user_id=user_id, session_id=s.id,
                                     state={k: v for k, v in s.state.items()
                                            if not k.startswith(PREFIXES)})
    for event in s.events:
      await dest.append_event(copy, event)
  user_state = await source.get_user_state(app_name=app_name, user_id=user_id)
  carrier = await dest.create_session(app_name=app_name, user_id=user_id,
                                      state={f"user:{k}": v for k, v in user_state.items()})
  await dest.delete_session(app_name=app_name, user_id=user_id, session_id=carrier.id)
