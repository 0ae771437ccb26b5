"""A faithful copy that checks nothing first: on data PostgreSQL cannot hold it fails half-way,
with the driver's error, leaving a half-copied user behind."""

LOSES = ("refuses_what_postgres_cannot_hold", "no_half_copy")


async def copy_user_to(source, dest, app_name, user_id):
  listed = await source.list_sessions(app_name=app_name, user_id=user_id)
  for listed_session in listed.sessions:
    session = await source.get_session(app_name=app_name, user_id=user_id,
                                       session_id=listed_session.id)
    own_state = {k: v for k, v in session.state.items() if not k.startswith(("user:", "app:", "temp:"))}
    copy = await dest.create_session(app_name=app_name, user_id=user_id,
                                     session_id=session.id, state=own_state)
    for event in session.events:
      await dest.append_event(copy, event)
  user_state = await source.get_user_state(app_name=app_name, user_id=user_id)
  if user_state:
    carrier = await dest.create_session(app_name=app_name, user_id=user_id,
                                        state={f"user:{k}": v for k, v in user_state.items()})
    await dest.delete_session(app_name=app_name, user_id=user_id, session_id=carrier.id)
