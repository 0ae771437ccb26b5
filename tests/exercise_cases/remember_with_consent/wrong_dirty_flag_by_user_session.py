"""Deletes only when this (user, session) saved something since its last deletion: the same id in the other app clears the mark.

The mark leaves out the app, so the other app's customer with this user id and session id
takes this customer's mark when they refuse.
"""

LOSES = ("forgotten_on_withdrawal",)

SAVED: set[tuple[str, str]] = set()


async def remember_with_consent(callback_context) -> None:
  session = callback_context.session
  key = (session.user_id, session.id)
  consent = callback_context.state.get("user:memory_consent")
  if consent is True:
    await callback_context.add_session_to_memory()
    SAVED.add(key)
  elif consent is False and key in SAVED:
    SAVED.discard(key)
    for event in session.events:
      await callback_context.delete_memory(memory_id=event.id)
