"""Calls the Runner's memory service itself, naming app, user and session, instead of the context's helpers."""


async def remember_with_consent(callback_context) -> None:
  context = callback_context._invocation_context
  session = context.session
  memory = context.memory_service
  consent = session.state.get("user:memory_consent")
  if consent == True and type(consent) is bool:  # noqa: E712 - exactly True
    await memory.add_events_to_memory(app_name=session.app_name, user_id=session.user_id,
                                      session_id=session.id, events=list(session.events))
  elif consent == False and type(consent) is bool:  # noqa: E712
    for event in reversed(session.events):
      await memory.delete_memory(app_name=session.app_name, user_id=session.user_id,
                                 memory_id=event.id)
