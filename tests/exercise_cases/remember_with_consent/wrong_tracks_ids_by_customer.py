"""Tracks the ids it added per customer, not per conversation: a withdrawal deletes the customer's other sessions too.

Only this conversation's memories go on a withdrawal; the customer's other conversation stays
in memory until they speak in it again without consent.
"""

LOSES = ("forgotten_on_withdrawal",)

ADDED: dict[tuple[str, str], set[str]] = {}


async def remember_with_consent(callback_context) -> None:
  session = callback_context.session
  key = (session.app_name, session.user_id)
  consent = callback_context.state.get("user:memory_consent")
  if consent is True:
    await callback_context.add_session_to_memory()
    ADDED.setdefault(key, set()).update(event.id for event in session.events)
  elif consent is False:
    for memory_id in sorted(ADDED.pop(key, set())):
      await callback_context.delete_memory(memory_id=memory_id)
