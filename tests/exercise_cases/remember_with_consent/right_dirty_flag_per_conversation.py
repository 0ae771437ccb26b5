"""Deletes only when this conversation (app, user, session) saved something since its last deletion, marked in a module-level set."""

SAVED: set[tuple[str, str, str]] = set()


async def remember_with_consent(callback_context) -> None:
  session = callback_context.session
  conversation = (session.app_name, session.user_id, session.id)
  consent = callback_context.state.get("user:memory_consent")
  if consent is True:
    await callback_context.add_session_to_memory()
    SAVED.add(conversation)
  elif consent is False and conversation in SAVED:
    SAVED.discard(conversation)
    for event in session.events:
      await callback_context.delete_memory(memory_id=event.id)
