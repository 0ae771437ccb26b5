"""Skips a conversation's repeated deletions until consent is given in it: a consent given in another session never clears the mark.

The mark is per conversation (app, user, session), set when it deletes and cleared only on a
turn whose own events set the consent to True. A customer who withdrew in their second
session, consents again in the first and speaks in the second (saved again), then withdraws:
the second session's next turn without consent deletes nothing.
"""

LOSES = ("forgotten_on_withdrawal",)

FORGOTTEN: set[tuple[str, str, str]] = set()


def _consented_now(callback_context) -> bool:
  return any(event.invocation_id == callback_context.invocation_id and event.actions
             and event.actions.state_delta.get("user:memory_consent") is True
             for event in callback_context.session.events)


async def remember_with_consent(callback_context) -> None:
  session = callback_context.session
  conversation = (session.app_name, session.user_id, session.id)
  consent = callback_context.state.get("user:memory_consent")
  if consent is True:
    if _consented_now(callback_context):
      FORGOTTEN.discard(conversation)
    await callback_context.add_session_to_memory()
  elif consent is False and conversation not in FORGOTTEN:
    for event in session.events:
      await callback_context.delete_memory(memory_id=event.id)
    FORGOTTEN.add(conversation)
