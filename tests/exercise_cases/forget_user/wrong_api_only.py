"""Sessions deleted through the API only: the user_states row survives, and the bytes too."""

LOSES = ('user_state_removed', 'no_trace_left')


async def forget_user(service, db_path, app_name, user_id):
  listed = await service.list_sessions(app_name=app_name, user_id=user_id)
  for session in listed.sessions:
    await service.delete_session(app_name=app_name, user_id=user_id, session_id=session.id)
