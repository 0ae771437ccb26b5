"""Adds the events through the service without a session id: stored outside this session.

InMemoryMemoryService files them under an unknown session, not under the conversation they
belong to (the contract: under this session, as add_session_to_memory stores them).
"""

LOSES = ("saved_with_consent",)


async def remember_with_consent(callback_context) -> None:
  consent = callback_context.state.get("user:memory_consent")
  context = callback_context._invocation_context
  if consent is True:
    await context.memory_service.add_events_to_memory(
        app_name=context.app_name, user_id=context.user_id, events=context.session.events)
  elif consent is False:
    for event in context.session.events:
      await callback_context.delete_memory(memory_id=event.id)
