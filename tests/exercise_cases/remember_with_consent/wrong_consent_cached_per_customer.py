"""Remembers each customer's first answer in a module-level dict: a later withdrawal is never seen.

The consent can change on any turn, in any session: read it from the state every time.
"""

LOSES = ("forgotten_on_withdrawal",)

ANSWERS: dict[str, bool] = {}


async def remember_with_consent(callback_context) -> None:
  user = callback_context._invocation_context.user_id
  consent = callback_context.state.get("user:memory_consent")
  if consent is not None:
    ANSWERS.setdefault(user, consent)
  consent = ANSWERS.get(user)
  if consent is True:
    await callback_context.add_session_to_memory()
  elif consent is False:
    for event in callback_context.session.events:
      await callback_context.delete_memory(memory_id=event.id)
