"""Makes dest's user state mirror the source's: keys only dest had are set to None."""

PREFIXES = ("user:", "app:", "temp:")
LOSES = ("dest_user_data_kept",)


async def copy_user_to(source, dest, app_name, user_id):
  listed = await source.list_sessions(app_name=app_name, user_id=user_id)
  for item in listed.sessions:
    s = await source.get_session(app_name=app_name, user_id=user_id, session_id=item.id)
    copy = await dest.create_session(app_name=app_name, user_id=user_id, session_id=s.id,
                                     state={k: v for k, v in s.state.items()
                                            if not k.startswith(PREFIXES)})
    for event in s.events:
      await dest.append_event(copy, event)
  user_state = await source.get_user_state(app_name=app_name, user_id=user_id)
  in_dest = await dest.get_user_state(app_name=app_name, user_id=user_id)
  mirror = {f"user:{k}": None for k in in_dest if k not in user_state}
  mirror.update({f"user:{k}": v for k, v in user_state.items()})
  carrier = await dest.create_session(app_name=app_name, user_id=user_id, state=mirror)
  await dest.delete_session(app_name=app_name, user_id=user_id, session_id=carrier.id)
