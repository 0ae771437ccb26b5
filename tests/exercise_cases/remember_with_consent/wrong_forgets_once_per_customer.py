"""Deletes only on a customer's first turn without consent (a flag per customer, reset on consent): their other session keeps its memories.

After a withdrawal in one session, the customer's next turn in their other session, still
without consent, must delete that conversation too: the flag says it is done already.
"""

LOSES = ("forgotten_on_withdrawal",)

FORGOTTEN: set[tuple[str, str]] = set()


async def remember_with_consent(callback_context) -> None:
  session = callback_context.session
  customer = (session.app_name, session.user_id)
  consent = callback_context.state.get("user:memory_consent")
  if consent is True:
    FORGOTTEN.discard(customer)
    await callback_context.add_session_to_memory()
  elif consent is False and customer not in FORGOTTEN:
    for event in session.events:
      await callback_context.delete_memory(memory_id=event.id)
    FORGOTTEN.add(customer)
