"""Creates the copies without session_id=: new ids, so links and resumes break."""

LOSES = ("sessions_copied",)


async def copy_user_to(source, dest, app_name, user_id):
  listed = await source.list_sessions(app_name=app_name, user_id=user_id)
  for item in listed.sessions:
    session = await source.get_session(app_name=app_name, user_id=user_id, session_id=item.id)
    own = {k: v for k, v in session.state.items() if ":" not in k}
    copy = await dest.create_session(app_name=app_name, user_id=user_id, state=own)
    for event in session.events:
      await dest.append_event(copy, event)
  user_state = await source.get_user_state(app_name=app_name, user_id=user_id)
  carrier = await dest.create_session(app_name=app_name, user_id=user_id,
                                      state={f"user:{k}": v for k, v in user_state.items()})
  await dest.delete_session(app_name=app_name, user_id=user_id, session_id=carrier.id)
