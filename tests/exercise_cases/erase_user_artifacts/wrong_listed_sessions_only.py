"""Only sessions the store lists: files delete_session left behind stay (and go uncounted)."""

LOSES = ("deleted_sessions_erased", "count_returned")


async def erase_user_artifacts(artifact_service, session_service, user_id, app_names):
  erased = 0
  for app in set(app_names):
    for name in await artifact_service.list_artifact_keys(app_name=app, user_id=user_id):
      erased += len(await artifact_service.list_versions(app_name=app, user_id=user_id,
                                                         filename=name))
      await artifact_service.delete_artifact(app_name=app, user_id=user_id, filename=name)
    listed = await session_service.list_sessions(app_name=app, user_id=user_id)
    for session in listed.sessions:
      for name in await artifact_service.list_artifact_keys(app_name=app, user_id=user_id,
                                                            session_id=session.id):
        erased += len(await artifact_service.list_versions(
            app_name=app, user_id=user_id, filename=name, session_id=session.id))
        await artifact_service.delete_artifact(app_name=app, user_id=user_id, filename=name,
                                               session_id=session.id)
  return erased
