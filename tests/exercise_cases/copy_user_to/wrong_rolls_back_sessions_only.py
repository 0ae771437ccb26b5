"""Copies, and on a database error deletes the sessions it created and raises ValueError: the
user: values the replayed events wrote stay changed in dest."""

PREFIXES = ("user:", "app:", "temp:")
LOSES = ("no_half_copy",)


async def copy_user_to(source, dest, app_name, user_id):
  created = []
  try:
    listed = await source.list_sessions(app_name=app_name, user_id=user_id)
    for item in listed.sessions:
      s = await source.get_session(app_name=app_name, user_id=user_id, session_id=item.id)
      copy = await dest.create_session(app_name=app_name, user_id=user_id, session_id=s.id,
                                       state={k: v for k, v in s.state.items()
                                              if not k.startswith(PREFIXES)})
      created.append(copy.id)
      for event in s.events:
        await dest.append_event(copy, event)
  except Exception as error:
    for session_id in created:
      await dest.delete_session(app_name=app_name, user_id=user_id, session_id=session_id)
    raise ValueError(f"cannot copy {user_id}: {type(error).__name__}") from error
  user_state = await source.get_user_state(app_name=app_name, user_id=user_id)
  carrier = await dest.create_session(app_name=app_name, user_id=user_id,
                                      state={f"user:{k}": v for k, v in user_state.items()})
  await dest.delete_session(app_name=app_name, user_id=user_id, session_id=carrier.id)
