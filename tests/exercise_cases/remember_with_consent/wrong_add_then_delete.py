"""Always adds the session, then deletes it again without consent: deleted ids never come back.

Nothing is left in memory after a turn without consent, but InMemoryMemoryService now
remembers those ids as deleted: when the customer consents later, what they said before the
consent is never saved.
"""

LOSES = ("saved_with_consent",)


async def remember_with_consent(callback_context) -> None:
  await callback_context.add_session_to_memory()
  if callback_context.state.get("user:memory_consent") is not True:
    for event in callback_context.session.events:
      await callback_context.delete_memory(memory_id=event.id)
