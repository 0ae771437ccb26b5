"""On withdrawal deletes the memories of every session of the customer: their earlier conversations go too."""

LOSES = ("forgotten_on_withdrawal",)


async def remember_with_consent(callback_context) -> None:
  consent = callback_context.state.get("user:memory_consent")
  if consent is True:
    await callback_context.add_session_to_memory()
  elif consent is False:
    context = callback_context._invocation_context
    sessions = context.session_service
    listed = await sessions.list_sessions(app_name=context.app_name, user_id=context.user_id)
    for found in listed.sessions:
      full = await sessions.get_session(app_name=context.app_name, user_id=context.user_id,
                                        session_id=found.id)
      for event in full.events:
        await callback_context.delete_memory(memory_id=event.id)
