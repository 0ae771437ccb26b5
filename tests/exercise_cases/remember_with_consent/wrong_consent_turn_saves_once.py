"""Saves the session only in the turn where the customer consents: what they say afterwards is never added."""

LOSES = ("saved_with_consent",)


async def remember_with_consent(callback_context) -> None:
  session = callback_context.session
  consent = callback_context.state.get("user:memory_consent")
  this_turn = [e for e in session.events if e.invocation_id == callback_context.invocation_id]
  answered = any(e.actions and "user:memory_consent" in (e.actions.state_delta or {})
                 for e in this_turn)
  if consent is True and answered:
    await callback_context.add_session_to_memory()
  elif consent is False:
    for event in session.events:
      await callback_context.delete_memory(memory_id=event.id)
