"""Adds the session's events with add_events_to_memory instead of add_session_to_memory."""


async def remember_with_consent(callback_context) -> None:
  session = callback_context.session
  consent = session.state.get("user:memory_consent")
  if consent is True:
    await callback_context.add_events_to_memory(events=session.events)
  elif consent is False:
    for event in session.events:
      await callback_context.delete_memory(memory_id=event.id)
