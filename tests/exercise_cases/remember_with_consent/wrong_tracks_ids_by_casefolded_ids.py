"""Tracks the ids it added per conversation, with the app and user ids casefolded: 'Ada' and 'ada' (or CAFE_1 and cafe_1) share a record.

Ids are exact strings: two customers whose ids differ only in case are two customers, and
another customer's refusal pops this one's record, so their withdrawal finds nothing to delete.
"""

LOSES = ("forgotten_on_withdrawal",)

ADDED: dict[tuple[str, str, str], set[str]] = {}


async def remember_with_consent(callback_context) -> None:
  session = callback_context.session
  key = (session.app_name.casefold(), session.user_id.casefold(), session.id)
  consent = callback_context.state.get("user:memory_consent")
  if consent is True:
    await callback_context.add_session_to_memory()
    ADDED.setdefault(key, set()).update(event.id for event in session.events)
  elif consent is False:
    for memory_id in sorted(ADDED.pop(key, set())):
      await callback_context.delete_memory(memory_id=memory_id)
