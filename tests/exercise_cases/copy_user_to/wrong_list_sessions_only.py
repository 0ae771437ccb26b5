"""Copies what list_sessions returns: sessions without their events."""

LOSES = ("events_copied",)


async def copy_user_to(source, dest, app_name, user_id):
  listed = await source.list_sessions(app_name=app_name, user_id=user_id)
  for session in listed.sessions:
    own = {k: v for k, v in session.state.items() if ":" not in k}
    user = {k: v for k, v in session.state.items() if k.startswith("user:")}
    await dest.create_session(app_name=app_name, user_id=user_id, session_id=session.id,
                              state={**own, **user})
