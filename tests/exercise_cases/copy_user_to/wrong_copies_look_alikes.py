"""Lists every session of the app and keeps those whose user id starts with user_id: the
look-alike user (ada_42 / ada_421) is copied too."""

PREFIXES = ("user:", "app:", "temp:")
LOSES = ("dest_others_untouched",)


async def copy_user_to(source, dest, app_name, user_id):
  listed = await source.list_sessions(app_name=app_name)
  for item in listed.sessions:
    if not item.user_id.startswith(user_id):
      continue
    s = await source.get_session(app_name=app_name, user_id=item.user_id, session_id=item.id)
    copy = await dest.create_session(app_name=app_name, user_id=item.user_id, session_id=s.id,
                                     state={k: v for k, v in s.state.items()
                                            if not k.startswith(PREFIXES)})
    for event in s.events:
      await dest.append_event(copy, event)
  user_state = await source.get_user_state(app_name=app_name, user_id=user_id)
  carrier = await dest.create_session(app_name=app_name, user_id=user_id,
                                      state={f"user:{k}": v for k, v in user_state.items()})
  await dest.delete_session(app_name=app_name, user_id=user_id, session_id=carrier.id)
